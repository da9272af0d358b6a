// The kControlFlow family: Call (and CompositeCall), Conditional, While
// (seed 001) and fusion (text-format 6.8), plus Map (seed 001, filed under
// kReduce in ops.def). Nested computations run through EvalContext::Call,
// which shares the evaluator's limits and depth tracking.
#include "interpreter/ops/control_flow.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/ops/families.h"

namespace hloref {
namespace {

absl::StatusOr<const HloComputation*> CalledComputation(
    const HloInstruction& inst, const HloComputation* computation,
    absl::string_view attribute) {
  if (computation == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "has no ", attribute,
                     " computation (is the module verified?)"));
  }
  return computation;
}

// A scalar pred value as a bool; anything else is an InvalidArgument.
absl::StatusOr<bool> ReadPred(const HloInstruction& inst, const Literal& value,
                              absl::string_view what) {
  if (!value.shape().IsArray() ||
      value.element_type() != PrimitiveType::kPred ||
      value.element_count() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), what, " is ",
                     value.shape().ToString(), ", expected pred[]"));
  }
  return value.raw()[0] != 0;
}

}  // namespace

// Runs the computation on the arguments. A composite call
// (is_composite=true) means its decomposition, which is the to_apply
// computation, so it evaluates the same way. Semantics: Call,
// CompositeCall.
absl::StatusOr<Literal> EvalCall(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands,
                                 EvalContext& ctx) {
  HLOREF_ASSIGN_OR_RETURN(const HloComputation* computation,
                          CalledComputation(inst, inst.to_apply(), "to_apply"));
  return ctx.Call(*computation, operands);
}

// Predicate form: true_computation(true_operand) if pred, else
// false_computation(false_operand). Indexed form: branch_computations
// [branch_index](branch_operands[branch_index]); an index < 0 or >= N runs
// branch N-1, as the seed states. Only the chosen branch is evaluated.
// Semantics: Conditional.
absl::StatusOr<Literal> EvalConditional(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, -1));
  absl::Span<HloComputation* const> branch_computations =
      inst.branch_computations();
  const int64_t n = static_cast<int64_t>(branch_computations.size());
  if (n == 0 || static_cast<int64_t>(operands.size()) != n + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "has ", n, " branches and ",
        operands.size() - 1,
        " branch operands; they must match (is the module verified?)"));
  }
  const Literal& selector = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, selector, 0));
  int64_t branch = 0;
  if (selector.element_type() == PrimitiveType::kPred) {
    if (n != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst),
                       "a pred selector needs exactly two "
                       "branches (is the module verified?)"));
    }
    HLOREF_ASSIGN_OR_RETURN(bool pred, ReadPred(inst, selector, "pred"));
    branch = pred ? 0 : 1;
  } else {
    if (selector.element_count() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "branch_index is ",
                       selector.shape().ToString(), ", expected a scalar"));
    }
    HLOREF_ASSIGN_OR_RETURN(int64_t branch_index,
                            ReadIndexElement(selector, 0));
    branch = (branch_index < 0 || branch_index >= n) ? n - 1 : branch_index;
  }
  HLOREF_ASSIGN_OR_RETURN(
      const HloComputation* computation,
      CalledComputation(inst, branch_computations[branch], "branch"));
  return ctx.Call(*computation, operands.subspan(1 + branch, 1));
}

// state = init; while condition(state): state = body(state). The number of
// body executions is limited by EvaluatorOptions::max_while_iterations
// (EvalContext::CountWhileIteration: a ResourceExhausted error naming the
// loop and the option), which also checks the wall-time deadline.
// Semantics: While.
absl::StatusOr<Literal> EvalWhile(const HloInstruction& inst,
                                  absl::Span<const Literal* const> operands,
                                  EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  HLOREF_ASSIGN_OR_RETURN(
      const HloComputation* condition,
      CalledComputation(inst, inst.while_condition(), "condition"));
  HLOREF_ASSIGN_OR_RETURN(const HloComputation* body,
                          CalledComputation(inst, inst.while_body(), "body"));
  // The carried state is handed to the body, which may update it in place
  // (CallConsuming); the initial value is taken when nothing reads it
  // after the loop.
  Literal state = TakeOrCopyOperand(ctx, operands, 0);
  for (int64_t iterations = 0;;) {
    const Literal* arg = &state;
    HLOREF_ASSIGN_OR_RETURN(Literal keep_going,
                            ctx.Call(*condition, absl::MakeConstSpan(&arg, 1)));
    HLOREF_ASSIGN_OR_RETURN(
        bool pred, ReadPred(inst, keep_going, "the condition's result"));
    if (!pred) return state;
    std::vector<Literal> args;
    args.push_back(std::move(state));
    HLOREF_ASSIGN_OR_RETURN(state, ctx.CallConsuming(*body, std::move(args)));
    // ResourceExhausted past max_while_iterations; checks the deadline.
    HLOREF_RETURN_IF_ERROR(ctx.CountWhileIteration(inst, ++iterations));
  }
}

// A fusion means its fused computation applied to the operands, exactly
// like call. Semantics: text-format 6.8 (fusion).
absl::StatusOr<Literal> EvalFusion(const HloInstruction& inst,
                                   absl::Span<const Literal* const> operands,
                                   EvalContext& ctx) {
  HLOREF_ASSIGN_OR_RETURN(const HloComputation* computation,
                          CalledComputation(inst, inst.to_apply(), "calls"));
  return ctx.Call(*computation, operands);
}

// result[i] = computation(operands[0][i], ..., operands[N-1][i]) at every
// index i, each operand element passed as a scalar. Elements are visited
// in row-major order (the computation has no side effects, so the order
// cannot show). Semantics: Map.
absl::StatusOr<Literal> EvalMap(const HloInstruction& inst,
                                absl::Span<const Literal* const> operands,
                                EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, -1));
  HLOREF_ASSIGN_OR_RETURN(const HloComputation* computation,
                          CalledComputation(inst, inst.to_apply(), "to_apply"));
  const Shape& result_shape = inst.shape();
  if (!result_shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "result ", result_shape.ToString(),
        " is not an array (is the module verified?)"));
  }
  HLOREF_ASSIGN_OR_RETURN(
      Literal result,
      AllocateLiteral(result_shape, ctx.options().max_elements_per_value));
  const int64_t count = result.element_count();
  std::vector<Literal> scalars;
  std::vector<const Literal*> args;
  std::vector<int> bytes;
  for (size_t k = 0; k < operands.size(); ++k) {
    HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[k], k));
    if (operands[k]->element_count() != count ||
        !operands[k]->shape().SameDimensions(Shape::Array(
            operands[k]->element_type(), result_shape.dimensions()))) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "operand ", k, " ",
                       operands[k]->shape().ToString(),
                       " does not have the result's "
                       "dimensions (is the module "
                       "verified?)"));
    }
    scalars.emplace_back(Shape::Scalar(operands[k]->element_type()));
    bytes.push_back(StorageBytes(operands[k]->element_type()));
  }
  for (const Literal& s : scalars) args.push_back(&s);
  const int result_bytes = StorageBytes(result.element_type());
  for (int64_t i = 0; i < count; ++i) {
    for (size_t k = 0; k < operands.size(); ++k) {
      std::memcpy(scalars[k].mutable_raw().data(),
                  operands[k]->raw().data() + i * bytes[k], bytes[k]);
    }
    HLOREF_ASSIGN_OR_RETURN(Literal value, ctx.Call(*computation, args));
    if (!value.shape().IsArray() ||
        value.element_type() != result.element_type() ||
        value.element_count() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "the mapped computation returned ",
          value.shape().ToString(),
          ", expected a scalar of the result's "
          "element type"));
    }
    std::memcpy(result.mutable_raw().data() + i * result_bytes,
                value.raw().data(), result_bytes);
    if ((i & 1023) == 1023) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
  }
  return result;
}

// Family entry point (families.h). kMap is accepted too, so a dispatcher
// may route it here.
absl::StatusOr<Literal> EvalControlFlow(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kCall:
      return EvalCall(inst, operands, ctx);
    case HloOpcode::kConditional:
      return EvalConditional(inst, operands, ctx);
    case HloOpcode::kWhile:
      return EvalWhile(inst, operands, ctx);
    case HloOpcode::kFusion:
      return EvalFusion(inst, operands, ctx);
    case HloOpcode::kMap:
      return EvalMap(inst, operands, ctx);
    default:
      return InstructionInternal(inst, "not an op of the kControlFlow family");
  }
}

}  // namespace hloref
