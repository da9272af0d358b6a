// The rendezvous of replicated runs (see replicas.h).
#include "interpreter/replicas.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/index_util.h"
#include "spec/ir/opcode.h"

namespace hloref {

Rendezvous::Rendezvous(int64_t replica_count, int64_t partition_count,
                       absl::Duration timeout)
    : replica_count_(replica_count),
      partition_count_(partition_count),
      timeout_(timeout),
      state_(static_cast<size_t>(replica_count * partition_count),
             State::kRunning),
      waiting_at_(static_cast<size_t>(replica_count * partition_count),
                  nullptr),
      final_status_(static_cast<size_t>(replica_count * partition_count)) {}

std::string Rendezvous::DeviceName(int64_t global_id) const {
  const int64_t r = global_id / partition_count_;
  const int64_t p = global_id % partition_count_;
  if (partition_count_ == 1) return absl::StrCat("replica ", r);
  if (replica_count_ == 1) return absl::StrCat("partition ", p);
  return absl::StrCat("replica ", r, " partition ", p);
}

std::string Rendezvous::ListDevices(const std::vector<int64_t>& ids) const {
  if (ids.empty()) return "none";
  std::vector<std::string> names;
  for (int64_t id : ids) names.push_back(DeviceName(id));
  return absl::StrJoin(names, ", ");
}

std::string Rendezvous::cancel_reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancel_reason_;
}

absl::Status Rendezvous::SlotError(const Slot& slot, absl::StatusCode code,
                                   absl::string_view why) const {
  std::vector<int64_t> arrived;
  std::vector<std::string> missing;
  for (size_t i = 0; i < slot.group.size(); ++i) {
    const int64_t id = slot.group[i];
    if (slot.arrived[i]) {
      arrived.push_back(id);
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
                   : absl::StrCat("waits at %", other->inst->name(),
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
      code, absl::StrCat(InstructionPrefix(*slot.inst), why, " ",
                         HloOpcodeString(slot.inst->opcode()), " (execution ",
                         slot.execution,
                         " of this instruction on each participant); arrived: ",
                         ListDevices(arrived),
                         "; did not arrive: ", absl::StrJoin(missing, ", ")));
}

void Rendezvous::FailDeadSlotsLocked() {
  bool changed = false;
  // A member that finished can never arrive. (All messages are written
  // before any waiter is released, so each says where the others wait.)
  std::vector<std::pair<Slot*, absl::Status>> dead;
  for (auto& [key, slot] : slots_) {
    if (slot->complete || !slot->error.ok()) continue;
    for (size_t i = 0; i < slot->group.size(); ++i) {
      const int64_t id = slot->group[i];
      if (slot->arrived[i] || state_[id] != State::kFinished) continue;
      dead.emplace_back(
          slot.get(),
          final_status_[id].ok()
              ? SlotError(*slot, absl::StatusCode::kDeadlineExceeded,
                          "deadlock: a participant will never reach")
              : SlotError(*slot, absl::StatusCode::kAborted,
                          "abandoned: a participant failed before reaching"));
      break;
    }
  }
  for (auto& [slot, error] : dead) FailSlotLocked(*slot, std::move(error));
  changed |= !dead.empty();
  // Global deadlock: nobody is running, so no waiting slot can complete.
  bool any_running = false;
  bool any_waiting = false;
  for (State s : state_) {
    any_running |= s == State::kRunning;
    any_waiting |= s == State::kWaiting;
  }
  if (!any_running && any_waiting) {
    // Describe every slot before any waiter is released, so each message
    // says where the others wait.
    std::vector<std::pair<Slot*, absl::Status>> errors;
    for (auto& [key, slot] : slots_) {
      if (slot->complete || !slot->error.ok()) continue;
      errors.emplace_back(
          slot.get(),
          SlotError(*slot, absl::StatusCode::kDeadlineExceeded,
                    "deadlock: every participant that has not finished "
                    "waits at a collective that cannot complete; at"));
    }
    for (auto& [slot, error] : errors) FailSlotLocked(*slot, std::move(error));
    changed |= !errors.empty();
  }
  if (changed) cv_.notify_all();
}

void Rendezvous::FailSlotLocked(Slot& slot, absl::Status error) {
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

absl::StatusOr<std::shared_ptr<const std::vector<Literal>>>
Rendezvous::Exchange(const HloInstruction& inst, int64_t execution,
                     absl::Span<const int64_t> group, int64_t me,
                     Literal contribution) {
  const int64_t n = device_count();
  auto pos = std::find(group.begin(), group.end(), me);
  if (me < 0 || me >= n || pos == group.end()) {
    return absl::InternalError(
        absl::StrCat(InstructionPrefix(inst), DeviceName(me),
                     " joins a collective group it is not a member of"));
  }
  for (int64_t id : group) {
    if (id < 0 || id >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "participant id ", id,
                       " is outside the ", n, " participants of the run"));
    }
  }
  const size_t index = static_cast<size_t>(pos - group.begin());

  std::unique_lock<std::mutex> lock(mu_);
  if (cancelled_) return absl::AbortedError(cancel_reason_);
  const Key key{&inst, inst.attrs().channel_id, group[0], execution};
  std::shared_ptr<Slot>& entry = slots_[key];
  if (entry == nullptr) {
    entry = std::make_shared<Slot>();
    entry->inst = &inst;
    entry->execution = execution;
    entry->group.assign(group.begin(), group.end());
    entry->arrived.assign(group.size(), false);
    entry->values = std::make_shared<std::vector<Literal>>(group.size());
  }
  std::shared_ptr<Slot> slot = entry;
  if (!std::equal(slot->group.begin(), slot->group.end(), group.begin(),
                  group.end())) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), DeviceName(me), " meets group {",
        absl::StrJoin(group, ","), "}, another participant met group {",
        absl::StrJoin(slot->group, ","), "} at the same collective"));
  }
  if (!slot->error.ok()) return slot->error;
  if (slot->arrived[index]) {
    return absl::InternalError(absl::StrCat(InstructionPrefix(inst),
                                            DeviceName(me), " arrived twice"));
  }
  (*slot->values)[index] = std::move(contribution);
  slot->arrived[index] = true;
  ++slot->arrived_count;
  if (slot->arrived_count == static_cast<int64_t>(slot->group.size())) {
    slot->complete = true;
    for (int64_t id : slot->group) {
      if (id != me && state_[id] == State::kWaiting) {
        state_[id] = State::kRunning;
        waiting_at_[id] = nullptr;
      }
    }
    slots_.erase(key);
    cv_.notify_all();
    return std::shared_ptr<const std::vector<Literal>>(slot->values);
  }

  state_[me] = State::kWaiting;
  waiting_at_[me] = slot.get();
  FailDeadSlotsLocked();
  const auto deadline =
      std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(timeout_);
  while (!slot->complete && slot->error.ok() && !cancelled_) {
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout &&
        !slot->complete && slot->error.ok() && !cancelled_) {
      FailSlotLocked(*slot,
                     SlotError(*slot, absl::StatusCode::kDeadlineExceeded,
                               absl::StrCat("deadlock suspected: waited ",
                                            absl::FormatDuration(timeout_),
                                            " (EvaluatorOptions::collective_"
                                            "timeout) at")));
      cv_.notify_all();
    }
  }
  if (state_[me] == State::kWaiting) state_[me] = State::kRunning;
  waiting_at_[me] = nullptr;
  if (slot->complete) {
    return std::shared_ptr<const std::vector<Literal>>(slot->values);
  }
  if (!slot->error.ok()) return slot->error;
  return absl::AbortedError(cancel_reason_);
}

void Rendezvous::Finish(int64_t me, const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (me < 0 || me >= device_count()) return;
  state_[me] = State::kFinished;
  waiting_at_[me] = nullptr;
  final_status_[me] = status;
  if (!status.ok() && !cancelled_) {
    cancel_reason_ = absl::StrCat("abandoned because ", DeviceName(me),
                                  " failed: ", status.message());
    cancelled_ = true;
  }
  FailDeadSlotsLocked();
  cv_.notify_all();
}

}  // namespace hloref
