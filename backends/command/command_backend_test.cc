// Tests of the command protocol with small shell programs written by the
// test: each checks what hloref wrote and answers in one protocol way.
#include "backends/command/command_backend.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/minifloat.h"
#include "spec/types/npy.h"

namespace hloref::backends {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class CommandBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = (fs::temp_directory_path() / "hloref-cmdtest-XXXXXX");
    ASSERT_NE(mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Writes an executable /bin/sh script and returns its path.
  std::string Script(const std::string& name, const std::string& body) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  absl::StatusOr<std::vector<Literal>> Run(const std::string& program,
                                           absl::string_view hlo,
                                           std::vector<Literal> args,
                                           CompileOptions options = {}) {
    HLOREF_ASSIGN_OR_RETURN(auto backend, CreateCommandBackend(program));
    auto module = ParseHloModule(hlo);
    HLOREF_RETURN_IF_ERROR(module.status());
    HLOREF_ASSIGN_OR_RETURN(auto exe, backend->Compile(**module, options));
    return exe->Run(args);
  }
  std::string dir_;
};

constexpr char kIdentity2[] = R"(HloModule m
ENTRY e {
  a = bf16[3] parameter(0)
  b = s4[2] parameter(1)
  ROOT t = (bf16[3], s4[2]) tuple(a, b)
})";

TEST_F(CommandBackendTest, EchoProgramRoundTripsArguments) {
  // Copies arg_k to result_k after checking that module.hlo holds the
  // module; the values must come back bit for bit (bf16 and s4 travel as
  // structured .npy dtypes).
  std::string prog = Script("echo.sh", R"(set -e
grep -q "tuple(" "$1/module.hlo" || { echo "no module" >&2; exit 1; }
cp "$1/arg_0.npy" "$1/result_0.npy"
cp "$1/arg_1.npy" "$1/result_1.npy")");
  Literal a(Shape::Array(PrimitiveType::kBF16, {3}));
  a.SetRawBits(0, 0x3f80);  // 1.0
  a.SetRawBits(1, 0x7fc1);  // a NaN with payload
  a.SetRawBits(2, 0x8001);  // -smallest subnormal
  Literal b = Literal::CreateR1<int8_t>(PrimitiveType::kS4, {-8, 7});
  auto out = Run(prog, kIdentity2, {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_TRUE((*out)[0].BitwiseEquals(a));
  EXPECT_TRUE((*out)[1].BitwiseEquals(b));
}

TEST_F(CommandBackendTest, ProgramWithArgumentsAndNoSlash) {
  // `sh script` split on spaces; `sh` is found on PATH.
  std::string prog =
      Script("echo1.sh", R"(cp "$1/arg_0.npy" "$1/result_0.npy")");
  auto out = Run("sh " + prog, R"(HloModule m
ENTRY e {
  ROOT a = f32[2] parameter(0)
})",
                 {Literal::CreateR1<float>(PrimitiveType::kF32, {1.5f, -2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<float>()[1], -2.0f);
}

constexpr char kOneOutput[] = R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
})";

TEST_F(CommandBackendTest, ExitThreeIsUnsupported) {
  std::string prog =
      Script("unsup.sh", R"(echo "negate is not implemented" >&2; exit 3)");
  auto out = Run(prog, kOneOutput,
                 {Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), HasSubstr("negate is not implemented"));
}

// Replicated runs: participant i's files live in DIR/p<i>/.
constexpr char kReplicated3[] = R"(HloModule m, replica_count=3
ENTRY e {
  ROOT a = f32[2] parameter(0)
})";

absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicatedProgram(
    const std::string& program, absl::string_view hlo,
    const std::vector<std::vector<Literal>>& args) {
  HLOREF_ASSIGN_OR_RETURN(auto backend, CreateCommandBackend(program));
  auto module = ParseHloModule(hlo);
  HLOREF_RETURN_IF_ERROR(module.status());
  HLOREF_ASSIGN_OR_RETURN(auto exe, backend->Compile(**module, {}));
  return exe->RunReplicated(args);
}

TEST_F(CommandBackendTest, ReplicatedRunUsesParticipantDirectories) {
  // Copies p<i>/arg_0 to p<i>/result_0 for exactly p0, p1, p2 (fails if
  // arguments were written at the top or a p3 exists): each participant
  // must get its own argument back, in participant order.
  std::string prog = Script("rep.sh", R"(set -e
test -f "$1/module.hlo"
test ! -e "$1/arg_0.npy" || { echo "top-level arg" >&2; exit 1; }
test ! -e "$1/p3" || { echo "too many participants" >&2; exit 1; }
for i in 0 1 2; do cp "$1/p$i/arg_0.npy" "$1/p$i/result_0.npy"; done)");
  std::vector<std::vector<Literal>> args;
  for (int i = 0; i < 3; ++i) {
    std::vector<Literal> one;
    one.push_back(Literal::CreateR1<float>(
        PrimitiveType::kF32, {static_cast<float>(i), 10.0f * i + 1}));
    args.push_back(std::move(one));
  }
  auto out = RunReplicatedProgram(prog, kReplicated3, args);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ((*out)[i].size(), 1u);
    EXPECT_EQ((*out)[i][0].data<float>()[0], static_cast<float>(i));
    EXPECT_EQ((*out)[i][0].data<float>()[1], 10.0f * i + 1);
  }

  // One shared list: every participant gets the same arguments.
  std::vector<std::vector<Literal>> shared(1);
  shared[0].push_back(
      Literal::CreateR1<float>(PrimitiveType::kF32, {7.0f, -1.0f}));
  auto out2 = RunReplicatedProgram(prog, kReplicated3, shared);
  ASSERT_TRUE(out2.ok()) << out2.status();
  ASSERT_EQ(out2->size(), 3u);
  for (const auto& r : *out2) EXPECT_EQ(r[0].data<float>()[1], -1.0f);

  // Two lists for three participants is the caller's mistake.
  std::vector<std::vector<Literal>> two(2);
  for (auto& l : two) l.push_back(shared[0][0]);
  auto out3 = RunReplicatedProgram(prog, kReplicated3, two);
  ASSERT_FALSE(out3.ok());
  EXPECT_EQ(out3.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CommandBackendTest, RunOnReplicatedModuleNeedsAgreement) {
  // Run gives every participant the same arguments and returns their
  // common result; a program whose participant 2 answers differently
  // (another file) must be an error, never participant 0's value.
  std::string agree = Script("agree.sh", R"(set -e
for i in 0 1 2; do cp "$1/p$i/arg_0.npy" "$1/p$i/result_0.npy"; done)");
  auto out = Run(agree, kReplicated3,
                 {Literal::CreateR1<float>(PrimitiveType::kF32, {4, -5})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].data<float>()[0], 4.0f);
  EXPECT_EQ((*out)[0].data<float>()[1], -5.0f);

  std::string other = dir_ + "/other.npy";
  {
    auto bytes = NpyBytesFromLiteral(
        Literal::CreateR1<float>(PrimitiveType::kF32, {4, 5}));
    ASSERT_TRUE(bytes.ok());
    std::ofstream(other, std::ios::binary) << *bytes;
  }
  std::string differ =
      Script("differ.sh", absl::StrCat(R"(set -e
for i in 0 1; do cp "$1/p$i/arg_0.npy" "$1/p$i/result_0.npy"; done
cp ")",
                                       other, R"(" "$1/p2/result_0.npy")"));
  auto out2 = Run(differ, kReplicated3,
                  {Literal::CreateR1<float>(PrimitiveType::kF32, {4, -5})});
  ASSERT_FALSE(out2.ok());
  EXPECT_THAT(out2.status().message(),
              HasSubstr("participants 0 and 2 of 3 return different"));
}

TEST_F(CommandBackendTest, ReplicatedMissingParticipantResultIsAnError) {
  std::string prog = Script("rep2.sh", R"(set -e
for i in 0 2; do cp "$1/p$i/arg_0.npy" "$1/p$i/result_0.npy"; done)");
  std::vector<std::vector<Literal>> shared(1);
  shared[0].push_back(Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2}));
  auto out = RunReplicatedProgram(prog, kReplicated3, shared);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("wrote no p1/result_0.npy"));
}

TEST_F(CommandBackendTest, ReplicatedExitThreeIsUnsupported) {
  std::string prog =
      Script("rep3.sh", R"(echo "one replica only" >&2; exit 3)");
  std::vector<std::vector<Literal>> shared(1);
  shared[0].push_back(Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2}));
  auto out = RunReplicatedProgram(prog, kReplicated3, shared);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), HasSubstr("one replica only"));
}

TEST_F(CommandBackendTest, ExitFourIsUnavailable) {
  std::string prog = Script("unavail.sh", R"(echo "no runtime" >&2; exit 4)");
  auto out = Run(prog, kOneOutput,
                 {Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(out.status().message(), HasSubstr("no runtime"));
}

TEST_F(CommandBackendTest, OtherExitStatusIsAnErrorWithStderr) {
  std::string prog =
      Script("crash.sh", R"(echo "out of memory at step 7" >&2; exit 1)");
  auto out = Run(prog, kOneOutput,
                 {Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(out.status().message(), HasSubstr("exited with status 1"));
  EXPECT_THAT(out.status().message(), HasSubstr("out of memory at step 7"));
}

TEST_F(CommandBackendTest, SignalIsAnError) {
  std::string prog = Script("kill.sh", R"(kill -9 $$)");
  auto out = Run(prog, kOneOutput,
                 {Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("killed by signal 9"));
}

TEST_F(CommandBackendTest, MissingOrExtraResultsAreErrors) {
  std::string none = Script("none.sh", "exit 0");
  auto out = Run(none, kOneOutput,
                 {Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("wrote no result_0.npy"));

  std::string extra = Script("extra.sh", R"(cp "$1/arg_0.npy" "$1/result_0.npy"
cp "$1/arg_0.npy" "$1/result_1.npy")");
  auto out2 = Run(extra, kOneOutput,
                  {Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2})});
  ASSERT_FALSE(out2.ok());
  EXPECT_THAT(out2.status().message(), HasSubstr("more results"));

  std::string garbage =
      Script("garbage.sh", R"(echo hello > "$1/result_0.npy")");
  auto out3 = Run(garbage, kOneOutput,
                  {Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2})});
  ASSERT_FALSE(out3.ok());
  EXPECT_THAT(out3.status().message(), HasSubstr("bad result_0.npy"));
}

TEST_F(CommandBackendTest, HungProgramIsKilledAtTheTimeout) {
  std::string prog = Script("hang.sh", "sleep 30");
  CompileOptions options;
  options.timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  auto out =
      Run(prog, kOneOutput,
          {Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2})}, options);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));  // not the 30 s sleep
}

TEST_F(CommandBackendTest, ExchangeDirectoryIsRemovedUnlessKept) {
  std::string prog = Script("where.sh", R"(echo "$1" > ")" + dir_ +
                                            R"(/last_dir"
cp "$1/arg_0.npy" "$1/result_0.npy")");
  Literal arg = Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2});
  ASSERT_TRUE(Run(prog, kOneOutput, {arg}).ok());
  std::string used;
  std::ifstream(dir_ + "/last_dir") >> used;
  ASSERT_FALSE(used.empty());
  EXPECT_FALSE(fs::exists(used));

  CompileOptions keep;
  keep.keep_files = true;
  keep.work_dir = dir_;
  ASSERT_TRUE(Run(prog, kOneOutput, {arg}, keep).ok());
  std::ifstream(dir_ + "/last_dir") >> used;
  EXPECT_EQ(used.rfind(dir_, 0), 0u);
  EXPECT_TRUE(fs::exists(used + "/module.hlo"));
  EXPECT_TRUE(fs::exists(used + "/arg_0.npy"));
  auto back = ReadNpyFile(used + "/arg_0.npy");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->BitwiseEquals(arg));
}

TEST_F(CommandBackendTest, TupleParameterIsUnsupported) {
  std::string prog = Script("t.sh", "exit 0");
  auto backend = CreateCommandBackend(prog);
  ASSERT_TRUE(backend.ok());
  auto m = ParseHloModule(R"(HloModule m
ENTRY e {
  p = (f32[2], f32[2]) parameter(0)
  ROOT g = f32[2] get-tuple-element(p), index=0
})");
  ASSERT_TRUE(m.ok()) << m.status();
  auto exe = (*backend)->Compile(**m, {});
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kUnimplemented);
}

TEST_F(CommandBackendTest, MissingProgramIsFailedPrecondition) {
  auto b = CreateCommandBackend(dir_ + "/does-not-exist");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition);
  auto c = CreateCommandBackend("hloref-no-such-program-on-path");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(c.status().message(), HasSubstr("on PATH"));
  // A file that is not executable.
  std::string plain = dir_ + "/plain.txt";
  std::ofstream(plain) << "x";
  EXPECT_FALSE(CreateCommandBackend(plain).ok());
}

}  // namespace
}  // namespace hloref::backends
