// Verifier: slice, dynamic-slice, dynamic-update-slice (seed 001 "Slice",
// "DynamicSlice", "DynamicUpdateSlice"; the index operand forms from
// docs/hlo-text-format.md 6.4).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

// The start indices of a dynamic slice begin at operand `first`: either one
// integer scalar per operand dimension, or (legacy) one rank-1 integer
// vector with one entry per dimension. `<op>.C2` for the count or form,
// `<op>.C3` for the types (integers, all the same type).
absl::Status CheckStartIndices(const HloInstruction& inst, int64_t first,
                               int64_t rank) {
  const std::string op(HloOpcodeString(inst.opcode()));
  const int64_t n = inst.operand_count() - first;
  const bool vector_form = n == 1 && inst.operand(first)->shape().IsArray() &&
                           inst.operand(first)->shape().rank() == 1;
  if (vector_form) {
    const Shape& s = inst.operand(first)->shape();
    if (s.dimensions(0) != rank) {
      return Fail(inst, op + ".C2", "start index vector has ", s.dimensions(0),
                  " entries, operand rank is ", rank);
    }
  } else {
    if (n != rank) {
      return Fail(inst, op + ".C2", "has ", n,
                  " start index operands, expected one scalar per operand "
                  "dimension (",
                  rank, ")");
    }
    for (int64_t i = first; i < inst.operand_count(); ++i) {
      const Shape& s = inst.operand(i)->shape();
      if (!IsScalarArray(s)) {
        return Fail(inst, op + ".C2", OperandName(inst, i), " is ", ShapeStr(s),
                    ", expected an integer scalar");
      }
    }
  }
  for (int64_t i = first; i < inst.operand_count(); ++i) {
    const Shape& s = inst.operand(i)->shape();
    if (!s.IsArray() || !IsInteger(s.element_type()) ||
        s.element_type() != inst.operand(first)->shape().element_type()) {
      return Fail(inst, op + ".C3", OperandName(inst, i), " is ", ShapeStr(s),
                  "; start indices must be integers of one type");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferSlice(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "slice.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const SliceConfig& slice = inst.attrs().slice;
  // slice.C2: one [start:limit:stride] per operand dimension.
  if (static_cast<int64_t>(slice.start_indices.size()) != operand.rank() ||
      slice.limit_indices.size() != slice.start_indices.size() ||
      slice.strides.size() != slice.start_indices.size()) {
    return Fail(inst, "slice.C2", "slice has ", slice.start_indices.size(),
                " ranges, operand rank is ", operand.rank());
  }
  Shape result = Shape::Scalar(operand.element_type());
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const int64_t start = slice.start_indices[i];
    const int64_t limit = slice.limit_indices[i];
    const int64_t stride = slice.strides[i];
    // slice.C3: 0 <= start <= limit <= size (seed Slice arguments).
    if (start < 0 || start > limit || limit > operand.dimensions(i)) {
      return Fail(inst, "slice.C3", "dimension ", i, " has range [", start, ":",
                  limit,
                  "], expected 0 <= start <= limit <= ", operand.dimensions(i));
    }
    // slice.C4: strides are positive.
    if (stride <= 0) {
      return Fail(inst, "slice.C4", "dimension ", i, " has stride ", stride,
                  ", expected a positive stride");
    }
    result.add_dimension((limit - start + stride - 1) / stride,
                         operand.is_dynamic_dimension(i));
  }
  return result;
}

absl::StatusOr<Shape> InferDynamicSlice(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "dynamic-slice.C1"));
  const Shape& operand = inst.operand(0)->shape();
  HLOREF_RETURN_IF_ERROR(CheckStartIndices(inst, 1, operand.rank()));
  const auto& sizes = inst.attrs().dynamic_slice_sizes;
  // dynamic-slice.C4: one size per operand dimension.
  if (static_cast<int64_t>(sizes.size()) != operand.rank()) {
    return Fail(inst, "dynamic-slice.C4", "dynamic_slice_sizes ",
                DimsStr(sizes), " has ", sizes.size(),
                " entries, operand rank is ", operand.rank());
  }
  // dynamic-slice.C5: 0 <= size <= operand size (the seed asks for
  // size > 0; XLA accepts empty slices, and so do we: see families.md).
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (sizes[i] < 0 || sizes[i] > operand.dimensions(i)) {
      return Fail(inst, "dynamic-slice.C5", "slice size ", sizes[i],
                  " in dimension ", i, " is outside [0, ",
                  operand.dimensions(i), "]");
    }
  }
  return MakeShape(operand.element_type(), sizes);
}

absl::StatusOr<Shape> InferDynamicUpdateSlice(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(
      ExpectArrayOperand(inst, 0, "dynamic-update-slice.C1"));
  HLOREF_RETURN_IF_ERROR(
      ExpectArrayOperand(inst, 1, "dynamic-update-slice.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const Shape& update = inst.operand(1)->shape();
  HLOREF_RETURN_IF_ERROR(CheckStartIndices(inst, 2, operand.rank()));
  // dynamic-update-slice.C4: same element type and rank.
  if (update.element_type() != operand.element_type() ||
      update.rank() != operand.rank()) {
    return Fail(inst, "dynamic-update-slice.C4", "update ", ShapeStr(update),
                " must have the element type and rank of operand ",
                ShapeStr(operand));
  }
  // dynamic-update-slice.C5: update fits in the operand.
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (update.dimensions(i) > operand.dimensions(i)) {
      return Fail(inst, "dynamic-update-slice.C5", "update dimension ", i,
                  " has size ", update.dimensions(i), ", operand has ",
                  operand.dimensions(i));
    }
  }
  return WithElementType(operand, operand.element_type());
}

}  // namespace

absl::StatusOr<Shape> InferSlicing(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kSlice:
      return InferSlice(inst);
    case HloOpcode::kDynamicSlice:
      return InferDynamicSlice(inst);
    case HloOpcode::kDynamicUpdateSlice:
      return InferDynamicUpdateSlice(inst);
    default:
      return WrongFamily(inst, "slicing");
  }
}

}  // namespace hloref::verifier_internal
