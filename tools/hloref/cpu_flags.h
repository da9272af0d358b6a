// The CPU backend's options on every subcommand that takes --backend
// (run, diff, reduce, conformance): --cpu-threads=N, --cpu-dump=DIR,
// --cpu-opt=0..3, --cpu-no-fusion, --cpu-fast. They set the options `--backend=cpu`
// is created with (the HLOREF_CPU_* environment variables still apply on
// top, see backends/cpu/cpu_backend.h).
#ifndef HLOREF_TOOLS_HLOREF_CPU_FLAGS_H_
#define HLOREF_TOOLS_HLOREF_CPU_FLAGS_H_

#include <vector>

#include "absl/status/status.h"
#include "tools/hloref/command_line.h"

namespace hloref::tools {

// Appends the CPU options to a subcommand's option specs.
void AddCpuOptionSpecs(std::vector<OptionSpec>* specs);
// Applies them; InvalidArgument (a usage error) names a bad value.
absl::Status ApplyCpuFlags(const CommandLine& cl);
// Help text lines for the options.
extern const char kCpuFlagsHelp[];

}  // namespace hloref::tools

#endif  // HLOREF_TOOLS_HLOREF_CPU_FLAGS_H_
