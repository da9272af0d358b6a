// Tests of convert, bitcast-convert, reduce-precision and
// stochastic-convert. Expected values are hand-derived bit patterns (the
// comments give the derivation).
#include "interpreter/ops/convert.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"
#include "interpreter/ops/elementwise_test_util.h"

namespace hloref {
namespace {

using namespace testing_util;  // NOLINT
using HO = HloOpcode;

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();

absl::StatusOr<EvalResult> Conv(const Literal& x, PT to) {
  return RunOp(HO::kConvert, ShapeLike(x, to), {x});
}
Literal ConvV(const Literal& x, PT to) {
  auto r = Conv(x, to);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(r->value) : Literal();
}
std::vector<bool> Mask(const EvalResult& r) {
  std::vector<bool> m;
  const auto& dc = r.outputs[0].dont_care;
  for (int64_t i = 0; i < r.outputs[0].value.element_count(); ++i) {
    m.push_back(dc && dc->GetAsInt64(i) != 0);
  }
  return m;
}

TEST(Convert, IntToFloat) {
  // The seed's example.
  EXPECT_EQ(ConvV(FromInts(PT::kS32, {0, 1, 2}), PT::kF32),
            F32s({0.0f, 1.0f, 2.0f}));
  // 2^24 + 1 ties to even (2^24); INT32_MAX rounds to 2^31.
  EXPECT_EQ(ConvV(FromInts(PT::kS32, {16777217, 2147483647, -3}), PT::kF32),
            F32s({16777216.0f, 2147483648.0f, -3.0f}));
  EXPECT_EQ(ConvV(FromInts(PT::kU64, {-1}), PT::kF32),
            Bits(PT::kF32, {0x5F800000}));
  // 2^60 + 2^52 + 1 lies just above the bf16 midpoint 2^60 + 2^52, so it
  // rounds up to 2^60 + 2^53 = 0x5D81 (going through double first would
  // land on the midpoint and tie down to 0x5D80).
  EXPECT_EQ(
      ConvV(FromInts(PT::kS64, {(int64_t{1} << 60) + (int64_t{1} << 52) + 1}),
            PT::kBF16),
      Bits(PT::kBF16, {0x5D81}));
  // 17 -> f8e4m3fn: spacing 2 in [16, 32), 17 is a tie -> 16 (even) = 0x58.
  EXPECT_EQ(ConvV(FromInts(PT::kS32, {17}), PT::kF8E4M3FN),
            Bits(PT::kF8E4M3FN, {0x58}));
  EXPECT_EQ(ConvV(FromInts(PT::kPred, {1, 0}), PT::kF64), F64s({1.0, 0.0}));
  EXPECT_EQ(ConvV(FromInts(PT::kS8, {-2}), PT::kC64),
            Literal::CreateR1<std::complex<float>>(PT::kC64, {{-2.0f, 0.0f}}));
}

TEST(Convert, FloatToIntSaturatesNanToZero) {
  auto r = Conv(F32s({1.9f, -1.9f, kNanF, 3e9f, -3e9f, kInfF, 2147483648.0f}),
                PT::kS32);
  ASSERT_TRUE(r.ok());
  const int32_t mx = std::numeric_limits<int32_t>::max();
  const int32_t mn = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(r->value, FromInts(PT::kS32, {1, -1, 0, mx, mn, mx, mx}));
  EXPECT_EQ(Mask(*r),
            (std::vector<bool>{false, false, true, true, true, true, true}));
  auto u = Conv(F32s({-0.5f, -3.0f, 255.9f, 300.0f, kNanF}), PT::kU8);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->value, FromInts(PT::kU8, {0, 0, 255, 255, 0}));
  EXPECT_EQ(Mask(*u), (std::vector<bool>{false, true, false, true, true}));
  EXPECT_EQ(ConvV(F64s({1e300, -9.5}), PT::kS64),
            FromInts(PT::kS64, {std::numeric_limits<int64_t>::max(), -9}));
  EXPECT_EQ(ConvV(F32s({7.9f, -9.0f, 8.0f}), PT::kS4),
            FromInts(PT::kS4, {7, -8, 7}));
  EXPECT_EQ(ConvV(F32s({0.0f, -0.0f, 2.0f, kNanF}), PT::kPred),
            FromInts(PT::kPred, {0, 0, 1, 1}));
}

TEST(Convert, FloatToFloat) {
  // f64 -> f32: 1 + 2^-24 ties to 1; a hair above rounds up.
  EXPECT_EQ(ConvV(F64s({1 + std::ldexp(1.0, -24),
                        1 + std::ldexp(1.0, -24) + std::ldexp(1.0, -50)}),
                  PT::kF32),
            F32s({1.0f, 1.0f + std::ldexp(1.0f, -23)}));
  // f32 -> f16: 65520 is the tie between 65504 and 2^16 -> inf; 1e-8 is
  // below half the smallest subnormal -> 0; 2^-24 is the smallest
  // subnormal.
  EXPECT_EQ(
      ConvV(F32s({65520.0f, 1e-8f, std::ldexp(1.0f, -24), -kInfF}), PT::kF16),
      Bits(PT::kF16, {0x7C00, 0x0000, 0x0001, 0xFC00}));
  EXPECT_EQ(ConvV(F32s({1.0f, -2.0f}), PT::kBF16),
            Bits(PT::kBF16, {0x3F80, 0xC000}));
  // f8e5m2 has inf: 1e6 -> 0x7C.
  EXPECT_EQ(ConvV(F32s({1e6f}), PT::kF8E5M2), Bits(PT::kF8E5M2, {0x7C}));
  // f8e4m3fn: 464 is the tie between 448 (mantissa 110) and 480 (past the
  // max): even -> 448 = 0x7E; 465 rounds past the max -> NaN (0x7F / 0xFF).
  auto fn = Conv(F32s({464.0f, 465.0f, -465.0f}), PT::kF8E4M3FN);
  ASSERT_TRUE(fn.ok());
  EXPECT_EQ(fn->value, Bits(PT::kF8E4M3FN, {0x7E, 0x7F, 0xFF}));
  // Double rounding through f16 (impl.convert.4): 1.0625 + 2^-13 is above
  // the f8e4m3fn midpoint 1.0625 by less than half an f16 ulp, so f16
  // rounds it onto the midpoint and the tie goes to even 1.0 (0x38); the
  // direct rounding would give 1.125 (0x39).
  auto dr = Conv(F32s({1.0625f + std::ldexp(1.0f, -13), 1.5f}), PT::kF8E4M3FN);
  ASSERT_TRUE(dr.ok());
  EXPECT_EQ(dr->value, Bits(PT::kF8E4M3FN, {0x38, 0x3C}));
  EXPECT_EQ(Mask(*dr), (std::vector<bool>{true, false}));
  // f8e4m3 (IEEE-like) converts directly: the same value gives 0x39.
  EXPECT_EQ(ConvV(F32s({1.0625f + std::ldexp(1.0f, -13)}), PT::kF8E4M3),
            Bits(PT::kF8E4M3, {0x39}));
  // Finite-only f4e2m1fn: NaN -> -0 (0x8, XLA's choice as recorded by
  // spec/types/minifloat.cc, impl.convert.3) and overflow saturates to 6.
  auto f4 = Conv(F32s({kNanF, 100.0f, 1.0f}), PT::kF4E2M1FN);
  ASSERT_TRUE(f4.ok());
  EXPECT_EQ(f4->value, Bits(PT::kF4E2M1FN, {0x8, 0x7, 0x2}));
  EXPECT_EQ(Mask(*f4), (std::vector<bool>{true, true, false}));
  // Every narrow type round-trips 1.0 and -2.0 (except unsigned e8m0).
  for (PT t :
       {PT::kF16, PT::kBF16, PT::kF8E5M2, PT::kF8E4M3FN, PT::kF8E4M3B11FNUZ,
        PT::kF8E5M2FNUZ, PT::kF8E4M3FNUZ, PT::kF8E4M3, PT::kF8E3M4,
        PT::kF4E2M1FN, PT::kF6E3M2FN, PT::kF6E2M3FN}) {
    Literal n = ConvV(F32s({1.0f, -2.0f}), t);
    EXPECT_EQ(ConvV(n, PT::kF64), F64s({1.0, -2.0})) << PrimitiveTypeName(t);
  }
  EXPECT_EQ(ConvV(F32s({4.0f}), PT::kF8E8M0FNU).GetAsDouble(0), 4.0);
}

TEST(Convert, IntToIntAndComplex) {
  EXPECT_EQ(ConvV(FromInts(PT::kS32, {300, -1}), PT::kS8),
            FromInts(PT::kS8, {44, -1}));
  EXPECT_EQ(ConvV(FromInts(PT::kS32, {-1}), PT::kU8), FromInts(PT::kU8, {255}));
  EXPECT_EQ(ConvV(FromInts(PT::kU8, {255, 7}), PT::kS4),
            FromInts(PT::kS4, {-1, 7}));
  EXPECT_EQ(ConvV(FromInts(PT::kS32, {0, 5}), PT::kPred),
            FromInts(PT::kPred, {0, 1}));
  using Z = std::complex<double>;
  EXPECT_EQ(ConvV(Literal::CreateR1<Z>(PT::kC128, {Z(0.1, -1.5)}), PT::kC64),
            Literal::CreateR1<std::complex<float>>(PT::kC64, {{0.1f, -1.5f}}));
  EXPECT_FALSE(Conv(Literal::CreateR1<Z>(PT::kC128, {Z(1, 1)}), PT::kF64).ok());
}

absl::StatusOr<Literal> Bitcast(const Literal& x, Shape to) {
  return EvalOp(HO::kBitcastConvert, to, {x});
}

TEST(BitcastConvert, SameAndChangingWidth) {
  auto a = Bitcast(F32s({1.0f, -0.0f}), Shape::Array(PT::kS32, {2}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a, FromInts(PT::kS32,
                         {0x3F800000, std::numeric_limits<int32_t>::min()}));
  // f32[] -> f16[2]: the low half first (impl.bitcast-convert.1).
  auto b = Bitcast(Literal::CreateR0<float>(PT::kF32, 1.0f),
                   Shape::Array(PT::kF16, {2}));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*b, Bits(PT::kF16, {0x0000, 0x3F80}));
  // u8[1,4] -> u32[1]: bytes 1,2,3,4 -> 0x04030201.
  Literal bytes =
      Literal::CreateFromValues<uint8_t>(PT::kU8, {1, 4}, {1, 2, 3, 4});
  auto c = Bitcast(bytes, Shape::Array(PT::kU32, {1}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c, FromInts(PT::kU32, {0x04030201}));
  // Sub-byte: s4[2] {1, -1} -> s8: nibbles 0x1 (low), 0xF (high) = 0xF1.
  auto d = Bitcast(Literal::CreateFromValues<int8_t>(PT::kS4, {2}, {1, -1}),
                   Shape::Scalar(PT::kS8));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(*d, Literal::CreateR0<int8_t>(PT::kS8, static_cast<int8_t>(0xF1)));
  auto e = Bitcast(Literal::CreateR0<uint8_t>(PT::kU8, 0xAB),
                   Shape::Array(PT::kU4, {2}));
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(*e, FromInts(PT::kU4, {0xB, 0xA}));
  auto g = Bitcast(Literal::CreateR0<uint8_t>(PT::kU8, 0x8F),
                   Shape::Array(PT::kS4, {2}));
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, FromInts(PT::kS4, {-1, -8}));
  // c64 -> f32[2]: real then imaginary.
  auto f =
      Bitcast(Literal::CreateR0<std::complex<float>>(PT::kC64, {1.5f, -2.0f}),
              Shape::Array(PT::kF32, {2}));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(*f, F32s({1.5f, -2.0f}));
  auto bad = Bitcast(F32s({1.0f}), Shape::Array(PT::kS64, {1}));
  EXPECT_FALSE(bad.ok());
}

absl::StatusOr<Literal> Reduce(const Literal& x, int e, int m) {
  return EvalOp(HO::kReducePrecision, x.shape(), {x}, [&](HloAttributes* a) {
    a->exponent_bits = e;
    a->mantissa_bits = m;
  });
}

TEST(ReducePrecision, F32ToHalfParameters) {
  const float one_ulp11 = std::ldexp(1.0f, -11);
  auto r = Reduce(
      Bits(PT::kF32, {BitsOf(1.0f), BitsOf(65520.0f), BitsOf(1e-5f),
                      BitsOf(1.0f + one_ulp11), BitsOf(1.0f + 3 * one_ulp11),
                      0x7FC00001u, BitsOf(-70000.0f)}),
      5, 10);
  ASSERT_TRUE(r.ok()) << r.status();
  // 65520 rounds to 2^16, beyond f16's range -> inf; 1e-5 would be an f16
  // subnormal and is flushed to 0 (no reduced subnormals); ties go to even;
  // NaN keeps its bits.
  EXPECT_EQ(*r, Bits(PT::kF32, {BitsOf(1.0f), BitsOf(kInfF), 0u, BitsOf(1.0f),
                                BitsOf(1.0f + std::ldexp(1.0f, -9)),
                                0x7FC00001u, BitsOf(-kInfF)}));
  // m = 0: 1.5 is a tie between 1 (odd exponent field) and 2 -> 2.
  auto z = Reduce(F32s({1.5f, 1.25f}), 8, 0);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(*z, F32s({2.0f, 1.0f}));
  // Parameters wider than the type: no-op (subnormals kept).
  auto w = Reduce(F32s({1e-45f, 0.1f}), 11, 52);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, F32s({1e-45f, 0.1f}));
  // bf16 with f16-like exponent: 1e-5 flushed; 0x3F81 (1.0078125) to
  // 3 mantissa bits -> 1.0.
  auto b = Reduce(Bits(PT::kBF16, {0x3727, 0x3F81}), 5, 3);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, Bits(PT::kBF16, {0x0000, 0x3F80}));
  // f8e4m3fn through f32: e=2 allows exponents up to 1, so 4.0 -> inf, which
  // f8e4m3fn encodes as NaN; 1.125 with m=1 -> 1.0.
  auto f8 = Reduce(Bits(PT::kF8E4M3FN, {0x48, 0x39}), 2, 1);
  ASSERT_TRUE(f8.ok()) << f8.status();
  EXPECT_TRUE(std::isnan(f8->GetAsDouble(0)));
  EXPECT_EQ(f8->GetRawBits(1), 0x38u);
}

TEST(StochasticConvert, RoundsByRandomBits) {
  Literal x = F32s({2.25f, -2.25f, 2.25f, 2.25f, kNanF, 1e10f, -1e10f});
  Literal r = FromInts(PT::kU32, {0, 0, 0xFFFFFFFF, (1 << 30), 0, 0, 0});
  auto out = RunOp(HO::kStochasticConvert, ShapeLike(x, PT::kS32), {x, r});
  ASSERT_TRUE(out.ok()) << out.status();
  // fraction 0.25 scaled by 2^32 is 2^30: round up iff random < 2^30.
  EXPECT_EQ(
      out->value,
      FromInts(PT::kS32, {3, -3, 2, 2, 0, std::numeric_limits<int32_t>::max(),
                          std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(Mask(*out),
            (std::vector<bool>{false, false, false, false, true, true, true}));
  auto bad = RunOp(HO::kStochasticConvert, ShapeLike(x, PT::kS32),
                   {x, FromInts(PT::kU16, {0, 0, 0, 0, 0, 0, 0})});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

// XLA's StochasticConvertDecomposer multiplies the fraction by 2^bits made
// as a constant of the operand type. f8e4m3fn reaches 448, so 2^8 = 256 is
// exact: 0.25 * 256 = 64, and random 100 < 64 is false (round down), random
// 10 < 64 true (round up). f8e4m3 ends at 240 with infinities: 256 becomes
// +inf, 0.25 * inf = inf converts to u8 255, so every random below 255
// rounds up (-1.25 gives -2). f8e4m3fnuz ends at 240 without infinities:
// 256 becomes NaN, which converts to u8 0, so nothing rounds up. 0.0 * inf
// is NaN (-> 0): integral inputs never round up.
TEST(StochasticConvert, ScaleIsTwoToTheBitsInTheOperandType) {
  struct Case {
    PT type;
    std::vector<int64_t> want;
  };
  const std::vector<double> xs = {0.25, 0.25, -1.25, 3.0};
  const std::vector<int64_t> rs = {100, 10, 254, 0};
  for (const Case& c :
       {Case{PT::kF8E4M3FN, {0, 1, -1, 3}}, Case{PT::kF8E4M3, {1, 1, -2, 3}},
        Case{PT::kF8E4M3FNUZ, {0, 0, -1, 3}}}) {
    Literal x = FromDoubles(c.type, xs);
    Literal r = FromInts(PT::kU8, rs);
    auto out = RunOp(HO::kStochasticConvert, ShapeLike(x, PT::kS8), {x, r});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->value, FromInts(PT::kS8, c.want))
        << PrimitiveTypeName(c.type) << ": " << out->value.ToString();
  }
}

// f8e8m0fnu has no zero: the decomposer's floor(0.5) = 0 and fraction
// 4 - 4 = 0 become NaN in that type, so 0.5 and 0.25 give 0 (NaN -> 0) and
// nothing rounds up, whatever the random bits (0 here, which would round
// any positive fraction up).
TEST(StochasticConvert, E8M0HasNoZeroSoNothingRoundsUp) {
  Literal x = FromDoubles(PT::kF8E8M0FNU, {0.5, 0.25, 4.0, 1.0});
  Literal r = FromInts(PT::kU8, {0, 0, 0, 0});
  auto out = RunOp(HO::kStochasticConvert, ShapeLike(x, PT::kS8), {x, r});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->value, FromInts(PT::kS8, {0, 0, 4, 1}))
      << out->value.ToString();
}

TEST(ConvertShapes, RankZeroAndZeroSize) {
  auto s = EvalOp(HO::kConvert, Shape::Scalar(PT::kF16),
                  {Literal::CreateR0<int32_t>(PT::kS32, 3)});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->GetRawBits(0), 0x4200u);  // 3.0 = 1.1b * 2^1
  Literal e(Shape::Array(PT::kF32, {0}));
  auto z = EvalOp(HO::kConvert, Shape::Array(PT::kS8, {0}), {e});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->element_count(), 0);
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// convert's bf16 <-> f32 bit path (convert.cc) against Literal's own
// rounding (SetFromDouble: round-to-nearest-even, independent of
// convert.cc): every bf16 encoding widened, and f32 values around every
// bf16 rounding boundary (midpoints, one ulp either side), overflow,
// subnormals and signed zeros narrowed. NaNs take the general path.
TEST(ConvertBf16F32, BitPathMatchesRoundToNearestEven) {
  std::vector<uint64_t> bf;
  for (uint32_t h = 0; h < 65536; ++h) {
    if ((h & 0x7fff) <= 0x7f80) bf.push_back(h);  // no NaN
  }
  const Literal wide = *EvalOp(
      HO::kConvert, Shape::Array(PT::kF32, {static_cast<int64_t>(bf.size())}),
      {Bits(PT::kBF16, bf)});
  for (size_t i = 0; i < bf.size(); ++i) {
    ASSERT_EQ(wide.GetRawBits(static_cast<int64_t>(i)), bf[i] << 16) << i;
  }
  std::vector<uint64_t> f;
  for (uint32_t h = 0; h < 65536; h += 7) {
    const uint32_t base = h << 16;
    for (uint32_t low :
         {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      const uint32_t bits = base | low;
      if ((bits & 0x7fffffffu) <= 0x7f800000u) f.push_back(bits);
    }
  }
  f.push_back(0x7f7fffffu);  // f32 max: rounds to inf in bf16
  f.push_back(0x80000000u);
  const Literal narrow = *EvalOp(
      HO::kConvert, Shape::Array(PT::kBF16, {static_cast<int64_t>(f.size())}),
      {Bits(PT::kF32, f)});
  for (size_t i = 0; i < f.size(); ++i) {
    float v;
    const uint32_t b32 = static_cast<uint32_t>(f[i]);
    std::memcpy(&v, &b32, 4);
    Literal want(Shape::Scalar(PT::kBF16));
    want.SetFromDouble(0, v);
    ASSERT_EQ(narrow.GetRawBits(static_cast<int64_t>(i)), want.GetRawBits(0))
        << std::hex << f[i];
  }
}

}  // namespace
}  // namespace hloref
