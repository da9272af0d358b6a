#include "backends/cpu/bench/peers.h"

#include <immintrin.h>
#include <strings.h>

#include <algorithm>
#include <cstring>
#include <thread>

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"

#if HLOREF_HAVE_DNNL
#include <omp.h>

#include "oneapi/dnnl/dnnl.hpp"
#endif
#if HLOREF_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace hloref::cpu::bench {
namespace {

// Deterministic values in [-1, 1).
void Fill(float* x, int64_t n, uint64_t seed) {
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = static_cast<float>(static_cast<int64_t>(seed >> 40) - (1 << 23)) /
           (1 << 23);
  }
}
[[maybe_unused]] uint16_t ToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);  // round to nearest even (finite inputs)
  return static_cast<uint16_t>(u >> 16);
}

// Runs body(t) on `threads` threads (the caller is thread 0).
template <typename F>
void Parallel(int threads, F body) {
  std::vector<std::thread> others;
  for (int t = 1; t < threads; ++t) others.emplace_back(body, t);
  body(0);
  for (std::thread& t : others) t.join();
}

}  // namespace

const char* DTypeName(DType t) {
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

bool HaveOneDnn() { return HLOREF_HAVE_DNNL != 0; }
bool HaveOpenBlas() { return HLOREF_HAVE_OPENBLAS != 0; }

std::string PeerVersions() {
  std::string s;
#if HLOREF_HAVE_DNNL
  const dnnl_version_t* v = dnnl_version();
  s += "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) +
       "." + std::to_string(v->patch) +
       (v->cpu_runtime == DNNL_RUNTIME_OMP ? " (OpenMP threads), " : ", ");
#else
  s += "oneDNN: not found at configure time, ";
#endif
#if HLOREF_HAVE_OPENBLAS
  s += std::string("OpenBLAS (") + openblas_get_config() + "), ";
#else
  s += "OpenBLAS: not found at configure time, ";
#endif
  s += "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
       std::to_string(EIGEN_MAJOR_VERSION) + "." +
       std::to_string(EIGEN_MINOR_VERSION);
  return s;
}

std::string OpenBlasCoreTypeForHost() {
#if HLOREF_HAVE_OPENBLAS
  const std::string config = openblas_get_config();
  if (config.find("DYNAMIC_ARCH") == std::string::npos) return "";
  const std::string core = openblas_get_corename();
  // OpenBLAS 0.3.21's x86-64 cores with AVX-512, and those with AVX2.
  static const char* const kAvx512[] = {"SkylakeX", "Cooperlake",
                                        "SapphireRapids"};
  static const char* const kAvx2[] = {"Haswell", "Zen"};
  const auto among = [&](const auto& names) {
    for (const char* n : names) {
      if (strcasecmp(core.c_str(), n) == 0) return true;
    }
    return false;
  };
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    if (among(kAvx512)) return "";
    return __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX";
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    if (among(kAvx2) || among(kAvx512)) return "";
    return "Haswell";
  }
#endif
  return "";
}

// ---------------------------------------------------------------- oneDNN
#if HLOREF_HAVE_DNNL
namespace {
using dnnl::memory;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

dt DnnlType(DType t) {
  switch (t) {
    case DType::kF32:
      return dt::f32;
    case DType::kBF16:
      return dt::bf16;
    case DType::kS8:
      return dt::s8;
    case DType::kF64:
      break;
  }
  return dt::undef;
}

dnnl::engine& Engine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

// A memory object filled with values in [-1, 1) (or small integers).
memory Filled(const memory::desc& md, uint64_t seed) {
  memory m(md, Engine());
  const size_t bytes = md.get_size();
  std::vector<float> values(bytes);  // more than enough elements
  Fill(values.data(), static_cast<int64_t>(values.size()), seed);
  auto* p = static_cast<uint8_t*>(m.get_data_handle());
  switch (md.data_type()) {
    case dt::f32:
      std::memcpy(p, values.data(), bytes);
      break;
    case dt::bf16:
      for (size_t i = 0; i + 1 < bytes; i += 2) {
        uint16_t b = ToBf16(values[i / 2]);
        std::memcpy(p + i, &b, 2);
      }
      break;
    case dt::s8:
      for (size_t i = 0; i < bytes; ++i) {
        p[i] = static_cast<uint8_t>(static_cast<int8_t>(values[i] * 100));
      }
      break;
    default:
      std::memset(p, 0, bytes);
  }
  return m;
}

class DnnlPrimitive : public Workload {
 public:
  DnnlPrimitive(dnnl::primitive prim, std::unordered_map<int, memory> args,
                int threads)
      : prim_(std::move(prim)),
        args_(std::move(args)),
        stream_(Engine()),
        threads_(threads) {}
  void Run() override {
    omp_set_num_threads(threads_);
    prim_.execute(stream_, args_);
    stream_.wait();
  }

 private:
  dnnl::primitive prim_;
  std::unordered_map<int, memory> args_;
  dnnl::stream stream_;
  int threads_;
};
}  // namespace

std::unique_ptr<Workload> OneDnnGemm(const GemmShape& s, int threads) {
  if (s.type == DType::kF64) return nullptr;
  omp_set_num_threads(threads);
  const dt in = DnnlType(s.type);
  const dt out = s.type == DType::kS8 ? dt::s32 : dt::f32;
  memory::dims a{s.m, s.k}, b{s.k, s.n}, c{s.m, s.n};
  tag t = tag::ab;
  if (s.batch > 1) {
    a.insert(a.begin(), s.batch);
    b.insert(b.begin(), s.batch);
    c.insert(c.begin(), s.batch);
    t = tag::abc;
  }
  memory::desc a_md(a, in, t), b_md(b, in, t), c_md(c, out, t);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md),
                                  Engine());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, Filled(a_md, 1)},
                                       {DNNL_ARG_WEIGHTS, Filled(b_md, 2)},
                                       {DNNL_ARG_DST, memory(c_md, Engine())}};
  return std::make_unique<DnnlPrimitive>(dnnl::matmul(pd), std::move(args),
                                         threads);
}

std::unique_ptr<Workload> OneDnnConv(const ConvShape& s, int threads) {
  omp_set_num_threads(threads);
  memory::desc src({1, s.c, s.h, s.w}, dt::f32, tag::nhwc);
  memory::desc dst({1, s.out_c, s.out_h(), s.out_w()}, dt::f32, tag::nhwc);
  memory::dims w_dims{s.out_c, s.c, s.kh, s.kw};
  tag w_tag = tag::oihw;
  if (s.groups > 1) {
    w_dims = {s.groups, s.out_c / s.groups, s.c / s.groups, s.kh, s.kw};
    w_tag = tag::goihw;
  }
  memory::desc w_any(w_dims, dt::f32, tag::any);
  dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                      dnnl::algorithm::convolution_direct, src,
                                      w_any, dst, {s.stride, s.stride},
                                      {s.pad, s.pad}, {s.pad, s.pad}),
      Engine());
  // The filter in oneDNN's preferred layout, reordered once (what an
  // inference user does with constant weights).
  memory w_plain = Filled(memory::desc(w_dims, dt::f32, w_tag), 2);
  memory w = w_plain;
  if (pd.weights_desc() != w_plain.get_desc()) {
    w = memory(pd.weights_desc(), Engine());
    dnnl::stream st(Engine());
    dnnl::reorder(w_plain, w).execute(st, w_plain, w);
    st.wait();
  }
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, Filled(pd.src_desc(), 1)},
                                       {DNNL_ARG_WEIGHTS, w},
                                       {DNNL_ARG_DST, memory(dst, Engine())}};
  return std::make_unique<DnnlPrimitive>(dnnl::convolution_forward(pd),
                                         std::move(args), threads);
}

std::unique_ptr<Workload> OneDnnReduce(const ReduceShape& s, int threads) {
  omp_set_num_threads(threads);
  const bool row =
      s.kind == ReduceKind::kRowSum || s.kind == ReduceKind::kRowMax;
  const bool sum =
      s.kind == ReduceKind::kRowSum || s.kind == ReduceKind::kColSum;
  memory::desc src({s.rows, s.cols}, DnnlType(s.type), tag::ab);
  // Sums accumulate into f32 (the HLO converts bf16 to f32 first); max
  // keeps the input type.
  memory::desc dst(row ? memory::dims{s.rows, 1} : memory::dims{1, s.cols},
                   sum ? dt::f32 : DnnlType(s.type), tag::ab);
  dnnl::reduction::primitive_desc pd(
      dnnl::reduction::desc(
          sum ? dnnl::algorithm::reduction_sum : dnnl::algorithm::reduction_max,
          src, dst, 0.f, 0.f),
      Engine());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, Filled(src, 1)},
                                       {DNNL_ARG_DST, memory(dst, Engine())}};
  return std::make_unique<DnnlPrimitive>(dnnl::reduction(pd), std::move(args),
                                         threads);
}

std::unique_ptr<Workload> OneDnnLayerNorm(int64_t rows, int64_t cols,
                                          int threads) {
  omp_set_num_threads(threads);
  memory::desc data({rows, cols}, dt::f32, tag::ab);
  memory::desc vec({cols}, dt::f32, tag::a);
  dnnl::layer_normalization_forward::primitive_desc pd(
      dnnl::layer_normalization_forward::desc(
          dnnl::prop_kind::forward_inference, data, 1e-5f,
          dnnl::normalization_flags::use_scale |
              dnnl::normalization_flags::use_shift),
      Engine());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, Filled(data, 1)},
                                       {DNNL_ARG_DST, memory(data, Engine())},
                                       {DNNL_ARG_SCALE, Filled(vec, 2)},
                                       {DNNL_ARG_SHIFT, Filled(vec, 3)}};
  return std::make_unique<DnnlPrimitive>(dnnl::layer_normalization_forward(pd),
                                         std::move(args), threads);
}

std::unique_ptr<Workload> OneDnnSoftmax(int64_t rows, int64_t cols,
                                        int threads) {
  omp_set_num_threads(threads);
  memory::desc data({rows, cols}, dt::f32, tag::ab);
  dnnl::softmax_forward::primitive_desc pd(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, data, 1),
      Engine());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, Filled(data, 1)},
                                       {DNNL_ARG_DST, memory(data, Engine())}};
  return std::make_unique<DnnlPrimitive>(dnnl::softmax_forward(pd),
                                         std::move(args), threads);
}

std::unique_ptr<Workload> OneDnnMaxPool(const PoolShape& s, int threads) {
  omp_set_num_threads(threads);
  // oneDNN's dims are N, C, H, W whatever the layout; tag::nhwc is the
  // HLO's row-major [n, h, w, c].
  memory::desc src({s.n, s.c, s.h, s.w}, dt::f32, tag::nhwc);
  memory::desc dst({s.n, s.c, s.h / 2, s.w / 2}, dt::f32, tag::nhwc);
  dnnl::pooling_forward::primitive_desc pd(
      dnnl::pooling_forward::desc(dnnl::prop_kind::forward_inference,
                                  dnnl::algorithm::pooling_max, src, dst,
                                  {2, 2}, {2, 2}, {0, 0}, {0, 0}),
      Engine());
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, Filled(src, 1)},
                                       {DNNL_ARG_DST, memory(dst, Engine())}};
  return std::make_unique<DnnlPrimitive>(dnnl::pooling_forward(pd),
                                         std::move(args), threads);
}
#else
std::unique_ptr<Workload> OneDnnGemm(const GemmShape&, int) { return nullptr; }
std::unique_ptr<Workload> OneDnnConv(const ConvShape&, int) { return nullptr; }
std::unique_ptr<Workload> OneDnnReduce(const ReduceShape&, int) {
  return nullptr;
}
std::unique_ptr<Workload> OneDnnSoftmax(int64_t, int64_t, int) {
  return nullptr;
}
std::unique_ptr<Workload> OneDnnMaxPool(const PoolShape&, int) {
  return nullptr;
}
std::unique_ptr<Workload> OneDnnLayerNorm(int64_t, int64_t, int) {
  return nullptr;
}
#endif

// -------------------------------------------------------------- OpenBLAS
#if HLOREF_HAVE_OPENBLAS
namespace {
template <typename T>
class BlasGemm : public Workload {
 public:
  BlasGemm(const GemmShape& s, int threads)
      : s_(s),
        threads_(threads),
        a_(s.batch * s.m * s.k),
        b_(s.batch * s.k * s.n),
        c_(s.batch * s.m * s.n) {
    std::vector<float> v(std::max(a_.size(), b_.size()));
    Fill(v.data(), static_cast<int64_t>(v.size()), 1);
    std::copy(v.begin(), v.begin() + static_cast<int64_t>(a_.size()),
              a_.begin());
    std::copy(v.begin(), v.begin() + static_cast<int64_t>(b_.size()),
              b_.begin());
  }
  void Run() override {
    openblas_set_num_threads(threads_);
    for (int64_t i = 0; i < s_.batch; ++i) {
      const T* a = a_.data() + i * s_.m * s_.k;
      const T* b = b_.data() + i * s_.k * s_.n;
      T* c = c_.data() + i * s_.m * s_.n;
      if constexpr (sizeof(T) == 4) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s_.m, s_.n, s_.k,
                    1.0f, a, s_.k, b, s_.n, 0.0f, c, s_.n);
      } else {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s_.m, s_.n, s_.k,
                    1.0, a, s_.k, b, s_.n, 0.0, c, s_.n);
      }
    }
  }

 private:
  GemmShape s_;
  int threads_;
  std::vector<T> a_, b_, c_;
};
}  // namespace

std::unique_ptr<Workload> OpenBlasGemm(const GemmShape& s, int threads) {
  if (s.type == DType::kF32)
    return std::make_unique<BlasGemm<float>>(s, threads);
  if (s.type == DType::kF64) {
    return std::make_unique<BlasGemm<double>>(s, threads);
  }
  return nullptr;
}
#else
std::unique_ptr<Workload> OpenBlasGemm(const GemmShape&, int) {
  return nullptr;
}
#endif

// ----------------------------------------------------------------- Eigen
namespace {
// Eigen's thread-pool device with `threads` threads, or its default device
// (the calling thread) for one thread.
class EigenDevice {
 public:
  explicit EigenDevice(int threads) {
    if (threads > 1) {
      pool_ = std::make_unique<Eigen::ThreadPool>(threads);
      device_ = std::make_unique<Eigen::ThreadPoolDevice>(pool_.get(), threads);
    }
  }
  template <typename Dst, typename Expr>
  void Assign(Dst& dst, const Expr& expr) {
    if (device_) {
      dst.device(*device_) = expr;
    } else {
      dst = expr;
    }
  }

 private:
  std::unique_ptr<Eigen::ThreadPool> pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> device_;
};

template <typename T>
using Matrix = Eigen::Tensor<T, 2, Eigen::RowMajor>;
template <typename T>
using Vector = Eigen::Tensor<T, 1, Eigen::RowMajor>;

template <typename T>
class EigenContraction : public Workload {
 public:
  EigenContraction(const GemmShape& s, int threads)
      : s_(s), device_(threads), a_(s.m, s.k), b_(s.k, s.n), c_(s.m, s.n) {
    std::vector<float> v(std::max(a_.size(), b_.size()));
    Fill(v.data(), static_cast<int64_t>(v.size()), 1);
    for (int64_t i = 0; i < a_.size(); ++i) a_.data()[i] = v[i];
    for (int64_t i = 0; i < b_.size(); ++i) b_.data()[i] = v[i];
  }
  void Run() override {
    // Every batch multiplies the same operands (the work is the same).
    const Eigen::array<Eigen::IndexPair<int>, 1> dims{
        Eigen::IndexPair<int>(1, 0)};
    for (int64_t i = 0; i < s_.batch; ++i) {
      device_.Assign(c_, a_.contract(b_, dims));
    }
  }

 private:
  GemmShape s_;
  EigenDevice device_;
  Matrix<T> a_, b_, c_;
};

class EigenReduction : public Workload {
 public:
  EigenReduction(const ReduceShape& s, int threads)
      : s_(s), device_(threads), x_(s.rows, s.cols) {
    Fill(x_.data(), x_.size(), 1);
    const bool row =
        s.kind == ReduceKind::kRowSum || s.kind == ReduceKind::kRowMax;
    out_ = Vector<float>(row ? s.rows : s.cols);
  }
  void Run() override {
    const bool row =
        s_.kind == ReduceKind::kRowSum || s_.kind == ReduceKind::kRowMax;
    const Eigen::array<int, 1> dim{row ? 1 : 0};
    if (s_.kind == ReduceKind::kRowSum || s_.kind == ReduceKind::kColSum) {
      device_.Assign(out_, x_.sum(dim));
    } else {
      device_.Assign(out_, x_.maximum(dim));
    }
  }

 private:
  ReduceShape s_;
  EigenDevice device_;
  Matrix<float> x_;
  Vector<float> out_;
};

class EigenArgmaxWork : public Workload {
 public:
  EigenArgmaxWork(int64_t n, int threads) : device_(threads), x_(n) {
    Fill(x_.data(), n, 1);
  }
  void Run() override { device_.Assign(out_, x_.argmax()); }

 private:
  EigenDevice device_;
  Vector<float> x_;
  Eigen::Tensor<Eigen::Index, 0, Eigen::RowMajor> out_;
};

// Layer norm as an Eigen user writes it with the Tensor module: the row
// mean and variance as reductions, then one element-wise expression.
class EigenLayerNormWork : public Workload {
 public:
  EigenLayerNormWork(int64_t rows, int64_t cols, int threads)
      : rows_(rows),
        cols_(cols),
        device_(threads),
        x_(rows, cols),
        y_(rows, cols),
        g_(cols),
        b_(cols),
        mean_(rows),
        rstd_(rows) {
    Fill(x_.data(), x_.size(), 1);
    Fill(g_.data(), g_.size(), 2);
    Fill(b_.data(), b_.size(), 3);
  }
  void Run() override {
    const Eigen::array<int, 1> along{1};
    const Eigen::array<Eigen::Index, 2> col{rows_, 1}, by_cols{1, cols_},
        row{1, cols_}, by_rows{rows_, 1};
    const float inv = 1.0f / static_cast<float>(cols_);
    device_.Assign(mean_, x_.sum(along) * inv);
    auto centred = x_ - mean_.reshape(col).broadcast(by_cols);
    device_.Assign(rstd_,
                   ((centred * centred).sum(along) * inv + 1e-5f).rsqrt());
    device_.Assign(y_, centred * rstd_.reshape(col).broadcast(by_cols) *
                               g_.reshape(row).broadcast(by_rows) +
                           b_.reshape(row).broadcast(by_rows));
  }

 private:
  int64_t rows_, cols_;
  EigenDevice device_;
  Matrix<float> x_, y_;
  Vector<float> g_, b_, mean_, rstd_;
};

// Softmax along the rows: max, exp(x - max) with its sum, divide.
class EigenSoftmaxWork : public Workload {
 public:
  EigenSoftmaxWork(int64_t rows, int64_t cols, int threads)
      : rows_(rows),
        cols_(cols),
        device_(threads),
        x_(rows, cols),
        y_(rows, cols),
        max_(rows),
        sum_(rows) {
    Fill(x_.data(), x_.size(), 1);
  }
  void Run() override {
    const Eigen::array<int, 1> along{1};
    const Eigen::array<Eigen::Index, 2> col{rows_, 1}, by_cols{1, cols_};
    device_.Assign(max_, x_.maximum(along));
    device_.Assign(y_, (x_ - max_.reshape(col).broadcast(by_cols)).exp());
    device_.Assign(sum_, y_.sum(along));
    device_.Assign(y_, y_ / sum_.reshape(col).broadcast(by_cols));
  }

 private:
  int64_t rows_, cols_;
  EigenDevice device_;
  Matrix<float> x_, y_;
  Vector<float> max_, sum_;
};

// 2x2 / stride 2 max pooling of NHWC: the input viewed as
// [n * h/2, 2, w/2, 2, c] (the same bytes), reduced over the two window
// dimensions.
class EigenMaxPoolWork : public Workload {
 public:
  EigenMaxPoolWork(const PoolShape& s, int threads)
      : s_(s),
        device_(threads),
        x_(s.n * s.h / 2, 2, s.w / 2, 2, s.c),
        y_(s.n * s.h / 2, s.w / 2, s.c) {
    Fill(x_.data(), x_.size(), 1);
  }
  void Run() override {
    const Eigen::array<int, 2> window{1, 3};
    device_.Assign(y_, x_.maximum(window));
  }

 private:
  PoolShape s_;
  EigenDevice device_;
  Eigen::Tensor<float, 5, Eigen::RowMajor> x_;
  Eigen::Tensor<float, 3, Eigen::RowMajor> y_;
};
}  // namespace

std::unique_ptr<Workload> EigenGemm(const GemmShape& s, int threads) {
  if (s.type == DType::kF32) {
    return std::make_unique<EigenContraction<float>>(s, threads);
  }
  if (s.type == DType::kF64) {
    return std::make_unique<EigenContraction<double>>(s, threads);
  }
  return nullptr;
}
std::unique_ptr<Workload> EigenReduce(const ReduceShape& s, int threads) {
  if (s.type != DType::kF32) return nullptr;
  return std::make_unique<EigenReduction>(s, threads);
}
std::unique_ptr<Workload> EigenArgmax(int64_t n, int threads) {
  return std::make_unique<EigenArgmaxWork>(n, threads);
}
std::unique_ptr<Workload> EigenLayerNorm(int64_t rows, int64_t cols,
                                         int threads) {
  return std::make_unique<EigenLayerNormWork>(rows, cols, threads);
}
std::unique_ptr<Workload> EigenSoftmax(int64_t rows, int64_t cols,
                                       int threads) {
  return std::make_unique<EigenSoftmaxWork>(rows, cols, threads);
}
std::unique_ptr<Workload> EigenMaxPool(const PoolShape& s, int threads) {
  return std::make_unique<EigenMaxPoolWork>(s, threads);
}

// -------------------------------------------------------- machine limits
namespace {
constexpr int64_t kFmaIterations = 4'000'000;
bool HasAvx512() { return __builtin_cpu_supports("avx512f"); }

// 16 independent chains of 16-lane FMAs: enough to cover the FMA latency
// (4 cycles) times the FMA ports (2) on current x86 cores.
__attribute__((target("avx512f"))) float FmaLoop512(int64_t iterations) {
  __m512 acc[16];
  for (int j = 0; j < 16; ++j) acc[j] = _mm512_set1_ps(0.001f * j);
  const __m512 a = _mm512_set1_ps(0.9999999f);
  const __m512 b = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < 16; ++j) acc[j] = _mm512_fmadd_ps(acc[j], a, b);
  }
  __m512 s = acc[0];
  for (int j = 1; j < 16; ++j) s = _mm512_add_ps(s, acc[j]);
  return _mm512_reduce_add_ps(s);
}
// 12 chains of 8-lane FMAs (16 ymm registers in all).
__attribute__((target("avx2,fma"))) float FmaLoop256(int64_t iterations) {
  __m256 acc[12];
  for (int j = 0; j < 12; ++j) acc[j] = _mm256_set1_ps(0.001f * j);
  const __m256 a = _mm256_set1_ps(0.9999999f);
  const __m256 b = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < 12; ++j) acc[j] = _mm256_fmadd_ps(acc[j], a, b);
  }
  __m256 s = acc[0];
  for (int j = 1; j < 12; ++j) s = _mm256_add_ps(s, acc[j]);
  float lanes[8];
  _mm256_storeu_ps(lanes, s);
  float r = 0;
  for (float x : lanes) r += x;
  return r;
}

class FmaPeakWork : public Workload {
 public:
  explicit FmaPeakWork(int threads) : threads_(threads) {}
  void Run() override {
    std::vector<float> sink(threads_);
    Parallel(threads_, [&](int t) {
      sink[t] =
          HasAvx512() ? FmaLoop512(kFmaIterations) : FmaLoop256(kFmaIterations);
    });
    volatile float keep = sink[0];
    (void)keep;
  }

 private:
  int threads_;
};

__attribute__((target("avx512f"))) float Sum512(const float* x, int64_t n) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    a0 = _mm512_add_ps(a0, _mm512_loadu_ps(x + i));
    a1 = _mm512_add_ps(a1, _mm512_loadu_ps(x + i + 16));
    a2 = _mm512_add_ps(a2, _mm512_loadu_ps(x + i + 32));
    a3 = _mm512_add_ps(a3, _mm512_loadu_ps(x + i + 48));
  }
  float r = _mm512_reduce_add_ps(
      _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
  for (; i < n; ++i) r += x[i];
  return r;
}
float SumPortable(const float* x, int64_t n) {
  float acc[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int j = 0; j < 16; ++j) acc[j] += x[i + j];
  }
  float r = 0;
  for (float a : acc) r += a;
  for (; i < n; ++i) r += x[i];
  return r;
}

class SumWork : public Workload {
 public:
  SumWork(int64_t bytes, int threads)
      : threads_(threads), x_(bytes / sizeof(float)) {
    Fill(x_.data(), static_cast<int64_t>(x_.size()), 1);
  }
  void Run() override {
    std::vector<float> sink(threads_);
    const int64_t n = static_cast<int64_t>(x_.size());
    Parallel(threads_, [&](int t) {
      const int64_t lo = n * t / threads_, hi = n * (t + 1) / threads_;
      sink[t] = HasAvx512() ? Sum512(x_.data() + lo, hi - lo)
                            : SumPortable(x_.data() + lo, hi - lo);
    });
    volatile float keep = sink[0];
    (void)keep;
  }

 private:
  int threads_;
  std::vector<float> x_;
};

class CopyWork : public Workload {
 public:
  CopyWork(int64_t bytes, int threads)
      : threads_(threads), x_(bytes / sizeof(float)), y_(x_.size()) {
    Fill(x_.data(), static_cast<int64_t>(x_.size()), 1);
    std::fill(y_.begin(), y_.end(), 0.0f);
  }
  void Run() override {
    const int64_t n = static_cast<int64_t>(x_.size());
    Parallel(threads_, [&](int t) {
      const int64_t lo = n * t / threads_, hi = n * (t + 1) / threads_;
      std::memcpy(y_.data() + lo, x_.data() + lo, (hi - lo) * sizeof(float));
    });
  }

 private:
  int threads_;
  std::vector<float> x_, y_;
};

class TriadWork : public Workload {
 public:
  TriadWork(int64_t bytes, int threads)
      : threads_(threads),
        a_(bytes / 3 / sizeof(float)),
        b_(a_.size()),
        c_(a_.size()) {
    Fill(b_.data(), static_cast<int64_t>(b_.size()), 1);
    Fill(c_.data(), static_cast<int64_t>(c_.size()), 2);
    std::fill(a_.begin(), a_.end(), 0.0f);
  }
  void Run() override {
    const int64_t n = static_cast<int64_t>(a_.size());
    float* a = a_.data();
    const float* b = b_.data();
    const float* c = c_.data();
    Parallel(threads_, [&](int t) {
      const int64_t lo = n * t / threads_, hi = n * (t + 1) / threads_;
      for (int64_t i = lo; i < hi; ++i) a[i] = b[i] + 0.5f * c[i];
    });
  }

 private:
  int threads_;
  std::vector<float> a_, b_, c_;
};
}  // namespace

std::unique_ptr<Workload> FmaPeak(int threads) {
  return std::make_unique<FmaPeakWork>(threads);
}
double FmaPeakFlops(int threads) {
  const double per_iteration = HasAvx512() ? 16 * 16 * 2 : 12 * 8 * 2;
  return per_iteration * static_cast<double>(kFmaIterations) * threads;
}
const char* FmaIsa() {
  return HasAvx512() ? "AVX-512 (16 chains x 16 lanes)"
                     : "AVX2+FMA (12 chains x 8 lanes)";
}
std::unique_ptr<Workload> BandwidthSum(int64_t bytes, int threads) {
  return std::make_unique<SumWork>(bytes, threads);
}
std::unique_ptr<Workload> BandwidthTriad(int64_t bytes, int threads) {
  return std::make_unique<TriadWork>(bytes, threads);
}
std::unique_ptr<Workload> BandwidthCopy(int64_t bytes, int threads) {
  return std::make_unique<CopyWork>(bytes, threads);
}

}  // namespace hloref::cpu::bench
