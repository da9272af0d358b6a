// The verifier: every rule the semantics state, checked once before any
// evaluation. Errors name the instruction, its location and the rule ID
// (`<op>.C<n>`), with actual vs expected values (see InstructionError).
#ifndef HLOREF_SPEC_VERIFIER_VERIFIER_H_
#define HLOREF_SPEC_VERIFIER_VERIFIER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "spec/ir/hlo_module.h"

namespace hloref {

struct VerifyOptions {
  // Reject shapes above this many elements (huge shapes fail here with a
  // clear message instead of in an allocation).
  int64_t max_elements = int64_t{1} << 32;
  // Where seed 001 and XLA disagree and hloref reads what XLA accepts
  // (issue 14), one line per such instruction, naming the disagreement:
  // "<location>: warning: [<rule>] ...". Null: not collected.
  std::vector<std::string>* warnings = nullptr;
};

// Checks the whole module: structure (one entry, parameters 0..N-1, called
// computations' signatures), then each instruction's shape against the
// inferred shape and its op's constraints.
absl::Status VerifyModule(const HloModule& module,
                          const VerifyOptions& options = {});

// Shape inference: the result shape an instruction must have given its
// operands' shapes and attributes (layouts ignored). Errors are the same
// located, rule-tagged statuses as VerifyModule's. For ops whose shape the
// text must state (parameter, constant, custom-call, infeed, rng-bit-
// generator, ...) returns the instruction's own shape after checking what
// can be checked.
absl::StatusOr<Shape> InferShape(const HloInstruction& instruction);

}  // namespace hloref

#endif  // HLOREF_SPEC_VERIFIER_VERIFIER_H_
