#include "backends/codegen/math_ir.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backends/codegen/emit_context.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace hloref::codegen {

llvm::Value* FpConst(llvm::Type* type, double v) {
  return llvm::ConstantFP::get(type, v);
}

llvm::Value* EmitIsNan(EmitContext& ctx, llvm::Value* x) {
  return ctx.b().CreateFCmpUNO(x, x);
}

llvm::Value* EmitFabs(EmitContext& ctx, llvm::Value* x) {
  return ctx.b().CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
}

llvm::Value* EmitIsInf(EmitContext& ctx, llvm::Value* x) {
  return ctx.b().CreateFCmpOEQ(
      EmitFabs(ctx, x),
      FpConst(x->getType(), std::numeric_limits<double>::infinity()));
}

llvm::Value* EmitIsFinite(EmitContext& ctx, llvm::Value* x) {
  // Ordered and not equal: NaN gives false.
  return ctx.b().CreateFCmpONE(
      EmitFabs(ctx, x),
      FpConst(x->getType(), std::numeric_limits<double>::infinity()));
}

llvm::Value* EmitCopySign(EmitContext& ctx, llvm::Value* magnitude,
                          llvm::Value* sign) {
  return ctx.b().CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude,
                                       sign);
}

namespace {

llvm::Value* SignBit(EmitContext& ctx, llvm::Value* x) {
  IRBuilder& b = ctx.b();
  llvm::Type* it = b.getIntNTy(x->getType()->getPrimitiveSizeInBits());
  return b.CreateICmpSLT(b.CreateBitCast(x, it), llvm::ConstantInt::get(it, 0));
}

llvm::Value* MinMax(EmitContext& ctx, llvm::Value* a, llvm::Value* b_,
                    bool is_max) {
  IRBuilder& b = ctx.b();
  llvm::Value* r = is_max ? b.CreateSelect(b.CreateFCmpOGT(a, b_), a, b_)
                          : b.CreateSelect(b.CreateFCmpOLT(a, b_), a, b_);
  // Zeros of both signs: max prefers +0, min prefers -0.
  llvm::Value* zero = FpConst(a->getType(), 0.0);
  llvm::Value* both_zero =
      b.CreateAnd(b.CreateFCmpOEQ(a, zero), b.CreateFCmpOEQ(b_, zero));
  llvm::Value* a_neg = SignBit(ctx, a);
  llvm::Value* tie =
      is_max ? b.CreateSelect(a_neg, b_, a) : b.CreateSelect(a_neg, a, b_);
  r = b.CreateSelect(both_zero, tie, r);
  r = b.CreateSelect(EmitIsNan(ctx, b_), b_, r);
  return b.CreateSelect(EmitIsNan(ctx, a), a, r);
}

}  // namespace

llvm::Value* EmitXlaMaximum(EmitContext& ctx, llvm::Value* a, llvm::Value* b) {
  return MinMax(ctx, a, b, true);
}

llvm::Value* EmitXlaMinimum(EmitContext& ctx, llvm::Value* a, llvm::Value* b) {
  return MinMax(ctx, a, b, false);
}

llvm::Value* EmitMathCall(EmitContext& ctx, absl::string_view name,
                          absl::Span<llvm::Value* const> args) {
  llvm::Type* t = args[0]->getType();
  std::vector<llvm::Type*> params(args.size(), t);
  auto* fty = llvm::FunctionType::get(t, params, false);
  llvm::Function* f = ctx.GetRuntimeFunction(name, fty);
  return ctx.b().CreateCall(
      f, std::vector<llvm::Value*>(args.begin(), args.end()));
}

llvm::Value* EmitToDouble(EmitContext& ctx, llvm::Value* x) {
  if (x->getType()->isDoubleTy()) return x;
  return ctx.b().CreateFPExt(x, ctx.b().getDoubleTy());
}

llvm::Value* EmitRoundToFloat(EmitContext& ctx, PrimitiveType type,
                              llvm::Value* x) {
  IRBuilder& b = ctx.b();
  if (type == PrimitiveType::kF64) return EmitToDouble(ctx, x);
  if (type == PrimitiveType::kF32) {
    return x->getType()->isDoubleTy() ? b.CreateFPTrunc(x, b.getFloatTy()) : x;
  }
  return EmitRoundToType(ctx, type, x);
}

// ------------------------------------------------- transcendental kernels

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Straight-line double arithmetic at the builder.
class D {
 public:
  explicit D(EmitContext& ctx)
      : ctx_(ctx), b_(ctx.b()), t_(ctx.b().getDoubleTy()) {}
  EmitContext& ctx() { return ctx_; }
  IRBuilder& b() { return b_; }
  llvm::Value* C(double v) { return FpConst(t_, v); }
  llvm::Value* Add(llvm::Value* a, llvm::Value* c) {
    return b_.CreateFAdd(a, c);
  }
  llvm::Value* Sub(llvm::Value* a, llvm::Value* c) {
    return b_.CreateFSub(a, c);
  }
  llvm::Value* Mul(llvm::Value* a, llvm::Value* c) {
    return b_.CreateFMul(a, c);
  }
  llvm::Value* Div(llvm::Value* a, llvm::Value* c) {
    return b_.CreateFDiv(a, c);
  }
  llvm::Value* Neg(llvm::Value* a) { return b_.CreateFNeg(a); }
  llvm::Value* Abs(llvm::Value* a) { return EmitFabs(ctx_, a); }
  llvm::Value* Sel(llvm::Value* c, llvm::Value* a, llvm::Value* e) {
    return b_.CreateSelect(c, a, e);
  }
  llvm::Value* Lt(llvm::Value* a, llvm::Value* c) {
    return b_.CreateFCmpOLT(a, c);
  }
  llvm::Value* Gt(llvm::Value* a, llvm::Value* c) {
    return b_.CreateFCmpOGT(a, c);
  }
  llvm::Value* Eq(llvm::Value* a, llvm::Value* c) {
    return b_.CreateFCmpOEQ(a, c);
  }
  llvm::Value* Unary(llvm::Intrinsic::ID id, llvm::Value* a) {
    return b_.CreateUnaryIntrinsic(id, a);
  }
  // min(x, hi) keeping NaN (a plain compare and select).
  llvm::Value* Min(llvm::Value* x, double hi) {
    return Sel(Gt(x, C(hi)), C(hi), x);
  }
  // c[0] + x * (c[1] + x * (c[2] + ...)).
  llvm::Value* Horner(llvm::Value* x, absl::Span<const double> c) {
    llvm::Value* r = C(c.back());
    for (size_t i = c.size() - 1; i-- > 0;) r = Add(C(c[i]), Mul(x, r));
    return r;
  }
  // The sign bit of x as i1.
  llvm::Value* SignBit(llvm::Value* x) {
    return b_.CreateICmpSLT(b_.CreateBitCast(x, b_.getInt64Ty()),
                            b_.getInt64(0));
  }
  // -x where `neg`, else x.
  llvm::Value* NegIf(llvm::Value* neg, llvm::Value* x) {
    return Sel(neg, Neg(x), x);
  }

 private:
  EmitContext& ctx_;
  IRBuilder& b_;
  llvm::Type* t_;
};

// Taylor coefficients sum_{n >= first} sign^n x^n / n!, every `step`-th.
std::vector<double> Taylor(int first, int last, int step, bool alternate) {
  std::vector<double> c;
  for (int n = first; n <= last; n += step) {
    double f = 1;
    for (int k = 2; k <= n; ++k) f *= k;  // exact up to 22!, then rounded
    const bool neg = alternate && ((n - first) / step) % 2 == 1;
    c.push_back((neg ? -1.0 : 1.0) / f);
  }
  return c;
}

// exp(x) for any double x, as double's exp: x is clamped to [-746, 710]
// (beyond double's underflow and overflow thresholds), x = k ln2 + r with
// |r| <= ln2/2 (Cody-Waite: k * kLn2Hi is exact for |k| < 2^20, and
// x - k * kLn2Hi is exact by Sterbenz), exp(r) by its Taylor polynomial of
// degree 13 (truncation < 0.35^14 / 14! < 2^-57), times 2^k as two powers
// of two built in the exponent field (the second product rounds once, to a
// subnormal, 0 or inf where double's exp does). Relative error a few
// 2^-53 where the result is normal.
llvm::Value* ExpD(D& d, llvm::Value* x) {
  IRBuilder& b = d.b();
  // fdlibm's split of ln 2 (ln2_hi has 32 significant bits).
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kInvLn2 = 1.44269504088896338700e+00;
  llvm::Value* xc = d.Sel(d.Lt(x, d.C(-746)), d.C(-746), d.Min(x, 710));
  llvm::Value* k = d.Unary(llvm::Intrinsic::roundeven, d.Mul(xc, d.C(kInvLn2)));
  llvm::Value* r =
      d.Sub(d.Sub(xc, d.Mul(k, d.C(kLn2Hi))), d.Mul(k, d.C(kLn2Lo)));
  static const std::vector<double> kExpCoeffs = Taylor(0, 13, 1, false);
  llvm::Value* p = d.Horner(r, kExpCoeffs);
  // NaN: k = 0 keeps the conversion defined; p is NaN already.
  llvm::Value* ks = d.Sel(EmitIsNan(d.ctx(), k), d.C(0), k);
  llvm::Value* ki = b.CreateFPToSI(ks, b.getInt64Ty());
  // k in [-1077, 1025]: k1 = floor(k / 2) and k - k1 are in double's
  // normal exponent range.
  llvm::Value* k1 = b.CreateAShr(ki, 1);
  llvm::Value* k2 = b.CreateSub(ki, k1);
  auto pow2 = [&](llvm::Value* e) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(e, b.getInt64(1023)), 52),
                           b.getDoubleTy());
  };
  return d.Mul(d.Mul(p, pow2(k1)), pow2(k2));
}

// expm1(x): x (1 + x/2 + ... + x^13/14!) for |x| < ln2/2 (truncation
// < 2^-60 relative), else exp(x) - 1 (|exp(x) - 1| >= 0.29, so the
// subtraction loses under 2 bits). -0 stays -0.
llvm::Value* Expm1D(D& d, llvm::Value* x) {
  static const std::vector<double> kCoeffs = Taylor(1, 14, 1, false);
  llvm::Value* small = d.Lt(d.Abs(x), d.C(0.34657359027997264));
  llvm::Value* ps = d.Mul(x, d.Horner(x, kCoeffs));
  llvm::Value* pl = d.Sub(ExpD(d, x), d.C(1));
  return d.Sel(small, ps, pl);
}

// log1p(f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: 2 atanh(s) with
// s = f / (2 + f), |s| <= 0.1716, as 2s (1 + s^2/3 + ... + s^20/21)
// (truncation < 0.0295^11 / 23 < 2^-60). -0 stays -0.
llvm::Value* Log1pSmall(D& d, llvm::Value* f) {
  static const std::vector<double> kCoeffs = [] {
    std::vector<double> c;
    for (int n = 1; n <= 21; n += 2) c.push_back(1.0 / n);
    return c;
  }();
  llvm::Value* s = d.Div(f, d.Add(d.C(2), f));
  llvm::Value* s2 = d.Mul(s, s);
  return d.Mul(d.Mul(d.C(2), s), d.Horner(s2, kCoeffs));
}

// log(x) for a double x: x = 2^k m with m in [sqrt(1/2), sqrt(2)) (musl's
// exponent split), log x = k ln2 + log1p(m - 1) (m - 1 exact by Sterbenz;
// for k != 0 the result is >= ln2/2 in magnitude, so no cancellation).
// Subnormal doubles are not split correctly: narrow arguments never are.
llvm::Value* LogD(D& d, llvm::Value* x) {
  IRBuilder& b = d.b();
  constexpr uint64_t kSqrtHalfBits = 0x3fe6a09e667f3bcdULL;
  llvm::Value* ix = b.CreateSub(b.CreateBitCast(x, b.getInt64Ty()),
                                b.getInt64(kSqrtHalfBits));
  llvm::Value* k = b.CreateSIToFP(b.CreateAShr(ix, 52), b.getDoubleTy());
  llvm::Value* mbits =
      b.CreateAdd(b.CreateAnd(ix, b.getInt64(0x000fffffffffffffULL)),
                  b.getInt64(kSqrtHalfBits));
  llvm::Value* m = b.CreateBitCast(mbits, b.getDoubleTy());
  llvm::Value* r = d.Add(d.Mul(k, d.C(0.69314718055994530942)),
                         Log1pSmall(d, d.Sub(m, d.C(1))));
  // Special values: +inf, +-0, negative (NaN stays NaN: r is garbage for
  // it, so select the argument).
  r = d.Sel(d.Eq(x, d.C(kInf)), x, r);
  r = d.Sel(d.Eq(x, d.C(0)), d.C(-kInf), r);
  r = d.Sel(d.Lt(x, d.C(0)), d.C(kNan), r);
  return d.Sel(EmitIsNan(d.ctx(), x), x, r);
}

// log1p(x): the small-argument series where it applies, else log(1 + x)
// (1 + x is exact for narrow x outside that interval below 2^53).
llvm::Value* Log1pD(D& d, llvm::Value* x) {
  IRBuilder& b = d.b();
  llvm::Value* small = b.CreateAnd(d.Gt(x, d.C(-0.29289321881345248)),
                                   d.Lt(x, d.C(0.41421356237309503)));
  return d.Sel(small, Log1pSmall(d, x), LogD(d, d.Add(d.C(1), x)));
}

// x mod pi/2 for |x| (x with at most 24 significant bits, |x| < 2^128):
// |x| = q pi/2 + r, |r| <= pi/4 (+ rounding), q mod 4 as i32. For
// non-finite x the values are unspecified (q defined). Payne-Hanek
// without a table: 2/pi = sum c_i, c_i = K_i 2^(-24(i+1)) with 24-bit K_i,
// so every |x| c_i is exact in double, and reduced modulo 4 exactly
// (p - 4 floor(p/4)); the pieces whose product is a multiple of 4 vanish
// on their own. The reduced pieces are summed in double-double (TwoSum),
// the nearest integer q is split off exactly, and r is the remaining
// fraction times pi/2. Absolute error of the fraction: below 2^-88 (the
// 216 bits of 2/pi times |x| < 2^128), so even the f32 arguments nearest
// a multiple of pi/2 keep about 50 bits of r.
std::pair<llvm::Value*, llvm::Value*> ReducePiOver2(D& d, llvm::Value* x) {
  IRBuilder& b = d.b();
  // 2/pi in 24-bit pieces, computed from pi by Machin's formula with
  // Python integers (independently of any libm); they agree with the
  // well-known fdlibm table of 2/pi (0xA2F983, 0x6E4E44, ...).
  static constexpr std::array<uint32_t, 9> kTwoOverPi = {
      0xa2f983, 0x6e4e44, 0x1529fc, 0x2757d1, 0xf534dd,
      0xc0db62, 0x95993c, 0x439041, 0xfe5163};
  llvm::Value* ax = d.Abs(x);
  // Non-finite x would give NaN pieces; reduce 0 instead (the callers
  // select NaN for them).
  ax = d.Sel(EmitIsFinite(d.ctx(), ax), ax, d.C(0));
  llvm::Value* hi = d.C(0);
  llvm::Value* lo = d.C(0);
  for (size_t i = 0; i < kTwoOverPi.size(); ++i) {
    const double c = std::ldexp(static_cast<double>(kTwoOverPi[i]),
                                -24 * static_cast<int>(i + 1));
    llvm::Value* p = d.Mul(ax, d.C(c));
    llvm::Value* fl = d.Unary(llvm::Intrinsic::floor, d.Mul(p, d.C(0.25)));
    llvm::Value* f = d.Sub(p, d.Mul(fl, d.C(4)));
    // TwoSum(hi, f).
    llvm::Value* s = d.Add(hi, f);
    llvm::Value* bb = d.Sub(s, hi);
    llvm::Value* err = d.Add(d.Sub(hi, d.Sub(s, bb)), d.Sub(f, bb));
    hi = s;
    lo = d.Add(lo, err);
  }
  llvm::Value* q = d.Unary(llvm::Intrinsic::roundeven, hi);
  llvm::Value* y = d.Add(d.Sub(hi, q), lo);  // hi - q is exact
  constexpr double kPiOver2 = 1.57079632679489661923;
  llvm::Value* r = d.Mul(y, d.C(kPiOver2));
  llvm::Value* qi =
      b.CreateAnd(b.CreateFPToSI(q, b.getInt32Ty()), b.getInt32(3));
  return {r, qi};
}

// sin(r), cos(r) for |r| <= pi/4 + tiny: Taylor polynomials to r^15 and
// r^16 (truncation < 2^-54).
llvm::Value* SinPoly(D& d, llvm::Value* r) {
  static const std::vector<double> kCoeffs = Taylor(1, 15, 2, true);
  return d.Mul(r, d.Horner(d.Mul(r, r), kCoeffs));
}
llvm::Value* CosPoly(D& d, llvm::Value* r) {
  static const std::vector<double> kCoeffs = Taylor(0, 16, 2, true);
  return d.Horner(d.Mul(r, r), kCoeffs);
}

llvm::Value* NanIfNotFinite(D& d, llvm::Value* x, llvm::Value* r) {
  return d.Sel(EmitIsFinite(d.ctx(), x), r, d.C(kNan));
}

// sin, cos or tan of x (which = 0, 1, 2).
llvm::Value* Trig(D& d, llvm::Value* x, int which) {
  IRBuilder& b = d.b();
  auto [r, q] = ReducePiOver2(d, x);
  llvm::Value* s = SinPoly(d, r);
  llvm::Value* c = CosPoly(d, r);
  llvm::Value* odd =
      b.CreateICmpNE(b.CreateAnd(q, b.getInt32(1)), b.getInt32(0));
  llvm::Value* v;
  if (which == 0) {
    // sin(|x|) = sin r, cos r, -sin r, -cos r for q = 0..3; sin is odd.
    llvm::Value* neg =
        b.CreateICmpNE(b.CreateAnd(q, b.getInt32(2)), b.getInt32(0));
    v = d.NegIf(b.CreateXor(neg, d.SignBit(x)), d.Sel(odd, c, s));
  } else if (which == 1) {
    // cos(|x|) = cos r, -sin r, -cos r, sin r.
    llvm::Value* neg = b.CreateICmpNE(
        b.CreateAnd(b.CreateAdd(q, b.getInt32(1)), b.getInt32(2)),
        b.getInt32(0));
    v = d.NegIf(neg, d.Sel(odd, s, c));
  } else {
    // tan(|x|) = sin r / cos r, or -cos r / sin r for odd q; tan is odd.
    llvm::Value* t = d.Sel(odd, d.Neg(d.Div(c, s)), d.Div(s, c));
    v = d.NegIf(d.SignBit(x), t);
  }
  return NanIfNotFinite(d, x, v);
}

}  // namespace

llvm::Value* EmitExpKernel(EmitContext& ctx, llvm::Value* x) {
  D d(ctx);
  return ExpD(d, x);
}

llvm::Value* EmitExpm1Kernel(EmitContext& ctx, llvm::Value* x) {
  D d(ctx);
  return Expm1D(d, x);
}

llvm::Value* EmitLogKernel(EmitContext& ctx, llvm::Value* x) {
  D d(ctx);
  return LogD(d, x);
}

llvm::Value* EmitLog1pKernel(EmitContext& ctx, llvm::Value* x) {
  D d(ctx);
  return Log1pD(d, x);
}

llvm::Value* EmitLogisticKernel(EmitContext& ctx, llvm::Value* x) {
  // exp(-x) is clamped at e^700: 1 / (1 + e^700) rounds to 0 in f32.
  D d(ctx);
  return d.Div(d.C(1), d.Add(d.C(1), ExpD(d, d.Neg(x))));
}

llvm::Value* EmitTanhKernel(EmitContext& ctx, llvm::Value* x) {
  // tanh|x| = t / (t + 2), t = expm1(2|x|), with |x| capped at 20 (where
  // tanh is 1 in double); the sign of x (-0 included) copied on.
  D d(ctx);
  llvm::Value* t = Expm1D(d, d.Mul(d.C(2), d.Min(d.Abs(x), 20)));
  return EmitCopySign(ctx, d.Div(t, d.Add(t, d.C(2))), x);
}

llvm::Value* EmitSinKernel(EmitContext& ctx, llvm::Value* x) {
  D d(ctx);
  return Trig(d, x, 0);
}

llvm::Value* EmitCosKernel(EmitContext& ctx, llvm::Value* x) {
  D d(ctx);
  return Trig(d, x, 1);
}

llvm::Value* EmitTanKernel(EmitContext& ctx, llvm::Value* x) {
  D d(ctx);
  return Trig(d, x, 2);
}

llvm::Value* EmitErfKernel(EmitContext& ctx, llvm::Value* x) {
  // erf(a) = 2/sqrt(pi) a exp(-a^2) sum_n (2a^2)^n / (2n+1)!! (a series
  // of positive terms: no cancellation), a = min(|x|, 4): erf(4) is within
  // 1.6e-8 of 1 and rounds to 1 in f32 and every narrower type. 61 terms
  // bring the truncation at a = 4 below 2^-56 (checked numerically when
  // the count was chosen). a^2 is exact for a narrow a.
  static const std::vector<double> kCoeffs = [] {
    std::vector<double> c;
    double v = 1;
    for (int n = 0; n <= 60; ++n) {
      if (n > 0) v *= 2.0 / (2 * n + 1);
      c.push_back(v);
    }
    return c;
  }();
  D d(ctx);
  llvm::Value* a = d.Min(d.Abs(x), 4);
  llvm::Value* z = d.Mul(a, a);
  llvm::Value* s = d.Horner(z, kCoeffs);
  constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
  llvm::Value* r =
      d.Mul(d.Mul(d.C(kTwoOverSqrtPi), a), d.Mul(ExpD(d, d.Neg(z)), s));
  return EmitCopySign(ctx, r, x);
}

llvm::Value* EmitSinhKernel(EmitContext& ctx, llvm::Value* x) {
  // sinh|x| = (t + t / (t + 1)) / 2, t = expm1(|x|) (no cancellation),
  // |x| capped at 100 (sinh overflows f32 at 89.5).
  D d(ctx);
  llvm::Value* t = Expm1D(d, d.Min(d.Abs(x), 100));
  llvm::Value* s = d.Mul(d.C(0.5), d.Add(t, d.Div(t, d.Add(t, d.C(1)))));
  return EmitCopySign(ctx, s, x);
}

llvm::Value* EmitCoshKernel(EmitContext& ctx, llvm::Value* x) {
  // (e + 1/e) / 2, e = exp(min(|x|, 100)).
  D d(ctx);
  llvm::Value* e = ExpD(d, d.Min(d.Abs(x), 100));
  return d.Mul(d.C(0.5), d.Add(e, d.Div(d.C(1), e)));
}

llvm::Value* EmitAsinhKernel(EmitContext& ctx, llvm::Value* x) {
  // asinh|x| = log1p(a + a^2 / (1 + sqrt(1 + a^2))) (no cancellation for
  // small a; a^2 exact and finite for a narrow a); +-inf kept.
  D d(ctx);
  llvm::Value* a = d.Abs(x);
  llvm::Value* a2 = d.Mul(a, a);
  llvm::Value* root = d.Unary(llvm::Intrinsic::sqrt, d.Add(d.C(1), a2));
  llvm::Value* r = Log1pD(d, d.Add(a, d.Div(a2, d.Add(d.C(1), root))));
  r = d.Sel(d.Eq(a, d.C(kInf)), a, r);
  return EmitCopySign(ctx, r, x);
}

llvm::Value* EmitAcoshKernel(EmitContext& ctx, llvm::Value* x) {
  // acosh x = log1p(u + sqrt(u (x + 1))), u = x - 1 (exact near 1); NaN
  // below 1.
  D d(ctx);
  llvm::Value* u = d.Sub(x, d.C(1));
  llvm::Value* root =
      d.Unary(llvm::Intrinsic::sqrt, d.Mul(u, d.Add(x, d.C(1))));
  llvm::Value* r = Log1pD(d, d.Add(u, root));
  return d.Sel(d.Lt(x, d.C(1)), d.C(kNan), r);
}

llvm::Value* EmitAtanhKernel(EmitContext& ctx, llvm::Value* x) {
  // (log1p(x) - log1p(-x)) / 2: the two logs have opposite signs, so no
  // cancellation; +-1 give +-inf, |x| > 1 NaN, -0 stays -0.
  D d(ctx);
  return d.Mul(d.C(0.5), d.Sub(Log1pD(d, x), Log1pD(d, d.Neg(x))));
}

llvm::Value* EmitPowKernel(EmitContext& ctx, llvm::Value* x, llvm::Value* y) {
  // |x|^y = exp(y log|x|): for the results that matter in f32 |y log|x||
  // < 750, so its absolute error (a few 2^-53 relative) stays below 2^-42
  // and the result's relative error below 2^-41. Infinite and zero |x|
  // and infinite y flow through log and exp (log 0 = -inf, exp(+-inf) =
  // e^+-700); the rest of Annex F is selected explicitly.
  D d(ctx);
  IRBuilder& b = ctx.b();
  llvm::Value* m = ExpD(d, d.Mul(y, LogD(d, d.Abs(x))));
  llvm::Value* y_finite = EmitIsFinite(ctx, y);
  llvm::Value* y_int =
      b.CreateAnd(y_finite, d.Eq(d.Unary(llvm::Intrinsic::floor, y), y));
  llvm::Value* half = d.Mul(y, d.C(0.5));
  llvm::Value* y_odd = b.CreateAnd(
      y_int, b.CreateFCmpUNE(d.Unary(llvm::Intrinsic::floor, half), half));
  // A negative base (-0 and -inf included) with an odd integer exponent
  // gives the negated magnitude.
  llvm::Value* r = d.NegIf(b.CreateAnd(d.SignBit(x), y_odd), m);
  // Negative finite base, finite non-integer exponent: NaN.
  llvm::Value* x_neg_finite = b.CreateAnd(d.Lt(x, d.C(0)), d.Gt(x, d.C(-kInf)));
  r = d.Sel(
      b.CreateAnd(x_neg_finite, b.CreateAnd(y_finite, b.CreateNot(y_int))),
      d.C(kNan), r);
  // pow(-1, +-inf) = 1, pow(1, y) = 1, pow(x, +-0) = 1.
  llvm::Value* one =
      b.CreateOr(b.CreateAnd(d.Eq(x, d.C(-1)), EmitIsInf(ctx, y)),
                 b.CreateOr(d.Eq(x, d.C(1)), d.Eq(y, d.C(0))));
  return d.Sel(one, d.C(1), r);
}

}  // namespace hloref::codegen
