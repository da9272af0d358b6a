// `hloref diff`: the first instruction where a backend departs from the
// oracle (conformance/diff/diff.h does the work).
#include "conformance/diff/diff.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "conformance/generators/generator.h"
#include "spec/types/npy.h"
#include "tools/hloref/backend_job.h"
#include "tools/hloref/command_line.h"
#include "tools/hloref/cpu_flags.h"
#include "tools/hloref/real_dumps.h"
#include "tools/hloref/subcommands.h"

namespace hloref::tools {
namespace {

constexpr char kDiffHelp[] =
    R"(Usage: hloref diff --backend=NAME [options] MODULE.hlo [ARG ...]

Finds the first instruction where a backend departs from the oracle. The
module runs on the oracle, which records every instruction's value; each
instruction is then isolated in a module of its own, fed the oracle's
operand values, run on the backend and judged with the conformance
comparator (the error model of docs/numerics.md). Failing fusions and calls
are entered, so the departure is named down to the instruction inside a
fused computation. Errors do not cascade: every instruction sees exact
inputs.

ARGs are as for `hloref run`: .npy files, literal files, or literals. With
--random-args or --seed, parameters without an ARG get random values, so a
dump without inputs can be diffed; --fill-elided gives a dump's elided
constants values.

Options:
  --backend=NAME      the backend under test (interpreter, plugin:<lib.so>,
                      command:<program>); required
  --deviations=LIST   declared deviations, as for `hloref conformance`
  --profile=xla|portable  how implementation-defined elements are judged
                      (default xla)
  --all               judge every instruction, not only up to the first
                      departure
  --no-descend        do not enter failing fusions and calls
  --no-enclosure      do not judge the whole module against its
                      whole-program enclosures first (docs/enclosures.md;
                      by default, when the per-op comparison of the whole
                      output fails but every element lies inside its
                      enclosure, diff says the module conforms (fusion,
                      FMA contraction, excess precision) and stops)
%INPUTS%  --participant-args=DIR  a replicated module's arguments, DIR/p<i>/arg_<k>.npy
                      for participant i (as a generated case holds them);
                      replicated modules run replicated on the oracle and
                      the backend (which must support replicated runs)
  --keep=DIR          write the first departing instruction as a replayable
                      case (DIR/module.hlo, DIR/arg_<k>.npy)
  --timeout=SECONDS   per compile-and-run limit for command: and plugin: backends
  --help              show this text

Exit status: 0 no departure (also a module that conforms within its
whole-program enclosures), 1 a departure (or an error), 2 usage error.
)";

std::string DiffHelp() {
  std::string help = kDiffHelp;
  help.replace(help.find("%INPUTS%"), 8, kBackendJobInputsHelp);
  return help;
}

int Usage(const std::string& message) {
  return UsageError("diff", message, DiffHelp().c_str());
}

int Fail(const std::string& message) {
  return Failure("diff", NameLimitFlags(message));
}

}  // namespace

int RunDiff(int argc, char** argv) {
  std::vector<OptionSpec> specs = BackendJobOptionSpecs();
  specs.insert(specs.end(), {{"all", false},
                             {"no-descend", false},
                             {"no-enclosure", false},
                             {"keep", true},
                             {"help", false}});
  AddCpuOptionSpecs(&specs);
  auto cl = CommandLine::Parse(argc, argv, 2, specs);
  if (!cl.ok()) return Usage(std::string(cl.status().message()));
  if (cl->Has("help")) {
    std::fputs(DiffHelp().c_str(), stdout);
    std::printf("\nCPU backend options:\n%s", kCpuFlagsHelp);
    return 0;
  }
  if (absl::Status flags = ApplyCpuFlags(*cl); !flags.ok()) {
    return Usage(std::string(flags.message()));
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
    std::fprintf(stderr, "hloref diff: %s\n", note.c_str());
  }
  conformance::DiffOptions options;
  options.all = cl->Has("all");
  options.descend = !cl->Has("no-descend");
  options.enclosure = !cl->Has("no-enclosure");
  options.profile = job->profile;
  options.deviations = job->deviations;
  options.compile_options = job->compile_options;
  options.participant_args = job->participant_args;
  options.max_bytes = job->max_bytes;
  const std::string& backend_name = job->backend_name;

  // The arguments move into the search (nothing reads them here after).
  auto result = conformance::DiffModuleTakingArgs(
      *job->module, std::move(job->args), *job->backend, options);
  if (!result.ok()) return Fail(std::string(result.status().message()));
  // A mapped argument file that shrank read as zeros past its new end.
  if (absl::Status s = CheckMappedNpyFiles(); !s.ok()) {
    return Fail(std::string(s.message()));
  }

  std::printf("whole module on %s: %s%s%s\n", backend_name.c_str(),
              std::string(conformance::OutcomeName(result->whole)).c_str(),
              result->whole_message.empty() ? "" : ": ",
              result->whole_message.c_str());
  for (const conformance::InstructionVerdict& v : result->instructions) {
    std::printf(
        "  %-11s %-12s %%%s (%s)%s%s\n",
        std::string(conformance::OutcomeName(v.outcome)).c_str(),
        v.location.c_str(), v.QualifiedName().c_str(),
        std::string(HloOpcodeString(v.opcode)).c_str(),
        v.outcome == conformance::Outcome::kPass ? "" : ": ",
        v.outcome == conformance::Outcome::kPass ? "" : v.message.c_str());
  }
  std::printf("%s\n", result->Conclusion().c_str());

  if (result->first_departure >= 0) {
    const conformance::InstructionVerdict& v =
        result->instructions[result->first_departure];
    if (auto dir = cl->Get("keep")) {
      conformance::GeneratedCase c;
      c.id = v.QualifiedName();
      c.opcode = v.opcode;
      c.module_text = v.isolated_module;
      c.args = v.isolated_args;
      c.participant_args = v.isolated_participant_args;
      c.replica_count = job->module->config().replica_count;
      c.partition_count = job->module->config().num_partitions;
      if (absl::Status s = conformance::WriteCaseDir(c, *dir); !s.ok()) {
        return Fail(std::string(s.message()));
      }
      std::printf(
          "the departing instruction is in %s (replay: hloref run "
          "%s/module.hlo %s/arg_*.npy)\n",
          dir->c_str(), dir->c_str(), dir->c_str());
    }
    return 1;
  }
  // A module whose per-op comparison fails but whose every element lies
  // inside its whole-program enclosure conforms (fusion, FMA contraction,
  // excess precision): no departure.
  if (result->conforms_within_enclosures) return 0;
  return result->whole == conformance::Outcome::kFail ? 1 : 0;
}

}  // namespace hloref::tools
