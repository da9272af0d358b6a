// Benchmark of the oracle's reductions: an exact f32 add-reduce (detected
// reducer), the same through a generic reducer (called per element), and
// a 3x3 stride-2 max reduce-window.
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

void Run(benchmark::State& state, const std::string& text,
         std::vector<Literal> args, double elements) {
  auto module = ParseHloModule(text);
  if (!module.ok() || !VerifyModule(**module).ok()) {
    state.SkipWithError("module does not parse or verify");
    return;
  }
  Evaluator evaluator;
  for (auto _ : state) {
    auto result = evaluator.Evaluate(**module, args);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  state.counters["elements/s"] = benchmark::Counter(
      elements, benchmark::Counter::kIsIterationInvariantRate);
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

void BM_ReduceAddRows(benchmark::State& state) {
  const int64_t n = state.range(0);
  Run(state,
      absl::StrCat("HloModule m\n", kAdd, "ENTRY e {\n  a = f32[", n, ",", n,
                   "] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[",
                   n, "] reduce(a, z), dimensions={1}, to_apply=add\n}\n"),
      {RandomF32({n, n}, 1)}, static_cast<double>(n) * n);
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

BENCHMARK_MAIN();
