// The kAsync family: async-start / async-update / async-done and
// copy-start / copy-done (text-format 6.13). A sequential evaluator runs
// the asynchronous work at the start; the start's value carries it through
// update to done in the tuple layout the text format prints.
#include "interpreter/ops/async.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/ops/families.h"

namespace hloref {
namespace {

// Zero-filled context values for tuple elements [first, end) of the
// instruction's shape (the context is opaque runtime state; its value is
// never observable).
absl::Status AppendContext(const HloInstruction& inst, int64_t first,
                           std::vector<Literal>& elements, EvalContext& ctx) {
  const Shape& shape = inst.shape();
  for (int64_t i = first; i < shape.tuple_size(); ++i) {
    HLOREF_ASSIGN_OR_RETURN(
        Literal context, AllocateLiteral(shape.tuple_shapes(i),
                                         ctx.options().max_elements_per_value));
    elements.push_back(std::move(context));
  }
  return absl::OkStatus();
}

absl::StatusOr<const Literal*> TupleElementOf(const HloInstruction& inst,
                                              const Literal& value,
                                              int64_t index) {
  if (!value.shape().IsTuple() || value.tuple_size() <= index) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "operand ", value.shape().ToString(),
        " is not the tuple an asynchronous start produces (is the module "
        "verified?)"));
  }
  return &value.tuple_element(index);
}

}  // namespace

// Applies the wrapped computation (`calls`) to the operands and returns
// ((operands...), result, context...), the start's shape in the text
// format. Semantics: text-format 6.13 (async-start).
absl::StatusOr<Literal> EvalAsyncStart(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  const HloComputation* wrapped = inst.to_apply();
  if (wrapped == nullptr || !inst.shape().IsTuple() ||
      inst.shape().tuple_size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst),
        "needs a wrapped computation and a ((operands), result, context) "
        "shape (is the module verified?)"));
  }
  HLOREF_ASSIGN_OR_RETURN(Literal result, ctx.Call(*wrapped, operands));
  std::vector<Literal> operand_values;
  for (const Literal* operand : operands) operand_values.push_back(*operand);
  std::vector<Literal> elements;
  elements.push_back(Literal::MakeTuple(std::move(operand_values)));
  elements.push_back(std::move(result));
  HLOREF_RETURN_IF_ERROR(AppendContext(inst, 2, elements, ctx));
  return Literal::MakeTuple(std::move(elements));
}

// The start's value passes through unchanged.
// Semantics: text-format 6.13 (async-update).
absl::StatusOr<Literal> EvalAsyncUpdate(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  HLOREF_RETURN_IF_ERROR(TupleElementOf(inst, *operands[0], 1).status());
  return *operands[0];
}

// The wrapped computation's result: element 1 of the start's value.
// Semantics: text-format 6.13 (async-done).
absl::StatusOr<Literal> EvalAsyncDone(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  HLOREF_ASSIGN_OR_RETURN(const Literal* result,
                          TupleElementOf(inst, *operands[0], 1));
  return *result;
}

// (destination, source, context): the destination is a copy of the
// operand (possibly in another layout or memory space, which values do not
// show). Semantics: text-format 6.13 (copy-start).
absl::StatusOr<Literal> EvalCopyStart(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  if (!inst.shape().IsTuple() || inst.shape().tuple_size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "shape ", inst.shape().ToString(),
        " is not (destination, source, context) (is the module verified?)"));
  }
  Literal destination = *operands[0];
  const Shape& destination_shape = inst.shape().tuple_shapes(0);
  if (destination.shape().IsArray() && destination_shape.IsArray() &&
      destination_shape.has_layout()) {
    destination.set_layout(destination_shape.layout());
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(destination));
  elements.push_back(*operands[0]);
  HLOREF_RETURN_IF_ERROR(AppendContext(inst, 2, elements, ctx));
  return Literal::MakeTuple(std::move(elements));
}

// The destination: element 0 of copy-start's value.
// Semantics: text-format 6.13 (copy-done).
absl::StatusOr<Literal> EvalCopyDone(const HloInstruction& inst,
                                     absl::Span<const Literal* const> operands,
                                     EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  HLOREF_ASSIGN_OR_RETURN(const Literal* destination,
                          TupleElementOf(inst, *operands[0], 0));
  return *destination;
}

// Family entry point (families.h).
absl::StatusOr<Literal> EvalAsync(const HloInstruction& inst,
                                  absl::Span<const Literal* const> operands,
                                  EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kAsyncStart:
      return EvalAsyncStart(inst, operands, ctx);
    case HloOpcode::kAsyncUpdate:
      return EvalAsyncUpdate(inst, operands, ctx);
    case HloOpcode::kAsyncDone:
      return EvalAsyncDone(inst, operands, ctx);
    case HloOpcode::kCopyStart:
      return EvalCopyStart(inst, operands, ctx);
    case HloOpcode::kCopyDone:
      return EvalCopyDone(inst, operands, ctx);
    default:
      return InstructionInternal(inst, "not an op of the kAsync family");
  }
}

}  // namespace hloref
