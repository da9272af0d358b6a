// The kBatchNorm family: BatchNormTraining, BatchNormInference and
// BatchNormGrad (seed 001), evaluated from the seed's formulas directly,
// not through a decomposition into other ops. EvalBatchNorm (families.h)
// dispatches to these.
//
// Numerics (docs/numerics.md decision 4): the per-feature sums (sum x,
// sum (x - c)^2, sum dy, sum dy (x - mu)) are accumulated exactly
// (ExactSum, with error-free splits of x - c), the statistics and
// normalisations are then evaluated in long double (64-bit significand on
// x86-64) and each output is rounded once to its element type (round to
// odd at 53 bits first for narrower types). Error of the oracle before the
// final rounding, per output element:
//   batch_mean, batch_var, grad_offset: relative <= 2^-61 (grad_offset is
//     the correctly rounded exact sum);
//   output, grad_scale: absolute <= 2^-60 * (|t| + |beta|), t the term
//     before the offset, for finite inputs;
//   grad_operand: absolute <= 2^-59 * |gamma / sqrt(var + eps)| *
//     (|dy| + |d| + |c (x - mu)|).
// For f32 and narrower outputs these are far below half an ulp, so the
// value is the correctly rounded exact formula except within 2^-36 ulp of
// a rounding boundary; for f64 outputs the value is within 0.5 + 2^-7 ulp
// of the exact formula (plus the absolute terms under cancellation).
//
// Error data (EvaluatorOptions::compute_error_data, numerics.md 7.3): for
// batch_mean S = sum |x| / N and m = N; for grad_offset S = sum |dy| and
// m = N - 1 (N elements per feature).
#ifndef HLOREF_INTERPRETER_OPS_BATCH_NORM_H_
#define HLOREF_INTERPRETER_OPS_BATCH_NORM_H_

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
HLOREF_DECLARE_OP(BatchNormTraining)
HLOREF_DECLARE_OP(BatchNormInference)
HLOREF_DECLARE_OP(BatchNormGrad)
#undef HLOREF_DECLARE_OP

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_BATCH_NORM_H_
