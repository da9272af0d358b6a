// ROUNDED verdicts (docs/numerics.md 7.2, class R of 7.3): the oracle's
// value is the correctly rounded RN_T(y), which the implementation must
// reproduce. A declared "approximate division" deviation turns divide into
// a class-U verdict instead (see policy.cc).
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "conformance/compare/verdict.h"

namespace hloref::conformance {

Judgement JudgeRounded(const ElementVerdict& v, double got, uint64_t got_bits) {
  if (got_bits == v.bits) return Judgement{};
  if (got == v.y && got == 0 && !v.zero_sign_significant) return Judgement{};
  Judgement j;
  j.pass = false;
  if (got == v.y && got == 0) {
    j.why = "zero sign differs from the correctly rounded result";
    return j;
  }
  j.ulp_distance = UlpDistance(v.type, v.y, got);
  j.why = absl::StrCat("not the correctly rounded result: off by ",
                       j.ulp_distance, " ulp");
  return j;
}

ElementVerdict RoundedVerdict(PrimitiveType type, uint64_t bits,
                              std::string rule) {
  ElementVerdict v;
  v.kind = VerdictKind::kRounded;
  v.type = type;
  v.bits = bits;
  v.y = BitsToDouble(type, bits);
  v.rule = std::move(rule);
  return v;
}

}  // namespace hloref::conformance
