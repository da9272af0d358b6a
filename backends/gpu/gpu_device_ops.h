// Device implementations of what the CPU backend computes in its runtime
// (backends/cpu/runtime), for the GPU target (gpu_emitter.cc dispatches
// here):
//   complex transcendentals and complex pow: the EmitContext::complex_math
//     hook, emitted inline in double with libdevice's real functions
//     (the CPU runtime computes the same functions in long double).
//   rng-bit-generator: counter-based and element-parallel, one work item
//     per Threefry / Philox block, the CPU runtime's bits exactly.
//   sort and topk: one thread block per row, the CPU runtime's bottom-up
//     merge sort of a permutation in shared memory (the merges of a level
//     in parallel, the comparator inline), so the permutation is the CPU
//     backend's for any comparator (consistent or not).
// Everything here is target-independent LLVM IR built with codegen's
// helpers; C math library calls are renamed to libdevice by the GPU
// emitter (and resolve to the host's libm when a test JITs the same IR on
// the CPU).
#ifndef HLOREF_BACKENDS_GPU_GPU_DEVICE_OPS_H_
#define HLOREF_BACKENDS_GPU_GPU_DEVICE_OPS_H_

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/ir_value.h"
#include "spec/ir/hlo_module.h"

namespace hloref::gpu {

// The complex_math hook (codegen/complex_ir.h's ComplexFn numbering) of the
// GPU target: `parts` are doubles (re, im; for kPow the base's then the
// exponent's); returns {re, im} as doubles.
std::pair<llvm::Value*, llvm::Value*> EmitDeviceComplexMath(
    codegen::EmitContext& ctx, int32_t fn,
    absl::Span<llvm::Value* const> parts);

// One Threefry-2x32-20 block (counter c0, c1; key k0, k1; i32 values):
// the two output words.
std::pair<llvm::Value*, llvm::Value*> EmitThreefry2x32(
    codegen::EmitContext& ctx, llvm::Value* c0, llvm::Value* c1,
    llvm::Value* k0, llvm::Value* k1);
// One Philox-4x32-10 block (counter words low to high; key k0, k1).
std::array<llvm::Value*, 4> EmitPhilox4x32(codegen::EmitContext& ctx,
                                           std::array<llvm::Value*, 4> counter,
                                           llvm::Value* k0, llvm::Value* k1);

// The thread structure a device kernel's body is emitted into: on the GPU
// a grid-stride loop over the launch and a first-thread guard
// (gpu_emitter.cc); in host tests a plain loop and straight-line code.
struct DeviceLoops {
  using Body = std::function<absl::Status(llvm::Value* i)>;
  // Runs body(i) for every i64 i in [0, n), each exactly once, possibly
  // in parallel.
  std::function<absl::Status(llvm::Value* n, const Body& body)> for_each;
  // Runs body in exactly one thread of the launch.
  std::function<absl::Status(const std::function<absl::Status()>& body)> once;

  // Block-cooperative kernels (DeviceKernel::rows > 0): body(r) for every
  // row r (i64) in [0, n), each by all threads of one block (so a barrier
  // inside is reached by the whole block).
  std::function<absl::Status(llvm::Value* n, const Body& body)> for_each_row;
  // The thread's index in its block (i64) and the block's size.
  std::function<llvm::Value*()> thread;
  int64_t threads = 1;
  // A barrier of the block (bar.sync 0).
  std::function<void()> barrier;
  // A block-shared array of `count` elements of `type` (shared memory on
  // the GPU); its address.
  std::function<llvm::Value*(llvm::Type* type, int64_t count, const char* name)>
      shared_array;
  // A block-private array of `count` elements of `type` in global memory
  // (the kernel's scratch buffer, DeviceKernel::scratch_bytes_per_block
  // per block, allocated in call order); its address.
  std::function<llvm::Value*(llvm::Type* type, int64_t count, const char* name)>
      block_scratch;
  // The chunks the merges of a sort level are split into when a level has
  // fewer merges than threads (merge path); 0: the block's threads. Host
  // tests, which run one thread per block, set it to exercise the split.
  int64_t merge_split = 0;
};

// An instruction compiled to one kernel: a grid-stride kernel over
// `work_items` independent items (KernelKind::kElementwise with elements =
// work_items) when rows == 0, else one block of `threads_per_block`
// threads per row (KernelKind::kRowBlocks: the rows grid-stride over the
// blocks; work_items is then the number of results per row, written by
// thread t at positions t, t + threads, ...).
struct DeviceKernel {
  std::string name;  // part of the .entry name ("rng")
  int64_t work_items = 0;
  int64_t rows = 0;
  int64_t threads_per_block = 256;
  int64_t shared_bytes = 0;  // static shared memory the body declares
  // Global-memory scratch each block uses through DeviceLoops::
  // block_scratch (sort / topk rows too long for shared memory).
  int64_t scratch_bytes_per_block = 0;
  std::function<absl::Status(
      codegen::EmitContext& ctx, absl::Span<const codegen::IrValue> operands,
      const codegen::IrValue& output, const DeviceLoops& loops)>
      body;
};

// The device kernel of `inst` when this file implements its opcode;
// nullopt otherwise (the GPU emitter's other paths apply); an error when
// the opcode is implemented here but this instance is not (Unimplemented,
// with the reason) or is malformed.
absl::StatusOr<std::optional<DeviceKernel>> PlanDeviceKernel(
    const HloInstruction& inst);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_DEVICE_OPS_H_
