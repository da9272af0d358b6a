// Tests of the stablehlo suite's two verdicts (stablehlo_suite.h) with a
// backend that departs from the oracle on purpose: the interpreter with
// one op's results scaled by (1 + 2^-23), i.e. one or two ulps high.
#include "tools/hloref/stablehlo_suite.h"

#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/interpreter/interpreter_backend.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/hlo_printer.h"

namespace hloref::tools {
namespace {

// The interpreter, except that every f32 `opcode` instruction's result is
// multiplied by 1 + 2^-23 (the module is rewritten before it runs).
class NudgingBackend : public backends::Backend {
 public:
  explicit NudgingBackend(std::string opcode) : opcode_(std::move(opcode)) {}
  std::string name() const override { return "nudge-" + opcode_; }
  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module,
      const backends::CompileOptions& options) override {
    const std::regex line_re(R"(^(\s*)(ROOT )?%([\w.\-]+) = (f32\[[^ ]*) )" +
                             opcode_ + R"(\((.*)$)");
    std::istringstream in(PrintModule(module));
    std::string out;
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (!std::regex_match(line, m, line_re)) {
        absl::StrAppend(&out, line, "\n");
        continue;
      }
      const std::string indent = m[1], root = m[2], name = m[3], type = m[4];
      absl::StrAppend(&out, indent, "%", name, ".raw = ", type, " ", opcode_,
                      "(", m[5].str(), "\n", indent, "%", name,
                      ".k = f32[] constant(1.00000012)\n", indent, "%", name,
                      ".kb = ", type, " broadcast(%", name,
                      ".k), dimensions={}\n", indent, root, "%", name, " = ",
                      type, " multiply(%", name, ".raw, %", name, ".kb)\n");
    }
    auto rewritten = ParseHloModule(out);
    if (!rewritten.ok()) return rewritten.status();
    modules_.push_back(*std::move(rewritten));
    auto interpreter = backends::CreateInterpreterBackend();
    if (!interpreter.ok()) return interpreter.status();
    interpreters_.push_back(*std::move(interpreter));
    return interpreters_.back()->Compile(*modules_.back(), options);
  }

 private:
  std::string opcode_;
  std::vector<std::unique_ptr<HloModule>> modules_;
  std::vector<std::unique_ptr<backends::Backend>> interpreters_;
};

// sqrt(2) one ulp high: within expect_close's 3 ULP, so the file passes,
// but sqrt is correctly rounded in hloref's error model (class R): the
// oracle verdict is a disagreement, located at the sqrt.
TEST(StableHloSuiteTest, FilePassesButBackendDepartsFromOracle) {
  const std::string text =
      "module @sqrt_close {\n"
      "  func.func public @main() -> tensor<2xf32> {\n"
      "    %0 = stablehlo.constant dense<[2.0, 9.0]> : tensor<2xf32>\n"
      "    %1 = stablehlo.constant dense<[1.41421354, 3.0]> : tensor<2xf32>\n"
      "    %2 = stablehlo.sqrt %0 : tensor<2xf32>\n"
      "    stablehlo.custom_call @check.expect_close(%2, %1) "
      "{has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()\n"
      "    return %2 : tensor<2xf32>\n  }\n}\n";
  NudgingBackend backend("sqrt");
  StableHloFileResult r =
      JudgeStableHloFile("sqrt_close.mlir", text, backend, {});
  EXPECT_EQ(r.outcome, StableHloFileResult::Outcome::kPass) << r.message;
  EXPECT_TRUE(r.oracle_judged);
  EXPECT_FALSE(r.oracle_agrees);
  EXPECT_TRUE(absl::StrContains(r.oracle_message, "line 6: "))
      << r.oracle_message;
  EXPECT_TRUE(absl::StrContains(r.oracle_message, "class R"))
      << r.oracle_message;
  EXPECT_TRUE(absl::StrContains(r.oracle_message, "per instruction, %v2"))
      << r.oracle_message;
  // The same file on the oracle itself: both verdicts hold.
  auto interpreter = backends::CreateInterpreterBackend();
  ASSERT_TRUE(interpreter.ok());
  StableHloFileResult self =
      JudgeStableHloFile("sqrt_close.mlir", text, **interpreter, {});
  EXPECT_EQ(self.outcome, StableHloFileResult::Outcome::kPass);
  EXPECT_TRUE(self.oracle_agrees) << self.oracle_message;
  EXPECT_TRUE(self.per_instruction_note.empty());
}

// exp(1) one or two ulps high (within exp's 8-ulp budget), then
// exp(1) - 2.71828008: the subtraction is exact (Sterbenz), so the
// difference of the whole value is far beyond subtract's class-R bound;
// but every instruction agrees when fed the oracle's operands, which is
// the verdict for multi-op values (numerics.md decision 7).
TEST(StableHloSuiteTest, PropagatedRoundingAgreesPerInstruction) {
  const std::string text =
      "module @exp_cancel {\n"
      "  func.func public @main() -> tensor<1xf32> {\n"
      "    %0 = stablehlo.constant dense<[1.0]> : tensor<1xf32>\n"
      "    %1 = stablehlo.constant dense<[2.71828008]> : tensor<1xf32>\n"
      "    %2 = stablehlo.exponential %0 : tensor<1xf32>\n"
      "    %3 = stablehlo.subtract %2, %1 : tensor<1xf32>\n"
      "    check.expect_almost_eq_const %3, dense<[1.66893005e-06]> : "
      "tensor<1xf32>\n"
      "    return %3 : tensor<1xf32>\n  }\n}\n";
  NudgingBackend backend("exponential");
  StableHloFileResult r =
      JudgeStableHloFile("exp_cancel.mlir", text, backend, {});
  EXPECT_EQ(r.outcome, StableHloFileResult::Outcome::kPass) << r.message;
  EXPECT_TRUE(r.oracle_agrees) << r.oracle_message;
  EXPECT_TRUE(absl::StrContains(r.per_instruction_note, "class R"))
      << r.per_instruction_note;
}

}  // namespace
}  // namespace hloref::tools
