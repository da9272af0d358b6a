// Verifier: concatenate and pad (seed 001 "Concatenate", "Pad").
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

absl::StatusOr<Shape> InferConcatenate(const HloInstruction& inst) {
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, i, "concatenate.C1"));
  }
  const Shape& first = inst.operand(0)->shape();
  const auto& dims = inst.attrs().dimensions;
  // concatenate.C2: one dimension in [0, rank); rank-0 values "cannot be
  // concatenated".
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= first.rank()) {
    return Fail(inst, "concatenate.C2", "dimensions ", DimsStr(dims),
                " must name one dimension in [0, ", first.rank(), ")");
  }
  const int64_t d = dims[0];
  Shape result = WithElementType(first, first.element_type());
  for (int64_t i = 1; i < inst.operand_count(); ++i) {
    const Shape& s = inst.operand(i)->shape();
    // concatenate.C3: same element type ("N arrays of type T").
    if (s.element_type() != first.element_type()) {
      return Fail(inst, "concatenate.C3", OperandName(inst, i),
                  " has element type ", PrimitiveTypeName(s.element_type()),
                  ", operand 0 has ", PrimitiveTypeName(first.element_type()));
    }
    // concatenate.C4: same rank and the same sizes except in `dimension`.
    if (s.rank() != first.rank()) {
      return Fail(inst, "concatenate.C4", OperandName(inst, i), " has rank ",
                  s.rank(), ", operand 0 has rank ", first.rank());
    }
    for (int64_t j = 0; j < s.rank(); ++j) {
      if (j != d && s.dimensions(j) != first.dimensions(j)) {
        return Fail(inst, "concatenate.C4", OperandName(inst, i), " has size ",
                    s.dimensions(j), " in dimension ", j, ", operand 0 has ",
                    first.dimensions(j));
      }
    }
    result.set_dimensions(d, result.dimensions(d) + s.dimensions(d));
  }
  return result;
}

absl::StatusOr<Shape> InferPad(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "pad.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const Shape& value = inst.operand(1)->shape();
  // pad.C2: padding_value is a scalar of type T.
  if (!IsScalarArray(value) || value.element_type() != operand.element_type()) {
    return Fail(inst, "pad.C2", "padding value is ", ShapeStr(value),
                ", expected ", PrimitiveTypeName(operand.element_type()), "[]");
  }
  const PaddingConfig& padding = inst.attrs().padding;
  // pad.C3: one padding entry per dimension.
  if (static_cast<int64_t>(padding.dimensions.size()) != operand.rank()) {
    return Fail(inst, "pad.C3", "padding has ", padding.dimensions.size(),
                " dimensions, operand rank is ", operand.rank());
  }
  Shape result = WithElementType(operand, operand.element_type());
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const PaddingDimension& p = padding.dimensions[i];
    // pad.C4: interior padding "may not be negative".
    if (p.interior_padding < 0) {
      return Fail(inst, "pad.C4", "dimension ", i, " has interior padding ",
                  p.interior_padding, ", expected >= 0");
    }
    const int64_t d = operand.dimensions(i);
    const int64_t size = d + p.edge_padding_low + p.edge_padding_high +
                         std::max<int64_t>(d - 1, 0) * p.interior_padding;
    // pad.C5: negative edge padding may crop, but not below zero.
    if (size < 0) {
      return Fail(inst, "pad.C5", "dimension ", i, " of size ", d, " padded ",
                  p.edge_padding_low, "_", p.edge_padding_high, "_",
                  p.interior_padding, " gives negative size ", size);
    }
    result.set_dimensions(i, size);
  }
  return result;
}

}  // namespace

absl::StatusOr<Shape> InferConcatPad(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kConcatenate:
      return InferConcatenate(inst);
    case HloOpcode::kPad:
      return InferPad(inst);
    default:
      return WrongFamily(inst, "concat_pad");
  }
}

}  // namespace hloref::verifier_internal
