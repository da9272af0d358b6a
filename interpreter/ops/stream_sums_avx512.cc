// Enclosures of vector-matrix products on AVX-512 (issue 16): over a
// row-major rhs (StreamEnclosureAvx512*) and a transposed one
// (TransposedEnclosureAvx512*; declared in fast_round.h).
//
// Every output is summed twice over its terms in c order, once rounding
// each step down and once up (the instructions' own rounding control,
// {rd-sae} / {ru-sae}: the MXCSR stays as it is). The products are exact
// in double (the callers' kExactInDouble), so fma(x, w, s) rounds the
// exact s + x w once, and rounding is monotone: by induction every
// partial sum of the downward chain is at most the exact one and every
// partial sum of the upward chain at least. So lo <= S <= hi, with no a
// priori bound to argue and no sum of magnitudes to keep, and when the
// chain never rounds (sums of short products often do not) lo == hi == S:
// DecideEnclosure then rounds S itself, ties included, which no interval
// test around an inexact estimate could do (with the AVX2 loops' bound,
// bf16 1 x 2048 by 2048 x 16384 left 1.2 % of the outputs, all exact
// sums on or next to a tie, to a gather of their column and the two-sum:
// 30 % of the run).
//
// Cost per term: one conversion to double and two FMAs (or, for half the
// columns of several lhs rows, one exact product and two additions:
// Accumulate), 32 columns per group (one 64-byte load of bf16 codes, two
// of f32), four rhs rows per chunk converted once for every lhs row; the
// chains of a block of columns stay in L1 over all k rows. Up to four
// lhs rows over a row-major rhs, and one over a transposed one, first run
// one chain per column, rounded upward by the MXCSR, and keep it while the
// MXCSR's inexact flag says no step rounded: the exact sum, which both
// directed chains then hold too (RunFewRows, OneChainTransposedPass); from
// the first rounding step on (checked per segment of columns or per pass)
// the two chains, redone from the last exact point, so the bits are the
// same either way.
//
// Zero: an exact zero sum gives lo == hi == 0; the upward chain's zero
// has the sign the round-to-nearest chain (and ExactSum) gives: x + (-x)
// is +0 in every rounding mode but toward -inf, and -0 + -0 is -0, so it
// is -0 exactly when every term is -0 (the chain starts at -0).
//
// GCC 12 reports its own AVX-512 intrinsics' undefined-vector idiom
// (_mm512_undefined_*) as (maybe-)uninitialized at their header lines.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "interpreter/ops/fast_round.h"

namespace hloref {
namespace {

#define HLOREF_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))

constexpr int64_t kGroup = 32;  // columns per group: 4 x 8 doubles
// Bytes of chains (lo and hi: 16 per column and lhs row) per block of
// columns, of L1's 32 KiB or more.
constexpr int64_t kL1ChainBytes = 20 * 1024;
// Bytes of one lhs row's chains over whole rhs rows, of L2's 1 MiB or more.
constexpr int64_t kL2ChainBytes = 512 * 1024;
// The narrowest block (m = 16): rows read in pieces of 64 columns or more.
constexpr int64_t kMinBlock = 64;
constexpr int kDown = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
constexpr int kUp = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;

// The host's AVX-512, unless HLOREF_ORACLE_DOT_AVX512=0 (for measuring
// the AVX2 loops against these on the same binary).
bool HasAvx512() {
  static const bool has = [] {
    const char* env = std::getenv("HLOREF_ORACLE_DOT_AVX512");
    if (env != nullptr && std::string_view(env) == "0") return false;
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
  }();
  return has;
}

std::atomic<bool> disabled_for_testing{false};
std::atomic<bool> one_chain_disabled_for_testing{false};
// RunFewRows and the one-chain transposed passes, unless turned off
// (SetStreamOneChainDisabledForTesting, or HLOREF_ORACLE_DOT_ONE_CHAIN=0 for
// measuring them against the two chains on the same binary).
bool OneChainEnabled() {
  static const bool env_on = [] {
    const char* env = std::getenv("HLOREF_ORACLE_DOT_ONE_CHAIN");
    return env == nullptr || std::string_view(env) != "0";
  }();
  return env_on &&
         !one_chain_disabled_for_testing.load(std::memory_order_relaxed);
}

// The column (within its group) of position p of a group's chains, as
// LoadGroup converts them: bf16 codes are widened by interleaving zero
// words within each 128-bit lane, so position and column differ there;
// f32 keeps the columns in order.
int Column(bool bf16, int p) {
  if (!bf16) return p;
  static constexpr int kBase[4] = {0, 16, 4, 20};
  const int q = p % 8;
  return kBase[p / 8] + (q < 4 ? q : q + 4);
}

// Columns [j, j + 32) of one rhs row from p (only the first `valid`
// read; the others are zero) as doubles, exactly, in the positions above.
template <bool kBf16, typename T>
HLOREF_AVX512 __attribute__((always_inline)) inline void LoadGroup(
    const T* p, int64_t valid, __m512d (&d)[4]) {
  __m512 lo, hi;
  if constexpr (kBf16) {
    // Two 256-bit halves, each widened by interleaving zero words within
    // its 128-bit lanes (positions as Column says) and converted without
    // an extract: 8 % faster than one 512-bit interleave on Zen 4.
    const __m256i zero = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
      const int64_t in_half = std::clamp<int64_t>(valid - 16 * h, 0, 16);
      const __m256i v =
          in_half >= 16
              ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 16 * h))
              : _mm256_maskz_loadu_epi16(
                    static_cast<__mmask16>((1u << in_half) - 1), p + 16 * h);
      d[h] =
          _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, v)));
      d[h + 2] =
          _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, v)));
    }
    return;
  } else if (valid >= kGroup) {
    lo = _mm512_loadu_ps(p);
    hi = _mm512_loadu_ps(p + 16);
  } else {
    const int64_t v0 = std::min<int64_t>(valid, 16);
    const int64_t v1 = std::max<int64_t>(valid - 16, 0);
    lo = _mm512_maskz_loadu_ps(
        static_cast<__mmask16>(v0 >= 16 ? 0xffff : (1u << v0) - 1), p);
    hi = _mm512_maskz_loadu_ps(
        static_cast<__mmask16>(v1 >= 16 ? 0xffff : (1u << v1) - 1), p + 16);
  }
  d[0] = _mm512_cvtps_pd(_mm512_castps512_ps256(lo));
  d[1] = _mm512_cvtps_pd(_mm512_extractf32x8_ps(lo, 1));
  d[2] = _mm512_cvtps_pd(_mm512_castps512_ps256(hi));
  d[3] = _mm512_cvtps_pd(_mm512_extractf32x8_ps(hi, 1));
}

// A prefetch into L2 (kL2) or L1. (A helper, not a variable hint: GCC's
// _mm_prefetch takes its own enum, clang's an int.)
template <bool kL2>
HLOREF_AVX512 __attribute__((always_inline)) inline void Prefetch(
    const char* p) {
  if constexpr (kL2) {
    _mm_prefetch(p, _MM_HINT_T1);
  } else {
    _mm_prefetch(p, _MM_HINT_T0);
  }
}

// Adds x w (exact in double) to the chain rounded down and the one rounded
// up: two FMAs, or (kSplit) the exact product and two additions, which
// run on other pipes (Zen 4: the FADD pipes beside the FMA pipes). Either
// way each chain rounds the same exact sum the same way: the same bits.
template <bool kSplit>
HLOREF_AVX512 __attribute__((always_inline)) inline void Accumulate(
    __m512d x, __m512d w, __m512d& lo, __m512d& hi) {
  if constexpr (kSplit) {
    const __m512d p = _mm512_mul_pd(x, w);
    lo = _mm512_add_round_pd(lo, p, kDown);
    hi = _mm512_add_round_pd(hi, p, kUp);
  } else {
    lo = _mm512_fmadd_round_pd(x, w, lo, kDown);
    hi = _mm512_fmadd_round_pd(x, w, hi, kUp);
  }
}

// Rows [c, c + R) of the rhs into every lhs row's two chains, for the
// groups of columns from j0 to j1 (cols: the rhs block's width; the last
// group may be partial). chains: row i's group from column j at
// i * rs + 2 j, its 32 downward chains then its 32 upward ones.
// kWholeRows: the block is the whole row (m = 1, whose chains fit in L2),
// so each rhs row is read front to back; the rows 4 ahead are
// prefetched into L2. Otherwise the rows kAhead ahead go into L1.
// kSplitHalf: the group's last two vectors take Accumulate's split form,
// so that the FMA and FADD pipes share the work (several lhs rows, bf16
// 8 x 2048 by 2048 x 16384: 9.5 -> 12.4 G terms/s on Zen 4; one row, whose
// loop waits on memory more than on either pipe, did not gain).
template <bool kBf16, int R, bool kWholeRows, bool kSplitHalf, typename T>
HLOREF_AVX512 void Chunk(const double* x, int64_t m, int64_t k, const T* w,
                         const int64_t* rows, int64_t c, int64_t j0, int64_t j1,
                         int64_t cols, int64_t rs, bool prefetch,
                         double* chains) {
  constexpr int64_t kAhead = kWholeRows ? 4 : 16;  // rows prefetched ahead
  // The rows' pointers, and those prefetched (the row itself when none).
  const T* row[R];
  const char* ahead[R];
  for (int t = 0; t < R; ++t) {
    row[t] = w + rows[c + t];
    ahead[t] = reinterpret_cast<const char*>(
        prefetch && c + t + kAhead < k ? w + rows[c + t + kAhead] : row[t]);
  }
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
  for (int64_t j = j0; j < j1; j += kGroup) {
    __m512d d[R][4];
#pragma GCC unroll 4
    for (int t = 0; t < R; ++t) {
      Prefetch<kWholeRows>(ahead[t] + j * sizeof(T));
      if constexpr (kLine < kGroup) {
        Prefetch<kWholeRows>(ahead[t] + (j + kLine) * sizeof(T));
      }
      LoadGroup<kBf16>(row[t] + j, cols - j, d[t]);
    }
    for (int64_t i = 0; i < m; ++i) {
      double* dp = chains + i * rs + 2 * j;
      double* up_p = dp + kGroup;
      __m512d l0 = _mm512_load_pd(dp), l1 = _mm512_load_pd(dp + 8);
      __m512d l2 = _mm512_load_pd(dp + 16), l3 = _mm512_load_pd(dp + 24);
      __m512d h0 = _mm512_load_pd(up_p), h1 = _mm512_load_pd(up_p + 8);
      __m512d h2 = _mm512_load_pd(up_p + 16), h3 = _mm512_load_pd(up_p + 24);
      const double* xi = x + i * k + c;
#pragma GCC unroll 4
      for (int t = 0; t < R; ++t) {
        const __m512d xv = _mm512_set1_pd(xi[t]);
        Accumulate<false>(xv, d[t][0], l0, h0);
        Accumulate<false>(xv, d[t][1], l1, h1);
        Accumulate<kSplitHalf>(xv, d[t][2], l2, h2);
        Accumulate<kSplitHalf>(xv, d[t][3], l3, h3);
      }
      _mm512_store_pd(dp, l0);
      _mm512_store_pd(dp + 8, l1);
      _mm512_store_pd(dp + 16, l2);
      _mm512_store_pd(dp + 24, l3);
      _mm512_store_pd(up_p, h0);
      _mm512_store_pd(up_p + 8, h1);
      _mm512_store_pd(up_p + 16, h2);
      _mm512_store_pd(up_p + 24, h3);
    }
  }
}

// The MXCSR of the one-chain passes (OneChainChunk): rounding toward
// +inf, every exception masked, the flags clear, flush-to-zero and
// denormals-are-zero as the caller had them; the caller's value restored
// on destruction. Read and written through volatile asm with a memory
// clobber, so the compiler moves no load or store (and so no FMA, whose
// operands are loaded and whose results are stored) across either.
class UpwardMxcsr {
 public:
  UpwardMxcsr() : saved_(Read()) {
    Write((saved_ & ~(kRounding | kFlags)) | kRoundUp | kMasks);
  }
  ~UpwardMxcsr() { Write(saved_); }
  UpwardMxcsr(const UpwardMxcsr&) = delete;
  UpwardMxcsr& operator=(const UpwardMxcsr&) = delete;

  // Whether an operation rounded since the last ClearInexact.
  static bool Inexact() { return (Read() & kInexact) != 0; }
  static void ClearInexact() { Write(Read() & ~kInexact); }

 private:
  static constexpr unsigned kFlags = 0x3f;       // IE DE ZE OE UE PE
  static constexpr unsigned kInexact = 0x20;     // PE
  static constexpr unsigned kMasks = 0x1f80;     // IM .. PM
  static constexpr unsigned kRounding = 0x6000;  // RC
  static constexpr unsigned kRoundUp = 0x4000;   // RC = 10
  static unsigned Read() {
    unsigned v;
    asm volatile("stmxcsr %0" : "=m"(v) : : "memory");
    return v;
  }
  static void Write(unsigned v) {
    asm volatile("ldmxcsr %0" : : "m"(v) : "memory");
  }
  unsigned saved_;
};

// One group of OneChainChunk: columns [j, j + 32) of rows row[t] (`valid`
// of them read) into the M lhs rows' chains (row i's from sp + i rs to
// dp + i rs), the rows `ahead` bytes further prefetched. kFull: all 32
// columns (a constant, so no masks). Each rhs row is converted once and
// added to every lhs row's chains before the next is loaded: 4 M
// accumulators and four codes in registers (M = 4: 20 of the 32).
template <bool kBf16, int M, int R, bool kFull, typename T>
HLOREF_AVX512 __attribute__((always_inline)) inline void OneChainGroup(
    const __m512d (&xv)[M][R], const T* const (&row)[R], int64_t ahead,
    int64_t j, int64_t valid, int64_t rs, const double* sp, double* dp) {
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
  __m512d s[M][4];
  // Four statements per row, not a loop over v: GCC 12 then keeps s in
  // registers (with an inner loop it copied the chains to the stack per
  // group and added from there).
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
    const double* si = sp + i * rs;
    s[i][0] = _mm512_load_pd(si);
    s[i][1] = _mm512_load_pd(si + 8);
    s[i][2] = _mm512_load_pd(si + 16);
    s[i][3] = _mm512_load_pd(si + 24);
  }
#pragma GCC unroll 8
  for (int t = 0; t < R; ++t) {
    const char* next = reinterpret_cast<const char*>(row[t] + j) + ahead;
    Prefetch<true>(next);
    if constexpr (kLine < kGroup) Prefetch<true>(next + 64);
    __m512d d[4];
    LoadGroup<kBf16>(row[t] + j, kFull ? kGroup : valid, d);
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) {
      s[i][0] = _mm512_fmadd_pd(xv[i][t], d[0], s[i][0]);
      s[i][1] = _mm512_fmadd_pd(xv[i][t], d[1], s[i][1]);
      s[i][2] = _mm512_fmadd_pd(xv[i][t], d[2], s[i][2]);
      s[i][3] = _mm512_fmadd_pd(xv[i][t], d[3], s[i][3]);
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
    double* di = dp + i * rs;
    _mm512_store_pd(di, s[i][0]);
    _mm512_store_pd(di + 8, s[i][1]);
    _mm512_store_pd(di + 16, s[i][2]);
    _mm512_store_pd(di + 24, s[i][3]);
  }
}

// M lhs rows, rows [c, c + R) of the rhs, groups from j0 to j1, as one
// chain per column and lhs row: plain FMAs, rounded as the MXCSR says
// (UpwardMxcsr: toward +inf), read from each group's slot `src` (0: the
// downward chains' place, kGroup: the upward ones') and written to the
// other. While no step rounds (the MXCSR's inexact flag stays clear) this
// chain is the exact partial sum, which both directed chains would also
// hold: the upward chain bit for bit, the downward one but for the sign
// of a zero, which rounding down makes -0 (SplitChains). Each row
// converted and added before the next is loaded, so R = 8 rows share one
// load and store of the chains; the rows `ahead` bytes further (R rows
// on, rows evenly spaced: RunFewRows) prefetched into L2. bf16 1 x 2048
// by 2048 x 16384 in a standalone loop: 6.6-7.1 (four rows, all converted
// first) -> 9.1-9.7 G terms/s.
template <bool kBf16, int M, int R, typename T>
HLOREF_AVX512 void OneChainChunk(const double* x, int64_t k, const T* w,
                                 const int64_t* rows, int64_t ahead, int64_t c,
                                 int64_t j0, int64_t j1, int64_t cols,
                                 int64_t rs, int src, double* chains) {
  const T* row[R];
  // The lhs values, broadcast once (the stores to the chains would
  // otherwise reload them per group); for M > 1 most stay on the stack,
  // one load per FMA.
  __m512d xv[M][R];
  for (int t = 0; t < R; ++t) row[t] = w + rows[c + t];
  for (int i = 0; i < M; ++i) {
    for (int t = 0; t < R; ++t) xv[i][t] = _mm512_set1_pd(x[i * k + c + t]);
  }
  const int64_t full_end = std::min(j1, cols / kGroup * kGroup);
  int64_t j = j0;
  for (; j < full_end; j += kGroup) {
    OneChainGroup<kBf16, M, R, true>(xv, row, ahead, j, kGroup, rs,
                                     chains + 2 * j + src,
                                     chains + 2 * j + (kGroup - src));
  }
  for (; j < j1; j += kGroup) {
    OneChainGroup<kBf16, M, R, false>(xv, row, ahead, j, cols - j, rs,
                                      chains + 2 * j + src,
                                      chains + 2 * j + (kGroup - src));
  }
}

// The groups from j0 to j1 of m lhs rows from one exact chain in slot
// `src` to the two directed chains in their places: the upward one is the
// exact sum, the downward one too but a zero is -0 (the downward chain
// starts at -0, and rounding down gives -0 for every zero sum of a
// nonzero partial sum and a term, and for -0 + +0): src + (-0) rounded
// down.
HLOREF_AVX512 void SplitChains(double* chains, int64_t m, int64_t rs,
                               int64_t j0, int64_t j1, int src) {
  const __m512d neg_zero = _mm512_set1_pd(-0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = j0; j < j1; j += kGroup) {
      double* g = chains + i * rs + 2 * j;
      for (int v = 0; v < 4; ++v) {
        const __m512d e = _mm512_load_pd(g + src + 8 * v);
        _mm512_store_pd(g + kGroup + 8 * v, e);
        _mm512_store_pd(g + 8 * v, _mm512_add_round_pd(e, neg_zero, kDown));
      }
    }
  }
}

// Columns per check of the inexact flag in RunFewRows.
constexpr int64_t kSegment = 1024;
// The most lhs rows RunFewRows takes (its accumulators: 4 M registers).
constexpr int64_t kMaxFewRows = 4;

// M lhs rows (1 to kMaxFewRows), one chain per column and row while that
// is exact. The columns are split into spans whose chains fit in L2
// (kL2ChainBytes: whole rows for M = 1 up to 32768 columns, spans of
// 8192 columns for M = 4), each span read over all k rows, front to back
// per row; each segment of kSegment columns runs OneChainChunk per chunk
// of rows, and the first chunk whose steps round (the MXCSR's inexact
// flag, for all M rows at once) is redone from the chunk's start as the
// two directed chains (Chunk), which the segment keeps from then on. Sums
// of bf16 products are often exact in double (products of 16 bits, 53 in
// the sum): those columns cost one FMA per term instead of two. The
// results are the two chains' bits either way (SplitChains): bf16 1 x
// 2048 by 2048 x 16384, random values, 6.7 -> 9.6-10.1 G terms/s on Zen 4
// with OneChainChunk's loop and DecideEnclosures; with 2 and 4 rows
// (dot_benchmark's BM_DotSkinnyBf16, k = 2048, n = 16384) 9.2-9.6 ->
// 11.7-12.8 and 11.1-11.9 -> 17.0-17.2 (docs/oracle-performance.md).
template <bool kBf16, int M, typename T>
void RunFewRows(const double* x, int64_t k, const T* w, const int64_t* rows,
                int64_t cols, int64_t cg, int64_t rs, double* chains) {
  const int64_t segments = (cg + kSegment - 1) / kSegment;
  const int64_t span = std::max<int64_t>(
      kSegment, kL2ChainBytes / (16 * M) / kSegment * kSegment);
  thread_local std::vector<char> dual;
  dual.assign(static_cast<size_t>(segments), 0);
  // Rows evenly spaced (a row-major rhs): each is prefetched R rows ahead;
  // otherwise (and near the end) the prefetches fall on the rows read.
  bool even = true;
  for (int64_t c = 2; c < k && even; ++c) {
    even = rows[c] - rows[c - 1] == rows[1] - rows[0];
  }
  const int64_t step =
      k > 1 ? (rows[1] - rows[0]) * static_cast<int64_t>(sizeof(T)) : 0;
  UpwardMxcsr mxcsr;
  for (int64_t b0 = 0; b0 < cg; b0 += span) {
    const int64_t b1 = std::min(cg, b0 + span);
    int src = 0;
    // Rows [c, c + R) (R = 16, 8 or 1) over the span's segments; the two
    // chains take them four rows, or one, at a time.
    auto chunk = [&](auto rows_per_chunk, int64_t c) {
      constexpr int R = decltype(rows_per_chunk)::value;
      for (int64_t j0 = b0; j0 < b1; j0 += kSegment) {
        const int64_t s = j0 / kSegment, j1 = std::min(b1, j0 + kSegment);
        if (!dual[s]) {
          const int64_t ahead = even && c + 2 * R <= k ? R * step : 0;
          OneChainChunk<kBf16, M, R>(x, k, w, rows, ahead, c, j0, j1, cols, rs,
                                     src, chains);
          if (!UpwardMxcsr::Inexact()) continue;
          SplitChains(chains, M, rs, j0, j1, src);
          UpwardMxcsr::ClearInexact();
          dual[s] = 1;
        }
        constexpr int kDualRows = R >= 4 ? 4 : 1;
        for (int t = 0; t < R; t += kDualRows) {
          Chunk<kBf16, kDualRows, true, (M > 1)>(x, M, k, w, rows, c + t, j0,
                                                 j1, cols, rs, true, chains);
        }
      }
      src = static_cast<int>(kGroup) - src;
    };
    int64_t c = 0;
    if (M == 4 && cg <= 2048) {
      // Four rows over a block of at most 2048 columns (the groups of more
      // rows): sixteen rhs rows per load and store of the chains. bf16
      // 512^3: 14.6-15.8 -> 16.6-17.1 G terms/s, 16 x 2048 by 2048 x
      // 16384: 17.5-19.2 -> 19.5-20.1; four rows over spans of 8192
      // columns lost 5 % with it, two rows a quarter.
      for (; c + 16 <= k; c += 16) {
        chunk(std::integral_constant<int, 16>{}, c);
      }
    }
    for (; c + 8 <= k; c += 8) chunk(std::integral_constant<int, 8>{}, c);
    for (; c < k; ++c) chunk(std::integral_constant<int, 1>{}, c);
    for (int64_t j0 = b0; j0 < b1; j0 += kSegment) {
      if (!dual[j0 / kSegment]) {
        SplitChains(chains, M, rs, j0, std::min(b1, j0 + kSegment), src);
      }
    }
  }
}

// The most scratch either kernel takes per thread (64 MiB of doubles);
// above it, or when the allocation fails, it declines.
constexpr int64_t kMaxScratch = int64_t{1} << 23;

// 64-byte aligned scratch that grows and is kept per thread; nullptr when
// n is above kMaxScratch or the allocation fails.
struct Scratch {
  double* data = nullptr;
  size_t size = 0;
  ~Scratch() { std::free(data); }
  double* Get(int64_t n) {
    if (n > kMaxScratch) return nullptr;
    if (static_cast<size_t>(n) > size) {
      std::free(data);
      size = 0;
      const size_t bytes =
          (static_cast<size_t>(n) * sizeof(double) + 63) / 64 * 64;
      data = static_cast<double*>(std::aligned_alloc(64, bytes));
      if (data == nullptr) return nullptr;
      size = static_cast<size_t>(n);
    }
    return data;
  }
};

// All k rows of the rhs into the chains (blocks of columns, or whole rows
// for one lhs row; see EnclosureImpl).
template <bool kBf16, typename T>
void RunChunks(const double* x, int64_t m, int64_t k, const T* w,
               const int64_t* rows, int64_t cols, int64_t cg, int64_t rs,
               double* chains) {
  if (OneChainEnabled()) {
    // Groups of up to kMaxFewRows lhs rows, each a pass over the rhs
    // block.
    for (int64_t i = 0; i < m; i += kMaxFewRows) {
      const double* xi = x + i * k;
      double* ci = chains + i * rs;
      switch (std::min(m - i, kMaxFewRows)) {
        case 1:
          RunFewRows<kBf16, 1>(xi, k, w, rows, cols, cg, rs, ci);
          break;
        case 2:
          RunFewRows<kBf16, 2>(xi, k, w, rows, cols, cg, rs, ci);
          break;
        case 3:
          RunFewRows<kBf16, 3>(xi, k, w, rows, cols, cg, rs, ci);
          break;
        default:
          RunFewRows<kBf16, 4>(xi, k, w, rows, cols, cg, rs, ci);
      }
    }
    return;
  }
  if (m == 1 && 16 * cg <= kL2ChainBytes) {
    int64_t c = 0;
    for (; c + 4 <= k; c += 4) {
      Chunk<kBf16, 4, true, false>(x, m, k, w, rows, c, 0, cg, cols, rs, true,
                                   chains);
    }
    for (; c < k; ++c) {
      Chunk<kBf16, 1, true, false>(x, m, k, w, rows, c, 0, cg, cols, rs, true,
                                   chains);
    }
  } else {
    const int64_t block = std::min<int64_t>(
        cg, std::max<int64_t>(kMinBlock, kL1ChainBytes / (16 * m)) / kGroup *
                kGroup);
    const bool prefetch =
        block < cg || cols * static_cast<int64_t>(sizeof(T)) <= 4096;
    for (int64_t j0 = 0; j0 < cg; j0 += block) {
      const int64_t j1 = std::min(cg, j0 + block);
      int64_t c = 0;
      for (; c + 4 <= k; c += 4) {
        Chunk<kBf16, 4, false, true>(x, m, k, w, rows, c, j0, j1, cols, rs,
                                     prefetch, chains);
      }
      for (; c < k; ++c) {
        Chunk<kBf16, 1, false, true>(x, m, k, w, rows, c, j0, j1, cols, rs,
                                     prefetch, chains);
      }
    }
  }
}

template <bool kBf16, typename T>
bool EnclosureImpl(const double* x, int64_t m, int64_t k, const T* w,
                   const int64_t* rows, int64_t cols, double* lo, double* hi) {
  if (disabled_for_testing.load(std::memory_order_relaxed) || !HasAvx512() ||
      m < 1 || k < 1 || cols < 1) {
    return false;
  }
  const int64_t cg = (cols + kGroup - 1) / kGroup * kGroup;
  thread_local Scratch store;
  // Rows of chains 512 bytes more than a multiple of 4 KiB apart, so that
  // the next lhs row's loads do not wait on this row's stores to the same
  // address modulo 4 KiB (4K aliasing: with 8 KiB rows, m = 8 spent 43 %
  // of its samples on one chain load).
  const int64_t rs = 2 * cg + 64;
  double* chains = store.Get(m * rs);
  if (chains == nullptr) return false;
  std::fill(chains, chains + m * rs, kTwoSumStart);
  // Blocks of columns whose chains stay in L1 over all k rows; every rhs
  // row is then read in pieces of a block's width, which the loop
  // prefetches kAhead rows ahead (the hardware prefetchers do not follow
  // short pieces).
  //
  // One lhs row (a vector-matrix product) whose chains fit in L2 takes
  // whole rows instead, each read front to back and prefetched a few rows
  // ahead into L2: bf16 1 x 2048 by 2048 x 16384 went from 6.06 to 6.7 G
  // terms/s (blocks of 1280 columns, pieces of rows 32 KiB apart prefetched
  // 16 rows ahead into L1, against whole rows 4 ahead into L2).
  RunChunks<kBf16>(x, m, k, w, rows, cols, cg, rs, chains);
  int column[kGroup];
  for (int p = 0; p < kGroup; ++p) column[p] = Column(kBf16, p);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j0 = 0; j0 < cg; j0 += kGroup) {
      const double* dg = chains + i * rs + 2 * j0;
      const double* ug = dg + kGroup;
      for (int p = 0; p < kGroup; ++p) {
        const int64_t j = j0 + column[p];
        if (j < cols) {
          lo[i * cols + j] = dg[p];
          hi[i * cols + j] = ug[p];
        }
      }
    }
  }
  return true;
}

// The transposed rhs ([n][k]: each output's k terms contiguous from
// w + cols_at[j]): per output, eight lanes of each chain, then the lanes
// summed in order, each addition rounded the chain's way (a lower bound
// of lower bounds is a lower bound), so the enclosure and its points are
// as above. kRows lhs rows times kCols columns per pass: each group of 32
// codes is converted once for all rows, each 32 lhs values loaded once for
// all columns. xp: the lhs rows (kp values each, kp = k rounded up to 32)
// in LoadGroup's order of positions, -0 past k; past k the codes read as
// +0, so the padding products are -0, which change no chain (nor the sign
// of a zero one).
template <bool kBf16, int kRows, int kCols, typename T>
HLOREF_AVX512 void TransposedPass(const double* xp, int64_t kp, int64_t k,
                                  const T* w, const int64_t* cols_at, int64_t j,
                                  int ncols, double* lo, double* hi,
                                  int64_t cols) {
  __m512d l[kRows][kCols], h[kRows][kCols];
  const __m512d start = _mm512_set1_pd(kTwoSumStart);
  for (int r = 0; r < kRows; ++r) {
    for (int q = 0; q < kCols; ++q) l[r][q] = h[r][q] = start;
  }
  const T* col[kCols];
  for (int q = 0; q < kCols; ++q)
    col[q] = w + cols_at[j + std::min(q, ncols - 1)];
  // The next pass's columns, prefetched into L2 a whole pass ahead: each
  // column is its own short stream (4 KiB for k = 2048 bf16, a page),
  // which the hardware prefetchers do not run ahead of.
  const char* next[kCols];
  for (int q = 0; q < kCols; ++q) {
    const int64_t nj = std::min(j + kCols + q, cols - 1);
    next[q] = reinterpret_cast<const char*>(w + cols_at[nj]);
  }
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
  for (int64_t c = 0; c < kp; c += kGroup) {
    const int64_t valid = std::min<int64_t>(kGroup, k - c);
    __m512d d[kCols][4];
#pragma GCC unroll 4
    for (int q = 0; q < kCols; ++q) {
      Prefetch<true>(next[q] + c * sizeof(T));
      if constexpr (kLine < kGroup) {
        Prefetch<true>(next[q] + (c + kLine) * sizeof(T));
      }
      LoadGroup<kBf16>(col[q] + c, valid, d[q]);
    }
#pragma GCC unroll 2
    for (int r = 0; r < kRows; ++r) {
      const double* xr = xp + r * kp + c;
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        const __m512d xv = _mm512_load_pd(xr + 8 * v);
#pragma GCC unroll 4
        for (int q = 0; q < kCols; ++q) {
          Accumulate<false>(xv, d[q][v], l[r][q], h[r][q]);
        }
      }
    }
  }
  for (int r = 0; r < kRows; ++r) {
    for (int q = 0; q < ncols; ++q) {
      alignas(64) double ld[8], hd[8];
      _mm512_store_pd(ld, l[r][q]);
      _mm512_store_pd(hd, h[r][q]);
      __m128d sl = _mm_set_sd(ld[0]), sh = _mm_set_sd(hd[0]);
      for (int lane = 1; lane < 8; ++lane) {
        sl = _mm_add_round_sd(sl, _mm_set_sd(ld[lane]), kDown);
        sh = _mm_add_round_sd(sh, _mm_set_sd(hd[lane]), kUp);
      }
      lo[r * cols + j + q] = _mm_cvtsd_f64(sl);
      hi[r * cols + j + q] = _mm_cvtsd_f64(sh);
    }
  }
}

// One group of 32 terms of OneChainTransposedPass: each column's codes
// converted once and added to every row's chain (`valid` terms; kFull:
// 32, a constant, so no masks). One row keeps its 32 lhs values in
// registers; more rows read theirs from L1 per FMA.
template <bool kBf16, int kRows, int kCols, bool kFull, typename T>
HLOREF_AVX512 __attribute__((always_inline)) inline void
OneChainTransposedGroup(const double* xp, int64_t kp,
                        const T* const (&col)[kCols],
                        const char* const (&next)[kCols], int64_t c,
                        int64_t valid, __m512d (&acc)[kRows][kCols]) {
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
#pragma GCC unroll 8
  for (int q = 0; q < kCols; ++q) {
    Prefetch<true>(next[q] + c * sizeof(T));
    if constexpr (kLine < kGroup) {
      Prefetch<true>(next[q] + (c + kLine) * sizeof(T));
    }
    __m512d d[4];
    LoadGroup<kBf16>(col[q] + c, kFull ? kGroup : valid, d);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const double* xr = xp + r * kp + c;
      acc[r][q] = _mm512_fmadd_pd(_mm512_load_pd(xr), d[0], acc[r][q]);
      acc[r][q] = _mm512_fmadd_pd(_mm512_load_pd(xr + 8), d[1], acc[r][q]);
      acc[r][q] = _mm512_fmadd_pd(_mm512_load_pd(xr + 16), d[2], acc[r][q]);
      acc[r][q] = _mm512_fmadd_pd(_mm512_load_pd(xr + 24), d[3], acc[r][q]);
    }
  }
}

// kRows lhs rows times kCols transposed columns as one chain per output
// (the MXCSR rounding upward; OneChainTransposedRows checks its inexact
// flag):
// eight lanes per output, then the lanes' sum. While no step rounds every
// partial sum is exact, so the order is free: the upward chains' bits (a
// zero is -0 only when every term is -0, in any order of upward additions
// from -0) and the downward ones' (a zero is -0), as the two-chain pass
// gives them. Each column converted and added to every row before the
// next is loaded.
template <bool kBf16, int kRows, int kCols, typename T>
HLOREF_AVX512 void OneChainTransposedPass(const double* xp, int64_t kp,
                                          int64_t k, const T* w,
                                          const int64_t* cols_at, int64_t j,
                                          int ncols, double* lo, double* hi,
                                          int64_t cols) {
  __m512d acc[kRows][kCols];
  for (int r = 0; r < kRows; ++r) {
    for (int q = 0; q < kCols; ++q) acc[r][q] = _mm512_set1_pd(kTwoSumStart);
  }
  const T* col[kCols];
  const char* next[kCols];
  for (int q = 0; q < kCols; ++q) {
    col[q] = w + cols_at[j + std::min(q, ncols - 1)];
    const int64_t nj = std::min(j + kCols + q, cols - 1);
    next[q] = reinterpret_cast<const char*>(w + cols_at[nj]);
  }
  int64_t c = 0;
  for (; c + kGroup <= k; c += kGroup) {
    OneChainTransposedGroup<kBf16, kRows, kCols, true>(xp, kp, col, next, c,
                                                       kGroup, acc);
  }
  if (c < k) {
    OneChainTransposedGroup<kBf16, kRows, kCols, false>(xp, kp, col, next, c,
                                                        k - c, acc);
  }
  for (int r = 0; r < kRows; ++r) {
    for (int q = 0; q < ncols; ++q) {
      alignas(64) double hd[8];
      _mm512_store_pd(hd, acc[r][q]);
      __m128d sh = _mm_set_sd(hd[0]);
      for (int lane = 1; lane < 8; ++lane) {
        sh = _mm_add_sd(sh, _mm_set_sd(hd[lane]));
      }
      lo[r * cols + j + q] =
          _mm_cvtsd_f64(_mm_add_round_sd(sh, _mm_set_sd(-0.0), kDown));
      hi[r * cols + j + q] = _mm_cvtsd_f64(sh);
    }
  }
}

// Rows [i, i + kRows) of TransposedImpl as one chain per output: each pass
// of kCols columns first as OneChainTransposedPass (the MXCSR rounding
// upward), redone as the two directed chains when a step rounded (the
// inexact flag, for all kRows rows), as RunFewRows. After a redo the next
// passes go straight to the two chains, 1, 2, 4 ... 64 of them while
// redos repeat (sums of f32 weights, or of bf16 ones over a wide range of
// scales, round), so such data pays at most a few percent for the
// attempts.
template <bool kBf16, int kRows, int kCols, typename T>
void OneChainTransposedRows(const double* xp, int64_t kp, int64_t k, const T* w,
                            const int64_t* cols_at, int64_t cols, double* lo,
                            double* hi) {
  UpwardMxcsr mxcsr;
  int64_t skip = 0, backoff = 1;
  for (int64_t j = 0; j < cols; j += kCols) {
    const int64_t width = std::min<int64_t>(kCols, cols - j);
    if (skip == 0) {
      OneChainTransposedPass<kBf16, kRows, kCols>(
          xp, kp, k, w, cols_at, j, static_cast<int>(width), lo, hi, cols);
      if (!UpwardMxcsr::Inexact()) {
        backoff = 1;
        continue;
      }
      UpwardMxcsr::ClearInexact();
      skip = backoff;
      backoff = std::min<int64_t>(2 * backoff, 64);
    } else {
      --skip;
    }
    // The two chains: rows in pairs, two columns per pass (one row: four).
    for (int r = 0; r < kRows; r += 2) {
      for (int64_t jj = j; jj < j + width; jj += kRows == 1 ? 4 : 2) {
        const int64_t rest = cols - jj;
        if constexpr (kRows == 1) {
          TransposedPass<kBf16, 1, 4>(
              xp, kp, k, w, cols_at, jj,
              static_cast<int>(std::min<int64_t>(4, rest)), lo, hi, cols);
        } else {
          TransposedPass<kBf16, 2, 2>(
              xp + r * kp, kp, k, w, cols_at, jj,
              static_cast<int>(std::min<int64_t>(2, rest)), lo + r * cols,
              hi + r * cols, cols);
        }
      }
    }
  }
}

template <bool kBf16, typename T>
HLOREF_AVX512 bool TransposedImpl(const double* x, int64_t m, int64_t k,
                                  const T* w, const int64_t* cols_at,
                                  int64_t cols, double* lo, double* hi) {
  const int64_t kp = (k + kGroup - 1) / kGroup * kGroup;
  thread_local Scratch store;
  double* xp = store.Get(m * kp);
  if (xp == nullptr) return false;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t c = 0; c < kp; c += kGroup) {
      for (int p = 0; p < kGroup; ++p) {
        const int64_t term = c + Column(kBf16, p);
        xp[i * kp + c + p] = term < k ? x[i * k + term] : -0.0;
      }
    }
  }
  int64_t i = 0;
  if (OneChainEnabled()) {
    // Four rows per pass over the rhs (their 16 chains per column in
    // registers), then two, then one.
    for (; i + 4 <= m; i += 4) {
      OneChainTransposedRows<kBf16, 4, 4>(xp + i * kp, kp, k, w, cols_at, cols,
                                          lo + i * cols, hi + i * cols);
    }
    if (i + 2 <= m) {
      OneChainTransposedRows<kBf16, 2, 8>(xp + i * kp, kp, k, w, cols_at, cols,
                                          lo + i * cols, hi + i * cols);
      i += 2;
    }
    if (i < m) {
      OneChainTransposedRows<kBf16, 1, 8>(xp + i * kp, kp, k, w, cols_at, cols,
                                          lo + i * cols, hi + i * cols);
    }
    return true;
  }
  for (; i + 2 <= m; i += 2) {
    for (int64_t j = 0; j < cols; j += 2) {
      TransposedPass<kBf16, 2, 2>(
          xp + i * kp, kp, k, w, cols_at, j,
          static_cast<int>(std::min<int64_t>(2, cols - j)), lo + i * cols,
          hi + i * cols, cols);
    }
  }
  for (; i < m; ++i) {
    for (int64_t j = 0; j < cols; j += 4) {
      TransposedPass<kBf16, 1, 4>(
          xp + i * kp, kp, k, w, cols_at, j,
          static_cast<int>(std::min<int64_t>(4, cols - j)), lo + i * cols,
          hi + i * cols, cols);
    }
  }
  return true;
}

bool TransposedAllowed(int64_t m, int64_t k, int64_t cols) {
  return !disabled_for_testing.load(std::memory_order_relaxed) && HasAvx512() &&
         m >= 1 && k >= 1 && cols >= 1;
}

}  // namespace

// Declared in fast_round.h.
bool StreamEnclosureAvx512Bf16(const double* x, int64_t m, int64_t k,
                               const uint16_t* w, const int64_t* rows,
                               int64_t cols, double* lo, double* hi) {
  return EnclosureImpl<true>(x, m, k, w, rows, cols, lo, hi);
}

bool StreamEnclosureAvx512F32(const double* x, int64_t m, int64_t k,
                              const float* w, const int64_t* rows, int64_t cols,
                              double* lo, double* hi) {
  return EnclosureImpl<false>(x, m, k, w, rows, cols, lo, hi);
}

bool TransposedEnclosureAvx512Bf16(const double* x, int64_t m, int64_t k,
                                   const uint16_t* w, const int64_t* cols_at,
                                   int64_t cols, double* lo, double* hi) {
  return TransposedAllowed(m, k, cols) &&
         TransposedImpl<true>(x, m, k, w, cols_at, cols, lo, hi);
}

bool TransposedEnclosureAvx512F32(const double* x, int64_t m, int64_t k,
                                  const float* w, const int64_t* cols_at,
                                  int64_t cols, double* lo, double* hi) {
  return TransposedAllowed(m, k, cols) &&
         TransposedImpl<false>(x, m, k, w, cols_at, cols, lo, hi);
}

bool StreamEnclosureAvx512Available() { return HasAvx512(); }

namespace {

// Eight outputs of DecideEnclosures for f32 results: r = the double of
// (float)lo; decided when both ends are finite, lo <= hi, (float)hi is r
// too (or lo == hi), and r is neither zero nor past f32's largest finite
// value; an exact zero (lo == hi == 0) is hi.
HLOREF_AVX512 void DecideF32Avx512(const double* lo, const double* hi,
                                   int64_t n, double* out) {
  const __m512d nan = _mm512_set1_pd(std::numeric_limits<double>::quiet_NaN());
  const __m512d zero = _mm512_setzero_pd();
  const __m512d max_finite = _mm512_set1_pd(0x1.fffffep127);
  const __m512d inf = _mm512_set1_pd(std::numeric_limits<double>::infinity());
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m512d l = _mm512_loadu_pd(lo + j), h = _mm512_loadu_pd(hi + j);
    const __m512d rl = _mm512_cvtps_pd(_mm512_cvtpd_ps(l));
    const __m512d rh = _mm512_cvtps_pd(_mm512_cvtpd_ps(h));
    const __m512d al = _mm512_abs_pd(l), ah = _mm512_abs_pd(h);
    __mmask8 ok = _mm512_cmp_pd_mask(al, inf, _CMP_LT_OQ) &
                  _mm512_cmp_pd_mask(ah, inf, _CMP_LT_OQ) &
                  _mm512_cmp_pd_mask(l, h, _CMP_LE_OQ) &
                  _mm512_cmp_pd_mask(rl, rh, _CMP_EQ_OQ) &
                  _mm512_cmp_pd_mask(rl, zero, _CMP_NEQ_OQ) &
                  _mm512_cmp_pd_mask(_mm512_abs_pd(rl), max_finite, _CMP_LE_OQ);
    const __mmask8 exact_zero = _mm512_cmp_pd_mask(l, zero, _CMP_EQ_OQ) &
                                _mm512_cmp_pd_mask(h, zero, _CMP_EQ_OQ);
    __m512d r = _mm512_mask_mov_pd(nan, ok, rl);
    r = _mm512_mask_mov_pd(r, exact_zero, h);
    _mm512_storeu_pd(out + j, r);
  }
  constexpr FastRounding kF32{24, -126, 0x1.fffffep127};
  for (; j < n; ++j) out[j] = DecideEnclosure(lo[j], hi[j], kF32);
}

}  // namespace

void DecideEnclosures(const double* lo, const double* hi, int64_t n,
                      const FastRounding& f, double* out) {
  // Round to nearest (RC = 00), no FTZ (bit 15) or DAZ (bit 6).
  const bool f32 =
      f.precision == 24 && f.emin == -126 && f.max_finite == 0x1.fffffep127;
  if (f32 && HasAvx512() && (__builtin_ia32_stmxcsr() & 0xe040) == 0) {
    DecideF32Avx512(lo, hi, n, out);
    return;
  }
  for (int64_t j = 0; j < n; ++j) out[j] = DecideEnclosure(lo[j], hi[j], f);
}

void SetStreamEnclosureAvx512DisabledForTesting(bool disabled) {
  disabled_for_testing.store(disabled, std::memory_order_relaxed);
}

void SetStreamOneChainDisabledForTesting(bool disabled) {
  one_chain_disabled_for_testing.store(disabled, std::memory_order_relaxed);
}

}  // namespace hloref
