// `hloref reduce`: shrinks a module that fails on a backend while it keeps
// failing (conformance/diff/reduce.h does the work).
#include "conformance/diff/reduce.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "conformance/generators/generator.h"
#include "spec/types/npy.h"
#include "tools/hloref/backend_job.h"
#include "tools/hloref/command_line.h"
#include "tools/hloref/cpu_flags.h"
#include "tools/hloref/real_dumps.h"
#include "tools/hloref/subcommands.h"

namespace hloref::tools {
namespace {

constexpr char kReduceHelp[] =
    R"(Usage: hloref reduce --backend=NAME [options] MODULE.hlo [ARG ...]

Shrinks a module that fails on a backend (a departure from the oracle, a
compile error, a crash) to a small module that still fails, for a bug
report or a regression case. Greedy moves, repeated until none applies:
compute an earlier instruction instead of the root; turn an instruction
into a parameter fed with the oracle's value of it (dropping what fed it);
replace a fusion or call at the root by its computation. Each candidate is
judged as `hloref conformance` judges a case. Progress goes to stderr, the
reduced module to stdout.

ARGs are as for `hloref run`; with --random-args or --seed, parameters
without an ARG get random values; --fill-elided gives a dump's elided
constants values.

Options:
  --backend=NAME      the backend under test; required
  --match=TEXT        keep only candidates whose failure message contains
                      TEXT (so the reduction keeps this failure and does
                      not drift to another one)
  --enclosure         judge candidates by their whole-program enclosures
                      (docs/enclosures.md) instead of the per-op comparison
                      of the root: a candidate still fails only while some
                      output element leaves its enclosure, so the reduction
                      keeps a real departure and never one that fusion, FMA
                      contraction or excess precision explains
  --deviations=LIST   declared deviations, as for `hloref conformance`
  --profile=xla|portable  (default xla)
%INPUTS%  --out=DIR           write the reduced case (DIR/module.hlo,
                      DIR/arg_<k>.npy) to replay with `hloref run`
  --max-candidates=N  candidates judged at most (default 2000)
  --max-time=SECONDS  wall-time budget (default 1800)
  --timeout=SECONDS   per compile-and-run limit for command: and plugin: backends
  --help              show this text

Exit status: 0 reduced (or the budget ran out: the smallest failing module
so far is printed), 1 an error or the module does not fail, 2 usage error.
)";

std::string ReduceHelp() {
  std::string help = kReduceHelp;
  help.replace(help.find("%INPUTS%"), 8, kBackendJobInputsHelp);
  return help;
}

int Usage(const std::string& message) {
  return UsageError("reduce", message, ReduceHelp().c_str());
}

int Fail(const std::string& message) {
  return Failure("reduce", NameLimitFlags(message));
}

}  // namespace

int RunReduce(int argc, char** argv) {
  std::vector<OptionSpec> specs = BackendJobOptionSpecs();
  specs.insert(specs.end(), {{"match", true},
                             {"enclosure", false},
                             {"out", true},
                             {"max-candidates", true},
                             {"max-time", true},
                             {"help", false}});
  AddCpuOptionSpecs(&specs);
  auto cl = CommandLine::Parse(argc, argv, 2, specs);
  if (!cl.ok()) return Usage(std::string(cl.status().message()));
  if (cl->Has("help")) {
    std::fputs(ReduceHelp().c_str(), stdout);
    std::printf("\nCPU backend options:\n%s", kCpuFlagsHelp);
    return 0;
  }
  if (absl::Status flags = ApplyCpuFlags(*cl); !flags.ok()) {
    return Usage(std::string(flags.message()));
  }
  if (cl->Has("participant-args")) {
    return Usage(
        "--participant-args is for diff; reduce shrinks modules of "
        "one participant");
  }
  bool usage_error = false;
  auto job = ReadBackendJob(*cl, &usage_error);
  if (!job.ok()) {
    return usage_error ? Usage(std::string(job.status().message()))
                       : Fail(std::string(job.status().message()));
  }
  for (const std::string& w : job->warnings) {
    std::fprintf(stderr, "%s\n", w.c_str());
  }
  for (const std::string& note : job->notes) {
    std::fprintf(stderr, "hloref reduce: %s\n", note.c_str());
  }
  conformance::ReduceOptions options;
  auto max_candidates = cl->GetInt("max-candidates", 2000);
  if (!max_candidates.ok() || *max_candidates < 1) {
    return Usage("--max-candidates must be a positive integer");
  }
  options.max_candidates = *max_candidates;
  auto max_time = PositiveSeconds(*cl, "max-time", 1800);
  if (!max_time.ok()) return Usage(std::string(max_time.status().message()));
  options.max_time = absl::Seconds(*max_time);
  options.max_bytes = job->max_bytes;
  options.log = [](const std::string& line) {
    std::fprintf(stderr, "hloref reduce: %s\n", line.c_str());
  };

  auto result = conformance::ReduceModule(
      *job->module, job->args,
      cl->Has("enclosure") ? conformance::EnclosureStillFails(
                                 *job->backend, job->profile, job->deviations,
                                 job->compile_options,
                                 cl->Get("match").value_or(""), job->max_bytes)
                           : conformance::BackendStillFails(
                                 *job->backend, job->profile, job->deviations,
                                 job->compile_options,
                                 cl->Get("match").value_or(""), job->max_bytes),
      options);
  if (!result.ok()) return Fail(std::string(result.status().message()));
  // A mapped argument file that shrank read as zeros past its new end.
  if (absl::Status s = CheckMappedNpyFiles(); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  std::fprintf(stderr,
               "hloref reduce: %lld -> %lld entry instructions in %lld steps "
               "(%lld candidates judged%s); still fails: %s\n",
               static_cast<long long>(result->instructions_before),
               static_cast<long long>(result->instructions_after),
               static_cast<long long>(result->steps),
               static_cast<long long>(result->candidates),
               result->exhausted ? ", budget exhausted" : "",
               result->why.c_str());
  std::fputs(result->module_text.c_str(), stdout);
  if (auto dir = cl->Get("out")) {
    conformance::GeneratedCase c;
    c.id = result->module->name();
    c.opcode = result->module->entry()->root()->opcode();
    c.module_text = result->module_text;
    c.args = result->args;
    if (absl::Status s = conformance::WriteCaseDir(c, *dir); !s.ok()) {
      return Fail(std::string(s.message()));
    }
    std::fprintf(stderr, "hloref reduce: the reduced case is in %s\n",
                 dir->c_str());
  }
  return 0;
}

}  // namespace hloref::tools
