#include "backends/gpu/gpu_device_ops.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/complex_ir.h"
#include "backends/codegen/llvm_types.h"
#include "backends/codegen/math_ir.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "spec/types/minifloat.h"
#include "spec/util/status_macros.h"

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

// -------------------------------------------------------------------------
// rng-bit-generator (the CPU runtime's rng.cc, bit for bit): THREE_FRY =
// Threefry-2x32-20 with key state[0] and 64-bit counter state[1]; PHILOX
// (and DEFAULT) = Philox-4x32-10 with key state[0] and 128-bit counter
// (state[1], state[2]) for u64[3]+ states, (state[1], state[0]) for u64[2].
// Each work item computes one block at counter + item and writes the
// elements that block's words go to, so items are independent.

namespace {

using codegen::IrArray;
using codegen::IrIndex;
using codegen::IrValue;

// The row-major logical index of `linear` (i64) over `dims`.
IrIndex RowMajorIndex(EmitContext& ctx, llvm::Value* linear,
                      const std::vector<int64_t>& dims) {
  codegen::IRBuilder& b = ctx.b();
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  const bool narrow = n < (int64_t{1} << 31);
  llvm::Type* t = narrow ? b.getInt32Ty() : b.getInt64Ty();
  llvm::Value* rest = b.CreateTrunc(linear, t);
  IrIndex index(dims.size(), nullptr);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    llvm::Value* size = llvm::ConstantInt::get(t, dims[d]);
    llvm::Value* i = d == 0 ? rest : b.CreateURem(rest, size);
    index[d] = b.CreateZExt(i, b.getInt64Ty());
    if (d > 0) rest = b.CreateUDiv(rest, size);
  }
  return index;
}

llvm::Value* Rotl(codegen::IRBuilder& b, llvm::Value* x, int r) {
  return b.CreateIntrinsic(llvm::Intrinsic::fshl, {b.getInt32Ty()},
                           {x, x, b.getInt32(r)});
}

}  // namespace

std::pair<llvm::Value*, llvm::Value*> EmitThreefry2x32(
    codegen::EmitContext& ctx, llvm::Value* c0, llvm::Value* c1,
    llvm::Value* k0, llvm::Value* k1) {
  codegen::IRBuilder& b = ctx.b();
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  llvm::Value* ks[3] = {
      k0, k1, b.CreateXor(b.CreateXor(b.getInt32(0x1BD11BDA), k0), k1)};
  llvm::Value* x0 = b.CreateAdd(c0, ks[0]);
  llvm::Value* x1 = b.CreateAdd(c1, ks[1]);
  for (int g = 1; g <= 5; ++g) {
    const int* r = (g % 2 == 1) ? kRotations : kRotations + 4;
    for (int round = 0; round < 4; ++round) {
      x0 = b.CreateAdd(x0, x1);
      x1 = b.CreateXor(Rotl(b, x1, r[round]), x0);
    }
    x0 = b.CreateAdd(x0, ks[g % 3]);
    x1 = b.CreateAdd(x1, b.CreateAdd(ks[(g + 1) % 3], b.getInt32(g)));
  }
  return {x0, x1};
}

std::array<llvm::Value*, 4> EmitPhilox4x32(codegen::EmitContext& ctx,
                                           std::array<llvm::Value*, 4> x,
                                           llvm::Value* k0, llvm::Value* k1) {
  codegen::IRBuilder& b = ctx.b();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* i32 = b.getInt32Ty();
  for (int round = 0; round < 10; ++round) {
    // 32 x 32 -> 64-bit products (mul.wide.u32).
    llvm::Value* p0 =
        b.CreateMul(b.getInt64(0xD2511F53), b.CreateZExt(x[0], i64));
    llvm::Value* p1 =
        b.CreateMul(b.getInt64(0xCD9E8D57), b.CreateZExt(x[2], i64));
    llvm::Value* hi0 = b.CreateTrunc(b.CreateLShr(p0, 32), i32);
    llvm::Value* hi1 = b.CreateTrunc(b.CreateLShr(p1, 32), i32);
    x = {b.CreateXor(b.CreateXor(hi1, x[1]), k0), b.CreateTrunc(p1, i32),
         b.CreateXor(b.CreateXor(hi0, x[3]), k1), b.CreateTrunc(p0, i32)};
    k0 = b.CreateAdd(k0, b.getInt32(0x9E3779B9));
    k1 = b.CreateAdd(k1, b.getInt32(0xBB67AE85));
  }
  return x;
}

namespace {

absl::StatusOr<DeviceKernel> PlanRngBitGenerator(const HloInstruction& inst) {
  const std::string& a = inst.attrs().algorithm;
  bool philox;
  if (a.empty() || a == "rng_default" || a == "rng_philox") {
    philox = true;
  } else if (a == "rng_three_fry") {
    philox = false;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("rng-bit-generator: unknown algorithm ", a));
  }
  const Shape& state = inst.operand(0)->shape();
  if (!inst.shape().IsTuple() || inst.shape().tuple_size() != 2 ||
      state.element_type() != PrimitiveType::kU64 || state.rank() != 1 ||
      state.dimensions(0) < 2 || !inst.shape().tuple_shapes(1).IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("rng-bit-generator shapes ", state.ToString(), " -> ",
                     inst.shape().ToString(), " (is the module verified?)"));
  }
  const int64_t words = state.dimensions(0);
  const Shape& out = inst.shape().tuple_shapes(1);
  const PrimitiveType type = out.element_type();
  if (!IsInteger(type)) {
    return absl::UnimplementedError(
        absl::StrCat("rng-bit-generator output of ", PrimitiveTypeName(type)));
  }
  const std::vector<int64_t> dims(out.dimensions().begin(),
                                  out.dimensions().end());
  const int64_t rank = out.rank();
  const int64_t n = out.num_elements();
  const bool wide = BitWidth(type) == 64;
  // THREE_FRY's split of narrow outputs: the first even dimension, else
  // the first largest one, halved (rounding up).
  int64_t split = -1;
  std::vector<int64_t> half = dims;
  if (!philox && !wide && rank > 0) {
    for (int64_t d = 0; d < rank && split < 0; ++d) {
      if (dims[d] % 2 == 0) split = d;
    }
    if (split < 0) {
      split = 0;
      for (int64_t d = 1; d < rank; ++d) {
        if (dims[d] > dims[split]) split = d;
      }
    }
    half[split] = (dims[split] + 1) / 2;
  }
  int64_t half_count = 1;
  for (int64_t d : half) half_count *= d;
  DeviceKernel k;
  k.name = "rng";
  k.work_items = philox
                     ? (wide ? (n + 1) / 2 : (n + 3) / 4)
                     : (wide || rank == 0 ? (rank == 0 ? 1 : n) : half_count);
  if (n == 0) k.work_items = 0;
  const int64_t items = k.work_items;
  k.body = [=](EmitContext& ctx, absl::Span<const IrValue> operands,
               const IrValue& output,
               const DeviceLoops& loops) -> absl::Status {
    codegen::IRBuilder& b = ctx.b();
    llvm::Type* i32 = b.getInt32Ty();
    llvm::Type* i64 = b.getInt64Ty();
    const IrArray& st = operands[0].array;
    const IrArray& new_state = output.elements[0].array;
    const IrArray& bits = output.elements[1].array;
    auto word = [&](int64_t i) { return st.EmitRead(ctx, {ctx.I64(i)}); };
    llvm::Value* key = word(0);
    llvm::Value* s1 = word(1);
    // PHILOX's counter high word.
    llvm::Value* s_hi = philox ? word(words >= 3 ? 2 : 0) : nullptr;
    llvm::Value* k0 = b.CreateTrunc(key, i32);
    llvm::Value* k1 = b.CreateTrunc(b.CreateLShr(key, 32), i32);
    llvm::Type* ct = codegen::ComputeType(ctx.context(), type);
    auto to_type = [&](llvm::Value* v) { return b.CreateZExtOrTrunc(v, ct); };
    auto join = [&](llvm::Value* lo, llvm::Value* hi) {
      return b.CreateOr(b.CreateZExt(lo, i64),
                        b.CreateShl(b.CreateZExt(hi, i64), 32));
    };
    // The 128-bit counter (lo, hi) + delta (i64), with the carry.
    auto add128 = [&](llvm::Value* lo, llvm::Value* hi, llvm::Value* delta) {
      llvm::Value* l = b.CreateAdd(lo, delta);
      llvm::Value* carry = b.CreateZExt(b.CreateICmpULT(l, lo), i64);
      return std::make_pair(l, b.CreateAdd(hi, carry));
    };
    // The new state: key, the counter advanced by the items, the words
    // the algorithm does not read unchanged.
    HLOREF_RETURN_IF_ERROR(loops.once([&]() -> absl::Status {
      new_state.EmitWrite(ctx, {ctx.I64(0)}, key);
      if (philox) {
        auto [lo, hi] = add128(s1, s_hi, ctx.I64(items));
        new_state.EmitWrite(ctx, {ctx.I64(1)}, lo);
        if (words >= 3) new_state.EmitWrite(ctx, {ctx.I64(2)}, hi);
      } else {
        new_state.EmitWrite(ctx, {ctx.I64(1)}, b.CreateAdd(s1, ctx.I64(items)));
      }
      for (int64_t i = philox ? 3 : 2; i < words; ++i) {
        new_state.EmitWrite(ctx, {ctx.I64(i)}, word(i));
      }
      return absl::OkStatus();
    }));
    return loops.for_each(
        ctx.I64(items), [&](llvm::Value* item) -> absl::Status {
          // Writes `v` to row-major element `e` (i64) when e < n.
          auto write_at = [&](llvm::Value* e, llvm::Value* v,
                              bool guard) -> absl::Status {
            if (!guard) {
              bits.EmitWrite(ctx, RowMajorIndex(ctx, e, dims), to_type(v));
              return absl::OkStatus();
            }
            return ctx.EmitIf(
                b.CreateICmpULT(e, ctx.I64(n)),
                [&]() -> absl::Status {
                  bits.EmitWrite(ctx, RowMajorIndex(ctx, e, dims), to_type(v));
                  return absl::OkStatus();
                },
                "in_range");
          };
          if (philox) {
            auto [lo, hi] = add128(s1, s_hi, item);
            std::array<llvm::Value*, 4> c = {
                b.CreateTrunc(lo, i32),
                b.CreateTrunc(b.CreateLShr(lo, 32), i32),
                b.CreateTrunc(hi, i32),
                b.CreateTrunc(b.CreateLShr(hi, 32), i32)};
            std::array<llvm::Value*, 4> w = EmitPhilox4x32(ctx, c, k0, k1);
            if (wide) {
              llvm::Value* e = b.CreateMul(item, ctx.I64(2));
              HLOREF_RETURN_IF_ERROR(write_at(e, join(w[0], w[1]), false));
              return write_at(b.CreateAdd(e, ctx.I64(1)), join(w[2], w[3]),
                              n % 2 != 0);
            }
            llvm::Value* e = b.CreateMul(item, ctx.I64(4));
            for (int64_t j = 0; j < 4; ++j) {
              HLOREF_RETURN_IF_ERROR(write_at(b.CreateAdd(e, ctx.I64(j)), w[j],
                                              j > 0 && n % 4 != 0));
            }
            return absl::OkStatus();
          }
          llvm::Value* c = b.CreateAdd(s1, item);
          const std::pair<llvm::Value*, llvm::Value*> w =
              EmitThreefry2x32(ctx, b.CreateTrunc(c, i32),
                               b.CreateTrunc(b.CreateLShr(c, 32), i32), k0, k1);
          llvm::Value* w0 = w.first;
          llvm::Value* w1 = w.second;
          if (wide) return write_at(item, join(w0, w1), false);
          if (rank == 0) {
            bits.EmitWrite(ctx, {}, to_type(w0));
            return absl::OkStatus();
          }
          IrIndex h = RowMajorIndex(ctx, item, half);
          IrIndex target = h;
          llvm::Value* pos = b.CreateMul(h[split], ctx.I64(2));
          target[split] = pos;
          bits.EmitWrite(ctx, target, to_type(w0));
          llvm::Value* next = b.CreateAdd(pos, ctx.I64(1));
          target[split] = next;
          if (dims[split] % 2 == 0) {
            bits.EmitWrite(ctx, target, to_type(w1));
            return absl::OkStatus();
          }
          return ctx.EmitIf(
              b.CreateICmpULT(next, ctx.I64(dims[split])),
              [&]() -> absl::Status {
                bits.EmitWrite(ctx, target, to_type(w1));
                return absl::OkStatus();
              },
              "second_word");
        });
  };
  return k;
}

}  // namespace

// -------------------------------------------------------------------------
// sort and topk: per row, the CPU runtime's stable bottom-up merge sort
// (backends/cpu/runtime/sort.cc: width 1, 2, 4 ...; merging runs
// [lo, mid) and [mid, hi), the right run's element goes first exactly
// when less(right, left)) of a permutation of the row's positions, held
// in two arrays (source and destination swap per level): shared memory
// for rows of at most kMaxSharedSortRow elements, else block-private
// global scratch. A barrier separates levels.
//
// The merges of a level are split into work units: with P merges and T
// threads (DeviceLoops::merge_split), each merge into C = max(1, T / P)
// chunks of consecutive outputs, thread t taking units t, t + T, ... In
// the first levels C = 1 (a thread merges whole pairs); in the last ones
// a merge is shared by C threads (merge path): the chunk starting at
// output d of the merge starts at the split (i, d - i) found by binary
// search on the diagonal d (the smallest i with less(B[d-1-i], A[i]),
// i.e. A[i] is not taken before B[d-1-i]), and merges sequentially from
// there. For a consistent comparator the split is where the sequential
// merge is after d steps. For any comparator (NaN under LT ...) each
// chunk also checks that its sequential merge ends at the split the next
// chunk starts from; the first chunk starts at (0, 0), so when every
// check passes every chunk started where the sequential merge was, by
// induction, and the level's result is the CPU runtime's. If a check
// fails anywhere, the block redoes the level with one thread per merge
// (the source is untouched). The permutation is therefore the CPU
// runtime's whatever the comparator does.

namespace {

// Rows of at most this many elements sort in shared memory (two i32
// arrays of it: 32 KiB of the 48 KiB of static shared memory); longer
// rows in global scratch.
constexpr int64_t kMaxSharedSortRow = 4096;
// Positions are i32.
constexpr int64_t kMaxSortRow = (int64_t{1} << 31) - 1;

struct RowSortPlan {
  int64_t n = 0;          // elements per row
  int64_t rows = 0;       // product of the other dimensions
  int64_t dimension = 0;  // the sorted dimension
  std::vector<int64_t> dims;
};

// The merge sort of one row (row index `row`, i64) into an array (shared
// memory or global scratch) whose address it returns (i32 positions):
// `less(i, j)` (i64 positions) is the comparator.
using LessFn =
    std::function<absl::StatusOr<llvm::Value*>(llvm::Value* i, llvm::Value* j)>;

absl::StatusOr<llvm::Value*> EmitRowMergeSort(EmitContext& ctx,
                                              const DeviceLoops& loops,
                                              int64_t n, const LessFn& less) {
  codegen::IRBuilder& b = ctx.b();
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* i64 = b.getInt64Ty();
  const auto& array =
      n > kMaxSharedSortRow ? loops.block_scratch : loops.shared_array;
  if (!array) {
    return absl::InternalError("the sort kernel's arrays have no allocator");
  }
  llvm::Value* perm_a = array(i32, n, "sort_perm_a");
  llvm::Value* perm_b = array(i32, n, "sort_perm_b");
  if (perm_a == nullptr || perm_b == nullptr) {
    return absl::InternalError("the sort kernel's scratch is too small");
  }
  // Set when a merge-path check fails in the current level.
  llvm::Value* redo = loops.shared_array(i32, 1, "sort_redo");
  auto at = [&](llvm::Value* base, llvm::Value* i) {
    return b.CreateInBoundsGEP(i32, base, {i});
  };
  llvm::Value* tid = loops.thread();
  llvm::Value* step = ctx.I64(loops.threads);
  HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
      "init", tid, ctx.I64(n), step, [&](llvm::Value* i) -> absl::Status {
        b.CreateStore(b.CreateTrunc(i, i32), at(perm_a, i));
        return absl::OkStatus();
      }));
  loops.barrier();
  int64_t levels = 0;
  while ((int64_t{1} << levels) < n) ++levels;
  const int64_t split =
      loops.merge_split > 0 ? loops.merge_split : loops.threads;
  llvm::Value* a_slot = ctx.EntryAlloca(i64, 1, "merge_a");
  llvm::Value* b_slot = ctx.EntryAlloca(i64, 1, "merge_b");
  llvm::Value* lo_slot = ctx.EntryAlloca(i64, 1, "split_lo");
  llvm::Value* hi_slot = ctx.EntryAlloca(i64, 1, "split_hi");
  llvm::Value* take_b_slot = ctx.EntryAlloca(b.getInt1Ty(), 1, "take_b");

  // Outputs [out_begin, out_end) of the merge of src[lo, mid) and
  // src[mid, hi) into dst, starting with the runs' next elements at a, bb;
  // leaves the final positions in a_slot / b_slot.
  auto merge_steps = [&](llvm::Value* src, llvm::Value* dst, llvm::Value* mid,
                         llvm::Value* hi, llvm::Value* a, llvm::Value* bb,
                         llvm::Value* out_begin,
                         llvm::Value* out_end) -> absl::Status {
    b.CreateStore(a, a_slot);
    b.CreateStore(bb, b_slot);
    return ctx.EmitForLoop(
        "merge", out_begin, out_end, ctx.I64(1),
        [&](llvm::Value* out) -> absl::Status {
          llvm::Value* a = b.CreateLoad(i64, a_slot);
          llvm::Value* bb = b.CreateLoad(i64, b_slot);
          llvm::Value* a_left = b.CreateICmpULT(a, mid);
          llvm::Value* b_left = b.CreateICmpULT(bb, hi);
          // Take the right run's element when the left one is used up, or
          // both remain and less(right, left).
          b.CreateStore(b.CreateNot(a_left), take_b_slot);
          HLOREF_RETURN_IF_ERROR(ctx.EmitIf(
              b.CreateAnd(a_left, b_left),
              [&]() -> absl::Status {
                llvm::Value* pa =
                    b.CreateZExt(b.CreateLoad(i32, at(src, a)), i64);
                llvm::Value* pb =
                    b.CreateZExt(b.CreateLoad(i32, at(src, bb)), i64);
                HLOREF_ASSIGN_OR_RETURN(llvm::Value * l, less(pb, pa));
                b.CreateStore(l, take_b_slot);
                return absl::OkStatus();
              },
              "compare"));
          llvm::Value* take_b = b.CreateLoad(b.getInt1Ty(), take_b_slot);
          llvm::Value* from = b.CreateSelect(take_b, bb, a);
          b.CreateStore(b.CreateLoad(i32, at(src, from)), at(dst, out));
          b.CreateStore(b.CreateAdd(a, b.CreateZExt(b.CreateNot(take_b), i64)),
                        a_slot);
          b.CreateStore(b.CreateAdd(bb, b.CreateZExt(take_b, i64)), b_slot);
          return absl::OkStatus();
        });
  };
  // The number of left-run elements among the first d outputs of the
  // merge (merge path): binary search over [max(0, d - nb), min(d, na)].
  auto split_at = [&](llvm::Value* src, llvm::Value* lo, llvm::Value* mid,
                      llvm::Value* hi,
                      llvm::Value* d) -> absl::StatusOr<llvm::Value*> {
    llvm::Value* na = b.CreateSub(mid, lo);
    llvm::Value* nb = b.CreateSub(hi, mid);
    b.CreateStore(
        b.CreateSub(b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, d, nb), nb),
        lo_slot);
    b.CreateStore(b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, d, na),
                  hi_slot);
    // The range halves every step: levels + 1 steps suffice.
    HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
        "search", ctx.I64(0), ctx.I64(levels + 1), ctx.I64(1),
        [&](llvm::Value*) -> absl::Status {
          llvm::Value* l = b.CreateLoad(i64, lo_slot);
          llvm::Value* h = b.CreateLoad(i64, hi_slot);
          return ctx.EmitIf(
              b.CreateICmpULT(l, h),
              [&]() -> absl::Status {
                llvm::Value* m = b.CreateLShr(b.CreateAdd(l, h), 1);
                llvm::Value* pa = b.CreateZExt(
                    b.CreateLoad(i32, at(src, b.CreateAdd(lo, m))), i64);
                llvm::Value* pb = b.CreateZExt(
                    b.CreateLoad(
                        i32, at(src, b.CreateSub(b.CreateAdd(mid, d),
                                                 b.CreateAdd(m, ctx.I64(1))))),
                    i64);
                HLOREF_ASSIGN_OR_RETURN(llvm::Value * before, less(pb, pa));
                // B[d-1-m] before A[m]: the split is at most m.
                b.CreateStore(
                    b.CreateSelect(before, l, b.CreateAdd(m, ctx.I64(1))),
                    lo_slot);
                b.CreateStore(b.CreateSelect(before, m, h), hi_slot);
                return absl::OkStatus();
              },
              "bisect");
        }));
    return b.CreateLoad(i64, lo_slot);
  };
  auto on_thread0 = [&](const std::function<void()>& body) {
    return ctx.EmitIf(
        b.CreateICmpEQ(tid, ctx.I64(0)),
        [&]() {
          body();
          return absl::OkStatus();
        },
        "thread0");
  };
  HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
      "level", ctx.I64(0), ctx.I64(levels), ctx.I64(1),
      [&](llvm::Value* level) -> absl::Status {
        llvm::Value* odd = b.CreateTrunc(level, b.getInt1Ty());
        llvm::Value* src = b.CreateSelect(odd, perm_b, perm_a);
        llvm::Value* dst = b.CreateSelect(odd, perm_a, perm_b);
        llvm::Value* width = b.CreateShl(ctx.I64(1), level);
        llvm::Value* pairs = b.CreateUDiv(
            b.CreateAdd(ctx.I64(n),
                        b.CreateSub(b.CreateShl(width, 1), ctx.I64(1))),
            b.CreateShl(width, 1));
        auto bounds = [&](llvm::Value* pair) {
          llvm::Value* lo = b.CreateMul(pair, b.CreateShl(width, 1));
          llvm::Value* mid = b.CreateBinaryIntrinsic(
              llvm::Intrinsic::umin, b.CreateAdd(lo, width), ctx.I64(n));
          llvm::Value* hi = b.CreateBinaryIntrinsic(
              llvm::Intrinsic::umin, b.CreateAdd(lo, b.CreateShl(width, 1)),
              ctx.I64(n));
          return std::array<llvm::Value*, 3>{lo, mid, hi};
        };
        HLOREF_RETURN_IF_ERROR(
            on_thread0([&]() { b.CreateStore(b.getInt32(0), redo); }));
        loops.barrier();
        llvm::Value* chunks =
            b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, ctx.I64(1),
                                    b.CreateUDiv(ctx.I64(split), pairs));
        HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
            "unit", tid, b.CreateMul(pairs, chunks), step,
            [&](llvm::Value* unit) -> absl::Status {
              auto [lo, mid, hi] = bounds(b.CreateUDiv(unit, chunks));
              llvm::Value* c = b.CreateURem(unit, chunks);
              llvm::Value* len = b.CreateSub(hi, lo);
              llvm::Value* piece = b.CreateUDiv(
                  b.CreateAdd(len, b.CreateSub(chunks, ctx.I64(1))), chunks);
              llvm::Value* d0 = b.CreateBinaryIntrinsic(
                  llvm::Intrinsic::umin, b.CreateMul(c, piece), len);
              llvm::Value* d1 = b.CreateBinaryIntrinsic(
                  llvm::Intrinsic::umin, b.CreateAdd(d0, piece), len);
              HLOREF_ASSIGN_OR_RETURN(llvm::Value * i0,
                                      split_at(src, lo, mid, hi, d0));
              HLOREF_RETURN_IF_ERROR(
                  merge_steps(src, dst, mid, hi, b.CreateAdd(lo, i0),
                              b.CreateAdd(mid, b.CreateSub(d0, i0)),
                              b.CreateAdd(lo, d0), b.CreateAdd(lo, d1)));
              llvm::Value* a_end = b.CreateLoad(i64, a_slot);
              HLOREF_ASSIGN_OR_RETURN(llvm::Value * i1,
                                      split_at(src, lo, mid, hi, d1));
              return ctx.EmitIf(
                  b.CreateICmpNE(b.CreateSub(a_end, lo), i1),
                  [&]() -> absl::Status {
                    b.CreateStore(b.getInt32(1), redo);
                    return absl::OkStatus();
                  },
                  "split_mismatch");
            }));
        loops.barrier();
        // Uniform in the block: read by every thread between two barriers.
        llvm::Value* again =
            b.CreateICmpNE(b.CreateLoad(i32, redo), b.getInt32(0));
        HLOREF_RETURN_IF_ERROR(ctx.EmitIf(
            again,
            [&]() -> absl::Status {
              return ctx.EmitForLoop("pair", tid, pairs, step,
                                     [&](llvm::Value* pair) -> absl::Status {
                                       auto [lo, mid, hi] = bounds(pair);
                                       return merge_steps(src, dst, mid, hi, lo,
                                                          mid, lo, hi);
                                     });
            },
            "redo_level"));
        loops.barrier();
        return absl::OkStatus();
      }));
  return levels % 2 == 0 ? perm_a : perm_b;
}

absl::StatusOr<RowSortPlan> PlanRows(const Shape& shape, int64_t dimension) {
  RowSortPlan p;
  if (!shape.IsArray() || shape.rank() == 0 || dimension < 0 ||
      dimension >= shape.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sort dimension ", dimension, " of ", shape.ToString()));
  }
  p.dimension = dimension;
  p.dims.assign(shape.dimensions().begin(), shape.dimensions().end());
  p.n = p.dims[dimension];
  p.rows = 1;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (d != dimension) p.rows *= p.dims[d];
  }
  if (p.n > kMaxSortRow) {
    return absl::UnimplementedError(
        absl::StrCat("the GPU sort kernel takes rows of at most ", kMaxSortRow,
                     " elements (i32 positions); this one has ", p.n));
  }
  if (p.n == 0) p.rows = 0;
  return p;
}

// The index of element `i` (i64) of row `row` (i64, row-major over the
// dimensions other than the sorted one).
IrIndex RowElement(EmitContext& ctx, const RowSortPlan& p, llvm::Value* row,
                   llvm::Value* i) {
  std::vector<int64_t> other;
  for (int64_t d = 0; d < static_cast<int64_t>(p.dims.size()); ++d) {
    if (d != p.dimension) other.push_back(p.dims[d]);
  }
  IrIndex o = RowMajorIndex(ctx, row, other);
  IrIndex index;
  size_t next = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(p.dims.size()); ++d) {
    index.push_back(d == p.dimension ? i : o[next++]);
  }
  return index;
}

// to[to_index] = from[from_index], the storage bits as they are (NaN
// payloads and all, as the CPU runtime's memcpy).
void CopyElement(EmitContext& ctx, const IrArray& from,
                 const IrIndex& from_index, const IrArray& to,
                 const IrIndex& to_index) {
  llvm::Type* st = codegen::StorageType(ctx.context(), from.element_type());
  ctx.b().CreateStore(
      ctx.b().CreateLoad(st, from.EmitElementPointer(ctx, from_index)),
      to.EmitElementPointer(ctx, to_index));
}

DeviceKernel RowBlocksKernel(const char* name, const RowSortPlan& p) {
  DeviceKernel k;
  k.name = name;
  k.rows = p.rows;
  // One thread per pair of the first level, at most 256.
  int64_t threads = 32;
  while (threads < 256 && 2 * threads < p.n) threads *= 2;
  k.threads_per_block = threads;
  // The two permutation arrays: shared memory, or global scratch for long
  // rows; the level's redo flag is always shared.
  if (p.n > kMaxSharedSortRow) {
    k.scratch_bytes_per_block = 2 * ((4 * p.n + 15) / 16 * 16);
    k.shared_bytes = 4;
  } else {
    k.shared_bytes = 2 * 4 * p.n + 4;
  }
  k.work_items = p.n;  // results per row
  return k;
}

absl::StatusOr<DeviceKernel> PlanSort(const HloInstruction& inst) {
  const HloComputation* comparator = inst.to_apply();
  if (comparator == nullptr || inst.operand_count() == 0) {
    return absl::InvalidArgumentError("sort without a comparator or operands");
  }
  const Shape& s0 = inst.operand(0)->shape();
  int64_t dimension = s0.rank() - 1;
  if (!inst.attrs().dimensions.empty()) dimension = inst.attrs().dimensions[0];
  HLOREF_ASSIGN_OR_RETURN(RowSortPlan p, PlanRows(s0, dimension));
  const int64_t operands = inst.operand_count();
  for (int64_t k = 0; k < operands; ++k) {
    if (inst.operand(k)->shape().dimensions() != s0.dimensions()) {
      return absl::InvalidArgumentError(
          absl::StrCat("sort operand ", k, " does not fit"));
    }
  }
  DeviceKernel k = RowBlocksKernel("sort", p);
  k.body = [p, comparator, operands](EmitContext& ctx,
                                     absl::Span<const IrValue> ops,
                                     const IrValue& output,
                                     const DeviceLoops& loops) -> absl::Status {
    codegen::IRBuilder& b = ctx.b();
    std::vector<IrArray> outs;
    output.CollectArrays(&outs);
    if (static_cast<int64_t>(outs.size()) != operands) {
      return absl::InvalidArgumentError("sort results do not fit");
    }
    return loops.for_each_row(
        ctx.I64(p.rows), [&](llvm::Value* row) -> absl::Status {
          LessFn less = [&](llvm::Value* i,
                            llvm::Value* j) -> absl::StatusOr<llvm::Value*> {
            std::vector<llvm::Value*> args;
            for (int64_t k = 0; k < operands; ++k) {
              args.push_back(
                  ops[k].array.EmitRead(ctx, RowElement(ctx, p, row, i)));
              args.push_back(
                  ops[k].array.EmitRead(ctx, RowElement(ctx, p, row, j)));
            }
            HLOREF_ASSIGN_OR_RETURN(
                std::vector<llvm::Value*> r,
                ctx.EmitCallScalarComputation(*comparator, args));
            if (r.size() != 1) {
              return absl::InvalidArgumentError(
                  "the sort comparator does not return one pred");
            }
            llvm::Value* v = r[0];
            if (v->getType() != b.getInt1Ty()) {
              v = b.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
            }
            return v;
          };
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * perm,
                                  EmitRowMergeSort(ctx, loops, p.n, less));
          HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
              "gather", loops.thread(), ctx.I64(p.n), ctx.I64(loops.threads),
              [&](llvm::Value* i) -> absl::Status {
                llvm::Value* from = b.CreateZExt(
                    b.CreateLoad(
                        b.getInt32Ty(),
                        b.CreateInBoundsGEP(b.getInt32Ty(), perm, {i})),
                    b.getInt64Ty());
                for (int64_t k = 0; k < operands; ++k) {
                  CopyElement(ctx, ops[k].array, RowElement(ctx, p, row, from),
                              outs[k], RowElement(ctx, p, row, i));
                }
                return absl::OkStatus();
              }));
          // The next row reuses the arrays.
          loops.barrier();
          return absl::OkStatus();
        });
  };
  return k;
}

// topk (backends/cpu/runtime/topk.h): positions ordered by the total-order
// key (larger first for largest, smaller first otherwise), ties by the
// lower position; the first k of the row's stable merge sort by that key.
absl::StatusOr<DeviceKernel> PlanTopK(const HloInstruction& inst) {
  const Shape& in = inst.operand(0)->shape();
  const PrimitiveType t = in.element_type();
  const bool float_key = IsFloat(t);
  if (!float_key && !IsInteger(t) && t != PrimitiveType::kPred) {
    return absl::UnimplementedError(absl::StrCat(
        "the GPU topk kernel does not order ", PrimitiveTypeName(t)));
  }
  // Floats: the encoding's bits (total_bits of them, in the low bits of
  // the storage), sign-magnitude.
  const int float_bits = float_key ? FormatOf(t).total_bits : 0;
  const bool float_signed = float_key && FormatOf(t).has_sign;
  HLOREF_ASSIGN_OR_RETURN(RowSortPlan p, PlanRows(in, in.rank() - 1));
  const int64_t k = inst.attrs().k;
  if (k < 0 || k > p.n || !inst.shape().IsTuple() ||
      inst.shape().tuple_size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("topk k=", k, " on ", in.ToString()));
  }
  const bool largest = inst.attrs().largest;
  DeviceKernel kernel = RowBlocksKernel("topk", p);
  kernel.work_items = k;
  kernel.body = [p, k, t, float_key, float_bits, float_signed, largest](
                    EmitContext& ctx, absl::Span<const IrValue> ops,
                    const IrValue& output,
                    const DeviceLoops& loops) -> absl::Status {
    codegen::IRBuilder& b = ctx.b();
    llvm::Type* i64 = b.getInt64Ty();
    const IrArray& x = ops[0].array;
    const IrArray& values = output.elements[0].array;
    const IrArray& indices = output.elements[1].array;
    // The key (topk.h's order as a signed i64, larger is better):
    // floats from the encoding, sign-magnitude to two's complement;
    // unsigned integers and pred shifted by 2^63; complemented for
    // smallest-first (equal keys stay equal).
    auto key = [&](const IrIndex& index) {
      llvm::Value* v;
      if (float_key) {
        llvm::Type* st = b.getIntNTy(8 * StorageBytes(t));
        llvm::Value* wide = b.CreateZExt(
            b.CreateLoad(st, x.EmitElementPointer(ctx, index)), i64);
        if (float_bits < 64) {
          wide = b.CreateAnd(wide, ctx.I64((int64_t{1} << float_bits) - 1));
        }
        if (float_signed) {
          const uint64_t sign = uint64_t{1} << (float_bits - 1);
          llvm::Value* mag =
              b.CreateAnd(wide, ctx.I64(static_cast<int64_t>(sign - 1)));
          llvm::Value* neg = b.CreateICmpNE(
              b.CreateAnd(wide, ctx.I64(static_cast<int64_t>(sign))),
              ctx.I64(0));
          v = b.CreateSelect(neg, b.CreateSub(b.CreateNeg(mag), ctx.I64(1)),
                             mag);
        } else {
          v = wide;
        }
      } else if (IsSignedInt(t)) {
        v = b.CreateSExt(x.EmitRead(ctx, index), i64);
      } else {
        v = b.CreateXor(b.CreateZExt(x.EmitRead(ctx, index), i64),
                        ctx.I64(static_cast<int64_t>(uint64_t{1} << 63)));
      }
      return largest ? v : b.CreateNot(v);
    };
    return loops.for_each_row(
        ctx.I64(p.rows), [&](llvm::Value* row) -> absl::Status {
          LessFn less = [&](llvm::Value* i,
                            llvm::Value* j) -> absl::StatusOr<llvm::Value*> {
            // i before j: a larger key.
            return b.CreateICmpSGT(key(RowElement(ctx, p, row, i)),
                                   key(RowElement(ctx, p, row, j)));
          };
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * perm,
                                  EmitRowMergeSort(ctx, loops, p.n, less));
          HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
              "gather", loops.thread(), ctx.I64(k), ctx.I64(loops.threads),
              [&](llvm::Value* i) -> absl::Status {
                llvm::Value* from32 = b.CreateLoad(
                    b.getInt32Ty(),
                    b.CreateInBoundsGEP(b.getInt32Ty(), perm, {i}));
                llvm::Value* from = b.CreateZExt(from32, i64);
                CopyElement(ctx, x, RowElement(ctx, p, row, from), values,
                            RowElement(ctx, p, row, i));
                indices.EmitWrite(ctx, RowElement(ctx, p, row, i), from32);
                return absl::OkStatus();
              }));
          loops.barrier();
          return absl::OkStatus();
        });
  };
  return kernel;
}

}  // namespace

// -------------------------------------------------------------------------
// cholesky and triangular-solve of real types (the CPU runtime's
// linalg.cc rules; Eigen in long double there): one thread per batch item
// (cholesky), per (batch item, column of b) (left-side solve) or per
// (batch item, row of b) (right-side solve); sums accumulate in double,
// each result element is rounded once to its type and later steps read
// the rounded values back from the result buffer.

namespace {

struct TriangularSolveAttrs {
  bool left_side, lower, unit_diagonal, transpose;
};

// The index (row-major over the leading rank - 2 dimensions of `shape`)
// of batch item `item` (i64), then the two matrix dimensions (unset).
IrIndex BatchIndex(EmitContext& ctx, const Shape& shape, llvm::Value* item) {
  std::vector<int64_t> batch(shape.dimensions().begin(),
                             shape.dimensions().end() - 2);
  IrIndex index = RowMajorIndex(ctx, item, batch);
  index.push_back(nullptr);
  index.push_back(nullptr);
  return index;
}

IrIndex At(IrIndex index, llvm::Value* i, llvm::Value* j) {
  index[index.size() - 2] = i;
  index[index.size() - 1] = j;
  return index;
}

absl::Status CheckLinalgType(PrimitiveType t, const char* op) {
  if (!IsFloat(t) && !IsComplex(t)) {
    return absl::UnimplementedError(
        absl::StrCat("the GPU ", op,
                     " kernel takes floating-point and "
                     "complex types, not ",
                     PrimitiveTypeName(t)));
  }
  return absl::OkStatus();
}

// A real (im == nullptr) or complex scalar as doubles.
struct Z {
  llvm::Value* re;
  llvm::Value* im;
};

class ZOps {
 public:
  ZOps(EmitContext& ctx, PrimitiveType t)
      : ctx_(ctx), b_(ctx.b()), t_(t), complex_(IsComplex(t)) {}
  Z Read(const IrArray& a, const IrIndex& index) {
    llvm::Value* v = a.EmitRead(ctx_, index);
    if (!complex_) return {codegen::EmitToDouble(ctx_, v), nullptr};
    return {codegen::EmitToDouble(ctx_, b_.CreateExtractValue(v, 0)),
            codegen::EmitToDouble(ctx_, b_.CreateExtractValue(v, 1))};
  }
  void Write(const IrArray& a, const IrIndex& index, Z z) {
    if (!complex_) {
      a.EmitWrite(ctx_, index, codegen::EmitRoundToFloat(ctx_, t_, z.re));
      return;
    }
    const PrimitiveType comp = ComplexComponentType(t_);
    llvm::Value* v =
        llvm::UndefValue::get(codegen::ComputeType(ctx_.context(), t_));
    v = b_.CreateInsertValue(v, codegen::EmitRoundToFloat(ctx_, comp, z.re), 0);
    v = b_.CreateInsertValue(
        v, codegen::EmitRoundToFloat(ctx_, comp, z.im != nullptr ? z.im : K(0)),
        1);
    a.EmitWrite(ctx_, index, v);
  }
  llvm::Value* K(double v) { return codegen::FpConst(b_.getDoubleTy(), v); }
  Z Const(double re) { return {K(re), complex_ ? K(0) : nullptr}; }
  Z Conj(Z z) { return {z.re, z.im ? b_.CreateFNeg(z.im) : nullptr}; }
  Z Mul(Z x, Z y) {
    if (!complex_) return {b_.CreateFMul(x.re, y.re), nullptr};
    return {
        b_.CreateFSub(b_.CreateFMul(x.re, y.re), b_.CreateFMul(x.im, y.im)),
        b_.CreateFAdd(b_.CreateFMul(x.re, y.im), b_.CreateFMul(x.im, y.re))};
  }
  Z Scale(Z x, llvm::Value* d) {  // x / d, d real
    return {b_.CreateFDiv(x.re, d), x.im ? b_.CreateFDiv(x.im, d) : nullptr};
  }
  // x / y (Smith's algorithm for complex y).
  Z Div(Z x, Z y) {
    if (!complex_) return {b_.CreateFDiv(x.re, y.re), nullptr};
    llvm::Value* use_im = b_.CreateFCmpOLT(codegen::EmitFabs(ctx_, y.re),
                                           codegen::EmitFabs(ctx_, y.im));
    llvm::Value* r1 = b_.CreateFDiv(y.re, y.im);
    llvm::Value* d1 = b_.CreateFAdd(b_.CreateFMul(y.re, r1), y.im);
    llvm::Value* r2 = b_.CreateFDiv(y.im, y.re);
    llvm::Value* d2 = b_.CreateFAdd(b_.CreateFMul(y.im, r2), y.re);
    Z a{b_.CreateFDiv(b_.CreateFAdd(b_.CreateFMul(x.re, r1), x.im), d1),
        b_.CreateFDiv(b_.CreateFSub(b_.CreateFMul(x.im, r1), x.re), d1)};
    Z c{b_.CreateFDiv(b_.CreateFAdd(b_.CreateFMul(x.im, r2), x.re), d2),
        b_.CreateFDiv(b_.CreateFSub(x.im, b_.CreateFMul(x.re, r2)), d2)};
    return {b_.CreateSelect(use_im, a.re, c.re),
            b_.CreateSelect(use_im, a.im, c.im)};
  }
  // init - sum_{k in [lo, hi)} f(k), accumulated in double; real when
  // init is (init.im == nullptr: the imaginary parts of f are ignored).
  absl::StatusOr<Z> MinusSum(Z init, llvm::Value* lo, llvm::Value* hi,
                             const std::function<Z(llvm::Value* k)>& f) {
    llvm::Type* dbl = b_.getDoubleTy();
    const bool cx = init.im != nullptr;
    llvm::Value* re = ctx_.EntryAlloca(dbl, 1, "acc_re");
    llvm::Value* im = cx ? ctx_.EntryAlloca(dbl, 1, "acc_im") : nullptr;
    b_.CreateStore(init.re, re);
    if (cx) b_.CreateStore(init.im, im);
    HLOREF_RETURN_IF_ERROR(ctx_.EmitForLoop(
        "k", lo, hi, ctx_.I64(1), [&](llvm::Value* k) -> absl::Status {
          Z v = f(k);
          b_.CreateStore(b_.CreateFSub(b_.CreateLoad(dbl, re), v.re), re);
          if (cx) {
            b_.CreateStore(b_.CreateFSub(b_.CreateLoad(dbl, im), v.im), im);
          }
          return absl::OkStatus();
        }));
    return Z{b_.CreateLoad(dbl, re), cx ? b_.CreateLoad(dbl, im) : nullptr};
  }

 private:
  EmitContext& ctx_;
  codegen::IRBuilder& b_;
  PrimitiveType t_;
  bool complex_;
};

absl::StatusOr<DeviceKernel> PlanCholesky(const HloInstruction& inst) {
  const Shape shape = inst.shape();
  if (!shape.IsArray() || shape.rank() < 2 ||
      inst.operand(0)->shape().dimensions() != shape.dimensions()) {
    return absl::InvalidArgumentError("cholesky shapes do not fit");
  }
  HLOREF_RETURN_IF_ERROR(CheckLinalgType(shape.element_type(), "cholesky"));
  const int64_t m = shape.dimensions(shape.rank() - 1);
  DeviceKernel k;
  k.name = "cholesky";
  k.work_items = m == 0 ? 0 : shape.num_elements() / (m * m);
  const int64_t items = k.work_items;
  const bool lower = inst.attrs().lower;
  const PrimitiveType t = shape.element_type();
  k.body = [m, items, lower, t, shape](
               EmitContext& ctx, absl::Span<const IrValue> ops,
               const IrValue& output,
               const DeviceLoops& loops) -> absl::Status {
    codegen::IRBuilder& b = ctx.b();
    ZOps z(ctx, t);
    const IrArray& a = ops[0].array;
    const IrArray& out = output.array;
    llvm::Value* ok_slot = ctx.EntryAlloca(b.getInt1Ty(), 1, "positive");
    return loops.for_each(
        ctx.I64(items), [&](llvm::Value* item) -> absl::Status {
          const IrIndex base = BatchIndex(ctx, shape, item);
          // The Hermitian matrix's lower triangle, read from the triangle
          // `lower` names (conjugated from the upper one); L in that
          // triangle of the result (U = L^H in the upper one).
          auto a_low = [&](llvm::Value* i, llvm::Value* j) {
            return lower ? z.Read(a, At(base, i, j))
                         : z.Conj(z.Read(a, At(base, j, i)));
          };
          auto l = [&](llvm::Value* i, llvm::Value* j) {
            return lower ? z.Read(out, At(base, i, j))
                         : z.Conj(z.Read(out, At(base, j, i)));
          };
          auto set_l = [&](llvm::Value* i, llvm::Value* j, Z v) {
            if (lower) {
              z.Write(out, At(base, i, j), v);
            } else {
              z.Write(out, At(base, j, i), z.Conj(v));
            }
          };
          llvm::Value* zero = z.K(0);
          // Zeros in the other triangle.
          HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
              "zi", ctx.I64(0), ctx.I64(m), ctx.I64(1),
              [&](llvm::Value* i) -> absl::Status {
                return ctx.EmitForLoop("zj", b.CreateAdd(i, ctx.I64(1)),
                                       ctx.I64(m), ctx.I64(1),
                                       [&](llvm::Value* j) -> absl::Status {
                                         set_l(i, j, z.Const(0));
                                         return absl::OkStatus();
                                       });
              }));
          b.CreateStore(b.getTrue(), ok_slot);
          HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
              "j", ctx.I64(0), ctx.I64(m), ctx.I64(1),
              [&](llvm::Value* j) -> absl::Status {
                // The pivot: the real part of the diagonal minus |L_jk|^2.
                Z ajj = a_low(j, j);
                HLOREF_ASSIGN_OR_RETURN(
                    Z d, z.MinusSum(Z{ajj.re, nullptr}, ctx.I64(0), j,
                                    [&](llvm::Value* kk) {
                                      Z v = l(j, kk);
                                      llvm::Value* n = b.CreateFMul(v.re, v.re);
                                      if (v.im != nullptr) {
                                        n = b.CreateFAdd(
                                            n, b.CreateFMul(v.im, v.im));
                                      }
                                      return Z{n, nullptr};
                                    }));
                // Not positive definite: a pivot <= 0 or NaN.
                b.CreateStore(b.CreateAnd(b.CreateLoad(b.getInt1Ty(), ok_slot),
                                          b.CreateFCmpOGT(d.re, zero)),
                              ok_slot);
                Z root = z.Const(0);
                root.re = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, d.re);
                set_l(j, j, root);
                llvm::Value* pivot = l(j, j).re;
                return ctx.EmitForLoop(
                    "i", b.CreateAdd(j, ctx.I64(1)), ctx.I64(m), ctx.I64(1),
                    [&](llvm::Value* i) -> absl::Status {
                      HLOREF_ASSIGN_OR_RETURN(
                          Z s, z.MinusSum(a_low(i, j), ctx.I64(0), j,
                                          [&](llvm::Value* kk) {
                                            return z.Mul(l(i, kk),
                                                         z.Conj(l(j, kk)));
                                          }));
                      set_l(i, j, z.Scale(s, pivot));
                      return absl::OkStatus();
                    });
              }));
          // All NaN (real parts; imaginary parts 0) when the matrix is not
          // positive definite.
          return ctx.EmitIf(
              b.CreateNot(b.CreateLoad(b.getInt1Ty(), ok_slot)),
              [&]() -> absl::Status {
                return ctx.EmitForLoop(
                    "ni", ctx.I64(0), ctx.I64(m), ctx.I64(1),
                    [&](llvm::Value* i) -> absl::Status {
                      return ctx.EmitForLoop(
                          "nj", ctx.I64(0), ctx.I64(m), ctx.I64(1),
                          [&](llvm::Value* j) -> absl::Status {
                            Z nan = z.Const(0);
                            nan.re = z.K(std::nan(""));
                            z.Write(out, At(base, i, j), nan);
                            return absl::OkStatus();
                          });
                    });
              },
              "not_positive_definite");
        });
  };
  return k;
}

absl::StatusOr<DeviceKernel> PlanTriangularSolve(const HloInstruction& inst) {
  const Shape a_shape = inst.operand(0)->shape();
  const Shape b_shape = inst.operand(1)->shape();
  if (!inst.shape().IsArray() || a_shape.rank() < 2 ||
      b_shape.rank() != a_shape.rank() ||
      inst.shape().dimensions() != b_shape.dimensions()) {
    return absl::InvalidArgumentError("triangular-solve shapes do not fit");
  }
  const PrimitiveType t = inst.shape().element_type();
  HLOREF_RETURN_IF_ERROR(CheckLinalgType(t, "triangular-solve"));
  const int64_t rank = b_shape.rank();
  const int64_t m = a_shape.dimensions(rank - 1);
  const int64_t rows = b_shape.dimensions(rank - 2);
  const int64_t cols = b_shape.dimensions(rank - 1);
  const TriangularSolveAttrs attrs{
      inst.attrs().left_side, inst.attrs().lower, inst.attrs().unit_diagonal,
      inst.attrs().transpose_a == TransposeA::kTranspose ||
          inst.attrs().transpose_a == TransposeA::kAdjoint};
  const bool adjoint = inst.attrs().transpose_a == TransposeA::kAdjoint;
  DeviceKernel k;
  k.name = "triangular_solve";
  const int64_t lanes = attrs.left_side ? cols : rows;  // per batch item
  k.work_items =
      rows * cols == 0 ? 0 : b_shape.num_elements() / (rows * cols) * lanes;
  const int64_t items = k.work_items;
  k.body = [=](EmitContext& ctx, absl::Span<const IrValue> ops,
               const IrValue& output,
               const DeviceLoops& loops) -> absl::Status {
    codegen::IRBuilder& b = ctx.b();
    ZOps z(ctx, t);
    const IrArray& a = ops[0].array;
    const IrArray& bb = ops[1].array;
    const IrArray& out = output.array;
    // op(a) is lower triangular when exactly one of `lower` and the
    // transposition holds; a left-side solve runs forward over a lower
    // op(a), a right-side one over an upper op(a).
    const bool t_lower = attrs.lower != attrs.transpose;
    const bool forward = attrs.left_side ? t_lower : !t_lower;
    return loops.for_each(
        ctx.I64(items), [&](llvm::Value* item) -> absl::Status {
          llvm::Value* lane = b.CreateURem(item, ctx.I64(lanes));
          const IrIndex base =
              BatchIndex(ctx, b_shape, b.CreateUDiv(item, ctx.I64(lanes)));
          // op(a)[i][j].
          auto op_a = [&](llvm::Value* i, llvm::Value* j) {
            if (!attrs.transpose) return z.Read(a, At(base, i, j));
            Z v = z.Read(a, At(base, j, i));
            return adjoint ? z.Conj(v) : v;
          };
          // The coefficient of unknown k in equation p, and element p of
          // this lane (a column of b on the left, a row on the right).
          auto coef = [&](llvm::Value* p, llvm::Value* kk) {
            return attrs.left_side ? op_a(p, kk) : op_a(kk, p);
          };
          auto elem = [&](llvm::Value* p) {
            return attrs.left_side ? At(base, p, lane) : At(base, lane, p);
          };
          return ctx.EmitForLoop(
              "p", ctx.I64(0), ctx.I64(m), ctx.I64(1),
              [&](llvm::Value* pp) -> absl::Status {
                llvm::Value* p = forward ? pp : b.CreateSub(ctx.I64(m - 1), pp);
                llvm::Value* lo =
                    forward ? ctx.I64(0) : b.CreateAdd(p, ctx.I64(1));
                llvm::Value* hi = forward ? p : ctx.I64(m);
                HLOREF_ASSIGN_OR_RETURN(
                    Z s, z.MinusSum(
                             z.Read(bb, elem(p)), lo, hi, [&](llvm::Value* kk) {
                               return z.Mul(coef(p, kk), z.Read(out, elem(kk)));
                             }));
                if (!attrs.unit_diagonal) s = z.Div(s, coef(p, p));
                z.Write(out, elem(p), s);
                return absl::OkStatus();
              });
        });
  };
  return k;
}

}  // namespace

// -------------------------------------------------------------------------
// fft (FFT, IFFT, RFFT, IRFFT over the 1 to 3 minor dimensions): a direct
// DFT, one thread per output element. Every type reduces to
//   y[o] = scale * sum_j c_j x[j] exp(s 2 pi i sum_a j_a o_a / L_a)
// over the input box (s = -1 forward, +1 inverse; scale 1 / prod L for the
// inverses, as the CPU runtime; IRFFT takes the real part, and its
// Hermitian extension of the half spectrum folds into the weights c_k = 2
// for 1 <= k <= n - n/2 - 1 of the innermost axis, 1 otherwise). The
// phase sum_a (j_a o_a mod L_a) / L_a is formed from exact integer
// products and reduced to [-1/2, 1/2) before sin / cos; the terms are
// summed in double with Neumaier's compensation, so the error is about
// u_double * ||x||_1 <= u_double * ||y||_2: within FFT_BOUND for c64 and
// c128. O(N) work per output element: for the small transforms of the
// suites, not a fast FFT.

namespace {

absl::StatusOr<DeviceKernel> PlanFft(const HloInstruction& inst) {
  const Shape in = inst.operand(0)->shape();
  const Shape out = inst.shape();
  const FftType type = inst.attrs().fft_type;
  const std::vector<int64_t> lengths = inst.attrs().fft_length;
  const int64_t nlen = static_cast<int64_t>(lengths.size());
  if (!out.IsArray() || nlen < 1 || nlen > 3 || in.rank() < nlen ||
      out.rank() != in.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("fft shapes ", in.ToString(), " -> ", out.ToString()));
  }
  const bool real_in = type == FftType::kRfft;
  const bool real_out = type == FftType::kIrfft;
  const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
  if (IsComplex(in.element_type()) == real_in ||
      IsComplex(out.element_type()) == real_out) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fft element types ", in.ToString(), " -> ", out.ToString()));
  }
  const int64_t rank = in.rank();
  const int64_t first = rank - nlen;
  std::vector<int64_t> in_box(in.dimensions().begin() + first,
                              in.dimensions().end());
  int64_t in_count = 1, total = 1;
  for (int64_t d : in_box) in_count *= d;
  for (int64_t l : lengths) total *= l;
  const int64_t n_last = lengths.back();
  const int64_t half = n_last / 2 + 1;
  DeviceKernel k;
  k.name = "fft";
  k.work_items = out.num_elements();
  const int64_t items = k.work_items;
  k.body = [=](EmitContext& ctx, absl::Span<const IrValue> ops,
               const IrValue& output,
               const DeviceLoops& loops) -> absl::Status {
    codegen::IRBuilder& b = ctx.b();
    llvm::Type* dbl = b.getDoubleTy();
    auto K = [&](double v) { return codegen::FpConst(dbl, v); };
    const IrArray& x = ops[0].array;
    const IrArray& y = output.array;
    const std::vector<int64_t> out_dims(out.dimensions().begin(),
                                        out.dimensions().end());
    llvm::Value* slots[4];
    for (llvm::Value*& s : slots) s = ctx.EntryAlloca(dbl, 1, "dft_sum");
    return loops.for_each(
        ctx.I64(items), [&](llvm::Value* item) -> absl::Status {
          const IrIndex o = RowMajorIndex(ctx, item, out_dims);
          for (llvm::Value* s : slots) b.CreateStore(K(0), s);
          // Neumaier: sum in slots[2 part], compensation in [2 part + 1].
          auto add = [&](int part, llvm::Value* v) {
            llvm::Value* s = b.CreateLoad(dbl, slots[2 * part]);
            llvm::Value* c = b.CreateLoad(dbl, slots[2 * part + 1]);
            llvm::Value* t = b.CreateFAdd(s, v);
            llvm::Value* big = b.CreateFCmpOGE(codegen::EmitFabs(ctx, s),
                                               codegen::EmitFabs(ctx, v));
            llvm::Value* lost =
                b.CreateSelect(big, b.CreateFAdd(b.CreateFSub(s, t), v),
                               b.CreateFAdd(b.CreateFSub(v, t), s));
            b.CreateStore(t, slots[2 * part]);
            b.CreateStore(b.CreateFAdd(c, lost), slots[2 * part + 1]);
          };
          HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
              "j", ctx.I64(0), ctx.I64(in_count), ctx.I64(1),
              [&](llvm::Value* jl) -> absl::Status {
                const IrIndex j = RowMajorIndex(ctx, jl, in_box);
                IrIndex xi = o;
                llvm::Value* phase = K(0);
                for (int64_t a = 0; a < nlen; ++a) {
                  xi[first + a] = j[a];
                  llvm::Value* prod = b.CreateURem(
                      b.CreateMul(j[a], o[first + a]), ctx.I64(lengths[a]));
                  phase = b.CreateFAdd(
                      phase, b.CreateFDiv(b.CreateUIToFP(prod, dbl),
                                          K(static_cast<double>(lengths[a]))));
                }
                // To [-1/2, 1/2), then the angle s 2 pi phase.
                phase = b.CreateFSub(
                    phase, b.CreateUnaryIntrinsic(llvm::Intrinsic::floor,
                                                  b.CreateFAdd(phase, K(0.5))));
                llvm::Value* angle =
                    b.CreateFMul(phase, K((inverse ? 2 : -2) * M_PI));
                llvm::Value* c = codegen::EmitMathCall(ctx, "cos", {angle});
                llvm::Value* s = codegen::EmitMathCall(ctx, "sin", {angle});
                llvm::Value* v = x.EmitRead(ctx, xi);
                llvm::Value* re;
                llvm::Value* im;
                if (real_in) {
                  re = codegen::EmitToDouble(ctx, v);
                  im = K(0);
                } else {
                  re = codegen::EmitToDouble(ctx, b.CreateExtractValue(v, 0));
                  im = codegen::EmitToDouble(ctx, b.CreateExtractValue(v, 1));
                }
                llvm::Value* tr =
                    b.CreateFSub(b.CreateFMul(re, c), b.CreateFMul(im, s));
                llvm::Value* ti =
                    b.CreateFAdd(b.CreateFMul(re, s), b.CreateFMul(im, c));
                if (real_out) {
                  // The Hermitian extension's weight of innermost k.
                  llvm::Value* k_last = j[nlen - 1];
                  llvm::Value* twice = b.CreateAnd(
                      b.CreateICmpUGE(k_last, ctx.I64(1)),
                      b.CreateICmpULE(k_last, ctx.I64(n_last - half)));
                  tr = b.CreateFMul(tr, b.CreateSelect(twice, K(2), K(1)));
                }
                add(0, tr);
                if (!real_out) add(1, ti);
                return absl::OkStatus();
              }));
          auto result = [&](int part) {
            llvm::Value* v =
                b.CreateFAdd(b.CreateLoad(dbl, slots[2 * part]),
                             b.CreateLoad(dbl, slots[2 * part + 1]));
            // The CPU runtime divides by the total length.
            return inverse ? b.CreateFDiv(v, K(static_cast<double>(total))) : v;
          };
          const PrimitiveType ot = out.element_type();
          if (real_out) {
            y.EmitWrite(ctx, o, codegen::EmitRoundToFloat(ctx, ot, result(0)));
            return absl::OkStatus();
          }
          const PrimitiveType comp = ComplexComponentType(ot);
          llvm::Type* ct = codegen::ComputeType(ctx.context(), ot);
          llvm::Value* z = llvm::UndefValue::get(ct);
          z = b.CreateInsertValue(
              z, codegen::EmitRoundToFloat(ctx, comp, result(0)), 0);
          z = b.CreateInsertValue(
              z, codegen::EmitRoundToFloat(ctx, comp, result(1)), 1);
          y.EmitWrite(ctx, o, z);
          return absl::OkStatus();
        });
  };
  return k;
}

}  // namespace

absl::StatusOr<std::optional<DeviceKernel>> PlanDeviceKernel(
    const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kFft: {
      absl::StatusOr<DeviceKernel> k = PlanFft(inst);
      if (!k.ok()) return k.status();
      return std::optional<DeviceKernel>(*std::move(k));
    }
    case HloOpcode::kCholesky:
    case HloOpcode::kTriangularSolve: {
      absl::StatusOr<DeviceKernel> k = inst.opcode() == HloOpcode::kCholesky
                                           ? PlanCholesky(inst)
                                           : PlanTriangularSolve(inst);
      if (!k.ok()) return k.status();
      return std::optional<DeviceKernel>(*std::move(k));
    }
    case HloOpcode::kSort:
    case HloOpcode::kTopK: {
      absl::StatusOr<DeviceKernel> k =
          inst.opcode() == HloOpcode::kSort ? PlanSort(inst) : PlanTopK(inst);
      if (!k.ok()) return k.status();
      return std::optional<DeviceKernel>(*std::move(k));
    }
    case HloOpcode::kRngBitGenerator: {
      absl::StatusOr<DeviceKernel> k = PlanRngBitGenerator(inst);
      if (!k.ok()) return k.status();
      return std::optional<DeviceKernel>(*std::move(k));
    }
    default:
      return std::nullopt;
  }
}

}  // namespace hloref::gpu
