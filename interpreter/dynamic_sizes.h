// Runtime sizes of bounded dynamic dimensions (`f32[<=10]`) in the
// evaluator: which ops accept operands with padding, how results get their
// runtime sizes, and the don't-care rule for padding.
//
// The model (spec/types/literal.h): a value of a shape with dynamic
// dimensions carries one runtime size per dimension; storage stays at the
// bounds; elements beyond a runtime size are padding and not part of the
// value. The rules, following XLA's dynamic padder and dynamic dimension
// inference (the semantics the seeds leave to "tracked by the compiler"):
//  - set-dimension-size sets a size, get-dimension-size reads one,
//    dynamic-reshape reshapes the valid elements (row-major) to the sizes it
//    is given.
//  - Element-wise ops (the element-wise unary/binary, compare/select/clamp
//    and convert families, and map): the result has the operands' runtime
//    sizes. Operands whose dimension is dynamic must agree there
//    (impl.dynamic.2: XLA assumes equal sizes; disagreeing sizes are an
//    OutOfRange error); a static operand dimension takes the dynamic
//    operand's size, its elements beyond it are ignored.
//  - reduce folds only valid elements; slice, concatenate, broadcast,
//    transpose and reshape carry sizes as their family files state.
//  - Any other op given an operand with padding is Unimplemented (the
//    op's XLA semantics on padded values is not modelled), never silently
//    wrong.
//  - Padding of a result is don't-care (impl.dynamic.1): the evaluator
//    masks the padding of each output leaf; it does not propagate, since
//    ops that honour runtime sizes never read it. An op that reads padding
//    into a static result dimension (a partial slice of a dynamic
//    dimension, as XLA allows) marks those elements impl.dynamic.1, and that
//    mark propagates like any implementation-defined value.
// Entry arguments: Evaluator::Run accepts, for a parameter with dynamic
// dimensions, either a literal of that shape (with its runtime sizes) or a
// literal of a static shape whose dynamic dimensions lie within the bounds
// (Literal::ToBoundedDynamic): `f32[3] {1, 2, 3}` for `f32[<=10]` is the
// value with runtime size 3.
#ifndef HLOREF_INTERPRETER_DYNAMIC_SIZES_H_
#define HLOREF_INTERPRETER_DYNAMIC_SIZES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "interpreter/ops/eval_context.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {

// Elements read from padding, and padding of results.
inline constexpr absl::string_view kPaddingImplId = "impl.dynamic.1";
// Operands of one op disagreeing on a dynamic dimension's runtime size.
inline constexpr absl::string_view kSizeMismatchImplId = "impl.dynamic.2";

// Whether the evaluator of `op` honours runtime sizes of its operands.
bool HandlesPaddedOperands(HloOpcode op);
// IsElementwiseForSizes (spec/ir/opcode.h): EvaluatorImpl sets the
// result's sizes of those ops with PropagateElementwiseSizes.

// Before evaluating `inst`: Unimplemented, naming the op and the operand,
// when an operand has padding and the op does not honour runtime sizes.
absl::Status CheckPaddedOperands(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands);

// The common runtime size of dimension `dim` over the operands whose
// dimension `dim` is dynamic (the bound `bound` when none is); OutOfRange
// (impl.dynamic.2) naming both sizes when they disagree. Operands of
// another rank than `rank` are skipped (scalars broadcast by select/clamp).
absl::StatusOr<int64_t> CommonRuntimeSize(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    int64_t rank, int64_t dim, int64_t bound);

// Makes the dimensions that are dynamic in `shape` (the instruction's
// result shape, same dimensions) dynamic in `result` too, recursively for
// tuples; families that build results from static shapes get the
// instruction's dynamism this way.
void AdoptDynamicDimensions(const Shape& shape, Literal& result);

// Gives `result` (leaf `leaf` of the current instruction's result, whose
// shape is `shape`) the runtime sizes `sizes`, one per dimension (clamped
// to the bounds): a dimension dynamic in `shape` takes its size; a static
// dimension whose size is smaller means the op read padding into a static
// dimension, and the elements beyond it are marked impl.dynamic.1 through
// `ctx`.
void ApplyRuntimeSizes(const Shape& shape, absl::Span<const int64_t> sizes,
                       Literal& result, EvalContext& ctx, int64_t leaf = 0);

// After an element-wise op: result dimension d gets CommonRuntimeSize over
// the operands (operands of a different rank, as bitcast-convert to a
// narrower type gives, map their dimensions to the leading result
// dimensions). No-op when no operand has a dynamic dimension.
absl::Status PropagateElementwiseSizes(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    Literal& result, EvalContext& ctx);

// Row-major flags, one per element of `leaf` (an array literal): true for
// padding. Empty when the leaf has none.
std::vector<bool> PaddingFlags(const Literal& leaf);

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_DYNAMIC_SIZES_H_
