// How a collective's replica_groups name its participants: the group mode
// (XLA's CollectiveOpGroupMode, docs/hlo-text-format.md 6.11) and the
// resolution of one participant's group into global device ids. One
// implementation for the oracle (interpreter/ops/collectives.cc) and the
// CPU backend (emitters and runtime), since both must read the attributes
// exactly as the text format defines them.
#ifndef HLOREF_SPEC_IR_COLLECTIVE_GROUPS_H_
#define HLOREF_SPEC_IR_COLLECTIVE_GROUPS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "spec/ir/hlo_module.h"

namespace hloref {

// The values are part of the CPU backend's collective descriptors.
enum class CollectiveGroupMode : int64_t {
  kCrossReplica = 0,              // groups of replica ids, one partition
  kCrossPartition = 1,            // groups of partition ids, one replica
  kCrossReplicaAndPartition = 2,  // replica ids, every partition of each
  kFlattenedId = 3,               // global device ids
};

// True when the instruction has a channel_id above 0.
bool HasCollectiveChannel(const HloInstruction& inst);

// "cross-replica (replica ids)", ... for messages.
absl::string_view CollectiveGroupModeName(CollectiveGroupMode mode);

// The mode of a collective instruction from its opcode, channel_id and
// use_global_device_ids. InvalidArgument, prefixed with `where`, for
// use_global_device_ids=true without a channel.
absl::StatusOr<CollectiveGroupMode> CollectiveGroupModeOf(
    const HloInstruction& inst, absl::string_view where);

// The run's devices and one participant among them; a participant's global
// id is replica * partitions + partition (XLA's default assignment).
struct DeviceTopology {
  int64_t replicas = 1;
  int64_t partitions = 1;
  int64_t replica = 0;
  int64_t partition = 0;
  int64_t me() const { return replica * partitions + partition; }
  int64_t global(int64_t r, int64_t p) const { return r * partitions + p; }
};

// The participants (global ids, in group order) of the group that `t`'s
// participant belongs to, for replica groups `groups` (empty: every id of
// the mode's id space) in `mode`. InvalidArgument, prefixed with `where`,
// when an id is outside the id space, the participant is in no group, or
// flattened ids come without explicit groups.
absl::StatusOr<std::vector<int64_t>> ResolveCollectiveGroup(
    CollectiveGroupMode mode, const std::vector<std::vector<int64_t>>& groups,
    const DeviceTopology& t, absl::string_view where);

// The participants of a collective-permute: `group`, the global ids of
// every replica (or partition, with `cross_partition`) its
// source_target_pairs name, in increasing id order, taken in `t`'s
// partition (replica); `source`, the global id this participant receives
// from (the last pair naming it as target), or -1. InvalidArgument,
// prefixed with `where`, for an id outside the id space.
struct CollectivePermutePeers {
  std::vector<int64_t> group;
  int64_t source = -1;
};
absl::StatusOr<CollectivePermutePeers> ResolveCollectivePermute(
    const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
    bool cross_partition, const DeviceTopology& t, absl::string_view where);

// The array shapes a collective needs for a group of `n` participants
// along dimension `dim` (dimensions of each operand and result array):
// reduce-scatter splits the operand's dimension into n result blocks,
// all-gather joins n operands into the result, all-to-all's one operand
// divides into n blocks. InvalidArgument naming instruction `name` when
// they do not.
enum class CollectiveShapeRule { kReduceScatter, kAllGather, kAllToAll };
absl::Status CheckCollectiveGroupShapes(
    CollectiveShapeRule rule, int64_t n, int64_t dim,
    const std::vector<std::vector<int64_t>>& in,
    const std::vector<std::vector<int64_t>>& out, absl::string_view name);

}  // namespace hloref

#endif  // HLOREF_SPEC_IR_COLLECTIVE_GROUPS_H_
