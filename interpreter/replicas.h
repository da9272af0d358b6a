// Replicas and partitions simulated in one process: the rendezvous where the
// participants of a collective meet, with deadlock detection.
//
// A replicated run (Evaluator::RunReplicated) has replica_count x
// partition_count participants, one thread each. A participant's global id
// is replica * partition_count + partition (XLA's default device
// assignment; docs/hlo-text-format.md 6.11 "flattened global ids").
//
// Every collective instruction that executes calls Rendezvous::Exchange
// with its contribution and the participants of its group (in group order);
// the call returns once all of them have contributed at the same meeting
// point, with every contribution. A meeting point is keyed by the
// instruction, its channel_id, the group (its first id) and how many times
// the instruction has executed on the participant (so the k-th execution
// of an all-reduce inside a while loop meets the k-th execution on the
// other replicas).
//
// Seed 001 AllReduce: "if one replica executes an AllReduce node more times
// than another, then the former replica will wait forever". hloref never
// waits forever. A waiting participant gets an error when
//  - a participant of its group finishes its run (normally or with an
//    error) without having arrived (DeadlineExceeded: deadlock, or Aborted
//    carrying the other participant's error);
//  - every participant that has not finished is waiting at a meeting point
//    that cannot complete (DeadlineExceeded: deadlock, reported at once);
//  - it has waited longer than the timeout (DeadlineExceeded), e.g. when
//    the missing participant is busy in a loop without collectives;
//  - another participant failed (Aborted; the run is abandoned).
// Deadlock errors name the instruction, the execution count and which
// participants arrived and which did not.
#ifndef HLOREF_INTERPRETER_REPLICAS_H_
#define HLOREF_INTERPRETER_REPLICAS_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {

class Rendezvous {
 public:
  Rendezvous(int64_t replica_count, int64_t partition_count,
             absl::Duration timeout);
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  int64_t replica_count() const { return replica_count_; }
  int64_t partition_count() const { return partition_count_; }
  int64_t device_count() const { return replica_count_ * partition_count_; }
  absl::Duration timeout() const { return timeout_; }

  // "replica 1", "partition 2" or "replica 1 partition 2" for a global id,
  // depending on which of the counts is above 1.
  std::string DeviceName(int64_t global_id) const;

  // Participant `me` contributes `contribution` to the `execution`-th
  // (1-based) execution of `inst` among the participants `group` (global
  // ids in group order, containing `me`) and waits for the others. Returns
  // the contributions in group order. Errors: see the file comment;
  // InvalidArgument when participants disagree on the group.
  absl::StatusOr<std::shared_ptr<const std::vector<Literal>>> Exchange(
      const HloInstruction& inst, int64_t execution,
      absl::Span<const int64_t> group, int64_t me, Literal contribution);

  // Called once by every participant when its run ends, with its outcome.
  // Waiters that can no longer complete get their error at once; an error
  // also abandons the run (cancelled()).
  void Finish(int64_t me, const absl::Status& status);

  // True once some participant failed: the others stop at their next
  // instruction (EvalContext::CheckDeadline) instead of running on.
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  // The cancellation reason ("replica 1 failed: ...").
  std::string cancel_reason() const;

 private:
  struct Key {
    const HloInstruction* inst;
    int64_t channel;
    int64_t leader;  // first id of the group
    int64_t execution;
    bool operator<(const Key& o) const {
      return std::tie(inst, channel, leader, execution) <
             std::tie(o.inst, o.channel, o.leader, o.execution);
    }
  };
  struct Slot {
    const HloInstruction* inst = nullptr;
    int64_t execution = 0;
    std::vector<int64_t> group;
    std::vector<bool> arrived;
    int64_t arrived_count = 0;
    std::shared_ptr<std::vector<Literal>> values;
    bool complete = false;
    absl::Status error;  // set when the slot can never complete
  };
  enum class State : uint8_t { kRunning, kWaiting, kFinished };

  // Error for a slot that cannot complete; `why` explains the missing ones.
  absl::Status SlotError(const Slot& slot, absl::StatusCode code,
                         absl::string_view why) const;
  // With mu_ held: fails every incomplete slot whose members can no longer
  // all arrive (finished members, global deadlock).
  void FailDeadSlotsLocked();
  // With mu_ held: records `error` on `slot`; its waiters stop counting as
  // blocked (they return the error as soon as they wake).
  void FailSlotLocked(Slot& slot, absl::Status error);
  std::string ListDevices(const std::vector<int64_t>& ids) const;

  const int64_t replica_count_;
  const int64_t partition_count_;
  const absl::Duration timeout_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, std::shared_ptr<Slot>> slots_;
  std::vector<State> state_;
  std::vector<const Slot*> waiting_at_;  // for kWaiting participants
  std::vector<absl::Status>
      final_status_;  // for finished participants  // for finished participants
  std::atomic<bool> cancelled_{false};
  std::string cancel_reason_;
};

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_REPLICAS_H_
