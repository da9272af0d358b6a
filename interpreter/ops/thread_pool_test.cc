#include "interpreter/ops/thread_pool.h"

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "interpreter/ops/parallel.h"

namespace hloref {
namespace {

// Every task of a ParallelFor runs exactly once, whatever the thread count,
// and the pool's threads are started once: 200 calls at 8 threads leave
// at most 7 pool threads (before the pool, each call started 7).
TEST(WorkerPool, ParallelForRunsEveryTaskOnceAndReusesThreads) {
  for (int threads : {1, 2, 3, 8}) {
    for (int rep = 0; rep < 50; ++rep) {
      const int64_t tasks = 1 + rep * 7;
      std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
      std::atomic<int> bad_worker{0};
      ParallelFor(threads, tasks, [&](int64_t t, int worker) {
        if (worker < 0 || worker >= threads) ++bad_worker;
        ++runs[static_cast<size_t>(t)];
        return true;
      });
      for (int64_t t = 0; t < tasks; ++t) {
        ASSERT_EQ(runs[static_cast<size_t>(t)].load(), 1)
            << "threads " << threads << " tasks " << tasks << " task " << t;
      }
      EXPECT_EQ(bad_worker.load(), 0);
    }
  }
  EXPECT_LE(WorkerPool::Shared().threads(), 7);
}

// fn(0) runs on the caller; each helper index at most once; calls from
// several threads at once and a Run inside a Run all complete.
TEST(WorkerPool, ConcurrentAndNestedRuns) {
  WorkerPool pool;
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::atomic<int>> seen(4);
  std::atomic<bool> zero_on_caller{false};
  pool.Run(4, [&](int w) {
    ++seen[static_cast<size_t>(w)];
    if (w == 0) zero_on_caller = std::this_thread::get_id() == caller;
  });
  EXPECT_TRUE(zero_on_caller.load());
  EXPECT_EQ(seen[0].load(), 1);
  for (int w = 1; w < 4; ++w) EXPECT_LE(seen[static_cast<size_t>(w)].load(), 1);

  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 20; ++rep) {
        std::atomic<int64_t> next{0};
        pool.Run(3, [&](int) {
          while (next.fetch_add(1) < 100) {
            // Nested: a Run from inside a Run.
            std::atomic<int64_t> inner{0};
            pool.Run(2, [&](int) {
              while (inner.fetch_add(1) < 3) ++total;
            });
          }
        });
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 20 * 100 * 3);
  EXPECT_EQ(pool.threads(), 3);  // the first Run(4); none added since
}

}  // namespace
}  // namespace hloref
