// GEMM kernels of the GPU backend (issue 19): the tile bodies of dot and
// of convolution as an implicit GEMM (gpu_conv.h); tensor cores for bf16 /
// f16, FFMA for f32 / f64 (EmitFfmaGemm, below).
//
// A GEMM is C[b][i][j] = sum_l A[b][i][l] * B[b][l][j] for b < batch,
// i < m, j < n, l < k. The kernel never sees the operands' layouts: it
// asks `GemmIo` for one element at a time (through the shared element
// generators, so fused producers, any layout and convolution windows all
// work) and hands each result to `GemmIo::store`. Edges are masked (any
// m, n, k), out-of-range elements load as zero.
//
// Two kernels, both 256 threads per block over a 128x128 output tile, k
// in tiles of 32 staged through shared memory as 16-bit bit patterns:
//   mma.sync (sm_80+, every --gpu-arch): 2x4 warps, each a 64x32 warp tile
//     of 4x4 `mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}` (LLVM's
//     llvm.nvvm.mma.m16n8k16.row.col.* intrinsics), A and B fragments read
//     with `ldmatrix.x4` from tiles of pitch 40 elements (80 bytes: the 8
//     rows one ldmatrix reads hit 8 disjoint 4-bank groups);
//   wgmma (sm_90a only, inline PTX: LLVM 19 has no intrinsic): two
//     warpgroups, each `wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16`
//     (or .f16) with A from registers (ldmatrix, the mma.sync A fragment of
//     each warp's 16 rows) and B through a shared-memory matrix descriptor
//     (no swizzle, K-major core matrices of 8x8 elements); shared memory is
//     filled by ordinary stores followed by `fence.proxy.async`, not TMA.
// Operands that are plain row-major buffers are instead copied with
// 16-byte cp.async into two shared stages (double buffered): A when
// k % 8 == 0, B when n % 8 == 0 on mma.sync (read with ldmatrix.trans).
// Both accumulate in f32 and round once to the result type.
#ifndef HLOREF_BACKENDS_GPU_GPU_GEMM_H_
#define HLOREF_BACKENDS_GPU_GPU_GEMM_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/codegen/emit_context.h"
#include "backends/gpu/gpu_program.h"
#include "spec/types/primitive_type.h"

namespace llvm {
class Function;
class Value;
}  // namespace llvm

namespace hloref::gpu {

// Block tile and threads of both tensor-core kernels.
inline constexpr int64_t kGemmBlockM = 128;
inline constexpr int64_t kGemmBlockN = 128;
inline constexpr int64_t kGemmBlockK = 32;
inline constexpr int64_t kGemmThreads = 256;
// mma.sync: warps arranged kGemmWarpsM x kGemmWarpsN, each a
// kGemmWarpM x kGemmWarpN tile of m16n8 MMAs. wgmma: warp w holds rows
// 16w..16w+15, so each warpgroup (4 warps) one m64 x kGemmBlockN MMA.
inline constexpr int64_t kGemmWarpsM = 2;
inline constexpr int64_t kGemmWarpsN = 4;
static_assert(kGemmWarpsM * kGemmWarpsN * 32 == kGemmThreads);
static_assert(kGemmBlockM == 16 * (kGemmThreads / 32));  // wgmma rows
static_assert(kGemmBlockM == kGemmBlockN);  // kGemmLoadsPerThread for both
inline constexpr int64_t kGemmWarpM = kGemmBlockM / kGemmWarpsM;  // 64
inline constexpr int64_t kGemmWarpN = kGemmBlockN / kGemmWarpsN;  // 32
inline constexpr int64_t kGemmMmaM = kGemmWarpM / 16;             // 4
inline constexpr int64_t kGemmMmaN = kGemmWarpN / 8;              // 4
// f32 accumulators per thread (both kernels: 128 * 128 / 256).
inline constexpr int64_t kGemmAccumulators =
    kGemmBlockM * kGemmBlockN / kGemmThreads;  // 64
// Shared-memory row pitch (elements) of the ldmatrix tiles.
inline constexpr int64_t kGemmPitch = 40;

enum class TensorCoreKind { kMmaSync, kWgmma };

// Whether the tensor-core kernels compute a GEMM whose operands and result
// are all of `type`: bf16 and f16 only (f32 and f64 stay on the FFMA
// kernel: no tf32, docs/gpu-backend.md "Numerics of the tensor-core path").
bool TensorCoreType(PrimitiveType type);
// The kernel for `arch`: wgmma on sm_90a, mma.sync elsewhere.
TensorCoreKind TensorCoreKindFor(absl::string_view arch);

// ---- The thread -> element maps of the tiles. The emitter computes
// exactly these formulas in IR; gpu_gemm_test.cc interprets them over the
// launch grid on the host (every output written once, every A / B element
// loaded once per k tile of each block that needs it).
struct TileCoord {
  int64_t row = 0, col = 0;
};
// Loads per thread per k tile, for each operand.
inline constexpr int64_t kGemmLoadsPerThread =
    kGemmBlockM * kGemmBlockK / kGemmThreads;  // 16 (B: 32 * 128 / 256)
// The A-tile element (row < kGemmBlockM, col = l < kGemmBlockK) thread t
// loads in step s: e = s * 128 + t, consecutive threads along k.
TileCoord GemmLoadA(int64_t thread, int64_t step);
// The B-tile element (row = l < kGemmBlockK, col < kGemmBlockN): consecutive
// threads along n.
TileCoord GemmLoadB(int64_t thread, int64_t step);
// The output element (in the block tile) accumulator r of thread t holds.
TileCoord GemmAccumulator(TensorCoreKind kind, int64_t thread, int64_t r);
// The A-tile (row, k) whose 16-byte row lane `lane` addresses for the
// ldmatrix.x4 of MMA row block `mi` (mma.sync) or of its warp (wgmma) at k
// offset `ks` (0 or 16), and the B-tile (k, n) of mma.sync's ldmatrix.x4 of
// n pair `nj`. Each of the 32 addresses is the start of 8 consecutive k.
TileCoord GemmLdmatrixA(TensorCoreKind kind, int64_t warp, int64_t lane,
                        int64_t mi, int64_t ks);
TileCoord GemmLdmatrixB(int64_t warp, int64_t lane, int64_t nj, int64_t ks);
// The cp.async path of mma.sync for a row-major B: the tile is stored
// [l][j] with pitch kGemmPitchB and read with ldmatrix.x4.trans; the (l, j)
// whose row lane `lane` addresses for n pair `nj` at k offset `ks`.
inline constexpr int64_t kGemmPitchB = kGemmBlockN + 8;  // 272 bytes
TileCoord GemmLdmatrixBTrans(int64_t warp, int64_t lane, int64_t nj,
                             int64_t ks);
// The 16-byte chunk (row, first column) of the A tile ([row][l], 8
// columns) and of the row-major B tile ([l][j], 8 columns) thread t copies
// in step s of the cp.async path.
inline constexpr int64_t kGemmChunksPerThread =
    kGemmBlockM * kGemmBlockK / 8 / kGemmThreads;  // 2
TileCoord GemmChunkA(int64_t thread, int64_t step);
TileCoord GemmChunkB(int64_t thread, int64_t step);

// wgmma's B tile in shared memory: the element offset of B(l, j) (no
// swizzle, K-major 8x8 core matrices: core matrix (l / 8, j / 8) at
// ((l / 8) * (kGemmBlockN / 8) + j / 8) * 64, row j % 8, column l % 8).
int64_t WgmmaBOffset(int64_t l, int64_t j);
// Its descriptor's strides in bytes: between core matrices adjacent in k
// (leading) and in n (stride).
inline constexpr int64_t kWgmmaLeadingBytes = (kGemmBlockN / 8) * 128;
inline constexpr int64_t kWgmmaStrideBytes = 128;

// What the kernel reads and writes. The callbacks emit IR at the
// builder's insertion point; `batch`, `row`, `l`, `col` are i64 values
// already checked against batch, m, k, n.
struct GemmIo {
  // Operands and result (bf16 / f16 on the tensor cores; f32, f64, bf16,
  // f16 on FFMA).
  PrimitiveType type = PrimitiveType::kBF16;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  // A[batch][row][l] and B[batch][l][col] as compute values (f32 holding
  // a value of `type`; double for f64).
  std::function<absl::StatusOr<llvm::Value*>(llvm::Value* batch,
                                             llvm::Value* row, llvm::Value* l)>
      load_a;
  std::function<absl::StatusOr<llvm::Value*>(llvm::Value* batch, llvm::Value* l,
                                             llvm::Value* col)>
      load_b;
  // Optional: the operand is a plain row-major buffer (A: [batch][m][k],
  // B: [batch][k][n], elements of `type`, generic address space) the
  // tensor-core kernels may copy with 16-byte `cp.async` instead of
  // `load_*` (A when k % 8 == 0; B when n % 8 == 0, mma.sync only).
  llvm::Value* a_row_major = nullptr;
  llvm::Value* b_row_major = nullptr;
  // Writes C[batch][row][col] (a compute value already rounded to `type`).
  std::function<absl::Status(llvm::Value* batch, llvm::Value* row,
                             llvm::Value* col, llvm::Value* value)>
      store;
};

// Whether the kernel takes the cp.async path for each operand.
bool GemmDirectA(const GemmIo& io);
bool GemmDirectB(const GemmIo& io, TensorCoreKind kind);

// Whether the launch grid of the tensor-core kernels covers `io` (grid
// y and z at most 65535).
bool TensorCoreGridFits(int64_t batch, int64_t m, int64_t n);

// The FFMA kernel (f32 / f64, and bf16 / f16 where the tensor-core path
// does not apply): 16x16 threads per block, one output each, k in tiles of
// 16 through two shared tiles of pitch 17 in the accumulation type (f64
// for f64, else f32; bf16 / f16 products are exact in f32), explicit fma,
// rounded once. KernelKind::kDot. The caller gives `f` the launch bounds
// (kDotTile x kDotTile).
bool FfmaGridFits(int64_t batch, int64_t m, int64_t n);
absl::Status EmitFfmaGemm(codegen::EmitContext& ctx, llvm::Function& f,
                          const GemmIo& io, KernelLaunch* launch);

// Emits the kernel body into `f` (the builder is in its entry block; the
// function gets its launch bounds from the caller) and fills the launch's
// kind, grid, block and sizes.
absl::Status EmitTensorCoreGemm(codegen::EmitContext& ctx, llvm::Function& f,
                                const GemmIo& io, TensorCoreKind kind,
                                KernelLaunch* launch);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_GEMM_H_
