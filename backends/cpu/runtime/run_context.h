// The state one execution of a compiled module carries: what the runtime
// functions called from generated code (the `ptr %ctx` argument of every
// compiled function) need. Generated code treats it as opaque.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_RUN_CONTEXT_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_RUN_CONTEXT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "backends/backend.h"

namespace hloref::cpu {

class ThreadPool;
class CollectiveGroup;  // collectives.h
struct CustomCallLibrary;

// Large scratch blocks (hloref_cpu_alloc) an executable keeps between its
// runs. Fresh memory costs a page fault and a page clear per 4 KiB on first
// touch: for softmax's 16 MiB temporary (4096 x 1024 f32) that was more
// than the kernels that write and read it (docs/cpu-kernels.md "Reduce").
// Blocks of at least kMinBytes are handed out from here: a kept block of
// the same size when there is one, else a fresh one; given back, they are
// kept (at most kMaxKeptBytes in all, the rest freed) until the cache is
// destroyed. Thread-safe.
class ScratchCache {
 public:
  static constexpr size_t kMinBytes = size_t{1} << 20;
  static constexpr size_t kMaxKeptBytes = size_t{1} << 30;

  ScratchCache() = default;
  ScratchCache(const ScratchCache&) = delete;
  ScratchCache& operator=(const ScratchCache&) = delete;
  ~ScratchCache();

  // A 64-byte aligned block of `size` bytes (a multiple of 64); null when
  // the memory cannot be had.
  void* Take(size_t size);
  // Keeps or frees a block Take returned and returns true; false (nothing
  // done) for any other pointer.
  bool Give(void* p);
  size_t kept_bytes() const;

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<void*, size_t> out_;  // handed out: size
  std::multimap<size_t, void*> kept_;
  size_t kept_bytes_ = 0;
};

struct RunContext {
  // Participant of a replicated run (replica r, partition p).
  int64_t replica_id = 0;
  int64_t partition_id = 0;
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  // Shared by the participants of one replicated run; null otherwise.
  CollectiveGroup* collectives = nullptr;
  // Host transfers of RunWithHost; null for Run.
  backends::HostTransfers* host = nullptr;
  // Worker threads for parallel loops; null: run on the calling thread.
  ThreadPool* pool = nullptr;
  // rng: the module-level state of rng-get-and-update-state / rng.
  uint64_t* rng_state = nullptr;
  // CpuBackendOptions::fast (--cpu-fast): runtime kernels may take paths
  // that need a declared deviation (gemm.h RunDot).
  bool fast_math = false;
  // The executable's kept scratch blocks; null: every block is malloc'ed
  // and freed.
  ScratchCache* scratch = nullptr;

  // The first error a runtime function reported (generated code keeps
  // running to its end; Run returns this error instead of results).
  void SetError(absl::Status status);
  absl::Status error() const;
  bool failed() const { return failed_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex mu_;
  absl::Status status_;
  std::atomic<bool> failed_{false};
};

// A name -> address table of the runtime functions generated code calls;
// every runtime file adds its own.
struct RuntimeSymbol {
  const char* name;
  void* address;
};
using RuntimeSymbolList = std::vector<RuntimeSymbol>;
RuntimeSymbolList AllRuntimeSymbols();

}  // namespace hloref::cpu

extern "C" {
// Heap scratch for generated code (64-byte aligned); never returns null
// (an allocation failure records an error and returns a static dummy).
void* hloref_cpu_alloc(hloref::cpu::RunContext* ctx, int64_t bytes);
void hloref_cpu_free(hloref::cpu::RunContext* ctx, void* p);
// Records an error (a NUL-terminated message) for the run.
void hloref_cpu_error(hloref::cpu::RunContext* ctx, const char* message);
// The same with the error's absl::StatusCode (an unknown code: Internal).
void hloref_cpu_error_code(hloref::cpu::RunContext* ctx, int32_t code,
                           const char* message);
}

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_RUN_CONTEXT_H_
