// HLO module -> GpuProgram (gpu_program.h): the GPU target layer over the
// shared code generator of backends/codegen.
//
// The entry computation is split into kernels, one per instruction that
// computes something; element-wise producers are fused into their
// consumers by codegen's fusion pass (ChooseInlinedInstructions), exactly
// as on the CPU. Every kernel computes elements with codegen's element
// generators (the emitter table's elemental emitters); what this layer
// adds is the thread indexing:
//   elementwise   grid-stride loop over the output's linear index,
//                 delinearised in the output's layout;
//   reduce        XLA's row / column reduction kernels (reductions
//                 normalised to [batch, rows, columns]), falling back to
//                 the element-wise kernel (one thread per output
//                 element) for other layouts;
//   dot           a 16x16 shared-memory tiled kernel for canonical
//                 [b, m, k] x [b, k, n] dots of f32 / f64 / f16 / bf16;
//   serial        instructions with only a buffer emitter (scatter,
//                 variadic reduce, batch-norm, ...) and fusions that are
//                 not element-wise run in one device thread; so does the
//                 whole entry computation when a bounded dynamic shape
//                 appears past its parameters (gpu_dynamic.h, through the
//                 shared computation emitter, as on the CPU);
//   control flow  while, conditional, call, async-start and copy-start
//                 become kernel sequences: callees are inlined, while and
//                 conditional branch on the host on a predicate / index
//                 the device computed (gpu_control_flow.h), so host steps
//                 and rng work inside their bodies;
//   device ops    what the CPU backend computes in its runtime
//                 (rng-bit-generator, sort, topk, fft, cholesky,
//                 triangular-solve; complex transcendentals through the
//                 complex_math hook): gpu_device_ops.h, grid-stride or one
//                 block per row (KernelKind::kRowBlocks).
// Calls the shared emitters make into the C math library are resolved to
// libdevice (`exp` -> __nv_exp, `expf` -> __nv_expf, the CPU runtime's
// large-argument sin/cos/tan fallbacks -> __nv_sin ...); any other call
// into the CPU runtime makes the instruction Unimplemented.
#ifndef HLOREF_BACKENDS_GPU_GPU_EMITTER_H_
#define HLOREF_BACKENDS_GPU_GPU_EMITTER_H_

#include <string>

#include "absl/status/statusor.h"
#include "backends/gpu/gpu_program.h"
#include "spec/ir/hlo_module.h"

namespace hloref::gpu {

struct GpuCompileOptions {
  std::string arch = "sm_90";
  int opt_level = 3;
  bool fuse_elementwise = true;
  // The row / column reduction and tiled dot kernels; off: those
  // instructions use the element-wise kernel.
  bool specialised_kernels = true;
  std::string libdevice_path;  // empty: DefaultLibdevicePath()
};

// Threads per block of the element-wise and reduction kernels.
inline constexpr int64_t kBlockSize = 256;
// The element-wise grid is capped at this many blocks (grid-stride).
inline constexpr int64_t kMaxElementwiseBlocks = 65535;
// Global scratch of one kernel (sort / topk rows beyond shared memory):
// at most this many bytes, by launching fewer blocks.
inline constexpr int64_t kMaxKernelScratchBytes = int64_t{256} << 20;
// Dot tiles.
inline constexpr int64_t kDotTile = 16;

absl::StatusOr<GpuProgram> CompileModuleToPtx(const HloModule& module,
                                              const GpuCompileOptions& options);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_EMITTER_H_
