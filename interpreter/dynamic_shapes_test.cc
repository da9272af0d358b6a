// Tests of bounded dynamic dimensions (`f32[<=10]`): Literal's runtime
// sizes, printing and conversion (spec/types/literal.h), entry arguments
// smaller than the bounds, get/set-dimension-size (seed 001 SetDimensionSize
// worked example), dynamic-reshape, element-wise ops, reduce, slice,
// concatenate, broadcast, transpose, reshape, the Unimplemented gate and
// the don't-care marks of padding (interpreter/dynamic_sizes.h). Modules
// are HLO text, parsed and verified. Expected values are derived by hand
// in the comments.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/dynamic_sizes.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_dm::Lit;
using testing_dm::RunHlo;

// The don't-care flags of output 0 (all false when there is no mask).
std::vector<bool> DontCare(const EvalResult& r) {
  const EvaluatedOutput& out = r.outputs[0];
  std::vector<bool> flags(static_cast<size_t>(out.value.element_count()),
                          false);
  if (out.dont_care.has_value()) {
    for (size_t i = 0; i < flags.size(); ++i) {
      flags[i] = out.dont_care->data<bool>()[i];
    }
  }
  return flags;
}

// ---- Literal

TEST(DynamicLiteral, RuntimeSizePrintingAndPadding) {
  absl::StatusOr<Shape> shape = ParseShape("f32[<=4]");
  ASSERT_TRUE(shape.ok()) << shape.status();
  Literal lit(*shape);
  for (int64_t i = 0; i < 4; ++i) lit.SetFromDouble(i, i + 1.0);
  EXPECT_FALSE(lit.HasPadding());
  EXPECT_EQ(lit.GetDynamicSize(0), 4);
  // XLA prints the runtime size of every dimension after a dynamic shape
  // and only the valid elements.
  EXPECT_EQ(lit.ToString(), "f32[<=4]{0}(4) {1, 2, 3, 4}");
  lit.SetDynamicSize(0, 2);
  EXPECT_TRUE(lit.HasPadding());
  EXPECT_EQ(lit.ToString(), "f32[<=4]{0}(2) {1, 2}");
  EXPECT_EQ(lit.ToStringWithoutShape(), "{1, 2}");
  EXPECT_FALSE(lit.IsPaddingElement(1));
  EXPECT_TRUE(lit.IsPaddingElement(2));
  EXPECT_TRUE(lit.IsPaddingElement(3));
  EXPECT_EQ(lit.ToStatic(), Lit("f32[2] {1, 2}"));
  EXPECT_EQ(lit.ToStatic().shape().ToString(), "f32[2]");
}

TEST(DynamicLiteral, EqualityComparesValidElementsAndSizes) {
  absl::StatusOr<Shape> shape = ParseShape("s32[<=3]");
  ASSERT_TRUE(shape.ok());
  Literal a(*shape), b(*shape);
  for (int64_t i = 0; i < 3; ++i) {
    a.SetFromInt64(i, 10 + i);
    b.SetFromInt64(i, 10 + i);
  }
  a.SetDynamicSize(0, 2);
  EXPECT_FALSE(a == b);  // runtime sizes 2 and 3
  b.SetDynamicSize(0, 2);
  b.SetFromInt64(2, 99);  // padding differs
  EXPECT_TRUE(a == b);
  b.SetFromInt64(1, 98);  // a valid element differs
  EXPECT_FALSE(a == b);
}

TEST(DynamicLiteral, TwoDimensionalPrinting) {
  absl::StatusOr<Shape> shape = ParseShape("s32[<=3,<=3]");
  ASSERT_TRUE(shape.ok());
  Literal lit(*shape);
  for (int64_t i = 0; i < 9; ++i) lit.SetFromInt64(i, i + 1);
  lit.SetDynamicSize(0, 2);
  lit.SetDynamicSize(1, 1);
  // Valid elements (0,0) = 1 and (1,0) = 4 (storage row-major over 3x3).
  EXPECT_EQ(lit.ToString(), "s32[<=3,<=3]{1,0}(2,1) { {1}, {4} }");
  EXPECT_EQ(lit.ToStatic(), Lit("s32[2,1] {{1}, {4}}"));
}

TEST(DynamicLiteral, ToBoundedDynamic) {
  absl::StatusOr<Shape> bounded = ParseShape("s32[<=4,3]");
  ASSERT_TRUE(bounded.ok());
  absl::StatusOr<Literal> lit = Literal::ToBoundedDynamic(
      Lit("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"), *bounded);
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_THAT(lit->dynamic_sizes(), ElementsAre(2, 3));
  EXPECT_EQ(lit->GetAsInt64(5), 6);  // (1,2) at 1*3+2
  EXPECT_EQ(lit->GetAsInt64(6), 0);  // padding row 2 is zero
  EXPECT_EQ(lit->ToStatic(), Lit("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"));
  // A static dimension must match; a dynamic one must fit its bound.
  absl::StatusOr<Literal> bad =
      Literal::ToBoundedDynamic(Lit("s32[2,2] {{1, 2}, {3, 4}}"), *bounded);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("dimension 1"));
  bad = Literal::ToBoundedDynamic(
      Literal(Shape::Array(PrimitiveType::kS32, {5, 3})), *bounded);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("above its bound 4"));
  bad = Literal::ToBoundedDynamic(
      Literal(Shape::Array(PrimitiveType::kF32, {2, 3})), *bounded);
  EXPECT_FALSE(bad.ok());
}

// ---- set-dimension-size / get-dimension-size (seed 001)

std::string SeedModule(const std::string& op, const std::string& init,
                       int size) {
  return absl::StrCat(R"(HloModule sds
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] )",
                      op, R"((a, b)
}
ENTRY main {
  v = f32[10] constant({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
  n = s32[] constant()",
                      size, R"()
  p = f32[<=10] set-dimension-size(v, n), dimensions={0}
  init = f32[] constant()",
                      init, R"()
  ROOT r = f32[] reduce(p, init), dimensions={0}, to_apply=r
})");
}

TEST(SetDimensionSize, SeedExampleReductionsSeeOnlyValidElements) {
  // sum(1..5) = 15, product(1..5) = 120, sum(1..6) = 21.
  absl::StatusOr<EvalResult> r = RunHlo(SeedModule("add", "0", 5));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[] 15"));
  EXPECT_FALSE(r->outputs[0].dont_care.has_value());
  r = RunHlo(SeedModule("multiply", "1", 5));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[] 120"));
  r = RunHlo(SeedModule("add", "0", 6));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[] 21"));
  // A non-identity init is folded once (init + valid elements): 100 + 15.
  r = RunHlo(SeedModule("add", "100", 5));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[] 115"));
  // max over the first three: 3 (the padding holds 4..10).
  r = RunHlo(SeedModule("maximum", "-1", 3));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[] 3"));
}

TEST(SetDimensionSize, ResultCarriesSizeAndPaddingIsDontCare) {
  absl::StatusOr<EvalResult> r = RunHlo(R"(HloModule m
ENTRY e {
  v = s32[4] constant({7, 8, 9, 10})
  n = s32[] constant(1)
  ROOT p = s32[<=4] set-dimension-size(v, n), dimensions={0}
})");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->value.dynamic_sizes(), ElementsAre(1));
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[1] {7}"));
  // The padding keeps the operand's bytes and is masked.
  EXPECT_EQ(r->value.GetAsInt64(3), 10);
  EXPECT_THAT(DontCare(*r), ElementsAre(false, true, true, true));
  EXPECT_THAT(r->outputs[0].impl_ids, ElementsAre("impl.dynamic.1"));
}

TEST(SetDimensionSize, GrowingExposesFormerPaddingMarked) {
  // The argument has runtime size 2; setting 3 makes element 2 (zero
  // padding of the argument) valid: implementation-defined, marked.
  absl::StatusOr<EvalResult> r = RunHlo(R"(HloModule m
ENTRY e {
  v = s32[<=4] parameter(0)
  n = s32[] constant(3)
  ROOT p = s32[<=4] set-dimension-size(v, n), dimensions={0}
})",
                                        {Lit("s32[2] {5, 6}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->value.dynamic_sizes(), ElementsAre(3));
  EXPECT_THAT(DontCare(*r), ElementsAre(false, false, true, true));
}

TEST(SetDimensionSize, SizeOutsideBoundIsOutOfRange) {
  for (int size : {-1, 5}) {
    absl::StatusOr<EvalResult> r = RunHlo(absl::StrCat(R"(HloModule m
ENTRY e {
  v = s32[4] constant({7, 8, 9, 10})
  n = s32[] constant()",
                                                       size, R"()
  ROOT p = s32[<=4] set-dimension-size(v, n), dimensions={0}
})"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("impl.dynamic.3"));
  }
}

TEST(GetDimensionSize, StaticAndDynamic) {
  absl::StatusOr<EvalResult> r =
      RunHlo(R"(HloModule m
ENTRY e {
  v = f32[3,7] parameter(0)
  ROOT g = s32[] get-dimension-size(v), dimensions={1}
})",
             {Literal(Shape::Array(PrimitiveType::kF32, {3, 7}))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("s32[] 7"));
  r = RunHlo(R"(HloModule m
ENTRY e {
  v = f32[<=8,<=5] parameter(0)
  a = s32[] get-dimension-size(v), dimensions={0}
  b = s32[] get-dimension-size(v), dimensions={1}
  ROOT t = (s32[], s32[]) tuple(a, b)
})",
             {Literal(Shape::Array(PrimitiveType::kF32, {6, 5}))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(s32[], s32[]) (6, 5)"));
}

// ---- Entry arguments

TEST(DynamicArguments, SmallerStaticArgumentAndElementwise) {
  absl::StatusOr<EvalResult> r = RunHlo(R"(HloModule m
ENTRY e {
  p = f32[<=5] parameter(0)
  ROOT n = f32[<=5] negate(p)
})",
                                        {Lit("f32[3] {1, 2, 3}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->value.dynamic_sizes(), ElementsAre(3));
  EXPECT_EQ(r->value.ToStatic(), Lit("f32[3] {-1, -2, -3}"));
  EXPECT_THAT(DontCare(*r), ElementsAre(false, false, false, true, true));
  EXPECT_EQ(r->value.ToString(), "f32[<=5]{0}(3) {-1, -2, -3}");
}

TEST(DynamicArguments, BadArgumentsNameTheParameter) {
  const char* text = R"(HloModule m
ENTRY e {
  p = f32[<=5,2] parameter(0)
  ROOT n = f32[<=5,2] negate(p)
})";
  for (const char* arg :
       {"f32[6,2] {{0,0},{0,0},{0,0},{0,0},{0,0},{0,0}}",
        "f32[2,3] {{0,0,0},{0,0,0}}", "s32[2,2] {{0,0},{0,0}}"}) {
    absl::StatusOr<EvalResult> r = RunHlo(text, {Lit(arg)});
    ASSERT_FALSE(r.ok()) << arg;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("parameter 0"));
  }
}

TEST(DynamicElementwise, StaticOperandTakesTheDynamicSize) {
  // x has runtime size 2 of 4; y is static: the result has size 2 and
  // {1+10, 2+20}.
  absl::StatusOr<EvalResult> r = RunHlo(R"(HloModule m
ENTRY e {
  x = f32[<=4] parameter(0)
  y = f32[4] constant({10, 20, 30, 40})
  ROOT s = f32[<=4] add(x, y)
})",
                                        {Lit("f32[2] {1, 2}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.ToStatic(), Lit("f32[2] {11, 22}"));
}

TEST(DynamicElementwise, DisagreeingSizesAreOutOfRange) {
  absl::StatusOr<EvalResult> r =
      RunHlo(R"(HloModule m
ENTRY e {
  x = f32[<=4] parameter(0)
  y = f32[<=4] parameter(1)
  ROOT s = f32[<=4] multiply(x, y)
})",
             {Lit("f32[2] {1, 2}"), Lit("f32[3] {1, 2, 3}")});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("impl.dynamic.2"));
}

// ---- reduce

constexpr char kSumF32[] = R"(add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(DynamicReduce, RowsAndColumnsOfAPaddedMatrix) {
  // Rows 0 and 1 are valid ({1,2,3,4}, {5,6,7,8}); row 2 is padding
  // holding 100s, which must not take part.
  const std::string head = absl::StrCat("HloModule m\n", kSumF32, R"(ENTRY e {
  v = f32[3,4] constant({{1, 2, 3, 4}, {5, 6, 7, 8}, {100, 100, 100, 100}})
  n = s32[] constant(2)
  p = f32[<=3,4] set-dimension-size(v, n), dimensions={0}
  z = f32[] constant(0)
)");
  // Over dimension 1: row sums 10 and 26, runtime size 2.
  absl::StatusOr<EvalResult> r = RunHlo(absl::StrCat(
      head,
      "  ROOT r = f32[<=3] reduce(p, z), dimensions={1}, to_apply=add\n}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->value.dynamic_sizes(), ElementsAre(2));
  EXPECT_EQ(r->value.ToStatic(), Lit("f32[2] {10, 26}"));
  EXPECT_THAT(DontCare(*r), ElementsAre(false, false, true));
  // Over dimension 0: column sums of the two valid rows.
  r = RunHlo(absl::StrCat(
      head, "  ROOT r = f32[4] reduce(p, z), dimensions={0}, to_apply=add\n}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[4] {6, 8, 10, 12}"));
  EXPECT_FALSE(r->outputs[0].dont_care.has_value());
  // Over both: 36.
  r = RunHlo(absl::StrCat(
      head,
      "  ROOT r = f32[] reduce(p, z), dimensions={0,1}, to_apply=add\n}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[] 36"));
}

TEST(DynamicReduce, GenericReducerAndEmptyRuntimeSize) {
  // A reducer the evaluator calls (a - b is not recognised): folds
  // f(f(init, x0), x1) = (0 - 1) - 2 = -3 over the two valid elements.
  absl::StatusOr<EvalResult> r = RunHlo(R"(HloModule m
sub {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] subtract(a, b)
}
ENTRY e {
  p = f32[<=6] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=sub
})",
                                        {Lit("f32[2] {1, 2}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[] -3"));
  // Runtime size 0: just init.
  r = RunHlo(absl::StrCat("HloModule m\n", kSumF32, R"(ENTRY e {
  p = f32[<=6] parameter(0)
  z = f32[] constant(4)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
})"),
             {Literal(Shape::Array(PrimitiveType::kF32, {0}))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[] 4"));
}

// ---- slice, concatenate, broadcast, transpose, reshape

TEST(DynamicSlice, FullSliceKeepsSizePartialSliceMarksPadding) {
  const char* text = R"(HloModule m
ENTRY e {
  p = s32[<=6] parameter(0)
  ROOT s = %s slice(p), slice={[%s]}
})";
  auto run = [&](const std::string& shape, const std::string& range) {
    std::string t = text;
    t.replace(t.find("%s"), 2, shape);
    t.replace(t.find("%s"), 2, range);
    return RunHlo(t, {Lit("s32[3] {1, 2, 3}")});
  };
  // Full slice: runtime size 3 stays.
  absl::StatusOr<EvalResult> r = run("s32[<=6]", "0:6");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[3] {1, 2, 3}"));
  // [1:5] into a dynamic result: positions 1, 2 are valid (min(5, 3) = 3).
  r = run("s32[<=4]", "1:5");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[2] {2, 3}"));
  // Stride 2 over [0:6]: positions 0 and 2 are below the size 3.
  r = run("s32[<=3]", "0:6:2");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[2] {1, 3}"));
  // [1:5] into a static result: elements 2 and 3 read padding (positions
  // 3 and 4) and are marked.
  r = run("s32[4]", "1:5");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(DontCare(*r), ElementsAre(false, false, true, true));
  EXPECT_THAT(r->outputs[0].impl_ids, ElementsAre("impl.dynamic.1"));
  // [0:2] stays inside the valid elements: nothing marked.
  r = run("s32[2]", "0:2");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("s32[2] {1, 2}"));
  EXPECT_FALSE(r->outputs[0].dont_care.has_value());
}

TEST(DynamicConcatenate, ValidPartsAreContiguous) {
  // {1, 2} (size 2 of 4) then {7} (size 1 of 3): {1, 2, 7}, size 3 of 7.
  absl::StatusOr<EvalResult> r =
      RunHlo(R"(HloModule m
ENTRY e {
  a = s32[<=4] parameter(0)
  b = s32[<=3] parameter(1)
  ROOT c = s32[<=7] concatenate(a, b), dimensions={0}
})",
             {Lit("s32[2] {1, 2}"), Lit("s32[1] {7}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->value.dynamic_sizes(), ElementsAre(3));
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[3] {1, 2, 7}"));
  // Along the other dimension of matrices with a dynamic row count.
  r = RunHlo(R"(HloModule m
ENTRY e {
  a = s32[<=3,1] parameter(0)
  b = s32[<=3,2] parameter(1)
  ROOT c = s32[<=3,3] concatenate(a, b), dimensions={1}
})",
             {Lit("s32[2,1] {{1}, {2}}"), Lit("s32[2,2] {{3, 4}, {5, 6}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[2,3] {{1, 3, 4}, {2, 5, 6}}"));
}

TEST(DynamicShapeOps, BroadcastTransposeReshape) {
  // broadcast {1, 2} (size 2 of 3) to [2, <=3] along dimension 1.
  absl::StatusOr<EvalResult> r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[<=3] parameter(0)
  ROOT b = s32[2,<=3] broadcast(p), dimensions={1}
})",
                                        {Lit("s32[2] {1, 2}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->value.dynamic_sizes(), ElementsAre(2, 2));
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[2,2] {{1, 2}, {1, 2}}"));
  // transpose [<=3, 2] (2 valid rows) to [2, <=3].
  r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[<=3,2] parameter(0)
  ROOT t = s32[2,<=3] transpose(p), dimensions={1,0}
})",
             {Lit("s32[2,2] {{1, 2}, {3, 4}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->value.dynamic_sizes(), ElementsAre(2, 2));
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[2,2] {{1, 3}, {2, 4}}"));
  // reshape [<=4, 3] with 2 valid rows to [<=12]: the 6 valid elements.
  r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[<=4,3] parameter(0)
  ROOT t = s32[<=12] reshape(p)
})",
             {Lit("s32[2,3] {{1, 2, 3}, {4, 5, 6}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[6] {1, 2, 3, 4, 5, 6}"));
  // reshape [<=6] with 4 valid to [<=3, 2]: 2 rows.
  r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[<=6] parameter(0)
  ROOT t = s32[<=3,2] reshape(p)
})",
             {Lit("s32[4] {1, 2, 3, 4}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[2,2] {{1, 2}, {3, 4}}"));
  // 3 valid elements do not fill rows of 2: OutOfRange.
  r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[<=6] parameter(0)
  ROOT t = s32[<=3,2] reshape(p)
})",
             {Lit("s32[3] {1, 2, 3}")});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
}

TEST(DynamicReshape, SizesFromOperands) {
  // 6 valid elements of [<=9] to runtime sizes (2, 3) of [<=3, <=3] (the
  // bounds hold 9 elements on both sides, dynamic-reshape.C5).
  absl::StatusOr<EvalResult> r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[<=9] parameter(0)
  d0 = s32[] constant(2)
  d1 = s32[] constant(3)
  ROOT t = s32[<=3,<=3] dynamic-reshape(p, d0, d1)
})",
                                        {Lit("s32[6] {1, 2, 3, 4, 5, 6}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->value.dynamic_sizes(), ElementsAre(2, 3));
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"));
  EXPECT_THAT(DontCare(*r), ElementsAre(false, false, false, false, false,
                                        false, true, true, true));
  // A padded operand reshapes its valid elements: 4 of [<=6] to (2, 2) of
  // [<=3, 2].
  r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[<=6] parameter(0)
  d0 = s32[] constant(2)
  ROOT t = s32[<=3,2] dynamic-reshape(p, d0, d0)
})",
             {Lit("s32[4] {4, 3, 2, 1}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[2,2] {{4, 3}, {2, 1}}"));
  // Sizes holding another element count: OutOfRange.
  r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[<=9] parameter(0)
  d0 = s32[] constant(2)
  ROOT t = s32[<=3,<=3] dynamic-reshape(p, d0, d0)
})",
             {Lit("s32[6] {1, 2, 3, 4, 5, 6}")});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("impl.dynamic.3"));
}

TEST(DynamicGate, OpsWithoutRuntimeSizeSupportAreUnimplemented) {
  absl::StatusOr<EvalResult> r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[<=4] parameter(0)
  ROOT v = s32[<=4] reverse(p), dimensions={0}
})",
                                        {Lit("s32[2] {1, 2}")});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("reverse"));
  // The same op on a dynamic value without padding is evaluated.
  r = RunHlo(R"(HloModule m
ENTRY e {
  p = s32[<=2] parameter(0)
  ROOT v = s32[<=2] reverse(p), dimensions={0}
})",
             {Lit("s32[2] {1, 2}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[2] {2, 1}"));
}

TEST(DynamicControlFlow, WhileCarriesRuntimeSizes) {
  // Doubles the valid elements three times; the size (2) is carried.
  absl::StatusOr<EvalResult> r = RunHlo(R"(HloModule m
cond {
  t = (s32[], s32[<=4]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  three = s32[] constant(3)
  ROOT c = pred[] compare(i, three), direction=LT
}
body {
  t = (s32[], s32[<=4]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  v = s32[<=4] get-tuple-element(t), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = s32[<=4] add(v, v)
  ROOT n = (s32[], s32[<=4]) tuple(j, w)
}
ENTRY e {
  p = s32[<=4] parameter(0)
  z = s32[] constant(0)
  t = (s32[], s32[<=4]) tuple(z, p)
  w = (s32[], s32[<=4]) while(t), condition=cond, body=body
  ROOT v = s32[<=4] get-tuple-element(w), index=1
})",
                                        {Lit("s32[2] {1, 3}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.ToStatic(), Lit("s32[2] {8, 24}"));
}

}  // namespace
}  // namespace hloref
