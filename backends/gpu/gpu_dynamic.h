// Bounded dynamic shapes (`f32[<=8,3]`) and run-time errors on the GPU:
// what the runtime (gpu_backend.cc) and the host emulation of a program
// (gpu_host_emulation.h) do with a GpuProgram's dynamic leaves.
//
// As on the CPU (codegen/ir_value.h), a dynamic array is its bounds'
// buffer (padding included) plus rank i64 runtime sizes; on the GPU the
// sizes live in a small device buffer of their own (GpuBuffer::Kind::
// kParameterSizes for parameters, a temp for results), passed to the
// kernels that read or write them like any other buffer. A module with a
// dynamic shape in an instruction that computes something runs its entry
// computation in one device thread through the shared computation emitter
// (gpu_emitter.cc, the "serial entry"), which applies codegen's dynamic
// shape rules (codegen/dynamic_shapes.h) exactly as the CPU backend does.
// Run-time errors those rules report (sizes out of range, padding that
// reaches an op that does not handle it) are written to the program's
// status buffer and become the run's status, with the oracle's class.
#ifndef HLOREF_BACKENDS_GPU_GPU_DYNAMIC_H_
#define HLOREF_BACKENDS_GPU_GPU_DYNAMIC_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/gpu/gpu_program.h"
#include "spec/types/literal.h"

namespace hloref::gpu {

// The flattened array (and token) leaves of each argument.
std::vector<std::vector<Literal>> ArgumentLeaves(
    absl::Span<const Literal> args);

// The bytes to upload into parameter buffer `b` (kParameter: the leaf in
// the buffer's physical layout; kParameterSizes: the leaf's runtime sizes
// as i64). A leaf of a dynamic parameter may be a static array within the
// bounds (Literal::ToBoundedDynamic, as the CPU backend takes it).
// InvalidArgument when the argument does not fit the parameter.
absl::StatusOr<std::vector<uint8_t>> ParameterBytes(
    const GpuBuffer& b, const std::vector<std::vector<Literal>>& leaves);

// The run's status from the status buffer's word (0: OK).
absl::Status RunStatus(const GpuProgram& program, int32_t status_word);

// Result leaf of shape `s` from its buffer's physical bytes and, for a
// dynamic shape, its runtime sizes (Internal when one lies outside its
// bound).
absl::StatusOr<Literal> ResultLeaf(const Shape& s, const uint8_t* bytes,
                                   const int64_t* sizes);

// Whether any array leaf of `shape` has a dynamic dimension.
bool HasDynamicLeaf(const Shape& shape);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_DYNAMIC_H_
