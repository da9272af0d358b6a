// The golden case model and the reader of golden/*.golden files (the format
// is documented in golden/README.md). Reading checks the structure only;
// the HLO module and the literals are parsed when a case runs, so a file
// with one bad literal still lists all its cases.
#ifndef HLOREF_CONFORMANCE_HARNESS_GOLDEN_CASE_H_
#define HLOREF_CONFORMANCE_HARNESS_GOLDEN_CASE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "conformance/compare/compare.h"

namespace hloref::conformance {

// Which evaluator profile a case's expected values assume.
enum class CaseProfile {
  kAny,       // every profile gives these values (no impl-defined element)
  kXla,       // XLA's concrete choices (numerics.md section 3)
  kPortable,  // impl-defined elements are don't-care
};
absl::string_view CaseProfileName(CaseProfile profile);

// Where a case's file lives in the suite.
enum class CaseKind {
  kOp,          // golden/ops/<op>.golden: runs, compares results
  kProgram,     // golden/programs/*.golden: multi-op, runs, compares
  kError,       // golden/errors/<op>.golden: must be rejected with a rule
  kRegression,  // golden/regressions/*.golden: runs, compares
};

struct GoldenCase {
  // Suite-relative file ("ops/add.golden") and the line of `case`.
  std::string file;
  int line = 0;
  std::string name;
  CaseKind kind = CaseKind::kOp;
  // The op the case is about: the file stem for ops/ and errors/, the
  // `op:` field otherwise (programs list several; the first is primary).
  std::vector<std::string> ops;
  // Element-type class override (pred, signed, unsigned, float, complex);
  // empty: derived from the module (see CaseTypeClass in runner.h).
  std::string type_class;
  std::string provenance;
  CaseProfile profile = CaseProfile::kAny;
  std::vector<std::string> impl_ids;
  // One spec for all outputs, or one per flattened output.
  std::vector<CompareSpec> compare;
  // The module text, preceded by newlines so that parser locations are
  // the golden file's own line numbers.
  std::string module_text;
  // Argument literals (with shape), one per entry parameter.
  std::vector<std::string> args;
  // Expected results: one literal for the whole root (a tuple literal for
  // a tuple root) or one per flattened output.
  std::vector<std::string> expects;
  // Host transfers (seed 001 Infeed, Outfeed, Send, Recv with
  // is_host_transfer=true): literals the run's infeed reads in order, the
  // values host-to-device recvs receive per channel id, and the values
  // outfeed and device-to-host sends must write (the whole list, in order).
  std::vector<std::string> infeed;
  std::vector<std::pair<int64_t, std::string>> recv;
  std::vector<std::string> expect_outfeed;
  std::vector<std::pair<int64_t, std::string>> expect_sent;
  // custom-call: the name of a test library shipped with hloref (see
  // CustomCallTestLibraries); empty when the case needs none.
  std::string custom_call_library;
  // Error cases: the rule ID (`<op>.C<n>`) the verifier must report.
  std::string expect_error;
  // Non-empty: the case is known to fail on the interpreter for this
  // reason; a pass is then reported as a failure ("fixed? remove it").
  std::string known_failure;
  std::string note;

  const std::string& op() const { return ops.front(); }
  // The case gives or checks host transfers (any of infeed, recv,
  // expect_outfeed, expect_sent).
  bool HasHostTransfers() const {
    return !infeed.empty() || !recv.empty() || !expect_outfeed.empty() ||
           !expect_sent.empty();
  }
  // "ops/add.golden:add_nan" — unique in the suite.
  std::string Id() const { return file + ":" + name; }
};

// Reads the cases of one file. `file` is the suite-relative path used in
// messages and ids; `kind` and `default_op` (the file stem for ops/ and
// errors/, empty otherwise) come from where the file lives. Errors name
// file:line and what is wrong.
absl::StatusOr<std::vector<GoldenCase>> ParseGoldenFile(
    absl::string_view text, const std::string& file, CaseKind kind,
    const std::string& default_op);

// Reads every *.golden file under root/{ops,programs,errors,regressions}
// in sorted order and checks that case ids are unique.
absl::StatusOr<std::vector<GoldenCase>> LoadGoldenSuite(
    const std::string& root);

// The custom-call test libraries a case may name in
// `custom_call_library:` (golden/README.md), sorted. Golden files name a
// library, never a path: the path is fixed at build time.
std::vector<std::string> CustomCallTestLibraries();
// The built shared library for `name`: NotFound for a name that is not
// in CustomCallTestLibraries, FailedPrecondition when this build was
// configured without that library.
absl::StatusOr<std::string> CustomCallTestLibraryPath(absl::string_view name);

// The directory of the checked-in suite as configured at build time
// (HLOREF_GOLDEN_DIR), or "golden" when not configured.
std::string DefaultGoldenDir();

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_HARNESS_GOLDEN_CASE_H_
