// Comparison of a computed value against an expected golden value, element
// by element, in the verdict kinds of docs/numerics.md section 7.2 that
// golden cases need: EXACT (with and without NaN payloads), ULP-bounded
// (class U of 7.3, bound taken around the expected, correctly rounded
// value) and CLASS (only NaN / +-inf / zero / sign of finite checked).
// Accumulating ops in golden cases use exact data (numerics.md 7.3: "data
// design doubles the power of this class"), so they compare EXACT.
#ifndef HLOREF_CONFORMANCE_COMPARE_COMPARE_H_
#define HLOREF_CONFORMANCE_COMPARE_COMPARE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "spec/types/literal.h"

namespace hloref::conformance {

enum class CompareKind {
  // Bit-exact; -0 != +0; any NaN matches any NaN (payload and sign are not
  // compared, numerics.md 7.5).
  kExact,
  // Bit-exact including NaN payloads and signs (bitcast-convert and the
  // payload-preserving data-movement ops).
  kBits,
  // |got - expected| <= ulps * ulp_T(expected) (numerics.md notation);
  // NaN must meet NaN, an infinity the same infinity; zero signs ignored.
  kUlp,
  // Only the class: NaN, +inf, -inf, zero (either sign), finite positive,
  // finite negative.
  kClass,
};

struct CompareSpec {
  CompareKind kind = CompareKind::kExact;
  double ulps = 0;  // kUlp only
  // `exact`, `bits`, `ulp(2)`, `class`.
  std::string ToString() const;
};

// Reads `exact`, `bits`, `ulp(N)` (N a non-negative number) or `class`.
absl::StatusOr<CompareSpec> ParseCompareSpec(absl::string_view text);

struct CompareOutcome {
  bool ok = true;
  int64_t mismatches = 0;
  int64_t masked = 0;  // elements skipped because dont_care was set
  // First mismatch (ok == false): row-major element index, the multi-
  // dimensional index as text, both values as HLO literal text and the
  // rule that failed. For a shape mismatch index is -1.
  int64_t index = -1;
  std::string multi_index;
  std::string expected;
  std::string got;
  std::string rule;
};

// Compares two array literals (tuples must be flattened by the caller).
// `dont_care`, when non-null, is a pred array of the same shape whose true
// elements are not compared (portable profile).
CompareOutcome CompareArrays(const Literal& expected, const Literal& got,
                             const CompareSpec& spec,
                             const Literal* dont_care = nullptr);

// The ulp of `value` in float type `type` (numerics.md notation: spacing
// of the binade of |value|, at least the subnormal spacing).
double UlpOf(PrimitiveType type, double value);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_COMPARE_COMPARE_H_
