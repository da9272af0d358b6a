// Tests of the golden comparator: expected verdicts are stated by hand from
// the rules in compare.h (numerics.md 7.2 and 7.5).
#include "conformance/compare/compare.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "conformance/compare/verdict.h"
#include "gtest/gtest.h"
#include "spec/types/literal.h"

namespace hloref::conformance {
namespace {

Literal F32(std::vector<float> v) {
  return Literal::CreateR1<float>(PrimitiveType::kF32, v);
}

TEST(CompareSpec, ParsesAndPrints) {
  EXPECT_EQ(ParseCompareSpec("exact")->kind, CompareKind::kExact);
  EXPECT_EQ(ParseCompareSpec(" bits ")->kind, CompareKind::kBits);
  EXPECT_EQ(ParseCompareSpec("class")->kind, CompareKind::kClass);
  auto ulp = ParseCompareSpec("ulp(2.5)");
  ASSERT_TRUE(ulp.ok());
  EXPECT_EQ(ulp->kind, CompareKind::kUlp);
  EXPECT_EQ(ulp->ulps, 2.5);
  EXPECT_EQ(ulp->ToString(), "ulp(2.5)");
  EXPECT_FALSE(ParseCompareSpec("ulp(-1)").ok());
  EXPECT_FALSE(ParseCompareSpec("ulp()").ok());
  EXPECT_FALSE(ParseCompareSpec("near").ok());
}

TEST(UlpOf, MatchesTheBinadeSpacing) {
  EXPECT_EQ(UlpOf(PrimitiveType::kF32, 1.0), std::ldexp(1.0, -23));
  EXPECT_EQ(UlpOf(PrimitiveType::kF32, 1.9999), std::ldexp(1.0, -23));
  EXPECT_EQ(UlpOf(PrimitiveType::kF32, 2.0), std::ldexp(1.0, -22));
  EXPECT_EQ(UlpOf(PrimitiveType::kF32, -0.75), std::ldexp(1.0, -24));
  // Zero and subnormals: the subnormal spacing 2^(emin - p + 1).
  EXPECT_EQ(UlpOf(PrimitiveType::kF32, 0.0), std::ldexp(1.0, -149));
  EXPECT_EQ(UlpOf(PrimitiveType::kF32, 1e-40), std::ldexp(1.0, -149));
  EXPECT_EQ(UlpOf(PrimitiveType::kF64, 1.0), std::ldexp(1.0, -52));
  EXPECT_EQ(UlpOf(PrimitiveType::kF16, 1.0), std::ldexp(1.0, -10));
  EXPECT_EQ(UlpOf(PrimitiveType::kBF16, 1.0), std::ldexp(1.0, -7));
}

TEST(CompareArrays, ExactTreatsNansAlikeButZeroSignsApart) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CompareSpec exact;
  EXPECT_TRUE(CompareArrays(F32({1, nan}), F32({1, -nan}), exact).ok);
  CompareOutcome zero = CompareArrays(F32({1, 0.0f}), F32({1, -0.0f}), exact);
  EXPECT_FALSE(zero.ok);
  EXPECT_EQ(zero.index, 1);
  EXPECT_EQ(zero.mismatches, 1);
  EXPECT_NE(zero.rule.find("zero sign"), std::string::npos);
  CompareOutcome unexpected = CompareArrays(F32({2}), F32({nan}), exact);
  EXPECT_FALSE(unexpected.ok);
  EXPECT_NE(unexpected.rule.find("unexpected NaN"), std::string::npos);
}

TEST(CompareArrays, BitsComparesNanPayloads) {
  Literal a = F32({0});
  Literal b = F32({0});
  a.SetRawBits(0, 0x7FC00000u);
  b.SetRawBits(0, 0x7FC00001u);
  EXPECT_FALSE(CompareArrays(a, b, *ParseCompareSpec("bits")).ok);
  EXPECT_TRUE(CompareArrays(a, b, *ParseCompareSpec("exact")).ok);
}

TEST(CompareArrays, UlpBound) {
  const float one_up = std::nextafter(1.0f, 2.0f);
  const float two_up = std::nextafter(one_up, 2.0f);
  CompareSpec ulp1 = *ParseCompareSpec("ulp(1)");
  EXPECT_TRUE(CompareArrays(F32({1}), F32({one_up}), ulp1).ok);
  EXPECT_FALSE(CompareArrays(F32({1}), F32({two_up}), ulp1).ok);
  // Below 1 the spacing halves, but the bound is the ulp of the expected
  // value's binade: 1 - 2^-23 is 2 half-ulps = 1 ulp(1) away.
  EXPECT_TRUE(CompareArrays(F32({1}), F32({1.0f - 0x1p-23f}), ulp1).ok);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(CompareArrays(F32({inf}), F32({3.4e38f}), ulp1).ok);
  EXPECT_TRUE(CompareArrays(F32({0.0f}), F32({-0.0f}), ulp1).ok);
}

TEST(CompareArrays, ClassOnly) {
  CompareSpec cls = *ParseCompareSpec("class");
  EXPECT_TRUE(CompareArrays(F32({1, -0.0f}), F32({5, 0.0f}), cls).ok);
  EXPECT_FALSE(CompareArrays(F32({1}), F32({-1}), cls).ok);
}

TEST(CompareArrays, IntegersAndShapes) {
  Literal a = Literal::CreateR1<int32_t>(PrimitiveType::kS32, {1, 2, 3});
  Literal b = Literal::CreateR1<int32_t>(PrimitiveType::kS32, {1, 5, 3});
  CompareOutcome o = CompareArrays(a, b, CompareSpec{});
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.index, 1);
  EXPECT_EQ(o.multi_index, "{1}");
  EXPECT_EQ(o.expected, "2");
  EXPECT_EQ(o.got, "5");
  Literal c = Literal::CreateR1<int32_t>(PrimitiveType::kS32, {1, 2});
  CompareOutcome shape = CompareArrays(a, c, CompareSpec{});
  EXPECT_FALSE(shape.ok);
  EXPECT_EQ(shape.index, -1);
  Literal f = F32({1, 2, 3});
  EXPECT_FALSE(CompareArrays(a, f, CompareSpec{}).ok);
}

TEST(CompareArrays, DontCareMaskSkipsElements) {
  Literal mask = Literal::CreateR1<bool>(PrimitiveType::kPred, {false, true});
  CompareOutcome o =
      CompareArrays(F32({1, 2}), F32({1, 7}), CompareSpec{}, &mask);
  EXPECT_TRUE(o.ok);
  EXPECT_EQ(o.masked, 1);
}

TEST(CompareArrays, MultiIndexIsRowMajor) {
  Literal a = Literal::CreateFromValues<float>(PrimitiveType::kF32, {2, 3},
                                               {0, 1, 2, 3, 4, 5});
  Literal b = Literal::CreateFromValues<float>(PrimitiveType::kF32, {2, 3},
                                               {0, 1, 2, 3, 9, 5});
  CompareOutcome o = CompareArrays(a, b, CompareSpec{});
  EXPECT_EQ(o.index, 4);
  EXPECT_EQ(o.multi_index, "{1,1}");
}

// Class-A verdicts (accumulation.cc, numerics.md 7.3), values by hand.
TEST(AccumulationVerdict, InfiniteResultOfFiniteTermsIsAny) {
  // Terms -3.4e38 * 14.5 and +-(3.4e38)^2 (all finite in exact arithmetic):
  // S = 2.3e77 reaches f32's overflow threshold, so some summation orders
  // overflow and cancel to NaN; the exact sum (-4.5e39) rounds to -inf,
  // which must not make the element EXACT.
  const uint32_t minus_inf = 0xff800000u;
  const ElementVerdict v = AccumulationVerdict(
      PrimitiveType::kF32, minus_inf, 2.3158417e77, 375, AccumulationParams{});
  EXPECT_EQ(v.kind, VerdictKind::kAny) << v.rule;
}

TEST(AccumulationVerdict, InfiniteTermsStayExact) {
  // An infinite term (S = inf): IEEE gives the same infinity in any order.
  const uint32_t plus_inf = 0x7f800000u;
  const ElementVerdict v = AccumulationVerdict(
      PrimitiveType::kF32, plus_inf, INFINITY, 4, AccumulationParams{});
  EXPECT_EQ(v.kind, VerdictKind::kExact) << v.rule;
  // A NaN result (inf - inf among the terms) is required exactly too.
  const ElementVerdict n = AccumulationVerdict(
      PrimitiveType::kF32, 0x7fc00000u, INFINITY, 4, AccumulationParams{});
  EXPECT_EQ(n.kind, VerdictKind::kExact) << n.rule;
}

TEST(AccumulationVerdict, FiniteSumIsBounded) {
  // y = 1, S = 3, m = 3: bound gamma_3(2^-24) * 3 + ulp(1)/2.
  const ElementVerdict v = AccumulationVerdict(PrimitiveType::kF32, 0x3f800000u,
                                               3.0, 3, AccumulationParams{});
  EXPECT_EQ(v.kind, VerdictKind::kBounded) << v.rule;
  const double gamma = 3 * 0x1p-24 / (1 - 3 * 0x1p-24);
  EXPECT_DOUBLE_EQ(v.hi, gamma * 3 + 0x1p-24);
}

}  // namespace
}  // namespace hloref::conformance
