// Benchmark of the oracle's dot: f32 matrix products with exact
// accumulation (ExactSum), through the whole evaluator (parse once, run).
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
  auto data = lit.mutable_data<float>();
  for (float& x : data) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<int32_t>(seed >> 32)) * 0x1p-31f;
  }
  return lit;
}

void RunModule(benchmark::State& state, const std::string& text,
               const std::vector<Literal>& args, double flops) {
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
  state.counters["terms/s"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_DotF32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  a = f32[", n, ",", n, "] parameter(0)\n",
      "  b = f32[", n, ",", n, "] parameter(1)\n  ROOT d = f32[", n, ",", n,
      "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  std::vector<Literal> args;
  args.push_back(RandomF32({n, n}, 1));
  args.push_back(RandomF32({n, n}, 2));
  RunModule(state, text, args, static_cast<double>(n) * n * n);
}
BENCHMARK(BM_DotF32)->Arg(64)->Arg(256)->Arg(512)->Unit(
    benchmark::kMillisecond);

void BM_DotF64(benchmark::State& state) {
  const int64_t n = state.range(0);
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  a = f32[", n, ",", n, "] parameter(0)\n",
      "  b = f32[", n, ",", n, "] parameter(1)\n  ca = f64[", n, ",", n,
      "] convert(a)\n  cb = f64[", n, ",", n, "] convert(b)\n  ROOT d = f64[",
      n, ",", n,
      "] dot(ca, cb), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  std::vector<Literal> args;
  args.push_back(RandomF32({n, n}, 3));
  args.push_back(RandomF32({n, n}, 4));
  RunModule(state, text, args, static_cast<double>(n) * n * n);
}
BENCHMARK(BM_DotF64)->Arg(128)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hloref

BENCHMARK_MAIN();
