// Tests of the kSort family evaluator (interpreter/ops/sort.cc): seed
// 001's three-operand example, every dimension, stability, ties under
// is_stable=false (impl.sort.2), comparators that are not strict weak
// orders (impl.sort.1: no crash, marked), every element type class,
// zero-size operands.
#include "interpreter/ops/sort.h"

#include <cmath>
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

namespace hloref {
namespace {

// The comparator fast path (sort.h) against the general path (the
// comparator computation evaluated per comparison): same values, same
// don't-care masks and ids, on NaN, -NaN, -0/+0, infinities and ties.
struct PathResult {
  EvalResult result;
  int64_t fast_uses;
};

PathResult RunPath(const std::string& text, const std::vector<Literal>& args,
                   bool disable_fast) {
  SetSortFastPathDisabledForTesting(disable_fast);
  const int64_t before = SortFastPathUsesForTesting();
  absl::StatusOr<EvalResult> r = testing_dm::RunHlo(text, args);
  SetSortFastPathDisabledForTesting(false);
  EXPECT_TRUE(r.ok()) << r.status();
  PathResult out{r.ok() ? *std::move(r) : EvalResult{},
                 SortFastPathUsesForTesting() - before};
  return out;
}

void ExpectPathsAgree(const std::string& text,
                      const std::vector<Literal>& args) {
  PathResult fast = RunPath(text, args, false);
  PathResult general = RunPath(text, args, true);
  EXPECT_EQ(fast.fast_uses, 1) << "comparator not recognised:\n" << text;
  EXPECT_EQ(general.fast_uses, 0);
  ASSERT_EQ(fast.result.outputs.size(), general.result.outputs.size());
  EXPECT_TRUE(fast.result.value.BitwiseEquals(general.result.value))
      << text << "\nfast:    " << fast.result.value.ToString()
      << "\ngeneral: " << general.result.value.ToString();
  for (size_t k = 0; k < fast.result.outputs.size(); ++k) {
    const EvaluatedOutput& f = fast.result.outputs[k];
    const EvaluatedOutput& g = general.result.outputs[k];
    EXPECT_EQ(f.dont_care.has_value(), g.dont_care.has_value()) << k;
    if (f.dont_care && g.dont_care) {
      EXPECT_TRUE(f.dont_care->BitwiseEquals(*g.dont_care)) << k;
    }
    EXPECT_EQ(f.impl_ids, g.impl_ids) << k;
  }
}

const char* kSpecialF32 =
    "f32[2,12] {{nan, -0, 1, 0, -inf, 1, -nan, 2, inf, -0, nan, 0}, "
    "{3, 3, -1, 0, -0, -0, 0, 7, -7, 7, 1e-45, -1e-45}}";

// Keys of type `type` with `dir`/`ctype`, sorted along `dim`, optionally
// with an s32 iota tie-break (XLA's and JAX's stable-sort comparator).
std::string KeyModule(const std::string& type, const std::string& dims,
                      const std::string& dir, const std::string& ctype,
                      bool index_tie_break, int dim, bool stable) {
  const std::string ty = ctype.empty() ? "" : ", type=" + ctype;
  std::string cmp =
      absl::StrCat("cmp {\n  p0 = ", type, "[] parameter(0)\n  p1 = ", type,
                   "[] parameter(1)\n");
  if (index_tie_break) {
    absl::StrAppend(&cmp,
                    "  p2 = s32[] parameter(2)\n  p3 = s32[] parameter(3)\n"
                    "  c0 = pred[] compare(p0, p1), direction=",
                    dir, ty, "\n  e0 = pred[] compare(p0, p1), direction=EQ",
                    ty,
                    "\n  c1 = pred[] compare(p2, p3), direction=LT\n"
                    "  a = pred[] and(e0, c1)\n  ROOT r = pred[] or(c0, a)\n}"
                    "\n");
  } else {
    absl::StrAppend(&cmp, "  ROOT r = pred[] compare(p0, p1), direction=", dir,
                    ty, "\n}\n");
  }
  const std::string shape = absl::StrCat(type, "[", dims, "]");
  std::string entry =
      absl::StrCat("ENTRY e {\n  x = ", shape, " parameter(0)\n");
  if (index_tie_break) {
    absl::StrAppend(&entry, "  i = s32[", dims,
                    "] iota(), iota_dimension=", dim, "\n  ROOT s = (", shape,
                    ", s32[", dims, "]) sort(x, i), dimensions={", dim, "}",
                    stable ? ", is_stable=true" : "", ", to_apply=cmp\n}\n");
  } else {
    absl::StrAppend(&entry, "  ROOT s = ", shape, " sort(x), dimensions={", dim,
                    "}", stable ? ", is_stable=true" : "",
                    ", to_apply=cmp\n}\n");
  }
  return absl::StrCat("HloModule m\n", cmp, entry);
}

TEST(SortFastPath, FloatKeysAgreeWithTheGeneralPath) {
  std::vector<Literal> args;
  args.push_back(testing_dm::Lit(kSpecialF32));
  for (const char* dir : {"LT", "GT", "LE", "GE"}) {
    for (const char* ctype : {"", "FLOAT", "TOTALORDER"}) {
      for (bool tie : {false, true}) {
        for (int dim : {0, 1}) {
          for (bool stable : {false, true}) {
            ExpectPathsAgree(
                KeyModule("f32", "2,12", dir, ctype, tie, dim, stable), args);
          }
        }
      }
    }
  }
}

TEST(SortFastPath, Bf16AndIntegerKeysAgreeWithTheGeneralPath) {
  {
    std::vector<Literal> args;
    args.push_back(testing_dm::Lit(
        "bf16[3,4] {{1, -0, 0, nan}, {-inf, 2, 2, -2}, {0, 0, -0, -nan}}"));
    for (const char* dir : {"LT", "GT"}) {
      for (const char* ctype : {"", "TOTALORDER"}) {
        ExpectPathsAgree(KeyModule("bf16", "3,4", dir, ctype, true, 1, false),
                         args);
      }
    }
  }
  {
    std::vector<Literal> args;
    args.push_back(testing_dm::Lit("s32[6] {3, -1, 3, 2147483647, -2, 0}"));
    for (const char* dir : {"LT", "GT", "GE"}) {
      for (const char* ctype : {"", "SIGNED"}) {
        ExpectPathsAgree(KeyModule("s32", "6", dir, ctype, false, 0, false),
                         args);
      }
    }
  }
  {
    std::vector<Literal> args;
    args.push_back(testing_dm::Lit("u8[5] {200, 1, 200, 0, 127}"));
    for (const char* ctype : {"", "UNSIGNED"}) {
      ExpectPathsAgree(KeyModule("u8", "5", "LT", ctype, true, 0, false), args);
    }
  }
}

TEST(SortFastPath, LargeSlicesAgree) {
  // 3 x 300 f32 values with many repeats (ties), zeros of both signs and
  // NaNs: longer than the full-check limit, so only the neighbour check
  // runs on both paths.
  Literal x(Shape::Array(PrimitiveType::kF32, {3, 300}));
  uint64_t seed = 7;
  for (float& v : x.mutable_data<float>()) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const int r = static_cast<int>((seed >> 33) % 23);
    v = r == 0 ? NAN : r == 1 ? -0.0f : static_cast<float>(r % 9) - 4.0f;
  }
  std::vector<Literal> args;
  args.push_back(std::move(x));
  ExpectPathsAgree(KeyModule("f32", "3,300", "GT", "", true, 1, false), args);
  ExpectPathsAgree(
      KeyModule("f32", "3,300", "LT", "TOTALORDER", false, 1, false), args);
}

}  // namespace
}  // namespace hloref
