// Verifier: convolution (seed 001 "Conv (convolution)" and
// "ConvWithGeneralPadding"; dim_labels from docs/hlo-text-format.md 6.5).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

// convolution.C2: one role per dimension of an operand.
absl::Status CheckLabels(const HloInstruction& inst, absl::string_view what,
                         std::vector<int64_t> dims, int64_t rank) {
  if (static_cast<int64_t>(dims.size()) != rank) {
    return Fail(inst, "convolution.C2", "dim_labels give the ", what, " ",
                dims.size(), " dimensions, its rank is ", rank);
  }
  return CheckDimList(inst, "convolution.C2",
                      absl::StrCat(what, " dimension labels"), dims, rank);
}

}  // namespace

absl::StatusOr<Shape> InferConvolution(const HloInstruction& inst) {
  if (inst.opcode() != HloOpcode::kConvolution) {
    return WrongFamily(inst, "convolution");
  }
  // convolution.C1: lhs and rhs arrays; result array, complex exactly when
  // the operands are. pred operands are allowed: seed 001 does not type
  // them, XLA's shape inference and XLA:CPU accept them (a pred result is
  // the OR of the ANDs, as dot on pred; impl.convolution.1).
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "convolution.C1"));
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 1, "convolution.C1"));
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  if (!inst.shape().IsArray() ||
      IsComplex(lhs.element_type()) != IsComplex(rhs.element_type()) ||
      IsComplex(lhs.element_type()) != IsComplex(inst.shape().element_type())) {
    return Fail(inst, "convolution.C1", "operand types ", ShapeStr(lhs), ", ",
                ShapeStr(rhs), " and result ", ShapeStr(inst.shape()),
                " are not a valid convolution typing");
  }
  const ConvolutionDimensionNumbers& dn =
      inst.attrs().convolution_dimension_numbers;
  const int64_t n = static_cast<int64_t>(dn.input_spatial_dimensions.size());
  // convolution.C2: "lhs: rank n+2", "rhs: rank n+2", the labels name each
  // dimension once, the three label groups have n spatial dimensions.
  if (dn.kernel_spatial_dimensions.size() != static_cast<size_t>(n) ||
      dn.output_spatial_dimensions.size() != static_cast<size_t>(n)) {
    return Fail(inst, "convolution.C2", "dim_labels ", dn.text,
                " give input, kernel and output ", n, ", ",
                dn.kernel_spatial_dimensions.size(), " and ",
                dn.output_spatial_dimensions.size(),
                " spatial dimensions; they must be equal");
  }
  std::vector<int64_t> in = {dn.input_batch_dimension,
                             dn.input_feature_dimension};
  in.insert(in.end(), dn.input_spatial_dimensions.begin(),
            dn.input_spatial_dimensions.end());
  std::vector<int64_t> ker = {dn.kernel_input_feature_dimension,
                              dn.kernel_output_feature_dimension};
  ker.insert(ker.end(), dn.kernel_spatial_dimensions.begin(),
             dn.kernel_spatial_dimensions.end());
  std::vector<int64_t> out = {dn.output_batch_dimension,
                              dn.output_feature_dimension};
  out.insert(out.end(), dn.output_spatial_dimensions.begin(),
             dn.output_spatial_dimensions.end());
  HLOREF_RETURN_IF_ERROR(CheckLabels(inst, "input", in, lhs.rank()));
  HLOREF_RETURN_IF_ERROR(CheckLabels(inst, "kernel", ker, rhs.rank()));
  HLOREF_RETURN_IF_ERROR(CheckLabels(inst, "output", out, n + 2));

  // convolution.C3: the window has one entry per spatial dimension and
  // its size is the kernel's spatial size.
  const Window& window = inst.attrs().window;
  if (static_cast<int64_t>(window.dimensions.size()) != n) {
    return Fail(inst, "convolution.C3", "window has ", window.dimensions.size(),
                " dimensions, expected ", n, " (one per spatial dimension)");
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = rhs.dimensions(dn.kernel_spatial_dimensions[i]);
    if (window.dimensions[i].size != k) {
      return Fail(inst, "convolution.C3", "window size ",
                  window.dimensions[i].size, " in spatial dimension ", i,
                  " differs from kernel spatial size ", k);
    }
  }

  const int64_t fgc = inst.attrs().feature_group_count;
  const int64_t bgc = inst.attrs().batch_group_count;
  // convolution.C4: group counts are positive and not both above 1.
  if (fgc < 1 || bgc < 1 || (fgc > 1 && bgc > 1)) {
    return Fail(inst, "convolution.C4", "feature_group_count ", fgc,
                " and batch_group_count ", bgc,
                " must be positive and not both greater than 1");
  }
  const int64_t input_batch = lhs.dimensions(dn.input_batch_dimension);
  const int64_t input_features = lhs.dimensions(dn.input_feature_dimension);
  const int64_t kernel_input_features =
      rhs.dimensions(dn.kernel_input_feature_dimension);
  const int64_t kernel_output_features =
      rhs.dimensions(dn.kernel_output_feature_dimension);
  // convolution.C5: "feature_group_count needs to be a divisor of both the
  // input and the output feature dimension".
  if (input_features % fgc != 0 || kernel_output_features % fgc != 0) {
    return Fail(inst, "convolution.C5", "feature_group_count ", fgc,
                " must divide the input features ", input_features,
                " and the output features ", kernel_output_features);
  }
  // convolution.C6: "The input feature dimension of rhs needs to be equal to
  // the lhs input feature dimension divided by feature_group_count".
  if (kernel_input_features * fgc != input_features) {
    return Fail(inst, "convolution.C6", "kernel input features ",
                kernel_input_features, " times feature_group_count ", fgc,
                " must equal the input features ", input_features);
  }
  // convolution.C7: "batch_group_count needs to be a divisor of the size
  // of the lhs (input) batch dimension" and "of the output feature size".
  if (input_batch % bgc != 0 || kernel_output_features % bgc != 0) {
    return Fail(inst, "convolution.C7", "batch_group_count ", bgc,
                " must divide the input batch ", input_batch,
                " and the output features ", kernel_output_features);
  }
  // convolution.C8: positive strides and dilations, base not cropped below
  // zero; output spatial sizes are the valid window placements.
  std::vector<int64_t> base;
  for (int64_t d : dn.input_spatial_dimensions)
    base.push_back(lhs.dimensions(d));
  HLOREF_ASSIGN_OR_RETURN(
      std::vector<int64_t> spatial,
      WindowOutputDims(inst, "convolution.C8", base, window));

  std::vector<int64_t> dims(n + 2, 0);
  dims[dn.output_batch_dimension] = input_batch / bgc;
  dims[dn.output_feature_dimension] = kernel_output_features;
  for (int64_t i = 0; i < n; ++i) {
    dims[dn.output_spatial_dimensions[i]] = spatial[i];
  }
  return MakeShape(inst.shape().element_type(), dims);
}

}  // namespace hloref::verifier_internal
