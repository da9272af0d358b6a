// Wider-than-double working precision for the batch-norm, FFT and linear
// algebra evaluators: double-double arithmetic (about 106 significand
// bits), long double helpers, and the round-to-odd step that lets a later
// single round-to-nearest-even into a narrower type be the correctly
// rounded result of the wide value (Boldo-Melquiond: rounding to odd at
// precision >= p + 2, then to nearest at p, equals rounding to nearest
// once).
#ifndef HLOREF_INTERPRETER_OPS_WIDE_FLOAT_H_
#define HLOREF_INTERPRETER_OPS_WIDE_FLOAT_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "interpreter/numerics.h"
#include "spec/types/literal.h"
#include "spec/types/shape.h"

namespace hloref {
namespace wide {

// ---- Error-free transformations.

// s + e == a + b exactly (Knuth), for finite a, b without overflow.
inline void TwoSum(double a, double b, double* s, double* e) {
  *s = a + b;
  const double bb = *s - a;
  *e = (a - (*s - bb)) + (b - bb);
}
// Requires |a| >= |b| or a == 0.
inline void QuickTwoSum(double a, double b, double* s, double* e) {
  *s = a + b;
  *e = b - (*s - a);
}
// p + e == a * b exactly (FMA), barring underflow/overflow.
inline void TwoProd(double a, double b, double* p, double* e) {
  *p = a * b;
  *e = std::fma(a, b, -*p);
}

// ---- Double-double: the value hi + lo with |lo| <= ulp(hi) / 2.
struct DD {
  double hi = 0;
  double lo = 0;
};

inline DD Normalize(double hi, double lo) {
  DD r;
  if (!std::isfinite(hi)) {
    r.hi = hi;
    r.lo = 0;
    return r;
  }
  QuickTwoSum(hi, lo, &r.hi, &r.lo);
  return r;
}

inline DD Add(DD a, DD b) {
  double s, e, t, f;
  TwoSum(a.hi, b.hi, &s, &e);
  if (!std::isfinite(s)) return DD{s, 0};
  TwoSum(a.lo, b.lo, &t, &f);
  e += t;
  QuickTwoSum(s, e, &s, &e);
  e += f;
  return Normalize(s, e);
}
inline DD Neg(DD a) { return DD{-a.hi, -a.lo}; }
inline DD Sub(DD a, DD b) { return Add(a, Neg(b)); }

inline DD Mul(DD a, DD b) {
  double p, e;
  TwoProd(a.hi, b.hi, &p, &e);
  if (!std::isfinite(p)) return DD{p, 0};
  e += a.hi * b.lo + a.lo * b.hi;
  return Normalize(p, e);
}

// a / d for a double d (two quotient steps; relative error about 2^-104).
inline DD DivByDouble(DD a, double d) {
  const double q1 = a.hi / d;
  if (!std::isfinite(q1)) return DD{q1, 0};
  double p, e;
  TwoProd(q1, d, &p, &e);
  const double r = ((a.hi - p) - e) + a.lo;
  const double q2 = r / d;
  return Normalize(q1, q2);
}

struct CDD {
  DD re;
  DD im;
};

inline CDD CAdd(const CDD& a, const CDD& b) {
  return CDD{Add(a.re, b.re), Add(a.im, b.im)};
}
inline CDD CMul(const CDD& a, const CDD& b) {
  return CDD{Sub(Mul(a.re, b.re), Mul(a.im, b.im)),
             Add(Mul(a.re, b.im), Mul(a.im, b.re))};
}
inline CDD CConj(const CDD& a) { return CDD{a.re, Neg(a.im)}; }

// ---- Rounding out of the wide formats.

// hi + lo rounded to odd at 53 bits: exact values stay; an inexact one
// gets the odd neighbour.
inline double RoundToOdd(DD v) {
  if (v.lo == 0 || !std::isfinite(v.hi)) return v.hi;
  // hi is within half an ulp of the value; the value lies strictly
  // between hi and its neighbour in lo's direction (or between hi and
  // the neighbour below/above when hi was rounded up/down).
  double below = v.lo > 0 ? v.hi : std::nextafter(v.hi, -INFINITY);
  double above = v.lo > 0 ? std::nextafter(v.hi, INFINITY) : v.hi;
  uint64_t bits;
  std::memcpy(&bits, &below, sizeof(bits));
  return (bits & 1) ? below : above;
}

inline double RoundToOdd(long double x) {
  const double d = static_cast<double>(x);
  if (!std::isfinite(d) || static_cast<long double>(d) == x) return d;
  const double other = static_cast<long double>(d) < x
                           ? std::nextafter(d, INFINITY)
                           : std::nextafter(d, -INFINITY);
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return (bits & 1) ? d : other;
}

// The double to hand to StoreDoubles/StoreComplex for a float type `t` so
// that its one RNE rounding is the correctly rounded wide value: the
// nearest double for f64, the round-to-odd double for narrower types.
inline double ForStore(PrimitiveType t, DD v) {
  if (t == PrimitiveType::kF64 || t == PrimitiveType::kC128) {
    return v.hi + v.lo;  // already hi (normalized); keeps -0
  }
  return RoundToOdd(v);
}
inline double ForStore(PrimitiveType t, long double v) {
  if (t == PrimitiveType::kF64 || t == PrimitiveType::kC128) {
    return static_cast<double>(v);
  }
  return RoundToOdd(v);
}

// Stores long doubles into a float-typed shape with one correct rounding
// of each value.
inline absl::StatusOr<Literal> StoreLongDoubles(
    const Shape& shape, absl::Span<const long double> values) {
  std::vector<double> d(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    d[i] = ForStore(shape.element_type(), values[i]);
  }
  return StoreDoubles(shape, d);
}

// Stores complex long doubles into a complex-typed shape, each component
// rounded once.
inline absl::StatusOr<Literal> StoreComplexLongDoubles(
    const Shape& shape, absl::Span<const std::complex<long double>> values) {
  std::vector<std::complex<double>> d(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    d[i] = {ForStore(shape.element_type(), values[i].real()),
            ForStore(shape.element_type(), values[i].imag())};
  }
  return StoreComplex(shape, d);
}

}  // namespace wide
}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_WIDE_FLOAT_H_
