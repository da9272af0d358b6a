// The reduce family and batch norm on the CPU backend: modules parsed from
// text, compiled, run, and compared with values derived by hand (each test
// says how). Reducers are f32 add (and constant predicates for
// select-and-scatter's tie order), so the expected values are exact sums.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
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

// The XLA-style argmax reducer over (f32 value, s32 index): the larger
// value, ties to the smaller index.
constexpr char kArgmaxF32[] = R"(
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  pick = pred[] or(gt, tie)
  v = f32[] select(pick, av, bv)
  i = s32[] select(pick, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
)";

// The bf16 maximum / minimum reducers (maxb, minb) of the bf16 tests.
constexpr char kBf16MaxMin[] = R"(
maxb {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] maximum(a, b)
}
minb {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] minimum(a, b)
}
)";

std::string Module(absl::string_view body) {
  return absl::StrCat("HloModule m\n", kAdd, body);
}

// f32 `max` (maximum) and `add` reducers, then `body`.
std::string MaxAddModule(absl::string_view body) {
  return absl::StrCat(R"(HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
)",
                      kAdd, body);
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

// ---- the vector kernels (reduction.cc "Vector kernels")

// Deterministic pseudo-random floats in [-1, 1) (an LCG; the values are
// inputs only, never expected values).
std::vector<float> RandomFloats(int64_t n, uint64_t seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<int64_t>(seed >> 40) - (1 << 23)) /
        (1 << 23);
  }
  return v;
}

// The documented row-reduction tree of an f32 add, restated independently
// in plain C++ (float arithmetic, no LLVM): 4 accumulators of 16 lanes from
// -0, element p of the row to accumulator (p / 16) % 4 in chunks of 64,
// then the remaining whole vectors to accumulators 0, 1, ... and the last
// R % 16 elements to accumulator 0; (a0 + a1) + (a2 + a3), lanes added in
// halves (i + w/2 into i), then init + total.
float DocumentedRowSum(const float* row, int64_t r, float init) {
  float acc[4][16];
  for (auto& a : acc) {
    for (float& l : a) l = -0.0f;
  }
  int64_t p = 0;
  for (; p + 64 <= r; p += 64) {
    for (int k = 0; k < 4; ++k) {
      for (int l = 0; l < 16; ++l) acc[k][l] += row[p + 16 * k + l];
    }
  }
  for (int k = 0; p + 16 <= r; ++k, p += 16) {
    for (int l = 0; l < 16; ++l) acc[k][l] += row[p + l];
  }
  for (int l = 0; p + l < r; ++l) acc[0][l] += row[p + l];
  float v[16];
  for (int l = 0; l < 16; ++l) {
    v[l] = (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l]);
  }
  for (int w = 16; w > 1; w /= 2) {
    for (int l = 0; l < w / 2; ++l) v[l] = v[l] + v[l + w / 2];
  }
  return init + v[0];
}

TEST(VectorReduce, RowSumFollowsTheDocumentedTreeAtEveryThreadCount) {
  // Random f32 rows of odd lengths: the compiled row sums must equal the
  // documented tree bit for bit, with 1 and 2 threads, and the column sums
  // (no reassociation) the sequential fold init + x0 + x1 + ... .
  for (int64_t r : {9, 17, 63, 65, 100, 1031}) {
    const int64_t rows = 70;
    std::vector<float> x = RandomFloats(rows * r, r);
    const std::string text = Module(absl::StrCat(
        "ENTRY e {\n  x = f32[", rows, ",", r,
        "] parameter(0)\n  z = f32[] constant(0.25)\n  s = f32[", rows,
        "] reduce(x, z), dimensions={1}, to_apply=add\n  c = f32[", r,
        "] reduce(x, z), dimensions={0}, to_apply=add\n  ROOT t = (f32[", rows,
        "], f32[", r, "]) tuple(s, c)\n}\n"));
    for (int threads : {1, 2}) {
      CpuBackendOptions options;
      options.threads = threads;
      auto out = CompileAndRun(text, {F32({rows, r}, x)}, options);
      ASSERT_TRUE(out.ok()) << out.status();
      std::vector<float> s = Values((*out)[0]);
      std::vector<float> c = Values((*out)[1]);
      for (int64_t i = 0; i < rows; ++i) {
        ASSERT_EQ(s[i], DocumentedRowSum(&x[i * r], r, 0.25f))
            << "r = " << r << " row " << i << " threads " << threads;
      }
      for (int64_t j = 0; j < r; ++j) {
        float want = 0.25f;
        for (int64_t i = 0; i < rows; ++i) want += x[i * r + j];
        ASSERT_EQ(c[j], want) << "r = " << r << " column " << j;
      }
    }
  }
}

TEST(VectorReduce, MultiDimensionalAndColumnMajor) {
  // x[a][b][c] = a + 2b + 3c (small integers: every order is exact), shape
  // [5, 7, 131] with a column-major layout {0,1,2} (dimension 0 minor):
  // sums over {0, 2} (a row reduction: the physical minor dimension 0 is
  // reduced) and over {1} (a column reduction). By hand:
  //   sum over a, c of (a + 2b + 3c) = 131*10 + 5*131*2b + 5*3*(130*131/2)
  //   sum over b of (a + 2b + 3c) = 7a + 2*21 + 7*3c.
  std::vector<float> x;
  for (int64_t a = 0; a < 5; ++a) {
    for (int64_t b = 0; b < 7; ++b) {
      for (int64_t c = 0; c < 131; ++c) x.push_back(a + 2 * b + 3 * c);
    }
  }
  auto out = CompileAndRun(Module(R"(
ENTRY e {
  x = f32[5,7,131]{0,1,2} parameter(0)
  z = f32[] constant(0)
  r = f32[7] reduce(x, z), dimensions={0,2}, to_apply=add
  c = f32[5,131] reduce(x, z), dimensions={1}, to_apply=add
  ROOT t = (f32[7], f32[5,131]) tuple(r, c)
})"),
                           {F32({5, 7, 131}, x)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> r = Values((*out)[0]);
  for (int64_t b = 0; b < 7; ++b) {
    EXPECT_EQ(r[b], 131 * 10 + 5 * 131 * 2 * b + 15 * (130 * 131 / 2)) << b;
  }
  std::vector<float> c = Values((*out)[1]);
  for (int64_t a = 0; a < 5; ++a) {
    for (int64_t k = 0; k < 131; ++k) {
      ASSERT_EQ(c[a * 131 + k], 7 * a + 42 + 21 * k) << a << "," << k;
    }
  }
}

TEST(VectorReduce, MaxPropagatesNaNInEveryLaneAndTail) {
  // f32 [3, 37]: row 0 all finite (max 36 at j = 36, in the scalar tail of
  // the 16-lane vectors), row 1 a NaN at j = 35 (tail lane), row 2 a NaN
  // at j = 3; column j of a [37, 40] operand holds a NaN at row j when j is
  // odd. max over rows and columns: NaN wherever a NaN is reduced.
  std::vector<float> x(3 * 37);
  for (int64_t j = 0; j < 37; ++j) {
    x[j] = j - 18.5f + (j == 36 ? 18.5f : 0);  // max 36 at the end
    x[37 + j] = j;
    x[74 + j] = -j;
  }
  x[37 + 35] = NAN;
  x[74 + 3] = NAN;
  std::vector<float> y(37 * 40);
  for (int64_t i = 0; i < 37; ++i) {
    for (int64_t j = 0; j < 40; ++j) {
      y[i * 40 + j] = (j % 2 == 1 && i == j % 37) ? NAN : i - j;
    }
  }
  auto out = CompileAndRun(R"(
HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[3,37] parameter(0)
  y = f32[37,40] parameter(1)
  lo = f32[] constant(-inf)
  r = f32[3] reduce(x, lo), dimensions={1}, to_apply=max
  c = f32[40] reduce(y, lo), dimensions={0}, to_apply=max
  ROOT t = (f32[3], f32[40]) tuple(r, c)
})",
                           {F32({3, 37}, x), F32({37, 40}, y)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> r = Values((*out)[0]);
  EXPECT_EQ(r[0], 36);
  EXPECT_TRUE(std::isnan(r[1]));
  EXPECT_TRUE(std::isnan(r[2]));
  std::vector<float> c = Values((*out)[1]);
  for (int64_t j = 0; j < 40; ++j) {
    // Without a NaN, column j's maximum is 36 - j (row 36).
    if (j % 2 == 1) {
      EXPECT_TRUE(std::isnan(c[j])) << j;
    } else {
      EXPECT_EQ(c[j], 36 - j) << j;
    }
  }
}

TEST(VectorReduce, NonAssociativeReducerKeepsTheSequentialOrder) {
  // f(acc, x) = 2 * acc + x on s32 is neither associative nor commutative:
  // its fold is Horner's rule, init * 2^n + sum x_i 2^(n-1-i) (mod 2^32).
  // Column reductions apply it lane-wise in the oracle's order; row
  // reductions must not reassociate it. Expected values by Horner's rule
  // in uint32 arithmetic.
  const int64_t n = 45, m = 70;
  std::vector<int32_t> x(n * m);
  for (int64_t i = 0; i < n * m; ++i) x[i] = static_cast<int32_t>(i % 7) - 3;
  auto out = CompileAndRun(
      R"(
HloModule m
horner {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  two = s32[] constant(2)
  d = s32[] multiply(a, two)
  ROOT s = s32[] add(d, b)
}
ENTRY e {
  x = s32[45,70] parameter(0)
  z = s32[] constant(1)
  r = s32[45] reduce(x, z), dimensions={1}, to_apply=horner
  c = s32[70] reduce(x, z), dimensions={0}, to_apply=horner
  ROOT t = (s32[45], s32[70]) tuple(r, c)
})",
      {Literal::CreateFromValues<int32_t>(PrimitiveType::kS32, {n, m}, x)});
  ASSERT_TRUE(out.ok()) << out.status();
  auto r = (*out)[0].data<int32_t>();
  auto c = (*out)[1].data<int32_t>();
  for (int64_t i = 0; i < n; ++i) {
    uint32_t h = 1;
    for (int64_t j = 0; j < m; ++j)
      h = 2 * h + static_cast<uint32_t>(x[i * m + j]);
    ASSERT_EQ(static_cast<uint32_t>(r[i]), h) << "row " << i;
  }
  for (int64_t j = 0; j < m; ++j) {
    uint32_t h = 1;
    for (int64_t i = 0; i < n; ++i)
      h = 2 * h + static_cast<uint32_t>(x[i * m + j]);
    ASSERT_EQ(static_cast<uint32_t>(c[j]), h) << "column " << j;
  }
}

TEST(VectorReduce, IntegerWrapPredAndBf16) {
  // s8 add over 1000 elements of 100: 100000 mod 256 = 160 -> -96 as s8.
  // u8 max of (j * 37) mod 256 over j < 300: 255 (j = 7*... any); checked
  // against a plain loop. pred or / and over 200 lanes with one true / one
  // false at j = 199 (the tail). bf16 add of 0/1 values (every partial sum
  // <= 256 is exact in bf16): the count of ones; bf16 max of -j: 0.
  std::vector<int8_t> s8(1000, 100);
  std::vector<uint8_t> u8(300);
  uint8_t umax = 0;
  for (int64_t j = 0; j < 300; ++j) {
    u8[j] = static_cast<uint8_t>((j * 37 + 11) % 251);
    umax = std::max(umax, u8[j]);
  }
  std::vector<bool> ors(200, false), ands(200, true);
  ors[199] = true;
  ands[199] = false;
  Literal p_or(Shape(PrimitiveType::kPred, {200}));
  Literal p_and(Shape(PrimitiveType::kPred, {200}));
  for (int64_t j = 0; j < 200; ++j) {
    p_or.SetRawBits(j, ors[j]);
    p_and.SetRawBits(j, ands[j]);
  }
  Literal b16(Shape(PrimitiveType::kBF16, {2, 250}));
  int64_t ones = 0;
  for (int64_t j = 0; j < 250; ++j) {
    const bool one = (j * 7) % 3 == 0;
    ones += one;
    b16.SetRawBits(j, one ? 0x3f80 : 0);  // 1.0 or +0
    // -j in bf16 (exact for j < 256): sign, exponent, 7 fraction bits.
    float v = -static_cast<float>(j);
    uint32_t u;
    std::memcpy(&u, &v, 4);
    b16.SetRawBits(250 + j, u >> 16);
  }
  auto out = CompileAndRun(
      R"(
HloModule m
adds8 {
  a = s8[] parameter(0)
  b = s8[] parameter(1)
  ROOT s = s8[] add(a, b)
}
maxu8 {
  a = u8[] parameter(0)
  b = u8[] parameter(1)
  ROOT s = u8[] maximum(a, b)
}
orp {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT s = pred[] or(a, b)
}
andp {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT s = pred[] and(a, b)
}
addb {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
maxb {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] maximum(a, b)
}
ENTRY e {
  x = s8[1000] parameter(0)
  y = u8[300] parameter(1)
  p = pred[200] parameter(2)
  q = pred[200] parameter(3)
  w = bf16[2,250] parameter(4)
  z8 = s8[] constant(0)
  zu = u8[] constant(0)
  f = pred[] constant(false)
  t = pred[] constant(true)
  zb = bf16[] constant(-0)
  lb = bf16[] constant(-inf)
  a = s8[] reduce(x, z8), dimensions={0}, to_apply=adds8
  m = u8[] reduce(y, zu), dimensions={0}, to_apply=maxu8
  o = pred[] reduce(p, f), dimensions={0}, to_apply=orp
  n = pred[] reduce(q, t), dimensions={0}, to_apply=andp
  sl = bf16[1,250] slice(w), slice={[0:1], [0:250]}
  sm = bf16[1,250] slice(w), slice={[1:2], [0:250]}
  bs = bf16[1] reduce(sl, zb), dimensions={1}, to_apply=addb
  bm = bf16[1] reduce(sm, lb), dimensions={1}, to_apply=maxb
  ROOT r = (s8[], u8[], pred[], pred[], bf16[1], bf16[1]) tuple(a, m, o, n, bs, bm)
})",
      {Literal::CreateFromValues<int8_t>(PrimitiveType::kS8, {1000}, s8),
       Literal::CreateFromValues<uint8_t>(PrimitiveType::kU8, {300}, u8),
       std::move(p_or), std::move(p_and), std::move(b16)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 6u);
  EXPECT_EQ((*out)[0].data<int8_t>()[0], -96);
  EXPECT_EQ((*out)[1].data<uint8_t>()[0], umax);
  EXPECT_EQ((*out)[2].GetRawBits(0), 1u);
  EXPECT_EQ((*out)[3].GetRawBits(0), 0u);
  float want = static_cast<float>(ones);
  uint32_t wu;
  std::memcpy(&wu, &want, 4);
  EXPECT_EQ((*out)[4].GetRawBits(0), wu >> 16) << ones;
  EXPECT_EQ((*out)[5].GetRawBits(0) & 0x7fff, 0u);  // a zero, either sign
}

// The bf16 bit pattern of a float that is a bf16 number (high half).
uint32_t Bf16Bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u >> 16;
}
float FromBf16Bits(uint32_t bits) {
  const uint32_t u = bits << 16;
  float v;
  std::memcpy(&v, &u, 4);
  return v;
}

TEST(VectorReduce, Bf16PairsMaxMinSumAndNaNAtEvenOddAndTail) {
  // bf16 [6, 203] rows (203 = one 128-element chunk of the paired kernel,
  // two 32-element steps and an 11-element tail). Values v(i, j) = ((j *
  // 37 + i * 11) % 101) - 50 (small integers: exact in bf16 and every sum
  // exact in f32), then: row 1 a NaN at j = 2 (even lane), row 2 a NaN at
  // j = 197 (odd, in the tail), row 3 a negative NaN (0xffc1) at j = 63
  // (odd, last lane of a step), row 4 +inf at j = 100, row 5 the maximum
  // 99 at j = 201 (tail) and the minimum -99 at j = 1 (odd). Expected by
  // plain loops (max/min: NaN when the row holds one); the f32 sums of
  // convert(x) (the bf16 pairs path of an f32 reduce) likewise exact.
  const int64_t rows = 6, cols = 203;
  Literal x(Shape(PrimitiveType::kBF16, {rows, cols}));
  std::vector<float> v(rows * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      v[i * cols + j] = static_cast<float>((j * 37 + i * 11) % 101) - 50;
    }
  }
  v[4 * cols + 100] = INFINITY;
  v[5 * cols + 201] = 99;
  v[5 * cols + 1] = -99;
  for (int64_t k = 0; k < rows * cols; ++k) x.SetRawBits(k, Bf16Bits(v[k]));
  x.SetRawBits(1 * cols + 2, 0x7fc0);
  x.SetRawBits(2 * cols + 197, 0x7f81);  // a signalling-pattern NaN
  x.SetRawBits(3 * cols + 63, 0xffc1);
  const std::vector<bool> has_nan = {false, true, true, true, false, false};
  auto out = CompileAndRun(absl::StrCat("HloModule m\n", kBf16MaxMin, R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = bf16[6,203] parameter(0)
  lo = bf16[] constant(-inf)
  hi = bf16[] constant(inf)
  z = f32[] constant(0)
  mx = bf16[6] reduce(x, lo), dimensions={1}, to_apply=maxb
  mn = bf16[6] reduce(x, hi), dimensions={1}, to_apply=minb
  xf = f32[6,203] convert(x)
  s = f32[6] reduce(xf, z), dimensions={1}, to_apply=add
  ROOT t = (bf16[6], bf16[6], f32[6]) tuple(mx, mn, s)
})"),
                           {std::move(x)});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < rows; ++i) {
    float mx = -INFINITY, mn = INFINITY, sum = 0;
    for (int64_t j = 0; j < cols; ++j) {
      mx = std::max(mx, v[i * cols + j]);
      mn = std::min(mn, v[i * cols + j]);
      sum += v[i * cols + j];
    }
    const float got_mx = FromBf16Bits((*out)[0].GetRawBits(i));
    const float got_mn = FromBf16Bits((*out)[1].GetRawBits(i));
    if (has_nan[i]) {
      EXPECT_TRUE(std::isnan(got_mx)) << i;
      EXPECT_TRUE(std::isnan(got_mn)) << i;
      EXPECT_TRUE(std::isnan((*out)[2].data<float>()[i])) << i;
    } else {
      EXPECT_EQ(got_mx, mx) << i;
      EXPECT_EQ(got_mn, mn) << i;
      EXPECT_EQ((*out)[2].data<float>()[i], sum) << i;
    }
  }
  EXPECT_EQ(FromBf16Bits((*out)[0].GetRawBits(4)), INFINITY);
  EXPECT_EQ(FromBf16Bits((*out)[0].GetRawBits(5)), 99);
  EXPECT_EQ(FromBf16Bits((*out)[1].GetRawBits(5)), -99);
}

TEST(VectorReduce, Bf16PairsMaxMinOrderNegativesZerosAndExtremes) {
  // The paired bf16 max / min fold the 16-bit patterns as integer keys
  // (reduction.cc): rows that exercise the key order where it differs from
  // the patterns' own: all-negative values (larger patterns are smaller
  // numbers), -inf alone, zeros of both signs with negatives, the largest
  // finite bf16 (0x7f7f) next to +inf's neighbourhood, bf16 subnormals
  // (0x0001, 0x8001) around zero, and the most negative finite (0xff7f).
  // Rows of 75 elements (two 32-element steps and an 11-element tail);
  // pattern of row i at column j given below, expected max / min by plain
  // loops over the decoded floats; a zero result may have either sign
  // (numerics.md: reduce with max / min), so zeros compare as values.
  const int64_t rows = 6, cols = 75;
  auto pattern = [](int64_t i, int64_t j) -> uint32_t {
    switch (i) {
      case 0:  // -1 .. -75: -(j + 1)
        return Bf16Bits(-static_cast<float>(j + 1));
      case 1:  // all -inf
        return 0xff80;
      case 2:  // -0, +0 and negatives; the maximum is a zero
        return j % 3 == 0 ? 0x8000 : (j % 3 == 1 ? 0x0000 : Bf16Bits(-2.5f));
      case 3:  // the largest finite at j = 70 (tail), else small values
        return j == 70 ? 0x7f7f : Bf16Bits(static_cast<float>(j % 7));
      case 4:  // subnormals of both signs and zeros
        return j % 4 == 0 ? 0x0001 : (j % 4 == 1 ? 0x8001 : 0x8000);
      default:  // the most negative finite at j = 33 (odd lane), else 1
        return j == 33 ? 0xff7f : Bf16Bits(1.0f);
    }
  };
  Literal x(Shape(PrimitiveType::kBF16, {rows, cols}));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j)
      x.SetRawBits(i * cols + j, pattern(i, j));
  }
  auto out = CompileAndRun(absl::StrCat("HloModule m\n", kBf16MaxMin, R"(
ENTRY e {
  x = bf16[6,75] parameter(0)
  lo = bf16[] constant(-inf)
  hi = bf16[] constant(inf)
  mx = bf16[6] reduce(x, lo), dimensions={1}, to_apply=maxb
  mn = bf16[6] reduce(x, hi), dimensions={1}, to_apply=minb
  ROOT t = (bf16[6], bf16[6]) tuple(mx, mn)
})"),
                           {std::move(x)});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < rows; ++i) {
    float mx = -INFINITY, mn = INFINITY;
    for (int64_t j = 0; j < cols; ++j) {
      const float v = FromBf16Bits(pattern(i, j));
      mx = std::max(mx, v);
      mn = std::min(mn, v);
    }
    EXPECT_EQ(FromBf16Bits((*out)[0].GetRawBits(i)), mx) << "max row " << i;
    EXPECT_EQ(FromBf16Bits((*out)[1].GetRawBits(i)), mn) << "min row " << i;
  }
  // By hand: row 0 max -1, min -75; row 1 -inf both; row 3 max 0x7f7f;
  // row 4 max the subnormal 0x0001, min 0x8001; row 5 min 0xff7f.
  EXPECT_EQ(FromBf16Bits((*out)[0].GetRawBits(0)), -1.0f);
  EXPECT_EQ(FromBf16Bits((*out)[1].GetRawBits(0)), -75.0f);
  EXPECT_EQ((*out)[0].GetRawBits(1), 0xff80u);
  EXPECT_EQ((*out)[1].GetRawBits(1), 0xff80u);
  EXPECT_EQ((*out)[0].GetRawBits(3), 0x7f7fu);
  EXPECT_EQ((*out)[0].GetRawBits(4), 0x0001u);
  EXPECT_EQ((*out)[1].GetRawBits(4), 0x8001u);
  EXPECT_EQ((*out)[1].GetRawBits(5), 0xff7fu);
}

TEST(VectorReduce, Bf16ColumnMaxMinFoldPatternsWithNaNsZerosAndExtremes) {
  // bf16 column max / min fold the 16-bit patterns as integer keys
  // (reduction.cc, ColumnKeys). [13, 75]: 13 rows (one group of the 8-row
  // unroll and 5 more), 75 columns (two 32-lane groups and an 11-column
  // tail). Column j's class is j % 8 (below): orders where the patterns'
  // order differs from the values', NaNs of both signs in various rows,
  // zeros of both signs, subnormals and the finite extremes. Max with init
  // -inf and with init 2 (not the identity), min with init +inf; expected
  // by plain loops over the decoded floats, a NaN when any element is one;
  // a zero result may have either sign (numerics.md), so zeros compare as
  // values. Then [300, 3001] (two column blocks of 2048, a partial last
  // vector) of patterns spread over the whole encoding, a few NaNs, at 1,
  // 2 and 3 threads (blocks cut to the threads' chunks).
  auto pattern = [](int64_t i, int64_t j) -> uint32_t {
    switch (j % 8) {
      case 0:  // negatives only
        return Bf16Bits(-static_cast<float>(i + 1 + j));
      case 1:  // -inf only
        return 0xff80;
      case 2:  // -0, +0 and negatives: the maximum is a zero
        return i % 3 == 0 ? 0x8000 : (i % 3 == 1 ? 0x0000 : Bf16Bits(-2.5f));
      case 3:  // the largest finite in row 12 (after the unrolled rows)
        return i == 12 ? 0x7f7f : Bf16Bits(static_cast<float>(i % 7));
      case 4:  // subnormals of both signs and -0
        return i % 4 == 0 ? 0x0001 : (i % 4 == 1 ? 0x8001 : 0x8000);
      case 5:  // the most negative finite in row 3, else 1
        return i == 3 ? 0xff7f : Bf16Bits(1.0f);
      case 6:  // a positive NaN in row j % 13
        return i == j % 13 ? 0x7fc1 : Bf16Bits(static_cast<float>(i) - 6);
      default:  // a negative NaN in row 3 j % 13
        return i == (3 * j) % 13 ? 0xffc0 : Bf16Bits(-static_cast<float>(i));
    }
  };
  constexpr char kEntry[] = R"(
ENTRY e {
  x = bf16[ROWS,COLS] parameter(0)
  lo = bf16[] constant(-inf)
  hi = bf16[] constant(inf)
  two = bf16[] constant(2)
  mx = bf16[COLS] reduce(x, lo), dimensions={0}, to_apply=maxb
  m2 = bf16[COLS] reduce(x, two), dimensions={0}, to_apply=maxb
  mn = bf16[COLS] reduce(x, hi), dimensions={0}, to_apply=minb
  ROOT t = (bf16[COLS], bf16[COLS], bf16[COLS]) tuple(mx, m2, mn)
})";
  auto check = [&](int64_t rows, int64_t cols, auto&& bits, int threads) {
    Literal x(Shape(PrimitiveType::kBF16, {rows, cols}));
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) x.SetRawBits(i * cols + j, bits(i, j));
    }
    CpuBackendOptions options;
    options.threads = threads;
    auto out = CompileAndRun(
        absl::StrCat(
            "HloModule m\n", kBf16MaxMin,
            absl::StrReplaceAll(kEntry, {{"ROWS", absl::StrCat(rows)},
                                         {"COLS", absl::StrCat(cols)}})),
        {std::move(x)}, options);
    ASSERT_TRUE(out.ok()) << out.status();
    for (int64_t j = 0; j < cols; ++j) {
      float mx = -INFINITY, m2 = 2.0f, mn = INFINITY;
      bool nan = false;
      for (int64_t i = 0; i < rows; ++i) {
        const float v = FromBf16Bits(bits(i, j));
        nan |= std::isnan(v);
        mx = std::max(mx, v);
        m2 = std::max(m2, v);
        mn = std::min(mn, v);
      }
      const float got[3] = {FromBf16Bits((*out)[0].GetRawBits(j)),
                            FromBf16Bits((*out)[1].GetRawBits(j)),
                            FromBf16Bits((*out)[2].GetRawBits(j))};
      const float want[3] = {mx, m2, mn};
      for (int r = 0; r < 3; ++r) {
        if (nan) {
          ASSERT_TRUE(std::isnan(got[r])) << r << " column " << j;
        } else {
          ASSERT_EQ(got[r], want[r])
              << r << " column " << j << " threads " << threads;
        }
      }
    }
  };
  check(13, 75, pattern, 1);
  // Spread patterns: every 16-bit value reachable; NaNs (0x7f81..0x7fff,
  // 0xff81..0xffff) kept one time in five (the others made finite), so
  // about a fifth of the columns hold one.
  auto spread = [](int64_t i, int64_t j) -> uint32_t {
    uint32_t h = static_cast<uint32_t>(i * 3001 + j) * 2654435761u;
    h ^= h >> 15;
    uint32_t p = h & 0xffff;
    if ((p & 0x7fff) > 0x7f80 && (h >> 16) % 5 != 0) p &= 0xbfff;
    return p;
  };
  for (int threads : {1, 2, 3}) check(300, 3001, spread, threads);
}

TEST(VectorReduce, ColumnMaxSumUnrolledRowsWithNaNInEachRowPhase) {
  // f32 [rows, 40] for rows 1..9 (row counts around the 4-row unroll of
  // the column kernel): column j holds a NaN at row j % rows when j % 5 ==
  // 0, else x(i, j) = (i * 13 + j * 7) % 29 - 14 (small integers: sums
  // exact in any order). Column max / sum expected by plain loops.
  for (int64_t rows = 1; rows <= 9; ++rows) {
    std::vector<float> x(rows * 40);
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < 40; ++j) {
        x[i * 40 + j] = (j % 5 == 0 && i == j % rows)
                            ? NAN
                            : static_cast<float>((i * 13 + j * 7) % 29) - 14;
      }
    }
    auto out = CompileAndRun(MaxAddModule(absl::StrCat(R"(
ENTRY e {
  x = f32[)",
                                                       rows,
                                                       R"(,40] parameter(0)
  lo = f32[] constant(-inf)
  z = f32[] constant(0)
  c = f32[40] reduce(x, lo), dimensions={0}, to_apply=max
  s = f32[40] reduce(x, z), dimensions={0}, to_apply=add
  ROOT t = (f32[40], f32[40]) tuple(c, s)
})")),
                             {F32({rows, 40}, x)});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int64_t j = 0; j < 40; ++j) {
      float mx = -INFINITY, sum = 0;
      bool nan = false;
      for (int64_t i = 0; i < rows; ++i) {
        nan |= std::isnan(x[i * 40 + j]);
        mx = std::max(mx, x[i * 40 + j]);
        sum += x[i * 40 + j];
      }
      const float c = (*out)[0].data<float>()[j];
      const float s = (*out)[1].data<float>()[j];
      if (nan) {
        EXPECT_TRUE(std::isnan(c)) << rows << " " << j;
        EXPECT_TRUE(std::isnan(s)) << rows << " " << j;
      } else {
        EXPECT_EQ(c, mx) << rows << " " << j;
        EXPECT_EQ(s, sum) << rows << " " << j;
      }
    }
  }
}

TEST(VectorReduce, ColumnBlocksFollowTheThreadsChunks) {
  // f32 [300, 1001] (large enough for a parallel loop nest; 1001 columns:
  // chunks of 1001 / 3 are not lane-aligned and the row ends in a partial
  // vector). x(i, j) = (i * 7 + j * 13) % 23 - 11: small integers, so
  // sums are exact in any order. Column max and sum (roots: the blocks
  // follow the chunk), the sum squared (a fused consumer at the same
  // index) and the max broadcast to [5, 1001] (the reduce's index is not
  // the parallel loop's: blocks ignore the chunk). Expected from plain
  // loops, at 1, 2 and 3 threads.
  const int64_t rows = 300, cols = 1001;
  std::vector<float> x(rows * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      x[i * cols + j] = static_cast<float>((i * 7 + j * 13) % 23) - 11;
    }
  }
  std::vector<float> mx(cols, -INFINITY), sum(cols, 0.0f);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      mx[j] = std::max(mx[j], x[i * cols + j]);
      sum[j] += x[i * cols + j];
    }
  }
  const std::string text = MaxAddModule(R"(
ENTRY e {
  x = f32[300,1001] parameter(0)
  lo = f32[] constant(-inf)
  z = f32[] constant(0)
  c = f32[1001] reduce(x, lo), dimensions={0}, to_apply=max
  s = f32[1001] reduce(x, z), dimensions={0}, to_apply=add
  sq = f32[1001] multiply(s, s)
  cb = f32[5,1001] broadcast(c), dimensions={1}
  ROOT t = (f32[1001], f32[1001], f32[1001], f32[5,1001]) tuple(c, s, sq, cb)
})");
  for (int threads : {1, 2, 3}) {
    CpuBackendOptions options;
    options.threads = threads;
    auto out = CompileAndRun(text, {F32({rows, cols}, x)}, options);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 4u);
    for (int64_t j = 0; j < cols; ++j) {
      ASSERT_EQ((*out)[0].data<float>()[j], mx[j]) << threads << " " << j;
      ASSERT_EQ((*out)[1].data<float>()[j], sum[j]) << threads << " " << j;
      ASSERT_EQ((*out)[2].data<float>()[j], sum[j] * sum[j])
          << threads << " " << j;
      for (int64_t r = 0; r < 5; ++r) {
        ASSERT_EQ((*out)[3].data<float>()[r * cols + j], mx[j])
            << threads << " " << r << " " << j;
      }
    }
  }
}

TEST(Fusion, SoftmaxRecomputesScaledAndExpForTwoUsers) {
  // softmax(x * 0.5) over rows of f32 [3, 70] with x(i, j) = (i + j) % 7:
  // `scaled` and `e` have two users each (recomputed in both). Expected
  // from std::exp in double (the backend's exp is within a few ulp; the
  // bound here, 1e-6 relative, is far looser than that and far tighter
  // than any wrong element).
  std::vector<float> x(3 * 70);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 70; ++j) x[i * 70 + j] = (i + j) % 7;
  }
  auto out = CompileAndRun(R"(
HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[3,70] parameter(0)
  h = f32[] constant(0.5)
  hb = f32[3,70] broadcast(h), dimensions={}
  scaled = f32[3,70] multiply(x, hb)
  lo = f32[] constant(-inf)
  m = f32[3] reduce(scaled, lo), dimensions={1}, to_apply=max
  mb = f32[3,70] broadcast(m), dimensions={0}
  d = f32[3,70] subtract(scaled, mb)
  e = f32[3,70] exponential(d)
  z = f32[] constant(0)
  s = f32[3] reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[3,70] broadcast(s), dimensions={0}
  ROOT p = f32[3,70] divide(e, sb)
})",
                           {F32({3, 70}, x)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> p = Values((*out)[0]);
  for (int64_t i = 0; i < 3; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < 70; ++j) sum += std::exp(x[i * 70 + j] * 0.5 - 3);
    for (int64_t j = 0; j < 70; ++j) {
      const double want = std::exp(x[i * 70 + j] * 0.5 - 3) / sum;
      EXPECT_NEAR(p[i * 70 + j], want, 1e-6 * want) << i << " " << j;
    }
  }
}

TEST(VectorReduce, FusedProducerFeedsTheReduce) {
  // sum of squares of (x - 1) along rows, the subtract and multiply inlined
  // into the reduce: x[i][j] = j % 5, so each row of 130 holds 26 copies of
  // (-1)^2 + 0 + 1 + 4 + 9 = 15 -> 390 (exact), with fusion and without.
  std::vector<float> x;
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 130; ++j) x.push_back(j % 5);
  }
  const char* text = R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,130] parameter(0)
  one = f32[] constant(1)
  ob = f32[4,130] broadcast(one), dimensions={}
  d = f32[4,130] subtract(x, ob)
  d2 = f32[4,130] multiply(d, d)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(d2, z), dimensions={1}, to_apply=add
})";
  for (bool fuse : {true, false}) {
    CpuBackendOptions options;
    options.fuse_elementwise = fuse;
    auto out = CompileAndRun(text, {F32({4, 130}, x)}, options);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(Values((*out)[0]), ElementsAre(390, 390, 390, 390));
  }
}

TEST(VectorReduce, ArgmaxAndArgminWithTies) {
  // argmax (first index of the largest value) of f32 x[k] = (k * 7919) % 1000
  // over 5003 elements, and argmin of s32 y[k] = (k * 7919) % 997 with
  // int ties, by the XLA-style order-select reducer (ties: smaller index).
  // Expected by plain loops. Rows of a [3, 1000] operand too (row 1: the
  // maximum 999 occurs twice, at 10 and at 900: index 10 wins).
  const int64_t n = 5003;
  std::vector<float> x(n);
  std::vector<int32_t> y(n);
  for (int64_t k = 0; k < n; ++k) {
    x[k] = static_cast<float>((k * 7919) % 1000);
    y[k] = static_cast<int32_t>((k * 7919) % 997);
  }
  int64_t best_x = 0, best_y = 0;
  for (int64_t k = 1; k < n; ++k) {
    if (x[k] > x[best_x]) best_x = k;
    if (y[k] < y[best_y]) best_y = k;
  }
  std::vector<float> m(3 * 1000);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 1000; ++j) m[i * 1000 + j] = (j * 31 + i) % 997;
  }
  m[1000 + 10] = 999;
  m[1000 + 900] = 999;
  std::vector<int32_t> best_m(3, 0);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 1; j < 1000; ++j) {
      if (m[i * 1000 + j] > m[i * 1000 + best_m[i]]) best_m[i] = j;
    }
  }
  auto out = CompileAndRun(
      absl::StrCat(R"(
HloModule m
)",
                   kArgmaxF32, R"(argmin {
  av = s32[] parameter(0)
  ai = s32[] parameter(1)
  bv = s32[] parameter(2)
  bi = s32[] parameter(3)
  lt = pred[] compare(av, bv), direction=LT
  eq = pred[] compare(av, bv), direction=EQ
  il = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, il)
  pick = pred[] or(lt, tie)
  v = s32[] select(pick, av, bv)
  i = s32[] select(pick, ai, bi)
  ROOT t = (s32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[5003] parameter(0)
  y = s32[5003] parameter(1)
  m = f32[3,1000] parameter(2)
  k = s32[5003] iota(), iota_dimension=0
  km = s32[3,1000] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  hi = s32[] constant(2147483647)
  z = s32[] constant(0)
  ax = (f32[], s32[]) reduce(x, k, lo, z), dimensions={0}, to_apply=argmax
  ay = (s32[], s32[]) reduce(y, k, hi, z), dimensions={0}, to_apply=argmin
  am = (f32[3], s32[3]) reduce(m, km, lo, z), dimensions={1}, to_apply=argmax
  ix = s32[] get-tuple-element(ax), index=1
  iy = s32[] get-tuple-element(ay), index=1
  im = s32[3] get-tuple-element(am), index=1
  ROOT t = (s32[], s32[], s32[3]) tuple(ix, iy, im)
})"),
      {F32({n}, x),
       Literal::CreateFromValues<int32_t>(PrimitiveType::kS32, {n}, y),
       F32({3, 1000}, m)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], best_x);
  EXPECT_EQ((*out)[1].data<int32_t>()[0], best_y);
  auto im = (*out)[2].data<int32_t>();
  EXPECT_EQ(best_m[1], 10);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(im[i], best_m[i]) << i;
}

// A variadic reduce reads its inputs through element generators, so its
// element-wise producers are inlined into it (fusion.h) and no buffer is
// written for them: an argmax's iota, a convert from bf16 and a negate.
// Checked on the whole-row kernel (argmin of -x over [3, 517]: whole
// chunks, whole vectors and a tail of 5), the fold over a major dimension
// (argmax over dimension 0 of [37, 5]), an iota also read by an
// element-wise consumer (the root's convert) and a negated input read by
// two reduces. Expected by plain loops over the same values (bf16 values
// v / 8 for small integers v: exact, so the loops' order cannot matter);
// the dump shows no loop nest but the reduces' (a materialised producer
// is a "loop" nest of its own).
TEST(VectorReduce, VariadicReduceInlinesItsInputs) {
  const int64_t rows = 3, cols = 517;
  std::vector<float> x(rows * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      x[i * cols + j] = static_cast<float>((j * 37 + i * 11) % 101) / 8.0f;
    }
  }
  x[1 * cols + 516] = -20.0f;  // row 1's minimum of x in the tail
  x[2 * cols + 3] = -20.0f;    // row 2's: twice, index 3 wins
  x[2 * cols + 400] = -20.0f;
  std::vector<int32_t> want_rows(rows, 0);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 1; j < cols; ++j) {
      if (-x[i * cols + j] > -x[i * cols + want_rows[i]]) want_rows[i] = j;
    }
  }
  std::vector<float> c(37 * 5);
  for (int64_t i = 0; i < 37; ++i) {
    for (int64_t j = 0; j < 5; ++j) c[i * 5 + j] = (i * 13 + j * 7) % 29;
  }
  std::vector<int32_t> want_cols(5, 0);
  for (int64_t j = 0; j < 5; ++j) {
    for (int64_t i = 1; i < 37; ++i) {
      if (-c[i * 5 + j] > -c[want_cols[j] * 5 + j]) want_cols[j] = i;
    }
  }
  std::vector<uint16_t> xb(x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    uint32_t u;
    std::memcpy(&u, &x[k], 4);
    xb[k] = static_cast<uint16_t>(u >> 16);  // exact: x has <= 8 bits
  }
  const std::string dir = ::testing::TempDir() + "/hloref_variadic_inline";
  std::filesystem::remove_all(dir);
  CpuBackendOptions options;
  options.compile_cache = false;
  options.dump_dir = dir;
  auto out = CompileAndRun(absl::StrCat(R"(
HloModule m
)",
                                        kArgmaxF32, R"(ENTRY e {
  xb = bf16[3,517] parameter(0)
  c = f32[37,5] parameter(1)
  xf = f32[3,517] convert(xb)
  nx = f32[3,517] negate(xf)
  k = s32[3,517] iota(), iota_dimension=1
  nc = f32[37,5] negate(c)
  kc = s32[37,5] iota(), iota_dimension=0
  lo = f32[] constant(-inf)
  z = s32[] constant(0)
  r = (f32[3], s32[3]) reduce(nx, k, lo, z), dimensions={1}, to_apply=argmax
  r2 = (f32[3], s32[3]) reduce(nx, k, lo, z), dimensions={1}, to_apply=argmax
  q = (f32[5], s32[5]) reduce(nc, kc, lo, z), dimensions={0}, to_apply=argmax
  ri = s32[3] get-tuple-element(r), index=1
  r2v = f32[3] get-tuple-element(r2), index=0
  qi = s32[5] get-tuple-element(q), index=1
  kf = f32[37,5] convert(kc)
  ROOT t = (s32[3], f32[3], s32[5], f32[37,5]) tuple(ri, r2v, qi, kf)
})"),
                           {Literal::CreateFromValues<uint16_t>(
                                PrimitiveType::kBF16, {rows, cols}, xb),
                            F32({37, 5}, c)},
                           options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(want_rows[1], 516);
  EXPECT_EQ(want_rows[2], 3);
  auto ri = (*out)[0].data<int32_t>();
  auto rv = (*out)[1].data<float>();
  auto qi = (*out)[2].data<int32_t>();
  auto kf = (*out)[3].data<float>();
  for (int64_t i = 0; i < rows; ++i) {
    EXPECT_EQ(ri[i], want_rows[i]) << i;
    EXPECT_EQ(rv[i], -x[i * cols + want_rows[i]]) << i;
  }
  for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(qi[j], want_cols[j]) << j;
  for (int64_t i = 0; i < 37; ++i) {
    for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(kf[i * 5 + j], i);
  }
  const std::string ir = DumpedText(dir, ".ll");
  ASSERT_THAT(ir, ::testing::HasSubstr("vrow.chunk"));
  // The root's convert of kc is the one loop nest besides the reduces'.
  size_t nests = 0;
  for (size_t at = ir.find("\nloop.d0.header"); at != std::string::npos;
       at = ir.find("\nloop.d0.header", at + 1)) {
    ++nests;
  }
  EXPECT_EQ(nests, 1u);
}

TEST(VectorReduce, EveryLaneAndTailElementIsCountedOnce) {
  // A one-hot diagonal over a background of ones: x[i][p] = 1, except
  // x[i][i] = 2 (n x n, n = r). Every row and every column then holds
  // n - 1 ones and one 2, so (by hand; exact in every type used, as
  // n * n + n <= 66306 < 2^24):
  //   row / column sums        n + 1
  //   the sum of everything    n * n + n
  //   row maxima               2, and argmax of row i = i.
  // Row i's 2 sits at position i, so over the rows it visits every lane of
  // every accumulator, every chunk, every whole-vector remainder and every
  // tail position of the row kernels (f32 and s32: 16 lanes, chunks of 64;
  // bf16 through convert (paired kernel): steps of 32, chunks of 128). A
  // dropped element gives n (or n - 1 where the 2 is dropped), an element
  // read twice n + 2 (or n + 3), a dropped lane of the max 1 and of the
  // argmax another index; lane q read in place of lane p shows in row p
  // or row q. Lengths: below one vector, around every chunk and step
  // boundary, and with 0..3 whole vectors after the chunks.
  for (int64_t r :
       {8,  9,   15,  16,  17,  31,  32,  33,  47,  63,  64,  65,  79,
        95, 111, 127, 128, 129, 143, 160, 191, 192, 200, 255, 256, 257}) {
    std::vector<float> xf(r * r, 1.0f);
    std::vector<int32_t> xi(r * r, 1);
    Literal xb(Shape(PrimitiveType::kBF16, {r, r}));
    for (int64_t i = 0; i < r; ++i) {
      xf[i * r + i] = 2.0f;
      xi[i * r + i] = 2;
    }
    for (int64_t k = 0; k < r * r; ++k) {
      xb.SetRawBits(k, Bf16Bits(xf[k]));  // 1 and 2 are bf16 numbers
    }
    const std::string n = absl::StrCat(r);
    const std::string text =
        absl::StrCat(absl::StrCat(R"(
HloModule m
addf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
addi {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
maxf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
)",
                                  kArgmaxF32, R"(ENTRY e {
  x = f32[)"),
                     n, ",", n, R"(] parameter(0)
  y = s32[)",
                     n, ",", n, R"(] parameter(1)
  b = bf16[)",
                     n, ",", n, R"(] parameter(2)
  zf = f32[] constant(0)
  zi = s32[] constant(0)
  lo = f32[] constant(-inf)
  k = s32[)",
                     n, ",", n, R"(] iota(), iota_dimension=1
  rs = f32[)",
                     n, R"(] reduce(x, zf), dimensions={1}, to_apply=addf
  cs = f32[)",
                     n, R"(] reduce(x, zf), dimensions={0}, to_apply=addf
  all = f32[] reduce(x, zf), dimensions={0,1}, to_apply=addf
  ri = s32[)",
                     n, R"(] reduce(y, zi), dimensions={1}, to_apply=addi
  bf = f32[)",
                     n, ",", n, R"(] convert(b)
  rb = f32[)",
                     n, R"(] reduce(bf, zf), dimensions={1}, to_apply=addf
  rm = f32[)",
                     n, R"(] reduce(x, lo), dimensions={1}, to_apply=maxf
  am = (f32[)",
                     n, "], s32[", n,
                     R"(]) reduce(x, k, lo, zi), dimensions={1}, to_apply=argmax
  ai = s32[)",
                     n, R"(] get-tuple-element(am), index=1
  ROOT t = (f32[)",
                     n, "], f32[", n, "], f32[], s32[", n, "], f32[", n,
                     "], f32[", n, "], s32[", n,
                     R"(]) tuple(rs, cs, all, ri, rb, rm, ai)
}
)");
    auto out = CompileAndRun(text, {F32({r, r}, xf),
                                    Literal::CreateFromValues<int32_t>(
                                        PrimitiveType::kS32, {r, r}, xi),
                                    std::move(xb)});
    ASSERT_TRUE(out.ok()) << "R = " << r << ": " << out.status();
    const float want = static_cast<float>(r + 1);
    const std::vector<float> rs = Values((*out)[0]), cs = Values((*out)[1]),
                             rb = Values((*out)[4]), rm = Values((*out)[5]);
    const auto ri = (*out)[3].data<int32_t>();
    const auto ai = (*out)[6].data<int32_t>();
    EXPECT_EQ(Values((*out)[2])[0], static_cast<float>(r * r + r))
        << "R = " << r;
    for (int64_t i = 0; i < r; ++i) {
      ASSERT_EQ(rs[i], want) << "f32 row sum, n = " << r << ", row " << i;
      ASSERT_EQ(cs[i], want) << "f32 column sum, n = " << r << ", column " << i;
      ASSERT_EQ(ri[i], r + 1) << "s32 row sum, n = " << r << ", row " << i;
      ASSERT_EQ(rb[i], want) << "bf16 row sum, n = " << r << ", row " << i;
      ASSERT_EQ(rm[i], 2.0f) << "row max, n = " << r << ", row " << i;
      ASSERT_EQ(ai[i], i) << "argmax, n = " << r << ", row " << i;
    }
  }
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

// Max / min pooling over NHWC [1,6,6,3] f32, against a pool computed here
// by loops over the in-bounds positions (a NaN in a window gives NaN).
// The operand holds distinct non-zero integers, a NaN, +inf and -inf.
// a: 2x2 stride 2 max (every window inside: no bounds test); b: 3x3
// stride 1 pad 1 min (bounds tests); c: 2x2 stride 2 max with H padded
// -1 on both sides (inside again); d: a: with init 5 instead of -inf.
TEST(ReduceWindow, MaxAndMinPoolsPropagateNanInsideAndAcrossPadding) {
  constexpr int64_t kH = 6, kW = 6, kC = 3;
  std::vector<float> x(kH * kW * kC);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>((static_cast<int64_t>(i) * 37) % 101 - 50);
    if (x[i] == 0) x[i] = 7;
  }
  auto at = [&](int64_t h, int64_t w, int64_t c) -> float& {
    return x[(h * kW + w) * kC + c];
  };
  at(1, 1, 0) = NAN;
  at(4, 4, 1) = INFINITY;
  at(0, 5, 2) = -INFINITY;
  at(5, 0, 1) = NAN;
  // The pool of window size kw x kw, stride st, padding lo / hi on H and
  // pw on W (both sides), init, max or min, over the in-bounds positions.
  auto pool = [&](int64_t kw, int64_t st, int64_t lo, int64_t hi, int64_t pw,
                  float init, bool max) {
    const int64_t oh = (kH + lo + hi - kw) / st + 1;
    const int64_t ow = (kW + 2 * pw - kw) / st + 1;
    std::vector<float> out;
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        for (int64_t c = 0; c < kC; ++c) {
          float r = init;
          for (int64_t u = 0; u < kw; ++u) {
            for (int64_t v = 0; v < kw; ++v) {
              const int64_t h = i * st + u - lo, w = j * st + v - pw;
              if (h < 0 || h >= kH || w < 0 || w >= kW) continue;
              const float e = at(h, w, c);
              if (std::isnan(e) || std::isnan(r)) {
                r = NAN;
              } else {
                r = max ? std::max(r, e) : std::min(r, e);
              }
            }
          }
          out.push_back(r);
        }
      }
    }
    return out;
  };
  auto expect_pool = [](const Literal& got, const std::vector<float>& want,
                        const std::string& what) {
    const std::vector<float> g = Values(got);
    ASSERT_EQ(g.size(), want.size()) << what;
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(g[i])) << what << " at " << i << ": " << g[i];
      } else {
        EXPECT_EQ(g[i], want[i]) << what << " at " << i;
      }
    }
  };
  // The reducers: f32 maximum, and minimum with its operands swapped.
  const std::string reducers = R"(
HloModule m
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
mn {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] minimum(b, a)
}
)";
  const std::string pools = reducers + R"(
ENTRY e {
  x = f32[1,6,6,3] parameter(0)
  ninf = f32[] constant(-inf)
  pinf = f32[] constant(inf)
  five = f32[] constant(5)
  a = f32[1,3,3,3] reduce-window(x, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=mx
  b = f32[1,6,6,3] reduce-window(x, pinf), window={size=1x3x3x1 pad=0_0x1_1x1_1x0_0}, to_apply=mn
  c = f32[1,2,3,3] reduce-window(x, ninf), window={size=1x2x2x1 stride=1x2x2x1 pad=0_0x-1_-1x0_0x0_0}, to_apply=mx
  d = f32[1,3,3,3] reduce-window(x, five), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=mx
  ROOT t = (f32[1,3,3,3], f32[1,6,6,3], f32[1,2,3,3], f32[1,3,3,3]) tuple(a, b, c, d)
})";
  for (int threads : {1, 2}) {
    CpuBackendOptions options;
    options.threads = threads;
    auto out = CompileAndRun(pools, {F32({1, kH, kW, kC}, x)}, options);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 4u);
    const std::string t = absl::StrCat(" (threads ", threads, ")");
    expect_pool((*out)[0], pool(2, 2, 0, 0, 0, -INFINITY, true), "a" + t);
    expect_pool((*out)[1], pool(3, 1, 1, 1, 1, INFINITY, false), "b" + t);
    expect_pool((*out)[2], pool(2, 2, -1, -1, 0, -INFINITY, true), "c" + t);
    expect_pool((*out)[3], pool(2, 2, 0, 0, 0, 5.0f, true), "d" + t);
  }
  // The unpadded max pool alone: the fold is llvm.maximum (the reducer's
  // zero ordering is left out, numerics.md 7.5), with no bounds test.
  const std::string dir = ::testing::TempDir() + "/hloref_max_pool";
  std::filesystem::remove_all(dir);
  CpuBackendOptions options;
  options.compile_cache = false;
  options.dump_dir = dir;
  auto out = CompileAndRun(reducers + R"(
ENTRY e {
  x = f32[1,6,6,3] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT a = f32[1,3,3,3] reduce-window(x, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=mx
})",
                           {F32({1, kH, kW, kC}, x)}, options);
  ASSERT_TRUE(out.ok()) << out.status();
  expect_pool((*out)[0], pool(2, 2, 0, 0, 0, -INFINITY, true), "alone");
  const std::string ir = DumpedText(dir, ".ll");
  EXPECT_THAT(ir, ::testing::HasSubstr("@llvm.maximum."));
  EXPECT_THAT(ir, ::testing::Not(::testing::HasSubstr("window.valid")));
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
