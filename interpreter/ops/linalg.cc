// The kLinalg family: Cholesky and TriangularSolve (seed 001). See
// linalg.h for the numerics, the error bound and the
// implementation-defined points.
#include "interpreter/ops/linalg.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/families.h"
#include "interpreter/ops/wide_float.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

using LD = long double;
using C = std::complex<LD>;

absl::StatusOr<std::vector<C>> LoadWide(const Literal& lit) {
  std::vector<C> out(static_cast<size_t>(lit.element_count()));
  if (IsComplex(lit.element_type())) {
    HLOREF_ASSIGN_OR_RETURN(std::vector<std::complex<double>> v,
                            LoadComplex(lit));
    for (size_t i = 0; i < v.size(); ++i) {
      out[i] = C(v[i].real(), v[i].imag());
    }
  } else {
    HLOREF_ASSIGN_OR_RETURN(std::vector<double> v, LoadDoubles(lit));
    for (size_t i = 0; i < v.size(); ++i) out[i] = C(v[i], 0);
  }
  return out;
}

absl::StatusOr<Literal> StoreWide(const Shape& shape,
                                  const std::vector<C>& values) {
  if (IsComplex(shape.element_type())) {
    return wide::StoreComplexLongDoubles(shape, values);
  }
  std::vector<LD> re(values.size());
  for (size_t i = 0; i < values.size(); ++i) re[i] = values[i].real();
  return wide::StoreLongDoubles(shape, re);
}

// s / d, dividing componentwise when d is real so that real types see one
// IEEE division (std::complex division scales and rounds more often).
C Div(const C& s, const C& d) {
  if (d.imag() == 0) return C(s.real() / d.real(), s.imag() / d.real());
  return s / d;
}

bool IsFiniteC(const C& v) {
  return std::isfinite(v.real()) && std::isfinite(v.imag());
}

// Checks that `s` is a float or complex array [..., M, M] and returns M.
absl::StatusOr<int64_t> SquareSize(const HloInstruction& inst, const Shape& s,
                                   absl::string_view what) {
  const PrimitiveType t = s.element_type();
  if (!s.IsArray() || s.rank() < 2 || !(IsFloat(t) || IsComplex(t)) ||
      s.dimensions(s.rank() - 1) != s.dimensions(s.rank() - 2)) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), what, " is ", s.ToString(),
        ", expected a float or complex array [..., M, M] (is the module "
        "verified?)"));
  }
  return s.dimensions(s.rank() - 1);
}

}  // namespace

// Factors each Hermitian positive definite matrix of the batch as l l^H
// (lower) or u^H u (upper), reading only that triangle of a.
// Semantics: Cholesky. impl.cholesky.1, impl.cholesky.2.
absl::StatusOr<Literal> EvalCholesky(const HloInstruction& inst,
                                     absl::Span<const Literal* const> operands,
                                     EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[0], 0));
  const Literal& a_lit = *operands[0];
  HLOREF_ASSIGN_OR_RETURN(int64_t m, SquareSize(inst, a_lit.shape(), "a"));
  const bool lower = inst.attrs().lower;
  HLOREF_ASSIGN_OR_RETURN(std::vector<C> a, LoadWide(a_lit));
  const int64_t mm = m * m;
  const int64_t batch = mm == 0 ? 0 : a_lit.element_count() / mm;
  std::vector<C> out(a.size(), C(0, 0));
  std::vector<C> l(static_cast<size_t>(mm));
  const LD nan = std::numeric_limits<LD>::quiet_NaN();

  for (int64_t b = 0; b < batch; ++b) {
    HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    const C* ab = a.data() + b * mm;
    // The lower triangle of the Hermitian matrix the op reads: a's own
    // lower triangle, or the conjugate transpose of its upper triangle.
    auto a_low = [&](int64_t i, int64_t j) -> C {
      return lower ? ab[i * m + j] : std::conj(ab[j * m + i]);
    };
    std::fill(l.begin(), l.end(), C(0, 0));
    bool positive_definite = true;
    bool hermitian_diagonal = true;
    for (int64_t j = 0; j < m && positive_definite; ++j) {
      if ((j & 31) == 31) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
      const C diag = a_low(j, j);
      // XLA uses the real part of the pivot; a non-zero imaginary part
      // means a is not Hermitian.
      if (diag.imag() != 0) hermitian_diagonal = false;
      LD d = diag.real();
      for (int64_t k = 0; k < j; ++k) d -= std::norm(l[j * m + k]);
      if (!(d > 0)) {
        positive_definite = false;
        break;
      }
      const LD ljj = std::sqrt(d);
      l[j * m + j] = C(ljj, 0);
      for (int64_t i = j + 1; i < m; ++i) {
        C s = a_low(i, j);
        for (int64_t k = 0; k < j; ++k) {
          s -= l[i * m + k] * std::conj(l[j * m + k]);
        }
        l[i * m + j] = s / ljj;
      }
    }
    C* ob = out.data() + b * mm;
    if (!positive_definite) {
      for (int64_t i = 0; i < mm; ++i) ob[i] = C(nan, 0);
    } else {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j <= i; ++j) {
          if (lower) {
            ob[i * m + j] = l[i * m + j];
          } else {
            // u = l^H; the diagonal is real with a +0 imaginary part.
            ob[j * m + i] = i == j ? l[i * m + j] : std::conj(l[i * m + j]);
          }
        }
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        const int64_t linear = b * mm + i * m + j;
        if (!positive_definite || !hermitian_diagonal) {
          ctx.MarkImplDefined(0, linear, "impl.cholesky.2");
        }
        if (lower ? j > i : j < i) {
          ctx.MarkImplDefined(0, linear, "impl.cholesky.1");
        }
      }
    }
  }
  return StoreWide(inst.shape(), out);
}

// Solves op(a) x = b (left_side) or x op(a) = b for x, a triangular with
// the triangle chosen by `lower` (the other one is never read), op given
// by transpose_a, the diagonal taken as 1 when unit_diagonal.
// Semantics: TriangularSolve. impl.triangular-solve.1.
absl::StatusOr<Literal> EvalTriangularSolve(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 2, 2));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[0], 0));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[1], 1));
  const Literal& a_lit = *operands[0];
  const Literal& b_lit = *operands[1];
  HLOREF_ASSIGN_OR_RETURN(int64_t m, SquareSize(inst, a_lit.shape(), "a"));
  const HloAttributes& attrs = inst.attrs();
  const bool left_side = attrs.left_side;
  const Shape& bs = b_lit.shape();
  const int64_t rank = a_lit.shape().rank();
  if (bs.rank() != rank || b_lit.element_type() != a_lit.element_type() ||
      bs.dimensions(left_side ? rank - 2 : rank - 1) != m) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "b is ", bs.ToString(),
                     ", which does not fit a ", a_lit.shape().ToString(),
                     " (is the module verified?)"));
  }
  for (int64_t d = 0; d + 2 < rank; ++d) {
    if (bs.dimensions(d) != a_lit.shape().dimensions(d)) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst),
                       "batch dimensions of a and b differ (is the module "
                       "verified?)"));
    }
  }
  const int64_t k =
      left_side ? bs.dimensions(rank - 1) : bs.dimensions(rank - 2);
  HLOREF_ASSIGN_OR_RETURN(std::vector<C> a, LoadWide(a_lit));
  HLOREF_ASSIGN_OR_RETURN(std::vector<C> bv, LoadWide(b_lit));
  const int64_t mm = m * m;
  const int64_t mk = m * k;
  int64_t batch = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) batch *= bs.dimensions(d);
  const bool transposed = attrs.transpose_a == TransposeA::kTranspose ||
                          attrs.transpose_a == TransposeA::kAdjoint;
  const bool conjugate = attrs.transpose_a == TransposeA::kAdjoint;
  // op(a) is lower triangular when exactly one of `lower` and the
  // transposition holds.
  const bool t_lower = attrs.lower != transposed;
  std::vector<C> x(bv.size());

  for (int64_t b = 0; b < batch; ++b) {
    HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    const C* ab = a.data() + b * mm;
    // The element (i, j) of a restricted to its triangle.
    auto tri = [&](int64_t i, int64_t j) -> C {
      if (i == j) return attrs.unit_diagonal ? C(1, 0) : ab[i * m + i];
      const bool inside = attrs.lower ? i > j : i < j;
      return inside ? ab[i * m + j] : C(0, 0);
    };
    // op(a)(i, j).
    auto t = [&](int64_t i, int64_t j) -> C {
      if (!transposed) return tri(i, j);
      return conjugate ? std::conj(tri(j, i)) : tri(j, i);
    };
    bool regular = true;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        const C v = tri(i, j);
        if (!IsFiniteC(v) || (i == j && v == C(0, 0))) regular = false;
      }
    }
    const C* bb = bv.data() + b * mk;
    for (int64_t i = 0; i < mk; ++i) {
      if (!IsFiniteC(bb[i])) regular = false;
    }
    C* xb = x.data() + b * mk;
    if (left_side) {
      // op(a) x = b, x is M x K: substitution down (lower) or up (upper)
      // each column.
      for (int64_t c = 0; c < k; ++c) {
        if ((c & 31) == 31) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
        for (int64_t step = 0; step < m; ++step) {
          const int64_t i = t_lower ? step : m - 1 - step;
          C s = bb[i * k + c];
          if (t_lower) {
            for (int64_t j = 0; j < i; ++j) s -= t(i, j) * xb[j * k + c];
          } else {
            for (int64_t j = i + 1; j < m; ++j) s -= t(i, j) * xb[j * k + c];
          }
          xb[i * k + c] = Div(s, t(i, i));
        }
      }
    } else {
      // x op(a) = b, x is K x M: row r satisfies sum_i x_i op(a)(i, j) =
      // b_j, solved forward in j for upper op(a), backward for lower.
      for (int64_t r = 0; r < k; ++r) {
        if ((r & 31) == 31) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
        for (int64_t step = 0; step < m; ++step) {
          const int64_t j = t_lower ? m - 1 - step : step;
          C s = bb[r * m + j];
          if (t_lower) {
            for (int64_t i = j + 1; i < m; ++i) s -= xb[r * m + i] * t(i, j);
          } else {
            for (int64_t i = 0; i < j; ++i) s -= xb[r * m + i] * t(i, j);
          }
          xb[r * m + j] = Div(s, t(j, j));
        }
      }
    }
    if (!regular) {
      for (int64_t i = 0; i < mk; ++i) {
        ctx.MarkImplDefined(0, b * mk + i, "impl.triangular-solve.1");
      }
    }
  }
  return StoreWide(inst.shape(), x);
}

absl::StatusOr<Literal> EvalLinalg(const HloInstruction& inst,
                                   absl::Span<const Literal* const> operands,
                                   EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kCholesky:
      return EvalCholesky(inst, operands, ctx);
    case HloOpcode::kTriangularSolve:
      return EvalTriangularSolve(inst, operands, ctx);
    default:
      return InstructionInternal(inst, "not a linear-algebra op");
  }
}

}  // namespace hloref
