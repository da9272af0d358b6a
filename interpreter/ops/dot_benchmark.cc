// Benchmark of the oracle's dot: f32 matrix products with exact
// accumulation (ExactSum), through the whole evaluator (parse once, run).
// BM_DotF32 also measures a named peer in the same run: Eigen 3.4's float
// GEMM, single-threaded; its row reports x_peer = oracle time / Eigen time.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "benchmark/benchmark.h"
#include "interpreter/evaluator.h"
#include "interpreter/ops/dot.h"
#include "interpreter/ops/peer_benchmark_util.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/literal.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

using bench::RandomF32;

// Runs the module in the benchmark loop. Returns the last result and the
// loop's CPU seconds, or nullopt after SkipWithError.
std::optional<std::pair<Literal, double>> RunModule(
    benchmark::State& state, const std::string& text,
    const std::vector<Literal>& args, double flops) {
  auto module = ParseHloModule(text);
  if (!module.ok() || !VerifyModule(**module).ok()) {
    state.SkipWithError("module does not parse or verify");
    return std::nullopt;
  }
  // HLOREF_DOT_BENCH_THREADS: the evaluator's threads (default 1; with
  // more, read the real time, not terms/s, which divides by this thread's
  // CPU time).
  EvaluatorOptions options;
  if (const char* t = std::getenv("HLOREF_DOT_BENCH_THREADS")) {
    options.threads = std::max(1, std::atoi(t));
  }
  Evaluator evaluator(options);
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
  state.counters["terms/s"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  return std::make_pair(*std::move(result), seconds);
}

// `in`[m,k] x `in`[k,n] -> f32[m,n] (`in`[n,k] for the rhs when
// `rhs_transposed`).
std::string DotText(const std::string& in, int64_t m, int64_t k, int64_t n,
                    bool rhs_transposed = false) {
  const std::string rhs_dims =
      rhs_transposed ? absl::StrCat(n, ",", k) : absl::StrCat(k, ",", n);
  const std::string shapes =
      absl::StrCat("  a = ", in, "[", m, ",", k, "] parameter(0)\n  b = ", in,
                   "[", rhs_dims, "] parameter(1)\n");
  return absl::StrCat("HloModule m\nENTRY e {\n", shapes, "  ROOT d = f32[", m,
                      ",", n,
                      "] dot(a, b), lhs_contracting_dims={1}, "
                      "rhs_contracting_dims={",
                      rhs_transposed ? 1 : 0, "}\n}\n");
}

using RowMajorF32 =
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void BM_DotF32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const std::string text = DotText("f32", n, n, n);
  std::vector<Literal> args;
  args.push_back(RandomF32({n, n}, 1));
  args.push_back(RandomF32({n, n}, 2));
  auto oracle = RunModule(state, text, args, static_cast<double>(n) * n * n);
  if (!oracle) return;

  // Peer: Eigen's float GEMM on the same row-major data, one thread, into
  // a preallocated result (noalias: no temporary), so it does the same
  // work as the oracle's dot minus the evaluator and exact accumulation.
  Eigen::setNbThreads(1);
  Eigen::Map<const RowMajorF32> a(args[0].data<float>().data(), n, n);
  Eigen::Map<const RowMajorF32> b(args[1].data<float>().data(), n, n);
  RowMajorF32 c(n, n);
  const double peer_seconds = bench::TimePeer(oracle->second, [&] {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  });
  // Each entry sums n products of magnitude < 1: f32 summation error is at
  // most about n * 2^-24 * n, doubled for slack.
  const std::string mismatch = bench::CompareWithPeer(
      oracle->first.data<float>(),
      absl::Span<const float>(c.data(), static_cast<size_t>(n * n)),
      static_cast<double>(n) * n * 0x1p-23);
  if (!mismatch.empty()) {
    state.SkipWithError(mismatch.c_str());
    return;
  }
  bench::ReportPeer(state, "Eigen 3.4 GEMM f32, 1 thread", oracle->second,
                    peer_seconds);
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

// Vector-matrix and skinny dots as a decoding step has them (issue 16):
// bf16[m,k] x bf16[k,n] -> f32, m = 1, 2, 4, 8, 16, k = 2048, n = 16384.
// terms/s is comparable with the square products of the same types
// (BM_DotBf16Square) and with BM_DotF32's; the target is at least as
// many. bf16 values: the f32 random values with their low 16 bits cleared.
Literal RandomBf16(std::vector<int64_t> dims, uint64_t seed) {
  const Literal f = RandomF32(dims, seed);
  Literal lit(Shape::Array(PrimitiveType::kBF16, dims));
  absl::Span<uint8_t> out = lit.mutable_raw();
  absl::Span<const float> in = f.data<float>();
  for (size_t i = 0; i < in.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &in[i], 4);
    const uint16_t hi = static_cast<uint16_t>(bits >> 16);
    std::memcpy(out.data() + 2 * i, &hi, 2);
  }
  return lit;
}

// Second argument 0: the rhs packed as doubles (SetDotRhsCodesDisabled-
// ForTesting), the path before the vector-matrix variant, for comparison
// in the same run; 1: the default.
void BM_DotSkinnyBf16(benchmark::State& state) {
  const int64_t m = state.range(0), k = 2048, n = 16384;
  SetDotRhsCodesDisabledForTesting(state.range(1) == 0);
  const std::string text = DotText("bf16", m, k, n);
  std::vector<Literal> args;
  args.push_back(RandomBf16({m, k}, 5));
  args.push_back(RandomBf16({k, n}, 6));
  RunModule(state, text, args, static_cast<double>(m) * n * k);
  SetDotRhsCodesDisabledForTesting(false);
}
BENCHMARK(BM_DotSkinnyBf16)
    ->ArgNames({"m", "codes"})
    ->ArgsProduct({{1, 2, 4, 8, 16}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// The square product of the skinny dots' types (bf16 x bf16 -> f32), for
// comparing them like with like.
void BM_DotBf16Square(benchmark::State& state) {
  const int64_t n = state.range(0);
  const std::string text = DotText("bf16", n, n, n);
  std::vector<Literal> args;
  args.push_back(RandomBf16({n, n}, 7));
  args.push_back(RandomBf16({n, n}, 8));
  RunModule(state, text, args, static_cast<double>(n) * n * n);
}
BENCHMARK(BM_DotBf16Square)
    ->Arg(32)
    ->Arg(64)
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond);

// The same product with the rhs stored transposed ([n][k]: each output's
// terms contiguous, as the logits dot of a tied embedding).
void BM_DotSkinnyBf16Transposed(benchmark::State& state) {
  const int64_t m = state.range(0), k = 2048, n = 16384;
  const std::string text = DotText("bf16", m, k, n, /*rhs_transposed=*/true);
  std::vector<Literal> args;
  args.push_back(RandomBf16({m, k}, 5));
  args.push_back(RandomBf16({n, k}, 6));
  RunModule(state, text, args, static_cast<double>(m) * n * k);
}
BENCHMARK(BM_DotSkinnyBf16Transposed)
    ->ArgNames({"m"})
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Unit(benchmark::kMillisecond);

// The memory roofline of the vector-matrix dots above, in the same run:
// the rhs literal (bf16 2048 x 16384, 64 MiB, the same bytes) read once
// per iteration as 64-bit words into four independent sums. terms/s counts
// its bf16 elements, so BM_DotSkinnyBf16/m:1 over this is the fraction of
// the single-thread memory stream the dot reaches.
void BM_StreamBf16Rhs(benchmark::State& state) {
  const int64_t k = 2048, n = 16384;
  const Literal rhs = RandomBf16({k, n}, 6);
  const absl::Span<const uint8_t> bytes = rhs.raw();
  const size_t words = bytes.size() / 8;
  std::vector<uint64_t> scratch(1);
  for (auto _ : state) {
    uint64_t s[4] = {0, 0, 0, 0};
    const uint8_t* p = bytes.data();
    for (size_t i = 0; i + 4 <= words; i += 4) {
      for (int q = 0; q < 4; ++q) {
        uint64_t v;
        std::memcpy(&v, p + 8 * (i + q), 8);
        s[q] += v;
      }
    }
    scratch[0] = s[0] + s[1] + s[2] + s[3];
    benchmark::DoNotOptimize(scratch);
  }
  state.counters["terms/s"] =
      benchmark::Counter(static_cast<double>(k * n),
                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StreamBf16Rhs)->Unit(benchmark::kMillisecond);

// The vector-matrix product (m = 1) and a skinny one (m = 8) with values
// over a wide range of scales (|v| from 2^-40 to 1, both operands), so
// that most sums round and the one-chain passes fall back to the two
// directed chains: the cost of the fallback. Second argument: 1 the rhs
// transposed.
void BM_DotVectorMatrixWideRange(benchmark::State& state) {
  const int64_t m = state.range(0), k = 2048, n = 16384;
  const bool transposed = state.range(1) == 1;
  auto wide = [](std::vector<int64_t> dims, uint64_t seed) {
    Literal lit = RandomBf16(dims, seed);
    absl::Span<uint8_t> raw = lit.mutable_raw();
    uint64_t z = seed * 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i + 1 < raw.size(); i += 2) {
      z = z * 6364136223846793005ull + 1442695040888963407ull;
      // Sign and 7 fraction bits at random, exponent 87..127 (2^-40..1).
      const uint16_t code = static_cast<uint16_t>(((z >> 33) & 0x807f) |
                                                  ((87 + (z >> 40) % 41) << 7));
      std::memcpy(raw.data() + i, &code, 2);
    }
    return lit;
  };
  const std::string text = DotText("bf16", m, k, n, transposed);
  std::vector<Literal> args;
  args.push_back(wide({m, k}, 5));
  args.push_back(transposed ? wide({n, k}, 6) : wide({k, n}, 6));
  RunModule(state, text, args, static_cast<double>(m) * n * k);
}
BENCHMARK(BM_DotVectorMatrixWideRange)
    ->ArgNames({"m", "transposed"})
    ->ArgsProduct({{1, 8}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hloref

int main(int argc, char** argv) {
  return hloref::bench::BenchmarkMain(argc, argv);
}
