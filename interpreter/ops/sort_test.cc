// Tests of the kSort family evaluator (interpreter/ops/sort.cc): seed
// 001's three-operand example, every dimension, stability, ties under
// is_stable=false (impl.sort.2), comparators that are not strict weak
// orders (impl.sort.1: no crash, marked), every element type class,
// zero-size operands.
#include "interpreter/ops/sort.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using testing_dm::Arr;
using testing_dm::ExpectRootEquals;
using testing_dm::Lit;
using testing_dm::Nest;
using testing_dm::RunHlo;
using testing_dm::Shp;

// A comparator over `types` (one per operand) that compares operand 0 with
// `direction` and ignores the rest.
std::string Comparator(const std::vector<std::string>& types,
                       const std::string& direction,
                       const std::string& compare_type = "") {
  std::string text = "cmp {\n";
  for (size_t k = 0; k < types.size(); ++k) {
    absl::StrAppend(&text, "  p", 2 * k, " = ", types[k], "[] parameter(",
                    2 * k, ")\n  p", 2 * k + 1, " = ", types[k],
                    "[] parameter(", 2 * k + 1, ")\n");
  }
  absl::StrAppend(&text,
                  "  ROOT r = pred[] compare(p0, p1), direction=", direction,
                  compare_type.empty() ? "" : ", type=", compare_type, "\n}\n");
  return text;
}

TEST(Sort, SeedThreeOperands) {
  // operand0 = [3, 1], operand1 = [42, 50], operand2 = [-3.0, 1.1], sorted
  // by operand0 with less-than: ([1, 3], [50, 42], [1.1, -3.0]).
  ExpectRootEquals(
      absl::StrCat("HloModule m\n", Comparator({"s32", "s32", "f32"}, "LT"),
                   R"(ENTRY e {
  a = s32[2] constant({3, 1})
  b = s32[2] constant({42, 50})
  c = f32[2] constant({-3.0, 1.1})
  ROOT s = (s32[2], s32[2], f32[2]) sort(a, b, c), dimensions={0}, to_apply=cmp
})"),
      "(s32[2], s32[2], f32[2]) ({1, 3}, {50, 42}, {1.1, -3})");
}

TEST(Sort, EachDimensionOfAMatrix) {
  const std::string head =
      absl::StrCat("HloModule m\n", Comparator({"s32"}, "LT"),
                   "ENTRY e {\n  a = s32[2,3] constant({{3, 1, 2}, "
                   "{0, 5, -4}})\n");
  // Dimension 0 sorts every column, dimension 1 every row.
  ExpectRootEquals(head +
                       "  ROOT s = s32[2,3] sort(a), dimensions={0}, "
                       "to_apply=cmp\n}\n",
                   "s32[2,3] {{0, 1, -4}, {3, 5, 2}}");
  ExpectRootEquals(head +
                       "  ROOT s = s32[2,3] sort(a), dimensions={1}, "
                       "to_apply=cmp\n}\n",
                   "s32[2,3] {{1, 2, 3}, {-4, 0, 5}}");
}

TEST(Sort, EveryTypeClassDescending) {
  // Keys 2, 0, 3, 1 sorted with GT: 3, 2, 1, 0.
  for (const std::string t :
       {"s8", "s64", "u4", "u32", "f16", "bf16", "f64", "f8e4m3fn", "f8e5m2"}) {
    SCOPED_TRACE(t);
    ExpectRootEquals(
        absl::StrCat("HloModule m\n", Comparator({t}, "GT"),
                     "ENTRY e {\n  a = ", Shp(t, {4}), " constant(",
                     t[0] == 's' ? "{2, 0, 3, 1}" : Nest(t, {4}, {2, 0, 3, 1}),
                     ")\n  ROOT s = ", Shp(t, {4}),
                     " sort(a), dimensions={0}, to_apply=cmp\n}\n"),
        absl::StrCat(Shp(t, {4}), " {3, 2, 1, 0}"));
  }
  // pred keys (false < true) carrying complex values along.
  ExpectRootEquals(
      absl::StrCat("HloModule m\n", Comparator({"pred", "c64"}, "LT"),
                   R"(ENTRY e {
  k = pred[3] constant({true, false, true})
  v = c64[3] constant({(1, 1), (2, 2), (3, 3)})
  ROOT s = (pred[3], c64[3]) sort(k, v), dimensions={0}, is_stable=true, to_apply=cmp
})"),
      "(pred[3], c64[3]) ({false, true, true}, {(2, 2), (1, 1), (3, 3)})");
}

TEST(Sort, StableKeepsInputOrderOfEqualKeys) {
  ExpectRootEquals(
      absl::StrCat("HloModule m\n", Comparator({"s32", "s32"}, "LT"),
                   R"(ENTRY e {
  k = s32[6] constant({2, 1, 2, 1, 0, 2})
  v = s32[6] constant({0, 1, 2, 3, 4, 5})
  ROOT s = (s32[6], s32[6]) sort(k, v), dimensions={0}, is_stable=true, to_apply=cmp
})"),
      "(s32[6], s32[6]) ({0, 1, 1, 2, 2, 2}, {4, 1, 3, 0, 2, 5})");
}

TEST(Sort, UnstableTiesAreMarkedWhereValuesDiffer) {
  EvaluatorOptions options;
  options.profile = Profile::kPortable;
  absl::StatusOr<EvalResult> result =
      RunHlo(absl::StrCat("HloModule m\n", Comparator({"s32", "s32"}, "LT"),
                          R"(ENTRY e {
  k = s32[5] constant({2, 1, 2, 1, 0})
  v = s32[5] constant({7, 8, 9, 8, 6})
  ROOT s = (s32[5], s32[5]) sort(k, v), dimensions={0}, to_apply=cmp
})"),
             {}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  // We sort stably anyway: keys {0, 1, 1, 2, 2}, values {6, 8, 8, 7, 9}.
  EXPECT_EQ(result->value,
            Lit("(s32[5], s32[5]) ({0, 1, 1, 2, 2}, {6, 8, 8, 7, 9})"));
  ASSERT_EQ(result->outputs.size(), 2u);
  // Keys within a tie run are identical: nothing to mark. Values: the run
  // {8, 8} is identical either way; the run {7, 9} is not.
  EXPECT_FALSE(result->outputs[0].dont_care.has_value() &&
               result->outputs[0].dont_care->GetAsInt64(3));
  ASSERT_TRUE(result->outputs[1].dont_care.has_value());
  const Literal& mask = *result->outputs[1].dont_care;
  EXPECT_EQ(mask, Lit("pred[5] {false, false, false, true, true}"));
  EXPECT_EQ(result->outputs[1].impl_ids,
            std::vector<std::string>{"impl.sort.2"});
}

TEST(Sort, InconsistentComparatorDoesNotCrashAndIsMarked) {
  EvaluatorOptions options;
  options.profile = Profile::kPortable;
  // "Always true" is not a strict weak order (not irreflexive).
  absl::StatusOr<EvalResult> always = RunHlo(R"(HloModule m
cmp {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT r = pred[] constant(true)
}
ENTRY e {
  a = f32[40] iota(), iota_dimension=0
  ROOT s = f32[40] sort(a), dimensions={0}, to_apply=cmp
})",
                                             {}, options);
  ASSERT_TRUE(always.ok()) << always.status();
  ASSERT_TRUE(always->outputs[0].dont_care.has_value());
  EXPECT_EQ(always->outputs[0].dont_care->GetAsInt64(0), 1);
  EXPECT_EQ(always->outputs[0].impl_ids,
            std::vector<std::string>{"impl.sort.1"});
  // FLOAT LT meeting NaN: incomparability is not transitive, so {3, NaN, 1}
  // has no defined order; the 3-element slice gets the full check.
  absl::StatusOr<EvalResult> nan = RunHlo(
      absl::StrCat("HloModule m\n", Comparator({"f32"}, "LT"), R"(ENTRY e {
  a = f32[3] constant({3, nan, 1})
  ROOT s = f32[3] sort(a), dimensions={0}, to_apply=cmp
})"),
      {}, options);
  ASSERT_TRUE(nan.ok()) << nan.status();
  ASSERT_TRUE(nan->outputs[0].dont_care.has_value());
  EXPECT_EQ(*nan->outputs[0].dont_care, Lit("pred[3] {true, true, true}"));
}

TEST(Sort, ConsistentComparatorIsNotMarked) {
  EvaluatorOptions options;
  options.profile = Profile::kPortable;
  absl::StatusOr<EvalResult> result = RunHlo(
      absl::StrCat("HloModule m\n", Comparator({"f32"}, "LT", "TOTALORDER"),
                   R"(ENTRY e {
  a = f32[4] constant({3, nan, -0, 0})
  ROOT s = f32[4] sort(a), dimensions={0}, is_stable=true, to_apply=cmp
})"),
      {}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  // Total order: -0 < +0 < 3 < +NaN.
  EXPECT_EQ(result->value, Lit("f32[4] {-0, 0, 3, nan}"));
  EXPECT_FALSE(result->outputs[0].dont_care.has_value());
}

TEST(Sort, ZeroSize) {
  ExpectRootEquals(
      absl::StrCat("HloModule m\n", Comparator({"f32"}, "LT"), R"(ENTRY e {
  a = f32[0,3] constant({})
  ROOT s = f32[0,3] sort(a), dimensions={1}, to_apply=cmp
})"),
      "f32[0,3] {}");
}

}  // namespace
}  // namespace hloref
