// The convolution microkernels (layouts and summation order:
// conv_kernels.h). Built like the GEMM's (gemm_kernels.cc): C++ with
// intrinsics under per-function target attributes, next to portable C++
// kernels of the same interface, one table picked once from CPUID.
#include "backends/cpu/runtime/conv_kernels.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HLOREF_CONV_X86 1
#endif

namespace hloref::cpu::conv {
namespace {

// ---- portable kernels: products and sums round separately (no
// contraction in ISO mode); numerics.md 7.3's bound covers both.

template <typename T, int kNr>
void PortableTile(int64_t ntaps, int64_t kc, const T* const* a_rows,
                  int64_t a_off, const T* b, T* const* c_rows, int mr, int nr,
                  bool accumulate) {
  T acc[kConvMr][kNr];
  for (int r = 0; r < kConvMr; ++r) {
    for (int j = 0; j < kNr; ++j) {
      acc[r][j] = accumulate && r < mr && j < nr ? c_rows[r][j] : T(0);
    }
  }
  for (int64_t t = 0; t < ntaps; ++t) {
    const T* bt = b + t * kc * kNr;
    for (int r = 0; r < mr; ++r) {
      const T* a = a_rows[t * kConvMr + r] + a_off;
      for (int64_t k = 0; k < kc; ++k) {
        const T ar = a[k];
        const T* brow = bt + k * kNr;
        for (int j = 0; j < kNr; ++j) acc[r][j] += ar * brow[j];
      }
    }
  }
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nr; ++j) c_rows[r][j] = acc[r][j];
  }
}

void PortableF32(int64_t ntaps, int64_t kc, const float* const* a_rows,
                 int64_t a_off, const float* b, float* const* c_rows, int mr,
                 int nr, bool accumulate) {
  PortableTile<float, kConvNrF32>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr,
                                  accumulate);
}
void PortableF64(int64_t ntaps, int64_t kc, const double* const* a_rows,
                 int64_t a_off, const double* b, double* const* c_rows, int mr,
                 int nr, bool accumulate) {
  PortableTile<double, kConvNrF64>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr,
                                   accumulate);
}

template <typename T, int kCols>
void PortableDw(int64_t ntaps, const T* const* a_rows, int64_t a_off,
                const T* w, int64_t ldw, T* const* c_rows, int64_t c_off,
                int mr, int nc) {
  T acc[kCols];
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nc; ++j) acc[j] = T(0);
    for (int64_t t = 0; t < ntaps; ++t) {
      const T* a = a_rows[t * kConvMr + r] + a_off;
      const T* wt = w + t * ldw;
      for (int j = 0; j < nc; ++j) acc[j] += a[j] * wt[j];
    }
    for (int j = 0; j < nc; ++j) c_rows[r][c_off + j] = acc[j];
  }
}

void PortableDwF32(int64_t ntaps, const float* const* a_rows, int64_t a_off,
                   const float* w, int64_t ldw, float* const* c_rows,
                   int64_t c_off, int mr, int nc) {
  PortableDw<float, kDwColsF32>(ntaps, a_rows, a_off, w, ldw, c_rows, c_off, mr,
                                nc);
}
void PortableDwF64(int64_t ntaps, const double* const* a_rows, int64_t a_off,
                   const double* w, int64_t ldw, double* const* c_rows,
                   int64_t c_off, int mr, int nc) {
  PortableDw<double, kDwColsF64>(ntaps, a_rows, a_off, w, ldw, c_rows, c_off,
                                 mr, nc);
}

const ConvKernels kPortable = {"portable",    PortableF32,   PortableF64,
                               PortableDwF32, PortableDwF64, nullptr};

#ifdef HLOREF_CONV_X86

#define HLOREF_CONV_AVX512 \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,fma")))

struct F32Vec {
  using T = float;
  using V = __m512;
  using M = __mmask16;
  static constexpr int kLanes = 16;
  HLOREF_CONV_AVX512 static V Load(M m, const T* p) {
    return _mm512_maskz_loadu_ps(m, p);
  }
  HLOREF_CONV_AVX512 static V LoadFull(const T* p) {
    return _mm512_loadu_ps(p);
  }
  HLOREF_CONV_AVX512 static void Store(M m, T* p, V v) {
    _mm512_mask_storeu_ps(p, m, v);
  }
  HLOREF_CONV_AVX512 static V Set1(T x) { return _mm512_set1_ps(x); }
  HLOREF_CONV_AVX512 static V Fma(V a, V b, V c) {
    return _mm512_fmadd_ps(a, b, c);
  }
  HLOREF_CONV_AVX512 static V Zero() { return _mm512_setzero_ps(); }
};
struct F64Vec {
  using T = double;
  using V = __m512d;
  using M = __mmask8;
  static constexpr int kLanes = 8;
  HLOREF_CONV_AVX512 static V Load(M m, const T* p) {
    return _mm512_maskz_loadu_pd(m, p);
  }
  HLOREF_CONV_AVX512 static V LoadFull(const T* p) {
    return _mm512_loadu_pd(p);
  }
  HLOREF_CONV_AVX512 static void Store(M m, T* p, V v) {
    _mm512_mask_storeu_pd(p, m, v);
  }
  HLOREF_CONV_AVX512 static V Set1(T x) { return _mm512_set1_pd(x); }
  HLOREF_CONV_AVX512 static V Fma(V a, V b, V c) {
    return _mm512_fmadd_pd(a, b, c);
  }
  HLOREF_CONV_AVX512 static V Zero() { return _mm512_setzero_pd(); }
};

// Lane masks of 4 vectors holding n columns.
template <typename X>
inline void Masks(int n, typename X::M m[4]) {
  constexpr int kL = X::kLanes;
  for (int v = 0; v < 4; ++v) {
    const int rem = n - v * kL;
    m[v] = static_cast<typename X::M>(rem >= kL
                                          ? (kL == 16 ? 0xFFFFu : 0xFFu)
                                          : (rem <= 0 ? 0u : (1u << rem) - 1u));
  }
}

// The implicit-GEMM tile: 6 rows x 4 vectors (24 zmm accumulators); per
// (tap, k) 4 B vector loads, 6 broadcasts from the row pointers, 24 FMAs.
// Rows past mr are computed (their pointers read the zero row) and not
// stored.
template <typename X>
HLOREF_CONV_AVX512 void Avx512Tile(int64_t ntaps, int64_t kc,
                                   const typename X::T* const* a_rows,
                                   int64_t a_off, const typename X::T* b,
                                   typename X::T* const* c_rows, int mr, int nr,
                                   bool accumulate) {
  using T = typename X::T;
  using V = typename X::V;
  using M = typename X::M;
  constexpr int kL = X::kLanes;
  constexpr int kNr = 4 * kL;
  M mask[4];
  Masks<X>(nr, mask);
  V acc[kConvMr][4];
#pragma GCC unroll 6
  for (int r = 0; r < kConvMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      acc[r][v] = accumulate && r < mr ? X::Load(mask[v], c_rows[r] + kL * v)
                                       : X::Zero();
    }
  }
  for (int64_t t = 0; t < ntaps; ++t) {
    const T* const* rows = a_rows + t * kConvMr;
    const T* a0 = rows[0] + a_off;
    const T* a1 = rows[1] + a_off;
    const T* a2 = rows[2] + a_off;
    const T* a3 = rows[3] + a_off;
    const T* a4 = rows[4] + a_off;
    const T* a5 = rows[5] + a_off;
    const T* bt = b + t * kc * kNr;
    for (int64_t k = 0; k < kc; ++k) {
      const T* brow = bt + k * kNr;
      V bv[4];
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) bv[v] = X::LoadFull(brow + kL * v);
      const V x0 = X::Set1(a0[k]);
      const V x1 = X::Set1(a1[k]);
      const V x2 = X::Set1(a2[k]);
      const V x3 = X::Set1(a3[k]);
      const V x4 = X::Set1(a4[k]);
      const V x5 = X::Set1(a5[k]);
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        acc[0][v] = X::Fma(x0, bv[v], acc[0][v]);
        acc[1][v] = X::Fma(x1, bv[v], acc[1][v]);
        acc[2][v] = X::Fma(x2, bv[v], acc[2][v]);
        acc[3][v] = X::Fma(x3, bv[v], acc[3][v]);
        acc[4][v] = X::Fma(x4, bv[v], acc[4][v]);
        acc[5][v] = X::Fma(x5, bv[v], acc[5][v]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kConvMr; ++r) {
    if (r < mr) {
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        X::Store(mask[v], c_rows[r] + kL * v, acc[r][v]);
      }
    }
  }
}

void Avx512F32(int64_t ntaps, int64_t kc, const float* const* a_rows,
               int64_t a_off, const float* b, float* const* c_rows, int mr,
               int nr, bool accumulate) {
  Avx512Tile<F32Vec>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr, accumulate);
}
void Avx512F64(int64_t ntaps, int64_t kc, const double* const* a_rows,
               int64_t a_off, const double* b, double* const* c_rows, int mr,
               int nr, bool accumulate) {
  Avx512Tile<F64Vec>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr, accumulate);
}

// Depthwise: 6 positions x kV vectors of features; per tap kV filter loads,
// 6 kV input loads, 6 kV FMAs.
template <typename X, int kV>
HLOREF_CONV_AVX512 void Avx512DwTile(int64_t ntaps,
                                     const typename X::T* const* a_rows,
                                     int64_t a_off, const typename X::T* w,
                                     int64_t ldw, typename X::T* const* c_rows,
                                     int64_t c_off, int mr, int nc) {
  using T = typename X::T;
  using V = typename X::V;
  using M = typename X::M;
  constexpr int kL = X::kLanes;
  M mask[4];
  Masks<X>(nc, mask);
  V acc[kConvMr][kV];
#pragma GCC unroll 6
  for (int r = 0; r < kConvMr; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kV; ++v) acc[r][v] = X::Zero();
  }
  for (int64_t t = 0; t < ntaps; ++t) {
    const T* const* rows = a_rows + t * kConvMr;
    V wv[kV];
#pragma GCC unroll 4
    for (int v = 0; v < kV; ++v) wv[v] = X::Load(mask[v], w + t * ldw + kL * v);
#pragma GCC unroll 6
    for (int r = 0; r < kConvMr; ++r) {
      const T* a = rows[r] + a_off;
#pragma GCC unroll 4
      for (int v = 0; v < kV; ++v) {
        acc[r][v] = X::Fma(X::Load(mask[v], a + kL * v), wv[v], acc[r][v]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kConvMr; ++r) {
    if (r < mr) {
#pragma GCC unroll 4
      for (int v = 0; v < kV; ++v) {
        X::Store(mask[v], c_rows[r] + c_off + kL * v, acc[r][v]);
      }
    }
  }
}

template <typename X>
void Avx512Dw(int64_t ntaps, const typename X::T* const* a_rows, int64_t a_off,
              const typename X::T* w, int64_t ldw, typename X::T* const* c_rows,
              int64_t c_off, int mr, int nc) {
  switch ((nc + X::kLanes - 1) / X::kLanes) {
    case 1:
      return Avx512DwTile<X, 1>(ntaps, a_rows, a_off, w, ldw, c_rows, c_off, mr,
                                nc);
    case 2:
      return Avx512DwTile<X, 2>(ntaps, a_rows, a_off, w, ldw, c_rows, c_off, mr,
                                nc);
    case 3:
      return Avx512DwTile<X, 3>(ntaps, a_rows, a_off, w, ldw, c_rows, c_off, mr,
                                nc);
    default:
      return Avx512DwTile<X, 4>(ntaps, a_rows, a_off, w, ldw, c_rows, c_off, mr,
                                nc);
  }
}

void Avx512DwF32(int64_t ntaps, const float* const* a_rows, int64_t a_off,
                 const float* w, int64_t ldw, float* const* c_rows,
                 int64_t c_off, int mr, int nc) {
  Avx512Dw<F32Vec>(ntaps, a_rows, a_off, w, ldw, c_rows, c_off, mr, nc);
}
void Avx512DwF64(int64_t ntaps, const double* const* a_rows, int64_t a_off,
                 const double* w, int64_t ldw, double* const* c_rows,
                 int64_t c_off, int mr, int nc) {
  Avx512Dw<F64Vec>(ntaps, a_rows, a_off, w, ldw, c_rows, c_off, mr, nc);
}

#endif  // HLOREF_CONV_X86

}  // namespace

const ConvKernels& PortableConvKernels() {
  static const ConvKernels k = [] {
    ConvKernels c = kPortable;
    c.gemm = &gemm::PortableGemmKernels();
    return c;
  }();
  return k;
}

const ConvKernels* Avx512ConvKernels() {
#ifdef HLOREF_CONV_X86
  const gemm::GemmKernels* g = gemm::Avx512GemmKernels();
  if (g == nullptr) return nullptr;  // same CPUID test as the GEMM's
  static const ConvKernels k = {"avx512",    Avx512F32,   Avx512F64,
                                Avx512DwF32, Avx512DwF64, g};
  return &k;
#else
  return nullptr;
#endif
}

const ConvKernels& HostConvKernels() {
  static const ConvKernels* chosen = [] {
    const char* force = std::getenv("HLOREF_CPU_GEMM_ISA");
    if (force != nullptr && std::strcmp(force, "portable") == 0) {
      return &PortableConvKernels();
    }
    const ConvKernels* k = Avx512ConvKernels();
    return k != nullptr ? k : &PortableConvKernels();
  }();
  return *chosen;
}

}  // namespace hloref::cpu::conv
