// Verifier: compare, select, clamp (seed 001 "Element-wise comparison
// operations", "Select", "Clamp").
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

absl::StatusOr<Shape> InferCompare(const HloInstruction& inst) {
  // compare.C1 arrays; compare.C2 same dimensions; compare.C3 same type.
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "compare.C1"));
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 1, "compare.C1"));
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  if (!SameDims(lhs, rhs)) {
    return Fail(inst, "compare.C2", "operands have dimensions ",
                DimsStr(lhs.dimensions()), " and ", DimsStr(rhs.dimensions()),
                "; they must be equal");
  }
  const PrimitiveType t = lhs.element_type();
  if (t != rhs.element_type()) {
    return Fail(inst, "compare.C3", "operands have element types ",
                PrimitiveTypeName(t), " and ",
                PrimitiveTypeName(rhs.element_type()), "; they must be equal");
  }
  // compare.C4: an explicit comparison type fits the element type (FLOAT
  // and TOTALORDER for floating point and complex, SIGNED for signed
  // integers, UNSIGNED for unsigned integers and pred).
  const ComparisonType ct = inst.attrs().comparison_type;
  const char* name = nullptr;
  bool ok = true;
  switch (ct) {
    case ComparisonType::kDefault:
      break;
    case ComparisonType::kFloat:
      name = "FLOAT";
      ok = IsFloat(t) || IsComplex(t);
      break;
    case ComparisonType::kTotalOrder:
      name = "TOTALORDER";
      ok = IsFloat(t) || IsComplex(t);
      break;
    case ComparisonType::kSigned:
      name = "SIGNED";
      ok = IsSignedInt(t);
      break;
    case ComparisonType::kUnsigned:
      name = "UNSIGNED";
      ok = IsUnsignedInt(t) || IsPred(t);
      break;
  }
  if (!ok) {
    return Fail(inst, "compare.C4", "comparison type ", name,
                " does not apply to element type ", PrimitiveTypeName(t));
  }
  // compare.C5: complex numbers have no order; only EQ and NE apply
  // (XLA's emitter compares complex values componentwise for EQ/NE only,
  // docs/numerics.md 3.4).
  const ComparisonDirection dir = inst.attrs().direction;
  if (IsComplex(t) && dir != ComparisonDirection::kEq &&
      dir != ComparisonDirection::kNe) {
    return Fail(inst, "compare.C5",
                "complex operands can only be compared with EQ or NE, got ",
                PrimitiveTypeName(t), " with an ordering direction");
  }
  return WithElementType(lhs, PrimitiveType::kPred);
}

absl::StatusOr<Shape> InferSelect(const HloInstruction& inst) {
  const Shape& pred = inst.operand(0)->shape();
  const Shape& on_true = inst.operand(1)->shape();
  const Shape& on_false = inst.operand(2)->shape();
  // select.C1: on_true and on_false have the same shape (arrays, or tuples
  // as the seed allows with a scalar predicate).
  if (!(on_true.IsArray() || on_true.IsTuple()) ||
      !SameShape(on_true, on_false)) {
    return Fail(inst, "select.C1", "on_true is ", ShapeStr(on_true),
                " and on_false is ", ShapeStr(on_false),
                "; they must be arrays (or tuples) of the same shape");
  }
  // select.C2: the predicate has element type PRED.
  if (!pred.IsArray() || pred.element_type() != PrimitiveType::kPred) {
    return Fail(inst, "select.C2", "predicate is ", ShapeStr(pred),
                ", expected element type pred");
  }
  // select.C3: the predicate is a scalar or has on_true's dimensions.
  if (pred.rank() != 0 && (!on_true.IsArray() || !SameDims(pred, on_true))) {
    return Fail(inst, "select.C3", "predicate has dimensions ",
                DimsStr(pred.dimensions()), ", expected a scalar or ",
                on_true.IsArray() ? DimsStr(on_true.dimensions())
                                  : std::string("a scalar for tuple operands"));
  }
  return on_true;
}

absl::StatusOr<Shape> InferClamp(const HloInstruction& inst) {
  for (int i = 0; i < 3; ++i) {
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, i, "clamp.C1"));
  }
  const Shape& min = inst.operand(0)->shape();
  const Shape& operand = inst.operand(1)->shape();
  const Shape& max = inst.operand(2)->shape();
  for (const Shape* bound : {&min, &max}) {
    const char* which = bound == &min ? "min" : "max";
    // clamp.C2: same element type as the operand.
    if (bound->element_type() != operand.element_type()) {
      return Fail(inst, "clamp.C2", which, " has element type ",
                  PrimitiveTypeName(bound->element_type()), ", operand has ",
                  PrimitiveTypeName(operand.element_type()));
    }
    // clamp.C3: a scalar or the operand's dimensions.
    if (bound->rank() != 0 && !SameDims(*bound, operand)) {
      return Fail(inst, "clamp.C3", which, " has dimensions ",
                  DimsStr(bound->dimensions()), ", expected a scalar or ",
                  DimsStr(operand.dimensions()));
    }
  }
  if (IsComplex(operand.element_type())) {
    // clamp.C4: min/max need an ordered type.
    return Fail(inst, "clamp.C4", "clamp needs an ordered element type, got ",
                PrimitiveTypeName(operand.element_type()));
  }
  return WithElementType(operand, operand.element_type());
}

}  // namespace

absl::StatusOr<Shape> InferCompareSelect(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kCompare:
      return InferCompare(inst);
    case HloOpcode::kSelect:
      return InferSelect(inst);
    case HloOpcode::kClamp:
      return InferClamp(inst);
    default:
      return WrongFamily(inst, "compare_select");
  }
}

}  // namespace hloref::verifier_internal
