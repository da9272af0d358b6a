// Collectives between the participant threads of a replicated run, and
// the driver that runs every participant (Executable::RunReplicated).
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_COLLECTIVES_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_COLLECTIVES_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/cpu/runtime/run_context.h"
#include "spec/types/literal.h"

namespace hloref::cpu {

using ParticipantRun = std::function<absl::StatusOr<std::vector<Literal>>(
    absl::Span<const Literal> args, RunContext& ctx)>;

// Runs participant i = r * partitions + p on its own thread with a
// RunContext naming it and one CollectiveGroup shared by all. `args` holds
// one argument list per participant, or one list every participant gets.
absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicatedParticipants(
    int64_t replicas, int64_t partitions,
    absl::Span<const std::vector<Literal>> args, const ParticipantRun& run);

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_COLLECTIVES_H_
