// `hloref conformance --suite=stablehlo:DIR`: every .mlir file of DIR in
// StableHLO's test-data format (@main checks values with check.expect_eq /
// expect_almost_eq / expect_close, or custom_call @check.expect_*) runs on
// the backend without its checks, and gets two verdicts:
//  - the file's: each checked value against the file's expected value with
//    StableHLO's semantics (eq: exact, NaN equals NaN; almost_eq: absolute
//    1e-3; close: at most 3 ULP);
//  - the oracle's: each checked value against the oracle's value of it with
//    the conformance comparator (docs/numerics.md 7), as `hloref
//    conformance` judges a case: the checked value is the output of a
//    module that computes it alone (conformance/diff/slice.h), judged by
//    the error class of the op that produced it. A value that departs by
//    more than that op's bound is then judged per instruction, as
//    numerics.md decision 7 judges multi-op programs (`hloref diff`: each
//    instruction isolated and fed the oracle's operands): it disagrees
//    only when an isolated instruction departs; otherwise it agrees "per
//    instruction" (the difference is rounding propagated through the
//    chain, which the final op's bound does not cover).
#ifndef HLOREF_TOOLS_HLOREF_STABLEHLO_SUITE_H_
#define HLOREF_TOOLS_HLOREF_STABLEHLO_SUITE_H_

#include <string>
#include <vector>

#include "backends/backend.h"
#include "conformance/compare/deviations.h"
#include "interpreter/evaluator.h"

namespace hloref::tools {

struct StableHloSuiteOptions {
  std::string backend_name = "interpreter";
  conformance::Deviations deviations;
  Profile profile = Profile::kXla;
  bool verbose = false;
  // When set, DIR/report.json gets every file's two verdicts.
  std::string report_dir;
};

// The verdicts on one file.
struct StableHloFileResult {
  std::string path;
  enum class Outcome { kPass, kFail, kUnsupported };
  // The file's verdict; kUnsupported when the file does not convert, the
  // backend refuses it (Unimplemented) or a check kind is unknown.
  Outcome outcome = Outcome::kFail;
  std::string message;  // why (fail, unsupported): "line L expect_K: ..."
  // The oracle's verdict, when the backend ran the module.
  bool oracle_judged = false;
  bool oracle_agrees = false;
  std::string oracle_message;  // why it disagrees
  // Agreement found per instruction (see above): what the whole value's
  // comparison said.
  std::string per_instruction_note;
};

// Judges one file (its text; `path` names it in messages) on `backend`.
StableHloFileResult JudgeStableHloFile(const std::string& path,
                                       const std::string& text,
                                       backends::Backend& backend,
                                       const StableHloSuiteOptions& options);

// Runs every .mlir file of `dir`. Prints one line per failing file
// (FAIL), per disagreement with the oracle (ORACLE-DIFF), per agreement
// found only per instruction (ORACLE-PER-INSTRUCTION) and a summary;
// returns the exit code (0: no failure and no disagreement, 1 otherwise).
int RunStableHloSuite(const std::string& dir,
                      const StableHloSuiteOptions& options);

}  // namespace hloref::tools

#endif  // HLOREF_TOOLS_HLOREF_STABLEHLO_SUITE_H_
