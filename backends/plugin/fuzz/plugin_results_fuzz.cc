// libFuzzer target (docs/fuzzing.md, built with -DHLOREF_FUZZ=ON): what a
// plugin returns (statuses, messages, result counts, element types, ranks,
// dimensions, sizes, data, null pointers) is chosen by the input, through a
// fake plugin in this process and the host's and the backend's own code, or
// is a reply frame a plugin scribbled on the host's socket. The entry is
// shared with conformance/fuzz/fuzz_regression_test.cc.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "absl/strings/string_view.h"
#include "backends/plugin/fuzz/plugin_fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hloref::FuzzOutcome outcome = hloref::FuzzPluginResults(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!outcome.violation.empty()) {
    std::fprintf(stderr, "FuzzPluginResults: %s\n", outcome.violation.c_str());
    __builtin_trap();
  }
  return 0;
}
