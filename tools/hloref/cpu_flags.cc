#include "tools/hloref/cpu_flags.h"

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_backend.h"
#ifdef HLOREF_HAVE_GPU_BACKEND
#include "backends/gpu/gpu_backend.h"
#include "backends/gpu/nvptx_target.h"
#endif

namespace hloref::tools {

const char kCpuFlagsHelp[] =
    R"(  --cpu-threads=N         --backend=cpu: worker threads for parallel loop
                          nests (default: the number of cores; results do
                          not depend on it)
  --cpu-dump=DIR          --backend=cpu: write every compiled module's LLVM
                          IR before (NAME.ll) and after optimisation
                          (NAME.opt.ll) and its assembly (NAME.s) to DIR
  --cpu-opt=0..3          --backend=cpu: LLVM optimisation level (default 2)
  --cpu-no-fusion         --backend=cpu: no producer-consumer fusion
  --cpu-fast              --backend=cpu: fast mode: bf16 dots on AVX512_BF16
                          vdpbf16ps, which flushes subnormals (certify with
                          --deviations=ftz=f32+bf16)
  --gpu-arch=sm_NN[a]     --backend=gpu: the PTX target (default: the
                          device's compute capability, sm_90 without one)
  --gpu-dump=DIR          --backend=gpu: write every compiled module's LLVM
                          IR (NAME.ll, NAME.opt.ll), PTX (NAME.ptx) and
                          launches and ptxas resource usage
                          (NAME.resources.txt) to DIR; works without a GPU
)";

void AddCpuOptionSpecs(std::vector<OptionSpec>* specs) {
  specs->push_back({"cpu-threads", true});
  specs->push_back({"cpu-dump", true});
  specs->push_back({"cpu-opt", true});
  specs->push_back({"cpu-no-fusion", false});
  specs->push_back({"cpu-fast", false});
  specs->push_back({"gpu-arch", true});
  specs->push_back({"gpu-dump", true});
}

absl::Status ApplyCpuFlags(const CommandLine& cl) {
  cpu::CpuBackendOptions& options = cpu::DefaultCpuBackendOptions();
  if (cl.Has("cpu-threads")) {
    auto n = cl.GetInt("cpu-threads", 0);
    if (!n.ok() || *n < 1 || *n > 1024) {
      return absl::InvalidArgumentError(
          "--cpu-threads must be an integer in [1, 1024]");
    }
    options.threads = static_cast<int>(*n);
  }
  if (cl.Has("cpu-opt")) {
    auto n = cl.GetInt("cpu-opt", 2);
    if (!n.ok() || *n < 0 || *n > 3) {
      return absl::InvalidArgumentError("--cpu-opt must be 0, 1, 2 or 3");
    }
    options.opt_level = static_cast<int>(*n);
  }
  if (auto dir = cl.Get("cpu-dump")) {
    if (dir->empty()) {
      return absl::InvalidArgumentError("--cpu-dump needs a directory");
    }
    options.dump_dir = *dir;
  }
  if (cl.Has("cpu-no-fusion")) options.fuse_elementwise = false;
  if (cl.Has("cpu-fast")) options.fast = true;
  if (auto arch = cl.Get("gpu-arch")) {
#ifdef HLOREF_HAVE_GPU_BACKEND
    if (absl::Status s = gpu::CheckArch(*arch); !s.ok()) return s;
    gpu::DefaultGpuBackendOptions().arch = *arch;
#else
    return absl::InvalidArgumentError(
        "--gpu-arch: this hloref was built without the GPU backend");
#endif
  }
  if (auto dir = cl.Get("gpu-dump")) {
    if (dir->empty()) {
      return absl::InvalidArgumentError("--gpu-dump needs a directory");
    }
#ifdef HLOREF_HAVE_GPU_BACKEND
    gpu::DefaultGpuBackendOptions().dump_dir = *dir;
#else
    return absl::InvalidArgumentError(
        "--gpu-dump: this hloref was built without the GPU backend");
#endif
  }
  return absl::OkStatus();
}

}  // namespace hloref::tools
