// The dot family (seed 001 "Dot", "DotGeneral"): EvalDot in families.h is
// the entry point. This header holds what the other accumulating families
// (convolution, reduce) share with it: how the oracle accumulates and what
// error data it reports.
//
// Accumulation (docs/numerics.md decision 4): float and complex results
// are the exact sum of the exact products, rounded once (nearest-even) to
// the result type by ExactSum (exact_sum.h), so the oracle's own error is
// zero (E_orc = 0). Integer results wrap in the result width (XLA profile:
// two's-complement arithmetic, order-independent). pred results are the OR
// of the ANDs (XLA's dot emitter for PRED).
//
// Error data (EvaluatorOptions::compute_error_data, numerics.md 7.3/7.6),
// per output element of a float or complex result:
//   S (abs_sum)    = |c| + sum_i |t_i| over the exact terms t_i (products
//                    or addends) and the init/bias c, rounded toward +inf
//                    to double. For complex results each product
//                    (ar + i ai)(br + i bi) contributes the four real
//                    products: S = sum (|ar|+|ai|)(|br|+|bi|), an upper
//                    bound of sum |a||b| that bounds each component.
//   m (term_count) = the number of rounding steps on the worst path of the
//                    default algorithm derived from the HLO (inputs as
//                    typed, accumulation in the result type):
//                    (number of addends including c) - 1, plus 1 when
//                    products are rounded (result precision < the sum of
//                    the operands' precisions). Never negative. For
//                    complex results the addends per component are 2n.
// Integer and pred results are exact and get no error data.
#ifndef HLOREF_INTERPRETER_OPS_DOT_H_
#define HLOREF_INTERPRETER_OPS_DOT_H_

#include <complex>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"
#include "spec/types/primitive_type.h"

namespace hloref {

class EvalContext;  // interpreter/ops/eval_context.h

// Significand bits of a type as a multiplication operand: p for floats
// (the component type's for complex), the bit width for integers, 1 for
// pred.
int OperandPrecision(PrimitiveType type);

// m as defined above for `addends` addends (including any init/bias).
inline int64_t AccumulationSteps(int64_t addends, bool products_rounded) {
  int64_t m = addends > 0 ? addends - 1 : 0;
  if (products_rounded && addends > 0) ++m;
  return m;
}

// True when a product of an `a` and a `b` value is not exact in the
// accumulation type `acc` (the result type by default).
bool ProductsRounded(PrimitiveType a, PrimitiveType b, PrimitiveType acc);

// The offsets (in row-major elements of an array with `dims` and row-major
// `strides`) of every multi-index over the dimensions `which`, enumerated
// row-major in the order `which` lists them; empty when one of them has
// size 0, {0} when `which` is empty. Used to repack operands so that the
// accumulation loops read contiguous memory.
std::vector<int64_t> DimOffsets(absl::Span<const int64_t> dims,
                                absl::Span<const int64_t> strides,
                                absl::Span<const int64_t> which);

// The operand of a dot or convolution as exact doubles: floats, and
// integers / pred of at most 53 bits (wider ones are Unimplemented with a
// message naming the types). Shared by dot.cc and convolution.cc.
absl::StatusOr<std::vector<double>> LoadReal(const HloInstruction& inst,
                                             const Literal& lit);
// The same as complex values (a real operand gets a zero imaginary part).
absl::StatusOr<std::vector<std::complex<double>>> LoadAsComplex(
    const HloInstruction& inst, const Literal& lit);

// StoreDoubles (numerics.h, its direct rounding) of a float result into
// storage from the context (EvalContext::NewUninitialized: the storage of
// a value freed earlier in the run where the evaluator keeps one of that
// size, no zero fill, no fresh pages); `values` holds every element.
// Shared by dot.cc, convolution.cc and reduce.cc.
absl::StatusOr<Literal> StoreDoublesReusing(const Shape& shape,
                                            absl::Span<const double> values,
                                            EvalContext& ctx);

// dot's verified fast summation (two-sum with a proven error bound, exact
// accumulator where the bound cannot decide the rounding; dot.cc): tests
// switch it off to check that both give the same bits.
void SetDotFastPathDisabledForTesting(bool disabled);
bool DotFastPathDisabledForTesting();
// The fast path's vector-matrix variant (m <= 16 lhs rows, bf16 / f16 / f32
// rhs read in its own type, converted to double in registers; dot.cc):
// tests and dot_benchmark switch it off to compare with the rhs packed as
// doubles.
void SetDotRhsCodesDisabledForTesting(bool disabled);
bool DotRhsCodesDisabledForTesting();

// Outputs of vector-matrix products streamed over a row-major rhs
// (dot.cc, StreamBlock) since the process started, by the step that
// decided them: the plain sums (their a priori bound, or on AVX-512 the
// directed-rounding enclosure: `enclosed` counts those of them), the
// two-sum, ExactSum. For tests that must know the path and its fallbacks
// were taken.
struct DotStreamCounts {
  int64_t plain = 0, two_sum = 0, exact = 0, enclosed = 0;
};
DotStreamCounts GetDotStreamCounts();

// ragged-dot and scaled-dot (ragged_scaled_dot.cc; semantics and sources
// in its header comment). EvalDot dispatches to them.
class EvalContext;
absl::StatusOr<Literal> EvalRaggedDot(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx);
// scaled-dot's dequantization type D for an operand of type `operand`
// scaled by `scale` (XLA's ScaledDotRewriter; impl.scaled-dot.1): bf16
// when both are narrower than 16 bits, else their common type when equal,
// else f32 when of equal width, else the wider.
PrimitiveType ScaledDotDequantizeType(PrimitiveType operand,
                                      PrimitiveType scale);
absl::StatusOr<Literal> EvalScaledDot(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx);

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_DOT_H_
