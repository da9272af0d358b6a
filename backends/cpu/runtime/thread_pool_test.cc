// Unit tests of the CPU backend's thread pool (thread_pool.h): every index
// is run exactly once, with and without the polling before workers block,
// over many back-to-back jobs (a lost wake-up would hang or drop a chunk),
// jobs separated by pauses longer than the polling (the blocking path),
// and a pool destroyed while its workers poll.
#include "backends/cpu/runtime/thread_pool.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace hloref::cpu {
namespace {

// Runs `jobs` jobs of n_of(j) indices on `pool`; each index must be seen
// exactly once per job, and the call must return only when all are done.
void RunJobs(ThreadPool& pool, int jobs, int64_t (*n_of)(int),
             std::chrono::microseconds pause) {
  for (int j = 0; j < jobs; ++j) {
    const int64_t n = n_of(j);
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    pool.ParallelFor(n, [&](int64_t b, int64_t e) {
      ASSERT_LE(0, b);
      ASSERT_LE(b, e);
      ASSERT_LE(e, n);
      for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
    });
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1)
          << "job " << j << " index " << i << " of " << n;
    }
    if (pause.count() > 0) std::this_thread::sleep_for(pause);
  }
}

int64_t SizeOf(int j) { return 1 + (j * 7) % 23; }

TEST(CpuThreadPool, EveryIndexOnceWhetherWorkersPollOrBlock) {
  for (int spin_us : {0, 50, 200}) {
    for (int threads : {1, 2, 3, 5}) {
      SCOPED_TRACE(::testing::Message()
                   << "spin_us=" << spin_us << " threads=" << threads);
      ThreadPool pool(threads, spin_us);
      EXPECT_EQ(pool.threads(), threads);
      // Back to back: the workers are still polling when the next job is
      // posted (with spin_us > 0).
      RunJobs(pool, 2000, SizeOf, std::chrono::microseconds(0));
      // Pauses longer than the polling: every job wakes blocked workers.
      RunJobs(pool, 20, SizeOf, std::chrono::microseconds(400));
    }
  }
}

// A job that ends while the caller polls, and one that ends only after
// the polling gave up (a chunk longer than spin_us): both return with
// every chunk done.
TEST(CpuThreadPool, CallerWaitsForChunksLongerThanThePolling) {
  ThreadPool pool(2, 20);
  std::atomic<int> done{0};
  pool.ParallelFor(2, [&](int64_t b, int64_t e) {
    if (b == 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    done += static_cast<int>(e - b);
  });
  EXPECT_EQ(done.load(), 2);
}

// Destroying a pool right after a job (its workers polling) and right
// after construction (its workers possibly not started) neither hangs nor
// crashes.
TEST(CpuThreadPool, DestroyedWhilePolling) {
  for (int i = 0; i < 50; ++i) {
    ThreadPool pool(3, 1000);
    std::atomic<int64_t> sum{0};
    pool.ParallelFor(10, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) sum += k;
    });
    EXPECT_EQ(sum.load(), 45);
  }
  for (int i = 0; i < 50; ++i) ThreadPool pool(2, 1000);
}

}  // namespace
}  // namespace hloref::cpu
