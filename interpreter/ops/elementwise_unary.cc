// The element-wise unary family. Implements seed 001 "Element-wise unary
// functions" (abs, cbrt, ceil, clz, cos, erf, exp, expm1, floor, imag,
// is-finite, log, log1p, logistic, negate, not, popcnt, real,
// round-nearest-afz, round-nearest-even, rsqrt, sign, sin, sqrt, tan,
// tanh) and the unary functions of docs/hlo-text-format.md 6.1 (acos,
// acosh, asin, asinh, atanh, cosh, sinh).
//
// Numerics (docs/numerics.md decision 3): every element is loaded exactly
// into double (or int64 / complex<double>), computed once and rounded once
// to the output type. Real transcendentals are correctly rounded (MPFR);
// complex transcendentals use long double formulas (impl.complex.1).
#include "interpreter/ops/elementwise_unary.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/elementwise_binary.h"
#include "interpreter/ops/families.h"
#include "interpreter/ops/fast_round.h"
#include "interpreter/ops/parallel.h"
#include "spec/util/status_macros.h"

namespace hloref {

__attribute__((target_clones("avx2", "default"))) int64_t ExpRoundedBlock(
    const double* x, int64_t n, const FastRounding& f, double* r) {
  typedef TwoSumV4 V;
  typedef TwoSumI4 I;
  // Constants (mpmath, 300 bits): C1 = ln 2 rounded to 29 significant
  // bits, C2 = RN(ln 2 - C1), |ln 2 - C1 - C2| < 2^-89; 1 / ln 2 and
  // 1 / i! rounded to double.
  constexpr double kC1 = 0x1.62e42ffp-1, kC2 = -0x1.718432a1b0e26p-35;
  constexpr double kInvLn2 = 0x1.71547652b82fep+0;
  constexpr double kMagic = 0x1.8p52;  // t + magic - magic = round(t)
  const V c1 = {kC1, kC1, kC1, kC1}, c2 = {kC2, kC2, kC2, kC2};
  const V inv_ln2 = {kInvLn2, kInvLn2, kInvLn2, kInvLn2};
  const V magic = {kMagic, kMagic, kMagic, kMagic};
  static constexpr double kCoef[13] = {1.0,
                                       1.0,
                                       0x1p-1,
                                       0x1.5555555555555p-3,
                                       0x1.5555555555555p-5,
                                       0x1.1111111111111p-7,
                                       0x1.6c16c16c16c17p-10,
                                       0x1.a01a01a01a01ap-13,
                                       0x1.a01a01a01a01ap-16,
                                       0x1.71de3a556c734p-19,
                                       0x1.27e4fb7789f5cp-22,
                                       0x1.ae64567f544e4p-26,
                                       0x1.1eed8eff8d898p-29};
  const double underflow =
      (f.emin - f.precision) * 0.69314718055994531 - 0x1p-20;
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const V nan = {kNaN, kNaN, kNaN, kNaN};
  const V zero = {0, 0, 0, 0};
  const I none = {0, 0, 0, 0};
  int64_t nans = 0;
  for (int64_t i = 0; i < n; i += 4) {
    const int64_t lanes = std::min<int64_t>(4, n - i);
    V xv = zero;
    if (lanes == 4) {
      __builtin_memcpy(&xv, x + i, sizeof xv);
    } else {
      for (int64_t j = 0; j < lanes; ++j) xv[j] = x[i + j];
    }
    const I valid = (xv >= -700.0) & (xv <= 700.0) & (xv >= underflow);
    // Finite and below the threshold: +0 (FastMathRounded's rule).
    const I underflows = (xv < underflow) & (xv >= -0x1.fffffffffffffp1023);
    const V xc = valid ? xv : zero;
    const V t = xc * inv_ln2 + magic;
    const V nd = t - magic;
    const V rr = (xc - nd * c1) - nd * c2;
    V p = {kCoef[12], kCoef[12], kCoef[12], kCoef[12]};
    for (int d = 11; d >= 0; --d) p = p * rr + kCoef[d];
    const I big_n = (I)t - (I)magic;  // N, |N| <= 1010
    const V scale = (V)((big_n + 1023) << 52);
    const V y = p * scale;
    const V radius = y * 0x1p-44;
    V rv;
    I decided;
    RoundInCell4(y, radius, none, f, &rv, &decided);
    decided &= valid;
    const V out = decided ? rv : (underflows ? zero : nan);
    if (lanes == 4) {
      __builtin_memcpy(r + i, &out, sizeof out);
    } else {
      for (int64_t j = 0; j < lanes; ++j) r[i + j] = out[j];
    }
    for (int64_t j = 0; j < lanes; ++j) nans += out[j] != out[j];
  }
  return nans;
}

namespace {

absl::Status TypeError(const HloInstruction& inst, PrimitiveType t) {
  return absl::InvalidArgumentError(
      absl::StrCat("%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
                   " does not accept element type ", PrimitiveTypeName(t)));
}

std::optional<MathFn> MathFnOf(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAcos:
      return MathFn::kAcos;
    case HloOpcode::kAcosh:
      return MathFn::kAcosh;
    case HloOpcode::kAsin:
      return MathFn::kAsin;
    case HloOpcode::kAsinh:
      return MathFn::kAsinh;
    case HloOpcode::kAtanh:
      return MathFn::kAtanh;
    case HloOpcode::kCbrt:
      return MathFn::kCbrt;
    case HloOpcode::kCos:
      return MathFn::kCos;
    case HloOpcode::kCosh:
      return MathFn::kCosh;
    case HloOpcode::kErf:
      return MathFn::kErf;
    case HloOpcode::kExp:
      return MathFn::kExp;
    case HloOpcode::kExpm1:
      return MathFn::kExpm1;
    case HloOpcode::kLog:
      return MathFn::kLog;
    case HloOpcode::kLog1p:
      return MathFn::kLog1p;
    case HloOpcode::kLogistic:
      return MathFn::kLogistic;
    case HloOpcode::kRsqrt:
      return MathFn::kRsqrt;
    case HloOpcode::kSin:
      return MathFn::kSin;
    case HloOpcode::kSinh:
      return MathFn::kSinh;
    case HloOpcode::kTan:
      return MathFn::kTan;
    case HloOpcode::kTanh:
      return MathFn::kTanh;
    default:
      return std::nullopt;
  }
}

// negate and abs only touch the sign bit (IEEE 754 5.5.1, LLVM fneg/fabs
// as XLA emits them), so they work on the encoding: a computation through
// double would quiet a signalling NaN and lose its payload.
absl::StatusOr<Literal> SignBitOp(const HloInstruction& inst,
                                  const Literal& operand) {
  const bool negate = inst.opcode() == HloOpcode::kNegate;
  const FloatFormat& format = FormatOf(operand.element_type());
  Literal result(inst.shape());
  HLOREF_RETURN_IF_ERROR(ForFloatType(operand.element_type(), [&](auto tc) {
    constexpr PrimitiveType T = decltype(tc)::value;
    using S = StorageType<T>;
    using Bits = std::conditional_t<
        sizeof(S) == 8, uint64_t,
        std::conditional_t<
            sizeof(S) == 4, uint32_t,
            std::conditional_t<sizeof(S) == 2, uint16_t, uint8_t>>>;
    auto in = operand.data<S>();
    auto out = result.mutable_data<S>();
    const uint64_t sign =
        format.has_sign ? uint64_t{1} << (format.total_bits - 1) : 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const uint64_t bits = std::bit_cast<Bits>(in[i]);
      uint64_t r;
      if (negate) {
        r = NegateEncoding(format, bits);
      } else if (IsNanEncoding(format, bits) &&
                 format.nan == NanEncoding::kNegativeZero) {
        r = bits;  // fnuz's only NaN is the sign-bit pattern: keep it
      } else {
        r = bits & ~sign;
      }
      out[i] = std::bit_cast<S>(static_cast<Bits>(r));
    }
  }));
  return result;
}

// ---- Correctly rounded transcendentals without MPFR where it is provable.
// For a result type of at most 24 significand bits, the double value y of
// libm (glibc: exp and log < 1 ulp, tanh 2 ulp; logistic = 1/(1+exp(-x))
// and rsqrt = 1/sqrt(x) add two correctly rounded operations) is within
// 2^-48 relative of the exact f(x) (16 double ulps, a margin of 8x or
// more). Round-to-nearest is monotone, so when RN_T(y (1 - 2^-47)) and
// RN_T(y (1 + 2^-47)) are the same non-zero finite value r, RN_T(f(x)) =
// r. Otherwise (near a rounding boundary, zero, overflow, non-finite
// operands) EvalMath's MPFR path decides, so results are unchanged.
bool HasFastMath(MathFn fn) {
  return fn == MathFn::kExp || fn == MathFn::kLog || fn == MathFn::kLogistic ||
         fn == MathFn::kTanh || fn == MathFn::kRsqrt;
}

double RoundToBits(double x, int precision, int emin) {
  return RoundToFormat(x, precision, emin);
}

// RN_T(f(x)) as a double, or NaN when the MPFR path must decide.
double FastMathRounded(MathFn fn, double x, int precision, int emin,
                       double max_finite) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (!std::isfinite(x)) return kNaN;
  // Underflow to +0: exp(x) < 2^(emin - precision), half the smallest
  // subnormal, when x < (emin - precision) ln 2 (the margin 2^-20 covers
  // the rounding of the product); logistic(x) = 1 / (1 + e^-x) < e^x.
  // Both are positive, so they round to +0.
  if ((fn == MathFn::kExp || fn == MathFn::kLogistic) &&
      x < (emin - precision) * 0.69314718055994531 - 0x1p-20) {
    return 0.0;
  }
  double y;
  switch (fn) {
    case MathFn::kExp:
      y = std::exp(x);
      break;
    case MathFn::kLog:
      if (!(x > 0)) return kNaN;
      y = std::log(x);
      break;
    case MathFn::kLogistic:
      y = 1.0 / (1.0 + std::exp(-x));
      break;
    case MathFn::kTanh:
      y = std::tanh(x);
      break;
    case MathFn::kRsqrt:
      if (!(x > 0)) return kNaN;
      y = 1.0 / std::sqrt(x);
      break;
    default:
      return kNaN;
  }
  if (!std::isfinite(y) || y == 0 || std::fabs(y) < 0x1p-1000 ||
      std::fabs(y) > 0x1p1000) {
    return kNaN;
  }
  // f(x) lies within |y| 2^-47 of y (exact: a power-of-two scaling of a
  // normal double), so when that interval is inside RN_T(y)'s rounding
  // cell, RN_T(f(x)) = RN_T(y).
  const double r = RoundToBits(y, precision, emin);
  if (r == 0 || !(std::fabs(r) <= max_finite) ||
      !InsideRoundingCell(y, r, std::fabs(y) * 0x1p-47, precision, emin)) {
    return kNaN;
  }
  return r;
}

// ---- Real floats, fused: the same per-element computation as UnaryFloat
// below (LoadFloat<T>, the operation in double, StoreFloat<T>) over the
// literals' storage, without double vectors, split across threads in
// chunks (each element alone: any thread count gives the same bits). The
// transcendentals' fast path runs in the chunks; the elements it leaves
// to MPFR are evaluated afterwards on the calling thread.
constexpr int64_t kChunk = 1 << 15;

bool FusesFloat(HloOpcode op) {
  switch (op) {
    case HloOpcode::kCeil:
    case HloOpcode::kFloor:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kSign:
    case HloOpcode::kSqrt:
      return true;
    default: {
      const std::optional<MathFn> fn = MathFnOf(op);
      return fn.has_value() && HasFastMath(*fn);
    }
  }
}

// The general path's rounding, sign and sqrt on double arrays: UnaryFloat
// runs it on whole operands, the fused path on the chunks where a result
// is NaN, so NaN results (whose bits depend on the machine code, e.g.
// whether an f32 -> f64 -> f32 round trip that quiets a signalling NaN is
// kept) come from the same code in both.
[[gnu::noinline]] void UnaryOnDoubles(HloOpcode op, const double* x, double* r,
                                      size_t n) {
  switch (op) {
    case HloOpcode::kCeil:
      for (size_t i = 0; i < n; ++i) r[i] = std::ceil(x[i]);
      break;
    case HloOpcode::kFloor:
      for (size_t i = 0; i < n; ++i) r[i] = std::floor(x[i]);
      break;
    case HloOpcode::kRoundNearestAfz:
      // Halfway cases away from zero (C round).
      for (size_t i = 0; i < n; ++i) r[i] = std::round(x[i]);
      break;
    case HloOpcode::kRoundNearestEven:
      // The process runs in the default round-to-nearest-even mode
      // (decision 3 forbids changing it), so nearbyint ties to even.
      for (size_t i = 0; i < n; ++i) r[i] = std::nearbyint(x[i]);
      break;
    case HloOpcode::kSign:
      // The seed's sgn: -1, -0, NaN, +0, 1 (NaN keeps the input NaN).
      for (size_t i = 0; i < n; ++i) {
        const double v = x[i];
        r[i] = (std::isnan(v) || v == 0) ? v : std::copysign(1.0, v);
      }
      break;
    case HloOpcode::kSqrt:
      // IEEE sqrt in double; one rounding to narrower types (decision 3).
      for (size_t i = 0; i < n; ++i) r[i] = std::sqrt(x[i]);
      break;
    default:
      break;
  }
}

//
// In place (issue 16): when this is the operand's last reader
// (EvalContext::TakeOperandToOverwrite) the result is written over it. The
// rounding ops then compute each block of kInPlaceBlock elements into a buffer
// on the stack (recomputed there by the general path when a result is NaN, the
// operand block still intact) and copy it over the block; the transcendentals
// read each element before writing it, and a chunk that leaves elements to MPFR
// keeps a copy of its operand codes, made before it was overwritten, for the
// pass afterwards. The same computations on the same values as into new
// storage, so the same bits.
constexpr int64_t kInPlaceBlock = 1024;

absl::StatusOr<Literal> FusedUnaryFloat(const HloInstruction& inst,
                                        const Literal& operand_lit,
                                        EvalContext& ctx) {
  const HloOpcode op = inst.opcode();
  const PrimitiveType t = operand_lit.element_type();
  // After a take operand_lit is gone: `operand` is `out`.
  const Literal* operand = &operand_lit;
  Literal out;
  bool in_place = false;
  if (operand_lit.CheckReinterpretAs(inst.shape()).ok()) {
    std::optional<Literal> taken = ctx.TakeOperandToOverwrite(0);
    if (taken.has_value()) {
      out = *std::move(taken);
      HLOREF_CHECK(out.ReinterpretAs(inst.shape()).ok());
      operand = &out;
      in_place = true;
    }
  }
  if (!in_place) out = ctx.NewUninitialized(inst.shape());
  const int64_t n = static_cast<int64_t>(out.element_count());
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  const int threads = n >= 2 * kChunk ? ctx.options().threads : 1;
  const std::optional<MathFn> math = MathFnOf(op);
  const bool fast_math = math.has_value() && (t == PrimitiveType::kF32 ||
                                              t == PrimitiveType::kBF16 ||
                                              t == PrimitiveType::kF16);
  std::vector<char> slow(static_cast<size_t>(chunks), 0);
  HLOREF_RETURN_IF_ERROR(ForFloatType(t, [&](auto tc) {
    constexpr PrimitiveType T = decltype(tc)::value;
    using S = StorageType<T>;
    const S* a = operand->data<S>().data();
    S* r = out.mutable_data<S>().data();
    auto run = [&](auto fn) {
      ParallelFor(threads, chunks, [&](int64_t c, int) {
        if (in_place) {
          const int64_t end = std::min(n, (c + 1) * kChunk);
          S block[kInPlaceBlock];
          for (int64_t i0 = c * kChunk; i0 < end; i0 += kInPlaceBlock) {
            const int64_t len = std::min(kInPlaceBlock, end - i0);
            int64_t nans = 0;
            for (int64_t i = 0; i < len; ++i) {
              const double v = fn(LoadFloat<T>(a[i0 + i]));
              block[i] = StoreFloat<T>(v);
              nans += v != v;
            }
            if (nans != 0) {
              // The block again as the general path computes it.
              const size_t ulen = static_cast<size_t>(len);
              std::vector<double> x(ulen), v(ulen);
              for (size_t k = 0; k < ulen; ++k) {
                x[k] = LoadFloat<T>(a[i0 + int64_t(k)]);
              }
              UnaryOnDoubles(op, x.data(), v.data(), ulen);
              for (size_t k = 0; k < ulen; ++k) block[k] = StoreFloat<T>(v[k]);
            }
            std::memcpy(r + i0, block, static_cast<size_t>(len) * sizeof(S));
          }
          return true;
        }
        const int64_t end = std::min(n, (c + 1) * kChunk);
        const int64_t len0 = end - c * kChunk;
        const S* __restrict ca = a + c * kChunk;
        S* __restrict cr = r + c * kChunk;
        int64_t nans = 0;
        for (int64_t i = 0; i < len0; ++i) {
          const double v = fn(LoadFloat<T>(ca[i]));
          cr[i] = StoreFloat<T>(v);
          nans += v != v;
        }
        if (nans != 0) {
          // The chunk again as the general path computes it.
          const size_t len = static_cast<size_t>(end - c * kChunk);
          std::vector<double> x(len), v(len);
          for (size_t k = 0; k < len; ++k) {
            x[k] = LoadFloat<T>(a[c * kChunk + int64_t(k)]);
          }
          UnaryOnDoubles(op, x.data(), v.data(), len);
          for (size_t k = 0; k < len; ++k) {
            r[c * kChunk + int64_t(k)] = StoreFloat<T>(v[k]);
          }
        }
        return true;
      });
    };
    if (math.has_value()) {
      const ResultPrecision prec = PrecisionFor(t);
      if (!fast_math) {
        // f64 (and the other types without the libm margin): MPFR for
        // every element, as UnaryFloat.
        for (int64_t i = 0; i < n; ++i) {
          r[i] = StoreFloat<T>(EvalMath(*math, LoadFloat<T>(a[i]), prec));
        }
        return;
      }
      const FloatFormat& format = FormatOf(t);
      const int precision = Precision(format);
      const int emin = std::ilogb(MinNormal(format));
      const double max_finite = MaxFinite(format);
      const MathFn fn = *math;
      const FastRounding rounding{precision, emin, max_finite};
      // In place: the operand codes of the chunks with elements left to
      // MPFR, saved before the chunk overwrote them.
      std::vector<std::vector<S>> saved(in_place ? static_cast<size_t>(chunks)
                                                 : 0);
      ParallelFor(threads, chunks, [&](int64_t c, int) {
        const int64_t end = std::min(n, (c + 1) * kChunk);
        std::vector<S> copy;
        if (in_place) copy.assign(a + c * kChunk, a + end);
        bool any = false;
        if (fn == MathFn::kExp) {
          // ExpRoundedBlock first, 256 elements at a time; the elements it
          // leaves undecided take FastMathRounded (libm), as before.
          constexpr int64_t kBlock = 256;
          double xs[kBlock], vs[kBlock];
          for (int64_t i0 = c * kChunk; i0 < end; i0 += kBlock) {
            const int64_t len = std::min(kBlock, end - i0);
            for (int64_t j = 0; j < len; ++j) xs[j] = LoadFloat<T>(a[i0 + j]);
            if (ExpRoundedBlock(xs, len, rounding, vs) != 0) {
              for (int64_t j = 0; j < len; ++j) {
                if (!std::isnan(vs[j])) continue;
                vs[j] = FastMathRounded(fn, xs[j], precision, emin, max_finite);
                any |= std::isnan(vs[j]);
              }
            }
            for (int64_t j = 0; j < len; ++j) r[i0 + j] = StoreFloat<T>(vs[j]);
          }
        } else {
          for (int64_t i = c * kChunk; i < end; ++i) {
            const double v = FastMathRounded(fn, LoadFloat<T>(a[i]), precision,
                                             emin, max_finite);
            any |= std::isnan(v);
            r[i] = StoreFloat<T>(v);
          }
        }
        slow[static_cast<size_t>(c)] = any;
        if (in_place && any) saved[static_cast<size_t>(c)] = std::move(copy);
        return true;
      });
      for (int64_t c = 0; c < chunks; ++c) {
        if (!slow[static_cast<size_t>(c)]) continue;
        const int64_t end = std::min(n, (c + 1) * kChunk);
        for (int64_t i = c * kChunk; i < end; ++i) {
          const double x = LoadFloat<T>(
              in_place ? saved[static_cast<size_t>(c)][size_t(i - c * kChunk)]
                       : a[i]);
          if (std::isnan(FastMathRounded(fn, x, precision, emin, max_finite))) {
            r[i] = StoreFloat<T>(EvalMath(fn, x, prec));
          }
        }
      }
      return;
    }
    switch (op) {
      case HloOpcode::kCeil:
        run([](double x) { return std::ceil(x); });
        break;
      case HloOpcode::kFloor:
        run([](double x) { return std::floor(x); });
        break;
      case HloOpcode::kRoundNearestAfz:
        run([](double x) { return std::round(x); });
        break;
      case HloOpcode::kRoundNearestEven:
        run([](double x) { return std::nearbyint(x); });
        break;
      case HloOpcode::kSign:
        run([](double x) {
          return (std::isnan(x) || x == 0) ? x : std::copysign(1.0, x);
        });
        break;
      default:
        run([](double x) { return std::sqrt(x); });
        break;
    }
  }));
  return out;
}

// ---- Real floating-point operands.
absl::StatusOr<Literal> UnaryFloat(const HloInstruction& inst,
                                   const Literal& operand) {
  const HloOpcode op = inst.opcode();
  const Shape& out_shape = inst.shape();
  if (op == HloOpcode::kNegate || op == HloOpcode::kAbs) {
    return SignBitOp(inst, operand);
  }
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> x, LoadDoubles(operand));
  const size_t n = x.size();

  if (op == HloOpcode::kIsFinite) {
    // NaN and +-inf are not finite.
    std::vector<int64_t> r(n);
    for (size_t i = 0; i < n; ++i) r[i] = std::isfinite(x[i]) ? 1 : 0;
    return StoreInts(out_shape, r);
  }

  std::vector<double> r(n);
  if (std::optional<MathFn> fn = MathFnOf(op)) {
    const ResultPrecision prec = PrecisionFor(out_shape.element_type());
    const PrimitiveType t = out_shape.element_type();
    const bool fast = HasFastMath(*fn) &&
                      (t == PrimitiveType::kF32 || t == PrimitiveType::kBF16 ||
                       t == PrimitiveType::kF16);
    if (fast) {
      const FloatFormat& format = FormatOf(t);
      const int precision = Precision(format);
      const int emin = std::ilogb(MinNormal(format));
      const double max_finite = MaxFinite(format);
      for (size_t i = 0; i < n; ++i) {
        r[i] = FastMathRounded(*fn, x[i], precision, emin, max_finite);
        if (std::isnan(r[i])) r[i] = EvalMath(*fn, x[i], prec);
      }
      return StoreDoubles(out_shape, r);
    }
    for (size_t i = 0; i < n; ++i) r[i] = EvalMath(*fn, x[i], prec);
    return StoreDoubles(out_shape, r);
  }
  switch (op) {
    case HloOpcode::kAbs:
      for (size_t i = 0; i < n; ++i) r[i] = std::fabs(x[i]);
      break;
    case HloOpcode::kNegate:
      for (size_t i = 0; i < n; ++i) r[i] = -x[i];
      break;
    case HloOpcode::kCeil:
    case HloOpcode::kFloor:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kSign:
    case HloOpcode::kSqrt:
      UnaryOnDoubles(op, x.data(), r.data(), n);
      break;
    case HloOpcode::kReal:
      r = x;
      break;
    case HloOpcode::kImag:
      // The seed: 0 for a floating-point operand.
      for (size_t i = 0; i < n; ++i) r[i] = 0.0;
      break;
    default:
      return TypeError(inst, operand.element_type());
  }
  return StoreDoubles(out_shape, r);
}

// ---- Integer and pred operands.
absl::StatusOr<Literal> UnaryInt(const HloInstruction& inst,
                                 const Literal& operand) {
  const HloOpcode op = inst.opcode();
  const PrimitiveType t = operand.element_type();
  const int width = IntWidth(t);
  const bool is_signed = IsSignedInt(t);
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> x, LoadInts(operand));
  const size_t n = x.size();
  std::vector<int64_t> r(n);
  switch (op) {
    case HloOpcode::kAbs:
      if (t == PrimitiveType::kPred) return TypeError(inst, t);
      // abs(INT_MIN) wraps to INT_MIN (XLA: select(x >= 0, x, -x)).
      for (size_t i = 0; i < n; ++i) {
        r[i] = (is_signed && x[i] < 0)
                   ? static_cast<int64_t>(0 - static_cast<uint64_t>(x[i]))
                   : x[i];
      }
      break;
    case HloOpcode::kNegate:
      if (t == PrimitiveType::kPred) return TypeError(inst, t);
      for (size_t i = 0; i < n; ++i) {
        r[i] = static_cast<int64_t>(0 - static_cast<uint64_t>(x[i]));
      }
      break;
    case HloOpcode::kSign:
      if (t == PrimitiveType::kPred) return TypeError(inst, t);
      for (size_t i = 0; i < n; ++i) {
        r[i] = is_signed ? (x[i] > 0) - (x[i] < 0) : (x[i] != 0);
      }
      break;
    case HloOpcode::kNot:
      // Logical for pred, bitwise for integers.
      for (size_t i = 0; i < n; ++i) {
        r[i] = t == PrimitiveType::kPred ? (x[i] == 0) : ~x[i];
      }
      break;
    case HloOpcode::kClz:
      if (t == PrimitiveType::kPred) return TypeError(inst, t);
      for (size_t i = 0; i < n; ++i) {
        const uint64_t bits = static_cast<uint64_t>(x[i]) & mask;
        r[i] = bits == 0 ? width : std::countl_zero(bits) - (64 - width);
      }
      break;
    case HloOpcode::kPopulationCount:
      if (t == PrimitiveType::kPred) return TypeError(inst, t);
      for (size_t i = 0; i < n; ++i) {
        r[i] = std::popcount(static_cast<uint64_t>(x[i]) & mask);
      }
      break;
    default:
      return TypeError(inst, t);
  }
  return StoreInts(inst.shape(), r);
}

// ---- Complex operands. impl.complex.1: complex transcendentals are
// computed in long double (64-bit significand) with the C library's complex
// functions and XLA's special cases, then rounded once per component; they
// are not guaranteed correctly rounded (about 1 ulp for c128, correctly
// rounded in nearly all c64 cases).
using CLD = std::complex<long double>;

CLD ComplexSqrt(CLD z) {
  // XLA: sqrt(0 +- 0i) = (+0, +0) (impl.sqrt.1); otherwise C's csqrt.
  if (z.real() == 0 && z.imag() == 0) return CLD(0.0L, 0.0L);
  return std::sqrt(z);
}

CLD ComplexExpm1(CLD z) {
  // expm1(a + ib) = expm1(a) cos b - 2 sin^2(b/2) + i exp(a) sin b, which
  // keeps the accuracy of expm1 near zero.
  const long double a = z.real(), b = z.imag();
  if (!std::isfinite(a) || !std::isfinite(b)) return std::exp(z) - 1.0L;
  const long double s = std::sin(b / 2);
  return CLD(std::expm1(a) * std::cos(b) - 2 * s * s,
             std::exp(a) * std::sin(b));
}

CLD ComplexLog1p(CLD z) {
  // log1p(a + ib) = 0.5 log1p(2a + a^2 + b^2) + i atan2(b, 1 + a).
  const long double a = z.real(), b = z.imag();
  if (!std::isfinite(a) || !std::isfinite(b) || std::fabs(a) > 0.5L ||
      std::fabs(b) > 0.5L) {
    return std::log(1.0L + z);
  }
  return CLD(0.5L * std::log1p(2 * a + a * a + b * b), std::atan2(b, 1.0L + a));
}

absl::StatusOr<Literal> UnaryComplex(const HloInstruction& inst,
                                     const Literal& operand) {
  const HloOpcode op = inst.opcode();
  const Shape& out_shape = inst.shape();
  HLOREF_ASSIGN_OR_RETURN(std::vector<std::complex<double>> z,
                          LoadComplex(operand));
  const size_t n = z.size();
  const PrimitiveType component = ComplexComponentType(operand.element_type());

  // Ops with a real result.
  if (op == HloOpcode::kAbs || op == HloOpcode::kReal ||
      op == HloOpcode::kImag) {
    std::vector<double> r(n);
    const ResultPrecision prec = PrecisionFor(component);
    for (size_t i = 0; i < n; ++i) {
      if (op == HloOpcode::kReal) {
        r[i] = z[i].real();
      } else if (op == HloOpcode::kImag) {
        r[i] = z[i].imag();
      } else {
        // |z| correctly rounded (MPFR hypot): inf if either part is inf,
        // else NaN if either is NaN.
        r[i] = EvalMath2(MathFn2::kHypot, z[i].real(), z[i].imag(), prec);
      }
    }
    return StoreDoubles(out_shape, r);
  }
  if (op == HloOpcode::kIsFinite)
    return TypeError(inst, operand.element_type());

  std::vector<std::complex<double>> r(n);
  for (size_t i = 0; i < n; ++i) {
    const CLD w(z[i].real(), z[i].imag());
    CLD v;
    switch (op) {
      case HloOpcode::kNegate:
        v = -w;
        break;
      case HloOpcode::kSign: {
        // z / |z|, and 0 for z == 0 (XLA).
        const long double m = std::hypot(w.real(), w.imag());
        v = (w.real() == 0 && w.imag() == 0) ? w : w / m;
        break;
      }
      case HloOpcode::kSqrt:
        v = ComplexSqrt(w);
        break;
      case HloOpcode::kRsqrt:
        v = 1.0L / ComplexSqrt(w);
        break;
      case HloOpcode::kCbrt:
        return TypeError(inst, operand.element_type());
      case HloOpcode::kExp:
        v = std::exp(w);
        break;
      case HloOpcode::kExpm1:
        v = ComplexExpm1(w);
        break;
      case HloOpcode::kLog:
        // Branch cut on the negative real axis; the sign of a zero
        // imaginary part picks the side (log(-1 - 0i) = -i pi).
        v = std::log(w);
        break;
      case HloOpcode::kLog1p:
        v = ComplexLog1p(w);
        break;
      case HloOpcode::kLogistic:
        v = 1.0L / (1.0L + std::exp(-w));
        break;
      case HloOpcode::kSin:
        v = std::sin(w);
        break;
      case HloOpcode::kCos:
        v = std::cos(w);
        break;
      case HloOpcode::kTan:
        v = std::tan(w);
        break;
      case HloOpcode::kTanh:
        v = std::tanh(w);
        break;
      case HloOpcode::kSinh:
        v = std::sinh(w);
        break;
      case HloOpcode::kCosh:
        v = std::cosh(w);
        break;
      case HloOpcode::kAsin:
        v = std::asin(w);
        break;
      case HloOpcode::kAcos:
        v = std::acos(w);
        break;
      case HloOpcode::kAsinh:
        v = std::asinh(w);
        break;
      case HloOpcode::kAcosh:
        v = std::acosh(w);
        break;
      case HloOpcode::kAtanh:
        v = std::atanh(w);
        break;
      default:
        return TypeError(inst, operand.element_type());
    }
    r[i] = {static_cast<double>(v.real()), static_cast<double>(v.imag())};
  }
  return StoreComplex(out_shape, r);
}

}  // namespace

absl::StatusOr<Literal> EvalElementwiseUnary(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  if (operands.size() != 1 || !operands[0]->shape().IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
                     " takes one array operand"));
  }
  const Literal& operand = *operands[0];
  switch (KindOf(operand.element_type())) {
    case TypeKind::kFloat:
      if (FusesFloat(inst.opcode()) &&
          inst.shape().element_type() == operand.element_type() &&
          !ElementwiseFusedPathDisabledForTesting()) {
        return FusedUnaryFloat(inst, operand, ctx);
      }
      return UnaryFloat(inst, operand);
    case TypeKind::kComplex:
      return UnaryComplex(inst, operand);
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
      return UnaryInt(inst, operand);
    default:
      return TypeError(inst, operand.element_type());
  }
}

}  // namespace hloref
