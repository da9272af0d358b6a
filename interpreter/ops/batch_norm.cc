// The kBatchNorm family: BatchNormTraining, BatchNormInference and
// BatchNormGrad (seed 001). See batch_norm.h for the numerics and the
// oracle's error bound.
#include "interpreter/ops/batch_norm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/exact_sum.h"
#include "interpreter/ops/families.h"
#include "interpreter/ops/wide_float.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

using LD = long double;

// Where the feature dimension sits: element `linear` has feature
// (linear / inner) % features.
struct FeatureLayout {
  int64_t features = 0;
  int64_t inner = 1;
  int64_t per_feature = 0;  // elements per feature (m * w * h in the seed)
  int64_t FeatureOf(int64_t linear) const {
    return (linear / inner) % features;
  }
};

absl::StatusOr<FeatureLayout> GetLayout(const HloInstruction& inst,
                                        const Literal& operand) {
  const Shape& s = operand.shape();
  const int64_t f = inst.attrs().feature_index;
  if (f < 0 || f >= s.rank() || !IsFloat(s.element_type())) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "feature_index ", f, " or operand ",
        s.ToString(), " is invalid (is the module verified?)"));
  }
  FeatureLayout layout;
  layout.features = s.dimensions(f);
  for (int64_t d = f + 1; d < s.rank(); ++d) layout.inner *= s.dimensions(d);
  layout.per_feature =
      layout.features == 0 ? 0 : operand.element_count() / layout.features;
  return layout;
}

absl::Status ExpectFeatureVector(const HloInstruction& inst, const Literal& v,
                                 int64_t index, const FeatureLayout& layout,
                                 PrimitiveType type) {
  if (!v.shape().IsArray() || v.shape().rank() != 1 ||
      v.shape().dimensions(0) != layout.features || v.element_type() != type) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "operand ", index, " is ",
        v.shape().ToString(), ", expected ", PrimitiveTypeName(type), "[",
        layout.features, "] (is the module verified?)"));
  }
  return absl::OkStatus();
}

// The exact sum as a long double (hi + lo of the double-double rounding,
// relative error <= 2^-64 after the final addition). The sum stays usable.
LD ToLongDouble(ExactSum& sum) {
  const double hi = sum.Round(53, -1022);
  if (!std::isfinite(hi)) return hi;
  sum.Add(-hi);
  const double lo = sum.Round(53, -1022);
  sum.Add(hi);
  return static_cast<LD>(hi) + static_cast<LD>(lo);
}

// Adds (x - c)^2 exactly: x - c = h + e exactly (TwoSum), and
// (h + e)^2 = h^2 + 2he + e^2 as three exact products.
void AddSquaredDifference(ExactSum& sum, double x, double c) {
  double h, e;
  wide::TwoSum(x, -c, &h, &e);
  if (!std::isfinite(h)) {
    sum.Add(h * h);
    return;
  }
  sum.AddProduct(h, h);
  sum.AddProduct(2 * h, e);
  sum.AddProduct(e, e);
}

// Adds g * (x - c) exactly.
void AddProductWithDifference(ExactSum& sum, double g, double x, double c) {
  double h, e;
  wide::TwoSum(x, -c, &h, &e);
  if (!std::isfinite(h)) {
    sum.Add(g * h);
    return;
  }
  sum.AddProduct(g, h);
  sum.AddProduct(g, e);
}

}  // namespace

// Normalises each feature with the batch mean and variance computed from
// the operand; returns (output, batch_mean, batch_var).
// Semantics: BatchNormTraining. mu = (1/N) sum x; var = (1/N) sum (x -
// mu)^2; y = gamma (x - mu) / sqrt(var + eps) + beta, with N = m w h.
absl::StatusOr<Literal> EvalBatchNormTraining(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 3, 3));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[0], 0));
  const Literal& operand = *operands[0];
  const PrimitiveType type = operand.element_type();
  HLOREF_ASSIGN_OR_RETURN(FeatureLayout layout, GetLayout(inst, operand));
  for (int64_t i = 1; i <= 2; ++i) {
    HLOREF_RETURN_IF_ERROR(
        ExpectFeatureVector(inst, *operands[i], i, layout, type));
  }
  if (!inst.shape().IsTuple() || inst.shape().tuple_size() != 3) {
    return InstructionInternal(inst, "result is not a 3-tuple");
  }
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> x, LoadDoubles(operand));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> scale, LoadDoubles(*operands[1]));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> offset,
                          LoadDoubles(*operands[2]));
  const LD epsilon = static_cast<LD>(inst.attrs().epsilon);
  const int64_t features = layout.features;
  const int64_t n = static_cast<int64_t>(x.size());
  const LD count = static_cast<LD>(layout.per_feature);

  // Pass 1: exact sums -> mean.
  std::vector<ExactSum> sums(static_cast<size_t>(features));
  for (int64_t i = 0; i < n; ++i) sums[layout.FeatureOf(i)].Add(x[i]);
  // Error data for batch_mean (numerics.md 7.3, 7.6): the mean is the sum
  // of the N terms x_i / N, so S = sum |x_i| / N (rounded up) and m = N
  // (N - 1 additions plus the scaling by 1/N).
  if (ctx.options().compute_error_data) {
    std::vector<ExactSum> abs_sums(static_cast<size_t>(features));
    for (int64_t i = 0; i < n; ++i) {
      abs_sums[layout.FeatureOf(i)].Add(std::fabs(x[i]));
    }
    for (int64_t l = 0; l < features; ++l) {
      const double per = static_cast<double>(layout.per_feature);
      const double s =
          layout.per_feature == 0
              ? 0.0
              : std::nextafter(abs_sums[l].RoundUpToDouble() / per, INFINITY);
      ctx.SetErrorData(1, l, s, layout.per_feature);
    }
  }
  std::vector<LD> mean(features);
  std::vector<double> shift(features);
  for (int64_t l = 0; l < features; ++l) {
    mean[l] = ToLongDouble(sums[l]) / count;  // 0/0 = NaN for N = 0
    shift[l] = static_cast<double>(mean[l]);
  }
  HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
  // Pass 2: var = (sum (x - c)^2 - D^2 / N) / N with c the double nearest
  // the mean and D = sum x - N c (exact), since sum (x - mu)^2 =
  // sum (x - c)^2 - N (mu - c)^2 and mu - c = D / N.
  std::vector<ExactSum> squares(static_cast<size_t>(features));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t l = layout.FeatureOf(i);
    AddSquaredDifference(squares[l], x[i], shift[l]);
  }
  std::vector<LD> var(features);
  for (int64_t l = 0; l < features; ++l) {
    ExactSum& d = sums[l];
    if (std::isfinite(shift[l])) {
      d.AddProduct(-static_cast<double>(layout.per_feature), shift[l]);
    }
    const LD dev = std::isfinite(shift[l]) ? ToLongDouble(d) : 0;
    LD v = (ToLongDouble(squares[l]) - dev * dev / count) / count;
    if (v < 0) v = 0;  // only rounding of a zero variance can get here
    var[l] = v;
  }
  // Normalise.
  std::vector<LD> y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t l = layout.FeatureOf(i);
    y[i] = static_cast<LD>(scale[l]) * (static_cast<LD>(x[i]) - mean[l]) /
               std::sqrt(var[l] + epsilon) +
           static_cast<LD>(offset[l]);
  }
  const Shape& shape = inst.shape();
  std::vector<Literal> parts;
  HLOREF_ASSIGN_OR_RETURN(Literal out,
                          wide::StoreLongDoubles(shape.tuple_shapes(0), y));
  HLOREF_ASSIGN_OR_RETURN(Literal mean_out,
                          wide::StoreLongDoubles(shape.tuple_shapes(1), mean));
  HLOREF_ASSIGN_OR_RETURN(Literal var_out,
                          wide::StoreLongDoubles(shape.tuple_shapes(2), var));
  parts.push_back(std::move(out));
  parts.push_back(std::move(mean_out));
  parts.push_back(std::move(var_out));
  return Literal::MakeTuple(std::move(parts));
}

// Normalises each feature with the given mean and variance.
// Semantics: BatchNormInference. y = gamma (x - mean) / sqrt(var + eps) +
// beta.
absl::StatusOr<Literal> EvalBatchNormInference(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 5, 5));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[0], 0));
  const Literal& operand = *operands[0];
  const PrimitiveType type = operand.element_type();
  HLOREF_ASSIGN_OR_RETURN(FeatureLayout layout, GetLayout(inst, operand));
  for (int64_t i = 1; i <= 4; ++i) {
    HLOREF_RETURN_IF_ERROR(
        ExpectFeatureVector(inst, *operands[i], i, layout, type));
  }
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> x, LoadDoubles(operand));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> scale, LoadDoubles(*operands[1]));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> offset,
                          LoadDoubles(*operands[2]));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> mean, LoadDoubles(*operands[3]));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> var, LoadDoubles(*operands[4]));
  const LD epsilon = static_cast<LD>(inst.attrs().epsilon);
  std::vector<LD> inv(static_cast<size_t>(layout.features));
  for (int64_t l = 0; l < layout.features; ++l) {
    inv[l] = static_cast<LD>(scale[l]) /
             std::sqrt(static_cast<LD>(var[l]) + epsilon);
  }
  std::vector<LD> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t l = layout.FeatureOf(static_cast<int64_t>(i));
    y[i] = (static_cast<LD>(x[i]) - static_cast<LD>(mean[l])) * inv[l] +
           static_cast<LD>(offset[l]);
  }
  return wide::StoreLongDoubles(inst.shape(), y);
}

// Gradients of batch norm with respect to operand, scale and offset;
// returns (grad_operand, grad_scale, grad_offset).
// Semantics: BatchNormGrad. c = (1/N) sum dy (x - mu) / (var + eps);
// d = (1/N) sum dy; dx = gamma / sqrt(var + eps) (dy - d - c (x - mu));
// dgamma = sum dy (x - mu) / sqrt(var + eps); dbeta = sum dy.
absl::StatusOr<Literal> EvalBatchNormGrad(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 5, 5));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[0], 0));
  const Literal& operand = *operands[0];
  const PrimitiveType type = operand.element_type();
  HLOREF_ASSIGN_OR_RETURN(FeatureLayout layout, GetLayout(inst, operand));
  for (int64_t i = 1; i <= 3; ++i) {
    HLOREF_RETURN_IF_ERROR(
        ExpectFeatureVector(inst, *operands[i], i, layout, type));
  }
  const Literal& grad_output = *operands[4];
  if (!grad_output.shape().IsArray() || grad_output.element_type() != type ||
      grad_output.element_count() != operand.element_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "grad_output is ",
                     grad_output.shape().ToString(),
                     ", expected the operand's shape (is the module "
                     "verified?)"));
  }
  if (!inst.shape().IsTuple() || inst.shape().tuple_size() != 3) {
    return InstructionInternal(inst, "result is not a 3-tuple");
  }
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> x, LoadDoubles(operand));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> scale, LoadDoubles(*operands[1]));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> mean, LoadDoubles(*operands[2]));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> var, LoadDoubles(*operands[3]));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> dy, LoadDoubles(grad_output));
  const LD epsilon = static_cast<LD>(inst.attrs().epsilon);
  const int64_t features = layout.features;
  const int64_t n = static_cast<int64_t>(x.size());
  const LD count = static_cast<LD>(layout.per_feature);

  const bool error_data = ctx.options().compute_error_data;
  std::vector<ExactSum> dy_sum(static_cast<size_t>(features));
  std::vector<ExactSum> dy_x_sum(static_cast<size_t>(features));
  std::vector<ExactSum> dy_abs_sum(error_data ? features : 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t l = layout.FeatureOf(i);
    dy_sum[l].Add(dy[i]);
    if (error_data) dy_abs_sum[l].Add(std::fabs(dy[i]));
    AddProductWithDifference(dy_x_sum[l], dy[i], x[i], mean[l]);
  }
  HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
  std::vector<LD> c(features), d(features), factor(features);
  std::vector<LD> grad_scale(features);
  std::vector<double> grad_offset(features);
  for (int64_t l = 0; l < features; ++l) {
    const LD ve = static_cast<LD>(var[l]) + epsilon;
    const LD root = std::sqrt(ve);
    const LD p = ToLongDouble(dy_x_sum[l]);
    const LD s = ToLongDouble(dy_sum[l]);
    c[l] = p / (count * ve);
    d[l] = s / count;
    factor[l] = static_cast<LD>(scale[l]) / root;
    grad_scale[l] = p / root;
    // The exact sum rounded once, directly to the element type.
    grad_offset[l] = dy_sum[l].RoundTo(type);
    // Error data for grad_offset, a plain sum of N terms: S = sum |dy|,
    // m = N - 1.
    if (error_data) {
      ctx.SetErrorData(2, l, dy_abs_sum[l].RoundUpToDouble(),
                       std::max<int64_t>(layout.per_feature - 1, 0));
    }
  }
  std::vector<LD> grad_operand(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t l = layout.FeatureOf(i);
    const LD centered = static_cast<LD>(x[i]) - static_cast<LD>(mean[l]);
    grad_operand[i] =
        factor[l] * (static_cast<LD>(dy[i]) - d[l] - c[l] * centered);
  }
  const Shape& shape = inst.shape();
  std::vector<Literal> parts;
  HLOREF_ASSIGN_OR_RETURN(
      Literal gx, wide::StoreLongDoubles(shape.tuple_shapes(0), grad_operand));
  HLOREF_ASSIGN_OR_RETURN(
      Literal gs, wide::StoreLongDoubles(shape.tuple_shapes(1), grad_scale));
  HLOREF_ASSIGN_OR_RETURN(Literal gb,
                          StoreDoubles(shape.tuple_shapes(2), grad_offset));
  parts.push_back(std::move(gx));
  parts.push_back(std::move(gs));
  parts.push_back(std::move(gb));
  return Literal::MakeTuple(std::move(parts));
}

absl::StatusOr<Literal> EvalBatchNorm(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kBatchNormTraining:
      return EvalBatchNormTraining(inst, operands, ctx);
    case HloOpcode::kBatchNormInference:
      return EvalBatchNormInference(inst, operands, ctx);
    case HloOpcode::kBatchNormGrad:
      return EvalBatchNormGrad(inst, operands, ctx);
    default:
      return InstructionInternal(inst, "not a batch-norm op");
  }
}

}  // namespace hloref
