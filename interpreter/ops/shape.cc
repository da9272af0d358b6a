// The kShape family: BroadcastInDim, Reshape, Transpose, Rev (reverse),
// Iota, GetDimensionSize, SetDimensionSize (seed 001) and copy, bitcast,
// dynamic-reshape (text-format 6.4). Every op here only moves element
// bytes (iota excepted), so one strided copy serves all element types.
#include "interpreter/ops/shape.h"

#include <cmath>
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
#include "spec/types/minifloat.h"

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

// The element bytes of `operand` copied into a literal of `shape` (same
// element type and element count; the layout is the instruction's).
absl::StatusOr<Literal> Relabel(const HloInstruction& inst,
                                const Literal& operand, const Shape& shape,
                                EvalContext& ctx) {
  // Every byte is copied below.
  HLOREF_ASSIGN_OR_RETURN(Literal result, NewResult(shape, ctx));
  if (result.element_type() != operand.element_type() ||
      result.raw().size() != operand.raw().size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "operand ", operand.shape().ToString(),
        " and result ", shape.ToString(),
        " differ in element type or element count (is the module "
        "verified?)"));
  }
  if (!operand.raw().empty()) {
    std::memcpy(result.mutable_raw().data(), operand.raw().data(),
                operand.raw().size());
  }
  return result;
}

absl::Status ExpectStaticArray(const HloInstruction& inst,
                               const Literal& value) {
  if (!value.shape().is_static()) {
    return InstructionUnimplemented(
        inst, absl::StrCat("operand shape ", value.shape().ToString(),
                           " is dynamic; a bitcast of a dynamic shape "
                           "depends on how a backend stores padding and is "
                           "not evaluated"));
  }
  return absl::OkStatus();
}

// Runtime size checks of set-dimension-size and dynamic-reshape.
constexpr absl::string_view kSizeRangeImplId = "impl.dynamic.3";

// The valid elements of `compact` (a static array, row-major) laid out as
// the result `shape` with runtime sizes `sizes`: the row-major reshape of
// the valid elements, padding zero. Requires Product(sizes) equal to the
// element count of `compact` and every size within its bound (static
// dimensions: equal to it).
absl::StatusOr<Literal> PlaceReshaped(const HloInstruction& inst,
                                      const Literal& compact,
                                      const Shape& shape,
                                      absl::Span<const int64_t> sizes) {
  Literal relabelled(Shape::Array(compact.element_type(), sizes));
  if (relabelled.raw().size() != compact.raw().size()) {
    return InstructionInternal(inst, "reshaped element counts differ");
  }
  if (!compact.raw().empty()) {
    std::memcpy(relabelled.mutable_raw().data(), compact.raw().data(),
                compact.raw().size());
  }
  absl::StatusOr<Literal> placed = Literal::ToBoundedDynamic(relabelled, shape);
  if (!placed.ok()) {
    return absl::OutOfRangeError(absl::StrCat(InstructionPrefix(inst),
                                              placed.status().message(), " (",
                                              kSizeRangeImplId, ")"));
  }
  return placed;
}

}  // namespace

// Expands the operand to the result shape; operand dimension i maps to
// result dimension broadcast_dimensions[i]. A size-1 operand dimension
// mapped to a larger one repeats (degenerate-dimension broadcasting, seed
// 000 "Broadcasting"), so its stride is 0 like an added dimension's.
// Semantics: BroadcastInDim (and Broadcast, its special case).
absl::StatusOr<Literal> EvalBroadcastInDim(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  const Shape& out_shape = inst.shape();
  absl::Span<const int64_t> out_dim_size = out_shape.dimensions();
  const std::vector<int64_t>& broadcast_dimensions = inst.attrs().dimensions;
  if (static_cast<int64_t>(broadcast_dimensions.size()) !=
      operand.shape().rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "dimensions has ",
                     broadcast_dimensions.size(), " entries, operand rank is ",
                     operand.shape().rank(), " (is the module verified?)"));
  }
  std::vector<int64_t> operand_strides =
      RowMajorStrides(operand.shape().dimensions());
  std::vector<int64_t> src_strides(out_dim_size.size(), 0);
  for (size_t i = 0; i < broadcast_dimensions.size(); ++i) {
    const int64_t out_dim = broadcast_dimensions[i];
    const int64_t size = operand.shape().dimensions(i);
    if (out_dim < 0 || out_dim >= out_shape.rank() ||
        (size != 1 && size != out_dim_size[out_dim])) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "operand dimension ", i,
                       " (size ", size, ") cannot map to result dimension ",
                       out_dim, " (is the module verified?)"));
    }
    if (size != 1) src_strides[out_dim] = operand_strides[i];
  }
  // Every element is written below.
  HLOREF_ASSIGN_OR_RETURN(Literal result, NewResult(out_shape, ctx));
  if (result.element_type() != operand.element_type()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst),
                     "result element type differs from the "
                     "operand's (is the module verified?)"));
  }
  StridedCopy(StorageBytes(operand.element_type()), out_dim_size,
              operand.raw().data(), 0, src_strides, result.mutable_raw().data(),
              0, RowMajorStrides(out_dim_size));
  // Runtime sizes: a result dimension fed by an operand dimension has that
  // dimension's runtime size (a size-1 dimension broadcast wider has none
  // to give); added dimensions are full.
  if (!operand.shape().is_static() || !out_shape.is_static()) {
    std::vector<int64_t> sizes(out_dim_size.begin(), out_dim_size.end());
    for (size_t i = 0; i < broadcast_dimensions.size(); ++i) {
      if (operand.shape().dimensions(i) ==
          out_dim_size[broadcast_dimensions[i]]) {
        sizes[broadcast_dimensions[i]] = operand.GetDynamicSize(i);
      }
    }
    ApplyRuntimeSizes(inst.shape(), sizes, result, ctx);
  }
  return result;
}

// Row-major reshape: flattening and refining in row-major order leaves the
// row-major element sequence unchanged, so the bytes carry over. The
// seed's Reshape(operand, dimensions, new_sizes) with a non-identity
// `dimensions` reaches HLO as transpose + reshape (and Collapse as a plain
// reshape).
// An operand with padding (runtime sizes below bounds) reshapes its valid
// elements, row-major, as XLA's dynamic padder does; the result's runtime
// sizes are inferred: with no dynamic result dimension the element counts
// must agree; with one, it takes count / (product of the others); with
// several, the operand and result must have the same bounds apart from
// size-1 dimensions, and each keeps its runtime size. Counts that do not
// fit are OutOfRange (impl.dynamic.3); other patterns are Unimplemented.
// Semantics: Reshape.
absl::StatusOr<Literal> EvalReshape(const HloInstruction& inst,
                                    absl::Span<const Literal* const> operands,
                                    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  if (!operand.HasPadding()) {
    return Relabel(inst, operand, inst.shape(), ctx);
  }
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || shape.element_type() != operand.element_type()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "result ", shape.ToString(),
                     " does not match the operand (is the module verified?)"));
  }
  const Literal compact = operand.ToStatic();
  const int64_t count = compact.element_count();
  std::vector<int64_t> sizes(shape.dimensions().begin(),
                             shape.dimensions().end());
  std::vector<int64_t> dynamic_dims;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.is_dynamic_dimension(d)) dynamic_dims.push_back(d);
  }
  if (dynamic_dims.size() == 1) {
    const int64_t d = dynamic_dims[0];
    int64_t others = 1;
    for (int64_t e = 0; e < shape.rank(); ++e) {
      if (e != d) others *= shape.dimensions(e);
    }
    if (others == 0 || count % others != 0) {
      return absl::OutOfRangeError(absl::StrCat(
          InstructionPrefix(inst), "the operand's ", count,
          " valid elements do not fill whole rows of the other result "
          "dimensions (",
          others, " elements each) (", kSizeRangeImplId, ")"));
    }
    sizes[d] = count / others;
  } else if (dynamic_dims.size() > 1) {
    // Same bounds apart from size-1 dimensions: sizes carry over in order.
    std::vector<int64_t> from;
    for (int64_t d = 0; d < operand.shape().rank(); ++d) {
      if (operand.shape().dimensions(d) != 1) from.push_back(d);
    }
    std::vector<int64_t> to;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (shape.dimensions(d) != 1) to.push_back(d);
    }
    bool same = from.size() == to.size();
    for (size_t j = 0; same && j < from.size(); ++j) {
      same = operand.shape().dimensions(from[j]) == shape.dimensions(to[j]);
    }
    if (!same) {
      return InstructionUnimplemented(
          inst, absl::StrCat("reshape of ", operand.shape().ToString(false),
                             " with runtime sizes (",
                             absl::StrJoin(operand.dynamic_sizes(), ","),
                             ") to several dynamic dimensions ",
                             shape.ToString(false),
                             " that do not correspond one to one"));
    }
    for (size_t j = 0; j < from.size(); ++j) {
      sizes[to[j]] = operand.GetDynamicSize(from[j]);
    }
  }
  return PlaceReshaped(inst, compact, shape, sizes);
}

// Result dimension i is operand dimension permutation[i] (the HLO
// attribute `dimensions`). Semantics: Transpose.
absl::StatusOr<Literal> EvalTranspose(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  const std::vector<int64_t>& permutation = inst.attrs().dimensions;
  const int64_t rank = operand.shape().rank();
  if (static_cast<int64_t>(permutation.size()) != rank ||
      inst.shape().rank() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "dimensions {",
                     absl::StrJoin(permutation, ","),
                     "} is not a permutation of the operand's ", rank,
                     " dimensions (is the module verified?)"));
  }
  std::vector<int64_t> operand_strides =
      RowMajorStrides(operand.shape().dimensions());
  std::vector<int64_t> src_strides(rank);
  std::vector<bool> seen(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = permutation[i];
    if (p < 0 || p >= rank || seen[p] ||
        operand.shape().dimensions(p) != inst.shape().dimensions(i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "dimensions {",
          absl::StrJoin(permutation, ","),
          "} does not map the operand shape to the result shape (is the "
          "module verified?)"));
    }
    seen[p] = true;
    src_strides[i] = operand_strides[p];
  }
  // StridedCopy writes every element.
  HLOREF_ASSIGN_OR_RETURN(Literal result, NewResult(inst.shape(), ctx));
  StridedCopy(StorageBytes(operand.element_type()), inst.shape().dimensions(),
              operand.raw().data(), 0, src_strides, result.mutable_raw().data(),
              0, RowMajorStrides(inst.shape().dimensions()));
  // Result dimension i has operand dimension permutation[i]'s runtime size.
  if (!operand.shape().is_static() || !inst.shape().is_static()) {
    std::vector<int64_t> sizes(rank);
    for (int64_t i = 0; i < rank; ++i) {
      sizes[i] = operand.GetDynamicSize(permutation[i]);
    }
    ApplyRuntimeSizes(inst.shape(), sizes, result, ctx);
  }
  return result;
}

// Index i of each dimension in `dimensions` (size N) reads operand index
// N - 1 - i: a negative stride from the last element. Semantics: Rev
// (reverse).
absl::StatusOr<Literal> EvalRev(const HloInstruction& inst,
                                absl::Span<const Literal* const> operands,
                                EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  absl::Span<const int64_t> dims = operand.shape().dimensions();
  std::vector<int64_t> src_strides = RowMajorStrides(dims);
  int64_t src_base = 0;
  std::vector<bool> reversed(dims.size(), false);
  for (int64_t d : inst.attrs().dimensions) {
    if (d < 0 || d >= static_cast<int64_t>(dims.size()) || reversed[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "dimensions {",
                       absl::StrJoin(inst.attrs().dimensions, ","),
                       "} are not distinct dimensions of rank ", dims.size(),
                       " (is the module verified?)"));
    }
    reversed[d] = true;
    if (dims[d] > 0) src_base += (dims[d] - 1) * src_strides[d];
    src_strides[d] = -src_strides[d];
  }
  HLOREF_ASSIGN_OR_RETURN(Literal result,
                          Relabel(inst, operand, inst.shape(), ctx));
  StridedCopy(StorageBytes(operand.element_type()), dims, operand.raw().data(),
              src_base, src_strides, result.mutable_raw().data(), 0,
              RowMajorStrides(dims));
  return result;
}

// Values 0, 1, ... along iota_dimension, converted to the element type as
// ConvertElementType would (integers wrap to the width, floats round to
// nearest even, pred is value != 0). Only dims[iota_dimension] distinct
// values exist, so they are converted once and then copied with stride 0
// along every other dimension.
// impl.iota.1: a value that rounds beyond the largest finite value of a
// float type without infinity (f8e4m3fn, the fnuz types, f4/f6, f8e8m0fnu), or
// 0 for f8e8m0fnu (no zero), takes convert's overflow rule; those elements are
// marked.
// Semantics: Iota.
absl::StatusOr<Literal> EvalIota(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands,
                                 EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 0, 0));
  const Shape& shape = inst.shape();
  const int64_t iota_dimension = inst.attrs().iota_dimension;
  if (!shape.IsArray() || iota_dimension < 0 ||
      iota_dimension >= shape.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "iota_dimension ", iota_dimension,
                     " is not a dimension of ", shape.ToString(),
                     " (is the module verified?)"));
  }
  const PrimitiveType type = shape.element_type();
  const int64_t n = shape.dimensions(iota_dimension);
  HLOREF_ASSIGN_OR_RETURN(
      Literal result,
      AllocateLiteral(shape, ctx.options().max_elements_per_value));
  Literal values(Shape::Array(type, {n}));
  std::vector<bool> overflowed(n, false);
  bool any_overflow = false;
  const TypeKind kind = KindOf(type);
  for (int64_t j = 0; j < n; ++j) {
    switch (kind) {
      case TypeKind::kPred:
        values.SetRawBits(j, j != 0 ? 1 : 0);
        break;
      case TypeKind::kSigned:
      case TypeKind::kUnsigned:
        values.SetFromInt64(j, j);
        break;
      case TypeKind::kComplex:
        values.SetFromComplex(j, {static_cast<double>(j), 0.0});
        break;
      case TypeKind::kFloat: {
        values.SetFromDouble(j, static_cast<double>(j));
        // Overflow: j rounds (to nearest even, as if the exponent range
        // went on) past the largest finite value: beyond max + half the top
        // ulp, or exactly there when max's last mantissa bit is 1 (the tie
        // goes up); or the type cannot hold the value at all (NaN, or 0 for
        // f8e8m0fnu).
        const FloatFormat& format = FormatOf(type);
        const double max_finite = MaxFinite(format);
        const double half_ulp =
            std::ldexp(1.0, std::ilogb(max_finite) - format.mantissa_bits - 1);
        const bool max_odd = (EncodeFloat(format, max_finite) & 1) != 0;
        const double x = static_cast<double>(j);
        const double got = values.GetAsDouble(j);
        if ((!format.has_infinity &&
             (x > max_finite + half_ulp ||
              (x == max_finite + half_ulp && max_odd))) ||
            std::isnan(got) || (j == 0 && got != 0.0)) {
          overflowed[j] = true;
          any_overflow = true;
        }
        break;
      }
      default:
        return InstructionUnimplemented(
            inst,
            absl::StrCat("iota of element type ", PrimitiveTypeName(type)));
    }
  }
  std::vector<int64_t> src_strides(shape.rank(), 0);
  src_strides[iota_dimension] = 1;
  StridedCopy(StorageBytes(type), shape.dimensions(), values.raw().data(), 0,
              src_strides, result.mutable_raw().data(), 0,
              RowMajorStrides(shape.dimensions()));
  if (any_overflow) {
    const int64_t stride = RowMajorStrides(shape.dimensions())[iota_dimension];
    const int64_t count = result.element_count();
    for (int64_t linear = 0; linear < count; ++linear) {
      if (overflowed[(linear / stride) % n]) {
        ctx.MarkImplDefined(0, linear, "impl.iota.1");
      }
    }
  }
  return result;
}

// Value identity; the result may have another layout, which a literal
// (always row-major) records as metadata only. Tuples are copied whole.
// Semantics: text-format 6.4 (copy).
absl::StatusOr<Literal> EvalCopy(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands,
                                 EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  // The operand read for the last time is moved, not copied.
  Literal result = TakeOrCopyOperand(ctx, operands, 0);
  if (result.shape().IsArray() && inst.shape().IsArray() &&
      inst.shape().has_layout()) {
    result.set_layout(inst.shape().layout());
  }
  return result;
}

// Reinterprets the operand's physical buffer (its elements in the order of
// the operand instruction's layout) as the result's physical buffer under
// the result instruction's layout. With equal element types this is an
// element permutation; with different types of the same total byte size
// the bytes are reinterpreted little-endian, as XLA's CPU and GPU buffers
// are.
// impl.bitcast.1: a reinterpreted byte that is not 0 or 1 becomes pred
// true (XLA leaves such a pred undefined); those elements are marked.
// Tiled layouts and packed sub-byte element sizes (E(n)) between different
// types are Unimplemented.
// Semantics: text-format 6.4 (bitcast), seed 000 "Shapes and layout".
absl::StatusOr<Literal> EvalBitcast(const HloInstruction& inst,
                                    absl::Span<const Literal* const> operands,
                                    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  HLOREF_RETURN_IF_ERROR(ExpectStaticArray(inst, operand));
  const Shape& operand_shape = inst.operand(0)->shape();
  const Shape& result_shape = inst.shape();
  if (!result_shape.IsArray()) {
    return InstructionUnimplemented(inst, "bitcast to a non-array shape");
  }
  const Layout operand_layout = operand_shape.LayoutOrDefault();
  const Layout result_layout = result_shape.LayoutOrDefault();
  for (const Layout* layout : {&operand_layout, &result_layout}) {
    if (!layout->tiles.empty()) {
      return InstructionUnimplemented(
          inst,
          absl::StrCat("bitcast with the tiled layout ", layout->ToString(),
                       "; only minor_to_major layouts are evaluated"));
    }
  }
  HLOREF_RETURN_IF_ERROR(
      ValidateLayout(operand_layout, operand.shape().rank()));
  HLOREF_RETURN_IF_ERROR(ValidateLayout(result_layout, result_shape.rank()));
  const PrimitiveType operand_type = operand.element_type();
  const PrimitiveType result_type = result_shape.element_type();
  const int operand_bytes = StorageBytes(operand_type);
  const int result_bytes = StorageBytes(result_type);
  if (operand_type != result_type) {
    for (PrimitiveType t : {operand_type, result_type}) {
      if (BitWidth(t) != 8 * StorageBytes(t)) {
        return InstructionUnimplemented(
            inst, absl::StrCat("bitcast between different element types "
                               "involving the sub-byte type ",
                               PrimitiveTypeName(t),
                               " (its packing is layout-dependent)"));
      }
    }
    for (const Layout* layout : {&operand_layout, &result_layout}) {
      if (layout->element_size_in_bits != 0) {
        return InstructionUnimplemented(
            inst, absl::StrCat("bitcast between element types with the "
                               "element size in layout ",
                               layout->ToString()));
      }
    }
  }
  const int64_t operand_count = operand.element_count();
  const int64_t result_count = result_shape.num_elements();
  if (operand_count * operand_bytes != result_count * result_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "operand ", operand_shape.ToString(), " has ",
        operand_count * operand_bytes, " bytes, result ",
        result_shape.ToString(), " has ", result_count * result_bytes,
        " (is the module verified?)"));
  }
  absl::Span<const int64_t> operand_dims = operand.shape().dimensions();
  absl::Span<const int64_t> result_dims = result_shape.dimensions();
  std::vector<uint8_t> physical(operand.raw().size());
  StridedCopy(operand_bytes, operand_dims, operand.raw().data(), 0,
              RowMajorStrides(operand_dims), physical.data(), 0,
              LayoutStrides(operand_dims, operand_layout));
  HLOREF_ASSIGN_OR_RETURN(
      Literal result,
      AllocateLiteral(result_shape, ctx.options().max_elements_per_value));
  StridedCopy(result_bytes, result_dims, physical.data(), 0,
              LayoutStrides(result_dims, result_layout),
              result.mutable_raw().data(), 0, RowMajorStrides(result_dims));
  if (result_type == PrimitiveType::kPred && operand_type != result_type) {
    absl::Span<uint8_t> bytes = result.mutable_raw();
    for (int64_t i = 0; i < result_count; ++i) {
      if (bytes[i] > 1) {
        bytes[i] = 1;
        ctx.MarkImplDefined(0, i, "impl.bitcast.1");
      }
    }
  }
  return result;
}

// The runtime size of `dimension` (its size when static, the value's
// runtime size when dynamic) as the result's integer type (s32).
// Semantics: GetDimensionSize.
absl::StatusOr<Literal> EvalGetDimensionSize(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  if (inst.attrs().dimensions.size() != 1 || inst.attrs().dimensions[0] < 0 ||
      inst.attrs().dimensions[0] >= operand.shape().rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "dimensions {",
                     absl::StrJoin(inst.attrs().dimensions, ","),
                     "} must name one dimension of the operand (is the module "
                     "verified?)"));
  }
  const int64_t dimension = inst.attrs().dimensions[0];
  if (!inst.shape().IsArray() || !IsInteger(inst.shape().element_type()) ||
      inst.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "result shape ", inst.shape().ToString(),
        " is not an integer scalar (is the module verified?)"));
  }
  Literal result(inst.shape());
  result.SetFromInt64(0, operand.GetDynamicSize(dimension));
  return result;
}

// Passes the operand through with the runtime size of `dimension` set to
// `size`; the other dimensions keep the operand's runtime sizes. Storage
// is unchanged: elements beyond the new size become padding (reductions
// then skip them, the seed's example), and when the size grows past the
// operand's own runtime size, elements that were padding become valid with
// whatever the padding held: those are marked impl.dynamic.1.
// impl.dynamic.3: a size outside [0, bound] is OutOfRange (XLA does not
// define it). Semantics: SetDimensionSize.
absl::StatusOr<Literal> EvalSetDimensionSize(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 2, 2));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  const Literal& size = *operands[1];
  if (inst.attrs().dimensions.size() != 1 || inst.attrs().dimensions[0] < 0 ||
      inst.attrs().dimensions[0] >= operand.shape().rank() ||
      !size.shape().IsArray() || size.element_count() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst),
        "expects one dimension of the operand and a scalar size (is the "
        "module verified?)"));
  }
  const int64_t dimension = inst.attrs().dimensions[0];
  HLOREF_ASSIGN_OR_RETURN(int64_t size_value, ReadIndexElement(size, 0));
  const int64_t bound = operand.shape().dimensions(dimension);
  if (size_value < 0 || size_value > bound) {
    return absl::OutOfRangeError(
        absl::StrCat(InstructionPrefix(inst), "runtime size ", size_value,
                     " of dimension ", dimension, " lies outside [0, ", bound,
                     "] (", kSizeRangeImplId, ": undefined in XLA)"));
  }
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || shape.rank() != operand.shape().rank() ||
      (!shape.is_dynamic_dimension(dimension) && size_value != bound)) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "result ", shape.ToString(),
                     " must be the operand's shape with dimension ", dimension,
                     " dynamic (is the module verified?)"));
  }
  HLOREF_ASSIGN_OR_RETURN(Literal result, Relabel(inst, operand, shape, ctx));
  std::vector<int64_t> sizes(operand.dynamic_sizes().begin(),
                             operand.dynamic_sizes().end());
  const int64_t old_size = sizes[dimension];
  sizes[dimension] = size_value;
  ApplyRuntimeSizes(inst.shape(), sizes, result, ctx);
  if (size_value > old_size && result.element_count() > 0) {
    // Former padding that is now part of the value.
    std::vector<int64_t> index(static_cast<size_t>(shape.rank()), 0);
    int64_t linear = 0;
    do {
      bool valid = index[dimension] >= old_size;
      for (int64_t d = 0; valid && d < shape.rank(); ++d) {
        valid = index[d] < result.GetDynamicSize(d);
      }
      if (valid) ctx.MarkImplDefined(0, linear, kPaddingImplId);
      ++linear;
    } while (NextIndex(shape.dimensions(), absl::MakeSpan(index)));
  }
  return result;
}

// The operand's valid elements, row-major, reshaped to the runtime sizes
// given by the size operands (one s32 scalar per result dimension); the
// result's static dimensions must be given their size, dynamic ones at
// most their bound, and the sizes must hold exactly the operand's valid
// elements; otherwise OutOfRange (impl.dynamic.3).
// Semantics: text-format 6.4 (dynamic-reshape).
absl::StatusOr<Literal> EvalDynamicReshape(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, -1));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  const Shape& shape = inst.shape();
  if (!shape.IsArray() ||
      static_cast<int64_t>(operands.size()) != 1 + shape.rank() ||
      shape.element_type() != operand.element_type()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst),
                     "expects one size operand per result "
                     "dimension (is the module verified?)"));
  }
  std::vector<int64_t> sizes(static_cast<size_t>(shape.rank()));
  int64_t product = 1;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const Literal& size = *operands[1 + d];
    if (!size.shape().IsArray() || size.element_count() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "size operand ", 1 + d,
                       " is not a scalar (is the module verified?)"));
    }
    HLOREF_ASSIGN_OR_RETURN(sizes[d], ReadIndexElement(size, 0));
    const int64_t bound = shape.dimensions(d);
    if (sizes[d] < 0 || sizes[d] > bound ||
        (!shape.is_dynamic_dimension(d) && sizes[d] != bound)) {
      return absl::OutOfRangeError(absl::StrCat(
          InstructionPrefix(inst), "runtime size ", sizes[d],
          " of result dimension ", d,
          shape.is_dynamic_dimension(d)
              ? absl::StrCat(" lies outside [0, ", bound, "]")
              : absl::StrCat(" differs from its static size ", bound),
          " (", kSizeRangeImplId, ")"));
    }
    product *= sizes[d];
  }
  const Literal compact = operand.ToStatic();
  if (product != compact.element_count()) {
    return absl::OutOfRangeError(absl::StrCat(
        InstructionPrefix(inst), "runtime sizes (", absl::StrJoin(sizes, ","),
        ") hold ", product, " elements, the operand has ",
        compact.element_count(), " valid elements (", kSizeRangeImplId, ")"));
  }
  // (The evaluator has checked the result shape against the element
  // limit before dispatch.)
  return PlaceReshaped(inst, compact, shape, sizes);
}

// Family entry point (families.h).
absl::StatusOr<Literal> EvalShape(const HloInstruction& inst,
                                  absl::Span<const Literal* const> operands,
                                  EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kBroadcast:
      return EvalBroadcastInDim(inst, operands, ctx);
    case HloOpcode::kReshape:
      return EvalReshape(inst, operands, ctx);
    case HloOpcode::kTranspose:
      return EvalTranspose(inst, operands, ctx);
    case HloOpcode::kReverse:
      return EvalRev(inst, operands, ctx);
    case HloOpcode::kIota:
      return EvalIota(inst, operands, ctx);
    case HloOpcode::kCopy:
      return EvalCopy(inst, operands, ctx);
    case HloOpcode::kBitcast:
      return EvalBitcast(inst, operands, ctx);
    case HloOpcode::kGetDimensionSize:
      return EvalGetDimensionSize(inst, operands, ctx);
    case HloOpcode::kSetDimensionSize:
      return EvalSetDimensionSize(inst, operands, ctx);
    case HloOpcode::kDynamicReshape:
      return EvalDynamicReshape(inst, operands, ctx);
    default:
      return InstructionInternal(inst, "not an op of the kShape family");
  }
}

}  // namespace hloref
