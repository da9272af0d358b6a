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

#include "interpreter/ops/families.h"

#endif  // HLOREF_INTERPRETER_OPS_ELEMENTWISE_UNARY_H_
