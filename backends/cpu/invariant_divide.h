// Division by a loop-invariant divisor as a multiply by its reciprocal
// with two FMA corrections: the same bits as the divide, at a fraction of
// its cost on wide vectors.
//
// A softmax divides every element of a row by the row's sum; after the
// loop vectoriser that is `fdiv <16 x float> %a, %splat` inside the row's
// loop, with the divisor defined outside it. vdivps on 16 lanes costs
// about as much as everything else in the loop together (perf on
// softmax_f32_64x1024 held in L2: the divide 37 % of the samples, exp 39 %).
//
// Such a divide qualifies when its divisor is invariant in the innermost
// loop around it, or when at least four divides of one block share the
// divisor (a row the vectoriser unrolled completely: attention's 256-wide
// scores). The pass computes y = RN(1/b) once, before the loop or before
// the block's first such divide, and, per vector,
//   q0 = RN(a y)
//   r0 = RN(a - q0 b)  (fma)     q1 = RN(q0 + r0 y)  (fma)
//   r1 = RN(a - q1 b)  (fma)     q2 = RN(q1 + r1 y)  (fma)
// and uses q2, which is RN(a/b) under the conditions below; any lane
// outside them sends the whole vector to the original divide.
//
// Why q2 = RN(a/b) (binary32 with u = 2^-24; binary64 alike with 2^-53):
//   * y = (1/b)(1 + e1), |e1| <= u, so q0 = (a/b)(1 + d), |d| <= 2u + u^2.
//   * r0 = (a - q0 b)(1 + e3) and y = (1/b)(1 + e1), hence
//     q0 + r0 y = a/b + (a/b - q0) e' with |e'| <= 2u + u^2: within about
//     4u^2 |a/b| of a/b, far less than half an ulp of a/b (at least
//     u |a/b|). Rounding it to q1 therefore errs by less than one ulp:
//     q1 is a faithful quotient.
//   * For a faithful quotient q1 and no underflow, a - q1 b is a
//     floating-point number, so the fma computes r1 exactly.
//   * Markstein's theorem (Muller et al., Handbook of Floating-Point
//     Arithmetic, the chapter on division with an FMA): if y is within
//     half an ulp of 1/b, q is faithful to a/b and r = a - q b exactly,
//     then RN(q + r y) = RN(a/b).
// One correction (q1) alone would need q0 faithful, which it is not
// always (it can be off by 1.5 ulp near the top of a binade), hence two.
//
// The conditions, checked per lane with integer operations on the bits:
//   * b in [2^-E, 2^E] in magnitude (once, before the loop) and a in
//     [2^-E, 2^E] in magnitude, E = 60 for binary32 and 500 for binary64:
//     then a/b lies in [2^-2E, 2^2E], normal and finite; a - q1 b is a
//     multiple of 2^(e_a - 2p + 1) (p the precision), which is above the
//     smallest subnormal, so the remainder is representable; no product
//     or sum overflows.
//   * or a = +0 exactly (softmax's exp underflows to +0; masked scores):
//     q0 = 0 * y is a zero of b's sign, the remainders are +0 and
//     q2 = q0, which is +0 / b. (-0 would give +0 through the
//     corrections, so -0 lanes take the divide.)
//   NaN, infinity, zero divisors and subnormal or extreme operands all
//   fail the checks and take the divide: the rewrite never changes a bit.
//
// Only divides on vectors of at least 256 bits are rewritten (the scalar
// and 128-bit divide costs about as much as the sequence), in functions
// whose target features include FMA.
#ifndef HLOREF_BACKENDS_CPU_INVARIANT_DIVIDE_H_
#define HLOREF_BACKENDS_CPU_INVARIANT_DIVIDE_H_

#include <cstdint>

namespace llvm {
class Module;
}  // namespace llvm

namespace hloref::cpu {

// Whether jit.cc runs the rewrite: HLOREF_CPU_INVARIANT_DIVIDE is not "0"
// (read at each call: a switch for measurements and for the tests that
// compare the two ways).
bool UseInvariantDivideRewrite();

// Rewrites every qualifying divide of `module` (after the optimisation
// pipeline: the loops are vectorised and the divisor hoisted). Returns the
// number of divides rewritten.
int64_t RewriteInvariantDivides(llvm::Module& module);

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_INVARIANT_DIVIDE_H_
