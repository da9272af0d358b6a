// LLVM IR for the narrow float formats (f16, bf16, every f8, f6, f4):
// decoding an encoding to f32, and correctly rounded encoding from f32 and
// f64, by integer bit manipulation (no hardware conversions: they quiet
// signalling NaNs and flush on some targets). The format parameters come
// from spec/types/minifloat.h's FloatFormat; the rounding and overflow
// rules are the ones its header states for EncodeFloat (kXla).
#ifndef HLOREF_BACKENDS_CODEGEN_MINIFLOAT_IR_H_
#define HLOREF_BACKENDS_CODEGEN_MINIFLOAT_IR_H_

#include "spec/types/primitive_type.h"

namespace llvm {
class Value;
}  // namespace llvm

namespace hloref::codegen {

class EmitContext;

// `bits`: the storage integer (i8 or i16). Returns the exact f32 value
// (NaN payload bits at the top of the f32 fraction, sign kept).
llvm::Value* EmitMinifloatToF32(EmitContext& ctx, PrimitiveType type,
                                llvm::Value* bits);
// `value`: float or double. Returns the encoding as the storage integer.
// One correct rounding of `value` (round to nearest even on the type's
// grid; overflow and NaN rules of EncodeFloat with OverflowMode::kXla).
llvm::Value* EmitEncodeMinifloat(EmitContext& ctx, PrimitiveType type,
                                 llvm::Value* value);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_MINIFLOAT_IR_H_
