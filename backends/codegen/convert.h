// ConvertElementType of one compute value, shared by the convert family
// (convert.cc) and the emitters that apply a computation written in another
// floating-point precision than their operands (gather_scatter.cc,
// reduction.cc, the CPU collectives).
#ifndef HLOREF_BACKENDS_CODEGEN_CONVERT_H_
#define HLOREF_BACKENDS_CODEGEN_CONVERT_H_

#include "absl/status/statusor.h"
#include "backends/codegen/emit_context.h"
#include "llvm/IR/Value.h"
#include "spec/types/primitive_type.h"

namespace hloref::codegen {

// `x` (a compute value of `from`) as a compute value of `to`, with the
// oracle's ConvertElementType rules (interpreter/ops/convert.h).
absl::StatusOr<llvm::Value*> EmitConvertValue(EmitContext& ctx,
                                              PrimitiveType from,
                                              PrimitiveType to, llvm::Value* x);

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_CONVERT_H_
