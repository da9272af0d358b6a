// hloref: the one command of the project (check, run, ...).
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "tools/hloref/subcommands.h"

namespace {

constexpr char kUsage[] =
    R"(hloref: reference interpreter and conformance suite for XLA HLO.

Usage: hloref <command> [options] [arguments]

Commands:
  check FILE.hlo       parse and verify a module, print its canonical text
                       (every command taking FILE.hlo also takes
                       StableHLO FILE.mlir)
  convert IN.mlir [-o OUT.hlo]
                       StableHLO (as JAX exports it) to HLO text
  run MODULE.hlo ARG*  evaluate a module on the oracle (or --backend)
  conformance          certify a backend: golden and generated cases
  diff MODULE.hlo ARG* the first instruction where a backend departs from
                       the oracle
  reduce MODULE.hlo ARG*
                       shrink a module that fails on a backend
  compile MODULE.hlo -o NAME.o --header=NAME.h
                       compile a module ahead of time (CPU backend) into
                       an object file with a C entry point

Run `hloref <command> --help` for a command's options.
)";

}  // namespace

int Dispatch(int argc, char** argv);

// The last line of defence: an allocation the byte limits did not foresee
// ends the command with a message and exit status 1, not std::terminate.
int main(int argc, char** argv) {
  try {
    return Dispatch(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "hloref %s: out of memory (an allocation failed); lower the "
                 "sizes involved or --max-bytes, or run on a machine with "
                 "more memory\n",
                 argc > 1 ? argv[1] : "");
    return 1;
  }
}

int Dispatch(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 ||
      std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "help") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::string command = argv[1];
  if (command == "check") return hloref::tools::RunCheck(argc, argv);
  if (command == "run") return hloref::tools::RunRun(argc, argv);
  if (command == "diff") return hloref::tools::RunDiff(argc, argv);
  if (command == "reduce") return hloref::tools::RunReduce(argc, argv);
  if (command == "compile") return hloref::tools::RunCompile(argc, argv);
  if (command == "convert") return hloref::tools::RunConvert(argc, argv);
  if (command == "conformance") {
    return hloref::tools::RunConformance(argc, argv);
  }
  std::fprintf(stderr, "hloref: unknown command '%s'\n\n%s", command.c_str(),
               kUsage);
  return 2;
}
