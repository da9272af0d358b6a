// Bounded dynamic shapes on the CPU backend (backends/codegen/
// dynamic_shapes.h): runtime sizes and the valid elements of each rule,
// derived by hand in each test from the interpreter's rules as
// interpreter/dynamic_sizes.h and its family files state them (never by
// running the oracle). Arguments carry garbage (99, 98, ...) in their
// padding, so a result that reads padding where it must not shows it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/cpu/cpu_test_util.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::cpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// `full` is the whole bounds' literal (padding included, row-major); the
// result has shape `bounded` and runtime sizes `sizes`.
Literal Padded(absl::string_view full, absl::string_view bounded,
               std::vector<int64_t> sizes) {
  absl::StatusOr<Literal> lit = ParseLiteral(full);
  EXPECT_TRUE(lit.ok()) << lit.status();
  absl::StatusOr<Shape> shape = ParseShape(bounded);
  EXPECT_TRUE(shape.ok()) << shape.status();
  absl::StatusOr<Literal> b = Literal::ToBoundedDynamic(*lit, *shape);
  EXPECT_TRUE(b.ok()) << b.status();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (shape->is_dynamic_dimension(d)) b->SetDynamicSize(d, sizes[d]);
  }
  return *std::move(b);
}

// The valid elements of an f32 result (row-major over its runtime
// sizes).
std::vector<float> Valid(const Literal& lit) {
  Literal s = lit.ToStatic();
  return std::vector<float>(s.data<float>().begin(), s.data<float>().end());
}

std::vector<int64_t> Sizes(const Literal& lit) {
  return std::vector<int64_t>(lit.dynamic_sizes().begin(),
                              lit.dynamic_sizes().end());
}

absl::StatusOr<std::vector<Literal>> RunCpu(absl::string_view text,
                                            std::vector<Literal> args,
                                            bool fuse = true) {
  CpuBackendOptions options;
  options.fuse_elementwise = fuse;
  options.compile_cache = false;
  options.threads = 1;
  return CompileAndRun(text, std::move(args), options);
}

// f32[<=4,3] with runtime sizes (2,3): rows {1,2,3},{4,5,6} valid, rows 2
// and 3 padding holding 99.
Literal TwoRows() {
  return Padded("f32[4,3] {{1,2,3},{4,5,6},{99,99,99},{99,99,99}}",
                "f32[<=4,3]", {2, 3});
}

TEST(DynamicShapes, TransposeCarriesTheSizeToItsNewPosition) {
  // Result dimension i has operand dimension permutation[i]'s size:
  // (3,2); the valid part is the transpose of the two rows.
  for (bool fuse : {true, false}) {
    auto out = RunCpu(R"(
HloModule m
ENTRY e {
  p = f32[<=4,3] parameter(0)
  ROOT t = f32[3,<=4] transpose(p), dimensions={1,0}
})",
                      {TwoRows()}, fuse);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(Sizes((*out)[0]), ElementsAre(3, 2));
    EXPECT_THAT(Valid((*out)[0]), ElementsAre(1, 4, 2, 5, 3, 6));
  }
}

TEST(DynamicShapes, StaticArgumentWithinTheBoundsIsAccepted) {
  // As the oracle: f32[2,3] for f32[<=4,3] becomes runtime sizes (2,3);
  // f32[5,3] is above the bound and refused with the reason.
  constexpr absl::string_view kText = R"(
HloModule m
ENTRY e {
  p = f32[<=4,3] parameter(0)
  ROOT t = f32[3,<=4] transpose(p), dimensions={1,0}
})";
  auto out = RunCpu(kText, {*ParseLiteral("f32[2,3] {{1,2,3},{4,5,6}}")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(3, 2));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(1, 4, 2, 5, 3, 6));
  auto big = RunCpu(
      kText,
      {*ParseLiteral("f32[5,3] {{1,2,3},{4,5,6},{7,8,9},{1,1,1},{2,2,2}}")});
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(big.status().message(), HasSubstr("above its bound 4"));
}

TEST(DynamicShapes, BroadcastKeepsTheOperandsSize) {
  // Operand dimension 0 (bound 4, size 2) maps to result dimension 1 of
  // bound 4: size 2; the added dimension 0 is full (2).
  auto out = RunCpu(R"(
HloModule m
ENTRY e {
  p = f32[<=4] parameter(0)
  ROOT b = f32[2,<=4] broadcast(p), dimensions={1}
})",
                    {Padded("f32[4] {7,8,99,98}", "f32[<=4]", {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(2, 2));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(7, 8, 7, 8));
}

TEST(DynamicShapes, SliceCountsStridedPositionsBelowTheSize) {
  // f32[<=7] of size 5 {0..4}: [1:7:2] picks positions 1,3 below 5 (5 is
  // padding): size 2, {1,3}. A full slice [0:7:1] keeps size 5.
  auto out = RunCpu(R"(
HloModule m
ENTRY e {
  p = f32[<=7] parameter(0)
  s = f32[<=3] slice(p), slice={[1:7:2]}
  f = f32[<=7] slice(p), slice={[0:7:1]}
  ROOT t = (f32[<=3], f32[<=7]) tuple(s, f)
})",
                    {Padded("f32[7] {0,1,2,3,4,99,98}", "f32[<=7]", {5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(2));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(1, 3));
  EXPECT_THAT(Sizes((*out)[1]), ElementsAre(5));
  EXPECT_THAT(Valid((*out)[1]), ElementsAre(0, 1, 2, 3, 4));
}

TEST(DynamicShapes, ReshapeOfPaddedValueMovesTheValidElements) {
  // The 6 valid elements row-major into f32[<=12]: size 6 = 6 / 1, values
  // 1..6, the padding of the result zero (as the oracle's PlaceReshaped).
  for (bool fuse : {true, false}) {
    auto out = RunCpu(R"(
HloModule m
ENTRY e {
  p = f32[<=4,3] parameter(0)
  ROOT r = f32[<=12] reshape(p)
})",
                      {TwoRows()}, fuse);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(Sizes((*out)[0]), ElementsAre(6));
    EXPECT_THAT((*out)[0].data<float>(),
                ElementsAre(1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0));
  }
}

TEST(DynamicShapes, ReshapeIntoTwoDynamicDimensionsKeepsThemOneToOne) {
  // f32[<=4,1,<=3] sizes (2,1,2) -> f32[<=4,<=3]: bounds correspond (4,3),
  // sizes carry over (2,2); the valid elements {1,2},{4,5} row-major.
  auto out = RunCpu(R"(
HloModule m
ENTRY e {
  p = f32[<=4,1,<=3] parameter(0)
  ROOT r = f32[<=4,<=3] reshape(p)
})",
                    {Padded("f32[4,1,3] {{{1,2,97}},{{4,5,96}},{{99,99,99}},"
                            "{{98,98,98}}}",
                            "f32[<=4,1,<=3]", {2, 1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(2, 2));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(1, 2, 4, 5));
}

TEST(DynamicShapes, ReshapeWhoseRowsDoNotDivideIsOutOfRange) {
  // 2 valid elements into f32[<=2,3]: rows of 3 do not divide 2
  // (impl.dynamic.3: OutOfRange, as the oracle).
  auto out = RunCpu(R"(
HloModule m
ENTRY e {
  p = f32[<=6] parameter(0)
  ROOT r = f32[<=2,3] reshape(p)
})",
                    {Padded("f32[6] {1,2,99,99,99,99}", "f32[<=6]", {2})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange) << out.status();
}

TEST(DynamicShapes, ReshapeWithoutPaddingIsTheStaticReshape) {
  // Runtime size = bound: no padding, the bytes carry over, sizes full.
  auto out = RunCpu(R"(
HloModule m
ENTRY e {
  p = f32[<=2,2] parameter(0)
  ROOT r = f32[<=4] reshape(p)
})",
                    {Padded("f32[2,2] {{1,2},{3,4}}", "f32[<=2,2]", {2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(4));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(1, 2, 3, 4));
}

TEST(DynamicShapes, ConcatenatePlacesValidBoxesOneAfterAnother) {
  // {1,2} (size 2 of 4) ++ {3} (size 1 of 3) ++ static {5,6}: size 5,
  // {1,2,3,5,6}, then zero padding.
  auto out = RunCpu(R"(
HloModule m
ENTRY e {
  a = f32[<=4] parameter(0)
  b = f32[<=3] parameter(1)
  c = f32[2] parameter(2)
  ROOT k = f32[<=9] concatenate(a, b, c), dimensions={0}
})",
                    {Padded("f32[4] {1,2,99,98}", "f32[<=4]", {2}),
                     Padded("f32[3] {3,97,96}", "f32[<=3]", {1}),
                     *ParseLiteral("f32[2] {5,6}")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(5));
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(1, 2, 3, 5, 6, 0, 0, 0, 0));
}

TEST(DynamicShapes, ConcatenateOperandsDisagreeingInAnotherDimension) {
  // Dimension 0 (not concatenated): sizes 2 and 1 differ (impl.dynamic.2,
  // OutOfRange).
  auto out = RunCpu(R"(
HloModule m
ENTRY e {
  a = f32[<=2,1] parameter(0)
  b = f32[<=2,1] parameter(1)
  ROOT k = f32[<=2,2] concatenate(a, b), dimensions={1}
})",
                    {Padded("f32[2,1] {{1},{2}}", "f32[<=2,1]", {2, 1}),
                     Padded("f32[2,1] {{3},{99}}", "f32[<=2,1]", {1, 1})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange) << out.status();
}

TEST(DynamicShapes, ElementwiseOperandsMustAgreeOnTheRuntimeSize) {
  // add of sizes 2 and 3 in the same dynamic dimension: OutOfRange
  // (impl.dynamic.2); equal sizes give that size and the sums.
  const char* kText = R"(
HloModule m
ENTRY e {
  a = f32[<=4] parameter(0)
  b = f32[<=4] parameter(1)
  ROOT s = f32[<=4] add(a, b)
})";
  auto bad = RunCpu(kText, {Padded("f32[4] {1,2,99,99}", "f32[<=4]", {2}),
                            Padded("f32[4] {1,2,3,99}", "f32[<=4]", {3})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kOutOfRange) << bad.status();
  auto good = RunCpu(kText, {Padded("f32[4] {1,2,99,99}", "f32[<=4]", {2}),
                             Padded("f32[4] {10,20,98,98}", "f32[<=4]", {2})});
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_THAT(Sizes((*good)[0]), ElementsAre(2));
  EXPECT_THAT(Valid((*good)[0]), ElementsAre(11, 22));
}

TEST(DynamicShapes, MapAndCopyKeepTheSizes) {
  // map(x, x) with multiply: squares of the valid {3,4}; copy keeps size 2.
  auto out = RunCpu(R"(
HloModule m
mul {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] multiply(x, y)
}
ENTRY e {
  p = f32[<=5] parameter(0)
  m = f32[<=5] map(p, p), dimensions={0}, to_apply=mul
  c = f32[<=5] copy(p)
  ROOT t = (f32[<=5], f32[<=5]) tuple(m, c)
})",
                    {Padded("f32[5] {3,4,99,99,99}", "f32[<=5]", {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(2));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(9, 16));
  EXPECT_THAT(Sizes((*out)[1]), ElementsAre(2));
  EXPECT_THAT(Valid((*out)[1]), ElementsAre(3, 4));
}

TEST(DynamicShapes, ReduceLeavesPaddedOutputsZero) {
  // Reduce dimension 1 of f32[<=4,3] sizes (2,3) into a STATIC f32[4]:
  // rows 0 and 1 sum to 6 and 15; outputs 2 and 3 are padded kept
  // positions, left zero as the oracle does (not 99*3).
  auto out = RunCpu(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}
ENTRY e {
  p = f32[<=4,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(p, z), dimensions={1}, to_apply=add
})",
                    {TwoRows()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(6, 15, 0, 0));
}

TEST(DynamicShapes, OtherOpsRefusePaddingAtRunTime) {
  // reverse does not honour runtime sizes: with padding the run fails
  // with Unimplemented (the oracle's verdict); without padding it is the
  // static reverse and the result's dynamic dimension is full.
  const char* kText = R"(
HloModule m
ENTRY e {
  p = f32[<=3] parameter(0)
  ROOT r = f32[<=3] reverse(p), dimensions={0}
})";
  auto padded = RunCpu(kText, {Padded("f32[3] {1,2,99}", "f32[<=3]", {2})});
  ASSERT_FALSE(padded.ok());
  EXPECT_EQ(padded.status().code(), absl::StatusCode::kUnimplemented)
      << padded.status();
  EXPECT_THAT(std::string(padded.status().message()),
              HasSubstr("not evaluated on padded dynamic values"));
  auto full = RunCpu(kText, {Padded("f32[3] {1,2,3}", "f32[<=3]", {3})});
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_THAT(Sizes((*full)[0]), ElementsAre(3));
  EXPECT_THAT(Valid((*full)[0]), ElementsAre(3, 2, 1));
}

TEST(DynamicShapes, DotOnUnpaddedDynamicOperands) {
  // {1,2} . {3,4} = 11; a padded operand is refused at run time.
  const char* kText = R"(
HloModule m
ENTRY e {
  a = f32[<=2] parameter(0)
  b = f32[<=2] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})";
  auto out = RunCpu(kText, {Padded("f32[2] {1,2}", "f32[<=2]", {2}),
                            Padded("f32[2] {3,4}", "f32[<=2]", {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(11));
  auto bad = RunCpu(kText, {Padded("f32[2] {1,2}", "f32[<=2]", {1}),
                            Padded("f32[2] {3,4}", "f32[<=2]", {2})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(DynamicShapes, BitcastOfDynamicValueIsUnimplementedAtRunTime) {
  // The oracle never evaluates a bitcast of a dynamic shape (it depends on
  // how a backend stores padding): the run fails with Unimplemented even
  // without padding.
  auto out = RunCpu(R"(
HloModule m
ENTRY e {
  p = f32[<=2] parameter(0)
  ROOT b = f32[2] bitcast(p)
})",
                    {Padded("f32[2] {1,2}", "f32[<=2]", {2})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(DynamicShapes, SetDimensionSizeOutOfRangeIsOutOfRange) {
  auto out =
      RunCpu(R"(
HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  n = s32[] parameter(1)
  ROOT s = f32[<=3] set-dimension-size(p, n), dimensions={0}
})",
             {*ParseLiteral("f32[3] {1,2,3}"), *ParseLiteral("s32[] 4")});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
}

TEST(DynamicShapes, DynamicConstantCarriesItsSizes) {
  // The text format gives a constant of f32[<=4] all four elements (its
  // runtime size is the bound, 4). Added to a parameter of size 4: the
  // sums, size 4; to one of size 2: the sizes differ (impl.dynamic.2,
  // OutOfRange).
  const char* kText = R"(
HloModule m
ENTRY e {
  c = f32[<=4] constant({5, 6, 7, 8})
  p = f32[<=4] parameter(0)
  ROOT s = f32[<=4] add(c, p)
})";
  auto out = RunCpu(kText, {Padded("f32[4] {1,2,3,4}", "f32[<=4]", {4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(4));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(6, 8, 10, 12));
  auto bad = RunCpu(kText, {Padded("f32[4] {1,2,99,99}", "f32[<=4]", {2})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kOutOfRange);
}

TEST(DynamicShapes, FusionAndWhilePassSizesThrough) {
  // A fusion computing negate(transpose(x)) on sizes (2,3) -> (3,2), and a
  // while loop that adds the value to itself twice ({1,2} -> {4,8}).
  auto out = RunCpu(R"(
HloModule m
fused {
  x = f32[<=4,3] parameter(0)
  t = f32[3,<=4] transpose(x), dimensions={1,0}
  ROOT n = f32[3,<=4] negate(t)
}
cond {
  s = (s32[], f32[<=4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(i, two), direction=LT
}
body {
  s = (s32[], f32[<=4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[<=4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[<=4] add(v, v)
  ROOT r = (s32[], f32[<=4]) tuple(j, w)
}
ENTRY e {
  p = f32[<=4,3] parameter(0)
  q = f32[<=4] parameter(1)
  f = f32[3,<=4] fusion(p), kind=kLoop, calls=fused
  zero = s32[] constant(0)
  init = (s32[], f32[<=4]) tuple(zero, q)
  loop = (s32[], f32[<=4]) while(init), condition=cond, body=body
  out = f32[<=4] get-tuple-element(loop), index=1
  ROOT t = (f32[3,<=4], f32[<=4]) tuple(f, out)
})",
                    {TwoRows(), Padded("f32[4] {1,2,99,99}", "f32[<=4]", {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(3, 2));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(-1, -4, -2, -5, -3, -6));
  EXPECT_THAT(Sizes((*out)[1]), ElementsAre(2));
  EXPECT_THAT(Valid((*out)[1]), ElementsAre(4, 8));
}

}  // namespace
}  // namespace hloref::cpu
