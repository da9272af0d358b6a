// A process-wide pool of worker threads for the oracle's threaded fast
// paths (ParallelFor in parallel.h): threads are started once, when a
// call first needs them, instead of per instruction.
#ifndef HLOREF_INTERPRETER_OPS_THREAD_POOL_H_
#define HLOREF_INTERPRETER_OPS_THREAD_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hloref {

class WorkerPool {
 public:
  // The pool every ParallelFor uses. Never destroyed: its threads wait
  // for work until the process exits.
  static WorkerPool& Shared();

  WorkerPool() = default;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  // Stops and joins the threads (a pool made by a test); no Run may be in
  // progress.
  ~WorkerPool();

  // Runs fn(0) on the calling thread and fn(1) ... fn(workers - 1) on pool
  // threads, as they become free, and returns when every call that started
  // has returned. Calls not started by the time fn(0) returns are not made
  // (fn(0) is expected to have done their share: ParallelFor's tasks come
  // from a shared counter), so a busy pool (another instruction's Run, on
  // another thread: replicas) delays no one. Several threads may Run at
  // once; fn may itself Run (the caller always works, so this cannot
  // deadlock). Grows the pool to workers - 1 threads.
  void Run(int workers, const std::function<void(int)>& fn);

  // Threads started so far (tests).
  int threads() const;

 private:
  struct Job {
    const std::function<void(int)>* fn;
    int slots;     // helper calls fn(1) ... fn(slots)
    int next = 1;  // the next helper slot to hand out
    int running = 0;
  };
  void Loop();

  mutable std::mutex mu_;
  std::condition_variable work_;  // a job was queued, or stopping
  std::condition_variable done_;  // a helper call returned
  std::deque<Job*> queue_;        // jobs with helper slots left
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_THREAD_POOL_H_
