// Shared by the oracle's benchmarks: measuring a named peer (Eigen, or a
// plain-loop kernel) in the same run and benchmark as the oracle, so each
// oracle row carries its ratio to the peer (project standard:
// "performance targets ... reported as ratios against a named peer
// measured in the same run").
//
// Both sides are timed in CPU time of the calling thread
// (CLOCK_THREAD_CPUTIME_ID), the same clock as Google Benchmark's CPU
// column, so x_peer is comparable to that column. Not wall time: the
// machines this runs on are shared and often oversubscribed (a smoke run
// saw wall time 4-5x the CPU time), so wall time would measure the
// scheduler. The oracle evaluates single-threaded (threads only for
// replicated runs) and the peers run with one thread, so thread CPU time
// covers all the work of both.
#ifndef HLOREF_INTERPRETER_OPS_PEER_BENCHMARK_UTIL_H_
#define HLOREF_INTERPRETER_OPS_PEER_BENCHMARK_UTIL_H_

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "benchmark/benchmark.h"
#include "spec/types/literal.h"

namespace hloref {
namespace bench {

// Deterministic f32 values in [-1, 1) (a 64-bit LCG), row-major.
inline Literal RandomF32(std::vector<int64_t> dims, uint64_t seed) {
  Literal lit(Shape::Array(PrimitiveType::kF32, dims));
  for (float& x : lit.mutable_data<float>()) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<int32_t>(seed >> 32)) * 0x1p-31f;
  }
  return lit;
}

// CPU seconds consumed so far by the calling thread.
inline double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

// Runs `peer` once untimed (warm-up: caches, Eigen's blocking buffers),
// then repeatedly until it has run for as long as the oracle's loop did
// (capped at 0.5 s, at least 2 timed runs), and returns the mean seconds
// per run. Matching the oracle's duration keeps a --benchmark_min_time
// smoke run cheap while a real run gets a stable peer figure.
template <typename Peer>
double TimePeer(double oracle_loop_seconds, Peer&& peer) {
  peer();
  const double budget = std::min(oracle_loop_seconds, 0.5);
  int64_t runs = 0;
  const double start = ThreadCpuSeconds();
  double elapsed = 0;
  do {
    peer();
    ++runs;
    elapsed = ThreadCpuSeconds() - start;
  } while (runs < 2 || elapsed < budget);
  return elapsed / static_cast<double>(runs);
}

// Records on the oracle's row: the peer's name (label), the peer's mean
// seconds per run ("peer_s") and oracle_time / peer_time ("x_peer").
inline void ReportPeer(benchmark::State& state, const std::string& peer_name,
                       double oracle_loop_seconds, double peer_seconds) {
  const double oracle_seconds =
      oracle_loop_seconds / static_cast<double>(state.iterations());
  state.SetLabel(absl::StrCat("peer: ", peer_name));
  state.counters["peer_s"] = benchmark::Counter(peer_seconds);
  state.counters["x_peer"] = benchmark::Counter(oracle_seconds / peer_seconds);
}

// Checks that the peer computed the same values as the oracle up to f32
// rounding: |oracle - peer| <= tolerance elementwise. A peer that computes
// something else (wrong layout, wrong padding) would make its ratio
// meaningless, so the benchmark fails instead. Returns an empty string on
// success, else a description of the first mismatch.
inline std::string CompareWithPeer(absl::Span<const float> oracle,
                                   absl::Span<const float> peer,
                                   double tolerance) {
  if (oracle.size() != peer.size()) {
    return absl::StrCat("peer produced ", peer.size(), " elements, the oracle ",
                        oracle.size());
  }
  for (size_t i = 0; i < oracle.size(); ++i) {
    const double diff = std::fabs(static_cast<double>(oracle[i]) - peer[i]);
    if (!(diff <= tolerance)) {
      return absl::StrCat("peer disagrees with the oracle at element ", i,
                          ": oracle ", oracle[i], ", peer ", peer[i],
                          " (tolerance ", tolerance, ")");
    }
  }
  return "";
}

// The console reporter, counting the runs that failed (SkipWithError), so
// that main can exit non-zero: Google Benchmark 1.7's own BENCHMARK_MAIN
// exits 0 even when a benchmark errors, which would let a smoke test pass
// with a broken benchmark or a peer that disagrees with the oracle.
class ErrorCountingReporter : public benchmark::ConsoleReporter {
 public:
  ErrorCountingReporter()
      : benchmark::ConsoleReporter(isatty(fileno(stdout)) ? OO_ColorTabular
                                                          : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& reports) override {
    for (const Run& run : reports) {
      if (run.error_occurred) ++errors_;
    }
    benchmark::ConsoleReporter::ReportRuns(reports);
  }
  int errors() const { return errors_; }

 private:
  int errors_ = 0;
};

// main for the benchmark binaries: like BENCHMARK_MAIN, but exits 1 when a
// benchmark failed or when the filter matched nothing.
inline int BenchmarkMain(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  ErrorCountingReporter reporter;
  const size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (ran == 0) {
    std::fprintf(stderr, "error: --benchmark_filter matched no benchmark\n");
    return 1;
  }
  if (reporter.errors() > 0) {
    std::fprintf(stderr, "error: %d benchmark(s) failed\n", reporter.errors());
    return 1;
  }
  return 0;
}

}  // namespace bench
}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_PEER_BENCHMARK_UTIL_H_
