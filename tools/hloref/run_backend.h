// `hloref run --backend=NAME`: the module compiled and run by a backend
// other than the oracle, printed exactly as `hloref run` prints the
// oracle's result (same argument forms, --out files, replica labels,
// outfeed / send lines).
#ifndef HLOREF_TOOLS_HLOREF_RUN_BACKEND_H_
#define HLOREF_TOOLS_HLOREF_RUN_BACKEND_H_

#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"
#include "tools/hloref/real_dumps.h"

namespace hloref::tools {

struct BackendRunRequest {
  std::string backend_name;
  const HloModule* module = nullptr;
  std::vector<Literal> args;
  // Replicated modules: one list per participant (or empty: every
  // participant gets `args`).
  std::vector<std::vector<Literal>> participant_args;
  int64_t participants = 1;  // replicas * partitions
  int64_t partitions = 1;
  backends::HostTransfers host;
  bool uses_host = false;
  std::optional<std::string> out_dir;
  // --custom-call-lib paths, handed to the backend's compile options.
  std::vector<std::string> custom_call_libraries;
  // --print: every element, a summary per result, or nothing.
  PrintMode print_mode = PrintMode::kFull;
  // --timeout: the backend's compile and run limit (CompileOptions).
  std::optional<absl::Duration> timeout;
};

// Whether the module has infeed, outfeed or host-transfer send/recv.
bool ModuleUsesHost(const HloModule& module);

// Returns the exit status (0 success, 1 failure: the message is printed).
int RunOnBackend(BackendRunRequest request);

}  // namespace hloref::tools

#endif  // HLOREF_TOOLS_HLOREF_RUN_BACKEND_H_
