#include "backends/gpu/gpu_host_steps.h"

#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/ir_value.h"
#include "backends/cpu/runtime/custom_call.h"
#include "backends/cpu/runtime/host.h"
#include "backends/cpu/runtime/run_context.h"
#include "spec/ir/annotation_custom_calls.h"
#include "spec/types/literal.h"
#include "spec/util/status_macros.h"

namespace hloref::gpu {

// One run's state: the CPU runtime's run context (host transfers, and the
// key of the run's device-to-device channels).
struct HostStepContext {
  cpu::RunContext cpu;
};

HostStepRun::HostStepRun(backends::HostTransfers* host)
    : context_(std::make_unique<HostStepContext>()) {
  context_->cpu.host = host;
}

HostStepRun::~HostStepRun() { cpu::ReleaseDeviceChannels(&context_->cpu); }

namespace {

// The host transfer kinds of hloref_cpu_host_transfer (host.h).
using enum cpu::HostTransferKind;

bool IsRowMajor(const Shape& s) {
  const Layout l = s.LayoutOrDefault();
  return static_cast<int64_t>(l.minor_to_major.size()) != s.rank() ||
         l.IsDescending();
}

std::vector<Shape> Leaves(const Shape& shape) {
  std::vector<Shape> out;
  codegen::CollectArrayShapes(shape, &out);
  return out;
}

// Physical bytes (in `s`'s layout) -> row-major, and back.
std::vector<uint8_t> ToRowMajor(const std::vector<uint8_t>& physical,
                                const Shape& s) {
  if (IsRowMajor(s)) return physical;
  Literal lit = codegen::PhysicalToLiteral(physical.data(), s);
  return std::vector<uint8_t>(lit.raw().begin(), lit.raw().end());
}
void FromRowMajor(const std::vector<uint8_t>& row_major, const Shape& s,
                  std::vector<uint8_t>* physical) {
  if (IsRowMajor(s)) {
    std::memcpy(physical->data(), row_major.data(), physical->size());
    return;
  }
  Shape plain = s;
  plain.clear_layout();
  Literal lit(plain);
  if (!row_major.empty()) {
    std::memcpy(lit.mutable_raw().data(), row_major.data(), row_major.size());
  }
  codegen::LiteralToPhysical(lit, s, physical->data());
}

// One hloref_cpu_host_transfer of the value of `shape` whose array leaves
// are `leaves` (physical, in their shapes' layouts; read for outfeed and
// send, written otherwise).
absl::Status Transfer(HostStepContext& context, const std::string& name,
                      cpu::HostTransferKind kind, const Shape& shape,
                      const std::vector<Shape>& leaf_shapes,
                      absl::Span<std::vector<uint8_t>* const> leaves,
                      int64_t channel, bool is_host) {
  const bool reads = kind == kOutfeed || kind == kSend;
  std::vector<std::vector<uint8_t>> row_major(leaves.size());
  std::vector<void*> pointers;
  for (size_t i = 0; i < leaves.size(); ++i) {
    row_major[i] = reads ? ToRowMajor(*leaves[i], leaf_shapes[i])
                         : std::vector<uint8_t>(leaves[i]->size());
    pointers.push_back(row_major[i].data());
  }
  std::vector<int64_t> desc;
  cpu::EncodeShape(shape, &desc);
  hloref_cpu_host_transfer(&context.cpu, kind, desc.data(), name.c_str(),
                           channel, is_host ? 1 : 0, pointers.data());
  HLOREF_RETURN_IF_ERROR(context.cpu.error());
  if (!reads) {
    for (size_t i = 0; i < leaves.size(); ++i) {
      FromRowMajor(row_major[i], leaf_shapes[i], leaves[i]);
    }
  }
  return absl::OkStatus();
}

absl::Status BadShape(const HloInstruction& inst) {
  return absl::InvalidArgumentError(
      absl::StrCat("%", inst.name(), ": unexpected shape ",
                   inst.shape().ToString(false), " (is the module verified?)"));
}

// The ABI pointer of a value of `shape` whose array leaves are consumed
// from `leaves` at *next: the buffer, a table of element pointers for a
// tuple (kept in `tables`), null for a token.
void* AbiPointer(const Shape& shape, absl::Span<uint8_t* const> leaves,
                 size_t* next, std::deque<std::vector<void*>>* tables) {
  if (shape.IsArray()) return leaves[(*next)++];
  if (!shape.IsTuple()) return nullptr;
  std::vector<void*> table;
  for (const Shape& e : shape.tuple_shapes()) {
    table.push_back(AbiPointer(e, leaves, next, tables));
  }
  if (table.empty()) table.push_back(nullptr);
  tables->push_back(std::move(table));
  return tables->back().data();
}

absl::StatusOr<HostStep> PlanCustomCall(const HloInstruction& inst) {
  const std::string target = inst.attrs().custom_call_target;
  // Resolved now, so an unknown target is Unimplemented at compile time.
  absl::StatusOr<void*> fn = cpu::ResolveCustomCallTarget(
      inst.name(), target, inst.attrs().api_version);
  if (!fn.ok()) return fn.status();
  std::vector<Shape> operand_shapes;
  for (const HloInstruction* op : inst.operands()) {
    operand_shapes.push_back(op->shape());
  }
  const Shape result = inst.shape();
  const std::string name = inst.name();
  const std::vector<Shape> out_leaves = Leaves(result);
  HostStep step;
  step.run = [=](HostStepContext& context,
                 absl::Span<const std::vector<uint8_t>> in,
                 absl::Span<std::vector<uint8_t>> out) -> absl::Status {
    // The target may write to its operands' buffers (the CPU passes its
    // own); give it copies.
    std::vector<std::vector<uint8_t>> operands(in.begin(), in.end());
    std::vector<uint8_t*> in_leaves;
    for (auto& v : operands) in_leaves.push_back(v.data());
    std::vector<uint8_t*> out_ptrs;
    for (auto& v : out) out_ptrs.push_back(v.data());
    std::deque<std::vector<void*>> tables;
    std::vector<void*> in_pointers;
    size_t next = 0;
    for (const Shape& s : operand_shapes) {
      in_pointers.push_back(AbiPointer(s, in_leaves, &next, &tables));
    }
    size_t out_next = 0;
    void* out_pointer = AbiPointer(result, out_ptrs, &out_next, &tables);
    std::vector<int64_t> types, elems;
    std::vector<void*> leaves;
    for (size_t i = 0; i < out_leaves.size(); ++i) {
      types.push_back(static_cast<int64_t>(out_leaves[i].element_type()));
      elems.push_back(out_leaves[i].num_elements());
      leaves.push_back(out_ptrs[i]);
    }
    hloref_cpu_custom_call(&context.cpu, target.c_str(), name.c_str(),
                           out_pointer,
                           in_pointers.empty() ? nullptr : in_pointers.data(),
                           static_cast<int64_t>(leaves.size()), types.data(),
                           elems.data(), leaves.data());
    return context.cpu.error();
  };
  return step;
}

absl::StatusOr<HostStep> PlanTransfer(const HloInstruction& inst) {
  const std::string name = inst.name();
  const int64_t channel = inst.attrs().channel_id;
  const Shape& shape = inst.shape();
  HostStep step;
  switch (inst.opcode()) {
    case HloOpcode::kInfeed: {
      if (!shape.IsTuple() || shape.tuple_size() < 1) return BadShape(inst);
      const Shape data = shape.tuple_shapes(0);
      // "For an empty tuple shape, the Infeed operation is effectively a
      // no-op and proceeds without reading any data" (seed 001).
      if (data.IsTuple() && data.tuple_size() == 0) return step;
      const std::vector<Shape> leaves = Leaves(data);
      step.run = [=](HostStepContext& context,
                     absl::Span<const std::vector<uint8_t>>,
                     absl::Span<std::vector<uint8_t>> out) -> absl::Status {
        std::vector<std::vector<uint8_t>*> p;
        for (size_t i = 0; i < leaves.size(); ++i) p.push_back(&out[i]);
        return Transfer(context, name, kInfeed, data, leaves, p, 0, true);
      };
      return step;
    }
    case HloOpcode::kOutfeed: {
      if (inst.operand_count() < 1) return BadShape(inst);
      const Shape data = inst.operand(0)->shape();
      const std::vector<Shape> leaves = Leaves(data);
      step.run = [=](HostStepContext& context,
                     absl::Span<const std::vector<uint8_t>> in,
                     absl::Span<std::vector<uint8_t>>) -> absl::Status {
        std::vector<std::vector<uint8_t>> copies(in.begin(),
                                                 in.begin() + leaves.size());
        std::vector<std::vector<uint8_t>*> p;
        for (auto& c : copies) p.push_back(&c);
        return Transfer(context, name, kOutfeed, data, leaves, p, 0, true);
      };
      return step;
    }
    case HloOpcode::kSend: {
      if (inst.operand_count() < 1 || !shape.IsTuple() ||
          shape.tuple_size() < 2) {
        return BadShape(inst);
      }
      const Shape data = inst.operand(0)->shape();
      const std::vector<Shape> leaves = Leaves(data);
      const bool is_host = inst.attrs().is_host_transfer;
      step.run = [=](HostStepContext& context,
                     absl::Span<const std::vector<uint8_t>> in,
                     absl::Span<std::vector<uint8_t>> out) -> absl::Status {
        // The result's data is the operand (the context u32 stays zero).
        std::vector<std::vector<uint8_t>> copies(in.begin(),
                                                 in.begin() + leaves.size());
        for (size_t i = 0; i < leaves.size(); ++i) out[i] = copies[i];
        std::vector<std::vector<uint8_t>*> p;
        for (auto& c : copies) p.push_back(&c);
        return Transfer(context, name, kSend, data, leaves, p, channel,
                        is_host);
      };
      return step;
    }
    case HloOpcode::kSendDone:
      // The transfer happened at the send; send-done only orders it.
      return step;
    case HloOpcode::kRecv: {
      if (!shape.IsTuple() || shape.tuple_size() < 2) return BadShape(inst);
      const Shape data = shape.tuple_shapes(0);
      const std::vector<Shape> leaves = Leaves(data);
      // Not a host transfer: the data is left zero (recv-done receives).
      if (!inst.attrs().is_host_transfer) {
        step.run = [](HostStepContext&, absl::Span<const std::vector<uint8_t>>,
                      absl::Span<std::vector<uint8_t>>) {
          return absl::OkStatus();
        };
        return step;
      }
      step.run = [=](HostStepContext& context,
                     absl::Span<const std::vector<uint8_t>>,
                     absl::Span<std::vector<uint8_t>> out) -> absl::Status {
        std::vector<std::vector<uint8_t>*> p;
        for (size_t i = 0; i < leaves.size(); ++i) p.push_back(&out[i]);
        return Transfer(context, name, kRecvHost, data, leaves, p, channel,
                        true);
      };
      return step;
    }
    case HloOpcode::kRecvDone: {
      if (inst.operand_count() < 1 || !shape.IsTuple() ||
          shape.tuple_size() < 1 || !inst.operand(0)->shape().IsTuple()) {
        return BadShape(inst);
      }
      const HloInstruction& recv = *inst.operand(0);
      if (recv.opcode() != HloOpcode::kRecv) {
        return absl::UnimplementedError(
            absl::StrCat("%", name, ": recv-done whose operand is ",
                         HloOpcodeString(recv.opcode()), ", not a recv"));
      }
      const Shape data = shape.tuple_shapes(0);
      const std::vector<Shape> leaves = Leaves(data);
      if (recv.attrs().is_host_transfer) {
        // The data arrived at the recv: copied from its result.
        step.run = [=](HostStepContext&,
                       absl::Span<const std::vector<uint8_t>> in,
                       absl::Span<std::vector<uint8_t>> out) -> absl::Status {
          for (size_t i = 0; i < leaves.size(); ++i) out[i] = in[i];
          return absl::OkStatus();
        };
        return step;
      }
      const int64_t recv_channel = recv.attrs().channel_id;
      step.run = [=](HostStepContext& context,
                     absl::Span<const std::vector<uint8_t>>,
                     absl::Span<std::vector<uint8_t>> out) -> absl::Status {
        std::vector<std::vector<uint8_t>*> p;
        for (size_t i = 0; i < leaves.size(); ++i) p.push_back(&out[i]);
        return Transfer(context, name, kRecvDoneDevice, data, leaves, p,
                        recv_channel, false);
      };
      return step;
    }
    default:
      return absl::InternalError(
          absl::StrCat("%", name, ": not a host transfer"));
  }
}

}  // namespace

absl::StatusOr<std::optional<HostStep>> PlanHostStep(
    const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kCustomCall: {
      if (IsAnnotationCustomCall(inst)) return std::nullopt;
      HLOREF_ASSIGN_OR_RETURN(HostStep step, PlanCustomCall(inst));
      return step;
    }
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone: {
      HLOREF_ASSIGN_OR_RETURN(HostStep step, PlanTransfer(inst));
      return step;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace hloref::gpu
