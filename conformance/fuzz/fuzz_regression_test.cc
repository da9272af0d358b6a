// Every reproducer of the evaluator, command-backend, golden-reader and
// differential fuzz targets (spec/ir/testdata/fuzz_regressions/<target>/),
// fed through the entry its target uses: none may crash, each must be
// refused with a message or accepted, and no invariant may break.
// docs/fuzzing.md lists what each file once did. The text-reader targets'
// reproducers are replayed by spec/fuzz/fuzz_regression_test.cc.
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "backends/command/fuzz/command_fuzz_entry.h"
#include "conformance/fuzz/conformance_fuzz_entries.h"
#include "gtest/gtest.h"
#include "interpreter/fuzz/evaluator_fuzz_entry.h"

namespace hloref {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> Files(const std::string& target) {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(HLOREF_FUZZ_REGRESSIONS) / target;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().filename() != "README.md") {
      files.push_back(entry.path());
    }
  }
  return files;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void RunAll(const std::string& target,
            const std::function<FuzzOutcome(absl::string_view)>& entry,
            size_t at_least) {
  std::vector<fs::path> files = Files(target);
  EXPECT_GE(files.size(), at_least) << "reproducers missing under " << target;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    FuzzOutcome outcome = entry(Read(file));
    EXPECT_EQ(outcome.violation, "");
    if (!outcome.status.ok()) {
      EXPECT_NE(outcome.status.message(), "");
    }
  }
}

TEST(ConformanceFuzzRegression, EvaluatorReproducers) {
  RunAll("evaluator", FuzzEvaluateHloText, 0);
}

TEST(ConformanceFuzzRegression, CommandReproducers) {
  RunAll("command_results", FuzzCommandResults, 0);
}

TEST(ConformanceFuzzRegression, GoldenReproducers) {
  RunAll("golden_case", FuzzGoldenFileText, 0);
}

TEST(ConformanceFuzzRegression, DifferentialReproducers) {
  RunAll("differential", FuzzDifferentialCase, 1);
}

}  // namespace
}  // namespace hloref
