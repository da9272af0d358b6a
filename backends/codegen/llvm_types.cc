#include "backends/codegen/llvm_types.h"

#include "backends/codegen/emit_context.h"
#include "backends/codegen/minifloat_ir.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {

llvm::Type* StorageType(llvm::LLVMContext& c, PrimitiveType type) {
  switch (KindOf(type)) {
    case TypeKind::kPred:
      return llvm::Type::getInt8Ty(c);
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
      return llvm::Type::getIntNTy(c, StorageBytes(type) * 8);
    case TypeKind::kFloat:
      if (type == PrimitiveType::kF32) return llvm::Type::getFloatTy(c);
      if (type == PrimitiveType::kF64) return llvm::Type::getDoubleTy(c);
      return llvm::Type::getIntNTy(c, StorageBytes(type) * 8);
    case TypeKind::kComplex: {
      llvm::Type* e = type == PrimitiveType::kC64 ? llvm::Type::getFloatTy(c)
                                                  : llvm::Type::getDoubleTy(c);
      return llvm::StructType::get(c, {e, e});
    }
    default:
      HLOREF_CHECK(false && "StorageType of a non-array type");
  }
  return nullptr;
}

llvm::Type* ComputeType(llvm::LLVMContext& c, PrimitiveType type) {
  switch (KindOf(type)) {
    case TypeKind::kPred:
      return llvm::Type::getInt1Ty(c);
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
      return llvm::Type::getIntNTy(c, BitWidth(type));
    case TypeKind::kFloat:
      if (type == PrimitiveType::kF64) return llvm::Type::getDoubleTy(c);
      return llvm::Type::getFloatTy(c);
    case TypeKind::kComplex:
      return StorageType(c, type);
    default:
      HLOREF_CHECK(false && "ComputeType of a non-array type");
  }
  return nullptr;
}

llvm::Value* EmitStorageToCompute(EmitContext& ctx, PrimitiveType type,
                                  llvm::Value* storage) {
  IRBuilder& b = ctx.b();
  switch (KindOf(type)) {
    case TypeKind::kPred:
      return b.CreateICmpNE(storage,
                            llvm::ConstantInt::get(storage->getType(), 0));
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
      return BitWidth(type) < StorageBytes(type) * 8
                 ? b.CreateTrunc(storage, ComputeType(ctx.context(), type))
                 : storage;
    case TypeKind::kFloat:
      if (IsMinifloat(type)) return EmitMinifloatToF32(ctx, type, storage);
      return storage;
    default:
      return storage;
  }
}

llvm::Value* EmitComputeToStorage(EmitContext& ctx, PrimitiveType type,
                                  llvm::Value* compute) {
  IRBuilder& b = ctx.b();
  llvm::Type* storage = StorageType(ctx.context(), type);
  switch (KindOf(type)) {
    case TypeKind::kPred:
      return b.CreateZExt(compute, storage);
    case TypeKind::kSigned:
      return compute->getType() == storage ? compute
                                           : b.CreateSExt(compute, storage);
    case TypeKind::kUnsigned:
      return compute->getType() == storage ? compute
                                           : b.CreateZExt(compute, storage);
    case TypeKind::kFloat:
      if (IsMinifloat(type)) return EmitEncodeMinifloat(ctx, type, compute);
      return compute;
    default:
      return compute;
  }
}

llvm::Value* EmitRoundToType(EmitContext& ctx, PrimitiveType type,
                             llvm::Value* value) {
  IRBuilder& b = ctx.b();
  if (IsMinifloat(type)) {
    return EmitMinifloatToF32(ctx, type, EmitEncodeMinifloat(ctx, type, value));
  }
  if (type == PrimitiveType::kF32 && value->getType()->isDoubleTy()) {
    return b.CreateFPTrunc(value, b.getFloatTy());
  }
  return value;
}

llvm::Value* ComputeZero(EmitContext& ctx, PrimitiveType type) {
  llvm::Type* t = ComputeType(ctx.context(), type);
  return llvm::Constant::getNullValue(t);
}

llvm::Value* ComputeOne(EmitContext& ctx, PrimitiveType type) {
  llvm::Type* t = ComputeType(ctx.context(), type);
  if (IsComplex(type)) {
    llvm::Type* e = type == PrimitiveType::kC64 ? ctx.b().getFloatTy()
                                                : ctx.b().getDoubleTy();
    return llvm::ConstantStruct::get(
        llvm::cast<llvm::StructType>(t),
        {llvm::ConstantFP::get(e, 1.0), llvm::ConstantFP::get(e, 0.0)});
  }
  if (t->isFloatingPointTy()) return llvm::ConstantFP::get(t, 1.0);
  return llvm::ConstantInt::get(t, 1);
}

}  // namespace hloref::codegen
