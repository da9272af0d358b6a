// Bounded dynamic shapes (`f32[<=8,3]`) in the code generator: the rules
// the computation emitter applies to an instruction whose operands or
// result have dynamic dimensions, the oracle's rules
// (interpreter/dynamic_sizes.h and the family files it names) compiled:
//  - A value is its bounds' buffer (padding included) and rank i64 runtime
//    sizes (ir_value.h).
//  - Ops that honour runtime sizes (element-wise ops and map, broadcast,
//    transpose, reshape, copy, slice, concatenate, reduce,
//    get/set-dimension-size, dynamic-reshape; tuples, calls, control flow
//    and fusion pass values with their sizes): the result's sizes and
//    contents are the oracle's. Element-wise ops, broadcast, transpose and
//    slice compute every element of the bounds (the padding of a result
//    is don't-care; a static result dimension that reads padding gets what
//    the oracle's evaluation of the same bounds gets); reshape of a padded
//    value and concatenate move the valid elements and zero the padding,
//    reduce folds the valid elements and leaves padded outputs zero, as
//    the oracle does.
//  - Every other op: its static code over the bounds, after a run-time
//    check that no operand has padding (runtime size below a bound), which
//    fails the run with Unimplemented as the oracle does
//    (CheckPaddedOperands); its dynamic result dimensions get their bounds
//    as runtime sizes.
//  - Run-time errors carry the oracle's class: OutOfRange for operands
//    whose runtime sizes disagree (impl.dynamic.2) and sizes out of range
//    (impl.dynamic.3), Unimplemented for padding that reaches an op that
//    does not handle it (EmitContext::report_error_code).
#ifndef HLOREF_BACKENDS_CODEGEN_DYNAMIC_SHAPES_H_
#define HLOREF_BACKENDS_CODEGEN_DYNAMIC_SHAPES_H_

#include "absl/status/statusor.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/ir_value.h"
#include "spec/ir/hlo_module.h"

namespace hloref::codegen {

// What the rules need from the computation emitter.
class DynamicShapeHost {
 public:
  virtual ~DynamicShapeHost() = default;
  // The value of an operand; null when it is inlined into its consumer
  // (only static values are: fusion.h).
  virtual const IrValue* MaterializedValue(const HloInstruction& inst) = 0;
  // Allocates `inst`'s own buffers (and runtime sizes for its dynamic
  // leaves), records them as its value and returns them.
  virtual IrValue DefineOwnedValue(const HloInstruction& inst) = 0;
  // Emits `inst` as for static shapes (over the bounds) and records its
  // value.
  virtual absl::Status EmitStatic(const HloInstruction& inst) = 0;
  // Records `value` as `inst`'s value.
  virtual void SetValue(const HloInstruction& inst, IrValue value) = 0;
};

// Whether `inst` or one of its operands has a dynamic dimension (or is one
// of the ops that make runtime sizes).
bool NeedsDynamicShapeRules(const HloInstruction& inst);

// Emits `inst` by the rules above when NeedsDynamicShapeRules(inst);
// returns false (nothing emitted) otherwise.
absl::StatusOr<bool> EmitDynamicShapeRules(EmitContext& ctx,
                                           const HloInstruction& inst,
                                           DynamicShapeHost& host);

// The instruction the family emitters see for `inst`: `inst` itself when
// no shape of it or its operands is dynamic, else its twin in a copy of the
// module whose shapes are the bounds (static), made once per EmitContext.
// The emitters then compute over the bounds; the rules above add the
// runtime sizes.
const HloInstruction& StaticTwin(EmitContext& ctx, const HloInstruction& inst);

// A constant with dynamic dimensions: its bounds' elements (padding as the
// literal stores it) and its runtime sizes, as globals.
absl::StatusOr<IrValue> EmitDynamicConstant(EmitContext& ctx,
                                            const Literal& literal,
                                            const Shape& shape);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_DYNAMIC_SHAPES_H_
