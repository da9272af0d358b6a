// Tests of the golden file reader: structure, continuation lines, line
// numbers and the errors for malformed files.
#include "conformance/harness/golden_case.h"

#include <string>

#include "gtest/gtest.h"

namespace hloref::conformance {
namespace {

constexpr char kTwoCases[] = R"(# a comment
case first
provenance: hand-derived
compare: ulp(1); exact
module:
  HloModule m
  ENTRY e {
    ROOT p = f32[2] parameter(0)
  }
arg: f32[2] {1,
  2}
expect: f32[2] {1, 2}

case second
provenance: seed example Clamp
profile: xla
impl: impl.divide.1, impl.divide.2
known_failure: interpreter bug
module:
  HloModule m2
  ENTRY e { ROOT c = s32[] constant(1) }
expect: s32[] 1
)";

TEST(ParseGoldenFile, ReadsFieldsAndContinuations) {
  auto cases =
      ParseGoldenFile(kTwoCases, "ops/add.golden", CaseKind::kOp, "add");
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_EQ(cases->size(), 2u);
  const GoldenCase& a = (*cases)[0];
  EXPECT_EQ(a.name, "first");
  EXPECT_EQ(a.line, 2);
  EXPECT_EQ(a.op(), "add");
  EXPECT_EQ(a.Id(), "ops/add.golden:first");
  ASSERT_EQ(a.compare.size(), 2u);
  EXPECT_EQ(a.compare[0].kind, CompareKind::kUlp);
  EXPECT_EQ(a.compare[1].kind, CompareKind::kExact);
  ASSERT_EQ(a.args.size(), 1u);
  EXPECT_EQ(a.args[0], "f32[2] {1, 2}");
  // The module starts on file line 6: five newlines come first.
  EXPECT_EQ(a.module_text.substr(0, 8), "\n\n\n\n\n  H");
  const GoldenCase& b = (*cases)[1];
  EXPECT_EQ(b.profile, CaseProfile::kXla);
  ASSERT_EQ(b.impl_ids.size(), 2u);
  EXPECT_EQ(b.impl_ids[1], "impl.divide.2");
  EXPECT_EQ(b.known_failure, "interpreter bug");
  ASSERT_EQ(b.compare.size(), 1u);  // default exact
  EXPECT_EQ(b.compare[0].kind, CompareKind::kExact);
}

void ExpectError(const std::string& text, const std::string& fragment,
                 CaseKind kind = CaseKind::kOp) {
  auto cases = ParseGoldenFile(text, "ops/x.golden", kind,
                               kind == CaseKind::kProgram ? "" : "x");
  ASSERT_FALSE(cases.ok()) << "accepted:\n" << text;
  EXPECT_NE(std::string(cases.status().message()).find(fragment),
            std::string::npos)
      << cases.status().message();
}

TEST(ParseGoldenFile, RejectsMalformedCases) {
  const std::string module = "module:\n  HloModule m\n";
  ExpectError("case a\n" + module + "expect: s32[] 1\n", "no 'provenance:'");
  ExpectError("case a\nprovenance: hand-derived\nexpect: s32[] 1\n",
              "no 'module:'");
  ExpectError("case a\nprovenance: hand-derived\n" + module, "no 'expect:'");
  ExpectError("case a\nprovenance: my guess\n" + module + "expect: s32[] 1\n",
              "provenance 'my guess'");
  ExpectError("case a\nprovenance: hand-derived\ncompare: near\n" + module +
                  "expect: s32[] 1\n",
              "ops/x.golden:3: unknown comparison");
  ExpectError(
      "case a\nprovenance: hand-derived\nimpl: divide.1\nprofile: "
      "xla\n" +
          module + "expect: s32[] 1\n",
      "not an impl.<op>.<n> ID");
  ExpectError("case a\nprovenance: hand-derived\nimpl: impl.divide.1\n" +
                  module + "expect: s32[] 1\n",
              "no 'profile:'");
  ExpectError("case a\nprovenance: hand-derived\nfrob: 1\n", "ops/x.golden:3");
  ExpectError("  indented\n", "outside a field");
  ExpectError("provenance: hand-derived\n", "before the first 'case'");
  ExpectError("case a b\n", "bad case name");
  ExpectError("case a\nprovenance: hand-derived\n" + module +
                  "expect: s32[] 1\ncase a\n",
              "defined twice");
  ExpectError("# nothing\n", "no cases");
  ExpectError(
      "case a\nprovenance: hand-derived\n" + module + "expect_error: x.C1\n",
      "golden/errors/ only");
  ExpectError("case a\nprovenance: hand-derived\n" + module +
                  "expect_error: whatever\n",
              "not a rule ID", CaseKind::kError);
  ExpectError(
      "case a\nprovenance: hand-derived\n" + module + "expect: s32[] 1\n",
      "no 'op:'", CaseKind::kProgram);
}

TEST(ParseGoldenFile, ErrorCases) {
  auto cases = ParseGoldenFile(
      "case bad\nprovenance: hand-derived\nexpect_error: add.C1\nmodule:\n"
      "  HloModule m\n",
      "errors/add.golden", CaseKind::kError, "add");
  ASSERT_TRUE(cases.ok()) << cases.status();
  EXPECT_EQ((*cases)[0].expect_error, "add.C1");
}

}  // namespace
}  // namespace hloref::conformance
