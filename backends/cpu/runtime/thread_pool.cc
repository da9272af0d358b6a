#include "backends/cpu/runtime/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "backends/cpu/runtime/run_context.h"

namespace hloref::cpu {

namespace {

int SpinFromEnvironment() {
  const char* v = std::getenv("HLOREF_CPU_SPIN_US");
  if (v == nullptr || *v == 0) return ThreadPool::kDefaultSpinUs;
  const long us = std::strtol(v, nullptr, 10);
  return static_cast<int>(std::clamp<long>(us, 0, 100000));
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

ThreadPool::ThreadPool(int threads, int spin_us)
    : spin_us_(spin_us < 0 ? SpinFromEnvironment() : spin_us) {
  for (int i = 1; i < threads; ++i)
    workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

template <typename Pred>
bool ThreadPool::Spin(Pred done) const {
  if (spin_us_ <= 0) return done();
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us_);
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= until) return done();
  }
}

void ThreadPool::ParallelFor(int64_t n,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int64_t chunks = std::min<int64_t>(n, threads());
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  auto run_chunk = [&](int64_t c) {
    int64_t begin = n * c / chunks, end = n * (c + 1) / chunks;
    fn(begin, end);
  };
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &fn;
    job_n_ = n;
    next_chunk_ = 0;
    chunks_ = chunks;
    finished_.store(0);
    generation_.fetch_add(1);
  }
  // Cheap when every worker is still polling (no waiter: no system call).
  cv_.notify_all();
  // The calling thread works too.
  for (;;) {
    int64_t c;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (next_chunk_ >= chunks_) break;
      c = next_chunk_++;
    }
    run_chunk(c);
    std::lock_guard<std::mutex> lock(mu_);
    finished_.fetch_add(1);
  }
  Spin([&] { return finished_.load(std::memory_order_acquire) == chunks; });
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return finished_.load() == chunks_; });
  job_ = nullptr;
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;
  for (;;) {
    // Poll first: a job posted within the spin time starts without a
    // wake-up. The job itself is read under the lock below.
    Spin([&] {
      return stop_.load(std::memory_order_relaxed) ||
             generation_.load(std::memory_order_acquire) != seen;
    });
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
      return stop_.load() || (job_ != nullptr && generation_.load() != seen);
    });
    if (stop_.load()) return;
    seen = generation_.load();
    while (job_ != nullptr && next_chunk_ < chunks_) {
      int64_t c = next_chunk_++;
      const auto* fn = job_;
      int64_t n = job_n_, chunks = chunks_;
      lock.unlock();
      (*fn)(n * c / chunks, n * (c + 1) / chunks);
      lock.lock();
      if (finished_.fetch_add(1) + 1 == chunks_) done_cv_.notify_all();
    }
  }
}

}  // namespace hloref::cpu

namespace {
// Set while a thread runs a chunk: a parallel loop inside one runs inline
// (the pool runs one job at a time).
thread_local bool in_parallel_chunk = false;
}  // namespace

extern "C" void hloref_cpu_parallel_for(void* ctx, int64_t n,
                                        void (*body)(void*, int64_t, int64_t),
                                        void* env) {
  auto* run = static_cast<hloref::cpu::RunContext*>(ctx);
  if (run->pool == nullptr || n < 2 || in_parallel_chunk) {
    if (n > 0) body(env, 0, n);
    return;
  }
  run->pool->ParallelFor(n, [&](int64_t b, int64_t e) {
    bool saved = in_parallel_chunk;
    in_parallel_chunk = true;
    body(env, b, e);
    in_parallel_chunk = saved;
  });
}
