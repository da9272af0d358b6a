// HLO text of modules that tests in several layers build the same way
// (header-only; for tests).
#ifndef HLOREF_SPEC_IR_TEST_MODULES_H_
#define HLOREF_SPEC_IR_TEST_MODULES_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace hloref::test_modules {

// The entry calling c<n-1>, which calls c<n-2>, ... down to c0, which
// negates its f32[] parameter: computations nested n + 1 deep, computing
// -x.
inline std::string CallChainModule(int64_t n) {
  std::string text =
      "HloModule chain\nc0 {\n  p = f32[] parameter(0)\n"
      "  ROOT r = f32[] negate(p)\n}\n";
  for (int64_t i = 1; i < n; ++i) {
    absl::StrAppend(&text, "c", i, " {\n  p = f32[] parameter(0)\n",
                    "  ROOT r = f32[] call(p), to_apply=c", i - 1, "\n}\n");
  }
  absl::StrAppend(&text, "ENTRY e {\n  p = f32[] parameter(0)\n",
                  "  ROOT r = f32[] call(p), to_apply=c", n - 1, "\n}\n");
  return text;
}

}  // namespace hloref::test_modules

#endif  // HLOREF_SPEC_IR_TEST_MODULES_H_
