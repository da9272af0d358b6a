// Tests of the golden file reader: structure, continuation lines, line
// numbers and the errors for malformed files; and of the runner's host
// transfers and custom-call libraries (golden/README.md).
#include "conformance/harness/golden_case.h"

#include <memory>
#include <string>

#include "backends/interpreter/interpreter_backend.h"
#include "conformance/harness/runner.h"
#include "gtest/gtest.h"
#include "spec/util/status_macros.h"

namespace hloref::conformance {
namespace {

constexpr char kTwoCases[] = R"(# a comment
case first
provenance: hand-derived
compare: ulp(1); exact
module:
  HloModule m
  ENTRY e {
    ROOT p = f32[2] parameter(0)
  }
arg: f32[2] {1,
  2}
expect: f32[2] {1, 2}

case second
provenance: seed example Clamp
profile: xla
impl: impl.divide.1, impl.divide.2
known_failure: interpreter bug
module:
  HloModule m2
  ENTRY e { ROOT c = s32[] constant(1) }
expect: s32[] 1
)";

TEST(ParseGoldenFile, ReadsFieldsAndContinuations) {
  auto cases =
      ParseGoldenFile(kTwoCases, "ops/add.golden", CaseKind::kOp, "add");
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_EQ(cases->size(), 2u);
  const GoldenCase& a = (*cases)[0];
  EXPECT_EQ(a.name, "first");
  EXPECT_EQ(a.line, 2);
  EXPECT_EQ(a.op(), "add");
  EXPECT_EQ(a.Id(), "ops/add.golden:first");
  ASSERT_EQ(a.compare.size(), 2u);
  EXPECT_EQ(a.compare[0].kind, CompareKind::kUlp);
  EXPECT_EQ(a.compare[1].kind, CompareKind::kExact);
  ASSERT_EQ(a.args.size(), 1u);
  EXPECT_EQ(a.args[0], "f32[2] {1, 2}");
  // The module starts on file line 6: five newlines come first.
  EXPECT_EQ(a.module_text.substr(0, 8), "\n\n\n\n\n  H");
  const GoldenCase& b = (*cases)[1];
  EXPECT_EQ(b.profile, CaseProfile::kXla);
  ASSERT_EQ(b.impl_ids.size(), 2u);
  EXPECT_EQ(b.impl_ids[1], "impl.divide.2");
  EXPECT_EQ(b.known_failure, "interpreter bug");
  ASSERT_EQ(b.compare.size(), 1u);  // default exact
  EXPECT_EQ(b.compare[0].kind, CompareKind::kExact);
}

void ExpectError(const std::string& text, const std::string& fragment,
                 CaseKind kind = CaseKind::kOp) {
  auto cases = ParseGoldenFile(text, "ops/x.golden", kind,
                               kind == CaseKind::kProgram ? "" : "x");
  ASSERT_FALSE(cases.ok()) << "accepted:\n" << text;
  EXPECT_NE(std::string(cases.status().message()).find(fragment),
            std::string::npos)
      << cases.status().message();
}

TEST(ParseGoldenFile, RejectsMalformedCases) {
  const std::string module = "module:\n  HloModule m\n";
  ExpectError("case a\n" + module + "expect: s32[] 1\n", "no 'provenance:'");
  ExpectError("case a\nprovenance: hand-derived\nexpect: s32[] 1\n",
              "no 'module:'");
  ExpectError("case a\nprovenance: hand-derived\n" + module, "no 'expect:'");
  ExpectError("case a\nprovenance: my guess\n" + module + "expect: s32[] 1\n",
              "provenance 'my guess'");
  ExpectError("case a\nprovenance: hand-derived\ncompare: near\n" + module +
                  "expect: s32[] 1\n",
              "ops/x.golden:3: unknown comparison");
  ExpectError(
      "case a\nprovenance: hand-derived\nimpl: divide.1\nprofile: "
      "xla\n" +
          module + "expect: s32[] 1\n",
      "not an impl.<op>.<n> ID");
  ExpectError("case a\nprovenance: hand-derived\nimpl: impl.divide.1\n" +
                  module + "expect: s32[] 1\n",
              "no 'profile:'");
  ExpectError("case a\nprovenance: hand-derived\nfrob: 1\n", "ops/x.golden:3");
  ExpectError("  indented\n", "outside a field");
  ExpectError("provenance: hand-derived\n", "before the first 'case'");
  ExpectError("case a b\n", "bad case name");
  ExpectError("case a\nprovenance: hand-derived\n" + module +
                  "expect: s32[] 1\ncase a\n",
              "defined twice");
  ExpectError("# nothing\n", "no cases");
  ExpectError(
      "case a\nprovenance: hand-derived\n" + module + "expect_error: x.C1\n",
      "golden/errors/ only");
  ExpectError("case a\nprovenance: hand-derived\n" + module +
                  "expect_error: whatever\n",
              "not a rule ID", CaseKind::kError);
  ExpectError(
      "case a\nprovenance: hand-derived\n" + module + "expect: s32[] 1\n",
      "no 'op:'", CaseKind::kProgram);
}

TEST(ParseGoldenFile, ErrorCases) {
  auto cases = ParseGoldenFile(
      "case bad\nprovenance: hand-derived\nexpect_error: add.C1\nmodule:\n"
      "  HloModule m\n",
      "errors/add.golden", CaseKind::kError, "add");
  ASSERT_TRUE(cases.ok()) << cases.status();
  EXPECT_EQ((*cases)[0].expect_error, "add.C1");
}

constexpr char kHostFields[] = R"(case host
provenance: hand-derived
custom_call_library: custom_call_test_lib
module:
  HloModule m
  ENTRY e { ROOT c = s32[] constant(1) }
infeed: f32[2]{0} {1,
  2}
infeed: s32[] 3
recv: 7: u8[] 4
recv:12 : pred[] true
expect_outfeed: s32[] 5
expect_sent: 0: (s32[], f32[]) (1, 2)
expect: s32[] 1
)";

TEST(ParseGoldenFile, ReadsHostTransfersAndLibrary) {
  auto cases = ParseGoldenFile(kHostFields, "ops/x.golden", CaseKind::kOp, "x");
  ASSERT_TRUE(cases.ok()) << cases.status();
  const GoldenCase& c = (*cases)[0];
  ASSERT_EQ(c.infeed.size(), 2u);
  EXPECT_EQ(c.infeed[0], "f32[2]{0} {1, 2}");
  EXPECT_EQ(c.infeed[1], "s32[] 3");
  ASSERT_EQ(c.recv.size(), 2u);
  EXPECT_EQ(c.recv[0].first, 7);
  EXPECT_EQ(c.recv[0].second, "u8[] 4");
  EXPECT_EQ(c.recv[1].first, 12);
  EXPECT_EQ(c.recv[1].second, "pred[] true");
  ASSERT_EQ(c.expect_outfeed.size(), 1u);
  EXPECT_EQ(c.expect_outfeed[0], "s32[] 5");
  ASSERT_EQ(c.expect_sent.size(), 1u);
  EXPECT_EQ(c.expect_sent[0].first, 0);
  EXPECT_EQ(c.expect_sent[0].second, "(s32[], f32[]) (1, 2)");
  EXPECT_EQ(c.custom_call_library, "custom_call_test_lib");
  EXPECT_TRUE(c.HasHostTransfers());
}

TEST(ParseGoldenFile, RejectsMalformedHostFields) {
  const std::string head =
      "case a\nprovenance: hand-derived\nmodule:\n  HloModule m\n"
      "expect: s32[] 1\n";
  ExpectError(head + "recv: f32[] 1\n", "'recv:' needs '<channel_id>:");
  ExpectError(head + "recv: -1: f32[] 1\n", "'recv:' needs");
  ExpectError(head + "expect_sent: 3:\n", "channel 3 has no literal");
  ExpectError(head + "infeed:\n", "empty 'infeed:'");
  ExpectError(head + "expect_outfeed:\n", "empty 'expect_outfeed:'");
  // A library is named, never a path.
  ExpectError(head + "custom_call_library: /tmp/libevil.so\n",
              "not a test library shipped with hloref");
  ExpectError(head +
                  "custom_call_library: custom_call_test_lib\n"
                  "custom_call_library: golden_custom_call_lib\n",
              "given twice");
  ExpectError(
      "case a\nprovenance: hand-derived\nexpect_error: x.C1\nmodule:\n"
      "  HloModule m\ninfeed: s32[] 1\n",
      "must not have", CaseKind::kError);
}

TEST(CustomCallTestLibraries, NamesResolveToBuiltLibraries) {
  EXPECT_EQ(CustomCallTestLibraries(),
            (std::vector<std::string>{"custom_call_test_lib",
                                      "golden_custom_call_lib"}));
  for (const std::string& name : CustomCallTestLibraries()) {
    auto path = CustomCallTestLibraryPath(name);
    ASSERT_TRUE(path.ok()) << path.status();
    EXPECT_NE(path->find(".so"), std::string::npos) << *path;
  }
  auto unknown = CustomCallTestLibraryPath("libc");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
}

// --- Runner: host transfers and custom-call libraries.

GoldenCase ParseOne(const std::string& text) {
  auto cases = ParseGoldenFile(text, "ops/x.golden", CaseKind::kOp, "x");
  HLOREF_CHECK(cases.ok());
  return (*cases)[0];
}

constexpr char kEchoModule[] = R"(case echo
provenance: hand-derived
module:
  HloModule m
  ENTRY e {
    t0 = token[] after-all()
    in = (s32[2], token[]) infeed(t0)
    v = s32[2] get-tuple-element(in), index=0
    t1 = token[] get-tuple-element(in), index=1
    n = s32[2] negate(v)
    t2 = token[] outfeed(n, t1), outfeed_shape=s32[2]
    ROOT r = s32[2] add-dependency(v, t2)
  }
expect: s32[2]{0} {1, -2}
)";

TEST(RunGoldenCase, InfeedAndOutfeedPass) {
  GoldenCase c = ParseOne(std::string(kEchoModule) +
                          "infeed: s32[2]{0} {1, -2}\n"
                          "expect_outfeed: s32[2]{0} {-1, 2}\n");
  CaseResult r = RunGoldenCase(c);
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
}

TEST(RunGoldenCase, EmptyInfeedQueueIsAClearError) {
  // No `infeed:` value: the infeed finds its queue empty. That is a
  // run-time error naming the instruction, never a hang or a pass.
  GoldenCase c = ParseOne(kEchoModule);
  CaseResult r = RunGoldenCase(c);
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_NE(r.message.find("infeed queue is empty"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("%in"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("case 'echo'"), std::string::npos) << r.message;
}

TEST(RunGoldenCase, OutfeedListMustMatchExactly) {
  // A wrong value.
  CaseResult wrong = RunGoldenCase(ParseOne(
      std::string(kEchoModule) +
      "infeed: s32[2]{0} {1, -2}\nexpect_outfeed: s32[2]{0} {-1, 3}\n"));
  EXPECT_EQ(wrong.outcome, Outcome::kFail);
  EXPECT_NE(wrong.message.find("outfeed value 0"), std::string::npos)
      << wrong.message;
  EXPECT_NE(wrong.message.find("element 1"), std::string::npos)
      << wrong.message;
  // One value too many expected.
  CaseResult extra = RunGoldenCase(
      ParseOne(std::string(kEchoModule) +
               "infeed: s32[2]{0} {1, -2}\nexpect_outfeed: s32[2]{0} {-1, "
               "2}\nexpect_outfeed: s32[2]{0} {0, 0}\n"));
  EXPECT_EQ(extra.outcome, Outcome::kFail);
  EXPECT_NE(extra.message.find("expected 2 value(s)"), std::string::npos)
      << extra.message;
  // No expect_outfeed: the outfeed must stay empty.
  CaseResult unexpected = RunGoldenCase(
      ParseOne(std::string(kEchoModule) + "infeed: s32[2]{0} {1, -2}\n"));
  EXPECT_EQ(unexpected.outcome, Outcome::kFail);
  EXPECT_NE(unexpected.message.find("expected 0 value(s)"), std::string::npos)
      << unexpected.message;
  // A value given but never read.
  CaseResult unread = RunGoldenCase(
      ParseOne(std::string(kEchoModule) +
               "infeed: s32[2]{0} {1, -2}\ninfeed: s32[2]{0} {0, 0}\n"
               "expect_outfeed: s32[2]{0} {-1, 2}\n"));
  EXPECT_EQ(unread.outcome, Outcome::kFail);
  EXPECT_NE(unread.message.find("1 infeed value(s) unread"), std::string::npos)
      << unread.message;
}

constexpr char kHostSendRecv[] = R"(case sr
provenance: hand-derived
module:
  HloModule m
  ENTRY e {
    t0 = token[] after-all()
    rv = (f32[], u32[], token[]) recv(t0), channel_id=2, is_host_transfer=true
    rd = (f32[], token[]) recv-done(rv), channel_id=2, is_host_transfer=true
    v = f32[] get-tuple-element(rd), index=0
    t1 = token[] get-tuple-element(rd), index=1
    w = f32[] add(v, v)
    s = (f32[], u32[], token[]) send(w, t1), channel_id=3, is_host_transfer=true
    d = token[] send-done(s), channel_id=3, is_host_transfer=true
    ROOT r = f32[] add-dependency(v, d)
  }
recv: 2: f32[] 1.5
expect: f32[] 1.5
)";

TEST(RunGoldenCase, HostSendAndRecv) {
  EXPECT_EQ(RunGoldenCase(ParseOne(std::string(kHostSendRecv) +
                                   "expect_sent: 3: f32[] 3\n"))
                .outcome,
            Outcome::kPass);
  CaseResult wrong_channel = RunGoldenCase(
      ParseOne(std::string(kHostSendRecv) + "expect_sent: 4: f32[] 3\n"));
  EXPECT_EQ(wrong_channel.outcome, Outcome::kFail);
  EXPECT_NE(wrong_channel.message.find("channel 3"), std::string::npos)
      << wrong_channel.message;
}

constexpr char kMyfunc[] = R"(case myfunc
provenance: hand-derived
module:
  HloModule m
  ENTRY e {
    x = f32[2] constant({1, 2})
    y = f32[2,3] constant({{10, 20, 30}, {40, 50, 60}})
    ROOT z = f32[3,3] custom-call(x, y), custom_call_target="myfunc"
  }
expect: f32[3,3]{1,0} {{42, 52, 62}, {11, 21, 31}, {42, 52, 62}}
)";

TEST(RunGoldenCase, CustomCallLibrary) {
  // Without the library the target is unknown: unsupported.
  EXPECT_EQ(RunGoldenCase(ParseOne(kMyfunc)).outcome, Outcome::kUnsupported);
  CaseResult r = RunGoldenCase(ParseOne(
      std::string(kMyfunc) + "custom_call_library: custom_call_test_lib\n"));
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
  // The other library does not export myfunc.
  EXPECT_EQ(
      RunGoldenCase(ParseOne(std::string(kMyfunc) + "custom_call_library: "
                                                    "golden_custom_call_lib\n"))
          .outcome,
      Outcome::kUnsupported);
}

// A backend that runs nothing: Compile gives an executable whose Run and
// RunWithHost answer as configured.
class FakeExecutable : public backends::Executable {
 public:
  explicit FakeExecutable(absl::Status run) : run_(std::move(run)) {}
  absl::StatusOr<std::vector<Literal>> Run(absl::Span<const Literal>) override {
    return run_;
  }

 private:
  absl::Status run_;
};

class FakeBackend : public backends::Backend {
 public:
  explicit FakeBackend(absl::Status run) : run_(std::move(run)) {}
  std::string name() const override { return "fake"; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule&, const backends::CompileOptions&) override {
    return std::make_unique<FakeExecutable>(run_);
  }

 private:
  absl::Status run_;
};

TEST(RunGoldenCase, BackendWithoutHostTransfersIsUnsupported) {
  // FakeExecutable keeps the default RunWithHost (Unimplemented).
  FakeBackend backend(absl::InternalError("not reached"));
  RunOptions options;
  options.backend = &backend;
  CaseResult r = RunGoldenCase(
      ParseOne(std::string(kEchoModule) +
               "infeed: s32[2]{0} {1, -2}\nexpect_outfeed: s32[2]{0} {-1, "
               "2}\n"),
      options);
  EXPECT_EQ(r.outcome, Outcome::kUnsupported) << r.message;
}

TEST(RunGoldenCase, BackendLackingTestLibraryIsUnsupported) {
  // Any error of a backend running a custom-call case of hloref's test
  // library is unsupported, not a failure...
  FakeBackend backend(absl::NotFoundError("no symbol myfunc"));
  RunOptions options;
  options.backend = &backend;
  CaseResult r =
      RunGoldenCase(ParseOne(std::string(kMyfunc) +
                             "custom_call_library: custom_call_test_lib\n"),
                    options);
  EXPECT_EQ(r.outcome, Outcome::kUnsupported) << r.message;
  EXPECT_NE(r.message.find("custom_call_test_lib"), std::string::npos);
  // ... while the same error on another case is a failure.
  FakeBackend plain(absl::NotFoundError("lost"));
  options.backend = &plain;
  CaseResult p = RunGoldenCase(
      ParseOne("case c\nprovenance: hand-derived\nmodule:\n  HloModule m\n"
               "  ENTRY e { ROOT c = s32[] constant(1) }\nexpect: s32[] 1\n"),
      options);
  EXPECT_EQ(p.outcome, Outcome::kFail) << p.message;
}

TEST(RunGoldenCase, SuiteHostAndCustomCallCasesOnTheInterpreterBackend) {
  // The backend path end to end on the checked-in cases: host-transfer
  // cases run through RunWithHost and pass; custom-call cases of hloref's
  // test libraries are unsupported (the backend is given no library).
  auto suite = LoadGoldenSuite(DefaultGoldenDir());
  ASSERT_TRUE(suite.ok()) << suite.status();
  auto backend = backends::CreateInterpreterBackend();
  ASSERT_TRUE(backend.ok()) << backend.status();
  RunOptions options;
  options.backend = backend->get();
  int host_cases = 0, library_cases = 0;
  for (const GoldenCase& c : *suite) {
    if (c.kind == CaseKind::kError) continue;
    if (!c.custom_call_library.empty()) {
      ++library_cases;
      CaseResult r = RunGoldenCase(c, options);
      EXPECT_EQ(r.outcome, Outcome::kUnsupported)
          << c.Id() << ": " << r.message;
    } else if (c.HasHostTransfers()) {
      ++host_cases;
      CaseResult r = RunGoldenCase(c, options);
      EXPECT_EQ(r.outcome, Outcome::kPass) << c.Id() << ": " << r.message;
    }
  }
  EXPECT_GE(host_cases, 20);
  EXPECT_GE(library_cases, 5);
}

// Replicated golden cases on a backend run every participant
// (RunReplicated); the expected value must hold on each of them.
class SwappingExecutable : public backends::Executable {
 public:
  explicit SwappingExecutable(std::unique_ptr<backends::Executable> inner)
      : inner_(std::move(inner)) {}
  absl::StatusOr<std::vector<Literal>> Run(
      absl::Span<const Literal> args) override {
    return inner_->Run(args);
  }
  // Participant 1 gets a wrong result (its first element + 1).
  absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicated(
      absl::Span<const std::vector<Literal>> args) override {
    auto all = inner_->RunReplicated(args);
    if (all.ok() && all->size() > 1 && !(*all)[1].empty() &&
        (*all)[1][0].element_count() > 0) {
      Literal& v = (*all)[1][0];
      v.SetFromDouble(0, v.GetAsDouble(0) + 1);
    }
    return all;
  }

 private:
  std::unique_ptr<backends::Executable> inner_;
};

class SwappingBackend : public backends::Backend {
 public:
  std::string name() const override { return "wrong-participant-1"; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module,
      const backends::CompileOptions& options) override {
    auto inner =
        (*backends::CreateInterpreterBackend())->Compile(module, options);
    if (!inner.ok()) return inner.status();
    return std::unique_ptr<backends::Executable>(
        new SwappingExecutable(*std::move(inner)));
  }
};

TEST(RunGoldenCase, ReplicatedCasesRunEveryParticipantOnABackend) {
  constexpr char kAllReduce[] = R"(case two_replicas
provenance: hand-derived: replica 0 adds 1, replica 1 adds 2: 3 on both
module:
  HloModule m, replica_count=2

  add {
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT s = f32[] add(a, b)
  }

  ENTRY e {
    id = u32[] replica-id()
    one = u32[] constant(1)
    v = u32[] add(id, one)
    x = f32[] convert(v)
    ROOT r = f32[] all-reduce(x), replica_groups={}, to_apply=add
  }
expect: f32[] 3
)";
  auto interpreter = backends::CreateInterpreterBackend();
  ASSERT_TRUE(interpreter.ok());
  RunOptions options;
  options.backend = interpreter->get();
  CaseResult ok = RunGoldenCase(ParseOne(kAllReduce), options);
  EXPECT_EQ(ok.outcome, Outcome::kPass) << ok.message;
  SwappingBackend wrong;
  options.backend = &wrong;
  CaseResult bad = RunGoldenCase(ParseOne(kAllReduce), options);
  EXPECT_EQ(bad.outcome, Outcome::kFail) << bad.message;
  EXPECT_NE(bad.message.find("participant 1"), std::string::npos)
      << bad.message;
  // A backend without replicated runs: unsupported, never a pass.
  FakeBackend plain(absl::InternalError("Run is not used"));
  options.backend = &plain;
  CaseResult none = RunGoldenCase(ParseOne(kAllReduce), options);
  EXPECT_EQ(none.outcome, Outcome::kUnsupported) << none.message;
}

// --- Program cases: whole-program enclosures first, the hand budget as the
// cross-check.

// Returns one fixed value for every run.
class FixedValueBackend : public backends::Backend {
 public:
  explicit FixedValueBackend(Literal value) : value_(std::move(value)) {}
  std::string name() const override { return "fixed"; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule&, const backends::CompileOptions&) override {
    class Exe : public backends::Executable {
     public:
      explicit Exe(Literal v) : v_(std::move(v)) {}
      absl::StatusOr<std::vector<Literal>> Run(
          absl::Span<const Literal>) override {
        std::vector<Literal> out;
        out.push_back(v_);
        return out;
      }

     private:
      Literal v_;
    };
    return std::unique_ptr<backends::Executable>(new Exe(value_));
  }

 private:
  Literal value_;
};

// x = {1, 2^-24, 2^-24} . {1, 1, 1}: the exact sum 1 + 2^-23 is an f32, so
// the expected value (numpy in f64, rounded once) is 1 + 2^-23 and the
// budget is `exact`; a backend adding left to right in f32 gets 1 (each
// 1 + 2^-24 is a tie to even), a legitimate order the hand budget fails
// and the enclosure [1, 1 + 2^-23] (by hand: gamma_2 S around the exact
// sum, rounded outward) passes. 1.5 is outside both.
TEST(RunGoldenCase, ProgramCasesAreJudgedByTheirEnclosuresFirst) {
  constexpr char kProgram[] = R"(case dot_order
op: dot
provenance: hand-derived: 1 + 2^-24 + 2^-24 = 1 + 2^-23 exactly
compare: exact
module:
  HloModule m
  ENTRY e {
    x = f32[1,3] parameter(0)
    w = f32[3,1] parameter(1)
    ROOT d = f32[1,1] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  }
arg: f32[1,3] {{1, 5.96046448e-08, 5.96046448e-08}}
arg: f32[3,1] {{1}, {1}, {1}}
expect: f32[1,1] {{1.00000012}}
)";
  auto cases =
      ParseGoldenFile(kProgram, "programs/x.golden", CaseKind::kProgram, "x");
  ASSERT_TRUE(cases.ok()) << cases.status();
  const GoldenCase& c = (*cases)[0];
  // The oracle itself: inside, and the budget holds.
  CaseResult oracle = RunGoldenCase(c);
  EXPECT_EQ(oracle.outcome, Outcome::kPass) << oracle.message;
  EXPECT_NE(oracle.message.find("whole-program enclosures: result 0: 1 pass"),
            std::string::npos)
      << oracle.message;
  auto value = [](double v) {
    Literal l(Shape(PrimitiveType::kF32, {1, 1}));
    l.SetFromDouble(0, v);
    return l;
  };
  RunOptions options;
  FixedValueBackend left_to_right(value(1.0));
  options.backend = &left_to_right;
  CaseResult order = RunGoldenCase(c, options);
  EXPECT_EQ(order.outcome, Outcome::kPass) << order.message;
  EXPECT_NE(order.message.find("not the case's hand budget"), std::string::npos)
      << order.message;
  FixedValueBackend wrong(value(1.5));
  options.backend = &wrong;
  CaseResult bad = RunGoldenCase(c, options);
  EXPECT_EQ(bad.outcome, Outcome::kFail) << bad.message;
  EXPECT_NE(bad.message.find("outside its whole-program enclosures"),
            std::string::npos)
      << bad.message;
  // The same module as an op case keeps the per-op budget alone.
  std::string as_op = kProgram;
  as_op.erase(as_op.find("op: dot\n"), 8);
  auto op_cases =
      ParseGoldenFile(as_op, "ops/dot.golden", CaseKind::kOp, "dot");
  ASSERT_TRUE(op_cases.ok()) << op_cases.status();
  options.backend = &left_to_right;
  CaseResult op = RunGoldenCase((*op_cases)[0], options);
  EXPECT_EQ(op.outcome, Outcome::kFail) << op.message;
}

}  // namespace
}  // namespace hloref::conformance
