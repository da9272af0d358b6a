// (to be written) the collectives runtime of the CPU backend.
#include "backends/cpu/runtime/collectives.h"

#include "backends/cpu/runtime/runtime_symbols.h"

namespace hloref::cpu {

void AddCollectiveRuntimeSymbols(RuntimeSymbolList& list) {}

absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicatedParticipants(
    int64_t, int64_t, absl::Span<const std::vector<Literal>>,
    const ParticipantRun&) {
  return absl::UnimplementedError("replicated runs on the CPU backend");
}

}  // namespace hloref::cpu
