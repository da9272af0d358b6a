// Tests of the collectives family (interpreter/ops/collectives.cc) and of
// replicated runs (Evaluator::RunReplicated, interpreter/replicas.h).
// Expected values are derived by hand from seed 001 (AllGather, AllReduce,
// AllToAll, CollectivePermute, CrossReplicaSum, ReduceScatter, ReplicaId)
// and text-format 6.11, or computed in the test by an independent loop.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

using ::testing::HasSubstr;

Literal Lit(const std::string& text) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  EXPECT_TRUE(lit.ok()) << text << ": " << lit.status();
  return lit.ok() ? *std::move(lit) : Literal();
}

// Parses, verifies and runs `text` on every participant; `args` holds one
// list per participant or one list for all.
absl::StatusOr<std::vector<EvalResult>> RunAll(
    const std::string& text, std::vector<std::vector<Literal>> args = {{}},
    EvaluatorOptions options = {}) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) return verified;
  Evaluator evaluator(options);
  return evaluator.RunReplicated(**module, args);
}

// Per-participant single arguments.
std::vector<std::vector<Literal>> EachOne(
    const std::vector<std::string>& texts) {
  std::vector<std::vector<Literal>> out;
  for (const std::string& t : texts) {
    std::vector<Literal> one;
    one.push_back(Lit(t));
    out.push_back(std::move(one));
  }
  return out;
}

void ExpectValues(const absl::StatusOr<std::vector<EvalResult>>& results,
                  const std::vector<std::string>& expected) {
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*results)[i].value, Lit(expected[i]))
        << "participant " << i << ": got " << (*results)[i].value.ToString();
  }
}

constexpr char kAddF32[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

// ---- Seed examples.

TEST(AllReduce, SeedTwoReplicasSum) {
  // Seed AllReduce: [1.0, 2.5] and [3.0, 5.25] sum to [4.0, 7.75] on both.
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=add
})"),
                  EachOne({"f32[2] {1, 2.5}", "f32[2] {3, 5.25}"}));
  ExpectValues(r, {"f32[2] {4, 7.75}", "f32[2] {4, 7.75}"});
}

TEST(AllReduce, CrossReplicaSumIsExactSumRoundedOnce) {
  // Seed CrossReplicaSum = AllReduce with summation. 1e8 + 1 - 1e8 = 1
  // exactly; a left fold in f32 would give (1e8 + 1 -> 1e8) - 1e8 = 0.
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=3\n", kAddF32, R"(
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), replica_groups={{0,1,2}}, to_apply=add
})"),
                  EachOne({"f32[] 1e8", "f32[] 1", "f32[] -1e8"}));
  ExpectValues(r, {"f32[] 1", "f32[] 1", "f32[] 1"});
}

TEST(AllGather, SeedTwoReplicas) {
  // Seed AllGather: [1.0, 2.5] and [3.0, 5.25] gather to
  // [1.0, 2.5, 3.0, 5.25] on both replicas.
  auto r = RunAll(R"(HloModule m, replica_count=2
ENTRY e {
  x = f32[2] parameter(0)
  ROOT g = f32[4] all-gather(x), replica_groups={}, dimensions={0}
})",
                  EachOne({"f32[2] {1, 2.5}", "f32[2] {3, 5.25}"}));
  ExpectValues(r, {"f32[4] {1, 2.5, 3, 5.25}", "f32[4] {1, 2.5, 3, 5.25}"});
}

TEST(ReduceScatter, SeedTwoReplicas) {
  // Seed ReduceScatter: [1.0, 2.25] + [3.0, 5.25] = [4.0, 7.5]; replica 0
  // gets [4.0], replica 1 [7.5].
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[1] reduce-scatter(x), replica_groups={}, dimensions={0}, to_apply=add
})"),
                  EachOne({"f32[2] {1, 2.25}", "f32[2] {3, 5.25}"}));
  ExpectValues(r, {"f32[1] {4}", "f32[1] {7.5}"});
}

TEST(ReduceScatter, FloatSumReportsSAndMOfItsShard) {
  // Replica 0's shard sums x[0] over the replicas: S = |-1| + |3| = 4;
  // replica 1's sums x[1]: S = |2.5| + |-5.25| = 7.75; m = 1 addition.
  EvaluatorOptions options;
  options.compute_error_data = true;
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[1] reduce-scatter(x), replica_groups={}, dimensions={0}, to_apply=add
})"),
                  EachOne({"f32[2] {-1, 2.5}", "f32[2] {3, -5.25}"}), options);
  ExpectValues(r, {"f32[1] {2}", "f32[1] {-2.75}"});
  ASSERT_TRUE(r.ok());
  const double s[] = {4, 7.75};
  for (int p = 0; p < 2; ++p) {
    const EvaluatedOutput& out = (*r)[p].outputs[0];
    ASSERT_TRUE(out.abs_sum.has_value()) << "participant " << p;
    EXPECT_EQ(out.abs_sum->GetAsDouble(0), s[p]);
    EXPECT_EQ(out.term_count->GetAsInt64(0), 1);
  }
}

TEST(AllToAll, SeedBuilderExampleShapes) {
  // Seed AllToAll: f32[4,16] on 4 cores, split_dimension=1,
  // concat_dimension=0, split_count=4 gives f32[16,4] on each core. HLO's
  // all-to-all has one dimension; the split/concat form is the reshape /
  // transpose lowering below. Expected from the seed's definition: core r
  // receives block r (columns 4r..4r+3) of every core c and stacks them in
  // core order: out_r[4c + i][j] = x_c[i][4r + j].
  std::vector<std::string> inputs;
  auto x = [](int64_t c, int64_t i, int64_t j) { return 100 * c + 16 * i + j; };
  for (int64_t c = 0; c < 4; ++c) {
    std::vector<std::string> rows;
    for (int64_t i = 0; i < 4; ++i) {
      std::vector<std::string> row;
      for (int64_t j = 0; j < 16; ++j) row.push_back(absl::StrCat(x(c, i, j)));
      rows.push_back(absl::StrCat("{", absl::StrJoin(row, ","), "}"));
    }
    inputs.push_back(
        absl::StrCat("f32[4,16] {", absl::StrJoin(rows, ","), "}"));
  }
  std::vector<std::string> expected;
  for (int64_t r = 0; r < 4; ++r) {
    std::vector<std::string> rows;
    for (int64_t c = 0; c < 4; ++c) {
      for (int64_t i = 0; i < 4; ++i) {
        std::vector<std::string> row;
        for (int64_t j = 0; j < 4; ++j) {
          row.push_back(absl::StrCat(x(c, i, 4 * r + j)));
        }
        rows.push_back(absl::StrCat("{", absl::StrJoin(row, ","), "}"));
      }
    }
    expected.push_back(
        absl::StrCat("f32[16,4] {", absl::StrJoin(rows, ","), "}"));
  }
  auto r = RunAll(R"(HloModule m, replica_count=4
ENTRY e {
  x = f32[4,16] parameter(0)
  x3 = f32[4,4,4] reshape(x)
  xt = f32[4,4,4] transpose(x3), dimensions={1,0,2}
  a3 = f32[4,4,4] all-to-all(xt), replica_groups={}, dimensions={0}
  ROOT a = f32[16,4] reshape(a3)
})",
                  EachOne(inputs));
  ExpectValues(r, expected);
}

TEST(AllToAll, ArrayFormSplitsAndConcatenatesOneDimension) {
  // 2 replicas, dimension 1 of s32[2,4]: block j = columns 2j..2j+1 goes
  // to replica j; replica r concatenates block r of replicas 0 and 1.
  auto r = RunAll(R"(HloModule m, replica_count=2
ENTRY e {
  x = s32[2,4] parameter(0)
  ROOT a = s32[2,4] all-to-all(x), replica_groups={{0,1}}, dimensions={1}
})",
                  EachOne({"s32[2,4] {{0, 1, 2, 3}, {4, 5, 6, 7}}",
                           "s32[2,4] {{10, 11, 12, 13}, {14, 15, 16, 17}}"}));
  ExpectValues(r, {"s32[2,4] {{0, 1, 10, 11}, {4, 5, 14, 15}}",
                   "s32[2,4] {{2, 3, 12, 13}, {6, 7, 16, 17}}"});
}

TEST(AllToAll, TupleForm) {
  // Operand j goes to participant j; result element k is what participant
  // k sent here.
  std::vector<std::vector<Literal>> args(2);
  args[0].push_back(Lit("s32[2] {1, 2}"));
  args[0].push_back(Lit("s32[2] {3, 4}"));
  args[1].push_back(Lit("s32[2] {5, 6}"));
  args[1].push_back(Lit("s32[2] {7, 8}"));
  auto r = RunAll(R"(HloModule m, replica_count=2
ENTRY e {
  a = s32[2] parameter(0)
  b = s32[2] parameter(1)
  ROOT t = (s32[2], s32[2]) all-to-all(a, b), replica_groups={}
})",
                  std::move(args));
  ExpectValues(r, {"(s32[2], s32[2]) ({1, 2}, {5, 6})",
                   "(s32[2], s32[2]) ({3, 4}, {7, 8})"});
}

TEST(CollectivePermute, UntargetedReplicaGetsZeros) {
  // Seed CollectivePermute: replica 0 is no target, so it gets zeros.
  auto r = RunAll(R"(HloModule m, replica_count=3
ENTRY e {
  x = f32[2] parameter(0)
  ROOT p = f32[2] collective-permute(x), source_target_pairs={{0,1},{1,2}}
})",
                  EachOne({"f32[2] {1, 2}", "f32[2] {3, 4}", "f32[2] {5, 6}"}));
  ExpectValues(r, {"f32[2] {0, 0}", "f32[2] {1, 2}", "f32[2] {3, 4}"});
}

TEST(CollectivePermute, Cycle) {
  auto r = RunAll(R"(HloModule m, replica_count=3
ENTRY e {
  x = s32[] parameter(0)
  ROOT p = s32[] collective-permute(x), source_target_pairs={{0,1},{1,2},{2,0}}
})",
                  EachOne({"s32[] 10", "s32[] 11", "s32[] 12"}));
  ExpectValues(r, {"s32[] 12", "s32[] 10", "s32[] 11"});
}

TEST(ReplicaId, ValuesAreZeroToN) {
  // Seed ReplicaId: unique u32 ids in [0, N).
  auto r = RunAll(R"(HloModule m, replica_count=4
ENTRY e {
  ROOT r = u32[] replica-id()
})");
  ExpectValues(r, {"u32[] 0", "u32[] 1", "u32[] 2", "u32[] 3"});
}

TEST(ReplicaId, PlainRunIsReplicaZero) {
  auto module = ParseHloModule(
      "HloModule m\nENTRY e {\n"
      "  ROOT r = u32[] replica-id()\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  Evaluator evaluator;
  auto r = evaluator.Evaluate(**module, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Lit("u32[] 0"));
}

// ---- Replica groups.

TEST(ReplicaGroups, ExplicitGroups) {
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), replica_groups={{0,2},{1,3}}, to_apply=add
})"),
                  EachOne({"f32[] 1", "f32[] 10", "f32[] 100", "f32[] 1000"}));
  ExpectValues(r, {"f32[] 101", "f32[] 1010", "f32[] 101", "f32[] 1010"});
}

TEST(ReplicaGroups, IotaGroups) {
  // [2,2]<=[4]: {0,1},{2,3}.
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), replica_groups=[2,2]<=[4], to_apply=add
})"),
                  EachOne({"f32[] 1", "f32[] 10", "f32[] 100", "f32[] 1000"}));
  ExpectValues(r, {"f32[] 11", "f32[] 11", "f32[] 1100", "f32[] 1100"});
}

TEST(ReplicaGroups, IotaGroupsTransposed) {
  // [2,2]<=[2,2]T(1,0): iota(4) as [[0,1],[2,3]] transposed: {0,2},{1,3}.
  // all-gather concatenates in group order.
  auto r =
      RunAll(R"(HloModule m, replica_count=4
ENTRY e {
  x = s32[1] parameter(0)
  ROOT g = s32[2] all-gather(x), replica_groups=[2,2]<=[2,2]T(1,0), dimensions={0}
})",
             EachOne({"s32[1] {0}", "s32[1] {1}", "s32[1] {2}", "s32[1] {3}"}));
  ExpectValues(
      r, {"s32[2] {0, 2}", "s32[2] {1, 3}", "s32[2] {0, 2}", "s32[2] {1, 3}"});
}

TEST(ReplicaGroups, GroupOrderDecidesGatherOrder) {
  // Seed AllGather: "The order of replicas in each group determines the
  // order in which their inputs are located in the result."
  auto r = RunAll(R"(HloModule m, replica_count=2
ENTRY e {
  x = s32[1] parameter(0)
  ROOT g = s32[2] all-gather(x), replica_groups={{1,0}}, dimensions={0}
})",
                  EachOne({"s32[1] {7}", "s32[1] {9}"}));
  ExpectValues(r, {"s32[2] {9, 7}", "s32[2] {9, 7}"});
}

TEST(ReplicaGroups, ReduceScatterShardFollowsGroupOrder) {
  // Group {1,0}: replica 1 is position 0 and receives shard 0.
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[1] reduce-scatter(x), replica_groups={{1,0}}, dimensions={0}, to_apply=add
})"),
                  EachOne({"f32[2] {1, 2}", "f32[2] {10, 20}"}));
  ExpectValues(r, {"f32[1] {22}", "f32[1] {11}"});
}

// ---- Reducers.

TEST(AllReduce, TupleOperands) {
  std::vector<std::vector<Literal>> args(2);
  args[0].push_back(Lit("f32[2] {1, 2}"));
  args[0].push_back(Lit("f32[] 0.5"));
  args[1].push_back(Lit("f32[2] {10, 20}"));
  args[1].push_back(Lit("f32[] 0.25"));
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[] parameter(1)
  ROOT r = (f32[2], f32[]) all-reduce(a, b), replica_groups={}, to_apply=add
})"),
                  std::move(args));
  ExpectValues(r, {"(f32[2], f32[]) ({11, 22}, 0.75)",
                   "(f32[2], f32[]) ({11, 22}, 0.75)"});
}

TEST(AllReduce, ArbitraryReducerIsLeftFoldInGroupOrder) {
  // f(a, b) = a - b folded over the group {2, 0, 1}:
  // (x2 - x0) - x1 = (100 - 1) - 10 = 89.
  auto r = RunAll(R"(HloModule m, replica_count=3
sub {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] subtract(a, b)
}
ENTRY e {
  x = s32[] parameter(0)
  ROOT r = s32[] all-reduce(x), replica_groups={{2,0,1}}, to_apply=sub
})",
                  EachOne({"s32[] 1", "s32[] 10", "s32[] 100"}));
  ExpectValues(r, {"s32[] 89", "s32[] 89", "s32[] 89"});
}

TEST(AllReduce, MaxReducer) {
  auto r = RunAll(R"(HloModule m, replica_count=2
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[3] parameter(0)
  ROOT r = f32[3] all-reduce(x), replica_groups={}, to_apply=mx
})",
                  EachOne({"f32[3] {1, -5, nan}", "f32[3] {-1, 7, 2}"}));
  ExpectValues(r, {"f32[3] {1, 7, nan}", "f32[3] {1, 7, nan}"});
}

TEST(AllReduce, IntegerAddWraps) {
  // s8: 100 + 100 = 200 wraps to 200 - 256 = -56.
  auto r = RunAll(R"(HloModule m, replica_count=2
add {
  a = s8[] parameter(0)
  b = s8[] parameter(1)
  ROOT s = s8[] add(a, b)
}
ENTRY e {
  x = s8[] parameter(0)
  ROOT r = s8[] all-reduce(x), replica_groups={}, to_apply=add
})",
                  EachOne({"s8[] 100", "s8[] 100"}));
  ExpectValues(r, {"s8[] -56", "s8[] -56"});
}

TEST(AllReduce, ComplexAdd) {
  auto r = RunAll(R"(HloModule m, replica_count=2
add {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT s = c64[] add(a, b)
}
ENTRY e {
  x = c64[] parameter(0)
  ROOT r = c64[] all-reduce(x), replica_groups={}, to_apply=add
})",
                  EachOne({"c64[] (1, 2)", "c64[] (0.5, -4)"}));
  ExpectValues(r, {"c64[] (1.5, -2)", "c64[] (1.5, -2)"});
}

TEST(AllReduce, HeaderlessModuleWithReplicaCountOption) {
  EvaluatorOptions options;
  options.replica_count = 3;
  auto r = RunAll(absl::StrCat("HloModule m\n", kAddF32, R"(
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), replica_groups={}, to_apply=add
})"),
                  EachOne({"f32[] 1", "f32[] 2", "f32[] 4"}), options);
  ExpectValues(r, {"f32[] 7", "f32[] 7", "f32[] 7"});
}

TEST(AllReduce, SameArgumentsForEveryReplica) {
  // One argument list for all: with replica-id mixed in.
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
ENTRY e {
  x = f32[] parameter(0)
  id = u32[] replica-id()
  f = f32[] convert(id)
  y = f32[] add(x, f)
  ROOT r = f32[] all-reduce(y), replica_groups={}, to_apply=add
})"),
                  EachOne({"f32[] 10"}));
  // (10 + 0) + (10 + 1) = 21.
  ExpectValues(r, {"f32[] 21", "f32[] 21"});
}

// ---- Partitions and channel ids. Two replicas x two partitions; global
// id = 2 * replica + partition; every participant contributes
// v = 10 * replica + partition: (0,0)=0, (0,1)=1, (1,0)=10, (1,1)=11.

constexpr char kPartitionHeader[] =
    R"(HloModule m, replica_count=2, num_partitions=2
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
twice_plus {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  a2 = s32[] add(a, a)
  ROOT s = s32[] add(a2, b)
}
ENTRY e {
  r = u32[] replica-id()
  p = u32[] partition-id()
  rs = s32[] convert(r)
  ps = s32[] convert(p)
  ten = s32[] constant(10)
  r10 = s32[] multiply(rs, ten)
  v = s32[] add(r10, ps)
)";

TEST(Partitions, Ids) {
  auto r = RunAll(absl::StrCat(kPartitionHeader,
                               "  ROOT t = (u32[], u32[]) tuple(r, p)\n}\n"));
  ExpectValues(r, {"(u32[], u32[]) (0, 0)", "(u32[], u32[]) (0, 1)",
                   "(u32[], u32[]) (1, 0)", "(u32[], u32[]) (1, 1)"});
}

TEST(Partitions, NoChannelIsCrossReplicaWithinEachPartition) {
  // Partition 0: 0 + 10; partition 1: 1 + 11.
  auto r = RunAll(absl::StrCat(
      kPartitionHeader,
      "  ROOT a = s32[] all-reduce(v), replica_groups={}, to_apply=add\n}\n"));
  ExpectValues(r, {"s32[] 10", "s32[] 12", "s32[] 10", "s32[] 12"});
}

TEST(Partitions, ChannelIsCrossReplicaAndPartition) {
  // Group {0} (replica ids) with channel_id: replica 0 with all its
  // partitions; group {1}: replica 1 with all its partitions.
  auto r = RunAll(absl::StrCat(kPartitionHeader,
                               "  ROOT a = s32[] all-reduce(v), channel_id=1, "
                               "replica_groups={{0},{1}}, to_apply=add\n}\n"));
  ExpectValues(r, {"s32[] 1", "s32[] 1", "s32[] 21", "s32[] 21"});
}

TEST(Partitions, CrossReplicaAndPartitionOrderIsReplicaThenPartition) {
  // Group {1,0} with channel_id: participants (1,0), (1,1), (0,0), (0,1)
  // (XLA's participant order: the group's replicas, each with partitions
  // 0..P-1). f(a, b) = 2a + b folded in that order gives
  // 8*10 + 4*11 + 2*0 + 1 = 125 (partition-major order would give
  // 8*10 + 4*0 + 2*11 + 1 = 103).
  auto r =
      RunAll(absl::StrCat(kPartitionHeader,
                          "  ROOT a = s32[] all-reduce(v), channel_id=1, "
                          "replica_groups={{1,0}}, to_apply=twice_plus\n}\n"));
  ExpectValues(r, {"s32[] 125", "s32[] 125", "s32[] 125", "s32[] 125"});
}

TEST(Partitions, ChannelWithEmptyGroupsIsEveryone) {
  auto r = RunAll(absl::StrCat(kPartitionHeader,
                               "  ROOT a = s32[] all-reduce(v), channel_id=1, "
                               "replica_groups={}, to_apply=add\n}\n"));
  ExpectValues(r, {"s32[] 22", "s32[] 22", "s32[] 22", "s32[] 22"});
}

TEST(Partitions, GlobalDeviceIds) {
  // Flattened ids: {0,3} = (0,0),(1,1): 0 + 11; {1,2} = (0,1),(1,0): 1 + 10.
  auto r = RunAll(
      absl::StrCat(kPartitionHeader,
                   "  ROOT a = s32[] all-reduce(v), channel_id=1, "
                   "replica_groups={{0,3},{1,2}}, use_global_device_ids=true, "
                   "to_apply=add\n}\n"));
  ExpectValues(r, {"s32[] 11", "s32[] 11", "s32[] 11", "s32[] 11"});
}

TEST(Partitions, GlobalDeviceIdsGatherOrder) {
  auto r = RunAll(
      absl::StrCat(kPartitionHeader,
                   "  v1 = s32[1] reshape(v)\n"
                   "  ROOT g = s32[2] all-gather(v1), channel_id=1, "
                   "replica_groups={{3,0},{1,2}}, use_global_device_ids=true, "
                   "dimensions={0}\n}\n"));
  ExpectValues(r, {"s32[2] {11, 0}", "s32[2] {1, 10}", "s32[2] {1, 10}",
                   "s32[2] {11, 0}"});
}

TEST(Partitions, CollectivePermuteWithChannelIsCrossPartition) {
  // Pairs name partitions: partition 0 -> 1 within each replica; partition
  // 0 is no target and gets 0.
  auto r =
      RunAll(absl::StrCat(kPartitionHeader,
                          "  ROOT c = s32[] collective-permute(v), "
                          "channel_id=2, source_target_pairs={{0,1}}\n}\n"));
  ExpectValues(r, {"s32[] 0", "s32[] 0", "s32[] 0", "s32[] 10"});
}

TEST(Partitions, CollectivePermuteWithoutChannelIsCrossReplica) {
  auto r = RunAll(absl::StrCat(kPartitionHeader,
                               "  ROOT c = s32[] collective-permute(v), "
                               "source_target_pairs={{0,1},{1,0}}\n}\n"));
  // Replicas swap within each partition.
  ExpectValues(r, {"s32[] 10", "s32[] 11", "s32[] 0", "s32[] 1"});
}

TEST(Partitions, CollectiveBroadcastFromFirstOfGroup) {
  // channel_id: cross-partition; group {1,0}: partition 1 is the source.
  auto r = RunAll(absl::StrCat(kPartitionHeader,
                               "  ROOT c = s32[] collective-broadcast(v), "
                               "channel_id=3, replica_groups={{1,0}}\n}\n"));
  ExpectValues(r, {"s32[] 1", "s32[] 1", "s32[] 11", "s32[] 11"});
}

// ---- Async pairs.

TEST(Async, StartDonePairs) {
  // 2 replicas: x = {1, 2} on replica 0, {3, 4} on replica 1.
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
ENTRY e {
  x = f32[2] parameter(0)
  ars = f32[2] all-reduce-start(x), replica_groups={}, to_apply=add
  ard = f32[2] all-reduce-done(ars)
  ags = (f32[2], f32[4]) all-gather-start(x), replica_groups={}, dimensions={0}
  agd = f32[4] all-gather-done(ags)
  cps = (f32[2], f32[2], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1},{1,0}}
  cpd = f32[2] collective-permute-done(cps)
  ROOT t = (f32[2], f32[4], f32[2]) tuple(ard, agd, cpd)
})"),
                  EachOne({"f32[2] {1, 2}", "f32[2] {3, 4}"}));
  ExpectValues(r, {"(f32[2], f32[4], f32[2]) ({4, 6}, {1, 2, 3, 4}, {3, 4})",
                   "(f32[2], f32[4], f32[2]) ({4, 6}, {1, 2, 3, 4}, {1, 2})"});
}

TEST(Async, SugaredReduceScatterAndAllToAll) {
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
ENTRY e {
  x = f32[2] parameter(0)
  rss = ((f32[2]), f32[1]) reduce-scatter-start(x), replica_groups={}, dimensions={0}, to_apply=add
  rsd = f32[1] reduce-scatter-done(rss)
  aas = ((f32[2]), f32[2]) all-to-all-start(x), replica_groups={}, dimensions={0}
  aad = f32[2] all-to-all-done(aas)
  ROOT t = (f32[1], f32[2]) tuple(rsd, aad)
})"),
                  EachOne({"f32[2] {1, 2}", "f32[2] {3, 4}"}));
  // reduce-scatter: {4, 6} split: replica 0 {4}, replica 1 {6}.
  // all-to-all: replica 0 gets element 0 of each: {1, 3}; replica 1 {2, 4}.
  ExpectValues(
      r, {"(f32[1], f32[2]) ({4}, {1, 3})", "(f32[1], f32[2]) ({6}, {2, 4})"});
}

TEST(Async, GpuScheduledDumpWithFourPartitions) {
  // The collective part of spec/ir/testdata/gpu_async_collectives.hlo,
  // scaled down: 4 partitions; partition p holds x_p = p + {0, 0.5}.
  //  all-gather-start over global ids [1,4]<=[4] = {0,1,2,3}:
  //    g = x_0 ++ x_1 ++ x_2 ++ x_3
  //  reduce-scatter of g over {0,1,2,3}: 4 * g, block p = 4 * x_p
  //  collective-permute (channel: partitions) p -> p+1 mod 4: x_{p-1}
  //  all-reduce over [2,2]<=[2,2]T(1,0) = {0,2},{1,3}: x_{p-1} + x_{p+1}
  auto r = RunAll(R"(HloModule m, num_partitions=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = u32[] partition-id()
  pf = f32[] convert(p)
  pb = f32[2] broadcast(pf), dimensions={}
  h = f32[2] constant({0, 0.5})
  x = f32[2] add(pb, h)
  ags = (f32[2], f32[8]) all-gather-start(x), channel_id=3, replica_groups=[1,4]<=[4], dimensions={0}, use_global_device_ids=true
  agd = f32[8] all-gather-done(ags)
  rss = ((f32[8]), f32[2]) reduce-scatter-start(agd), channel_id=4, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true, to_apply=add
  rsd = f32[2] reduce-scatter-done(rss)
  cps = (f32[2], f32[2], u32[], u32[]) collective-permute-start(x), channel_id=5, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  cpd = f32[2] collective-permute-done(cps)
  ars = f32[2] all-reduce-start(cpd), channel_id=6, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, to_apply=add
  ard = f32[2] all-reduce-done(ars)
  ROOT t = (f32[2], f32[2]) tuple(rsd, ard)
})");
  std::vector<std::string> expected;
  auto xs = [](int64_t p) {
    return std::vector<double>{static_cast<double>(p), p + 0.5};
  };
  for (int64_t p = 0; p < 4; ++p) {
    std::vector<double> rs = {4 * xs(p)[0], 4 * xs(p)[1]};
    std::vector<double> ar = {xs((p + 3) % 4)[0] + xs((p + 1) % 4)[0],
                              xs((p + 3) % 4)[1] + xs((p + 1) % 4)[1]};
    expected.push_back(absl::StrCat("(f32[2], f32[2]) ({", rs[0], ", ", rs[1],
                                    "}, {", ar[0], ", ", ar[1], "})"));
  }
  ExpectValues(r, expected);
}

// ---- Collectives in loops, deadlocks and failures.

TEST(Rendezvous, AllReduceInLoopMeetsByExecutionCount) {
  // Three iterations, each all-reduces the counter + replica id:
  // iteration k (0-based) gives (k + 0) + (k + 1) = 2k + 1; summed over
  // k = 0..2: 1 + 3 + 5 = 9.
  auto r = RunAll(R"(HloModule m, replica_count=2
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  id = u32[] replica-id()
  ids = s32[] convert(id)
  v = s32[] add(i, ids)
  ar = s32[] all-reduce(v), replica_groups={}, to_apply=add
  acc2 = s32[] add(acc, ar)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i2, acc2)
}
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT out = s32[] get-tuple-element(w), index=1
})");
  ExpectValues(r, {"s32[] 9", "s32[] 9"});
}

// Seed AllReduce's scenario: the loop runs 3 times on replica 0 and twice
// on replica 1, so replica 0's third all-reduce never completes.
constexpr char kUnevenLoop[] = R"(HloModule m, replica_count=2
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  ar = s32[] all-reduce(i), replica_groups={}, to_apply=add
  acc2 = s32[] add(acc, ar)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i2, acc2)
}
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  id = u32[] replica-id()
  ids = s32[] convert(id)
  three = s32[] constant(3)
  limit = s32[] subtract(three, ids)
  ROOT lt = pred[] compare(i, limit), direction=LT
}
ENTRY e {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT out = s32[] get-tuple-element(w), index=1
})";

TEST(Deadlock, UnevenLoopEndsWithDeadlockErrorPromptly) {
  EvaluatorOptions options;
  options.collective_timeout = absl::Seconds(30);  // must not be needed
  const auto start = std::chrono::steady_clock::now();
  auto r = RunAll(kUnevenLoop, {{}}, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded)
      << r.status();
  const std::string msg(r.status().message());
  EXPECT_THAT(msg, HasSubstr("%ar"));
  EXPECT_THAT(msg, HasSubstr("deadlock"));
  EXPECT_THAT(msg, HasSubstr("execution 3"));
  EXPECT_THAT(msg, HasSubstr("arrived: replica 0"));
  EXPECT_THAT(msg, HasSubstr("did not arrive: replica 1 (finished"));
  EXPECT_LT(seconds, 5.0);
}

TEST(Deadlock, DifferentCollectivesAreDetectedWithoutTimeout) {
  // Replica 0 waits at %a, replica 1 at %b: both wait, nobody runs.
  EvaluatorOptions options;
  options.collective_timeout = absl::Seconds(30);
  const auto start = std::chrono::steady_clock::now();
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
left {
  x = f32[] parameter(0)
  ROOT a = f32[] all-reduce(x), replica_groups={}, to_apply=add
}
right {
  x = f32[] parameter(0)
  ROOT b = f32[] all-reduce(x), replica_groups={}, to_apply=add
}
ENTRY e {
  id = u32[] replica-id()
  zero = u32[] constant(0)
  is0 = pred[] compare(id, zero), direction=EQ
  x = f32[] constant(1)
  ROOT c = f32[] conditional(is0, x, x), true_computation=left, false_computation=right
})"),
                  {{}}, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded)
      << r.status();
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("deadlock"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("waits at %"));
  EXPECT_LT(seconds, 5.0);
}

TEST(Deadlock, BusyReplicaTimesOut) {
  // Replica 1 spins in a loop without collectives while replica 0 waits:
  // only the timeout can end this.
  EvaluatorOptions options;
  options.collective_timeout = absl::Milliseconds(300);
  options.max_while_iterations = int64_t{1} << 40;
  const auto start = std::chrono::steady_clock::now();
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
spin_body {
  i = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(i, one)
}
spin_cond {
  i = s32[] parameter(0)
  big = s32[] constant(2000000000)
  ROOT lt = pred[] compare(i, big), direction=LT
}
left {
  x = f32[] parameter(0)
  ROOT a = f32[] all-reduce(x), replica_groups={}, to_apply=add
}
right {
  x = f32[] parameter(0)
  zero = s32[] constant(0)
  w = s32[] while(zero), condition=spin_cond, body=spin_body
  ROOT a = f32[] all-reduce(x), replica_groups={}, to_apply=add
}
ENTRY e {
  id = u32[] replica-id()
  zero = u32[] constant(0)
  is0 = pred[] compare(id, zero), direction=EQ
  x = f32[] constant(1)
  ROOT c = f32[] conditional(is0, x, x), true_computation=left, false_computation=right
})"),
                  {{}}, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded)
      << r.status();
  const std::string msg(r.status().message());
  EXPECT_THAT(msg, HasSubstr("replica 0: "));
  EXPECT_THAT(msg, HasSubstr("waited 300ms"));
  EXPECT_THAT(msg, HasSubstr("replica 1 (still running)"));
  EXPECT_LT(seconds, 5.0);
}

TEST(Failure, OneReplicaFailsOthersStopPromptly) {
  // Replica 1's loop exceeds max_while_iterations before the all-reduce;
  // replica 0 waits there. The run reports replica 1's own error.
  EvaluatorOptions options;
  options.max_while_iterations = 100;
  options.collective_timeout = absl::Seconds(30);
  const auto start = std::chrono::steady_clock::now();
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
spin_body {
  i = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(i, one)
}
spin_cond {
  i = s32[] parameter(0)
  id = u32[] replica-id()
  ids = s32[] convert(id)
  k = s32[] constant(1000)
  limit = s32[] multiply(ids, k)
  ROOT lt = pred[] compare(i, limit), direction=LT
}
ENTRY e {
  zero = s32[] constant(0)
  w = s32[] while(zero), condition=spin_cond, body=spin_body
  x = f32[] convert(w)
  ROOT a = f32[] all-reduce(x), replica_groups={}, to_apply=add
})"),
                  {{}}, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted)
      << r.status();
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("replica 1: "));
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("max_while_iterations"));
  EXPECT_LT(seconds, 5.0);
}

// ---- Errors.

TEST(Errors, RunRefusesAMultiReplicaModule) {
  auto module = ParseHloModule(
      "HloModule m, replica_count=2\nENTRY e {\n  ROOT r = u32[] "
      "replica-id()\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  Evaluator evaluator;
  auto r = evaluator.Run(**module, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("RunReplicated"));
}

TEST(Errors, WrongNumberOfArgumentLists) {
  auto r = RunAll(
      "HloModule m, replica_count=3\nENTRY e {\n  ROOT r = u32[] "
      "replica-id()\n}\n",
      {{}, {}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("2 argument lists for 3 participants"));
}

TEST(Errors, GroupSizeDisagreesWithTheVerifiedShape) {
  // The header says 2 replicas (all-gather result f32[4]); the run uses 3.
  EvaluatorOptions options;
  options.replica_count = 3;
  auto r = RunAll(R"(HloModule m, replica_count=2
ENTRY e {
  x = f32[2] constant({1, 2})
  ROOT g = f32[4] all-gather(x), replica_groups={}, dimensions={0}
})",
                  {{}}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("3 participants"));
}

TEST(Errors, GlobalDeviceIdsNeedExplicitGroups) {
  auto r = RunAll(absl::StrCat(kPartitionHeader,
                               "  ROOT a = s32[] all-reduce(v), channel_id=1, "
                               "replica_groups={}, use_global_device_ids=true, "
                               "to_apply=add\n}\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("needs explicit replica_groups"));
}

TEST(Errors, ReplicaInNoGroup) {
  auto r = RunAll(absl::StrCat("HloModule m, replica_count=3\n", kAddF32, R"(
ENTRY e {
  x = f32[] constant(1)
  ROOT r = f32[] all-reduce(x), replica_groups={{0,1}}, to_apply=add
})"));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("is in no replica group"));
}

// ---- ragged-all-to-all (jax.lax.ragged_all_to_all semantics; values by
// hand).

// Six arguments per participant: input, output, input_offsets, send_sizes,
// output_offsets, recv_sizes.
std::vector<std::vector<Literal>> RaggedArgs(
    const std::vector<std::vector<std::string>>& per_participant) {
  std::vector<std::vector<Literal>> out;
  for (const auto& texts : per_participant) {
    std::vector<Literal> args;
    for (const std::string& t : texts) args.push_back(Lit(t));
    out.push_back(std::move(args));
  }
  return out;
}

std::string RaggedModule(const std::string& in, const std::string& out,
                         const std::string& idx) {
  return absl::StrCat(
      "HloModule m, replica_count=2\nENTRY e {\n  x = ", in,
      " parameter(0)\n  o = ", out, " parameter(1)\n  io = ", idx,
      " parameter(2)\n  ss = ", idx, " parameter(3)\n  oo = ", idx,
      " parameter(4)\n  rs = ", idx, " parameter(5)\n  ROOT r = ", out,
      " ragged-all-to-all(x, o, io, ss, oo, rs), "
      "replica_groups={{0,1}}\n}\n");
}

TEST(RaggedAllToAll, OneSlicePerPeer) {
  // Replica 0 sends x0[0:1] = [1] to replica 0 at row 0 and x0[1:4] =
  // [2, 3, 4] to replica 1 at row 0; replica 1 sends x1[0:2] = [5, 6] to
  // replica 0 at row 1 and x1[2:3] = [7] to replica 1 at row 3. Rows nobody
  // writes keep the output operand (-1).
  auto r = RunAll(
      RaggedModule("f32[4]", "f32[4]", "s32[2]"),
      RaggedArgs(
          {{"f32[4] {1, 2, 3, 4}", "f32[4] {-1, -1, -1, -1}", "s32[2] {0, 1}",
            "s32[2] {1, 3}", "s32[2] {0, 0}", "s32[2] {1, 2}"},
           {"f32[4] {5, 6, 7, 8}", "f32[4] {-1, -1, -1, -1}", "s32[2] {0, 2}",
            "s32[2] {2, 1}", "s32[2] {1, 3}", "s32[2] {3, 1}"}}));
  ExpectValues(r, {"f32[4] {1, 5, 6, -1}", "f32[4] {2, 3, 4, 7}"});
}

TEST(RaggedAllToAll, TwoSlicesPerPeerWithRows) {
  // N = 4 entries, 2 per peer: entries 0-1 go to replica 0, 2-3 to
  // replica 1. Rows are s32[2].
  //  r0 -> r0: row 2 [5,6] at row 3; row 0 [1,2] at row 0.
  //  r0 -> r1: row 1 [3,4] at row 1; an empty slice.
  //  r1 -> r0: row 0 [7,8] at row 1; row 2 [11,12] at row 2.
  //  r1 -> r1: rows 1-2 [9,10],[11,12] at rows 2-3; an empty slice.
  auto r = RunAll(RaggedModule("s32[3,2]", "s32[4,2]", "s64[4]"),
                  RaggedArgs({{"s32[3,2] {{1, 2}, {3, 4}, {5, 6}}",
                               "s32[4,2] {{0, 0}, {0, 0}, {0, 0}, {0, 0}}",
                               "s64[4] {2, 0, 1, 0}", "s64[4] {1, 1, 1, 0}",
                               "s64[4] {3, 0, 1, 2}", "s64[4] {1, 1, 1, 1}"},
                              {"s32[3,2] {{7, 8}, {9, 10}, {11, 12}}",
                               "s32[4,2] {{0, 0}, {0, 0}, {0, 0}, {0, 0}}",
                               "s64[4] {0, 2, 1, 0}", "s64[4] {1, 1, 2, 0}",
                               "s64[4] {1, 2, 2, 0}", "s64[4] {1, 0, 2, 0}"}}));
  ExpectValues(r, {"s32[4,2] {{1, 2}, {7, 8}, {11, 12}, {5, 6}}",
                   "s32[4,2] {{0, 0}, {3, 4}, {9, 10}, {11, 12}}"});
}

TEST(RaggedAllToAll, RankTwoOffsetsAreRowMajor) {
  // The OneSlicePerPeer exchange with [peers, updates] = [2, 1] offset
  // arrays: the same row-major entries, so the same result.
  auto r = RunAll(RaggedModule("f32[4]", "f32[4]", "s32[2,1]"),
                  RaggedArgs({{"f32[4] {1, 2, 3, 4}", "f32[4] {-1, -1, -1, -1}",
                               "s32[2,1] {{0}, {1}}", "s32[2,1] {{1}, {3}}",
                               "s32[2,1] {{0}, {0}}", "s32[2,1] {{1}, {2}}"},
                              {"f32[4] {5, 6, 7, 8}", "f32[4] {-1, -1, -1, -1}",
                               "s32[2,1] {{0}, {2}}", "s32[2,1] {{2}, {1}}",
                               "s32[2,1] {{1}, {3}}", "s32[2,1] {{3}, {1}}"}}));
  ExpectValues(r, {"f32[4] {1, 5, 6, -1}", "f32[4] {2, 3, 4, 7}"});
}

TEST(RaggedAllToAll, SingleParticipantIsAnUpdateSlice) {
  // One replica: its input rows [1, 3) land at output rows [0, 2).
  auto module = ParseHloModule(R"(HloModule m
ENTRY e {
  x = u8[3] constant({10, 20, 30})
  o = u8[4] constant({1, 2, 3, 4})
  io = s32[1] constant({1})
  ss = s32[1] constant({2})
  oo = s32[1] constant({0})
  rs = s32[1] constant({2})
  ROOT r = u8[4] ragged-all-to-all(x, o, io, ss, oo, rs), replica_groups={}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  Evaluator evaluator;
  auto r = evaluator.Evaluate(**module, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Lit("u8[4] {20, 30, 3, 4}"));
}

TEST(RaggedAllToAll, OutOfRangeSliceIsReported) {
  // Replica 1 sends rows [3, 5) of a 4-row input.
  auto r = RunAll(
      RaggedModule("f32[4]", "f32[4]", "s32[2]"),
      RaggedArgs(
          {{"f32[4] {1, 2, 3, 4}", "f32[4] {0, 0, 0, 0}", "s32[2] {0, 1}",
            "s32[2] {1, 1}", "s32[2] {0, 0}", "s32[2] {1, 2}"},
           {"f32[4] {5, 6, 7, 8}", "f32[4] {0, 0, 0, 0}", "s32[2] {3, 0}",
            "s32[2] {2, 1}", "s32[2] {1, 1}", "s32[2] {1, 1}"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("impl.ragged-all-to-all.1"));
}

TEST(RaggedAllToAll, RecvSizeMismatchIsReported) {
  // Replica 0 says it receives 3 rows from replica 1, which sends 2.
  auto r = RunAll(
      RaggedModule("f32[4]", "f32[4]", "s32[2]"),
      RaggedArgs(
          {{"f32[4] {1, 2, 3, 4}", "f32[4] {0, 0, 0, 0}", "s32[2] {0, 1}",
            "s32[2] {1, 1}", "s32[2] {0, 0}", "s32[2] {1, 3}"},
           {"f32[4] {5, 6, 7, 8}", "f32[4] {0, 0, 0, 0}", "s32[2] {0, 2}",
            "s32[2] {2, 1}", "s32[2] {1, 1}", "s32[2] {1, 1}"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("impl.ragged-all-to-all.2"));
}

TEST(RaggedAllToAll, OverlappingWritesAreReported) {
  // Both replicas write row 0 of replica 0's output.
  auto r = RunAll(
      RaggedModule("f32[4]", "f32[4]", "s32[2]"),
      RaggedArgs(
          {{"f32[4] {1, 2, 3, 4}", "f32[4] {0, 0, 0, 0}", "s32[2] {0, 1}",
            "s32[2] {1, 1}", "s32[2] {0, 0}", "s32[2] {1, 1}"},
           {"f32[4] {5, 6, 7, 8}", "f32[4] {0, 0, 0, 0}", "s32[2] {0, 1}",
            "s32[2] {1, 1}", "s32[2] {0, 1}", "s32[2] {1, 1}"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("impl.ragged-all-to-all.3"));
}

}  // namespace
}  // namespace hloref
