// Verifier: async-start, async-update, async-done, copy-start, copy-done
// (docs/hlo-text-format.md 6.13).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

Shape NoLayout(Shape s) {
  s.ClearLayoutsRecursive();
  return s;
}

absl::StatusOr<Shape> InferAsyncStart(const HloInstruction& inst) {
  const HloComputation* wrapped = inst.to_apply();
  std::vector<Shape> operands;
  for (const HloInstruction* op : inst.operands()) {
    operands.push_back(NoLayout(op->shape()));
  }
  // async-start.C1: the wrapped computation takes the operands.
  if (wrapped == nullptr)
    return Fail(inst, "async-start.C1", "calls is missing");
  HLOREF_RETURN_IF_ERROR(CheckSignature(inst, "async-start.C1", "calls",
                                        wrapped, operands,
                                        ResultShape(*wrapped)));
  // async-start.C2: the shape is ((operands...), result, context...).
  const Shape& s = inst.shape();
  const Shape result = NoLayout(ResultShape(*wrapped));
  if (!s.IsTuple() || s.tuple_size() < 2 ||
      !SameShape(s.tuple_shapes(0), Shape::Tuple(operands)) ||
      !SameShape(s.tuple_shapes(1), result)) {
    return Fail(inst, "async-start.C2", "shape is ", ShapeStr(s),
                ", expected (", ShapeStr(Shape::Tuple(operands)), ", ",
                ShapeStr(result), ", context...)");
  }
  return NoLayout(s);
}

// <op>.C1: the operand is an async-start or async-update.
absl::StatusOr<Shape> InferAsyncFollower(const HloInstruction& inst) {
  const HloInstruction* op = inst.operand(0);
  if (op->opcode() != HloOpcode::kAsyncStart &&
      op->opcode() != HloOpcode::kAsyncUpdate) {
    return Fail(inst, Rule(inst, 1), "operand %", op->name(), " is a ",
                HloOpcodeString(op->opcode()),
                ", expected async-start or async-update");
  }
  const Shape& s = op->shape();
  if (inst.opcode() == HloOpcode::kAsyncUpdate) return NoLayout(s);
  if (!s.IsTuple() || s.tuple_size() < 2) {
    return Fail(inst, Rule(inst, 1), "operand %", op->name(), " has shape ",
                ShapeStr(s), ", expected an async context tuple");
  }
  return NoLayout(s.tuple_shapes(1));
}

}  // namespace

absl::StatusOr<Shape> InferAsync(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kAsyncStart:
      return InferAsyncStart(inst);
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return InferAsyncFollower(inst);
    case HloOpcode::kCopyStart: {
      // copy-start.C1: (destination, source, context) with destination and
      // source of the operand's shape (layouts may differ).
      const Shape& s = inst.shape();
      const Shape& operand = inst.operand(0)->shape();
      if (!s.IsTuple() || s.tuple_size() < 2 ||
          !SameShape(s.tuple_shapes(0), operand) ||
          !SameShape(s.tuple_shapes(1), operand)) {
        return Fail(inst, "copy-start.C1", "shape is ", ShapeStr(s),
                    ", expected (", ShapeStr(operand), ", ", ShapeStr(operand),
                    ", context...)");
      }
      return NoLayout(s);
    }
    case HloOpcode::kCopyDone: {
      // copy-done.C1: the operand is a copy-start; the result is its
      // destination.
      const HloInstruction* op = inst.operand(0);
      if (op->opcode() != HloOpcode::kCopyStart || !op->shape().IsTuple() ||
          op->shape().tuple_size() < 1) {
        return Fail(inst, "copy-done.C1", "operand %", op->name(), " is a ",
                    HloOpcodeString(op->opcode()), ", expected copy-start");
      }
      return NoLayout(op->shape().tuple_shapes(0));
    }
    default:
      return WrongFamily(inst, "async");
  }
}

}  // namespace hloref::verifier_internal
