// A fake CUDA driver for the runtime's tests on machines without a GPU
// (facts doc 4.7): the driver API symbols gpu/cuda_driver.cc resolves,
// with host memory for device memory and launches that are recorded but
// not executed. One device of compute capability 9.0, driver 13.0.
// HLOREF_FAKE_CUDA_FAIL_LAUNCH=1 makes every launch fail with
// CUDA_ERROR_LAUNCH_FAILED. Streams run nothing: a launch of a kernel
// whose name contains HLOREF_FAKE_CUDA_FAIL_KERNEL is queued (the launch
// returns success) and "fails when it executes": the events recorded on
// its stream after it are never reached (cuEventQuery answers
// CUDA_ERROR_NOT_READY) and the stream's next cuStreamSynchronize returns
// CUDA_ERROR_LAUNCH_FAILED (then the stream is clean again: the error is
// not sticky, unlike a real context's). Queried by the test through
// fake_cuda_launch_count / fake_cuda_launch and the call log
// fake_cuda_call_count / fake_cuda_call ("launch NAME", "event_record",
// "stream_synchronize", "ctx_synchronize", "memcpy_dtoh" ...).
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
struct Stream {
  int pending_error = 0;  // a queued kernel "failed"
};
struct Event {
  bool reached = false;
};
std::vector<std::string>& Calls() {
  static std::vector<std::string> calls;
  return calls;
}
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
int cuCtxSynchronize() {
  Calls().push_back("ctx_synchronize");
  return 0;
}
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
// Device allocations not freed yet (fake_cuda_live_allocations).
static int live_allocations = 0;
int cuMemAlloc_v2(uint64_t* p, size_t bytes) {
  *p = reinterpret_cast<uint64_t>(std::malloc(bytes));
  if (*p != 0) ++live_allocations;
  return *p == 0 ? 2 : 0;  // CUDA_ERROR_OUT_OF_MEMORY
}
int cuMemFree_v2(uint64_t p) {
  std::free(reinterpret_cast<void*>(p));
  --live_allocations;
  return 0;
}
int fake_cuda_live_allocations() { return live_allocations; }
int cuMemcpyHtoD_v2(uint64_t dst, const void* src, size_t n) {
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return 0;
}
int cuMemcpyDtoH_v2(void* dst, uint64_t src, size_t n) {
  Calls().push_back("memcpy_dtoh");
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  return 0;
}
int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned by, unsigned bz, unsigned, void* stream,
                   void** params, void**) {
  if (f == nullptr || params == nullptr) return kInvalidValue;
  const std::string& name = *static_cast<std::string*>(f);
  Launches().push_back({name, {gx, gy, gz}, {bx, by, bz}});
  Calls().push_back(
      std::string(stream != nullptr ? "launch " : "launch(null stream) ") +
      name);
  const char* fail = std::getenv("HLOREF_FAKE_CUDA_FAIL_LAUNCH");
  if (fail != nullptr && fail[0] == '1') return kLaunchFailed;
  const char* fail_kernel = std::getenv("HLOREF_FAKE_CUDA_FAIL_KERNEL");
  if (stream != nullptr && fail_kernel != nullptr && fail_kernel[0] != '\0' &&
      name.find(fail_kernel) != std::string::npos) {
    static_cast<Stream*>(stream)->pending_error = kLaunchFailed;
  }
  return 0;
}
int cuStreamCreate(void** stream, unsigned) {
  *stream = new Stream;
  return 0;
}
int cuStreamDestroy_v2(void* stream) {
  delete static_cast<Stream*>(stream);
  return 0;
}
int cuStreamSynchronize(void* stream) {
  Calls().push_back("stream_synchronize");
  Stream* s = static_cast<Stream*>(stream);
  const int r = s->pending_error;
  s->pending_error = 0;
  return r;
}
int cuEventCreate(void** event, unsigned) {
  *event = new Event;
  return 0;
}
int cuEventDestroy_v2(void* event) {
  delete static_cast<Event*>(event);
  return 0;
}
int cuEventRecord(void* event, void* stream) {
  Calls().push_back("event_record");
  static_cast<Event*>(event)->reached =
      stream != nullptr && static_cast<Stream*>(stream)->pending_error == 0;
  return 0;
}
int cuEventQuery(void* event) {
  return static_cast<Event*>(event)->reached ? 0 : 600;  // NOT_READY
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
int fake_cuda_call_count() { return static_cast<int>(Calls().size()); }
// Call i of the log (up to len bytes).
void fake_cuda_call(int i, char* call, int len) {
  std::strncpy(call, Calls()[i].c_str(), static_cast<size_t>(len));
}
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
