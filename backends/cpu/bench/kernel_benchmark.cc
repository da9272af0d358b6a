// The CPU backend's kernels side by side with their peers, in one process
// and one run (issue 15): GEMM (f32, f64, bf16, s8; square, skinny,
// batched), ResNet-50 convolutions and a depthwise one, row / column
// reductions, argmax and layer norm, each compiled from an HLO module
// through the backend's public API (cpu_backend.h) and timed on its warm
// run, next to oneDNN, OpenBLAS and Eigen on the same shape and the
// machine's limits (f32 FMA peak, memory bandwidth) measured in the same
// run. Every workload runs with 1 and 2 threads (hloref: CpuBackendOptions
// threads; oneDNN: OpenMP threads; OpenBLAS: openblas_set_num_threads;
// Eigen: a ThreadPoolDevice).
//
// Benchmarks are named WORKLOAD/tTHREADS/IMPL. Counters: GFLOP/s or GB/s
// (from wall time), compile_ms for hloref. After the run a summary table
// gives, per workload and thread count, every implementation's median rate
// and hloref/peer (above 1: hloref is faster), plus hloref as a share of the
// FMA peak (GEMM, convolution) or of the sum bandwidth over a working set
// of the reductions' input size (reductions).
//
// Flags (before Google Benchmark's own):
//   --quick            tiny shapes (the ctest smoke run; no timing claims)
//   --big              also the largest shapes (GEMM 2048, 16x4096x11008),
//                      which the current element-wise dot takes minutes on
//   --threads=1,2      thread counts to measure (default 1,2)
//   --summary_md=PATH  also write the summary as a Markdown table
//   --summary_cpu_md=PATH  and the 1-thread rows rated by process CPU time
//   --no_hloref        peers and limits only
//   --dump_hlo=DIR     write each registered hloref workload's module as
//                      DIR/WORKLOAD.hlo and DIR/manifest.tsv (name, unit,
//                      work per run), for timing the same modules on
//                      XLA:CPU (tools/bench/reduce_vs_xla.py)
//   --module=PATH.hlo  (repeatable) time the CPU backend on this module
//                      (compile once, warm runs; f32 arguments uniform in
//                      [-1, 1), others from the same stream) as
//                      module_NAME/tT/hloref, and only the modules: no
//                      kernels, peers or limits (tools/bench/modules_vs_xla.py
//                      uses it)
//
// hloref's figures include what Executable::Run costs a user: arguments are
// copied into the compiled module's buffers and results out of them on
// every call.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "backends/cpu/bench/peers.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/runtime/conv.h"
#include "backends/cpu/runtime/gemm.h"
#include "backends/cpu/runtime/thread_pool.h"
#include "benchmark/benchmark.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref::cpu::bench {
namespace {

struct Flags {
  bool quick = false;
  bool big = false;
  bool hloref = true;
  std::vector<int> threads = {1, 2};
  std::string summary_md;
  std::string summary_cpu_md;
  std::vector<std::string> modules;
  std::string dump_hlo;
};
Flags g_flags;

// ------------------------------------------------------------- workloads
enum class Unit { kFlops, kBytes, kNone };

struct WorkloadInfo {
  std::string name;  // e.g. gemm_f32_1024x1024x1024
  std::string kind;  // gemm, conv, reduce, limit
  Unit unit = Unit::kFlops;
  double work = 0;  // flops or bytes per run
  // Skinny GEMMs: the bytes of B, which bound them by memory bandwidth
  // (the summary's % limit is then B's bytes per second / limit_bw_sum).
  double stream_bytes = 0;
};
std::vector<WorkloadInfo> g_workloads;  // in registration order

using Factory =
    std::function<std::unique_ptr<Workload>(int threads, std::string* error)>;

// The CPU backend on one HLO module: parsed, verified and compiled in the
// constructor (compile time recorded), arguments made once.
class HlorefWorkload : public Workload {
 public:
  static std::unique_ptr<HlorefWorkload> Create(const std::string& text,
                                                int threads,
                                                std::string* error) {
    auto w = std::unique_ptr<HlorefWorkload>(new HlorefWorkload());
    auto module = ParseHloModule(text);
    if (!module.ok()) {
      *error = absl::StrCat("parse: ", module.status().message());
      return nullptr;
    }
    if (absl::Status s = VerifyModule(**module); !s.ok()) {
      *error = absl::StrCat("verify: ", s.message());
      return nullptr;
    }
    CpuBackendOptions options;
    options.threads = threads;
    options.compile_cache = false;
    auto backend = CreateCpuBackend(options);
    if (!backend.ok()) {
      *error = std::string(backend.status().message());
      return nullptr;
    }
    const auto start = std::chrono::steady_clock::now();
    auto exe = (*backend)->Compile(**module, {});
    w->compile_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!exe.ok()) {
      *error = absl::StrCat("compile: ", exe.status().message());
      return nullptr;
    }
    w->backend_ = std::move(*backend);
    w->exe_ = std::move(*exe);
    uint64_t seed = 12345;
    for (int64_t i = 0; i < (*module)->entry()->num_parameters(); ++i) {
      Literal lit((*module)->entry()->parameter(i)->shape());
      const int64_t n = lit.element_count();
      if (lit.element_type() == PrimitiveType::kF32) {
        float* p = lit.mutable_data<float>().data();
        for (int64_t j = 0; j < n; ++j) {
          seed = seed * 6364136223846793005ull + 1442695040888963407ull;
          p[j] =
              static_cast<float>(static_cast<int64_t>(seed >> 40) - (1 << 23)) /
              (1 << 23);
        }
      } else {
        for (int64_t j = 0; j < n; ++j) {
          seed = seed * 6364136223846793005ull + 1442695040888963407ull;
          const double v = static_cast<double>(
                               static_cast<int64_t>(seed >> 40) - (1 << 23)) /
                           (1 << 23);
          const PrimitiveType et = lit.element_type();
          if (et == PrimitiveType::kS8) {
            lit.SetFromInt64(j, static_cast<int64_t>(v * 100));
          } else if (et == PrimitiveType::kPred) {
            lit.SetFromInt64(j, (seed >> 40) & 1);
          } else if (IsInteger(et)) {
            // Indices and positions: in [0, 64), as modules_vs_xla.py
            // gives XLA (a gather's or dynamic slice's start in range).
            lit.SetFromInt64(j, static_cast<int64_t>((seed >> 40) % 64));
          } else {
            lit.SetFromDouble(j, v);
          }
        }
      }
      w->args_.push_back(std::move(lit));
    }
    // One run now: the first-run costs stay out of the timing, and an error
    // is reported here instead of inside the timed loop.
    auto out = w->exe_->Run(w->args_);
    if (!out.ok()) {
      *error = absl::StrCat("run: ", out.status().message());
      return nullptr;
    }
    return w;
  }
  void Run() override {
    auto out = exe_->Run(args_);
    benchmark::DoNotOptimize(out);
  }
  double compile_seconds() const { return compile_seconds_; }

 private:
  HlorefWorkload() = default;
  std::unique_ptr<backends::Backend> backend_;
  std::unique_ptr<backends::Executable> exe_;
  std::vector<Literal> args_;
  double compile_seconds_ = 0;
};

// 64-byte aligned storage for the runtime-only workloads, as the compiled
// module's buffers are: std::vector's 16-byte alignment splits vectors
// across cache lines differently in the input and the output.
template <typename T>
struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <typename U>
  Aligned64(const Aligned64<U>&) {}
  T* allocate(size_t n) {
    void* p = ::operator new (n * sizeof(T), std::align_val_t{64});
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { ::operator delete (p, std::align_val_t{64}); }
  bool operator==(const Aligned64&) const { return true; }
};

// The dot runtime alone (backends/cpu/runtime/gemm.h RunDot) on buffers
// made once, as the peers are timed: no Executable::Run argument copies.
// The summary prints it as the "[kernel]" row under the module's row.
class GemmKernelWorkload : public Workload {
 public:
  // amx: whether the dot may run on AMX (where the host has it: bf16 on
  // tdpbf16ps, 8-bit integers on the int8 tile products) or stays on
  // vdpbf16ps / VNNI.
  GemmKernelWorkload(const GemmShape& s, int threads, bool fast = false,
                     bool amx = true)
      : fast_(fast), amx_(amx) {
    const PrimitiveType in = s.type == DType::kF32    ? PrimitiveType::kF32
                             : s.type == DType::kF64  ? PrimitiveType::kF64
                             : s.type == DType::kBF16 ? PrimitiveType::kBF16
                                                      : PrimitiveType::kS8;
    dims_.lhs_type = dims_.rhs_type = in;
    dims_.out_type = s.type == DType::kS8    ? PrimitiveType::kS32
                     : s.type == DType::kF64 ? PrimitiveType::kF64
                                             : PrimitiveType::kF32;
    if (s.batch > 1) {
      dims_.batch.push_back({s.batch, s.m * s.k, s.k * s.n, s.m * s.n});
    }
    dims_.m.push_back({s.m, s.k, 0, s.n});
    dims_.n.push_back({s.n, 0, 1, 1});
    dims_.k.push_back({s.k, 1, s.n, 0});
    const int64_t eb = StorageBytes(in);
    const int64_t ob = StorageBytes(dims_.out_type);
    lhs_.resize(static_cast<size_t>(s.batch * s.m * s.k * eb));
    rhs_.resize(static_cast<size_t>(s.batch * s.k * s.n * eb));
    out_.resize(static_cast<size_t>(s.batch * s.m * s.n * ob));
    uint64_t seed = 777;
    for (auto* buf : {&lhs_, &rhs_}) {
      const int64_t n = static_cast<int64_t>(buf->size()) / eb;
      for (int64_t j = 0; j < n; ++j) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const float v =
            static_cast<float>(static_cast<int64_t>(seed >> 40) - (1 << 23)) /
            (1 << 23);
        uint8_t* p = buf->data() + j * eb;
        if (in == PrimitiveType::kF32) {
          std::memcpy(p, &v, 4);
        } else if (in == PrimitiveType::kF64) {
          const double d = v;
          std::memcpy(p, &d, 8);
        } else if (in == PrimitiveType::kBF16) {
          uint32_t bits;
          std::memcpy(&bits, &v, 4);
          const uint16_t h = static_cast<uint16_t>(bits >> 16);
          std::memcpy(p, &h, 2);
        } else {
          *p = static_cast<uint8_t>(static_cast<int8_t>(v * 100));
        }
      }
    }
    if (threads > 1) pool_ = std::make_unique<ThreadPool>(threads);
  }
  void Run() override {
    if (!amx_) SetAmxAllowed(false);
    absl::Status st = RunDot(dims_, lhs_.data(), rhs_.data(), out_.data(),
                             pool_.get(), gemm::HostGemmKernels(), fast_);
    if (!amx_) SetAmxAllowed(true);
    if (!st.ok()) std::abort();
    benchmark::DoNotOptimize(out_.data());
  }

 private:
  DotDims dims_;
  std::vector<uint8_t, Aligned64<uint8_t>> lhs_, rhs_, out_;
  std::unique_ptr<ThreadPool> pool_;
  bool fast_;
  bool amx_;
};

// The convolution runtime alone (RunConvolution on buffers made once, NHWC
// input and output, HWIO filter): what the compiled module's call costs
// without Executable::Run. The summary prints it as the "[kernel]" row.
class ConvKernelWorkload : public Workload {
 public:
  ConvKernelWorkload(const ConvShape& s, int threads) {
    const int64_t cg = s.c / s.groups;
    dims_.feature_group_count = s.groups;
    dims_.input_batch = dims_.output_batch = 1;
    dims_.input_batch_stride = s.h * s.w * s.c;
    dims_.input_feature = s.c;
    dims_.input_feature_stride = 1;
    dims_.kernel_input_feature = cg;
    dims_.kernel_input_stride = s.out_c;
    dims_.kernel_output_feature = s.out_c;
    dims_.kernel_output_stride = 1;
    dims_.output_batch_stride = s.out_h() * s.out_w() * s.out_c;
    dims_.output_feature = s.out_c;
    dims_.output_feature_stride = 1;
    dims_.spatial = {{s.h, s.w * s.c, s.kh, s.kw * cg * s.out_c, s.out_h(),
                      s.out_w() * s.out_c, s.stride, s.pad, 1, 1, false},
                     {s.w, s.c, s.kw, cg * s.out_c, s.out_w(), s.out_c,
                      s.stride, s.pad, 1, 1, false}};
    input_.resize(static_cast<size_t>(s.h * s.w * s.c));
    kernel_.resize(static_cast<size_t>(s.kh * s.kw * cg * s.out_c));
    output_.resize(static_cast<size_t>(s.out_h() * s.out_w() * s.out_c));
    uint64_t seed = 99;
    for (auto* buf : {&input_, &kernel_}) {
      for (float& v : *buf) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        v = static_cast<float>(static_cast<int64_t>(seed >> 40) - (1 << 23)) /
            (1 << 23);
      }
    }
    if (threads > 1) pool_ = std::make_unique<ThreadPool>(threads);
  }
  void Run() override {
    absl::Status st =
        RunConvolution(dims_, input_.data(), kernel_.data(), output_.data(),
                       pool_.get(), conv::HostConvKernels());
    if (!st.ok()) std::abort();
    benchmark::DoNotOptimize(output_.data());
  }

 private:
  ConvDims dims_;
  std::vector<float, Aligned64<float>> input_, kernel_, output_;
  std::unique_ptr<ThreadPool> pool_;
};

// One live workload at a time: benchmarks run in registration order and a
// workload's repetitions run back to back, so the previous one's memory is
// released before the next is built.
struct Live {
  std::string name;
  std::unique_ptr<Workload> work;
  std::string error;
  double compile_seconds = 0;
};
Live g_live;

void RunCase(benchmark::State& state, const std::string& name,
             const Factory& factory, int threads, const WorkloadInfo& info) {
  if (g_live.name != name) {
    g_live = Live();
    // Idle worker threads of the previous implementation (OpenBLAS's spin
    // for up to ~0.1 s after a call, OpenMP's and Eigen's briefly) would
    // share the cores with this one's first iterations: let them park.
    if (!g_flags.quick) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    g_live.name = name;
    g_live.work = factory(threads, &g_live.error);
    if (g_live.work != nullptr) {
      if (auto* h = dynamic_cast<HlorefWorkload*>(g_live.work.get())) {
        g_live.compile_seconds = h->compile_seconds();
      } else {
        g_live.work->Run();  // warm-up (hloref's ran in Create)
      }
    }
  }
  if (g_live.work == nullptr) {
    state.SkipWithError(g_live.error.c_str());
    return;
  }
  for (auto _ : state) g_live.work->Run();
  if (info.unit != Unit::kNone) {
    state.counters[info.unit == Unit::kFlops ? "GFLOP/s" : "GB/s"] =
        benchmark::Counter(info.work * 1e-9,
                           benchmark::Counter::kIsIterationInvariantRate);
  }
  if (g_live.compile_seconds > 0) {
    state.counters["compile_ms"] = g_live.compile_seconds * 1e3;
  }
}

// Registers WORKLOAD/tT/IMPL for every thread count; `peer` returns null
// (no row) where the peer does not take the shape.
void Add(const WorkloadInfo& info, const std::string& impl,
         const Factory& factory, double min_time = 0) {
  for (int t : g_flags.threads) {
    const std::string name = absl::StrCat(info.name, "/t", t, "/", impl);
    auto* b = benchmark::RegisterBenchmark(
        name.c_str(), [name, factory, t, info](benchmark::State& state) {
          RunCase(state, name, factory, t, info);
        });
    b->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
    if (min_time > 0) b->MinTime(min_time);
  }
}

void AddInfo(const WorkloadInfo& info) {
  for (const WorkloadInfo& w : g_workloads) {
    if (w.name == info.name) return;
  }
  g_workloads.push_back(info);
}

Factory Hloref(std::string text) {
  return [text](int threads, std::string* error) -> std::unique_ptr<Workload> {
    return HlorefWorkload::Create(text, threads, error);
  };
}

// The HLO text of every hloref workload by name (--dump_hlo writes them).
std::map<std::string, std::string> g_hlo_texts;

// Registers the CPU backend on `text` as the workload's "hloref" row.
void AddHloref(const WorkloadInfo& info, const std::string& text,
               double min_time = 0) {
  g_hlo_texts[info.name] = text;
  Add(info, "hloref", Hloref(text), min_time);
}

template <typename F>
Factory Peer(F make, std::string what) {
  return [make, what](int threads,
                      std::string* error) -> std::unique_ptr<Workload> {
    try {
      auto w = make(threads);
      if (w == nullptr) *error = what + " does not take this shape";
      return w;
    } catch (const std::exception& e) {
      *error = what + ": " + e.what();
      return nullptr;
    }
  };
}

// ------------------------------------------------------------ HLO texts
const char* HloType(DType t) {
  switch (t) {
    case DType::kF32:
      return "f32";
    case DType::kF64:
      return "f64";
    case DType::kBF16:
      return "bf16";
    case DType::kS8:
      return "s8";
  }
  return "?";
}

std::string GemmHlo(const GemmShape& s) {
  const char* in = HloType(s.type);
  const char* out = s.type == DType::kS8    ? "s32"
                    : s.type == DType::kF64 ? "f64"
                                            : "f32";
  if (s.batch > 1) {
    return absl::StrFormat(
        "HloModule gemm\nENTRY e {\n"
        "  a = %s[%d,%d,%d] parameter(0)\n  b = %s[%d,%d,%d] parameter(1)\n"
        "  ROOT d = %s[%d,%d,%d] dot(a, b), lhs_batch_dims={0}, "
        "rhs_batch_dims={0}, lhs_contracting_dims={2}, "
        "rhs_contracting_dims={1}\n}\n",
        in, s.batch, s.m, s.k, in, s.batch, s.k, s.n, out, s.batch, s.m, s.n);
  }
  return absl::StrFormat(
      "HloModule gemm\nENTRY e {\n"
      "  a = %s[%d,%d] parameter(0)\n  b = %s[%d,%d] parameter(1)\n"
      "  ROOT d = %s[%d,%d] dot(a, b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n}\n",
      in, s.m, s.k, in, s.k, s.n, out, s.m, s.n);
}

std::string ConvHlo(const ConvShape& s) {
  return absl::StrFormat(
      "HloModule conv\nENTRY e {\n"
      "  x = f32[1,%d,%d,%d] parameter(0)\n"
      "  w = f32[%d,%d,%d,%d] parameter(1)\n"
      "  ROOT y = f32[1,%d,%d,%d] convolution(x, w), window={size=%dx%d "
      "stride=%dx%d pad=%d_%dx%d_%d}, dim_labels=b01f_01io->b01f, "
      "feature_group_count=%d\n}\n",
      s.h, s.w, s.c, s.kh, s.kw, s.c / s.groups, s.out_c, s.out_h(), s.out_w(),
      s.out_c, s.kh, s.kw, s.stride, s.stride, s.pad, s.pad, s.pad, s.pad,
      s.groups);
}

std::string ReduceHlo(const ReduceShape& s) {
  const bool row =
      s.kind == ReduceKind::kRowSum || s.kind == ReduceKind::kRowMax;
  const bool sum =
      s.kind == ReduceKind::kRowSum || s.kind == ReduceKind::kColSum;
  const char* in = HloType(s.type);
  // Sums accumulate in f32 (bf16 input converted first, as JAX emits);
  // max is exact in the input type.
  const char* acc = sum ? "f32" : in;
  std::string text = absl::StrFormat(
      "HloModule reduce\nred {\n  a = %s[] parameter(0)\n"
      "  b = %s[] parameter(1)\n  ROOT r = %s[] %s(a, b)\n}\n"
      "ENTRY e {\n  x = %s[%d,%d] parameter(0)\n",
      acc, acc, acc, sum ? "add" : "maximum", in, s.rows, s.cols);
  std::string operand = "x";
  if (sum && s.type != DType::kF32) {
    absl::StrAppendFormat(&text, "  xf = f32[%d,%d] convert(x)\n", s.rows,
                          s.cols);
    operand = "xf";
  }
  absl::StrAppendFormat(&text,
                        "  z = %s[] constant(%s)\n"
                        "  ROOT r = %s[%d] reduce(%s, z), dimensions={%d}, "
                        "to_apply=red\n}\n",
                        acc, sum ? "0" : "-inf", acc, row ? s.rows : s.cols,
                        operand, row ? 1 : 0);
  return text;
}

std::string ArgmaxHlo(int64_t n) {
  return absl::StrFormat(
      "HloModule argmax\ncmp {\n"
      "  av = f32[] parameter(0)\n  ai = s32[] parameter(1)\n"
      "  bv = f32[] parameter(2)\n  bi = s32[] parameter(3)\n"
      "  gt = pred[] compare(av, bv), direction=GT\n"
      "  eq = pred[] compare(av, bv), direction=EQ\n"
      "  lt = pred[] compare(ai, bi), direction=LT\n"
      "  tie = pred[] and(eq, lt)\n  pick = pred[] or(gt, tie)\n"
      "  v = f32[] select(pick, av, bv)\n  i = s32[] select(pick, ai, bi)\n"
      "  ROOT t = (f32[], s32[]) tuple(v, i)\n}\n"
      "ENTRY e {\n  x = f32[%d] parameter(0)\n"
      "  idx = s32[%d] iota(), iota_dimension=0\n"
      "  ninf = f32[] constant(-inf)\n  zero = s32[] constant(0)\n"
      "  ROOT r = (f32[], s32[]) reduce(x, idx, ninf, zero), "
      "dimensions={0}, to_apply=cmp\n}\n",
      n, n);
}

std::string LayerNormHlo(int64_t r, int64_t c) {
  return absl::StrFormat(
      "HloModule layer_norm\nadd {\n  a = f32[] parameter(0)\n"
      "  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
      "ENTRY e {\n  x = f32[%d,%d] parameter(0)\n  g = f32[%d] parameter(1)\n"
      "  b = f32[%d] parameter(2)\n  z = f32[] constant(0)\n"
      "  s = f32[%d] reduce(x, z), dimensions={1}, to_apply=add\n"
      "  n = f32[] constant(%d)\n  nb = f32[%d] broadcast(n), dimensions={}\n"
      "  mean = f32[%d] divide(s, nb)\n"
      "  meanb = f32[%d,%d] broadcast(mean), dimensions={0}\n"
      "  xc = f32[%d,%d] subtract(x, meanb)\n"
      "  sq = f32[%d,%d] multiply(xc, xc)\n"
      "  ss = f32[%d] reduce(sq, z), dimensions={1}, to_apply=add\n"
      "  var = f32[%d] divide(ss, nb)\n  eps = f32[] constant(1e-05)\n"
      "  epsb = f32[%d] broadcast(eps), dimensions={}\n"
      "  ve = f32[%d] add(var, epsb)\n  rs = f32[%d] rsqrt(ve)\n"
      "  rsb = f32[%d,%d] broadcast(rs), dimensions={0}\n"
      "  xn = f32[%d,%d] multiply(xc, rsb)\n"
      "  gb = f32[%d,%d] broadcast(g), dimensions={1}\n"
      "  bb = f32[%d,%d] broadcast(b), dimensions={1}\n"
      "  y = f32[%d,%d] multiply(xn, gb)\n"
      "  ROOT o = f32[%d,%d] add(y, bb)\n}\n",
      r, c, c, c, r, c, r, r, r, c, r, c, r, c, r, r, r, r, r, r, c, r, c, r, c,
      r, c, r, c, r, c);
}

std::string SoftmaxHlo(int64_t r, int64_t c) {
  // As jax.nn.softmax lowers: row max, exp(x - max), row sum, divide.
  return absl::StrFormat(
      "HloModule softmax\nmax {\n  a = f32[] parameter(0)\n"
      "  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n"
      "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(a, b)\n}\n"
      "ENTRY e {\n  x = f32[%d,%d] parameter(0)\n"
      "  ninf = f32[] constant(-inf)\n  z = f32[] constant(0)\n"
      "  m = f32[%d] reduce(x, ninf), dimensions={1}, to_apply=max\n"
      "  mb = f32[%d,%d] broadcast(m), dimensions={0}\n"
      "  d = f32[%d,%d] subtract(x, mb)\n  ex = f32[%d,%d] exponential(d)\n"
      "  s = f32[%d] reduce(ex, z), dimensions={1}, to_apply=add\n"
      "  sb = f32[%d,%d] broadcast(s), dimensions={0}\n"
      "  ROOT y = f32[%d,%d] divide(ex, sb)\n}\n",
      r, c, r, r, c, r, c, r, c, r, r, c, r, c);
}

std::string MaxPoolHlo(const PoolShape& s) {
  return absl::StrFormat(
      "HloModule max_pool\nmax {\n  a = f32[] parameter(0)\n"
      "  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n"
      "ENTRY e {\n  x = f32[%d,%d,%d,%d] parameter(0)\n"
      "  ninf = f32[] constant(-inf)\n"
      "  ROOT y = f32[%d,%d,%d,%d] reduce-window(x, ninf), "
      "window={size=1x2x2x1 stride=1x2x2x1}, to_apply=max\n}\n",
      s.n, s.h, s.w, s.c, s.n, s.h / 2, s.w / 2, s.c);
}

// ---------------------------------------------------------- registration
void RegisterGemm(const GemmShape& s, double hloref_min_time = 0) {
  WorkloadInfo info;
  info.name = s.batch > 1
                  ? absl::StrFormat("gemm_%s_b%d_%dx%dx%d", DTypeName(s.type),
                                    s.batch, s.m, s.k, s.n)
                  : absl::StrFormat("gemm_%s_%dx%dx%d", DTypeName(s.type), s.m,
                                    s.k, s.n);
  info.kind = "gemm";
  info.work = 2.0 * s.batch * s.m * s.k * s.n;
  if (s.m <= 16) {
    info.stream_bytes = static_cast<double>(s.batch * s.k * s.n) *
                        (s.type == DType::kF64    ? 8
                         : s.type == DType::kF32  ? 4
                         : s.type == DType::kBF16 ? 2
                                                  : 1);
  }
  AddInfo(info);
  if (g_flags.hloref) {
    AddHloref(info, GemmHlo(s), hloref_min_time);
    Add(info, "kernel", [s](int t, std::string*) -> std::unique_ptr<Workload> {
      return std::make_unique<GemmKernelWorkload>(s, t);
    });
    if (s.type == DType::kBF16) {
      // The fast mode (--cpu-fast: AMX tdpbf16ps where the host has it,
      // else vdpbf16ps; declared deviation ftz=f32+bf16) beside the
      // conformant one, and the fast mode held on vdpbf16ps.
      Add(info, "kernel_fast",
          [s](int t, std::string*) -> std::unique_ptr<Workload> {
            return std::make_unique<GemmKernelWorkload>(s, t, /*fast=*/true);
          });
      if (gemm::HostBf16AmxKernel() != nullptr) {
        Add(info, "kernel_fast_vdp",
            [s](int t, std::string*) -> std::unique_ptr<Workload> {
              return std::make_unique<GemmKernelWorkload>(s, t, /*fast=*/true,
                                                          /*amx=*/false);
            });
      }
    }
    if (s.type == DType::kS8 && gemm::HostI8AmxKernel() != nullptr) {
      // 8-bit integers run on AMX in both modes (exact); the VNNI kernel
      // beside it.
      Add(info, "kernel_vnni",
          [s](int t, std::string*) -> std::unique_ptr<Workload> {
            return std::make_unique<GemmKernelWorkload>(s, t, /*fast=*/false,
                                                        /*amx=*/false);
          });
    }
  }
  if (HaveOneDnn() && s.type != DType::kF64) {
    Add(info, "onednn",
        Peer([s](int t) { return OneDnnGemm(s, t); }, "oneDNN"));
  }
  if (HaveOpenBlas() && (s.type == DType::kF32 || s.type == DType::kF64)) {
    Add(info, "openblas",
        Peer([s](int t) { return OpenBlasGemm(s, t); }, "OpenBLAS"));
  }
  if (s.type == DType::kF32 || s.type == DType::kF64) {
    Add(info, "eigen", Peer([s](int t) { return EigenGemm(s, t); }, "Eigen"));
  }
}

void RegisterConv(const std::string& label, const ConvShape& s,
                  double hloref_min_time = 0) {
  WorkloadInfo info;
  info.name =
      absl::StrFormat("conv_%s_%dx%dx%d_to_%d", label, s.h, s.w, s.c, s.out_c);
  info.kind = "conv";
  info.work =
      2.0 * s.out_h() * s.out_w() * s.out_c * (s.c / s.groups) * s.kh * s.kw;
  AddInfo(info);
  if (g_flags.hloref) {
    AddHloref(info, ConvHlo(s), hloref_min_time);
    Add(info, "kernel", [s](int t, std::string*) -> std::unique_ptr<Workload> {
      return std::make_unique<ConvKernelWorkload>(s, t);
    });
  }
  if (HaveOneDnn()) {
    Add(info, "onednn",
        Peer([s](int t) { return OneDnnConv(s, t); }, "oneDNN"));
  }
}

void RegisterReduce(const ReduceShape& s) {
  static const char* kinds[] = {"rowsum", "colsum", "rowmax", "colmax"};
  WorkloadInfo info;
  info.name =
      absl::StrFormat("reduce_%s_%s_%dx%d", kinds[static_cast<int>(s.kind)],
                      DTypeName(s.type), s.rows, s.cols);
  info.kind = "reduce";
  info.unit = Unit::kBytes;
  info.work =
      static_cast<double>(s.rows) * s.cols * (s.type == DType::kF32 ? 4 : 2);
  AddInfo(info);
  if (g_flags.hloref) AddHloref(info, ReduceHlo(s));
  if (HaveOneDnn()) {
    Add(info, "onednn",
        Peer([s](int t) { return OneDnnReduce(s, t); }, "oneDNN"));
  }
  if (s.type == DType::kF32) {
    Add(info, "eigen", Peer([s](int t) { return EigenReduce(s, t); }, "Eigen"));
  }
}

// A module file: its whole text, or "" when it cannot be read.
std::string ReadFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return "";
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}

void RegisterModules() {
  for (const std::string& path : g_flags.modules) {
    std::string stem = path.substr(path.find_last_of('/') + 1);
    stem = stem.substr(0, stem.find('.'));
    WorkloadInfo info{absl::StrCat("module_", stem), "module", Unit::kNone, 0};
    AddInfo(info);
    const std::string text = ReadFile(path);
    Add(info, "hloref",
        [text, path](int threads,
                     std::string* error) -> std::unique_ptr<Workload> {
          if (text.empty()) {
            *error = absl::StrCat("cannot read ", path);
            return nullptr;
          }
          return HlorefWorkload::Create(text, threads, error);
        });
  }
}

void RegisterAll() {
  if (!g_flags.modules.empty()) {
    RegisterModules();
    return;
  }
  const bool q = g_flags.quick;
  // Machine limits first: the reference for every later row.
  {
    WorkloadInfo fma{"limit_fma_peak_f32", "limit", Unit::kFlops, 0};
    fma.work = FmaPeakFlops(1);  // per thread; scaled below per thread count
    AddInfo(fma);
    for (int t : g_flags.threads) {
      const std::string name = absl::StrCat(fma.name, "/t", t, "/machine");
      WorkloadInfo scaled = fma;
      scaled.work = FmaPeakFlops(t);
      Factory f = [](int threads, std::string*) { return FmaPeak(threads); };
      auto* b = benchmark::RegisterBenchmark(
          name.c_str(), [name, f, t, scaled](benchmark::State& state) {
            RunCase(state, name, f, t, scaled);
          });
      b->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
    }
    const int64_t bytes = q ? (int64_t{4} << 20) : (int64_t{512} << 20);
    WorkloadInfo sum{"limit_bw_sum", "limit", Unit::kBytes,
                     static_cast<double>(bytes)};
    AddInfo(sum);
    Add(sum, "machine",
        [bytes](int t, std::string*) { return BandwidthSum(bytes, t); });
    // The sum over a working set the size of the reductions' input
    // (4096 x 1024 f32 = 16 MiB), warm: on a CPU with a larger L3 this is
    // a cache bandwidth, the ceiling those reductions actually face.
    const int64_t reduce_bytes = q ? (int64_t{8} << 10) : (int64_t{16} << 20);
    WorkloadInfo sum_ws{"limit_bw_sum_16MiB", "limit", Unit::kBytes,
                        static_cast<double>(reduce_bytes)};
    if (q) sum_ws.name = "limit_bw_sum_8KiB";
    AddInfo(sum_ws);
    Add(sum_ws, "machine", [reduce_bytes](int t, std::string*) {
      return BandwidthSum(reduce_bytes, t);
    });
    WorkloadInfo triad{"limit_bw_triad", "limit", Unit::kBytes, 0};
    triad.work = static_cast<double>(bytes / 3 / 4 * 4 * 3);
    AddInfo(triad);
    Add(triad, "machine",
        [bytes](int t, std::string*) { return BandwidthTriad(bytes, t); });
    // Copy of the same 16 MiB into another 16 MiB (both counted): the
    // reference of the fusions that write as much as they read (softmax,
    // layer norm).
    WorkloadInfo copy_ws{q ? "limit_bw_copy_8KiB" : "limit_bw_copy_16MiB",
                         "limit", Unit::kBytes,
                         2.0 * static_cast<double>(reduce_bytes)};
    AddInfo(copy_ws);
    Add(copy_ws, "machine", [reduce_bytes](int t, std::string*) {
      return BandwidthCopy(reduce_bytes, t);
    });
  }
  // GEMM.
  const std::vector<int64_t> square =
      q ? std::vector<int64_t>{32}
        : (g_flags.big ? std::vector<int64_t>{256, 512, 1024, 2048}
                       : std::vector<int64_t>{256, 512, 1024});
  for (DType t : {DType::kF32, DType::kBF16, DType::kS8}) {
    for (int64_t n : square) {
      RegisterGemm({1, n, n, n, t}, n >= 1024 ? 0.01 : 0);
    }
  }
  RegisterGemm({1, q ? 32 : 1024, q ? 32 : 1024, q ? 32 : 1024, DType::kF64},
               0.01);
  if (q) {
    RegisterGemm({1, 1, 64, 64, DType::kF32});
    RegisterGemm({2, 8, 4, 8, DType::kF32});
  } else {
    RegisterGemm({1, 1, 4096, 4096, DType::kF32});
    RegisterGemm({1, 8, 4096, 4096, DType::kF32}, 0.01);
    if (g_flags.big) RegisterGemm({1, 16, 4096, 11008, DType::kF32}, 0.01);
    if (g_flags.big) RegisterGemm({1, 32, 4096, 4096, DType::kF32}, 0.01);
    // mlp_block's two GEMMs (32 tokens, width 512, hidden 2048).
    RegisterGemm({1, 32, 512, 2048, DType::kF32});
    RegisterGemm({1, 32, 2048, 512, DType::kF32});
    RegisterGemm({32, 128, 64, 128, DType::kF32});
  }
  // Convolutions (batch 1, NHWC / HWIO).
  const int64_t hw = q ? 8 : 56;
  // The hloref rows take the run's --benchmark_min_time like the peers
  // (0 = the global flag): the 0.01 s cap dated from the element-wise loop
  // nests (~100 ms per layer) and now left one or two ~1 ms iterations per
  // repetition, first-touch page faults of the result included.
  const double conv_min = 0;
  RegisterConv("3x3", {hw, hw, q ? 8 : 64, q ? 8 : 64, 3, 3, 1, 1, 1},
               conv_min);
  RegisterConv("1x1", {hw, hw, q ? 16 : 256, q ? 8 : 64, 1, 1, 1, 0, 1},
               conv_min);
  RegisterConv("3x3s2", {hw, hw, q ? 8 : 128, q ? 8 : 128, 3, 3, 2, 1, 1},
               conv_min);
  RegisterConv("dw3x3",
               {hw, hw, q ? 16 : 256, q ? 16 : 256, 3, 3, 1, 1, q ? 16 : 256},
               conv_min);
  // Reductions.
  const int64_t rows = q ? 64 : 4096, cols = q ? 32 : 1024;
  for (DType t : {DType::kF32, DType::kBF16}) {
    for (ReduceKind k : {ReduceKind::kRowSum, ReduceKind::kColSum,
                         ReduceKind::kRowMax, ReduceKind::kColMax}) {
      RegisterReduce({rows, cols, k, t});
    }
  }
  {
    const int64_t n = q ? 100 : 50000;
    WorkloadInfo info{absl::StrCat("argmax_f32_", n), "reduce", Unit::kBytes,
                      4.0 * n};
    AddInfo(info);
    if (g_flags.hloref) AddHloref(info, ArgmaxHlo(n));
    Add(info, "eigen", Peer([n](int t) { return EigenArgmax(n, t); }, "Eigen"));
  }
  {
    const int64_t r = q ? 16 : 4096, c = q ? 32 : 768;
    // Bytes: read x once, write y once (the least any implementation moves).
    WorkloadInfo info{absl::StrFormat("layernorm_f32_%dx%d", r, c), "reduce",
                      Unit::kBytes, 8.0 * r * c};
    AddInfo(info);
    if (g_flags.hloref) AddHloref(info, LayerNormHlo(r, c));
    if (HaveOneDnn()) {
      Add(info, "onednn",
          Peer([r, c](int t) { return OneDnnLayerNorm(r, c, t); }, "oneDNN"));
    }
    Add(info, "eigen",
        Peer([r, c](int t) { return EigenLayerNorm(r, c, t); }, "Eigen"));
  }
  {
    const int64_t r = q ? 16 : 4096, c = q ? 32 : 1024;
    WorkloadInfo info{absl::StrFormat("softmax_f32_%dx%d", r, c), "reduce",
                      Unit::kBytes, 8.0 * r * c};
    AddInfo(info);
    if (g_flags.hloref) AddHloref(info, SoftmaxHlo(r, c));
    if (HaveOneDnn()) {
      Add(info, "onednn",
          Peer([r, c](int t) { return OneDnnSoftmax(r, c, t); }, "oneDNN"));
    }
    Add(info, "eigen",
        Peer([r, c](int t) { return EigenSoftmax(r, c, t); }, "Eigen"));
  }
  {
    // 16 MiB of input (as the reductions), NHWC: read it, write a quarter.
    const PoolShape s = q ? PoolShape{1, 8, 8, 16} : PoolShape{1, 256, 256, 64};
    WorkloadInfo info{
        absl::StrFormat("maxpool2x2_f32_%dx%dx%dx%d", s.n, s.h, s.w, s.c),
        "reduce", Unit::kBytes, 4.0 * s.n * s.h * s.w * s.c * 1.25};
    AddInfo(info);
    if (g_flags.hloref) AddHloref(info, MaxPoolHlo(s));
    if (HaveOneDnn()) {
      Add(info, "onednn",
          Peer([s](int t) { return OneDnnMaxPool(s, t); }, "oneDNN"));
    }
    Add(info, "eigen",
        Peer([s](int t) { return EigenMaxPool(s, t); }, "Eigen"));
  }
}

// ------------------------------------------------------------- summary
// Collects every iteration run's wall time per benchmark name (the
// repetitions), then prints medians and ratios.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration) continue;
      const std::string name = r.run_name.function_name;
      if (r.error_occurred) {
        errors_[name] = r.error_message;
        continue;
      }
      if (r.iterations > 0) {
        const double n = static_cast<double>(r.iterations);
        seconds_[name].push_back(r.real_accumulated_time / n);
        cpu_seconds_[name].push_back(r.cpu_accumulated_time / n);
      }
    }
  }
  // Median seconds per run (wall, or CPU time of the whole process), or
  // < 0 when absent.
  double Median(const std::string& name, bool cpu = false) const {
    const auto& m = cpu ? cpu_seconds_ : seconds_;
    auto it = m.find(name);
    if (it == m.end() || it->second.empty()) return -1;
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  }
  size_t Samples(const std::string& name) const {
    auto it = seconds_.find(name);
    return it == seconds_.end() ? 0 : it->second.size();
  }
  const std::map<std::string, std::string>& errors() const { return errors_; }

 private:
  std::map<std::string, std::vector<double>> seconds_, cpu_seconds_;
  std::map<std::string, std::string> errors_;
};

// The summary table. With cpu_clock, rates come from the CPU time of the
// whole process instead of wall time, for the 1-thread rows only: on a
// shared machine a 1-thread run that only gets part of a core keeps its CPU
// time while its wall time stretches (memory bandwidth stays shared).
std::string Summary(const CollectingReporter& rep, bool markdown,
                    bool cpu_clock = false) {
  const std::vector<std::string> peers = {"onednn", "openblas", "eigen"};
  const std::map<std::string, std::string> peer_names = {
      {"onednn", "oneDNN"}, {"openblas", "OpenBLAS"}, {"eigen", "Eigen"}};
  auto rate = [&](const WorkloadInfo& w, int t, const std::string& impl) {
    const double s =
        rep.Median(absl::StrCat(w.name, "/t", t, "/", impl), cpu_clock);
    if (s <= 0) return -1.0;
    double work = w.work;
    if (w.name == "limit_fma_peak_f32") work = FmaPeakFlops(t);
    return work / s * 1e-9;
  };
  auto limit_of = [&](const WorkloadInfo& w, int t) -> double {
    for (const WorkloadInfo& l : g_workloads) {
      if (w.kind == "gemm" || w.kind == "conv") {
        if (l.name == "limit_fma_peak_f32") return rate(l, t, "machine");
      } else if (w.kind == "reduce") {
        if (l.name.rfind("limit_bw_sum_", 0) == 0) {
          return rate(l, t, "machine");
        }
      }
    }
    return -1;
  };
  auto bw_limit = [&](int t) -> double {
    for (const WorkloadInfo& l : g_workloads) {
      if (l.name == "limit_bw_sum") return rate(l, t, "machine");
    }
    return -1;
  };
  // f is a literal of the table below; StrFormat needs a constexpr format
  // under clang, which a parameter is not.
  auto fmt = [](double x, const char* f) {
    if (x < 0) return std::string("-");
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return std::string(buf);
  };
  std::string out;
  const std::string sep = markdown ? " | " : "  ";
  auto row = [&](const std::vector<std::string>& cells) {
    if (markdown) {
      out += "| " + absl::StrJoin(cells, " | ") + " |\n";
    } else {
      out += absl::StrFormat("%-40s %3s %9s %9s %9s %9s %8s %10s %8s %8s\n",
                             cells[0], cells[1], cells[2], cells[3], cells[4],
                             cells[5], cells[6], cells[7], cells[8], cells[9]);
    }
  };
  row({"workload (unit)", "thr", "hloref", "oneDNN", "OpenBLAS", "Eigen",
       "x oneDNN", "x OpenBLAS", "x Eigen", "% limit"});
  if (markdown) out += "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  for (const WorkloadInfo& w : g_workloads) {
    if (w.unit == Unit::kNone) continue;
    for (int t : g_flags.threads) {
      if (cpu_clock && t != 1) continue;
      bool any = false;
      for (const char* impl :
           {"hloref", "kernel", "kernel_fast", "kernel_fast_vdp", "kernel_vnni",
            "onednn", "openblas", "eigen", "machine"}) {
        any = any || rate(w, t, impl) > 0;
      }
      if (!any) continue;
      const char* unit = w.unit == Unit::kFlops ? "GFLOP/s" : "GB/s";
      if (w.kind == "limit") {
        row({absl::StrCat(w.name, " (", unit, ")"), absl::StrCat(t),
             fmt(rate(w, t, "machine"), "%.1f"), "", "", "", "", "", "", ""});
        continue;
      }
      for (const char* impl : {"hloref", "kernel", "kernel_fast",
                               "kernel_fast_vdp", "kernel_vnni"}) {
        const std::string im = impl;
        const double ours = rate(w, t, impl);
        if (im != "hloref" && ours <= 0) continue;
        std::vector<std::string> cells = {
            absl::StrCat(w.name,
                         im == "kernel"        ? " [kernel]"
                         : im == "kernel_fast" ? " [kernel, fast]"
                         : im == "kernel_fast_vdp"
                             ? " [kernel, fast, vdpbf16ps]"
                         : im == "kernel_vnni" ? " [kernel, VNNI]"
                                               : "",
                         " (", unit, ")"),
            absl::StrCat(t), fmt(ours, "%.2f")};
        std::vector<std::string> ratios;
        for (const std::string& p : peers) {
          const double theirs = rate(w, t, p);
          cells.push_back(fmt(theirs, "%.2f"));
          ratios.push_back(ours > 0 && theirs > 0
                               ? absl::StrFormat("%.3f", ours / theirs)
                               : "-");
        }
        cells.insert(cells.end(), ratios.begin(), ratios.end());
        // Skinny GEMMs are rated against the memory bandwidth: the bytes
        // of B (read once) per second over the sum bandwidth of the run.
        const double limit = w.stream_bytes > 0 ? bw_limit(t) : limit_of(w, t);
        const double ours_l = w.stream_bytes > 0 && ours > 0
                                  ? ours / w.work * w.stream_bytes
                                  : ours;
        cells.push_back(ours > 0 && limit > 0
                            ? absl::StrFormat("%.1f%%%s", 100 * ours_l / limit,
                                              w.stream_bytes > 0 ? " bw" : "")
                            : "-");
        row(cells);
      }
    }
  }
  (void)sep;
  return out;
}

// Writes DIR/NAME.hlo for every registered hloref workload (whatever
// --benchmark_filter selects) and DIR/manifest.tsv: name, unit, work per
// run.
bool DumpHlo(const std::string& dir) {
  auto write = [](const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "kernel_benchmark: cannot write %s\n", path.c_str());
      return false;
    }
    std::fputs(text.c_str(), f);
    return std::fclose(f) == 0;
  };
  std::string manifest;
  for (const WorkloadInfo& w : g_workloads) {
    auto it = g_hlo_texts.find(w.name);
    if (it == g_hlo_texts.end()) continue;
    if (!write(absl::StrCat(dir, "/", w.name, ".hlo"), it->second)) {
      return false;
    }
    absl::StrAppend(&manifest, w.name, "\t",
                    w.unit == Unit::kFlops ? "GFLOP/s" : "GB/s", "\t",
                    absl::StrFormat("%.17g", w.work), "\n");
  }
  return write(absl::StrCat(dir, "/manifest.tsv"), manifest);
}

bool ParseFlags(int* argc, char** argv) {
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      g_flags.quick = true;
    } else if (a == "--big") {
      g_flags.big = true;
    } else if (a == "--no_hloref") {
      g_flags.hloref = false;
    } else if (a.rfind("--module=", 0) == 0) {
      g_flags.modules.push_back(a.substr(9));
    } else if (a.rfind("--dump_hlo=", 0) == 0) {
      g_flags.dump_hlo = a.substr(11);
    } else if (a.rfind("--summary_cpu_md=", 0) == 0) {
      g_flags.summary_cpu_md = a.substr(17);
    } else if (a.rfind("--summary_md=", 0) == 0) {
      g_flags.summary_md = a.substr(13);
    } else if (a.rfind("--threads=", 0) == 0) {
      g_flags.threads.clear();
      for (absl::string_view p : absl::StrSplit(a.substr(10), ',')) {
        int t = 0;
        if (!absl::SimpleAtoi(p, &t) || t < 1 || t > 256) {
          std::fprintf(stderr, "kernel_benchmark: bad --threads value '%s'\n",
                       std::string(p).c_str());
          return false;
        }
        g_flags.threads.push_back(t);
      }
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  return true;
}

}  // namespace
}  // namespace hloref::cpu::bench

int main(int argc, char** argv) {
  using namespace hloref::cpu::bench;
  // A peer on kernels below the host's ISA measures nothing worth a ratio:
  // run again with OpenBLAS told the core (set only when the user did not
  // set OPENBLAS_CORETYPE; the variable stops a second re-execution).
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    const std::string core = OpenBlasCoreTypeForHost();
    if (!core.empty()) {
      std::fprintf(stderr,
                   "kernel_benchmark: OpenBLAS chose kernels without the "
                   "host's vector ISA; running again with "
                   "OPENBLAS_CORETYPE=%s\n",
                   core.c_str());
      setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
      execv("/proc/self/exe", argv);
      std::fprintf(stderr,
                   "kernel_benchmark: re-executing failed (%s); OpenBLAS "
                   "keeps its generic kernels\n",
                   std::strerror(errno));
    }
  }
  if (!ParseFlags(&argc, argv)) return 2;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  std::printf("peers: %s\nFMA peak loop: %s\n", PeerVersions().c_str(),
              FmaIsa());
  RegisterAll();
  if (!g_flags.dump_hlo.empty() && !DumpHlo(g_flags.dump_hlo)) return 1;
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const std::string table = Summary(reporter, /*markdown=*/false);
  std::printf(
      "\nSummary: median rate per implementation; x PEER = hloref / PEER "
      "(above 1: hloref faster); %% limit = hloref / FMA peak (GEMM, conv) "
      "or / sum bandwidth over the reductions' working-set size "
      "(reductions) at the same thread count\n%s",
      table.c_str());
  for (const auto& [name, message] : reporter.errors()) {
    std::printf("skipped %s: %s\n", name.c_str(), message.c_str());
  }
  if (std::find(g_flags.threads.begin(), g_flags.threads.end(), 1) !=
      g_flags.threads.end()) {
    std::printf(
        "\nThe 1-thread rows rated by the process's CPU time (robust to "
        "sharing the core with other processes)\n%s",
        Summary(reporter, /*markdown=*/false, /*cpu_clock=*/true).c_str());
  }
  for (const auto& [path, cpu] : {std::pair{g_flags.summary_md, false},
                                  std::pair{g_flags.summary_cpu_md, true}}) {
    if (path.empty()) continue;
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "kernel_benchmark: cannot write %s\n", path.c_str());
      return 1;
    }
    std::fputs(Summary(reporter, /*markdown=*/true, cpu).c_str(), f);
    std::fclose(f);
  }
  benchmark::Shutdown();
  return 0;
}
