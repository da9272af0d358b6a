// The reduce family and batch norm on the CPU backend: modules parsed from
// text, compiled, run, and compared with values derived by hand (each test
// says how). Reducers are f32 add (and constant predicates for
// select-and-scatter's tie order), so the expected values are exact sums.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_test_util.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::cpu {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

Literal F32(std::vector<float> v) {
  return Literal::CreateR1<float>(PrimitiveType::kF32, v);
}
Literal F32(std::vector<int64_t> dims, std::vector<float> v) {
  return Literal::CreateFromValues<float>(PrimitiveType::kF32, dims, v);
}
Literal F32Scalar(float v) {
  return Literal::CreateR0<float>(PrimitiveType::kF32, v);
}
std::vector<float> Values(const Literal& l) {
  auto d = l.data<float>();
  return std::vector<float>(d.begin(), d.end());
}

constexpr char kAdd[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

std::string Module(absl::string_view body) {
  return absl::StrCat("HloModule m\n", kAdd, body);
}

TEST(Reduce, RowsColumnsAndAllWithColumnMajorOperand) {
  // x = [[1,2,3],[4,5,6]] (column-major buffer), init 10:
  // rows 10+1+2+3 = 16, 10+4+5+6 = 25; columns 10+1+4 = 15, 17, 19;
  // all 10+21 = 31.
  auto out = CompileAndRun(Module(R"(
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  i = f32[] parameter(1)
  r = f32[2] reduce(x, i), dimensions={1}, to_apply=add
  c = f32[3]{0} reduce(x, i), dimensions={0}, to_apply=add
  a = f32[] reduce(x, i), dimensions={0,1}, to_apply=add
  ROOT t = (f32[2], f32[3], f32[]) tuple(r, c, a)
})"),
                           {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32Scalar(10)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_THAT(Values((*out)[0]), ElementsAre(16, 25));
  EXPECT_THAT(Values((*out)[1]), ElementsAre(15, 17, 19));
  EXPECT_THAT(Values((*out)[2]), ElementsAre(31));
}

TEST(Reduce, ZeroSizeReducedDimensionGivesInitAndRank0IsOneFold) {
  // Nothing to fold: init 7 everywhere. Rank 0 with no reduced
  // dimensions: add(init 1, x 2) = 3.
  auto out = CompileAndRun(Module(R"(
ENTRY e {
  x = f32[2,0] parameter(0)
  i = f32[] parameter(1)
  s = f32[] parameter(2)
  one = f32[] constant(1)
  r = f32[2] reduce(x, i), dimensions={1}, to_apply=add
  z = f32[] reduce(s, one), dimensions={}, to_apply=add
  ROOT t = (f32[2], f32[]) tuple(r, z)
})"),
                           {F32({2, 0}, {}), F32Scalar(7), F32Scalar(2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[0]), ElementsAre(7, 7));
  EXPECT_THAT(Values((*out)[1]), ElementsAre(3));
}

TEST(Reduce, LargeSizes) {
  // 1..n summed along the rows of a [3, n] operand (n = 127, 257): row k
  // holds k*1000 + j, j = 1..n, so the sum is k*1000*n + n(n+1)/2, exact
  // in f32 (< 2^24).
  for (int64_t n : {1, 17, 127, 257}) {
    std::vector<float> x;
    for (int64_t k = 0; k < 3; ++k) {
      for (int64_t j = 1; j <= n; ++j) x.push_back(k * 1000 + j);
    }
    auto out = CompileAndRun(Module(absl::StrCat(R"(
ENTRY e {
  x = f32[3,)",
                                                 n, R"(] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3] reduce(x, z), dimensions={1}, to_apply=add
})")),
                             {F32({3, n}, x)});
    ASSERT_TRUE(out.ok()) << out.status();
    const float t = n * (n + 1) / 2;
    EXPECT_THAT(Values((*out)[0]), ElementsAre(t, 1000 * n + t, 2000 * n + t))
        << "n = " << n;
  }
}

TEST(Reduce, LargeOutputsRunAcrossThreads) {
  // 300 x 257 elements (more than the parallel threshold, so the loop nest
  // is outlined and split): x[k][j] = j, so every row sums to
  // 256 * 257 / 2 = 32896 and every column to 300 j (column-major operand,
  // reduced along dimension 0). Also s32 maximum of x[k][j] = k - j along
  // the rows: k (at j = 0).
  std::vector<float> x;
  std::vector<int32_t> xi;
  for (int64_t k = 0; k < 300; ++k) {
    for (int64_t j = 0; j < 257; ++j) {
      x.push_back(j);
      xi.push_back(static_cast<int32_t>(k - j));
    }
  }
  auto out = CompileAndRun(
      R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] maximum(a, b)
}
ENTRY e {
  x = f32[300,257]{0,1} parameter(0)
  y = s32[300,257] parameter(1)
  z = f32[] constant(0)
  lo = s32[] constant(-2147483648)
  r = f32[300] reduce(x, z), dimensions={1}, to_apply=add
  c = f32[257] reduce(x, z), dimensions={0}, to_apply=add
  m = s32[300] reduce(y, lo), dimensions={1}, to_apply=max
  ROOT t = (f32[300], f32[257], s32[300]) tuple(r, c, m)
})",
      {F32({300, 257}, x), Literal::CreateFromValues<int32_t>(
                               PrimitiveType::kS32, {300, 257}, xi)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  for (float v : Values((*out)[0])) ASSERT_EQ(v, 32896);
  std::vector<float> cols = Values((*out)[1]);
  for (int64_t j = 0; j < 257; ++j) ASSERT_EQ(cols[j], 300 * j) << j;
  auto m = (*out)[2].data<int32_t>();
  for (int64_t k = 0; k < 300; ++k) ASSERT_EQ(m[k], k) << k;
}

TEST(Reduce, VariadicTuple) {
  // Two sums at once: 0+1+2+3 = 6 and 100+10+20+30 = 160.
  auto out = CompileAndRun(R"(
HloModule m
add2 {
  a0 = f32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = f32[] parameter(3)
  s0 = f32[] add(a0, b0)
  s1 = f32[] add(a1, b1)
  ROOT t = (f32[], f32[]) tuple(s0, s1)
}
ENTRY e {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  z = f32[] constant(0)
  h = f32[] constant(100)
  ROOT r = (f32[], f32[]) reduce(x, y, z, h), dimensions={0}, to_apply=add2
})",
                           {F32({1, 2, 3}), F32({10, 20, 30})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_THAT(Values((*out)[0]), ElementsAre(6));
  EXPECT_THAT(Values((*out)[1]), ElementsAre(160));
}

TEST(ReduceWindow, PaddingStrideAndDilations) {
  // x = [1,2,3,4,5].
  // size 3, stride 2, pad 1_1, init 0: windows at -1..1, 1..3, 3..5 ->
  //   1+2 = 3, 2+3+4 = 9, 4+5 = 9; padding is skipped, so init 100 is
  //   added once: 103, 109, 109.
  // size 2, rhs_dilate 2: x0+x2 = 4, x1+x3 = 6, x2+x4 = 8.
  // y = [1,2,3] with lhs_dilate 2 is [1,_,2,_,3]; size 2 windows:
  //   1, 2, 2, 3.
  auto out = CompileAndRun(Module(R"(
ENTRY e {
  x = f32[5] parameter(0)
  y = f32[3] parameter(1)
  z = f32[] constant(0)
  h = f32[] constant(100)
  a = f32[3] reduce-window(x, z), window={size=3 stride=2 pad=1_1}, to_apply=add
  b = f32[3] reduce-window(x, h), window={size=3 stride=2 pad=1_1}, to_apply=add
  c = f32[3] reduce-window(x, z), window={size=2 rhs_dilate=2}, to_apply=add
  d = f32[4] reduce-window(y, z), window={size=2 lhs_dilate=2}, to_apply=add
  ROOT t = (f32[3], f32[3], f32[3], f32[4]) tuple(a, b, c, d)
})"),
                           {F32({1, 2, 3, 4, 5}), F32({1, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 4u);
  EXPECT_THAT(Values((*out)[0]), ElementsAre(3, 9, 9));
  EXPECT_THAT(Values((*out)[1]), ElementsAre(103, 109, 109));
  EXPECT_THAT(Values((*out)[2]), ElementsAre(4, 6, 8));
  EXPECT_THAT(Values((*out)[3]), ElementsAre(1, 2, 2, 3));
}

TEST(ReduceWindow, TwoDimensionsColumnMajorAndVariadic) {
  // [[1,2,3],[4,5,6]] 2x2 windows: 1+2+4+5 = 12, 2+3+5+6 = 16.
  // Variadic on [1,2,3] and [10,20,30], size 2: (3, 5) and (30, 50).
  auto out = CompileAndRun(
      R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add2 {
  a0 = f32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = f32[] parameter(3)
  s0 = f32[] add(a0, b0)
  s1 = f32[] add(a1, b1)
  ROOT t = (f32[], f32[]) tuple(s0, s1)
}
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  u = f32[3] parameter(1)
  v = f32[3] parameter(2)
  z = f32[] constant(0)
  a = f32[1,2]{0,1} reduce-window(x, z), window={size=2x2}, to_apply=add
  b = (f32[2], f32[2]) reduce-window(u, v, z, z), window={size=2}, to_apply=add2
  b0 = f32[2] get-tuple-element(b), index=0
  b1 = f32[2] get-tuple-element(b), index=1
  ROOT t = (f32[1,2]{0,1}, f32[2], f32[2]) tuple(a, b0, b1)
})",
      {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({1, 2, 3}), F32({10, 20, 30})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_THAT(Values((*out)[0]), ElementsAre(12, 16));
  EXPECT_THAT(Values((*out)[1]), ElementsAre(3, 5));
  EXPECT_THAT(Values((*out)[2]), ElementsAre(30, 50));
}

std::string SelectAndScatter(bool keep, absl::string_view operand,
                             absl::string_view source,
                             absl::string_view window) {
  return absl::StrCat("HloModule m\n", kAdd, R"(
sel {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT k = pred[] constant()",
                      keep ? "true" : "false", R"()
}
ENTRY e {
  x = )",
                      operand, R"( parameter(0)
  s = )",
                      source, R"( parameter(1)
  i = f32[] parameter(2)
  ROOT r = )",
                      operand, R"( select-and-scatter(x, s, i), window={)",
                      window, R"(}, select=sel, scatter=add
})");
}

TEST(SelectAndScatter, TieOrderPaddingAndAccumulation) {
  // select always true keeps the first in-bounds position of each window,
  // always false moves to the last one.
  struct Case {
    bool keep;
    const char* operand;
    const char* source;
    const char* window;
    std::vector<float> x, s;
    float init;
    std::vector<float> want;
  };
  const Case cases[] = {
      // Windows {0,1}, {2,3}: first -> 0, 2; last -> 1, 3.
      {true,
       "f32[4]",
       "f32[2]",
       "size=2 stride=2",
       {1, 2, 3, 4},
       {10, 20},
       0,
       {10, 0, 20, 0}},
      {false,
       "f32[4]",
       "f32[2]",
       "size=2 stride=2",
       {1, 2, 3, 4},
       {10, 20},
       0,
       {0, 10, 0, 20}},
      // pad 1_0, size 3, stride 2: windows {-1,0,1} and {1,2,3}: first ->
      // 0 and 1; last -> 1 and 3.
      {true,
       "f32[4]",
       "f32[2]",
       "size=3 stride=2 pad=1_0",
       {1, 2, 3, 4},
       {10, 20},
       0,
       {10, 20, 0, 0}},
      {false,
       "f32[4]",
       "f32[2]",
       "size=3 stride=2 pad=1_0",
       {1, 2, 3, 4},
       {10, 20},
       0,
       {0, 10, 0, 20}},
      // Both windows {-1,0,1} and {0,1,2} select 0 first: init 5 + 10 + 20
      // = 35 there, 5 elsewhere.
      {true,
       "f32[2]",
       "f32[2]",
       "size=3 stride=1 pad=1_1",
       {1, 2},
       {10, 20},
       5,
       {35, 5}},
      // A window entirely on padding (pad 3_0, size 2: {-3,-2}) scatters
      // nothing; the next {-1,0} selects 0: [20, 0].
      {true,
       "f32[2]",
       "f32[2]",
       "size=2 stride=2 pad=3_0",
       {1, 2},
       {10, 20},
       0,
       {20, 0}},
  };
  for (const Case& c : cases) {
    auto out =
        CompileAndRun(SelectAndScatter(c.keep, c.operand, c.source, c.window),
                      {F32(c.x), F32(c.s), F32Scalar(c.init)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(Values((*out)[0]), ElementsAreArray(c.want))
        << c.window << " keep " << c.keep;
  }
}

TEST(Map, AddsColumnMajorOperands) {
  // [[1,2],[3,4]] + [[10,20],[30,40]] with mixed layouts.
  auto out =
      CompileAndRun(Module(R"(
ENTRY e {
  x = f32[2,2]{0,1} parameter(0)
  y = f32[2,2] parameter(1)
  ROOT m = f32[2,2] map(x, y), dimensions={0,1}, to_apply=add
})"),
                    {F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {10, 20, 30, 40})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[0]), ElementsAre(11, 22, 33, 44));
}

constexpr char kCum[] = R"(
cum {
  x = f32[2] parameter(0)
  c = f32[2] parameter(1)
  a = f32[2] add(x, c)
  ROOT t = (f32[2], f32[2]) tuple(a, a)
}
)";

TEST(Scan, CumulativeSumOfRowsForwardAndReverse) {
  // x = [[1,2],[3,4],[5,6]] scanned along dimension 0 with carry [0, 0]:
  // forward rows [1,2], [4,6], [9,12], carry [9,12]; reverse rows
  // [9,12], [8,10], [5,6], carry [9,12].
  for (bool reverse : {false, true}) {
    auto out =
        CompileAndRun(absl::StrCat("HloModule m\n", kCum, R"(
ENTRY e {
  x = f32[3,2]{0,1} parameter(0)
  z = f32[2] parameter(1)
  ROOT r = (f32[3,2], f32[2]) scan(x, z), dimensions={0}, num_carries=1, is_reverse=)",
                                   reverse ? "true" : "false", R"(, to_apply=cum
})"),
                      {F32({3, 2}, {1, 2, 3, 4, 5, 6}), F32({0, 0})});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    if (reverse) {
      EXPECT_THAT(Values((*out)[0]), ElementsAre(9, 12, 8, 10, 5, 6));
    } else {
      EXPECT_THAT(Values((*out)[0]), ElementsAre(1, 2, 4, 6, 9, 12));
    }
    EXPECT_THAT(Values((*out)[1]), ElementsAre(9, 12));
  }
}

TEST(Scan, ZeroLengthKeepsTheInit) {
  auto out = CompileAndRun(absl::StrCat("HloModule m\n", kCum, R"(
ENTRY e {
  x = f32[0,2] parameter(0)
  z = f32[2] parameter(1)
  ROOT r = (f32[0,2], f32[2]) scan(x, z), dimensions={0}, num_carries=1, to_apply=cum
})"),
                           {F32({0, 2}, {}), F32({7, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[1]), ElementsAre(7, 8));
}

TEST(BatchNorm, TrainingInferenceGrad) {
  // Training on x = [[1,2],[3,6]] (features along dimension 1, eps 0):
  // feature 0 {1,3}: mean 2, var 1; feature 1 {2,6}: mean 4, var 4;
  // y = (x - mean) / sqrt(var) = [[-1,-1],[1,1]]; scale 1, offset 0.
  // Inference with mean [2,4], var [1,4], scale [2,1], offset [0,10]:
  // [[-2, 9],[2, 11]].
  // Grad on x = [0,3,6] (one feature, dimension 1 of [3,1]), scale 3,
  // mean 3, var 6, eps 3 (so var + eps = 9, r = 3), dy = [1,0,0]:
  // sdy = 1, p = 1 * (0 - 3) = -3, c = p / (N (var + eps)) = -1/9,
  // d = 1/3, factor = scale / r = 1: dx = [1 - 1/3 - 1/3, -1/3, -1/3 + 1/3]
  // = [1/3, -1/3, 0]; grad_scale = p / r = -1, grad_offset = 1.
  auto out = CompileAndRun(R"(
HloModule m
ENTRY e {
  x = f32[2,2] parameter(0)
  one = f32[2] constant({1, 1})
  zero = f32[2] constant({0, 0})
  t = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, one, zero), epsilon=0, feature_index=1
  t0 = f32[2,2] get-tuple-element(t), index=0
  t1 = f32[2] get-tuple-element(t), index=1
  t2 = f32[2] get-tuple-element(t), index=2
  sc = f32[2] constant({2, 1})
  of = f32[2] constant({0, 10})
  mu = f32[2] constant({2, 4})
  va = f32[2] constant({1, 4})
  i = f32[2,2]{0,1} batch-norm-inference(x, sc, of, mu, va), epsilon=0, feature_index=1
  gx = f32[3,1] parameter(1)
  gdy = f32[3,1] parameter(2)
  g3 = f32[1] constant({3})
  g6 = f32[1] constant({6})
  g = (f32[3,1], f32[1], f32[1]) batch-norm-grad(gx, g3, g3, g6, gdy), epsilon=3, feature_index=1
  g0 = f32[3,1] get-tuple-element(g), index=0
  g1 = f32[1] get-tuple-element(g), index=1
  g2 = f32[1] get-tuple-element(g), index=2
  ROOT r = (f32[2,2], f32[2], f32[2], f32[2,2]{0,1}, f32[3,1], f32[1], f32[1]) tuple(t0, t1, t2, i, g0, g1, g2)
})",
                           {F32({2, 2}, {1, 2, 3, 6}), F32({3, 1}, {0, 3, 6}),
                            F32({3, 1}, {1, 0, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 7u);
  EXPECT_THAT(Values((*out)[0]), ElementsAre(-1, -1, 1, 1));
  EXPECT_THAT(Values((*out)[1]), ElementsAre(2, 4));
  EXPECT_THAT(Values((*out)[2]), ElementsAre(1, 4));
  EXPECT_THAT(Values((*out)[3]), ElementsAre(-2, 9, 2, 11));
  // 1/3 rounded once to f32.
  const float third = static_cast<float>(1.0 / 3.0);
  EXPECT_THAT(Values((*out)[4]), ElementsAre(third, -third, 0));
  EXPECT_THAT(Values((*out)[5]), ElementsAre(-1));
  EXPECT_THAT(Values((*out)[6]), ElementsAre(1));
}

}  // namespace
}  // namespace hloref::cpu
