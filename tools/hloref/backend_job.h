// What `hloref diff` and `hloref reduce` read alike from their command
// lines: the backend under test and how it is judged (--backend,
// --deviations, --profile, --timeout), the module, and its arguments (ARGs
// as for `hloref run`, the rest drawn from --seed, or every participant's
// from --participant-args=DIR).
#ifndef HLOREF_TOOLS_HLOREF_BACKEND_JOB_H_
#define HLOREF_TOOLS_HLOREF_BACKEND_JOB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "conformance/compare/deviations.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"
#include "tools/hloref/command_line.h"

namespace hloref::tools {

struct BackendJob {
  std::string backend_name;
  std::unique_ptr<backends::Backend> backend;
  Profile profile = Profile::kXla;
  conformance::Deviations deviations;
  backends::CompileOptions compile_options;
  std::unique_ptr<HloModule> module;  // parsed and verified
  std::vector<Literal> args;
  // --participant-args=DIR: one list per participant (args stays empty).
  std::vector<std::vector<Literal>> participant_args;
  // Lines for stderr about what was made up: parameters drawn (--seed,
  // --random-args), elided constants filled (--fill-elided).
  std::vector<std::string> notes;
  // The parser's warnings ("model.hlo:3:1: warning: ..."), printed as is.
  std::vector<std::string> warnings;
  // --max-bytes (default: the machine's available memory).
  int64_t max_bytes = 0;
};

// The options of ReadBackendJob, for the command's OptionSpecs:
// --backend, --deviations, --profile, --timeout, --seed, --random-args,
// --fill-elided, --max-bytes, --participant-args.
std::vector<OptionSpec> BackendJobOptionSpecs();

// The help text of the options shared by diff and reduce that concern the
// module and its arguments (--seed, --random-args, --fill-elided,
// --max-bytes).
extern const char kBackendJobInputsHelp[];

// The options above must be among the command's OptionSpecs. A bad option
// value sets *usage_error (exit status 2); a bad file, a bad argument or a
// backend that cannot be created does not (exit status 1).
absl::StatusOr<BackendJob> ReadBackendJob(const CommandLine& cl,
                                          bool* usage_error);

// --NAME as a positive number of seconds, `default_value` when absent.
absl::StatusOr<double> PositiveSeconds(const CommandLine& cl,
                                       const std::string& name,
                                       double default_value);

// Exit-status helpers of diff and reduce: prints "hloref COMMAND: message"
// (and, for a usage error, the help text) to stderr; returns 2 or 1.
int UsageError(const char* command, const std::string& message,
               const char* help);
int Failure(const char* command, const std::string& message);

}  // namespace hloref::tools

#endif  // HLOREF_TOOLS_HLOREF_BACKEND_JOB_H_
