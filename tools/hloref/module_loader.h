// Loading a module file for the hloref subcommands: HLO text, or StableHLO
// textual MLIR (a .mlir file, or text that starts like MLIR), converted by
// spec/stablehlo/ (docs/stablehlo.md).
#ifndef HLOREF_TOOLS_HLOREF_MODULE_LOADER_H_
#define HLOREF_TOOLS_HLOREF_MODULE_LOADER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "spec/ir/hlo_module.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::tools {

// True for a path ending in .mlir or a file whose text starts like MLIR.
bool IsStableHloFile(const std::string& path);

// ParseHloModuleFile for HLO text; ParseStableHloModuleFile for StableHLO.
// The result is parsed, not verified.
absl::StatusOr<std::unique_ptr<HloModule>> LoadModuleFile(
    const std::string& path, ParseOptions options = {});

}  // namespace hloref::tools

#endif  // HLOREF_TOOLS_HLOREF_MODULE_LOADER_H_
