// The CPU emitters of rng-bit-generator, rng and rng-get-and-update-state:
// buffer emitters that call the rng runtime (backends/cpu/runtime/rng.cc).
// rng and rng-get-and-update-state share the module's generator state, a
// u64[3] {seed, S.low, S.high} global of the compiled module that starts
// at the oracle's default (seed 0, S = seed) and carries over between runs
// of the module, like the oracle's Evaluator-wide state (the run
// context's rng_state replaces it when the backend sets one).
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_emitters.h"
#include "backends/cpu/emitters/emitter_util.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloref::cpu {
namespace {

using codegen::EmitContext;
using codegen::IrArray;
using codegen::IrValue;

constexpr const char* kStateName = "hloref.rng.state";

// The module's generator state (created on first use).
llvm::Value* ModuleState(EmitContext& ctx) {
  if (llvm::GlobalVariable* g = ctx.module().getNamedGlobal(kStateName)) {
    return g;
  }
  auto* type = llvm::ArrayType::get(ctx.b().getInt64Ty(), 3);
  return new llvm::GlobalVariable(ctx.module(), type, /*isConstant=*/false,
                                  llvm::GlobalValue::InternalLinkage,
                                  llvm::ConstantAggregateZero::get(type),
                                  kStateName);
}

absl::Status EmitRngBitGenerator(EmitContext& ctx, const HloInstruction& inst,
                                 absl::Span<const IrValue> operands,
                                 const IrValue& output) {
  if (operands.size() != 1 || !operands[0].IsArray() || !output.IsTuple() ||
      output.elements.size() != 2 || !output.elements[0].IsArray() ||
      !output.elements[1].IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": rng-bit-generator shapes"));
  }
  const IrArray& state = operands[0].array;
  const IrArray& new_state = output.elements[0].array;
  const IrArray& out = output.elements[1].array;
  const std::string& a = inst.attrs().algorithm;
  int32_t algorithm;
  if (a.empty() || a == "rng_default") {
    algorithm = 0;
  } else if (a == "rng_three_fry") {
    algorithm = 1;
  } else if (a == "rng_philox") {
    algorithm = 2;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": unknown algorithm ", a));
  }
  const int64_t words =
      state.shape().rank() == 1 ? state.shape().dimensions(0) : 0;
  if (state.element_type() != PrimitiveType::kU64 ||
      state.shape().rank() != 1 || words < 2 ||
      new_state.shape().dimensions() != state.shape().dimensions() ||
      new_state.element_type() != PrimitiveType::kU64) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": rng-bit-generator state ",
                     state.shape().ToString(), " (is the module verified?)"));
  }
  const PrimitiveType type = out.element_type();
  if (!IsInteger(type)) {
    return absl::UnimplementedError(
        absl::StrCat("%", inst.name(), ": rng-bit-generator output of ",
                     PrimitiveTypeName(type)));
  }
  llvm::Type* ptr = ctx.PtrType();
  llvm::Type* i64 = ctx.b().getInt64Ty();
  llvm::Type* i32 = ctx.b().getInt32Ty();
  llvm::FunctionType* ftype = llvm::FunctionType::get(
      ctx.b().getVoidTy(), {ptr, i32, ptr, i64, ptr, i32, ptr, i64, ptr, ptr},
      false);
  llvm::Function* f =
      ctx.GetRuntimeFunction("hloref_cpu_rng_bit_generator", ftype);
  ctx.b().CreateCall(
      f, {ctx.run_context(), ctx.I32(algorithm), state.base(), ctx.I64(words),
          new_state.base(), ctx.I32(static_cast<int32_t>(type)), out.base(),
          ctx.I64(out.shape().rank()), ConstI64Array(ctx, Dims(out.shape())),
          ConstI64Array(ctx, Strides(out))});
  return absl::OkStatus();
}

absl::Status EmitRng(EmitContext& ctx, const HloInstruction& inst,
                     absl::Span<const IrValue> operands,
                     const IrValue& output) {
  if (operands.size() != 2 || !operands[0].IsArray() ||
      !operands[1].IsArray() || !output.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": rng shapes"));
  }
  const IrArray& out = output.array;
  const PrimitiveType type = out.element_type();
  const bool normal = inst.attrs().distribution == RandomDistribution::kNormal;
  if (operands[0].array.element_type() != type ||
      operands[1].array.element_type() != type ||
      operands[0].shape.num_elements() != 1 ||
      operands[1].shape.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(), ": rng bounds do not fit (is the module verified?)"));
  }
  if (normal ? !IsFloat(type)
             : !(IsFloat(type) || IsInteger(type) || IsPred(type))) {
    return absl::UnimplementedError(absl::StrCat(
        "%", inst.name(), ": ", normal ? "rng_normal" : "rng_uniform", " of ",
        PrimitiveTypeName(type)));
  }
  llvm::Type* ptr = ctx.PtrType();
  llvm::Type* i64 = ctx.b().getInt64Ty();
  llvm::Type* i32 = ctx.b().getInt32Ty();
  llvm::FunctionType* ftype = llvm::FunctionType::get(
      ctx.b().getVoidTy(), {ptr, ptr, i32, i32, ptr, ptr, ptr, i64, ptr, ptr},
      false);
  llvm::Function* f = ctx.GetRuntimeFunction("hloref_cpu_rng", ftype);
  ctx.b().CreateCall(
      f, {ctx.run_context(), ModuleState(ctx), ctx.I32(normal ? 1 : 0),
          ctx.I32(static_cast<int32_t>(type)), operands[0].array.base(),
          operands[1].array.base(), out.base(), ctx.I64(out.shape().rank()),
          ConstI64Array(ctx, Dims(out.shape())),
          ConstI64Array(ctx, Strides(out))});
  return absl::OkStatus();
}

absl::Status EmitRngGetAndUpdateState(EmitContext& ctx,
                                      const HloInstruction& inst,
                                      absl::Span<const IrValue> operands,
                                      const IrValue& output) {
  if (!output.IsArray() || output.array.element_type() != PrimitiveType::kU64 ||
      output.shape.num_elements() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": rng-get-and-update-state result ",
                     output.shape.ToString(), ", expected u64[2]"));
  }
  llvm::Type* ptr = ctx.PtrType();
  llvm::Type* i64 = ctx.b().getInt64Ty();
  llvm::FunctionType* ftype =
      llvm::FunctionType::get(ctx.b().getVoidTy(), {ptr, ptr, i64, ptr}, false);
  llvm::Function* f =
      ctx.GetRuntimeFunction("hloref_cpu_rng_get_and_update_state", ftype);
  ctx.b().CreateCall(f, {ctx.run_context(), ModuleState(ctx),
                         ctx.I64(inst.attrs().delta), output.array.base()});
  return absl::OkStatus();
}

}  // namespace

void RegisterCpuRngEmitters(codegen::EmitterTable& table) {
  table.SetBuffer(HloOpcode::kRngBitGenerator, EmitRngBitGenerator);
  table.SetBuffer(HloOpcode::kRng, EmitRng);
  table.SetBuffer(HloOpcode::kRngGetAndUpdateState, EmitRngGetAndUpdateState);
}

}  // namespace hloref::cpu
