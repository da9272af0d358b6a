// The CPU emitters of sort and topk: buffer emitters that call the
// runtime (backends/cpu/runtime/sort.cc, topk.cc). sort's comparator is
// compiled into its own function (EmitContext::GetComputationFunction)
// whose address the runtime calls on pointers to the elements in the
// operand buffers, unless it orders by one operand's key alone (SortKeyOf:
// then the runtime sorts the keys itself).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/llvm_types.h"
#include "backends/cpu/cpu_emitters.h"
#include "backends/cpu/emitters/emitter_util.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "spec/util/status_macros.h"

namespace hloref::cpu {
namespace {

using codegen::EmitContext;
using codegen::IrArray;
using codegen::IrValue;

// A comparator that orders by one operand's key alone: its root is
// compare(parameter 2i, parameter 2i+1) (or the two swapped) with
// direction LT or GT, under TOTALORDER for f16 / bf16 / f32 / f64 or the
// integer comparison of an integer type. Such a comparator is a strict
// weak order, so the oracle's stable merge sort gives THE stable order by
// that key, which hloref_cpu_sort_by_key computes without calling
// compiled code per comparison.
struct SortKey {
  int64_t operand;
  bool descending;
};

std::optional<SortKey> SortKeyOf(const HloComputation& comparator,
                                 absl::Span<const IrValue> operands) {
  const HloInstruction* root = comparator.root();
  if (root == nullptr || root->opcode() != HloOpcode::kCompare ||
      root->operand_count() != 2) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter) {
    return std::nullopt;
  }
  const int64_t pa = a->parameter_number(), pb = b->parameter_number();
  if (pa / 2 != pb / 2 || pa == pb) return std::nullopt;
  const int64_t operand = pa / 2;
  if (operand < 0 || operand >= static_cast<int64_t>(operands.size())) {
    return std::nullopt;
  }
  const ComparisonDirection dir = root->attrs().direction;
  if (dir != ComparisonDirection::kLt && dir != ComparisonDirection::kGt) {
    return std::nullopt;
  }
  const PrimitiveType t = operands[operand].array.element_type();
  if (a->shape().element_type() != t || b->shape().element_type() != t) {
    return std::nullopt;
  }
  const ComparisonType ct = root->attrs().comparison_type;
  const bool float_key =
      (t == PrimitiveType::kF16 || t == PrimitiveType::kBF16 ||
       t == PrimitiveType::kF32 || t == PrimitiveType::kF64) &&
      ct == ComparisonType::kTotalOrder;
  const bool signed_key =
      (t == PrimitiveType::kS8 || t == PrimitiveType::kS16 ||
       t == PrimitiveType::kS32 || t == PrimitiveType::kS64) &&
      (ct == ComparisonType::kDefault || ct == ComparisonType::kSigned);
  const bool unsigned_key =
      (t == PrimitiveType::kU8 || t == PrimitiveType::kU16 ||
       t == PrimitiveType::kU32 || t == PrimitiveType::kU64) &&
      (ct == ComparisonType::kDefault || ct == ComparisonType::kUnsigned);
  const bool int_key = signed_key || unsigned_key;
  if (!float_key && !int_key) return std::nullopt;
  // less(i, j) = compare(x_i, x_j): LT ascending, GT descending; the
  // parameters swapped reverse it.
  const bool swapped = pa > pb;
  return SortKey{operand, (dir == ComparisonDirection::kGt) != swapped};
}

absl::Status EmitSort(EmitContext& ctx, const HloInstruction& inst,
                      absl::Span<const IrValue> operands,
                      const IrValue& output) {
  const HloComputation* comparator = inst.to_apply();
  if (comparator == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": sort without a comparator"));
  }
  const int64_t n = static_cast<int64_t>(operands.size());
  std::vector<IrArray> outs;
  output.CollectArrays(&outs);
  if (n == 0 || static_cast<int64_t>(outs.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": sort of ", n, " operands into ",
                     outs.size(), " results (is the module verified?)"));
  }
  const Shape& s0 = operands[0].shape;
  const int64_t rank = s0.rank();
  int64_t dimension = rank - 1;
  if (!inst.attrs().dimensions.empty()) dimension = inst.attrs().dimensions[0];
  if (rank == 0 || dimension < 0 || dimension >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(), ": sort dimension ", dimension, " of rank ", rank));
  }
  std::vector<llvm::Value*> in_ptrs, out_ptrs;
  std::vector<int64_t> bytes, in_strides, out_strides;
  for (int64_t k = 0; k < n; ++k) {
    if (!operands[k].IsArray() ||
        operands[k].shape.dimensions() != s0.dimensions() ||
        outs[k].shape().dimensions() != s0.dimensions() ||
        outs[k].element_type() != operands[k].array.element_type()) {
      return absl::InvalidArgumentError(
          absl::StrCat("%", inst.name(), ": sort operand ", k,
                       " does not fit (is the module verified?)"));
    }
    in_ptrs.push_back(operands[k].array.base());
    out_ptrs.push_back(outs[k].base());
    bytes.push_back(StorageBytes(operands[k].array.element_type()));
    for (int64_t st : Strides(operands[k].array)) in_strides.push_back(st);
    for (int64_t st : Strides(outs[k])) out_strides.push_back(st);
  }
  llvm::Type* ptr = ctx.PtrType();
  llvm::Type* i64 = ctx.b().getInt64Ty();
  std::vector<int64_t> dims(s0.dimensions().begin(), s0.dimensions().end());
  if (std::optional<SortKey> key = SortKeyOf(*comparator, operands)) {
    llvm::Type* i32 = ctx.b().getInt32Ty();
    llvm::FunctionType* type = llvm::FunctionType::get(
        ctx.b().getVoidTy(),
        {ptr, i32, i64, i32, i64, ptr, ptr, ptr, i64, ptr, i64, ptr, ptr},
        false);
    llvm::Function* f = ctx.GetRuntimeFunction("hloref_cpu_sort_by_key", type);
    ctx.b().CreateCall(
        f, {ctx.run_context(),
            ctx.I32(static_cast<int32_t>(
                operands[key->operand].array.element_type())),
            ctx.I64(key->operand), ctx.I32(key->descending ? 1 : 0), ctx.I64(n),
            PointerArray(ctx, in_ptrs, "sort.in"),
            PointerArray(ctx, out_ptrs, "sort.out"), ConstI64Array(ctx, bytes),
            ctx.I64(rank), ConstI64Array(ctx, dims), ctx.I64(dimension),
            ConstI64Array(ctx, in_strides), ConstI64Array(ctx, out_strides)});
    return absl::OkStatus();
  }
  HLOREF_ASSIGN_OR_RETURN(llvm::Function * cmp,
                          ctx.GetComputationFunction(*comparator));
  llvm::FunctionType* type = llvm::FunctionType::get(
      ctx.b().getVoidTy(),
      {ptr, ptr, i64, ptr, ptr, ptr, i64, ptr, i64, ptr, ptr}, false);
  llvm::Function* f = ctx.GetRuntimeFunction("hloref_cpu_sort", type);
  ctx.b().CreateCall(
      f, {ctx.run_context(), cmp, ctx.I64(n),
          PointerArray(ctx, in_ptrs, "sort.in"),
          PointerArray(ctx, out_ptrs, "sort.out"), ConstI64Array(ctx, bytes),
          ctx.I64(rank), ConstI64Array(ctx, dims), ctx.I64(dimension),
          ConstI64Array(ctx, in_strides), ConstI64Array(ctx, out_strides)});
  return absl::OkStatus();
}

absl::Status EmitTopK(EmitContext& ctx, const HloInstruction& inst,
                      absl::Span<const IrValue> operands,
                      const IrValue& output) {
  if (operands.size() != 1 || !operands[0].IsArray() || !output.IsTuple() ||
      output.elements.size() != 2 || !output.elements[0].IsArray() ||
      !output.elements[1].IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(),
                     ": topk shapes do not fit (is the module verified?)"));
  }
  const IrArray& in = operands[0].array;
  const IrArray& values = output.elements[0].array;
  const IrArray& indices = output.elements[1].array;
  const PrimitiveType type = in.element_type();
  if (!IsFloat(type) && !IsInteger(type) && !IsPred(type)) {
    return absl::UnimplementedError(absl::StrCat(
        "%", inst.name(), ": topk of element type ", PrimitiveTypeName(type)));
  }
  const int64_t rank = in.shape().rank();
  const int64_t k = inst.attrs().k;
  if (rank == 0 || k < 0 || k > in.shape().dimensions(rank - 1) ||
      values.element_type() != type ||
      indices.element_type() != PrimitiveType::kS32 ||
      values.shape().rank() != rank || indices.shape().rank() != rank ||
      values.shape().dimensions(rank - 1) != k ||
      indices.shape().dimensions(rank - 1) != k) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": topk k=", k, " on ",
                     in.shape().ToString(), " (is the module verified?)"));
  }
  llvm::Type* ptr = ctx.PtrType();
  llvm::Type* i64 = ctx.b().getInt64Ty();
  llvm::Type* i32 = ctx.b().getInt32Ty();
  llvm::FunctionType* ftype = llvm::FunctionType::get(
      ctx.b().getVoidTy(),
      {ptr, i32, ptr, ptr, ptr, i64, ptr, ptr, ptr, ptr, i64, i32}, false);
  llvm::Function* f = ctx.GetRuntimeFunction("hloref_cpu_topk", ftype);
  std::vector<int64_t> dims(in.shape().dimensions().begin(),
                            in.shape().dimensions().end());
  ctx.b().CreateCall(
      f,
      {ctx.run_context(), ctx.I32(static_cast<int32_t>(type)), in.base(),
       values.base(), indices.base(), ctx.I64(rank), ConstI64Array(ctx, dims),
       ConstI64Array(ctx, Strides(in)), ConstI64Array(ctx, Strides(values)),
       ConstI64Array(ctx, Strides(indices)), ctx.I64(k),
       ctx.I32(inst.attrs().largest ? 1 : 0)});
  return absl::OkStatus();
}

}  // namespace

void RegisterCpuSortEmitters(codegen::EmitterTable& table) {
  table.SetBuffer(HloOpcode::kSort, EmitSort);
  table.SetBuffer(HloOpcode::kTopK, EmitTopK);
}

}  // namespace hloref::cpu
