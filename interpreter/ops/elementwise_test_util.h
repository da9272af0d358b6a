// Test helpers for the element-wise families: build a one-instruction
// module through the hlo_module.h API (one parameter per argument), verify
// it when the verifier accepts it, and evaluate it.
#ifndef HLOREF_INTERPRETER_OPS_ELEMENTWISE_TEST_UTIL_H_
#define HLOREF_INTERPRETER_OPS_ELEMENTWISE_TEST_UTIL_H_

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {
namespace testing_util {

using PT = PrimitiveType;

inline std::unique_ptr<HloModule> OneOpModule(
    HloOpcode op, const Shape& result, const std::vector<Shape>& params,
    const std::function<void(HloAttributes*)>& set_attrs = nullptr) {
  auto module = std::make_unique<HloModule>("test");
  auto comp = std::make_unique<HloComputation>("main");
  std::vector<HloInstruction*> ps;
  for (size_t i = 0; i < params.size(); ++i) {
    auto p = std::make_unique<HloInstruction>(HloOpcode::kParameter, params[i],
                                              absl::StrCat("p", i));
    p->set_parameter_number(static_cast<int64_t>(i));
    ps.push_back(comp->AddInstruction(std::move(p)));
  }
  auto inst = std::make_unique<HloInstruction>(op, result, "r");
  for (HloInstruction* p : ps) inst->AppendOperand(p);
  if (set_attrs) set_attrs(inst->mutable_attrs());
  HloInstruction* root = comp->AddInstruction(std::move(inst));
  comp->set_root(root);
  comp->FinalizeParameters();
  comp->set_is_entry(true);
  HloComputation* c = module->AddComputation(std::move(comp));
  module->set_entry(c);
  return module;
}

// Evaluates `op` with result shape `result` on `args`.
inline absl::StatusOr<EvalResult> RunOp(
    HloOpcode op, const Shape& result, const std::vector<Literal>& args,
    const std::function<void(HloAttributes*)>& set_attrs = nullptr,
    EvaluatorOptions options = {}) {
  std::vector<Shape> params;
  for (const Literal& a : args) params.push_back(a.shape());
  auto module = OneOpModule(op, result, params, set_attrs);
  Evaluator evaluator(options);
  return evaluator.Run(*module, args);
}

// Same, returning just the value.
inline absl::StatusOr<Literal> EvalOp(
    HloOpcode op, const Shape& result, const std::vector<Literal>& args,
    const std::function<void(HloAttributes*)>& set_attrs = nullptr) {
  auto r = RunOp(op, result, args, set_attrs);
  if (!r.ok()) return r.status();
  return std::move(r->value);
}

// A rank-1 literal with the given raw bit patterns.
inline Literal Bits(PT type, const std::vector<uint64_t>& bits) {
  Literal lit(Shape::Array(type, {static_cast<int64_t>(bits.size())}));
  for (size_t i = 0; i < bits.size(); ++i) {
    lit.SetRawBits(static_cast<int64_t>(i), bits[i]);
  }
  return lit;
}
inline Literal F32s(const std::vector<float>& v) {
  return Literal::CreateR1<float>(PT::kF32, v);
}
inline Literal F64s(const std::vector<double>& v) {
  return Literal::CreateR1<double>(PT::kF64, v);
}
// Any-type rank-1 literal from doubles (rounded by SetFromDouble; tests
// use values exactly representable in the type).
inline Literal FromDoubles(PT type, const std::vector<double>& v) {
  Literal lit(Shape::Array(type, {static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) {
    lit.SetFromDouble(static_cast<int64_t>(i), v[i]);
  }
  return lit;
}
inline Literal FromInts(PT type, const std::vector<int64_t>& v) {
  Literal lit(Shape::Array(type, {static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) {
    lit.SetFromInt64(static_cast<int64_t>(i), v[i]);
  }
  return lit;
}
inline uint32_t BitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline uint64_t BitsOf(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
inline Shape ShapeLike(const Literal& l, PT type) {
  Shape s = l.shape();
  s.set_element_type(type);
  return s;
}

}  // namespace testing_util
}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_ELEMENTWISE_TEST_UTIL_H_
