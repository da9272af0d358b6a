// Unit tests of the convolution runtime (conv.h) and its microkernels
// against an independent reference: a naive long-double loop in this file
// written from seed 001's ConvWithGeneralPadding text (window positions,
// padding, lhs / rhs dilation, reversal, feature and batch groups), exact
// for the products of f32 and narrower operands, judged with the class-A
// bound of docs/numerics.md 7.3 (gamma_n(u) * S plus half an ulp of the
// result, and the result type's rounding when it is narrower than f32).
#include "backends/cpu/runtime/conv.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/runtime/thread_pool.h"
#include "gtest/gtest.h"
#include "spec/types/minifloat.h"

namespace hloref::cpu {
namespace {

using conv::ConvKernels;

std::vector<const ConvKernels*> KernelSets() {
  std::vector<const ConvKernels*> v = {&conv::PortableConvKernels()};
  if (const ConvKernels* k = conv::Avx2ConvKernels()) v.push_back(k);
  if (const ConvKernels* k = conv::Avx512ConvKernels()) v.push_back(k);
  return v;
}

struct Win {
  int64_t in, k, out, stride = 1, pad = 0, ld = 1, rd = 1;
  bool rev = false;
};

// A convolution problem in logical terms, with each operand's layout given
// as its logical dimensions from minor to major (input / output: 0 = batch,
// 1 = feature, 2.. = spatial; kernel: 0 = input feature, 1 = output
// feature, 2.. = spatial).
struct Spec {
  int64_t batch = 1, in_f = 1, out_f = 1, fgc = 1, bgc = 1;
  std::vector<Win> win;
  std::vector<int> in_m2m, k_m2m, out_m2m;  // empty: channels minor (NHWC)
  PrimitiveType it = PrimitiveType::kF32, kt = PrimitiveType::kF32,
                ot = PrimitiveType::kF32;
};

std::vector<int64_t> StridesOf(const std::vector<int64_t>& dims,
                               std::vector<int> m2m) {
  const int rank = static_cast<int>(dims.size());
  if (m2m.empty()) {
    // feature (1) minor, then spatial last to first, then dimension 0.
    m2m.push_back(1);
    for (int d = rank - 1; d >= 2; --d) m2m.push_back(d);
    m2m.push_back(0);
  }
  std::vector<int64_t> s(rank, 0);
  int64_t stride = 1;
  for (int d : m2m) {
    s[d] = stride;
    stride *= dims[d];
  }
  return s;
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

struct Problem {
  ConvDims d;
  std::vector<int64_t> in_dims, k_dims, out_dims, in_st, k_st, out_st;
};

Problem Make(const Spec& s) {
  Problem p;
  const int64_t ob = s.batch / s.bgc;
  p.in_dims = {s.batch, s.in_f};
  p.k_dims = {s.in_f / s.fgc, s.out_f};
  p.out_dims = {ob, s.out_f};
  for (const Win& w : s.win) {
    p.in_dims.push_back(w.in);
    p.k_dims.push_back(w.k);
    p.out_dims.push_back(w.out);
  }
  p.in_st = StridesOf(p.in_dims, s.in_m2m);
  p.k_st = StridesOf(p.k_dims, s.k_m2m);
  p.out_st = StridesOf(p.out_dims, s.out_m2m);
  ConvDims& d = p.d;
  d.input_type = s.it;
  d.kernel_type = s.kt;
  d.output_type = s.ot;
  d.feature_group_count = s.fgc;
  d.batch_group_count = s.bgc;
  d.input_batch = s.batch;
  d.input_batch_stride = p.in_st[0];
  d.input_feature = s.in_f;
  d.input_feature_stride = p.in_st[1];
  d.kernel_input_feature = s.in_f / s.fgc;
  d.kernel_input_stride = p.k_st[0];
  d.kernel_output_feature = s.out_f;
  d.kernel_output_stride = p.k_st[1];
  d.output_batch = ob;
  d.output_batch_stride = p.out_st[0];
  d.output_feature = s.out_f;
  d.output_feature_stride = p.out_st[1];
  for (size_t i = 0; i < s.win.size(); ++i) {
    const Win& w = s.win[i];
    d.spatial.push_back({w.in, p.in_st[2 + i], w.k, p.k_st[2 + i], w.out,
                         p.out_st[2 + i], w.stride, w.pad, w.ld, w.rd, w.rev});
  }
  return p;
}

// Storage of a buffer of type t holding `values` (already representable).
std::vector<uint8_t> Store(PrimitiveType t, const std::vector<double>& v) {
  const int64_t eb = StorageBytes(t);
  std::vector<uint8_t> out(v.size() * eb);
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == PrimitiveType::kF32) {
      const float f = static_cast<float>(v[i]);
      std::memcpy(&out[i * 4], &f, 4);
    } else if (t == PrimitiveType::kF64) {
      std::memcpy(&out[i * 8], &v[i], 8);
    } else {
      const uint16_t b = static_cast<uint16_t>(EncodeFloat(FormatOf(t), v[i]));
      std::memcpy(&out[i * 2], &b, 2);
    }
  }
  return out;
}

double LoadOut(PrimitiveType t, const std::vector<uint8_t>& buf, int64_t i) {
  if (t == PrimitiveType::kF32) {
    float f;
    std::memcpy(&f, &buf[i * 4], 4);
    return f;
  }
  if (t == PrimitiveType::kF64) {
    double f;
    std::memcpy(&f, &buf[i * 8], 8);
    return f;
  }
  uint16_t b;
  std::memcpy(&b, &buf[i * 2], 2);
  uint32_t bits = DecodeFloatToF32Bits(FormatOf(t), b);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Values representable in type t (random, of moderate magnitude).
std::vector<double> Values(PrimitiveType t, int64_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<double> v(n);
  for (double& x : v) {
    const double r = u(rng);
    if (t == PrimitiveType::kF64) {
      x = r;
    } else if (t == PrimitiveType::kF32) {
      x = static_cast<float>(r);
    } else {
      const uint64_t b = EncodeFloat(FormatOf(t), r);
      const uint32_t f = DecodeFloatToF32Bits(FormatOf(t), b);
      float ff;
      std::memcpy(&ff, &f, 4);
      x = ff;
    }
  }
  return v;
}

// Reference from the seed's definition: for output (b, o, spatial), the
// sum over window positions w and group input features c of
// input[h * B + b, g * Cg + c, pos / ld] * kernel[c, o, kw].
struct Ref {
  std::vector<long double> y, s;
  std::vector<int64_t> n;  // terms per output
};
Ref Reference(const Problem& p, const std::vector<double>& x,
              const std::vector<double>& w) {
  const ConvDims& d = p.d;
  const int64_t nsp = static_cast<int64_t>(d.spatial.size());
  const int64_t total = Product(p.out_dims);
  Ref r;
  r.y.assign(total, 0);
  r.s.assign(total, 0);
  r.n.assign(total, 0);
  const int64_t cg = d.kernel_input_feature;
  const int64_t per_fg = d.output_feature / d.feature_group_count;
  const int64_t per_bg = d.output_feature / d.batch_group_count;
  std::vector<int64_t> oi(nsp + 2, 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t rem = flat;
    for (int64_t i = nsp + 1; i >= 0; --i) {
      oi[i] = rem % p.out_dims[i];
      rem /= p.out_dims[i];
    }
    const int64_t b = oi[0], o = oi[1];
    const int64_t g = o / per_fg, h = o / per_bg;
    const int64_t in_b = h * d.output_batch + b;
    int64_t out_off = 0;
    for (int64_t i = 0; i < nsp + 2; ++i) out_off += oi[i] * p.out_st[i];
    long double y = 0, s = 0;
    int64_t terms = 0;
    int64_t taps = 1;
    for (const auto& sp : d.spatial) taps *= sp.kernel_size;
    for (int64_t t = 0; t < taps; ++t) {
      int64_t trem = t, in_off = in_b * p.in_st[0], k_off = o * p.k_st[1];
      bool valid = true;
      for (int64_t i = nsp - 1; i >= 0; --i) {
        const auto& sp = d.spatial[i];
        const int64_t wi = trem % sp.kernel_size;
        trem /= sp.kernel_size;
        const int64_t pos =
            oi[2 + i] * sp.stride + wi * sp.window_dilation - sp.padding_low;
        const int64_t dilated = (sp.input_size - 1) * sp.base_dilation + 1;
        if (pos < 0 || pos >= dilated || pos % sp.base_dilation != 0) {
          valid = false;
        }
        in_off += (pos / sp.base_dilation) * p.in_st[2 + i];
        k_off += (sp.reversal ? sp.kernel_size - 1 - wi : wi) * p.k_st[2 + i];
      }
      if (!valid) continue;
      for (int64_t c = 0; c < cg; ++c) {
        const long double a = x[in_off + (g * cg + c) * p.in_st[1]];
        const long double bw = w[k_off + c * p.k_st[0]];
        y += a * bw;
        s += std::fabs(a * bw);
        ++terms;
      }
    }
    r.y[out_off] = y;
    r.s[out_off] = s;
    r.n[out_off] = terms;
  }
  return r;
}

double Unit(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF64:
      return std::ldexp(1.0, -53);
    case PrimitiveType::kBF16:
      return std::ldexp(1.0, -8);
    case PrimitiveType::kF16:
      return std::ldexp(1.0, -11);
    default:
      return std::ldexp(1.0, -24);
  }
}

// Runs `spec` with `kernels` on `threads` threads; returns the output bytes.
std::vector<uint8_t> RunSpec(const Problem& p, const std::vector<uint8_t>& in,
                             const std::vector<uint8_t>& k,
                             const ConvKernels& kernels, int threads,
                             std::string* path) {
  std::vector<uint8_t> out(Product(p.out_dims) * StorageBytes(p.d.output_type),
                           0xAB);
  std::unique_ptr<ThreadPool> pool;
  if (threads > 1) pool = std::make_unique<ThreadPool>(threads);
  const absl::Status st =
      RunConvolution(p.d, in.data(), k.data(), out.data(), pool.get(), kernels);
  EXPECT_TRUE(st.ok()) << st;
  if (path != nullptr) *path = LastConvolutionPath();
  return out;
}

// Checks every kernel set (and 1 and 3 threads) against the reference.
void Check(const Spec& spec, const char* want_path, uint64_t seed = 1) {
  const Problem p = Make(spec);
  std::mt19937_64 rng(seed);
  const std::vector<double> x = Values(spec.it, Product(p.in_dims), rng);
  const std::vector<double> w = Values(spec.kt, Product(p.k_dims), rng);
  const std::vector<uint8_t> in = Store(spec.it, x), k = Store(spec.kt, w);
  const Ref ref = Reference(p, x, w);
  const double acc_u =
      Unit(spec.ot == PrimitiveType::kF64 ? PrimitiveType::kF64
                                          : PrimitiveType::kF32);
  const double out_u = Unit(spec.ot);
  for (const ConvKernels* kernels : KernelSets()) {
    for (int threads : {1, 3}) {
      std::string path;
      const std::vector<uint8_t> out =
          RunSpec(p, in, k, *kernels, threads, &path);
      EXPECT_EQ(path, want_path) << kernels->name;
      int64_t bad = 0;
      for (size_t i = 0; i < ref.y.size(); ++i) {
        const double v = LoadOut(spec.ot, out, static_cast<int64_t>(i));
        const long double m = static_cast<long double>(ref.n[i]);
        const long double gamma = m * acc_u / (1 - m * acc_u);
        const long double e_acc = gamma * ref.s[i];
        long double bound = e_acc + std::fabs(ref.y[i]) * acc_u;
        if (spec.ot != PrimitiveType::kF32 && spec.ot != PrimitiveType::kF64) {
          bound += out_u * (std::fabs(ref.y[i]) + e_acc);
        }
        if (!(std::fabs(v - ref.y[i]) <= bound) && ++bad <= 5) {
          ADD_FAILURE() << kernels->name << " threads=" << threads << " output "
                        << i << ": got " << v << " want "
                        << static_cast<double>(ref.y[i]) << " bound "
                        << static_cast<double>(bound);
        }
      }
      EXPECT_EQ(bad, 0) << kernels->name << " threads=" << threads;
    }
  }
}

Win W(int64_t in, int64_t k, int64_t stride = 1, int64_t pad = 0,
      int64_t ld = 1, int64_t rd = 1, bool rev = false) {
  // Output size of the padded, dilated window (high padding = low padding).
  const int64_t dilated_in = (in - 1) * ld + 1 + 2 * pad;
  const int64_t dilated_k = (k - 1) * rd + 1;
  const int64_t out =
      dilated_in < dilated_k ? 0 : (dilated_in - dilated_k) / stride + 1;
  return {in, k, out, stride, pad, ld, rd, rev};
}

TEST(ConvTest, Nhwc3x3EdgeTiles) {
  // 9 x 11 outputs (99 rows: 16 strips, last one 3 rows), 70 output
  // features (a full 64-column panel and a 6-column edge).
  Spec s;
  s.batch = 2;
  s.in_f = 5;
  s.out_f = 70;
  s.win = {W(9, 3, 1, 1), W(11, 3, 1, 1)};
  Check(s, "gemm");
}

TEST(ConvTest, OneByOneIsAPlainGemm) {
  Spec s;
  s.batch = 1;
  s.in_f = 37;
  s.out_f = 130;
  s.win = {W(7, 1), W(13, 1)};
  Check(s, "gemm");
}

TEST(ConvTest, StrideDilationReversalNegativePadding) {
  Spec s;
  s.batch = 3;
  s.in_f = 4;
  s.out_f = 33;
  s.win = {W(10, 3, 2, 1, 2, 1, true), W(8, 2, 1, -1, 1, 2, false)};
  Check(s, "gemm");
  s.win = {W(6, 3, 3, 2, 3, 2, false), W(5, 3, 2, 0, 1, 1, true)};
  Check(s, "gemm", 2);
}

TEST(ConvTest, ChannelChunksAcrossTheL2Budget) {
  // A 4 KiB "L2" forces channel chunks of a few features (the chain
  // continues across chunks).
  setenv("HLOREF_CPU_CONV_L2", "4096", 1);
  Spec s;
  s.in_f = 45;
  s.out_f = 65;
  s.win = {W(7, 3, 1, 1), W(6, 3, 1, 1)};
  Check(s, "gemm");
  unsetenv("HLOREF_CPU_CONV_L2");
}

TEST(ConvTest, LayoutsByStrides) {
  Spec s;
  s.batch = 2;
  s.in_f = 6;
  s.out_f = 20;
  s.win = {W(8, 3, 1, 1), W(9, 2)};
  // NCHW input (a converted copy), OIHW kernel, NCHW output (scratch).
  s.in_m2m = {3, 2, 1, 0};
  s.k_m2m = {3, 2, 0, 1};
  s.out_m2m = {3, 2, 1, 0};
  Check(s, "gemm");
  // Batch minor everywhere, spatial in between.
  s.in_m2m = {0, 2, 1, 3};
  s.k_m2m = {2, 1, 3, 0};
  s.out_m2m = {0, 3, 1, 2};
  Check(s, "gemm", 3);
}

TEST(ConvTest, FeatureAndBatchGroups) {
  Spec s;
  s.batch = 2;
  s.in_f = 12;
  s.fgc = 3;
  s.out_f = 9;
  s.win = {W(7, 3, 1, 1), W(5, 3, 1, 1)};
  Check(s, "gemm");
  Spec b;
  b.batch = 4;
  b.bgc = 2;
  b.in_f = 5;
  b.out_f = 70;
  b.win = {W(6, 3, 1, 1), W(7, 2)};
  Check(b, "gemm", 4);
}

TEST(ConvTest, Depthwise) {
  Spec s;
  s.batch = 2;
  s.in_f = 70;
  s.fgc = 70;
  s.out_f = 70;
  s.win = {W(9, 3, 1, 1), W(7, 3, 2, 1, 1, 2, true)};
  Check(s, "depthwise");
  // Channels-major layouts (copy in, scratch out), 1-D.
  Spec t;
  t.in_f = 19;
  t.fgc = 19;
  t.out_f = 19;
  t.win = {W(40, 5, 1, 2, 2, 1)};
  t.in_m2m = {2, 1, 0};
  t.out_m2m = {2, 1, 0};
  Check(t, "depthwise", 5);
}

TEST(ConvTest, DepthwiseRowKernels) {
  // The row kernel's specialised windows (3 taps stride 1 and 2, 5 taps)
  // and its generic one, with checked (padded) and unchecked tiles, a last
  // tile shorter than 8 outputs, feature counts past 4 vectors (line
  // alignment lead) and not a multiple of 16, f32 and f64.
  for (int64_t f : {70, 67, 16}) {
    Spec s;
    s.batch = 2;
    s.in_f = s.fgc = s.out_f = f;
    s.win = {W(5, 3, 1, 1), W(21, 3, 1, 1)};
    Check(s, "depthwise", 20 + f);
    s.win = {W(6, 3, 2, 1), W(23, 3, 2, 1)};
    Check(s, "depthwise", 21 + f);
    s.win = {W(4, 5, 1, 2), W(19, 5, 1, 2)};
    Check(s, "depthwise", 22 + f);
    s.win = {W(4, 2, 1, 0, 1, 3), W(30, 3, 3, 1, 1, 2)};
    Check(s, "depthwise", 23 + f);
    s.it = s.kt = s.ot = PrimitiveType::kF64;
    s.win = {W(5, 3, 1, 1), W(21, 3, 1, 1)};
    Check(s, "depthwise", 24 + f);
  }
}

// The row kernel reads each line-aligned feature vector from wherever the
// buffers start: inputs and outputs at every 4-byte offset within a line
// give the same bits as an aligned run.
TEST(ConvTest, DepthwiseRowKernelAnyAlignment) {
  Spec s;
  s.in_f = s.fgc = s.out_f = 80;
  s.win = {W(4, 3, 1, 1), W(13, 3, 1, 1)};
  const Problem p = Make(s);
  std::mt19937_64 rng(31);
  const auto in = Store(s.it, Values(s.it, Product(p.in_dims), rng));
  const auto k = Store(s.kt, Values(s.kt, Product(p.k_dims), rng));
  const size_t out_bytes = Product(p.out_dims) * 4;
  for (const ConvKernels* kernels : KernelSets()) {
    const auto ref = RunSpec(p, in, k, *kernels, 1, nullptr);
    for (int shift = 0; shift < 64; shift += 4) {
      std::vector<uint8_t> in_buf(in.size() + 128), out_buf(out_bytes + 128);
      uint8_t* ip = in_buf.data() +
                    (64 - reinterpret_cast<uintptr_t>(in_buf.data()) % 64) +
                    shift;
      uint8_t* op = out_buf.data() +
                    (64 - reinterpret_cast<uintptr_t>(out_buf.data()) % 64) +
                    (shift * 3) % 64;
      std::memcpy(ip, in.data(), in.size());
      ASSERT_TRUE(
          RunConvolution(p.d, ip, k.data(), op, nullptr, *kernels).ok());
      EXPECT_EQ(std::memcmp(op, ref.data(), out_bytes), 0)
          << kernels->name << " shift " << shift;
    }
  }
}

// Runs the depthwise spec `s` on every kernel set once per case: an
// infinity at input element `index` (none when negative), expecting the
// path `want` and the reference's values (infinities exactly, NaN as
// NaN, finite values within 1e-4 relative).
void ExpectDepthwiseGuard(
    const Spec& s, uint64_t seed,
    const std::vector<std::pair<int64_t, const char*>>& cases) {
  const Problem p = Make(s);
  std::mt19937_64 rng(seed);
  const std::vector<double> w = Values(s.kt, Product(p.k_dims), rng);
  for (const ConvKernels* kernels : KernelSets()) {
    for (const auto& [index, want] : cases) {
      std::vector<double> x = Values(s.it, Product(p.in_dims), rng);
      if (index >= 0) x[index] = INFINITY;
      const Ref ref = Reference(p, x, w);
      std::string path;
      const auto out =
          RunSpec(p, Store(s.it, x), Store(s.kt, w), *kernels, 1, &path);
      EXPECT_EQ(path, want) << kernels->name << " index " << index;
      for (size_t i = 0; i < ref.y.size(); ++i) {
        const double r = static_cast<double>(ref.y[i]);
        const double v = LoadOut(s.ot, out, static_cast<int64_t>(i));
        if (std::isinf(r)) {
          EXPECT_EQ(v, r) << kernels->name << " " << i;
        } else if (std::isnan(r)) {
          EXPECT_TRUE(std::isnan(v)) << kernels->name << " " << i;
        } else {
          EXPECT_NEAR(v, r, 1e-4 * (1 + std::fabs(r)))
              << kernels->name << " " << i;
        }
      }
    }
  }
}

// The row kernel takes the range guard's statistics from its own loads:
// an infinity at a position some window reads takes the wide path; one at
// a position no window reads (stride 3 over a 1-tap window) does not.
TEST(ConvTest, DepthwiseRowKernelRangeGuard) {
  Spec s;
  s.in_f = s.fgc = s.out_f = 70;
  s.win = {W(3, 1), W(13, 1, 3, 0)};  // reads positions 0, 3, 6, 9, 12
  // input [1][70][3][13] NHWC: position (y = 2, x = pos), feature 69.
  auto at = [](int64_t pos) { return (2 * 13 + pos) * 70 + 69; };
  ExpectDepthwiseGuard(
      s, 41, {{at(0), "wide"}, {at(1), "depthwise"}, {at(12), "wide"}});
}

// The same for a 3-tap, stride-1 row wide enough that the AVX2 kernel
// slides eight outputs at a time over whole 8-feature blocks (24 features,
// 20 positions, padding 1: outputs 1..8 and 9..16 inside, the others per
// output): an infinity inside a slid block, at the row's edges, or in the
// last feature takes the wide path; none keeps the depthwise kernel.
TEST(ConvTest, DepthwiseSlidingRowRangeGuard) {
  Spec s;
  s.in_f = s.fgc = s.out_f = 24;
  s.win = {W(3, 1), W(20, 3, 1, 1)};
  // input [1][24][3][20] NHWC: position (y = 1, x = pos).
  auto at = [](int64_t pos, int64_t f) { return (1 * 20 + pos) * 24 + f; };
  ExpectDepthwiseGuard(s, 43,
                       {{-1, "depthwise"},
                        {at(10, 3), "wide"},
                        {at(0, 0), "wide"},
                        {at(19, 23), "wide"},
                        {at(5, 23), "wide"}});
}

// The two-row depthwise kernel (conv_kernels.h DwRow2Args) gives every
// output the same FMA chain as the one-row kernel, so its results must be
// bit-identical to the AVX-512 table with the two-row kernel removed,
// whatever the outer (Y) window: padding (some outputs read fewer rows),
// negative padding, stride 2 (no shared rows), window dilation, reversal,
// 5 taps, odd and even output heights (an odd row left over per image and
// per thread's row range), batch 2, f32 and f64, 1 and 3 threads. (Both
// are also checked against the reference sums by DepthwiseRowKernels.)
TEST(ConvTest, DepthwiseTwoRowKernelMatchesOneRowBitForBit) {
  const ConvKernels* avx = conv::Avx512ConvKernels();
  if (avx == nullptr) GTEST_SKIP() << "no AVX-512 on this host";
  ASSERT_NE(avx->dw_row2_f32, nullptr);
  ConvKernels one_row = *avx;
  one_row.dw_row2_f32 = nullptr;
  one_row.dw_row2_f64 = nullptr;
  const std::vector<Win> ys = {W(9, 3, 1, 1),        W(8, 3, 1, 1),
                               W(9, 3, 1, -1),       W(10, 3, 2, 1),
                               W(12, 3, 1, 2, 1, 2), W(7, 3, 1, 1, 1, 1, true),
                               W(11, 5, 1, 2),       W(2, 3, 1, 1)};
  uint64_t seed = 70;
  for (PrimitiveType t : {PrimitiveType::kF32, PrimitiveType::kF64}) {
    for (const Win& y : ys) {
      Spec s;
      s.batch = 2;
      s.in_f = s.fgc = s.out_f = 67;
      s.it = s.kt = s.ot = t;
      s.win = {y, W(19, 3, 1, 1)};
      const Problem p = Make(s);
      std::mt19937_64 rng(++seed);
      const auto in = Store(s.it, Values(s.it, Product(p.in_dims), rng));
      const auto k = Store(s.kt, Values(s.kt, Product(p.k_dims), rng));
      for (int threads : {1, 3}) {
        std::string path;
        const auto want = RunSpec(p, in, k, one_row, threads, &path);
        EXPECT_EQ(path, "depthwise");
        const auto got = RunSpec(p, in, k, *avx, threads, &path);
        EXPECT_EQ(path, "depthwise");
        EXPECT_EQ(got, want)
            << "type " << static_cast<int>(t) << " y window " << y.in << "/"
            << y.k << "/" << y.stride << "/" << y.pad << "/" << y.rd << "/"
            << y.rev << " threads " << threads;
      }
    }
  }
}

// The two-row kernel takes the range guard's statistics of each input row
// once, for both outputs: an infinity in an input row that only the second
// output row of a pair reads (the last input row, read by the last output
// row of an even-height image) still takes the wide path.
TEST(ConvTest, DepthwiseTwoRowKernelRangeGuard) {
  const ConvKernels* avx = conv::Avx512ConvKernels();
  if (avx == nullptr) GTEST_SKIP() << "no AVX-512 on this host";
  Spec s;
  s.in_f = s.fgc = s.out_f = 70;
  s.win = {W(4, 3, 1, 0), W(13, 3, 1, 1)};  // 2 output rows: one pair
  const Problem p = Make(s);
  std::mt19937_64 rng(43);
  const std::vector<double> w = Values(s.kt, Product(p.k_dims), rng);
  std::vector<double> x = Values(s.it, Product(p.in_dims), rng);
  x[(3 * 13 + 5) * 70 + 2] = INFINITY;  // y = 3: read by output row 1 only
  std::string path;
  const auto out = RunSpec(p, Store(s.it, x), Store(s.kt, w), *avx, 1, &path);
  EXPECT_EQ(path, "wide");
  const Ref ref = Reference(p, x, w);
  for (size_t i = 0; i < ref.y.size(); ++i) {
    const double v = LoadOut(s.ot, out, static_cast<int64_t>(i));
    if (std::isinf(static_cast<double>(ref.y[i]))) {
      EXPECT_EQ(v, static_cast<double>(ref.y[i])) << i;
    } else {
      EXPECT_TRUE(std::isfinite(v)) << i;
    }
  }
}

// Each tile of the two-row kernel scans the input positions its first
// outputs start at, the row's last tile also the ones past them: an
// infinity at any position of any input row, in images whose last tile is
// partial (13 wide), full (16) or preceded by full tiles (24, 6 rows: three
// pairs), still takes the wide path.
TEST(ConvTest, DepthwiseTwoRowKernelScansEveryPosition) {
  const ConvKernels* avx = conv::Avx512ConvKernels();
  if (avx == nullptr) GTEST_SKIP() << "no AVX-512 on this host";
  for (int64_t width : {13, 16, 24}) {
    Spec s;
    s.in_f = s.fgc = s.out_f = 40;
    s.win = {W(6, 3, 1, 1), W(width, 3, 1, 1)};
    const Problem p = Make(s);
    std::mt19937_64 rng(44 + width);
    const auto k = Store(s.kt, Values(s.kt, Product(p.k_dims), rng));
    const std::vector<double> x0 = Values(s.it, Product(p.in_dims), rng);
    std::string path;
    RunSpec(p, Store(s.it, x0), k, *avx, 1, &path);
    EXPECT_EQ(path, "depthwise");
    for (int64_t y = 0; y < 6; ++y) {
      for (int64_t pos = 0; pos < width; ++pos) {
        std::vector<double> x = x0;
        x[(y * width + pos) * 40 + (pos * 7 + y) % 40] = INFINITY;
        RunSpec(p, Store(s.it, x), k, *avx, 1, &path);
        EXPECT_EQ(path, "wide")
            << "width " << width << " y " << y << " x " << pos;
      }
    }
  }
}

TEST(ConvTest, ThreeSpatialDimensionsAndF64) {
  Spec s;
  s.in_f = 3;
  s.out_f = 35;
  s.win = {W(5, 2), W(4, 3, 1, 1), W(6, 2, 2, 0)};
  Check(s, "gemm");
  s.it = s.kt = s.ot = PrimitiveType::kF64;
  Check(s, "gemm", 6);
  s.fgc = 3;
  s.out_f = 3;
  Check(s, "depthwise", 7);
}

TEST(ConvTest, NarrowTypes) {
  Spec s;
  s.in_f = 8;
  s.out_f = 24;
  s.win = {W(9, 3, 1, 1), W(8, 3, 1, 1)};
  s.it = s.kt = s.ot = PrimitiveType::kBF16;
  Check(s, "gemm");
  s.it = PrimitiveType::kF16;
  s.kt = PrimitiveType::kF32;
  s.ot = PrimitiveType::kF32;
  Check(s, "gemm", 8);
  s.it = PrimitiveType::kF32;
  s.kt = PrimitiveType::kF16;
  s.ot = PrimitiveType::kF16;
  Check(s, "gemm", 9);
}

TEST(ConvTest, ThreadCountDoesNotChangeResults) {
  Spec s;
  s.batch = 2;
  s.in_f = 40;
  s.out_f = 150;
  s.win = {W(17, 3, 1, 1), W(13, 3, 1, 1)};
  const Problem p = Make(s);
  std::mt19937_64 rng(11);
  const auto in = Store(s.it, Values(s.it, Product(p.in_dims), rng));
  const auto k = Store(s.kt, Values(s.kt, Product(p.k_dims), rng));
  for (const ConvKernels* kernels : KernelSets()) {
    const auto one = RunSpec(p, in, k, *kernels, 1, nullptr);
    for (int threads : {2, 3, 5}) {
      EXPECT_EQ(RunSpec(p, in, k, *kernels, threads, nullptr), one)
          << kernels->name << " threads=" << threads;
    }
  }
}

// Operands of `s` (f32) scaled by 2^-70: their products lie below f32's
// smallest normal, where the FMA chain would round in the subnormal range,
// so the range guard must take the wide path, whose f64 sum of them is
// exact. With every kernel set at each of `threads`: the path is "wide"
// and each output the f64 reference (Reference, an independent loop over
// the dimensions) rounded once to f32.
void ExpectTinyOperandsTakeTheWidePath(const Spec& s, uint64_t seed,
                                       std::initializer_list<int> threads) {
  const Problem p = Make(s);
  std::mt19937_64 rng(seed);
  std::vector<double> x = Values(s.it, Product(p.in_dims), rng);
  std::vector<double> w = Values(s.kt, Product(p.k_dims), rng);
  for (double& v : x) v *= 0x1p-70;
  for (double& v : w) v *= 0x1p-70;
  const Ref ref = Reference(p, x, w);
  for (const ConvKernels* kernels : KernelSets()) {
    for (int t : threads) {
      std::string path;
      const auto out =
          RunSpec(p, Store(s.it, x), Store(s.kt, w), *kernels, t, &path);
      EXPECT_EQ(path, "wide") << kernels->name;
      for (size_t i = 0; i < ref.y.size(); ++i) {
        ASSERT_EQ(LoadOut(s.ot, out, i),
                  static_cast<double>(static_cast<float>(ref.y[i])))
            << kernels->name << " fgc=" << s.fgc << " bgc=" << s.bgc
            << " threads=" << t << " element " << i;
      }
    }
  }
}

TEST(ConvTest, RangeGuardTakesTheWidePath) {
  Spec s;
  s.in_f = 4;
  s.out_f = 10;
  s.win = {W(6, 3, 1, 1), W(5, 3, 1, 1)};
  ExpectTinyOperandsTakeTheWidePath(s, 3, {2});
  // An infinity in the input: NaN where it meets a zero product is not
  // possible here, so outputs whose window holds it are +-inf, others
  // finite.
  const Problem p = Make(s);
  std::mt19937_64 rng(4);
  std::vector<double> x = Values(s.it, Product(p.in_dims), rng);
  std::vector<double> w = Values(s.kt, Product(p.k_dims), rng);
  x[0] = INFINITY;
  const Ref inf_ref = Reference(p, x, w);
  for (const ConvKernels* kernels : KernelSets()) {
    std::string path;
    const auto out =
        RunSpec(p, Store(s.it, x), Store(s.kt, w), *kernels, 1, &path);
    EXPECT_EQ(path, "wide");
    for (size_t i = 0; i < inf_ref.y.size(); ++i) {
      const double v = LoadOut(s.ot, out, i);
      if (std::isinf(static_cast<double>(inf_ref.y[i]))) {
        EXPECT_EQ(v, static_cast<double>(inf_ref.y[i])) << i;
      } else {
        EXPECT_TRUE(std::isfinite(v)) << i;
      }
    }
  }
}

// The implicit-GEMM tile's own scan (conv_kernels.h `scan`): for flagged
// rows it must merge exactly max |x| and the smallest nonzero |x| of
// a_rows[i][a_off .. a_off + kc) (computed here from the values with
// std::fabs, not from bit patterns) and nothing of the unflagged rows, and
// its C must be bit-identical to the call without a scan. kc = 37: two full
// 16-lane blocks and a masked tail (f32), four full blocks and a tail (f64).
template <typename T, typename U, typename K>
void CheckTileScan(const char* name, K kernel, int64_t nr_full) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  constexpr int64_t kTaps = 2, kKc = 37, kOff = 3;
  std::vector<std::vector<T>> rows(kTaps * conv::kConvMr,
                                   std::vector<T>(kOff + kKc + 16));
  for (auto& r : rows) {
    for (T& v : r) v = static_cast<T>(u(rng));
  }
  // Distinct extremes in flagged rows, at the tail lane, a middle block and
  // the first element; larger / smaller ones outside [a_off, a_off + kc)
  // and in unflagged rows, which must not count.
  const std::vector<uint8_t> flags = {1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0};
  rows[0][kOff + kKc - 1] = static_cast<T>(-7.25);
  rows[2][kOff + 20] = static_cast<T>(0.125);
  rows[8][kOff] = static_cast<T>(-0.0625);
  rows[5][kOff + 16] = static_cast<T>(0);
  rows[1][kOff + 5] = static_cast<T>(100);     // unflagged
  rows[3][kOff + 5] = static_cast<T>(0.001);   // unflagged
  rows[0][kOff - 1] = static_cast<T>(-50);     // before a_off
  rows[2][kOff + kKc] = static_cast<T>(1e-3);  // past kc
  double want_max = 0, want_min = INFINITY;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!flags[i]) continue;
    for (int64_t k = kOff; k < kOff + kKc; ++k) {
      const double a = std::fabs(static_cast<double>(rows[i][k]));
      want_max = std::max(want_max, a);
      if (a != 0) want_min = std::min(want_min, a);
    }
  }
  ASSERT_EQ(want_max, 7.25);
  ASSERT_EQ(want_min, 0.0625);
  std::vector<const T*> ptrs;
  for (const auto& r : rows) ptrs.push_back(r.data());
  std::vector<T> b(kTaps * kKc * nr_full);
  for (T& v : b) v = static_cast<T>(u(rng));
  const int nr = static_cast<int>(nr_full) - 14;  // a masked edge in C
  for (int mr : {6, 4}) {
    std::vector<T> c0(conv::kConvMr * nr_full, 0), c1 = c0;
    T* r0[conv::kConvMr];
    T* r1[conv::kConvMr];
    for (int r = 0; r < conv::kConvMr; ++r) {
      r0[r] = c0.data() + r * nr_full;
      r1[r] = c1.data() + r * nr_full;
    }
    kernel(kTaps, kKc, ptrs.data(), kOff, b.data(), r0, mr, nr, false, nullptr,
           nullptr);
    U stats[2] = {0, static_cast<U>(~U{0})};
    kernel(kTaps, kKc, ptrs.data(), kOff, b.data(), r1, mr, nr, false,
           flags.data(), stats);
    EXPECT_EQ(c0, c1) << name << " mr=" << mr;
    T mx, mn;
    const U mn_bits = stats[1] + 1;
    std::memcpy(&mx, &stats[0], sizeof(T));
    std::memcpy(&mn, &mn_bits, sizeof(T));
    EXPECT_EQ(static_cast<double>(mx), want_max) << name;
    EXPECT_EQ(static_cast<double>(mn), want_min) << name;
  }
}

// The wide fallback over several batches and groups: its rows run group by
// group, each group's output rows from 0 again, so the strip cursor must
// start over at every group (and carry across batches within one). Tiny
// operands force the wide path; its f64 sum of these products is exact,
// so each output is the f64 reference rounded once to f32 (Reference, an
// independent loop over the dimensions).
TEST(ConvTest, WidePathAcrossBatchesAndGroups) {
  Spec f;
  f.batch = 2;
  f.in_f = 6;
  f.fgc = 3;
  f.out_f = 9;
  f.win = {W(5, 3, 1, 1), W(4, 2)};
  Spec b;
  b.batch = 4;
  b.bgc = 2;
  b.in_f = 3;
  b.out_f = 4;
  b.win = {W(4, 3, 1, 1), W(5, 2)};
  for (const Spec& s : {f, b}) ExpectTinyOperandsTakeTheWidePath(s, 11, {1, 2});
}

TEST(ConvTest, TileScanTakesTheRangeStatistics) {
  for (const ConvKernels* kernels : KernelSets()) {
    CheckTileScan<float, uint32_t>(kernels->name, kernels->f32,
                                   conv::kConvNrF32);
    CheckTileScan<double, uint64_t>(kernels->name, kernels->f64,
                                    conv::kConvNrF64);
  }
}

// The driver's in-tile scan (one channel chunk, input in place): a single
// subnormal or infinite input element, wherever it lies (first or a later
// strip, a full lane block or the masked tail of 37 channels, a row that
// only a later tap reads first), must send the convolution to the wide
// path; without it the fast path stands.
TEST(ConvTest, RangeGuardSeesEveryInputElementInTheTile) {
  for (int taps : {1, 3}) {
    Spec s;
    s.in_f = 37;
    s.out_f = 20;
    s.win = {W(9, taps, 1, taps / 2), W(7, taps, 1, taps / 2)};
    const Problem p = Make(s);
    std::mt19937_64 rng(5);
    const std::vector<double> x = Values(s.it, Product(p.in_dims), rng);
    const std::vector<double> w = Values(s.kt, Product(p.k_dims), rng);
    for (const ConvKernels* kernels : KernelSets()) {
      std::string path;
      RunSpec(p, Store(s.it, x), Store(s.kt, w), *kernels, 1, &path);
      EXPECT_EQ(path, "gemm") << kernels->name;
      const int64_t positions = 9 * 7;
      for (int64_t pos :
           {int64_t{0}, int64_t{13}, int64_t{40}, positions - 1}) {
        for (int64_t c : {0, 17, 36}) {
          for (double odd : {1e-40, static_cast<double>(INFINITY)}) {
            std::vector<double> xo = x;
            xo[pos * s.in_f + c] = odd;
            RunSpec(p, Store(s.it, xo), Store(s.kt, w), *kernels, 1, &path);
            EXPECT_EQ(path, "wide")
                << kernels->name << " taps=" << taps << " position " << pos
                << " channel " << c << " value " << odd;
          }
        }
      }
    }
  }
}

TEST(ConvTest, EmptySumsAreZero) {
  Spec s;
  s.in_f = 0;
  s.out_f = 5;
  s.win = {W(4, 2), W(3, 1)};
  const Problem p = Make(s);
  std::vector<uint8_t> out(Product(p.out_dims) * 4, 0xAB);
  ASSERT_TRUE(RunConvolution(p.d, nullptr, nullptr, out.data(), nullptr,
                             conv::HostConvKernels())
                  .ok());
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], 0) << i;
}

TEST(ConvTest, DescriptorRoundTripAndErrors) {
  Spec s;
  s.batch = 4;
  s.bgc = 2;
  s.in_f = 3;
  s.out_f = 4;
  s.win = {W(5, 3, 2, 1, 2, 3, true)};
  const Problem p = Make(s);
  const std::vector<int64_t> desc = EncodeConvDims(p.d);
  absl::StatusOr<ConvDims> back = DecodeConvDims(desc.data());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(EncodeConvDims(*back), desc);
  std::vector<int64_t> bad = desc;
  bad[0] = 99;
  EXPECT_EQ(DecodeConvDims(bad.data()).status().code(),
            absl::StatusCode::kInvalidArgument);
  ConvDims wrong = p.d;
  wrong.input_batch = 3;  // not output batch x batch groups
  float buf[64] = {};
  EXPECT_EQ(
      RunConvolution(wrong, buf, buf, buf, nullptr, conv::HostConvKernels())
          .code(),
      absl::StatusCode::kInvalidArgument);
  ConvDims ints = p.d;
  ints.input_type = ints.kernel_type = PrimitiveType::kS8;
  ints.output_type = PrimitiveType::kS32;
  EXPECT_EQ(
      RunConvolution(ints, buf, buf, buf, nullptr, conv::HostConvKernels())
          .code(),
      absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace hloref::cpu
