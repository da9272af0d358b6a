// One generic description of the narrow binary floating-point formats
// (f16, bf16, every f8 variant, f6 and f4e2m1fn) with exact decoding and
// correctly rounded encoding. f32 and f64 are described too, so code can
// ask for any float type's parameters in one place.
//
// Encoding rules per type (see docs/numerics.md section 3.2 for XLA's
// overflow behaviour):
//   f16, bf16, f8e5m2, f8e4m3, f8e3m4   IEEE-like: inf and NaN (all-ones
//                                        exponent), signed zero
//   f8e4m3fn                             no inf; NaN only S.1111.111;
//                                        overflow -> NaN (non-saturating)
//   f8e4m3fnuz, f8e5m2fnuz, f8e4m3b11fnuz  no inf, no -0; NaN only 0x80
//                                        (the negative-zero encoding);
//                                        overflow -> NaN
//   f4e2m1fn, f6e2m3fn, f6e3m2fn          finite only: no inf, no NaN;
//                                        overflow saturates, NaN input has
//                                        no encoding (see EncodeFloat)
//   f8e8m0fnu                            unsigned, exponent only: value
//                                        2^(e-127); 0xFF is NaN; no zero
#ifndef HLOREF_SPEC_TYPES_MINIFLOAT_H_
#define HLOREF_SPEC_TYPES_MINIFLOAT_H_

#include <cstdint>

#include "spec/types/primitive_type.h"

namespace hloref {

enum class NanEncoding : uint8_t {
  kIeee,          // exponent all ones, mantissa non-zero
  kAllOnes,       // only the all-ones exponent and mantissa (the "fn" types)
  kNegativeZero,  // only sign=1, rest 0 (the "fnuz" types)
  kNone,          // no NaN (finite-only types)
};

struct FloatFormat {
  PrimitiveType type;
  int total_bits;     // 16, 8, 6, 4 (32/64 for f32/f64)
  int exponent_bits;
  int mantissa_bits;  // explicit fraction bits
  int bias;
  bool has_sign;      // false only for f8e8m0fnu
  bool has_infinity;
  bool has_negative_zero;
  NanEncoding nan;
};

// The format of a float type; HLOREF_CHECK-fails for non-float types.
const FloatFormat& FormatOf(PrimitiveType type);

// Exact value of an encoding (bits in the low total_bits). NaN encodings
// decode to a NaN whose sign is the encoding's sign bit.
double DecodeFloat(const FloatFormat& format, uint64_t bits);

// What a value outside the finite range becomes when the type has no
// infinity. kXla is XLA's convert behaviour (NaN for types with NaN;
// saturate to the largest finite value for finite-only types).
enum class OverflowMode : uint8_t { kXla, kSaturate };

// Rounds `value` to the format, round-to-nearest-even, including the
// subnormal range; correct for any double input (so also for any float,
// which converts to double exactly). Overflow: infinity when the type has
// it, otherwise per `overflow`. NaN input: the type's canonical NaN (sign
// kept where the encoding allows); for finite-only types, +0 under kXla
// (XLA's choice, impl.convert.3). -0 on types without -0 gives +0.
// f8e8m0fnu rounds on the exponent as XLA does (numerics.md 3.2).
uint64_t EncodeFloat(const FloatFormat& format, double value,
                     OverflowMode overflow = OverflowMode::kXla);

// Convenience wrappers.
double MinifloatToDouble(PrimitiveType type, uint64_t bits);
uint64_t MinifloatFromDouble(PrimitiveType type, double value,
                             OverflowMode overflow = OverflowMode::kXla);

// Largest finite value, smallest positive normal and smallest positive
// subnormal (equal to the smallest normal when the type has none).
double MaxFinite(const FloatFormat& format);
double MinNormal(const FloatFormat& format);
double MinSubnormal(const FloatFormat& format);
// Significand precision p (mantissa_bits + 1).
inline int Precision(const FloatFormat& f) { return f.mantissa_bits + 1; }

// Classification of an encoding without decoding it.
bool IsNanEncoding(const FloatFormat& format, uint64_t bits);
bool IsInfEncoding(const FloatFormat& format, uint64_t bits);
// The canonical quiet NaN XLA produces for the type (0x7E00 for f16,
// 0x7FC0 for bf16, 0x7F for f8e4m3fn, 0x80 for fnuz, 0xFF for e8m0);
// for finite-only types returns 0.
uint64_t CanonicalNan(const FloatFormat& format);

}  // namespace hloref

#endif  // HLOREF_SPEC_TYPES_MINIFLOAT_H_
