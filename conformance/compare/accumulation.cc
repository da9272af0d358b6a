// Class-A verdicts (accumulations: dot, convolution, reduce and
// reduce-window with an add reducer) of docs/numerics.md 7.3, from the
// oracle's per-element S = |c| + sum |t_i| and m (rounding steps on the
// longest path). The bound
//   E_in  = (2 u_w + u_w^2) S                      (declared input rounding)
//   E_acc = gamma_m(u_a) (S + E_in)                 (any summation order)
//   E_out = u_T (|y| + E_in + E_acc)                (T narrower than acc)
//   E_ftz = (m + 1) min_acc                         (declared flush)
//   E_orc = ulp_T(y_T) / 2                          (oracle value rounded)
// holds for every evaluation order, so backends may tile and reassociate.
#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "conformance/compare/verdict.h"
#include "spec/types/minifloat.h"

namespace hloref::conformance {

double GammaBound(int64_t m, double u) {
  const double mu = static_cast<double>(m) * u;
  if (mu >= 1) return INFINITY;
  return mu / (1 - mu);
}

ElementVerdict AccumulationVerdict(PrimitiveType type, uint64_t bits,
                                   double abs_sum, int64_t term_count,
                                   const AccumulationParams& params) {
  ElementVerdict v;
  v.type = type;
  v.bits = bits;
  v.y = BitsToDouble(type, bits);
  v.zero_sign_significant = false;  // 7.5: ignored for class A results
  const FloatFormat& f = FormatOf(type);
  if (std::isnan(v.y) || !std::isfinite(abs_sum)) {
    // NaN or infinite exact terms: the IEEE result is order-independent.
    // An infinite y from finite terms (S finite) is not that case: the
    // exact sum overflowed T, so S reaches T's overflow threshold and the
    // bound below makes the element ANY (numerics.md 7.3: some orders
    // overflow an intermediate, inf - inf gives NaN).
    v.kind = VerdictKind::kExact;
    v.rule = "EXACT (accumulation with non-finite terms)";
    return v;
  }
  if (abs_sum == 0) {
    v.kind = VerdictKind::kExact;
    v.rule = "EXACT (every term is zero: S = 0, any zero sign)";
    return v;
  }
  const double u_t = std::ldexp(1.0, -Precision(f));
  const double u_a = params.u_a > 0 ? params.u_a : u_t;
  const double e_in = (2 * params.u_w + params.u_w * params.u_w) * abs_sum;
  const double e_acc = GammaBound(term_count, u_a) * (abs_sum + e_in);
  const double e_out = params.u_a > u_t || params.u_a == 0
                           ? 0
                           : u_t * (std::fabs(v.y) + e_in + e_acc);
  const double e_ftz =
      params.ftz_min > 0 ? static_cast<double>(term_count + 1) * params.ftz_min
                         : 0;
  const double e_orc = UlpIn(type, v.y) / 2;
  const double bound = e_in + e_acc + e_out + e_ftz + e_orc;
  const double max_acc = params.max_acc > 0 ? params.max_acc : MaxFinite(f);
  if (!std::isfinite(bound) || abs_sum + bound > max_acc) {
    // Some summation orders overflow an intermediate (and inf - inf gives
    // NaN), so nothing can be required of this element.
    v.kind = VerdictKind::kAny;
    v.rule = absl::StrCat("ANY (S = ", abs_sum,
                          " + bound reaches the accumulator's overflow)");
    return v;
  }
  v.kind = VerdictKind::kBounded;
  v.lo = v.hi = bound;
  v.overflow_ok = true;
  v.rule = absl::StrCat("BOUNDED gamma_m(u_a)*S: S = ", abs_sum,
                        ", m = ", term_count, ", u_a = 2^", std::log2(u_a),
                        params.u_w > 0
                            ? absl::StrCat(", declared input rounding u_w = 2^",
                                           std::log2(params.u_w))
                            : std::string(),
                        params.ftz_min > 0 ? ", + FTZ term" : "");
  return v;
}

ElementVerdict ProductVerdict(PrimitiveType type, uint64_t bits,
                              int64_t factors, double ftz_min) {
  // Reduce with a multiply reducer: |v - y| <= ((1 + u)^(n-1) - 1)|y|
  // in any order (Higham; numerics.md 5.7), plus E_ftz and E_orc.
  ElementVerdict v;
  v.type = type;
  v.bits = bits;
  v.y = BitsToDouble(type, bits);
  v.zero_sign_significant = false;
  if (std::isnan(v.y) || std::isinf(v.y) || v.y == 0) {
    // Zero products may come from an underflow in some orders; an exact
    // zero factor gives zero in all of them. Judge zeros and non-finite
    // results by class only.
    v.kind = v.y == 0 ? VerdictKind::kAny : VerdictKind::kExact;
    v.rule = v.y == 0 ? "ANY (product is zero: underflow order-dependent)"
                      : "EXACT (non-finite product)";
    return v;
  }
  const FloatFormat& f = FormatOf(type);
  const double u = std::ldexp(1.0, -Precision(f));
  const int64_t m = std::max<int64_t>(factors - 1, 0);
  const double rel = std::expm1(static_cast<double>(m) * std::log1p(u));
  // Intermediate products may underflow into the subnormal range for
  // some orders (absolute error up to min_T per step).
  const double bound =
      rel * std::fabs(v.y) + UlpIn(type, v.y) / 2 +
      static_cast<double>(m + 1) * std::max(ftz_min, MinSubnormal(f)) * 2;
  v.kind = VerdictKind::kBounded;
  v.lo = v.hi = bound;
  v.overflow_ok = true;
  v.underflow_ok = true;
  v.rule = absl::StrCat("BOUNDED ((1+u)^m - 1)|y| product bound, m = ", m);
  return v;
}

}  // namespace hloref::conformance
