// Unit tests of the dot runtime (gemm.h) and its microkernels against an
// independent reference: a naive long-double loop in this file (exact for
// the products of f32 / narrow operands, 64-bit significand sums), judged
// with the class-A bound of docs/numerics.md 7.3 (gamma_K(u) * S plus half
// an ulp of the result); integers exactly (int64 sums wrapped to 32 bits).
#include "backends/cpu/runtime/gemm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/runtime/kernel_support.h"
#include "backends/cpu/runtime/thread_pool.h"
#include "gtest/gtest.h"
#include "spec/types/minifloat.h"

namespace hloref::cpu {
namespace {

using gemm::GemmKernels;

// Kernel sets to test: the portable one and, when the host has it, AVX-512.
std::vector<const GemmKernels*> KernelSets() {
  std::vector<const GemmKernels*> v = {&gemm::PortableGemmKernels()};
  if (const GemmKernels* k = gemm::Avx2GemmKernels()) v.push_back(k);
  if (const GemmKernels* k = gemm::Avx512GemmKernels()) v.push_back(k);
  return v;
}

// A [batch, M, K] x [batch, K, N] problem with a layout per operand:
// lhs_kmajor puts M innermost ("transposed A"), rhs_nminor keeps N
// innermost (row-major B), out_nminor N innermost.
struct Layout {
  bool lhs_kmajor = false, rhs_nminor = true, out_nminor = true;
};

DotDims MakeDims(PrimitiveType lt, PrimitiveType rt, PrimitiveType ot,
                 int64_t batch, int64_t m, int64_t n, int64_t k,
                 Layout layout) {
  DotDims d;
  d.lhs_type = lt;
  d.rhs_type = rt;
  d.out_type = ot;
  // lhs [batch][m][k] or [batch][k][m]; rhs [batch][k][n] or [batch][n][k];
  // out [batch][m][n] or [batch][n][m].
  const int64_t ls_m = layout.lhs_kmajor ? 1 : k;
  const int64_t ls_k = layout.lhs_kmajor ? m : 1;
  const int64_t rs_n = layout.rhs_nminor ? 1 : k;
  const int64_t rs_k = layout.rhs_nminor ? n : 1;
  const int64_t os_m = layout.out_nminor ? n : 1;
  const int64_t os_n = layout.out_nminor ? 1 : m;
  if (batch > 1) d.batch.push_back({batch, m * k, k * n, m * n});
  d.m.push_back({m, ls_m, 0, os_m});
  d.n.push_back({n, 0, rs_n, os_n});
  d.k.push_back({k, ls_k, rs_k, 0});
  return d;
}

int64_t Offset(const std::vector<DotDims::Dim>& g, int64_t i,
               int64_t DotDims::Dim::*s) {
  // Single-dimension groups in these tests.
  return g.empty() ? 0 : i * (g[0].*s);
}

// Reference: y and S per output element (long double, k order).
struct Ref {
  std::vector<long double> y, s;
};
template <typename A, typename B>
Ref Reference(const DotDims& d, const std::vector<A>& a,
              const std::vector<B>& b, long double (*la)(A),
              long double (*lb)(B)) {
  const int64_t nb = d.batch.empty() ? 1 : d.batch[0].size;
  const int64_t m = d.m[0].size, n = d.n[0].size, k = d.k[0].size;
  Ref r;
  r.y.assign(nb * m * n, 0);
  r.s.assign(nb * m * n, 0);
  using D = DotDims::Dim;
  for (int64_t bi = 0; bi < nb; ++bi) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        long double y = 0, s = 0;
        for (int64_t q = 0; q < k; ++q) {
          const long double t = la(a[Offset(d.batch, bi, &D::lhs) +
                                     i * d.m[0].lhs + q * d.k[0].lhs]) *
                                lb(b[Offset(d.batch, bi, &D::rhs) +
                                     j * d.n[0].rhs + q * d.k[0].rhs]);
          y += t;
          s += std::fabs(t);
        }
        const int64_t o =
            Offset(d.batch, bi, &D::out) + i * d.m[0].out + j * d.n[0].out;
        r.y[o] = y;
        r.s[o] = s;
      }
    }
  }
  return r;
}

long double FromF32(float v) { return v; }
long double FromF64(double v) { return v; }
long double FromBf16(uint16_t v) {
  return DecodeFloat(FormatOf(PrimitiveType::kBF16), v);
}

// The class-A bound for an accumulation in unit u (m = K steps) plus half
// an ulp of the result type at y.
long double Bound(long double s, int64_t k, double u, long double half_ulp) {
  const long double g = k * u / (1 - k * u);
  return g * s + half_ulp;
}

double HalfUlpF32(long double y) {
  const double a = std::fabs(static_cast<double>(y));
  if (a < 0x1p-126) return 0x1p-150;
  return std::ldexp(1.0, std::ilogb(a) - 24);
}
long double HalfUlpF64(long double y) {
  const double a = std::fabs(static_cast<double>(y));
  if (a < 0x1p-1022) return 0x1p-1075L;  // (not representable as a double)
  return std::ldexp(1.0, std::ilogb(a) - 53);
}

std::vector<float> RandomF32(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// Shapes across every edge class of the 6 x 64 tile and the K blocking.
const std::vector<std::tuple<int64_t, int64_t, int64_t>> kShapes = {
    {1, 1, 1},     {1, 64, 1},    {5, 63, 7},     {6, 64, 8},
    {7, 65, 9},    {13, 129, 33}, {37, 200, 300}, {64, 64, 64},
    {100, 3, 257}, {2, 500, 600}, {130, 70, 513}, {16, 1000, 100}};

// The results' bf16 rounding (kernel_support.h F32BitsToBf16) against the
// spec's encoder: every 257th f32 bit pattern (both signs, subnormals,
// every binade, ties to even at many offsets, NaN payloads) and the
// boundaries by hand: the largest finite f32 and bf16's overflow
// threshold (0x7F7F8000 rounds to inf, 0x7F7F7FFF to bf16's largest),
// infinities, a quiet and a signalling NaN whose kept payload bits are 0.
TEST(KernelSupport, F32ToBf16MatchesTheSpecEncoder) {
  const FloatFormat& bf16 = FormatOf(PrimitiveType::kBF16);
  std::vector<uint32_t> bits = {0x00000000, 0x80000000, 0x00000001, 0x00007FFF,
                                0x00008000, 0x00018000, 0x7F7FFFFF, 0x7F7F8000,
                                0x7F7F7FFF, 0x7F800000, 0xFF800000, 0x7FC00000,
                                0x7F800001, 0xFF80FFFF, 0x3F808000, 0x3F818000};
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 257) {
    bits.push_back(static_cast<uint32_t>(u));
  }
  int64_t wrong = 0;
  for (uint32_t u : bits) {
    const uint64_t want = EncodeFloatFromF32Bits(bf16, u);
    const uint16_t got = kernel_support::F32BitsToBf16(u);
    if (got != want && ++wrong <= 5) {
      ADD_FAILURE() << std::hex << "0x" << u << " -> 0x" << got << ", want 0x"
                    << want;
    }
  }
  EXPECT_EQ(wrong, 0);
  // The kernels' row conversion (GemmKernels::f32_to_bf16) of every kernel
  // set the host runs, over the same patterns in one call of an odd length
  // (a masked or scalar last part), against the spec's encoder.
  if (bits.size() % 2 == 0) bits.push_back(0x00000002);  // an odd count
  std::vector<float> src(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) {
    src[i] = std::bit_cast<float>(bits[i]);
  }
  for (const gemm::GemmKernels* k : KernelSets()) {
    ASSERT_NE(k->f32_to_bf16, nullptr) << k->name;
    std::vector<uint16_t> dst(src.size() + 1, 0xABCD);
    k->f32_to_bf16(src.data(), dst.data(), static_cast<int64_t>(src.size()));
    int64_t bad = 0;
    for (size_t i = 0; i < bits.size(); ++i) {
      if (dst[i] != EncodeFloatFromF32Bits(bf16, bits[i]) && ++bad <= 5) {
        ADD_FAILURE() << k->name << std::hex << " 0x" << bits[i] << " -> 0x"
                      << dst[i];
      }
    }
    EXPECT_EQ(bad, 0) << k->name;
    EXPECT_EQ(dst.back(), 0xABCD) << k->name << " wrote past the row";
  }
}

TEST(GemmTest, F32MatchesLongDoubleReference) {
  for (const GemmKernels* kernels : KernelSets()) {
    for (const auto& [m, n, k] : kShapes) {
      for (int lay = 0; lay < 8; ++lay) {
        const Layout layout{(lay & 1) != 0, (lay & 2) == 0, (lay & 4) == 0};
        const int64_t batch = lay == 5 ? 3 : 1;
        const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                                   PrimitiveType::kF32, batch, m, n, k, layout);
        const std::vector<float> a = RandomF32(batch * m * k, 1 + m);
        const std::vector<float> b = RandomF32(batch * k * n, 2 + n);
        std::vector<float> c(batch * m * n, NAN);
        ASSERT_TRUE(
            RunDot(d, a.data(), b.data(), c.data(), nullptr, *kernels).ok());
        EXPECT_FALSE(LastDotUsedWideFallback());
        const Ref r = Reference(d, a, b, FromF32, FromF32);
        for (size_t i = 0; i < c.size(); ++i) {
          const long double err = std::fabs(c[i] - r.y[i]);
          ASSERT_LE(err, Bound(r.s[i], k, 0x1p-24, HalfUlpF32(r.y[i])))
              << kernels->name << " m=" << m << " n=" << n << " k=" << k
              << " layout=" << lay << " element " << i << ": got " << c[i]
              << ", exact " << static_cast<double>(r.y[i]);
        }
      }
    }
  }
}

TEST(GemmTest, ThreadCountDoesNotChangeResults) {
  ThreadPool two(2), three(3);
  for (const auto& [m, n, k] : kShapes) {
    const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                               PrimitiveType::kF32, 2, m, n, k, Layout{});
    const std::vector<float> a = RandomF32(2 * m * k, 3);
    const std::vector<float> b = RandomF32(2 * k * n, 4);
    std::vector<float> c1(2 * m * n), c2(2 * m * n), c3(2 * m * n);
    const GemmKernels& kern = gemm::HostGemmKernels();
    ASSERT_TRUE(RunDot(d, a.data(), b.data(), c1.data(), nullptr, kern).ok());
    ASSERT_TRUE(RunDot(d, a.data(), b.data(), c2.data(), &two, kern).ok());
    ASSERT_TRUE(RunDot(d, a.data(), b.data(), c3.data(), &three, kern).ok());
    EXPECT_EQ(0, std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(float)))
        << m << "x" << n << "x" << k;
    EXPECT_EQ(0, std::memcmp(c1.data(), c3.data(), c1.size() * sizeof(float)))
        << m << "x" << n << "x" << k;
  }
}

// A B of one 64-wide panel with contiguous rows ([batch][k][64]: the
// packed layout itself) is read in place; the same values with rows 80
// floats apart are packed. Both must give the same bits: K of 1000 (three
// K blocks, so each block's rows start at its own offset), batch 3, 1 and
// 2 threads, and a second B whose column 5 is all subnormal (fast-path
// blocks with subnormal entries are repacked and flushed).
TEST(GemmTest, OnePanelBInPlaceMatchesThePackedBitForBit) {
  const GemmKernels& kern = gemm::HostGemmKernels();
  ThreadPool two(2);
  const int64_t batch = 3, m = 40, n = gemm::kGemmNrF32, k = 1000;
  const int64_t padded = n + 16;
  const std::vector<float> a = RandomF32(batch * m * k, 31);
  for (int variant = 0; variant < 2; ++variant) {
    std::vector<float> b = RandomF32(batch * k * n, 32 + variant);
    if (variant == 1) {
      for (int64_t i = 0; i < batch * k; ++i) b[i * n + 5] = 0x1p-130f;
    }
    std::vector<float> bp(batch * k * padded, 7.0f);
    for (int64_t i = 0; i < batch * k; ++i) {
      std::copy(b.begin() + i * n, b.begin() + (i + 1) * n,
                bp.begin() + i * padded);
    }
    const DotDims in_place =
        MakeDims(PrimitiveType::kF32, PrimitiveType::kF32, PrimitiveType::kF32,
                 batch, m, n, k, Layout{});
    DotDims packed = in_place;
    packed.k[0].rhs = padded;
    packed.batch[0].rhs = k * padded;
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
      std::vector<float> c1(batch * m * n), c2(batch * m * n);
      ASSERT_TRUE(
          RunDot(in_place, a.data(), b.data(), c1.data(), pool, kern).ok());
      ASSERT_TRUE(
          RunDot(packed, a.data(), bp.data(), c2.data(), pool, kern).ok());
      EXPECT_EQ(0, std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(float)))
          << "variant " << variant << " threads " << (pool ? 2 : 1);
    }
  }
}

TEST(GemmTest, F64MatchesLongDoubleReference) {
  for (const GemmKernels* kernels : KernelSets()) {
    for (const auto& [m, n, k] : kShapes) {
      const Layout layout{m % 2 == 1, n % 2 == 0, true};
      const DotDims d = MakeDims(PrimitiveType::kF64, PrimitiveType::kF64,
                                 PrimitiveType::kF64, 1, m, n, k, layout);
      std::mt19937 rng(m * n);
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      std::vector<double> a(m * k), b(k * n), c(m * n, NAN);
      for (auto& x : a) x = u(rng);
      for (auto& x : b) x = u(rng);
      ASSERT_TRUE(
          RunDot(d, a.data(), b.data(), c.data(), nullptr, *kernels).ok());
      const Ref r = Reference(d, a, b, FromF64, FromF64);
      for (size_t i = 0; i < c.size(); ++i) {
        // The reference's own error: K roundings of a 64-bit significand.
        const long double ref_err = k * 0x1p-64L * r.s[i];
        ASSERT_LE(std::fabs(c[i] - r.y[i]),
                  Bound(r.s[i], k, 0x1p-53, HalfUlpF64(r.y[i])) + ref_err)
            << kernels->name << " " << m << "x" << n << "x" << k;
      }
    }
  }
}

TEST(GemmTest, Bf16OperandsAndResult) {
  const FloatFormat& bf16 = FormatOf(PrimitiveType::kBF16);
  // Every layout: the widening copies (row-major B rows, A along K) and
  // the gathers of the other layouts.
  for (int lay = 0; lay < 8; ++lay)
    for (const GemmKernels* kernels : KernelSets()) {
      const Layout layout{(lay & 1) != 0, (lay & 2) == 0, (lay & 4) == 0};
      const int64_t m = 19, n = 77, k = 300;
      const DotDims d = MakeDims(PrimitiveType::kBF16, PrimitiveType::kBF16,
                                 PrimitiveType::kBF16, 1, m, n, k, layout);
      const std::vector<float> af = RandomF32(m * k, 5),
                               bf = RandomF32(k * n, 6);
      std::vector<uint16_t> a(m * k), b(k * n), c(m * n);
      for (size_t i = 0; i < a.size(); ++i) a[i] = EncodeFloat(bf16, af[i]);
      for (size_t i = 0; i < b.size(); ++i) b[i] = EncodeFloat(bf16, bf[i]);
      ASSERT_TRUE(
          RunDot(d, a.data(), b.data(), c.data(), nullptr, *kernels).ok());
      const Ref r = Reference(d, a, b, FromBf16, FromBf16);
      for (size_t i = 0; i < c.size(); ++i) {
        const long double got = DecodeFloat(bf16, c[i]);
        // Tighter than the suite's bound (which allows accumulation in
        // bf16): f32 accumulation, then one rounding to bf16.
        const double big = std::max(std::fabs(static_cast<double>(r.y[i])),
                                    std::fabs(static_cast<double>(got)));
        const double half_ulp = std::ldexp(1.0, std::ilogb(big) - 8);
        ASSERT_LE(std::fabs(got - r.y[i]),
                  Bound(r.s[i], k, 0x1p-24, 0) * 1.01 + half_ulp)
            << kernels->name << " layout " << lay << " element " << i;
      }
    }
}

long double FromF16(uint16_t v) {
  return DecodeFloat(FormatOf(PrimitiveType::kF16), v);
}

// 16-bit float operands into an f32 result: a bf16 / f16 A with K
// contiguous is widened row by row for the row kernel (and a row-major B
// while packing), the other layouts gathered; f16 x f16, bf16 x bf16 and
// each with an f32 operand, every edge shape, values including f16
// subnormals (exact products; normal in f32). Class-A bound against the
// long-double reference.
TEST(GemmTest, SixteenBitOperandsIntoF32MatchLongDoubleReference) {
  const FloatFormat& f16 = FormatOf(PrimitiveType::kF16);
  const FloatFormat& bf16 = FormatOf(PrimitiveType::kBF16);
  for (PrimitiveType t : {PrimitiveType::kF16, PrimitiveType::kBF16}) {
    const FloatFormat& f = t == PrimitiveType::kF16 ? f16 : bf16;
    auto from = t == PrimitiveType::kF16 ? FromF16 : FromBf16;
    for (const GemmKernels* kernels : KernelSets()) {
      for (const auto& [m, n, k] : kShapes) {
        for (int lay : {0, 1, 2, 5}) {
          const Layout layout{(lay & 1) != 0, (lay & 2) == 0, (lay & 4) == 0};
          const int64_t batch = lay == 5 ? 2 : 1;
          std::vector<float> af = RandomF32(batch * m * k, 11 + m),
                             bf = RandomF32(batch * k * n, 12 + n);
          std::vector<uint16_t> a(af.size()), b(bf.size());
          for (size_t i = 0; i < a.size(); ++i) {
            // Every 7th A entry an f16 subnormal (bf16: a tiny normal).
            const double v = i % 7 == 3 ? af[i] * 0x1p-16 : af[i];
            a[i] = static_cast<uint16_t>(EncodeFloat(f, v));
          }
          for (size_t i = 0; i < b.size(); ++i) {
            b[i] = static_cast<uint16_t>(EncodeFloat(f, bf[i]));
          }
          // t x t, then t x f32 (B as the f32 values of its encodings).
          for (int mixed = 0; mixed < 2; ++mixed) {
            const DotDims d =
                MakeDims(t, mixed ? PrimitiveType::kF32 : t,
                         PrimitiveType::kF32, batch, m, n, k, layout);
            std::vector<float> bw(b.size());
            for (size_t i = 0; i < b.size(); ++i) {
              bw[i] = static_cast<float>(from(b[i]));
            }
            std::vector<float> c(batch * m * n, NAN);
            const void* rhs = mixed ? static_cast<const void*>(bw.data())
                                    : static_cast<const void*>(b.data());
            ASSERT_TRUE(
                RunDot(d, a.data(), rhs, c.data(), nullptr, *kernels).ok());
            EXPECT_FALSE(LastDotUsedWideFallback());
            const Ref r = mixed ? Reference(d, a, bw, from, FromF32)
                                : Reference(d, a, b, from, from);
            for (size_t i = 0; i < c.size(); ++i) {
              ASSERT_LE(std::fabs(c[i] - r.y[i]),
                        Bound(r.s[i], k, 0x1p-24, HalfUlpF32(r.y[i])))
                  << kernels->name << " " << PrimitiveTypeName(t)
                  << (mixed ? " x f32" : "") << " m=" << m << " n=" << n
                  << " k=" << k << " layout=" << lay << " element " << i
                  << ": got " << c[i] << ", exact "
                  << static_cast<double>(r.y[i]);
            }
          }
        }
      }
    }
  }
}

TEST(GemmTest, IntegersWrapExactly) {
  for (const GemmKernels* kernels : KernelSets()) {
    for (PrimitiveType lt : {PrimitiveType::kS8, PrimitiveType::kU8}) {
      for (PrimitiveType rt : {PrimitiveType::kS8, PrimitiveType::kU8}) {
        // K = 40001 (odd: a padded pair) with u8 x u8 up to 255 * 255 sums
        // past 2^31, so the s32 result wraps.
        for (const auto& [m, n, k] :
             std::vector<std::tuple<int64_t, int64_t, int64_t>>{
                 {7, 67, 513}, {3, 5, 40001}, {64, 64, 64}}) {
          const Layout layout{m == 7, n != 67, true};
          const DotDims d =
              MakeDims(lt, rt, PrimitiveType::kS32, 1, m, n, k, layout);
          std::mt19937 rng(k);
          std::vector<uint8_t> a(m * k), b(k * n);
          for (auto& x : a) x = k == 40001 ? 200 + rng() % 56 : rng() & 0xff;
          for (auto& x : b) x = k == 40001 ? 200 + rng() % 56 : rng() & 0xff;
          std::vector<int32_t> c(m * n);
          ASSERT_TRUE(
              RunDot(d, a.data(), b.data(), c.data(), nullptr, *kernels).ok());
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              int64_t sum = 0;
              for (int64_t q = 0; q < k; ++q) {
                const uint8_t x = a[i * d.m[0].lhs + q * d.k[0].lhs];
                const uint8_t y = b[j * d.n[0].rhs + q * d.k[0].rhs];
                const int64_t xv = lt == PrimitiveType::kS8
                                       ? int64_t{static_cast<int8_t>(x)}
                                       : int64_t{x};
                const int64_t yv = rt == PrimitiveType::kS8
                                       ? int64_t{static_cast<int8_t>(y)}
                                       : int64_t{y};
                sum += xv * yv;
              }
              ASSERT_EQ(static_cast<int32_t>(static_cast<uint32_t>(sum)),
                        c[i * d.m[0].out + j * d.n[0].out])
                  << kernels->name << " " << m << "x" << n << "x" << k;
            }
          }
        }
      }
    }
  }
}

// 8-bit A panels of six rows with K contiguous (GemmKernels::pack_a_words
// on the VNNI set: four quads at a time, then single quads, then the tail
// bytes): M = 13 (two six-row panels and one row), every K class against
// an exact s64 sum wrapped to s32.
TEST(GemmTest, EightBitRowPanelsMatchTheExactSum) {
  for (const GemmKernels* kernels : KernelSets()) {
    for (PrimitiveType lt : {PrimitiveType::kS8, PrimitiveType::kU8}) {
      for (PrimitiveType rt : {PrimitiveType::kS8, PrimitiveType::kU8}) {
        for (int64_t k : {16, 20, 37, 70, 515}) {
          const int64_t m = 13, n = 70;
          const DotDims d =
              MakeDims(lt, rt, PrimitiveType::kS32, 1, m, n, k, Layout{});
          std::mt19937 rng(static_cast<unsigned>(k));
          std::vector<uint8_t> a(m * k), b(k * n);
          for (auto& x : a) x = rng() & 0xff;
          for (auto& x : b) x = rng() & 0xff;
          std::vector<int32_t> c(m * n);
          ASSERT_TRUE(
              RunDot(d, a.data(), b.data(), c.data(), nullptr, *kernels).ok());
          auto value = [](PrimitiveType t, uint8_t x) {
            return t == PrimitiveType::kS8 ? int64_t{static_cast<int8_t>(x)}
                                           : int64_t{x};
          };
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              int64_t sum = 0;
              for (int64_t q = 0; q < k; ++q) {
                sum += value(lt, a[i * k + q]) * value(rt, b[q * n + j]);
              }
              ASSERT_EQ(static_cast<int32_t>(static_cast<uint32_t>(sum)),
                        c[i * n + j])
                  << kernels->name << " k = " << k << " row " << i << " col "
                  << j;
            }
          }
        }
      }
    }
  }
}

// The bf16 paths' statistics of A rows taken on the bit patterns
// (Bf16DotKernels::scan) against a plain loop over the f32 values' bits
// (each bf16 value is its bits shifted up 16): lengths around the 32-lane
// step (masked tails), all zeros (the min stays at its identity), both
// zero signs, subnormals, the extremes, infinities and NaNs, and starting
// statistics that the data must not lower or raise.
TEST(GemmTest, Bf16ScanOnBitPatternsMatchesTheF32Statistics) {
  const gemm::Bf16DotKernels* bk = gemm::HostBf16DotKernels();
  if (bk == nullptr) GTEST_SKIP() << "no AVX512_BF16 on this host";
  std::mt19937 rng(99);
  const std::vector<uint16_t> specials = {0x0000, 0x8000, 0x0001, 0x8001,
                                          0x007f, 0x0080, 0x7f7f, 0xff7f,
                                          0x7f80, 0xff80, 0x7fc1, 0xffc0};
  for (int64_t n : {0, 1, 31, 32, 33, 64, 95, 1000}) {
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<uint16_t> v(n);
      for (auto& x : v) {
        switch (kind) {
          case 0:  // zeros of both signs only
            x = rng() % 2 ? 0x8000 : 0x0000;
            break;
          case 1:  // anything
            x = static_cast<uint16_t>(rng());
            break;
          case 2:  // finite normals and subnormals, some zeros
            x = static_cast<uint16_t>(rng() % 5 == 0 ? 0 : rng() % 0x7f80) |
                (rng() % 2 ? 0x8000 : 0);
            break;
          default:
            x = specials[rng() % specials.size()];
        }
      }
      for (const auto& [mx0, mn0] : std::vector<std::pair<uint32_t, uint32_t>>{
               {0u, 0xFFFFFFFFu}, {0x3f800000u, 0x3f7fffffu}}) {
        uint32_t want_mx = mx0, want_mn = mn0;
        for (uint16_t x : v) {
          const uint32_t u = uint32_t{static_cast<uint16_t>(x & 0x7fff)} << 16;
          want_mx = std::max(want_mx, u);
          want_mn = std::min(want_mn, u - 1);
        }
        uint32_t mx = mx0, mn = mn0;
        bk->scan(v.data(), n, &mx, &mn);
        EXPECT_EQ(mx, want_mx) << "n=" << n << " kind=" << kind;
        EXPECT_EQ(mn, want_mn) << "n=" << n << " kind=" << kind;
      }
    }
  }
}

// The K-contiguous pair packer against the layout written out element by
// element here: pair q of column j at panel j / 64, offset q * 128 +
// 2 * (j % 64) + h, holding B[k = 2q + h][j] = src[j * ld + 2q + h], zero
// for 2q + h >= kc and for the last panel's columns past n; the range
// guard's statistics of the n x kc values (only those) as the scan test
// computes them. kc odd and even, across the 32-value chunks; n across
// the 16-column blocks and the 64-column panels; an odd row stride and a
// source at an odd element offset (unaligned words); NaN, infinity,
// subnormal and zero patterns. The padding bytes of dst start as 0xAB, so
// a pair or column left unwritten shows up.
TEST(GemmKernelTest, Bf16PairsOfAKContiguousBAreTheRowMajorLayout) {
  const gemm::Bf16DotKernels* bk = gemm::HostBf16DotKernels();
  if (bk == nullptr) GTEST_SKIP() << "no AVX512_BF16 on this host";
  std::mt19937 rng(7);
  const std::vector<uint16_t> specials = {0x0000, 0x8000, 0x0001, 0x8001,
                                          0x7f80, 0xff80, 0x7fc1, 0x3f80};
  for (int64_t kc : {1, 2, 31, 32, 33, 64, 65}) {
    for (int64_t n : {1, 15, 16, 17, 64, 65, 130}) {
      const int64_t ld = kc + 3;  // odd for even kc, even for odd kc
      std::vector<uint16_t> buf(1 + n * ld);
      for (auto& x : buf) {
        x = rng() % 8 == 0 ? specials[rng() % specials.size()]
                           : static_cast<uint16_t>(rng());
      }
      const uint16_t* src = buf.data() + 1;
      const int64_t kp = (kc + 1) / 2, panels = (n + 63) / 64;
      const int64_t panel_stride = kp * 128 + 32;  // a gap between panels
      std::vector<uint16_t> want(panels * panel_stride, 0xABAB);
      std::vector<uint16_t> got = want;
      uint32_t want_mx = 0, want_mn = 0xFFFFFFFFu;
      for (int64_t j = 0; j < panels * 64; ++j) {
        for (int64_t q = 0; q < kp; ++q) {
          for (int h = 0; h < 2; ++h) {
            const int64_t k = 2 * q + h;
            const bool in = j < n && k < kc;
            const uint16_t x = in ? src[j * ld + k] : 0;
            want[(j / 64) * panel_stride + q * 128 + 2 * (j % 64) + h] = x;
            if (!in) continue;
            const uint32_t u = uint32_t{static_cast<uint16_t>(x & 0x7fff)}
                               << 16;
            want_mx = std::max(want_mx, u);
            want_mn = std::min(want_mn, u - 1);
          }
        }
      }
      uint32_t mx = 0, mn = 0xFFFFFFFFu;
      bk->pack_b_kt(src, ld, kc, n, got.data(), panel_stride, &mx, &mn);
      ASSERT_EQ(got, want) << "kc=" << kc << " n=" << n;
      EXPECT_EQ(mx, want_mx) << "kc=" << kc << " n=" << n;
      EXPECT_EQ(mn, want_mn) << "kc=" << kc << " n=" << n;
    }
  }
}

// 8-bit integers on AMX (tdpbssd / tdpbsud / tdpbusd / tdpbuud), where the
// host has it: every signedness pair, every edge of the 32-row panels
// (mr = 1, 16, 17, 31, 32, 33 and a 70-row chunk), of the 16-column tiles
// and 64-column panels (n = 1 .. 130), of the 16-quad tile depth (k not a
// multiple of 4 or of 64) and several K blocks (k = 1100 > KC, the C
// accumulation between blocks); transposed A and B (the element-by-element
// packing), a column-major C (the scratch), a batch, 1 and 2 threads. The
// expected values are int64 sums of the byte products reduced modulo 2^32
// (computed here); k = 160001 with bytes near 255 (u8) or -128 (s8) makes
// the s32 sums wrap. The run must say it used AMX.
TEST(GemmTest, IntegersOnAmxMatchTheWrappedReference) {
  const GemmKernels* kernels = gemm::Avx512GemmKernels();
  if (kernels == nullptr || gemm::HostI8AmxKernel() == nullptr) {
    GTEST_SKIP() << "no AMX-INT8 on this host (or the OS refuses the tile "
                    "state)";
  }
  SetAmxAllowed(true);
  ThreadPool two(2);
  struct Case {
    int64_t batch, m, n, k;
    Layout layout;
  };
  std::vector<Case> cases;
  for (int64_t m : {1, 16, 17, 31, 32, 33, 70}) {
    for (int64_t n : {1, 15, 17, 33, 64, 65, 130}) {
      for (int64_t k : {1, 3, 64, 65, 1100}) {
        if (m * n * k > 2000000) continue;
        cases.push_back({1, m, n, k, Layout{}});
      }
    }
  }
  cases.push_back({2, 33, 65, 130, Layout{true, true, true}});
  cases.push_back({2, 17, 70, 301, Layout{false, false, false}});
  cases.push_back({1, 40, 20, 99, Layout{true, false, true}});
  cases.push_back({1, 3, 17, 160001, Layout{}});
  for (PrimitiveType lt : {PrimitiveType::kS8, PrimitiveType::kU8}) {
    for (PrimitiveType rt : {PrimitiveType::kS8, PrimitiveType::kU8}) {
      for (const Case& cs : cases) {
        const DotDims d = MakeDims(lt, rt, PrimitiveType::kS32, cs.batch, cs.m,
                                   cs.n, cs.k, cs.layout);
        std::mt19937 rng(static_cast<uint32_t>(cs.m * 131 + cs.n * 7 + cs.k));
        const bool wrap = cs.k == 160001;
        auto byte = [&](PrimitiveType t) -> uint8_t {
          if (!wrap) return static_cast<uint8_t>(rng() & 0xff);
          // Operands in 200..255 (u8) or -128..-118 (s8): every product
          // is at least 118^2, so 160001 of them pass 2^31 in magnitude
          // whatever the signedness pair.
          return t == PrimitiveType::kU8
                     ? static_cast<uint8_t>(200 + rng() % 56)
                     : static_cast<uint8_t>(static_cast<int8_t>(
                           -128 + static_cast<int>(rng() % 11)));
        };
        std::vector<uint8_t> a(cs.batch * cs.m * cs.k),
            b(cs.batch * cs.k * cs.n);
        for (auto& x : a) x = byte(lt);
        for (auto& x : b) x = byte(rt);
        std::vector<int32_t> want(cs.batch * cs.m * cs.n);
        bool wrapped = false;
        for (int64_t bi = 0; bi < cs.batch; ++bi) {
          for (int64_t i = 0; i < cs.m; ++i) {
            for (int64_t j = 0; j < cs.n; ++j) {
              int64_t sum = 0;
              for (int64_t q = 0; q < cs.k; ++q) {
                const uint8_t x = a[Offset(d.batch, bi, &DotDims::Dim::lhs) +
                                    i * d.m[0].lhs + q * d.k[0].lhs];
                const uint8_t y = b[Offset(d.batch, bi, &DotDims::Dim::rhs) +
                                    j * d.n[0].rhs + q * d.k[0].rhs];
                sum +=
                    (lt == PrimitiveType::kS8 ? int64_t{static_cast<int8_t>(x)}
                                              : int64_t{x}) *
                    (rt == PrimitiveType::kS8 ? int64_t{static_cast<int8_t>(y)}
                                              : int64_t{y});
              }
              wrapped |= sum > INT32_MAX || sum < INT32_MIN;
              want[Offset(d.batch, bi, &DotDims::Dim::out) + i * d.m[0].out +
                   j * d.n[0].out] =
                  static_cast<int32_t>(static_cast<uint32_t>(sum));
            }
          }
        }
        if (wrap) {
          ASSERT_TRUE(wrapped) << "the wrap case does not wrap";
        }
        for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
          std::vector<int32_t> c(want.size(), 0x5a5a5a5a);
          ASSERT_TRUE(
              RunDot(d, a.data(), b.data(), c.data(), pool, *kernels).ok());
          EXPECT_TRUE(LastDotUsedAmx());
          for (size_t i = 0; i < c.size(); ++i) {
            ASSERT_EQ(c[i], want[i])
                << PrimitiveTypeName(lt) << " x " << PrimitiveTypeName(rt)
                << " batch=" << cs.batch << " m=" << cs.m << " n=" << cs.n
                << " k=" << cs.k << " threads=" << (pool ? 2 : 1) << " element "
                << i;
          }
        }
      }
    }
  }
}

// Every product below f32's smallest normal (S < 2^-126 in every
// element): an FMA chain could lose more than the bound allows. The
// portable kernels (no FMA chain) take the whole-dot wide fallback; the
// AVX-512 ones keep their result but recompute every element below
// 2^-125, which here is all of them. Either way each element is one
// rounding of a (nearly exact) f64 sum.
TEST(GemmTest, TinyProductsAreRecomputedWide) {
  const int64_t m = 8, n = 70, k = 100;
  const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                             PrimitiveType::kF32, 1, m, n, k, Layout{});
  std::vector<float> a = RandomF32(m * k, 7), b = RandomF32(k * n, 8);
  for (auto& x : a) x *= 0x1p-70f;
  for (auto& x : b) x *= 0x1p-70f;
  const Ref r = Reference(d, a, b, FromF32, FromF32);
  for (const GemmKernels* kernels : KernelSets()) {
    std::vector<float> c(m * n);
    ASSERT_TRUE(
        RunDot(d, a.data(), b.data(), c.data(), nullptr, *kernels).ok());
    if (kernels->fma_chain) {
      EXPECT_FALSE(LastDotUsedWideFallback());
      EXPECT_EQ(LastDotSmallResultsRecomputed(), m * n);
    } else {
      EXPECT_TRUE(LastDotUsedWideFallback());
      EXPECT_EQ(LastDotSmallResultsRecomputed(), -1);
    }
    for (size_t i = 0; i < c.size(); ++i) {
      ASSERT_LE(std::fabs(c[i] - r.y[i]), 0x1p-150L + 0x1p-170L)
          << kernels->name << " " << i;
    }
  }
}

// A [m x k] of softmax-like rows: mostly normal values with subnormal
// ones mixed in (exp of very negative logits), rows 1 and m-2 entirely
// subnormal (S < 2^-126 in their elements: those must be recomputed), and
// row 0's values 2^-149 against B in [0.5, 1) where a plain f32 FMA chain
// rounds every step up (0.75 * 2^-149 added to a multiple of 2^-149) and
// ends far outside the bound: the test's own std::fmaf chain shows it.
std::vector<float> SoftmaxLikeRows(int64_t m, int64_t k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::uniform_int_distribution<int> e(-149, -127);
  std::vector<float> a(m * k);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t q = 0; q < k; ++q) {
      float v;
      if (i == 0) {
        v = 0x1p-149f;
      } else if (i == 1 || i == m - 2) {
        // Below 2^-139: S < K 2^-139 < 2^-126.
        v = std::ldexp(1.0f + u(rng), e(rng) % 10 - 140);
      } else {
        v = q % 3 == 0 ? std::ldexp(1.0f + u(rng), e(rng)) : u(rng);
      }
      a[i * k + q] = v;
    }
  }
  return a;
}

// The attention case (probs . v): subnormal products where every element
// but the tiny rows has S >= 2^-126. The AVX-512 kernels keep the fast
// path (no whole-dot fallback), recompute at least the tiny rows' elements,
// and every element meets the class-A bound; the tiny rows are one
// rounding of the exact sum. Both GEMM paths (row-streaming M <= 16 and
// packed), edge tiles, a strided output (the scratch store), 1 and 2
// threads.
TEST(GemmTest, SubnormalProductsKeepTheFastPathWhereTheBoundAllows) {
  const GemmKernels& host = gemm::HostGemmKernels();
  if (!host.fma_chain) GTEST_SKIP() << "no FMA-chain kernels on this host";
  ThreadPool two(2);
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {4, 70, 33}, {16, 300, 257}, {17, 129, 100}, {45, 200, 301}};
  for (const auto& [m, n, k] : shapes) {
    for (int lay = 0; lay < 2; ++lay) {
      const Layout layout{false, true, lay == 0};
      const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                                 PrimitiveType::kF32, 1, m, n, k, layout);
      const std::vector<float> a = SoftmaxLikeRows(m, k, 31 + m);
      std::vector<float> b = RandomF32(k * n, 32 + n);
      for (auto& x : b) x = 0.5f + std::fabs(x) / 2;  // [0.5, 1)
      const Ref r = Reference(d, a, b, FromF32, FromF32);
      // The plain FMA chain on row 0 must be outside the bound somewhere,
      // or this test could not tell the recheck from no recheck.
      bool chain_fails = false;
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0;
        for (int64_t q = 0; q < k; ++q)
          acc = std::fmaf(a[q], b[q * n + j], acc);
        const int64_t o = j * d.n[0].out;
        chain_fails |= std::fabs(acc - r.y[o]) >
                       Bound(r.s[o], k, 0x1p-24, HalfUlpF32(r.y[o]));
      }
      ASSERT_TRUE(chain_fails);
      for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
        std::vector<float> c(m * n, NAN);
        ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), pool, host).ok());
        EXPECT_FALSE(LastDotUsedWideFallback());
        EXPECT_GE(LastDotSmallResultsRecomputed(), 3 * n);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            const int64_t o = i * d.m[0].out + j * d.n[0].out;
            const long double err = std::fabs(c[o] - r.y[o]);
            ASSERT_LE(err, Bound(r.s[o], k, 0x1p-24, HalfUlpF32(r.y[o])))
                << m << "x" << n << "x" << k << " layout " << lay << " (" << i
                << ", " << j << "): got " << c[o] << ", exact "
                << static_cast<double>(r.y[o]);
            if (r.s[o] < 0x1p-126L) {
              ASSERT_LE(err, 0x1p-150L + 0x1p-170L) << i << ", " << j;
            }
          }
        }
      }
    }
  }
}

// The f32 subnormal-flush tests' check, at 1 and 2 threads: the dot runs
// without the wide fallback, recomputes exactly `recomputed` results, every
// result is within the bound of the long double reference (Reference), and
// both thread counts give the same bits.
void CheckF32SubnormalDot(const DotDims& d, const std::vector<float>& lhs,
                          const std::vector<float>& rhs, int64_t recomputed,
                          int lay, const GemmKernels& host, ThreadPool& two) {
  const int64_t m = d.m[0].size, n = d.n[0].size, k = d.k[0].size;
  const Ref r = Reference(d, lhs, rhs, FromF32, FromF32);
  std::vector<float> first;
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
    std::vector<float> c(m * n, NAN);
    ASSERT_TRUE(RunDot(d, lhs.data(), rhs.data(), c.data(), pool, host).ok());
    EXPECT_FALSE(LastDotUsedWideFallback());
    EXPECT_EQ(LastDotSmallResultsRecomputed(), recomputed) << "layout " << lay;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const int64_t o = i * n + j;
        ASSERT_LE(std::fabs(c[o] - r.y[o]),
                  Bound(r.s[o], k, 0x1p-24, HalfUlpF32(r.y[o])))
            << "layout " << lay << " (" << i << ", " << j << "): got " << c[o]
            << ", exact " << static_cast<double>(r.y[o]);
      }
    }
    if (first.empty()) {
      first = c;
    } else {
      EXPECT_EQ(0, std::memcmp(first.data(), c.data(), c.size() * 4));
    }
  }
}

// The same for f64 (2^-1074 and friends against B in [0.5, 1)).
// Subnormal entries of A are zeroed in the packed panels (an FMA with a
// subnormal operand is a microcode assist on Intel cores) and the dropped
// terms are accounted for by a raised recheck threshold. Here every
// product is >= 2^-126 (A's subnormals are in [2^-128, 2^-127), B in
// [4, 8)), so without the flush the range guard would keep the fast path
// and recheck nothing. Row 0 is all subnormal (the kept chain is 0); in
// row 1 one normal entry 2^-124 is outweighed by the K - 1 dropped ones
// (the kept chain is ~2^-121.4, the exact sum ~2^-118.4): above the plain
// 2 lambda threshold, so only the raised one recomputes it. The other rows
// are [-1, 1) with 10 % subnormal entries and must keep their chains.
// Reference: the long double sum of the test (Reference).
TEST(GemmTest, SubnormalEntriesOfAAreDroppedWithinTheBound) {
  const GemmKernels& host = gemm::HostGemmKernels();
  if (!host.fma_chain) GTEST_SKIP() << "no FMA-chain kernels on this host";
  ThreadPool two(2);
  const int64_t m = 40, n = 130, k = 300;  // m > 32: not the skinny path
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  auto subnormal = [&] { return 0x1p-128f * (1.0f + unit(rng)); };
  std::vector<float> a(m * k);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t q = 0; q < k; ++q) {
      float v;
      if (i == 0) {
        v = subnormal();
      } else if (i == 1) {
        v = q == 0 ? 0x1p-124f : subnormal();
      } else {
        v = unit(rng) < 0.1f ? subnormal() : 2 * unit(rng) - 1;
      }
      a[i * k + q] = (q % 3 == 0 && i > 1) ? -v : v;
    }
  }
  std::vector<float> b(k * n);
  for (auto& x : b) x = 4 + 4 * unit(rng);
  for (int lay = 0; lay < 2; ++lay) {
    const Layout layout{lay == 1, true, true};
    const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                               PrimitiveType::kF32, 1, m, n, k, layout);
    // A in the layout's order ([m][k] or [k][m]).
    std::vector<float> al(m * k);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t q = 0; q < k; ++q) {
        al[i * d.m[0].lhs + q * d.k[0].lhs] = a[i * k + q];
      }
    }
    // Rows 0 and 1 are recomputed, the others are not.
    CheckF32SubnormalDot(d, al, b, 2 * n, lay, host, two);
  }
}

// Subnormal entries of B are zeroed in the packed B blocks like A's, the
// recheck threshold raised by Amax (DroppedTermsThreshold). The mirror of
// the test above: A in [4, 8), every product >= 2^-126, so without the
// flush nothing would be rechecked. Column 0 of B is all subnormal (the
// kept chain is 0); in column 1 one normal entry 2^-124 is outweighed by
// the K - 1 dropped ones (kept ~2^-121.4, exact ~2^-117.4: above the plain
// 2 lambda threshold, so only the raised one recomputes it); the other
// columns are [-1, 1) with 10 % subnormal entries and keep their chains.
// B row-major (rows copied into the block) and K-contiguous (transposed
// into it). Reference: the long double sum of the test (Reference).
TEST(GemmTest, SubnormalEntriesOfBAreDroppedWithinTheBound) {
  const GemmKernels& host = gemm::HostGemmKernels();
  if (!host.fma_chain) GTEST_SKIP() << "no FMA-chain kernels on this host";
  ThreadPool two(2);
  const int64_t m = 40, n = 130, k = 300;  // m > 32: not the skinny path
  std::mt19937 rng(78);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  auto subnormal = [&] { return 0x1p-128f * (1.0f + unit(rng)); };
  std::vector<float> bt(n * k);  // [n][k]
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t q = 0; q < k; ++q) {
      float v;
      if (j == 0) {
        v = subnormal();
      } else if (j == 1) {
        v = q == 0 ? 0x1p-124f : subnormal();
      } else {
        v = unit(rng) < 0.1f ? subnormal() : 2 * unit(rng) - 1;
      }
      bt[j * k + q] = (q % 3 == 0 && j > 1) ? -v : v;
    }
  }
  std::vector<float> a(m * k);
  for (auto& x : a) x = 4 + 4 * unit(rng);
  for (int lay = 0; lay < 2; ++lay) {
    const Layout layout{false, lay == 0, true};
    const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                               PrimitiveType::kF32, 1, m, n, k, layout);
    std::vector<float> bl(k * n);
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t q = 0; q < k; ++q) {
        bl[j * d.n[0].rhs + q * d.k[0].rhs] = bt[j * k + q];
      }
    }
    // Columns 0 and 1 are recomputed, the others are not.
    CheckF32SubnormalDot(d, a, bl, 2 * m, lay, host, two);
  }
}

// The same for f64 (lambda = 2^-1022; A's subnormals in [2^-1024,
// 2^-1023), B in [4, 8): every product >= lambda, so only the flush sends
// rows 0 and 1 to the recheck). Reference: the long double sum, whose own
// error (k 2^-64 S) is added to the bound.
TEST(GemmTest, F64SubnormalEntriesOfAAreDroppedWithinTheBound) {
  const GemmKernels& host = gemm::HostGemmKernels();
  if (!host.fma_chain) GTEST_SKIP() << "no FMA-chain kernels on this host";
  const int64_t m = 40, n = 70, k = 90;  // m > 32: not the skinny path
  const DotDims d = MakeDims(PrimitiveType::kF64, PrimitiveType::kF64,
                             PrimitiveType::kF64, 1, m, n, k, Layout{});
  std::mt19937 rng(78);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto subnormal = [&] { return 0x1p-1024 * (1.0 + unit(rng)); };
  std::vector<double> a(m * k), b(k * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t q = 0; q < k; ++q) {
      a[i * k + q] = i == 0 ? subnormal()
                     : i == 1
                         ? (q == 0 ? 0x1p-1018 : subnormal())
                         : (unit(rng) < 0.1 ? subnormal() : 2 * unit(rng) - 1);
    }
  }
  for (auto& x : b) x = 4 + 4 * unit(rng);
  ThreadPool two(2);
  const Ref r = Reference(d, a, b, FromF64, FromF64);
  for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), &two}) {
    std::vector<double> c(m * n, NAN);
    ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), pool, host).ok());
    EXPECT_FALSE(LastDotUsedWideFallback());
    EXPECT_EQ(LastDotSmallResultsRecomputed(), 2 * n);
    for (size_t i = 0; i < c.size(); ++i) {
      const long double ref_err = k * 0x1p-64L * r.s[i];
      ASSERT_LE(std::fabs(c[i] - r.y[i]),
                Bound(r.s[i], k, 0x1p-53, HalfUlpF64(r.y[i])) + ref_err)
          << i << ": got " << c[i];
    }
  }
}

TEST(GemmTest, F64SubnormalProductsKeepTheFastPathWhereTheBoundAllows) {
  const GemmKernels& host = gemm::HostGemmKernels();
  if (!host.fma_chain) GTEST_SKIP() << "no FMA-chain kernels on this host";
  const int64_t m = 13, n = 70, k = 90;
  const DotDims d = MakeDims(PrimitiveType::kF64, PrimitiveType::kF64,
                             PrimitiveType::kF64, 1, m, n, k, Layout{});
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  std::vector<double> a(m * k), b(k * n), c(m * n, NAN);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t q = 0; q < k; ++q) {
      a[i * k + q] =
          i == 0 ? 0x1p-1074 : (q % 2 == 0 ? 0x1p-1060 * u(rng) : u(rng));
    }
  }
  for (auto& x : b) x = u(rng);
  ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), nullptr, host).ok());
  EXPECT_FALSE(LastDotUsedWideFallback());
  EXPECT_GE(LastDotSmallResultsRecomputed(), n);
  const Ref r = Reference(d, a, b, FromF64, FromF64);
  for (size_t i = 0; i < c.size(); ++i) {
    const long double ref_err = k * 0x1p-64L * r.s[i];
    ASSERT_LE(std::fabs(c[i] - r.y[i]),
              Bound(r.s[i], k, 0x1p-53, HalfUlpF64(r.y[i])) + ref_err)
        << i;
  }
}

// Where the relaxed rule's preconditions fail, subnormal products still
// send the whole dot to the wide fallback: bf16 operands with an f32
// result (products exact: the oracle counts K - 1 rounding steps) and a
// bf16 result (not the accumulation type).
TEST(GemmTest, SubnormalProductsWithoutTheRelaxedRuleTakeTheWideFallback) {
  const FloatFormat& bf16 = FormatOf(PrimitiveType::kBF16);
  const int64_t m = 7, n = 65, k = 40;
  std::vector<uint16_t> a(m * k), b(k * n);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<uint16_t>(
        EncodeFloat(bf16, i % 5 == 0 ? 0x1p-130 : 0.25 + (i % 7) / 8.0));
  }
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = static_cast<uint16_t>(EncodeFloat(bf16, 0.5 + (i % 11) / 16.0));
  }
  for (PrimitiveType ot : {PrimitiveType::kF32, PrimitiveType::kBF16}) {
    const DotDims d = MakeDims(PrimitiveType::kBF16, PrimitiveType::kBF16, ot,
                               1, m, n, k, Layout{});
    std::vector<float> c(m * n);
    ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), nullptr,
                       gemm::HostGemmKernels())
                    .ok());
    EXPECT_TRUE(LastDotUsedWideFallback()) << PrimitiveTypeName(ot);
    EXPECT_EQ(LastDotSmallResultsRecomputed(), -1);
  }
}

// Subnormal products next to an inf or NaN: the whole-dot fallback (IEEE
// propagation), never the small-result check.
TEST(GemmTest, NonFiniteOperandsWithSubnormalProducts) {
  const int64_t m = 6, n = 64, k = 10;
  const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                             PrimitiveType::kF32, 1, m, n, k, Layout{});
  std::vector<float> a(m * k, 1.0f), b(k * n, 2.0f), c(m * n);
  a[1] = 0x1p-140f;
  a[k] = NAN;  // row 1
  b[3] = INFINITY;
  ASSERT_TRUE(
      RunDot(d, a.data(), b.data(), c.data(), nullptr, gemm::HostGemmKernels())
          .ok());
  EXPECT_TRUE(LastDotUsedWideFallback());
  EXPECT_EQ(LastDotSmallResultsRecomputed(), -1);
  EXPECT_TRUE(std::isinf(c[3]) && c[3] > 0);  // row 0: 1 * inf + ...
  EXPECT_EQ(c[4], 18.0f + 2 * 0x1p-140f);     // exact in f64, rounded once
  for (int64_t j = 0; j < n; ++j) EXPECT_TRUE(std::isnan(c[n + j])) << j;
}

// f64 products past f64's range whose exact sum is 0.
TEST(GemmTest, F64OverflowingProductsTakeTheWideFallback) {
  const int64_t m = 6, n = 64, k = 64;
  const DotDims d = MakeDims(PrimitiveType::kF64, PrimitiveType::kF64,
                             PrimitiveType::kF64, 1, m, n, k, Layout{});
  std::vector<double> a(m * k), b(k * n, 1e200);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t q = 0; q < k; ++q) a[i * k + q] = q % 2 == 0 ? 1e200 : -1e200;
  }
  std::vector<double> c(m * n, NAN);
  ASSERT_TRUE(
      RunDot(d, a.data(), b.data(), c.data(), nullptr, gemm::HostGemmKernels())
          .ok());
  EXPECT_TRUE(LastDotUsedWideFallback());
  for (double v : c) ASSERT_EQ(v, 0.0);
}

TEST(GemmTest, NonFiniteOperandsFollowIeee) {
  const int64_t m = 6, n = 64, k = 10;
  const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                             PrimitiveType::kF32, 1, m, n, k, Layout{});
  std::vector<float> a(m * k, 1.0f), b(k * n, 2.0f), c(m * n);
  a[0] = INFINITY;  // row 0: inf * 2 + ... = inf
  b[5] = 0.0f;      // column 5 of row 0: inf * 0 = NaN
  ASSERT_TRUE(
      RunDot(d, a.data(), b.data(), c.data(), nullptr, gemm::HostGemmKernels())
          .ok());
  EXPECT_TRUE(std::isinf(c[0]) && c[0] > 0);
  EXPECT_TRUE(std::isnan(c[5]));
  EXPECT_EQ(c[n], 20.0f);
}

// The microkernels alone: an unpacked B (ldb = 100, only nr columns
// readable) against a naive f32 FMA chain in k order, for every mr and an
// N edge, with and without C's old value.
TEST(GemmKernelTest, UnpackedRowsAndEdgesMatchAnFmaChain) {
  const int64_t kc = 37, ldb = 100, ldc = 70;
  const std::vector<float> a = RandomF32(kc * gemm::kGemmMr, 9);
  const std::vector<float> b = RandomF32(kc * ldb, 10);
  for (const GemmKernels* kernels : KernelSets()) {
    for (int mr = 1; mr <= gemm::kGemmMr; ++mr) {
      for (int nr : {1, 17, 37, 64}) {
        for (bool acc : {false, true}) {
          // B's row k holds nr valid values followed by the next row's; a
          // masked kernel must not read past nr (the tail is NaN here).
          std::vector<float> bt(b);
          for (int64_t k = 0; k < kc; ++k) {
            for (int64_t j = nr; j < ldb; ++j) bt[k * ldb + j] = NAN;
          }
          std::vector<float> c(gemm::kGemmMr * ldc, 0.5f);
          kernels->f32(kc, a.data(), bt.data(), ldb, c.data(), ldc, mr, nr, acc,
                       /*full_b_rows=*/nr == 64);
          for (int r = 0; r < gemm::kGemmMr; ++r) {
            for (int j = 0; j < ldc; ++j) {
              const float got = c[r * ldc + j];
              if (r >= mr || j >= nr) {
                ASSERT_EQ(got, 0.5f) << "wrote outside the tile";
                continue;
              }
              long double want = acc ? 0.5L : 0.0L;
              for (int64_t k = 0; k < kc; ++k) {
                want += static_cast<long double>(a[k * gemm::kGemmMr + r]) *
                        b[k * ldb + j];
              }
              ASSERT_NEAR(got, static_cast<double>(want), 1e-5)
                  << kernels->name << " mr=" << mr << " nr=" << nr;
            }
          }
        }
      }
    }
  }
}

// The tile reading A in place (f32_rows_a: a[r * lda + k]) computes the
// same FMA chains as the packed tile: bit-identical results for every mr,
// N edges, full and masked B rows, with and without C's old value, and
// nothing written outside the tile. The reference is the packed kernel
// itself, whose values are checked against a long double sum above.
TEST(GemmKernelTest, RowsAKernelEqualsThePackedOneBitForBit) {
  const int64_t kc = 45, lda = 53, ldb = 64, ldc = 70;
  const std::vector<float> a_rows = RandomF32(gemm::kGemmMr * lda, 21);
  const std::vector<float> b = RandomF32(kc * ldb, 22);
  std::vector<float> a_packed(kc * gemm::kGemmMr);
  for (int64_t k = 0; k < kc; ++k) {
    for (int r = 0; r < gemm::kGemmMr; ++r) {
      a_packed[k * gemm::kGemmMr + r] = a_rows[r * lda + k];
    }
  }
  int checked = 0;
  for (const GemmKernels* kernels : KernelSets()) {
    if (kernels->f32_rows_a == nullptr) continue;
    for (int mr = 1; mr <= gemm::kGemmMr; ++mr) {
      for (int nr : {1, 17, 63, 64}) {
        for (bool acc : {false, true}) {
          for (bool full : {false, true}) {
            std::vector<float> want(gemm::kGemmMr * ldc, 0.25f);
            std::vector<float> got(want);
            kernels->f32(kc, a_packed.data(), b.data(), ldb, want.data(), ldc,
                         mr, nr, acc, full);
            kernels->f32_rows_a(kc, a_rows.data(), lda, b.data(), ldb,
                                got.data(), ldc, mr, nr, acc, full);
            ASSERT_EQ(0, std::memcmp(want.data(), got.data(), got.size() * 4))
                << kernels->name << " mr=" << mr << " nr=" << nr
                << " acc=" << acc << " full=" << full;
            ++checked;
          }
        }
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "no rows-A kernel on this host";
}

TEST(GemmKernelTest, CopyScanFindsExtremes) {
  for (const GemmKernels* kernels : KernelSets()) {
    for (int64_t n : {1, 15, 16, 17, 100}) {
      std::vector<float> v(n, 0.0f);
      for (int64_t i = 0; i < n; ++i) v[i] = (i % 3 == 0) ? 0.0f : -1.5f * i;
      v[n - 1] = n > 1 ? 0x1p-140f : 0.0f;  // a subnormal, last (the tail)
      std::vector<float> copy(n, 7.0f);
      uint32_t mx = 0, mn = ~0u;
      kernels->scan_f32(v.data(), copy.data(), n, n, n, &mx, &mn);
      // Chunked: chunks of 7 values 10 apart.
      std::vector<float> chunked((n / 7 + 1) * 10, 7.0f);
      uint32_t mx2 = 0, mn2 = ~0u;
      kernels->scan_f32(v.data(), chunked.data(), n, 7, 10, &mx2, &mn2);
      EXPECT_EQ(mx2, mx);
      EXPECT_EQ(mn2, mn);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(chunked[(i / 7) * 10 + i % 7], v[i]) << kernels->name;
      }
      for (size_t i = 0; i < chunked.size(); ++i) {
        if (i % 10 >= 7) {
          ASSERT_EQ(chunked[i], 7.0f) << "gap written";
        }
      }
      EXPECT_EQ(0, std::memcmp(v.data(), copy.data(), n * sizeof(float)));
      float max_abs, min_nz;
      const uint32_t mn1 = mn + 1;
      std::memcpy(&max_abs, &mx, 4);
      std::memcpy(&min_nz, &mn1, 4);
      float want_max = 0;
      for (float x : v) want_max = std::max(want_max, std::fabs(x));
      EXPECT_EQ(max_abs, want_max) << kernels->name << " n=" << n;
      if (n > 1) {
        EXPECT_EQ(min_nz, 0x1p-140f) << kernels->name << " n=" << n;
      } else {
        EXPECT_EQ(mn, ~0u) << "no nonzero value";
      }
    }
  }
}

// The copy-and-scan kernel finds an extreme at any position: whole-vector
// pairs (two accumulator sets), single vectors and masked tails, whole and
// chunked (chunks of 64 and 40 values).
TEST(GemmKernelTest, CopyScanFindsExtremesAtEveryPosition) {
  for (const GemmKernels* kernels : KernelSets()) {
    for (int64_t chunk : {int64_t{0}, int64_t{64}, int64_t{40}}) {
      const int64_t n = 150;
      for (int64_t pos = 0; pos < n; ++pos) {
        std::vector<float> v(n, -1.0f);
        v[pos] = -3.0f;
        v[(pos + 37) % n] = 0x1p-140f;
        uint32_t mx = 0, mn = ~0u;
        std::vector<float> dst(n * 2);
        const int64_t c = chunk == 0 ? n : chunk;
        kernels->scan_f32(v.data(), dst.data(), n, c, c + 3, &mx, &mn);
        const uint32_t mn1 = mn + 1;
        float max_abs, min_nz;
        std::memcpy(&max_abs, &mx, 4);
        std::memcpy(&min_nz, &mn1, 4);
        ASSERT_EQ(max_abs, 3.0f) << kernels->name << " pos " << pos;
        ASSERT_EQ(min_nz, 0x1p-140f) << kernels->name << " pos " << pos;
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(dst[(i / c) * (c + 3) + i % c], v[i]) << i;
        }
      }
    }
  }
}

// The 16-bit widening kernels alone, on every encoding: each value must be
// the f32 of the spec's decoder (spec/types/minifloat.h, not the kernels'
// code) bit for bit, subnormals, infinities and NaN payloads included,
// in chunks (nothing written in the gaps), with the statistics of the
// widened values.
TEST(GemmKernelTest, CvtWidensEvery16BitEncodingExactly) {
  for (PrimitiveType t : {PrimitiveType::kBF16, PrimitiveType::kF16}) {
    const FloatFormat& f = FormatOf(t);
    std::vector<uint16_t> src(65536);
    for (int i = 0; i < 65536; ++i) src[i] = static_cast<uint16_t>(i);
    for (const GemmKernels* kernels : KernelSets()) {
      const auto cvt =
          t == PrimitiveType::kBF16 ? kernels->cvt_bf16 : kernels->cvt_f16;
      ASSERT_NE(cvt, nullptr) << kernels->name;
      // Chunks of 37 values 40 apart: masked tails in every chunk.
      std::vector<float> dst((65536 / 37 + 1) * 40,
                             std::bit_cast<float>(0xdeadbeefu));
      uint32_t mx = 0, mn = ~0u;
      cvt(src.data(), dst.data(), 65536, 37, 40, &mx, &mn);
      for (int i = 0; i < 65536; ++i) {
        const uint32_t want = DecodeFloatToF32Bits(f, static_cast<uint64_t>(i));
        const uint32_t got =
            std::bit_cast<uint32_t>(dst[(i / 37) * 40 + i % 37]);
        if ((want & 0x7fffffffu) > 0x7f800000u) {
          // NaN: vcvtph2ps quiets a signalling NaN (payload bits may
          // differ; a NaN operand sends the dot to the wide fallback).
          ASSERT_GT(got & 0x7fffffffu, 0x7f800000u) << "encoding " << i;
          ASSERT_EQ(got >> 31, want >> 31) << "encoding " << i;
          continue;
        }
        ASSERT_EQ(got, want) << kernels->name << " " << PrimitiveTypeName(t)
                             << " encoding " << i;
      }
      for (size_t i = 0; i < dst.size(); ++i) {
        if (i % 40 >= 37) {
          ASSERT_EQ(std::bit_cast<uint32_t>(dst[i]), 0xdeadbeefu)
              << "gap written";
        }
      }
      // Every encoding: the largest |x| is a NaN's (above inf's bits), the
      // smallest nonzero the least subnormal.
      EXPECT_GT(mx, 0x7f800000u) << kernels->name;
      EXPECT_EQ(mn + 1, t == PrimitiveType::kF16 ? 0x33800000u   // 2^-24
                                                 : 0x00010000u)  // 2^-133
          << kernels->name;
      // Finite encodings only (all but the exponent-all-ones ones): max is
      // the largest finite value.
      const int limit = t == PrimitiveType::kF16 ? 0x7c00 : 0x7f80;
      uint32_t fmx = 0, fmn = ~0u;
      cvt(src.data(), dst.data(), limit, limit, limit, &fmx, &fmn);
      EXPECT_EQ(fmx, DecodeFloatToF32Bits(f, limit - 1)) << kernels->name;
      EXPECT_EQ(fmn + 1, mn + 1) << kernels->name;
    }
  }
}

// The transposing pack kernel alone: every row / column edge of its 16 x 16
// blocks, destination strides of an A panel (6), a B panel (64) and an odd
// one; each element is compared with the source element it must come from
// (index arithmetic here), and nothing outside the rows x cols image is
// written (sentinel values).
TEST(GemmKernelTest, Transpose32CopiesExactlyTheBlock) {
  for (const GemmKernels* kernels : KernelSets()) {
    for (int64_t rows : {1, 6, 15, 16, 17, 64}) {
      for (int64_t cols : {1, 7, 16, 33, 70}) {
        for (int64_t ldd : {int64_t{6}, int64_t{64}, rows + 3}) {
          if (ldd < rows) continue;
          const int64_t lds = cols + 5;
          // Bit patterns of every kind (NaNs with payloads, subnormals,
          // infinities among them): the copy must keep them bit for bit.
          std::vector<float> src(rows * lds);
          for (size_t i = 0; i < src.size(); ++i) {
            src[i] = std::bit_cast<float>(
                static_cast<uint32_t>(i * 2654435761u + 1));
          }
          std::vector<float> dst(cols * ldd + 16,
                                 std::bit_cast<float>(0xDEADBEEFu));
          kernels->transpose_f32(src.data(), lds, rows, cols, dst.data(), ldd);
          for (int64_t i = 0; i < static_cast<int64_t>(dst.size()); ++i) {
            const int64_t c = i / ldd, r = i % ldd;
            const uint32_t want =
                c < cols && r < rows ? std::bit_cast<uint32_t>(src[r * lds + c])
                                     : 0xDEADBEEFu;
            ASSERT_EQ(std::bit_cast<uint32_t>(dst[i]), want)
                << kernels->name << " rows=" << rows << " cols=" << cols
                << " ldd=" << ldd << " at " << i;
          }
        }
      }
    }
  }
}

// A GEMV kernel's C block (rows x ldc, filled with 0.25 before the call):
// rows < mr and columns < n must hold the k-order chain of A's row against
// b_at(k, j) after 0.25 (accumulate) or 0, fused (fma) or a multiply then
// an add; every other element must still be 0.25.
template <typename BAt>
::testing::AssertionResult GemvBlockIsTheChain(const std::vector<float>& c,
                                               int rows, int64_t ldc, int mr,
                                               int64_t n, int64_t kc,
                                               bool accumulate, bool fma,
                                               const std::vector<float>& a,
                                               int64_t lda, BAt b_at) {
  for (int r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < ldc; ++j) {
      const float got = c[r * ldc + j];
      if (r >= mr || j >= n) {
        if (got != 0.25f) {
          return ::testing::AssertionFailure()
                 << "wrote outside the block at row " << r << " col " << j;
        }
        continue;
      }
      float want = accumulate ? 0.25f : 0.0f;
      for (int64_t k = 0; k < kc; ++k) {
        const float x = a[r * lda + k], y = b_at(k, j);
        if (fma) {
          want = std::fma(x, y, want);
        } else {
          const float p = x * y;
          want = want + p;
        }
      }
      if (std::bit_cast<uint32_t>(got) != std::bit_cast<uint32_t>(want)) {
        return ::testing::AssertionFailure() << "row " << r << " col " << j
                                             << ": " << got << " want " << want;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// The skinny-M kernel alone, every row count 1..kGemvMaxRows, N edges of
// the vector width, K not a multiple of the kernel's row groups: each
// element against an FMA chain in k order computed here with std::fma
// (the AVX-512 kernel must match it bit for bit; the portable one rounds
// products and sums separately, so it is held to a multiply-then-add
// chain instead), nothing written past n or mr, and B's statistics equal
// to the copy-and-scan kernel's over the same values (B rows have NaN
// past n: the kernel must neither read them nor count them).
// Rows from kGemvTileMinRows on run the register-tiled form (C in
// registers, B in blocks of 256 rows: kc = 300 crosses one) and, with its
// budget set to 0, the row-streaming one; both must give these bits.
TEST(GemmKernelTest, GemvMatchesAnFmaChainAndScansB) {
  const int64_t ldb = 120, ldc = 112, lda = 304;
  for (const int64_t budget : {int64_t{-1}, int64_t{0}}) {
    gemm::SetGemvTileBudgetForTesting(budget);
    for (const GemmKernels* kernels : KernelSets()) {
      const bool fma = kernels->fma_chain;
      for (int mr = 1; mr <= gemm::kGemvMaxRows; ++mr) {
        if (budget == 0 && mr < gemm::kGemvTileMinRows) continue;
        // (N <= 64 with up to 4 rows: the narrow kernel, C in registers.)
        for (int64_t n : {1, 15, 16, 17, 40, 50, 64, 70, 111}) {
          for (int64_t kc : {0, 1, 5, 9, 37, 300}) {
            for (bool accumulate : {false, true}) {
              const std::vector<float> a = RandomF32(mr * lda, 11 + mr);
              std::vector<float> b = RandomF32(std::max<int64_t>(kc, 1) * ldb,
                                               12 + static_cast<uint32_t>(n));
              for (int64_t k = 0; k < kc; ++k) {
                for (int64_t j = n; j < ldb; ++j) b[k * ldb + j] = NAN;
              }
              if (kc > 3) b[3 * ldb] = 0x1p-130f;  // a subnormal in B
              std::vector<float> c(gemm::kGemvMaxRows * ldc, 0.25f);
              uint32_t mx = 0, mn = ~0u;
              kernels->gemv_f32(mr, kc, a.data(), lda, b.data(), ldb, n,
                                c.data(), ldc, accumulate, &mx, &mn);
              uint32_t want_mx = 0, want_mn = ~0u;
              for (int64_t k = 0; k < kc; ++k) {
                gemm::PortableGemmKernels().scan_f32(
                    b.data() + k * ldb, nullptr, n, n, n, &want_mx, &want_mn);
              }
              ASSERT_EQ(mx, want_mx) << kernels->name << " mr=" << mr;
              ASSERT_EQ(mn, want_mn) << kernels->name << " mr=" << mr;
              ASSERT_TRUE(GemvBlockIsTheChain(
                  c, gemm::kGemvMaxRows, ldc, mr, n, kc, accumulate, fma, a,
                  lda, [&](int64_t k, int64_t j) { return b[k * ldb + j]; }))
                  << kernels->name << " mr=" << mr << " n=" << n << " kc=" << kc
                  << " budget " << budget;
            }
          }
        }
      }
    }
  }
  gemm::SetGemvTileBudgetForTesting(-1);
}

// The skinny-M kernel over a row-major bf16 B (GemvKernelBf16B) alone,
// both kernel sets: every row count, N and K across the 16-lane and
// 8-row edges, accumulate or not. B's values are bf16 patterns (a
// subnormal one among them) widened by hand (the pattern in the upper
// half of an f32); the AVX-512 bits must equal a std::fma chain over the
// widened values, the portable ones a multiply-then-add chain; nothing may
// be written outside the block, and the statistics must equal the
// copy-and-scan kernel's over the widened rows (B's rows hold NaN patterns
// past n: the kernel must neither read nor count them).
TEST(GemmKernelTest, GemvBf16BMatchesAnFmaChainOverTheWidenedB) {
  const int64_t ldb = 120, ldc = 112, lda = 104;
  auto widen = [](uint16_t h) {
    return std::bit_cast<float>(uint32_t{h} << 16);
  };
  for (const GemmKernels* kernels : KernelSets()) {
    const bool fma = kernels->fma_chain;
    for (int mr = 1; mr <= gemm::kGemvBf16MaxRows; ++mr) {
      // (N <= 64 with up to 4 rows: the narrow kernels, C in registers.)
      for (int64_t n : {1, 15, 16, 17, 40, 50, 64, 70, 111}) {
        for (int64_t kc : {0, 1, 5, 9, 37, 100}) {
          for (bool accumulate : {false, true}) {
            const std::vector<float> a = RandomF32(mr * lda, 31 + mr);
            const std::vector<float> bf = RandomF32(
                std::max<int64_t>(kc, 1) * ldb, 32 + static_cast<uint32_t>(n));
            std::vector<uint16_t> b(bf.size());
            for (size_t i = 0; i < b.size(); ++i) {
              b[i] =
                  static_cast<uint16_t>(std::bit_cast<uint32_t>(bf[i]) >> 16);
            }
            for (int64_t k = 0; k < kc; ++k) {
              for (int64_t j = n; j < ldb; ++j) b[k * ldb + j] = 0x7fc1;
            }
            if (kc > 3) b[3 * ldb] = 0x0003;  // a subnormal bf16 (and f32)
            std::vector<float> c(gemm::kGemvBf16MaxRows * ldc, 0.25f);
            uint32_t mx = 0, mn = ~0u;
            kernels->gemv_bf16b_f32(mr, kc, a.data(), lda, b.data(), ldb, n,
                                    c.data(), ldc, accumulate, &mx, &mn);
            uint32_t want_mx = 0, want_mn = ~0u;
            std::vector<float> row(n);
            for (int64_t k = 0; k < kc; ++k) {
              for (int64_t j = 0; j < n; ++j) row[j] = widen(b[k * ldb + j]);
              gemm::PortableGemmKernels().scan_f32(row.data(), nullptr, n, n, n,
                                                   &want_mx, &want_mn);
            }
            ASSERT_EQ(mx, want_mx) << kernels->name << " mr=" << mr;
            ASSERT_EQ(mn, want_mn) << kernels->name << " mr=" << mr;
            ASSERT_TRUE(GemvBlockIsTheChain(
                c, gemm::kGemvBf16MaxRows, ldc, mr, n, kc, accumulate, fma, a,
                lda,
                [&](int64_t k, int64_t j) { return widen(b[k * ldb + j]); }))
                << kernels->name << " mr=" << mr << " n=" << n << " kc=" << kc;
          }
        }
      }
    }
  }
}

// The AVX2 set's own kernels, bit for bit: the f32 / f64 tiles for every
// mr, nr around their 16 / 8-column strips and kc, from zero and
// accumulating, against a std::fma chain in k order computed here; the
// f64 row-streaming GEMV (1..kGemvMaxRows rows across its two-row groups,
// four-vector strips and 256-k blocks) likewise, with its statistics
// against the portable scan's; the f32 copy-and-scan in chunks against the
// portable one (copies and statistics are exact, so any correct kernel
// gives the same). Values outside each operand's extent are NaN (must not
// be read), and C outside the block keeps its sentinel (must not be
// written); the integer tile against the portable one. The f32 GEMVs,
// transposes and K-contiguous GEMVs are checked for every kernel set by
// the tests around this one.
TEST(GemmKernelTest, Avx2KernelsAreFmaChains) {
  const GemmKernels* avx2 = gemm::Avx2GemmKernels();
  if (avx2 == nullptr) GTEST_SKIP() << "no AVX2 on this host";
  const GemmKernels& port = gemm::PortableGemmKernels();
  EXPECT_TRUE(avx2->fma_chain);
  auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() &&
           std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
  };
  // C (rows ldc apart, sentinel `init`) after a tile or GEMV over
  // a(r, k) and b(k, j): chains for r < mr, j < nr, the rest unchanged.
  auto chains = [](auto init, int64_t rows, int64_t ldc, int mr, int64_t nr,
                   int64_t kc, bool acc, auto a, auto b) {
    using T = typename decltype(init)::value_type;
    std::vector<T> c = init;
    for (int r = 0; r < mr; ++r) {
      for (int64_t j = 0; j < nr; ++j) {
        T v = acc ? c[r * ldc + j] : T(0);
        for (int64_t k = 0; k < kc; ++k) v = std::fma(a(r, k), b(k, j), v);
        c[r * ldc + j] = v;
      }
    }
    (void)rows;
    return c;
  };
  for (int mr = 1; mr <= gemm::kGemmMr; ++mr) {
    for (int nr : {1, 7, 8, 9, 15, 16, 17, 33, 63, 64}) {
      for (int64_t kc : {0, 1, 2, 13, 100}) {
        for (const bool acc : {false, true}) {
          const int64_t ldb = 70, ldc = 75;
          std::vector<float> a = RandomF32(kc * gemm::kGemmMr + 1, 61 + mr);
          std::vector<float> b = RandomF32(kc * ldb + 1, 62 + nr);
          for (int64_t k = 0; k < kc; ++k) {
            for (int64_t j = nr; j < ldb; ++j) b[k * ldb + j] = NAN;
          }
          const std::vector<float> c0 = RandomF32(8 * ldc, 63);
          std::vector<float> c = c0;
          avx2->f32(kc, a.data(), b.data(), ldb, c.data(), ldc, mr, nr, acc,
                    false);
          const std::vector<float> want = chains(
              c0, 8, ldc, mr, nr, kc, acc,
              [&](int r, int64_t k) { return a[k * gemm::kGemmMr + r]; },
              [&](int64_t k, int64_t j) { return b[k * ldb + j]; });
          ASSERT_TRUE(same(c, want)) << "f32 mr=" << mr << " nr=" << nr
                                     << " kc=" << kc << " acc=" << acc;
          if (nr > gemm::kGemmNrF64) continue;
          const std::vector<double> ad(a.begin(), a.end()),
              bd(b.begin(), b.end()), d0(c0.begin(), c0.end());
          std::vector<double> d = d0;
          avx2->f64(kc, ad.data(), bd.data(), ldb, d.data(), ldc, mr, nr, acc,
                    false);
          const std::vector<double> wantd = chains(
              d0, 8, ldc, mr, nr, kc, acc,
              [&](int r, int64_t k) { return ad[k * gemm::kGemmMr + r]; },
              [&](int64_t k, int64_t j) { return bd[k * ldb + j]; });
          ASSERT_TRUE(same(d, wantd)) << "f64 mr=" << mr << " nr=" << nr
                                      << " kc=" << kc << " acc=" << acc;
        }
      }
    }
  }
  for (int mr : {1, 2, 3, 4, 7, gemm::kGemvMaxRows}) {
    for (int64_t n : {1, 4, 15, 16, 17, 100}) {
      for (int64_t kc : {0, 1, 5, 256, 300}) {
        for (const bool acc : {false, true}) {
          const int64_t lda = kc + 3, ldb = n + 5, ldc = n + 2;
          const std::vector<float> af = RandomF32(mr * lda + 1, 64);
          const std::vector<float> bf = RandomF32(kc * ldb + 1, 65);
          const std::vector<float> cf = RandomF32(mr * ldc + 1, 66);
          const std::vector<double> a(af.begin(), af.end()),
              c0(cf.begin(), cf.end());
          std::vector<double> b(bf.begin(), bf.end());
          for (int64_t k = 0; k < kc; ++k) {
            for (int64_t j = n; j < ldb; ++j) b[k * ldb + j] = NAN;
          }
          if (kc > 2 && n > 2) b[2 * ldb + 1] = 0x1p-1030;  // a subnormal
          std::vector<double> c = c0;
          uint64_t mx = 0, mn = ~uint64_t{0}, want_mx = 0, want_mn = ~mx;
          avx2->gemv_f64(mr, kc, a.data(), lda, b.data(), ldb, n, c.data(), ldc,
                         acc, &mx, &mn);
          for (int64_t k = 0; k < kc; ++k) {
            port.scan_f64(b.data() + k * ldb, nullptr, n, n, n, &want_mx,
                          &want_mn);
          }
          const std::vector<double> want = chains(
              c0, mr, ldc, mr, n, kc, acc,
              [&](int r, int64_t k) { return a[r * lda + k]; },
              [&](int64_t k, int64_t j) { return b[k * ldb + j]; });
          ASSERT_TRUE(same(c, want)) << "gemv f64 mr=" << mr << " n=" << n
                                     << " kc=" << kc << " acc=" << acc;
          ASSERT_EQ(mx, want_mx) << "mr=" << mr << " n=" << n << " kc=" << kc;
          ASSERT_EQ(mn, want_mn) << "mr=" << mr << " n=" << n << " kc=" << kc;
        }
      }
    }
  }
  // The integer tile against the portable one (integer sums are exact
  // modulo 2^32, so any correct kernel gives its bits), s16 pairs over the
  // whole range: -32768 pairs whose sum is 2^31 wrap alike.
  for (int mr = 1; mr <= gemm::kGemmMr; ++mr) {
    for (int nr : {1, 8, 9, 16, 17, 63, 64}) {
      for (const bool acc : {false, true}) {
        const int64_t kp = 37, ldb = 2 * gemm::kGemmNrInt, ldc = 70;
        std::mt19937 rng(71 + mr + nr);
        std::vector<int16_t> a(kp * gemm::kGemmMr * 2), b(kp * ldb);
        for (auto& x : a) x = static_cast<int16_t>(rng());
        for (auto& x : b) x = static_cast<int16_t>(rng());
        for (int i = 0; i < 8; ++i) a[i] = b[i] = -32768;
        std::vector<int32_t> c0(8 * ldc);
        for (auto& x : c0) x = static_cast<int32_t>(rng());
        std::vector<int32_t> c1 = c0;
        port.i16(kp, a.data(), b.data(), ldb, c0.data(), ldc, mr, nr, acc,
                 true);
        avx2->i16(kp, a.data(), b.data(), ldb, c1.data(), ldc, mr, nr, acc,
                  true);
        ASSERT_TRUE(same(c0, c1))
            << "i16 mr=" << mr << " nr=" << nr << " acc=" << acc;
      }
    }
  }
  for (int64_t n : {0, 1, 7, 8, 9, 64, 100}) {
    for (int64_t chunk : {1, 3, 8, 13}) {
      std::vector<float> src = RandomF32(n + 1, 67);
      if (n > 3) src[3] = -0x1p-140f;
      if (n > 5) src[5] = 0.0f;
      const int64_t stride = chunk + 2;
      const int64_t chunks = (n + chunk - 1) / chunk;
      std::vector<float> d0(chunks * stride + 1, 9.0f), d1 = d0;
      uint32_t mx0 = 5, mn0 = ~0u - 5, mx1 = 5, mn1 = ~0u - 5;
      port.scan_f32(src.data(), d0.data(), n, chunk, stride, &mx0, &mn0);
      avx2->scan_f32(src.data(), d1.data(), n, chunk, stride, &mx1, &mn1);
      ASSERT_TRUE(same(d0, d1)) << "n=" << n << " chunk=" << chunk;
      ASSERT_EQ(mx0, mx1) << "n=" << n << " chunk=" << chunk;
      ASSERT_EQ(mn0, mn1) << "n=" << n << " chunk=" << chunk;
    }
  }
}

// The skinny-M kernel over a K-contiguous B (GemvKtKernelF32) alone:
// every row count 1..kGemvKtMaxRows, N and K on both sides of its 16 x 16
// blocks: each element against an FMA chain in k order from 0 computed
// here with std::fma (bit for bit on the AVX-512 kernel; the portable one
// against a multiply-then-add chain), nothing written past n or mr, and
// B's statistics equal to the copy-and-scan kernel's over the same values
// (B rows have NaN past kc: the kernel must neither read them nor count
// them).
TEST(GemmKernelTest, GemvKtMatchesAnFmaChainAndScansB) {
  const int64_t ldb = 131, ldc = 120, lda = 140;
  for (const GemmKernels* kernels : KernelSets()) {
    ASSERT_NE(kernels->gemv_kt_f32, nullptr) << kernels->name;
    ASSERT_NE(kernels->gemv_kt_bf16b_f32, nullptr) << kernels->name;
    const bool fma = kernels->fma_chain;
    // B as f32, and as bf16 patterns (gemv_kt_bf16b_f32): `b` then holds
    // the widened values, the pattern's upper half of an f32 (by hand).
    for (const bool bf16 : {false, true}) {
      for (int mr = 1; mr <= gemm::kGemvKtMaxRows; ++mr) {
        for (int64_t n : {1, 15, 16, 17, 70, 111}) {
          for (int64_t kc : {0, 1, 15, 16, 17, 37, 64, 100}) {
            const std::vector<float> a = RandomF32(mr * lda, 31 + mr);
            std::vector<float> b =
                RandomF32(n * ldb, 32 + static_cast<uint32_t>(kc));
            std::vector<uint16_t> b16(b.size());
            for (size_t i = 0; i < b.size(); ++i) {
              b16[i] =
                  static_cast<uint16_t>(std::bit_cast<uint32_t>(b[i]) >> 16);
              if (bf16) b[i] = std::bit_cast<float>(uint32_t{b16[i]} << 16);
            }
            for (int64_t j = 0; j < n; ++j) {
              for (int64_t k = kc; k < ldb; ++k) {
                b[j * ldb + k] = NAN;
                b16[j * ldb + k] = 0x7fc1;
              }
            }
            if (kc > 3 && n > 2) {  // a subnormal
              b[2 * ldb + 3] = 0x1p-130f;
              b16[2 * ldb + 3] = 0x0008;  // 2^-130 as bf16
            }
            std::vector<float> c(gemm::kGemvKtMaxRows * ldc, 0.25f);
            uint32_t mx = 0, mn = ~0u;
            if (bf16) {
              kernels->gemv_kt_bf16b_f32(mr, kc, a.data(), lda, b16.data(), ldb,
                                         n, c.data(), ldc, &mx, &mn);
            } else {
              kernels->gemv_kt_f32(mr, kc, a.data(), lda, b.data(), ldb, n,
                                   c.data(), ldc, &mx, &mn);
            }
            uint32_t want_mx = 0, want_mn = ~0u;
            for (int64_t j = 0; j < n; ++j) {
              gemm::PortableGemmKernels().scan_f32(b.data() + j * ldb, nullptr,
                                                   kc, std::max<int64_t>(kc, 1),
                                                   kc, &want_mx, &want_mn);
            }
            ASSERT_EQ(mx, want_mx)
                << kernels->name << " bf16 " << bf16 << " mr=" << mr
                << " n=" << n << " kc=" << kc;
            ASSERT_EQ(mn, want_mn)
                << kernels->name << " bf16 " << bf16 << " mr=" << mr
                << " n=" << n << " kc=" << kc;
            ASSERT_TRUE(GemvBlockIsTheChain(
                c, gemm::kGemvKtMaxRows, ldc, mr, n, kc, false, fma, a, lda,
                [&](int64_t k, int64_t j) { return b[j * ldb + k]; }))
                << kernels->name << " bf16 " << bf16 << " mr=" << mr
                << " n=" << n << " kc=" << kc;
            // Without statistics pointers B is not scanned: the same bits.
            std::vector<float> c2(c.size(), 0.25f);
            if (bf16) {
              kernels->gemv_kt_bf16b_f32(mr, kc, a.data(), lda, b16.data(), ldb,
                                         n, c2.data(), ldc, nullptr, nullptr);
            } else {
              kernels->gemv_kt_f32(mr, kc, a.data(), lda, b.data(), ldb, n,
                                   c2.data(), ldc, nullptr, nullptr);
            }
            ASSERT_EQ(
                std::memcmp(c.data(), c2.data(), c.size() * sizeof(float)), 0)
                << kernels->name << " unscanned, bf16 " << bf16 << " mr=" << mr
                << " n=" << n << " kc=" << kc;
          }
        }
      }
    }
  }
}

// A skinny dot through RunDot, batched, on 2 threads: operands of element
// type E (f32 values or bf16 patterns, `to` encodes and `from` decodes)
// into f32, B row-major or K-contiguous. With the FMA-chain kernels and
// m <= gemv_rows (a GEMV takes it) each element must equal a std::fma
// chain in k order over the operands' values (the GEMV's bits; the packed
// f32 path, which turning the GEMV off would take, gives the same);
// otherwise the class-A bound of the long-double reference. An infinity as
// B's last value, seen only by the kernel's own scan, must still take the
// wide fallback; where the K-contiguous GEMV leaves B unscanned (f32
// operands on the FMA-chain kernels: RangeGuard::kCheckEach), only the m
// elements of its column are recomputed.
template <typename E>
void CheckSkinnyDot(PrimitiveType type, E (*to)(float), long double (*from)(E),
                    bool k_contiguous, int64_t m, int64_t gemv_rows) {
  const bool fma = gemm::HostGemmKernels().fma_chain;
  ThreadPool two(2);
  const int64_t batch = 3, n = 300, k = 77;
  Layout layout;
  layout.rhs_nminor = !k_contiguous;  // else rhs [batch][n][k]
  const DotDims d =
      MakeDims(type, type, PrimitiveType::kF32, batch, m, n, k, layout);
  const std::vector<float> af = RandomF32(batch * m * k, 41),
                           bf = RandomF32(batch * k * n, 42);
  std::vector<E> a(af.size()), b(bf.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = to(af[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = to(bf[i]);
  auto b_at = [&](int64_t bi, int64_t kk, int64_t j) {
    return b[k_contiguous ? (bi * n + j) * k + kk : (bi * k + kk) * n + j];
  };
  std::vector<float> c(batch * m * n, NAN);
  ASSERT_TRUE(
      RunDot(d, a.data(), b.data(), c.data(), &two, gemm::HostGemmKernels())
          .ok());
  EXPECT_FALSE(LastDotUsedWideFallback()) << "m=" << m;
  const Ref r = Reference(d, a, b, from, from);
  for (int64_t bi = 0; bi < batch; ++bi) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const int64_t o = (bi * m + i) * n + j;
        if (fma && m <= gemv_rows) {
          float want = 0.0f;
          for (int64_t kk = 0; kk < k; ++kk) {
            want = std::fma(static_cast<float>(from(a[(bi * m + i) * k + kk])),
                            static_cast<float>(from(b_at(bi, kk, j))), want);
          }
          ASSERT_EQ(c[o], want) << "m=" << m << " element " << o;
        } else {
          ASSERT_LE(std::fabs(c[o] - r.y[o]),
                    Bound(r.s[o], k, 0x1p-24, HalfUlpF32(r.y[o])))
              << "m=" << m << " element " << o;
        }
      }
    }
  }
  b[batch * k * n - 1] = to(INFINITY);  // B's last value (column n - 1)
  ASSERT_TRUE(
      RunDot(d, a.data(), b.data(), c.data(), nullptr, gemm::HostGemmKernels())
          .ok());
  const bool check_each =
      fma && k_contiguous && m <= gemv_rows && type == PrimitiveType::kF32;
  EXPECT_EQ(LastDotUsedWideFallback(), !check_each) << "m=" << m;
  if (check_each) {
    EXPECT_EQ(LastDotSmallResultsRecomputed(), m);
  }
  for (int64_t i = 0; i < m; ++i) {
    const float v = c[((batch - 1) * m + i) * n + n - 1];
    EXPECT_TRUE(std::isinf(v) || std::isnan(v)) << "m=" << m << " row " << i;
  }
}

float F32Identity(float v) { return v; }
uint16_t ToBf16(float v) {
  return static_cast<uint16_t>(EncodeFloat(FormatOf(PrimitiveType::kBF16), v));
}

// M <= kGemvKtMaxRows over a K-contiguous f32 B (attention's q . k^T at
// decoding), and the first M above.
TEST(GemmTest, SkinnyShapesOverAKContiguousB) {
  for (int64_t m = 1; m <= gemm::kGemvKtMaxRows + 1; ++m) {
    CheckSkinnyDot<float>(PrimitiveType::kF32, F32Identity, FromF32, true, m,
                          gemm::kGemvKtMaxRows);
  }
}

// The K-contiguous GEMV without B's scan (RangeGuard::kCheckEach), f32,
// 1..kGemvKtMaxRows rows, batched, on 2 threads. Columns 0-4 of each batch
// are built so that their values need judging (each expected value by
// hand); the rest are random and must be the std::fma chain in k order:
//  0: B all zero: 0, kept (its own operands: every product 0);
//  1: 3e38 twice, then -3e38: the chain overflows to inf where the exact
//     sum is 3e38 (f32's 0x7f61c5ba, times the A values of 1 below):
//     recomputed;
//  2: one entry 2^-140 (A's values at k are 1): a subnormal result,
//     recomputed (its product is below the normal range) and exact;
//  3: a NaN: recomputed, NaN;
//  4: 1 and -1: an exact 0, kept (its products are normal).
// So 3 elements per row and batch are recomputed, none through the
// whole-dot fallback. Then an infinity in A's first row: that row's
// elements are inf or NaN and all recomputed, every other element keeps
// its value.
TEST(GemmTest, KContiguousGemvJudgesEachElementWithoutScanningB) {
  if (!gemm::HostGemmKernels().fma_chain) GTEST_SKIP() << "no FMA kernels";
  ThreadPool two(2);
  const int64_t batch = 2, n = 37, k = 40;
  const float big = 3e38f;
  for (int64_t m = 1; m <= gemm::kGemvKtMaxRows; ++m) {
    Layout layout;
    layout.rhs_nminor = false;  // rhs [batch][n][k]
    const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                               PrimitiveType::kF32, batch, m, n, k, layout);
    std::vector<float> a = RandomF32(batch * m * k, 51);
    std::vector<float> b = RandomF32(batch * n * k, 52);
    for (int64_t bi = 0; bi < batch; ++bi) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t kk = 0; kk < 3; ++kk) a[(bi * m + i) * k + kk] = 1.0f;
      }
      float* col = b.data() + bi * n * k;
      std::fill(col, col + 5 * k, 0.0f);
      col[1 * k + 0] = big;
      col[1 * k + 1] = big;
      col[1 * k + 2] = -big;
      col[2 * k + 1] = 0x1p-140f;
      col[3 * k + 2] = NAN;
      col[4 * k + 0] = 1.0f;
      col[4 * k + 1] = -1.0f;
    }
    std::vector<float> c(batch * m * n, -7.0f);
    ASSERT_TRUE(
        RunDot(d, a.data(), b.data(), c.data(), &two, gemm::HostGemmKernels())
            .ok());
    EXPECT_FALSE(LastDotUsedWideFallback()) << "m=" << m;
    EXPECT_EQ(LastDotSmallResultsRecomputed(), 3 * batch * m) << "m=" << m;
    for (int64_t bi = 0; bi < batch; ++bi) {
      for (int64_t i = 0; i < m; ++i) {
        const float* row = c.data() + (bi * m + i) * n;
        EXPECT_EQ(std::bit_cast<uint32_t>(row[0]), 0u) << "m=" << m;
        EXPECT_EQ(row[1], big) << "m=" << m;
        EXPECT_EQ(row[2], 0x1p-140f) << "m=" << m;
        EXPECT_TRUE(std::isnan(row[3])) << "m=" << m;
        EXPECT_EQ(std::bit_cast<uint32_t>(row[4]), 0u) << "m=" << m;
        for (int64_t j = 5; j < n; ++j) {
          float want = 0.0f;
          for (int64_t kk = 0; kk < k; ++kk) {
            want = std::fma(a[(bi * m + i) * k + kk], b[(bi * n + j) * k + kk],
                            want);
          }
          ASSERT_EQ(row[j], want)
              << "m=" << m << " b" << bi << " row " << i << " col " << j;
        }
      }
    }
    const std::vector<float> before = c;
    a[0] = INFINITY;  // batch 0, row 0, k = 0 (A's value there was 1)
    ASSERT_TRUE(
        RunDot(d, a.data(), b.data(), c.data(), &two, gemm::HostGemmKernels())
            .ok());
    EXPECT_FALSE(LastDotUsedWideFallback()) << "m=" << m;
    for (int64_t j = 0; j < n; ++j) {
      // inf * b[j][0]: NaN where that value is 0 (columns 0, 2, 3), else an
      // infinity (a NaN in column 1: inf * 3e38 + inf * 3e38 + 1 * -3e38 is
      // inf; column 3 has its NaN too).
      EXPECT_FALSE(std::isfinite(c[j])) << "m=" << m << " col " << j;
    }
    for (size_t o = n; o < c.size(); ++o) {
      // Column 0 of every other row: kept before, now judged against A's
      // statistics (with the infinity) and recomputed: 0 again.
      ASSERT_EQ(std::bit_cast<uint32_t>(c[o]),
                std::bit_cast<uint32_t>(before[o]))
          << "m=" << m << " element " << o;
    }
  }
}

// The small-result recheck first tests whole output rows at once (chunks
// of 16, then a tail): one element below 2 lambda anywhere in a row must
// still be found. A = 0.75 everywhere; B holds small integers (exact sums)
// but for column p, whose entries are 2^-149: its exact value is
// 8 * 0.75 * 2^-149 = 6 * 2^-149, which an f32 FMA chain misses (each step
// rounds 0.75 * 2^-149 up to 2^-149: 8 * 2^-149). Row-streaming GEMV
// (kCheckSmall) and K-contiguous GEMV (kCheckEach), p in the first chunk,
// at chunk edges and in the tail.
TEST(GemmTest, OneSmallResultAnywhereInARowIsRecomputed) {
  if (!gemm::HostGemmKernels().fma_chain) GTEST_SKIP() << "no FMA kernels";
  const int64_t m = 2, n = 41, k = 8;
  for (bool nminor : {true, false}) {
    for (int64_t p : {0, 7, 15, 16, 31, 32, 40}) {
      Layout layout;
      layout.rhs_nminor = nminor;  // rhs [k][n] or [n][k]
      const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                                 PrimitiveType::kF32, 1, m, n, k, layout);
      std::vector<float> a(m * k, 0.75f), b(k * n);
      for (int64_t kk = 0; kk < k; ++kk) {
        for (int64_t j = 0; j < n; ++j) {
          const float v =
              j == p ? 0x1p-149f : static_cast<float>((kk + j) % 5 + 1);
          b[nminor ? kk * n + j : j * k + kk] = v;
        }
      }
      std::vector<float> c(m * n, -7.0f);
      ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), nullptr,
                         gemm::HostGemmKernels())
                      .ok());
      const std::string what =
          absl::StrCat(nminor ? "rhs [k][n]" : "rhs [n][k]", ", p = ", p);
      EXPECT_FALSE(LastDotUsedWideFallback()) << what;
      EXPECT_EQ(LastDotSmallResultsRecomputed(), m) << what;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          float want = 0x1.8p-147f;  // 6 * 2^-149
          if (j != p) {
            int sum = 0;
            for (int64_t kk = 0; kk < k; ++kk) sum += (kk + j) % 5 + 1;
            want = 0.75f * static_cast<float>(sum);
          }
          EXPECT_EQ(c[i * n + j], want)
              << what << ", row " << i << " col " << j;
        }
      }
    }
  }
}

// A bf16 x bf16 dot into f32, B row-major (the bf16 GEMV, up to
// kGemvBf16MaxRows rows) and K-contiguous (a bf16 key cache: up to
// kGemvKtMaxRows), and the first M above each (the packed paths: the
// hardware dot products pair the terms, held to the bound).
TEST(GemmTest, SkinnyShapesOverABf16B) {
  for (const bool k_contiguous : {false, true}) {
    const int64_t rows =
        k_contiguous ? gemm::kGemvKtMaxRows : gemm::kGemvBf16MaxRows;
    for (int64_t m = 1; m <= rows + 1; ++m) {
      CheckSkinnyDot<uint16_t>(PrimitiveType::kBF16, ToBf16, FromBf16,
                               k_contiguous, m, rows);
    }
  }
}

// Skinny shapes through RunDot: every M of the row-streaming path and
// the first above it, against the long-double reference; a non-finite or
// tiny value in B (seen only by the kernel's own scan) still takes the
// wide fallback.
TEST(GemmTest, SkinnyShapesAndTheirRangeGuard) {
  for (int64_t m = 1; m <= gemm::kGemvMaxRows + 1; ++m) {
    const int64_t n = 300, k = 77;
    const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                               PrimitiveType::kF32, 1, m, n, k, Layout{});
    const std::vector<float> a = RandomF32(m * k, 21);
    std::vector<float> b = RandomF32(k * n, 22);
    std::vector<float> c(m * n, NAN);
    ThreadPool two(2);
    ASSERT_TRUE(
        RunDot(d, a.data(), b.data(), c.data(), &two, gemm::HostGemmKernels())
            .ok());
    EXPECT_FALSE(LastDotUsedWideFallback());
    const Ref r = Reference(d, a, b, FromF32, FromF32);
    for (size_t i = 0; i < c.size(); ++i) {
      ASSERT_LE(std::fabs(c[i] - r.y[i]),
                Bound(r.s[i], k, 0x1p-24, HalfUlpF32(r.y[i])))
          << "m=" << m << " element " << i;
    }
    b[(k - 1) * n + n - 1] = INFINITY;  // B's last value
    ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), nullptr,
                       gemm::HostGemmKernels())
                    .ok());
    EXPECT_TRUE(LastDotUsedWideFallback()) << "m=" << m;
    EXPECT_TRUE(std::isinf(c[n - 1]) || std::isnan(c[n - 1]));
    b[(k - 1) * n + n - 1] = 0x1p-140f;  // a product below the normal range
    ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), nullptr,
                       gemm::HostGemmKernels())
                    .ok());
    // The relaxed rule on FMA-chain kernels (nothing here is below
    // 2^-125), the whole-dot fallback otherwise.
    if (gemm::HostGemmKernels().fma_chain) {
      EXPECT_FALSE(LastDotUsedWideFallback()) << "m=" << m;
      EXPECT_GE(LastDotSmallResultsRecomputed(), 0) << "m=" << m;
    } else {
      EXPECT_TRUE(LastDotUsedWideFallback()) << "m=" << m;
    }
    const Ref r2 = Reference(d, a, b, FromF32, FromF32);
    for (size_t i = 0; i < c.size(); ++i) {
      ASSERT_LE(std::fabs(c[i] - r2.y[i]),
                Bound(r2.s[i], k, 0x1p-24, HalfUlpF32(r2.y[i])))
          << "m=" << m << " element " << i;
    }
  }
}

// Skinny shapes whose C rows are a multiple of 128 bytes apart (the kernel
// then accumulates into a scratch block with an odd number of lines per
// row and copies it out, RunGemvItems), with batches, a k-major A (the
// per-element A loader) and 2 threads: on the FMA-chain kernels each
// element must equal, bit for bit, a std::fma chain in k order computed
// here (the row-major result written in place has the same chain); the
// portable kernels are held to the class-A bound of a long-double
// reference.
TEST(GemmTest, SkinnyShapesThroughTheScratchBlock) {
  const bool fma = gemm::HostGemmKernels().fma_chain;
  ThreadPool two(2);
  for (int64_t m : {2, 8, 17, 32}) {
    for (int64_t n : {32, 512, 544}) {  // rows of 128, 2048, 2176 bytes
      for (int lay = 0; lay < 2; ++lay) {
        const int64_t batch = lay == 1 ? 2 : 1, k = 45;
        const Layout layout{lay == 1, true, true};
        const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                                   PrimitiveType::kF32, batch, m, n, k, layout);
        const std::vector<float> a = RandomF32(batch * m * k, 41 + m);
        const std::vector<float> b = RandomF32(batch * k * n, 42 + n);
        std::vector<float> c(batch * m * n, NAN);
        ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), &two,
                           gemm::HostGemmKernels())
                        .ok());
        ASSERT_FALSE(LastDotUsedWideFallback());
        const Ref r = Reference(d, a, b, FromF32, FromF32);
        using D = DotDims::Dim;
        for (int64_t bi = 0; bi < batch; ++bi) {
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              const int64_t o = Offset(d.batch, bi, &D::out) + i * d.m[0].out +
                                j * d.n[0].out;
              if (!fma) {
                ASSERT_LE(std::fabs(c[o] - r.y[o]),
                          Bound(r.s[o], k, 0x1p-24, HalfUlpF32(r.y[o])));
                continue;
              }
              float want = 0.0f;
              for (int64_t q = 0; q < k; ++q) {
                want = std::fma(a[Offset(d.batch, bi, &D::lhs) +
                                  i * d.m[0].lhs + q * d.k[0].lhs],
                                b[Offset(d.batch, bi, &D::rhs) +
                                  j * d.n[0].rhs + q * d.k[0].rhs],
                                want);
              }
              ASSERT_EQ(c[o], want)
                  << "m=" << m << " n=" << n << " layout " << lay << " batch "
                  << bi << " row " << i << " col " << j;
            }
          }
        }
      }
    }
  }
}

// The f64 skinny path at 17 .. 32 rows, in place (rows of 2400 bytes) and
// through the scratch block (rows of 2048 bytes): each element bit for bit
// a std::fma chain in k order on the FMA-chain kernels, within the class-A
// bound (plus the long-double reference's own error) otherwise.
TEST(GemmTest, F64SkinnyShapesUpTo32Rows) {
  const bool fma = gemm::HostGemmKernels().fma_chain;
  // m <= 4 with n <= 32: the narrow GEMV (C in registers, up to four
  // vectors of 8).
  for (int64_t m : {1, 3, 17, 32}) {
    for (int64_t n : {20, 32, 256, 300}) {
      // k = 300: three of the register-tiled form's 128-row blocks.
      for (const int64_t k : {int64_t{61}, int64_t{300}}) {
        const DotDims d = MakeDims(PrimitiveType::kF64, PrimitiveType::kF64,
                                   PrimitiveType::kF64, 1, m, n, k, Layout{});
        std::mt19937 rng(static_cast<uint32_t>(m * n));
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        std::vector<double> a(m * k), b(k * n), c(m * n, NAN);
        for (auto& x : a) x = u(rng);
        for (auto& x : b) x = u(rng);
        ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), nullptr,
                           gemm::HostGemmKernels())
                        .ok());
        const Ref r = Reference(d, a, b, FromF64, FromF64);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            const double got = c[i * n + j];
            if (fma) {
              double want = 0.0;
              for (int64_t q = 0; q < k; ++q) {
                want = std::fma(a[i * k + q], b[q * n + j], want);
              }
              ASSERT_EQ(got, want)
                  << "m=" << m << " n=" << n << " at " << i << "," << j;
            } else {
              const long double ref_err = k * 0x1p-64L * r.s[i * n + j];
              ASSERT_LE(std::fabs(got - r.y[i * n + j]),
                        Bound(r.s[i * n + j], k, 0x1p-53,
                              HalfUlpF64(r.y[i * n + j])) +
                            ref_err);
            }
          }
        }
      }
    }
  }
}

// Fast mode (RunDot fast = true): bf16 x bf16 on vdpbf16ps where the host
// has AVX512_BF16. On normal data it meets the class-A bound (products of
// bf16 values are exact in f32; each pair adds two roundings, within
// gamma_K(u) S); every layout and the edge shapes, K odd (a padded pair).
// The bf16 dot-product paths' tests run skinny shapes (m = 1 edges) on
// those paths: the bf16 GEMV, which would take them, is off in their scope.
struct Bf16GemvOff {
  Bf16GemvOff() { SetBf16GemvAllowed(false); }
  ~Bf16GemvOff() { SetBf16GemvAllowed(true); }
};

// Runs body(amx) with the fast mode on vdpbf16ps (amx = false) and, where
// the host has AMX, on tdpbf16ps (amx = true); restores the default.
template <typename Body>
void ForEachFastBf16Path(Body body) {
  for (bool amx : {false, true}) {
    if (amx && gemm::HostBf16AmxKernel() == nullptr) continue;
    SetAmxAllowed(amx);
    body(amx);
  }
  SetAmxAllowed(true);
}

// Both modes on the hardware dot products: the fast mode always, the
// conformant mode (fast = false) because random data keeps every product
// and sum normal, so its result is kept (LastDotUsedBf16DotProducts) and
// never redone. Every layout; results bit-identical on 1 and 2 threads.
TEST(GemmTest, Bf16DotProductsMatchLongDoubleReference) {
  const Bf16GemvOff no_gemv;
  const FloatFormat& bf16 = FormatOf(PrimitiveType::kBF16);
  if (gemm::HostBf16DotKernels() == nullptr) {
    GTEST_SKIP() << "no AVX512_BF16 on this host: bf16 runs on the f32 kernel";
  }
  ForEachFastBf16Path([&](bool amx) {
    for (bool fast : {true, false}) {
      for (const auto& [m, n, k] : kShapes) {
        for (int lay = 0; lay < 8; ++lay) {
          const Layout layout{(lay & 1) != 0, (lay & 2) == 0, (lay & 4) == 0};
          const int64_t batch = lay == 5 ? 3 : 1;
          const DotDims d =
              MakeDims(PrimitiveType::kBF16, PrimitiveType::kBF16,
                       PrimitiveType::kF32, batch, m, n, k, layout);
          const std::vector<float> af = RandomF32(batch * m * k, 31 + m);
          const std::vector<float> bf = RandomF32(batch * k * n, 32 + n);
          std::vector<uint16_t> a(af.size()), b(bf.size());
          for (size_t i = 0; i < a.size(); ++i) {
            a[i] = EncodeFloat(bf16, af[i]);
          }
          for (size_t i = 0; i < b.size(); ++i) {
            b[i] = EncodeFloat(bf16, bf[i]);
          }
          std::vector<float> c1(batch * m * n, NAN), c2(batch * m * n, NAN);
          ThreadPool two(2);
          ASSERT_TRUE(RunDot(d, a.data(), b.data(), c1.data(), nullptr,
                             gemm::HostGemmKernels(), fast)
                          .ok());
          ASSERT_TRUE(LastDotUsedBf16DotProducts())
              << "m=" << m << " n=" << n << " k=" << k << " fast=" << fast;
          EXPECT_EQ(LastDotUsedFastPath(), fast);
          EXPECT_FALSE(LastDotDiscardedBf16DotProducts());
          EXPECT_EQ(LastDotUsedAmx(), amx);
          EXPECT_FALSE(LastDotUsedWideFallback());
          ASSERT_TRUE(RunDot(d, a.data(), b.data(), c2.data(), &two,
                             gemm::HostGemmKernels(), fast)
                          .ok());
          const Ref r = Reference(d, a, b, FromBf16, FromBf16);
          for (size_t i = 0; i < c1.size(); ++i) {
            ASSERT_LE(std::fabs(c1[i] - r.y[i]),
                      Bound(r.s[i], k, 0x1p-24, HalfUlpF32(r.y[i])))
                << "m=" << m << " n=" << n << " k=" << k << " layout=" << lay
                << " amx=" << amx << " fast=" << fast << " element " << i;
            ASSERT_EQ(std::bit_cast<uint32_t>(c1[i]),
                      std::bit_cast<uint32_t>(c2[i]))
                << "1 vs 2 threads, element " << i;
          }
        }
      }
    }
  });
}

// The AMX kernel (tdpbf16ps, 2 x 2 tiles of 16 x 16 f32) on the shapes
// that hit each of its edges: M not a multiple of 16 or 32 (one row tile,
// a partial second one), N not a multiple of 16 / 32 / 64 (one column
// tile, masked stores), K odd and not a multiple of 32 (a padded pair and
// zero pair rows up to the tile depth), K above the K block (the sums of
// two blocks added). The reference is Reference(): the exact products
// summed in long double from the decoded bf16 inputs, independent of the
// kernel; the bound is the class-A bound with m = K in f32's unit (every
// product is exact in f32, each pair adds at most two roundings).
TEST(GemmTest, AmxBf16MatchesLongDoubleReferenceOnEdgeShapes) {
  const Bf16GemvOff no_gemv;
  if (gemm::HostBf16AmxKernel() == nullptr ||
      gemm::HostBf16DotKernels() == nullptr) {
    GTEST_SKIP() << "no AMX-BF16 on this host (cpuid, or arch_prctl "
                    "refused the tile state): the fast mode uses vdpbf16ps";
  }
  const FloatFormat& bf16 = FormatOf(PrimitiveType::kBF16);
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {1, 1, 1},    {1, 17, 3},     {15, 16, 31},  {16, 33, 32},
      {17, 47, 33}, {31, 65, 63},   {33, 95, 65},  {32, 64, 1},
      {47, 1, 97},  {65, 130, 515}, {3, 200, 1201}};
  SetAmxAllowed(true);
  for (const auto& [m, n, k] : shapes) {
    for (int lay : {0, 1, 6}) {
      const Layout layout{(lay & 1) != 0, (lay & 2) == 0, (lay & 4) == 0};
      const DotDims d = MakeDims(PrimitiveType::kBF16, PrimitiveType::kBF16,
                                 PrimitiveType::kF32, 1, m, n, k, layout);
      const std::vector<float> af = RandomF32(m * k, 71 + m + k);
      const std::vector<float> bf = RandomF32(k * n, 72 + n + k);
      std::vector<uint16_t> a(af.size()), b(bf.size());
      for (size_t i = 0; i < a.size(); ++i) a[i] = EncodeFloat(bf16, af[i]);
      for (size_t i = 0; i < b.size(); ++i) b[i] = EncodeFloat(bf16, bf[i]);
      std::vector<float> c(m * n, NAN);
      ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), nullptr,
                         gemm::HostGemmKernels(), /*fast=*/true)
                      .ok());
      ASSERT_TRUE(LastDotUsedAmx()) << "m=" << m << " n=" << n << " k=" << k;
      const Ref r = Reference(d, a, b, FromBf16, FromBf16);
      for (size_t i = 0; i < c.size(); ++i) {
        ASSERT_LE(std::fabs(c[i] - r.y[i]),
                  Bound(r.s[i], k, 0x1p-24, HalfUlpF32(r.y[i])))
            << "m=" << m << " n=" << n << " k=" << k << " layout=" << lay
            << " element " << i;
      }
    }
  }
}

// What vdpbf16ps does with subnormals, measured on this host (the reason
// the fast mode needs --deviations=ftz=f32+bf16): a product of two normal
// bf16 values below f32's normal range (2^-70 * 2^-70 = 2^-140) and a
// subnormal bf16 input (2^-130 * 2^10 = 2^-120, a normal product) both
// come out as 0, where the conformant path (its range guard sends tiny
// products to the wide fallback) gives them exactly. Inf and NaN inputs
// still take the wide fallback in fast mode.
TEST(GemmTest, FastBf16FlushesSubnormals) {
  const Bf16GemvOff no_gemv;
  if (gemm::HostBf16DotKernels() == nullptr) {
    GTEST_SKIP() << "no AVX512_BF16 on this host";
  }
  ForEachFastBf16Path([&](bool amx) {
    SCOPED_TRACE(amx ? "tdpbf16ps (AMX)" : "vdpbf16ps");
    const FloatFormat& bf16 = FormatOf(PrimitiveType::kBF16);
    const int64_t m = 6, n = 64, k = 2;
    const DotDims d = MakeDims(PrimitiveType::kBF16, PrimitiveType::kBF16,
                               PrimitiveType::kF32, 1, m, n, k, Layout{});
    struct Case {
      float a, b, exact;
    };
    for (const Case& cs : {Case{0x1p-70f, 0x1p-70f, 0x1p-139f},
                           Case{0x1p-130f, 0x1p10f, 0x1p-119f}}) {
      std::vector<uint16_t> a(m * k, EncodeFloat(bf16, cs.a));
      std::vector<uint16_t> b(k * n, EncodeFloat(bf16, cs.b));
      std::vector<float> c(m * n, NAN);
      for (bool fast : {false, true}) {
        ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), nullptr,
                           gemm::HostGemmKernels(), fast)
                        .ok());
        EXPECT_EQ(LastDotUsedFastPath(), fast);
        for (float v : c) {
          ASSERT_EQ(v, fast ? 0.0f : cs.exact) << "fast=" << fast;
        }
      }
    }
    std::vector<uint16_t> a(m * k, EncodeFloat(bf16, 1.0f));
    std::vector<uint16_t> b(k * n, EncodeFloat(bf16, 2.0f));
    a[0] = EncodeFloat(bf16, INFINITY);
    std::vector<float> c(m * n);
    ASSERT_TRUE(RunDot(d, a.data(), b.data(), c.data(), nullptr,
                       gemm::HostGemmKernels(), /*fast=*/true)
                    .ok());
    EXPECT_TRUE(LastDotUsedWideFallback());
    EXPECT_TRUE(std::isinf(c[0]));
    EXPECT_EQ(c[n], 4.0f);
  });
}

// The conformant mode's guard for the bf16 dot-product instructions
// (kernel_support::Bf16ProductsStayNormal), on statistics written by hand:
// it holds exactly when both operands' smallest nonzero magnitudes are
// normal and their exponents sum to -112 or more (the products' common
// quantum 2^(Ea + Eb - 14) is then at least 2^-126).
TEST(GemmTest, Bf16GuardNeedsNormalOperandsAndAQuantumAboveTheSubnormals) {
  auto stats = [](float min_nz) {
    kernel_support::Stats<float> st;
    const uint32_t bits = std::bit_cast<uint32_t>(std::fabs(min_nz));
    st.max_abs = std::bit_cast<uint32_t>(1.0f);
    st.min_nz_minus1 = bits - 1;
    return st;
  };
  using kernel_support::Bf16ProductsStayNormal;
  EXPECT_TRUE(Bf16ProductsStayNormal(stats(0x1p-56f), stats(0x1p-56f)));
  EXPECT_TRUE(Bf16ProductsStayNormal(stats(0x1.fep-57f), stats(0x1p-55f)));
  EXPECT_FALSE(Bf16ProductsStayNormal(stats(0x1p-56f), stats(0x1.fep-57f)));
  EXPECT_TRUE(Bf16ProductsStayNormal(stats(0x1p-126f), stats(0x1p14f)));
  // A subnormal input, even with a normal product (2^-127 * 2^20).
  EXPECT_FALSE(Bf16ProductsStayNormal(stats(0x1p-127f), stats(0x1p20f)));
  EXPECT_FALSE(Bf16ProductsStayNormal(stats(0x1p20f), stats(0x1p-133f)));
  // An operand without a nonzero entry: every product is 0.
  EXPECT_TRUE(
      Bf16ProductsStayNormal(kernel_support::Stats<float>(), stats(0x1p-133f)));
}

// BalancedBlocks (kernel_support.h) by hand: the item count (base x
// blocks) becomes a multiple of the thread count where the block limit
// allows, else the count is kept.
TEST(GemmTest, BalancedBlocksMakeTheItemsAMultipleOfTheThreads) {
  using kernel_support::BalancedBlocks;
  EXPECT_EQ(BalancedBlocks(5, 1, 2, 65), 6);  // 3136 rows of 768: 5 -> 6
  EXPECT_EQ(BalancedBlocks(5, 1, 1, 65), 5);  // one thread: unchanged
  EXPECT_EQ(BalancedBlocks(4, 1, 2, 65), 4);  // already even
  EXPECT_EQ(BalancedBlocks(1, 5, 2, 10), 2);  // 5 x 2 = 10 items
  EXPECT_EQ(BalancedBlocks(2, 3, 3, 10), 2);  // 6 items over 3 threads
  EXPECT_EQ(BalancedBlocks(4, 1, 3, 65), 6);  // 4 -> 6 over 3 threads
  EXPECT_EQ(BalancedBlocks(5, 1, 2, 5), 5);   // at the limit: kept
  EXPECT_EQ(BalancedBlocks(9, 1, 2, 5), 5);   // clamped to the limit
  EXPECT_EQ(BalancedBlocks(3, 1, 2, 0), 1);   // no room: one block
}

// Sets conformant_bf16_dp for the scope of one test and restores it.
struct ConformantBf16DotProducts {
  explicit ConformantBf16DotProducts(bool on) {
    SetConformantBf16DotProductsAllowed(on);
  }
  ~ConformantBf16DotProducts() { SetConformantBf16DotProductsAllowed(true); }
};

// A 6 x 64 x 2 bf16 x bf16 -> f32 dot in the conformant mode, A row-major
// [6][2] and B row-major [2][64] given by value(i, k) and value(k, j)
// (encoded to bf16); returns C row-major.
template <typename AOf, typename BOf>
std::vector<float> ConformantBf16Dot6x64x2(AOf a_of, BOf b_of) {
  const FloatFormat& bf16 = FormatOf(PrimitiveType::kBF16);
  const int64_t m = 6, n = 64, k = 2;
  const DotDims d = MakeDims(PrimitiveType::kBF16, PrimitiveType::kBF16,
                             PrimitiveType::kF32, 1, m, n, k, Layout{});
  std::vector<uint16_t> a(m * k), b(k * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t q = 0; q < k; ++q)
      a[i * k + q] = EncodeFloat(bf16, a_of(i, q));
  }
  for (int64_t q = 0; q < k; ++q) {
    for (int64_t j = 0; j < n; ++j)
      b[q * n + j] = EncodeFloat(bf16, b_of(q, j));
  }
  std::vector<float> c(m * n, NAN);
  EXPECT_TRUE(
      RunDot(d, a.data(), b.data(), c.data(), nullptr, gemm::HostGemmKernels())
          .ok());
  return c;
}

// The instructions round to nearest: 1 + 3 * 2^-25 (0.75 of an ulp above
// 1) must give 1 + 2^-23 and 1 + 2^-25 must give 1, which truncation or
// rounding up would not (a rounding that errs by more than half an ulp
// could break the class-A bound, which only allows u per step).
TEST(GemmTest, ConformantBf16DotProductsRoundToNearest) {
  const Bf16GemvOff no_gemv;
  if (gemm::HostBf16DotKernels() == nullptr) {
    GTEST_SKIP() << "no AVX512_BF16 on this host";
  }
  ForEachFastBf16Path([&](bool amx) {
    SCOPED_TRACE(amx ? "tdpbf16ps (AMX)" : "vdpbf16ps");
    struct Case {
      float small_a, small_b, want;
    };
    for (const Case& cs : {Case{0x1.8p-12f, 0x1p-12f, 1.0f + 0x1p-23f},
                           Case{0x1p-12f, 0x1p-13f, 1.0f}}) {
      // Row i of A: [1, small] or [small, 1], so both pair orders are seen;
      // column j of B likewise.
      const std::vector<float> c = ConformantBf16Dot6x64x2(
          [&](int64_t i, int64_t q) { return q == i % 2 ? 1.0f : cs.small_a; },
          [&](int64_t q, int64_t j) { return q == j % 2 ? 1.0f : cs.small_b; });
      ASSERT_TRUE(LastDotUsedBf16DotProducts());
      for (int64_t i = 0; i < 6; ++i) {
        for (int64_t j = 0; j < 64; ++j) {
          // Rows and columns of the same parity meet 1 * 1 + small * small.
          if ((i % 2) != (j % 2)) continue;
          ASSERT_EQ(c[i * 64 + j], cs.want) << "i=" << i << " j=" << j;
        }
      }
    }
  });
}

// Operands that could meet a subnormal on the instructions: the
// conformant run on them is discarded and the dot runs again on the f32
// kernel, which gives the exact values. Each case's exact value is worked
// out by hand; the first three are flushed to 0 by the instructions
// (GemmTest.FastBf16FlushesSubnormals), the last is not but its exponents
// are below the guard. The hand boundary case (Ea + Eb = -112) keeps the
// instructions' result.
TEST(GemmTest, ConformantBf16RedoesDotsThatCouldMeetSubnormals) {
  const Bf16GemvOff no_gemv;
  if (gemm::HostBf16DotKernels() == nullptr) {
    GTEST_SKIP() << "no AVX512_BF16 on this host";
  }
  ForEachFastBf16Path([&](bool amx) {
    SCOPED_TRACE(amx ? "tdpbf16ps (AMX)" : "vdpbf16ps");
    struct Case {
      float a0, a1, b0, b1, exact;
      bool redone;
    };
    // a0 b0 + a1 b1, every row of A the same, every column of B the same.
    for (const Case& cs :
         {// A product below f32's normal range: 2 * 2^-140.
          Case{0x1p-70f, 0x1p-70f, 0x1p-70f, 0x1p-70f, 0x1p-139f, true},
          // A subnormal input with a normal product: 2 * 2^-120.
          Case{0x1p-130f, 0x1p-130f, 0x1p10f, 0x1p10f, 0x1p-119f, true},
          // Normal products cancelling into the subnormals:
          // (1 + 2^-7) 2^-120 - 2^-120 = 2^-127.
          Case{0x1.02p-60f, -0x1p-60f, 0x1p-60f, 0x1p-60f, 0x1p-127f, true},
          // Ea + Eb = -113: normal throughout, but below the guard.
          Case{0x1p-56f, 0x1p-56f, 0x1p-57f, 0x1p-57f, 0x1p-112f, true},
          // Ea + Eb = -112: kept.
          Case{0x1p-56f, 0x1p-56f, 0x1p-56f, 0x1p-56f, 0x1p-111f, false}}) {
      const std::vector<float> c = ConformantBf16Dot6x64x2(
          [&](int64_t, int64_t q) { return q == 0 ? cs.a0 : cs.a1; },
          [&](int64_t q, int64_t) { return q == 0 ? cs.b0 : cs.b1; });
      EXPECT_EQ(LastDotDiscardedBf16DotProducts(), cs.redone) << cs.exact;
      EXPECT_EQ(LastDotUsedBf16DotProducts(), !cs.redone) << cs.exact;
      for (float v : c) ASSERT_EQ(v, cs.exact);
    }
  });
  // With the instructions not allowed, nothing is run on them.
  ConformantBf16DotProducts off(false);
  const std::vector<float> c =
      ConformantBf16Dot6x64x2([](int64_t, int64_t) { return 1.0f; },
                              [](int64_t, int64_t) { return 2.0f; });
  EXPECT_FALSE(LastDotUsedBf16DotProducts());
  EXPECT_FALSE(LastDotDiscardedBf16DotProducts());
  for (float v : c) ASSERT_EQ(v, 4.0f);
}

TEST(GemmTest, ZeroKGivesZeros) {
  const DotDims d = MakeDims(PrimitiveType::kF32, PrimitiveType::kF32,
                             PrimitiveType::kF32, 1, 5, 7, 0, Layout{});
  std::vector<float> c(35, NAN);
  ASSERT_TRUE(
      RunDot(d, nullptr, nullptr, c.data(), nullptr, gemm::HostGemmKernels())
          .ok());
  for (float v : c) ASSERT_EQ(v, 0.0f);
}

TEST(GemmTest, DescriptorRoundTripAndErrors) {
  DotDims d =
      MakeDims(PrimitiveType::kF32, PrimitiveType::kBF16, PrimitiveType::kF32,
               2, 3, 4, 5, Layout{true, false, true});
  const std::vector<int64_t> v = EncodeDotDims(d);
  absl::StatusOr<DotDims> back = DecodeDotDims(v.data());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->rhs_type, PrimitiveType::kBF16);
  ASSERT_EQ(back->k.size(), 1u);
  EXPECT_EQ(back->k[0].lhs, d.k[0].lhs);
  std::vector<int64_t> bad = v;
  bad[0] = 99;
  EXPECT_FALSE(DecodeDotDims(bad.data()).ok());
  DotDims c64 = d;
  c64.out_type = PrimitiveType::kC64;
  EXPECT_EQ(
      RunDot(c64, nullptr, nullptr, nullptr, nullptr, gemm::HostGemmKernels())
          .code(),
      absl::StatusCode::kUnimplemented);
}

// kernel_support::Scratch keeps blocks of 64 KiB and more per thread
// (ScratchCache): a block freed is the next one of at most its size, the
// smallest that fits; blocks alive together are distinct; every block is
// 64-byte aligned; a thread's blocks are its own.
TEST(ScratchCacheTest, FreedBlocksAreReusedPerThread) {
  using kernel_support::Scratch;
  // On a thread of its own, whose cache starts empty: the blocks earlier
  // tests of this process left in the main thread's cache would be
  // chosen first (the test failed when the whole binary ran in one
  // process). That thread keeps its blocks while the other one runs.
  std::thread fresh([] {
    const void* big = nullptr;
    const void* small = nullptr;
    {
      Scratch a(512 << 10);
      Scratch b(256 << 10);
      ASSERT_NE(a.p, nullptr);
      ASSERT_NE(b.p, nullptr);
      EXPECT_NE(a.p, b.p);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(a.p) % 64, 0u);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(b.p) % 64, 0u);
      big = a.p;
      small = b.p;
      std::memset(a.p, 1, 512 << 10);  // the whole block is usable
    }
    {
      Scratch c(200 << 10);  // the smallest kept block that fits
      EXPECT_EQ(c.p, small);
      Scratch d(300 << 10);
      EXPECT_EQ(d.p, big);
      Scratch e(300 << 10);  // none left: new storage
      EXPECT_NE(e.p, big);
      EXPECT_NE(e.p, small);
    }
    const void* other = nullptr;
    std::thread t([&] {
      Scratch f(256 << 10);
      other = f.p;
    });
    t.join();
    EXPECT_NE(other, small);
    EXPECT_NE(other, big);
  });
  fresh.join();
}

}  // namespace
}  // namespace hloref::cpu
