// The kLinalg family: Cholesky and TriangularSolve (seed 001), batched
// over all but the two minor dimensions. EvalLinalg (families.h)
// dispatches to these.
//
// Numerics: both are computed in long double (complex<long double> for
// complex types; 64-bit significand on x86-64) from the exact input values
// and each output element is rounded once to the element type (round to
// odd at 53 bits first for types narrower than f64). Oracle error before
// the final rounding (Higham, Accuracy and Stability, thms 8.5 and 10.3,
// with u = 2^-64):
//   triangular-solve: |x_oracle - x| <= gamma_M(u) cond(T, x) |x| / (1 -
//     gamma_M(u) cond(T)) componentwise, cond(T, x) = || |T^-1| |T| |x| ||
//     / |x|; for well-conditioned systems (cond <= 2^8) this is below
//     2^-50 relative, so below 2^-26 ulp for f32 and below 2 ulp for f64;
//   cholesky: the factor of a matrix A + dA with |dA| <= gamma_{M+1}(u)
//     |L| |L^T|, i.e. a forward error of about M kappa(A) 2^-64 relative.
//
// Implementation-defined points (spec/impl_defined.md):
//   impl.cholesky.1  the triangle not returned (above the diagonal for
//                    lower=true, below it for lower=false): the XLA profile
//                    writes zeros (XLA's CholeskyExpander starts from
//                    ZerosLike(a)); always marked.
//   impl.cholesky.2  an input batch element that is not Hermitian positive
//                    definite as far as the oracle can tell (a pivot that is
//                    not > 0, or NaN, or a diagonal element with a non-zero
//                    imaginary part): the XLA profile writes NaN to the
//                    whole factor (XLA selects FullLike(l, NaN) when a
//                    pivot's square root is NaN); the batch element is
//                    marked.
//   impl.triangular-solve.1  a singular (zero diagonal, unit_diagonal
//                    false) or non-finite triangle of a, or non-finite b:
//                    IEEE results of substitution, the batch element of the
//                    result is marked.
#ifndef HLOREF_INTERPRETER_OPS_LINALG_H_
#define HLOREF_INTERPRETER_OPS_LINALG_H_

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
HLOREF_DECLARE_OP(Cholesky)
HLOREF_DECLARE_OP(TriangularSolve)
#undef HLOREF_DECLARE_OP

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_LINALG_H_
