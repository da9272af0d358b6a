// The kConcatPad family: Concatenate and Pad (seed 001). EvalConcatPad
// (families.h) dispatches to these.
#ifndef HLOREF_INTERPRETER_OPS_CONCAT_PAD_H_
#define HLOREF_INTERPRETER_OPS_CONCAT_PAD_H_

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
HLOREF_DECLARE_OP(Concatenate)
HLOREF_DECLARE_OP(Pad)
#undef HLOREF_DECLARE_OP

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_CONCAT_PAD_H_
