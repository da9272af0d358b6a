// The golden coverage page: op (every line of spec/ops.def) x element-type
// class, number of golden cases per cell, flags for ops with fewer than 3
// cases or without error cases; plus the check of golden/README.md's seed
// example checklist against the cases that exist.
#ifndef HLOREF_CONFORMANCE_HARNESS_COVERAGE_H_
#define HLOREF_CONFORMANCE_HARNESS_COVERAGE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "conformance/harness/golden_case.h"

namespace hloref::conformance {

// The Markdown text of golden/COVERAGE.md for `cases`. Deterministic: the
// same suite always gives the same bytes.
std::string CoverageMarkdown(const std::vector<GoldenCase>& cases);

// Element-type classes, as bits of the coverage page's columns.
enum TypeClassBit : unsigned {
  kClassPred = 1,
  kClassSigned = 2,
  kClassUnsigned = 4,
  kClassFloat = 8,
  kClassComplex = 16,
  kClassAll = 31,
};

// The element-type classes `op` accepts, in the sense the page counts a case
// (the class of the op's first array operand; for select the class of the
// selected data, for iota and replica-id the result's). A hand table in
// coverage.cc, cross-checked against the verifier's InferShape in
// coverage_test.cc. 0 for an unknown op.
unsigned AcceptedClasses(absl::string_view op);

// Whether `op` is an operation of seed 001 (its ops.def section is a seed
// chapter, not "text-format ...").
bool IsSeed001Op(absl::string_view op);

// One checklist item of golden/README.md:
//   `- [x] 001 Clamp: scalar min and max — ops/clamp.golden:seed_scalar_bounds`
struct ChecklistItem {
  int line = 0;
  bool ticked = false;
  std::string text;
  std::vector<std::string> case_ids;  // "ops/clamp.golden:seed_scalar_bounds"
  // Unit tests the item names instead of (or besides) cases, written
  // `test:<binary>/<Suite>.<Name>` ("layout_util_test/LayoutUtil.Seed");
  // golden_test checks that each exists.
  std::vector<std::string> test_ids;
};
std::vector<ChecklistItem> ParseChecklist(absl::string_view readme);

// Problems with the checklist: a ticked item naming no case or a case that
// does not exist, an unticked item whose cases all exist. Empty when
// consistent.
std::vector<std::string> CheckChecklist(const std::vector<ChecklistItem>& items,
                                        const std::vector<GoldenCase>& cases);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_HARNESS_COVERAGE_H_
