// Complex element-wise ops (c64 = {float, float}, c128 = {double, double}
// compute values). Arithmetic is emitted inline with XLA's formulas
// (numerics.md 3.4: textbook multiply, Smith division with C99 recovery,
// sign = z / |z|, abs = hypot); c64 is computed in double and rounded once
// per component. Transcendentals and pow go through the target's hook
// EmitContext::complex_math (the CPU backend calls its runtime, computed in
// long double), whose function numbering is ComplexFn below; without the
// hook those ops are unimplemented.
#ifndef HLOREF_BACKENDS_CODEGEN_COMPLEX_IR_H_
#define HLOREF_BACKENDS_CODEGEN_COMPLEX_IR_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "backends/codegen/math_ir.h"
#include "spec/ir/opcode.h"

namespace hloref::codegen {

// The complex functions of EmitContext::complex_math: unary functions of
// (re, im), and kPow of (a, b, c, d) = (a + ib)^(c + id).
enum class ComplexFn : int32_t {
  kSqrt = 0,
  kRsqrt,
  kExp,
  kExpm1,
  kLog,
  kLog1p,
  kLogistic,
  kSin,
  kCos,
  kTan,
  kTanh,
  kSinh,
  kCosh,
  kAsin,
  kAcos,
  kAsinh,
  kAcosh,
  kAtanh,
  kPow,
};

// The scalar function of a unary op on the complex type `t` (result: `t`,
// or its component type for abs / real / imag). Unimplemented for ops the
// type does not take, and for transcendentals when `ctx` has no
// complex_math hook.
absl::StatusOr<ScalarFn> ComplexUnaryFn(const EmitContext& ctx, HloOpcode op,
                                        PrimitiveType t);
// The scalar function of a binary op on two values of complex type `t`.
absl::StatusOr<ScalarFn> ComplexBinaryFn(const EmitContext& ctx, HloOpcode op,
                                         PrimitiveType t);
// compare EQ / NE on complex values (componentwise IEEE equality).
llvm::Value* EmitComplexEqual(EmitContext& ctx, llvm::Value* a, llvm::Value* b);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_COMPLEX_IR_H_
