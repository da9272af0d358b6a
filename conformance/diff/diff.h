// `hloref diff`: localises a miscompile (docs/architecture.md
// "conformance/"). The whole module runs on the oracle, which records the
// value of every entry instruction; then each instruction is isolated in a
// module of its own (its operands become parameters fed with the oracle's
// operand values, its called computations come along) and judged on the
// backend against the oracle with the conformance comparator. Because
// every isolated instruction sees exact inputs, the first one that fails
// is where the backend departs; errors do not cascade into later
// instructions.
//
// A failing (or unsupported) fusion or call is entered: its called computation
// becomes the entry of a module run with the oracle's operand values, and the
// search goes on inside, so a departure in an XLA dump's fused computation is
// named down to the instruction.
//
// When the whole module departs but no isolated instruction does, the
// departure needs several instructions together (a backend fusing or
// reassociating across instructions); the result says so, and
// `hloref reduce` is the tool that shrinks such a module.
#ifndef HLOREF_CONFORMANCE_DIFF_DIFF_H_
#define HLOREF_CONFORMANCE_DIFF_DIFF_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/backend.h"
#include "conformance/compare/deviations.h"
#include "conformance/diff/slice.h"
#include "conformance/harness/runner.h"
#include "interpreter/enclosure.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref::conformance {

struct DiffOptions {
  Profile profile = Profile::kXla;
  Deviations deviations;
  backends::CompileOptions compile_options;
  // Judge every instruction instead of stopping at the first departure.
  bool all = false;
  // Enter failing fusions and calls (see above).
  bool descend = true;
  // Nested fusion/call levels entered at most.
  int max_depth = 8;
  // Replicated modules: one argument list per participant (replica r,
  // partition p at r * partitions + p) instead of DiffModule's `args`,
  // which every participant gets otherwise.
  std::vector<std::vector<Literal>> participant_args;
  // The oracle's EvaluatorOptions::max_bytes (0: its default, the
  // machine's available memory).
  int64_t max_bytes = 0;
  // Judge the whole module against its whole-program enclosures first
  // (interpreter/enclosure.h; one participant, no host transfers): when
  // the per-op comparison of the whole output fails but every element
  // lies inside its enclosure with nothing unjudged, the difference is
  // fusion, FMA contraction or excess precision: say so and stop.
  bool enclosure = true;
};

// The verdict on one isolated instruction.
struct InstructionVerdict {
  // The path of computations entered to reach it, outermost first
  // ("fusion.3" when the instruction lies in fusion.3's computation);
  // empty for the top-level entry.
  std::vector<std::string> path;
  std::string name;      // without `%`
  std::string location;  // "file:12:5" when known
  HloOpcode opcode = HloOpcode::kParameter;
  Outcome outcome = Outcome::kPass;
  std::string message;  // why (fail, unsupported, skipped)
  // Failing instructions keep the isolated module and its arguments, so
  // the departure replays on its own (`hloref run`, or WriteCaseDir).
  std::string isolated_module;
  std::vector<Literal> isolated_args;  // participant 0's
  // Replicated modules: every participant's (empty otherwise).
  std::vector<std::vector<Literal>> isolated_participant_args;

  // "fusion.3/multiply.2" (the path, then the name).
  std::string QualifiedName() const;
};

// The first instruction (in the entry's order) whose backend value leaves
// the enclosure computed from its operands' backend values
// (DiffResult::enclosure_departure). Tuple-valued instructions (while,
// sort, variadic reduce, multi-output fusions) are judged leaf by leaf.
// A departing fusion or call is entered (DiffOptions::descend): its
// computation runs on the backend as a module of its own, fed the
// backend's values of the fusion's operands, and the search goes on
// inside, so the departure names the fused instruction when the backend
// reproduces it there.
struct EnclosureDeparture {
  // The fusions / calls entered to reach it, outermost first (empty: the
  // entry).
  std::vector<std::string> path;
  std::string name;      // without `%`
  std::string location;  // "file:12:5" when known
  HloOpcode opcode = HloOpcode::kParameter;
  // The instruction's own verdict: its failures and unjudged reasons.
  EnclosureVerdict verdict;
  // Instructions judged this way before it (all inside or unjudged), at
  // every level searched.
  int64_t judged_before = 0;
  // "fusion.3/multiply.2" (the path, then the name).
  std::string QualifiedName() const;
};

struct DiffResult {
  // The whole module's verdict on the backend.
  Outcome whole = Outcome::kPass;
  std::string whole_message;
  // The judged instructions in evaluation order (post order, entered
  // computations right after the instruction that calls them).
  std::vector<InstructionVerdict> instructions;
  // The whole module's outputs on the backend judged against the
  // whole-program enclosures (DiffOptions::enclosure), when computed;
  // enclosure_note says why not otherwise.
  std::optional<EnclosureVerdict> enclosure;
  std::string enclosure_note;
  // When the enclosures fail the whole module: the backend runs the module
  // once more with every array-valued entry instruction as an output, and
  // each instruction's rule is evaluated on its operands' backend values
  // (each standing for every real that rounds to it, so intermediates the
  // backend kept wider are inside: EnclosureOptions::rounded_arguments);
  // the first instruction whose backend value leaves that enclosure is
  // named here. Later instructions are judged on the departed values, so
  // the departure does not cascade. Unset with localisation_note saying
  // why when not done, or when every instruction is inside.
  std::optional<EnclosureDeparture> enclosure_departure;
  std::string localisation_note;
  // The comparator fails the whole module but the enclosures pass every
  // element: no isolation was done (instructions is empty).
  bool conforms_within_enclosures = false;
  // Index into `instructions` of the innermost first departure: the first
  // failing instruction, or, when it is a fusion/call whose computation was
  // entered and a departing instruction was found inside, that one; -1
  // when no isolated instruction fails.
  int first_departure = -1;
  // A one-paragraph conclusion for people ("%multiply.2 (12:5) departs:
  // ...", or "the module departs but no single instruction does ...").
  std::string Conclusion() const;
  // The conclusion without the enclosure summary Conclusion appends.
  std::string ConclusionWithoutEnclosure() const;
};

// Diffs `module` (verified) on `backend` with `args`. A replicated module
// runs replicated on the oracle and on the backend (which then needs
// Executable::RunReplicated, else its verdicts are unsupported), and every
// participant's values feed the isolated instructions. Errors: the module
// does not verify, the oracle cannot evaluate it (its status), a wrong
// number of per-participant argument lists.
absl::StatusOr<DiffResult> DiffModule(const HloModule& module,
                                      absl::Span<const Literal> args,
                                      backends::Backend& backend,
                                      const DiffOptions& options);
// The same, taking the arguments over: nothing copies them (the search
// lends them to each judged run and takes them back), so a module with
// gigabytes of weights holds them once.
absl::StatusOr<DiffResult> DiffModuleTakingArgs(const HloModule& module,
                                                std::vector<Literal> args,
                                                backends::Backend& backend,
                                                const DiffOptions& options);

// The module that computes `instruction` (of `module`'s entry) alone: one
// parameter per distinct operand (in operand order), named and shaped as
// that operand, the instruction as the root, the computations it calls.
absl::StatusOr<std::unique_ptr<HloModule>> IsolateInstruction(
    const HloModule& module, const HloInstruction& instruction);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_DIFF_DIFF_H_
