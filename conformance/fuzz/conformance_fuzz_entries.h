// Fuzz entries of the conformance layer (docs/fuzzing.md): the golden-case
// reader and the differential target. Shared by the libFuzzer targets
// (conformance/harness/golden_case_fuzz.cc,
// conformance/generators/differential_fuzz.cc) and the regression test
// conformance/fuzz/fuzz_regression_test.cc.
#ifndef HLOREF_CONFORMANCE_FUZZ_CONFORMANCE_FUZZ_ENTRIES_H_
#define HLOREF_CONFORMANCE_FUZZ_CONFORMANCE_FUZZ_ENTRIES_H_

#include "absl/strings/string_view.h"
#include "backends/backend.h"
#include "spec/fuzz/fuzz_entries.h"

namespace hloref {

// Golden file text -> ParseGoldenFile (as "ops/fuzz.golden", an op file
// whose default op is add). Every error must name the file and a line
// ("ops/fuzz.golden:<n>"); every accepted case must have the file, a line
// inside the text and a unique name. Each accepted case's module and
// argument / expected literals then go through the parser with the fuzz
// limits (a crash there is a finding; a parse error is not).
FuzzOutcome FuzzGoldenFileText(absl::string_view bytes);

// Structure-aware differential target: bytes 0-1 choose an op among the
// generated ops (GeneratedOps(), little endian, modulo their count), bytes
// 2-9 the seed (little endian; missing bytes are 0). The generated case
// (conformance/generators) runs through the suite's own judge
// (RunGeneratedCase): the oracle with one thread against the interpreter
// backend with four. A fail (or known-failure) verdict is a finding; pass,
// unsupported (the op is not implemented by either) and skipped (a limit
// or data-dependent undefined behaviour, numerics.md 9.5) are not. A
// generator that finds no valid draw is a refused input.
FuzzOutcome FuzzDifferentialCase(absl::string_view bytes);

// The same with any backend in place of the interpreter (`against` names it
// in the finding's message): FuzzDifferentialCase is this with the
// interpreter backend at four threads; the CPU backend's target
// (conformance/fuzz/cpu_differential_fuzz.cc) runs it with the CPU backend.
FuzzOutcome FuzzDifferentialCaseOn(absl::string_view bytes,
                                   backends::Backend& backend,
                                   absl::string_view against);

}  // namespace hloref

#endif  // HLOREF_CONFORMANCE_FUZZ_CONFORMANCE_FUZZ_ENTRIES_H_
