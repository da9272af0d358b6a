// Host-driven control flow of a GPU program (KernelKind::kBranch, kJump),
// the way XLA:GPU runs while and conditional: the condition computation
// (or the conditional's selector) is computed by device kernels, the
// runtime copies the scalar predicate / branch index back to the host
// after synchronising the stream, and the host picks the next launch. A
// while loop is laid out as
//     copy init -> state
//   c: condition kernels -> pred
//      kBranch pred {true: b, false: e}
//   b: body kernels (reading state), copy body result -> state
//      kJump c
//   e: ...
// and a conditional as kBranch selector {b0, b1, ...}, each branch's
// kernels followed by a copy into the conditional's buffers and a kJump to
// the end. Host steps (gpu_host_steps.h) and rng (gpu_rng.h) inside bodies
// are then ordinary launches of the sequence.
//
// The runtime (gpu_backend.cc) and the host emulator of the tests walk the
// launches with the same function, WalkLaunches.
#ifndef HLOREF_BACKENDS_GPU_GPU_CONTROL_FLOW_H_
#define HLOREF_BACKENDS_GPU_GPU_CONTROL_FLOW_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/gpu/gpu_program.h"
#include "spec/types/primitive_type.h"

namespace hloref::gpu {

// The branch a selector of `type` (its storage bytes) picks among
// `branches`, the CPU backend's rule (codegen's EmitConditional, seed 001
// "Conditional"): pred true -> 0, false -> 1; an integer is sign-extended
// or truncated to 32 bits, then a value in [0, branches) picks itself and
// any other (negative too) the last branch. InvalidArgument for other
// types or too few bytes.
absl::StatusOr<int64_t> BranchIndex(PrimitiveType type,
                                    absl::Span<const uint8_t> bytes,
                                    int64_t branches);

struct LaunchWalker {
  // Runs launch `l`, a kernel or a host step.
  std::function<absl::Status(int64_t l)> run;
  // The bytes of buffer `id` once every launch run before has finished
  // (the runtime synchronises its stream, then downloads).
  std::function<absl::StatusOr<std::vector<uint8_t>>(int64_t id)> read;
};

// Runs `program`'s launches from the first, following kBranch and kJump,
// until it steps past the last. Loops have no iteration limit, as on the
// CPU backend (whose compiled while loops have none either: a condition
// that never turns false runs forever on both).
absl::Status WalkLaunches(const GpuProgram& program,
                          const LaunchWalker& walker);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_CONTROL_FLOW_H_
