// What the GPU backend compiles a module into (gpu_emitter.h): device
// buffers, one kernel launch per instruction that computes something, the
// PTX holding every kernel, and where the results are. The runtime
// (gpu_backend.cc) allocates the buffers, uploads parameters and constants,
// launches in order on one stream and downloads the results.
#ifndef HLOREF_BACKENDS_GPU_GPU_PROGRAM_H_
#define HLOREF_BACKENDS_GPU_GPU_PROGRAM_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "spec/types/shape.h"

namespace hloref::gpu {

struct GpuBuffer {
  // kState: module state that persists between runs of the executable
  // (rng's generator state, gpu_rng.h); zeroed once, when the executable
  // first runs. kParameterSizes: the i64[rank] runtime sizes of a bounded
  // dynamic parameter leaf (gpu_dynamic.h), uploaded from the argument's
  // sizes.
  enum class Kind { kParameter, kConstant, kTemp, kState, kParameterSizes };
  Kind kind = Kind::kTemp;
  // kParameter, kParameterSizes: the entry parameter and its array leaf
  // (depth first).
  int64_t parameter = -1;
  int64_t leaf = -1;
  // The array shape the buffer was created for (its layout decides the
  // physical order of parameters and constants).
  Shape shape;
  int64_t bytes = 0;
  // kConstant: the physical bytes (codegen::LiteralToPhysical).
  std::vector<uint8_t> data;
};

// How a kernel maps threads to work; the index-coverage test
// (gpu_index_test.cc) interprets the grid with the same parameters.
enum class KernelKind {
  // One thread per output element, grid-stride over the linear physical
  // index [0, elements).
  kElementwise,
  // [rows, columns] -> [rows]: one block per row (grid-stride over rows),
  // each thread a strided slice of the columns, warp shuffles, shared
  // memory across warps.
  kRowReduce,
  // [batch, height, width] -> [batch, width]: 32x32 tiles, each thread
  // column-strided partials, transposed through shared memory, warp
  // shuffles along the reduced dimension.
  kColumnReduce,
  // [batch, m, k] x [batch, k, n]: 16x16 output tiles per block, k in
  // tiles of 16 through shared memory, one output per thread (FFMA: dot
  // and convolution as an implicit GEMM, gpu_gemm.h).
  kDot,
  // Tensor-core GEMM (gpu_gemm.h): [batch, m, k] x [batch, k, n] in
  // 128x128 output tiles of 256 threads, k tiles of 32 through shared memory;
  // dot (bf16 / f16) and convolution as an implicit GEMM.
  kMmaGemm,    // mma.sync m16n8k16, 2x4 warps of 64x32
  kWgmmaGemm,  // sm_90a wgmma m64n128k16, two warpgroups
  // One thread runs the whole instruction (the shared buffer emitters:
  // scatter, sort-free variadic reduce, batch-norm ...).
  kSerial,
  // [rows, n]: one block per row (grid-stride over rows), its threads
  // cooperating through shared memory (sort, topk: gpu_device_ops.h).
  kRowBlocks,
  // Not a kernel: a runtime step on the host between two launches
  // (gpu_host_steps.h): custom-call targets, infeed / outfeed / send /
  // recv. KernelLaunch::host_step indexes GpuProgram::host_steps.
  kHostStep,
  // Not kernels: host-driven control flow (gpu_control_flow.h), how while
  // and conditional run. kBranch: the runtime synchronises the stream,
  // downloads the scalar `selector` buffer and continues at
  // targets[BranchIndex(selector, targets.size())]; kJump: continues at
  // targets[0]. Targets are launch indices (== launches.size(): the end).
  kBranch,
  kJump,
};

// What a host step's `run` gets for one run of the executable: the
// host-side state of the run (host transfers, device channels), opaque
// here (gpu_host_steps.cc).
struct HostStepContext;

// A host-staged step (KernelKind::kHostStep): the runtime synchronises the
// stream, copies the `inputs` buffers to the host (physical bytes in each
// buffer's layout), calls `run` with `outputs` sized to their buffers
// (zeroed), and copies them back to the device before the next launch.
struct HostStep {
  std::vector<int64_t> inputs;
  std::vector<int64_t> outputs;
  std::function<absl::Status(HostStepContext& context,
                             absl::Span<const std::vector<uint8_t>> inputs,
                             absl::Span<std::vector<uint8_t>> outputs)>
      run;
};

struct KernelLaunch {
  std::string kernel;       // the PTX .entry name
  std::string instruction;  // the HLO instruction, for error messages
  KernelKind kind = KernelKind::kElementwise;
  std::vector<int64_t> buffers;  // kernel arguments, in order
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  // Work sizes of the kind (see KernelKind).
  int64_t elements = 0;
  int64_t batch = 1, rows = 1, columns = 1;
  int64_t m = 1, n = 1, k = 1;
  // kHostStep: the index of its GpuProgram::host_steps entry.
  int64_t host_step = -1;
  // kBranch: the buffer of the pred or integer scalar that selects the
  // target; kBranch, kJump: the launch indices to continue at.
  int64_t selector = -1;
  std::vector<int64_t> targets;
};

// A replicated module's buffers hold one slice per participant
// (gpu_collectives.h), participant-major, each this many bytes apart
// (the buffer's bytes rounded up to 256, so every slice stays aligned).
inline int64_t ParticipantSliceBytes(const GpuBuffer& b) {
  return (std::max<int64_t>(b.bytes, 1) + 255) / 256 * 256;
}

struct GpuProgram {
  std::string module_name;
  std::string arch;
  // replica_count * num_partitions (gpu_collectives.h): above 1, the
  // program is one serial-entry kernel of that many threads (one per
  // participant) and every buffer but kState ones holds that many slices
  // of ParticipantSliceBytes.
  int64_t participants = 1;
  int64_t replicas = 1;
  int64_t partitions = 1;
  std::vector<GpuBuffer> buffers;
  std::vector<KernelLaunch> launches;
  std::vector<HostStep> host_steps;
  // One buffer per array or token leaf of the entry's root, depth first
  // (-1 for a token).
  std::vector<int64_t> result_buffers;
  std::vector<Shape> result_shapes;
  // Per result leaf: the buffer of its i64 runtime sizes when its shape is
  // dynamic, else -1 (gpu_dynamic.h).
  std::vector<int64_t> result_sizes_buffers;
  // A 4-byte buffer (a zero constant, so reset by every run's upload) in
  // which a kernel that reports run-time errors stores 1 + the index of
  // its first error in run_errors; -1 when no kernel reports any.
  int64_t status_buffer = -1;
  struct RunError {
    int32_t code = 0;  // absl::StatusCode
    std::string message;
  };
  std::vector<RunError> run_errors;
  std::string llvm_ir;       // before optimisation
  std::string optimized_ir;  // after, libdevice linked
  std::string ptx;
  bool linked_libdevice = false;
};

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_PROGRAM_H_
