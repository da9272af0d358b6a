// Verifier: rng, rng-bit-generator, rng-get-and-update-state (seed 001
// "RngNormal", "RngUniform", "RngBitGenerator"; rng-get-and-update-state
// from docs/hlo-text-format.md 6.10).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

absl::StatusOr<Shape> InferRngOp(const HloInstruction& inst) {
  // rng.C1: the result is an array (the output shape is written).
  if (!inst.shape().IsArray()) {
    return Fail(inst, "rng.C1", "result must be an array, got ",
                ShapeStr(inst.shape()));
  }
  const PrimitiveType t = inst.shape().element_type();
  // rng.C2: "the parameters need to be scalar valued" and of type T.
  for (int i = 0; i < 2; ++i) {
    const Shape& s = inst.operand(i)->shape();
    if (!IsScalarArray(s) || s.element_type() != t) {
      return Fail(inst, "rng.C2", OperandName(inst, i), " is ", ShapeStr(s),
                  ", expected ", PrimitiveTypeName(t), "[]");
    }
  }
  if (inst.attrs().distribution == RandomDistribution::kNormal) {
    // rng.C3: normal: "a floating point elemental type".
    if (!IsFloat(t)) {
      return Fail(inst, "rng.C3",
                  "rng_normal needs a floating-point type, "
                  "got ",
                  PrimitiveTypeName(t));
    }
  } else if (!AcceptsType(kPredOk | kIntOk | kFloatOk, t)) {
    // rng.C4: uniform: "a boolean type, an integral type or a floating
    // point type".
    return Fail(inst, "rng.C4",
                "rng_uniform needs a pred, integer or "
                "floating-point type, got ",
                PrimitiveTypeName(t));
  }
  Shape s = inst.shape();
  s.clear_layout();
  return s;
}

absl::StatusOr<Shape> InferRngBitGenerator(const HloInstruction& inst) {
  const Shape& state = inst.operand(0)->shape();
  // rng-bit-generator.C1: the state is a rank-1 u64 array (XLA's key and
  // counter words).
  if (!state.IsArray() || state.element_type() != PrimitiveType::kU64 ||
      state.rank() != 1) {
    return Fail(inst, "rng-bit-generator.C1", "state is ", ShapeStr(state),
                ", expected a u64 vector");
  }
  // rng-bit-generator.C2: every algorithm reads a key word and a counter
  // word (seed 001: the state's "required shape ... dependent on the
  // algorithm used"). XLA's verifier takes any state whose output state
  // has the same shape, and XLA's expander reads state[0] (key), state[1]
  // (THREE_FRY counter) or state[1..2] (PHILOX counter), so longer states
  // are accepted; the words past those come back unchanged
  // (impl.rng-bit-generator.3). Shorter states cannot be expanded.
  const std::string& alg = inst.attrs().algorithm;
  const int64_t n = state.dimensions(0);
  if (n < 2) {
    return Fail(inst, "rng-bit-generator.C2", alg.empty() ? "rng_default" : alg,
                " state has ", n,
                " words, expected at least 2 (a key and a counter)");
  }
  // rng-bit-generator.C3: the result is (state shape, output array of
  // unsigned integers), the output shape as written.
  const Shape& s = inst.shape();
  if (!s.IsTuple() || s.tuple_size() != 2 || !s.tuple_shapes(1).IsArray() ||
      !IsUnsignedInt(s.tuple_shapes(1).element_type())) {
    return Fail(inst, "rng-bit-generator.C3", "shape is ", ShapeStr(s),
                ", expected (", ShapeStr(state), ", <unsigned integer array>)");
  }
  Shape out = s.tuple_shapes(1);
  out.clear_layout();
  return Shape::Tuple({WithElementType(state, PrimitiveType::kU64), out});
}

}  // namespace

absl::StatusOr<Shape> InferRng(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kRng:
      return InferRngOp(inst);
    case HloOpcode::kRngBitGenerator:
      return InferRngBitGenerator(inst);
    case HloOpcode::kRngGetAndUpdateState:
      // rng-get-and-update-state.C1 is the shape itself: u64[2].
      return MakeShape(PrimitiveType::kU64, {2});
    default:
      return WrongFamily(inst, "rng");
  }
}

}  // namespace hloref::verifier_internal
