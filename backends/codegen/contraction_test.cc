// The contraction family (dot, convolution, ragged-dot, scaled-dot) on the
// CPU backend, end to end, against values derived independently: each
// test shows its arithmetic (by hand, or a closed form such as "all-ones
// operands give k"). Neither the code under test nor the oracle produces
// any expected value here.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_test_util.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::cpu {
namespace {

// A literal from exactly representable values (row-major).
Literal Lit(PrimitiveType type, std::vector<int64_t> dims,
            const std::vector<double>& values) {
  Literal lit(Shape::Array(type, dims));
  for (size_t i = 0; i < values.size(); ++i) {
    lit.SetFromDouble(static_cast<int64_t>(i), values[i]);
  }
  return lit;
}

Literal Filled(PrimitiveType type, std::vector<int64_t> dims, double v) {
  Literal lit(Shape::Array(type, dims));
  for (int64_t i = 0; i < lit.element_count(); ++i) lit.SetFromDouble(i, v);
  return lit;
}

Literal Bits(PrimitiveType type, std::vector<int64_t> dims,
             const std::vector<uint64_t>& bits) {
  Literal lit(Shape::Array(type, dims));
  for (size_t i = 0; i < bits.size(); ++i) {
    lit.SetRawBits(static_cast<int64_t>(i), bits[i]);
  }
  return lit;
}

std::vector<double> Values(const Literal& lit) {
  std::vector<double> out;
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    out.push_back(lit.GetAsDouble(i));
  }
  return out;
}

// Runs `text` (one ROOT, one result) and returns the result's values.
std::vector<double> RunValues(absl::string_view text,
                              std::vector<Literal> args) {
  auto out = CompileAndRun(text, std::move(args));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->empty()) return {};
  return Values((*out)[0]);
}

// ---- dot

TEST(Dot, AllOnesGiveK) {
  // ones[3,k] x ones[k,5]: every element is the sum of k ones = k (exact in
  // f32 and s32), for the sizes 1, 3, 17 and 127.
  for (int64_t k : {1, 3, 17, 127}) {
    for (const char* t : {"f32", "s32", "bf16", "f64"}) {
      const std::string text =
          absl::StrCat("HloModule m\nENTRY e {\n  a = ", t, "[3,", k,
                       "] parameter(0)\n  b = ", t, "[", k,
                       ",5] parameter(1)\n  ROOT d = ", t,
                       "[3,5] dot(a, b), lhs_contracting_dims={1}, "
                       "rhs_contracting_dims={0}\n}\n");
      PrimitiveType pt = std::string(t) == "f32"    ? PrimitiveType::kF32
                         : std::string(t) == "s32"  ? PrimitiveType::kS32
                         : std::string(t) == "bf16" ? PrimitiveType::kBF16
                                                    : PrimitiveType::kF64;
      std::vector<double> got =
          RunValues(text, {Filled(pt, {3, k}, 1), Filled(pt, {k, 5}, 1)});
      EXPECT_EQ(got, std::vector<double>(15, static_cast<double>(k)))
          << t << " k=" << k;
    }
  }
}

TEST(Dot, OperandsLargerThanL2) {
  // lhs ones[1024,1024] f32 (4 MiB) x rhs[1024,3] with column j all (j+1):
  // out[i][j] = 1024 * (j + 1). And the transposed use: lhs[3,1024] rows
  // of (i+1) x ones[1024,1024] (rhs read down its columns): out[i][j] =
  // 1024 * (i + 1).
  const int64_t n = 1024;
  std::vector<double> cols(n * 3);
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t j = 0; j < 3; ++j) cols[r * 3 + j] = j + 1;
  }
  std::vector<double> got = RunValues(R"(
HloModule m
ENTRY e {
  a = f32[1024,1024] parameter(0)
  b = f32[1024,3] parameter(1)
  ROOT d = f32[1024,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                                      {Filled(PrimitiveType::kF32, {n, n}, 1),
                                       Lit(PrimitiveType::kF32, {n, 3}, cols)});
  ASSERT_EQ(got.size(), static_cast<size_t>(n * 3));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      ASSERT_EQ(got[i * 3 + j], 1024.0 * (j + 1)) << i << "," << j;
    }
  }
  std::vector<double> rows(3 * n);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t c = 0; c < n; ++c) rows[i * n + c] = i + 1;
  }
  got = RunValues(R"(
HloModule m
ENTRY e {
  a = s32[3,1024] parameter(0)
  b = s32[1024,1024] parameter(1)
  ROOT d = s32[3,1024] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                  {Lit(PrimitiveType::kS32, {3, n}, rows),
                   Filled(PrimitiveType::kS32, {n, n}, 1)});
  ASSERT_EQ(got.size(), static_cast<size_t>(3 * n));
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(got[i * n + j], 1024.0 * (i + 1)) << i << "," << j;
    }
  }
}

TEST(Dot, SmallMatrixProduct) {
  // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] =
  // [[1*7+2*9+3*11, 1*8+2*10+3*12], [4*7+5*9+6*11, 4*8+5*10+6*12]]
  // = [[58, 64], [139, 154]].
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      {Lit(PrimitiveType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6}),
       Lit(PrimitiveType::kF32, {3, 2}, {7, 8, 9, 10, 11, 12})});
  EXPECT_EQ(got, (std::vector<double>{58, 64, 139, 154}));
}

TEST(Dot, BatchAndContractingDimsInAnyOrder) {
  // lhs[k=2,b=2,m=1] = 1 + k + 2b, rhs[n=3,k=2,b=2] = 100n + 10k + b;
  // out[b,0,n] = sum_k lhs[k,b] * rhs[n,k,b]:
  //   b=0: 1*(100n) + 2*(100n+10) = 300n + 20  -> 20, 320, 620
  //   b=1: 3*(100n+1) + 4*(100n+11) = 700n + 47 -> 47, 747, 1447
  std::vector<double> rhs;
  for (int n = 0; n < 3; ++n) {
    for (int k = 0; k < 2; ++k) {
      for (int b = 0; b < 2; ++b) rhs.push_back(100 * n + 10 * k + b);
    }
  }
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f32[2,2,1] parameter(0)
  b = f32[3,2,2] parameter(1)
  ROOT d = f32[2,1,3] dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={0}, rhs_batch_dims={2}, rhs_contracting_dims={1}
})",
      {Lit(PrimitiveType::kF32, {2, 2, 1}, {1, 3, 2, 4}),
       Lit(PrimitiveType::kF32, {3, 2, 2}, rhs)});
  EXPECT_EQ(got, (std::vector<double>{20, 320, 620, 47, 747, 1447}));

  // Two contracting dimensions paired in opposite orders: sum over i, j of
  // L[i,j] * R[j,i] with L = [[1,2,3],[4,5,6]] and R = [[1,10],[100,1000],
  // [10000,100000]]: 1*1 + 2*100 + 3*10000 + 4*10 + 5*1000 + 6*100000 =
  // 635241.
  got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = s32[2,3] parameter(0)
  b = s32[3,2] parameter(1)
  ROOT d = s32[] dot(a, b), lhs_contracting_dims={0,1}, rhs_contracting_dims={1,0}
})",
      {Lit(PrimitiveType::kS32, {2, 3}, {1, 2, 3, 4, 5, 6}),
       Lit(PrimitiveType::kS32, {3, 2}, {1, 10, 100, 1000, 10000, 100000})});
  EXPECT_EQ(got, (std::vector<double>{635241}));
}

TEST(Dot, IntegersWrapAndMix) {
  // s8: 100*2 + 100*2 = 400 = 144 mod 256 -> -112. u8 x s8 -> s32: 200 * -1
  // = -200 (each operand read by its own signedness).
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = s8[1,2] parameter(0)
  b = s8[2,1] parameter(1)
  ROOT d = s8[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      {Lit(PrimitiveType::kS8, {1, 2}, {100, 100}),
       Lit(PrimitiveType::kS8, {2, 1}, {2, 2})});
  EXPECT_EQ(got, (std::vector<double>{-112}));
  got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = u8[1,1] parameter(0)
  b = s8[1,1] parameter(1)
  ROOT d = s32[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      {Lit(PrimitiveType::kU8, {1, 1}, {200}),
       Lit(PrimitiveType::kS8, {1, 1}, {-1})});
  EXPECT_EQ(got, (std::vector<double>{-200}));
}

TEST(Dot, PredIsOrOfAnds) {
  // [[1,0],[0,0]] x [[0,1],[1,1]]: row 0 has a 1 at k=0, rhs row 0 is
  // [0,1] -> [0,1]; row 1 is all 0 -> [0,0].
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = pred[2,2] parameter(0)
  b = pred[2,2] parameter(1)
  ROOT d = pred[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      {Lit(PrimitiveType::kPred, {2, 2}, {1, 0, 0, 0}),
       Lit(PrimitiveType::kPred, {2, 2}, {0, 1, 1, 1})});
  EXPECT_EQ(got, (std::vector<double>{0, 1, 0, 0}));
}

TEST(Dot, NarrowResultRoundsOnce) {
  // bf16 {256, 1, 1} . {1, 1, 1}: the exact sum 258 is a bf16 value (step
  // 2 at 256): 0x4381. Summing in bf16 would give 256 + 1 = 257 -> 256
  // (tie to even), then 256 again.
  auto out = CompileAndRun(
      R"(
HloModule m
ENTRY e {
  a = bf16[1,3] parameter(0)
  b = bf16[3,1] parameter(1)
  ROOT d = bf16[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      {Bits(PrimitiveType::kBF16, {1, 3}, {0x4380, 0x3F80, 0x3F80}),
       Bits(PrimitiveType::kBF16, {3, 1}, {0x3F80, 0x3F80, 0x3F80})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].GetRawBits(0), 0x4381u);
}

TEST(Dot, F64ProductsOutsideF64Range) {
  // 1e200 * 1e200 + (-1e200) * 1e200 = 0 exactly although each product
  // overflows f64 (inf - inf would be NaN); 1e200 * 1e200 + 1e200 *
  // -5e199 = 5e399 rounds to +inf.
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f64[2,2] parameter(0)
  b = f64[2,1] parameter(1)
  ROOT d = f64[2,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      {Lit(PrimitiveType::kF64, {2, 2}, {1e200, -1e200, 1e200, -0.5e200}),
       Lit(PrimitiveType::kF64, {2, 1}, {1e200, 1e200})});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], 0.0);
  EXPECT_EQ(got[1], INFINITY);
}

TEST(Dot, Complex) {
  // (1+2i)(5+6i) + (3+4i)(7+8i) = (-7+16i) + (-11+52i) = -18+68i.
  Literal a(Shape::Array(PrimitiveType::kC64, {1, 2}));
  a.SetFromComplex(0, {1, 2});
  a.SetFromComplex(1, {3, 4});
  Literal b(Shape::Array(PrimitiveType::kC64, {2, 1}));
  b.SetFromComplex(0, {5, 6});
  b.SetFromComplex(1, {7, 8});
  auto out = CompileAndRun(R"(
HloModule m
ENTRY e {
  a = c64[1,2] parameter(0)
  b = c64[2,1] parameter(1)
  ROOT d = c64[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                           {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].GetAsComplex(0), std::complex<double>(-18, 68));
}

TEST(Dot, FusedIndexProducersAndLayouts) {
  // a = [[1,2,3],[4,5,6]] stored column-major ({0,1}); t = transpose(a) =
  // [[1,4],[2,5],[3,6]]; bc[i][j] = c[i] with c = {1,10,100}. Contracting
  // t's dim 0 with bc's dim 0: out[m][n] = sum_i t[i][m] * c[i]: m=0: 1 +
  // 20 + 300 = 321, m=1: 4 + 50 + 600 = 654, for every n; the result is
  // stored column-major too.
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  c = f32[3] parameter(1)
  t = f32[3,2] transpose(a), dimensions={1,0}
  bc = f32[3,4] broadcast(c), dimensions={0}
  ROOT d = f32[2,4]{0,1} dot(t, bc), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
      {Lit(PrimitiveType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6}),
       Lit(PrimitiveType::kF32, {3}, {1, 10, 100})});
  EXPECT_EQ(got, (std::vector<double>{321, 321, 321, 321, 654, 654, 654, 654}));
}

// ---- convolution

// A 1-D convolution of x[5] with kernel k[3] (b0f_0io->b0f) and `window`.
std::vector<double> Conv1D(const std::string& window, int64_t out_size,
                           const std::vector<double>& x,
                           const std::vector<double>& k) {
  const std::string text =
      absl::StrCat("HloModule m\nENTRY e {\n  a = f32[1,", x.size(),
                   ",1] parameter(0)\n  b = f32[", k.size(),
                   ",1,1] parameter(1)\n  ROOT c = f32[1,", out_size,
                   ",1] convolution(a, b), window={", window,
                   "}, dim_labels=b0f_0io->b0f\n}\n");
  return RunValues(
      text,
      {Lit(PrimitiveType::kF32, {1, static_cast<int64_t>(x.size()), 1}, x),
       Lit(PrimitiveType::kF32, {static_cast<int64_t>(k.size()), 1, 1}, k)});
}

TEST(Convolution, WindowAttributes) {
  const std::vector<double> x = {1, 2, 3, 4, 5}, k = {1, 10, 100};
  // out[o] = sum_w x[o+w] * k[w]: 1+20+300, 2+30+400, 3+40+500.
  EXPECT_EQ(Conv1D("size=3", 3, x, k), (std::vector<double>{321, 432, 543}));
  // Reversed kernel: x[o+w] * k[2-w]: 100+20+3, 200+30+4, 300+40+5.
  EXPECT_EQ(Conv1D("size=3 rhs_reversal=1", 3, x, k),
            (std::vector<double>{123, 234, 345}));
  // Stride 2: outputs 0 and 2 of the first case.
  EXPECT_EQ(Conv1D("size=3 stride=2", 2, x, k),
            (std::vector<double>{321, 543}));
  // rhs_dilate 2: x[0]*1 + x[2]*10 + x[4]*100 = 1 + 30 + 500.
  EXPECT_EQ(Conv1D("size=3 rhs_dilate=2", 1, x, k), (std::vector<double>{531}));
  // Negative padding drops an element on each side; kernel [1]: x[1..3].
  EXPECT_EQ(Conv1D("size=1 pad=-1_-1", 3, x, {1}),
            (std::vector<double>{2, 3, 4}));
  // lhs_dilate 2 puts holes between the ones: d = 1 0 1 0 1 0 1 0 1 (9),
  // padded by one zero each side; windows of 3 ones see 1 2 1 2 ... 1.
  EXPECT_EQ(
      Conv1D("size=3 pad=1_1 lhs_dilate=2", 9, {1, 1, 1, 1, 1}, {1, 1, 1}),
      (std::vector<double>{1, 2, 1, 2, 1, 2, 1, 2, 1}));
}

TEST(Convolution, FeatureAndBatchGroups) {
  // Feature groups 2: input features {1,2 | 3,4}; kernel o=0 {1,1}, o=1
  // {10,100}: out = {1+2, 3*10+4*100} = {3, 430}.
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f32[1,1,4] parameter(0)
  b = f32[1,2,2] parameter(1)
  ROOT c = f32[1,1,2] convolution(a, b), window={size=1}, dim_labels=b0f_0io->b0f, feature_group_count=2
})",
      {Lit(PrimitiveType::kF32, {1, 1, 4}, {1, 2, 3, 4}),
       Lit(PrimitiveType::kF32, {1, 2, 2}, {1, 10, 1, 100})});
  EXPECT_EQ(got, (std::vector<double>{3, 430}));
  // Batch groups 2: input batches {2}, {3}; output feature 0 reads batch 0
  // with kernel 5, feature 1 batch 1 with kernel 7: {10, 21}.
  got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f32[2,1,1] parameter(0)
  b = f32[1,1,2] parameter(1)
  ROOT c = f32[1,1,2] convolution(a, b), window={size=1}, dim_labels=b0f_0io->b0f, batch_group_count=2
})",
      {Lit(PrimitiveType::kF32, {2, 1, 1}, {2, 3}),
       Lit(PrimitiveType::kF32, {1, 1, 2}, {5, 7})});
  EXPECT_EQ(got, (std::vector<double>{10, 21}));
}

TEST(Convolution, PermutedDimLabels) {
  // Input f01b [1,2,2,1] = 1,2,3,4; kernel i01o ones [1,2,2,1]; one 2x2
  // window: 1+2+3+4 = 10; output 01bf [1,1,1,1].
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f32[1,2,2,1] parameter(0)
  b = f32[1,2,2,1] parameter(1)
  ROOT c = f32[1,1,1,1] convolution(a, b), window={size=2x2}, dim_labels=f01b_i01o->01bf
})",
      {Lit(PrimitiveType::kF32, {1, 2, 2, 1}, {1, 2, 3, 4}),
       Filled(PrimitiveType::kF32, {1, 2, 2, 1}, 1)});
  EXPECT_EQ(got, (std::vector<double>{10}));
}

TEST(Convolution, InputLargerThanL2) {
  // ones[600000] (2.4 MB) convolved with ones[3], pad 1_1: 2 at both ends
  // (one padding zero in the window), 3 elsewhere.
  const int64_t n = 600000;
  std::vector<double> got =
      RunValues(absl::StrCat("HloModule m\nENTRY e {\n  a = f32[1,1,", n,
                             "] parameter(0)\n  b = f32[1,1,3] parameter(1)\n"
                             "  ROOT c = f32[1,1,",
                             n,
                             "] convolution(a, b), window={size=3 pad=1_1}, "
                             "dim_labels=bf0_oi0->bf0\n}\n"),
                {Filled(PrimitiveType::kF32, {1, 1, n}, 1),
                 Filled(PrimitiveType::kF32, {1, 1, 3}, 1)});
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], (i == 0 || i == n - 1) ? 2.0 : 3.0) << i;
  }
}

// ---- ragged-dot

TEST(RaggedDot, NonContractingMode) {
  // lhs ones[4,2]; rhs[g=2,2,1]: group 0 all 1, group 1 all 10. Sizes
  // {1,3}: row 0 in group 0 (1+1 = 2), rows 1-3 in group 1 (10+10 = 20).
  // Sizes {1,2}: row 3 is in no group -> 0.
  const char* text = R"(
HloModule m
ENTRY e {
  a = f32[4,2] parameter(0)
  b = f32[2,2,1] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = f32[4,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})";
  Literal rhs = Lit(PrimitiveType::kF32, {2, 2, 1}, {1, 1, 10, 10});
  EXPECT_EQ(RunValues(text, {Filled(PrimitiveType::kF32, {4, 2}, 1), rhs,
                             Lit(PrimitiveType::kS32, {2}, {1, 3})}),
            (std::vector<double>{2, 20, 20, 20}));
  EXPECT_EQ(RunValues(text, {Filled(PrimitiveType::kF32, {4, 2}, 1), rhs,
                             Lit(PrimitiveType::kS32, {2}, {1, 2})}),
            (std::vector<double>{2, 20, 20, 0}));
}

TEST(RaggedDot, NegativeSizeOverlapsGroups) {
  // XLA's masks (impl.ragged-dot.2): sizes {3, -2, 2} give the cumulative
  // ends 3, 1, 3: group 0 = [0,3), group 1 = [3,1) (empty), group 2 =
  // [1,3). Rows 1 and 2 belong to groups 0 and 2, whose contributions add;
  // row 3 to none. lhs ones[4,1], rhs groups 1, 10, 100: {1, 101, 101, 0}.
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f32[4,1] parameter(0)
  b = f32[3,1,1] parameter(1)
  g = s32[3] parameter(2)
  ROOT r = f32[4,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})",
      {Filled(PrimitiveType::kF32, {4, 1}, 1),
       Lit(PrimitiveType::kF32, {3, 1, 1}, {1, 10, 100}),
       Lit(PrimitiveType::kS32, {3}, {3, -2, 2})});
  EXPECT_EQ(got, (std::vector<double>{1, 101, 101, 0}));
}

TEST(RaggedDot, ContractingMode) {
  // lhs [1,4] = 1,2,3,4; rhs ones[4,1]; sizes {1,3}: group 0 sums k=0 (1),
  // group 1 sums k=1..3 (2+3+4 = 9). Result [g=2,1,1].
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f32[1,4] parameter(0)
  b = f32[4,1] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = f32[2,1,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
})",
      {Lit(PrimitiveType::kF32, {1, 4}, {1, 2, 3, 4}),
       Filled(PrimitiveType::kF32, {4, 1}, 1),
       Lit(PrimitiveType::kS32, {2}, {1, 3})});
  EXPECT_EQ(got, (std::vector<double>{1, 9}));
}

TEST(RaggedDot, BatchModeIsPlainDot) {
  // lhs[b=2,1,2] = {1,2 | 3,4}, rhs[b=2,2,1] = {5,6 | 7,8}: batch 0 =
  // 1*5+2*6 = 17, batch 1 = 3*7+4*8 = 53, whatever the group sizes.
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f32[2,1,2] parameter(0)
  b = f32[2,2,1] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = f32[2,1,1] ragged-dot(a, b, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
})",
      {Lit(PrimitiveType::kF32, {2, 1, 2}, {1, 2, 3, 4}),
       Lit(PrimitiveType::kF32, {2, 2, 1}, {5, 6, 7, 8}),
       Lit(PrimitiveType::kS32, {2}, {2, 0})});
  EXPECT_EQ(got, (std::vector<double>{17, 53}));
}

// ---- scaled-dot

TEST(ScaledDot, BlockScales) {
  // lhs {1,2,3,4} with scales {2,10} over blocks of 2 -> {2,4,30,40}; rhs
  // ones with scale 0.5 -> 0.5 each: (2+4+30+40) * 0.5 = 38.
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f32[1,4] parameter(0)
  b = f32[4,1] parameter(1)
  as = f32[1,2] parameter(2)
  bs = f32[1,1] parameter(3)
  ROOT r = f32[1,1] scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      {Lit(PrimitiveType::kF32, {1, 4}, {1, 2, 3, 4}),
       Filled(PrimitiveType::kF32, {4, 1}, 1),
       Lit(PrimitiveType::kF32, {1, 2}, {2, 10}),
       Lit(PrimitiveType::kF32, {1, 1}, {0.5})});
  EXPECT_EQ(got, (std::vector<double>{38}));
}

TEST(ScaledDot, MxFp8) {
  // f8e4m3fn lhs {1.5 (0x3C), 3 (0x44)} with f8e8m0fnu scale 4 (0x81 =
  // 2^(129-127)); rhs {1, 1} (0x38) with scale 1 (0x7F): (1.5+3)*4 = 18.
  std::vector<double> got = RunValues(
      R"(
HloModule m
ENTRY e {
  a = f8e4m3fn[1,2] parameter(0)
  b = f8e4m3fn[2,1] parameter(1)
  as = f8e8m0fnu[1,1] parameter(2)
  bs = f8e8m0fnu[1,1] parameter(3)
  ROOT r = f32[1,1] scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      {Bits(PrimitiveType::kF8E4M3FN, {1, 2}, {0x3C, 0x44}),
       Bits(PrimitiveType::kF8E4M3FN, {2, 1}, {0x38, 0x38}),
       Bits(PrimitiveType::kF8E8M0FNU, {1, 1}, {0x81}),
       Bits(PrimitiveType::kF8E8M0FNU, {1, 1}, {0x7F})});
  EXPECT_EQ(got, (std::vector<double>{18}));
}

}  // namespace
}  // namespace hloref::cpu
