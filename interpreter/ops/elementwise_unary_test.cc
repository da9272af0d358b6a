// Tests of the element-wise unary family. Expected values are hand-derived
// bit patterns or computed independently here with long double <cmath>.
#include "interpreter/ops/elementwise_unary.h"

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/elementwise_binary.h"
#include "interpreter/ops/elementwise_test_util.h"

namespace hloref {
namespace {

using namespace testing_util;  // NOLINT
using HO = HloOpcode;

Literal Unary(HO op, const Literal& x, PT out_type) {
  auto r = EvalOp(op, ShapeLike(x, out_type), {x});
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : Literal();
}
Literal Unary(HO op, const Literal& x) {
  return Unary(op, x, x.element_type());
}
std::vector<uint64_t> AllBits(const Literal& l) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < l.element_count(); ++i)
    out.push_back(l.GetRawBits(i));
  return out;
}

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();

TEST(UnaryFloat, AbsNegateSignedZeroInfNan) {
  Literal x = F32s({-0.0f, 0.0f, -kInfF, 1.5f, -1e-45f});
  EXPECT_EQ(AllBits(Unary(HO::kAbs, x)),
            (std::vector<uint64_t>{0, 0, BitsOf(kInfF), BitsOf(1.5f),
                                   BitsOf(1e-45f)}));
  EXPECT_EQ(AllBits(Unary(HO::kNegate, x)),
            (std::vector<uint64_t>{0, 0x80000000u, BitsOf(kInfF), BitsOf(-1.5f),
                                   BitsOf(1e-45f)}));
  Literal n = Unary(HO::kNegate, F32s({kNanF}));
  EXPECT_TRUE(std::isnan(n.data<float>()[0]));
  EXPECT_TRUE(std::signbit(n.data<float>()[0]));
}

TEST(UnaryFloat, Rounding) {
  Literal x = F32s({2.5f, -2.5f, 0.5f, -0.5f, 3.5f, 1.25f, -0.0f});
  EXPECT_EQ(Unary(HO::kRoundNearestAfz, x),
            F32s({3.0f, -3.0f, 1.0f, -1.0f, 4.0f, 1.0f, -0.0f}));
  EXPECT_EQ(Unary(HO::kRoundNearestEven, x),
            F32s({2.0f, -2.0f, 0.0f, -0.0f, 4.0f, 1.0f, -0.0f}));
  EXPECT_EQ(Unary(HO::kFloor, x),
            F32s({2.0f, -3.0f, 0.0f, -1.0f, 3.0f, 1.0f, -0.0f}));
  EXPECT_EQ(Unary(HO::kCeil, x),
            F32s({3.0f, -2.0f, 1.0f, -0.0f, 4.0f, 2.0f, -0.0f}));
}

TEST(UnaryFloat, SignAndIsFinite) {
  Literal s = Unary(HO::kSign, F32s({-2.0f, -0.0f, 0.0f, 3.0f, kNanF}));
  EXPECT_EQ(s.GetRawBits(0), BitsOf(-1.0f));
  EXPECT_EQ(s.GetRawBits(1), 0x80000000u);
  EXPECT_EQ(s.GetRawBits(2), 0u);
  EXPECT_EQ(s.GetRawBits(3), BitsOf(1.0f));
  EXPECT_TRUE(std::isnan(s.data<float>()[4]));
  Literal f =
      Unary(HO::kIsFinite, F32s({1.0f, kInfF, -kInfF, kNanF, 0.0f}), PT::kPred);
  EXPECT_EQ(f, FromInts(PT::kPred, {1, 0, 0, 0, 1}));
}

TEST(UnaryFloat, SqrtRsqrtSpecials) {
  Literal r = Unary(HO::kSqrt, F32s({4.0f, -0.0f, kInfF, -1.0f, 2.0f}));
  EXPECT_EQ(r.data<float>()[0], 2.0f);
  EXPECT_EQ(r.GetRawBits(1), 0x80000000u);  // sqrt(-0) = -0
  EXPECT_EQ(r.data<float>()[2], kInfF);
  EXPECT_TRUE(std::isnan(r.data<float>()[3]));
  EXPECT_EQ(r.data<float>()[4], static_cast<float>(std::sqrt(2.0L)));
  Literal q = Unary(HO::kRsqrt, F32s({4.0f, -0.0f, 0.0f, kInfF}));
  EXPECT_EQ(q, F32s({0.5f, -kInfF, kInfF, 0.0f}));
}

TEST(UnaryFloat, F32TranscendentalsMatchLongDouble) {
  const std::vector<float> xs = {0.5f, 1.0f, -3.0f, 10.0f, 1e-3f, 0.75f};
  struct Case {
    HO op;
    long double (*fn)(long double);
  };
  const Case cases[] = {
      {HO::kSin, [](long double v) { return std::sin(v); }},
      {HO::kCos, [](long double v) { return std::cos(v); }},
      {HO::kTan, [](long double v) { return std::tan(v); }},
      {HO::kTanh, [](long double v) { return std::tanh(v); }},
      {HO::kExp, [](long double v) { return std::exp(v); }},
      {HO::kExpm1, [](long double v) { return std::expm1(v); }},
      {HO::kErf, [](long double v) { return std::erf(v); }},
      {HO::kCbrt, [](long double v) { return std::cbrt(v); }},
      {HO::kSinh, [](long double v) { return std::sinh(v); }},
      {HO::kCosh, [](long double v) { return std::cosh(v); }},
      {HO::kAsinh, [](long double v) { return std::asinh(v); }},
      {HO::kLogistic,
       [](long double v) { return 1.0L / (1.0L + std::exp(-v)); }},
  };
  for (const Case& c : cases) {
    Literal r = Unary(c.op, F32s(xs));
    for (size_t i = 0; i < xs.size(); ++i) {
      EXPECT_EQ(r.data<float>()[i], static_cast<float>(c.fn(xs[i])))
          << HloOpcodeString(c.op) << "(" << xs[i] << ")";
    }
  }
  // Domain-restricted functions.
  Literal l = Unary(HO::kLog, F32s({2.0f, 0.0f, -0.0f, -1.0f, 1.0f}));
  EXPECT_EQ(l.data<float>()[0], static_cast<float>(std::log(2.0L)));
  EXPECT_EQ(l.data<float>()[1], -kInfF);
  EXPECT_EQ(l.data<float>()[2], -kInfF);
  EXPECT_TRUE(std::isnan(l.data<float>()[3]));
  EXPECT_EQ(l.GetRawBits(4), 0u);
  Literal lp = Unary(HO::kLog1p, F32s({1e-10f, -1.0f}));
  EXPECT_EQ(lp.data<float>()[0], static_cast<float>(std::log1p(1e-10L)));
  EXPECT_EQ(lp.data<float>()[1], -kInfF);
  Literal a = Unary(HO::kAcos, F32s({0.5f, 2.0f}));
  EXPECT_EQ(a.data<float>()[0], static_cast<float>(std::acos(0.5L)));
  EXPECT_TRUE(std::isnan(a.data<float>()[1]));
  Literal at = Unary(HO::kAtanh, F32s({1.0f, 0.5f}));
  EXPECT_EQ(at.data<float>()[0], kInfF);
  EXPECT_EQ(at.data<float>()[1], static_cast<float>(std::atanh(0.5L)));
  Literal lg = Unary(HO::kLogistic, F32s({-kInfF, kInfF, 0.0f}));
  EXPECT_EQ(lg, F32s({0.0f, 1.0f, 0.5f}));
  // sin of a subnormal is the subnormal itself.
  EXPECT_EQ(Unary(HO::kSin, F32s({1e-45f})), F32s({1e-45f}));
}

TEST(UnaryFloat, F64Transcendentals) {
  Literal r = Unary(HO::kExp, F64s({1.0, -745.2, 709.0, 710.0}));
  EXPECT_EQ(r.data<double>()[0], static_cast<double>(std::exp(1.0L)));
  // exp(-745.2) is below half the smallest subnormal: +0.
  EXPECT_EQ(r.GetRawBits(1), 0u);
  EXPECT_EQ(r.data<double>()[2], static_cast<double>(std::exp(709.0L)));
  EXPECT_EQ(r.data<double>()[3], std::numeric_limits<double>::infinity());
}

TEST(UnaryFloat, HalfBfloatAndF8Bits) {
  // f16: sqrt(4) = 2, sqrt(-0) = -0, sqrt(inf) = inf, sqrt(2^-24) = 2^-12.
  EXPECT_EQ(AllBits(Unary(HO::kSqrt,
                          Bits(PT::kF16, {0x4400, 0x8000, 0x7C00, 0x0001}))),
            (std::vector<uint64_t>{0x4000, 0x8000, 0x7C00, 0x0C00}));
  // bf16: exp(0) = 1, exp(-inf) = 0, exp(inf) = inf.
  EXPECT_EQ(AllBits(Unary(HO::kExp, Bits(PT::kBF16, {0x0000, 0xFF80, 0x7F80}))),
            (std::vector<uint64_t>{0x3F80, 0x0000, 0x7F80}));
  // f8e5m2 (p = 3): e = 2.718 lies between 2.5 and 3 below the midpoint
  // 2.75, so exp(1) = 2.5 = 0 10000 01.
  EXPECT_EQ(AllBits(Unary(HO::kExp, Bits(PT::kF8E5M2, {0x3C}))),
            (std::vector<uint64_t>{0x41}));
  // f8e4m3fn: -(1.0 = 0x38) = 0xB8; floor(1.5 = 0x3C) = 1.0; abs keeps NaN.
  EXPECT_EQ(AllBits(Unary(HO::kNegate, Bits(PT::kF8E4M3FN, {0x38}))),
            (std::vector<uint64_t>{0xB8}));
  EXPECT_EQ(AllBits(Unary(HO::kFloor, Bits(PT::kF8E4M3FN, {0x3C}))),
            (std::vector<uint64_t>{0x38}));
  Literal nan = Unary(HO::kAbs, Bits(PT::kF8E4M3FN, {0xFF}));
  EXPECT_TRUE(std::isnan(nan.GetAsDouble(0)));
  // fnuz has no -0: -(+0) = +0, and its NaN (0x80) stays NaN.
  EXPECT_EQ(AllBits(Unary(HO::kNegate, Bits(PT::kF8E4M3FNUZ, {0x00, 0x80}))),
            (std::vector<uint64_t>{0x00, 0x80}));
  // f4e2m1fn: -(6.0 = 0 11 1) = 1 11 1.
  EXPECT_EQ(AllBits(Unary(HO::kNegate, Bits(PT::kF4E2M1FN, {0x7}))),
            (std::vector<uint64_t>{0xF}));
  // Every float type: negate(1) = -1 and sqrt(1) = 1 by value.
  for (PT t :
       {PT::kF16, PT::kBF16, PT::kF8E5M2, PT::kF8E4M3FN, PT::kF8E4M3B11FNUZ,
        PT::kF8E5M2FNUZ, PT::kF8E4M3FNUZ, PT::kF8E4M3, PT::kF8E3M4,
        PT::kF4E2M1FN, PT::kF6E3M2FN, PT::kF6E2M3FN}) {
    Literal one = FromDoubles(t, {1.0, 4.0});
    EXPECT_EQ(Unary(HO::kNegate, one).GetAsDouble(0), -1.0)
        << PrimitiveTypeName(t);
    EXPECT_EQ(Unary(HO::kSqrt, one).GetAsDouble(1), 2.0)
        << PrimitiveTypeName(t);
  }
  // f8e8m0fnu: sqrt(4) = 2 and 2^-127 has no negative counterpart.
  Literal e8 = FromDoubles(PT::kF8E8M0FNU, {4.0});
  EXPECT_EQ(Unary(HO::kSqrt, e8).GetAsDouble(0), 2.0);
  EXPECT_TRUE(std::isnan(Unary(HO::kNegate, e8).GetAsDouble(0)));
}

TEST(UnaryInt, SignedAbsNegateWrap) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  Literal x = FromInts(PT::kS32, {kMin, -5, 0, 7});
  EXPECT_EQ(Unary(HO::kAbs, x), FromInts(PT::kS32, {kMin, 5, 0, 7}));
  EXPECT_EQ(Unary(HO::kNegate, x), FromInts(PT::kS32, {kMin, 5, 0, -7}));
  EXPECT_EQ(Unary(HO::kSign, x), FromInts(PT::kS32, {-1, -1, 0, 1}));
  // s4 holds -8..7: abs(-8) wraps to -8, negate(7) = -7.
  Literal s4 = FromInts(PT::kS4, {-8, 7, -1});
  EXPECT_EQ(Unary(HO::kAbs, s4), FromInts(PT::kS4, {-8, 7, 1}));
  EXPECT_EQ(Unary(HO::kNegate, s4), FromInts(PT::kS4, {-8, -7, 1}));
  EXPECT_EQ(Unary(HO::kSign, FromInts(PT::kU8, {0, 200})),
            FromInts(PT::kU8, {0, 1}));
  EXPECT_EQ(Unary(HO::kNegate, FromInts(PT::kU8, {1, 0})),
            FromInts(PT::kU8, {255, 0}));
}

TEST(UnaryInt, BitCounting) {
  EXPECT_EQ(Unary(HO::kClz, FromInts(PT::kS32, {0, 1, -1, 0x00010000})),
            FromInts(PT::kS32, {32, 31, 0, 15}));
  EXPECT_EQ(Unary(HO::kClz, FromInts(PT::kS4, {0, 1, -1})),
            FromInts(PT::kS4, {4, 3, 0}));
  EXPECT_EQ(Unary(HO::kClz, FromInts(PT::kU64, {1})), FromInts(PT::kU64, {63}));
  EXPECT_EQ(Unary(HO::kPopulationCount, FromInts(PT::kU8, {0xFF, 0x0F, 0})),
            FromInts(PT::kU8, {8, 4, 0}));
  EXPECT_EQ(Unary(HO::kPopulationCount, FromInts(PT::kS4, {-1, -8})),
            FromInts(PT::kS4, {4, 1}));
  EXPECT_EQ(Unary(HO::kPopulationCount, FromInts(PT::kS64, {-1})),
            FromInts(PT::kS64, {64}));
  EXPECT_EQ(Unary(HO::kNot, FromInts(PT::kS8, {0, -1, 5})),
            FromInts(PT::kS8, {-1, 0, -6}));
  EXPECT_EQ(Unary(HO::kNot, FromInts(PT::kU2, {0, 3})),
            FromInts(PT::kU2, {3, 0}));
  EXPECT_EQ(Unary(HO::kNot, FromInts(PT::kPred, {0, 1})),
            FromInts(PT::kPred, {1, 0}));
}

TEST(UnaryComplex, PartsAbsAndSpecialCases) {
  using C = std::complex<float>;
  Literal z = Literal::CreateR1<C>(PT::kC64, {C(3, 4), C(-1, 2)});
  EXPECT_EQ(Unary(HO::kAbs, z, PT::kF32), F32s({5.0f, std::sqrt(5.0f)}));
  EXPECT_EQ(Unary(HO::kReal, z, PT::kF32), F32s({3.0f, -1.0f}));
  EXPECT_EQ(Unary(HO::kImag, z, PT::kF32), F32s({4.0f, 2.0f}));
  EXPECT_EQ(Unary(HO::kNegate, z),
            Literal::CreateR1<C>(PT::kC64, {C(-3, -4), C(1, -2)}));
  EXPECT_EQ(Unary(HO::kSign, z).data<C>()[0], C(0.6f, 0.8f));
  // sqrt(-4 + 0i) = 2i; XLA's sqrt(0 - 0i) = (+0, +0) (impl.sqrt.1).
  Literal s = Unary(HO::kSqrt,
                    Literal::CreateR1<C>(PT::kC64, {C(-4, 0), C(0.0f, -0.0f)}));
  EXPECT_EQ(s.data<C>()[0], C(0, 2));
  EXPECT_FALSE(std::signbit(s.data<C>()[1].imag()));
  // log(-1 - 0i) = -i pi (branch cut side chosen by the zero's sign).
  using Z = std::complex<double>;
  Literal l = Unary(HO::kLog, Literal::CreateR1<Z>(PT::kC128, {Z(-1, -0.0)}));
  EXPECT_EQ(l.data<Z>()[0], Z(0, -std::numbers::pi));
  // exp(i pi) = cos(pi_64) + i sin(pi_64) = -1 + 1.2246467991473532e-16 i.
  Literal e = Unary(HO::kExp,
                    Literal::CreateR1<Z>(PT::kC128, {Z(0, std::numbers::pi)}));
  EXPECT_EQ(e.data<Z>()[0].real(), -1.0);
  EXPECT_EQ(e.data<Z>()[0].imag(), 1.2246467991473532e-16);
  // Real operands: real is the value, imag is 0.
  EXPECT_EQ(Unary(HO::kImag, F32s({5.0f})), F32s({0.0f}));
}

TEST(UnaryShapes, RankZeroAndZeroSize) {
  Literal scalar = Literal::CreateR0<float>(PT::kF32, 0.0f);
  auto r = EvalOp(HO::kExp, Shape::Scalar(PT::kF32), {scalar});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Literal::CreateR0<float>(PT::kF32, 1.0f));
  Literal empty(Shape::Array(PT::kF32, {2, 0}));
  auto e = EvalOp(HO::kNegate, empty.shape(), {empty});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->element_count(), 0);
  EXPECT_EQ(e->shape().dimensions(1), 0);
}

TEST(UnaryErrors, WrongElementType) {
  auto r = EvalOp(HO::kClz, Shape::Array(PT::kF32, {1}), {F32s({1.0f})});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              ::testing::HasSubstr("count-leading-zeros"));
  auto s =
      EvalOp(HO::kSin, Shape::Array(PT::kS32, {1}), {FromInts(PT::kS32, {1})});
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// The libm fast path with its proven margin (elementwise_unary.cc) against
// MPFR alone (EvalMath rounded to odd, then to the type: the path every
// other transcendental takes): the same bits for f32, bf16 and f16
// results on 20,000 operands per op spread over the interesting range,
// plus values whose results lie near rounding boundaries (exp of small
// integers' logs, rsqrt of powers of two and squares).
// exp(x) from MPFR at 256 bits (relative error 2^-256, far below what is
// asked here) rounded to nearest even to `precision` bits with quanta at
// least 2^(emin - precision + 1), and whether exp(x) lies within 2^-46
// relative of a midpoint between two such values.
struct ExpReference {
  double rounded;
  bool near_midpoint;
};
ExpReference ExpByMpfr(double x, int precision, int emin) {
  mpfr_t e, t, i;
  mpfr_inits2(256, e, t, i, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(e, x, MPFR_RNDN);
  mpfr_exp(e, e, MPFR_RNDN);
  // e in [2^(ex - 1), 2^ex).
  const long q = std::max<long>(mpfr_get_exp(e) - 1, emin) - precision + 1;
  mpfr_mul_2si(t, e, -q, MPFR_RNDN);  // exp(x) / quantum, exact
  mpfr_rint(i, t, MPFR_RNDN);         // ties to even
  const double rounded =
      std::ldexp(mpfr_get_d(i, MPFR_RNDN), static_cast<int>(q));
  // |frac(t) - 1/2| quanta from the midpoint, relative to exp(x).
  mpfr_floor(i, t);
  mpfr_sub(i, t, i, MPFR_RNDN);
  mpfr_sub_d(i, i, 0.5, MPFR_RNDN);
  mpfr_abs(i, i, MPFR_RNDN);
  mpfr_div(i, i, t, MPFR_RNDN);
  const bool near = mpfr_cmp_d(i, 0x1p-46) < 0;
  mpfr_clears(e, t, i, static_cast<mpfr_ptr>(nullptr));
  return {rounded, near};
}

// ExpRoundedBlock (libm-free exp with its own error bound): every value it
// decides is MPFR's correctly rounded exp, and it decides none within
// 2^-46 of a midpoint (its bound is 2^-44 |y| around a value within 2^-47
// of exp(x): this fails when the rounding-cell test is dropped or the
// radius is made too small). f32, bf16 and f16, and a 40-bit format
// where one value in about sixty is that close to a midpoint; operands
// random over [-720, 720] and the f32 range of softmax inputs, the
// underflow thresholds, 0, +-inf, NaN; odd block lengths.
TEST(UnaryFloatFastPath, ExpBlockDecidesOnlyWithinItsBound) {
  const FastRounding formats[] = {{24, -126, 0x1.fffffep127},
                                  {8, -126, 0x1.fep127},
                                  {11, -14, 65504.0},
                                  {40, -1022, 0x1.fffffffffep1023}};
  uint64_t seed = 11;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(seed >> 11) * 0x1p-53;  // [0, 1)
  };
  for (const FastRounding& f : formats) {
    std::vector<double> xs = {0.0,    -0.0,  INFINITY, -INFINITY,
                              NAN,    700.0, -700.0,   700.5,
                              -700.5, 88.7,  88.8,     -103.97};
    for (int i = 0; i < 30000; ++i) {
      const double u = next();
      if (i % 3 == 0) {
        xs.push_back(1440 * u - 720);
      } else if (i % 3 == 1) {
        xs.push_back(static_cast<double>(static_cast<float>(-20 * u)));
      } else {
        const double center =
            (f.emin - f.precision) * 0.69314718055994531 - 0x1p-20;
        xs.push_back(center + (u - 0.5) * 0x1p-6);
      }
    }
    std::vector<double> r(xs.size());
    int64_t nans = 0;
    for (size_t i = 0; i < xs.size();) {
      const int64_t len = std::min<int64_t>(
          1 + static_cast<int64_t>(i % 7), static_cast<int64_t>(xs.size() - i));
      nans += ExpRoundedBlock(xs.data() + i, len, f, r.data() + i);
      i += static_cast<size_t>(len);
    }
    int64_t decided = 0, near = 0, counted_nans = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double x = xs[i];
      counted_nans += std::isnan(r[i]);
      if (std::isnan(r[i])) continue;
      ASSERT_TRUE(std::isfinite(x)) << x;
      const ExpReference want = ExpByMpfr(x, f.precision, f.emin);
      uint64_t got_bits, want_bits;
      std::memcpy(&got_bits, &r[i], 8);
      std::memcpy(&want_bits, &want.rounded, 8);
      EXPECT_EQ(got_bits, want_bits)
          << "exp(" << x << ") precision " << f.precision;
      EXPECT_FALSE(want.near_midpoint) << "decided near a midpoint: exp(" << x
                                       << ") precision " << f.precision;
      ++decided;
    }
    EXPECT_EQ(nans, counted_nans);
    // Undecided values near midpoints exist where they can be found.
    for (size_t i = 0; i < xs.size() && f.precision == 40; ++i) {
      if (std::isnan(r[i]) && std::fabs(xs[i]) < 700) {
        near += ExpByMpfr(xs[i], f.precision, f.emin).near_midpoint;
      }
    }
    EXPECT_GT(decided, 15000) << f.precision;
    if (f.precision == 40) {
      EXPECT_GT(near, 50);
    }
  }
}

TEST(UnaryFloatFastPath, MatchesMpfrBitForBit) {
  std::vector<double> xs;
  uint64_t seed = 5;
  for (int i = 0; i < 20000; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(seed >> 11) * 0x1p-53;  // [0, 1)
    const double mag = std::ldexp(1.0, static_cast<int>(u * 40) - 20) * u;
    xs.push_back((seed & 1) ? mag : -mag);
  }
  // Around the underflow thresholds (emin - precision) ln 2 of f32 (-104),
  // bf16 (-92.9) and f16 (-17.3), where exp and logistic round to 0 or to
  // the smallest subnormals.
  for (double center : {-103.97, -92.88, -17.33}) {
    for (int i = -300; i <= 300; ++i) xs.push_back(center + i * 0x1p-10);
  }
  for (int k = 1; k < 200; ++k) {
    xs.push_back(static_cast<double>(static_cast<float>(std::log(k))));
    xs.push_back(static_cast<double>(k) * k);
    xs.push_back(std::ldexp(1.0, k - 100));
  }
  std::vector<float> f(xs.begin(), xs.end());
  const Literal x = F32s(f);
  for (HO op : {HO::kExp, HO::kLog, HO::kLogistic, HO::kTanh, HO::kRsqrt}) {
    const MathFn fn = op == HO::kExp        ? MathFn::kExp
                      : op == HO::kLog      ? MathFn::kLog
                      : op == HO::kLogistic ? MathFn::kLogistic
                      : op == HO::kTanh     ? MathFn::kTanh
                                            : MathFn::kRsqrt;
    for (PT t : {PT::kF32, PT::kBF16, PT::kF16}) {
      // The op on an operand of the result type, as modules have it.
      Literal xt = Unary(HO::kConvert, x, t);
      const Literal got = Unary(op, xt);
      std::vector<double> want(static_cast<size_t>(xt.element_count()));
      for (int64_t i = 0; i < xt.element_count(); ++i) {
        want[static_cast<size_t>(i)] =
            EvalMath(fn, xt.GetAsDouble(i), ResultPrecision::kNarrower);
      }
      absl::StatusOr<Literal> expected = StoreDoubles(xt.shape(), want);
      ASSERT_TRUE(expected.ok());
      ASSERT_EQ(AllBits(got), AllBits(*expected))
          << HloOpcodeString(op) << " " << PrimitiveTypeName(t);
    }
  }
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

using namespace testing_util;  // NOLINT
using HO = HloOpcode;

// Random encodings of `type`, mostly finite values of moderate magnitude
// (where the transcendentals' fast path decides) and one in 16 an
// arbitrary bit pattern (NaNs with payloads, infs, zeros, subnormals).
Literal RandomOperand(PT type, int64_t n, uint64_t seed) {
  const int bits = StorageBytes(type) * 8;
  Literal lit(Shape::Array(type, {n}));
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = seed ^ (seed >> 29);
    if ((r >> 40) % 16 == 0) {
      lit.SetRawBits(i, bits == 64 ? r : (r & ((uint64_t{1} << bits) - 1)));
    } else {
      const double u = static_cast<double>(r >> 11) * 0x1p-53;
      const double v = std::ldexp(u, static_cast<int>((r >> 3) % 24) - 12);
      lit.SetFromDouble(i, (r & 1) ? v : -v);
    }
  }
  return lit;
}

// The fused float path against the general path it replaces: same bits
// for 1, 3 and 8 threads on 70,001 operands (three chunks, the last one
// partial) per op and type, the transcendentals' MPFR fallbacks included.
TEST(ElementwiseFused, UnaryMatchesTheGeneralPathForEveryThreadCount) {
  for (PT t : {PT::kF64, PT::kF32, PT::kBF16, PT::kF16}) {
    std::vector<Literal> args;
    args.push_back(RandomOperand(t, 70001, 11));
    const Shape shape = args[0].shape();
    for (HO op : {HO::kExp, HO::kLog, HO::kLogistic, HO::kTanh, HO::kRsqrt,
                  HO::kSqrt, HO::kCeil, HO::kFloor, HO::kRoundNearestAfz,
                  HO::kRoundNearestEven, HO::kSign}) {
      if (t == PT::kF64 && (op == HO::kExp || op == HO::kLog ||
                            op == HO::kLogistic || op == HO::kTanh)) {
        continue;  // MPFR for every f64 element: slow, and not fused
      }
      SetElementwiseFusedPathDisabledForTesting(true);
      absl::StatusOr<EvalResult> general = RunOp(op, shape, args);
      SetElementwiseFusedPathDisabledForTesting(false);
      ASSERT_TRUE(general.ok()) << general.status();
      for (int threads : {1, 3, 8}) {
        EvaluatorOptions options;
        options.threads = threads;
        absl::StatusOr<EvalResult> fused =
            RunOp(op, shape, args, nullptr, options);
        ASSERT_TRUE(fused.ok()) << fused.status();
        EXPECT_TRUE(fused->value.BitwiseEquals(general->value))
            << HloOpcodeString(op) << " " << PrimitiveTypeName(t) << " threads "
            << threads;
      }
    }
  }
}

// An independent check: the fused f32 sqrt equals the host's IEEE
// single-precision sqrt (correctly rounded) on every non-NaN result.
TEST(ElementwiseFused, F32SqrtMatchesHostSqrtf) {
  const Literal x = RandomOperand(PT::kF32, 70001, 12);
  EvaluatorOptions options;
  options.threads = 3;
  absl::StatusOr<EvalResult> r =
      RunOp(HO::kSqrt, x.shape(), {x}, nullptr, options);
  ASSERT_TRUE(r.ok()) << r.status();
  auto in = x.data<float>();
  auto got = r->value.data<float>();
  for (size_t i = 0; i < in.size(); ++i) {
    const float want = std::sqrt(in[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
    } else {
      ASSERT_EQ(BitsOf(got[i]), BitsOf(want)) << in[i];
    }
  }
}

}  // namespace
}  // namespace hloref
