// Tests of the dot family (interpreter/ops/dot.cc) and of ExactSum: seed
// examples, general dimension numbers against a naive loop written here in
// long double / wrapping integer arithmetic on data whose sums are exact,
// exactness and correct rounding, mixed types, complex, pred, zero-size
// dimensions, and the error data S and m.
#include "interpreter/ops/dot.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/accumulate_test_util.h"
#include "interpreter/ops/exact_sum.h"
#include "interpreter/ops/fast_round.h"

namespace hloref {
namespace {

using testing_acc::EvalRootDirect;
using testing_acc::Lcg;
using testing_acc::Make;
using testing_acc::RecordingContext;
using testing_acc::RunHlo;

std::string DimsText(const std::vector<int64_t>& d) {
  return absl::StrCat("{", absl::StrJoin(d, ","), "}");
}
std::string ShapeText(const std::string& t, const std::vector<int64_t>& d) {
  return absl::StrCat(t, "[", absl::StrJoin(d, ","), "]");
}

// ---- ExactSum on its own.

TEST(ExactSum, CancellationAndCorrectRounding) {
  ExactSum s;
  s.Add(0x1p60);
  s.Add(1.0);
  s.Add(-0x1p60);
  EXPECT_EQ(s.Round(24, -126), 1.0);
  // 1 + 2^-24 + 2^-60 lies just above the f32 midpoint between 1 and
  // 1 + 2^-23: correct rounding goes up (a float loop would give 1).
  s.Clear();
  s.Add(1.0);
  s.Add(0x1p-24);
  s.Add(0x1p-60);
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF32), 1.0 + 0x1p-23);
  // Exactly the midpoint: ties to even (1).
  s.Clear();
  s.Add(1.0);
  s.Add(0x1p-24);
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF32), 1.0);
  // Subnormal f32 result: 2^-149 * 3 / 2 rounds to even (2^-148).
  s.Clear();
  s.Add(0x1p-149);
  s.Add(0x1p-150);
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF32), 0x1p-148);
  // Overflow of f32 is left to the store (the double is exact).
  s.Clear();
  s.Add(0x1p127);
  s.Add(0x1p127);
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF32), 0x1p128);
  // Negative sums, and -0 only when every term is -0.
  s.Clear();
  s.Add(-3.0);
  s.Add(0.5);
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF64), -2.5);
  s.Clear();
  s.Add(-0.0);
  s.Add(-0.0);
  EXPECT_TRUE(std::signbit(s.RoundTo(PrimitiveType::kF64)));
  s.Clear();
  s.Add(-0.0);
  s.Add(0.0);
  EXPECT_FALSE(std::signbit(s.RoundTo(PrimitiveType::kF64)));
  s.Clear();
  s.Add(1.0);
  s.Add(-1.0);
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF64), 0.0);
  EXPECT_FALSE(std::signbit(s.RoundTo(PrimitiveType::kF64)));
}

TEST(ExactSum, SpecialValues) {
  ExactSum s;
  s.Add(1.0);
  s.Add(std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF32),
            std::numeric_limits<double>::infinity());
  s.Add(-std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(s.RoundTo(PrimitiveType::kF32)));
  s.Clear();
  s.AddProduct(std::numeric_limits<double>::infinity(), 0.0);
  EXPECT_TRUE(std::isnan(s.RoundTo(PrimitiveType::kF64)));
}

TEST(ExactSum, ExactF64Products) {
  // (1 + 2^-30)^2 - (1 + 2^-29) = 2^-60 exactly; a double product loses it.
  ExactSum s;
  const double a = 1.0 + 0x1p-30;
  s.AddProduct(a, a);
  s.Add(-(1.0 + 0x1p-29));
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF64), 0x1p-60);
  // Products far outside the double range cancel exactly.
  s.Clear();
  s.AddProduct(0x1p1000, 0x1p1000);
  s.AddProduct(-0x1p1000, 0x1p1000);
  s.Add(2.0);
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF64), 2.0);
  // Tiny products below the subnormal range are kept exactly.
  s.Clear();
  s.AddProduct(0x1p-1074, 0x1p-1074);
  s.AddProduct(0x1p-1074, 0x1p-1074);
  s.Add(0x1p-1074);
  EXPECT_EQ(s.RoundUpToDouble(), 0x1p-1073);  // 2^-1074 + 2^-2147: up
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF64), 0x1p-1074);
}

TEST(ExactSum, ManyTermsCarryPropagation) {
  ExactSum s;
  for (int i = 0; i < 100000; ++i) s.Add(0.1);
  // Exact: 100000 * fl(0.1), fl(0.1) = 0x1.999999999999ap-4.
  const long double exact = 100000.0L * static_cast<long double>(0.1);
  EXPECT_EQ(s.RoundTo(PrimitiveType::kF64), static_cast<double>(exact));
}

// ---- The seed's examples.

TEST(Dot, SeedDotGeneralContracting) {
  const Literal r = RunHlo(R"(HloModule m
ENTRY e {
  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  b = f32[2,3] constant({{1, 1, 1}, {2, 2, 2}})
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})");
  EXPECT_EQ(r, Make<float>(PrimitiveType::kF32, {2, 2}, {6, 12, 15, 30}));
}

TEST(Dot, SeedDotGeneralBatch) {
  const Literal r = RunHlo(R"(HloModule m
ENTRY e {
  a = f32[2,2,2] constant({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}})
  b = f32[2,2,2] constant({{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}})
  ROOT d = f32[2,2,2] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})");
  EXPECT_EQ(
      r, Make<float>(PrimitiveType::kF32, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(Dot, SeedDotRanks) {
  // vector . vector, matrix . vector, matrix . matrix.
  EXPECT_EQ(RunHlo(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  b = f32[3] constant({4, 5, 6})
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
            Literal::CreateR0<float>(PrimitiveType::kF32, 32));
  EXPECT_EQ(RunHlo(R"(HloModule m
ENTRY e {
  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  b = f32[3] constant({1, 0, -1})
  ROOT d = f32[2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"),
            Make<float>(PrimitiveType::kF32, {2}, {-2, -2}));
  EXPECT_EQ(RunHlo(R"(HloModule m
ENTRY e {
  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  b = f32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"),
            Make<float>(PrimitiveType::kF32, {2, 2}, {22, 28, 49, 64}));
}

// ---- General dimension numbers against a naive loop.

struct DotCase {
  std::vector<int64_t> lhs_dims, rhs_dims;
  std::vector<int64_t> lb, lc, rb, rc;
};

// Naive DotGeneral written from the seed: result index = (batch..., lhs
// free..., rhs free...); sum over contracting indices in long double (the
// test data keeps every partial sum exact in 64 bits).
std::vector<long double> NaiveDot(const DotCase& c,
                                  const std::vector<long double>& lhs,
                                  const std::vector<long double>& rhs,
                                  std::vector<int64_t>* out_dims) {
  auto free_dims = [](int64_t rank, const std::vector<int64_t>& b,
                      const std::vector<int64_t>& k) {
    std::vector<int64_t> f;
    for (int64_t d = 0; d < rank; ++d) {
      bool used = false;
      for (int64_t x : b) used |= x == d;
      for (int64_t x : k) used |= x == d;
      if (!used) f.push_back(d);
    }
    return f;
  };
  const auto lf = free_dims(c.lhs_dims.size(), c.lb, c.lc);
  const auto rf = free_dims(c.rhs_dims.size(), c.rb, c.rc);
  out_dims->clear();
  for (int64_t d : c.lb) out_dims->push_back(c.lhs_dims[d]);
  for (int64_t d : lf) out_dims->push_back(c.lhs_dims[d]);
  for (int64_t d : rf) out_dims->push_back(c.rhs_dims[d]);
  std::vector<int64_t> kdims;
  for (int64_t d : c.lc) kdims.push_back(c.lhs_dims[d]);
  int64_t out_count = 1, kcount = 1;
  for (int64_t d : *out_dims) out_count *= d;
  for (int64_t d : kdims) kcount *= d;
  std::vector<long double> out(out_count, 0.0L);
  std::vector<int64_t> oi(out_dims->size()), li(c.lhs_dims.size()),
      ri(c.rhs_dims.size());
  for (int64_t o = 0; o < out_count; ++o) {
    int64_t rem = o;
    for (int64_t d = out_dims->size() - 1; d >= 0; --d) {
      oi[d] = rem % (*out_dims)[d];
      rem /= (*out_dims)[d];
    }
    size_t p = 0;
    for (size_t j = 0; j < c.lb.size(); ++j, ++p) {
      li[c.lb[j]] = oi[p];
      ri[c.rb[j]] = oi[p];
    }
    for (int64_t d : lf) li[d] = oi[p++];
    for (int64_t d : rf) ri[d] = oi[p++];
    for (int64_t k = 0; k < kcount; ++k) {
      int64_t krem = k;
      for (int64_t j = kdims.size() - 1; j >= 0; --j) {
        li[c.lc[j]] = krem % kdims[j];
        ri[c.rc[j]] = krem % kdims[j];
        krem /= kdims[j];
      }
      int64_t la = 0, ra = 0;
      for (size_t d = 0; d < c.lhs_dims.size(); ++d)
        la = la * c.lhs_dims[d] + li[d];
      for (size_t d = 0; d < c.rhs_dims.size(); ++d)
        ra = ra * c.rhs_dims[d] + ri[d];
      out[o] += lhs[la] * rhs[ra];
    }
  }
  return out;
}

std::string DotModule(const DotCase& c, const std::string& lt,
                      const std::string& rt, const std::string& ot,
                      const std::vector<int64_t>& out_dims,
                      const std::string& extra = "") {
  std::string attrs;
  if (!c.lb.empty())
    absl::StrAppend(&attrs, ", lhs_batch_dims=", DimsText(c.lb));
  absl::StrAppend(&attrs, ", lhs_contracting_dims=", DimsText(c.lc));
  if (!c.rb.empty())
    absl::StrAppend(&attrs, ", rhs_batch_dims=", DimsText(c.rb));
  absl::StrAppend(&attrs, ", rhs_contracting_dims=", DimsText(c.rc), extra);
  return absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", ShapeText(lt, c.lhs_dims),
      " parameter(0)\n  b = ", ShapeText(rt, c.rhs_dims),
      " parameter(1)\n  ROOT d = ", ShapeText(ot, out_dims), " dot(a, b)",
      attrs, "\n}\n");
}

const std::vector<DotCase>& Cases() {
  static const std::vector<DotCase> cases = {
      {{3, 4}, {4, 5}, {}, {1}, {}, {0}},
      {{4, 3}, {5, 4}, {}, {0}, {}, {1}},          // transposed
      {{2, 3, 4}, {2, 4, 5}, {0}, {2}, {0}, {1}},  // batch matmul
      {{3, 2, 4}, {4, 5, 2}, {1}, {2}, {2}, {0}},  // batch not leading
      {{2, 3, 4, 5}, {5, 2, 3, 4}, {0}, {3, 1}, {1}, {0, 2}},  // 2 contracting
      {{2, 2, 3, 3}, {2, 3, 2, 3}, {0, 2}, {3}, {2, 1}, {3}},  // 2 batch dims
      {{6}, {6}, {}, {0}, {}, {0}},
      {{3, 0}, {0, 4}, {}, {1}, {}, {0}},  // k = 0
      {{0, 3}, {3, 4}, {}, {1}, {}, {0}},  // empty result
      {{2, 3}, {4}, {}, {}, {}, {}},       // outer product
  };
  return cases;
}

TEST(Dot, GeneralDimensionNumbersF32) {
  Lcg rng(42);
  for (const DotCase& c : Cases()) {
    int64_t nl = 1, nr = 1;
    for (int64_t d : c.lhs_dims) nl *= d;
    for (int64_t d : c.rhs_dims) nr *= d;
    // Dyadic values k/64 with |k| < 2^10: products and their sums are exact
    // in long double, so rounding the long double sum once is the
    // correctly rounded result.
    std::vector<float> lv(nl), rv(nr);
    std::vector<long double> ll(nl), rl(nr);
    for (int64_t i = 0; i < nl; ++i)
      ll[i] = lv[i] = rng.Int(-1000, 1000) / 64.0f;
    for (int64_t i = 0; i < nr; ++i)
      rl[i] = rv[i] = rng.Int(-1000, 1000) / 64.0f;
    std::vector<int64_t> out_dims;
    const std::vector<long double> want = NaiveDot(c, ll, rl, &out_dims);
    std::vector<float> wantf(want.begin(), want.end());
    const Literal got =
        RunHlo(DotModule(c, "f32", "f32", "f32", out_dims),
               {Make<float>(PrimitiveType::kF32, c.lhs_dims, lv),
                Make<float>(PrimitiveType::kF32, c.rhs_dims, rv)});
    EXPECT_EQ(got, Make<float>(PrimitiveType::kF32, out_dims, wantf))
        << DotModule(c, "f32", "f32", "f32", out_dims);
  }
}

TEST(Dot, GeneralDimensionNumbersIntegersWrap) {
  Lcg rng(7);
  for (const DotCase& c : Cases()) {
    int64_t nl = 1, nr = 1;
    for (int64_t d : c.lhs_dims) nl *= d;
    for (int64_t d : c.rhs_dims) nr *= d;
    // s32 with values near 2^20: products overflow s32; the expected value
    // wraps modulo 2^32 (XLA profile), computed here in uint32 arithmetic.
    std::vector<int32_t> lv(nl), rv(nr);
    std::vector<long double> ll(nl), rl(nr);
    for (int64_t i = 0; i < nl; ++i) lv[i] = rng.Int(-(1 << 20), 1 << 20);
    for (int64_t i = 0; i < nr; ++i) rv[i] = rng.Int(-(1 << 20), 1 << 20);
    // The exact integer sums (|sum| < 2^46, exact in long double) wrapped
    // to 32 bits.
    for (int64_t i = 0; i < nl; ++i) ll[i] = lv[i];
    for (int64_t i = 0; i < nr; ++i) rl[i] = rv[i];
    std::vector<int64_t> out_dims;
    const std::vector<long double> exact = NaiveDot(c, ll, rl, &out_dims);
    std::vector<int32_t> want;
    for (long double v : exact) {
      const int64_t e = static_cast<int64_t>(v);
      want.push_back(static_cast<int32_t>(static_cast<uint32_t>(e)));
    }
    const Literal got =
        RunHlo(DotModule(c, "s32", "s32", "s32", out_dims),
               {Make<int32_t>(PrimitiveType::kS32, c.lhs_dims, lv),
                Make<int32_t>(PrimitiveType::kS32, c.rhs_dims, rv)});
    EXPECT_EQ(got, Make<int32_t>(PrimitiveType::kS32, out_dims, want))
        << DotModule(c, "s32", "s32", "s32", out_dims);
  }
}

TEST(Dot, ExactAccumulationBeatsFloatLoop) {
  // [2^60, 1, -2^60] . [1, 1, 1] = 1 exactly; a float loop gives 0.
  const Literal r = RunHlo(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1.15292150e+18, 1, -1.15292150e+18})
  b = f32[3] constant({1, 1, 1})
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})");
  EXPECT_EQ(r, Literal::CreateR0<float>(PrimitiveType::kF32, 1.0f));
  // 1 + 2^-24 + 2^-60 rounds up to 1 + 2^-23 (correct rounding).
  EXPECT_EQ(
      RunHlo(R"(HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
             {Make<float>(PrimitiveType::kF32, {3}, {1.0f, 0x1p-24f, 0x1p-60f}),
              Make<float>(PrimitiveType::kF32, {3}, {1, 1, 1})}),
      Literal::CreateR0<float>(PrimitiveType::kF32, 1.0f + 0x1p-23f));
}

TEST(Dot, F64ExactProducts) {
  const double a = 1.0 + 0x1p-30;
  const Literal r =
      RunHlo(R"(HloModule m
ENTRY e {
  a = f64[2] parameter(0)
  b = f64[2] parameter(1)
  ROOT d = f64[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
             {Make<double>(PrimitiveType::kF64, {2}, {a, -(1.0 + 0x1p-29)}),
              Make<double>(PrimitiveType::kF64, {2}, {a, 1.0})});
  EXPECT_EQ(r, Literal::CreateR0<double>(PrimitiveType::kF64, 0x1p-60));
}

TEST(Dot, MixedTypesAndPreferredResult) {
  // s8 x s8 -> s32 does not wrap at 8 bits: 100*100 + 100*100 = 20000.
  EXPECT_EQ(RunHlo(R"(HloModule m
ENTRY e {
  a = s8[2] constant({100, 100})
  b = s8[2] constant({100, 100})
  ROOT d = s32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
            Literal::CreateR0<int32_t>(PrimitiveType::kS32, 20000));
  // u8 x s8 -> s16: 200 * -1 = -200 (u8 zero-extended).
  EXPECT_EQ(RunHlo(R"(HloModule m
ENTRY e {
  a = u8[1] constant({200})
  b = s8[1] constant({-1})
  ROOT d = s16[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
            Literal::CreateR0<int16_t>(PrimitiveType::kS16, -200));
  // bf16 x bf16 -> f32 keeps the f32 precision: 258 (= 1.0000001b * 2^8,
  // a bf16 value) + 2^-8 needs 17 bits, exact in f32, not in bf16.
  EXPECT_EQ(RunHlo(R"(HloModule m
ENTRY e {
  a = bf16[2] constant({258, 0.00390625})
  b = bf16[2] constant({1, 1})
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
            Literal::CreateR0<float>(PrimitiveType::kF32, 258.00390625f));
  // f32 x f32 -> bf16: one rounding of the exact sum 1 + 2^-8 + 2^-30 to
  // bf16 (p = 8, ulp 2^-7 at 1): just above the midpoint, so 1 + 2^-7.
  EXPECT_EQ(RunHlo(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, 0.00390625, 9.31322575e-10})
  b = f32[3] constant({1, 1, 1})
  ROOT d = bf16[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
            RunHlo(R"(HloModule m
ENTRY e {
  ROOT c = bf16[] constant(1.0078125)
})"));
}

TEST(Dot, OperandPrecisionDoesNotChangeTheValue) {
  const std::string base = R"(HloModule m
ENTRY e {
  a = f32[2,3] constant({{1.5, -2, 3}, {4, 5.25, 6}})
  b = f32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})";
  const Literal plain = RunHlo(base + "\n}\n");
  EXPECT_EQ(plain, Make<float>(PrimitiveType::kF32, {2, 2},
                               {1.5f - 6 + 15, 3 - 8 + 18.0f, 4 + 15.75f + 30,
                                8 + 21 + 36.0f}));
  EXPECT_EQ(RunHlo(base + ", operand_precision={highest,highest}\n}\n"), plain);
  EXPECT_EQ(RunHlo(base + ", operand_precision={default,high}\n}\n"), plain);
}

TEST(Dot, Complex) {
  // (1+2i)(3-i) + (-1+i)(2+2i) = (5+5i) + (-4+0i) = 1+5i.
  const Literal r = RunHlo(R"(HloModule m
ENTRY e {
  a = c64[2] constant({(1, 2), (-1, 1)})
  b = c64[2] constant({(3, -1), (2, 2)})
  ROOT d = c64[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})");
  EXPECT_EQ(r, Literal::CreateR0<std::complex<float>>(PrimitiveType::kC64,
                                                      {1.0f, 5.0f}));
  // c128 matrix-vector with an independent std::complex loop (exact data).
  std::vector<std::complex<double>> a = {{1, 2}, {3, 4}, {5, -6}, {-7, 8}};
  std::vector<std::complex<double>> b = {{0.5, -1}, {2, 0.25}};
  std::vector<std::complex<double>> want = {a[0] * b[0] + a[1] * b[1],
                                            a[2] * b[0] + a[3] * b[1]};
  EXPECT_EQ(RunHlo(R"(HloModule m
ENTRY e {
  a = c128[2,2] parameter(0)
  b = c128[2] parameter(1)
  ROOT d = c128[2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                   {Make<std::complex<double>>(PrimitiveType::kC128, {2, 2}, a),
                    Make<std::complex<double>>(PrimitiveType::kC128, {2}, b)}),
            Make<std::complex<double>>(PrimitiveType::kC128, {2}, want));
}

TEST(Dot, PredIsOrOfAnds) {
  EXPECT_EQ(RunHlo(R"(HloModule m
ENTRY e {
  a = pred[2,2] constant({{1, 0}, {0, 0}})
  b = pred[2,2] constant({{1, 0}, {1, 1}})
  ROOT d = pred[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"),
            RunHlo("HloModule m\nENTRY e {\n ROOT c = pred[2,2] constant({{1, "
                   "0}, {0, 0}})\n}\n"));
}

TEST(Dot, ZeroSizeContractingGivesZeros) {
  EXPECT_EQ(RunHlo(R"(HloModule m
ENTRY e {
  a = f32[2,0] constant({{}, {}})
  b = f32[0,3] constant({})
  ROOT d = f32[2,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"),
            Make<float>(PrimitiveType::kF32, {2, 3}, {0, 0, 0, 0, 0, 0}));
}

TEST(Dot, ErrorDataSandM) {
  const std::string text = R"(HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  const std::vector<float> av = {1.5f, -2, 3, 4, 5.25f, -6};
  const std::vector<float> bv = {1, -2, 3, 4, -5, 6};
  RecordingContext ctx;
  auto r = EvalRootDirect(text, &EvalDot,
                          {Make<float>(PrimitiveType::kF32, {2, 3}, av),
                           Make<float>(PrimitiveType::kF32, {3, 2}, bv)},
                          ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += std::fabs(av[i * 3 + k] * bv[k * 2 + j]);
      const auto it = ctx.data.find({0, i * 2 + j});
      ASSERT_NE(it, ctx.data.end());
      EXPECT_EQ(it->second.first, s);
      // f32 x f32 -> f32: products rounded, m = n = 3 (numerics.md 7.3).
      EXPECT_EQ(it->second.second, 3);
    }
  }
  // bf16 x bf16 -> f32: products exact in f32, m = n - 1.
  RecordingContext ctx2;
  auto r2 = EvalRootDirect(R"(HloModule m
ENTRY e {
  a = bf16[4] parameter(0)
  b = bf16[4] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
                           &EvalDot,
                           {RunHlo("HloModule m\nENTRY e {\n ROOT c = bf16[4] "
                                   "constant({1, -2, 3, -4})\n}\n"),
                            RunHlo("HloModule m\nENTRY e {\n ROOT c = bf16[4] "
                                   "constant({0.5, 0.5, -1, 2})\n}\n")},
                           ctx2);
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(r2->GetAsDouble(0), 0.5 - 1 - 3 - 8);
  EXPECT_EQ((ctx2.data[{0, 0}].first), 0.5 + 1 + 3 + 8);
  EXPECT_EQ((ctx2.data[{0, 0}].second), 3);
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// The verified two-sum fast path (dot.h) against the exact accumulator
// alone: bit-identical results on data made to defeat it: small integers
// whose sums fall on bf16 / f32 rounding midpoints (ties to even),
// cancellation to exact zero (sign of zero), huge and tiny magnitudes in
// one sum, subnormal results, infinities and NaN. m = 3 takes the
// vector-matrix variant (rhs codes), m = 40 the square one (plain sums
// with an a priori bound, then the two-sum for the groups with an output
// that bound leaves undecided: the integer trials' midpoint ties).
TEST(DotFastPath, AgreesBitForBitWithTheExactAccumulator) {
  testing_acc::Lcg rng(99);
  const float specials[] = {0.0f,   -0.0f, 1.0f,   -1.0f,  0.5f,   3.0f,
                            257.0f, 1e30f, -1e30f, 1e-30f, 1e-40f, -1e-42f};
  for (const char* out_type : {"f32", "bf16", "f16"}) {
    for (int trial = 0; trial < 24; ++trial) {
      const int64_t m = trial < 12 ? 3 : 40, k = 1 + (trial % 12) * 23, n = 37;
      Literal a(Shape::Array(PrimitiveType::kF32, {m, k}));
      Literal b(Shape::Array(PrimitiveType::kF32, {k, n}));
      for (Literal* lit : {&a, &b}) {
        for (float& x : lit->mutable_data<float>()) {
          const uint32_t r = rng.Next();
          switch (trial % 4) {
            case 0:  // integers: sums on midpoints
              x = static_cast<float>(static_cast<int>(r % 9) - 4) *
                  (r & 0x100 ? 256.0f : 1.0f);
              break;
            case 1:  // specials and tiny values
              x = specials[r % 12];
              break;
            case 2:  // random 24-bit values of mixed scale
              x = static_cast<float>(static_cast<int32_t>(r)) *
                  std::ldexp(1.0f, static_cast<int>(r % 40) - 60);
              break;
            default:  // mostly exact cancellation
              x = (r % 3 == 0) ? 1.0f : (r % 3 == 1 ? -1.0f : 0x1p-24f);
              break;
          }
        }
      }
      if (trial == 5) a.mutable_data<float>()[2] = INFINITY;
      if (trial == 9) b.mutable_data<float>()[5] = NAN;
      const std::string text =
          absl::StrCat("HloModule m\nENTRY e {\n  a = f32[", m, ",", k,
                       "] parameter(0)\n  b = f32[", k, ",", n,
                       "] parameter(1)\n  ROOT d = ", out_type, "[", m, ",", n,
                       "] dot(a, b), lhs_contracting_dims={1}, "
                       "rhs_contracting_dims={0}\n}\n");
      std::vector<Literal> args;
      args.push_back(a);
      args.push_back(b);
      SetDotFastPathDisabledForTesting(false);
      const Literal fast = RunHlo(text, args);
      SetDotFastPathDisabledForTesting(true);
      const Literal exact = RunHlo(text, args);
      SetDotFastPathDisabledForTesting(false);
      EXPECT_TRUE(fast.BitwiseEquals(exact))
          << out_type << " trial " << trial << "\nfast:  " << fast.ToString()
          << "\nexact: " << exact.ToString();
    }
  }
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// RoundToFormat (on the encoding) against RoundToFormatSlow (ilogb, ldexp,
// nearbyint) and, for f32, the host's double -> float conversion (IEEE
// RNE): random doubles over the whole exponent range, exact midpoints
// between neighbours of each format and their neighbours in double, for
// f32, bf16, f16 and f8e5m2 precisions and minimum exponents.
TEST(RoundToFormat, AgreesWithLdexpNearbyintAndTheHost) {
  struct Format {
    int precision, emin;
  };
  const Format formats[] = {{24, -126}, {8, -126}, {11, -14}, {3, -14}};
  uint64_t seed = 3;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return seed ^ (seed >> 31);
  };
  std::vector<double> xs = {0.0,
                            -0.0,
                            1.0,
                            -1.0,
                            0x1p-1074,
                            0x1p-1022,
                            std::numeric_limits<double>::max(),
                            -std::numeric_limits<double>::max()};
  for (int i = 0; i < 200000; ++i) {
    const uint64_t r = next();
    double x;
    std::memcpy(&x, &r, 8);
    if (std::isfinite(x)) xs.push_back(x);
    // Moderate exponents, where the formats' results live.
    xs.push_back(std::ldexp(static_cast<double>(static_cast<int64_t>(r >> 11)),
                            static_cast<int>(next() % 400) - 250 - 53) *
                 ((r & 1) ? 1 : -1));
  }
  for (const Format& f : formats) {
    std::vector<double> cases = xs;
    for (int i = 0; i < 20000; ++i) {
      // k + 1/2 quanta at a random exponent (a tie) and one double ulp on
      // either side.
      const int q = static_cast<int>(next() % 300) - 200;
      const double k =
          static_cast<double>(next() % (uint64_t{1} << f.precision));
      const double mid = std::ldexp(2 * k + 1, q - 1);
      cases.push_back(mid);
      cases.push_back(std::nextafter(mid, 0.0));
      cases.push_back(std::nextafter(mid, 1e308));
      cases.push_back(-mid);
    }
    for (double x : cases) {
      const double fast = RoundToFormat(x, f.precision, f.emin);
      const double slow = RoundToFormatSlow(x, f.precision, f.emin);
      uint64_t a, b;
      std::memcpy(&a, &fast, 8);
      std::memcpy(&b, &slow, 8);
      ASSERT_EQ(a, b) << "precision " << f.precision << " x " << x;
      if (f.precision == 24 && std::fabs(x) < 0x1p127) {
        ASSERT_EQ(fast, static_cast<double>(static_cast<float>(x))) << x;
      }
    }
  }
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// Exact zero sums through the fast path (VerifiedRound returns the chain's
// zero, started at -0): -0 only when every product is -0 (IEEE: the sum
// of -0s is -0, anything with a +0 or an exact cancellation is +0), as
// the exact accumulator gives. Expected values by hand, and the same bits
// with the fast path off.
TEST(DotFastPath, ZeroSumsHaveTheExactAccumulatorsSign) {
  // Rows of a times b = (1, 1, 1, 1), k = 4:
  //  row 0 (-0, -0, -0, -0) = -0 (all products -0)
  //  row 1 (-0, 0, -0, -0)  = +0 (one +0 product)
  //  row 2 (1, -1, 0, -0)   = +0 (cancellation)
  //  row 3 (0, 0, 0, 0)     = +0
  // and times b = (-1, -1, -1, -1), every product's sign flipped: rows 0,
  // 1 and 2 give +0, row 3 (all products -0) gives -0.
  const char* text = R"(HloModule m
ENTRY e {
  a = f32[4,4] parameter(0)
  b = f32[4,1] parameter(1)
  ROOT d = f32[4,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  Literal a(Shape::Array(PrimitiveType::kF32, {4, 4}));
  const float av[] = {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, 0.0f, -0.0f, -0.0f,
                      1.0f,  -1.0f, 0.0f,  -0.0f, 0.0f,  0.0f, 0.0f,  0.0f};
  for (int i = 0; i < 16; ++i) a.mutable_data<float>()[i] = av[i];
  std::vector<Literal> args;
  args.push_back(a);
  for (float sign : {1.0f, -1.0f}) {
    Literal b(Shape::Array(PrimitiveType::kF32, {4, 1}));
    for (float& x : b.mutable_data<float>()) x = sign;
    if (args.size() > 1) args.pop_back();
    args.push_back(b);
    SetDotFastPathDisabledForTesting(false);
    const Literal fast = RunHlo(text, args);
    SetDotFastPathDisabledForTesting(true);
    const Literal exact = RunHlo(text, args);
    SetDotFastPathDisabledForTesting(false);
    EXPECT_TRUE(fast.BitwiseEquals(exact)) << fast.ToString();
    auto d = fast.data<float>();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(d[i], 0.0f) << i;
    const bool negative[2][4] = {{true, false, false, false},
                                 {false, false, false, true}};
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(std::signbit(d[i]), negative[sign < 0][i])
          << "b = " << sign << " row " << i;
    }
  }
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// The fast path's vector-matrix variant (m <= 16 lhs rows: the rhs packed
// in its own type, bf16 / f16 / f32, converted to double in registers)
// against the rhs packed as doubles and against the exact accumulator
// alone: the same bits for m = 1, 2, 7, 8, 16, odd n, rhs layouts that are
// contiguous [k][n], transposed [n][k], with the free dims split around the
// contracting one, batched, and two contracting dims in another order;
// f32 / bf16 / f16 operands and results; data with rounding midpoints,
// cancellation to signed zeros, mixed magnitudes, subnormals of each type,
// infinities and NaN. Operand values are doubles rounded to the operand
// type (StoreDoubles), so every path sees the same operands.
TEST(DotFastPath, RhsInItsOwnTypeAgreesBitForBit) {
  testing_acc::Lcg rng(2024);
  struct Layout {
    const char* name;
    // lhs dims, rhs dims, dimension numbers, result dims for m rows (k, n
    // as given by the layout)
    DotCase c;
    std::vector<int64_t> out_dims;
  };
  auto layouts = [](int64_t m) {
    return std::vector<Layout>{
        {"[k][n]", {{m, 23}, {23, 37}, {}, {1}, {}, {0}}, {m, 37}},
        {"[n][k]", {{m, 130}, {37, 130}, {}, {1}, {}, {1}}, {m, 37}},
        {"[n1][k][n2]", {{m, 23}, {3, 23, 7}, {}, {1}, {}, {1}}, {m, 3, 7}},
        {"batched", {{2, m, 23}, {2, 23, 5}, {0}, {2}, {0}, {1}}, {2, m, 5}},
        {"two contracting",
         {{m, 4, 9}, {9, 5, 4}, {}, {1, 2}, {}, {2, 0}},
         {m, 5}},
        // Contracting offsets 0, 1, 2, 3, 20, 21, ...: unit stride at
        // first, not throughout.
        {"[k1][n][k2]", {{m, 3, 4}, {3, 5, 4}, {}, {1, 2}, {}, {0, 2}}, {m, 5}},
        {"k = 1", {{m, 1}, {1, 9}, {}, {1}, {}, {0}}, {m, 9}},
    };
  };
  struct Types {
    const char *lhs, *rhs;
    PrimitiveType lt, rt;
  };
  const Types types[] = {
      {"f32", "f32", PrimitiveType::kF32, PrimitiveType::kF32},
      {"bf16", "bf16", PrimitiveType::kBF16, PrimitiveType::kBF16},
      {"f16", "f16", PrimitiveType::kF16, PrimitiveType::kF16},
      {"f32", "bf16", PrimitiveType::kF32, PrimitiveType::kBF16},
      {"bf16", "f16", PrimitiveType::kBF16, PrimitiveType::kF16},
  };
  // 0x1p-24: f16's smallest subnormal; 1e-40: an f32 and bf16 subnormal.
  const double specials[] = {0.0,   -0.0,   1.0,     -1.0,    0.5,
                             3.0,   257.0,  1e30,    -1e30,   0x1p-24,
                             1e-40, -1e-39, 65504.0, 0x1p-14, -0x1p-20};
  int combo = 0;
  const DotStreamCounts before = GetDotStreamCounts();
  for (int64_t m : {1, 2, 7, 8, 16, 17, 37}) {
    for (const Layout& layout : layouts(m)) {
      for (const Types& t : types) {
        for (const char* out_type : {"f32", "bf16", "f16"}) {
          const int kind = combo++ % 6;
          auto values = [&](const std::vector<int64_t>& dims) {
            int64_t count = 1;
            for (int64_t d : dims) count *= d;
            std::vector<double> v(static_cast<size_t>(count));
            for (double& x : v) {
              const uint32_t r = rng.Next();
              switch (kind) {
                case 0:  // small integers: sums on midpoints
                  x = static_cast<double>(static_cast<int>(r % 9) - 4) *
                      (r & 0x100 ? 256.0 : 1.0);
                  break;
                case 1:  // specials, subnormals of each type
                  x = specials[r % 15];
                  break;
                case 2:  // random values of mixed scale
                  x = static_cast<double>(static_cast<int32_t>(r)) *
                      std::ldexp(1.0, static_cast<int>(r % 24) - 40);
                  break;
                case 3:  // mostly exact cancellation
                  x = (r % 3 == 0) ? 1.0 : (r % 3 == 1 ? -1.0 : 0x1p-11);
                  break;
                case 4:  // signed zeros and ones: zero sums of both signs
                  x = (r % 4 == 0) ? -0.0 : (r % 4 == 1 ? 0.0 : -1.0);
                  break;
                default:  // as 2, one infinity and one NaN
                  x = static_cast<double>(static_cast<int32_t>(r)) * 0x1p-31;
                  break;
              }
            }
            if (kind == 5 && count > 3) {
              v[1] = INFINITY;
              v[static_cast<size_t>(count) - 2] = NAN;
            }
            return v;
          };
          absl::StatusOr<Literal> a = StoreDoubles(
              Shape::Array(t.lt, layout.c.lhs_dims), values(layout.c.lhs_dims));
          absl::StatusOr<Literal> b = StoreDoubles(
              Shape::Array(t.rt, layout.c.rhs_dims), values(layout.c.rhs_dims));
          ASSERT_TRUE(a.ok() && b.ok());
          std::vector<Literal> args;
          args.push_back(*std::move(a));
          args.push_back(*std::move(b));
          const std::string text =
              DotModule(layout.c, t.lhs, t.rhs, out_type, layout.out_dims);
          const Literal codes = RunHlo(text, args);
          SetDotRhsCodesDisabledForTesting(true);
          const Literal doubles = RunHlo(text, args);
          SetDotRhsCodesDisabledForTesting(false);
          SetDotFastPathDisabledForTesting(true);
          const Literal exact = RunHlo(text, args);
          SetDotFastPathDisabledForTesting(false);
          const std::string where =
              absl::StrCat("m ", m, " layout ", layout.name, " ", t.lhs, " x ",
                           t.rhs, " -> ", out_type, " data kind ", kind);
          EXPECT_TRUE(codes.BitwiseEquals(doubles))
              << where << "\ncodes:   " << codes.ToString()
              << "\ndoubles: " << doubles.ToString();
          EXPECT_TRUE(codes.BitwiseEquals(exact))
              << where << "\ncodes: " << codes.ToString()
              << "\nexact: " << exact.ToString();
        }
      }
    }
  }
  // m = 1..16 over [k][n], batched and k = 1 rhs of bf16 / f32 streamed
  // the rhs rows (StreamBlock), and each of its three steps decided outputs:
  // the plain sums most, the two-sum the ties of the small integers, and
  // ExactSum the sums with an infinity or a NaN.
  const DotStreamCounts after = GetDotStreamCounts();
  EXPECT_GT(after.plain - before.plain, 100);
  EXPECT_GT(after.two_sum - before.two_sum, 10);
  EXPECT_GT(after.exact - before.exact, 10);
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// bf16[m,k] x wt[k,n] (wt[n,k] when `transposed`) -> ot[m,n]: lhs values
// quarter integers in [-2, 2], weights small integers one time in four
// (so that some sums are ties) and scaled random values otherwise.
std::pair<std::string, std::vector<Literal>> TieProneSkinnyDot(
    testing_acc::Lcg& rng, int64_t m, int64_t k, int64_t n, const char* wt,
    const char* ot, bool transposed) {
  std::vector<double> xv(static_cast<size_t>(m * k)),
      wv(static_cast<size_t>(k * n));
  for (double& v : xv) {
    v = static_cast<double>(static_cast<int>(rng.Next() % 17) - 8) / 4;
  }
  for (double& v : wv) {
    const uint32_t r = rng.Next();
    v = r % 4 == 0 ? static_cast<double>(static_cast<int>(r % 9) - 4)
                   : static_cast<double>(static_cast<int32_t>(r)) * 0x1p-37;
  }
  const PrimitiveType wtype =
      std::string(wt) == "bf16" ? PrimitiveType::kBF16 : PrimitiveType::kF32;
  const std::vector<int64_t> rhs_dims =
      transposed ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
  std::vector<Literal> args;
  args.push_back(*StoreDoubles(Shape::Array(PrimitiveType::kBF16, {m, k}), xv));
  args.push_back(*StoreDoubles(Shape::Array(wtype, rhs_dims), wv));
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  a = bf16[", m, ",", k,
      "] parameter(0)\n  b = ", wt, "[", absl::StrJoin(rhs_dims, ","),
      "] parameter(1)\n  ROOT d = ", ot, "[", m, ",", n,
      "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={",
      transposed ? 1 : 0, "}\n}\n");
  return {text, std::move(args)};
}

// Runs `text` at 1, 2 and 3 threads: each result must have `want`'s bits.
void ExpectSameBitsAtOneToThreeThreads(const std::string& text,
                                       const std::vector<Literal>& args,
                                       const Literal& want,
                                       const std::string& where) {
  for (int threads : {1, 2, 3}) {
    EvaluatorOptions options;
    options.threads = threads;
    const Literal got = RunHlo(text, args, options);
    EXPECT_TRUE(got.BitwiseEquals(want))
        << where << " at " << threads << " threads";
  }
}

// The streamed skinny path (m <= 16 lhs rows over a row-major bf16 / f32
// rhs: whole rows split into one block per thread for m = 1, and for m <=
// 4 on AVX-512 (the one-chain passes' spans), blocks of up to 1024 columns
// sharing each widened rhs chunk otherwise; or over
// the transposed rhs [n][k], one contiguous dot per output) on
// products large enough to be split (m x 1024 by 1024 x 4099, m = 1 and
// 3: 4.2 M and 12.6 M terms, an odd column count): the same bits at 1, 2
// and 3 threads and with the fast path off (the exact accumulator alone),
// for bf16 and f32 weights and bf16 / f32 results, with the AVX-512
// directed-rounding enclosure (where the host has it) and with the AVX2
// loops' a priori bound. Weights are small integers now and then, so that
// some sums are ties: the bound leaves them to the two-sum, the enclosure
// (exact sums are points) decides every output.
TEST(DotFastPath, StreamedSkinnyDotsSameBitsForAnyThreadCount) {
  testing_acc::Lcg rng(7);
  int64_t two_sums = 0, bound_undecided = 0, enclosure_undecided = 0,
          enclosed = 0;
  for (int64_t m : {1, 3}) {
    for (bool transposed : {false, true}) {
      for (const char* wt : {"bf16", "f32"}) {
        for (const char* ot : {"f32", "bf16"}) {
          auto [text, args] =
              TieProneSkinnyDot(rng, m, 1024, 4099, wt, ot, transposed);
          SetDotFastPathDisabledForTesting(true);
          const Literal exact = RunHlo(text, args);
          SetDotFastPathDisabledForTesting(false);
          // With the AVX-512 enclosure (where the host has it) and with
          // the AVX2 loops' a priori bound.
          for (bool enclosure : {true, false}) {
            if (enclosure && !StreamEnclosureAvx512Available()) continue;
            SetStreamEnclosureAvx512DisabledForTesting(!enclosure);
            const DotStreamCounts before = GetDotStreamCounts();
            ExpectSameBitsAtOneToThreeThreads(
                text, args, exact,
                absl::StrCat("m ", m, transposed ? " [n][k] " : " [k][n] ", wt,
                             " -> ", ot, enclosure ? ", enclosure" : ""));
            SetStreamEnclosureAvx512DisabledForTesting(false);
            const DotStreamCounts after = GetDotStreamCounts();
            EXPECT_EQ(after.plain + after.two_sum + after.exact -
                          (before.plain + before.two_sum + before.exact),
                      3 * m * 4099)
                << "m " << m << " " << wt << " -> " << ot;
            const int64_t ties = after.two_sum - before.two_sum;
            two_sums += ties;
            (enclosure ? enclosure_undecided : bound_undecided) +=
                ties + after.exact - before.exact;
            enclosed += after.enclosed - before.enclosed;
          }
        }
      }
    }
  }
  // The ties of the bf16 results reached the two-sum.
  EXPECT_GT(two_sums, 0);
  // The a priori bounds left ties undecided; the enclosure decided them
  // (exact sums are points), over both rhs layouts.
  EXPECT_GT(bound_undecided, 100);
  if (StreamEnclosureAvx512Available()) {
    EXPECT_EQ(enclosure_undecided, 0);
    EXPECT_EQ(enclosed, 2 * 3 * 4 * (1 + 3) * 4099);
  }
}

// More than 16 lhs rows over bf16 weights stream too when the AVX-512
// enclosures decide the outputs: 16 rows at a time (m = 17: one group and
// one row; m = 37: two groups and five rows), both rhs layouts, f32 and
// bf16 results, at 1, 2 and 3 threads (37 x 512 by 512 x 259 is 4.9 M
// terms, enough to split). The same bits as the exact accumulator alone,
// and where the host has AVX-512 every output counted by the stream and
// decided by its enclosure (ties of the small integers included).
TEST(DotFastPath, WideBf16DotsStreamSixteenRowsAtATime) {
  testing_acc::Lcg rng(11);
  constexpr int64_t k = 512, n = 259;
  for (int64_t m : {17, 37}) {
    for (bool transposed : {false, true}) {
      for (const char* ot : {"f32", "bf16"}) {
        auto [text, args] =
            TieProneSkinnyDot(rng, m, k, n, "bf16", ot, transposed);
        SetDotFastPathDisabledForTesting(true);
        const Literal exact = RunHlo(text, args);
        SetDotFastPathDisabledForTesting(false);
        const DotStreamCounts before = GetDotStreamCounts();
        ExpectSameBitsAtOneToThreeThreads(
            text, args, exact,
            absl::StrCat("m ", m, transposed ? " [n][k] " : " [k][n] ", "-> ",
                         ot));
        const DotStreamCounts after = GetDotStreamCounts();
        if (StreamEnclosureAvx512Available()) {
          EXPECT_EQ(after.enclosed - before.enclosed, 3 * m * n)
              << "m " << m << (transposed ? " [n][k] " : " [k][n] ") << ot;
          EXPECT_EQ(after.plain - before.plain, 3 * m * n);
        }
      }
    }
  }
}

// Sum4Segment's plain sums with VerifiedRoundPlain's a priori bound
// (fast_round.h) on random f32 products (k = 576, a 3x3x64 convolution's
// terms; odd k for the odd step): every value the bound decides equals
// ExactSum's correctly rounded sum of the same products, and the bound
// decides almost all of them (for these sums the interval is about 2^-33
// of the result, its f32 spacing 2^-23). Integer products summing to f32
// midpoints are never decided (the bound has no exact case: they are
// left to the two-sum), and neither are sums with an inf term.
TEST(DotFastPath, PlainSumsWithAPrioriBoundAgreeWithExactSum) {
  Lcg rng(4242);
  const FastRounding f32{24, -126, 0x1.fffffep127};
  for (const int64_t k : {int64_t{576}, int64_t{77}}) {
    const int64_t stride = 4;
    std::vector<double> x(static_cast<size_t>(k));
    std::vector<double> b(static_cast<size_t>(k * stride));
    int decided = 0, total = 0;
    for (int trial = 0; trial < 200; ++trial) {
      for (double& v : x) {
        v = static_cast<float>(static_cast<int32_t>(rng.Next())) * 0x1p-31f;
      }
      for (double& v : b) {
        v = static_cast<float>(static_cast<int32_t>(rng.Next())) * 0x1p-31f;
      }
      Sum4 st;
      Sum4Segment(st, x.data(), b.data(), k, stride);
      double s[4], a[4];
      Sum4Store(st, 4, s, a);
      for (int j = 0; j < 4; ++j) {
        ExactSum acc;
        for (int64_t t = 0; t < k; ++t) acc.Add(x[t] * b[t * stride + j]);
        const double exact = acc.Round(24, -126);
        const double r = VerifiedRoundPlain(s[j], a[j], k, f32);
        ++total;
        if (std::isnan(r)) continue;
        ++decided;
        EXPECT_EQ(r, exact) << "k " << k << " trial " << trial << " lane " << j;
      }
    }
    EXPECT_GE(decided, total - 2) << "k " << k;
  }
  // 1 + 2^-24 (an f32 midpoint) as 2^-24 * 1 + 1 * 1: both lanes' sums
  // are exact, but only the two-sum knows it.
  {
    const double x[2] = {0x1p-24, 1.0};
    const double b[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    Sum4 st;
    Sum4Segment(st, x, b, 2, 4);
    double s[4], a[4];
    Sum4Store(st, 4, s, a);
    EXPECT_EQ(s[0], 1 + 0x1p-24);
    EXPECT_TRUE(std::isnan(VerifiedRoundPlain(s[0], a[0], 2, f32)));
    TwoSum4 ts;
    TwoSum4Segment(ts, x, b, 2, 4);
    double ss[4], cs[4], as[4];
    TwoSum4Store(ts, 4, ss, cs, as);
    EXPECT_EQ(VerifiedRound(ss[0], cs[0], as[0], 2, f32), 1.0);  // to even
  }
  {
    const double x[3] = {1.0, INFINITY, 2.0};
    const double b[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    Sum4 st;
    Sum4Segment(st, x, b, 3, 4);
    double s[4], a[4];
    Sum4Store(st, 4, s, a);
    EXPECT_TRUE(std::isnan(VerifiedRoundPlain(s[0], a[0], 3, f32)));
  }
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// VerifiedRound's single-rounding cell test: sums S that are doubles (one
// term, so the exact sum is S) placed at random fractions of the quantum
// around values of each format, powers of two (where the spacing below is
// half the spacing above), the largest finite value and subnormals, both
// signs, with a small A: every decided value is RoundToFormatSlow(S) (the
// ldexp / nearbyint rounding), exact midpoints (found by rounding their
// neighbours in double) are never decided, and values well inside a cell
// are.
TEST(DotFastPath, VerifiedRoundDecidesOnlyInsideTheRoundingCell) {
  Lcg rng(77);
  const FastRounding formats[] = {
      {24, -126, 0x1.fffffep127}, {8, -126, 0x1.fep127}, {11, -14, 65504.0}};
  for (const FastRounding& f : formats) {
    // A midpoint between two values of the format: its neighbours in
    // double round apart.
    auto midpoint = [&f](double v) {
      return RoundToFormatSlow(std::nextafter(v, -INFINITY), f.precision,
                               f.emin) !=
             RoundToFormatSlow(std::nextafter(v, INFINITY), f.precision,
                               f.emin);
    };
    int decided = 0, inner = 0, midpoints = 0;
    for (int trial = 0; trial < 20000; ++trial) {
      // A value r0 of the format: a power of two, the largest finite, a
      // subnormal, or a random significand.
      const int kind = trial % 4;
      const int e = f.emin + static_cast<int>(rng.Next() % 40) - 10;
      double r0;
      if (kind == 0) {
        r0 = std::ldexp(1.0, std::max(e, f.emin - f.precision + 1));
      } else if (kind == 1) {
        r0 = f.max_finite;
      } else {
        const double m = 1.0 + (rng.Next() % (1u << 20)) * 0x1p-20;
        r0 = RoundToFormatSlow(std::ldexp(m, e), f.precision, f.emin);
        if (r0 == 0) continue;
      }
      const int qe = std::max(std::ilogb(r0), f.emin) - f.precision + 1;
      // S = r0 + t * quantum, t in (-1, 1) in steps of 1/64 (midpoints at
      // t = +-1/2, and -1/4 below a power of two).
      const int step = static_cast<int>(rng.Next() % 127) - 63;
      const double s = r0 + std::ldexp(static_cast<double>(step), qe - 6);
      if (rng.Next() % 2) {
        const double neg = -s;
        const double got = VerifiedRound(neg, 0.0, std::fabs(neg), 1, f);
        const double want = RoundToFormatSlow(neg, f.precision, f.emin);
        if (!std::isnan(got)) {
          EXPECT_EQ(got, want) << "S " << neg;
          EXPECT_FALSE(midpoint(neg)) << "a midpoint decided: " << neg;
        }
        continue;
      }
      const double got = VerifiedRound(s, 0.0, std::fabs(s), 1, f);
      const double want = RoundToFormatSlow(s, f.precision, f.emin);
      if (std::fabs(want) > f.max_finite) {
        EXPECT_TRUE(std::isnan(got)) << "overflow decided: " << s;
        continue;
      }
      if (std::abs(step) <= 8 && kind >= 2) ++inner;
      midpoints += midpoint(s);
      if (std::isnan(got)) continue;
      ++decided;
      EXPECT_EQ(got, want) << "S " << s << " step " << step;
      EXPECT_FALSE(midpoint(s)) << "a midpoint decided: " << s;
    }
    // Values within 1/8 quantum of a random r0 are all decided (the bound
    // here is about 2^-51 |S|).
    EXPECT_GT(decided, inner) << f.precision;
    EXPECT_GT(midpoints, 100) << f.precision;
  }
}

// The four-lane verification (VerifiedRoundSum4) against VerifiedRound lane
// by lane, bit for bit (NaN where it is NaN), on the sums of the test
// above (sixty-fourths of a quantum around random values, powers of two,
// the largest finite value and subnormals, both signs) mixed with lanes
// the vector form hands over (zeros of both signs, double subnormals,
// inf, NaN, A = inf, A = 0 at exact midpoints, which round to even) and
// lane counts 1..16. With A = |S| x 2^-20 the bound is wide enough that
// many sums near a midpoint are undecided; every decided value is the
// ldexp / nearbyint rounding and no midpoint with A > 0 is decided (this
// fails when RoundInCell4's cell test is dropped).
TEST(DotFastPath, FourLaneVerificationEqualsTheScalarOne) {
  Lcg rng(2718);
  const FastRounding formats[] = {
      {24, -126, 0x1.fffffep127}, {8, -126, 0x1.fep127}, {11, -14, 65504.0}};
  for (const FastRounding& f : formats) {
    auto midpoint = [&f](double v) {
      return RoundToFormatSlow(std::nextafter(v, -INFINITY), f.precision,
                               f.emin) !=
             RoundToFormatSlow(std::nextafter(v, INFINITY), f.precision,
                               f.emin);
    };
    int decided = 0, undecided = 0, exact_midpoints = 0;
    for (int trial = 0; trial < 4000; ++trial) {
      const int64_t lanes = 1 + static_cast<int64_t>(rng.Next() % 16);
      const int64_t terms = 1 + static_cast<int64_t>(rng.Next() % 300);
      Sum4 st[4];
      double s[16], a[16];
      for (int j = 0; j < 16; ++j) {
        const int kind = static_cast<int>(rng.Next() % 12);
        const int e = f.emin + static_cast<int>(rng.Next() % 40) - 10;
        double r0 = f.max_finite;
        if (kind == 0) {
          r0 = std::ldexp(1.0, std::max(e, f.emin - f.precision + 1));
        } else if (kind >= 2) {
          const double m = 1.0 + (rng.Next() % (1u << 20)) * 0x1p-20;
          r0 = RoundToFormatSlow(std::ldexp(m, e), f.precision, f.emin);
        }
        const int qe = std::max(std::ilogb(r0), f.emin) - f.precision + 1;
        const int step = static_cast<int>(rng.Next() % 127) - 63;
        double sj = r0 + std::ldexp(static_cast<double>(step), qe - 6);
        if (rng.Next() % 2) sj = -sj;
        double aj = std::fabs(sj) * 0x1p-20;
        switch (kind) {
          case 3:  // exact sum (A = 0), often a midpoint
            aj = 0;
            break;
          case 4:
            sj = (rng.Next() % 2) ? 0.0 : -0.0;
            aj = (rng.Next() % 2) ? 0.0 : 1.0;
            break;
          case 5:
            sj = std::ldexp(1.0 + (rng.Next() % 1000) * 0x1p-10, -1030);
            break;
          case 6:
            sj = (rng.Next() % 2) ? INFINITY : -INFINITY;
            break;
          case 7:
            sj = std::numeric_limits<double>::quiet_NaN();
            break;
          case 8:
            aj = INFINITY;
            break;
          default:
            break;
        }
        s[j] = sj;
        a[j] = aj;
        // Split between the two chain sets exactly: s0 = s, s1 = -0.
        st[j / 4].s0[j % 4] = sj;
        st[j / 4].s1[j % 4] = -0.0;
        st[j / 4].a0[j % 4] = aj;
        st[j / 4].a1[j % 4] = 0.0;
      }
      double r[16];
      const uint32_t mask = VerifiedRoundSum4(st, 4, lanes, terms, f, r);
      for (int64_t j = 0; j < lanes; ++j) {
        const double want = VerifiedRoundPlain(s[j], a[j], terms, f);
        uint64_t got_bits, want_bits;
        std::memcpy(&got_bits, &r[j], 8);
        std::memcpy(&want_bits, &want, 8);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(r[j])) << "S " << s[j] << " A " << a[j];
          EXPECT_TRUE((mask >> j) & 1);
          ++undecided;
          continue;
        }
        EXPECT_EQ(got_bits, want_bits) << "S " << s[j] << " A " << a[j];
        EXPECT_FALSE((mask >> j) & 1);
        if (s[j] == 0) continue;
        ++decided;
        EXPECT_EQ(r[j], RoundToFormatSlow(s[j], f.precision, f.emin));
        if (a[j] > 0) {
          EXPECT_FALSE(midpoint(s[j])) << "a midpoint decided: " << s[j];
        } else {
          exact_midpoints += midpoint(s[j]);
        }
      }
      EXPECT_EQ(mask >> lanes, 0u);
    }
    EXPECT_GT(decided, 10000) << f.precision;
    EXPECT_GT(undecided, 5000) << f.precision;
    EXPECT_GT(exact_midpoints, 20) << f.precision;
  }
}

}  // namespace
}  // namespace hloref
