// Collectives, replica-id and partition-id of replicated modules
// (replica_count * num_partitions = R > 1) emulated on one device.
//
// The participants are the R threads of one block running the serial
// entry (gpu_emitter.cc): thread t is participant t = replica *
// partitions + partition (XLA's default assignment, as the CPU backend's
// RunReplicatedParticipants), and every buffer holds R slices, one per
// participant (GpuProgram::participants, ParticipantSliceBytes), so each
// thread runs the entry on its own slice. A collective is an exchange
// through a module-global area: each participant writes its operands
// (row-major) to its slot, a block barrier, each reads its group's
// contributions in group order and computes its result exactly as the
// CPU runtime does (backends/cpu/runtime/collectives.cc: all-reduce folds
// x_0, x_1, ... in group order through the reducer, all-gather /
// all-to-all / reduce-scatter blocks in group order, collective-permute
// zeros where nothing is received, collective-broadcast from the group's
// first participant), then a second barrier before the slots are reused.
// The groups are compile-time tables resolved per participant with
// spec/ir/collective_groups.h (text-format 6.11 modes); a participant whose
// group cannot be resolved (or whose group does not fit the shapes)
// reports the CPU runtime's error through the status buffer.
//
// Every participant must execute the same sequence of collectives (the
// barrier is the whole block's): true of SPMD programs; a module whose
// participants run different numbers of collectives would hang where the
// CPU backend's rendezvous reports a deadlock. ragged-all-to-all's
// offsets and sizes are run-time values: its impl.ragged-all-to-all.1-3
// checks are OutOfRange run-time errors through the status buffer.
#ifndef HLOREF_BACKENDS_GPU_GPU_COLLECTIVES_H_
#define HLOREF_BACKENDS_GPU_GPU_COLLECTIVES_H_

#include <cstdint>
#include <functional>

#include "backends/codegen/emit_context.h"
#include "backends/codegen/emitter_table.h"

namespace hloref::gpu {

struct GpuCollectiveTarget {
  int64_t replicas = 1;
  int64_t partitions = 1;
  // The running thread's participant id (i32).
  std::function<llvm::Value*(codegen::EmitContext&)> participant;
  // A barrier of every participant (the block).
  std::function<void(codegen::EmitContext&)> barrier;
};

// The name of the module-global exchange area (an i8 array in the global
// address space, sized for the largest exchange).
inline constexpr const char* kCollectiveExchangeName =
    "hloref_collective_exchange";

// Registers the buffer emitters of the collective family and the
// elemental emitters of replica-id / partition-id (participant / P and
// participant % P) on `table`.
void RegisterGpuCollectiveEmitters(codegen::EmitterTable& table,
                                   GpuCollectiveTarget target);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_COLLECTIVES_H_
