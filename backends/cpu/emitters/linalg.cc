// The CPU emitters of cholesky and triangular-solve: buffer emitters that
// call the linalg runtime (backends/cpu/runtime/linalg.cc).
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_emitters.h"
#include "backends/cpu/emitters/emitter_util.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloref::cpu {
namespace {

using codegen::EmitContext;
using codegen::IrArray;
using codegen::IrValue;

// A float or complex [..., M, M] array.
absl::Status CheckSquare(const HloInstruction& inst, const Shape& s) {
  const PrimitiveType t = s.element_type();
  if (!s.IsArray() || s.rank() < 2 ||
      s.dimensions(s.rank() - 1) != s.dimensions(s.rank() - 2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": a is ", s.ToString(),
                     ", expected [..., M, M] (is the module verified?)"));
  }
  if (!IsFloat(t) && !IsComplex(t)) {
    return absl::UnimplementedError(absl::StrCat("%", inst.name(), ": ",
                                                 HloOpcodeString(inst.opcode()),
                                                 " of ", PrimitiveTypeName(t)));
  }
  return absl::OkStatus();
}

absl::Status EmitCholesky(EmitContext& ctx, const HloInstruction& inst,
                          absl::Span<const IrValue> operands,
                          const IrValue& output) {
  if (operands.size() != 1 || !operands[0].IsArray() || !output.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": cholesky shapes"));
  }
  const IrArray& a = operands[0].array;
  absl::Status s = CheckSquare(inst, a.shape());
  if (!s.ok()) return s;
  if (output.array.shape().dimensions() != a.shape().dimensions() ||
      output.array.element_type() != a.element_type()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(), ": cholesky result does not fit the operand"));
  }
  llvm::Type* ptr = ctx.PtrType();
  llvm::Type* i64 = ctx.b().getInt64Ty();
  llvm::Type* i32 = ctx.b().getInt32Ty();
  llvm::FunctionType* ftype = llvm::FunctionType::get(
      ctx.b().getVoidTy(), {ptr, i32, ptr, ptr, i64, ptr, ptr, ptr, i32},
      false);
  llvm::Function* f = ctx.GetRuntimeFunction("hloref_cpu_cholesky", ftype);
  ctx.b().CreateCall(
      f, {ctx.run_context(), ctx.I32(static_cast<int32_t>(a.element_type())),
          a.base(), output.array.base(), ctx.I64(a.shape().rank()),
          ConstI64Array(ctx, Dims(a.shape())), ConstI64Array(ctx, Strides(a)),
          ConstI64Array(ctx, Strides(output.array)),
          ctx.I32(inst.attrs().lower ? 1 : 0)});
  return absl::OkStatus();
}

absl::Status EmitTriangularSolve(EmitContext& ctx, const HloInstruction& inst,
                                 absl::Span<const IrValue> operands,
                                 const IrValue& output) {
  if (operands.size() != 2 || !operands[0].IsArray() ||
      !operands[1].IsArray() || !output.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": triangular-solve shapes"));
  }
  const IrArray& a = operands[0].array;
  const IrArray& b = operands[1].array;
  absl::Status s = CheckSquare(inst, a.shape());
  if (!s.ok()) return s;
  const HloAttributes& attrs = inst.attrs();
  const int64_t rank = a.shape().rank();
  const int64_t m = a.shape().dimensions(rank - 1);
  bool fits =
      b.shape().rank() == rank && b.element_type() == a.element_type() &&
      b.shape().dimensions(attrs.left_side ? rank - 2 : rank - 1) == m &&
      output.array.shape().dimensions() == b.shape().dimensions() &&
      output.array.element_type() == b.element_type();
  for (int64_t d = 0; fits && d + 2 < rank; ++d) {
    fits = b.shape().dimensions(d) == a.shape().dimensions(d);
  }
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(), ": b is ", b.shape().ToString(), ", a is ",
        a.shape().ToString(), " (is the module verified?)"));
  }
  int32_t transpose = 0;
  if (attrs.transpose_a == TransposeA::kTranspose) transpose = 1;
  if (attrs.transpose_a == TransposeA::kAdjoint) transpose = 2;
  llvm::Type* ptr = ctx.PtrType();
  llvm::Type* i64 = ctx.b().getInt64Ty();
  llvm::Type* i32 = ctx.b().getInt32Ty();
  llvm::FunctionType* ftype =
      llvm::FunctionType::get(ctx.b().getVoidTy(),
                              {ptr, i32, ptr, ptr, ptr, i64, ptr, ptr, ptr, ptr,
                               ptr, i32, i32, i32, i32},
                              false);
  llvm::Function* f =
      ctx.GetRuntimeFunction("hloref_cpu_triangular_solve", ftype);
  ctx.b().CreateCall(
      f, {ctx.run_context(), ctx.I32(static_cast<int32_t>(a.element_type())),
          a.base(), b.base(), output.array.base(), ctx.I64(rank),
          ConstI64Array(ctx, Dims(a.shape())), ConstI64Array(ctx, Strides(a)),
          ConstI64Array(ctx, Dims(b.shape())), ConstI64Array(ctx, Strides(b)),
          ConstI64Array(ctx, Strides(output.array)),
          ctx.I32(attrs.left_side ? 1 : 0), ctx.I32(attrs.lower ? 1 : 0),
          ctx.I32(attrs.unit_diagonal ? 1 : 0), ctx.I32(transpose)});
  return absl::OkStatus();
}

}  // namespace

void RegisterCpuLinalgEmitters(codegen::EmitterTable& table) {
  table.SetBuffer(HloOpcode::kCholesky, EmitCholesky);
  table.SetBuffer(HloOpcode::kTriangularSolve, EmitTriangularSolve);
}

}  // namespace hloref::cpu
