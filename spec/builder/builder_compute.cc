// Builder: contraction, reduction, sorting, indexing and control flow.
// Seed 001 Dot, DotGeneral, Conv (convolution), ConvWithGeneralPadding,
// Reduce, ReduceWindow, SelectAndScatter, Map, Sort, Gather, Scatter, Call,
// CompositeCall, Conditional, While.
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spec/builder/builder.h"
#include "spec/builder/builder_internal.h"

namespace hloref {

using builder_internal::Begin;
using builder_internal::Call;
using builder_internal::CallContext;
using builder_internal::Desc;
using builder_internal::Dims;
using builder_internal::Invalid;
using builder_internal::MakeWindow;
using builder_internal::Pairs;
using builder_internal::Spec;

namespace {

std::string Precisions(absl::Span<const PrecisionConfig> p) {
  std::vector<std::string> parts;
  for (PrecisionConfig c : p) {
    parts.push_back(c == PrecisionConfig::kHighest ? "highest"
                    : c == PrecisionConfig::kHigh  ? "high"
                                                   : "default");
  }
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

std::string DotDims(const DotDimensionNumbers& dn) {
  return absl::StrCat(
      "{lhs_contracting_dimensions=", Dims(dn.lhs_contracting_dimensions),
      " rhs_contracting_dimensions=", Dims(dn.rhs_contracting_dimensions),
      " lhs_batch_dimensions=", Dims(dn.lhs_batch_dimensions),
      " rhs_batch_dimensions=", Dims(dn.rhs_batch_dimensions), "}");
}

std::string ConvDims(const ConvolutionDimensionNumbers& dn) {
  return absl::StrCat(
      "{input_batch=", dn.input_batch_dimension,
      " input_feature=", dn.input_feature_dimension,
      " input_spatial=", Dims(dn.input_spatial_dimensions),
      " kernel_input_feature=", dn.kernel_input_feature_dimension,
      " kernel_output_feature=", dn.kernel_output_feature_dimension,
      " kernel_spatial=", Dims(dn.kernel_spatial_dimensions),
      " output_batch=", dn.output_batch_dimension,
      " output_feature=", dn.output_feature_dimension,
      " output_spatial=", Dims(dn.output_spatial_dimensions), "}");
}

void SetPrecision(InstructionSpec* spec,
                  absl::Span<const PrecisionConfig> precision_config) {
  if (precision_config.empty()) return;
  spec->attrs.operand_precision.assign(precision_config.begin(),
                                       precision_config.end());
  spec->attrs.set(AttrId::kOperandPrecision);
}

XlaOp DotGeneralImpl(const CallContext& ctx, XlaOp lhs, XlaOp rhs,
                     const DotDimensionNumbers& dimension_numbers,
                     absl::Span<const PrecisionConfig> precision_config,
                     std::optional<PrimitiveType> preferred_element_type) {
  // The result element type: the preferred one, else the operands'.
  InstructionSpec spec = Spec(HloOpcode::kDot, {lhs, rhs},
                              Shape::Scalar(preferred_element_type.value_or(
                                  lhs.instruction()->shape().element_type())));
  spec.attrs.dot_dimension_numbers = dimension_numbers;
  spec.attrs.set(AttrId::kLhsContractingDims);
  spec.attrs.set(AttrId::kRhsContractingDims);
  if (!dimension_numbers.lhs_batch_dimensions.empty()) {
    spec.attrs.set(AttrId::kLhsBatchDims);
  }
  if (!dimension_numbers.rhs_batch_dimensions.empty()) {
    spec.attrs.set(AttrId::kRhsBatchDims);
  }
  SetPrecision(&spec, precision_config);
  return ctx.Add(std::move(spec));
}

// The convolution instruction all Conv* calls lower to.
XlaOp ConvImpl(const CallContext& ctx, XlaOp lhs, XlaOp rhs,
               absl::Span<const int64_t> window_strides,
               std::optional<Padding> padding_type,
               absl::Span<const std::pair<int64_t, int64_t>> padding,
               absl::Span<const int64_t> lhs_dilation,
               absl::Span<const int64_t> rhs_dilation,
               const ConvolutionDimensionNumbers& dn,
               int64_t feature_group_count, int64_t batch_group_count,
               absl::Span<const PrecisionConfig> precision_config,
               std::optional<PrimitiveType> preferred_element_type) {
  const Shape& ls = lhs.instruction()->shape();
  const Shape& rs = rhs.instruction()->shape();
  const size_t n = dn.input_spatial_dimensions.size();
  if (!ls.IsArray() || !rs.IsArray() ||
      ls.rank() != static_cast<int64_t>(n) + 2 ||
      rs.rank() != static_cast<int64_t>(n) + 2) {
    return ctx.Fail(Invalid("lhs and rhs must be arrays of rank n+2 = ", n + 2,
                            " (n = ", n, " spatial dimensions), got ", Desc(ls),
                            " and ", Desc(rs)));
  }
  if (dn.kernel_spatial_dimensions.size() != n ||
      dn.output_spatial_dimensions.size() != n) {
    return ctx.Fail(Invalid("dimension_numbers name ", n,
                            " input spatial dimensions but ",
                            dn.kernel_spatial_dimensions.size(), " kernel and ",
                            dn.output_spatial_dimensions.size(), " output"));
  }
  auto check_size = [&](absl::Span<const int64_t> v, absl::string_view what,
                        bool may_be_empty) -> absl::Status {
    if ((may_be_empty && v.empty()) || v.size() == n) return absl::OkStatus();
    return Invalid(what, " has ", v.size(), " entries, expected ", n,
                   " (one per spatial dimension)");
  };
  absl::Status st = check_size(window_strides, "window_strides", false);
  if (st.ok() && !padding_type.has_value() && padding.size() != n) {
    st = Invalid("padding has ", padding.size(), " entries, expected ", n);
  }
  if (st.ok()) st = check_size(lhs_dilation, "lhs_dilation", true);
  if (st.ok()) st = check_size(rhs_dilation, "rhs_dilation", true);
  if (!st.ok()) return ctx.Fail(st);
  std::vector<int64_t> input_dims, window_dims;
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = dn.input_spatial_dimensions[i];
    const int64_t k = dn.kernel_spatial_dimensions[i];
    if (in < 0 || in >= ls.rank() || k < 0 || k >= rs.rank()) {
      return ctx.Fail(
          Invalid("spatial dimension numbers out of range: ", ConvDims(dn)));
    }
    input_dims.push_back(ls.dimensions(in));
    window_dims.push_back(rs.dimensions(k));
  }
  std::vector<std::pair<int64_t, int64_t>> pads(padding.begin(), padding.end());
  if (padding_type.has_value()) {
    pads = MakePadding(input_dims, window_dims, window_strides, *padding_type);
  }
  InstructionSpec spec =
      Spec(HloOpcode::kConvolution, {lhs, rhs},
           Shape::Scalar(preferred_element_type.value_or(ls.element_type())));
  spec.attrs.window =
      MakeWindow(window_dims, window_strides, pads, lhs_dilation, rhs_dilation);
  spec.attrs.set(AttrId::kWindow);
  spec.attrs.convolution_dimension_numbers = dn;
  spec.attrs.convolution_dimension_numbers.text.clear();
  spec.attrs.set(AttrId::kDimLabels);
  spec.attrs.feature_group_count = feature_group_count;
  spec.attrs.batch_group_count = batch_group_count;
  if (feature_group_count != 1) spec.attrs.set(AttrId::kFeatureGroupCount);
  if (batch_group_count != 1) spec.attrs.set(AttrId::kBatchGroupCount);
  SetPrecision(&spec, precision_config);
  return ctx.Add(std::move(spec));
}

std::string ConvCall(absl::string_view fn, XlaOp lhs, XlaOp rhs,
                     absl::Span<const int64_t> window_strides,
                     const std::string& padding, const std::string& extra,
                     int64_t feature_group_count, int64_t batch_group_count) {
  return absl::StrCat(fn, "(lhs=", Desc(lhs), ", rhs=", Desc(rhs),
                      ", window_strides=", Dims(window_strides),
                      ", padding=", padding, extra,
                      ", feature_group_count=", feature_group_count,
                      ", batch_group_count=", batch_group_count, ")");
}

std::string PaddingName(Padding p) {
  return p == Padding::kSame ? "kSame" : "kValid";
}

// Reduce-window over N operands (the window covers every dimension).
XlaOp ReduceWindowImpl(const CallContext& ctx, absl::Span<const XlaOp> operands,
                       absl::Span<const XlaOp> init_values,
                       const HloModule& computation,
                       absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides,
                       std::optional<Padding> padding_type,
                       absl::Span<const std::pair<int64_t, int64_t>> padding,
                       absl::Span<const int64_t> base_dilations,
                       absl::Span<const int64_t> window_dilations) {
  if (operands.empty() || operands.size() != init_values.size()) {
    return ctx.Fail(
        Invalid("needs N >= 1 operands and as many init_values, "
                "got ",
                operands.size(), " and ", init_values.size()));
  }
  const Shape& s = operands[0].instruction()->shape();
  if (!s.IsArray()) return ctx.Fail(Invalid("operands must be arrays"));
  const size_t rank = static_cast<size_t>(s.rank());
  if (window_dimensions.size() != rank || window_strides.size() != rank) {
    return ctx.Fail(
        Invalid("window_dimensions and window_strides need one "
                "entry per operand dimension (",
                rank, "), got ", window_dimensions.size(), " and ",
                window_strides.size()));
  }
  std::vector<std::pair<int64_t, int64_t>> pads(padding.begin(), padding.end());
  if (padding_type.has_value()) {
    pads = MakePadding(s.dimensions(), window_dimensions, window_strides,
                       *padding_type);
  } else if (pads.size() != rank) {
    return ctx.Fail(
        Invalid("padding has ", pads.size(), " entries, expected ", rank));
  }
  std::vector<XlaOp> all(operands.begin(), operands.end());
  all.insert(all.end(), init_values.begin(), init_values.end());
  InstructionSpec spec = Spec(HloOpcode::kReduceWindow, all);
  spec.attrs.window = MakeWindow(window_dimensions, window_strides, pads,
                                 base_dilations, window_dilations);
  spec.attrs.set(AttrId::kWindow);
  spec.callees.emplace_back(AttrId::kToApply, &computation);
  return ctx.Add(std::move(spec));
}

XlaOp SelectAndScatterImpl(
    const CallContext& ctx, XlaOp operand, const HloModule& select,
    absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides,
    std::optional<Padding> padding_type,
    absl::Span<const std::pair<int64_t, int64_t>> padding, XlaOp source,
    XlaOp init_value, const HloModule& scatter) {
  const Shape& s = operand.instruction()->shape();
  if (!s.IsArray()) return ctx.Fail(Invalid("operand must be an array"));
  const size_t rank = static_cast<size_t>(s.rank());
  if (window_dimensions.size() != rank || window_strides.size() != rank) {
    return ctx.Fail(
        Invalid("window_dimensions and window_strides need one "
                "entry per operand dimension (",
                rank, ")"));
  }
  std::vector<std::pair<int64_t, int64_t>> pads(padding.begin(), padding.end());
  if (padding_type.has_value()) {
    pads = MakePadding(s.dimensions(), window_dimensions, window_strides,
                       *padding_type);
  } else if (pads.size() != rank) {
    return ctx.Fail(
        Invalid("padding has ", pads.size(), " entries, expected ", rank));
  }
  InstructionSpec spec =
      Spec(HloOpcode::kSelectAndScatter, {operand, source, init_value});
  spec.attrs.window =
      MakeWindow(window_dimensions, window_strides, pads, {}, {});
  spec.attrs.set(AttrId::kWindow);
  spec.callees.emplace_back(AttrId::kSelect, &select);
  spec.callees.emplace_back(AttrId::kScatter, &scatter);
  return ctx.Add(std::move(spec));
}

}  // namespace

// ---------------------------------------------------------------- Dot

XlaOp Dot(XlaOp lhs, XlaOp rhs,
          absl::Span<const PrecisionConfig> precision_config,
          std::optional<PrimitiveType> preferred_element_type) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {lhs, rhs},
             Call("Dot", {{"lhs", Desc(lhs)}, {"rhs", Desc(rhs)}}))) {
    return ctx.Failed();
  }
  const Shape& ls = lhs.instruction()->shape();
  const Shape& rs = rhs.instruction()->shape();
  // Seed 001 Dot table: vector.vector, matrix.vector, matrix.matrix;
  // contract lhs dimension 1 (0 for a vector) with rhs dimension 0.
  if (!ls.IsArray() || !rs.IsArray() || ls.rank() < 1 || ls.rank() > 2 ||
      rs.rank() < 1 || rs.rank() > 2) {
    return ctx.Fail(
        Invalid("Dot takes vectors and matrices (rank 1 or 2); "
                "use DotGeneral for other ranks"));
  }
  DotDimensionNumbers dn;
  dn.lhs_contracting_dimensions = {ls.rank() == 1 ? 0 : 1};
  dn.rhs_contracting_dimensions = {0};
  return DotGeneralImpl(ctx, lhs, rhs, dn, precision_config,
                        preferred_element_type);
}

XlaOp DotGeneral(XlaOp lhs, XlaOp rhs,
                 const DotDimensionNumbers& dimension_numbers,
                 absl::Span<const PrecisionConfig> precision_config,
                 std::optional<PrimitiveType> preferred_element_type) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {lhs, rhs},
             Call("DotGeneral",
                  {{"lhs", Desc(lhs)},
                   {"rhs", Desc(rhs)},
                   {"dimension_numbers", DotDims(dimension_numbers)},
                   {"precision_config", Precisions(precision_config)}}))) {
    return ctx.Failed();
  }
  return DotGeneralImpl(ctx, lhs, rhs, dimension_numbers, precision_config,
                        preferred_element_type);
}

// ---------------------------------------------------------------- Conv

XlaOp Conv(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
           Padding padding, int64_t feature_group_count,
           int64_t batch_group_count,
           absl::Span<const PrecisionConfig> precision_config) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {lhs, rhs},
             ConvCall("Conv", lhs, rhs, window_strides, PaddingName(padding),
                      "", feature_group_count, batch_group_count))) {
    return ctx.Failed();
  }
  return ConvImpl(ctx, lhs, rhs, window_strides, padding, {}, {}, {},
                  CreateDefaultConvDimensionNumbers(
                      static_cast<int>(window_strides.size())),
                  feature_group_count, batch_group_count, precision_config,
                  std::nullopt);
}

XlaOp ConvWithGeneralPadding(
    XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding,
    int64_t feature_group_count, int64_t batch_group_count,
    absl::Span<const PrecisionConfig> precision_config) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {lhs, rhs},
             ConvCall("ConvWithGeneralPadding", lhs, rhs, window_strides,
                      Pairs(padding), "", feature_group_count,
                      batch_group_count))) {
    return ctx.Failed();
  }
  return ConvImpl(ctx, lhs, rhs, window_strides, std::nullopt, padding, {}, {},
                  CreateDefaultConvDimensionNumbers(
                      static_cast<int>(window_strides.size())),
                  feature_group_count, batch_group_count, precision_config,
                  std::nullopt);
}

XlaOp ConvWithGeneralDimensions(
    XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
    Padding padding, const ConvolutionDimensionNumbers& dimension_numbers,
    int64_t feature_group_count, int64_t batch_group_count,
    absl::Span<const PrecisionConfig> precision_config) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {lhs, rhs},
             ConvCall("ConvWithGeneralDimensions", lhs, rhs, window_strides,
                      PaddingName(padding),
                      ", dimension_numbers=" + ConvDims(dimension_numbers),
                      feature_group_count, batch_group_count))) {
    return ctx.Failed();
  }
  return ConvImpl(ctx, lhs, rhs, window_strides, padding, {}, {}, {},
                  dimension_numbers, feature_group_count, batch_group_count,
                  precision_config, std::nullopt);
}

XlaOp ConvGeneral(XlaOp lhs, XlaOp rhs,
                  absl::Span<const int64_t> window_strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  const ConvolutionDimensionNumbers& dimension_numbers,
                  int64_t feature_group_count, int64_t batch_group_count,
                  absl::Span<const PrecisionConfig> precision_config) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {lhs, rhs},
             ConvCall("ConvGeneral", lhs, rhs, window_strides, Pairs(padding),
                      ", dimension_numbers=" + ConvDims(dimension_numbers),
                      feature_group_count, batch_group_count))) {
    return ctx.Failed();
  }
  return ConvImpl(ctx, lhs, rhs, window_strides, std::nullopt, padding, {}, {},
                  dimension_numbers, feature_group_count, batch_group_count,
                  precision_config, std::nullopt);
}

XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs,
                         absl::Span<const int64_t> window_strides,
                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                         absl::Span<const int64_t> lhs_dilation,
                         absl::Span<const int64_t> rhs_dilation,
                         const ConvolutionDimensionNumbers& dimension_numbers,
                         int64_t feature_group_count, int64_t batch_group_count,
                         absl::Span<const PrecisionConfig> precision_config,
                         std::optional<PrimitiveType> preferred_element_type) {
  CallContext ctx;
  if (!Begin(
          &ctx, nullptr, {lhs, rhs},
          ConvCall(
              "ConvGeneralDilated", lhs, rhs, window_strides, Pairs(padding),
              absl::StrCat(", lhs_dilation=", Dims(lhs_dilation),
                           ", rhs_dilation=", Dims(rhs_dilation),
                           ", dimension_numbers=", ConvDims(dimension_numbers)),
              feature_group_count, batch_group_count))) {
    return ctx.Failed();
  }
  return ConvImpl(ctx, lhs, rhs, window_strides, std::nullopt, padding,
                  lhs_dilation, rhs_dilation, dimension_numbers,
                  feature_group_count, batch_group_count, precision_config,
                  preferred_element_type);
}

// ---------------------------------------------------------------- Reduce

XlaOp Reduce(Builder* builder, absl::Span<const XlaOp> operands,
             absl::Span<const XlaOp> init_values, const HloModule& computation,
             absl::Span<const int64_t> dimensions_to_reduce) {
  std::vector<XlaOp> all(operands.begin(), operands.end());
  all.insert(all.end(), init_values.begin(), init_values.end());
  CallContext ctx;
  if (!Begin(&ctx, builder, all,
             Call("Reduce",
                  {{"operands", Desc(operands)},
                   {"init_values", Desc(init_values)},
                   {"computation", computation.name()},
                   {"dimensions_to_reduce", Dims(dimensions_to_reduce)}}))) {
    return ctx.Failed();
  }
  if (operands.empty() || operands.size() != init_values.size()) {
    return ctx.Fail(Invalid("needs N >= 1 operands and N init_values, got ",
                            operands.size(), " and ", init_values.size()));
  }
  InstructionSpec spec = Spec(HloOpcode::kReduce, all);
  spec.attrs.dimensions.assign(dimensions_to_reduce.begin(),
                               dimensions_to_reduce.end());
  spec.attrs.set(AttrId::kDimensions);
  spec.callees.emplace_back(AttrId::kToApply, &computation);
  return ctx.Add(std::move(spec));
}

XlaOp Reduce(XlaOp operand, XlaOp init_value, const HloModule& computation,
             absl::Span<const int64_t> dimensions_to_reduce) {
  XlaOp ops[] = {operand};
  XlaOp inits[] = {init_value};
  return Reduce(Builder::BuilderOf({operand, init_value}), ops, inits,
                computation, dimensions_to_reduce);
}

XlaOp ReduceAll(XlaOp operand, XlaOp init_value, const HloModule& computation) {
  std::vector<int64_t> all;
  if (operand.valid() && operand.instruction()->shape().IsArray()) {
    all.resize(operand.instruction()->shape().rank());
    std::iota(all.begin(), all.end(), 0);
  }
  return Reduce(operand, init_value, computation, all);
}

XlaOp ReduceWindow(absl::Span<const XlaOp> operands,
                   absl::Span<const XlaOp> init_values,
                   const HloModule& computation,
                   absl::Span<const int64_t> window_dimensions,
                   absl::Span<const int64_t> window_strides, Padding padding) {
  std::vector<XlaOp> all(operands.begin(), operands.end());
  all.insert(all.end(), init_values.begin(), init_values.end());
  CallContext ctx;
  if (!Begin(
          &ctx, nullptr, all,
          Call("ReduceWindow", {{"operands", Desc(operands)},
                                {"init_values", Desc(init_values)},
                                {"computation", computation.name()},
                                {"window_dimensions", Dims(window_dimensions)},
                                {"window_strides", Dims(window_strides)},
                                {"padding", PaddingName(padding)}}))) {
    return ctx.Failed();
  }
  return ReduceWindowImpl(ctx, operands, init_values, computation,
                          window_dimensions, window_strides, padding, {}, {},
                          {});
}

XlaOp ReduceWindow(XlaOp operand, XlaOp init_value,
                   const HloModule& computation,
                   absl::Span<const int64_t> window_dimensions,
                   absl::Span<const int64_t> window_strides, Padding padding) {
  XlaOp ops[] = {operand};
  XlaOp inits[] = {init_value};
  return ReduceWindow(ops, inits, computation, window_dimensions,
                      window_strides, padding);
}

XlaOp ReduceWindowWithGeneralPadding(
    absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
    const HloModule& computation, absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides,
    absl::Span<const int64_t> base_dilations,
    absl::Span<const int64_t> window_dilations,
    absl::Span<const std::pair<int64_t, int64_t>> padding) {
  std::vector<XlaOp> all(operands.begin(), operands.end());
  all.insert(all.end(), init_values.begin(), init_values.end());
  CallContext ctx;
  if (!Begin(&ctx, nullptr, all,
             Call("ReduceWindowWithGeneralPadding",
                  {{"operands", Desc(operands)},
                   {"init_values", Desc(init_values)},
                   {"computation", computation.name()},
                   {"window_dimensions", Dims(window_dimensions)},
                   {"window_strides", Dims(window_strides)},
                   {"base_dilations", Dims(base_dilations)},
                   {"window_dilations", Dims(window_dilations)},
                   {"padding", Pairs(padding)}}))) {
    return ctx.Failed();
  }
  return ReduceWindowImpl(ctx, operands, init_values, computation,
                          window_dimensions, window_strides, std::nullopt,
                          padding, base_dilations, window_dilations);
}

XlaOp SelectAndScatter(XlaOp operand, const HloModule& select,
                       absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides,
                       Padding padding, XlaOp source, XlaOp init_value,
                       const HloModule& scatter) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand, source, init_value},
             Call("SelectAndScatter",
                  {{"operand", Desc(operand)},
                   {"select", select.name()},
                   {"window_dimensions", Dims(window_dimensions)},
                   {"window_strides", Dims(window_strides)},
                   {"padding", PaddingName(padding)},
                   {"source", Desc(source)},
                   {"init_value", Desc(init_value)},
                   {"scatter", scatter.name()}}))) {
    return ctx.Failed();
  }
  return SelectAndScatterImpl(ctx, operand, select, window_dimensions,
                              window_strides, padding, {}, source, init_value,
                              scatter);
}

XlaOp SelectAndScatterWithGeneralPadding(
    XlaOp operand, const HloModule& select,
    absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding, XlaOp source,
    XlaOp init_value, const HloModule& scatter) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand, source, init_value},
             Call("SelectAndScatterWithGeneralPadding",
                  {{"operand", Desc(operand)},
                   {"select", select.name()},
                   {"window_dimensions", Dims(window_dimensions)},
                   {"window_strides", Dims(window_strides)},
                   {"padding", Pairs(padding)},
                   {"source", Desc(source)},
                   {"init_value", Desc(init_value)},
                   {"scatter", scatter.name()}}))) {
    return ctx.Failed();
  }
  return SelectAndScatterImpl(ctx, operand, select, window_dimensions,
                              window_strides, std::nullopt, padding, source,
                              init_value, scatter);
}

XlaOp Map(Builder* builder, absl::Span<const XlaOp> operands,
          const HloModule& computation, absl::Span<const int64_t> dimensions,
          absl::Span<const XlaOp> static_operands) {
  CallContext ctx;
  if (!Begin(&ctx, builder, operands,
             Call("Map", {{"operands", Desc(operands)},
                          {"computation", computation.name()},
                          {"dimensions", Dims(dimensions)},
                          {"static_operands", Desc(static_operands)}}))) {
    return ctx.Failed();
  }
  if (!static_operands.empty()) {
    return ctx.Fail(
        Invalid("static_operands are not supported: HLO map "
                "passes only the mapped elements"));
  }
  if (operands.empty()) return ctx.Fail(Invalid("Map needs N >= 1 operands"));
  std::vector<int64_t> dims(dimensions.begin(), dimensions.end());
  const Shape& s = operands[0].instruction()->shape();
  if (dims.empty() && s.IsArray()) {
    dims.resize(s.rank());
    std::iota(dims.begin(), dims.end(), 0);
  }
  InstructionSpec spec = Spec(HloOpcode::kMap, operands);
  spec.attrs.dimensions = dims;
  spec.attrs.set(AttrId::kDimensions);
  spec.callees.emplace_back(AttrId::kToApply, &computation);
  return ctx.Add(std::move(spec));
}

XlaOp Sort(absl::Span<const XlaOp> operands, const HloModule& comparator,
           int64_t dimension, bool is_stable) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, operands,
             Call("Sort", {{"operands", Desc(operands)},
                           {"comparator", comparator.name()},
                           {"dimension", absl::StrCat(dimension)},
                           {"is_stable", is_stable ? "true" : "false"}}))) {
    return ctx.Failed();
  }
  if (operands.empty()) return ctx.Fail(Invalid("Sort needs operands"));
  const Shape& s = operands[0].instruction()->shape();
  // "If no dimension number is provided, then the last dimension is
  // chosen by default."
  if (dimension == -1 && s.IsArray()) dimension = s.rank() - 1;
  InstructionSpec spec = Spec(HloOpcode::kSort, operands);
  spec.attrs.dimensions = {dimension};
  spec.attrs.set(AttrId::kDimensions);
  if (is_stable) {
    spec.attrs.is_stable = true;
    spec.attrs.set(AttrId::kIsStable);
  }
  spec.callees.emplace_back(AttrId::kToApply, &comparator);
  return ctx.Add(std::move(spec));
}

// ---------------------------------------------------------------- Gather

XlaOp Gather(XlaOp operand, XlaOp start_indices,
             const GatherDimensionNumbers& dn,
             absl::Span<const int64_t> slice_sizes, bool indices_are_sorted) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand, start_indices},
             Call("Gather",
                  {{"operand", Desc(operand)},
                   {"start_indices", Desc(start_indices)},
                   {"offset_dims", Dims(dn.offset_dims)},
                   {"collapsed_slice_dims", Dims(dn.collapsed_slice_dims)},
                   {"start_index_map", Dims(dn.start_index_map)},
                   {"index_vector_dim", absl::StrCat(dn.index_vector_dim)},
                   {"slice_sizes", Dims(slice_sizes)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kGather, {operand, start_indices});
  spec.attrs.gather_dimension_numbers = dn;
  spec.attrs.set(AttrId::kOffsetDims);
  spec.attrs.set(AttrId::kCollapsedSliceDims);
  spec.attrs.set(AttrId::kStartIndexMap);
  spec.attrs.set(AttrId::kIndexVectorDim);
  if (!dn.operand_batching_dims.empty()) {
    spec.attrs.set(AttrId::kOperandBatchingDims);
  }
  if (!dn.start_indices_batching_dims.empty()) {
    spec.attrs.set(AttrId::kStartIndicesBatchingDims);
  }
  spec.attrs.slice_sizes.assign(slice_sizes.begin(), slice_sizes.end());
  spec.attrs.set(AttrId::kSliceSizes);
  if (indices_are_sorted) {
    spec.attrs.indices_are_sorted = true;
    spec.attrs.set(AttrId::kIndicesAreSorted);
  }
  return ctx.Add(std::move(spec));
}

XlaOp Scatter(absl::Span<const XlaOp> operands, XlaOp scatter_indices,
              absl::Span<const XlaOp> updates,
              const HloModule& update_computation,
              const ScatterDimensionNumbers& dn, bool indices_are_sorted,
              bool unique_indices) {
  std::vector<XlaOp> all(operands.begin(), operands.end());
  all.push_back(scatter_indices);
  all.insert(all.end(), updates.begin(), updates.end());
  CallContext ctx;
  if (!Begin(&ctx, nullptr, all,
             Call("Scatter",
                  {{"operands", Desc(operands)},
                   {"scatter_indices", Desc(scatter_indices)},
                   {"updates", Desc(updates)},
                   {"update_computation", update_computation.name()},
                   {"index_vector_dim", absl::StrCat(dn.index_vector_dim)},
                   {"update_window_dims", Dims(dn.update_window_dims)},
                   {"inserted_window_dims", Dims(dn.inserted_window_dims)},
                   {"scatter_dims_to_operand_dims",
                    Dims(dn.scatter_dims_to_operand_dims)}}))) {
    return ctx.Failed();
  }
  if (operands.empty() || operands.size() != updates.size()) {
    return ctx.Fail(Invalid("needs N >= 1 operands and N updates, got ",
                            operands.size(), " and ", updates.size()));
  }
  InstructionSpec spec = Spec(HloOpcode::kScatter, all);
  spec.attrs.scatter_dimension_numbers = dn;
  spec.attrs.set(AttrId::kUpdateWindowDims);
  spec.attrs.set(AttrId::kInsertedWindowDims);
  spec.attrs.set(AttrId::kScatterDimsToOperandDims);
  spec.attrs.set(AttrId::kIndexVectorDim);
  if (!dn.input_batching_dims.empty()) {
    spec.attrs.set(AttrId::kInputBatchingDims);
  }
  if (!dn.scatter_indices_batching_dims.empty()) {
    spec.attrs.set(AttrId::kScatterIndicesBatchingDims);
  }
  if (indices_are_sorted) {
    spec.attrs.indices_are_sorted = true;
    spec.attrs.set(AttrId::kIndicesAreSorted);
  }
  if (unique_indices) {
    spec.attrs.unique_indices = true;
    spec.attrs.set(AttrId::kUniqueIndices);
  }
  spec.callees.emplace_back(AttrId::kToApply, &update_computation);
  return ctx.Add(std::move(spec));
}

XlaOp Scatter(XlaOp operand, XlaOp scatter_indices, XlaOp updates,
              const HloModule& update_computation,
              const ScatterDimensionNumbers& dimension_numbers,
              bool indices_are_sorted, bool unique_indices) {
  XlaOp ops[] = {operand};
  XlaOp ups[] = {updates};
  return Scatter(ops, scatter_indices, ups, update_computation,
                 dimension_numbers, indices_are_sorted, unique_indices);
}

// ---------------------------------------------------------------- control

XlaOp Call(Builder* builder, const HloModule& computation,
           absl::Span<const XlaOp> operands) {
  CallContext ctx;
  if (!Begin(
          &ctx, builder, operands,
          builder_internal::Call("Call", {{"computation", computation.name()},
                                          {"args", Desc(operands)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kCall, operands);
  spec.callees.emplace_back(AttrId::kToApply, &computation);
  return ctx.Add(std::move(spec));
}

XlaOp CompositeCall(Builder* builder, const HloModule& computation,
                    absl::Span<const XlaOp> operands, const std::string& name,
                    std::optional<absl::string_view> attributes,
                    std::optional<int64_t> version) {
  CallContext ctx;
  if (!Begin(&ctx, builder, operands,
             builder_internal::Call(
                 "CompositeCall",
                 {{"computation", computation.name()},
                  {"args", Desc(operands)},
                  {"name", name},
                  {"composite_attributes",
                   attributes.has_value() ? std::string(*attributes) : "-"},
                  {"version",
                   version.has_value() ? absl::StrCat(*version) : "-"}}))) {
    return ctx.Failed();
  }
  if (name.empty()) return ctx.Fail(Invalid("the composite needs a name"));
  // Seed 001: "implemented as a kCall with attribute is_composite=true ...
  // The frontend attributes store the remaining attributes prefixed with
  // composite."; the version defaults to 0.
  InstructionSpec spec = Spec(HloOpcode::kCall, operands);
  spec.callees.emplace_back(AttrId::kToApply, &computation);
  spec.attrs.is_composite = true;
  spec.attrs.set(AttrId::kIsComposite);
  spec.attrs.frontend_attributes["composite.name"] = name;
  spec.attrs.frontend_attributes["composite.attributes"] =
      attributes.has_value() ? std::string(*attributes) : "{}";
  spec.attrs.frontend_attributes["composite.version"] =
      absl::StrCat(version.value_or(0));
  spec.attrs.set(AttrId::kFrontendAttributes);
  return ctx.Add(std::move(spec));
}

XlaOp Conditional(XlaOp predicate, XlaOp true_operand,
                  const HloModule& true_computation, XlaOp false_operand,
                  const HloModule& false_computation) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {predicate, true_operand, false_operand},
             builder_internal::Call(
                 "Conditional",
                 {{"pred", Desc(predicate)},
                  {"true_operand", Desc(true_operand)},
                  {"true_computation", true_computation.name()},
                  {"false_operand", Desc(false_operand)},
                  {"false_computation", false_computation.name()}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec =
      Spec(HloOpcode::kConditional, {predicate, true_operand, false_operand});
  spec.callees.emplace_back(AttrId::kTrueComputation, &true_computation);
  spec.callees.emplace_back(AttrId::kFalseComputation, &false_computation);
  return ctx.Add(std::move(spec));
}

XlaOp Conditional(XlaOp branch_index,
                  absl::Span<const HloModule* const> branch_computations,
                  absl::Span<const XlaOp> branch_operands) {
  std::vector<XlaOp> all = {branch_index};
  all.insert(all.end(), branch_operands.begin(), branch_operands.end());
  std::vector<std::string> names;
  for (const HloModule* m : branch_computations) {
    names.push_back(m == nullptr ? "<null>" : m->name());
  }
  CallContext ctx;
  if (!Begin(&ctx, nullptr, all,
             builder_internal::Call(
                 "Conditional",
                 {{"branch_index", Desc(branch_index)},
                  {"branch_computations",
                   absl::StrCat("{", absl::StrJoin(names, ", "), "}")},
                  {"branch_operands", Desc(branch_operands)}}))) {
    return ctx.Failed();
  }
  if (branch_computations.empty() ||
      branch_computations.size() != branch_operands.size()) {
    return ctx.Fail(
        Invalid("needs N >= 1 branch_computations and N "
                "branch_operands, got ",
                branch_computations.size(), " and ", branch_operands.size()));
  }
  InstructionSpec spec = Spec(HloOpcode::kConditional, all);
  for (const HloModule* m : branch_computations) {
    if (m == nullptr) return ctx.Fail(Invalid("a branch computation is null"));
    spec.callees.emplace_back(AttrId::kBranchComputations, m);
  }
  return ctx.Add(std::move(spec));
}

XlaOp While(const HloModule& condition, const HloModule& body, XlaOp init) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {init},
             builder_internal::Call("While", {{"condition", condition.name()},
                                              {"body", body.name()},
                                              {"init", Desc(init)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kWhile, {init});
  spec.callees.emplace_back(AttrId::kCondition, &condition);
  spec.callees.emplace_back(AttrId::kBody, &body);
  return ctx.Add(std::move(spec));
}

}  // namespace hloref
