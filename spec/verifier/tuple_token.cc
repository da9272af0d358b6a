// Verifier: tuple, get-tuple-element, after-all, add-dependency, constant,
// parameter, domain, opt-barrier (seed 001 "Tuple", "GetTupleElement",
// "AfterAll", "OptimizationBarrier"; the others from
// docs/hlo-text-format.md 4 and 6.8).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

Shape WithoutLayouts(Shape s) {
  s.ClearLayoutsRecursive();
  return s;
}

absl::StatusOr<Shape> InferGetTupleElement(const HloInstruction& inst) {
  const Shape& t = inst.operand(0)->shape();
  // get-tuple-element.C1: the operand is a tuple.
  if (!t.IsTuple()) {
    return Fail(inst, "get-tuple-element.C1", "operand is ", ShapeStr(t),
                ", expected a tuple");
  }
  // get-tuple-element.C2: index in [0, tuple size).
  const int64_t index = inst.attrs().index;
  if (index < 0 || index >= t.tuple_size()) {
    return Fail(inst, "get-tuple-element.C2", "index is ", index,
                ", the tuple has ", t.tuple_size(), " elements");
  }
  return WithoutLayouts(t.tuple_shapes(index));
}

absl::StatusOr<Shape> InferConstant(const HloInstruction& inst) {
  // constant.C1: the literal has the instruction's shape.
  const Shape& lit = inst.literal().shape();
  if (lit.IsValid() && !SameShape(lit, inst.shape())) {
    return Fail(inst, "constant.C1", "literal has shape ", ShapeStr(lit),
                ", the instruction has ", ShapeStr(inst.shape()));
  }
  return WithoutLayouts(inst.shape());
}

}  // namespace

absl::StatusOr<Shape> InferTupleToken(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kTuple: {
      std::vector<Shape> elements;
      for (const HloInstruction* op : inst.operands()) {
        elements.push_back(WithoutLayouts(op->shape()));
      }
      return Shape::Tuple(std::move(elements));
    }
    case HloOpcode::kGetTupleElement:
      return InferGetTupleElement(inst);
    case HloOpcode::kAfterAll:
      // after-all.C1: "takes a variadic number of tokens".
      for (int64_t i = 0; i < inst.operand_count(); ++i) {
        if (!inst.operand(i)->shape().IsToken()) {
          return Fail(inst, "after-all.C1", OperandName(inst, i), " is ",
                      ShapeStr(inst.operand(i)->shape()), ", expected token[]");
        }
      }
      return Shape::Token();
    case HloOpcode::kAddDependency:
      // add-dependency.C1: the second operand is a token.
      if (!inst.operand(1)->shape().IsToken()) {
        return Fail(inst, "add-dependency.C1", OperandName(inst, 1), " is ",
                    ShapeStr(inst.operand(1)->shape()), ", expected token[]");
      }
      return WithoutLayouts(inst.operand(0)->shape());
    case HloOpcode::kConstant:
      return InferConstant(inst);
    case HloOpcode::kParameter:
      // parameter.C1: a non-negative parameter number (numbering across
      // the computation is module.C3).
      if (inst.parameter_number() < 0) {
        return Fail(inst, "parameter.C1", "parameter number is ",
                    inst.parameter_number(), ", expected >= 0");
      }
      return WithoutLayouts(inst.shape());
    case HloOpcode::kDomain:
    case HloOpcode::kOptimizationBarrier:
      return WithoutLayouts(inst.operand(0)->shape());
    default:
      return WrongFamily(inst, "tuple_token");
  }
}

}  // namespace hloref::verifier_internal
