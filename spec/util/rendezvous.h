// The rendezvous where the participants of a simulated multi-device run
// meet at a collective, with deadlock detection. One implementation serves
// the oracle (interpreter/replicas.h: contributions are Literals) and the
// CPU backend's runtime (backends/cpu/runtime/collectives.h: contributions
// are raw byte arrays); it knows nothing of what is exchanged.
//
// A run has replica_count x partition_count participants, one thread each;
// a participant's global id is replica * partition_count + partition (XLA's
// default device assignment; docs/hlo-text-format.md 6.11 "flattened global
// ids"). Every collective a participant executes calls Meet with its
// contribution and the participants of its group (in group order); Meet
// returns once all of them contributed at the same meeting point, with
// every contribution in group order. A meeting point is keyed by the
// collective's site (an address naming the instruction), its channel, the
// group (its first id) and how many times the site has executed on the
// participant (so the k-th execution of an all-reduce inside a while loop
// meets the k-th execution on the other participants).
//
// Seed 001 AllReduce: "if one replica executes an AllReduce node more times
// than another, then the former replica will wait forever". hloref never
// waits forever. A waiting participant gets an error when
//  - a participant of its group finished its run (normally or with an
//    error) without having arrived (DeadlineExceeded: deadlock, or Aborted
//    carrying the other participant's error);
//  - every participant that has not finished waits at a meeting point that
//    cannot complete (DeadlineExceeded: deadlock, reported at once);
//  - it waited longer than the timeout (DeadlineExceeded), e.g. when the
//    missing participant is busy in a loop without collectives;
//  - another participant failed (Aborted; the run is abandoned).
// Deadlock errors name the collective, the execution count and which
// participants arrived and which did not (and where those wait).
#ifndef HLOREF_SPEC_UTIL_RENDEZVOUS_H_
#define HLOREF_SPEC_UTIL_RENDEZVOUS_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace hloref {

// Where a collective meets, as its messages name it.
struct CollectiveSite {
  const void* id = nullptr;  // the instruction (any address unique to it)
  int64_t channel = 0;       // its channel_id (0 when none)
  std::string prefix;  // starts every message, e.g. "%ar = all-reduce(..): "
  std::string name;    // the instruction's name, for "waits at %name"
  std::string noun;    // what the deadlock messages call it ("all-reduce")
};

template <typename Value>
class CollectiveRendezvous {
 public:
  using Values = std::vector<Value>;

  // `timeout_hint` follows the timeout in the timeout message, e.g. the
  // option that sets it ("(EvaluatorOptions::collective_timeout)").
  CollectiveRendezvous(int64_t replica_count, int64_t partition_count,
                       absl::Duration timeout, std::string timeout_hint = "")
      : replica_count_(replica_count),
        partition_count_(partition_count),
        timeout_(timeout),
        timeout_hint_(std::move(timeout_hint)),
        state_(static_cast<size_t>(replica_count * partition_count),
               State::kRunning),
        waiting_at_(static_cast<size_t>(replica_count * partition_count),
                    nullptr),
        final_status_(static_cast<size_t>(replica_count * partition_count)) {}
  CollectiveRendezvous(const CollectiveRendezvous&) = delete;
  CollectiveRendezvous& operator=(const CollectiveRendezvous&) = delete;

  int64_t replica_count() const { return replica_count_; }
  int64_t partition_count() const { return partition_count_; }
  int64_t device_count() const { return replica_count_ * partition_count_; }
  absl::Duration timeout() const { return timeout_; }

  // "replica 1", "partition 2" or "replica 1 partition 2" for a global id,
  // depending on which of the counts is above 1.
  std::string DeviceName(int64_t global_id) const {
    const int64_t r = global_id / partition_count_;
    const int64_t p = global_id % partition_count_;
    if (partition_count_ == 1) return absl::StrCat("replica ", r);
    if (replica_count_ == 1) return absl::StrCat("partition ", p);
    return absl::StrCat("replica ", r, " partition ", p);
  }

  // Participant `me` contributes `mine` to the `execution`-th (1-based)
  // execution of `site` among the participants `group` (global ids in group
  // order, containing `me`) and waits for the others. Returns the
  // contributions in group order. Errors: see the file comment;
  // InvalidArgument when participants disagree on the group or an id is
  // outside the run.
  absl::StatusOr<std::shared_ptr<const Values>> Meet(
      const CollectiveSite& site, int64_t execution,
      absl::Span<const int64_t> group, int64_t me, Value mine) {
    const int64_t n = device_count();
    auto pos = std::find(group.begin(), group.end(), me);
    if (me < 0 || me >= n || pos == group.end()) {
      return absl::InternalError(
          absl::StrCat(site.prefix, DeviceName(me),
                       " joins a collective group it is not a member of"));
    }
    for (int64_t id : group) {
      if (id < 0 || id >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat(site.prefix, "participant id ", id, " is outside the ",
                         n, " participants of the run"));
      }
    }
    const size_t index = static_cast<size_t>(pos - group.begin());

    std::unique_lock<std::mutex> lock(mu_);
    if (cancelled_) return absl::AbortedError(cancel_reason_);
    const Key key{site.id, site.channel, group[0], execution};
    std::shared_ptr<Slot>& entry = slots_[key];
    if (entry == nullptr) {
      entry = std::make_shared<Slot>();
      entry->site = site;
      entry->execution = execution;
      entry->group.assign(group.begin(), group.end());
      entry->arrived.assign(group.size(), false);
      entry->values = std::make_shared<Values>(group.size());
    }
    std::shared_ptr<Slot> slot = entry;
    if (!std::equal(slot->group.begin(), slot->group.end(), group.begin(),
                    group.end())) {
      return absl::InvalidArgumentError(absl::StrCat(
          site.prefix, DeviceName(me), " meets group {",
          absl::StrJoin(group, ","), "}, another participant met group {",
          absl::StrJoin(slot->group, ","), "} at the same collective"));
    }
    if (!slot->error.ok()) return slot->error;
    if (slot->arrived[index]) {
      return absl::InternalError(
          absl::StrCat(site.prefix, DeviceName(me), " arrived twice"));
    }
    (*slot->values)[index] = std::move(mine);
    slot->arrived[index] = true;
    if (++slot->arrived_count == static_cast<int64_t>(slot->group.size())) {
      slot->complete = true;
      for (int64_t id : slot->group) {
        if (id != me && state_[id] == State::kWaiting) {
          state_[id] = State::kRunning;
          waiting_at_[id] = nullptr;
        }
      }
      slots_.erase(key);
      cv_.notify_all();
      return std::shared_ptr<const Values>(slot->values);
    }

    state_[me] = State::kWaiting;
    waiting_at_[me] = slot.get();
    FailDeadSlotsLocked();
    const auto deadline =
        std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(timeout_);
    while (!slot->complete && slot->error.ok() && !cancelled_) {
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout &&
          !slot->complete && slot->error.ok() && !cancelled_) {
        FailSlotLocked(*slot, SlotErrorLocked(
                                  *slot, absl::StatusCode::kDeadlineExceeded,
                                  absl::StrCat("deadlock suspected: waited ",
                                               absl::FormatDuration(timeout_),
                                               timeout_hint_.empty() ? "" : " ",
                                               timeout_hint_, " at")));
        cv_.notify_all();
      }
    }
    if (state_[me] == State::kWaiting) state_[me] = State::kRunning;
    waiting_at_[me] = nullptr;
    if (slot->complete) return std::shared_ptr<const Values>(slot->values);
    if (!slot->error.ok()) return slot->error;
    return absl::AbortedError(cancel_reason_);
  }

  // Called once by every participant when its run ends, with its outcome.
  // Waiters that can no longer complete get their error at once; an error
  // also abandons the run (cancelled()).
  void Finish(int64_t me, const absl::Status& status) {
    std::lock_guard<std::mutex> lock(mu_);
    if (me < 0 || me >= device_count()) return;
    state_[me] = State::kFinished;
    waiting_at_[me] = nullptr;
    final_status_[me] = status;
    CancelLocked(me, status);
    FailDeadSlotsLocked();
    cv_.notify_all();
  }

  // A participant failed while still running: the others stop waiting.
  void Abort(int64_t me, const absl::Status& status) {
    std::lock_guard<std::mutex> lock(mu_);
    CancelLocked(me, status);
    cv_.notify_all();
  }

  // True once some participant failed: the others stop at their next step
  // instead of running on.
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  // The cancellation reason ("abandoned because replica 1 failed: ...").
  std::string cancel_reason() const {
    std::lock_guard<std::mutex> lock(mu_);
    return cancel_reason_;
  }

 private:
  struct Key {
    const void* site;
    int64_t channel;
    int64_t leader;  // first id of the group
    int64_t execution;
    bool operator<(const Key& o) const {
      return std::tie(site, channel, leader, execution) <
             std::tie(o.site, o.channel, o.leader, o.execution);
    }
  };
  struct Slot {
    CollectiveSite site;
    int64_t execution = 0;
    std::vector<int64_t> group;
    std::vector<bool> arrived;
    int64_t arrived_count = 0;
    std::shared_ptr<Values> values;
    bool complete = false;
    absl::Status error;  // set when the slot can never complete
  };
  enum class State : uint8_t { kRunning, kWaiting, kFinished };

  void CancelLocked(int64_t me, const absl::Status& status) {
    if (status.ok() || cancelled_) return;
    cancel_reason_ = absl::StrCat("abandoned because ", DeviceName(me),
                                  " failed: ", status.message());
    cancelled_ = true;
  }

  // Error for a slot that cannot complete; `why` explains what happened and
  // is followed by the collective's noun.
  absl::Status SlotErrorLocked(const Slot& slot, absl::StatusCode code,
                               absl::string_view why) const {
    std::vector<std::string> arrived, missing;
    for (size_t i = 0; i < slot.group.size(); ++i) {
      const int64_t id = slot.group[i];
      if (slot.arrived[i]) {
        arrived.push_back(DeviceName(id));
        continue;
      }
      std::string what;
      switch (state_[id]) {
        case State::kFinished:
          what = final_status_[id].ok()
                     ? "finished its run without reaching it"
                     : absl::StrCat("failed before reaching it: ",
                                    final_status_[id].message());
          break;
        case State::kWaiting: {
          const Slot* other = waiting_at_[id];
          what = other == nullptr
                     ? "waits at another collective"
                     : absl::StrCat("waits at %", other->site.name,
                                    " (execution ", other->execution, ")");
          break;
        }
        case State::kRunning:
          what = "still running";
          break;
      }
      missing.push_back(absl::StrCat(DeviceName(id), " (", what, ")"));
    }
    return absl::Status(
        code,
        absl::StrCat(slot.site.prefix, why, " ", slot.site.noun, " (execution ",
                     slot.execution,
                     " of this instruction on each participant); arrived: ",
                     arrived.empty() ? "none" : absl::StrJoin(arrived, ", "),
                     "; did not arrive: ", absl::StrJoin(missing, ", ")));
  }

  // Fails every incomplete slot whose members can no longer all arrive
  // (finished members, global deadlock). All messages are written before
  // any waiter is released, so each says where the others wait.
  void FailDeadSlotsLocked() {
    bool changed = false;
    std::vector<std::pair<Slot*, absl::Status>> dead;
    for (auto& [key, slot] : slots_) {
      if (slot->complete || !slot->error.ok()) continue;
      for (size_t i = 0; i < slot->group.size(); ++i) {
        const int64_t id = slot->group[i];
        if (slot->arrived[i] || state_[id] != State::kFinished) continue;
        dead.emplace_back(
            slot.get(),
            final_status_[id].ok()
                ? SlotErrorLocked(*slot, absl::StatusCode::kDeadlineExceeded,
                                  "deadlock: a participant will never reach")
                : SlotErrorLocked(
                      *slot, absl::StatusCode::kAborted,
                      "abandoned: a participant failed before reaching"));
        break;
      }
    }
    for (auto& [slot, error] : dead) FailSlotLocked(*slot, std::move(error));
    changed |= !dead.empty();
    // Global deadlock: nobody is running, so no waiting slot can complete.
    bool any_running = false, any_waiting = false;
    for (State s : state_) {
      any_running |= s == State::kRunning;
      any_waiting |= s == State::kWaiting;
    }
    if (!any_running && any_waiting) {
      std::vector<std::pair<Slot*, absl::Status>> errors;
      for (auto& [key, slot] : slots_) {
        if (slot->complete || !slot->error.ok()) continue;
        errors.emplace_back(
            slot.get(),
            SlotErrorLocked(*slot, absl::StatusCode::kDeadlineExceeded,
                            "deadlock: every participant that has not "
                            "finished waits at a collective that cannot "
                            "complete; at"));
      }
      for (auto& [slot, error] : errors) {
        FailSlotLocked(*slot, std::move(error));
      }
      changed |= !errors.empty();
    }
    if (changed) cv_.notify_all();
  }

  // Records `error` on `slot`; its waiters stop counting as blocked (they
  // return the error as soon as they wake).
  void FailSlotLocked(Slot& slot, absl::Status error) {
    slot.error = std::move(error);
    for (size_t i = 0; i < slot.group.size(); ++i) {
      const int64_t id = slot.group[i];
      if (slot.arrived[i] && state_[id] == State::kWaiting &&
          waiting_at_[id] == &slot) {
        state_[id] = State::kRunning;
        waiting_at_[id] = nullptr;
      }
    }
  }

  const int64_t replica_count_;
  const int64_t partition_count_;
  const absl::Duration timeout_;
  const std::string timeout_hint_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, std::shared_ptr<Slot>> slots_;
  std::vector<State> state_;
  std::vector<const Slot*> waiting_at_;     // for kWaiting participants
  std::vector<absl::Status> final_status_;  // for finished participants
  std::atomic<bool> cancelled_{false};
  std::string cancel_reason_;
};

// The participant count of a run with `replicas` x `partitions` devices and
// `arg_lists` argument lists (one per participant, or one for all);
// InvalidArgument when the run cannot be simulated.
inline absl::StatusOr<int64_t> CheckParticipants(int64_t replicas,
                                                 int64_t partitions,
                                                 size_t arg_lists) {
  constexpr int64_t kMaxParticipants = 1024;
  if (replicas < 1 || partitions < 1 ||
      replicas * partitions > kMaxParticipants) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a replicated run needs 1 to ", kMaxParticipants, " participants; got ",
        replicas, " replica(s) x ", partitions, " partition(s)"));
  }
  const int64_t n = replicas * partitions;
  if (arg_lists != 1 && static_cast<int64_t>(arg_lists) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RunReplicated: ", arg_lists, " argument lists for ", n,
        " participants (give one per participant, or one for all)"));
  }
  return n;
}

// Runs `run(id)` for every participant of `rendezvous` on a thread of its
// own, telling the rendezvous when each finishes. Returns every result in
// participant order, or the root cause of a failure: the first error in
// participant order that another participant's failure did not cause
// (those are Aborted), prefixed with the participant's name.
template <typename Result, typename Value, typename Run>
absl::StatusOr<std::vector<Result>> RunParticipantThreads(
    CollectiveRendezvous<Value>& rendezvous, const Run& run) {
  const int64_t n = rendezvous.device_count();
  std::vector<absl::StatusOr<Result>> results(static_cast<size_t>(n),
                                              absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int64_t id = 0; id < n; ++id) {
    threads.emplace_back([&, id] {
      results[id] = run(id);
      rendezvous.Finish(id, results[id].status());
    });
  }
  for (std::thread& t : threads) t.join();
  const absl::Status* first = nullptr;
  int64_t first_id = -1;
  for (int64_t id = 0; id < n; ++id) {
    const absl::Status& s = results[id].status();
    if (s.ok()) continue;
    if (first == nullptr || (s.code() != absl::StatusCode::kAborted &&
                             first->code() == absl::StatusCode::kAborted)) {
      first = &s;
      first_id = id;
    }
  }
  if (first != nullptr) {
    return absl::Status(
        first->code(),
        absl::StrCat(rendezvous.DeviceName(first_id), ": ", first->message()));
  }
  std::vector<Result> out;
  out.reserve(static_cast<size_t>(n));
  for (auto& r : results) out.push_back(*std::move(r));
  return out;
}

}  // namespace hloref

#endif  // HLOREF_SPEC_UTIL_RENDEZVOUS_H_
