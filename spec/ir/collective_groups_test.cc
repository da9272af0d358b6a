// Tests of collective group modes and group resolution. Expected groups are
// worked out by hand from docs/hlo-text-format.md 6.11 (global id =
// replica * partitions + partition).
#include "spec/ir/collective_groups.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"

namespace hloref {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The mode of the root instruction `op` of a one-instruction module.
absl::StatusOr<CollectiveGroupMode> ModeOf(const std::string& op) {
  const std::string text =
      "HloModule m, replica_count=2, num_partitions=2\n"
      "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] add(a, b) }\n"
      "ENTRY e { p = f32[4] parameter(0)\n ROOT r = f32[4] " +
      op + " }\n";
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  std::unique_ptr<HloModule> m = *std::move(module);
  return CollectiveGroupModeOf(*m->entry()->root(), "%r: ");
}

TEST(CollectiveGroups, ModesFromChannelAndGlobalIds) {
  EXPECT_EQ(*ModeOf("all-reduce(p), replica_groups={}, to_apply=add"),
            CollectiveGroupMode::kCrossReplica);
  EXPECT_EQ(*ModeOf("all-reduce(p), channel_id=1, replica_groups={}, "
                    "to_apply=add"),
            CollectiveGroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(*ModeOf("all-reduce(p), channel_id=1, replica_groups={{0,1,2,3}}, "
                    "use_global_device_ids=true, to_apply=add"),
            CollectiveGroupMode::kFlattenedId);
  EXPECT_EQ(*ModeOf("collective-permute(p), channel_id=1, "
                    "source_target_pairs={{0,1}}"),
            CollectiveGroupMode::kCrossPartition);
  EXPECT_EQ(*ModeOf("collective-permute(p), source_target_pairs={{0,1}}"),
            CollectiveGroupMode::kCrossReplica);
}

TEST(CollectiveGroups, ResolvesEachModeToGlobalIds) {
  // 2 replicas x 3 partitions; the participant is replica 1, partition 2
  // (global id 1 * 3 + 2 = 5).
  DeviceTopology t{2, 3, 1, 2};
  // Replica ids {0,1} at partition 2: global ids 2 and 5.
  EXPECT_THAT(
      *ResolveCollectiveGroup(CollectiveGroupMode::kCrossReplica, {}, t, ""),
      ElementsAre(2, 5));
  // Partition ids {2,0} at replica 1: 5, 3 (group order kept).
  EXPECT_THAT(*ResolveCollectiveGroup(CollectiveGroupMode::kCrossPartition,
                                      {{1}, {2, 0}}, t, ""),
              ElementsAre(5, 3));
  // Replica ids {1,0}, every partition of each: 3,4,5 then 0,1,2.
  EXPECT_THAT(
      *ResolveCollectiveGroup(CollectiveGroupMode::kCrossReplicaAndPartition,
                              {{1, 0}}, t, ""),
      ElementsAre(3, 4, 5, 0, 1, 2));
  EXPECT_THAT(*ResolveCollectiveGroup(CollectiveGroupMode::kFlattenedId,
                                      {{0, 1, 2}, {5, 4, 3}}, t, ""),
              ElementsAre(5, 4, 3));
}

TEST(CollectiveGroups, BadGroupsAreClearErrors) {
  DeviceTopology t{2, 1, 0, 0};
  auto out_of_range = ResolveCollectiveGroup(CollectiveGroupMode::kCrossReplica,
                                             {{0, 2}}, t, "%ar: ");
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_THAT(out_of_range.status().message(),
              HasSubstr("%ar: replica group {0,2} has id 2"));
  auto missing = ResolveCollectiveGroup(CollectiveGroupMode::kCrossReplica,
                                        {{1}}, t, "%ar: ");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("is in no replica group"));
  auto empty_flattened =
      ResolveCollectiveGroup(CollectiveGroupMode::kFlattenedId, {}, t, "%ar: ");
  ASSERT_FALSE(empty_flattened.ok());
  EXPECT_THAT(empty_flattened.status().message(),
              HasSubstr("needs explicit replica_groups"));
}

TEST(CollectiveGroups, PermutePeersAndSource) {
  // 3 replicas x 2 partitions, participant (replica 2, partition 1) = 5.
  DeviceTopology t{3, 2, 2, 1};
  // Between replicas (no channel): ids {0, 2} in increasing order, taken in
  // partition 1: globals 1, 5; the last pair targeting replica 2 wins.
  auto peers = ResolveCollectivePermute({{2, 0}, {1, 2}, {0, 2}}, false, t, "");
  ASSERT_TRUE(peers.ok()) << peers.status();
  EXPECT_THAT(peers->group, ElementsAre(1, 3, 5));
  EXPECT_EQ(peers->source, 1);  // replica 0, partition 1
  // Between partitions: partition 1 receives from partition 0 of replica 2.
  auto cross = ResolveCollectivePermute({{0, 1}}, true, t, "");
  ASSERT_TRUE(cross.ok()) << cross.status();
  EXPECT_THAT(cross->group, ElementsAre(4, 5));
  EXPECT_EQ(cross->source, 4);
  auto none = ResolveCollectivePermute({{1, 0}}, true, t, "");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->source, -1);
  auto bad = ResolveCollectivePermute({{0, 2}}, true, t, "%cp: ");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("%cp: source_target_pairs {0,2} names id 2, but the "
                        "run has 2 partition(s)"));
}

TEST(CollectiveGroups, GroupShapes) {
  // Four participants along dimension 1.
  EXPECT_TRUE(CheckCollectiveGroupShapes(CollectiveShapeRule::kReduceScatter, 4,
                                         1, {{2, 8}}, {{2, 2}}, "rs")
                  .ok());
  EXPECT_FALSE(CheckCollectiveGroupShapes(CollectiveShapeRule::kReduceScatter,
                                          4, 1, {{2, 6}}, {{2, 1}}, "rs")
                   .ok());
  EXPECT_TRUE(CheckCollectiveGroupShapes(CollectiveShapeRule::kAllGather, 4, 1,
                                         {{2, 3}}, {{2, 12}}, "ag")
                  .ok());
  absl::Status ag = CheckCollectiveGroupShapes(CollectiveShapeRule::kAllGather,
                                               4, 1, {{2, 3}}, {{2, 6}}, "ag");
  EXPECT_EQ(ag.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ag.message(),
              HasSubstr("%ag: the group has 4 participants, which does not "
                        "turn operand 0 into the result's shape"));
  EXPECT_TRUE(CheckCollectiveGroupShapes(CollectiveShapeRule::kAllToAll, 4, 1,
                                         {{2, 8}}, {{2, 8}}, "a2a")
                  .ok());
  EXPECT_FALSE(CheckCollectiveGroupShapes(CollectiveShapeRule::kAllToAll, 4, 1,
                                          {{2, 6}}, {{2, 6}}, "a2a")
                   .ok());
}

}  // namespace
}  // namespace hloref
