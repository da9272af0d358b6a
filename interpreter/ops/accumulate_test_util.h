// Test helpers for the accumulating families (dot, convolution, reduce):
// parse + verify + run HLO text, and a recording EvalContext that calls a
// family evaluator directly and keeps the error data (S, m) it reports.
#ifndef HLOREF_INTERPRETER_OPS_ACCUMULATE_TEST_UTIL_H_
#define HLOREF_INTERPRETER_OPS_ACCUMULATE_TEST_UTIL_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/ops/eval_context.h"
#include "interpreter/ops/families.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace testing_acc {

inline absl::StatusOr<std::unique_ptr<HloModule>> ParseVerified(
    const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) return verified;
  return module;
}

// Parses, verifies and evaluates; fails the test on any error.
inline Literal RunHlo(const std::string& text,
                      const std::vector<Literal>& args = {},
                      const EvaluatorOptions& options = {}) {
  auto module = ParseVerified(text);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  if (!module.ok()) return Literal();
  Evaluator evaluator(options);
  auto result = evaluator.Evaluate(**module, args);
  EXPECT_TRUE(result.ok()) << result.status() << "\n" << text;
  if (!result.ok()) return Literal();
  return std::move(result).value();
}

// Calls one family evaluator on the entry root with given operand values,
// recording error data. Nested computations are not available (Call fails).
class RecordingContext : public EvalContext {
 public:
  RecordingContext() { options_.compute_error_data = true; }
  const EvaluatorOptions& options() const override { return options_; }
  absl::StatusOr<Literal> Call(const HloComputation&,
                               absl::Span<const Literal* const>) override {
    return absl::UnimplementedError("no nested calls in RecordingContext");
  }
  void MarkImplDefined(int64_t, int64_t, absl::string_view) override {}
  void MarkAllImplDefined(int64_t, absl::string_view) override {}
  void SetErrorData(int64_t leaf, int64_t linear, double abs_sum,
                    int64_t term_count) override {
    data[{leaf, linear}] = {abs_sum, term_count};
  }
  absl::Status CheckDeadline(const HloInstruction&) override {
    return absl::OkStatus();
  }
  absl::Status CountWhileIteration(const HloInstruction&, int64_t) override {
    return absl::OkStatus();
  }
  std::map<std::pair<int64_t, int64_t>, std::pair<double, int64_t>> data;

 private:
  EvaluatorOptions options_;
};

using FamilyFn = absl::StatusOr<Literal> (*)(const HloInstruction&,
                                             absl::Span<const Literal* const>,
                                             EvalContext&);

// Evaluates the entry root of `text` with `fn`, feeding the entry
// parameters `args` as its operands (the root's operands must be the
// parameters in order).
inline absl::StatusOr<Literal> EvalRootDirect(const std::string& text,
                                              FamilyFn fn,
                                              const std::vector<Literal>& args,
                                              RecordingContext& ctx) {
  auto module = ParseVerified(text);
  if (!module.ok()) return module.status();
  std::vector<const Literal*> ptrs;
  for (const Literal& a : args) ptrs.push_back(&a);
  return fn(*(*module)->entry()->root(), ptrs, ctx);
}

template <typename T>
Literal Make(PrimitiveType type, std::vector<int64_t> dims,
             std::vector<T> values) {
  return Literal::CreateFromValues<T>(type, dims, values);
}

// A simple deterministic generator (LCG) for test data.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : s_(seed) {}
  uint32_t Next() {
    s_ = s_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s_ >> 33);
  }
  // An integer in [lo, hi].
  int64_t Int(int64_t lo, int64_t hi) {
    return lo +
           static_cast<int64_t>(Next() % static_cast<uint32_t>(hi - lo + 1));
  }

 private:
  uint64_t s_;
};

}  // namespace testing_acc
}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_ACCUMULATE_TEST_UTIL_H_
