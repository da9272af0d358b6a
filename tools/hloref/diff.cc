// `hloref diff`: the first instruction where a backend departs from the
// oracle (conformance/diff/diff.h does the work).
#include "conformance/diff/diff.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "backends/registry.h"
#include "conformance/generators/draw.h"
#include "conformance/generators/generator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"
#include "tools/hloref/arguments.h"
#include "tools/hloref/command_line.h"
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
--seed, parameters without an ARG get random values (special values mixed
in) drawn from that seed, so a dump without inputs can be diffed.

Options:
  --backend=NAME      the backend under test (interpreter, plugin:<lib.so>,
                      command:<program>); required
  --deviations=LIST   declared deviations, as for `hloref conformance`
  --profile=xla|portable  how implementation-defined elements are judged
                      (default xla)
  --all               judge every instruction, not only up to the first
                      departure
  --no-descend        do not enter failing fusions and calls
  --seed=N            random values for parameters without an ARG
  --keep=DIR          write the first departing instruction as a replayable
                      case (DIR/module.hlo, DIR/arg_<k>.npy)
  --timeout=SECONDS   per compile-and-run limit for command: backends
  --help              show this text

Exit status: 0 no departure, 1 a departure (or an error), 2 usage error.
)";

int Usage(const std::string& message) {
  std::fprintf(stderr, "hloref diff: %s\n\n%s", message.c_str(), kDiffHelp);
  return 2;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "hloref diff: %s\n", message.c_str());
  return 1;
}

}  // namespace

int RunDiff(int argc, char** argv) {
  auto cl = CommandLine::Parse(argc, argv, 2,
                               {{"backend", true},
                                {"deviations", true},
                                {"profile", true},
                                {"all", false},
                                {"no-descend", false},
                                {"seed", true},
                                {"keep", true},
                                {"timeout", true},
                                {"help", false}});
  if (!cl.ok()) return Usage(std::string(cl.status().message()));
  if (cl->Has("help")) {
    std::fputs(kDiffHelp, stdout);
    return 0;
  }
  if (cl->positional().empty()) return Usage("no module file");
  const std::string backend_name = cl->Get("backend").value_or("");
  if (backend_name.empty()) return Usage("--backend is required");

  conformance::DiffOptions options;
  options.all = cl->Has("all");
  options.descend = !cl->Has("no-descend");
  auto deviations =
      conformance::ParseDeviations(cl->Get("deviations").value_or(""));
  if (!deviations.ok())
    return Usage(std::string(deviations.status().message()));
  options.deviations = *deviations;
  const std::string profile = cl->Get("profile").value_or("xla");
  if (profile == "xla") {
    options.profile = Profile::kXla;
  } else if (profile == "portable") {
    options.profile = Profile::kPortable;
  } else {
    return Usage(
        absl::StrCat("--profile must be xla or portable, got '", profile, "'"));
  }
  if (auto t = cl->Get("timeout")) {
    double seconds = 0;
    if (!absl::SimpleAtod(*t, &seconds) || !(seconds > 0)) {
      return Usage(absl::StrCat(
          "--timeout must be a positive number of seconds, got '", *t, "'"));
    }
    options.compile_options.timeout = absl::Seconds(seconds);
  }

  auto backend = backends::CreateBackend(backend_name);
  if (!backend.ok()) {
    return backend.status().code() == absl::StatusCode::kInvalidArgument
               ? Usage(std::string(backend.status().message()))
               : Fail(std::string(backend.status().message()));
  }

  const std::string& path = cl->positional()[0];
  auto module = ParseHloModuleFile(path);
  if (!module.ok()) return Fail(std::string(module.status().message()));
  if (absl::Status s = VerifyModule(**module); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  const HloComputation& entry = *(*module)->entry();
  const int64_t params = entry.num_parameters();
  const int64_t given = static_cast<int64_t>(cl->positional().size()) - 1;
  if (given > params) {
    return Fail(
        absl::StrCat(path, " takes ", params, " arguments, ", given, " given"));
  }
  std::vector<Literal> args;
  for (int64_t i = 0; i < given; ++i) {
    auto arg = ReadArgument(cl->positional()[i + 1], entry.parameter(i));
    if (!arg.ok()) {
      return Fail(absl::StrCat("argument ", i, ": ", arg.status().message()));
    }
    args.push_back(*std::move(arg));
  }
  if (given < params) {
    if (!cl->Has("seed")) {
      return Fail(absl::StrCat(path, " takes ", params, " arguments, ", given,
                               " given (--seed=N draws the missing ones)"));
    }
    auto seed = cl->GetInt("seed", 1);
    if (!seed.ok() || *seed < 0) {
      return Usage("--seed must be a non-negative integer");
    }
    conformance::gen::Rng rng(static_cast<uint64_t>(*seed));
    for (int64_t i = given; i < params; ++i) {
      const Shape& shape = entry.parameter(i)->shape();
      if (!shape.IsArray()) {
        return Fail(absl::StrCat("parameter ", i, " has the non-array shape ",
                                 shape.ToString(),
                                 "; give its value as an ARG"));
      }
      conformance::gen::ParamSpec spec;
      spec.shape = shape;
      args.push_back(conformance::gen::MakeValues(spec, rng));
    }
    std::fprintf(
        stderr, "hloref diff: parameters %lld..%lld drawn from seed %lld\n",
        static_cast<long long>(given), static_cast<long long>(params - 1),
        static_cast<long long>(*seed));
  }

  auto result = conformance::DiffModule(**module, args, **backend, options);
  if (!result.ok()) return Fail(std::string(result.status().message()));

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
  return result->whole == conformance::Outcome::kFail ? 1 : 0;
}

}  // namespace hloref::tools
