// Collective group modes and group resolution (see collective_groups.h).
#include "spec/ir/collective_groups.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloref {

bool HasCollectiveChannel(const HloInstruction& inst) {
  return inst.attrs().has(AttrId::kChannelId) && inst.attrs().channel_id > 0;
}

absl::string_view CollectiveGroupModeName(CollectiveGroupMode mode) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
      return "cross-replica (replica ids)";
    case CollectiveGroupMode::kCrossPartition:
      return "cross-partition (partition ids)";
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return "cross-replica-and-partition (replica ids)";
    case CollectiveGroupMode::kFlattenedId:
      return "flattened global ids";
  }
  return "?";
}

absl::StatusOr<CollectiveGroupMode> CollectiveGroupModeOf(
    const HloInstruction& inst, absl::string_view where) {
  const bool channel = HasCollectiveChannel(inst);
  const bool global = inst.attrs().use_global_device_ids;
  switch (inst.opcode()) {
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:  // as all-to-all (XLA's group modes)
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectiveBroadcast:
      return channel ? CollectiveGroupMode::kCrossPartition
                     : CollectiveGroupMode::kCrossReplica;
    default:
      break;
  }
  if (!channel) {
    if (global) {
      return absl::InvalidArgumentError(
          absl::StrCat(where,
                       "use_global_device_ids=true needs a channel_id "
                       "(text-format 6.11)"));
    }
    return CollectiveGroupMode::kCrossReplica;
  }
  return global ? CollectiveGroupMode::kFlattenedId
                : CollectiveGroupMode::kCrossReplicaAndPartition;
}

absl::StatusOr<std::vector<int64_t>> ResolveCollectiveGroup(
    CollectiveGroupMode mode, const std::vector<std::vector<int64_t>>& groups,
    const DeviceTopology& t, absl::string_view where) {
  int64_t id_space = 0;
  int64_t my_id = 0;
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      id_space = t.replicas;
      my_id = t.replica;
      break;
    case CollectiveGroupMode::kCrossPartition:
      id_space = t.partitions;
      my_id = t.partition;
      break;
    case CollectiveGroupMode::kFlattenedId:
      id_space = t.replicas * t.partitions;
      my_id = t.me();
      break;
  }
  if (groups.empty() && mode == CollectiveGroupMode::kFlattenedId) {
    // As XLA: flattened ids name their participants explicitly.
    return absl::InvalidArgumentError(
        absl::StrCat(where,
                     "use_global_device_ids=true needs explicit "
                     "replica_groups (flattened ids cannot be empty)"));
  }
  std::vector<int64_t> ids;
  if (groups.empty()) {
    for (int64_t i = 0; i < id_space; ++i) ids.push_back(i);
  } else {
    for (const auto& g : groups) {
      for (int64_t id : g) {
        if (id < 0 || id >= id_space) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, "replica group {", absl::StrJoin(g, ","), "} has id ", id,
              ", but the run has ", id_space, " ids in mode ",
              CollectiveGroupModeName(mode), " (", t.replicas, " replica(s) x ",
              t.partitions, " partition(s))"));
        }
      }
      if (std::find(g.begin(), g.end(), my_id) != g.end()) ids = g;
    }
    if (ids.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "id ", my_id, " (replica ", t.replica, ", partition ",
          t.partition, ") is in no replica group (mode ",
          CollectiveGroupModeName(mode), ")"));
    }
  }
  std::vector<int64_t> group;
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
      for (int64_t r : ids) group.push_back(t.global(r, t.partition));
      break;
    case CollectiveGroupMode::kCrossPartition:
      for (int64_t p : ids) group.push_back(t.global(t.replica, p));
      break;
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      for (int64_t r : ids) {
        for (int64_t p = 0; p < t.partitions; ++p) {
          group.push_back(t.global(r, p));
        }
      }
      break;
    case CollectiveGroupMode::kFlattenedId:
      group = ids;
      break;
  }
  return group;
}

absl::StatusOr<CollectivePermutePeers> ResolveCollectivePermute(
    const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
    bool cross_partition, const DeviceTopology& t, absl::string_view where) {
  const int64_t id_space = cross_partition ? t.partitions : t.replicas;
  const int64_t my_id = cross_partition ? t.partition : t.replica;
  std::vector<int64_t> ids;
  int64_t source = -1;
  for (const auto& [s, d] : source_target_pairs) {
    for (int64_t id : {s, d}) {
      if (id < 0 || id >= id_space) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, "source_target_pairs {", s, ",", d,
                         "} names id ", id, ", but the run has ", id_space, " ",
                         cross_partition ? "partition(s)" : "replica(s)"));
      }
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
        ids.push_back(id);
      }
    }
    if (d == my_id) source = s;
  }
  std::sort(ids.begin(), ids.end());
  auto global = [&](int64_t id) {
    return cross_partition ? t.global(t.replica, id)
                           : t.global(id, t.partition);
  };
  CollectivePermutePeers peers;
  for (int64_t id : ids) peers.group.push_back(global(id));
  if (source >= 0) peers.source = global(source);
  return peers;
}

absl::Status CheckCollectiveGroupShapes(
    CollectiveShapeRule rule, int64_t n, int64_t dim,
    const std::vector<std::vector<int64_t>>& in,
    const std::vector<std::vector<int64_t>>& out, absl::string_view name) {
  auto bad = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", name, ": the group has ", n, " participants, ", what,
        " (do the replica/partition counts of the run match the module "
        "header?)"));
  };
  switch (rule) {
    case CollectiveShapeRule::kReduceScatter:
      for (size_t i = 0; i < in.size(); ++i) {
        if (in[i][dim] % n != 0 || in[i][dim] / n != out[i][dim]) {
          return bad(absl::StrCat("which does not split dimension ", dim,
                                  " of operand ", i,
                                  " into the result's blocks"));
        }
      }
      break;
    case CollectiveShapeRule::kAllGather:
      for (size_t i = 0; i < in.size(); ++i) {
        if (in[i][dim] * n != out[i][dim]) {
          return bad(absl::StrCat("which does not turn operand ", i,
                                  " into the result's shape"));
        }
      }
      break;
    case CollectiveShapeRule::kAllToAll:
      if (in.size() != 1 || in[0][dim] % n != 0) {
        return bad(absl::StrCat("which does not divide split dimension ", dim));
      }
      break;
  }
  return absl::OkStatus();
}

}  // namespace hloref
