// The annotation custom-call targets (see annotation_custom_calls.h).
#include "spec/ir/annotation_custom_calls.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloref {
namespace {

// Sources (XLA, openxla/xla): ShardingRemover (xla/service/
// sharding_remover.cc) forwards the operand of "Sharding",
// "SPMDShardToFullShape", "SPMDFullToShardShape" and Shardy's
// "xla.sdy.FuncResultSharding" to the users; the host-offloading
// annotations are declared in xla/service/
// host_memory_offload_annotations.h ("annotate_device_placement" is the
// external form the converter turns into the internal MoveToHost /
// MoveToDevice / PinToDevice / PinToDeviceSram, which host offloading
// then removes); "LayoutConstraint" is JAX's with_layout_constraint,
// which layout assignment consumes (Shardy lists it, with the offloading
// targets, among the pointwise custom-calls).
constexpr std::array<AnnotationCustomCall, 10> kTargets = {{
    {"Sharding",
     "sharding annotation (jax.lax.with_sharding_constraint, jit "
     "in/out_shardings); XLA's ShardingRemover forwards the operand"},
    {"SPMDFullToShardShape",
     "shard_map entry; with one partition the shard is the whole value "
     "(ShardingRemover)"},
    {"SPMDShardToFullShape",
     "shard_map exit; with one partition the identity (ShardingRemover)"},
    {"xla.sdy.FuncResultSharding",
     "Shardy's round-trip holder of a result sharding (ShardingRemover)"},
    {"MoveToHost",
     "host offloading: move to host memory (host_memory_offload_"
     "annotations.h); the value is unchanged"},
    {"MoveToDevice",
     "host offloading: move to device memory; the value is unchanged"},
    {"PinToDevice", "host offloading: keep in device memory"},
    {"PinToDeviceSram", "host offloading: keep in device SRAM"},
    {"annotate_device_placement",
     "JAX's memory-kind placement (_xla_buffer_placement), rewritten to "
     "MoveToHost / MoveToDevice by XLA"},
    {"LayoutConstraint",
     "JAX's with_layout_constraint; layout assignment takes the layout, "
     "the value is unchanged"},
}};

}  // namespace

absl::Span<const AnnotationCustomCall> AnnotationCustomCalls() {
  return kTargets;
}

const AnnotationCustomCall* FindAnnotationCustomCall(absl::string_view target) {
  for (const AnnotationCustomCall& t : kTargets) {
    if (t.target == target) return &t;
  }
  return nullptr;
}

bool IsAnnotationCustomCall(const HloInstruction& inst) {
  return inst.opcode() == HloOpcode::kCustomCall &&
         FindAnnotationCustomCall(inst.attrs().custom_call_target) != nullptr;
}

absl::Status CheckAnnotationCustomCall(const HloInstruction& inst) {
  const std::string& target = inst.attrs().custom_call_target;
  if (inst.operand_count() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom-call target \"", target,
        "\" is an annotation XLA replaces by its operand, so it takes exactly "
        "one operand; it has ",
        inst.operand_count()));
  }
  const Shape& operand = inst.operand(0)->shape();
  if (!inst.shape().Compatible(operand)) {
    const bool spmd =
        target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape";
    return absl::InvalidArgumentError(absl::StrCat(
        "custom-call target \"", target,
        "\" is an annotation evaluated as the identity of its operand, but "
        "its shape ",
        inst.shape().ToString(false), " differs from the operand's ",
        operand.ToString(false),
        spmd ? " (a shard shape: only SPMD partitioning with several "
               "partitions changes the shape, which hloref does not do; "
               "dump the module after XLA's spmd-partitioning pass)"
             : ""));
  }
  return absl::OkStatus();
}

std::map<std::string, int64_t> CountAnnotationCustomCalls(
    const HloModule& module) {
  std::map<std::string, int64_t> counts;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (IsAnnotationCustomCall(*inst)) {
        ++counts[inst->attrs().custom_call_target];
      }
    }
  }
  return counts;
}

std::string AnnotationCountsToString(
    const std::map<std::string, int64_t>& counts) {
  return absl::StrJoin(counts, ", ", [](std::string* out, const auto& kv) {
    absl::StrAppend(out, kv.first, " (", kv.second, ")");
  });
}

}  // namespace hloref
