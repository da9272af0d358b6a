// The element-wise binary family (seed 001 "Element-wise binary arithmetic
// operations", plus mulhi). The entry point is EvalElementwiseBinary in
// families.h; this header records the numerics contract.
//
// - Real floats: +, -, *, / in double rounded once (correctly rounded for
//   every type, decision 3); remainder is fmod (exact); pow and atan2 are
//   correctly rounded (MPFR, C Annex F special cases); maximum/minimum
//   propagate NaN and order -0 < +0 (impl.maximum.1, impl.minimum.1).
// - Integers: wrap; x / 0 = -1, INT_MIN / -1 = INT_MIN, x % 0 = x,
//   INT_MIN % -1 = 0; shifts by >= width (amount read unsigned) give 0 or
//   the sign fill; pow per XLA (impl.power.1, impl.power.2).
// - Complex: textbook multiply, Smith division with C99 recovery, XLA's
//   pow formula (numerics.md 3.4).
#ifndef HLOREF_INTERPRETER_OPS_ELEMENTWISE_BINARY_H_
#define HLOREF_INTERPRETER_OPS_ELEMENTWISE_BINARY_H_

#include "interpreter/ops/families.h"

namespace hloref {

// Real-float add, subtract, multiply, divide, remainder, maximum and
// minimum with a result of the operands' type run fused over the
// literals' storage and split across EvaluatorOptions::threads; the same
// per-element computation as the general path. Tests switch the fused path
// off to compare both.
void SetElementwiseFusedPathDisabledForTesting(bool disabled);
bool ElementwiseFusedPathDisabledForTesting();

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_ELEMENTWISE_BINARY_H_
