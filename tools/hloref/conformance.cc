// `hloref conformance --backend=NAME [--suite=golden,generated] ...`: run
// the golden suite and the generated suite on the interpreter or any
// registered backend (backends/registry.h), judge every generated case
// against the oracle with the error model of docs/numerics.md 7, print a
// summary and write JSON / JUnit / HTML reports.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/registry.h"
#include "conformance/harness/report.h"
#include "conformance/harness/suite.h"
#include "tools/hloref/arguments.h"
#include "tools/hloref/command_line.h"
#include "tools/hloref/cpu_flags.h"
#include "tools/hloref/stablehlo_suite.h"
#include "tools/hloref/subcommands.h"

namespace hloref::tools {
namespace {

constexpr char kConformanceHelp[] =
    R"(Usage: hloref conformance [options]

Runs the conformance suites on a backend: golden cases (checked-in,
hand-derived expected values) and generated cases (random shapes,
attributes, element types and special values, judged against the oracle
with the per-element error model of docs/numerics.md 7). Prints a summary
with pass, fail, unsupported, skipped and known-failure counts; every
failure explains itself: case, output, element, inputs, expected, got,
bound, ULP distance and rule.

Options:
  --backend=NAME          backend to certify: interpreter (default), cpu
                          (the LLVM JIT compiler, options below),
                          plugin:PATH.so (a library with the C ABI of
                          backends/plugin/hloref_plugin.h) or
                          command:PROGRAM (the out-of-process protocol of
                          backends/command/command_backend.h, e.g.
                          command:tools/backends/xla_jax.py for XLA:CPU)
  --suite=S[,S]           golden, generated (default: both), programs
                          (random well-conditioned multi-op programs in
                          f32 and bf16 judged by their whole-program
                          enclosures, docs/enclosures.md; --programs=N
                          per type, default 40, seeds from --seed), or
                          stablehlo:DIR (StableHLO's test-data format:
                          each file judged by its own checks and against
                          the oracle; --deviations, --profile and
                          --report=DIR (report.json) apply;
                          docs/stablehlo.md)
  --ops=OP[,OP...]        only cases about these ops (HLO names)
  --types=T[,T...]        only cases of these element types (generated:
                          f32, s8, ...; golden: pred, signed, unsigned,
                          float, complex); --count counts before this filter
  --count=N               generated cases to draw (default 20000), spread
                          round-robin over the ops with a generator
  --seed=S                base seed of the generated cases (default 1);
                          case k of op list L is (L[k % |L|], S + k / |L|)
  --deviations=D[,D...]   declared deviations (default none): xla-cpu,
                          ftz[=T+T], dot-input=tf32|bf16|f16,
                          dot-accumulation=T, truncating-accumulation,
                          fast-min-max, divide-ulp=N, saturating-f8,
                          fma-contraction
  --profile=case|xla|portable
                          case (default): golden cases run under their own
                          profile, generated under xla; xla or portable:
                          one profile (portable masks implementation-
                          defined elements)
  --jobs=N                worker threads (default: the number of cores)
  --report=DIR            write DIR/report.json, report.html, junit.xml and
                          DIR/cases/<op>_<seed>/ for failing generated cases
  --junit=FILE            also write the JUnit XML to FILE
  --timeout=SECONDS       command and plugin backends: kill a compile or
                          run after this long (default 300)
  --keep-files            command backends: keep each run's exchange
                          directory (printed in failure messages)
  --golden-dir=DIR        the golden suite (default: the source tree's)
  --expected-failures=FILE
                          golden cases this backend is known to fail, one
                          per line: `<case id> <reason>` ('#' comments); a
                          listed case that fails is a known failure, one
                          that passes is a failure (remove it from the
                          list), e.g. conformance/xla_cpu_expected_failures.txt
  --list-ops              print the ops that have a case generator (the
                          ops excluded by design, with the reason, on
                          stderr)
  --verbose               also list unsupported and skipped cases
  --help                  show this text

Sharding: GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX in the environment run
only this shard's cases (case i belongs to shard i % total).

Exit status: 0 no failures, 1 a case failed or the suite does not load,
2 usage error.
)";

int Usage(const std::string& message) {
  std::fprintf(stderr, "hloref conformance: %s\n", message.c_str());
  return 2;
}

std::set<std::string> SplitList(const std::string& text) {
  std::set<std::string> out;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (!item.empty()) out.emplace(item);
  }
  return out;
}

// A progress bar on a terminal, plain lines (every 10%) otherwise.
class Progress {
 public:
  Progress() : tty_(isatty(fileno(stderr)) != 0) {}
  void Update(int64_t done, int64_t total) {
    if (total <= 0) return;
    if (tty_) {
      const int width = 40;
      const int filled = static_cast<int>(width * done / total);
      std::fprintf(stderr, "\r[%s%s] %lld/%lld",
                   std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(),
                   static_cast<long long>(done), static_cast<long long>(total));
      if (done == total) std::fprintf(stderr, "\n");
      std::fflush(stderr);
      return;
    }
    const int64_t tenth = done * 10 / total;
    if (tenth != last_tenth_ || done == total) {
      last_tenth_ = tenth;
      std::fprintf(stderr, "progress: %lld/%lld cases\n",
                   static_cast<long long>(done), static_cast<long long>(total));
    }
  }

 private:
  bool tty_;
  int64_t last_tenth_ = -1;
};

}  // namespace

int RunConformance(int argc, char** argv) {
  std::vector<OptionSpec> specs = {{"backend", true},
                                   {"suite", true},
                                   {"ops", true},
                                   {"types", true},
                                   {"count", true},
                                   {"seed", true},
                                   {"programs", true},
                                   {"deviations", true},
                                   {"profile", true},
                                   {"jobs", true},
                                   {"report", true},
                                   {"junit", true},
                                   {"timeout", true},
                                   {"keep-files", false},
                                   {"golden-dir", true},
                                   {"list-ops", false},
                                   {"expected-failures", true},
                                   {"verbose", false},
                                   {"help", false}};
  AddCpuOptionSpecs(&specs);
  auto cl = CommandLine::Parse(argc, argv, 2, specs);
  if (!cl.ok()) return Usage(std::string(cl.status().message()));
  if (cl->Has("help")) {
    std::fputs(kConformanceHelp, stdout);
    std::printf("\nCPU backend options:\n%s", kCpuFlagsHelp);
    return 0;
  }
  if (absl::Status flags = ApplyCpuFlags(*cl); !flags.ok()) {
    return Usage(std::string(flags.message()));
  }
  if (!cl->positional().empty()) {
    return Usage(
        absl::StrCat("unexpected argument '", cl->positional()[0], "'"));
  }
  if (cl->Has("list-ops")) {
    for (HloOpcode op : conformance::GeneratedOps()) {
      std::printf("%s\n", std::string(HloOpcodeString(op)).c_str());
    }
    // stdout stays one op per line; the ops excluded by design go to
    // stderr with their reason.
    for (const auto& [op, reason] : conformance::ExcludedFromGeneration()) {
      std::fprintf(stderr, "no generator for %s (by design): %s\n",
                   std::string(HloOpcodeString(op)).c_str(), reason.c_str());
    }
    return 0;
  }
  conformance::SuiteOptions options;
  options.backend_name = cl->Get("backend").value_or("interpreter");
  {
    // Fail early (and with a usage error for an unknown name).
    auto probe = backends::CreateBackend(options.backend_name);
    if (!probe.ok()) {
      std::fprintf(stderr, "hloref conformance: %s\n",
                   std::string(probe.status().message()).c_str());
      return probe.status().code() == absl::StatusCode::kInvalidArgument ? 2
                                                                         : 1;
    }
  }
  const std::string backend_name = options.backend_name;
  options.backend_factory = [backend_name] {
    return backends::CreateBackend(backend_name);
  };
  options.compile_options.keep_files = cl->Has("keep-files");
  if (auto t = cl->Get("timeout")) {
    double seconds = 0;
    if (!absl::SimpleAtod(*t, &seconds) || !(seconds > 0)) {
      return Usage(absl::StrCat(
          "--timeout must be a positive number of seconds, got '", *t, "'"));
    }
    options.compile_options.timeout = absl::Seconds(seconds);
  }
  if (auto s = cl->Get("suite"); s && absl::StartsWith(*s, "stablehlo:")) {
    StableHloSuiteOptions suite;
    suite.backend_name = backend_name;
    auto deviations =
        conformance::ParseDeviations(cl->Get("deviations").value_or(""));
    if (!deviations.ok()) {
      return Usage(std::string(deviations.status().message()));
    }
    suite.deviations = *deviations;
    // The profile of the oracle verdict: xla unless --profile=portable.
    suite.profile = cl->Get("profile").value_or("xla") == "portable"
                        ? Profile::kPortable
                        : Profile::kXla;
    suite.verbose = cl->Has("verbose");
    suite.report_dir = cl->Get("report").value_or("");
    return RunStableHloSuite(s->substr(10), suite);
  }
  const std::set<std::string> suites =
      SplitList(cl->Get("suite").value_or("golden,generated"));
  for (const std::string& s : suites) {
    if (s != "golden" && s != "generated" && s != "programs") {
      return Usage(absl::StrCat("unknown suite '", s,
                                "' (available: golden, generated, "
                                "programs)"));
    }
  }
  options.golden = suites.count("golden") > 0;
  options.generated = suites.count("generated") > 0;
  if (suites.count("programs") > 0) {
    auto programs = cl->GetInt("programs", 40);
    if (!programs.ok() || *programs < 0) {
      return Usage("--programs must be a non-negative integer");
    }
    options.programs = *programs;
  }
  if (auto ops = cl->Get("ops")) {
    options.ops = SplitList(*ops);
    for (const std::string& op : options.ops) {
      if (!ParseHloOpcode(op).ok()) {
        return Usage(absl::StrCat("--ops: unknown op '", op, "'"));
      }
    }
  }
  if (auto types = cl->Get("types")) options.types = SplitList(*types);
  auto count = cl->GetInt("count", 20000);
  if (!count.ok() || *count < 0) {
    return Usage("--count must be a non-negative integer");
  }
  options.count = *count;
  auto seed = cl->GetInt("seed", 1);
  if (!seed.ok() || *seed < 0)
    return Usage("--seed must be a non-negative integer");
  options.seed = static_cast<uint64_t>(*seed);
  auto deviations =
      conformance::ParseDeviations(cl->Get("deviations").value_or(""));
  if (!deviations.ok())
    return Usage(std::string(deviations.status().message()));
  options.deviations = *deviations;
  const std::string profile = cl->Get("profile").value_or("case");
  if (profile == "xla") {
    options.profile = Profile::kXla;
  } else if (profile == "portable") {
    options.profile = Profile::kPortable;
  } else if (profile != "case") {
    return Usage(absl::StrCat("--profile must be case, xla or portable, got '",
                              profile, "'"));
  }
  auto jobs = cl->GetInt(
      "jobs", std::max<int64_t>(1, std::thread::hardware_concurrency()));
  if (!jobs.ok() || *jobs < 1 || *jobs > 1024) {
    return Usage("--jobs must be an integer in [1, 1024]");
  }
  options.jobs = static_cast<int>(*jobs);
  if (auto path = cl->Get("expected-failures")) {
    auto text = ReadFile(*path);
    if (!text.ok()) return Usage(std::string(text.status().message()));
    auto expected = conformance::ParseExpectedFailures(*text);
    if (!expected.ok()) {
      return Usage(absl::StrCat(*path, ": ", expected.status().message()));
    }
    options.expected_failures = std::move(*expected);
  }
  if (!cl->Get("golden-dir").value_or("").empty()) {
    options.golden_dir = *cl->Get("golden-dir");
  }
  auto shard = conformance::ShardFromEnvironment();
  if (!shard.ok()) return Usage(std::string(shard.status().message()));
  options.shard_index = shard->first;
  options.total_shards = shard->second;
  Progress progress;
  options.progress = [&progress](int64_t done, int64_t total) {
    progress.Update(done, total);
  };

  auto result = conformance::RunSuite(options);
  if (!result.ok()) {
    std::fprintf(stderr, "hloref conformance: %s\n",
                 std::string(result.status().message()).c_str());
    return result.status().code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
  }
  const bool verbose = cl->Has("verbose");
  for (const conformance::CaseRecord& r : result->records) {
    const bool show = r.outcome == conformance::Outcome::kFail ||
                      r.outcome == conformance::Outcome::kKnownFailure ||
                      (verbose && r.outcome != conformance::Outcome::kPass);
    if (!show) continue;
    std::printf("%s: %s\n",
                std::string(conformance::OutcomeName(r.outcome)).c_str(),
                r.message.empty() ? r.id.c_str() : r.message.c_str());
    for (size_t i = 1; i < r.failures.size(); ++i) {
      std::printf("    %s\n", r.failures[i].ToString().c_str());
    }
  }
  conformance::ReportMeta meta;
  meta.backend = options.backend_name;
  meta.suites = absl::StrJoin(suites, ",");
  meta.profile = profile;
  meta.deviations = options.deviations;
  meta.seed = options.seed;
  meta.count = options.generated ? options.count : 0;
  meta.jobs = options.jobs;
  meta.shard_index = options.shard_index;
  meta.total_shards = options.total_shards;
  std::vector<std::string> args(argv, argv + argc);
  meta.command_line = absl::StrJoin(args, " ");
  std::printf("%s on %s: %s in %.1f s (%d jobs%s)\n", meta.suites.c_str(),
              meta.backend.c_str(), result->summary.ToString().c_str(),
              result->seconds, options.jobs,
              options.deviations.empty()
                  ? ""
                  : absl::StrCat(", deviations ", options.deviations.ToString())
                        .c_str());
  // Single-op cases are the unit of certification; multi-op programs are
  // reported beside them.
  const conformance::Summary single_op =
      conformance::SummaryOf(*result, /*programs=*/false);
  const conformance::Summary programs =
      conformance::SummaryOf(*result, /*programs=*/true);
  int64_t program_cases = 0;
  for (int64_t c : programs.counts) program_cases += c;
  if (program_cases > 0) {
    std::printf("single-op cases: %s\n%s\n", single_op.ToString().c_str(),
                conformance::ProgramsSummaryLine(*result).c_str());
  }
  if (std::string cpu = cpu::CompileStatsSummary(); !cpu.empty()) {
    std::printf("cpu backend: %s\n", cpu.c_str());
  }
  if (auto dir = cl->Get("report")) {
    if (absl::Status s = conformance::WriteReportDir(*dir, *result, meta);
        !s.ok()) {
      std::fprintf(stderr, "hloref conformance: %s\n",
                   std::string(s.message()).c_str());
      return 1;
    }
    std::printf("report: %s/report.html (%s/report.json, %s/junit.xml)\n",
                dir->c_str(), dir->c_str(), dir->c_str());
  }
  if (auto junit = cl->Get("junit")) {
    if (absl::Status s = conformance::WriteTextFile(
            *junit, conformance::ReportJunit(*result, meta));
        !s.ok()) {
      std::fprintf(stderr, "hloref conformance: %s\n",
                   std::string(s.message()).c_str());
      return 1;
    }
  }
  return result->summary.counts[static_cast<int>(conformance::Outcome::kFail)] >
                 0
             ? 1
             : 0;
}

}  // namespace hloref::tools
