// Verifier: shape manipulation without indexing: bitcast, broadcast, copy,
// dynamic-reshape, get-dimension-size, iota, reshape, reverse,
// set-dimension-size, transpose (seed 001 "BroadcastInDim", "Reshape",
// "Rev (reverse)", "Transpose", "Iota", "GetDimensionSize",
// "SetDimensionSize"; docs/hlo-text-format.md 6.4 for bitcast, copy,
// dynamic-reshape).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

absl::StatusOr<Shape> ResultArray(const HloInstruction& inst,
                                  absl::string_view rule) {
  if (!inst.shape().IsArray()) {
    return Fail(inst, rule, "result must be an array, got ",
                ShapeStr(inst.shape()));
  }
  Shape s = inst.shape();
  s.clear_layout();
  return s;
}

int64_t Product(absl::Span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

absl::StatusOr<Shape> InferBitcast(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "bitcast.C1"));
  HLOREF_ASSIGN_OR_RETURN(Shape result, ResultArray(inst, "bitcast.C1"));
  const Shape& operand = inst.operand(0)->shape();
  // bitcast.C2: the same number of bits (docs/hlo-text-format.md 6.1:
  // "same byte size, any dims/layout").
  int64_t from =
      Product(operand.dimensions()) * BitWidth(operand.element_type());
  int64_t to = Product(result.dimensions()) * BitWidth(result.element_type());
  if (from != to) {
    return Fail(inst, "bitcast.C2", "operand ", ShapeStr(operand), " has ",
                from, " bits, result ", ShapeStr(result), " has ", to);
  }
  return result;
}

absl::StatusOr<Shape> InferBroadcast(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "broadcast.C1"));
  HLOREF_ASSIGN_OR_RETURN(Shape result, ResultArray(inst, "broadcast.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const auto& dims = inst.attrs().dimensions;
  // broadcast.C2: one entry per operand dimension.
  if (static_cast<int64_t>(dims.size()) != operand.rank()) {
    return Fail(inst, "broadcast.C2", "dimensions ", DimsStr(dims), " has ",
                dims.size(), " entries, operand rank is ", operand.rank());
  }
  // broadcast.C3: entries are distinct result dimensions.
  HLOREF_RETURN_IF_ERROR(
      CheckDimList(inst, "broadcast.C3", "dimensions", dims, result.rank()));
  // broadcast.C4: seed BroadcastInDim: "The dimensions of operand must have
  // size 1 or be the same size as the dimension in the output shape they
  // are mapped to".
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t from = operand.dimensions(i);
    int64_t to = result.dimensions(dims[i]);
    if (from != to && from != 1) {
      return Fail(inst, "broadcast.C4", "operand dimension ", i, " has size ",
                  from, ", result dimension ", dims[i], " has size ", to,
                  "; expected equal sizes or 1");
    }
  }
  // broadcast.C5: the element type is kept.
  if (result.element_type() != operand.element_type()) {
    return Fail(inst, "broadcast.C5", "result element type ",
                PrimitiveTypeName(result.element_type()),
                " differs from operand element type ",
                PrimitiveTypeName(operand.element_type()));
  }
  return result;
}

absl::StatusOr<Shape> InferDynamicReshape(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "dynamic-reshape.C1"));
  HLOREF_ASSIGN_OR_RETURN(Shape result,
                          ResultArray(inst, "dynamic-reshape.C1"));
  const Shape& operand = inst.operand(0)->shape();
  // dynamic-reshape.C2: one size operand per result dimension.
  if (inst.operand_count() - 1 != result.rank()) {
    return Fail(inst, "dynamic-reshape.C2", "has ", inst.operand_count() - 1,
                " size operands, result rank is ", result.rank());
  }
  // dynamic-reshape.C3: each size is an s32 scalar.
  for (int64_t i = 1; i < inst.operand_count(); ++i) {
    const Shape& s = inst.operand(i)->shape();
    if (!IsScalarArray(s) || s.element_type() != PrimitiveType::kS32) {
      return Fail(inst, "dynamic-reshape.C3", OperandName(inst, i), " is ",
                  ShapeStr(s), ", expected s32[]");
    }
  }
  // dynamic-reshape.C4: the element type is kept.
  if (result.element_type() != operand.element_type()) {
    return Fail(inst, "dynamic-reshape.C4", "result element type ",
                PrimitiveTypeName(result.element_type()),
                " differs from operand element type ",
                PrimitiveTypeName(operand.element_type()));
  }
  // dynamic-reshape.C5: the result's bounds hold exactly as many elements
  // as the operand's (XLA's CreateDynamicReshape checks the static extent
  // products; a module breaking it aborts XLA).
  int64_t operand_extent = 1, result_extent = 1;
  for (int64_t d : operand.dimensions()) operand_extent *= d;
  for (int64_t d : result.dimensions()) result_extent *= d;
  if (operand_extent != result_extent) {
    return Fail(inst, "dynamic-reshape.C5", "result bounds ", ShapeStr(result),
                " hold ", result_extent, " elements, operand bounds ",
                ShapeStr(operand), " hold ", operand_extent,
                "; they must be equal");
  }
  return result;
}

absl::StatusOr<Shape> InferGetDimensionSize(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "get-dimension-size.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const auto& dims = inst.attrs().dimensions;
  // get-dimension-size.C2: "a value in the interval [0, n)".
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= operand.rank()) {
    return Fail(inst, "get-dimension-size.C2", "dimensions ", DimsStr(dims),
                " must name one dimension in [0, ", operand.rank(), ")");
  }
  return Shape::Scalar(PrimitiveType::kS32);
}

absl::StatusOr<Shape> InferSetDimensionSize(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "set-dimension-size.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const Shape& size = inst.operand(1)->shape();
  const auto& dims = inst.attrs().dimensions;
  // set-dimension-size.C2: "a value in the interval [0, n)".
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= operand.rank()) {
    return Fail(inst, "set-dimension-size.C2", "dimensions ", DimsStr(dims),
                " must name one dimension in [0, ", operand.rank(), ")");
  }
  // set-dimension-size.C3: "size: int32 representing the runtime size".
  if (!IsScalarArray(size) || size.element_type() != PrimitiveType::kS32) {
    return Fail(inst, "set-dimension-size.C3", "size operand is ",
                ShapeStr(size), ", expected s32[]");
  }
  Shape result = WithElementType(operand, operand.element_type());
  result.set_dynamic_dimension(dims[0], true);
  return result;
}

absl::StatusOr<Shape> InferIota(const HloInstruction& inst) {
  HLOREF_ASSIGN_OR_RETURN(Shape result, ResultArray(inst, "iota.C1"));
  // iota.C2: iota_dimension names a result dimension (so rank >= 1).
  const int64_t d = inst.attrs().iota_dimension;
  if (d < 0 || d >= result.rank()) {
    return Fail(inst, "iota.C2", "iota_dimension is ", d,
                ", expected a dimension in [0, ", result.rank(), ")");
  }
  // iota.C3: "for floating-point types ... ConvertElementType(Iota)":
  // numbers, not pred.
  if (!AcceptsType(kNumericOk, result.element_type())) {
    return Fail(inst, "iota.C3", "iota needs a numeric element type, got ",
                PrimitiveTypeName(result.element_type()));
  }
  return result;
}

absl::StatusOr<Shape> InferReshape(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "reshape.C1"));
  HLOREF_ASSIGN_OR_RETURN(Shape result, ResultArray(inst, "reshape.C1"));
  const Shape& operand = inst.operand(0)->shape();
  // reshape.C2: the element type is kept.
  if (result.element_type() != operand.element_type()) {
    return Fail(inst, "reshape.C2", "result element type ",
                PrimitiveTypeName(result.element_type()),
                " differs from operand element type ",
                PrimitiveTypeName(operand.element_type()));
  }
  // reshape.C3: "The product of the new_size dimensions must equal the
  // product of the operand's dimension sizes".
  int64_t from = Product(operand.dimensions());
  int64_t to = Product(result.dimensions());
  if (from != to) {
    return Fail(inst, "reshape.C3", "operand ", ShapeStr(operand), " has ",
                from, " elements, result ", ShapeStr(result), " has ", to);
  }
  // reshape.C4: inferred_dimension names a result dimension.
  if (inst.attrs().has(AttrId::kInferredDimension)) {
    int64_t d = inst.attrs().inferred_dimension;
    if (d < 0 || d >= result.rank()) {
      return Fail(inst, "reshape.C4", "inferred_dimension is ", d,
                  ", expected a dimension in [0, ", result.rank(), ")");
    }
  }
  return result;
}

absl::StatusOr<Shape> InferReverse(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "reverse.C1"));
  const Shape& operand = inst.operand(0)->shape();
  // reverse.C2: distinct operand dimensions.
  HLOREF_RETURN_IF_ERROR(CheckDimList(inst, "reverse.C2", "dimensions",
                                      inst.attrs().dimensions, operand.rank()));
  return WithElementType(operand, operand.element_type());
}

absl::StatusOr<Shape> InferTranspose(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "transpose.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const auto& perm = inst.attrs().dimensions;
  // transpose.C2: a permutation of 0..rank-1.
  if (static_cast<int64_t>(perm.size()) != operand.rank()) {
    return Fail(inst, "transpose.C2", "dimensions ", DimsStr(perm), " has ",
                perm.size(), " entries, operand rank is ", operand.rank());
  }
  HLOREF_RETURN_IF_ERROR(
      CheckDimList(inst, "transpose.C2", "dimensions", perm, operand.rank()));
  // Seed: input_dimensions[permutation[i]] = output_dimensions[i].
  Shape result = Shape::Scalar(operand.element_type());
  for (int64_t p : perm) {
    result.add_dimension(operand.dimensions(p),
                         operand.is_dynamic_dimension(p));
  }
  return result;
}

}  // namespace

absl::StatusOr<Shape> InferShapeOps(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kBitcast:
      return InferBitcast(inst);
    case HloOpcode::kBroadcast:
      return InferBroadcast(inst);
    case HloOpcode::kCopy: {
      Shape s = inst.operand(0)->shape();
      s.ClearLayoutsRecursive();
      return s;
    }
    case HloOpcode::kDynamicReshape:
      return InferDynamicReshape(inst);
    case HloOpcode::kGetDimensionSize:
      return InferGetDimensionSize(inst);
    case HloOpcode::kIota:
      return InferIota(inst);
    case HloOpcode::kReshape:
      return InferReshape(inst);
    case HloOpcode::kReverse:
      return InferReverse(inst);
    case HloOpcode::kSetDimensionSize:
      return InferSetDimensionSize(inst);
    case HloOpcode::kTranspose:
      return InferTranspose(inst);
    default:
      return WrongFamily(inst, "shape");
  }
}

}  // namespace hloref::verifier_internal
