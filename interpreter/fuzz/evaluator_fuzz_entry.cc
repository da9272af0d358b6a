#include "interpreter/fuzz/evaluator_fuzz_entry.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

FuzzOutcome Refused(const absl::Status& status, absl::string_view stage) {
  FuzzOutcome out;
  out.status = status;
  if (status.message().empty()) {
    out.violation =
        absl::StrCat(stage, " error without a message: ", status.ToString());
  }
  return out;
}

// The non-tuple leaves of `shape`, in the evaluator's flattening order
// (depth first, left to right).
void Leaves(const Shape& shape, std::vector<const Shape*>* leaves) {
  if (!shape.IsTuple()) {
    leaves->push_back(&shape);
    return;
  }
  for (const Shape& element : shape.tuple_shapes()) Leaves(element, leaves);
}

EvaluatorOptions FuzzEvaluatorOptions() {
  EvaluatorOptions options;
  options.max_elements_per_value = kFuzzEvalMaxElements;
  options.max_while_iterations = kFuzzEvalMaxWhileIterations;
  options.max_call_depth = kFuzzEvalMaxCallDepth;
  options.max_bytes = kFuzzEvalMaxBytes;
  options.max_wall_time = kFuzzEvalMaxWallTime;
  options.threads = 1;
  return options;
}

}  // namespace

FuzzOutcome FuzzEvaluateHloText(absl::string_view bytes) {
  ParseOptions parse_options;
  parse_options.max_literal_bytes = kFuzzMaxBytes;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(bytes, parse_options);
  if (!module.ok()) return Refused(module.status(), "parse");
  VerifyOptions verify_options;
  verify_options.max_elements = kFuzzEvalMaxElements;
  absl::Status verified = VerifyModule(**module, verify_options);
  if (!verified.ok()) return Refused(verified, "verifier");

  const HloComputation* entry = (*module)->entry();
  if (entry == nullptr || entry->root() == nullptr) {
    FuzzOutcome out;
    out.violation = "the verifier accepted a module without an entry root";
    return out;
  }
  std::vector<Literal> args;
  for (const HloInstruction* p : entry->parameters()) {
    // The verifier bounded every shape, so these allocations are small.
    args.emplace_back(p->shape());
  }

  Evaluator first(FuzzEvaluatorOptions());
  absl::StatusOr<EvalResult> result = first.Run(**module, args);
  if (!result.ok()) return Refused(result.status(), "evaluator");

  FuzzOutcome out;
  std::vector<const Shape*> leaves;
  Leaves(entry->root()->shape(), &leaves);
  if (leaves.size() != result->outputs.size()) {
    out.violation = absl::StrCat(
        "the root ", entry->root()->shape().ToString(), " has ", leaves.size(),
        " leaves but the run returned ", result->outputs.size(), " outputs");
    return out;
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Shape& got = result->outputs[i].value.shape();
    if (!got.SameDimensions(*leaves[i])) {
      out.violation = absl::StrCat("output ", i, " has shape ", got.ToString(),
                                   " but the root's leaf ", i, " is ",
                                   leaves[i]->ToString());
      return out;
    }
  }

  // Determinism: a fresh evaluator (fresh rng state) gives the same bits.
  Evaluator second(FuzzEvaluatorOptions());
  absl::StatusOr<EvalResult> again = second.Run(**module, args);
  if (!again.ok()) {
    out.violation = absl::StrCat("a second run failed where the first passed: ",
                                 again.status().ToString());
  } else if (!again->value.BitwiseEquals(result->value)) {
    out.violation = absl::StrCat("two runs differ:\n", result->value.ToString(),
                                 "\nvs\n", again->value.ToString());
  }
  return out;
}

}  // namespace hloref
