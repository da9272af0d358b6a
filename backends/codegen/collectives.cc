#include "backends/codegen/collectives.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/convert.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {

absl::StatusOr<llvm::Function*> CollectiveReducer(EmitContext& ctx,
                                                  const HloInstruction& inst,
                                                  const HloComputation& comp,
                                                  PrimitiveType type) {
  const HloInstruction* p0 = comp.parameter(0);
  const HloInstruction* p1 = comp.parameter(1);
  const Shape& root = comp.root()->shape();
  if (comp.num_parameters() != 2 || p0 == nullptr || p1 == nullptr ||
      !p0->shape().IsArray() || !p1->shape().IsArray() || !root.IsArray()) {
    return ctx.GetComputationFunction(comp);
  }
  const PrimitiveType t0 = p0->shape().element_type();
  const PrimitiveType t1 = p1->shape().element_type();
  const PrimitiveType tr = root.element_type();
  if (t0 == type && t1 == type && tr == type) {
    return ctx.GetComputationFunction(comp);
  }
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    if (inst.operand(i)->shape().element_type() != type) {
      return absl::UnimplementedError(absl::StrCat(
          "%", inst.name(),
          ": a to_apply in another floating-point precision over operands "
          "of different element types (one reducer per type is not "
          "emitted)"));
    }
  }
  IRBuilder& b = ctx.b();
  llvm::IRBuilderBase::InsertPointGuard guard(b);
  EmitContext::FunctionState* saved_state = ctx.function_state();
  llvm::Value* saved_ctx = ctx.run_context();
  llvm::Type* ptr = ctx.PtrType();
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr}, false);
  llvm::Function* f = llvm::Function::Create(
      fty, llvm::GlobalValue::InternalLinkage,
      absl::StrCat("hloref_reducer_adapter_", inst.name()), &ctx.module());
  f->addFnAttr(llvm::Attribute::NoUnwind);
  EmitContext::FunctionState state;
  state.function = f;
  state.run_context = f->getArg(0);
  ctx.set_function_state(&state);
  ctx.set_run_context(f->getArg(0));
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx.context(), "entry", f));
  auto slot = [&](llvm::Value* array, int64_t k) {
    return b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, array, k));
  };
  const Shape scalar = Shape::Scalar(type);
  const IrArray a(slot(f->getArg(1), 0), scalar);
  const IrArray x(slot(f->getArg(1), 1), scalar);
  const IrArray r(slot(f->getArg(2), 0), scalar);
  absl::StatusOr<llvm::Value*> status_or =
      [&]() -> absl::StatusOr<llvm::Value*> {
    HLOREF_ASSIGN_OR_RETURN(
        llvm::Value * va, EmitConvertValue(ctx, type, t0, a.EmitRead(ctx, {})));
    HLOREF_ASSIGN_OR_RETURN(
        llvm::Value * vx, EmitConvertValue(ctx, type, t1, x.EmitRead(ctx, {})));
    HLOREF_ASSIGN_OR_RETURN(std::vector<llvm::Value*> out,
                            ctx.EmitCallScalarComputation(comp, {va, vx}));
    if (out.size() != 1) {
      return absl::InvalidArgumentError("to_apply must return one scalar");
    }
    return EmitConvertValue(ctx, tr, type, out[0]);
  }();
  if (status_or.ok()) {
    r.EmitWrite(ctx, {}, *status_or);
    for (llvm::Value* p : state.heap_blocks) {
      if (ctx.heap_free) ctx.heap_free(ctx, p);
    }
    b.CreateRetVoid();
  }
  ctx.set_function_state(saved_state);
  ctx.set_run_context(saved_ctx);
  if (!status_or.ok()) {
    f->eraseFromParent();
    return status_or.status();
  }
  return f;
}

namespace {

std::vector<IrArray> Arrays(absl::Span<const IrValue> values) {
  std::vector<IrArray> out;
  for (const IrValue& v : values) v.CollectArrays(&out);
  return out;
}
std::vector<IrArray> Arrays(const IrValue& value) {
  std::vector<IrArray> out;
  value.CollectArrays(&out);
  return out;
}

// Copies the operands into element 0 of a -start's tuple (the operand
// itself for one operand, a tuple of them otherwise).
absl::Status CopyHeldOperands(EmitContext& ctx,
                              absl::Span<const IrValue> operands,
                              const IrValue& held) {
  if (operands.size() == 1) return ctx.EmitCopyValue(operands[0], held);
  if (!held.IsTuple() || held.elements.size() != operands.size()) {
    return absl::InvalidArgumentError(
        "the -start's element 0 does not hold its operands");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(operands[i], held.elements[i]));
  }
  return absl::OkStatus();
}

absl::Status EmitZero(EmitContext& ctx, const IrValue& v) {
  for (const IrArray& a : Arrays(v)) {
    ctx.b().CreateMemSet(a.base(), ctx.b().getInt8(0), ctx.I64(a.SizeInBytes()),
                         llvm::MaybeAlign(1));
  }
  return absl::OkStatus();
}

const IrValue* StartElement(const IrValue& v, size_t i) {
  if (!v.IsTuple() || v.elements.size() <= i) return nullptr;
  return &v.elements[i];
}

absl::Status NotStartTuple(const HloInstruction& inst) {
  return absl::InvalidArgumentError(absl::StrCat(
      "%", inst.name(), ": the value is not the tuple the -start produces"));
}

}  // namespace

absl::Status EmitCollectiveFamily(EmitContext& ctx, const HloInstruction& inst,
                                  absl::Span<const IrValue> operands,
                                  const IrValue& output,
                                  const CollectiveCallEmitter& call) {
  switch (inst.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return call(ctx, inst, CollectiveOp::kAllReduce, Arrays(operands),
                  Arrays(output), true);
    case HloOpcode::kReduceScatter:
      return call(ctx, inst, CollectiveOp::kReduceScatter, Arrays(operands),
                  Arrays(output), true);
    case HloOpcode::kAllGather:
      return call(ctx, inst, CollectiveOp::kAllGather, Arrays(operands),
                  Arrays(output), false);
    case HloOpcode::kAllGatherStart: {
      const IrValue* held = StartElement(output, 0);
      const IrValue* result = StartElement(output, 1);
      if (held == nullptr || result == nullptr) return NotStartTuple(inst);
      HLOREF_RETURN_IF_ERROR(CopyHeldOperands(ctx, operands, *held));
      return call(ctx, inst, CollectiveOp::kAllGather, Arrays(operands),
                  Arrays(*result), false);
    }
    case HloOpcode::kAllToAll:
      return call(ctx, inst,
                  inst.attrs().has(AttrId::kDimensions)
                      ? CollectiveOp::kAllToAllArray
                      : CollectiveOp::kAllToAllTuple,
                  Arrays(operands), Arrays(output), false);
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart: {
      if (inst.attrs().has(AttrId::kSliceSizes)) {
        return absl::UnimplementedError(
            absl::StrCat("%", inst.name(),
                         ": the in-place collective-permute form (with "
                         "slice_sizes) is not compiled"));
      }
      if (inst.opcode() == HloOpcode::kCollectivePermute) {
        return call(ctx, inst, CollectiveOp::kCollectivePermute,
                    Arrays(operands), Arrays(output), false);
      }
      const IrValue* held = StartElement(output, 0);
      const IrValue* result = StartElement(output, 1);
      if (held == nullptr || result == nullptr) return NotStartTuple(inst);
      HLOREF_RETURN_IF_ERROR(CopyHeldOperands(ctx, operands, *held));
      for (size_t i = 2; i < output.elements.size(); ++i) {
        HLOREF_RETURN_IF_ERROR(EmitZero(ctx, output.elements[i]));
      }
      return call(ctx, inst, CollectiveOp::kCollectivePermute, Arrays(operands),
                  Arrays(*result), false);
    }
    case HloOpcode::kCollectiveBroadcast:
      return call(ctx, inst, CollectiveOp::kCollectiveBroadcast,
                  Arrays(operands), Arrays(output), false);
    case HloOpcode::kRaggedAllToAll: {
      std::vector<IrArray> in = Arrays(operands);
      if (in.size() != 6 || !output.IsArray()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", inst.name(), ": ragged-all-to-all takes six arrays"));
      }
      for (size_t i = 2; i < 6; ++i) {
        const PrimitiveType t = in[i].element_type();
        if (t != PrimitiveType::kS32 && t != PrimitiveType::kS64 &&
            t != PrimitiveType::kU32 && t != PrimitiveType::kU64) {
          return absl::UnimplementedError(absl::StrCat(
              "%", inst.name(), ": ragged-all-to-all offsets of type ",
              PrimitiveTypeName(t)));
        }
      }
      return call(ctx, inst, CollectiveOp::kRaggedAllToAll, in, Arrays(output),
                  false);
    }
    case HloOpcode::kAllReduceDone:
      return ctx.EmitCopyValue(operands[0], output);
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone: {
      const IrValue* result = StartElement(operands[0], 1);
      if (result == nullptr) return NotStartTuple(inst);
      return ctx.EmitCopyValue(*result, output);
    }
    default:
      return absl::InternalError(
          absl::StrCat("%", inst.name(), ": not a collective of the family"));
  }
}

absl::Span<const HloOpcode> CollectiveFamilyOpcodes() {
  static constexpr HloOpcode kOps[] = {HloOpcode::kAllReduce,
                                       HloOpcode::kAllReduceStart,
                                       HloOpcode::kAllReduceDone,
                                       HloOpcode::kReduceScatter,
                                       HloOpcode::kAllGather,
                                       HloOpcode::kAllGatherStart,
                                       HloOpcode::kAllGatherDone,
                                       HloOpcode::kAllToAll,
                                       HloOpcode::kCollectivePermute,
                                       HloOpcode::kCollectivePermuteStart,
                                       HloOpcode::kCollectivePermuteDone,
                                       HloOpcode::kCollectiveBroadcast,
                                       HloOpcode::kRaggedAllToAll};
  return kOps;
}

}  // namespace hloref::codegen
