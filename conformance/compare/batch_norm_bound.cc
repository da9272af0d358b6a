// BATCH_NORM_BOUND: per-element bounds of batch-norm-training, -inference
// and -grad. numerics.md 7.3 puts the batch-norm statistics in class A (an
// order-independent gamma bound on the absolute sum) and rsqrt in class U;
// the composition below is ours. Notation per feature f: N elements, u =
// u_T of the output type, rho = (2 k_rsqrt + 1) u the relative error of a
// computed rsqrt(v + eps) (k_rsqrt ulps of at most 2u|r| each, plus the
// rounding of v + eps, whose effect through the square root is <= u/2),
// gamma_m = gamma_m(u), and every bound is taken twice (factor 2) for
// margin. Sums are over the feature's elements; all of S1, Q, mu, var, P
// are computed here in long double from the operands (relative error
// ~2^-60, inside the margin). Each bound holds for any summation order
// and for both evaluation orders XLA and the seeds use (x - mu) * g + b
// or x * g + (b - mu * g), which is why |x| + |mu| (not |x - mu|) scales
// them.
//
// inference, g = scale / sqrt(var + eps):
//   |v - y| <= 2 ((gamma_6 + rho)(|x| + |mean|)|g| + gamma_3 |offset|)
// training, S1 = sum|x| / N, Q = sum x^2 / N:
//   batch_mean:  E_mu  = 2 gamma_{N+2} S1            (class A, division
//                                                     or reciprocal included)
//   batch_var:   E_var = 4 gamma_{N+4} (Q + S1^2) + E_mu^2 (two-pass:
//                sum (x - mu^)^2 = N var + N d^2 since sum (x - mu) = 0;
//                one-pass E[x^2] - E[x]^2: gamma_N Q + (2|mu| + E_mu) E_mu)
//   output:      r = 1/sqrt(var + eps), r+ = 1/sqrt(var + eps - E_var)
//                (ANY when var + eps <= E_var: the implementation's
//                variance may be <= -eps), E_r = r+ - r:
//                2 (|scale| (|x| + |mu| + E_mu) E_r + |scale| r E_mu +
//                   (gamma_6 + rho)(|x| + |mu|)|scale| r+ + gamma_3 |offset|)
// grad, r = 1/sqrt(var + eps) with the given mean mu and var,
// P = sum |dy| (|x| + |mu|), delta = gamma_{N+8} + 2 rho:
//   grad_offset: 2 gamma_N sum|dy|                   (class A)
//   grad_scale:  2 (gamma_{N+3} + rho) r P
//   grad_operand: 2 delta |scale| r (|dy| + sum|dy|/N +
//                 2 (|x| + |mu|) P / (N (var + eps)))
// Where a partial result (N (Q + S1^2 + S1) for the statistics, sum|dy|
// and P (1 + r) for the gradients, N times the terms of grad_operand's
// normalisation, the terms of the others) may
// reach max_T / 4 in some order, the element is ANY (overflow of an
// intermediate). Every bound gets a subnormal / flush floor (N + 8) tiny (1 +
// |scale| r) (1 + r) (tiny = min_T under ftz, else the subnormal spacing); the
// comparator adds half an ulp of the oracle's rounded value. A NaN among
// the inputs that flow into an element makes it NaN in every order (NaN
// required); other non-finite data (infinities: inf - inf or inf * 0 in
// some orders only) make it ANY.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "conformance/compare/op_bounds.h"
#include "spec/types/minifloat.h"

namespace hloref::conformance {
namespace {

using LD = long double;

double Gamma(int64_t m, double u) {
  const double mu = static_cast<double>(m) * u;
  return mu >= 1 ? INFINITY : mu / (1 - mu);
}

}  // namespace

OpBounds BatchNormBounds(const OpBoundContext& ctx) {
  OpBounds r;
  const HloOpcode op = ctx.inst->opcode();
  const size_t want = op == HloOpcode::kBatchNormTraining ? 3 : 5;
  const std::string name(HloOpcodeString(op));
  if (ctx.operands.size() != want) {
    r.rule = absl::StrCat("ANY (", name, ": unexpected operand count)");
    return r;
  }
  for (const Literal* o : ctx.operands) {
    if (o == nullptr) {
      r.rule = absl::StrCat("ANY (", name,
                            ": an operand is not a parameter or constant)");
      return r;
    }
  }
  const Literal& x = *ctx.operands[0];
  const Literal& y = *ctx.oracle;
  const PrimitiveType type = y.element_type();
  const Shape& xs = x.shape();
  const int64_t fi = ctx.inst->attrs().feature_index;
  if (!IsFloat(type) || fi < 0 || fi >= xs.rank()) {
    r.rule = absl::StrCat("ANY (", name, ": unexpected shapes or types)");
    return r;
  }
  const int64_t features = xs.dimensions(fi);
  int64_t stride = 1;
  for (int64_t d = fi + 1; d < xs.rank(); ++d) stride *= xs.dimensions(d);
  const int64_t total = x.element_count();
  const int64_t n = features == 0 ? 0 : total / features;
  auto feature_of = [&](int64_t i) { return (i / stride) % features; };
  const double u = std::ldexp(1.0, -Precision(FormatOf(type)));
  const double rho = (2 * ctx.rsqrt_ulps + 1) * u;
  const double tiny = TinyOf(type, *ctx.deviations);
  const LD eps = static_cast<LD>(ctx.inst->attrs().epsilon);
  const Literal& scale = *ctx.operands[1];
  r.ok = true;
  r.bound.assign(static_cast<size_t>(y.element_count()), 0);
  auto fin = [](LD v) { return std::isfinite(v); };
  const LD max_t = MaxFinite(FormatOf(type));
  // `reach`: the largest magnitude a partial result may take in some
  // evaluation order; where it nears max_T an intermediate may overflow
  // and nothing is required (ANY).
  // `nan_in`: a NaN flows into the element in every evaluation order, so
  // a NaN of the oracle is required; other non-finite data (infinities)
  // give NaN or an infinity depending on the order: ANY.
  auto set = [&](int64_t i, LD b, LD floor_scale, LD reach, bool nan_in) {
    const LD full = b + static_cast<LD>(n + 8) * tiny * floor_scale;
    if (nan_in) {
      r.bound[static_cast<size_t>(i)] = INFINITY;
      return;
    }
    if (fin(reach) && !(reach * 4 < max_t)) {
      r.bound[static_cast<size_t>(i)] = NAN;
      r.any_reason = "intermediate overflow possible";
      return;
    }
    if (fin(full)) {
      r.bound[static_cast<size_t>(i)] = static_cast<double>(full);
    } else {
      r.bound[static_cast<size_t>(i)] = NAN;
      r.any_reason = "infinite data: NaN or infinity depends on the order";
    }
  };
  auto isnan_at = [](const Literal& l, int64_t i) {
    return std::isnan(l.GetAsDouble(i));
  };

  if (op == HloOpcode::kBatchNormInference) {
    const Literal& offset = *ctx.operands[2];
    const Literal& mean = *ctx.operands[3];
    const Literal& var = *ctx.operands[4];
    r.rule = absl::StrCat(
        "BATCH_NORM_BOUND (batch-norm-inference): |v - y| <= 2 ((gamma_6 + "
        "rho)(|x| + |mean|)|g| + gamma_3 |offset|) + floor, g = scale / "
        "sqrt(var + eps), rho = ",
        rho / u, " u, u = 2^", std::log2(u));
    const double g6 = Gamma(6, u), g3 = Gamma(3, u);
    for (int64_t i = 0; i < total; ++i) {
      const int64_t f = feature_of(i);
      const LD ve = static_cast<LD>(var.GetAsDouble(f)) + eps;
      const LD rr = ve > 0 ? 1 / std::sqrt(ve) : INFINITY;
      const LD g = std::fabs(static_cast<LD>(scale.GetAsDouble(f))) * rr;
      const LD b = 2 * ((g6 + rho) *
                            (std::fabs(static_cast<LD>(x.GetAsDouble(i))) +
                             std::fabs(static_cast<LD>(mean.GetAsDouble(f)))) *
                            g +
                        g3 * std::fabs(static_cast<LD>(offset.GetAsDouble(f))));
      const LD ax = std::fabs(static_cast<LD>(x.GetAsDouble(i))) +
                    std::fabs(static_cast<LD>(mean.GetAsDouble(f)));
      set(i, b, (1 + g) * (1 + rr),
          ax * g + std::fabs(static_cast<LD>(offset.GetAsDouble(f))) + ax,
          isnan_at(x, i) || isnan_at(scale, f) || isnan_at(offset, f) ||
              isnan_at(mean, f) || isnan_at(var, f));
    }
    return r;
  }

  // Per-feature sums of x.
  std::vector<LD> s1(features, 0), q(features, 0), mu(features, 0),
      var(features, 0);
  std::vector<bool> x_nan(features, false);
  for (int64_t i = 0; i < total; ++i) {
    const LD v = x.GetAsDouble(i);
    const int64_t f = feature_of(i);
    if (std::isnan(v)) x_nan[f] = true;
    s1[f] += std::fabs(v);
    q[f] += v * v;
    mu[f] += v;
  }
  const LD nn = n > 0 ? static_cast<LD>(n) : 1;
  for (int64_t f = 0; f < features; ++f) {
    s1[f] /= nn;
    q[f] /= nn;
    mu[f] /= nn;
  }

  if (op == HloOpcode::kBatchNormTraining) {
    for (int64_t i = 0; i < total; ++i) {
      const LD d = static_cast<LD>(x.GetAsDouble(i)) - mu[feature_of(i)];
      var[feature_of(i)] += d * d;
    }
    for (int64_t f = 0; f < features; ++f) var[f] /= nn;
    const Literal& offset = *ctx.operands[2];
    const double gm = Gamma(n + 2, u), gv = Gamma(n + 4, u);
    std::vector<LD> e_mu(features), e_var(features);
    for (int64_t f = 0; f < features; ++f) {
      e_mu[f] = 2 * gm * s1[f];
      e_var[f] = 4 * gv * (q[f] + s1[f] * s1[f]) + e_mu[f] * e_mu[f];
    }
    if (ctx.op_output == 1 || ctx.op_output == 2) {
      r.rule = absl::StrCat("BATCH_NORM_BOUND (batch-norm-training ",
                            ctx.op_output == 1
                                ? "batch_mean): 2 gamma_{N+2} sum|x|/N"
                                : "batch_var): 4 gamma_{N+4} (sum x^2/N + "
                                  "(sum|x|/N)^2) + E_mean^2",
                            " + floor, N = ", n, ", u = 2^", std::log2(u));
      for (int64_t f = 0; f < features && f < y.element_count(); ++f) {
        set(f, ctx.op_output == 1 ? e_mu[f] : e_var[f], 1,
            nn * (q[f] + s1[f] * s1[f] + s1[f]), x_nan[f]);
      }
      return r;
    }
    r.rule = absl::StrCat(
        "BATCH_NORM_BOUND (batch-norm-training output): 2 (|scale| (|x| + "
        "|mu| + E_mu) E_r + |scale| r E_mu + (gamma_6 + rho)(|x| + "
        "|mu|)|scale| r+ + gamma_3 |offset|) + floor, E_r = r+ - r, r+ = "
        "1/sqrt(var + eps - E_var), N = ",
        n, ", u = 2^", std::log2(u));
    const double g6 = Gamma(6, u), g3 = Gamma(3, u);
    for (int64_t i = 0; i < total; ++i) {
      const int64_t f = feature_of(i);
      const LD ve = var[f] + eps;
      if (x_nan[f]) {
        r.bound[i] = INFINITY;  // NaN in every order
        continue;
      }
      if (!(ve - e_var[f] > 0)) {
        r.bound[i] = NAN;
        r.any_reason =
            "var + eps within the variance's error bound of zero: the "
            "implementation's variance may reach -eps";
        continue;
      }
      const LD rr = 1 / std::sqrt(ve);
      const LD rp = 1 / std::sqrt(ve - e_var[f]);
      const LD sc = std::fabs(static_cast<LD>(scale.GetAsDouble(f)));
      const LD ax =
          std::fabs(static_cast<LD>(x.GetAsDouble(i))) + std::fabs(mu[f]);
      const LD b = 2 * (sc * (ax + e_mu[f]) * (rp - rr) + sc * rr * e_mu[f] +
                        (g6 + rho) * ax * sc * rp +
                        g3 * std::fabs(static_cast<LD>(offset.GetAsDouble(f))));
      set(i, b, (1 + sc * rp) * (1 + rp),
          nn * (q[f] + s1[f] * s1[f] + s1[f]) + ax * sc * rp,
          x_nan[f] || isnan_at(scale, f) || isnan_at(offset, f));
    }
    return r;
  }

  // Grad: operands x, scale, mean, var, grad_output.
  const Literal& mean_in = *ctx.operands[2];
  const Literal& var_in = *ctx.operands[3];
  const Literal& dy = *ctx.operands[4];
  std::vector<LD> sdy(features, 0), p(features, 0);
  std::vector<bool> dy_nan(features, false), any_nan(features, false);
  for (int64_t i = 0; i < total; ++i) {
    const int64_t f = feature_of(i);
    if (isnan_at(dy, i)) dy_nan[f] = true;
    if (isnan_at(dy, i) || isnan_at(x, i) || isnan_at(scale, f) ||
        isnan_at(mean_in, f) || isnan_at(var_in, f)) {
      any_nan[f] = true;
    }
    const LD ady = std::fabs(static_cast<LD>(dy.GetAsDouble(i)));
    sdy[f] += ady;
    p[f] += ady * (std::fabs(static_cast<LD>(x.GetAsDouble(i))) +
                   std::fabs(static_cast<LD>(mean_in.GetAsDouble(f))));
  }
  auto r_of = [&](int64_t f) -> LD {
    const LD ve = static_cast<LD>(var_in.GetAsDouble(f)) + eps;
    return ve > 0 ? 1 / std::sqrt(ve) : INFINITY;
  };
  if (ctx.op_output == 2) {
    r.rule = absl::StrCat(
        "BATCH_NORM_BOUND (batch-norm-grad grad_offset): 2 gamma_N sum|dy| + "
        "floor, N = ",
        n, ", u = 2^", std::log2(u));
    const double gn = Gamma(n, u);
    for (int64_t f = 0; f < features && f < y.element_count(); ++f) {
      set(f, 2 * gn * sdy[f], 1, sdy[f], dy_nan[f]);
    }
    return r;
  }
  if (ctx.op_output == 1) {
    r.rule = absl::StrCat(
        "BATCH_NORM_BOUND (batch-norm-grad grad_scale): 2 (gamma_{N+3} + rho) "
        "r sum|dy|(|x| + |mean|) + floor, r = 1/sqrt(var + eps), N = ",
        n, ", u = 2^", std::log2(u));
    const double g = Gamma(n + 3, u);
    for (int64_t f = 0; f < features && f < y.element_count(); ++f) {
      const LD rr = r_of(f);
      set(f, 2 * (g + rho) * rr * p[f], 1 + rr, p[f] * (1 + rr), any_nan[f]);
    }
    return r;
  }
  r.rule = absl::StrCat(
      "BATCH_NORM_BOUND (batch-norm-grad grad_operand): 2 (gamma_{N+8} + 2 "
      "rho) |scale| r (|dy| + sum|dy|/N + 2 (|x| + |mean|) sum|dy|(|x| + "
      "|mean|) / (N (var + eps))) + floor, N = ",
      n, ", u = 2^", std::log2(u));
  const double delta = Gamma(n + 8, u) + 2 * rho;
  for (int64_t i = 0; i < total; ++i) {
    const int64_t f = feature_of(i);
    const LD rr = r_of(f);
    const LD sc = std::fabs(static_cast<LD>(scale.GetAsDouble(f)));
    const LD ve = static_cast<LD>(var_in.GetAsDouble(f)) + eps;
    const LD ax = std::fabs(static_cast<LD>(x.GetAsDouble(i))) +
                  std::fabs(static_cast<LD>(mean_in.GetAsDouble(f)));
    const LD b = 2 * delta * sc * rr *
                 (std::fabs(static_cast<LD>(dy.GetAsDouble(i))) + sdy[f] / nn +
                  2 * ax * p[f] / (nn * ve));
    // Expansions may scale by N before dividing (N dy - sum dy - ...) and
    // form (x - mean) sum dy (x - mean) before dividing by var + eps, so
    // the reach takes the terms times N and (1 + |scale| r).
    const LD terms = std::fabs(static_cast<LD>(dy.GetAsDouble(i))) +
                     sdy[f] / nn + 2 * ax * p[f] / (nn * ve);
    set(i, b, (1 + sc * rr) * (1 + rr),
        sdy[f] + p[f] * (1 + rr) +
            (1 + sc * rr) * (nn * terms + ax * p[f] * (1 + 1 / ve)),
        any_nan[f]);
  }
  return r;
}

}  // namespace hloref::conformance
