// Tests of the registry, SupportsModule, FlattenLiteral and the
// interpreter adapter.
#include "backends/backend.h"

#include <memory>
#include <string>
#include <vector>

#include "backends/interpreter/interpreter_backend.h"
#include "backends/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::backends {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

// A backend that refuses one opcode.
class RefusingBackend : public Backend {
 public:
  std::string name() const override { return "refusing"; }
  absl::Status Supports(const HloInstruction& i) const override {
    if (i.opcode() == HloOpcode::kMultiply) {
      return absl::UnimplementedError("multiply is not implemented");
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<Executable>> Compile(
      const HloModule&, const CompileOptions&) override {
    return absl::UnimplementedError("never");
  }
};

TEST(RegistryTest, BuiltinsAreListed) {
  BackendRegistry registry;
  ASSERT_TRUE(RegisterBuiltinBackends(&registry).ok());
#ifdef HLOREF_HAVE_GPU_BACKEND
  EXPECT_THAT(registry.Usages(),
              ElementsAre("command:<program>", "cpu", "gpu", "interpreter",
                          "plugin:<path.so>"));
#else
  EXPECT_THAT(registry.Usages(),
              ElementsAre("command:<program>", "cpu", "interpreter",
                          "plugin:<path.so>"));
#endif
  // Registering twice is refused, not silently replaced.
  absl::Status again = RegisterBuiltinBackends(&registry);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
}

TEST(RegistryTest, CreatesByExactNameAndByPrefix) {
  auto interp = CreateBackend("interpreter");
  ASSERT_TRUE(interp.ok()) << interp.status();
  EXPECT_EQ((*interp)->name(), "interpreter");
  auto cpu = CreateBackend("cpu");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ((*cpu)->name(), "cpu");

  auto sh = CreateBackend("command:sh");
  ASSERT_TRUE(sh.ok()) << sh.status();
  EXPECT_EQ((*sh)->name(), "command:sh");
}

TEST(RegistryTest, UnknownNameListsTheBackends) {
  auto b = CreateBackend("tpu");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(b.status().message(), HasSubstr("unknown backend 'tpu'"));
  EXPECT_THAT(b.status().message(), HasSubstr("plugin:<path.so>"));
  // "interpreterX" is not "interpreter": exact names match exactly.
  EXPECT_FALSE(CreateBackend("interpreterX").ok());
}

TEST(RegistryTest, PrefixWithoutArgumentIsAnError) {
  auto b = CreateBackend("plugin:");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(b.status().message(), HasSubstr("needs an argument"));
}

TEST(RegistryTest, MissingPluginOrProgramIsFailedPrecondition) {
  auto p = CreateBackend("plugin:/nonexistent/libnothing.so");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(p.status().message(), HasSubstr("/nonexistent/libnothing.so"));
  auto c = CreateBackend("command:/nonexistent/prog");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(RegistryTest, CustomFactoryReceivesTheArgument) {
  BackendRegistry registry;
  std::string seen;
  ASSERT_TRUE(registry
                  .Register("fake:", "fake:<x>",
                            [&](absl::string_view arg)
                                -> absl::StatusOr<std::unique_ptr<Backend>> {
                              seen = std::string(arg);
                              return std::unique_ptr<Backend>(
                                  new RefusingBackend());
                            })
                  .ok());
  auto b = registry.Create("fake:a:b");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(seen, "a:b");
}

TEST(SupportsModuleTest, NamesTheFirstRefusedInstruction) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  s = f32[2] add(a, a)
  ROOT p = f32[2] multiply(s, a)
})");
  RefusingBackend backend;
  absl::Status st = SupportsModule(backend, *m);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(st.message(), HasSubstr("5:"));  // the line of `p`
  EXPECT_THAT(st.message(), HasSubstr("multiply"));
  EXPECT_THAT(st.message(), HasSubstr("multiply is not implemented"));

  auto ok = Parse(R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT s = f32[2] add(a, a)
})");
  EXPECT_TRUE(SupportsModule(backend, *ok).ok());
}

TEST(FlattenLiteralTest, NestedTupleLeavesInOrder) {
  Literal a = Literal::CreateR0<int32_t>(PrimitiveType::kS32, 1);
  Literal b = Literal::CreateR0<int32_t>(PrimitiveType::kS32, 2);
  Literal c = Literal::CreateR0<int32_t>(PrimitiveType::kS32, 3);
  Literal inner = Literal::MakeTuple({b, Literal::Token()});
  Literal t = Literal::MakeTuple({a, inner, c});
  std::vector<Literal> flat = FlattenLiteral(t);
  ASSERT_EQ(flat.size(), 4u);
  EXPECT_EQ(flat[0].GetAsInt64(0), 1);
  EXPECT_EQ(flat[1].GetAsInt64(0), 2);
  EXPECT_TRUE(flat[2].shape().IsToken());
  EXPECT_EQ(flat[3].GetAsInt64(0), 3);
  // A non-tuple is its own single leaf.
  EXPECT_EQ(FlattenLiteral(a).size(), 1u);
}

TEST(InterpreterBackendTest, RunsAndFlattensTheRoot) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = s32[3] parameter(0)
  b = s32[3] parameter(1)
  s = s32[3] add(a, b)
  n = s32[3] negate(a)
  ROOT t = (s32[3], s32[3]) tuple(s, n)
})");
  auto backend = CreateInterpreterBackend();
  ASSERT_TRUE(backend.ok());
  EXPECT_TRUE(SupportsModule(**backend, *m).ok());
  auto exe = (*backend)->Compile(*m, {});
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<Literal> args = {
      Literal::CreateR1<int32_t>(PrimitiveType::kS32, {1, 2, 3}),
      Literal::CreateR1<int32_t>(PrimitiveType::kS32, {10, 20, 2147483647})};
  auto out = (*exe)->Run(args);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  // 3 + 2^31 - 1 wraps to -2^31 + 2 (two's complement).
  EXPECT_THAT((*out)[0].data<int32_t>(), ElementsAre(11, 22, -2147483646));
  EXPECT_THAT((*out)[1].data<int32_t>(), ElementsAre(-1, -2, -3));
  // Runs again with other arguments (an executable is reusable).
  args[0] = Literal::CreateR1<int32_t>(PrimitiveType::kS32, {0, 0, 0});
  auto again = (*exe)->Run(args);
  ASSERT_TRUE(again.ok());
  EXPECT_THAT((*again)[1].data<int32_t>(), ElementsAre(0, 0, 0));
}

TEST(InterpreterBackendTest, RejectsAnInvalidModuleAndBadArguments) {
  // add of f32[2] and f32[3]: the verifier's job, a clear error.
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[3] parameter(1)
  ROOT s = f32[2] add(a, b)
})");
  auto backend = CreateInterpreterBackend();
  ASSERT_TRUE(backend.ok());
  auto exe = (*backend)->Compile(*m, {});
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument);

  auto good = Parse(R"(HloModule m
ENTRY e {
  ROOT a = f32[2] parameter(0)
})");
  auto exe2 = (*backend)->Compile(*good, {});
  ASSERT_TRUE(exe2.ok());
  auto out = (*exe2)->Run({});  // missing argument
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hloref::backends
