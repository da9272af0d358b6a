// Loading HLO or StableHLO module files (module_loader.h).
#include "tools/hloref/module_loader.h"

#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "spec/stablehlo/stablehlo_reader.h"

namespace hloref::tools {

bool IsStableHloFile(const std::string& path) {
  if (absl::EndsWith(path, ".mlir")) return true;
  if (absl::EndsWith(path, ".hlo")) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return LooksLikeStableHlo(head);
}

absl::StatusOr<std::unique_ptr<HloModule>> LoadModuleFile(
    const std::string& path, ParseOptions options) {
  if (IsStableHloFile(path)) {
    return ParseStableHloModuleFile(path, std::move(options));
  }
  return ParseHloModuleFile(path, std::move(options));
}

}  // namespace hloref::tools
