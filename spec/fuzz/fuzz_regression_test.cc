// Every reproducer the fuzzers found (spec/ir/testdata/fuzz_regressions/
// <target>/), fed through the entry its target uses (spec/fuzz/
// fuzz_entries.h): none may crash (ASan/UBSan in the fuzz build, a signal
// here), each must be refused with a message or accepted, and no invariant
// (round trip, reader agreement) may break. docs/fuzzing.md lists what each
// file once did.
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "spec/fuzz/fuzz_entries.h"

namespace hloref {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> Files(const std::string& target) {
  std::vector<fs::path> files;
  for (const auto& entry :
       fs::directory_iterator(fs::path(HLOREF_FUZZ_REGRESSIONS) / target)) {
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

TEST(FuzzRegression, HloModuleReproducers) {
  RunAll("hlo_module", FuzzHloModuleText, 0);
}

TEST(FuzzRegression, LiteralReproducers) {
  RunAll("literal", FuzzLiteralText, 2);
}

TEST(FuzzRegression, NpyReproducers) { RunAll("npy", FuzzNpyBytes, 1); }

}  // namespace
}  // namespace hloref
