// The kSort family: Sort (seed 001) and topk (text-format 6.6). EvalSort
// (families.h) is both the family entry point and the Sort evaluator.
#ifndef HLOREF_INTERPRETER_OPS_SORT_H_
#define HLOREF_INTERPRETER_OPS_SORT_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "interpreter/ops/eval_context.h"
#include "interpreter/ops/families.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {

#define HLOREF_DECLARE_OP(Name)                                              \
  absl::StatusOr<Literal> Eval##Name(                                        \
      const HloInstruction& inst, absl::Span<const Literal* const> operands, \
      EvalContext& ctx);
HLOREF_DECLARE_OP(TopK)
#undef HLOREF_DECLARE_OP
// EvalSort is declared in families.h.

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_SORT_H_
