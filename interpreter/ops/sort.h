// The kSort family: Sort (seed 001) and topk (text-format 6.6). EvalSort
// (families.h) is both the family entry point and the Sort evaluator.
#ifndef HLOREF_INTERPRETER_OPS_SORT_H_
#define HLOREF_INTERPRETER_OPS_SORT_H_

#include <cstdint>

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

// Sort recognises the common comparators (a compare of keys, with or
// without an index tie-break; and/or/not/xor/select of compares of
// parameters) and evaluates them natively instead of calling the
// comparator computation per comparison; results and marks are the same.
// Tests switch the recognition off to compare both paths.
void SetSortFastPathDisabledForTesting(bool disabled);
bool SortFastPathDisabledForTesting();
// How many sorts took the fast path so far (tests).
int64_t SortFastPathUsesForTesting();
// EvalSort is declared in families.h.

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_SORT_H_
