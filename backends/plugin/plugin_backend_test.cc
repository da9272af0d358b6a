// Tests of the plugin loader with the sample plugins built beside it.
#include "backends/plugin/plugin_backend.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"
#include "spec/util/status_macros.h"

namespace hloref::backends {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

constexpr char kAddMulNeg[] = R"(HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  s = f32[2,2] add(a, b)
  p = f32[2,2] multiply(s, b)
  ROOT n = f32[2,2] negate(p)
})";

absl::StatusOr<std::vector<Literal>> CompileAndRun(const std::string& plugin,
                                                   absl::string_view text,
                                                   std::vector<Literal> args) {
  HLOREF_ASSIGN_OR_RETURN(auto backend, CreatePluginBackend(plugin));
  auto module = ParseHloModule(text);
  HLOREF_RETURN_IF_ERROR(module.status());
  HLOREF_RETURN_IF_ERROR(SupportsModule(*backend, **module));
  HLOREF_ASSIGN_OR_RETURN(auto exe, backend->Compile(**module, {}));
  return exe->Run(args);
}

Literal F32(std::vector<int64_t> dims, std::vector<float> values) {
  return Literal::CreateFromValues<float>(PrimitiveType::kF32, dims, values);
}

TEST(PluginBackendTest, SampleComputesElementwiseOps) {
  auto out = CompileAndRun(
      HLOREF_SAMPLE_PLUGIN, kAddMulNeg,
      {F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {10, -1, 0.5f, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].shape().dimensions().size(), 2u);
  // -((a + b) * b): -(11*10), -(1*-1), -(3.5*0.5), -(4*0) = -0.
  auto v = (*out)[0].data<float>();
  EXPECT_THAT(std::vector<float>(v.begin(), v.end()),
              ElementsAre(-110.0f, 1.0f, -1.75f, 0.0f));
  EXPECT_TRUE(std::signbit(v[3]));
}

TEST(PluginBackendTest, BackendNameAndReuse) {
  auto backend = CreatePluginBackend(HLOREF_SAMPLE_PLUGIN);
  ASSERT_TRUE(backend.ok()) << backend.status();
  EXPECT_EQ((*backend)->name(), std::string("plugin:") + HLOREF_SAMPLE_PLUGIN);
  auto m = Parse(kAddMulNeg);
  auto exe = (*backend)->Compile(*m, {});
  ASSERT_TRUE(exe.ok()) << exe.status();
  // The backend may die before its executable: the library stays loaded.
  backend->reset();
  for (float x : {1.0f, 2.0f}) {
    std::vector<Literal> args = {F32({2, 2}, {x, x, x, x}),
                                 F32({2, 2}, {1, 1, 1, 1})};
    auto out = (*exe)->Run(args);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<float>()[0], -(x + 1));
  }
}

TEST(PluginBackendTest, UnsupportedOpsAreUnimplemented) {
  auto backend = CreatePluginBackend(HLOREF_SAMPLE_PLUGIN);
  ASSERT_TRUE(backend.ok());
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT c = f32[2] cosine(a)
})");
  // Through the optional hloref_supports ...
  absl::Status st = SupportsModule(**backend, *m);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(st.message(), HasSubstr("cosine"));
  // ... and through compile, which is what counts.
  auto exe = (*backend)->Compile(*m, {});
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(exe.status().message(), HasSubstr("cosine"));
  EXPECT_THAT(exe.status().message(), HasSubstr("plugin 'sample'"));

  auto s32 = Parse(R"(HloModule m
ENTRY e {
  a = s32[2] parameter(0)
  ROOT c = s32[2] add(a, a)
})");
  auto exe2 = (*backend)->Compile(*s32, {});
  ASSERT_FALSE(exe2.ok());
  EXPECT_EQ(exe2.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(PluginBackendTest, BadArgumentsAreErrorsNotCrashes) {
  auto backend = CreatePluginBackend(HLOREF_SAMPLE_PLUGIN);
  ASSERT_TRUE(backend.ok());
  auto m = Parse(kAddMulNeg);
  auto exe = (*backend)->Compile(*m, {});
  ASSERT_TRUE(exe.ok());
  auto out = (*exe)->Run({F32({2, 2}, {1, 2, 3, 4})});  // one of two
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("expected 2 arguments"));
  std::vector<Literal> tuple_arg = {Literal::MakeTuple({F32({1}, {1})}),
                                    F32({2, 2}, {1, 2, 3, 4})};
  auto out2 = (*exe)->Run(tuple_arg);
  ASSERT_FALSE(out2.ok());
  EXPECT_EQ(out2.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(PluginBackendTest, FlushToZeroVariantFlushesSubnormals) {
  const float tiny = std::numeric_limits<float>::denorm_min() * 4;
  const float min_normal = std::numeric_limits<float>::min();
  constexpr char kAdd[] = R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT s = f32[4] add(a, b)
})";
  // min_normal - min_normal/2 is the subnormal min_normal/2 exactly.
  std::vector<Literal> args = {F32({4}, {tiny, -tiny, min_normal, 1}),
                               F32({4}, {0, -0.0f, -min_normal / 2, 0})};
  auto good = CompileAndRun(HLOREF_SAMPLE_PLUGIN, kAdd, args);
  ASSERT_TRUE(good.ok()) << good.status();
  auto g = (*good)[0].data<float>();
  EXPECT_EQ(g[0], tiny);
  EXPECT_EQ(g[1], -tiny);
  EXPECT_EQ(g[2], min_normal / 2);
  EXPECT_EQ(g[3], 1.0f);

  auto ftz = CompileAndRun(HLOREF_SAMPLE_PLUGIN_FTZ, kAdd, args);
  ASSERT_TRUE(ftz.ok()) << ftz.status();
  auto f = (*ftz)[0].data<float>();
  EXPECT_EQ(f[0], 0.0f);
  EXPECT_FALSE(std::signbit(f[0]));
  EXPECT_EQ(f[1], 0.0f);
  EXPECT_TRUE(std::signbit(f[1]));  // flushed to -0, and -0 + -0 = -0
  // -min_normal/2 is subnormal as an input: flushed, so the sum is normal.
  EXPECT_EQ(f[2], min_normal);
  EXPECT_EQ(f[3], 1.0f);
}

TEST(PluginBackendTest, BackendsPerThreadShareOneLibrary) {
  // The conformance runner creates one backend per worker; each runs its
  // own executable concurrently and gets its own right answers. Backends
  // are created and destroyed while others run, as the runner does, so a
  // descriptor closed twice would break another thread's host.
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<float> got(kThreads, 0);
  std::vector<std::string> errors(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &got, &errors] {
      auto fail = [&](const absl::Status& s, absl::string_view step) {
        errors[t] = absl::StrCat(step, ": ", s.ToString());
      };
      for (int round = 0; round < 3; ++round) {
        auto backend = CreatePluginBackend(HLOREF_SAMPLE_PLUGIN);
        if (!backend.ok()) return fail(backend.status(), "create");
        auto m = ParseHloModule(kAddMulNeg);
        if (!m.ok()) return fail(m.status(), "parse");
        auto exe = (*backend)->Compile(**m, {});
        if (!exe.ok()) return fail(exe.status(), "compile");
        for (int i = 0; i < 20; ++i) {
          const float x = static_cast<float>(t);
          auto out = (*exe)->Run(
              {F32({2, 2}, {x, x, x, x}), F32({2, 2}, {1, 1, 1, 1})});
          if (!out.ok()) return fail(out.status(), "run");
          got[t] = (*out)[0].data<float>()[0];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_THAT(errors, ::testing::Each(""));
  // -((t + 1) * 1)
  EXPECT_EQ(got, (std::vector<float>{-1, -2, -3, -4}));
}

TEST(PluginBackendTest, NotAPluginIsFailedPrecondition) {
  auto missing = CreatePluginBackend("/nonexistent/libx.so");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(missing.status().message(), HasSubstr("cannot load plugin"));
  // A real shared library without the ABI symbols.
  auto libm = CreatePluginBackend("libm.so.6");
  ASSERT_FALSE(libm.ok());
  EXPECT_EQ(libm.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      libm.status().message(),
      HasSubstr("lacks the required symbol 'hloref_plugin_abi_version'"));
}

// The misbehaving plugin (misbehaving_plugin.cc) negates parameter 0 and
// misbehaves as the module's name says; each runs in the plugin's own
// process, so hloref (this test) survives and reports it.
std::string Negate(absl::string_view mode) {
  return absl::StrCat("HloModule ", mode, R"(
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
})");
}

absl::StatusOr<std::vector<Literal>> RunMode(Backend& backend,
                                             absl::string_view mode,
                                             CompileOptions options = {}) {
  auto module = ParseHloModule(Negate(mode));
  HLOREF_RETURN_IF_ERROR(module.status());
  HLOREF_ASSIGN_OR_RETURN(auto exe, backend.Compile(**module, options));
  return exe->Run({F32({4}, {1, -2, 0, 3})});
}

TEST(PluginIsolationTest, WellBehavedRunIsRight) {
  auto backend = CreatePluginBackend(HLOREF_MISBEHAVING_PLUGIN);
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto out = RunMode(**backend, "ok");
  ASSERT_TRUE(out.ok()) << out.status();
  auto v = (*out)[0].data<float>();
  EXPECT_THAT(std::vector<float>(v.begin(), v.end()),
              ElementsAre(-1.0f, 2.0f, -0.0f, -3.0f));
}

TEST(PluginIsolationTest, CrashesAreErrorsAndTheNextCaseRuns) {
  auto backend = CreatePluginBackend(HLOREF_MISBEHAVING_PLUGIN);
  ASSERT_TRUE(backend.ok()) << backend.status();
  struct Case {
    const char* mode;
    const char* says;
  };
  for (const Case& c : {Case{"crash_run", "crashed with signal 11"},
                        Case{"crash_compile", "crashed with signal 11"},
                        Case{"abort_run", "crashed with signal 6"},
                        Case{"exit_run", "exited with status 7"}}) {
    auto out = RunMode(**backend, c.mode);
    ASSERT_FALSE(out.ok()) << c.mode;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal) << c.mode;
    EXPECT_THAT(out.status().message(), HasSubstr(c.says)) << c.mode;
    EXPECT_THAT(out.status().message(),
                HasSubstr(absl::StrCat("module '", c.mode, "'")));
    // The same backend runs the next case in a new process.
    auto next = RunMode(**backend, "ok");
    ASSERT_TRUE(next.ok()) << c.mode << ": " << next.status();
    EXPECT_EQ((*next)[0].data<float>()[0], -1.0f);
  }
}

TEST(PluginIsolationTest, ExecutablesOfACrashedProcessAreCompiledAgain) {
  auto backend = CreatePluginBackend(HLOREF_MISBEHAVING_PLUGIN);
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto good = ParseHloModule(Negate("ok"));
  auto bad = ParseHloModule(Negate("crash_run"));
  ASSERT_TRUE(good.ok() && bad.ok());
  auto good_exe = (*backend)->Compile(**good, {});
  auto bad_exe = (*backend)->Compile(**bad, {});
  ASSERT_TRUE(good_exe.ok() && bad_exe.ok());
  std::vector<Literal> args = {F32({4}, {5, 6, 7, 8})};
  EXPECT_FALSE((*bad_exe)->Run(args).ok());
  for (int i = 0; i < 2; ++i) {
    auto out = (*good_exe)->Run(args);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<float>()[3], -8.0f);
  }
}

TEST(PluginIsolationTest, HungRunIsKilledAtTheTimeout) {
  auto backend = CreatePluginBackend(HLOREF_MISBEHAVING_PLUGIN);
  ASSERT_TRUE(backend.ok()) << backend.status();
  CompileOptions options;
  options.timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  auto out = RunMode(**backend, "hang_run", options);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(out.status().message(), HasSubstr("did not finish within"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  EXPECT_TRUE(RunMode(**backend, "ok").ok());
}

TEST(PluginIsolationTest, BadResultBuffersAreInvalidArgument) {
  auto backend = CreatePluginBackend(HLOREF_MISBEHAVING_PLUGIN);
  ASSERT_TRUE(backend.ok()) << backend.status();
  struct Case {
    const char* mode;
    const char* says;
  };
  for (const Case& c :
       {Case{"bad_size", "size_bytes is 15, but 4 elements of f32 take 16"},
        Case{"huge_size", "size_bytes is 1125899906842624, but 4 elements"},
        Case{"null_data", "data is null"},
        Case{"null_dims", "rank 1 with null dims"},
        Case{"negative_count", "returned -1 results"}}) {
    auto out = RunMode(**backend, c.mode);
    ASSERT_FALSE(out.ok()) << c.mode;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
        << c.mode << ": " << out.status();
    EXPECT_THAT(out.status().message(), HasSubstr(c.says)) << c.mode;
  }
  // Well-formed buffers of the wrong shape or type are returned as they
  // are: judging them is the comparator's work (a failed case, not an
  // error of the backend).
  auto shape = RunMode(**backend, "wrong_shape");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ((*shape)[0].shape().ToString(), "f32[5]");
  auto type = RunMode(**backend, "wrong_type");
  ASSERT_TRUE(type.ok()) << type.status();
  EXPECT_EQ((*type)[0].element_type(), PrimitiveType::kS32);
}

// Found by plugin_results_fuzz (docs/fuzzing.md): the host dropped the data
// of a rank-0 result whose dims pointer is null, which hloref_plugin.h
// allows, and the scalar was refused as "data is null".
TEST(PluginIsolationTest, ScalarWithNullDimsIsAccepted) {
  auto backend = CreatePluginBackend(HLOREF_MISBEHAVING_PLUGIN);
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto out = RunMode(**backend, "scalar_null_dims");
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].shape().ToString(), "f32[]");
  // RunMode's argument is {1, -2, 0, 3}: element 0 negated is -1.
  EXPECT_EQ((*out)[0].data<float>()[0], -1.0f);
}

// A status outside the enum (a C plugin may return any number) is an
// Unknown error quoting the number and the message; in C++ it used to be
// undefined behaviour to load it (plugin_results_fuzz, UBSan).
TEST(PluginIsolationTest, UnknownStatusIsUnknownError) {
  auto backend = CreatePluginBackend(HLOREF_MISBEHAVING_PLUGIN);
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto out = RunMode(**backend, "unknown_status");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(out.status().message(), HasSubstr("unknown hloref_status 255"));
  EXPECT_THAT(out.status().message(),
              HasSubstr("status 255 from the misbehaving plugin"));
}

TEST(PluginIsolationTest, MissingHostIsFailedPrecondition) {
  ASSERT_EQ(setenv("HLOREF_PLUGIN_HOST", "/nonexistent/host", 1), 0);
  auto backend = CreatePluginBackend(HLOREF_MISBEHAVING_PLUGIN);
  unsetenv("HLOREF_PLUGIN_HOST");
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(backend.status().message(), HasSubstr("HLOREF_PLUGIN_HOST"));
}

}  // namespace
}  // namespace hloref::backends
