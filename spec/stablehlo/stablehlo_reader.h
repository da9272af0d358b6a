// Reading StableHLO textual MLIR (as JAX, jax.export and PyTorch/XLA print
// it) into hloref's HLO IR. The mapping of each op is in docs/stablehlo.md.
#ifndef HLOREF_SPEC_STABLEHLO_STABLEHLO_READER_H_
#define HLOREF_SPEC_STABLEHLO_STABLEHLO_READER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "spec/ir/hlo_module.h"
#include "spec/ir/hlo_parser.h"

namespace hloref {

// True when `text` looks like MLIR (a `module`, `func.func` or `#loc`
// line first) rather than HLO text.
bool LooksLikeStableHlo(absl::string_view text);

// Converts a StableHLO module to HLO text (one computation per function
// and region; the public function `main`, or the only public one, is the
// entry). Errors: InvalidArgument "file:line:col: error: <what>" for bad
// input, Unimplemented "...: not supported: <why>" for valid StableHLO
// without an HLO counterpart (quantized types, unbounded dynamic shapes).
absl::StatusOr<std::string> StableHloToHloText(absl::string_view text,
                                               const std::string& file_name);

// StableHloToHloText, then the HLO parser. Errors the HLO parser finds in
// the converted text are reported at the .mlir op they came from.
absl::StatusOr<std::unique_ptr<HloModule>> ParseStableHloModule(
    absl::string_view text, const ParseOptions& options = {});
absl::StatusOr<std::unique_ptr<HloModule>> ParseStableHloModuleFile(
    const std::string& path, ParseOptions options = {});

// StableHLO's test-data format (its interpret tests and testdata): @main
// checks values with `check.expect_eq / expect_almost_eq / expect_close`
// (ops of the check dialect, their `_const` forms with a dense attribute,
// or `stablehlo.custom_call @check.expect_*`). The module returned has the
// checks removed and returns, per check, the checked value then the
// expected value (a tuple root, 2 x checks leaves).
struct StableHloCheck {
  std::string kind;  // "eq", "almost_eq", "close"
  int line = 0;      // of the check op in the .mlir
};
struct StableHloTestModule {
  std::unique_ptr<HloModule> module;
  std::vector<StableHloCheck> checks;
};
absl::StatusOr<StableHloTestModule> ParseStableHloTestModule(
    absl::string_view text, const ParseOptions& options = {});

}  // namespace hloref

#endif  // HLOREF_SPEC_STABLEHLO_STABLEHLO_READER_H_
