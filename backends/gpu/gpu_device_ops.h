// Device implementations of what the CPU backend computes in its runtime
// (backends/cpu/runtime), for the GPU target (gpu_emitter.cc dispatches
// here):
//   complex transcendentals and complex pow: the EmitContext::complex_math
//     hook, emitted inline in double with libdevice's real functions
//     (the CPU runtime computes the same functions in long double).
// Everything here is target-independent LLVM IR built with codegen's
// helpers; C math library calls are renamed to libdevice by the GPU
// emitter (and resolve to the host's libm when a test JITs the same IR on
// the CPU).
#ifndef HLOREF_BACKENDS_GPU_GPU_DEVICE_OPS_H_
#define HLOREF_BACKENDS_GPU_GPU_DEVICE_OPS_H_

#include <cstdint>
#include <utility>

#include "absl/types/span.h"
#include "backends/codegen/emit_context.h"

namespace hloref::gpu {

// The complex_math hook (codegen/complex_ir.h's ComplexFn numbering) of the
// GPU target: `parts` are doubles (re, im; for kPow the base's then the
// exponent's); returns {re, im} as doubles.
std::pair<llvm::Value*, llvm::Value*> EmitDeviceComplexMath(
    codegen::EmitContext& ctx, int32_t fn,
    absl::Span<llvm::Value* const> parts);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_DEVICE_OPS_H_
