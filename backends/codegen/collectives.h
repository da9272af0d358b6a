// The target-independent part of the collectives family, shared by the
// CPU backend (backends/cpu/emitters/collectives.cc: one runtime call per
// collective) and the GPU backend (backends/gpu/gpu_collectives.cc: an
// exchange between the participant threads of one block): which
// collective an instruction is, its operand and result arrays (the
// -start / -done forms included), and the reducer of all-reduce /
// reduce-scatter.
#ifndef HLOREF_BACKENDS_CODEGEN_COLLECTIVES_H_
#define HLOREF_BACKENDS_CODEGEN_COLLECTIVES_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/ir_value.h"
#include "spec/ir/hlo_module.h"

namespace llvm {
class Function;
}  // namespace llvm

namespace hloref::codegen {

// What a collective computes. The values are the CPU runtime's descriptor
// kinds (cpu::CollectiveKind, checked there).
enum class CollectiveOp : int64_t {
  kAllReduce = 0,
  kReduceScatter = 1,
  kAllGather = 2,
  kAllToAllArray = 3,
  kAllToAllTuple = 4,
  kCollectivePermute = 5,
  kCollectiveBroadcast = 6,
  kRaggedAllToAll = 7,
};

// Emits one collective of kind `op` reading the operand arrays `in` and
// writing the result arrays `out` (any layouts); `with_reducer`: the
// instruction's to_apply folds the contributions (all-reduce,
// reduce-scatter).
using CollectiveCallEmitter = std::function<absl::Status(
    EmitContext& ctx, const HloInstruction& inst, CollectiveOp op,
    const std::vector<IrArray>& in, const std::vector<IrArray>& out,
    bool with_reducer)>;

// The buffer emitter of every collective of spec/ops.def but replica-id
// and partition-id: the -start forms copy their operands into element 0
// of their tuple (collective-permute-start zeroes its extra elements) and
// compute into element 1 (all-reduce-start: the result itself), the
// -done forms copy the result out; each collective is one `call`.
absl::Status EmitCollectiveFamily(EmitContext& ctx, const HloInstruction& inst,
                                  absl::Span<const IrValue> operands,
                                  const IrValue& output,
                                  const CollectiveCallEmitter& call);

// The opcodes EmitCollectiveFamily takes.
absl::Span<const HloOpcode> CollectiveFamilyOpcodes();

// The reducer of `inst` (all-reduce / reduce-scatter) over elements of
// `type`, as a computation function (void(ptr ctx, ptr params, ptr
// results), one element each): `comp` itself, or, when its parameters or
// result have another floating-point precision (impl.all-reduce.1 /
// impl.reduce-scatter.1: read as XLA reads it), an adapter that converts
// both arguments to the computation's parameter types, calls it and
// converts the result back to `type`, so the running value of the fold is
// `type` as in the oracle.
absl::StatusOr<llvm::Function*> CollectiveReducer(EmitContext& ctx,
                                                  const HloInstruction& inst,
                                                  const HloComputation& comp,
                                                  PrimitiveType type);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_COLLECTIVES_H_
