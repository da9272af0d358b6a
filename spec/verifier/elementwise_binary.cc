// Verifier: element-wise binary arithmetic operations (seed 001 "Element-wise
// binary arithmetic operations"; mulhi from docs/hlo-text-format.md 6.2).
// Rules, shared by every op of the family:
//   <op>.C1 both operands are arrays;
//   <op>.C2 the operands have the same dimensions (HLO has no implicit
//           broadcasting: the seed's broadcast_dimensions variant is lowered
//           to explicit broadcasts, docs/hlo-text-format.md 6.2);
//   <op>.C3 the operands have the same element type;
//   <op>.C4 the element type is one the op accepts.
// complex() takes two f32 (-> c64) or two f64 (-> c128) operands.
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {

absl::StatusOr<Shape> InferElementwiseBinary(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, Rule(inst, 1)));
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 1, Rule(inst, 1)));
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  if (!SameDims(lhs, rhs)) {
    return Fail(inst, Rule(inst, 2), "operands have dimensions ",
                DimsStr(lhs.dimensions()), " and ", DimsStr(rhs.dimensions()),
                "; they must be equal");
  }
  const PrimitiveType t = lhs.element_type();
  if (t != rhs.element_type()) {
    return Fail(inst, Rule(inst, 3), "operands have element types ",
                PrimitiveTypeName(t), " and ",
                PrimitiveTypeName(rhs.element_type()), "; they must be equal");
  }
  unsigned accepted = 0;
  PrimitiveType result_type = t;
  switch (inst.opcode()) {
    // XLA accepts pred for these (add = or, multiply = and, max, min).
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
      accepted = kAnyOk;
      break;
    // Complex numbers have no order, so no maximum / minimum (XLA's
    // emitter has no complex form of them).
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      accepted = kPredOk | kIntOk | kFloatOk;
      break;
    case HloOpcode::kDivide:
    case HloOpcode::kPower:
    case HloOpcode::kSubtract:
      accepted = kNumericOk;
      break;
    // remainder and atan2 are real functions (C fmod / atan2; XLA has no
    // complex emitter for them).
    case HloOpcode::kRemainder:
      accepted = kIntOk | kFloatOk;
      break;
    case HloOpcode::kAtan2:
      accepted = kFloatOk;
      break;
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      accepted = kPredOk | kIntOk;
      break;
    case HloOpcode::kMulhi:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
      accepted = kIntOk;
      break;
    case HloOpcode::kComplex:
      if (t != PrimitiveType::kF32 && t != PrimitiveType::kF64) {
        return Fail(inst, Rule(inst, 4),
                    "complex needs f32 or f64 operands, got ",
                    PrimitiveTypeName(t));
      }
      return WithElementType(lhs, t == PrimitiveType::kF32
                                      ? PrimitiveType::kC64
                                      : PrimitiveType::kC128);
    default:
      return WrongFamily(inst, "elementwise_binary");
  }
  if (!AcceptsType(accepted, t)) {
    return Fail(inst, Rule(inst, 4), HloOpcodeString(inst.opcode()), " needs ",
                TypeSetName(accepted), " operands, got ", PrimitiveTypeName(t));
  }
  return WithElementType(lhs, result_type);
}

}  // namespace hloref::verifier_internal
