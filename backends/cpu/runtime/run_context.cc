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

ScratchCache::~ScratchCache() {
  for (auto& [size, p] : kept_) std::free(p);
  // Blocks still handed out belong to a run that outlives its executable,
  // which Executable's contract excludes; they are not freed here.
}

void* ScratchCache::Take(size_t size) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = kept_.find(size);
    if (it != kept_.end()) {
      void* p = it->second;
      kept_.erase(it);
      kept_bytes_ -= size;
      out_[p] = size;
      return p;
    }
  }
  void* p = std::aligned_alloc(64, size);
  if (p == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  out_[p] = size;
  return p;
}

bool ScratchCache::Give(void* p) {
  size_t size = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = out_.find(p);
    if (it == out_.end()) return false;
    size = it->second;
    out_.erase(it);
    if (kept_bytes_ + size <= kMaxKeptBytes) {
      kept_.emplace(size, p);
      kept_bytes_ += size;
      return true;
    }
  }
  std::free(p);
  return true;
}

size_t ScratchCache::kept_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kept_bytes_;
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

namespace {
// What a failed hloref_cpu_alloc returns (never freed).
alignas(64) char alloc_failed_dummy[64];
}  // namespace

void* hloref_cpu_alloc(hloref::cpu::RunContext* ctx, int64_t bytes) {
  size_t size = (static_cast<size_t>(bytes) + 63) / 64 * 64;
  if (size == 0) size = 64;
  void* p =
      ctx->scratch != nullptr && size >= hloref::cpu::ScratchCache::kMinBytes
          ? ctx->scratch->Take(size)
          : std::aligned_alloc(64, size);
  if (p == nullptr) {
    ctx->SetError(absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", bytes, " bytes of scratch memory")));
    return alloc_failed_dummy;
  }
  return p;
}

void hloref_cpu_free(hloref::cpu::RunContext* ctx, void* p) {
  if (p == alloc_failed_dummy) return;
  if (ctx->scratch != nullptr && ctx->scratch->Give(p)) return;
  std::free(p);
}

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
