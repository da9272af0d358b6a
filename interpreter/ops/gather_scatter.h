// The kGatherScatter family: Gather and Scatter (seed 001 "Gather",
// "Scatter", with the batching dimensions of docs/hlo-text-format.md 6.7).
// EvalGatherScatter (families.h) dispatches to these.
//
// Implementation-defined points (spec/impl_defined.md):
//   impl.gather.1   indices_are_sorted=true but the start indices are not
//                   sorted: the whole result is marked.
//   impl.gather.2   a collapsed or batching dimension with slice size 0 and
//                   a non-empty result: zeros, marked.
//   impl.scatter.1  an update window that is partially out of bounds: the
//                   XLA profile skips the whole window; the elements the
//                   seed's per-element rule would update are marked.
//   impl.scatter.2  an element updated more than once by a combiner whose
//                   result depends on the order (inexact, non-commutative
//                   or not detected): marked.
//   impl.scatter.3  unique_indices=true but an element is updated more
//                   than once: marked.
//   impl.scatter.4  indices_are_sorted=true but the indices are not sorted:
//                   the whole result is marked.
#ifndef HLOREF_INTERPRETER_OPS_GATHER_SCATTER_H_
#define HLOREF_INTERPRETER_OPS_GATHER_SCATTER_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "interpreter/ops/eval_context.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {

#define HLOREF_DECLARE_OP(Name)                                              \
  absl::StatusOr<Literal> Eval##Name(                                        \
      const HloInstruction& inst, absl::Span<const Literal* const> operands, \
      EvalContext& ctx);
HLOREF_DECLARE_OP(Gather)
HLOREF_DECLARE_OP(Scatter)
#undef HLOREF_DECLARE_OP

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_GATHER_SCATTER_H_
