// Tests of the kLinalg family (interpreter/ops/linalg.cc): hand-derived
// Cholesky factors (real and complex, lower and upper) and triangular
// solves (every transpose_a, both sides, unit diagonal), substitution
// checks on random batched inputs in f16/bf16/f32/f64/c64/c128 (the
// product l l^H reproduces a; op(a) x or x op(a) reproduces b), the
// unused triangle ignored on input, impl.cholesky.* and
// impl.triangular-solve.1 marks, zero-size shapes.
#include "interpreter/ops/linalg.h"

#include <cmath>
#include <complex>
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

using testing_dm::ExpectRootEquals;
using testing_dm::Lit;
using testing_dm::RunHlo;

using LD = long double;
using CL = std::complex<LD>;

std::string Module(const std::string& body) {
  return absl::StrCat("HloModule m\nENTRY e {\n", body, "\n}\n");
}

std::vector<bool> Mask(const EvaluatedOutput& out) {
  if (!out.dont_care.has_value()) return {};
  auto m = out.dont_care->data<bool>();
  return std::vector<bool>(m.begin(), m.end());
}

// ---- Cholesky, by hand.

// [[4, 2], [2, 5]] = l l^T with l = [[2, 0], [1, 2]] (4 = 2^2, 2 = 2 * 1,
// 5 = 1 + 2^2); the upper factor is l^T. The triangle not read holds 99.
TEST(Cholesky, HandDerivedReal) {
  ExpectRootEquals(Module("  a = f32[2,2] constant({{4, 99}, {2, 5}})\n"
                          "  ROOT c = f32[2,2] cholesky(a), lower=true"),
                   "f32[2,2] {{2, 0}, {1, 2}}");
  ExpectRootEquals(Module("  a = f64[2,2] constant({{4, 2}, {99, 5}})\n"
                          "  ROOT c = f64[2,2] cholesky(a)"),
                   "f64[2,2] {{2, 1}, {0, 2}}");
  // 3x3: l = [[1,0,0],[2,3,0],[4,5,6]] gives a = l l^T =
  // [[1,2,4],[2,13,23],[4,23,77]].
  ExpectRootEquals(
      Module("  a = f64[3,3] constant({{1, 2, 4}, {2, 13, 23}, {4, 23, 77}})\n"
             "  ROOT c = f64[3,3] cholesky(a), lower=true"),
      "f64[3,3] {{1, 0, 0}, {2, 3, 0}, {4, 5, 6}}");
}

// [[4, 2-2i], [2+2i, 11]]: l00 = 2, l10 = (2+2i)/2 = 1+i, l11 = sqrt(11 -
// |1+i|^2) = 3; upper u = l^H = [[2, 1-i], [0, 3]].
TEST(Cholesky, HandDerivedComplex) {
  ExpectRootEquals(
      Module("  a = c64[2,2] constant({{(4,0), (7,7)}, {(2,2), (11,0)}})\n"
             "  ROOT c = c64[2,2] cholesky(a), lower=true"),
      "c64[2,2] {{(2,0), (0,0)}, {(1,1), (3,0)}}");
  ExpectRootEquals(
      Module("  a = c128[2,2] constant({{(4,0), (2,-2)}, {(7,7), (11,0)}})\n"
             "  ROOT c = c128[2,2] cholesky(a)"),
      "c128[2,2] {{(2,0), (1,-1)}, {(0,0), (3,0)}}");
}

TEST(Cholesky, MarksUnusedTriangleAndNonPositiveDefinite) {
  // Batch of two: element 0 positive definite, element 1 ([[1,2],[2,1]],
  // eigenvalues 3 and -1) not.
  absl::StatusOr<EvalResult> r = RunHlo(
      Module("  a = f32[2,2,2] constant({{{4, 0}, {2, 5}}, {{1, 0}, {2, 1}}})\n"
             "  ROOT c = f32[2,2,2] cholesky(a), lower=true"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.GetAsDouble(0), 2);
  EXPECT_EQ(r->value.GetAsDouble(1), 0);  // XLA profile: zero
  EXPECT_EQ(r->value.GetAsDouble(2), 1);
  EXPECT_EQ(r->value.GetAsDouble(3), 2);
  for (int i = 4; i < 8; ++i) EXPECT_TRUE(std::isnan(r->value.GetAsDouble(i)));
  EXPECT_EQ(Mask(r->outputs[0]), (std::vector<bool>{false, true, false, false,
                                                    true, true, true, true}));
  EXPECT_EQ(r->outputs[0].impl_ids,
            (std::vector<std::string>{"impl.cholesky.1", "impl.cholesky.2"}));
  // A zero pivot is not positive definite either.
  r =
      RunHlo(Module("  a = f64[2,2] constant({{0, 0}, {0, 1}})\n"
                    "  ROOT c = f64[2,2] cholesky(a)"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Mask(r->outputs[0]), std::vector<bool>(4, true));
}

// ---- Random batched inputs: l l^H must reproduce a.

template <typename F>
void ForTypes(F f) {
  for (const char* t : {"f16", "bf16", "f32", "f64", "c64", "c128"}) f(t);
}
bool IsComplexName(const std::string& t) { return t[0] == 'c'; }
// Unit roundoff of the (component) type.
LD UnitRoundoff(const std::string& t) {
  if (t == "f16") return std::ldexp(1.0L, -11);
  if (t == "bf16") return std::ldexp(1.0L, -8);
  if (t == "f32" || t == "c64") return std::ldexp(1.0L, -24);
  return std::ldexp(1.0L, -53);
}
PrimitiveType TypeOf(const std::string& t) {
  if (t == "f16") return PrimitiveType::kF16;
  if (t == "bf16") return PrimitiveType::kBF16;
  if (t == "f32") return PrimitiveType::kF32;
  if (t == "f64") return PrimitiveType::kF64;
  if (t == "c64") return PrimitiveType::kC64;
  return PrimitiveType::kC128;
}

Literal MakeLiteral(const std::string& t, const std::vector<int64_t>& dims,
                    const std::vector<CL>& v) {
  Literal lit(Shape::Array(TypeOf(t), dims));
  for (size_t i = 0; i < v.size(); ++i) {
    if (IsComplexName(t)) {
      lit.SetFromComplex(i, {static_cast<double>(v[i].real()),
                             static_cast<double>(v[i].imag())});
    } else {
      lit.SetFromDouble(i, static_cast<double>(v[i].real()));
    }
  }
  return lit;
}
std::vector<CL> Read(const Literal& lit) {
  std::vector<CL> v;
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    if (IsComplex(lit.element_type())) {
      const auto c = lit.GetAsComplex(i);
      v.emplace_back(c.real(), c.imag());
    } else {
      v.emplace_back(lit.GetAsDouble(i), 0);
    }
  }
  return v;
}

TEST(Cholesky, RandomBatchesReproduceA) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const int64_t batch = 3, m = 4;
  ForTypes([&](const std::string& t) {
    for (bool lower : {true, false}) {
      SCOPED_TRACE(absl::StrCat(t, lower ? " lower" : " upper"));
      const bool cplx = IsComplexName(t);
      // a = b b^H + m I per batch element, stored after rounding.
      std::vector<CL> a(batch * m * m);
      for (int64_t k = 0; k < batch; ++k) {
        std::vector<CL> b(m * m);
        for (auto& x : b) x = CL(u(gen), cplx ? u(gen) : 0);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < m; ++j) {
            CL s = i == j ? CL(m, 0) : CL(0, 0);
            for (int64_t q = 0; q < m; ++q) {
              s += b[i * m + q] * std::conj(b[j * m + q]);
            }
            a[(k * m + i) * m + j] = s;
          }
        }
      }
      std::vector<Literal> args;
      args.push_back(MakeLiteral(t, {batch, m, m}, a));
      a = Read(args[0]);  // the values as stored
      const std::string shape =
          absl::StrCat(t, "[", batch, ",", m, ",", m, "]");
      absl::StatusOr<EvalResult> r =
          RunHlo(Module(absl::StrCat(
                     "  a = ", shape, " parameter(0)\n  ROOT c = ", shape,
                     " cholesky(a)", lower ? ", lower=true" : "")),
                 std::move(args));
      ASSERT_TRUE(r.ok()) << r.status();
      const std::vector<CL> f = Read(r->value);
      const LD tol = 8 * m * UnitRoundoff(t);
      for (int64_t k = 0; k < batch; ++k) {
        auto l = [&](int64_t i, int64_t j) -> CL {
          // The factor as a lower matrix: l, or u^H.
          return lower ? f[(k * m + i) * m + j]
                       : std::conj(f[(k * m + j) * m + i]);
        };
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < m; ++j) {
            if (j > i) {
              EXPECT_EQ(l(i, j), CL(0, 0));  // the zeroed triangle
              continue;
            }
            // Read only the triangle the op reads (the other may differ by
            // rounding of a's symmetric copy).
            const CL want = lower ? a[(k * m + i) * m + j]
                                  : std::conj(a[(k * m + j) * m + i]);
            CL got = 0;
            LD scale = 0;
            for (int64_t q = 0; q <= j; ++q) {
              got += l(i, q) * std::conj(l(j, q));
              scale += std::abs(l(i, q)) * std::abs(l(j, q));
            }
            EXPECT_LE(std::abs(got - want), tol * scale)
                << "batch " << k << " (" << i << "," << j << ")";
          }
          EXPECT_GT(l(i, i).real(), 0);
          EXPECT_EQ(l(i, i).imag(), 0);
        }
      }
      EXPECT_EQ(r->outputs[0].impl_ids,
                std::vector<std::string>{"impl.cholesky.1"});
    }
  });
}

TEST(Cholesky, ZeroSize) {
  std::vector<Literal> args;
  args.push_back(Literal(Shape::Array(PrimitiveType::kF32, {0, 3, 3})));
  absl::StatusOr<EvalResult> r =
      RunHlo(Module("  a = f32[0,3,3] parameter(0)\n"
                    "  ROOT c = f32[0,3,3] cholesky(a), lower=true"),
             std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Literal> args2;
  args2.push_back(Literal(Shape::Array(PrimitiveType::kC64, {2, 0, 0})));
  r = RunHlo(Module("  a = c64[2,0,0] parameter(0)\n"
                    "  ROOT c = c64[2,0,0] cholesky(a)"),
             std::move(args2));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.element_count(), 0);
}

// ---- TriangularSolve, by hand. a = [[2, 99], [1, 4]] (99 never read).

TEST(TriangularSolve, HandDerived) {
  const std::string a = "  a = f32[2,2] constant({{2, 99}, {1, 4}})\n";
  // Lower, left: 2 x0 = 2 -> 1; x0 + 4 x1 = 9 -> 2.
  ExpectRootEquals(
      Module(absl::StrCat(a, "  b = f32[2,1] constant({{2}, {9}})\n",
                          "  ROOT x = f32[2,1] triangular-solve(a, b), "
                          "left_side=true, lower=true, "
                          "transpose_a=NO_TRANSPOSE")),
      "f32[2,1] {{1}, {2}}");
  // Transposed: [[2, 1], [0, 4]] x = [2, 9]: x1 = 9/4, x0 = (2 - 9/4)/2 =
  // -1/8.
  ExpectRootEquals(
      Module(absl::StrCat(a, "  b = f32[2,1] constant({{2}, {9}})\n",
                          "  ROOT x = f32[2,1] triangular-solve(a, b), "
                          "left_side=true, lower=true, transpose_a=TRANSPOSE")),
      "f32[2,1] {{-0.125}, {2.25}}");
  // Unit diagonal: [[1, 0], [1, 1]] x = [2, 9]: x = [2, 7].
  ExpectRootEquals(
      Module(absl::StrCat(a, "  b = f32[2,1] constant({{2}, {9}})\n",
                          "  ROOT x = f32[2,1] triangular-solve(a, b), "
                          "left_side=true, lower=true, unit_diagonal=true, "
                          "transpose_a=NO_TRANSPOSE")),
      "f32[2,1] {{2}, {7}}");
  // Right side: x a = [4, 8]: [2 x0 + x1, 4 x1] = [4, 8]: x = [1, 2].
  ExpectRootEquals(
      Module(absl::StrCat(a, "  b = f32[1,2] constant({{4, 8}})\n",
                          "  ROOT x = f32[1,2] triangular-solve(a, b), "
                          "lower=true, transpose_a=NO_TRANSPOSE")),
      "f32[1,2] {{1, 2}}");
  // Upper triangle of [[2, 3], [99, 4]], left: 4 x1 = 8 -> 2; 2 x0 + 3 x1 =
  // 10 -> 2.
  ExpectRootEquals(
      Module("  a = f64[2,2] constant({{2, 3}, {99, 4}})\n"
             "  b = f64[2,1] constant({{10}, {8}})\n"
             "  ROOT x = f64[2,1] triangular-solve(a, b), left_side=true, "
             "transpose_a=NO_TRANSPOSE"),
      "f64[2,1] {{2}, {2}}");
  // Complex adjoint: a = [[2, .], [1+i, 1]] lower; a^H = [[2, 1-i], [0, 1]];
  // a^H x = [3-i, 2]: x1 = 2, x0 = (3 - i - 2(1-i))/2 = (1+i)/2.
  ExpectRootEquals(
      Module("  a = c64[2,2] constant({{(2,0), (5,5)}, {(1,1), (1,0)}})\n"
             "  b = c64[2,1] constant({{(3,-1)}, {(2,0)}})\n"
             "  ROOT x = c64[2,1] triangular-solve(a, b), left_side=true, "
             "lower=true, transpose_a=ADJOINT"),
      "c64[2,1] {{(0.5,0.5)}, {(2,0)}}");
}

// ---- Random: every attribute combination, batch dims, all types; the
// residual of op(a) x = b (or x op(a) = b) in long double is within a few
// unit roundoffs of |op(a)| |x| + |b|.
TEST(TriangularSolve, RandomSubstitutionChecks) {
  std::mt19937 gen(9);
  std::uniform_real_distribution<double> u(-1, 1);
  const int64_t b0 = 2, m = 4, k = 3;
  ForTypes([&](const std::string& t) {
    const bool cplx = IsComplexName(t);
    for (int combo = 0; combo < 24; ++combo) {
      const bool left = combo & 1, lower = combo & 2, unit = combo & 4;
      const int trans = combo / 8;  // 0 none, 1 transpose, 2 adjoint
      if (trans == 2 && !cplx && combo % 2) continue;  // trim real dupes
      const char* trans_name[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
      SCOPED_TRACE(absl::StrCat(t, " left=", left, " lower=", lower,
                                " unit=", unit, " ", trans_name[trans]));
      std::vector<CL> a(b0 * m * m), b(b0 * m * k);
      for (int64_t i = 0; i < b0 * m * m; ++i) {
        a[i] = CL(u(gen), cplx ? u(gen) : 0);
      }
      for (int64_t q = 0; q < b0; ++q) {
        for (int64_t i = 0; i < m; ++i) a[(q * m + i) * m + i] += CL(4, 0);
      }
      for (auto& x : b) x = CL(u(gen), cplx ? u(gen) : 0);
      const std::vector<int64_t> bdims = left ? std::vector<int64_t>{b0, m, k}
                                              : std::vector<int64_t>{b0, k, m};
      std::vector<Literal> args;
      args.push_back(MakeLiteral(t, {b0, m, m}, a));
      args.push_back(MakeLiteral(t, bdims, b));
      a = Read(args[0]);
      b = Read(args[1]);
      const std::string as = absl::StrCat(t, "[", b0, ",", m, ",", m, "]");
      const std::string bs =
          absl::StrCat(t, "[", absl::StrJoin(bdims, ","), "]");
      std::string attrs = absl::StrCat(", transpose_a=", trans_name[trans]);
      if (left) attrs = absl::StrCat(", left_side=true", attrs);
      if (lower) attrs = absl::StrCat(", lower=true", attrs);
      if (unit) attrs = absl::StrCat(", unit_diagonal=true", attrs);
      absl::StatusOr<EvalResult> r =
          RunHlo(Module(absl::StrCat("  a = ", as, " parameter(0)\n  b = ", bs,
                                     " parameter(1)\n  ROOT x = ", bs,
                                     " triangular-solve(a, b)", attrs)),
                 std::move(args));
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_FALSE(r->outputs[0].dont_care.has_value());
      const std::vector<CL> x = Read(r->value);
      for (int64_t q = 0; q < b0; ++q) {
        // op(a)(i, j) from the triangle only.
        auto tri = [&](int64_t i, int64_t j) -> CL {
          if (i == j) return unit ? CL(1, 0) : a[(q * m + i) * m + i];
          const bool inside = lower ? i > j : i < j;
          return inside ? a[(q * m + i) * m + j] : CL(0, 0);
        };
        auto op = [&](int64_t i, int64_t j) -> CL {
          if (trans == 0) return tri(i, j);
          return trans == 2 ? std::conj(tri(j, i)) : tri(j, i);
        };
        const int64_t rows = left ? m : k, cols = left ? k : m;
        auto xv = [&](int64_t i, int64_t j) {
          return x[(q * rows + i) * cols + j];
        };
        auto bv = [&](int64_t i, int64_t j) {
          return b[(q * rows + i) * cols + j];
        };
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < cols; ++j) {
            CL s = 0;
            LD scale = std::abs(bv(i, j));
            for (int64_t p = 0; p < m; ++p) {
              const CL term = left ? op(i, p) * xv(p, j) : xv(i, p) * op(p, j);
              s += term;
              scale += std::abs(term);
            }
            EXPECT_LE(std::abs(s - bv(i, j)), 4 * UnitRoundoff(t) * scale)
                << "batch " << q << " (" << i << "," << j << ")";
          }
        }
      }
    }
  });
}

TEST(TriangularSolve, SingularMarkedAndZeroSize) {
  absl::StatusOr<EvalResult> r = RunHlo(
      Module("  a = f32[2,2,2] constant({{{2, 0}, {1, 4}}, {{0, 0}, {1, 4}}})\n"
             "  b = f32[2,2,1] constant({{{2}, {9}}, {{2}, {9}}})\n"
             "  ROOT x = f32[2,2,1] triangular-solve(a, b), left_side=true, "
             "lower=true, transpose_a=NO_TRANSPOSE"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.GetAsDouble(0), 1);
  EXPECT_EQ(r->value.GetAsDouble(1), 2);
  EXPECT_EQ(Mask(r->outputs[0]), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(r->outputs[0].impl_ids,
            std::vector<std::string>{"impl.triangular-solve.1"});
  // K = 0 and M = 0.
  std::vector<Literal> args;
  args.push_back(Lit("f64[2,2] {{1, 0}, {0, 1}}"));
  args.push_back(Literal(Shape::Array(PrimitiveType::kF64, {2, 0})));
  r = RunHlo(Module("  a = f64[2,2] parameter(0)\n  b = f64[2,0] parameter(1)\n"
                    "  ROOT x = f64[2,0] triangular-solve(a, b), "
                    "left_side=true, transpose_a=NO_TRANSPOSE"),
             std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Literal> args2;
  args2.push_back(Literal(Shape::Array(PrimitiveType::kF32, {3, 0, 0})));
  args2.push_back(Literal(Shape::Array(PrimitiveType::kF32, {3, 5, 0})));
  r = RunHlo(Module("  a = f32[3,0,0] parameter(0)\n  b = f32[3,5,0] "
                    "parameter(1)\n  ROOT x = f32[3,5,0] triangular-solve(a, "
                    "b), transpose_a=TRANSPOSE"),
             std::move(args2));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.element_count(), 0);
}

}  // namespace
}  // namespace hloref
