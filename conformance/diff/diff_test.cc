// hloref diff: isolation, the first departure, descent into fusions, and
// departures that need several instructions. The backends under test are
// the interpreter and small broken wrappers of it written here, so the
// expected departure is known by construction.
#include "conformance/diff/diff.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "backends/interpreter/interpreter_backend.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/hlo_printer.h"

namespace hloref::conformance {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

Literal F32(const std::string& text) {
  auto lit = ParseLiteral(text);
  EXPECT_TRUE(lit.ok()) << lit.status();
  return lit.ok() ? *std::move(lit) : Literal();
}

bool HasOpcode(const HloModule& module, HloOpcode opcode) {
  for (const auto& c : module.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->opcode() == opcode) return true;
    }
  }
  return false;
}

// The interpreter, except that a module containing every opcode of
// `trigger` gets 1 added to every element of its f32 outputs.
class BrokenBackend : public backends::Backend {
 public:
  explicit BrokenBackend(std::vector<HloOpcode> trigger)
      : trigger_(std::move(trigger)),
        inner_(*backends::CreateInterpreterBackend()) {}
  std::string name() const override { return "broken"; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module,
      const backends::CompileOptions& options) override {
    auto exe = inner_->Compile(module, options);
    if (!exe.ok()) return exe.status();
    bool broken = true;
    for (HloOpcode op : trigger_) broken = broken && HasOpcode(module, op);
    auto out = std::make_unique<Exe>(*std::move(exe), broken);
    out->replicated_ = replicated_;
    return std::unique_ptr<backends::Executable>(std::move(out));
  }
  // Whether executables run replicated modules (RunReplicated).
  bool replicated_ = false;

 private:
  class Exe : public backends::Executable {
   public:
    Exe(std::unique_ptr<backends::Executable> inner, bool broken)
        : inner_(std::move(inner)), broken_(broken) {}
    absl::StatusOr<std::vector<Literal>> Run(
        absl::Span<const Literal> args) override {
      auto out = inner_->Run(args);
      if (!out.ok() || !broken_) return out;
      for (Literal& l : *out) {
        if (l.shape().element_type() != PrimitiveType::kF32) continue;
        for (float& v : l.mutable_data<float>()) v += 1;
      }
      return out;
    }
    absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicated(
        absl::Span<const std::vector<Literal>> args) override {
      if (!replicated_) return Executable::RunReplicated(args);
      auto out = inner_->RunReplicated(args);
      if (!out.ok() || !broken_) return out;
      for (auto& participant : *out) {
        for (Literal& l : participant) {
          if (l.shape().element_type() != PrimitiveType::kF32) continue;
          for (float& v : l.mutable_data<float>()) v += 1;
        }
      }
      return out;
    }
    bool replicated_ = false;

   private:
    std::unique_ptr<backends::Executable> inner_;
    bool broken_;
  };
  std::vector<HloOpcode> trigger_;
  std::unique_ptr<backends::Backend> inner_;
};

constexpr char kChain[] = R"(
HloModule chain

ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  n = f32[3] negate(x)
  m = f32[3] multiply(n, y)
  ROOT r = f32[3] add(m, x)
}
)";

constexpr char kFused[] = R"(
HloModule fused

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused_computation {
  p0 = f32[3] parameter(0)
  p1 = f32[3] parameter(1)
  e = f32[3] exponential(p0)
  m = f32[3] multiply(e, p1)
  ROOT t = f32[3] subtract(m, p1)
}

ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  n = f32[3] negate(x)
  f = f32[3] fusion(n, y), kind=kLoop, calls=fused_computation
  z = f32[] constant(0)
  ROOT r = f32[] reduce(f, z), dimensions={0}, to_apply=add_f32
}
)";

std::vector<Literal> Args() {
  std::vector<Literal> args;
  args.push_back(F32("f32[3] {1, 2, 3}"));
  args.push_back(F32("f32[3] {0.5, -1, 4}"));
  return args;
}

TEST(IsolateInstruction, OneParameterPerDistinctOperandAndCalleesKept) {
  auto module = Parse(R"(
HloModule m
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
unused {
  ROOT c = f32[] constant(1)
}
ENTRY main {
  x = f32[2,3] parameter(0)
  z = f32[] constant(0)
  sq = f32[2,3] multiply(x, x)
  ROOT r = f32[2] reduce(sq, z), dimensions={1}, to_apply=add_f32
}
)");
  ASSERT_NE(module, nullptr);
  const HloInstruction* sq = module->entry()->FindInstruction("sq");
  auto isolated = IsolateInstruction(*module, *sq);
  ASSERT_TRUE(isolated.ok()) << isolated.status();
  // multiply(x, x): one parameter, not two.
  EXPECT_EQ((*isolated)->entry()->num_parameters(), 1);
  EXPECT_EQ((*isolated)->entry()->root()->opcode(), HloOpcode::kMultiply);

  const HloInstruction* r = module->entry()->FindInstruction("r");
  isolated = IsolateInstruction(*module, *r);
  ASSERT_TRUE(isolated.ok()) << isolated.status();
  EXPECT_EQ((*isolated)->entry()->num_parameters(), 2);
  EXPECT_NE((*isolated)->FindComputation("add_f32"), nullptr);
  // Only the computations the instruction reaches come along.
  EXPECT_EQ((*isolated)->FindComputation("unused"), nullptr);
}

TEST(EnterComputation, FusionComputationBecomesTheEntry) {
  auto module = Parse(kFused);
  ASSERT_NE(module, nullptr);
  auto entered =
      EnterComputation(*module, *module->FindComputation("fused_computation"));
  ASSERT_TRUE(entered.ok()) << entered.status();
  EXPECT_EQ((*entered)->entry()->name(), "fused_computation");
  EXPECT_EQ((*entered)->entry()->num_parameters(), 2);
  EXPECT_FALSE(
      EnterComputation(*module, *module->entry()).ok());  // already entry
}

TEST(DiffModule, InterpreterAgreesWithItself) {
  auto module = Parse(kFused);
  ASSERT_NE(module, nullptr);
  auto backend = backends::CreateInterpreterBackend();
  ASSERT_TRUE(backend.ok());
  DiffOptions options;
  options.all = true;
  auto result = DiffModule(*module, Args(), **backend, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->whole, Outcome::kPass) << result->whole_message;
  EXPECT_EQ(result->first_departure, -1);
  // negate, fusion, constant, reduce (parameters are not judged).
  ASSERT_EQ(result->instructions.size(), 4u);
  for (const auto& v : result->instructions) {
    EXPECT_EQ(v.outcome, Outcome::kPass) << v.QualifiedName() << v.message;
  }
  EXPECT_NE(result->Conclusion().find("no departure"), std::string::npos);
}

// The interpreter, recording where each run's arguments live.
class RecordingBackend : public backends::Backend {
 public:
  RecordingBackend() : inner_(*backends::CreateInterpreterBackend()) {}
  std::string name() const override { return "recording"; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module,
      const backends::CompileOptions& options) override {
    auto exe = inner_->Compile(module, options);
    if (!exe.ok()) return exe.status();
    return std::unique_ptr<backends::Executable>(
        std::make_unique<Exe>(*std::move(exe), runs));
  }
  // Per run, the address of each argument's first element.
  std::vector<std::vector<const float*>> runs;

 private:
  class Exe : public backends::Executable {
   public:
    Exe(std::unique_ptr<backends::Executable> inner,
        std::vector<std::vector<const float*>>& runs)
        : inner_(std::move(inner)), runs_(runs) {}
    absl::StatusOr<std::vector<Literal>> Run(
        absl::Span<const Literal> args) override {
      std::vector<const float*> at;
      for (const Literal& a : args) at.push_back(a.data<float>().data());
      runs_.push_back(std::move(at));
      return inner_->Run(args);
    }

   private:
    std::unique_ptr<backends::Executable> inner_;
    std::vector<std::vector<const float*>>& runs_;
  };
  std::unique_ptr<backends::Backend> inner_;
};

// A value read again four instructions after it was computed (n, by r)
// and parameters read by several instructions: the search keeps each
// value until its last reader, and lends the arguments it took over to
// each run that reads them (the whole module's, each isolated one's)
// instead of copying them.
constexpr char kLongLived[] = R"(
HloModule long_lived

ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  n = f32[3] negate(x)
  m = f32[3] multiply(n, y)
  a = f32[3] add(m, x)
  s = f32[3] subtract(a, y)
  ROOT r = f32[3] multiply(s, n)
}
)";

TEST(DiffModule, TakenArgumentsAreNotCopiedAndValuesLiveToTheirLastReader) {
  auto module = Parse(kLongLived);
  ASSERT_NE(module, nullptr);
  RecordingBackend backend;
  std::vector<Literal> args = Args();
  const float* x_at = args[0].data<float>().data();
  const float* y_at = args[1].data<float>().data();
  DiffOptions options;
  options.all = true;
  options.enclosure = false;
  auto result =
      DiffModuleTakingArgs(*module, std::move(args), backend, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->whole, Outcome::kPass) << result->whole_message;
  // n, m, a, s, r: every one judged (an operand dropped too early would
  // leave its reader skipped: "an operand was not evaluated").
  ASSERT_EQ(result->instructions.size(), 5u);
  for (const auto& v : result->instructions) {
    EXPECT_EQ(v.outcome, Outcome::kPass) << v.QualifiedName() << v.message;
  }
  // The whole module's run got the caller's buffers, then one run per
  // isolated instruction (n, m, a, s, r), whose parameter operands are the
  // caller's buffers too: lent to each run and given back for the next.
  ASSERT_EQ(backend.runs.size(), 6u);
  const std::vector<size_t> operands = {2, 1, 2, 2, 2, 2};
  for (size_t r = 0; r < operands.size(); ++r) {
    ASSERT_EQ(backend.runs[r].size(), operands[r]) << r;
  }
  EXPECT_EQ(backend.runs[0][0], x_at);
  EXPECT_EQ(backend.runs[0][1], y_at);
  EXPECT_EQ(backend.runs[1][0], x_at);  // n = negate(x)
  EXPECT_EQ(backend.runs[2][1], y_at);  // m = multiply(n, y)
  EXPECT_EQ(backend.runs[3][1], x_at);  // a = add(m, x)
  EXPECT_EQ(backend.runs[4][1], y_at);  // s = subtract(a, y)
}

TEST(DiffModule, FirstDepartingInstructionIsNamed) {
  auto module = Parse(kChain);
  ASSERT_NE(module, nullptr);
  BrokenBackend backend({HloOpcode::kMultiply});
  auto result = DiffModule(*module, Args(), backend, DiffOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->whole, Outcome::kFail);
  ASSERT_GE(result->first_departure, 0);
  const InstructionVerdict& v = result->instructions[result->first_departure];
  EXPECT_EQ(v.name, "m");
  EXPECT_EQ(v.location, "8:3");  // the line of `m` in kChain
  EXPECT_EQ(v.outcome, Outcome::kFail);
  // Stops there: negate (pass) and multiply (fail) only.
  EXPECT_EQ(result->instructions.size(), 2u);
  // The isolated case replays on its own: multiply of the oracle's operands
  // (-x and y).
  auto replay = ParseHloModule(v.isolated_module);
  ASSERT_TRUE(replay.ok()) << replay.status();
  ASSERT_EQ(v.isolated_args.size(), 2u);
  EXPECT_EQ(v.isolated_args[0].data<float>()[1], -2.0f);
  EXPECT_NE(result->Conclusion().find("%m (8:3)"), std::string::npos)
      << result->Conclusion();
}

TEST(DiffModule, AllJudgesEveryInstructionWithoutCascading) {
  auto module = Parse(kChain);
  ASSERT_NE(module, nullptr);
  BrokenBackend backend({HloOpcode::kMultiply});
  DiffOptions options;
  options.all = true;
  auto result = DiffModule(*module, Args(), backend, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->instructions.size(), 3u);
  EXPECT_EQ(result->instructions[0].outcome, Outcome::kPass);  // n
  EXPECT_EQ(result->instructions[1].outcome, Outcome::kFail);  // m
  // add is fed the oracle's m, so the broken multiply does not cascade.
  EXPECT_EQ(result->instructions[2].outcome, Outcome::kPass);  // r
  EXPECT_EQ(result->instructions[result->first_departure].name, "m");
}

TEST(DiffModule, DescendsIntoFailingFusion) {
  auto module = Parse(kFused);
  ASSERT_NE(module, nullptr);
  BrokenBackend backend({HloOpcode::kMultiply});
  auto result = DiffModule(*module, Args(), backend, DiffOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_GE(result->first_departure, 0);
  const InstructionVerdict& v = result->instructions[result->first_departure];
  EXPECT_EQ(v.QualifiedName(), "f/m");
  EXPECT_EQ(v.location, "14:3");  // `m` in fused_computation (line 14)
  // The fusion itself is recorded as failing before its inside.
  bool fusion_failed = false;
  for (const auto& i : result->instructions) {
    if (i.name == "f" && i.path.empty()) {
      fusion_failed = i.outcome == Outcome::kFail;
    }
  }
  EXPECT_TRUE(fusion_failed);

  DiffOptions flat;
  flat.descend = false;
  result = DiffModule(*module, Args(), backend, flat);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->instructions[result->first_departure].QualifiedName(), "f");
}

TEST(DiffModule, DepartureNeedingSeveralInstructionsIsSaidSo) {
  auto module = Parse(kChain);
  ASSERT_NE(module, nullptr);
  // Broken only when multiply and add are compiled together.
  BrokenBackend backend({HloOpcode::kMultiply, HloOpcode::kAdd});
  DiffOptions options;
  options.all = true;
  auto result = DiffModule(*module, Args(), backend, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->whole, Outcome::kFail);
  EXPECT_EQ(result->first_departure, -1);
  EXPECT_NE(result->Conclusion().find("no isolated instruction does"),
            std::string::npos)
      << result->Conclusion();
}

// A replicated module: each replica brings its own x; the all-reduce sums
// them (1 + 10 = 11, 2 + 20 = 22); the broken backend adds 1 to every f32
// output of a module with a multiply, so the departure is the multiply
// after the all-reduce, judged on both replicas with their own values.
TEST(DiffModule, ReplicatedModulesRunOnEveryParticipant) {
  auto module = Parse(R"(
HloModule r, replica_count=2
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[2] parameter(0)
  s = f32[2] all-reduce(x), replica_groups={}, to_apply=add_f32
  ROOT m = f32[2] multiply(s, x)
}
)");
  ASSERT_NE(module, nullptr);
  DiffOptions options;
  options.participant_args.resize(2);
  options.participant_args[0].push_back(F32("f32[2] {1, 2}"));
  options.participant_args[1].push_back(F32("f32[2] {10, 20}"));
  auto interpreter = backends::CreateInterpreterBackend();
  ASSERT_TRUE(interpreter.ok());
  auto clean = DiffModule(*module, {}, **interpreter, options);
  ASSERT_TRUE(clean.ok()) << clean.status();
  EXPECT_EQ(clean->whole, Outcome::kPass) << clean->whole_message;
  EXPECT_EQ(clean->first_departure, -1);

  BrokenBackend broken({HloOpcode::kMultiply});
  auto result = DiffModule(*module, {}, broken, options);
  ASSERT_TRUE(result.ok()) << result.status();
  // BrokenBackend has no RunReplicated: the verdicts are unsupported, never
  // a pass.
  EXPECT_EQ(result->whole, Outcome::kUnsupported) << result->whole_message;
  for (const auto& v : result->instructions) {
    EXPECT_EQ(v.outcome, Outcome::kUnsupported) << v.QualifiedName();
  }
  // With RunReplicated: the multiply departs, judged on every participant.
  broken.replicated_ = true;
  result = DiffModule(*module, {}, broken, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->whole, Outcome::kFail);
  ASSERT_GE(result->first_departure, 0);
  const InstructionVerdict& v = result->instructions[result->first_departure];
  EXPECT_EQ(v.name, "m");
  // The all-reduce before it passes: its isolated module has no multiply.
  EXPECT_EQ(result->instructions[0].name, "s");
  EXPECT_EQ(result->instructions[0].outcome, Outcome::kPass);
  // Each replica's operands: s = {11, 22} on both, x its own.
  ASSERT_EQ(v.isolated_participant_args.size(), 2u);
  EXPECT_EQ(v.isolated_participant_args[1][0].data<float>()[1], 22.0f);
  EXPECT_EQ(v.isolated_participant_args[1][1].data<float>()[0], 10.0f);
  // The wrong number of per-participant lists is refused.
  options.participant_args.pop_back();
  EXPECT_EQ(DiffModule(*module, {}, **interpreter, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hloref::conformance

namespace hloref::conformance {
namespace {

// XLA's excess precision (xla_allow_excess_precision): every bf16 value
// kept in f32 and rounded to bf16 once, at the outputs. The module's text
// with bf16 read as f32 runs on the interpreter backend; arguments widen
// exactly, results round to nearest even.
//
// `rewrites` (text replacements of the module, e.g. " divide(" ->
// " multiply(") make it a broken compiler too: the named instructions
// compute something else.
class ExcessPrecisionBackend : public backends::Backend {
 public:
  // `only_with`: the rewrites apply only to modules whose text holds it
  // (a compiler that miscompiles a pattern only in some contexts).
  explicit ExcessPrecisionBackend(
      std::vector<std::pair<std::string, std::string>> rewrites = {},
      std::string only_with = "")
      : rewrites_(std::move(rewrites)), only_with_(std::move(only_with)) {}
  std::string name() const override { return "excess-precision"; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module,
      const backends::CompileOptions& options) override {
    std::string text =
        absl::StrReplaceAll(PrintModule(module), {{"bf16", "f32"}});
    const bool rewrite =
        only_with_.empty() || text.find(only_with_) != std::string::npos;
    for (const auto& [from, to] : rewrites_) {
      if (rewrite) text = absl::StrReplaceAll(text, {{from, to}});
    }
    // The outputs that were bf16 (rounded back once, at the end).
    std::vector<bool> narrow;
    const Shape& root = module.entry()->root()->shape();
    if (root.IsTuple()) {
      for (const Shape& leaf : root.tuple_shapes()) {
        narrow.push_back(leaf.IsArray() &&
                         leaf.element_type() == PrimitiveType::kBF16);
      }
    } else {
      narrow.push_back(root.element_type() == PrimitiveType::kBF16);
    }
    auto wide = ParseHloModule(text);
    if (!wide.ok()) return wide.status();
    auto inner = backends::CreateInterpreterBackend();
    if (!inner.ok()) return inner.status();
    auto exe = (*inner)->Compile(**wide, options);
    if (!exe.ok()) return exe.status();
    return std::unique_ptr<backends::Executable>(
        std::make_unique<Exe>(*std::move(exe), std::move(*wide), narrow));
  }

 private:
  std::vector<std::pair<std::string, std::string>> rewrites_;
  std::string only_with_;
  class Exe : public backends::Executable {
   public:
    Exe(std::unique_ptr<backends::Executable> inner,
        std::unique_ptr<HloModule> wide, std::vector<bool> narrow)
        : inner_(std::move(inner)),
          wide_(std::move(wide)),
          narrow_(std::move(narrow)) {}
    absl::StatusOr<std::vector<Literal>> Run(
        absl::Span<const Literal> args) override {
      std::vector<Literal> wide_args;
      for (const Literal& a : args) {
        if (a.element_type() != PrimitiveType::kBF16) {
          wide_args.push_back(a);
          continue;
        }
        Literal w(Shape(PrimitiveType::kF32, a.shape().dimensions()));
        for (int64_t i = 0; i < a.element_count(); ++i) {
          w.SetFromDouble(i, a.GetAsDouble(i));  // exact
        }
        wide_args.push_back(std::move(w));
      }
      auto out = inner_->Run(wide_args);
      if (!out.ok()) return out;
      for (size_t k = 0; k < out->size(); ++k) {
        Literal& l = (*out)[k];
        if (l.element_type() != PrimitiveType::kF32 ||
            !(k < narrow_.size() && narrow_[k])) {
          continue;
        }
        Literal n(Shape(PrimitiveType::kBF16, l.shape().dimensions()));
        for (int64_t i = 0; i < l.element_count(); ++i) {
          n.SetFromDouble(i, l.GetAsDouble(i));  // one rounding
        }
        l = std::move(n);
      }
      return out;
    }

   private:
    std::unique_ptr<backends::Executable> inner_;
    std::unique_ptr<HloModule> wide_;
    std::vector<bool> narrow_;
  };
};

// A bf16 chain whose per-op rounding differs from one rounding at the end
// for some elements: the per-op comparison of the whole output fails, the
// enclosures pass every element, so diff says so and isolates nothing.
TEST(DiffModule, ExcessPrecisionConformsWithinEnclosures) {
  auto module = Parse(R"(
HloModule ep
ENTRY main {
  x = bf16[8] parameter(0)
  y = bf16[8] parameter(1)
  m = bf16[8] multiply(x, y)
  a = bf16[8] add(m, x)
  d = bf16[8] divide(a, y)
  ROOT s = bf16[8] subtract(d, m)
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<Literal> args;
  args.push_back(*ParseLiteral(
      "bf16[8] {1.0078125, 3.140625, -2.71875, 0.33398438, 7.5, -1.6640625, "
      "5.0625, 0.12695312}"));
  args.push_back(*ParseLiteral(
      "bf16[8] {1.9921875, 0.70703125, 1.4140625, -3.015625, 0.5703125, "
      "2.4375, -1.1015625, 9.875}"));
  ExcessPrecisionBackend backend;
  auto result = DiffModule(*module, args, backend, DiffOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->enclosure.has_value()) << result->enclosure_note;
  EXPECT_EQ(result->enclosure->TotalFail(), 0) << result->Conclusion();
  EXPECT_EQ(result->whole, Outcome::kFail) << result->Conclusion();
  EXPECT_TRUE(result->conforms_within_enclosures) << result->Conclusion();
  EXPECT_TRUE(result->instructions.empty());
  EXPECT_NE(result->Conclusion().find("conforms within its whole-program "
                                      "enclosures"),
            std::string::npos)
      << result->Conclusion();
}

// A real departure stays one: the enclosures fail and isolation names it.
TEST(DiffModule, EnclosuresFailABrokenBackendAndIsolationGoesOn) {
  auto module = Parse(kChain);
  ASSERT_NE(module, nullptr);
  BrokenBackend backend({HloOpcode::kMultiply});
  auto result = DiffModule(*module, Args(), backend, DiffOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->enclosure.has_value()) << result->enclosure_note;
  EXPECT_GT(result->enclosure->TotalFail(), 0);
  EXPECT_FALSE(result->conforms_within_enclosures);
  EXPECT_GE(result->first_departure, 0);
  EXPECT_NE(result->Conclusion().find("whole-program enclosures: "),
            std::string::npos)
      << result->Conclusion();
}

// Localisation by enclosures: a broken compiler (multiply computed as
// subtract) in a multi-op f32 program. Every later instruction is judged on
// the backend's own (departed) operand values, so the departure does not
// cascade: the named instruction is the multiply, not the tanh or add
// after it.
TEST(DiffModule, EnclosuresNameTheBrokenInstructionNotALaterOne) {
  auto module = Parse(R"(
HloModule chain2
ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  n = f32[3] negate(x)
  m = f32[3] multiply(n, y)
  t = f32[3] tanh(m)
  ROOT r = f32[3] add(t, x)
}
)");
  ASSERT_NE(module, nullptr);
  ExcessPrecisionBackend backend(
      std::vector<std::pair<std::string, std::string>>{
          {" multiply(", " subtract("}});
  auto result = DiffModule(*module, Args(), backend, DiffOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->enclosure.has_value()) << result->enclosure_note;
  EXPECT_GT(result->enclosure->TotalFail(), 0);
  ASSERT_TRUE(result->enclosure_departure.has_value())
      << result->localisation_note;
  EXPECT_EQ(result->enclosure_departure->name, "m");
  EXPECT_EQ(result->enclosure_departure->judged_before, 1);  // n
  EXPECT_NE(result->Conclusion().find("%m (7:3) is the first instruction "
                                      "whose backend value leaves its "
                                      "enclosure"),
            std::string::npos)
      << result->Conclusion();
}

// Excess precision and a broken divide together (bf16 values kept in f32,
// divide computed as multiply): the instructions before the divide differ
// from per-op rounding but lie inside their enclosures once their operands
// stand for every value that rounds to the backend's bf16 output, so the
// divide is named, not an earlier instruction and not the later subtract.
TEST(DiffModule, EnclosureLocalisationSeesThroughExcessPrecision) {
  auto module = Parse(R"(
HloModule ep2
ENTRY main {
  x = bf16[8] parameter(0)
  y = bf16[8] parameter(1)
  m = bf16[8] multiply(x, y)
  a = bf16[8] add(m, x)
  e = bf16[8] exponential(a)
  d = bf16[8] divide(e, y)
  ROOT s = bf16[8] subtract(d, m)
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<Literal> args;
  args.push_back(*ParseLiteral(
      "bf16[8] {1.0078125, 3.140625, -2.71875, 0.33398438, 0.5, -1.6640625, "
      "2.0625, 0.12695312}"));
  args.push_back(*ParseLiteral(
      "bf16[8] {1.9921875, 0.70703125, 1.4140625, -3.015625, 0.5703125, "
      "2.4375, -1.1015625, 9.875}"));
  ExcessPrecisionBackend backend(
      std::vector<std::pair<std::string, std::string>>{
          {" divide(", " multiply("}});
  auto result = DiffModule(*module, args, backend, DiffOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->enclosure.has_value()) << result->enclosure_note;
  EXPECT_GT(result->enclosure->TotalFail(), 0) << result->Conclusion();
  ASSERT_TRUE(result->enclosure_departure.has_value())
      << result->localisation_note;
  EXPECT_EQ(result->enclosure_departure->name, "d") << result->Conclusion();
  EXPECT_EQ(result->enclosure_departure->judged_before, 3);  // m, a, e
}

// A departing multi-output fusion (tuple-valued, judged leaf by leaf) is
// entered: its computation runs on its own on the backend, fed the
// backend's operand values, and the fused multiply is named with its
// path and its line in the user's file. Before tuple-valued instructions
// were judged, the search ended on the add after the get-tuple-elements
// and found nothing.
TEST(DiffModule, EnclosureLocalisationEntersAMultiOutputFusion) {
  auto module = Parse(R"(
HloModule mof
fc {
  p = f32[3] parameter(0)
  q = f32[3] parameter(1)
  n = f32[3] negate(p)
  m = f32[3] multiply(n, q)
  t = f32[3] tanh(p)
  ROOT o = (f32[3], f32[3]) tuple(m, t)
}
ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  f = (f32[3], f32[3]) fusion(x, y), kind=kLoop, calls=fc
  g0 = f32[3] get-tuple-element(f), index=0
  g1 = f32[3] get-tuple-element(f), index=1
  ROOT r = f32[3] add(g0, g1)
}
)");
  ASSERT_NE(module, nullptr);
  ExcessPrecisionBackend backend(
      std::vector<std::pair<std::string, std::string>>{
          {" multiply(", " subtract("}});
  auto result = DiffModule(*module, Args(), backend, DiffOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->enclosure.has_value()) << result->enclosure_note;
  EXPECT_GT(result->enclosure->TotalFail(), 0);
  ASSERT_TRUE(result->enclosure_departure.has_value())
      << result->localisation_note;
  EXPECT_EQ(result->enclosure_departure->QualifiedName(), "f/m")
      << result->Conclusion();
  EXPECT_EQ(result->enclosure_departure->location, "7:3");
  // Judged inside before it: the fusion's negate.
  EXPECT_EQ(result->enclosure_departure->judged_before, 1);
  EXPECT_NE(result->Conclusion().find("%f/m (7:3) is the first instruction "
                                      "whose backend value leaves its "
                                      "enclosure"),
            std::string::npos)
      << result->Conclusion();
  // With descent off, the fusion itself is named.
  DiffOptions flat;
  flat.descend = false;
  auto outer = DiffModule(*module, Args(), backend, flat);
  ASSERT_TRUE(outer.ok()) << outer.status();
  ASSERT_TRUE(outer->enclosure_departure.has_value())
      << outer->localisation_note;
  EXPECT_EQ(outer->enclosure_departure->QualifiedName(), "f");
}

// A fusion that departs only as a fusion (the backend miscompiles the
// multiply only inside modules that hold a fusion): run on its own, its
// computation has no fusion and every instruction lies inside, so the
// fusion is named and the conclusion says the departure needs its
// instructions together.
TEST(DiffModule, EnclosureLocalisationSaysWhenAFusionDepartsOnlyAsAWhole) {
  auto module = Parse(R"(
HloModule mof2
fc {
  p = f32[3] parameter(0)
  q = f32[3] parameter(1)
  n = f32[3] negate(p)
  ROOT m = f32[3] multiply(n, q)
}
ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  f = f32[3] fusion(x, y), kind=kLoop, calls=fc
  ROOT r = f32[3] add(f, x)
}
)");
  ASSERT_NE(module, nullptr);
  ExcessPrecisionBackend backend(
      std::vector<std::pair<std::string, std::string>>{
          {" multiply(", " subtract("}},
      " fusion(");
  auto result = DiffModule(*module, Args(), backend, DiffOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->enclosure_departure.has_value())
      << result->localisation_note;
  EXPECT_EQ(result->enclosure_departure->QualifiedName(), "f")
      << result->Conclusion();
  EXPECT_NE(result->Conclusion().find("the departure needs its instructions "
                                      "together"),
            std::string::npos)
      << result->Conclusion();
}

// A tuple-valued instruction that is not entered (a while loop whose body
// the backend miscompiles) is named itself, judged on every leaf of its
// result; the get-tuple-element and the add after it are not.
TEST(DiffModule, EnclosureLocalisationJudgesATupleValuedWhile) {
  auto module = Parse(R"(
HloModule loop
cond {
  c = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(i, k), direction=LT
}
body {
  b = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(b), index=0
  v = f32[3] get-tuple-element(b), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  h = f32[3] constant({0.5, 0.25, 2})
  v1 = f32[3] multiply(v, h)
  ROOT nb = (s32[], f32[3]) tuple(i1, v1)
}
ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  z = s32[] constant(0)
  s = f32[3] add(x, y)
  init = (s32[], f32[3]) tuple(z, s)
  w = (s32[], f32[3]) while(init), condition=cond, body=body
  g = f32[3] get-tuple-element(w), index=1
  ROOT r = f32[3] add(g, x)
}
)");
  ASSERT_NE(module, nullptr);
  ExcessPrecisionBackend backend(
      std::vector<std::pair<std::string, std::string>>{
          {" multiply(", " add("}});
  auto result = DiffModule(*module, Args(), backend, DiffOptions{});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->enclosure.has_value()) << result->enclosure_note;
  EXPECT_GT(result->enclosure->TotalFail(), 0);
  ASSERT_TRUE(result->enclosure_departure.has_value())
      << result->localisation_note;
  EXPECT_EQ(result->enclosure_departure->QualifiedName(), "w")
      << result->Conclusion();
  // s and init were judged inside first (z is a constant: judged too).
  EXPECT_EQ(result->enclosure_departure->judged_before, 3);
  // Two leaves judged: the counter (inside) and the vector (outside).
  ASSERT_EQ(result->enclosure_departure->verdict.outputs.size(), 2u);
  EXPECT_EQ(result->enclosure_departure->verdict.outputs[0].fail, 0);
  EXPECT_EQ(result->enclosure_departure->verdict.outputs[1].fail, 3);
}

}  // namespace
}  // namespace hloref::conformance
