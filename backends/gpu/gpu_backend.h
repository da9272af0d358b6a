// `--backend=gpu`: HLO -> LLVM IR (backends/codegen's element generators,
// gpu_emitter.h's kernels) -> PTX (LLVM NVPTX) -> cubin (nvJitLink) ->
// launched with the CUDA driver API (dlopen'ed). Without a driver or a
// device, Compile answers FailedPrecondition "no CUDA device: ..." so the
// conformance harness reports every case *skipped*.
#ifndef HLOREF_BACKENDS_GPU_GPU_BACKEND_H_
#define HLOREF_BACKENDS_GPU_GPU_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "backends/gpu/gpu_program.h"

namespace hloref::gpu {

struct GpuBackendOptions {
  // sm_90, sm_90a, sm_89 ...; empty: the device's compute capability when
  // LLVM knows it, else sm_90 (loaded as PTX, JIT-compiled by the driver).
  std::string arch;
  // Write each compiled module's LLVM IR (NAME.ll, NAME.opt.ll), PTX
  // (NAME.ptx) and ptxas resource usage (NAME.resources.txt) here. With a
  // dump directory the module is compiled (and dumped) before the device
  // is looked for, so dumps work without a GPU.
  std::string dump_dir;
  int opt_level = 3;
  bool fuse_elementwise = true;
  bool specialised_kernels = true;
  // Synchronise after every launch (exact attribution of execution
  // errors, no overlap). Off: the kernels of a run are queued on the
  // executable's stream without a synchronisation between them and one
  // cuStreamSynchronize precedes reading the results; an execution error
  // then names the first kernel whose completion event was not reached.
  // HLOREF_GPU_SYNC_EACH_LAUNCH=1 turns it on too.
  bool sync_each_launch = false;
};

// The options `--backend=gpu` uses (set by tools from --gpu-arch and
// --gpu-dump).
GpuBackendOptions& DefaultGpuBackendOptions();

absl::StatusOr<std::unique_ptr<backends::Backend>> CreateGpuBackend(
    GpuBackendOptions options);

// Writes the dump files of `program` (see GpuBackendOptions::dump_dir);
// `resources` is nvJitLink's info log.
absl::Status WriteGpuDump(const std::string& dir, const GpuProgram& program,
                          const std::string& resources);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_BACKEND_H_
