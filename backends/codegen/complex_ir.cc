#include "backends/codegen/complex_ir.h"

#include <limits>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/codegen/emit_context.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace hloref::codegen {
namespace {

using Fn = ScalarFn;

llvm::Value* Re(EmitContext& ctx, llvm::Value* z) {
  return ctx.b().CreateExtractValue(z, {0});
}
llvm::Value* Im(EmitContext& ctx, llvm::Value* z) {
  return ctx.b().CreateExtractValue(z, {1});
}

// The component type of a complex compute value.
llvm::Type* Component(EmitContext& ctx, PrimitiveType t) {
  return t == PrimitiveType::kC64 ? ctx.b().getFloatTy()
                                  : ctx.b().getDoubleTy();
}

// A complex value of type `t` from two double (or component-typed) parts,
// each rounded once to the component type.
llvm::Value* Make(EmitContext& ctx, PrimitiveType t, llvm::Value* re,
                  llvm::Value* im) {
  IRBuilder& b = ctx.b();
  llvm::Type* c = Component(ctx, t);
  auto fit = [&](llvm::Value* v) {
    return v->getType() == c ? v : b.CreateFPTrunc(v, c);
  };
  llvm::Type* st = llvm::StructType::get(ctx.context(), {c, c});
  llvm::Value* z = llvm::UndefValue::get(st);
  z = b.CreateInsertValue(z, fit(re), {0});
  return b.CreateInsertValue(z, fit(im), {1});
}

std::optional<ComplexFn> TargetFnOf(HloOpcode op) {
  switch (op) {
    case HloOpcode::kSqrt:
      return ComplexFn::kSqrt;
    case HloOpcode::kRsqrt:
      return ComplexFn::kRsqrt;
    case HloOpcode::kExp:
      return ComplexFn::kExp;
    case HloOpcode::kExpm1:
      return ComplexFn::kExpm1;
    case HloOpcode::kLog:
      return ComplexFn::kLog;
    case HloOpcode::kLog1p:
      return ComplexFn::kLog1p;
    case HloOpcode::kLogistic:
      return ComplexFn::kLogistic;
    case HloOpcode::kSin:
      return ComplexFn::kSin;
    case HloOpcode::kCos:
      return ComplexFn::kCos;
    case HloOpcode::kTan:
      return ComplexFn::kTan;
    case HloOpcode::kTanh:
      return ComplexFn::kTanh;
    case HloOpcode::kSinh:
      return ComplexFn::kSinh;
    case HloOpcode::kCosh:
      return ComplexFn::kCosh;
    case HloOpcode::kAsin:
      return ComplexFn::kAsin;
    case HloOpcode::kAcos:
      return ComplexFn::kAcos;
    case HloOpcode::kAsinh:
      return ComplexFn::kAsinh;
    case HloOpcode::kAcosh:
      return ComplexFn::kAcosh;
    case HloOpcode::kAtanh:
      return ComplexFn::kAtanh;
    default:
      return std::nullopt;
  }
}

// The target's complex function `fn` of the double parts (complex_math),
// as a complex value of type `t`.
llvm::Value* CallTarget(EmitContext& ctx, PrimitiveType t, ComplexFn fn,
                        std::vector<llvm::Value*> parts) {
  auto [re, im] = ctx.complex_math(ctx, static_cast<int32_t>(fn), parts);
  return Make(ctx, t, re, im);
}

absl::Status NoHook(HloOpcode op) {
  return absl::UnimplementedError(
      absl::StrCat("complex ", HloOpcodeString(op),
                   " needs the target's complex_math hook"));
}

// |z| as a double: hypot of the (exactly widened) parts.
llvm::Value* AbsDouble(EmitContext& ctx, llvm::Value* z) {
  return EmitMathCall(
      ctx, "hypot",
      {EmitToDouble(ctx, Re(ctx, z)), EmitToDouble(ctx, Im(ctx, z))});
}

// XLA's complex division (Smith's algorithm, then C99-style recovery when
// both parts came out NaN), on double parts.
std::pair<llvm::Value*, llvm::Value*> Divide(EmitContext& ctx, llvm::Value* ar,
                                             llvm::Value* ai, llvm::Value* br,
                                             llvm::Value* bi) {
  IRBuilder& b = ctx.b();
  llvm::Type* d = ar->getType();
  const double inf = std::numeric_limits<double>::infinity();
  llvm::Value* use_imag = b.CreateFCmpOLT(EmitFabs(ctx, br), EmitFabs(ctx, bi));
  // |br| < |bi|.
  llvm::Value* r1 = b.CreateFDiv(br, bi);
  llvm::Value* d1 = b.CreateFAdd(b.CreateFMul(br, r1), bi);
  llvm::Value* re1 = b.CreateFDiv(b.CreateFAdd(b.CreateFMul(ar, r1), ai), d1);
  llvm::Value* im1 = b.CreateFDiv(b.CreateFSub(b.CreateFMul(ai, r1), ar), d1);
  // Otherwise.
  llvm::Value* r2 = b.CreateFDiv(bi, br);
  llvm::Value* d2 = b.CreateFAdd(b.CreateFMul(bi, r2), br);
  llvm::Value* re2 = b.CreateFDiv(b.CreateFAdd(b.CreateFMul(ai, r2), ar), d2);
  llvm::Value* im2 = b.CreateFDiv(b.CreateFSub(ai, b.CreateFMul(ar, r2)), d2);
  llvm::Value* re = b.CreateSelect(use_imag, re1, re2);
  llvm::Value* im = b.CreateSelect(use_imag, im1, im2);

  llvm::Value* zero = FpConst(d, 0.0);
  llvm::Value* one = FpConst(d, 1.0);
  llvm::Value* inf_c = FpConst(d, inf);
  auto is_inf_unit = [&](llvm::Value* x) {
    // copysign(isinf(x) ? 1 : 0, x)
    return EmitCopySign(ctx, b.CreateSelect(EmitIsInf(ctx, x), one, zero), x);
  };
  // Case 1: zero denominator, numerator not all NaN.
  llvm::Value* c1 = b.CreateAnd(
      b.CreateAnd(b.CreateFCmpOEQ(br, zero), b.CreateFCmpOEQ(bi, zero)),
      b.CreateOr(b.CreateNot(EmitIsNan(ctx, ar)),
                 b.CreateNot(EmitIsNan(ctx, ai))));
  llvm::Value* sinf = EmitCopySign(ctx, inf_c, br);
  llvm::Value* c1re = b.CreateFMul(sinf, ar);
  llvm::Value* c1im = b.CreateFMul(sinf, ai);
  // Case 2: infinite numerator, finite denominator.
  llvm::Value* c2 =
      b.CreateAnd(b.CreateOr(EmitIsInf(ctx, ar), EmitIsInf(ctx, ai)),
                  b.CreateAnd(EmitIsFinite(ctx, br), EmitIsFinite(ctx, bi)));
  llvm::Value* a2 = is_inf_unit(ar);
  llvm::Value* b2 = is_inf_unit(ai);
  llvm::Value* c2re = b.CreateFMul(
      inf_c, b.CreateFAdd(b.CreateFMul(a2, br), b.CreateFMul(b2, bi)));
  llvm::Value* c2im = b.CreateFMul(
      inf_c, b.CreateFSub(b.CreateFMul(b2, br), b.CreateFMul(a2, bi)));
  // Case 3: finite numerator, infinite denominator.
  llvm::Value* c3 =
      b.CreateAnd(b.CreateOr(EmitIsInf(ctx, br), EmitIsInf(ctx, bi)),
                  b.CreateAnd(EmitIsFinite(ctx, ar), EmitIsFinite(ctx, ai)));
  llvm::Value* c2u = is_inf_unit(br);
  llvm::Value* d2u = is_inf_unit(bi);
  llvm::Value* c3re = b.CreateFMul(
      zero, b.CreateFAdd(b.CreateFMul(ar, c2u), b.CreateFMul(ai, d2u)));
  llvm::Value* c3im = b.CreateFMul(
      zero, b.CreateFSub(b.CreateFMul(ai, c2u), b.CreateFMul(ar, d2u)));

  llvm::Value* both_nan = b.CreateAnd(EmitIsNan(ctx, re), EmitIsNan(ctx, im));
  llvm::Value* fre = b.CreateSelect(
      c1, c1re, b.CreateSelect(c2, c2re, b.CreateSelect(c3, c3re, re)));
  llvm::Value* fim = b.CreateSelect(
      c1, c1im, b.CreateSelect(c2, c2im, b.CreateSelect(c3, c3im, im)));
  return {b.CreateSelect(both_nan, fre, re), b.CreateSelect(both_nan, fim, im)};
}

absl::Status TypeError(HloOpcode op, PrimitiveType t) {
  return absl::UnimplementedError(absl::StrCat(HloOpcodeString(op),
                                               " does not accept element type ",
                                               PrimitiveTypeName(t)));
}

}  // namespace

llvm::Value* EmitComplexEqual(EmitContext& ctx, llvm::Value* a,
                              llvm::Value* b) {
  IRBuilder& ir = ctx.b();
  return ir.CreateAnd(ir.CreateFCmpOEQ(Re(ctx, a), Re(ctx, b)),
                      ir.CreateFCmpOEQ(Im(ctx, a), Im(ctx, b)));
}

absl::StatusOr<ScalarFn> ComplexUnaryFn(const EmitContext& ctx, HloOpcode op,
                                        PrimitiveType t) {
  const PrimitiveType comp = ComplexComponentType(t);
  if (std::optional<ComplexFn> fn = TargetFnOf(op)) {
    if (!ctx.complex_math) return NoHook(op);
    return Fn(
        [t, fn = *fn](EmitContext& ctx, absl::Span<llvm::Value* const> a) {
          llvm::Value* z = a[0];
          return CallTarget(
              ctx, t, fn,
              {EmitToDouble(ctx, Re(ctx, z)), EmitToDouble(ctx, Im(ctx, z))});
        });
  }
  switch (op) {
    case HloOpcode::kReal:
      return Fn([](EmitContext& ctx, absl::Span<llvm::Value* const> a) {
        return Re(ctx, a[0]);
      });
    case HloOpcode::kImag:
      return Fn([](EmitContext& ctx, absl::Span<llvm::Value* const> a) {
        return Im(ctx, a[0]);
      });
    case HloOpcode::kNegate:
      // fneg on each part: only the sign bits change.
      return Fn([t](EmitContext& ctx, absl::Span<llvm::Value* const> a) {
        return Make(ctx, t, ctx.b().CreateFNeg(Re(ctx, a[0])),
                    ctx.b().CreateFNeg(Im(ctx, a[0])));
      });
    case HloOpcode::kAbs:
      // hypot in double: correctly rounded parts for c64, libm's hypot
      // (< 1 ulp) for c128.
      return Fn([comp](EmitContext& ctx, absl::Span<llvm::Value* const> a) {
        return EmitRoundToFloat(ctx, comp, AbsDouble(ctx, a[0]));
      });
    case HloOpcode::kSign:
      // z / |z|, and z itself for z == 0.
      return Fn([t](EmitContext& ctx, absl::Span<llvm::Value* const> a) {
        IRBuilder& b = ctx.b();
        llvm::Value* z = a[0];
        llvm::Value* re = EmitToDouble(ctx, Re(ctx, z));
        llvm::Value* im = EmitToDouble(ctx, Im(ctx, z));
        llvm::Value* zero = FpConst(b.getDoubleTy(), 0.0);
        // Scale by a power of two (exact) so that |z| neither underflows
        // into the subnormals nor overflows (c128's extremes).
        llvm::Value* big = b.CreateBinaryIntrinsic(
            llvm::Intrinsic::maxnum, EmitFabs(ctx, re), EmitFabs(ctx, im));
        llvm::Value* scale = b.CreateSelect(
            b.CreateFCmpOLT(big, FpConst(b.getDoubleTy(), 0x1p-500)),
            FpConst(b.getDoubleTy(), 0x1p600),
            b.CreateSelect(
                b.CreateFCmpOGT(big, FpConst(b.getDoubleTy(), 0x1p500)),
                FpConst(b.getDoubleTy(), 0x1p-600),
                FpConst(b.getDoubleTy(), 1.0)));
        re = b.CreateFMul(re, scale);
        im = b.CreateFMul(im, scale);
        llvm::Value* m = EmitMathCall(ctx, "hypot", {re, im});
        llvm::Value* is_zero =
            b.CreateAnd(b.CreateFCmpOEQ(re, zero), b.CreateFCmpOEQ(im, zero));
        llvm::Value* s = Make(ctx, t, b.CreateFDiv(re, m), b.CreateFDiv(im, m));
        return b.CreateSelect(is_zero, z, s);
      });
    default:
      return TypeError(op, t);
  }
}

absl::StatusOr<ScalarFn> ComplexBinaryFn(const EmitContext& ctx, HloOpcode op,
                                         PrimitiveType t) {
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
      return Fn([t, op](EmitContext& ctx, absl::Span<llvm::Value* const> a) {
        IRBuilder& b = ctx.b();
        auto f = [&](llvm::Value* x, llvm::Value* y) {
          return op == HloOpcode::kAdd ? b.CreateFAdd(x, y)
                                       : b.CreateFSub(x, y);
        };
        return Make(ctx, t, f(Re(ctx, a[0]), Re(ctx, a[1])),
                    f(Im(ctx, a[0]), Im(ctx, a[1])));
      });
    case HloOpcode::kMultiply:
      // Textbook (ac - bd) + i(ad + bc); c64 in double (exact products).
      return Fn([t](EmitContext& ctx, absl::Span<llvm::Value* const> a) {
        IRBuilder& b = ctx.b();
        llvm::Value* ar = EmitToDouble(ctx, Re(ctx, a[0]));
        llvm::Value* ai = EmitToDouble(ctx, Im(ctx, a[0]));
        llvm::Value* br = EmitToDouble(ctx, Re(ctx, a[1]));
        llvm::Value* bi = EmitToDouble(ctx, Im(ctx, a[1]));
        return Make(ctx, t,
                    b.CreateFSub(b.CreateFMul(ar, br), b.CreateFMul(ai, bi)),
                    b.CreateFAdd(b.CreateFMul(ar, bi), b.CreateFMul(ai, br)));
      });
    case HloOpcode::kDivide:
      return Fn([t](EmitContext& ctx, absl::Span<llvm::Value* const> a) {
        auto [re, im] = Divide(ctx, EmitToDouble(ctx, Re(ctx, a[0])),
                               EmitToDouble(ctx, Im(ctx, a[0])),
                               EmitToDouble(ctx, Re(ctx, a[1])),
                               EmitToDouble(ctx, Im(ctx, a[1])));
        return Make(ctx, t, re, im);
      });
    case HloOpcode::kPower:
      if (!ctx.complex_math) return NoHook(op);
      return Fn([t](EmitContext& ctx, absl::Span<llvm::Value* const> a) {
        return CallTarget(
            ctx, t, ComplexFn::kPow,
            {EmitToDouble(ctx, Re(ctx, a[0])), EmitToDouble(ctx, Im(ctx, a[0])),
             EmitToDouble(ctx, Re(ctx, a[1])),
             EmitToDouble(ctx, Im(ctx, a[1]))});
      });
    default:
      return TypeError(op, t);
  }
}

}  // namespace hloref::codegen
