// The linear-algebra bounds: cholesky by its backward error
// (BACKWARD_ERROR) and triangular-solve by a condition-weighted forward
// bound (FORWARD_ERROR). docs/numerics.md 3.9 and class M prescribe the
// masks (the triangle not returned, non-HPD batch elements, singular or
// non-finite triangular systems); the formulas are ours.
//
// cholesky, judged on the whole factor rather than per element: with L^
// the backend's factor (its returned triangle; U = L^H for lower=false),
// every Cholesky variant whose inner products are evaluated in any order
// (unblocked, left- or right-looking, blocked with conventional matrix
// products and backward-stable triangular solves) satisfies (Higham,
// Accuracy and Stability, 2nd ed., thm 10.3)
//   A + dA = L^ L^H,  |dA| <= gamma_{n+1}(u) |L^| |L^|^H   (componentwise)
// so we require, for every (i, j) of the read triangle,
//   |A - L^ L^H|_ij <= 2 (gamma_{n+1}(u') + 2 (2 k_rsqrt + 1) u')
//                      (|L^| |L^|^H)_ij + (n+1) tiny (1 + max_k |l^_ik| +
//                      max_k |l^_jk|)
// (the k_rsqrt term: an implementation that multiplies by rsqrt(d), as
// XLA's expander does, perturbs every factor entry by k_rsqrt ulps (<=
// 2 k_rsqrt u') plus a rounding; XLA:CPU's f64 factors were measured at
// 1.1 gamma_{n+1}, above Higham's constant), with u' = u for real and 4u for
// complex types (complex multiply-adds cost a constant factor more,
// Higham 3.6), the factor 2 covering the residual's own long-double evaluation
// and the rounding of the oracle-free check, and the last term the subnormal /
// flush floor. A failure of residual (i, j) is reported on factor element (i,
// j) (or (j, i) for lower=false). The check is not blind: the diagonal residual
// a_ii - sum_k |l^_ik|^2 has no cancellation, so any row of L^ that is
// too large fails, and a passing L^ is the exact factor of a matrix
// within the bound of A.
// A NaN or infinite factor (a backend's failed pivot) is accepted only
// when the matrix is not safely positive definite in the type: the oracle's
// factor gives lambda_min(A) >= 1 / ||L^-1||_F^2, and a float Cholesky can
// only meet a non-positive pivot if lambda_min(A) <= ||dA||_2 <= n
// gamma_{n+1}(u') max_i a_ii (Higham thm 10.7's argument); we require a
// NaN-free factor when 1/(2 ||L^-1||_F^2) > 2 n gamma_{n+1}(u') max_i a_ii.
//
// triangular-solve: op(A) X = B (or X op(A) = B), T = op(A) with the
// attribute's triangle and unit diagonal. Substitution satisfies
// (T + dT) x^ = b with |dT| <= gamma_n(u) |T| (Higham thm 8.5), hence
// |x^ - x| <= gamma_n cond |T^-1| |T| |x| to first order; methods that
// invert the diagonal blocks and multiply (XLA's TriangularSolveExpander)
// get |T^-1| |T| |T^-1| |b| <= C^2 |x| with C = |T^-1| |T| (Higham 14.2),
// and C^2 |x| >= C |x| because C >= I entrywise on the diagonal. So, per
// element,
//   |x^ - x|_i <= 4 gamma_{n+1}(u') (C^2 |x|)_i + (n+2) tiny (1 + n max|T^-1|)
// (rows: |x^ - x|^T <= 4 gamma_{n+1}(u') |x|^T (|T| |T^-1|)^2 for
// X op(A) = B), T^-1 computed in long double from the operand. Being a
// forward bound it is reported per element like any BOUNDED verdict.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "conformance/compare/op_bounds.h"
#include "spec/types/minifloat.h"

namespace hloref::conformance {
namespace {

using LD = long double;
using C = std::complex<LD>;

C ValueAt(const Literal& lit, int64_t i) {
  if (IsComplex(lit.element_type())) {
    const std::complex<double> z = lit.GetAsComplex(i);
    return C(z.real(), z.imag());
  }
  return C(lit.GetAsDouble(i), 0);
}

bool Finite(const C& z) {
  return std::isfinite(z.real()) && std::isfinite(z.imag());
}

double GammaOf(int64_t n, double u) {
  const double nu = static_cast<double>(n) * u;
  return nu >= 1 ? INFINITY : nu / (1 - nu);
}

bool Marked(const OpBoundContext& ctx, int64_t i) {
  return ctx.dont_care != nullptr && ctx.dont_care->GetAsInt64(i) != 0;
}

// The inverse of the m x m triangular t (row-major, lower or upper) in
// long double; false when a diagonal element is zero or the result is not
// finite.
bool TriangularInverse(const std::vector<C>& t, int64_t m, bool lower,
                       std::vector<C>* inv) {
  inv->assign(static_cast<size_t>(m * m), C(0, 0));
  for (int64_t c = 0; c < m; ++c) {
    for (int64_t step = 0; step < m; ++step) {
      const int64_t i = lower ? step : m - 1 - step;
      C s = i == c ? C(1, 0) : C(0, 0);
      if (lower) {
        for (int64_t j = 0; j < i; ++j) s -= t[i * m + j] * (*inv)[j * m + c];
      } else {
        for (int64_t j = i + 1; j < m; ++j) {
          s -= t[i * m + j] * (*inv)[j * m + c];
        }
      }
      const C d = t[i * m + i];
      if (d == C(0, 0)) return false;
      (*inv)[i * m + c] = s / d;
      if (!Finite((*inv)[i * m + c])) return false;
    }
  }
  return true;
}

double UnitOf(PrimitiveType type) {
  const PrimitiveType part =
      IsComplex(type) ? ComplexComponentType(type) : type;
  const double u = std::ldexp(1.0, -Precision(FormatOf(part)));
  return IsComplex(type) ? 4 * u : u;
}

}  // namespace

OpBounds CholeskyBackwardError(const OpBoundContext& ctx) {
  OpBounds r;
  const Literal* a_lit = ctx.operands.empty() ? nullptr : ctx.operands[0];
  if (a_lit == nullptr || ctx.got == nullptr) {
    r.rule = "ANY (cholesky: the operand is not a parameter or constant)";
    return r;
  }
  const Literal& y = *ctx.oracle;
  const Literal& got = *ctx.got;
  const Shape& shape = y.shape();
  const PrimitiveType type = y.element_type();
  if (shape.rank() < 2 || !(IsFloat(type) || IsComplex(type)) ||
      !a_lit->shape().SameDimensions(shape)) {
    r.rule = "ANY (cholesky: unexpected shapes)";
    return r;
  }
  const int64_t m = shape.dimensions(shape.rank() - 1);
  const int64_t mm = m * m;
  const int64_t batch = mm == 0 ? 0 : y.element_count() / mm;
  const bool lower = ctx.inst->attrs().lower;
  const double u1 = UnitOf(type);
  const double gamma = GammaOf(m + 1, u1);
  // Implementations that scale by rsqrt(d) instead of dividing by sqrt(d)
  // (XLA's expander) add (2 k_rsqrt + 1) u' relative to each factor entry.
  const double sqrt_term = 2 * (2 * ctx.rsqrt_ulps + 1) * u1;
  const double gamma_check = GammaOf(m + 1, std::ldexp(1.0, -63));
  const double tiny = TinyOf(type, *ctx.deviations);
  const double max_t =
      MaxFinite(FormatOf(IsComplex(type) ? ComplexComponentType(type) : type));
  r.ok = true;
  r.rule = absl::StrCat(
      "BACKWARD_ERROR (cholesky, n = ", m,
      "): |A - L L^H|_ij <= 2 (gamma_{n+1}(u') + 2 (2 k_rsqrt + 1) u') "
      "(|L||L|^H)_ij + floor, u' = 2^",
      std::log2(u1),
      ", on the returned triangle; the other triangle and "
      "non-HPD inputs masked (numerics.md 3.9)");
  r.judgements.assign(static_cast<size_t>(y.element_count()), Judgement{});
  r.margin.assign(static_cast<size_t>(y.element_count()), 0);
  std::vector<C> a(static_cast<size_t>(mm)), l(static_cast<size_t>(mm)),
      lo(static_cast<size_t>(mm)), inv;
  std::vector<LD> row_max(static_cast<size_t>(m));
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t base = b * mm;
    bool batch_marked = false;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        // Position of the read triangle's (i, j) in the arrays.
        const int64_t pos = lower ? i * m + j : j * m + i;
        if (Marked(ctx, base + pos)) batch_marked = true;
        const C av = ValueAt(*a_lit, base + pos);
        a[i * m + j] = lower ? av : std::conj(av);
        const C gv = ValueAt(got, base + pos);
        l[i * m + j] = lower ? gv : std::conj(gv);
        const C ov = ValueAt(y, base + pos);
        lo[i * m + j] = lower ? ov : std::conj(ov);
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        const bool kept = lower ? j <= i : j >= i;
        if (!kept || batch_marked) {
          r.judgements[base + i * m + j].masked = true;
        }
      }
    }
    if (batch_marked) continue;
    {
      // Products l_ik l_jk and partial sums are bounded by max a_ii
      // (1 + small) for a factor that passes; near the overflow threshold
      // some orders overflow, so nothing is required of the batch element.
      double max_diag = 0;
      for (int64_t i = 0; i < m; ++i) {
        max_diag = std::max(
            max_diag, static_cast<double>(std::fabs(a[i * m + i].real())));
      }
      if (!(max_diag * 4 * static_cast<double>(m + 1) < max_t)) {
        for (int64_t i = 0; i < mm; ++i) r.judgements[base + i].masked = true;
        continue;
      }
    }
    // Safely positive definite in the type? (See the header comment.)
    bool certified = false;
    std::string certificate;
    {
      std::vector<C> lfull(static_cast<size_t>(mm), C(0, 0));
      LD max_diag = 0;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j <= i; ++j) lfull[i * m + j] = lo[i * m + j];
        max_diag = std::max(max_diag, std::fabs(a[i * m + i].real()));
      }
      if (TriangularInverse(lfull, m, true, &inv)) {
        LD fro2 = 0;
        for (const C& z : inv) fro2 += std::norm(z);
        const LD lambda_lb = fro2 > 0 ? 1 / fro2 : 0;
        const LD threshold = 2 * static_cast<LD>(m) * gamma * max_diag;
        certified = lambda_lb / 2 > threshold;
        certificate = absl::StrCat(
            "lambda_min(A) >= ", static_cast<double>(lambda_lb),
            certified ? " > " : " <= ", "2 n gamma_{n+1} max a_ii = ",
            static_cast<double>(threshold));
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      LD mx = 0;
      for (int64_t k = 0; k <= i; ++k) {
        mx = std::max(mx, static_cast<LD>(std::abs(l[i * m + k])));
      }
      row_max[i] = mx;
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        const int64_t pos = lower ? i * m + j : j * m + i;
        Judgement& jd = r.judgements[base + pos];
        C s = a[i * m + j];
        LD mag = 0;
        bool finite = Finite(l[i * m + j]);
        for (int64_t k = 0; k <= j; ++k) {
          const C lik = l[i * m + k];
          const C ljk = l[j * m + k];
          if (!Finite(lik) || !Finite(ljk)) finite = false;
          s -= lik * std::conj(ljk);
          mag += std::abs(lik) * std::abs(ljk);
        }
        if (!finite || !Finite(s)) {
          if (!certified) {
            jd.masked = true;  // a float factorization may fail here
            continue;
          }
          jd.pass = false;
          jd.ulp_distance = INFINITY;
          jd.bound = 0;
          jd.why = absl::StrCat(
              "non-finite factor of a matrix that is safely positive "
              "definite (",
              certificate, ")");
          continue;
        }
        const double bound = static_cast<double>(
            2 * (gamma + sqrt_term + gamma_check) * mag +
            static_cast<LD>(m + 1) * tiny * (1 + row_max[i] + row_max[j]));
        const double res = static_cast<double>(std::abs(s));
        jd.bound = bound;
        r.margin[base + pos] =
            bound > 0 ? res / bound : (res > 0 ? INFINITY : 0);
        if (res <= bound) continue;
        jd.pass = false;
        jd.why = absl::StrCat("residual |A - L L^H| at (", i, ",", j,
                              ") = ", res, " exceeds the bound ", bound,
                              " by a factor ", res / std::max(bound, 1e-300));
      }
    }
  }
  return r;
}

OpBounds TriangularSolveBounds(const OpBoundContext& ctx) {
  OpBounds r;
  const Literal* a_lit = ctx.operands.size() > 0 ? ctx.operands[0] : nullptr;
  if (a_lit == nullptr) {
    r.rule = "ANY (triangular-solve: a is not a parameter or constant)";
    return r;
  }
  const Literal& y = *ctx.oracle;
  const Shape& shape = y.shape();
  const PrimitiveType type = y.element_type();
  const int64_t rank = shape.rank();
  if (rank < 2 || !(IsFloat(type) || IsComplex(type)) ||
      a_lit->shape().rank() != rank) {
    r.rule = "ANY (triangular-solve: unexpected shapes)";
    return r;
  }
  const HloAttributes& attrs = ctx.inst->attrs();
  const bool left = attrs.left_side;
  const int64_t m = a_lit->shape().dimensions(rank - 1);
  const int64_t k =
      left ? shape.dimensions(rank - 1) : shape.dimensions(rank - 2);
  const int64_t mm = m * m, mk = m * k;
  if (shape.dimensions(left ? rank - 2 : rank - 1) != m) {
    r.rule = "ANY (triangular-solve: unexpected shapes)";
    return r;
  }
  const int64_t batch = mk == 0 ? 0 : y.element_count() / mk;
  const bool transposed = attrs.transpose_a == TransposeA::kTranspose ||
                          attrs.transpose_a == TransposeA::kAdjoint;
  const bool conjugate = attrs.transpose_a == TransposeA::kAdjoint;
  const bool t_lower = attrs.lower != transposed;
  const double u1 = UnitOf(type);
  const double gamma = GammaOf(m + 1, u1);
  const double tiny = TinyOf(type, *ctx.deviations);
  const double max_t =
      MaxFinite(FormatOf(IsComplex(type) ? ComplexComponentType(type) : type));
  r.ok = true;
  r.rule = absl::StrCat(
      "FORWARD_ERROR (triangular-solve, n = ", m,
      "): |x^ - x| <= 4 gamma_{n+1}(u') C^2 |x| + floor, C = |T^-1||T|, u' = "
      "2^",
      std::log2(u1),
      "; singular or non-finite systems masked (numerics.md "
      "class M)");
  r.bound.assign(static_cast<size_t>(y.element_count()), 0);
  std::vector<C> t(static_cast<size_t>(mm)), inv;
  std::vector<LD> cmat(static_cast<size_t>(mm));
  std::vector<LD> w(static_cast<size_t>(m));
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t xbase = b * mk;
    bool marked = false;
    for (int64_t i = 0; i < mk; ++i) marked |= Marked(ctx, xbase + i);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        // tri(i, j): a restricted to its triangle; T = op(tri).
        auto tri = [&](int64_t p, int64_t q) -> C {
          if (p == q) {
            return attrs.unit_diagonal ? C(1, 0)
                                       : ValueAt(*a_lit, b * mm + p * m + p);
          }
          const bool inside = attrs.lower ? p > q : p < q;
          return inside ? ValueAt(*a_lit, b * mm + p * m + q) : C(0, 0);
        };
        C v = transposed ? tri(j, i) : tri(i, j);
        if (conjugate) v = std::conj(v);
        t[i * m + j] = v;
      }
    }
    const bool invertible = !marked && TriangularInverse(t, m, t_lower, &inv);
    if (!invertible) {
      for (int64_t i = 0; i < mk; ++i) r.bound[xbase + i] = NAN;
      r.any_reason = "singular or non-finite system (impl.triangular-solve.1)";
      continue;
    }
    // C = |T^-1| |T| (left) or D = |T| |T^-1| (right).
    LD max_inv = 0;
    for (const C& z : inv) max_inv = std::max(max_inv, std::abs(z));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        LD s = 0;
        for (int64_t q = 0; q < m; ++q) {
          s += left ? std::abs(inv[i * m + q]) * std::abs(t[q * m + j])
                    : std::abs(t[i * m + q]) * std::abs(inv[q * m + j]);
        }
        cmat[i * m + j] = s;
      }
    }
    const LD floor =
        static_cast<LD>(m + 2) * tiny * (1 + static_cast<LD>(m) * max_inv);
    for (int64_t line = 0; line < k; ++line) {
      // Element q of the line: x(q, line) (left) or x(line, q) (right).
      auto pos = [&](int64_t q) { return left ? q * k + line : line * m + q; };
      bool finite = true;
      for (int64_t q = 0; q < m; ++q) {
        if (!Finite(ValueAt(y, xbase + pos(q)))) finite = false;
      }
      if (!finite) {
        // Finite inputs (non-finite ones are marked) and a non-finite
        // solution: an overflow, whose NaN or infinity depends on the order.
        for (int64_t q = 0; q < m; ++q) r.bound[xbase + pos(q)] = NAN;
        r.any_reason = "the solution overflows";
        continue;
      }
      // Substitution's partial sums are bounded by (|T| |x|)_i + |b_i| <=
      // 2 (|T| |x|)_i, the inverse method's by (|T^-1| |b|)_i <= (C |x|)_i:
      // near the overflow threshold some orders overflow (ANY).
      LD reach = 0;
      for (int64_t i = 0; i < m; ++i) {
        LD s = 0;
        for (int64_t q = 0; q < m; ++q) {
          s += std::abs(left ? t[i * m + q] : t[q * m + i]) *
               std::abs(ValueAt(y, xbase + pos(q)));
        }
        reach = std::max(reach, 2 * s);
      }
      // w = C |x| (or |x|^T D), then C w (or w^T D).
      for (int64_t i = 0; i < m; ++i) {
        LD s = 0;
        for (int64_t q = 0; q < m; ++q) {
          s += (left ? cmat[i * m + q] : cmat[q * m + i]) *
               std::abs(ValueAt(y, xbase + pos(q)));
        }
        w[i] = s;
        reach = std::max(reach, s);
      }
      if (!(reach * 2 < max_t)) {
        for (int64_t q = 0; q < m; ++q) r.bound[xbase + pos(q)] = NAN;
        r.any_reason = "intermediate overflow possible";
        continue;
      }
      for (int64_t i = 0; i < m; ++i) {
        LD s = 0;
        for (int64_t q = 0; q < m; ++q) {
          s += (left ? cmat[i * m + q] : cmat[q * m + i]) * w[q];
        }
        r.bound[xbase + pos(i)] = static_cast<double>(4 * gamma * s + floor);
      }
    }
  }
  return r;
}

}  // namespace hloref::conformance
