// The command backend's fuzz entry (docs/fuzzing.md): what a `command:`
// program hands back (its exit status, stderr and result_<i>.npy files) is
// chosen by the fuzzer's bytes. Shared by the libFuzzer target
// backends/command/fuzz/command_results_fuzz.cc and the regression test
// conformance/fuzz/fuzz_regression_test.cc.
#ifndef HLOREF_BACKENDS_COMMAND_FUZZ_COMMAND_FUZZ_ENTRY_H_
#define HLOREF_BACKENDS_COMMAND_FUZZ_COMMAND_FUZZ_ENTRY_H_

#include "absl/strings/string_view.h"
#include "spec/fuzz/fuzz_entries.h"

namespace hloref {

// Separates the chunks of a command fuzz input.
inline constexpr absl::string_view kCommandFuzzSeparator = "=npy=";

// Input: byte 0 chooses how the fake program ends (value % 8: 1 exit 3
// "unsupported", 2 exit 4 "unavailable", 3 exit 1, 4 killed by SIGSEGV,
// otherwise exit 0); the rest, split at kCommandFuzzSeparator, gives the
// bytes of result_0.npy, result_1.npy, result_2.npy (an empty chunk: that
// file is not written) and, fourth, what the program writes to stderr.
//
// The fake program is a shell script that copies those files into the
// exchange directory. The module (one f32[2] parameter, root
// (f32[2], s32[])) is compiled by the command backend and run on zeros.
// Checked: an accepted run returns exactly two results, needs exit 0 and
// both files and no third, and each result is bitwise what
// LiteralFromNpyBytes reads from its chunk; exit 3 gives Unimplemented,
// exit 4 FailedPrecondition, anything else an error naming the command;
// every error has a message; and after every run the work directory is
// empty again (the exchange directory and capture files are gone).
FuzzOutcome FuzzCommandResults(absl::string_view bytes);

}  // namespace hloref

#endif  // HLOREF_BACKENDS_COMMAND_FUZZ_COMMAND_FUZZ_ENTRY_H_
