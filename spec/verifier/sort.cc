// Verifier: sort and topk (seed 001 "Sort"; topk from
// docs/hlo-text-format.md 6.6).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

absl::StatusOr<Shape> InferSortOp(const HloInstruction& inst) {
  const Shape& first = inst.operand(0)->shape();
  std::vector<Shape> params;
  std::vector<Shape> results;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    // sort.C1: "All n operands must be tensors with the same dimensions".
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, i, "sort.C1"));
    const Shape& s = inst.operand(i)->shape();
    if (!SameDims(s, first)) {
      return Fail(inst, "sort.C1", OperandName(inst, i), " has dimensions ",
                  DimsStr(s.dimensions()), ", operand 0 has ",
                  DimsStr(first.dimensions()));
    }
    // Seed: parameters 2k and 2k+1 are operand k's values at i and j.
    params.push_back(Shape::Scalar(s.element_type()));
    params.push_back(Shape::Scalar(s.element_type()));
    results.push_back(WithElementType(s, s.element_type()));
  }
  // sort.C2: one dimension to sort along, in [0, rank).
  const auto& dims = inst.attrs().dimensions;
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= first.rank()) {
    return Fail(inst, "sort.C2", "dimensions ", DimsStr(dims),
                " must name one dimension in [0, ", first.rank(), ")");
  }
  // sort.C3: the comparator takes 2n scalars and returns pred[].
  HLOREF_RETURN_IF_ERROR(CheckSignature(inst, "sort.C3", "to_apply",
                                        inst.to_apply(), params,
                                        Shape::Scalar(PrimitiveType::kPred)));
  if (results.size() == 1) return results[0];
  return Shape::Tuple(std::move(results));
}

absl::StatusOr<Shape> InferTopK(const HloInstruction& inst) {
  // topk.C1: an array of rank >= 1 (topk works along the last dimension).
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "topk.C1"));
  const Shape& operand = inst.operand(0)->shape();
  if (operand.rank() < 1) {
    return Fail(inst, "topk.C1", "operand is a scalar, expected rank >= 1");
  }
  // topk.C2: 0 <= k <= size of the last dimension.
  const int64_t k = inst.attrs().k;
  const int64_t last = operand.dimensions(operand.rank() - 1);
  if (k < 0 || k > last) {
    return Fail(inst, "topk.C2", "k is ", k, ", expected a value in [0, ", last,
                "]");
  }
  // topk.C3: the values are ordered, so they are not complex. pred is
  // accepted as XLA accepts it (XLA:CPU compiles and runs topk on pred;
  // false < true, its comparator's order).
  if (IsComplex(operand.element_type())) {
    return Fail(inst, "topk.C3",
                "topk needs pred, integer or floating-point values, "
                "got ",
                PrimitiveTypeName(operand.element_type()));
  }
  Shape values = WithElementType(operand, operand.element_type());
  values.set_dimensions(operand.rank() - 1, k);
  Shape indices = WithElementType(values, PrimitiveType::kS32);
  return Shape::Tuple({values, indices});
}

}  // namespace

absl::StatusOr<Shape> InferSort(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kSort:
      return InferSortOp(inst);
    case HloOpcode::kTopK:
      return InferTopK(inst);
    default:
      return WrongFamily(inst, "sort");
  }
}

}  // namespace hloref::verifier_internal
