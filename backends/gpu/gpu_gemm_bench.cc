// GEMM benchmark of the GPU backend against cuBLAS (issue 19), for a
// machine with an NVIDIA GPU (tools/gpu_device_check.sh runs it): square
// [N,N] x [N,N] dots of bf16, f16 (tensor cores: wgmma on sm_90a devices,
// mma.sync elsewhere) and f32 (FFMA) for N in 1024..8192, each compiled by
// the backend (CompileModuleToPtx -> nvJitLink -> cuModuleLoadData) and
// timed, then cublasGemmEx (libcublas loaded with dlopen, f32 compute:
// CUBLAS_COMPUTE_32F with the default math mode, which uses no TF32) on
// the same device buffers. Prints one line per case: ms, TFLOP/s, the
// ratio to cuBLAS, and the largest difference between the two results
// relative to |c| + N / 64 (inputs are k / 64 with |k| <= 32, exact in all
// three types; a sanity check, not the conformance verdict).
//
// Without a CUDA device it prints "skipped: <why>" and exits 0.
// Usage: gpu_gemm_bench [--sizes=1024,2048,4096,8192] [--types=bf16,f16,f32]
//                       [--iterations=20] [--arch=sm_90a]
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/gpu_emitter.h"
#include "backends/gpu/nvjitlink.h"
#include "spec/ir/hlo_parser.h"
#include "spec/util/status_macros.h"

namespace hloref::gpu {
namespace {

// cublas_api.h / library_types.h (CUDA 13.0) values.
constexpr int kCudaR16F = 2, kCudaR16BF = 14, kCudaR32F = 0;
constexpr int kCublasCompute32F = 68;
constexpr int kCublasGemmDefault = -1;
constexpr int kCublasOpN = 0;

struct Cublas {
  void* handle = nullptr;
  int (*create)(void**) = nullptr;
  int (*gemm_ex)(void*, int, int, int, int, int, const void*, const void*, int,
                 int, const void*, int, int, const void*, void*, int, int, int,
                 int) = nullptr;
};

absl::StatusOr<Cublas> LoadCublas() {
  void* lib = nullptr;
  for (const char* name :
       {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) break;
  }
  if (lib == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("cannot load libcublas: ", dlerror()));
  }
  Cublas c;
  c.create = reinterpret_cast<int (*)(void**)>(dlsym(lib, "cublasCreate_v2"));
  c.gemm_ex = reinterpret_cast<decltype(c.gemm_ex)>(dlsym(lib, "cublasGemmEx"));
  if (c.create == nullptr || c.gemm_ex == nullptr) {
    return absl::NotFoundError(
        "libcublas lacks cublasCreate_v2 / cublasGemmEx");
  }
  if (int r = c.create(&c.handle); r != 0) {
    return absl::InternalError(absl::StrCat("cublasCreate_v2 returned ", r));
  }
  return c;
}

// Bits of k / 64 (|k| <= 32, exact) in `type`.
uint32_t EncodeExact(const std::string& type, int k) {
  const float v = static_cast<float>(k) / 64.0f;
  uint32_t f;
  std::memcpy(&f, &v, 4);
  if (type == "f32") return f;
  if (type == "bf16") return f >> 16;
  // f16: normal (|v| >= 2^-6 > 2^-14) or zero; the f32 fraction has at
  // most 5 significant bits, so it fits 10.
  if (k == 0) return 0;
  const uint32_t sign = (f >> 31) << 15;
  const int exponent = static_cast<int>((f >> 23) & 0xff) - 127 + 15;
  return sign | (static_cast<uint32_t>(exponent) << 10) | ((f >> 13) & 0x3ff);
}

double DecodeValue(const std::string& type, const uint8_t* p) {
  if (type == "f32") {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  if (type == "bf16") {
    const uint32_t f = static_cast<uint32_t>(h) << 16;
    float v;
    std::memcpy(&v, &f, 4);
    return v;
  }
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double s = (h >> 15) ? -1.0 : 1.0;
  if (e == 0) return s * std::ldexp(m, -24);
  if (e == 31) return m ? NAN : s * INFINITY;
  return s * std::ldexp(1024 + m, e - 25);
}

struct Timing {
  double ms = 0;
  double tflops = 0;
};

absl::Status RunCase(CudaDriver* d, Cublas* cublas, const std::string& arch,
                     const std::string& type, int64_t n, int iterations) {
  const std::string text = absl::StrCat(
      "HloModule gemm\nENTRY e {\n  a = ", type, "[", n, ",", n,
      "] parameter(0)\n  b = ", type, "[", n, ",", n,
      "] parameter(1)\n  ROOT d = ", type, "[", n, ",", n,
      "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          ParseHloModule(text));
  GpuCompileOptions options;
  options.arch = arch;
  HLOREF_ASSIGN_OR_RETURN(GpuProgram program,
                          CompileModuleToPtx(*module, options));
  if (program.launches.size() != 1 || program.result_buffers.size() != 1) {
    return absl::InternalError("expected one kernel and one result");
  }
  HLOREF_ASSIGN_OR_RETURN(CubinResult cubin,
                          CompilePtxToCubin(program.ptx, arch));
  CuModule cu_module = nullptr;
  const bool exact_arch =
      arch == absl::StrCat("sm_", d->compute_major, d->compute_minor) ||
      arch == absl::StrCat("sm_", d->compute_major, d->compute_minor, "a");
  HLOREF_RETURN_IF_ERROR(d->Check(
      d->module_load_data(&cu_module,
                          exact_arch && d->LoadsCuda13Cubins()
                              ? static_cast<const void*>(cubin.cubin.data())
                              : program.ptx.c_str()),
      "cuModuleLoadData"));
  const KernelLaunch& k = program.launches[0];
  CuFunction f = nullptr;
  HLOREF_RETURN_IF_ERROR(
      d->Check(d->module_get_function(&f, cu_module, k.kernel.c_str()),
               "cuModuleGetFunction"));
  // Buffers: the two parameters filled with k / 64, the result.
  const int64_t bytes_per = type == "f32" ? 4 : 2;
  std::vector<CuDevicePtr> ptrs(program.buffers.size(), 0);
  uint64_t seed = 19;
  for (size_t i = 0; i < program.buffers.size(); ++i) {
    const GpuBuffer& buf = program.buffers[i];
    HLOREF_RETURN_IF_ERROR(d->Check(
        d->mem_alloc(&ptrs[i], std::max<int64_t>(buf.bytes, 1)), "cuMemAlloc"));
    if (buf.kind == GpuBuffer::Kind::kParameter) {
      std::vector<uint8_t> host(buf.bytes);
      for (int64_t e = 0; e < n * n; ++e) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const int kk = static_cast<int>((seed >> 33) % 65) - 32;
        const uint32_t bits = EncodeExact(type, kk);
        std::memcpy(host.data() + e * bytes_per, &bits, bytes_per);
      }
      HLOREF_RETURN_IF_ERROR(d->Check(
          d->memcpy_htod(ptrs[i], host.data(), host.size()), "cuMemcpyHtoD"));
    }
  }
  CuDevicePtr a = 0, b = 0;
  for (size_t i = 0; i < program.buffers.size(); ++i) {
    if (program.buffers[i].kind != GpuBuffer::Kind::kParameter) continue;
    (program.buffers[i].parameter == 0 ? a : b) = ptrs[i];
  }
  const CuDevicePtr c = ptrs[program.result_buffers[0]];
  CuDevicePtr c_ref = 0;
  HLOREF_RETURN_IF_ERROR(
      d->Check(d->mem_alloc(&c_ref, n * n * bytes_per), "cuMemAlloc"));
  std::vector<CuDevicePtr> values;
  for (int64_t id : k.buffers) values.push_back(ptrs[id]);
  std::vector<void*> params;
  for (CuDevicePtr& v : values) params.push_back(&v);
  auto ours = [&]() {
    return d->launch_kernel(f, k.grid[0], k.grid[1], k.grid[2], k.block[0],
                            k.block[1], k.block[2], 0, nullptr, params.data(),
                            nullptr);
  };
  const int data_type = type == "bf16"  ? kCudaR16BF
                        : type == "f16" ? kCudaR16F
                                        : kCudaR32F;
  const float alpha = 1.0f, beta = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T.
  auto theirs = [&]() {
    return cublas->gemm_ex(cublas->handle, kCublasOpN, kCublasOpN, n, n, n,
                           &alpha, reinterpret_cast<const void*>(b), data_type,
                           n, reinterpret_cast<const void*>(a), data_type, n,
                           &beta, reinterpret_cast<void*>(c_ref), data_type, n,
                           kCublasCompute32F, kCublasGemmDefault);
  };
  auto time = [&](auto&& launch, const char* what) -> absl::StatusOr<Timing> {
    for (int w = 0; w < 2; ++w) {
      if (int r = launch(); r != 0) {
        return absl::InternalError(absl::StrCat(what, " returned ", r));
      }
    }
    HLOREF_RETURN_IF_ERROR(d->Check(d->ctx_synchronize(), what));
    const auto start = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) launch();
    HLOREF_RETURN_IF_ERROR(d->Check(d->ctx_synchronize(), what));
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count() /
        iterations;
    return Timing{s * 1e3, 2.0 * n * n * n / s / 1e12};
  };
  HLOREF_ASSIGN_OR_RETURN(Timing t_ours, time(ours, k.kernel.c_str()));
  HLOREF_ASSIGN_OR_RETURN(Timing t_ref, time(theirs, "cublasGemmEx"));
  // The two results.
  std::vector<uint8_t> h_ours(n * n * bytes_per), h_ref(n * n * bytes_per);
  HLOREF_RETURN_IF_ERROR(d->Check(
      d->memcpy_dtoh(h_ours.data(), c, h_ours.size()), "cuMemcpyDtoH"));
  HLOREF_RETURN_IF_ERROR(d->Check(
      d->memcpy_dtoh(h_ref.data(), c_ref, h_ref.size()), "cuMemcpyDtoH"));
  double worst = 0;
  for (int64_t e = 0; e < n * n; ++e) {
    const double x = DecodeValue(type, h_ours.data() + e * bytes_per);
    const double y = DecodeValue(type, h_ref.data() + e * bytes_per);
    worst = std::max(worst, std::fabs(x - y) / (std::fabs(y) + n / 64.0));
  }
  const double limit = type == "bf16"  ? 0x1p-6
                       : type == "f16" ? 0x1p-9
                                       : 0x1p-18;
  std::printf(
      "gemm %-4s N=%-5lld %-28s %9.3f ms %8.2f TFLOP/s | cuBLAS %9.3f ms "
      "%8.2f TFLOP/s | %.2fx cuBLAS | max diff %.3g%s\n",
      type.c_str(), static_cast<long long>(n), k.kernel.c_str(), t_ours.ms,
      t_ours.tflops, t_ref.ms, t_ref.tflops, t_ours.tflops / t_ref.tflops,
      worst, worst > limit ? " MISMATCH" : "");
  std::fflush(stdout);
  for (CuDevicePtr p : ptrs) d->mem_free(p);
  d->mem_free(c_ref);
  d->module_unload(cu_module);
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  std::vector<int64_t> sizes = {1024, 2048, 4096, 8192};
  std::vector<std::string> types = {"bf16", "f16", "f32"};
  int iterations = 20;
  std::string arch;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const size_t len = std::strlen(flag);
      return arg.compare(0, len, flag) == 0 ? argv[i] + len : nullptr;
    };
    if (const char* v = value("--sizes=")) {
      sizes.clear();
      for (absl::string_view s : absl::StrSplit(v, ',')) {
        int64_t x;
        if (!absl::SimpleAtoi(s, &x) || x < 1) {
          std::fprintf(stderr, "bad --sizes entry '%s'\n",
                       std::string(s).c_str());
          return 2;
        }
        sizes.push_back(x);
      }
    } else if (const char* v = value("--types=")) {
      types = absl::StrSplit(v, ',');
    } else if (const char* v = value("--iterations=")) {
      if (!absl::SimpleAtoi(v, &iterations) || iterations < 1) {
        std::fprintf(stderr, "bad --iterations '%s'\n", v);
        return 2;
      }
    } else if (const char* v = value("--arch=")) {
      arch = v;
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  absl::StatusOr<CudaDriver*> d = GetCudaDriver();
  if (!d.ok()) {
    std::printf("skipped: %s\n", std::string(d.status().message()).c_str());
    return 0;
  }
  if (arch.empty()) {
    // sm_90a on Hopper (wgmma), else the device's sm_XY.
    arch = absl::StrCat("sm_", (*d)->compute_major, (*d)->compute_minor,
                        (*d)->compute_major == 9 ? "a" : "");
  }
  absl::StatusOr<Cublas> cublas = LoadCublas();
  if (!cublas.ok()) {
    std::printf("skipped: %s\n",
                std::string(cublas.status().message()).c_str());
    return 0;
  }
  std::printf("device %s (sm_%d%d), driver %d, kernels for %s\n",
              (*d)->device_name.c_str(), (*d)->compute_major,
              (*d)->compute_minor, (*d)->driver_version, arch.c_str());
  int failures = 0;
  for (const std::string& type : types) {
    for (int64_t n : sizes) {
      absl::Status s = RunCase(*d, &*cublas, arch, type, n, iterations);
      if (!s.ok()) {
        ++failures;
        std::printf("gemm %s N=%lld failed: %s\n", type.c_str(),
                    static_cast<long long>(n), s.ToString().c_str());
      }
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace hloref::gpu

int main(int argc, char** argv) { return hloref::gpu::Main(argc, argv); }
