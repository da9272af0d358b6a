// Tests of the host I/O family (interpreter/ops/host_io.cc) and the queues
// (interpreter/host_queues.h): infeed, outfeed, host-transfer send/recv,
// device-to-device send/recv pairs, token threading, empty queues and
// shape mismatches.
#include "interpreter/ops/host_io.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/host_queues.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

absl::StatusOr<EvalResult> RunHlo(const std::string& text, HostQueues* queues,
                                  std::vector<Literal> args = {}) {
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          ParseHloModule(text));
  HLOREF_RETURN_IF_ERROR(VerifyModule(*module));
  EvaluatorOptions options;
  options.host_queues = queues;
  Evaluator evaluator(options);
  return evaluator.Run(*module, args);
}

Literal Lit(const std::string& text) {
  absl::StatusOr<Literal> l = ParseLiteral(text);
  EXPECT_TRUE(l.ok()) << text << ": " << l.status();
  return l.ok() ? *std::move(l) : Literal();
}

// Two infeeds in order (threaded by their tokens), the sum outfed.
constexpr char kInfeedOutfeed[] = R"(HloModule m
ENTRY e {
  t0 = token[] after-all()
  in1 = (f32[3], token[]) infeed(t0)
  d1 = f32[3] get-tuple-element(in1), index=0
  t1 = token[] get-tuple-element(in1), index=1
  in2 = (f32[3], token[]) infeed(t1)
  d2 = f32[3] get-tuple-element(in2), index=0
  t2 = token[] get-tuple-element(in2), index=1
  sum = f32[3] add(d1, d2)
  t3 = token[] outfeed(sum, t2), outfeed_shape=f32[3]
  t4 = token[] outfeed(d1, t3), outfeed_shape=f32[3]
  ROOT r = (f32[3], token[]) tuple(d2, t4)
})";

TEST(Infeed, ReadsQueueInOrderAndOutfeedAppends) {
  HostQueues queues;
  queues.PushInfeed(Lit("f32[3] {1, 2, 3}"));
  queues.PushInfeed(Lit("f32[3] {10, 20, 30}"));
  queues.PushInfeed(Lit("f32[3] {7, 7, 7}"));  // left for a later run
  absl::StatusOr<EvalResult> r = RunHlo(kInfeedOutfeed, &queues);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.tuple_element(0), Lit("f32[3] {10, 20, 30}"));
  EXPECT_TRUE(r->value.tuple_element(1).shape().IsToken());
  std::vector<Literal> out = queues.TakeOutfeed();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], Lit("f32[3] {11, 22, 33}"));
  EXPECT_EQ(out[1], Lit("f32[3] {1, 2, 3}"));
  EXPECT_TRUE(queues.TakeOutfeed().empty());
  EXPECT_EQ(queues.infeed_size(), 1);
}

TEST(Infeed, EmptyQueueNamesTheInstruction) {
  HostQueues queues;
  queues.PushInfeed(Lit("f32[3] {1, 2, 3}"));
  absl::StatusOr<EvalResult> r = RunHlo(kInfeedOutfeed, &queues);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("%in2"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("infeed queue is empty"),
            std::string::npos)
      << r.status();
  // Located at line 7, where in2 is written.
  EXPECT_EQ(r.status().message().substr(0, 2), "7:") << r.status();
}

TEST(Infeed, ShapeMismatchIsAnError) {
  HostQueues queues;
  queues.PushInfeed(Lit("f32[4] {1, 2, 3, 4}"));
  absl::StatusOr<EvalResult> r = RunHlo(kInfeedOutfeed, &queues);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("f32[4]"), std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("f32[3]"), std::string::npos)
      << r.status();
  HostQueues typed;
  typed.PushInfeed(Lit("s32[3] {1, 2, 3}"));
  EXPECT_FALSE(RunHlo(kInfeedOutfeed, &typed).ok());
}

TEST(Infeed, NoQueuesIsFailedPrecondition) {
  absl::StatusOr<EvalResult> r = RunHlo(kInfeedOutfeed, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("host_queues"), std::string::npos);
}

TEST(Infeed, TupleDataAndEmptyTupleReadsNothing) {
  constexpr char kText[] = R"(HloModule m
ENTRY e {
  t0 = token[] after-all()
  none = ((), token[]) infeed(t0)
  t1 = token[] get-tuple-element(none), index=1
  in = ((s32[2], pred[]), token[]) infeed(t1)
  ROOT d = (s32[2], pred[]) get-tuple-element(in), index=0
})";
  HostQueues queues;
  queues.PushInfeed(Lit("(s32[2], pred[]) ({5, -6}, true)"));
  absl::StatusOr<EvalResult> r = RunHlo(kText, &queues);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(s32[2], pred[]) ({5, -6}, true)"));
  EXPECT_EQ(queues.infeed_size(), 0);
}

TEST(Infeed, InsideWhileLoopReadsOncePerIteration) {
  // Seed 001's pattern: an infeed in a while body; three iterations sum
  // three queued values.
  constexpr char kText[] = R"(HloModule m
cond {
  p = (s32[], f32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[] get-tuple-element(p), index=1
  tok = token[] get-tuple-element(p), index=2
  in = (f32[], token[]) infeed(tok)
  x = f32[] get-tuple-element(in), index=0
  t = token[] get-tuple-element(in), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  acc1 = f32[] add(acc, x)
  ROOT r = (s32[], f32[], token[]) tuple(i1, acc1, t)
}
ENTRY e {
  zero = s32[] constant(0)
  fz = f32[] constant(0)
  t0 = token[] after-all()
  init = (s32[], f32[], token[]) tuple(zero, fz, t0)
  w = (s32[], f32[], token[]) while(init), condition=cond, body=body
  ROOT s = f32[] get-tuple-element(w), index=1
})";
  HostQueues queues;
  for (float v : {1.5f, 2.0f, 4.0f}) {
    queues.PushInfeed(Literal::CreateR0<float>(PrimitiveType::kF32, v));
  }
  absl::StatusOr<EvalResult> r = RunHlo(kText, &queues);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[] 7.5"));
}

TEST(SendRecv, HostTransfers) {
  constexpr char kText[] = R"(HloModule m
ENTRY e {
  t0 = token[] after-all()
  x = s32[2] constant({3, 4})
  snd = (s32[2], u32[], token[]) send(x, t0), channel_id=5, is_host_transfer=true
  sd = token[] send-done(snd), channel_id=5, is_host_transfer=true
  rcv = (f32[2,2], u32[], token[]) recv(sd), channel_id=6, is_host_transfer=true
  rd = (f32[2,2], token[]) recv-done(rcv), channel_id=6, is_host_transfer=true
  ROOT d = f32[2,2] get-tuple-element(rd), index=0
})";
  HostQueues queues;
  queues.PushRecv(6, Lit("f32[2,2] {{1, 2}, {3, 4}}"));
  queues.PushRecv(7, Lit("f32[2,2] {{9, 9}, {9, 9}}"));  // other channel
  absl::StatusOr<EvalResult> r = RunHlo(kText, &queues);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[2,2] {{1, 2}, {3, 4}}"));
  EXPECT_EQ(queues.SentChannels(), std::vector<int64_t>{5});
  std::vector<Literal> sent = queues.TakeSent(5);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0], Lit("s32[2] {3, 4}"));
  EXPECT_EQ(queues.recv_size(6), 0);
  EXPECT_EQ(queues.recv_size(7), 1);

  // Nothing queued for channel 6: a clear error naming the recv.
  HostQueues empty;
  absl::StatusOr<EvalResult> e = RunHlo(kText, &empty);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("%rcv"), std::string::npos) << e.status();
  EXPECT_NE(e.status().message().find("channel 6"), std::string::npos)
      << e.status();
  // A queued value of the wrong shape.
  HostQueues wrong;
  wrong.PushRecv(6, Lit("f32[4] {1, 2, 3, 4}"));
  absl::StatusOr<EvalResult> w = RunHlo(kText, &wrong);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("f32[2,2]"), std::string::npos)
      << w.status();
}

TEST(SendRecv, DeviceToDevicePairsMatchByChannel) {
  // Seed 001's order: Recv before Send, Send before RecvDone. Two channels
  // with crossed traffic; the recv context is consumed only by recv-done.
  constexpr char kText[] = R"(HloModule m
ENTRY e {
  t0 = token[] after-all()
  r1 = (f32[2], u32[], token[]) recv(t0), channel_id=1
  r2 = (s8[], u32[], token[]) recv(t0), channel_id=2
  a = f32[2] constant({1.5, -2})
  b = s8[] constant(-7)
  snd2 = (s8[], u32[], token[]) send(b, t0), channel_id=2
  snd1 = (f32[2], u32[], token[]) send(a, t0), channel_id=1
  d1 = (f32[2], token[]) recv-done(r1), channel_id=1
  d2 = (s8[], token[]) recv-done(r2), channel_id=2
  sd1 = token[] send-done(snd1), channel_id=1
  sd2 = token[] send-done(snd2), channel_id=2
  v1 = f32[2] get-tuple-element(d1), index=0
  v2 = s8[] get-tuple-element(d2), index=0
  tok = token[] after-all(sd1, sd2)
  ROOT t = (f32[2], s8[], token[]) tuple(v1, v2, tok)
})";
  HostQueues queues;  // device transfers do not touch the host queues
  absl::StatusOr<EvalResult> r = RunHlo(kText, &queues);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.tuple_element(0), Lit("f32[2] {1.5, -2}"));
  EXPECT_EQ(r->value.tuple_element(1), Lit("s8[] -7"));
  EXPECT_TRUE(queues.SentChannels().empty());
  // Device transfers need no host queues at all.
  EXPECT_TRUE(RunHlo(kText, nullptr).ok());
}

TEST(SendRecv, RecvDoneWithoutSendIsAnError) {
  constexpr char kText[] = R"(HloModule m
ENTRY e {
  t0 = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t0), channel_id=3
  d = (f32[2], token[]) recv-done(r), channel_id=3
  a = f32[2] constant({1, 2})
  s = (f32[2], u32[], token[]) send(a, t0), channel_id=3
  sd = token[] send-done(s), channel_id=3
  ROOT v = f32[2] get-tuple-element(d), index=0
})";
  absl::StatusOr<EvalResult> r = RunHlo(kText, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("%d"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("no send on channel 3"),
            std::string::npos)
      << r.status();
}

TEST(SendRecv, SentShapeMustMatchTheRecv) {
  constexpr char kText[] = R"(HloModule m
ENTRY e {
  t0 = token[] after-all()
  r = (f32[3], u32[], token[]) recv(t0), channel_id=4
  a = f32[2] constant({1, 2})
  s = (f32[2], u32[], token[]) send(a, t0), channel_id=4
  d = (f32[3], token[]) recv-done(r), channel_id=4
  ROOT v = f32[3] get-tuple-element(d), index=0
})";
  absl::StatusOr<EvalResult> r = RunHlo(kText, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("channel 4"), std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("f32[2]"), std::string::npos)
      << r.status();
}

TEST(HostQueues, DeviceChannelsAreFifoPerChannel) {
  DeviceChannels channels;
  channels.Send(1, Lit("s32[] 1"));
  channels.Send(1, Lit("s32[] 2"));
  channels.Send(2, Lit("s32[] 3"));
  EXPECT_EQ(channels.pending(1), 2);
  EXPECT_EQ(*channels.Receive(1), Lit("s32[] 1"));
  EXPECT_EQ(*channels.Receive(2), Lit("s32[] 3"));
  EXPECT_EQ(*channels.Receive(1), Lit("s32[] 2"));
  EXPECT_FALSE(channels.Receive(1).has_value());
  EXPECT_FALSE(channels.Receive(9).has_value());
}

}  // namespace
}  // namespace hloref
