// The kTupleToken family, values without arithmetic: seed 001 sections
// Tuple, GetTupleElement, AfterAll, OptimizationBarrier; text-format 4
// (constant) and 6.8 (parameter, add-dependency, domain). EvalTupleToken
// (families.h) dispatches to these.
#ifndef HLOREF_INTERPRETER_OPS_TUPLE_TOKEN_H_
#define HLOREF_INTERPRETER_OPS_TUPLE_TOKEN_H_

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
HLOREF_DECLARE_OP(Constant)
HLOREF_DECLARE_OP(Parameter)
HLOREF_DECLARE_OP(Tuple)
HLOREF_DECLARE_OP(GetTupleElement)
HLOREF_DECLARE_OP(AfterAll)
HLOREF_DECLARE_OP(AddDependency)
HLOREF_DECLARE_OP(OptimizationBarrier)
HLOREF_DECLARE_OP(Domain)
#undef HLOREF_DECLARE_OP

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_TUPLE_TOKEN_H_
