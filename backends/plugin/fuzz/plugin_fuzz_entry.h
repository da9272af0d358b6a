// The plugin backend's fuzz entry (docs/fuzzing.md): what a plugin returns
// is chosen by the fuzzer's bytes. Shared by the libFuzzer target
// backends/plugin/fuzz/plugin_results_fuzz.cc and the regression test
// conformance/fuzz/fuzz_regression_test.cc.
#ifndef HLOREF_BACKENDS_PLUGIN_FUZZ_PLUGIN_FUZZ_ENTRY_H_
#define HLOREF_BACKENDS_PLUGIN_FUZZ_PLUGIN_FUZZ_ENTRY_H_

#include "absl/strings/string_view.h"
#include "spec/fuzz/fuzz_entries.h"

namespace hloref {

// Input: byte 0 picks the mode.
//
// Byte 0 % 4 == 3, a plugin writing to the host's socket: the rest of the
// input is taken as a reply frame's body and read as a run reply and as a
// compile reply (backends/plugin/plugin_replies.h). Checked: no crash, and
// every error has a message.
//
// Otherwise a fake plugin, in this process, implementing the functions of
// hloref_plugin.h, answers a compile and then a run as the rest of the
// input says: each call's status (the five hloref_status values or any
// other number), its error message (none, or a string), for the run the
// result count (0-4, negative, or large with a null array), a null or real
// results array, and per buffer its element type (null, every type name,
// "token", "tuple", or a string from the input), rank (0-5, or negative,
// 64, 65, huge), a null or real dims array, dimensions (0-3, or negative,
// 2^40, 2^40 + 1, huge), size_bytes (exact, off by a little, or any
// number), a null or real data pointer and the data bytes (raw, or masked
// to valid pred / sub-byte storage). Every pointer it hands out is valid
// for what the ABI says is read through it. What it returns goes through
// the host's encoder (plugin_host_replies.h) and the backend's reader
// (plugin_replies.h), exactly the code of a real run.
//
// Checked against the ABI's rules (hloref_plugin.h), restated here: a
// failed status gives an error of the matching code (Unknown for an
// unknown one) naming the plugin and quoting its message; an OK compile
// without an executable, a negative count or a null array for a non-zero
// count is InvalidArgument; a run whose buffers are all valid is accepted
// and each result has the buffer's type, dimensions and bytes; one with an
// invalid buffer is refused as InvalidArgument naming the first bad result
// ("result <i>: ..."); the plugin's message and results are each released
// exactly once (free_string, free_results with the array and count it
// returned).
FuzzOutcome FuzzPluginResults(absl::string_view bytes);

}  // namespace hloref

#endif  // HLOREF_BACKENDS_PLUGIN_FUZZ_PLUGIN_FUZZ_ENTRY_H_
