// Verifier: element-wise unary functions (seed 001 "Element-wise unary
// functions"; acos, acosh, asin, asinh, atanh, cosh, sinh from
// docs/hlo-text-format.md 6.1). Rules, shared by every op of the family:
//   <op>.C1 the operand is an array;
//   <op>.C2 the operand's element type is one the op accepts.
// The result has the operand's dimensions; its element type is the
// operand's, except is-finite (pred) and abs/real/imag of complex (the
// component type).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
absl::StatusOr<Shape> InferElementwiseUnary(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, Rule(inst, 1)));
  const Shape& operand = inst.operand(0)->shape();
  const PrimitiveType t = operand.element_type();
  unsigned accepted = 0;
  PrimitiveType result_type = t;
  switch (inst.opcode()) {
    // Seed: abs x -> |x|; sign uses the type's comparison: both need a
    // signed domain (XLA rejects unsigned integers for them).
    case HloOpcode::kAbs:
      accepted = kSignedOk | kFloatOk | kComplexOk;
      if (IsComplex(t)) result_type = ComplexComponentType(t);
      break;
    case HloOpcode::kSign:
      accepted = kSignedOk | kFloatOk | kComplexOk;
      break;
    case HloOpcode::kNegate:
      accepted = kSignedOk | kUnsignedOk | kFloatOk | kComplexOk;
      break;
    // Rounding is defined on real numbers only.
    case HloOpcode::kCeil:
    case HloOpcode::kFloor:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
      accepted = kFloatOk;
      break;
    // Transcendental functions: real and complex floating point.
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtanh:
    case HloOpcode::kCos:
    case HloOpcode::kCosh:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSin:
    case HloOpcode::kSinh:
    case HloOpcode::kSqrt:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
      accepted = kFloatOk | kComplexOk;
      break;
    // erf is a real function (the seed defines it by a real integral);
    // cbrt is the real cube root (XLA: copysign(pow(|x|, 1/3), x)).
    case HloOpcode::kCbrt:
    case HloOpcode::kErf:
      accepted = kFloatOk;
      break;
    // Seed: real/imag of "a complex (or real) shape".
    case HloOpcode::kImag:
    case HloOpcode::kReal:
      accepted = kFloatOk | kComplexOk;
      if (IsComplex(t)) result_type = ComplexComponentType(t);
      break;
    // Seed: "not positive or negative infinity, and is not NaN" -> PRED.
    case HloOpcode::kIsFinite:
      accepted = kFloatOk;
      result_type = PrimitiveType::kPred;
      break;
    case HloOpcode::kNot:
      accepted = kPredOk | kSignedOk | kUnsignedOk;
      break;
    // Bit counting is defined on integers.
    case HloOpcode::kClz:
    case HloOpcode::kPopulationCount:
      accepted = kSignedOk | kUnsignedOk;
      break;
    default:
      return WrongFamily(inst, "elementwise_unary");
  }
  if (!AcceptsType(accepted, t)) {
    return Fail(inst, Rule(inst, 2), HloOpcodeString(inst.opcode()),
                " needs a ", TypeSetName(accepted), " operand, got ",
                PrimitiveTypeName(t));
  }
  return WithElementType(operand, result_type);
}

}  // namespace hloref::verifier_internal
