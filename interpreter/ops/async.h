// The kAsync family: async-start / async-update / async-done and
// copy-start / copy-done (text-format 6.13). EvalAsync (families.h)
// dispatches to these.
#ifndef HLOREF_INTERPRETER_OPS_ASYNC_H_
#define HLOREF_INTERPRETER_OPS_ASYNC_H_

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
HLOREF_DECLARE_OP(AsyncStart)
HLOREF_DECLARE_OP(AsyncUpdate)
HLOREF_DECLARE_OP(AsyncDone)
HLOREF_DECLARE_OP(CopyStart)
HLOREF_DECLARE_OP(CopyDone)
#undef HLOREF_DECLARE_OP

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_ASYNC_H_
