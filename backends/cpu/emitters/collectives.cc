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
#include "backends/codegen/collectives.h"
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

// The shared family's kinds are the runtime's descriptor kinds.
static_assert(static_cast<int64_t>(codegen::CollectiveOp::kAllReduce) ==
              static_cast<int64_t>(CollectiveKind::kAllReduce));
static_assert(static_cast<int64_t>(codegen::CollectiveOp::kRaggedAllToAll) ==
              static_cast<int64_t>(CollectiveKind::kRaggedAllToAll));
static_assert(static_cast<int64_t>(codegen::CollectiveOp::kAllToAllTuple) ==
              static_cast<int64_t>(CollectiveKind::kAllToAllTuple));

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
        codegen::CollectiveReducer(ctx, inst, *inst.to_apply(),
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

absl::Status EmitCollective(EmitContext& ctx, const HloInstruction& inst,
                            absl::Span<const IrValue> operands,
                            const IrValue& output) {
  switch (inst.opcode()) {
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
      return codegen::EmitCollectiveFamily(
          ctx, inst, operands, output,
          [](EmitContext& c, const HloInstruction& i, codegen::CollectiveOp op,
             const std::vector<IrArray>& in, const std::vector<IrArray>& out,
             bool with_reducer) {
            return EmitCollectiveCall(c, i, static_cast<CollectiveKind>(op), in,
                                      out, with_reducer);
          });
  }
}

}  // namespace

void RegisterCpuCollectiveEmitters(codegen::EmitterTable& table) {
  for (HloOpcode op : codegen::CollectiveFamilyOpcodes()) {
    table.SetBuffer(op, &EmitCollective);
  }
  for (HloOpcode op : {HloOpcode::kReplicaId, HloOpcode::kPartitionId}) {
    table.SetBuffer(op, &EmitCollective);
  }
}

}  // namespace hloref::cpu
