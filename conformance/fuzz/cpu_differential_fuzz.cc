// libFuzzer target (docs/fuzzing.md, built with -DHLOREF_FUZZ=ON): the input
// chooses a generated case (op and seed); the CPU backend (its code
// generator and runtime instrumented, libLLVM-19.so not) and the oracle must
// agree (any fail verdict is a finding). The entry is shared with
// conformance/fuzz/fuzz_regression_test.cc.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "absl/strings/string_view.h"
#include "conformance/fuzz/cpu_differential_fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hloref::FuzzOutcome outcome = hloref::FuzzCpuDifferentialCase(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!outcome.violation.empty()) {
    std::fprintf(stderr, "FuzzCpuDifferentialCase: %s\n",
                 outcome.violation.c_str());
    __builtin_trap();
  }
  return 0;
}
