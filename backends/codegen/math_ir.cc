#include "backends/codegen/math_ir.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

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

// exp(x) for any double x, as double's exp down to e^-708 and 0 below
// (every caller rounds to f32 or narrower): x is clamped to [-708, 710]
// (the overflow threshold beyond 710), x = k ln2 + r with
// |r| <= ln2/2 (Cody-Waite: k * kLn2Hi is exact for |k| < 2^20, and
// x - k * kLn2Hi is exact by Sterbenz), exp(r) by its Taylor polynomial of
// degree 13 (truncation < 0.35^14 / 14! < 2^-57), times 2^k as two powers
// of two built in the exponent field (the second product rounds once, to
// inf where double's exp does). Relative error a few
// 2^-53 where the result is normal.
llvm::Value* ExpD(D& d, llvm::Value* x) {
  IRBuilder& b = d.b();
  // fdlibm's split of ln 2 (ln2_hi has 32 significant bits).
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kInvLn2 = 1.44269504088896338700e+00;
  // Below -708 exp is under 2^-1021 and p 2^k would underflow to a
  // subnormal or 0, with a microcode assist per operation on x86 (an
  // attention mask's -inf in bf16 or f16); these kernels round every
  // result to f32 or narrower, where it is 0 either way, and no caller
  // scales it up (sinh and cosh pass |x|), so it is +0 from there on.
  llvm::Value* below = d.Lt(x, d.C(-708));
  llvm::Value* xc = d.Sel(below, d.C(-708), d.Min(x, 710));
  llvm::Value* k = d.Unary(llvm::Intrinsic::roundeven, d.Mul(xc, d.C(kInvLn2)));
  llvm::Value* r =
      d.Sub(d.Sub(xc, d.Mul(k, d.C(kLn2Hi))), d.Mul(k, d.C(kLn2Lo)));
  static const std::vector<double> kExpCoeffs = Taylor(0, 13, 1, false);
  llvm::Value* p = d.Sel(below, d.C(0), d.Horner(r, kExpCoeffs));
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

llvm::Value* EmitExpKernelF32(EmitContext& ctx, llvm::Value* x) {
  IRBuilder& b = ctx.b();
  llvm::Type* t = x->getType();
  auto c = [t](double v) { return FpConst(t, v); };
  auto fma = [&](llvm::Value* m0, llvm::Value* m1, llvm::Value* a) {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {t}, {m0, m1, a});
  };
  // ln 2 rounded to f32 (0x3f317218) and the rest, rounded to f32.
  constexpr double kLn2Hi = 0x1.62e43p-1;
  constexpr double kLn2Lo = 0.69314718055994530942 - kLn2Hi;
  constexpr double kInvLn2 = 1.44269504088896338700;
  // Clamped beyond f32's overflow (88.73) and underflow (-103.97)
  // thresholds, keeping NaN (ordered compares).
  llvm::Value* xc = b.CreateSelect(b.CreateFCmpOGT(x, c(89)), c(89), x);
  llvm::Value* below = b.CreateFCmpOLT(xc, c(-104));
  xc = b.CreateSelect(below, c(-104), xc);
  // k = x / ln 2 rounded to an integer (ties to even) by the shifter
  // 1.5 * 2^23: |x / ln 2| < 2^22, so the fused sum's ulp is 1 and
  // subtracting the shifter again is exact. One rounding of the exact
  // product, where roundeven(x * c) rounded twice, and two p0/p5
  // operations on x86 where vrndscaleps is two port-0 micro-ops (exp's
  // loop is port-bound in softmax).
  constexpr double kShifter = 0x1.8p23;
  llvm::Value* k = b.CreateFSub(fma(xc, c(kInvLn2), c(kShifter)), c(kShifter));
  // r = x - k ln2, each step one fused rounding. abs(k - x / ln 2) <=
  // 1/2 + 104 abs(c - 1 / ln 2) < 1/2 + 2^-18 for the f32 constant c, so
  // abs(r) < ln2 / 2 + 2^-19 < 0.3466.
  llvm::Value* r = fma(k, c(-kLn2Hi), xc);
  r = fma(k, c(-kLn2Lo), r);
  // 1 + r + r^2 Q(r), Q of degree 4: fitted to (e^r - 1 - r) / r^2 on
  // |r| <= 0.3466 + 2^-20 by least squares reweighted toward the minimax
  // relative error (long double reference, numpy; coefficients rounded to
  // f32): 0.064 ulp (2^-24 relative) before rounding, 1.04 with the f32
  // Horner steps emulated, where the degree-7 Taylor polynomial used
  // before gave 1.03 with one FMA more (exp's loop is the FMA pipes' work
  // in softmax). Horner's rule with fused steps.
  static constexpr double kP[] = {1.0,
                                  1.0,
                                  0.4999999403953552,
                                  0.1666652113199234,
                                  0.04166838899254799,
                                  0.008368711918592453,
                                  0.0013814590638503432};
  llvm::Value* p = c(kP[6]);
  for (int i = 5; i >= 0; --i) p = fma(p, r, c(kP[i]));
  // Below -104 the result is +0 (e^-104 < 2^-150). Scaling p = 0 gives it
  // exactly, where scaling p by 2^-150 would underflow, and an underflow
  // costs a microcode assist on x86: an attention mask's -inf or -1e9 made
  // exp 15x slower (measured, docs/performance.md). AVX-512 folds the
  // select into the last FMA's zero-masking.
  p = b.CreateSelect(below, c(0), p);
  // k in [-150, 128]; the target's ldexp where it has one (one
  // instruction), rounding once as below.
  if (ctx.scale_by_power_of_two) return ctx.scale_by_power_of_two(ctx, p, k);
  // 2^k as two powers of two in the exponent field (k in [-150, 128]:
  // both halves in [-75, 64]); the second product rounds once (to a
  // subnormal, 0 or inf where the exact value does). NaN: k = 0 keeps
  // the conversion defined; p is NaN already.
  llvm::Type* it = t->getWithNewType(b.getInt32Ty());
  llvm::Value* ks = b.CreateSelect(EmitIsNan(ctx, k), c(0), k);
  llvm::Value* ki = b.CreateFPToSI(ks, it);
  llvm::Value* k1 = b.CreateAShr(ki, llvm::ConstantInt::get(it, 1));
  llvm::Value* k2 = b.CreateSub(ki, k1);
  auto pow2 = [&](llvm::Value* e) {
    return b.CreateBitCast(
        b.CreateShl(b.CreateAdd(e, llvm::ConstantInt::get(it, 127)),
                    llvm::ConstantInt::get(it, 23)),
        t);
  };
  return b.CreateFMul(b.CreateFMul(p, pow2(k1)), pow2(k2));
}

llvm::Value* EmitTanhKernelF32(EmitContext& ctx, llvm::Value* x) {
  IRBuilder& b = ctx.b();
  llvm::Type* t = x->getType();
  auto c = [t](double v) { return FpConst(t, v); };
  auto fma = [&](llvm::Value* m0, llvm::Value* m1, llvm::Value* a) {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {t}, {m0, m1, a});
  };
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // |x| < 0.5625: a + a^3 P(a^2), P of degree 5 fitted by weighted least
  // squares to (tanh(a) - a) / a^3 on a^2 in [0, 0.5625^2] (long double
  // reference, coefficients rounded to f32): 0.74 ulp with the f32 steps
  // emulated; a subnormal a gives a (a^2 is 0).
  static constexpr double kP[] = {-0.3333333134651184,  0.13333284854888916,
                                  -0.05395808815956116, 0.021771684288978577,
                                  -0.00837811641395092, 0.0023531841579824686};
  llvm::Value* s = b.CreateFMul(a, a);
  llvm::Value* p = c(kP[5]);
  for (int i = 4; i >= 0; --i) p = fma(p, s, c(kP[i]));
  llvm::Value* small = fma(b.CreateFMul(a, s), p, a);
  // Otherwise 1 - 2e / (1 + e), e = exp(-2a) <= exp(-1.125) = 0.325: the
  // quotient is at most 0.49, so its few ulps of error shrink against the
  // result (>= 0.5); 1 - e / 1 + e would lose them to the cancellation.
  // NaN stays NaN (the compare is false, exp(NaN) is NaN); inf gives 1.
  // a is capped at 10 here: from there on e <= exp(-20) < 2^-28, so
  // q < 2^-26 and 1 - q rounds to 1 whatever a is, while an uncapped
  // a > 43.7 would make e subnormal, and subnormal results cost a
  // microcode assist per instruction on x86 (measured: GELU's tanh at
  // 20x its normal cost on an MLP block's activations). The ordered
  // compare keeps NaN.
  llvm::Value* ac = b.CreateSelect(b.CreateFCmpOGT(a, c(10)), c(10), a);
  llvm::Value* e = EmitExpKernelF32(ctx, b.CreateFNeg(b.CreateFAdd(ac, ac)));
  llvm::Value* q = b.CreateFDiv(b.CreateFAdd(e, e), b.CreateFAdd(c(1), e));
  llvm::Value* large = b.CreateFSub(c(1), q);
  llvm::Value* r = b.CreateSelect(b.CreateFCmpOLT(a, c(0.5625)), small, large);
  return EmitCopySign(ctx, r, x);
}

llvm::Value* EmitErfKernelF32(EmitContext& ctx, llvm::Value* x) {
  IRBuilder& b = ctx.b();
  llvm::Type* t = x->getType();
  auto c = [t](double v) { return FpConst(t, v); };
  auto fma = [&](llvm::Value* m0, llvm::Value* m1, llvm::Value* a) {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {t}, {m0, m1, a});
  };
  // Clamps by ordered compares: NaN passes through both.
  auto clamp = [&](llvm::Value* v, double lo, double hi) {
    v = b.CreateSelect(b.CreateFCmpOLT(v, c(lo)), c(lo), v);
    return b.CreateSelect(b.CreateFCmpOGT(v, c(hi)), c(hi), v);
  };
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // Both pieces are evaluated for every lane on clamped arguments (no
  // overflow, and no underflow: x^2 of |x| < 2^-63 would be one, at a
  // microcode assist on x86), and the one for |x| selected.
  //
  // |x| < 1: erf x = x + x R(x^2), R(z) = erf(sqrt z) / sqrt z - 1 of
  // degree 6, fitted on x in [0, 1] by least squares reweighted toward
  // the minimax absolute error (scipy's erf as the reference, Lawson's
  // iteration; 2^-29.7 before rounding the coefficients to f32). One
  // rounding at the end: x (1 + R) by a fused multiply-add.
  static constexpr double kR[] = {0.12837916612625122,  -0.3761262595653534,
                                  0.11283600330352783,  -0.02685445360839367,
                                  0.005189549643546343, -0.000802095455583185,
                                  7.889468542998657e-05};
  llvm::Value* as = clamp(a, 0x1p-32, 1.0);
  llvm::Value* z = b.CreateFMul(as, as);
  llvm::Value* r = c(kR[6]);
  for (int i = 5; i >= 0; --i) r = fma(r, z, c(kR[i]));
  llvm::Value* small = fma(x, r, x);
  // 1 <= |x| < 4: erf x = 1 - exp(-x^2) g(|x|), g = exp(x^2) erfc (scipy's
  // erfcx) of degree 8 in |x| - 1, fitted as R with the error weighted by
  // exp(-x^2) (the absolute error in erf: 2^-28.6). x^2 = h + l exactly
  // (the fused residual), exp(-h - l) = exp(-h) (1 - l) to 2^-40. From
  // |x| = 4 on the result rounds to 1 (erfc 4 = 1.5e-8 < 2^-25).
  // Emulated in f32 with these coefficients on every 37th f32 of [0, 5]:
  // 1.11 ulp at most (at 0.9885, in the first piece), 0.83 above 1.
  static constexpr double kG[] = {
      0.42758357524871826,   -0.2732110619544983,    0.15435054898262024,
      -0.07905333489179611,  0.03687494993209839,    -0.01511011179536581,
      0.0049112518317997456, -0.0010570435551926494, 0.00010684136213967577};
  llvm::Value* al = clamp(a, 1.0, 4.0);
  llvm::Value* h = b.CreateFMul(al, al);
  llvm::Value* l = fma(al, al, b.CreateFNeg(h));
  llvm::Value* e = EmitExpKernelF32(ctx, b.CreateFNeg(h));
  llvm::Value* u = b.CreateFSub(al, c(1.0));
  llvm::Value* g = c(kG[8]);
  for (int i = 7; i >= 0; --i) g = fma(g, u, c(kG[i]));
  g = fma(b.CreateFNeg(g), l, g);
  llvm::Value* large = EmitCopySign(ctx, fma(b.CreateFNeg(e), g, c(1.0)), x);
  // NaN: the compare is false and the second piece is NaN.
  return b.CreateSelect(b.CreateFCmpOLT(a, c(1.0)), small, large);
}

llvm::Value* EmitLogisticKernelF32(EmitContext& ctx, llvm::Value* x) {
  IRBuilder& b = ctx.b();
  llvm::Type* t = x->getType();
  // e = exp(-|x|) in (0, 1] never overflows; 1 / (1 + e) for x >= 0 and
  // e / (1 + e) for x < 0, so the subnormal results of large negative x
  // come out of exp (1 + e rounds to 1) instead of 1 / (1 + inf) = 0.
  // NaN: the compare is false and 1 / (1 + NaN) is NaN.
  llvm::Value* e = EmitExpKernelF32(
      ctx, b.CreateFNeg(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x)));
  llvm::Value* one = FpConst(t, 1);
  llvm::Value* num = b.CreateSelect(b.CreateFCmpOLT(x, FpConst(t, 0)), e, one);
  return b.CreateFDiv(num, b.CreateFAdd(one, e));
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

// ------------------------------------------------ f64 (double-double) kernels

namespace {

// A double-double value hi + lo (|lo| at most about ulp(hi), unless a
// comment says it is unnormalised).
struct DD {
  llvm::Value* hi;
  llvm::Value* lo;
};

// Double-double arithmetic at the builder: the error-free transformations
// (TwoSum; TwoProd with an explicit llvm.fma, the only FMAs the kernels
// emit) and the few compound steps the kernels use.
class X : public D {
 public:
  explicit X(EmitContext& ctx) : D(ctx) {}
  llvm::Value* Fma(llvm::Value* a, llvm::Value* c, llvm::Value* e) {
    return b().CreateIntrinsic(llvm::Intrinsic::fma, {a->getType()}, {a, c, e});
  }
  // a + c = s + err exactly (Knuth).
  DD TwoSum(llvm::Value* a, llvm::Value* c) {
    llvm::Value* s = Add(a, c);
    llvm::Value* bb = Sub(s, a);
    llvm::Value* err = Add(Sub(a, Sub(s, bb)), Sub(c, bb));
    return {s, err};
  }
  // The same for |a| >= |c| (or a = 0) (Dekker).
  DD FastTwoSum(llvm::Value* a, llvm::Value* c) {
    llvm::Value* s = Add(a, c);
    return {s, Sub(c, Sub(s, a))};
  }
  // a * c = p + err exactly (unless it underflows).
  DD TwoProd(llvm::Value* a, llvm::Value* c) {
    llvm::Value* p = Mul(a, c);
    return {p, Fma(a, c, Neg(p))};
  }
  DD Norm(DD x) { return FastTwoSum(x.hi, x.lo); }
  llvm::Value* Round(DD x) { return Add(x.hi, x.lo); }
  DD Const(double hi, double lo) { return {C(hi), C(lo)}; }
  DD Neg(DD x) { return {D::Neg(x.hi), D::Neg(x.lo)}; }
  using D::Neg;
  DD Sel(llvm::Value* c, DD a, DD e) {
    return {D::Sel(c, a.hi, e.hi), D::Sel(c, a.lo, e.lo)};
  }
  using D::Sel;
  // x + y, normalised (relative error about 2^-104 without cancellation).
  DD Add(DD x, DD y) {
    DD s = TwoSum(x.hi, y.hi);
    return FastTwoSum(s.hi, Add(s.lo, Add(x.lo, y.lo)));
  }
  using D::Add;
  DD Mul(DD x, DD y) {
    DD p = TwoProd(x.hi, y.hi);
    return FastTwoSum(p.hi, Add(p.lo, Add(Mul(x.hi, y.lo), Mul(x.lo, y.hi))));
  }
  using D::Mul;
  // x / y, normalised, with one division: q = x_hi (1 / y_hi) is within
  // 2 ulp of the quotient and the FMA residual x_hi - q y_hi (one
  // rounding of a value of a few ulp of x_hi) corrects it to about
  // 2^-104. Only for divisors with a finite normal reciprocal (the
  // kernels' lie in [2^-62, 2^62]); DivExact divides twice and takes any
  // divisor. The low part is 0 where it would not be finite (infinite or
  // zero divisors, infinite quotients), so the selects of the callers see
  // the IEEE quotient in hi.
  DD Div(DD x, DD y) { return DivImpl(x, y, false); }
  DD DivExact(DD x, DD y) { return DivImpl(x, y, true); }
  DD DivImpl(DD x, DD y, bool exact) {
    llvm::Value* inv = exact ? nullptr : Div(C(1), y.hi);
    llvm::Value* q = exact ? Div(x.hi, y.hi) : Mul(x.hi, inv);
    llvm::Value* r = Fma(Neg(q), y.hi, x.hi);
    llvm::Value* num = Sub(Add(r, x.lo), Mul(q, y.lo));
    llvm::Value* lo = exact ? Div(num, y.hi) : Mul(num, inv);
    lo = Sel(EmitIsFinite(ctx(), lo), lo, C(0));
    DD n = FastTwoSum(q, lo);
    // Keep q itself where the sum is not finite.
    return {Sel(EmitIsFinite(ctx(), q), n.hi, q),
            Sel(EmitIsFinite(ctx(), q), n.lo, C(0))};
  }
  using D::Div;
  // sqrt(x) for x >= 0; the low part from the exact residual.
  DD Sqrt(DD x) {
    llvm::Value* r = Unary(llvm::Intrinsic::sqrt, x.hi);
    llvm::Value* res = Add(Fma(Neg(r), r, x.hi), x.lo);
    llvm::Value* lo = Div(res, Mul(C(2), r));
    return {r, Sel(EmitIsFinite(ctx(), lo), lo, C(0))};
  }
  // 2^e for an i64 e in double's normal exponent range.
  llvm::Value* Pow2(llvm::Value* e) {
    return b().CreateBitCast(
        b().CreateShl(b().CreateAdd(e, b().getInt64(1023)), 52),
        b().getDoubleTy());
  }
  llvm::Value* ToI64(llvm::Value* v) {
    return b().CreateFPToSI(v, b().getInt64Ty());
  }
};

constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
constexpr double kPio2Hi = 0x1.921fb54442d18p+0;
constexpr double kPio2Lo = 0x1.1a62633145c07p-54;
constexpr double kPio2Lo2 = -0x1.f1976b7ed8fbcp-110;
constexpr double kPiHi = 0x1.921fb54442d18p+1;
constexpr double kPiLo = 0x1.1a62633145c07p-53;

// exp(r) for a double-double |r| <= ln2/2 + 2^-40 as a normalised
// double-double E in [0.7, 1.42]: 1 + r_hi exactly (TwoSum), then
// r_hi^2 (1/2 + r_hi/6 + ... + r_hi^12/14!) (Taylor, truncation
// < 0.35^15/15! < 2^-60) and r_lo (1 + r_hi) in the low part. The
// polynomial part is at most 0.07 with a relative error of a few 2^-53,
// so E is within about 0.2 ulp (2^-53 units) before rounding.
DD ExpSmall(X& d, DD r) {
  static const std::vector<double> kCoeffs = Taylor(2, 14, 1, false);
  llvm::Value* q = d.Mul(d.Mul(r.hi, r.hi), d.Horner(r.hi, kCoeffs));
  DD s = d.TwoSum(d.C(1), r.hi);
  llvm::Value* lo = d.Add(s.lo, d.Add(q, d.Mul(r.lo, d.Add(d.C(1), r.hi))));
  return d.FastTwoSum(s.hi, lo);
}

// Argument reduction of exp: x = k ln2 + r for a double-double x whose
// high part is clamped to [-746, 712] (beyond both of double's exp
// thresholds; NaN kept), k = round(x / ln2) as a double, r double-double.
// x_hi - k ln2_hi is exact (k has at most 11 bits, ln2_hi's product with
// it needs 64 bits: it is formed by TwoProd), the rest goes to the low
// part: r is within 2^-100 of the exact remainder.
struct ExpReduced {
  llvm::Value* k;  // NaN for a NaN argument
  DD r;
};
ExpReduced ExpReduce(X& d, DD x) {
  llvm::Value* xc = d.Sel(d.Lt(x.hi, d.C(-746)), d.C(-746), d.Min(x.hi, 712));
  llvm::Value* xl = d.Sel(d.Eq(xc, x.hi), x.lo, d.C(0));
  llvm::Value* k = d.Unary(llvm::Intrinsic::roundeven,
                           d.Mul(xc, d.C(1.44269504088896338700e+00)));
  DD kh = d.TwoProd(k, d.C(kLn2Hi));
  // xc - kh.hi is exact: both are within a factor 2 of each other (or
  // k = 0).
  DD r = d.TwoSum(d.Sub(xc, kh.hi), d.Neg(d.Mul(k, d.C(kLn2Lo))));
  r.lo = d.Add(r.lo, d.Sub(xl, kh.lo));
  return {k, d.Norm(r)};
}

// exp(x_hi + x_lo) * 2^shift as double (shift in {0, -1}): E 2^k rounded
// to double, then scaled by two powers of two built in the exponent field
// (exact for normal results; a subnormal result is rounded once more).
// Overflow and underflow come out as IEEE's (inf, subnormals, 0).
// exp(x) = E 2^k before the scaling (k as a double, 0 for NaN).
struct ExpParts {
  llvm::Value* k;
  DD e;
};
ExpParts ExpEval(X& d, DD x) {
  ExpReduced red = ExpReduce(d, x);
  return {d.Sel(EmitIsNan(d.ctx(), red.k), d.C(0), red.k), ExpSmall(d, red.r)};
}
llvm::Value* ExpScaleRound(X& d, const ExpParts& p, int shift) {
  IRBuilder& b = d.b();
  llvm::Value* v = d.Round(p.e);
  llvm::Value* ki = b.CreateAdd(d.ToI64(p.k), b.getInt64(shift));
  llvm::Value* k1 = b.CreateAShr(ki, 1);
  llvm::Value* k2 = b.CreateSub(ki, k1);
  return d.Mul(d.Mul(v, d.Pow2(k1)), d.Pow2(k2));
}
// E 2^k as a double-double, exact where |k| <= 60 (k is clamped to
// [-60, 60]: the callers use the result only where it is in range).
DD ExpScaleDD(X& d, const ExpParts& p) {
  llvm::Value* kc = d.Sel(d.Lt(p.k, d.C(-60)), d.C(-60), d.Min(p.k, 60));
  llvm::Value* s = d.Pow2(d.ToI64(kc));
  return {d.Mul(p.e.hi, s), d.Mul(p.e.lo, s)};
}
llvm::Value* Exp64(X& d, DD x, int shift = 0) {
  return ExpScaleRound(d, ExpEval(d, x), shift);
}

// expm1(x) as a normalised double-double for x <= 700 (NaN kept):
//   |x| < ln2/2: x + x^2/2 (TwoProd, TwoSum) + x^3 (1/6 + ... + x^12/15!)
//   (truncation < 2^-70 relative);
//   else 2^k E - 1 with 2^k E_hi exact and the subtraction by TwoSum
//   (x clamped below at -60, where expm1 is -1 in double).
DD Expm1DD(X& d, llvm::Value* x) {
  static const std::vector<double> kCoeffs = Taylor(3, 15, 1, false);
  DD h = d.TwoProd(x, d.Mul(d.C(0.5), x));
  llvm::Value* c = d.Mul(d.Mul(x, d.Mul(x, x)), d.Horner(x, kCoeffs));
  DD s = d.TwoSum(x, h.hi);
  DD small = d.FastTwoSum(s.hi, d.Add(s.lo, d.Add(h.lo, c)));

  llvm::Value* xc = d.Sel(d.Lt(x, d.C(-60)), d.C(-60), x);
  ExpReduced red = ExpReduce(d, {xc, d.C(0)});
  DD e = ExpSmall(d, red.r);
  llvm::Value* ks = d.Sel(EmitIsNan(d.ctx(), red.k), d.C(0), red.k);
  llvm::Value* p = d.Pow2(d.ToI64(d.Min(ks, 1020)));
  DD u = d.TwoSum(d.Mul(e.hi, p), d.C(-1));
  DD large = d.FastTwoSum(u.hi, d.Add(u.lo, d.Mul(e.lo, p)));
  return d.Sel(d.Lt(d.Abs(x), d.C(0.34657359027997264)), small, large);
}

// log of x = 2^k (1 + f) (f in [sqrt(1/2) - 1, sqrt(2) - 1], exact) plus a
// small relative correction `corr` (log(1 + corr) = corr to 2^-104), as
// an unnormalised double-double:
//   log1p(f) = 2 atanh(s), s = f / (2 + f) as a double-double (exact
//   residual by FMA), = 2s + (2/3) s^3 (double-double) + s^5 (2/5 +
//   2 s^2/7 + ... + 2 s^20/23) (double; at most 6e-5, truncation
//   < 2^-70);
//   k ln2 with ln2 as a double-double and k ln2_hi by TwoProd.
// Relative error about 2^-66 (pow needs that: y log|x| up to 745).
DD LogCore(X& d, llvm::Value* k, llvm::Value* f, llvm::Value* corr) {
  static const std::vector<double> kTail = [] {
    std::vector<double> c;
    for (int n = 5; n <= 23; n += 2) c.push_back(2.0 / n);
    return c;
  }();
  DD den = d.TwoSum(d.C(2), f);
  // s + sl = f / (2 + f) with one division (as X::Div).
  llvm::Value* inv = d.Div(d.C(1), den.hi);
  llvm::Value* s = d.Mul(f, inv);
  llvm::Value* rem = d.Fma(d.Neg(s), den.hi, f);
  llvm::Value* sl = d.Mul(d.Sub(rem, d.Mul(s, den.lo)), inv);
  DD s2 = d.TwoProd(s, s);
  s2.lo = d.Add(s2.lo, d.Mul(d.C(2), d.Mul(s, sl)));
  DD s3 = d.Mul(s2, DD{s, sl});
  DD c3 = d.Mul(s3, d.Const(0x1.5555555555555p-1, 0x1.5555555555555p-55));
  llvm::Value* tail = d.Mul(d.Mul(s3.hi, s2.hi), d.Horner(s2.hi, kTail));
  // 2s + c3 (same sign), then k ln2.
  DD a = d.TwoSum(d.Mul(d.C(2), s), c3.hi);
  a.lo = d.Add(a.lo, d.Add(d.Add(d.Mul(d.C(2), sl), c3.lo), d.Add(tail, corr)));
  DD kl = d.TwoProd(k, d.C(kLn2Hi));
  kl.lo = d.Add(kl.lo, d.Mul(k, d.C(kLn2Lo)));
  DD r = d.TwoSum(kl.hi, a.hi);
  r.lo = d.Add(r.lo, d.Add(a.lo, kl.lo));
  return r;
}

// log(x_hi + x_lo) for a positive finite x_hi (subnormals included) and
// |x_lo| <= ulp(x_hi): musl's exponent split at sqrt(1/2).
DD LogDD(X& d, llvm::Value* xh, llvm::Value* xl) {
  IRBuilder& b = d.b();
  llvm::Value* sub = d.Lt(xh, d.C(0x1p-1022));
  llvm::Value* xs = d.Sel(sub, d.Mul(xh, d.C(0x1p54)), xh);
  constexpr uint64_t kSqrtHalfBits = 0x3fe6a09e667f3bcdULL;
  llvm::Value* ix = b.CreateSub(b.CreateBitCast(xs, b.getInt64Ty()),
                                b.getInt64(kSqrtHalfBits));
  llvm::Value* k = b.CreateSIToFP(b.CreateAShr(ix, 52), b.getDoubleTy());
  k = d.Sub(k, d.Sel(sub, d.C(54), d.C(0)));
  llvm::Value* m = b.CreateBitCast(
      b.CreateAdd(b.CreateAnd(ix, b.getInt64(0x000fffffffffffffULL)),
                  b.getInt64(kSqrtHalfBits)),
      b.getDoubleTy());
  llvm::Value* corr = d.C(0);
  if (auto* c = llvm::dyn_cast<llvm::ConstantFP>(xl); !c || !c->isZero()) {
    corr = d.Div(xl, xh);
    corr = d.Sel(EmitIsFinite(d.ctx(), corr), corr, d.C(0));
  }
  return LogCore(d, k, d.Sub(m, d.C(1)), corr);
}

// log's special values: +inf, +-0 -> -inf, negative -> NaN, NaN kept.
llvm::Value* LogSpecials(X& d, llvm::Value* x, llvm::Value* r) {
  r = d.Sel(d.Eq(x, d.C(kInf)), x, r);
  r = d.Sel(d.Eq(x, d.C(0)), d.C(-kInf), r);
  r = d.Sel(d.Lt(x, d.C(0)), d.C(kNan), r);
  return d.Sel(EmitIsNan(d.ctx(), x), x, r);
}

// log1p(x) as a double-double for x > -1 finite: the core directly for
// x in [sqrt(1/2) - 1, sqrt(2) - 1], else log(1 + x) with 1 + x as an
// exact double-double.
DD Log1pDD(X& d, llvm::Value* x) {
  IRBuilder& b = d.b();
  llvm::Value* small = b.CreateAnd(d.Gt(x, d.C(-0.29289321881345248)),
                                   d.Lt(x, d.C(0.41421356237309503)));
  DD u = d.TwoSum(d.C(1), x);
  // The large branch is also evaluated for small x (selects): keep its
  // argument positive.
  DD lg = LogDD(d, d.Sel(d.Gt(u.hi, d.C(0)), u.hi, d.C(1)), u.lo);
  DD sm = LogCore(d, d.C(0), x, d.C(0));
  return d.Sel(small, sm, lg);
}

// sin(r) and cos(r) for a double-double |r| <= pi/4 + 2^-30, normalised
// double-doubles (Taylor to r^19 and r^18: truncation < 2^-62):
//   sin = r_hi + (r_hi^3 S(r_hi^2) + r_lo (1 - r_hi^2/2));
//   cos = (1 - r_hi^2/2) by TwoProd and TwoSum, + r_hi^4 C(r_hi^2) -
//   r_hi r_lo.
DD SinDD(X& d, DD r) {
  // -1/3!, 1/5!, -1/7!, ...
  static const std::vector<double> kCoeffs = [] {
    std::vector<double> c = Taylor(3, 19, 2, true);
    for (double& v : c) v = -v;
    return c;
  }();
  llvm::Value* z = d.Mul(r.hi, r.hi);
  llvm::Value* c = d.Mul(d.Mul(r.hi, z), d.Horner(z, kCoeffs));
  llvm::Value* lo = d.Add(c, d.Mul(r.lo, d.Sub(d.C(1), d.Mul(d.C(0.5), z))));
  return d.FastTwoSum(r.hi, lo);
}
DD CosDD(X& d, DD r) {
  static const std::vector<double> kCoeffs = Taylor(4, 18, 2, true);
  DD z = d.TwoProd(r.hi, r.hi);
  llvm::Value* hz = d.Mul(d.C(0.5), z.hi);
  llvm::Value* hzl = d.Add(d.Mul(d.C(0.5), z.lo), d.Mul(r.hi, r.lo));
  DD w = d.TwoSum(d.C(1), d.Neg(hz));
  llvm::Value* tail = d.Mul(d.Mul(z.hi, z.hi), d.Horner(z.hi, kCoeffs));
  return d.FastTwoSum(w.hi, d.Add(w.lo, d.Sub(tail, hzl)));
}

// The largest |x| the vector path of sin, cos and tan reduces.
constexpr double kTrigVectorLimit = 0x1p27;

// |x| = k pi/2 + r (Cody-Waite with pi/2 in three 53-bit parts) for
// |x| < 2^27 (larger or non-finite arguments reduce 0: the callers take
// another path for them). |x| - k P1 is exact by one FMA (both are
// multiples of 2^-53 and the difference is below 1), k P2 by TwoProd, so
// r is within about 2^-130 of the exact remainder; no double below 2^27
// is closer than about 2^-61 to a multiple of pi/2, so r keeps > 60
// correct bits.
std::pair<DD, llvm::Value*> ReducePio2F64(X& d, llvm::Value* ax) {
  IRBuilder& b = d.b();
  llvm::Value* a = d.Sel(d.Lt(ax, d.C(kTrigVectorLimit)), ax, d.C(0));
  llvm::Value* k =
      d.Unary(llvm::Intrinsic::roundeven, d.Mul(a, d.C(0x1.45f306dc9c883p-1)));
  llvm::Value* r1 = d.Fma(d.Neg(k), d.C(kPio2Hi), a);
  DD t = d.TwoProd(k, d.C(kPio2Lo));
  DD u = d.TwoSum(r1, d.Neg(t.hi));
  llvm::Value* rest = d.Sub(d.Sub(u.lo, t.lo), d.Mul(k, d.C(kPio2Lo2)));
  llvm::Value* q =
      b.CreateAnd(b.CreateFPToSI(k, b.getInt32Ty()), b.getInt32(3));
  return {d.FastTwoSum(u.hi, rest), q};
}

// A scalar call of the runtime function `name` (double -> double) made
// only where `need` holds, else `fast`. The call site names masked vector
// variants (the VFABI's _ZGV_LLVM_M<n>v_ form, defined here in IR: each
// checks its mask, then calls the scalar function lane by lane for the
// set lanes only), so LLVM's loop vectoriser keeps the loop vector and
// the fallback costs nothing while no lane needs it.
llvm::Value* MaskedFallback(X& d, llvm::Value* need, llvm::Value* fast,
                            absl::string_view name, llvm::Value* x) {
  IRBuilder& b = d.b();
  EmitContext& ctx = d.ctx();
  llvm::Module& m = ctx.module();
  llvm::LLVMContext& lc = m.getContext();
  llvm::Type* dt = b.getDoubleTy();
  auto* fty = llvm::FunctionType::get(dt, {dt}, false);
  llvm::Function* scalar = ctx.GetRuntimeFunction(name, fty);
  scalar->setDoesNotThrow();
  scalar->setDoesNotAccessMemory();
  scalar->setWillReturn();
  const std::string sname(name);
  std::string variants;
  for (int vf : {2, 4, 8, 16}) {
    const std::string vname = absl::StrCat(sname, ".masked.v", vf);
    if (!variants.empty()) variants += ",";
    absl::StrAppend(&variants, "_ZGV_LLVM_M", vf, "v_", sname, "(", vname, ")");
    if (m.getFunction(vname) != nullptr) continue;
    auto* vt = llvm::FixedVectorType::get(dt, vf);
    auto* mt = llvm::FixedVectorType::get(b.getInt1Ty(), vf);
    auto* vfty = llvm::FunctionType::get(vt, {vt, mt}, false);
    llvm::Function* vfn = llvm::Function::Create(
        vfty, llvm::GlobalValue::InternalLinkage, vname, m);
    vfn->setDoesNotThrow();
    llvm::IRBuilder<> vb(lc);
    llvm::BasicBlock* entry = llvm::BasicBlock::Create(lc, "entry", vfn);
    llvm::BasicBlock* ret = llvm::BasicBlock::Create(lc, "ret", vfn);
    llvm::BasicBlock* lanes = llvm::BasicBlock::Create(lc, "lanes", vfn);
    vb.SetInsertPoint(entry);
    llvm::Value* vx = vfn->getArg(0);
    llvm::Value* mask = vfn->getArg(1);
    llvm::Value* bits = vb.CreateBitCast(mask, vb.getIntNTy(vf));
    vb.CreateCondBr(vb.CreateICmpNE(bits, vb.getIntN(vf, 0)), lanes, ret);
    vb.SetInsertPoint(lanes);
    llvm::Value* acc = vx;
    for (int i = 0; i < vf; ++i) {
      llvm::BasicBlock* cur = vb.GetInsertBlock();
      llvm::BasicBlock* call = llvm::BasicBlock::Create(lc, "call", vfn);
      llvm::BasicBlock* next = llvm::BasicBlock::Create(lc, "next", vfn);
      vb.CreateCondBr(vb.CreateExtractElement(mask, vb.getInt32(i)), call,
                      next);
      vb.SetInsertPoint(call);
      llvm::Value* r =
          vb.CreateCall(scalar, {vb.CreateExtractElement(vx, vb.getInt32(i))});
      llvm::Value* with = vb.CreateInsertElement(acc, r, vb.getInt32(i));
      vb.CreateBr(next);
      vb.SetInsertPoint(next);
      llvm::PHINode* phi = vb.CreatePHI(vt, 2);
      phi->addIncoming(acc, cur);
      phi->addIncoming(with, call);
      acc = phi;
    }
    llvm::BasicBlock* last = vb.GetInsertBlock();
    vb.CreateBr(ret);
    vb.SetInsertPoint(ret);
    llvm::PHINode* out = vb.CreatePHI(vt, 2);
    out->addIncoming(vx, entry);
    out->addIncoming(acc, last);
    vb.CreateRet(out);
    llvm::appendToCompilerUsed(m, {vfn});
  }
  llvm::BasicBlock* cur = b.GetInsertBlock();
  llvm::Function* f = cur->getParent();
  llvm::BasicBlock* slow = llvm::BasicBlock::Create(lc, sname + ".slow", f);
  llvm::BasicBlock* join = llvm::BasicBlock::Create(lc, sname + ".join", f);
  b.CreateCondBr(need, slow, join);
  b.SetInsertPoint(slow);
  llvm::CallInst* call = b.CreateCall(scalar, {x});
  call->addFnAttr(
      llvm::Attribute::get(lc, "vector-function-abi-variant", variants));
  b.CreateBr(join);
  b.SetInsertPoint(join);
  llvm::PHINode* phi = b.CreatePHI(dt, 2);
  phi->addIncoming(fast, cur);
  phi->addIncoming(call, slow);
  return phi;
}

// sin, cos or tan (which = 0, 1, 2) of a double x.
llvm::Value* Trig64(X& d, llvm::Value* x, int which) {
  IRBuilder& b = d.b();
  llvm::Value* ax = d.Abs(x);
  auto [r, q] = ReducePio2F64(d, ax);
  DD s = SinDD(d, r);
  DD c = CosDD(d, r);
  llvm::Value* odd =
      b.CreateICmpNE(b.CreateAnd(q, b.getInt32(1)), b.getInt32(0));
  llvm::Value* v;
  const char* name;
  if (which == 0) {
    llvm::Value* neg =
        b.CreateICmpNE(b.CreateAnd(q, b.getInt32(2)), b.getInt32(0));
    v = d.NegIf(b.CreateXor(neg, d.SignBit(x)), d.Round(d.Sel(odd, c, s)));
    name = "hloref_cpu_sin_f64";
  } else if (which == 1) {
    llvm::Value* neg = b.CreateICmpNE(
        b.CreateAnd(b.CreateAdd(q, b.getInt32(1)), b.getInt32(2)),
        b.getInt32(0));
    v = d.NegIf(neg, d.Round(d.Sel(odd, s, c)));
    name = "hloref_cpu_cos_f64";
  } else {
    // tan = sin / cos, or -cos / sin for odd q (r is never 0 there).
    DD t = d.Div(d.Sel(odd, c, s), d.Sel(odd, s, c));
    v = d.NegIf(b.CreateXor(odd, d.SignBit(x)), d.Round(t));
    name = "hloref_cpu_tan_f64";
  }
  v = d.Sel(EmitIsFinite(d.ctx(), x), v, d.C(kNan));
  // Finite arguments beyond the vector reduction: the C library, lane by
  // lane.
  llvm::Value* need = b.CreateAnd(EmitIsFinite(d.ctx(), x),
                                  b.CreateNot(d.Lt(ax, d.C(kTrigVectorLimit))));
  return MaskedFallback(d, need, v, name, x);
}

// atan(a) for a double-double a in [0, 1] (a_lo may be 0), normalised:
// a = c_j + ..., c_j the double nearest tan(j pi/16) (j = 0..4, chosen by
// comparisons with tan((2j-1) pi/32)), atan(a) = atan(c_j) + atan(t),
// t = (a - c_j) / (1 + a c_j) as a double-double (|t| <= 0.0985),
// atan(t) = t + t^3 (-1/3 + t^2/5 - ... + t^18/21) (truncation
// < 2^-70), atan(c_j) a double-double constant (mpmath, 400 bits).
DD AtanDD(X& d, DD a) {
  static constexpr double kThresholds[4] = {
      0x1.936bb8c5b2da2p-4, 0x1.36a08355c63dcp-2, 0x1.11ab7190834ecp-1,
      0x1.a43002ae42850p-1};
  static constexpr double kC[5] = {0.0, 0x1.975f5e0553158p-3,
                                   0x1.a827999fcef32p-2, 0x1.561b82ab7f990p-1,
                                   1.0};
  static constexpr double kThetaHi[5] = {
      0.0, 0x1.921fb54442d18p-3, 0x1.921fb54442d18p-2, 0x1.2d97c7f3321d2p-1,
      0x1.921fb54442d18p-1};
  static constexpr double kThetaLo[5] = {
      0.0, 0x1.f93470dfef04ap-58, 0x1.c398861b78b55p-59, -0x1.8f57cafebcf16p-58,
      0x1.1a62633145c07p-55};
  static const std::vector<double> kCoeffs = [] {
    std::vector<double> c;
    for (int n = 3; n <= 21; n += 2) c.push_back((n % 4 == 3 ? -1.0 : 1.0) / n);
    return c;
  }();
  llvm::Value* c = d.C(kC[0]);
  DD th = d.Const(kThetaHi[0], kThetaLo[0]);
  for (int j = 1; j <= 4; ++j) {
    llvm::Value* ge = d.b().CreateFCmpOGE(a.hi, d.C(kThresholds[j - 1]));
    c = d.Sel(ge, d.C(kC[j]), c);
    th = d.Sel(ge, d.Const(kThetaHi[j], kThetaLo[j]), th);
  }
  DD n = d.TwoSum(a.hi, d.Neg(c));
  n.lo = d.Add(n.lo, a.lo);
  DD p = d.TwoProd(a.hi, c);
  p.lo = d.Add(p.lo, d.Mul(a.lo, c));
  DD den = d.TwoSum(d.C(1), p.hi);
  den.lo = d.Add(den.lo, p.lo);
  DD t = d.Div(d.Norm(n), d.Norm(den));
  llvm::Value* z = d.Mul(t.hi, t.hi);
  llvm::Value* poly = d.Mul(d.Mul(t.hi, z), d.Horner(z, kCoeffs));
  DD s = d.TwoSum(th.hi, t.hi);
  return d.FastTwoSum(s.hi, d.Add(s.lo, d.Add(d.Add(th.lo, t.lo), poly)));
}

}  // namespace

// ---- f64 kernels (public entry points: math_ir.h).

llvm::Value* EmitExpKernelF64(EmitContext& ctx, llvm::Value* x) {
  X d(ctx);
  return Exp64(d, {x, d.C(0)});
}

llvm::Value* EmitExpm1KernelF64(EmitContext& ctx, llvm::Value* x) {
  // expm1 = exp above 700 (the 1 is far below half an ulp there).
  X d(ctx);
  llvm::Value* r = d.Round(Expm1DD(d, d.Min(x, 700)));
  r = d.Sel(d.Gt(x, d.C(700)), Exp64(d, {x, d.C(0)}), r);
  // -0 stays -0.
  return d.Sel(d.Eq(x, d.C(0)), x, r);
}

llvm::Value* EmitLogKernelF64(EmitContext& ctx, llvm::Value* x) {
  X d(ctx);
  llvm::Value* xs = d.Sel(d.Gt(x, d.C(0)), x, d.C(1));
  return LogSpecials(d, x, d.Round(LogDD(d, xs, d.C(0))));
}

llvm::Value* EmitLog1pKernelF64(EmitContext& ctx, llvm::Value* x) {
  X d(ctx);
  llvm::Value* xs = d.Sel(
      ctx.b().CreateAnd(d.Gt(x, d.C(-1)), EmitIsFinite(ctx, x)), x, d.C(0));
  llvm::Value* r = d.Round(Log1pDD(d, xs));
  r = d.Sel(d.Eq(x, d.C(kInf)), x, r);
  r = d.Sel(d.Eq(x, d.C(-1)), d.C(-kInf), r);
  r = d.Sel(d.Lt(x, d.C(-1)), d.C(kNan), r);
  // +-0 and tiny x: x (x^2/2 is below 2^-61 relative; the series would
  // lose the subnormals).
  r = d.Sel(d.Lt(d.Abs(x), d.C(0x1p-60)), x, r);
  return d.Sel(EmitIsNan(ctx, x), x, r);
}

llvm::Value* EmitLogisticKernelF64(EmitContext& ctx, llvm::Value* x) {
  // e = exp(-|x|) as a double-double (|x| <= 40); 1 / (1 + e) for x >= 0,
  // e / (1 + e) for x < 0, both as double-double quotients. x > 40: 1
  // (1 - 4e-18 rounds to 1); x < -40: exp(x) (e^2 < 2^-115 relative).
  // One reduction of -|x| serves both (-|x| = x where x < -40).
  X d(ctx);
  ExpParts parts = ExpEval(d, {d.Neg(d.Abs(x)), d.C(0)});
  DD e = ExpScaleDD(d, parts);
  DD den = d.TwoSum(d.C(1), e.hi);
  den.lo = d.Add(den.lo, e.lo);
  DD num = d.Sel(d.Lt(x, d.C(0)), e, d.Const(1, 0));
  llvm::Value* r = d.Round(d.Div(num, d.Norm(den)));
  r = d.Sel(d.Gt(x, d.C(40)), d.C(1), r);
  return d.Sel(d.Lt(x, d.C(-40)), ExpScaleRound(d, parts, 0), r);
}

llvm::Value* EmitTanhKernelF64(EmitContext& ctx, llvm::Value* x) {
  // tanh|x| = t / (t + 2), t = expm1(2|x|), all in double-double; 1 for
  // |x| >= 22 (1 - 2^-62); the sign of x (-0 included) copied on.
  X d(ctx);
  llvm::Value* a = d.Min(d.Abs(x), 22);
  DD t = Expm1DD(d, d.Mul(d.C(2), a));
  DD den = d.Add(t, d.Const(2, 0));
  llvm::Value* r = d.Round(d.Div(t, den));
  r = d.Sel(d.Lt(d.Abs(x), d.C(22)), r, d.C(1));
  r = d.Sel(EmitIsNan(ctx, x), x, r);
  return EmitCopySign(ctx, r, x);
}

llvm::Value* EmitSinKernelF64(EmitContext& ctx, llvm::Value* x) {
  X d(ctx);
  return Trig64(d, x, 0);
}

llvm::Value* EmitCosKernelF64(EmitContext& ctx, llvm::Value* x) {
  X d(ctx);
  return Trig64(d, x, 1);
}

llvm::Value* EmitTanKernelF64(EmitContext& ctx, llvm::Value* x) {
  X d(ctx);
  return Trig64(d, x, 2);
}

llvm::Value* EmitSinhKernelF64(EmitContext& ctx, llvm::Value* x) {
  // |x| < 1: x + x^3 (1/6 + ... + x^18/21!) (truncation < 2^-70);
  // |x| < 22: (e - 1/e) / 2, e = exp|x| in double-double;
  // else exp(|x|) / 2 (scaled by 2^-1 inside, so it overflows where sinh
  // does).
  static const std::vector<double> kCoeffs = Taylor(3, 21, 2, false);
  X d(ctx);
  llvm::Value* a = d.Abs(x);
  llvm::Value* as = d.Min(a, 1);
  llvm::Value* z = d.Mul(as, as);
  llvm::Value* small = d.Add(as, d.Mul(d.Mul(as, z), d.Horner(z, kCoeffs)));
  ExpParts parts = ExpEval(d, {a, d.C(0)});
  DD e = ExpScaleDD(d, parts);
  DD inv = d.Div(d.Const(1, 0), e);
  llvm::Value* mid = d.Mul(d.C(0.5), d.Round(d.Add(e, d.Neg(inv))));
  llvm::Value* big = ExpScaleRound(d, parts, -1);
  llvm::Value* r =
      d.Sel(d.Lt(a, d.C(1)), small, d.Sel(d.Lt(a, d.C(22)), mid, big));
  return EmitCopySign(ctx, r, x);
}

llvm::Value* EmitCoshKernelF64(EmitContext& ctx, llvm::Value* x) {
  // (e + 1/e) / 2 in double-double for |x| < 22, else exp(|x|) / 2.
  X d(ctx);
  llvm::Value* a = d.Abs(x);
  ExpParts parts = ExpEval(d, {a, d.C(0)});
  DD e = ExpScaleDD(d, parts);
  DD inv = d.Div(d.Const(1, 0), e);
  llvm::Value* mid = d.Mul(d.C(0.5), d.Round(d.Add(e, inv)));
  llvm::Value* big = ExpScaleRound(d, parts, -1);
  return d.Sel(d.Lt(a, d.C(22)), mid, big);
}

llvm::Value* EmitAsinhKernelF64(EmitContext& ctx, llvm::Value* x) {
  // asinh a = log(a + sqrt(a^2 + 1)) with a^2 + 1, its root and the sum
  // in double-double (so log's argument near 1 keeps a's bits) for
  // 2^-28 <= a <= 2^28; log a + ln2 above (the rest is below 2^-56
  // relative); a below (a^3/6 is below 2^-57 relative).
  X d(ctx);
  llvm::Value* a = d.Abs(x);
  llvm::Value* am = d.Min(a, 0x1p28);
  DD a2 = d.TwoProd(am, am);
  DD s = d.TwoSum(d.C(1), a2.hi);
  s.lo = d.Add(s.lo, a2.lo);
  DD root = d.Sqrt(d.Norm(s));
  DD w = d.Add(root, DD{am, d.C(0)});
  // One log: of w, or of a above 2^28 (plus ln2).
  llvm::Value* big = d.Gt(a, d.C(0x1p28));
  llvm::Value* ab = d.Sel(EmitIsFinite(ctx, a), a, d.C(1));
  w = d.Sel(big, DD{ab, d.C(0)}, w);
  DD l = d.Add(d.Norm(LogDD(d, w.hi, w.lo)),
               d.Sel(big, d.Const(kLn2Hi, kLn2Lo), d.Const(0, 0)));
  llvm::Value* r = d.Round(l);
  r = d.Sel(d.Lt(a, d.C(0x1p-28)), a, r);
  r = d.Sel(d.Eq(a, d.C(kInf)), a, r);
  r = d.Sel(EmitIsNan(ctx, x), x, r);
  return EmitCopySign(ctx, r, x);
}

llvm::Value* EmitAcoshKernelF64(EmitContext& ctx, llvm::Value* x) {
  // log(x + sqrt(x^2 - 1)), x^2 - 1 exact in double-double (x^2 by
  // TwoProd, minus 1 exact by Sterbenz near 1), for 1 <= x <= 2^28; log x
  // + ln2 above; NaN below 1.
  X d(ctx);
  llvm::Value* xm = d.Sel(d.Gt(x, d.C(1)), d.Min(x, 0x1p28), d.C(1));
  DD x2 = d.TwoProd(xm, xm);
  DD s = d.TwoSum(x2.hi, d.C(-1));
  s.lo = d.Add(s.lo, x2.lo);
  DD root = d.Sqrt(d.Norm(s));
  DD w = d.Add(root, DD{xm, d.C(0)});
  // One log: of w, or of x above 2^28 (plus ln2).
  llvm::Value* big = d.Gt(x, d.C(0x1p28));
  llvm::Value* xb = d.Sel(EmitIsFinite(ctx, x), d.Abs(x), d.C(1));
  w = d.Sel(big, DD{xb, d.C(0)}, w);
  DD l = d.Add(d.Norm(LogDD(d, w.hi, w.lo)),
               d.Sel(big, d.Const(kLn2Hi, kLn2Lo), d.Const(0, 0)));
  llvm::Value* r = d.Round(l);
  r = d.Sel(d.Eq(x, d.C(kInf)), x, r);
  r = d.Sel(d.Lt(x, d.C(1)), d.C(kNan), r);
  return d.Sel(EmitIsNan(ctx, x), x, r);
}

llvm::Value* EmitAtanhKernelF64(EmitContext& ctx, llvm::Value* x) {
  // atanh a = log((1 + a) / (1 - a)) / 2 with the quotient in
  // double-double (log's argument near 1 keeps a's bits); a below 2^-28;
  // +-1 -> +-inf, |x| > 1 -> NaN; the sign copied on.
  X d(ctx);
  llvm::Value* a = d.Abs(x);
  llvm::Value* am = d.Sel(d.Lt(a, d.C(1)), a, d.C(0.5));
  DD num = d.TwoSum(d.C(1), am);
  DD den = d.TwoSum(d.C(1), d.Neg(am));
  DD q = d.Div(num, den);
  llvm::Value* r = d.Mul(d.C(0.5), d.Round(LogDD(d, q.hi, q.lo)));
  r = d.Sel(d.Lt(a, d.C(0x1p-28)), a, r);
  r = d.Sel(d.Eq(a, d.C(1)), d.C(kInf), r);
  r = d.Sel(d.Gt(a, d.C(1)), d.C(kNan), r);
  r = d.Sel(EmitIsNan(ctx, x), x, r);
  return EmitCopySign(ctx, r, x);
}

llvm::Value* EmitPowKernelF64(EmitContext& ctx, llvm::Value* x,
                              llvm::Value* y) {
  // |x|^y = exp(y log|x|) with log|x| in double-double (relative error
  // about 2^-66), y log|x| by TwoProd, and exp of the double-double
  // product: |y log|x|| <= 746 where the result is finite and nonzero, so
  // the product's error stays below 2^-56 absolute. Annex F as the f32
  // kernel.
  X d(ctx);
  IRBuilder& b = ctx.b();
  llvm::Value* ax = d.Abs(x);
  llvm::Value* axs =
      d.Sel(b.CreateAnd(d.Gt(ax, d.C(0)), d.Lt(ax, d.C(kInf))), ax, d.C(1));
  DD l = d.Norm(LogDD(d, axs, d.C(0)));
  l.hi = d.Sel(d.Eq(ax, d.C(0)), d.C(-kInf), l.hi);
  l.hi = d.Sel(d.Eq(ax, d.C(kInf)), d.C(kInf), l.hi);
  l.hi = d.Sel(EmitIsNan(ctx, x), x, l.hi);
  DD p = d.TwoProd(y, l.hi);
  p.lo = d.Add(p.lo, d.Mul(y, l.lo));
  p.lo = d.Sel(EmitIsFinite(ctx, p.hi), p.lo, d.C(0));
  p.lo = d.Sel(EmitIsFinite(ctx, p.lo), p.lo, d.C(0));
  llvm::Value* m = Exp64(d, p);
  llvm::Value* y_finite = EmitIsFinite(ctx, y);
  llvm::Value* y_int =
      b.CreateAnd(y_finite, d.Eq(d.Unary(llvm::Intrinsic::floor, y), y));
  llvm::Value* half = d.Mul(y, d.C(0.5));
  llvm::Value* y_odd = b.CreateAnd(
      y_int, b.CreateFCmpUNE(d.Unary(llvm::Intrinsic::floor, half), half));
  llvm::Value* r = d.NegIf(b.CreateAnd(d.SignBit(x), y_odd), m);
  llvm::Value* x_neg_finite = b.CreateAnd(d.Lt(x, d.C(0)), d.Gt(x, d.C(-kInf)));
  r = d.Sel(
      b.CreateAnd(x_neg_finite, b.CreateAnd(y_finite, b.CreateNot(y_int))),
      d.C(kNan), r);
  llvm::Value* one =
      b.CreateOr(b.CreateAnd(d.Eq(x, d.C(-1)), EmitIsInf(ctx, y)),
                 b.CreateOr(d.Eq(x, d.C(1)), d.Eq(y, d.C(0))));
  return d.Sel(one, d.C(1), r);
}

llvm::Value* EmitErfKernelF64(EmitContext& ctx, llvm::Value* x) {
  // a = |x| < 0.5: x (2/sqrt(pi)) (double-double constant, TwoProd) +
  // x^3 Q(x^2) (the odd Taylor series to x^27: truncation < 2^-60).
  // 0.5 <= a < 6: a Taylor polynomial of degree 18 around the centre c of
  // a's interval of width 1/8 (44 intervals; a table, read per lane),
  // erf(c) as a double-double; the coefficients come from erf' = 2/sqrt(pi)
  // e^{-x^2}, whose Taylor coefficients b_n around c follow
  // (n + 1) b_{n+1} = -2c b_n - 2 b_{n-1}, computed in long double
  // (|z| <= 1/16: the truncation is below 2^-70). a >= 6: 1 (erfc(6) <
  // 2^-55). Sign copied on, NaN kept.
  constexpr int kIntervals = 44;
  constexpr int kDegree = 18;
  constexpr int kStride = kDegree + 2;  // erf(c) hi, lo, then z^1..z^18
  static const std::vector<double> kTable = [] {
    std::vector<double> t;
    const long double two_over_sqrt_pi = 1.12837916709551257389615890312154517L;
    for (int i = 0; i < kIntervals; ++i) {
      const long double c = 0.5L + (i + 0.5L) / 8;
      const long double e = erfl(c);
      const double hi = static_cast<double>(e);
      t.push_back(hi);
      t.push_back(static_cast<double>(e - hi));
      long double bm1 = 0, b0 = expl(-c * c);
      for (int n = 0; n < kDegree; ++n) {
        // coefficient of z^(n+1) in erf: 2/sqrt(pi) b_n / (n + 1)
        t.push_back(static_cast<double>(two_over_sqrt_pi * b0 / (n + 1)));
        const long double b1 = (-2 * c * b0 - 2 * bm1) / (n + 1);
        bm1 = b0;
        b0 = b1;
      }
    }
    return t;
  }();
  static const std::vector<double> kSmall = [] {
    // (2/sqrt(pi)) (-1)^n / (n! (2n + 1)) for n = 1..13.
    std::vector<double> c;
    long double f = 1;
    for (int n = 1; n <= 13; ++n) {
      f *= n;
      c.push_back(static_cast<double>((n % 2 ? -1.0L : 1.0L) *
                                      1.12837916709551257389615890312154517L /
                                      (f * (2 * n + 1))));
    }
    return c;
  }();
  X d(ctx);
  IRBuilder& b = ctx.b();
  llvm::Module& m = ctx.module();
  const char* kName = "hloref.erf_f64.table";
  llvm::GlobalVariable* g = m.getGlobalVariable(kName, true);
  if (g == nullptr) {
    llvm::Constant* init =
        llvm::ConstantDataArray::get(m.getContext(), llvm::ArrayRef(kTable));
    g = new llvm::GlobalVariable(m, init->getType(), true,
                                 llvm::GlobalValue::PrivateLinkage, init,
                                 kName);
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    g->setAlignment(llvm::Align(64));
  }
  llvm::Value* a = d.Abs(x);
  // Small: a itself (a < 0.5).
  llvm::Value* as = d.Min(a, 0.5);
  DD p = d.TwoProd(as, d.C(0x1.20dd750429b6dp+0));
  llvm::Value* z2 = d.Mul(as, as);
  llvm::Value* small =
      d.Add(p.hi, d.Add(d.Add(p.lo, d.Mul(as, d.C(0x1.1ae3a914fed80p-56))),
                        d.Mul(d.Mul(as, z2), d.Horner(z2, kSmall))));
  // Table.
  // NaN and a < 0.5 read interval 0 (the index must be defined).
  llvm::Value* at =
      d.Sel(b.CreateFCmpOGE(a, d.C(0.5)), d.Min(a, 5.9375), d.C(0.5));
  llvm::Value* fi =
      d.Unary(llvm::Intrinsic::floor, d.Mul(d.Sub(at, d.C(0.5)), d.C(8)));
  fi = d.Min(fi, kIntervals - 1);
  llvm::Value* c = d.Add(d.C(0.5), d.Mul(d.Add(fi, d.C(0.5)), d.C(0.125)));
  llvm::Value* z = d.Sub(at, c);  // exact
  llvm::Value* base = b.CreateMul(d.ToI64(fi), b.getInt64(kStride));
  auto coeff = [&](int j) -> llvm::Value* {
    llvm::Value* idx = b.CreateAdd(base, b.getInt64(j));
    return b.CreateLoad(b.getDoubleTy(),
                        b.CreateInBoundsGEP(b.getDoubleTy(), g, {idx}));
  };
  llvm::Value* poly = coeff(kStride - 1);
  for (int j = kStride - 2; j >= 2; --j) poly = d.Add(coeff(j), d.Mul(z, poly));
  llvm::Value* mid = d.Add(coeff(0), d.Add(coeff(1), d.Mul(z, poly)));
  llvm::Value* r = d.Sel(d.Lt(a, d.C(0.5)), small, mid);
  r = d.Sel(d.Lt(a, d.C(6)), r, d.C(1));
  r = d.Sel(EmitIsNan(ctx, x), x, r);
  return EmitCopySign(ctx, r, x);
}

// ---- kernels for every float type (double argument, ~0.5 ulp of double).

llvm::Value* EmitAtan2Kernel(EmitContext& ctx, llvm::Value* y, llvm::Value* x) {
  // atan(min / max) of |y|, |x| as a double-double, then pi/2 - . where
  // |y| > |x|, pi - . where x's sign bit is set, y's sign copied on (C
  // Annex F: zeros and infinities of both signs).
  X d(ctx);
  IRBuilder& b = ctx.b();
  llvm::Value* ay = d.Abs(y);
  llvm::Value* ax = d.Abs(x);
  llvm::Value* swap = d.Gt(ay, ax);
  llvm::Value* num = d.Sel(swap, ax, ay);
  llvm::Value* den = d.Sel(swap, ay, ax);
  DD q = d.DivExact(DD{num, d.C(0)}, DD{den, d.C(0)});
  q = d.Sel(d.Eq(den, d.C(0)), d.Const(0, 0), q);
  q = d.Sel(d.Eq(num, d.C(kInf)), d.Const(1, 0), q);
  DD th = AtanDD(d, q);
  th = d.Sel(swap, d.Add(d.Const(kPio2Hi, kPio2Lo), d.Neg(th)), th);
  th = d.Sel(d.SignBit(x), d.Add(d.Const(kPiHi, kPiLo), d.Neg(th)), th);
  llvm::Value* r = EmitCopySign(ctx, d.Round(th), y);
  llvm::Value* nan = b.CreateOr(EmitIsNan(ctx, x), EmitIsNan(ctx, y));
  return d.Sel(nan, d.C(kNan), r);
}

namespace {

// asin (acos = false) or acos of x: r = sqrt(1 - x^2) in double-double
// (1 - x^2 exact for |x| >= sqrt(1/2)), then atan2(|x|, r) or
// atan2(r, x) by atan of min / max as in EmitAtan2Kernel.
llvm::Value* AsinAcos(X& d, llvm::Value* x, bool acos) {
  llvm::Value* a = d.Abs(x);
  llvm::Value* am = d.Min(a, 1);
  DD sq = d.TwoProd(am, am);
  DD s = d.TwoSum(d.C(1), d.Neg(sq.hi));
  s.lo = d.Sub(s.lo, sq.lo);
  DD r = d.Sqrt(d.Norm(s));
  llvm::Value* a_big = d.Gt(am, r.hi);
  DD num = d.Sel(a_big, r, DD{am, d.C(0)});
  DD den = d.Sel(a_big, DD{am, d.C(0)}, r);
  DD th = AtanDD(d, d.Div(num, den));
  DD pio2_minus = d.Add(d.Const(kPio2Hi, kPio2Lo), d.Neg(th));
  llvm::Value* v;
  if (!acos) {
    v = EmitCopySign(d.ctx(), d.Round(d.Sel(a_big, pio2_minus, th)), x);
  } else {
    th = d.Sel(a_big, th, pio2_minus);
    th = d.Sel(d.SignBit(x), d.Add(d.Const(kPiHi, kPiLo), d.Neg(th)), th);
    v = d.Round(th);
  }
  v = d.Sel(d.Gt(a, d.C(1)), d.C(kNan), v);
  return d.Sel(EmitIsNan(d.ctx(), x), x, v);
}

}  // namespace

llvm::Value* EmitAsinKernel(EmitContext& ctx, llvm::Value* x) {
  X d(ctx);
  return AsinAcos(d, x, false);
}

llvm::Value* EmitAcosKernel(EmitContext& ctx, llvm::Value* x) {
  X d(ctx);
  return AsinAcos(d, x, true);
}

llvm::Value* EmitCbrtKernel(EmitContext& ctx, llvm::Value* x) {
  // |x| = 2^(3k) m, m in [1, 8) (subnormals scaled by 2^54 first); y0 =
  // (0.74 + 0.26 f) 2^(j/3) for m = 2^j (1 + f) (within 1%), four Newton
  // steps y = y - (y^3 - m) / (3 y^2) (quadratic: 1e-2 -> 1e-16), and a
  // last one with y^3 - m exact in double-double (two TwoProds), so y is
  // within 2^-100 before its one rounding; times 2^k (exact: a cube root
  // is never subnormal). +-0, +-inf and NaN kept; the sign copied on.
  X d(ctx);
  IRBuilder& b = ctx.b();
  llvm::Value* a = d.Abs(x);
  llvm::Value* sub = d.Lt(a, d.C(0x1p-1022));
  llvm::Value* as = d.Sel(sub, d.Mul(a, d.C(0x1p54)), a);
  llvm::Value* bits = b.CreateBitCast(as, b.getInt64Ty());
  llvm::Value* e = b.CreateSub(
      b.CreateAnd(b.CreateLShr(bits, 52), b.getInt64(0x7ff)), b.getInt64(1023));
  e = b.CreateSub(e, b.CreateSelect(sub, b.getInt64(54), b.getInt64(0)));
  // k = floor(e / 3), j = e - 3k in {0, 1, 2} (e + 3000 > 0).
  llvm::Value* k =
      b.CreateSub(b.CreateSDiv(b.CreateAdd(e, b.getInt64(3000)), b.getInt64(3)),
                  b.getInt64(1000));
  llvm::Value* j = b.CreateSub(e, b.CreateMul(k, b.getInt64(3)));
  // 1 + f: the mantissa with exponent 0.
  llvm::Value* mant = b.CreateBitCast(
      b.CreateOr(b.CreateAnd(bits, b.getInt64(0x000fffffffffffffULL)),
                 b.getInt64(0x3ff0000000000000ULL)),
      b.getDoubleTy());
  llvm::Value* pj = d.Pow2(j);
  llvm::Value* m = d.Mul(mant, pj);  // exact, in [1, 8)
  llvm::Value* j1 = b.CreateICmpEQ(j, b.getInt64(1));
  llvm::Value* j2 = b.CreateICmpEQ(j, b.getInt64(2));
  llvm::Value* scale = d.Sel(j1, d.C(0x1.428a2f98d728bp+0),
                             d.Sel(j2, d.C(0x1.965fea53d6e3dp+0), d.C(1)));
  // Zero, inf and NaN: iterate on m = 1 (selected out below).
  llvm::Value* ok = b.CreateAnd(d.Gt(a, d.C(0)), EmitIsFinite(ctx, a));
  m = d.Sel(ok, m, d.C(1));
  scale = d.Sel(ok, scale, d.C(1));
  mant = d.Sel(ok, mant, d.C(1));
  llvm::Value* y = d.Mul(d.Add(d.C(0.74), d.Mul(d.C(0.26), mant)), scale);
  for (int i = 0; i < 4; ++i) {
    llvm::Value* y2 = d.Mul(y, y);
    y = d.Sub(y, d.Div(d.Sub(d.Mul(y2, y), m), d.Mul(d.C(3), y2)));
  }
  DD y2 = d.TwoProd(y, y);
  DD y3 = d.TwoProd(y2.hi, y);
  llvm::Value* res =
      d.Add(d.Add(d.Sub(y3.hi, m), y3.lo), d.Mul(y2.lo, y));  // y3.hi - m exact
  y = d.Sub(y, d.Div(res, d.Mul(d.C(3), d.Mul(y, y))));
  llvm::Value* r = d.Mul(y, d.Pow2(d.Sel(ok, k, b.getInt64(0))));
  r = d.Sel(ok, r, a);  // 0, inf, NaN
  return EmitCopySign(ctx, r, x);
}

}  // namespace hloref::codegen
