// Tests of topk (interpreter/ops/sort.cc, EvalTopK): largest and smallest
// k along the last dimension with s32 indices, XLA's total order for
// floats (NaN largest, -NaN smallest, -0 < +0), integer extremes, ties
// (lower index first; impl.topk.1 marks without is_stable=true), k = 0,
// rank 3. Expected values are derived by hand in the comments.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using ::testing::ElementsAre;
using testing_dm::Lit;
using testing_dm::RunHlo;

// A module `topk(p)` with parameter shape `in`, result `(out, s32 idx)`.
std::string TopKModule(const std::string& in, const std::string& out,
                       const std::string& idx, const std::string& attrs) {
  return absl::StrCat("HloModule m\nENTRY e {\n  p = ", in,
                      " parameter(0)\n  ROOT t = (", out, ", ", idx,
                      ") topk(p), ", attrs, "\n}\n");
}

// The don't-care flags of output `i`.
std::vector<bool> Marks(const EvalResult& r, size_t i) {
  const EvaluatedOutput& out = r.outputs[i];
  std::vector<bool> flags(static_cast<size_t>(out.value.element_count()),
                          false);
  if (out.dont_care.has_value()) {
    for (size_t j = 0; j < flags.size(); ++j) {
      flags[j] = out.dont_care->data<bool>()[j];
    }
  }
  return flags;
}

TEST(TopK, LargestPerRow) {
  // Row 0 {3, 1, 4, 1, 5}: largest two 5 (index 4), 4 (index 2).
  // Row 1 {9, 2, 6, 5, 3}: 9 (0), 6 (2).
  absl::StatusOr<EvalResult> r =
      RunHlo(TopKModule("f32[2,5]", "f32[2,2]", "s32[2,2]", "k=2"),
             {Lit("f32[2,5] {{3, 1, 4, 1, 5}, {9, 2, 6, 5, 3}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(f32[2,2], s32[2,2]) ({{5, 4}, {9, 6}}, "
                          "{{4, 2}, {0, 2}})"));
  EXPECT_FALSE(r->outputs[1].dont_care.has_value());
}

TEST(TopK, SmallestWithTiesLowerIndexFirstAndMarked) {
  // largest=false, k=3. Row 0 {3, 1, 4, 1, 5}: 1 (index 1), 1 (index 3),
  // 3 (index 0); the two 1s tie: their indices are impl.topk.1.
  // Row 1 {9, 2, 6, 5, 3}: 2 (1), 3 (4), 5 (3).
  const std::string args = "f32[2,5] {{3, 1, 4, 1, 5}, {9, 2, 6, 5, 3}}";
  absl::StatusOr<EvalResult> r = RunHlo(
      TopKModule("f32[2,5]", "f32[2,3]", "s32[2,3]", "k=3, largest=false"),
      {Lit(args)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(f32[2,3], s32[2,3]) ({{1, 1, 3}, {2, 3, 5}}, "
                          "{{1, 3, 0}, {1, 4, 3}})"));
  EXPECT_THAT(Marks(*r, 0),
              ElementsAre(false, false, false, false, false, false));
  EXPECT_THAT(Marks(*r, 1),
              ElementsAre(true, true, false, false, false, false));
  EXPECT_THAT(r->outputs[1].impl_ids, ElementsAre("impl.topk.1"));
  // is_stable=true pins the order: nothing marked.
  r = RunHlo(TopKModule("f32[2,5]", "f32[2,3]", "s32[2,3]",
                        "k=3, largest=false, is_stable=true"),
             {Lit(args)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->outputs[1].dont_care.has_value());
  // A tie just outside the result also marks the index inside it: k=1 of
  // {1, 1} takes index 0, but index 1 is as good.
  r = RunHlo(TopKModule("s32[2]", "s32[1]", "s32[1]", "k=1"),
             {Lit("s32[2] {1, 1}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(s32[1], s32[1]) ({1}, {0})"));
  EXPECT_THAT(Marks(*r, 1), ElementsAre(true));
}

TEST(TopK, FloatTotalOrder) {
  // XLA's total order: -nan < -inf < -0 < +0 < 1 < nan. Largest first:
  // nan (1), 1 (0), 0 (4), -0 (3), -inf (2), -nan (5).
  absl::StatusOr<EvalResult> r =
      RunHlo(TopKModule("f32[6]", "f32[6]", "s32[6]", "k=6"),
             {Lit("f32[6] {1, nan, -inf, -0, 0, -nan}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(f32[6], s32[6]) ({nan, 1, 0, -0, -inf, -nan}, "
                          "{1, 0, 4, 3, 2, 5})"));
  EXPECT_EQ(r->value.tuple_element(0).GetRawBits(0), 0x7fc00000u);
  EXPECT_EQ(r->value.tuple_element(0).GetRawBits(3), 0x80000000u);
  // Smallest first: -nan (5), -inf (2).
  r = RunHlo(TopKModule("f32[6]", "f32[2]", "s32[2]", "k=2, largest=false"),
             {Lit("f32[6] {1, nan, -inf, -0, 0, -nan}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(f32[2], s32[2]) ({-nan, -inf}, {5, 2})"));
  // bf16 (a narrow float) follows the same order: 2 > 0.5 > -0 > -3.
  r = RunHlo(TopKModule("bf16[4]", "bf16[4]", "s32[4]", "k=4"),
             {Lit("bf16[4] {-0, 2, -3, 0.5}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value,
            Lit("(bf16[4], s32[4]) ({2, 0.5, -0, -3}, {1, 3, 0, 2})"));
}

TEST(TopK, IntegerExtremes) {
  absl::StatusOr<EvalResult> r =
      RunHlo(TopKModule("s32[4]", "s32[2]", "s32[2]", "k=2"),
             {Lit("s32[4] {-2147483648, 2147483647, 0, -1}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(s32[2], s32[2]) ({2147483647, 0}, {1, 2})"));
  // Unsigned: 255 and 128 are the largest of u8 {0, 255, 128, 1}; u64's
  // top values order above 2^63.
  r = RunHlo(TopKModule("u8[4]", "u8[2]", "s32[2]", "k=2"),
             {Lit("u8[4] {0, 255, 128, 1}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(u8[2], s32[2]) ({255, 128}, {1, 2})"));
  r = RunHlo(TopKModule("u64[3]", "u64[3]", "s32[3]", "k=3"),
             {Lit("u64[3] {1, 18446744073709551615, 9223372036854775808}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(u64[3], s32[3]) ({18446744073709551615, "
                          "9223372036854775808, 1}, {1, 2, 0})"));
}

TEST(TopK, KZeroAndRankThree) {
  absl::StatusOr<EvalResult> r =
      RunHlo(TopKModule("f32[2,3]", "f32[2,0]", "s32[2,0]", "k=0"),
             {Lit("f32[2,3] {{1, 2, 3}, {4, 5, 6}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.tuple_element(0).element_count(), 0);
  // [2,1,3]: each of the two rows separately.
  r = RunHlo(TopKModule("s32[2,1,3]", "s32[2,1,1]", "s32[2,1,1]", "k=1"),
             {Lit("s32[2,1,3] {{{7, 9, 8}}, {{-1, -3, -2}}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(s32[2,1,1], s32[2,1,1]) ({{{9}}, {{-1}}}, "
                          "{{{1}}, {{0}}})"));
}

}  // namespace
}  // namespace hloref
