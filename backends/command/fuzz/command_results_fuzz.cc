// libFuzzer target (docs/fuzzing.md, built with -DHLOREF_FUZZ=ON): what a
// `command:` program hands back (exit status, stderr, result_<i>.npy) is
// chosen by the input; the command backend must read it or refuse it with
// a clear error and leave nothing behind. The entry is shared with
// conformance/fuzz/fuzz_regression_test.cc.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "absl/strings/string_view.h"
#include "backends/command/fuzz/command_fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hloref::FuzzOutcome outcome = hloref::FuzzCommandResults(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!outcome.violation.empty()) {
    std::fprintf(stderr, "FuzzCommandResults: %s\n", outcome.violation.c_str());
    __builtin_trap();
  }
  return 0;
}
