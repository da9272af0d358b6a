// The CPU emitter of custom-call: targets of user-named shared libraries
// with seed 001's C ABI `void target(void* out, void** in)` (see
// backends/cpu/runtime/custom_call.h). The buffers are the backend's own,
// already in each shape's layout; a tuple operand or result is passed as
// an array of pointers to its elements' buffers (recursively). Result
// buffers are zeroed before the call. A target no library exports, or an
// api_version other than API_VERSION_ORIGINAL, is Unimplemented naming the
// target. Annotation targets (Sharding, MoveToHost, ...) copy their operand.
#include "backends/cpu/runtime/custom_call.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_emitters.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "spec/ir/annotation_custom_calls.h"
#include "spec/util/status_macros.h"

namespace hloref::cpu {
namespace {

using codegen::EmitContext;
using codegen::IrArray;
using codegen::IrValue;

// The ABI pointer of a value: its buffer, a table of element pointers for
// a tuple, null for a token.
llvm::Value* AbiPointer(EmitContext& ctx, const IrValue& v) {
  if (v.IsArray()) return v.array.base();
  if (!v.IsTuple()) {
    return llvm::ConstantPointerNull::get(
        llvm::PointerType::getUnqual(ctx.context()));
  }
  std::vector<llvm::Value*> elements;
  for (const IrValue& e : v.elements) elements.push_back(AbiPointer(ctx, e));
  llvm::Value* table = ctx.EntryAlloca(
      ctx.PtrType(),
      std::max<int64_t>(1, static_cast<int64_t>(elements.size())), "cc.table");
  for (size_t i = 0; i < elements.size(); ++i) {
    ctx.b().CreateStore(elements[i], ctx.b().CreateConstInBoundsGEP1_64(
                                         ctx.PtrType(), table, i));
  }
  return table;
}

llvm::Value* I64Global(EmitContext& ctx, const std::vector<int64_t>& v,
                       const std::string& name) {
  std::vector<uint64_t> u(v.begin(), v.end());
  if (u.empty()) u.push_back(0);
  llvm::Constant* init = llvm::ConstantDataArray::get(ctx.context(), u);
  return new llvm::GlobalVariable(ctx.module(), init->getType(), true,
                                  llvm::GlobalValue::PrivateLinkage, init,
                                  name);
}

absl::Status EmitCustomCall(EmitContext& ctx, const HloInstruction& inst,
                            absl::Span<const IrValue> operands,
                            const IrValue& output) {
  const std::string& target = inst.attrs().custom_call_target;
  // Annotations XLA removes before codegen (Sharding, MoveToHost, ...:
  // spec/ir/annotation_custom_calls.h): a copy of the operand into the
  // result's buffer (and layout).
  if (FindAnnotationCustomCall(target) != nullptr) {
    absl::Status identity = CheckAnnotationCustomCall(inst);
    if (!identity.ok()) {
      return absl::Status(identity.code(), absl::StrCat("%", inst.name(), ": ",
                                                        identity.message()));
    }
    return ctx.EmitCopyValue(operands[0], output);
  }
  // Resolved now, so an unknown target is Unimplemented at compile time.
  absl::StatusOr<void*> fn =
      ResolveCustomCallTarget(inst.name(), target, inst.attrs().api_version);
  if (!fn.ok()) return fn.status();
  codegen::IRBuilder& b = ctx.b();
  std::vector<IrArray> leaves;
  output.CollectArrays(&leaves);
  std::vector<int64_t> types, elems;
  for (const IrArray& a : leaves) {
    b.CreateMemSet(a.base(), b.getInt8(0), ctx.I64(a.SizeInBytes()),
                   llvm::MaybeAlign(1));
    types.push_back(static_cast<int64_t>(a.element_type()));
    elems.push_back(a.shape().num_elements());
  }
  std::vector<llvm::Value*> in;
  for (const IrValue& v : operands) in.push_back(AbiPointer(ctx, v));
  llvm::Value* in_arr = ctx.EntryAlloca(
      ctx.PtrType(), std::max<int64_t>(1, static_cast<int64_t>(in.size())),
      "cc.in");
  for (size_t i = 0; i < in.size(); ++i) {
    b.CreateStore(in[i],
                  b.CreateConstInBoundsGEP1_64(ctx.PtrType(), in_arr, i));
  }
  llvm::Value* out = AbiPointer(ctx, output);
  llvm::Value* leaf_arr = ctx.EntryAlloca(
      ctx.PtrType(), std::max<int64_t>(1, static_cast<int64_t>(leaves.size())),
      "cc.leaves");
  for (size_t i = 0; i < leaves.size(); ++i) {
    b.CreateStore(leaves[i].base(),
                  b.CreateConstInBoundsGEP1_64(ctx.PtrType(), leaf_arr, i));
  }
  llvm::Type* ptr = ctx.PtrType();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::FunctionType* type = llvm::FunctionType::get(
      b.getVoidTy(), {ptr, ptr, ptr, ptr, ptr, i64, ptr, ptr, ptr}, false);
  b.CreateCall(
      ctx.GetRuntimeFunction("hloref_cpu_custom_call", type),
      {ctx.run_context(), b.CreateGlobalString(target, "cc.target"),
       b.CreateGlobalString(inst.name(), "cc.name"), out,
       in.empty() ? static_cast<llvm::Value*>(llvm::ConstantPointerNull::get(
                        llvm::PointerType::getUnqual(ctx.context())))
                  : in_arr,
       ctx.I64(static_cast<int64_t>(leaves.size())),
       I64Global(ctx, types, "cc.types"), I64Global(ctx, elems, "cc.elems"),
       leaf_arr});
  return absl::OkStatus();
}

}  // namespace

void RegisterCpuCustomCallEmitters(codegen::EmitterTable& table) {
  table.SetBuffer(HloOpcode::kCustomCall, &EmitCustomCall);
}

}  // namespace hloref::cpu
