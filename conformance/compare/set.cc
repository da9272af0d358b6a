// SET verdicts (docs/numerics.md 7.2): one of a few allowed values, e.g.
// the +-0 tie of maximum/minimum or the operand a fast min/max returns when
// the other one is NaN.
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/compare/verdict.h"

namespace hloref::conformance {

Judgement JudgeSet(const ElementVerdict& v, double got, uint64_t got_bits) {
  const bool is_float = IsFloat(v.type);
  auto matches = [&](uint64_t want_bits) {
    if (want_bits == got_bits) return true;
    if (!is_float) return false;
    double want = BitsToDouble(v.type, want_bits);
    if (std::isnan(want) && std::isnan(got)) return !v.nan_payload_significant;
    return want == got && want == 0 && !v.zero_sign_significant;
  };
  if (matches(v.bits)) return Judgement{};
  for (uint64_t c : v.candidates) {
    if (matches(c)) return Judgement{};
  }
  Judgement j;
  j.pass = false;
  std::vector<std::string> allowed = {ValueText(v.type, v.bits)};
  for (uint64_t c : v.candidates) allowed.push_back(ValueText(v.type, c));
  j.why = absl::StrCat("not one of the allowed values {",
                       absl::StrJoin(allowed, ", "), "}");
  if (is_float && std::isfinite(got) && std::isfinite(v.y)) {
    j.ulp_distance = UlpDistance(v.type, v.y, got);
  } else {
    j.ulp_distance = got_bits == v.bits ? 0 : INFINITY;
  }
  return j;
}

ElementVerdict SetVerdict(PrimitiveType type, uint64_t bits,
                          std::vector<uint64_t> candidates, std::string rule) {
  ElementVerdict v;
  v.kind = VerdictKind::kSet;
  v.type = type;
  v.bits = bits;
  v.y = BitsToDouble(type, bits);
  v.candidates = std::move(candidates);
  v.rule = std::move(rule);
  return v;
}

}  // namespace hloref::conformance
