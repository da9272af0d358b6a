// Tests of the generic minifloat codec against an independent reference:
// the reference decodes with ldexp from its own format table, encodes by
// searching the sorted list of all finite values of the type (nearest by
// exact comparison with the midpoint, ties to the even encoding, overflow
// per type), and does f8e8m0fnu with XLA's integer algorithm on f32 bits.
#include "spec/types/minifloat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace hloref {
namespace {

enum class Kind { kIeee, kFn, kFnuz, kFinite, kE8m0 };

// The reference's own description of every format (from the format
// definitions: OCP 8-bit / MX spec, ml_dtypes' README, IEEE 754).
struct RefSpec {
  PrimitiveType type;
  const char* name;
  int bits, e, m, bias;
  Kind kind;
};

constexpr RefSpec kSpecs[] = {
    {PrimitiveType::kF16, "f16", 16, 5, 10, 15, Kind::kIeee},
    {PrimitiveType::kBF16, "bf16", 16, 8, 7, 127, Kind::kIeee},
    {PrimitiveType::kF8E5M2, "f8e5m2", 8, 5, 2, 15, Kind::kIeee},
    {PrimitiveType::kF8E4M3, "f8e4m3", 8, 4, 3, 7, Kind::kIeee},
    {PrimitiveType::kF8E3M4, "f8e3m4", 8, 3, 4, 3, Kind::kIeee},
    {PrimitiveType::kF8E4M3FN, "f8e4m3fn", 8, 4, 3, 7, Kind::kFn},
    {PrimitiveType::kF8E4M3FNUZ, "f8e4m3fnuz", 8, 4, 3, 8, Kind::kFnuz},
    {PrimitiveType::kF8E5M2FNUZ, "f8e5m2fnuz", 8, 5, 2, 16, Kind::kFnuz},
    {PrimitiveType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, 4, 3, 11, Kind::kFnuz},
    {PrimitiveType::kF4E2M1FN, "f4e2m1fn", 4, 2, 1, 1, Kind::kFinite},
    {PrimitiveType::kF6E2M3FN, "f6e2m3fn", 6, 2, 3, 1, Kind::kFinite},
    {PrimitiveType::kF6E3M2FN, "f6e3m2fn", 6, 3, 2, 3, Kind::kFinite},
    {PrimitiveType::kF8E8M0FNU, "f8e8m0fnu", 8, 8, 0, 127, Kind::kE8m0},
};

uint64_t Bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
double FromBits(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}
uint32_t Bits32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float FromBits32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The f64 value of an f32 bit pattern; NaN payloads move to the top of the
// f64 fraction without being quieted (a float->double cast would quiet).
double F32BitsToDouble(uint32_t u) {
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) {
    return FromBits((uint64_t{u >> 31} << 63) | (uint64_t{0x7FF} << 52) |
                    (uint64_t{u & 0x7FFFFFu} << 29));
  }
  return static_cast<double>(FromBits32(u));
}

// ---------------------------------------------------------------- reference

struct RefDecoded {
  bool nan = false;
  bool inf = false;
  double value = 0;  // signed; valid when !nan
};

RefDecoded RefDecode(const RefSpec& s, uint64_t b) {
  RefDecoded r;
  if (s.kind == Kind::kE8m0) {
    if (b == 0xFF) {
      r.nan = true;
    } else {
      r.value = std::ldexp(1.0, static_cast<int>(b) - 127);
    }
    return r;
  }
  const bool neg = (b >> (s.bits - 1)) & 1;
  const int e = static_cast<int>((b >> s.m) & ((1u << s.e) - 1));
  const uint64_t f = b & ((uint64_t{1} << s.m) - 1);
  const int emax_field = (1 << s.e) - 1;
  switch (s.kind) {
    case Kind::kIeee:
      if (e == emax_field) {
        if (f == 0) {
          r.inf = true;
          r.value = neg ? -INFINITY : INFINITY;
        } else {
          r.nan = true;
        }
        return r;
      }
      break;
    case Kind::kFn:
      if (e == emax_field && f == (uint64_t{1} << s.m) - 1) r.nan = true;
      break;
    case Kind::kFnuz:
      if (neg && e == 0 && f == 0) r.nan = true;
      break;
    case Kind::kFinite:
    case Kind::kE8m0:
      break;
  }
  if (r.nan) return r;
  double mag = e == 0
                   ? std::ldexp(static_cast<double>(f), 1 - s.bias - s.m)
                   : std::ldexp(static_cast<double>((uint64_t{1} << s.m) + f),
                                e - s.bias - s.m);
  r.value = neg ? -mag : mag;
  return r;
}

struct Entry {
  double value;
  uint64_t enc;
};

// All non-negative finite values of the type, sorted by value.
std::vector<Entry> PositiveTable(const RefSpec& s) {
  std::vector<Entry> t;
  const uint64_t n = uint64_t{1} << (s.kind == Kind::kE8m0 ? 8 : s.bits - 1);
  for (uint64_t b = 0; b < n; ++b) {
    RefDecoded d = RefDecode(s, b);
    if (!d.nan && !d.inf) t.push_back({d.value, b});
  }
  std::sort(t.begin(), t.end(),
            [](const Entry& a, const Entry& b) { return a.value < b.value; });
  return t;
}

struct Reference {
  RefSpec spec;
  std::vector<Entry> table;
  uint64_t sign_bit;
  uint64_t max_enc;
  double virtual_next;  // the grid point after max (one ulp of max above)

  explicit Reference(const RefSpec& s) : spec(s), table(PositiveTable(s)) {
    sign_bit = s.kind == Kind::kE8m0 ? 0 : uint64_t{1} << (s.bits - 1);
    max_enc = table.back().enc;
    int ex;
    std::frexp(table.back().value, &ex);  // max = fr * 2^ex, fr in [0.5, 1)
    virtual_next = table.back().value + std::ldexp(1.0, ex - 1 - s.m);
  }

  uint64_t Overflow(bool neg, bool saturate) const {
    uint64_t sign = neg ? sign_bit : 0;
    switch (spec.kind) {
      case Kind::kIeee:
        return sign | (((uint64_t{1} << spec.e) - 1) << spec.m);
      case Kind::kFn:
        return saturate ? sign | max_enc : sign | (sign_bit - 1);
      case Kind::kFnuz:
        return saturate ? sign | max_enc : sign_bit;
      case Kind::kFinite:
        return sign | max_enc;
      case Kind::kE8m0:
        return 0xFF;
    }
    return 0;
  }

  // Correctly rounded encoding of x (not for f8e8m0fnu).
  uint64_t Encode(double x, bool saturate = false) const {
    const bool neg = std::signbit(x);
    if (std::isnan(x)) {
      switch (spec.kind) {
        case Kind::kIeee: {
          uint64_t frac = Bits(x) & ((uint64_t{1} << 52) - 1);
          uint64_t payload = frac >> (52 - spec.m);  // the top m bits
          if (payload == 0) payload = uint64_t{1} << (spec.m - 1);
          return (neg ? sign_bit : 0) |
                 (((uint64_t{1} << spec.e) - 1) << spec.m) | payload;
        }
        case Kind::kFn:
          return (neg ? sign_bit : 0) | (sign_bit - 1);
        case Kind::kFnuz:
        case Kind::kFinite:
          return sign_bit;
        case Kind::kE8m0:
          return 0xFF;
      }
    }
    const double a = std::fabs(x);
    if (std::isinf(a)) return Overflow(neg, saturate);
    auto it =
        std::upper_bound(table.begin(), table.end(), a,
                         [](double v, const Entry& e) { return v < e.value; });
    const Entry lo = *(it - 1);  // table[0] is +0 <= a
    const bool hi_virtual = it == table.end();
    const Entry hi = hi_virtual ? Entry{virtual_next, max_enc + 1} : *it;
    Entry pick;
    if (a == lo.value) {
      pick = lo;
    } else {
      const double mid = (lo.value + hi.value) / 2;  // exact
      if (a < mid) {
        pick = lo;
      } else if (a > mid) {
        pick = hi;
      } else {
        pick = (lo.enc % 2 == 0) ? lo : hi;
      }
    }
    if (hi_virtual && pick.enc == max_enc + 1) return Overflow(neg, saturate);
    if (pick.enc == 0 && spec.kind == Kind::kFnuz) return 0;
    return (neg ? sign_bit : 0) | pick.enc;
  }
};

// XLA's EmitF32ToF8e8m0fnu, computed on the f32 bit pattern.
uint64_t RefE8m0FromF32Bits(uint32_t u) {
  const int32_t s = static_cast<int32_t>(u);
  if (s <= 0 || s >= 0x7F400000) return 0xFF;
  if (u <= 0x400000) return 0x00;
  return ((u + 0x400000) >> 23) & 0xFF;
}

const std::vector<Reference>& References() {
  static const auto* refs = [] {
    auto* v = new std::vector<Reference>;
    for (const RefSpec& s : kSpecs) v->emplace_back(s);
    return v;
  }();
  return *refs;
}

// ------------------------------------------------------------ format table

TEST(MinifloatTest, FormatTableMatchesDefinitions) {
  for (const RefSpec& s : kSpecs) {
    SCOPED_TRACE(s.name);
    const FloatFormat& f = FormatOf(s.type);
    EXPECT_EQ(f.type, s.type);
    EXPECT_EQ(f.total_bits, s.bits);
    EXPECT_EQ(f.total_bits, BitWidth(s.type));
    EXPECT_EQ(f.exponent_bits, s.e);
    EXPECT_EQ(f.mantissa_bits, s.m);
    EXPECT_EQ(f.bias, s.bias);
    EXPECT_EQ(f.has_sign, s.kind != Kind::kE8m0);
    EXPECT_EQ(f.has_infinity, s.kind == Kind::kIeee);
    EXPECT_EQ(f.has_negative_zero, s.kind == Kind::kIeee ||
                                       s.kind == Kind::kFn ||
                                       s.kind == Kind::kFinite);
    EXPECT_TRUE(IsMinifloat(s.type));
  }
  const FloatFormat& f32 = FormatOf(PrimitiveType::kF32);
  EXPECT_EQ(f32.total_bits, 32);
  EXPECT_EQ(f32.exponent_bits, 8);
  EXPECT_EQ(f32.mantissa_bits, 23);
  EXPECT_EQ(f32.bias, 127);
  const FloatFormat& f64 = FormatOf(PrimitiveType::kF64);
  EXPECT_EQ(f64.total_bits, 64);
  EXPECT_EQ(f64.exponent_bits, 11);
  EXPECT_EQ(f64.mantissa_bits, 52);
  EXPECT_EQ(f64.bias, 1023);
  EXPECT_EQ(FindFloatFormat(PrimitiveType::kS32), nullptr);
  EXPECT_EQ(FindFloatFormat(PrimitiveType::kC64), nullptr);
  EXPECT_EQ(FindFloatFormat(PrimitiveType::kPred), nullptr);
  // Every float type has a format.
  for (PrimitiveType t : AllArrayTypes()) {
    EXPECT_EQ(FindFloatFormat(t) != nullptr, IsFloat(t))
        << PrimitiveTypeName(t);
  }
}

// --------------------------------------------------------------- decoding

TEST(MinifloatTest, DecodeEveryEncodingMatchesReference) {
  for (const Reference& r : References()) {
    SCOPED_TRACE(r.spec.name);
    const FloatFormat& f = FormatOf(r.spec.type);
    for (uint64_t b = 0; b < (uint64_t{1} << r.spec.bits); ++b) {
      RefDecoded want = RefDecode(r.spec, b);
      double got = DecodeFloat(f, b);
      ASSERT_EQ(IsNanEncoding(f, b), want.nan) << b;
      ASSERT_EQ(IsInfEncoding(f, b), want.inf) << b;
      ASSERT_EQ(std::isnan(got), want.nan) << b;
      if (want.nan) {
        // The sign of the NaN is the encoding's sign bit.
        bool neg = r.spec.kind != Kind::kE8m0 && ((b >> (r.spec.bits - 1)) & 1);
        EXPECT_EQ(std::signbit(got), neg) << b;
        continue;
      }
      ASSERT_EQ(Bits(got), Bits(want.value)) << b;  // value and zero sign
      EXPECT_EQ(IsNegativeZeroEncoding(f, b),
                want.value == 0 && std::signbit(want.value))
          << b;
    }
  }
}

TEST(MinifloatTest, DecodeNanPayloadGoesToTopOfFraction) {
  const FloatFormat& f16 = FormatOf(PrimitiveType::kF16);
  // f16 0x7C01: fraction 1 -> bit 42 of the f64 fraction (52 - 10).
  EXPECT_EQ(Bits(DecodeFloat(f16, 0x7C01)), 0x7FF0040000000000u);
  EXPECT_EQ(Bits(DecodeFloat(f16, 0x7E00)), 0x7FF8000000000000u);
  EXPECT_EQ(Bits(DecodeFloat(f16, 0xFE00)), 0xFFF8000000000000u);
  EXPECT_EQ(DecodeFloatToF32Bits(f16, 0x7C01), 0x7F802000u);  // 1 << 13
  const FloatFormat& bf16 = FormatOf(PrimitiveType::kBF16);
  EXPECT_EQ(DecodeFloatToF32Bits(bf16, 0xFFC1), 0xFFC10000u);
  EXPECT_EQ(DecodeFloatToF32Bits(bf16, 0x7F81), 0x7F810000u);
  // fn/fnuz/e8m0 NaNs carry no payload: the default quiet NaN.
  EXPECT_EQ(Bits(DecodeFloat(FormatOf(PrimitiveType::kF8E4M3FN), 0xFF)),
            0xFFF8000000000000u);
  EXPECT_EQ(Bits(DecodeFloat(FormatOf(PrimitiveType::kF8E4M3FNUZ), 0x80)),
            0xFFF8000000000000u);
  EXPECT_EQ(Bits(DecodeFloat(FormatOf(PrimitiveType::kF8E8M0FNU), 0xFF)),
            0x7FF8000000000000u);
}

// ------------------------------------------------------------ round trips

TEST(MinifloatTest, EveryEncodingRoundTripsThroughF64AndF32) {
  for (const Reference& r : References()) {
    SCOPED_TRACE(r.spec.name);
    const FloatFormat& f = FormatOf(r.spec.type);
    for (uint64_t b = 0; b < (uint64_t{1} << r.spec.bits); ++b) {
      double d = DecodeFloat(f, b);
      ASSERT_EQ(EncodeFloat(f, d), b) << "f64 round trip of " << b;
      ASSERT_EQ(EncodeFloat(f, d, OverflowMode::kSaturate), b) << b;
      uint32_t s = DecodeFloatToF32Bits(f, b);
      ASSERT_EQ(EncodeFloatFromF32Bits(f, s), b) << "f32 round trip of " << b;
      RefDecoded want = RefDecode(r.spec, b);
      if (!want.nan) {
        ASSERT_EQ(Bits32(FromBits32(s)), Bits32(static_cast<float>(want.value)))
            << b;
      } else if (r.spec.kind == Kind::kIeee) {
        // f32 NaN: same sign, all-ones exponent, fraction at the top.
        uint64_t frac = b & ((uint64_t{1} << r.spec.m) - 1);
        uint32_t sign = ((b >> (r.spec.bits - 1)) & 1) << 31;
        ASSERT_EQ(s, sign | 0x7F800000u |
                         static_cast<uint32_t>(frac << (23 - r.spec.m)))
            << b;
      } else {
        ASSERT_TRUE(std::isnan(FromBits32(s))) << b;
      }
    }
  }
}

TEST(MinifloatTest, F32AndF64FormatsAreExact) {
  const FloatFormat& f32 = FormatOf(PrimitiveType::kF32);
  const FloatFormat& f64 = FormatOf(PrimitiveType::kF64);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    uint32_t u = static_cast<uint32_t>(rng());
    double d = DecodeFloat(f32, u);
    if (!std::isnan(d)) {
      ASSERT_EQ(Bits(d), Bits(static_cast<double>(FromBits32(u)))) << u;
    }
    ASSERT_EQ(EncodeFloat(f32, d), u) << u;  // NaN payloads too
    uint64_t w = rng();
    ASSERT_EQ(Bits(DecodeFloat(f64, w)), w);
    ASSERT_EQ(EncodeFloat(f64, FromBits(w)), w);
    double x = FromBits(w);
    if (!std::isnan(x)) {
      ASSERT_EQ(EncodeFloat(f32, x), Bits32(static_cast<float>(x))) << w;
    }
  }
  EXPECT_EQ(MaxDigits10(f32), 9);
  EXPECT_EQ(Digits10(f32), 6);
  EXPECT_EQ(MaxDigits10(f64), 17);
  EXPECT_EQ(Digits10(f64), 15);
}

// --------------------------------------------------- conversions from f32

// Compares the implementation with the reference for one f32 value, both
// overflow modes.
void ExpectEncodeF32(const Reference& r, uint32_t u) {
  const FloatFormat& f = FormatOf(r.spec.type);
  uint64_t want, want_sat;
  if (r.spec.kind == Kind::kE8m0) {
    // XLA's algorithm, except in the documented window where EncodeFloat
    // takes the nearer 2^-127.
    const uint64_t xla = RefE8m0FromF32Bits(u);
    ASSERT_EQ(XlaF32BitsToF8e8m0fnu(u), xla) << std::hex << u;
    want = want_sat = (u > 0x400000 && u < 0x600000) ? 0x00 : xla;
  } else {
    double x = F32BitsToDouble(u);
    want = r.Encode(x);
    want_sat = r.Encode(x, /*saturate=*/true);
  }
  ASSERT_EQ(EncodeFloatFromF32Bits(f, u), want)
      << r.spec.name << " from f32 bits 0x" << std::hex << u << " ("
      << FromBits32(u) << ")";
  ASSERT_EQ(EncodeFloatFromF32Bits(f, u, OverflowMode::kSaturate), want_sat)
      << r.spec.name << " (saturating) from f32 bits 0x" << std::hex << u;
}

TEST(MinifloatTest, TiesAndNeighboursOfEveryMidpointFromF32) {
  for (const Reference& r : References()) {
    SCOPED_TRACE(r.spec.name);
    const FloatFormat& f = FormatOf(r.spec.type);
    const auto& t = r.table;
    for (size_t i = 0; i < t.size(); ++i) {
      const double lo = t[i].value;
      const bool last = i + 1 == t.size();
      const double hi = last ? r.virtual_next : t[i + 1].value;
      const double mid = (lo + hi) / 2;
      const float midf = static_cast<float>(mid);
      ASSERT_EQ(static_cast<double>(midf), mid);  // midpoints are f32 values
      const float points[] = {midf, std::nextafter(midf, 0.0f),
                              std::nextafter(midf, INFINITY),
                              static_cast<float>(lo), static_cast<float>(hi)};
      for (float p : points) {
        for (float v : {p, -p}) ExpectEncodeF32(r, Bits32(v));
      }
      if (r.spec.kind == Kind::kE8m0) continue;
      // Hand-derived expectations, independent of the reference's search:
      // a tie goes to the even encoding, otherwise to the nearer neighbour.
      uint64_t hi_enc = last ? t[i].enc + 1 : t[i + 1].enc;
      uint64_t even = t[i].enc % 2 == 0 ? t[i].enc : hi_enc;
      uint64_t above = hi_enc;
      if (last) {
        // Past the largest finite value: overflow per type.
        uint64_t ovf = r.Overflow(false, false);
        if (even == hi_enc) even = ovf;
        above = ovf;
      }
      EXPECT_EQ(EncodeFloat(f, mid), even) << "tie at " << mid;
      EXPECT_EQ(EncodeFloat(f, std::nextafter(mid, 0.0)), t[i].enc)
          << "below " << mid;
      EXPECT_EQ(EncodeFloat(f, std::nextafter(mid, INFINITY)), above)
          << "above " << mid;
    }
  }
}

TEST(MinifloatTest, SubnormalBoundaries) {
  for (const Reference& r : References()) {
    if (r.spec.kind == Kind::kE8m0) continue;
    SCOPED_TRACE(r.spec.name);
    const FloatFormat& f = FormatOf(r.spec.type);
    const double tiny = std::ldexp(1.0, 1 - r.spec.bias - r.spec.m);
    EXPECT_EQ(MinSubnormal(f), tiny);
    const uint64_t neg_zero = r.spec.kind == Kind::kFnuz ? 0 : r.sign_bit;
    EXPECT_EQ(EncodeFloat(f, tiny), 1u);
    EXPECT_EQ(EncodeFloat(f, -tiny), r.sign_bit | 1);
    EXPECT_EQ(EncodeFloat(f, tiny / 2), 0u);  // tie with 0: even is 0
    EXPECT_EQ(EncodeFloat(f, -tiny / 2), neg_zero);
    EXPECT_EQ(EncodeFloat(f, std::nextafter(tiny / 2, 1.0)), 1u);
    EXPECT_EQ(EncodeFloat(f, -std::nextafter(tiny / 2, 1.0)), r.sign_bit | 1);
    EXPECT_EQ(EncodeFloat(f, std::nextafter(tiny / 2, 0.0)), 0u);
    EXPECT_EQ(EncodeFloat(f, tiny * 1.5), 2u);  // tie 1|2 -> 2
    EXPECT_EQ(EncodeFloat(f, 5e-324), 0u);      // smallest f64 subnormal
    EXPECT_EQ(EncodeFloat(f, -5e-324), neg_zero);
    EXPECT_EQ(EncodeFloat(f, 0.0), 0u);
    EXPECT_EQ(EncodeFloat(f, -0.0), neg_zero);
    // The f32 path agrees, including for f32 subnormal inputs.
    for (uint32_t u : {0x00000001u, 0x80000001u, 0x007FFFFFu, 0x00400000u,
                       0x80000000u, 0x00000000u}) {
      ExpectEncodeF32(r, u);
    }
  }
}

TEST(MinifloatTest, SpecialInputs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double kInf = std::numeric_limits<double>::infinity();
  for (const Reference& r : References()) {
    SCOPED_TRACE(r.spec.name);
    const FloatFormat& f = FormatOf(r.spec.type);
    for (double x : {kInf, -kInf, nan, -nan, 0.0, -0.0, 1e300, -1e300}) {
      if (r.spec.kind == Kind::kE8m0) {
        EXPECT_EQ(EncodeFloat(f, x), 0xFFu) << x;
        continue;
      }
      EXPECT_EQ(EncodeFloat(f, x), r.Encode(x)) << x;
      EXPECT_EQ(EncodeFloat(f, x, OverflowMode::kSaturate), r.Encode(x, true))
          << x;
    }
    for (uint32_t u :
         {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u,
          0xFFBFFFFFu, 0x7FFFFFFFu, 0x7F7FFFFFu, 0xFF7FFFFFu}) {
      ExpectEncodeF32(r, u);
    }
  }
}

TEST(MinifloatTest, NanPayloadRulesOnNarrowing) {
  const FloatFormat& f16 = FormatOf(PrimitiveType::kF16);
  const FloatFormat& e5m2 = FormatOf(PrimitiveType::kF8E5M2);
  const FloatFormat& e4m3 = FormatOf(PrimitiveType::kF8E4M3);
  // f32 NaN 0x7FA00000 (fraction 0x200000: top bits 01): f16 keeps the top
  // ten fraction bits 0b0100000000; e5m2 keeps 01.
  EXPECT_EQ(EncodeFloatFromF32Bits(f16, 0x7FA00000u), 0x7D00u);
  EXPECT_EQ(EncodeFloatFromF32Bits(e5m2, 0x7FA00000u), 0x7Du);
  // Payload entirely below the kept bits: quiet NaN (sign kept).
  EXPECT_EQ(EncodeFloatFromF32Bits(f16, 0x7F800001u), 0x7E00u);
  EXPECT_EQ(EncodeFloatFromF32Bits(f16, 0xFF800001u), 0xFE00u);
  EXPECT_EQ(EncodeFloatFromF32Bits(e4m3, 0x7F800001u), 0x7Cu);
  // A signalling payload that survives truncation stays as it is.
  EXPECT_EQ(EncodeFloatFromF32Bits(f16, 0x7F802000u), 0x7C01u);
  // Types without payload bits.
  EXPECT_EQ(MinifloatFromDouble(PrimitiveType::kF8E4M3FN, -NAN), 0xFFu);
  EXPECT_EQ(MinifloatFromDouble(PrimitiveType::kF8E4M3FN, NAN), 0x7Fu);
  EXPECT_EQ(MinifloatFromDouble(PrimitiveType::kF8E5M2FNUZ, -NAN), 0x80u);
  EXPECT_EQ(MinifloatFromDouble(PrimitiveType::kF8E5M2FNUZ, NAN), 0x80u);
  // Finite-only types: XLA's f4e2m1fn emitter gives -0 for any NaN.
  EXPECT_EQ(MinifloatFromDouble(PrimitiveType::kF4E2M1FN, NAN), 0x8u);
  EXPECT_EQ(MinifloatFromDouble(PrimitiveType::kF4E2M1FN, -NAN), 0x8u);
  EXPECT_EQ(MinifloatFromDouble(PrimitiveType::kF6E2M3FN, NAN), 0x20u);
  EXPECT_EQ(MinifloatFromDouble(PrimitiveType::kF6E3M2FN, -NAN), 0x20u);
}

TEST(MinifloatTest, SweepOfF32BitPatterns) {
  for (const Reference& r : References()) {
    SCOPED_TRACE(r.spec.name);
    // Every 65537th pattern: covers every exponent with varied fractions.
    for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += 65537) {
      ExpectEncodeF32(r, static_cast<uint32_t>(u));
    }
    // A fixed-seed random sample of all patterns, and one concentrated on
    // the type's range (exponents from below the smallest subnormal to
    // above the largest value) where the rounding happens.
    std::mt19937 rng(12345);
    for (int i = 0; i < (1 << 17); ++i) ExpectEncodeF32(r, rng());
    const int lo_exp = 127 + (1 - r.spec.bias - r.spec.m) - 3;
    const int hi_exp =
        127 + static_cast<int>(std::log2(r.table.back().value)) + 3;
    std::uniform_int_distribution<int> exp_dist(std::max(lo_exp, 0),
                                                std::min(hi_exp, 255));
    for (int i = 0; i < (1 << 17); ++i) {
      uint32_t u = (static_cast<uint32_t>(rng() & 1) << 31) |
                   (static_cast<uint32_t>(exp_dist(rng)) << 23) |
                   (rng() & 0x7FFFFF);
      ExpectEncodeF32(r, u);
    }
  }
}

TEST(MinifloatTest, RandomDoublesInRangeMatchReference) {
  std::mt19937_64 rng(99);
  for (const Reference& r : References()) {
    if (r.spec.kind == Kind::kE8m0) continue;  // checked separately below
    SCOPED_TRACE(r.spec.name);
    const FloatFormat& f = FormatOf(r.spec.type);
    const int lo_exp = 1 - r.spec.bias - r.spec.m - 3;
    const int hi_exp = static_cast<int>(std::log2(r.table.back().value)) + 3;
    std::uniform_int_distribution<int> exp_dist(lo_exp, hi_exp);
    for (int i = 0; i < (1 << 17); ++i) {
      double x = std::ldexp(static_cast<double>((rng() >> 11) | (1ull << 52)),
                            exp_dist(rng) - 52);
      if (rng() & 1) x = -x;
      ASSERT_EQ(EncodeFloat(f, x), r.Encode(x)) << x;
      ASSERT_EQ(EncodeFloat(f, x, OverflowMode::kSaturate), r.Encode(x, true))
          << x;
    }
  }
}

#ifdef __FLT16_MAX__
// A third opinion for f16: the compiler's _Float16 conversions (libgcc's
// soft-float routines, correctly rounded).
TEST(MinifloatTest, F16AgreesWithCompilerFloat16) {
  const FloatFormat& f16 = FormatOf(PrimitiveType::kF16);
  for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += 4099) {
    float x = FromBits32(static_cast<uint32_t>(u));
    if (std::isnan(x)) continue;
    _Float16 h = static_cast<_Float16>(x);
    uint16_t hb;
    std::memcpy(&hb, &h, 2);
    ASSERT_EQ(EncodeFloatFromF32Bits(f16, static_cast<uint32_t>(u)), hb) << x;
  }
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> exp_dist(-30, 18);
  for (int i = 0; i < (1 << 18); ++i) {
    double x = std::ldexp(static_cast<double>((rng() >> 11) | (1ull << 52)),
                          exp_dist(rng) - 52);
    _Float16 h = static_cast<_Float16>(x);
    uint16_t hb;
    std::memcpy(&hb, &h, 2);
    ASSERT_EQ(EncodeFloat(f16, x), hb) << x;
  }
}
#endif

// ------------------------------------------------------------ f8e8m0fnu

TEST(MinifloatTest, E8m0FollowsXla) {
  const FloatFormat& f = FormatOf(PrimitiveType::kF8E8M0FNU);
  EXPECT_EQ(DecodeFloat(f, 0x7F), 1.0);
  EXPECT_EQ(DecodeFloat(f, 0x00), std::ldexp(1.0, -127));
  EXPECT_EQ(DecodeFloat(f, 0xFE), std::ldexp(1.0, 127));
  EXPECT_EQ(EncodeFloat(f, 1.0), 0x7Fu);
  EXPECT_EQ(EncodeFloat(f, 1.4999999), 0x7Fu);
  EXPECT_EQ(EncodeFloat(f, 1.5), 0x80u);   // ties round up (XLA)
  EXPECT_EQ(EncodeFloat(f, 3.0), 0x81u);   // 1.5 * 2 -> 4
  EXPECT_EQ(EncodeFloat(f, 0.75), 0x7Fu);  // 1.5 * 2^-1 -> 1
  EXPECT_EQ(EncodeFloat(f, 0.0), 0xFFu);
  EXPECT_EQ(EncodeFloat(f, -0.0), 0xFFu);
  EXPECT_EQ(EncodeFloat(f, -1.0), 0xFFu);
  EXPECT_EQ(EncodeFloat(f, INFINITY), 0xFFu);
  EXPECT_EQ(EncodeFloat(f, NAN), 0xFFu);
  EXPECT_EQ(EncodeFloat(f, 0x1.8p127), 0xFFu);
  EXPECT_EQ(EncodeFloat(f, 0x1.7ffffep127), 0xFEu);
  EXPECT_EQ(EncodeFloat(f, 0x1p-127), 0x00u);
  EXPECT_EQ(EncodeFloat(f, 0x1p-140), 0x00u);
  EXPECT_EQ(EncodeFloat(f, 1e-300), 0x00u);
  EXPECT_EQ(XlaF32BitsToF8e8m0fnu(0x00400001u), 0x01u);      // XLA's carry
  EXPECT_EQ(EncodeFloatFromF32Bits(f, 0x00400001u), 0x00u);  // nearer
  EXPECT_EQ(XlaF32BitsToF8e8m0fnu(0x005FFFFFu), 0x01u);
  EXPECT_EQ(EncodeFloatFromF32Bits(f, 0x005FFFFFu), 0x00u);
  EXPECT_EQ(XlaF32BitsToF8e8m0fnu(0x00600000u), 0x01u);  // tie: up
  EXPECT_EQ(EncodeFloatFromF32Bits(f, 0x00600000u), 0x01u);
  EXPECT_EQ(XlaF32BitsToF8e8m0fnu(0x3FC00000u), 0x80u);  // 1.5 -> 2
  EXPECT_EQ(XlaF32BitsToF8e8m0fnu(0x80000000u), 0xFFu);  // -0
  EXPECT_EQ(EncodeFloatFromF32Bits(f, 0x00000001u), 0x00u);
  EXPECT_EQ(NegateEncoding(f, 0x7F), 0xFFu);
  EXPECT_EQ(MinNormal(f), std::ldexp(1.0, -127));
  EXPECT_EQ(MinSubnormal(f), std::ldexp(1.0, -127));
  EXPECT_EQ(MaxFinite(f), std::ldexp(1.0, 127));
  // Random doubles against a value-based restatement (frexp).
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> exp_dist(-135, 135);
  for (int i = 0; i < (1 << 16); ++i) {
    double x = std::ldexp(static_cast<double>((rng() >> 11) | (1ull << 52)),
                          exp_dist(rng) - 52);
    int ex;
    double fr = std::frexp(x, &ex);  // x = fr * 2^ex, fr in [0.5, 1)
    uint64_t want;
    if (x >= 0x1.8p127) {
      want = 0xFF;
    } else if (x <= 0x1p-127) {
      want = 0x00;
    } else if (x < 0x1p-126) {
      want = x < 0x1.8p-127 ? 0x00 : 0x01;
    } else {
      want = static_cast<uint64_t>(ex - 1 + 127 + (fr >= 0.75 ? 1 : 0));
    }
    ASSERT_EQ(EncodeFloat(f, x), want) << x;
  }
}

// ------------------------------------------------------ hand-derived spots

TEST(MinifloatTest, HandDerivedValues) {
  using T = PrimitiveType;
  // f8e4m3fn: max 448 = 0.1111.110; 0x7F is NaN; 464 ties to 448 (even).
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FN, 448), 0x7Eu);
  EXPECT_EQ(MinifloatToDouble(T::kF8E4M3FN, 0x7E), 448);
  EXPECT_TRUE(std::isnan(MinifloatToDouble(T::kF8E4M3FN, 0x7F)));
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FN, 464), 0x7Eu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FN, 464.0001), 0x7Fu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FN, -500), 0xFFu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FN, INFINITY), 0x7Fu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FN, 1e6, OverflowMode::kSaturate),
            0x7Eu);
  EXPECT_EQ(
      MinifloatFromDouble(T::kF8E4M3FN, -INFINITY, OverflowMode::kSaturate),
      0xFEu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FN, 1.0), 0x38u);  // 0.0111.000
  EXPECT_EQ(MinifloatToDouble(T::kF8E4M3FN, 0x01), 0x1p-9);
  // f8e5m2: max 57344 = 0.11110.11; 61440 ties to inf (2^16 is even).
  EXPECT_EQ(MinifloatFromDouble(T::kF8E5M2, 57344), 0x7Bu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E5M2, 61440), 0x7Cu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E5M2, 61439.9), 0x7Bu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E5M2, -1e9), 0xFCu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E5M2, 1e9, OverflowMode::kSaturate),
            0x7Cu);  // has inf: saturation does not apply
  // fnuz: 0x80 is NaN, no -0.
  EXPECT_TRUE(std::isnan(MinifloatToDouble(T::kF8E4M3FNUZ, 0x80)));
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FNUZ, -0.0), 0x00u);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FNUZ, -1e-10), 0x00u);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FNUZ, 240), 0x7Fu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FNUZ, 1000), 0x80u);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3FNUZ, -1.0), 0xC0u);  // 1.1000.000
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3B11FNUZ, 30), 0x7Fu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3B11FNUZ, 31), 0x80u);  // tie -> 32
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3B11FNUZ, 30.9), 0x7Fu);
  // bf16 / f16.
  EXPECT_EQ(MinifloatFromDouble(T::kBF16, 1.0), 0x3F80u);
  EXPECT_EQ(MinifloatFromDouble(T::kBF16, -2.0), 0xC000u);
  EXPECT_EQ(MinifloatFromDouble(T::kF16, 1.0), 0x3C00u);
  EXPECT_EQ(MinifloatFromDouble(T::kF16, 65504), 0x7BFFu);
  EXPECT_EQ(MinifloatFromDouble(T::kF16, 65520), 0x7C00u);  // tie -> inf
  EXPECT_EQ(MinifloatFromDouble(T::kF16, 65519.99), 0x7BFFu);
  EXPECT_EQ(MinifloatFromDouble(T::kF16, 0x1p-24), 0x0001u);
  EXPECT_EQ(MinifloatFromDouble(T::kF16, 0x1p-25), 0x0000u);
  EXPECT_EQ(MinifloatFromDouble(T::kF16, 0x1.000001p-25), 0x0001u);
  EXPECT_EQ(MinifloatFromDouble(T::kF16, 1.0 + 0x1p-11), 0x3C00u);  // tie
  EXPECT_EQ(MinifloatFromDouble(T::kF16, 1.0 + 3 * 0x1p-11), 0x3C02u);
  // f4e2m1fn: 0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6.
  const double f4[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (int b = 0; b < 8; ++b) {
    EXPECT_EQ(MinifloatToDouble(T::kF4E2M1FN, b), f4[b]);
    EXPECT_EQ(MinifloatToDouble(T::kF4E2M1FN, b | 8), -f4[b]);
    EXPECT_EQ(MinifloatFromDouble(T::kF4E2M1FN, f4[b]), uint64_t(b));
  }
  EXPECT_EQ(MinifloatFromDouble(T::kF4E2M1FN, 5), 0x6u);  // tie 4|6 -> 4
  EXPECT_EQ(MinifloatFromDouble(T::kF4E2M1FN, 7), 0x7u);  // saturates
  EXPECT_EQ(MinifloatFromDouble(T::kF4E2M1FN, 100), 0x7u);
  EXPECT_EQ(MinifloatFromDouble(T::kF4E2M1FN, -INFINITY), 0xFu);
  EXPECT_EQ(MinifloatFromDouble(T::kF4E2M1FN, 0.25), 0x0u);  // tie 0|0.5
  EXPECT_EQ(MinifloatFromDouble(T::kF4E2M1FN, 0.75), 0x2u);  // tie .5|1
  EXPECT_EQ(MinifloatFromDouble(T::kF4E2M1FN, -0.1), 0x8u);  // -0
  // f6: max values.
  EXPECT_EQ(MinifloatToDouble(T::kF6E2M3FN, 0x1F), 7.5);
  EXPECT_EQ(MinifloatToDouble(T::kF6E3M2FN, 0x1F), 28);
  EXPECT_EQ(MinifloatFromDouble(T::kF6E3M2FN, -1000), 0x3Fu);
  // f8e4m3 / f8e3m4 (IEEE-like).
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3, 240), 0x77u);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E4M3, 248), 0x78u);  // tie -> inf
  EXPECT_EQ(MinifloatFromDouble(T::kF8E3M4, 15.5), 0x6Fu);
  EXPECT_EQ(MinifloatFromDouble(T::kF8E3M4, 16), 0x70u);  // inf
  // f8e8m0fnu.
  EXPECT_EQ(MinifloatToDouble(T::kF8E8M0FNU, 0x7F), 1.0);
}

TEST(MinifloatTest, LimitsAndCanonicalNans) {
  struct Want {
    PrimitiveType type;
    double max, min_normal, min_subnormal;
    uint64_t max_enc, canonical_nan;
  };
  const Want wants[] = {
      {PrimitiveType::kF16, 65504, 0x1p-14, 0x1p-24, 0x7BFF, 0x7E00},
      {PrimitiveType::kBF16, 0x1.FEp127, 0x1p-126, 0x1p-133, 0x7F7F, 0x7FC0},
      {PrimitiveType::kF8E5M2, 57344, 0x1p-14, 0x1p-16, 0x7B, 0x7E},
      {PrimitiveType::kF8E4M3, 240, 0x1p-6, 0x1p-9, 0x77, 0x7C},
      {PrimitiveType::kF8E3M4, 15.5, 0x1p-2, 0x1p-6, 0x6F, 0x78},
      {PrimitiveType::kF8E4M3FN, 448, 0x1p-6, 0x1p-9, 0x7E, 0x7F},
      {PrimitiveType::kF8E4M3FNUZ, 240, 0x1p-7, 0x1p-10, 0x7F, 0x80},
      {PrimitiveType::kF8E5M2FNUZ, 57344, 0x1p-15, 0x1p-17, 0x7F, 0x80},
      {PrimitiveType::kF8E4M3B11FNUZ, 30, 0x1p-10, 0x1p-13, 0x7F, 0x80},
      {PrimitiveType::kF4E2M1FN, 6, 1, 0.5, 0x7, 0},
      {PrimitiveType::kF6E2M3FN, 7.5, 1, 0.125, 0x1F, 0},
      {PrimitiveType::kF6E3M2FN, 28, 0.25, 0.0625, 0x1F, 0},
      {PrimitiveType::kF8E8M0FNU, 0x1p127, 0x1p-127, 0x1p-127, 0xFE, 0xFF},
      {PrimitiveType::kF32, 0x1.FFFFFEp127, 0x1p-126, 0x1p-149, 0x7F7FFFFF,
       0x7FC00000},
      {PrimitiveType::kF64, std::numeric_limits<double>::max(), 0x1p-1022,
       0x1p-1074, 0x7FEFFFFFFFFFFFFF, 0x7FF8000000000000},
  };
  for (const Want& w : wants) {
    const FloatFormat& f = FormatOf(w.type);
    SCOPED_TRACE(std::string(PrimitiveTypeName(w.type)));
    EXPECT_EQ(MaxFinite(f), w.max);
    EXPECT_EQ(MinNormal(f), w.min_normal);
    EXPECT_EQ(MinSubnormal(f), w.min_subnormal);
    EXPECT_EQ(MaxFiniteEncoding(f), w.max_enc);
    EXPECT_EQ(CanonicalNan(f), w.canonical_nan);
    if (w.canonical_nan != 0) {
      EXPECT_TRUE(IsNanEncoding(f, w.canonical_nan));
      EXPECT_EQ(Bits(DecodeFloat(f, w.canonical_nan)) & ~(uint64_t{1} << 63),
                0x7FF8000000000000u);  // the default quiet NaN
    }
  }
}

// ------------------------------------------------- sign helpers and digits

TEST(MinifloatTest, NegativeZeroAndNegate) {
  using T = PrimitiveType;
  EXPECT_TRUE(IsNegativeZeroEncoding(FormatOf(T::kF16), 0x8000));
  EXPECT_FALSE(IsNegativeZeroEncoding(FormatOf(T::kF16), 0x0000));
  EXPECT_FALSE(IsNegativeZeroEncoding(FormatOf(T::kF8E4M3FNUZ), 0x80));
  EXPECT_TRUE(IsNegativeZeroEncoding(FormatOf(T::kF4E2M1FN), 0x8));
  EXPECT_FALSE(IsNegativeZeroEncoding(FormatOf(T::kF8E8M0FNU), 0x00));
  EXPECT_EQ(NegateEncoding(FormatOf(T::kF16), 0x3C00), 0xBC00u);
  EXPECT_EQ(NegateEncoding(FormatOf(T::kF8E4M3FNUZ), 0x00), 0x00u);
  EXPECT_EQ(NegateEncoding(FormatOf(T::kF8E4M3FNUZ), 0x80), 0x80u);
  EXPECT_EQ(NegateEncoding(FormatOf(T::kF8E4M3FNUZ), 0x01), 0x81u);
  EXPECT_EQ(NegateEncoding(FormatOf(T::kF4E2M1FN), 0x0), 0x8u);
  EXPECT_EQ(NegateEncoding(FormatOf(T::kF6E2M3FN), 0x21), 0x01u);
  // Property: decode(negate(b)) == -decode(b) for every signed type.
  for (const Reference& r : References()) {
    if (r.spec.kind == Kind::kE8m0) continue;
    const FloatFormat& f = FormatOf(r.spec.type);
    for (uint64_t b = 0; b < (uint64_t{1} << r.spec.bits); ++b) {
      double x = DecodeFloat(f, b);
      double y = DecodeFloat(f, NegateEncoding(f, b));
      if (std::isnan(x)) {
        ASSERT_TRUE(std::isnan(y)) << r.spec.name << " " << b;
      } else if (x == 0 && r.spec.kind == Kind::kFnuz) {
        ASSERT_EQ(Bits(y), Bits(0.0));
      } else {
        ASSERT_EQ(Bits(y), Bits(-x)) << r.spec.name << " " << b;
      }
    }
  }
}

TEST(MinifloatTest, DigitCounts) {
  // floor((p-1) log10 2) and ceil(1 + p log10 2), worked out by hand.
  struct Want {
    PrimitiveType type;
    int digits10, max_digits10;
  };
  const Want wants[] = {
      {PrimitiveType::kF16, 3, 5},        {PrimitiveType::kBF16, 2, 4},
      {PrimitiveType::kF8E5M2, 0, 2},     {PrimitiveType::kF8E4M3, 0, 3},
      {PrimitiveType::kF8E3M4, 1, 3},     {PrimitiveType::kF8E4M3FN, 0, 3},
      {PrimitiveType::kF8E4M3FNUZ, 0, 3}, {PrimitiveType::kF8E5M2FNUZ, 0, 2},
      {PrimitiveType::kF4E2M1FN, 0, 2},   {PrimitiveType::kF6E2M3FN, 0, 3},
      {PrimitiveType::kF6E3M2FN, 0, 2},   {PrimitiveType::kF8E8M0FNU, 0, 2},
  };
  for (const Want& w : wants) {
    EXPECT_EQ(Digits10(FormatOf(w.type)), w.digits10)
        << PrimitiveTypeName(w.type);
    EXPECT_EQ(MaxDigits10(FormatOf(w.type)), w.max_digits10)
        << PrimitiveTypeName(w.type);
  }
  // max_digits10 significant digits read back to the same encoding for
  // every finite value of every type (what the literal printer relies on).
  for (const Reference& r : References()) {
    const FloatFormat& f = FormatOf(r.spec.type);
    for (uint64_t b = 0; b < (uint64_t{1} << r.spec.bits); ++b) {
      double x = DecodeFloat(f, b);
      if (!std::isfinite(x)) continue;
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.*g", MaxDigits10(f), x);
      ASSERT_EQ(EncodeFloat(f, std::strtod(buf, nullptr)), b)
          << r.spec.name << " " << buf;
    }
  }
}

}  // namespace
}  // namespace hloref
