// The conformance suite runner: golden and generated cases on a backend,
// in parallel, sharded with GoogleTest's variables, every generated case
// judged against the oracle with the error model (compare/comparator.h).
// Results are four-valued (pass, fail, unsupported, skipped; golden cases
// add known failure) and deterministic: the same options give the same
// verdicts whatever the number of jobs.
#ifndef HLOREF_CONFORMANCE_HARNESS_SUITE_H_
#define HLOREF_CONFORMANCE_HARNESS_SUITE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "conformance/compare/comparator.h"
#include "conformance/generators/generator.h"
#include "conformance/harness/runner.h"

namespace hloref::conformance {

// Creates one backend instance per worker thread (backends need not be
// thread-safe).
using BackendFactory =
    std::function<absl::StatusOr<std::unique_ptr<backends::Backend>>()>;

struct SuiteOptions {
  std::string backend_name = "interpreter";
  BackendFactory backend_factory;  // required
  bool golden = true;
  bool generated = true;
  // Random well-conditioned multi-op programs (conformance/generators/
  // random_programs.h) per element type (f32 and bf16, filtered by
  // `types`), judged by their whole-program enclosures instead of the
  // comparator (docs/enclosures.md); ids "programs/random/<type>/<seed>",
  // seeds `seed`, `seed + 1`, ...; reported with the multi-op programs.
  // A program passes when every output element lies inside a narrow
  // enclosure, fails when one leaves it, and is skipped (with the count)
  // when some elements are unjudged. Not drawn when `ops` is set.
  int64_t programs = 0;
  std::string golden_dir;  // empty: DefaultGoldenDir()
  // Only cases about these ops / element types (HLO names); empty: all.
  std::set<std::string> ops;
  std::set<std::string> types;
  int64_t count = 20000;  // generated cases drawn (before the type filter)
  uint64_t seed = 1;      // generated case k uses seed + k / (number of ops)
  Deviations deviations;
  // nullopt: golden cases run under their own profile; generated under xla.
  std::optional<Profile> profile;
  backends::CompileOptions compile_options;
  int jobs = 1;
  int shard_index = 0;   // GTEST_SHARD_INDEX
  int total_shards = 1;  // GTEST_TOTAL_SHARDS
  // Golden cases this backend is known to fail, by case id, with the
  // reason (ParseExpectedFailures): such a case that fails is reported as
  // a known failure, one that passes as a failure ("fixed? remove it").
  // For differences of a peer such as XLA:CPU that hloref documents rather
  // than certifies (the golden file's own `known_failure:` is about the
  // oracle).
  std::map<std::string, std::string> expected_failures;
  // Progress: called after each case with (done, total) from one thread.
  std::function<void(int64_t, int64_t)> progress;
  // The oracle's byte limit (EvaluatorOptions::max_bytes) for generated
  // cases; 0: its default. `hloref reduce` passes the user's --max-bytes so
  // that candidates of a large module are judged at the limit the module
  // itself ran under (above it the oracle refuses and the case is skipped).
  int64_t max_bytes = 0;
};

// The expected-failures list: one case per line, `<case id> <reason>`
// (e.g. `ops/power.golden:s32_xla_corners XLA:CPU returns -1 for ...`);
// blank lines and lines starting with '#' are ignored. InvalidArgument
// with the line number for a line without a reason or a repeated id.
absl::StatusOr<std::map<std::string, std::string>> ParseExpectedFailures(
    absl::string_view text);

struct CaseRecord {
  std::string id;     // "ops/add.golden:nan" or "gen/add/17"
  std::string suite;  // "golden", "generated" or "programs"
  std::string op;
  std::string type;  // element type (generated) or type class (golden)
  Outcome outcome = Outcome::kFail;
  std::string message;  // why (fail, unsupported, skipped, known failure)
  std::vector<ElementFailure> failures;
  int64_t elements = 0, masked = 0;
  double max_ulp_distance = 0, worst_margin = 0;
  double seconds = 0;
  // Failing generated cases keep what replays them.
  std::string module_text;
  std::vector<Literal> args;
  // Replicated cases with per-participant arguments (args is participant
  // 0's), and the host inputs (infeed, recv) of host-transfer cases.
  std::vector<std::vector<Literal>> participant_args;
  backends::HostTransfers host;
  int64_t replica_count = 1, partition_count = 1;
};

struct SuiteResult {
  std::vector<CaseRecord> records;  // in case order
  Summary summary;
  double seconds = 0;
  int64_t generated_drawn = 0;  // generated cases in this shard
};

// The generated case list: index k -> (op, seed) over GeneratedOps()
// filtered by `ops`.
std::vector<HloOpcode> SelectedGeneratedOps(const std::set<std::string>& ops);

// Runs one generated case on `backend` (oracle first, then the backend,
// then the comparator). Replicated cases (GeneratedCase::replicated()) run
// every participant on both sides (Evaluator::RunReplicated,
// Executable::RunReplicated) and each participant's outputs are judged
// against the oracle's for that participant; a failure names the first
// failing participant ("replica 1 partition 0"). Host-transfer cases
// (uses_host) run with host queues on both sides (EvaluatorOptions::
// host_queues, Executable::RunWithHost); the results are judged as usual
// and every outfeed / host-transfer send value must match the oracle's bit
// for bit, in the same count and order. A backend answering Unimplemented
// to RunReplicated / RunWithHost makes the case unsupported.
CaseRecord RunGeneratedCase(const GeneratedCase& c, backends::Backend& backend,
                            const SuiteOptions& options);

absl::StatusOr<SuiteResult> RunSuite(const SuiteOptions& options);

// What WriteCaseDir needs to write a failing generated case's directory
// (module text, every participant's arguments, host inputs, participant
// counts; `module` stays null), rebuilt from its record, so a report can
// write replayable directories for replicated and host-transfer cases too.
// InvalidArgument for records that kept no case (passing or golden ones).
absl::StatusOr<GeneratedCase> CaseForReplay(const CaseRecord& record);

// The shard (index, total) from GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS;
// (0, 1) when unset; an error for malformed values.
absl::StatusOr<std::pair<int, int>> ShardFromEnvironment();

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_HARNESS_SUITE_H_
