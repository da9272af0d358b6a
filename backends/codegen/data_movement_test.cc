// The data movement, gather and scatter emitters on the CPU backend: small
// modules whose expected values are derived by hand (each test says how),
// or, for the larger index-remapping cases, by a direct index formula
// computed in the test itself (never by the oracle).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_test_util.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::cpu {
namespace {

using ::testing::ElementsAre;

absl::StatusOr<std::vector<Literal>> RunModule(absl::string_view text,
                                               std::vector<Literal> args,
                                               bool fuse = true,
                                               int threads = 1) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  CpuBackendOptions options;
  options.fuse_elementwise = fuse;
  options.threads = threads;
  options.compile_cache = false;
  auto backend = CreateCpuBackend(options);
  if (!backend.ok()) return backend.status();
  auto exe = (*backend)->Compile(**module, {});
  if (!exe.ok()) return exe.status();
  return (*exe)->Run(args);
}

Literal F32(std::vector<float> v) {
  return Literal::CreateR1<float>(PrimitiveType::kF32, v);
}
Literal S32(std::vector<int32_t> v) {
  return Literal::CreateR1<int32_t>(PrimitiveType::kS32, v);
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(DataMovement, PadNegativeEdgeAndInterior) {
  // {1,2,3} interior 1 with 9: {1,9,2,9,3}; low -1 drops the 1; high 2
  // appends 9,9: {9,2,9,3,9,9}.
  for (bool fuse : {true, false}) {
    auto out = RunModule(R"(
HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  v = f32[] constant(9)
  ROOT p = f32[6] pad(a, v), padding=-1_2_1
})",
                         {F32({1, 2, 3})}, fuse);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT((*out)[0].data<float>(), ElementsAre(9, 2, 9, 3, 9, 9));
  }
}

TEST(DataMovement, PadOfEmptyOperandAndConcatenateWithEmptyPiece) {
  // pad(f32[0], 7) by 2_1: three padding values. concatenate of {1,2},
  // {}, {3,4,5}, {6}: 1..6.
  auto out = RunModule(R"(
HloModule m
ENTRY e {
  z = f32[0] parameter(0)
  v = f32[] constant(7)
  p = f32[3] pad(z, v), padding=2_1
  a = f32[2] parameter(1)
  b = f32[3] parameter(2)
  c = f32[1] parameter(3)
  k = f32[6] concatenate(a, z, b, c), dimensions={0}
  ROOT t = (f32[3], f32[6]) tuple(p, k)
})",
                       {F32({}), F32({1, 2}), F32({3, 4, 5}), F32({6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(7, 7, 7));
  EXPECT_THAT((*out)[1].data<float>(), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(DataMovement, DynamicSliceClampsSignedAndUnsignedStarts) {
  // Operand {0,1,2,3,4}, size 2, so starts clamp to [0, 3]: s32 -5 -> 0;
  // u32 4000000000 -> 3; u64 2^64-1 (not negative: saturates) -> 3;
  // s64 -1 -> 0.
  auto out = RunModule(R"(
HloModule m
ENTRY e {
  a = s32[5] parameter(0)
  i0 = s32[] constant(-5)
  i1 = u32[] constant(4000000000)
  i2 = u64[] constant(18446744073709551615)
  i3 = s64[] constant(-1)
  d0 = s32[2] dynamic-slice(a, i0), dynamic_slice_sizes={2}
  d1 = s32[2] dynamic-slice(a, i1), dynamic_slice_sizes={2}
  d2 = s32[2] dynamic-slice(a, i2), dynamic_slice_sizes={2}
  d3 = s32[2] dynamic-slice(a, i3), dynamic_slice_sizes={2}
  ROOT t = (s32[2], s32[2], s32[2], s32[2]) tuple(d0, d1, d2, d3)
})",
                       {S32({0, 1, 2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<int32_t>(), ElementsAre(0, 1));
  EXPECT_THAT((*out)[1].data<int32_t>(), ElementsAre(3, 4));
  EXPECT_THAT((*out)[2].data<int32_t>(), ElementsAre(3, 4));
  EXPECT_THAT((*out)[3].data<int32_t>(), ElementsAre(0, 1));
}

TEST(DataMovement, DynamicUpdateSliceClampsStarts) {
  // Starts (5, -1) for an update [1,2] into [2,3] clamp to (1, 0): row 1
  // becomes {7, 8, 6}.
  auto out = RunModule(
      R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  u = f32[1,2] parameter(1)
  i = s32[] constant(5)
  j = s32[] constant(-1)
  ROOT d = f32[2,3] dynamic-update-slice(a, u, i, j)
})",
      {Literal::CreateFromValues<float>(PrimitiveType::kF32, {2, 3},
                                        {1, 2, 3, 4, 5, 6}),
       Literal::CreateFromValues<float>(PrimitiveType::kF32, {1, 2}, {7, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(1, 2, 3, 7, 8, 6));
}

TEST(DataMovement, IotaNarrowFloatsRoundOnce) {
  // bf16 has 8 significant bits: 257 is a tie between 256 (0x4380) and
  // 258 (0x4381) and goes to the even 256; 259 ties to 260 (0x4382).
  // f8e4m3fn: 0 -> 0x00, 1 -> 0x38, 3 -> 0x44, 8 -> 0x50 (bias 7).
  auto out = RunModule(R"(
HloModule m
ENTRY e {
  a = bf16[260] iota(), iota_dimension=0
  b = f8e4m3fn[2,9] iota(), iota_dimension=1
  ROOT t = (bf16[260], f8e4m3fn[2,9]) tuple(a, b)
})",
                       {});
  ASSERT_TRUE(out.ok()) << out.status();
  const Literal& a = (*out)[0];
  EXPECT_EQ(a.GetRawBits(256), 0x4380u);
  EXPECT_EQ(a.GetRawBits(257), 0x4380u);
  EXPECT_EQ(a.GetRawBits(258), 0x4381u);
  EXPECT_EQ(a.GetRawBits(259), 0x4382u);
  const Literal& b = (*out)[1];
  for (int row = 0; row < 2; ++row) {
    EXPECT_EQ(b.GetRawBits(row * 9 + 0), 0x00u);
    EXPECT_EQ(b.GetRawBits(row * 9 + 1), 0x38u);
    EXPECT_EQ(b.GetRawBits(row * 9 + 3), 0x44u);
    EXPECT_EQ(b.GetRawBits(row * 9 + 8), 0x50u);
  }
}

TEST(DataMovement, BitcastIsAPhysicalReinterpretation) {
  // t = transpose of [[1,2],[3,4]] is [[1,3],[2,4]], physically {1,3,2,4}
  // (row-major); read as s32[2,2]{0,1} (column-major) those four values
  // are (0,0),(1,0),(0,1),(1,1), i.e. row-major [[1,2],[3,4]] as f32 bits.
  // With fusion the transpose is inlined into the elemental bitcast;
  // without, the bitcast is a byte copy.
  for (bool fuse : {true, false}) {
    auto out = RunModule(R"(
HloModule m
ENTRY e {
  p = f32[2,2]{1,0} parameter(0)
  t = f32[2,2]{1,0} transpose(p), dimensions={1,0}
  ROOT b = s32[2,2]{0,1} bitcast(t)
})",
                         {Literal::CreateFromValues<float>(
                             PrimitiveType::kF32, {2, 2}, {1, 2, 3, 4})},
                         fuse);
    ASSERT_TRUE(out.ok()) << out.status();
    const Literal& r = (*out)[0];
    EXPECT_EQ(r.GetRawBits(0), Bits(1));
    EXPECT_EQ(r.GetRawBits(1), Bits(2));
    EXPECT_EQ(r.GetRawBits(2), Bits(3));
    EXPECT_EQ(r.GetRawBits(3), Bits(4));
  }
}

TEST(DataMovement, LargeTransposeReverseSliceAcrossThreads) {
  // a[i][j] = 1000 * i + j with a column-major parameter layout;
  // r = reverse(transpose(a)) along dimension 0, then slice [1:300:2].
  // r[i][j] = a[j][300 - i], s[i][j] = r[1 + 2 i][j] = a[j][299 - 2 i].
  const int64_t n = 300, m = 301;
  std::vector<int32_t> values(n * m);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      values[i * m + j] = static_cast<int32_t>(1000 * i + j);
    }
  }
  Literal a =
      Literal::CreateFromValues<int32_t>(PrimitiveType::kS32, {n, m}, values);
  Layout column_major;
  column_major.minor_to_major = {0, 1};
  a.set_layout(column_major);
  for (int threads : {1, 3}) {
    auto out = RunModule(R"(
HloModule m
ENTRY e {
  a = s32[300,301]{0,1} parameter(0)
  t = s32[301,300]{1,0} transpose(a), dimensions={1,0}
  r = s32[301,300]{0,1} reverse(t), dimensions={0}
  ROOT s = s32[150,300]{1,0} slice(r), slice={[1:300:2], [0:300]}
})",
                         {a}, true, threads);
    ASSERT_TRUE(out.ok()) << out.status();
    const Literal& s = (*out)[0];
    int bad = 0;
    for (int64_t i = 0; i < 150; ++i) {
      for (int64_t j = 0; j < 300; ++j) {
        const int32_t want = static_cast<int32_t>(1000 * j + (299 - 2 * i));
        if (s.data<int32_t>()[i * 300 + j] != want && ++bad < 5) {
          ADD_FAILURE() << "threads " << threads << " s[" << i << "][" << j
                        << "] = " << s.data<int32_t>()[i * 300 + j] << ", want "
                        << want;
        }
      }
    }
    EXPECT_EQ(bad, 0);
  }
}

// Nests that read an operand transposed run the innermost dimension in
// strips, outside the loop of the operand's contiguous dimension
// (computation_emitter.cc TransposedRead): the same elements, in another
// order. Each case fills its input with a[i][j]... = a code of its index
// and checks every output element against the index formula of the
// transpose (or copy), at 1 and 3 threads, with extents that leave a
// partial strip (260, 90, 250 against strips of 32).
TEST(DataMovement, TransposedReadsInStripsKeepEveryElement) {
  struct Case {
    const char* text;
    std::vector<int64_t> in_dims;
    std::vector<int64_t> in_minor_to_major;
    // The input element code (row-major logical index) that out[o] reads,
    // for the output's row-major logical index o.
    std::function<int64_t(int64_t)> source;
    int64_t out_elements;
    bool add_one;  // the case adds 1 to every element
  };
  const std::vector<Case> cases = {
      {R"(
HloModule m
ENTRY e {
  a = s32[260,300]{1,0} parameter(0)
  ROOT t = s32[300,260]{1,0} transpose(a), dimensions={1,0}
})",
       {260, 300},
       {1, 0},
       [](int64_t o) { return (o % 260) * 300 + o / 260; },
       300 * 260,
       false},
      {R"(
HloModule m
ENTRY e {
  a = s32[90,8,100]{2,1,0} parameter(0)
  ROOT t = s32[100,8,90]{2,1,0} transpose(a), dimensions={2,1,0}
})",
       {90, 8, 100},
       {2, 1, 0},
       [](int64_t o) {
         const int64_t i = o / (8 * 90), j = o / 90 % 8, k = o % 90;
         return (k * 8 + j) * 100 + i;
       },
       100 * 8 * 90,
       false},
      {R"(
HloModule m
ENTRY e {
  a = s32[260,300]{1,0} parameter(0)
  t = s32[300,260]{1,0} transpose(a), dimensions={1,0}
  one = s32[] constant(1)
  ones = s32[300,260]{1,0} broadcast(one), dimensions={}
  ROOT r = s32[300,260]{1,0} add(t, ones)
})",
       {260, 300},
       {1, 0},
       [](int64_t o) { return (o % 260) * 300 + o / 260; },
       300 * 260,
       true},
      {R"(
HloModule m
ENTRY e {
  a = s32[280,250]{0,1} parameter(0)
  ROOT c = s32[280,250]{1,0} copy(a)
})",
       {280, 250},
       {0, 1},
       [](int64_t o) { return o; },
       280 * 250,
       false},
  };
  for (const Case& c : cases) {
    int64_t n = 1;
    for (int64_t d : c.in_dims) n *= d;
    std::vector<int32_t> values(n);
    for (int64_t i = 0; i < n; ++i) values[i] = static_cast<int32_t>(7 * i + 3);
    Literal a = Literal::CreateFromValues<int32_t>(PrimitiveType::kS32,
                                                   c.in_dims, values);
    Layout layout;
    layout.minor_to_major = c.in_minor_to_major;
    a.set_layout(layout);
    for (int threads : {1, 3}) {
      auto out = RunModule(c.text, {a}, true, threads);
      ASSERT_TRUE(out.ok()) << out.status();
      const Literal& r = (*out)[0];
      ASSERT_EQ(r.element_count(), c.out_elements);
      int bad = 0;
      for (int64_t o = 0; o < c.out_elements; ++o) {
        const int64_t want = 7 * c.source(o) + 3 + (c.add_one ? 1 : 0);
        if (r.GetAsInt64(o) != want && ++bad < 5) {
          ADD_FAILURE() << c.text << "\nthreads " << threads << " element " << o
                        << " = " << r.GetAsInt64(o) << ", want " << want;
        }
      }
      EXPECT_EQ(bad, 0);
    }
  }
  // The strips are there: the outlined nest of the first case has a loop
  // over strips, an element-wise add of the same size has none.
  for (const bool transposed : {true, false}) {
    const std::string dir =
        ::testing::TempDir() + (transposed ? "strips_t" : "strips_n");
    std::filesystem::create_directories(dir);
    CpuBackendOptions options;
    options.threads = 2;
    options.compile_cache = false;
    options.dump_dir = dir;
    auto backend = CreateCpuBackend(options);
    ASSERT_TRUE(backend.ok()) << backend.status();
    auto module = ParseHloModule(transposed ? cases[0].text : R"(
HloModule m
ENTRY e {
  a = s32[300,260]{1,0} parameter(0)
  ROOT r = s32[300,260]{1,0} add(a, a)
})");
    ASSERT_TRUE(module.ok()) << module.status();
    auto exe = (*backend)->Compile(**module, {});
    ASSERT_TRUE(exe.ok()) << exe.status();
    EXPECT_EQ(absl::StrContains(DumpedText(dir, ".ll"), ".strips"), transposed);
  }
}

TEST(DataMovement, BroadcastReshapeRankZeroAndSizeOne) {
  // A scalar broadcast to [3,1,2] is six copies; reshape of [1,3] {5,6,7}
  // into [3] with a {0} layout keeps the row-major order.
  auto out = RunModule(R"(
HloModule m
ENTRY e {
  x = f32[] parameter(0)
  b = f32[3,1,2]{0,2,1} broadcast(x), dimensions={}
  y = f32[1,3]{0,1} parameter(1)
  r = f32[3]{0} reshape(y)
  ROOT t = (f32[3,1,2]{0,2,1}, f32[3]{0}) tuple(b, r)
})",
                       {Literal::CreateR0<float>(PrimitiveType::kF32, 2.5f),
                        Literal::CreateFromValues<float>(PrimitiveType::kF32,
                                                         {1, 3}, {5, 6, 7})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<float>(),
              ElementsAre(2.5, 2.5, 2.5, 2.5, 2.5, 2.5));
  EXPECT_THAT((*out)[1].data<float>(), ElementsAre(5, 6, 7));
}

TEST(GatherScatter, GatherWithBatchingDimsClamps) {
  // operand[b][i][j] = 100 b + 10 i + j, shape [2,3,4]. Batch b reads row
  // start i = idx[b] (clamped to [0, 2]) and columns 0..1: idx = {2, 7}
  // gives rows 2 and 2: {20, 21} and {120, 121}.
  std::vector<int32_t> v;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) v.push_back(100 * b + 10 * i + j);
  auto out = RunModule(
      R"(
HloModule m
ENTRY e {
  o = s32[2,3,4] parameter(0)
  i = s32[2,1,1] parameter(1)
  ROOT g = s32[2,1,2] gather(o, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,2}
})",
      {Literal::CreateFromValues<int32_t>(PrimitiveType::kS32, {2, 3, 4}, v),
       Literal::CreateFromValues<int32_t>(PrimitiveType::kS32, {2, 1, 1},
                                          {2, 7})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<int32_t>(), ElementsAre(20, 21, 120, 121));
}

TEST(GatherScatter, ScatterAppliesUpdatesInOrderAndSkipsOutOfBounds) {
  // combiner(cur, upd) = 2 cur + upd (not commutative). Indices {1, 1, 3,
  // 4, -1} with updates {5, 6, 7, 8, 9}: element 1: 2*0+5 = 5, then
  // 2*5+6 = 16 (the other order would give 17); element 3: 7; indices 4
  // and -1 are out of bounds and skipped.
  auto out = RunModule(R"(
HloModule m
comb {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  two = f32[] constant(2)
  m = f32[] multiply(a, two)
  ROOT r = f32[] add(m, b)
}
ENTRY e {
  o = f32[4] parameter(0)
  i = s32[5,1] parameter(1)
  u = f32[5] parameter(2)
  ROOT s = f32[4] scatter(o, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=comb
})",
                       {F32({0, 0, 0, 0}),
                        Literal::CreateFromValues<int32_t>(
                            PrimitiveType::kS32, {5, 1}, {1, 1, 3, 4, -1}),
                        F32({5, 6, 7, 8, 9})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(0, 16, 0, 7));
}

TEST(GatherScatter, ScatterSkipsWholeWindowsAndIsVariadic) {
  // Windows of [1,2] rows into a [3,3] operand, replace combiner on two
  // operands (f32, s32). Start (0,1) fits: row 0 columns 1..2 take the
  // update; start (2,2) does not fit (2 + 2 > 3): the whole window is
  // skipped, its in-bounds element (2,2) included.
  auto out =
      RunModule(R"(
HloModule m
comb {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = (f32[], s32[]) tuple(c, d)
}
ENTRY e {
  o = f32[3,3] parameter(0)
  p = s32[3,3] parameter(1)
  i = s32[2,2] parameter(2)
  u = f32[2,2] parameter(3)
  v = s32[2,2] parameter(4)
  ROOT s = (f32[3,3], s32[3,3]) scatter(o, p, i, u, v), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=comb
})",
                {Literal::CreateFromValues<float>(PrimitiveType::kF32, {3, 3},
                                                  {0, 0, 0, 0, 0, 0, 0, 0, 0}),
                 Literal::CreateFromValues<int32_t>(
                     PrimitiveType::kS32, {3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0}),
                 Literal::CreateFromValues<int32_t>(PrimitiveType::kS32, {2, 2},
                                                    {0, 1, 2, 2}),
                 Literal::CreateFromValues<float>(PrimitiveType::kF32, {2, 2},
                                                  {1, 2, 3, 4}),
                 Literal::CreateFromValues<int32_t>(PrimitiveType::kS32, {2, 2},
                                                    {10, 20, 30, 40})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(0, 1, 2, 0, 0, 0, 0, 0, 0));
  EXPECT_THAT((*out)[1].data<int32_t>(),
              ElementsAre(0, 10, 20, 0, 0, 0, 0, 0, 0));
}

}  // namespace
}  // namespace hloref::cpu
