#include "interpreter/ops/thread_pool.h"

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "interpreter/ops/data_movement_test_util.h"
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

// A module whose dot, convolution, reduce and element-wise ops are all
// large enough to be split (work >= 2^22 products, 2^20, 64K elements),
// evaluated many times at 1, 2, 3 and 8 threads on the shared pool: every
// result is bit-identical to the one-thread result (each output is
// computed alone), and the pool never holds more than 7 threads however
// many instructions and runs used it.
TEST(WorkerPool, ModuleResultsIdenticalAtEveryThreadCount) {
  const char* text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  i = f32[256,256] iota(), iota_dimension=1
  j = f32[256,256] iota(), iota_dimension=0
  c = f32[] constant(0.0078125)
  cb = f32[256,256] broadcast(c), dimensions={}
  x = f32[256,256] multiply(i, cb)
  y = f32[256,256] subtract(x, j)
  d = f32[256,256] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[256,256] exponential(x)
  img = f32[1,64,64,16] reshape(d)
  wi = f32[3,3,16,16] iota(), iota_dimension=2
  wc = f32[] constant(0.0625)
  wb = f32[3,3,16,16] broadcast(wc), dimensions={}
  wk = f32[3,3,16,16] multiply(wi, wb)
  conv = f32[1,64,64,16] convolution(img, wk), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  z = f32[] constant(0)
  r = f32[256] reduce(e, z), dimensions={1}, to_apply=add
  s = f32[256,256] add(d, e)
  ROOT t = (f32[256,256], f32[1,64,64,16], f32[256]) tuple(s, conv, r)
})";
  EvaluatorOptions one;
  one.threads = 1;
  absl::StatusOr<EvalResult> want = testing_dm::RunHlo(text, {}, one);
  ASSERT_TRUE(want.ok()) << want.status();
  for (int threads : {2, 3, 8, 1, 8}) {
    for (int rep = 0; rep < 3; ++rep) {
      EvaluatorOptions options;
      options.threads = threads;
      absl::StatusOr<EvalResult> got = testing_dm::RunHlo(text, {}, options);
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(got->value.BitwiseEquals(want->value))
          << "threads " << threads;
    }
  }
  EXPECT_LE(WorkerPool::Shared().threads(), 7);
}

}  // namespace
}  // namespace hloref
