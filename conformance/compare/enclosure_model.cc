#include "conformance/compare/enclosure_model.h"

#include <cmath>

#include "conformance/compare/policy.h"
#include "spec/types/minifloat.h"

namespace hloref::conformance {

EnclosureErrorModel PolicyEnclosureModel() {
  return [](HloOpcode opcode, PrimitiveType type) {
    const OpComparePolicy& p = ComparePolicyFor(opcode);
    EnclosureErrorClass c;
    c.complex_k = p.complex_k;
    switch (p.cls) {
      case CompareClass::kBits:
      case CompareClass::kExact:
      case CompareClass::kMinMax:
      case CompareClass::kClamp:
        c.kind = EnclosureErrorKind::kExact;
        break;
      case CompareClass::kRounded:
      case CompareClass::kDivide:
      case CompareClass::kConvert:
        c.kind = EnclosureErrorKind::kRounded;
        break;
      case CompareClass::kUlp:
        c.kind = EnclosureErrorKind::kUlp;
        c.ulps = IsFloat(type) || IsComplex(type) ? p.UlpBudget(type) : 0;
        break;
      case CompareClass::kAccumulate:
        c.kind = EnclosureErrorKind::kAccumulate;
        break;
      case CompareClass::kReduce:
        c.kind = EnclosureErrorKind::kReduce;
        break;
      case CompareClass::kFft:
        c.kind = EnclosureErrorKind::kFft;
        break;
      default:
        c.kind = EnclosureErrorKind::kNone;
        break;
    }
    return c;
  };
}

EnclosureDeviations EnclosureDeviationsOf(const Deviations& deviations) {
  EnclosureDeviations d;
  d.ftz_types = deviations.ftz_types;
  d.fast_min_max = deviations.fast_min_max;
  d.divide_ulps = deviations.divide_ulps;
  d.dot_input_unit = deviations.DotInputUnit();
  if (deviations.dot_accumulation != PrimitiveType::kInvalid &&
      IsFloat(deviations.dot_accumulation)) {
    d.dot_accumulation_unit =
        std::ldexp(1.0, -Precision(FormatOf(deviations.dot_accumulation)));
  }
  d.truncating_accumulation = deviations.truncating_accumulation;
  return d;
}

EnclosureOptions PolicyEnclosureOptions(const EvaluatorOptions& oracle,
                                        const Deviations& deviations) {
  EnclosureOptions o;
  o.error_model = PolicyEnclosureModel();
  o.oracle = oracle;
  o.deviations = EnclosureDeviationsOf(deviations);
  return o;
}

}  // namespace hloref::conformance
