// PTX -> cubin in process with libnvJitLink (CUDA 13), loaded with dlopen
// so that nothing links against it at build time. Needs no GPU: the tests
// validate every kernel's PTX with it, and its info log gives each
// kernel's resource usage (registers, spills, shared memory).
#ifndef HLOREF_BACKENDS_GPU_NVJITLINK_H_
#define HLOREF_BACKENDS_GPU_NVJITLINK_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hloref::gpu {

struct CubinResult {
  std::vector<char> cubin;
  // ptxas's verbose output ("Used N registers, ... bytes smem ...").
  std::string info_log;
};

// FailedPrecondition when libnvJitLink cannot be loaded; InvalidArgument
// with ptxas's error log when the PTX is rejected.
absl::StatusOr<CubinResult> CompilePtxToCubin(const std::string& ptx,
                                              const std::string& arch);

// Whether libnvJitLink can be loaded (and why not).
absl::Status NvJitLinkAvailable();

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_NVJITLINK_H_
