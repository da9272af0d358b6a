// The host I/O family: infeed, outfeed (docs/hlo-text-format.md 6.12),
// send, send-done (seed 001 "Send"), recv, recv-done ("Recv"). The queue
// rules are in host_io.h.
#include "interpreter/ops/host_io.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/host_queues.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

absl::StatusOr<HostQueues*> QueuesFor(const HloInstruction& inst,
                                      EvalContext& ctx,
                                      absl::string_view how_to_fill) {
  HostQueues* queues = ctx.options().host_queues;
  if (queues == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
        " needs host queues, and none were given (EvaluatorOptions::"
        "host_queues",
        how_to_fill, ")"));
  }
  return queues;
}

absl::Status CheckQueuedShape(const HloInstruction& inst, const Literal& value,
                              const Shape& expected, absl::string_view what) {
  if (!value.shape().SameDimensions(expected)) {
    return InstructionError(
        inst, "",
        absl::StrCat(what, " has shape ", value.shape().ToString(false),
                     ", the instruction reads ", expected.ToString(false)));
  }
  return absl::OkStatus();
}

// (data, u32[] request id, token[]): seed 001 Send/Recv contexts.
Literal MakeContext(Literal data) {
  std::vector<Literal> elements;
  elements.push_back(std::move(data));
  elements.push_back(Literal::Zero(PrimitiveType::kU32));
  elements.push_back(Literal::Token());
  return Literal::MakeTuple(std::move(elements));
}

Literal WithToken(Literal data) {
  std::vector<Literal> elements;
  elements.push_back(std::move(data));
  elements.push_back(Literal::Token());
  return Literal::MakeTuple(std::move(elements));
}

int64_t ChannelOf(const HloInstruction& inst) {
  return inst.attrs().channel_id;
}

// Infeed: reads one value of the data shape from the infeed queue.
// Semantics: seed 001 "Infeed".
absl::StatusOr<Literal> EvalInfeed(const HloInstruction& inst,
                                   EvalContext& ctx) {
  const Shape& data_shape = inst.shape().tuple_shapes(0);
  // "For an empty tuple shape, the Infeed operation is effectively a no-op
  // and proceeds without reading any data".
  if (data_shape.IsTuple() && data_shape.tuple_size() == 0) {
    return WithToken(Literal::MakeTuple({}));
  }
  HLOREF_ASSIGN_OR_RETURN(
      HostQueues * queues,
      QueuesFor(inst, ctx, ", or hloref run --infeed=FILE.npy"));
  std::optional<Literal> value = queues->PopInfeed();
  if (!value.has_value()) {
    return InstructionError(
        inst, "",
        absl::StrCat("the infeed queue is empty: no value left for this "
                     "infeed of ",
                     data_shape.ToString(false),
                     " (queue one with HostQueues::PushInfeed or hloref run "
                     "--infeed=FILE.npy)"));
  }
  HLOREF_RETURN_IF_ERROR(
      CheckQueuedShape(inst, *value, data_shape, "the queued infeed value"));
  return WithToken(*std::move(value));
}

// Outfeed: appends the operand to the outfeed list.
// Semantics: docs/hlo-text-format.md 6.12.
absl::StatusOr<Literal> EvalOutfeed(const HloInstruction& inst,
                                    absl::Span<const Literal* const> operands,
                                    EvalContext& ctx) {
  HLOREF_ASSIGN_OR_RETURN(HostQueues * queues, QueuesFor(inst, ctx, ""));
  queues->AppendOutfeed(*operands[0]);
  return Literal::Token();
}

// Send: a host transfer goes to the host's queue for the channel, a
// device transfer to the run's mailbox. Semantics: seed 001 "Send".
absl::StatusOr<Literal> EvalSend(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands,
                                 EvalContext& ctx) {
  const Literal& data = *operands[0];
  if (inst.attrs().is_host_transfer) {
    HLOREF_ASSIGN_OR_RETURN(HostQueues * queues, QueuesFor(inst, ctx, ""));
    queues->AppendSent(ChannelOf(inst), data);
  } else {
    DeviceChannels* channels = ctx.device_channels();
    if (channels == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("%", inst.name(),
                       ": this evaluation context has no device channels"));
    }
    channels->Send(ChannelOf(inst), data);
  }
  return MakeContext(data);
}

// Recv: a host transfer reads the caller's queue for the channel now; a
// device transfer leaves the buffer to recv-done. Semantics: seed 001
// "Recv".
absl::StatusOr<Literal> EvalRecv(const HloInstruction& inst, EvalContext& ctx) {
  const Shape& data_shape = inst.shape().tuple_shapes(0);
  if (!inst.attrs().is_host_transfer) {
    return MakeContext(Literal(data_shape));
  }
  HLOREF_ASSIGN_OR_RETURN(
      HostQueues * queues,
      QueuesFor(inst, ctx, ", or hloref run --recv=CHANNEL:FILE.npy"));
  std::optional<Literal> value = queues->PopRecv(ChannelOf(inst));
  if (!value.has_value()) {
    return InstructionError(
        inst, "",
        absl::StrCat("no value queued for host-to-device channel ",
                     ChannelOf(inst),
                     " (queue one with HostQueues::PushRecv)"));
  }
  HLOREF_RETURN_IF_ERROR(
      CheckQueuedShape(inst, *value, data_shape, "the queued recv value"));
  return MakeContext(*std::move(value));
}

// RecvDone: the received data and a token. Semantics: seed 001 "Recv".
absl::StatusOr<Literal> EvalRecvDone(const HloInstruction& inst,
                                     absl::Span<const Literal* const> operands,
                                     EvalContext& ctx) {
  const HloInstruction& recv = *inst.operand(0);
  const Shape& data_shape = inst.shape().tuple_shapes(0);
  if (recv.attrs().is_host_transfer) {
    return WithToken(operands[0]->tuple_element(0));
  }
  DeviceChannels* channels = ctx.device_channels();
  if (channels == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "%", inst.name(), ": this evaluation context has no device channels"));
  }
  std::optional<Literal> value = channels->Receive(ChannelOf(recv));
  if (!value.has_value()) {
    return InstructionError(
        inst, "",
        absl::StrCat("no send on channel ", ChannelOf(recv),
                     " happened before this recv-done (seed 001: Send happens "
                     "before RecvDone); on a device this would deadlock"));
  }
  HLOREF_RETURN_IF_ERROR(CheckQueuedShape(
      inst, *value, data_shape,
      absl::StrCat("the value sent on channel ", ChannelOf(recv))));
  return WithToken(*std::move(value));
}

}  // namespace

absl::StatusOr<Literal> EvalHostIo(const HloInstruction& inst,
                                   absl::Span<const Literal* const> operands,
                                   EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kInfeed:
      return EvalInfeed(inst, ctx);
    case HloOpcode::kOutfeed:
      return EvalOutfeed(inst, operands, ctx);
    case HloOpcode::kSend:
      return EvalSend(inst, operands, ctx);
    case HloOpcode::kSendDone:
      // The transfer happened at the send; send-done only orders it.
      return Literal::Token();
    case HloOpcode::kRecv:
      return EvalRecv(inst, ctx);
    case HloOpcode::kRecvDone:
      return EvalRecvDone(inst, operands, ctx);
    default:
      return absl::InternalError(absl::StrCat("%", inst.name(), ": ",
                                              HloOpcodeString(inst.opcode()),
                                              " is not in the host_io family"));
  }
}

}  // namespace hloref
