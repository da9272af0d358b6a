// Numerics helpers shared by the element-wise families: loading any array
// literal into a wide working type (double, int64, complex<double>),
// storing it back with exactly one rounding, type dispatch once per
// instruction, and MPFR-backed correctly rounded transcendentals.
//
// docs/numerics.md decision 3: +, -, *, /, sqrt and conversions on f32 and
// narrower types are computed in f64 and rounded once to the output type.
// f64 has p = 53 >= 2p + 2 for every narrower type, so the double rounding
// is innocuous for those operations (numerics.md section 5). Transcendentals
// are computed with MPFR at 200 bits and delivered as a double that is
// either the correctly rounded f64 (for f64 outputs) or rounded to odd
// (for narrower outputs), so that the final round-to-nearest-even store
// into the output type is the correctly rounded result (Boldo-Melquiond:
// rounding to odd at precision p + 2 or more, then to nearest at p, is
// correct rounding).
#ifndef HLOREF_INTERPRETER_NUMERICS_H_
#define HLOREF_INTERPRETER_NUMERICS_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "spec/types/literal.h"
#include "spec/types/minifloat.h"
#include "spec/types/primitive_type.h"
#include "spec/types/shape.h"

namespace hloref {

template <PrimitiveType T>
using TypeConstant = std::integral_constant<PrimitiveType, T>;

// Calls f(TypeConstant<T>{}) for the float type `type`: the one switch per
// instruction that selects the template instance for the storage type.
// Returns InvalidArgument for a non-float type.
#define HLOREF_FLOAT_TYPES(V)                                              \
  V(kF16)                                                                  \
  V(kBF16)                                                                 \
  V(kF32) V(kF64) V(kF8E5M2) V(kF8E4M3FN) V(kF8E4M3B11FNUZ) V(kF8E5M2FNUZ) \
      V(kF8E4M3FNUZ) V(kF8E4M3) V(kF8E3M4) V(kF4E2M1FN) V(kF8E8M0FNU)      \
          V(kF6E3M2FN) V(kF6E2M3FN)
#define HLOREF_INT_TYPES(V)                                                \
  V(kPred)                                                                 \
  V(kS1)                                                                   \
  V(kS2) V(kS4) V(kS8) V(kS16) V(kS32) V(kS64) V(kU1) V(kU2) V(kU4) V(kU8) \
      V(kU16) V(kU32) V(kU64)

// Width and signedness of an integer-like type (pred is unsigned, width 1
// for arithmetic).
inline int IntWidth(PrimitiveType t) {
  return t == PrimitiveType::kPred ? 1 : BitWidth(t);
}

// Wraps `v` to `width` bits: sign-extended for signed types, zero-extended
// (the bit pattern) for unsigned ones. For u64 the result is the bit
// pattern held in an int64.
inline int64_t WrapToWidth(uint64_t v, int width, bool is_signed) {
  if (width >= 64) return static_cast<int64_t>(v);
  const uint64_t mask = (uint64_t{1} << width) - 1;
  v &= mask;
  if (is_signed && (v >> (width - 1)) != 0) v |= ~mask;
  return static_cast<int64_t>(v);
}

// ---- Float element traits: exact load into double, one rounding on store.

// How a double is stored into a narrow float type.
enum class NarrowPath : uint8_t {
  kDirect,  // round to nearest even once (decision 3)
  kViaF16,  // XLA's f8 conversion path: round to f16 first, then to the
            // target (numerics.md 3.2; impl.convert.4)
};

template <PrimitiveType T>
inline double LoadFloat(StorageType<T> v) {
  if constexpr (T == PrimitiveType::kF32 || T == PrimitiveType::kF64) {
    return static_cast<double>(v);
  } else {
    return MinifloatToDouble(T, v);
  }
}

template <PrimitiveType T>
inline StorageType<T> StoreFloat(double v) {
  if constexpr (T == PrimitiveType::kF32) {
    return static_cast<float>(v);  // IEEE conversion: RNE, subnormals, inf
  } else if constexpr (T == PrimitiveType::kF64) {
    return v;
  } else {
    return static_cast<StorageType<T>>(MinifloatFromDouble(T, v));
  }
}

// True for the narrow types XLA produces only from f16 (numerics.md 3.2).
inline bool XlaConvertsViaF16(PrimitiveType t) {
  return t == PrimitiveType::kF8E5M2 || t == PrimitiveType::kF8E4M3FN ||
         t == PrimitiveType::kF8E4M3B11FNUZ || t == PrimitiveType::kF4E2M1FN;
}

// ---- Whole-array load / store in the working types. Each does its type
// switch once and loops inside the selected template instance.

// Float arrays (every float type) as exact doubles.
absl::StatusOr<std::vector<double>> LoadDoubles(const Literal& lit);
// A new literal of `shape` (a float type) from `values`, each rounded once
// (RNE) to the element type; kViaF16 rounds to f16 first.
absl::StatusOr<Literal> StoreDoubles(const Shape& shape,
                                     absl::Span<const double> values,
                                     NarrowPath path = NarrowPath::kDirect);

// Integer and pred arrays as int64: signed types sign-extended, unsigned
// types zero-extended (u64 keeps its bit pattern).
absl::StatusOr<std::vector<int64_t>> LoadInts(const Literal& lit);
// A new literal of `shape` (integer or pred) from `values`, wrapped to the
// width (pred: v & 1, callers normalise to 0/1 where they mean truth).
absl::StatusOr<Literal> StoreInts(const Shape& shape,
                                  absl::Span<const int64_t> values);

// Complex arrays as complex<double> (c64 widened exactly).
absl::StatusOr<std::vector<std::complex<double>>> LoadComplex(
    const Literal& lit);
absl::StatusOr<Literal> StoreComplex(
    const Shape& shape, absl::Span<const std::complex<double>> values);

// The shape of `like` with element type `type` (layout kept).
Shape WithElementType(const Shape& like, PrimitiveType type);

// ---- Correctly rounded functions (MPFR).

enum class MathFn : uint8_t {
  kAcos,
  kAcosh,
  kAsin,
  kAsinh,
  kAtanh,
  kCbrt,
  kCos,
  kCosh,
  kErf,
  kExp,
  kExpm1,
  kLog,
  kLog1p,
  kLogistic,  // 1 / (1 + exp(-x)), evaluated at 200 bits (error < 2^-190
              // relative before the final rounding)
  kRsqrt,
  kSin,
  kSinh,
  kTan,
  kTanh,
};
enum class MathFn2 : uint8_t { kAtan2, kHypot, kPow };

// What the caller will do with the double: kF64 wants the correctly
// rounded double; kNarrower wants a round-to-odd double to be rounded
// (once, to nearest even) into a type of precision <= 51 bits.
enum class ResultPrecision : uint8_t { kF64, kNarrower };

inline ResultPrecision PrecisionFor(PrimitiveType t) {
  return t == PrimitiveType::kF64 ? ResultPrecision::kF64
                                  : ResultPrecision::kNarrower;
}

double EvalMath(MathFn fn, double x, ResultPrecision precision);
double EvalMath2(MathFn2 fn, double x, double y, ResultPrecision precision);

// Maximum / minimum with XLA's non-fast semantics (llvm.maximum/minimum,
// IEEE 754-2019 maximum/minimum): NaN if either operand is NaN, and
// -0 < +0 (impl.maximum.1, impl.minimum.1).
inline double XlaMax(double a, double b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline double XlaMin(double a, double b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Bits of a float element of any float type (f32/f64 via memcpy).
template <PrimitiveType T>
inline uint64_t FloatBits(StorageType<T> v) {
  if constexpr (T == PrimitiveType::kF32) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else if constexpr (T == PrimitiveType::kF64) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  } else {
    return static_cast<uint64_t>(v);
  }
}

// Calls fn(TypeConstant<T>{}) for the float (or integer/pred) type
// `type`: the one type dispatch of an instruction.
template <typename Fn>
absl::Status ForFloatType(PrimitiveType type, Fn&& fn) {
  switch (type) {
#define HLOREF_CASE(e)                    \
  case PrimitiveType::e:                  \
    fn(TypeConstant<PrimitiveType::e>{}); \
    return absl::OkStatus();
    HLOREF_FLOAT_TYPES(HLOREF_CASE)
#undef HLOREF_CASE
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("expected a floating-point element type, got ",
                       PrimitiveTypeName(type)));
  }
}

template <typename Fn>
absl::Status ForIntType(PrimitiveType type, Fn&& fn) {
  switch (type) {
#define HLOREF_CASE(e)                    \
  case PrimitiveType::e:                  \
    fn(TypeConstant<PrimitiveType::e>{}); \
    return absl::OkStatus();
    HLOREF_INT_TYPES(HLOREF_CASE)
#undef HLOREF_CASE
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("expected an integer or pred element type, got ",
                       PrimitiveTypeName(type)));
  }
}


}  // namespace hloref

#endif  // HLOREF_INTERPRETER_NUMERICS_H_
