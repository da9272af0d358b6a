// The data movement emitters (elemental): broadcast, reshape, transpose,
// slice, concatenate, pad, reverse, iota, copy, bitcast, dynamic-slice,
// dynamic-update-slice, get-dimension-size; set-dimension-size and
// dynamic-reshape are refused (dynamic shapes).
//
// Every generator here only maps the result's logical index to an operand's
// index (or to a constant) and passes the operand's COMPUTE value through:
// storage -> compute -> storage is bit-exact for every element type
// (llvm_types.h), so NaN payloads of narrow floats survive. Semantics are
// the oracle's (seed 001; interpreter/ops/{shape,slicing,concat_pad}.cc):
//   * dynamic-slice / dynamic-update-slice clamp every start index to
//     [0, dim - size] (signed indices sign-extend, unsigned zero-extend;
//     u64 values above INT64_MAX saturate, so they clamp to the top);
//   * pad: interior padding first, negative edge padding removes elements;
//   * iota: the index converted as convert does from an integer (one
//     rounding for floats, narrow floats included);
//   * bitcast: a physical reinterpretation (result layout order <->
//     operand layout order); types of different element sizes are left to
//     the computation emitter's byte copy.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {
namespace {

using ValueFn = std::function<absl::StatusOr<llvm::Value*>()>;

absl::Status NotVerified(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(why, " (is the module verified?)"));
}

// An integer index compute value (iN of an HLO integer type) as i64:
// signed types sign-extend, unsigned zero-extend, u64 values above
// INT64_MAX saturate to INT64_MAX (interpreter ReadIndexElement).
llvm::Value* IndexToI64(EmitContext& ctx, PrimitiveType type, llvm::Value* v) {
  IRBuilder& b = ctx.b();
  const unsigned bits = v->getType()->getIntegerBitWidth();
  if (bits < 64) {
    return IsSignedInt(type) ? b.CreateSExt(v, b.getInt64Ty())
                             : b.CreateZExt(v, b.getInt64Ty());
  }
  if (IsSignedInt(type)) return v;
  llvm::Value* negative = b.CreateICmpSLT(v, ctx.I64(0));
  return b.CreateSelect(negative, ctx.I64(INT64_MAX), v);
}

// min(max(v, lo), hi) in signed i64 (lo <= hi).
llvm::Value* Clamp(EmitContext& ctx, llvm::Value* v, int64_t lo, int64_t hi) {
  IRBuilder& b = ctx.b();
  llvm::Value* low =
      b.CreateSelect(b.CreateICmpSLT(v, ctx.I64(lo)), ctx.I64(lo), v);
  return b.CreateSelect(b.CreateICmpSGT(low, ctx.I64(hi)), ctx.I64(hi), low);
}

// if (cond) then_fn() else else_fn(), merged with a phi. Both arms may emit
// blocks; the builder is left in the merge block.
absl::StatusOr<llvm::Value*> EmitIfElse(EmitContext& ctx, llvm::Value* cond,
                                        const ValueFn& then_fn,
                                        const ValueFn& else_fn,
                                        absl::string_view name) {
  IRBuilder& b = ctx.b();
  llvm::Function* f = b.GetInsertBlock()->getParent();
  std::string n(name);
  llvm::BasicBlock* then_bb =
      llvm::BasicBlock::Create(ctx.context(), n + ".then", f);
  llvm::BasicBlock* else_bb =
      llvm::BasicBlock::Create(ctx.context(), n + ".else", f);
  llvm::BasicBlock* merge =
      llvm::BasicBlock::Create(ctx.context(), n + ".merge", f);
  b.CreateCondBr(cond, then_bb, else_bb);
  b.SetInsertPoint(then_bb);
  HLOREF_ASSIGN_OR_RETURN(llvm::Value * tv, then_fn());
  llvm::BasicBlock* then_end = b.GetInsertBlock();
  b.CreateBr(merge);
  b.SetInsertPoint(else_bb);
  HLOREF_ASSIGN_OR_RETURN(llvm::Value * ev, else_fn());
  llvm::BasicBlock* else_end = b.GetInsertBlock();
  b.CreateBr(merge);
  if (tv->getType() != ev->getType()) {
    return absl::InternalError("EmitIfElse: the arms' types differ");
  }
  b.SetInsertPoint(merge);
  llvm::PHINode* phi = b.CreatePHI(tv->getType(), 2, n + ".value");
  phi->addIncoming(tv, then_end);
  phi->addIncoming(ev, else_end);
  return phi;
}

bool HasZeroDim(const Shape& s) {
  for (int64_t d : s.dimensions()) {
    if (d == 0) return true;
  }
  return false;
}

absl::Status ExpectArrays(const HloInstruction& inst) {
  if (!inst.shape().IsArray()) {
    return absl::UnimplementedError("non-array result");
  }
  if (!inst.shape().is_static()) {
    return absl::UnimplementedError(
        "dynamic shapes are not supported by this backend");
  }
  for (const HloInstruction* op : inst.operands()) {
    if (!op->shape().IsArray()) {
      return absl::UnimplementedError("non-array operand");
    }
    if (!op->shape().is_static()) {
      return absl::UnimplementedError(
          "dynamic operand shapes are not supported by this backend");
    }
  }
  return absl::OkStatus();
}

absl::Status ExpectSameElementType(const HloInstruction& inst, int64_t i) {
  if (inst.operand(i)->shape().element_type() != inst.shape().element_type()) {
    return NotVerified(absl::StrCat("operand ", i,
                                    " has another element type than the "
                                    "result"));
  }
  return absl::OkStatus();
}

// Physical strides (in elements) of each logical dimension under `layout`.
std::vector<int64_t> PhysicalStrides(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> m2m = shape.LayoutOrDefault().minor_to_major;
  if (static_cast<int64_t>(m2m.size()) != rank) {
    m2m = Layout::Descending(rank).minor_to_major;
  }
  std::vector<int64_t> strides(rank, 1);
  int64_t s = 1;
  for (int64_t d : m2m) {
    strides[d] = s;
    s *= shape.dimensions(d);
  }
  return strides;
}

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> strides(rank, 1);
  int64_t s = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= shape.dimensions(d);
  }
  return strides;
}

// sum index[d] * strides[d].
llvm::Value* Linearize(EmitContext& ctx, const IrIndex& index,
                       const std::vector<int64_t>& strides) {
  IRBuilder& b = ctx.b();
  llvm::Value* linear = ctx.I64(0);
  for (size_t d = 0; d < index.size(); ++d) {
    llvm::Value* term = strides[d] == 1
                            ? index[d]
                            : b.CreateMul(index[d], ctx.I64(strides[d]), "",
                                          /*HasNUW=*/true, /*HasNSW=*/true);
    linear = b.CreateAdd(linear, term, "", /*HasNUW=*/true, /*HasNSW=*/true);
  }
  return linear;
}

// The index of linear position `linear` for the given strides and sizes.
IrIndex Delinearize(EmitContext& ctx, llvm::Value* linear, const Shape& shape,
                    const std::vector<int64_t>& strides) {
  IRBuilder& b = ctx.b();
  IrIndex index(shape.rank());
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const int64_t size = shape.dimensions(d);
    if (size == 1) {
      index[d] = ctx.I64(0);
      continue;
    }
    llvm::Value* q =
        strides[d] == 1 ? linear : b.CreateUDiv(linear, ctx.I64(strides[d]));
    index[d] = b.CreateURem(q, ctx.I64(size));
  }
  return index;
}

// ---- broadcast

absl::StatusOr<ElementGenerator> EmitBroadcast(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 0));
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  const std::vector<int64_t>& dims = inst.attrs().dimensions;
  if (static_cast<int64_t>(dims.size()) != in.rank()) {
    return NotVerified("broadcast dimensions do not match the operand rank");
  }
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (dims[i] < 0 || dims[i] >= out.rank() ||
        (in.dimensions(i) != 1 &&
         in.dimensions(i) != out.dimensions(dims[i]))) {
      return NotVerified("broadcast dimension does not fit the result");
    }
  }
  ElementGenerator op = operands[0];
  std::vector<int64_t> sizes(in.dimensions().begin(), in.dimensions().end());
  return ElementGenerator([&ctx, op, dims, sizes](const IrIndex& index) {
    IrIndex src(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
      src[i] = sizes[i] == 1 ? ctx.I64(0) : index[dims[i]];
    }
    return op(src);
  });
}

// ---- reshape (row-major order of the logical elements)

absl::StatusOr<ElementGenerator> EmitReshape(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 0));
  const Shape in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  if (in.num_elements() != out.num_elements()) {
    return NotVerified("reshape changes the element count");
  }
  ElementGenerator op = operands[0];
  std::vector<int64_t> out_strides = RowMajorStrides(out);
  std::vector<int64_t> in_strides = RowMajorStrides(in);
  return ElementGenerator(
      [&ctx, op, in, out_strides, in_strides](const IrIndex& index) {
        llvm::Value* linear = Linearize(ctx, index, out_strides);
        return op(Delinearize(ctx, linear, in, in_strides));
      });
}

// ---- transpose: result dimension i is operand dimension permutation[i].

absl::StatusOr<ElementGenerator> EmitTranspose(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 0));
  const Shape& in = inst.operand(0)->shape();
  const std::vector<int64_t>& perm = inst.attrs().dimensions;
  const int64_t rank = in.rank();
  if (static_cast<int64_t>(perm.size()) != rank ||
      inst.shape().rank() != rank) {
    return NotVerified("transpose dimensions are not a permutation");
  }
  std::vector<bool> seen(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]] ||
        in.dimensions(perm[i]) != inst.shape().dimensions(i)) {
      return NotVerified("transpose dimensions are not a permutation");
    }
    seen[perm[i]] = true;
  }
  ElementGenerator op = operands[0];
  return ElementGenerator([op, perm](const IrIndex& index) {
    IrIndex src(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) src[perm[i]] = index[i];
    return op(src);
  });
}

// ---- copy: the value; the result's layout is the materialiser's business.

absl::StatusOr<ElementGenerator> EmitCopy(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 0));
  if (inst.operand(0)->shape().dimensions() != inst.shape().dimensions()) {
    return NotVerified("copy changes the dimensions");
  }
  return operands[0];
}

// ---- slice

absl::StatusOr<ElementGenerator> EmitSlice(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 0));
  const Shape& in = inst.operand(0)->shape();
  const SliceConfig& slice = inst.attrs().slice;
  const int64_t rank = in.rank();
  if (static_cast<int64_t>(slice.start_indices.size()) != rank ||
      static_cast<int64_t>(slice.limit_indices.size()) != rank ||
      static_cast<int64_t>(slice.strides.size()) != rank ||
      inst.shape().rank() != rank) {
    return NotVerified("slice has the wrong number of entries");
  }
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t start = slice.start_indices[d];
    const int64_t limit = slice.limit_indices[d];
    const int64_t stride = slice.strides[d];
    if (start < 0 || limit < start || limit > in.dimensions(d) || stride <= 0 ||
        inst.shape().dimensions(d) != (limit - start + stride - 1) / stride) {
      return NotVerified(absl::StrCat("slice of dimension ", d,
                                      " does not give the result size"));
    }
  }
  ElementGenerator op = operands[0];
  return ElementGenerator([&ctx, op, slice](const IrIndex& index) {
    IRBuilder& b = ctx.b();
    IrIndex src(index.size());
    for (size_t d = 0; d < index.size(); ++d) {
      llvm::Value* v = index[d];
      if (slice.strides[d] != 1) {
        v = b.CreateMul(v, ctx.I64(slice.strides[d]), "", true, true);
      }
      if (slice.start_indices[d] != 0) {
        v = b.CreateAdd(v, ctx.I64(slice.start_indices[d]), "", true, true);
      }
      src[d] = v;
    }
    return op(src);
  });
}

// ---- reverse

absl::StatusOr<ElementGenerator> EmitReverse(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 0));
  const Shape& in = inst.operand(0)->shape();
  if (in.dimensions() != inst.shape().dimensions()) {
    return NotVerified("reverse changes the dimensions");
  }
  std::vector<bool> reversed(in.rank(), false);
  for (int64_t d : inst.attrs().dimensions) {
    if (d < 0 || d >= in.rank() || reversed[d]) {
      return NotVerified("reverse dimensions are not distinct dimensions");
    }
    reversed[d] = true;
  }
  std::vector<int64_t> sizes(in.dimensions().begin(), in.dimensions().end());
  ElementGenerator op = operands[0];
  return ElementGenerator([&ctx, op, reversed, sizes](const IrIndex& index) {
    IrIndex src(index);
    for (size_t d = 0; d < index.size(); ++d) {
      if (reversed[d]) {
        src[d] = ctx.b().CreateSub(ctx.I64(sizes[d] - 1), index[d]);
      }
    }
    return op(src);
  });
}

// ---- concatenate: operands one after another along `dimension`.

absl::StatusOr<ElementGenerator> EmitConcatenate(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  const Shape& out = inst.shape();
  if (inst.attrs().dimensions.size() != 1 || inst.attrs().dimensions[0] < 0 ||
      inst.attrs().dimensions[0] >= out.rank() || inst.operand_count() < 1) {
    return NotVerified("concatenate dimension is not a result dimension");
  }
  const int64_t dim = inst.attrs().dimensions[0];
  // (operand, offset, size) of the non-empty pieces.
  struct Piece {
    ElementGenerator gen;
    int64_t offset;
    int64_t size;
  };
  std::vector<Piece> pieces;
  int64_t offset = 0;
  for (int64_t k = 0; k < inst.operand_count(); ++k) {
    HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, k));
    const Shape& s = inst.operand(k)->shape();
    if (s.rank() != out.rank()) return NotVerified("concatenate rank differs");
    for (int64_t d = 0; d < out.rank(); ++d) {
      if (d != dim && s.dimensions(d) != out.dimensions(d)) {
        return NotVerified("concatenate operand does not fit the result");
      }
    }
    const int64_t size = s.dimensions(dim);
    if (!HasZeroDim(s)) pieces.push_back({operands[k], offset, size});
    offset += size;
  }
  if (offset != out.dimensions(dim)) {
    return NotVerified("concatenate sizes do not add up to the result");
  }
  const PrimitiveType type = out.element_type();
  // Piece p covers [offset, offset + size); a binary search over the pieces
  // keeps the chain of branches logarithmic.
  auto pieces_ptr = std::make_shared<std::vector<Piece>>(std::move(pieces));
  return ElementGenerator(
      [&ctx, pieces_ptr, dim,
       type](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        const std::vector<Piece>& ps = *pieces_ptr;
        if (ps.empty()) return ComputeZero(ctx, type);
        std::function<absl::StatusOr<llvm::Value*>(size_t, size_t)> emit =
            [&](size_t lo, size_t hi) -> absl::StatusOr<llvm::Value*> {
          if (hi - lo == 1) {
            IrIndex src(index);
            if (ps[lo].offset != 0) {
              src[dim] = ctx.b().CreateSub(index[dim], ctx.I64(ps[lo].offset));
            }
            return ps[lo].gen(src);
          }
          const size_t mid = (lo + hi) / 2;
          llvm::Value* cond =
              ctx.b().CreateICmpSLT(index[dim], ctx.I64(ps[mid].offset));
          return EmitIfElse(
              ctx, cond, [&]() { return emit(lo, mid); },
              [&]() { return emit(mid, hi); }, "concat");
        };
        return emit(0, ps.size());
      });
}

// ---- pad

absl::StatusOr<ElementGenerator> EmitPad(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 0));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 1));
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  const PaddingConfig& config = inst.attrs().padding;
  const int64_t rank = in.rank();
  if (inst.operand(1)->shape().rank() != 0 ||
      static_cast<int64_t>(config.dimensions.size()) != rank ||
      out.rank() != rank) {
    return NotVerified("pad: padding value, config and result do not match");
  }
  for (int64_t d = 0; d < rank; ++d) {
    const PaddingDimension& p = config.dimensions[d];
    const int64_t n = in.dimensions(d);
    const int64_t expected = n == 0 ? p.edge_padding_low + p.edge_padding_high
                                    : p.edge_padding_low + p.edge_padding_high +
                                          n + (n - 1) * p.interior_padding;
    if (p.interior_padding < 0 || out.dimensions(d) != expected) {
      return NotVerified(absl::StrCat("padding of dimension ", d,
                                      " does not give the result size"));
    }
  }
  const bool empty_operand = HasZeroDim(in);
  std::vector<int64_t> sizes(in.dimensions().begin(), in.dimensions().end());
  ElementGenerator op = operands[0];
  ElementGenerator pad_value = operands[1];
  return ElementGenerator(
      [&ctx, op, pad_value, config, sizes,
       empty_operand](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        ValueFn padding = [&]() { return pad_value(IrIndex{}); };
        if (empty_operand) return padding();
        IRBuilder& b = ctx.b();
        // Operand index j lands at low + j * step.
        llvm::Value* inside = ctx.I1(true);
        IrIndex src(index.size());
        for (size_t d = 0; d < index.size(); ++d) {
          const PaddingDimension& p = config.dimensions[d];
          const int64_t step = p.interior_padding + 1;
          llvm::Value* rel = b.CreateSub(index[d], ctx.I64(p.edge_padding_low));
          llvm::Value* ok = b.CreateICmpSGE(rel, ctx.I64(0));
          llvm::Value* j = rel;
          if (step != 1) {
            // rel >= 0 when it matters; udiv/urem of a negative value give
            // garbage only where `ok` is already false.
            ok = b.CreateAnd(
                ok,
                b.CreateICmpEQ(b.CreateURem(rel, ctx.I64(step)), ctx.I64(0)));
            j = b.CreateUDiv(rel, ctx.I64(step));
          }
          ok = b.CreateAnd(ok, b.CreateICmpSLT(j, ctx.I64(sizes[d])));
          inside = b.CreateAnd(inside, ok);
          src[d] = j;
        }
        return EmitIfElse(
            ctx, inside, [&]() { return op(src); }, padding, "pad");
      });
}

// ---- iota

absl::StatusOr<ElementGenerator> EmitIota(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  const Shape& shape = inst.shape();
  const int64_t dim = inst.attrs().iota_dimension;
  if (dim < 0 || dim >= shape.rank()) {
    return NotVerified("iota_dimension is not a dimension of the result");
  }
  const PrimitiveType type = shape.element_type();
  switch (KindOf(type)) {
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
    case TypeKind::kFloat:
    case TypeKind::kComplex:
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("iota of element type ", PrimitiveTypeName(type)));
  }
  return ElementGenerator(
      [&ctx, dim, type](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        IRBuilder& b = ctx.b();
        llvm::Value* j = index[dim];  // i64, >= 0
        llvm::Type* ct = ComputeType(ctx.context(), type);
        switch (KindOf(type)) {
          case TypeKind::kPred:
            return b.CreateICmpNE(j, ctx.I64(0));
          case TypeKind::kSigned:
          case TypeKind::kUnsigned:
            return b.CreateTrunc(j, ct);  // wraps to the width (no-op at 64)
          case TypeKind::kComplex: {
            llvm::Type* e =
                type == PrimitiveType::kC64 ? b.getFloatTy() : b.getDoubleTy();
            llvm::Value* re = b.CreateSIToFP(j, e);
            llvm::Value* v = llvm::UndefValue::get(ct);
            v = b.CreateInsertValue(v, re, {0});
            return b.CreateInsertValue(v, llvm::ConstantFP::get(e, 0.0), {1});
          }
          default:
            break;
        }
        if (type == PrimitiveType::kF32) return b.CreateSIToFP(j, ct);
        // f64 and narrow floats: the index as a double (exact below 2^53,
        // far beyond any buffer), then one rounding to the type.
        llvm::Value* d = b.CreateSIToFP(j, b.getDoubleTy());
        if (type == PrimitiveType::kF64) return d;
        return EmitRoundToType(ctx, type, d);
      });
}

// ---- bitcast (physical reinterpretation)

// Reinterprets a storage value as another storage type of the same size.
llvm::Value* ReinterpretStorage(EmitContext& ctx, llvm::Value* v,
                                llvm::Type* to) {
  IRBuilder& b = ctx.b();
  if (v->getType() == to) return v;
  if (!v->getType()->isStructTy() && !to->isStructTy()) {
    return b.CreateBitCast(v, to);
  }
  llvm::Value* slot = ctx.EntryAlloca(b.getInt8Ty(), 16, "bitcast.slot");
  b.CreateStore(v, slot);
  return b.CreateLoad(to, slot);
}

absl::StatusOr<ElementGenerator> EmitBitcast(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  const Shape in = inst.operand(0)->shape();
  const Shape out = inst.shape();
  for (const Shape* s : {&in, &out}) {
    if (s->has_layout() &&
        (!s->layout().tiles.empty() || s->layout().element_size_in_bits != 0)) {
      return absl::UnimplementedError(
          "bitcast with a tiled or sub-byte-packed layout");
    }
  }
  const PrimitiveType from = in.element_type();
  const PrimitiveType to = out.element_type();
  if (StorageBytes(from) != StorageBytes(to) ||
      in.num_elements() != out.num_elements()) {
    return absl::UnimplementedError(
        "bitcast between element sizes is a byte copy, not elemental");
  }
  if (from != to && (BitWidth(from) != 8 * StorageBytes(from) ||
                     BitWidth(to) != 8 * StorageBytes(to))) {
    return absl::UnimplementedError(absl::StrCat(
        "bitcast between different element types involving a sub-byte "
        "type (",
        PrimitiveTypeName(from), " -> ", PrimitiveTypeName(to), ")"));
  }
  ElementGenerator op = operands[0];
  std::vector<int64_t> out_strides = PhysicalStrides(out);
  std::vector<int64_t> in_strides = PhysicalStrides(in);
  return ElementGenerator(
      [&ctx, op, in, from, to, out_strides,
       in_strides](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        llvm::Value* linear = Linearize(ctx, index, out_strides);
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * v,
                                op(Delinearize(ctx, linear, in, in_strides)));
        if (from == to) return v;
        llvm::Value* bits = EmitComputeToStorage(ctx, from, v);
        bits = ReinterpretStorage(ctx, bits, StorageType(ctx.context(), to));
        return EmitStorageToCompute(ctx, to, bits);
      });
}

// ---- dynamic-slice / dynamic-update-slice

// The start index of each dimension as i64, in either form: one integer
// scalar per dimension, or one rank-1 vector (legacy).
struct StartIndexReader {
  std::vector<ElementGenerator> gens;
  std::vector<PrimitiveType> types;
  bool vector_form = false;
  int64_t rank = 0;

  absl::StatusOr<std::vector<llvm::Value*>> Read(EmitContext& ctx) const {
    std::vector<llvm::Value*> starts;
    for (int64_t d = 0; d < rank; ++d) {
      HLOREF_ASSIGN_OR_RETURN(
          llvm::Value * v,
          vector_form ? gens[0](IrIndex{ctx.I64(d)}) : gens[d](IrIndex{}));
      starts.push_back(IndexToI64(ctx, vector_form ? types[0] : types[d], v));
    }
    return starts;
  }
};

absl::StatusOr<StartIndexReader> StartIndices(
    const HloInstruction& inst, absl::Span<const ElementGenerator> operands,
    int64_t first, int64_t rank) {
  StartIndexReader r;
  r.rank = rank;
  const int64_t count = inst.operand_count() - first;
  r.vector_form = count == 1 && inst.operand(first)->shape().rank() == 1 &&
                  inst.operand(first)->shape().dimensions(0) == rank;
  if (!r.vector_form && count != rank) {
    return NotVerified(
        absl::StrCat("has ", count, " start index operands, expected ", rank));
  }
  for (int64_t k = 0; k < count; ++k) {
    const Shape& s = inst.operand(first + k)->shape();
    if (!IsInteger(s.element_type())) {
      return NotVerified("start indices must be integers");
    }
    if (!r.vector_form && s.rank() != 0) {
      return NotVerified("start index operands must be scalars");
    }
    r.gens.push_back(operands[first + k]);
    r.types.push_back(s.element_type());
  }
  return r;
}

absl::StatusOr<ElementGenerator> EmitDynamicSlice(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 0));
  const Shape& in = inst.operand(0)->shape();
  const int64_t rank = in.rank();
  const std::vector<int64_t>& sizes = inst.attrs().dynamic_slice_sizes;
  if (static_cast<int64_t>(sizes.size()) != rank ||
      inst.shape().rank() != rank) {
    return NotVerified("dynamic_slice_sizes does not match the operand rank");
  }
  std::vector<int64_t> hi(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0 || sizes[d] > in.dimensions(d) ||
        inst.shape().dimensions(d) != sizes[d]) {
      return NotVerified("slice size does not fit the operand");
    }
    hi[d] = in.dimensions(d) - sizes[d];
  }
  HLOREF_ASSIGN_OR_RETURN(StartIndexReader starts,
                          StartIndices(inst, operands, 1, rank));
  ElementGenerator op = operands[0];
  return ElementGenerator(
      [&ctx, op, starts,
       hi](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        HLOREF_ASSIGN_OR_RETURN(std::vector<llvm::Value*> s, starts.Read(ctx));
        IrIndex src(index.size());
        for (size_t d = 0; d < index.size(); ++d) {
          src[d] = ctx.b().CreateAdd(Clamp(ctx, s[d], 0, hi[d]), index[d]);
        }
        return op(src);
      });
}

absl::StatusOr<ElementGenerator> EmitDynamicUpdateSlice(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 0));
  HLOREF_RETURN_IF_ERROR(ExpectSameElementType(inst, 1));
  const Shape& in = inst.operand(0)->shape();
  const Shape& update = inst.operand(1)->shape();
  const int64_t rank = in.rank();
  if (update.rank() != rank || inst.shape().dimensions() != in.dimensions()) {
    return NotVerified("update does not match the operand");
  }
  std::vector<int64_t> hi(rank), usize(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (update.dimensions(d) > in.dimensions(d)) {
      return NotVerified("update is larger than the operand");
    }
    hi[d] = in.dimensions(d) - update.dimensions(d);
    usize[d] = update.dimensions(d);
  }
  HLOREF_ASSIGN_OR_RETURN(StartIndexReader starts,
                          StartIndices(inst, operands, 2, rank));
  const bool empty_update = HasZeroDim(update);
  ElementGenerator op = operands[0];
  ElementGenerator upd = operands[1];
  return ElementGenerator(
      [&ctx, op, upd, starts, hi, usize,
       empty_update](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        if (empty_update) return op(index);
        IRBuilder& b = ctx.b();
        HLOREF_ASSIGN_OR_RETURN(std::vector<llvm::Value*> s, starts.Read(ctx));
        llvm::Value* inside = ctx.I1(true);
        IrIndex src(index.size());
        for (size_t d = 0; d < index.size(); ++d) {
          llvm::Value* rel = b.CreateSub(index[d], Clamp(ctx, s[d], 0, hi[d]));
          inside = b.CreateAnd(inside, b.CreateICmpSGE(rel, ctx.I64(0)));
          inside = b.CreateAnd(inside, b.CreateICmpSLT(rel, ctx.I64(usize[d])));
          src[d] = rel;
        }
        return EmitIfElse(
            ctx, inside, [&]() { return upd(src); },
            [&]() { return op(index); }, "dus");
      });
}

// ---- get-dimension-size / set-dimension-size / dynamic-reshape

absl::StatusOr<ElementGenerator> EmitGetDimensionSize(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (inst.operand_count() != 1 || !inst.operand(0)->shape().IsArray()) {
    return NotVerified("get-dimension-size takes one array operand");
  }
  const Shape& in = inst.operand(0)->shape();
  if (inst.attrs().dimensions.size() != 1 || inst.attrs().dimensions[0] < 0 ||
      inst.attrs().dimensions[0] >= in.rank()) {
    return NotVerified("dimensions must name one dimension of the operand");
  }
  const int64_t dim = inst.attrs().dimensions[0];
  const Shape& out = inst.shape();
  if (!out.IsArray() || out.rank() != 0 || !IsInteger(out.element_type())) {
    return NotVerified("result is not an integer scalar");
  }
  if (in.is_dynamic_dimension(dim)) {
    return absl::UnimplementedError(
        "get-dimension-size of a dynamic dimension: dynamic shapes are not "
        "supported by this backend");
  }
  const int64_t size = in.dimensions(dim);
  llvm::Type* t = ComputeType(ctx.context(), out.element_type());
  return ElementGenerator(
      [t, size](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
        return llvm::ConstantInt::get(t, static_cast<uint64_t>(size),
                                      /*IsSigned=*/true);
      });
}

absl::StatusOr<ElementGenerator> EmitDynamicShapeOp(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  return absl::UnimplementedError(
      absl::StrCat(HloOpcodeString(inst.opcode()),
                   ": dynamic shapes (runtime dimension sizes) are not "
                   "supported by this backend"));
}

}  // namespace

void RegisterDataMovementEmitters(EmitterTable& table) {
  table.SetElemental(HloOpcode::kBroadcast, EmitBroadcast);
  table.SetElemental(HloOpcode::kReshape, EmitReshape);
  table.SetElemental(HloOpcode::kTranspose, EmitTranspose);
  table.SetElemental(HloOpcode::kCopy, EmitCopy);
  table.SetElemental(HloOpcode::kSlice, EmitSlice);
  table.SetElemental(HloOpcode::kReverse, EmitReverse);
  table.SetElemental(HloOpcode::kConcatenate, EmitConcatenate);
  table.SetElemental(HloOpcode::kPad, EmitPad);
  table.SetElemental(HloOpcode::kIota, EmitIota);
  table.SetElemental(HloOpcode::kBitcast, EmitBitcast);
  table.SetElemental(HloOpcode::kDynamicSlice, EmitDynamicSlice);
  table.SetElemental(HloOpcode::kDynamicUpdateSlice, EmitDynamicUpdateSlice);
  table.SetElemental(HloOpcode::kGetDimensionSize, EmitGetDimensionSize);
  table.SetElemental(HloOpcode::kSetDimensionSize, EmitDynamicShapeOp);
  table.SetElemental(HloOpcode::kDynamicReshape, EmitDynamicShapeOp);
}

}  // namespace hloref::codegen
