// The GPU backend without a GPU: HLO -> PTX for every golden case, PTX
// validated by ptxas inside libnvJitLink for sm_90 and sm_90a; the
// reduction and dot kernels' PTX checked FileCheck-style; the launch grids
// interpreted on the host (every output element written exactly once);
// the backend's no-device behaviour. Tests that need a device skip.
#include "backends/gpu/gpu_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/backend.h"
#include "backends/cpu/runtime/custom_call.h"
#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/gpu_emitter.h"
#include "backends/gpu/nvjitlink.h"
#include "backends/gpu/nvptx_target.h"
#include "conformance/generators/generator.h"
#include "conformance/harness/golden_case.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref::gpu {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return nullptr;
  absl::Status v = VerifyModule(**m, VerifyOptions());
  EXPECT_TRUE(v.ok()) << v;
  return *std::move(m);
}

GpuProgram Compile(const std::string& text, const std::string& arch = "sm_90",
                   bool specialised = true) {
  std::unique_ptr<HloModule> m = Parse(text);
  if (m == nullptr) return {};
  GpuCompileOptions options;
  options.arch = arch;
  options.specialised_kernels = specialised;
  absl::StatusOr<GpuProgram> p = CompileModuleToPtx(*m, options);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : GpuProgram{};
}

// nvJitLink's ptxas accepts the PTX; returns its info log.
std::string Validate(const GpuProgram& p) {
  absl::StatusOr<CubinResult> c = CompilePtxToCubin(p.ptx, p.arch);
  EXPECT_TRUE(c.ok()) << c.status() << "\n" << p.ptx;
  return c.ok() ? c->info_log : "";
}

// The register count ptxas reports for the one kernel of a log
// ("Used N registers"), or -1.
int UsedRegisters(const std::string& log) {
  const std::string key = "Used ";
  size_t at = log.find(key);
  if (at == std::string::npos) return -1;
  return std::atoi(log.c_str() + at + key.size());
}

// The lines of `ptx` between the first line containing `from` and the
// next line containing `to` (FileCheck's CHECK-LABEL scoping).
std::string Section(const std::string& ptx, const std::string& from,
                    const std::string& to) {
  size_t a = ptx.find(from);
  if (a == std::string::npos) return "";
  size_t b = ptx.find(to, a + from.size());
  return ptx.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

// ---------------------------------------------------------------------
// Target selection.

TEST(NvptxTargetTest, ArchesAndPtxVersion) {
  EXPECT_TRUE(CheckArch("sm_90").ok());
  EXPECT_TRUE(CheckArch("sm_90a").ok());
  EXPECT_TRUE(CheckArch("sm_80").ok());
  absl::Status old = CheckArch("sm_70");
  EXPECT_THAT(old.message(), HasSubstr("sm_75 and newer"));
  absl::Status bogus = CheckArch("sm_999");
  EXPECT_EQ(bogus.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bogus.message(), HasSubstr("sm_90a"));
  // LLVM 19's highest PTX is 8.5, below CUDA 13's 9.0 (facts doc 1.1).
  EXPECT_EQ(PtxVersionFeature(), "+ptx85");
}

TEST(NvptxTargetTest, PtxHeader) {
  GpuProgram p = Compile(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
})");
  EXPECT_THAT(p.ptx, HasSubstr(".version 8.5"));
  EXPECT_THAT(p.ptx, HasSubstr(".target sm_90"));
  EXPECT_THAT(p.ptx, HasSubstr(".address_size 64"));
  EXPECT_THAT(p.ptx, HasSubstr(".entry k0_loop_n"));
  EXPECT_THAT(p.ptx, HasSubstr(".maxntid 256, 1, 1"));
  EXPECT_FALSE(p.linked_libdevice);
  Validate(p);
  GpuProgram a = Compile(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
})",
                         "sm_90a");
  EXPECT_THAT(a.ptx, HasSubstr(".target sm_90a"));
  Validate(a);
}

// ---------------------------------------------------------------------
// Floating point: IEEE division and sqrt, no contraction.

TEST(GpuPtxTest, NoContractionIeeeDivideSqrt) {
  GpuProgram p = Compile(R"(
HloModule m
ENTRY e {
  a = f32[1024] parameter(0)
  b = f32[1024] parameter(1)
  c = f32[1024] parameter(2)
  m = f32[1024] multiply(a, b)
  s = f32[1024] add(m, c)
  d = f32[1024] divide(s, b)
  ROOT r = f32[1024] sqrt(d)
})");
  // One fused kernel.
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_THAT(p.ptx, HasSubstr("mul.rn.f32"));
  EXPECT_THAT(p.ptx, HasSubstr("add.rn.f32"));
  EXPECT_THAT(p.ptx, HasSubstr("div.rn.f32"));
  EXPECT_THAT(p.ptx, HasSubstr("sqrt.rn.f32"));
  EXPECT_THAT(p.ptx, Not(HasSubstr("fma.rn.f32")));
  EXPECT_THAT(p.ptx, Not(HasSubstr("div.full")));
  EXPECT_THAT(p.ptx, Not(HasSubstr("sqrt.approx")));
  Validate(p);
}

TEST(GpuPtxTest, LibmFallbackResolvesToLibdevice) {
  // f64 sine: the shared kernel calls the CPU runtime's scalar fallback for
  // |x| >= 2^27 (math_ir.h); on the GPU that is libdevice's __nv_sin.
  GpuProgram p = Compile(R"(
HloModule m
ENTRY e {
  a = f64[64] parameter(0)
  ROOT s = f64[64] sine(a)
})");
  EXPECT_TRUE(p.linked_libdevice);
  // Nothing left to link: no external function, libdevice's code inlined.
  EXPECT_THAT(p.optimized_ir, Not(HasSubstr("declare double @hloref_cpu_")));
  EXPECT_THAT(p.ptx, Not(HasSubstr(".extern")));
  EXPECT_THAT(p.ptx, HasSubstr("__internal_trig_reduction_slowpathd"));
  Validate(p);
}

TEST(GpuPtxTest, ComplexTranscendentalsAreDeviceCode) {
  // c128 exp, c64 acos and c128 power: the complex_math hook is inline
  // device code (gpu_device_ops.cc) over libdevice's real functions; no
  // call into the CPU runtime is left, one element-wise kernel each.
  for (const char* op :
       {"c128[64] exponential(a)", "c64[64] acos(a)", "c128[64] power(a, a)"}) {
    const std::string type =
        std::string(op).substr(0, 3) == "c64" ? "c64[64]" : "c128[64]";
    GpuProgram p = Compile(absl::StrCat(R"(
HloModule m
ENTRY e {
  a = )",
                                        type, R"( parameter(0)
  ROOT s = )",
                                        op, R"(
})"));
    ASSERT_EQ(p.launches.size(), 1u) << op;
    EXPECT_EQ(p.launches[0].kind, KernelKind::kElementwise);
    EXPECT_TRUE(p.linked_libdevice) << op;
    EXPECT_THAT(p.llvm_ir, HasSubstr("@__nv_")) << op;
    EXPECT_THAT(p.optimized_ir, Not(HasSubstr("hloref_cpu_complex"))) << op;
    EXPECT_THAT(p.ptx, Not(HasSubstr(".extern"))) << op;
    EXPECT_THAT(p.ptx, HasSubstr("ld.global.nc")) << op;
    const std::string log = Validate(p);
    EXPECT_THAT(log, HasSubstr("0 bytes spill stores")) << op << "\n" << log;
  }
}

TEST(GpuPtxTest, RngBitGeneratorIsElementParallel) {
  // One work item per Philox block (4 u32 words) / Threefry block (2):
  // a grid-stride kernel over 4096 / 4 and 4096 / 2 items, the rounds
  // unrolled in registers (mul.wide / mul.hi for Philox's products,
  // funnel shifts for Threefry's rotations), no local memory.
  for (const char* alg : {"rng_philox", "rng_three_fry"}) {
    GpuProgram p = Compile(absl::StrCat(R"(
HloModule m
ENTRY e {
  s = u64[3] parameter(0)
  ROOT r = (u64[3], u32[64,64]) rng-bit-generator(s), algorithm=)",
                                        alg, "\n}"));
    ASSERT_EQ(p.launches.size(), 1u) << alg;
    const KernelLaunch& k = p.launches[0];
    const bool philox = std::string(alg) == "rng_philox";
    EXPECT_EQ(k.kind, KernelKind::kElementwise);
    EXPECT_EQ(k.elements, philox ? 1024 : 2048);
    EXPECT_EQ(k.block[0], 256);
    EXPECT_EQ(k.grid[0], philox ? 4 : 8);
    const std::string body = Section(p.ptx, ".entry k0_rng", "\n}\n");
    ASSERT_FALSE(body.empty()) << p.ptx;
    if (philox) {
      EXPECT_THAT(body, testing::AnyOf(HasSubstr("mul.wide.u32"),
                                       HasSubstr("mul.hi.u32")));
    } else {
      EXPECT_THAT(body, HasSubstr("shf.l"));
    }
    EXPECT_THAT(body, Not(HasSubstr(".local")));
    EXPECT_THAT(body, Not(HasSubstr("call")));
    // Measured: 80 registers (sm_90 and sm_90a; the shared-memory kernel
    // 72): three comparator copies and the unrolled binary search.
    const std::string log = Validate(p);
    EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
    EXPECT_GT(UsedRegisters(log), 0);
    EXPECT_LE(UsedRegisters(log), 96) << log;
  }
}

TEST(GpuPtxTest, SortIsABlockMergeSortInSharedMemory) {
  // Keys and values, a row of 1000: one block of 256 threads per row; the
  // permutation in two shared arrays of 1000 i32 (8000 bytes), bar.sync
  // between merge levels, the comparator inline (no call), no local
  // memory; topk on the same machinery.
  GpuProgram p = Compile(R"(
HloModule m
gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=GT, type=TOTALORDER
}
ENTRY e {
  k = f32[12,1000] parameter(0)
  v = s32[12,1000] parameter(1)
  ROOT s = (f32[12,1000], s32[12,1000]) sort(k, v), dimensions={1}, is_stable=true, to_apply=gt
})");
  ASSERT_EQ(p.launches.size(), 1u);
  const KernelLaunch& k = p.launches[0];
  EXPECT_EQ(k.kind, KernelKind::kRowBlocks);
  EXPECT_EQ(k.rows, 12);
  EXPECT_EQ(k.columns, 1000);
  EXPECT_EQ(k.block[0], 256);
  EXPECT_EQ(k.grid[0], 12);
  const std::string body = Section(p.ptx, ".entry k0_sort", "\n}\n");
  ASSERT_FALSE(body.empty()) << p.ptx;
  EXPECT_THAT(p.ptx, HasSubstr(".shared .align 16 .b8 sort_perm_a[4000]"));
  EXPECT_THAT(body, HasSubstr("st.shared.u32"));
  EXPECT_THAT(body, HasSubstr("ld.shared.u32"));
  EXPECT_THAT(body, HasSubstr("bar.sync"));
  EXPECT_THAT(body, Not(HasSubstr(".local")));
  EXPECT_THAT(body, Not(HasSubstr("call")));
  // At most 96 registers: 72 measured with the merge path of the last
  // levels (64 before it).
  std::string log = Validate(p);
  EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
  EXPECT_GT(UsedRegisters(log), 0);
  EXPECT_LE(UsedRegisters(log), 96) << log;

  GpuProgram t = Compile(R"(
HloModule m
ENTRY e {
  a = bf16[4,300] parameter(0)
  ROOT t = (bf16[4,8], s32[4,8]) topk(a), k=8, largest=false
})");
  ASSERT_EQ(t.launches.size(), 1u);
  EXPECT_EQ(t.launches[0].kind, KernelKind::kRowBlocks);
  EXPECT_EQ(t.launches[0].columns, 8);
  const std::string tbody = Section(t.ptx, ".entry k0_topk", "\n}\n");
  EXPECT_THAT(tbody, HasSubstr("bar.sync"));
  EXPECT_THAT(tbody, HasSubstr("ld.shared.u32"));
  EXPECT_THAT(tbody, Not(HasSubstr(".local")));
  log = Validate(t);
  EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
  EXPECT_LE(UsedRegisters(log), 96) << log;
}

TEST(GpuPtxTest, LongSortRowsUseGlobalScratchAndMergePath) {
  // Rows of 10,000 (beyond the 4,096 of shared memory): the two
  // permutation arrays in a global scratch buffer, one 80,000-byte slice
  // per block, addressed by the block index (ld/st.global), the level's
  // redo flag the only shared array; the merge path's binary search and
  // check are in the kernel (more comparator copies: three). For sm_90
  // and sm_90a: no local memory, no spills, at most 64 registers.
  for (const char* arch : {"sm_90", "sm_90a"}) {
    GpuProgram p = Compile(R"(
HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[3,10000] parameter(0)
  ROOT s = f32[3,10000] sort(x), dimensions={1}, to_apply=lt
})",
                           arch);
    ASSERT_EQ(p.launches.size(), 1u);
    const KernelLaunch& k = p.launches[0];
    EXPECT_EQ(k.kind, KernelKind::kRowBlocks);
    EXPECT_EQ(k.grid[0], 3);
    EXPECT_EQ(k.block[0], 256);
    // Operand, result, scratch.
    ASSERT_EQ(k.buffers.size(), 3u);
    EXPECT_EQ(p.buffers[k.buffers[2]].bytes, 3 * 2 * 4 * 10000);
    const std::string body = Section(p.ptx, ".entry k0_sort", "\n}\n");
    ASSERT_FALSE(body.empty()) << p.ptx;
    EXPECT_THAT(p.ptx, Not(HasSubstr("sort_perm_a[")));
    // The 4-byte flag (LLVM demotes it into the kernel).
    EXPECT_THAT(body, HasSubstr(".shared .align 16 .u32 sort_redo"));
    EXPECT_THAT(body, HasSubstr("st.global.u32"));
    EXPECT_THAT(body, HasSubstr("ld.global.u32"));
    EXPECT_THAT(body, HasSubstr("%ctaid.x"));
    EXPECT_THAT(body, HasSubstr("bar.sync"));
    EXPECT_THAT(body, Not(HasSubstr(".local")));
    EXPECT_THAT(body, Not(HasSubstr("call")));
    // Measured: 80 registers (sm_90 and sm_90a; the shared-memory kernel
    // 72): three comparator copies and the unrolled binary search.
    const std::string log = Validate(p);
    EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
    EXPECT_GT(UsedRegisters(log), 0);
    EXPECT_LE(UsedRegisters(log), 96) << log;
  }
  // 20,000 rows of 4,100: the scratch would be 656 MB with one block per
  // row; capped at 256 MiB by launching 8,184 blocks (rows grid-stride).
  GpuProgram big = Compile(R"(
HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[20000,4100] parameter(0)
  ROOT s = f32[20000,4100] sort(x), dimensions={1}, to_apply=lt
})");
  ASSERT_EQ(big.launches.size(), 1u);
  EXPECT_EQ(big.launches[0].grid[0], (int64_t{256} << 20) / (2 * 16400));
  EXPECT_EQ(big.launches[0].rows, 20000);
  EXPECT_EQ(big.buffers[big.launches[0].buffers[2]].bytes, 8184 * 2 * 16400);
}

TEST(GpuPtxTest, LinalgKernelsAreThreadPerProblem) {
  // cholesky: one thread per batch item; triangular-solve: one per
  // (batch item, column of b); double accumulation, sqrt.rn / div.rn, no
  // local memory.
  GpuProgram p = Compile(R"(
HloModule m
ENTRY e {
  a = f32[300,8,8] parameter(0)
  c = f32[300,8,8] cholesky(a), lower=true
  b = f32[300,8,4] parameter(1)
  ROOT x = f32[300,8,4] triangular-solve(c, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
})");
  ASSERT_EQ(p.launches.size(), 2u);
  EXPECT_EQ(p.launches[0].elements, 300);
  EXPECT_EQ(p.launches[0].grid[0], 2);
  EXPECT_EQ(p.launches[1].elements, 1200);
  const std::string chol = Section(p.ptx, ".entry k0_cholesky", "\n}\n");
  EXPECT_THAT(chol, HasSubstr("sqrt.rn.f64"));
  EXPECT_THAT(chol, HasSubstr("div.rn.f64"));
  EXPECT_THAT(p.ptx, Not(HasSubstr(".local")));
  const std::string log = Validate(p);
  // One "0 bytes spill stores" per kernel.
  size_t clean = 0;
  for (size_t at = log.find(", 0 bytes spill stores"); at != std::string::npos;
       at = log.find(", 0 bytes spill stores", at + 1)) {
    ++clean;
  }
  EXPECT_EQ(clean, 2u) << log;
}

TEST(GpuPtxTest, FftIsADirectDftPerOutputElement) {
  // One thread per output element (grid-stride over 2 x 64 x 33), the
  // twiddles from libdevice's sin / cos (linked, nothing external), the
  // phase from exact integer products (rem.u64 or mul.hi by constants).
  GpuProgram p = Compile(R"(
HloModule m
ENTRY e {
  x = f32[2,64,64] parameter(0)
  ROOT f = c64[2,64,33] fft(x), fft_type=RFFT, fft_length={64,64}
})");
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].kind, KernelKind::kElementwise);
  EXPECT_EQ(p.launches[0].elements, 2 * 64 * 33);
  EXPECT_TRUE(p.linked_libdevice);
  EXPECT_THAT(p.ptx, Not(HasSubstr(".extern")));
  const std::string log = Validate(p);
  EXPECT_THAT(log, HasSubstr(", 0 bytes spill stores")) << log;
}

// ---------------------------------------------------------------------
// Reductions and dot: FileCheck-style checks on the PTX.

constexpr char kRowReduce[] = R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[96,1000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[96] reduce(a, z), dimensions={1}, to_apply=add
})";

TEST(GpuPtxTest, RowReductionUsesWarpShufflesAndSharedMemory) {
  GpuProgram p = Compile(kRowReduce);
  ASSERT_EQ(p.launches.size(), 1u);
  const KernelLaunch& k = p.launches[0];
  EXPECT_EQ(k.kind, KernelKind::kRowReduce);
  EXPECT_EQ(k.rows, 96);
  EXPECT_EQ(k.columns, 1000);
  const std::string body = Section(p.ptx, ".entry k0_row_reduce", "\n}\n");
  ASSERT_FALSE(body.empty()) << p.ptx;
  // Five shuffle steps per tree, two trees (warp, then across warps).
  size_t shuffles = 0;
  for (size_t at = body.find("shfl.sync.down.b32"); at != std::string::npos;
       at = body.find("shfl.sync.down.b32", at + 1)) {
    ++shuffles;
  }
  EXPECT_GE(shuffles, 10u);
  EXPECT_THAT(body, HasSubstr("st.shared"));
  EXPECT_THAT(body, HasSubstr("ld.shared"));
  EXPECT_THAT(body, HasSubstr("bar.sync"));
  // No local memory (no stack, no spills) and no atomics.
  EXPECT_THAT(body, Not(HasSubstr(".local")));
  EXPECT_THAT(body, Not(HasSubstr("atom.")));
  // The element index is built from the row and the column directly: no
  // division or remainder anywhere in the kernel.
  EXPECT_THAT(body, Not(HasSubstr("mul.hi")));
  EXPECT_THAT(body, Not(HasSubstr("div.")));
  EXPECT_THAT(body, Not(HasSubstr("rem.")));
  EXPECT_THAT(body, Not(HasSubstr("red.global")));
  EXPECT_THAT(body, Not(HasSubstr("red.shared")));
  const std::string log = Validate(p);
  EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
  // Measured 32 (LLVM 19, CUDA 13.0); 64 keeps full occupancy at 256
  // threads per block.
  EXPECT_GT(UsedRegisters(log), 0);
  EXPECT_LE(UsedRegisters(log), 64);
}

TEST(GpuPtxTest, ColumnReductionTransposesThroughSharedMemory) {
  GpuProgram p = Compile(R"(
HloModule m
mx {
  x = f64[] parameter(0)
  y = f64[] parameter(1)
  ROOT s = f64[] maximum(x, y)
}
ENTRY e {
  a = f64[3,200,70] parameter(0)
  z = f64[] constant(-inf)
  ROOT r = f64[3,70] reduce(a, z), dimensions={1}, to_apply=mx
})");
  ASSERT_EQ(p.launches.size(), 1u);
  const KernelLaunch& k = p.launches[0];
  EXPECT_EQ(k.kind, KernelKind::kColumnReduce);
  EXPECT_EQ(k.batch, 3);
  EXPECT_EQ(k.rows, 200);
  EXPECT_EQ(k.columns, 70);
  const std::string body = Section(p.ptx, ".entry k0_column_reduce", "\n}\n");
  ASSERT_FALSE(body.empty()) << p.ptx;
  EXPECT_THAT(body, HasSubstr("shfl.sync.down.b32"));
  EXPECT_THAT(body, HasSubstr("st.shared.u32"));
  EXPECT_THAT(body, Not(HasSubstr("mul.hi")));
  EXPECT_THAT(body, Not(HasSubstr("div.")));
  EXPECT_THAT(body, Not(HasSubstr("rem.")));
  EXPECT_THAT(body, HasSubstr("bar.sync"));
  EXPECT_THAT(body, Not(HasSubstr(".local")));
  EXPECT_THAT(body, Not(HasSubstr("atom.")));
  const std::string log = Validate(p);
  EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
  EXPECT_GT(UsedRegisters(log), 0);
  EXPECT_LE(UsedRegisters(log), 64);  // measured 26
}

TEST(GpuPtxTest, DotIsTiledThroughSharedMemory) {
  // bf16 / f16 take the tensor-core kernels (gpu_gemm_test.cc).
  for (const char* type : {"f32", "f64"}) {
    SCOPED_TRACE(type);
    GpuProgram p = Compile(absl::StrCat(
        R"(
HloModule m
ENTRY e {
  a = )",
        type, R"([2,70,50] parameter(0)
  b = )",
        type, R"([2,50,90] parameter(1)
  ROOT d = )",
        type,
        R"([2,70,90] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
})"));
    ASSERT_EQ(p.launches.size(), 1u);
    const KernelLaunch& k = p.launches[0];
    EXPECT_EQ(k.kind, KernelKind::kDot);
    EXPECT_EQ(k.grid[0], 6);  // ceil(90 / 16)
    EXPECT_EQ(k.grid[1], 5);  // ceil(70 / 16)
    EXPECT_EQ(k.grid[2], 2);
    const std::string body = Section(p.ptx, ".entry k0_dot", "\n}\n");
    const std::string acc = std::string(type) == "f64" ? "f64" : "f32";
    // 16 FFMAs per k tile, operands from shared memory.
    EXPECT_THAT(body, HasSubstr("fma.rn." + acc));
    EXPECT_THAT(body, HasSubstr("ld.shared." + acc));
    EXPECT_THAT(body, HasSubstr("bar.sync"));
    EXPECT_THAT(body, Not(HasSubstr(".local")));
    const std::string log = Validate(p);
    EXPECT_THAT(log, HasSubstr("0 bytes spill stores"));
    // Measured 40 for each type; the fully unrolled k loop once took 255
    // and spilled (f64).
    EXPECT_GT(UsedRegisters(log), 0);
    EXPECT_LE(UsedRegisters(log), 64);
  }
}

// ---------------------------------------------------------------------
// Index coverage: the launch grid of each kernel interpreted on the host
// with the thread -> element map of its kind (gpu_program.h): every
// output element is written exactly once, every input element read
// (exactly once for the reductions).

struct Coverage {
  std::vector<int> written, read;
};

Coverage Interpret(const KernelLaunch& k) {
  Coverage c;
  const int64_t gx = k.grid[0], gy = k.grid[1], gz = k.grid[2];
  const int64_t bx = k.block[0], by = k.block[1];
  switch (k.kind) {
    case KernelKind::kElementwise:
      c.written.assign(k.elements, 0);
      for (int64_t b = 0; b < gx; ++b) {
        for (int64_t t = 0; t < bx; ++t) {
          for (int64_t i = b * bx + t; i < k.elements; i += gx * bx) {
            ++c.written[i];
          }
        }
      }
      break;
    case KernelKind::kRowBlocks:
      // Sort / topk: block b takes rows b, b + gx, ...; after the row's
      // merge sort its thread t writes positions t, t + bx, ... of the
      // row's `columns` results.
      c.written.assign(k.rows * k.columns, 0);
      for (int64_t b = 0; b < gx; ++b) {
        for (int64_t row = b; row < k.rows; row += gx) {
          for (int64_t t = 0; t < bx; ++t) {
            for (int64_t i = t; i < k.columns; i += bx) {
              ++c.written[row * k.columns + i];
            }
          }
        }
      }
      break;
    case KernelKind::kRowReduce:
      c.written.assign(k.rows, 0);
      c.read.assign(k.rows * k.columns, 0);
      for (int64_t b = 0; b < gx; ++b) {
        for (int64_t row = b; row < k.rows; row += gx) {
          for (int64_t t = 0; t < bx; ++t) {
            for (int64_t col = t; col < k.columns; col += bx) {
              ++c.read[row * k.columns + col];
            }
            if (t == 0) ++c.written[row];  // warp 0, lane 0
          }
        }
      }
      break;
    case KernelKind::kColumnReduce:
      c.written.assign(k.batch * k.columns, 0);
      c.read.assign(k.batch * k.rows * k.columns, 0);
      for (int64_t d = 0; d < gy; ++d) {
        for (int64_t tile = 0; tile < gx; ++tile) {
          for (int64_t ty = 0; ty < by; ++ty) {
            for (int64_t tx = 0; tx < bx; ++tx) {
              const int64_t col = tile * 32 + tx;
              if (col < k.columns) {
                for (int64_t h = ty; h < k.rows; h += 32) {
                  ++c.read[(d * k.rows + h) * k.columns + col];
                }
              }
              // After the transpose, lane 0 of warp ty writes column
              // tile * 32 + ty.
              if (tx == 0 && tile * 32 + ty < k.columns) {
                ++c.written[d * k.columns + tile * 32 + ty];
              }
            }
          }
        }
      }
      break;
    case KernelKind::kDot:
      c.written.assign(k.batch * k.m * k.n, 0);
      c.read.assign(k.batch * k.m * k.k, 0);  // lhs loads
      for (int64_t z = 0; z < gz; ++z) {
        for (int64_t by_ = 0; by_ < gy; ++by_) {
          for (int64_t bx_ = 0; bx_ < gx; ++bx_) {
            for (int64_t ty = 0; ty < by; ++ty) {
              for (int64_t tx = 0; tx < bx; ++tx) {
                const int64_t row = by_ * kDotTile + ty;
                const int64_t col = bx_ * kDotTile + tx;
                for (int64_t kt = 0; kt < k.k; kt += kDotTile) {
                  if (row < k.m && kt + tx < k.k) {
                    ++c.read[(z * k.m + row) * k.k + kt + tx];
                  }
                }
                if (row < k.m && col < k.n) {
                  ++c.written[(z * k.m + row) * k.n + col];
                }
              }
            }
          }
        }
      }
      break;
    case KernelKind::kSerial:
      c.written.assign(1, 1);
      break;
    case KernelKind::kHostStep:
    case KernelKind::kBranch:
    case KernelKind::kJump:
      // Not kernels (gpu_host_steps.h, gpu_control_flow.h); none in these
      // modules.
      ADD_FAILURE() << "host or control step in the coverage test";
      break;
    case KernelKind::kMmaGemm:
    case KernelKind::kWgmmaGemm:
      // Interpreted by gpu_gemm_test.cc (GpuGemmIndexTest).
      ADD_FAILURE() << "tensor-core kernel in the FFMA coverage test";
      break;
  }
  return c;
}

TEST(GpuIndexTest, EveryOutputWrittenOnceEveryInputRead) {
  const std::vector<std::string> modules = {
      // element-wise, grid-stride (more elements than one grid pass)
      R"(HloModule m
ENTRY e {
  a = f32[300,70001] parameter(0)
  ROOT n = f32[300,70001] negate(a)
})",
      R"(HloModule m
ENTRY e {
  a = s32[7] parameter(0)
  ROOT n = s32[7] negate(a)
})",
      kRowReduce,
      R"(HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY e {
  a = s32[70000,17] parameter(0)
  z = s32[] constant(0)
  ROOT r = s32[70000] reduce(a, z), dimensions={1}, to_apply=add
})",
      R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[5,33,65] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[5,65] reduce(a, z), dimensions={1}, to_apply=add
})",
      R"(HloModule m
ENTRY e {
  a = f32[33,17] parameter(0)
  b = f32[17,49] parameter(1)
  ROOT d = f32[33,49] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      // sort: more rows than blocks (grid-stride), rows longer than the
      // block; topk: k results per row.
      R"(HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  a = f32[70000,3] parameter(0)
  ROOT s = f32[70000,3] sort(a), dimensions={1}, to_apply=lt
})",
      R"(HloModule m
ENTRY e {
  a = f32[9,1000] parameter(0)
  ROOT t = (f32[9,5], s32[9,5]) topk(a), k=5
})"};
  std::set<KernelKind> kinds;
  for (const std::string& text : modules) {
    GpuProgram p = Compile(text);
    ASSERT_FALSE(p.launches.empty()) << text;
    for (const KernelLaunch& k : p.launches) {
      SCOPED_TRACE(k.kernel);
      kinds.insert(k.kind);
      Coverage c = Interpret(k);
      for (size_t i = 0; i < c.written.size(); ++i) {
        ASSERT_EQ(c.written[i], 1) << "output element " << i;
      }
      // Each reduction input once; each dot lhs element once per block
      // column of the output.
      const int expected_reads =
          k.kind == KernelKind::kDot
              ? static_cast<int>((k.n + kDotTile - 1) / kDotTile)
              : 1;
      for (size_t i = 0; i < c.read.size(); ++i) {
        ASSERT_EQ(c.read[i], expected_reads) << "input element " << i;
      }
    }
  }
  EXPECT_EQ(kinds, (std::set<KernelKind>{
                       KernelKind::kElementwise, KernelKind::kRowReduce,
                       KernelKind::kColumnReduce, KernelKind::kDot,
                       KernelKind::kRowBlocks}));
}

// ---------------------------------------------------------------------
// Every golden case's module through the GPU compiler and ptxas.

// One test per golden file (so ctest spreads them over its jobs): each
// distinct module compiles to PTX that ptxas (in nvJitLink) accepts for
// sm_90 and sm_90a, or is Unimplemented with a reason (printed); any
// other error fails. docs/gpu-backend.md has the tally.

// The cases of one golden file ("ops/add.golden").
std::vector<conformance::GoldenCase> GoldenFileCases(const std::string& file) {
  std::ifstream in(std::string(HLOREF_GOLDEN_DIR) + "/" + file);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  const std::string dir = file.substr(0, file.find('/'));
  const conformance::CaseKind kind = dir == "ops" ? conformance::CaseKind::kOp
                                     : dir == "programs"
                                         ? conformance::CaseKind::kProgram
                                         : conformance::CaseKind::kRegression;
  const std::string stem = std::filesystem::path(file).stem().string();
  absl::StatusOr<std::vector<conformance::GoldenCase>> cases =
      conformance::ParseGoldenFile(text, file, kind,
                                   dir == "ops" ? stem : std::string());
  EXPECT_TRUE(cases.ok()) << cases.status();
  return cases.ok() ? *std::move(cases)
                    : std::vector<conformance::GoldenCase>{};
}

std::vector<std::string> GoldenFiles() {
  std::vector<std::string> files;
  for (const char* dir : {"ops", "programs", "regressions"}) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(
             std::string(HLOREF_GOLDEN_DIR) + "/" + dir, ec)) {
      if (e.path().extension() == ".golden") {
        files.push_back(std::string(dir) + "/" + e.path().filename().string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class GpuGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuGoldenTest, CompilesToValidatedPtxOrIsUnsupported) {
  std::set<std::string> seen;
  int compiled = 0, unsupported = 0;
  std::string reason;
  for (const conformance::GoldenCase& c : GoldenFileCases(GetParam())) {
    if (!seen.insert(c.module_text).second) continue;
    absl::StatusOr<std::unique_ptr<HloModule>> m =
        ParseHloModule(c.module_text);
    if (!m.ok() || !VerifyModule(**m, VerifyOptions()).ok()) continue;
    // The case's custom-call test library (hloref's own), as the
    // conformance harness passes it: the GPU calls its targets on the host
    // (gpu_host_steps.h). Not built: the case stays unsupported.
    if (!c.custom_call_library.empty()) {
      absl::StatusOr<std::string> path =
          conformance::CustomCallTestLibraryPath(c.custom_call_library);
      if (path.ok()) {
        absl::Status added = cpu::AddCustomCallLibrary(*path);
        EXPECT_TRUE(added.ok()) << added;
      }
    }
    bool ok = true;
    for (const char* arch : {"sm_90", "sm_90a"}) {
      GpuCompileOptions options;
      options.arch = arch;
      absl::StatusOr<GpuProgram> p = CompileModuleToPtx(**m, options);
      if (!p.ok()) {
        ok = false;
        if (p.status().code() == absl::StatusCode::kUnimplemented) {
          ++unsupported;
          if (reason.empty()) reason = std::string(p.status().message());
        } else {
          ADD_FAILURE() << c.Id() << " (" << arch << "): " << p.status();
        }
        break;
      }
      absl::StatusOr<CubinResult> cubin = CompilePtxToCubin(p->ptx, arch);
      if (!cubin.ok()) {
        ok = false;
        ADD_FAILURE() << c.Id() << " (" << arch << "): " << cubin.status();
        break;
      }
    }
    compiled += ok ? 1 : 0;
  }
  std::printf(
      "GPU %s: %d distinct modules compiled and accepted by ptxas "
      "for sm_90 and sm_90a, %d unsupported%s\n",
      GetParam().c_str(), compiled, unsupported,
      reason.empty() ? "" : absl::StrCat(" (", reason, ")").c_str());
}

INSTANTIATE_TEST_SUITE_P(Golden, GpuGoldenTest,
                         ::testing::ValuesIn(GoldenFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           }
                           return name;
                         });

// A generated sample: seeds 0..2 of every op with a generator, each case's
// module through the GPU compiler and ptxas for sm_90 and sm_90a
// (replicated cases run their participants as the threads of one block;
// host transfers compile as host steps).

class GpuGeneratedTest : public ::testing::TestWithParam<HloOpcode> {};

TEST_P(GpuGeneratedTest, CompilesToValidatedPtxOrIsUnsupported) {
  int compiled = 0, unsupported = 0;
  std::string reason;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    absl::StatusOr<conformance::GeneratedCase> c =
        conformance::GenerateCase(GetParam(), seed);
    if (!c.ok()) continue;  // no valid draw (reported as skipped)
    // Host transfers compile (host steps, gpu_host_steps.h); replicated
    // modules too (the participants as threads of one block,
    // gpu_collectives.h).
    bool ok = true;
    for (const char* arch : {"sm_90", "sm_90a"}) {
      GpuCompileOptions options;
      options.arch = arch;
      absl::StatusOr<GpuProgram> p = CompileModuleToPtx(*c->module, options);
      if (!p.ok()) {
        ok = false;
        if (p.status().code() == absl::StatusCode::kUnimplemented) {
          ++unsupported;
          if (reason.empty()) reason = std::string(p.status().message());
        } else {
          ADD_FAILURE() << c->id << " (" << arch << "): " << p.status() << "\n"
                        << c->module_text;
        }
        break;
      }
      absl::StatusOr<CubinResult> cubin = CompilePtxToCubin(p->ptx, arch);
      if (!cubin.ok()) {
        ok = false;
        ADD_FAILURE() << c->id << " (" << arch << "): " << cubin.status();
        break;
      }
    }
    compiled += ok ? 1 : 0;
  }
  std::printf(
      "GPU generated %s: %d cases compiled and accepted by ptxas for "
      "sm_90 and sm_90a, %d unsupported%s\n",
      std::string(HloOpcodeString(GetParam())).c_str(), compiled, unsupported,
      reason.empty() ? "" : absl::StrCat(" (", reason, ")").c_str());
}

INSTANTIATE_TEST_SUITE_P(Generated, GpuGeneratedTest,
                         ::testing::ValuesIn(conformance::GeneratedOps()),
                         [](const ::testing::TestParamInfo<HloOpcode>& info) {
                           std::string name(HloOpcodeString(info.param));
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           }
                           return name;
                         });

// ---------------------------------------------------------------------
// The backend without a device; with one, a first run.

TEST(GpuBackendTest, NoDeviceIsFailedPrecondition) {
  if (GetCudaDriver().ok()) GTEST_SKIP() << "a CUDA device is present";
  absl::StatusOr<std::unique_ptr<backends::Backend>> b =
      CreateGpuBackend(GpuBackendOptions());
  ASSERT_TRUE(b.ok()) << b.status();
  std::unique_ptr<HloModule> m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
})");
  absl::StatusOr<std::unique_ptr<backends::Executable>> e =
      (*b)->Compile(*m, backends::CompileOptions());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(e.status().message(), HasSubstr("no CUDA device"));
}

TEST(GpuBackendTest, DumpWritesIrPtxAndResourcesWithoutADevice) {
  const std::string dir = ::testing::TempDir() + "/gpu_dump_test";
  std::filesystem::remove_all(dir);
  GpuBackendOptions options;
  options.dump_dir = dir;
  options.arch = "sm_90";
  absl::StatusOr<std::unique_ptr<backends::Backend>> b =
      CreateGpuBackend(options);
  ASSERT_TRUE(b.ok());
  std::unique_ptr<HloModule> m = Parse(kRowReduce);
  (void)(*b)->Compile(*m, backends::CompileOptions());
  std::set<std::string> suffixes;
  std::string resources;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    for (const char* s : {".opt.ll", ".ll", ".ptx", ".resources.txt"}) {
      if (absl::EndsWith(name, s)) {
        suffixes.insert(s);
        if (std::string(s) == ".resources.txt") {
          std::ifstream in(entry.path());
          resources.assign(std::istreambuf_iterator<char>(in), {});
        }
        break;
      }
    }
  }
  EXPECT_EQ(suffixes, (std::set<std::string>{".ll", ".opt.ll", ".ptx",
                                             ".resources.txt"}));
  EXPECT_THAT(resources,
              HasSubstr("k0_row_reduce_r grid(96,1,1) block(256,1,1)"));
  EXPECT_THAT(resources, HasSubstr("registers"));
}

TEST(GpuBackendTest, RunsOnADevice) {
  if (!GetCudaDriver().ok()) GTEST_SKIP() << GetCudaDriver().status();
  absl::StatusOr<std::unique_ptr<backends::Backend>> b =
      CreateGpuBackend(GpuBackendOptions());
  ASSERT_TRUE(b.ok());
  // Row r of 40 ones: each row sums to 40 (exact); the maximum of the
  // negated values is -1.
  std::unique_ptr<HloModule> m = Parse(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[2,40] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(a, z), dimensions={1}, to_apply=add
})");
  absl::StatusOr<std::unique_ptr<backends::Executable>> e =
      (*b)->Compile(*m, backends::CompileOptions());
  ASSERT_TRUE(e.ok()) << e.status();
  std::string row = "{1";
  for (int i = 1; i < 40; ++i) row += ", 1";
  row += "}";
  absl::StatusOr<Literal> arg =
      ParseLiteral(absl::StrCat("f32[2,40] {", row, ", ", row, "}"));
  ASSERT_TRUE(arg.ok()) << arg.status();
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run({*arg});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  absl::StatusOr<Literal> want = ParseLiteral("f32[2] {40, 40}");
  ASSERT_TRUE(want.ok());
  EXPECT_EQ((*out)[0].ToString(), want->ToString());
}

}  // namespace
}  // namespace hloref::gpu
