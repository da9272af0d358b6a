// AVX2 + FMA building blocks shared by the GEMM and convolution kernel
// sets for hosts without AVX-512 (gemm_kernels.cc, conv_kernels.cc): vector
// helpers on 8 f32 / 4 f64 lanes, the range guard's statistics on 8 lanes,
// and the register tile both kernel sets run (Avx2Tile). Every function
// carries its own target attribute; callers test the host (cpu_supports
// "avx2" and "fma") before calling any of them. x86-64 with GCC or clang
// only (HLOREF_AVX2_TILE is defined where it is available).
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_AVX2_TILE_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_AVX2_TILE_H_

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HLOREF_AVX2_TILE 1

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace hloref::cpu::avx2 {

#define HLOREF_AVX2 __attribute__((target("avx2,fma")))
#define HLOREF_AVX2_INLINE \
  __attribute__((target("avx2,fma"), always_inline)) inline

template <typename T>
struct Avx2Vec;
template <>
struct Avx2Vec<float> {
  using V = __m256;
  static constexpr int kLanes = 8;
};
template <>
struct Avx2Vec<double> {
  using V = __m256d;
  static constexpr int kLanes = 4;
};

// The first w lanes (0 <= w <= lanes) set.
HLOREF_AVX2_INLINE __m256i Avx2Mask(float*, int w) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(w),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
HLOREF_AVX2_INLINE __m256i Avx2Mask(double*, int w) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(w),
                            _mm256_setr_epi64x(0, 1, 2, 3));
}
HLOREF_AVX2_INLINE __m256 Avx2Load(const float* p) {
  return _mm256_loadu_ps(p);
}
HLOREF_AVX2_INLINE __m256d Avx2Load(const double* p) {
  return _mm256_loadu_pd(p);
}
HLOREF_AVX2_INLINE __m256 Avx2MaskLoad(const float* p, __m256i m) {
  return _mm256_maskload_ps(p, m);
}
HLOREF_AVX2_INLINE __m256d Avx2MaskLoad(const double* p, __m256i m) {
  return _mm256_maskload_pd(p, m);
}
HLOREF_AVX2_INLINE void Avx2Store(float* p, __m256 v) {
  _mm256_storeu_ps(p, v);
}
HLOREF_AVX2_INLINE void Avx2Store(double* p, __m256d v) {
  _mm256_storeu_pd(p, v);
}
HLOREF_AVX2_INLINE void Avx2MaskStore(float* p, __m256i m, __m256 v) {
  _mm256_maskstore_ps(p, m, v);
}
HLOREF_AVX2_INLINE void Avx2MaskStore(double* p, __m256i m, __m256d v) {
  _mm256_maskstore_pd(p, m, v);
}
HLOREF_AVX2_INLINE __m256 Avx2Splat(const float* p) {
  return _mm256_broadcast_ss(p);
}
HLOREF_AVX2_INLINE __m256d Avx2Splat(const double* p) {
  return _mm256_broadcast_sd(p);
}
HLOREF_AVX2_INLINE __m256 Avx2Zero(float*) { return _mm256_setzero_ps(); }
HLOREF_AVX2_INLINE __m256d Avx2Zero(double*) { return _mm256_setzero_pd(); }
HLOREF_AVX2_INLINE __m256 Avx2Fma(__m256 a, __m256 b, __m256 acc) {
  return _mm256_fmadd_ps(a, b, acc);
}
HLOREF_AVX2_INLINE __m256d Avx2Fma(__m256d a, __m256d b, __m256d acc) {
  return _mm256_fmadd_pd(a, b, acc);
}

// The range guard's statistics of 8 f32 bit patterns (GemmCopyScanF32's
// max |bits| and min |bits| - 1). A lane loaded as 0 (masked off) changes
// neither: 0 - 1 wraps to the largest value.
struct Avx2Stats {
  __m256i mx, mn;
};
HLOREF_AVX2_INLINE Avx2Stats Avx2StatsFrom(uint32_t max_abs,
                                           uint32_t min_nz_m1) {
  return {_mm256_set1_epi32(static_cast<int>(max_abs)),
          _mm256_set1_epi32(static_cast<int>(min_nz_m1))};
}
HLOREF_AVX2_INLINE void Avx2StatsAdd(Avx2Stats& st, __m256i bits) {
  const __m256i u = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
  st.mx = _mm256_max_epu32(st.mx, u);
  st.mn = _mm256_min_epu32(st.mn, _mm256_sub_epi32(u, _mm256_set1_epi32(1)));
}
HLOREF_AVX2_INLINE void Avx2StatsStore(const Avx2Stats& st, uint32_t* max_abs,
                                       uint32_t* min_nz_m1) {
  alignas(32) uint32_t hx[8], hn[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(hx), st.mx);
  _mm256_store_si256(reinterpret_cast<__m256i*>(hn), st.mn);
  for (int i = 0; i < 8; ++i) {
    *max_abs = std::max(*max_abs, hx[i]);
    *min_nz_m1 = std::min(*min_nz_m1, hn[i]);
  }
}

// f(std::integral_constant<int, R>{}) for R = mr in 1..5, else R = 6: the
// row count of a tile call as a template argument.
template <typename F>
decltype(auto) WithRows(int mr, F&& f) {
  switch (mr) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 5:
      return f(std::integral_constant<int, 5>{});
    default:
      return f(std::integral_constant<int, 6>{});
  }
}

// Where the tile reads A: row r under tap t at step k is
//   rows[t * 6 + r][a_off + k]        when rows is not null (convolution:
//                                      a row pointer per tap and row),
//   a[r * rs + k * ks]                 otherwise (GEMM: the packed panel,
//                                      rs = 1, ks = 6; or A's rows in place,
//                                      rs = lda, ks = 1).
template <typename T>
struct Avx2ASource {
  const T* const* rows;
  const T* a;
  int64_t rs;  // with rows: a_off
  int64_t ks;
};

// One strip of two vectors of columns [0, 2 lanes) of kMr rows over taps
// t < ntaps and, within each, k < kc, in that order: each element one FMA
// chain from 0 or C's value (c_rows[r][j]). B's row for (t, k) is at
// b + (t * kc + k) * ldb. kFull: both vectors whole; otherwise lanes at or
// past w are neither read nor written (masked).
template <typename T, int kMr, bool kFull>
HLOREF_AVX2_INLINE void Avx2Strip(int64_t ntaps, int64_t kc,
                                  const Avx2ASource<T>& src, const T* b,
                                  int64_t ldb, T* const* c_rows, int64_t j0,
                                  int w, bool accumulate) {
  using V = typename Avx2Vec<T>::V;
  constexpr int kL = Avx2Vec<T>::kLanes;
  T* tag = nullptr;
  const __m256i m0 = Avx2Mask(tag, std::min(w, kL));
  const __m256i m1 = Avx2Mask(tag, std::max(w - kL, 0));
  V acc0[kMr], acc1[kMr];
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
    T* c = c_rows[r] + j0;
    if (!accumulate) {
      acc0[r] = acc1[r] = Avx2Zero(tag);
    } else if constexpr (kFull) {
      acc0[r] = Avx2Load(c);
      acc1[r] = Avx2Load(c + kL);
    } else {
      acc0[r] = Avx2MaskLoad(c, m0);
      acc1[r] = Avx2MaskLoad(c + kL, m1);
    }
  }
  for (int64_t t = 0; t < ntaps; ++t) {
    const T* ap[kMr];
#pragma GCC unroll 6
    for (int r = 0; r < kMr; ++r) {
      ap[r] = src.rows != nullptr ? src.rows[t * 6 + r] + src.rs
                                  : src.a + r * src.rs;
    }
    const int64_t ks = src.rows != nullptr ? 1 : src.ks;
    const T* bt = b + t * kc * ldb + j0;
    for (int64_t k = 0; k < kc; ++k) {
      const T* brow = bt + k * ldb;
      V b0, b1;
      if constexpr (kFull) {
        b0 = Avx2Load(brow);
        b1 = Avx2Load(brow + kL);
      } else {
        b0 = Avx2MaskLoad(brow, m0);
        b1 = Avx2MaskLoad(brow + kL, m1);
      }
#pragma GCC unroll 6
      for (int r = 0; r < kMr; ++r) {
        const V ar = Avx2Splat(ap[r] + k * ks);
        acc0[r] = Avx2Fma(ar, b0, acc0[r]);
        acc1[r] = Avx2Fma(ar, b1, acc1[r]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMr; ++r) {
    T* c = c_rows[r] + j0;
    if constexpr (kFull) {
      Avx2Store(c, acc0[r]);
      Avx2Store(c + kL, acc1[r]);
    } else {
      Avx2MaskStore(c, m0, acc0[r]);
      Avx2MaskStore(c + kL, m1, acc1[r]);
    }
  }
}

// The register tile C[kMr x nr] as strips of two vectors (16 f32 or 8 f64
// columns: 6 x 16 f32 with 12 accumulators, BLIS's Haswell shape), each
// over all taps and k while the A rows stay in L1.
template <typename T, int kMr>
HLOREF_AVX2_INLINE void Avx2Tile(int64_t ntaps, int64_t kc,
                                 const Avx2ASource<T>& src, const T* b,
                                 int64_t ldb, T* const* c_rows, int nr,
                                 bool accumulate) {
  constexpr int kW = 2 * Avx2Vec<T>::kLanes;
  int j0 = 0;
  for (; j0 + kW <= nr; j0 += kW) {
    Avx2Strip<T, kMr, true>(ntaps, kc, src, b, ldb, c_rows, j0, kW, accumulate);
  }
  if (j0 < nr) {
    Avx2Strip<T, kMr, false>(ntaps, kc, src, b, ldb, c_rows, j0, nr - j0,
                             accumulate);
  }
}

}  // namespace hloref::cpu::avx2

#endif  // x86-64 with GCC or clang
#endif  // HLOREF_BACKENDS_CPU_RUNTIME_AVX2_TILE_H_
