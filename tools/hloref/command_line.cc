// Implementation of the subcommand option reader.
#include "tools/hloref/command_line.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hloref::tools {

absl::StatusOr<CommandLine> CommandLine::Parse(
    int argc, char** argv, int first, const std::vector<OptionSpec>& specs) {
  CommandLine cl;
  bool options_done = false;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (options_done || !absl::StartsWith(arg, "--") || arg == "-") {
      cl.positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option '--", name, "' (see --help)"));
    }
    if (spec->takes_value && spec->optional_value && !value.has_value()) {
      value = "";
    }
    if (spec->takes_value && !value.has_value()) {
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError(
            absl::StrCat("option '--", name, "' needs a value"));
      }
      value = argv[++i];
    }
    if (!spec->takes_value && value.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("option '--", name, "' takes no value"));
    }
    auto& slot = cl.values_[name];
    if (!slot.empty() && !spec->repeatable) {
      return absl::InvalidArgumentError(
          absl::StrCat("option '--", name, "' given more than once"));
    }
    slot.push_back(value.value_or(""));
  }
  return cl;
}

std::optional<std::string> CommandLine::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> CommandLine::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return {};
  return it->second;
}

absl::StatusOr<int64_t> CommandLine::GetInt(const std::string& name,
                                            int64_t default_value) const {
  std::optional<std::string> v = Get(name);
  if (!v.has_value()) return default_value;
  int64_t out;
  if (!absl::SimpleAtoi(*v, &out)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "option '--", name, "' expects an integer, got '", *v, "'"));
  }
  return out;
}

}  // namespace hloref::tools
