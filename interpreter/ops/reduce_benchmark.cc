// Benchmark of the oracle's reductions: an exact f32 add-reduce (detected
// reducer), the same through a generic reducer (called per element), and
// a 3x3 stride-2 max reduce-window. BM_ReduceAddRows also measures a
// named peer in the same run, Eigen 3.4's row-wise sum, and reports
// x_peer = oracle time / Eigen time.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "benchmark/benchmark.h"
#include "interpreter/evaluator.h"
#include "interpreter/ops/peer_benchmark_util.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/literal.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

using bench::RandomF32;

// Runs the module in the benchmark loop. Returns the last result and the
// loop's CPU seconds, or nullopt after SkipWithError.
std::optional<std::pair<Literal, double>> Run(benchmark::State& state,
                                              const std::string& text,
                                              const std::vector<Literal>& args,
                                              double elements) {
  auto module = ParseHloModule(text);
  if (!module.ok() || !VerifyModule(**module).ok()) {
    state.SkipWithError("module does not parse or verify");
    return std::nullopt;
  }
  Evaluator evaluator;
  absl::StatusOr<Literal> result;
  const double start = bench::ThreadCpuSeconds();
  for (auto _ : state) {
    result = evaluator.Evaluate(**module, args);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return std::nullopt;
    }
    benchmark::DoNotOptimize(result);
  }
  const double seconds = bench::ThreadCpuSeconds() - start;
  state.counters["elements/s"] = benchmark::Counter(
      elements, benchmark::Counter::kIsIterationInvariantRate);
  return std::make_pair(*std::move(result), seconds);
}

const char kAdd[] =
    "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
    "  ROOT r = f32[] add(x, y)\n}\n";
const char kAddViaNegate[] =
    "addn {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
    "  ny = f32[] negate(y)\n  ROOT r = f32[] subtract(x, ny)\n}\n";
const char kMax[] =
    "mx {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
    "  ROOT r = f32[] maximum(x, y)\n}\n";

using RowMajorF32 =
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void BM_ReduceAddRows(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<Literal> args;
  args.push_back(RandomF32({n, n}, 1));
  auto oracle = Run(
      state,
      absl::StrCat("HloModule m\n", kAdd, "ENTRY e {\n  a = f32[", n, ",", n,
                   "] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[",
                   n, "] reduce(a, z), dimensions={1}, to_apply=add\n}\n"),
      args, static_cast<double>(n) * n);
  if (!oracle) return;

  // Peer: Eigen's row-wise sum over the same row-major data into a
  // preallocated vector: the same reduction (dimension 1 away) in f32.
  Eigen::setNbThreads(1);
  Eigen::Map<const RowMajorF32> a(args[0].data<float>().data(), n, n);
  Eigen::VectorXf sums(n);
  const double peer_seconds = bench::TimePeer(oracle->second, [&] {
    sums.noalias() = a.rowwise().sum();
    benchmark::DoNotOptimize(sums.data());
    benchmark::ClobberMemory();
  });
  // Each sum has n terms of magnitude < 1: f32 summation error is at most
  // about n * 2^-24 * n, doubled for slack.
  const std::string mismatch = bench::CompareWithPeer(
      oracle->first.data<float>(),
      absl::Span<const float>(sums.data(), static_cast<size_t>(n)),
      static_cast<double>(n) * n * 0x1p-23);
  if (!mismatch.empty()) {
    state.SkipWithError(mismatch.c_str());
    return;
  }
  bench::ReportPeer(state, "Eigen 3.4 rowwise().sum() f32, 1 thread",
                    oracle->second, peer_seconds);
}
BENCHMARK(BM_ReduceAddRows)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_ReduceGenericReducer(benchmark::State& state) {
  const int64_t n = state.range(0);
  Run(state,
      absl::StrCat("HloModule m\n", kAddViaNegate, "ENTRY e {\n  a = f32[", n,
                   ",", n, "] parameter(0)\n  z = f32[] constant(0)\n",
                   "  ROOT r = f32[", n,
                   "] reduce(a, z), dimensions={1}, to_apply=addn\n}\n"),
      {RandomF32({n, n}, 2)}, static_cast<double>(n) * n);
}
BENCHMARK(BM_ReduceGenericReducer)->Arg(128)->Unit(benchmark::kMillisecond);

void BM_ReduceWindowMaxPool(benchmark::State& state) {
  const int64_t hw = state.range(0);
  const int64_t out = (hw + 2 - 3) / 2 + 1;
  Run(state,
      absl::StrCat("HloModule m\n", kMax, "ENTRY e {\n  a = f32[1,", hw, ",",
                   hw, ",64] parameter(0)\n  z = f32[] constant(-inf)\n",
                   "  ROOT r = f32[1,", out, ",", out,
                   ",64] reduce-window(a, z), window={size=1x3x3x1 "
                   "stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=mx\n}\n"),
      {RandomF32({1, hw, hw, 64}, 3)}, static_cast<double>(out) * out * 64 * 9);
}
BENCHMARK(BM_ReduceWindowMaxPool)->Arg(112)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hloref

int main(int argc, char** argv) {
  return hloref::bench::BenchmarkMain(argc, argv);
}
