// The tensor-core GEMM kernels (gpu_gemm.h) and convolution as an implicit
// GEMM (gpu_conv.h) without a GPU: PTX assertions (mma.sync / wgmma,
// ldmatrix, shared memory, no local memory), ptxas resources through
// nvJitLink (registers under budget, 0 spill bytes) for sm_90 and sm_90a;
// the kernels' thread -> element maps interpreted on the host (every
// output element written once, every operand element loaded once per k
// tile of each block that needs it); and a host emulation of one whole
// GEMM through those maps with the PTX ISA's ldmatrix / mma / wgmma
// fragment layouts, compared with a plain triple loop.
#include "backends/gpu/gpu_gemm.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/gpu/gpu_conv.h"
#include "backends/gpu/gpu_emitter.h"
#include "backends/gpu/nvjitlink.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref::gpu {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// ptxas (in nvJitLink) registers budget of the tensor-core kernels: 64 f32
// accumulators, the A / B fragments (mma.sync 16 + 8, wgmma 8), the 16
// loads of each operand in flight and their addresses; 255 is the
// hardware's limit (256 threads x 240 registers still fit one block per
// SM). Measured for the 200x300x50 dots below: mma.sync 228, wgmma 195.
constexpr int kRegisterBudget = 240;

GpuProgram Compile(const std::string& text, const std::string& arch) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  absl::Status v = VerifyModule(**m, VerifyOptions());
  EXPECT_TRUE(v.ok()) << v;
  GpuCompileOptions options;
  options.arch = arch;
  absl::StatusOr<GpuProgram> p = CompileModuleToPtx(**m, options);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : GpuProgram{};
}

std::string Validate(const GpuProgram& p) {
  absl::StatusOr<CubinResult> c = CompilePtxToCubin(p.ptx, p.arch);
  EXPECT_TRUE(c.ok()) << c.status() << "\n" << p.ptx;
  return c.ok() ? c->info_log : "";
}

int UsedRegisters(const std::string& log) {
  const std::string key = "Used ";
  size_t at = log.find(key);
  if (at == std::string::npos) return -1;
  return std::atoi(log.c_str() + at + key.size());
}

// The PTX of kernel `entry`, up to the next kernel (inline asm blocks hold
// lines of a lone "}", so the closing brace cannot delimit it).
std::string KernelBody(const std::string& ptx, const std::string& entry) {
  size_t a = ptx.find(".entry " + entry);
  if (a == std::string::npos) return "";
  size_t b = ptx.find(".entry ", a + 7);
  return ptx.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

// The k loop of a kernel body: from its first ldmatrix back to the
// loop's label, to the loop's back branch (FileCheck-style scoping).
std::string HotLoop(const std::string& body) {
  size_t ld = body.find("ldmatrix");
  if (ld == std::string::npos) return "";
  size_t label = body.rfind("$L__BB", ld);
  label = body.rfind("\n$L__BB", ld);
  size_t end = body.find("bra.uni", ld);
  return body.substr(
      label == std::string::npos ? 0 : label,
      end == std::string::npos ? std::string::npos : end - label);
}

std::string DotModule(const std::string& type, const std::string& dims_a,
                      const std::string& dims_b, const std::string& dims_out,
                      const std::string& numbering) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", type, "[", dims_a,
                      "] parameter(0)\n  b = ", type, "[", dims_b,
                      "] parameter(1)\n  ROOT d = ", type, "[", dims_out,
                      "] dot(a, b), ", numbering, "\n}\n");
}

const char kBatched[] =
    "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
    "rhs_contracting_dims={1}";

TEST(GpuGemmPtxTest, MmaSyncForBf16AndF16Dots) {
  for (const char* type : {"bf16", "f16"}) {
    SCOPED_TRACE(type);
    GpuProgram p =
        Compile(DotModule(type, "2,200,50", "2,50,300", "2,200,300", kBatched),
                "sm_90");
    ASSERT_EQ(p.launches.size(), 1u);
    const KernelLaunch& k = p.launches[0];
    EXPECT_EQ(k.kind, KernelKind::kMmaGemm);
    EXPECT_EQ(k.block[0], 256);
    EXPECT_EQ(k.grid[0], 3);  // ceil(300 / 128)
    EXPECT_EQ(k.grid[1], 2);  // ceil(200 / 128)
    EXPECT_EQ(k.grid[2], 2);
    const std::string body = KernelBody(p.ptx, k.kernel);
    ASSERT_FALSE(body.empty()) << p.ptx;
    // 2 k16 steps x 4x4 MMAs per warp (64x32) per k tile.
    const std::string mma = absl::StrCat(
        "mma.sync.aligned.m16n8k16.row.col.f32.", type, ".", type, ".f32");
    size_t count = 0;
    for (size_t at = body.find(mma); at != std::string::npos;
         at = body.find(mma, at + 1)) {
      ++count;
    }
    EXPECT_EQ(count, 32u) << body;
    EXPECT_THAT(body, HasSubstr("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
    EXPECT_THAT(body, HasSubstr("st.shared.u16"));
    EXPECT_THAT(body, HasSubstr("bar.sync"));
    EXPECT_THAT(body, Not(HasSubstr(".local")));
    EXPECT_THAT(body, Not(HasSubstr("wgmma")));
    const std::string loop = HotLoop(body);
    EXPECT_THAT(loop, HasSubstr("mma.sync"));
    EXPECT_THAT(loop, Not(HasSubstr(".local")));
    const std::string log = Validate(p);
    EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
    EXPECT_THAT(log, HasSubstr("0 bytes spill loads"));
    EXPECT_GT(UsedRegisters(log), 0);
    EXPECT_LE(UsedRegisters(log), kRegisterBudget) << log;
    std::printf("mma.sync %s: %s\n", type, log.c_str());
  }
}

TEST(GpuGemmPtxTest, WgmmaForSm90a) {
  for (const char* type : {"bf16", "f16"}) {
    SCOPED_TRACE(type);
    GpuProgram p =
        Compile(DotModule(type, "2,200,50", "2,50,300", "2,200,300", kBatched),
                "sm_90a");
    ASSERT_EQ(p.launches.size(), 1u);
    const KernelLaunch& k = p.launches[0];
    EXPECT_EQ(k.kind, KernelKind::kWgmmaGemm);
    EXPECT_EQ(k.block[0], 256);  // two warpgroups, m64 each
    EXPECT_EQ(k.grid[0], 3);
    EXPECT_EQ(k.grid[1], 2);
    EXPECT_EQ(k.grid[2], 2);
    const std::string body = KernelBody(p.ptx, k.kernel);
    ASSERT_FALSE(body.empty()) << p.ptx;
    EXPECT_THAT(
        body, HasSubstr(absl::StrCat("wgmma.mma_async.sync.aligned.m64n128k16."
                                     "f32.",
                                     type, ".", type)));
    EXPECT_THAT(body, HasSubstr("wgmma.fence.sync.aligned"));
    EXPECT_THAT(body, HasSubstr("wgmma.commit_group.sync.aligned"));
    EXPECT_THAT(body, HasSubstr("wgmma.wait_group.sync.aligned 0"));
    EXPECT_THAT(body, HasSubstr("fence.proxy.async.shared::cta"));
    EXPECT_THAT(body, HasSubstr("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
    EXPECT_THAT(body, Not(HasSubstr("mma.sync")));
    EXPECT_THAT(body, Not(HasSubstr(".local")));
    const std::string log = Validate(p);
    EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
    EXPECT_THAT(log, HasSubstr("0 bytes spill loads"));
    EXPECT_GT(UsedRegisters(log), 0);
    EXPECT_LE(UsedRegisters(log), kRegisterBudget) << log;
    std::printf("wgmma %s: %s\n", type, log.c_str());
    // The same module for sm_90 takes mma.sync (wgmma is sm_90a only).
    GpuProgram q =
        Compile(DotModule(type, "2,200,50", "2,50,300", "2,200,300", kBatched),
                "sm_90");
    ASSERT_EQ(q.launches.size(), 1u);
    EXPECT_EQ(q.launches[0].kind, KernelKind::kMmaGemm);
    EXPECT_THAT(q.ptx, Not(HasSubstr("wgmma")));
  }
}

// Row-major operands straight from buffers with k % 8 == 0 (A) and
// n % 8 == 0 (B) are copied with 16-byte cp.async (zero-filled at the
// edges); mma.sync reads the row-major B tile with ldmatrix.trans, wgmma
// keeps the B loads (its descriptor wants K-major core matrices).
TEST(GpuGemmPtxTest, CpAsyncForAlignedRowMajorOperands) {
  for (const char* arch : {"sm_90", "sm_90a"}) {
    SCOPED_TRACE(arch);
    const bool wgmma = std::string(arch) == "sm_90a";
    GpuProgram p = Compile(
        DotModule("bf16", "2,200,64", "2,64,304", "2,200,304", kBatched), arch);
    ASSERT_EQ(p.launches.size(), 1u);
    const KernelLaunch& k = p.launches[0];
    const std::string body = KernelBody(p.ptx, k.kernel);
    EXPECT_THAT(body, HasSubstr("cp.async.cg.shared.global"));
    EXPECT_THAT(body, HasSubstr("cp.async.commit_group"));
    // Double buffered: the next tile's group stays in flight.
    EXPECT_THAT(body, HasSubstr("cp.async.wait_group 1"));
    EXPECT_THAT(body, HasSubstr("cp.async.wait_group 0"));  // after the loop
    if (wgmma) {
      EXPECT_THAT(body, HasSubstr("wgmma.mma_async"));
      EXPECT_THAT(body, HasSubstr("st.shared.u16"));  // B
      EXPECT_THAT(body, Not(HasSubstr(".trans")));
    } else {
      EXPECT_THAT(body, HasSubstr("ldmatrix.sync.aligned.m8n8.x4.trans"));
      EXPECT_THAT(body, Not(HasSubstr("st.shared.u16")));  // both direct
    }
    EXPECT_THAT(body, Not(HasSubstr(".local")));
    const std::string log = Validate(p);
    EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
    EXPECT_LE(UsedRegisters(log), kRegisterBudget) << log;
    std::printf("cp.async %s: %s\n", arch, log.c_str());
  }
  // k = 60: A's 16-byte chunks would straddle rows, so A keeps the loads.
  GpuProgram q =
      Compile(DotModule("bf16", "2,200,60", "2,60,304", "2,200,304", kBatched),
              "sm_90");
  ASSERT_EQ(q.launches.size(), 1u);
  const std::string body = KernelBody(q.ptx, q.launches[0].kernel);
  EXPECT_THAT(body, HasSubstr("st.shared.u16"));
  EXPECT_THAT(body, HasSubstr("cp.async.cg.shared.global"));  // B
}

// f32 / f64 stay on FFMA (no tf32); other dimension numberings, mixed
// types and a bf16 x bf16 -> f32 dot keep their previous kernels.
TEST(GpuGemmPtxTest, WhereTheTensorCorePathDoesNotApply) {
  struct Case {
    std::string text;
    KernelKind kind;
  };
  const std::vector<Case> cases = {
      {DotModule("f32", "2,70,50", "2,50,90", "2,70,90", kBatched),
       KernelKind::kDot},
      {DotModule("f64", "2,70,50", "2,50,90", "2,70,90", kBatched),
       KernelKind::kDot},
      // Contracting the lhs's first dimension: not [b, m, k] x [b, k, n].
      {DotModule("bf16", "50,70", "50,90", "70,90",
                 "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
       KernelKind::kElementwise},
      {"HloModule m\nENTRY e {\n  a = bf16[70,50] parameter(0)\n  b = "
       "bf16[50,90] parameter(1)\n  ROOT d = f32[70,90] dot(a, b), "
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
       KernelKind::kElementwise},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    for (const char* arch : {"sm_90", "sm_90a"}) {
      GpuProgram p = Compile(c.text, arch);
      ASSERT_EQ(p.launches.size(), 1u);
      EXPECT_EQ(p.launches[0].kind, c.kind);
      EXPECT_THAT(p.ptx, Not(HasSubstr("mma")));
      Validate(p);
    }
  }
}

// An operand computed by another kernel (convert) and a column-major
// operand: the tile loads read both through the element generators.
TEST(GpuGemmPtxTest, ProducerKernelAndColumnMajorOperand) {
  const std::string text = R"(HloModule m
ENTRY e {
  a = f32[33,17] parameter(0)
  c = bf16[33,17] convert(a)
  b = bf16[17,130]{0,1} parameter(1)
  ROOT d = bf16[33,130] dot(c, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  for (const char* arch : {"sm_90", "sm_90a"}) {
    GpuProgram p = Compile(text, arch);
    ASSERT_EQ(p.launches.size(), 2u);
    const KernelLaunch& k = p.launches[1];
    EXPECT_EQ(k.kind, std::string(arch) == "sm_90a" ? KernelKind::kWgmmaGemm
                                                    : KernelKind::kMmaGemm);
    EXPECT_EQ(k.grid[0], 2);  // ceil(130 / 128)
    EXPECT_EQ(k.grid[1], 1);
    const std::string log = Validate(p);
    EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
  }
}

// ---------------------------------------------------------------------
// Convolution as an implicit GEMM.

std::string ConvModule(const std::string& type, const std::string& lhs,
                       const std::string& rhs, const std::string& out,
                       const std::string& attrs) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = ", type, "[", lhs,
                      "] parameter(0)\n  w = ", type, "[", rhs,
                      "] parameter(1)\n  ROOT c = ", type, "[", out,
                      "] convolution(x, w), ", attrs, "\n}\n");
}

TEST(GpuConvTest, ImplicitGemmOnTheTensorCoreTiles) {
  struct Case {
    std::string text;
    int64_t groups, m, n, k;
  };
  const std::vector<Case> cases = {
      // NHWC 3x3, stride 1, pad 1: m = 2*8*8, n = 16, k = 9*8.
      {ConvModule("bf16", "2,8,8,8", "3,3,8,16", "2,8,8,16",
                  "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
       1, 128, 16, 72},
      // NCHW, stride 2, rhs dilation 2, asymmetric padding.
      {ConvModule("f16", "1,4,9,9", "6,4,3,3", "1,6,3,3",
                  "window={size=3x3 stride=2x2 pad=1_0x1_0 rhs_dilate=2x2}, "
                  "dim_labels=bf01_oi01->bf01"),
       1, 9, 6, 36},
      // Feature groups 2 (grouped conv), lhs dilation, reversal.
      {ConvModule("bf16", "1,5,5,4", "2,2,2,6", "1,10,10,6",
                  "window={size=2x2 pad=1_1x1_1 lhs_dilate=2x2 "
                  "rhs_reversal=1x1}, dim_labels=b01f_01io->b01f, "
                  "feature_group_count=2"),
       2, 100, 3, 8},
      // 1-D, negative padding.
      {ConvModule("bf16", "3,20,5", "4,5,7", "3,15,7",
                  "window={size=4 pad=-1_-1}, dim_labels=b0f_0io->b0f"),
       1, 45, 7, 20},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    for (const char* arch : {"sm_90", "sm_90a"}) {
      GpuProgram p = Compile(c.text, arch);
      ASSERT_EQ(p.launches.size(), 1u);
      const KernelLaunch& k = p.launches[0];
      EXPECT_EQ(k.kind, std::string(arch) == "sm_90a" ? KernelKind::kWgmmaGemm
                                                      : KernelKind::kMmaGemm);
      EXPECT_EQ(k.batch, c.groups);
      EXPECT_EQ(k.m, c.m);
      EXPECT_EQ(k.n, c.n);
      EXPECT_EQ(k.k, c.k);
      const std::string body = KernelBody(p.ptx, k.kernel);
      EXPECT_THAT(body, HasSubstr(std::string(arch) == "sm_90a"
                                      ? "wgmma.mma_async"
                                      : "mma.sync.aligned.m16n8k16"));
      EXPECT_THAT(body, Not(HasSubstr(".local")));
      const std::string log = Validate(p);
      EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
      EXPECT_LE(UsedRegisters(log), kRegisterBudget) << log;
    }
  }
}

// f32 / f64 convolutions take the same implicit GEMM on the FFMA tiles.
TEST(GpuConvTest, ImplicitGemmOnTheFfmaTiles) {
  const std::vector<std::string> cases = {
      ConvModule("f32", "2,8,8,8", "3,3,8,16", "2,8,8,16",
                 "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
      ConvModule("f64", "1,5,5,4", "2,2,2,6", "1,10,10,6",
                 "window={size=2x2 pad=1_1x1_1 lhs_dilate=2x2 "
                 "rhs_reversal=1x1}, dim_labels=b01f_01io->b01f, "
                 "feature_group_count=2"),
  };
  for (const std::string& text : cases) {
    SCOPED_TRACE(text);
    GpuProgram p = Compile(text, "sm_90");
    ASSERT_EQ(p.launches.size(), 1u);
    const KernelLaunch& k = p.launches[0];
    EXPECT_EQ(k.kind, KernelKind::kDot);
    EXPECT_THAT(k.kernel, HasSubstr("conv_gemm"));
    const std::string body = KernelBody(p.ptx, k.kernel);
    EXPECT_THAT(body, HasSubstr("fma.rn.f"));
    EXPECT_THAT(body, HasSubstr("ld.shared.f"));
    EXPECT_THAT(body, Not(HasSubstr(".local")));
    const std::string log = Validate(p);
    EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
    // The window arithmetic of the A loads costs registers over the dot's
    // 40: measured 40 (f32 NHWC 3x3) and 72 (f64, grouped, dilated).
    EXPECT_LE(UsedRegisters(log), 96) << log;
    std::printf("FFMA conv: %s\n", log.c_str());
  }
  GpuProgram p = Compile(cases[1], "sm_90");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].batch, 2);    // feature groups
  EXPECT_EQ(p.launches[0].m, 100);      // 1 x 10 x 10
  EXPECT_EQ(p.launches[0].n, 3);        // 6 / 2
  EXPECT_EQ(p.launches[0].k, 8);        // 2 x 2 x 2
  EXPECT_EQ(p.launches[0].grid[1], 7);  // ceil(100 / 16)
}

TEST(GpuConvTest, FallsBackToTheElementwiseKernel) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {ConvModule("bf16", "4,5,5,2", "3,3,2,4", "2,3,3,4",
                  "window={size=3x3}, dim_labels=b01f_01io->b01f, "
                  "batch_group_count=2"),
       "batch_group_count > 1"},
      {ConvModule("s32", "1,5,5,2", "3,3,2,4", "1,3,3,4",
                  "window={size=3x3}, dim_labels=b01f_01io->b01f"),
       "operands and result are not one common f32 / f64 / bf16 / f16 type"},
  };
  for (const auto& [text, reason] : cases) {
    SCOPED_TRACE(text);
    GpuProgram p = Compile(text, "sm_90");
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_EQ(p.launches[0].kind, KernelKind::kElementwise);
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
    ASSERT_TRUE(m.ok());
    std::string why;
    EXPECT_FALSE(ConvolutionAsGemm(*(*m)->entry()->root(), &why).has_value());
    EXPECT_EQ(why, reason);
  }
}

// ---------------------------------------------------------------------
// Index coverage of the tile maps over the launch grid.

TEST(GpuGemmIndexTest, EveryOutputOnceEveryOperandElementPerKTile) {
  for (TensorCoreKind kind :
       {TensorCoreKind::kMmaSync, TensorCoreKind::kWgmma}) {
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{70, 90, 50},
                           {64, 64, 32},
                           {1, 1, 1},
                           {129, 65, 97}}) {
      SCOPED_TRACE(
          absl::StrCat(static_cast<int>(kind), ": ", m, "x", n, "x", k));
      const int64_t gx = (n + kGemmBlockN - 1) / kGemmBlockN;
      const int64_t gy = (m + kGemmBlockM - 1) / kGemmBlockM;
      std::vector<int> written(m * n, 0), read_a(m * k, 0), read_b(k * n, 0);
      for (int64_t by = 0; by < gy; ++by) {
        for (int64_t bx = 0; bx < gx; ++bx) {
          // Every tile slot is filled exactly once per k tile (masked
          // slots with zero).
          for (int64_t kt = 0; kt < k; kt += kGemmBlockK) {
            std::vector<int> slot_a(kGemmBlockM * kGemmBlockK, 0),
                slot_b(kGemmBlockK * kGemmBlockN, 0);
            for (int64_t t = 0; t < kGemmThreads; ++t) {
              for (int64_t s = 0; s < kGemmLoadsPerThread; ++s) {
                TileCoord a = GemmLoadA(t, s);
                ++slot_a[a.row * kGemmBlockK + a.col];
                const int64_t row = by * kGemmBlockM + a.row, l = kt + a.col;
                if (row < m && l < k) ++read_a[row * k + l];
                TileCoord b = GemmLoadB(t, s);
                ++slot_b[b.row * kGemmBlockN + b.col];
                const int64_t lb = kt + b.row, col = bx * kGemmBlockN + b.col;
                if (lb < k && col < n) ++read_b[lb * n + col];
              }
            }
            for (int v : slot_a) ASSERT_EQ(v, 1);
            for (int v : slot_b) ASSERT_EQ(v, 1);
            // The cp.async chunks (8 elements each) fill the same tiles
            // exactly once.
            std::vector<int> chunk_a(kGemmBlockM * kGemmBlockK, 0),
                chunk_b(kGemmBlockK * kGemmBlockN, 0);
            for (int64_t t = 0; t < kGemmThreads; ++t) {
              for (int64_t s = 0; s < kGemmChunksPerThread; ++s) {
                TileCoord a = GemmChunkA(t, s), b = GemmChunkB(t, s);
                for (int64_t e = 0; e < 8; ++e) {
                  ++chunk_a[a.row * kGemmBlockK + a.col + e];
                  ++chunk_b[b.row * kGemmBlockN + b.col + e];
                }
              }
            }
            for (int v : chunk_a) ASSERT_EQ(v, 1);
            for (int v : chunk_b) ASSERT_EQ(v, 1);
          }
          for (int64_t t = 0; t < kGemmThreads; ++t) {
            for (int64_t r = 0; r < kGemmAccumulators; ++r) {
              TileCoord c = GemmAccumulator(kind, t, r);
              ASSERT_LT(c.row, kGemmBlockM);
              ASSERT_LT(c.col, kGemmBlockN);
              const int64_t row = by * kGemmBlockM + c.row;
              const int64_t col = bx * kGemmBlockN + c.col;
              if (row < m && col < n) ++written[row * n + col];
            }
          }
        }
      }
      for (size_t i = 0; i < written.size(); ++i) {
        ASSERT_EQ(written[i], 1) << "output " << i;
      }
      // A element (i, l) once per block column; B (l, j) once per block row.
      for (size_t i = 0; i < read_a.size(); ++i) {
        ASSERT_EQ(read_a[i], gx) << "A element " << i;
      }
      for (size_t i = 0; i < read_b.size(); ++i) {
        ASSERT_EQ(read_b[i], gy) << "B element " << i;
      }
    }
  }
}

// ---------------------------------------------------------------------
// Host emulation: the tile loads, the ldmatrix lane addresses, the
// fragment layouts of the PTX ISA (mma.m16n8k16 and wgmma m64nNk16, A
// row / B col, f32 C / D) and the accumulator -> output map, on one whole
// GEMM with masked edges, against a triple loop. Values are small
// integers, so every sum is exact in f32 and the comparison is equality.

// PTX ISA "Matrix fragments for mma.m16n8k16" (f16 / bf16 A, B; f32 C):
// thread t of a warp, g = t / 4, q = t % 4.
struct MmaFragments {
  // A element (row, k) of register half h (0..7: 4 registers x 2).
  static TileCoord A(int64_t t, int64_t h) {
    const int64_t g = t / 4, q = t % 4, reg = h / 2;
    return {g + (reg % 2) * 8, q * 2 + h % 2 + (reg / 2) * 8};
  }
  // B element (k, col) of register half h (0..3).
  static TileCoord B(int64_t t, int64_t h) {
    const int64_t g = t / 4, q = t % 4, reg = h / 2;
    return {q * 2 + h % 2 + reg * 8, g};
  }
  // C / D element (row, col) of register i (0..3).
  static TileCoord C(int64_t t, int64_t i) {
    const int64_t g = t / 4, q = t % 4;
    return {g + (i / 2) * 8, q * 2 + i % 2};
  }
};

// PTX ISA ldmatrix .m8n8.x4.b16: lanes 8j..8j+7 give the row addresses of
// matrix j; thread t receives in register j the two elements (row t / 4,
// columns 2 (t % 4), 2 (t % 4) + 1) of matrix j.
template <typename Tile>
std::vector<float> Ldmatrix(const Tile& tile, int64_t t,
                            const std::vector<TileCoord>& lane_rows) {
  std::vector<float> halves(8);
  for (int64_t j = 0; j < 4; ++j) {
    const TileCoord start = lane_rows[8 * j + t / 4];
    for (int64_t e = 0; e < 2; ++e) {
      halves[2 * j + e] = tile(start.row, start.col + 2 * (t % 4) + e);
    }
  }
  return halves;
}

// ldmatrix .trans: thread t receives in register j the elements (rows
// 2 (t % 4), 2 (t % 4) + 1; column t / 4) of matrix j.
template <typename Tile>
std::vector<float> LdmatrixTrans(const Tile& tile, int64_t t,
                                 const std::vector<TileCoord>& lane_rows) {
  std::vector<float> halves(8);
  for (int64_t j = 0; j < 4; ++j) {
    for (int64_t e = 0; e < 2; ++e) {
      const TileCoord start = lane_rows[8 * j + 2 * (t % 4) + e];
      halves[2 * j + e] = tile(start.row, start.col + t / 4);
    }
  }
  return halves;
}

std::vector<float> EmulateGemm(TensorCoreKind kind, int64_t m, int64_t n,
                               int64_t k, const std::vector<float>& a,
                               const std::vector<float>& b,
                               bool direct_a = false, bool direct_b = false) {
  std::vector<float> c(m * n, -1e9f);
  const int64_t gx = (n + kGemmBlockN - 1) / kGemmBlockN;
  const int64_t gy = (m + kGemmBlockM - 1) / kGemmBlockM;
  for (int64_t by = 0; by < gy; ++by) {
    for (int64_t bx = 0; bx < gx; ++bx) {
      std::vector<std::vector<float>> acc(
          kGemmThreads, std::vector<float>(kGemmAccumulators));
      for (int64_t kt = 0; kt < k; kt += kGemmBlockK) {
        // Tile loads (GemmLoadA / GemmLoadB), zero outside.
        std::vector<float> sa(kGemmBlockM * kGemmPitch, NAN);
        std::vector<float> sb(kGemmBlockN * kGemmPitch, NAN);   // [j][l]
        std::vector<float> sw(kGemmBlockK * kGemmBlockN, NAN);  // wgmma B
        std::vector<float> sr(kGemmBlockK * kGemmPitchB, NAN);  // [l][j]
        for (int64_t t = 0; t < kGemmThreads; ++t) {
          // cp.async chunks: 8 elements, all in range or all zero (the
          // kernel requires k % 8 == 0 for A, n % 8 == 0 for B).
          for (int64_t s = 0; s < kGemmChunksPerThread; ++s) {
            TileCoord p = GemmChunkA(t, s);
            const int64_t row = by * kGemmBlockM + p.row, l = kt + p.col;
            for (int64_t e = 0; direct_a && e < 8; ++e) {
              sa[p.row * kGemmPitch + p.col + e] =
                  row < m && l < k ? a[row * k + l + e] : 0.0f;
            }
            TileCoord q = GemmChunkB(t, s);
            const int64_t lb = kt + q.row, col = bx * kGemmBlockN + q.col;
            for (int64_t e = 0; direct_b && e < 8; ++e) {
              sr[q.row * kGemmPitchB + q.col + e] =
                  lb < k && col < n ? b[lb * n + col + e] : 0.0f;
            }
          }
          for (int64_t s = 0; s < kGemmLoadsPerThread; ++s) {
            TileCoord p = GemmLoadA(t, s);
            const int64_t row = by * kGemmBlockM + p.row, l = kt + p.col;
            if (!direct_a) {
              sa[p.row * kGemmPitch + p.col] =
                  row < m && l < k ? a[row * k + l] : 0.0f;
            }
            TileCoord q = GemmLoadB(t, s);
            const int64_t lb = kt + q.row, col = bx * kGemmBlockN + q.col;
            const float v = lb < k && col < n ? b[lb * n + col] : 0.0f;
            sb[q.col * kGemmPitch + q.row] = v;
            sw[WgmmaBOffset(q.row, q.col)] = v;
          }
        }
        auto tile_a = [&](int64_t r, int64_t col) {
          return sa[r * kGemmPitch + col];
        };
        auto tile_bt = [&](int64_t j, int64_t l) {
          return sb[j * kGemmPitch + l];
        };
        auto tile_br = [&](int64_t l, int64_t j) {
          return sr[l * kGemmPitchB + j];
        };
        for (int64_t ks = 0; ks < kGemmBlockK; ks += 16) {
          for (int64_t warp = 0; warp < kGemmThreads / 32; ++warp) {
            if (kind == TensorCoreKind::kMmaSync) {
              for (int64_t mi = 0; mi < kGemmMmaM; ++mi) {
                for (int64_t ni = 0; ni < kGemmMmaN; ++ni) {
                  // Assemble the warp's 16x16 A and 16x8 B from the
                  // fragments every lane received.
                  float am[16][16], bm[16][8];
                  std::vector<TileCoord> a_rows, b_rows;
                  for (int64_t lane = 0; lane < 32; ++lane) {
                    a_rows.push_back(GemmLdmatrixA(kind, warp, lane, mi, ks));
                    TileCoord lb =
                        direct_b ? GemmLdmatrixBTrans(warp, lane, ni / 2, ks)
                                 : GemmLdmatrixB(warp, lane, ni / 2, ks);
                    // [j][l] tile, or the [l][j] one as given.
                    b_rows.push_back(direct_b ? lb : TileCoord{lb.col, lb.row});
                  }
                  for (int64_t t = 0; t < 32; ++t) {
                    std::vector<float> fa = Ldmatrix(tile_a, t, a_rows);
                    std::vector<float> fb =
                        direct_b ? LdmatrixTrans(tile_br, t, b_rows)
                                 : Ldmatrix(tile_bt, t, b_rows);
                    for (int64_t h = 0; h < 8; ++h) {
                      TileCoord e = MmaFragments::A(t, h);
                      am[e.row][e.col] = fa[h];
                    }
                    for (int64_t h = 0; h < 4; ++h) {
                      TileCoord e = MmaFragments::B(t, h);
                      bm[e.row][e.col] = fb[(ni % 2) * 4 + h];
                    }
                  }
                  for (int64_t t = 0; t < 32; ++t) {
                    for (int64_t i = 0; i < 4; ++i) {
                      TileCoord e = MmaFragments::C(t, i);
                      float sum = 0;
                      for (int64_t l = 0; l < 16; ++l) {
                        sum += am[e.row][l] * bm[l][e.col];
                      }
                      acc[warp * 32 + t][(mi * kGemmMmaN + ni) * 4 + i] += sum;
                    }
                  }
                }
              }
            } else {
              // wgmma m64nNk16: A of warp w's rows from registers
              // (ldmatrix), B through the descriptor.
              float am[16][16];
              std::vector<TileCoord> a_rows;
              for (int64_t lane = 0; lane < 32; ++lane) {
                a_rows.push_back(GemmLdmatrixA(kind, warp, lane, 0, ks));
              }
              for (int64_t t = 0; t < 32; ++t) {
                std::vector<float> fa = Ldmatrix(tile_a, t, a_rows);
                for (int64_t h = 0; h < 8; ++h) {
                  TileCoord e = MmaFragments::A(t, h);
                  am[e.row][e.col] = fa[h];
                }
              }
              // Descriptor semantics (PTX ISA, K-major, no swizzle): B(l,
              // j) of the k16 slice at byte start + (l / 8) * LBO +
              // (j / 8) * SBO + (j % 8) * 16 + (l % 8) * 2, start = the
              // tile + (ks / 8) * LBO.
              auto desc_b = [&](int64_t l, int64_t j) {
                const int64_t bytes = (ks / 8) * kWgmmaLeadingBytes +
                                      (l / 8) * kWgmmaLeadingBytes +
                                      (j / 8) * kWgmmaStrideBytes +
                                      (j % 8) * 16 + (l % 8) * 2;
                return sw[bytes / 2];
              };
              for (int64_t t = 0; t < 32; ++t) {
                for (int64_t r = 0; r < kGemmAccumulators; ++r) {
                  // wgmma D fragment: register 4i + x is n block i with
                  // the mma.m16n8 C layout within the warp's 16 rows.
                  TileCoord e = MmaFragments::C(t, r % 4);
                  const int64_t col = 8 * (r / 4) + e.col;
                  float sum = 0;
                  for (int64_t l = 0; l < 16; ++l) {
                    sum += am[e.row][l] * desc_b(l, col);
                  }
                  acc[warp * 32 + t][r] += sum;
                }
              }
            }
          }
        }
      }
      for (int64_t t = 0; t < kGemmThreads; ++t) {
        for (int64_t r = 0; r < kGemmAccumulators; ++r) {
          TileCoord e = GemmAccumulator(kind, t, r);
          const int64_t row = by * kGemmBlockM + e.row;
          const int64_t col = bx * kGemmBlockN + e.col;
          if (row < m && col < n) c[row * n + col] = acc[t][r];
        }
      }
    }
  }
  return c;
}

TEST(GpuGemmEmulationTest, FragmentMapsComputeTheProduct) {
  std::mt19937 rng(19);
  std::uniform_int_distribution<int> digit(-3, 3);
  for (TensorCoreKind kind :
       {TensorCoreKind::kMmaSync, TensorCoreKind::kWgmma}) {
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{70, 90, 50},
                           {64, 64, 32},
                           {5, 3, 70},
                           {130, 129, 33},
                           {70, 136, 48}}) {
      SCOPED_TRACE(
          absl::StrCat(static_cast<int>(kind), ": ", m, "x", n, "x", k));
      std::vector<float> a(m * k), b(k * n);
      for (float& v : a) v = static_cast<float>(digit(rng));
      for (float& v : b) v = static_cast<float>(digit(rng));
      // The cp.async variants where their alignment holds (B only on
      // mma.sync).
      for (int direct = 0; direct < 4; ++direct) {
        const bool da = direct & 1, db = direct & 2;
        if ((da && k % 8 != 0) || (db && n % 8 != 0) ||
            (db && kind == TensorCoreKind::kWgmma)) {
          continue;
        }
        SCOPED_TRACE(absl::StrCat("direct A ", da, " B ", db));
        std::vector<float> c = EmulateGemm(kind, m, n, k, a, b, da, db);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            float want = 0;
            for (int64_t l = 0; l < k; ++l) want += a[i * k + l] * b[l * n + j];
            ASSERT_EQ(c[i * n + j], want) << "C[" << i << "][" << j << "]";
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace hloref::gpu
