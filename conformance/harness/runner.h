// Runs golden cases on the reference interpreter (or a backend, see
// RunOptions::backend) and classifies each
// result: pass, fail, unsupported (the interpreter or verifier answers
// kUnimplemented), skipped (the case needs another profile than the run),
// known failure (a case marked `known_failure:` that still fails).
#ifndef HLOREF_CONFORMANCE_HARNESS_RUNNER_H_
#define HLOREF_CONFORMANCE_HARNESS_RUNNER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "backends/backend.h"
#include "conformance/compare/deviations.h"
#include "conformance/harness/golden_case.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_module.h"

namespace hloref::conformance {

enum class Outcome { kPass, kFail, kUnsupported, kSkipped, kKnownFailure };
absl::string_view OutcomeName(Outcome outcome);

struct CaseResult {
  Outcome outcome = Outcome::kFail;
  // Why (fail, unsupported, skipped, known failure); for a fail the
  // precise message: case, output index, element index, expected, got, rule.
  std::string message;
  // Elements not compared because the evaluator marked them don't-care.
  int64_t masked = 0;
};

struct RunOptions {
  // The profile the interpreter runs under. A case whose `profile:` is a
  // different one (not `any`) is skipped.
  Profile profile = Profile::kXla;
  // Null: the case runs on the interpreter. Otherwise the case's module
  // is compiled and run on this backend and its values are judged against
  // the case's expected values; Supports or Compile or Run answering
  // Unimplemented makes the case *unsupported*, FailedPrecondition
  // *skipped*; error cases (golden/errors/) are skipped. Under the
  // portable profile the interpreter still runs, for its don't-care masks.
  backends::Backend* backend = nullptr;
  backends::CompileOptions compile_options;
  // Program cases (golden/programs/) are judged by their whole-program
  // enclosures first (docs/enclosures.md), with these declared
  // deviations; their `compare:` budgets are the cross-check.
  Deviations deviations;
};

CaseResult RunGoldenCase(const GoldenCase& c, const RunOptions& options = {});

// The element-type class (pred, signed, unsigned, float, complex) a case
// exercises: its `class:` field, else the type of the first operand of the
// first instruction of its op (the result type for ops without operands),
// searched in the entry computation first. "" when the module does not
// parse or the op is not found.
std::string CaseTypeClass(const GoldenCase& c);
std::string ModuleTypeClass(const HloModule& module, absl::string_view op);

struct Summary {
  int64_t counts[5] = {0, 0, 0, 0, 0};  // indexed by Outcome
  void Add(Outcome o) { ++counts[static_cast<int>(o)]; }
  int64_t total() const;
  // "pass 120, fail 0, unsupported 35, skipped 2, known failure 1 (158 cases)"
  std::string ToString() const;
};

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_HARNESS_RUNNER_H_
