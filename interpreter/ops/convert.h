// The convert family (seed 001 "ConvertElementType", "BitcastConvertType",
// "ReducePrecision", and stochastic-convert). The entry point is
// EvalConvert in families.h; ConvertLiteral is shared with other families
// (e.g. iota of a float type is ConvertElementType of an integer iota).
//
// Contract (docs/numerics.md 3.2, spec/impl_defined.md):
// - int -> float and float -> float round once to nearest even, except
//   that f8e5m2, f8e4m3fn, f8e4m3b11fnuz and f4e2m1fn are reached through
//   f16 as XLA does (impl.convert.4, double rounding).
// - float -> int truncates, saturates, NaN -> 0 (impl.convert.1/.2);
//   float -> pred is x != 0 (NaN -> true).
// - int -> int wraps; complex -> real is an error; real -> complex has a
//   zero imaginary part.
#ifndef HLOREF_INTERPRETER_OPS_CONVERT_H_
#define HLOREF_INTERPRETER_OPS_CONVERT_H_

#include "absl/status/statusor.h"
#include "interpreter/ops/eval_context.h"
#include "interpreter/ops/families.h"
#include "spec/types/literal.h"

namespace hloref {

// ConvertElementType of an array literal to `to`. With a context, the
// implementation-defined elements are marked on leaf 0 of the current
// instruction; pass nullptr to convert without marking.
absl::StatusOr<Literal> ConvertLiteral(const Literal& operand, PrimitiveType to,
                                       EvalContext* ctx);

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_CONVERT_H_
