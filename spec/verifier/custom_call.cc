// Verifier: custom-call (seed 001 "CustomCall"; attributes from
// docs/hlo-text-format.md 6.9). The result shape is the one written: the
// target decides it.
#include "spec/ir/annotation_custom_calls.h"
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {

absl::StatusOr<Shape> InferCustomCall(const HloInstruction& inst) {
  if (inst.opcode() != HloOpcode::kCustomCall) {
    return WrongFamily(inst, "custom_call");
  }
  // custom-call.C1: custom_call_target names a function.
  if (inst.attrs().custom_call_target.empty()) {
    return Fail(inst, "custom-call.C1", "custom_call_target is empty");
  }
  // custom-call.C2: operand_layout_constraints, when given, has one shape
  // per operand, each the operand's shape.
  if (inst.attrs().has(AttrId::kOperandLayoutConstraints)) {
    const auto& constraints = inst.attrs().operand_layout_constraints;
    if (static_cast<int64_t>(constraints.size()) != inst.operand_count()) {
      return Fail(inst, "custom-call.C2", "operand_layout_constraints has ",
                  constraints.size(), " shapes for ", inst.operand_count(),
                  " operands");
    }
    for (int64_t i = 0; i < inst.operand_count(); ++i) {
      if (!SameShape(constraints[i], inst.operand(i)->shape())) {
        return Fail(inst, "custom-call.C2", "operand_layout_constraints entry ",
                    i, " is ", ShapeStr(constraints[i]), ", ",
                    OperandName(inst, i), " is ",
                    ShapeStr(inst.operand(i)->shape()));
      }
    }
  }
  // custom-call.C3: to_apply and called_computations are alternatives.
  if (inst.attrs().has(AttrId::kToApply) &&
      inst.attrs().has(AttrId::kCalledComputations)) {
    return Fail(inst, "custom-call.C3",
                "to_apply and called_computations may not both be given");
  }
  // custom-call.C4: an annotation target XLA replaces by its operand
  // (Sharding, MoveToHost, ...: spec/ir/annotation_custom_calls.h) has one
  // operand and the operand's shape, so that the replacement is valid.
  if (FindAnnotationCustomCall(inst.attrs().custom_call_target) != nullptr) {
    absl::Status identity = CheckAnnotationCustomCall(inst);
    if (!identity.ok()) {
      return Fail(inst, "custom-call.C4", identity.message());
    }
  }
  Shape s = inst.shape();
  s.ClearLayoutsRecursive();
  return s;
}

}  // namespace hloref::verifier_internal
