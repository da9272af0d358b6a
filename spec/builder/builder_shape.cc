// Builder: shape manipulation, slicing, concatenation and padding, tuples
// and tokens. Seed 001 Broadcast, BroadcastInDim, Collapse, Reshape,
// Transpose, Rev (reverse), Iota, GetDimensionSize, SetDimensionSize,
// Slice, DynamicSlice, DynamicUpdateSlice, Concatenate, Pad, Tuple,
// GetTupleElement, AfterAll.
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spec/builder/builder.h"
#include "spec/builder/builder_internal.h"

namespace hloref {

using builder_internal::AddBroadcastSequence;
using builder_internal::Begin;
using builder_internal::Call;
using builder_internal::CallContext;
using builder_internal::Desc;
using builder_internal::Dims;
using builder_internal::InDimBroadcast;
using builder_internal::Invalid;
using builder_internal::ReshapeTo;
using builder_internal::Spec;

namespace {

absl::Status ExpectArray(const XlaOp& op, absl::string_view what) {
  if (!op.instruction()->shape().IsArray()) {
    return Invalid(what, " must be an array, got ", Desc(op));
  }
  return absl::OkStatus();
}

absl::Status CheckPermutation(absl::Span<const int64_t> perm, int64_t rank,
                              absl::string_view what) {
  std::vector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm.size()) != rank) {
    return Invalid(what, " ", Dims(perm), " must be a permutation of the ",
                   rank, " operand dimensions");
  }
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return Invalid(what, " ", Dims(perm), " must be a permutation of 0..",
                     rank - 1);
    }
    seen[p] = true;
  }
  return absl::OkStatus();
}

}  // namespace

XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> broadcast_sizes) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("Broadcast", {{"operand", Desc(operand)},
                                {"broadcast_sizes", Dims(broadcast_sizes)}}))) {
    return ctx.Failed();
  }
  if (absl::Status st = ExpectArray(operand, "operand"); !st.ok()) {
    return ctx.Fail(st);
  }
  // Seed 001: "The new dimensions are inserted on the left".
  const Shape& s = operand.instruction()->shape();
  std::vector<int64_t> dims(broadcast_sizes.begin(), broadcast_sizes.end());
  std::vector<int64_t> mapping;
  for (int64_t i = 0; i < s.rank(); ++i) {
    mapping.push_back(static_cast<int64_t>(broadcast_sizes.size()) + i);
    dims.push_back(s.dimensions(i));
  }
  return InDimBroadcast(ctx, operand, dims, mapping);
}

XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dim_size,
                     absl::Span<const int64_t> broadcast_dimensions) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("BroadcastInDim",
                  {{"operand", Desc(operand)},
                   {"out_dim_size", Dims(out_dim_size)},
                   {"broadcast_dimensions", Dims(broadcast_dimensions)}}))) {
    return ctx.Failed();
  }
  if (absl::Status st = ExpectArray(operand, "operand"); !st.ok()) {
    return ctx.Fail(st);
  }
  const Shape& s = operand.instruction()->shape();
  const int64_t out_rank = static_cast<int64_t>(out_dim_size.size());
  if (static_cast<int64_t>(broadcast_dimensions.size()) != s.rank()) {
    return ctx.Fail(Invalid("broadcast_dimensions has ",
                            broadcast_dimensions.size(),
                            " entries, the operand has rank ", s.rank()));
  }
  for (int64_t d : out_dim_size) {
    if (d < 0) return ctx.Fail(Invalid("out_dim_size has a negative size"));
  }
  // Seed 001: each operand dimension maps to a distinct output dimension
  // and "must have size 1 or be the same size as the dimension in the
  // output shape they are mapped to".
  std::vector<int64_t> in_dim_size(out_dim_size.begin(), out_dim_size.end());
  std::vector<bool> used(out_rank, false);
  for (int64_t i = 0; i < s.rank(); ++i) {
    const int64_t d = broadcast_dimensions[i];
    if (d < 0 || d >= out_rank || used[d]) {
      return ctx.Fail(Invalid("broadcast_dimensions[", i, "] = ", d,
                              " must name a distinct output dimension in [0, ",
                              out_rank, ")"));
    }
    used[d] = true;
    if (s.dimensions(i) != 1 && s.dimensions(i) != out_dim_size[d]) {
      return ctx.Fail(Invalid("operand dimension ", i, " has size ",
                              s.dimensions(i), " but output dimension ", d,
                              " has size ", out_dim_size[d],
                              "; expected equal sizes or 1"));
    }
    in_dim_size[d] = s.dimensions(i);
  }
  XlaOp in_dim =
      InDimBroadcast(ctx, operand, in_dim_size, broadcast_dimensions);
  // Degenerate dimensions that grow: the degenerate-dimension broadcast.
  return AddBroadcastSequence(ctx, in_dim, out_dim_size);
}

XlaOp Collapse(XlaOp operand, absl::Span<const int64_t> dimensions) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("Collapse", {{"operand", Desc(operand)},
                               {"dimensions", Dims(dimensions)}}))) {
    return ctx.Failed();
  }
  if (absl::Status st = ExpectArray(operand, "operand"); !st.ok()) {
    return ctx.Fail(st);
  }
  const Shape& s = operand.instruction()->shape();
  if (dimensions.empty()) {
    return ctx.Fail(Invalid("dimensions must not be empty"));
  }
  // Seed 001: "an in-order (low to high dimension numbers), consecutive
  // subset of T's dimensions".
  for (size_t i = 0; i < dimensions.size(); ++i) {
    if (dimensions[i] < 0 || dimensions[i] >= s.rank() ||
        (i > 0 && dimensions[i] != dimensions[i - 1] + 1)) {
      return ctx.Fail(Invalid(
          "dimensions must be an in-order, consecutive subset of the operand "
          "dimensions [0, ",
          s.rank(), ")"));
    }
  }
  std::vector<int64_t> new_sizes;
  int64_t product = 1;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (i < dimensions.front() || i > dimensions.back()) {
      new_sizes.push_back(s.dimensions(i));
      continue;
    }
    product *= s.dimensions(i);
    if (i == dimensions.back()) new_sizes.push_back(product);
  }
  return ReshapeTo(ctx, operand, new_sizes);
}

XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("Reshape", {{"operand", Desc(operand)},
                              {"new_sizes", Dims(new_sizes)}}))) {
    return ctx.Failed();
  }
  if (absl::Status st = ExpectArray(operand, "operand"); !st.ok()) {
    return ctx.Fail(st);
  }
  return ReshapeTo(ctx, operand, new_sizes);
}

XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> dimensions,
              absl::Span<const int64_t> new_sizes) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("Reshape", {{"operand", Desc(operand)},
                              {"dimensions", Dims(dimensions)},
                              {"new_sizes", Dims(new_sizes)}}))) {
    return ctx.Failed();
  }
  if (absl::Status st = ExpectArray(operand, "operand"); !st.ok()) {
    return ctx.Fail(st);
  }
  const Shape& s = operand.instruction()->shape();
  if (absl::Status st = CheckPermutation(dimensions, s.rank(), "dimensions");
      !st.ok()) {
    return ctx.Fail(st);
  }
  // Seed 001: `dimensions` is the collapse order, slowest-varying first,
  // which is a transpose by that permutation followed by a row-major
  // reshape.
  XlaOp source = operand;
  std::vector<int64_t> identity(s.rank());
  std::iota(identity.begin(), identity.end(), 0);
  if (!std::equal(dimensions.begin(), dimensions.end(), identity.begin(),
                  identity.end())) {
    InstructionSpec spec = Spec(HloOpcode::kTranspose, {operand});
    spec.attrs.dimensions.assign(dimensions.begin(), dimensions.end());
    spec.attrs.set(AttrId::kDimensions);
    source = ctx.Add(std::move(spec));
    if (!source.valid()) return source;
  }
  return ReshapeTo(ctx, source, new_sizes);
}

XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("Transpose", {{"operand", Desc(operand)},
                                {"permutation", Dims(permutation)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kTranspose, {operand});
  spec.attrs.dimensions.assign(permutation.begin(), permutation.end());
  spec.attrs.set(AttrId::kDimensions);
  return ctx.Add(std::move(spec));
}

XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("Rev", {{"operand", Desc(operand)},
                          {"dimensions", Dims(dimensions)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kReverse, {operand});
  spec.attrs.dimensions.assign(dimensions.begin(), dimensions.end());
  spec.attrs.set(AttrId::kDimensions);
  return ctx.Add(std::move(spec));
}

XlaOp Iota(Builder* builder, const Shape& shape, int64_t iota_dimension) {
  CallContext ctx;
  if (!Begin(
          &ctx, builder, {},
          Call("Iota", {{"shape", Desc(shape)},
                        {"iota_dimension", absl::StrCat(iota_dimension)}}))) {
    return ctx.Failed();
  }
  if (!shape.IsArray()) return ctx.Fail(Invalid("shape must be an array"));
  InstructionSpec spec = Spec(HloOpcode::kIota, {}, shape);
  spec.attrs.iota_dimension = iota_dimension;
  spec.attrs.set(AttrId::kIotaDimension);
  return ctx.Add(std::move(spec));
}

XlaOp Iota(Builder* builder, PrimitiveType type, int64_t size) {
  return Iota(builder, Shape(type, {size}), 0);
}

XlaOp GetDimensionSize(XlaOp operand, int64_t dimension) {
  CallContext ctx;
  if (!Begin(
          &ctx, nullptr, {operand},
          Call("GetDimensionSize", {{"operand", Desc(operand)},
                                    {"dimension", absl::StrCat(dimension)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kGetDimensionSize, {operand});
  spec.attrs.dimensions = {dimension};
  spec.attrs.set(AttrId::kDimensions);
  return ctx.Add(std::move(spec));
}

XlaOp SetDimensionSize(XlaOp operand, XlaOp val, int64_t dimension) {
  CallContext ctx;
  if (!Begin(
          &ctx, nullptr, {operand, val},
          Call("SetDimensionSize", {{"operand", Desc(operand)},
                                    {"size", Desc(val)},
                                    {"dimension", absl::StrCat(dimension)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kSetDimensionSize, {operand, val});
  spec.attrs.dimensions = {dimension};
  spec.attrs.set(AttrId::kDimensions);
  return ctx.Add(std::move(spec));
}

XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start_indices,
            absl::Span<const int64_t> limit_indices,
            absl::Span<const int64_t> strides) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("Slice", {{"operand", Desc(operand)},
                            {"start_indices", Dims(start_indices)},
                            {"limit_indices", Dims(limit_indices)},
                            {"strides", Dims(strides)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kSlice, {operand});
  spec.attrs.slice.start_indices.assign(start_indices.begin(),
                                        start_indices.end());
  spec.attrs.slice.limit_indices.assign(limit_indices.begin(),
                                        limit_indices.end());
  spec.attrs.slice.strides.assign(strides.begin(), strides.end());
  if (strides.empty()) {
    // Slice(a, {2}, {4}) in seed 001's examples: unit strides.
    spec.attrs.slice.strides.assign(start_indices.size(), 1);
  }
  spec.attrs.set(AttrId::kSlice);
  return ctx.Add(std::move(spec));
}

XlaOp SliceInDim(XlaOp operand, int64_t start_index, int64_t limit_index,
                 int64_t stride, int64_t dimno) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("SliceInDim", {{"operand", Desc(operand)},
                                 {"start_index", absl::StrCat(start_index)},
                                 {"limit_index", absl::StrCat(limit_index)},
                                 {"stride", absl::StrCat(stride)},
                                 {"dimno", absl::StrCat(dimno)}}))) {
    return ctx.Failed();
  }
  const Shape& s = operand.instruction()->shape();
  if (!s.IsArray() || dimno < 0 || dimno >= s.rank()) {
    return ctx.Fail(
        Invalid("dimno must name a dimension of the array "
                "operand"));
  }
  std::vector<int64_t> starts(s.rank(), 0),
      limits(s.dimensions().begin(), s.dimensions().end()),
      strides(s.rank(), 1);
  starts[dimno] = start_index;
  limits[dimno] = limit_index;
  strides[dimno] = stride;
  return Slice(operand, starts, limits, strides);
}

XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices,
                   absl::Span<const int64_t> slice_sizes) {
  std::vector<XlaOp> operands = {operand};
  operands.insert(operands.end(), start_indices.begin(), start_indices.end());
  CallContext ctx;
  if (!Begin(&ctx, nullptr, operands,
             Call("DynamicSlice", {{"operand", Desc(operand)},
                                   {"start_indices", Desc(start_indices)},
                                   {"slice_sizes", Dims(slice_sizes)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kDynamicSlice, operands);
  spec.attrs.dynamic_slice_sizes.assign(slice_sizes.begin(), slice_sizes.end());
  spec.attrs.set(AttrId::kDynamicSliceSizes);
  return ctx.Add(std::move(spec));
}

XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update,
                         absl::Span<const XlaOp> start_indices) {
  std::vector<XlaOp> operands = {operand, update};
  operands.insert(operands.end(), start_indices.begin(), start_indices.end());
  CallContext ctx;
  if (!Begin(&ctx, nullptr, operands,
             Call("DynamicUpdateSlice",
                  {{"operand", Desc(operand)},
                   {"update", Desc(update)},
                   {"start_indices", Desc(start_indices)}}))) {
    return ctx.Failed();
  }
  return ctx.Add(Spec(HloOpcode::kDynamicUpdateSlice, operands));
}

XlaOp ConcatInDim(Builder* builder, absl::Span<const XlaOp> operands,
                  int64_t dimension) {
  CallContext ctx;
  if (!Begin(&ctx, builder, operands,
             Call("ConcatInDim", {{"operands", Desc(operands)},
                                  {"dimension", absl::StrCat(dimension)}}))) {
    return ctx.Failed();
  }
  if (operands.empty()) {
    return ctx.Fail(Invalid("Concatenate requires N >= 1 operands"));
  }
  InstructionSpec spec = Spec(HloOpcode::kConcatenate, operands);
  spec.attrs.dimensions = {dimension};
  spec.attrs.set(AttrId::kDimensions);
  return ctx.Add(std::move(spec));
}

XlaOp Pad(XlaOp operand, XlaOp padding_value,
          const PaddingConfig& padding_config) {
  std::vector<std::string> parts;
  for (const PaddingDimension& d : padding_config.dimensions) {
    parts.push_back(absl::StrCat(d.edge_padding_low, "_", d.edge_padding_high,
                                 "_", d.interior_padding));
  }
  CallContext ctx;
  if (!Begin(
          &ctx, nullptr, {operand, padding_value},
          Call("Pad", {{"operand", Desc(operand)},
                       {"padding_value", Desc(padding_value)},
                       {"padding_config",
                        absl::StrCat("{", absl::StrJoin(parts, "x"), "}")}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kPad, {operand, padding_value});
  spec.attrs.padding = padding_config;
  spec.attrs.set(AttrId::kPadding);
  return ctx.Add(std::move(spec));
}

XlaOp Tuple(Builder* builder, absl::Span<const XlaOp> elements) {
  CallContext ctx;
  if (!Begin(&ctx, builder, elements,
             Call("Tuple", {{"elements", Desc(elements)}}))) {
    return ctx.Failed();
  }
  return ctx.Add(Spec(HloOpcode::kTuple, elements));
}

XlaOp GetTupleElement(XlaOp tuple_data, int64_t index) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {tuple_data},
             Call("GetTupleElement", {{"tuple_data", Desc(tuple_data)},
                                      {"index", absl::StrCat(index)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kGetTupleElement, {tuple_data});
  spec.attrs.index = index;
  spec.attrs.set(AttrId::kIndex);
  return ctx.Add(std::move(spec));
}

XlaOp AfterAll(Builder* builder, absl::Span<const XlaOp> tokens) {
  CallContext ctx;
  if (!Begin(&ctx, builder, tokens,
             Call("AfterAll", {{"operands", Desc(tokens)}}))) {
    return ctx.Failed();
  }
  return ctx.Add(Spec(HloOpcode::kAfterAll, tokens));
}

XlaOp CreateToken(Builder* builder) { return AfterAll(builder, {}); }

}  // namespace hloref
