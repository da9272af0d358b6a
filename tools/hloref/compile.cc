// `hloref compile MODULE.hlo -o NAME.o --header=NAME.h`: ahead-of-time
// compilation on the CPU backend (backends/cpu/aot.h).
#include <cstdio>
#include <string>

#include "backends/cpu/aot.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"
#include "tools/hloref/command_line.h"
#include "tools/hloref/module_loader.h"
#include "tools/hloref/subcommands.h"

namespace hloref::tools {
namespace {

constexpr char kCompileHelp[] =
    R"(Usage: hloref compile MODULE.hlo -o NAME.o [--header=NAME.h] [options]

Compiles MODULE.hlo ahead of time with the CPU backend into an object file
for this machine, with a plain C entry point, and writes a C header that
declares it:
  int NAME(const T* param..., T* result...);
one pointer per array leaf of the parameters and of the root (tuples
flattened), each buffer in the physical order of its shape's layout,
elements stored as hloref's literals store them (the header lists every
buffer's shape). It returns 0 on success, otherwise non-zero with
hloref_aot_last_error() saying why. Link the program with the object file
and hloref's CPU runtime library (hloref_cpu_runtime).

Options:
  -o, --output=NAME.o     the object file (required)
  --header=NAME.h         also write the C header
  --function=NAME         the entry point's name (default: the object
                          file's base name)
  --cpu-opt=0..3          LLVM optimisation level (default 2)
  --help                  show this text

Exit status: 0 success, 1 bad input or compile error, 2 usage error.
)";

int Usage(const std::string& message) {
  std::fprintf(stderr, "hloref compile: %s\n\n%s", message.c_str(),
               kCompileHelp);
  return 2;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "hloref compile: %s\n", message.c_str());
  return 1;
}

}  // namespace

int RunCompile(int argc, char** argv) {
  // -o PATH is accepted as --output=PATH.
  std::vector<std::string> storage;
  std::vector<char*> args(argv, argv + argc);
  for (size_t i = 2; i < args.size(); ++i) {
    if (std::string(args[i]) == "-o") {
      storage.push_back("--output");
      args[i] = storage.back().data();
    }
  }
  auto cl = CommandLine::Parse(static_cast<int>(args.size()), args.data(), 2,
                               {{"output", true},
                                {"header", true},
                                {"function", true},
                                {"cpu-opt", true},
                                {"help", false}});
  if (!cl.ok()) return Usage(std::string(cl.status().message()));
  if (cl->Has("help")) {
    std::fputs(kCompileHelp, stdout);
    return 0;
  }
  if (cl->positional().size() != 1) return Usage("give exactly one module");
  std::optional<std::string> output = cl->Get("output");
  if (!output.has_value() || output->empty()) {
    return Usage("-o NAME.o is required");
  }
  cpu::AotOptions options;
  options.object_path = *output;
  options.header_path = cl->Get("header").value_or("");
  std::string function = cl->Get("function").value_or("");
  if (function.empty()) {
    size_t slash = output->find_last_of('/');
    function = output->substr(slash == std::string::npos ? 0 : slash + 1);
    size_t dot = function.find('.');
    if (dot != std::string::npos) function = function.substr(0, dot);
  }
  options.function_name = function;
  auto level = cl->GetInt("cpu-opt", 2);
  if (!level.ok() || *level < 0 || *level > 3) {
    return Usage("--cpu-opt must be 0, 1, 2 or 3");
  }
  options.opt_level = static_cast<int>(*level);
  auto module = LoadModuleFile(cl->positional()[0]);
  if (!module.ok()) return Fail(std::string(module.status().message()));
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) return Fail(std::string(verified.message()));
  absl::Status compiled = cpu::CompileAheadOfTime(**module, options);
  if (!compiled.ok()) {
    return compiled.code() == absl::StatusCode::kInvalidArgument &&
                   function != options.function_name
               ? Usage(std::string(compiled.message()))
               : Fail(std::string(compiled.message()));
  }
  return 0;
}

}  // namespace hloref::tools
