// Whole-program error enclosures: see enclosure.h and docs/enclosures.md.
//
// Arithmetic: intervals of doubles with outward rounding done in the
// default round-to-nearest mode (the oracle's mode, never changed here):
// each +, *, /, sqrt result gets its exact rounding error from an
// error-free transformation (TwoSum, fma residuals) and is stepped one ulp
// outward only when it was inexact, so exact results stay points and a
// decided comparison of exact values stays decided. Transcendentals come
// from MPFR (EvalMath, correctly rounded to double) stepped one ulp
// outward.
#include "interpreter/enclosure.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/dot.h"
#include "interpreter/ops/families.h"
#include "interpreter/ops/fft.h"
#include "interpreter/ops/window_plan.h"
#include "spec/ir/annotation_custom_calls.h"
#include "spec/ir/opcode.h"
#include "spec/types/minifloat.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr size_t kMaxReasons = 8;

// ---- Outward-rounded double arithmetic (round-to-nearest mode).

double Down(double x) { return std::nextafter(x, -kInf); }
double Up(double x) { return std::nextafter(x, kInf); }

// Products and quotients this small may have lost bits to underflow, where
// the fma residual is no longer exact: step them unconditionally.
constexpr double kTiny = 0x1p-960;

// The rounding error sign of s = fl(a + b) (TwoSum): > 0 when a + b > s.
double AddErr(double a, double b, double s) {
  const double bb = s - a;
  return (a - (s - bb)) + (b - bb);
}
double AddDown(double a, double b) {
  const double s = a + b;
  if (!std::isfinite(a) || !std::isfinite(b)) return s;
  if (std::isinf(s)) return s > 0 ? DBL_MAX : s;
  return AddErr(a, b, s) < 0 ? Down(s) : s;
}
double AddUp(double a, double b) {
  const double s = a + b;
  if (!std::isfinite(a) || !std::isfinite(b)) return s;
  if (std::isinf(s)) return s < 0 ? -DBL_MAX : s;
  return AddErr(a, b, s) > 0 ? Up(s) : s;
}
// Products of finite values.
double MulDown(double a, double b) {
  const double p = a * b;
  if (a == 0 || b == 0) return p;
  if (std::isinf(p)) return p > 0 ? DBL_MAX : p;
  if (std::fabs(p) < kTiny) return Down(p);
  return std::fma(a, b, -p) < 0 ? Down(p) : p;
}
double MulUp(double a, double b) {
  const double p = a * b;
  if (a == 0 || b == 0) return p;
  if (std::isinf(p)) return p < 0 ? -DBL_MAX : p;
  if (std::fabs(p) < kTiny) return Up(p);
  return std::fma(a, b, -p) > 0 ? Up(p) : p;
}
// Quotients of finite values, b != 0: a/b - q = r/b with r = a - q b exact.
double DivDown(double a, double b) {
  const double q = a / b;
  if (a == 0) return q;
  if (std::isinf(q)) return q > 0 ? DBL_MAX : q;
  if (std::fabs(q) < kTiny || std::fabs(a) < kTiny) return Down(q);
  const double r = std::fma(-q, b, a);
  return (r != 0 && (r < 0) != (b < 0)) ? Down(q) : q;
}
double DivUp(double a, double b) {
  const double q = a / b;
  if (a == 0) return q;
  if (std::isinf(q)) return q < 0 ? -DBL_MAX : q;
  if (std::fabs(q) < kTiny || std::fabs(a) < kTiny) return Up(q);
  const double r = std::fma(-q, b, a);
  return (r != 0 && (r < 0) == (b < 0)) ? Up(q) : q;
}
double SqrtDown(double a) {
  const double s = std::sqrt(a);
  if (a == 0 || !std::isfinite(a)) return s;
  if (a < kTiny) return Down(s);
  return std::fma(-s, s, a) < 0 ? Down(s) : s;
}
double SqrtUp(double a) {
  const double s = std::sqrt(a);
  if (a == 0 || !std::isfinite(a)) return s;
  if (a < kTiny) return Up(s);
  return std::fma(-s, s, a) > 0 ? Up(s) : s;
}

// ---- Formats: ulp, directed rounding into a result type.

double UlpOf(const FloatFormat& f, double y) {
  const int p = Precision(f);
  const int emin = 1 - f.bias;
  int e = emin;
  const double a = std::isfinite(y) ? std::fabs(y) : MaxFinite(f);
  if (a != 0) e = std::max(std::ilogb(a), emin);
  return std::ldexp(1.0, e - p + 1);
}

// The next value of format f above r (r finite, representable, < max).
double NextUpIn(const FloatFormat& f, double r) {
  const int p = Precision(f);
  const int emin = 1 - f.bias;
  if (r >= 0) {
    const int e = r == 0 ? emin : std::max(std::ilogb(r), emin);
    return r + std::ldexp(1.0, e - p + 1);
  }
  const double a = -r;
  const int e = std::max(std::ilogb(a), emin);
  double spacing = std::ldexp(1.0, e - p + 1);
  if (a == std::ldexp(1.0, e) && e > emin) spacing /= 2;
  return r + spacing;
}

// The largest value of `type` <= x (RD_T); -inf below -max.
double RoundDownTo(PrimitiveType type, double x) {
  if (std::isnan(x) || type == PrimitiveType::kF64) return x;
  if (type == PrimitiveType::kF32) {
    float r = static_cast<float>(x);
    if (static_cast<double>(r) > x) r = std::nextafter(r, -HUGE_VALF);
    return r;
  }
  const FloatFormat& f = FormatOf(type);
  const double max = MaxFinite(f);
  if (x > max) return max;
  if (x < -max) return -kInf;
  const double r = MinifloatToDouble(type, MinifloatFromDouble(type, x));
  return r > x ? -NextUpIn(f, -r) : r;
}
double RoundUpTo(PrimitiveType type, double x) {
  if (std::isnan(x) || type == PrimitiveType::kF64) return x;
  if (type == PrimitiveType::kF32) {
    float r = static_cast<float>(x);
    if (static_cast<double>(r) < x) r = std::nextafter(r, HUGE_VALF);
    return r;
  }
  const FloatFormat& f = FormatOf(type);
  const double max = MaxFinite(f);
  if (x < -max) return -max;
  if (x > max) return kInf;
  const double r = MinifloatToDouble(type, MinifloatFromDouble(type, x));
  return r < x ? NextUpIn(f, r) : r;
}

bool SupportedFloat(PrimitiveType t) {
  if (!IsFloat(t)) return false;
  const FloatFormat& f = FormatOf(t);
  return f.has_sign;  // f8e8m0fnu (unsigned, exponent only) has no rule
}

// ---- Building enclosures.

void AddReason(std::set<std::string>& set, const std::string& r) {
  if (set.size() < kMaxReasons) set.insert(r);
}
void MergeReasons(std::set<std::string>& into,
                  const std::set<std::string>& from) {
  for (const std::string& r : from) AddReason(into, r);
}

ArrayEnclosure NewArray(const Shape& shape) {
  ArrayEnclosure a;
  a.shape = shape;
  a.is_float = SupportedFloat(shape.element_type());
  a.is_complex = IsComplex(shape.element_type());
  const int64_t n = shape.IsArray() ? shape.num_elements() : 0;
  a.flags.assign(n, kEnclNumber);
  if (a.is_float || a.is_complex) {
    a.lo.assign(n, 0);
    a.hi.assign(n, 0);
  } else {
    a.ints.assign(n, 0);
  }
  if (a.is_complex) {
    a.ilo.assign(n, 0);
    a.ihi.assign(n, 0);
  }
  return a;
}

// Every element of every leaf of `shape` flagged.
ValueEnclosure Flagged(const Shape& shape, uint8_t flag,
                       const std::string& reason) {
  ValueEnclosure v;
  v.shape = shape;
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      v.tuple.push_back(Flagged(s, flag, reason));
    }
    return v;
  }
  if (!shape.IsArray()) return v;
  v.array = NewArray(shape);
  for (uint8_t& fl : v.array.flags) fl = flag;
  if (v.array.is_float || v.array.is_complex) {
    std::fill(v.array.lo.begin(), v.array.lo.end(), -kInf);
    std::fill(v.array.hi.begin(), v.array.hi.end(), kInf);
  }
  if (v.array.is_complex) {
    std::fill(v.array.ilo.begin(), v.array.ilo.end(), -kInf);
    std::fill(v.array.ihi.begin(), v.array.ihi.end(), kInf);
  }
  AddReason(v.array.reasons, reason);
  return v;
}

// Adds `flag` to every element of `v` (keeping the intervals).
void FlagAll(ValueEnclosure& v, uint8_t flag, const std::string& reason) {
  for (ValueEnclosure& t : v.tuple) FlagAll(t, flag, reason);
  if (!v.shape.IsArray()) return;
  for (uint8_t& fl : v.array.flags) fl |= flag;
  AddReason(v.array.reasons, reason);
}

absl::StatusOr<ArrayEnclosure> ArrayFromLiteral(
    const Literal& lit, const Literal* dont_care,
    absl::Span<const std::string> impl_ids) {
  ArrayEnclosure a = NewArray(lit.shape());
  const PrimitiveType t = lit.element_type();
  if (lit.HasPadding() || !lit.shape().is_static()) {
    for (uint8_t& fl : a.flags) fl = kEnclNoRule;
    AddReason(a.reasons, "dynamic shapes have no enclosure rule");
    return a;
  }
  if (a.is_float) {
    // The values become lo itself (a third array of doubles, as large as
    // each end, was a tenth of hloref diff's peak on large arguments).
    std::vector<double>().swap(a.lo);
    HLOREF_ASSIGN_OR_RETURN(a.lo, LoadDoubles(lit));
    std::copy(a.lo.begin(), a.lo.end(), a.hi.begin());
    for (size_t i = 0; i < a.lo.size(); ++i) {
      a.flags[i] = std::isnan(a.lo[i]) ? kEnclNaN : kEnclNumber;
    }
  } else if (IsInteger(t) || IsPred(t)) {
    HLOREF_ASSIGN_OR_RETURN(a.ints, LoadInts(lit));
  } else if (a.is_complex) {
    for (int64_t i = 0; i < a.size(); ++i) {
      const std::complex<double> z = lit.GetAsComplex(i);
      a.lo[i] = a.hi[i] = z.real();
      a.ilo[i] = a.ihi[i] = z.imag();
      if (std::isnan(z.real()) || std::isnan(z.imag())) {
        a.flags[i] = kEnclUndecided;
        a.lo[i] = a.ilo[i] = -kInf;
        a.hi[i] = a.ihi[i] = kInf;
        AddReason(a.reasons, "complex NaNs are not tracked");
      }
    }
  } else {
    for (uint8_t& fl : a.flags) fl = kEnclNoRule;
    AddReason(a.reasons, absl::StrCat(PrimitiveTypeName(t),
                                      " values have no enclosure rule"));
  }
  if (dont_care != nullptr) {
    for (int64_t i = 0; i < a.size(); ++i) {
      if (dont_care->GetAsInt64(i) != 0) a.flags[i] |= kEnclDontCare;
    }
    for (const std::string& id : impl_ids) {
      AddReason(a.reasons, absl::StrCat("implementation-defined (", id, ")"));
    }
  }
  return a;
}

// A value from an oracle result: `outputs` are its array leaves in order.
absl::StatusOr<ValueEnclosure> ValueFromLiteral(
    const Literal& lit, const std::vector<EvaluatedOutput>* outputs,
    size_t* next_output) {
  ValueEnclosure v;
  v.shape = lit.shape();
  if (lit.shape().IsTuple()) {
    for (const Literal& e : lit.tuple_elements()) {
      HLOREF_ASSIGN_OR_RETURN(ValueEnclosure ev,
                              ValueFromLiteral(e, outputs, next_output));
      v.tuple.push_back(std::move(ev));
    }
    return v;
  }
  if (!lit.shape().IsArray()) {
    if (outputs != nullptr) ++*next_output;  // a token leaf
    return v;
  }
  const EvaluatedOutput* out = nullptr;
  if (outputs != nullptr && *next_output < outputs->size()) {
    out = &(*outputs)[(*next_output)++];
  }
  HLOREF_ASSIGN_OR_RETURN(
      v.array,
      ArrayFromLiteral(
          lit, out != nullptr && out->dont_care ? &*out->dont_care : nullptr,
          out != nullptr ? absl::Span<const std::string>(out->impl_ids)
                         : absl::Span<const std::string>()));
  return v;
}

// The exact value of an array whose every element is decided and a point,
// or nullopt.
std::optional<Literal> PointLiteral(const ArrayEnclosure& a) {
  const PrimitiveType t = a.shape.element_type();
  for (int64_t i = 0; i < a.size(); ++i) {
    const uint8_t fl = a.flags[i];
    if (fl == kEnclNumber) {
      if (a.is_float && a.lo[i] != a.hi[i]) return std::nullopt;
    } else if (!(a.is_float && fl == kEnclNaN)) {
      return std::nullopt;
    }
  }
  if (a.is_float) {
    std::vector<double> v(a.lo);
    for (int64_t i = 0; i < a.size(); ++i) {
      // A NaN of known bits (an argument's, a constant's, the oracle's
      // exact result moved around) is a point; a NaN an op computed has an
      // implementation-defined sign, which TOTALORDER comparisons and
      // sorts see: not a point.
      if (a.flags[i] == kEnclNaN && !std::isnan(a.lo[i])) return std::nullopt;
    }
    absl::StatusOr<Literal> lit = StoreDoubles(a.shape, v);
    if (!lit.ok()) return std::nullopt;
    // Only values of the type are points of it.
    absl::StatusOr<std::vector<double>> back = LoadDoubles(*lit);
    if (!back.ok()) return std::nullopt;
    for (int64_t i = 0; i < a.size(); ++i) {
      if (a.flags[i] == kEnclNumber && (*back)[i] != v[i]) return std::nullopt;
    }
    return std::move(*lit);
  }
  if (IsInteger(t) || IsPred(t)) {
    absl::StatusOr<Literal> lit = StoreInts(a.shape, a.ints);
    if (!lit.ok()) return std::nullopt;
    return std::move(*lit);
  }
  if (a.is_complex && a.shape.is_static()) {
    // Only values of the component type are points of it.
    const PrimitiveType part = ComplexComponentType(t);
    Literal lit(a.shape);
    for (int64_t i = 0; i < a.size(); ++i) {
      if (a.lo[i] != a.hi[i] || a.ilo[i] != a.ihi[i] ||
          RoundDownTo(part, a.lo[i]) != a.lo[i] ||
          RoundDownTo(part, a.ilo[i]) != a.ilo[i]) {
        return std::nullopt;
      }
      lit.SetFromComplex(i, {a.lo[i], a.ilo[i]});
    }
    return lit;
  }
  return std::nullopt;
}

std::optional<Literal> PointValue(const ValueEnclosure& v) {
  if (v.shape.IsTuple()) {
    std::vector<Literal> elems;
    for (const ValueEnclosure& t : v.tuple) {
      std::optional<Literal> e = PointValue(t);
      if (!e) return std::nullopt;
      elems.push_back(std::move(*e));
    }
    return Literal::MakeTuple(std::move(elems));
  }
  if (v.shape.IsToken()) return Literal::Token();
  if (!v.shape.IsArray()) return std::nullopt;
  return PointLiteral(v.array);
}

// Interval union of two enclosures of the same shape (select on an
// undecided predicate, conditional on an undecided branch).
void UnionInto(ValueEnclosure& into, const ValueEnclosure& other) {
  for (size_t i = 0; i < into.tuple.size() && i < other.tuple.size(); ++i) {
    UnionInto(into.tuple[i], other.tuple[i]);
  }
  if (!into.shape.IsArray()) return;
  ArrayEnclosure& a = into.array;
  const ArrayEnclosure& b = other.array;
  for (int64_t i = 0; i < a.size(); ++i) {
    if (a.is_float || a.is_complex) {
      const bool an = a.flags[i] & kEnclNumber, bn = b.flags[i] & kEnclNumber;
      if (an && bn) {
        a.lo[i] = std::min(a.lo[i], b.lo[i]);
        a.hi[i] = std::max(a.hi[i], b.hi[i]);
      } else if (bn) {
        a.lo[i] = b.lo[i];
        a.hi[i] = b.hi[i];
      }
      a.flags[i] |= b.flags[i];
      if (a.is_complex) {  // numbers only (kEnclNumber on both)
        a.ilo[i] = std::min(a.ilo[i], b.ilo[i]);
        a.ihi[i] = std::max(a.ihi[i], b.ihi[i]);
      }
    } else {
      if (a.ints[i] != b.ints[i]) a.flags[i] |= kEnclUndecided;
      a.flags[i] |= b.flags[i];
    }
  }
  MergeReasons(a.reasons, b.reasons);
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    s[i] = s[i + 1] * dims[i + 1];
  }
  return s;
}

// Offsets of every multi-index over `which` dims (row-major in that order).
std::vector<int64_t> Offsets(absl::Span<const int64_t> dims,
                             absl::Span<const int64_t> strides,
                             absl::Span<const int64_t> which) {
  std::vector<int64_t> out{0};
  for (int64_t d : which) {
    std::vector<int64_t> next;
    next.reserve(out.size() * dims[d]);
    for (int64_t o : out) {
      for (int64_t k = 0; k < dims[d]; ++k) next.push_back(o + k * strides[d]);
    }
    out = std::move(next);
  }
  return out;
}

// A reduce's offsets into its operand: of each kept index (row-major over
// the kept dimensions: the result's order) and of each reduced index
// relative to it (row-major over `reduced` in the order given).
std::pair<std::vector<int64_t>, std::vector<int64_t>> ReduceOffsets(
    const Shape& operand, absl::Span<const int64_t> reduced) {
  const auto dims = operand.dimensions();
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) {
      kept.push_back(d);
    }
  }
  return {Offsets(dims, strides, kept), Offsets(dims, strides, reduced)};
}

// ---- Element kernels.

struct Iv {
  double lo, hi;
};

// Exactly zero, whatever the implementation does: its products are zero
// and adding it is exact.
bool IsPointZero(Iv v) { return v.lo == 0 && v.hi == 0; }

// 0 where an element is exactly zero, 1 elsewhere: convolved or scattered
// in f64 (exactly), it counts the terms of a sum that may be nonzero.
std::vector<double> NonzeroIndicator(const ArrayEnclosure& a) {
  std::vector<double> z(a.lo.size());
  for (size_t i = 0; i < z.size(); ++i) {
    z[i] = IsPointZero(Iv{a.lo[i], a.hi[i]}) ? 0 : 1;
  }
  return z;
}

Iv IvMul(Iv a, Iv b) {
  const double c[4][2] = {
      {a.lo, b.lo}, {a.lo, b.hi}, {a.hi, b.lo}, {a.hi, b.hi}};
  Iv r{kInf, -kInf};
  for (const auto& p : c) {
    r.lo = std::min(r.lo, MulDown(p[0], p[1]));
    r.hi = std::max(r.hi, MulUp(p[0], p[1]));
  }
  return r;
}

// The exponent of the lowest set bit of a finite non-zero double.
int LowBitExponent(double t) {
  int e;
  const double m = std::frexp(std::fabs(t), &e);  // m in [0.5, 1)
  const uint64_t mant = static_cast<uint64_t>(std::ldexp(m, 53));
  return e - 53 + __builtin_ctzll(mant);
}

// Tracks whether an accumulation is exact in every order: every term a
// point that is a multiple of 2^q with S < 2^(q + p_T) (and q at or above
// T's subnormal spacing) makes every partial sum of every order a
// representable multiple of 2^q, so no rounding happens at all (the data
// design of numerics.md 7.3 class A: exact data gives EXACT).
struct ExactSumCheck {
  bool points = true;
  int q = std::numeric_limits<int>::max();
  void Add(double lo, double hi) {
    if (lo != hi || !std::isfinite(lo)) {
      points = false;  // an interval, or an infinite point
    } else if (lo != 0) {
      q = std::min(q, LowBitExponent(lo));
    }
  }
  bool Exact(double s, PrimitiveType t) const {
    if (!points) return false;
    if (s == 0) return true;
    const FloatFormat& f = FormatOf(t);
    const int p = Precision(f);
    const int emin = 1 - f.bias;
    return q >= emin - p + 1 && q < 2000 && s < std::ldexp(1.0, q + p);
  }
};

// The partial-sum bound of an accumulation (docs/enclosures.md, "Partial
// sums instead of S"). Any summation of the terms t_i in any order and
// grouping is a binary tree; node v computes (s^_l + s^_r)(1 + d_v), |d_v|
// <= u (u, or less when a wider type keeps the partial sum; d_v = 0 for an
// FMA's addend or an exact addition). With e_v = s^_v - s_v (s_v the exact
// sum of v's leaves), e_v = e_l + e_r + d_v (s_v + e_l + e_r), so |e_v| <=
// (1 + u)(|e_l| + |e_r|) + u |s_v|, and unrolled over the tree
//   |e_root| <= (1 + u)^n u (sum_leaves |e_leaf| / u + sum_nodes |s_v|)
// (a dot's leaves are products rounded once, |e_leaf| <= u |t_i|; a sum's
// are exact). Only n terms may be nonzero: a node adding an exact zero
// (a point-zero term, a subtree of them) is exact, so the rounding nodes
// are the internal nodes of the tree over those n leaves. Each s_v is a
// sum of a subset of the terms, |s_v| <= M(k) with k the node's leaf count
// and M(k) the largest |sum| of k terms: M(k) <= max(min(P, k p_max),
// min(N, k q_max)), P (N) the sum of the positive (negative) parts of the
// terms' enclosures, p_max (q_max) the largest. The j-th largest internal
// node of a binary tree with n leaves has at most n - j + 1 leaves (the j
// largest form an upward-closed fragment with j + 1 disjoint subtrees
// below it; a lowest node of the fragment has two of them, the other j - 1
// hold a leaf each), and M is non-decreasing, so sum_nodes |s_v| <=
// sum_{k=2..n} M(k) for every tree: the bound holds for every order, as
// gamma_m(u) S does, and never exceeds it by more than the factor
// (1 - (n - 1) u) / (1 - n u) (M(k) <= S, (1 + u)^n <= 1 / (1 - n u)); the
// caller takes the smaller of the two. For terms of both signs P and N are
// about S / 2, and for terms of one sign k p_max caps the small nodes, so
// it is about half of gamma_n S; terms dominated by one (a softmax row of
// one peak) gain nothing, as they should (their partial sums do reach S).
struct PartialSums {
  int64_t n = 0;                // terms that may be nonzero
  double p = 0, q = 0;          // sum of max(hi, 0), of max(-lo, 0)
  double p_max = 0, q_max = 0;  // the largest of each
  // A term in [lo, hi]; `exact_zero`: the term is exactly zero (a point
  // zero addend, a product with a point-zero factor), which rounds nothing.
  void Add(double lo, double hi, bool exact_zero) {
    if (exact_zero) return;
    ++n;
    const double pp = std::max(hi, 0.0), qq = std::max(-lo, 0.0);
    p += pp;  // round-to-nearest here, bounded in SumOfNodeBounds
    q += qq;
    p_max = std::max(p_max, pp);
    q_max = std::max(q_max, qq);
  }
  // sum_{k=2..n} M(k), rounded up. P, N and the sum over k are summed in
  // round-to-nearest, each within (n + 2) 2^-53 relative of its exact
  // value while n 2^-53 < 0.1: the factor 1 + (n + 2) 2^-52 on each bounds
  // them with a margin.
  double SumOfNodeBounds() const;
  // (1 + u)^n u (leaf_sum + SumOfNodeBounds()) rounded up, +inf when
  // n u >= 1/2 (then the caller's gamma bound is the one taken).
  double Bound(double u, double leaf_sum) const;
};

double Gamma(int64_t m, double u) {  // gamma_m(u), rounded up
  const double mu = MulUp(static_cast<double>(m), u);
  if (mu >= 1) return kInf;
  return DivUp(mu, AddDown(1.0, -mu));
}

double PartialSums::SumOfNodeBounds() const {
  if (n < 2) return 0;
  const double up = AddUp(1, MulUp(static_cast<double>(n + 2), 0x1p-52));
  // A dot's terms are round-to-nearest products: also within 2^-53
  // relative (covered by `up`) plus an underflow quantum 2^-1074 each.
  const double nq = MulUp(static_cast<double>(n), 0x1p-1073);
  const double pu = AddUp(MulUp(p, up), nq), qu = AddUp(MulUp(q, up), nq);
  const double pm = AddUp(MulUp(p_max, up), 0x1p-1073);
  const double qm = AddUp(MulUp(q_max, up), 0x1p-1073);
  double sum = 0;
  for (int64_t k = 2; k <= n; ++k) {
    const double kd = static_cast<double>(k);
    const double kp = MulUp(kd, pm), kq = MulUp(kd, qm);
    if (kp >= pu && kq >= qu) {  // both capped from here on: max(P, N) each
      sum += MulUp(static_cast<double>(n - k + 1), std::max(pu, qu));
      break;
    }
    sum += std::max(std::min(pu, kp), std::min(qu, kq));
  }
  return MulUp(sum, up);
}

double PartialSums::Bound(double u, double leaf_sum) const {
  // A node may round twice: to a wider type W kept as excess precision,
  // then to T (RN_T(RN_W(x)), x not a sum of two T values, so the double
  // rounding need not be innocuous): |d| <= u + u_W (1 + u), and u_W <=
  // u^2 for every wider type with at least twice T's precision (f32 for
  // bf16 and f16, f64 for f32), so |d| <= u (1 + 2 u). (gamma_m(u) has
  // room for this in its m^2 u^2 term; this bound's factor has not for
  // small n, so it uses the larger unit.)
  const double ue = MulUp(u, AddUp(1, MulUp(2, u)));
  const double nu = MulUp(static_cast<double>(n), ue);
  if (nu >= 0.5) return kInf;
  const double factor = DivUp(1, AddDown(1, -nu));  // >= (1 + ue)^n
  return MulUp(MulUp(factor, ue), AddUp(leaf_sum, SumOfNodeBounds()));
}

// The transcendental and other unary float functions.
struct UnaryFn {
  enum Shape { kIncreasing, kDecreasing, kEven, kSin, kCos, kTan } shape;
  double dom_lo, dom_hi;  // closed domain; outside it the result is NaN
  std::optional<MathFn> math;
};

std::optional<UnaryFn> UnaryFnOf(HloOpcode op) {
  using S = UnaryFn;
  switch (op) {
    case HloOpcode::kExp:
      return UnaryFn{S::kIncreasing, -kInf, kInf, MathFn::kExp};
    case HloOpcode::kExpm1:
      return UnaryFn{S::kIncreasing, -kInf, kInf, MathFn::kExpm1};
    case HloOpcode::kLog:
      return UnaryFn{S::kIncreasing, 0, kInf, MathFn::kLog};
    case HloOpcode::kLog1p:
      return UnaryFn{S::kIncreasing, -1, kInf, MathFn::kLog1p};
    case HloOpcode::kLogistic:
      return UnaryFn{S::kIncreasing, -kInf, kInf, MathFn::kLogistic};
    case HloOpcode::kTanh:
      return UnaryFn{S::kIncreasing, -kInf, kInf, MathFn::kTanh};
    case HloOpcode::kErf:
      return UnaryFn{S::kIncreasing, -kInf, kInf, MathFn::kErf};
    case HloOpcode::kSinh:
      return UnaryFn{S::kIncreasing, -kInf, kInf, MathFn::kSinh};
    case HloOpcode::kAsinh:
      return UnaryFn{S::kIncreasing, -kInf, kInf, MathFn::kAsinh};
    case HloOpcode::kAtanh:
      return UnaryFn{S::kIncreasing, -1, 1, MathFn::kAtanh};
    case HloOpcode::kAsin:
      return UnaryFn{S::kIncreasing, -1, 1, MathFn::kAsin};
    case HloOpcode::kAcos:
      return UnaryFn{S::kDecreasing, -1, 1, MathFn::kAcos};
    case HloOpcode::kAcosh:
      return UnaryFn{S::kIncreasing, 1, kInf, MathFn::kAcosh};
    case HloOpcode::kCbrt:
      return UnaryFn{S::kIncreasing, -kInf, kInf, MathFn::kCbrt};
    case HloOpcode::kRsqrt:
      return UnaryFn{S::kDecreasing, 0, kInf, MathFn::kRsqrt};
    case HloOpcode::kSqrt:
      return UnaryFn{S::kIncreasing, 0, kInf, std::nullopt};
    case HloOpcode::kCosh:
      return UnaryFn{S::kEven, -kInf, kInf, MathFn::kCosh};
    case HloOpcode::kSin:
      // sin, cos, tan of an infinity are NaN: the domain is the finite
      // doubles.
      return UnaryFn{S::kSin, -DBL_MAX, DBL_MAX, MathFn::kSin};
    case HloOpcode::kCos:
      return UnaryFn{S::kCos, -DBL_MAX, DBL_MAX, MathFn::kCos};
    case HloOpcode::kTan:
      return UnaryFn{S::kTan, -DBL_MAX, DBL_MAX, MathFn::kTan};
    default:
      return std::nullopt;
  }
}

double FnDown(const UnaryFn& f, double x) {
  if (!f.math) return SqrtDown(x);
  const double r = EvalMath(*f.math, x, ResultPrecision::kF64);
  return std::isinf(r) && r < 0 ? r : Down(r);
}
double FnUp(const UnaryFn& f, double x) {
  if (!f.math) return SqrtUp(x);
  const double r = EvalMath(*f.math, x, ResultPrecision::kF64);
  return std::isinf(r) && r > 0 ? r : Up(r);
}

// f over [lo, hi] (inside the domain).
Iv ApplyUnaryFn(const UnaryFn& f, double lo, double hi) {
  switch (f.shape) {
    case UnaryFn::kIncreasing:
      return {FnDown(f, lo), FnUp(f, hi)};
    case UnaryFn::kDecreasing:
      return {FnDown(f, hi), FnUp(f, lo)};
    case UnaryFn::kEven: {
      const double a = std::fabs(lo), b = std::fabs(hi);
      const double far = std::max(a, b);
      const double near = (lo <= 0 && hi >= 0) ? 0.0 : std::min(a, b);
      return {FnDown(f, near), FnUp(f, far)};
    }
    case UnaryFn::kTan: {
      // Increasing between the poles pi/2 + k pi; a candidate pole inside
      // (a superset, as for sin / cos) makes the result unbounded.
      if (!std::isfinite(lo) || !std::isfinite(hi) || hi - lo > 3 ||
          std::max(std::fabs(lo), std::fabs(hi)) > 1e6) {
        return {-kInf, kInf};
      }
      const double kmin = std::ceil((lo - M_PI / 2) / M_PI - 1e-7);
      const double kmax = std::floor((hi - M_PI / 2) / M_PI + 1e-7);
      if (kmin <= kmax) return {-kInf, kInf};
      return {FnDown(f, lo), FnUp(f, hi)};
    }
    case UnaryFn::kSin:
    case UnaryFn::kCos: {
      if (!std::isfinite(lo) || !std::isfinite(hi) || hi - lo > 4 ||
          std::max(std::fabs(lo), std::fabs(hi)) > 1e6) {
        return {-1, 1};
      }
      Iv r{std::min(FnDown(f, lo), FnDown(f, hi)),
           std::max(FnUp(f, lo), FnUp(f, hi))};
      // Extremes at off + k pi with value (-1)^k; candidates are a superset
      // of the k in [lo, hi] (tolerance far above the rounding error of
      // these quotients for |x| <= 1e6).
      const double off = f.shape == UnaryFn::kSin ? M_PI / 2 : 0;
      const double kmin = std::ceil((lo - off) / M_PI - 1e-7);
      const double kmax = std::floor((hi - off) / M_PI + 1e-7);
      for (double k = kmin; k <= kmax; k += 1) {
        if (std::fmod(std::fabs(k), 2.0) == 0) {
          r.hi = 1;
        } else {
          r.lo = -1;
        }
      }
      r.lo = std::max(r.lo, -1.0);
      r.hi = std::min(r.hi, 1.0);
      return r;
    }
  }
  return {-kInf, kInf};
}

// atan2(y, x) over the box y x x (numeric parts). A box that meets the
// branch cut (x < 0, y = 0, where the sign of a zero y picks +-pi) or the
// origin spans (-pi, pi]; otherwise the box lies in an open half plane
// bounded away from the cut, the angle is continuous there and its range
// over the (convex) box is attained at the corners (MPFR atan2 at each
// corner, stepped one double ulp outward). Points take MPFR's value with
// its special cases (infinities, zeros).
Iv Atan2Range(Iv y, Iv x, uint8_t* flags) {
  auto at = [](double yy, double xx) {
    return EvalMath2(MathFn2::kAtan2, yy, xx, ResultPrecision::kF64);
  };
  const double pi_hi = Up(M_PI);  // M_PI < pi < Up(M_PI)
  if (y.lo == y.hi && x.lo == x.hi) {
    const double r = at(y.lo, x.lo);
    if (std::isnan(r)) {
      *flags = (*flags & ~kEnclNumber) | kEnclNaN;
      return {-kInf, kInf};
    }
    if (y.lo == 0) {
      // The sign of a zero y is not tracked: atan2(+-0, x) is +-0 for
      // x >= +0 and +-pi for x < 0 (or -0).
      return x.lo > 0 ? Iv{0, 0} : Iv{-pi_hi, pi_hi};
    }
    return {Down(r), Up(r)};
  }
  const bool meets_cut = y.lo <= 0 && y.hi >= 0 && x.lo <= 0;
  const bool finite = std::isfinite(y.lo) && std::isfinite(y.hi) &&
                      std::isfinite(x.lo) && std::isfinite(x.hi);
  if (meets_cut || !finite) return {-pi_hi, pi_hi};
  Iv r{kInf, -kInf};
  for (double yy : {y.lo, y.hi}) {
    for (double xx : {x.lo, x.hi}) {
      const double v = at(yy, xx);
      r.lo = std::min(r.lo, Down(v));
      r.hi = std::max(r.hi, Up(v));
    }
  }
  r.lo = std::max(r.lo, -pi_hi);
  r.hi = std::min(r.hi, pi_hi);
  return r;
}

// fmod(x, y) (HLO remainder: exact, the sign of x) over the box x x y.
// Points: the exact fmod (IEEE: y = 0 or x infinite gives NaN). A point
// divisor and a dividend interval within one period (trunc(x / y) the
// same at both ends, x of one sign): r = x - k y, increasing in x, so
// [fmod(lo), fmod(hi)]. Otherwise the hull implied by |r| <= |x|,
// |r| < |y| and sign(r) = sign(x); a divisor interval meeting zero or an
// infinite dividend may also give NaN.
Iv RemainderRange(Iv x, Iv y, uint8_t* flags) {
  if (x.lo == x.hi && y.lo == y.hi) {
    const double r = std::fmod(x.lo, y.lo);
    if (std::isnan(r)) {
      *flags = (*flags & ~kEnclNumber) | kEnclNaN;
      return {-kInf, kInf};
    }
    return {r, r};
  }
  if ((y.lo <= 0 && y.hi >= 0) || std::isinf(x.lo) || std::isinf(x.hi)) {
    *flags |= kEnclNaN;
  }
  const double ymax = std::max(std::fabs(y.lo), std::fabs(y.hi));
  if (y.lo == y.hi && y.lo != 0 && std::isfinite(x.lo) && std::isfinite(x.hi) &&
      (x.lo >= 0 || x.hi <= 0)) {
    // fmod is x - k y with k = trunc(x / y); an interval narrower than
    // |y| crosses at most one multiple of y, where fmod drops by |y|, so
    // fmod(lo) <= fmod(hi) holds exactly when it crosses none.
    const double rl = std::fmod(x.lo, y.lo), rh = std::fmod(x.hi, y.lo);
    if (AddUp(x.hi, -x.lo) < ymax && rl <= rh) return {rl, rh};
  }
  const double lo = std::min(0.0, std::max(x.lo, -ymax));
  const double hi = std::max(0.0, std::min(x.hi, ymax));
  return {lo, hi};
}

double PowRn(double b, double e) {
  return EvalMath2(MathFn2::kPow, b, e, ResultPrecision::kF64);
}

// The value of element i when it is a point (a NaN-only element is the
// point NaN).
bool PointOf(const ArrayEnclosure& a, int64_t i, double* v) {
  if (a.flags[i] == kEnclNumber && a.lo[i] == a.hi[i]) {
    *v = a.lo[i];
    return true;
  }
  if (a.flags[i] == kEnclNaN) {
    *v = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  return false;
}

// A value takes its instruction's shape (the layout included: bitcast
// and the isolated oracle runs read it).
void AdoptShape(ValueEnclosure& v, const Shape& shape) {
  v.shape = shape;
  if (shape.IsTuple()) {
    for (size_t i = 0; i < v.tuple.size() && i < shape.tuple_shapes().size();
         ++i) {
      AdoptShape(v.tuple[i], shape.tuple_shapes(i));
    }
  } else if (shape.IsArray()) {
    v.array.shape = shape;
  }
}

bool IsDataMovement(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kCopy:
    case HloOpcode::kBitcast:
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kGather:
      return true;
    default:
      return false;
  }
}

// Operands of a data-movement op whose elements move to the output (the
// others are indices).
bool IsDataOperand(HloOpcode op, int64_t k) {
  switch (op) {
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kGather:
      return k == 0;
    case HloOpcode::kDynamicUpdateSlice:
      return k <= 1;
    default:
      return true;
  }
}

std::string OpName(const HloInstruction& inst) {
  return std::string(HloOpcodeString(inst.opcode()));
}

std::optional<HloOpcode> SimpleReducer(const HloComputation* comp);
bool IsMultiplyReducer(const HloComputation* comp);
PrimitiveType ReducerType(const HloComputation* comp);
bool HasFloat(const Shape& s);

// FTZ / DAZ declared for the type: a value that may be subnormal may be
// zero.
void ApplyFtz(ValueEnclosure& v, const std::set<PrimitiveType>& types) {
  for (ValueEnclosure& t : v.tuple) ApplyFtz(t, types);
  if (!v.shape.IsArray()) return;
  ArrayEnclosure& a = v.array;
  // Complex values: each part flushed as its component type.
  const PrimitiveType t = a.is_complex
                              ? ComplexComponentType(v.shape.element_type())
                              : v.shape.element_type();
  if (!(a.is_float || a.is_complex) || types.count(t) == 0) return;
  const double mn = MinNormal(FormatOf(t));
  auto flush = [mn](double& lo, double& hi) {
    if (lo < mn && hi > -mn) {
      lo = std::min(lo, 0.0);
      hi = std::max(hi, 0.0);
    }
  };
  for (int64_t i = 0; i < a.size(); ++i) {
    if (!(a.flags[i] & kEnclNumber)) continue;
    flush(a.lo[i], a.hi[i]);
    if (a.is_complex) flush(a.ilo[i], a.ihi[i]);
  }
}

constexpr uint8_t kUnjudgedFlags = kEnclDontCare | kEnclNoRule | kEnclUndecided;

// A product of n + 1 factors (the init and n elements) in any order and
// grouping, each of its n products rounded to nearest in T or in any wider
// type: without underflow or overflow of any partial product, every
// rounding is a factor (1 + d), |d| <= u_T, so the result lies within
// gamma_n(u_T) |P| of the exact product P (Higham, Accuracy and Stability,
// lemma 3.1). Every partial product is a sub-product, so its magnitude lies
// between prod min(1, mig_i) and prod max(1, mag_i) (mig: the smallest
// magnitude in the factor's enclosure); when those bounds leave the normal
// range the element is undecided (may underflow) or unbounded with NaN
// allowed (may overflow). A factor that is exactly zero makes every order
// zero.
void MultiplyReduction(
    PrimitiveType t, int64_t n,
    const std::function<void(
        std::function<void(double lo, double hi, uint8_t flags)>)>& factors,
    const std::string& where, double& lo, double& hi, uint8_t& fl,
    std::set<std::string>& reasons) {
  Iv p{1, 1};
  double min_mag = 1, max_mag = 1;
  bool zero = false, must_nan = false, unbounded = false;
  fl = kEnclNumber;
  factors([&](double flo, double fhi, uint8_t ff) {
    fl |= ff & (kUnjudgedFlags | kEnclNaN);
    if (!(ff & kEnclNumber)) {
      must_nan = true;
      return;
    }
    if (!std::isfinite(flo) || !std::isfinite(fhi)) {
      unbounded = true;
      return;
    }
    if (flo == 0 && fhi == 0) zero = true;
    p = IvMul(p, Iv{flo, fhi});
    const double mag = std::max(std::fabs(flo), std::fabs(fhi));
    const double mig =
        (flo <= 0 && fhi >= 0) ? 0 : std::min(std::fabs(flo), std::fabs(fhi));
    min_mag = MulDown(min_mag, std::min(1.0, mig));
    max_mag = MulUp(max_mag, std::max(1.0, mag));
  });
  const FloatFormat& f = FormatOf(t);
  if (must_nan) {
    fl = (fl & ~kEnclNumber) | kEnclNaN;
    lo = -kInf;
    hi = kInf;
    return;
  }
  if (unbounded) {
    fl |= kEnclUndecided;
    AddReason(reasons, where + ": non-finite operand enclosure");
    lo = -kInf;
    hi = kInf;
    return;
  }
  const double g = Gamma(n, std::ldexp(1.0, -Precision(f)));
  if (AddUp(max_mag, MulUp(g, max_mag)) > MaxFinite(f)) {
    fl |= kEnclNaN;
    lo = -kInf;
    hi = kInf;
    AddReason(reasons, where + ": a partial product may overflow");
    return;
  }
  if (zero) {
    lo = hi = 0;
    return;
  }
  if (MulDown(min_mag, AddDown(1, -g)) < MinNormal(f)) {
    fl |= kEnclUndecided;
    AddReason(reasons, where + ": a partial product may underflow");
    lo = -kInf;
    hi = kInf;
    return;
  }
  const double e = MulUp(g, std::max(std::fabs(p.lo), std::fabs(p.hi)));
  lo = p.lo == p.hi && n == 0 ? p.lo : AddDown(p.lo, -e);
  hi = p.lo == p.hi && n == 0 ? p.hi : AddUp(p.hi, e);
  lo = RoundDownTo(t, lo);
  hi = RoundUpTo(t, hi);
  if (!f.has_infinity && (std::isinf(lo) || std::isinf(hi))) fl |= kEnclNaN;
}

// A dot / convolution `algorithm=` (XLA's PrecisionConfig::Algorithm,
// lower case): how its inputs are rounded and where it accumulates, in the
// terms of the declared dot deviations (numerics.md 7.7): each product
// term may carry a relative input error (2 u_w + u_w^2) (E_in), the sum
// rounds with unit u_a, and the _xN variants add N partial products per
// term (so N times the terms). The split variants' u_w, by hand: bf16_x3
// splits each input into two bf16 (a = a1 + a2 + r, |a - a1| <= 2^-9 |a|,
// |r| <= 2^-18 |a|) and drops a2 b2 and the r terms, below 3 2^-18 |ab|
// (u_w = 2^-17 gives E_in >= 2^-16 |ab|); x6 / x9 split in three (|r| <=
// 2^-27 |a|) and drop terms below 5 2^-27 |ab| (u_w = 2^-25); tf32_x3
// (11-bit halves) below 3 2^-22 |ab| (u_w = 2^-21). Unknown names
// (including dot_any_f8_any_f32_fast_accum, whose accumulator is not
// stated): nullopt, no rule.
struct DotAlgorithmModel {
  double input_unit = 0;         // u_w (0: inputs exact as typed)
  double accumulation_unit = 0;  // u_a
  int64_t products = 1;          // partial products per term
};
std::optional<DotAlgorithmModel> DotAlgorithmOf(const std::string& name) {
  const double bf16 = 0x1p-8, tf32 = 0x1p-11, f16 = 0x1p-11, f32 = 0x1p-24,
               f64 = 0x1p-53;
  static const std::map<std::string, DotAlgorithmModel> kModels = {
      {"dot_any_f8_any_f32", {0, f32, 1}},
      {"dot_f16_f16_f16", {f16, f16, 1}},
      {"dot_f16_f16_f32", {f16, f32, 1}},
      {"dot_bf16_bf16_bf16", {bf16, bf16, 1}},
      {"dot_bf16_bf16_f32", {bf16, f32, 1}},
      {"dot_bf16_bf16_f32_x3", {0x1p-17, f32, 3}},
      {"dot_bf16_bf16_f32_x6", {0x1p-25, f32, 6}},
      {"dot_bf16_bf16_f32_x9", {0x1p-25, f32, 9}},
      {"dot_tf32_tf32_f32", {tf32, f32, 1}},
      {"dot_tf32_tf32_f32_x3", {0x1p-21, f32, 3}},
      {"dot_f32_f32_f32", {0, f32, 1}},
      {"dot_f64_f64_f64", {0, f64, 1}},
  };
  if (name.empty()) return DotAlgorithmModel{};
  auto it = kModels.find(name);
  if (it == kModels.end()) return std::nullopt;
  return it->second;
}

// ---- The pass.

// The batch-norm rules' frame (EnclosurePass::BatchNormFrameOf).
struct BatchNormFrame {
  int64_t features = 0, inner = 1, n = 0;
  double u = 0, rho = 0, tiny = 0, eps = 0;
};

double MaxAbs(double lo, double hi) {
  return std::max(std::fabs(lo), std::fabs(hi));
}

// One feature of a batch-norm operand x: its elements (`members`), and the
// flags of every enclosure a rule reads for it. A NaN makes the feature
// NaN; any other element that is not a finite number leaves it undecided.
struct FeatureSlice {
  std::vector<int64_t> members;
  uint8_t flags = kEnclNumber;
  bool finite = true;
  int64_t fi = 0;

  void Start(const BatchNormFrame& fr, int64_t size, int64_t feature) {
    fi = feature;
    flags = kEnclNumber;
    finite = true;
    members.clear();
    for (int64_t i = 0; i < size; ++i) {
      if ((i / fr.inner) % fr.features == fi) members.push_back(i);
    }
  }
  void Take(const ArrayEnclosure& a, int64_t i) {
    flags |= a.flags[i] & ~kEnclNumber;
    if (!(a.flags[i] & kEnclNumber)) flags = (flags & ~kEnclNumber) | kEnclNaN;
    finite = finite && std::isfinite(a.lo[i]) && std::isfinite(a.hi[i]);
  }
  // The feature's elements of `per_element` and element fi of each of
  // `per_feature` become [-inf, inf] with `fl`; a non-empty reason is
  // added to all of them.
  void SetAll(ArrayEnclosure& per_element,
              std::initializer_list<ArrayEnclosure*> per_feature, uint8_t fl,
              const std::string& reason) const {
    for (int64_t i : members) {
      per_element.flags[i] = fl;
      per_element.lo[i] = -kInf;
      per_element.hi[i] = kInf;
    }
    for (ArrayEnclosure* a : per_feature) {
      a->flags[fi] = fl;
      a->lo[fi] = -kInf;
      a->hi[fi] = kInf;
    }
    if (reason.empty()) return;
    AddReason(per_element.reasons, reason);
    for (ArrayEnclosure* a : per_feature) AddReason(a->reasons, reason);
  }
};

absl::StatusOr<ValueEnclosure> ZeroValue(const Shape& shape);

class EnclosurePass {
 public:
  explicit EnclosurePass(const EnclosureOptions& options) : options_(options) {
    options_.oracle.compute_error_data = false;
    options_.oracle.entry_value_observer = nullptr;
    options_.oracle.progress = nullptr;
    if (options_.oracle.max_bytes == 0) {
      options_.oracle.max_bytes = DefaultMaxBytes();
    }
  }

  // `owned_args` (the entry's, or null): the arguments themselves, which
  // the parameters take over instead of copying (each is then dropped
  // after its last reader, as every value); `args` points into it.
  absl::StatusOr<ValueEnclosure> Computation(
      const HloComputation& comp, std::vector<const ValueEnclosure*> args,
      std::vector<ValueEnclosure>* owned_args = nullptr);

  // Device channels (send / recv without is_host_transfer) with exactly
  // one send and one recv-done in the whole module, both in the same
  // computation: the recv-done receives what that send sent in the same
  // invocation of the computation (interpreter/ops/host_io.h), whatever
  // order the oracle's schedule picks. Others have no rule.
  void FindPairedChannels(const HloModule& module);

 private:
  absl::StatusOr<ValueEnclosure> Instruction(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<ValueEnclosure> Op(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<ValueEnclosure> While(const HloInstruction& inst,
                                       const ValueEnclosure& init);
  absl::StatusOr<std::optional<ValueEnclosure>> Async(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<ValueEnclosure> Conditional(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  // The oracle on `inst` alone with these operand values and shapes.
  absl::StatusOr<EvalResult> RunIsolated(const HloInstruction& inst,
                                         const std::vector<Literal>& args,
                                         const Shape& result_shape,
                                         int variant);
  // RunIsolated's f64 variant on two operands given as doubles: `inst`
  // applied to (a of shape a_shape, b of shape b_shape), its f64 result
  // (result_shape) as doubles.
  // `fixed` follow a and b as further operands (ragged-dot's group
  // sizes); `marks`, when given, receives the result's implementation-
  // defined elements.
  absl::StatusOr<std::vector<double>> RunIsolatedF64(
      const HloInstruction& inst, const Shape& a_shape,
      const std::vector<double>& a, const Shape& b_shape,
      const std::vector<double>& b, const Shape& result_shape,
      const std::vector<Literal>& fixed = {}, EvaluatedOutput* marks = nullptr);
  absl::StatusOr<std::optional<ValueEnclosure>> BilinearSums(
      const HloInstruction& inst, const ArrayEnclosure& x,
      const ArrayEnclosure& w, const std::vector<Literal>& fixed,
      const DotAlgorithmModel& alg, const std::string& where,
      std::optional<int64_t> max_terms);
  absl::StatusOr<std::optional<ValueEnclosure>> Scan(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> Fft(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> RaggedDot(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  std::optional<ValueEnclosure> ScaledDot(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> DataMovement(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  std::optional<ValueEnclosure> FloatElementwise(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  std::optional<ValueEnclosure> ComplexElementwise(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> ComplexFunctionOnPoints(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  std::optional<ValueEnclosure> Dot(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  void ComplexDot(const ArrayEnclosure& a, const ArrayEnclosure& b,
                  const std::vector<int64_t>& ab,
                  const std::vector<int64_t>& bb,
                  const std::vector<int64_t>& am,
                  const std::vector<int64_t>& bn,
                  const std::vector<int64_t>& ak,
                  const std::vector<int64_t>& bk, const std::string& where,
                  ArrayEnclosure& o) const;
  std::optional<ValueEnclosure> ComplexReduceAdd(const HloInstruction& inst,
                                                 const ArrayEnclosure& a,
                                                 const ArrayEnclosure& init);
  std::optional<ValueEnclosure> Reduce(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> Convolution(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  std::optional<BatchNormFrame> BatchNormFrameOf(const HloInstruction& inst,
                                                 const ArrayEnclosure& x,
                                                 PrimitiveType t) const;
  std::optional<ValueEnclosure> BatchNormTraining(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  std::optional<ValueEnclosure> BatchNormGrad(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  std::optional<ValueEnclosure> BatchNormInference(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> ReduceWindow(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> ReduceWindowMultiply(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  std::optional<ValueEnclosure> ReduceMultiply(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> ScatterFloat(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> SelectAndScatter(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  std::optional<ValueEnclosure> TriangularSolve(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  std::optional<ValueEnclosure> SortRounded(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> ReduceBySelection(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> ReducePrecision(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  absl::StatusOr<std::optional<ValueEnclosure>> Map(
      const HloInstruction& inst,
      const std::vector<const ValueEnclosure*>& ops);
  EnclosureErrorClass ClassOf(const HloInstruction& inst) const {
    const PrimitiveType t = inst.shape().IsArray() ? inst.shape().element_type()
                                                   : PrimitiveType::kInvalid;
    EnclosureErrorClass c = options_.error_model(inst.opcode(), t);
    if (inst.opcode() == HloOpcode::kDivide &&
        options_.deviations.divide_ulps > 0 && IsFloat(t) &&
        t != PrimitiveType::kF64) {
      c = EnclosureErrorClass{EnclosureErrorKind::kUlp,
                              options_.deviations.divide_ulps};
    }
    return c;
  }
  // The rounding steps of an accumulation with m steps when every term is
  // nonzero, `nonzero_steps` counting only the terms that may be nonzero:
  // an addition with an exactly zero operand (a zero product, a zero
  // addend, a subtree of zeros) is exact, so along every path of every
  // summation tree at most (nonzero terms - 1) additions round (plus each
  // nonzero product's own rounding in a dot), and gamma of that count
  // bounds every order. Declared flush-to-zero keeps m (its flush term
  // counts every step).
  int64_t RoundingSteps(PrimitiveType t, int64_t m,
                        int64_t nonzero_steps) const {
    if (options_.deviations.ftz_types.count(t) > 0) return m;
    return std::min(m, nonzero_steps);
  }
  // The end of one output element's add / maximum / minimum fold over
  // operand enclosures (reduce and select-and-scatter): NaN when some term
  // must be NaN; everything, undecided, when a term is unbounded; for add,
  // [lo, hi] widened by the accumulation bound of `terms` terms (of which
  // `nonzero` may be nonzero) with magnitude sum `s`, unless the exact-sum
  // check shows no order rounds; overflow of an intermediate allows NaN.
  void FinishFold(bool must_nan, bool unbounded, bool add, int64_t terms,
                  int64_t nonzero, const ExactSumCheck& exact,
                  const PartialSums& partial, double s, PrimitiveType t,
                  const std::string& where, std::set<std::string>& reasons,
                  double& lo, double& hi, uint8_t& fl) const {
    if (must_nan) {
      fl = (fl & ~kEnclNumber) | kEnclNaN;
    } else if (unbounded) {
      fl |= kEnclUndecided;
      AddReason(reasons, where + ": non-finite operand enclosure");
      lo = -kInf;
      hi = kInf;
    } else if (add && terms > 0 && !exact.Exact(s, t)) {
      const double e = AccumulationBound(
          t, RoundingSteps(t, terms, std::max<int64_t>(nonzero - 1, 0)), s,
          /*dot=*/false, nullptr, &partial);
      if (AddUp(s, e) > MaxFinite(FormatOf(t))) {
        fl |= kEnclNaN;  // some orders overflow an intermediate
        lo = -kInf;
        hi = kInf;
        AddReason(reasons, where + ": an intermediate may overflow");
      } else {
        lo = AddDown(lo, -e);
        hi = AddUp(hi, e);
        Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, t, lo, hi, fl);
      }
    }
  }
  // The accumulation bound of a dot / convolution / reduce producing `t`
  // with m rounding steps on S: gamma_m(u_a) (S + E_in) + E_in with the
  // declared input rounding, plus the flush term; E_out when the declared
  // accumulator is wider than t is covered by the final directed rounding.
  // `alg`: the instruction's declared dot algorithm (nullptr: none).
  // `partial`: the terms' partial-sum data (PartialSums), when the caller
  // collected it: where no input is rounded and no flush declared, the
  // smaller of the two bounds (both hold for every order) is taken.
  double AccumulationBound(PrimitiveType t, int64_t m, double s, bool dot,
                           const DotAlgorithmModel* alg = nullptr,
                           const PartialSums* partial = nullptr) const {
    const EnclosureDeviations& d = options_.deviations;
    double u_a = std::ldexp(1.0, -Precision(FormatOf(t)));
    if (dot && d.dot_accumulation_unit > u_a) u_a = d.dot_accumulation_unit;
    if (alg != nullptr && alg->accumulation_unit > u_a) {
      u_a = alg->accumulation_unit;
    }
    if (dot && d.truncating_accumulation) u_a *= 2;
    double u_w = dot ? d.dot_input_unit : 0;
    if (alg != nullptr) {
      u_w = std::max(u_w, alg->input_unit);
      m *= alg->products;
    }
    const double e_in = MulUp(AddUp(MulUp(2, u_w), MulUp(u_w, u_w)), s);
    double e = AddUp(MulUp(Gamma(m, u_a), AddUp(s, e_in)), e_in);
    if (partial != nullptr && u_w == 0 && d.ftz_types.count(t) == 0 &&
        (alg == nullptr || alg->products == 1)) {
      e = std::min(e, partial->Bound(u_a, dot ? s : 0));
    }
    if (d.ftz_types.count(t) > 0) {
      e = AddUp(e, MulUp(static_cast<double>(m + 1), MinNormal(FormatOf(t))));
    }
    return e;
  }
  // Widens [lo, hi] (the exact op's range) by the class of `inst`.
  void Widen(const EnclosureErrorClass& c, PrimitiveType t, double& lo,
             double& hi, uint8_t& flags) const;

  // The oracle's implementation-defined marks become don't-care elements
  // under the portable profile only: under the XLA profile the oracle's
  // value is XLA's choice, and required (numerics.md decision 1).
  const std::vector<EvaluatedOutput>* Marks(const EvalResult& r) const {
    return options_.oracle.profile == Profile::kPortable ? &r.outputs : nullptr;
  }

  EnclosureOptions options_;
  std::set<int64_t> paired_channels_;
  // Isolated modules by instruction and variant (0: its own types, 1:
  // element ids, 2: f64).
  std::map<std::pair<const HloInstruction*, int>, std::unique_ptr<HloModule>>
      isolated_;
};

void EnclosurePass::Widen(const EnclosureErrorClass& c, PrimitiveType t,
                          double& lo, double& hi, uint8_t& flags) const {
  if (!(flags & kEnclNumber)) return;
  const FloatFormat& f = FormatOf(t);
  switch (c.kind) {
    case EnclosureErrorKind::kExact:
    case EnclosureErrorKind::kNone:
      return;
    case EnclosureErrorKind::kRounded:
    case EnclosureErrorKind::kAccumulate:
    case EnclosureErrorKind::kReduce:
    case EnclosureErrorKind::kFft:
      lo = RoundDownTo(t, lo);
      hi = RoundUpTo(t, hi);
      break;
    case EnclosureErrorKind::kUlp: {
      if (lo == hi && std::isinf(lo)) return;  // f(inf) exact by Annex F
      const double m = std::max(std::fabs(lo), std::fabs(hi));
      double w = MulUp(c.ulps, UlpOf(f, m));
      // Subnormal results: one min-normal of slack (7.3, as the comparator).
      if (lo < MinNormal(f) && hi > -MinNormal(f)) {
        w = std::max(w, MinNormal(f));
      }
      lo = AddDown(lo, -w);
      hi = AddUp(hi, w);
      if (hi > MaxFinite(f)) hi = kInf;
      if (lo < -MaxFinite(f)) lo = -kInf;
      break;
    }
  }
  // Overflow into a type without infinities gives NaN (XLA's convert).
  if (!f.has_infinity && (std::isinf(lo) || std::isinf(hi))) flags |= kEnclNaN;
}

absl::StatusOr<ValueEnclosure> EnclosurePass::Computation(
    const HloComputation& comp, std::vector<const ValueEnclosure*> args,
    std::vector<ValueEnclosure>* owned_args) {
  std::map<const HloInstruction*, ValueEnclosure> values;
  // Each value is dropped after its last reader (the root is kept).
  std::map<const HloInstruction*, const HloInstruction*> last_reader;
  for (const auto& owned : comp.instructions()) {
    for (const HloInstruction* o : owned->operands()) {
      last_reader[o] = owned.get();
    }
  }
  // What this invocation's paired sends sent, by channel.
  std::map<int64_t, ValueEnclosure> sent;
  for (const auto& owned : comp.instructions()) {
    const HloInstruction& inst = *owned;
    if (inst.opcode() == HloOpcode::kParameter) {
      const int64_t n = inst.parameter_number();
      if (n < 0 || n >= static_cast<int64_t>(args.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("enclosure: ", inst.ShortDescription(),
                         ": no argument for parameter ", n));
      }
      if (owned_args != nullptr &&
          n < static_cast<int64_t>(owned_args->size()) &&
          &(*owned_args)[static_cast<size_t>(n)] == args[n]) {
        // Taken over: an argument of two parameters is not possible (one
        // argument per parameter number).
        values[&inst] = std::move((*owned_args)[static_cast<size_t>(n)]);
      } else {
        values[&inst] = *args[n];
      }
      AdoptShape(values[&inst], inst.shape());
      if (!options_.deviations.ftz_types.empty()) {
        ApplyFtz(values[&inst], options_.deviations.ftz_types);
      }
      continue;
    }
    std::vector<const ValueEnclosure*> ops;
    for (const HloInstruction* o : inst.operands()) {
      auto it = values.find(o);
      if (it == values.end()) {
        return absl::InternalError(
            absl::StrCat("enclosure: ", inst.ShortDescription(), ": operand ",
                         o->name(), " not evaluated before its user"));
      }
      ops.push_back(&it->second);
    }
    const bool device_channel =
        (inst.opcode() == HloOpcode::kSend ||
         inst.opcode() == HloOpcode::kRecvDone) &&
        !inst.attrs().is_host_transfer &&
        paired_channels_.count(inst.attrs().channel_id) > 0;
    ValueEnclosure v;
    if (device_channel && inst.opcode() == HloOpcode::kRecvDone &&
        sent.count(inst.attrs().channel_id) > 0 && inst.shape().IsTuple() &&
        inst.shape().tuple_size() == 2) {
      // (data received, token): the paired send's operand, unchanged.
      v.shape = inst.shape();
      v.tuple.push_back(std::move(sent[inst.attrs().channel_id]));
      sent.erase(inst.attrs().channel_id);
      HLOREF_ASSIGN_OR_RETURN(ValueEnclosure token,
                              ZeroValue(inst.shape().tuple_shapes(1)));
      v.tuple.push_back(std::move(token));
    } else {
      HLOREF_ASSIGN_OR_RETURN(v, Instruction(inst, ops));
      if (device_channel && inst.opcode() == HloOpcode::kSend && !ops.empty()) {
        sent[inst.attrs().channel_id] = *ops[0];
      }
    }
    AdoptShape(v, inst.shape());
    if (!options_.deviations.ftz_types.empty()) {
      ApplyFtz(v, options_.deviations.ftz_types);
    }
    values[&inst] = std::move(v);
    for (const HloInstruction* o : inst.operands()) {
      if (o != comp.root() && last_reader[o] == &inst) values.erase(o);
    }
  }
  auto it = values.find(comp.root());
  if (it == values.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("enclosure: computation ", comp.name(), " has no root"));
  }
  return std::move(it->second);
}

void EnclosurePass::FindPairedChannels(const HloModule& module) {
  std::map<int64_t, std::vector<const HloComputation*>> sends, receives;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (inst->attrs().is_host_transfer) continue;
      if (inst->opcode() == HloOpcode::kSend) {
        sends[inst->attrs().channel_id].push_back(comp.get());
      } else if (inst->opcode() == HloOpcode::kRecvDone) {
        receives[inst->attrs().channel_id].push_back(comp.get());
      }
    }
  }
  for (const auto& [channel, in] : sends) {
    auto r = receives.find(channel);
    if (in.size() == 1 && r != receives.end() && r->second.size() == 1 &&
        r->second[0] == in[0]) {
      paired_channels_.insert(channel);
    }
  }
}

absl::StatusOr<ValueEnclosure> EnclosurePass::Instruction(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  switch (inst.opcode()) {
    case HloOpcode::kConstant: {
      if (inst.literal().is_elided()) {
        return Flagged(inst.shape(), kEnclNoRule,
                       "elided constant " + inst.name());
      }
      size_t next = 0;
      return ValueFromLiteral(inst.literal(), nullptr, &next);
    }
    case HloOpcode::kTuple: {
      ValueEnclosure v;
      v.shape = inst.shape();
      for (const ValueEnclosure* o : ops) v.tuple.push_back(*o);
      return v;
    }
    case HloOpcode::kGetTupleElement: {
      const int64_t i = inst.attrs().index;
      if (i < 0 || i >= static_cast<int64_t>(ops[0]->tuple.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "enclosure: ", inst.ShortDescription(), ": bad tuple index"));
      }
      return ops[0]->tuple[i];
    }
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
      return *ops[0];
    case HloOpcode::kCopy:
      if (inst.shape().IsTuple()) return *ops[0];  // a copy of a tuple
      return Op(inst, ops);
    case HloOpcode::kCall:
    case HloOpcode::kFusion: {
      const HloComputation* callee = inst.called_computations().empty()
                                         ? nullptr
                                         : inst.called_computations()[0];
      if (callee == nullptr) break;
      return Computation(*callee, ops);
    }
    case HloOpcode::kWhile:
      return While(inst, *ops[0]);
    case HloOpcode::kConditional:
      return Conditional(inst, ops);
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone: {
      HLOREF_ASSIGN_OR_RETURN(std::optional<ValueEnclosure> v,
                              Async(inst, ops));
      if (v) return std::move(*v);
      break;
    }
    case HloOpcode::kCustomCall:
      if (IsAnnotationCustomCall(inst) && ops.size() == 1 &&
          ops[0]->shape.Compatible(inst.shape())) {
        return *ops[0];
      }
      break;
    default:
      return Op(inst, ops);
  }
  return Flagged(inst.shape(), kEnclNoRule,
                 absl::StrCat("op ", OpName(inst), " has no enclosure rule"));
}

// The value of an opaque context element (the async and copy starts'
// trailing tuple elements): zeros, as the oracle gives them; nothing
// reads them but the matching update / done.
absl::StatusOr<ValueEnclosure> ZeroValue(const Shape& shape) {
  ValueEnclosure v;
  v.shape = shape;
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      HLOREF_ASSIGN_OR_RETURN(ValueEnclosure e, ZeroValue(s));
      v.tuple.push_back(std::move(e));
    }
  } else if (shape.IsArray()) {
    v.array = NewArray(shape);
  }
  return v;
}

// The kAsync family (text-format 6.13, interpreter/ops/async.cc): the
// start applies the wrapped computation to its operands, its value is
// ((operands...), result, context...); update passes it on; done takes the
// result. copy-start is (destination, source, context), a copy in both.
// The enclosures follow the same layout, the wrapped computation's
// enclosure standing for its result. nullopt for a start without the
// shape it needs (the verifier refuses those).
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::Async(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const Shape& shape = inst.shape();
  switch (inst.opcode()) {
    case HloOpcode::kAsyncStart:
    case HloOpcode::kCopyStart: {
      const bool copy = inst.opcode() == HloOpcode::kCopyStart;
      if (!shape.IsTuple() || shape.tuple_size() < 2 ||
          (copy ? ops.size() != 1 : inst.to_apply() == nullptr)) {
        return std::nullopt;
      }
      ValueEnclosure v;
      v.shape = shape;
      if (copy) {
        v.tuple.push_back(*ops[0]);
        v.tuple.push_back(*ops[0]);
      } else {
        ValueEnclosure operands;
        operands.shape = shape.tuple_shapes(0);
        for (const ValueEnclosure* o : ops) operands.tuple.push_back(*o);
        v.tuple.push_back(std::move(operands));
        HLOREF_ASSIGN_OR_RETURN(ValueEnclosure result,
                                Computation(*inst.to_apply(), ops));
        v.tuple.push_back(std::move(result));
      }
      for (int64_t i = 2; i < shape.tuple_size(); ++i) {
        HLOREF_ASSIGN_OR_RETURN(ValueEnclosure context,
                                ZeroValue(shape.tuple_shapes(i)));
        v.tuple.push_back(std::move(context));
      }
      return std::optional<ValueEnclosure>(std::move(v));
    }
    case HloOpcode::kAsyncUpdate:
      if (ops.size() != 1) return std::nullopt;
      return std::optional<ValueEnclosure>(*ops[0]);
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCopyDone: {
      const size_t i = inst.opcode() == HloOpcode::kAsyncDone ? 1 : 0;
      if (ops.size() != 1 || ops[0]->tuple.size() <= i) return std::nullopt;
      return std::optional<ValueEnclosure>(ops[0]->tuple[i]);
    }
    default:
      return std::nullopt;
  }
}

absl::StatusOr<ValueEnclosure> EnclosurePass::While(
    const HloInstruction& inst, const ValueEnclosure& init) {
  ValueEnclosure state = init;
  for (int64_t iter = 0; iter < options_.max_while_iterations; ++iter) {
    HLOREF_ASSIGN_OR_RETURN(ValueEnclosure cond,
                            Computation(*inst.while_condition(), {&state}));
    if (!cond.shape.IsArray() || cond.array.size() != 1 ||
        cond.array.flags[0] != kEnclNumber) {
      FlagAll(state, kEnclUndecided,
              absl::StrCat("while ", inst.name(),
                           ": condition undecided at iteration ", iter));
      return state;
    }
    if (cond.array.ints[0] == 0) return state;
    HLOREF_ASSIGN_OR_RETURN(state, Computation(*inst.while_body(), {&state}));
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("enclosure: ", inst.ShortDescription(), ": more than ",
                   options_.max_while_iterations, " iterations"));
}

absl::StatusOr<ValueEnclosure> EnclosurePass::Conditional(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  absl::Span<HloComputation* const> branches = inst.branch_computations();
  const ArrayEnclosure& sel = ops[0]->array;
  const int64_t n = static_cast<int64_t>(branches.size());
  if (sel.size() == 1 && sel.flags[0] == kEnclNumber) {
    int64_t b;
    if (sel.shape.element_type() == PrimitiveType::kPred) {
      b = sel.ints[0] != 0 ? 0 : 1;
    } else {
      b = sel.ints[0];
      if (b < 0 || b >= n) b = n - 1;  // out of range: the last branch
    }
    return Computation(*branches[b], {ops[b + 1]});
  }
  // Undecided branch: the union of every branch's enclosure.
  std::optional<ValueEnclosure> u;
  for (int64_t b = 0; b < n; ++b) {
    HLOREF_ASSIGN_OR_RETURN(ValueEnclosure v,
                            Computation(*branches[b], {ops[b + 1]}));
    if (!u) {
      u = std::move(v);
    } else {
      UnionInto(*u, v);
    }
  }
  if (u->shape.IsArray()) MergeReasons(u->array.reasons, sel.reasons);
  return std::move(*u);
}

absl::StatusOr<std::vector<double>> EnclosurePass::RunIsolatedF64(
    const HloInstruction& inst, const Shape& a_shape,
    const std::vector<double>& a, const Shape& b_shape,
    const std::vector<double>& b, const Shape& result_shape,
    const std::vector<Literal>& fixed, EvaluatedOutput* marks) {
  std::vector<Literal> args;
  HLOREF_ASSIGN_OR_RETURN(Literal la, StoreDoubles(a_shape, a));
  HLOREF_ASSIGN_OR_RETURN(Literal lb, StoreDoubles(b_shape, b));
  args.push_back(std::move(la));
  args.push_back(std::move(lb));
  for (const Literal& f : fixed) args.push_back(f);
  HLOREF_ASSIGN_OR_RETURN(EvalResult r,
                          RunIsolated(inst, args, result_shape, /*variant=*/2));
  if (marks != nullptr && !r.outputs.empty()) {
    marks->dont_care = std::move(r.outputs[0].dont_care);
    marks->impl_ids = std::move(r.outputs[0].impl_ids);
  }
  return LoadDoubles(r.value);
}

absl::StatusOr<EvalResult> EnclosurePass::RunIsolated(
    const HloInstruction& inst, const std::vector<Literal>& args,
    const Shape& result_shape, int variant) {
  auto key = std::make_pair(&inst, variant);
  auto it = isolated_.find(key);
  if (it == isolated_.end()) {
    auto module = std::make_unique<HloModule>("enclosure_" + inst.name());
    auto comp = std::make_unique<HloComputation>("main");
    std::vector<HloInstruction*> params;
    for (size_t i = 0; i < args.size(); ++i) {
      auto p = std::make_unique<HloInstruction>(
          HloOpcode::kParameter, args[i].shape(), absl::StrCat("p", i));
      p->set_parameter_number(static_cast<int64_t>(i));
      params.push_back(comp->AddInstruction(std::move(p)));
    }
    auto c = std::make_unique<HloInstruction>(inst.opcode(), result_shape,
                                              inst.name());
    *c->mutable_attrs() = inst.attrs();
    c->mutable_attrs()->control_predecessors.clear();
    *c->mutable_called_computations() = inst.called_computations();
    // The f64 variant of a reduction gets an f64 copy of its simple
    // reducer (the oracle recognises reducers of the element type only).
    std::optional<HloOpcode> reducer = SimpleReducer(inst.to_apply());
    if (!reducer && IsMultiplyReducer(inst.to_apply())) {
      reducer = HloOpcode::kMultiply;
    }
    if (variant == 2 && reducer.has_value()) {
      auto r = std::make_unique<HloComputation>("reducer_f64");
      const Shape scalar = Shape::Scalar(PrimitiveType::kF64);
      HloInstruction* a = r->AddInstruction(
          std::make_unique<HloInstruction>(HloOpcode::kParameter, scalar, "a"));
      a->set_parameter_number(0);
      HloInstruction* b = r->AddInstruction(
          std::make_unique<HloInstruction>(HloOpcode::kParameter, scalar, "b"));
      b->set_parameter_number(1);
      auto op = std::make_unique<HloInstruction>(*reducer, scalar, "r");
      op->AppendOperand(a);
      op->AppendOperand(b);
      r->set_root(r->AddInstruction(std::move(op)));
      r->FinalizeParameters();
      HloComputation* added = module->AddComputation(std::move(r));
      *c->mutable_called_computations() = {added};
    }
    if (inst.opcode() == HloOpcode::kConstant) {
      *c->mutable_literal() = inst.literal();
    }
    for (HloInstruction* p : params) c->AppendOperand(p);
    HloInstruction* root = comp->AddInstruction(std::move(c));
    comp->set_root(root);
    comp->FinalizeParameters();
    comp->set_is_entry(true);
    HloComputation* entry = module->AddComputation(std::move(comp));
    module->set_entry(entry);
    it = isolated_.emplace(key, std::move(module)).first;
  }
  Evaluator oracle(options_.oracle);
  return oracle.Run(*it->second, args);
}

absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::DataMovement(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const HloOpcode op = inst.opcode();
  if (!inst.shape().IsArray()) return std::nullopt;
  std::vector<Literal> args;
  std::vector<const ArrayEnclosure*> sources;  // data operands, id order
  std::vector<int64_t> first_id;
  int64_t next_id = 1;
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!ops[k]->shape.IsArray()) return std::nullopt;
    const ArrayEnclosure& a = ops[k]->array;
    if (IsDataOperand(op, static_cast<int64_t>(k))) {
      if (a.shape.element_type() != inst.shape().element_type()) {
        return std::nullopt;  // a type-changing bitcast
      }
      Shape s = a.shape;
      s.set_element_type(PrimitiveType::kS64);
      Literal ids(s);
      absl::Span<int64_t> d = ids.mutable_data<int64_t>();
      for (int64_t i = 0; i < a.size(); ++i) d[i] = next_id + i;
      first_id.push_back(next_id);
      sources.push_back(&a);
      next_id += a.size();
      args.push_back(std::move(ids));
    } else {
      // An index operand: must be decided.
      for (uint8_t fl : a.flags) {
        if (fl != kEnclNumber) {
          ValueEnclosure v =
              Flagged(inst.shape(), kEnclUndecided,
                      absl::StrCat(OpName(inst), " ", inst.name(),
                                   ": index operand ", k, " undecided"));
          MergeReasons(v.array.reasons, a.reasons);
          return std::optional<ValueEnclosure>(std::move(v));
        }
      }
      std::optional<Literal> lit = PointLiteral(a);
      if (!lit) return std::nullopt;
      args.push_back(std::move(*lit));
    }
  }
  Shape result = inst.shape();
  result.set_element_type(PrimitiveType::kS64);
  HLOREF_ASSIGN_OR_RETURN(EvalResult r,
                          RunIsolated(inst, args, result, /*variant=*/1));
  absl::Span<const int64_t> got = r.value.data<int64_t>();
  const Literal* dont_care =
      Marks(r) == nullptr || r.outputs.empty() || !r.outputs[0].dont_care
          ? nullptr
          : &*r.outputs[0].dont_care;
  ArrayEnclosure& o = out.array;
  for (const ArrayEnclosure* s : sources) MergeReasons(o.reasons, s->reasons);
  for (int64_t j = 0; j < o.size(); ++j) {
    const int64_t id = got[j];
    size_t k = 0;
    while (k + 1 < sources.size() && id >= first_id[k + 1]) ++k;
    const int64_t i = sources.empty() ? -1 : id - first_id[k];
    if (i < 0 || i >= sources[k]->size()) {
      o.flags[j] = kEnclNoRule;
      if (o.is_float || o.is_complex) {
        o.lo[j] = -kInf;
        o.hi[j] = kInf;
      }
      if (o.is_complex) {
        o.ilo[j] = -kInf;
        o.ihi[j] = kInf;
      }
      AddReason(o.reasons, absl::StrCat(OpName(inst), " ", inst.name(),
                                        ": element with no source"));
      continue;
    }
    const ArrayEnclosure& s = *sources[k];
    o.flags[j] = s.flags[i];
    if (o.is_float || o.is_complex) {
      o.lo[j] = s.lo[i];
      o.hi[j] = s.hi[i];
    } else {
      o.ints[j] = s.ints[i];
    }
    if (o.is_complex) {
      o.ilo[j] = s.ilo[i];
      o.ihi[j] = s.ihi[i];
    }
    if (dont_care != nullptr && dont_care->GetAsInt64(j) != 0) {
      o.flags[j] |= kEnclDontCare;
    }
  }
  if (dont_care != nullptr) {
    for (const std::string& id : r.outputs[0].impl_ids) {
      AddReason(o.reasons, absl::StrCat("implementation-defined (", id, ")"));
    }
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// Compare of two float enclosure elements: 1 true, 0 false, -1 undecided.
int DecideCompare(ComparisonDirection dir, bool total_order, double alo,
                  double ahi, uint8_t af, double blo, double bhi, uint8_t bf) {
  const bool a_num = af & kEnclNumber, b_num = bf & kEnclNumber;
  const bool a_nan = af & kEnclNaN, b_nan = bf & kEnclNaN;
  if ((a_nan && a_num) || (b_nan && b_num)) return -1;
  if (a_nan || b_nan) {
    if (total_order) return -1;
    return dir == ComparisonDirection::kNe ? 1 : 0;
  }
  const bool lt = ahi<blo, gt = alo> bhi;
  const bool point_eq = alo == ahi && blo == bhi && alo == blo;
  // Under TOTALORDER -0 < +0: equality of zeros is undecided.
  const bool eq = point_eq && !(total_order && alo == 0);
  const bool le = ahi <= blo && !(total_order && ahi == 0 && blo == 0);
  const bool ge = alo >= bhi && !(total_order && alo == 0 && bhi == 0);
  switch (dir) {
    case ComparisonDirection::kEq:
      return eq ? 1 : (lt || gt) ? 0 : -1;
    case ComparisonDirection::kNe:
      return eq ? 0 : (lt || gt) ? 1 : -1;
    case ComparisonDirection::kLt:
      return lt ? 1 : ge ? 0 : -1;
    case ComparisonDirection::kLe:
      return le ? 1 : gt ? 0 : -1;
    case ComparisonDirection::kGt:
      return gt ? 1 : le ? 0 : -1;
    case ComparisonDirection::kGe:
      return ge ? 1 : lt ? 0 : -1;
  }
  return -1;
}

// Element-wise ops with complex operands or results (numerics.md
// "Complex ops"); each element is a box [re] x [im]:
//   add, subtract: each part is one float add / subtract, correctly rounded
//     (the comparator's class R, part by part): the exact box's ends are
//     rounded outward into the component type;
//   negate, real, imag, complex: exact, part by part;
//   convert: float -> complex (the real part, imaginary 0) and complex ->
//     complex, class R part by part;
//   multiply, judged normwise (|v - y| <= k u |y| plus a min-normal floor,
//     k the op's complex_k; textbook multiplication has no componentwise
//     bound when a part cancels): the exact product's box (re = ac - bd,
//     im = ad + bc over the operand boxes, outward-rounded interval
//     arithmetic) widened in each part by k u (max|re| + max|im|) +
//     min_normal (max|re| + max|im| bounds |y| over the box, and a
//     normwise error bounds each part's), then rounded outward into the
//     component type.
// Elements with a non-finite part, a float operand that may be NaN, or a
// result past max are undecided (complex infinities and NaNs are not
// tracked). Other ops (divide, the functions, compare of intervals): no
// rule.
// Complex functions of class U (exp, log, sqrt, sin, tan, tanh, sinh,
// power, ...) on exact operands: the oracle's value y, widened to the box
// around the disc the comparator accepts, |v - y| <= k u |y| + min_normal
// + (ulp(re y) + ulp(im y)) / 2 (conformance/compare/ulp.cc,
// JudgeComplexNormwise), each bound rounded up. A y with an infinite part
// is a point (the comparator wants it exactly); a NaN part is undecided
// (ArrayFromLiteral). Real results of complex operands (abs): the real
// class's widening of the oracle's value. Operands that are not points (a
// rounded value before): no rule, as there are no complex interval
// versions of these functions here.
absl::StatusOr<std::optional<ValueEnclosure>>
EnclosurePass::ComplexFunctionOnPoints(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (!inst.shape().IsArray()) return std::nullopt;
  const EnclosureErrorClass cls = ClassOf(inst);
  if (cls.kind != EnclosureErrorKind::kUlp) return std::nullopt;
  bool any_complex = IsComplex(inst.shape().element_type());
  std::vector<Literal> args;
  for (const ValueEnclosure* o : ops) {
    if (!o->shape.IsArray()) return std::nullopt;
    any_complex |= o->array.is_complex;
    std::optional<Literal> l = PointValue(*o);
    if (!l) return std::nullopt;
    args.push_back(std::move(*l));
  }
  if (!any_complex) return std::nullopt;
  const PrimitiveType t = inst.shape().element_type();
  const bool complex_result = IsComplex(t);
  if (complex_result && cls.complex_k <= 0) return std::nullopt;
  const PrimitiveType part = complex_result ? ComplexComponentType(t) : t;
  if (!IsFloat(part) || !SupportedFloat(part)) return std::nullopt;
  HLOREF_ASSIGN_OR_RETURN(EvalResult r, RunIsolated(inst, args, inst.shape(),
                                                    /*variant=*/0));
  size_t next = 0;
  HLOREF_ASSIGN_OR_RETURN(ValueEnclosure v,
                          ValueFromLiteral(r.value, Marks(r), &next));
  ArrayEnclosure& a = v.array;
  const FloatFormat& f = FormatOf(part);
  const double u = std::ldexp(1.0, -Precision(f));
  for (int64_t i = 0; i < a.size(); ++i) {
    if (!complex_result) {
      Widen(cls, part, a.lo[i], a.hi[i], a.flags[i]);
      continue;
    }
    if (a.flags[i] != kEnclNumber) continue;  // NaN parts, marks
    const double re = a.lo[i], im = a.ilo[i];
    if (!std::isfinite(re) || !std::isfinite(im)) continue;  // a point
    // |y| rounded up: hypot is within an ulp; one more double ulp covers it.
    const double abs_y = Up(Up(std::hypot(re, im)));
    double w = MulUp(MulUp(cls.complex_k, u), abs_y);
    w = AddUp(w, MinNormal(f));
    w = AddUp(w, MulUp(0.5, AddUp(UlpOf(f, re), UlpOf(f, im))));
    a.lo[i] = AddDown(re, -w);
    a.hi[i] = AddUp(re, w);
    a.ilo[i] = AddDown(im, -w);
    a.ihi[i] = AddUp(im, w);
  }
  return v;
}

std::optional<ValueEnclosure> EnclosurePass::ComplexElementwise(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const HloOpcode op = inst.opcode();
  if (!inst.shape().IsArray()) return std::nullopt;
  bool any_complex = IsComplex(inst.shape().element_type());
  for (const ValueEnclosure* x : ops) {
    if (!x->shape.IsArray()) return std::nullopt;
    any_complex |= x->array.is_complex;
  }
  if (!any_complex) return std::nullopt;
  const EnclosureErrorClass cls = ClassOf(inst);
  bool rounded = false;
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kConvert:
      if (cls.kind != EnclosureErrorKind::kRounded &&
          cls.kind != EnclosureErrorKind::kExact) {
        return std::nullopt;
      }
      rounded = cls.kind == EnclosureErrorKind::kRounded;
      break;
    case HloOpcode::kNegate:
    case HloOpcode::kReal:
    case HloOpcode::kImag:
    case HloOpcode::kComplex:
      if (cls.kind != EnclosureErrorKind::kExact) return std::nullopt;
      break;
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
      if (cls.complex_k <= 0) return std::nullopt;
      break;
    default:
      return std::nullopt;
  }
  const PrimitiveType t = inst.shape().element_type();
  for (const ValueEnclosure* x : ops) {
    const ArrayEnclosure& a = x->array;
    if (!a.is_complex && !a.is_float) return std::nullopt;
  }
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  if (!o.is_complex && !o.is_float) return std::nullopt;
  if (op == HloOpcode::kConvert && !o.is_complex) return std::nullopt;
  const PrimitiveType part = o.is_complex ? ComplexComponentType(t) : t;
  if (!SupportedFloat(part)) return std::nullopt;
  const FloatFormat& f = FormatOf(part);
  const double u = std::ldexp(1.0, -Precision(f));
  const int64_t n = o.size();
  for (const ValueEnclosure* x : ops) MergeReasons(o.reasons, x->array.reasons);
  const std::string where = absl::StrCat(OpName(inst), " ", inst.name());
  struct Box {
    Iv re, im;
  };
  auto finite = [](Iv v) { return std::isfinite(v.lo) && std::isfinite(v.hi); };
  std::vector<Box> in(ops.size());
  for (int64_t i = 0; i < n; ++i) {
    uint8_t inherited = 0;
    bool untracked = false;
    for (size_t k = 0; k < ops.size(); ++k) {
      const ArrayEnclosure& a = ops[k]->array;
      const int64_t j = a.size() == 1 ? 0 : i;
      inherited |= a.flags[j] & kUnjudgedFlags;
      untracked |= a.flags[j] != kEnclNumber;
      in[k].re = Iv{a.lo[j], a.hi[j]};
      in[k].im = a.is_complex ? Iv{a.ilo[j], a.ihi[j]} : Iv{0, 0};
      untracked |= !finite(in[k].re) || !finite(in[k].im);
    }
    Box r{{0, 0}, {0, 0}};
    if (!untracked) {
      const Box& a = in[0];
      const Box& b = in.size() > 1 ? in[1] : in[0];
      // Multiply and divide: the normwise class, k u (max|re| + max|im|)
      // plus one min-normal on each side of both parts.
      auto widen_normwise = [&] {
        const double w = AddUp(
            MulUp(MulUp(cls.complex_k, u),
                  AddUp(MaxAbs(r.re.lo, r.re.hi), MaxAbs(r.im.lo, r.im.hi))),
            MinNormal(f));
        r.re = {AddDown(r.re.lo, -w), AddUp(r.re.hi, w)};
        r.im = {AddDown(r.im.lo, -w), AddUp(r.im.hi, w)};
        rounded = true;
      };
      switch (op) {
        case HloOpcode::kAdd:
          r.re = {AddDown(a.re.lo, b.re.lo), AddUp(a.re.hi, b.re.hi)};
          r.im = {AddDown(a.im.lo, b.im.lo), AddUp(a.im.hi, b.im.hi)};
          break;
        case HloOpcode::kSubtract:
          r.re = {AddDown(a.re.lo, -b.re.hi), AddUp(a.re.hi, -b.re.lo)};
          r.im = {AddDown(a.im.lo, -b.im.hi), AddUp(a.im.hi, -b.im.lo)};
          break;
        case HloOpcode::kNegate:
          r.re = {-a.re.hi, -a.re.lo};
          r.im = {-a.im.hi, -a.im.lo};
          break;
        case HloOpcode::kReal:
          r.re = a.re;
          break;
        case HloOpcode::kImag:
          r.re = a.im;
          break;
        case HloOpcode::kComplex:
          r.re = a.re;
          r.im = b.re;
          break;
        case HloOpcode::kConvert:
          r = a;
          break;
        case HloOpcode::kDivide: {
          // The exact quotient a conj(b) / |b|^2 over the boxes:
          // re = (ar br + ai bi) / |b|^2, im = (ai br - ar bi) / |b|^2,
          // each sub-expression an outward-rounded interval, so every
          // point pair of the boxes has its quotient inside. A divisor box
          // that may hold 0 (|b|^2's lower end not above 0, which also
          // catches an underflowing |b|^2): undecided.
          const Iv ac = IvMul(a.re, b.re), bd = IvMul(a.im, b.im);
          const Iv bc = IvMul(a.im, b.re), ad = IvMul(a.re, b.im);
          const Iv nr{AddDown(ac.lo, bd.lo), AddUp(ac.hi, bd.hi)};
          const Iv ni{AddDown(bc.lo, -ad.hi), AddUp(bc.hi, -ad.lo)};
          auto sq = [](Iv v) {
            const Iv p = IvMul(v, v);
            return v.lo <= 0 && v.hi >= 0 ? Iv{0, p.hi} : p;
          };
          const Iv br2 = sq(b.re), bi2 = sq(b.im);
          const Iv d{AddDown(br2.lo, bi2.lo), AddUp(br2.hi, bi2.hi)};
          if (!(d.lo > 0) || !std::isfinite(d.hi)) {
            untracked = true;
            break;
          }
          auto div = [&](Iv n) {  // n / d with d > 0
            return Iv{std::min(DivDown(n.lo, d.lo), DivDown(n.lo, d.hi)),
                      std::max(DivUp(n.hi, d.lo), DivUp(n.hi, d.hi))};
          };
          r.re = div(nr);
          r.im = div(ni);
          widen_normwise();
          break;
        }
        default: {  // multiply
          const Iv ac = IvMul(a.re, b.re), bd = IvMul(a.im, b.im);
          const Iv ad = IvMul(a.re, b.im), bc = IvMul(a.im, b.re);
          r.re = {AddDown(ac.lo, -bd.hi), AddUp(ac.hi, -bd.lo)};
          r.im = {AddDown(ad.lo, bc.lo), AddUp(ad.hi, bc.hi)};
          widen_normwise();
          break;
        }
      }
      if (untracked) {
        // (divide: a divisor box that may hold 0)
      } else if (rounded) {
        r.re = {RoundDownTo(part, r.re.lo), RoundUpTo(part, r.re.hi)};
        r.im = {RoundDownTo(part, r.im.lo), RoundUpTo(part, r.im.hi)};
      }
      untracked = untracked || !finite(r.re) || !finite(r.im) ||
                  MaxAbs(r.re.lo, r.re.hi) > MaxFinite(f) ||
                  MaxAbs(r.im.lo, r.im.hi) > MaxFinite(f);
    }
    if (untracked) {
      o.flags[i] = inherited != 0 ? inherited : uint8_t{kEnclUndecided};
      o.lo[i] = -kInf;
      o.hi[i] = kInf;
      if (o.is_complex) {
        o.ilo[i] = -kInf;
        o.ihi[i] = kInf;
      }
      if (inherited == 0) {
        AddReason(o.reasons,
                  where + ": a complex part may be non-finite (not tracked)");
      }
      continue;
    }
    o.lo[i] = r.re.lo;
    o.hi[i] = r.re.hi;
    if (o.is_complex) {
      o.ilo[i] = r.im.lo;
      o.ihi[i] = r.im.hi;
    }
  }
  return out;
}

std::optional<ValueEnclosure> EnclosurePass::FloatElementwise(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const HloOpcode op = inst.opcode();
  if (!inst.shape().IsArray()) return std::nullopt;
  for (const ValueEnclosure* o : ops) {
    if (!o->shape.IsArray()) return std::nullopt;
  }
  const PrimitiveType t = inst.shape().element_type();
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  const int64_t n = o.size();
  for (const ValueEnclosure* x : ops) MergeReasons(o.reasons, x->array.reasons);
  // Operand element i of operand k (scalars broadcast: select, clamp).
  auto at = [&](int k, int64_t i) { return ops[k]->array.size() == 1 ? 0 : i; };
  const std::string where = absl::StrCat(OpName(inst), " ", inst.name());
  const EnclosureErrorClass cls = ClassOf(inst);

  if (op == HloOpcode::kSelect) {
    const ArrayEnclosure& p = ops[0]->array;
    const ArrayEnclosure& a = ops[1]->array;
    const ArrayEnclosure& b = ops[2]->array;
    if (a.is_float != o.is_float || a.is_complex != o.is_complex) {
      return std::nullopt;
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t pi = at(0, i);
      const bool decided = p.flags[pi] == kEnclNumber;
      const ArrayEnclosure* pick[2] = {&a, &b};
      const int first = decided ? (p.ints[pi] != 0 ? 0 : 1) : 0;
      const ArrayEnclosure& s = *pick[first];
      o.flags[i] = s.flags[i];
      if (o.is_float || o.is_complex) {
        o.lo[i] = s.lo[i];
        o.hi[i] = s.hi[i];
      } else {
        o.ints[i] = s.ints[i];
      }
      if (o.is_complex) {
        o.ilo[i] = s.ilo[i];
        o.ihi[i] = s.ihi[i];
      }
      if (decided) continue;
      // Undecided predicate: either branch (the union).
      const ArrayEnclosure& u = b;
      if (o.is_float || o.is_complex) {
        const bool on = o.flags[i] & kEnclNumber, un = u.flags[i] & kEnclNumber;
        if (on && un) {
          o.lo[i] = std::min(o.lo[i], u.lo[i]);
          o.hi[i] = std::max(o.hi[i], u.hi[i]);
          if (o.is_complex) {
            o.ilo[i] = std::min(o.ilo[i], u.ilo[i]);
            o.ihi[i] = std::max(o.ihi[i], u.ihi[i]);
          }
        } else if (un) {
          o.lo[i] = u.lo[i];
          o.hi[i] = u.hi[i];
          if (o.is_complex) {
            o.ilo[i] = u.ilo[i];
            o.ihi[i] = u.ihi[i];
          }
        }
      } else if (o.ints[i] != u.ints[i]) {
        o.flags[i] |= kEnclUndecided;
      }
      o.flags[i] |= u.flags[i];
      o.flags[i] |= p.flags[pi] & kEnclDontCare;
    }
    return out;
  }

  // From here every floating operand must have a rule.
  for (const ValueEnclosure* x : ops) {
    const PrimitiveType ot = x->array.shape.element_type();
    if (IsFloat(ot) && !SupportedFloat(ot)) return std::nullopt;
    if (IsComplex(ot)) return std::nullopt;
  }
  if (IsComplex(t) || (IsFloat(t) && !SupportedFloat(t))) return std::nullopt;

  if (op == HloOpcode::kCompare) {
    const ArrayEnclosure& a = ops[0]->array;
    const ArrayEnclosure& b = ops[1]->array;
    if (!a.is_float) return std::nullopt;
    const bool total =
        inst.attrs().comparison_type == ComparisonType::kTotalOrder;
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t inherited = (a.flags[i] | b.flags[i]) & kUnjudgedFlags;
      if (inherited) {
        o.flags[i] = inherited;
        continue;
      }
      const int d =
          DecideCompare(inst.attrs().direction, total, a.lo[i], a.hi[i],
                        a.flags[i], b.lo[i], b.hi[i], b.flags[i]);
      if (d < 0) {
        o.flags[i] = kEnclUndecided;
        AddReason(o.reasons, where + ": operand enclosures overlap");
      } else {
        o.ints[i] = d;
      }
    }
    return out;
  }

  if (op == HloOpcode::kIsFinite) {
    const ArrayEnclosure& a = ops[0]->array;
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t fl = a.flags[i];
      if (fl & kUnjudgedFlags) {
        o.flags[i] = fl & kUnjudgedFlags;
        continue;
      }
      const bool num = fl & kEnclNumber, nan = fl & kEnclNaN;
      const bool finite =
          num && std::isfinite(a.lo[i]) && std::isfinite(a.hi[i]);
      const bool infinite = num && a.lo[i] == a.hi[i] && std::isinf(a.lo[i]);
      if (!nan && finite) {
        o.ints[i] = 1;
      } else if (!num || (infinite && !nan) || (nan && infinite)) {
        o.ints[i] = 0;
      } else {
        o.flags[i] = kEnclUndecided;
        AddReason(o.reasons, where + ": finiteness undecided");
      }
    }
    return out;
  }

  if (op == HloOpcode::kConvert) {
    const ArrayEnclosure& a = ops[0]->array;
    const PrimitiveType from = a.shape.element_type();
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t fl = a.flags[i];
      if (fl & kUnjudgedFlags) {
        o.flags[i] = fl;
        if (o.is_float) {
          o.lo[i] = -kInf;
          o.hi[i] = kInf;
        }
        continue;
      }
      if (o.is_float) {
        double lo, hi;
        if (a.is_float) {
          lo = a.lo[i];
          hi = a.hi[i];
        } else {
          const int64_t v = a.ints[i];
          const double d = from == PrimitiveType::kU64
                               ? static_cast<double>(static_cast<uint64_t>(v))
                               : static_cast<double>(v);
          const bool exact = std::fabs(d) <= 0x1p53;
          lo = exact ? d : Down(d);
          hi = exact ? d : Up(d);
        }
        uint8_t f = fl;
        // Narrowing (or int -> float) rounds; widening is exact and the
        // directed rounding into the wider type leaves it unchanged.
        Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, t, lo, hi, f);
        o.lo[i] = lo;
        o.hi[i] = hi;
        o.flags[i] = f;
        continue;
      }
      // float -> integer/pred: XLA truncates toward zero and saturates,
      // NaN -> 0 (numerics.md 3.2); decided when both ends agree.
      if (!a.is_float) return std::nullopt;
      if (fl & kEnclNaN && fl & kEnclNumber) {
        o.flags[i] = kEnclUndecided;
        AddReason(o.reasons, where + ": NaN or a number");
        continue;
      }
      if (!(fl & kEnclNumber)) {
        o.ints[i] = 0;
        continue;
      }
      if (t == PrimitiveType::kPred) {
        if (a.lo[i] > 0 || a.hi[i] < 0) {
          o.ints[i] = 1;
        } else if (a.lo[i] == 0 && a.hi[i] == 0) {
          o.ints[i] = 0;
        } else {
          o.flags[i] = kEnclUndecided;
          AddReason(o.reasons, where + ": zero test undecided");
        }
        continue;
      }
      const int w = IntWidth(t);
      const bool sgn = IsSignedInt(t);
      const double top = sgn ? std::ldexp(1.0, w - 1) : std::ldexp(1.0, w);
      const double bottom = sgn ? -std::ldexp(1.0, w - 1) : 0;
      auto conv = [&](double x) {
        const double tr = std::trunc(x);
        if (tr >= top) return top;  // saturated (marker)
        if (tr < bottom) return bottom;
        return tr;
      };
      const double lo = conv(a.lo[i]), hi = conv(a.hi[i]);
      if (lo != hi || lo >= top) {
        o.flags[i] = kEnclUndecided;
        AddReason(o.reasons, where + ": integer part undecided");
        continue;
      }
      o.ints[i] =
          WrapToWidth(static_cast<uint64_t>(static_cast<int64_t>(lo)), w, sgn);
    }
    return out;
  }

  if (!o.is_float) return std::nullopt;
  for (const ValueEnclosure* x : ops) {
    if (!x->array.is_float) return std::nullopt;
  }

  if (op == HloOpcode::kClamp) {
    const ArrayEnclosure& mn = ops[0]->array;
    const ArrayEnclosure& x = ops[1]->array;
    const ArrayEnclosure& mx = ops[2]->array;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t a = at(0, i), c = at(2, i);
      const uint8_t fl = mn.flags[a] | x.flags[i] | mx.flags[c];
      o.flags[i] = fl & ~kEnclNumber;
      const bool all_num =
          (mn.flags[a] & x.flags[i] & mx.flags[c]) & kEnclNumber;
      if (!all_num) {
        if (!(o.flags[i] & kEnclNaN)) o.flags[i] |= kEnclNaN;
        continue;
      }
      o.flags[i] |= kEnclNumber;
      o.lo[i] = std::min(std::max(x.lo[i], mn.lo[a]), mx.lo[c]);
      o.hi[i] = std::min(std::max(x.hi[i], mn.hi[a]), mx.hi[c]);
    }
    return out;
  }

  if (ops.size() == 1) {
    const ArrayEnclosure& a = ops[0]->array;
    std::optional<UnaryFn> fn = UnaryFnOf(op);
    const bool simple = op == HloOpcode::kNegate || op == HloOpcode::kAbs ||
                        op == HloOpcode::kFloor || op == HloOpcode::kCeil ||
                        op == HloOpcode::kRoundNearestAfz ||
                        op == HloOpcode::kRoundNearestEven ||
                        op == HloOpcode::kSign || op == HloOpcode::kCopy;
    if (!fn && !simple) return std::nullopt;
    if (a.shape.element_type() != t) return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      uint8_t fl = a.flags[i];
      double lo = a.lo[i], hi = a.hi[i];
      if (fl & kEnclNumber) {
        if (simple) {
          switch (op) {
            case HloOpcode::kNegate:
              std::tie(lo, hi) = std::make_pair(-hi, -lo);
              break;
            case HloOpcode::kAbs:
              if (lo >= 0) {
              } else if (hi <= 0) {
                std::tie(lo, hi) = std::make_pair(-hi, -lo);
              } else {
                hi = std::max(-lo, hi);
                lo = 0;
              }
              break;
            case HloOpcode::kFloor:
              lo = std::floor(lo);
              hi = std::floor(hi);
              break;
            case HloOpcode::kCeil:
              lo = std::ceil(lo);
              hi = std::ceil(hi);
              break;
            case HloOpcode::kRoundNearestAfz:
              lo = std::round(lo);
              hi = std::round(hi);
              break;
            case HloOpcode::kRoundNearestEven:
              lo = std::nearbyint(lo);
              hi = std::nearbyint(hi);
              break;
            case HloOpcode::kSign:
              lo = lo > 0 ? 1 : lo < 0 ? -1 : 0;
              hi = hi > 0 ? 1 : hi < 0 ? -1 : 0;
              break;
            default:
              break;
          }
        } else {
          // Outside the domain the result is NaN.
          if (hi < fn->dom_lo || lo > fn->dom_hi) {
            fl = (fl & ~kEnclNumber) | kEnclNaN;
          } else {
            if (lo < fn->dom_lo || hi > fn->dom_hi) fl |= kEnclNaN;
            const Iv r = ApplyUnaryFn(*fn, std::max(lo, fn->dom_lo),
                                      std::min(hi, fn->dom_hi));
            lo = r.lo;
            hi = r.hi;
          }
        }
      }
      Widen(cls, t, lo, hi, fl);
      o.lo[i] = lo;
      o.hi[i] = hi;
      o.flags[i] = fl;
    }
    return out;
  }

  if (ops.size() != 2) return std::nullopt;
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kPower:
    case HloOpcode::kAtan2:
    case HloOpcode::kRemainder:
      break;
    default:
      return std::nullopt;
  }
  const ArrayEnclosure& a = ops[0]->array;
  const ArrayEnclosure& b = ops[1]->array;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t af = a.flags[i], bf = b.flags[i];
    uint8_t fl = ((af | bf) & ~kEnclNumber);
    double lo = -kInf, hi = kInf;
    double xp, yp;
    if (op == HloOpcode::kAtan2 || op == HloOpcode::kRemainder) {
      uint8_t rf = fl;
      if ((af & bf) & kEnclNumber) {
        rf |= kEnclNumber;
        const Iv y{a.lo[i], a.hi[i]}, x{b.lo[i], b.hi[i]};
        const Iv r = op == HloOpcode::kAtan2 ? Atan2Range(y, x, &rf)
                                             : RemainderRange(y, x, &rf);
        lo = r.lo;
        hi = r.hi;
      } else {
        rf = (rf & ~kEnclNumber) | kEnclNaN;  // a NaN operand: NaN
      }
      Widen(cls, t, lo, hi, rf);
      o.lo[i] = lo;
      o.hi[i] = hi;
      o.flags[i] = rf;
      continue;
    }
    if (op == HloOpcode::kPower && PointOf(a, i, &xp) && PointOf(b, i, &yp)) {
      // Points, NaN included: pow's Annex F cases (pow(x, 0) = 1 and
      // pow(1, y) = 1 even for NaN) decide.
      const double r = PowRn(xp, yp);
      uint8_t pf = kEnclNumber;
      if (std::isnan(r)) {
        pf = kEnclNaN;
      } else if (std::isinf(r)) {
        lo = hi = r;
      } else {
        lo = Down(r);
        hi = Up(r);
      }
      Widen(cls, t, lo, hi, pf);
      o.lo[i] = lo;
      o.hi[i] = hi;
      o.flags[i] = pf;
      continue;
    }
    const bool minmax = op == HloOpcode::kMaximum || op == HloOpcode::kMinimum;
    if (minmax && options_.deviations.fast_min_max && ((af | bf) & kEnclNaN) &&
        ((af | bf) & kEnclNumber)) {
      // A NaN operand may be dropped: the other operand's value (or the
      // result) is possible too; the hull of both numeric parts holds it.
      fl |= kEnclNumber;
      lo = kInf;
      hi = -kInf;
      for (const ArrayEnclosure* x : {&a, &b}) {
        if (x->flags[i] & kEnclNumber) {
          lo = std::min(lo, x->lo[i]);
          hi = std::max(hi, x->hi[i]);
        }
      }
      o.lo[i] = lo;
      o.hi[i] = hi;
      o.flags[i] = fl;
      continue;
    }
    if ((af & bf) & kEnclNumber) {
      fl |= kEnclNumber;
      const Iv x{a.lo[i], a.hi[i]}, y{b.lo[i], b.hi[i]};
      const bool finite = std::isfinite(x.lo) && std::isfinite(x.hi) &&
                          std::isfinite(y.lo) && std::isfinite(y.hi);
      const bool points = x.lo == x.hi && y.lo == y.hi;
      if (op == HloOpcode::kPower) {
        // On a positive base pow is monotone in each argument, so its
        // range over the box is at the corners (MPFR, stepped outward).
        // Points take IEEE pow as it is (its special cases included).
        auto pw = PowRn;
        if (points) {
          const double r = pw(x.lo, y.lo);
          if (std::isnan(r)) {
            fl = (fl & ~kEnclNumber) | kEnclNaN;
          } else if (std::isinf(r)) {
            lo = hi = r;
          } else {
            lo = Down(r);
            hi = Up(r);
          }
        } else if (finite && x.lo > 0) {
          lo = kInf;
          hi = -kInf;
          for (double b : {x.lo, x.hi}) {
            for (double e : {y.lo, y.hi}) {
              const double r = pw(b, e);
              lo = std::min(lo, std::isinf(r) ? r : Down(r));
              hi = std::max(hi, std::isinf(r) ? r : Up(r));
            }
          }
        } else {
          fl |= kEnclUndecided;
          AddReason(o.reasons, where + ": base enclosure not positive");
        }
      } else if (op == HloOpcode::kMaximum) {
        lo = std::max(x.lo, y.lo);
        hi = std::max(x.hi, y.hi);
      } else if (op == HloOpcode::kMinimum) {
        lo = std::min(x.lo, y.lo);
        hi = std::min(x.hi, y.hi);
      } else if (finite) {
        switch (op) {
          case HloOpcode::kAdd:
            lo = AddDown(x.lo, y.lo);
            hi = AddUp(x.hi, y.hi);
            break;
          case HloOpcode::kSubtract:
            lo = AddDown(x.lo, -y.hi);
            hi = AddUp(x.hi, -y.lo);
            break;
          case HloOpcode::kMultiply: {
            const Iv r = IvMul(x, y);
            lo = r.lo;
            hi = r.hi;
            break;
          }
          default: {  // divide
            if (y.lo <= 0 && y.hi >= 0) {
              if (points) {
                const double r = x.lo / y.lo;  // IEEE: +-inf or NaN
                if (std::isnan(r)) {
                  fl = (fl & ~kEnclNumber) | kEnclNaN;
                } else {
                  lo = hi = r;
                }
              } else {
                fl |= kEnclUndecided;
                AddReason(o.reasons,
                          where + ": divisor enclosure contains zero");
              }
              break;
            }
            const double c[4][2] = {
                {x.lo, y.lo}, {x.lo, y.hi}, {x.hi, y.lo}, {x.hi, y.hi}};
            lo = kInf;
            hi = -kInf;
            for (const auto& p : c) {
              lo = std::min(lo, DivDown(p[0], p[1]));
              hi = std::max(hi, DivUp(p[0], p[1]));
            }
            break;
          }
        }
      } else if (points) {
        // IEEE arithmetic on infinities is exact.
        const double r = op == HloOpcode::kAdd        ? x.lo + y.lo
                         : op == HloOpcode::kSubtract ? x.lo - y.lo
                         : op == HloOpcode::kMultiply ? x.lo * y.lo
                                                      : x.lo / y.lo;
        if (std::isnan(r)) {
          fl = (fl & ~kEnclNumber) | kEnclNaN;
        } else {
          lo = hi = r;
        }
      } else {
        fl |= kEnclUndecided;
        AddReason(o.reasons, where + ": unbounded operand enclosure");
      }
    }
    Widen(cls, t, lo, hi, fl);
    o.lo[i] = lo;
    o.hi[i] = hi;
    o.flags[i] = fl;
  }
  return out;
}

// dot of complex values. Two ways an implementation may compute each
// part, and any mixture of them:
//   (A) complex products, each within the multiply's normwise class
//       (|p^ - p| <= k u |p| + min_normal, any multiplication algorithm),
//       summed per part with correctly rounded adds in any order: the
//       exact product boxes' sum, plus sum_k w_k (w_k = k u (max|re_k| +
//       max|im_k|) + min_normal bounds each part's product error), plus
//       reduce's accumulation bound of the n widened terms per part;
//   (B) a real dot of 2n real products per part (re: ar br and -ai bi;
//       im: ar bi and ai br), interleaved with real FMAs in any order:
//       gamma_2n(u) S' around the exact sum, S'_re = sum max|ar| max|br| +
//       max|ai| max|bi| (S'_im likewise).
// Both radii are added (a superset of either and of mixtures), then the
// ends are rounded outward into the component type. Elements with a
// non-finite part (not tracked) are undecided.
void EnclosurePass::ComplexDot(
    const ArrayEnclosure& a, const ArrayEnclosure& b,
    const std::vector<int64_t>& ab, const std::vector<int64_t>& bb,
    const std::vector<int64_t>& am, const std::vector<int64_t>& bn,
    const std::vector<int64_t>& ak, const std::vector<int64_t>& bk,
    const std::string& where, ArrayEnclosure& o) const {
  const PrimitiveType t = o.shape.element_type();
  const PrimitiveType part = ComplexComponentType(t);
  const FloatFormat& f = FormatOf(part);
  const double u = std::ldexp(1.0, -Precision(f));
  const double k_mul = options_.error_model(HloOpcode::kMultiply, t).complex_k;
  const int64_t k_count = static_cast<int64_t>(ak.size());
  int64_t j = 0;
  for (size_t bi = 0; bi < ab.size(); ++bi) {
    for (int64_t mo : am) {
      for (int64_t no : bn) {
        bool tracked = true;
        uint8_t inherited = 0;
        Iv re{0, 0}, im{0, 0};
        double w_sum = 0, s_re = 0, s_im = 0, sb_re = 0, sb_im = 0;
        PartialSums p_re, p_im;
        int64_t nonzero = 0;
        for (int64_t k = 0; k < k_count && tracked; ++k) {
          const int64_t ia = ab[bi] + mo + ak[k];
          const int64_t ib = bb[bi] + no + bk[k];
          inherited |= (a.flags[ia] | b.flags[ib]) & kUnjudgedFlags;
          const Iv xr{a.lo[ia], a.hi[ia]}, xi{a.ilo[ia], a.ihi[ia]};
          const Iv yr{b.lo[ib], b.hi[ib]}, yi{b.ilo[ib], b.ihi[ib]};
          for (const Iv& v : {xr, xi, yr, yi}) {
            tracked &= std::isfinite(v.lo) && std::isfinite(v.hi);
          }
          tracked &= a.flags[ia] == kEnclNumber && b.flags[ib] == kEnclNumber;
          if (!tracked) break;
          const Iv ac = IvMul(xr, yr), bd = IvMul(xi, yi);
          const Iv ad = IvMul(xr, yi), bc = IvMul(xi, yr);
          const Iv pr{AddDown(ac.lo, -bd.hi), AddUp(ac.hi, -bd.lo)};
          const Iv pi{AddDown(ad.lo, bc.lo), AddUp(ad.hi, bc.hi)};
          const bool zero = IsPointZero(pr) && IsPointZero(pi) &&
                            ((IsPointZero(xr) && IsPointZero(xi)) ||
                             (IsPointZero(yr) && IsPointZero(yi)));
          re = {AddDown(re.lo, pr.lo), AddUp(re.hi, pr.hi)};
          im = {AddDown(im.lo, pi.lo), AddUp(im.hi, pi.hi)};
          // (B)'s scales.
          sb_re =
              AddUp(sb_re, AddUp(MaxAbs(ac.lo, ac.hi), MaxAbs(bd.lo, bd.hi)));
          sb_im =
              AddUp(sb_im, AddUp(MaxAbs(ad.lo, ad.hi), MaxAbs(bc.lo, bc.hi)));
          if (zero) continue;  // a zero factor: exact in both models
          ++nonzero;
          // (A): the product's normwise error, then its widened parts.
          const double w =
              AddUp(MulUp(MulUp(k_mul, u),
                          AddUp(MaxAbs(pr.lo, pr.hi), MaxAbs(pi.lo, pi.hi))),
                    MinNormal(f));
          w_sum = AddUp(w_sum, w);
          const Iv wr{AddDown(pr.lo, -w), AddUp(pr.hi, w)};
          const Iv wi{AddDown(pi.lo, -w), AddUp(pi.hi, w)};
          s_re = AddUp(s_re, MaxAbs(wr.lo, wr.hi));
          s_im = AddUp(s_im, MaxAbs(wi.lo, wi.hi));
          p_re.Add(wr.lo, wr.hi, false);
          p_im.Add(wi.lo, wi.hi, false);
        }
        if (!tracked) {
          o.flags[j] = inherited != 0 ? inherited : uint8_t{kEnclUndecided};
          o.lo[j] = o.ilo[j] = -kInf;
          o.hi[j] = o.ihi[j] = kInf;
          if (inherited == 0) {
            AddReason(o.reasons, where +
                                     ": a complex part may be non-finite (not "
                                     "tracked)");
          }
          ++j;
          continue;
        }
        const int64_t steps = std::max<int64_t>(nonzero - 1, 0);
        const double g2n = Gamma(2 * nonzero, u);
        const double r_re = AddUp(
            AddUp(w_sum, AccumulationBound(part, steps, s_re,
                                           /*dot=*/false, nullptr, &p_re)),
            MulUp(g2n, sb_re));
        const double r_im = AddUp(
            AddUp(w_sum, AccumulationBound(part, steps, s_im,
                                           /*dot=*/false, nullptr, &p_im)),
            MulUp(g2n, sb_im));
        Iv fr{RoundDownTo(part, AddDown(re.lo, -r_re)),
              RoundUpTo(part, AddUp(re.hi, r_re))};
        Iv fi{RoundDownTo(part, AddDown(im.lo, -r_im)),
              RoundUpTo(part, AddUp(im.hi, r_im))};
        if (nonzero == 0) {  // every product exactly zero
          fr = fi = Iv{0, 0};
        }
        const bool finite = std::isfinite(fr.lo) && std::isfinite(fr.hi) &&
                            std::isfinite(fi.lo) && std::isfinite(fi.hi) &&
                            std::isfinite(r_re) && std::isfinite(r_im) &&
                            AddUp(s_re, r_re) <= MaxFinite(f) &&
                            AddUp(s_im, r_im) <= MaxFinite(f) &&
                            AddUp(sb_re, r_re) <= MaxFinite(f) &&
                            AddUp(sb_im, r_im) <= MaxFinite(f);
        if (!finite) {  // an intermediate may overflow: not tracked
          o.flags[j] = kEnclUndecided;
          o.lo[j] = o.ilo[j] = -kInf;
          o.hi[j] = o.ihi[j] = kInf;
          AddReason(o.reasons, where + ": an intermediate may overflow");
          ++j;
          continue;
        }
        o.flags[j] = kEnclNumber;
        o.lo[j] = fr.lo;
        o.hi[j] = fr.hi;
        o.ilo[j] = fi.lo;
        o.ihi[j] = fi.hi;
        ++j;
      }
    }
  }
}

std::optional<ValueEnclosure> EnclosurePass::Dot(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 2 || !inst.shape().IsArray()) return std::nullopt;
  const std::optional<DotAlgorithmModel> alg =
      DotAlgorithmOf(inst.attrs().algorithm);
  if (!alg) return std::nullopt;
  const ArrayEnclosure& a = ops[0]->array;
  const ArrayEnclosure& b = ops[1]->array;
  const PrimitiveType t = inst.shape().element_type();
  const bool complex = a.is_complex && b.is_complex && IsComplex(t);
  if (complex) {
    const PrimitiveType part = ComplexComponentType(t);
    const EnclosureDeviations& d = options_.deviations;
    if (!SupportedFloat(part) || alg->input_unit > 0 || alg->products != 1 ||
        alg->accumulation_unit > std::ldexp(1.0, -Precision(FormatOf(part))) ||
        d.dot_input_unit > 0 || d.dot_accumulation_unit > 0 ||
        d.truncating_accumulation || d.ftz_types.count(part) > 0 ||
        options_.error_model(HloOpcode::kMultiply, t).complex_k <= 0) {
      return std::nullopt;
    }
  } else if (!a.is_float || !b.is_float || !SupportedFloat(t)) {
    return std::nullopt;
  }
  // Rounded inputs or a narrower accumulator: exact data is no longer
  // exact in every order.
  const bool may_round_inputs =
      complex || alg->input_unit > 0 ||
      options_.deviations.dot_input_unit > 0 ||
      alg->accumulation_unit > std::ldexp(1.0, -Precision(FormatOf(t))) ||
      options_.deviations.dot_accumulation_unit > 0 ||
      options_.deviations.truncating_accumulation;
  const DotDimensionNumbers& dn = inst.attrs().dot_dimension_numbers;
  auto free_dims = [](int64_t rank, const std::vector<int64_t>& batch,
                      const std::vector<int64_t>& contract) {
    std::vector<int64_t> f;
    for (int64_t d = 0; d < rank; ++d) {
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contract.begin(), contract.end(), d) == contract.end()) {
        f.push_back(d);
      }
    }
    return f;
  };
  const auto ad = a.shape.dimensions(), bd = b.shape.dimensions();
  const std::vector<int64_t> as = RowMajorStrides(ad), bs = RowMajorStrides(bd);
  const std::vector<int64_t> a_free = free_dims(
      a.shape.rank(), dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  const std::vector<int64_t> b_free = free_dims(
      b.shape.rank(), dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  const auto ab = Offsets(ad, as, dn.lhs_batch_dimensions);
  const auto bb = Offsets(bd, bs, dn.rhs_batch_dimensions);
  const auto ak = Offsets(ad, as, dn.lhs_contracting_dimensions);
  const auto bk = Offsets(bd, bs, dn.rhs_contracting_dimensions);
  const auto am = Offsets(ad, as, a_free);
  const auto bn = Offsets(bd, bs, b_free);
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  MergeReasons(o.reasons, a.reasons);
  MergeReasons(o.reasons, b.reasons);
  if (static_cast<int64_t>(ab.size() * am.size() * bn.size()) != o.size()) {
    return std::nullopt;
  }
  const int64_t k_count = static_cast<int64_t>(ak.size());
  const std::string where = absl::StrCat("dot ", inst.name());
  if (complex) {
    ComplexDot(a, b, ab, bb, am, bn, ak, bk, where, o);
    return out;
  }
  int64_t j = 0;
  for (size_t bi = 0; bi < ab.size(); ++bi) {
    for (int64_t mo : am) {
      for (int64_t no : bn) {
        double lo = 0, hi = 0, s = 0;
        uint8_t fl = kEnclNumber;
        bool must_nan = false, unbounded = false;
        int64_t nonzero = 0;  // products that may be nonzero
        ExactSumCheck exact;
        PartialSums partial;
        for (int64_t k = 0; k < k_count; ++k) {
          const int64_t ia = ab[bi] + mo + ak[k];
          const int64_t ib = bb[bi] + no + bk[k];
          const uint8_t af = a.flags[ia], bf = b.flags[ib];
          fl |= (af | bf) & (kUnjudgedFlags | kEnclNaN);
          if (!(af & kEnclNumber) || !(bf & kEnclNumber)) {
            must_nan = true;  // a NaN term makes every order NaN
            continue;
          }
          const Iv x{a.lo[ia], a.hi[ia]}, y{b.lo[ib], b.hi[ib]};
          if (!std::isfinite(x.lo) || !std::isfinite(x.hi) ||
              !std::isfinite(y.lo) || !std::isfinite(y.hi)) {
            unbounded = true;
            continue;
          }
          if (!IsPointZero(x) && !IsPointZero(y)) ++nonzero;
          // Round-to-nearest products and sums here (the hot loop); their
          // own error is bounded once after the loop.
          double tl, th;
          if (x.lo == x.hi && y.lo == y.hi) {
            tl = th = x.lo * y.lo;
            if (std::fma(x.lo, y.lo, -tl) != 0 ||
                (tl != 0 && std::fabs(tl) < kTiny)) {
              exact.points = false;  // an inexact product
            } else {
              exact.Add(tl, tl);
            }
          } else {
            const double c[4] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo,
                                 x.hi * y.hi};
            tl = std::min({c[0], c[1], c[2], c[3]});
            th = std::max({c[0], c[1], c[2], c[3]});
            exact.points = false;
          }
          lo += tl;
          hi += th;
          s += std::max(std::fabs(tl), std::fabs(th));
          partial.Add(tl, th, IsPointZero(x) || IsPointZero(y));
        }
        // The loop's round-to-nearest error: each product within u |t|
        // (+ an underflow quantum), each sum of k terms within
        // gamma_{k-1}(u) sum |t|, u = 2^-53; (k + 2) 2^-52 s + k 2^-1073
        // bounds both with a factor-2 margin for k u < 0.1, and
        // s (1 + (k + 2) 2^-52) bounds the exact sum of magnitudes.
        const double kd = static_cast<double>(k_count);
        const double loop_err =
            AddUp(MulUp(MulUp(kd + 2, 0x1p-52), s), MulUp(kd, 0x1p-1073));
        const bool rn_exact = !may_round_inputs && exact.Exact(s, t);
        if (!rn_exact && !must_nan && !unbounded) {
          lo = AddDown(lo, -loop_err);
          hi = AddUp(hi, loop_err);
          s = MulUp(s, AddUp(1, MulUp(kd + 2, 0x1p-52)));
        }
        if (must_nan) {
          fl = (fl & ~kEnclNumber) | kEnclNaN;
        } else if (unbounded) {
          fl |= kEnclUndecided;
          AddReason(o.reasons, where + ": non-finite operand enclosure");
          lo = -kInf;
          hi = kInf;
        } else if (!rn_exact) {
          const double e =
              AccumulationBound(t, RoundingSteps(t, k_count, nonzero), s,
                                /*dot=*/true, &*alg, &partial);
          if (AddUp(s, e) > MaxFinite(FormatOf(t))) {
            // Some summation orders overflow an intermediate (inf - inf).
            fl |= kEnclNaN;
            lo = -kInf;
            hi = kInf;
            AddReason(o.reasons, where + ": an intermediate may overflow");
          } else {
            lo = AddDown(lo, -e);
            hi = AddUp(hi, e);
            Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, t, lo, hi,
                  fl);
          }
        }
        o.lo[j] = lo;
        o.hi[j] = hi;
        o.flags[j] = fl;
        ++j;
      }
    }
  }
  return out;
}

// Element `fi` of `from` copied to element `ti` of `to` (same kind).
void CopyElement(const ArrayEnclosure& from, int64_t fi, ArrayEnclosure& to,
                 int64_t ti) {
  to.flags[ti] = from.flags[fi];
  if (!to.lo.empty()) {
    to.lo[ti] = from.lo[fi];
    to.hi[ti] = from.hi[fi];
  }
  if (!to.ilo.empty()) {
    to.ilo[ti] = from.ilo[fi];
    to.ihi[ti] = from.ihi[fi];
  }
  if (!to.ints.empty()) to.ints[ti] = from.ints[fi];
}

// Calls f(full index, slice index) for every element of position i along
// dimension d of a row-major array of shape `full` (the slice: d removed).
template <typename F>
void ForSliceAt(const Shape& full, int64_t d, int64_t i, F f) {
  const auto dims = full.dimensions();
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= dims[k];
  for (int64_t k = d + 1; k < full.rank(); ++k) inner *= dims[k];
  const int64_t n = dims[d];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      f((o * n + i) * inner + in, o * inner + in);
    }
  }
}

// Position i along dimension d of `a`, with d removed (a scan step's
// slice), and its inverse, writing `v` there.
ArrayEnclosure SliceEnclosureAt(const ArrayEnclosure& a, int64_t d, int64_t i) {
  Shape s = a.shape;
  s.ClearLayoutsRecursive();
  s.delete_dimension(d);
  ArrayEnclosure out = NewArray(s);
  out.reasons = a.reasons;
  ForSliceAt(a.shape, d, i, [&](int64_t full, int64_t slice) {
    CopyElement(a, full, out, slice);
  });
  return out;
}

void WriteEnclosureAt(ArrayEnclosure& y, int64_t d, int64_t i,
                      const ArrayEnclosure& v) {
  ForSliceAt(y.shape, d, i, [&](int64_t full, int64_t slice) {
    CopyElement(v, slice, y, full);
  });
  MergeReasons(y.reasons, v.reasons);
}

// scan (interpreter/ops/scan.cc: semantics from XLA's ScanExpander). Without
// is_associative the steps are a sequential chain: the enclosures run it
// step by step, to_apply's enclosure on the slices and the carries, so
// every op of the step is judged by its own rule. With is_associative a
// backend may reassociate (impl.scan.1), so the chain's enclosure is not
// enough for rounding ops: a real cumulative add (IsScanCumulativeAdd)
// takes the fold rule of reduce on every prefix (init + x_0 + ... + x_t in
// any association: the accumulation bound of t + 1 terms), integer data
// takes the chain (exact in any order), and other associative float scans
// have no rule. nullopt for shapes the verifier refuses.
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::Scan(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const HloComputation* f = inst.to_apply();
  const int64_t carries = inst.attrs().num_carries;
  const int64_t count = static_cast<int64_t>(ops.size());
  const auto& dims = inst.attrs().dimensions;
  if (f == nullptr || carries < 0 || carries >= count || dims.size() != 1) {
    return std::nullopt;
  }
  for (const ValueEnclosure* o : ops) {
    if (!o->shape.IsArray()) return std::nullopt;
  }
  const int64_t inputs = count - carries;
  const int64_t d = dims[0];
  const Shape& x0 = ops[0]->array.shape;
  if (d < 0 || d >= x0.rank()) return std::nullopt;
  const int64_t n = x0.dimensions(d);
  for (int64_t j = 1; j < inputs; ++j) {
    const Shape& s = ops[j]->array.shape;
    if (d >= s.rank() || s.dimensions(d) != n) return std::nullopt;
  }
  const Shape& shape = inst.shape();
  const int64_t parts = shape.IsTuple() ? shape.tuple_size() : 1;
  const int64_t outputs = parts - carries;
  if (outputs < 0) return std::nullopt;
  std::vector<ValueEnclosure> ys(static_cast<size_t>(outputs));
  for (int64_t k = 0; k < outputs; ++k) {
    const Shape& y = shape.IsTuple() ? shape.tuple_shapes(k) : shape;
    if (!y.IsArray() || y.rank() <= d || y.dimensions(d) != n) {
      return std::nullopt;
    }
    ys[k].shape = y;
    ys[k].array = NewArray(y);
  }
  const bool reverse = inst.attrs().is_reverse;
  const std::string where = absl::StrCat("scan ", inst.name());
  auto finish = [&](std::vector<ValueEnclosure> carry) {
    std::vector<ValueEnclosure> parts_out = std::move(ys);
    for (ValueEnclosure& c : carry) parts_out.push_back(std::move(c));
    if (!shape.IsTuple()) return std::optional<ValueEnclosure>(parts_out[0]);
    ValueEnclosure v;
    v.shape = shape;
    v.tuple = std::move(parts_out);
    return std::optional<ValueEnclosure>(std::move(v));
  };

  bool rounding = false;
  for (const ValueEnclosure* o : ops) rounding |= HasFloat(o->shape);
  rounding |= HasFloat(shape);
  if (inst.attrs().is_associative && rounding) {
    const ArrayEnclosure& x = ops[0]->array;
    const ArrayEnclosure& init = ops[1]->array;
    const PrimitiveType t = x.shape.element_type();
    if (inputs != 1 || carries != 1 || !IsScanCumulativeAdd(*f, outputs) ||
        !x.is_float || !init.is_float || !SupportedFloat(t) ||
        init.shape.element_type() != t ||
        f->parameter(0)->shape().element_type() != t ||
        f->parameter(1)->shape().element_type() != t) {
      return std::nullopt;
    }
    // Per slice element: fold init, then x along d in scan order; each
    // prefix's state, finished, is that step's output.
    std::vector<ArrayEnclosure> steps;
    for (int64_t step = 0; step < n; ++step) {
      steps.push_back(SliceEnclosureAt(x, d, reverse ? n - 1 - step : step));
    }
    std::vector<ValueEnclosure> carry(1);
    carry[0].shape = init.shape;
    carry[0].array = init;
    const int64_t m = init.size();
    for (int64_t p = 0; p < m; ++p) {
      uint8_t fl = init.flags[p];
      bool must_nan = !(fl & kEnclNumber), unbounded = false;
      double lo = init.lo[p], hi = init.hi[p];
      double s = must_nan ? 0 : std::max(std::fabs(lo), std::fabs(hi));
      int64_t nonzero = !must_nan && !IsPointZero(Iv{lo, hi}) ? 1 : 0;
      ExactSumCheck exact;
      PartialSums partial;
      if (!must_nan) {
        exact.Add(lo, hi);
        partial.Add(lo, hi, IsPointZero(Iv{lo, hi}));
        unbounded = !std::isfinite(lo) || !std::isfinite(hi);
      }
      for (int64_t step = 0; step < n; ++step) {
        const ArrayEnclosure& xs = steps[step];
        fl |= xs.flags[p] & (kUnjudgedFlags | kEnclNaN);
        if (!(xs.flags[p] & kEnclNumber)) {
          must_nan = true;
        } else if (!std::isfinite(xs.lo[p]) || !std::isfinite(xs.hi[p])) {
          unbounded = true;
        } else {
          const Iv v{xs.lo[p], xs.hi[p]};
          exact.Add(v.lo, v.hi);
          partial.Add(v.lo, v.hi, IsPointZero(v));
          if (!IsPointZero(v)) ++nonzero;
          lo = AddDown(lo, v.lo);
          hi = AddUp(hi, v.hi);
          s = AddUp(s, std::max(std::fabs(v.lo), std::fabs(v.hi)));
        }
        double rlo = lo, rhi = hi;
        uint8_t rfl = fl;
        std::set<std::string> reasons;
        FinishFold(must_nan, unbounded, /*add=*/true, step + 1, nonzero, exact,
                   partial, s, t, where, reasons, rlo, rhi, rfl);
        const int64_t i = reverse ? n - 1 - step : step;
        // The output element at position i along d of slice element p.
        if (outputs == 1) {
          ArrayEnclosure& y = ys[0].array;
          const auto yd = y.shape.dimensions();
          int64_t inner = 1;
          for (int64_t k = d + 1; k < y.shape.rank(); ++k) inner *= yd[k];
          const int64_t yi = ((p / inner) * n + i) * inner + p % inner;
          y.lo[yi] = rlo;
          y.hi[yi] = rhi;
          y.flags[yi] = rfl;
          MergeReasons(y.reasons, reasons);
        }
        if (step + 1 == n) {
          ArrayEnclosure& c = carry[0].array;
          c.lo[p] = rlo;
          c.hi[p] = rhi;
          c.flags[p] = rfl;
          MergeReasons(c.reasons, reasons);
        }
      }
    }
    for (ValueEnclosure& y : ys) {
      MergeReasons(y.array.reasons, x.reasons);
      MergeReasons(y.array.reasons, init.reasons);
    }
    if (n > 0) MergeReasons(carry[0].array.reasons, x.reasons);
    return finish(std::move(carry));
  }

  // The sequential chain.
  std::vector<ValueEnclosure> carry;
  for (int64_t j = 0; j < carries; ++j) carry.push_back(*ops[inputs + j]);
  std::vector<ValueEnclosure> slices(static_cast<size_t>(inputs));
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = reverse ? n - 1 - step : step;
    std::vector<const ValueEnclosure*> args;
    for (int64_t j = 0; j < inputs; ++j) {
      slices[j].array = SliceEnclosureAt(ops[j]->array, d, i);
      slices[j].shape = slices[j].array.shape;
      args.push_back(&slices[j]);
    }
    for (ValueEnclosure& c : carry) args.push_back(&c);
    HLOREF_ASSIGN_OR_RETURN(ValueEnclosure r, Computation(*f, args));
    std::vector<ValueEnclosure> step_parts;
    if (r.shape.IsTuple()) {
      step_parts = std::move(r.tuple);
    } else {
      step_parts.push_back(std::move(r));
    }
    if (static_cast<int64_t>(step_parts.size()) != outputs + carries) {
      return std::nullopt;
    }
    for (int64_t k = 0; k < outputs; ++k) {
      const ArrayEnclosure& v = step_parts[k].array;
      if (!step_parts[k].shape.IsArray() ||
          v.size() * n != ys[k].array.size()) {
        return std::nullopt;
      }
      WriteEnclosureAt(ys[k].array, d, i, v);
    }
    for (int64_t j = 0; j < carries; ++j) {
      carry[j] = std::move(step_parts[outputs + j]);
    }
  }
  return finish(std::move(carry));
}

// fft (interpreter/ops/fft.h: definitions, the oracle's own error; the
// class: the comparator's FFT_BOUND, conformance/compare/fft_bound.cc). Per
// batch item, with the operand enclosed in boxes xm +- xr per component:
//  - the transform is linear with |twiddle| = 1, so each output moves by
//    at most R = sum over the item of (xr_re + xr_im), times 1/N for the
//    scaled inverses, times 2 for IRFFT (the Hermitian extension uses an
//    input twice);
//  - the centre is the oracle's transform of xm in f64 / c128: the exact
//    transform rounded once per component, within 2^-53 |y| plus its
//    2^-98 P ||x||_1 (P <= N, the sum of the prime factors) before that;
//  - a conforming implementation is within c u_T L ||Y||_2 (sqrt 2 for
//    RFFT) + L N_item tiny of the exact transform, ||Y||_2 bounded over the
//    enclosure by ||y_mid||_2 (1 + 2^-50) + sqrt(N_item) (R + oracle error);
//  - each component's box, widened by those, is rounded outward to T.
// Items with a non-finite or NaN-allowing operand element, items whose
// partial sums may overflow, IRFFT items whose input is not exact (its
// Hermitian symmetry, impl.fft.1, is then undecided) are undecided;
// items the oracle marks implementation-defined are don't care.
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::Fft(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 1 || !ops[0]->shape.IsArray() || !inst.shape().IsArray()) {
    return std::nullopt;
  }
  const ArrayEnclosure& x = ops[0]->array;
  const FftType type = inst.attrs().fft_type;
  const std::vector<int64_t>& len = inst.attrs().fft_length;
  const Shape& rs = inst.shape();
  const int64_t k = static_cast<int64_t>(len.size());
  const PrimitiveType rt = rs.element_type();
  const PrimitiveType part = IsComplex(rt) ? ComplexComponentType(rt) : rt;
  if (k < 1 || k > rs.rank() || k > x.shape.rank() || !SupportedFloat(part) ||
      !(x.is_float || x.is_complex) ||
      x.is_complex != (type != FftType::kRfft)) {
    return std::nullopt;
  }
  int64_t in_item = 1, out_item = 1;
  for (int64_t d = x.shape.rank() - k; d < x.shape.rank(); ++d) {
    in_item *= x.shape.dimensions(d);
  }
  for (int64_t d = rs.rank() - k; d < rs.rank(); ++d) {
    out_item *= rs.dimensions(d);
  }
  const std::string where = absl::StrCat("fft ", inst.name());
  ValueEnclosure out;
  out.shape = rs;
  out.array = NewArray(rs);
  ArrayEnclosure& o = out.array;
  MergeReasons(o.reasons, x.reasons);
  if (out_item == 0 || o.size() == 0) return std::optional<ValueEnclosure>(out);
  const int64_t items = o.size() / out_item;
  if (in_item * items != x.size()) return std::nullopt;

  // Midpoints and radii, and the f64 / c128 centre.
  const bool cin = x.is_complex;
  Shape xs = x.shape, ys = rs;
  xs.set_element_type(cin ? PrimitiveType::kC128 : PrimitiveType::kF64);
  ys.set_element_type(IsComplex(rt) ? PrimitiveType::kC128
                                    : PrimitiveType::kF64);
  Literal mid(xs);
  std::vector<double> rad(static_cast<size_t>(x.size()), 0);
  std::vector<double> mag(static_cast<size_t>(x.size()), 0);
  std::vector<char> bad_item(static_cast<size_t>(items), 0);
  std::vector<char> inexact_item(static_cast<size_t>(items), 0);
  for (int64_t i = 0; i < x.size(); ++i) {
    const int64_t b = i / in_item;
    double lo[2] = {x.lo[i], cin ? x.ilo[i] : 0};
    double hi[2] = {x.hi[i], cin ? x.ihi[i] : 0};
    double m[2] = {0, 0};
    bool finite = x.flags[i] == kEnclNumber;
    for (int c = 0; c < 2; ++c) {
      finite = finite && std::isfinite(lo[c]) && std::isfinite(hi[c]);
    }
    if (!finite) {
      bad_item[b] = 1;
      continue;
    }
    for (int c = 0; c < 2; ++c) {
      m[c] = lo[c] + (hi[c] - lo[c]) / 2;
      const double r = std::max(AddUp(hi[c], -m[c]), AddUp(m[c], -lo[c]));
      rad[i] = AddUp(rad[i], r);
      mag[i] = AddUp(mag[i], std::max(std::fabs(lo[c]), std::fabs(hi[c])));
      if (lo[c] != hi[c]) inexact_item[b] = 1;
    }
    if (cin) {
      mid.SetFromComplex(i, {m[0], m[1]});
    } else {
      mid.SetFromDouble(i, m[0]);
    }
  }
  std::vector<Literal> args;
  args.push_back(std::move(mid));
  absl::StatusOr<EvalResult> r = RunIsolated(inst, args, ys, /*variant=*/2);
  if (!r.ok()) return r.status();
  const Literal& y = r->value;
  const Literal* dont_care = !r->outputs.empty() && r->outputs[0].dont_care
                                 ? &*r->outputs[0].dont_care
                                 : nullptr;

  const FloatFormat& f = FormatOf(part);
  const double u = std::ldexp(1.0, -Precision(f));
  const double tiny = options_.deviations.ftz_types.count(part) > 0
                          ? MinNormal(f)
                          : MinSubnormal(f);
  const double stages = FftBoundStages(len, type);
  const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
  double scale_n = 1;
  for (int64_t n : len) scale_n *= static_cast<double>(n);
  const double norm_factor = type == FftType::kRfft ? std::sqrt(2.0) : 1;
  for (int64_t b = 0; b < items; ++b) {
    const int64_t base = b * out_item;
    bool marked = false;
    if (dont_care != nullptr) {
      for (int64_t j = base; j < base + out_item; ++j) {
        marked = marked || dont_care->GetAsInt64(j) != 0;
      }
    }
    std::string undecided;
    if (bad_item[b]) {
      undecided = where + ": a non-finite or NaN operand element";
    } else if (type == FftType::kIrfft && inexact_item[b]) {
      undecided = where +
                  ": IRFFT input not exact (its Hermitian symmetry, "
                  "impl.fft.1, is undecided)";
    }
    // Perturbation R, ||x||_1 over the enclosure, the centre's norm.
    double R = 0, x1 = 0;
    for (int64_t i = b * in_item; i < (b + 1) * in_item; ++i) {
      R = AddUp(R, rad[i]);
      x1 = AddUp(x1, mag[i]);
    }
    if (inverse) R = DivUp(R, scale_n);
    if (type == FftType::kIrfft) R = MulUp(R, 2);
    long double sum2 = 0;
    double ymax = 0;
    for (int64_t j = base; j < base + out_item; ++j) {
      const std::complex<double> v =
          IsComplex(rt) ? y.GetAsComplex(j)
                        : std::complex<double>(y.GetAsDouble(j), 0);
      sum2 += static_cast<long double>(std::norm(v));
      ymax = std::max({ymax, std::fabs(v.real()), std::fabs(v.imag())});
    }
    // The oracle's own error per component (above), rounded up generously.
    const double oracle_abs = MulUp(x1, 0x1p-90);
    const double ynorm =
        AddUp(MulUp(static_cast<double>(std::sqrt(sum2)), 1 + 0x1p-50),
              MulUp(std::sqrt(static_cast<double>(out_item)) * (1 + 0x1p-50),
                    AddUp(AddUp(R, oracle_abs), MulUp(ymax, 0x1p-52))));
    const double allowed =
        AddUp(MulUp(MulUp(MulUp(kFftBoundConstant, u), stages),
                    MulUp(ynorm, norm_factor * (1 + 0x1p-50))),
              MulUp(MulUp(stages, static_cast<double>(out_item)), tiny));
    // Partial sums of any plan stay within ||x||_1 (an inverse scales by
    // 1/N at the end): overflow possible where twice that reaches max_T.
    const double reach = MulUp(x1, 2);
    if (undecided.empty() && !marked && !(reach < MaxFinite(f))) {
      undecided = where + ": an intermediate may overflow";
    }
    for (int64_t j = base; j < base + out_item; ++j) {
      uint8_t fl = kEnclNumber;
      if (marked) fl |= kEnclDontCare;
      if (!undecided.empty() && !marked) {
        o.flags[j] = kEnclUndecided;
        o.lo[j] = -kInf;
        o.hi[j] = kInf;
        if (o.is_complex) {
          o.ilo[j] = -kInf;
          o.ihi[j] = kInf;
        }
        continue;
      }
      const std::complex<double> v =
          IsComplex(rt) ? y.GetAsComplex(j)
                        : std::complex<double>(y.GetAsDouble(j), 0);
      for (int c = 0; c < (o.is_complex ? 2 : 1); ++c) {
        const double centre = c == 0 ? v.real() : v.imag();
        const double w = AddUp(AddUp(AddUp(R, allowed), oracle_abs),
                               MulUp(std::fabs(centre), 0x1p-52));
        double lo = AddDown(centre, -w), hi = AddUp(centre, w);
        uint8_t cfl = fl;
        Widen(EnclosureErrorClass{EnclosureErrorKind::kFft}, part, lo, hi, cfl);
        (c == 0 ? o.lo : o.ilo)[j] = lo;
        (c == 0 ? o.hi : o.ihi)[j] = hi;
      }
      o.flags[j] = fl;
    }
    if (!undecided.empty() && !marked) AddReason(o.reasons, undecided);
    if (marked) {
      for (const std::string& id : r->outputs[0].impl_ids) {
        AddReason(o.reasons, absl::StrCat("implementation-defined (", id, ")"));
      }
    }
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// An op bilinear in its two float operands x and w (the others, `fixed`,
// held at their exact values), each output a sum of products x_i w_j:
// convolution, ragged-dot. In midpoint-radius form, the oracle doing the
// sums: with x = xm +- xr and w = wm +- wr elementwise,
//   |f(x, w) - f(xm, wm)| <= f(|xm|, wr) + f(xr, |wm|) + f(xr, wr),
// and S = f(|x|max, |w|max) bounds sum |t_i| per output. The oracle
// evaluates each f on f64 operands with exact accumulation rounded once
// to f64 (numerics.md decision 4), so each value is within 2^-53 relative
// of the exact sum of non-negative terms (C1: of a signed sum, stepped one
// ulp). The accumulation bound uses m = `max_terms` when given (an upper
// bound of every output's term count), else each output's own count,
// f(1, 1) (exact in f64; a term counted as often as it is added).
// Elements the oracle marks implementation-defined on the midpoints are
// don't care.
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::BilinearSums(
    const HloInstruction& inst, const ArrayEnclosure& x,
    const ArrayEnclosure& w, const std::vector<Literal>& fixed,
    const DotAlgorithmModel& alg, const std::string& where,
    std::optional<int64_t> max_terms) {
  const PrimitiveType t = inst.shape().element_type();
  for (const ArrayEnclosure* a : {&x, &w}) {
    for (int64_t i = 0; i < a->size(); ++i) {
      if (a->flags[i] != kEnclNumber || !std::isfinite(a->lo[i]) ||
          !std::isfinite(a->hi[i])) {
        ValueEnclosure v =
            Flagged(inst.shape(), kEnclUndecided,
                    where + ": an operand element is not a finite enclosure");
        MergeReasons(v.array.reasons, a->reasons);
        return std::optional<ValueEnclosure>(std::move(v));
      }
    }
  }
  // Midpoints, radii (rounded up) and magnitudes of both operands.
  auto split = [](const ArrayEnclosure& a, std::vector<double>& mid,
                  std::vector<double>& amid, std::vector<double>& rad,
                  std::vector<double>& mag) {
    const size_t n = a.lo.size();
    mid.resize(n);
    amid.resize(n);
    rad.resize(n);
    mag.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const double m = a.lo[i] + (a.hi[i] - a.lo[i]) / 2;
      mid[i] = m;
      amid[i] = std::fabs(m);
      rad[i] = std::max(AddUp(a.hi[i], -m), AddUp(m, -a.lo[i]));
      mag[i] = std::max(std::fabs(a.lo[i]), std::fabs(a.hi[i]));
    }
  };
  std::vector<double> xm, xam, xr, xa, wm, wam, wr, wa;
  split(x, xm, xam, xr, xa);
  split(w, wm, wam, wr, wa);
  Shape xs = x.shape, ws = w.shape, rs = inst.shape();
  xs.set_element_type(PrimitiveType::kF64);
  ws.set_element_type(PrimitiveType::kF64);
  rs.set_element_type(PrimitiveType::kF64);
  auto f = [&](const std::vector<double>& a, const std::vector<double>& b,
               EvaluatedOutput* marks = nullptr) {
    return RunIsolatedF64(inst, xs, a, ws, b, rs, fixed, marks);
  };
  EvaluatedOutput marks;
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> c1, f(xm, wm, &marks));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> c2, f(xam, wr));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> c3, f(xr, wam));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> c4, f(xr, wr));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> sv, f(xa, wa));
  // Products that may be nonzero, per output: f of the operands'
  // indicators (1 unless the element is exactly zero; exact in f64). A
  // product with an exactly zero factor (padding, a ReLU zero, a zero
  // weight) is exact and adding it is exact, so at most that many roundings
  // lie on any path of any order (as dot).
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> nonzero,
                          f(NonzeroIndicator(x), NonzeroIndicator(w)));
  std::vector<double> terms;
  if (!max_terms) {
    HLOREF_ASSIGN_OR_RETURN(terms, f(std::vector<double>(x.lo.size(), 1.0),
                                     std::vector<double>(w.lo.size(), 1.0)));
  }
  // The partial-sum bound's data (PartialSums) per output, from four more
  // evaluations on the operands' positive and negative parts (x+ =
  // max(hi, 0), x- = max(-lo, 0)): a product's positive part is at most
  // x+ w+ + x- w- (a positive product needs equal signs), its negative part
  // at most x+ w- + x- w+, so P <= f(x+, w+) + f(x-, w-) and N <=
  // f(x+, w-) + f(x-, w+), each within 2^-53 relative (non-negative terms,
  // one rounding). The largest term's parts are bounded over the whole
  // operands (max x+ max w+ + max x- max w-, and likewise).
  auto parts = [](const ArrayEnclosure& a, std::vector<double>& pos,
                  std::vector<double>& neg, double& pos_max, double& neg_max) {
    pos.resize(a.lo.size());
    neg.resize(a.lo.size());
    pos_max = neg_max = 0;
    for (size_t i = 0; i < pos.size(); ++i) {
      pos[i] = std::max(a.hi[i], 0.0);
      neg[i] = std::max(-a.lo[i], 0.0);
      pos_max = std::max(pos_max, pos[i]);
      neg_max = std::max(neg_max, neg[i]);
    }
  };
  std::vector<double> xp, xn, wp, wn;
  double xp_max, xn_max, wp_max, wn_max;
  parts(x, xp, xn, xp_max, xn_max);
  parts(w, wp, wn, wp_max, wn_max);
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> c_pp, f(xp, wp));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> c_nn, f(xn, wn));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> c_pn, f(xp, wn));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> c_np, f(xn, wp));
  const double term_p_max = AddUp(MulUp(xp_max, wp_max), MulUp(xn_max, wn_max));
  const double term_q_max = AddUp(MulUp(xp_max, wn_max), MulUp(xn_max, wp_max));
  constexpr double kF64Rel = 0x1p-52;  // > 2^-53 of a once-rounded sum
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  MergeReasons(o.reasons, x.reasons);
  MergeReasons(o.reasons, w.reasons);
  for (int64_t j = 0; j < o.size(); ++j) {
    const double up = 1 + kF64Rel;
    const double rad = MulUp(AddUp(AddUp(c2[j], c3[j]), c4[j]), up);
    const double s = MulUp(sv[j], up);
    const int64_t m = max_terms ? *max_terms : static_cast<int64_t>(terms[j]);
    const int64_t steps = RoundingSteps(t, m, static_cast<int64_t>(nonzero[j]));
    PartialSums partial;
    partial.n = static_cast<int64_t>(nonzero[j]);
    partial.p = MulUp(AddUp(c_pp[j], c_nn[j]), up);
    partial.q = MulUp(AddUp(c_pn[j], c_np[j]), up);
    partial.p_max = term_p_max;
    partial.q_max = term_q_max;
    const double e =
        AddUp(AccumulationBound(t, steps, s, /*dot=*/true, &alg, &partial),
              MulUp(std::fabs(c1[j]), kF64Rel));
    if (AddUp(s, e) > MaxFinite(FormatOf(t))) {
      o.flags[j] = kEnclNumber | kEnclNaN;
      o.lo[j] = -kInf;
      o.hi[j] = kInf;
      AddReason(o.reasons, where + ": an intermediate may overflow");
      continue;
    }
    double lo = AddDown(AddDown(c1[j], -rad), -e);
    double hi = AddUp(AddUp(c1[j], rad), e);
    uint8_t fl = kEnclNumber;
    if (s == 0) lo = hi = 0;  // every term is exactly zero
    Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, t, lo, hi, fl);
    o.lo[j] = lo;
    o.hi[j] = hi;
    o.flags[j] = fl;
  }
  if (marks.dont_care) {
    for (int64_t j = 0; j < o.size(); ++j) {
      if (marks.dont_care->GetAsInt64(j) != 0) o.flags[j] |= kEnclDontCare;
    }
    for (const std::string& id : marks.impl_ids) {
      AddReason(o.reasons, absl::StrCat("implementation-defined (", id, ")"));
    }
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// Convolution: BilinearSums with m = the kernel's window and input
// features per group (kernel elements / output features), an upper bound
// of every output's term count.
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::Convolution(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 2 || !inst.shape().IsArray()) return std::nullopt;
  const std::optional<DotAlgorithmModel> alg =
      DotAlgorithmOf(inst.attrs().algorithm);
  if (!alg) return std::nullopt;
  const ArrayEnclosure& x = ops[0]->array;
  const ArrayEnclosure& w = ops[1]->array;
  if (!x.is_float || !w.is_float ||
      !SupportedFloat(inst.shape().element_type())) {
    return std::nullopt;
  }
  const ConvolutionDimensionNumbers& dn =
      inst.attrs().convolution_dimension_numbers;
  const int64_t out_features =
      w.shape.dimensions(dn.kernel_output_feature_dimension);
  const int64_t m = out_features == 0 ? 0 : w.size() / out_features;
  return BilinearSums(inst, x, w, {}, *alg,
                      absl::StrCat("convolution ", inst.name()), m);
}

// ragged-dot (interpreter/ops/ragged_scaled_dot.cc: semantics and sources):
// for fixed group sizes each output is a sum of products of lhs and rhs
// elements (a term twice where overlapping groups add it twice), so
// BilinearSums applies with each output's own term count. The group sizes
// must be decided; the oracle's marks (impl.ragged-dot.1 / .2: rows of no
// group, irregular sizes) carry over as don't care. Integer and complex
// ragged-dots take the other rules (exact operands) or none.
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::RaggedDot(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 3 || !inst.shape().IsArray() || !ops[2]->shape.IsArray()) {
    return std::nullopt;
  }
  const std::optional<DotAlgorithmModel> alg =
      DotAlgorithmOf(inst.attrs().algorithm);
  if (!alg) return std::nullopt;
  const ArrayEnclosure& x = ops[0]->array;
  const ArrayEnclosure& w = ops[1]->array;
  if (!x.is_float || !w.is_float ||
      !SupportedFloat(inst.shape().element_type())) {
    return std::nullopt;
  }
  const std::string where = absl::StrCat("ragged-dot ", inst.name());
  std::optional<Literal> sizes = PointLiteral(ops[2]->array);
  if (!sizes) {
    ValueEnclosure v = Flagged(inst.shape(), kEnclUndecided,
                               where + ": group sizes undecided");
    MergeReasons(v.array.reasons, ops[2]->array.reasons);
    return std::optional<ValueEnclosure>(std::move(v));
  }
  std::vector<Literal> fixed;
  fixed.push_back(*std::move(sizes));
  return BilinearSums(inst, x, w, fixed, *alg, where, std::nullopt);
}

// scaled-dot (ragged_scaled_dot.cc): each operand is dequantized, x times
// its block's scale rounded once to the dequantization type D
// (impl.scaled-dot.1: bf16 for two sub-16-bit types, else the common or
// the wider type), and the result is the dot of the dequantized operands.
// Here the dequantized operands are the interval products widened to D's
// directed roundings (class R: any type whose values include D's, f32
// for bf16, is inside too), and the dot rule takes them.
std::optional<ValueEnclosure> EnclosurePass::ScaledDot(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 4) return std::nullopt;
  ValueEnclosure deq[2];
  for (int side = 0; side < 2; ++side) {
    const ArrayEnclosure& xv = ops[side]->array;
    const ArrayEnclosure& sv = ops[side + 2]->array;
    if (!xv.is_float || !sv.is_float || xv.shape.rank() != sv.shape.rank()) {
      return std::nullopt;
    }
    const PrimitiveType d = ScaledDotDequantizeType(xv.shape.element_type(),
                                                    sv.shape.element_type());
    if (!SupportedFloat(d)) return std::nullopt;
    const int64_t rank = xv.shape.rank();
    std::vector<int64_t> block(static_cast<size_t>(rank));
    for (int64_t k = 0; k < rank; ++k) {
      const int64_t sd = sv.shape.dimensions(k);
      if (sd == 0 ? xv.shape.dimensions(k) != 0
                  : xv.shape.dimensions(k) % sd != 0) {
        return std::nullopt;
      }
      block[k] = sd > 0 ? xv.shape.dimensions(k) / sd : 1;
    }
    const std::vector<int64_t> xstr = RowMajorStrides(xv.shape.dimensions());
    const std::vector<int64_t> sstr = RowMajorStrides(sv.shape.dimensions());
    Shape ds = xv.shape;
    ds.set_element_type(d);
    deq[side].shape = ds;
    ArrayEnclosure& a = deq[side].array = NewArray(ds);
    MergeReasons(a.reasons, xv.reasons);
    MergeReasons(a.reasons, sv.reasons);
    for (int64_t e = 0; e < xv.size(); ++e) {
      int64_t so = 0, rest = e;
      for (int64_t k = 0; k < rank; ++k) {
        const int64_t idx = rest / xstr[k];
        rest %= xstr[k];
        so += (idx / block[k]) * sstr[k];
      }
      const uint8_t xf = xv.flags[e], sf = sv.flags[so];
      uint8_t fl = (xf | sf) & (kUnjudgedFlags | kEnclNaN);
      if (!(xf & kEnclNumber) || !(sf & kEnclNumber)) {
        a.flags[e] = (fl & ~kEnclNumber) | kEnclNaN;  // NaN times anything
        a.lo[e] = -kInf;
        a.hi[e] = kInf;
        continue;
      }
      if (!std::isfinite(xv.lo[e]) || !std::isfinite(xv.hi[e]) ||
          !std::isfinite(sv.lo[so]) || !std::isfinite(sv.hi[so])) {
        // inf times 0 is NaN: not tracked here.
        a.flags[e] = fl | kEnclNumber | kEnclNaN | kEnclUndecided;
        a.lo[e] = -kInf;
        a.hi[e] = kInf;
        AddReason(a.reasons, absl::StrCat("scaled-dot ", inst.name(),
                                          ": a non-finite operand or scale"));
        continue;
      }
      const Iv p = IvMul(Iv{xv.lo[e], xv.hi[e]}, Iv{sv.lo[so], sv.hi[so]});
      double lo = p.lo, hi = p.hi;
      fl |= kEnclNumber;
      Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, d, lo, hi, fl);
      a.lo[e] = lo;
      a.hi[e] = hi;
      a.flags[e] = fl;
    }
  }
  return Dot(inst, {&deq[0], &deq[1]});
}

// batch-norm-inference: y = (x - mean) * scale / sqrt(var + eps) + offset
// evaluated on the enclosures, widened by the comparator's own
// BATCH_NORM_BOUND for inference (conformance/compare/batch_norm_bound.cc:
// 2 ((gamma_6 + rho)(|x| + |mean|)|g| + gamma_3 |offset|) with
// g = scale / sqrt(var + eps), rho = (2 k_rsqrt + 1) u, plus its floor
// (N + 8) tiny (1 + |scale| r)(1 + r)), magnitudes taken over the
// enclosures, so both decompositions XLA and the seeds use are inside.
// What the batch-norm rules share: the geometry of the feature dimension
// of operand x (`inner` elements below it, `n` elements per feature) and
// the result type's constants: unit roundoff u, the relative error rho of
// a rounded 1 / sqrt (rsqrt's ulp budget, twice, plus the rounding), the
// least subnormal and epsilon. nullopt where the feature index is out of
// range.
std::optional<BatchNormFrame> EnclosurePass::BatchNormFrameOf(
    const HloInstruction& inst, const ArrayEnclosure& x,
    PrimitiveType t) const {
  const int64_t fdim = inst.attrs().feature_index;
  if (fdim < 0 || fdim >= x.shape.rank()) return std::nullopt;
  BatchNormFrame fr;
  fr.features = x.shape.dimensions(fdim);
  for (int64_t d = fdim + 1; d < x.shape.rank(); ++d) {
    fr.inner *= x.shape.dimensions(d);
  }
  fr.n = fr.features == 0 ? 0 : x.size() / fr.features;
  const FloatFormat& f = FormatOf(t);
  fr.u = std::ldexp(1.0, -Precision(f));
  const double k_rsqrt = options_.error_model(HloOpcode::kRsqrt, t).ulps;
  fr.rho = MulUp(AddUp(MulUp(2, k_rsqrt), 1), fr.u);
  fr.tiny = MinSubnormal(f);
  fr.eps = static_cast<double>(inst.attrs().epsilon);
  return fr;
}

std::optional<ValueEnclosure> EnclosurePass::BatchNormInference(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 5 || !inst.shape().IsArray()) return std::nullopt;
  const PrimitiveType t = inst.shape().element_type();
  if (!SupportedFloat(t)) return std::nullopt;
  for (const ValueEnclosure* o : ops) {
    if (!o->shape.IsArray() || !o->array.is_float) return std::nullopt;
  }
  const ArrayEnclosure& x = ops[0]->array;
  const std::optional<BatchNormFrame> frame = BatchNormFrameOf(inst, x, t);
  if (!frame) return std::nullopt;
  const int64_t features = frame->features, inner = frame->inner;
  const int64_t n_per_feature = frame->n;
  const double u = frame->u, rho = frame->rho, tiny = frame->tiny;
  const double eps = frame->eps;
  const double g6 = AddUp(Gamma(6, u), rho), g3 = Gamma(3, u);
  const std::string where = absl::StrCat("batch-norm-inference ", inst.name());
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  for (const ValueEnclosure* op : ops)
    MergeReasons(o.reasons, op->array.reasons);
  for (int64_t i = 0; i < o.size(); ++i) {
    const int64_t fi = (i / inner) % features;
    const ArrayEnclosure* in[5] = {&x, &ops[1]->array, &ops[2]->array,
                                   &ops[3]->array, &ops[4]->array};
    const int64_t idx[5] = {i, fi, fi, fi, fi};
    uint8_t fl = kEnclNumber;
    bool finite = true;
    for (int k = 0; k < 5; ++k) {
      const uint8_t e = in[k]->flags[idx[k]];
      fl |= e & ~kEnclNumber;
      if (!(e & kEnclNumber)) fl = (fl & ~kEnclNumber) | kEnclNaN;
      finite = finite && std::isfinite(in[k]->lo[idx[k]]) &&
               std::isfinite(in[k]->hi[idx[k]]);
    }
    o.flags[i] = fl;
    o.lo[i] = -kInf;
    o.hi[i] = kInf;
    if (!(fl & kEnclNumber)) continue;
    const Iv xv{x.lo[i], x.hi[i]};
    const Iv sc{in[1]->lo[fi], in[1]->hi[fi]};
    const Iv of{in[2]->lo[fi], in[2]->hi[fi]};
    const Iv mu{in[3]->lo[fi], in[3]->hi[fi]};
    const Iv var{in[4]->lo[fi], in[4]->hi[fi]};
    const double vlo = AddDown(var.lo, eps), vhi = AddUp(var.hi, eps);
    if (!finite || !(vlo > 0)) {
      o.flags[i] |= kEnclUndecided;
      AddReason(o.reasons, where +
                               ": variance + epsilon not positive or "
                               "operands not finite");
      continue;
    }
    const Iv sq{SqrtDown(vlo), SqrtUp(vhi)};
    const Iv g{std::min({DivDown(sc.lo, sq.lo), DivDown(sc.lo, sq.hi),
                         DivDown(sc.hi, sq.lo), DivDown(sc.hi, sq.hi)}),
               std::max({DivUp(sc.lo, sq.lo), DivUp(sc.lo, sq.hi),
                         DivUp(sc.hi, sq.lo), DivUp(sc.hi, sq.hi)})};
    const Iv d{AddDown(xv.lo, -mu.hi), AddUp(xv.hi, -mu.lo)};
    const Iv dg = IvMul(d, g);
    double lo = AddDown(dg.lo, of.lo), hi = AddUp(dg.hi, of.hi);
    const double mag = [](Iv v) {
      return std::max(std::fabs(v.lo), std::fabs(v.hi));
    }(xv);
    const double mu_mag = std::max(std::fabs(mu.lo), std::fabs(mu.hi));
    const double g_mag = std::max(std::fabs(g.lo), std::fabs(g.hi));
    const double of_mag = std::max(std::fabs(of.lo), std::fabs(of.hi));
    const double sc_mag = std::max(std::fabs(sc.lo), std::fabs(sc.hi));
    const double r_max = DivUp(1, sq.lo);
    double bound = MulUp(2, AddUp(MulUp(MulUp(g6, AddUp(mag, mu_mag)), g_mag),
                                  MulUp(g3, of_mag)));
    bound = AddUp(
        bound, MulUp(MulUp(MulUp(static_cast<double>(n_per_feature + 8), tiny),
                           AddUp(1, MulUp(sc_mag, r_max))),
                     AddUp(1, r_max)));
    lo = AddDown(lo, -bound);
    hi = AddUp(hi, bound);
    Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, t, lo, hi,
          o.flags[i]);
    o.lo[i] = lo;
    o.hi[i] = hi;
  }
  return out;
}

// batch-norm-training: per feature f with N elements, the exact statistics
// over the operand enclosures (mean: the interval sum / N; variance: the
// intersection of Q - mu^2 and sum (x - mu)^2 / N, both interval-evaluated,
// clamped at 0) widened by the comparator's BATCH_NORM_BOUND for training
// (conformance/compare/batch_norm_bound.cc: E_mu = 2 gamma_{N+2} S1, E_var =
// 4 gamma_{N+4} (Q + S1^2) + E_mu^2, and the output bound with r+ =
// 1/sqrt(var + eps - E_var) and E_r = r+ - r), magnitudes taken over the
// enclosures, so one-pass and two-pass variances, a division or a
// reciprocal for the mean, and both output decompositions are inside. Where
// var + eps may be <= E_var (the implementation's variance may reach
// -eps) or an intermediate may overflow, the outputs are undecided.
std::optional<ValueEnclosure> EnclosurePass::BatchNormTraining(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 3 || !inst.shape().IsTuple() ||
      inst.shape().tuple_size() != 3) {
    return std::nullopt;
  }
  for (const ValueEnclosure* o : ops) {
    if (!o->shape.IsArray() || !o->array.is_float) return std::nullopt;
  }
  const ArrayEnclosure& x = ops[0]->array;
  const ArrayEnclosure& sc = ops[1]->array;
  const ArrayEnclosure& of = ops[2]->array;
  const PrimitiveType t = x.shape.element_type();
  if (!SupportedFloat(t)) return std::nullopt;
  const std::optional<BatchNormFrame> frame = BatchNormFrameOf(inst, x, t);
  if (!frame || frame->features == 0 || sc.size() != frame->features ||
      of.size() != frame->features) {
    return std::nullopt;
  }
  const FloatFormat& f = FormatOf(t);
  const int64_t features = frame->features;
  const int64_t n = frame->n;
  const double u = frame->u, rho = frame->rho, tiny = frame->tiny;
  const double eps = frame->eps;
  const double g6 = AddUp(Gamma(6, u), rho), g3 = Gamma(3, u);
  const double nd = static_cast<double>(n);
  const std::string where = absl::StrCat("batch-norm-training ", inst.name());
  ArrayEnclosure y = NewArray(x.shape);
  ArrayEnclosure mean = NewArray(inst.shape().tuple_shapes(1));
  ArrayEnclosure var = NewArray(inst.shape().tuple_shapes(2));
  for (const ValueEnclosure* o : ops) {
    for (ArrayEnclosure* a : {&y, &mean, &var}) {
      MergeReasons(a->reasons, o->array.reasons);
    }
  }
  FeatureSlice slice;
  const std::vector<int64_t>& members = slice.members;
  for (int64_t fi = 0; fi < features; ++fi) {
    slice.Start(*frame, x.size(), fi);
    for (int64_t i : members) slice.Take(x, i);
    const uint8_t stat_fl = slice.flags;
    const bool stat_finite = slice.finite;
    slice.Take(sc, fi);
    slice.Take(of, fi);
    const uint8_t fl = slice.flags;
    const bool finite = slice.finite;
    auto set_all = [&](uint8_t flags, const std::string& reason) {
      slice.SetAll(y, {&mean, &var}, flags, reason);
    };
    if (!(stat_fl & kEnclNumber)) {
      set_all(kEnclNaN, "");
      continue;
    }
    if (!stat_finite || !finite || n == 0 || (fl & kUnjudgedFlags)) {
      set_all(fl | kEnclUndecided,
              where + ": an operand element is not a finite enclosure");
      continue;
    }
    // Exact statistics over the enclosures, and the bound's magnitudes.
    double sum_lo = 0, sum_hi = 0, s1 = 0, q = 0, q_lo = 0;
    for (int64_t i : members) {
      sum_lo = AddDown(sum_lo, x.lo[i]);
      sum_hi = AddUp(sum_hi, x.hi[i]);
      const double m = MaxAbs(x.lo[i], x.hi[i]);
      const double mig = (x.lo[i] <= 0 && x.hi[i] >= 0)
                             ? 0
                             : std::min(std::fabs(x.lo[i]), std::fabs(x.hi[i]));
      s1 = AddUp(s1, m);
      q = AddUp(q, MulUp(m, m));
      q_lo = AddDown(q_lo, MulDown(mig, mig));
    }
    const Iv mu{DivDown(sum_lo, nd), DivUp(sum_hi, nd)};
    s1 = DivUp(s1, nd);
    q = DivUp(q, nd);
    q_lo = DivDown(q_lo, nd);
    // var = Q - mu^2 ...
    const Iv mu2 = IvMul(mu, mu);
    const double mu2_lo =
        (mu.lo <= 0 && mu.hi >= 0) ? 0 : std::max(0.0, mu2.lo);
    double v_lo = AddDown(q_lo, -mu2.hi), v_hi = AddUp(q, -mu2_lo);
    // ... intersected with sum (x - mu)^2 / N.
    double d_lo = 0, d_hi = 0;
    for (int64_t i : members) {
      const Iv d{AddDown(x.lo[i], -mu.hi), AddUp(x.hi[i], -mu.lo)};
      const Iv d2 = IvMul(d, d);
      d_lo = AddDown(d_lo, (d.lo <= 0 && d.hi >= 0) ? 0 : std::max(0.0, d2.lo));
      d_hi = AddUp(d_hi, d2.hi);
    }
    v_lo = std::max({v_lo, DivDown(d_lo, nd), 0.0});
    v_hi = std::min(v_hi, DivUp(d_hi, nd));
    const double e_mu = MulUp(MulUp(2, Gamma(n + 2, u)), s1);
    const double e_var =
        AddUp(MulUp(MulUp(4, Gamma(n + 4, u)), AddUp(q, MulUp(s1, s1))),
              MulUp(e_mu, e_mu));
    const double partial = MulUp(nd, AddUp(AddUp(q, MulUp(s1, s1)), s1));
    if (partial >= MaxFinite(f) / 4 || !(AddDown(v_lo, eps) > e_var)) {
      set_all(kEnclNumber | kEnclUndecided,
              where + (partial >= MaxFinite(f) / 4
                           ? ": an intermediate may overflow"
                           : ": variance + epsilon within its error of 0"));
      continue;
    }
    auto out = [&](ArrayEnclosure& a, int64_t j, double lo, double hi,
                   double e) {
      lo = AddDown(lo, -e);
      hi = AddUp(hi, e);
      uint8_t ff = kEnclNumber;
      Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, t, lo, hi, ff);
      a.flags[j] = ff;
      a.lo[j] = lo;
      a.hi[j] = hi;
    };
    out(mean, fi, mu.lo, mu.hi, e_mu);
    out(var, fi, v_lo, v_hi, e_var);
    const double r_lo = DivDown(1, SqrtUp(AddUp(v_hi, eps)));
    const double r_hi = DivUp(1, SqrtDown(AddDown(v_lo, eps)));
    const double r_plus =
        DivUp(1, SqrtDown(AddDown(AddDown(v_lo, eps), -e_var)));
    const double e_r = AddUp(r_plus, -r_lo);
    const Iv scv{sc.lo[fi], sc.hi[fi]}, ofv{of.lo[fi], of.hi[fi]};
    const double sc_mag = MaxAbs(scv.lo, scv.hi),
                 of_mag = MaxAbs(ofv.lo, ofv.hi);
    const double mu_mag = MaxAbs(mu.lo, mu.hi);
    const Iv g = IvMul(scv, Iv{r_lo, r_hi});
    for (int64_t i : members) {
      const Iv d{AddDown(x.lo[i], -mu.hi), AddUp(x.hi[i], -mu.lo)};
      const Iv dg = IvMul(d, g);
      const double xm = AddUp(MaxAbs(x.lo[i], x.hi[i]), mu_mag);
      double bound = AddUp(AddUp(MulUp(MulUp(sc_mag, AddUp(xm, e_mu)), e_r),
                                 MulUp(MulUp(sc_mag, r_hi), e_mu)),
                           AddUp(MulUp(MulUp(MulUp(g6, xm), sc_mag), r_plus),
                                 MulUp(g3, of_mag)));
      bound = MulUp(2, bound);
      bound = AddUp(bound, MulUp(MulUp(MulUp(nd + 8, tiny),
                                       AddUp(1, MulUp(sc_mag, r_plus))),
                                 AddUp(1, r_plus)));
      out(y, i, AddDown(dg.lo, ofv.lo), AddUp(dg.hi, ofv.hi), bound);
    }
  }
  ValueEnclosure v;
  v.shape = inst.shape();
  for (ArrayEnclosure* a : {&y, &mean, &var}) {
    ValueEnclosure e;
    e.shape = a->shape;
    e.array = std::move(*a);
    v.tuple.push_back(std::move(e));
  }
  return v;
}

// batch-norm-grad with the given mean mu and variance: r = 1/sqrt(var +
// eps), grad_offset = sum dy, grad_scale = r sum dy (x - mu), grad_operand
// = (scale r / N)(N dy - sum dy - (x - mu) r^2 sum dy (x - mu)), evaluated
// on the enclosures (interval sums), widened by the comparator's grad
// BATCH_NORM_BOUND: 2 gamma_N sum|dy|; 2 (gamma_{N+3} + rho) r P; 2 delta
// |scale| r (|dy| + sum|dy| / N + 2 (|x| + |mu|) P / (N (var + eps))) with
// P = sum |dy| (|x| + |mu|), delta = gamma_{N+8} + 2 rho, plus the floor
// (N + 8) tiny (1 + |scale| r)(1 + r). var + eps not surely positive, or
// sum|dy| / P (1 + r) reaching max_T / 4: undecided.
std::optional<ValueEnclosure> EnclosurePass::BatchNormGrad(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 5 || !inst.shape().IsTuple() ||
      inst.shape().tuple_size() != 3) {
    return std::nullopt;
  }
  for (const ValueEnclosure* o : ops) {
    if (!o->shape.IsArray() || !o->array.is_float) return std::nullopt;
  }
  const ArrayEnclosure& x = ops[0]->array;
  const ArrayEnclosure& sc = ops[1]->array;
  const ArrayEnclosure& mn = ops[2]->array;
  const ArrayEnclosure& vr = ops[3]->array;
  const ArrayEnclosure& dy = ops[4]->array;
  const PrimitiveType t = x.shape.element_type();
  if (!SupportedFloat(t) || dy.size() != x.size()) return std::nullopt;
  const std::optional<BatchNormFrame> frame = BatchNormFrameOf(inst, x, t);
  if (!frame || frame->features == 0 || sc.size() != frame->features ||
      mn.size() != frame->features || vr.size() != frame->features) {
    return std::nullopt;
  }
  const FloatFormat& f = FormatOf(t);
  const int64_t features = frame->features, n = frame->n;
  const double nd = static_cast<double>(n);
  const double u = frame->u, rho = frame->rho, tiny = frame->tiny;
  const double eps = frame->eps;
  const double delta = AddUp(Gamma(n + 8, u), MulUp(2, rho));
  const std::string where = absl::StrCat("batch-norm-grad ", inst.name());
  ArrayEnclosure gx = NewArray(inst.shape().tuple_shapes(0));
  ArrayEnclosure gs = NewArray(inst.shape().tuple_shapes(1));
  ArrayEnclosure go = NewArray(inst.shape().tuple_shapes(2));
  for (const ValueEnclosure* o : ops) {
    for (ArrayEnclosure* a : {&gx, &gs, &go}) {
      MergeReasons(a->reasons, o->array.reasons);
    }
  }
  FeatureSlice slice;
  const std::vector<int64_t>& members = slice.members;
  for (int64_t fi = 0; fi < features; ++fi) {
    slice.Start(*frame, x.size(), fi);
    for (int64_t i : members) {
      slice.Take(x, i);
      slice.Take(dy, i);
    }
    slice.Take(sc, fi);
    slice.Take(mn, fi);
    slice.Take(vr, fi);
    const uint8_t fl = slice.flags;
    const bool finite = slice.finite;
    auto set_all = [&](uint8_t flags, const std::string& reason) {
      slice.SetAll(gx, {&gs, &go}, flags, reason);
    };
    if (!(fl & kEnclNumber)) {
      set_all(kEnclNaN, "");
      continue;
    }
    const double v_lo = AddDown(vr.lo[fi], eps), v_hi = AddUp(vr.hi[fi], eps);
    if (!finite || n == 0 || (fl & kUnjudgedFlags) || !(v_lo > 0)) {
      set_all(fl | kEnclUndecided,
              where +
                  ": variance + epsilon not positive or operands not "
                  "finite");
      continue;
    }
    const Iv r{DivDown(1, SqrtUp(v_hi)), DivUp(1, SqrtDown(v_lo))};
    const Iv mu{mn.lo[fi], mn.hi[fi]};
    const Iv s{sc.lo[fi], sc.hi[fi]};
    const double mu_mag = MaxAbs(mu.lo, mu.hi), s_mag = MaxAbs(s.lo, s.hi);
    Iv sdy{0, 0}, sdyx{0, 0};
    double sum_abs_dy = 0, p = 0;
    for (int64_t i : members) {
      const Iv d{dy.lo[i], dy.hi[i]};
      const Iv xm{AddDown(x.lo[i], -mu.hi), AddUp(x.hi[i], -mu.lo)};
      sdy = {AddDown(sdy.lo, d.lo), AddUp(sdy.hi, d.hi)};
      const Iv prod = IvMul(d, xm);
      sdyx = {AddDown(sdyx.lo, prod.lo), AddUp(sdyx.hi, prod.hi)};
      const double dm = MaxAbs(d.lo, d.hi);
      sum_abs_dy = AddUp(sum_abs_dy, dm);
      p = AddUp(p, MulUp(dm, AddUp(MaxAbs(x.lo[i], x.hi[i]), mu_mag)));
    }
    if (sum_abs_dy >= MaxFinite(f) / 4 ||
        MulUp(p, AddUp(1, r.hi)) >= MaxFinite(f) / 4) {
      set_all(kEnclNumber | kEnclUndecided,
              where + ": an intermediate may overflow");
      continue;
    }
    const double floor_term =
        MulUp(MulUp(MulUp(nd + 8, tiny), AddUp(1, MulUp(s_mag, r.hi))),
              AddUp(1, r.hi));
    auto out = [&](ArrayEnclosure& a, int64_t j, Iv v, double e) {
      e = AddUp(e, floor_term);
      double lo = AddDown(v.lo, -e), hi = AddUp(v.hi, e);
      uint8_t ff = kEnclNumber;
      Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, t, lo, hi, ff);
      a.flags[j] = ff;
      a.lo[j] = lo;
      a.hi[j] = hi;
    };
    out(go, fi, sdy, MulUp(MulUp(2, Gamma(n, u)), sum_abs_dy));
    out(gs, fi, IvMul(r, sdyx),
        MulUp(MulUp(MulUp(2, AddUp(Gamma(n + 3, u), rho)), r.hi), p));
    const Iv r2 = IvMul(r, r);
    const Iv r2s = IvMul(r2, sdyx);
    const Iv k = IvMul(s, Iv{DivDown(r.lo, nd), DivUp(r.hi, nd)});
    const double tail = MulUp(2, DivUp(p, MulDown(nd, v_lo)));
    for (int64_t i : members) {
      const Iv d{dy.lo[i], dy.hi[i]};
      const Iv xm{AddDown(x.lo[i], -mu.hi), AddUp(x.hi[i], -mu.lo)};
      const Iv t1{MulDown(nd, d.lo), MulUp(nd, d.hi)};
      const Iv t3 = IvMul(xm, r2s);
      const Iv inner_v{AddDown(AddDown(t1.lo, -sdy.hi), -t3.hi),
                       AddUp(AddUp(t1.hi, -sdy.lo), -t3.lo)};
      // 2 delta |scale| r (|dy| + sum|dy| / N + (|x| + |mu|) tail).
      const double e_full =
          MulUp(MulUp(MulUp(MulUp(2, delta), s_mag), r.hi),
                AddUp(AddUp(MaxAbs(d.lo, d.hi), DivUp(sum_abs_dy, nd)),
                      MulUp(AddUp(MaxAbs(x.lo[i], x.hi[i]), mu_mag), tail)));
      out(gx, i, IvMul(k, inner_v), e_full);
    }
  }
  ValueEnclosure v;
  v.shape = inst.shape();
  for (ArrayEnclosure* a : {&gx, &gs, &go}) {
    ValueEnclosure e;
    e.shape = a->shape;
    e.array = std::move(*a);
    v.tuple.push_back(std::move(e));
  }
  return v;
}

// reduce-window with an add, maximum or minimum reducer, the oracle doing
// the windows on f64 values: max / min are monotone in every operand, so
// the windows of the lower ends and of the upper ends bound the result
// exactly; add is monotone too, its f64 windows are exact sums rounded
// once (numerics.md decision 4), stepped one ulp outward, and the
// accumulation bound is gamma_m(u_T) S with S the window sums of the
// magnitudes and m the window size (an upper bound of every window's count).
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::ReduceWindow(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 2 || !inst.shape().IsArray()) return std::nullopt;
  std::optional<HloOpcode> reducer = SimpleReducer(inst.to_apply());
  if (!reducer && IsMultiplyReducer(inst.to_apply())) {
    return ReduceWindowMultiply(inst, ops);
  }
  if (!reducer) return std::nullopt;
  const ArrayEnclosure& x = ops[0]->array;
  const ArrayEnclosure& init = ops[1]->array;
  const PrimitiveType t = inst.shape().element_type();
  if (!x.is_float || !init.is_float || !SupportedFloat(t) ||
      ReducerType(inst.to_apply()) != t || x.shape.element_type() != t) {
    return std::nullopt;
  }
  const std::string where = absl::StrCat("reduce-window ", inst.name());
  // max / min take infinities as they are (-inf is their usual init).
  const bool add = *reducer == HloOpcode::kAdd;
  for (const ArrayEnclosure* a : {&x, &init}) {
    for (int64_t i = 0; i < a->size(); ++i) {
      if (a->flags[i] != kEnclNumber ||
          (add && (!std::isfinite(a->lo[i]) || !std::isfinite(a->hi[i])))) {
        ValueEnclosure v =
            Flagged(inst.shape(), kEnclUndecided,
                    where + ": an operand element is not a finite enclosure");
        MergeReasons(v.array.reasons, a->reasons);
        return std::optional<ValueEnclosure>(std::move(v));
      }
    }
  }
  Shape xs = x.shape, is = init.shape, rs = inst.shape();
  xs.set_element_type(PrimitiveType::kF64);
  is.set_element_type(PrimitiveType::kF64);
  rs.set_element_type(PrimitiveType::kF64);
  auto window = [&](const std::vector<double>& a,
                    const std::vector<double>& b) {
    return RunIsolatedF64(inst, xs, a, is, b, rs);
  };
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> lo, window(x.lo, init.lo));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> hi, window(x.hi, init.hi));
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  MergeReasons(o.reasons, x.reasons);
  MergeReasons(o.reasons, init.reasons);
  if (!add) {
    o.lo = std::move(lo);
    o.hi = std::move(hi);
    return std::optional<ValueEnclosure>(std::move(out));
  }
  auto magnitudes = [](const ArrayEnclosure& a) {
    std::vector<double> m(a.lo.size());
    for (size_t i = 0; i < m.size(); ++i) {
      m[i] = std::max(std::fabs(a.lo[i]), std::fabs(a.hi[i]));
    }
    return m;
  };
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> sv,
                          window(magnitudes(x), magnitudes(init)));
  int64_t m = 1;
  for (const WindowDimension& d : inst.attrs().window.dimensions) m *= d.size;
  // Exactly zero addends round nothing (as reduce): per window, the
  // addends that may be nonzero (the init included) from the oracle's
  // window plan; at most that many minus one additions round along any
  // path of any summation tree.
  HLOREF_ASSIGN_OR_RETURN(
      WindowPlan plan,
      MakeWindowPlan(inst, x.shape.dimensions(), inst.shape().dimensions()));
  const bool planned = static_cast<int64_t>(plan.start.size()) == o.size() + 1;
  const int64_t init_nonzero = IsPointZero(Iv{init.lo[0], init.hi[0]}) ? 0 : 1;
  const FloatFormat& f = FormatOf(t);
  for (int64_t j = 0; j < o.size(); ++j) {
    const double s = Up(sv[j]);
    int64_t steps = m;
    PartialSums partial;
    if (planned) {
      int64_t nonzero = init_nonzero;
      partial.Add(init.lo[0], init.hi[0], init_nonzero == 0);
      for (int64_t k = plan.start[j]; k < plan.start[j + 1]; ++k) {
        const int64_t i = plan.offsets[k];
        const bool zero = IsPointZero(Iv{x.lo[i], x.hi[i]});
        nonzero += zero ? 0 : 1;
        partial.Add(x.lo[i], x.hi[i], zero);
      }
      steps = RoundingSteps(t, m, std::max<int64_t>(nonzero - 1, 0));
    }
    const double e = AccumulationBound(t, steps, s, /*dot=*/false, nullptr,
                                       planned ? &partial : nullptr);
    if (AddUp(s, e) > MaxFinite(f)) {
      o.flags[j] = kEnclNumber | kEnclNaN;
      o.lo[j] = -kInf;
      o.hi[j] = kInf;
      AddReason(o.reasons, where + ": an intermediate may overflow");
      continue;
    }
    double l = AddDown(Down(lo[j]), -e), h = AddUp(Up(hi[j]), e);
    if (sv[j] == 0) l = h = 0;  // every term is exactly zero
    Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, t, l, h,
          o.flags[j]);
    o.lo[j] = l;
    o.hi[j] = h;
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// reduce-precision rounds to nearest (even) into a smaller format: a
// monotone non-decreasing map, so the rounded ends of the operand's
// enclosure bound it exactly (the oracle rounds them: two isolated runs on
// the ends, each first rounded outward into the operand type). It is not
// an op a backend may skip or compute wider, so no further widening.
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::ReducePrecision(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 1 || !inst.shape().IsArray()) return std::nullopt;
  const ArrayEnclosure& x = ops[0]->array;
  const PrimitiveType t = inst.shape().element_type();
  if (!x.is_float || x.shape.element_type() != t) return std::nullopt;
  std::vector<double> lo(x.size()), hi(x.size());
  for (int64_t i = 0; i < x.size(); ++i) {
    const bool num = (x.flags[i] & kEnclNumber) && x.Judgeable(i);
    lo[i] = num ? RoundDownTo(t, x.lo[i]) : 0;
    hi[i] = num ? RoundUpTo(t, x.hi[i]) : 0;
  }
  HLOREF_ASSIGN_OR_RETURN(Literal llo, StoreDoubles(x.shape, lo));
  HLOREF_ASSIGN_OR_RETURN(Literal lhi, StoreDoubles(x.shape, hi));
  std::vector<Literal> args_lo, args_hi;
  args_lo.push_back(std::move(llo));
  args_hi.push_back(std::move(lhi));
  HLOREF_ASSIGN_OR_RETURN(EvalResult rlo,
                          RunIsolated(inst, args_lo, inst.shape(), 0));
  HLOREF_ASSIGN_OR_RETURN(EvalResult rhi,
                          RunIsolated(inst, args_hi, inst.shape(), 0));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> vlo, LoadDoubles(rlo.value));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> vhi, LoadDoubles(rhi.value));
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  MergeReasons(o.reasons, x.reasons);
  for (int64_t i = 0; i < o.size(); ++i) {
    o.flags[i] = x.flags[i];
    if (!(x.flags[i] & kEnclNumber) || !x.Judgeable(i)) {
      o.lo[i] = x.lo[i];
      o.hi[i] = x.hi[i];
      continue;
    }
    o.lo[i] = vlo[i];
    o.hi[i] = vhi[i];
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// map: the mapped computation on each element's scalar enclosures (every
// op inside by its own rule, so the result holds every conforming
// evaluation of the computation, fused or not).
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::Map(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const HloComputation* comp = inst.to_apply();
  if (comp == nullptr || !inst.shape().IsArray() ||
      !comp->root()->shape().IsArray()) {
    return std::nullopt;
  }
  for (const ValueEnclosure* o : ops) {
    if (!o->shape.IsArray() || o->array.is_complex) return std::nullopt;
  }
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  if (o.is_complex ||
      o.is_float != SupportedFloat(comp->root()->shape().element_type())) {
    return std::nullopt;
  }
  std::vector<ValueEnclosure> scalars(ops.size());
  for (size_t k = 0; k < ops.size(); ++k) {
    const ArrayEnclosure& a = ops[k]->array;
    MergeReasons(o.reasons, a.reasons);
    const Shape s = Shape::Scalar(a.shape.element_type());
    scalars[k].shape = s;
    scalars[k].array = NewArray(s);
  }
  std::vector<const ValueEnclosure*> ptrs;
  for (const ValueEnclosure& v : scalars) ptrs.push_back(&v);
  for (int64_t i = 0; i < o.size(); ++i) {
    for (size_t k = 0; k < ops.size(); ++k) {
      const ArrayEnclosure& a = ops[k]->array;
      ArrayEnclosure& e = scalars[k].array;
      e.flags[0] = a.flags[i];
      if (e.is_float) {
        e.lo[0] = a.lo[i];
        e.hi[0] = a.hi[i];
      } else {
        e.ints[0] = a.ints[i];
      }
    }
    HLOREF_ASSIGN_OR_RETURN(ValueEnclosure r, Computation(*comp, ptrs));
    o.flags[i] = r.array.flags[0];
    if (o.is_float) {
      o.lo[i] = r.array.lo[0];
      o.hi[i] = r.array.hi[0];
    } else {
      o.ints[i] = r.array.ints[0];
    }
    MergeReasons(o.reasons, r.array.reasons);
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// reduce with a multiply reducer (one operand and init): the product rule
// of MultiplyReduction over the init and the reduced elements.
std::optional<ValueEnclosure> EnclosurePass::ReduceMultiply(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const ArrayEnclosure& a = ops[0]->array;
  const ArrayEnclosure& init = ops[1]->array;
  const PrimitiveType t = inst.shape().element_type();
  if (!a.is_float || !init.is_float || !SupportedFloat(t) ||
      a.shape.element_type() != t || ReducerType(inst.to_apply()) != t) {
    return std::nullopt;
  }
  const auto [ko, ro] = ReduceOffsets(a.shape, inst.attrs().dimensions);
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  if (static_cast<int64_t>(ko.size()) != o.size()) return std::nullopt;
  MergeReasons(o.reasons, a.reasons);
  MergeReasons(o.reasons, init.reasons);
  const std::string where = absl::StrCat("reduce ", inst.name());
  for (int64_t j = 0; j < o.size(); ++j) {
    MultiplyReduction(
        t, static_cast<int64_t>(ro.size()),
        [&](const std::function<void(double, double, uint8_t)>& take) {
          take(init.lo[0], init.hi[0], init.flags[0]);
          for (int64_t r : ro) {
            const int64_t i = ko[j] + r;
            take(a.lo[i], a.hi[i], a.flags[i]);
          }
        },
        where, o.lo[j], o.hi[j], o.flags[j], o.reasons);
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// scatter of floats (one operand, decided indices) with an add, maximum
// or minimum combiner. Each combiner is monotone in both arguments, so the
// oracle's f64 scatters of the lower ends and of the upper ends bound every
// order of combination; max / min combine exactly. add: each result element
// is the operand plus the m updates scattered into it, summed in an
// arbitrary order (overlapping updates: the order is unspecified), so the
// bound is gamma_m(u_T) S with S the f64 scatter of the magnitudes and m
// the count of updates into the element (a scatter of ones into zeros);
// the f64 runs round each combination, (m + 2) 2^-52 S covers that. add
// needs finite enclosures.
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::ScatterFloat(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 3 || !inst.shape().IsArray()) return std::nullopt;
  std::optional<HloOpcode> combiner = SimpleReducer(inst.to_apply());
  if (!combiner) return std::nullopt;
  const ArrayEnclosure& x = ops[0]->array;
  const ArrayEnclosure& upd = ops[2]->array;
  const PrimitiveType t = inst.shape().element_type();
  if (!x.is_float || !upd.is_float || !SupportedFloat(t) ||
      ReducerType(inst.to_apply()) != t || upd.shape.element_type() != t) {
    return std::nullopt;
  }
  const std::string where = absl::StrCat("scatter ", inst.name());
  std::optional<Literal> indices = PointLiteral(ops[1]->array);
  if (!indices) {
    ValueEnclosure v =
        Flagged(inst.shape(), kEnclUndecided, where + ": indices undecided");
    MergeReasons(v.array.reasons, ops[1]->array.reasons);
    return std::optional<ValueEnclosure>(std::move(v));
  }
  const bool add = *combiner == HloOpcode::kAdd;
  for (const ArrayEnclosure* a : {&x, &upd}) {
    for (int64_t i = 0; i < a->size(); ++i) {
      if (a->flags[i] != kEnclNumber ||
          (add && (!std::isfinite(a->lo[i]) || !std::isfinite(a->hi[i])))) {
        ValueEnclosure v =
            Flagged(inst.shape(), kEnclUndecided,
                    where + ": an operand element is not a finite enclosure");
        MergeReasons(v.array.reasons, a->reasons);
        return std::optional<ValueEnclosure>(std::move(v));
      }
    }
  }
  Shape xs = x.shape, us = upd.shape, rs = inst.shape();
  xs.set_element_type(PrimitiveType::kF64);
  us.set_element_type(PrimitiveType::kF64);
  rs.set_element_type(PrimitiveType::kF64);
  auto run =
      [&](const std::vector<double>& a,
          const std::vector<double>& b) -> absl::StatusOr<std::vector<double>> {
    std::vector<Literal> args;
    HLOREF_ASSIGN_OR_RETURN(Literal la, StoreDoubles(xs, a));
    HLOREF_ASSIGN_OR_RETURN(Literal lb, StoreDoubles(us, b));
    args.push_back(std::move(la));
    args.push_back(*indices);
    args.push_back(std::move(lb));
    HLOREF_ASSIGN_OR_RETURN(EvalResult r,
                            RunIsolated(inst, args, rs, /*variant=*/2));
    return LoadDoubles(r.value);
  };
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> lo, run(x.lo, upd.lo));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> hi, run(x.hi, upd.hi));
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  for (const ValueEnclosure* v : ops) MergeReasons(o.reasons, v->array.reasons);
  if (!add) {
    o.lo = std::move(lo);
    o.hi = std::move(hi);
    return std::optional<ValueEnclosure>(std::move(out));
  }
  auto magnitudes = [](const ArrayEnclosure& a) {
    std::vector<double> m(a.lo.size());
    for (size_t i = 0; i < m.size(); ++i) {
      m[i] = std::max(std::fabs(a.lo[i]), std::fabs(a.hi[i]));
    }
    return m;
  };
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> sv,
                          run(magnitudes(x), magnitudes(upd)));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> count,
                          run(std::vector<double>(x.size(), 0),
                              std::vector<double>(upd.size(), 1)));
  // The addends that may be nonzero (the operand's element and the
  // updates), counted by a scatter of indicators (exact in f64): an
  // exactly zero addend rounds nothing, so along every path of every order
  // at most (that count - 1) additions round (as reduce).
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> nonzero,
                          run(NonzeroIndicator(x), NonzeroIndicator(upd)));
  // The partial-sum bound's data (PartialSums): P and N per element from
  // scatters of the positive parts (max(hi, 0)) and of the negative parts
  // (max(-lo, 0)) of the operand and the updates (non-negative terms, so
  // within (m + 2) 2^-52 relative like sv), the largest term's parts over
  // the whole operands.
  double pos_max = 0, neg_max = 0;
  auto part = [&](const ArrayEnclosure& a, bool positive) {
    std::vector<double> v(a.lo.size());
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = positive ? std::max(a.hi[i], 0.0) : std::max(-a.lo[i], 0.0);
      (positive ? pos_max : neg_max) =
          std::max(positive ? pos_max : neg_max, v[i]);
    }
    return v;
  };
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> pos,
                          run(part(x, true), part(upd, true)));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> neg,
                          run(part(x, false), part(upd, false)));
  const FloatFormat& f = FormatOf(t);
  for (int64_t j = 0; j < o.size(); ++j) {
    const int64_t m = static_cast<int64_t>(count[j]);
    if (m == 0) {  // untouched: the operand's element
      o.lo[j] = lo[j];
      o.hi[j] = hi[j];
      continue;
    }
    const int64_t steps = RoundingSteps(
        t, m, std::max<int64_t>(static_cast<int64_t>(nonzero[j]) - 1, 0));
    const double f64_err =
        MulUp(MulUp(static_cast<double>(m + 2), 0x1p-52), sv[j]);
    const double s = AddUp(sv[j], f64_err);
    const double f64_up = AddUp(1, MulUp(static_cast<double>(m + 2), 0x1p-52));
    PartialSums partial;
    partial.n = static_cast<int64_t>(nonzero[j]);
    partial.p = MulUp(pos[j], f64_up);
    partial.q = MulUp(neg[j], f64_up);
    partial.p_max = pos_max;
    partial.q_max = neg_max;
    const double e =
        AccumulationBound(t, steps, s, /*dot=*/false, nullptr, &partial);
    if (AddUp(s, e) > MaxFinite(f)) {
      o.flags[j] = kEnclNumber | kEnclNaN;
      o.lo[j] = -kInf;
      o.hi[j] = kInf;
      AddReason(o.reasons, where + ": an intermediate may overflow");
      continue;
    }
    double l = AddDown(AddDown(lo[j], -f64_err), -e);
    double h = AddUp(AddUp(hi[j], f64_err), e);
    Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, t, l, h,
          o.flags[j]);
    o.lo[j] = l;
    o.hi[j] = h;
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// select-and-scatter of floats whose select is one comparison of its two
// parameters (GE, GT, LE or LT, FLOAT or TOTALORDER; max pooling's
// gradient is GE) and whose scatter is add, maximum or minimum in the
// element type T.
//
// Selection. Seed 001 calls select(a, b) with a's index lexicographically
// before b's (a smaller row-major offset) and requires select to be
// transitive, so on actual values that are numbers "i preferred over j"
// is a strict total order of the window's elements and the selected
// element is the one preferred over every other, in any traversal order.
// A pair is decided when the enclosures decide its comparison
// (DecideCompare: disjoint intervals, equal points, zero signs under
// TOTALORDER undecided). An element is a candidate unless some pair is
// decided against it; the actual selection is preferred over every other
// element, so it is always a candidate, and a window with one candidate
// selects it for sure. A window with an element that may be NaN or is not
// judgeable (transitivity then fails: a row-major fold with GE over
// {1, NaN, 0} selects the 0) has every element as a candidate.
//
// Scatter (seed: "the evaluation order of the scatter function is
// arbitrary"): output element j is the init combined with the source of
// every window that selects j for sure (D_j) and of some subset of the
// windows where j is one of several candidates (P_j), in any order.
// add: the exact value lies in [init.lo + sum_D lo + sum_P min(0, lo),
// init.hi + sum_D hi + sum_P max(0, hi)], and every subset and order
// rounds at most m = |D_j| + |P_j| times (fewer with exactly zero terms),
// so reduce's accumulation bound gamma_m(u_T) S with S the magnitudes of
// the init and of every term in D_j and P_j holds every conforming result;
// exact data (reduce's ExactSumCheck over all of them) rounds nothing in
// any subset. maximum / minimum: exact, [max(init.lo, max_D lo),
// max(init.hi, max_{D+P} hi)] (minimum alike). A NaN source in D_j makes
// j NaN; in P_j, NaN is allowed.
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::SelectAndScatter(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 3 || !inst.shape().IsArray()) return std::nullopt;
  const HloComputation* select = inst.select();
  std::optional<HloOpcode> combiner = SimpleReducer(inst.scatter());
  if (select == nullptr || !combiner || select->num_parameters() != 2) {
    return std::nullopt;
  }
  const PrimitiveType t = inst.shape().element_type();
  const HloInstruction* root = select->root();
  if (root == nullptr || root->opcode() != HloOpcode::kCompare ||
      root->operand_count() != 2) {
    return std::nullopt;
  }
  const HloInstruction* pa = root->operand(0);
  const HloInstruction* pb = root->operand(1);
  if (pa->opcode() != HloOpcode::kParameter ||
      pb->opcode() != HloOpcode::kParameter || pa == pb ||
      !pa->shape().IsArray() || pa->shape().element_type() != t ||
      !pb->shape().IsArray() || pb->shape().element_type() != t) {
    return std::nullopt;
  }
  ComparisonDirection dir = root->attrs().direction;
  if (dir == ComparisonDirection::kEq || dir == ComparisonDirection::kNe) {
    return std::nullopt;
  }
  if (pa->parameter_number() == 1) {  // compare(b, a): the mirrored order
    switch (dir) {
      case ComparisonDirection::kGe:
        dir = ComparisonDirection::kLe;
        break;
      case ComparisonDirection::kGt:
        dir = ComparisonDirection::kLt;
        break;
      case ComparisonDirection::kLe:
        dir = ComparisonDirection::kGe;
        break;
      default:
        dir = ComparisonDirection::kGt;
        break;
    }
  }
  const bool total =
      root->attrs().comparison_type == ComparisonType::kTotalOrder;
  const ArrayEnclosure& x = ops[0]->array;
  const ArrayEnclosure& src = ops[1]->array;
  const ArrayEnclosure& init = ops[2]->array;
  if (!x.is_float || !src.is_float || !init.is_float || !SupportedFloat(t) ||
      x.shape.element_type() != t || src.shape.element_type() != t ||
      init.shape.element_type() != t || init.size() != 1 ||
      ReducerType(inst.scatter()) != t) {
    return std::nullopt;
  }
  HLOREF_ASSIGN_OR_RETURN(
      WindowPlan plan,
      MakeWindowPlan(inst, x.shape.dimensions(), src.shape.dimensions()));
  if (static_cast<int64_t>(plan.start.size()) != src.size() + 1) {
    return std::nullopt;
  }
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  if (o.size() != x.size()) return std::nullopt;
  const std::string where = absl::StrCat("select-and-scatter ", inst.name());
  // Per output element: (window, selected for sure).
  std::vector<std::vector<std::pair<int64_t, bool>>> into(o.size());
  std::vector<char> lost;
  for (int64_t w = 0; w + 1 < static_cast<int64_t>(plan.start.size()); ++w) {
    const int64_t b = plan.start[w], n = plan.start[w + 1] - b;
    if (n == 0) continue;  // entirely on padding: nothing scattered
    const int64_t* off = plan.offsets.data() + b;
    lost.assign(n, 0);
    bool judgeable = true;
    for (int64_t k = 0; k < n; ++k) judgeable &= x.flags[off[k]] == kEnclNumber;
    if (judgeable) {
      for (int64_t p = 0; p < n; ++p) {
        for (int64_t q = p + 1; q < n; ++q) {
          // select(first, second) with first the lower operand index.
          const int64_t first = off[p] < off[q] ? p : q;
          const int64_t second = first == p ? q : p;
          const int64_t i = off[first], k = off[second];
          const int r = DecideCompare(dir, total, x.lo[i], x.hi[i], x.flags[i],
                                      x.lo[k], x.hi[k], x.flags[k]);
          if (r == 1) lost[second] = 1;
          if (r == 0) lost[first] = 1;
        }
      }
    }
    const int64_t candidates =
        n - static_cast<int64_t>(std::count(lost.begin(), lost.end(), 1));
    for (int64_t k = 0; k < n; ++k) {
      if (!lost[k]) into[off[k]].push_back({w, candidates == 1});
    }
  }
  MergeReasons(o.reasons, src.reasons);
  MergeReasons(o.reasons, init.reasons);
  const bool add = *combiner == HloOpcode::kAdd;
  const bool max = *combiner == HloOpcode::kMaximum;
  for (int64_t j = 0; j < o.size(); ++j) {
    uint8_t fl = init.flags[0];
    bool must_nan = !(init.flags[0] & kEnclNumber), unbounded = false;
    bool undecided_selection = false;
    double lo = init.lo[0], hi = init.hi[0];
    double s = must_nan ? 0 : MaxAbs(lo, hi);
    int64_t nonzero = !must_nan && !IsPointZero(Iv{lo, hi}) ? 1 : 0;
    ExactSumCheck exact;
    // Every candidate term: a sum over a subset of them is bounded by the
    // partial sums of all of them (subsets of a subset are subsets).
    PartialSums partial;
    if (!must_nan) {
      exact.Add(lo, hi);
      partial.Add(lo, hi, IsPointZero(Iv{lo, hi}));
    }
    if (add && !must_nan && (!std::isfinite(lo) || !std::isfinite(hi))) {
      unbounded = true;
    }
    for (const auto& [w, sure] : into[j]) {
      const uint8_t sf = src.flags[w];
      fl |= sf & (kUnjudgedFlags | kEnclNaN);
      undecided_selection |= !sure;
      if (!(sf & kEnclNumber)) {  // a NaN source
        if (sure) must_nan = true;
        continue;
      }
      const double slo = src.lo[w], shi = src.hi[w];
      if (add) {
        if (!std::isfinite(slo) || !std::isfinite(shi)) {
          unbounded = true;
          continue;
        }
        exact.Add(slo, shi);
        partial.Add(slo, shi, IsPointZero(Iv{slo, shi}));
        if (!IsPointZero(Iv{slo, shi})) ++nonzero;
        lo = AddDown(lo, sure ? slo : std::min(0.0, slo));
        hi = AddUp(hi, sure ? shi : std::max(0.0, shi));
        s = AddUp(s, MaxAbs(slo, shi));
      } else if (max) {
        if (sure) lo = std::max(lo, slo);
        hi = std::max(hi, shi);
      } else {
        lo = std::min(lo, slo);
        if (sure) hi = std::min(hi, shi);
      }
    }
    if (undecided_selection) {
      AddReason(o.reasons, where + ": selection undecided in some windows");
    }
    const int64_t m = static_cast<int64_t>(into[j].size());
    FinishFold(must_nan, unbounded, add, m, nonzero, exact, partial, s, t,
               where, o.reasons, lo, hi, fl);
    o.lo[j] = lo;
    o.hi[j] = hi;
    o.flags[j] = fl;
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// Interval division [a] / [b] with 0 outside [b] (finite ends).
Iv IvDiv(Iv a, Iv b) {
  const double c[4][2] = {
      {a.lo, b.lo}, {a.lo, b.hi}, {a.hi, b.lo}, {a.hi, b.hi}};
  Iv r{kInf, -kInf};
  for (const auto& p : c) {
    r.lo = std::min(r.lo, DivDown(p[0], p[1]));
    r.hi = std::max(r.hi, DivUp(p[0], p[1]));
  }
  return r;
}

// Interval substitution for the m x m triangular interval matrix t
// (row-major; lower or upper) and right-hand side b: every x_i = (b_i -
// sum_j t_ij x_j) / t_ii computed in outward-rounded interval arithmetic,
// so the result holds T^-1 b for every point T in t and b in b (each point
// system's substitution runs inside the interval one, step by step).
// false where a diagonal interval meets zero or an end is not finite.
bool IntervalSubstitution(const std::vector<Iv>& t, int64_t m, bool lower,
                          const std::vector<Iv>& b, std::vector<Iv>& x) {
  x.assign(m, Iv{0, 0});
  for (int64_t s = 0; s < m; ++s) {
    const int64_t i = lower ? s : m - 1 - s;
    Iv acc = b[i];
    for (int64_t j = 0; j < m; ++j) {
      if (j == i || (lower ? j > i : j < i)) continue;
      const Iv p = IvMul(t[i * m + j], x[j]);
      acc = {AddDown(acc.lo, -p.hi), AddUp(acc.hi, -p.lo)};
    }
    const Iv d = t[i * m + i];
    if (!(d.lo > 0 || d.hi < 0)) return false;
    x[i] = IvDiv(acc, d);
    if (!std::isfinite(x[i].lo) || !std::isfinite(x[i].hi)) return false;
  }
  return true;
}

// triangular-solve of real floats: op(A) X = B (left_side) or X op(A) = B,
// T = op(A) restricted to the attribute's triangle (unit_diagonal: ones);
// the right-side form is the left one for T^T and B^T. The exact solutions
// over the operand enclosures: interval substitution (IntervalSubstitution)
// per column. The allowed error: numerics.md / the comparator's
// FORWARD_ERROR bound for substitution and for inverting diagonal blocks
// (conformance/compare/backward_error.cc), |x^ - x|_i <= 4 gamma_{n+1}(u)
// (C^2 |x|)_i + (n + 2) tiny (1 + n max|T^-1|) with C = |T^-1| |T|, taken
// at its largest over the box: |T^-1| <= the magnitudes of the interval
// inverse (substitution on the identity's columns), |T| <= mag [T], |x| <=
// mag [x], every sum and product rounded up (the bound is monotone in
// each). Where the comparator masks the element (a diagonal that may be
// zero: impl.triangular-solve.1; non-finite operands; partial sums that
// may reach max / 2) the elements are undecided. The comparator centres
// the bound on the oracle's solution, the enclosure on the exact set.
std::optional<ValueEnclosure> EnclosurePass::TriangularSolve(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 2 || !inst.shape().IsArray()) return std::nullopt;
  const ArrayEnclosure& a = ops[0]->array;
  const ArrayEnclosure& bx = ops[1]->array;
  const PrimitiveType t = inst.shape().element_type();
  if (!a.is_float || !bx.is_float || !SupportedFloat(t) ||
      a.shape.element_type() != t || bx.shape.element_type() != t) {
    return std::nullopt;
  }
  const int64_t rank = bx.shape.rank();
  if (rank < 2 || a.shape.rank() != rank) return std::nullopt;
  const HloAttributes& attrs = inst.attrs();
  const bool left = attrs.left_side;
  const int64_t m = a.shape.dimensions(rank - 1);
  if (a.shape.dimensions(rank - 2) != m) return std::nullopt;
  const int64_t rows = bx.shape.dimensions(rank - 2);
  const int64_t cols = bx.shape.dimensions(rank - 1);
  if ((left ? rows : cols) != m) return std::nullopt;
  const int64_t k = left ? cols : rows;  // right-hand sides per batch
  const int64_t mm = m * m, mk = m * k;
  if (mk == 0 || bx.size() % mk != 0 || a.size() != bx.size() / mk * mm) {
    return std::nullopt;
  }
  const int64_t batch = bx.size() / mk;
  const bool transposed = attrs.transpose_a == TransposeA::kTranspose ||
                          attrs.transpose_a == TransposeA::kAdjoint;
  // T = op(tri(A)); for the right side the left form's matrix is T^T.
  const bool t_lower = (attrs.lower != transposed) != !left;
  const FloatFormat& f = FormatOf(t);
  const double u = std::ldexp(1.0, -Precision(f));
  const double gamma = Gamma(m + 1, u);
  const double tiny = options_.deviations.ftz_types.count(t) > 0
                          ? MinNormal(f)
                          : MinSubnormal(f);
  const std::string where = absl::StrCat("triangular-solve ", inst.name());
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  MergeReasons(o.reasons, a.reasons);
  MergeReasons(o.reasons, bx.reasons);
  std::vector<Iv> tm(mm), inv(mm), col(m), x, e(m);
  std::vector<double> tmag(mm), imag(mm), cmat(mm), xmag(m), w(m);
  for (int64_t bt = 0; bt < batch; ++bt) {
    const int64_t xbase = bt * mk;
    // Element q of right-hand side `line`: (q, line) left, (line, q) right.
    auto pos = [&](int64_t q, int64_t line) {
      return xbase + (left ? q * k + line : line * m + q);
    };
    auto undecided = [&](const std::string& why, uint8_t fl) {
      for (int64_t i = 0; i < mk; ++i) {
        o.flags[xbase + i] = fl;
        o.lo[xbase + i] = -kInf;
        o.hi[xbase + i] = kInf;
      }
      if (!why.empty()) AddReason(o.reasons, where + ": " + why);
    };
    uint8_t inherited = 0;
    bool finite = true;
    for (int64_t i = 0; i < mm; ++i) {
      const int64_t ai = bt * mm + i;
      inherited |= a.flags[ai] & kUnjudgedFlags;
      finite = finite && a.flags[ai] == kEnclNumber &&
               std::isfinite(a.lo[ai]) && std::isfinite(a.hi[ai]);
    }
    for (int64_t i = 0; i < mk; ++i) {
      inherited |= bx.flags[xbase + i] & kUnjudgedFlags;
      finite = finite && bx.flags[xbase + i] == kEnclNumber &&
               std::isfinite(bx.lo[xbase + i]) &&
               std::isfinite(bx.hi[xbase + i]);
    }
    if (inherited != 0) {
      undecided("", inherited);
      continue;
    }
    if (!finite) {
      undecided("a non-finite operand (impl.triangular-solve.1)",
                kEnclUndecided);
      continue;
    }
    // tri(p, q): a restricted to its triangle; T = op(tri); left form.
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        auto tri = [&](int64_t p, int64_t q) -> Iv {
          if (p == q) {
            if (attrs.unit_diagonal) return Iv{1, 1};
          } else if (!(attrs.lower ? p > q : p < q)) {
            return Iv{0, 0};
          }
          const int64_t ai = bt * mm + p * m + q;
          return Iv{a.lo[ai], a.hi[ai]};
        };
        // T(i, j) = transposed ? tri(j, i) : tri(i, j); the left form of
        // the right side reads T(j, i).
        const bool flip = transposed != !left;
        tm[i * m + j] = flip ? tri(j, i) : tri(i, j);
        tmag[i * m + j] = MaxAbs(tm[i * m + j].lo, tm[i * m + j].hi);
      }
    }
    // The interval inverse, column by column.
    bool invertible = true;
    for (int64_t j = 0; j < m && invertible; ++j) {
      for (int64_t i = 0; i < m; ++i) {
        const double v = i == j ? 1.0 : 0.0;
        col[i] = Iv{v, v};
      }
      invertible = IntervalSubstitution(tm, m, t_lower, col, x);
      for (int64_t i = 0; invertible && i < m; ++i) inv[i * m + j] = x[i];
    }
    if (!invertible) {
      undecided("the system may be singular (impl.triangular-solve.1)",
                kEnclUndecided);
      continue;
    }
    double max_inv = 0;
    for (int64_t i = 0; i < mm; ++i) {
      imag[i] = MaxAbs(inv[i].lo, inv[i].hi);
      max_inv = std::max(max_inv, imag[i]);
    }
    // C = |T^-1| |T|, rounded up.
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        double c = 0;
        for (int64_t q = 0; q < m; ++q) {
          c = AddUp(c, MulUp(imag[i * m + q], tmag[q * m + j]));
        }
        cmat[i * m + j] = c;
      }
    }
    const double floor =
        MulUp(MulUp(static_cast<double>(m + 2), tiny),
              AddUp(1.0, MulUp(static_cast<double>(m), max_inv)));
    for (int64_t line = 0; line < k; ++line) {
      for (int64_t q = 0; q < m; ++q) {
        const int64_t bi = pos(q, line);
        e[q] = Iv{bx.lo[bi], bx.hi[bi]};
      }
      if (!IntervalSubstitution(tm, m, t_lower, e, x)) {
        for (int64_t q = 0; q < m; ++q) {
          const int64_t oi = pos(q, line);
          o.flags[oi] = kEnclUndecided;
          o.lo[oi] = -kInf;
          o.hi[oi] = kInf;
        }
        AddReason(o.reasons, where + ": the solution may overflow");
        continue;
      }
      for (int64_t q = 0; q < m; ++q) xmag[q] = MaxAbs(x[q].lo, x[q].hi);
      // The comparator's reach: substitution's partial sums (2 |T| |x|)
      // and the inverse method's (C |x|) must stay below max / 2.
      double reach = 0;
      for (int64_t i = 0; i < m; ++i) {
        double sum = 0, cw = 0;
        for (int64_t q = 0; q < m; ++q) {
          sum = AddUp(sum, MulUp(tmag[i * m + q], xmag[q]));
          cw = AddUp(cw, MulUp(cmat[i * m + q], xmag[q]));
        }
        w[i] = cw;
        reach = std::max({reach, MulUp(2, sum), cw});
      }
      if (!(MulUp(2, reach) < MaxFinite(f))) {
        for (int64_t q = 0; q < m; ++q) {
          const int64_t oi = pos(q, line);
          o.flags[oi] = kEnclUndecided;
          o.lo[oi] = -kInf;
          o.hi[oi] = kInf;
        }
        AddReason(o.reasons, where + ": an intermediate may overflow");
        continue;
      }
      for (int64_t i = 0; i < m; ++i) {
        double cw = 0;
        for (int64_t q = 0; q < m; ++q) {
          cw = AddUp(cw, MulUp(cmat[i * m + q], w[q]));
        }
        const double bound = AddUp(MulUp(MulUp(4, gamma), cw), floor);
        const int64_t oi = pos(i, line);
        double lo = AddDown(x[i].lo, -bound), hi = AddUp(x[i].hi, bound);
        uint8_t fl = kEnclNumber;
        Widen(EnclosureErrorClass{EnclosureErrorKind::kRounded}, t, lo, hi, fl);
        o.lo[oi] = lo;
        o.hi[oi] = hi;
        o.flags[oi] = fl;
      }
    }
  }
  return out;
}

// The sort key of a sort comparator of the form compare(p_a, p_b) with
// {a, b} = {2k, 2k + 1} and direction LT or GT (LE or GE when
// `non_strict`): the key operand k and whether the order is descending;
// nullopt for other comparators.
struct SortKey {
  int64_t operand;
  bool descending;
  bool total_order;
  bool strict = true;  // LT / GT; false: LE / GE
};
// Key arithmetic: both sides may negate the parameter the same number of
// times. Negation is exact and reverses the order of numbers, and of the
// TOTALORDER sequence (it flips the sign bit of a sign-magnitude order), so
// compare(-a, -b, LT) is compare(a, b, GT) under FLOAT and TOTALORDER
// alike (a NaN compares false either way under FLOAT).
const HloInstruction* StripNegations(const HloInstruction* h, int* count) {
  while (h->opcode() == HloOpcode::kNegate && h->operand_count() == 1) {
    h = h->operand(0);
    ++*count;
  }
  return h;
}
std::optional<SortKey> KeyCompare(const HloInstruction* root,
                                  bool non_strict = false) {
  if (root == nullptr || root->opcode() != HloOpcode::kCompare ||
      root->operand_count() != 2) {
    return std::nullopt;
  }
  int x_neg = 0, y_neg = 0;
  const HloInstruction* x = StripNegations(root->operand(0), &x_neg);
  const HloInstruction* y = StripNegations(root->operand(1), &y_neg);
  if (x->opcode() != HloOpcode::kParameter ||
      y->opcode() != HloOpcode::kParameter || x_neg != y_neg) {
    return std::nullopt;
  }
  const int64_t a = x->parameter_number(), b = y->parameter_number();
  if (a / 2 != b / 2 || a == b) return std::nullopt;
  const ComparisonDirection dir = root->attrs().direction;
  const bool strict =
      dir == ComparisonDirection::kLt || dir == ComparisonDirection::kGt;
  if (!strict && !(non_strict && (dir == ComparisonDirection::kLe ||
                                  dir == ComparisonDirection::kGe))) {
    return std::nullopt;
  }
  const bool swapped = a > b;
  const bool greater = (dir == ComparisonDirection::kGt ||
                        dir == ComparisonDirection::kGe) != (x_neg % 2 == 1);
  return SortKey{a / 2, greater != swapped,
                 root->attrs().comparison_type == ComparisonType::kTotalOrder,
                 strict};
}

// compare(p_2k, p_2k+1) (either order) with direction `dir` (EQ or NE,
// symmetric): the key operand k, or -1.
int64_t KeyEquality(const HloInstruction* inst, ComparisonDirection dir) {
  if (inst == nullptr || inst->opcode() != HloOpcode::kCompare ||
      inst->operand_count() != 2 || inst->attrs().direction != dir) {
    return -1;
  }
  int x_neg = 0, y_neg = 0;  // -a == -b exactly when a == b
  const HloInstruction* x = StripNegations(inst->operand(0), &x_neg);
  const HloInstruction* y = StripNegations(inst->operand(1), &y_neg);
  if (x->opcode() != HloOpcode::kParameter ||
      y->opcode() != HloOpcode::kParameter || x_neg != y_neg) {
    return -1;
  }
  const int64_t a = x->parameter_number(), b = y->parameter_number();
  return a / 2 == b / 2 && a != b ? a / 2 : -1;
}

// The keys of a lexicographic comparator, most significant first:
//   lt(k)                                   one key (KeyCompare)
//   or(lt(k), and(eq(k), rest))             JAX's lowering (operands of
//                                           or / and in either order)
//   select(ne(k), lt(k), rest)              XLA's comparator builder
//   select(eq(k), rest, lt(k))
// where eq / ne compare the same pair as lt(k). Empty: not of this form.
std::vector<SortKey> LexicographicKeys(const HloInstruction* root) {
  if (std::optional<SortKey> k = KeyCompare(root)) return {*k};
  std::optional<SortKey> first;
  const HloInstruction* rest = nullptr;
  if (root->opcode() == HloOpcode::kOr && root->operand_count() == 2) {
    for (int i = 0; i < 2 && !first; ++i) {
      const HloInstruction* lt = root->operand(i);
      const HloInstruction* conj = root->operand(1 - i);
      std::optional<SortKey> k = KeyCompare(lt);
      if (!k || conj->opcode() != HloOpcode::kAnd ||
          conj->operand_count() != 2) {
        continue;
      }
      for (int e = 0; e < 2; ++e) {
        if (KeyEquality(conj->operand(e), ComparisonDirection::kEq) ==
            k->operand) {
          first = k;
          rest = conj->operand(1 - e);
          break;
        }
      }
    }
  } else if (root->opcode() == HloOpcode::kSelect &&
             root->operand_count() == 3) {
    const HloInstruction* pred = root->operand(0);
    if (std::optional<SortKey> k = KeyCompare(root->operand(1));
        k && KeyEquality(pred, ComparisonDirection::kNe) == k->operand) {
      first = k;
      rest = root->operand(2);
    } else if (std::optional<SortKey> k = KeyCompare(root->operand(2));
               k && KeyEquality(pred, ComparisonDirection::kEq) == k->operand) {
      first = k;
      rest = root->operand(1);
    }
  }
  if (!first) return {};
  std::vector<SortKey> keys = LexicographicKeys(rest);
  if (keys.empty()) return {};
  for (const SortKey& k : keys) {
    if (k.operand == first->operand) return {};
  }
  keys.insert(keys.begin(), *first);
  return keys;
}

// The comparator's keys; a one-key comparator may be non-strict (LE / GE),
// a lexicographic one may not.
std::vector<SortKey> SortKeys(const HloComputation* comp) {
  if (comp == nullptr || comp->root() == nullptr) return {};
  std::vector<SortKey> keys = LexicographicKeys(comp->root());
  if (keys.empty()) {
    if (std::optional<SortKey> k = KeyCompare(comp->root(), true)) keys = {*k};
  }
  return keys;
}

// Several keys (a lexicographic comparator): before[q] / after[q] count
// the elements of the slice (n = before.size(), element q at base + q
// stride) definitely before / after q. For each pair the keys are compared
// most significant first: disjoint enclosures decide; equal nonzero points
// go on to the next key (zero points do not: their signs are not tracked,
// and a TOTALORDER compare orders -0 before +0); anything else leaves the
// pair undecided. Equal on every key: by index where the sort is stable.
// Pairwise, O(n^2) per slice.
void LexicographicPlaces(const std::vector<const ValueEnclosure*>& ops,
                         const std::vector<SortKey>& lex, int64_t base,
                         int64_t stride, bool stable,
                         std::vector<int64_t>& before,
                         std::vector<int64_t>& after) {
  const int64_t n = static_cast<int64_t>(before.size());
  auto ends = [&](const ArrayEnclosure& a, int64_t i) {
    return a.is_float ? Iv{a.lo[i], a.hi[i]}
                      : Iv{static_cast<double>(a.ints[i]),
                           static_cast<double>(a.ints[i])};
  };
  // -1: j before q; 1: j after q; 0: undecided.
  auto order = [&](int64_t q, int64_t j) {
    for (const SortKey& k : lex) {
      const ArrayEnclosure& a = ops[k.operand]->array;
      const Iv x = ends(a, base + q * stride), y = ends(a, base + j * stride);
      if (y.hi < x.lo) return k.descending ? 1 : -1;
      if (y.lo > x.hi) return k.descending ? -1 : 1;
      if (!(x.lo == x.hi && y.lo == y.hi && x.lo == y.lo && x.lo != 0)) {
        return 0;
      }
    }
    return stable ? (j < q ? -1 : 1) : 0;
  };
  for (int64_t q = 0; q < n; ++q) {
    before[q] = after[q] = 0;
    for (int64_t j = 0; j < n; ++j) {
      if (j == q) continue;
      const int o = order(q, j);
      before[q] += o < 0;
      after[q] += o > 0;
    }
  }
}

// sort (by one key, LT or GT comparator, or several: LexicographicKeys)
// and topk of enclosures. Along each
// slice of n keys with enclosures [lo_i, hi_i] (numbers only), the key at
// sorted position p is the p-th order statistic of the actual keys, which
// is non-decreasing in every key: it lies in [p-th smallest lo, p-th
// smallest hi] (descending: the p-th largest), whatever the ties. An
// element's position is decided when every other element is definitely
// before it (hi_j < lo_i ascending) or definitely after it, equal points
// being ordered by index where the sort is stable (topk: always, the lower
// index first); then the other operands (payloads, topk's indices) at that
// position are that element's. Otherwise those outputs are undecided. A
// slice with a key that may be NaN or is unjudged is undecided throughout;
// under TOTALORDER equal zero points are not ordered (their signs are not
// tracked). Several keys: the most significant one's outputs are its order
// statistics (a lexicographic sort sorts it); the positions are decided
// pairwise (LexicographicPlaces) and the other keys are carried as
// payloads.
std::optional<ValueEnclosure> EnclosurePass::SortRounded(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const bool topk = inst.opcode() == HloOpcode::kTopK;
  SortKey key{0, true, true};
  std::vector<SortKey> lex;  // the keys, most significant first
  if (!topk) {
    lex = SortKeys(inst.to_apply());
    if (lex.empty()) return std::nullopt;
    for (const SortKey& k : lex) {
      if (k.operand >= static_cast<int64_t>(ops.size())) return std::nullopt;
    }
    key = lex[0];
    if (!key.strict && options_.oracle.profile == Profile::kPortable) {
      // A non-strict comparator (a <= a) is not a strict weak order: the
      // sort has no defined result (impl.sort.1, spec/impl_defined.md), so
      // under the portable profile every output is don't care.
      ValueEnclosure v = Flagged(inst.shape(), kEnclDontCare,
                                 "implementation-defined (impl.sort.1)");
      return v;
    }
  } else {
    key.descending = inst.attrs().largest;
    lex = {key};
  }
  for (const ValueEnclosure* o : ops) {
    if (!o->shape.IsArray()) return std::nullopt;
    const PrimitiveType t = o->shape.element_type();
    if (IsComplex(t) || (IsFloat(t) && !SupportedFloat(t))) {
      return std::nullopt;
    }
  }
  const ArrayEnclosure& keys = ops[key.operand]->array;
  const int64_t rank = keys.shape.rank();
  if (rank == 0) return std::nullopt;
  int64_t dim = rank - 1;
  if (!topk && !inst.attrs().dimensions.empty()) {
    dim = inst.attrs().dimensions[0];
  }
  const auto dims = keys.shape.dimensions();
  const int64_t n = dims[dim];
  const int64_t out_n = topk ? inst.attrs().k : n;
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != dim) kept.push_back(d);
  }
  const std::vector<int64_t> bases = Offsets(dims, strides, kept);
  const bool stable = topk || inst.attrs().is_stable;
  // Output arrays: sort: one per operand, the same shapes; topk: values and
  // s32 indices, the row cut to k.
  std::vector<Shape> out_shapes;
  if (inst.shape().IsTuple()) {
    for (const Shape& sh : inst.shape().tuple_shapes()) {
      out_shapes.push_back(sh);
    }
  } else {
    out_shapes.push_back(inst.shape());
  }
  if ((topk && out_shapes.size() != 2) ||
      (!topk && out_shapes.size() != ops.size())) {
    return std::nullopt;
  }
  std::vector<ArrayEnclosure> outs;
  for (const Shape& sh : out_shapes) outs.push_back(NewArray(sh));
  const std::vector<int64_t> out_strides =
      RowMajorStrides(out_shapes[0].dimensions());
  const std::vector<int64_t> out_bases =
      Offsets(out_shapes[0].dimensions(), out_strides, kept);
  if (out_bases.size() != bases.size()) return std::nullopt;
  for (ArrayEnclosure& o : outs) {
    for (const ValueEnclosure* x : ops)
      MergeReasons(o.reasons, x->array.reasons);
  }
  const std::string where = absl::StrCat(OpName(inst), " ", inst.name());
  auto key_lo = [&](int64_t i) {
    return keys.is_float ? keys.lo[i] : static_cast<double>(keys.ints[i]);
  };
  auto key_hi = [&](int64_t i) {
    return keys.is_float ? keys.hi[i] : static_cast<double>(keys.ints[i]);
  };
  std::vector<double> los(n), his(n), slo(n), shi(n);
  std::vector<int64_t> before(n), after(n);
  for (size_t s = 0; s < bases.size(); ++s) {
    const int64_t base = bases[s], obase = out_bases[s];
    const int64_t stride = strides[dim], ostride = out_strides[dim];
    bool decided = true;
    for (int64_t q = 0; q < n; ++q) {
      const int64_t i = base + q * stride;
      for (const SortKey& k : lex) {
        if (ops[k.operand]->array.flags[i] != kEnclNumber) decided = false;
      }
      los[q] = key_lo(i);
      his[q] = key_hi(i);
    }
    if (!decided) {
      for (ArrayEnclosure& o : outs) {
        for (int64_t p = 0; p < out_n; ++p) {
          const int64_t j = obase + p * ostride;
          o.flags[j] = kEnclUndecided;
          if (o.is_float) {
            o.lo[j] = -kInf;
            o.hi[j] = kInf;
          }
        }
        AddReason(o.reasons, where + ": a key may be NaN or is unjudged");
      }
      continue;
    }
    // Order statistics of the ends.
    slo = los;
    shi = his;
    std::sort(slo.begin(), slo.end());
    std::sort(shi.begin(), shi.end());
    // before[q] / after[q]: elements definitely before / after q.
    // Ascending: j before q when hi_j < lo_q; descending when lo_j > hi_q.
    std::map<double, std::vector<int64_t>> points;  // value -> indices
    for (int64_t q = 0; q < n; ++q) {
      if (los[q] == his[q] && !(key.total_order && los[q] == 0)) {
        points[los[q]].push_back(q);
      }
    }
    for (int64_t q = 0; lex.size() == 1 && q < n; ++q) {
      const int64_t below = std::lower_bound(shi.begin(), shi.end(), los[q]) -
                            shi.begin();  // hi_j < lo_q
      const int64_t above =
          n - (std::upper_bound(slo.begin(), slo.end(), his[q]) -
               slo.begin());  // lo_j > hi_q
      int64_t tie_before = 0, tie_after = 0;
      if (stable && key.strict) {
        auto it = points.find(los[q]);
        if (it != points.end() && his[q] == los[q]) {
          const std::vector<int64_t>& v = it->second;
          tie_before = std::lower_bound(v.begin(), v.end(), q) - v.begin();
          tie_after = static_cast<int64_t>(v.size()) - tie_before - 1;
        }
      }
      before[q] = (key.descending ? above : below) + tie_before;
      after[q] = (key.descending ? below : above) + tie_after;
    }
    if (lex.size() > 1)
      LexicographicPlaces(ops, lex, base, stride, stable, before, after);
    // The element at each decided position.
    std::vector<int64_t> at(n, -1);
    for (int64_t q = 0; q < n; ++q) {
      if (before[q] + after[q] == n - 1) at[before[q]] = q;
    }
    for (size_t k = 0; k < outs.size(); ++k) {
      ArrayEnclosure& o = outs[k];
      const bool is_key =
          topk ? k == 0 : static_cast<int64_t>(k) == key.operand;
      for (int64_t p = 0; p < out_n; ++p) {
        const int64_t j = obase + p * ostride;
        if (is_key) {
          o.flags[j] = kEnclNumber;
          const int64_t r = key.descending ? n - 1 - p : p;
          if (o.is_float) {
            o.lo[j] = slo[r];
            o.hi[j] = shi[r];
          } else if (slo[r] == shi[r]) {
            o.ints[j] = static_cast<int64_t>(slo[r]);
          } else {
            o.flags[j] = kEnclUndecided;
          }
          continue;
        }
        const int64_t q = at[p];
        if (q < 0) {
          o.flags[j] = kEnclUndecided;
          if (o.is_float) {
            o.lo[j] = -kInf;
            o.hi[j] = kInf;
          }
          AddReason(o.reasons, where +
                                   ": the order of overlapping keys is "
                                   "undecided");
          continue;
        }
        if (topk) {
          o.ints[j] = q;
          continue;
        }
        const ArrayEnclosure& src = ops[k]->array;
        const int64_t i = base + q * stride;
        o.flags[j] = src.flags[i];
        if (o.is_float) {
          o.lo[j] = src.lo[i];
          o.hi[j] = src.hi[i];
        } else {
          o.ints[j] = src.ints[i];
        }
      }
    }
  }
  ValueEnclosure out;
  out.shape = inst.shape();
  if (inst.shape().IsTuple()) {
    for (size_t k = 0; k < outs.size(); ++k) {
      ValueEnclosure e;
      e.shape = out_shapes[k];
      e.array = std::move(outs[k]);
      out.tuple.push_back(std::move(e));
    }
  } else {
    out.array = std::move(outs[0]);
  }
  return out;
}

// A reducer whose float results are selections among its inputs (compare,
// select, maximum, minimum, logic, integer ops, constants): it rounds
// nothing. The spec requires reducers to be associative and commutative
// (the evaluation order is arbitrary), which such an exact reducer then is
// on the actual values, so folding it over one order of the elements'
// enclosures (compare decided by the enclosures, select on an undecided
// predicate taking the union) encloses every order's result.
bool IsSelectionReducer(const HloComputation* comp) {
  if (comp == nullptr) return false;
  for (const auto& inst : comp->instructions()) {
    const Shape& sh = inst->shape();
    const bool float_result = HasFloat(sh);
    switch (inst->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kCompare:
      case HloOpcode::kSelect:
      case HloOpcode::kMaximum:
      case HloOpcode::kMinimum:
      case HloOpcode::kTuple:
      case HloOpcode::kGetTupleElement:
      case HloOpcode::kAnd:
      case HloOpcode::kOr:
      case HloOpcode::kNot:
      case HloOpcode::kXor:
        break;
      default:
        if (float_result || !inst->called_computations().empty()) {
          return false;
        }
        break;
    }
  }
  return true;
}

// reduce or reduce-window (one or several operands) with a selection
// reducer (argmax, argmin, max with a payload): the reducer's own rules
// folded over each output's elements, starting from the inits. reduce:
// the reduced elements in row-major order. reduce-window: each window's
// elements (the oracle's window plan: padding and base-dilation holes hold
// none, as the oracle's fold). The fold's order does not matter
// (IsSelectionReducer).
absl::StatusOr<std::optional<ValueEnclosure>> EnclosurePass::ReduceBySelection(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const HloComputation* comp = inst.to_apply();
  if (!IsSelectionReducer(comp) || ops.size() % 2 != 0 || ops.empty()) {
    return std::nullopt;
  }
  const size_t m = ops.size() / 2;
  for (const ValueEnclosure* o : ops) {
    if (!o->shape.IsArray() || o->array.is_complex) return std::nullopt;
  }
  const ArrayEnclosure& first = ops[0]->array;
  for (size_t k = 1; k < m; ++k) {
    if (ops[k]->array.shape.dimensions() != first.shape.dimensions()) {
      return std::nullopt;
    }
  }
  // The reducer's parameters must have the operands' element types (a bf16
  // reducer of f32 data converts, which the fold would not show).
  if (comp->num_parameters() != static_cast<int64_t>(2 * m)) {
    return std::nullopt;
  }
  for (size_t k = 0; k < 2 * m; ++k) {
    const HloInstruction* p = comp->parameter(static_cast<int64_t>(k));
    const ValueEnclosure* o = k < m ? ops[m + k] : ops[k - m];
    if (p == nullptr || !p->shape().IsArray() ||
        p->shape().element_type() != o->shape.element_type()) {
      return std::nullopt;
    }
  }
  std::vector<Shape> out_shapes;
  if (inst.shape().IsTuple()) {
    for (const Shape& sh : inst.shape().tuple_shapes())
      out_shapes.push_back(sh);
  } else {
    out_shapes.push_back(inst.shape());
  }
  if (out_shapes.size() != m) return std::nullopt;
  // The operand elements of each output element: starts[j] .. starts[j+1]
  // in `members`.
  std::vector<int64_t> starts, members;
  if (inst.opcode() == HloOpcode::kReduceWindow) {
    HLOREF_ASSIGN_OR_RETURN(WindowPlan plan,
                            MakeWindowPlan(inst, first.shape.dimensions(),
                                           out_shapes[0].dimensions()));
    starts = std::move(plan.start);
    members = std::move(plan.offsets);
  } else {
    const auto [ko, ro] = ReduceOffsets(first.shape, inst.attrs().dimensions);
    for (int64_t k : ko) {
      starts.push_back(static_cast<int64_t>(members.size()));
      for (int64_t r : ro) members.push_back(k + r);
    }
    starts.push_back(static_cast<int64_t>(members.size()));
  }
  const int64_t count = static_cast<int64_t>(starts.size()) - 1;
  std::vector<ArrayEnclosure> outs;
  for (const Shape& sh : out_shapes) {
    outs.push_back(NewArray(sh));
    if (outs.back().size() != count) return std::nullopt;
    for (const ValueEnclosure* x : ops) {
      MergeReasons(outs.back().reasons, x->array.reasons);
    }
  }
  // Scalar enclosures: the accumulator (m values) and the element (m).
  auto scalar = [](const ArrayEnclosure& a, int64_t i) {
    ValueEnclosure v;
    v.shape = Shape::Scalar(a.shape.element_type());
    v.array = NewArray(v.shape);
    v.array.flags[0] = a.flags[i];
    if (v.array.is_float) {
      v.array.lo[0] = a.lo[i];
      v.array.hi[0] = a.hi[i];
    } else {
      v.array.ints[0] = a.ints[i];
    }
    return v;
  };
  for (int64_t j = 0; j < count; ++j) {
    std::vector<ValueEnclosure> acc;
    for (size_t k = 0; k < m; ++k) acc.push_back(scalar(ops[m + k]->array, 0));
    for (int64_t e = starts[j]; e < starts[j + 1]; ++e) {
      std::vector<ValueEnclosure> args = acc;
      for (size_t k = 0; k < m; ++k) {
        args.push_back(scalar(ops[k]->array, members[e]));
      }
      std::vector<const ValueEnclosure*> ptrs;
      for (const ValueEnclosure& a : args) ptrs.push_back(&a);
      HLOREF_ASSIGN_OR_RETURN(ValueEnclosure res, Computation(*comp, ptrs));
      if (m == 1) {
        if (!res.shape.IsArray()) return std::nullopt;
        acc[0] = std::move(res);
      } else {
        if (res.tuple.size() != m) return std::nullopt;
        for (size_t k = 0; k < m; ++k) acc[k] = std::move(res.tuple[k]);
      }
    }
    for (size_t k = 0; k < m; ++k) {
      const ArrayEnclosure& a = acc[k].array;
      ArrayEnclosure& o = outs[k];
      if (a.is_float != o.is_float) return std::nullopt;
      o.flags[j] = a.flags[0];
      if (o.is_float) {
        o.lo[j] = a.lo[0];
        o.hi[j] = a.hi[0];
      } else {
        o.ints[j] = a.ints[0];
      }
      MergeReasons(o.reasons, a.reasons);
    }
  }
  ValueEnclosure out;
  out.shape = inst.shape();
  if (inst.shape().IsTuple()) {
    for (size_t k = 0; k < m; ++k) {
      ValueEnclosure e;
      e.shape = out_shapes[k];
      e.array = std::move(outs[k]);
      out.tuple.push_back(std::move(e));
    }
  } else {
    out.array = std::move(outs[0]);
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// The element type a two-parameter reducer computes in (kInvalid if not a
// scalar array).
PrimitiveType ReducerType(const HloComputation* comp) {
  if (comp == nullptr || comp->root() == nullptr ||
      !comp->root()->shape().IsArray()) {
    return PrimitiveType::kInvalid;
  }
  return comp->root()->shape().element_type();
}

// reduce-window with a multiply reducer, data of any sign: each window's
// elements (the oracle's window plan: padding and base-dilation holes hold
// none) and the init go through MultiplyReduction, as reduce's do: the
// outward-rounded interval product of the factors widened by
// gamma_n(u_T) |P| with n the window's element count, and its underflow /
// overflow / zero / NaN cases.
absl::StatusOr<std::optional<ValueEnclosure>>
EnclosurePass::ReduceWindowMultiply(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const ArrayEnclosure& x = ops[0]->array;
  const ArrayEnclosure& init = ops[1]->array;
  const PrimitiveType t = inst.shape().element_type();
  if (!x.is_float || !init.is_float || !SupportedFloat(t) ||
      ReducerType(inst.to_apply()) != t || x.shape.element_type() != t ||
      init.size() != 1) {
    return std::nullopt;
  }
  HLOREF_ASSIGN_OR_RETURN(
      WindowPlan plan,
      MakeWindowPlan(inst, x.shape.dimensions(), inst.shape().dimensions()));
  const std::string where = absl::StrCat("reduce-window ", inst.name());
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  if (static_cast<int64_t>(plan.start.size()) != o.size() + 1) {
    return std::nullopt;
  }
  MergeReasons(o.reasons, x.reasons);
  MergeReasons(o.reasons, init.reasons);
  for (int64_t j = 0; j < o.size(); ++j) {
    const int64_t begin = plan.start[j], end = plan.start[j + 1];
    MultiplyReduction(
        t, end - begin,
        [&](const std::function<void(double, double, uint8_t)>& take) {
          take(init.lo[0], init.hi[0], init.flags[0]);
          for (int64_t k = begin; k < end; ++k) {
            const int64_t i = plan.offsets[k];
            take(x.lo[i], x.hi[i], x.flags[i]);
          }
        },
        where, o.lo[j], o.hi[j], o.flags[j], o.reasons);
  }
  return std::optional<ValueEnclosure>(std::move(out));
}

// The reducer of a reduce: add, maximum or minimum of its two parameters.
std::optional<HloOpcode> SimpleReducer(const HloComputation* comp) {
  if (comp == nullptr || comp->num_parameters() != 2) return std::nullopt;
  const HloInstruction* root = comp->root();
  if (root == nullptr || root->operand_count() != 2) return std::nullopt;
  // The reducer must compute in the element type of its user (a bf16
  // reducer of f32 data rounds every step to bf16): callers compare
  // ReducerType with their element type.
  const HloOpcode op = root->opcode();
  if (op != HloOpcode::kAdd && op != HloOpcode::kMaximum &&
      op != HloOpcode::kMinimum) {
    return std::nullopt;
  }
  const HloInstruction* x = root->operand(0);
  const HloInstruction* y = root->operand(1);
  if (x->opcode() != HloOpcode::kParameter ||
      y->opcode() != HloOpcode::kParameter || x == y) {
    return std::nullopt;
  }
  return op;
}

// A reducer multiplying its two parameters.
bool IsMultiplyReducer(const HloComputation* comp) {
  if (comp == nullptr || comp->num_parameters() != 2) return false;
  const HloInstruction* root = comp->root();
  return root != nullptr && root->opcode() == HloOpcode::kMultiply &&
         root->operand(0)->opcode() == HloOpcode::kParameter &&
         root->operand(1)->opcode() == HloOpcode::kParameter &&
         root->operand(0) != root->operand(1);
}

// reduce of complex values with an add reducer in the element type: a
// complex add is one correctly rounded real add per part (class R part by
// part, as ComplexElementwise), so each part of the result is a real sum
// of that part of the init and the elements, in any order: reduce's real
// rule per part (its exact-zero count, partial-sum bound and directed
// rounding into the component type). An element that is not a finite
// box (complex NaNs and infinities are not tracked), or a part whose
// intermediate may overflow, leaves the output undecided.
std::optional<ValueEnclosure> EnclosurePass::ComplexReduceAdd(
    const HloInstruction& inst, const ArrayEnclosure& a,
    const ArrayEnclosure& init) {
  const PrimitiveType part = ComplexComponentType(inst.shape().element_type());
  if (!SupportedFloat(part)) return std::nullopt;
  const auto [ko, ro] = ReduceOffsets(a.shape, inst.attrs().dimensions);
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  if (static_cast<int64_t>(ko.size()) != o.size() || !o.is_complex) {
    return std::nullopt;
  }
  MergeReasons(o.reasons, a.reasons);
  MergeReasons(o.reasons, init.reasons);
  const int64_t n = static_cast<int64_t>(ro.size());
  const std::string where = absl::StrCat("reduce ", inst.name());
  auto finite_box = [](const ArrayEnclosure& e, int64_t i) {
    return e.flags[i] == kEnclNumber && std::isfinite(e.lo[i]) &&
           std::isfinite(e.hi[i]) && std::isfinite(e.ilo[i]) &&
           std::isfinite(e.ihi[i]);
  };
  for (int64_t j = 0; j < o.size(); ++j) {
    bool tracked = finite_box(init, 0);
    uint8_t inherited = init.flags[0] & kUnjudgedFlags;
    for (int64_t r : ro) {
      tracked &= finite_box(a, ko[j] + r);
      inherited |= a.flags[ko[j] + r] & kUnjudgedFlags;
    }
    uint8_t fl = kEnclNumber;
    // One part: the init's [lo, hi], then each element's.
    auto fold = [&](double init_lo, double init_hi,
                    const std::vector<double>& vlo,
                    const std::vector<double>& vhi, double& lo, double& hi) {
      lo = init_lo;
      hi = init_hi;
      double s = std::max(std::fabs(lo), std::fabs(hi));
      int64_t nonzero = IsPointZero(Iv{lo, hi}) ? 0 : 1;
      ExactSumCheck exact;
      PartialSums partial;
      exact.Add(lo, hi);
      partial.Add(lo, hi, IsPointZero(Iv{lo, hi}));
      for (int64_t r : ro) {
        const int64_t i = ko[j] + r;
        const bool zero = IsPointZero(Iv{vlo[i], vhi[i]});
        exact.Add(vlo[i], vhi[i]);
        partial.Add(vlo[i], vhi[i], zero);
        nonzero += zero ? 0 : 1;
        lo = AddDown(lo, vlo[i]);
        hi = AddUp(hi, vhi[i]);
        s = AddUp(s, std::max(std::fabs(vlo[i]), std::fabs(vhi[i])));
      }
      FinishFold(false, false, true, n, nonzero, exact, partial, s, part, where,
                 o.reasons, lo, hi, fl);
    };
    if (tracked) {
      fold(init.lo[0], init.hi[0], a.lo, a.hi, o.lo[j], o.hi[j]);
      fold(init.ilo[0], init.ihi[0], a.ilo, a.ihi, o.ilo[j], o.ihi[j]);
    }
    if (!tracked || fl != kEnclNumber) {
      o.flags[j] = inherited != 0 ? inherited : uint8_t{kEnclUndecided};
      o.lo[j] = o.ilo[j] = -kInf;
      o.hi[j] = o.ihi[j] = kInf;
      if (inherited == 0) {
        AddReason(o.reasons, where +
                                 ": a complex part may be non-finite "
                                 "(not tracked)");
      }
      continue;
    }
    o.flags[j] = fl;
  }
  return out;
}

std::optional<ValueEnclosure> EnclosurePass::Reduce(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  if (ops.size() != 2 || !inst.shape().IsArray()) return std::nullopt;
  if (IsMultiplyReducer(inst.to_apply())) return ReduceMultiply(inst, ops);
  std::optional<HloOpcode> reducer = SimpleReducer(inst.to_apply());
  if (!reducer) return std::nullopt;
  const ArrayEnclosure& a = ops[0]->array;
  const ArrayEnclosure& init = ops[1]->array;
  const PrimitiveType t = inst.shape().element_type();
  if (a.is_complex && init.is_complex && *reducer == HloOpcode::kAdd &&
      a.shape.element_type() == t && ReducerType(inst.to_apply()) == t) {
    return ComplexReduceAdd(inst, a, init);
  }
  if (!a.is_float || !init.is_float || !SupportedFloat(t) ||
      a.shape.element_type() != t || ReducerType(inst.to_apply()) != t) {
    return std::nullopt;
  }
  const auto [ko, ro] = ReduceOffsets(a.shape, inst.attrs().dimensions);
  ValueEnclosure out;
  out.shape = inst.shape();
  out.array = NewArray(inst.shape());
  ArrayEnclosure& o = out.array;
  if (static_cast<int64_t>(ko.size()) != o.size()) return std::nullopt;
  MergeReasons(o.reasons, a.reasons);
  MergeReasons(o.reasons, init.reasons);
  const int64_t n = static_cast<int64_t>(ro.size());
  const bool add = *reducer == HloOpcode::kAdd;
  const std::string where = absl::StrCat("reduce ", inst.name());
  for (int64_t j = 0; j < o.size(); ++j) {
    uint8_t fl = init.flags[0];
    bool must_nan = !(init.flags[0] & kEnclNumber), unbounded = false;
    double lo = init.lo[0], hi = init.hi[0];
    double s = must_nan ? 0 : std::max(std::fabs(lo), std::fabs(hi));
    // Addends (the init included) that may be nonzero.
    int64_t nonzero = !must_nan && !IsPointZero(Iv{lo, hi}) ? 1 : 0;
    ExactSumCheck exact;
    PartialSums partial;
    if (!must_nan) {
      exact.Add(lo, hi);
      partial.Add(lo, hi, IsPointZero(Iv{lo, hi}));
    }
    if (add && !must_nan && (!std::isfinite(lo) || !std::isfinite(hi))) {
      unbounded = true;
    }
    for (int64_t r : ro) {
      const int64_t i = ko[j] + r;
      fl |= a.flags[i] & (kUnjudgedFlags | kEnclNaN);
      if (!(a.flags[i] & kEnclNumber)) {
        must_nan = true;
        continue;
      }
      if (add) {
        if (!std::isfinite(a.lo[i]) || !std::isfinite(a.hi[i])) {
          unbounded = true;
          continue;
        }
        exact.Add(a.lo[i], a.hi[i]);
        partial.Add(a.lo[i], a.hi[i], IsPointZero(Iv{a.lo[i], a.hi[i]}));
        if (!IsPointZero(Iv{a.lo[i], a.hi[i]})) ++nonzero;
        lo = AddDown(lo, a.lo[i]);
        hi = AddUp(hi, a.hi[i]);
        s = AddUp(s, std::max(std::fabs(a.lo[i]), std::fabs(a.hi[i])));
      } else if (*reducer == HloOpcode::kMaximum) {
        lo = std::max(lo, a.lo[i]);
        hi = std::max(hi, a.hi[i]);
      } else {
        lo = std::min(lo, a.lo[i]);
        hi = std::min(hi, a.hi[i]);
      }
    }
    FinishFold(must_nan, unbounded, add, n, nonzero, exact, partial, s, t,
               where, o.reasons, lo, hi, fl);
    o.lo[j] = lo;
    o.hi[j] = hi;
    o.flags[j] = fl;
  }
  return out;
}

bool HasFloat(const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) {
      if (HasFloat(e)) return true;
    }
    return false;
  }
  return s.IsArray() &&
         (IsFloat(s.element_type()) || IsComplex(s.element_type()));
}

// A sort comparator made of comparisons and logic only: sorting exact
// operands with it is exact.
bool IsExactComparator(const HloComputation* comp) {
  if (comp == nullptr) return false;
  for (const auto& inst : comp->instructions()) {
    switch (inst->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kCompare:
      case HloOpcode::kAnd:
      case HloOpcode::kOr:
      case HloOpcode::kNot:
      case HloOpcode::kXor:
      case HloOpcode::kSelect:
      case HloOpcode::kBitcastConvert:
        break;
      default:
        return false;
    }
  }
  return true;
}

// An op the oracle cannot evaluate on its own (host transfers without
// queues, ...): no rule for what it produces, with the oracle's reason.
ValueEnclosure IsolationFailed(const HloInstruction& inst,
                               const absl::Status& status) {
  return Flagged(inst.shape(), kEnclNoRule,
                 absl::StrCat("op ", OpName(inst), " ", inst.name(),
                              ": the oracle cannot evaluate it alone: ",
                              status.message()));
}

bool IsControlFlow(HloOpcode op) {
  return op == HloOpcode::kWhile || op == HloOpcode::kConditional ||
         op == HloOpcode::kCall || op == HloOpcode::kFusion ||
         op == HloOpcode::kCustomCall || op == HloOpcode::kMap;
}

// Element-wise ops of integers: the result element depends on the same
// element of each operand only.
bool IsElementwiseFamily(HloOpcode op) {
  const OpFamily f = GetOpInfo(op).family;
  return f == OpFamily::kElementwiseUnary ||
         f == OpFamily::kElementwiseBinary || f == OpFamily::kCompareSelect ||
         f == OpFamily::kConvert;
}

absl::StatusOr<ValueEnclosure> EnclosurePass::Op(
    const HloInstruction& inst, const std::vector<const ValueEnclosure*>& ops) {
  const HloOpcode op = inst.opcode();
  const EnclosureErrorClass cls = ClassOf(inst);
  bool operands_have_float = false;
  for (const HloInstruction* o : inst.operands()) {
    operands_have_float |= HasFloat(o->shape());
  }
  const bool all_int = !operands_have_float && !HasFloat(inst.shape());

  // Exact ops on exact operands: the oracle's value is the only conforming
  // one. Ops calling computations qualify only on integer data (a reducer
  // of floats rounds).
  // Declared fast min/max: a NaN operand may be dropped, which the
  // oracle's exact value does not show; the element-wise rule does.
  const bool fast_minmax =
      options_.deviations.fast_min_max &&
      (op == HloOpcode::kMaximum || op == HloOpcode::kMinimum);
  const bool exact_class =
      cls.kind == EnclosureErrorKind::kExact && !fast_minmax;
  // rng and rng-get-and-update-state read the run's generator state, which
  // an isolated oracle run does not have.
  const bool stateful =
      op == HloOpcode::kRng || op == HloOpcode::kRngGetAndUpdateState;
  if (stateful) {
    // Every element is implementation-defined (the oracle marks them all:
    // impl.rng.1, impl.rng-get-and-update-state.1), as the comparator's
    // ANY: don't care, never a guess from an isolated generator.
    return Flagged(inst.shape(), kEnclDontCare,
                   op == HloOpcode::kRng ? "implementation-defined (impl.rng.1)"
                                         : "implementation-defined "
                                           "(impl.rng-get-and-update-state.1)");
  }
  const bool exact_sort =
      op == HloOpcode::kSort && IsExactComparator(inst.to_apply());
  if ((exact_class && (inst.called_computations().empty() || exact_sort)) ||
      (all_int && !IsControlFlow(op))) {
    std::vector<Literal> args;
    bool points = true;
    for (const ValueEnclosure* o : ops) {
      std::optional<Literal> l = PointValue(*o);
      if (!l) {
        points = false;
        break;
      }
      args.push_back(std::move(*l));
    }
    if (points) {
      absl::StatusOr<EvalResult> r =
          RunIsolated(inst, args, inst.shape(), /*variant=*/0);
      if (!r.ok()) return IsolationFailed(inst, r.status());
      size_t next = 0;
      return ValueFromLiteral(r->value, Marks(*r), &next);
    }
  }
  if (IsDataMovement(op)) {
    absl::StatusOr<std::optional<ValueEnclosure>> v = DataMovement(inst, ops);
    if (!v.ok()) return IsolationFailed(inst, v.status());
    if (*v) return std::move(**v);
  }
  if (op == HloOpcode::kDot) {
    if (std::optional<ValueEnclosure> v = Dot(inst, ops)) return std::move(*v);
  } else if (op == HloOpcode::kFft && cls.kind == EnclosureErrorKind::kFft) {
    absl::StatusOr<std::optional<ValueEnclosure>> v = Fft(inst, ops);
    if (!v.ok()) return IsolationFailed(inst, v.status());
    if (*v) return std::move(**v);
  } else if (op == HloOpcode::kScan) {
    HLOREF_ASSIGN_OR_RETURN(std::optional<ValueEnclosure> v, Scan(inst, ops));
    if (v) return std::move(*v);
  } else if (op == HloOpcode::kRaggedDot) {
    absl::StatusOr<std::optional<ValueEnclosure>> v = RaggedDot(inst, ops);
    if (!v.ok()) return IsolationFailed(inst, v.status());
    if (*v) return std::move(**v);
  } else if (op == HloOpcode::kScaledDot) {
    if (std::optional<ValueEnclosure> v = ScaledDot(inst, ops)) {
      return std::move(*v);
    }
  } else if (op == HloOpcode::kConvolution) {
    absl::StatusOr<std::optional<ValueEnclosure>> v = Convolution(inst, ops);
    if (!v.ok()) return IsolationFailed(inst, v.status());
    if (*v) return std::move(**v);
  } else if (op == HloOpcode::kReduceWindow) {
    absl::StatusOr<std::optional<ValueEnclosure>> v = ReduceWindow(inst, ops);
    if (v.ok() && !*v) v = ReduceBySelection(inst, ops);
    if (!v.ok()) return IsolationFailed(inst, v.status());
    if (*v) return std::move(**v);
  } else if (op == HloOpcode::kScatter) {
    absl::StatusOr<std::optional<ValueEnclosure>> v = ScatterFloat(inst, ops);
    if (!v.ok()) return IsolationFailed(inst, v.status());
    if (*v) return std::move(**v);
  } else if (op == HloOpcode::kTriangularSolve) {
    if (std::optional<ValueEnclosure> v = TriangularSolve(inst, ops)) {
      return std::move(*v);
    }
  } else if (op == HloOpcode::kSelectAndScatter) {
    absl::StatusOr<std::optional<ValueEnclosure>> v =
        SelectAndScatter(inst, ops);
    if (!v.ok()) return IsolationFailed(inst, v.status());
    if (*v) return std::move(**v);
  } else if (op == HloOpcode::kSort || op == HloOpcode::kTopK) {
    if (std::optional<ValueEnclosure> v = SortRounded(inst, ops)) {
      return std::move(*v);
    }
  } else if (op == HloOpcode::kReducePrecision) {
    absl::StatusOr<std::optional<ValueEnclosure>> v =
        ReducePrecision(inst, ops);
    if (!v.ok()) return IsolationFailed(inst, v.status());
    if (*v) return std::move(**v);
  } else if (op == HloOpcode::kMap) {
    HLOREF_ASSIGN_OR_RETURN(std::optional<ValueEnclosure> v, Map(inst, ops));
    if (v) return std::move(*v);
  } else if (op == HloOpcode::kBatchNormTraining) {
    if (std::optional<ValueEnclosure> v = BatchNormTraining(inst, ops)) {
      return std::move(*v);
    }
  } else if (op == HloOpcode::kBatchNormGrad) {
    if (std::optional<ValueEnclosure> v = BatchNormGrad(inst, ops)) {
      return std::move(*v);
    }
  } else if (op == HloOpcode::kBatchNormInference) {
    if (std::optional<ValueEnclosure> v = BatchNormInference(inst, ops)) {
      return std::move(*v);
    }
  } else if (op == HloOpcode::kReduce) {
    if (std::optional<ValueEnclosure> v = Reduce(inst, ops)) {
      return std::move(*v);
    }
    HLOREF_ASSIGN_OR_RETURN(std::optional<ValueEnclosure> v,
                            ReduceBySelection(inst, ops));
    if (v) return std::move(*v);
  } else if (IsElementwiseFamily(op) && cls.kind != EnclosureErrorKind::kNone &&
             (operands_have_float || HasFloat(inst.shape()))) {
    if (std::optional<ValueEnclosure> v = ComplexElementwise(inst, ops)) {
      return std::move(*v);
    }
    absl::StatusOr<std::optional<ValueEnclosure>> c =
        ComplexFunctionOnPoints(inst, ops);
    if (!c.ok()) return IsolationFailed(inst, c.status());
    if (*c) return std::move(**c);
    if (std::optional<ValueEnclosure> v = FloatElementwise(inst, ops)) {
      return std::move(*v);
    }
  }
  // Element-wise integer ops with some undecided elements: the oracle on
  // the values, the marks carried element by element.
  if (all_int && IsElementwiseFamily(op) && inst.shape().IsArray()) {
    std::vector<Literal> args;
    bool ok = true;
    for (const ValueEnclosure* o : ops) {
      if (!o->shape.IsArray()) {
        ok = false;
        break;
      }
      ArrayEnclosure copy = o->array;
      for (uint8_t& fl : copy.flags) fl = kEnclNumber;
      std::optional<Literal> l = PointLiteral(copy);
      if (!l) {
        ok = false;
        break;
      }
      args.push_back(std::move(*l));
    }
    if (ok) {
      absl::StatusOr<EvalResult> r =
          RunIsolated(inst, args, inst.shape(), /*variant=*/0);
      if (!r.ok()) return IsolationFailed(inst, r.status());
      size_t next = 0;
      HLOREF_ASSIGN_OR_RETURN(ValueEnclosure v,
                              ValueFromLiteral(r->value, Marks(*r), &next));
      // and / or of pred: a decided false (and) or true (or) operand
      // decides the result whatever the other is.
      const bool pred_logic =
          (op == HloOpcode::kAnd || op == HloOpcode::kOr) &&
          inst.shape().IsArray() &&
          inst.shape().element_type() == PrimitiveType::kPred;
      const int64_t dominant = op == HloOpcode::kOr ? 1 : 0;
      for (int64_t i = 0; i < v.array.size(); ++i) {
        bool decided_by_one = false;
        for (const ValueEnclosure* o : ops) {
          const int64_t k = o->array.size() == 1 ? 0 : i;
          decided_by_one |= pred_logic && o->array.flags[k] == kEnclNumber &&
                            o->array.ints[k] == dominant;
        }
        if (decided_by_one) {
          v.array.ints[i] = dominant;
          continue;
        }
        for (const ValueEnclosure* o : ops) {
          const int64_t k = o->array.size() == 1 ? 0 : i;
          v.array.flags[i] |= o->array.flags[k] & kUnjudgedFlags;
        }
      }
      for (const ValueEnclosure* o : ops) {
        MergeReasons(v.array.reasons, o->array.reasons);
      }
      return v;
    }
  }
  // No rule (or operands no rule can take): name it.
  bool undecided_operand = false;
  for (const ValueEnclosure* o : ops) {
    if (o->shape.IsArray()) {
      for (uint8_t fl : o->array.flags) {
        if (fl & kUnjudgedFlags) undecided_operand = true;
      }
    }
  }
  if (all_int && undecided_operand) {
    return Flagged(inst.shape(), kEnclUndecided,
                   absl::StrCat(OpName(inst), " ", inst.name(),
                                ": undecided integer operand"));
  }
  return Flagged(
      inst.shape(), kEnclNoRule,
      absl::StrCat(
          "op ", OpName(inst), " has no enclosure rule",
          cls.kind == EnclosureErrorKind::kNone ? "" : " for these operands"));
}

// Moves v's array leaves into `out`, in order.
void Flatten(ValueEnclosure&& v, std::vector<ArrayEnclosure>& out) {
  if (v.shape.IsTuple()) {
    for (ValueEnclosure& t : v.tuple) Flatten(std::move(t), out);
    return;
  }
  if (v.shape.IsArray()) out.push_back(std::move(v.array));
}

std::string IndexText(const Shape& shape, int64_t linear) {
  std::vector<int64_t> idx(shape.rank());
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    const int64_t n = shape.dimensions(d);
    idx[d] = n == 0 ? 0 : linear % n;
    if (n != 0) linear /= n;
  }
  return absl::StrCat("[", absl::StrJoin(idx, ","), "]");
}

// Every real number that rounds to nearest to each float point of `v`
// (EnclosureOptions::rounded_arguments).
// The reals that round to nearest in type t to the point [lo, hi] = x.
void WidenPointToPreimage(PrimitiveType t, double& lo, double& hi) {
  if (lo != hi) return;
  const double x = lo;
  if (t == PrimitiveType::kF64) {
    if (std::isfinite(x)) {
      lo = Down(x);
      hi = Up(x);
    } else {
      lo = x > 0 ? DBL_MAX : -kInf;
      hi = x > 0 ? kInf : -DBL_MAX;
    }
    return;
  }
  // Midpoints of neighbours of a type narrower than f64 are doubles.
  const FloatFormat& f = FormatOf(t);
  const double max = MaxFinite(f);
  const double half_top = std::ldexp(UlpOf(f, max), -1);
  if (std::isinf(x)) {
    lo = x > 0 ? max + half_top : -kInf;
    hi = x > 0 ? kInf : -(max + half_top);
    return;
  }
  const double up = x >= max ? max + 2 * half_top : NextUpIn(f, x);
  const double down = x <= -max ? -max - 2 * half_top : -NextUpIn(f, -x);
  lo = (down + x) / 2;
  hi = (x + up) / 2;
}

void WidenToRoundingPreimage(ValueEnclosure& v) {
  for (ValueEnclosure& t : v.tuple) WidenToRoundingPreimage(t);
  if (!v.shape.IsArray() || !(v.array.is_float || v.array.is_complex)) return;
  ArrayEnclosure& a = v.array;
  // Complex values: each part is rounded in the component type.
  const PrimitiveType t = a.is_complex
                              ? ComplexComponentType(v.shape.element_type())
                              : v.shape.element_type();
  for (int64_t i = 0; i < a.size(); ++i) {
    if (!(a.flags[i] & kEnclNumber)) continue;
    WidenPointToPreimage(t, a.lo[i], a.hi[i]);
    if (a.is_complex) WidenPointToPreimage(t, a.ilo[i], a.ihi[i]);
  }
}

}  // namespace

absl::StatusOr<ModuleEnclosure> ComputeEnclosure(
    const HloModule& module, absl::Span<const Literal> args,
    const EnclosureOptions& options) {
  if (!options.error_model) {
    return absl::InvalidArgumentError(
        "enclosure: EnclosureOptions::error_model is required");
  }
  const HloComputation* entry = module.entry();
  if (entry == nullptr) {
    return absl::InvalidArgumentError("enclosure: the module has no entry");
  }
  if (static_cast<int64_t>(args.size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(
        absl::StrCat("enclosure: the entry takes ", entry->num_parameters(),
                     " arguments, got ", args.size()));
  }
  std::vector<ValueEnclosure> arg_values;
  arg_values.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const Shape& want = entry->parameter(i)->shape();
    if (!want.Compatible(args[i].shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "enclosure: argument ", i, " has shape ", args[i].shape().ToString(),
          ", parameter ", entry->parameter(i)->name(), " wants ",
          want.ToString()));
    }
    size_t next = 0;
    HLOREF_ASSIGN_OR_RETURN(ValueEnclosure v,
                            ValueFromLiteral(args[i], nullptr, &next));
    if (options.rounded_arguments.count(static_cast<int64_t>(i)) > 0) {
      WidenToRoundingPreimage(v);
    }
    arg_values.push_back(std::move(v));
  }
  std::vector<const ValueEnclosure*> ptrs;
  for (const ValueEnclosure& v : arg_values) ptrs.push_back(&v);
  EnclosurePass pass(options);
  pass.FindPairedChannels(module);
  ModuleEnclosure result;
  HLOREF_ASSIGN_OR_RETURN(ValueEnclosure root,
                          pass.Computation(*entry, ptrs, &arg_values));
  Flatten(std::move(root), result.outputs);
  return result;
}

bool WithinSubnormalFloor(const ArrayEnclosure& e, int64_t i) {
  if (!e.Judgeable(i) || !(e.flags[i] & kEnclNumber)) return false;
  if (!e.is_float && !e.is_complex) return false;
  const PrimitiveType part = e.is_complex
                                 ? ComplexComponentType(e.shape.element_type())
                                 : e.shape.element_type();
  if (!SupportedFloat(part)) return false;
  const double floor = 2 * MinNormal(FormatOf(part));
  auto small = [&](double lo, double hi) {
    return std::isfinite(lo) && std::isfinite(hi) && std::fabs(lo) <= floor &&
           std::fabs(hi) <= floor;
  };
  return small(e.lo[i], e.hi[i]) &&
         (!e.is_complex || small(e.ilo[i], e.ihi[i]));
}

double RelativeRadius(const ArrayEnclosure& e, int64_t i) {
  if (e.is_complex && e.Judgeable(i) && (e.flags[i] & kEnclNumber)) {
    // Normwise, as complex results are judged (numerics.md): the larger
    // part's radius over the largest modulus part bound.
    if (e.lo[i] == e.hi[i] && e.ilo[i] == e.ihi[i]) return 0;  // a point
    const double r =
        std::max(AddUp(e.hi[i], -e.lo[i]), AddUp(e.ihi[i], -e.ilo[i]));
    if (r == 0) return 0;
    if (!std::isfinite(r)) return kInf;
    const double scale = std::max(
        {MaxAbs(e.lo[i], e.hi[i]), MaxAbs(e.ilo[i], e.ihi[i]),
         MinNormal(FormatOf(ComplexComponentType(e.shape.element_type())))});
    return DivUp(MulUp(0.5, r), scale);
  }
  if (!e.is_float || !e.Judgeable(i) || !(e.flags[i] & kEnclNumber)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  double lo = e.lo[i], hi = e.hi[i];
  if (lo == hi) return 0;
  const FloatFormat& f = FormatOf(e.shape.element_type());
  // Past max_T a type has only its infinity: an infinite end counts as the
  // rounding boundary one ulp past max (f64: no double beyond it), so an
  // overflowing result's [x, inf] is as narrow as the floats it holds.
  if (f.has_infinity && e.shape.element_type() != PrimitiveType::kF64 &&
      std::isinf(lo) != std::isinf(hi)) {
    const double top = AddUp(MaxFinite(f), UlpOf(f, MaxFinite(f)));
    if (hi == kInf) hi = std::max(top, lo);
    if (lo == -kInf) lo = std::min(-top, hi);
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) return kInf;
  const double scale = std::max({std::fabs(lo), std::fabs(hi), MinNormal(f)});
  return DivUp(MulUp(0.5, AddUp(hi, -lo)), scale);
}

std::string EnclosureFailure::ToString() const {
  std::string allowed;
  if (number_allowed) allowed = absl::StrCat("[", lo, ", ", hi, "]");
  if (nan_allowed)
    absl::StrAppend(&allowed, allowed.empty() ? "" : " or ", "NaN");
  if (allowed.empty()) allowed = "nothing";
  return absl::StrCat(index, ": ", value, " outside the enclosure ", allowed);
}

int64_t EnclosureVerdict::TotalFail() const {
  int64_t n = 0;
  for (const auto& o : outputs) n += o.fail;
  return n;
}
int64_t EnclosureVerdict::TotalUnjudged() const {
  int64_t n = 0;
  for (const auto& o : outputs) n += o.unjudged;
  return n;
}

std::string EnclosureVerdict::Summary() const {
  std::string s;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const EnclosureOutputVerdict& o = outputs[i];
    absl::StrAppend(
        &s, "result ", i, ": ", o.pass, " pass, ", o.fail, " fail, ",
        o.unjudged, " unjudged (", o.wide, " too wide), ", o.dont_care,
        " don't care; largest relative radius ", o.max_relative_radius, "\n");
    for (const EnclosureFailure& f : o.failures) {
      absl::StrAppend(&s, "  fail ", f.ToString(), "\n");
    }
    for (const std::string& r : o.reasons) {
      absl::StrAppend(&s, "  unjudged: ", r, "\n");
    }
  }
  return s;
}

absl::StatusOr<EnclosureVerdict> JudgeWithEnclosure(
    const ModuleEnclosure& enclosure, absl::Span<const Literal> values,
    const EnclosureJudgeOptions& options) {
  if (values.size() != enclosure.outputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("enclosure verdict: ", values.size(), " values for ",
                     enclosure.outputs.size(), " outputs"));
  }
  EnclosureVerdict verdict;
  for (size_t k = 0; k < values.size(); ++k) {
    const ArrayEnclosure& e = enclosure.outputs[k];
    const Literal& v = values[k];
    if (!v.shape().IsArray() || !v.shape().SameDimensions(e.shape) ||
        v.element_type() != e.shape.element_type()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "enclosure verdict: output ", k, " is ", v.shape().ToString(),
          ", the enclosure is of ", e.shape.ToString()));
    }
    EnclosureOutputVerdict o;
    std::vector<double> d;
    std::vector<int64_t> ints;
    if (e.is_float) {
      HLOREF_ASSIGN_OR_RETURN(d, LoadDoubles(v));
    } else if (IsInteger(v.element_type()) || IsPred(v.element_type())) {
      HLOREF_ASSIGN_OR_RETURN(ints, LoadInts(v));
    }
    auto fail = [&](int64_t i, double value) {
      ++o.fail;
      if (static_cast<int>(o.failures.size()) < options.max_failures_listed) {
        EnclosureFailure f;
        f.linear = i;
        f.index = IndexText(e.shape, i);
        if (e.is_float || e.is_complex) {
          f.lo = e.lo[i];
          f.hi = e.hi[i];
          f.nan_allowed = e.flags[i] & kEnclNaN;
          f.number_allowed = e.flags[i] & kEnclNumber;
        } else {
          f.lo = f.hi = static_cast<double>(e.ints[i]);
        }
        f.value = value;
        o.failures.push_back(f);
      }
    };
    // An element inside its enclosure (real or complex): a pass when the
    // enclosure is narrow, unjudged (too wide) otherwise.
    auto inside = [&](int64_t i) {
      // An enclosure within two min-normals of zero's neighbourhood (a
      // result at or near zero, bounded by the class's subnormal floor) is
      // narrow in absolute terms, whatever its relative radius: judged,
      // and left out of the largest relative radius, which reports
      // conditioning.
      if (WithinSubnormalFloor(e, i)) {
        ++o.pass;
        return;
      }
      const double rel = RelativeRadius(e, i);
      o.max_relative_radius = std::max(o.max_relative_radius, rel);
      if (rel > options.max_relative_radius) {
        ++o.unjudged;
        ++o.wide;
      } else {
        ++o.pass;
      }
    };
    for (int64_t i = 0; i < e.size(); ++i) {
      const uint8_t fl = e.flags[i];
      if (fl & kEnclDontCare) {
        ++o.dont_care;
        continue;
      }
      if (fl & (kEnclNoRule | kEnclUndecided)) {
        ++o.unjudged;
        continue;
      }
      if (e.is_complex) {
        // A box: both parts inside (a NaN part is outside: complex
        // enclosures never allow NaN), judged narrow normwise.
        const std::complex<double> z = v.GetAsComplex(i);
        const bool re_in = z.real() >= e.lo[i] && z.real() <= e.hi[i];
        const bool im_in = z.imag() >= e.ilo[i] && z.imag() <= e.ihi[i];
        if (!(fl & kEnclNumber) || !re_in || !im_in) {
          const size_t before = o.failures.size();
          fail(i, re_in ? z.imag() : z.real());
          if (o.failures.size() > before && re_in) {
            o.failures.back().lo = e.ilo[i];
            o.failures.back().hi = e.ihi[i];
            o.failures.back().index += " (imaginary part)";
          } else if (o.failures.size() > before) {
            o.failures.back().index += " (real part)";
          }
          continue;
        }
        inside(i);
        continue;
      }
      if (!e.is_float) {
        if (ints.empty()) {
          ++o.unjudged;
        } else if (ints[i] == e.ints[i]) {
          ++o.pass;
        } else {
          fail(i, static_cast<double>(ints[i]));
        }
        continue;
      }
      const double x = d[i];
      if (std::isnan(x)) {
        if (!(fl & kEnclNaN)) {
          fail(i, x);
        } else if (fl & kEnclNumber) {
          ++o.unjudged;  // NaN or a number: undecided
        } else {
          ++o.pass;
        }
        continue;
      }
      if (!(fl & kEnclNumber) || x < e.lo[i] || x > e.hi[i]) {
        fail(i, x);
        continue;
      }
      if (fl & kEnclNaN) {
        ++o.unjudged;
        continue;
      }
      inside(i);
    }
    if (o.unjudged > 0 || o.dont_care > 0) o.reasons = e.reasons;
    if (o.wide > 0) {
      o.reasons.insert(absl::StrCat(o.wide,
                                    " inside an enclosure of relative radius "
                                    "above ",
                                    options.max_relative_radius));
    }
    verdict.outputs.push_back(std::move(o));
  }
  return verdict;
}

}  // namespace hloref
