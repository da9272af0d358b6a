// Verified rounding of a sum computed with error-free transformations
// (dot.cc and reduce.cc): the correctly rounded value when a proven error
// bound decides it, NaN when the caller must use the exact accumulator
// (ExactSum). See dot.cc for the bound.
#ifndef HLOREF_INTERPRETER_OPS_FAST_ROUND_H_
#define HLOREF_INTERPRETER_OPS_FAST_ROUND_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace hloref {

struct FastRounding {
  int precision;
  int emin;
  double max_finite;
};

// RN to `precision` bits with minimum exponent emin, for finite double x
// (round-to-nearest-even: the oracle forces the default rounding mode).
inline double RoundToFormat(double x, const FastRounding& f) {
  const int e = std::ilogb(x);
  const int q = std::max(e, f.emin) - f.precision + 1;
  return std::ldexp(std::nearbyint(std::ldexp(x, -q)), q);
}

// The verified value of sum (x = fl(s + c), A) over k terms, or NaN when
// the caller must use the exact accumulator.
inline double VerifiedRound(double s, double c, double a, int64_t k,
                            const FastRounding& f) {
  const double x = s + c;
  if (!std::isfinite(x) || !std::isfinite(a) || x == 0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const double err =
      2.02 * static_cast<double>(k) * 0x1p-53 * a + 0x1p-52 * std::fabs(x);
  const double lo = x - 2 * err;
  const double hi = x + 2 * err;
  const double r = RoundToFormat(x, f);
  if (r == 0 || std::fabs(r) > f.max_finite || RoundToFormat(lo, f) != r ||
      RoundToFormat(hi, f) != r || lo == 0 || hi == 0 ||
      std::signbit(lo) != std::signbit(hi)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return r;
}

// One step of the two-sum chain: s + e = old s + x exactly; c and a
// accumulate e and |e|.
inline void TwoSumStep(double x, double& s, double& c, double& a) {
  const double sum = s + x;
  const double z = sum - s;
  const double e = (s - (sum - z)) + (x - z);
  s = sum;
  c += e;
  a += std::fabs(e);
}

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_FAST_ROUND_H_
