// Compiles one HLO computation into one LLVM function with the ABI of
// EmitContext::GetComputationFunction:
//   void @name(ptr %ctx, ptr %params, ptr %results)
//
// Instructions are emitted in text (post) order into straight-line code:
// no per-instruction dispatch. Structural instructions are handled here
// (parameter, constant, tuple, get-tuple-element, bitcast and reshape when
// they only reinterpret a buffer, while, conditional, call, fusion, async
// wrappers, copy-start/done, optimization-barrier, add-dependency,
// after-all, domain); every other instruction goes through the emitter
// table: elemental (a loop nest over the result, or inlined into its
// consumer by fusion.h) or buffer.
//
// Temporary buffers are packed into one scratch block by
// buffer_assignment.h (liveness), allocated on entry.
#ifndef HLOREF_BACKENDS_CODEGEN_COMPUTATION_EMITTER_H_
#define HLOREF_BACKENDS_CODEGEN_COMPUTATION_EMITTER_H_

#include <string>

#include "absl/status/statusor.h"
#include "backends/codegen/emit_context.h"
#include "spec/ir/hlo_module.h"

namespace llvm {
class Function;
}  // namespace llvm

namespace hloref::codegen {

// Emits `computation` as the function `name` into ctx's module. Errors name
// the instruction that could not be compiled (Unimplemented for an op or
// type no emitter handles).
absl::StatusOr<llvm::Function*> EmitComputationFunction(
    EmitContext& ctx, const HloComputation& computation,
    const std::string& name);

// An error about `inst` during code generation: the status's code is kept,
// the message is prefixed with the instruction's location and text.
absl::Status InstructionCodegenError(const HloInstruction& inst,
                                     const absl::Status& status);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_COMPUTATION_EMITTER_H_
