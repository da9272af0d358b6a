// Every golden case (golden/ops, programs, errors, regressions) through the
// reference interpreter, one test per case. Unsupported cases (op not yet
// implemented) and cases for another profile are skipped with the reason;
// cases marked known_failure pass while they fail and fail once they pass.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "conformance/harness/coverage.h"
#include "conformance/harness/golden_case.h"
#include "conformance/harness/runner.h"
#include "gtest/gtest.h"

namespace hloref::conformance {
namespace {

struct Loaded {
  std::vector<GoldenCase> cases;
  std::string error;
};

const Loaded& Suite() {
  static const Loaded* loaded = [] {
    auto* l = new Loaded;
    auto cases = LoadGoldenSuite(DefaultGoldenDir());
    if (cases.ok()) {
      l->cases = *std::move(cases);
    } else {
      l->error = std::string(cases.status().message());
    }
    return l;
  }();
  return *loaded;
}

std::vector<int> CaseIndices() {
  std::vector<int> v;
  for (size_t i = 0; i < Suite().cases.size(); ++i) v.push_back(int(i));
  return v;
}

TEST(GoldenSuite, Loads) {
  EXPECT_EQ(Suite().error, "");
  EXPECT_GT(Suite().cases.size(), 0u);
}

bool ReadText(const std::filesystem::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

// The source files of test binary `binary`: the SOURCES of its
// `hloref_test(<binary> SOURCES ...)` line in some CMakeLists.txt of the
// project (paths relative to that CMakeLists' directory).
std::vector<std::filesystem::path> TestSources(
    const std::filesystem::path& root, const std::string& binary) {
  namespace fs = std::filesystem;
  std::vector<fs::path> sources;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (it->is_directory() &&
        (absl::StartsWith(name, "build") || absl::StartsWith(name, "."))) {
      it.disable_recursion_pending();
      continue;
    }
    if (name != "CMakeLists.txt") continue;
    std::string text;
    if (!ReadText(it->path(), &text)) continue;
    const std::string start = absl::StrCat("hloref_test(", binary, " ");
    size_t at = text.find(start);
    if (at == std::string::npos) continue;
    size_t end = text.find(')', at);
    std::vector<std::string> words =
        absl::StrSplit(text.substr(at + start.size(), end - at - start.size()),
                       absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
    bool in_sources = false;
    for (const std::string& w : words) {
      if (w == "SOURCES") {
        in_sources = true;
      } else if (w == "DEPS" || w == "LABELS" || w == "TIMEOUT") {
        in_sources = false;
      } else if (in_sources) {
        sources.push_back(it->path().parent_path() / w);
      }
    }
  }
  return sources;
}

// Checks a checklist reference `<binary>/<Suite>.<Name>`: the binary is a
// hloref_test target and one of its sources defines TEST(Suite, Name)
// (or TEST_F / TEST_P). "" when it does, the problem otherwise.
std::string CheckTestReference(const std::filesystem::path& root,
                               const std::string& ref) {
  const size_t slash = ref.find('/');
  const size_t dot = ref.find('.', slash == std::string::npos ? 0 : slash);
  if (slash == std::string::npos || dot == std::string::npos) {
    return absl::StrCat("`test:", ref, "` is not test:<binary>/<Suite>.<Name>");
  }
  const std::string binary = ref.substr(0, slash);
  const std::string suite = ref.substr(slash + 1, dot - slash - 1);
  const std::string name = ref.substr(dot + 1);
  std::vector<std::filesystem::path> sources = TestSources(root, binary);
  if (sources.empty()) {
    return absl::StrCat("`test:", ref, "`: no hloref_test(", binary,
                        " SOURCES ...) in any CMakeLists.txt");
  }
  for (const auto& source : sources) {
    std::string text;
    if (!ReadText(source, &text)) continue;
    for (const char* macro : {"TEST(", "TEST_F(", "TEST_P("}) {
      if (absl::StrContains(text,
                            absl::StrCat(macro, suite, ", ", name, ")"))) {
        return "";
      }
    }
  }
  return absl::StrCat("`test:", ref, "`: no TEST(", suite, ", ", name,
                      ") in the sources of ", binary);
}

TEST(GoldenSuite, SeedChecklistMatchesCases) {
  std::ifstream in(DefaultGoldenDir() + "/README.md");
  ASSERT_TRUE(in) << "golden/README.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<ChecklistItem> items = ParseChecklist(ss.str());
  EXPECT_GT(items.size(), 20u) << "the seed example checklist is missing";
  std::vector<std::string> problems = CheckChecklist(items, Suite().cases);
  // Items may name unit tests (`test:<binary>/<Suite>.<Name>`) for seed
  // examples that are not HLO programs; each must exist.
  const std::filesystem::path root =
      std::filesystem::path(DefaultGoldenDir()).parent_path();
  for (const ChecklistItem& item : items) {
    for (const std::string& ref : item.test_ids) {
      std::string problem = CheckTestReference(root, ref);
      if (!problem.empty()) {
        problems.push_back(
            absl::StrCat("README.md:", item.line, ": ", problem));
      }
    }
  }
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
}

TEST(GoldenSuite, ChecklistTestReferencesAreChecked) {
  // The check above must reject references that do not resolve.
  const std::filesystem::path root =
      std::filesystem::path(DefaultGoldenDir()).parent_path();
  EXPECT_EQ(CheckTestReference(root,
                               "layout_util_test/LayoutUtil."
                               "SeedPaddedDimensionsColumnMajor"),
            "");
  EXPECT_NE(CheckTestReference(root, "layout_util_test/LayoutUtil.NoSuch"), "");
  EXPECT_NE(CheckTestReference(root,
                               "no_such_test/LayoutUtil."
                               "SeedPaddedDimensionsColumnMajor"),
            "");
  EXPECT_NE(CheckTestReference(root, "layout_util_test"), "");
}

class GoldenCaseTest : public ::testing::TestWithParam<int> {};

TEST_P(GoldenCaseTest, MatchesInterpreter) {
  const GoldenCase& c = Suite().cases[GetParam()];
  RunOptions options;
  options.profile =
      c.profile == CaseProfile::kPortable ? Profile::kPortable : Profile::kXla;
  CaseResult r = RunGoldenCase(c, options);
  switch (r.outcome) {
    case Outcome::kPass:
      return;
    case Outcome::kFail:
      ADD_FAILURE() << r.message;
      return;
    case Outcome::kUnsupported:
      GTEST_SKIP() << "unsupported: " << r.message;
    case Outcome::kSkipped:
      GTEST_SKIP() << "skipped: " << r.message;
    case Outcome::kKnownFailure:
      RecordProperty("known_failure", c.known_failure);
      std::printf("KNOWN FAILURE %s\n", r.message.c_str());
      return;
  }
}

// Test names from case ids: `ops/add.golden:nan_lhs` -> ops_add_nan_lhs.
std::string TestName(const ::testing::TestParamInfo<int>& info) {
  const GoldenCase& c = Suite().cases[info.param];
  std::string file = c.file.substr(0, c.file.rfind(".golden"));
  std::string name = file + "_" + c.name;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name + "_" + std::to_string(info.param);
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenCaseTest,
                         ::testing::ValuesIn(CaseIndices()), TestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenCaseTest);

}  // namespace
}  // namespace hloref::conformance
