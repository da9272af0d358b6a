// One generic description of the narrow binary floating-point formats
// (f16, bf16, every f8 variant, f6 and f4e2m1fn) with exact decoding and
// correctly rounded encoding. f32 and f64 are described too, so code can
// ask for any float type's parameters in one place.
//
// Formats (value of a finite encoding with exponent field e, fraction f of
// m bits: e == 0 ? f * 2^(1-bias-m) : (2^m + f) * 2^(e-bias-m)):
//   type            e  m  bias  max finite   specials
//   f16             5 10   15   65504        IEEE: inf, NaN = exp all ones
//   bf16            8  7  127   ~3.39e38     IEEE
//   f8e5m2          5  2   15   57344        IEEE
//   f8e4m3          4  3    7   240          IEEE
//   f8e3m4          3  4    3   15.5         IEEE
//   f8e4m3fn        4  3    7   448 (0x7E)   no inf; NaN only S.1111.111
//   f8e4m3fnuz      4  3    8   240          no inf, no -0; NaN only 0x80
//   f8e5m2fnuz      5  2   16   57344        no inf, no -0; NaN only 0x80
//   f8e4m3b11fnuz   4  3   11   30           no inf, no -0; NaN only 0x80
//   f4e2m1fn        2  1    1   6            finite only (no inf, no NaN)
//   f6e2m3fn        2  3    1   7.5          finite only
//   f6e3m2fn        3  2    3   28           finite only
//   f8e8m0fnu       8  0  127   2^127        unsigned, exponent only: value
//                                            2^(b-127) for b in 0..254 (no
//                                            zero, no subnormals); 0xFF NaN
//
// Encoding from a double (EncodeFloat), as XLA's convert emitters do it
// (openxla/xla elemental_ir_emitter.cc, float8_fnuz_ir_emitter.cc; see
// docs/numerics.md section 3.2), except that this is ONE rounding of the
// exact value:
//   * Round to nearest, ties to the even encoding, on the grid of the type
//     including its subnormals; above the largest binade the grid continues
//     with the same spacing, and a value whose rounded result lies past the
//     largest finite value overflows. So f8e4m3fn's 464 (the midpoint of 448
//     and the non-existent 480) rounds to 448 and anything above 464 is NaN.
//   * Overflow (and +-inf input): infinity for the IEEE types; NaN for the
//     fn/fnuz f8 types (non-saturating, like XLA and ml_dtypes); +-max for
//     the finite-only f4/f6 types (XLA's f4e2m1fn emitter saturates; we
//     apply the same rule to f6). OverflowMode::kSaturate instead gives
//     +-max for every type without infinity (the OCP "satfinite" mode).
//   * NaN input: IEEE types keep the sign and the TOP payload bits of the
//     double's fraction (the fraction is truncated, as hardware narrowing
//     does); the quiet bit is not forced, so a signalling encoding survives
//     a round trip, and only when truncation leaves a zero fraction is the
//     quiet bit set. fn types give S.1..1 (sign kept); fnuz types 0x80;
//     f8e8m0fnu 0xFF. Finite-only types have no NaN: XLA's f4e2m1fn emitter
//     returns the negative-zero encoding (sign bit only) for any NaN, and we
//     do the same for f6 (impl.convert.3). ml_dtypes differs: it gives -0
//     for +NaN and +0 for -NaN.
//   * -0 on types without -0 (fnuz) gives +0; so does any negative value
//     that rounds to zero there.
//   * f8e8m0fnu follows XLA's EmitF32ToF8e8m0fnu, restated on the value v:
//     v NaN, v <= 0 (including -0 and -inf) or v >= 1.5 * 2^127 (including
//     +inf) -> 0xFF (NaN); v < 2^-127 -> 0x00 (2^-127, the smallest value;
//     there is no zero); otherwise v = s * 2^k with 1 <= s < 2 gives
//     2^(k+1) when s >= 1.5 and 2^k otherwise (nearest, ties round UP;
//     ml_dtypes instead ties to the even encoding, so 3.0 gives 4 here and
//     2 there). One deviation from the emitter: XLA adds half an exponent
//     step to the f32 bit pattern, which also carries for the f32
//     subnormals in (2^-127, 1.5 * 2^-127), so XLA gives 2^-126 (0x01)
//     there while EncodeFloat gives the nearer 2^-127 (0x00) (which keeps
//     printed literals such as 5.9e-39 reading back as 0x00).
//     XlaF32BitsToF8e8m0fnu reproduces the emitter bit for bit.
//   XLA produces f8e5m2, f8e4m3fn, f8e4m3b11fnuz and f4e2m1fn from f16
//   only (a wider source is first rounded to f16), integers reach every f8
//   type through f16, and f8e8m0fnu is produced from f32; those two-step
//   paths can double-round (numerics.md 3.2). EncodeFloat is the single
//   correct rounding; the convert evaluator reproduces XLA's steps by
//   calling it once per step.
//
// Decoding (DecodeFloat) is exact. NaN encodings decode to a NaN with the
// encoding's sign; for IEEE types the fraction bits go to the TOP of the
// double's fraction (as hardware widening does), so DecodeFloat followed by
// EncodeFloat returns every encoding unchanged (NaNs included), and so does
// the f32 pair DecodeFloatToF32Bits / EncodeFloatFromF32Bits. NaN encodings
// without payload bits (fn, fnuz, f8e8m0fnu) decode to the default quiet NaN
// (0x7FF8000000000000 with the encoding's sign; fnuz's 0x80 is -NaN).
//
// Canonical NaNs (what XLA produces; CanonicalNan): f16 0x7E00, bf16
// 0x7FC0, f32 0x7FC00000, f64 0x7FF8000000000000, f8e5m2 0x7E, f8e4m3
// 0x7C, f8e3m4 0x78, f8e4m3fn 0x7F, every fnuz type 0x80, f8e8m0fnu 0xFF.
#ifndef HLOREF_SPEC_TYPES_MINIFLOAT_H_
#define HLOREF_SPEC_TYPES_MINIFLOAT_H_

#include <cstdint>

#include "spec/types/primitive_type.h"

namespace hloref {

enum class NanEncoding : uint8_t {
  kIeee,          // exponent all ones, mantissa non-zero
  kAllOnes,       // only the all-ones exponent and mantissa (the "fn" types
                  // and f8e8m0fnu)
  kNegativeZero,  // only sign=1, rest 0 (the "fnuz" types)
  kNone,          // no NaN (finite-only types)
};

struct FloatFormat {
  PrimitiveType type;
  int total_bits;  // 16, 8, 6, 4 (32/64 for f32/f64)
  int exponent_bits;
  int mantissa_bits;  // explicit fraction bits
  int bias;
  bool has_sign;  // false only for f8e8m0fnu
  bool has_infinity;
  bool has_negative_zero;
  NanEncoding nan;
};

// The format of a float type; HLOREF_CHECK-fails for non-float types.
const FloatFormat& FormatOf(PrimitiveType type);
// The format of a float type, or nullptr for any other type.
const FloatFormat* FindFloatFormat(PrimitiveType type);

// Exact value of an encoding (bits in the low total_bits; higher bits are
// ignored). NaN payloads as described at the top of this file.
double DecodeFloat(const FloatFormat& format, uint64_t bits);

// What a value outside the finite range becomes when the type has no
// infinity. kXla is XLA's convert behaviour (NaN for types with NaN;
// saturate to the largest finite value for finite-only types). kSaturate:
// +-max for every type without infinity (IEEE types still overflow to inf).
enum class OverflowMode : uint8_t { kXla, kSaturate };

// Rounds `value` to the format (rules at the top of this file); correct for
// any double input, so also for any float, which converts to double
// exactly. Returns the encoding in the low total_bits.
uint64_t EncodeFloat(const FloatFormat& format, double value,
                     OverflowMode overflow = OverflowMode::kXla);

// The f32 entry points work on bit patterns so that a signalling NaN is
// never quieted by a float<->double conversion on the way.
// The f32 encoding of the value (every value of every format narrower than
// f32 is an f32 value; NaN payloads are placed at the top of f32's
// fraction). For f64 this rounds like EncodeFloat(FormatOf(kF32), ...).
uint32_t DecodeFloatToF32Bits(const FloatFormat& format, uint64_t bits);
// EncodeFloat of the f32 value with bit pattern `f32_bits`.
uint64_t EncodeFloatFromF32Bits(const FloatFormat& format, uint32_t f32_bits,
                                OverflowMode overflow = OverflowMode::kXla);

// XLA's f32 -> f8e8m0fnu convert exactly, including its carry for f32
// subnormals in (2^-127, 1.5 * 2^-127) (see the top of this file).
uint64_t XlaF32BitsToF8e8m0fnu(uint32_t f32_bits);

// Convenience wrappers.
double MinifloatToDouble(PrimitiveType type, uint64_t bits);
uint64_t MinifloatFromDouble(PrimitiveType type, double value,
                             OverflowMode overflow = OverflowMode::kXla);

// Largest finite value, smallest positive normal and smallest positive
// subnormal (equal to the smallest normal when the type has none, as for
// f8e8m0fnu, whose smallest value 2^-127 is both).
double MaxFinite(const FloatFormat& format);
double MinNormal(const FloatFormat& format);
double MinSubnormal(const FloatFormat& format);
// The encoding of MaxFinite (positive).
uint64_t MaxFiniteEncoding(const FloatFormat& format);
// Significand precision p (mantissa_bits + 1).
inline int Precision(const FloatFormat& f) { return f.mantissa_bits + 1; }
// std::numeric_limits-style digit counts from the precision p, as ml_dtypes
// defines them for every narrow type (and as C17 5.2.4.2.2 defines them):
// digits10 = floor((p - 1) * log10(2)), max_digits10 = ceil(1 + p *
// log10(2)). max_digits10 significant decimal digits (printf "%.*g")
// always read back to the same value; XLA's literal printer uses it for
// the narrow types. f32: 6/9, f64: 15/17, f16: 3/5, bf16: 2/4.
int Digits10(const FloatFormat& format);
int MaxDigits10(const FloatFormat& format);

// Classification of an encoding without decoding it.
bool IsNanEncoding(const FloatFormat& format, uint64_t bits);
bool IsInfEncoding(const FloatFormat& format, uint64_t bits);
// True only for the -0 encoding of a type that has -0 (never for fnuz's
// 0x80, which is NaN).
bool IsNegativeZeroEncoding(const FloatFormat& format, uint64_t bits);
// The encoding of -x: the sign bit flipped, except that fnuz types map +0
// to +0 and keep their NaN 0x80, and f8e8m0fnu (unsigned) maps everything
// to NaN 0xFF (-x is never representable there).
uint64_t NegateEncoding(const FloatFormat& format, uint64_t bits);
// The canonical quiet NaN XLA produces for the type (list at the top of
// this file); for finite-only types returns 0.
uint64_t CanonicalNan(const FloatFormat& format);

}  // namespace hloref

#endif  // HLOREF_SPEC_TYPES_MINIFLOAT_H_
