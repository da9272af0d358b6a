// The default comparison policy per op (conformance/compare/compare_policy.def,
// one line per op of spec/ops.def): which class of docs/numerics.md 7.3 an
// op's outputs belong to and its ulp budgets.
#ifndef HLOREF_CONFORMANCE_COMPARE_POLICY_H_
#define HLOREF_CONFORMANCE_COMPARE_POLICY_H_

#include "absl/strings/string_view.h"
#include "spec/ir/opcode.h"
#include "spec/types/primitive_type.h"

namespace hloref::conformance {

enum class CompareClass : uint8_t {
  kBits,
  kExact,
  kRounded,
  kDivide,
  kConvert,
  kUlp,
  kMinMax,
  kClamp,
  kAccumulate,
  kReduce,
  kMap,
  kScatter,
  kFft,              // FFT_BOUND (fft_bound.cc)
  kCholesky,         // BACKWARD_ERROR (backward_error.cc)
  kTriangularSolve,  // FORWARD_ERROR (backward_error.cc)
  kBatchNorm,        // BATCH_NORM_BOUND (batch_norm_bound.cc)
  kAny,
};
absl::string_view CompareClassName(CompareClass c);

struct OpComparePolicy {
  HloOpcode opcode;
  CompareClass cls;
  double ulp_f32, ulp_f64, ulp_f16_bf16, ulp_f8;
  double complex_k;
  // The budget column for `type` (f32 for f32, f64 for f64, f16/bf16 for
  // 16-bit floats, f8 for every narrower float; complex types use their
  // component type).
  double UlpBudget(PrimitiveType type) const;
};

const OpComparePolicy& ComparePolicyFor(HloOpcode opcode);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_COMPARE_POLICY_H_
