// Producer-consumer fusion of element-wise chains (unfused modules): an
// instruction is INLINED into its consumers when all of them can be emitted
// elementally, so each consumer's loop nest computes the producer's element
// where it needs it and no buffer is written in between.
//
// Rules (each keeps results identical to unfused code: fusion only moves
// where an element is computed, never how):
//   - the producer is an array-valued instruction with an elemental emitter
//     that accepts it and is not the root; each user uses it once, or
//     twice when that user is element-wise over the producer's shape
//     (multiply(xc, xc): both operands are the same element, one value
//     after LLVM's CSE);
//   - with one use, any such chain; with two users or uses
//     (kMaxRecomputeUsers distinct users), the producer is RECOMPUTED by
//     each: only when its element costs at most 4 arithmetic instructions
//     (itself and those inlined beneath it), all cheap ones (add,
//     multiply, compare, select, convert ...: no divide, transcendental or
//     root), so a softmax's scaled scores and a layer norm's centred rows
//     are not written and read back (recomputation is the same code on
//     the same inputs: same bits);
//   - the consumer has an elemental emitter that accepts it, or (with
//     CodegenOptions::fuse_into_variadic_reduce, the CPU backend) is a
//     variadic (tuple-shaped) reduce and the producer one of its inputs
//     (not an init value): that reduce reads its inputs through element
//     generators (EmitVariadicReduce), so an argmax's iota is never
//     written;
//   - an arithmetic producer (anything but the cheap index-only ops below)
//     is inlined only into consumers that read each operand element at
//     most once (element-wise ops, convert, and the data-movement ops that
//     permute or select elements, and reduce for its inputs but not its
//     init values), so no arithmetic is recomputed;
//   - cheap producers (broadcast, iota, and the data-movement ops that
//     only remap an index: reshape, transpose, slice, reverse, copy) may be
//     inlined into any elemental consumer.
// A dump's own `fusion` instructions are compiled as one loop nest each by
// the computation emitter; this pass does not look inside them.
#ifndef HLOREF_BACKENDS_CODEGEN_FUSION_H_
#define HLOREF_BACKENDS_CODEGEN_FUSION_H_

#include "absl/container/flat_hash_set.h"
#include "backends/codegen/emitter_table.h"
#include "spec/ir/hlo_module.h"

namespace hloref::codegen {

// True when the table's elemental emitter accepts `inst` (it is asked with
// placeholder operand generators; emitters emit no code until called).
bool CanEmitElementally(EmitContext& ctx, const HloInstruction& inst);

// The instructions of `computation` to inline into their consumers.
absl::flat_hash_set<const HloInstruction*> ChooseInlinedInstructions(
    EmitContext& ctx, const HloComputation& computation);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_FUSION_H_
