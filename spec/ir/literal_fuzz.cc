// libFuzzer target (docs/fuzzing.md, built with -DHLOREF_FUZZ=ON):
// HLO literal text with its shape: parse, print, parse again (bitwise equal).
// The entry is shared with spec/fuzz/fuzz_regression_test.cc.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "absl/strings/string_view.h"
#include "spec/fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hloref::FuzzOutcome outcome = hloref::FuzzLiteralText(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!outcome.violation.empty()) {
    std::fprintf(stderr, "FuzzLiteralText: %s\n", outcome.violation.c_str());
    __builtin_trap();
  }
  return 0;
}
