#include "backends/gpu/nvjitlink.h"

#include <dlfcn.h>

#include <cstdint>
#include <mutex>

#include "absl/strings/str_cat.h"

// Types and constants only: the functions are resolved with dlsym.
#define NVJITLINK_NO_INLINE
#include "nvJitLink.h"

namespace hloref::gpu {

namespace {

// The subset of nvJitLink.h (CUDA 13.0) used here; the versioned entry
// points are what the header's inline wrappers call.
using Handle = void*;
using CreateFn = int (*)(Handle*, uint32_t, const char* const*);
using DestroyFn = int (*)(Handle*);
using AddDataFn = int (*)(Handle, int, const void*, size_t, const char*);
using CompleteFn = int (*)(Handle);
using SizeFn = int (*)(Handle, size_t*);
using GetFn = int (*)(Handle, void*);
using GetLogFn = int (*)(Handle, char*);
constexpr int kInputPtx = NVJITLINK_INPUT_PTX;

struct Api {
  std::string error;
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  AddDataFn add_data = nullptr;
  CompleteFn complete = nullptr;
  SizeFn cubin_size = nullptr;
  GetFn cubin = nullptr;
  SizeFn error_log_size = nullptr;
  GetLogFn error_log = nullptr;
  SizeFn info_log_size = nullptr;
  GetLogFn info_log = nullptr;
};

const Api& GetApi() {
  static const Api* api = [] {
    auto* a = new Api;
    void* lib = nullptr;
    for (const char* name : {
#ifdef HLOREF_CUDA_LIBRARY_DIR
             HLOREF_CUDA_LIBRARY_DIR "/libnvJitLink.so.13",
#endif
             "libnvJitLink.so.13",
             "/usr/local/cuda/lib64/libnvJitLink.so.13"}) {
      lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (lib != nullptr) break;
    }
    if (lib == nullptr) {
      const char* e = dlerror();
      a->error = absl::StrCat("cannot load libnvJitLink.so.13: ",
                              e != nullptr ? e : "not found");
      return a;
    }
    auto sym = [&](const char* name) {
      void* p = dlsym(lib, name);
      if (p == nullptr && a->error.empty()) {
        a->error = absl::StrCat("libnvJitLink.so.13 lacks ", name);
      }
      return p;
    };
    a->create = reinterpret_cast<CreateFn>(sym("__nvJitLinkCreate_13_0"));
    a->destroy = reinterpret_cast<DestroyFn>(sym("__nvJitLinkDestroy_13_0"));
    a->add_data = reinterpret_cast<AddDataFn>(sym("__nvJitLinkAddData_13_0"));
    a->complete = reinterpret_cast<CompleteFn>(sym("__nvJitLinkComplete_13_0"));
    a->cubin_size =
        reinterpret_cast<SizeFn>(sym("__nvJitLinkGetLinkedCubinSize_13_0"));
    a->cubin = reinterpret_cast<GetFn>(sym("__nvJitLinkGetLinkedCubin_13_0"));
    a->error_log_size =
        reinterpret_cast<SizeFn>(sym("__nvJitLinkGetErrorLogSize_13_0"));
    a->error_log =
        reinterpret_cast<GetLogFn>(sym("__nvJitLinkGetErrorLog_13_0"));
    a->info_log_size =
        reinterpret_cast<SizeFn>(sym("__nvJitLinkGetInfoLogSize_13_0"));
    a->info_log = reinterpret_cast<GetLogFn>(sym("__nvJitLinkGetInfoLog_13_0"));
    return a;
  }();
  return *api;
}

std::string Log(const Api& api, Handle h, bool error) {
  size_t size = 0;
  if ((error ? api.error_log_size : api.info_log_size)(h, &size) != 0 ||
      size == 0) {
    return "";
  }
  std::string text(size, '\0');
  if ((error ? api.error_log : api.info_log)(h, text.data()) != 0) return "";
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) {
    text.pop_back();
  }
  return text;
}

}  // namespace

absl::Status NvJitLinkAvailable() {
  const Api& api = GetApi();
  if (!api.error.empty()) return absl::FailedPreconditionError(api.error);
  return absl::OkStatus();
}

absl::StatusOr<CubinResult> CompilePtxToCubin(const std::string& ptx,
                                              const std::string& arch) {
  const Api& api = GetApi();
  if (!api.error.empty()) return absl::FailedPreconditionError(api.error);
  const std::string arch_option = absl::StrCat("-arch=", arch);
  const char* options[] = {arch_option.c_str(), "-verbose",
                           "-Xptxas=--warn-on-spills"};
  Handle h = nullptr;
  if (int r = api.create(&h, 3, options); r != 0) {
    return absl::InternalError(
        absl::StrCat("nvJitLinkCreate(", arch_option, ") failed: error ", r));
  }
  struct Destroy {
    const Api& api;
    Handle* h;
    ~Destroy() { api.destroy(h); }
  } destroy{api, &h};
  int r = api.add_data(h, kInputPtx, ptx.data(), ptx.size(), "module.ptx");
  if (r == 0) r = api.complete(h);
  if (r != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("nvJitLink rejected the PTX for ", arch, " (error ", r,
                     "): ", Log(api, h, /*error=*/true)));
  }
  CubinResult result;
  size_t size = 0;
  if (api.cubin_size(h, &size) != 0 || size == 0) {
    return absl::InternalError("nvJitLink produced no cubin");
  }
  result.cubin.resize(size);
  if (api.cubin(h, result.cubin.data()) != 0) {
    return absl::InternalError("nvJitLinkGetLinkedCubin failed");
  }
  result.info_log = Log(api, h, /*error=*/false);
  return result;
}

}  // namespace hloref::gpu
