// Tests of compare, select and clamp: IEEE and TOTALORDER comparisons on
// hand-chosen special values, integer signedness, select/clamp broadcast.
#include "interpreter/ops/compare_select.h"

#include <cmath>
#include <complex>
#include <limits>

#include "gtest/gtest.h"
#include "interpreter/ops/elementwise_test_util.h"

namespace hloref {
namespace {

using namespace testing_util;  // NOLINT
using HO = HloOpcode;
using CD = ComparisonDirection;
using CT = ComparisonType;

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();

absl::StatusOr<EvalResult> Cmp(const Literal& a, const Literal& b, CD dir,
                               CT type = CT::kDefault) {
  return RunOp(HO::kCompare, ShapeLike(a, PT::kPred), {a, b},
               [&](HloAttributes* at) {
                 at->direction = dir;
                 at->comparison_type = type;
               });
}
Literal CmpV(const Literal& a, const Literal& b, CD dir,
             CT type = CT::kDefault) {
  auto r = Cmp(a, b, dir, type);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(r->value) : Literal();
}
Literal P(std::vector<int64_t> v) { return FromInts(PT::kPred, v); }

TEST(Compare, FloatIeee) {
  Literal a = F32s({1.0f, kNanF, -0.0f, -kInfF, 2.0f});
  Literal b = F32s({2.0f, kNanF, 0.0f, kInfF, 2.0f});
  EXPECT_EQ(CmpV(a, b, CD::kEq), P({0, 0, 1, 0, 1}));
  EXPECT_EQ(CmpV(a, b, CD::kNe), P({1, 1, 0, 1, 0}));
  EXPECT_EQ(CmpV(a, b, CD::kLt), P({1, 0, 0, 1, 0}));
  EXPECT_EQ(CmpV(a, b, CD::kLe), P({1, 0, 1, 1, 1}));
  EXPECT_EQ(CmpV(a, b, CD::kGt), P({0, 0, 0, 0, 0}));
  EXPECT_EQ(CmpV(a, b, CD::kGe), P({0, 0, 1, 0, 1}));
  // Narrow types compare exact values: f8e4m3fn 1.0 (0x38) < 1.125 (0x39);
  // its NaN (0x7F) is unordered; bf16 -0 == +0.
  EXPECT_EQ(CmpV(Bits(PT::kF8E4M3FN, {0x38, 0x7F}),
                 Bits(PT::kF8E4M3FN, {0x39, 0x7F}), CD::kLt),
            P({1, 0}));
  EXPECT_EQ(CmpV(Bits(PT::kBF16, {0x8000}), Bits(PT::kBF16, {0x0000}), CD::kEq),
            P({1}));
}

// IEEE comparisons of every narrow float type, read in their own storage
// (the typed path writes the pred result directly): every pair of 8-bit
// codes, and 20,000 random pairs of 16-bit codes, in all six directions,
// against the comparison of the two values as doubles (GetAsDouble: NaN
// unordered, -0 == +0), computed here.
TEST(Compare, FloatIeeeEveryNarrowType) {
  uint64_t seed = 11;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(seed >> 33);
  };
  for (PT t : {PT::kF8E4M3FN, PT::kF8E5M2, PT::kF8E5M2FNUZ, PT::kF8E4M3FNUZ,
               PT::kF16, PT::kBF16}) {
    const bool wide = StorageBytes(t) == 2;
    const int64_t n = wide ? 20000 : 65536;
    Literal a(Shape::Array(t, {n}));
    Literal b(Shape::Array(t, {n}));
    for (int64_t i = 0; i < n; ++i) {
      a.SetRawBits(i, wide ? next() & 0xffff : static_cast<uint64_t>(i >> 8));
      b.SetRawBits(i, wide ? next() & 0xffff : static_cast<uint64_t>(i & 255));
    }
    for (CD d : {CD::kEq, CD::kNe, CD::kLt, CD::kLe, CD::kGt, CD::kGe}) {
      const Literal got = CmpV(a, b, d);
      ASSERT_EQ(got.element_count(), n);
      for (int64_t i = 0; i < n; ++i) {
        const double x = a.GetAsDouble(i), y = b.GetAsDouble(i);
        bool want = false;
        switch (d) {
          case CD::kEq:
            want = x == y;
            break;
          case CD::kNe:
            want = x != y;
            break;
          case CD::kLt:
            want = x < y;
            break;
          case CD::kLe:
            want = x <= y;
            break;
          case CD::kGt:
            want = x > y;
            break;
          case CD::kGe:
            want = x >= y;
            break;
        }
        ASSERT_EQ(got.GetAsInt64(i), want ? 1 : 0)
            << PrimitiveTypeName(t) << " " << x << " vs " << y;
      }
    }
  }
}

TEST(Compare, TotalOrder) {
  // -NaN < -inf < -1 < -0 < +0 < 1 < +inf < +NaN.
  const uint32_t neg_nan = 0xFFC00000u, pos_nan = 0x7FC00000u;
  std::vector<uint64_t> order = {
      neg_nan, BitsOf(-kInfF), BitsOf(-1.0f), 0x80000000u,
      0u,      BitsOf(1.0f),   BitsOf(kInfF), pos_nan};
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    EXPECT_EQ(CmpV(Bits(PT::kF32, {order[i]}), Bits(PT::kF32, {order[i + 1]}),
                   CD::kLt, CT::kTotalOrder),
              P({1}))
        << i;
    EXPECT_EQ(CmpV(Bits(PT::kF32, {order[i + 1]}), Bits(PT::kF32, {order[i]}),
                   CD::kLt, CT::kTotalOrder),
              P({0}))
        << i;
  }
  // EQ is bit equality: -0 != +0, NaN == the same NaN (impl.compare.1).
  auto eq = Cmp(Bits(PT::kF32, {0x80000000u, pos_nan, BitsOf(1.0f)}),
                Bits(PT::kF32, {0u, pos_nan, BitsOf(1.0f)}), CD::kEq,
                CT::kTotalOrder);
  ASSERT_TRUE(eq.ok());
  EXPECT_EQ(eq->value, P({0, 1, 1}));
  ASSERT_TRUE(eq->outputs[0].dont_care.has_value());
  EXPECT_EQ(*eq->outputs[0].dont_care, P({1, 1, 0}));
  // fnuz: the single NaN (0x80) is below everything, -1 (0xB8) < 0.
  EXPECT_EQ(CmpV(Bits(PT::kF8E4M3FNUZ, {0x80, 0xC0}),
                 Bits(PT::kF8E4M3FNUZ, {0xC0, 0x00}), CD::kLt, CT::kTotalOrder),
            P({1, 1}));
  // f16 and f64 too.
  EXPECT_EQ(CmpV(Bits(PT::kF16, {0x8000}), Bits(PT::kF16, {0x0000}), CD::kLt,
                 CT::kTotalOrder),
            P({1}));
  EXPECT_EQ(CmpV(F64s({-0.0}), F64s({0.0}), CD::kGe, CT::kTotalOrder), P({0}));
}

TEST(Compare, IntegersAndComplex) {
  EXPECT_EQ(
      CmpV(FromInts(PT::kS8, {-1, 5}), FromInts(PT::kS8, {1, 5}), CD::kLt),
      P({1, 0}));
  EXPECT_EQ(
      CmpV(FromInts(PT::kU8, {255, 0}), FromInts(PT::kU8, {1, 0}), CD::kGt),
      P({1, 0}));
  // s4 -1 read as UNSIGNED is 15.
  EXPECT_EQ(CmpV(FromInts(PT::kS4, {-1}), FromInts(PT::kS4, {1}), CD::kGt,
                 CT::kUnsigned),
            P({1}));
  EXPECT_EQ(CmpV(FromInts(PT::kU64, {-1}), FromInts(PT::kU64, {1}), CD::kGt),
            P({1}));
  EXPECT_EQ(CmpV(P({0, 1}), P({1, 1}), CD::kLt), P({1, 0}));
  using C = std::complex<float>;
  Literal a = Literal::CreateR1<C>(PT::kC64, {C(1, 2), C(1, 2)});
  Literal b = Literal::CreateR1<C>(PT::kC64, {C(1, 2), C(1, -2)});
  EXPECT_EQ(CmpV(a, b, CD::kEq), P({1, 0}));
  EXPECT_EQ(CmpV(a, b, CD::kNe), P({0, 1}));
  EXPECT_FALSE(Cmp(a, b, CD::kLt).ok());
}

TEST(Select, ArrayScalarAndZeroSize) {
  // The seed's examples.
  Literal v1 = FromInts(PT::kS32, {1, 2, 3, 4});
  Literal v2 = FromInts(PT::kS32, {100, 200, 300, 400});
  auto r = EvalOp(HO::kSelect, v1.shape(), {P({1, 0, 0, 1}), v1, v2});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, FromInts(PT::kS32, {1, 200, 300, 4}));
  auto s = EvalOp(HO::kSelect, v1.shape(),
                  {Literal::CreateR0<bool>(PT::kPred, true), v1, v2});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, v1);
  // Bit-exact: NaN payloads and -0 pass through.
  Literal a = Bits(PT::kF32, {0x7FC00001u, 0x80000000u});
  Literal b = F32s({1.0f, 1.0f});
  auto f = EvalOp(HO::kSelect, a.shape(), {P({1, 1}), a, b});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, a);
  Literal e(Shape::Array(PT::kC128, {0}));
  auto z = EvalOp(HO::kSelect, e.shape(),
                  {Literal(Shape::Array(PT::kPred, {0})), e, e});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->element_count(), 0);
}

// clamp of narrow floats in their own storage: every f8e4m3fn and
// f8e5m2 code as the operand, with scalar bounds (-2, 3) and with array
// bounds drawn from every code, and random bf16 / f16 codes, against
// min(max(lo, x), hi) of the doubles computed here: NaN when any of the
// three is NaN, else the value (the sign of a zero tie is implementation-
// defined, impl.clamp.1, so zeros compare by value).
TEST(Clamp, NarrowFloatsAgainstDoubles) {
  uint64_t seed = 5;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(seed >> 33);
  };
  for (PT t : {PT::kF8E4M3FN, PT::kF8E5M2, PT::kBF16, PT::kF16}) {
    const bool wide = StorageBytes(t) == 2;
    const int64_t n = wide ? 20000 : 256;
    const uint32_t mask = wide ? 0xffff : 0xff;
    Literal x(Shape::Array(t, {n})), lo(Shape::Array(t, {n})),
        hi(Shape::Array(t, {n}));
    for (int64_t i = 0; i < n; ++i) {
      x.SetRawBits(i, wide ? next() & mask : static_cast<uint64_t>(i));
      lo.SetRawBits(i, next() & mask);
      hi.SetRawBits(i, next() & mask);
    }
    Literal slo(Shape::Array(t, {})), shi(Shape::Array(t, {}));
    slo.SetFromDouble(0, -2);
    shi.SetFromDouble(0, 3);
    for (bool scalar : {true, false}) {
      const Literal& a = scalar ? slo : lo;
      const Literal& b = scalar ? shi : hi;
      auto r = EvalOp(HO::kClamp, x.shape(), {a, x, b});
      ASSERT_TRUE(r.ok()) << r.status();
      for (int64_t i = 0; i < n; ++i) {
        const double av = a.GetAsDouble(scalar ? 0 : i);
        const double bv = b.GetAsDouble(scalar ? 0 : i);
        const double xv = x.GetAsDouble(i);
        const double got = r->GetAsDouble(i);
        if (std::isnan(av) || std::isnan(bv) || std::isnan(xv)) {
          EXPECT_TRUE(std::isnan(got)) << PrimitiveTypeName(t) << " " << i;
          continue;
        }
        EXPECT_EQ(got, std::min(std::max(av, xv), bv))
            << PrimitiveTypeName(t) << " lo " << av << " x " << xv << " hi "
            << bv;
      }
    }
  }
}

TEST(Clamp, ScalarBoundsAndNan) {
  // The seed's example: clamp(0, {-1, 5, 9}, 6) = {0, 5, 6}.
  auto r = EvalOp(
      HO::kClamp, Shape::Array(PT::kS32, {3}),
      {Literal::CreateR0<int32_t>(PT::kS32, 0), FromInts(PT::kS32, {-1, 5, 9}),
       Literal::CreateR0<int32_t>(PT::kS32, 6)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, FromInts(PT::kS32, {0, 5, 6}));
  auto u = EvalOp(HO::kClamp, Shape::Array(PT::kU8, {2}),
                  {FromInts(PT::kU8, {10, 10}), FromInts(PT::kU8, {250, 3}),
                   FromInts(PT::kU8, {200, 200})});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(*u, FromInts(PT::kU8, {200, 10}));
  auto f = RunOp(
      HO::kClamp, Shape::Array(PT::kF32, {3}),
      {Literal::CreateR0<float>(PT::kF32, -1.0f), F32s({kNanF, -5.0f, 0.5f}),
       Literal::CreateR0<float>(PT::kF32, 1.0f)});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(std::isnan(f->value.data<float>()[0]));
  EXPECT_EQ(f->value.data<float>()[1], -1.0f);
  EXPECT_EQ(f->value.data<float>()[2], 0.5f);
  ASSERT_TRUE(f->outputs[0].dont_care.has_value());
  EXPECT_EQ(*f->outputs[0].dont_care, P({1, 0, 0}));
  auto h = EvalOp(HO::kClamp, Shape::Array(PT::kF8E5M2, {1}),
                  {Bits(PT::kF8E5M2, {0x3C}), Bits(PT::kF8E5M2, {0x7C}),
                   Bits(PT::kF8E5M2, {0x40})});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(*h, Bits(PT::kF8E5M2, {0x40}));  // clamp(1, inf, 2) = 2
}

}  // namespace
}  // namespace hloref
