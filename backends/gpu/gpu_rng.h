// Device code of rng and rng-get-and-update-state (the CPU backend's
// runtime/rng.cc computes them on the host). Both use the module's
// generator state, a u64[3] {seed, S.low, S.high} device buffer that the
// runtime keeps between runs of the executable (GpuBuffer::Kind::kState,
// zeroed at the first run, as the CPU backend's per-executable state):
//   rng-get-and-update-state  one thread: returns S, then S += delta
//                             (mod 2^128, a negative delta steps back);
//   rng                       a grid-stride draw kernel reads S, then one
//                             thread advances S by the Philox blocks the
//                             draws used (the next kernel on the stream,
//                             so every draw saw the old S).
// The words are the CPU runtime's: word w of a run is half w % 2 of the
// Philox-4x32-10 block (key seed, counter S + w / 2); uniform draws use
// word i for element i (row-major), normal draws words 2i and 2i+1.
//   integers, pred  a + floor(W (b - a) / 2^64): the CPU's bits exactly.
//   float uniform   the CPU computes lo + U (b - a) in long double (U =
//                   2^-53 (W >> 11)) and rounds to double, then to the
//                   type; the device computes fma(U, b - a, a) in double
//                   (one rounding; b - a is exact in double for f32 and
//                   narrower bounds unless their exponents differ by more
//                   than 29; for f64 bounds whose b - a overflows,
//                   2 fma(U, b/2 - a/2, a/2)), then rounds to the type;
//                   a result that rounds up to b becomes the float below
//                   b (else a), the CPU's rule. f32 / f16 / bf16: the
//                   same bits in every draw measured (gpu_rng_test, 25,000
//                   per case); f64: within 2 ulp + 2^-62 (|a| + |b|) (the
//                   long double's roundings under cancellation), 0 to 25
//                   of 5,000 draws differ.
//   float normal    Box-Muller, mu + sigma sqrt(-2 log u1) cos(2 pi u2)
//                   with u1 = 2^-53 ((W0 >> 11) + 1), u2 = 2^-53 (W1 >> 11),
//                   in double with libdevice's log / cos (the CPU: long
//                   double): within 2^-45 (|mu| + 9 |sigma|) + 1 ulp of the
//                   type (gpu_rng_test); f32 / f16 draws measured equal.
#ifndef HLOREF_BACKENDS_GPU_GPU_RNG_H_
#define HLOREF_BACKENDS_GPU_GPU_RNG_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/ir_value.h"
#include "backends/gpu/gpu_device_ops.h"
#include "spec/ir/hlo_module.h"

namespace hloref::gpu {

// The state buffer's shape: u64[3] {seed, S.low, S.high}.
Shape RngStateShape();

// OK when `inst` (an rng) has a device implementation; Unimplemented or
// InvalidArgument (malformed) otherwise.
absl::Status CheckRng(const HloInstruction& inst);
// How far one run of `inst` (an rng) advances S: ceil(words / 2).
int64_t RngStateAdvance(const HloInstruction& inst);

// rng's draws: `a`, `b` its operands (scalar arrays), `state` the module
// state (read only), `out` its result.
absl::Status EmitRngDraws(codegen::EmitContext& ctx, const HloInstruction& inst,
                          const codegen::IrArray& a, const codegen::IrArray& b,
                          const codegen::IrArray& state,
                          const codegen::IrArray& out,
                          const DeviceLoops& loops);

// In one thread: `old` (u64[2], may be null) = S, then S += delta.
absl::Status EmitRngStateUpdate(codegen::EmitContext& ctx,
                                const codegen::IrArray& state, int64_t delta,
                                const codegen::IrArray* old,
                                const DeviceLoops& loops);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_RNG_H_
