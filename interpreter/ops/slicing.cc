// The kSlicing family: Slice, DynamicSlice, DynamicUpdateSlice (seed 001).
// All three move element bytes through one strided copy, so every element
// type is covered at once.
#include "interpreter/ops/slicing.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

// The start indices of a dynamic slice, from operands[first] onward, in
// either form XLA accepts: one integer scalar per dimension (current), or
// one rank-1 vector holding all of them (legacy, text-format 6.4).
absl::StatusOr<std::vector<int64_t>> ReadStartIndices(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    int64_t first, int64_t rank) {
  const int64_t count = static_cast<int64_t>(operands.size()) - first;
  std::vector<int64_t> start_indices(rank);
  const bool vector_form = count == 1 && operands[first]->shape().IsArray() &&
                           operands[first]->shape().rank() == 1 &&
                           operands[first]->shape().dimensions(0) == rank;
  if (vector_form) {
    for (int64_t d = 0; d < rank; ++d) {
      HLOREF_ASSIGN_OR_RETURN(start_indices[d],
                              ReadIndexElement(*operands[first], d));
    }
    return start_indices;
  }
  if (count != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "has ", count,
        " start index operands, expected ", rank, " scalars or one s32[", rank,
        "] vector (is the module verified?)"));
  }
  for (int64_t d = 0; d < rank; ++d) {
    const Literal& index = *operands[first + d];
    if (!index.shape().IsArray() || index.shape().rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "start index operand ",
                       first + d, " is ", index.shape().ToString(),
                       ", expected an integer scalar (is the "
                       "module verified?)"));
    }
    HLOREF_ASSIGN_OR_RETURN(start_indices[d], ReadIndexElement(index, 0));
  }
  return start_indices;
}

}  // namespace

// Picks operand[start_indices + i * strides] for every result index i.
// Semantics: Slice.
absl::StatusOr<Literal> EvalSlice(const HloInstruction& inst,
                                  absl::Span<const Literal* const> operands,
                                  EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  const SliceConfig& slice = inst.attrs().slice;
  const std::vector<int64_t>& start_indices = slice.start_indices;
  const std::vector<int64_t>& limit_indices = slice.limit_indices;
  const std::vector<int64_t>& strides = slice.strides;
  absl::Span<const int64_t> dims = operand.shape().dimensions();
  const int64_t rank = operand.shape().rank();
  std::vector<int64_t> operand_strides = RowMajorStrides(dims);
  std::vector<int64_t> src_strides(rank);
  int64_t src_base = 0;
  const bool sizes_ok = static_cast<int64_t>(start_indices.size()) == rank &&
                        static_cast<int64_t>(limit_indices.size()) == rank &&
                        static_cast<int64_t>(strides.size()) == rank &&
                        inst.shape().IsArray() && inst.shape().rank() == rank;
  for (int64_t d = 0; sizes_ok && d < rank; ++d) {
    if (start_indices[d] < 0 || limit_indices[d] < start_indices[d] ||
        limit_indices[d] > dims[d] || strides[d] <= 0 ||
        inst.shape().dimensions(d) !=
            CeilDiv(limit_indices[d] - start_indices[d], strides[d])) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "slice [", start_indices[d], ":",
          limit_indices[d], ":", strides[d], "] of dimension ", d, " (size ",
          dims[d], ") does not give result size ", inst.shape().dimensions(d),
          " (is the module verified?)"));
    }
    src_base += start_indices[d] * operand_strides[d];
    src_strides[d] = strides[d] * operand_strides[d];
  }
  if (!sizes_ok) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst),
                     "slice has the wrong number of entries for "
                     "rank ",
                     rank, " (is the module verified?)"));
  }
  // StridedCopy writes every element.
  HLOREF_ASSIGN_OR_RETURN(Literal result, NewResult(inst.shape(), ctx));
  StridedCopy(StorageBytes(operand.element_type()), inst.shape().dimensions(),
              operand.raw().data(), src_base, src_strides,
              result.mutable_raw().data(), 0,
              RowMajorStrides(inst.shape().dimensions()));
  // Runtime sizes (interpreter/dynamic_sizes.h): result dimension d holds
  // the strided positions below min(limit, the operand's runtime size); a
  // full slice (0:bound:1) keeps the runtime size, as XLA's dynamic
  // dimension inference does. A partial slice into a static result
  // dimension that reaches padding gets those elements marked
  // impl.dynamic.1 (XLA reads whatever the padding holds).
  if (!operand.shape().is_static() || !inst.shape().is_static()) {
    std::vector<int64_t> sizes(rank);
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t end = std::min(limit_indices[d], operand.GetDynamicSize(d));
      sizes[d] =
          std::max<int64_t>(0, CeilDiv(end - start_indices[d], strides[d]));
    }
    ApplyRuntimeSizes(inst.shape(), sizes, result, ctx);
  }
  return result;
}

// Extracts the size_indices-sized block at start_indices. Each start index
// is first clamped to [0, operand.dimension_size[i] - size_indices[i]], as
// the seed states (it writes "i in [1, N)"; its 1-dimensional example and
// XLA clamp every dimension, so we do). The comparison is in the index
// type (unsigned indices never look negative). Because seed 001 defines
// the clamp, clamped results are not marked implementation-defined.
// Semantics: DynamicSlice.
absl::StatusOr<Literal> EvalDynamicSlice(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, -1));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  absl::Span<const int64_t> dims = operand.shape().dimensions();
  const int64_t rank = operand.shape().rank();
  const std::vector<int64_t>& size_indices = inst.attrs().dynamic_slice_sizes;
  if (static_cast<int64_t>(size_indices.size()) != rank ||
      !inst.shape().IsArray() || inst.shape().rank() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "dynamic_slice_sizes has ",
                     size_indices.size(), " entries, operand rank is ", rank,
                     " (is the module verified?)"));
  }
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> start_indices,
                          ReadStartIndices(inst, operands, 1, rank));
  std::vector<int64_t> operand_strides = RowMajorStrides(dims);
  int64_t src_base = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (size_indices[i] < 0 || size_indices[i] > dims[i] ||
        inst.shape().dimensions(i) != size_indices[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "slice size ", size_indices[i],
                       " does not fit dimension ", i, " of size ", dims[i],
                       " (is the module verified?)"));
    }
    start_indices[i] =
        std::clamp<int64_t>(start_indices[i], 0, dims[i] - size_indices[i]);
    src_base += start_indices[i] * operand_strides[i];
  }
  // StridedCopy writes every element.
  HLOREF_ASSIGN_OR_RETURN(Literal result, NewResult(inst.shape(), ctx));
  StridedCopy(StorageBytes(operand.element_type()), size_indices,
              operand.raw().data(), src_base, operand_strides,
              result.mutable_raw().data(), 0, RowMajorStrides(size_indices));
  return result;
}

// The operand with `update` written at start_indices, each clamped to
// [0, operand.dimension_size[i] - update.dimension_size[i]] (every
// dimension; see EvalDynamicSlice). Semantics: DynamicUpdateSlice.
absl::StatusOr<Literal> EvalDynamicUpdateSlice(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 2, -1));
  const Literal& operand = *operands[0];
  const Literal& update = *operands[1];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, update, 1));
  absl::Span<const int64_t> dims = operand.shape().dimensions();
  const int64_t rank = operand.shape().rank();
  if (update.shape().rank() != rank ||
      update.element_type() != operand.element_type()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "update ", update.shape().ToString(),
        " does not match operand ", operand.shape().ToString(),
        " in rank or element type (is the module verified?)"));
  }
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> start_indices,
                          ReadStartIndices(inst, operands, 2, rank));
  absl::Span<const int64_t> update_dims = update.shape().dimensions();
  std::vector<int64_t> operand_strides = RowMajorStrides(dims);
  int64_t dst_base = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (update_dims[i] > dims[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "update dimension ", i, " (size ",
          update_dims[i], ") is larger than the operand's (", dims[i],
          ") (is the module verified?)"));
    }
    start_indices[i] =
        std::clamp<int64_t>(start_indices[i], 0, dims[i] - update_dims[i]);
    dst_base += start_indices[i] * operand_strides[i];
  }
  // In place when this is the operand's last reader (a while loop's KV
  // cache): the operand's storage becomes the result.
  std::optional<Literal> taken =
      &update != &operand ? ctx.TakeOperand(0) : std::nullopt;
  Literal result;
  if (taken.has_value()) {
    result = std::move(*taken);
  } else {
    result = operand;
  }
  if (inst.shape().IsArray() && inst.shape().has_layout()) {
    result.set_layout(inst.shape().layout());
  }
  StridedCopy(StorageBytes(result.element_type()), update_dims,
              update.raw().data(), 0, RowMajorStrides(update_dims),
              result.mutable_raw().data(), dst_base, operand_strides);
  return result;
}

// Family entry point (families.h).
absl::StatusOr<Literal> EvalSlicing(const HloInstruction& inst,
                                    absl::Span<const Literal* const> operands,
                                    EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kSlice:
      return EvalSlice(inst, operands, ctx);
    case HloOpcode::kDynamicSlice:
      return EvalDynamicSlice(inst, operands, ctx);
    case HloOpcode::kDynamicUpdateSlice:
      return EvalDynamicUpdateSlice(inst, operands, ctx);
    default:
      return InstructionInternal(inst, "not an op of the kSlicing family");
  }
}

}  // namespace hloref
