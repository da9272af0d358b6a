// The kControlFlow family: Call (and CompositeCall), Conditional, While
// (seed 001) and fusion (text-format 6.8); EvalControlFlow (families.h)
// dispatches to these. Also Map (seed 001), which ops.def files under
// kReduce: EvalReduce forwards kMap here.
#ifndef HLOREF_INTERPRETER_OPS_CONTROL_FLOW_H_
#define HLOREF_INTERPRETER_OPS_CONTROL_FLOW_H_

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
HLOREF_DECLARE_OP(Call)
HLOREF_DECLARE_OP(Conditional)
HLOREF_DECLARE_OP(While)
HLOREF_DECLARE_OP(Fusion)
HLOREF_DECLARE_OP(Map)
#undef HLOREF_DECLARE_OP

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_CONTROL_FLOW_H_
