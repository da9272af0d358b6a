// Replicas and partitions simulated in one process: the oracle's side of
// the rendezvous where the participants of a collective meet, with
// deadlock detection (spec/util/rendezvous.h states the model and the
// errors; the CPU backend's runtime uses the same rendezvous with raw
// arrays).
//
// A replicated run (Evaluator::RunReplicated) has replica_count x
// partition_count participants, one thread each. Every collective
// instruction that executes calls Rendezvous::Exchange with its Literal
// contribution; the meeting point is keyed by the instruction, its
// channel_id, the group and the execution count of the instruction on the
// participant.
#ifndef HLOREF_INTERPRETER_REPLICAS_H_
#define HLOREF_INTERPRETER_REPLICAS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"
#include "spec/util/rendezvous.h"

namespace hloref {

class Rendezvous : public CollectiveRendezvous<Literal> {
 public:
  Rendezvous(int64_t replica_count, int64_t partition_count,
             absl::Duration timeout);

  // Participant `me` contributes `contribution` to the `execution`-th
  // (1-based) execution of `inst` among the participants `group` (global
  // ids in group order, containing `me`) and waits for the others. Returns
  // the contributions in group order.
  absl::StatusOr<std::shared_ptr<const std::vector<Literal>>> Exchange(
      const HloInstruction& inst, int64_t execution,
      absl::Span<const int64_t> group, int64_t me, Literal contribution);
};

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_REPLICAS_H_
