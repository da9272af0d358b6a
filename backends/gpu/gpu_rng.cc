#include "backends/gpu/gpu_rng.h"

#include <array>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/convert.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "spec/util/status_macros.h"

namespace hloref::gpu {

namespace {

using codegen::EmitContext;
using codegen::IrArray;
using codegen::IrIndex;

bool Normal(const HloInstruction& inst) {
  return inst.attrs().distribution == RandomDistribution::kNormal;
}

// The logical index of row-major element `e` (i64) of `dims`.
IrIndex RowMajor(EmitContext& ctx, llvm::Value* e,
                 const std::vector<int64_t>& dims) {
  IrIndex index(dims.size(), nullptr);
  llvm::Value* rest = e;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      index[d] = rest;
    } else {
      index[d] = ctx.b().CreateURem(rest, ctx.I64(dims[d]));
      rest = ctx.b().CreateUDiv(rest, ctx.I64(dims[d]));
    }
  }
  return index;
}

// (lo, hi) + delta (i64, sign-extended to 128 bits when `sign`).
std::pair<llvm::Value*, llvm::Value*> Add128(EmitContext& ctx, llvm::Value* lo,
                                             llvm::Value* hi,
                                             llvm::Value* delta, bool sign) {
  codegen::IRBuilder& b = ctx.b();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Value* l = b.CreateAdd(lo, delta);
  llvm::Value* carry = b.CreateZExt(b.CreateICmpULT(l, lo), i64);
  llvm::Value* h = b.CreateAdd(hi, carry);
  if (sign) h = b.CreateAdd(h, b.CreateAShr(delta, 63));
  return {l, h};
}

// The two 64-bit words of the Philox block at counter S + j (key seed).
std::pair<llvm::Value*, llvm::Value*> PhiloxWords(EmitContext& ctx,
                                                  llvm::Value* seed,
                                                  llvm::Value* s_lo,
                                                  llvm::Value* s_hi,
                                                  llvm::Value* j) {
  codegen::IRBuilder& b = ctx.b();
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* i64 = b.getInt64Ty();
  auto [lo, hi] = Add128(ctx, s_lo, s_hi, j, false);
  std::array<llvm::Value*, 4> c = {
      b.CreateTrunc(lo, i32), b.CreateTrunc(b.CreateLShr(lo, 32), i32),
      b.CreateTrunc(hi, i32), b.CreateTrunc(b.CreateLShr(hi, 32), i32)};
  std::array<llvm::Value*, 4> w =
      EmitPhilox4x32(ctx, c, b.CreateTrunc(seed, i32),
                     b.CreateTrunc(b.CreateLShr(seed, 32), i32));
  auto join = [&](llvm::Value* l, llvm::Value* h) {
    return b.CreateOr(b.CreateZExt(l, i64),
                      b.CreateShl(b.CreateZExt(h, i64), 32));
  };
  return {join(w[0], w[1]), join(w[2], w[3])};
}

// 2^-53 (word >> 11) (+ 2^-53 when `plus_one`): exact in double.
llvm::Value* UnitInterval(EmitContext& ctx, llvm::Value* word, bool plus_one) {
  codegen::IRBuilder& b = ctx.b();
  llvm::Value* m = b.CreateLShr(word, 11);
  if (plus_one) m = b.CreateAdd(m, ctx.I64(1));
  return b.CreateFMul(b.CreateUIToFP(m, b.getDoubleTy()),
                      llvm::ConstantFP::get(b.getDoubleTy(), 0x1p-53));
}

llvm::FunctionCallee LibmDouble(EmitContext& ctx, const char* name) {
  llvm::Type* d = ctx.b().getDoubleTy();
  return ctx.module().getOrInsertFunction(
      name, llvm::FunctionType::get(d, {d}, false));
}

// The bits of a compute value of float `type` (an integer of its width).
llvm::Value* FloatBits(EmitContext& ctx, PrimitiveType type, llvm::Value* v) {
  codegen::IRBuilder& b = ctx.b();
  llvm::Value* s = codegen::EmitComputeToStorage(ctx, type, v);
  if (s->getType()->isFloatingPointTy()) {
    s = b.CreateBitCast(
        s, b.getIntNTy(s->getType()->getPrimitiveSizeInBits().getFixedValue()));
  }
  return s;
}

// The compute value of float `type` with bits `bits`.
llvm::Value* FromBits(EmitContext& ctx, PrimitiveType type, llvm::Value* bits) {
  llvm::Type* st = codegen::StorageType(ctx.context(), type);
  llvm::Value* s =
      st->isFloatingPointTy() ? ctx.b().CreateBitCast(bits, st) : bits;
  return codegen::EmitStorageToCompute(ctx, type, s);
}

}  // namespace

Shape RngStateShape() { return Shape::Array(PrimitiveType::kU64, {3}); }

absl::Status CheckRng(const HloInstruction& inst) {
  if (inst.operand_count() != 2 || !inst.shape().IsArray() ||
      !inst.operand(0)->shape().IsArray() ||
      !inst.operand(1)->shape().IsArray()) {
    return absl::InvalidArgumentError("rng shapes");
  }
  const PrimitiveType type = inst.shape().element_type();
  if (inst.operand(0)->shape().element_type() != type ||
      inst.operand(1)->shape().element_type() != type ||
      inst.operand(0)->shape().num_elements() != 1 ||
      inst.operand(1)->shape().num_elements() != 1) {
    return absl::InvalidArgumentError(
        "rng bounds do not fit (is the module verified?)");
  }
  const bool normal = Normal(inst);
  if (normal ? !IsFloat(type)
             : !(IsFloat(type) || IsInteger(type) || IsPred(type))) {
    return absl::UnimplementedError(
        absl::StrCat(normal ? "rng_normal" : "rng_uniform", " of ",
                     PrimitiveTypeName(type)));
  }
  return absl::OkStatus();
}

int64_t RngStateAdvance(const HloInstruction& inst) {
  const int64_t n = inst.shape().num_elements();
  const int64_t words = Normal(inst) ? 2 * n : n;
  return (words + 1) / 2;
}

absl::Status EmitRngDraws(EmitContext& ctx, const HloInstruction& inst,
                          const IrArray& a, const IrArray& b_arr,
                          const IrArray& state, const IrArray& out,
                          const DeviceLoops& loops) {
  HLOREF_RETURN_IF_ERROR(CheckRng(inst));
  codegen::IRBuilder& b = ctx.b();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* f64 = b.getDoubleTy();
  const PrimitiveType type = inst.shape().element_type();
  const std::vector<int64_t> dims(inst.shape().dimensions().begin(),
                                  inst.shape().dimensions().end());
  const int64_t n = inst.shape().num_elements();
  const IrIndex scalar_a(a.shape().rank(), ctx.I64(0));
  const IrIndex scalar_b(b_arr.shape().rank(), ctx.I64(0));
  llvm::Value* av = a.EmitRead(ctx, scalar_a);
  llvm::Value* bv = b_arr.EmitRead(ctx, scalar_b);
  llvm::Value* seed = state.EmitRead(ctx, {ctx.I64(0)});
  llvm::Value* s_lo = state.EmitRead(ctx, {ctx.I64(1)});
  llvm::Value* s_hi = state.EmitRead(ctx, {ctx.I64(2)});
  auto to_f64 = [&](llvm::Value* v) -> absl::StatusOr<llvm::Value*> {
    return codegen::EmitConvertValue(ctx, type, PrimitiveType::kF64, v);
  };
  if (Normal(inst)) {
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * mu, to_f64(av));
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * sigma, to_f64(bv));
    return loops.for_each(ctx.I64(n), [&](llvm::Value* i) -> absl::Status {
      auto [w0, w1] = PhiloxWords(ctx, seed, s_lo, s_hi, i);
      llvm::Value* u1 = UnitInterval(ctx, w0, true);
      llvm::Value* u2 = UnitInterval(ctx, w1, false);
      llvm::Value* r = b.CreateUnaryIntrinsic(
          llvm::Intrinsic::sqrt,
          b.CreateFMul(llvm::ConstantFP::get(f64, -2.0),
                       b.CreateCall(LibmDouble(ctx, "log"), {u1})));
      // 2 pi in double (2 pi (1 + 2^-53 d), |d| < 1): the phase's
      // absolute error is below 2^-50, inside the bound gpu_rng_test
      // checks.
      llvm::Value* phase =
          b.CreateFMul(llvm::ConstantFP::get(f64, 6.283185307179586), u2);
      llvm::Value* z =
          b.CreateFMul(r, b.CreateCall(LibmDouble(ctx, "cos"), {phase}));
      llvm::Value* y = b.CreateFAdd(mu, b.CreateFMul(sigma, z));
      HLOREF_ASSIGN_OR_RETURN(
          llvm::Value * v,
          codegen::EmitConvertValue(ctx, PrimitiveType::kF64, type, y));
      out.EmitWrite(ctx, RowMajor(ctx, i, dims), v);
      return absl::OkStatus();
    });
  }
  // Word i: half i % 2 of block i / 2.
  auto word_of = [&](llvm::Value* i) {
    auto [w0, w1] =
        PhiloxWords(ctx, seed, s_lo, s_hi, b.CreateLShr(i, ctx.I64(1)));
    return b.CreateSelect(
        b.CreateICmpEQ(b.CreateAnd(i, ctx.I64(1)), ctx.I64(0)), w0, w1);
  };
  if (IsFloat(type)) {
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * lo, to_f64(av));
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * hi, to_f64(bv));
    auto finite = [&](llvm::Value* x) {
      return b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                             llvm::ConstantFP::getInfinity(f64));
    };
    llvm::Value* degenerate = b.CreateNot(b.CreateAnd(
        b.CreateFCmpOLT(lo, hi), b.CreateAnd(finite(lo), finite(hi))));
    // The float below b (the CPU runtime's FloatBelow), when it exists
    // and is not below a.
    llvm::Value* b_bits = FloatBits(ctx, type, bv);
    llvm::Type* it = b_bits->getType();
    const unsigned width = it->getIntegerBitWidth();
    llvm::Value* sign =
        llvm::ConstantInt::get(it, llvm::APInt::getOneBitSet(width, width - 1));
    llvm::Value* zero = llvm::ConstantFP::get(f64, 0.0);
    llvm::Value* below_bits = b.CreateSelect(
        b.CreateFCmpOGT(hi, zero),
        b.CreateSub(b_bits, llvm::ConstantInt::get(it, 1)),
        b.CreateSelect(b.CreateFCmpOEQ(hi, zero),
                       b.CreateOr(sign, llvm::ConstantInt::get(it, 1)),
                       b.CreateAdd(b_bits, llvm::ConstantInt::get(it, 1))));
    llvm::Value* below = FromBits(ctx, type, below_bits);
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * below_f64, to_f64(below));
    llvm::Value* has_below =
        b.CreateAnd(b.CreateAnd(b.CreateNot(degenerate), finite(hi)),
                    b.CreateAnd(b.CreateFCmpOLT(below_f64, hi),
                                b.CreateNot(b.CreateFCmpOLT(below_f64, lo))));
    llvm::Value* fallback = b.CreateSelect(has_below, below, av);
    // b - a overflows only for f64 bounds of opposite signs near the
    // largest finite values: then 2 (a/2 + U (b/2 - a/2)) (both halvings
    // exact there), where the long double sum of the CPU does not
    // overflow either.
    llvm::Value* width_full = b.CreateFSub(hi, lo);
    llvm::Value* overflow = b.CreateNot(finite(width_full));
    llvm::Value* half = llvm::ConstantFP::get(f64, 0.5);
    llvm::Value* scale =
        b.CreateSelect(overflow, llvm::ConstantFP::get(f64, 2.0),
                       llvm::ConstantFP::get(f64, 1.0));
    llvm::Value* base = b.CreateSelect(overflow, b.CreateFMul(lo, half), lo);
    llvm::Value* span = b.CreateSelect(
        overflow, b.CreateFSub(b.CreateFMul(hi, half), b.CreateFMul(lo, half)),
        width_full);
    return loops.for_each(ctx.I64(n), [&](llvm::Value* i) -> absl::Status {
      llvm::Value* u = UnitInterval(ctx, word_of(i), false);
      llvm::Value* x = b.CreateFMul(
          b.CreateIntrinsic(llvm::Intrinsic::fma, {f64}, {u, span, base}),
          scale);
      HLOREF_ASSIGN_OR_RETURN(
          llvm::Value * v,
          codegen::EmitConvertValue(ctx, PrimitiveType::kF64, type, x));
      HLOREF_ASSIGN_OR_RETURN(llvm::Value * back, to_f64(v));
      llvm::Value* too_big =
          b.CreateAnd(b.CreateNot(degenerate), b.CreateFCmpOGE(back, hi));
      out.EmitWrite(ctx, RowMajor(ctx, i, dims),
                    b.CreateSelect(too_big, fallback, v));
      return absl::OkStatus();
    });
  }
  // Integers and pred: a + floor(W (b - a) / 2^64).
  const bool is_signed = IsSignedInt(type);
  auto widen = [&](llvm::Value* v) {
    return is_signed ? b.CreateSExt(v, i64) : b.CreateZExt(v, i64);
  };
  llvm::Value* a64 = widen(av);
  llvm::Value* b64 = widen(bv);
  llvm::Value* degenerate =
      is_signed ? b.CreateICmpSLE(b64, a64) : b.CreateICmpULE(b64, a64);
  llvm::Value* range =
      b.CreateSelect(degenerate, ctx.I64(0), b.CreateSub(b64, a64));
  llvm::Type* i128 = b.getInt128Ty();
  llvm::Type* ct = codegen::ComputeType(ctx.context(), type);
  return loops.for_each(ctx.I64(n), [&](llvm::Value* i) -> absl::Status {
    llvm::Value* product =
        b.CreateMul(b.CreateZExt(word_of(i), i128), b.CreateZExt(range, i128));
    llvm::Value* value =
        b.CreateAdd(a64, b.CreateTrunc(b.CreateLShr(product, 64), i64));
    llvm::Value* v = IsPred(type) ? b.CreateICmpNE(value, ctx.I64(0))
                                  : b.CreateTrunc(value, ct);
    out.EmitWrite(ctx, RowMajor(ctx, i, dims), v);
    return absl::OkStatus();
  });
}

absl::Status EmitRngStateUpdate(EmitContext& ctx, const IrArray& state,
                                int64_t delta, const IrArray* old,
                                const DeviceLoops& loops) {
  return loops.once([&]() -> absl::Status {
    llvm::Value* lo = state.EmitRead(ctx, {ctx.I64(1)});
    llvm::Value* hi = state.EmitRead(ctx, {ctx.I64(2)});
    if (old != nullptr) {
      // u64[2] of any rank: the CPU runtime writes physical words 0 and 1.
      ctx.b().CreateStore(lo, old->base());
      ctx.b().CreateStore(hi, ctx.b().CreateConstInBoundsGEP1_64(
                                  ctx.b().getInt64Ty(), old->base(), 1));
    }
    auto [l, h] = Add128(ctx, lo, hi, ctx.I64(delta), true);
    state.EmitWrite(ctx, {ctx.I64(1)}, l);
    state.EmitWrite(ctx, {ctx.I64(2)}, h);
    return absl::OkStatus();
  });
}

}  // namespace hloref::gpu
