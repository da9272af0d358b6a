// The per-op comparison policy table (see policy.h).
#include "conformance/compare/policy.h"

#include <array>

#include "spec/util/status_macros.h"

namespace hloref::conformance {
namespace {

constexpr std::array<OpComparePolicy, kNumOpcodes> kPolicies = {{
#define HLOREF_COMPARE_POLICY(e, cls, f32, f64, f16, f8, ck) \
  {HloOpcode::e, CompareClass::cls, f32, f64, f16, f8, ck},
#include "conformance/compare/compare_policy.def"
#undef HLOREF_COMPARE_POLICY
}};

}  // namespace

absl::string_view CompareClassName(CompareClass c) {
  switch (c) {
    case CompareClass::kBits:
      return "bits";
    case CompareClass::kExact:
      return "exact";
    case CompareClass::kRounded:
      return "rounded";
    case CompareClass::kDivide:
      return "divide";
    case CompareClass::kConvert:
      return "convert";
    case CompareClass::kUlp:
      return "ulp";
    case CompareClass::kMinMax:
      return "minmax";
    case CompareClass::kClamp:
      return "clamp";
    case CompareClass::kAccumulate:
      return "accumulate";
    case CompareClass::kReduce:
      return "reduce";
    case CompareClass::kMap:
      return "map";
    case CompareClass::kScatter:
      return "scatter";
    case CompareClass::kFft:
      return "fft";
    case CompareClass::kCholesky:
      return "cholesky";
    case CompareClass::kTriangularSolve:
      return "triangular-solve";
    case CompareClass::kBatchNorm:
      return "batch-norm";
    case CompareClass::kAny:
      return "any";
  }
  return "?";
}

double OpComparePolicy::UlpBudget(PrimitiveType type) const {
  if (IsComplex(type)) type = ComplexComponentType(type);
  switch (type) {
    case PrimitiveType::kF32:
      return ulp_f32;
    case PrimitiveType::kF64:
      return ulp_f64;
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
      return ulp_f16_bf16;
    default:
      return ulp_f8;
  }
}

const OpComparePolicy& ComparePolicyFor(HloOpcode opcode) {
  const OpComparePolicy& p = kPolicies[static_cast<int>(opcode)];
  // The table is in ops.def order; policy_test checks it, this guards it.
  HLOREF_CHECK(p.opcode == opcode);
  return p;
}

}  // namespace hloref::conformance
