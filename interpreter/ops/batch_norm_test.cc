// Tests of the kBatchNorm family (interpreter/ops/batch_norm.cc): small
// cases derived by hand from the seed's formulas, cancellation-heavy data
// that a naive low-precision accumulation gets wrong, and random data in
// f16, bf16, f32 and f64 against an independent long double two-pass
// evaluation of the seed's formulas written here, every feature_index,
// zero-size shapes.
#include "interpreter/ops/batch_norm.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using testing_dm::Lit;
using testing_dm::RunHlo;
using testing_dm::Shp;

using LD = long double;

Literal FloatLiteral(PrimitiveType t, const std::vector<int64_t>& dims,
                     const std::vector<double>& values) {
  Literal lit(Shape::Array(t, dims));
  for (size_t i = 0; i < values.size(); ++i) {
    lit.SetFromDouble(static_cast<int64_t>(i), values[i]);
  }
  return lit;
}
std::vector<double> Values(const Literal& lit) {
  std::vector<double> v;
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    v.push_back(lit.GetAsDouble(i));
  }
  return v;
}

int Precision(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF16:
      return 11;
    case PrimitiveType::kBF16:
      return 8;
    case PrimitiveType::kF32:
      return 24;
    default:
      return 53;
  }
}

// |got - want| within `half_ulps` ulps of the type at want (ulp of the
// binade of want, never below the smallest normal's ulp).
void ExpectClose(double got, LD want, PrimitiveType t, double half_ulps,
                 const std::string& what) {
  const int p = Precision(t);
  const int emin = t == PrimitiveType::kF16 ? -14 : -126;
  int e = want == 0 ? emin : std::ilogb(static_cast<double>(want));
  if (e < emin) e = emin;
  const LD ulp = std::ldexp(1.0L, e - p + 1);
  EXPECT_LE(std::fabs(static_cast<LD>(got) - want), half_ulps * ulp / 2)
      << what << ": got " << got << " want " << static_cast<double>(want);
}

std::string Dims(const std::vector<int64_t>& d) {
  return absl::StrJoin(d, ",");
}

// ---- Hand-derived cases.

// x = {{1, 2}, {3, 6}}, feature_index 1: feature 0 holds {1, 3} (mean 2,
// variance ((1-2)^2 + (3-2)^2) / 2 = 1), feature 1 holds {2, 6} (mean 4,
// variance 4). scale {1, 2}, offset {0, 10}, epsilon 0:
// y = {(1-2)/1, 2(2-4)/2 + 10; (3-2)/1, 2(6-4)/2 + 10} = {{-1, 8}, {1, 12}}.
TEST(BatchNormTraining, HandDerived) {
  const std::string text =
      "HloModule m\nENTRY e {\n"
      "  x = f32[2,2] constant({{1, 2}, {3, 6}})\n"
      "  s = f32[2] constant({1, 2})\n  o = f32[2] constant({0, 10})\n"
      "  ROOT b = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), "
      "epsilon=0, feature_index=1\n}\n";
  absl::StatusOr<EvalResult> r = RunHlo(text);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Literal> parts;
  parts.push_back(Lit("f32[2,2] {{-1, 8}, {1, 12}}"));
  parts.push_back(Lit("f32[2] {2, 4}"));
  parts.push_back(Lit("f32[2] {1, 4}"));
  EXPECT_EQ(r->value, Literal::MakeTuple(std::move(parts)))
      << r->value.ToString();
}

// One feature {1e8, 1, -1e8, 2} in f32: exact mean 3/4; variance
// ((1e8 - .75)^2 + .25^2 + (1e8 + .75)^2 + 1.25^2) / 4 = 5e15 + 11/16.
// Summing in f32 (or even naively in f64 for the squares) loses these.
TEST(BatchNormTraining, CancellationIsExact) {
  const std::string text =
      "HloModule m\nENTRY e {\n"
      "  x = f32[4,1] constant({{1e8}, {1}, {-1e8}, {2}})\n"
      "  s = f32[1] constant({1})\n  o = f32[1] constant({0})\n"
      "  ROOT b = (f32[4,1], f32[1], f32[1]) batch-norm-training(x, s, o), "
      "epsilon=0, feature_index=1\n}\n";
  absl::StatusOr<EvalResult> r = RunHlo(text);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.tuple_element(1).GetAsDouble(0), 0.75);
  EXPECT_EQ(r->value.tuple_element(2).GetAsDouble(0),
            static_cast<double>(static_cast<float>(5e15 + 0.6875)));
  // f64 keeps the 11/16.
  const std::string text64 =
      "HloModule m\nENTRY e {\n"
      "  x = f64[4,1] constant({{1e8}, {1}, {-1e8}, {2}})\n"
      "  s = f64[1] constant({1})\n  o = f64[1] constant({0})\n"
      "  ROOT b = (f64[4,1], f64[1], f64[1]) batch-norm-training(x, s, o), "
      "epsilon=0, feature_index=1\n}\n";
  r = RunHlo(text64);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.tuple_element(1).GetAsDouble(0), 0.75);
  EXPECT_EQ(r->value.tuple_element(2).GetAsDouble(0), 5e15 + 0.6875);
  // A constant feature has variance exactly 0 and y = offset.
  const std::string flat =
      "HloModule m\nENTRY e {\n"
      "  x = f32[1,3] constant({{0.1, 0.1, 0.1}})\n"
      "  s = f32[1] constant({3})\n  o = f32[1] constant({-2})\n"
      "  ROOT b = (f32[1,3], f32[1], f32[1]) batch-norm-training(x, s, o), "
      "epsilon=0.5, feature_index=0\n}\n";
  r = RunHlo(flat);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.tuple_element(2).GetAsDouble(0), 0);
  EXPECT_EQ(r->value.tuple_element(1).GetAsDouble(0),
            static_cast<double>(0.1f));
  EXPECT_EQ(Values(r->value.tuple_element(0)),
            (std::vector<double>{-2, -2, -2}));
}

// Same data as HandDerived with the moments given.
TEST(BatchNormInference, HandDerived) {
  const std::string text =
      "HloModule m\nENTRY e {\n"
      "  x = bf16[2,2] constant({{1, 2}, {3, 6}})\n"
      "  s = bf16[2] constant({1, 2})\n  o = bf16[2] constant({0, 10})\n"
      "  m = bf16[2] constant({2, 4})\n  v = bf16[2] constant({1, 4})\n"
      "  ROOT b = bf16[2,2] batch-norm-inference(x, s, o, m, v), "
      "epsilon=0, feature_index=1\n}\n";
  absl::StatusOr<EvalResult> r = RunHlo(text);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("bf16[2,2] {{-1, 8}, {1, 12}}"));
}

// N = 3, x = {1, 2, 6}, mean 3, variance 4 (given), epsilon 0, scale 1,
// dy = {1, 0, 2}: d = 1; sum dy (x - mu) = -2 + 0 + 6 = 4; c = 4 / 3 / 4 =
// 1/3; dx = (1/2)(dy - 1 - (x - 3)/3) = {1/3, -1/3, 0}; dgamma = 4 / 2 = 2;
// dbeta = 3.
TEST(BatchNormGrad, HandDerived) {
  const std::string text =
      "HloModule m\nENTRY e {\n"
      "  x = f32[3,1] constant({{1}, {2}, {6}})\n"
      "  s = f32[1] constant({1})\n  m = f32[1] constant({3})\n"
      "  v = f32[1] constant({4})\n  dy = f32[3,1] constant({{1}, {0}, {2}})\n"
      "  ROOT b = (f32[3,1], f32[1], f32[1]) batch-norm-grad(x, s, m, v, dy), "
      "epsilon=0, feature_index=1\n}\n";
  absl::StatusOr<EvalResult> r = RunHlo(text);
  ASSERT_TRUE(r.ok()) << r.status();
  const float third = 1.0f / 3;
  EXPECT_EQ(Values(r->value.tuple_element(0)),
            (std::vector<double>{third, -third, 0}));
  EXPECT_EQ(r->value.tuple_element(1).GetAsDouble(0), 2);
  EXPECT_EQ(r->value.tuple_element(2).GetAsDouble(0), 3);
}

// ---- Random data against a long double two-pass evaluation of the seed's
// formulas (independent of the oracle's exact accumulation; its own error
// is about N * 2^-64 relative, far below half an ulp of f32).

struct Data {
  std::vector<int64_t> dims;
  int64_t feature_index;
  std::vector<double> x, scale, offset, mean, var, dy;
};

Data MakeData(PrimitiveType t, std::vector<int64_t> dims, int64_t fi,
              uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal(0.5, 2.0);
  std::uniform_real_distribution<double> pos(0.25, 3.0);
  auto round = [&](double v) {
    return FloatLiteral(t, {1}, {v}).GetAsDouble(0);
  };
  Data d;
  d.dims = dims;
  d.feature_index = fi;
  int64_t n = 1;
  for (int64_t x : dims) n *= x;
  for (int64_t i = 0; i < n; ++i) d.x.push_back(round(normal(gen)));
  for (int64_t i = 0; i < n; ++i) d.dy.push_back(round(normal(gen)));
  for (int64_t l = 0; l < dims[fi]; ++l) {
    d.scale.push_back(round(normal(gen)));
    d.offset.push_back(round(normal(gen)));
    d.mean.push_back(round(normal(gen)));
    d.var.push_back(round(pos(gen)));
  }
  return d;
}

int64_t FeatureOf(const Data& d, int64_t linear) {
  int64_t inner = 1;
  for (size_t k = d.feature_index + 1; k < d.dims.size(); ++k) {
    inner *= d.dims[k];
  }
  return (linear / inner) % d.dims[d.feature_index];
}

std::string Header(const std::string& t, const Data& d) {
  const std::string f = absl::StrCat(t, "[", d.dims[d.feature_index], "]");
  return absl::StrCat("  x = ", t, "[", Dims(d.dims), "] parameter(0)\n",
                      "  p1 = ", f, " parameter(1)\n  p2 = ", f,
                      " parameter(2)\n");
}

class BatchNormRandom : public ::testing::TestWithParam<PrimitiveType> {};

TEST_P(BatchNormRandom, TrainingInferenceGrad) {
  const PrimitiveType t = GetParam();
  const std::string ts(PrimitiveTypeName(t));
  const float eps = 0.01f;
  for (int64_t fi : {0, 1, 2}) {
    SCOPED_TRACE(absl::StrCat(ts, " feature_index ", fi));
    Data d = MakeData(t, {4, 3, 5}, fi, 17 + fi);
    const int64_t features = d.dims[fi];
    const std::string xs = absl::StrCat(ts, "[", Dims(d.dims), "]");
    const std::string fs = absl::StrCat(ts, "[", features, "]");
    const int64_t n = static_cast<int64_t>(d.x.size());
    const LD count = static_cast<LD>(n / features);
    // Reference moments.
    std::vector<LD> mean(features, 0), var(features, 0);
    for (int64_t i = 0; i < n; ++i) mean[FeatureOf(d, i)] += d.x[i];
    for (auto& m : mean) m /= count;
    for (int64_t i = 0; i < n; ++i) {
      const LD c = d.x[i] - mean[FeatureOf(d, i)];
      var[FeatureOf(d, i)] += c * c;
    }
    for (auto& v : var) v /= count;
    const double tol = t == PrimitiveType::kF64 ? 4 : 1.0001;

    // Training.
    {
      std::vector<Literal> args;
      args.push_back(FloatLiteral(t, d.dims, d.x));
      args.push_back(FloatLiteral(t, {features}, d.scale));
      args.push_back(FloatLiteral(t, {features}, d.offset));
      const std::string text = absl::StrCat(
          "HloModule m\nENTRY e {\n", Header(ts, d), "  ROOT b = (", xs, ", ",
          fs, ", ", fs, ") batch-norm-training(x, p1, p2), epsilon=", eps,
          ", feature_index=", fi, "\n}\n");
      absl::StatusOr<EvalResult> r = RunHlo(text, std::move(args));
      ASSERT_TRUE(r.ok()) << r.status();
      for (int64_t l = 0; l < features; ++l) {
        ExpectClose(r->value.tuple_element(1).GetAsDouble(l), mean[l], t, tol,
                    "mean");
        ExpectClose(r->value.tuple_element(2).GetAsDouble(l), var[l], t, tol,
                    "var");
      }
      for (int64_t i = 0; i < n; ++i) {
        const int64_t l = FeatureOf(d, i);
        const LD y = d.scale[l] * (d.x[i] - mean[l]) /
                         std::sqrt(var[l] + static_cast<LD>(eps)) +
                     d.offset[l];
        ExpectClose(r->value.tuple_element(0).GetAsDouble(i), y, t, tol,
                    absl::StrCat("y ", i));
      }
    }
    // Inference.
    {
      std::vector<Literal> args;
      args.push_back(FloatLiteral(t, d.dims, d.x));
      args.push_back(FloatLiteral(t, {features}, d.scale));
      args.push_back(FloatLiteral(t, {features}, d.offset));
      args.push_back(FloatLiteral(t, {features}, d.mean));
      args.push_back(FloatLiteral(t, {features}, d.var));
      const std::string text = absl::StrCat(
          "HloModule m\nENTRY e {\n", Header(ts, d), "  p3 = ", fs,
          " parameter(3)\n  p4 = ", fs, " parameter(4)\n  ROOT b = ", xs,
          " batch-norm-inference(x, p1, p2, p3, p4), epsilon=", eps,
          ", feature_index=", fi, "\n}\n");
      absl::StatusOr<EvalResult> r = RunHlo(text, std::move(args));
      ASSERT_TRUE(r.ok()) << r.status();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t l = FeatureOf(d, i);
        const LD y = d.scale[l] * (d.x[i] - static_cast<LD>(d.mean[l])) /
                         std::sqrt(d.var[l] + static_cast<LD>(eps)) +
                     d.offset[l];
        ExpectClose(r->value.GetAsDouble(i), y, t, tol, absl::StrCat("y ", i));
      }
    }
    // Grad.
    {
      std::vector<Literal> args;
      args.push_back(FloatLiteral(t, d.dims, d.x));
      args.push_back(FloatLiteral(t, {features}, d.scale));
      args.push_back(FloatLiteral(t, {features}, d.mean));
      args.push_back(FloatLiteral(t, {features}, d.var));
      args.push_back(FloatLiteral(t, d.dims, d.dy));
      const std::string text = absl::StrCat(
          "HloModule m\nENTRY e {\n", Header(ts, d), "  p3 = ", fs,
          " parameter(3)\n  p4 = ", xs, " parameter(4)\n  ROOT b = (", xs, ", ",
          fs, ", ", fs, ") batch-norm-grad(x, p1, p2, p3, p4), epsilon=", eps,
          ", feature_index=", fi, "\n}\n");
      absl::StatusOr<EvalResult> r = RunHlo(text, std::move(args));
      ASSERT_TRUE(r.ok()) << r.status();
      std::vector<LD> sum_dy(features, 0), sum_dyx(features, 0);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t l = FeatureOf(d, i);
        sum_dy[l] += d.dy[i];
        sum_dyx[l] += d.dy[i] * (d.x[i] - static_cast<LD>(d.mean[l]));
      }
      for (int64_t l = 0; l < features; ++l) {
        const LD ve = d.var[l] + static_cast<LD>(eps);
        ExpectClose(r->value.tuple_element(1).GetAsDouble(l),
                    sum_dyx[l] / std::sqrt(ve), t, tol, "grad_scale");
        ExpectClose(r->value.tuple_element(2).GetAsDouble(l), sum_dy[l], t, tol,
                    "grad_offset");
      }
      for (int64_t i = 0; i < n; ++i) {
        const int64_t l = FeatureOf(d, i);
        const LD ve = d.var[l] + static_cast<LD>(eps);
        const LD c = sum_dyx[l] / count / ve;
        const LD dd = sum_dy[l] / count;
        const LD gx =
            d.scale[l] / std::sqrt(ve) *
            (d.dy[i] - dd - c * (d.x[i] - static_cast<LD>(d.mean[l])));
        // Cancellation inside the bracket: allow the absolute part of the
        // bound against the bracket's terms.
        const LD scale_abs =
            std::fabs(d.scale[l] / std::sqrt(ve)) *
            (std::fabs(static_cast<LD>(d.dy[i])) + std::fabs(dd) +
             std::fabs(c * (d.x[i] - d.mean[l])));
        const double got = r->value.tuple_element(0).GetAsDouble(i);
        if (std::fabs(static_cast<LD>(got) - gx) > 1e-15L * scale_abs) {
          ExpectClose(got, gx, t, tol, absl::StrCat("grad_operand ", i));
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, BatchNormRandom,
                         ::testing::Values(PrimitiveType::kF16,
                                           PrimitiveType::kBF16,
                                           PrimitiveType::kF32,
                                           PrimitiveType::kF64));

TEST(BatchNorm, ZeroSize) {
  // No elements per feature: the moments are 0/0 = NaN, the output empty.
  const std::string text =
      "HloModule m\nENTRY e {\n"
      "  x = f32[0,2] parameter(0)\n"
      "  s = f32[2] constant({1, 1})\n  o = f32[2] constant({0, 0})\n"
      "  ROOT b = (f32[0,2], f32[2], f32[2]) batch-norm-training(x, s, o), "
      "epsilon=0.1, feature_index=1\n}\n";
  std::vector<Literal> zero_args;
  zero_args.push_back(Literal(Shape::Array(PrimitiveType::kF32, {0, 2})));
  absl::StatusOr<EvalResult> r = RunHlo(text, std::move(zero_args));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(std::isnan(r->value.tuple_element(1).GetAsDouble(0)));
  EXPECT_TRUE(std::isnan(r->value.tuple_element(2).GetAsDouble(1)));
  // No features at all.
  const std::string none =
      "HloModule m\nENTRY e {\n"
      "  x = f32[3,0] parameter(0)\n  s = f32[0] parameter(1)\n"
      "  m = f32[0] parameter(2)\n  v = f32[0] parameter(3)\n"
      "  dy = f32[3,0] parameter(4)\n"
      "  ROOT b = (f32[3,0], f32[0], f32[0]) batch-norm-grad(x, s, m, v, dy), "
      "epsilon=0.1, feature_index=1\n}\n";
  std::vector<Literal> args;
  args.push_back(Literal(Shape::Array(PrimitiveType::kF32, {3, 0})));
  for (int i = 0; i < 3; ++i) {
    args.push_back(Literal(Shape::Array(PrimitiveType::kF32, {0})));
  }
  args.push_back(Literal(Shape::Array(PrimitiveType::kF32, {3, 0})));
  r = RunHlo(none, std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.tuple_element(0).element_count(), 0);
}

// Error data: batch_mean of {1, -3} (N = 2): S = (1 + 3) / 2 = 2 (an
// upper bound within one ulp), m = 2; grad_offset of dy = {1, -3, 0.5}
// (N = 3): S = 4.5, m = 2.
TEST(BatchNorm, ErrorData) {
  EvaluatorOptions options;
  options.compute_error_data = true;
  absl::StatusOr<EvalResult> r = RunHlo(
      "HloModule m\nENTRY e {\n  x = f32[2,1] constant({{1}, {-3}})\n"
      "  s = f32[1] constant({1})\n  o = f32[1] constant({0})\n"
      "  ROOT b = (f32[2,1], f32[1], f32[1]) batch-norm-training(x, s, o), "
      "epsilon=0, feature_index=1\n}\n",
      {}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->outputs.size(), 3u);
  ASSERT_TRUE(r->outputs[1].abs_sum.has_value());
  const double s = r->outputs[1].abs_sum->GetAsDouble(0);
  EXPECT_GE(s, 2);
  EXPECT_LE(s, 2 * (1 + 0x1p-51));
  EXPECT_EQ(r->outputs[1].term_count->GetAsInt64(0), 2);
  r = RunHlo(
      "HloModule m\nENTRY e {\n  x = f32[3,1] constant({{1}, {2}, {6}})\n"
      "  s = f32[1] constant({1})\n  m = f32[1] constant({3})\n"
      "  v = f32[1] constant({4})\n"
      "  dy = f32[3,1] constant({{1}, {-3}, {0.5}})\n"
      "  ROOT b = (f32[3,1], f32[1], f32[1]) batch-norm-grad(x, s, m, v, dy), "
      "epsilon=0, feature_index=1\n}\n",
      {}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->outputs[2].abs_sum.has_value());
  EXPECT_EQ(r->outputs[2].abs_sum->GetAsDouble(0), 4.5);
  EXPECT_EQ(r->outputs[2].term_count->GetAsInt64(0), 2);
  EXPECT_EQ(r->value.tuple_element(2).GetAsDouble(0), -1.5);
}

}  // namespace
}  // namespace hloref
