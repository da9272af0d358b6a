// The CPU emitters of the collectives family: every collective of
// spec/ops.def, the async -start / -done pairs, replica-id and
// partition-id. Each collective is one call of hloref_cpu_collective
// (backends/cpu/runtime/collectives.h) with a constant descriptor:
//   [kind, mode, channel_id, dim, #groups, (size, ids...)..., #in,
//    (type, rank, dims...)..., #out, (type, rank, dims...)..., #pairs,
//    (source, target)...]
// Operand and result arrays reach the runtime in row-major order: other
// layouts are copied to and from row-major scratch here. The group mode
// follows text-format 6.11 as the oracle reads it (interpreter/ops/
// collectives.cc): channel_id means cross-partition for all-to-all,
// collective-permute, collective-broadcast and ragged-all-to-all, and
// cross-replica-and-partition (flattened ids with use_global_device_ids)
// for the others.
#include "backends/cpu/runtime/collectives.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/convert.h"
#include "backends/cpu/cpu_emitters.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "spec/ir/collective_groups.h"
#include "spec/util/status_macros.h"

namespace hloref::cpu {
namespace {

using codegen::EmitContext;
using codegen::IrArray;
using codegen::IrValue;

bool IsRowMajor(const IrArray& a) {
  auto m2m = a.minor_to_major();
  for (size_t i = 0; i < m2m.size(); ++i) {
    if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
  }
  return true;
}

Shape RowMajorShape(const Shape& s) {
  Shape r = s;
  r.clear_layout();
  return r;
}

llvm::Value* ConstI64Array(EmitContext& ctx, const std::vector<int64_t>& v,
                           const std::string& name) {
  std::vector<uint64_t> u(v.begin(), v.end());
  if (u.empty()) u.push_back(0);
  llvm::Constant* init = llvm::ConstantDataArray::get(ctx.context(), u);
  return new llvm::GlobalVariable(
      ctx.module(), init->getType(),
      /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage, init, name);
}

llvm::Value* PtrArray(EmitContext& ctx, const std::vector<llvm::Value*>& ptrs,
                      const std::string& name) {
  llvm::Value* arr = ctx.EntryAlloca(
      ctx.PtrType(), std::max<int64_t>(1, static_cast<int64_t>(ptrs.size())),
      name);
  for (size_t i = 0; i < ptrs.size(); ++i) {
    ctx.b().CreateStore(
        ptrs[i], ctx.b().CreateConstInBoundsGEP1_64(ctx.PtrType(), arr, i));
  }
  return arr;
}

IrValue ArrayValue(const IrArray& a) {
  IrValue v;
  v.shape = a.shape();
  v.array = a;
  return v;
}

void AppendArray(const IrArray& a, std::vector<int64_t>* d) {
  d->push_back(static_cast<int64_t>(a.element_type()));
  d->push_back(a.shape().rank());
  for (int64_t x : a.shape().dimensions()) d->push_back(x);
}

// The reducer the runtime calls for `comp` over elements of `type`
// (ReducerFn: (ctx, params, results) on one element each): `comp` itself,
// or, when its parameters or result have another floating-point precision
// (impl.all-reduce.1 / impl.reduce-scatter.1: read as XLA reads it), an
// adapter that converts both arguments to the computation's parameter
// types, calls it and converts the result back to `type`, so the running
// value of the fold is `type` as in the oracle.
absl::StatusOr<llvm::Function*> ReducerFor(EmitContext& ctx,
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
  codegen::IRBuilder& b = ctx.b();
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
        llvm::Value * va,
        codegen::EmitConvertValue(ctx, type, t0, a.EmitRead(ctx, {})));
    HLOREF_ASSIGN_OR_RETURN(
        llvm::Value * vx,
        codegen::EmitConvertValue(ctx, type, t1, x.EmitRead(ctx, {})));
    HLOREF_ASSIGN_OR_RETURN(std::vector<llvm::Value*> out,
                            ctx.EmitCallScalarComputation(comp, {va, vx}));
    if (out.size() != 1) {
      return absl::InvalidArgumentError("to_apply must return one scalar");
    }
    return codegen::EmitConvertValue(ctx, tr, type, out[0]);
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

// Emits the runtime call. `in` / `out`: the operand and result arrays.
absl::Status EmitCollectiveCall(EmitContext& ctx, const HloInstruction& inst,
                                CollectiveKind kind,
                                const std::vector<IrArray>& in,
                                const std::vector<IrArray>& out,
                                bool with_reducer) {
  std::vector<int64_t> desc;
  desc.push_back(static_cast<int64_t>(kind));
  HLOREF_ASSIGN_OR_RETURN(
      CollectiveGroupMode mode,
      CollectiveGroupModeOf(inst, absl::StrCat("%", inst.name(), ": ")));
  desc.push_back(static_cast<int64_t>(mode));
  desc.push_back(HasCollectiveChannel(inst) ? inst.attrs().channel_id : 0);
  int64_t dim = -1;
  if (kind == CollectiveKind::kReduceScatter ||
      kind == CollectiveKind::kAllGather ||
      kind == CollectiveKind::kAllToAllArray) {
    const auto& dims = inst.attrs().dimensions;
    if (dims.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "%", inst.name(), ": dimensions must name one dimension"));
    }
    dim = dims[0];
    for (const IrArray& a : in) {
      if (dim < 0 || dim >= a.shape().rank()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", inst.name(), ": dimension ", dim, " out of range"));
      }
    }
  }
  desc.push_back(dim);
  const auto& groups = inst.attrs().replica_groups.groups;
  desc.push_back(static_cast<int64_t>(groups.size()));
  for (const auto& g : groups) {
    desc.push_back(static_cast<int64_t>(g.size()));
    desc.insert(desc.end(), g.begin(), g.end());
  }
  desc.push_back(static_cast<int64_t>(in.size()));
  for (const IrArray& a : in) AppendArray(a, &desc);
  desc.push_back(static_cast<int64_t>(out.size()));
  for (const IrArray& a : out) AppendArray(a, &desc);
  const auto& pairs = inst.attrs().source_target_pairs;
  desc.push_back(static_cast<int64_t>(pairs.size()));
  for (const auto& [s, t] : pairs) {
    desc.push_back(s);
    desc.push_back(t);
  }

  codegen::IRBuilder& b = ctx.b();
  std::vector<llvm::Value*> in_ptrs, out_ptrs;
  for (const IrArray& a : in) {
    if (IsRowMajor(a)) {
      in_ptrs.push_back(a.base());
      continue;
    }
    IrValue from = ArrayValue(a);
    IrValue tmp = ctx.AllocateValue(RowMajorShape(a.shape()), "coll.in");
    HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(from, tmp));
    in_ptrs.push_back(tmp.array.base());
  }
  std::vector<std::pair<IrValue, IrValue>> copies_out;
  for (const IrArray& a : out) {
    if (IsRowMajor(a)) {
      out_ptrs.push_back(a.base());
      continue;
    }
    IrValue tmp = ctx.AllocateValue(RowMajorShape(a.shape()), "coll.out");
    copies_out.emplace_back(tmp, ArrayValue(a));
    out_ptrs.push_back(tmp.array.base());
  }
  llvm::Value* reducer = llvm::ConstantPointerNull::get(
      llvm::PointerType::getUnqual(ctx.context()));
  if (with_reducer) {
    if (inst.to_apply() == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("%", inst.name(), ": has no to_apply computation"));
    }
    HLOREF_ASSIGN_OR_RETURN(
        llvm::Function * f,
        ReducerFor(ctx, inst, *inst.to_apply(),
                   inst.operand(0)->shape().element_type()));
    reducer = f;
  }
  llvm::Value* desc_global =
      ConstI64Array(ctx, desc, absl::StrCat("coll.desc.", inst.name()));
  llvm::Value* name = b.CreateGlobalString(inst.name(), "coll.name");
  llvm::Value* in_arr = PtrArray(ctx, in_ptrs, "coll.in.ptrs");
  llvm::Value* out_arr = PtrArray(ctx, out_ptrs, "coll.out.ptrs");
  llvm::Type* ptr = ctx.PtrType();
  llvm::FunctionType* type = llvm::FunctionType::get(
      b.getVoidTy(), {ptr, ptr, ptr, ptr, ptr, ptr}, false);
  b.CreateCall(
      ctx.GetRuntimeFunction("hloref_cpu_collective", type),
      {ctx.run_context(), desc_global, name, in_arr, out_arr, reducer});
  for (const auto& [tmp, dst] : copies_out) {
    HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(tmp, dst));
  }
  return absl::OkStatus();
}

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

absl::Status EmitCollective(EmitContext& ctx, const HloInstruction& inst,
                            absl::Span<const IrValue> operands,
                            const IrValue& output) {
  switch (inst.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return EmitCollectiveCall(ctx, inst, CollectiveKind::kAllReduce,
                                Arrays(operands), Arrays(output), true);
    case HloOpcode::kReduceScatter:
      return EmitCollectiveCall(ctx, inst, CollectiveKind::kReduceScatter,
                                Arrays(operands), Arrays(output), true);
    case HloOpcode::kAllGather:
      return EmitCollectiveCall(ctx, inst, CollectiveKind::kAllGather,
                                Arrays(operands), Arrays(output), false);
    case HloOpcode::kAllGatherStart: {
      const IrValue* held = StartElement(output, 0);
      const IrValue* result = StartElement(output, 1);
      if (held == nullptr || result == nullptr) return NotStartTuple(inst);
      HLOREF_RETURN_IF_ERROR(CopyHeldOperands(ctx, operands, *held));
      return EmitCollectiveCall(ctx, inst, CollectiveKind::kAllGather,
                                Arrays(operands), Arrays(*result), false);
    }
    case HloOpcode::kAllToAll:
      return EmitCollectiveCall(ctx, inst,
                                inst.attrs().has(AttrId::kDimensions)
                                    ? CollectiveKind::kAllToAllArray
                                    : CollectiveKind::kAllToAllTuple,
                                Arrays(operands), Arrays(output), false);
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart: {
      if (inst.attrs().has(AttrId::kSliceSizes)) {
        return absl::UnimplementedError(
            absl::StrCat("%", inst.name(),
                         ": the in-place collective-permute form (with "
                         "slice_sizes) on the CPU backend"));
      }
      if (inst.opcode() == HloOpcode::kCollectivePermute) {
        return EmitCollectiveCall(ctx, inst, CollectiveKind::kCollectivePermute,
                                  Arrays(operands), Arrays(output), false);
      }
      const IrValue* held = StartElement(output, 0);
      const IrValue* result = StartElement(output, 1);
      if (held == nullptr || result == nullptr) return NotStartTuple(inst);
      HLOREF_RETURN_IF_ERROR(CopyHeldOperands(ctx, operands, *held));
      for (size_t i = 2; i < output.elements.size(); ++i) {
        HLOREF_RETURN_IF_ERROR(EmitZero(ctx, output.elements[i]));
      }
      return EmitCollectiveCall(ctx, inst, CollectiveKind::kCollectivePermute,
                                Arrays(operands), Arrays(*result), false);
    }
    case HloOpcode::kCollectiveBroadcast:
      return EmitCollectiveCall(ctx, inst, CollectiveKind::kCollectiveBroadcast,
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
      return EmitCollectiveCall(ctx, inst, CollectiveKind::kRaggedAllToAll, in,
                                Arrays(output), false);
    }
    case HloOpcode::kAllReduceDone:
      return ctx.EmitCopyValue(operands[0], output);
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone: {
      const IrValue* result = StartElement(operands[0], 1);
      if (result == nullptr) return NotStartTuple(inst);
      return ctx.EmitCopyValue(*result, output);
    }
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId: {
      if (!output.IsArray() ||
          output.array.element_type() != PrimitiveType::kU32) {
        return absl::UnimplementedError(
            absl::StrCat("%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
                         " of shape ", inst.shape().ToString(false)));
      }
      codegen::IRBuilder& b = ctx.b();
      llvm::FunctionType* type =
          llvm::FunctionType::get(b.getInt32Ty(), {ctx.PtrType()}, false);
      llvm::Value* id = b.CreateCall(
          ctx.GetRuntimeFunction(inst.opcode() == HloOpcode::kReplicaId
                                     ? "hloref_cpu_replica_id"
                                     : "hloref_cpu_partition_id",
                                 type),
          {ctx.run_context()});
      b.CreateStore(id, output.array.base());
      return absl::OkStatus();
    }
    default:
      return absl::InternalError(absl::StrCat(
          "%", inst.name(), ": not a collective of the CPU backend"));
  }
}

}  // namespace

void RegisterCpuCollectiveEmitters(codegen::EmitterTable& table) {
  for (HloOpcode op :
       {HloOpcode::kAllReduce, HloOpcode::kAllReduceStart,
        HloOpcode::kAllReduceDone, HloOpcode::kReduceScatter,
        HloOpcode::kAllGather, HloOpcode::kAllGatherStart,
        HloOpcode::kAllGatherDone, HloOpcode::kAllToAll,
        HloOpcode::kCollectivePermute, HloOpcode::kCollectivePermuteStart,
        HloOpcode::kCollectivePermuteDone, HloOpcode::kCollectiveBroadcast,
        HloOpcode::kRaggedAllToAll, HloOpcode::kReplicaId,
        HloOpcode::kPartitionId}) {
    table.SetBuffer(op, &EmitCollective);
  }
}

}  // namespace hloref::cpu
