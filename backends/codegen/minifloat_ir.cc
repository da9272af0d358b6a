// (to be written) placeholder until the minifloat IR lands.
#include "backends/codegen/minifloat_ir.h"

#include "backends/codegen/emit_context.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"

namespace hloref::codegen {

llvm::Value* EmitMinifloatToF32(EmitContext& ctx, PrimitiveType type,
                                llvm::Value* bits) {
  return llvm::PoisonValue::get(ctx.b().getFloatTy());
}

llvm::Value* EmitEncodeMinifloat(EmitContext& ctx, PrimitiveType type,
                                 llvm::Value* value) {
  return llvm::PoisonValue::get(StorageType(ctx.context(), type));
}

}  // namespace hloref::codegen
