// The operand positions of each window of a reduce-window or
// select-and-scatter (seed 001 "ReduceWindow": padding and base-dilation
// holes hold no element), shared by the oracle (interpreter/ops/reduce.cc)
// and the enclosures (interpreter/enclosure.cc).
#ifndef HLOREF_INTERPRETER_OPS_WINDOW_PLAN_H_
#define HLOREF_INTERPRETER_OPS_WINDOW_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "spec/ir/hlo_module.h"

namespace hloref {

// The in-bounds operand positions of each window: windows are indexed
// row-major over `out_dims`, and each window's positions are listed
// row-major over the window.
struct WindowPlan {
  std::vector<int64_t> start;    // per window, into `offsets`
  std::vector<int64_t> offsets;  // row-major operand offsets
};

// The plan of `inst`'s window over an operand of dimensions `dims` with
// results of dimensions `out_dims`; an error for a malformed window.
absl::StatusOr<WindowPlan> MakeWindowPlan(const HloInstruction& inst,
                                          absl::Span<const int64_t> dims,
                                          absl::Span<const int64_t> out_dims);

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_WINDOW_PLAN_H_
