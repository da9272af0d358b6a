// EXACT verdicts (docs/numerics.md 7.2, class E of 7.3): bit equality, with
// the zero sign judged only where IEEE defines it.
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "conformance/compare/verdict.h"

namespace hloref::conformance {

Judgement JudgeExact(const ElementVerdict& v, double got, uint64_t got_bits) {
  if (got_bits == v.bits) return Judgement{};
  if (got == v.y && got == 0 && !v.zero_sign_significant) return Judgement{};
  Judgement j;
  j.pass = false;
  if (got == v.y && got == 0) {
    j.why = "zero sign differs (the op defines the sign of zero)";
    return j;
  }
  j.ulp_distance = UlpDistance(v.type, v.y, got);
  j.why = absl::StrCat("value differs from the exact result by ",
                       j.ulp_distance, " ulp");
  return j;
}

ElementVerdict ExactVerdict(PrimitiveType type, uint64_t bits,
                            std::string rule) {
  ElementVerdict v;
  v.kind = VerdictKind::kExact;
  v.type = type;
  v.bits = bits;
  v.y = BitsToDouble(type, bits);
  v.rule = std::move(rule);
  return v;
}

}  // namespace hloref::conformance
