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
//
// In place into the result: one temporary may live in the root's result
// buffer instead of the block when the root reads it only at the root's
// own element index (an element-wise root over it, through inlined
// element-wise producers of the same shape; the caller names such
// operands), it has the result's bytes, and the root is its last reader.
// The root's element i is then computed from the temporary's element i
// and written over it; every other reader ran before. Softmax's exp
// (read by the row sum, then by the root's divide) is written where the
// probabilities go, so the scores are written once, not twice.
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
  // The owning instruction whose buffer is the root's result buffer (no
  // entry in `offsets`), or null.
  const HloInstruction* in_result = nullptr;
};

// `storage` classifies every instruction. `root_writes_results`: whether
// the root (when it owns) writes straight into the result buffers.
// `root_in_place`: instructions the root reads only at its own element
// index, laid out as its result (same dimensions, layout and element
// bytes), and through no other path; the first of them in text order that
// owns its buffer, is read last by the root and is not aliased by another
// value the root reads becomes BufferPlan::in_result (none when null or
// when the root does not write the results).
BufferPlan AssignBuffers(
    const HloComputation& computation,
    const std::function<ValueStorage(const HloInstruction&)>& storage,
    bool root_writes_results,
    const absl::flat_hash_set<const HloInstruction*>* root_in_place = nullptr);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_BUFFER_ASSIGNMENT_H_
