// Complex element-wise ops (c64 = {float, float}, c128 = {double, double}
// compute values). Arithmetic is emitted inline with XLA's formulas
// (numerics.md 3.4: textbook multiply, Smith division with C99 recovery,
// sign = z / |z|, abs = hypot); c64 is computed in double and rounded once
// per component. Transcendentals and pow call the target's runtime
// (`hloref_cpu_complex_unary` / `hloref_cpu_complex_pow`, computed in long
// double), whose function numbering is ComplexFn below.
#ifndef HLOREF_BACKENDS_CODEGEN_COMPLEX_IR_H_
#define HLOREF_BACKENDS_CODEGEN_COMPLEX_IR_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "backends/codegen/math_ir.h"
#include "spec/ir/opcode.h"

namespace hloref::codegen {

// The runtime's complex unary functions:
//   void hloref_cpu_complex_unary(int32_t fn, double re, double im,
//                                 double out[2]);
//   void hloref_cpu_complex_pow(double a, double b, double c, double d,
//                               double out[2]);   // (a + ib)^(c + id)
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
};

// The scalar function of a unary op on the complex type `t` (result: `t`,
// or its component type for abs / real / imag). Unimplemented for ops the
// type does not take.
absl::StatusOr<ScalarFn> ComplexUnaryFn(HloOpcode op, PrimitiveType t);
// The scalar function of a binary op on two values of complex type `t`.
absl::StatusOr<ScalarFn> ComplexBinaryFn(HloOpcode op, PrimitiveType t);
// compare EQ / NE on complex values (componentwise IEEE equality).
llvm::Value* EmitComplexEqual(EmitContext& ctx, llvm::Value* a, llvm::Value* b);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_COMPLEX_IR_H_
