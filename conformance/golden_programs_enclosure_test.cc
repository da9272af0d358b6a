// golden/programs/*.golden judged a second way: the independently computed
// `expect:` values (numpy / hand, see each case's provenance) must lie
// inside the whole-program enclosures (interpreter/enclosure.h) the
// oracle computes on the case's arguments. This cross-checks the
// hand-composed budgets of those cases (their `compare:` lines) with the
// enclosures and the enclosures with independent values: a failure is
// either an unsound enclosure or a wrong expectation. The counts are
// printed (docs/enclosures.md quotes them).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backends/registry.h"
#include "conformance/compare/enclosure_model.h"
#include "conformance/harness/golden_case.h"
#include "gtest/gtest.h"
#include "interpreter/enclosure.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

#ifndef HLOREF_ENCLOSURE_CPU
void FlattenLiteral(const Literal& l, std::vector<Literal>& out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) FlattenLiteral(e, out);
  } else if (l.shape().IsArray()) {
    out.push_back(l);
  }
}

TEST(GoldenProgramsEnclosure, ExpectedValuesLieInsideTheEnclosures) {
  auto suite = LoadGoldenSuite(DefaultGoldenDir());
  ASSERT_TRUE(suite.ok()) << suite.status();
  int programs = 0;
  for (const GoldenCase& c : *suite) {
    if (c.kind != CaseKind::kProgram) continue;
    ++programs;
    SCOPED_TRACE(c.Id());
    auto module = ParseHloModule(c.module_text);
    ASSERT_TRUE(module.ok()) << module.status();
    ASSERT_TRUE(VerifyModule(**module).ok());
    std::vector<Literal> args;
    for (const std::string& a : c.args) {
      auto lit = ParseLiteral(a);
      ASSERT_TRUE(lit.ok()) << lit.status();
      args.push_back(*std::move(lit));
    }
    std::vector<Literal> expected;
    for (const std::string& e : c.expects) {
      auto lit = ParseLiteral(e);
      ASSERT_TRUE(lit.ok()) << lit.status();
      FlattenLiteral(*lit, expected);
    }
    auto enc = ComputeEnclosure(**module, args, PolicyEnclosureOptions());
    ASSERT_TRUE(enc.ok()) << enc.status();
    auto verdict = JudgeWithEnclosure(*enc, expected);
    ASSERT_TRUE(verdict.ok()) << verdict.status();
    std::printf("%s:\n%s", c.Id().c_str(), verdict->Summary().c_str());
    EXPECT_EQ(verdict->TotalFail(), 0) << verdict->Summary();
    // Every program here is made of ops with enclosure rules.
    EXPECT_EQ(verdict->TotalUnjudged(), 0) << verdict->Summary();
  }
  EXPECT_GE(programs, 5);
}
#endif

// Every golden case the pass can run (modules with host transfers,
// custom-call libraries or several participants are left out), its
// outputs on `backend_name` judged against the enclosures. Returns the
// number judged.
int JudgeEveryCase(const std::string& backend_name, int64_t* fails) {
  auto suite = LoadGoldenSuite(DefaultGoldenDir());
  EXPECT_TRUE(suite.ok()) << suite.status();
  if (!suite.ok()) return 0;
  auto backend = backends::CreateBackend(backend_name);
  EXPECT_TRUE(backend.ok()) << backend.status();
  if (!backend.ok()) return 0;
  int judged = 0, skipped = 0;
  int64_t pass = 0, unjudged = 0;
  // Unjudged elements by the first reason of their output (attributed
  // roughly: an output with several reasons counts under its first).
  std::map<std::string, int64_t> by_reason;
  *fails = 0;
  for (const GoldenCase& c : *suite) {
    if (c.kind == CaseKind::kError || c.HasHostTransfers() ||
        !c.custom_call_library.empty()) {
      continue;
    }
    auto module = ParseHloModule(c.module_text);
    if (!module.ok() || !VerifyModule(**module).ok() ||
        (*module)->config().replica_count * (*module)->config().num_partitions >
            1) {
      ++skipped;
      continue;
    }
    std::vector<Literal> args;
    bool ok = true;
    for (const std::string& a : c.args) {
      auto lit = ParseLiteral(a);
      if (!lit.ok()) {
        ok = false;
        break;
      }
      args.push_back(*std::move(lit));
    }
    auto exe = ok ? (*backend)->Compile(**module, backends::CompileOptions{})
                  : absl::StatusOr<std::unique_ptr<backends::Executable>>(
                        absl::InvalidArgumentError("bad arguments"));
    auto got = exe.ok() ? (*exe)->Run(args)
                        : absl::StatusOr<std::vector<Literal>>(exe.status());
    if (!got.ok()) {
      ++skipped;  // unsupported, or cases whose point is an error
      continue;
    }
    auto enc = ComputeEnclosure(**module, args, PolicyEnclosureOptions());
    EXPECT_TRUE(enc.ok()) << c.Id() << ": " << enc.status();
    if (!enc.ok()) continue;
    auto verdict = JudgeWithEnclosure(*enc, *got);
    EXPECT_TRUE(verdict.ok()) << c.Id() << ": " << verdict.status();
    if (!verdict.ok()) continue;
    if (verdict->TotalFail() > 0) {
      std::printf("%s on %s:\n%s", c.Id().c_str(), backend_name.c_str(),
                  verdict->Summary().c_str());
    }
    *fails += verdict->TotalFail();
    ++judged;
    for (const auto& o : verdict->outputs) {
      pass += o.pass;
      unjudged += o.unjudged + o.dont_care;
      if (o.unjudged + o.dont_care > 0) {
        const std::string reason =
            o.reasons.empty() ? "(wide)" : *o.reasons.begin();
        by_reason[reason] += o.unjudged + o.dont_care;
        // HLOREF_ENCLOSURE_UNJUDGED=1 lists the cases behind each reason.
        if (std::getenv("HLOREF_ENCLOSURE_UNJUDGED") != nullptr) {
          std::printf("  %s: %lld unjudged: %s\n", c.Id().c_str(),
                      static_cast<long long>(o.unjudged + o.dont_care),
                      reason.c_str());
        }
      }
    }
  }
  std::printf(
      "%s: %d golden cases judged (%d skipped): %lld elements pass, "
      "%lld unjudged or don't care, %lld fail\n",
      backend_name.c_str(), judged, skipped, static_cast<long long>(pass),
      static_cast<long long>(unjudged), static_cast<long long>(*fails));
  std::vector<std::pair<int64_t, std::string>> top;
  for (const auto& [r, n] : by_reason) top.push_back({n, r});
  std::sort(top.rbegin(), top.rend());
  for (size_t i = 0; i < top.size() && i < 25; ++i) {
    std::printf("  %6lld unjudged: %s\n", static_cast<long long>(top[i].first),
                top[i].second.c_str());
  }
  return judged;
}

#ifndef HLOREF_ENCLOSURE_CPU
// Soundness: the oracle is a conforming implementation, so its own value
// must lie inside every judged enclosure.
TEST(GoldenProgramsEnclosure,
     OracleValuesLieInsideTheirEnclosuresForEveryCase) {
  int64_t fails = 0;
  EXPECT_GT(JudgeEveryCase("interpreter", &fails), 100);
  EXPECT_EQ(fails, 0);
}
#else
// The CPU backend's values of every golden case against the enclosures
// (label slow: it compiles every case). A failure is a CPU backend
// departure (the per-op comparator fails it too) or an enclosure narrower
// than the comparator's acceptance.
TEST(GoldenEnclosureCpu, CpuBackendValuesAgainstTheEnclosures) {
  int64_t fails = 0;
  EXPECT_GT(JudgeEveryCase("cpu", &fails), 100);
  EXPECT_EQ(fails, 0);
}
#endif

}  // namespace
}  // namespace hloref::conformance
