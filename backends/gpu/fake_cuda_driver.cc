// A fake CUDA driver for the runtime's tests on machines without a GPU
// (facts doc 4.7): the driver API symbols gpu/cuda_driver.cc resolves,
// with host memory for device memory and launches that are recorded but
// not executed. One device of compute capability 9.0, driver 13.0.
// HLOREF_FAKE_CUDA_FAIL_LAUNCH=1 makes every launch fail with
// CUDA_ERROR_LAUNCH_FAILED. Queried by the test through
// fake_cuda_launch_count / fake_cuda_launch.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
struct Launch {
  std::string kernel;
  unsigned grid[3], block[3];
};
std::vector<Launch>& Launches() {
  static std::vector<Launch> launches;
  return launches;
}
struct Module {
  bool cubin;
};
constexpr int kLaunchFailed = 719;  // CUDA_ERROR_LAUNCH_FAILED
constexpr int kInvalidValue = 1;    // CUDA_ERROR_INVALID_VALUE
}  // namespace

extern "C" {
int cuInit(unsigned) { return 0; }
// HLOREF_FAKE_CUDA_DRIVER_VERSION overrides the driver version (13000).
int cuDriverGetVersion(int* v) {
  const char* version = std::getenv("HLOREF_FAKE_CUDA_DRIVER_VERSION");
  *v = version != nullptr ? std::atoi(version) : 13000;
  return 0;
}
int cuDeviceGetCount(int* n) {
  *n = 1;
  return 0;
}
int cuDeviceGet(int* d, int) {
  *d = 0;
  return 0;
}
int cuDeviceGetAttribute(int* v, int attribute, int) {
  *v = attribute == 75 ? 9 : attribute == 76 ? 0 : 0;
  return 0;
}
int cuDeviceGetName(char* name, int len, int) {
  std::strncpy(name, "fake H100", static_cast<size_t>(len));
  return 0;
}
int cuDevicePrimaryCtxRetain(void** ctx, int) {
  static int context;
  *ctx = &context;
  return 0;
}
int cuCtxSetCurrent(void*) { return 0; }
int cuCtxSynchronize() { return 0; }
bool last_module_cubin = false;
int cuModuleLoadData(void** module, const void* image) {
  // A cubin is an ELF file.
  const bool elf = std::memcmp(image,
                               "\x7f"
                               "ELF",
                               4) == 0;
  last_module_cubin = elf;
  *module = new Module{elf};
  return 0;
}
// 1 when the last module loaded was a cubin, 0 for PTX.
int fake_cuda_last_module_was_cubin() { return last_module_cubin ? 1 : 0; }
int cuModuleUnload(void* module) {
  delete static_cast<Module*>(module);
  return 0;
}
int cuModuleGetFunction(void** f, void*, const char* name) {
  *f = new std::string(name);  // leaked: a test's few kernels
  return 0;
}
int cuMemAlloc_v2(uint64_t* p, size_t bytes) {
  *p = reinterpret_cast<uint64_t>(std::malloc(bytes));
  return *p == 0 ? 2 : 0;  // CUDA_ERROR_OUT_OF_MEMORY
}
int cuMemFree_v2(uint64_t p) {
  std::free(reinterpret_cast<void*>(p));
  return 0;
}
int cuMemcpyHtoD_v2(uint64_t dst, const void* src, size_t n) {
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return 0;
}
int cuMemcpyDtoH_v2(void* dst, uint64_t src, size_t n) {
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  return 0;
}
int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned by, unsigned bz, unsigned, void*, void** params,
                   void**) {
  if (f == nullptr || params == nullptr) return kInvalidValue;
  Launches().push_back(
      {*static_cast<std::string*>(f), {gx, gy, gz}, {bx, by, bz}});
  const char* fail = std::getenv("HLOREF_FAKE_CUDA_FAIL_LAUNCH");
  return fail != nullptr && fail[0] == '1' ? kLaunchFailed : 0;
}
int cuGetErrorName(int r, const char** s) {
  *s = r == kLaunchFailed ? "CUDA_ERROR_LAUNCH_FAILED" : "CUDA_ERROR_OTHER";
  return 0;
}
int cuGetErrorString(int r, const char** s) {
  *s = r == kLaunchFailed ? "unspecified launch failure" : "other error";
  return 0;
}

int fake_cuda_launch_count() { return static_cast<int>(Launches().size()); }
// Launch i: writes its kernel name (up to len bytes), grid and block.
void fake_cuda_launch(int i, char* kernel, int len, unsigned* grid,
                      unsigned* block) {
  const Launch& l = Launches()[i];
  std::strncpy(kernel, l.kernel.c_str(), static_cast<size_t>(len));
  for (int d = 0; d < 3; ++d) {
    grid[d] = l.grid[d];
    block[d] = l.block[d];
  }
}
}  // extern "C"
