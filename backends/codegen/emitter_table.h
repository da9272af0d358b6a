// The emitters of every opcode, by kind (see emit_context.h), and the
// registration functions of the op families. Each family file of
// backends/codegen fills its opcodes; a target layer (backends/cpu,
// backends/gpu) adds the ones it implements with its own runtime.
//
// An opcode with neither emitter (and not handled structurally by the
// computation emitter: parameter, constant, tuple, get-tuple-element,
// while, conditional, call, fusion, async wrappers ...) is Unimplemented:
// the conformance harness reports it *unsupported*, never a pass.
#ifndef HLOREF_BACKENDS_CODEGEN_EMITTER_TABLE_H_
#define HLOREF_BACKENDS_CODEGEN_EMITTER_TABLE_H_

#include <array>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/ir_value.h"
#include "spec/ir/hlo_module.h"

namespace hloref::codegen {

// Emits code computing the element at a logical index of the value, in its
// compute representation (llvm_types.h), at the builder's position. May
// emit loops and blocks; leaves the builder where code continues.
using ElementGenerator =
    std::function<absl::StatusOr<llvm::Value*>(const IrIndex& index)>;

// Returns the generator of an instruction's result from the generators of
// its operands (one per operand, in order). May return Unimplemented for
// element types or attributes it does not handle: the instruction is then
// tried by the buffer emitter, if any.
using ElementalEmitter = std::function<absl::StatusOr<ElementGenerator>(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands)>;

// Emits the whole instruction: `operands` are the operands' values (in
// buffers, read only), `output` the result's buffers (never aliasing an
// operand).
using BufferEmitter = std::function<absl::Status(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const IrValue> operands, const IrValue& output)>;

struct EmitterTable {
  std::array<ElementalEmitter, kNumOpcodes> elemental;
  std::array<BufferEmitter, kNumOpcodes> buffer;

  void SetElemental(HloOpcode op, ElementalEmitter e) {
    elemental[static_cast<int>(op)] = std::move(e);
  }
  void SetBuffer(HloOpcode op, BufferEmitter e) {
    buffer[static_cast<int>(op)] = std::move(e);
  }
  const ElementalEmitter& Elemental(HloOpcode op) const {
    return elemental[static_cast<int>(op)];
  }
  const BufferEmitter& Buffer(HloOpcode op) const {
    return buffer[static_cast<int>(op)];
  }
};

// Family registration (one file each in backends/codegen/).
// elementwise.cc: every op of the elementwise unary / binary families and
// compare, select, clamp.
void RegisterElementwiseEmitters(EmitterTable& table);
// convert.cc: convert, bitcast-convert, reduce-precision, stochastic-convert.
void RegisterConvertEmitters(EmitterTable& table);
// data_movement.cc: broadcast, reshape, transpose, slice, concatenate, pad,
// reverse, iota, copy, bitcast (when not a pure alias), dynamic-slice,
// dynamic-update-slice, get-dimension-size, set-dimension-size,
// dynamic-reshape.
void RegisterDataMovementEmitters(EmitterTable& table);
// gather_scatter.cc: gather, scatter.
void RegisterGatherScatterEmitters(EmitterTable& table);
// reduction.cc: reduce (variadic), reduce-window, select-and-scatter, map,
// scan.
void RegisterReductionEmitters(EmitterTable& table);
// reduction.cc: a variadic (tuple-shaped) reduce whose inputs are read
// through element generators (an inlined producer's or a buffer's reader:
// fusion.h), its init values from their buffers `inits` (one per input).
// kReduce's buffer emitter is this with a reader per input.
absl::Status EmitVariadicReduce(EmitContext& ctx, const HloInstruction& inst,
                                absl::Span<const ElementGenerator> inputs,
                                absl::Span<const IrValue> inits,
                                const IrValue& output);
// contraction.cc: dot, ragged-dot, scaled-dot, convolution.
void RegisterContractionEmitters(EmitterTable& table);
// batch_norm.cc: batch-norm-training / -inference / -grad.
void RegisterBatchNormEmitters(EmitterTable& table);

// All of the above.
EmitterTable DefaultEmitterTable();

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_EMITTER_TABLE_H_
