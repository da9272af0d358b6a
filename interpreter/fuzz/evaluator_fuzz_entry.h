// The evaluator's fuzz entry (docs/fuzzing.md), shared by the libFuzzer
// target interpreter/fuzz/evaluator_fuzz.cc and the regression test
// conformance/fuzz/fuzz_regression_test.cc, so a reproducer replays through
// exactly the path that found it.
#ifndef HLOREF_INTERPRETER_FUZZ_EVALUATOR_FUZZ_ENTRY_H_
#define HLOREF_INTERPRETER_FUZZ_EVALUATOR_FUZZ_ENTRY_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "spec/fuzz/fuzz_entries.h"

namespace hloref {

// The evaluator's limits under the fuzzer: low enough that every input
// either finishes well inside libFuzzer's per-input timeout or is stopped
// by a limit with ResourceExhausted. An input that still runs into the
// fuzzer's timeout escaped every limit: that is a finding.
inline constexpr int64_t kFuzzEvalMaxElements = int64_t{1} << 14;
inline constexpr int64_t kFuzzEvalMaxWhileIterations = 1000;
inline constexpr int kFuzzEvalMaxCallDepth = 32;
inline constexpr int64_t kFuzzEvalMaxBytes = int64_t{64} << 20;
inline constexpr absl::Duration kFuzzEvalMaxWallTime = absl::Seconds(2);

// HLO text -> ParseHloModule -> VerifyModule -> Evaluator::Run on all-zero
// arguments of the entry parameters' shapes, under the limits above, one
// thread. Every error must have a message; an accepted run must return one
// output per array leaf of the root shape, each of its leaf's shape, and a
// second run of a fresh Evaluator on the same arguments must return
// bitwise-equal values (the oracle is deterministic).
FuzzOutcome FuzzEvaluateHloText(absl::string_view bytes);

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_FUZZ_EVALUATOR_FUZZ_ENTRY_H_
