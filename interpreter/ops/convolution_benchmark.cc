// Benchmark of the oracle's convolution: a ResNet-style 3x3 layer on a
// 56x56x64 input with 64 output features, batch 1, f32, exact
// accumulation, through the whole evaluator. The same run measures a named
// peer, a naive direct convolution (plain loops, below), and the row
// reports x_peer = oracle time / peer time.
#include <cstdint>
#include <string>
#include <vector>

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

// The peer: the textbook definition of a stride-1, pad-1 3x3 convolution,
// batch 1, input [hw, hw, c] (NHWC), kernel [3, 3, c, c] (HWIO), output
// [hw, hw, c], one f32 accumulator per output element. No blocking, no
// im2col, no intrinsics; whatever the compiler vectorizes at the build's
// optimization level.
void NaiveDirectConv3x3(absl::Span<const float> in, absl::Span<const float> k,
                        int64_t hw, int64_t c, absl::Span<float> out) {
  for (int64_t y = 0; y < hw; ++y) {
    for (int64_t x = 0; x < hw; ++x) {
      for (int64_t co = 0; co < c; ++co) {
        float acc = 0;
        for (int64_t ky = 0; ky < 3; ++ky) {
          const int64_t iy = y + ky - 1;
          if (iy < 0 || iy >= hw) continue;
          for (int64_t kx = 0; kx < 3; ++kx) {
            const int64_t ix = x + kx - 1;
            if (ix < 0 || ix >= hw) continue;
            for (int64_t ci = 0; ci < c; ++ci) {
              acc += in[(iy * hw + ix) * c + ci] *
                     k[((ky * 3 + kx) * c + ci) * c + co];
            }
          }
        }
        out[(y * hw + x) * c + co] = acc;
      }
    }
  }
}

void BM_ConvResNet3x3(benchmark::State& state) {
  const int64_t hw = state.range(0), c = state.range(1);
  const std::string text =
      absl::StrCat("HloModule m\nENTRY e {\n  a = f32[1,", hw, ",", hw, ",", c,
                   "] parameter(0)\n  k = f32[3,3,", c, ",", c,
                   "] parameter(1)\n", "  ROOT r = f32[1,", hw, ",", hw, ",", c,
                   "] convolution(a, k), window={size=3x3 pad=1_1x1_1}, "
                   "dim_labels=b01f_01io->b01f\n}\n");
  auto module = ParseHloModule(text);
  if (!module.ok() || !VerifyModule(**module).ok()) {
    state.SkipWithError("module does not parse or verify");
    return;
  }
  std::vector<Literal> args;
  args.push_back(RandomF32({1, hw, hw, c}, 1));
  args.push_back(RandomF32({3, 3, c, c}, 2));
  Evaluator evaluator;
  absl::StatusOr<Literal> result;
  const double start = bench::ThreadCpuSeconds();
  for (auto _ : state) {
    result = evaluator.Evaluate(**module, args);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  const double oracle_seconds = bench::ThreadCpuSeconds() - start;
  state.counters["terms/s"] =
      benchmark::Counter(static_cast<double>(hw) * hw * c * 9 * c,
                         benchmark::Counter::kIsIterationInvariantRate);

  std::vector<float> peer_out(static_cast<size_t>(hw * hw * c));
  const double peer_seconds = bench::TimePeer(oracle_seconds, [&] {
    NaiveDirectConv3x3(args[0].data<float>(), args[1].data<float>(), hw, c,
                       absl::MakeSpan(peer_out));
    benchmark::DoNotOptimize(peer_out.data());
    benchmark::ClobberMemory();
  });
  // Each output sums at most 9 * c products of magnitude < 1: f32
  // summation error is at most about (9c)^2 * 2^-24, doubled for slack.
  const double terms = 9.0 * static_cast<double>(c);
  const std::string mismatch = bench::CompareWithPeer(
      result->data<float>(), peer_out, terms * terms * 0x1p-23);
  if (!mismatch.empty()) {
    state.SkipWithError(mismatch.c_str());
    return;
  }
  bench::ReportPeer(state, "naive direct convolution (plain loops, f32)",
                    oracle_seconds, peer_seconds);
}
BENCHMARK(BM_ConvResNet3x3)
    ->Args({14, 16})
    ->Args({56, 64})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hloref

int main(int argc, char** argv) {
  return hloref::bench::BenchmarkMain(argc, argv);
}
