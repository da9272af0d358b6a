// Scalar floating-point helpers of the element-wise families: IEEE tests
// (NaN, inf, finite), XLA's NaN-propagating maximum/minimum, calls of the C
// math library, and the one rounding of a wide result to a float type.
// Every helper emits plain IEEE operations (no fast-math flags, no FMA).
#ifndef HLOREF_BACKENDS_CODEGEN_MATH_IR_H_
#define HLOREF_BACKENDS_CODEGEN_MATH_IR_H_

#include <functional>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "spec/types/primitive_type.h"

namespace llvm {
class Type;
class Value;
}  // namespace llvm

namespace hloref::codegen {

class EmitContext;

// A scalar function of an element-wise op: the result's compute value from
// the operands' compute values (llvm_types.h), emitted at the builder.
using ScalarFn = std::function<llvm::Value*(
    EmitContext& ctx, absl::Span<llvm::Value* const> args)>;

// A floating-point constant of `type` (float or double).
llvm::Value* FpConst(llvm::Type* type, double v);

llvm::Value* EmitIsNan(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitIsInf(EmitContext& ctx, llvm::Value* x);
// Neither NaN nor +-inf.
llvm::Value* EmitIsFinite(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitFabs(EmitContext& ctx, llvm::Value* x);
// |magnitude| with the sign of `sign`.
llvm::Value* EmitCopySign(EmitContext& ctx, llvm::Value* magnitude,
                          llvm::Value* sign);

// XLA's non-fast maximum / minimum (IEEE 754-2019 maximum/minimum): NaN if
// either operand is NaN (the first NaN operand is returned), -0 < +0.
llvm::Value* EmitXlaMaximum(EmitContext& ctx, llvm::Value* a, llvm::Value* b);
llvm::Value* EmitXlaMinimum(EmitContext& ctx, llvm::Value* a, llvm::Value* b);

// A call of the C math library function `name` (e.g. "exp", "atan2"):
// every argument and the result have the type of args[0].
llvm::Value* EmitMathCall(EmitContext& ctx, absl::string_view name,
                          absl::Span<llvm::Value* const> args);

// x (float or double) as a double (exact).
llvm::Value* EmitToDouble(EmitContext& ctx, llvm::Value* x);
// A float or double value rounded once to the float type `type`, returned
// as `type`'s compute value (double for f64, float otherwise).
llvm::Value* EmitRoundToFloat(EmitContext& ctx, PrimitiveType type,
                              llvm::Value* x);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_MATH_IR_H_
