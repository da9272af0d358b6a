// Tests of the element-wise binary family: XLA's integer rules by hand,
// floats against independent long double / <cmath> computations and hand
// bit patterns.
#include "interpreter/ops/elementwise_binary.h"

#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

#include "gtest/gtest.h"
#include "interpreter/ops/elementwise_test_util.h"
#include "spec/types/minifloat.h"

namespace hloref {
namespace {

using namespace testing_util;  // NOLINT
using HO = HloOpcode;

absl::StatusOr<EvalResult> Bin(HO op, const Literal& a, const Literal& b,
                               PT out) {
  return RunOp(op, ShapeLike(a, out), {a, b});
}
Literal BinV(HO op, const Literal& a, const Literal& b) {
  auto r = Bin(op, a, b, a.element_type());
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(r->value) : Literal();
}
std::vector<bool> Mask(const EvalResult& r) {
  std::vector<bool> m;
  const auto& dc = r.outputs[0].dont_care;
  const int64_t n = r.outputs[0].value.element_count();
  for (int64_t i = 0; i < n; ++i) m.push_back(dc && dc->GetAsInt64(i) != 0);
  return m;
}

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();

TEST(BinaryInt, DivideRemainderXlaRules) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  Literal a = FromInts(PT::kS32, {7, -7, 5, kMin, kMin, 9});
  Literal b = FromInts(PT::kS32, {2, 2, 0, -1, 1, -4});
  auto d = Bin(HO::kDivide, a, b, PT::kS32);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->value, FromInts(PT::kS32, {3, -3, -1, kMin, kMin, -2}));
  EXPECT_EQ(Mask(*d),
            (std::vector<bool>{false, false, true, true, false, false}));
  EXPECT_EQ(d->outputs[0].impl_ids,
            (std::vector<std::string>{"impl.divide.1", "impl.divide.2"}));
  auto r = Bin(HO::kRemainder, a, b, PT::kS32);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value, FromInts(PT::kS32, {1, -1, 5, 0, 0, 1}));
  // Unsigned: x / 0 = all ones, x % 0 = x.
  EXPECT_EQ(
      BinV(HO::kDivide, FromInts(PT::kU8, {200, 9}), FromInts(PT::kU8, {0, 2})),
      FromInts(PT::kU8, {255, 4}));
  EXPECT_EQ(BinV(HO::kRemainder, FromInts(PT::kU8, {200, 9}),
                 FromInts(PT::kU8, {0, 2})),
            FromInts(PT::kU8, {200, 1}));
  // s64 INT_MIN / -1 does not trap.
  const int64_t kMin64 = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(
      BinV(HO::kDivide, FromInts(PT::kS64, {kMin64}), FromInts(PT::kS64, {-1})),
      FromInts(PT::kS64, {kMin64}));
  // s4: -8 / -1 = -8.
  EXPECT_EQ(BinV(HO::kDivide, FromInts(PT::kS4, {-8, 7}),
                 FromInts(PT::kS4, {-1, -2})),
            FromInts(PT::kS4, {-8, -3}));
}

TEST(BinaryInt, WrapMinMaxLogic) {
  EXPECT_EQ(BinV(HO::kAdd, FromInts(PT::kS8, {127, -128}),
                 FromInts(PT::kS8, {1, -1})),
            FromInts(PT::kS8, {-128, 127}));
  EXPECT_EQ(BinV(HO::kMultiply, FromInts(PT::kU4, {15, 3}),
                 FromInts(PT::kU4, {15, 5})),
            FromInts(PT::kU4, {1, 15}));
  EXPECT_EQ(
      BinV(HO::kSubtract, FromInts(PT::kU32, {0}), FromInts(PT::kU32, {1})),
      FromInts(PT::kU32, {0xFFFFFFFFll}));
  EXPECT_EQ(BinV(HO::kMaximum, FromInts(PT::kU64, {-1, 3}),
                 FromInts(PT::kU64, {1, 4})),
            FromInts(PT::kU64, {-1, 4}));
  EXPECT_EQ(BinV(HO::kMinimum, FromInts(PT::kS16, {-3, 3}),
                 FromInts(PT::kS16, {1, -4})),
            FromInts(PT::kS16, {-3, -4}));
  EXPECT_EQ(BinV(HO::kAnd, FromInts(PT::kPred, {0, 1, 1}),
                 FromInts(PT::kPred, {1, 1, 0})),
            FromInts(PT::kPred, {0, 1, 0}));
  EXPECT_EQ(
      BinV(HO::kXor, FromInts(PT::kU8, {0xF0}), FromInts(PT::kU8, {0xFF})),
      FromInts(PT::kU8, {0x0F}));
  EXPECT_EQ(BinV(HO::kOr, FromInts(PT::kS4, {1}), FromInts(PT::kS4, {-8})),
            FromInts(PT::kS4, {-7}));
}

// pred add is logical or (true + true = true, not a 1-bit wrap); multiply
// is and. Truth tables written out by hand.
TEST(BinaryInt, PredAddIsOrMultiplyIsAnd) {
  EXPECT_EQ(BinV(HO::kAdd, FromInts(PT::kPred, {0, 0, 1, 1}),
                 FromInts(PT::kPred, {0, 1, 0, 1})),
            FromInts(PT::kPred, {0, 1, 1, 1}));
  EXPECT_EQ(BinV(HO::kMultiply, FromInts(PT::kPred, {0, 0, 1, 1}),
                 FromInts(PT::kPred, {0, 1, 0, 1})),
            FromInts(PT::kPred, {0, 0, 0, 1}));
}

TEST(BinaryInt, Shifts) {
  Literal a = FromInts(PT::kS32, {1, -8, -8, 5, 1});
  Literal b = FromInts(PT::kS32, {31, 1, 32, -1, 3});
  auto l = Bin(HO::kShiftLeft, a, b, PT::kS32);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->value, FromInts(PT::kS32, {std::numeric_limits<int32_t>::min(),
                                          -16, 0, 0, 8}));
  EXPECT_EQ(Mask(*l), (std::vector<bool>{false, false, true, true, false}));
  EXPECT_EQ(BinV(HO::kShiftRightArithmetic, a, b),
            FromInts(PT::kS32, {0, -4, -1, 0, 0}));
  EXPECT_EQ(BinV(HO::kShiftRightLogical, a, b),
            FromInts(PT::kS32, {0, 0x7FFFFFFC, 0, 0, 0}));
  // u8: arithmetic shift fills with the top bit.
  EXPECT_EQ(BinV(HO::kShiftRightArithmetic, FromInts(PT::kU8, {0x80, 0x80}),
                 FromInts(PT::kU8, {1, 9})),
            FromInts(PT::kU8, {0xC0, 0xFF}));
  // s4: width 4.
  EXPECT_EQ(BinV(HO::kShiftLeft, FromInts(PT::kS4, {1, 1}),
                 FromInts(PT::kS4, {3, 4})),
            FromInts(PT::kS4, {-8, 0}));
}

TEST(BinaryInt, PowerAndMulhi) {
  auto p = Bin(HO::kPower, FromInts(PT::kS32, {3, 2, 1, -1, -2, 3, 0}),
               FromInts(PT::kS32, {4, 31, -5, -1, 3, 64, 0}), PT::kS32);
  ASSERT_TRUE(p.ok());
  // 2^31 wraps to INT_MIN; 3^64 is computed as 3^0 = 1 (low 6 bits).
  EXPECT_EQ(p->value,
            FromInts(PT::kS32, {81, std::numeric_limits<int32_t>::min(), 1, 0,
                                -8, 1, 1}));
  EXPECT_EQ(Mask(*p),
            (std::vector<bool>{false, false, true, true, false, true, false}));
  EXPECT_EQ(BinV(HO::kMulhi, FromInts(PT::kS32, {-1, 0x40000000}),
                 FromInts(PT::kS32, {1, 8})),
            FromInts(PT::kS32, {-1, 2}));
  EXPECT_EQ(
      BinV(HO::kMulhi, FromInts(PT::kU64, {-1}), FromInts(PT::kU64, {-1})),
      FromInts(PT::kU64, {-2}));
  EXPECT_EQ(
      BinV(HO::kMulhi, FromInts(PT::kU8, {200}), FromInts(PT::kU8, {200})),
      FromInts(PT::kU8, {40000 >> 8}));
}

TEST(BinaryFloat, ArithmeticRoundsOnce) {
  // f32: computed in double, rounded once == float arithmetic (IEEE).
  const std::vector<float> a = {1.0f, 0.1f, 1e38f, 3.0f, 1e-45f, -0.0f};
  const std::vector<float> b = {3.0f, 0.2f, 1e38f, 7.0f, 1e-45f, 0.0f};
  Literal la = F32s(a), lb = F32s(b);
  std::vector<float> add, mul, div;
  for (size_t i = 0; i < a.size(); ++i) {
    add.push_back(a[i] + b[i]);
    mul.push_back(a[i] * b[i]);
    div.push_back(a[i] / b[i]);
  }
  EXPECT_EQ(BinV(HO::kAdd, la, lb), F32s(add));
  EXPECT_EQ(BinV(HO::kMultiply, la, lb), F32s(mul));
  Literal q = BinV(HO::kDivide, la, lb);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(q.data<float>()[i], div[i]);
  EXPECT_TRUE(std::isnan(q.data<float>()[5]));  // -0 / 0
  // f16: 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even -> 1 (0x3C00);
  // the ulp at 65504 is 32: 65504 + 12 stays 65504, 65504 + 16 is the tie
  // with 65536 whose mantissa is even, so it overflows to inf.
  EXPECT_EQ(BinV(HO::kAdd, Bits(PT::kF16, {0x3C00, 0x7BFF, 0x7BFF}),
                 Bits(PT::kF16, {0x1000, 0x4A00, 0x4C00})),
            Bits(PT::kF16, {0x3C00, 0x7BFF, 0x7C00}));
  // bf16: 1/3 = 0x3EAB (0.333984375).
  EXPECT_EQ(
      BinV(HO::kDivide, Bits(PT::kBF16, {0x3F80}), Bits(PT::kBF16, {0x4040})),
      Bits(PT::kBF16, {0x3EAB}));
  // f8e4m3fn: 448 + 64 overflows to NaN (no inf); 1 * 1.125 exact.
  Literal o =
      BinV(HO::kAdd, Bits(PT::kF8E4M3FN, {0x7E}), Bits(PT::kF8E4M3FN, {0x60}));
  EXPECT_TRUE(std::isnan(o.GetAsDouble(0)));
  EXPECT_EQ(BinV(HO::kMultiply, Bits(PT::kF8E4M3FN, {0x38}),
                 Bits(PT::kF8E4M3FN, {0x39})),
            Bits(PT::kF8E4M3FN, {0x39}));
  // f8e5m2: 57344 * 2 = inf.
  EXPECT_EQ(
      BinV(HO::kMultiply, Bits(PT::kF8E5M2, {0x7B}), Bits(PT::kF8E5M2, {0x40})),
      Bits(PT::kF8E5M2, {0x7C}));
  // Every narrow type: 1.5 + 0.5 = 2 exactly, 3 - 1 = 2.
  for (PT t :
       {PT::kF16, PT::kBF16, PT::kF8E5M2, PT::kF8E4M3FN, PT::kF8E4M3B11FNUZ,
        PT::kF8E5M2FNUZ, PT::kF8E4M3FNUZ, PT::kF8E4M3, PT::kF8E3M4,
        PT::kF4E2M1FN, PT::kF6E3M2FN, PT::kF6E2M3FN}) {
    Literal s =
        BinV(HO::kAdd, FromDoubles(t, {1.5, 3.0}), FromDoubles(t, {0.5, -1.0}));
    EXPECT_EQ(s.GetAsDouble(0), 2.0) << PrimitiveTypeName(t);
    EXPECT_EQ(s.GetAsDouble(1), 2.0) << PrimitiveTypeName(t);
  }
}

TEST(BinaryFloat, MaxMinNanAndSignedZero) {
  Literal a = F32s({kNanF, 1.0f, -0.0f, 0.0f, 2.0f});
  Literal b = F32s({1.0f, kNanF, 0.0f, -0.0f, -3.0f});
  auto mx = Bin(HO::kMaximum, a, b, PT::kF32);
  ASSERT_TRUE(mx.ok());
  const auto& v = mx->value.data<float>();
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(mx->value.GetRawBits(2), 0u);
  EXPECT_EQ(mx->value.GetRawBits(3), 0u);
  EXPECT_EQ(v[4], 2.0f);
  EXPECT_EQ(Mask(*mx), (std::vector<bool>{true, true, true, true, false}));
  Literal mn = BinV(HO::kMinimum, a, b);
  EXPECT_EQ(mn.GetRawBits(2), 0x80000000u);
  EXPECT_EQ(mn.GetRawBits(3), 0x80000000u);
  EXPECT_EQ(mn.data<float>()[4], -3.0f);
}

TEST(BinaryFloat, RemainderPowAtan2) {
  Literal r = BinV(HO::kRemainder, F32s({5.5f, -5.5f, 1.0f, kInfF, 3.0f}),
                   F32s({2.0f, 2.0f, 0.0f, 1.0f, kInfF}));
  EXPECT_EQ(r.data<float>()[0], 1.5f);
  EXPECT_EQ(r.data<float>()[1], -1.5f);
  EXPECT_TRUE(std::isnan(r.data<float>()[2]));
  EXPECT_TRUE(std::isnan(r.data<float>()[3]));
  EXPECT_EQ(r.data<float>()[4], 3.0f);
  // C Annex F pow special cases.
  Literal p = BinV(
      HO::kPower, F32s({kNanF, 1.0f, -1.0f, -8.0f, -0.0f, -0.0f, 2.0f, -kInfF}),
      F32s({0.0f, kNanF, kInfF, 1.0f / 3, -1.0f, 0.5f, 0.5f, 0.5f}));
  EXPECT_EQ(p.data<float>()[0], 1.0f);
  EXPECT_EQ(p.data<float>()[1], 1.0f);
  EXPECT_EQ(p.data<float>()[2], 1.0f);
  EXPECT_TRUE(std::isnan(p.data<float>()[3]));
  EXPECT_EQ(p.data<float>()[4], -kInfF);
  EXPECT_EQ(p.GetRawBits(5), 0u);  // pow(-0, 0.5) = +0, unlike sqrt
  EXPECT_EQ(p.data<float>()[6], static_cast<float>(std::sqrt(2.0L)));
  EXPECT_EQ(p.data<float>()[7], kInfF);
  const float pi = static_cast<float>(std::numbers::pi_v<long double>);
  Literal t = BinV(HO::kAtan2, F32s({0.0f, -0.0f, 1.0f, kInfF, 1.0f}),
                   F32s({-0.0f, -1.0f, 0.0f, -kInfF, 2.0f}));
  EXPECT_EQ(t.data<float>()[0], pi);
  EXPECT_EQ(t.data<float>()[1], -pi);
  EXPECT_EQ(t.data<float>()[2], pi / 2);
  EXPECT_EQ(t.data<float>()[3],
            static_cast<float>(3 * std::numbers::pi_v<long double> / 4));
  EXPECT_EQ(t.data<float>()[4], static_cast<float>(std::atan2(1.0L, 2.0L)));
}

TEST(BinaryComplex, ArithmeticAndComplexOp) {
  using C = std::complex<double>;
  Literal a = Literal::CreateR1<C>(PT::kC128, {C(1, 2), C(1, 1)});
  Literal b = Literal::CreateR1<C>(PT::kC128, {C(3, -1), C(0, 0)});
  EXPECT_EQ(BinV(HO::kMultiply, a, b).data<C>()[0], C(5, 5));
  EXPECT_EQ(BinV(HO::kAdd, a, b).data<C>()[0], C(4, 1));
  Literal q = BinV(HO::kDivide, a, b);
  // (1 + 2i)(3 + i) / 10 = 0.1 + 0.7i, up to Smith's roundings.
  EXPECT_NEAR(q.data<C>()[0].real(), 0.1, 1e-16);
  EXPECT_NEAR(q.data<C>()[0].imag(), 0.7, 1e-15);
  // (1 + i) / 0: C99 recovery gives infinities.
  EXPECT_TRUE(std::isinf(q.data<C>()[1].real()));
  EXPECT_TRUE(std::isinf(q.data<C>()[1].imag()));
  Literal p =
      BinV(HO::kPower, Literal::CreateR1<C>(PT::kC128, {C(0, 0), C(2, 0)}),
           Literal::CreateR1<C>(PT::kC128, {C(2, 0), C(0, 0)}));
  EXPECT_EQ(p.data<C>()[0], C(0, 0));
  EXPECT_EQ(p.data<C>()[1], C(1, 0));
  auto z = EvalOp(HO::kComplex, Shape::Array(PT::kC64, {1}),
                  {F32s({1.5f}), F32s({-2.0f})});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->data<std::complex<float>>()[0],
            std::complex<float>(1.5f, -2.0f));
}

TEST(BinaryShapes, RankZeroZeroSizeAndMismatch) {
  auto s = EvalOp(HO::kAdd, Shape::Scalar(PT::kS32),
                  {Literal::CreateR0<int32_t>(PT::kS32, 2),
                   Literal::CreateR0<int32_t>(PT::kS32, 3)});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, Literal::CreateR0<int32_t>(PT::kS32, 5));
  Literal e(Shape::Array(PT::kF32, {0, 3}));
  auto z = EvalOp(HO::kMultiply, e.shape(), {e, e});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->element_count(), 0);
  auto bad = EvalOp(HO::kAtan2, Shape::Array(PT::kS32, {1}),
                    {FromInts(PT::kS32, {1}), FromInts(PT::kS32, {1})});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

using namespace testing_util;  // NOLINT
using HO = HloOpcode;

// Random encodings of `type` (every bit pattern: NaNs with payloads, infs,
// zeros of both signs, subnormals), `n` of them, with one in 8 drawn from
// a few small values so maximum / minimum see equal zeros and ties.
Literal RandomEncodings(PT type, int64_t n, uint64_t seed) {
  const int bits = StorageBytes(type) * 8;
  std::vector<uint64_t> v(static_cast<size_t>(n));
  for (uint64_t& x : v) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = seed ^ (seed >> 29);
    x = bits == 64 ? r : (r & ((uint64_t{1} << bits) - 1));
    if ((r >> 40) % 8 == 0) {
      // +0, -0 or the encoding of 1 with either sign.
      const uint64_t sign = uint64_t{1} << (bits - 1);
      const uint64_t one = MinifloatFromDouble(type, 1.0);
      const uint64_t choices[] = {0, sign, one, one | sign};
      x = choices[(r >> 50) % 4];
    }
  }
  return Bits(type, v);
}

// The fused float path (storage in place, chunks across threads) against
// the general path it replaces (double vectors, one thread): same value
// bits, same implementation-defined masks and ids, for 1, 3 and 8 threads,
// on 70,001 random encodings (three chunks, the last one partial) of each
// float type.
TEST(ElementwiseFused, BinaryMatchesTheGeneralPathForEveryThreadCount) {
  for (PT t :
       {PT::kF64, PT::kF32, PT::kBF16, PT::kF16, PT::kF8E5M2, PT::kF8E4M3FN}) {
    std::vector<Literal> args;
    args.push_back(RandomEncodings(t, 70001, 1));
    args.push_back(RandomEncodings(t, 70001, 2));
    const Shape shape = args[0].shape();
    for (HO op : {HO::kAdd, HO::kSubtract, HO::kMultiply, HO::kDivide,
                  HO::kRemainder, HO::kMaximum, HO::kMinimum}) {
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
        const std::string what =
            absl::StrCat(HloOpcodeString(op), " ", PrimitiveTypeName(t),
                         " threads ", threads);
        EXPECT_TRUE(fused->value.BitwiseEquals(general->value)) << what;
        for (int64_t i = 0, shown = 0;
             i < fused->value.element_count() && shown < 3; ++i) {
          if (fused->value.GetRawBits(i) != general->value.GetRawBits(i)) {
            ++shown;
            ADD_FAILURE() << what << " element " << i << ": "
                          << args[0].GetRawBits(i) << " op "
                          << args[1].GetRawBits(i) << " fused "
                          << fused->value.GetRawBits(i) << " general "
                          << general->value.GetRawBits(i);
          }
        }
        const EvaluatedOutput& f = fused->outputs[0];
        const EvaluatedOutput& g = general->outputs[0];
        EXPECT_EQ(f.impl_ids, g.impl_ids) << what;
        ASSERT_EQ(f.dont_care.has_value(), g.dont_care.has_value()) << what;
        if (f.dont_care.has_value()) {
          EXPECT_TRUE(f.dont_care->BitwiseEquals(*g.dont_care)) << what;
        }
      }
    }
  }
}

// An independent check of the fused f32 path: IEEE single-precision
// arithmetic on the host (correctly rounded, and double rounding through
// double is innocuous for + - * / since 53 >= 2*24 + 2) gives the same
// non-NaN results.
TEST(ElementwiseFused, F32MatchesHostSinglePrecision) {
  std::vector<Literal> args;
  args.push_back(RandomEncodings(PT::kF32, 70001, 3));
  args.push_back(RandomEncodings(PT::kF32, 70001, 4));
  for (HO op : {HO::kAdd, HO::kSubtract, HO::kMultiply, HO::kDivide}) {
    EvaluatorOptions options;
    options.threads = 3;
    absl::StatusOr<EvalResult> r =
        RunOp(op, args[0].shape(), args, nullptr, options);
    ASSERT_TRUE(r.ok()) << r.status();
    auto a = args[0].data<float>();
    auto b = args[1].data<float>();
    auto got = r->value.data<float>();
    for (size_t i = 0; i < a.size(); ++i) {
      const float want = op == HO::kAdd        ? a[i] + b[i]
                         : op == HO::kSubtract ? a[i] - b[i]
                         : op == HO::kMultiply ? a[i] * b[i]
                                               : a[i] / b[i];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got[i])) << i;
      } else {
        ASSERT_EQ(BitsOf(got[i]), BitsOf(want))
            << HloOpcodeString(op) << " " << a[i] << " " << b[i];
      }
    }
  }
}

}  // namespace
}  // namespace hloref
