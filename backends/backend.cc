// Helpers shared by every backend (see backend.h).
#include "backends/backend.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace hloref::backends {

absl::Status SupportsModule(const Backend& backend, const HloModule& module) {
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation->instructions()) {
      absl::Status status = backend.Supports(*instruction);
      if (status.ok()) continue;
      std::string where;
      if (instruction->location().known()) {
        where = absl::StrCat(instruction->location().ToString(), ": ");
      }
      return absl::Status(
          status.code(),
          absl::StrCat(where, instruction->ShortDescription(), ": backend '",
                       backend.name(), "': ", status.message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<Literal>>> Executable::RunReplicated(
    absl::Span<const std::vector<Literal>>) {
  return absl::UnimplementedError(
      "this backend does not run replicated modules (replica_count * "
      "num_partitions > 1)");
}

absl::StatusOr<std::vector<Literal>> Executable::RunWithHost(
    absl::Span<const Literal>, HostTransfers&) {
  return absl::UnimplementedError(
      "this backend does not run modules with host transfers (infeed, "
      "outfeed, host-transfer send/recv)");
}

namespace {
void FlattenInto(Literal value, std::vector<Literal>* out) {
  if (!value.shape().IsTuple()) {
    out->push_back(std::move(value));
    return;
  }
  for (Literal& element : value.DecomposeTuple()) {
    FlattenInto(std::move(element), out);
  }
}
}  // namespace

std::vector<Literal> FlattenLiteral(Literal value) {
  std::vector<Literal> out;
  FlattenInto(std::move(value), &out);
  return out;
}

}  // namespace hloref::backends
