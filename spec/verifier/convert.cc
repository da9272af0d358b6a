// Verifier: convert, bitcast-convert, reduce-precision, stochastic-convert
// (seed 001 "ConvertElementType", "BitcastConvertType", "ReducePrecision";
// stochastic-convert from docs/hlo-text-format.md 6.2). The target element
// type of a conversion is the one written in the instruction's shape.
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

absl::StatusOr<PrimitiveType> TargetType(const HloInstruction& inst,
                                         absl::string_view rule) {
  if (!inst.shape().IsArray()) {
    return Fail(inst, rule, "result must be an array, got ",
                ShapeStr(inst.shape()));
  }
  return inst.shape().element_type();
}

absl::StatusOr<Shape> InferConvertOp(const HloInstruction& inst) {
  // convert.C1 operand array; convert.C2 result array ("must not be
  // tuples").
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "convert.C1"));
  HLOREF_ASSIGN_OR_RETURN(PrimitiveType to, TargetType(inst, "convert.C2"));
  const Shape& operand = inst.operand(0)->shape();
  // convert.C3: complex -> real is not defined (XLA: unimplemented; the
  // seed gives no rule for dropping the imaginary part).
  if (IsComplex(operand.element_type()) && !IsComplex(to)) {
    return Fail(inst, "convert.C3", "conversion from ",
                PrimitiveTypeName(operand.element_type()), " to ",
                PrimitiveTypeName(to), " (complex to real) is not defined");
  }
  return WithElementType(operand, to);
}

absl::StatusOr<Shape> InferBitcastConvert(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "bitcast-convert.C1"));
  HLOREF_ASSIGN_OR_RETURN(PrimitiveType to,
                          TargetType(inst, "bitcast-convert.C2"));
  const Shape& operand = inst.operand(0)->shape();
  const PrimitiveType from = operand.element_type();
  // bitcast-convert.C3: complex only to complex.
  if (IsComplex(from) != IsComplex(to)) {
    return Fail(inst, "bitcast-convert.C3",
                "bitcast between complex and "
                "real types is not allowed: ",
                PrimitiveTypeName(from), " to ", PrimitiveTypeName(to));
  }
  const int b = BitWidth(from);
  const int b2 = BitWidth(to);
  // bitcast-convert.C4: one width divides the other.
  if (std::max(b, b2) % std::min(b, b2) != 0) {
    return Fail(inst, "bitcast-convert.C4", "bit widths ", b, " (",
                PrimitiveTypeName(from), ") and ", b2, " (",
                PrimitiveTypeName(to), ") do not divide each other");
  }
  Shape result = WithElementType(operand, to);
  if (b > b2) {
    // Seed: B > B' adds a new minor-most dimension of size B/B'.
    result.add_dimension(b / b2);
  } else if (b < b2) {
    // bitcast-convert.C5: B' > B needs a last dimension of size B'/B,
    // which is dropped.
    if (operand.rank() == 0 ||
        operand.dimensions(operand.rank() - 1) != b2 / b) {
      return Fail(inst, "bitcast-convert.C5", "converting ",
                  PrimitiveTypeName(from), " to ", PrimitiveTypeName(to),
                  " needs a last dimension of size ", b2 / b, ", operand is ",
                  ShapeStr(operand));
    }
    result.delete_dimension(operand.rank() - 1);
  }
  return result;
}

absl::StatusOr<Shape> InferReducePrecision(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "reduce-precision.C1"));
  const Shape& operand = inst.operand(0)->shape();
  // reduce-precision.C1: "array of floating-point type T".
  if (!IsFloat(operand.element_type())) {
    return Fail(inst, "reduce-precision.C1",
                "operand must have a floating-point type, got ",
                PrimitiveTypeName(operand.element_type()));
  }
  // reduce-precision.C2: "at least one exponent bit".
  if (inst.attrs().exponent_bits < 1) {
    return Fail(inst, "reduce-precision.C2", "exponent_bits is ",
                inst.attrs().exponent_bits, ", expected at least 1");
  }
  // reduce-precision.C3: "a non-negative number of mantissa bits".
  if (inst.attrs().mantissa_bits < 0) {
    return Fail(inst, "reduce-precision.C3", "mantissa_bits is ",
                inst.attrs().mantissa_bits, ", expected at least 0");
  }
  return WithElementType(operand, operand.element_type());
}

absl::StatusOr<Shape> InferStochasticConvert(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "stochastic-convert.C1"));
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 1, "stochastic-convert.C1"));
  HLOREF_ASSIGN_OR_RETURN(PrimitiveType to,
                          TargetType(inst, "stochastic-convert.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const Shape& random = inst.operand(1)->shape();
  // stochastic-convert.C2: a floating-point operand.
  if (!IsFloat(operand.element_type())) {
    return Fail(inst, "stochastic-convert.C2",
                "operand must have a floating-point type, got ",
                PrimitiveTypeName(operand.element_type()));
  }
  // stochastic-convert.C3: random bits: unsigned, same width, same dims.
  if (!IsUnsignedInt(random.element_type()) ||
      BitWidth(random.element_type()) != BitWidth(operand.element_type()) ||
      !SameDims(random, operand)) {
    return Fail(inst, "stochastic-convert.C3", "random operand is ",
                ShapeStr(random), ", expected an unsigned integer array of ",
                BitWidth(operand.element_type()), " bits with dimensions ",
                DimsStr(operand.dimensions()));
  }
  return WithElementType(operand, to);
}

}  // namespace

absl::StatusOr<Shape> InferConvert(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kConvert:
      return InferConvertOp(inst);
    case HloOpcode::kBitcastConvert:
      return InferBitcastConvert(inst);
    case HloOpcode::kReducePrecision:
      return InferReducePrecision(inst);
    case HloOpcode::kStochasticConvert:
      return InferStochasticConvert(inst);
    default:
      return WrongFamily(inst, "convert");
  }
}

}  // namespace hloref::verifier_internal
