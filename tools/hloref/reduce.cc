// `hloref reduce`: shrinks a module that fails on a backend while it keeps
// failing (conformance/diff/reduce.h does the work).
#include "conformance/diff/reduce.h"

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

ARGs are as for `hloref run`; with --seed, parameters without an ARG get
random values drawn from that seed.

Options:
  --backend=NAME       the backend under test; required
  --match=TEXT         keep only candidates whose failure message contains
                       TEXT (so the reduction keeps this failure and does
                       not drift to another one)
  --deviations=LIST    declared deviations, as for `hloref conformance`
  --profile=xla|portable  (default xla)
  --seed=N             random values for parameters without an ARG
  --out=DIR            write the reduced case (DIR/module.hlo,
                       DIR/arg_<k>.npy) to replay with `hloref run`
  --max-candidates=N   candidates judged at most (default 2000)
  --max-time=SECONDS   wall-time budget (default 1800)
  --timeout=SECONDS    per compile-and-run limit for command: backends
  --help               show this text

Exit status: 0 reduced (or the budget ran out: the smallest failing module
so far is printed), 1 an error or the module does not fail, 2 usage error.
)";

int Usage(const std::string& message) {
  std::fprintf(stderr, "hloref reduce: %s\n\n%s", message.c_str(), kReduceHelp);
  return 2;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "hloref reduce: %s\n", message.c_str());
  return 1;
}

absl::StatusOr<double> PositiveSeconds(const CommandLine& cl,
                                       const std::string& name,
                                       double default_value) {
  auto text = cl.Get(name);
  if (!text) return default_value;
  double seconds = 0;
  if (!absl::SimpleAtod(*text, &seconds) || !(seconds > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " must be a positive number of seconds, got '",
                     *text, "'"));
  }
  return seconds;
}

}  // namespace

int RunReduce(int argc, char** argv) {
  auto cl = CommandLine::Parse(argc, argv, 2,
                               {{"backend", true},
                                {"match", true},
                                {"deviations", true},
                                {"profile", true},
                                {"seed", true},
                                {"out", true},
                                {"max-candidates", true},
                                {"max-time", true},
                                {"timeout", true},
                                {"help", false}});
  if (!cl.ok()) return Usage(std::string(cl.status().message()));
  if (cl->Has("help")) {
    std::fputs(kReduceHelp, stdout);
    return 0;
  }
  if (cl->positional().empty()) return Usage("no module file");
  const std::string backend_name = cl->Get("backend").value_or("");
  if (backend_name.empty()) return Usage("--backend is required");
  auto deviations =
      conformance::ParseDeviations(cl->Get("deviations").value_or(""));
  if (!deviations.ok()) {
    return Usage(std::string(deviations.status().message()));
  }
  const std::string profile_text = cl->Get("profile").value_or("xla");
  Profile profile = Profile::kXla;
  if (profile_text == "portable") {
    profile = Profile::kPortable;
  } else if (profile_text != "xla") {
    return Usage(absl::StrCat("--profile must be xla or portable, got '",
                              profile_text, "'"));
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
  backends::CompileOptions compile_options;
  auto timeout = PositiveSeconds(*cl, "timeout", 300);
  if (!timeout.ok()) return Usage(std::string(timeout.status().message()));
  compile_options.timeout = absl::Seconds(*timeout);
  options.log = [](const std::string& line) {
    std::fprintf(stderr, "hloref reduce: %s\n", line.c_str());
  };

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
  }

  auto result = conformance::ReduceModule(
      **module, args,
      conformance::BackendStillFails(**backend, profile, *deviations,
                                     compile_options,
                                     cl->Get("match").value_or("")),
      options);
  if (!result.ok()) return Fail(std::string(result.status().message()));
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
