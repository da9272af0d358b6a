// The CUDA driver API, loaded with dlopen("libcuda.so.1") on first use:
// no link-time dependency, so hloref runs (and reports "no CUDA device")
// where no driver is installed. Resolves the versioned symbols of CUDA
// 13's cuda.h (cuMemAlloc_v2, ...; facts doc 4.7) and uses the primary
// context of device 0.
#ifndef HLOREF_BACKENDS_GPU_CUDA_DRIVER_H_
#define HLOREF_BACKENDS_GPU_CUDA_DRIVER_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hloref::gpu {

using CuResult = int;
using CuDevice = int;
using CuContext = void*;
using CuModule = void*;
using CuFunction = void*;
using CuDevicePtr = uint64_t;
using CuStream = void*;
using CuEvent = void*;

// CUDA_ERROR_NOT_READY: cuEventQuery of an event not reached yet.
inline constexpr CuResult kCudaErrorNotReady = 600;
// CU_EVENT_DISABLE_TIMING.
inline constexpr unsigned kEventDisableTiming = 2;

struct CudaDriver {
  CuResult (*init)(unsigned) = nullptr;
  CuResult (*driver_get_version)(int*) = nullptr;
  CuResult (*device_get_count)(int*) = nullptr;
  CuResult (*device_get)(CuDevice*, int) = nullptr;
  CuResult (*device_get_attribute)(int*, int, CuDevice) = nullptr;
  CuResult (*device_get_name)(char*, int, CuDevice) = nullptr;
  CuResult (*primary_ctx_retain)(CuContext*, CuDevice) = nullptr;
  CuResult (*ctx_set_current)(CuContext) = nullptr;
  CuResult (*ctx_synchronize)() = nullptr;
  CuResult (*module_load_data)(CuModule*, const void*) = nullptr;
  CuResult (*module_unload)(CuModule) = nullptr;
  CuResult (*module_get_function)(CuFunction*, CuModule, const char*) = nullptr;
  CuResult (*mem_alloc)(CuDevicePtr*, size_t) = nullptr;
  CuResult (*mem_free)(CuDevicePtr) = nullptr;
  CuResult (*memcpy_htod)(CuDevicePtr, const void*, size_t) = nullptr;
  CuResult (*memcpy_dtoh)(void*, CuDevicePtr, size_t) = nullptr;
  CuResult (*launch_kernel)(CuFunction, unsigned, unsigned, unsigned, unsigned,
                            unsigned, unsigned, unsigned, CuStream, void**,
                            void**) = nullptr;
  CuResult (*stream_create)(CuStream*, unsigned) = nullptr;
  CuResult (*stream_destroy)(CuStream) = nullptr;
  CuResult (*stream_synchronize)(CuStream) = nullptr;
  CuResult (*event_create)(CuEvent*, unsigned) = nullptr;
  CuResult (*event_destroy)(CuEvent) = nullptr;
  CuResult (*event_record)(CuEvent, CuStream) = nullptr;
  CuResult (*event_query)(CuEvent) = nullptr;
  CuResult (*get_error_name)(CuResult, const char**) = nullptr;
  CuResult (*get_error_string)(CuResult, const char**) = nullptr;

  CuDevice device = 0;
  CuContext context = nullptr;
  int compute_major = 0, compute_minor = 0;
  int driver_version = 0;
  std::string device_name;

  // "CUDA_ERROR_X: text" for a result code.
  std::string ErrorString(CuResult r) const;
  // Whether cubins from CUDA 13's nvJitLink load (driver 13.0, 580, or
  // later); older drivers get PTX to JIT-compile.
  bool LoadsCuda13Cubins() const { return driver_version >= 13000; }
  // OK for CUDA_SUCCESS, else Internal "<what>: CUDA_ERROR_X: text".
  absl::Status Check(CuResult r, const std::string& what) const;
};

// The driver with device 0's primary context current on the calling
// thread, or FailedPrecondition "no CUDA device: <why>" (no libcuda.so.1,
// cuInit failed, zero devices, a driver older than CUDA 12.5, which cannot
// JIT PTX 8.5). Loaded once per process.
absl::StatusOr<CudaDriver*> GetCudaDriver();

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_CUDA_DRIVER_H_
