// Splitting large independent work of one instruction across threads
// (EvaluatorOptions::threads). Work is cut into tasks by output elements,
// each task computes its outputs exactly as the one-thread loop does, so
// results are bit-identical for every thread count.
#ifndef HLOREF_INTERPRETER_OPS_PARALLEL_H_
#define HLOREF_INTERPRETER_OPS_PARALLEL_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>

#include "absl/status/status.h"
#include "interpreter/ops/thread_pool.h"

namespace hloref {

// The number of worker threads `threads` asks for (0: the cores).
inline int ResolveThreads(int threads) {
  if (threads > 0) return threads;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

// Runs fn(task, worker) for task in [0, tasks) on min(threads, tasks)
// workers (worker 0 is the calling thread, the others WorkerPool threads);
// tasks are taken in order from a shared counter. `fn` returns false to stop
// the remaining tasks (an error or a deadline seen by the caller's own
// bookkeeping).
template <typename Fn>
void ParallelFor(int threads, int64_t tasks, Fn&& fn) {
  const int workers = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(ResolveThreads(threads), tasks)));
  std::atomic<int64_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&](int worker) {
    while (!stop.load(std::memory_order_relaxed)) {
      const int64_t t = next.fetch_add(1, std::memory_order_relaxed);
      if (t >= tasks) break;
      if (!fn(t, worker)) stop.store(true, std::memory_order_relaxed);
    }
  };
  if (workers == 1) {
    work(0);
    return;
  }
  // Workers 1 ... workers - 1 on the process's pool (threads started once,
  // not per instruction); those the pool cannot start before worker 0 has
  // taken the last task are skipped.
  WorkerPool::Shared().Run(workers, std::function<void(int)>(work));
}

// ParallelFor whose calling thread (worker 0) runs `check` (the
// instruction's deadline) before each of its tasks: the first error stops
// the remaining tasks and is returned. `fn` returns true to go on.
template <typename Check, typename Fn>
absl::Status ParallelForChecked(int threads, int64_t tasks, Check&& check,
                                Fn&& fn) {
  absl::Status status;
  ParallelFor(threads, tasks, [&](int64_t task, int worker) {
    if (worker == 0) {
      status = check();
      if (!status.ok()) return false;
    }
    return fn(task, worker);
  });
  return status;
}

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_PARALLEL_H_
