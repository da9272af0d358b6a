// Verifier: call, conditional, fusion, while (seed 001 "Call",
// "CompositeCall", "Conditional", "While"; fusion from
// docs/hlo-text-format.md 6.8).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

std::vector<Shape> OperandShapes(const HloInstruction& inst, int64_t first) {
  std::vector<Shape> shapes;
  for (int64_t i = first; i < inst.operand_count(); ++i) {
    shapes.push_back(inst.operand(i)->shape());
  }
  return shapes;
}

// call.C1 / fusion.C1: "The arity and types of the args must match the
// parameters of the computation"; the result is the computation's.
absl::StatusOr<Shape> InferCallLike(const HloInstruction& inst,
                                    absl::string_view attr) {
  const std::string rule = Rule(inst, 1);
  const HloComputation* callee = inst.to_apply();
  if (callee == nullptr) return Fail(inst, rule, attr, " is missing");
  HLOREF_RETURN_IF_ERROR(CheckSignature(
      inst, rule, attr, callee, OperandShapes(inst, 0), ResultShape(*callee)));
  return ResultShape(*callee);
}

absl::StatusOr<Shape> InferConditional(const HloInstruction& inst) {
  const Shape& selector = inst.operand(0)->shape();
  const auto branches = inst.branch_computations();
  const bool pred_form = inst.attrs().has(AttrId::kTrueComputation) ||
                         inst.attrs().has(AttrId::kFalseComputation);
  // conditional.C1: the selector is pred[] (true/false form) or s32[]
  // (branch_computations form).
  const PrimitiveType want =
      pred_form ? PrimitiveType::kPred : PrimitiveType::kS32;
  if (!IsScalarArray(selector) || selector.element_type() != want) {
    return Fail(inst, "conditional.C1", "branch selector is ",
                ShapeStr(selector), ", expected ", PrimitiveTypeName(want),
                "[] for the ", pred_form ? "true/false" : "branch_computations",
                " form");
  }
  // conditional.C2: the true/false form has both computations and no
  // branch list; the index form has at least one branch.
  if (pred_form && (!inst.attrs().has(AttrId::kTrueComputation) ||
                    !inst.attrs().has(AttrId::kFalseComputation) ||
                    inst.attrs().has(AttrId::kBranchComputations))) {
    return Fail(inst, "conditional.C2",
                "the predicate form needs true_computation and "
                "false_computation and no branch_computations");
  }
  if (branches.empty()) {
    return Fail(inst, "conditional.C2", "conditional has no branches");
  }
  // conditional.C3: one operand per branch.
  if (inst.operand_count() - 1 != static_cast<int64_t>(branches.size())) {
    return Fail(inst, "conditional.C3", "has ", inst.operand_count() - 1,
                " branch operands for ", branches.size(), " branches");
  }
  // conditional.C4: branch b takes one argument of operand b's type;
  // conditional.C5: all branches return the same type.
  const HloComputation* first = branches[0];
  if (first == nullptr)
    return Fail(inst, "conditional.C4", "branch 0 is missing");
  const Shape result = ResultShape(*first);
  for (size_t b = 0; b < branches.size(); ++b) {
    const HloComputation* branch = branches[b];
    if (branch == nullptr) {
      return Fail(inst, "conditional.C4", "branch ", b, " is missing");
    }
    std::vector<Shape> params = ParameterShapes(*branch);
    const Shape& arg = inst.operand(b + 1)->shape();
    if (params.size() != 1 || !SameShape(params[0], arg)) {
      return Fail(inst, "conditional.C4", "branch ", b, " %", branch->name(),
                  " takes ", params.size(), " parameters",
                  params.size() == 1 ? " of type " + ShapeStr(params[0])
                                     : std::string(),
                  ", expected one of type ", ShapeStr(arg));
    }
    if (!SameShape(ResultShape(*branch), result)) {
      return Fail(inst, "conditional.C5", "branch ", b, " %", branch->name(),
                  " returns ", ShapeStr(ResultShape(*branch)), ", branch 0 %",
                  first->name(), " returns ", ShapeStr(result));
    }
  }
  return result;
}

absl::StatusOr<Shape> InferWhile(const HloInstruction& inst) {
  const Shape& t = inst.operand(0)->shape();
  // while.C1: condition is T -> PRED.
  HLOREF_RETURN_IF_ERROR(CheckSignature(inst, "while.C1", "condition",
                                        inst.while_condition(), {t},
                                        Shape::Scalar(PrimitiveType::kPred)));
  // while.C2: body is T -> T.
  HLOREF_RETURN_IF_ERROR(
      CheckSignature(inst, "while.C2", "body", inst.while_body(), {t}, t));
  Shape result = t;
  result.ClearLayoutsRecursive();
  return result;
}

}  // namespace

absl::StatusOr<Shape> InferControlFlow(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kCall:
      return InferCallLike(inst, "to_apply");
    case HloOpcode::kFusion:
      return InferCallLike(inst, "calls");
    case HloOpcode::kConditional:
      return InferConditional(inst);
    case HloOpcode::kWhile:
      return InferWhile(inst);
    default:
      return WrongFamily(inst, "control_flow");
  }
}

}  // namespace hloref::verifier_internal
