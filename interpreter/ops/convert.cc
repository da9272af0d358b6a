// The convert family. Implements seed 001 "ConvertElementType",
// "BitcastConvertType" (including width-changing forms), "ReducePrecision"
// and stochastic-convert (docs/hlo-text-format.md 6.2, XLA's
// StochasticConvertDecomposer semantics).
#include "interpreter/ops/convert.h"

#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/families.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

void Mark(EvalContext* ctx, size_t i, absl::string_view id) {
  if (ctx != nullptr) ctx->MarkImplDefined(0, static_cast<int64_t>(i), id);
}

// An integer as a double rounded to odd (truncate to 53 bits, set the last
// bit when bits were dropped), so that one more round-to-nearest-even into
// any type of precision <= 51 bits is the correctly rounded conversion.
double IntToDoubleRoundOdd(int64_t v, bool is_unsigned) {
  const bool negative = !is_unsigned && v < 0;
  uint64_t m =
      negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  double d;
  if (m < (uint64_t{1} << 53)) {
    d = static_cast<double>(m);
  } else {
    const int shift = (64 - std::countl_zero(m)) - 53;
    uint64_t kept = m >> shift;
    if ((m & ((uint64_t{1} << shift) - 1)) != 0) kept |= 1;
    d = std::ldexp(static_cast<double>(kept), shift);
  }
  return negative ? -d : d;
}

// Correctly rounded int -> double (RNE), as sitofp/uitofp.
double IntToDoubleNearest(int64_t v, bool is_unsigned) {
  return is_unsigned ? static_cast<double>(static_cast<uint64_t>(v))
                     : static_cast<double>(v);
}

// Float -> integer per XLA (numerics.md 3.2): truncate toward zero,
// saturate to the type's range, NaN -> 0 (impl.convert.1, impl.convert.2).
int64_t FloatToInt(double x, int width, bool is_signed, bool* impl_defined) {
  *impl_defined = false;
  if (std::isnan(x)) {
    *impl_defined = true;
    return 0;
  }
  const double t = std::trunc(x);
  if (is_signed) {
    const double lo = -std::ldexp(1.0, width - 1);
    const double hi = std::ldexp(1.0, width - 1);  // exclusive
    if (t < lo) {
      *impl_defined = true;
      return WrapToWidth(uint64_t{1} << (width - 1), width, true);
    }
    if (t >= hi) {
      *impl_defined = true;
      return width >= 64 ? std::numeric_limits<int64_t>::max()
                         : (int64_t{1} << (width - 1)) - 1;
    }
    return static_cast<int64_t>(t);
  }
  const double hi = std::ldexp(1.0, width);  // exclusive
  if (t < 0) {
    *impl_defined = true;
    return 0;
  }
  if (t >= hi) {
    *impl_defined = true;
    return width >= 64 ? -1 : static_cast<int64_t>((uint64_t{1} << width) - 1);
  }
  return static_cast<int64_t>(static_cast<uint64_t>(t));
}

bool IsFiniteOnly(PrimitiveType t) {
  return t == PrimitiveType::kF4E2M1FN || t == PrimitiveType::kF6E2M3FN ||
         t == PrimitiveType::kF6E3M2FN;
}

// Marks the elements where two candidate results differ in bits.
void MarkDifferences(const Literal& a, const Literal& b, absl::string_view id,
                     EvalContext* ctx) {
  if (ctx == nullptr) return;
  const size_t bytes = static_cast<size_t>(StorageBytes(a.element_type()));
  auto ra = a.raw();
  auto rb = b.raw();
  const size_t n = static_cast<size_t>(a.element_count());
  for (size_t i = 0; i < n; ++i) {
    if (std::memcmp(ra.data() + i * bytes, rb.data() + i * bytes, bytes) != 0) {
      Mark(ctx, i, id);
    }
  }
}

// float -> float.
absl::StatusOr<Literal> FloatToFloat(const Literal& operand,
                                     const Shape& out_shape, EvalContext* ctx) {
  const PrimitiveType from = operand.element_type();
  const PrimitiveType to = out_shape.element_type();
  // bf16 <-> f32 on the bits (bf16 is the upper half of an f32; narrowing
  // is round-to-nearest-even on the dropped half, overflow to infinity and
  // subnormals included, both formats sharing the exponent range): the
  // values the general path gives; operands holding a NaN take the general
  // path (payload handling).
  if ((from == PrimitiveType::kBF16 && to == PrimitiveType::kF32) ||
      (from == PrimitiveType::kF32 && to == PrimitiveType::kBF16)) {
    const int64_t n = operand.element_count();
    Literal out = ctx != nullptr ? ctx->NewUninitialized(out_shape)
                                 : Literal::Uninitialized(out_shape);
    bool nan = false;
    const uint8_t* in = operand.raw().data();
    uint8_t* dst = out.mutable_raw().data();
    if (from == PrimitiveType::kBF16) {
      for (int64_t i = 0; i < n && !nan; ++i) {
        uint16_t h;
        std::memcpy(&h, in + 2 * i, 2);
        nan = (h & 0x7fff) > 0x7f80;
        const uint32_t bits = static_cast<uint32_t>(h) << 16;
        std::memcpy(dst + 4 * i, &bits, 4);
      }
    } else {
      for (int64_t i = 0; i < n && !nan; ++i) {
        uint32_t bits;
        std::memcpy(&bits, in + 4 * i, 4);
        nan = (bits & 0x7fffffffu) > 0x7f800000u;
        const uint16_t h =
            static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
        std::memcpy(dst + 2 * i, &h, 2);
      }
    }
    if (!nan) return out;
  }
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> x, LoadDoubles(operand));
  HLOREF_ASSIGN_OR_RETURN(Literal out, StoreDoubles(out_shape, x));
  if (XlaConvertsViaF16(to) && from != PrimitiveType::kF16) {
    // impl.convert.4: XLA produces f8e5m2, f8e4m3fn, f8e4m3b11fnuz and
    // f4e2m1fn from f16 only, so a wider source is rounded twice; the
    // portable profile allows the direct rounding too.
    HLOREF_ASSIGN_OR_RETURN(Literal via,
                            StoreDoubles(out_shape, x, NarrowPath::kViaF16));
    MarkDifferences(via, out, "impl.convert.4", ctx);
    out = std::move(via);
  }
  // Only finite-only types and types without infinity have marks to set.
  if (ctx != nullptr && (IsFiniteOnly(to) || !FormatOf(to).has_infinity)) {
    const FloatFormat& f = FormatOf(to);
    for (size_t i = 0; i < x.size(); ++i) {
      // impl.convert.3: NaN (-> +0) and overflow (-> saturation) into the
      // finite-only types. impl.convert.5: overflow into a type with NaN
      // but no infinity gives NaN (non-saturating, XLA and ml_dtypes; OCP
      // "satfinite" converters saturate).
      const bool became_nan =
          !std::isnan(x[i]) &&
          std::isnan(out.GetAsDouble(static_cast<int64_t>(i)));
      if (IsFiniteOnly(to) &&
          (std::isnan(x[i]) || std::fabs(x[i]) > MaxFinite(f))) {
        Mark(ctx, i, "impl.convert.3");
      } else if (!f.has_infinity && became_nan && f.has_sign) {
        Mark(ctx, i, "impl.convert.5");
      }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> ConvertLiteral(const Literal& operand, PrimitiveType to,
                                       EvalContext* ctx) {
  const PrimitiveType from = operand.element_type();
  Shape out_shape = WithElementType(operand.shape(), to);
  if (from == to) return operand;
  const TypeKind from_kind = KindOf(from);
  const TypeKind to_kind = KindOf(to);
  const bool from_int = from_kind == TypeKind::kPred ||
                        from_kind == TypeKind::kSigned ||
                        from_kind == TypeKind::kUnsigned;
  const bool to_int = to_kind == TypeKind::kPred ||
                      to_kind == TypeKind::kSigned ||
                      to_kind == TypeKind::kUnsigned;

  if (from_kind == TypeKind::kComplex) {
    if (to_kind != TypeKind::kComplex) {
      return absl::InvalidArgumentError(
          absl::StrCat("convert from complex ", PrimitiveTypeName(from), " to ",
                       PrimitiveTypeName(to),
                       " is not defined (take real() or imag() first)"));
    }
    HLOREF_ASSIGN_OR_RETURN(auto z, LoadComplex(operand));
    return StoreComplex(out_shape, z);
  }

  if (from_int) {
    HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> v, LoadInts(operand));
    const bool is_unsigned = from_kind != TypeKind::kSigned;
    if (to_int) {
      // Integer -> integer: two's-complement truncation or extension;
      // to pred: v != 0.
      if (to == PrimitiveType::kPred) {
        for (auto& e : v) e = e != 0;
      }
      return StoreInts(out_shape, v);
    }
    if (to_kind == TypeKind::kComplex) {
      std::vector<std::complex<double>> z(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        z[i] = {to == PrimitiveType::kC128
                    ? IntToDoubleNearest(v[i], is_unsigned)
                    : IntToDoubleRoundOdd(v[i], is_unsigned),
                0.0};
      }
      return StoreComplex(out_shape, z);
    }
    if (to_kind == TypeKind::kFloat) {
      std::vector<double> d(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        d[i] = to == PrimitiveType::kF64
                   ? IntToDoubleNearest(v[i], is_unsigned)
                   : IntToDoubleRoundOdd(v[i], is_unsigned);
      }
      // Integers reach the f16-only f8 types through f16 as well
      // (numerics.md 3.2); the rounding to f16 is correct here because d
      // is rounded to odd.
      return StoreDoubles(out_shape, d, NarrowPath::kViaF16);
    }
  }

  if (from_kind == TypeKind::kFloat) {
    if (to_kind == TypeKind::kFloat) {
      return FloatToFloat(operand, out_shape, ctx);
    }
    HLOREF_ASSIGN_OR_RETURN(std::vector<double> x, LoadDoubles(operand));
    if (to_kind == TypeKind::kComplex) {
      std::vector<std::complex<double>> z(x.size());
      for (size_t i = 0; i < x.size(); ++i) z[i] = {x[i], 0.0};
      return StoreComplex(out_shape, z);
    }
    if (to_int) {
      std::vector<int64_t> v(x.size());
      if (to == PrimitiveType::kPred) {
        // x != 0 (unordered-or-not-equal: NaN -> true, impl.convert.1).
        for (size_t i = 0; i < x.size(); ++i) {
          v[i] = x[i] != 0;
          if (std::isnan(x[i])) Mark(ctx, i, "impl.convert.1");
        }
        return StoreInts(out_shape, v);
      }
      const int width = IntWidth(to);
      const bool is_signed = to_kind == TypeKind::kSigned;
      for (size_t i = 0; i < x.size(); ++i) {
        bool impl = false;
        v[i] = FloatToInt(x[i], width, is_signed, &impl);
        if (impl) {
          Mark(ctx, i, std::isnan(x[i]) ? "impl.convert.1" : "impl.convert.2");
        }
      }
      return StoreInts(out_shape, v);
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("convert from ", PrimitiveTypeName(from), " to ",
                   PrimitiveTypeName(to), " is not defined"));
}

namespace {

// Bit width used by bitcast-convert (pred occupies a byte).
int BitcastWidth(PrimitiveType t) { return BitWidth(t); }

absl::StatusOr<Literal> EvalBitcastConvert(const HloInstruction& inst,
                                           const Literal& operand) {
  const PrimitiveType from = operand.element_type();
  const PrimitiveType to = inst.shape().element_type();
  const int in_bits = BitcastWidth(from);
  const int out_bits = BitcastWidth(to);
  Literal out(inst.shape());
  const int64_t n_in = operand.element_count();
  const int64_t n_out = out.element_count();
  if (n_in * in_bits != n_out * out_bits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(), ": bitcast-convert from ",
        operand.shape().ToString(false), " to ", inst.shape().ToString(false),
        " does not preserve the number of bits"));
  }
  // impl.bitcast-convert.1: the value's bits form one little-endian stream
  // in row-major element order (what XLA does on little-endian hosts and
  // GPUs): when an element is split, its lowest-order bits become index 0
  // of the new minor-most dimension; when elements are joined, index 0 of
  // the dropped dimension becomes the lowest-order bits. The logical
  // (row-major) order is used whatever the layout.
  const bool byte_types = in_bits % 8 == 0 && out_bits % 8 == 0 &&
                          StorageBytes(from) * 8 == in_bits &&
                          StorageBytes(to) * 8 == out_bits;
  if (byte_types) {
    auto src = operand.raw();
    auto dst = out.mutable_raw();
    // A zero-size value has null data(), which memcpy may not take even
    // for 0 bytes (UBSan, found by differential_fuzz).
    if (!dst.empty()) std::memcpy(dst.data(), src.data(), dst.size());
  } else {
    // Sub-byte types: pack each element's low `in_bits` bits.
    std::vector<uint8_t> stream(static_cast<size_t>((n_in * in_bits + 7) / 8),
                                0);
    const size_t in_bytes = static_cast<size_t>(StorageBytes(from));
    auto src = operand.raw();
    int64_t pos = 0;
    for (int64_t i = 0; i < n_in; ++i) {
      for (int b = 0; b < in_bits; ++b, ++pos) {
        const uint8_t byte = src[static_cast<size_t>(i) * in_bytes + b / 8];
        if ((byte >> (b % 8)) & 1) stream[pos / 8] |= uint8_t(1u << (pos % 8));
      }
    }
    const size_t out_bytes = static_cast<size_t>(StorageBytes(to));
    auto dst = out.mutable_raw();
    pos = 0;
    for (int64_t j = 0; j < n_out; ++j) {
      uint8_t* e = dst.data() + static_cast<size_t>(j) * out_bytes;
      for (int b = 0; b < out_bits; ++b, ++pos) {
        if ((stream[pos / 8] >> (pos % 8)) & 1)
          e[b / 8] |= uint8_t(1u << (b % 8));
      }
      // Signed sub-byte storage holds the sign-extended value.
      if (IsSignedInt(to) && out_bits < 8 && ((e[0] >> (out_bits - 1)) & 1)) {
        e[0] |= static_cast<uint8_t>(0xFFu << out_bits);
      }
    }
  }
  if (to == PrimitiveType::kPred) {
    // impl.bitcast-convert.2: a non-zero byte reads as true.
    for (uint8_t& b : out.mutable_raw()) b = b != 0;
  }
  return out;
}

// XLA's EmitReducePrecisionIR on the bit pattern of a type with src_e
// exponent and src_m mantissa bits (numerics.md 3.8).
uint64_t ReducePrecisionBits(uint64_t x, int src_e, int src_m, int e, int m) {
  const int total = 1 + src_e + src_m;
  const uint64_t all = total >= 64 ? ~uint64_t{0} : (uint64_t{1} << total) - 1;
  const uint64_t sign_mask = uint64_t{1} << (src_e + src_m);
  const uint64_t exp_mask = ((uint64_t{1} << src_e) - 1) << src_m;
  const bool is_nan = (x & (sign_mask - 1)) > exp_mask;
  const uint64_t original = x;
  if (m < src_m) {
    // Round to nearest even on the significand: add half-ulp - 1 plus the
    // last kept bit, then drop the low bits; a carry may bump the exponent.
    const int s = src_m - m;
    const uint64_t last_bit_mask = uint64_t{1} << s;
    const uint64_t base_bias = (last_bit_mask >> 1) - 1;
    const uint64_t last_bit = (x & last_bit_mask) >> s;
    const uint64_t truncation_mask = ~(last_bit_mask - 1);
    x = ((x + last_bit + base_bias) & truncation_mask) & all;
  }
  if (e < src_e) {
    const int64_t src_bias = (int64_t{1} << (src_e - 1)) - 1;
    const int64_t reduced_bias = (int64_t{1} << (e - 1)) - 1;
    const uint64_t max_exp = static_cast<uint64_t>(src_bias + reduced_bias);
    const uint64_t min_exp = static_cast<uint64_t>(src_bias - reduced_bias);
    const uint64_t x_exp = x & exp_mask;
    if (x_exp > (max_exp << src_m)) {
      x = (x & sign_mask) | exp_mask;  // +-inf
    } else if (x_exp <= (min_exp << src_m)) {
      x = x & sign_mask;  // +-0: no reduced-format subnormals
    }
  }
  if (is_nan && m > 0) return original;
  return x;
}

template <PrimitiveType T>
void ReducePrecisionNative(const Literal& in, Literal* out, int e, int m) {
  const FloatFormat& f = FormatOf(T);
  auto src = in.data<StorageType<T>>();
  auto dst = out->mutable_data<StorageType<T>>();
  for (size_t i = 0; i < src.size(); ++i) {
    const uint64_t bits = ReducePrecisionBits(
        FloatBits<T>(src[i]), f.exponent_bits, f.mantissa_bits, e, m);
    if constexpr (T == PrimitiveType::kF32) {
      const uint32_t b = static_cast<uint32_t>(bits);
      std::memcpy(&dst[i], &b, 4);
    } else if constexpr (T == PrimitiveType::kF64) {
      std::memcpy(&dst[i], &bits, 8);
    } else {
      dst[i] = static_cast<StorageType<T>>(bits);
    }
  }
}

absl::StatusOr<Literal> EvalReducePrecision(const HloInstruction& inst,
                                            const Literal& operand) {
  const int64_t e = inst.attrs().exponent_bits;
  const int64_t m = inst.attrs().mantissa_bits;
  if (e < 1 || m < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(),
                     ": reduce-precision needs exponent_bits >= 1 and "
                     "mantissa_bits >= 0, got ",
                     e, " and ", m));
  }
  const PrimitiveType t = operand.element_type();
  // Parameters wider than the source are a no-op for that part (seed).
  Literal out(operand.shape());
  switch (t) {
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
    case PrimitiveType::kF32:
    case PrimitiveType::kF64: {
      const FloatFormat& f = FormatOf(t);
      const int ee = static_cast<int>(std::min<int64_t>(e, f.exponent_bits));
      const int mm = static_cast<int>(std::min<int64_t>(m, f.mantissa_bits));
      if (t == PrimitiveType::kF16) {
        ReducePrecisionNative<PrimitiveType::kF16>(operand, &out, ee, mm);
      } else if (t == PrimitiveType::kBF16) {
        ReducePrecisionNative<PrimitiveType::kBF16>(operand, &out, ee, mm);
      } else if (t == PrimitiveType::kF32) {
        ReducePrecisionNative<PrimitiveType::kF32>(operand, &out, ee, mm);
      } else {
        ReducePrecisionNative<PrimitiveType::kF64>(operand, &out, ee, mm);
      }
      return out;
    }
    default:
      break;
  }
  if (!IsFloat(t)) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(),
                     ": reduce-precision needs a float "
                     "operand, got ",
                     PrimitiveTypeName(t)));
  }
  // impl.reduce-precision.1: the f8/f6/f4 types are widened exactly to f32,
  // reduced there and rounded back (XLA's float normalization widens
  // narrow types the same way).
  HLOREF_ASSIGN_OR_RETURN(
      Literal wide, ConvertLiteral(operand, PrimitiveType::kF32, nullptr));
  Literal reduced(wide.shape());
  ReducePrecisionNative<PrimitiveType::kF32>(
      wide, &reduced, static_cast<int>(std::min<int64_t>(e, 8)),
      static_cast<int>(std::min<int64_t>(m, 23)));
  return ConvertLiteral(reduced, t, nullptr);
}

// stochastic-convert(operand, random) -> signed integer, as XLA's
// StochasticConvertDecomposer defines it: the magnitude's fraction, scaled
// by 2^bits(random) in the operand type (f16 widened to f32) and converted
// to the random type, is compared with the random bits; the integer part
// is rounded up when random < scaled fraction; the sign is applied, and
// operands <= min / >= max (both rounded to the operand type) saturate
// (impl.stochastic-convert.1). NaN gives 0.
absl::StatusOr<Literal> EvalStochasticConvert(const HloInstruction& inst,
                                              const Literal& operand,
                                              const Literal& random,
                                              EvalContext& ctx) {
  const PrimitiveType from = operand.element_type();
  const PrimitiveType rnd = random.element_type();
  const PrimitiveType to = inst.shape().element_type();
  if (!IsFloat(from) || !IsUnsignedInt(rnd) ||
      BitWidth(rnd) != BitWidth(from) || !IsSignedInt(to) ||
      !std::equal(operand.shape().dimensions().begin(),
                  operand.shape().dimensions().end(),
                  random.shape().dimensions().begin(),
                  random.shape().dimensions().end())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(),
        ": stochastic-convert needs a float operand, an "
        "unsigned random array of the same bit width and shape, and a "
        "signed integer result; got ",
        operand.shape().ToString(false), ", ", random.shape().ToString(false),
        " -> ", inst.shape().ToString(false)));
  }
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> x, LoadDoubles(operand));
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> r, LoadInts(random));
  const size_t n = x.size();
  const int bits = BitWidth(rnd);
  const int width = BitWidth(to);

  // fraction * 2^bits in the operand type (f16 computes in f32). The
  // decomposer makes 2^bits a constant of that type, so where the type's
  // range ends below 2^bits (f8e4m3fnuz, f8e4m3b11fnuz, f8e4m3, f8e3m4,
  // f4e2m1fn) the factor is already what converting 2^bits gives (NaN,
  // inf or a saturated value), and the product follows it.
  const PrimitiveType mul_type =
      from == PrimitiveType::kF16 ? PrimitiveType::kF32 : from;
  HLOREF_ASSIGN_OR_RETURN(
      Literal factor_lit,
      StoreDoubles(Shape::Array(mul_type, {1}),
                   std::vector<double>{std::ldexp(1.0, bits)}));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> factor, LoadDoubles(factor_lit));
  // floor(|x|) and |x| - floor(|x|) in the operand type, as the decomposer
  // computes them: exact in every type that has a zero; f8e8m0fnu has none,
  // so a zero floor or fraction is NaN there (convert's rounding), which
  // gives 0 and never rounds up.
  const Shape in_type = WithElementType(operand.shape(), from);
  std::vector<double> whole(n), scaled(n);
  for (size_t i = 0; i < n; ++i) whole[i] = std::floor(std::fabs(x[i]));
  HLOREF_ASSIGN_OR_RETURN(Literal whole_lit, StoreDoubles(in_type, whole));
  HLOREF_ASSIGN_OR_RETURN(whole, LoadDoubles(whole_lit));
  for (size_t i = 0; i < n; ++i) scaled[i] = std::fabs(x[i]) - whole[i];
  HLOREF_ASSIGN_OR_RETURN(Literal fraction_lit, StoreDoubles(in_type, scaled));
  HLOREF_ASSIGN_OR_RETURN(scaled, LoadDoubles(fraction_lit));
  for (size_t i = 0; i < n; ++i) scaled[i] *= factor[0];
  HLOREF_ASSIGN_OR_RETURN(
      Literal scaled_lit,
      StoreDoubles(WithElementType(operand.shape(), mul_type), scaled));
  HLOREF_ASSIGN_OR_RETURN(scaled, LoadDoubles(scaled_lit));

  // min and max of the result type, rounded to the operand type.
  const double min_v = -std::ldexp(1.0, width - 1);
  const double max_v = std::ldexp(1.0, width - 1) - 1;
  HLOREF_ASSIGN_OR_RETURN(
      Literal bounds_lit,
      StoreDoubles(Shape::Array(from, {2}), std::vector<double>{min_v, max_v}));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> bounds, LoadDoubles(bounds_lit));

  std::vector<int64_t> out(n);
  const int64_t int_min = WrapToWidth(uint64_t{1} << (width - 1), width, true);
  const int64_t int_max = width >= 64 ? std::numeric_limits<int64_t>::max()
                                      : (int64_t{1} << (width - 1)) - 1;
  for (size_t i = 0; i < n; ++i) {
    bool unused = false;
    const uint64_t fixed = static_cast<uint64_t>(
        FloatToInt(scaled[i], bits, /*is_signed=*/false, &unused));
    const bool round_up = static_cast<uint64_t>(r[i]) < fixed;
    int64_t v = FloatToInt(whole[i], width, /*is_signed=*/true, &unused);
    if (round_up) v = WrapToWidth(static_cast<uint64_t>(v) + 1, width, true);
    if (x[i] < 0) v = WrapToWidth(0 - static_cast<uint64_t>(v), width, true);
    if (x[i] <= bounds[0]) {
      v = int_min;
    }
    if (x[i] >= bounds[1]) {
      v = int_max;
    }
    if (std::isnan(x[i]) || x[i] <= bounds[0] || x[i] >= bounds[1]) {
      ctx.MarkImplDefined(0, static_cast<int64_t>(i),
                          "impl.stochastic-convert.1");
    }
    out[i] = v;
  }
  return StoreInts(inst.shape(), out);
}

}  // namespace

absl::StatusOr<Literal> EvalConvert(const HloInstruction& inst,
                                    absl::Span<const Literal* const> operands,
                                    EvalContext& ctx) {
  if (operands.empty() || !operands[0]->shape().IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
                     " takes an array operand"));
  }
  switch (inst.opcode()) {
    case HloOpcode::kConvert: {
      absl::StatusOr<Literal> r =
          ConvertLiteral(*operands[0], inst.shape().element_type(), &ctx);
      if (!r.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("%", inst.name(), ": ", r.status().message()));
      }
      return r;
    }
    case HloOpcode::kBitcastConvert:
      return EvalBitcastConvert(inst, *operands[0]);
    case HloOpcode::kReducePrecision:
      return EvalReducePrecision(inst, *operands[0]);
    case HloOpcode::kStochasticConvert:
      if (operands.size() != 2) break;
      return EvalStochasticConvert(inst, *operands[0], *operands[1], ctx);
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
                   " is not a convert-family op or has the wrong operands"));
}

}  // namespace hloref
