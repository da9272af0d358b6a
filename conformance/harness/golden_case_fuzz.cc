// libFuzzer target (docs/fuzzing.md, built with -DHLOREF_FUZZ=ON): golden file
// text read by ParseGoldenFile (errors name file:line; accepted cases well
// formed; their modules and literals go through the parser). The entry is
// shared with conformance/fuzz/fuzz_regression_test.cc.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "absl/strings/string_view.h"
#include "conformance/fuzz/conformance_fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hloref::FuzzOutcome outcome = hloref::FuzzGoldenFileText(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!outcome.violation.empty()) {
    std::fprintf(stderr, "FuzzGoldenFileText: %s\n", outcome.violation.c_str());
    __builtin_trap();
  }
  return 0;
}
