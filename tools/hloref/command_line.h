// A small command-line reader for the hloref subcommands: `--name=value`,
// `--name value`, `--flag`, repeated options and positional arguments.
// Hand-written because absl::flags keeps one global flag set per process,
// and each subcommand has its own options and --help text.
#ifndef HLOREF_TOOLS_HLOREF_COMMAND_LINE_H_
#define HLOREF_TOOLS_HLOREF_COMMAND_LINE_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hloref::tools {

struct OptionSpec {
  std::string name;  // without dashes
  bool takes_value;  // false: a boolean flag
  bool repeatable = false;
  // With takes_value: the value is optional and only given as
  // `--name=value` (`--name` alone is the empty value; the next argument
  // stays positional), e.g. --random-args[=SEED].
  bool optional_value = false;
};

class CommandLine {
 public:
  // Parses argv[first..]; unknown options and missing values are errors
  // that name the option.
  static absl::StatusOr<CommandLine> Parse(
      int argc, char** argv, int first, const std::vector<OptionSpec>& specs);

  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  std::optional<std::string> Get(const std::string& name) const;
  std::vector<std::string> GetAll(const std::string& name) const;
  absl::StatusOr<int64_t> GetInt(const std::string& name,
                                 int64_t default_value) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
};

}  // namespace hloref::tools

#endif  // HLOREF_TOOLS_HLOREF_COMMAND_LINE_H_
