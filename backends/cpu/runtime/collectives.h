// Collectives between the participant threads of a replicated run, and
// the driver that runs every participant (Executable::RunReplicated).
//
// Generated code calls hloref_cpu_collective with a descriptor the
// emitter (backends/cpu/emitters/collectives.cc) writes as a constant i64
// array; the runtime resolves the participant's group from the run's
// topology (text-format 6.11 modes, as the oracle: interpreter/ops/
// collectives.cc), meets the group at a rendezvous (CollectiveGroup) and
// computes this participant's result. Every array the runtime sees is in
// row-major (descending) order: the emitter copies other layouts.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_COLLECTIVES_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_COLLECTIVES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "backends/cpu/runtime/run_context.h"
#include "spec/types/literal.h"
#include "spec/util/rendezvous.h"

namespace hloref::cpu {

using ParticipantRun = std::function<absl::StatusOr<std::vector<Literal>>(
    absl::Span<const Literal> args, RunContext& ctx)>;

// Runs participant i = r * partitions + p on its own thread with a
// RunContext naming it and one CollectiveGroup shared by all. `args` holds
// one argument list per participant, or one list every participant gets.
absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicatedParticipants(
    int64_t replicas, int64_t partitions,
    absl::Span<const std::vector<Literal>> args, const ParticipantRun& run);

// The descriptor kinds of hloref_cpu_collective (element 0).
enum class CollectiveKind : int64_t {
  kAllReduce = 0,
  kReduceScatter = 1,
  kAllGather = 2,
  kAllToAllArray = 3,
  kAllToAllTuple = 4,
  kCollectivePermute = 5,
  kCollectiveBroadcast = 6,
  kRaggedAllToAll = 7,
};
// Element 1 of a descriptor is a CollectiveGroupMode
// (spec/ir/collective_groups.h).

// One participant's contribution: a copy of each of its operand arrays.
using Contribution = std::vector<std::vector<uint8_t>>;

// The rendezvous of one replicated run (spec/util/rendezvous.h, shared with
// the oracle: deadlock detection, abandonment after a failure, timeout). A
// meeting point is keyed by the instruction (its descriptor's address),
// the group's first id and the execution count of the instruction on the
// participant, which CountExecution keeps.
class CollectiveGroup : public CollectiveRendezvous<Contribution> {
 public:
  CollectiveGroup(int64_t replicas, int64_t partitions, absl::Duration timeout);

  int64_t replicas() const { return replica_count(); }
  int64_t partitions() const { return partition_count(); }
  int64_t size() const { return device_count(); }

  // The 1-based count of executions of `key` by participant `me`.
  int64_t CountExecution(int64_t me, const void* key);

  // Contributes and waits for the group (global ids in group order, with
  // `me`); returns the contributions in group order.
  absl::StatusOr<std::shared_ptr<const std::vector<Contribution>>> Exchange(
      const void* key, const std::string& name, int64_t execution,
      absl::Span<const int64_t> group, int64_t me, Contribution mine);

 private:
  // Per participant, touched only by its own thread.
  std::vector<std::map<const void*, int64_t>> executions_;
};

}  // namespace hloref::cpu

extern "C" {
// The collective described by `desc` (see emitters/collectives.cc): reads
// the operand arrays `in`, writes the result arrays `out` (row-major).
// `reducer`: the compiled to_apply (void(ptr ctx, ptr params, ptr
// results)) of all-reduce / reduce-scatter, else null. `name`: the
// instruction's name for messages.
void hloref_cpu_collective(hloref::cpu::RunContext* ctx, const int64_t* desc,
                           const char* name, void** in, void** out,
                           void* reducer);
uint32_t hloref_cpu_replica_id(hloref::cpu::RunContext* ctx);
uint32_t hloref_cpu_partition_id(hloref::cpu::RunContext* ctx);
}

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_COLLECTIVES_H_
