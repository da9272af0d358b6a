// The narrow float formats in LLVM IR, by integer bit manipulation only
// (no fptrunc/fpext/conversions: hardware conversions quiet signalling NaNs
// and some targets flush subnormals). The decoder writes the f32 bit pattern
// of the exact value; the encoder is the single correct rounding of
// spec/types/minifloat.cc's EncodeFloat (kXla), restated on the bit pattern
// of an f32 or f64 source.
#include "backends/codegen/minifloat_ir.h"

#include <cstdint>

#include "backends/codegen/emit_context.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "spec/types/minifloat.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {
namespace {

uint64_t LowMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// The source format of an encode: f32 or f64, as integer fields.
struct SourceFormat {
  int total_bits;
  int mantissa_bits;
  int bias;
};

}  // namespace

llvm::Value* EmitMinifloatToF32(EmitContext& ctx, PrimitiveType type,
                                llvm::Value* bits) {
  IRBuilder& b = ctx.b();
  const FloatFormat& f = FormatOf(type);
  llvm::Type* i32 = b.getInt32Ty();
  auto c32 = [&](uint64_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* u = b.CreateZExtOrTrunc(bits, i32);
  u = b.CreateAnd(u, c32(LowMask(f.total_bits)));
  const int m = f.mantissa_bits;

  llvm::Value* result;
  if (type == PrimitiveType::kBF16) {
    // bf16 is the top half of f32 (NaN payloads and subnormals included).
    result = b.CreateShl(u, c32(16));
  } else if (!f.has_sign) {
    // f8e8m0fnu: 2^(e-127); 0x00 is 2^-127 (the f32 subnormal 0x00400000),
    // 0xFF is NaN.
    llvm::Value* normal = b.CreateShl(u, c32(23));
    result = b.CreateSelect(b.CreateICmpEQ(u, c32(0)), c32(0x00400000), normal);
    result =
        b.CreateSelect(b.CreateICmpEQ(u, c32(0xFF)), c32(0x7FC00000), result);
  } else {
    llvm::Value* sign =
        b.CreateShl(b.CreateAnd(u, c32(uint64_t{1} << (f.total_bits - 1))),
                    c32(32 - f.total_bits));
    llvm::Value* magnitude = b.CreateAnd(u, c32(LowMask(f.total_bits - 1)));
    llvm::Value* exponent = b.CreateLShr(magnitude, c32(m));
    llvm::Value* fraction = b.CreateAnd(magnitude, c32(LowMask(m)));
    // Normal: rebias, fraction to the top of f32's.
    llvm::Value* normal = b.CreateOr(
        b.CreateShl(b.CreateAdd(exponent, c32(127 - f.bias)), c32(23)),
        b.CreateShl(fraction, c32(23 - m)));
    // Subnormal (exponent 0): fraction * 2^(1-bias-m), a normal f32 for
    // every format here but bf16 (handled above). uitofp of a small integer
    // is exact; adding to the exponent field scales by a power of two.
    llvm::Value* as_float =
        b.CreateBitCast(b.CreateUIToFP(fraction, b.getFloatTy()), i32);
    llvm::Value* scaled = b.CreateAdd(
        as_float, c32(static_cast<uint32_t>((1 - f.bias - m) * (1 << 23))));
    llvm::Value* subnormal =
        b.CreateSelect(b.CreateICmpEQ(fraction, c32(0)), c32(0), scaled);
    llvm::Value* mag32 =
        b.CreateSelect(b.CreateICmpEQ(exponent, c32(0)), subnormal, normal);
    switch (f.nan) {
      case NanEncoding::kIeee:
        mag32 = b.CreateSelect(
            b.CreateICmpEQ(exponent, c32(LowMask(f.exponent_bits))),
            b.CreateOr(c32(0x7F800000), b.CreateShl(fraction, c32(23 - m))),
            mag32);
        break;
      case NanEncoding::kAllOnes:
        mag32 = b.CreateSelect(
            b.CreateICmpEQ(magnitude, c32(LowMask(f.total_bits - 1))),
            c32(0x7FC00000), mag32);
        break;
      case NanEncoding::kNegativeZero:
        // 0x80..: the magnitude is 0 and the sign set; -NaN.
        mag32 = b.CreateSelect(
            b.CreateICmpEQ(u, c32(uint64_t{1} << (f.total_bits - 1))),
            c32(0x7FC00000), mag32);
        break;
      case NanEncoding::kNone:
        break;
    }
    result = b.CreateOr(sign, mag32);
  }
  return b.CreateBitCast(result, b.getFloatTy());
}

llvm::Value* EmitEncodeMinifloat(EmitContext& ctx, PrimitiveType type,
                                 llvm::Value* value) {
  IRBuilder& b = ctx.b();
  const FloatFormat& f = FormatOf(type);
  llvm::Type* storage = StorageType(ctx.context(), type);
  const bool is_double = value->getType()->isDoubleTy();
  HLOREF_CHECK(is_double || value->getType()->isFloatTy());
  const SourceFormat src =
      is_double ? SourceFormat{64, 52, 1023} : SourceFormat{32, 23, 127};
  llvm::Type* i64 = b.getInt64Ty();
  auto c64 = [&](uint64_t v) { return llvm::ConstantInt::get(i64, v); };
  auto fp = [&](double v) {
    return llvm::ConstantFP::get(value->getType(), v);
  };

  if (!f.has_sign) {
    // f8e8m0fnu (spec's EncodeE8m0), on the value with ordered compares:
    // NaN, <= 0 or >= 1.5 * 2^127 -> 0xFF; below 2^-126 -> 0x00 or 0x01;
    // otherwise the exponent, plus one when the significand >= 1.5.
    llvm::Value* u =
        b.CreateZExt(b.CreateBitCast(value, b.getIntNTy(src.total_bits)), i64);
    llvm::Value* biased = b.CreateLShr(u, c64(src.mantissa_bits));
    llvm::Value* up =
        b.CreateAnd(b.CreateLShr(u, c64(src.mantissa_bits - 1)), c64(1));
    llvm::Value* normal =
        b.CreateAdd(b.CreateSub(biased, c64(src.bias - 127)), up);
    llvm::Value* small =
        b.CreateSelect(b.CreateFCmpOLT(value, fp(0x1.8p-127)), c64(0), c64(1));
    llvm::Value* r =
        b.CreateSelect(b.CreateFCmpOLT(value, fp(0x1p-126)), small, normal);
    llvm::Value* none = b.CreateOr(b.CreateFCmpULE(value, fp(0.0)),
                                   b.CreateFCmpOGE(value, fp(0x1.8p127)));
    r = b.CreateSelect(none, c64(0xFF), r);
    return b.CreateTrunc(r, storage);
  }

  if (type == PrimitiveType::kBF16 && is_double) {
    // bf16 from f64: first to f32 rounding to odd (truncate toward zero,
    // then set the last bit when anything was cut off), then the f32 path
    // below. Rounding to odd at 24 bits keeps every bf16 tie where it is
    // (the intermediate has more than p + 1 = 9 bits, in f32's subnormal
    // range too: 2^-149 is 2^16 below bf16's 2^-133), so the result is
    // the one correct rounding; about ten vector operations where the
    // general path takes forty in 64-bit lanes (bf16 divides, square roots
    // and conversions from f64 compute in double). NaN: fptrunc keeps the
    // sign and the payload's top bits, which is all the f32 path keeps
    // (with the quiet bit as below).
    llvm::Type* f32t = b.getFloatTy();
    llvm::Type* i32 = b.getInt32Ty();
    llvm::Value* f = b.CreateFPTrunc(value, f32t);
    llvm::Value* back = b.CreateFPExt(f, value->getType());
    llvm::Value* fb = b.CreateBitCast(f, i32);
    // Rounded away from zero (inf included): one step back toward zero.
    llvm::Value* away =
        b.CreateFCmpOGT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back),
                        b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, value));
    fb = b.CreateSelect(away, b.CreateSub(fb, llvm::ConstantInt::get(i32, 1)),
                        fb);
    llvm::Value* inexact = b.CreateFCmpONE(back, value);
    fb = b.CreateSelect(inexact, b.CreateOr(fb, llvm::ConstantInt::get(i32, 1)),
                        fb);
    // fptrunc quiets a signalling NaN; the f32 path keeps the payload's top
    // seven bits as they are (the quiet bit set only when all are zero),
    // so f32's quiet bit goes back to f64's, and the last bit (which that
    // path drops) keeps the pattern a NaN.
    llvm::Value* f64_quiet = b.CreateTrunc(
        b.CreateAnd(b.CreateLShr(b.CreateBitCast(value, b.getInt64Ty()), 51),
                    b.getInt64(1)),
        i32);
    fb = b.CreateSelect(
        b.CreateFCmpUNO(value, value),
        b.CreateOr(b.CreateAnd(fb, llvm::ConstantInt::get(i32, ~0x400000u)),
                   b.CreateOr(b.CreateShl(f64_quiet, 22),
                              llvm::ConstantInt::get(i32, 1))),
        fb);
    return EmitEncodeMinifloat(ctx, type, b.CreateBitCast(fb, f32t));
  }

  if (type == PrimitiveType::kBF16 && !is_double) {
    // bf16 from f32: the same exponent field, so rounding the pattern's low
    // 16 bits to nearest even is rounding the value (subnormals, the carry
    // into the exponent and overflow to inf included): (u + 0x7fff + bit
    // 16 of u) >> 16, eight instructions where the general path below
    // takes about forty. A NaN keeps its sign and the fraction's top seven
    // bits, the quiet bit set when those are zero (as below).
    llvm::Type* i32 = b.getInt32Ty();
    auto c32 = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
    llvm::Value* u = b.CreateBitCast(value, i32);
    llvm::Value* high = b.CreateLShr(u, c32(16));
    llvm::Value* rounded = b.CreateLShr(
        b.CreateAdd(b.CreateAdd(u, c32(0x7fff)), b.CreateAnd(high, c32(1))),
        c32(16));
    llvm::Value* nan =
        b.CreateSelect(b.CreateICmpEQ(b.CreateAnd(high, c32(0x7f)), c32(0)),
                       b.CreateOr(high, c32(0x40)), high);
    llvm::Value* is_nan =
        b.CreateICmpUGT(b.CreateAnd(u, c32(0x7fffffff)), c32(0x7f800000));
    return b.CreateTrunc(b.CreateSelect(is_nan, nan, rounded), storage);
  }

  const int m = f.mantissa_bits;
  const uint64_t src_sign_mask = uint64_t{1} << (src.total_bits - 1);
  const uint64_t src_exp_mask = LowMask(src.total_bits - 1 - src.mantissa_bits)
                                << src.mantissa_bits;
  const uint64_t src_frac_mask = LowMask(src.mantissa_bits);
  const uint64_t sign_mask = uint64_t{1} << (f.total_bits - 1);
  const uint64_t magnitude_mask = LowMask(f.exponent_bits + m);
  const uint64_t all_ones_exponent = LowMask(f.exponent_bits) << m;
  const uint64_t max_enc = MaxFiniteEncoding(f);

  llvm::Value* u =
      b.CreateZExt(b.CreateBitCast(value, b.getIntNTy(src.total_bits)), i64);
  llvm::Value* negative =
      b.CreateICmpNE(b.CreateAnd(u, c64(src_sign_mask)), c64(0));
  llvm::Value* sign = b.CreateSelect(negative, c64(sign_mask), c64(0));
  llvm::Value* abs_u = b.CreateAnd(u, c64(~src_sign_mask));

  // Finite values: |value| = significand * 2^(e' - bias - m_src) with
  // e' = max(e, 1) and the implicit bit for normals. A subnormal source lies
  // below every target's smallest normal, so its quantum shift is taken from
  // the target's emin alone (as for any value below emin).
  llvm::Value* exp_field = b.CreateLShr(abs_u, c64(src.mantissa_bits));
  llvm::Value* is_normal = b.CreateICmpNE(exp_field, c64(0));
  llvm::Value* significand = b.CreateOr(
      b.CreateAnd(abs_u, c64(src_frac_mask)),
      b.CreateSelect(is_normal, c64(uint64_t{1} << src.mantissa_bits), c64(0)));
  // Unbiased exponent e' - bias_src (signed, in i64).
  llvm::Value* exponent =
      b.CreateSub(b.CreateSelect(is_normal, exp_field, c64(1)), c64(src.bias));
  const int64_t emin = 1 - f.bias;
  llvm::Value* below_emin =
      b.CreateICmpSLT(exponent, llvm::ConstantInt::getSigned(i64, emin));
  // shift = m_src - m + max(0, emin - exponent), at most 63.
  llvm::Value* extra = b.CreateSelect(
      below_emin,
      b.CreateSub(llvm::ConstantInt::getSigned(i64, emin), exponent), c64(0));
  llvm::Value* shift = b.CreateAdd(extra, c64(src.mantissa_bits - m));
  shift = b.CreateSelect(b.CreateICmpUGT(shift, c64(63)), c64(63), shift);
  llvm::Value* q = b.CreateLShr(significand, shift);
  llvm::Value* rest =
      b.CreateAnd(significand, b.CreateSub(b.CreateShl(c64(1), shift), c64(1)));
  llvm::Value* half = b.CreateShl(c64(1), b.CreateSub(shift, c64(1)));
  llvm::Value* round_up =
      b.CreateOr(b.CreateICmpUGT(rest, half),
                 b.CreateAnd(b.CreateICmpEQ(rest, half),
                             b.CreateICmpNE(b.CreateAnd(q, c64(1)), c64(0))));
  q = b.CreateAdd(q, b.CreateZExt(round_up, i64));
  // Above emin, adding the biased exponent lets a carry out of the fraction
  // bump the exponent.
  llvm::Value* normal_magnitude = b.CreateSub(
      b.CreateAdd(
          b.CreateShl(b.CreateAdd(exponent, c64(static_cast<uint64_t>(f.bias))),
                      c64(m)),
          q),
      c64(uint64_t{1} << m));
  llvm::Value* magnitude = b.CreateSelect(below_emin, q, normal_magnitude);

  // What overflow (and +-inf) gives.
  llvm::Value* overflow_result;
  if (f.has_infinity) {
    overflow_result = b.CreateOr(sign, c64(all_ones_exponent));
  } else if (f.nan == NanEncoding::kNone) {
    overflow_result = b.CreateOr(sign, c64(max_enc));
  } else if (f.nan == NanEncoding::kAllOnes) {
    overflow_result = b.CreateOr(sign, c64(magnitude_mask));
  } else {
    overflow_result = c64(sign_mask);  // fnuz NaN
  }

  llvm::Value* finite = b.CreateOr(sign, magnitude);
  if (!f.has_negative_zero) {
    finite = b.CreateSelect(b.CreateICmpEQ(magnitude, c64(0)), c64(0), finite);
  }
  llvm::Value* r = b.CreateSelect(b.CreateICmpUGT(magnitude, c64(max_enc)),
                                  overflow_result, finite);
  r = b.CreateSelect(b.CreateICmpEQ(abs_u, c64(src_exp_mask)), overflow_result,
                     r);

  // NaN.
  llvm::Value* nan_result = nullptr;
  switch (f.nan) {
    case NanEncoding::kIeee: {
      llvm::Value* payload = b.CreateLShr(
          b.CreateAnd(abs_u, c64(src_frac_mask)), c64(src.mantissa_bits - m));
      payload = b.CreateSelect(b.CreateICmpEQ(payload, c64(0)),
                               c64(uint64_t{1} << (m - 1)), payload);
      nan_result =
          b.CreateOr(b.CreateOr(sign, c64(all_ones_exponent)), payload);
      break;
    }
    case NanEncoding::kAllOnes:
      nan_result = b.CreateOr(sign, c64(magnitude_mask));
      break;
    case NanEncoding::kNegativeZero:
    case NanEncoding::kNone:
      nan_result = c64(sign_mask);
      break;
  }
  r = b.CreateSelect(b.CreateICmpUGT(abs_u, c64(src_exp_mask)), nan_result, r);
  return b.CreateTrunc(r, storage);
}

}  // namespace hloref::codegen
