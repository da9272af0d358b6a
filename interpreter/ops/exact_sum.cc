// ExactSum: long-accumulator summation with one final rounding.
#include "interpreter/ops/exact_sum.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "interpreter/ops/fast_round.h"
#include "spec/types/minifloat.h"

namespace hloref {
namespace {

constexpr uint64_t kDigitMask = 0xffffffffu;
constexpr int64_t kNormalizeEvery = int64_t{1} << 30;

struct Decoded {
  bool negative;
  uint64_t mantissa;  // integer significand
  int exponent;       // value = mantissa * 2^exponent
};

// A finite double as an integer times a power of two.
Decoded Decode(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  Decoded d;
  d.negative = (bits >> 63) != 0;
  const int e = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t frac = bits & ((uint64_t{1} << 52) - 1);
  if (e == 0) {
    d.mantissa = frac;
    d.exponent = -1074;
  } else {
    d.mantissa = frac | (uint64_t{1} << 52);
    d.exponent = e - 1075;
  }
  return d;
}

}  // namespace

void ExactSum::ClearAll() {
  std::memset(chunk_, 0, sizeof chunk_);
  lo_ = kChunks;
  hi_ = -1;
  pending_ = 0;
  nan_ = pos_inf_ = neg_inf_ = false;
  all_negative_zero_ = true;
  any_term_ = false;
}

void ExactSum::Clear() {
  if (lo_ <= hi_) {
    std::memset(&chunk_[lo_], 0, sizeof(int64_t) * (hi_ - lo_ + 1));
  }
  lo_ = kChunks;
  hi_ = -1;
  pending_ = 0;
  nan_ = pos_inf_ = neg_inf_ = false;
  all_negative_zero_ = true;
  any_term_ = false;
}

// Adds (negative ? -v : v) * 2^(pos + kMinExp) as three 32-bit digits.
#define HLOREF_EXACT_SUM_ADD_U64(negative, v, pos)                             \
  do {                                                                         \
    const int k_ = (pos) >> 5;                                                 \
    const unsigned __int128 w_ = static_cast<unsigned __int128>(v)             \
                                 << ((pos)&31);                                \
    const int64_t d0_ =                                                        \
        static_cast<int64_t>(static_cast<uint64_t>(w_) & kDigitMask);          \
    const int64_t d1_ =                                                        \
        static_cast<int64_t>(static_cast<uint64_t>(w_ >> 32) & kDigitMask);    \
    const int64_t d2_ = static_cast<int64_t>(static_cast<uint64_t>(w_ >> 64)); \
    if (negative) {                                                            \
      chunk_[k_] -= d0_;                                                       \
      chunk_[k_ + 1] -= d1_;                                                   \
      chunk_[k_ + 2] -= d2_;                                                   \
    } else {                                                                   \
      chunk_[k_] += d0_;                                                       \
      chunk_[k_ + 1] += d1_;                                                   \
      chunk_[k_ + 2] += d2_;                                                   \
    }                                                                          \
    lo_ = std::min(lo_, k_);                                                   \
    hi_ = std::max(hi_, k_ + 2);                                               \
    if (++pending_ >= kNormalizeEvery) Normalize();                            \
  } while (0)

void ExactSum::Add(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int e = static_cast<int>((bits >> 52) & 0x7ff);
  const bool negative = (bits >> 63) != 0;
  any_term_ = true;
  if (e == 0x7ff) {
    all_negative_zero_ = false;
    if ((bits & ((uint64_t{1} << 52) - 1)) != 0) {
      nan_ = true;
    } else if (negative) {
      neg_inf_ = true;
    } else {
      pos_inf_ = true;
    }
    return;
  }
  uint64_t mantissa = bits & ((uint64_t{1} << 52) - 1);
  int exponent;
  if (e == 0) {
    if (mantissa == 0) {
      if (!negative) all_negative_zero_ = false;
      return;
    }
    exponent = -1074;
  } else {
    mantissa |= uint64_t{1} << 52;
    exponent = e - 1075;
  }
  all_negative_zero_ = false;
  const int pos = exponent - kMinExp;
  HLOREF_EXACT_SUM_ADD_U64(negative, mantissa, pos);
}

void ExactSum::AddScaled(bool negative, unsigned __int128 mag, int exp) {
  any_term_ = true;
  if (mag == 0) {
    if (!negative) all_negative_zero_ = false;
    return;
  }
  all_negative_zero_ = false;
  const uint64_t low = static_cast<uint64_t>(mag);
  const uint64_t high = static_cast<uint64_t>(mag >> 64);
  const int pos = exp - kMinExp;
  if (low != 0) HLOREF_EXACT_SUM_ADD_U64(negative, low, pos);
  if (high != 0) HLOREF_EXACT_SUM_ADD_U64(negative, high, pos + 64);
}

#undef HLOREF_EXACT_SUM_ADD_U64

void ExactSum::AddExactProducts(const double* a, const double* b, int64_t n) {
  if (n <= 0) return;
  any_term_ = true;
  // Local copies of the bookkeeping so the loop keeps them in registers
  // (the chunk stores could otherwise alias them).
  int lo = lo_, hi = hi_;
  int64_t pending = pending_;
  bool all_negative_zero = all_negative_zero_;
  bool special = false;
  int64_t* const chunk = chunk_;
  for (int64_t i = 0; i < n; ++i) {
    const double x = a[i] * b[i];
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    const int e = static_cast<int>((bits >> 52) & 0x7ff);
    uint64_t mantissa = bits & ((uint64_t{1} << 52) - 1);
    if (e == 0 || e == 0x7ff) {
      if (e == 0x7ff || mantissa != 0) {
        special = true;  // handled by the general path below
        continue;
      }
      if ((bits >> 63) == 0) all_negative_zero = false;
      continue;
    }
    all_negative_zero = false;
    mantissa |= uint64_t{1} << 52;
    const int pos = e - 1075 - kMinExp;
    const int k = pos >> 5;
    const unsigned __int128 w = static_cast<unsigned __int128>(mantissa)
                                << (pos & 31);
    const int64_t d0 =
        static_cast<int64_t>(static_cast<uint64_t>(w) & kDigitMask);
    const int64_t d1 =
        static_cast<int64_t>(static_cast<uint64_t>(w >> 32) & kDigitMask);
    const int64_t d2 = static_cast<int64_t>(static_cast<uint64_t>(w >> 64));
    if ((bits >> 63) != 0) {
      chunk[k] -= d0;
      chunk[k + 1] -= d1;
      chunk[k + 2] -= d2;
    } else {
      chunk[k] += d0;
      chunk[k + 1] += d1;
      chunk[k + 2] += d2;
    }
    lo = k < lo ? k : lo;
    hi = k + 2 > hi ? k + 2 : hi;
    if (++pending >= kNormalizeEvery) {
      lo_ = lo;
      hi_ = hi;
      Normalize();
      pending = 0;
    }
  }
  lo_ = lo;
  hi_ = hi;
  pending_ = pending;
  all_negative_zero_ = all_negative_zero;
  if (special) {
    // Subnormal products and non-finite values: the general path.
    for (int64_t i = 0; i < n; ++i) {
      const double x = a[i] * b[i];
      if (!std::isnormal(x) && x != 0) Add(x);
    }
  }
}

void ExactSum::AddProduct(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b) || a == 0 || b == 0) {
    Add(a * b);  // inf, NaN (inf * 0) or a signed zero: exact as is
    return;
  }
  const double p = a * b;
  if (std::isfinite(p) && std::fabs(p) >= 0x1p-900) {
    // TwoProduct: without underflow or overflow a*b == p + e exactly.
    const double e = std::fma(a, b, -p);
    Add(p);
    if (e != 0) Add(e);
    return;
  }
  const Decoded da = Decode(a);
  const Decoded db = Decode(b);
  AddScaled(da.negative != db.negative,
            static_cast<unsigned __int128>(da.mantissa) * db.mantissa,
            da.exponent + db.exponent);
}

void ExactSum::Normalize() {
  for (int k = lo_; k < hi_; ++k) {
    const int64_t carry = chunk_[k] >> 32;  // arithmetic shift (C++20)
    chunk_[k] -= carry * (int64_t{1} << 32);
    chunk_[k + 1] += carry;
  }
  pending_ = 0;
}

bool ExactSum::Canonicalize() {
  Normalize();
  bool negative = false;
  if (chunk_[hi_] < 0) {
    negative = true;
    for (int k = lo_; k <= hi_; ++k) chunk_[k] = -chunk_[k];
    Normalize();
  }
  while ((chunk_[hi_] >> 32) != 0 && hi_ + 1 < kChunks) {
    const int64_t carry = chunk_[hi_] >> 32;
    chunk_[hi_] &= static_cast<int64_t>(kDigitMask);
    chunk_[++hi_] += carry;
  }
  return negative;
}

uint64_t ExactSum::Bits(int pos, int count) const {
  const int idx = pos - kMinExp;
  const int word = idx >> 5;
  const int off = idx & 31;
  unsigned __int128 w = 0;
  for (int i = 2; i >= 0; --i) {
    const int k = word + i;
    w <<= 32;
    if (k >= lo_ && k <= hi_) w |= static_cast<uint64_t>(chunk_[k]);
  }
  w >>= off;
  return static_cast<uint64_t>(w) & ((uint64_t{1} << count) - 1);
}

bool ExactSum::AnyBitBelow(int pos) const {
  const int idx = pos - kMinExp;
  const int word = idx >> 5;
  const int off = idx & 31;
  if (word >= lo_ && word <= hi_ &&
      (static_cast<uint64_t>(chunk_[word]) & ((uint64_t{1} << off) - 1)) != 0) {
    return true;
  }
  for (int k = lo_; k < word && k <= hi_; ++k) {
    if (chunk_[k] != 0) return true;
  }
  return false;
}

double ExactSum::RoundImpl(int precision, int emin, bool up) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (has_nan()) return std::numeric_limits<double>::quiet_NaN();
  if (pos_inf_) return kInf;
  if (neg_inf_) return -kInf;
  const double zero = (any_term_ && all_negative_zero_) ? -0.0 : 0.0;
  if (lo_ > hi_) return zero;
  const bool negative = Canonicalize();
  int top = hi_;
  while (top >= lo_ && chunk_[top] == 0) --top;
  double result;
  if (top < lo_) {
    result = zero;
  } else {
    const int msb = 32 * top + kMinExp +
                    (31 - __builtin_clz(static_cast<uint32_t>(chunk_[top])));
    const int q = std::max(msb - precision + 1, emin - precision + 1);
    uint64_t m = msb >= q ? Bits(q, msb - q + 1) : 0;
    const bool round_bit = msb >= q - 1 && Bits(q - 1, 1) != 0;
    const bool sticky = AnyBitBelow(q - 1);
    if (up) {
      if (!negative && (round_bit || sticky)) ++m;
    } else if (round_bit && (sticky || (m & 1) != 0)) {
      ++m;
    }
    result = m == 0 ? 0.0 : std::ldexp(static_cast<double>(m), q);
    if (negative) result = -result;
  }
  if (negative) {
    // Restore the (negated) value so the sum stays usable.
    for (int k = lo_; k <= hi_; ++k) chunk_[k] = -chunk_[k];
  }
  return result;
}

double ExactSum::Round(int precision, int emin) {
  return RoundImpl(precision, emin, /*up=*/false);
}

double ExactSum::RoundUpToDouble() { return RoundImpl(53, -1022, /*up=*/true); }

double ExactSum::RoundTo(PrimitiveType type) {
  const FloatFormat& format = FormatOf(type);
  return Round(Precision(format), std::ilogb(MinNormal(format)));
}

// Declared in fast_round.h.
__attribute__((target_clones("avx2", "default"))) void TwoSum4Segment(
    TwoSum4& st, const double* x, const double* b, int64_t len,
    int64_t stride) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  TwoSumV4 s = st.s, c = st.c, a = st.a;
  for (int64_t t = 0; t < len; ++t) {
    TwoSumV4 bv;
    __builtin_memcpy(&bv, b + t * stride, sizeof(bv));
    const double xt = x[t];
    const TwoSumV4 xv = {xt, xt, xt, xt};
    const TwoSumV4 p = xv * bv;
    const TwoSumV4 sum = s + p;
    const TwoSumV4 z = sum - s;
    const TwoSumV4 e = (s - (sum - z)) + (p - z);
    s = sum;
    c += e;
    a += (TwoSumV4)((TwoSumI4)e & abs_mask);
  }
  st.s = s;
  st.c = c;
  st.a = a;
}

__attribute__((target_clones("avx2", "default"))) void Sum4Segment(
    Sum4& st, const double* x, const double* b, int64_t len, int64_t stride) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  TwoSumV4 s0 = st.s0, s1 = st.s1, a0 = st.a0, a1 = st.a1;
  int64_t t = 0;
  for (; t + 1 < len; t += 2) {
    TwoSumV4 b0, b1;
    __builtin_memcpy(&b0, b + t * stride, sizeof(b0));
    __builtin_memcpy(&b1, b + (t + 1) * stride, sizeof(b1));
    const TwoSumV4 x0 = {x[t], x[t], x[t], x[t]};
    const TwoSumV4 x1 = {x[t + 1], x[t + 1], x[t + 1], x[t + 1]};
    const TwoSumV4 p0 = x0 * b0;
    const TwoSumV4 p1 = x1 * b1;
    s0 += p0;
    s1 += p1;
    a0 += (TwoSumV4)((TwoSumI4)p0 & abs_mask);
    a1 += (TwoSumV4)((TwoSumI4)p1 & abs_mask);
  }
  if (t < len) {
    TwoSumV4 b0;
    __builtin_memcpy(&b0, b + t * stride, sizeof(b0));
    const TwoSumV4 x0 = {x[t], x[t], x[t], x[t]};
    const TwoSumV4 p0 = x0 * b0;
    s0 += p0;
    a0 += (TwoSumV4)((TwoSumI4)p0 & abs_mask);
  }
  st.s0 = s0;
  st.s1 = s1;
  st.a0 = a0;
  st.a1 = a1;
}

__attribute__((target_clones("avx2", "default"))) void Sum16Segment(
    Sum4 (&st)[4], const double* x, const double* b, int64_t len,
    int64_t stride) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  TwoSumV4 s0 = st[0].s0, s1 = st[1].s0, s2 = st[2].s0, s3 = st[3].s0;
  TwoSumV4 a0 = st[0].a0, a1 = st[1].a0, a2 = st[2].a0, a3 = st[3].a0;
  for (int64_t t = 0; t < len; ++t) {
    const double* row = b + t * stride;
    TwoSumV4 b0, b1, b2, b3;
    __builtin_memcpy(&b0, row, sizeof(b0));
    __builtin_memcpy(&b1, row + 4, sizeof(b1));
    __builtin_memcpy(&b2, row + 8, sizeof(b2));
    __builtin_memcpy(&b3, row + 12, sizeof(b3));
    const TwoSumV4 xv = {x[t], x[t], x[t], x[t]};
    const TwoSumV4 p0 = xv * b0, p1 = xv * b1, p2 = xv * b2, p3 = xv * b3;
    s0 += p0;
    s1 += p1;
    s2 += p2;
    s3 += p3;
    a0 += (TwoSumV4)((TwoSumI4)p0 & abs_mask);
    a1 += (TwoSumV4)((TwoSumI4)p1 & abs_mask);
    a2 += (TwoSumV4)((TwoSumI4)p2 & abs_mask);
    a3 += (TwoSumV4)((TwoSumI4)p3 & abs_mask);
  }
  st[0].s0 = s0;
  st[1].s0 = s1;
  st[2].s0 = s2;
  st[3].s0 = s3;
  st[0].a0 = a0;
  st[1].a0 = a1;
  st[2].a0 = a2;
  st[3].a0 = a3;
}

__attribute__((target_clones("avx2", "default"))) uint32_t VerifiedRoundSum4(
    const Sum4* st, int64_t groups, int64_t lanes, int64_t terms,
    const FastRounding& f, double* r) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  const TwoSumV4 zero = {0, 0, 0, 0};
  const int64_t leaves = Sum4Leaves(terms);
  // VerifiedRound's err with c = 0, operation by operation.
  const double coef = 2.02 * static_cast<double>(leaves) * 0x1p-53;
  uint32_t undecided = 0;
  for (int64_t g = 0; g < groups && 4 * g < lanes; ++g) {
    const TwoSumV4 s = st[g].s0 + st[g].s1;
    const TwoSumV4 a = st[g].a0 + st[g].a1;
    const TwoSumV4 err =
        coef * a + 0x1p-52 * (TwoSumV4)((TwoSumI4)s & abs_mask);
    const TwoSumV4 radius = 2 * err;
    const TwoSumI4 exact = a == zero;
    TwoSumV4 rv;
    TwoSumI4 decided;
    RoundInCell4(s, radius, exact, f, &rv, &decided);
    const int64_t n = std::min<int64_t>(4, lanes - 4 * g);
    if (n == 4 && (decided[0] & decided[1] & decided[2] & decided[3]) != 0) {
      __builtin_memcpy(r + 4 * g, &rv, sizeof rv);
      continue;
    }
    for (int64_t j = 0; j < n; ++j) {
      double* o = r + 4 * g + j;
      if (decided[j]) {
        *o = rv[j];
      } else {
        *o = VerifiedRound(s[j], 0.0, a[j], leaves, f);
        if (std::isnan(*o)) undecided |= uint32_t{1} << (4 * g + j);
      }
    }
  }
  return undecided;
}

namespace {

typedef float TwoSumF4 __attribute__((vector_size(16)));
typedef uint32_t TwoSumU4 __attribute__((vector_size(16)));
typedef int32_t TwoSumS4 __attribute__((vector_size(16)));
typedef uint16_t TwoSumH4 __attribute__((vector_size(8)));

// (Results through a pointer: returning a 32-byte vector from a function
// compiled without AVX changes the ABI.)
// Four 16-bit codes as the f32 values of bf16 codes: the upper half of an
// f32 encoding.
__attribute__((always_inline)) inline void WidenBf16(TwoSumH4 h,
                                                     TwoSumV4* out) {
  const TwoSumU4 u = __builtin_convertvector(h, TwoSumU4) << 16;
  *out = __builtin_convertvector((TwoSumF4)u, TwoSumV4);
}

// Four f16 codes exactly as doubles: the exponent and fraction fields
// moved to f32's positions (<< 13) give the value times 2^-112 for normal
// and subnormal codes (f32's bias is 112 more; an f16 subnormal m 2^-24
// lands on the f32 subnormal m 2^-136), so multiplying by 2^112 is exact;
// an all-ones exponent (inf, NaN) becomes f32's all-ones exponent with the
// fraction kept. The sign is or-ed back last.
__attribute__((always_inline)) inline void WidenF16(TwoSumH4 h, TwoSumV4* out) {
  const TwoSumU4 u = __builtin_convertvector(h, TwoSumU4);
  const TwoSumU4 mag = (u & 0x7fffu) << 13;
  const TwoSumU4 sign = (u & 0x8000u) << 16;
  const TwoSumF4 scaled = (TwoSumF4)mag * 0x1p112f;
  const TwoSumS4 special = (u & 0x7c00u) == 0x7c00u;  // all ones: -1
  const TwoSumU4 bits = (((TwoSumU4)scaled & ~(TwoSumU4)special) |
                         ((mag | 0x7f800000u) & (TwoSumU4)special)) |
                        sign;
  *out = __builtin_convertvector((TwoSumF4)bits, TwoSumV4);
}

__attribute__((always_inline)) inline void WidenF32(TwoSumF4 f, TwoSumV4* out) {
  *out = __builtin_convertvector(f, TwoSumV4);
}

enum class Codes { kBf16, kF16, kF32 };

// One bf16 / f32 code as a double (the scalar tails of StreamSums*).
inline double CodeToDouble(uint16_t bf16) {
  const uint32_t bits = static_cast<uint32_t>(bf16) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline double CodeToDouble(float f) { return f; }

// Four codes from `from` (bf16, f16 or f32, read as Raw) widened to
// doubles.
template <Codes kCodes, typename T, typename Raw>
__attribute__((always_inline)) inline void WidenCodes(const T* from,
                                                      TwoSumV4* v) {
  Raw raw;
  __builtin_memcpy(&raw, from, sizeof raw);
  if constexpr (kCodes == Codes::kBf16) {
    WidenBf16(raw, v);
  } else if constexpr (kCodes == Codes::kF16) {
    WidenF16(raw, v);
  } else {
    WidenF32(raw, v);
  }
}

// The loop of StreamSums* (fast_round.h): rows two at a time, the sums of
// the block's columns kept in s[] and a[] (L1) between rows.
template <Codes kCodes, typename T, typename Raw>
__attribute__((always_inline)) inline void StreamSumsTyped(
    const double* x, const T* w, const int64_t* rows, int64_t k, int64_t cols,
    double* s, double* a) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  constexpr int64_t kAhead = 16;  // rows prefetched ahead
  for (int64_t j = 0; j < cols; ++j) {
    s[j] = kTwoSumStart;
    a[j] = 0;
  }
  int64_t c = 0;
  for (; c + 2 <= k; c += 2) {
    const T* r0 = w + rows[c];
    const T* r1 = w + rows[c + 1];
    if (c + kAhead + 1 < k) {
      const char* p0 = reinterpret_cast<const char*>(w + rows[c + kAhead]);
      const char* p1 = reinterpret_cast<const char*>(w + rows[c + kAhead + 1]);
      for (int64_t byte = 0; byte < cols * static_cast<int64_t>(sizeof(T));
           byte += 64) {
        __builtin_prefetch(p0 + byte);
        __builtin_prefetch(p1 + byte);
      }
    }
    const TwoSumV4 x0 = {x[c], x[c], x[c], x[c]};
    const TwoSumV4 x1 = {x[c + 1], x[c + 1], x[c + 1], x[c + 1]};
    int64_t j = 0;
    for (; j + 4 <= cols; j += 4) {
      TwoSumV4 b0, b1, sv, av;
      WidenCodes<kCodes, T, Raw>(r0 + j, &b0);
      WidenCodes<kCodes, T, Raw>(r1 + j, &b1);
      const TwoSumV4 p0 = x0 * b0;
      const TwoSumV4 p1 = x1 * b1;
      __builtin_memcpy(&sv, s + j, sizeof sv);
      __builtin_memcpy(&av, a + j, sizeof av);
      sv += p0 + p1;
      av += (TwoSumV4)((TwoSumI4)p0 & abs_mask) +
            (TwoSumV4)((TwoSumI4)p1 & abs_mask);
      __builtin_memcpy(s + j, &sv, sizeof sv);
      __builtin_memcpy(a + j, &av, sizeof av);
    }
    for (; j < cols; ++j) {
      const double p0 = x[c] * CodeToDouble(r0[j]);
      const double p1 = x[c + 1] * CodeToDouble(r1[j]);
      s[j] += p0 + p1;
      a[j] += std::fabs(p0) + std::fabs(p1);
    }
  }
  if (c < k) {
    const T* r0 = w + rows[c];
    for (int64_t j = 0; j < cols; ++j) {
      const double p0 = x[c] * CodeToDouble(r0[j]);
      s[j] += p0;
      a[j] += std::fabs(p0);
    }
  }
}

// The loop of TwoSum4Segment with b read as four codes (Raw) and widened
// to doubles.
template <Codes kCodes, typename T, typename Raw>
__attribute__((always_inline)) inline void TwoSum4Typed(TwoSum4& st,
                                                        const double* x,
                                                        const T* b, int64_t len,
                                                        int64_t stride) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  TwoSumV4 s = st.s, c = st.c, a = st.a;
  for (int64_t t = 0; t < len; ++t) {
    TwoSumV4 bv;
    WidenCodes<kCodes, T, Raw>(b + t * stride, &bv);
    const double xt = x[t];
    const TwoSumV4 xv = {xt, xt, xt, xt};
    const TwoSumV4 p = xv * bv;
    const TwoSumV4 sum = s + p;
    const TwoSumV4 z = sum - s;
    const TwoSumV4 e = (s - (sum - z)) + (p - z);
    s = sum;
    c += e;
    a += (TwoSumV4)((TwoSumI4)e & abs_mask);
  }
  st.s = s;
  st.c = c;
  st.a = a;
}

// SumAndAbsSum*: eight chains (two sets of four lanes, elements 8i + j),
// merged lane by lane at the end; the loads are exact.
template <typename Load>
__attribute__((always_inline)) inline void SumAndAbsSumLoop(int64_t n,
                                                            double* s,
                                                            double* a,
                                                            Load load) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  TwoSumV4 s0 = {kTwoSumStart, kTwoSumStart, kTwoSumStart, kTwoSumStart};
  TwoSumV4 s1 = s0;
  TwoSumV4 a0 = {0, 0, 0, 0}, a1 = a0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    TwoSumV4 v0, v1;
    load(i, &v0);
    load(i + 4, &v1);
    s0 += v0;
    s1 += v1;
    a0 += (TwoSumV4)((TwoSumI4)v0 & abs_mask);
    a1 += (TwoSumV4)((TwoSumI4)v1 & abs_mask);
  }
  s0 += s1;
  a0 += a1;
  double ss = (s0[0] + s0[1]) + (s0[2] + s0[3]);
  double aa = (a0[0] + a0[1]) + (a0[2] + a0[3]);
  for (; i < n; ++i) {
    TwoSumV4 v;
    load(i, &v);  // reads lane 0 only past the last full group
    ss += v[0];
    aa += std::fabs(v[0]);
  }
  *s = ss;
  *a = aa;
}

}  // namespace

__attribute__((target_clones("avx2", "default"))) void SumAndAbsSumF32(
    const float* x, int64_t n, double* s, double* a) {
  SumAndAbsSumLoop(n, s, a, [&](int64_t i, TwoSumV4* v) {
    if (i + 4 <= n) {
      TwoSumF4 f;
      __builtin_memcpy(&f, x + i, sizeof f);
      *v = __builtin_convertvector(f, TwoSumV4);
    } else {
      *v = TwoSumV4{static_cast<double>(x[i]), 0, 0, 0};
    }
  });
}

__attribute__((target_clones("avx2", "default"))) void SumAndAbsSumBf16(
    const uint16_t* x, int64_t n, double* s, double* a) {
  SumAndAbsSumLoop(n, s, a, [&](int64_t i, TwoSumV4* v) {
    if (i + 4 <= n) {
      TwoSumH4 h;
      __builtin_memcpy(&h, x + i, sizeof h);
      WidenBf16(h, v);
    } else {
      const uint32_t bits = static_cast<uint32_t>(x[i]) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      *v = TwoSumV4{static_cast<double>(f), 0, 0, 0};
    }
  });
}

__attribute__((target_clones("avx2", "default"))) void SumAndAbsSumF64(
    const double* x, int64_t n, double* s, double* a) {
  SumAndAbsSumLoop(n, s, a, [&](int64_t i, TwoSumV4* v) {
    if (i + 4 <= n) {
      __builtin_memcpy(v, x + i, sizeof *v);
    } else {
      *v = TwoSumV4{x[i], 0, 0, 0};
    }
  });
}

namespace {

// Two chain groups side by side (their latencies overlap): group 0 takes
// x0[t] * b0[t * stride + j], group 1 x1[t] * b1[t * stride + j], each
// with the operations of TwoSum4Typed. kSameB / kSameX: b0 == b1 (two
// lhs rows, one group of columns: one conversion) / x0 == x1 (one row,
// two groups: one broadcast).
template <Codes kCodes, typename T, typename Raw, bool kSameB, bool kSameX>
__attribute__((always_inline)) inline void TwoSum4PairTyped(
    TwoSum4& st0, TwoSum4& st1, const double* x0, const double* x1, const T* b0,
    const T* b1, int64_t len, int64_t stride) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  TwoSumV4 s0 = st0.s, c0 = st0.c, a0 = st0.a;
  TwoSumV4 s1 = st1.s, c1 = st1.c, a1 = st1.a;
  for (int64_t t = 0; t < len; ++t) {
    TwoSumV4 bv0, bv1;
    WidenCodes<kCodes, T, Raw>(b0 + t * stride, &bv0);
    if constexpr (kSameB) {
      bv1 = bv0;
    } else {
      WidenCodes<kCodes, T, Raw>(b1 + t * stride, &bv1);
    }
    const double xt0 = x0[t];
    const double xt1 = kSameX ? xt0 : x1[t];
    const TwoSumV4 xv0 = {xt0, xt0, xt0, xt0};
    const TwoSumV4 xv1 = {xt1, xt1, xt1, xt1};
    const TwoSumV4 p0 = xv0 * bv0;
    const TwoSumV4 p1 = xv1 * bv1;
    const TwoSumV4 sum0 = s0 + p0;
    const TwoSumV4 sum1 = s1 + p1;
    const TwoSumV4 z0 = sum0 - s0;
    const TwoSumV4 z1 = sum1 - s1;
    const TwoSumV4 e0 = (s0 - (sum0 - z0)) + (p0 - z0);
    const TwoSumV4 e1 = (s1 - (sum1 - z1)) + (p1 - z1);
    s0 = sum0;
    s1 = sum1;
    c0 += e0;
    c1 += e1;
    a0 += (TwoSumV4)((TwoSumI4)e0 & abs_mask);
    a1 += (TwoSumV4)((TwoSumI4)e1 & abs_mask);
  }
  st0.s = s0;
  st0.c = c0;
  st0.a = a0;
  st1.s = s1;
  st1.c = c1;
  st1.a = a1;
}

template <Codes kCodes, typename T, typename Raw>
__attribute__((always_inline)) inline void TwoSum4PairDispatch(
    TwoSum4& st0, TwoSum4& st1, const double* x0, const double* x1, const T* b0,
    const T* b1, int64_t len, int64_t stride) {
  if (b0 == b1) {
    TwoSum4PairTyped<kCodes, T, Raw, true, false>(st0, st1, x0, x1, b0, b1, len,
                                                  stride);
  } else if (x0 == x1) {
    TwoSum4PairTyped<kCodes, T, Raw, false, true>(st0, st1, x0, x1, b0, b1, len,
                                                  stride);
  } else {
    TwoSum4PairTyped<kCodes, T, Raw, false, false>(st0, st1, x0, x1, b0, b1,
                                                   len, stride);
  }
}

// The same pair of chain groups for bf16 and f32 codes, compiled for AVX2
// with the conversion written in intrinsics: GCC 12 lowers the generic
// vectors' convertvector from 4 floats to 4 doubles to two 128-bit
// vcvtps2pd and a vinsertf128 (11 instructions for a bf16 group where
// these take 3). The two-sum itself is the generic vector code as above:
// the same IEEE operations (no FMA: target avx2 does not enable it).
template <Codes kCodes, typename T>
__attribute__((target("avx2"), always_inline)) inline TwoSumV4 WidenAvx2(
    const T* p) {
  if constexpr (kCodes == Codes::kF32) {
    return (TwoSumV4)_mm256_cvtps_pd(_mm_loadu_ps(p));
  } else {
    const __m128i h = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    return (TwoSumV4)_mm256_cvtps_pd(
        _mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32(h), 16)));
  }
}

template <Codes kCodes, typename T, bool kSameB, bool kSameX>
__attribute__((target("avx2"))) void TwoSum4PairAvx2(
    TwoSum4& st0, TwoSum4& st1, const double* x0, const double* x1, const T* b0,
    const T* b1, int64_t len, int64_t stride) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  TwoSumV4 s0 = st0.s, c0 = st0.c, a0 = st0.a;
  TwoSumV4 s1 = st1.s, c1 = st1.c, a1 = st1.a;
  for (int64_t t = 0; t < len; ++t) {
    const TwoSumV4 bv0 = WidenAvx2<kCodes>(b0 + t * stride);
    const TwoSumV4 bv1 = kSameB ? bv0 : WidenAvx2<kCodes>(b1 + t * stride);
    const double xt0 = x0[t];
    const double xt1 = kSameX ? xt0 : x1[t];
    const TwoSumV4 xv0 = {xt0, xt0, xt0, xt0};
    const TwoSumV4 xv1 = {xt1, xt1, xt1, xt1};
    const TwoSumV4 p0 = xv0 * bv0;
    const TwoSumV4 p1 = xv1 * bv1;
    const TwoSumV4 sum0 = s0 + p0;
    const TwoSumV4 sum1 = s1 + p1;
    const TwoSumV4 z0 = sum0 - s0;
    const TwoSumV4 z1 = sum1 - s1;
    const TwoSumV4 e0 = (s0 - (sum0 - z0)) + (p0 - z0);
    const TwoSumV4 e1 = (s1 - (sum1 - z1)) + (p1 - z1);
    s0 = sum0;
    s1 = sum1;
    c0 += e0;
    c1 += e1;
    a0 += (TwoSumV4)((TwoSumI4)e0 & abs_mask);
    a1 += (TwoSumV4)((TwoSumI4)e1 & abs_mask);
  }
  st0.s = s0;
  st0.c = c0;
  st0.a = a0;
  st1.s = s1;
  st1.c = c1;
  st1.a = a1;
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

// Eight codes from p as two vectors of four doubles (exact conversions).
template <Codes kCodes, typename T>
__attribute__((target("avx2"), always_inline)) inline void Widen8Avx2(
    const T* p, __m256d* lo, __m256d* hi) {
  __m256 f;
  if constexpr (kCodes == Codes::kF32) {
    f = _mm256_loadu_ps(p);
  } else {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    f = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  *lo = _mm256_cvtps_pd(_mm256_castps256_ps128(f));
  *hi = _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1));
}

// StreamSumsTyped's sums with eight columns per step (one 16- or 32-byte
// load and two conversions per row), AVX2 only; the tail as there.
template <Codes kCodes, typename T>
__attribute__((target("avx2"))) void StreamSumsAvx2(const double* x, const T* w,
                                                    const int64_t* rows,
                                                    int64_t k, int64_t cols,
                                                    double* s, double* a) {
  constexpr int64_t kAhead = 16;  // rows prefetched ahead
  const __m256d abs_mask =
      _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff));
  for (int64_t j = 0; j < cols; ++j) {
    s[j] = kTwoSumStart;
    a[j] = 0;
  }
  auto prefetch = [&](int64_t row) {
    const char* p = reinterpret_cast<const char*>(w + rows[row]);
    for (int64_t byte = 0; byte < cols * static_cast<int64_t>(sizeof(T));
         byte += 64) {
      __builtin_prefetch(p + byte);
    }
  };
  // Four rows per step: ((p0 + p1) + (p2 + p3)) into the chain, so s and A
  // are loaded and stored once per four products.
  int64_t c = 0;
  for (; c + 4 <= k; c += 4) {
    const T* r0 = w + rows[c];
    const T* r1 = w + rows[c + 1];
    const T* r2 = w + rows[c + 2];
    const T* r3 = w + rows[c + 3];
    if (cols <= 1024) {  // short pieces: the prefetchers do not follow
      for (int64_t d = 0; d < 4 && c + kAhead + d < k; ++d) {
        prefetch(c + kAhead + d);
      }
    }
    const __m256d x0 = _mm256_set1_pd(x[c]);
    const __m256d x1 = _mm256_set1_pd(x[c + 1]);
    const __m256d x2 = _mm256_set1_pd(x[c + 2]);
    const __m256d x3 = _mm256_set1_pd(x[c + 3]);
    int64_t j = 0;
    for (; j + 8 <= cols; j += 8) {
      __m256d b0l, b0h, b1l, b1h, b2l, b2h, b3l, b3h;
      Widen8Avx2<kCodes>(r0 + j, &b0l, &b0h);
      Widen8Avx2<kCodes>(r1 + j, &b1l, &b1h);
      Widen8Avx2<kCodes>(r2 + j, &b2l, &b2h);
      Widen8Avx2<kCodes>(r3 + j, &b3l, &b3h);
      const __m256d p0l = _mm256_mul_pd(x0, b0l);
      const __m256d p0h = _mm256_mul_pd(x0, b0h);
      const __m256d p1l = _mm256_mul_pd(x1, b1l);
      const __m256d p1h = _mm256_mul_pd(x1, b1h);
      const __m256d p2l = _mm256_mul_pd(x2, b2l);
      const __m256d p2h = _mm256_mul_pd(x2, b2h);
      const __m256d p3l = _mm256_mul_pd(x3, b3l);
      const __m256d p3h = _mm256_mul_pd(x3, b3h);
      const __m256d sl =
          _mm256_add_pd(_mm256_add_pd(p0l, p1l), _mm256_add_pd(p2l, p3l));
      const __m256d sh =
          _mm256_add_pd(_mm256_add_pd(p0h, p1h), _mm256_add_pd(p2h, p3h));
      const __m256d al =
          _mm256_add_pd(_mm256_add_pd(_mm256_and_pd(p0l, abs_mask),
                                      _mm256_and_pd(p1l, abs_mask)),
                        _mm256_add_pd(_mm256_and_pd(p2l, abs_mask),
                                      _mm256_and_pd(p3l, abs_mask)));
      const __m256d ah =
          _mm256_add_pd(_mm256_add_pd(_mm256_and_pd(p0h, abs_mask),
                                      _mm256_and_pd(p1h, abs_mask)),
                        _mm256_add_pd(_mm256_and_pd(p2h, abs_mask),
                                      _mm256_and_pd(p3h, abs_mask)));
      _mm256_storeu_pd(s + j, _mm256_add_pd(_mm256_loadu_pd(s + j), sl));
      _mm256_storeu_pd(s + j + 4,
                       _mm256_add_pd(_mm256_loadu_pd(s + j + 4), sh));
      _mm256_storeu_pd(a + j, _mm256_add_pd(_mm256_loadu_pd(a + j), al));
      _mm256_storeu_pd(a + j + 4,
                       _mm256_add_pd(_mm256_loadu_pd(a + j + 4), ah));
    }
    for (; j < cols; ++j) {
      const double p0 = x[c] * CodeToDouble(r0[j]);
      const double p1 = x[c + 1] * CodeToDouble(r1[j]);
      const double p2 = x[c + 2] * CodeToDouble(r2[j]);
      const double p3 = x[c + 3] * CodeToDouble(r3[j]);
      s[j] += (p0 + p1) + (p2 + p3);
      a[j] += (std::fabs(p0) + std::fabs(p1)) + (std::fabs(p2) + std::fabs(p3));
    }
  }
  for (; c < k; ++c) {
    const T* r0 = w + rows[c];
    for (int64_t j = 0; j < cols; ++j) {
      const double p0 = x[c] * CodeToDouble(r0[j]);
      s[j] += p0;
      a[j] += std::fabs(p0);
    }
  }
}

// TwoSum4PairDispatch on AVX2 machines, with TwoSum4PairAvx2.
template <Codes kCodes, typename T, typename Raw>
void TwoSum4PairSelect(TwoSum4& st0, TwoSum4& st1, const double* x0,
                       const double* x1, const T* b0, const T* b1, int64_t len,
                       int64_t stride) {
  if (!HasAvx2()) {
    TwoSum4PairDispatch<kCodes, T, Raw>(st0, st1, x0, x1, b0, b1, len, stride);
  } else if (b0 == b1) {
    TwoSum4PairAvx2<kCodes, T, true, false>(st0, st1, x0, x1, b0, b1, len,
                                            stride);
  } else if (x0 == x1) {
    TwoSum4PairAvx2<kCodes, T, false, true>(st0, st1, x0, x1, b0, b1, len,
                                            stride);
  } else {
    TwoSum4PairAvx2<kCodes, T, false, false>(st0, st1, x0, x1, b0, b1, len,
                                             stride);
  }
}

// One column's chains merged ((s0 + s1) lane by lane, then the lanes
// pairwise), the tail terms [c, k) added, into *so and *ao.
template <typename T>
__attribute__((target("avx2"), always_inline)) inline void DotRowFinish(
    const __m256d& s0, const __m256d& s1, const __m256d& a0, const __m256d& a1,
    const double* x, const T* r, int64_t c, int64_t k, double* so, double* ao) {
  alignas(32) double sv[4], av[4];
  _mm256_store_pd(sv, _mm256_add_pd(s0, s1));
  _mm256_store_pd(av, _mm256_add_pd(a0, a1));
  double sj = (sv[0] + sv[1]) + (sv[2] + sv[3]);
  double aj = (av[0] + av[1]) + (av[2] + av[3]);
  for (; c < k; ++c) {
    const double p = x[c] * CodeToDouble(r[c]);
    sj += p;
    aj += std::fabs(p);
  }
  *so = sj;
  *ao = aj;
}

// DotRowSumsTyped with eight terms per step read by one 16- or 32-byte
// load, two columns at a time sharing the loads of x (AVX2 only). The
// same chains per column: lanes 0-3 of s0 / a0 take terms c..c+3 of each
// step, s1 / a1 terms c+4..c+7; then the same merge and tail.
template <Codes kCodes, typename T>
__attribute__((target("avx2"))) void DotRowSumsAvx2(const double* x, const T* w,
                                                    const int64_t* cols_at,
                                                    int64_t k, int64_t cols,
                                                    double* s, double* a) {
  const __m256d abs_mask =
      _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff));
  const __m256d start = _mm256_set1_pd(kTwoSumStart);
  int64_t j = 0;
  for (; j + 2 <= cols; j += 2) {
    const T* r0 = w + cols_at[j];
    const T* r1 = w + cols_at[j + 1];
    __m256d s00 = start, s01 = start, s10 = start, s11 = start;
    __m256d a00 = _mm256_setzero_pd(), a01 = a00, a10 = a00, a11 = a00;
    int64_t c = 0;
    for (; c + 8 <= k; c += 8) {
      const __m256d x0 = _mm256_loadu_pd(x + c);
      const __m256d x1 = _mm256_loadu_pd(x + c + 4);
      __m256d b0l, b0h, b1l, b1h;
      Widen8Avx2<kCodes>(r0 + c, &b0l, &b0h);
      Widen8Avx2<kCodes>(r1 + c, &b1l, &b1h);
      const __m256d p00 = _mm256_mul_pd(x0, b0l);
      const __m256d p01 = _mm256_mul_pd(x1, b0h);
      const __m256d p10 = _mm256_mul_pd(x0, b1l);
      const __m256d p11 = _mm256_mul_pd(x1, b1h);
      s00 = _mm256_add_pd(s00, p00);
      s01 = _mm256_add_pd(s01, p01);
      s10 = _mm256_add_pd(s10, p10);
      s11 = _mm256_add_pd(s11, p11);
      a00 = _mm256_add_pd(a00, _mm256_and_pd(p00, abs_mask));
      a01 = _mm256_add_pd(a01, _mm256_and_pd(p01, abs_mask));
      a10 = _mm256_add_pd(a10, _mm256_and_pd(p10, abs_mask));
      a11 = _mm256_add_pd(a11, _mm256_and_pd(p11, abs_mask));
    }
    DotRowFinish(s00, s01, a00, a01, x, r0, c, k, s + j, a + j);
    DotRowFinish(s10, s11, a10, a11, x, r1, c, k, s + j + 1, a + j + 1);
  }
  for (; j < cols; ++j) {
    const T* r0 = w + cols_at[j];
    __m256d s00 = start, s01 = start;
    __m256d a00 = _mm256_setzero_pd(), a01 = a00;
    int64_t c = 0;
    for (; c + 8 <= k; c += 8) {
      __m256d b0l, b0h;
      Widen8Avx2<kCodes>(r0 + c, &b0l, &b0h);
      const __m256d p00 = _mm256_mul_pd(_mm256_loadu_pd(x + c), b0l);
      const __m256d p01 = _mm256_mul_pd(_mm256_loadu_pd(x + c + 4), b0h);
      s00 = _mm256_add_pd(s00, p00);
      s01 = _mm256_add_pd(s01, p01);
      a00 = _mm256_add_pd(a00, _mm256_and_pd(p00, abs_mask));
      a01 = _mm256_add_pd(a01, _mm256_and_pd(p01, abs_mask));
    }
    DotRowFinish(s00, s01, a00, a01, x, r0, c, k, s + j, a + j);
  }
}

}  // namespace

// Declared in fast_round.h.
void TwoSum4PairSegmentBf16(TwoSum4& st0, TwoSum4& st1, const double* x0,
                            const double* x1, const uint16_t* b0,
                            const uint16_t* b1, int64_t len, int64_t stride) {
  TwoSum4PairSelect<Codes::kBf16, uint16_t, TwoSumH4>(st0, st1, x0, x1, b0, b1,
                                                      len, stride);
}

__attribute__((target_clones("avx2", "default"))) void TwoSum4PairSegmentF16(
    TwoSum4& st0, TwoSum4& st1, const double* x0, const double* x1,
    const uint16_t* b0, const uint16_t* b1, int64_t len, int64_t stride) {
  TwoSum4PairDispatch<Codes::kF16, uint16_t, TwoSumH4>(st0, st1, x0, x1, b0, b1,
                                                       len, stride);
}

void TwoSum4PairSegmentF32(TwoSum4& st0, TwoSum4& st1, const double* x0,
                           const double* x1, const float* b0, const float* b1,
                           int64_t len, int64_t stride) {
  TwoSum4PairSelect<Codes::kF32, float, TwoSumF4>(st0, st1, x0, x1, b0, b1, len,
                                                  stride);
}

// Declared in fast_round.h.
__attribute__((target_clones("avx2", "default"))) void TwoSum4SegmentBf16(
    TwoSum4& st, const double* x, const uint16_t* b, int64_t len,
    int64_t stride) {
  TwoSum4Typed<Codes::kBf16, uint16_t, TwoSumH4>(st, x, b, len, stride);
}

__attribute__((target_clones("avx2", "default"))) void TwoSum4SegmentF16(
    TwoSum4& st, const double* x, const uint16_t* b, int64_t len,
    int64_t stride) {
  TwoSum4Typed<Codes::kF16, uint16_t, TwoSumH4>(st, x, b, len, stride);
}

void StreamSumsBf16(const double* x, const uint16_t* w, const int64_t* rows,
                    int64_t k, int64_t cols, double* s, double* a) {
  if (HasAvx2()) {
    StreamSumsAvx2<Codes::kBf16>(x, w, rows, k, cols, s, a);
  } else {
    StreamSumsTyped<Codes::kBf16, uint16_t, TwoSumH4>(x, w, rows, k, cols, s,
                                                      a);
  }
}

void StreamSumsF32(const double* x, const float* w, const int64_t* rows,
                   int64_t k, int64_t cols, double* s, double* a) {
  if (HasAvx2()) {
    StreamSumsAvx2<Codes::kF32>(x, w, rows, k, cols, s, a);
  } else {
    StreamSumsTyped<Codes::kF32, float, TwoSumF4>(x, w, rows, k, cols, s, a);
  }
}

// The loop of DotRowSums* (fast_round.h): per column, two sets of four
// chains (even and odd groups of four terms) for s and for A, the tail
// terms into the first lane.
template <Codes kCodes, typename T, typename Raw>
__attribute__((always_inline)) inline void DotRowSumsTyped(
    const double* x, const T* w, const int64_t* cols_at, int64_t k,
    int64_t cols, double* s, double* a) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  const TwoSumV4 start = {kTwoSumStart, kTwoSumStart, kTwoSumStart,
                          kTwoSumStart};
  const TwoSumV4 zero = {0, 0, 0, 0};
  for (int64_t j = 0; j < cols; ++j) {
    const T* r = w + cols_at[j];
    TwoSumV4 s0 = start, s1 = start, a0 = zero, a1 = zero;
    int64_t c = 0;
    for (; c + 8 <= k; c += 8) {
      TwoSumV4 x0, x1, b0, b1;
      __builtin_memcpy(&x0, x + c, sizeof x0);
      __builtin_memcpy(&x1, x + c + 4, sizeof x1);
      WidenCodes<kCodes, T, Raw>(r + c, &b0);
      WidenCodes<kCodes, T, Raw>(r + c + 4, &b1);
      const TwoSumV4 p0 = x0 * b0, p1 = x1 * b1;
      s0 += p0;
      s1 += p1;
      a0 += (TwoSumV4)((TwoSumI4)p0 & abs_mask);
      a1 += (TwoSumV4)((TwoSumI4)p1 & abs_mask);
    }
    const TwoSumV4 sv = s0 + s1, av = a0 + a1;
    double sj = (sv[0] + sv[1]) + (sv[2] + sv[3]);
    double aj = (av[0] + av[1]) + (av[2] + av[3]);
    for (; c < k; ++c) {
      const double p = x[c] * CodeToDouble(r[c]);
      sj += p;
      aj += std::fabs(p);
    }
    s[j] = sj;
    a[j] = aj;
  }
}

namespace {
__attribute__((target_clones("avx2", "default"))) void DotRowSumsGenericBf16(
    const double* x, const uint16_t* w, const int64_t* cols_at, int64_t k,
    int64_t cols, double* s, double* a) {
  DotRowSumsTyped<Codes::kBf16, uint16_t, TwoSumH4>(x, w, cols_at, k, cols, s,
                                                    a);
}

__attribute__((target_clones("avx2", "default"))) void DotRowSumsGenericF32(
    const double* x, const float* w, const int64_t* cols_at, int64_t k,
    int64_t cols, double* s, double* a) {
  DotRowSumsTyped<Codes::kF32, float, TwoSumF4>(x, w, cols_at, k, cols, s, a);
}
}  // namespace

void DotRowSumsBf16(const double* x, const uint16_t* w, const int64_t* cols_at,
                    int64_t k, int64_t cols, double* s, double* a) {
  if (HasAvx2()) {
    DotRowSumsAvx2<Codes::kBf16>(x, w, cols_at, k, cols, s, a);
  } else {
    DotRowSumsGenericBf16(x, w, cols_at, k, cols, s, a);
  }
}

void DotRowSumsF32(const double* x, const float* w, const int64_t* cols_at,
                   int64_t k, int64_t cols, double* s, double* a) {
  if (HasAvx2()) {
    DotRowSumsAvx2<Codes::kF32>(x, w, cols_at, k, cols, s, a);
  } else {
    DotRowSumsGenericF32(x, w, cols_at, k, cols, s, a);
  }
}

// The loop of StreamSumsRows* (fast_round.h).
template <Codes kCodes, typename T, typename Raw>
__attribute__((always_inline)) inline void StreamSumsRowsTyped(
    const double* x, int64_t m, int64_t k, const T* w, const int64_t* rows,
    int64_t cols, double* s, double* a, double* wd) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  for (int64_t i = 0; i < m * cols; ++i) {
    s[i] = kTwoSumStart;
    a[i] = 0;
  }
  for (int64_t c = 0; c < k; c += 4) {
    const int64_t q = std::min<int64_t>(4, k - c);
    for (int64_t t = 0; t < q; ++t) {
      const T* r = w + rows[c + t];
      double* d = wd + t * cols;
      int64_t j = 0;
      for (; j + 4 <= cols; j += 4) {
        TwoSumV4 v;
        WidenCodes<kCodes, T, Raw>(r + j, &v);
        __builtin_memcpy(d + j, &v, sizeof v);
      }
      for (; j < cols; ++j) d[j] = CodeToDouble(r[j]);
    }
    for (int64_t i = 0; i < m; ++i) {
      const double* xi = x + i * k + c;
      double* si = s + i * cols;
      double* ai = a + i * cols;
      if (q < 4) {
        for (int64_t t = 0; t < q; ++t) {
          for (int64_t j = 0; j < cols; ++j) {
            const double p = xi[t] * wd[t * cols + j];
            si[j] += p;
            ai[j] += std::fabs(p);
          }
        }
        continue;
      }
      const TwoSumV4 x0 = {xi[0], xi[0], xi[0], xi[0]};
      const TwoSumV4 x1 = {xi[1], xi[1], xi[1], xi[1]};
      const TwoSumV4 x2 = {xi[2], xi[2], xi[2], xi[2]};
      const TwoSumV4 x3 = {xi[3], xi[3], xi[3], xi[3]};
      int64_t j = 0;
      for (; j + 4 <= cols; j += 4) {
        TwoSumV4 d0, d1, d2, d3, sv, av;
        __builtin_memcpy(&d0, wd + j, sizeof d0);
        __builtin_memcpy(&d1, wd + cols + j, sizeof d1);
        __builtin_memcpy(&d2, wd + 2 * cols + j, sizeof d2);
        __builtin_memcpy(&d3, wd + 3 * cols + j, sizeof d3);
        const TwoSumV4 p0 = x0 * d0, p1 = x1 * d1, p2 = x2 * d2, p3 = x3 * d3;
        __builtin_memcpy(&sv, si + j, sizeof sv);
        __builtin_memcpy(&av, ai + j, sizeof av);
        sv += (p0 + p1) + (p2 + p3);
        av += ((TwoSumV4)((TwoSumI4)p0 & abs_mask) +
               (TwoSumV4)((TwoSumI4)p1 & abs_mask)) +
              ((TwoSumV4)((TwoSumI4)p2 & abs_mask) +
               (TwoSumV4)((TwoSumI4)p3 & abs_mask));
        __builtin_memcpy(si + j, &sv, sizeof sv);
        __builtin_memcpy(ai + j, &av, sizeof av);
      }
      for (; j < cols; ++j) {
        const double p0 = xi[0] * wd[j], p1 = xi[1] * wd[cols + j];
        const double p2 = xi[2] * wd[2 * cols + j];
        const double p3 = xi[3] * wd[3 * cols + j];
        si[j] += (p0 + p1) + (p2 + p3);
        ai[j] +=
            (std::fabs(p0) + std::fabs(p1)) + (std::fabs(p2) + std::fabs(p3));
      }
    }
  }
}

__attribute__((target_clones("avx2", "default"))) void StreamSumsRowsBf16(
    const double* x, int64_t m, int64_t k, const uint16_t* w,
    const int64_t* rows, int64_t cols, double* s, double* a, double* wd) {
  StreamSumsRowsTyped<Codes::kBf16, uint16_t, TwoSumH4>(x, m, k, w, rows, cols,
                                                        s, a, wd);
}

__attribute__((target_clones("avx2", "default"))) void StreamSumsRowsF32(
    const double* x, int64_t m, int64_t k, const float* w, const int64_t* rows,
    int64_t cols, double* s, double* a, double* wd) {
  StreamSumsRowsTyped<Codes::kF32, float, TwoSumF4>(x, m, k, w, rows, cols, s,
                                                    a, wd);
}

__attribute__((target_clones("avx2", "default"))) void TwoSum4SegmentF32(
    TwoSum4& st, const double* x, const float* b, int64_t len, int64_t stride) {
  TwoSum4Typed<Codes::kF32, float, TwoSumF4>(st, x, b, len, stride);
}

}  // namespace hloref
