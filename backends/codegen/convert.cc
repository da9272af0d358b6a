// The convert family as elemental emitters: convert, bitcast-convert,
// reduce-precision and stochastic-convert. The rules are the oracle's
// (seed 001, docs/numerics.md 3.2 and 3.8), restated here in IR:
//   * int -> int: two's-complement truncation or extension by the source's
//     signedness; -> pred: v != 0.
//   * int -> f32/f64/c64/c128: sitofp/uitofp (one correct rounding); -> a
//     narrow float: one correct rounding (64-bit sources go through an f64
//     rounded to odd, so the second rounding is still correct), and the
//     types XLA produces from f16 only (f8e5m2, f8e4m3fn, f8e4m3b11fnuz,
//     f4e2m1fn) are reached through an f16 rounding first.
//   * float -> float: one rounding to the target, except that a source other
//     than f16 reaches those four types through f16 (double rounding, as XLA
//     does; impl.convert.4).
//   * float -> int: truncation toward zero, saturation to the range, NaN ->
//     0; -> pred: x != 0 (NaN -> true).
//   * float -> complex: the value rounded to the component type, imag 0;
//     complex -> complex componentwise; complex -> real is an error.
#include "backends/codegen/convert.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/llvm_types.h"
#include "backends/codegen/minifloat_ir.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "spec/types/minifloat.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {
namespace {

bool IsIntLike(PrimitiveType t) { return IsPred(t) || IsInteger(t); }

// Types XLA produces from f16 only (numerics.md 3.2).
bool ConvertsViaF16(PrimitiveType t) {
  return t == PrimitiveType::kF8E5M2 || t == PrimitiveType::kF8E4M3FN ||
         t == PrimitiveType::kF8E4M3B11FNUZ || t == PrimitiveType::kF4E2M1FN;
}

llvm::Value* ToDouble(EmitContext& ctx, llvm::Value* x) {
  if (x->getType()->isDoubleTy()) return x;
  return ctx.b().CreateFPExt(x, ctx.b().getDoubleTy());
}

// A float compute value `x` (float or double) of the exact value to round,
// rounded to the float type `to` (one rounding), in `to`'s compute type.
llvm::Value* RoundToFloatType(EmitContext& ctx, PrimitiveType to,
                              llvm::Value* x) {
  IRBuilder& b = ctx.b();
  if (to == PrimitiveType::kF64) return ToDouble(ctx, x);
  if (to == PrimitiveType::kF32) {
    return x->getType()->isDoubleTy() ? b.CreateFPTrunc(x, b.getFloatTy()) : x;
  }
  return EmitRoundToType(ctx, to, x);
}

// Float compute value of type `from` -> float type `to` (convert's rules).
llvm::Value* FloatToFloat(EmitContext& ctx, PrimitiveType from,
                          PrimitiveType to, llvm::Value* x) {
  if (from == to) return x;
  if (ConvertsViaF16(to) && from != PrimitiveType::kF16) {
    x = EmitRoundToType(ctx, PrimitiveType::kF16, x);
  }
  return RoundToFloatType(ctx, to, x);
}

// An integer compute value (iN) as a double: exact below 2^53; 64-bit
// values are rounded to odd (truncated to 53 bits, the last bit set when
// bits were dropped), so that one more rounding to any narrower format is
// the correct rounding of the integer.
llvm::Value* IntToDoubleRoundOdd(EmitContext& ctx, llvm::Value* v,
                                 bool is_unsigned) {
  IRBuilder& b = ctx.b();
  llvm::Type* dbl = b.getDoubleTy();
  const unsigned n = v->getType()->getIntegerBitWidth();
  if (n <= 53) {
    return is_unsigned ? b.CreateUIToFP(v, dbl) : b.CreateSIToFP(v, dbl);
  }
  llvm::Type* i64 = b.getInt64Ty();
  v = is_unsigned ? b.CreateZExtOrTrunc(v, i64) : b.CreateSExtOrTrunc(v, i64);
  llvm::Value* zero = llvm::ConstantInt::get(i64, 0);
  llvm::Value* negative = is_unsigned ? b.getFalse() : b.CreateICmpSLT(v, zero);
  llvm::Value* m = b.CreateSelect(negative, b.CreateSub(zero, v), v);
  llvm::Value* lz =
      b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, m, b.getFalse());
  // shift = max(0, bit length - 53) = max(0, 11 - lz).
  llvm::Value* shift =
      b.CreateSelect(b.CreateICmpULT(lz, llvm::ConstantInt::get(i64, 11)),
                     b.CreateSub(llvm::ConstantInt::get(i64, 11), lz), zero);
  llvm::Value* kept = b.CreateLShr(m, shift);
  llvm::Value* dropped = b.CreateAnd(
      m, b.CreateSub(b.CreateShl(llvm::ConstantInt::get(i64, 1), shift),
                     llvm::ConstantInt::get(i64, 1)));
  kept = b.CreateOr(kept, b.CreateZExt(b.CreateICmpNE(dropped, zero), i64));
  llvm::Value* d = b.CreateUIToFP(kept, dbl);  // exact: kept < 2^53
  llvm::Value* scale = b.CreateBitCast(
      b.CreateShl(b.CreateAdd(shift, llvm::ConstantInt::get(i64, 1023)), 52),
      dbl);
  d = b.CreateFMul(d, scale);  // exact: a power of two, no overflow
  return b.CreateSelect(negative, b.CreateFNeg(d), d);
}

// Integer compute value of `from` (pred, sN, uN) -> float type `to`.
llvm::Value* IntToFloat(EmitContext& ctx, PrimitiveType from, PrimitiveType to,
                        llvm::Value* v) {
  IRBuilder& b = ctx.b();
  const bool is_unsigned = !IsSignedInt(from);
  if (to == PrimitiveType::kF64 || to == PrimitiveType::kF32) {
    llvm::Type* t =
        to == PrimitiveType::kF64 ? b.getDoubleTy() : b.getFloatTy();
    return is_unsigned ? b.CreateUIToFP(v, t) : b.CreateSIToFP(v, t);
  }
  llvm::Value* d = IntToDoubleRoundOdd(ctx, v, is_unsigned);
  if (ConvertsViaF16(to)) d = EmitRoundToType(ctx, PrimitiveType::kF16, d);
  return EmitRoundToType(ctx, to, d);
}

// Float -> integer of `width` bits: truncation toward zero, saturation to
// the range, NaN -> 0. `x` is float or double. Returns i<width>.
llvm::Value* FloatToInt(EmitContext& ctx, llvm::Value* x, int width,
                        bool is_signed) {
  IRBuilder& b = ctx.b();
  llvm::Type* it = b.getIntNTy(width);
  llvm::Type* i64 = b.getInt64Ty();
  auto fp = [&](double v) { return llvm::ConstantFP::get(x->getType(), v); };
  llvm::Value* lo;
  llvm::Value* hi;  // exclusive
  llvm::Value* min_int;
  llvm::Value* max_int;
  llvm::Value* in_range;
  if (is_signed) {
    lo = fp(-std::ldexp(1.0, width - 1));
    hi = fp(std::ldexp(1.0, width - 1));
    min_int = llvm::ConstantInt::get(it, llvm::APInt::getSignedMinValue(width));
    max_int = llvm::ConstantInt::get(it, llvm::APInt::getSignedMaxValue(width));
    in_range = b.CreateTrunc(b.CreateFPToSI(x, i64), it);
  } else {
    lo = fp(0.0);
    hi = fp(std::ldexp(1.0, width));
    min_int = llvm::ConstantInt::get(it, 0);
    max_int = llvm::ConstantInt::get(it, llvm::APInt::getMaxValue(width));
    in_range = width == 64 ? b.CreateFPToUI(x, i64)
                           : b.CreateTrunc(b.CreateFPToSI(x, i64), it);
  }
  // The fpto*i results are poison out of range; the selects below never
  // pick them there. Freeze keeps the poison from spreading.
  in_range = b.CreateFreeze(in_range);
  // x < lo and trunc(x) < lo give the same result (lo itself); likewise
  // x >= hi and trunc(x) >= hi.
  llvm::Value* r = b.CreateSelect(b.CreateFCmpOLT(x, lo), min_int, in_range);
  r = b.CreateSelect(b.CreateFCmpOGE(x, hi), max_int, r);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), llvm::ConstantInt::get(it, 0),
                        r);
}

llvm::Value* MakeComplex(EmitContext& ctx, PrimitiveType type, llvm::Value* re,
                         llvm::Value* im) {
  IRBuilder& b = ctx.b();
  llvm::Value* z = llvm::PoisonValue::get(ComputeType(ctx.context(), type));
  z = b.CreateInsertValue(z, re, {0});
  return b.CreateInsertValue(z, im, {1});
}

}  // namespace

// Declared in convert.h (also used where a computation runs in another
// floating-point precision than its operands: scatter, select-and-scatter,
// all-reduce, reduce-scatter).
absl::StatusOr<llvm::Value*> EmitConvertValue(EmitContext& ctx,
                                              PrimitiveType from,
                                              PrimitiveType to,
                                              llvm::Value* x) {
  IRBuilder& b = ctx.b();
  if (from == to) return x;
  if (IsComplex(from)) {
    if (!IsComplex(to)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "convert from complex ", PrimitiveTypeName(from), " to ",
          PrimitiveTypeName(to), " is not defined (take real() or imag())"));
    }
    PrimitiveType c = ComplexComponentType(to);
    llvm::Value* re = RoundToFloatType(ctx, c, b.CreateExtractValue(x, {0}));
    llvm::Value* im = RoundToFloatType(ctx, c, b.CreateExtractValue(x, {1}));
    return MakeComplex(ctx, to, re, im);
  }
  if (IsIntLike(from)) {
    if (IsPred(to)) {
      return b.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
    }
    if (IsInteger(to)) {
      llvm::Type* t = ComputeType(ctx.context(), to);
      return IsSignedInt(from) ? b.CreateSExtOrTrunc(x, t)
                               : b.CreateZExtOrTrunc(x, t);
    }
    if (IsFloat(to)) return IntToFloat(ctx, from, to, x);
    if (IsComplex(to)) {
      PrimitiveType c = ComplexComponentType(to);
      llvm::Value* re = IntToFloat(ctx, from, c, x);
      return MakeComplex(ctx, to, re,
                         llvm::ConstantFP::get(re->getType(), 0.0));
    }
  }
  if (IsFloat(from)) {
    if (IsFloat(to)) return FloatToFloat(ctx, from, to, x);
    if (IsComplex(to)) {
      PrimitiveType c = ComplexComponentType(to);
      llvm::Value* re = RoundToFloatType(ctx, c, x);
      return MakeComplex(ctx, to, re,
                         llvm::ConstantFP::get(re->getType(), 0.0));
    }
    if (IsPred(to)) {
      return b.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));
    }
    if (IsInteger(to)) {
      return FloatToInt(ctx, x, BitWidth(to), IsSignedInt(to));
    }
  }
  return absl::UnimplementedError(absl::StrCat(
      "convert from ", PrimitiveTypeName(from), " to ", PrimitiveTypeName(to)));
}

namespace {

// ---- bitcast-convert: compute values <-> their bit patterns.

int BitcastWidth(PrimitiveType t) { return BitWidth(t); }  // pred: 8

bool BitcastableType(PrimitiveType t) {
  return IsPred(t) || IsInteger(t) || IsFloat(t) || IsComplex(t);
}

llvm::Value* ComputeToBits(EmitContext& ctx, PrimitiveType t, llvm::Value* v) {
  IRBuilder& b = ctx.b();
  const int w = BitcastWidth(t);
  llvm::Type* it = b.getIntNTy(w);
  if (IsPred(t)) return b.CreateZExt(v, it);
  if (IsInteger(t)) return v;
  if (IsMinifloat(t)) {
    return b.CreateZExtOrTrunc(EmitEncodeMinifloat(ctx, t, v), it);
  }
  if (IsFloat(t)) return b.CreateBitCast(v, it);
  // Complex: the real part in the low half (little-endian memory order).
  llvm::Type* half = b.getIntNTy(w / 2);
  llvm::Value* re =
      b.CreateZExt(b.CreateBitCast(b.CreateExtractValue(v, {0}), half), it);
  llvm::Value* im =
      b.CreateZExt(b.CreateBitCast(b.CreateExtractValue(v, {1}), half), it);
  return b.CreateOr(re, b.CreateShl(im, w / 2));
}

llvm::Value* BitsToCompute(EmitContext& ctx, PrimitiveType t,
                           llvm::Value* bits) {
  IRBuilder& b = ctx.b();
  const int w = BitcastWidth(t);
  if (IsPred(t)) {
    // impl.bitcast-convert.2: a non-zero byte reads as true.
    return b.CreateICmpNE(bits, llvm::ConstantInt::get(bits->getType(), 0));
  }
  if (IsInteger(t)) return bits;
  if (IsMinifloat(t)) {
    return EmitMinifloatToF32(
        ctx, t, b.CreateZExtOrTrunc(bits, StorageType(ctx.context(), t)));
  }
  if (IsFloat(t)) return b.CreateBitCast(bits, ComputeType(ctx.context(), t));
  llvm::Type* half = b.getIntNTy(w / 2);
  llvm::Type* comp = ComputeType(ctx.context(), ComplexComponentType(t));
  llvm::Value* re = b.CreateBitCast(b.CreateTrunc(bits, half), comp);
  llvm::Value* im =
      b.CreateBitCast(b.CreateTrunc(b.CreateLShr(bits, w / 2), half), comp);
  return MakeComplex(ctx, t, re, im);
}

absl::StatusOr<ElementGenerator> EmitBitcastConvert(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (operands.size() != 1 || !inst.shape().IsArray() ||
      !inst.operand(0)->shape().IsArray()) {
    return absl::InvalidArgumentError("bitcast-convert takes one array");
  }
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  const PrimitiveType from = in.element_type();
  const PrimitiveType to = out.element_type();
  if (!BitcastableType(from) || !BitcastableType(to)) {
    return absl::UnimplementedError(
        absl::StrCat("bitcast-convert from ", PrimitiveTypeName(from), " to ",
                     PrimitiveTypeName(to)));
  }
  const int in_bits = BitcastWidth(from);
  const int out_bits = BitcastWidth(to);
  ElementGenerator op = operands[0];
  auto dims_equal = [](absl::Span<const int64_t> a,
                       absl::Span<const int64_t> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  };
  if (in_bits == out_bits) {
    if (!dims_equal(in.dimensions(), out.dimensions())) {
      return absl::InvalidArgumentError("bitcast-convert: shapes differ");
    }
    return ElementGenerator(
        [&ctx, op, from, to](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, op(i));
          return BitsToCompute(ctx, to, ComputeToBits(ctx, from, x));
        });
  }
  if (in_bits > out_bits) {
    // Split: out = in dims + [in_bits / out_bits]; the lowest bits first.
    const int64_t ratio = in_bits / out_bits;
    if (in_bits % out_bits != 0 || out.rank() != in.rank() + 1 ||
        out.dimensions().back() != ratio ||
        !dims_equal(in.dimensions(), out.dimensions().first(in.rank()))) {
      return absl::InvalidArgumentError(
          "bitcast-convert: not a split of each element into a new minor "
          "dimension");
    }
    return ElementGenerator([&ctx, op, from, to, out_bits](const IrIndex& i)
                                -> absl::StatusOr<llvm::Value*> {
      IRBuilder& b = ctx.b();
      IrIndex inner(i.begin(), i.end() - 1);
      HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, op(inner));
      llvm::Value* bits = ComputeToBits(ctx, from, x);
      llvm::Type* wide = bits->getType();
      llvm::Value* shift = b.CreateMul(b.CreateZExtOrTrunc(i.back(), wide),
                                       llvm::ConstantInt::get(wide, out_bits));
      llvm::Value* piece =
          b.CreateTrunc(b.CreateLShr(bits, shift), b.getIntNTy(out_bits));
      return BitsToCompute(ctx, to, piece);
    });
  }
  // Join: in = out dims + [out_bits / in_bits]; index 0 gives the lowest
  // bits.
  const int64_t ratio = out_bits / in_bits;
  if (out_bits % in_bits != 0 || in.rank() != out.rank() + 1 ||
      in.dimensions().back() != ratio ||
      !dims_equal(out.dimensions(), in.dimensions().first(out.rank()))) {
    return absl::InvalidArgumentError(
        "bitcast-convert: not a join of a minor dimension into elements");
  }
  return ElementGenerator(
      [&ctx, op, from, to, in_bits, out_bits,
       ratio](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        IRBuilder& b = ctx.b();
        llvm::Type* wide = b.getIntNTy(out_bits);
        llvm::Value* acc = llvm::ConstantInt::get(wide, 0);
        for (int64_t k = 0; k < ratio; ++k) {
          IrIndex idx = i;
          idx.push_back(ctx.I64(k));
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, op(idx));
          llvm::Value* piece = b.CreateZExt(ComputeToBits(ctx, from, x), wide);
          acc = b.CreateOr(acc, b.CreateShl(piece, k * in_bits));
        }
        return BitsToCompute(ctx, to, acc);
      });
}

// ---- reduce-precision (XLA's EmitReducePrecisionIR, numerics.md 3.8) on
// the bit pattern `x` (i<1+src_e+src_m>) of a float with src_e exponent and
// src_m mantissa bits; e <= src_e, m <= src_m.
llvm::Value* ReducePrecisionBits(EmitContext& ctx, llvm::Value* x, int src_e,
                                 int src_m, int e, int m) {
  IRBuilder& b = ctx.b();
  llvm::Type* t = x->getType();
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(t, v); };
  const uint64_t sign_mask = uint64_t{1} << (src_e + src_m);
  const uint64_t exp_mask = ((uint64_t{1} << src_e) - 1) << src_m;
  llvm::Value* is_nan =
      b.CreateICmpUGT(b.CreateAnd(x, c(sign_mask - 1)), c(exp_mask));
  llvm::Value* original = x;
  if (m < src_m) {
    const int s = src_m - m;
    const uint64_t last_bit_mask = uint64_t{1} << s;
    const uint64_t base_bias = (last_bit_mask >> 1) - 1;
    llvm::Value* last_bit = b.CreateLShr(b.CreateAnd(x, c(last_bit_mask)), s);
    x = b.CreateAnd(b.CreateAdd(b.CreateAdd(x, last_bit), c(base_bias)),
                    c(~(last_bit_mask - 1)));  // wraps at the type's width
  }
  if (e < src_e) {
    const int64_t src_bias = (int64_t{1} << (src_e - 1)) - 1;
    const int64_t reduced_bias = (int64_t{1} << (e - 1)) - 1;
    const uint64_t max_exp = static_cast<uint64_t>(src_bias + reduced_bias);
    const uint64_t min_exp = static_cast<uint64_t>(src_bias - reduced_bias);
    llvm::Value* x_exp = b.CreateAnd(x, c(exp_mask));
    llvm::Value* sign = b.CreateAnd(x, c(sign_mask));
    llvm::Value* r =
        b.CreateSelect(b.CreateICmpULE(x_exp, c(min_exp << src_m)), sign, x);
    x = b.CreateSelect(b.CreateICmpUGT(x_exp, c(max_exp << src_m)),
                       b.CreateOr(sign, c(exp_mask)), r);
  }
  if (m > 0) x = b.CreateSelect(is_nan, original, x);
  return x;
}

absl::StatusOr<ElementGenerator> EmitReducePrecision(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  const int64_t e = inst.attrs().exponent_bits;
  const int64_t m = inst.attrs().mantissa_bits;
  if (e < 1 || m < 0) {
    return absl::InvalidArgumentError(
        "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0");
  }
  const PrimitiveType t = inst.shape().element_type();
  if (!IsFloat(t) || operands.size() != 1) {
    return absl::InvalidArgumentError("reduce-precision needs a float operand");
  }
  ElementGenerator op = operands[0];
  return ElementGenerator(
      [&ctx, op, t, e, m](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        IRBuilder& b = ctx.b();
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, op(i));
        const bool native =
            t == PrimitiveType::kF16 || t == PrimitiveType::kBF16 ||
            t == PrimitiveType::kF32 || t == PrimitiveType::kF64;
        // impl.reduce-precision.1: the narrower types are reduced in f32
        // and converted back (convert's rules).
        const PrimitiveType work = native ? t : PrimitiveType::kF32;
        const FloatFormat& f = FormatOf(work);
        const int ee = static_cast<int>(std::min<int64_t>(e, f.exponent_bits));
        const int mm = static_cast<int>(std::min<int64_t>(m, f.mantissa_bits));
        llvm::Value* bits = IsMinifloat(work)
                                ? EmitEncodeMinifloat(ctx, work, x)
                                : b.CreateBitCast(x, b.getIntNTy(f.total_bits));
        bits = ReducePrecisionBits(ctx, bits, f.exponent_bits, f.mantissa_bits,
                                   ee, mm);
        llvm::Value* y =
            IsMinifloat(work)
                ? EmitMinifloatToF32(ctx, work, bits)
                : b.CreateBitCast(bits, ComputeType(ctx.context(), work));
        if (!native) y = FloatToFloat(ctx, PrimitiveType::kF32, t, y);
        return y;
      });
}

// ---- stochastic-convert (XLA's StochasticConvertDecomposer, as the oracle
// states it): see interpreter/ops/convert.cc's EvalStochasticConvert.

// A double constant rounded to the float type `t` and widened back.
double RoundConstant(PrimitiveType t, double v) {
  if (t == PrimitiveType::kF64) return v;
  if (t == PrimitiveType::kF32)
    return static_cast<double>(static_cast<float>(v));
  return DecodeFloat(FormatOf(t), EncodeFloat(FormatOf(t), v));
}

// A double value rounded to the float type `t`, as a double.
llvm::Value* RoundInDouble(EmitContext& ctx, PrimitiveType t, llvm::Value* d) {
  if (t == PrimitiveType::kF64) return d;
  return ToDouble(ctx, RoundToFloatType(ctx, t, d));
}

absl::StatusOr<ElementGenerator> EmitStochasticConvert(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (operands.size() != 2) {
    return absl::InvalidArgumentError("stochastic-convert takes two operands");
  }
  const PrimitiveType from = inst.operand(0)->shape().element_type();
  const PrimitiveType rnd = inst.operand(1)->shape().element_type();
  const PrimitiveType to = inst.shape().element_type();
  if (!IsFloat(from) || !IsUnsignedInt(rnd) ||
      BitWidth(rnd) != BitWidth(from) || !IsSignedInt(to)) {
    return absl::InvalidArgumentError(
        "stochastic-convert needs a float operand, unsigned random bits of "
        "the same width and a signed integer result");
  }
  const int bits = BitWidth(rnd);
  const int width = BitWidth(to);
  const PrimitiveType mul_type =
      from == PrimitiveType::kF16 ? PrimitiveType::kF32 : from;
  const double factor = RoundConstant(mul_type, std::ldexp(1.0, bits));
  const double min_b = RoundConstant(from, -std::ldexp(1.0, width - 1));
  const double max_b = RoundConstant(from, std::ldexp(1.0, width - 1) - 1);
  ElementGenerator op = operands[0];
  ElementGenerator random = operands[1];
  return ElementGenerator(
      [&ctx, op, random, from, mul_type, bits, width, factor, min_b,
       max_b](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        IRBuilder& b = ctx.b();
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * xv, op(i));
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * r, random(i));
        llvm::Type* dbl = b.getDoubleTy();
        auto fp = [&](double v) { return llvm::ConstantFP::get(dbl, v); };
        llvm::Value* x = ToDouble(ctx, xv);
        llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
        llvm::Value* whole = RoundInDouble(
            ctx, from, b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, ax));
        llvm::Value* frac = RoundInDouble(ctx, from, b.CreateFSub(ax, whole));
        llvm::Value* scaled =
            RoundInDouble(ctx, mul_type, b.CreateFMul(frac, fp(factor)));
        llvm::Type* it = b.getIntNTy(width);
        llvm::Value* fixed = FloatToInt(ctx, scaled, bits, /*is_signed=*/false);
        llvm::Value* round_up = b.CreateICmpULT(r, fixed);
        llvm::Value* v = FloatToInt(ctx, whole, width, /*is_signed=*/true);
        v = b.CreateAdd(v, b.CreateZExt(round_up, it));
        v = b.CreateSelect(b.CreateFCmpOLT(x, fp(0.0)),
                           b.CreateSub(llvm::ConstantInt::get(it, 0), v), v);
        v = b.CreateSelect(
            b.CreateFCmpOLE(x, fp(min_b)),
            llvm::ConstantInt::get(it, llvm::APInt::getSignedMinValue(width)),
            v);
        v = b.CreateSelect(
            b.CreateFCmpOGE(x, fp(max_b)),
            llvm::ConstantInt::get(it, llvm::APInt::getSignedMaxValue(width)),
            v);
        return v;
      });
}

absl::StatusOr<ElementGenerator> EmitConvert(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (operands.size() != 1 || !inst.shape().IsArray() ||
      !inst.operand(0)->shape().IsArray()) {
    return absl::InvalidArgumentError("convert takes one array");
  }
  const PrimitiveType from = inst.operand(0)->shape().element_type();
  const PrimitiveType to = inst.shape().element_type();
  if (IsComplex(from) && !IsComplex(to)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "convert from complex ", PrimitiveTypeName(from), " to ",
        PrimitiveTypeName(to), " is not defined (take real() or imag())"));
  }
  if (!BitcastableType(from) || !BitcastableType(to)) {
    return absl::UnimplementedError(
        absl::StrCat("convert from ", PrimitiveTypeName(from), " to ",
                     PrimitiveTypeName(to)));
  }
  ElementGenerator op = operands[0];
  return ElementGenerator(
      [&ctx, op, from, to](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, op(i));
        return EmitConvertValue(ctx, from, to, x);
      });
}

}  // namespace

void RegisterConvertEmitters(EmitterTable& table) {
  table.SetElemental(HloOpcode::kConvert, EmitConvert);
  table.SetElemental(HloOpcode::kBitcastConvert, EmitBitcastConvert);
  table.SetElemental(HloOpcode::kReducePrecision, EmitReducePrecision);
  table.SetElemental(HloOpcode::kStochasticConvert, EmitStochasticConvert);
}

}  // namespace hloref::codegen
