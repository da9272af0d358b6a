// Verifier: cholesky and triangular-solve (seed 001 "Cholesky",
// "TriangularSolve").
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

// <op>.C1: a floating-point or complex array of rank >= 2 whose two minor
// dimensions are equal (square matrices, batched over the others). The
// seed says "rank > 2" but treats rank 2 as one matrix; we accept rank 2.
absl::Status CheckSquare(const HloInstruction& inst, const Shape& a,
                         absl::string_view what) {
  if (!a.IsArray() || !AcceptsType(kFloatOk | kComplexOk, a.element_type()) ||
      a.rank() < 2 ||
      a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return Fail(inst, Rule(inst, 1), what, " is ", ShapeStr(a),
                ", expected a floating-point or complex array [..., M, M]");
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferTriangularSolve(const HloInstruction& inst) {
  const Shape& a = inst.operand(0)->shape();
  const Shape& b = inst.operand(1)->shape();
  HLOREF_RETURN_IF_ERROR(CheckSquare(inst, a, "a"));
  // triangular-solve.C2: b has a's element type and rank ("of the same
  // type"; "a and b must have equal batch dimensions").
  if (!b.IsArray() || b.element_type() != a.element_type() ||
      b.rank() != a.rank()) {
    return Fail(inst, "triangular-solve.C2", "b is ", ShapeStr(b),
                ", expected an array of a's type and rank (a is ", ShapeStr(a),
                ")");
  }
  for (int64_t d = 0; d + 2 < a.rank(); ++d) {
    if (a.dimensions(d) != b.dimensions(d)) {
      return Fail(inst, "triangular-solve.C2", "batch dimension ", d,
                  " of b has size ", b.dimensions(d), ", a has ",
                  a.dimensions(d));
    }
  }
  // triangular-solve.C3: b is [..., M, K] when left_side, else [..., K, M].
  const int64_t m = a.dimensions(a.rank() - 1);
  const bool left = inst.attrs().left_side;
  const int64_t bd = left ? b.rank() - 2 : b.rank() - 1;
  if (b.dimensions(bd) != m) {
    return Fail(inst, "triangular-solve.C3", "b dimension ", bd, " has size ",
                b.dimensions(bd), ", expected M = ", m,
                left ? " (left_side: b is [..., M, K])"
                     : " (right side: b is [..., K, M])");
  }
  return WithElementType(b, b.element_type());
}

}  // namespace

absl::StatusOr<Shape> InferLinalg(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kCholesky: {
      const Shape& a = inst.operand(0)->shape();
      HLOREF_RETURN_IF_ERROR(CheckSquare(inst, a, "a"));
      return WithElementType(a, a.element_type());
    }
    case HloOpcode::kTriangularSolve:
      return InferTriangularSolve(inst);
    default:
      return WrongFamily(inst, "linalg");
  }
}

}  // namespace hloref::verifier_internal
