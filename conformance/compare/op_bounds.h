// Bounds of the ops whose error is not element-local and that the oracle
// computes in wide precision (interpreter/ops/fft.h, linalg.h,
// batch_norm.h): fft (FFT_BOUND, fft_bound.cc), cholesky (BACKWARD_ERROR,
// backward_error.cc), triangular-solve (FORWARD_ERROR, backward_error.cc)
// and batch-norm-{training,inference,grad} (BATCH_NORM_BOUND,
// batch_norm_bound.cc). docs/numerics.md prescribes masking for the
// implementation-defined parts (3.9, class M) and class A for the
// batch-norm statistics (7.3) but no formula for the rest; the formulas,
// with their derivations, are in the comments of each file and in
// conformance/compare/README.md.
//
// Each judge sees the op's operands (parameters or constants of the
// module; without them the output is judged ANY and the rule says why),
// the oracle's value of the output and, where the check is on a residual
// rather than on a value, the backend's value. It returns a per-element
// absolute half-width around the oracle's value (per component for
// complex elements), or per-element judgements.
#ifndef HLOREF_CONFORMANCE_COMPARE_OP_BOUNDS_H_
#define HLOREF_CONFORMANCE_COMPARE_OP_BOUNDS_H_

#include <string>
#include <vector>

#include "conformance/compare/deviations.h"
#include "conformance/compare/verdict.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref::conformance {

struct OpBoundContext {
  const HloInstruction* inst = nullptr;
  int op_output = 0;  // which output of the op (batch-norm tuples)
  // The op's operand values; null where the operand is not a parameter
  // or a constant of the module.
  std::vector<const Literal*> operands;
  const Literal* oracle = nullptr;     // the oracle's value of the output
  const Literal* dont_care = nullptr;  // the oracle's marks, may be null
  const Literal* got = nullptr;        // the backend's value
  const Deviations* deviations = nullptr;
  double rsqrt_ulps = 2;  // the rsqrt budget of the output type (7.3)
};

struct OpBounds {
  // False: the op could not be judged (operands unknown, unsupported
  // layout); `rule` says why and every element is ANY.
  bool ok = false;
  std::string rule;  // "FFT_BOUND (...)": the formula and its parameters
  // Per element of the output: the absolute half-width around the
  // oracle's value (each component of a complex element), the oracle's
  // own rounding not included. NaN: ANY for that element (the reason is
  // in any_reason); +inf: a NaN of the oracle requires a NaN, any other
  // value is ANY (non-finite data whose result depends on the order).
  std::vector<double> bound;
  std::string any_reason;
  // Residual judges (cholesky): one judgement per element instead of
  // `bound` (empty otherwise).
  std::vector<Judgement> judgements;
  // With judgements: |residual| / bound per element (the margin, 7.9).
  std::vector<double> margin;
};

// The constant of the flush/subnormal floor: min normal of `type` when
// FTZ is declared for it, else its smallest subnormal.
double TinyOf(PrimitiveType type, const Deviations& deviations);

OpBounds FftBounds(const OpBoundContext& ctx);
OpBounds CholeskyBackwardError(const OpBoundContext& ctx);
OpBounds TriangularSolveBounds(const OpBoundContext& ctx);
OpBounds BatchNormBounds(const OpBoundContext& ctx);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_COMPARE_OP_BOUNDS_H_
