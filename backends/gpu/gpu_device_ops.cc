#include "backends/gpu/gpu_device_ops.h"

#include <cstdint>
#include <utility>

#include "backends/codegen/complex_ir.h"
#include "backends/codegen/math_ir.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace hloref::gpu {

namespace {

using codegen::ComplexFn;
using codegen::EmitContext;

// A complex value as two doubles.
struct Cx {
  llvm::Value* re;
  llvm::Value* im;
};

// Complex elementary functions in double, straight-line (every case is
// computed and the result selected, no branches in a kernel's element
// loop). The formulas are those the CPU runtime's C library uses, or
// Kahan's ("Branch cuts for complex elementary functions", 1987) for the
// inverse functions, with the CPU runtime's own special cases
// (backends/cpu/runtime/math.cc); C math calls become libdevice's on the
// GPU.
class ComplexEmitter {
 public:
  explicit ComplexEmitter(EmitContext& ctx) : ctx_(ctx), b_(ctx.b()) {}

  Cx Eval(ComplexFn fn, Cx z) {
    switch (fn) {
      case ComplexFn::kSqrt:
        return Sqrt(z, /*cpu_zero=*/true);
      case ComplexFn::kRsqrt:
        return Recip(Sqrt(z, /*cpu_zero=*/true));
      case ComplexFn::kExp:
        return Exp(z);
      case ComplexFn::kExpm1:
        return Expm1(z);
      case ComplexFn::kLog:
        return Log(z);
      case ComplexFn::kLog1p:
        return Log1p(z);
      case ComplexFn::kLogistic: {
        // 1 / (1 + exp(-z)).
        Cx e = Exp({b_.CreateFNeg(z.re), b_.CreateFNeg(z.im)});
        return Recip({b_.CreateFAdd(K(1.0), e.re), e.im});
      }
      case ComplexFn::kSin:
        return Sin(z);
      case ComplexFn::kCos:
        return Cos(z);
      case ComplexFn::kTan: {
        // tan z = -i tanh(iz).
        Cx t = Tanh({b_.CreateFNeg(z.im), z.re});
        return {t.im, b_.CreateFNeg(t.re)};
      }
      case ComplexFn::kTanh:
        return Tanh(z);
      case ComplexFn::kSinh: {
        // sinh z = -i sin(iz).
        Cx s = Sin({b_.CreateFNeg(z.im), z.re});
        return {s.im, b_.CreateFNeg(s.re)};
      }
      case ComplexFn::kCosh:
        // cosh z = cos(iz).
        return Cos({b_.CreateFNeg(z.im), z.re});
      case ComplexFn::kAsin:
        return Asin(z);
      case ComplexFn::kAcos:
        return Acos(z);
      case ComplexFn::kAsinh: {
        // asinh z = -i asin(iz).
        Cx s = Asin({b_.CreateFNeg(z.im), z.re});
        return {s.im, b_.CreateFNeg(s.re)};
      }
      case ComplexFn::kAcosh:
        return Acosh(z);
      case ComplexFn::kAtanh: {
        // (log1p(z) - log1p(-z)) / 2: the two logs have opposite signs
        // near 0 (no cancellation); the cut's sides follow the zeros'
        // signs through log1p.
        Cx p = Log1p(z);
        Cx m = Log1p({b_.CreateFNeg(z.re), b_.CreateFNeg(z.im)});
        return {b_.CreateFMul(K(0.5), b_.CreateFSub(p.re, m.re)),
                b_.CreateFMul(K(0.5), b_.CreateFSub(p.im, m.im))};
      }
      case ComplexFn::kPow:
        break;
    }
    return {K(std::nan("")), K(std::nan(""))};
  }

  // (a + ib)^(c + id), the CPU runtime's formula and special cases:
  // |z|^c exp(-d arg z) (cos q + i sin q), q = c arg z + d log|z|;
  // x^0 = 1, 1^w = 1, 0^(c + 0i) = 0 for c > 0.
  Cx Pow(llvm::Value* a, llvm::Value* b, llvm::Value* c, llvm::Value* d) {
    llvm::Value* one = b_.CreateOr(b_.CreateAnd(Eq(c, K(0)), Eq(d, K(0))),
                                   b_.CreateAnd(Eq(a, K(1)), Eq(b, K(0))));
    llvm::Value* zero =
        b_.CreateAnd(b_.CreateAnd(Eq(a, K(0)), Eq(b, K(0))),
                     b_.CreateAnd(Eq(d, K(0)), b_.CreateFCmpOGT(c, K(0))));
    llvm::Value* abs = Call("hypot", {a, b});
    llvm::Value* arg = Call("atan2", {b, a});
    llvm::Value* mag =
        b_.CreateFMul(Call("pow", {abs, c}),
                      Call("exp", {b_.CreateFMul(b_.CreateFNeg(d), arg)}));
    llvm::Value* q = b_.CreateFAdd(b_.CreateFMul(c, arg),
                                   b_.CreateFMul(d, Call("log", {abs})));
    Cx r{b_.CreateFMul(mag, Call("cos", {q})),
         b_.CreateFMul(mag, Call("sin", {q}))};
    r = Select(zero, {K(0), K(0)}, r);
    return Select(one, {K(1), K(0)}, r);
  }

 private:
  llvm::Value* K(double v) { return codegen::FpConst(b_.getDoubleTy(), v); }
  llvm::Value* Call(const char* name, std::initializer_list<llvm::Value*> a) {
    return codegen::EmitMathCall(ctx_, name,
                                 std::vector<llvm::Value*>(a.begin(), a.end()));
  }
  llvm::Value* Abs(llvm::Value* x) { return codegen::EmitFabs(ctx_, x); }
  llvm::Value* CopySign(llvm::Value* m, llvm::Value* s) {
    return codegen::EmitCopySign(ctx_, m, s);
  }
  llvm::Value* Eq(llvm::Value* x, llvm::Value* y) {
    return b_.CreateFCmpOEQ(x, y);
  }
  llvm::Value* IsFinite(llvm::Value* x) {
    return codegen::EmitIsFinite(ctx_, x);
  }
  llvm::Value* IsInf(llvm::Value* x) { return codegen::EmitIsInf(ctx_, x); }
  llvm::Value* IsNan(llvm::Value* x) { return codegen::EmitIsNan(ctx_, x); }
  Cx Select(llvm::Value* c, Cx x, Cx y) {
    return {b_.CreateSelect(c, x.re, y.re), b_.CreateSelect(c, x.im, y.im)};
  }
  // The larger of |x| and |y| (NaN-free operands).
  llvm::Value* MaxAbs(llvm::Value* x, llvm::Value* y) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, Abs(x), Abs(y));
  }
  llvm::Value* MinAbs(llvm::Value* x, llvm::Value* y) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, Abs(x), Abs(y));
  }

  // x * cosh(y) (or x * sinh(y)) without the overflow of cosh(y) for
  // |y| > 700 when x is small (e^|y| / 2 split into two factors), and
  // x = +-0 giving a signed zero rather than 0 * inf.
  llvm::Value* TimesHyper(llvm::Value* x, llvm::Value* y, bool sinh) {
    llvm::Value* f = Call(sinh ? "sinh" : "cosh", {y});
    llvm::Value* small = b_.CreateFMul(x, f);
    llvm::Value* h = Call("exp", {b_.CreateFMul(Abs(y), K(0.5))});
    llvm::Value* big =
        b_.CreateFMul(b_.CreateFMul(b_.CreateFMul(x, K(0.5)), h), h);
    if (sinh) big = b_.CreateFMul(big, CopySign(K(1), y));
    llvm::Value* v =
        b_.CreateSelect(b_.CreateFCmpOGT(Abs(y), K(700)), big, small);
    return b_.CreateSelect(Eq(x, K(0)), b_.CreateFMul(x, CopySign(K(1), f)), v);
  }

  // 1 / w by Smith's algorithm; 1 / 0 = (inf, NaN) as C's complex
  // division gives it (the CPU runtime divides in long double).
  Cx Recip(Cx w) {
    llvm::Value* c = w.re;
    llvm::Value* d = w.im;
    llvm::Value* use_d = b_.CreateFCmpOLT(Abs(c), Abs(d));
    llvm::Value* r1 = b_.CreateFDiv(c, d);
    llvm::Value* den1 = b_.CreateFAdd(b_.CreateFMul(c, r1), d);
    llvm::Value* r2 = b_.CreateFDiv(d, c);
    llvm::Value* den2 = b_.CreateFAdd(b_.CreateFMul(d, r2), c);
    Cx r = Select(
        use_d,
        {b_.CreateFDiv(r1, den1), b_.CreateFNeg(b_.CreateFDiv(K(1), den1))},
        {b_.CreateFDiv(K(1), den2), b_.CreateFNeg(b_.CreateFDiv(r2, den2))});
    llvm::Value* inf = CopySign(K(INFINITY), c);
    return Select(b_.CreateAnd(Eq(c, K(0)), Eq(d, K(0))),
                  {inf, b_.CreateFMul(inf, K(0))}, r);
  }

  // The principal square root (Kahan's form: t = sqrt((|a| + |z|) / 2)),
  // scaled by powers of four near the ends of the range. sqrt(+-0 +- 0i)
  // is (+0, +0) with `cpu_zero` (the CPU runtime's and XLA's), (+0, b)
  // otherwise (inside the inverse functions, where the sign selects the
  // side of a branch cut).
  Cx Sqrt(Cx z, bool cpu_zero) {
    llvm::Value* a = z.re;
    llvm::Value* b = z.im;
    llvm::Value* m = MaxAbs(a, b);
    llvm::Value* big = b_.CreateFCmpOGT(m, K(0x1p1020));
    llvm::Value* tiny = b_.CreateFCmpOLT(m, K(0x1p-1000));
    llvm::Value* s_in =
        b_.CreateSelect(big, K(0.25), b_.CreateSelect(tiny, K(0x1p108), K(1)));
    llvm::Value* s_out =
        b_.CreateSelect(big, K(2), b_.CreateSelect(tiny, K(0x1p-54), K(1)));
    llvm::Value* as = b_.CreateFMul(a, s_in);
    llvm::Value* bs = b_.CreateFMul(b, s_in);
    llvm::Value* t = Call(
        "sqrt", {b_.CreateFMul(b_.CreateFAdd(Abs(as), Call("hypot", {as, bs})),
                               K(0.5))});
    llvm::Value* two_t = b_.CreateFMul(K(2), t);
    Cx pos{t, b_.CreateFDiv(bs, two_t)};
    Cx neg{b_.CreateFDiv(Abs(bs), two_t), CopySign(t, bs)};
    Cx r = Select(b_.CreateFCmpOGE(a, K(0)), pos, neg);
    r = {b_.CreateFMul(r.re, s_out), b_.CreateFMul(r.im, s_out)};
    // a = +inf: (inf, +-0 or NaN); a = -inf: (0 or NaN, +-inf); b = +-inf:
    // (inf, b) whatever a is (C Annex G).
    llvm::Value* b_nan = IsNan(b);
    llvm::Value* nan = K(std::nan(""));
    r = Select(Eq(a, K(INFINITY)),
               {K(INFINITY), b_.CreateSelect(b_nan, nan, CopySign(K(0), b))},
               r);
    r = Select(Eq(a, K(-INFINITY)),
               {b_.CreateSelect(b_nan, nan, K(0)), CopySign(K(INFINITY), b)},
               r);
    r = Select(IsInf(b), {K(INFINITY), b}, r);
    llvm::Value* zero = b_.CreateAnd(Eq(a, K(0)), Eq(b, K(0)));
    return Select(zero, {K(0), cpu_zero ? K(0) : b}, r);
  }

  // exp(a) (cos b + i sin b); exp(a + 0i) = exp(a) + 0i with b's zero;
  // for a > 700 exp(a/2) is applied twice so that a finite result does
  // not overflow through exp(a).
  Cx Exp(Cx z) {
    llvm::Value* a = z.re;
    llvm::Value* b = z.im;
    llvm::Value* e = Call("exp", {a});
    llvm::Value* c = Call("cos", {b});
    llvm::Value* s = Call("sin", {b});
    Cx small{b_.CreateFMul(e, c), b_.CreateFMul(e, s)};
    llvm::Value* h = Call("exp", {b_.CreateFMul(a, K(0.5))});
    Cx large{b_.CreateFMul(b_.CreateFMul(h, c), h),
             b_.CreateFMul(b_.CreateFMul(h, s), h)};
    Cx r = Select(b_.CreateFCmpOGT(a, K(700)), large, small);
    // exp(+inf + i(inf or NaN)) = (+-inf, NaN); exp(-inf + i(inf or NaN))
    // = (+-0, +-0) (Annex G).
    llvm::Value* b_bad = b_.CreateNot(IsFinite(b));
    r = Select(b_.CreateAnd(b_bad, Eq(a, K(INFINITY))),
               {K(INFINITY), K(std::nan(""))}, r);
    r = Select(b_.CreateAnd(b_bad, Eq(a, K(-INFINITY))), {K(0), K(0)}, r);
    return Select(Eq(b, K(0)), {e, b}, r);
  }

  // The CPU runtime's expm1: expm1(a) cos b - 2 sin^2(b/2) + i exp(a) sin b
  // for finite z, exp(z) - 1 otherwise.
  Cx Expm1(Cx z) {
    llvm::Value* a = z.re;
    llvm::Value* b = z.im;
    llvm::Value* s = Call("sin", {b_.CreateFMul(b, K(0.5))});
    Cx fin{b_.CreateFSub(b_.CreateFMul(Call("expm1", {a}), Call("cos", {b})),
                         b_.CreateFMul(b_.CreateFMul(K(2), s), s)),
           b_.CreateFMul(Call("exp", {a}), Call("sin", {b}))};
    Cx e = Exp(z);
    Cx other{b_.CreateFSub(e.re, K(1)), e.im};
    return Select(b_.CreateAnd(IsFinite(a), IsFinite(b)), fin, other);
  }

  // log|z| + i atan2(b, a); near |z| = 1 the real part is
  // log1p((x - 1)(x + 1) + y^2) / 2 (x = max(|a|, |b|), y = min) against
  // the cancellation in log(|z|).
  Cx Log(Cx z) {
    llvm::Value* a = z.re;
    llvm::Value* b = z.im;
    llvm::Value* h = Call("hypot", {a, b});
    llvm::Value* x = MaxAbs(a, b);
    llvm::Value* y = MinAbs(a, b);
    llvm::Value* near = b_.CreateFMul(
        K(0.5),
        Call("log1p", {b_.CreateFAdd(b_.CreateFMul(b_.CreateFSub(x, K(1)),
                                                   b_.CreateFAdd(x, K(1))),
                                     b_.CreateFMul(y, y))}));
    llvm::Value* is_near =
        b_.CreateAnd(b_.CreateFCmpOGT(h, K(0.5)), b_.CreateFCmpOLT(h, K(2)));
    return {b_.CreateSelect(is_near, near, Call("log", {h})),
            Call("atan2", {b, a})};
  }

  // The CPU runtime's log1p: log1p(2a + a^2 + b^2) / 2 + i atan2(b, 1 + a)
  // for finite |a|, |b| <= 1/2, log(1 + z) otherwise.
  Cx Log1p(Cx z) {
    llvm::Value* a = z.re;
    llvm::Value* b = z.im;
    llvm::Value* q = b_.CreateFAdd(
        b_.CreateFAdd(b_.CreateFMul(K(2), a), b_.CreateFMul(a, a)),
        b_.CreateFMul(b, b));
    Cx small{b_.CreateFMul(K(0.5), Call("log1p", {q})),
             Call("atan2", {b, b_.CreateFAdd(K(1), a)})};
    Cx other = Log({b_.CreateFAdd(K(1), a), b});
    llvm::Value* is_small = b_.CreateAnd(b_.CreateFCmpOLE(Abs(a), K(0.5)),
                                         b_.CreateFCmpOLE(Abs(b), K(0.5)));
    return Select(is_small, small, other);
  }

  // sin a cosh b + i cos a sinh b.
  Cx Sin(Cx z) {
    return {TimesHyper(Call("sin", {z.re}), z.im, false),
            TimesHyper(Call("cos", {z.re}), z.im, true)};
  }
  // cos a cosh b - i sin a sinh b.
  Cx Cos(Cx z) {
    return {TimesHyper(Call("cos", {z.re}), z.im, false),
            b_.CreateFNeg(TimesHyper(Call("sin", {z.re}), z.im, true))};
  }

  // Kahan's tanh: t = tan b, beta = 1 + t^2, s = sinh a,
  // rho = sqrt(1 + s^2): (beta rho s + i t) / (1 + beta s^2); for |a| > 20
  // (tanh a = +-1 in double) sign(a) + i 4 sin b cos b exp(-2|a|), as the
  // C library computes it.
  Cx Tanh(Cx z) {
    llvm::Value* a = z.re;
    llvm::Value* b = z.im;
    llvm::Value* t = Call("tan", {b});
    llvm::Value* beta = b_.CreateFAdd(K(1), b_.CreateFMul(t, t));
    llvm::Value* s = Call("sinh", {a});
    llvm::Value* rho = Call("sqrt", {b_.CreateFAdd(K(1), b_.CreateFMul(s, s))});
    llvm::Value* den =
        b_.CreateFAdd(K(1), b_.CreateFMul(beta, b_.CreateFMul(s, s)));
    Cx mid{b_.CreateFDiv(b_.CreateFMul(b_.CreateFMul(beta, rho), s), den),
           b_.CreateFDiv(t, den)};
    llvm::Value* e = Call("exp", {b_.CreateFMul(K(-2), Abs(a))});
    llvm::Value* im_large = b_.CreateFMul(
        b_.CreateFMul(b_.CreateFMul(Call("sin", {b}), Call("cos", {b})), K(4)),
        e);
    im_large = b_.CreateSelect(IsFinite(b), im_large, CopySign(K(0), b));
    Cx large{CopySign(K(1), a), im_large};
    return Select(b_.CreateFCmpOGT(Abs(a), K(20)), large, mid);
  }

  // Kahan: asin z = atan(a / Re(sqrt(1 - z) sqrt(1 + z)))
  //                 + i asinh(Im(conj(sqrt(1 - z)) sqrt(1 + z))).
  Cx Asin(Cx z) {
    Cx s1 = Sqrt({b_.CreateFSub(K(1), z.re), b_.CreateFNeg(z.im)}, false);
    Cx s2 = Sqrt({b_.CreateFAdd(K(1), z.re), z.im}, false);
    llvm::Value* re_prod =
        b_.CreateFSub(b_.CreateFMul(s1.re, s2.re), b_.CreateFMul(s1.im, s2.im));
    llvm::Value* im_prod =
        b_.CreateFSub(b_.CreateFMul(s1.re, s2.im), b_.CreateFMul(s1.im, s2.re));
    return {Call("atan2", {z.re, re_prod}), Call("asinh", {im_prod})};
  }
  // Kahan: acos z = 2 atan2(Re sqrt(1 - z), Re sqrt(1 + z))
  //                 + i asinh(Im(conj(sqrt(1 + z)) sqrt(1 - z))).
  Cx Acos(Cx z) {
    Cx s1 = Sqrt({b_.CreateFSub(K(1), z.re), b_.CreateFNeg(z.im)}, false);
    Cx s2 = Sqrt({b_.CreateFAdd(K(1), z.re), z.im}, false);
    llvm::Value* im_prod =
        b_.CreateFSub(b_.CreateFMul(s2.re, s1.im), b_.CreateFMul(s2.im, s1.re));
    return {b_.CreateFMul(K(2), Call("atan2", {s1.re, s2.re})),
            Call("asinh", {im_prod})};
  }
  // Kahan: acosh z = asinh(Re(conj(sqrt(z - 1)) sqrt(z + 1)))
  //                  + i 2 atan2(Im sqrt(z - 1), Re sqrt(z + 1)).
  Cx Acosh(Cx z) {
    Cx s1 = Sqrt({b_.CreateFSub(z.re, K(1)), z.im}, false);
    Cx s2 = Sqrt({b_.CreateFAdd(z.re, K(1)), z.im}, false);
    llvm::Value* re_prod =
        b_.CreateFAdd(b_.CreateFMul(s1.re, s2.re), b_.CreateFMul(s1.im, s2.im));
    return {Call("asinh", {re_prod}),
            b_.CreateFMul(K(2), Call("atan2", {s1.im, s2.re}))};
  }

  EmitContext& ctx_;
  codegen::IRBuilder& b_;
};

}  // namespace

std::pair<llvm::Value*, llvm::Value*> EmitDeviceComplexMath(
    codegen::EmitContext& ctx, int32_t fn,
    absl::Span<llvm::Value* const> parts) {
  ComplexEmitter e(ctx);
  Cx r = static_cast<ComplexFn>(fn) == ComplexFn::kPow
             ? e.Pow(parts[0], parts[1], parts[2], parts[3])
             : e.Eval(static_cast<ComplexFn>(fn), {parts[0], parts[1]});
  return {r.re, r.im};
}

}  // namespace hloref::gpu
