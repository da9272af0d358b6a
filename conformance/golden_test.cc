// Every golden case (golden/ops, programs, errors, regressions) through the
// reference interpreter, one test per case. Unsupported cases (op not yet
// implemented) and cases for another profile are skipped with the reason;
// cases marked known_failure pass while they fail and fail once they pass.
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
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

TEST(GoldenSuite, SeedChecklistMatchesCases) {
  std::ifstream in(DefaultGoldenDir() + "/README.md");
  ASSERT_TRUE(in) << "golden/README.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<ChecklistItem> items = ParseChecklist(ss.str());
  EXPECT_GT(items.size(), 20u) << "the seed example checklist is missing";
  std::vector<std::string> problems = CheckChecklist(items, Suite().cases);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
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
