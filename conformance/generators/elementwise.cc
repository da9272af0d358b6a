// Generators of the element-wise unary and binary families (seed 001
// "Element-wise unary functions", "Element-wise binary arithmetic
// operations"): any shape, any element type (the verifier keeps those the
// op accepts), special values mixed in.
#include <string>

#include "absl/strings/str_cat.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {

absl::StatusOr<Draw> GenerateElementwiseUnary(HloOpcode op, Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  d.params.push_back({Shape(t, DrawDims(rng, 0, 3)), Fill::kGeneral});
  d.op_text = absl::StrCat(HloOpcodeString(op), "(p0)");
  return d;
}

absl::StatusOr<Draw> GenerateElementwiseBinary(HloOpcode op, Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  const Shape shape(t, DrawDims(rng, 0, 3));
  d.params.push_back({shape, Fill::kGeneral});
  d.params.push_back({shape, Fill::kGeneral});
  d.op_text = absl::StrCat(HloOpcodeString(op), "(p0, p1)");
  return d;
}

}  // namespace hloref::conformance::gen
