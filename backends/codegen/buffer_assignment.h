// Buffer assignment with liveness for one computation: every instruction
// that owns storage gets, per array leaf of its shape, an offset in one
// scratch block; buffers whose live ranges do not overlap share memory.
//
// Positions are the instructions' indices in text order. A buffer is live
// from its instruction's position to the last position at which it is read:
// an instruction reads its operands' buffers at its own position, except an
// instruction inlined into its consumer (fusion.h), whose reads happen where
// the consumer is materialised; a value that only refers to other buffers
// (tuple, get-tuple-element, a bitcast that reinterprets) extends their
// ranges to its own uses. The root's buffers are the computation's results
// and are never in the block.
#ifndef HLOREF_BACKENDS_CODEGEN_BUFFER_ASSIGNMENT_H_
#define HLOREF_BACKENDS_CODEGEN_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "spec/ir/hlo_module.h"

namespace hloref::codegen {

// How an instruction's value relates to storage.
enum class ValueStorage {
  kOwns,      // writes its own buffers (one per array leaf)
  kAliases,   // made of its operands' buffers (tuple, gte, bitcast ...)
  kExternal,  // parameter or constant: memory outside the block
  kInlined,   // no value of its own: computed inside its consumer
};

struct BufferPlan {
  // Offsets of each owning instruction's array leaves (depth-first order).
  absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>> offsets;
  int64_t scratch_bytes = 0;
};

// `storage` classifies every instruction. `root_writes_results`: whether
// the root (when it owns) writes straight into the result buffers.
BufferPlan AssignBuffers(
    const HloComputation& computation,
    const std::function<ValueStorage(const HloInstruction&)>& storage,
    bool root_writes_results);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_BUFFER_ASSIGNMENT_H_
