// Tests of the suite runner: determinism across --jobs, sharding, reports,
// and deliberately broken backends (fakes written here) caught with the
// right explanation, then accepted when the matching deviation is declared.
#include "conformance/harness/suite.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/interpreter/interpreter_backend.h"
#include "conformance/harness/report.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/host_queues.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/minifloat.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

// A backend that behaves like XLA:CPU's floating-point environment: f32
// subnormal inputs are read as zero and subnormal results flushed to zero
// (sign kept). Everything else is the oracle's arithmetic.
class FlushingBackend : public backends::Backend {
 public:
  std::string name() const override { return "fake-ftz"; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module, const backends::CompileOptions&) override {
    class Exe : public backends::Executable {
     public:
      explicit Exe(const HloModule* m) : module_(m) {}
      absl::StatusOr<std::vector<Literal>> Run(
          absl::Span<const Literal> args) override {
        std::vector<Literal> flushed;
        for (const Literal& a : args) flushed.push_back(Flush(a));
        Evaluator ev;
        HLOREF_ASSIGN_OR_RETURN(Literal out, ev.Evaluate(*module_, flushed));
        std::vector<Literal> leaves = backends::FlattenLiteral(std::move(out));
        for (Literal& l : leaves) l = Flush(l);
        return leaves;
      }

     private:
      static Literal Flush(const Literal& in) {
        Literal l = in;
        if (!l.shape().IsArray() || l.element_type() != PrimitiveType::kF32) {
          return l;
        }
        for (int64_t i = 0; i < l.element_count(); ++i) {
          const double v = l.GetAsDouble(i);
          if (v != 0 && std::fabs(v) < 0x1p-126) {
            l.SetFromDouble(i, std::copysign(0.0, v));
          }
        }
        return l;
      }
      const HloModule* module_;
    };
    return std::unique_ptr<backends::Executable>(new Exe(&module));
  }
};

// A backend whose gather returns the operand's first element everywhere (a
// wrong gather), and is otherwise the oracle.
class WrongGatherBackend : public backends::Backend {
 public:
  std::string name() const override { return "fake-wrong-gather"; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module, const backends::CompileOptions&) override {
    class Exe : public backends::Executable {
     public:
      explicit Exe(const HloModule* m) : module_(m) {}
      absl::StatusOr<std::vector<Literal>> Run(
          absl::Span<const Literal> args) override {
        Evaluator ev;
        HLOREF_ASSIGN_OR_RETURN(Literal out, ev.Evaluate(*module_, args));
        if (module_->entry()->root()->opcode() == HloOpcode::kGather &&
            args[0].element_count() > 0 && !IsComplex(out.element_type())) {
          for (int64_t i = 0; i < out.element_count(); ++i) {
            out.SetRawBits(i, args[0].GetRawBits(0));
          }
        }
        return backends::FlattenLiteral(std::move(out));
      }

     private:
      const HloModule* module_;
    };
    return std::unique_ptr<backends::Executable>(new Exe(&module));
  }
};

template <typename B>
BackendFactory FactoryOf() {
  return []() -> absl::StatusOr<std::unique_ptr<backends::Backend>> {
    return std::unique_ptr<backends::Backend>(new B);
  };
}

SuiteOptions GeneratedOnly(int64_t count, std::set<std::string> ops) {
  SuiteOptions o;
  o.golden = false;
  o.count = count;
  o.ops = std::move(ops);
  o.seed = 7;
  return o;
}

TEST(Suite, FlushingBackendCaughtThenAcceptedWithFtz) {
  SuiteOptions o = GeneratedOnly(600, {"add", "multiply", "sqrt", "compare"});
  o.types = {"f32"};
  o.backend_name = "fake-ftz";
  o.backend_factory = FactoryOf<FlushingBackend>();
  o.jobs = 2;
  auto r = RunSuite(o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_GT(r->records.size(), 50u);
  // Some case has a subnormal input or result: the flushed zero is caught,
  // and the explanation shows the input and a zero where a non-zero value
  // (or NaN, for sqrt of a negative subnormal) was required.
  int64_t caught = 0;
  for (const CaseRecord& c : r->records) {
    if (c.outcome != Outcome::kFail) continue;
    ++caught;
    ASSERT_FALSE(c.failures.empty()) << c.message;
    const ElementFailure& f = c.failures[0];
    EXPECT_FALSE(f.rule.empty());
    EXPECT_FALSE(f.expected.empty());
    EXPECT_FALSE(c.module_text.empty());  // replayable
    EXPECT_EQ(c.args.size() > 0, true);
  }
  EXPECT_GT(caught, 0) << "no generated f32 case exercised a subnormal";
  bool zero_for_subnormal = false;
  for (const CaseRecord& c : r->records) {
    for (const ElementFailure& f : c.failures) {
      const double want = std::strtod(f.expected.c_str(), nullptr);
      const double got = std::strtod(f.got.c_str(), nullptr);
      // e.g. sqrt(2^-149): expected 3.7e-23, got 0 (input read as zero).
      if (got == 0 && !(want == 0) && !f.inputs.empty()) {
        zero_for_subnormal = true;
      }
    }
  }
  EXPECT_TRUE(zero_for_subnormal) << [&] {
    std::string s;
    for (const CaseRecord& c : r->records) {
      for (const ElementFailure& f : c.failures) s += f.ToString() + "\n";
    }
    return s;
  }();
  // The same backend with the matching deviation declared passes.
  auto d = ParseDeviations("ftz=f32");
  ASSERT_TRUE(d.ok());
  o.deviations = *d;
  auto r2 = RunSuite(o);
  ASSERT_TRUE(r2.ok()) << r2.status();
  for (const CaseRecord& c : r2->records) {
    EXPECT_NE(c.outcome, Outcome::kFail) << c.message;
  }
}

TEST(Suite, ExpectedFailuresOfABackend) {
  SuiteOptions o;
  o.generated = false;
  o.ops = {"add"};
  o.backend_name = "fake-ftz";
  o.backend_factory = FactoryOf<FlushingBackend>();
  auto r = RunSuite(o);
  ASSERT_TRUE(r.ok()) << r.status();
  std::string failing, passing;
  for (const CaseRecord& c : r->records) {
    if (c.outcome == Outcome::kFail && failing.empty()) failing = c.id;
    if (c.outcome == Outcome::kPass && passing.empty()) passing = c.id;
  }
  // The golden add cases include subnormal sums, which the backend flushes.
  ASSERT_FALSE(failing.empty());
  ASSERT_FALSE(passing.empty());
  auto list = ParseExpectedFailures(
      absl::StrCat("# comment\n\n", failing, " flushes subnormals\n", passing,
                   "\tlisted by mistake\n"));
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->at(failing), "flushes subnormals");
  o.expected_failures = *list;
  auto r2 = RunSuite(o);
  ASSERT_TRUE(r2.ok()) << r2.status();
  for (const CaseRecord& c : r2->records) {
    if (c.id == failing) {
      EXPECT_EQ(c.outcome, Outcome::kKnownFailure) << c.message;
      EXPECT_NE(c.message.find("flushes subnormals"), std::string::npos);
    } else if (c.id == passing) {
      EXPECT_EQ(c.outcome, Outcome::kFail);
      EXPECT_NE(c.message.find("remove it"), std::string::npos) << c.message;
    }
  }
  // Malformed lists name the line.
  auto no_reason = ParseExpectedFailures("ops/add.golden:x\n");
  ASSERT_FALSE(no_reason.ok());
  EXPECT_NE(no_reason.status().message().find("line 1"), std::string::npos);
  auto twice = ParseExpectedFailures("a r\n\na s\n");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("line 3"), std::string::npos);
}

TEST(Suite, WrongGatherCaughtAndNoDeviationExcusesIt) {
  SuiteOptions o = GeneratedOnly(200, {"gather"});
  o.backend_name = "fake-wrong-gather";
  o.backend_factory = FactoryOf<WrongGatherBackend>();
  auto r = RunSuite(o);
  ASSERT_TRUE(r.ok()) << r.status();
  int64_t fails = 0;
  for (const CaseRecord& c : r->records) {
    if (c.outcome != Outcome::kFail) continue;
    ++fails;
    ASSERT_FALSE(c.failures.empty());
    EXPECT_NE(c.failures[0].rule.find("EXACT bits (gather"), std::string::npos)
        << c.failures[0].rule;
  }
  EXPECT_GT(fails, 20);
  o.deviations = *ParseDeviations("xla-cpu");
  auto r2 = RunSuite(o);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->summary.counts[static_cast<int>(Outcome::kFail)], fails);
}

// The interpreter judged against itself: the verdicts do not depend on
// the number of jobs or on sharding.
TEST(Suite, DeterministicAcrossJobsAndShards) {
  SuiteOptions o;
  o.golden = false;
  o.count = 1200;
  o.seed = 3;
  o.backend_factory = [] { return backends::CreateInterpreterBackend(); };
  std::vector<std::string> first;
  for (int jobs : {1, 2, 3}) {
    o.jobs = jobs;
    auto r = RunSuite(o);
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<std::string> verdicts;
    for (const CaseRecord& c : r->records) {
      verdicts.push_back(c.id + " " + std::string(OutcomeName(c.outcome)) +
                         " " + c.message);
    }
    if (first.empty()) {
      first = verdicts;
      EXPECT_EQ(first.size(), 1200u);
    } else {
      EXPECT_EQ(verdicts, first) << "jobs=" << jobs;
    }
  }
  // Two shards together give the same cases as one run.
  std::vector<std::string> sharded;
  for (int shard = 0; shard < 2; ++shard) {
    o.jobs = 2;
    o.shard_index = shard;
    o.total_shards = 2;
    auto r = RunSuite(o);
    ASSERT_TRUE(r.ok());
    for (const CaseRecord& c : r->records) sharded.push_back(c.id);
  }
  std::sort(sharded.begin(), sharded.end());
  std::vector<std::string> ids;
  for (const std::string& v : first) ids.push_back(v.substr(0, v.find(' ')));
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(sharded, ids);
}

TEST(Suite, GeneratedCasesAreReproducible) {
  for (HloOpcode op : GeneratedOps()) {
    auto a = GenerateCase(op, 11);
    auto b = GenerateCase(op, 11);
    ASSERT_EQ(a.ok(), b.ok());
    if (!a.ok()) continue;
    EXPECT_EQ(a->module_text, b->module_text);
    ASSERT_EQ(a->args.size(), b->args.size());
    for (size_t i = 0; i < a->args.size(); ++i) {
      EXPECT_TRUE(a->args[i].BitwiseEquals(b->args[i]));
    }
  }
}

TEST(Report, JsonJunitHtml) {
  SuiteOptions o = GeneratedOnly(40, {"gather", "add"});
  o.backend_name = "fake-wrong-gather";
  o.backend_factory = FactoryOf<WrongGatherBackend>();
  auto r = RunSuite(o);
  ASSERT_TRUE(r.ok());
  ReportMeta meta;
  meta.backend = o.backend_name;
  meta.deviations = *ParseDeviations("fast-min-max");
  const std::string json = ReportJson(*r, meta);
  EXPECT_NE(json.find("\"schema_version\": 1"), std::string::npos);
  EXPECT_NE(json.find("\"declared\": \"fast-min-max\""), std::string::npos);
  EXPECT_NE(json.find("\"outcome\": \"fail\""), std::string::npos);
  const std::string junit = ReportJunit(*r, meta);
  EXPECT_NE(junit.find("<failure"), std::string::npos);
  size_t testcases = 0;
  for (size_t p = 0; (p = junit.find("<testcase ", p)) != std::string::npos;
       ++p) {
    ++testcases;
  }
  EXPECT_EQ(testcases, r->records.size());
  const std::string html = ReportHtml(*r, meta);
  EXPECT_NE(html.find("class=\"fail\""), std::string::npos);
  EXPECT_NE(html.find("fast-min-max"), std::string::npos);
}

// Golden values are exact; under a declared flush-to-zero deviation a
// golden case the flushing backend fails is judged again against the
// oracle with the deviation's formulas (golden add f32_specials holds
// 2^-149 + 2^-149, which the fake backend flushes to 0).
TEST(Suite, GoldenCaseFailsThenPassesUnderDeclaredFtz) {
  SuiteOptions o;
  o.generated = false;
  o.ops = {"add"};
  o.types = {"float"};
  o.backend_name = "fake-ftz";
  o.backend_factory = FactoryOf<FlushingBackend>();
  auto plain = RunSuite(o);
  ASSERT_TRUE(plain.ok()) << plain.status();
  int64_t failed = 0;
  for (const CaseRecord& c : plain->records) {
    failed += c.outcome == Outcome::kFail;
  }
  EXPECT_GT(failed, 0) << "no golden add case has a subnormal";
  o.deviations = *ParseDeviations("ftz=f32");
  auto with_ftz = RunSuite(o);
  ASSERT_TRUE(with_ftz.ok()) << with_ftz.status();
  int64_t passed_only_with_deviation = 0;
  for (const CaseRecord& c : with_ftz->records) {
    EXPECT_NE(c.outcome, Outcome::kFail) << c.id << ": " << c.message;
    if (c.outcome == Outcome::kPass &&
        c.message.find("declared deviations") != std::string::npos) {
      ++passed_only_with_deviation;
    }
  }
  EXPECT_EQ(passed_only_with_deviation, failed);
}

// ---- Replicated and host-transfer cases.

// A backend built on the oracle whose optional entry points are switched
// on or off, or deliberately wrong.
enum class Flaw {
  kNone,                 // RunReplicated / RunWithHost like the oracle
  kNoOptional,           // only Run: RunReplicated / RunWithHost Unimplemented
  kSwapParticipants,     // RunReplicated returns participants 0 and 1 swapped
  kCorruptParticipant1,  // RunReplicated flips a bit of participant 1's output
  kDropLastOutfeed,      // RunWithHost loses the last outfeed value
  kCorruptOutfeed,       // RunWithHost flips a bit of outfeed value 0
};

template <Flaw kFlaw>
class OracleBackend : public backends::Backend {
 public:
  std::string name() const override { return "fake-oracle"; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module, const backends::CompileOptions&) override {
    class Exe : public backends::Executable {
     public:
      explicit Exe(const HloModule* m) : module_(m) {}
      absl::StatusOr<std::vector<Literal>> Run(
          absl::Span<const Literal> args) override {
        Evaluator ev;
        HLOREF_ASSIGN_OR_RETURN(Literal out, ev.Evaluate(*module_, args));
        return backends::FlattenLiteral(std::move(out));
      }
      absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicated(
          absl::Span<const std::vector<Literal>> args) override {
        if (kFlaw == Flaw::kNoOptional) {
          return backends::Executable::RunReplicated(args);
        }
        Evaluator ev;
        HLOREF_ASSIGN_OR_RETURN(std::vector<EvalResult> results,
                                ev.RunReplicated(*module_, args));
        std::vector<std::vector<Literal>> out;
        for (EvalResult& r : results) {
          out.push_back(backends::FlattenLiteral(std::move(r.value)));
        }
        if (kFlaw == Flaw::kSwapParticipants && out.size() >= 2) {
          std::swap(out[0], out[1]);
        }
        if (kFlaw == Flaw::kCorruptParticipant1 && out.size() >= 2 &&
            !out[1].empty() && out[1][0].element_count() > 0) {
          out[1][0].SetRawBits(0, out[1][0].GetRawBits(0) ^ 1);
        }
        return out;
      }
      absl::StatusOr<std::vector<Literal>> RunWithHost(
          absl::Span<const Literal> args,
          backends::HostTransfers& host) override {
        if (kFlaw == Flaw::kNoOptional) {
          return backends::Executable::RunWithHost(args, host);
        }
        HostQueues queues;
        for (const Literal& v : host.infeed) queues.PushInfeed(v);
        for (const auto& [channel, values] : host.recv) {
          for (const Literal& v : values) queues.PushRecv(channel, v);
        }
        EvaluatorOptions options;
        options.host_queues = &queues;
        Evaluator ev(options);
        HLOREF_ASSIGN_OR_RETURN(Literal out, ev.Evaluate(*module_, args));
        host.outfeed = queues.TakeOutfeed();
        for (int64_t channel : queues.SentChannels()) {
          host.sent[channel] = queues.TakeSent(channel);
        }
        if (kFlaw == Flaw::kDropLastOutfeed && !host.outfeed.empty()) {
          host.outfeed.pop_back();
        }
        if (kFlaw == Flaw::kCorruptOutfeed && !host.outfeed.empty() &&
            host.outfeed[0].element_count() > 0) {
          host.outfeed[0].SetRawBits(0, host.outfeed[0].GetRawBits(0) ^ 1);
        }
        return backends::FlattenLiteral(std::move(out));
      }

     private:
      const HloModule* module_;
    };
    return std::unique_ptr<backends::Executable>(new Exe(&module));
  }
};

// The first generated case of `op` whose participants satisfy `want`.
template <typename Pred>
GeneratedCase FindCase(HloOpcode op, Pred want) {
  for (uint64_t seed = 0; seed < 500; ++seed) {
    auto c = GenerateCase(op, seed);
    if (c.ok() && want(*c)) return *std::move(c);
  }
  ADD_FAILURE() << "no case of " << HloOpcodeString(op) << " fits";
  return GeneratedCase();
}

SuiteOptions InterpreterOptions() {
  SuiteOptions o;
  o.backend_factory = [] { return backends::CreateInterpreterBackend(); };
  return o;
}

TEST(SuiteReplicated, ReplicatedCasesPassOnTheInterpreter) {
  auto backend = backends::CreateInterpreterBackend();
  ASSERT_TRUE(backend.ok());
  const SuiteOptions o = InterpreterOptions();
  int replicated = 0;
  for (HloOpcode op :
       {HloOpcode::kAllReduce, HloOpcode::kAllGather, HloOpcode::kReduceScatter,
        HloOpcode::kAllToAll, HloOpcode::kCollectivePermute,
        HloOpcode::kRaggedAllToAll}) {
    for (uint64_t seed = 0; seed < 20; ++seed) {
      auto c = GenerateCase(op, seed);
      ASSERT_TRUE(c.ok()) << c.status();
      CaseRecord r = RunGeneratedCase(*c, **backend, o);
      EXPECT_EQ(r.outcome, Outcome::kPass) << r.id << ": " << r.message;
      if (c->replicated()) {
        ++replicated;
        // Every participant was judged: as many elements as the oracle's
        // results of all participants hold.
        int64_t elements = 0;
        Evaluator ev;
        auto want = ev.RunReplicated(*c->module, c->participant_args);
        ASSERT_TRUE(want.ok()) << want.status();
        for (const EvalResult& e : *want) {
          for (const EvaluatedOutput& out : e.outputs) {
            elements += out.value.element_count();
          }
        }
        EXPECT_EQ(r.elements, elements) << r.id;
      }
    }
  }
  EXPECT_GT(replicated, 60);
}

TEST(SuiteReplicated, BackendWithoutRunReplicatedIsUnsupported) {
  const GeneratedCase c = FindCase(HloOpcode::kAllReduce, [](const auto& c) {
    return c.replica_count >= 2;
  });
  OracleBackend<Flaw::kNoOptional> backend;
  CaseRecord r = RunGeneratedCase(c, backend, InterpreterOptions());
  EXPECT_EQ(r.outcome, Outcome::kUnsupported) << r.message;
  EXPECT_NE(r.message.find("run replicated"), std::string::npos) << r.message;
  // The same backend runs a single-participant case.
  const GeneratedCase one = FindCase(
      HloOpcode::kAllReduce, [](const auto& c) { return !c.replicated(); });
  EXPECT_EQ(RunGeneratedCase(one, backend, InterpreterOptions()).outcome,
            Outcome::kPass);
}

TEST(SuiteReplicated, SwappedParticipantsFailNamingTheParticipant) {
  // replica-id differs between replicas 0 and 1: swapping their results
  // makes both wrong, and the first (replica 0) is the one named.
  const GeneratedCase c = FindCase(HloOpcode::kReplicaId, [](const auto& c) {
    return c.replica_count >= 2 && c.partition_count == 1;
  });
  OracleBackend<Flaw::kSwapParticipants> backend;
  CaseRecord r = RunGeneratedCase(c, backend, InterpreterOptions());
  ASSERT_EQ(r.outcome, Outcome::kFail);
  EXPECT_NE(r.message.find("replica 0: "), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("[2 of "), std::string::npos) << r.message;
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures[0].expected, "0");
  EXPECT_EQ(r.failures[0].got, "1");
  EXPECT_NE(r.failures[0].why.find("replica 0"), std::string::npos);
  EXPECT_FALSE(r.module_text.empty());  // replayable
  // With partitions, participants 0 and 1 are partitions 0 and 1 of
  // replica 0; partition-id tells them apart.
  const GeneratedCase p = FindCase(HloOpcode::kPartitionId, [](const auto& c) {
    return c.partition_count == 2;
  });
  CaseRecord rp = RunGeneratedCase(p, backend, InterpreterOptions());
  ASSERT_EQ(rp.outcome, Outcome::kFail);
  EXPECT_NE(rp.message.find("replica 0 partition 0: "), std::string::npos)
      << rp.message;
  // The correct backend passes both.
  OracleBackend<Flaw::kNone> good;
  EXPECT_EQ(RunGeneratedCase(c, good, InterpreterOptions()).outcome,
            Outcome::kPass);
  EXPECT_EQ(RunGeneratedCase(p, good, InterpreterOptions()).outcome,
            Outcome::kPass);
}

// A host-transfer case written by hand: infeed one value, outfeed the sum
// with the argument and then the argument itself.
GeneratedCase HostCase() {
  GeneratedCase c;
  c.id = "test/outfeed/0";
  c.opcode = HloOpcode::kOutfeed;
  c.type = PrimitiveType::kF32;
  c.module_text = R"(HloModule host_case

ENTRY main {
  x = f32[3] parameter(0)
  t0 = token[] after-all()
  in = (f32[3], token[]) infeed(t0)
  v = f32[3] get-tuple-element(in), index=0
  t1 = token[] get-tuple-element(in), index=1
  s = f32[3] add(x, v)
  t2 = token[] outfeed(s, t1), outfeed_shape=f32[3]
  t3 = token[] outfeed(x, t2), outfeed_shape=f32[3]
  ROOT r = f32[3] add-dependency(s, t3)
}
)";
  auto m = ParseHloModule(c.module_text);
  HLOREF_CHECK(m.ok());
  HLOREF_CHECK(VerifyModule(**m).ok());
  c.module = std::shared_ptr<const HloModule>(std::move(*m));
  c.args.push_back(*ParseLiteral("f32[3] {1, 2, 3}"));
  c.uses_host = true;
  c.host.infeed.push_back(*ParseLiteral("f32[3] {0.5, -2, 4}"));
  return c;
}

TEST(SuiteHost, HostCasePassesOnTheInterpreterAndComparesOutfeed) {
  const GeneratedCase c = HostCase();
  auto backend = backends::CreateInterpreterBackend();
  ASSERT_TRUE(backend.ok());
  CaseRecord r = RunGeneratedCase(c, **backend, InterpreterOptions());
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
  OracleBackend<Flaw::kNone> good;
  EXPECT_EQ(RunGeneratedCase(c, good, InterpreterOptions()).outcome,
            Outcome::kPass);
}

TEST(SuiteHost, BackendWithoutRunWithHostIsUnsupported) {
  OracleBackend<Flaw::kNoOptional> backend;
  CaseRecord r = RunGeneratedCase(HostCase(), backend, InterpreterOptions());
  EXPECT_EQ(r.outcome, Outcome::kUnsupported) << r.message;
  EXPECT_NE(r.message.find("run with host"), std::string::npos) << r.message;
}

TEST(SuiteHost, MissingOrWrongOutfeedFails) {
  OracleBackend<Flaw::kDropLastOutfeed> dropping;
  CaseRecord r = RunGeneratedCase(HostCase(), dropping, InterpreterOptions());
  ASSERT_EQ(r.outcome, Outcome::kFail);
  EXPECT_NE(
      r.message.find("outfeed: the oracle wrote 2 value(s), the backend 1"),
      std::string::npos)
      << r.message;
  OracleBackend<Flaw::kCorruptOutfeed> corrupting;
  CaseRecord w = RunGeneratedCase(HostCase(), corrupting, InterpreterOptions());
  ASSERT_EQ(w.outcome, Outcome::kFail);
  // Outfeed value 0 is x + infeed = {1.5, 0, 7}; its element 0 has its
  // lowest bit flipped.
  EXPECT_NE(w.message.find("outfeed value 0: leaf 0, element 0: expected 1.5"),
            std::string::npos)
      << w.message;
  EXPECT_FALSE(w.host.infeed.empty());  // the failing case keeps its inputs
}

// An all-reduce implementation of its own for cases with one group of
// every replica and one float operand: each participant folds the
// contributions in reverse participant order, rounding to the element type
// after every add (another order than the oracle's exact sum, as a real
// backend may use), or leaves the last participant's contribution out.
template <bool kDropOne>
class FoldingAllReduceBackend : public backends::Backend {
 public:
  std::string name() const override { return "fake-fold"; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module, const backends::CompileOptions&) override {
    class Exe : public backends::Executable {
     public:
      absl::StatusOr<std::vector<Literal>> Run(
          absl::Span<const Literal>) override {
        return absl::UnimplementedError("replicated only");
      }
      absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicated(
          absl::Span<const std::vector<Literal>> args) override {
        const size_t n = args.size() - (kDropOne ? 1 : 0);
        Literal sum(args[0][0].shape());
        Literal step(Shape::Scalar(sum.element_type()));
        for (int64_t e = 0; e < sum.element_count(); ++e) {
          double acc = args[n - 1][0].GetAsDouble(e);
          for (size_t k = n - 1; k-- > 0;) {
            step.SetFromDouble(0, acc + args[k][0].GetAsDouble(e));
            acc = step.GetAsDouble(0);
          }
          sum.SetFromDouble(e, acc);
        }
        std::vector<std::vector<Literal>> out(args.size());
        for (auto& o : out) o.push_back(sum);
        return out;
      }
    };
    return std::unique_ptr<backends::Executable>(new Exe);
  }
};

// The float all-reduce cases the folding backend implements.
std::vector<GeneratedCase> FoldableSums() {
  std::vector<GeneratedCase> out;
  for (uint64_t seed = 0; seed < 12000 && out.size() < 60; ++seed) {
    auto c = GenerateCase(HloOpcode::kAllReduce, seed);
    if (!c.ok() || c->replica_count < 2 || c->partition_count != 1 ||
        !IsFloat(c->type) || c->args.size() != 1 ||
        c->args[0].element_count() == 0 ||
        c->module_text.find("add(a, b)") == std::string::npos ||
        c->module_text.find("replica_groups={},") == std::string::npos ||
        c->module_text.find("channel_id") != std::string::npos) {
      continue;
    }
    out.push_back(*std::move(c));
  }
  return out;
}

// A cross-replica sum in another order is accepted (class A bound from the
// oracle's S and m), a sum missing one replica's contribution is not.
TEST(SuiteReplicated, FloatSumInAnotherOrderPassesAMissingTermFails) {
  const std::vector<GeneratedCase> cases = FoldableSums();
  ASSERT_GE(cases.size(), 30u);
  FoldingAllReduceBackend<false> folding;
  FoldingAllReduceBackend<true> dropping;
  auto interpreter = backends::CreateInterpreterBackend();
  ASSERT_TRUE(interpreter.ok());
  int other_bits = 0, caught = 0;
  for (const GeneratedCase& c : cases) {
    CaseRecord r = RunGeneratedCase(c, folding, InterpreterOptions());
    EXPECT_EQ(r.outcome, Outcome::kPass) << r.message << "\n" << c.module_text;
    // Did the fold give other bits than the oracle somewhere?
    auto exe = folding.Compile(*c.module, {});
    auto mine = (*exe)->RunReplicated(c.participant_args);
    Evaluator ev;
    auto want = ev.RunReplicated(*c.module, c.participant_args);
    ASSERT_TRUE(mine.ok() && want.ok());
    other_bits += !((*mine)[0][0] == (*want)[0].value);
    CaseRecord d = RunGeneratedCase(c, dropping, InterpreterOptions());
    if (d.outcome == Outcome::kFail) {
      ++caught;
      EXPECT_NE(d.message.find("replica 0: "), std::string::npos) << d.message;
      EXPECT_NE(d.failures[0].rule.find("class A"), std::string::npos)
          << d.failures[0].rule;
    }
  }
  // The bound was needed (the orders differ in some cases) and is tight
  // enough to see a missing contribution in most.
  EXPECT_GE(other_bits, 3);
  EXPECT_GE(caught, static_cast<int>(cases.size()) * 3 / 4);
}

// A failing record keeps what replays it: every participant's arguments
// and the host inputs, written by WriteCaseDir through CaseForReplay.
TEST(SuiteReplicated, FailingCasesRebuildReplayableDirectories) {
  const GeneratedCase c = FindCase(HloOpcode::kAllReduce, [](const auto& c) {
    return c.replica_count >= 2 && c.partition_count == 1 &&
           IsInteger(c.type) && c.args.size() == 1 &&
           c.args[0].element_count() > 0;
  });
  OracleBackend<Flaw::kCorruptParticipant1> corrupting;
  CaseRecord r = RunGeneratedCase(c, corrupting, InterpreterOptions());
  ASSERT_EQ(r.outcome, Outcome::kFail) << r.message;
  EXPECT_NE(r.message.find("replica 1: "), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("[1 of "), std::string::npos) << r.message;
  auto back = CaseForReplay(r);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->replica_count, c.replica_count);
  EXPECT_EQ(back->partition_count, c.partition_count);
  ASSERT_EQ(back->participant_args.size(), c.participant_args.size());
  for (size_t i = 0; i < c.participant_args.size(); ++i) {
    EXPECT_TRUE(back->participant_args[i][0] == c.participant_args[i][0]);
  }
  OracleBackend<Flaw::kSwapParticipants> swapping;
  const GeneratedCase id = FindCase(HloOpcode::kReplicaId, [](const auto& c) {
    return c.replica_count >= 2 && c.partition_count == 1;
  });
  CaseRecord ri = RunGeneratedCase(id, swapping, InterpreterOptions());
  ASSERT_EQ(ri.outcome, Outcome::kFail);
  auto rebuilt = CaseForReplay(ri);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ(rebuilt->id, id.id);
  EXPECT_EQ(rebuilt->seed, id.seed);
  EXPECT_EQ(rebuilt->opcode, HloOpcode::kReplicaId);
  EXPECT_EQ(rebuilt->replica_count, id.replica_count);
  EXPECT_TRUE(rebuilt->replicated());

  OracleBackend<Flaw::kDropLastOutfeed> dropping;
  CaseRecord h = RunGeneratedCase(HostCase(), dropping, InterpreterOptions());
  ASSERT_EQ(h.outcome, Outcome::kFail);
  auto host = CaseForReplay(h);
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_TRUE(host->uses_host);
  ASSERT_EQ(host->host.infeed.size(), 1u);
  EXPECT_TRUE(host->host.infeed[0] == HostCase().host.infeed[0]);
  const std::string dir = ::testing::TempDir() + "/h4_host_replay";
  ASSERT_TRUE(WriteCaseDir(*host, dir).ok());
  std::ifstream readme(dir + "/README");
  std::stringstream text;
  text << readme.rdbuf();
  EXPECT_NE(text.str().find("--infeed=" + dir + "/infeed_0.npy"),
            std::string::npos)
      << text.str();
  // A passing record kept nothing to replay.
  CaseRecord pass = RunGeneratedCase(
      id, *backends::CreateInterpreterBackend().value(), InterpreterOptions());
  ASSERT_EQ(pass.outcome, Outcome::kPass);
  EXPECT_EQ(CaseForReplay(pass).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hloref::conformance
