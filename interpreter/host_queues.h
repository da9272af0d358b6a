// Host I/O queues of the oracle: the values infeed reads and outfeed
// writes, host-transfer send/recv channels (seed 001 "Infeed", "Send",
// "Recv"; outfeed from docs/hlo-text-format.md 6.12), and the per-run
// mailboxes of device-to-device send/recv pairs.
//
// The caller owns a HostQueues, fills it before Evaluator::Run (infeed
// values, values for host-to-device recv channels), points
// EvaluatorOptions::host_queues at it, and drains it afterwards (outfeed
// values, values sent to the host). All members are thread-safe, so a
// caller may fill and drain while a run is in progress on another thread;
// the oracle never waits on an empty queue (an empty queue is an error
// naming the instruction, never a hang).
#ifndef HLOREF_INTERPRETER_HOST_QUEUES_H_
#define HLOREF_INTERPRETER_HOST_QUEUES_H_

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "spec/types/literal.h"

namespace hloref {

class HostQueues {
 public:
  HostQueues() = default;
  HostQueues(const HostQueues&) = delete;
  HostQueues& operator=(const HostQueues&) = delete;

  // --- Caller side.
  // Appends a value for the next infeed. Each infeed reads one value whose
  // shape is the infeed's data shape (an array, or a tuple of arrays); an
  // infeed of the empty tuple reads nothing (seed 001).
  void PushInfeed(Literal value);
  // Appends a value that a recv with is_host_transfer=true on `channel_id`
  // receives (host-to-device transfer).
  void PushRecv(int64_t channel_id, Literal value);
  // Removes and returns the values outfeed wrote, oldest first.
  std::vector<Literal> TakeOutfeed();
  // Removes and returns the values sends with is_host_transfer=true wrote
  // to `channel_id` (device-to-host transfer), oldest first.
  std::vector<Literal> TakeSent(int64_t channel_id);
  // The channel ids that currently hold sent values, ascending.
  std::vector<int64_t> SentChannels() const;
  int64_t infeed_size() const;
  int64_t recv_size(int64_t channel_id) const;

  // --- Evaluator side.
  // The oldest infeed value, removed; nullopt when the queue is empty.
  std::optional<Literal> PopInfeed();
  std::optional<Literal> PopRecv(int64_t channel_id);
  void AppendOutfeed(Literal value);
  void AppendSent(int64_t channel_id, Literal value);

 private:
  mutable std::mutex mu_;
  std::deque<Literal> infeed_;
  std::map<int64_t, std::deque<Literal>> recv_;
  std::vector<Literal> outfeed_;
  std::map<int64_t, std::vector<Literal>> sent_;
};

// Device-to-device channels of one run: send/recv pairs without
// is_host_transfer, matched by channel_id (a missing channel_id counts as
// channel 0). A send deposits its operand; the matching recv-done takes
// the oldest deposited value. Seed 001's schedule ("Send happens before
// RecvDone") means a recv-done that finds no value has no matching send
// before it, which the oracle reports as an error instead of waiting.
class DeviceChannels {
 public:
  void Send(int64_t channel_id, Literal value);
  std::optional<Literal> Receive(int64_t channel_id);
  // Values sent but never received, per channel (for diagnostics).
  int64_t pending(int64_t channel_id) const;

 private:
  mutable std::mutex mu_;
  std::map<int64_t, std::deque<Literal>> mailboxes_;
};

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_HOST_QUEUES_H_
