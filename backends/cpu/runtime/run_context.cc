#include "backends/cpu/runtime/run_context.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "backends/cpu/runtime/conv.h"
#include "backends/cpu/runtime/gemm.h"
#include "backends/cpu/runtime/runtime_symbols.h"
#include "backends/cpu/runtime/thread_pool.h"
#include "backends/cpu/runtime/topk.h"

namespace hloref::cpu {

void RunContext::SetError(absl::Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (status_.ok()) status_ = std::move(status);
  failed_.store(true, std::memory_order_relaxed);
}

absl::Status RunContext::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

RuntimeSymbolList AllRuntimeSymbols() {
  RuntimeSymbolList list = {
      {"hloref_cpu_alloc", reinterpret_cast<void*>(&hloref_cpu_alloc)},
      {"hloref_cpu_free", reinterpret_cast<void*>(&hloref_cpu_free)},
      {"hloref_cpu_error", reinterpret_cast<void*>(&hloref_cpu_error)},
      {"hloref_cpu_error_code",
       reinterpret_cast<void*>(&hloref_cpu_error_code)},
      {"hloref_cpu_parallel_for",
       reinterpret_cast<void*>(&hloref_cpu_parallel_for)},
  };
  AddSortRuntimeSymbols(list);
  AddTopKRuntimeSymbols(list);
  AddFftRuntimeSymbols(list);
  AddLinalgRuntimeSymbols(list);
  AddRngRuntimeSymbols(list);
  AddCollectiveRuntimeSymbols(list);
  AddHostRuntimeSymbols(list);
  AddCustomCallRuntimeSymbols(list);
  AddMathRuntimeSymbols(list);
  AddGemmRuntimeSymbols(list);
  AddConvRuntimeSymbols(list);
  return list;
}

}  // namespace hloref::cpu

extern "C" {

void* hloref_cpu_alloc(hloref::cpu::RunContext* ctx, int64_t bytes) {
  alignas(64) static char dummy[64];
  size_t size = (static_cast<size_t>(bytes) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, size == 0 ? 64 : size);
  if (p == nullptr) {
    ctx->SetError(absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", bytes, " bytes of scratch memory")));
    return dummy;
  }
  return p;
}

void hloref_cpu_free(hloref::cpu::RunContext*, void* p) { std::free(p); }

void hloref_cpu_error(hloref::cpu::RunContext* ctx, const char* message) {
  ctx->SetError(absl::InternalError(message));
}

void hloref_cpu_error_code(hloref::cpu::RunContext* ctx, int32_t code,
                           const char* message) {
  const bool known =
      code > 0 &&
      code <= static_cast<int32_t>(absl::StatusCode::kUnauthenticated);
  ctx->SetError(absl::Status(
      known ? static_cast<absl::StatusCode>(code) : absl::StatusCode::kInternal,
      message));
}

}  // extern "C"
