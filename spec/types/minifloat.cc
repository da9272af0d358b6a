// The generic narrow-float codec: one bit-level decoder and one correctly
// rounding encoder driven by a FloatFormat, plus the format table.
#include "spec/types/minifloat.h"

#include <cmath>
#include <cstring>

#include "spec/util/status_macros.h"

namespace hloref {
namespace {

constexpr int kNumTypes = 64;  // More than the number of PrimitiveTypes.

// Fields: type, total, exponent, mantissa, bias, sign, inf, -0, NaN.
constexpr FloatFormat kFormats[] = {
    {PrimitiveType::kF16, 16, 5, 10, 15, true, true, true, NanEncoding::kIeee},
    {PrimitiveType::kBF16, 16, 8, 7, 127, true, true, true, NanEncoding::kIeee},
    {PrimitiveType::kF32, 32, 8, 23, 127, true, true, true, NanEncoding::kIeee},
    {PrimitiveType::kF64, 64, 11, 52, 1023, true, true, true,
     NanEncoding::kIeee},
    {PrimitiveType::kF8E5M2, 8, 5, 2, 15, true, true, true, NanEncoding::kIeee},
    {PrimitiveType::kF8E4M3FN, 8, 4, 3, 7, true, false, true,
     NanEncoding::kAllOnes},
    {PrimitiveType::kF8E4M3B11FNUZ, 8, 4, 3, 11, true, false, false,
     NanEncoding::kNegativeZero},
    {PrimitiveType::kF8E5M2FNUZ, 8, 5, 2, 16, true, false, false,
     NanEncoding::kNegativeZero},
    {PrimitiveType::kF8E4M3FNUZ, 8, 4, 3, 8, true, false, false,
     NanEncoding::kNegativeZero},
    {PrimitiveType::kF8E4M3, 8, 4, 3, 7, true, true, true, NanEncoding::kIeee},
    {PrimitiveType::kF8E3M4, 8, 3, 4, 3, true, true, true, NanEncoding::kIeee},
    {PrimitiveType::kF4E2M1FN, 4, 2, 1, 1, true, false, true,
     NanEncoding::kNone},
    {PrimitiveType::kF8E8M0FNU, 8, 8, 0, 127, false, false, false,
     NanEncoding::kAllOnes},
    {PrimitiveType::kF6E3M2FN, 6, 3, 2, 3, true, false, true,
     NanEncoding::kNone},
    {PrimitiveType::kF6E2M3FN, 6, 2, 3, 1, true, false, true,
     NanEncoding::kNone},
};

// Index of each type's format in kFormats, or -1; built at compile time.
struct FormatIndex {
  int index[kNumTypes];
  constexpr FormatIndex() : index() {
    for (int& i : index) i = -1;
    for (int i = 0;
         i < static_cast<int>(sizeof(kFormats) / sizeof(kFormats[0])); ++i) {
      index[static_cast<int>(kFormats[i].type)] = i;
    }
  }
};
constexpr FormatIndex kFormatIndex;

constexpr uint64_t kF64SignMask = uint64_t{1} << 63;
constexpr uint64_t kF64ExponentMask = uint64_t{0x7FF} << 52;
constexpr uint64_t kF64FractionMask = (uint64_t{1} << 52) - 1;
constexpr uint64_t kF64QuietNan = uint64_t{0x7FF8} << 48;

uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}
double BitsDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof(d));
  return d;
}
// 2^k for -1022 <= k <= 1023.
double PowerOfTwo(int k) {
  return BitsDouble(static_cast<uint64_t>(k + 1023) << 52);
}

uint64_t LowMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}
uint64_t SignMask(const FloatFormat& f) {
  return f.has_sign ? uint64_t{1} << (f.total_bits - 1) : 0;
}
uint64_t MagnitudeMask(const FloatFormat& f) {
  return LowMask(f.exponent_bits + f.mantissa_bits);
}
uint64_t AllOnesExponent(const FloatFormat& f) {
  return LowMask(f.exponent_bits) << f.mantissa_bits;
}

// f8e8m0fnu, XLA's rule restated on the value (see the header).
uint64_t EncodeE8m0(double value) {
  // NaN, <= 0 and >= 1.5 * 2^127 (including +inf) have no encoding.
  if (!(value > 0) || value >= 0x1.8p127) return 0xFF;
  if (value < 0x1p-126) return value < 0x1.8p-127 ? 0x00 : 0x01;
  uint64_t u = DoubleBits(value);  // A normal double here.
  int biased = static_cast<int>(u >> 52);
  uint64_t fraction = u & kF64FractionMask;
  int up = fraction >= (uint64_t{1} << 51) ? 1 : 0;  // significand >= 1.5
  return static_cast<uint64_t>(biased - 1023 + 127 + up);
}

}  // namespace

const FloatFormat* FindFloatFormat(PrimitiveType type) {
  int t = static_cast<int>(type);
  if (t < 0 || t >= kNumTypes || kFormatIndex.index[t] < 0) return nullptr;
  return &kFormats[kFormatIndex.index[t]];
}

const FloatFormat& FormatOf(PrimitiveType type) {
  const FloatFormat* f = FindFloatFormat(type);
  HLOREF_CHECK(f != nullptr);
  return *f;
}

double DecodeFloat(const FloatFormat& f, uint64_t bits) {
  if (f.total_bits == 64) return BitsDouble(bits);
  bits &= LowMask(f.total_bits);
  const int m = f.mantissa_bits;
  const uint64_t sign = (bits & SignMask(f)) ? kF64SignMask : 0;
  const uint64_t magnitude = bits & MagnitudeMask(f);
  const uint64_t exponent = magnitude >> m;
  const uint64_t fraction = magnitude & LowMask(m);
  switch (f.nan) {
    case NanEncoding::kIeee:
      if (exponent == LowMask(f.exponent_bits)) {
        // Inf (fraction 0) or NaN with the fraction at the top of f64's.
        return BitsDouble(sign | kF64ExponentMask | (fraction << (52 - m)));
      }
      break;
    case NanEncoding::kAllOnes:
      if (magnitude == MagnitudeMask(f)) return BitsDouble(sign | kF64QuietNan);
      break;
    case NanEncoding::kNegativeZero:
      if (bits == SignMask(f)) return BitsDouble(kF64SignMask | kF64QuietNan);
      break;
    case NanEncoding::kNone:
      break;
  }
  if (exponent == 0 && f.has_sign) {
    // Zero or subnormal: fraction * 2^(1 - bias - m), exact.
    double v = static_cast<double>(fraction) * PowerOfTwo(1 - f.bias - m);
    return sign ? -v : v;
  }
  if (!f.has_sign && m == 0 && exponent == 0) {
    return PowerOfTwo(-f.bias);  // f8e8m0fnu 0x00 = 2^-127, no subnormals.
  }
  // Normal: rebias the exponent, move the fraction to the top.
  uint64_t e64 = exponent - static_cast<uint64_t>(f.bias) + 1023;
  return BitsDouble(sign | (e64 << 52) | (fraction << (52 - m)));
}

uint64_t EncodeFloat(const FloatFormat& f, double value,
                     OverflowMode overflow) {
  const uint64_t u = DoubleBits(value);
  if (f.total_bits == 64) return u;
  if (!f.has_sign) return EncodeE8m0(value);

  const int m = f.mantissa_bits;
  const bool negative = (u & kF64SignMask) != 0;
  const uint64_t sign = negative ? SignMask(f) : 0;
  const uint64_t abs_u = u & ~kF64SignMask;
  // Encodings to fall back on when there is no encoding for the value.
  const uint64_t max_enc = MaxFiniteEncoding(f);
  auto overflow_result = [&]() -> uint64_t {
    if (f.has_infinity) return sign | AllOnesExponent(f);
    if (overflow == OverflowMode::kSaturate || f.nan == NanEncoding::kNone) {
      return sign | max_enc;
    }
    return f.nan == NanEncoding::kAllOnes ? sign | MagnitudeMask(f)
                                          : SignMask(f);  // fnuz NaN
  };

  if (abs_u > kF64ExponentMask) {  // NaN
    switch (f.nan) {
      case NanEncoding::kIeee: {
        uint64_t payload = (abs_u & kF64FractionMask) >> (52 - m);
        if (payload == 0) payload = uint64_t{1} << (m - 1);  // quiet bit
        return sign | AllOnesExponent(f) | payload;
      }
      case NanEncoding::kAllOnes:
        return sign | MagnitudeMask(f);
      case NanEncoding::kNegativeZero:
      case NanEncoding::kNone:  // impl.convert.3: XLA's f4e2m1fn gives -0.
        return SignMask(f);
    }
  }
  if (abs_u == kF64ExponentMask) return overflow_result();  // +-inf
  if (abs_u == 0) return f.has_negative_zero ? sign : 0;

  // |value| = significand * 2^(exponent - 52), significand in [2^52, 2^53).
  int exponent = static_cast<int>(abs_u >> 52) - 1023;
  uint64_t significand = abs_u & kF64FractionMask;
  if (exponent == -1023) {  // f64 subnormal: normalise.
    int shift = __builtin_clzll(significand) - 11;
    significand <<= shift;
    exponent = -1022 - shift;
  } else {
    significand |= uint64_t{1} << 52;
  }
  // Quantum of the target grid at this magnitude: 2^(max(exponent, emin)-m).
  const int emin = 1 - f.bias;
  int shift = 52 - m + (exponent < emin ? emin - exponent : 0);
  if (shift > 63) shift = 63;  // Far below half the smallest subnormal.
  uint64_t q = significand >> shift;
  const uint64_t rest = significand & LowMask(shift);
  const uint64_t half = uint64_t{1} << (shift - 1);  // shift >= 29 here
  if (rest > half || (rest == half && (q & 1))) ++q;
  // q counts quanta. Below emin it is the encoding itself (q == 2^m is the
  // smallest normal); above, adding the biased exponent's offset makes a
  // carry out of the fraction bump the exponent, as it should.
  uint64_t magnitude = exponent < emin
                           ? q
                           : (static_cast<uint64_t>(exponent + f.bias) << m) +
                                 q - (uint64_t{1} << m);
  if (magnitude > max_enc) return overflow_result();
  if (magnitude == 0 && !f.has_negative_zero) return 0;
  return sign | magnitude;
}

uint32_t DecodeFloatToF32Bits(const FloatFormat& f, uint64_t bits) {
  return static_cast<uint32_t>(
      EncodeFloat(FormatOf(PrimitiveType::kF32), DecodeFloat(f, bits)));
}

uint64_t EncodeFloatFromF32Bits(const FloatFormat& f, uint32_t f32_bits,
                                OverflowMode overflow) {
  return EncodeFloat(f, DecodeFloat(FormatOf(PrimitiveType::kF32), f32_bits),
                     overflow);
}

uint64_t XlaF32BitsToF8e8m0fnu(uint32_t f32_bits) {
  if (f32_bits > 0x400000 && f32_bits < 0x600000) return 0x01;  // the carry
  return EncodeFloatFromF32Bits(FormatOf(PrimitiveType::kF8E8M0FNU), f32_bits);
}

double MinifloatToDouble(PrimitiveType type, uint64_t bits) {
  return DecodeFloat(FormatOf(type), bits);
}

uint64_t MinifloatFromDouble(PrimitiveType type, double value,
                             OverflowMode overflow) {
  return EncodeFloat(FormatOf(type), value, overflow);
}

uint64_t MaxFiniteEncoding(const FloatFormat& f) {
  switch (f.nan) {
    case NanEncoding::kIeee:  // Largest exponent below all ones, fraction 1s.
      return AllOnesExponent(f) - 1;
    case NanEncoding::kAllOnes:  // Everything below the NaN pattern.
      return MagnitudeMask(f) - 1;
    case NanEncoding::kNegativeZero:
    case NanEncoding::kNone:
      return MagnitudeMask(f);
  }
  return 0;
}

double MaxFinite(const FloatFormat& f) {
  return DecodeFloat(f, MaxFiniteEncoding(f));
}

double MinNormal(const FloatFormat& f) {
  if (!f.has_sign) return DecodeFloat(f, 0);  // f8e8m0fnu: 2^-127
  return DecodeFloat(f, uint64_t{1} << f.mantissa_bits);
}

double MinSubnormal(const FloatFormat& f) {
  if (f.mantissa_bits == 0) return MinNormal(f);
  return DecodeFloat(f, 1);
}

int Digits10(const FloatFormat& f) {
  constexpr double kLog10Of2 = 0.30102999566398119521;
  return static_cast<int>(std::floor((Precision(f) - 1) * kLog10Of2));
}

int MaxDigits10(const FloatFormat& f) {
  constexpr double kLog10Of2 = 0.30102999566398119521;
  return static_cast<int>(std::ceil(1.0 + Precision(f) * kLog10Of2));
}

bool IsNanEncoding(const FloatFormat& f, uint64_t bits) {
  bits &= LowMask(f.total_bits);
  const uint64_t magnitude = bits & MagnitudeMask(f);
  switch (f.nan) {
    case NanEncoding::kIeee:
      return magnitude > AllOnesExponent(f);
    case NanEncoding::kAllOnes:
      return magnitude == MagnitudeMask(f);
    case NanEncoding::kNegativeZero:
      return bits == SignMask(f);
    case NanEncoding::kNone:
      return false;
  }
  return false;
}

bool IsInfEncoding(const FloatFormat& f, uint64_t bits) {
  return f.has_infinity && (bits & MagnitudeMask(f)) == AllOnesExponent(f);
}

bool IsNegativeZeroEncoding(const FloatFormat& f, uint64_t bits) {
  return f.has_negative_zero && (bits & LowMask(f.total_bits)) == SignMask(f);
}

uint64_t NegateEncoding(const FloatFormat& f, uint64_t bits) {
  bits &= LowMask(f.total_bits);
  if (!f.has_sign) return 0xFF;  // f8e8m0fnu: -x is never representable.
  if (!f.has_negative_zero && (bits & MagnitudeMask(f)) == 0) {
    return bits;  // fnuz: +0 stays +0, NaN (0x80) stays NaN.
  }
  return bits ^ SignMask(f);
}

uint64_t CanonicalNan(const FloatFormat& f) {
  switch (f.nan) {
    case NanEncoding::kIeee:  // Exponent all ones, quiet bit only.
      return AllOnesExponent(f) | (uint64_t{1} << (f.mantissa_bits - 1));
    case NanEncoding::kAllOnes:
      return MagnitudeMask(f);
    case NanEncoding::kNegativeZero:
      return SignMask(f);
    case NanEncoding::kNone:
      return 0;
  }
  return 0;
}

}  // namespace hloref
