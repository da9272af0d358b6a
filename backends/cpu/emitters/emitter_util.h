// Small helpers the CPU target's runtime-calling emitters share: constant
// i64 arrays (dimensions, strides) and pointer arrays passed to runtime
// functions.
#ifndef HLOREF_BACKENDS_CPU_EMITTERS_EMITTER_UTIL_H_
#define HLOREF_BACKENDS_CPU_EMITTERS_EMITTER_UTIL_H_

#include <cstdint>
#include <vector>

#include "backends/codegen/emit_context.h"
#include "backends/codegen/ir_value.h"

namespace hloref::cpu {

// A private constant i64 array in the module (one 0 when `v` is empty).
llvm::Value* ConstI64Array(codegen::EmitContext& ctx,
                           const std::vector<int64_t>& v);
// Stride in elements of every logical dimension of a buffer (its layout).
std::vector<int64_t> Strides(const codegen::IrArray& a);
// The dimensions of an array shape.
std::vector<int64_t> Dims(const Shape& s);
// An entry-block array of pointers holding `values`.
llvm::Value* PointerArray(codegen::EmitContext& ctx,
                          const std::vector<llvm::Value*>& values,
                          const char* name);

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_EMITTERS_EMITTER_UTIL_H_
