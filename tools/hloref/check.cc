// `hloref check FILE.hlo`: parse, verify and print the canonical module.
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "interpreter/evaluator.h"
#include "spec/ir/annotation_custom_calls.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/hlo_printer.h"
#include "spec/verifier/verifier.h"
#include "tools/hloref/command_line.h"
#include "tools/hloref/module_loader.h"
#include "tools/hloref/real_dumps.h"
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

Shapes are never limited: a module is valid whatever its sizes (a dump of
a 405B-parameter model checks like a small one). Elided constants
(`constant({...})`, as XLA's dumps abbreviate large constants) are
reported as warnings with their line and column: the module is valid, but
`hloref run` needs --fill-elided to evaluate it. Annotation custom-calls
(Sharding, MoveToHost, ...) are noted once (docs/real-dumps.md).

Options:
  --replicas=N     replica_count for a module whose header does not say
                   (no header, or a header without it); collectives are
                   verified against it, as `hloref run --replicas=N` runs
                   them. A header that says otherwise is an error
  --partitions=N   num_partitions likewise
  --max-bytes=BYTES the most bytes one literal written in the module may
                   take (default: the machine's available memory, as for
                   run)
  --quiet          print nothing on success (only errors and warnings)
  --short          print XLA's short form (no %, no signatures, no metadata)
  --no-verify      parse and print only
  --help           show this text
)";

// --replicas / --partitions into the module's config: the header's value,
// when it states one other than 1, must agree.
absl::Status ApplyCount(const CommandLine& cl, const char* flag,
                        const char* header_name, int64_t* field) {
  if (!cl.Has(flag)) return absl::OkStatus();
  auto n = cl.GetInt(flag, 1);
  if (!n.ok()) return n.status();
  if (*n < 1 || *n > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " must be in [1, 1024]"));
  }
  if (*field != 1 && *field != *n) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, "=", *n, ", but the module header says ",
                     header_name, "=", *field));
  }
  *field = *n;
  return absl::OkStatus();
}

}  // namespace

int RunCheck(int argc, char** argv) {
  auto cl = CommandLine::Parse(argc, argv, 2,
                               {{"quiet", false},
                                {"short", false},
                                {"no-verify", false},
                                {"replicas", true},
                                {"partitions", true},
                                {"max-bytes", true},
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
  auto max_bytes = cl->GetInt("max-bytes", DefaultMaxBytes());
  if (!max_bytes.ok() || *max_bytes <= 0) {
    std::fprintf(stderr,
                 "hloref check: --max-bytes must be a positive integer\n");
    return 2;
  }
  for (const std::string& path : cl->positional()) {
    std::vector<std::string> warnings;
    ParseOptions options;
    options.warnings = &warnings;
    options.max_literal_bytes = *max_bytes;
    options.limit_flag = "--max-bytes";
    auto module = LoadModuleFile(path, options);
    for (const std::string& w : warnings) {
      std::fprintf(stderr, "%s\n", w.c_str());
    }
    if (!module.ok()) {
      std::fprintf(stderr, "%s\n",
                   std::string(module.status().message()).c_str());
      return 1;
    }
    HloModuleConfig& config = *(*module)->mutable_config();
    for (const absl::Status& s :
         {ApplyCount(*cl, "replicas", "replica_count", &config.replica_count),
          ApplyCount(*cl, "partitions", "num_partitions",
                     &config.num_partitions)}) {
      if (!s.ok()) {
        std::fprintf(stderr, "hloref check: %s: %s\n", path.c_str(),
                     std::string(s.message()).c_str());
        return absl::StrContains(s.message(), "must be") ||
                       absl::StrContains(s.message(), "expects an integer")
                   ? 2
                   : 1;
      }
    }
    // Elided constants: valid, but not runnable as is.
    for (const HloInstruction* inst : FindElidedConstants(**module)) {
      std::fprintf(
          stderr,
          "%s%swarning: %%%s %s is an elided constant (`{...}`: the dump "
          "left its values out); the module is valid, but `hloref run` needs "
          "--fill-elided=zeros|random[:SEED] (or a dump made with "
          "--xla_dump_large_constants)\n",
          inst->location().known() ? inst->location().ToString().c_str() : "",
          inst->location().known() ? ": " : "", inst->name().c_str(),
          inst->shape().ToString(false).c_str());
    }
    if (!cl->Has("quiet")) {
      if (auto counts = CountAnnotationCustomCalls(**module); !counts.empty()) {
        std::fprintf(stderr,
                     "note: annotation custom-calls %s: XLA removes them "
                     "before code generation; `hloref run` evaluates each as "
                     "the identity of its operand\n",
                     AnnotationCountsToString(counts).c_str());
      }
    }
    if (!cl->Has("no-verify")) {
      // Verifier warnings: where seed 001 and XLA disagree and hloref
      // reads what XLA accepts (issue 14).
      std::vector<std::string> verify_warnings;
      VerifyOptions verify_options;
      verify_options.warnings = &verify_warnings;
      // Any size is valid (real dumps hold 405B-parameter shapes).
      verify_options.max_elements = std::numeric_limits<int64_t>::max() / 2;
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
