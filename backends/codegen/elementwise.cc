// The element-wise families as elemental emitters: every op of the unary
// and binary element-wise families, and compare, select, clamp (seed 001;
// docs/numerics.md 3.1, 3.3, 3.4, 3.6; spec/impl_defined.md). The rules
// are the oracle's, restated in IR:
//   * integers wrap at their width; x / 0 = -1, INT_MIN / -1 = INT_MIN,
//     x % 0 = x, INT_MIN % -1 = 0 (selects keep the IR free of UB); shift
//     amounts are unsigned and >= width gives 0 or the sign fill; integer
//     power: negative exponent -> (b == 1), else square-and-multiply over
//     the exponent's low 6 bits; mulhi: the high half of the 2N-bit
//     product; pred add is or, multiply is and.
//   * floats: f32 and f64 arithmetic is IEEE; narrow floats compute in
//     double (exact products and sums) and round once to the type.
//     Transcendentals: math_ir.h's kernels, vectorisable polynomials
//     (exp, expm1, log, log1p, logistic, tanh, sin, cos, tan, erf, sinh,
//     cosh, asinh, acosh, atanh, pow: double polynomials for f32 and
//     narrower types, double-double ones for f64; acos, asin, atan2 and
//     cbrt: one double-double kernel for every type), rounded once. Only
//     f64 sin, cos and tan of |x| >= 2^27 call the C library (masked, per
//     lane).
//     maximum/minimum propagate NaN and order -0 < +0; negate/abs only touch
//     the sign (payloads kept).
//   * compare: IEEE on the exact values; TOTALORDER on the encodings'
//     sign-magnitude keys; integer comparisons by the comparison type.
//   * complex: complex_ir.h.
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/codegen/complex_ir.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/llvm_types.h"
#include "backends/codegen/math_ir.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "spec/types/minifloat.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {
namespace {

using Args = absl::Span<llvm::Value* const>;
using Fn = ScalarFn;

absl::Status TypeError(HloOpcode op, PrimitiveType t) {
  return absl::UnimplementedError(absl::StrCat(HloOpcodeString(op),
                                               " does not accept element type ",
                                               PrimitiveTypeName(t)));
}

llvm::Value* IntConst(llvm::Type* t, uint64_t v) {
  return llvm::ConstantInt::get(t, v);
}

// A generator applying `fn` to the operands' elements at the index (rank-0
// operands of a ranked result, as clamp's bounds and select's predicate
// may be, are read at the empty index).
ElementGenerator Elementwise(EmitContext& ctx, const HloInstruction& inst,
                             absl::Span<const ElementGenerator> operands,
                             Fn fn) {
  std::vector<ElementGenerator> gens(operands.begin(), operands.end());
  std::vector<bool> scalar;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    scalar.push_back(inst.operand(i)->shape().rank() == 0 &&
                     inst.shape().rank() > 0);
  }
  return [&ctx, gens, scalar,
          fn](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> values;
    for (size_t i = 0; i < gens.size(); ++i) {
      HLOREF_ASSIGN_OR_RETURN(llvm::Value * v,
                              gens[i](scalar[i] ? IrIndex{} : index));
      values.push_back(v);
    }
    return fn(ctx, values);
  };
}

// ---------------------------------------------------------------- unary

std::optional<const char*> LibmNameOf(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAcos:
      return "acos";
    case HloOpcode::kAcosh:
      return "acosh";
    case HloOpcode::kAsin:
      return "asin";
    case HloOpcode::kAsinh:
      return "asinh";
    case HloOpcode::kAtanh:
      return "atanh";
    case HloOpcode::kCbrt:
      return "cbrt";
    case HloOpcode::kCos:
      return "cos";
    case HloOpcode::kCosh:
      return "cosh";
    case HloOpcode::kErf:
      return "erf";
    case HloOpcode::kExp:
      return "exp";
    case HloOpcode::kExpm1:
      return "expm1";
    case HloOpcode::kLog:
      return "log";
    case HloOpcode::kLog1p:
      return "log1p";
    case HloOpcode::kSin:
      return "sin";
    case HloOpcode::kSinh:
      return "sinh";
    case HloOpcode::kTan:
      return "tan";
    case HloOpcode::kTanh:
      return "tanh";
    default:
      return std::nullopt;
  }
}

// The vectorisable kernel of `op` for f32 and narrower types (math_ir.h).
using KernelFn = llvm::Value* (*)(EmitContext&, llvm::Value*);
std::optional<KernelFn> KernelOf(HloOpcode op) {
  switch (op) {
    case HloOpcode::kExp:
      return &EmitExpKernel;
    case HloOpcode::kExpm1:
      return &EmitExpm1Kernel;
    case HloOpcode::kLog:
      return &EmitLogKernel;
    case HloOpcode::kLog1p:
      return &EmitLog1pKernel;
    case HloOpcode::kLogistic:
      return &EmitLogisticKernel;
    case HloOpcode::kTanh:
      return &EmitTanhKernel;
    case HloOpcode::kSin:
      return &EmitSinKernel;
    case HloOpcode::kCos:
      return &EmitCosKernel;
    case HloOpcode::kTan:
      return &EmitTanKernel;
    case HloOpcode::kErf:
      return &EmitErfKernel;
    case HloOpcode::kSinh:
      return &EmitSinhKernel;
    case HloOpcode::kCosh:
      return &EmitCoshKernel;
    case HloOpcode::kAsinh:
      return &EmitAsinhKernel;
    case HloOpcode::kAcosh:
      return &EmitAcoshKernel;
    case HloOpcode::kAtanh:
      return &EmitAtanhKernel;
    default:
      return std::nullopt;
  }
}

// HLOREF_MATH_LIBM=1 (read once) makes the f64 transcendentals, and acos,
// asin, atan2 and cbrt of every type, call the C library in double as
// before the f64 kernels existed: the baseline of kernel benchmarks.
bool UseScalarLibm() {
  static const bool libm = [] {
    const char* v = std::getenv("HLOREF_MATH_LIBM");
    return v != nullptr && v[0] == '1';
  }();
  return libm;
}

// The vectorisable kernel of `op` for f64 (math_ir.h), and the kernels
// shared by every float type (acos, asin, cbrt: double in, double out).
std::optional<KernelFn> KernelF64Of(HloOpcode op) {
  switch (op) {
    case HloOpcode::kExp:
      return &EmitExpKernelF64;
    case HloOpcode::kExpm1:
      return &EmitExpm1KernelF64;
    case HloOpcode::kLog:
      return &EmitLogKernelF64;
    case HloOpcode::kLog1p:
      return &EmitLog1pKernelF64;
    case HloOpcode::kLogistic:
      return &EmitLogisticKernelF64;
    case HloOpcode::kTanh:
      return &EmitTanhKernelF64;
    case HloOpcode::kSin:
      return &EmitSinKernelF64;
    case HloOpcode::kCos:
      return &EmitCosKernelF64;
    case HloOpcode::kTan:
      return &EmitTanKernelF64;
    case HloOpcode::kErf:
      return &EmitErfKernelF64;
    case HloOpcode::kSinh:
      return &EmitSinhKernelF64;
    case HloOpcode::kCosh:
      return &EmitCoshKernelF64;
    case HloOpcode::kAsinh:
      return &EmitAsinhKernelF64;
    case HloOpcode::kAcosh:
      return &EmitAcoshKernelF64;
    case HloOpcode::kAtanh:
      return &EmitAtanhKernelF64;
    default:
      return std::nullopt;
  }
}
std::optional<KernelFn> KernelAnyFloatOf(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAcos:
      return &EmitAcosKernel;
    case HloOpcode::kAsin:
      return &EmitAsinKernel;
    case HloOpcode::kCbrt:
      return &EmitCbrtKernel;
    default:
      return std::nullopt;
  }
}

absl::StatusOr<Fn> UnaryFloatFn(HloOpcode op, PrimitiveType t,
                                PrimitiveType out) {
  const bool narrow = IsMinifloat(t);
  // Rounds a double (or t's compute value) result once to `out`.
  auto round = [out](EmitContext& ctx, llvm::Value* v) {
    return EmitRoundToFloat(ctx, out, v);
  };
  if (t == PrimitiveType::kF32 && out == PrimitiveType::kF32) {
    switch (op) {
      case HloOpcode::kExp:
        return Fn([](EmitContext& ctx, Args a) {
          return EmitExpKernelF32(ctx, a[0]);
        });
      case HloOpcode::kTanh:
        return Fn([](EmitContext& ctx, Args a) {
          return EmitTanhKernelF32(ctx, a[0]);
        });
      case HloOpcode::kLogistic:
        return Fn([](EmitContext& ctx, Args a) {
          return EmitLogisticKernelF32(ctx, a[0]);
        });
      case HloOpcode::kErf:
        return Fn([](EmitContext& ctx, Args a) {
          return EmitErfKernelF32(ctx, a[0]);
        });
      default:
        break;
    }
  }
  if ((t == PrimitiveType::kBF16 || t == PrimitiveType::kF16) && out == t) {
    // exp, tanh and erf of bf16 and f16 (and logistic of bf16) on the f32
    // kernels, rounded once: those are within 1.4 ulp of f32 (logistic
    // 2.1; math_kernels_test), that is within 1.4 * 2^-13 of an f16 ulp
    // and 2^-15 of a bf16 one, so the result is
    // within 0.5 + 2^-12 ulp (asserted over every encoding by the same
    // test): the double kernels' bound, at 16 lanes and with no double
    // rounding code (bf16 exp ran 0.40x and tanh 0.11x XLA:CPU on them).
    KernelFn f32_kernel = nullptr;
    switch (op) {
      case HloOpcode::kExp:
        f32_kernel = &EmitExpKernelF32;
        break;
      case HloOpcode::kTanh:
        f32_kernel = &EmitTanhKernelF32;
        break;
      case HloOpcode::kErf:
        f32_kernel = &EmitErfKernelF32;
        break;
      case HloOpcode::kLogistic:
        // bf16 only: the f32 kernel's 2.1 ulp is 2.1 * 2^-13 of an f16
        // ulp, above the 2^-12 the bound leaves; in bf16 it is 2^-15.
        if (t == PrimitiveType::kBF16) f32_kernel = &EmitLogisticKernelF32;
        break;
      default:
        break;
    }
    if (f32_kernel != nullptr) {
      return Fn([f32_kernel, round](EmitContext& ctx, Args a) {
        llvm::Value* x = a[0];
        if (!x->getType()->getScalarType()->isFloatTy()) {
          x = ctx.b().CreateFPCast(
              x, x->getType()->getWithNewType(ctx.b().getFloatTy()));
        }
        return round(ctx, f32_kernel(ctx, x));
      });
    }
  }
  if (std::optional<KernelFn> kernel = KernelOf(op);
      kernel && t != PrimitiveType::kF64) {
    return Fn([k = *kernel, round](EmitContext& ctx, Args a) {
      return round(ctx, k(ctx, EmitToDouble(ctx, a[0])));
    });
  }
  std::optional<KernelFn> kernel64 =
      t == PrimitiveType::kF64 ? KernelF64Of(op) : std::nullopt;
  if (!kernel64) kernel64 = KernelAnyFloatOf(op);
  if (kernel64 && !UseScalarLibm()) {
    return Fn([k = *kernel64, round](EmitContext& ctx, Args a) {
      return round(ctx, k(ctx, EmitToDouble(ctx, a[0])));
    });
  }
  if (std::optional<const char*> name = LibmNameOf(op)) {
    const std::string fname = *name;
    return Fn([fname, round](EmitContext& ctx, Args a) {
      return round(ctx, EmitMathCall(ctx, fname, {EmitToDouble(ctx, a[0])}));
    });
  }
  switch (op) {
    case HloOpcode::kLogistic:
      // 1 / (1 + exp(-x)) in double.
      return Fn([round](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        llvm::Value* x = EmitToDouble(ctx, a[0]);
        llvm::Type* d = x->getType();
        llvm::Value* e = EmitMathCall(ctx, "exp", {b.CreateFNeg(x)});
        return round(ctx, b.CreateFDiv(FpConst(d, 1.0),
                                       b.CreateFAdd(FpConst(d, 1.0), e)));
      });
    case HloOpcode::kRsqrt:
      return Fn([round](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        llvm::Value* x = EmitToDouble(ctx, a[0]);
        llvm::Value* s = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
        return round(ctx, b.CreateFDiv(FpConst(x->getType(), 1.0), s));
      });
    case HloOpcode::kSqrt:
      // IEEE sqrt: correctly rounded in f32/f64; narrow types from double.
      return Fn([narrow, round](EmitContext& ctx, Args a) {
        llvm::Value* x = narrow ? EmitToDouble(ctx, a[0]) : a[0];
        return round(ctx,
                     ctx.b().CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
      });
    case HloOpcode::kAbs:
      return Fn([narrow, round](EmitContext& ctx, Args a) {
        llvm::Value* r = EmitFabs(ctx, a[0]);
        return narrow ? round(ctx, r) : r;
      });
    case HloOpcode::kNegate:
      // fneg flips the sign bit only; for narrow types the encoder maps -0
      // of fnuz types to +0 and every negative f8e8m0fnu value to NaN.
      return Fn([narrow, round](EmitContext& ctx, Args a) {
        llvm::Value* r = ctx.b().CreateFNeg(a[0]);
        return narrow ? round(ctx, r) : r;
      });
    case HloOpcode::kCeil:
    case HloOpcode::kFloor:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven: {
      const llvm::Intrinsic::ID id =
          op == HloOpcode::kCeil              ? llvm::Intrinsic::ceil
          : op == HloOpcode::kFloor           ? llvm::Intrinsic::floor
          : op == HloOpcode::kRoundNearestAfz ? llvm::Intrinsic::round
                                              : llvm::Intrinsic::roundeven;
      return Fn([id, narrow, round](EmitContext& ctx, Args a) {
        llvm::Value* r = ctx.b().CreateUnaryIntrinsic(id, a[0]);
        return narrow ? round(ctx, r) : r;
      });
    }
    case HloOpcode::kSign:
      // -1, -0, NaN (the input), +0, 1.
      return Fn([narrow, round](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        llvm::Value* x = a[0];
        llvm::Value* one = EmitCopySign(ctx, FpConst(x->getType(), 1.0), x);
        llvm::Value* keep = b.CreateOr(
            EmitIsNan(ctx, x), b.CreateFCmpOEQ(x, FpConst(x->getType(), 0.0)));
        llvm::Value* r = b.CreateSelect(keep, x, one);
        return narrow ? round(ctx, r) : r;
      });
    case HloOpcode::kIsFinite:
      return Fn(
          [](EmitContext& ctx, Args a) { return EmitIsFinite(ctx, a[0]); });
    case HloOpcode::kReal:
      return Fn([](EmitContext& ctx, Args a) { return a[0]; });
    case HloOpcode::kImag:
      return Fn([round](EmitContext& ctx, Args a) {
        return round(ctx, FpConst(ctx.b().getDoubleTy(), 0.0));
      });
    default:
      return TypeError(op, t);
  }
}

absl::StatusOr<Fn> UnaryIntFn(HloOpcode op, PrimitiveType t) {
  const bool is_signed = IsSignedInt(t);
  const int width = IsPred(t) ? 1 : BitWidth(t);
  if (IsPred(t) && op != HloOpcode::kNot) return TypeError(op, t);
  switch (op) {
    case HloOpcode::kAbs:
      // abs(INT_MIN) wraps to INT_MIN.
      return Fn([is_signed](EmitContext& ctx, Args a) -> llvm::Value* {
        IRBuilder& b = ctx.b();
        llvm::Value* x = a[0];
        if (!is_signed) return x;
        return b.CreateSelect(b.CreateICmpSLT(x, IntConst(x->getType(), 0)),
                              b.CreateNeg(x), x);
      });
    case HloOpcode::kNegate:
      return Fn(
          [](EmitContext& ctx, Args a) { return ctx.b().CreateNeg(a[0]); });
    case HloOpcode::kSign:
      return Fn([is_signed](EmitContext& ctx, Args a) -> llvm::Value* {
        IRBuilder& b = ctx.b();
        llvm::Value* x = a[0];
        llvm::Type* it = x->getType();
        llvm::Value* zero = IntConst(it, 0);
        if (!is_signed) return b.CreateZExt(b.CreateICmpNE(x, zero), it);
        return b.CreateSub(b.CreateZExt(b.CreateICmpSGT(x, zero), it),
                           b.CreateZExt(b.CreateICmpSLT(x, zero), it));
      });
    case HloOpcode::kNot:
      // Bitwise; on pred's i1 that is logical not.
      return Fn(
          [](EmitContext& ctx, Args a) { return ctx.b().CreateNot(a[0]); });
    case HloOpcode::kClz:
    case HloOpcode::kPopulationCount: {
      const bool clz = op == HloOpcode::kClz;
      // On the zero-extended 64-bit value (exact for sub-byte widths).
      return Fn([clz, width](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        llvm::Value* x = b.CreateZExt(a[0], b.getInt64Ty());
        llvm::Value* r;
        if (clz) {
          r = b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse());
          r = b.CreateSub(r, b.getInt64(64 - width));
        } else {
          r = b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
        }
        return b.CreateTrunc(r, a[0]->getType());
      });
    }
    default:
      return TypeError(op, t);
  }
}

absl::StatusOr<ElementGenerator> EmitUnary(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (inst.operand_count() != 1 || !inst.shape().IsArray()) {
    return absl::InvalidArgumentError("expected one array operand");
  }
  const PrimitiveType t = inst.operand(0)->shape().element_type();
  const PrimitiveType out = inst.shape().element_type();
  absl::StatusOr<Fn> fn;
  switch (KindOf(t)) {
    case TypeKind::kFloat:
      fn = UnaryFloatFn(inst.opcode(), t, out);
      break;
    case TypeKind::kComplex:
      fn = ComplexUnaryFn(ctx, inst.opcode(), t);
      break;
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
      fn = UnaryIntFn(inst.opcode(), t);
      break;
    default:
      fn = TypeError(inst.opcode(), t);
  }
  HLOREF_RETURN_IF_ERROR(fn.status());
  return Elementwise(ctx, inst, operands, *std::move(fn));
}

// --------------------------------------------------------------- binary

absl::StatusOr<Fn> BinaryFloatFn(HloOpcode op, PrimitiveType t,
                                 PrimitiveType out) {
  const bool narrow = IsMinifloat(t);
  auto round = [out](EmitContext& ctx, llvm::Value* v) {
    return EmitRoundToFloat(ctx, out, v);
  };
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder: {
      const llvm::Instruction::BinaryOps bop =
          op == HloOpcode::kAdd        ? llvm::Instruction::FAdd
          : op == HloOpcode::kSubtract ? llvm::Instruction::FSub
          : op == HloOpcode::kMultiply ? llvm::Instruction::FMul
          : op == HloOpcode::kDivide   ? llvm::Instruction::FDiv
                                       : llvm::Instruction::FRem;
      // f32 / f64: one IEEE operation. Narrow types: exact operands in
      // double (sums and products of narrow values are exact there; the
      // quotient is rounded at 53 >= 2p + 2 bits), rounded once to t.
      //
      // bf16 sums, differences and products in f32 instead, rounded again
      // to bf16 by the f32 -> bf16 pattern rounding (4x faster than from
      // double: the general encoder works in 64-bit lanes). The result is
      // still the correctly rounded one: in f32's normal range by
      // Figueroa's theorem (double rounding is innocuous for +, -, x when
      // the first precision is >= 2p + 2: 24 >= 18); overflow as bf16's
      // (f32's largest finite value is above bf16's overflow threshold);
      // below 2^-126 sums of bf16 values are multiples of 2^-133, exact in
      // f32, and a product (at most 16 significant bits) is exact in f32
      // from 2^-134 up, while below 2^-134 it rounds to 0 in bf16 and its
      // f32 rounding reaches 2^-134 at most, which ties to 0 as well. The
      // exhaustive test in elementwise_test checks every bf16 against 40
      // partners.
      //
      // bf16 quotients likewise (Figueroa's theorem covers division; the
      // f32 divide is correctly rounded, and the softmax's divide by a row
      // sum then takes the f32 invariant-divide rewrite instead of f64:
      // about a quarter of a bf16 multi-head attention). Below 2^-126:
      // with a = A 2^ea, b = B 2^eb (A, B < 256 integers), q = a / b is
      // either below 2^-135 (ea - eb < -142), where both roundings give
      // 0 (f32 cannot round q past 2^-135, which is below bf16's first
      // midpoint 2^-134), or at distance > 2^-142 / B > 2^-150 from every
      // bf16 midpoint m = (2k + 1) 2^-134 it is not equal to (q - m has
      // numerator A 2^ea - (2k + 1) B 2^(eb - 134), a nonzero multiple of
      // 2^min(ea, eb - 134)); f32's subnormal rounding moves q by at most
      // 2^-150, so it never lands on a midpoint q is not on, and the bf16
      // rounding of it is that of q.
      const bool bf16_in_f32 =
          t == PrimitiveType::kBF16 && out == PrimitiveType::kBF16 &&
          (op == HloOpcode::kAdd || op == HloOpcode::kSubtract ||
           op == HloOpcode::kMultiply || op == HloOpcode::kDivide);
      return Fn([bop, narrow, bf16_in_f32, round](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        if (!narrow) return b.CreateBinOp(bop, a[0], a[1]);
        if (bf16_in_f32 && a[0]->getType()->getScalarType()->isFloatTy()) {
          return round(ctx, b.CreateBinOp(bop, a[0], a[1]));
        }
        return round(ctx, b.CreateBinOp(bop, EmitToDouble(ctx, a[0]),
                                        EmitToDouble(ctx, a[1])));
      });
    }
    case HloOpcode::kPower:
    case HloOpcode::kAtan2: {
      using Kernel2 =
          llvm::Value* (*)(EmitContext&, llvm::Value*, llvm::Value*);
      Kernel2 kernel = op == HloOpcode::kAtan2    ? &EmitAtan2Kernel
                       : t == PrimitiveType::kF64 ? &EmitPowKernelF64
                                                  : &EmitPowKernel;
      if (UseScalarLibm() &&
          (op == HloOpcode::kAtan2 || t == PrimitiveType::kF64)) {
        const std::string name = op == HloOpcode::kPower ? "pow" : "atan2";
        return Fn([name, round](EmitContext& ctx, Args a) {
          return round(ctx, EmitMathCall(ctx, name,
                                         {EmitToDouble(ctx, a[0]),
                                          EmitToDouble(ctx, a[1])}));
        });
      }
      return Fn([kernel, round](EmitContext& ctx, Args a) {
        return round(
            ctx, kernel(ctx, EmitToDouble(ctx, a[0]), EmitToDouble(ctx, a[1])));
      });
    }
    case HloOpcode::kMaximum:
      // The result is one of the operands: already a value of t.
      return Fn([](EmitContext& ctx, Args a) {
        return EmitXlaMaximum(ctx, a[0], a[1]);
      });
    case HloOpcode::kMinimum:
      return Fn([](EmitContext& ctx, Args a) {
        return EmitXlaMinimum(ctx, a[0], a[1]);
      });
    case HloOpcode::kComplex: {
      if (!IsComplex(out)) return TypeError(op, t);
      return Fn([out](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        llvm::Type* c =
            out == PrimitiveType::kC64 ? b.getFloatTy() : b.getDoubleTy();
        auto fit = [&](llvm::Value* v) -> llvm::Value* {
          if (v->getType() == c) return v;
          return c->isDoubleTy() ? b.CreateFPExt(v, c) : b.CreateFPTrunc(v, c);
        };
        llvm::Value* z = llvm::UndefValue::get(ComputeType(ctx.context(), out));
        z = b.CreateInsertValue(z, fit(a[0]), {0});
        return b.CreateInsertValue(z, fit(a[1]), {1});
      });
    }
    default:
      return TypeError(op, t);
  }
}

absl::StatusOr<Fn> BinaryIntFn(HloOpcode op, PrimitiveType t) {
  const bool is_signed = IsSignedInt(t);
  const int width = IsPred(t) ? 1 : BitWidth(t);
  switch (op) {
    case HloOpcode::kAdd:
      // pred: logical or (true + true = true).
      if (IsPred(t)) {
        return Fn([](EmitContext& ctx, Args a) {
          return ctx.b().CreateOr(a[0], a[1]);
        });
      }
      return Fn([](EmitContext& ctx, Args a) {
        return ctx.b().CreateAdd(a[0], a[1]);
      });
    case HloOpcode::kSubtract:
      return Fn([](EmitContext& ctx, Args a) {
        return ctx.b().CreateSub(a[0], a[1]);
      });
    case HloOpcode::kMultiply:
      // On i1 this is and.
      return Fn([](EmitContext& ctx, Args a) {
        return ctx.b().CreateMul(a[0], a[1]);
      });
    case HloOpcode::kAnd:
      return Fn([](EmitContext& ctx, Args a) {
        return ctx.b().CreateAnd(a[0], a[1]);
      });
    case HloOpcode::kOr:
      return Fn([](EmitContext& ctx, Args a) {
        return ctx.b().CreateOr(a[0], a[1]);
      });
    case HloOpcode::kXor:
      return Fn([](EmitContext& ctx, Args a) {
        return ctx.b().CreateXor(a[0], a[1]);
      });
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: {
      const bool is_max = op == HloOpcode::kMaximum;
      return Fn([is_max, is_signed](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        llvm::Value* gt = is_signed ? b.CreateICmpSGT(a[0], a[1])
                                    : b.CreateICmpUGT(a[0], a[1]);
        return is_max ? b.CreateSelect(gt, a[0], a[1])
                      : b.CreateSelect(gt, a[1], a[0]);
      });
    }
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder: {
      const bool div = op == HloOpcode::kDivide;
      // x / 0 = -1 and x % 0 = x (impl.divide.1, impl.remainder.1);
      // INT_MIN / -1 = INT_MIN and INT_MIN % -1 = 0 (impl.divide.2,
      // impl.remainder.2). The divisor is replaced by 1 in those cases so
      // the division itself never has undefined behaviour.
      return Fn([div, is_signed](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        llvm::Value* x = a[0];
        llvm::Value* y = a[1];
        llvm::Type* it = x->getType();
        const unsigned n = it->getIntegerBitWidth();
        llvm::Value* zero = IntConst(it, 0);
        llvm::Value* ones = llvm::Constant::getAllOnesValue(it);
        llvm::Value* by_zero = b.CreateICmpEQ(y, zero);
        llvm::Value* overflow = b.getFalse();
        if (is_signed) {
          llvm::Value* int_min =
              llvm::ConstantInt::get(it, llvm::APInt::getSignedMinValue(n));
          overflow =
              b.CreateAnd(b.CreateICmpEQ(x, int_min), b.CreateICmpEQ(y, ones));
        }
        llvm::Value* safe_y =
            b.CreateSelect(b.CreateOr(by_zero, overflow), IntConst(it, 1), y);
        llvm::Value* q;
        if (div) {
          q = is_signed ? b.CreateSDiv(x, safe_y) : b.CreateUDiv(x, safe_y);
          // Overflow: x / 1 = x = INT_MIN already.
          return b.CreateSelect(by_zero, ones, q);
        }
        q = is_signed ? b.CreateSRem(x, safe_y) : b.CreateURem(x, safe_y);
        // By zero: x % 1 = 0, so select x; overflow: x % 1 = 0 already.
        return b.CreateSelect(by_zero, x, q);
      });
    }
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kShiftRightArithmetic:
      // The amount is unsigned; >= width gives 0, or the sign fill for
      // arithmetic shifts (impl.shift-*.1).
      return Fn([op, width](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        llvm::Value* x = a[0];
        llvm::Value* y = a[1];
        llvm::Type* it = x->getType();
        llvm::Value* in_range = b.CreateICmpULT(y, IntConst(it, width));
        llvm::Value* amount = b.CreateSelect(in_range, y, IntConst(it, 0));
        llvm::Value* shifted;
        llvm::Value* saturated;
        if (op == HloOpcode::kShiftLeft) {
          shifted = b.CreateShl(x, amount);
          saturated = IntConst(it, 0);
        } else if (op == HloOpcode::kShiftRightLogical) {
          shifted = b.CreateLShr(x, amount);
          saturated = IntConst(it, 0);
        } else {
          shifted = b.CreateAShr(x, amount);
          saturated = b.CreateAShr(x, IntConst(it, width - 1));
        }
        return b.CreateSelect(in_range, shifted, saturated);
      });
    case HloOpcode::kPower:
      // impl.power.1: a negative exponent gives 1 for base 1, else 0.
      // impl.power.2: square-and-multiply over the exponent's low 6 bits.
      return Fn([is_signed](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        llvm::Value* x = a[0];
        llvm::Value* e = a[1];
        llvm::Type* it = x->getType();
        llvm::Value* one = IntConst(it, 1);
        llvm::Value* e64 = is_signed ? b.CreateSExt(e, b.getInt64Ty())
                                     : b.CreateZExt(e, b.getInt64Ty());
        llvm::Value* result = one;
        llvm::Value* base = x;
        for (int bit = 0; bit < 6; ++bit) {
          llvm::Value* set = b.CreateICmpNE(
              b.CreateAnd(e64, b.getInt64(uint64_t{1} << bit)), b.getInt64(0));
          result = b.CreateSelect(set, b.CreateMul(result, base), result);
          base = b.CreateMul(base, base);
        }
        if (!is_signed) return result;
        llvm::Value* negative = b.CreateICmpSLT(e, IntConst(it, 0));
        // b == 1 on the value (s1 has no 1: its bit pattern 1 is -1).
        llvm::Value* neg_result = b.CreateZExt(
            b.CreateICmpEQ(b.CreateSExt(x, b.getInt64Ty()), b.getInt64(1)), it);
        return b.CreateSelect(negative, neg_result, result);
      });
    case HloOpcode::kMulhi:
      // The high `width` bits of the exact 2*width-bit product.
      return Fn([is_signed](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        llvm::Type* it = a[0]->getType();
        const unsigned n = it->getIntegerBitWidth();
        llvm::Type* wide = b.getIntNTy(2 * n);
        auto ext = [&](llvm::Value* v) {
          return is_signed ? b.CreateSExt(v, wide) : b.CreateZExt(v, wide);
        };
        llvm::Value* p = b.CreateMul(ext(a[0]), ext(a[1]));
        llvm::Value* hi = is_signed ? b.CreateAShr(p, IntConst(wide, n))
                                    : b.CreateLShr(p, IntConst(wide, n));
        return b.CreateTrunc(hi, it);
      });
    default:
      return TypeError(op, t);
  }
}

absl::StatusOr<ElementGenerator> EmitBinary(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (inst.operand_count() != 2 || !inst.shape().IsArray()) {
    return absl::InvalidArgumentError("expected two array operands");
  }
  const PrimitiveType t = inst.operand(0)->shape().element_type();
  const PrimitiveType out = inst.shape().element_type();
  if (inst.operand(1)->shape().element_type() != t) {
    return absl::InvalidArgumentError("operands of different element types");
  }
  absl::StatusOr<Fn> fn;
  switch (KindOf(t)) {
    case TypeKind::kFloat:
      fn = BinaryFloatFn(inst.opcode(), t, out);
      break;
    case TypeKind::kComplex:
      fn = ComplexBinaryFn(ctx, inst.opcode(), t);
      break;
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
      fn = BinaryIntFn(inst.opcode(), t);
      break;
    default:
      fn = TypeError(inst.opcode(), t);
  }
  HLOREF_RETURN_IF_ERROR(fn.status());
  return Elementwise(ctx, inst, operands, *std::move(fn));
}

// ------------------------------------------------------ compare / select

// The TOTALORDER key of a float compute value of type t, as i64: the
// encoding's sign-magnitude bits mapped so that signed order is
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN; fnuz types map their
// NaN (the -0 encoding) below everything; f8e8m0fnu orders by bits.
llvm::Value* TotalOrderKey(EmitContext& ctx, PrimitiveType t, llvm::Value* x) {
  IRBuilder& b = ctx.b();
  const FloatFormat& f = FormatOf(t);
  llvm::Value* bits;
  if (t == PrimitiveType::kF32 || t == PrimitiveType::kF64) {
    bits = b.CreateBitCast(x, b.getIntNTy(f.total_bits));
  } else {
    bits = EmitComputeToStorage(ctx, t, x);
  }
  llvm::Type* i64 = b.getInt64Ty();
  bits = b.CreateZExt(bits, i64);  // no-op width change for f64
  if (f.total_bits < 64) {
    bits = b.CreateAnd(bits, b.getInt64((uint64_t{1} << f.total_bits) - 1));
  }
  if (!f.has_sign) return bits;
  const uint64_t sign = uint64_t{1} << (f.total_bits - 1);
  llvm::Value* magnitude = b.CreateAnd(bits, b.getInt64(sign - 1));
  llvm::Value* negative =
      b.CreateICmpNE(b.CreateAnd(bits, b.getInt64(sign)), b.getInt64(0));
  llvm::Value* neg_key;
  if (f.nan == NanEncoding::kNegativeZero) {
    neg_key = b.CreateSelect(
        b.CreateICmpEQ(magnitude, b.getInt64(0)),
        b.getInt64(static_cast<uint64_t>(std::numeric_limits<int64_t>::min())),
        b.CreateNeg(magnitude));
  } else {
    neg_key = b.CreateSub(b.getInt64(static_cast<uint64_t>(-1)), magnitude);
  }
  (void)i64;
  return b.CreateSelect(negative, neg_key, magnitude);
}

llvm::CmpInst::Predicate IntPredicate(ComparisonDirection d, bool is_signed) {
  switch (d) {
    case ComparisonDirection::kEq:
      return llvm::CmpInst::ICMP_EQ;
    case ComparisonDirection::kNe:
      return llvm::CmpInst::ICMP_NE;
    case ComparisonDirection::kLt:
      return is_signed ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT;
    case ComparisonDirection::kLe:
      return is_signed ? llvm::CmpInst::ICMP_SLE : llvm::CmpInst::ICMP_ULE;
    case ComparisonDirection::kGt:
      return is_signed ? llvm::CmpInst::ICMP_SGT : llvm::CmpInst::ICMP_UGT;
    case ComparisonDirection::kGe:
      return is_signed ? llvm::CmpInst::ICMP_SGE : llvm::CmpInst::ICMP_UGE;
  }
  return llvm::CmpInst::ICMP_EQ;
}

// IEEE comparisons: ordered, except NE (true when unordered).
llvm::CmpInst::Predicate FloatPredicate(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kEq:
      return llvm::CmpInst::FCMP_OEQ;
    case ComparisonDirection::kNe:
      return llvm::CmpInst::FCMP_UNE;
    case ComparisonDirection::kLt:
      return llvm::CmpInst::FCMP_OLT;
    case ComparisonDirection::kLe:
      return llvm::CmpInst::FCMP_OLE;
    case ComparisonDirection::kGt:
      return llvm::CmpInst::FCMP_OGT;
    case ComparisonDirection::kGe:
      return llvm::CmpInst::FCMP_OGE;
  }
  return llvm::CmpInst::FCMP_OEQ;
}

absl::StatusOr<ElementGenerator> EmitCompare(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (inst.operand_count() != 2) {
    return absl::InvalidArgumentError("compare takes two operands");
  }
  const PrimitiveType t = inst.operand(0)->shape().element_type();
  const ComparisonDirection dir = inst.attrs().direction;
  ComparisonType type = inst.attrs().comparison_type;
  Fn fn;
  switch (KindOf(t)) {
    case TypeKind::kFloat:
      if (type == ComparisonType::kSigned ||
          type == ComparisonType::kUnsigned) {
        return absl::UnimplementedError(
            "compare of floats with an integer comparison type");
      }
      if (type == ComparisonType::kTotalOrder) {
        // impl.compare.1: EQ / NE are equality of the keys (bits).
        fn = [t, dir](EmitContext& ctx, Args a) {
          return ctx.b().CreateICmp(IntPredicate(dir, true),
                                    TotalOrderKey(ctx, t, a[0]),
                                    TotalOrderKey(ctx, t, a[1]));
        };
      } else {
        fn = [dir](EmitContext& ctx, Args a) {
          return ctx.b().CreateFCmp(FloatPredicate(dir), a[0], a[1]);
        };
      }
      break;
    case TypeKind::kComplex:
      if (dir != ComparisonDirection::kEq && dir != ComparisonDirection::kNe) {
        return absl::UnimplementedError(
            "complex compare supports only EQ and NE");
      }
      fn = [dir](EmitContext& ctx, Args a) {
        llvm::Value* eq = EmitComplexEqual(ctx, a[0], a[1]);
        return dir == ComparisonDirection::kEq ? eq : ctx.b().CreateNot(eq);
      };
      break;
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: {
      if (type == ComparisonType::kDefault || type == ComparisonType::kFloat ||
          type == ComparisonType::kTotalOrder) {
        type = IsSignedInt(t) ? ComparisonType::kSigned
                              : ComparisonType::kUnsigned;
      }
      const bool is_signed = type == ComparisonType::kSigned;
      fn = [dir, is_signed](EmitContext& ctx, Args a) {
        return ctx.b().CreateICmp(IntPredicate(dir, is_signed), a[0], a[1]);
      };
      break;
    }
    default:
      return TypeError(inst.opcode(), t);
  }
  return Elementwise(ctx, inst, operands, std::move(fn));
}

absl::StatusOr<ElementGenerator> EmitSelect(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (inst.operand_count() != 3 || !inst.shape().IsArray() ||
      !inst.operand(1)->shape().IsArray()) {
    return absl::UnimplementedError("select of tuples is a buffer emitter");
  }
  if (inst.operand(0)->shape().element_type() != PrimitiveType::kPred) {
    return absl::InvalidArgumentError("select predicate must be pred");
  }
  // Compute values round-trip the storage bits exactly (NaN payloads too).
  return Elementwise(ctx, inst, operands, [](EmitContext& ctx, Args a) {
    return ctx.b().CreateSelect(a[0], a[1], a[2]);
  });
}

// select of tuples: a scalar predicate picks a whole value.
absl::Status EmitTupleSelect(EmitContext& ctx, const HloInstruction& inst,
                             absl::Span<const IrValue> operands,
                             const IrValue& output) {
  if (operands.size() != 3 || !operands[0].IsArray() ||
      operands[0].shape.rank() != 0) {
    return absl::UnimplementedError(
        "select of tuples needs a scalar predicate");
  }
  IRBuilder& b = ctx.b();
  llvm::Value* p = operands[0].array.EmitRead(ctx, {});
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& c = ctx.context();
  auto* then_bb = llvm::BasicBlock::Create(c, "select.true", f);
  auto* else_bb = llvm::BasicBlock::Create(c, "select.false", f);
  auto* cont = llvm::BasicBlock::Create(c, "select.cont", f);
  b.CreateCondBr(p, then_bb, else_bb);
  b.SetInsertPoint(then_bb);
  HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(operands[1], output));
  b.CreateBr(cont);
  b.SetInsertPoint(else_bb);
  HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(operands[2], output));
  b.CreateBr(cont);
  b.SetInsertPoint(cont);
  return absl::OkStatus();
}

absl::StatusOr<ElementGenerator> EmitClamp(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (inst.operand_count() != 3 || !inst.shape().IsArray()) {
    return absl::InvalidArgumentError("clamp takes three arrays");
  }
  const PrimitiveType t = inst.operand(1)->shape().element_type();
  Fn fn;
  switch (KindOf(t)) {
    case TypeKind::kFloat:
      // min(max(lo, x), hi) with XLA's NaN-propagating max/min.
      fn = [](EmitContext& ctx, Args a) {
        return EmitXlaMinimum(ctx, EmitXlaMaximum(ctx, a[0], a[1]), a[2]);
      };
      break;
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: {
      const bool is_signed = IsSignedInt(t);
      fn = [is_signed](EmitContext& ctx, Args a) {
        IRBuilder& b = ctx.b();
        auto gt = [&](llvm::Value* x, llvm::Value* y) {
          return is_signed ? b.CreateICmpSGT(x, y) : b.CreateICmpUGT(x, y);
        };
        llvm::Value* m = b.CreateSelect(gt(a[0], a[1]), a[0], a[1]);
        return b.CreateSelect(gt(m, a[2]), a[2], m);
      };
      break;
    }
    default:
      return TypeError(inst.opcode(), t);
  }
  return Elementwise(ctx, inst, operands, std::move(fn));
}

constexpr HloOpcode kUnaryOps[] = {
    HloOpcode::kAbs,
    HloOpcode::kAcos,
    HloOpcode::kAcosh,
    HloOpcode::kAsin,
    HloOpcode::kAsinh,
    HloOpcode::kAtanh,
    HloOpcode::kCbrt,
    HloOpcode::kCeil,
    HloOpcode::kCosh,
    HloOpcode::kCos,
    HloOpcode::kClz,
    HloOpcode::kErf,
    HloOpcode::kExp,
    HloOpcode::kExpm1,
    HloOpcode::kFloor,
    HloOpcode::kImag,
    HloOpcode::kIsFinite,
    HloOpcode::kLog,
    HloOpcode::kLog1p,
    HloOpcode::kLogistic,
    HloOpcode::kNegate,
    HloOpcode::kNot,
    HloOpcode::kPopulationCount,
    HloOpcode::kReal,
    HloOpcode::kRoundNearestAfz,
    HloOpcode::kRoundNearestEven,
    HloOpcode::kRsqrt,
    HloOpcode::kSign,
    HloOpcode::kSin,
    HloOpcode::kSinh,
    HloOpcode::kSqrt,
    HloOpcode::kTan,
    HloOpcode::kTanh,
};

constexpr HloOpcode kBinaryOps[] = {
    HloOpcode::kAdd,
    HloOpcode::kAnd,
    HloOpcode::kAtan2,
    HloOpcode::kComplex,
    HloOpcode::kDivide,
    HloOpcode::kMaximum,
    HloOpcode::kMinimum,
    HloOpcode::kMulhi,
    HloOpcode::kMultiply,
    HloOpcode::kOr,
    HloOpcode::kPower,
    HloOpcode::kRemainder,
    HloOpcode::kShiftLeft,
    HloOpcode::kShiftRightArithmetic,
    HloOpcode::kShiftRightLogical,
    HloOpcode::kSubtract,
    HloOpcode::kXor,
};

}  // namespace

void RegisterElementwiseEmitters(EmitterTable& table) {
  for (HloOpcode op : kUnaryOps) table.SetElemental(op, EmitUnary);
  for (HloOpcode op : kBinaryOps) table.SetElemental(op, EmitBinary);
  table.SetElemental(HloOpcode::kCompare, EmitCompare);
  table.SetElemental(HloOpcode::kSelect, EmitSelect);
  table.SetBuffer(HloOpcode::kSelect, EmitTupleSelect);
  table.SetElemental(HloOpcode::kClamp, EmitClamp);
}

}  // namespace hloref::codegen
