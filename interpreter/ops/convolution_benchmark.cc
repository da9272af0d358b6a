// Benchmark of the oracle's convolution: a ResNet-style 3x3 layer on a
// 56x56x64 input with 64 output features, batch 1, f32, exact
// accumulation, through the whole evaluator.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/literal.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

Literal RandomF32(std::vector<int64_t> dims, uint64_t seed) {
  Literal lit(Shape::Array(PrimitiveType::kF32, dims));
  for (float& x : lit.mutable_data<float>()) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<int32_t>(seed >> 32)) * 0x1p-31f;
  }
  return lit;
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
  for (auto _ : state) {
    auto result = evaluator.Evaluate(**module, args);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  state.counters["terms/s"] =
      benchmark::Counter(static_cast<double>(hw) * hw * c * 9 * c,
                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ConvResNet3x3)
    ->Args({14, 16})
    ->Args({56, 64})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hloref

BENCHMARK_MAIN();
