// Verifier: infeed, outfeed, send, send-done, recv, recv-done (seed 001
// "Infeed", "Outfeed", "Send", "Recv"; tuple forms from
// docs/hlo-text-format.md 6.12).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

Shape Context(const Shape& data) {
  Shape d = data;
  d.ClearLayoutsRecursive();
  return Shape::Tuple({d, Shape::Scalar(PrimitiveType::kU32), Shape::Token()});
}

// <op>.C1: operand `i` is a token.
absl::Status ExpectToken(const HloInstruction& inst, int64_t i) {
  if (!inst.operand(i)->shape().IsToken()) {
    return Fail(inst, Rule(inst, 1), OperandName(inst, i), " is ",
                ShapeStr(inst.operand(i)->shape()), ", expected token[]");
  }
  return absl::OkStatus();
}

// Nested tuples are "not supported" as infeed data.
bool HasNestedTuple(const Shape& data) {
  if (!data.IsTuple()) return false;
  for (const Shape& e : data.tuple_shapes()) {
    if (e.IsTuple()) return true;
  }
  return false;
}

absl::StatusOr<Shape> InferInfeed(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectToken(inst, 0));
  const Shape& s = inst.shape();
  // infeed.C2: the result is (data, token[]).
  if (!s.IsTuple() || s.tuple_size() != 2 || !s.tuple_shapes(1).IsToken()) {
    return Fail(inst, "infeed.C2", "shape is ", ShapeStr(s),
                ", expected (data, token[])");
  }
  // infeed.C3: "Nested tuple shapes are not supported".
  if (HasNestedTuple(s.tuple_shapes(0)) || s.tuple_shapes(0).IsToken()) {
    return Fail(inst, "infeed.C3", "data shape ", ShapeStr(s.tuple_shapes(0)),
                " must be an array or a tuple of arrays");
  }
  Shape out = s;
  out.ClearLayoutsRecursive();
  return out;
}

absl::StatusOr<Shape> InferOutfeed(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectToken(inst, 1));
  // outfeed.C2: outfeed_shape, when given, is the data's shape.
  const Shape& data = inst.operand(0)->shape();
  if (inst.attrs().has(AttrId::kOutfeedShape) &&
      !SameShape(inst.attrs().outfeed_shape, data)) {
    return Fail(inst, "outfeed.C2", "outfeed_shape is ",
                ShapeStr(inst.attrs().outfeed_shape), ", the data is ",
                ShapeStr(data));
  }
  return Shape::Token();
}

absl::StatusOr<Shape> InferRecv(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(ExpectToken(inst, 0));
  const Shape& s = inst.shape();
  // recv.C2: the context is {receive buffer, u32[] request id, token[]}.
  if (!s.IsTuple() || s.tuple_size() != 3 ||
      !SameShape(s, Context(s.tuple_shapes(0)))) {
    return Fail(inst, "recv.C2", "shape is ", ShapeStr(s),
                ", expected (data, u32[], token[])");
  }
  return Context(s.tuple_shapes(0));
}

// <op>.C1 for the -done ops: the operand is the matching start; channel
// ids agree when both are given.
absl::StatusOr<const HloInstruction*> StartOf(const HloInstruction& inst,
                                              HloOpcode start) {
  const HloInstruction* op = inst.operand(0);
  if (op->opcode() != start) {
    return Fail(inst, Rule(inst, 1), "operand %", op->name(), " is a ",
                HloOpcodeString(op->opcode()), ", expected ",
                HloOpcodeString(start));
  }
  if (inst.attrs().has(AttrId::kChannelId) &&
      op->attrs().has(AttrId::kChannelId) &&
      inst.attrs().channel_id != op->attrs().channel_id) {
    return Fail(inst, Rule(inst, 2), "channel_id ", inst.attrs().channel_id,
                " differs from %", op->name(), "'s channel_id ",
                op->attrs().channel_id);
  }
  if (!op->shape().IsTuple() || op->shape().tuple_size() < 1) {
    return Fail(inst, Rule(inst, 1), "operand %", op->name(), " has shape ",
                ShapeStr(op->shape()), ", expected a context tuple");
  }
  return op;
}

}  // namespace

absl::StatusOr<Shape> InferHostIo(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kInfeed:
      return InferInfeed(inst);
    case HloOpcode::kOutfeed:
      return InferOutfeed(inst);
    case HloOpcode::kSend:
      HLOREF_RETURN_IF_ERROR(ExpectToken(inst, 1));
      // Seed: "a tuple of {operand (shape), request identifier (U32)}"
      // plus the token (docs/hlo-text-format.md 6.12).
      return Context(inst.operand(0)->shape());
    case HloOpcode::kRecv:
      return InferRecv(inst);
    case HloOpcode::kSendDone: {
      HLOREF_ASSIGN_OR_RETURN(const HloInstruction* start,
                              StartOf(inst, HloOpcode::kSend));
      (void)start;
      return Shape::Token();
    }
    case HloOpcode::kRecvDone: {
      HLOREF_ASSIGN_OR_RETURN(const HloInstruction* start,
                              StartOf(inst, HloOpcode::kRecv));
      Shape data = start->shape().tuple_shapes(0);
      data.ClearLayoutsRecursive();
      return Shape::Tuple({data, Shape::Token()});
    }
    default:
      return WrongFamily(inst, "host_io");
  }
}

}  // namespace hloref::verifier_internal
