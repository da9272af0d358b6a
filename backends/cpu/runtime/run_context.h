// The state one execution of a compiled module carries: what the runtime
// functions called from generated code (the `ptr %ctx` argument of every
// compiled function) need. Generated code treats it as opaque.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_RUN_CONTEXT_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_RUN_CONTEXT_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "backends/backend.h"

namespace hloref::cpu {

class ThreadPool;
class CollectiveGroup;  // collectives.h
struct CustomCallLibrary;

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
