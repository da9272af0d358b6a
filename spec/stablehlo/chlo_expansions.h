// The chlo ops JAX emits that HLO has no op for (lgamma, digamma, erf_inv,
// erfc, polygamma, zeta, bessel_i1e, next_after), expanded into the HLO ops
// XLA's CHLO legalization produces for them (docs/stablehlo.md "chlo"):
// the same formulas, coefficients and operation order, so that hloref's
// oracle computes what XLA computes. The algorithms are public: Lanczos'
// approximation (g = 7, 9 terms) with Euler's reflection (lgamma,
// digamma), the Hurwitz zeta function by a 10-term direct sum plus a
// 12-term Euler-Maclaurin correction (zeta, polygamma), the Cephes
// Chebyshev series for i1e, Cephes' rational approximations for erfc,
// M. Giles' erfinv polynomials ("Approximating
// the erfinv function", GPU Computing Gems, 2011) and next_after by
// integer arithmetic on the bit patterns.
#ifndef HLOREF_SPEC_STABLEHLO_CHLO_EXPANSIONS_H_
#define HLOREF_SPEC_STABLEHLO_CHLO_EXPANSIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "spec/types/primitive_type.h"

namespace hloref::stablehlo {

// Where an expansion writes its instructions. Every value of an expansion
// has the dimensions of the op's result; only the element type varies.
class ExpansionSink {
 public:
  virtual ~ExpansionSink() = default;
  // Adds `%name = type[dims] opcode(%operands...), attrs` and returns name.
  virtual std::string Emit(PrimitiveType type, absl::string_view opcode,
                           const std::vector<std::string>& operands,
                           const std::string& attrs) = 0;
  // A scalar constant of `type` (its HLO literal text) broadcast to the
  // result's dimensions.
  virtual std::string Constant(PrimitiveType type, const std::string& text) = 0;
};

// True for the chlo op names (without `chlo.`) ExpandChlo handles.
bool IsExpandedChloOp(absl::string_view op);

// Expands chlo.`op` applied to `operands` (HLO names, element type `type`,
// all of the result's dimensions) and returns the result's name.
// Unimplemented for an element type the expansion does not take (XLA's
// legalization takes f16, bf16 (computed in f32), f32 and f64).
absl::StatusOr<std::string> ExpandChlo(absl::string_view op, PrimitiveType type,
                                       const std::vector<std::string>& operands,
                                       ExpansionSink& sink);

}  // namespace hloref::stablehlo

#endif  // HLOREF_SPEC_STABLEHLO_CHLO_EXPANSIONS_H_
