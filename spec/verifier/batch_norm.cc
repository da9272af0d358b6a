// Verifier: batch-norm-training, batch-norm-inference, batch-norm-grad
// (seed 001 "BatchNormTraining", "BatchNormInference", "BatchNormGrad").
// Rules shared by the three ops:
//   <op>.C1 the operand is a floating-point array of rank >= 1;
//   <op>.C2 feature_index is "a valid index for the feature dimension";
//   <op>.C3 scale/offset/mean/variance are "1 dimensional" arrays of the
//           operand's type with one entry per feature;
//   <op>.C4 (grad) grad_output has the operand's shape.
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {

absl::StatusOr<Shape> InferBatchNorm(const HloInstruction& inst) {
  const HloOpcode op = inst.opcode();
  if (op != HloOpcode::kBatchNormTraining &&
      op != HloOpcode::kBatchNormInference && op != HloOpcode::kBatchNormGrad) {
    return WrongFamily(inst, "batch_norm");
  }
  const Shape& operand = inst.operand(0)->shape();
  if (!operand.IsArray() || !IsFloat(operand.element_type()) ||
      operand.rank() < 1) {
    return Fail(inst, Rule(inst, 1), "operand is ", ShapeStr(operand),
                ", expected a floating-point array of rank >= 1");
  }
  const int64_t f = inst.attrs().feature_index;
  if (f < 0 || f >= operand.rank()) {
    return Fail(inst, Rule(inst, 2), "feature_index is ", f,
                ", expected a dimension in [0, ", operand.rank(), ")");
  }
  const Shape features =
      MakeShape(operand.element_type(), {operand.dimensions(f)});
  // Operands besides the data: training (scale, offset); inference
  // (scale, offset, mean, variance); grad (scale, mean, variance) and then
  // grad_output.
  const int64_t last_vector =
      op == HloOpcode::kBatchNormGrad ? 3 : inst.operand_count() - 1;
  for (int64_t i = 1; i <= last_vector; ++i) {
    const Shape& s = inst.operand(i)->shape();
    if (!SameShape(s, features)) {
      return Fail(inst, Rule(inst, 3), OperandName(inst, i), " is ",
                  ShapeStr(s), ", expected ", ShapeStr(features));
    }
  }
  const Shape data = WithElementType(operand, operand.element_type());
  if (op == HloOpcode::kBatchNormInference) return data;
  if (op == HloOpcode::kBatchNormGrad) {
    const Shape& grad = inst.operand(4)->shape();
    if (!SameShape(grad, data)) {
      return Fail(inst, "batch-norm-grad.C4", "grad_output is ", ShapeStr(grad),
                  ", expected the operand's shape ", ShapeStr(data));
    }
  }
  return Shape::Tuple({data, features, features});
}

}  // namespace hloref::verifier_internal
