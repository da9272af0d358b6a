// Random well-conditioned multi-op programs judged by their whole-program
// enclosures (interpreter/enclosure.h) on the interpreter backend and on
// the CPU backend (LLVM JIT): element-wise chains, broadcasts, row
// normalisations (reduce + divide), softmax rows (reduce max, subtract,
// exp), one dot, while loops carrying (counter, value) through 2-4
// iterations of v * c + d, attention shapes (softmax(q q^T c) v with q the
// row-normalised value and v the value), in f32 and bf16. Every value stays
// positive (data in [0.5, 2), ops that keep positivity), so no cancellation
// makes an enclosure wide: every element must pass, none may be unjudged (f32)
// and none may fail (both types). A failure is either a backend departing from
// the ops' semantics beyond their allowed error or an unsound enclosure.
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/registry.h"
#include "conformance/compare/enclosure_model.h"
#include "conformance/generators/random_programs.h"
#include "conformance/harness/report.h"
#include "conformance/harness/suite.h"
#include "gtest/gtest.h"
#include "interpreter/enclosure.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

void JudgeOn(const std::string& backend_name, bool bf16, int count) {
  auto backend = backends::CreateBackend(backend_name);
  ASSERT_TRUE(backend.ok()) << backend.status();
  int64_t pass = 0, unjudged = 0;
  int whiles = 0, attentions = 0;
  double radius = 0;
  for (int seed = 0; seed < count; ++seed) {
    RandomProgram p = MakeRandomProgram(static_cast<uint64_t>(seed), bf16);
    SCOPED_TRACE(p.text);
    whiles += p.whiles;
    attentions += p.attentions;
    auto module = ParseHloModule(p.text);
    ASSERT_TRUE(module.ok()) << module.status();
    ASSERT_TRUE(VerifyModule(**module).ok());
    auto enc = ComputeEnclosure(**module, p.args, PolicyEnclosureOptions());
    ASSERT_TRUE(enc.ok()) << enc.status();
    auto exe = (*backend)->Compile(**module, backends::CompileOptions{});
    ASSERT_TRUE(exe.ok()) << exe.status();
    auto got = (*exe)->Run(p.args);
    ASSERT_TRUE(got.ok()) << got.status();
    auto verdict = JudgeWithEnclosure(*enc, *got);
    ASSERT_TRUE(verdict.ok()) << verdict.status();
    EXPECT_EQ(verdict->TotalFail(), 0) << verdict->Summary();
    if (!bf16) {
      EXPECT_EQ(verdict->TotalUnjudged(), 0) << verdict->Summary();
    }
    pass += verdict->outputs[0].pass;
    unjudged += verdict->outputs[0].unjudged;
    radius = std::max(radius, verdict->outputs[0].max_relative_radius);
  }
  std::printf(
      "%s %s: %d programs (%d while loops, %d attention steps), %lld "
      "elements pass, %lld unjudged, largest relative radius %g\n",
      backend_name.c_str(), bf16 ? "bf16" : "f32", count, whiles, attentions,
      static_cast<long long>(pass), static_cast<long long>(unjudged), radius);
}

TEST(EnclosurePrograms, InterpreterF32) { JudgeOn("interpreter", false, 40); }
TEST(EnclosurePrograms, InterpreterBf16) { JudgeOn("interpreter", true, 40); }
// The CPU backend compiles each program (about half a second each): fewer.
TEST(EnclosurePrograms, CpuF32) { JudgeOn("cpu", false, 8); }
TEST(EnclosurePrograms, CpuBf16) { JudgeOn("cpu", true, 8); }

// The same programs as a conformance family (`hloref conformance
// --suite=programs`): counted with the multi-op programs, none fails on
// the interpreter, and passing ones keep nothing.
TEST(EnclosurePrograms, SuiteFamily) {
  SuiteOptions options;
  options.backend_factory = [] {
    return backends::CreateBackend("interpreter");
  };
  options.golden = false;
  options.generated = false;
  options.programs = 6;
  options.jobs = 2;
  auto result = RunSuite(options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->records.size(), 12u);
  EXPECT_EQ(result->records[0].id, "programs/random/f32/1");
  EXPECT_EQ(result->records[6].id, "programs/random/bf16/1");
  int64_t program_cases = 0;
  for (int64_t c : SummaryOf(*result, /*programs=*/true).counts) {
    program_cases += c;
  }
  EXPECT_EQ(program_cases, 12);
  EXPECT_EQ(result->summary.counts[static_cast<int>(Outcome::kFail)], 0);
  for (const CaseRecord& r : result->records) {
    if (r.type == "f32") {
      EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
    }
    if (r.outcome == Outcome::kPass) {
      EXPECT_TRUE(r.module_text.empty());
    }
  }
  std::printf("suite family: %s\n", result->summary.ToString().c_str());
}

}  // namespace
}  // namespace hloref::conformance
