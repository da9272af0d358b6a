#include "backends/gpu/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"

namespace hloref::gpu {

namespace {
// cuda.h 13.0 values.
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
// PTX ISA 8.5 (LLVM 19's highest) is JIT-compiled by drivers of CUDA
// 12.5 (555) and later; cubins from CUDA 13's nvJitLink need 13.0 (580).
constexpr int kMinDriverVersion = 12050;

absl::StatusOr<CudaDriver*> LoadDriver() {
  auto no_device = [](const std::string& why) {
    return absl::FailedPreconditionError(absl::StrCat("no CUDA device: ", why));
  };
  // HLOREF_LIBCUDA names another driver library (the tests' fake one).
  const char* override_path = std::getenv("HLOREF_LIBCUDA");
  const char* path = override_path != nullptr && override_path[0] != '\0'
                         ? override_path
                         : "libcuda.so.1";
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    return no_device(absl::StrCat("cannot load the CUDA driver ", path, " (",
                                  e != nullptr ? e : "not found", ")"));
  }
  auto d = std::make_unique<CudaDriver>();
  std::string missing;
  auto sym = [&](auto& fn, const char* name) {
    void* p = dlsym(lib, name);
    if (p == nullptr && missing.empty()) missing = name;
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
  sym(d->init, "cuInit");
  sym(d->driver_get_version, "cuDriverGetVersion");
  sym(d->device_get_count, "cuDeviceGetCount");
  sym(d->device_get, "cuDeviceGet");
  sym(d->device_get_attribute, "cuDeviceGetAttribute");
  sym(d->device_get_name, "cuDeviceGetName");
  sym(d->primary_ctx_retain, "cuDevicePrimaryCtxRetain");
  sym(d->ctx_set_current, "cuCtxSetCurrent");
  sym(d->ctx_synchronize, "cuCtxSynchronize");
  sym(d->module_load_data, "cuModuleLoadData");
  sym(d->module_unload, "cuModuleUnload");
  sym(d->module_get_function, "cuModuleGetFunction");
  sym(d->mem_alloc, "cuMemAlloc_v2");
  sym(d->mem_free, "cuMemFree_v2");
  sym(d->memcpy_htod, "cuMemcpyHtoD_v2");
  sym(d->memcpy_dtoh, "cuMemcpyDtoH_v2");
  sym(d->launch_kernel, "cuLaunchKernel");
  sym(d->stream_create, "cuStreamCreate");
  sym(d->stream_destroy, "cuStreamDestroy_v2");
  sym(d->stream_synchronize, "cuStreamSynchronize");
  sym(d->event_create, "cuEventCreate");
  sym(d->event_destroy, "cuEventDestroy_v2");
  sym(d->event_record, "cuEventRecord");
  sym(d->event_query, "cuEventQuery");
  sym(d->get_error_name, "cuGetErrorName");
  sym(d->get_error_string, "cuGetErrorString");
  if (!missing.empty()) {
    return no_device(absl::StrCat("libcuda.so.1 lacks ", missing));
  }
  if (CuResult r = d->init(0); r != 0) {
    return no_device(absl::StrCat("cuInit: ", d->ErrorString(r)));
  }
  int count = 0;
  if (CuResult r = d->device_get_count(&count); r != 0 || count == 0) {
    return no_device(r != 0
                         ? absl::StrCat("cuDeviceGetCount: ", d->ErrorString(r))
                         : "the driver reports zero devices");
  }
  d->driver_get_version(&d->driver_version);
  if (d->driver_version < kMinDriverVersion) {
    return no_device(absl::StrCat(
        "the driver supports CUDA ", d->driver_version / 1000, ".",
        d->driver_version % 1000 / 10,
        "; the GPU backend's PTX 8.5 needs a CUDA 12.5 driver (555) or "
        "later"));
  }
  if (CuResult r = d->device_get(&d->device, 0); r != 0) {
    return no_device(absl::StrCat("cuDeviceGet(0): ", d->ErrorString(r)));
  }
  d->device_get_attribute(&d->compute_major, kAttrComputeCapabilityMajor,
                          d->device);
  d->device_get_attribute(&d->compute_minor, kAttrComputeCapabilityMinor,
                          d->device);
  char name[256] = {};
  d->device_get_name(name, sizeof(name) - 1, d->device);
  d->device_name = name;
  if (CuResult r = d->primary_ctx_retain(&d->context, d->device); r != 0) {
    return no_device(
        absl::StrCat("cuDevicePrimaryCtxRetain: ", d->ErrorString(r)));
  }
  return d.release();
}
}  // namespace

std::string CudaDriver::ErrorString(CuResult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (get_error_name != nullptr) get_error_name(r, &name);
  if (get_error_string != nullptr) get_error_string(r, &text);
  return absl::StrCat(name != nullptr ? name : absl::StrCat("CUDA error ", r),
                      ": ", text != nullptr ? text : "unknown error");
}

absl::Status CudaDriver::Check(CuResult r, const std::string& what) const {
  if (r == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": ", ErrorString(r)));
}

absl::StatusOr<CudaDriver*> GetCudaDriver() {
  static const absl::StatusOr<CudaDriver*>* driver =
      new absl::StatusOr<CudaDriver*>(LoadDriver());
  if (!driver->ok()) return driver->status();
  CudaDriver* d = **driver;
  if (CuResult r = d->ctx_set_current(d->context); r != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("no CUDA device: cuCtxSetCurrent: ", d->ErrorString(r)));
  }
  return d;
}

}  // namespace hloref::gpu
