// Host steps (gpu_host_steps.h) and the rng state buffer through the GPU
// runtime and the fake CUDA driver (fake_cuda_driver.cc: host memory for
// device memory, kernels recorded, not executed). Modules here have no
// kernel between their parameters and results, so the values are real:
// uploaded, staged through the host step, uploaded again and downloaded.
// Expected values are hand-derived (comments) or the inputs themselves.
#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/backend.h"
#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/gpu_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::gpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

void* FakeDriver() {
  return dlopen(std::getenv("HLOREF_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
}

std::vector<std::string> FakeCalls(size_t from) {
  void* lib = FakeDriver();
  auto count = reinterpret_cast<int (*)()>(dlsym(lib, "fake_cuda_call_count"));
  auto get =
      reinterpret_cast<void (*)(int, char*, int)>(dlsym(lib, "fake_cuda_call"));
  std::vector<std::string> out;
  for (int i = static_cast<int>(from); i < count(); ++i) {
    char call[256] = {};
    get(i, call, sizeof(call) - 1);
    out.push_back(call);
  }
  return out;
}
size_t FakeCallCount() {
  return static_cast<size_t>(reinterpret_cast<int (*)()>(
      dlsym(FakeDriver(), "fake_cuda_call_count"))());
}
int LiveAllocations() {
  return reinterpret_cast<int (*)()>(
      dlsym(FakeDriver(), "fake_cuda_live_allocations"))();
}

Literal Lit(const std::string& text) {
  absl::StatusOr<Literal> l = ParseLiteral(text);
  EXPECT_TRUE(l.ok()) << l.status() << ": " << text;
  return l.ok() ? *std::move(l) : Literal();
}

class GpuHostStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* lib = std::getenv("HLOREF_LIBCUDA");
    if (lib == nullptr || lib[0] == '\0') {
      GTEST_SKIP() << "HLOREF_LIBCUDA does not name the fake driver";
    }
    absl::StatusOr<CudaDriver*> d = GetCudaDriver();
    ASSERT_TRUE(d.ok()) << d.status();
    ASSERT_EQ((*d)->device_name, "fake H100");
  }

  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const std::string& text, std::vector<std::string> libraries = {}) {
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
    if (!m.ok()) return m.status();
    modules_.push_back(*std::move(m));
    absl::StatusOr<std::unique_ptr<backends::Backend>> b =
        CreateGpuBackend(GpuBackendOptions());
    if (!b.ok()) return b.status();
    backends::CompileOptions options;
    options.custom_call_libraries = std::move(libraries);
    return (*b)->Compile(*modules_.back(), options);
  }

  std::vector<std::unique_ptr<HloModule>> modules_;
};

TEST_F(GpuHostStepTest, CustomCallRunsOnTheHostBetweenLaunches) {
  // Seed 001's myfunc (custom_call_test_lib.cc): with x = {1, 2} and
  // y = {{10, 20, 30}, {40, 50, 60}}, z[i][j] = x[(i+1) % 2] +
  // y[(i+1) % 2][j]: rows 0 and 2 are {2+40, 2+50, 2+60}, row 1
  // {1+10, 1+20, 1+30}.
  auto e = Compile(R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  y = f32[2,3] parameter(1)
  ROOT z = f32[3,3] custom-call(x, y), custom_call_target="myfunc"
})",
                   {HLOREF_CUSTOM_CALL_TESTLIB});
  ASSERT_TRUE(e.ok()) << e.status();
  const size_t from = FakeCallCount();
  std::vector<Literal> args;
  args.push_back(Lit("f32[2] {1, 2}"));
  args.push_back(Lit("f32[2,3] {{10, 20, 30}, {40, 50, 60}}"));
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run(args);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].ToStringWithoutShape(),
            Lit("f32[3,3] {{42, 52, 62}, {11, 21, 31}, {42, 52, 62}}")
                .ToStringWithoutShape());
  // No launch; the stream synchronised before the operands' downloads,
  // then the result's download.
  EXPECT_THAT(FakeCalls(from),
              ElementsAre("stream_synchronize", "memcpy_dtoh", "memcpy_dtoh",
                          "stream_synchronize", "memcpy_dtoh"));
}

TEST_F(GpuHostStepTest, CustomCallTuplesAndLayoutsFollowTheSeedAbi) {
  // tuple_scale_and_sum: ({a[i] * k}, d + sum(a)); a = {-4, 0, 7},
  // d = -0.5, k = -2: {8, 0, -14} and -0.5 + 3 = 2.5.
  auto e = Compile(R"(
HloModule m
ENTRY e {
  a = s32[3] parameter(0)
  d = f64[] parameter(1)
  k = s32[] parameter(2)
  t = (f64[], s32[]) tuple(d, k)
  ROOT r = (s32[3], f64[]) custom-call(a, t), custom_call_target="tuple_scale_and_sum"
})",
                   {HLOREF_CUSTOM_CALL_TESTLIB});
  ASSERT_TRUE(e.ok()) << e.status();
  std::vector<Literal> args;
  args.push_back(Lit("s32[3] {-4, 0, 7}"));
  args.push_back(Lit("f64[] -0.5"));
  args.push_back(Lit("s32[] -2"));
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run(args);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<int32_t>(), ElementsAre(8, 0, -14));
  EXPECT_THAT((*out)[1].data<double>(), ElementsAre(2.5));
  // copy_six_floats copies the operand's buffer: a column-major
  // {{1, 2, 3}, {4, 5, 6}} is 1, 4, 2, 5, 3, 6 in memory.
  auto c = Compile(R"(
HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  ROOT r = f32[6] custom-call(a), custom_call_target="copy_six_floats"
})",
                   {HLOREF_CUSTOM_CALL_TESTLIB});
  ASSERT_TRUE(c.ok()) << c.status();
  std::vector<Literal> a;
  a.push_back(Lit("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"));
  out = (*c)->Run(a);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(1, 4, 2, 5, 3, 6));
}

TEST_F(GpuHostStepTest, UnknownCustomCallTargetIsUnimplemented) {
  auto e = Compile(R"(
HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT r = f32[2] custom-call(a), custom_call_target="no_such_target_anywhere"
})");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(e.status().message(), HasSubstr("no_such_target_anywhere"));
}

TEST_F(GpuHostStepTest, InfeedAndOutfeedGoThroughHostTransfers) {
  // The infeed value lands in a column-major device buffer and comes back
  // both as the result and through the outfeed, unchanged.
  auto e = Compile(R"(
HloModule m
ENTRY e {
  tok = token[] after-all()
  in = ((f32[2,3]{0,1}, s32[]), token[]) infeed(tok)
  d = (f32[2,3]{0,1}, s32[]) get-tuple-element(in), index=0
  t = token[] get-tuple-element(in), index=1
  o = token[] outfeed(d, t), outfeed_shape=(f32[2,3]{0,1}, s32[])
  d0 = f32[2,3]{0,1} get-tuple-element(d), index=0
  d1 = s32[] get-tuple-element(d), index=1
  ROOT r = (f32[2,3]{0,1}, s32[], token[]) tuple(d0, d1, o)
})");
  ASSERT_TRUE(e.ok()) << e.status();
  const Literal value =
      Lit("(f32[2,3], s32[]) ({{1, -2, 3}, {4.5, 5, -6}}, 77)");
  backends::HostTransfers host;
  host.infeed.push_back(value);
  absl::StatusOr<std::vector<Literal>> out = (*e)->RunWithHost({}, host);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[0].ToStringWithoutShape(),
            value.tuple_element(0).ToStringWithoutShape());
  EXPECT_EQ((*out)[1].ToStringWithoutShape(), "77");
  EXPECT_TRUE(host.infeed.empty());
  ASSERT_EQ(host.outfeed.size(), 1u);
  EXPECT_EQ(host.outfeed[0].ToStringWithoutShape(),
            value.ToStringWithoutShape());
  // Run has no host transfers: the CPU backend's FailedPrecondition; an
  // empty queue is InvalidArgument naming the infeed.
  absl::StatusOr<std::vector<Literal>> none = (*e)->Run({});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(), HasSubstr("%in"));
  backends::HostTransfers empty;
  absl::StatusOr<std::vector<Literal>> drained = (*e)->RunWithHost({}, empty);
  ASSERT_FALSE(drained.ok());
  EXPECT_EQ(drained.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(drained.status().message(), HasSubstr("infeed queue is empty"));
}

TEST_F(GpuHostStepTest, SendAndRecvPairOnADeviceChannelAndWithTheHost) {
  // A device-to-device pair (channel 3): recv-done's data is what the
  // send sent; a host-transfer send and recv (channels 5, 6) go to and
  // come from HostTransfers.
  auto e = Compile(R"(
HloModule m
ENTRY e {
  x = s32[3] parameter(0)
  y = f32[2] parameter(1)
  tok = token[] after-all()
  s = (s32[3], u32[], token[]) send(x, tok), channel_id=3
  sd = token[] send-done(s), channel_id=3
  r = (s32[3], u32[], token[]) recv(tok), channel_id=3
  rd = (s32[3], token[]) recv-done(r), channel_id=3
  v = s32[3] get-tuple-element(rd), index=0
  hs = (f32[2], u32[], token[]) send(y, tok), channel_id=5, is_host_transfer=true
  hsd = token[] send-done(hs), channel_id=5, is_host_transfer=true
  hr = (u8[4], u32[], token[]) recv(tok), channel_id=6, is_host_transfer=true
  hrd = (u8[4], token[]) recv-done(hr), channel_id=6, is_host_transfer=true
  w = u8[4] get-tuple-element(hrd), index=0
  ctx = u32[] get-tuple-element(s), index=1
  ROOT t = (s32[3], u8[4], u32[]) tuple(v, w, ctx)
})");
  ASSERT_TRUE(e.ok()) << e.status();
  backends::HostTransfers host;
  host.recv[6].push_back(Lit("u8[4] {9, 8, 7, 255}"));
  std::vector<Literal> args;
  args.push_back(Lit("s32[3] {2147483647, -2147483648, 0}"));
  args.push_back(Lit("f32[2] {0.25, -8}"));
  absl::StatusOr<std::vector<Literal>> out = (*e)->RunWithHost(args, host);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<int32_t>(),
              ElementsAre(2147483647, -2147483648, 0));
  EXPECT_THAT((*out)[1].data<uint8_t>(), ElementsAre(9, 8, 7, 255));
  EXPECT_THAT((*out)[2].data<uint32_t>(), ElementsAre(0));
  ASSERT_EQ(host.sent[5].size(), 1u);
  EXPECT_THAT(host.sent[5][0].data<float>(), ElementsAre(0.25f, -8.0f));
  EXPECT_TRUE(host.recv[6].empty());
}

TEST_F(GpuHostStepTest, RngStateIsOneDeviceBufferKeptBetweenRuns) {
  // Kernels are not executed here, so only the state buffer's life is
  // checked: allocated once per executable, kept between runs, freed with
  // it (every other buffer is freed at the end of its run).
  const int before = LiveAllocations();
  {
    auto e = Compile(R"(
HloModule m
ENTRY e {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  u = f32[16] rng(a, b), distribution=rng_uniform
  s = u64[2] rng-get-and-update-state(), delta=3
  ROOT t = (f32[16], u64[2]) tuple(u, s)
})");
    ASSERT_TRUE(e.ok()) << e.status();
    std::vector<Literal> args;
    args.push_back(Lit("f32[] 0"));
    args.push_back(Lit("f32[] 1"));
    for (int run = 0; run < 3; ++run) {
      ASSERT_TRUE((*e)->Run(args).ok());
      EXPECT_EQ(LiveAllocations(), before + 1) << "run " << run;
    }
  }
  EXPECT_EQ(LiveAllocations(), before);
}

TEST_F(GpuHostStepTest, WhileConditionFromTheHostDrivesTheLoop) {
  // Host-driven control flow (gpu_control_flow.h) through the runtime:
  // the condition's predicate comes from an infeed (a host step, so its
  // value is real here, where kernels do not execute), the body outfeeds
  // the constant 7. With the infeed true, true, false the body runs
  // exactly twice: two outfeeds, and before each branch the stream is
  // synchronised and the predicate downloaded.
  auto e = Compile(R"(
HloModule m
cond {
  p = (s32[], token[]) parameter(0)
  t = token[] get-tuple-element(p), index=1
  in = (pred[], token[]) infeed(t)
  ROOT c = pred[] get-tuple-element(in), index=0
}
body {
  p = (s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  t = token[] get-tuple-element(p), index=1
  seven = s32[] constant(7)
  o = token[] outfeed(seven, t)
  ROOT r = (s32[], token[]) tuple(i, o)
}
ENTRY e {
  zero = s32[] constant(0)
  t0 = token[] after-all()
  init = (s32[], token[]) tuple(zero, t0)
  w = (s32[], token[]) while(init), condition=cond, body=body
  ROOT i = s32[] get-tuple-element(w), index=0
})");
  ASSERT_TRUE(e.ok()) << e.status();
  backends::HostTransfers host;
  for (const char* v : {"pred[] true", "pred[] true", "pred[] false"}) {
    host.infeed.push_back(Lit(v));
  }
  const size_t from = FakeCallCount();
  ASSERT_TRUE((*e)->RunWithHost({}, host).ok());
  ASSERT_EQ(host.outfeed.size(), 2u);
  EXPECT_EQ(host.outfeed[0].ToString(), "s32[] 7");
  EXPECT_TRUE(host.infeed.empty());
  // The init copy, then per iteration: the condition's infeed (a
  // synchronisation), the branch (a synchronisation and the predicate's
  // download), the body's outfeed (a synchronisation and the constant's
  // download); the body's result is the state itself (no copy).
  const std::vector<std::string> calls = FakeCalls(from);
  ASSERT_GE(calls.size(), 2u);
  EXPECT_THAT(calls[0], HasSubstr("launch k0_while_init_w"));
  std::vector<std::string> rest(calls.begin() + 1, calls.end());
  const std::vector<std::string> iteration = {
      "stream_synchronize", "stream_synchronize", "memcpy_dtoh",
      "stream_synchronize", "memcpy_dtoh"};
  std::vector<std::string> want = {"event_record"};
  for (int k = 0; k < 2; ++k) {
    want.insert(want.end(), iteration.begin(), iteration.end());
  }
  // The last condition: infeed, branch (false), then the end of the run.
  for (const char* c : {"stream_synchronize", "stream_synchronize",
                        "memcpy_dtoh", "stream_synchronize", "memcpy_dtoh"}) {
    want.push_back(c);
  }
  EXPECT_EQ(rest, want);
}

TEST_F(GpuHostStepTest, ConditionalPicksItsBranchOnTheHost) {
  // Branch 0 outfeeds the operand, branch 1 negates it (a kernel). The
  // selector is an argument (uploaded, so real here): 0 -> one outfeed of
  // {5, 6} and no kernel; 1 and 9 (out of range: the last branch) -> the
  // negate kernel and the result copy, no outfeed.
  auto e = Compile(R"(
HloModule m
b0 {
  p = (s32[2], token[]) parameter(0)
  x = s32[2] get-tuple-element(p), index=0
  t = token[] get-tuple-element(p), index=1
  o = token[] outfeed(x, t)
  ROOT r = s32[2] get-tuple-element(p), index=0
}
b1 {
  p = (s32[2], token[]) parameter(0)
  x = s32[2] get-tuple-element(p), index=0
  ROOT n = s32[2] negate(x)
}
ENTRY e {
  i = s32[] parameter(0)
  x = s32[2] parameter(1)
  t = token[] after-all()
  a = (s32[2], token[]) tuple(x, t)
  ROOT c = s32[2] conditional(i, a, a), branch_computations={b0, b1}
})");
  ASSERT_TRUE(e.ok()) << e.status();
  for (int32_t selector : {0, 1, 9}) {
    SCOPED_TRACE(selector);
    std::vector<Literal> args;
    args.push_back(Lit(absl::StrCat("s32[] ", selector)));
    args.push_back(Lit("s32[2] {5, 6}"));
    backends::HostTransfers host;
    const size_t from = FakeCallCount();
    ASSERT_TRUE((*e)->RunWithHost(args, host).ok());
    const std::vector<std::string> calls = FakeCalls(from);
    int negates = 0;
    for (const std::string& c : calls) {
      if (c.rfind("launch ", 0) == 0 &&
          c.find("_loop_n") != std::string::npos) {
        ++negates;
      }
    }
    ASSERT_GE(calls.size(), 2u);
    // The branch: the stream synchronised, the selector downloaded.
    EXPECT_EQ(calls[0], "stream_synchronize");
    EXPECT_EQ(calls[1], "memcpy_dtoh");
    if (selector == 0) {
      ASSERT_EQ(host.outfeed.size(), 1u);
      EXPECT_EQ(host.outfeed[0].ToStringWithoutShape(), "{5, 6}");
      EXPECT_EQ(negates, 0);
    } else {
      EXPECT_TRUE(host.outfeed.empty());
      EXPECT_EQ(negates, 1);
    }
  }
}

}  // namespace
}  // namespace hloref::gpu
