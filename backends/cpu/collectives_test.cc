// Replicated runs, collectives, host transfers and custom-call on the CPU
// backend: modules parsed from text, compiled and run; every expected value
// is derived by hand in the comment beside it.
#include "backends/cpu/runtime/collectives.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "absl/strings/match.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/runtime/custom_call.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::cpu {
namespace {

using ::testing::ElementsAre;

absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
    absl::string_view text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  auto backend = CreateCpuBackend({});
  if (!backend.ok()) return backend.status();
  return (*backend)->Compile(**module, {});
}

Literal F32(std::vector<float> v) {
  return Literal::CreateR1<float>(PrimitiveType::kF32, v);
}

std::vector<std::vector<Literal>> PerParticipant(std::vector<Literal> values) {
  std::vector<std::vector<Literal>> args;
  for (Literal& v : values) {
    std::vector<Literal> one;
    one.push_back(std::move(v));
    args.push_back(std::move(one));
  }
  return args;
}

TEST(CpuCollectives, AllReduceMaxAndReplicaId) {
  // Three replicas contribute {1,5}, {4,2}, {3,3}: the max is {4,5}; the
  // second result is each replica's id.
  auto exe = Compile(R"(
HloModule m, replica_count=3
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[2] parameter(0)
  r = f32[2] all-reduce(x), replica_groups={}, to_apply=mx
  id = u32[] replica-id()
  ROOT t = (f32[2], u32[]) tuple(r, id)
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto out = (*exe)->RunReplicated(
      PerParticipant({F32({1, 5}), F32({4, 2}), F32({3, 3})}));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  for (uint32_t r = 0; r < 3; ++r) {
    EXPECT_THAT((*out)[r][0].data<float>(), ElementsAre(4, 5));
    EXPECT_THAT((*out)[r][1].data<uint32_t>(), ElementsAre(r));
  }
}

TEST(CpuCollectives, AllReduceSubtractFoldsInGroupOrder) {
  // A left fold in group order {2,0,1}: (x2 - x0) - x1 with x_r = 10^r:
  // (100 - 1) - 10 = 89 on every replica of the group.
  auto exe = Compile(R"(
HloModule m, replica_count=3
sub {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] subtract(a, b)
}
ENTRY e {
  x = s32[] parameter(0)
  ROOT r = s32[] all-reduce(x), replica_groups={{2,0,1}}, to_apply=sub
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<Literal> xs;
  for (int32_t v : {1, 10, 100}) {
    xs.push_back(Literal::CreateR0<int32_t>(PrimitiveType::kS32, v));
  }
  auto out = (*exe)->RunReplicated(PerParticipant(std::move(xs)));
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < 3; ++r) {
    EXPECT_THAT((*out)[r][0].data<int32_t>(), ElementsAre(89));
  }
}

TEST(CpuCollectives, AllGatherColumnMajorAndPermute) {
  // all-gather along dimension 1 of f32[2,1]{0,1} in group order {1,0}:
  // replica 1's column {3,4} first, then replica 0's {1,2}:
  // {{3,1},{4,2}}. collective-permute {0->1}: replica 1 gets replica 0's
  // {1,2}; replica 0 is no target and gets zeros.
  auto exe = Compile(R"(
HloModule m, replica_count=2
ENTRY e {
  x = f32[2,1]{0,1} parameter(0)
  g = f32[2,2]{0,1} all-gather(x), dimensions={1}, replica_groups={{1,0}}
  p = f32[2,1]{0,1} collective-permute(x), source_target_pairs={{0,1}}
  ROOT t = (f32[2,2]{0,1}, f32[2,1]{0,1}) tuple(g, p)
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<Literal> xs;
  for (float base : {1.0f, 3.0f}) {
    Literal x(Shape::Array(PrimitiveType::kF32, {2, 1}));
    x.mutable_data<float>()[0] = base;
    x.mutable_data<float>()[1] = base + 1;
    xs.push_back(std::move(x));
  }
  auto out = (*exe)->RunReplicated(PerParticipant(std::move(xs)));
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < 2; ++r) {
    // Literals come back row-major: {{3,1},{4,2}}.
    EXPECT_THAT((*out)[r][0].data<float>(), ElementsAre(3, 1, 4, 2));
  }
  EXPECT_THAT((*out)[0][1].data<float>(), ElementsAre(0, 0));
  EXPECT_THAT((*out)[1][1].data<float>(), ElementsAre(1, 2));
}

TEST(CpuCollectives, SkippedCollectiveIsAnErrorNotAHang) {
  // Replica 1 takes the branch without the all-reduce; replica 0 waits for
  // it until replica 1 finishes its run: a deadlock error, at once.
  auto exe = Compile(R"(
HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
with {
  p = f32[] parameter(0)
  ROOT r = f32[] all-reduce(p), replica_groups={}, to_apply=add
}
without {
  ROOT p = f32[] parameter(0)
}
ENTRY e {
  x = f32[] parameter(0)
  id = u32[] replica-id()
  zero = u32[] constant(0)
  is0 = pred[] compare(id, zero), direction=EQ
  ROOT c = f32[] conditional(is0, x, x), true_computation=with,
    false_computation=without
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<std::vector<Literal>> args(1);
  args[0].push_back(Literal::CreateR0<float>(PrimitiveType::kF32, 1));
  const auto start = std::chrono::steady_clock::now();
  auto out = (*exe)->RunReplicated(args);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded)
      << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "replica 1"))
      << out.status();
  EXPECT_LT(seconds, 5.0);
}

TEST(CpuCollectives, RunReplicatedParticipantsIds) {
  // 2 replicas x 2 partitions: participant i is replica i / 2, partition
  // i % 2.
  std::vector<std::vector<Literal>> args(1);
  auto out = RunReplicatedParticipants(
      2, 2, args, [](absl::Span<const Literal>, RunContext& ctx) {
        std::vector<Literal> v;
        v.push_back(Literal::CreateR0<int64_t>(
            PrimitiveType::kS64, ctx.replica_id * 10 + ctx.partition_id));
        return absl::StatusOr<std::vector<Literal>>(std::move(v));
      });
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<int64_t> ids;
  for (const auto& r : *out) ids.push_back(r[0].data<int64_t>()[0]);
  EXPECT_THAT(ids, ElementsAre(0, 1, 10, 11));
}

TEST(CpuHost, InfeedOutfeedAndDeviceSendRecv) {
  // infeed reads {1,2}; outfeed writes it doubled {2,4}; a device send on
  // channel 3 of {7} is received by the recv-done of channel 3.
  auto exe = Compile(R"(
HloModule m
ENTRY e {
  tok = token[] after-all()
  in = (f32[2], token[]) infeed(tok)
  x = f32[2] get-tuple-element(in), index=0
  y = f32[2] add(x, x)
  out = token[] outfeed(y, tok), outfeed_shape=f32[2]
  c = f32[1] constant({7})
  s = (f32[1], u32[], token[]) send(c, tok), channel_id=3
  sd = token[] send-done(s), channel_id=3
  r = (f32[1], u32[], token[]) recv(tok), channel_id=3
  rd = (f32[1], token[]) recv-done(r), channel_id=3
  z = f32[1] get-tuple-element(rd), index=0
  ROOT t = (f32[2], f32[1]) tuple(x, z)
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  backends::HostTransfers host;
  host.infeed.push_back(F32({1, 2}));
  auto out = (*exe)->RunWithHost({}, host);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(1, 2));
  EXPECT_THAT((*out)[1].data<float>(), ElementsAre(7));
  ASSERT_EQ(host.outfeed.size(), 1u);
  EXPECT_THAT(host.outfeed[0].data<float>(), ElementsAre(2, 4));
  EXPECT_TRUE(host.infeed.empty());
  // Without host transfers the infeed is a clear error.
  auto plain = (*exe)->Run({});
  ASSERT_FALSE(plain.ok());
  EXPECT_TRUE(absl::StrContains(plain.status().message(), "infeed"))
      << plain.status();
}

TEST(CpuCustomCall, UnknownTargetIsUnimplemented) {
  auto exe = Compile(R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[2] custom-call(x), custom_call_target="no_such_target_h7"
})");
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(exe.status().message(), "no_such_target_h7"))
      << exe.status();
}

TEST(CpuCustomCall, TupleOperandAndResultFromALibrary) {
  // tuple_scale_and_sum (interpreter/ops/custom_call_test_lib.cc, a user
  // library with the seed ABI) returns ({a[i] * k}, d + sum(a)): a =
  // {-4, 0, 7}, d = -0.5, k = -2: {8, 0, -14} and -0.5 + 3 = 2.5.
  ASSERT_TRUE(AddCustomCallLibrary(HLOREF_CUSTOM_CALL_TESTLIB).ok());
  auto exe = Compile(R"(
HloModule m
ENTRY e {
  a = s32[3] parameter(0)
  d = f64[] parameter(1)
  k = s32[] parameter(2)
  t = (f64[], s32[]) tuple(d, k)
  ROOT r = (s32[3], f64[]) custom-call(a, t), custom_call_target="tuple_scale_and_sum"
})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<int32_t>(PrimitiveType::kS32, {-4, 0, 7}));
  args.push_back(Literal::CreateR0<double>(PrimitiveType::kF64, -0.5));
  args.push_back(Literal::CreateR0<int32_t>(PrimitiveType::kS32, -2));
  auto out = (*exe)->Run(args);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<int32_t>(), ElementsAre(8, 0, -14));
  EXPECT_THAT((*out)[1].data<double>(), ElementsAre(2.5));
}

}  // namespace
}  // namespace hloref::cpu
