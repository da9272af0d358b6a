// Test-only: replays the reproducers the fuzzers found
// (spec/ir/testdata/fuzz_regressions/<target>/, the directory named by the
// HLOREF_FUZZ_REGRESSIONS definition of the test target) through the entry
// their fuzz target uses. None may crash (ASan/UBSan in the fuzz build, a
// signal here), each must be refused with a message or accepted, and no
// invariant the entry checks may break. Shared by
// spec/fuzz/fuzz_regression_test.cc and
// conformance/fuzz/fuzz_regression_test.cc.
#ifndef HLOREF_SPEC_FUZZ_FUZZ_REGRESSION_REPLAY_H_
#define HLOREF_SPEC_FUZZ_FUZZ_REGRESSION_REPLAY_H_

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "spec/fuzz/fuzz_entries.h"

namespace hloref {

// Replays every file under <HLOREF_FUZZ_REGRESSIONS>/<target> (README.md
// aside; a missing directory holds none) and expects at least `at_least`.
inline void ReplayFuzzReproducers(
    const std::string& target,
    const std::function<FuzzOutcome(absl::string_view)>& entry,
    size_t at_least) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  const fs::path dir = fs::path(HLOREF_FUZZ_REGRESSIONS) / target;
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_regular_file() && e.path().filename() != "README.md") {
        files.push_back(e.path());
      }
    }
  }
  EXPECT_GE(files.size(), at_least) << "reproducers missing under " << target;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    FuzzOutcome outcome = entry(bytes.str());
    EXPECT_EQ(outcome.violation, "");
    if (!outcome.status.ok()) {
      EXPECT_NE(outcome.status.message(), "");
    }
  }
}

}  // namespace hloref

#endif  // HLOREF_SPEC_FUZZ_FUZZ_REGRESSION_REPLAY_H_
