// Custom-call targets that XLA treats as annotations: its pipeline removes
// them (forwarding the single operand to the users) or rewrites them away
// before code generation, so in a dump they stand for the identity of
// their operand. JAX emits some of them even for one device (`Sharding`
// for every with_sharding_constraint / jit in_shardings, the shard_map
// pair SPMDFullToShardShape / SPMDShardToFullShape, host offloading's
// MoveToHost / MoveToDevice). docs/real-dumps.md lists each target with
// where XLA handles it.
//
// The oracle (interpreter/ops/custom_call.cc), the CPU backend
// (backends/cpu/emitters/custom_call.cc) and the verifier
// (spec/verifier/custom_call.cc) read this one list.
#ifndef HLOREF_SPEC_IR_ANNOTATION_CUSTOM_CALLS_H_
#define HLOREF_SPEC_IR_ANNOTATION_CUSTOM_CALLS_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "spec/ir/hlo_module.h"

namespace hloref {

struct AnnotationCustomCall {
  absl::string_view target;  // custom_call_target, exact spelling
  absl::string_view origin;  // what emits it and which XLA pass removes it
};

// Every annotation target, in the order docs/real-dumps.md lists them.
absl::Span<const AnnotationCustomCall> AnnotationCustomCalls();

// The entry for `target`, or null when it is not an annotation.
const AnnotationCustomCall* FindAnnotationCustomCall(absl::string_view target);

// Whether `inst` is a custom-call whose target is an annotation.
bool IsAnnotationCustomCall(const HloInstruction& inst);

// The rule an annotation custom-call obeys to be the identity of its
// operand (XLA forwards the operand to the users, which is only valid
// when nothing changes): exactly one operand, and the result has the
// operand's element type and dimensions (layouts may differ; the value is
// copied into the result's layout). InvalidArgument otherwise, naming the
// target and both shapes (callers prefix the instruction's name); a shape
// change (what SPMDFullToShardShape does under SPMD partitioning with several
// partitions) is explained as such.
absl::Status CheckAnnotationCustomCall(const HloInstruction& inst);

// How many annotation custom-calls of each target `module` holds (every
// computation), for the note `hloref run` prints once.
std::map<std::string, int64_t> CountAnnotationCustomCalls(
    const HloModule& module);

// "Sharding (3), MoveToHost (1)": the counts as one line.
std::string AnnotationCountsToString(
    const std::map<std::string, int64_t>& counts);

}  // namespace hloref

#endif  // HLOREF_SPEC_IR_ANNOTATION_CUSTOM_CALLS_H_
