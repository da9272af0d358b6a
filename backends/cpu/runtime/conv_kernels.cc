// The convolution microkernels (layouts and summation order:
// conv_kernels.h). Built like the GEMM's (gemm_kernels.cc): C++ with
// intrinsics under per-function target attributes, next to portable C++
// kernels of the same interface, one table picked once from CPUID.
#include "backends/cpu/runtime/conv_kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "backends/cpu/runtime/avx2_tile.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HLOREF_CONV_X86 1
#endif

namespace hloref::cpu::conv {
namespace {

// ---- portable kernels: products and sums round separately (no
// contraction in ISO mode); numerics.md 7.3's bound covers both.

// The range guard's statistics of n values (conv_kernels.h).
template <typename T, typename U>
void PortableStats(const T* x, int64_t n, U* stats) {
  constexpr U kAbs = static_cast<U>(~U{0}) >> 1;
  for (int64_t i = 0; i < n; ++i) {
    U bits;
    std::memcpy(&bits, &x[i], sizeof(bits));
    bits &= kAbs;
    stats[0] = std::max(stats[0], bits);
    stats[1] = std::min(stats[1], static_cast<U>(bits - 1));
  }
}

template <typename T, int kNr, typename U>
void PortableTile(int64_t ntaps, int64_t kc, const T* const* a_rows,
                  int64_t a_off, const T* b, T* const* c_rows, int mr, int nr,
                  bool accumulate, const uint8_t* scan, U* stats) {
  if (scan != nullptr) {
    for (int64_t i = 0; i < ntaps * kConvMr; ++i) {
      if (scan[i]) PortableStats(a_rows[i] + a_off, kc, stats);
    }
  }
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
                 int nr, bool accumulate, const uint8_t* scan,
                 uint32_t* stats) {
  PortableTile<float, kConvNrF32>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr,
                                  accumulate, scan, stats);
}
void PortableF64(int64_t ntaps, int64_t kc, const double* const* a_rows,
                 int64_t a_off, const double* b, double* const* c_rows, int mr,
                 int nr, bool accumulate, const uint8_t* scan,
                 uint64_t* stats) {
  PortableTile<double, kConvNrF64>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr,
                                   accumulate, scan, stats);
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

// Depthwise along a row: each output a chain over the valid taps in order,
// accumulated in the output itself (the same roundings as in a register).
template <typename T>
void PortableDwRow(const DwRowArgs<T>& a) {
  using U = typename DwRowArgs<T>::U;
  constexpr U kAbs = static_cast<U>(~U{0}) >> 1;
  if (a.scan != nullptr) {
    U max_abs = a.stats[0], min_nz = a.stats[1];
    for (int64_t x = a.x0; x < a.x0 + a.nx; ++x) {
      for (int64_t r = 0; r < a.n_outer; ++r) {
        if (a.rows[r] == nullptr || !a.scan[r]) continue;
        for (int64_t kx = 0; kx < a.kw; ++kx) {
          const int64_t i = x * a.stride - a.pad + kx * a.dilation;
          if (i < 0 || i >= a.in_x) continue;
          const T* in = a.rows[r] + i * a.in_sx;
          for (int64_t c = 0; c < a.channels; ++c) {
            U bits;
            std::memcpy(&bits, &in[c], sizeof(bits));
            bits &= kAbs;
            max_abs = std::max(max_abs, bits);
            min_nz = std::min(min_nz, static_cast<U>(bits - 1));
          }
        }
      }
    }
    a.stats[0] = max_abs;
    a.stats[1] = min_nz;
  }
  for (int64_t x = a.x0; x < a.x0 + a.nx; ++x) {
    T* o = a.out + x * a.out_sx;
    for (int64_t c = 0; c < a.channels; ++c) o[c] = T(0);
    for (int64_t r = 0; r < a.n_outer; ++r) {
      const T* row = a.rows[r];
      if (row == nullptr) continue;
      for (int64_t kx = 0; kx < a.kw; ++kx) {
        const int64_t i = x * a.stride - a.pad + kx * a.dilation;
        if (i < 0 || i >= a.in_x) continue;
        const T* in = row + i * a.in_sx;
        const T* wt = a.w + (r * a.kw + kx) * a.channels;
        for (int64_t c = 0; c < a.channels; ++c) o[c] += in[c] * wt[c];
      }
    }
  }
}
void PortableDwRowF32(const DwRowArgs<float>& a) { PortableDwRow<float>(a); }
void PortableDwRowF64(const DwRowArgs<double>& a) { PortableDwRow<double>(a); }

const ConvKernels kPortable = {
    "portable",    PortableF32,      PortableF64,      PortableDwF32,
    PortableDwF64, PortableDwRowF32, PortableDwRowF64, nullptr,
    nullptr,       nullptr};

#ifdef HLOREF_CONV_X86

// GCC 12's avx512fintrin.h builds the unsigned max / min and the
// reductions on _mm512_undefined_epi32(), which -Wmaybe-uninitialized
// reports when they are inlined (a false positive: the passthrough operand
// is unused under a full mask). clang has no such warning and refuses the
// unknown name under -Werror (found by the clang 19 fuzz build).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

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
  HLOREF_CONV_AVX512 static void StoreFull(T* p, V v) {
    _mm512_storeu_ps(p, v);
  }
  HLOREF_CONV_AVX512 static V Set1(T x) { return _mm512_set1_ps(x); }
  HLOREF_CONV_AVX512 static V Fma(V a, V b, V c) {
    return _mm512_fmadd_ps(a, b, c);
  }
  HLOREF_CONV_AVX512 static V Zero() { return _mm512_setzero_ps(); }
  // The range guard's statistics on the bit patterns (conv_kernels.h).
  HLOREF_CONV_AVX512 static void Stat(V v, __m512i& mx, __m512i& mn) {
    const __m512i b =
        _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff));
    mx = _mm512_max_epu32(mx, b);
    mn = _mm512_min_epu32(mn, _mm512_sub_epi32(b, _mm512_set1_epi32(1)));
  }
  HLOREF_CONV_AVX512 static uint32_t ReduceMax(__m512i v) {
    return _mm512_reduce_max_epu32(v);
  }
  HLOREF_CONV_AVX512 static uint32_t ReduceMin(__m512i v) {
    return _mm512_reduce_min_epu32(v);
  }
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
  HLOREF_CONV_AVX512 static void StoreFull(T* p, V v) {
    _mm512_storeu_pd(p, v);
  }
  HLOREF_CONV_AVX512 static V Set1(T x) { return _mm512_set1_pd(x); }
  HLOREF_CONV_AVX512 static V Fma(V a, V b, V c) {
    return _mm512_fmadd_pd(a, b, c);
  }
  HLOREF_CONV_AVX512 static V Zero() { return _mm512_setzero_pd(); }
  HLOREF_CONV_AVX512 static void Stat(V v, __m512i& mx, __m512i& mn) {
    const __m512i b = _mm512_and_si512(_mm512_castpd_si512(v),
                                       _mm512_set1_epi64(0x7fffffffffffffffll));
    mx = _mm512_max_epu64(mx, b);
    mn = _mm512_min_epu64(mn, _mm512_sub_epi64(b, _mm512_set1_epi64(1)));
  }
  HLOREF_CONV_AVX512 static uint64_t ReduceMax(__m512i v) {
    return _mm512_reduce_max_epu64(v);
  }
  HLOREF_CONV_AVX512 static uint64_t ReduceMin(__m512i v) {
    return _mm512_reduce_min_epu64(v);
  }
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

// One k step of the implicit-GEMM tile: 4 B vector loads, one broadcast
// per row used at once by its 4 FMAs: 24 accumulators + 4 B vectors + 1
// broadcast fit the 32 registers. (Six broadcasts up front made GCC spill
// two accumulators to the stack, a store / reload on their FMA chains every
// k: ~30 % of the tile's time.)
template <typename X>
HLOREF_CONV_AVX512 __attribute__((always_inline)) inline void TileStep(
    typename X::V (&acc)[kConvMr][4], const typename X::T* const (&ar)[kConvMr],
    const typename X::T* brow, int64_t k) {
  using V = typename X::V;
  constexpr int kL = X::kLanes;
  V bv[4];
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v) bv[v] = X::LoadFull(brow + kL * v);
#pragma GCC unroll 6
  for (int r = 0; r < kConvMr; ++r) {
    const V x = X::Set1(ar[r][k]);
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) acc[r][v] = X::Fma(x, bv[v], acc[r][v]);
  }
}

// The implicit-GEMM tile: 6 rows x 4 vectors (24 zmm accumulators); per
// (tap, k) 4 B vector loads, 6 broadcasts from the row pointers, 24 FMAs.
// Rows past mr are computed (their pointers read the zero row) and not
// stored. The k loop is unrolled by 8: a tap's loop of 64 steps (a 3x3
// layer of 64 channels) ended in a mispredicted exit and a restart per
// tap; unrolled, the 3x3 64 -> 64 layer ran ~8 % faster (min of 100 runs,
// 1.39 -> 1.27 ms).
//
// kScan: the range guard's statistics of the rows flagged in `scan` (see
// conv_kernels.h), taken per block of kL steps of k: each flagged row's
// vector of the block is loaded and merged before the block's FMAs, whose
// broadcasts read the same lines.
template <typename X, bool kScan>
HLOREF_CONV_AVX512 void Avx512Tile(int64_t ntaps, int64_t kc,
                                   const typename X::T* const* a_rows,
                                   int64_t a_off, const typename X::T* b,
                                   typename X::T* const* c_rows, int mr, int nr,
                                   bool accumulate, const uint8_t* scan,
                                   __m512i* stat) {
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
    const T* ar[kConvMr];
#pragma GCC unroll 6
    for (int r = 0; r < kConvMr; ++r) ar[r] = rows[r] + a_off;
    const T* bt = b + t * kc * kNr;
    unsigned tscan = 0;
    if constexpr (kScan) {
#pragma GCC unroll 6
      for (int r = 0; r < kConvMr; ++r) {
        tscan |= scan[t * kConvMr + r] != 0 ? 1u << r : 0u;
      }
    }
    if (kScan && tscan != 0) {
      for (int64_t k0 = 0; k0 < kc; k0 += kL) {
        const int64_t left = kc - k0;
        const M m = left >= kL ? static_cast<M>(~M{0})
                               : static_cast<M>((1u << left) - 1u);
        __m512i mx = stat[0], mn = stat[1];
#pragma GCC unroll 6
        for (int r = 0; r < kConvMr; ++r) {
          if ((tscan >> r) & 1u) X::Stat(X::Load(m, ar[r] + k0), mx, mn);
        }
        stat[0] = mx;
        stat[1] = mn;
        const int64_t kend = std::min<int64_t>(kc, k0 + kL);
#pragma GCC unroll 8
        for (int64_t k = k0; k < kend; ++k) {
          TileStep<X>(acc, ar, bt + k * kNr, k);
        }
      }
    } else {
#pragma GCC unroll 8
      for (int64_t k = 0; k < kc; ++k) TileStep<X>(acc, ar, bt + k * kNr, k);
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

template <typename X>
HLOREF_CONV_AVX512 void Avx512TileCall(
    int64_t ntaps, int64_t kc, const typename X::T* const* a_rows,
    int64_t a_off, const typename X::T* b, typename X::T* const* c_rows, int mr,
    int nr, bool accumulate, const uint8_t* scan,
    typename std::conditional_t<X::kLanes == 16, uint32_t, uint64_t>* stats) {
  if (scan == nullptr) {
    return Avx512Tile<X, false>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr,
                                accumulate, nullptr, nullptr);
  }
  __m512i stat[2] = {_mm512_setzero_si512(), _mm512_set1_epi32(-1)};
  Avx512Tile<X, true>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr, accumulate,
                      scan, stat);
  stats[0] = std::max(stats[0], X::ReduceMax(stat[0]));
  stats[1] = std::min(stats[1], X::ReduceMin(stat[1]));
}

void Avx512F32(int64_t ntaps, int64_t kc, const float* const* a_rows,
               int64_t a_off, const float* b, float* const* c_rows, int mr,
               int nr, bool accumulate, const uint8_t* scan, uint32_t* stats) {
  Avx512TileCall<F32Vec>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr,
                         accumulate, scan, stats);
}
void Avx512F64(int64_t ntaps, int64_t kc, const double* const* a_rows,
               int64_t a_off, const double* b, double* const* c_rows, int mr,
               int nr, bool accumulate, const uint8_t* scan, uint64_t* stats) {
  Avx512TileCall<F64Vec>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr,
                         accumulate, scan, stats);
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

// Depthwise along a row (conv_kernels.h DwRowArgs): a tile of kDwNx
// outputs x one vector of features; the kw filter vectors of an outer tap
// in registers; each input vector of the span the tile reads loaded once
// and fed to every (output, tap) pair that reads it, in increasing tap
// order per output (i ascends, and kx = (i - j * stride) / dilation with
// it). kChecked: some of the span lies outside [0, in_x) (those loads and
// FMAs are skipped).
constexpr int kDwNx = 8;

// Feature vectors start `lead` features before feature 0, so that they
// fall on 64-byte lines in the input rows (all rows share the first row's
// offset within a line when the strides are multiples of 64 bytes, as in
// NHWC with 16k features): a vector across two lines costs two L1 accesses
// (measured: the 56x56x256 layer took 340 us from a buffer at 16 bytes
// past a line, 256 us from an aligned one). Lanes before feature 0 or past
// the last are masked (masked lanes neither fault nor store). Only with
// >= 4 vectors of features, where the extra vector costs at most 1/4.
template <typename X>
int64_t DwLead(const DwRowArgs<typename X::T>& a) {
  using T = typename X::T;
  if (a.channels < 4 * X::kLanes) return 0;
  for (int64_t o = 0; o < a.n_outer; ++o) {
    if (a.rows[o] == nullptr) continue;
    const uintptr_t addr = reinterpret_cast<uintptr_t>(a.rows[o]);
    if (addr % sizeof(T) != 0) return 0;
    return static_cast<int64_t>((addr % 64) / sizeof(T));
  }
  return 0;
}

template <typename X>
HLOREF_CONV_AVX512 void DwStatsOut(const DwRowArgs<typename X::T>& a,
                                   const __m512i* stat) {
  if (a.scan == nullptr) return;
  a.stats[0] = std::max(a.stats[0], X::ReduceMax(stat[0]));
  a.stats[1] = std::min(a.stats[1], X::ReduceMin(stat[1]));
}

// Lanes l with 0 <= c0 + l < channels.
template <typename X>
typename X::M DwMask(int64_t c0, int64_t channels) {
  constexpr int kL = X::kLanes;
  const int64_t lo = std::max<int64_t>(0, -c0);
  const int64_t hi = std::min<int64_t>(kL, channels - c0);
  if (hi <= lo) return 0;
  const uint32_t upto = hi >= 32 ? ~0u : (1u << hi) - 1u;
  return static_cast<typename X::M>(upto & ~((1u << lo) - 1u));
}

template <typename X, int kKw, int kS, int kD, bool kChecked, bool kFull>
HLOREF_CONV_AVX512 void DwRowTile(const DwRowArgs<typename X::T>& a, int64_t c0,
                                  typename X::M m, int64_t xb, int nstore,
                                  __m512i* stat) {
  using T = typename X::T;
  using V = typename X::V;
  constexpr int kSpan = (kDwNx - 1) * kS + (kKw - 1) * kD + 1;
  V acc[kDwNx];
#pragma GCC unroll 8
  for (int j = 0; j < kDwNx; ++j) acc[j] = X::Zero();
  const int64_t first = xb * kS - a.pad;
  const int64_t sx = a.in_sx;
  for (int64_t o = 0; o < a.n_outer; ++o) {
    const T* row = a.rows[o];
    if (row == nullptr) continue;
    const T* wt = a.w + o * kKw * a.channels + c0;
    V wv[kKw];
#pragma GCC unroll 8
    for (int kx = 0; kx < kKw; ++kx) {
      wv[kx] = kFull ? X::LoadFull(wt + kx * a.channels)
                     : X::Load(m, wt + kx * a.channels);
    }
    // The span's input vectors first (each loaded once; outside [0, in_x)
    // a zero vector, whose +-0 products leave the chain unchanged, see
    // conv_kernels.h), then the FMAs tap by tap: consecutive FMAs update
    // different accumulators (no wait on the FMA latency), and each
    // accumulator still sees its taps in increasing order.
    V v[kSpan];
#pragma GCC unroll 64
    for (int i = 0; i < kSpan; ++i) {
      const T* src = row + c0 + (first + i) * sx;
      if (kChecked && (first + i < 0 || first + i >= a.in_x)) {
        v[i] = X::Zero();
      } else {
        v[i] = kFull ? X::LoadFull(src) : X::Load(m, src);
      }
      // Keeps v[i] in a register: the compiler would otherwise fold the
      // load into each FMA that uses it (kKw loads instead of one).
      asm("" : "+v"(v[i]));
    }
    if (a.scan != nullptr && a.scan[o]) {
      // The positions outputs j < nstore read (the span's tail past them
      // is read only for the tile's unused outputs).
      const int lim = (nstore - 1) * kS + (kKw - 1) * kD + 1;
      __m512i mx = stat[0], mn = stat[1];
#pragma GCC unroll 64
      for (int i = 0; i < kSpan; ++i) {
        if (i < lim) X::Stat(v[i], mx, mn);
      }
      stat[0] = mx;
      stat[1] = mn;
    }
#pragma GCC unroll 8
    for (int kx = 0; kx < kKw; ++kx) {
#pragma GCC unroll 8
      for (int j = 0; j < kDwNx; ++j) {
        acc[j] = X::Fma(v[j * kS + kx * kD], wv[kx], acc[j]);
      }
    }
  }
// Masked stores are slow on some hosts (AMD Zen 4): full vectors store
// without a mask.
#pragma GCC unroll 8
  for (int j = 0; j < kDwNx; ++j) {
    if (j < nstore) {
      T* dst = a.out + (xb + j) * a.out_sx + c0;
      if (kFull) {
        X::StoreFull(dst, acc[j]);
      } else {
        X::Store(m, dst, acc[j]);
      }
    }
  }
}

// Any window in X: per tap one filter vector, per (tap, output) one load.
template <typename X>
HLOREF_CONV_AVX512 void DwRowTileAny(const DwRowArgs<typename X::T>& a,
                                     int64_t c0, typename X::M m, int64_t xb,
                                     int nstore, __m512i* stat) {
  using T = typename X::T;
  using V = typename X::V;
  V acc[kDwNx];
#pragma GCC unroll 8
  for (int j = 0; j < kDwNx; ++j) acc[j] = X::Zero();
  for (int64_t o = 0; o < a.n_outer; ++o) {
    const T* row = a.rows[o];
    if (row == nullptr) continue;
    for (int64_t kx = 0; kx < a.kw; ++kx) {
      const V wv = X::Load(m, a.w + (o * a.kw + kx) * a.channels + c0);
#pragma GCC unroll 8
      for (int j = 0; j < kDwNx; ++j) {
        const int64_t i = (xb + j) * a.stride - a.pad + kx * a.dilation;
        if (j < nstore && i >= 0 && i < a.in_x) {
          const V x = X::Load(m, row + i * a.in_sx + c0);
          if (a.scan != nullptr && a.scan[o]) X::Stat(x, stat[0], stat[1]);
          acc[j] = X::Fma(x, wv, acc[j]);
        }
      }
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < kDwNx; ++j) {
    if (j < nstore) X::Store(m, a.out + (xb + j) * a.out_sx + c0, acc[j]);
  }
}

template <typename X, int kKw, int kS, int kD>
HLOREF_CONV_AVX512 void DwRowTiles(const DwRowArgs<typename X::T>& a) {
  using M = typename X::M;
  constexpr int kL = X::kLanes;
  constexpr int kSpan = (kDwNx - 1) * kS + (kKw - 1) * kD + 1;
  const int64_t end = a.x0 + a.nx;
  const int64_t lead = DwLead<X>(a);
  __m512i stat[2] = {_mm512_setzero_si512(), _mm512_set1_epi32(-1)};
  for (int64_t xb = a.x0; xb < end; xb += kDwNx) {
    const int n = static_cast<int>(std::min<int64_t>(kDwNx, end - xb));
    const int64_t first = xb * kS - a.pad;
    const bool checked = first < 0 || first + kSpan > a.in_x;
    for (int64_t c0 = -lead; c0 < a.channels; c0 += kL) {
      const M m = DwMask<X>(c0, a.channels);
      if (m == DwMask<X>(0, kL)) {
        if (checked) {
          DwRowTile<X, kKw, kS, kD, true, true>(a, c0, m, xb, n, stat);
        } else {
          DwRowTile<X, kKw, kS, kD, false, true>(a, c0, m, xb, n, stat);
        }
      } else if (checked) {
        DwRowTile<X, kKw, kS, kD, true, false>(a, c0, m, xb, n, stat);
      } else {
        DwRowTile<X, kKw, kS, kD, false, false>(a, c0, m, xb, n, stat);
      }
    }
  }
  DwStatsOut<X>(a, stat);
}

template <typename X>
HLOREF_CONV_AVX512 void DwRowTilesAny(const DwRowArgs<typename X::T>& a) {
  constexpr int kL = X::kLanes;
  const int64_t end = a.x0 + a.nx;
  const int64_t lead = DwLead<X>(a);
  __m512i stat[2] = {_mm512_setzero_si512(), _mm512_set1_epi32(-1)};
  for (int64_t xb = a.x0; xb < end; xb += kDwNx) {
    const int n = static_cast<int>(std::min<int64_t>(kDwNx, end - xb));
    for (int64_t c0 = -lead; c0 < a.channels; c0 += kL) {
      DwRowTileAny<X>(a, c0, DwMask<X>(c0, a.channels), xb, n, stat);
    }
  }
  DwStatsOut<X>(a, stat);
}

// Two output rows (conv_kernels.h DwRow2Args), kw = 3, stride 1,
// dilation 1. Per input row u, the span's 10 input vectors stream through
// one register each: input i feeds output i - kx of each output row that
// reads u, with that row's filter vector kx (16 accumulators, 6 filter
// vectors and the input in flight). Keeping all 10 inputs live instead
// (29 registers) made GCC spill and copy registers in the FMA stream.
// An accumulator sums its taps in the order of u, then kx, as DwRowTile.
template <typename X, bool kChecked, bool kFull, bool kY0, bool kY1, bool kScan>
HLOREF_CONV_AVX512 inline void DwRow2Pass(const DwRow2Args<typename X::T>& a,
                                          const typename X::T* row, int64_t c0,
                                          typename X::M m, int64_t first,
                                          int o0, int o1, int scan_lim,
                                          typename X::V (&acc)[2][kDwNx],
                                          __m512i* stat) {
  using T = typename X::T;
  using V = typename X::V;
  constexpr int kKw = 3;
  constexpr int kSpan = kDwNx + kKw - 1;
  V w[2][kKw];
#pragma GCC unroll 3
  for (int kx = 0; kx < kKw; ++kx) {
    if (kY0) {
      const T* p = a.w + (o0 * kKw + kx) * a.channels + c0;
      w[0][kx] = kFull ? X::LoadFull(p) : X::Load(m, p);
    }
    if (kY1) {
      const T* p = a.w + (o1 * kKw + kx) * a.channels + c0;
      w[1][kx] = kFull ? X::LoadFull(p) : X::Load(m, p);
    }
  }
  const int64_t sx = a.in_sx;
#pragma GCC unroll 16
  for (int i = 0; i < kSpan; ++i) {
    const T* src = row + c0 + (first + i) * sx;
    V v;
    if (kChecked && (first + i < 0 || first + i >= a.in_x)) {
      v = X::Zero();
    } else {
      v = kFull ? X::LoadFull(src) : X::Load(m, src);
      if (kScan && i < scan_lim) X::Stat(v, stat[0], stat[1]);
    }
#pragma GCC unroll 3
    for (int kx = 0; kx < kKw; ++kx) {
      const int j = i - kx;
      if (j < 0 || j >= kDwNx) continue;
      if (kY0) acc[0][j] = X::Fma(v, w[0][kx], acc[0][j]);
      if (kY1) acc[1][j] = X::Fma(v, w[1][kx], acc[1][j]);
    }
  }
}

template <typename X, bool kChecked, bool kFull>
HLOREF_CONV_AVX512 void DwRow2Tile(const DwRow2Args<typename X::T>& a,
                                   int64_t c0, typename X::M m, int64_t xb,
                                   int nstore, __m512i* stat) {
  using T = typename X::T;
  using V = typename X::V;
  V acc[2][kDwNx];
#pragma GCC unroll 2
  for (int y = 0; y < 2; ++y) {
#pragma GCC unroll 8
    for (int j = 0; j < kDwNx; ++j) acc[y][j] = X::Zero();
  }
  const int64_t first = xb - a.pad;
  // Each input position is scanned once: a tile scans the 8 positions
  // its first output starts at, the row's last tile also the ones past
  // them that it reads.
  const int scan_lim = xb + kDwNx >= a.x0 + a.nx ? nstore + 2 : kDwNx;
  for (int64_t u = 0; u < a.n_in; ++u) {
    const T* row = a.in_rows[u];
    const int o0 = a.tap[0][u], o1 = a.tap[1][u];
    const int pattern = (o0 >= 0 ? 1 : 0) | (o1 >= 0 ? 2 : 0) |
                        (a.scan != nullptr && a.scan[u] ? 4 : 0);
#define HLOREF_DW2_PASS(y0, y1, sc)                                        \
  DwRow2Pass<X, kChecked, kFull, y0, y1, sc>(a, row, c0, m, first, o0, o1, \
                                             scan_lim, acc, stat)
    switch (pattern) {
      case 1:
        HLOREF_DW2_PASS(true, false, false);
        break;
      case 2:
        HLOREF_DW2_PASS(false, true, false);
        break;
      case 3:
        HLOREF_DW2_PASS(true, true, false);
        break;
      case 5:
        HLOREF_DW2_PASS(true, false, true);
        break;
      case 6:
        HLOREF_DW2_PASS(false, true, true);
        break;
      case 7:
        HLOREF_DW2_PASS(true, true, true);
        break;
      default:  // no output row reads u
        break;
    }
#undef HLOREF_DW2_PASS
  }
#pragma GCC unroll 2
  for (int y = 0; y < 2; ++y) {
#pragma GCC unroll 8
    for (int j = 0; j < kDwNx; ++j) {
      if (j < nstore) {
        T* dst = a.out[y] + (xb + j) * a.out_sx + c0;
        if (kFull) {
          X::StoreFull(dst, acc[y][j]);
        } else {
          X::Store(m, dst, acc[y][j]);
        }
      }
    }
  }
}

template <typename X>
HLOREF_CONV_AVX512 void DwRow2Tiles(const DwRow2Args<typename X::T>& a) {
  using T = typename X::T;
  using M = typename X::M;
  constexpr int kL = X::kLanes;
  constexpr int kSpan = kDwNx + 2;
  const int64_t end = a.x0 + a.nx;
  // The feature vectors on 64-byte lines (DwLead).
  int64_t lead = 0;
  if (a.channels >= 4 * kL && a.n_in > 0) {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(a.in_rows[0]);
    if (addr % sizeof(T) == 0) {
      lead = static_cast<int64_t>((addr % 64) / sizeof(T));
    }
  }
  __m512i stat[2] = {_mm512_setzero_si512(), _mm512_set1_epi32(-1)};
  for (int64_t xb = a.x0; xb < end; xb += kDwNx) {
    const int n = static_cast<int>(std::min<int64_t>(kDwNx, end - xb));
    const int64_t first = xb - a.pad;
    const bool checked = first < 0 || first + kSpan > a.in_x;
    for (int64_t c0 = -lead; c0 < a.channels; c0 += kL) {
      const M m = DwMask<X>(c0, a.channels);
      if (m == DwMask<X>(0, kL)) {
        if (checked) {
          DwRow2Tile<X, true, true>(a, c0, m, xb, n, stat);
        } else {
          DwRow2Tile<X, false, true>(a, c0, m, xb, n, stat);
        }
      } else if (checked) {
        DwRow2Tile<X, true, false>(a, c0, m, xb, n, stat);
      } else {
        DwRow2Tile<X, false, false>(a, c0, m, xb, n, stat);
      }
    }
  }
  if (a.scan != nullptr) {
    a.stats[0] = std::max(a.stats[0], X::ReduceMax(stat[0]));
    a.stats[1] = std::min(a.stats[1], X::ReduceMin(stat[1]));
  }
}

void Avx512DwRow2F32(const DwRow2Args<float>& a) { DwRow2Tiles<F32Vec>(a); }
void Avx512DwRow2F64(const DwRow2Args<double>& a) { DwRow2Tiles<F64Vec>(a); }

template <typename X>
void Avx512DwRow(const DwRowArgs<typename X::T>& a) {
  if (a.dilation == 1 && a.kw == 3 && a.stride == 1) {
    return DwRowTiles<X, 3, 1, 1>(a);
  }
  if (a.dilation == 1 && a.kw == 3 && a.stride == 2) {
    return DwRowTiles<X, 3, 2, 1>(a);
  }
  if (a.dilation == 1 && a.kw == 5 && a.stride == 1) {
    return DwRowTiles<X, 5, 1, 1>(a);
  }
  DwRowTilesAny<X>(a);
}

void Avx512DwRowF32(const DwRowArgs<float>& a) { Avx512DwRow<F32Vec>(a); }
void Avx512DwRowF64(const DwRowArgs<double>& a) { Avx512DwRow<F64Vec>(a); }

// ---- AVX2 + FMA (hosts without AVX-512): the implicit-GEMM tile is the
// GEMM's AVX2 register tile (avx2_tile.h) reading A through the row
// pointers; each element one FMA chain over the taps and, within each,
// k. The flagged rows' statistics are taken by the GEMM set's AVX2
// copy-and-scan before the strips. The f32 depthwise kernels are FMA
// chains on 8 lanes too; the f64 ones stay portable (AVX2 has no 64-bit
// unsigned max / min for their statistics).
template <typename T, int kMr>
HLOREF_AVX2 void Avx2ConvRows(int64_t ntaps, int64_t kc, const T* const* a_rows,
                              int64_t a_off, const T* b, T* const* c_rows,
                              int nr, bool accumulate) {
  constexpr int64_t kNr = sizeof(T) == 4 ? kConvNrF32 : kConvNrF64;
  const avx2::Avx2ASource<T> src{a_rows, nullptr, a_off, 1};
  avx2::Avx2Tile<T, kMr>(ntaps, kc, src, b, kNr, c_rows, nr, accumulate);
}

template <typename T, typename U>
void Avx2ConvTile(int64_t ntaps, int64_t kc, const T* const* a_rows,
                  int64_t a_off, const T* b, T* const* c_rows, int mr, int nr,
                  bool accumulate, const uint8_t* scan, U* stats) {
  if (scan != nullptr && kc > 0) {
    const gemm::GemmKernels* g = gemm::Avx2GemmKernels();
    for (int64_t i = 0; i < ntaps * kConvMr; ++i) {
      if (!scan[i]) continue;
      if constexpr (std::is_same_v<T, float>) {
        g->scan_f32(a_rows[i] + a_off, nullptr, kc, kc, kc, &stats[0],
                    &stats[1]);
      } else {
        g->scan_f64(a_rows[i] + a_off, nullptr, kc, kc, kc, &stats[0],
                    &stats[1]);
      }
    }
  }
  avx2::WithRows(mr, [&](auto rows) {
    Avx2ConvRows<T, decltype(rows)::value>(ntaps, kc, a_rows, a_off, b, c_rows,
                                           nr, accumulate);
  });
}

// DwKernelF32 on 8 lanes: per output position and block of up to 32
// features (4 vectors, masked past nc), the chain over the taps from +0
// in registers.
template <bool kFull>
HLOREF_AVX2_INLINE void Avx2DwBlock(int64_t ntaps, const float* const* a_rows,
                                    int64_t a_off, const float* w, int64_t ldw,
                                    int r, float* out, int nc) {
  float* tag = nullptr;
  __m256i m[4];
  __m256 acc[4];
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v) {
    m[v] = avx2::Avx2Mask(tag, std::clamp(nc - 8 * v, 0, 8));
    acc[v] = _mm256_setzero_ps();
  }
  for (int64_t t = 0; t < ntaps; ++t) {
    const float* a = a_rows[t * kConvMr + r] + a_off;
    const float* wt = w + t * ldw;
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      const __m256 x = kFull ? _mm256_loadu_ps(a + 8 * v)
                             : _mm256_maskload_ps(a + 8 * v, m[v]);
      const __m256 y = kFull ? _mm256_loadu_ps(wt + 8 * v)
                             : _mm256_maskload_ps(wt + 8 * v, m[v]);
      acc[v] = _mm256_fmadd_ps(x, y, acc[v]);
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v) {
    if (kFull) {
      _mm256_storeu_ps(out + 8 * v, acc[v]);
    } else {
      _mm256_maskstore_ps(out + 8 * v, m[v], acc[v]);
    }
  }
}
HLOREF_AVX2 void Avx2DwF32(int64_t ntaps, const float* const* a_rows,
                           int64_t a_off, const float* w, int64_t ldw,
                           float* const* c_rows, int64_t c_off, int mr,
                           int nc) {
  for (int r = 0; r < mr; ++r) {
    for (int c0 = 0; c0 < nc; c0 += 32) {
      float* out = c_rows[r] + c_off + c0;
      if (nc - c0 >= 32) {
        Avx2DwBlock<true>(ntaps, a_rows, a_off + c0, w + c0, ldw, r, out, 32);
      } else {
        Avx2DwBlock<false>(ntaps, a_rows, a_off + c0, w + c0, ldw, r, out,
                           nc - c0);
      }
    }
  }
}

// DwRowKernelF32 on 8 lanes: per output x and block of up to 32 features,
// the chain over the valid taps in the portable kernel's order (outer taps,
// then kx) from +0, in registers; the scanned rows' statistics from the
// same loads (every element a window reads; lanes past the features load
// as 0, which counts for neither statistic).
template <bool kFull>
HLOREF_AVX2_INLINE void Avx2DwRowBlock(const DwRowArgs<float>& a, int64_t x,
                                       int64_t c0, int nc,
                                       avx2::Avx2Stats& st) {
  float* tag = nullptr;
  __m256i m[4];
  __m256 acc[4];
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v) {
    m[v] = avx2::Avx2Mask(tag, std::clamp(nc - 8 * v, 0, 8));
    acc[v] = _mm256_setzero_ps();
  }
  for (int64_t r = 0; r < a.n_outer; ++r) {
    const float* row = a.rows[r];
    if (row == nullptr) continue;
    const bool scan = a.scan != nullptr && a.scan[r];
    for (int64_t kx = 0; kx < a.kw; ++kx) {
      const int64_t i = x * a.stride - a.pad + kx * a.dilation;
      if (i < 0 || i >= a.in_x) continue;
      const float* in = row + i * a.in_sx + c0;
      const float* wt = a.w + (r * a.kw + kx) * a.channels + c0;
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        const __m256 xv = kFull ? _mm256_loadu_ps(in + 8 * v)
                                : _mm256_maskload_ps(in + 8 * v, m[v]);
        const __m256 wv = kFull ? _mm256_loadu_ps(wt + 8 * v)
                                : _mm256_maskload_ps(wt + 8 * v, m[v]);
        acc[v] = _mm256_fmadd_ps(xv, wv, acc[v]);
        if (scan) avx2::Avx2StatsAdd(st, _mm256_castps_si256(xv));
      }
    }
  }
  float* o = a.out + x * a.out_sx + c0;
#pragma GCC unroll 4
  for (int v = 0; v < 4; ++v) {
    if (kFull) {
      _mm256_storeu_ps(o + 8 * v, acc[v]);
    } else {
      _mm256_maskstore_ps(o + 8 * v, m[v], acc[v]);
    }
  }
}
// Outputs x .. x+7 of one 8-feature block of a 3-tap, stride-1,
// undilated row whose windows all lie inside [0, in_x): per outer tap, the
// ten input vectors are loaded once each and every one feeds the (up to
// three) outputs that read it, with that tap's three weights in registers
// (24 FMAs per 13 loads, where the block above loads two vectors per FMA).
// Output q meets its taps in the same order: kx = 0, 1, 2 at input
// positions q, q + 1, q + 2, outer taps in order, from +0.
HLOREF_AVX2_INLINE void Avx2DwRow3x8(const DwRowArgs<float>& a, int64_t x,
                                     int64_t c0, avx2::Avx2Stats& st) {
  __m256 acc[8];
#pragma GCC unroll 8
  for (int q = 0; q < 8; ++q) acc[q] = _mm256_setzero_ps();
  for (int64_t r = 0; r < a.n_outer; ++r) {
    const float* row = a.rows[r];
    if (row == nullptr) continue;
    const bool scan = a.scan != nullptr && a.scan[r];
    const float* in = row + (x - a.pad) * a.in_sx + c0;
    const float* wt = a.w + r * 3 * a.channels + c0;
    const __m256 w0 = _mm256_loadu_ps(wt);
    const __m256 w1 = _mm256_loadu_ps(wt + a.channels);
    const __m256 w2 = _mm256_loadu_ps(wt + 2 * a.channels);
#pragma GCC unroll 10
    for (int p = 0; p < 10; ++p) {
      const __m256 v = _mm256_loadu_ps(in + p * a.in_sx);
      if (scan) avx2::Avx2StatsAdd(st, _mm256_castps_si256(v));
      if (p < 8) acc[p] = _mm256_fmadd_ps(v, w0, acc[p]);
      if (p >= 1 && p <= 8) acc[p - 1] = _mm256_fmadd_ps(v, w1, acc[p - 1]);
      if (p >= 2) acc[p - 2] = _mm256_fmadd_ps(v, w2, acc[p - 2]);
    }
  }
#pragma GCC unroll 8
  for (int q = 0; q < 8; ++q) {
    _mm256_storeu_ps(a.out + (x + q) * a.out_sx + c0, acc[q]);
  }
}

// One output position, every feature: blocks of 32 features (4 vectors).
HLOREF_AVX2_INLINE void Avx2DwRowAt(const DwRowArgs<float>& a, int64_t x,
                                    int64_t c_begin, avx2::Avx2Stats& st) {
  for (int64_t c0 = c_begin; c0 < a.channels; c0 += 32) {
    const int nc = static_cast<int>(std::min<int64_t>(32, a.channels - c0));
    if (nc == 32) {
      Avx2DwRowBlock<true>(a, x, c0, nc, st);
    } else {
      Avx2DwRowBlock<false>(a, x, c0, nc, st);
    }
  }
}

HLOREF_AVX2 void Avx2DwRowF32(const DwRowArgs<float>& a) {
  avx2::Avx2Stats st = avx2::Avx2StatsFrom(0, ~0u);
  if (a.scan != nullptr) st = avx2::Avx2StatsFrom(a.stats[0], a.stats[1]);
  const int64_t x1 = a.x0 + a.nx;
  const bool slide = a.kw == 3 && a.stride == 1 && a.dilation == 1;
  const int64_t c_full = a.channels / 8 * 8;
  for (int64_t x = a.x0; x < x1;) {
    // Eight outputs at once where all their windows lie inside the row:
    // every whole 8-feature block slides over them (their ten input
    // positions, about 30 KiB for 256 features and three outer taps, stay
    // in L1 across the blocks), the remaining features per output.
    if (slide && x + 8 <= x1 && x - a.pad >= 0 && x + 9 - a.pad < a.in_x) {
      for (int64_t c0 = 0; c0 < c_full; c0 += 8) Avx2DwRow3x8(a, x, c0, st);
      if (c_full < a.channels) {
        for (int64_t q = 0; q < 8; ++q) Avx2DwRowAt(a, x + q, c_full, st);
      }
      x += 8;
    } else {
      Avx2DwRowAt(a, x, 0, st);
      ++x;
    }
  }
  if (a.scan != nullptr) avx2::Avx2StatsStore(st, &a.stats[0], &a.stats[1]);
}

void Avx2F32(int64_t ntaps, int64_t kc, const float* const* a_rows,
             int64_t a_off, const float* b, float* const* c_rows, int mr,
             int nr, bool accumulate, const uint8_t* scan, uint32_t* stats) {
  Avx2ConvTile<float, uint32_t>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr,
                                accumulate, scan, stats);
}
void Avx2F64(int64_t ntaps, int64_t kc, const double* const* a_rows,
             int64_t a_off, const double* b, double* const* c_rows, int mr,
             int nr, bool accumulate, const uint8_t* scan, uint64_t* stats) {
  Avx2ConvTile<double, uint64_t>(ntaps, kc, a_rows, a_off, b, c_rows, mr, nr,
                                 accumulate, scan, stats);
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
  static const ConvKernels k = {"avx512",        Avx512F32,
                                Avx512F64,       Avx512DwF32,
                                Avx512DwF64,     Avx512DwRowF32,
                                Avx512DwRowF64,  Avx512DwRow2F32,
                                Avx512DwRow2F64, g};
  return &k;
#else
  return nullptr;
#endif
}

const ConvKernels* Avx2ConvKernels() {
#ifdef HLOREF_CONV_X86
  const gemm::GemmKernels* g = gemm::Avx2GemmKernels();
  if (g == nullptr) return nullptr;  // same CPUID test as the GEMM's
  static const ConvKernels k = {
      "avx2",       Avx2F32,          Avx2F64, Avx2DwF32, PortableDwF64,
      Avx2DwRowF32, PortableDwRowF64, nullptr, nullptr,   g};
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
    const ConvKernels* avx2 = Avx2ConvKernels();
    if (force != nullptr && std::strcmp(force, "avx2") == 0 &&
        avx2 != nullptr) {
      return avx2;
    }
    const ConvKernels* k = Avx512ConvKernels();
    if (k != nullptr) return k;
    return avx2 != nullptr ? avx2 : &PortableConvKernels();
  }();
  return *chosen;
}

}  // namespace hloref::cpu::conv
