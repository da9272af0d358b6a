// Tests of the report writers: multi-op programs (golden/programs/ cases)
// are reported in their own section with their own summary, and are not
// counted in the op x type matrix, whose unit is the single-op case.
#include "conformance/harness/report.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "spec/types/npy.h"

namespace hloref::conformance {
namespace {

CaseRecord Record(const std::string& id, const std::string& suite,
                  const std::string& op, const std::string& type,
                  Outcome outcome) {
  CaseRecord r;
  r.id = id;
  r.suite = suite;
  r.op = op;
  r.type = type;
  r.outcome = outcome;
  if (outcome == Outcome::kFail) r.message = "mismatch at {0}";
  return r;
}

SuiteResult Example() {
  SuiteResult s;
  s.records.push_back(
      Record("ops/add.golden:one", "golden", "add", "float", Outcome::kPass));
  s.records.push_back(
      Record("gen/add/3", "generated", "add", "f32", Outcome::kFail));
  s.records.push_back(Record("programs/mlp.golden:mlp_layer", "golden", "dot",
                             "float", Outcome::kPass));
  s.records.push_back(Record("programs/softmax.golden:softmax_rows", "golden",
                             "reduce", "float", Outcome::kFail));
  s.records.push_back(Record("programs/softmax.golden:softmax_big", "golden",
                             "reduce", "float", Outcome::kPass));
  for (const CaseRecord& r : s.records) s.summary.Add(r.outcome);
  return s;
}

TEST(Report, ProgramCasesAreRecognisedByTheirFile) {
  const SuiteResult s = Example();
  EXPECT_FALSE(IsProgramCase(s.records[0]));
  EXPECT_FALSE(IsProgramCase(s.records[1]));
  EXPECT_TRUE(IsProgramCase(s.records[2]));
  // A generated case is never a program, whatever its id.
  EXPECT_FALSE(IsProgramCase(
      Record("programs/x", "generated", "add", "f32", Outcome::kPass)));
}

TEST(Report, SummariesSplitSingleOpAndPrograms) {
  const SuiteResult s = Example();
  const Summary single = SummaryOf(s, false);
  const Summary programs = SummaryOf(s, true);
  EXPECT_EQ(single.total(), 2);
  EXPECT_EQ(single.counts[static_cast<int>(Outcome::kPass)], 1);
  EXPECT_EQ(single.counts[static_cast<int>(Outcome::kFail)], 1);
  EXPECT_EQ(programs.total(), 3);
  EXPECT_EQ(programs.counts[static_cast<int>(Outcome::kPass)], 2);
  EXPECT_EQ(programs.counts[static_cast<int>(Outcome::kFail)], 1);
  EXPECT_EQ(ProgramsSummaryLine(s).rfind("programs: pass 2, fail 1", 0), 0u)
      << ProgramsSummaryLine(s);
}

TEST(Report, JsonHasAProgramsSectionAndAMatrixWithoutThem) {
  const SuiteResult s = Example();
  ReportMeta meta;
  meta.backend = "interpreter";
  const std::string j = ReportJson(s, meta);
  EXPECT_NE(j.find("\"summary\": {\"pass\": 3, \"fail\": 2"), std::string::npos)
      << j;
  EXPECT_NE(j.find("\"single_op_summary\": {\"pass\": 1, \"fail\": 1"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("\"programs\": {\"summary\": {\"pass\": 2, \"fail\": 1"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("{\"id\": \"programs/mlp.golden:mlp_layer\", \"op\": "
                   "\"dot\", \"outcome\": \"pass\"}"),
            std::string::npos)
      << j;
  // The matrix has add only: dot and reduce appear only through programs.
  const size_t matrix = j.find("\"matrix\": {");
  const size_t cases = j.find("\"cases\": [", matrix);
  ASSERT_NE(matrix, std::string::npos);
  ASSERT_NE(cases, std::string::npos);
  const std::string m = j.substr(matrix, cases - matrix);
  EXPECT_NE(m.find("\"add\""), std::string::npos) << m;
  EXPECT_EQ(m.find("\"dot\""), std::string::npos) << m;
  EXPECT_EQ(m.find("\"reduce\""), std::string::npos) << m;
  EXPECT_NE(j.find("\"id\": \"programs/mlp.golden:mlp_layer\", \"suite\": "
                   "\"golden\", \"program\": true"),
            std::string::npos);
  EXPECT_NE(j.find("\"id\": \"gen/add/3\", \"suite\": \"generated\", "
                   "\"program\": false"),
            std::string::npos);
}

TEST(Report, JunitPutsProgramsInTheirOwnTestsuite) {
  const SuiteResult s = Example();
  ReportMeta meta;
  meta.backend = "interpreter";
  const std::string x = ReportJunit(s, meta);
  EXPECT_NE(x.find("<testsuite name=\"programs\" tests=\"3\" failures=\"1\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<testsuite name=\"golden\" tests=\"1\" failures=\"0\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("classname=\"programs.reduce\" "
                   "name=\"programs/softmax.golden:softmax_rows\""),
            std::string::npos)
      << x;
}

TEST(Report, HtmlShowsProgramsSeparately) {
  const SuiteResult s = Example();
  ReportMeta meta;
  meta.backend = "interpreter";
  const std::string h = ReportHtml(s, meta);
  EXPECT_NE(h.find("Single-op cases (the unit of certification): pass 1, "
                   "fail 1"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("Multi-op programs: pass 2, fail 1"), std::string::npos);
  const size_t section = h.find("<h2>Multi-op programs</h2>");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(h.find("programs/softmax.golden:softmax_rows", section),
            std::string::npos);
  // The matrix (before the section) has no row for the programs' ops.
  const std::string matrix = h.substr(0, section);
  EXPECT_EQ(matrix.find("<th class=\"op\">dot</th>"), std::string::npos);
  EXPECT_NE(matrix.find("<th class=\"op\">add</th>"), std::string::npos);
}

// A failing replicated case's directory replays it as judged: every
// participant's arguments (p<i>/arg_<k>.npy), the README's command, and
// FAILURE with the explanation.
TEST(Report, FailingReplicatedCaseDirectoryKeepsEveryParticipant) {
  SuiteResult s;
  CaseRecord r = Record("gen/all-reduce/7", "generated", "all-reduce", "s32",
                        Outcome::kFail);
  r.module_text = R"(HloModule m, replica_count=2
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[2] parameter(0)
  ROOT r = s32[2] all-reduce(x), replica_groups={}, to_apply=add
})";
  r.replica_count = 2;
  r.args.push_back(Literal::CreateR1<int32_t>(PrimitiveType::kS32, {1, 2}));
  r.participant_args.push_back(
      {Literal::CreateR1<int32_t>(PrimitiveType::kS32, {1, 2})});
  r.participant_args.push_back(
      {Literal::CreateR1<int32_t>(PrimitiveType::kS32, {30, 40})});
  s.records.push_back(r);
  s.summary.Add(r.outcome);
  const std::string dir =
      (std::filesystem::path(::testing::TempDir()) / "report_cases").string();
  std::filesystem::remove_all(dir);
  ReportMeta meta;
  meta.backend = "test";
  ASSERT_TRUE(WriteReportDir(dir, s, meta).ok());
  const std::string case_dir = dir + "/cases/" + "all-reduce_7";
  ASSERT_TRUE(std::filesystem::exists(case_dir + "/module.hlo")) << case_dir;
  auto p1 = ReadNpyFile(case_dir + "/p1/arg_0.npy");
  ASSERT_TRUE(p1.ok()) << p1.status();
  EXPECT_EQ(*p1, Literal::CreateR1<int32_t>(PrimitiveType::kS32, {30, 40}));
  std::ifstream failure(case_dir + "/FAILURE");
  std::stringstream text;
  text << failure.rdbuf();
  EXPECT_NE(text.str().find("mismatch at {0}"), std::string::npos);
  std::ifstream readme(case_dir + "/README");
  std::stringstream rtext;
  rtext << readme.rdbuf();
  EXPECT_NE(rtext.str().find("--participant-args="), std::string::npos)
      << rtext.str();
}

}  // namespace
}  // namespace hloref::conformance
