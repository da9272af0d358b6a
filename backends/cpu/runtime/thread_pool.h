// A fixed pool of worker threads for parallel loop nests. ParallelFor
// splits [0, n) into contiguous chunks; every index is handled exactly
// once, so a loop whose iterations are independent gives the same result
// for any thread count.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_THREAD_POOL_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hloref::cpu {

class ThreadPool {
 public:
  // `threads` >= 1 (the calling thread counts as one of them). Idle
  // workers poll for the next job for `spin_us` microseconds before they
  // block (and the caller polls for the end of a job as long before it
  // blocks): waking a blocked thread costs tens of microseconds on a VM,
  // which a model's short back-to-back parallel loops pay on every loop.
  // A negative spin_us takes HLOREF_CPU_SPIN_US from the environment, else
  // kDefaultSpinUs; 0 blocks at once.
  static constexpr int kDefaultSpinUs = 200;
  explicit ThreadPool(int threads, int spin_us = -1);
  ~ThreadPool();
  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) on disjoint chunks covering [0, n), at most
  // threads() at once, and returns when all are done.
  void ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void WorkerLoop();
  // Polls `done` for up to spin_us_; true when it held.
  template <typename Pred>
  bool Spin(Pred done) const;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t job_n_ = 0, next_chunk_ = 0, chunks_ = 0;
  // Written under mu_; also read without it while polling.
  std::atomic<int64_t> finished_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  int spin_us_ = 0;
};

}  // namespace hloref::cpu

extern "C" {
// Generated code's entry to the pool: calls body(env, begin, end) over
// [0, n) split into chunks; runs inline when the run has no pool.
void hloref_cpu_parallel_for(void* ctx, int64_t n,
                             void (*body)(void* env, int64_t begin,
                                          int64_t end),
                             void* env);
}

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_THREAD_POOL_H_
