// The GEMM microkernels (layouts and summation order: gemm_kernels.h).
//
// Why C++ with intrinsics compiled into the runtime library, and not LLVM
// IR emitted per module (docs/cpu-kernels.md has the long version): a GEMM
// call does O(M N K) work behind one call, so inlining it into the JIT
// module buys nothing measurable above the small-shape threshold (small
// dots stay on the elemental IR emitter, which does inline); the kernels
// are compiled once by the host compiler with per-function target
// attributes, dispatched by CPUID at run time, and serve the JIT and
// ahead-of-time objects alike (both link hloref_cpu_runtime); and a
// register-tiled kernel is easier to get right, read and unit-test as a
// C++ function than as IR built instruction by instruction.
#include "backends/cpu/runtime/gemm_kernels.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <type_traits>

#include "backends/cpu/runtime/avx2_tile.h"
#include "backends/cpu/runtime/kernel_support.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/cpu/runtime/avx2_tile.h"
#define HLOREF_GEMM_X86 1
#endif

namespace hloref::cpu::gemm {
namespace {

// ---- portable kernels: the compiler vectorises the j loops for the
// baseline ISA. Products and sums round separately (no contraction in ISO
// mode); the bound of numerics.md 7.3 covers both.

template <typename T, int kNr>
void PortableFloat(int64_t kc, const T* a, const T* b, int64_t ldb, T* c,
                   int64_t ldc, int mr, int nr, bool accumulate,
                   bool /*full_b_rows*/) {
  T acc[kGemmMr][kNr];
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < kNr; ++j) {
      acc[r][j] = accumulate && j < nr ? c[r * ldc + j] : T(0);
    }
  }
  for (int64_t k = 0; k < kc; ++k) {
    const T* brow = b + k * ldb;
    for (int r = 0; r < mr; ++r) {
      const T ar = a[k * kGemmMr + r];
      for (int j = 0; j < nr; ++j) acc[r][j] += ar * brow[j];
    }
  }
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nr; ++j) c[r * ldc + j] = acc[r][j];
  }
}

void PortableF32(int64_t kc, const float* a, const float* b, int64_t ldb,
                 float* c, int64_t ldc, int mr, int nr, bool accumulate,
                 bool full) {
  PortableFloat<float, kGemmNrF32>(kc, a, b, ldb, c, ldc, mr, nr, accumulate,
                                   full);
}
void PortableF64(int64_t kc, const double* a, const double* b, int64_t ldb,
                 double* c, int64_t ldc, int mr, int nr, bool accumulate,
                 bool full) {
  PortableFloat<double, kGemmNrF64>(kc, a, b, ldb, c, ldc, mr, nr, accumulate,
                                    full);
}

void PortableInt(int64_t kp, const int16_t* a, const int16_t* b, int64_t ldb,
                 int32_t* c, int64_t ldc, int mr, int nr, bool accumulate,
                 bool /*full_b_rows*/) {
  // Unsigned arithmetic: the s32 sum wraps (two's complement) without UB.
  uint32_t acc[kGemmMr][kGemmNrInt];
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < kGemmNrInt; ++j) {
      acc[r][j] =
          accumulate && j < nr ? static_cast<uint32_t>(c[r * ldc + j]) : 0u;
    }
  }
  for (int64_t p = 0; p < kp; ++p) {
    const int16_t* brow = b + p * ldb;
    for (int r = 0; r < mr; ++r) {
      const int32_t a0 = a[(p * kGemmMr + r) * 2];
      const int32_t a1 = a[(p * kGemmMr + r) * 2 + 1];
      for (int j = 0; j < nr; ++j) {
        // |a0 b0 + a1 b1| <= 2 * 32768^2 = 2^31: computed in 64 bits.
        const int64_t s =
            int64_t{a0} * brow[2 * j] + int64_t{a1} * brow[2 * j + 1];
        acc[r][j] += static_cast<uint32_t>(s);
      }
    }
  }
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nr; ++j)
      c[r * ldc + j] = static_cast<int32_t>(acc[r][j]);
  }
}

// T's values are copied as T and scanned as their bit patterns U
// (std::bit_cast: the buffers hold T objects, which may not be read
// through a U lvalue).
template <typename T, typename U>
void PortableCopyScan(const T* src, T* dst, int64_t n, int64_t chunk,
                      int64_t dst_stride, U* max_abs, U* min_nz_m1) {
  static_assert(sizeof(T) == sizeof(U));
  constexpr U kAbs = ~U{0} >> 1;
  U mx = *max_abs, mn = *min_nz_m1;
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t len = std::min(chunk, n - c0);
    T* d = dst != nullptr ? dst + (c0 / chunk) * dst_stride : nullptr;
    for (int64_t i = 0; i < len; ++i) {
      const T v = src[c0 + i];
      if (d != nullptr) d[i] = v;
      const U u = std::bit_cast<U>(v) & kAbs;
      mx = u > mx ? u : mx;
      mn = u - 1 < mn ? u - 1 : mn;
    }
  }
  *max_abs = mx;
  *min_nz_m1 = mn;
}
void PortableCopyScan32(const float* src, float* dst, int64_t n, int64_t chunk,
                        int64_t dst_stride, uint32_t* mx, uint32_t* mn) {
  PortableCopyScan<float, uint32_t>(src, dst, n, chunk, dst_stride, mx, mn);
}
void PortableCopyScan64(const double* src, double* dst, int64_t n,
                        int64_t chunk, int64_t dst_stride, uint64_t* mx,
                        uint64_t* mn) {
  PortableCopyScan<double, uint64_t>(src, dst, n, chunk, dst_stride, mx, mn);
}

template <typename T, typename U>
void PortableGemv(int mr, int64_t kc, const T* a, int64_t lda, const T* b,
                  int64_t ldb, int64_t n, T* c, int64_t ldc, bool accumulate,
                  U* max_abs, U* min_nz_m1) {
  for (int m = 0; m < mr; ++m) {
    if (!accumulate) {
      for (int64_t j = 0; j < n; ++j) c[m * ldc + j] = T(0);
    }
  }
  for (int64_t k = 0; k < kc; ++k) {
    const T* brow = b + k * ldb;
    PortableCopyScan<T, U>(brow, nullptr, n, n, n, max_abs, min_nz_m1);
    for (int m = 0; m < mr; ++m) {
      const T am = a[m * lda + k];
      T* crow = c + m * ldc;
      for (int64_t j = 0; j < n; ++j) crow[j] += am * brow[j];
    }
  }
}
void PortableGemvF32(int mr, int64_t kc, const float* a, int64_t lda,
                     const float* b, int64_t ldb, int64_t n, float* c,
                     int64_t ldc, bool accumulate, uint32_t* mx, uint32_t* mn) {
  PortableGemv<float, uint32_t>(mr, kc, a, lda, b, ldb, n, c, ldc, accumulate,
                                mx, mn);
}
void PortableGemvF64(int mr, int64_t kc, const double* a, int64_t lda,
                     const double* b, int64_t ldb, int64_t n, double* c,
                     int64_t ldc, bool accumulate, uint64_t* mx, uint64_t* mn) {
  PortableGemv<double, uint64_t>(mr, kc, a, lda, b, ldb, n, c, ldc, accumulate,
                                 mx, mn);
}

// GemvKernelBf16B in ISO C++: each B row widened into a local row, then
// as PortableGemv.
void PortableGemvBf16B(int mr, int64_t kc, const float* a, int64_t lda,
                       const uint16_t* b, int64_t ldb, int64_t n, float* c,
                       int64_t ldc, bool accumulate, uint32_t* mx,
                       uint32_t* mn) {
  std::vector<float> row(static_cast<size_t>(std::max<int64_t>(n, 1)));
  if (!accumulate) {
    for (int m = 0; m < mr; ++m) {
      for (int64_t j = 0; j < n; ++j) c[m * ldc + j] = 0.0f;
    }
  }
  for (int64_t k = 0; k < kc; ++k) {
    for (int64_t j = 0; j < n; ++j) {
      row[j] = std::bit_cast<float>(uint32_t{b[k * ldb + j]} << 16);
    }
    PortableGemv<float, uint32_t>(mr, 1, a + k, lda, row.data(), n, n, c, ldc,
                                  true, mx, mn);
  }
}

// GemvKtKernelF32 in ISO C++: each element a sum in k order (products
// rounded separately: no contraction), rows of B scanned as they are read.
void PortableGemvKtF32(int mr, int64_t kc, const float* a, int64_t lda,
                       const float* b, int64_t ldb, int64_t n, float* c,
                       int64_t ldc, uint32_t* mx, uint32_t* mn) {
  for (int64_t j = 0; j < n; ++j) {
    const float* brow = b + j * ldb;
    if (mx != nullptr) {
      PortableCopyScan<float, uint32_t>(brow, nullptr, kc, kc, kc, mx, mn);
    }
    for (int m = 0; m < mr; ++m) {
      float s = 0.0f;
      for (int64_t k = 0; k < kc; ++k) s += a[m * lda + k] * brow[k];
      c[m * ldc + j] = s;
    }
  }
}

// GemvKtKernelBf16B in ISO C++: each B row widened into a local row, then
// as PortableGemvKtF32.
void PortableGemvKtBf16B(int mr, int64_t kc, const float* a, int64_t lda,
                         const uint16_t* b, int64_t ldb, int64_t n, float* c,
                         int64_t ldc, uint32_t* mx, uint32_t* mn) {
  std::vector<float> row(static_cast<size_t>(std::max<int64_t>(kc, 1)));
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t k = 0; k < kc; ++k) {
      row[k] = std::bit_cast<float>(uint32_t{b[j * ldb + k]} << 16);
    }
    PortableGemvKtF32(mr, kc, a, lda, row.data(), kc, 1, c + j, ldc, mx, mn);
  }
}

void PortableCvtBf16(const uint16_t* src, float* dst, int64_t n, int64_t chunk,
                     int64_t dst_stride, uint32_t* mx, uint32_t* mn) {
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t len = std::min(chunk, n - c0);
    float* d = dst + (c0 / chunk) * dst_stride;
    for (int64_t i = 0; i < len; ++i) {
      d[i] = std::bit_cast<float>(uint32_t{src[c0 + i]} << 16);
    }
    PortableCopyScan<float, uint32_t>(d, nullptr, len, len, len, mx, mn);
  }
}

// f16 bits -> f32 bits, exactly (subnormal f16 values are normal f32s).
uint32_t F16ToF32Bits(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return sign | 0x7f800000u | (m << 13);  // inf, NaN
  if (e != 0) return sign | ((e + 112) << 23) | (m << 13);
  // Zero or subnormal: m * 2^-24, exact in f32.
  const float f = std::ldexp(static_cast<float>(m), -24);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return sign | bits;
}

void PortableCvtF16(const uint16_t* src, float* dst, int64_t n, int64_t chunk,
                    int64_t dst_stride, uint32_t* mx, uint32_t* mn) {
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t len = std::min(chunk, n - c0);
    float* d = dst + (c0 / chunk) * dst_stride;
    for (int64_t i = 0; i < len; ++i) {
      d[i] = std::bit_cast<float>(F16ToF32Bits(src[c0 + i]));
    }
    PortableCopyScan<float, uint32_t>(d, nullptr, len, len, len, mx, mn);
  }
}

void PortableTranspose32(const float* src, int64_t lds, int64_t rows,
                         int64_t cols, float* dst, int64_t ldd) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) dst[c * ldd + r] = src[r * lds + c];
  }
}

void PortableF32ToBf16(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    dst[i] = kernel_support::F32BitsToBf16(std::bit_cast<uint32_t>(src[i]));
  }
}

// GemmPackAWords word by word, from word `from` on (the vector versions'
// tail).
void PortablePackAWords(const uint8_t* const rows[6], int64_t words,
                        uint8_t flip, uint8_t* dst, int64_t from) {
  const uint32_t x4 = flip * 0x01010101u;
  for (int64_t q = from; q < words; ++q) {
    for (int i = 0; i < 6; ++i) {
      uint32_t w;
      std::memcpy(&w, rows[i] + 4 * q, 4);
      w ^= x4;
      std::memcpy(dst + (q * 6 + i) * 4, &w, 4);
    }
  }
}
void PortablePackAWords(const uint8_t* const rows[6], int64_t words,
                        uint8_t flip, uint8_t* dst) {
  PortablePackAWords(rows, words, flip, dst, 0);
}

const GemmKernels kPortable = {"portable",
                               PortableF32,
                               PortableF64,
                               PortableInt,
                               PortableCopyScan32,
                               PortableCopyScan64,
                               PortableGemvF32,
                               PortableGemvF64,
                               PortableCvtBf16,
                               nullptr,
                               nullptr,
                               PortableTranspose32,
                               false,
                               nullptr,
                               PortableCvtF16,
                               PortableF32ToBf16,
                               PortableGemvKtF32,
                               PortableGemvBf16B,
                               PortableGemvKtBf16B,
                               true,
                               PortablePackAWords};

#ifdef HLOREF_GEMM_X86

#define HLOREF_AVX512 \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,fma")))
#define HLOREF_AVX512_VNNI \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx512vnni")))

// Lane masks of the 4 vectors of a tile row holding nr columns, `lanes`
// columns per vector.
inline void ColumnMasks(int nr, int lanes, uint32_t m[4]) {
  for (int v = 0; v < 4; ++v) {
    const int rem = nr - v * lanes;
    m[v] = rem >= lanes ? (lanes == 16 ? 0xFFFFu : 0xFFu)
                        : (rem <= 0 ? 0u : (1u << rem) - 1u);
  }
}

// f32: 6 x 64 tile, 24 zmm accumulators; per k 4 B vectors (loads) and
// MR broadcasts of A from the packed panel, MR * 4 FMAs.
// kRowsA: A read in place from kMr rows lda floats apart (a[r * lda + k],
// GemmKernelF32RowsA) instead of the packed panel; the same FMAs in the
// same order.
template <int kMr, bool kFullB, bool kRowsA = false>
HLOREF_AVX512 void Avx512F32Tile(int64_t kc, const float* a, const float* b,
                                 int64_t ldb, float* c, int64_t ldc, int nr,
                                 bool accumulate, int64_t lda = 0) {
  uint32_t mask[4];
  ColumnMasks(nr, 16, mask);
  __m512 acc[kMr][4];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      acc[r][v] = accumulate
                      ? _mm512_maskz_loadu_ps(static_cast<__mmask16>(mask[v]),
                                              c + r * ldc + 16 * v)
                      : _mm512_setzero_ps();
    }
  }
  // Unrolled by two: 256 x 256 x 256 tiles ran at 84-85 % of the FMA
  // peak rolled and 90-92 % unrolled (best of 15, a copy of this loop in
  // a throwaway harness; the loop's own increments and branch per k).
#pragma GCC unroll 2
  for (int64_t k = 0; k < kc; ++k) {
    const float* brow = b + k * ldb;
    __m512 bv[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      bv[v] = kFullB ? _mm512_loadu_ps(brow + 16 * v)
                     : _mm512_maskz_loadu_ps(static_cast<__mmask16>(mask[v]),
                                             brow + 16 * v);
    }
    const float* arow = a + k * kGemmMr;
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      const __m512 ar = _mm512_set1_ps(kRowsA ? a[r * lda + k] : arow[r]);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        acc[r][v] = _mm512_fmadd_ps(ar, bv[v], acc[r][v]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      _mm512_mask_storeu_ps(c + r * ldc + 16 * v,
                            static_cast<__mmask16>(mask[v]), acc[r][v]);
    }
  }
}

template <int kMr, bool kFullB>
HLOREF_AVX512 void Avx512F64Tile(int64_t kc, const double* a, const double* b,
                                 int64_t ldb, double* c, int64_t ldc, int nr,
                                 bool accumulate) {
  uint32_t mask[4];
  ColumnMasks(nr, 8, mask);
  __m512d acc[kMr][4];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      acc[r][v] = accumulate
                      ? _mm512_maskz_loadu_pd(static_cast<__mmask8>(mask[v]),
                                              c + r * ldc + 8 * v)
                      : _mm512_setzero_pd();
    }
  }
  for (int64_t k = 0; k < kc; ++k) {
    const double* brow = b + k * ldb;
    __m512d bv[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      bv[v] = kFullB ? _mm512_loadu_pd(brow + 8 * v)
                     : _mm512_maskz_loadu_pd(static_cast<__mmask8>(mask[v]),
                                             brow + 8 * v);
    }
    const double* arow = a + k * kGemmMr;
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      const __m512d ar = _mm512_set1_pd(arow[r]);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        acc[r][v] = _mm512_fmadd_pd(ar, bv[v], acc[r][v]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      _mm512_mask_storeu_pd(c + r * ldc + 8 * v, static_cast<__mmask8>(mask[v]),
                            acc[r][v]);
    }
  }
}

// Integers: B holds s16 pairs (k, k+1) per column, so one vpdpwssd adds
// a0*b0 + a1*b1 into each s32 lane (wrapping, never saturating).
template <int kMr, bool kFullB>
HLOREF_AVX512_VNNI void Avx512IntTile(int64_t kp, const int16_t* a,
                                      const int16_t* b, int64_t ldb, int32_t* c,
                                      int64_t ldc, int nr, bool accumulate) {
  uint32_t mask[4];
  ColumnMasks(nr, 16, mask);
  __m512i acc[kMr][4];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      acc[r][v] =
          accumulate ? _mm512_maskz_loadu_epi32(static_cast<__mmask16>(mask[v]),
                                                c + r * ldc + 16 * v)
                     : _mm512_setzero_si512();
    }
  }
  for (int64_t p = 0; p < kp; ++p) {
    const int16_t* brow = b + p * ldb;
    __m512i bv[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      bv[v] = kFullB ? _mm512_loadu_si512(brow + 32 * v)
                     : _mm512_maskz_loadu_epi32(static_cast<__mmask16>(mask[v]),
                                                brow + 32 * v);
    }
    const int16_t* arow = a + p * kGemmMr * 2;
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      int32_t pair;
      std::memcpy(&pair, arow + 2 * r, sizeof(pair));
      const __m512i ar = _mm512_set1_epi32(pair);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        acc[r][v] = _mm512_dpwssd_epi32(acc[r][v], ar, bv[v]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      _mm512_mask_storeu_epi32(c + r * ldc + 16 * v,
                               static_cast<__mmask16>(mask[v]), acc[r][v]);
    }
  }
}

// 8-bit integers, K in quads: one vpdpbusd per vector per quad.
template <int kMr, bool kBUnsigned>
HLOREF_AVX512_VNNI void Avx512I8Tile(int64_t kq, const uint8_t* a,
                                     const uint8_t* b, int64_t ldb, int32_t* c,
                                     int64_t ldc, int nr, bool accumulate,
                                     const int32_t* corr) {
  uint32_t mask[4];
  ColumnMasks(nr, 16, mask);
  __m512i acc[kMr][4];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      acc[r][v] =
          accumulate ? _mm512_maskz_loadu_epi32(static_cast<__mmask16>(mask[v]),
                                                c + r * ldc + 16 * v)
                     : _mm512_setzero_si512();
    }
  }
  for (int64_t q = 0; q < kq; ++q) {
    const uint8_t* brow = b + q * ldb;
    __m512i bv[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) bv[v] = _mm512_loadu_si512(brow + 64 * v);
    const uint8_t* arow = a + q * kGemmMr * 4;
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      int32_t quad;
      std::memcpy(&quad, arow + 4 * r, sizeof(quad));
      const __m512i ar = _mm512_set1_epi32(quad);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        acc[r][v] = kBUnsigned ? _mm512_dpbusd_epi32(acc[r][v], bv[v], ar)
                               : _mm512_dpbusd_epi32(acc[r][v], ar, bv[v]);
      }
    }
  }
  __m512i cv[4];
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v) {
    cv[v] = corr != nullptr
                ? _mm512_maskz_loadu_epi32(static_cast<__mmask16>(mask[v]),
                                           corr + 16 * v)
                : _mm512_setzero_si512();
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      _mm512_mask_storeu_epi32(c + r * ldc + 16 * v,
                               static_cast<__mmask16>(mask[v]),
                               _mm512_add_epi32(acc[r][v], cv[v]));
    }
  }
}

HLOREF_AVX512_VNNI void Avx512I8(int64_t kq, const uint8_t* a, const uint8_t* b,
                                 int64_t ldb, int32_t* c, int64_t ldc, int mr,
                                 int nr, bool accumulate, bool b_unsigned,
                                 const int32_t* corr) {
#define HLOREF_I8_CASE(R)                                                 \
  case R:                                                                 \
    return b_unsigned ? Avx512I8Tile<R, true>(kq, a, b, ldb, c, ldc, nr,  \
                                              accumulate, corr)           \
                      : Avx512I8Tile<R, false>(kq, a, b, ldb, c, ldc, nr, \
                                               accumulate, corr);
  switch (mr) {
    HLOREF_I8_CASE(1)
    HLOREF_I8_CASE(2)
    HLOREF_I8_CASE(3)
    HLOREF_I8_CASE(4)
    HLOREF_I8_CASE(5)
    default:
      HLOREF_I8_CASE(6)
  }
#undef HLOREF_I8_CASE
}

HLOREF_AVX512_VNNI void Avx512PackI8B(const uint8_t* src, int64_t ld, int rows,
                                      int64_t n, uint8_t* dst,
                                      int64_t panel_stride, int32_t* colsum,
                                      bool b_signed) {
  const __m512i ones = _mm512_set1_epi8(1);
  const int64_t end = (n + 63) / 64 * 64;
  int64_t j = 0;
  if (rows == 4) {
    // Whole 64-column panels: the four rows' bytes interleaved into quads
    // within each 128-bit lane (two unpack steps), then the lanes
    // transposed 4 x 4 (vshufi32x4), so that output vector v holds columns
    // 16 v .. 16 v + 15: 24 operations per 256 bytes where the 16-column
    // loop below takes ~60 (it was a fifth of a 256^3 s8 dot on AMX,
    // perf record).
    for (; j + 64 <= n; j += 64) {
      const __m512i r0 = _mm512_loadu_si512(src + j);
      const __m512i r1 = _mm512_loadu_si512(src + ld + j);
      const __m512i r2 = _mm512_loadu_si512(src + 2 * ld + j);
      const __m512i r3 = _mm512_loadu_si512(src + 3 * ld + j);
      const __m512i t0 = _mm512_unpacklo_epi8(r0, r1);
      const __m512i t1 = _mm512_unpackhi_epi8(r0, r1);
      const __m512i u0 = _mm512_unpacklo_epi8(r2, r3);
      const __m512i u1 = _mm512_unpackhi_epi8(r2, r3);
      // In lane L: q0 columns 16 L + 0..3, q1 4..7, q2 8..11, q3 12..15.
      // (Mask forms with a full mask: GCC 12 warns on the unmasked ones.)
      const __m512i q0 = _mm512_unpacklo_epi16(t0, u0);
      const __m512i q1 = _mm512_unpackhi_epi16(t0, u0);
      const __m512i q2 = _mm512_unpacklo_epi16(t1, u1);
      const __m512i q3 = _mm512_unpackhi_epi16(t1, u1);
      const __m512i a = _mm512_mask_shuffle_i32x4(q0, 0xFFFF, q0, q1, 0x44);
      const __m512i b = _mm512_mask_shuffle_i32x4(q2, 0xFFFF, q2, q3, 0x44);
      const __m512i c = _mm512_mask_shuffle_i32x4(q0, 0xFFFF, q0, q1, 0xEE);
      const __m512i d = _mm512_mask_shuffle_i32x4(q2, 0xFFFF, q2, q3, 0xEE);
      const __m512i out[4] = {_mm512_mask_shuffle_i32x4(a, 0xFFFF, a, b, 0x88),
                              _mm512_mask_shuffle_i32x4(a, 0xFFFF, a, b, 0xDD),
                              _mm512_mask_shuffle_i32x4(c, 0xFFFF, c, d, 0x88),
                              _mm512_mask_shuffle_i32x4(c, 0xFFFF, c, d, 0xDD)};
      uint8_t* panel = dst + (j / 64) * panel_stride;
      for (int v = 0; v < 4; ++v) {
        _mm512_storeu_si512(panel + 64 * v, out[v]);
        if (colsum != nullptr) {
          const __m512i cs = _mm512_loadu_si512(colsum + j + 16 * v);
          _mm512_storeu_si512(colsum + j + 16 * v,
                              b_signed ? _mm512_dpbusd_epi32(cs, ones, out[v])
                                       : _mm512_dpbusd_epi32(cs, out[v], ones));
        }
      }
    }
  }
  for (; j < end; j += 16) {
    const int64_t rem = n - j;
    const __mmask16 m = rem >= 16  ? __mmask16(0xFFFF)
                        : rem <= 0 ? __mmask16(0)
                                   : __mmask16((1u << rem) - 1u);
    __m512i v = _mm512_setzero_si512();
    for (int h = 0; h < rows; ++h) {
      const __m512i r = _mm512_maskz_cvtepu8_epi32(
          m, _mm_maskz_loadu_epi8(m, src + h * ld + j));
      v = _mm512_or_si512(v, _mm512_maskz_slli_epi32(m, r, 8 * h));
    }
    _mm512_storeu_si512(dst + (j / 64) * panel_stride + 4 * (j % 64), v);
    if (colsum != nullptr && m != 0) {
      // The four bytes' sum: one vpdpbusd against ones, with the bytes as
      // the signed operand (s8) or the unsigned one (u8).
      const __m512i cs = _mm512_maskz_loadu_epi32(m, colsum + j);
      const __m512i sum = b_signed ? _mm512_dpbusd_epi32(cs, ones, v)
                                   : _mm512_dpbusd_epi32(cs, v, ones);
      _mm512_mask_storeu_epi32(colsum + j, m, sum);
    }
  }
}

#define HLOREF_AVX512_BF16 \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx512bf16")))

template <int kMr>
HLOREF_AVX512_BF16 void Avx512Bf16DpTile(int64_t kp, const uint16_t* a,
                                         const uint16_t* b, int64_t ldb,
                                         float* c, int64_t ldc, int nr,
                                         bool accumulate) {
  uint32_t mask[4];
  ColumnMasks(nr, 16, mask);
  __m512 acc[kMr][4];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      acc[r][v] = accumulate
                      ? _mm512_maskz_loadu_ps(static_cast<__mmask16>(mask[v]),
                                              c + r * ldc + 16 * v)
                      : _mm512_setzero_ps();
    }
  }
  // Unrolled by two, as the f32 tile (the loop's increment and branch
  // per k pair).
#pragma GCC unroll 2
  for (int64_t p = 0; p < kp; ++p) {
    const uint16_t* brow = b + p * ldb;
    __m512bh bv[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      bv[v] = (__m512bh)_mm512_loadu_si512(brow + 32 * v);
    }
    const uint16_t* arow = a + p * kGemmMr * 2;
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      int32_t pair;
      std::memcpy(&pair, arow + 2 * r, sizeof(pair));
      const __m512bh ar = (__m512bh)_mm512_set1_epi32(pair);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        acc[r][v] = _mm512_dpbf16_ps(acc[r][v], ar, bv[v]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      _mm512_mask_storeu_ps(c + r * ldc + 16 * v,
                            static_cast<__mmask16>(mask[v]), acc[r][v]);
    }
  }
}

void Avx512Bf16Dp(int64_t kp, const uint16_t* a, const uint16_t* b, int64_t ldb,
                  float* c, int64_t ldc, int mr, int nr, bool accumulate) {
  switch (mr) {
    case 1:
      return Avx512Bf16DpTile<1>(kp, a, b, ldb, c, ldc, nr, accumulate);
    case 2:
      return Avx512Bf16DpTile<2>(kp, a, b, ldb, c, ldc, nr, accumulate);
    case 3:
      return Avx512Bf16DpTile<3>(kp, a, b, ldb, c, ldc, nr, accumulate);
    case 4:
      return Avx512Bf16DpTile<4>(kp, a, b, ldb, c, ldc, nr, accumulate);
    case 5:
      return Avx512Bf16DpTile<5>(kp, a, b, ldb, c, ldc, nr, accumulate);
    default:
      return Avx512Bf16DpTile<6>(kp, a, b, ldb, c, ldc, nr, accumulate);
  }
}

// The range guard's f32-bit statistics from 16-bit ones taken on bf16
// patterns: per 32-bit lane, the two 16-bit maxima of |x| bits and minima
// of |x| bits - 1 (0xFFFF where no nonzero value was seen) become f32
// bits, m << 16 and ((t + 1) << 16) - 1 (t = 0xFFFF wraps to 0xFFFFFFFF,
// the identity), folded into 32-bit accumulators. (Mask forms with a full
// mask: GCC 12 warns on some unmasked ones.)
HLOREF_AVX512 inline void FoldBf16Stats(__m512i mx16, __m512i mn16, __m512i& mx,
                                        __m512i& mn) {
  const __mmask16 all = 0xFFFF;
  const __m512i hi = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u));
  const __m512i lo = _mm512_set1_epi32(0xFFFF);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i m_lo = _mm512_maskz_slli_epi32(all, mx16, 16);
  const __m512i m_hi = _mm512_and_si512(mx16, hi);
  mx = _mm512_mask_max_epu32(mx, all, mx, m_lo);
  mx = _mm512_mask_max_epu32(mx, all, mx, m_hi);
  const __m512i t_lo = _mm512_add_epi32(_mm512_and_si512(mn16, lo), one);
  const __m512i t_hi =
      _mm512_add_epi32(_mm512_maskz_srli_epi32(all, mn16, 16), one);
  mn = _mm512_mask_min_epu32(
      mn, all, mn,
      _mm512_sub_epi32(_mm512_maskz_slli_epi32(all, t_lo, 16), one));
  mn = _mm512_mask_min_epu32(
      mn, all, mn,
      _mm512_sub_epi32(_mm512_maskz_slli_epi32(all, t_hi, 16), one));
}

// Horizontal max / min of 16 unsigned 32-bit lanes (by hand: GCC 12's
// _mm512_reduce_* and 256-bit casts trip -Wuninitialized).
HLOREF_AVX512 inline uint32_t ReduceMaxU32(__m512i v) {
  alignas(64) uint32_t h[16];
  _mm512_store_si512(h, v);
  uint32_t r = h[0];
  for (int i = 1; i < 16; ++i) r = std::max(r, h[i]);
  return r;
}
HLOREF_AVX512 inline uint32_t ReduceMinU32(__m512i v) {
  alignas(64) uint32_t h[16];
  _mm512_store_si512(h, v);
  uint32_t r = h[0];
  for (int i = 1; i < 16; ++i) r = std::min(r, h[i]);
  return r;
}

HLOREF_AVX512 void Avx512PackBf16Pairs(const uint16_t* src, int64_t ld,
                                       int rows, int64_t n, uint16_t* dst,
                                       int64_t panel_stride, uint32_t* max_abs,
                                       uint32_t* min_nz_m1) {
  const __m512i abs = _mm512_set1_epi32(0x7fffffff);
  const __m512i one = _mm512_set1_epi32(1);
  __m512i mx = _mm512_set1_epi32(static_cast<int>(*max_abs));
  __m512i mn = _mm512_set1_epi32(static_cast<int>(*min_nz_m1));
  const int64_t end = (n + 63) / 64 * 64;
  int64_t j = 0;
  if (rows == 2 && n >= 64) {
    // Whole 64-column panels: the two rows' values interleaved into pairs
    // within each 128-bit lane, then the lanes put in column order by one
    // two-source qword permute per output vector; the statistics on the
    // 16-bit patterns (as Avx512ScanBf16Bits). 16 operations per 256 bytes
    // where the 16-column loop below takes ~50 (it was a quarter of a 256^3
    // AMX bf16 dot, perf record).
    const __m512i abs16 = _mm512_set1_epi16(0x7fff);
    const __m512i one16 = _mm512_set1_epi16(1);
    const __m512i lo_half = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
    const __m512i hi_half = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    __m512i mx16 = _mm512_setzero_si512();
    __m512i mn16 = _mm512_set1_epi16(-1);
    for (; j + 64 <= n; j += 64) {
      __m512i r[4] = {_mm512_loadu_si512(src + j),
                      _mm512_loadu_si512(src + j + 32),
                      _mm512_loadu_si512(src + ld + j),
                      _mm512_loadu_si512(src + ld + j + 32)};
      const __m512i lo0 = _mm512_unpacklo_epi16(r[0], r[2]);
      const __m512i hi0 = _mm512_unpackhi_epi16(r[0], r[2]);
      const __m512i lo1 = _mm512_unpacklo_epi16(r[1], r[3]);
      const __m512i hi1 = _mm512_unpackhi_epi16(r[1], r[3]);
      uint16_t* panel = dst + (j / 64) * panel_stride;
      _mm512_storeu_si512(panel, _mm512_permutex2var_epi64(lo0, lo_half, hi0));
      _mm512_storeu_si512(panel + 32,
                          _mm512_permutex2var_epi64(lo0, hi_half, hi0));
      _mm512_storeu_si512(panel + 64,
                          _mm512_permutex2var_epi64(lo1, lo_half, hi1));
      _mm512_storeu_si512(panel + 96,
                          _mm512_permutex2var_epi64(lo1, hi_half, hi1));
      for (__m512i& v : r) {
        const __m512i h = _mm512_and_si512(v, abs16);
        mx16 = _mm512_max_epu16(mx16, h);
        mn16 = _mm512_min_epu16(mn16, _mm512_sub_epi16(h, one16));
      }
    }
    FoldBf16Stats(mx16, mn16, mx, mn);
  }
  for (; j < end; j += 16) {
    const int64_t rem = n - j;
    const __mmask16 m = rem >= 16  ? __mmask16(0xFFFF)
                        : rem <= 0 ? __mmask16(0)
                                   : __mmask16((1u << rem) - 1u);
    __m512i v = _mm512_setzero_si512();
    for (int h = 0; h < rows; ++h) {
      const __m512i r = _mm512_maskz_cvtepu16_epi32(
          m, _mm256_maskz_loadu_epi16(m, src + h * ld + j));
      v = _mm512_or_si512(v, _mm512_maskz_slli_epi32(m, r, 16 * h));
      // The value as f32 bits (r << 16); zero lanes change nothing.
      const __m512i u =
          _mm512_and_si512(_mm512_maskz_slli_epi32(m, r, 16), abs);
      mx = _mm512_mask_max_epu32(mx, m, mx, u);
      mn = _mm512_mask_min_epu32(mn, m, mn, _mm512_sub_epi32(u, one));
    }
    _mm512_storeu_si512(dst + (j / 64) * panel_stride + 2 * (j % 64), v);
  }
  *max_abs = ReduceMaxU32(mx);
  *min_nz_m1 = ReduceMinU32(mn);
}

// On the 16-bit patterns: the max of |x|'s bits, and the min of |x|'s bits
// minus one (wrapping to 0xFFFF for zeros), widened to the f32 statistics
// at the end (|x| bits << 16; min nonzero m gives (m << 16) - 1). 32
// values per three operations; the widening pass it replaces converted
// each row to f32 in scratch (13-15 % of a 256^3 AMX bf16 dot, perf
// record).
HLOREF_AVX512 void Avx512ScanBf16Bits(const uint16_t* src, int64_t n,
                                      uint32_t* max_abs, uint32_t* min_nz_m1) {
  const __m512i abs = _mm512_set1_epi16(0x7fff);
  const __m512i one = _mm512_set1_epi16(1);
  __m512i mx = _mm512_setzero_si512();
  __m512i mn = _mm512_set1_epi16(-1);
  for (int64_t i = 0; i < n; i += 32) {
    const __mmask32 m =
        n - i >= 32 ? ~__mmask32{0} : (__mmask32{1} << (n - i)) - 1;
    const __m512i h =
        _mm512_and_si512(_mm512_maskz_loadu_epi16(m, src + i), abs);
    mx = _mm512_mask_max_epu16(mx, m, mx, h);
    mn = _mm512_mask_min_epu16(mn, m, mn, _mm512_sub_epi16(h, one));
  }
  __m512i mx32 = _mm512_set1_epi32(static_cast<int>(*max_abs));
  __m512i mn32 = _mm512_set1_epi32(static_cast<int>(*min_nz_m1));
  FoldBf16Stats(mx, mn, mx32, mn32);
  *max_abs = ReduceMaxU32(mx32);
  *min_nz_m1 = ReduceMinU32(mn32);
}

HLOREF_AVX512 void Avx512PackBf16PairsKt(const uint16_t* src, int64_t ld,
                                         int64_t kc, int64_t n, uint16_t* dst,
                                         int64_t panel_stride,
                                         uint32_t* max_abs,
                                         uint32_t* min_nz_m1);

const Bf16DotKernels kAvx512Bf16Dot = {Avx512Bf16Dp, Avx512PackBf16Pairs,
                                       Avx512ScanBf16Bits,
                                       Avx512PackBf16PairsKt};

#define HLOREF_AMX_BF16                                     \
  __attribute__((                                           \
      target("avx512f,avx512vl,avx512bw,avx512dq,amx-tile," \
             "amx-bf16")))

// ldtilecfg's 64-byte operand (palette 1): bytes per row and rows of
// tmm0..tmm7 (Intel SDM vol. 1, 3.3 "tile configuration").
struct alignas(64) AmxTileConfig {
  uint8_t palette_id;
  uint8_t start_row;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};
static_assert(sizeof(AmxTileConfig) == 64);

// Copies a 16-column stripe of the scratch tile (rows 32 elements apart)
// into C, masked to the first `cols` columns, for rows [r0, r1): f32
// (tdpbf16ps) or s32 (the int8 products).
template <typename T>
HLOREF_AVX512 inline void AmxStoreStripe(const T* acc, T* c, int64_t ldc,
                                         int r0, int r1, int cols) {
  if (cols <= 0) return;
  const __mmask16 m =
      cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1u);
  for (int r = r0; r < r1; ++r) {
    _mm512_mask_storeu_epi32(c + r * ldc, m, _mm512_load_si512(acc + r * 32));
  }
}

// The four 16 x 16 scratch tiles of one 32-column stripe (tmm0..3, see the
// kernels) into C's rows < mr and first `cols` columns.
template <typename T>
HLOREF_AVX512 inline void AmxStoreTiles(const T* acc, T* c, int64_t ldc, int mr,
                                        int cols) {
  AmxStoreStripe(acc, c, ldc, 0, mr, cols);
  AmxStoreStripe(acc + 16, c + 16, ldc, 0, mr, cols - 16);
}

// The scratch tiles (rows 32 elements apart) from an edge stripe of C:
// rows < mr and the first `cols` columns (<= 32), zero elsewhere, so that
// an edge stripe's elements continue their chains from C exactly as a
// whole stripe's do (the same bits whatever the M split of the threads).
template <typename T>
HLOREF_AVX512 inline void AmxLoadScratch(const T* c, int64_t ldc, int mr,
                                         int cols, T* acc) {
  for (int h = 0; h < 2; ++h) {
    const int n = cols - 16 * h;
    const __mmask16 m = n >= 16  ? __mmask16(0xFFFF)
                        : n <= 0 ? __mmask16(0)
                                 : __mmask16((1u << n) - 1u);
    for (int r = 0; r < kGemmAmxMr; ++r) {
      const __m512i v = r < mr
                            ? _mm512_maskz_loadu_epi32(m, c + r * ldc + 16 * h)
                            : _mm512_setzero_si512();
      _mm512_store_si512(acc + r * 32 + 16 * h, v);
    }
  }
}

// A constant in memory: GCC 12 dropped the stores of colsb / rows into a
// local configuration (it keeps only the palette byte before ldtilecfg),
// which left every tile unconfigured (SIGILL at the first tilezero).
alignas(64) const AmxTileConfig kAmxTileConfig = {
    1,
    0,
    {},
    {64, 64, 64, 64, 64, 64, 64, 64},
    {16, 16, 16, 16, 16, 16, 16, 16}};

#define HLOREF_AMX_TILE \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,amx-tile")))

HLOREF_AMX_TILE void AmxBegin() { _tile_loadconfig(&kAmxTileConfig); }

HLOREF_AMX_TILE void AmxEnd() { _tile_release(); }

// The C tiles (tmm0..3) of one 32-column stripe at cj before its K loop:
// loaded from C in place for a whole 32 x 32 stripe (`direct`), through
// the scratch `acc` (masked loads) for an edge stripe, zero for the first
// K block. Each element's chain thus continues from C's value, the same
// arithmetic for whole and edge stripes (shared by the bf16 and the int8
// kernels).
template <typename T>
HLOREF_AMX_TILE inline void AmxStartStripe(const T* cj, int64_t ldc, int mr,
                                           int cols, bool direct,
                                           bool accumulate, T* acc) {
  const int64_t ldc_bytes = ldc * int64_t{sizeof(T)};
  constexpr int64_t kScratch = 32 * sizeof(T);
  if (direct && accumulate) {
    _tile_loadd(0, cj, ldc_bytes);
    _tile_loadd(1, cj + 16, ldc_bytes);
    _tile_loadd(2, cj + 16 * ldc, ldc_bytes);
    _tile_loadd(3, cj + 16 * ldc + 16, ldc_bytes);
  } else if (accumulate) {
    AmxLoadScratch(cj, ldc, mr, cols, acc);
    _tile_loadd(0, acc, kScratch);
    _tile_loadd(1, acc + 16, kScratch);
    _tile_loadd(2, acc + 16 * 32, kScratch);
    _tile_loadd(3, acc + 16 * 32 + 16, kScratch);
  } else {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
}

// The C tiles back into the stripe: in place, or through the scratch and
// masked stores (rows < mr, the first `cols` columns).
template <typename T>
HLOREF_AMX_TILE inline void AmxFinishStripe(T* cj, int64_t ldc, int mr,
                                            int cols, bool direct, T* acc) {
  const int64_t ldc_bytes = ldc * int64_t{sizeof(T)};
  constexpr int64_t kScratch = 32 * sizeof(T);
  if (direct) {
    _tile_stored(0, cj, ldc_bytes);
    _tile_stored(1, cj + 16, ldc_bytes);
    _tile_stored(2, cj + 16 * ldc, ldc_bytes);
    _tile_stored(3, cj + 16 * ldc + 16, ldc_bytes);
    return;
  }
  _tile_stored(0, acc, kScratch);
  _tile_stored(1, acc + 16, kScratch);
  _tile_stored(2, acc + 16 * 32, kScratch);
  _tile_stored(3, acc + 16 * 32 + 16, kScratch);
  AmxStoreTiles(acc, cj, ldc, mr, cols);
}

HLOREF_AMX_BF16 void AmxBf16Dp(int64_t kp, const uint16_t* a, const uint16_t* b,
                               int64_t ldb, float* c, int64_t ldc, int mr,
                               int nr, bool accumulate) {
  // tmm0..3: C (rows 0-15 / 16-31 x columns j0 / j0 + 16); tmm4, 5: A
  // rows 0-15 / 16-31; tmm6, 7: B columns j0 / j0 + 16.
  alignas(64) float acc[kGemmAmxMr * 32];
  const int64_t lda_bytes = kp * 2 * int64_t{sizeof(uint16_t)};
  const int64_t ldb_bytes = ldb * int64_t{sizeof(uint16_t)};
  const uint16_t* a_hi = a + 16 * 2 * kp;
  const bool two_rows = mr > 16;
  for (int j0 = 0; j0 < nr; j0 += 32) {
    const bool two_cols = nr - j0 > 16;
    // Each element's chain continues from C's value across K blocks (no
    // block sum added afterwards: no more roundings than that), whole
    // stripes in place (AmxStartStripe). At 1024^3 the scratch pass that
    // added block sums was a fifth of the samples (perf record).
    const bool direct = mr == kGemmAmxMr && nr - j0 >= 32;
    float* cj = c + j0;
    AmxStartStripe(cj, ldc, mr, nr - j0, direct, accumulate, acc);
    for (int64_t q = 0; q < kp; q += kGemmAmxKpStep) {
      const uint16_t* bq = b + q * ldb + 2 * j0;
      _tile_loadd(4, a + 2 * q, lda_bytes);
      _tile_loadd(6, bq, ldb_bytes);
      _tile_dpbf16ps(0, 4, 6);
      if (two_cols) {
        _tile_loadd(7, bq + 32, ldb_bytes);
        _tile_dpbf16ps(1, 4, 7);
      }
      if (two_rows) {
        _tile_loadd(5, a_hi + 2 * q, lda_bytes);
        _tile_dpbf16ps(2, 5, 6);
        if (two_cols) _tile_dpbf16ps(3, 5, 7);
      }
    }
    AmxFinishStripe(cj, ldc, mr, nr - j0, direct, acc);
  }
}

const Bf16AmxKernels kAmxBf16 = {AmxBf16Dp, AmxBegin, AmxEnd};

#define HLOREF_AMX_INT8                                     \
  __attribute__((                                           \
      target("avx512f,avx512vl,avx512bw,avx512dq,amx-tile," \
             "amx-int8")))

// One tile product C[dst] += A[a] . B[b] with the operands' signedness
// kAU / kBU (GCC's intrinsics paste the tile numbers into the assembly, so
// they must be literals: a macro, not a template).
#define HLOREF_AMX_I8_DP(DST, A, B) \
  do {                              \
    if constexpr (!kAU && !kBU) {   \
      _tile_dpbssd(DST, A, B);      \
    } else if constexpr (!kAU) {    \
      _tile_dpbsud(DST, A, B);      \
    } else if constexpr (!kBU) {    \
      _tile_dpbusd(DST, A, B);      \
    } else {                        \
      _tile_dpbuud(DST, A, B);      \
    }                               \
  } while (0)

// tmm0..3: C (rows 0-15 / 16-31 x columns j0 / j0 + 16); tmm4, 5: A rows
// 0-15 / 16-31 (16 x 64 bytes); tmm6, 7: B quads for columns j0 / j0 + 16
// (16 quad rows x 16 columns x 4 bytes).
template <bool kAU, bool kBU>
HLOREF_AMX_INT8 void AmxI8Tile(int64_t kq, const uint8_t* a, const uint8_t* b,
                               int64_t ldb, int32_t* c, int64_t ldc, int mr,
                               int nr, bool accumulate) {
  alignas(64) int32_t acc[kGemmAmxMr * 32];
  const int64_t lda = 4 * kq;
  const uint8_t* a_hi = a + 16 * lda;
  const bool two_rows = mr > 16;
  for (int j0 = 0; j0 < nr; j0 += 32) {
    const bool two_cols = nr - j0 > 16;
    // A whole 32 x 32 stripe of C is the accumulators themselves: loaded
    // (or zeroed), accumulated onto and stored back in place, with no
    // scratch pass; an edge stripe goes through the scratch (masked loads
    // and stores). The s32 sums wrap the same either way.
    const bool direct = mr == kGemmAmxMr && nr - j0 >= 32;
    int32_t* cj = c + j0;
    AmxStartStripe(cj, ldc, mr, nr - j0, direct, accumulate, acc);
    for (int64_t q = 0; q < kq; q += kGemmAmxKqStep) {
      const uint8_t* bq = b + q * ldb + 4 * j0;
      _tile_loadd(4, a + 4 * q, lda);
      _tile_loadd(6, bq, ldb);
      HLOREF_AMX_I8_DP(0, 4, 6);
      if (two_cols) {
        _tile_loadd(7, bq + 64, ldb);
        HLOREF_AMX_I8_DP(1, 4, 7);
      }
      if (two_rows) {
        _tile_loadd(5, a_hi + 4 * q, lda);
        HLOREF_AMX_I8_DP(2, 5, 6);
        if (two_cols) HLOREF_AMX_I8_DP(3, 5, 7);
      }
    }
    AmxFinishStripe(cj, ldc, mr, nr - j0, direct, acc);
  }
}

#undef HLOREF_AMX_I8_DP

const I8AmxKernels kAmxI8 = {{{AmxI8Tile<false, false>, AmxI8Tile<false, true>},
                              {AmxI8Tile<true, false>, AmxI8Tile<true, true>}},
                             AmxBegin,
                             AmxEnd};

// cpuid leaf 7: EDX bit 24 AMX-TILE and `bit` (22 AMX-BF16, 25 AMX-INT8);
// then the Linux permission for XTILEDATA (state component 18), without
// which the first tile instruction faults, requested once per process.
bool HostHasAmx(unsigned bit) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  if ((edx & (1u << bit)) == 0 || (edx & (1u << 24)) == 0) return false;
#if defined(__linux__) && defined(SYS_arch_prctl)
  static const bool granted = [] {
    constexpr long kArchReqXcompPerm = 0x1023;
    constexpr long kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return granted;
#else
  return false;
#endif
}

// Row-count dispatch: one instantiation per mr (1..6), so edge tiles run
// the same unrolled code with fewer rows (no scalar tails).
#define HLOREF_GEMM_DISPATCH(NAME, TILE, T, C)                         \
  void NAME(int64_t kc, const T* a, const T* b, int64_t ldb, C* c,     \
            int64_t ldc, int mr, int nr, bool accumulate, bool full) { \
    if (full) {                                                        \
      switch (mr) {                                                    \
        case 1:                                                        \
          return TILE<1, true>(kc, a, b, ldb, c, ldc, nr, accumulate); \
        case 2:                                                        \
          return TILE<2, true>(kc, a, b, ldb, c, ldc, nr, accumulate); \
        case 3:                                                        \
          return TILE<3, true>(kc, a, b, ldb, c, ldc, nr, accumulate); \
        case 4:                                                        \
          return TILE<4, true>(kc, a, b, ldb, c, ldc, nr, accumulate); \
        case 5:                                                        \
          return TILE<5, true>(kc, a, b, ldb, c, ldc, nr, accumulate); \
        default:                                                       \
          return TILE<6, true>(kc, a, b, ldb, c, ldc, nr, accumulate); \
      }                                                                \
    }                                                                  \
    switch (mr) {                                                      \
      case 1:                                                          \
        return TILE<1, false>(kc, a, b, ldb, c, ldc, nr, accumulate);  \
      case 2:                                                          \
        return TILE<2, false>(kc, a, b, ldb, c, ldc, nr, accumulate);  \
      case 3:                                                          \
        return TILE<3, false>(kc, a, b, ldb, c, ldc, nr, accumulate);  \
      case 4:                                                          \
        return TILE<4, false>(kc, a, b, ldb, c, ldc, nr, accumulate);  \
      case 5:                                                          \
        return TILE<5, false>(kc, a, b, ldb, c, ldc, nr, accumulate);  \
      default:                                                         \
        return TILE<6, false>(kc, a, b, ldb, c, ldc, nr, accumulate);  \
    }                                                                  \
  }

HLOREF_GEMM_DISPATCH(Avx512F32, Avx512F32Tile, float, float)

template <int kMr>
HLOREF_AVX512 void Avx512F32RowsAMr(int64_t kc, const float* a, int64_t lda,
                                    const float* b, int64_t ldb, float* c,
                                    int64_t ldc, int nr, bool accumulate,
                                    bool full_b_rows) {
  if (full_b_rows) {
    Avx512F32Tile<kMr, true, true>(kc, a, b, ldb, c, ldc, nr, accumulate, lda);
  } else {
    Avx512F32Tile<kMr, false, true>(kc, a, b, ldb, c, ldc, nr, accumulate, lda);
  }
}

HLOREF_AVX512 void Avx512F32RowsA(int64_t kc, const float* a, int64_t lda,
                                  const float* b, int64_t ldb, float* c,
                                  int64_t ldc, int mr, int nr, bool accumulate,
                                  bool full_b_rows) {
  switch (mr) {
    case 1:
      return Avx512F32RowsAMr<1>(kc, a, lda, b, ldb, c, ldc, nr, accumulate,
                                 full_b_rows);
    case 2:
      return Avx512F32RowsAMr<2>(kc, a, lda, b, ldb, c, ldc, nr, accumulate,
                                 full_b_rows);
    case 3:
      return Avx512F32RowsAMr<3>(kc, a, lda, b, ldb, c, ldc, nr, accumulate,
                                 full_b_rows);
    case 4:
      return Avx512F32RowsAMr<4>(kc, a, lda, b, ldb, c, ldc, nr, accumulate,
                                 full_b_rows);
    case 5:
      return Avx512F32RowsAMr<5>(kc, a, lda, b, ldb, c, ldc, nr, accumulate,
                                 full_b_rows);
    default:
      return Avx512F32RowsAMr<6>(kc, a, lda, b, ldb, c, ldc, nr, accumulate,
                                 full_b_rows);
  }
}
HLOREF_GEMM_DISPATCH(Avx512F64, Avx512F64Tile, double, double)
HLOREF_GEMM_DISPATCH(Avx512Int, Avx512IntTile, int16_t, int32_t)
#undef HLOREF_GEMM_DISPATCH

// The range guard's statistics of a vector of lanes (uint32_t: f32 bits,
// uint64_t: f64 bits) folded into *max_abs (the largest) and *min_nz_m1
// (the smallest). (GCC 12's _mm512_reduce_* trip -Wuninitialized: reduced
// by hand.)
template <typename U>
HLOREF_AVX512 inline void StoreScanStats(__m512i mx, __m512i mn, U* max_abs,
                                         U* min_nz_m1) {
  constexpr int kLanes = 64 / sizeof(U);
  alignas(64) U hx[kLanes], hn[kLanes];
  _mm512_store_si512(hx, mx);
  _mm512_store_si512(hn, mn);
  U rx = hx[0], rn = hn[0];
  for (int i = 1; i < kLanes; ++i) {
    rx = std::max(rx, hx[i]);
    rn = std::min(rn, hn[i]);
  }
  *max_abs = rx;
  *min_nz_m1 = rn;
}

// The vectors are loaded and stored through the intrinsics' void pointers
// (their vector types may alias any object), so the f32 / f64 buffers are
// never read through an integer lvalue.
HLOREF_AVX512 void Avx512CopyScan32(const float* src, float* dst, int64_t n,
                                    int64_t chunk, int64_t dst_stride,
                                    uint32_t* max_abs, uint32_t* min_nz_m1) {
  const __m512i abs = _mm512_set1_epi32(0x7fffffff);
  const __m512i one = _mm512_set1_epi32(1);
  __m512i mx = _mm512_set1_epi32(static_cast<int>(*max_abs));
  __m512i mn = _mm512_set1_epi32(static_cast<int>(*min_nz_m1));
  // Whole vectors unmasked, two per step into a second pair of
  // accumulators (this pass was 12 % of a 256^3 GEMM, perf record, with a
  // mask computed per vector); the tail of each chunk masked.
  // (Mask forms with a full mask: GCC 12 warns on the unmasked ones.)
  const __mmask16 all = 0xFFFF;
  __m512i mx2 = mx, mn2 = mn;
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t len = std::min(chunk, n - c0);
    const float* s = src + c0;
    float* d = dst != nullptr ? dst + (c0 / chunk) * dst_stride : nullptr;
    int64_t i = 0;
    for (; i + 32 <= len; i += 32) {
      const __m512i v0 = _mm512_loadu_si512(s + i);
      const __m512i v1 = _mm512_loadu_si512(s + i + 16);
      if (d != nullptr) {
        _mm512_storeu_si512(d + i, v0);
        _mm512_storeu_si512(d + i + 16, v1);
      }
      const __m512i u0 = _mm512_and_si512(v0, abs);
      const __m512i u1 = _mm512_and_si512(v1, abs);
      mx = _mm512_mask_max_epu32(mx, all, mx, u0);
      mx2 = _mm512_mask_max_epu32(mx2, all, mx2, u1);
      mn = _mm512_mask_min_epu32(mn, all, mn, _mm512_sub_epi32(u0, one));
      mn2 = _mm512_mask_min_epu32(mn2, all, mn2, _mm512_sub_epi32(u1, one));
    }
    for (; i < len; i += 16) {
      const __mmask16 m =
          len - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (len - i)) - 1);
      const __m512i v = _mm512_maskz_loadu_epi32(m, s + i);
      if (d != nullptr) _mm512_mask_storeu_epi32(d + i, m, v);
      const __m512i u = _mm512_and_si512(v, abs);
      mx = _mm512_mask_max_epu32(mx, m, mx, u);
      mn = _mm512_mask_min_epu32(mn, m, mn, _mm512_sub_epi32(u, one));
    }
  }
  mx = _mm512_mask_max_epu32(mx, all, mx, mx2);
  mn = _mm512_mask_min_epu32(mn, all, mn, mn2);
  StoreScanStats(mx, mn, max_abs, min_nz_m1);
}

HLOREF_AVX512 void Avx512CopyScan64(const double* src, double* dst, int64_t n,
                                    int64_t chunk, int64_t dst_stride,
                                    uint64_t* max_abs, uint64_t* min_nz_m1) {
  const __m512i abs = _mm512_set1_epi64(0x7fffffffffffffffll);
  const __m512i one = _mm512_set1_epi64(1);
  __m512i mx = _mm512_set1_epi64(static_cast<long long>(*max_abs));
  __m512i mn = _mm512_set1_epi64(static_cast<long long>(*min_nz_m1));
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t len = std::min(chunk, n - c0);
    const double* s = src + c0;
    double* d = dst != nullptr ? dst + (c0 / chunk) * dst_stride : nullptr;
    for (int64_t i = 0; i < len; i += 8) {
      const __mmask8 m =
          len - i >= 8 ? __mmask8(0xFF) : __mmask8((1u << (len - i)) - 1);
      const __m512i v = _mm512_maskz_loadu_epi64(m, s + i);
      if (d != nullptr) _mm512_mask_storeu_epi64(d + i, m, v);
      const __m512i u = _mm512_and_si512(v, abs);
      mx = _mm512_mask_max_epu64(mx, m, mx, u);
      mn = _mm512_mask_min_epu64(mn, m, mn, _mm512_sub_epi64(u, one));
    }
  }
  StoreScanStats(mx, mn, max_abs, min_nz_m1);
}

HLOREF_AVX512 void Avx512CvtBf16(const uint16_t* src, float* dst, int64_t n,
                                 int64_t chunk, int64_t dst_stride,
                                 uint32_t* max_abs, uint32_t* min_nz_m1) {
  const __m512i abs = _mm512_set1_epi32(0x7fffffff);
  const __m512i one = _mm512_set1_epi32(1);
  __m512i mx = _mm512_set1_epi32(static_cast<int>(*max_abs));
  __m512i mn = _mm512_set1_epi32(static_cast<int>(*min_nz_m1));
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t len = std::min(chunk, n - c0);
    const uint16_t* s = src + c0;
    float* d = dst + (c0 / chunk) * dst_stride;
    for (int64_t i = 0; i < len; i += 16) {
      const __mmask16 m =
          len - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (len - i)) - 1);
      // (Mask forms throughout: GCC 12 warns on the unmasked ones.)
      const __m512i v = _mm512_maskz_slli_epi32(
          m, _mm512_maskz_cvtepu16_epi32(m, _mm256_maskz_loadu_epi16(m, s + i)),
          16);
      _mm512_mask_storeu_epi32(d + i, m, v);
      const __m512i u = _mm512_and_si512(v, abs);
      mx = _mm512_mask_max_epu32(mx, m, mx, u);
      mn = _mm512_mask_min_epu32(mn, m, mn, _mm512_sub_epi32(u, one));
    }
  }
  StoreScanStats(mx, mn, max_abs, min_nz_m1);
}

// f16 -> f32 with vcvtph2ps (AVX512F; exact for every f16 value, and
// MXCSR.DAZ does not apply to it), the statistics as Avx512CvtBf16.
HLOREF_AVX512 void Avx512CvtF16(const uint16_t* src, float* dst, int64_t n,
                                int64_t chunk, int64_t dst_stride,
                                uint32_t* max_abs, uint32_t* min_nz_m1) {
  const __m512i abs = _mm512_set1_epi32(0x7fffffff);
  const __m512i one = _mm512_set1_epi32(1);
  __m512i mx = _mm512_set1_epi32(static_cast<int>(*max_abs));
  __m512i mn = _mm512_set1_epi32(static_cast<int>(*min_nz_m1));
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t len = std::min(chunk, n - c0);
    const uint16_t* s = src + c0;
    float* d = dst + (c0 / chunk) * dst_stride;
    for (int64_t i = 0; i < len; i += 16) {
      const __mmask16 m =
          len - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (len - i)) - 1);
      const __m512i v = _mm512_castps_si512(
          _mm512_maskz_cvtph_ps(m, _mm256_maskz_loadu_epi16(m, s + i)));
      _mm512_mask_storeu_epi32(d + i, m, v);
      const __m512i u = _mm512_and_si512(v, abs);
      mx = _mm512_mask_max_epu32(mx, m, mx, u);
      mn = _mm512_mask_min_epu32(mn, m, mn, _mm512_sub_epi32(u, one));
    }
  }
  StoreScanStats(mx, mn, max_abs, min_nz_m1);
}

// Vector traits for the GEMV template. Scan: the range guard's statistics
// of one vector of B (zero lanes, as masked loads give, change neither).
struct F32Vec {
  using T = float;
  using BT = float;  // B's elements (LoadB)
  using U = uint32_t;
  using V = __m512;
  using M = __mmask16;
  static constexpr int kLanes = 16;
  HLOREF_AVX512 static V Load(M m, const T* p) {
    return _mm512_maskz_loadu_ps(m, p);
  }
  HLOREF_AVX512 static V LoadB(M m, const BT* p) { return Load(m, p); }
  HLOREF_AVX512 static void Store(M m, T* p, V v) {
    _mm512_mask_storeu_ps(p, m, v);
  }
  HLOREF_AVX512 static V Set1(T x) { return _mm512_set1_ps(x); }
  HLOREF_AVX512 static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  HLOREF_AVX512 static V Zero() { return _mm512_setzero_ps(); }
  HLOREF_AVX512 static __m512i Init(U x) {
    return _mm512_set1_epi32(static_cast<int>(x));
  }
  HLOREF_AVX512 static void Scan(V v, __m512i& mx, __m512i& mn) {
    const __m512i u =
        _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff));
    // (The mask forms: GCC 12 warns on the unmasked ones' undefined src.)
    mx = _mm512_mask_max_epu32(mx, 0xFFFF, mx, u);
    mn = _mm512_mask_min_epu32(mn, 0xFFFF, mn,
                               _mm512_sub_epi32(u, _mm512_set1_epi32(1)));
  }
  HLOREF_AVX512 static void Reduce(__m512i mx, __m512i mn, U* max_abs,
                                   U* min_nz_m1) {
    alignas(64) U hx[16], hn[16];
    _mm512_store_si512(hx, mx);
    _mm512_store_si512(hn, mn);
    for (int i = 0; i < 16; ++i) {
      *max_abs = std::max(*max_abs, hx[i]);
      *min_nz_m1 = std::min(*min_nz_m1, hn[i]);
    }
  }
};
struct F64Vec {
  using T = double;
  using BT = double;
  using U = uint64_t;
  using V = __m512d;
  using M = __mmask8;
  static constexpr int kLanes = 8;
  HLOREF_AVX512 static V Load(M m, const T* p) {
    return _mm512_maskz_loadu_pd(m, p);
  }
  HLOREF_AVX512 static V LoadB(M m, const BT* p) { return Load(m, p); }
  HLOREF_AVX512 static void Store(M m, T* p, V v) {
    _mm512_mask_storeu_pd(p, m, v);
  }
  HLOREF_AVX512 static V Set1(T x) { return _mm512_set1_pd(x); }
  HLOREF_AVX512 static V Fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  HLOREF_AVX512 static V Zero() { return _mm512_setzero_pd(); }
  HLOREF_AVX512 static __m512i Init(U x) {
    return _mm512_set1_epi64(static_cast<long long>(x));
  }
  HLOREF_AVX512 static void Scan(V v, __m512i& mx, __m512i& mn) {
    const __m512i u = _mm512_and_si512(_mm512_castpd_si512(v),
                                       _mm512_set1_epi64(0x7fffffffffffffffll));
    mx = _mm512_mask_max_epu64(mx, 0xFF, mx, u);
    mn = _mm512_mask_min_epu64(mn, 0xFF, mn,
                               _mm512_sub_epi64(u, _mm512_set1_epi64(1)));
  }
  HLOREF_AVX512 static void Reduce(__m512i mx, __m512i mn, U* max_abs,
                                   U* min_nz_m1) {
    alignas(64) U hx[8], hn[8];
    _mm512_store_si512(hx, mx);
    _mm512_store_si512(hn, mn);
    for (int i = 0; i < 8; ++i) {
      *max_abs = std::max(*max_abs, hx[i]);
      *min_nz_m1 = std::min(*min_nz_m1, hn[i]);
    }
  }
};
// f32 A and C over a bf16 B (its bit patterns): Avx512GemvRows runs
// Avx512GemvStepBf16 for it.
struct Bf16BVec : F32Vec {
  using BT = uint16_t;
};

// kKk rows of B (k0 .. k0 + kKk - 1) into kMr rows of C, one vector of
// columns per step (C round-trips through L1/L2 once per kKk rows of B);
// each B vector is loaded once, scanned for the range guard and used by
// every row. A's broadcasts are hoisted out of the column loop when they
// fit in registers (kMr * kKk <= 16), else folded into the FMAs as
// broadcast memory operands.
template <typename X, int kMr, int kKk>
HLOREF_AVX512 void Avx512GemvStep(const typename X::T* a, int64_t lda,
                                  const typename X::BT* b, int64_t ldb,
                                  int64_t n, typename X::T* c, int64_t ldc,
                                  bool first, __m512i& mx, __m512i& mn) {
  using T = typename X::T;
  using V = typename X::V;
  using M = typename X::M;
  constexpr int kL = X::kLanes;
  constexpr bool kHoist = kMr * kKk <= 16;
  V av[kHoist ? kMr : 1][kHoist ? kKk : 1];
  // The A values in one local block: the broadcasts address it at constant
  // offsets (kMr * kKk separate pointers into A would not fit in registers).
  alignas(64) T at[kHoist ? 1 : kMr * kKk];
  if constexpr (!kHoist) {
    for (int m = 0; m < kMr; ++m) {
      for (int q = 0; q < kKk; ++q) at[m * kKk + q] = a[m * lda + q];
    }
  }
  if constexpr (kHoist) {
#pragma GCC unroll 16
    for (int m = 0; m < kMr; ++m) {
#pragma GCC unroll 8
      for (int q = 0; q < kKk; ++q) av[m][q] = X::Set1(a[m * lda + q]);
    }
  }
  for (int64_t j = 0; j < n; j += kL) {
    const int64_t rem = n - j;
    const M mask = rem >= kL ? M(~M(0)) : M((1u << rem) - 1u);
    // An opaque copy of the pointer: the compiler may not hoist the A
    // broadcasts out of this loop (it would spill them as whole vectors,
    // and a 64-byte reload costs a zmm load slot where a broadcast of 4
    // bytes is folded into the FMA).
    const T* ap = at;
    asm("" : "+r"(ap));
    V bv[kKk];
#pragma GCC unroll 8
    for (int q = 0; q < kKk; ++q) {
      bv[q] = X::LoadB(mask, b + q * ldb + j);
      X::Scan(bv[q], mx, mn);
    }
#pragma GCC unroll 16
    for (int m = 0; m < kMr; ++m) {
      V acc = first ? X::Zero() : X::Load(mask, c + m * ldc + j);
#pragma GCC unroll 8
      for (int q = 0; q < kKk; ++q) {
        if constexpr (kHoist) {
          acc = X::Fma(av[m][q], bv[q], acc);
        } else {
          acc = X::Fma(X::Set1(ap[m * kKk + q]), bv[q], acc);
        }
      }
      X::Store(mask, c + m * ldc + j, acc);
    }
  }
}

// 32 bf16 patterns at p (masked past `mask`, read as 0), as the bf16-B
// GEMV kernels read a block of a B row: scanned as 16-bit lanes into mx16
// (the largest magnitude pattern) and mn16 (the smallest nonzero one minus
// 1, 0xffff for none), and widened to two f32 vectors by one word
// permutation each (pattern i into the upper half of lane i, exact).
alignas(64) constexpr uint16_t kBf16Widen[2][32] = {
    // Word 2i + 1 of the result takes word i (lo) or 16 + i (hi).
    {0, 0, 0, 1, 0, 2,  0, 3,  0, 4,  0, 5,  0, 6,  0, 7,
     0, 8, 0, 9, 0, 10, 0, 11, 0, 12, 0, 13, 0, 14, 0, 15},
    {0, 16, 0, 17, 0, 18, 0, 19, 0, 20, 0, 21, 0, 22, 0, 23,
     0, 24, 0, 25, 0, 26, 0, 27, 0, 28, 0, 29, 0, 30, 0, 31}};
HLOREF_AVX512 __attribute__((always_inline)) inline void ScanWidenBf16(
    const uint16_t* p, __mmask32 mask, __m512i& mx16, __m512i& mn16, __m512& lo,
    __m512& hi) {
  const __mmask32 all = ~__mmask32(0);
  const __mmask32 odd = 0xAAAAAAAAu;
  const __m512i h = _mm512_maskz_loadu_epi16(mask, p);
  const __m512i u =
      _mm512_maskz_and_epi32(0xFFFF, h, _mm512_set1_epi16(0x7fff));
  mx16 = _mm512_mask_max_epu16(mx16, all, mx16, u);
  // Masked-off lanes are 0, whose u - 1 (0xffff) changes nothing.
  mn16 = _mm512_mask_min_epu16(
      mn16, all, mn16, _mm512_mask_sub_epi16(u, all, u, _mm512_set1_epi16(1)));
  lo = _mm512_castsi512_ps(
      _mm512_maskz_permutexvar_epi16(odd, _mm512_load_si512(kBf16Widen[0]), h));
  hi = _mm512_castsi512_ps(
      _mm512_maskz_permutexvar_epi16(odd, _mm512_load_si512(kBf16Widen[1]), h));
}

// Avx512GemvStep over a bf16 B (Bf16BVec), 32 columns per iteration: their
// 64 bytes of patterns are scanned as 32 16-bit lanes (mx16: the largest
// magnitude pattern, mn16: the smallest nonzero one minus 1, 0xffff for
// none; half the operations of scanning the widened values) and widened
// to two f32 vectors by one word permutation each (pattern i into the
// upper half of lane i, the lower half zeroed). The same FMA chains as
// Avx512GemvStep over the widened B.
template <int kMr, int kKk>
HLOREF_AVX512 void Avx512GemvStepBf16(const float* a, int64_t lda,
                                      const uint16_t* b, int64_t ldb, int64_t n,
                                      float* c, int64_t ldc, bool first,
                                      __m512i& mx16, __m512i& mn16) {
  constexpr bool kHoist = kMr * kKk <= 16;
  __m512 av[kHoist ? kMr : 1][kHoist ? kKk : 1];
  alignas(64) float at[kHoist ? 1 : kMr * kKk];
  if constexpr (!kHoist) {
    for (int m = 0; m < kMr; ++m) {
      for (int q = 0; q < kKk; ++q) at[m * kKk + q] = a[m * lda + q];
    }
  } else {
#pragma GCC unroll 16
    for (int m = 0; m < kMr; ++m) {
#pragma GCC unroll 8
      for (int q = 0; q < kKk; ++q) av[m][q] = _mm512_set1_ps(a[m * lda + q]);
    }
  }
  for (int64_t j = 0; j < n; j += 32) {
    const int64_t rem = n - j;
    const __mmask32 mask32 =
        rem >= 32 ? ~__mmask32(0) : __mmask32((uint64_t{1} << rem) - 1u);
    const __mmask16 mask_lo = static_cast<__mmask16>(mask32);
    const __mmask16 mask_hi = static_cast<__mmask16>(mask32 >> 16);
    const float* ap = at;
    asm("" : "+r"(ap));
    __m512 lo[kKk], hi[kKk];
#pragma GCC unroll 8
    for (int q = 0; q < kKk; ++q) {
      ScanWidenBf16(b + q * ldb + j, mask32, mx16, mn16, lo[q], hi[q]);
    }
#pragma GCC unroll 8
    for (int m = 0; m < kMr; ++m) {
      float* cm = c + m * ldc + j;
      __m512 acc_lo =
          first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mask_lo, cm);
      __m512 acc_hi =
          first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mask_hi, cm + 16);
#pragma GCC unroll 8
      for (int q = 0; q < kKk; ++q) {
        __m512 am;
        if constexpr (kHoist) {
          am = av[m][q];
        } else {
          am = _mm512_set1_ps(ap[m * kKk + q]);
        }
        acc_lo = _mm512_fmadd_ps(am, lo[q], acc_lo);
        acc_hi = _mm512_fmadd_ps(am, hi[q], acc_hi);
      }
      _mm512_mask_storeu_ps(cm, mask_lo, acc_lo);
      if (mask_hi != 0) _mm512_mask_storeu_ps(cm + 16, mask_hi, acc_hi);
    }
  }
}

// The 16-bit statistics of Avx512GemvStepBf16 as the f32 ones of the
// widened values (pattern p is the f32 pattern p << 16).
HLOREF_AVX512 void FoldBf16Stats(__m512i mx16, __m512i mn16, uint32_t* max_abs,
                                 uint32_t* min_nz_m1) {
  alignas(64) uint16_t hx[32], hn[32];
  _mm512_store_si512(hx, mx16);
  _mm512_store_si512(hn, mn16);
  for (int i = 0; i < 32; ++i) {
    *max_abs = std::max(*max_abs, uint32_t{hx[i]} << 16);
    if (hn[i] != 0xffff) {
      *min_nz_m1 = std::min(*min_nz_m1, ((uint32_t{hn[i]} + 1) << 16) - 1);
    }
  }
}

// Avx512GemvRows for a narrow B (kV <= kGemvNarrowVectors vectors of
// columns): C stays in registers over all of K, kMr x kV independent FMA
// chains, each B row loaded, scanned and used once (Avx512GemvTile without
// its packed copy; defined below it). The row-streaming step keeps only
// kV chains of eight FMAs between a load and a store of C, too few to
// hide the FMA latency: a decoding step's probs . v (1 x 1024 by 1024 x
// 64 per head) ran at 57 GB/s on the Zen 4 host, against the sum's 76.
// Each element is the same chain in k order (from 0, or from C with
// `accumulate`), so the same bits.
constexpr int kGemvNarrowVectors = 4;

template <typename X, int kMr, int kV>
HLOREF_AVX512 void Avx512GemvNarrow(int64_t kc, const typename X::T* a,
                                    int64_t lda, const typename X::T* b,
                                    int64_t ldb, int64_t n, typename X::T* c,
                                    int64_t ldc, bool accumulate, __m512i& mx,
                                    __m512i& mn);

// Avx512GemvNarrow over a bf16 B: kW <= 2 blocks of 32 columns, scanned
// and widened as in Avx512GemvStepBf16, C in registers over all of K (the
// same chains, so the same bits). The bf16 decoding step's probs . v ran
// its row-streaming step at 18 GB/s of patterns on the Zen 4 host.
template <int kMr, int kW>
HLOREF_AVX512 void Avx512GemvNarrowBf16(int64_t kc, const float* a, int64_t lda,
                                        const uint16_t* b, int64_t ldb,
                                        int64_t n, float* c, int64_t ldc,
                                        bool accumulate, __m512i& mx16_io,
                                        __m512i& mn16_io) {
  __m512i mx16 = mx16_io, mn16 = mn16_io;
  __mmask32 mask32[kW];
  __mmask16 mask[2 * kW];
#pragma GCC unroll 2
  for (int w = 0; w < kW; ++w) {
    const int64_t rem = n - 32 * w;
    mask32[w] =
        rem >= 32 ? ~__mmask32(0) : __mmask32((uint64_t{1} << rem) - 1u);
    mask[2 * w] = static_cast<__mmask16>(mask32[w]);
    mask[2 * w + 1] = static_cast<__mmask16>(mask32[w] >> 16);
  }
  __m512 acc[kMr][2 * kW];
#pragma GCC unroll 4
  for (int m = 0; m < kMr; ++m) {
#pragma GCC unroll 4
    for (int v = 0; v < 2 * kW; ++v) {
      acc[m][v] = accumulate
                      ? _mm512_maskz_loadu_ps(mask[v], c + m * ldc + 16 * v)
                      : _mm512_setzero_ps();
    }
  }
  for (int64_t k = 0; k < kc; ++k) {
    __m512 bv[2 * kW];
#pragma GCC unroll 2
    for (int w = 0; w < kW; ++w) {
      ScanWidenBf16(b + k * ldb + 32 * w, mask32[w], mx16, mn16, bv[2 * w],
                    bv[2 * w + 1]);
    }
#pragma GCC unroll 4
    for (int m = 0; m < kMr; ++m) {
      const __m512 am = _mm512_set1_ps(a[m * lda + k]);
#pragma GCC unroll 4
      for (int v = 0; v < 2 * kW; ++v) {
        acc[m][v] = _mm512_fmadd_ps(am, bv[v], acc[m][v]);
      }
    }
  }
#pragma GCC unroll 4
  for (int m = 0; m < kMr; ++m) {
#pragma GCC unroll 4
    for (int v = 0; v < 2 * kW; ++v) {
      if (mask[v] != 0) {
        _mm512_mask_storeu_ps(c + m * ldc + 16 * v, mask[v], acc[m][v]);
      }
    }
  }
  mx16_io = mx16;
  mn16_io = mn16;
}

template <typename X, int kMr>
HLOREF_AVX512 void Avx512GemvRows(int64_t kc, const typename X::T* a,
                                  int64_t lda, const typename X::BT* b,
                                  int64_t ldb, int64_t n, typename X::T* c,
                                  int64_t ldc, bool accumulate,
                                  typename X::U* max_abs,
                                  typename X::U* min_nz_m1) {
  // Eight rows of B per C round trip for every M (C traffic per FMA falls
  // with more rows; every row of B is a sequential stream). Four rows for
  // M <= 8 (before 2026-11-29) read 1 x 4096 x 4096 at 84-89 % of the
  // sum bandwidth and 8 x 4096 x 4096 at 58 %; eight rows at 100-110 %
  // and 70-72 % (Zen 4, docs/performance.md); sixteen at 47 % and 29 %.
  constexpr int kKk = 8;
  if constexpr (std::is_same_v<X, Bf16BVec>) {
    __m512i mx16 = _mm512_setzero_si512();
    __m512i mn16 = _mm512_set1_epi16(-1);
    if constexpr (kMr <= kGemvNarrowVectors) {
      if (n > 0 && n <= 64) {
        if (n <= 32) {
          Avx512GemvNarrowBf16<kMr, 1>(kc, a, lda, b, ldb, n, c, ldc,
                                       accumulate, mx16, mn16);
        } else {
          Avx512GemvNarrowBf16<kMr, 2>(kc, a, lda, b, ldb, n, c, ldc,
                                       accumulate, mx16, mn16);
        }
        FoldBf16Stats(mx16, mn16, max_abs, min_nz_m1);
        return;
      }
    }
    int64_t k = 0;
    for (; k + kKk <= kc; k += kKk) {
      Avx512GemvStepBf16<kMr, kKk>(a + k, lda, b + k * ldb, ldb, n, c, ldc,
                                   k == 0 && !accumulate, mx16, mn16);
    }
    for (; k < kc; ++k) {
      Avx512GemvStepBf16<kMr, 1>(a + k, lda, b + k * ldb, ldb, n, c, ldc,
                                 k == 0 && !accumulate, mx16, mn16);
    }
    FoldBf16Stats(mx16, mn16, max_abs, min_nz_m1);
  } else {
    __m512i mx = X::Init(*max_abs), mn = X::Init(*min_nz_m1);
    if constexpr (kMr <= kGemvNarrowVectors) {
      constexpr int64_t kL = X::kLanes;
      if (n > 0 && n <= kGemvNarrowVectors * kL) {
        switch ((n + kL - 1) / kL) {
          case 1:
            Avx512GemvNarrow<X, kMr, 1>(kc, a, lda, b, ldb, n, c, ldc,
                                        accumulate, mx, mn);
            break;
          case 2:
            Avx512GemvNarrow<X, kMr, 2>(kc, a, lda, b, ldb, n, c, ldc,
                                        accumulate, mx, mn);
            break;
          case 3:
            Avx512GemvNarrow<X, kMr, 3>(kc, a, lda, b, ldb, n, c, ldc,
                                        accumulate, mx, mn);
            break;
          default:
            Avx512GemvNarrow<X, kMr, 4>(kc, a, lda, b, ldb, n, c, ldc,
                                        accumulate, mx, mn);
            break;
        }
        X::Reduce(mx, mn, max_abs, min_nz_m1);
        return;
      }
    }
    int64_t k = 0;
    for (; k + kKk <= kc; k += kKk) {
      Avx512GemvStep<X, kMr, kKk>(a + k, lda, b + k * ldb, ldb, n, c, ldc,
                                  k == 0 && !accumulate, mx, mn);
    }
    for (; k < kc; ++k) {
      Avx512GemvStep<X, kMr, 1>(a + k, lda, b + k * ldb, ldb, n, c, ldc,
                                k == 0 && !accumulate, mx, mn);
    }
    X::Reduce(mx, mn, max_abs, min_nz_m1);
  }
  if (kc == 0 && !accumulate) {
    for (int m = 0; m < kMr; ++m) {
      for (int64_t j = 0; j < n; ++j) c[m * ldc + j] = 0;
    }
  }
}

// The register-tiled GEMV's packed strip: three vectors of columns per B
// row (the C tile's width), for kGemvTiledKb rows (24 KiB of f32 or f64:
// half of a 48 KiB L1).
template <typename X>
constexpr int64_t GemvPackRow() {
  return 3 * X::kLanes;
}
constexpr int64_t kGemvTiledKb = 128;

// The strip after this one, which the later row groups prefetch into L2
// (its three lines of each B row) while they compute on the packed copy,
// so that the next strip's first group, which reads B in place, finds it
// there: without it that group waited on L3 for every row. At step k a
// group prefetches row `first + k * step` (the groups interleave).
struct GemvNextStrip {
  const char* b = nullptr;
  int64_t ldb_bytes = 0;
  int64_t rows = 0;
  int64_t first = 0;
  int64_t step = 1;
};

// Rows of C held in registers: kR rows (1..8) x kV vectors of columns
// (1..4), summed over B rows [0, kb) read in place (ldb apart). The same
// FMA chain per element as Avx512GemvStep (k in order), so both kernels
// give the same bits. kScan: this pass also scans B for the range guard;
// kPack: and copies the strip it reads, kV vectors per B row, to `pack`
// (rows GemvPackRow<X>() elements apart), where the strip's other row
// groups read it (the first row group of a strip does both; the narrow
// GEMV, Avx512GemvNarrow, only scans).
template <typename X, int kR, int kV, bool kScan, bool kPack>
HLOREF_AVX512 void Avx512GemvTile(int64_t kb, const typename X::T* a,
                                  int64_t lda, const typename X::T* b,
                                  int64_t ldb, const typename X::M* mask_in,
                                  typename X::T* c, int64_t ldc, bool load_c,
                                  __m512i& mx_io, __m512i& mn_io,
                                  typename X::T* pack,
                                  const GemvNextStrip& next_in) {
  using V = typename X::V;
  using M = typename X::M;
  constexpr int kL = X::kLanes;
  // Locals, not the references and the mask array: the compiler cannot
  // prove that the C stores leave them alone, and kept them in memory (a
  // store-forwarded round trip per scanned vector: 89 GFLOP/s against 105
  // without the scan at M = 32).
  __m512i mx = mx_io, mn = mn_io;
  M mask[kV];
  for (int v = 0; v < kV; ++v) mask[v] = mask_in[v];
  // The prefetch distance: 16 B rows. mlp_block (B of 4 MiB from L3,
  // behind other buffers) ran 1.47-1.50 ms a step with 16 (and 24), 1.51-
  // 1.80 with 8, 1.73-1.76 without; the GEMM alone is the same with each.
  const int64_t pd = 16 * ldb;
  const GemvNextStrip next = next_in;
  V acc[kR][kV];
#pragma GCC unroll 8
  for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kV; ++v) {
      acc[r][v] = load_c ? X::Load(mask[v], c + r * ldc + v * kL) : X::Zero();
    }
  }
  for (int64_t k = 0; k < kb; ++k) {
    const typename X::T* bk = b + k * ldb;
    if constexpr (kPack) {
      // Ahead of the first pass's stream (the later passes find the strip
      // in L1 / L2). Not for the narrow GEMV, whose B rows are short and
      // consecutive: the hardware prefetcher follows them, and the four
      // prefetches per row cost it 3-4 % (decode_attention).
#pragma GCC unroll 4
      for (int v = 0; v < kV; ++v) {
        _mm_prefetch(reinterpret_cast<const char*>(bk + pd + v * kL),
                     _MM_HINT_T0);
      }
    }
    if constexpr (!kScan) {
      const int64_t p = next.first + k * next.step;
      if (p < next.rows) {
        const char* row = next.b + p * next.ldb_bytes;
        _mm_prefetch(row, _MM_HINT_T1);
        _mm_prefetch(row + 64, _MM_HINT_T1);
        _mm_prefetch(row + 128, _MM_HINT_T1);
      }
    }
    V bv[kV];
#pragma GCC unroll 4
    for (int v = 0; v < kV; ++v) {
      bv[v] = X::Load(mask[v], bk + v * kL);
      if constexpr (kScan) {
        X::Scan(bv[v], mx, mn);
      }
      if constexpr (kPack) {
        X::Store(M(~M(0)), pack + k * GemvPackRow<X>() + v * kL, bv[v]);
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kR; ++r) {
      const V ar = X::Set1(a[r * lda + k]);
#pragma GCC unroll 4
      for (int v = 0; v < kV; ++v) acc[r][v] = X::Fma(ar, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kV; ++v)
      X::Store(mask[v], c + r * ldc + v * kL, acc[r][v]);
  }
  if constexpr (kScan) {
    mx_io = mx;
    mn_io = mn;
  }
}

// (Declared above Avx512GemvRows.) Up to kGemvNarrowVectors vectors, no
// packed copy, no next strip.
template <typename X, int kMr, int kV>
HLOREF_AVX512 void Avx512GemvNarrow(int64_t kc, const typename X::T* a,
                                    int64_t lda, const typename X::T* b,
                                    int64_t ldb, int64_t n, typename X::T* c,
                                    int64_t ldc, bool accumulate, __m512i& mx,
                                    __m512i& mn) {
  using M = typename X::M;
  constexpr int kL = X::kLanes;
  M mask[kV];
  for (int v = 0; v < kV; ++v) {
    const int64_t rem = n - v * kL;
    mask[v] = rem >= kL ? M(~M(0)) : M((1u << rem) - 1u);
  }
  Avx512GemvTile<X, kMr, kV, /*kScan=*/true, /*kPack=*/false>(
      kc, a, lda, b, ldb, mask, c, ldc, accumulate, mx, mn, nullptr,
      GemvNextStrip{});
}

template <typename X, int kV, bool kScan>
HLOREF_AVX512 void Avx512GemvTileRows(
    int rows, int64_t kb, const typename X::T* a, int64_t lda,
    const typename X::T* b, int64_t ldb, const typename X::M* mask,
    typename X::T* c, int64_t ldc, bool load_c, __m512i& mx, __m512i& mn,
    typename X::T* pack, const GemvNextStrip& next) {
#define HLOREF_GEMV_TILE_CASE(R)                   \
  case R:                                          \
    return Avx512GemvTile<X, R, kV, kScan, kScan>( \
        kb, a, lda, b, ldb, mask, c, ldc, load_c, mx, mn, pack, next);
  switch (rows) {
    HLOREF_GEMV_TILE_CASE(1)
    HLOREF_GEMV_TILE_CASE(2)
    HLOREF_GEMV_TILE_CASE(3)
    HLOREF_GEMV_TILE_CASE(4)
    HLOREF_GEMV_TILE_CASE(5)
    HLOREF_GEMV_TILE_CASE(6)
    HLOREF_GEMV_TILE_CASE(7)
    default:
      HLOREF_GEMV_TILE_CASE(8)
  }
#undef HLOREF_GEMV_TILE_CASE
}

std::atomic<int64_t> g_gemv_tile_budget_for_testing{-1};

// The largest B block (kc x n) the register-tiled GEMV takes: a quarter of
// the last-level cache. Its strips read B 3 vectors wide, one B row after
// another, which the caches serve at the FMA rate but DRAM does not: B of
// 64 MiB and more ran at 0.55-0.85x the row-streaming kernel (8, 16 and 32
// rows; docs/performance.md).
int64_t GemvTileBudgetBytes() {
  const int64_t testing =
      g_gemv_tile_budget_for_testing.load(std::memory_order_relaxed);
  if (testing >= 0) return testing;
  static const int64_t budget = HostLastLevelCacheBytes() / 4;
  return budget;
}

// The register-tiled form for mr >= kGemvTileMinRows: B rows in blocks of
// kKb, each block in strips of three vectors of columns, each strip run by
// every row group (at most 8 rows, balanced: 12 rows are 6 + 6) with its C
// tile in registers. One B vector now feeds up to 8 FMAs from registers
// where Avx512GemvStep reloads and stores C every eight rows of B.
template <typename X>
HLOREF_AVX512 void Avx512GemvTiled(int mr, int64_t kc, const typename X::T* a,
                                   int64_t lda, const typename X::T* b,
                                   int64_t ldb, int64_t n, typename X::T* c,
                                   int64_t ldc, bool accumulate,
                                   typename X::U* max_abs,
                                   typename X::U* min_nz_m1) {
  using M = typename X::M;
  constexpr int kL = X::kLanes;
  constexpr int64_t kW = GemvPackRow<X>();
  constexpr int64_t kKb = kGemvTiledKb;
  // B's rows are often a multiple of 4 KiB apart (a 512 x 2048 f32 weight:
  // 8 KiB), so a strip read in place sits in one or two of L1's 64 sets
  // and every later row group read it from L2 or beyond. The first row
  // group copies the strip here as it reads it; the others read the copy.
  alignas(64) typename X::T pack[kKb * kW];
  __m512i mx = X::Init(*max_abs), mn = X::Init(*min_nz_m1);
  const int groups = (mr + 7) / 8;
  if (kc == 0) {
    if (!accumulate) {
      for (int m = 0; m < mr; ++m) {
        for (int64_t j = 0; j < n; ++j) c[m * ldc + j] = 0;
      }
    }
    return;
  }
  auto CeilDivV = [](int64_t cols) { return (cols + kL - 1) / kL; };
  for (int64_t k0 = 0; k0 < kc; k0 += kKb) {
    const int64_t kb = std::min(kKb, kc - k0);
    const bool load_c = accumulate || k0 > 0;
    for (int64_t j = 0; j < n; j += kW) {
      M mask[3];
      for (int v = 0; v < 3; ++v) {
        const int64_t rem = n - j - v * kL;
        mask[v] = rem >= kL ? M(~M(0))
                            : (rem <= 0 ? M(0) : M((uint64_t{1} << rem) - 1));
      }
      int row = 0;
      for (int g = 0; g < groups; ++g) {
        const int rows = (mr - row + (groups - g) - 1) / (groups - g);
        const typename X::T* ag = a + row * lda + k0;
        typename X::T* cg = c + row * ldc + j;
        const typename X::T* bj = b + k0 * ldb + j;
        // The next strip in this loop's order, its rows shared among the
        // groups after the first.
        GemvNextStrip next;
        if (g > 0) {
          const bool last = j + kW >= n;
          const int64_t nk0 = last ? k0 + kKb : k0;
          if (nk0 < kc) {
            next.b = reinterpret_cast<const char*>(b + nk0 * ldb +
                                                   (last ? 0 : j + kW));
            next.ldb_bytes = ldb * static_cast<int64_t>(sizeof(*b));
            next.rows = std::min(kKb, kc - nk0);
            next.first = g - 1;
            next.step = groups - 1;
          }
        }
        // The last strip has as many vectors as columns remain (256
        // columns are 5 strips of 3 and one of 1, not 6 of 3).
        const int nv = static_cast<int>(std::min<int64_t>(3, CeilDivV(n - j)));
#define HLOREF_GEMV_STRIP(V, S)                                               \
  Avx512GemvTileRows<X, V, S>(rows, kb, ag, lda, S ? bj : pack, S ? ldb : kW, \
                              mask, cg, ldc, load_c, mx, mn, pack, next)
        if (g == 0) {
          if (nv == 3)
            HLOREF_GEMV_STRIP(3, true);
          else if (nv == 2)
            HLOREF_GEMV_STRIP(2, true);
          else
            HLOREF_GEMV_STRIP(1, true);
        } else {
          if (nv == 3)
            HLOREF_GEMV_STRIP(3, false);
          else if (nv == 2)
            HLOREF_GEMV_STRIP(2, false);
          else
            HLOREF_GEMV_STRIP(1, false);
        }
#undef HLOREF_GEMV_STRIP
        row += rows;
      }
    }
  }
  X::Reduce(mx, mn, max_abs, min_nz_m1);
}

// Avx512GemvRows<X, R> for R = mr (R = kMax for mr >= kMax).
template <typename X, int kMax, int R = 1>
void Avx512GemvRowsOf(int mr, int64_t kc, const typename X::T* a, int64_t lda,
                      const typename X::BT* b, int64_t ldb, int64_t n,
                      typename X::T* c, int64_t ldc, bool accumulate,
                      typename X::U* mx, typename X::U* mn) {
  if constexpr (R < kMax) {
    if (mr > R) {
      return Avx512GemvRowsOf<X, kMax, R + 1>(mr, kc, a, lda, b, ldb, n, c, ldc,
                                              accumulate, mx, mn);
    }
  }
  Avx512GemvRows<X, R>(kc, a, lda, b, ldb, n, c, ldc, accumulate, mx, mn);
}

template <typename X>
void Avx512Gemv(int mr, int64_t kc, const typename X::T* a, int64_t lda,
                const typename X::BT* b, int64_t ldb, int64_t n,
                typename X::T* c, int64_t ldc, bool accumulate,
                typename X::U* mx, typename X::U* mn) {
  if (mr >= kGemvTileMinRows &&
      kc * n * static_cast<int64_t>(sizeof(typename X::T)) <=
          GemvTileBudgetBytes()) {
    return Avx512GemvTiled<X>(mr, kc, a, lda, b, ldb, n, c, ldc, accumulate, mx,
                              mn);
  }
  Avx512GemvRowsOf<X, kGemvMaxRows>(mr, kc, a, lda, b, ldb, n, c, ldc,
                                    accumulate, mx, mn);
}
void Avx512GemvF32(int mr, int64_t kc, const float* a, int64_t lda,
                   const float* b, int64_t ldb, int64_t n, float* c,
                   int64_t ldc, bool accumulate, uint32_t* mx, uint32_t* mn) {
  Avx512Gemv<F32Vec>(mr, kc, a, lda, b, ldb, n, c, ldc, accumulate, mx, mn);
}
void Avx512GemvF64(int mr, int64_t kc, const double* a, int64_t lda,
                   const double* b, int64_t ldb, int64_t n, double* c,
                   int64_t ldc, bool accumulate, uint64_t* mx, uint64_t* mn) {
  Avx512Gemv<F64Vec>(mr, kc, a, lda, b, ldb, n, c, ldc, accumulate, mx, mn);
}
void Avx512GemvBf16B(int mr, int64_t kc, const float* a, int64_t lda,
                     const uint16_t* b, int64_t ldb, int64_t n, float* c,
                     int64_t ldc, bool accumulate, uint32_t* mx, uint32_t* mn) {
  Avx512GemvRowsOf<Bf16BVec, kGemvBf16MaxRows>(mr, kc, a, lda, b, ldb, n, c,
                                               ldc, accumulate, mx, mn);
}

// A 16 x 16 block of 32-bit values transposed in registers: col[j] lane i
// = r[i] lane j. 32-bit, then 64-bit interleaves within 128-bit lanes,
// then two rounds of 128-bit lane shuffles: 64 shuffles.
HLOREF_AVX512 __attribute__((always_inline)) inline void Transpose16x16(
    const __m512i r[16], __m512i col[16]) {
  // (The mask forms: GCC 12 warns on the unmasked ones' undefined src.)
  const __m512i kZero = _mm512_setzero_si512();
  __m512i a[16], b[16];
  // a[2i] = r[2i]_0 r[2i+1]_0 r[2i]_1 r[2i+1]_1 per 128-bit lane;
  // a[2i+1] the same of elements 2 and 3.
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    a[2 * i] =
        _mm512_mask_unpacklo_epi32(kZero, 0xFFFF, r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] =
        _mm512_mask_unpackhi_epi32(kZero, 0xFFFF, r[2 * i], r[2 * i + 1]);
  }
  // b[4i + c], lane L: rows 4i .. 4i+3 of column 4L + c.
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    b[4 * i + 0] =
        _mm512_mask_unpacklo_epi64(kZero, 0xFF, a[4 * i], a[4 * i + 2]);
    b[4 * i + 1] =
        _mm512_mask_unpackhi_epi64(kZero, 0xFF, a[4 * i], a[4 * i + 2]);
    b[4 * i + 2] =
        _mm512_mask_unpacklo_epi64(kZero, 0xFF, a[4 * i + 1], a[4 * i + 3]);
    b[4 * i + 3] =
        _mm512_mask_unpackhi_epi64(kZero, 0xFF, a[4 * i + 1], a[4 * i + 3]);
  }
  // Column 4L + c = lane L of b[c], b[4 + c], b[8 + c], b[12 + c].
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const __m512i u0 =
        _mm512_mask_shuffle_i32x4(kZero, 0xFFFF, b[c], b[4 + c], 0x44);
    const __m512i u1 =
        _mm512_mask_shuffle_i32x4(kZero, 0xFFFF, b[c], b[4 + c], 0xEE);
    const __m512i v0 =
        _mm512_mask_shuffle_i32x4(kZero, 0xFFFF, b[8 + c], b[12 + c], 0x44);
    const __m512i v1 =
        _mm512_mask_shuffle_i32x4(kZero, 0xFFFF, b[8 + c], b[12 + c], 0xEE);
    col[c] = _mm512_mask_shuffle_i32x4(kZero, 0xFFFF, u0, v0, 0x88);
    col[4 + c] = _mm512_mask_shuffle_i32x4(kZero, 0xFFFF, u0, v0, 0xDD);
    col[8 + c] = _mm512_mask_shuffle_i32x4(kZero, 0xFFFF, u1, v1, 0x88);
    col[12 + c] = _mm512_mask_shuffle_i32x4(kZero, 0xFFFF, u1, v1, 0xDD);
  }
}

// GemmPackBf16PairsKt: per 16 columns and 16 pairs, the columns' 32 bf16
// values loaded as one vector each (values past kc masked to zero: the odd
// row of a last pair, and nothing past the column is read), scanned as
// 16-bit patterns (as Avx512ScanBf16Bits), transposed as 32-bit words
// (pair t of the 16 columns in col[t]) and stored whole: columns past n
// are zero vectors, so the last panel's padding comes out zero. The
// attention scores' q . k^T packed its K-contiguous keys element by
// element before (16 % of a bf16 multi-head attention, perf record).
HLOREF_AVX512 void Avx512PackBf16PairsKt(const uint16_t* src, int64_t ld,
                                         int64_t kc, int64_t n, uint16_t* dst,
                                         int64_t panel_stride,
                                         uint32_t* max_abs,
                                         uint32_t* min_nz_m1) {
  const __m512i abs16 = _mm512_set1_epi16(0x7fff);
  const __m512i one16 = _mm512_set1_epi16(1);
  __m512i mx16 = _mm512_setzero_si512();
  __m512i mn16 = _mm512_set1_epi16(-1);
  const int64_t kp = (kc + 1) / 2;
  const int64_t end = (n + 63) / 64 * 64;
  for (int64_t j0 = 0; j0 < end; j0 += 16) {
    const int64_t nrow = std::clamp<int64_t>(n - j0, 0, 16);
    uint16_t* panel = dst + (j0 / 64) * panel_stride + 2 * (j0 % 64);
    for (int64_t q0 = 0; q0 < kp; q0 += 16) {
      const int64_t vals = std::min<int64_t>(32, kc - 2 * q0);
      const __mmask32 m =
          vals == 32 ? ~__mmask32{0} : (__mmask32{1} << vals) - 1;
      __m512i r[16], col[16];
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i) {
        if (i < nrow) {
          r[i] = _mm512_maskz_loadu_epi16(m, src + (j0 + i) * ld + 2 * q0);
          const __m512i h = _mm512_and_si512(r[i], abs16);
          mx16 = _mm512_mask_max_epu16(mx16, m, mx16, h);
          mn16 =
              _mm512_mask_min_epu16(mn16, m, mn16, _mm512_sub_epi16(h, one16));
        } else {
          r[i] = _mm512_setzero_si512();
        }
      }
      Transpose16x16(r, col);
      const int nq = static_cast<int>(std::min<int64_t>(16, kp - q0));
      for (int t = 0; t < nq; ++t) {
        _mm512_storeu_si512(panel + (q0 + t) * 128, col[t]);
      }
    }
  }
  __m512i mx = _mm512_set1_epi32(static_cast<int>(*max_abs));
  __m512i mn = _mm512_set1_epi32(static_cast<int>(*min_nz_m1));
  FoldBf16Stats(mx16, mn16, mx, mn);
  *max_abs = ReduceMaxU32(mx);
  *min_nz_m1 = ReduceMinU32(mn);
}

// 16 x 16 blocks: rows loaded as vectors (columns past cols masked to
// zero, rows past `rows` zero), transposed in registers (Transpose16x16),
// each output row stored with the rows' lane mask.
HLOREF_AVX512 void Avx512Transpose32(const float* src, int64_t lds,
                                     int64_t rows, int64_t cols, float* dst,
                                     int64_t ldd) {
  for (int64_t r0 = 0; r0 < rows; r0 += 16) {
    const int nrow = static_cast<int>(std::min<int64_t>(16, rows - r0));
    const __mmask16 row_mask =
        nrow == 16 ? __mmask16(0xFFFF) : __mmask16((1u << nrow) - 1u);
    for (int64_t c0 = 0; c0 < cols; c0 += 16) {
      const int ncol = static_cast<int>(std::min<int64_t>(16, cols - c0));
      const __mmask16 col_mask =
          ncol == 16 ? __mmask16(0xFFFF) : __mmask16((1u << ncol) - 1u);
      __m512i r[16], col[16];
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i) {
        r[i] = i < nrow ? _mm512_maskz_loadu_epi32(col_mask,
                                                   src + (r0 + i) * lds + c0)
                        : _mm512_setzero_si512();
      }
      Transpose16x16(r, col);
#pragma GCC unroll 16
      for (int j = 0; j < ncol; ++j) {
        _mm512_mask_storeu_epi32(dst + (c0 + j) * ldd + r0, row_mask, col[j]);
      }
    }
  }
}

// GemvKtKernelF32 for kMr rows: 16 columns of C (16 rows of B) at a time;
// each 16 x 16 block of B (16 rows, 16 consecutive k) is loaded once,
// scanned for the range guard (kScan; the scan's four integer operations
// per vector cost more than the block's FMAs), transposed in registers
// (Transpose16x16: vector t then holds the block's B values at k0 + t of
// the 16 columns) and fed to the FMA chains in k order. No packed copy of
// B.
constexpr int64_t kGemvKtPrefetchRows = 32;

template <int kMr, bool kScan, typename BT>
HLOREF_AVX512 void Avx512GemvKtRows(int64_t kc, const float* a, int64_t lda,
                                    const BT* b, int64_t ldb, int64_t n,
                                    float* c, int64_t ldc, uint32_t* max_abs,
                                    uint32_t* min_nz_m1) {
  const __m512i abs = _mm512_set1_epi32(0x7fffffff);
  const __m512i one = _mm512_set1_epi32(1);
  const __mmask16 all = 0xFFFF;
  __m512i mx = _mm512_setzero_si512();
  __m512i mn = _mm512_set1_epi32(-1);
  if constexpr (kScan) {
    mx = _mm512_set1_epi32(static_cast<int>(*max_abs));
    mn = _mm512_set1_epi32(static_cast<int>(*min_nz_m1));
  }
  for (int64_t j0 = 0; j0 < n; j0 += 16) {
    const int nrow = static_cast<int>(std::min<int64_t>(16, n - j0));
    const __mmask16 row_mask =
        nrow == 16 ? __mmask16(0xFFFF) : __mmask16((1u << nrow) - 1u);
    __m512 acc[kMr];
#pragma GCC unroll 4
    for (int m = 0; m < kMr; ++m) acc[m] = _mm512_setzero_ps();
    for (int64_t k0 = 0; k0 < kc; k0 += 16) {
      const int kk = static_cast<int>(std::min<int64_t>(16, kc - k0));
      const __mmask16 k_mask =
          kk == 16 ? __mmask16(0xFFFF) : __mmask16((1u << kk) - 1u);
      __m512i r[16], col[16];
      // The rows two groups ahead: the loads of a group's first block
      // otherwise wait on L3 (perf annotate: a third of the kernel's
      // samples on the two instructions after them).
      const bool ahead = j0 + kGemvKtPrefetchRows + 16 <= n;
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i) {
        if (i < nrow) {
          if (ahead) {
            _mm_prefetch(reinterpret_cast<const char*>(
                             b + (j0 + kGemvKtPrefetchRows + i) * ldb + k0),
                         _MM_HINT_T0);
          }
          if constexpr (std::is_same_v<BT, uint16_t>) {
            // bf16 patterns widened to f32 (exact).
            r[i] = _mm512_maskz_slli_epi32(
                all,
                _mm512_maskz_cvtepu16_epi32(
                    all,
                    _mm256_maskz_loadu_epi16(k_mask, b + (j0 + i) * ldb + k0)),
                16);
          } else {
            r[i] = _mm512_maskz_loadu_epi32(k_mask, b + (j0 + i) * ldb + k0);
          }
          if constexpr (kScan) {
            const __m512i u = _mm512_and_si512(r[i], abs);
            mx = _mm512_mask_max_epu32(mx, all, mx, u);
            mn =
                _mm512_mask_min_epu32(mn, k_mask, mn, _mm512_sub_epi32(u, one));
          }
        } else {
          r[i] = _mm512_setzero_si512();
        }
      }
      Transpose16x16(r, col);
      const float* ak = a + k0;
      // Fully unrolled (col stays in registers); a tail block stops at kk.
#pragma GCC unroll 16
      for (int t = 0; t < 16; ++t) {
        if (t >= kk) break;
#pragma GCC unroll 4
        for (int m = 0; m < kMr; ++m) {
          acc[m] = _mm512_fmadd_ps(_mm512_set1_ps(ak[m * lda + t]),
                                   _mm512_castsi512_ps(col[t]), acc[m]);
        }
      }
    }
#pragma GCC unroll 4
    for (int m = 0; m < kMr; ++m) {
      _mm512_mask_storeu_ps(c + m * ldc + j0, row_mask, acc[m]);
    }
  }
  if constexpr (kScan) StoreScanStats(mx, mn, max_abs, min_nz_m1);
}

// f(rows, scan) for the K-contiguous GEMV kernels, both as template
// arguments: rows = std::integral_constant<int, R> with R = mr in 1..3,
// else kGemvKtMaxRows; scan = std::bool_constant: whether B is scanned
// (statistics pointers given; without them GemvKtKernelF32 does not scan).
template <typename F>
void WithGemvKtRows(int mr, bool scan, F&& f) {
  static_assert(kGemvKtMaxRows == 4);
  auto rows = [&](auto s) {
    switch (mr) {
      case 1:
        return f(std::integral_constant<int, 1>{}, s);
      case 2:
        return f(std::integral_constant<int, 2>{}, s);
      case 3:
        return f(std::integral_constant<int, 3>{}, s);
      default:
        return f(std::integral_constant<int, 4>{}, s);
    }
  };
  if (scan) {
    rows(std::true_type{});
  } else {
    rows(std::false_type{});
  }
}

template <typename BT>
HLOREF_AVX512 void Avx512GemvKt(int mr, int64_t kc, const float* a, int64_t lda,
                                const BT* b, int64_t ldb, int64_t n, float* c,
                                int64_t ldc, uint32_t* mx, uint32_t* mn) {
  WithGemvKtRows(mr, mx != nullptr, [&](auto rows, auto scan) {
    Avx512GemvKtRows<decltype(rows)::value, decltype(scan)::value>(
        kc, a, lda, b, ldb, n, c, ldc, mx, mn);
  });
}
HLOREF_AVX512 void Avx512GemvKtF32(int mr, int64_t kc, const float* a,
                                   int64_t lda, const float* b, int64_t ldb,
                                   int64_t n, float* c, int64_t ldc,
                                   uint32_t* mx, uint32_t* mn) {
  Avx512GemvKt(mr, kc, a, lda, b, ldb, n, c, ldc, mx, mn);
}
HLOREF_AVX512 void Avx512GemvKtBf16B(int mr, int64_t kc, const float* a,
                                     int64_t lda, const uint16_t* b,
                                     int64_t ldb, int64_t n, float* c,
                                     int64_t ldc, uint32_t* mx, uint32_t* mn) {
  Avx512GemvKt(mr, kc, a, lda, b, ldb, n, c, ldc, mx, mn);
}

// F32BitsToBf16 on 16 lanes: (u + 0x7fff + bit 16 of u) >> 16, a NaN
// its top 16 bits with the quiet bit set when the kept fraction is zero.
HLOREF_AVX512 void Avx512F32ToBf16(const float* src, uint16_t* dst, int64_t n) {
  const __m512i abs = _mm512_set1_epi32(0x7fffffff);
  const __m512i inf = _mm512_set1_epi32(0x7f800000);
  const __m512i bias = _mm512_set1_epi32(0x7fff);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i quiet = _mm512_set1_epi32(0x40);
  const __m512i low7 = _mm512_set1_epi32(0x7f);
  // (Mask forms with a full mask: GCC 12 warns on the unmasked shifts.)
  const __mmask16 all = 0xFFFF;
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m =
        n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1);
    const __m512i u = _mm512_maskz_loadu_epi32(m, src + i);
    const __m512i high = _mm512_maskz_srli_epi32(all, u, 16);
    const __m512i sum =
        _mm512_maskz_add_epi32(all, _mm512_maskz_add_epi32(all, u, bias),
                               _mm512_maskz_and_epi32(all, high, one));
    __m512i r = _mm512_maskz_srli_epi32(all, sum, 16);
    const __mmask16 nan =
        _mm512_cmpgt_epu32_mask(_mm512_maskz_and_epi32(all, u, abs), inf);
    const __mmask16 no_payload = _mm512_testn_epi32_mask(high, low7);
    const __m512i nan_bits =
        _mm512_mask_or_epi32(high, no_payload, high, quiet);
    r = _mm512_mask_mov_epi32(r, nan, nan_bits);
    _mm512_mask_cvtepi32_storeu_epi16(dst + i, m, r);
  }
}

// Where the host has AVX512_BF16: 32 values per vcvtne2ps2bf16, which
// rounds to nearest even as above, when none of them is a NaN or an f32
// subnormal (the instruction reads subnormal inputs as zero and quiets
// every NaN, where F32BitsToBf16 keeps the subnormal's top bits and a
// NaN's payload); such a block, and the tail, take the integer rounding.
// One conversion and two class tests per 32 values instead of about
// twenty operations (bf16 dot results: 9 % of a bf16 multi-head
// attention, perf record).
HLOREF_AVX512_BF16 void Avx512F32ToBf16Cvt(const float* src, uint16_t* dst,
                                           int64_t n) {
  constexpr int kSpecial = 0x01 | 0x20 | 0x80;  // QNaN, denormal, SNaN
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 lo = _mm512_loadu_ps(src + i);
    const __m512 hi = _mm512_loadu_ps(src + i + 16);
    if ((_mm512_fpclass_ps_mask(lo, kSpecial) |
         _mm512_fpclass_ps_mask(hi, kSpecial)) == 0) {
      _mm512_storeu_si512(
          dst + i, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
    } else {
      Avx512F32ToBf16(src + i, dst + i, 32);
    }
  }
  if (i < n) Avx512F32ToBf16(src + i, dst + i, n - i);
}

void Avx512F32ToBf16Host(const float* src, uint16_t* dst, int64_t n) {
  static const bool cvt = __builtin_cpu_supports("avx512bf16");
  if (cvt) return Avx512F32ToBf16Cvt(src, dst, n);
  Avx512F32ToBf16(src, dst, n);
}

// GemmPackAWords, four words of the six rows at a time: 32-bit, then
// 64-bit interleaves of the rows' 16-byte loads give each word column's 24
// bytes as one 16-byte and one 8-byte store (SSE2: every x86-64 set). The
// word-by-word loop it replaces was 15 % of an s8 256^3 GEMM (perf, Zen 5).
void Sse2PackAWords(const uint8_t* const rows[6], int64_t quads, uint8_t flip,
                    uint8_t* dst) {
  const __m128i x = _mm_set1_epi8(static_cast<char>(flip));
  int64_t q = 0;
  for (; q + 4 <= quads; q += 4) {
    __m128i r[6];
    for (int i = 0; i < 6; ++i) {
      r[i] = _mm_xor_si128(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[i] + 4 * q)),
          x);
    }
    // lo: rows i, i + 1 at quads 0, 1; hi: at quads 2, 3.
    const __m128i lo01 = _mm_unpacklo_epi32(r[0], r[1]);
    const __m128i hi01 = _mm_unpackhi_epi32(r[0], r[1]);
    const __m128i lo23 = _mm_unpacklo_epi32(r[2], r[3]);
    const __m128i hi23 = _mm_unpackhi_epi32(r[2], r[3]);
    const __m128i lo45 = _mm_unpacklo_epi32(r[4], r[5]);
    const __m128i hi45 = _mm_unpackhi_epi32(r[4], r[5]);
    uint8_t* o = dst + q * 24;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o),
                     _mm_unpacklo_epi64(lo01, lo23));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 16), lo45);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 24),
                     _mm_unpackhi_epi64(lo01, lo23));
    _mm_storeh_pd(reinterpret_cast<double*>(o + 40), _mm_castsi128_pd(lo45));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 48),
                     _mm_unpacklo_epi64(hi01, hi23));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 64), hi45);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 72),
                     _mm_unpackhi_epi64(hi01, hi23));
    _mm_storeh_pd(reinterpret_cast<double*>(o + 88), _mm_castsi128_pd(hi45));
  }
  PortablePackAWords(rows + 0, quads, flip, dst, q);
}

constexpr GemmKernels kAvx512 = {"avx512",
                                 Avx512F32,
                                 Avx512F64,
                                 PortableInt,
                                 Avx512CopyScan32,
                                 Avx512CopyScan64,
                                 Avx512GemvF32,
                                 Avx512GemvF64,
                                 Avx512CvtBf16,
                                 nullptr,
                                 nullptr,
                                 Avx512Transpose32,
                                 true,
                                 Avx512F32RowsA,
                                 Avx512CvtF16,
                                 Avx512F32ToBf16Host,
                                 Avx512GemvKtF32,
                                 Avx512GemvBf16B,
                                 Avx512GemvKtBf16B,
                                 true,
                                 Sse2PackAWords};
// kAvx512 with the integer kernels that need AVX512_VNNI (i16, i8 and i8's
// B packing).
constexpr GemmKernels WithVnni(GemmKernels k) {
  k.name = "avx512-vnni";
  k.i16 = Avx512Int;
  k.i8 = Avx512I8;
  k.pack_i8b = Avx512PackI8B;
  return k;
}
constexpr GemmKernels kAvx512Vnni = WithVnni(kAvx512);

// ---- AVX2 + FMA (hosts without AVX-512: AMD Zen 2 / Zen 3, Intel
// Haswell to Comet Lake): every f32 / f64 kernel is an FMA chain in k
// order, as the AVX-512 set's (fma_chain: the range guard's relaxed rule
// applies, and a GEMV gives the tile's bits), on 8 f32 / 4 f64 lanes. The
// tiles run the 64 (f32) / 32 (f64) columns of a panel as strips of two
// vectors, 6 x 16 f32 with 12 accumulators (BLIS's Haswell kernel), each
// strip over all of kc while the 6 x kc A panel stays in L1. Entries not
// written here are the portable ones (the integer kernel, f16 / bf16
// widening, f64 copy-and-scan), which compute no float chains.
using avx2::Avx2ASource;
using avx2::Avx2Fma;
using avx2::Avx2Load;
using avx2::Avx2Mask;
using avx2::Avx2MaskLoad;
using avx2::Avx2MaskStore;
using avx2::Avx2Splat;
using avx2::Avx2Stats;
using avx2::Avx2StatsAdd;
using avx2::Avx2StatsFrom;
using avx2::Avx2StatsStore;
using avx2::Avx2Store;
using avx2::Avx2Tile;
using avx2::Avx2Vec;
using avx2::Avx2Zero;
using avx2::WithRows;

// The tile: Avx2Strip over the packed panel (a[k * kGemmMr + r]) or A's
// rows in place (a[r * lda + k], f32_rows_a), one tap.
template <typename T, int kMr>
HLOREF_AVX2 void Avx2FloatRows(int64_t kc, const T* a, int64_t a_rs,
                               int64_t a_ks, const T* b, int64_t ldb, T* c,
                               int64_t ldc, int nr, bool accumulate) {
  Avx2ASource<T> src{nullptr, a, a_rs, a_ks};
  T* c_rows[kMr];
  for (int r = 0; r < kMr; ++r) c_rows[r] = c + r * ldc;
  Avx2Tile<T, kMr>(1, kc, src, b, ldb, c_rows, nr, accumulate);
}

template <typename T>
void Avx2Float(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b,
               int64_t ldb, T* c, int64_t ldc, int mr, int nr,
               bool accumulate) {
  WithRows(mr, [&](auto rows) {
    Avx2FloatRows<T, decltype(rows)::value>(kc, a, a_rs, a_ks, b, ldb, c, ldc,
                                            nr, accumulate);
  });
}
void Avx2F32(int64_t kc, const float* a, const float* b, int64_t ldb, float* c,
             int64_t ldc, int mr, int nr, bool accumulate, bool /*full*/) {
  Avx2Float<float>(kc, a, 1, kGemmMr, b, ldb, c, ldc, mr, nr, accumulate);
}
void Avx2F32RowsA(int64_t kc, const float* a, int64_t lda, const float* b,
                  int64_t ldb, float* c, int64_t ldc, int mr, int nr,
                  bool accumulate, bool /*full*/) {
  Avx2Float<float>(kc, a, lda, 1, b, ldb, c, ldc, mr, nr, accumulate);
}
void Avx2F64(int64_t kc, const double* a, const double* b, int64_t ldb,
             double* c, int64_t ldc, int mr, int nr, bool accumulate,
             bool /*full*/) {
  Avx2Float<double>(kc, a, 1, kGemmMr, b, ldb, c, ldc, mr, nr, accumulate);
}

// GemmKernelInt on 8 s32 lanes: vpmaddwd multiplies the two s16 values of
// each pair and adds the products into s32 lanes (a0 b0 + a1 b1 modulo 2^32,
// as the portable kernel computes it: the one sum that does not fit, four
// -32768s, wraps to -2^31 in both), then a wrapping add. Integer sums are
// exact modulo 2^32 in any order. Strips of 6 rows x 16 columns (12
// accumulators) over all pairs, as the float tiles.
template <int kMr, bool kFull>
HLOREF_AVX2_INLINE void Avx2IntStrip(int64_t kp, const int16_t* a,
                                     const int16_t* b, int64_t ldb, int32_t* c,
                                     int64_t ldc, int w, bool accumulate) {
  float* tag = nullptr;
  const __m256i m0 = Avx2Mask(tag, std::min(w, 8));
  const __m256i m1 = Avx2Mask(tag, std::max(w - 8, 0));
  __m256i acc0[kMr], acc1[kMr];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
    int32_t* cr = c + r * ldc;
    if (!accumulate) {
      acc0[r] = acc1[r] = _mm256_setzero_si256();
    } else if constexpr (kFull) {
      acc0[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cr));
      acc1[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cr + 8));
    } else {
      acc0[r] = _mm256_maskload_epi32(cr, m0);
      acc1[r] = _mm256_maskload_epi32(cr + 8, m1);
    }
  }
  for (int64_t p = 0; p < kp; ++p) {
    // Column j's pair is one 32-bit lane.
    const int* brow = reinterpret_cast<const int*>(b + p * ldb);
    __m256i b0, b1;
    if constexpr (kFull) {
      b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(brow));
      b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(brow + 8));
    } else {
      b0 = _mm256_maskload_epi32(brow, m0);
      b1 = _mm256_maskload_epi32(brow + 8, m1);
    }
    const int16_t* ap = a + p * kGemmMr * 2;
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      int32_t pair;
      std::memcpy(&pair, ap + 2 * r, sizeof(pair));
      const __m256i av = _mm256_set1_epi32(pair);
      acc0[r] = _mm256_add_epi32(acc0[r], _mm256_madd_epi16(av, b0));
      acc1[r] = _mm256_add_epi32(acc1[r], _mm256_madd_epi16(av, b1));
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
    int32_t* cr = c + r * ldc;
    if constexpr (kFull) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(cr), acc0[r]);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(cr + 8), acc1[r]);
    } else {
      _mm256_maskstore_epi32(cr, m0, acc0[r]);
      _mm256_maskstore_epi32(cr + 8, m1, acc1[r]);
    }
  }
}

template <int kMr>
HLOREF_AVX2 void Avx2IntRows(int64_t kp, const int16_t* a, const int16_t* b,
                             int64_t ldb, int32_t* c, int64_t ldc, int nr,
                             bool accumulate) {
  int j0 = 0;
  for (; j0 + 16 <= nr; j0 += 16) {
    Avx2IntStrip<kMr, true>(kp, a, b + 2 * j0, ldb, c + j0, ldc, 16,
                            accumulate);
  }
  if (j0 < nr) {
    Avx2IntStrip<kMr, false>(kp, a, b + 2 * j0, ldb, c + j0, ldc, nr - j0,
                             accumulate);
  }
}

void Avx2Int(int64_t kp, const int16_t* a, const int16_t* b, int64_t ldb,
             int32_t* c, int64_t ldc, int mr, int nr, bool accumulate,
             bool /*full_b_rows*/) {
  WithRows(mr, [&](auto rows) {
    Avx2IntRows<decltype(rows)::value>(kp, a, b, ldb, c, ldc, nr, accumulate);
  });
}

// GemmCopyScanF32 on 8 lanes.
HLOREF_AVX2 void Avx2CopyScan32(const float* src, float* dst, int64_t n,
                                int64_t chunk, int64_t dst_stride,
                                uint32_t* max_abs, uint32_t* min_nz_m1) {
  Avx2Stats st = Avx2StatsFrom(*max_abs, *min_nz_m1);
  float* tag = nullptr;
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t len = std::min(chunk, n - c0);
    const float* s = src + c0;
    float* d = dst != nullptr ? dst + (c0 / chunk) * dst_stride : nullptr;
    int64_t i = 0;
    for (; i + 8 <= len; i += 8) {
      const __m256 v = _mm256_loadu_ps(s + i);
      if (d != nullptr) _mm256_storeu_ps(d + i, v);
      Avx2StatsAdd(st, _mm256_castps_si256(v));
    }
    if (i < len) {
      const __m256i m = Avx2Mask(tag, static_cast<int>(len - i));
      const __m256 v = _mm256_maskload_ps(s + i, m);
      if (d != nullptr) _mm256_maskstore_ps(d + i, m, v);
      Avx2StatsAdd(st, _mm256_castps_si256(v));
    }
  }
  Avx2StatsStore(st, max_abs, min_nz_m1);
}

// 8 f32 B values at p widened from bf16 patterns (BT = uint16_t) or
// loaded (float); the first w lanes only, the others 0.
HLOREF_AVX2_INLINE __m256 Avx2LoadB(const float* p, int w) {
  float* tag = nullptr;
  return w >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, Avx2Mask(tag, w));
}
HLOREF_AVX2_INLINE __m256 Avx2LoadB(const uint16_t* p, int w) {
  __m128i h;
  if (w >= 8) {
    h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  } else {
    alignas(16) uint16_t tmp[8] = {};
    for (int i = 0; i < w; ++i) tmp[i] = p[i];
    h = _mm_load_si128(reinterpret_cast<const __m128i*>(tmp));
  }
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

// F32BitsToBf16 on 8 lanes (the result in each lane's low 16 bits).
HLOREF_AVX2_INLINE __m256i Avx2RoundBf16(__m256i u) {
  const __m256i high = _mm256_srli_epi32(u, 16);
  const __m256i rne = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)),
                       _mm256_and_si256(high, _mm256_set1_epi32(1))),
      16);
  const __m256i nan_high = _mm256_blendv_epi8(
      high, _mm256_or_si256(high, _mm256_set1_epi32(0x40)),
      _mm256_cmpeq_epi32(_mm256_and_si256(high, _mm256_set1_epi32(0x7f)),
                         _mm256_setzero_si256()));
  const __m256i is_nan =
      _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                         _mm256_set1_epi32(0x7f800000));
  return _mm256_blendv_epi8(rne, nan_high, is_nan);
}

// GemmCvtScanBf16 (bf16) on 8 lanes: each pattern widened exactly (the
// pattern in an f32's upper half), stored, and counted in the statistics
// of the widened values.
HLOREF_AVX2 void Avx2CvtBf16(const uint16_t* src, float* dst, int64_t n,
                             int64_t chunk, int64_t dst_stride,
                             uint32_t* max_abs, uint32_t* min_nz_m1) {
  Avx2Stats st = Avx2StatsFrom(*max_abs, *min_nz_m1);
  float* tag = nullptr;
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t len = std::min(chunk, n - c0);
    const uint16_t* s = src + c0;
    float* d = dst + (c0 / chunk) * dst_stride;
    for (int64_t i = 0; i < len; i += 8) {
      const int w = static_cast<int>(std::min<int64_t>(8, len - i));
      const __m256 v = Avx2LoadB(s + i, w);
      if (w == 8) {
        _mm256_storeu_ps(d + i, v);
      } else {
        _mm256_maskstore_ps(d + i, Avx2Mask(tag, w), v);
      }
      Avx2StatsAdd(st, _mm256_castps_si256(v));
    }
  }
  Avx2StatsStore(st, max_abs, min_nz_m1);
}

// GemmF32ToBf16 on 16 values at a time: kernel_support.h F32BitsToBf16
// lane by lane (round to nearest even on the bits; a NaN keeps its upper
// half, made quiet-looking when that half's payload is zero), the tail
// by the scalar function.
HLOREF_AVX2 void Avx2F32ToBf16(const float* src, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i lo =
        Avx2RoundBf16(_mm256_castps_si256(_mm256_loadu_ps(src + i)));
    const __m256i hi =
        Avx2RoundBf16(_mm256_castps_si256(_mm256_loadu_ps(src + i + 8)));
    // packus works per 128-bit half: lo0-3 hi0-3 | lo4-7 hi4-7.
    const __m256i packed =
        _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
  for (; i < n; ++i) {
    dst[i] = kernel_support::F32BitsToBf16(std::bit_cast<uint32_t>(src[i]));
  }
}

// GemvKernelF32 / F64 / Bf16B (row-streaming B, M <= kGemvMaxRows): B's
// rows stream in k order, kAvx2GemvKb at a time (eight sequential streams,
// as the AVX-512 kernel's step); per step and group of up to two rows, C
// goes through registers in strips of four vectors (32 f32 / 16 f64
// columns, 8 accumulators) and stays in L1 / L2 between steps. A chain
// continues from C's stored value (storing an accumulator in T does not
// change it), so each element is the tile's FMA chain. (C in registers
// over 256 k with B read down its columns instead ran 1 x 4096 x 4096 at
// 1.9 GFLOP/s: each k row of a strip was another page.) B's statistics are
// taken in the first row group's pass (f32 and widened bf16 on 8 lanes; f64 by
// the portable scan).
constexpr int64_t kAvx2GemvKb = 8;

template <typename T, typename BT, int kR, bool kFull>
HLOREF_AVX2_INLINE void Avx2GemvStrip(int64_t k0, int64_t k1, const T* a,
                                      int64_t lda, const BT* b, int64_t ldb,
                                      T* c, int64_t ldc, int w, bool zero,
                                      bool scan, Avx2Stats& st, uint64_t* max64,
                                      uint64_t* min64) {
  using V = typename Avx2Vec<T>::V;
  constexpr int kL = Avx2Vec<T>::kLanes;
  T* tag = nullptr;
  __m256i m[4];
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v) {
    m[v] = Avx2Mask(tag, std::clamp(w - v * kL, 0, kL));
  }
  V acc[kR][4];
#pragma GCC unroll 2
  for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      if (zero) {
        acc[r][v] = Avx2Zero(tag);
      } else if constexpr (kFull) {
        acc[r][v] = Avx2Load(c + r * ldc + v * kL);
      } else {
        acc[r][v] = Avx2MaskLoad(c + r * ldc + v * kL, m[v]);
      }
    }
  }
  for (int64_t k = k0; k < k1; ++k) {
    const BT* brow = b + k * ldb;
    V bv[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      if constexpr (std::is_same_v<T, double>) {
        bv[v] =
            kFull ? Avx2Load(brow + v * kL) : Avx2MaskLoad(brow + v * kL, m[v]);
      } else {
        bv[v] = Avx2LoadB(brow + v * kL, kFull ? kL : w - v * kL);
        if (scan) Avx2StatsAdd(st, _mm256_castps_si256(bv[v]));
      }
    }
    if constexpr (std::is_same_v<T, double>) {
      if (scan) {
        PortableCopyScan<double, uint64_t>(brow, nullptr, w, w, w, max64,
                                           min64);
      }
    }
#pragma GCC unroll 2
    for (int r = 0; r < kR; ++r) {
      const V ar = Avx2Splat(a + r * lda + k);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) acc[r][v] = Avx2Fma(ar, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 2
  for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      if constexpr (kFull) {
        Avx2Store(c + r * ldc + v * kL, acc[r][v]);
      } else {
        Avx2MaskStore(c + r * ldc + v * kL, m[v], acc[r][v]);
      }
    }
  }
}

template <typename T, typename BT, int kR>
HLOREF_AVX2 void Avx2GemvRows(int64_t k0, int64_t k1, const T* a, int64_t lda,
                              const BT* b, int64_t ldb, int64_t n, T* c,
                              int64_t ldc, bool zero, bool scan, Avx2Stats& st,
                              uint64_t* max64, uint64_t* min64) {
  constexpr int64_t kW = 4 * Avx2Vec<T>::kLanes;
  for (int64_t j0 = 0; j0 < n; j0 += kW) {
    const int w = static_cast<int>(std::min(kW, n - j0));
    if (w == kW) {
      Avx2GemvStrip<T, BT, kR, true>(k0, k1, a, lda, b + j0, ldb, c + j0, ldc,
                                     w, zero, scan, st, max64, min64);
    } else {
      Avx2GemvStrip<T, BT, kR, false>(k0, k1, a, lda, b + j0, ldb, c + j0, ldc,
                                      w, zero, scan, st, max64, min64);
    }
  }
}

template <typename T, typename BT>
HLOREF_AVX2 void Avx2Gemv(int mr, int64_t kc, const T* a, int64_t lda,
                          const BT* b, int64_t ldb, int64_t n, T* c,
                          int64_t ldc, bool accumulate, Avx2Stats& st,
                          uint64_t* max64, uint64_t* min64) {
  if (kc == 0) {
    if (!accumulate) {
      for (int m = 0; m < mr; ++m) {
        std::fill(c + m * ldc, c + m * ldc + n, T(0));
      }
    }
    return;
  }
  for (int64_t k0 = 0; k0 < kc; k0 += kAvx2GemvKb) {
    const int64_t k1 = std::min(kc, k0 + kAvx2GemvKb);
    const bool zero = k0 == 0 && !accumulate;
    for (int m0 = 0; m0 < mr; m0 += 2) {
      const bool scan = m0 == 0;
      if (mr - m0 == 1) {
        Avx2GemvRows<T, BT, 1>(k0, k1, a + m0 * lda, lda, b, ldb, n,
                               c + m0 * ldc, ldc, zero, scan, st, max64, min64);
      } else {
        Avx2GemvRows<T, BT, 2>(k0, k1, a + m0 * lda, lda, b, ldb, n,
                               c + m0 * ldc, ldc, zero, scan, st, max64, min64);
      }
    }
  }
}
HLOREF_AVX2 void Avx2GemvF32(int mr, int64_t kc, const float* a, int64_t lda,
                             const float* b, int64_t ldb, int64_t n, float* c,
                             int64_t ldc, bool accumulate, uint32_t* mx,
                             uint32_t* mn) {
  Avx2Stats st = Avx2StatsFrom(*mx, *mn);
  Avx2Gemv<float, float>(mr, kc, a, lda, b, ldb, n, c, ldc, accumulate, st,
                         nullptr, nullptr);
  Avx2StatsStore(st, mx, mn);
}
HLOREF_AVX2 void Avx2GemvBf16B(int mr, int64_t kc, const float* a, int64_t lda,
                               const uint16_t* b, int64_t ldb, int64_t n,
                               float* c, int64_t ldc, bool accumulate,
                               uint32_t* mx, uint32_t* mn) {
  Avx2Stats st = Avx2StatsFrom(*mx, *mn);
  Avx2Gemv<float, uint16_t>(mr, kc, a, lda, b, ldb, n, c, ldc, accumulate, st,
                            nullptr, nullptr);
  Avx2StatsStore(st, mx, mn);
}
HLOREF_AVX2 void Avx2GemvF64(int mr, int64_t kc, const double* a, int64_t lda,
                             const double* b, int64_t ldb, int64_t n, double* c,
                             int64_t ldc, bool accumulate, uint64_t* mx,
                             uint64_t* mn) {
  Avx2Stats unused = Avx2StatsFrom(0, 0);
  Avx2Gemv<double, double>(mr, kc, a, lda, b, ldb, n, c, ldc, accumulate,
                           unused, mx, mn);
}

// The 8 x 8 transpose of 32-bit lanes: out[t] lane i = in[i] lane t.
HLOREF_AVX2_INLINE void Avx2Transpose8x8(const __m256 in[8], __m256 out[8]) {
  __m256 t[8], u[8];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(in[2 * i], in[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(in[2 * i], in[2 * i + 1]);
  }
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    const int o = 4 * h;
    u[o + 0] = _mm256_shuffle_ps(t[o + 0], t[o + 2], 0x44);
    u[o + 1] = _mm256_shuffle_ps(t[o + 0], t[o + 2], 0xEE);
    u[o + 2] = _mm256_shuffle_ps(t[o + 1], t[o + 3], 0x44);
    u[o + 3] = _mm256_shuffle_ps(t[o + 1], t[o + 3], 0xEE);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    out[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    out[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

// GemvKtKernelF32 / Bf16B on 8 lanes: 8 columns of C (8 rows of B) at a
// time; each 8 x 8 block of B (8 rows, 8 consecutive k) loaded once,
// scanned unless kScan is false (null statistics), transposed in
// registers and fed to the FMA chains in k order.
template <int kMr, bool kScan, typename BT>
HLOREF_AVX2 void Avx2GemvKtRows(int64_t kc, const float* a, int64_t lda,
                                const BT* b, int64_t ldb, int64_t n, float* c,
                                int64_t ldc, uint32_t* max_abs,
                                uint32_t* min_nz_m1) {
  float* tag = nullptr;
  Avx2Stats st = Avx2StatsFrom(0, ~0u);
  if constexpr (kScan) st = Avx2StatsFrom(*max_abs, *min_nz_m1);
  for (int64_t j0 = 0; j0 < n; j0 += 8) {
    const int nrow = static_cast<int>(std::min<int64_t>(8, n - j0));
    __m256 acc[kMr];
#pragma GCC unroll 4
    for (int m = 0; m < kMr; ++m) acc[m] = _mm256_setzero_ps();
    for (int64_t k0 = 0; k0 < kc; k0 += 8) {
      const int kk = static_cast<int>(std::min<int64_t>(8, kc - k0));
      __m256 r[8], col[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) {
        if (i < nrow) {
          r[i] = Avx2LoadB(b + (j0 + i) * ldb + k0, kk);
          if constexpr (kScan) Avx2StatsAdd(st, _mm256_castps_si256(r[i]));
        } else {
          r[i] = _mm256_setzero_ps();
        }
      }
      Avx2Transpose8x8(r, col);
      const float* ak = a + k0;
#pragma GCC unroll 8
      for (int t = 0; t < 8; ++t) {
        if (t >= kk) break;
#pragma GCC unroll 4
        for (int m = 0; m < kMr; ++m) {
          acc[m] = _mm256_fmadd_ps(_mm256_broadcast_ss(ak + m * lda + t),
                                   col[t], acc[m]);
        }
      }
    }
    const __m256i row_mask = Avx2Mask(tag, nrow);
#pragma GCC unroll 4
    for (int m = 0; m < kMr; ++m) {
      _mm256_maskstore_ps(c + m * ldc + j0, row_mask, acc[m]);
    }
  }
  if constexpr (kScan) Avx2StatsStore(st, max_abs, min_nz_m1);
}

template <typename BT>
void Avx2GemvKt(int mr, int64_t kc, const float* a, int64_t lda, const BT* b,
                int64_t ldb, int64_t n, float* c, int64_t ldc, uint32_t* mx,
                uint32_t* mn) {
  WithGemvKtRows(mr, mx != nullptr, [&](auto rows, auto scan) {
    Avx2GemvKtRows<decltype(rows)::value, decltype(scan)::value>(
        kc, a, lda, b, ldb, n, c, ldc, mx, mn);
  });
}
void Avx2GemvKtF32(int mr, int64_t kc, const float* a, int64_t lda,
                   const float* b, int64_t ldb, int64_t n, float* c,
                   int64_t ldc, uint32_t* mx, uint32_t* mn) {
  Avx2GemvKt(mr, kc, a, lda, b, ldb, n, c, ldc, mx, mn);
}
void Avx2GemvKtBf16B(int mr, int64_t kc, const float* a, int64_t lda,
                     const uint16_t* b, int64_t ldb, int64_t n, float* c,
                     int64_t ldc, uint32_t* mx, uint32_t* mn) {
  Avx2GemvKt(mr, kc, a, lda, b, ldb, n, c, ldc, mx, mn);
}

// GemmTransposeF32 in 8 x 8 blocks: rows loaded as vectors (columns past
// cols masked to zero, rows past `rows` zero), transposed in registers,
// each output row stored with the rows' lane mask.
HLOREF_AVX2 void Avx2Transpose32(const float* src, int64_t lds, int64_t rows,
                                 int64_t cols, float* dst, int64_t ldd) {
  float* tag = nullptr;
  for (int64_t r0 = 0; r0 < rows; r0 += 8) {
    const int nrow = static_cast<int>(std::min<int64_t>(8, rows - r0));
    const __m256i row_mask = Avx2Mask(tag, nrow);
    for (int64_t c0 = 0; c0 < cols; c0 += 8) {
      const int ncol = static_cast<int>(std::min<int64_t>(8, cols - c0));
      __m256 r[8], col[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) {
        r[i] = i < nrow ? Avx2LoadB(src + (r0 + i) * lds + c0, ncol)
                        : _mm256_setzero_ps();
      }
      Avx2Transpose8x8(r, col);
#pragma GCC unroll 8
      for (int j = 0; j < ncol; ++j) {
        _mm256_maskstore_ps(dst + (c0 + j) * ldd + r0, row_mask, col[j]);
      }
    }
  }
}

constexpr GemmKernels kAvx2 = {"avx2",
                               Avx2F32,
                               Avx2F64,
                               Avx2Int,
                               Avx2CopyScan32,
                               PortableCopyScan64,
                               Avx2GemvF32,
                               Avx2GemvF64,
                               Avx2CvtBf16,
                               nullptr,
                               nullptr,
                               Avx2Transpose32,
                               true,
                               Avx2F32RowsA,
                               PortableCvtF16,
                               Avx2F32ToBf16,
                               Avx2GemvKtF32,
                               Avx2GemvBf16B,
                               Avx2GemvKtBf16B,
                               false,
                               Sse2PackAWords};

#endif  // HLOREF_GEMM_X86

}  // namespace

const GemmKernels& PortableGemmKernels() { return kPortable; }

int64_t HostLastLevelCacheBytes() {
  static const int64_t bytes = [] {
    int best_level = 0;
    int64_t best = 0;
    for (int i = 0; i < 8; ++i) {
      const std::string dir =
          "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i);
      std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
      int level = 0;
      std::string size;
      if (!(level_file >> level) || !(size_file >> size) || size.empty()) {
        continue;
      }
      int64_t value = std::atoll(size.c_str());
      const char unit = size.back();
      if (unit == 'K') value <<= 10;
      if (unit == 'M') value <<= 20;
      if (value > 0 && level >= best_level) {
        best_level = level;
        best = value;
      }
    }
    if (best > 0) return best;
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return l3 > 0 ? int64_t{l3} : int64_t{32} << 20;
  }();
  return bytes;
}

void SetGemvTileBudgetForTesting(int64_t bytes) {
  g_gemv_tile_budget_for_testing.store(bytes, std::memory_order_relaxed);
}

const GemmKernels* Avx512GemmKernels() {
#ifdef HLOREF_GEMM_X86
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f") ||
      !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512vl") ||
      !__builtin_cpu_supports("avx512dq")) {
    return nullptr;
  }
  return __builtin_cpu_supports("avx512vnni") ? &kAvx512Vnni : &kAvx512;
#else
  return nullptr;
#endif
}

const GemmKernels* Avx2GemmKernels() {
#ifdef HLOREF_GEMM_X86
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
             ? &kAvx2
             : nullptr;
#else
  return nullptr;
#endif
}

const Bf16DotKernels* HostBf16DotKernels() {
#ifdef HLOREF_GEMM_X86
  if (Avx512GemmKernels() == nullptr || !__builtin_cpu_supports("avx512bf16")) {
    return nullptr;
  }
  return &kAvx512Bf16Dot;
#else
  return nullptr;
#endif
}

const Bf16AmxKernels* HostBf16AmxKernel() {
#ifdef HLOREF_GEMM_X86
  static const bool ok = Avx512GemmKernels() != nullptr && HostHasAmx(22);
  return ok ? &kAmxBf16 : nullptr;
#else
  return nullptr;
#endif
}

const I8AmxKernels* HostI8AmxKernel() {
#ifdef HLOREF_GEMM_X86
  // The B packing is the VNNI kernel set's (pack_i8b).
  static const bool ok = Avx512GemmKernels() != nullptr &&
                         Avx512GemmKernels()->pack_i8b != nullptr &&
                         HostHasAmx(25);
  return ok ? &kAmxI8 : nullptr;
#else
  return nullptr;
#endif
}

const GemmKernels& HostGemmKernels() {
  static const GemmKernels* chosen = [] {
    const char* force = std::getenv("HLOREF_CPU_GEMM_ISA");
    if (force != nullptr && std::strcmp(force, "portable") == 0) {
      return &kPortable;
    }
    const GemmKernels* avx2 = Avx2GemmKernels();
    if (force != nullptr && std::strcmp(force, "avx2") == 0 &&
        avx2 != nullptr) {
      return avx2;
    }
    const GemmKernels* k = Avx512GemmKernels();
    if (k != nullptr) return k;
    return avx2 != nullptr ? avx2 : &kPortable;
  }();
  return *chosen;
}

}  // namespace hloref::cpu::gemm
