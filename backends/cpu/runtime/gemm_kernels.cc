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
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
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

template <typename U>
void PortableCopyScan(const U* src, U* dst, int64_t n, U* max_abs,
                      U* min_nz_m1) {
  constexpr U kAbs = ~U{0} >> 1;
  U mx = *max_abs, mn = *min_nz_m1;
  for (int64_t i = 0; i < n; ++i) {
    const U v = src[i];
    if (dst != nullptr) dst[i] = v;
    const U u = v & kAbs;
    mx = u > mx ? u : mx;
    mn = u - 1 < mn ? u - 1 : mn;
  }
  *max_abs = mx;
  *min_nz_m1 = mn;
}
void PortableCopyScan32(const uint32_t* src, uint32_t* dst, int64_t n,
                        uint32_t* mx, uint32_t* mn) {
  PortableCopyScan<uint32_t>(src, dst, n, mx, mn);
}
void PortableCopyScan64(const uint64_t* src, uint64_t* dst, int64_t n,
                        uint64_t* mx, uint64_t* mn) {
  PortableCopyScan<uint64_t>(src, dst, n, mx, mn);
}

const GemmKernels kPortable = {"portable",         PortableF32,
                               PortableF64,        PortableInt,
                               PortableCopyScan32, PortableCopyScan64};

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
template <int kMr, bool kFullB>
HLOREF_AVX512 void Avx512F32Tile(int64_t kc, const float* a, const float* b,
                                 int64_t ldb, float* c, int64_t ldc, int nr,
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
      const __m512 ar = _mm512_set1_ps(arow[r]);
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
HLOREF_GEMM_DISPATCH(Avx512F64, Avx512F64Tile, double, double)
HLOREF_GEMM_DISPATCH(Avx512Int, Avx512IntTile, int16_t, int32_t)
#undef HLOREF_GEMM_DISPATCH

HLOREF_AVX512 void Avx512CopyScan32(const uint32_t* src, uint32_t* dst,
                                    int64_t n, uint32_t* max_abs,
                                    uint32_t* min_nz_m1) {
  const __m512i abs = _mm512_set1_epi32(0x7fffffff);
  const __m512i one = _mm512_set1_epi32(1);
  __m512i mx = _mm512_set1_epi32(static_cast<int>(*max_abs));
  __m512i mn = _mm512_set1_epi32(static_cast<int>(*min_nz_m1));
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m =
        n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1);
    const __m512i v = _mm512_maskz_loadu_epi32(m, src + i);
    if (dst != nullptr) _mm512_mask_storeu_epi32(dst + i, m, v);
    const __m512i u = _mm512_and_si512(v, abs);
    mx = _mm512_mask_max_epu32(mx, m, mx, u);
    mn = _mm512_mask_min_epu32(mn, m, mn, _mm512_sub_epi32(u, one));
  }
  // (GCC 12's _mm512_reduce_* trip -Wuninitialized: reduce by hand.)
  alignas(64) uint32_t hx[16], hn[16];
  _mm512_store_si512(hx, mx);
  _mm512_store_si512(hn, mn);
  for (int i = 0; i < 16; ++i) {
    *max_abs = std::max(*max_abs, hx[i]);
    *min_nz_m1 = std::min(*min_nz_m1, hn[i]);
  }
}

HLOREF_AVX512 void Avx512CopyScan64(const uint64_t* src, uint64_t* dst,
                                    int64_t n, uint64_t* max_abs,
                                    uint64_t* min_nz_m1) {
  const __m512i abs = _mm512_set1_epi64(0x7fffffffffffffffll);
  const __m512i one = _mm512_set1_epi64(1);
  __m512i mx = _mm512_set1_epi64(static_cast<long long>(*max_abs));
  __m512i mn = _mm512_set1_epi64(static_cast<long long>(*min_nz_m1));
  for (int64_t i = 0; i < n; i += 8) {
    const __mmask8 m =
        n - i >= 8 ? __mmask8(0xFF) : __mmask8((1u << (n - i)) - 1);
    const __m512i v = _mm512_maskz_loadu_epi64(m, src + i);
    if (dst != nullptr) _mm512_mask_storeu_epi64(dst + i, m, v);
    const __m512i u = _mm512_and_si512(v, abs);
    mx = _mm512_mask_max_epu64(mx, m, mx, u);
    mn = _mm512_mask_min_epu64(mn, m, mn, _mm512_sub_epi64(u, one));
  }
  alignas(64) uint64_t hx[8], hn[8];
  _mm512_store_si512(hx, mx);
  _mm512_store_si512(hn, mn);
  for (int i = 0; i < 8; ++i) {
    *max_abs = std::max(*max_abs, hx[i]);
    *min_nz_m1 = std::min(*min_nz_m1, hn[i]);
  }
}

const GemmKernels kAvx512 = {"avx512",    Avx512F32,        Avx512F64,
                             PortableInt, Avx512CopyScan32, Avx512CopyScan64};
const GemmKernels kAvx512Vnni = {"avx512-vnni",    Avx512F32,
                                 Avx512F64,        Avx512Int,
                                 Avx512CopyScan32, Avx512CopyScan64};

#endif  // HLOREF_GEMM_X86

}  // namespace

const GemmKernels& PortableGemmKernels() { return kPortable; }

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

const GemmKernels& HostGemmKernels() {
  static const GemmKernels* chosen = [] {
    const char* force = std::getenv("HLOREF_CPU_GEMM_ISA");
    if (force != nullptr && std::strcmp(force, "portable") == 0) {
      return &kPortable;
    }
    const GemmKernels* k = Avx512GemmKernels();
    return k != nullptr ? k : &kPortable;
  }();
  return *chosen;
}

}  // namespace hloref::cpu::gemm
