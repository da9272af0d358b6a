#include "backends/codegen/math_ir.h"

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

}  // namespace hloref::codegen
