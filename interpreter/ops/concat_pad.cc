// The kConcatPad family: Concatenate and Pad (seed 001). Both only move
// element bytes, so one strided copy covers every element type.
#include "interpreter/ops/concat_pad.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/dynamic_sizes.h"
#include "interpreter/index_util.h"
#include "interpreter/ops/families.h"

namespace hloref {
namespace {

// Storage for a result whose every element the op writes:
// AllocateLiteral's size check (and its error), then
// EvalContext::NewUninitialized (no zero fill; the storage of a value
// freed earlier in the run where the evaluator keeps one of that size, so
// that the result does not fault in fresh pages).
absl::StatusOr<Literal> NewResult(const Shape& shape, EvalContext& ctx) {
  const int64_t max_elements = ctx.options().max_elements_per_value;
  if (!CheckShapeSize(shape, max_elements).ok()) {
    return AllocateLiteral(shape, max_elements);
  }
  return ctx.NewUninitialized(shape);
}

}  // namespace

// Places the operands one after another along `dimension`, in order.
// Semantics: Concatenate.
absl::StatusOr<Literal> EvalConcatenate(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, -1));
  const Shape& result_shape = inst.shape();
  if (inst.attrs().dimensions.size() != 1 || !result_shape.IsArray() ||
      inst.attrs().dimensions[0] < 0 ||
      inst.attrs().dimensions[0] >= result_shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "dimensions must name one dimension of ",
        result_shape.ToString(), " (is the module verified?)"));
  }
  const int64_t dimension = inst.attrs().dimensions[0];
  absl::Span<const int64_t> result_dims = result_shape.dimensions();
  std::vector<int64_t> result_strides = RowMajorStrides(result_dims);
  // The operands fill the result (checked below before anything is
  // written).
  HLOREF_ASSIGN_OR_RETURN(Literal result, NewResult(result_shape, ctx));
  // Check every operand before writing anything.
  int64_t total = 0;
  for (size_t k = 0; k < operands.size(); ++k) {
    const Literal& operand = *operands[k];
    HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, k));
    bool fits = operand.element_type() == result.element_type() &&
                operand.shape().rank() == result_shape.rank();
    for (int64_t d = 0; fits && d < result_shape.rank(); ++d) {
      if (d != dimension)
        fits = operand.shape().dimensions(d) == result_dims[d];
    }
    if (!fits) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "operand ", k, " ",
                       operand.shape().ToString(), " does not fit result ",
                       result_shape.ToString(), " (is the module verified?)"));
    }
    total += operand.shape().dimensions(dimension);
  }
  if (total != result_dims[dimension]) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "operand sizes along dimension ",
                     dimension, " add up to ", total, ", result has ",
                     result_dims[dimension], " (is the module verified?)"));
  }
  // Only each operand's valid box is copied, operands placed one after
  // another by runtime size along `dimension`: XLA's dynamic padder
  // rewrites a concatenate on a dynamic dimension the same way (each
  // operand dynamic-update-sliced at the sum of the previous sizes). Other
  // dimensions take the operands' common runtime size
  // (interpreter/dynamic_sizes.h).
  const int elem_bytes = StorageBytes(result.element_type());
  int64_t offset = 0;
  for (const Literal* operand : operands) {
    absl::Span<const int64_t> sizes = operand->dynamic_sizes();
    StridedCopy(elem_bytes, sizes, operand->raw().data(), 0,
                RowMajorStrides(operand->shape().dimensions()),
                result.mutable_raw().data(), offset * result_strides[dimension],
                result_strides);
    offset += sizes[dimension];
  }
  bool dynamic = !result_shape.is_static();
  for (const Literal* operand : operands) {
    if (!operand->shape().is_static()) dynamic = true;
  }
  if (dynamic) {
    std::vector<int64_t> sizes(result_dims.begin(), result_dims.end());
    for (int64_t d = 0; d < result_shape.rank(); ++d) {
      if (d == dimension) {
        sizes[d] = offset;
      } else {
        HLOREF_ASSIGN_OR_RETURN(
            sizes[d], CommonRuntimeSize(inst, operands, result_shape.rank(), d,
                                        result_dims[d]));
      }
    }
    ApplyRuntimeSizes(result_shape, sizes, result, ctx);
  }
  return result;
}

// Fills the result with padding_value, then writes operand index j of each
// dimension at edge_padding_low + j * (interior_padding + 1). Interior
// padding comes first, so negative edge padding removes elements of the
// interior-padded operand: only operand indices whose position falls
// inside the result are copied. Semantics: Pad.
absl::StatusOr<Literal> EvalPad(const HloInstruction& inst,
                                absl::Span<const Literal* const> operands,
                                EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 2, 2));
  const Literal& operand = *operands[0];
  const Literal& padding_value = *operands[1];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, padding_value, 1));
  const PaddingConfig& padding_config = inst.attrs().padding;
  const Shape& result_shape = inst.shape();
  const int64_t rank = operand.shape().rank();
  if (padding_value.shape().rank() != 0 ||
      padding_value.element_type() != operand.element_type() ||
      static_cast<int64_t>(padding_config.dimensions.size()) != rank ||
      !result_shape.IsArray() || result_shape.rank() != rank ||
      result_shape.element_type() != operand.element_type()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst),
        "padding value, padding config and result shape must match the "
        "operand's element type and rank (is the module verified?)"));
  }
  absl::Span<const int64_t> dims = operand.shape().dimensions();
  absl::Span<const int64_t> result_dims = result_shape.dimensions();
  std::vector<int64_t> operand_strides = RowMajorStrides(dims);
  std::vector<int64_t> result_strides = RowMajorStrides(result_dims);
  // The box of operand indices that land inside the result, and where.
  std::vector<int64_t> count(rank);
  std::vector<int64_t> dst_strides(rank);
  int64_t src_base = 0;
  int64_t dst_base = 0;
  for (int64_t d = 0; d < rank; ++d) {
    const PaddingDimension& p = padding_config.dimensions[d];
    const int64_t step = p.interior_padding + 1;
    const int64_t expected =
        dims[d] == 0 ? p.edge_padding_low + p.edge_padding_high
                     : p.edge_padding_low + p.edge_padding_high + dims[d] +
                           (dims[d] - 1) * p.interior_padding;
    if (p.interior_padding < 0 || result_dims[d] != expected) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "padding of dimension ", d, " (",
          p.edge_padding_low, "_", p.edge_padding_high, "_", p.interior_padding,
          ") on size ", dims[d], " gives ", expected, ", result has ",
          result_dims[d], " (is the module verified?)"));
    }
    // Operand index j lands at low + j * step; keep 0 <= that < result.
    const int64_t first =
        std::max<int64_t>(0, CeilDiv(-p.edge_padding_low, step));
    const int64_t last = std::min<int64_t>(
        dims[d] - 1, FloorDiv(result_dims[d] - 1 - p.edge_padding_low, step));
    count[d] = std::max<int64_t>(0, last - first + 1);
    src_base += first * operand_strides[d];
    dst_base += (p.edge_padding_low + first * step) * result_strides[d];
    dst_strides[d] = step * result_strides[d];
  }
  // The padding value is written everywhere first.
  HLOREF_ASSIGN_OR_RETURN(Literal result, NewResult(result_shape, ctx));
  const int elem_bytes = StorageBytes(operand.element_type());
  std::vector<int64_t> zero_strides(rank, 0);
  StridedCopy(elem_bytes, result_dims, padding_value.raw().data(), 0,
              zero_strides, result.mutable_raw().data(), 0, result_strides);
  StridedCopy(elem_bytes, count, operand.raw().data(), src_base,
              operand_strides, result.mutable_raw().data(), dst_base,
              dst_strides);
  return result;
}

// Family entry point (families.h).
absl::StatusOr<Literal> EvalConcatPad(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kConcatenate:
      return EvalConcatenate(inst, operands, ctx);
    case HloOpcode::kPad:
      return EvalPad(inst, operands, ctx);
    default:
      return InstructionInternal(inst, "not an op of the kConcatPad family");
  }
}

}  // namespace hloref
