// `hloref check FILE.hlo`: parse, verify and print the canonical module.
#include <cstdio>
#include <string>
#include <vector>

#include "spec/ir/hlo_parser.h"
#include "spec/ir/hlo_printer.h"
#include "spec/verifier/verifier.h"
#include "tools/hloref/command_line.h"
#include "tools/hloref/subcommands.h"

namespace hloref::tools {
namespace {

constexpr char kCheckHelp[] =
    R"(Usage: hloref check [options] FILE.hlo [FILE.hlo ...]

Parses each HLO module (text as XLA and JAX print it), verifies it against
the operation semantics, and prints the canonical module text to stdout.
On the first bad file prints the located error
  FILE:LINE:COL: %name = opcode(...): [rule] what is wrong
to stderr and exits with status 1.

Options:
  --quiet     print nothing on success (only errors and warnings)
  --short     print XLA's short form (no %, no signatures, no metadata)
  --no-verify parse and print only
  --help      show this text
)";

}  // namespace

int RunCheck(int argc, char** argv) {
  auto cl = CommandLine::Parse(argc, argv, 2,
                               {{"quiet", false},
                                {"short", false},
                                {"no-verify", false},
                                {"help", false}});
  if (!cl.ok()) {
    std::fprintf(stderr, "hloref check: %s\n", cl.status().message().data());
    return 2;
  }
  if (cl->Has("help")) {
    std::fputs(kCheckHelp, stdout);
    return 0;
  }
  if (cl->positional().empty()) {
    std::fprintf(stderr, "hloref check: no input file\n\n%s", kCheckHelp);
    return 2;
  }
  for (const std::string& path : cl->positional()) {
    std::vector<std::string> warnings;
    ParseOptions options;
    options.warnings = &warnings;
    auto module = ParseHloModuleFile(path, options);
    for (const std::string& w : warnings) {
      std::fprintf(stderr, "%s\n", w.c_str());
    }
    if (!module.ok()) {
      std::fprintf(stderr, "%s\n",
                   std::string(module.status().message()).c_str());
      return 1;
    }
    if (!cl->Has("no-verify")) {
      // Verifier warnings: where seed 001 and XLA disagree and hloref
      // reads what XLA accepts (issue 14).
      std::vector<std::string> verify_warnings;
      VerifyOptions verify_options;
      verify_options.warnings = &verify_warnings;
      absl::Status status = VerifyModule(**module, verify_options);
      for (const std::string& w : verify_warnings) {
        std::fprintf(stderr, "%s\n", w.c_str());
      }
      if (!status.ok()) {
        std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
        return 1;
      }
    }
    if (!cl->Has("quiet")) {
      PrintOptions print_options =
          cl->Has("short") ? PrintOptions::Short() : PrintOptions();
      std::fputs(PrintModule(**module, print_options).c_str(), stdout);
    }
  }
  return 0;
}

}  // namespace hloref::tools
