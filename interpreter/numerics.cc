// Implementation of the numerics helpers: array load/store in the working
// types and the MPFR evaluation of transcendentals.
#include "interpreter/numerics.h"

#include <mpfr.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace hloref {
namespace {

// Working precision of the MPFR evaluation. The result is correctly rounded
// at this precision, then rounded once more to the delivered double (see
// numerics.h); a wrong final rounding would need f(x) to lie within
// 2^-200 relative of a rounding boundary of the target, which does not
// happen for these functions at floating-point arguments other than the
// exact cases MPFR returns exactly.
constexpr mpfr_prec_t kWorkPrecision = 200;

class Mpfr {
 public:
  explicit Mpfr(mpfr_prec_t prec = kWorkPrecision) { mpfr_init2(v_, prec); }
  ~Mpfr() { mpfr_clear(v_); }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;
  mpfr_ptr get() { return v_; }

 private:
  mpfr_t v_;
};

// Rounds the high-precision value `y` to a double: to nearest for kF64, to
// odd (truncate, then set the last bit when inexact) for kNarrower.
double Deliver(mpfr_ptr y, ResultPrecision precision) {
  if (precision == ResultPrecision::kF64) return mpfr_get_d(y, MPFR_RNDN);
  if (mpfr_nan_p(y) || mpfr_inf_p(y) || mpfr_zero_p(y)) {
    return mpfr_get_d(y, MPFR_RNDN);
  }
  Mpfr t(53);
  const int ternary = mpfr_set(t.get(), y, MPFR_RNDZ);
  double d = mpfr_get_d(t.get(), MPFR_RNDZ);
  if (ternary != 0 && std::isfinite(d)) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    bits |= 1;  // sticky: the exact value lies strictly beyond d
    std::memcpy(&d, &bits, 8);
  }
  return d;
}

}  // namespace

double EvalMath(MathFn fn, double x, ResultPrecision precision) {
  Mpfr in(53);
  Mpfr y;
  mpfr_set_d(in.get(), x, MPFR_RNDN);  // exact
  mpfr_ptr a = in.get();
  mpfr_ptr r = y.get();
  switch (fn) {
    case MathFn::kAcos:
      mpfr_acos(r, a, MPFR_RNDN);
      break;
    case MathFn::kAcosh:
      mpfr_acosh(r, a, MPFR_RNDN);
      break;
    case MathFn::kAsin:
      mpfr_asin(r, a, MPFR_RNDN);
      break;
    case MathFn::kAsinh:
      mpfr_asinh(r, a, MPFR_RNDN);
      break;
    case MathFn::kAtanh:
      mpfr_atanh(r, a, MPFR_RNDN);
      break;
    case MathFn::kCbrt:
      mpfr_cbrt(r, a, MPFR_RNDN);
      break;
    case MathFn::kCos:
      mpfr_cos(r, a, MPFR_RNDN);
      break;
    case MathFn::kCosh:
      mpfr_cosh(r, a, MPFR_RNDN);
      break;
    case MathFn::kErf:
      mpfr_erf(r, a, MPFR_RNDN);
      break;
    case MathFn::kExp:
      mpfr_exp(r, a, MPFR_RNDN);
      break;
    case MathFn::kExpm1:
      mpfr_expm1(r, a, MPFR_RNDN);
      break;
    case MathFn::kLog:
      mpfr_log(r, a, MPFR_RNDN);
      break;
    case MathFn::kLog1p:
      mpfr_log1p(r, a, MPFR_RNDN);
      break;
    case MathFn::kLogistic: {
      // 1 / (1 + exp(-x)); NaN stays NaN, -inf -> +0, +inf -> 1.
      if (std::isnan(x)) return x;
      mpfr_neg(r, a, MPFR_RNDN);
      mpfr_exp(r, r, MPFR_RNDN);
      mpfr_add_ui(r, r, 1, MPFR_RNDN);
      mpfr_ui_div(r, 1, r, MPFR_RNDN);
      break;
    }
    case MathFn::kRsqrt:
      // MPFR gives +inf for -0; IEEE 754 rSqrt and XLA's 1/sqrt(x) give
      // -inf (impl.rsqrt.1).
      if (x == 0) return std::signbit(x) ? -HUGE_VAL : HUGE_VAL;
      mpfr_rec_sqrt(r, a, MPFR_RNDN);
      break;
    case MathFn::kSin:
      mpfr_sin(r, a, MPFR_RNDN);
      break;
    case MathFn::kSinh:
      mpfr_sinh(r, a, MPFR_RNDN);
      break;
    case MathFn::kTan:
      mpfr_tan(r, a, MPFR_RNDN);
      break;
    case MathFn::kTanh:
      mpfr_tanh(r, a, MPFR_RNDN);
      break;
  }
  if (mpfr_nan_p(r)) {
    // Keep the input NaN (sign and payload) where the input was NaN.
    return std::isnan(x) ? x : std::numeric_limits<double>::quiet_NaN();
  }
  return Deliver(r, precision);
}

double EvalMath2(MathFn2 fn, double x, double y, ResultPrecision precision) {
  Mpfr a(53), b(53), r;
  mpfr_set_d(a.get(), x, MPFR_RNDN);
  mpfr_set_d(b.get(), y, MPFR_RNDN);
  switch (fn) {
    case MathFn2::kAtan2:
      // atan2(y=x, x=y): HLO atan2(lhs, rhs) = atan(lhs / rhs).
      mpfr_atan2(r.get(), a.get(), b.get(), MPFR_RNDN);
      break;
    case MathFn2::kHypot:
      mpfr_hypot(r.get(), a.get(), b.get(), MPFR_RNDN);
      break;
    case MathFn2::kPow:
      mpfr_pow(r.get(), a.get(), b.get(), MPFR_RNDN);
      break;
  }
  if (mpfr_nan_p(r.get())) {
    if (std::isnan(x)) return x;
    if (std::isnan(y)) return y;
    return std::numeric_limits<double>::quiet_NaN();
  }
  return Deliver(r.get(), precision);
}

// ---- Load / store.


Shape WithElementType(const Shape& like, PrimitiveType type) {
  Shape s = like;
  s.set_element_type(type);
  return s;
}

absl::StatusOr<std::vector<double>> LoadDoubles(const Literal& lit) {
  std::vector<double> out(static_cast<size_t>(lit.element_count()));
  HLOREF_RETURN_IF_ERROR(ForFloatType(lit.element_type(), [&](auto tc) {
    constexpr PrimitiveType T = decltype(tc)::value;
    auto in = lit.data<StorageType<T>>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = LoadFloat<T>(in[i]);
  }));
  return out;
}

absl::StatusOr<Literal> StoreDoubles(const Shape& shape,
                                     absl::Span<const double> values,
                                     NarrowPath path) {
  Literal lit(shape);
  HLOREF_RETURN_IF_ERROR(ForFloatType(shape.element_type(), [&](auto tc) {
    constexpr PrimitiveType T = decltype(tc)::value;
    auto out = lit.mutable_data<StorageType<T>>();
    HLOREF_CHECK(out.size() == values.size());
    if (path == NarrowPath::kViaF16 && XlaConvertsViaF16(T)) {
      for (size_t i = 0; i < out.size(); ++i) {
        const double h = MinifloatToDouble(
            PrimitiveType::kF16,
            MinifloatFromDouble(PrimitiveType::kF16, values[i]));
        out[i] = StoreFloat<T>(h);
      }
    } else {
      for (size_t i = 0; i < out.size(); ++i) {
        out[i] = StoreFloat<T>(values[i]);
      }
    }
  }));
  return lit;
}

absl::StatusOr<std::vector<int64_t>> LoadInts(const Literal& lit) {
  std::vector<int64_t> out(static_cast<size_t>(lit.element_count()));
  HLOREF_RETURN_IF_ERROR(ForIntType(lit.element_type(), [&](auto tc) {
    constexpr PrimitiveType T = decltype(tc)::value;
    auto in = lit.data<StorageType<T>>();
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = static_cast<int64_t>(in[i]);
    }
  }));
  return out;
}

absl::StatusOr<Literal> StoreInts(const Shape& shape,
                                  absl::Span<const int64_t> values) {
  Literal lit(shape);
  const PrimitiveType type = shape.element_type();
  const int width = IntWidth(type);
  const bool is_signed = IsSignedInt(type);
  HLOREF_RETURN_IF_ERROR(ForIntType(type, [&](auto tc) {
    constexpr PrimitiveType T = decltype(tc)::value;
    auto out = lit.mutable_data<StorageType<T>>();
    HLOREF_CHECK(out.size() == values.size());
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = static_cast<StorageType<T>>(
          WrapToWidth(static_cast<uint64_t>(values[i]), width, is_signed));
    }
  }));
  return lit;
}

absl::StatusOr<std::vector<std::complex<double>>> LoadComplex(
    const Literal& lit) {
  std::vector<std::complex<double>> out(
      static_cast<size_t>(lit.element_count()));
  if (lit.element_type() == PrimitiveType::kC64) {
    auto in = lit.data<std::complex<float>>();
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = {in[i].real(), in[i].imag()};
    }
  } else if (lit.element_type() == PrimitiveType::kC128) {
    auto in = lit.data<std::complex<double>>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = in[i];
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a complex element type, got ",
                     PrimitiveTypeName(lit.element_type())));
  }
  return out;
}

absl::StatusOr<Literal> StoreComplex(
    const Shape& shape, absl::Span<const std::complex<double>> values) {
  Literal lit(shape);
  if (shape.element_type() == PrimitiveType::kC64) {
    auto out = lit.mutable_data<std::complex<float>>();
    HLOREF_CHECK(out.size() == values.size());
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = {static_cast<float>(values[i].real()),
                static_cast<float>(values[i].imag())};
    }
  } else if (shape.element_type() == PrimitiveType::kC128) {
    auto out = lit.mutable_data<std::complex<double>>();
    HLOREF_CHECK(out.size() == values.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = values[i];
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a complex element type, got ",
                     PrimitiveTypeName(shape.element_type())));
  }
  return lit;
}

}  // namespace hloref
