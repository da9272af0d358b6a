// libFuzzer target (docs/fuzzing.md, built with -DHLOREF_FUZZ=ON): HLO text
// parsed, verified and run by the oracle under low limits (element count,
// while iterations, call depth, bytes, wall time), so a slow input that no
// limit stops is a finding (libFuzzer's -timeout). The entry is shared with
// conformance/fuzz/fuzz_regression_test.cc.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "absl/strings/string_view.h"
#include "interpreter/fuzz/evaluator_fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hloref::FuzzOutcome outcome = hloref::FuzzEvaluateHloText(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!outcome.violation.empty()) {
    std::fprintf(stderr, "FuzzEvaluateHloText: %s\n",
                 outcome.violation.c_str());
    __builtin_trap();
  }
  return 0;
}
