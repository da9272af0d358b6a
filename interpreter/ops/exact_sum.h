// ExactSum: an exact (long-accumulator) sum of real numbers and exact
// products of doubles, rounded once at the end to any binary float format.
// Used by dot, convolution, reduce and reduce-window (docs/numerics.md
// decision 4): the oracle's value is the correctly rounded exact sum, so
// its own error bound E_orc is zero.
//
// Representation: the value is sum_k chunk[k] * 2^(32k + kMinExp) with
// int64 chunks holding 32-bit digits plus headroom for carries (a
// Kulisch-style fixed-point accumulator split into radix-2^32 digits, as in
// Neal's "small superaccumulator"). The range covers every product of two
// doubles (2^-2148 .. 2^2048) with 64 bits of headroom, so no input can
// lose bits. Carries are propagated every 2^30 additions and at the end.
#ifndef HLOREF_INTERPRETER_OPS_EXACT_SUM_H_
#define HLOREF_INTERPRETER_OPS_EXACT_SUM_H_

#include <cstdint>

#include "spec/types/primitive_type.h"

namespace hloref {

class ExactSum {
 public:
  ExactSum() { ClearAll(); }

  // Resets to the empty sum (value +0 with "all terms -0" true).
  void Clear();

  // Adds x exactly. NaN and infinities are tracked separately: the result
  // is NaN if a NaN or both infinities were added, else the infinity.
  void Add(double x);
  // Adds a*b exactly for any doubles (TwoProduct with FMA when no
  // underflow or overflow can occur, else a 106-bit integer product).
  void AddProduct(double a, double b);
  // Adds sum_k a[k] * b[k] for n pairs whose double products are exact
  // (each operand has at most 26 significant bits, e.g. f32 and narrower).
  // The hot loop of dot and convolution: one call per output element.
  void AddExactProducts(const double* a, const double* b, int64_t n);
  // Adds (negative ? -1 : 1) * mag * 2^exp exactly; mag < 2^107, exp in
  // [-2148, 1942].
  void AddScaled(bool negative, unsigned __int128 mag, int exp);

  // The exact sum rounded to nearest-even to a binary format of
  // `precision` significand bits (<= 53) whose smallest normal exponent is
  // `emin` (subnormals follow; no upper exponent limit: the double result
  // is infinite only beyond the double range). The returned double holds
  // the rounded value exactly, so a later conversion to the format only
  // has to decide overflow. An exact zero is +0, or -0 when every term
  // added was -0 (IEEE sum rule) and at least one was added.
  double Round(int precision, int emin);
  // The exact sum rounded toward +infinity to double (for S, which the
  // comparator needs as an upper bound).
  double RoundUpToDouble();
  // Rounds to a float element type (f64, f32, f16, bf16, any f8/f6/f4).
  double RoundTo(PrimitiveType type);

  bool has_nan() const { return nan_ || (pos_inf_ && neg_inf_); }

 private:
  static constexpr int kMinExp = -2176;  // multiple of 32, below -2148
  static constexpr int kChunks = 136;    // up to 2^2176
  void ClearAll();
  void Normalize();
  // Leaves chunks lo_..hi_ as a non-negative magnitude in canonical 32-bit
  // digits; returns true when the value was negative.
  bool Canonicalize();
  // Bits [pos, pos + count) of the canonical magnitude (count <= 60).
  uint64_t Bits(int pos, int count) const;
  bool AnyBitBelow(int pos) const;
  double RoundImpl(int precision, int emin, bool up);

  int64_t chunk_[kChunks];
  int lo_;  // lowest and highest chunk touched since Clear
  int hi_;
  int64_t pending_;  // additions since the last carry propagation
  bool nan_;
  bool pos_inf_;
  bool neg_inf_;
  bool all_negative_zero_;
  bool any_term_;
};

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_EXACT_SUM_H_
