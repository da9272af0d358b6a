// The kTupleToken family: values without arithmetic. Seed 001 sections
// Tuple, GetTupleElement, AfterAll, OptimizationBarrier; text-format 4
// (constant) and 6.8 (parameter, add-dependency, domain).
#include "interpreter/ops/tuple_token.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/ops/families.h"

namespace hloref {

// The constant's literal. An elided constant (`{...}` in a dump) has no
// values, so evaluating it is an InvalidArgument naming the instruction.
// Semantics: text-format 4.
absl::StatusOr<Literal> EvalConstant(const HloInstruction& inst,
                                     absl::Span<const Literal* const> operands,
                                     EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 0, 0));
  const Literal& literal = inst.literal();
  if (literal.is_elided()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst),
                     "the constant's values are elided ({...}); "
                     "supply the dump with full constants"));
  }
  if (!literal.shape().IsValid()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "the constant has no value"));
  }
  Literal result = literal;
  if (result.shape().IsArray() && inst.shape().IsArray() &&
      inst.shape().has_layout()) {
    result.set_layout(inst.shape().layout());
  }
  return result;
}

// Parameter values are bound by the evaluator core (entry arguments and
// call arguments); the core passes the bound value as the one operand so
// this family can stay the single place that produces values.
// Semantics: text-format 6.8 (parameter).
absl::StatusOr<Literal> EvalParameter(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  if (operands.size() != 1) {
    return InstructionInternal(
        inst,
        "parameter values are bound by the evaluator core, which "
        "passes the bound value as the only operand");
  }
  return *operands[0];
}

// A tuple of the operand values, in order. Semantics: Tuple.
absl::StatusOr<Literal> EvalTuple(const HloInstruction& inst,
                                  absl::Span<const Literal* const> operands,
                                  EvalContext& ctx) {
  std::vector<Literal> elements;
  elements.reserve(operands.size());
  for (size_t k = 0; k < operands.size(); ++k) {
    // A value read for the last time moves into the tuple.
    elements.push_back(
        TakeOrCopyOperand(ctx, operands, static_cast<int64_t>(k)));
  }
  return Literal::MakeTuple(std::move(elements));
}

// Element `index` of the tuple operand. Semantics: GetTupleElement.
absl::StatusOr<Literal> EvalGetTupleElement(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  const Literal& tuple = *operands[0];
  const int64_t index = inst.attrs().index;
  if (!tuple.shape().IsTuple() || index < 0 || index >= tuple.tuple_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "index ", index, " is not an element of ",
        tuple.shape().ToString(), " (is the module verified?)"));
  }
  return tuple.tuple_element(index);
}

// A token; the operands only order side effects, which a sequential
// evaluator already respects. Semantics: AfterAll.
absl::StatusOr<Literal> EvalAfterAll(const HloInstruction& inst,
                                     absl::Span<const Literal* const> operands,
                                     EvalContext& ctx) {
  return Literal::Token();
}

// Returns operand 0; operand 1 (a token) only orders it.
// Semantics: text-format 6.8 (add-dependency).
absl::StatusOr<Literal> EvalAddDependency(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 2, 2));
  return *operands[0];
}

// Identity: the barrier only constrains optimisation, and every input is
// already evaluated when it runs. Semantics: OptimizationBarrier.
absl::StatusOr<Literal> EvalOptimizationBarrier(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  return TakeOrCopyOperand(ctx, operands, 0);
}

// Identity: a domain marks a sharding boundary for the compiler.
// Semantics: text-format 6.8 (domain).
absl::StatusOr<Literal> EvalDomain(const HloInstruction& inst,
                                   absl::Span<const Literal* const> operands,
                                   EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  return TakeOrCopyOperand(ctx, operands, 0);
}

// Family entry point (families.h).
absl::StatusOr<Literal> EvalTupleToken(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kConstant:
      return EvalConstant(inst, operands, ctx);
    case HloOpcode::kParameter:
      return EvalParameter(inst, operands, ctx);
    case HloOpcode::kTuple:
      return EvalTuple(inst, operands, ctx);
    case HloOpcode::kGetTupleElement:
      return EvalGetTupleElement(inst, operands, ctx);
    case HloOpcode::kAfterAll:
      return EvalAfterAll(inst, operands, ctx);
    case HloOpcode::kAddDependency:
      return EvalAddDependency(inst, operands, ctx);
    case HloOpcode::kOptimizationBarrier:
      return EvalOptimizationBarrier(inst, operands, ctx);
    case HloOpcode::kDomain:
      return EvalDomain(inst, operands, ctx);
    default:
      return InstructionInternal(inst, "not an op of the kTupleToken family");
  }
}

}  // namespace hloref
