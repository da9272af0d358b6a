// Tests of topk (interpreter/ops/sort.cc, EvalTopK): largest and smallest
// k along the last dimension with s32 indices, XLA's total order for
// floats (NaN largest, -NaN smallest, -0 < +0), integer extremes, ties
// (lower index first; impl.topk.1 marks without is_stable=true), k = 0,
// rank 3. Expected values are derived by hand in the comments.
#include <algorithm>
#include <cmath>
#include <limits>
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

namespace hloref {
namespace {

// The partial selection against a full stable sort written here: rows of
// f32 and bf16 with many ties (small integers), -0 / +0 and NaNs of both
// signs; the expected order sorts by the float total order (NaN above
// +inf, -NaN below -inf, -0 below +0; ties by index), computed from the
// values (std::signbit, isnan, <) rather than from encodings, and the
// marks are those of a tie with the neighbour in the full sorted row.
TEST(TopK, MatchesAFullStableSortOnRandomRows) {
  const int64_t rows = 6, n = 1000;
  uint64_t seed = 17;
  std::vector<float> v(static_cast<size_t>(rows * n));
  for (float& x : v) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t r = static_cast<uint32_t>(seed >> 33);
    switch (r % 10) {
      case 0:
        x = (r & 16) ? -0.0f : 0.0f;
        break;
      case 1:
        x = (r & 16) ? -std::numeric_limits<float>::quiet_NaN()
                     : std::numeric_limits<float>::quiet_NaN();
        break;
      default:
        x = static_cast<float>(static_cast<int>(r % 41) - 20);
    }
  }
  // Rank in the total order: (class, value) with class 0 for -NaN, 1 for
  // numbers, 2 for +NaN; among numbers -0 < +0.
  auto less = [](float a, float b) {
    auto cls = [](float x) {
      return std::isnan(x) ? (std::signbit(x) ? 0 : 2) : 1;
    };
    if (cls(a) != cls(b)) return cls(a) < cls(b);
    if (cls(a) != 1) return false;
    if (a == 0 && b == 0) return std::signbit(a) && !std::signbit(b);
    return a < b;
  };
  for (const char* type : {"f32", "bf16"}) {
    for (bool largest : {true, false}) {
      const int64_t k = 37;
      std::string lit = absl::StrCat(type, "[", rows, ",", n, "] {");
      for (int64_t r = 0; r < rows; ++r) {
        absl::StrAppend(&lit, r ? ", {" : "{");
        for (int64_t i = 0; i < n; ++i) {
          const float x = v[static_cast<size_t>(r * n + i)];
          absl::StrAppend(&lit, i ? ", " : "",
                          std::isnan(x) ? (std::signbit(x) ? "-nan" : "nan")
                          : (x == 0 && std::signbit(x)) ? "-0"
                                                        : absl::StrCat(x));
        }
        absl::StrAppend(&lit, "}");
      }
      absl::StrAppend(&lit, "}");
      absl::StatusOr<EvalResult> res = RunHlo(
          TopKModule(
              absl::StrCat(type, "[6,1000]"), absl::StrCat(type, "[6,37]"),
              "s32[6,37]",
              absl::StrCat("k=37, largest=", largest ? "true" : "false")),
          {Lit(lit)});
      ASSERT_TRUE(res.ok()) << res.status();
      const std::vector<bool> marks = Marks(*res, 1);
      for (int64_t r = 0; r < rows; ++r) {
        const float* row = v.data() + r * n;
        std::vector<int64_t> order(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
        // A stable order: ties keep the lower index first. (std::sort with
        // the index as the tie-break, not std::stable_sort: libstdc++ 12's
        // stable_sort uses the deprecated get_temporary_buffer, an error
        // under clang 19's -Werror in the sanitizer build.)
        std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          if (largest ? less(row[b], row[a]) : less(row[a], row[b])) {
            return true;
          }
          if (largest ? less(row[a], row[b]) : less(row[b], row[a])) {
            return false;
          }
          return a < b;
        });
        auto tie = [&](int64_t a, int64_t b) {
          return !less(row[a], row[b]) && !less(row[b], row[a]);
        };
        for (int64_t j = 0; j < k; ++j) {
          const int64_t got =
              res->value.tuple_element(1)
                  .data<int32_t>()[static_cast<size_t>(r * k + j)];
          ASSERT_EQ(got, order[static_cast<size_t>(j)])
              << type << " largest " << largest << " row " << r << " j " << j;
          const bool tied = (j > 0 && tie(order[j - 1], order[j])) ||
                            (j + 1 < n && tie(order[j + 1], order[j]));
          EXPECT_EQ(marks[static_cast<size_t>(r * k + j)], tied)
              << type << " row " << r << " j " << j;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hloref
