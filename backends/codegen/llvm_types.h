// How HLO element types live in generated code.
//
// Two representations per element type:
//   storage  what a buffer holds (identical to Literal storage, see
//            ir_value.h): i8 for pred and every sub-byte or 8-bit type, i16
//            for f16/bf16 bit patterns, float/double, {float,float} and
//            {double,double} for c64/c128, iN for the other integers.
//   compute  what element generators pass around:
//            pred                    i1
//            sN / uN                 iN (i1, i2, i4, i8, ..., i64): LLVM's
//                                    arithmetic on iN wraps exactly at N bits;
//                                    signedness comes from the HLO type
//            f16, bf16, f8*, f6*, f4 float: the exact value of the encoding
//                                    (decoding is exact, NaN payloads go to
//                                    the top of the f32 fraction so encoding
//                                    gives the same bits back)
//            f32 / f64               float / double
//            c64 / c128              {float, float} / {double, double}
//
// An op whose result type is a minifloat computes in f32 (or f64 where one
// rounding in f32 is not enough) and calls EmitRoundToType once, so the
// compute value is always a value of the type.
#ifndef HLOREF_BACKENDS_CODEGEN_LLVM_TYPES_H_
#define HLOREF_BACKENDS_CODEGEN_LLVM_TYPES_H_

#include "spec/types/primitive_type.h"

namespace llvm {
class LLVMContext;
class Type;
class Value;
}  // namespace llvm

namespace hloref::codegen {

class EmitContext;

llvm::Type* StorageType(llvm::LLVMContext& context, PrimitiveType type);
llvm::Type* ComputeType(llvm::LLVMContext& context, PrimitiveType type);

// Storage <-> compute. For minifloats these call the minifloat IR of
// minifloat_ir.h (bit-exact both ways).
llvm::Value* EmitStorageToCompute(EmitContext& ctx, PrimitiveType type,
                                  llvm::Value* storage);
llvm::Value* EmitComputeToStorage(EmitContext& ctx, PrimitiveType type,
                                  llvm::Value* compute);

// For a minifloat `type`: rounds an f32 or f64 value (correctly, once, with
// the overflow rules of spec/types/minifloat.h's EncodeFloat, kXla mode) to
// the type and returns it as the compute f32. For f32/f64 results from f64
// sources: fptrunc. Other types: returned unchanged.
llvm::Value* EmitRoundToType(EmitContext& ctx, PrimitiveType type,
                             llvm::Value* value);

// Constants in the compute representation.
llvm::Value* ComputeZero(EmitContext& ctx, PrimitiveType type);
llvm::Value* ComputeOne(EmitContext& ctx, PrimitiveType type);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_LLVM_TYPES_H_
