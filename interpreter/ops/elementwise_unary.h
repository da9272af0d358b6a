// The element-wise unary family (seed 001 "Element-wise unary functions"
// and docs/hlo-text-format.md 6.1). The entry point is
// EvalElementwiseUnary in families.h; this header records the family's
// numerics contract for readers and tests.
//
// - Real floats: loaded exactly into double, computed, rounded once to the
//   output type. abs, negate, ceil, floor, round-*, sign, real, imag are
//   exact; sqrt is IEEE in double (correctly rounded for every type,
//   decision 3); transcendentals are correctly rounded via MPFR.
// - Integers: two's-complement wrap (abs(INT_MIN) = INT_MIN), clz and
//   popcnt count within the type's width (s4 counts 4 bits).
// - Complex: see impl.complex.1 in spec/impl_defined.md.
#ifndef HLOREF_INTERPRETER_OPS_ELEMENTWISE_UNARY_H_
#define HLOREF_INTERPRETER_OPS_ELEMENTWISE_UNARY_H_

#include <cstdint>

#include "interpreter/ops/families.h"
#include "interpreter/ops/fast_round.h"

namespace hloref {

// RN_T(exp(x[i])) into r[i] for i < n (T given by f: at most 24
// significand bits), or NaN where this path does not decide it (the
// caller's libm / MPFR paths then do); returns the number of NaNs. Four
// lanes at a time in SIMD registers (AVX2 and baseline clones), without
// libm: for -700 <= x <= 700, N = round(x / ln 2), r = (x - N C1) - N C2
// (C1 + C2 = ln 2 to 2^-89; N C1 exact), y = P(r) 2^N with P the degree-12
// Taylor polynomial of e^r by Horner, the coefficients fl(1/i!).
// |r| <= 0.35, so (Higham, Accuracy and Stability, 5.1 for Horner):
// truncation |r|^13 / 13! e^|r| <= 3.5 u e^r, Horner and the coefficients
// (gamma_24 (1 + u) + u) e^|r| <= 50.4 u e^r, the reduction 0.8 u:
// |y - e^x| <= 55 u e^x < 2^-44 |y| (u = 2^-53; the 2^N scaling is exact,
// y is a normal double). RoundInCell4 with radius 2^-44 |y| then decides:
// the value is the correctly rounded exp(x). x below the underflow
// threshold (emin - precision) ln 2 - 2^-20 gives +0 (as FastMathRounded);
// other lanes (non-finite, |x| > 700, results outside the encoding
// shortcut, overflow, near a midpoint) are NaN.
int64_t ExpRoundedBlock(const double* x, int64_t n, const FastRounding& f,
                        double* r);

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_ELEMENTWISE_UNARY_H_
