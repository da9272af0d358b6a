#include "backends/cpu/emitters/emitter_util.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloref::cpu {

using codegen::EmitContext;
using codegen::IrArray;

llvm::Value* ConstI64Array(EmitContext& ctx, const std::vector<int64_t>& v) {
  llvm::Type* i64 = ctx.b().getInt64Ty();
  std::vector<llvm::Constant*> elems;
  for (int64_t x : v) elems.push_back(llvm::ConstantInt::get(i64, x));
  if (elems.empty()) elems.push_back(llvm::ConstantInt::get(i64, 0));
  auto* type = llvm::ArrayType::get(i64, elems.size());
  return new llvm::GlobalVariable(ctx.module(), type, /*isConstant=*/true,
                                  llvm::GlobalValue::PrivateLinkage,
                                  llvm::ConstantArray::get(type, elems),
                                  "hloref.consts");
}

std::vector<int64_t> Strides(const IrArray& a) {
  const Shape& s = a.shape();
  std::vector<int64_t> strides(s.rank(), 0);
  int64_t stride = 1;
  for (int64_t d : a.minor_to_major()) {
    strides[d] = stride;
    stride *= s.dimensions(d);
  }
  return strides;
}

std::vector<int64_t> Dims(const Shape& s) {
  return std::vector<int64_t>(s.dimensions().begin(), s.dimensions().end());
}

llvm::Value* PointerArray(EmitContext& ctx,
                          const std::vector<llvm::Value*>& values,
                          const char* name) {
  llvm::Type* ptr = ctx.PtrType();
  llvm::Value* array =
      ctx.EntryAlloca(ptr, std::max<int64_t>(1, values.size()), name);
  for (size_t i = 0; i < values.size(); ++i) {
    ctx.b().CreateStore(values[i],
                        ctx.b().CreateConstInBoundsGEP1_64(ptr, array, i));
  }
  return array;
}

}  // namespace hloref::cpu
