// Verified rounding of a sum computed with error-free transformations
// (dot.cc and reduce.cc): the correctly rounded value when a proven error
// bound decides it, NaN when the caller must use the exact accumulator
// (ExactSum). See dot.cc for the bound.
#ifndef HLOREF_INTERPRETER_OPS_FAST_ROUND_H_
#define HLOREF_INTERPRETER_OPS_FAST_ROUND_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace hloref {

// The initial partial sum of a two-sum chain (see VerifiedRound).
constexpr double kTwoSumStart = -0.0;

struct FastRounding {
  int precision;
  int emin;
  double max_finite;
};

// RN to `precision` bits with minimum exponent emin, for finite double x
// (round-to-nearest-even: the oracle forces the default rounding mode):
// the nearest multiple of the quantum 2^q, q = max(ilogb x, emin) -
// precision + 1, ties to an even multiple.
inline double RoundToFormatSlow(double x, int precision, int emin) {
  const int e = std::ilogb(x);
  const int q = std::max(e, emin) - precision + 1;
  return std::ldexp(std::nearbyint(std::ldexp(x, -q)), q);
}

// The same value on the encoding: drop the fraction bits below the
// quantum and round to nearest even on the integer significand (a carry
// out of the fraction increments the exponent, as it must; past the
// largest double it gives inf, as ldexp does). Zeros, double subnormals,
// inf, NaN and quanta at or above the implicit bit take RoundToFormatSlow.
// dot_test RoundToFormat checks both agree.
inline double RoundToFormat(double x, int precision, int emin) {
  uint64_t u;
  __builtin_memcpy(&u, &x, 8);
  const uint64_t sign = u & 0x8000000000000000ull;
  uint64_t mag = u & 0x7fffffffffffffffull;
  const int biased = static_cast<int>(mag >> 52);
  const int e = biased - 1023;
  const int shift = 53 - precision + (e < emin ? emin - e : 0);
  if (biased == 0 || biased == 2047 || shift > 51 || shift < 1) {
    return RoundToFormatSlow(x, precision, emin);
  }
  const uint64_t unit = uint64_t{1} << shift;
  const uint64_t rest = mag & (unit - 1);
  const uint64_t half = unit >> 1;
  mag -= rest;
  if (rest > half || (rest == half && (mag & unit) != 0)) mag += unit;
  u = sign | mag;
  double r;
  __builtin_memcpy(&r, &u, 8);
  return r;
}
inline double RoundToFormat(double x, const FastRounding& f) {
  return RoundToFormat(x, f.precision, f.emin);
}

// Whether every real within `radius` of x rounds to r = RN_T(x) (a
// non-zero finite value of the format; x a normal double, radius >= 0):
// [x - radius, x + radius] lies inside r's rounding cell, the open
// interval between the midpoints to r's neighbours, so none of it is a
// tie. In magnitude the cell is (|r| - below, |r| + half) with half = q / 2
// for r's quantum q (its binade's, at least the format's minimum
// exponent's), below = q / 4 when |r| is a power of two above the smallest
// normal (the binade below has half the spacing), else q / 2; past the
// largest finite value the upper midpoint is where RN overflows, so the
// same holds there. d = |x| - |r| is exact (Sterbenz: r != 0 and x rounds
// to r, so |r| / 2 <= |x| <= 2 |r|), and fl(d -+ radius) compared with the
// doubles half and -below decides as the exact values would (rounding is
// monotone). Callers used to round x -+ radius and compare (two
// roundings).
inline bool InsideRoundingCell(double x, double r, double radius, int precision,
                               int emin) {
  uint64_t bits;
  __builtin_memcpy(&bits, &r, 8);
  const int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  const int q = std::max(e, emin) - precision + 1;
  const uint64_t half_bits = static_cast<uint64_t>(q - 1 + 1023) << 52;
  double half;
  __builtin_memcpy(&half, &half_bits, 8);
  const bool power_of_two = (bits & 0x000fffffffffffffull) == 0 && e > emin;
  const double below = power_of_two ? 0.5 * half : half;
  const double d = (r > 0) ? x - r : r - x;  // |x| - |r|
  return d + radius < half && d - radius > -below;
}

// The verified value of sum (x = fl(s + c), A) over k terms, or NaN when
// the caller must use the exact accumulator.
// Callers start s at -0 (kTwoSumStart): then when every e_i is zero
// (A == 0) and s == 0 the exact sum is zero, and s is -0 exactly when
// every term was -0 (RN: -0 + -0 = -0, -0 + +0 = +0, x + -x = +0), which
// is ExactSum's sign of an exact zero.
//
// When every e_i is zero (A == 0: a sum of non-negative doubles is zero
// only when every addend is) the exact sum is s itself, and its correctly
// rounded value is RoundToFormat(s), ties included (sums of short
// products often fall exactly on a midpoint of the result type, which the
// interval test below cannot decide).
inline double VerifiedRound(double s, double c, double a, int64_t k,
                            const FastRounding& f) {
  if (a == 0 && std::isfinite(s)) {
    if (s == 0) return s;
    const double r = RoundToFormat(s, f);
    if (r == 0 || std::fabs(r) > f.max_finite) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    return r;
  }
  const double x = s + c;
  if (!std::isfinite(x) || !std::isfinite(a) || x == 0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const double err =
      2.02 * static_cast<double>(k) * 0x1p-53 * a + 0x1p-52 * std::fabs(x);
  // One rounding, then [x - 2 err, x + 2 err] must lie inside r's rounding
  // cell (InsideRoundingCell); the factor 2 is margin.
  const double r = RoundToFormat(x, f);
  if (r == 0 || !(std::fabs(r) <= f.max_finite) ||
      !InsideRoundingCell(x, r, 2 * err, f.precision, f.emin)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return r;
}

// One step of the two-sum chain: s + e = old s + x exactly; c and a
// accumulate e and |e|.
inline void TwoSumStep(double x, double& s, double& c, double& a) {
  const double sum = s + x;
  const double z = sum - s;
  const double e = (s - (sum - z)) + (x - z);
  s = sum;
  c += e;
  a += std::fabs(e);
}

// Four two-sum chains side by side in SIMD registers (GCC vector
// extensions: the same IEEE operations lane by lane as TwoSumStep; |e| by
// clearing the sign bit, as fabs does). Lane j of s, c, a is the state of
// chain j.
typedef double TwoSumV4 __attribute__((vector_size(32)));
typedef int64_t TwoSumI4 __attribute__((vector_size(32)));

struct TwoSum4 {
  TwoSumV4 s = {kTwoSumStart, kTwoSumStart, kTwoSumStart, kTwoSumStart};
  TwoSumV4 c = {0, 0, 0, 0};
  TwoSumV4 a = {0, 0, 0, 0};
};

// For t < len: chain j takes the term x[t] * b[t * stride + j] (j < 4).
// Defined in exact_sum.cc, compiled for AVX2 and for the baseline
// (target_clones, chosen at load time): the same IEEE operations either
// way (no FMA: AVX2 does not enable it and the build does not contract).
void TwoSum4Segment(TwoSum4& st, const double* x, const double* b, int64_t len,
                    int64_t stride);

// TwoSum4Segment with b in its own storage type (bf16 or f16 codes, or
// f32), converted to double in registers, exactly (bf16 -> f32 is a
// 16-bit shift, f16 -> f32 rescales the encoding, f32 -> f64 is exact): the
// terms, and so the chains, are those TwoSum4Segment gives on b converted
// to doubles. dot packs a vector-matrix product's rhs (the weights) in its
// own type for these instead of as doubles.
void TwoSum4SegmentBf16(TwoSum4& st, const double* x, const uint16_t* b,
                        int64_t len, int64_t stride);
void TwoSum4SegmentF16(TwoSum4& st, const double* x, const uint16_t* b,
                       int64_t len, int64_t stride);
void TwoSum4SegmentF32(TwoSum4& st, const double* x, const float* b,
                       int64_t len, int64_t stride);

// Two of those side by side (their latencies overlap): st0 takes
// x0[t] * b0[t * stride + j], st1 x1[t] * b1[t * stride + j], each chain
// with the same operations as alone. b0 == b1 (two lhs rows on one group
// of columns) converts once.
void TwoSum4PairSegmentBf16(TwoSum4& st0, TwoSum4& st1, const double* x0,
                            const double* x1, const uint16_t* b0,
                            const uint16_t* b1, int64_t len, int64_t stride);
void TwoSum4PairSegmentF16(TwoSum4& st0, TwoSum4& st1, const double* x0,
                           const double* x1, const uint16_t* b0,
                           const uint16_t* b1, int64_t len, int64_t stride);
void TwoSum4PairSegmentF32(TwoSum4& st0, TwoSum4& st1, const double* x0,
                           const double* x1, const float* b0, const float* b1,
                           int64_t len, int64_t stride);

// RoundToFormat and InsideRoundingCell on four lanes (GCC vector
// extensions; inlined into the callers' AVX2 and baseline clones). For
// lane j: ok_j when x_j is a non-zero normal double whose quantum shift
// is in [1, 51] (RoundToFormat's encoding form; other lanes the caller
// decides with the scalar functions), then (*out)_j = RoundToFormat(x_j)
// by the same integer operations, and the lane is decided when r_j is
// non-zero and at most max_finite and, unless exact_j, [x_j - radius_j,
// x_j + radius_j] lies in r_j's rounding cell (the same doubles half,
// below and d = |x| - |r| as InsideRoundingCell). Returns the decided
// lanes as all-ones in *decided.
// (Vectors by reference: by value they change the ABI between the
// clones, which -Wpsabi rejects.)
[[gnu::always_inline]] inline void RoundInCell4(
    const TwoSumV4& x, const TwoSumV4& radius, const TwoSumI4& exact,
    const FastRounding& f, TwoSumV4* out, TwoSumI4* decided) {
  const TwoSumI4 zero = {0, 0, 0, 0};
  const TwoSumI4 one = {1, 1, 1, 1};
  const TwoSumI4 xu = (TwoSumI4)x;
  const TwoSumI4 sign = xu & INT64_MIN;
  const TwoSumI4 mag = xu & INT64_MAX;
  const TwoSumI4 biased = mag >> 52;
  const TwoSumI4 e = biased - 1023;
  const TwoSumI4 emin = zero + f.emin;
  const TwoSumI4 below_emin = emin - e;
  const TwoSumI4 shift =
      (53 - f.precision) + (below_emin > zero ? below_emin : zero);
  const TwoSumI4 ok =
      (biased != zero) & (biased != 2047) & (shift <= 51) & (shift >= 1);
  const TwoSumI4 unit = one << (ok ? shift : one);
  const TwoSumI4 rest = mag & (unit - 1);
  const TwoSumI4 half_unit = unit >> 1;
  TwoSumI4 rm = mag - rest;
  const TwoSumI4 up =
      (rest > half_unit) | ((rest == half_unit) & ((rm & unit) != zero));
  rm += up & unit;
  *out = (TwoSumV4)(sign | rm);
  const TwoSumI4 re = (rm >> 52) - 1023;
  const TwoSumI4 q = (re > emin ? re : emin) - f.precision + 1;
  const TwoSumV4 half = (TwoSumV4)((q - 1 + 1023) << 52);
  const TwoSumI4 power_of_two =
      ((rm & 0x000fffffffffffffll) == zero) & (re > emin);
  const TwoSumV4 below = power_of_two ? 0.5 * half : half;
  const TwoSumV4 rabs = (TwoSumV4)rm;
  const TwoSumV4 d = (TwoSumV4)mag - rabs;  // |x| - |r|, exact
  const TwoSumI4 inside = (d + radius < half) & (d - radius > -below);
  const TwoSumI4 in_range = (rm != zero) & (rabs <= f.max_finite);
  *decided = ok & in_range & (exact | inside);
}

// A cheaper first try than the two-sum (issue 16): plain recursive sums
// s = fl(sum t_i) and A = fl(sum |t_i|) of exact terms t_i, in any order.
// Every term passes through at most n - 1 additions (n leaves: the terms
// and the -0 starts), so |S - s| <= gamma_{n-1} sum |t_i| and, since
// A >= (1 - gamma_{n-1}) sum |t_i| (Higham, Accuracy and Stability, 4.2;
// additions are exact when they underflow), |S - s| <= gamma_{n-1} /
// (1 - gamma_{n-1}) A <= 1.03 n u A for n u < 1%. VerifiedRound's bound
// with c = 0 and the same n, 2.02 n u A + 2u|s|, is larger, so
// VerifiedRoundPlain(s, A, n) = VerifiedRound(s, 0, A, n) is the correctly
// rounded S or NaN. Each two-sum step is about ten vector operations, this
// one four; the two-sum and then ExactSum take the outputs it cannot
// decide (ties in particular: it has no exact case).
struct Sum4 {
  // Two interleaved sets of chains (even and odd steps) so that the adds'
  // latencies overlap; lane j of all four belongs to output j.
  TwoSumV4 s0 = {kTwoSumStart, kTwoSumStart, kTwoSumStart, kTwoSumStart};
  TwoSumV4 s1 = {kTwoSumStart, kTwoSumStart, kTwoSumStart, kTwoSumStart};
  TwoSumV4 a0 = {0, 0, 0, 0};
  TwoSumV4 a1 = {0, 0, 0, 0};
};

// The leaves of a Sum4 chain over `terms` terms: the terms and the two
// starts, with one more for the merge of the two sets.
inline int64_t Sum4Leaves(int64_t terms) { return terms + 3; }

// For t < len: lane j takes the term x[t] * b[t * stride + j] (j < 4),
// into s0 / a0 for even t and s1 / a1 for odd t of this segment.
void Sum4Segment(Sum4& st, const double* x, const double* b, int64_t len,
                 int64_t stride);

// Sum4Segment over sixteen lanes (four groups of four columns side by
// side: each step reads 128 contiguous bytes of b and reuses the broadcast
// x[t]; one set of chains, the sixteen independent adds cover the
// latency): lane j takes x[t] * b[t * stride + j], j < 16, into group
// j / 4's s0 / a0 (s1 / a1 stay at their starts). The same bound as Sum4.
void Sum16Segment(Sum4 (&st)[4], const double* x, const double* b, int64_t len,
                  int64_t stride);

// Lane j's s and A (the two sets merged) for lanes [0, n).
inline void Sum4Store(const Sum4& st, int64_t n, double* s, double* a) {
  for (int64_t j = 0; j < n; ++j) {
    s[j] = st.s0[j] + st.s1[j];
    a[j] = st.a0[j] + st.a1[j];
  }
}

// The verified rounding of a Sum4 chain's s and A over `terms` terms (see
// Sum4), or NaN.
inline double VerifiedRoundPlain(double s, double a, int64_t terms,
                                 const FastRounding& f) {
  return VerifiedRound(s, 0.0, a, Sum4Leaves(terms), f);
}

// VerifiedRoundPlain of `groups` Sum4 chains over `terms` terms each, four
// lanes at a time in SIMD registers, for lanes [0, lanes) (lanes <= 4
// groups): r[j] is lane j's verified value or NaN. The same operations as
// VerifiedRound lane by lane (the encoding form of RoundToFormat, the test
// of InsideRoundingCell with the same radius), so the same values; lanes
// outside the encoding shortcut (s zero, subnormal as a double, not
// finite, a quantum outside [2, 2^51]) and lanes the vector test leaves
// undecided are handed to VerifiedRound itself. Returns a mask with bit j
// set where r[j] is NaN. Defined in exact_sum.cc (AVX2 and baseline
// clones).
uint32_t VerifiedRoundSum4(const Sum4* st, int64_t groups, int64_t lanes,
                           int64_t terms, const FastRounding& f, double* r);

// s = fl(sum x_i) and a = fl(sum |x_i|) over n consecutive elements, in
// chains that start at -0 (eight of them, then merged): with the
// reduction's init value added as one more term, VerifiedRound(s, 0, a,
// SumAndAbsSumLeaves(n)) is the correctly rounded sum or NaN (the bound of
// Sum4 above: every element passes through fewer additions than there
// are leaves).
void SumAndAbsSumF32(const float* x, int64_t n, double* s, double* a);
void SumAndAbsSumBf16(const uint16_t* x, int64_t n, double* s, double* a);
void SumAndAbsSumF64(const double* x, int64_t n, double* s, double* a);
// n elements, the init value, eight starts.
inline int64_t SumAndAbsSumLeaves(int64_t n) { return n + 9; }

// Vector-matrix products streamed over a row-major rhs (issue 16): for j
// in [0, cols), s[j] = fl(-0 + sum_c x[c] * w[rows[c] + j]) and a[j] =
// fl(sum_c |x[c] * w[rows[c] + j]|), the rhs read as its codes (bf16 or
// f32: exact as doubles), two rhs rows per step, four columns per vector,
// every row segment read contiguously (no packing). The products must be
// exact in double (the caller's kExactInDouble). Each term passes through
// fewer additions than StreamSumsLeaves(k) leaves (the -0 start and the k
// terms), so VerifiedRound(s, 0, a, StreamSumsLeaves(k)) is the correctly
// rounded sum or NaN (the bound of Sum4 above). AVX2 and baseline clones.
void StreamSumsBf16(const double* x, const uint16_t* w, const int64_t* rows,
                    int64_t k, int64_t cols, double* s, double* a);
void StreamSumsF32(const double* x, const float* w, const int64_t* rows,
                   int64_t k, int64_t cols, double* s, double* a);
inline int64_t StreamSumsLeaves(int64_t k) { return k + 1; }

// The same sums when the rhs is stored transposed (each output's k terms
// contiguous: rhs [n][k], as the logits dot with a tied embedding): for
// j in [0, cols), s[j] = fl(sum_c x[c] * w[cols_at[j] + c]) and a[j] the
// sum of magnitudes, two columns at a time, eight terms per AVX2 step in
// sixteen chains per column. VerifiedRound(s, 0, a,
// DotRowSumsLeaves(k)) is the correctly rounded sum or NaN (every term
// passes through fewer additions than the k terms and the chains' -0
// starts). AVX2 and baseline clones.
void DotRowSumsBf16(const double* x, const uint16_t* w, const int64_t* cols_at,
                    int64_t k, int64_t cols, double* s, double* a);
void DotRowSumsF32(const double* x, const float* w, const int64_t* cols_at,
                   int64_t k, int64_t cols, double* s, double* a);
inline int64_t DotRowSumsLeaves(int64_t k) { return k + 17; }

// StreamSums* for m lhs rows at once (x: m rows of k): s[i * cols + j] and
// a[i * cols + j] for row i. Each chunk of four rhs rows is widened to
// doubles once (into wd, 4 * cols doubles of scratch) and used by every
// lhs row, so the conversion is shared; the same bound
// (StreamSumsLeaves(k)). AVX2 and baseline clones.
void StreamSumsRowsBf16(const double* x, int64_t m, int64_t k,
                        const uint16_t* w, const int64_t* rows, int64_t cols,
                        double* s, double* a, double* wd);
void StreamSumsRowsF32(const double* x, int64_t m, int64_t k, const float* w,
                       const int64_t* rows, int64_t cols, double* s, double* a,
                       double* wd);

// Rigorous enclosures lo <= S <= hi of the vector-matrix products that
// StreamSums* / StreamSumsRows* sum (m lhs rows, row i's outputs at
// i * cols), on AVX-512: one chain per output rounded down and one up
// (stream_sums_avx512.cc, which argues the bounds and the sign of an exact
// zero). The products must be exact in double. DecideEnclosure then gives
// the correctly rounded S or NaN. Returns false, writing nothing, when the
// host has no AVX-512 (F, BW, DQ, VL), HLOREF_ORACLE_DOT_AVX512=0, tests
// switched it off, or its scratch (up to 64 MiB per thread) is not to be
// had; the caller then takes StreamSums* / StreamSumsRows*.
bool StreamEnclosureAvx512Bf16(const double* x, int64_t m, int64_t k,
                               const uint16_t* w, const int64_t* rows,
                               int64_t cols, double* lo, double* hi);
bool StreamEnclosureAvx512F32(const double* x, int64_t m, int64_t k,
                              const float* w, const int64_t* rows, int64_t cols,
                              double* lo, double* hi);
// The same for a transposed rhs ([n][k]: output j's terms contiguous from
// w + cols_at[j], as DotRowSums* read them).
bool TransposedEnclosureAvx512Bf16(const double* x, int64_t m, int64_t k,
                                   const uint16_t* w, const int64_t* cols_at,
                                   int64_t cols, double* lo, double* hi);
bool TransposedEnclosureAvx512F32(const double* x, int64_t m, int64_t k,
                                  const float* w, const int64_t* cols_at,
                                  int64_t cols, double* lo, double* hi);
bool StreamEnclosureAvx512Available();
void SetStreamEnclosureAvx512DisabledForTesting(bool disabled);
// One lhs row takes one chain per column while its sums are exact (the
// MXCSR's inexact flag), the two directed chains from where they round:
// the same bits either way. Off: always the two chains (for tests and
// measurements; also HLOREF_ORACLE_DOT_ONE_CHAIN=0).
void SetStreamOneChainDisabledForTesting(bool disabled);

// The correctly rounded value of a real S known only to lie in [lo, hi]
// (doubles), or NaN when the enclosure cannot decide it: RN is monotone,
// so when lo and hi round to the same non-zero finite value r, so does S.
// lo == hi is S itself, rounded once (ties included); an exact zero is
// returned as hi (its sign, see StreamEnclosureAvx512*). Zero and overflow
// results, and non-finite ends, are left to the caller, as VerifiedRound
// leaves them.
inline double DecideEnclosure(double lo, double hi, const FastRounding& f) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo <= hi)) return kNaN;
  if (lo == hi && hi == 0) return hi;
  const double r = RoundToFormat(lo, f);
  if (r == 0 || !(std::fabs(r) <= f.max_finite)) return kNaN;
  if (lo != hi && RoundToFormat(hi, f) != r) return kNaN;
  return r;
}

// DecideEnclosure over n outputs: out[j] = DecideEnclosure(lo[j], hi[j],
// f), the same values. For f32 results on AVX-512 (and the MXCSR rounding
// to nearest without flush-to-zero or denormals-are-zero) eight at a
// time, with the hardware's rounding of double to float, which is RN to
// 24 bits with f32's subnormals, as RoundToFormat computes it.
void DecideEnclosures(const double* lo, const double* hi, int64_t n,
                      const FastRounding& f, double* out);

// Writes lanes [0, n) of a chain state to s[], c[], a[].
inline void TwoSum4Store(const TwoSum4& st, int64_t n, double* s, double* c,
                         double* a) {
  for (int64_t j = 0; j < n; ++j) {
    s[j] = st.s[j];
    c[j] = st.c[j];
    a[j] = st.a[j];
  }
}

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_FAST_ROUND_H_
