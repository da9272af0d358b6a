// The GPU runtime (gpu_backend.cc) against a fake CUDA driver
// (fake_cuda_driver.cc, named by HLOREF_LIBCUDA in the test's
// environment): buffers, uploads in physical layout, downloads, the
// launches' names and dimensions, and launch errors naming the
// instruction. The fake does not execute kernels, so only values that
// no kernel computes are compared.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/gpu_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref::gpu {
namespace {

using ::testing::HasSubstr;

struct Launch {
  std::string kernel;
  unsigned grid[3], block[3];
};

std::vector<Launch> Launches() {
  void* lib = dlopen(std::getenv("HLOREF_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(lib, nullptr);
  if (lib == nullptr) return {};
  auto count =
      reinterpret_cast<int (*)()>(dlsym(lib, "fake_cuda_launch_count"));
  auto get = reinterpret_cast<void (*)(int, char*, int, unsigned*, unsigned*)>(
      dlsym(lib, "fake_cuda_launch"));
  std::vector<Launch> out;
  for (int i = 0; i < count(); ++i) {
    char name[256] = {};
    Launch l;
    get(i, name, sizeof(name) - 1, l.grid, l.block);
    l.kernel = name;
    out.push_back(l);
  }
  return out;
}

// The fake driver's call log from entry `from` on.
std::vector<std::string> Calls(size_t from = 0) {
  void* lib = dlopen(std::getenv("HLOREF_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(lib, nullptr);
  if (lib == nullptr) return {};
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

Shape F32(int64_t n) { return Shape(PrimitiveType::kF32, {n}); }

bool LastModuleWasCubin() {
  void* lib = dlopen(std::getenv("HLOREF_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
  auto f = reinterpret_cast<int (*)()>(
      dlsym(lib, "fake_cuda_last_module_was_cubin"));
  return f != nullptr && f() == 1;
}

class GpuRuntimeTest : public ::testing::Test {
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
      const std::string& text) {
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
    if (!m.ok()) return m.status();
    modules_.push_back(*std::move(m));
    absl::StatusOr<std::unique_ptr<backends::Backend>> b =
        CreateGpuBackend(GpuBackendOptions());
    if (!b.ok()) return b.status();
    return (*b)->Compile(*modules_.back(), backends::CompileOptions());
  }

  std::vector<std::unique_ptr<HloModule>> modules_;
};

TEST_F(GpuRuntimeTest, ParametersRoundTripThroughDeviceBuffers) {
  // No kernel: the results are the uploaded arguments, downloaded; the
  // first one in a column-major layout.
  absl::StatusOr<std::unique_ptr<backends::Executable>> e = Compile(R"(
HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  b = s32[4] parameter(1)
  ROOT t = (f32[2,3]{0,1}, s32[4]) tuple(a, b)
})");
  ASSERT_TRUE(e.ok()) << e.status();
  absl::StatusOr<Literal> a = ParseLiteral("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  absl::StatusOr<Literal> b = ParseLiteral("s32[4] {7, -8, 9, 2147483647}");
  ASSERT_TRUE(a.ok() && b.ok());
  const size_t before = Launches().size();
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run({*a, *b});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Launches().size(), before);
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].ToStringWithoutShape(), a->ToStringWithoutShape());
  EXPECT_EQ((*out)[1].ToString(), b->ToString());
}

TEST_F(GpuRuntimeTest, DynamicParametersRoundTripWithTheirSizes) {
  // No kernel: a bounded dynamic leaf's runtime sizes go up in their own
  // buffer and come back with it (gpu_dynamic.h); a static argument within
  // the bounds takes its dimensions as sizes; one beyond them is refused.
  absl::StatusOr<std::unique_ptr<backends::Executable>> e = Compile(R"(
HloModule m
ENTRY e {
  a = f32[<=4,3] parameter(0)
  b = s32[<=5] parameter(1)
  ROOT t = (f32[<=4,3], s32[<=5]) tuple(a, b)
})");
  ASSERT_TRUE(e.ok()) << e.status();
  absl::StatusOr<Literal> full =
      ParseLiteral("f32[4,3] {{1,2,3},{4,5,6},{99,99,99},{99,99,99}}");
  absl::StatusOr<Shape> bounded = ParseShape("f32[<=4,3]");
  ASSERT_TRUE(full.ok() && bounded.ok());
  absl::StatusOr<Literal> a = Literal::ToBoundedDynamic(*full, *bounded);
  ASSERT_TRUE(a.ok()) << a.status();
  a->SetDynamicSize(0, 2);
  absl::StatusOr<Literal> b = ParseLiteral("s32[3] {7, -8, 9}");
  ASSERT_TRUE(b.ok());
  const size_t before = Launches().size();
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run({*a, *b});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Launches().size(), before);
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].dynamic_sizes()[0], 2);
  EXPECT_EQ((*out)[0].dynamic_sizes()[1], 3);
  EXPECT_EQ((*out)[0].ToStatic().ToStringWithoutShape(),
            ParseLiteral("f32[2,3] {{1,2,3},{4,5,6}}")->ToStringWithoutShape());
  EXPECT_EQ((*out)[1].dynamic_sizes()[0], 3);
  EXPECT_EQ((*out)[1].ToStatic().ToStringWithoutShape(),
            b->ToStringWithoutShape());
  absl::StatusOr<Literal> too_long = ParseLiteral("s32[6] {1,2,3,4,5,6}");
  ASSERT_TRUE(too_long.ok());
  absl::StatusOr<std::vector<Literal>> bad = (*e)->Run({*a, *too_long});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("the module expects s32[<=5]"));
}

TEST_F(GpuRuntimeTest, TokenLeavesComeBackAsTokens) {
  absl::StatusOr<std::unique_ptr<backends::Executable>> e = Compile(R"(
HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  t = token[] after-all()
  ROOT r = (token[], f32[2]) tuple(t, a)
})");
  ASSERT_TRUE(e.ok()) << e.status();
  absl::StatusOr<Literal> a = ParseLiteral("f32[2] {1.5, -0}");
  ASSERT_TRUE(a.ok());
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run({*a});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_TRUE((*out)[0].shape().IsToken());
  EXPECT_EQ((*out)[1].ToString(), a->ToString());
}

TEST_F(GpuRuntimeTest, LaunchesTheProgramsKernelsWithItsDimensions) {
  absl::StatusOr<std::unique_ptr<backends::Executable>> e = Compile(R"(
HloModule m
ENTRY e {
  a = f32[1000] parameter(0)
  ROOT n = f32[1000] negate(a)
})");
  ASSERT_TRUE(e.ok()) << e.status();
  Literal arg(F32(1000));
  const size_t before = Launches().size();
  // Driver 13.0 and a device of compute capability 9.0: an sm_90 cubin.
  EXPECT_TRUE(LastModuleWasCubin());
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run({arg});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<Launch> launches = Launches();
  ASSERT_EQ(launches.size(), before + 1);
  const Launch& l = launches.back();
  EXPECT_EQ(l.kernel, "k0_loop_n");
  EXPECT_EQ(l.grid[0], 4u);  // ceil(1000 / 256)
  EXPECT_EQ(l.block[0], 256u);
  EXPECT_EQ(l.grid[1] * l.grid[2] * l.block[1] * l.block[2], 1u);
}

TEST_F(GpuRuntimeTest, ReplicatedModulesLaunchOneThreadPerParticipant) {
  // replica_count * num_partitions = 6 (gpu_collectives.h): one serial
  // entry kernel of one block of six threads; Run is refused (the module
  // needs RunReplicated); RunReplicated takes one argument list for all or
  // one per participant. The fake driver does not execute the kernel, so
  // results are not checked here (gpu_dynamic_test runs the participants
  // on the host).
  absl::StatusOr<std::unique_ptr<backends::Executable>> e = Compile(R"(
HloModule m, replica_count=3, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(p), replica_groups={}, to_apply=add
})");
  ASSERT_TRUE(e.ok()) << e.status();
  Literal arg(F32(4));
  absl::StatusOr<std::vector<Literal>> one = (*e)->Run({arg});
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(one.status().message()), HasSubstr("RunReplicated"));
  const size_t before = Launches().size();
  absl::StatusOr<std::vector<std::vector<Literal>>> all =
      (*e)->RunReplicated({{arg}});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 6u);
  for (const std::vector<Literal>& results : *all) {
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].shape().ToString(), "f32[4]{0}");
  }
  std::vector<Launch> launches = Launches();
  ASSERT_EQ(launches.size(), before + 1);
  EXPECT_EQ(launches.back().grid[0], 1u);
  EXPECT_EQ(launches.back().block[0], 6u);
  std::vector<std::vector<Literal>> six(6, std::vector<Literal>{arg});
  EXPECT_TRUE((*e)->RunReplicated(six).ok());
  std::vector<std::vector<Literal>> two(2, std::vector<Literal>{arg});
  absl::StatusOr<std::vector<std::vector<Literal>>> refused =
      (*e)->RunReplicated(two);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  Literal wrong(F32(5));
  EXPECT_EQ((*e)->RunReplicated({{wrong}}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(GpuRuntimeTest, LaunchErrorNamesKernelInstructionAndCudaError) {
  absl::StatusOr<std::unique_ptr<backends::Executable>> e = Compile(R"(
HloModule m
ENTRY e {
  a = f32[8] parameter(0)
  ROOT n = f32[8] negate(a)
})");
  ASSERT_TRUE(e.ok()) << e.status();
  setenv("HLOREF_FAKE_CUDA_FAIL_LAUNCH", "1", 1);
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run({Literal(F32(8))});
  unsetenv("HLOREF_FAKE_CUDA_FAIL_LAUNCH");
  ASSERT_FALSE(out.ok());
  const std::string message(out.status().message());
  EXPECT_THAT(message, HasSubstr("GPU kernel k0_loop_n of %n = f32[8]"));
  EXPECT_THAT(message, HasSubstr("negate(%a)"));
  EXPECT_THAT(
      message,
      HasSubstr("CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"));
}

// Three kernels (a sort between two element-wise ones, which fusion
// cannot merge): the runtime's calls of one run.
constexpr char kThreeKernels[] = R"(
HloModule m
lt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=LT
}
ENTRY e {
  a = f32[64] parameter(0)
  n = f32[64] negate(a)
  s = f32[64] sort(n), dimensions={0}, to_apply=lt
  ROOT e = f32[64] exponential(s)
})";

TEST_F(GpuRuntimeTest, KernelsAreQueuedWithoutASyncBetweenThem) {
  absl::StatusOr<std::unique_ptr<backends::Executable>> e =
      Compile(kThreeKernels);
  ASSERT_TRUE(e.ok()) << e.status();
  const size_t before = Calls().size();
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run({Literal(F32(64))});
  ASSERT_TRUE(out.ok()) << out.status();
  // Launch, completion event, launch ... on the executable's stream (not
  // the null stream), then one stream synchronisation before the result
  // is read back.
  EXPECT_THAT(Calls(before),
              ::testing::ElementsAre("launch k0_loop_n", "event_record",
                                     "launch k1_sort_s", "event_record",
                                     "launch k2_loop_e", "event_record",
                                     "stream_synchronize", "memcpy_dtoh"));
  // A second run reuses the stream and events: the same sequence.
  const size_t second = Calls().size();
  ASSERT_TRUE((*e)->Run({Literal(F32(64))}).ok());
  EXPECT_EQ(Calls(second).size(), 8u);
}

TEST_F(GpuRuntimeTest, AnExecutionErrorNamesTheFailedKernel) {
  absl::StatusOr<std::unique_ptr<backends::Executable>> e =
      Compile(kThreeKernels);
  ASSERT_TRUE(e.ok()) << e.status();
  // The sort "fails when it executes": its launch succeeds, the error
  // comes back from the final synchronisation, and the events say which
  // kernel did not complete.
  setenv("HLOREF_FAKE_CUDA_FAIL_KERNEL", "sort", 1);
  const size_t before = Calls().size();
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run({Literal(F32(64))});
  unsetenv("HLOREF_FAKE_CUDA_FAIL_KERNEL");
  ASSERT_FALSE(out.ok());
  const std::string message(out.status().message());
  EXPECT_THAT(message, HasSubstr("GPU kernel k1_sort_s of %s = f32[64]"));
  EXPECT_THAT(message, HasSubstr("sort(%n)"));
  EXPECT_THAT(message, HasSubstr("completion event was not reached"));
  EXPECT_THAT(
      message,
      HasSubstr("CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"));
  // Still no synchronisation before the last launch; nothing read back.
  const std::vector<std::string> calls = Calls(before);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back(), "stream_synchronize");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "stream_synchronize"), 1);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "memcpy_dtoh"), 0);
}

TEST_F(GpuRuntimeTest, SyncEachLaunchSynchronisesAfterEveryKernel) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(kThreeKernels);
  ASSERT_TRUE(m.ok());
  GpuBackendOptions options;
  options.sync_each_launch = true;
  absl::StatusOr<std::unique_ptr<backends::Backend>> b =
      CreateGpuBackend(options);
  ASSERT_TRUE(b.ok());
  absl::StatusOr<std::unique_ptr<backends::Executable>> e =
      (*b)->Compile(**m, backends::CompileOptions());
  ASSERT_TRUE(e.ok()) << e.status();
  setenv("HLOREF_FAKE_CUDA_FAIL_KERNEL", "loop_e", 1);
  const size_t before = Calls().size();
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run({Literal(F32(64))});
  unsetenv("HLOREF_FAKE_CUDA_FAIL_KERNEL");
  EXPECT_THAT(Calls(before),
              ::testing::ElementsAre("launch k0_loop_n", "stream_synchronize",
                                     "launch k1_sort_s", "stream_synchronize",
                                     "launch k2_loop_e", "stream_synchronize"));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("GPU kernel k2_loop_e of %e = f32[64]"));
}

TEST_F(GpuRuntimeTest, WrongArgumentShapeIsAnError) {
  absl::StatusOr<std::unique_ptr<backends::Executable>> e = Compile(R"(
HloModule m
ENTRY e {
  a = f32[8] parameter(0)
  ROOT n = f32[8] negate(a)
})");
  ASSERT_TRUE(e.ok()) << e.status();
  absl::StatusOr<std::vector<Literal>> out = (*e)->Run({Literal(F32(9))});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("the module expects f32[8]"));
}

// A CUDA 12.8 driver cannot load CUDA 13 cubins: the PTX is loaded for the
// driver to JIT-compile. The driver is loaded once per process, so this
// runs only as its own process (ctest runs each test alone).
class GpuRuntimeOldDriverTest : public GpuRuntimeTest {
 protected:
  void SetUp() override {
    setenv("HLOREF_FAKE_CUDA_DRIVER_VERSION", "12080", 1);
    GpuRuntimeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if ((*GetCudaDriver())->driver_version != 12080) {
      GTEST_SKIP() << "the fake driver was loaded earlier in this process";
    }
  }
};

TEST_F(GpuRuntimeOldDriverTest, LoadsPtxForTheDriverToCompile) {
  absl::StatusOr<std::unique_ptr<backends::Executable>> e = Compile(R"(
HloModule m
ENTRY e {
  a = f32[8] parameter(0)
  ROOT n = f32[8] negate(a)
})");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_FALSE(LastModuleWasCubin());
}

}  // namespace
}  // namespace hloref::gpu
