// The kSlicing family: Slice, DynamicSlice and DynamicUpdateSlice (seed
// 001). EvalSlicing (families.h) dispatches to these.
#ifndef HLOREF_INTERPRETER_OPS_SLICING_H_
#define HLOREF_INTERPRETER_OPS_SLICING_H_

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
HLOREF_DECLARE_OP(Slice)
HLOREF_DECLARE_OP(DynamicSlice)
HLOREF_DECLARE_OP(DynamicUpdateSlice)
#undef HLOREF_DECLARE_OP

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_SLICING_H_
