// The CPU emitters of the host I/O family: infeed, outfeed, send,
// send-done, recv, recv-done (seed 001 "Infeed", "Send", "Recv";
// text-format 6.12 outfeed). Each transfer is one call of
// hloref_cpu_host_transfer (backends/cpu/runtime/host.h) with the value's
// shape descriptor and its array leaves in row-major order (other layouts
// are copied through row-major scratch). The contexts of send / recv are
// (data, u32[] 0, token[]) as the oracle builds them; a device-to-device
// recv leaves its data to recv-done.
#include "backends/cpu/runtime/host.h"

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

// `value` with every array leaf in row-major order: the value itself, or a
// new scratch value.
IrValue RowMajorScratch(EmitContext& ctx, const IrValue& value, bool* copied) {
  if (value.IsTuple()) {
    IrValue v;
    v.shape = value.shape;
    for (const IrValue& e : value.elements) {
      v.elements.push_back(RowMajorScratch(ctx, e, copied));
    }
    return v;
  }
  if (!value.IsArray() || IsRowMajor(value.array)) return value;
  *copied = true;
  Shape s = value.shape;
  s.clear_layout();
  return ctx.AllocateValue(s, "host.rowmajor");
}

absl::Status EmitTransfer(EmitContext& ctx, const HloInstruction& inst,
                          HostTransferKind kind, const IrValue& value,
                          int64_t channel, bool is_host) {
  codegen::IRBuilder& b = ctx.b();
  bool copied = false;
  IrValue rm = RowMajorScratch(ctx, value, &copied);
  const bool reads = kind == kOutfeed || kind == kSend;
  if (copied && reads) HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(value, rm));
  std::vector<IrArray> leaves;
  rm.CollectArrays(&leaves);
  llvm::Value* arr = ctx.EntryAlloca(
      ctx.PtrType(), std::max<int64_t>(1, static_cast<int64_t>(leaves.size())),
      "host.leaves");
  for (size_t i = 0; i < leaves.size(); ++i) {
    b.CreateStore(leaves[i].base(),
                  b.CreateConstInBoundsGEP1_64(ctx.PtrType(), arr, i));
  }
  std::vector<int64_t> desc;
  EncodeShape(value.shape, &desc);
  std::vector<uint64_t> u(desc.begin(), desc.end());
  llvm::Constant* init = llvm::ConstantDataArray::get(ctx.context(), u);
  llvm::Value* shape = new llvm::GlobalVariable(
      ctx.module(), init->getType(), true, llvm::GlobalValue::PrivateLinkage,
      init, absl::StrCat("host.shape.", inst.name()));
  llvm::Value* name = b.CreateGlobalString(inst.name(), "host.name");
  llvm::Type* ptr = ctx.PtrType();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::FunctionType* type = llvm::FunctionType::get(
      b.getVoidTy(), {ptr, i64, ptr, ptr, i64, i64, ptr}, false);
  b.CreateCall(ctx.GetRuntimeFunction("hloref_cpu_host_transfer", type),
               {ctx.run_context(), ctx.I64(kind), shape, name, ctx.I64(channel),
                ctx.I64(is_host ? 1 : 0), arr});
  if (copied && !reads) HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(rm, value));
  return absl::OkStatus();
}

absl::Status Zero(EmitContext& ctx, const IrValue& v) {
  std::vector<IrArray> leaves;
  v.CollectArrays(&leaves);
  for (const IrArray& a : leaves) {
    ctx.b().CreateMemSet(a.base(), ctx.b().getInt8(0), ctx.I64(a.SizeInBytes()),
                         llvm::MaybeAlign(1));
  }
  return absl::OkStatus();
}

absl::Status BadShape(const HloInstruction& inst) {
  return absl::InvalidArgumentError(
      absl::StrCat("%", inst.name(), ": unexpected shape ",
                   inst.shape().ToString(false), " (is the module verified?)"));
}

absl::Status EmitHost(EmitContext& ctx, const HloInstruction& inst,
                      absl::Span<const IrValue> operands,
                      const IrValue& output) {
  const int64_t channel = inst.attrs().channel_id;
  switch (inst.opcode()) {
    case HloOpcode::kInfeed: {
      if (!output.IsTuple() || output.elements.empty()) return BadShape(inst);
      const IrValue& data = output.elements[0];
      // "For an empty tuple shape, the Infeed operation is effectively a
      // no-op and proceeds without reading any data" (seed 001).
      if (data.IsTuple() && data.elements.empty()) return absl::OkStatus();
      return EmitTransfer(ctx, inst, kInfeed, data, 0, true);
    }
    case HloOpcode::kOutfeed:
      if (operands.empty()) return BadShape(inst);
      return EmitTransfer(ctx, inst, kOutfeed, operands[0], 0, true);
    case HloOpcode::kSend: {
      if (operands.empty() || !output.IsTuple() || output.elements.size() < 2) {
        return BadShape(inst);
      }
      HLOREF_RETURN_IF_ERROR(
          ctx.EmitCopyValue(operands[0], output.elements[0]));
      HLOREF_RETURN_IF_ERROR(Zero(ctx, output.elements[1]));
      return EmitTransfer(ctx, inst, kSend, operands[0], channel,
                          inst.attrs().is_host_transfer);
    }
    case HloOpcode::kSendDone:
      // The transfer happened at the send; send-done only orders it.
      return absl::OkStatus();
    case HloOpcode::kRecv: {
      if (!output.IsTuple() || output.elements.size() < 2) {
        return BadShape(inst);
      }
      HLOREF_RETURN_IF_ERROR(Zero(ctx, output.elements[1]));
      if (!inst.attrs().is_host_transfer) {
        return Zero(ctx, output.elements[0]);
      }
      return EmitTransfer(ctx, inst, kRecvHost, output.elements[0], channel,
                          true);
    }
    case HloOpcode::kRecvDone: {
      if (operands.empty() || !output.IsTuple() || output.elements.empty() ||
          !operands[0].IsTuple() || operands[0].elements.empty()) {
        return BadShape(inst);
      }
      const HloInstruction& recv = *inst.operand(0);
      if (recv.opcode() != HloOpcode::kRecv) {
        return absl::UnimplementedError(
            absl::StrCat("%", inst.name(), ": recv-done whose operand is ",
                         HloOpcodeString(recv.opcode()), ", not a recv"));
      }
      if (recv.attrs().is_host_transfer) {
        return ctx.EmitCopyValue(operands[0].elements[0], output.elements[0]);
      }
      return EmitTransfer(ctx, inst, kRecvDoneDevice, output.elements[0],
                          recv.attrs().channel_id, false);
    }
    default:
      return absl::InternalError(absl::StrCat(
          "%", inst.name(), ": not a host transfer of the CPU backend"));
  }
}

}  // namespace

void RegisterCpuHostEmitters(codegen::EmitterTable& table) {
  for (HloOpcode op :
       {HloOpcode::kInfeed, HloOpcode::kOutfeed, HloOpcode::kSend,
        HloOpcode::kSendDone, HloOpcode::kRecv, HloOpcode::kRecvDone}) {
    table.SetBuffer(op, &EmitHost);
  }
}

}  // namespace hloref::cpu
