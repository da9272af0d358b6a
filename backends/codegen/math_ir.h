// Scalar floating-point helpers of the element-wise families: IEEE tests
// (NaN, inf, finite), XLA's NaN-propagating maximum/minimum, calls of the C
// math library, the one rounding of a wide result to a float type, and the
// transcendental kernels for f32 and narrower results (below). Every helper
// emits plain IEEE operations (no fast-math flags, no FMA contraction, IEEE
// division and sqrt, subnormals preserved).
//
// Why the kernels are polynomials of our own, in IR, evaluated in double:
//   * Target independent: straight-line IEEE arithmetic, selects and
//     integer bit operations only (no calls, no branches, no tables), so
//     LLVM's loop vectoriser widens them on any target (8 doubles per zmm
//     on AVX-512) and the GPU backend can reuse them unchanged.
//   * Accuracy: an f32 (or narrower) argument is exact in double, and each
//     kernel's double result is within about 2^-44 relative of the exact
//     value (range reduction exact or double-double, Taylor / series
//     polynomials truncated below 2^-54). Rounded once to f32 that is
//     within 0.5 + 2^-20 ulp, far inside numerics.md's budgets (f32 exp 8,
//     log 4, sin 4 ..., f16/bf16/f8 1 ulp), and the special values come
//     out as the oracle's because they are handled explicitly.
//   * f64 results have kernels of their own (the *F64 functions below),
//     not glibc's libmvec (documented at up to 4 ulp, above the f64 budgets
//     of 2 ulp for exp, log, sin, ...): the same straight-line style, with
//     double-double steps (TwoSum, and TwoProd with an explicit llvm.fma,
//     the only FMAs emitted) wherever a plain double polynomial would lose
//     more than a fraction of an ulp, so each is within about 0.5 + 0.25
//     ulp of double. sin, cos and tan reduce |x| < 2^27 by Cody-Waite with
//     pi/2 in three 53-bit parts; larger finite arguments call the C
//     library for those lanes only (a masked call the loop vectoriser keeps
//     out of the vector path). erf reads its polynomial coefficients from a
//     table (a gather per coefficient).
//   * acos, asin, atan2 and cbrt have one kernel for every float type,
//     accurate to about 0.5 ulp of double, rounded once to the result type.
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

// ---- Transcendental kernels for f32 and narrower results.
// Every argument is a double holding a value of f32 or of a narrower float
// type (at most 24 significant bits, |x| < 2^128, or +-0, +-inf, NaN); the
// result is a double within about 2^-44 relative of the exact value (the
// subnormal results of f32 come out exact to that relative accuracy too:
// they are normal in double), meant to be rounded once to the result type.
// Results beyond f32's range are double's (exp(-800) is 0, exp(800) inf;
// f8e8m0fnu has no zero, so a zero result becomes NaN there). NaN
// arguments give NaN; the C Annex F special cases are explicit.
llvm::Value* EmitExpKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitExpm1Kernel(EmitContext& ctx, llvm::Value* x);
// exp of an f32 value (float or a vector of float) evaluated in f32 with
// fused multiply-adds: 16 lanes per AVX-512 vector where the double
// kernel above has 8 and a degree-13 polynomial (a softmax's exp took a
// quarter of multi_head_attention). Within 1 ulp of f32 (measured by
// math_kernels_test against glibc's long double expl; the suite's budget
// for f32 exp is 8 ulp), IEEE special values, overflow to inf, subnormal
// results rounded once.
llvm::Value* EmitExpKernelF32(EmitContext& ctx, llvm::Value* x);
// tanh and the logistic function of an f32 value evaluated in f32 on top
// of EmitExpKernelF32 (tanh: an odd polynomial below |x| = 0.5625, 1 -
// 2e / (1 + e) with e = exp(-2|x|) above; logistic: exp(-|x|) and one
// division). Within a few ulp of f32 (math_kernels_test measures them; the
// suite's budgets are 4 and 20 ulp), IEEE special values, signed zeros.
llvm::Value* EmitTanhKernelF32(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitLogisticKernelF32(EmitContext& ctx, llvm::Value* x);
// erf of an f32 value evaluated in f32: x (1 + R(x^2)) below |x| = 1, 1 -
// exp(-x^2) g(|x|) from there to 4 (g = exp(x^2) erfc, a polynomial;
// erf rounds to +-1 beyond 3.93). Within 1.2 ulp (math_kernels_test; the
// suite's budget is 4), 16 lanes per AVX-512 vector where the double
// kernel (a 61-term series) took 16x XLA:CPU's time on a GELU.
llvm::Value* EmitErfKernelF32(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitLogKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitLog1pKernel(EmitContext& ctx, llvm::Value* x);
// 1 / (1 + exp(-x)).
llvm::Value* EmitLogisticKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitTanhKernel(EmitContext& ctx, llvm::Value* x);
// sin, cos and tan reduce |x| modulo pi/2 exactly (a Payne-Hanek reduction
// with 216 bits of 2/pi in 24-bit pieces, each product exact in double,
// summed in double-double), so every f32 argument is accurate.
llvm::Value* EmitSinKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitCosKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitTanKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitErfKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitSinhKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitCoshKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitAsinhKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitAcoshKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitAtanhKernel(EmitContext& ctx, llvm::Value* x);
// pow(x, y) with C Annex F's special cases (pow(x, +-0) = 1 and
// pow(1, y) = 1 even for NaN, pow(-1, +-inf) = 1, NaN for a negative
// finite base and a finite non-integer exponent, signed zeros and
// infinities for odd integer exponents).
llvm::Value* EmitPowKernel(EmitContext& ctx, llvm::Value* x, llvm::Value* y);

// ---- Kernels for f64 results: double argument, double result within
// about 0.5 + 0.25 ulp (measured: math_kernels_f64_test.cc), IEEE special
// values, overflow, underflow and subnormal results as the C library's.
llvm::Value* EmitExpKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitExpm1KernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitLogKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitLog1pKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitLogisticKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitTanhKernelF64(EmitContext& ctx, llvm::Value* x);
// |x| >= 2^27 (finite): a call of hloref_cpu_{sin,cos,tan}_f64 (the CPU
// runtime's scalar fallbacks) for those lanes only.
llvm::Value* EmitSinKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitCosKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitTanKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitErfKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitSinhKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitCoshKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitAsinhKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitAcoshKernelF64(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitAtanhKernelF64(EmitContext& ctx, llvm::Value* x);
// pow with the Annex F cases of EmitPowKernel.
llvm::Value* EmitPowKernelF64(EmitContext& ctx, llvm::Value* x, llvm::Value* y);

// ---- Kernels for every float type: double arguments (any double), a
// double result within about 0.5 + 2^-8 ulp of double, rounded once to
// the result type by the caller.
llvm::Value* EmitAcosKernel(EmitContext& ctx, llvm::Value* x);
llvm::Value* EmitAsinKernel(EmitContext& ctx, llvm::Value* x);
// atan2(y, x) with C Annex F's zeros and infinities of both signs.
llvm::Value* EmitAtan2Kernel(EmitContext& ctx, llvm::Value* y, llvm::Value* x);
llvm::Value* EmitCbrtKernel(EmitContext& ctx, llvm::Value* x);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_MATH_IR_H_
