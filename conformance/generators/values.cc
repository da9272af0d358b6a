// Argument values of generated cases: random values of every element type
// with special values mixed in (style.md 9.7: NaN, +-inf, +-0, subnormals,
// integer extremes always included), exact small-integer data for
// accumulations whose every order must agree, indices around the bounds
// (clamping), and unique sort keys.
#include <algorithm>
#include <cmath>
#include <vector>

#include "conformance/generators/draw.h"
#include "spec/types/minifloat.h"

namespace hloref::conformance::gen {
namespace {

int64_t IntMin(PrimitiveType t) {
  if (!IsSignedInt(t)) return 0;
  const int w = BitWidth(t);
  return w >= 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
}
uint64_t IntMaxBits(PrimitiveType t) {
  const int w = BitWidth(t);
  if (IsSignedInt(t)) return (uint64_t{1} << (w - 1)) - 1;
  return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
}

// Clamps v into the type's integer range.
int64_t ClampInt(PrimitiveType t, int64_t v) {
  if (IsPred(t)) return v & 1;
  const int64_t lo = IntMin(t);
  const uint64_t hi = IntMaxBits(t);
  if (v < lo) return lo;
  if (v > 0 && static_cast<uint64_t>(v) > hi) return static_cast<int64_t>(hi);
  return v;
}

// A random finite value of moderate magnitude (2^-e .. 2^e) that the
// type can hold.
double Moderate(Rng& rng, const FloatFormat& f, int e, bool positive) {
  const double limit = MaxFinite(f) / 2;
  double mag = std::ldexp(1.0 + rng.Unit(), static_cast<int>(rng.Range(-e, e)));
  mag = std::min(mag, limit);
  if (!f.has_sign) positive = true;
  return (!positive && rng.Chance(0.5)) ? -mag : mag;
}

uint64_t RandomFloatBits(Rng& rng, const FloatFormat& f) {
  return rng.Next() & (f.total_bits >= 64 ? ~uint64_t{0}
                                          : (uint64_t{1} << f.total_bits) - 1);
}

// One real element of `type` as raw bits.
uint64_t DrawElement(const ParamSpec& spec, PrimitiveType type, Rng& rng,
                     double special_rate, int64_t linear) {
  const FloatFormat* f = FindFloatFormat(type);
  switch (spec.fill) {
    case Fill::kGeneral: {
      if (special_rate > 0 && rng.Chance(special_rate)) {
        std::vector<uint64_t> specials = SpecialValueBits(type);
        return specials[rng.Below(specials.size())];
      }
      if (f != nullptr) {
        if (f->total_bits <= 8 || rng.Chance(0.2)) {
          uint64_t bits = RandomFloatBits(rng, *f);
          if (!IsNanEncoding(*f, bits) || special_rate > 0) return bits;
        }
        return EncodeFloat(*f, Moderate(rng, *f, 6, false));
      }
      if (IsPred(type)) return rng.Below(2);
      if (rng.Chance(0.7)) {
        return static_cast<uint64_t>(ClampInt(type, rng.Range(-20, 20)));
      }
      return rng.Next();
    }
    case Fill::kFinite:
    case Fill::kPositive:
    case Fill::kWellConditioned:  // filled by WellConditioned below
    case Fill::kHermitian:        // filled by Hermitian below
      if (f != nullptr) {
        return EncodeFloat(
            *f, Moderate(rng, *f, spec.fill == Fill::kPositive ? 1 : 3,
                         spec.fill == Fill::kPositive));
      }
      if (IsPred(type)) return rng.Below(2);
      return static_cast<uint64_t>(ClampInt(type, spec.fill == Fill::kPositive
                                                      ? rng.Range(1, 5)
                                                      : rng.Range(-20, 20)));
    case Fill::kSmallInt: {
      int64_t v = rng.Range(-4, 4);
      if (f != nullptr) {
        if (!f->has_sign) v = std::abs(v);
        uint64_t bits = EncodeFloat(*f, static_cast<double>(v));
        if (DecodeFloat(*f, bits) != static_cast<double>(v)) {
          bits = EncodeFloat(*f, 1.0);  // e.g. f8e8m0fnu has no zero
        }
        return bits;
      }
      if (IsPred(type)) return rng.Below(2);
      return static_cast<uint64_t>(ClampInt(type, v));
    }
    case Fill::kIndex: {
      int64_t v = rng.Range(-2, spec.index_bound + 2);
      if (rng.Chance(0.03)) v = IsSignedInt(type) ? IntMin(type) : -1;
      if (IsUnsignedInt(type) && v < 0) {
        return IntMaxBits(type);  // a huge unsigned index
      }
      return static_cast<uint64_t>(ClampInt(type, v));
    }
    case Fill::kUnique: {
      if (f != nullptr) return EncodeFloat(*f, static_cast<double>(linear));
      return static_cast<uint64_t>(ClampInt(type, linear));
    }
  }
  return 0;
}

// Fill::kWellConditioned: per matrix (the last two dimensions), diagonal
// in [1, 2) and symmetric off-diagonal entries of magnitude below
// 0.5 / n, so every row's off-diagonal sum is below 0.5 (strict diagonal
// dominance: positive definite, and triangles with condition near 1).
// Complex types get real (hence Hermitian) matrices.
Literal WellConditioned(const ParamSpec& spec, Rng& rng) {
  Literal lit(spec.shape);
  const int64_t rank = spec.shape.rank();
  const int64_t rows = rank >= 2 ? spec.shape.dimensions(rank - 2) : 1;
  const int64_t cols = rank >= 1 ? spec.shape.dimensions(rank - 1) : 1;
  const int64_t per = rows * cols;
  const int64_t n = lit.element_count();
  const double off = 0.5 / static_cast<double>(std::max<int64_t>(cols, 1));
  const bool complex = IsComplex(spec.shape.element_type());
  for (int64_t base = 0; per > 0 && base < n; base += per) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j <= i && j < cols; ++j) {
        const double v = i == j ? 1.0 + rng.Unit() : (rng.Unit() - 0.5) * off;
        auto set = [&](int64_t at) {
          if (complex) {
            lit.SetFromComplex(at, {v, 0.0});
          } else {
            lit.SetFromDouble(at, v);
          }
        };
        set(base + i * cols + j);
        if (i < cols) set(base + j * cols + i);
      }
    }
  }
  return lit;
}

}  // namespace

std::vector<uint64_t> SpecialValueBits(PrimitiveType type) {
  std::vector<uint64_t> out;
  if (const FloatFormat* f = FindFloatFormat(type)) {
    auto add = [&](double v) { out.push_back(EncodeFloat(*f, v)); };
    if (f->nan != NanEncoding::kNone) out.push_back(CanonicalNan(*f));
    if (f->has_infinity) {
      add(INFINITY);
      add(-INFINITY);
    }
    add(0.0);
    if (f->has_negative_zero) out.push_back(EncodeFloat(*f, -0.0));
    const double sub = MinSubnormal(*f);
    const double normal = MinNormal(*f);
    for (double v : {sub, normal - sub, normal, MaxFinite(*f), 1.0}) {
      add(v);
      if (f->has_sign) add(-v);
    }
    return out;
  }
  if (IsPred(type)) return {0, 1};
  out = {0, 1, IntMaxBits(type), IntMaxBits(type) - 1};
  if (IsSignedInt(type)) {
    out.push_back(static_cast<uint64_t>(IntMin(type)));
    out.push_back(~uint64_t{0});  // -1
  }
  return out;
}

// Fill::kHermitian: finite values, then on each self-conjugate plane of
// each batch item X[k] = conj(X[-k]) (indices mod the outer fft lengths),
// and a real value where k = -k. Negating an imaginary part is exact, so
// the symmetry holds in the stored type.
Literal Hermitian(const ParamSpec& spec, Rng& rng) {
  ParamSpec finite = spec;
  finite.fill = Fill::kFinite;
  Literal lit = MakeValues(finite, rng);
  const Shape& shape = spec.shape;
  const int64_t r = static_cast<int64_t>(spec.fft_lengths.size());
  const int64_t rank = shape.rank();
  if (r == 0 || rank < r || lit.element_count() == 0) return lit;
  const int64_t inner = shape.dimensions(rank - 1);
  const int64_t n_last = spec.fft_lengths.back();
  std::vector<int64_t> outer(spec.fft_lengths.begin(),
                             spec.fft_lengths.end() - 1);
  for (int64_t d = 0; d + 1 < r; ++d) {
    if (shape.dimensions(rank - r + d) != outer[d]) return lit;
  }
  int64_t outer_count = 1;
  for (int64_t n : outer) outer_count *= n;
  const int64_t item = outer_count * inner;
  const int64_t items = lit.element_count() / std::max<int64_t>(item, 1);
  std::vector<int64_t> planes = {0};
  if (n_last % 2 == 0 && n_last / 2 < inner && n_last / 2 != 0) {
    planes.push_back(n_last / 2);
  }
  // The linear outer index of -k for linear outer index k.
  auto partner = [&](int64_t k) {
    int64_t result = 0, stride = 1;
    for (int64_t d = static_cast<int64_t>(outer.size()) - 1; d >= 0; --d) {
      const int64_t i = (k / stride) % outer[d];
      result += ((outer[d] - i) % outer[d]) * stride;
      stride *= outer[d];
    }
    return result;
  };
  for (int64_t b = 0; b < items; ++b) {
    for (int64_t j : planes) {
      if (j >= inner) continue;
      for (int64_t k = 0; k < outer_count; ++k) {
        const int64_t kk = partner(k);
        const int64_t at = b * item + k * inner + j;
        if (kk == k) {
          lit.SetFromComplex(at, {lit.GetAsComplex(at).real(), 0.0});
        } else if (k < kk) {
          lit.SetFromComplex(b * item + kk * inner + j,
                             std::conj(lit.GetAsComplex(at)));
        }
      }
    }
  }
  return lit;
}

Literal MakeValues(const ParamSpec& spec, Rng& rng) {
  if (spec.fill == Fill::kWellConditioned && spec.shape.IsArray()) {
    return WellConditioned(spec, rng);
  }
  if (spec.fill == Fill::kHermitian && spec.shape.IsArray()) {
    return Hermitian(spec, rng);
  }
  if (spec.shape.IsTuple()) {
    // Tuple values (tuple parameters, infeed and recv data): each element
    // filled the same way.
    std::vector<Literal> elements;
    for (const Shape& e : spec.shape.tuple_shapes()) {
      ParamSpec element = spec;
      element.shape = e;
      elements.push_back(MakeValues(element, rng));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  Literal lit(spec.shape);
  if (!spec.shape.IsArray()) return lit;
  const PrimitiveType type = spec.shape.element_type();
  // Per-argument rate of special values: none in half the cases, so that
  // finite behaviour is not drowned by NaN propagation.
  static constexpr double kRates[] = {0, 0, 0.05, 0.2};
  const double rate = kRates[rng.Below(4)];
  const int64_t n = lit.element_count();
  if (IsComplex(type)) {
    const PrimitiveType part = ComplexComponentType(type);
    const FloatFormat& f = FormatOf(part);
    for (int64_t i = 0; i < n; ++i) {
      double re = DecodeFloat(f, DrawElement(spec, part, rng, rate, i));
      double im = DecodeFloat(f, DrawElement(spec, part, rng, rate, i));
      lit.SetFromComplex(i, {re, im});
    }
    return lit;
  }
  std::vector<uint64_t> bits(n);
  for (int64_t i = 0; i < n; ++i) {
    bits[i] = DrawElement(spec, type, rng, rate, i);
  }
  if (spec.fill == Fill::kUnique) {
    // Shuffle the 0..n-1 keys (Fisher-Yates with our generator).
    for (int64_t i = n - 1; i > 0; --i) {
      std::swap(bits[i], bits[rng.Below(static_cast<uint64_t>(i + 1))]);
    }
  }
  for (int64_t i = 0; i < n; ++i) lit.SetRawBits(i, bits[i]);
  return lit;
}

}  // namespace hloref::conformance::gen
