#include "conformance/compare/enclosure_model.h"

#include "conformance/compare/policy.h"

namespace hloref::conformance {

EnclosureErrorModel PolicyEnclosureModel() {
  return [](HloOpcode opcode, PrimitiveType type) {
    const OpComparePolicy& p = ComparePolicyFor(opcode);
    EnclosureErrorClass c;
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
      default:
        c.kind = EnclosureErrorKind::kNone;
        break;
    }
    return c;
  };
}

EnclosureOptions PolicyEnclosureOptions(const EvaluatorOptions& oracle) {
  EnclosureOptions o;
  o.error_model = PolicyEnclosureModel();
  o.oracle = oracle;
  return o;
}

}  // namespace hloref::conformance
