// EXACT verdicts (docs/numerics.md 7.2, class E of 7.3): bit equality, with
// the zero sign judged only where IEEE defines it.
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "conformance/compare/verdict.h"

namespace hloref::conformance {

Judgement JudgeAgainstBits(const ElementVerdict& v, double got,
                           uint64_t got_bits, const char* zero_sign_why,
                           const char* differs_why) {
  if (got_bits == v.bits) return Judgement{};
  if (got == v.y && got == 0 && !v.zero_sign_significant) return Judgement{};
  Judgement j;
  j.pass = false;
  if (got == v.y && got == 0) {
    j.why = zero_sign_why;
    return j;
  }
  j.ulp_distance = UlpDistance(v.type, v.y, got);
  j.why = absl::StrCat(differs_why, j.ulp_distance, " ulp");
  return j;
}

Judgement JudgeExact(const ElementVerdict& v, double got, uint64_t got_bits) {
  return JudgeAgainstBits(v, got, got_bits,
                          "zero sign differs (the op defines the sign of zero)",
                          "value differs from the exact result by ");
}

ElementVerdict BitsVerdict(VerdictKind kind, PrimitiveType type, uint64_t bits,
                           std::string rule) {
  ElementVerdict v;
  v.kind = kind;
  v.type = type;
  v.bits = bits;
  v.y = BitsToDouble(type, bits);
  v.rule = std::move(rule);
  return v;
}

ElementVerdict ExactVerdict(PrimitiveType type, uint64_t bits,
                            std::string rule) {
  return BitsVerdict(VerdictKind::kExact, type, bits, std::move(rule));
}

}  // namespace hloref::conformance
