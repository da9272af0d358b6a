// Command-line reading shared by diff and reduce (see backend_job.h).
#include "tools/hloref/backend_job.h"

#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "backends/registry.h"
#include "conformance/generators/draw.h"
#include "spec/ir/hlo_parser.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"
#include "tools/hloref/arguments.h"
#include "tools/hloref/module_loader.h"
#include "tools/hloref/real_dumps.h"

namespace hloref::tools {

int UsageError(const char* command, const std::string& message,
               const char* help) {
  std::fprintf(stderr, "hloref %s: %s\n\n%s", command, message.c_str(), help);
  return 2;
}

int Failure(const char* command, const std::string& message) {
  std::fprintf(stderr, "hloref %s: %s\n", command, message.c_str());
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

std::vector<OptionSpec> BackendJobOptionSpecs() {
  return {{"backend", true},
          {"deviations", true},
          {"profile", true},
          {"timeout", true},
          {"seed", true},
          {"random-args", true, /*repeatable=*/false, /*optional_value=*/true},
          {"fill-elided", true},
          {"max-bytes", true},
          {"participant-args", true},
          {"copy-args", false}};
}

const char kBackendJobInputsHelp[] =
    R"(  --seed=N            random values (special values mixed in) for the
                      parameters without an ARG, drawn from seed N
  --random-args[=SEED]  the parameters without an ARG drawn as `hloref run
                      --random-args` draws them (seed 0 by default): the
                      same values, integers used as indices or loop bounds
                      kept in range; said on stderr
  --fill-elided=zeros|random[:SEED]
                      give elided constants (`constant({...})`) values, as
                      `hloref run` does; without it such a module is
                      refused, naming them
  --max-bytes=BYTES   the most one literal written in the module may take
                      and the most bytes of values the oracle may hold at
                      once (default: the machine's available memory)
  --copy-args         read .npy ARGs into memory; by default large ones are
                      mapped (copy-on-write: the files never change), which
                      must then stay unchanged until the command ends (one
                      that shrinks is reported and the command fails)
)";

absl::StatusOr<BackendJob> ReadBackendJob(const CommandLine& cl,
                                          bool* usage_error) {
  *usage_error = true;
  BackendJob job;
  if (cl.positional().empty()) {
    return absl::InvalidArgumentError("no module file");
  }
  job.backend_name = cl.Get("backend").value_or("");
  if (job.backend_name.empty()) {
    return absl::InvalidArgumentError("--backend is required");
  }
  HLOREF_ASSIGN_OR_RETURN(
      job.deviations,
      conformance::ParseDeviations(cl.Get("deviations").value_or("")));
  const std::string profile = cl.Get("profile").value_or("xla");
  if (profile == "portable") {
    job.profile = Profile::kPortable;
  } else if (profile != "xla") {
    return absl::InvalidArgumentError(
        absl::StrCat("--profile must be xla or portable, got '", profile, "'"));
  }
  HLOREF_ASSIGN_OR_RETURN(double timeout, PositiveSeconds(cl, "timeout", 300));
  job.compile_options.timeout = absl::Seconds(timeout);
  std::optional<uint64_t> seed;
  if (cl.Has("seed")) {
    auto value = cl.GetInt("seed", 1);
    if (!value.ok() || *value < 0) {
      return absl::InvalidArgumentError(
          "--seed must be a non-negative integer");
    }
    seed = static_cast<uint64_t>(*value);
  }
  std::optional<uint64_t> random_args;
  if (std::optional<std::string> value = cl.Get("random-args")) {
    HLOREF_ASSIGN_OR_RETURN(random_args, ParseRandomArgsSeed(*value));
    if (seed.has_value()) {
      return absl::InvalidArgumentError(
          "--seed and --random-args both draw the missing parameters; give "
          "one of them");
    }
  }
  std::optional<FillElided> fill_elided;
  if (std::optional<std::string> value = cl.Get("fill-elided")) {
    HLOREF_ASSIGN_OR_RETURN(fill_elided, ParseFillElided(*value));
  }
  {
    auto max_bytes = cl.GetInt("max-bytes", DefaultMaxBytes());
    if (!max_bytes.ok() || *max_bytes <= 0) {
      return absl::InvalidArgumentError(
          "--max-bytes must be a positive number of bytes");
    }
    job.max_bytes = *max_bytes;
  }
  {
    auto backend = backends::CreateBackend(job.backend_name);
    // An unknown name is a usage error; a plugin that does not load is not.
    if (!backend.ok()) {
      *usage_error =
          backend.status().code() == absl::StatusCode::kInvalidArgument;
      return backend.status();
    }
    job.backend = *std::move(backend);
  }
  *usage_error = false;

  const std::string& path = cl.positional()[0];
  ParseOptions parse_options;
  parse_options.warnings = &job.warnings;
  parse_options.max_literal_bytes = job.max_bytes;
  parse_options.limit_flag = "--max-bytes";
  HLOREF_ASSIGN_OR_RETURN(job.module, LoadModuleFile(path, parse_options));
  // Shapes of any size are valid (real dumps; docs/real-dumps.md).
  VerifyOptions verify_options;
  verify_options.max_elements = std::numeric_limits<int64_t>::max() / 2;
  HLOREF_RETURN_IF_ERROR(VerifyModule(*job.module, verify_options));
  // Elided constants: refused, naming them, unless --fill-elided.
  HLOREF_ASSIGN_OR_RETURN(
      std::vector<std::string> filled,
      ResolveElidedConstants(*job.module, path, fill_elided));
  if (!filled.empty()) {
    std::string note =
        absl::StrCat("--fill-elided: ", filled.size(),
                     " elided constant(s) given made-up values:");
    for (const std::string& line : filled) absl::StrAppend(&note, "\n  ", line);
    job.notes.push_back(std::move(note));
  }
  const HloComputation& entry = *job.module->entry();
  if (auto dir = cl.Get("participant-args")) {
    const int64_t participants = job.module->config().replica_count *
                                 job.module->config().num_partitions;
    if (cl.positional().size() > 1) {
      *usage_error = true;
      return absl::InvalidArgumentError("--participant-args replaces the ARGs");
    }
    HLOREF_ASSIGN_OR_RETURN(job.participant_args,
                            ReadParticipantArgs(*dir, entry, participants));
    return job;
  }
  const int64_t params = entry.num_parameters();
  const int64_t given = static_cast<int64_t>(cl.positional().size()) - 1;
  if (given > params ||
      (given < params && !seed.has_value() && !random_args.has_value())) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, " takes ", params, " arguments, ", given, " given",
        given < params
            ? " (--random-args[=SEED] or --seed=N draws the missing ones)"
            : ""));
  }
  for (int64_t i = 0; i < given; ++i) {
    // Mapped unless --copy-args: the command checks the files at its end
    // (CheckMappedNpyFiles).
    auto arg = ReadArgument(cl.positional()[i + 1], entry.parameter(i),
                            /*map_npy=*/!cl.Has("copy-args"));
    if (!arg.ok()) {
      return absl::Status(
          arg.status().code(),
          absl::StrCat("argument ", i, ": ", arg.status().message()));
    }
    job.args.push_back(*std::move(arg));
  }
  if (given < params && random_args.has_value()) {
    std::vector<std::string> drawn_notes;
    HLOREF_ASSIGN_OR_RETURN(
        std::vector<Literal> drawn,
        DrawArguments(entry, *random_args, &drawn_notes, given, job.max_bytes));
    for (Literal& value : drawn) job.args.push_back(std::move(value));
    std::string note =
        absl::StrCat("--random-args: ", drawn_notes.size(),
                     " parameter(s) drawn from seed ", *random_args, ":");
    for (const std::string& line : drawn_notes) {
      absl::StrAppend(&note, "\n  ", line);
    }
    job.notes.push_back(std::move(note));
  } else if (given < params) {
    conformance::gen::Rng rng(*seed);
    for (int64_t i = given; i < params; ++i) {
      const Shape& shape = entry.parameter(i)->shape();
      if (!shape.IsArray()) {
        return absl::InvalidArgumentError(
            absl::StrCat("parameter ", i, " has the non-array shape ",
                         shape.ToString(), "; give its value as an ARG"));
      }
      conformance::gen::ParamSpec spec;
      spec.shape = shape;
      job.args.push_back(conformance::gen::MakeValues(spec, rng));
    }
    job.notes.push_back(absl::StrCat("parameters ", given, "..", params - 1,
                                     " drawn from seed ", *seed));
  }
  return job;
}

}  // namespace hloref::tools
