// The gather (elemental) and scatter (buffer) emitters. Semantics are the
// oracle's (seed 001 "Gather", "Scatter"; operand_batching_dims /
// start_indices_batching_dims and input_batching_dims /
// scatter_indices_batching_dims as in StableHLO; interpreter/ops/
// gather_scatter.cc):
//   * gather: every start index is clamped to [0, dim - slice_size]; a
//     collapsed or batching dimension with slice size 0 (impl.gather.2)
//     gives zeros;
//   * scatter: the outputs start as copies of the inputs; the update
//     computation is applied at each index batch position in row-major
//     order, and inside each window in row-major order of the
//     update_window_dims, as (current values..., update values...); a
//     window that does not fit the operand entirely is skipped whole (XLA's
//     rule, impl.scatter.1). indices_are_sorted / unique_indices change
//     nothing.
// Index values: signed types sign-extend, unsigned zero-extend, u64 above
// INT64_MAX saturates (interpreter ReadIndexElement).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/convert.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {
namespace {

absl::Status NotVerified(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(why, " (is the module verified?)"));
}

bool Contains(absl::Span<const int64_t> list, int64_t v) {
  for (int64_t x : list) {
    if (x == v) return true;
  }
  return false;
}

bool AllIn(absl::Span<const int64_t> list, int64_t bound) {
  for (int64_t v : list) {
    if (v < 0 || v >= bound) return false;
  }
  return true;
}

// See data_movement.cc.
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

absl::Status ExpectStaticArrays(const HloInstruction& inst) {
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

// The index batch of start_indices / scatter_indices: its dimensions
// without index_vector_dim, in order; index_vector_dim == rank is an
// implicit trailing dimension of size 1.
struct IndexLayout {
  int64_t rank = 0;
  int64_t ivd = 0;
  int64_t index_size = 1;
  std::vector<int64_t> batch_sizes;

  IndexLayout(const Shape& indices, int64_t index_vector_dim)
      : rank(indices.rank()), ivd(index_vector_dim) {
    for (int64_t d = 0; d < rank; ++d) {
      if (d != ivd) batch_sizes.push_back(indices.dimensions(d));
    }
    index_size = ivd == rank ? 1 : indices.dimensions(ivd);
  }
  // Position in the batch vector of indices dimension d (d != ivd).
  int64_t BatchPositionOf(int64_t d) const { return d < ivd ? d : d - 1; }
  // The indices' index of component k at batch position g.
  IrIndex IndexOf(EmitContext& ctx, const std::vector<llvm::Value*>& g,
                  int64_t k) const {
    IrIndex index(rank);
    for (int64_t d = 0; d < rank; ++d) {
      index[d] = d == ivd ? ctx.I64(k) : g[BatchPositionOf(d)];
    }
    return index;
  }
};

// ---- gather

absl::StatusOr<ElementGenerator> EmitGather(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (inst.operand_count() != 2) return NotVerified("gather takes 2 operands");
  HLOREF_RETURN_IF_ERROR(ExpectStaticArrays(inst));
  const Shape& out = inst.shape();
  if (!out.IsArray() || !out.is_static()) {
    return absl::UnimplementedError("gather with a non-static result");
  }
  const Shape& operand = inst.operand(0)->shape();
  const Shape& indices = inst.operand(1)->shape();
  if (operand.element_type() != out.element_type()) {
    return NotVerified("gather changes the element type");
  }
  if (!IsInteger(indices.element_type())) {
    return NotVerified("start_indices must be integers");
  }
  const GatherDimensionNumbers& dn = inst.attrs().gather_dimension_numbers;
  const std::vector<int64_t>& slice_sizes = inst.attrs().slice_sizes;
  const int64_t rank = operand.rank();
  const int64_t ivd = dn.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank() ||
      static_cast<int64_t>(slice_sizes.size()) != rank ||
      !AllIn(dn.collapsed_slice_dims, rank) ||
      !AllIn(dn.operand_batching_dims, rank) ||
      !AllIn(dn.start_index_map, rank) || !AllIn(dn.offset_dims, out.rank()) ||
      !AllIn(dn.start_indices_batching_dims, indices.rank()) ||
      dn.operand_batching_dims.size() !=
          dn.start_indices_batching_dims.size()) {
    return NotVerified("inconsistent gather dimension numbers");
  }
  IndexLayout layout(indices, ivd);
  if (static_cast<int64_t>(dn.start_index_map.size()) != layout.index_size ||
      out.rank() != static_cast<int64_t>(layout.batch_sizes.size() +
                                         dn.offset_dims.size())) {
    return NotVerified("start_index_map or result rank does not match");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > operand.dimensions(d)) {
      return NotVerified("slice size out of range");
    }
  }
  std::vector<int64_t> remapped_offset_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.collapsed_slice_dims, d) &&
        !Contains(dn.operand_batching_dims, d)) {
      remapped_offset_dims.push_back(d);
    }
  }
  if (remapped_offset_dims.size() != dn.offset_dims.size()) {
    return NotVerified("offset_dims does not match the operand rank");
  }
  std::vector<int64_t> batch_dims;
  for (int64_t i = 0; i < out.rank(); ++i) {
    if (!Contains(dn.offset_dims, i)) batch_dims.push_back(i);
  }
  for (size_t j = 0; j < batch_dims.size(); ++j) {
    if (out.dimensions(batch_dims[j]) != layout.batch_sizes[j]) {
      return NotVerified("result batch dimension does not match");
    }
  }
  for (size_t k = 0; k < dn.offset_dims.size(); ++k) {
    if (out.dimensions(dn.offset_dims[k]) !=
        slice_sizes[remapped_offset_dims[k]]) {
      return NotVerified("result offset dimension does not match");
    }
  }
  // impl.gather.2: nothing can be read; the oracle gives zeros.
  bool nothing = false;
  for (int64_t d : dn.collapsed_slice_dims) nothing |= slice_sizes[d] == 0;
  for (int64_t d : dn.operand_batching_dims) nothing |= slice_sizes[d] == 0;
  const PrimitiveType type = out.element_type();
  if (nothing) {
    return ElementGenerator(
        [&ctx, type](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
          return ComputeZero(ctx, type);
        });
  }
  std::vector<int64_t> hi(rank);
  for (int64_t d = 0; d < rank; ++d) {
    hi[d] = operand.dimensions(d) - slice_sizes[d];
  }
  ElementGenerator op = operands[0];
  ElementGenerator idx = operands[1];
  const PrimitiveType index_type = indices.element_type();
  return ElementGenerator(
      [&ctx, op, idx, dn, layout, batch_dims, remapped_offset_dims, hi, rank,
       index_type](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        IRBuilder& b = ctx.b();
        std::vector<llvm::Value*> g;
        for (int64_t d : batch_dims) g.push_back(index[d]);
        IrIndex src(rank, ctx.I64(0));
        for (size_t t = 0; t < dn.operand_batching_dims.size(); ++t) {
          src[dn.operand_batching_dims[t]] =
              g[layout.BatchPositionOf(dn.start_indices_batching_dims[t])];
        }
        for (int64_t k = 0; k < layout.index_size; ++k) {
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * s,
                                  idx(layout.IndexOf(ctx, g, k)));
          s = IndexToI64(ctx, index_type, s);
          const int64_t d = dn.start_index_map[k];
          s = b.CreateSelect(b.CreateICmpSLT(s, ctx.I64(0)), ctx.I64(0), s);
          s = b.CreateSelect(b.CreateICmpSGT(s, ctx.I64(hi[d])), ctx.I64(hi[d]),
                             s);
          src[d] = s;
        }
        for (size_t k = 0; k < dn.offset_dims.size(); ++k) {
          const int64_t d = remapped_offset_dims[k];
          src[d] = b.CreateAdd(src[d], index[dn.offset_dims[k]]);
        }
        return op(src);
      });
}

// ---- scatter

// Loops over `sizes` in row-major order (the first dimension outermost).
absl::Status EmitRowMajorLoops(
    EmitContext& ctx, const std::vector<int64_t>& sizes, absl::string_view name,
    const std::function<absl::Status(const std::vector<llvm::Value*>&)>& body) {
  std::vector<llvm::Value*> index(sizes.size(), nullptr);
  std::function<absl::Status(size_t)> nest = [&](size_t d) -> absl::Status {
    if (d == sizes.size()) return body(index);
    if (sizes[d] == 1) {
      index[d] = ctx.I64(0);
      return nest(d + 1);
    }
    return ctx.EmitForLoop(absl::StrCat(name, ".d", d), ctx.I64(0),
                           ctx.I64(sizes[d]), ctx.I64(1),
                           [&](llvm::Value* iv) -> absl::Status {
                             index[d] = iv;
                             return nest(d + 1);
                           });
  };
  return nest(0);
}

absl::Status EmitScatter(EmitContext& ctx, const HloInstruction& inst,
                         absl::Span<const IrValue> operands,
                         const IrValue& output) {
  IRBuilder& b = ctx.b();
  const int64_t count = inst.operand_count();
  if (count < 3 || count % 2 == 0) {
    return NotVerified("scatter takes 2N+1 operands");
  }
  HLOREF_RETURN_IF_ERROR(ExpectStaticArrays(inst));
  if (!inst.shape().is_static()) {
    return absl::UnimplementedError("scatter with a non-static result");
  }
  const int64_t n = count / 2;
  const HloComputation* combiner = inst.to_apply();
  if (combiner == nullptr) return NotVerified("scatter has no to_apply");
  std::vector<IrArray> outs;
  output.CollectArrays(&outs);
  if (static_cast<int64_t>(outs.size()) != n) {
    return NotVerified("scatter result does not have one array per input");
  }
  const Shape& operand_shape = inst.operand(0)->shape();
  const Shape& indices_shape = inst.operand(n)->shape();
  const Shape& updates_shape = inst.operand(n + 1)->shape();
  const int64_t rank = operand_shape.rank();
  for (int64_t i = 0; i < n; ++i) {
    const Shape& in = inst.operand(i)->shape();
    const Shape& up = inst.operand(n + 1 + i)->shape();
    if (in.dimensions() != operand_shape.dimensions() ||
        up.dimensions() != updates_shape.dimensions() ||
        in.element_type() != up.element_type() ||
        outs[i].element_type() != in.element_type() ||
        outs[i].shape().dimensions() != in.dimensions()) {
      return NotVerified("inputs, updates and results do not match");
    }
  }
  if (!IsInteger(indices_shape.element_type())) {
    return NotVerified("scatter_indices must be integers");
  }
  const ScatterDimensionNumbers& dn = inst.attrs().scatter_dimension_numbers;
  const int64_t ivd = dn.index_vector_dim;
  if (ivd < 0 || ivd > indices_shape.rank() ||
      !AllIn(dn.update_window_dims, updates_shape.rank()) ||
      !AllIn(dn.inserted_window_dims, rank) ||
      !AllIn(dn.input_batching_dims, rank) ||
      !AllIn(dn.scatter_dims_to_operand_dims, rank) ||
      !AllIn(dn.scatter_indices_batching_dims, indices_shape.rank()) ||
      dn.input_batching_dims.size() !=
          dn.scatter_indices_batching_dims.size()) {
    return NotVerified("inconsistent scatter dimension numbers");
  }
  IndexLayout layout(indices_shape, ivd);
  if (static_cast<int64_t>(dn.scatter_dims_to_operand_dims.size()) !=
      layout.index_size) {
    return NotVerified("scatter_dims_to_operand_dims does not match");
  }
  std::vector<int64_t> window_to_operand;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) &&
        !Contains(dn.input_batching_dims, d)) {
      window_to_operand.push_back(d);
    }
  }
  if (window_to_operand.size() != dn.update_window_dims.size()) {
    return NotVerified("update_window_dims does not match the operand");
  }
  std::vector<int64_t> update_scatter_dims;
  for (int64_t i = 0; i < updates_shape.rank(); ++i) {
    if (!Contains(dn.update_window_dims, i)) update_scatter_dims.push_back(i);
  }
  if (update_scatter_dims.size() != layout.batch_sizes.size()) {
    return NotVerified("updates rank does not match");
  }
  for (size_t j = 0; j < update_scatter_dims.size(); ++j) {
    if (updates_shape.dimensions(update_scatter_dims[j]) !=
        layout.batch_sizes[j]) {
      return NotVerified("updates scatter dimension does not match");
    }
  }
  std::vector<int64_t> window_size(rank, 1);
  std::vector<int64_t> window_sizes_in_order;
  bool any_window = true;
  for (size_t k = 0; k < dn.update_window_dims.size(); ++k) {
    const int64_t size = updates_shape.dimensions(dn.update_window_dims[k]);
    if (size > operand_shape.dimensions(window_to_operand[k])) {
      return NotVerified("update window larger than the operand");
    }
    window_size[window_to_operand[k]] = size;
    window_sizes_in_order.push_back(size);
    any_window = any_window && size > 0;
  }

  // The outputs start as copies of the inputs.
  for (int64_t i = 0; i < n; ++i) {
    IrValue to;
    to.shape = outs[i].shape();
    to.array = outs[i];
    HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(operands[i], to));
  }
  if (operand_shape.num_elements() == 0 || updates_shape.num_elements() == 0 ||
      !any_window) {
    return absl::OkStatus();
  }
  const IrArray& indices = operands[n].array;
  const PrimitiveType index_type = indices_shape.element_type();
  std::vector<IrArray> updates;
  for (int64_t i = 0; i < n; ++i) updates.push_back(operands[n + 1 + i].array);

  return EmitRowMajorLoops(
      ctx, layout.batch_sizes, "scatter.batch",
      [&](const std::vector<llvm::Value*>& g) -> absl::Status {
        std::vector<llvm::Value*> start(rank, ctx.I64(0));
        for (size_t t = 0; t < dn.input_batching_dims.size(); ++t) {
          start[dn.input_batching_dims[t]] =
              g[layout.BatchPositionOf(dn.scatter_indices_batching_dims[t])];
        }
        for (int64_t k = 0; k < layout.index_size; ++k) {
          llvm::Value* s = indices.EmitRead(ctx, layout.IndexOf(ctx, g, k));
          start[dn.scatter_dims_to_operand_dims[k]] =
              IndexToI64(ctx, index_type, s);
        }
        // The window is applied only if it fits entirely.
        llvm::Value* valid = ctx.I1(true);
        for (int64_t d = 0; d < rank; ++d) {
          const int64_t hi = operand_shape.dimensions(d) - window_size[d];
          valid = b.CreateAnd(valid, b.CreateICmpSGE(start[d], ctx.I64(0)));
          valid = b.CreateAnd(valid, b.CreateICmpSLE(start[d], ctx.I64(hi)));
        }
        llvm::Function* f = b.GetInsertBlock()->getParent();
        llvm::BasicBlock* apply_bb =
            llvm::BasicBlock::Create(ctx.context(), "scatter.apply", f);
        llvm::BasicBlock* next_bb =
            llvm::BasicBlock::Create(ctx.context(), "scatter.next", f);
        b.CreateCondBr(valid, apply_bb, next_bb);
        b.SetInsertPoint(apply_bb);
        HLOREF_RETURN_IF_ERROR(EmitRowMajorLoops(
            ctx, window_sizes_in_order, "scatter.window",
            [&](const std::vector<llvm::Value*>& w) -> absl::Status {
              IrIndex operand_index(start.begin(), start.end());
              IrIndex update_index(updates_shape.rank(), nullptr);
              for (size_t j = 0; j < update_scatter_dims.size(); ++j) {
                update_index[update_scatter_dims[j]] = g[j];
              }
              for (size_t k = 0; k < w.size(); ++k) {
                update_index[dn.update_window_dims[k]] = w[k];
                const int64_t d = window_to_operand[k];
                operand_index[d] = b.CreateAdd(operand_index[d], w[k]);
              }
              // impl.scatter.5: a computation in another floating-point
              // precision gets its arguments converted to its parameter
              // types and its results converted back to T_i.
              std::vector<llvm::Value*> args;
              for (int64_t k = 0; k < 2 * n; ++k) {
                llvm::Value* v =
                    k < n ? outs[k].EmitRead(ctx, operand_index)
                          : updates[k - n].EmitRead(ctx, update_index);
                const PrimitiveType from =
                    inst.operand(k < n ? k : k + 1)->shape().element_type();
                const HloInstruction* p = combiner->parameter(k);
                if (p != nullptr && p->shape().IsArray() &&
                    p->shape().element_type() != from) {
                  HLOREF_ASSIGN_OR_RETURN(
                      v, EmitConvertValue(ctx, from, p->shape().element_type(),
                                          v));
                }
                args.push_back(v);
              }
              HLOREF_ASSIGN_OR_RETURN(
                  std::vector<llvm::Value*> results,
                  ctx.EmitCallScalarComputation(*combiner, args));
              if (static_cast<int64_t>(results.size()) != n) {
                return NotVerified(
                    "the update computation does not return one scalar per "
                    "input");
              }
              const Shape& root = combiner->root()->shape();
              for (int64_t i = 0; i < n; ++i) {
                const Shape& leaf = n == 1 ? root : root.tuple_shapes(i);
                llvm::Value* v = results[i];
                if (leaf.IsArray() &&
                    leaf.element_type() != outs[i].element_type()) {
                  HLOREF_ASSIGN_OR_RETURN(
                      v, EmitConvertValue(ctx, leaf.element_type(),
                                          outs[i].element_type(), v));
                }
                outs[i].EmitWrite(ctx, operand_index, v);
              }
              return absl::OkStatus();
            }));
        b.CreateBr(next_bb);
        b.SetInsertPoint(next_bb);
        return absl::OkStatus();
      });
}

}  // namespace

void RegisterGatherScatterEmitters(EmitterTable& table) {
  table.SetElemental(HloOpcode::kGather, EmitGather);
  table.SetBuffer(HloOpcode::kScatter, EmitScatter);
}

}  // namespace hloref::codegen
