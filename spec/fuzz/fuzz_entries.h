// The entry points the libFuzzer targets (spec/ir/*_fuzz.cc,
// spec/types/npy_fuzz.cc) and the regression test
// (spec/fuzz/fuzz_regression_test.cc) share, so that every reproducer kept
// under spec/ir/testdata/fuzz_regressions/ goes through exactly the path the
// fuzzer found it on (docs/fuzzing.md).
//
// Each entry takes arbitrary bytes and must neither crash, hang nor leak.
// It returns what it saw: whether the input was accepted, the error it got
// otherwise, and, when a property that must hold for every accepted input
// does not (a round trip that changes the text or the value), what broke.
#ifndef HLOREF_SPEC_FUZZ_FUZZ_ENTRIES_H_
#define HLOREF_SPEC_FUZZ_FUZZ_ENTRIES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hloref {

struct FuzzOutcome {
  // OK: the input was accepted (a module that parsed and verified, a
  // literal, an array). Otherwise the error it got, which must not be empty.
  absl::Status status;
  // Empty unless an invariant broke; then both sides, for the report.
  std::string violation;
};

// Limits the entries run under, low enough that no legitimate input makes
// the fuzzer run out of memory or time. Large literals are valid and cost
// time linear in their size: `pred[3,422,111,22] 1` (3.1 M elements) takes
// 1.2 s to parse, print and parse again with g++ -O2, but 8.5 s of CPU in
// the instrumented build, and `pred[42,62,95,2,2] 0` (1 M elements) 6.5 s,
// both hitting the fuzzer's 10 s timeout on a loaded machine. Not findings:
// the fuzz limit is low (64 KiB) instead.
inline constexpr int64_t kFuzzMaxBytes = int64_t{1} << 16;
inline constexpr int64_t kFuzzMaxElements = int64_t{1} << 16;

// HLO text -> ParseHloModule -> VerifyModule. Every module that parses is
// printed, the print parsed again and printed again: the two prints must be
// identical (parse(print(m)) prints as m does), whether or not m verifies.
FuzzOutcome FuzzHloModuleText(absl::string_view bytes);

// HLO literal text with its shape (`f32[2] {1, 2}`) -> ParseLiteral. An
// accepted literal printed (Literal::ToString) and parsed again must be
// bitwise equal to it.
FuzzOutcome FuzzLiteralText(absl::string_view bytes);

// .npy bytes -> LiteralFromNpyBytes, and the same bytes written to a
// temporary file -> ReadNpyHeader and ReadNpyFile (the pread path). The two
// readers must agree (both refuse, or both give bitwise-equal literals), and
// an accepted array written back (NpyBytesFromLiteral) and read again must
// be bitwise equal to it.
FuzzOutcome FuzzNpyBytes(absl::string_view bytes);

}  // namespace hloref

#endif  // HLOREF_SPEC_FUZZ_FUZZ_ENTRIES_H_
