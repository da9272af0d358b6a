// The kShape family: shape manipulation and data movement without
// indexing. Seed 001 sections BroadcastInDim, Reshape (with Collapse and
// Transpose as its special cases), Transpose, Rev (reverse), Iota,
// GetDimensionSize, SetDimensionSize; text-format 6.4 for copy, bitcast and
// dynamic-reshape. EvalShape (families.h) dispatches to these.
#ifndef HLOREF_INTERPRETER_OPS_SHAPE_H_
#define HLOREF_INTERPRETER_OPS_SHAPE_H_

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
HLOREF_DECLARE_OP(BroadcastInDim)
HLOREF_DECLARE_OP(Reshape)
HLOREF_DECLARE_OP(Transpose)
HLOREF_DECLARE_OP(Rev)
HLOREF_DECLARE_OP(Iota)
HLOREF_DECLARE_OP(Copy)
HLOREF_DECLARE_OP(Bitcast)
HLOREF_DECLARE_OP(GetDimensionSize)
HLOREF_DECLARE_OP(SetDimensionSize)
HLOREF_DECLARE_OP(DynamicReshape)
#undef HLOREF_DECLARE_OP

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_SHAPE_H_
