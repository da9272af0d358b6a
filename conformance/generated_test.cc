// The generated suite as GoogleTest tests: one test per generated case,
// so GoogleTest's sharding (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX, which
// ctest and CI fleets set) splits it across machines. Environment:
//   HLOREF_GENERATED_COUNT  cases (default 20000: seconds on 2 cores)
//   HLOREF_GENERATED_SEED   base seed (default 1)
//   HLOREF_BACKEND          backend name (default interpreter)
//   HLOREF_DEVIATIONS       declared deviations (default none)
//   HLOREF_DUMP_DIR         write each case to DIR/<op>_<seed>/ before it
//                           runs (module.hlo + arg_<k>.npy; replays with
//                           `hloref run`), e.g. to chase a crash
// Unsupported and skipped cases are GTEST_SKIP()ped with the reason.
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "backends/registry.h"
#include "conformance/harness/suite.h"
#include "gtest/gtest.h"

namespace hloref::conformance {
namespace {

std::string Env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

int64_t Count() {
  int64_t n = 20000;
  if (!absl::SimpleAtoi(Env("HLOREF_GENERATED_COUNT", "20000"), &n) || n < 0) {
    n = 20000;
  }
  return n;
}

uint64_t Seed() {
  uint64_t s = 1;
  if (!absl::SimpleAtoi(Env("HLOREF_GENERATED_SEED", "1"), &s)) s = 1;
  return s;
}

const std::vector<HloOpcode>& Ops() {
  static const auto* ops = new std::vector<HloOpcode>(SelectedGeneratedOps({}));
  return *ops;
}

class GeneratedCaseTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(GeneratedCaseTest, MatchesOracle) {
  const int64_t k = GetParam();
  const HloOpcode op = Ops()[k % Ops().size()];
  const uint64_t seed = Seed() + static_cast<uint64_t>(k) / Ops().size();
  SuiteOptions options;
  auto deviations = ParseDeviations(Env("HLOREF_DEVIATIONS", ""));
  ASSERT_TRUE(deviations.ok()) << deviations.status();
  options.deviations = *deviations;
  auto backend = backends::CreateBackend(Env("HLOREF_BACKEND", "interpreter"));
  if (!backend.ok() &&
      backend.status().code() == absl::StatusCode::kFailedPrecondition) {
    GTEST_SKIP() << backend.status();
  }
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto c = GenerateCase(op, seed);
  if (!c.ok()) {
    if (c.status().code() == absl::StatusCode::kFailedPrecondition) {
      GTEST_SKIP() << c.status();
    }
    FAIL() << c.status();
  }
  if (const char* dump = std::getenv("HLOREF_DUMP_DIR")) {
    std::string dir = absl::StrCat(dump, "/", HloOpcodeString(op), "_", seed);
    ASSERT_TRUE(WriteCaseDir(*c, dir).ok());
  }
  CaseRecord r = RunGeneratedCase(*c, **backend, options);
  switch (r.outcome) {
    case Outcome::kPass:
      return;
    case Outcome::kUnsupported:
      GTEST_SKIP() << "unsupported: " << r.message;
    case Outcome::kSkipped:
      GTEST_SKIP() << "skipped: " << r.message;
    default:
      ADD_FAILURE() << r.message << "\nmodule:\n" << r.module_text;
  }
}

std::vector<int64_t> Indices() {
  std::vector<int64_t> v;
  for (int64_t k = 0; k < Count(); ++k) v.push_back(k);
  return v;
}

std::string Name(const ::testing::TestParamInfo<int64_t>& info) {
  const HloOpcode op = Ops()[info.param % Ops().size()];
  std::string name(HloOpcodeString(op));
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return absl::StrCat(
      name, "_seed", Seed() + static_cast<uint64_t>(info.param) / Ops().size());
}

INSTANTIATE_TEST_SUITE_P(Generated, GeneratedCaseTest,
                         ::testing::ValuesIn(Indices()), Name);

}  // namespace
}  // namespace hloref::conformance
