// BOUNDED verdicts judged in ulps of the output type, and the class-U
// (ulp-bounded elementwise function) verdict builder of docs/numerics.md
// 7.3: lo = hi = k_op * ulp_T(y), widened by the oracle's own error.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "conformance/compare/verdict.h"
#include "spec/types/minifloat.h"

namespace hloref::conformance {

double UlpIn(PrimitiveType type, double y) {
  const FloatFormat* f = FindFloatFormat(type);
  if (f == nullptr) return 1.0;
  const int p = Precision(*f);
  const int emin = 1 - f->bias;
  int e = emin;
  if (y != 0 && std::isfinite(y)) {
    int exp2;
    std::frexp(std::fabs(y), &exp2);  // |y| = m * 2^exp2, m in [0.5, 1)
    e = std::max(exp2 - 1, emin);
  } else if (std::isinf(y)) {
    int exp2;
    std::frexp(MaxFinite(*f), &exp2);
    e = exp2 - 1;
  }
  return std::ldexp(1.0, e - p + 1);
}

double UlpDistance(PrimitiveType type, double reference, double got) {
  if (std::isnan(reference) || std::isnan(got)) {
    return (std::isnan(reference) && std::isnan(got))
               ? 0
               : std::numeric_limits<double>::infinity();
  }
  if (std::isinf(reference) || std::isinf(got)) {
    return reference == got ? 0 : std::numeric_limits<double>::infinity();
  }
  const long double d = std::fabs(static_cast<long double>(got) -
                                  static_cast<long double>(reference));
  return static_cast<double>(d / UlpIn(type, reference));
}

Judgement JudgeBounded(const ElementVerdict& v, double got, uint64_t got_bits) {
  const FloatFormat& f = FormatOf(v.type);
  Judgement j;
  j.bound = std::max(v.lo, v.hi);
  const double max_t = MaxFinite(f);
  if (std::isinf(v.y)) {
    if (got == v.y) return j;
    // An approximation may stop at the largest finite value when the
    // exact result is within the bound of it.
    if (std::isfinite(got) && std::signbit(got) == std::signbit(v.y) &&
        max_t - std::fabs(got) <= j.bound) {
      return j;
    }
    j.pass = false;
    j.ulp_distance = std::numeric_limits<double>::infinity();
    j.why = absl::StrCat(ValueText(v.type, v.bits), " required, got ",
                         ValueText(v.type, got_bits));
    return j;
  }
  if (std::isinf(got)) {
    const double threshold = max_t + UlpIn(v.type, max_t) / 2;
    if (std::signbit(got) == std::signbit(v.y) &&
        std::fabs(v.y) + j.bound >= threshold) {
      return j;  // the interval reaches the overflow threshold
    }
    j.pass = false;
    j.ulp_distance = std::numeric_limits<double>::infinity();
    j.why = absl::StrCat("infinity where a finite value within ", j.bound,
                         " of ", ValueText(v.type, v.bits), " was required");
    return j;
  }
  const long double d =
      static_cast<long double>(got) - static_cast<long double>(v.y);
  j.ulp_distance = UlpDistance(v.type, v.y, got);
  if (d <= static_cast<long double>(v.hi) &&
      -d <= static_cast<long double>(v.lo)) {
    return j;
  }
  j.pass = false;
  const double excess = static_cast<double>(std::fabs(d)) /
                        std::max(j.bound, std::numeric_limits<double>::min());
  j.why = absl::StrCat("error ", static_cast<double>(std::fabs(d)),
                       " exceeds the bound ", j.bound, " by a factor ", excess);
  return j;
}

ElementVerdict UlpVerdict(PrimitiveType type, uint64_t bits, double ulps,
                          std::string rule) {
  ElementVerdict v;
  v.kind = VerdictKind::kBounded;
  v.type = type;
  v.bits = bits;
  v.y = BitsToDouble(type, bits);
  v.ulps = ulps;
  const FloatFormat& f = FormatOf(type);
  const double ulp = UlpIn(type, v.y);
  // The oracle's value is RN_T(exact): half an ulp from the exact result
  // (E_orc of 7.3), so the interval around it widens by that much.
  double half_width = ulps * ulp + 0.5 * ulp;
  // Subnormal results: one min-normal of absolute slack (7.3).
  if (std::fabs(v.y) < MinNormal(f)) {
    half_width = std::max(half_width, MinNormal(f));
  }
  v.lo = v.hi = half_width;
  v.overflow_ok = true;  // judged against the interval in JudgeBounded
  v.zero_sign_significant = false;
  v.rule = std::move(rule);
  return v;
}

Judgement JudgeComplexNormwise(PrimitiveType component_type,
                               std::complex<double> want,
                               std::complex<double> got, double k) {
  Judgement j;
  const FloatFormat& f = FormatOf(component_type);
  const double u = std::ldexp(1.0, -Precision(f));
  const bool want_nan = std::isnan(want.real()) || std::isnan(want.imag());
  const bool got_nan = std::isnan(got.real()) || std::isnan(got.imag());
  if (want_nan || got_nan) {
    if (want_nan && got_nan) return j;
    j.pass = false;
    j.ulp_distance = std::numeric_limits<double>::infinity();
    j.why = want_nan ? "NaN component required" : "unexpected NaN component";
    return j;
  }
  const bool want_inf = std::isinf(want.real()) || std::isinf(want.imag());
  const bool got_inf = std::isinf(got.real()) || std::isinf(got.imag());
  if (want_inf || got_inf) {
    if (want == got) return j;
    j.pass = false;
    j.ulp_distance = std::numeric_limits<double>::infinity();
    j.why = "infinite components differ";
    return j;
  }
  // |v - y| <= k * u_T * |y| + a subnormal floor (7.3 "Complex ops"),
  // plus the oracle's half-ulp rounding per component.
  const double abs_y = std::abs(want);
  j.bound = k * u * abs_y + MinNormal(f) +
            0.5 * (UlpIn(component_type, want.real()) +
                   UlpIn(component_type, want.imag()));
  const double err = std::abs(got - want);
  j.ulp_distance = err / std::max(u * abs_y, MinNormal(f));
  if (err <= j.bound) return j;
  j.pass = false;
  j.why = absl::StrCat("normwise error ", err, " exceeds k*u*|y| = ", j.bound,
                       " (k = ", k, ")");
  return j;
}

}  // namespace hloref::conformance
