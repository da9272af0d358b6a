// Run time of the CPU backend against the oracle on the example modules and
// on a 200-instruction element-wise chain, measured in the same benchmark:
// each row times the compiled module's warm run (compiled once, outside the
// timing; one thread) and carries x_oracle, the oracle's time for the same
// module and arguments divided by the CPU backend's. Both are timed in CPU
// time of the calling thread (the oracle is single-threaded, the backend
// runs with --cpu-threads=1), so the ratio does not measure the scheduler
// of this shared machine.
#include <ctime>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_backend.h"
#include "benchmark/benchmark.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Arguments for every entry parameter: f32/f64 values in [-1, 1) from an
// LCG, other types zero (the examples' control flow does not depend on
// them).
std::vector<Literal> Arguments(const HloModule& module) {
  std::vector<Literal> args;
  uint64_t seed = 12345;
  for (int64_t i = 0; i < module.entry()->num_parameters(); ++i) {
    Literal lit(module.entry()->parameter(i)->shape());
    if (lit.element_type() == PrimitiveType::kF32) {
      for (float& x : lit.mutable_data<float>()) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        x = static_cast<float>(static_cast<int64_t>(seed >> 40) - (1 << 23)) /
            (1 << 23);
      }
    }
    args.push_back(std::move(lit));
  }
  return args;
}

// x -> 200 element-wise instructions over f32[16384] with a second
// parameter: add, multiply, subtract, maximum in turn (with_max), or add,
// multiply, subtract only.
std::string ChainModule(bool with_max, int length = 200) {
  std::string text =
      "HloModule chain\nENTRY e {\n  x0 = f32[16384] parameter(0)\n"
      "  y = f32[16384] parameter(1)\n";
  const char* ops[] = {"add", "multiply", "subtract", "maximum"};
  for (int i = 1; i <= length; ++i) {
    absl::StrAppend(&text, i == length ? "  ROOT " : "  ", "x", i,
                    " = f32[16384] ", ops[i % (with_max ? 4 : 3)], "(x", i - 1,
                    ", y)\n");
  }
  return text + "}\n";
}

// Transcendental-heavy element-wise work on f32[16384] (one fused loop):
// exp and tanh of x, their product through logistic, log1p, sine and
// erf, summed up (math_ir.h's vectorised kernels).
std::string TranscendentalModule() {
  return "HloModule transcendental\nENTRY e {\n"
         "  x = f32[16384] parameter(0)\n"
         "  y = f32[16384] parameter(1)\n"
         "  e = f32[16384] exponential(x)\n"
         "  t = f32[16384] tanh(y)\n"
         "  p = f32[16384] multiply(e, t)\n"
         "  l = f32[16384] logistic(p)\n"
         "  g = f32[16384] log-plus-one(l)\n"
         "  s = f32[16384] sine(p)\n"
         "  r = f32[16384] erf(x)\n"
         "  a = f32[16384] add(g, s)\n"
         "  ROOT o = f32[16384] add(a, r)\n"
         "}\n";
}

// Only exp and tanh, the most common pair (softmax, GELU).
std::string ExpTanhModule() {
  return "HloModule exp_tanh\nENTRY e {\n"
         "  x = f32[16384] parameter(0)\n"
         "  e = f32[16384] exponential(x)\n"
         "  ROOT t = f32[16384] tanh(e)\n"
         "}\n";
}

void RunModule(benchmark::State& state, const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok() || !VerifyModule(**module).ok()) {
    state.SkipWithError("module does not parse or verify");
    return;
  }
  std::vector<Literal> args = Arguments(**module);
  cpu::CpuBackendOptions options;
  options.threads = 1;
  auto backend = cpu::CreateCpuBackend(options);
  auto exe = (*backend)->Compile(**module, {});
  if (!exe.ok()) {
    state.SkipWithError(std::string(exe.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    auto out = (*exe)->Run(args);
    benchmark::DoNotOptimize(out);
  }
  // The oracle on the same module and arguments, same clock.
  Evaluator evaluator;
  int runs = 0;
  double start = ThreadCpuSeconds();
  do {
    auto out = evaluator.Run(**module, args);
    benchmark::DoNotOptimize(out);
    ++runs;
  } while (ThreadCpuSeconds() - start < 0.2 && runs < 1000);
  const double oracle = (ThreadCpuSeconds() - start) / runs;
  double start_cpu = ThreadCpuSeconds();
  int cpu_runs = 0;
  do {
    auto out = (*exe)->Run(args);
    benchmark::DoNotOptimize(out);
    ++cpu_runs;
  } while (ThreadCpuSeconds() - start_cpu < 0.2 && cpu_runs < 100000);
  const double compiled = (ThreadCpuSeconds() - start_cpu) / cpu_runs;
  state.counters["x_oracle"] = oracle / compiled;
}

std::string ReadExample(const std::string& name) {
  std::string path = std::string(HLOREF_EXAMPLES_DIR) + "/" + name;
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) return "";
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  fclose(f);
  return text;
}

void BM_Chain200(benchmark::State& state) {
  RunModule(state, ChainModule(/*with_max=*/true));
}
BENCHMARK(BM_Chain200);
void BM_Chain200NoMax(benchmark::State& state) {
  RunModule(state, ChainModule(/*with_max=*/false));
}
BENCHMARK(BM_Chain200NoMax);
// One instruction of the chain: the same arguments and result, so its time
// is mostly the per-run cost (argument and result copies, allocation).
void BM_Chain1(benchmark::State& state) {
  RunModule(state, ChainModule(/*with_max=*/false, /*length=*/1));
}
BENCHMARK(BM_Chain1);
void BM_Transcendental(benchmark::State& state) {
  RunModule(state, TranscendentalModule());
}
BENCHMARK(BM_Transcendental);
void BM_ExpTanh(benchmark::State& state) { RunModule(state, ExpTanhModule()); }
BENCHMARK(BM_ExpTanh);

#define HLOREF_EXAMPLE_BENCHMARK(Name, file) \
  void BM_##Name(benchmark::State& state) {  \
    RunModule(state, ReadExample(file));     \
  }                                          \
  BENCHMARK(BM_##Name);
HLOREF_EXAMPLE_BENCHMARK(WhileLoop, "while_loop.hlo")
HLOREF_EXAMPLE_BENCHMARK(MlpForward, "mlp_forward.hlo")
HLOREF_EXAMPLE_BENCHMARK(Elementwise, "elementwise.hlo")
HLOREF_EXAMPLE_BENCHMARK(SortPairs, "sort_pairs.hlo")
HLOREF_EXAMPLE_BENCHMARK(ReduceChain, "reduce_chain.hlo")
HLOREF_EXAMPLE_BENCHMARK(DiffFusion, "diff_fusion.hlo")

}  // namespace
}  // namespace hloref

BENCHMARK_MAIN();
