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
  return JudgeAgainstBits(v, got, got_bits,
                          "zero sign differs from the correctly rounded result",
                          "not the correctly rounded result: off by ");
}

ElementVerdict RoundedVerdict(PrimitiveType type, uint64_t bits,
                              std::string rule) {
  return BitsVerdict(VerdictKind::kRounded, type, bits, std::move(rule));
}

}  // namespace hloref::conformance
