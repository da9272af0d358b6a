// Whole-program enclosures (interpreter/enclosure.h): bounds against
// hand-derived values and mpmath references (constants printed by
// interpreter/testdata/enclosure_refs.py, never by the code under test),
// implementations that legitimately differ from per-op rounding (FMA
// contraction, bf16 intermediates kept in f32; simulated here in plain
// C++, not with the oracle) pass, deliberately broken results fail, and
// ill-conditioned programs are unjudged, never passed.
#include "interpreter/enclosure.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "conformance/compare/enclosure_model.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

struct Enclosed {
  std::unique_ptr<HloModule> module;
  ModuleEnclosure enc;
  std::vector<Literal> oracle;  // the oracle's outputs, flattened
};

Enclosed Enclose(const char* text, const std::vector<std::string>& arg_texts,
                 int threads = 1) {
  Enclosed e;
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return e;
  e.module = *std::move(m);
  EXPECT_TRUE(VerifyModule(*e.module).ok());
  std::vector<Literal> args;
  for (const std::string& t : arg_texts) {
    auto lit = ParseLiteral(t);
    EXPECT_TRUE(lit.ok()) << lit.status();
    args.push_back(*std::move(lit));
  }
  EvaluatorOptions oracle;
  oracle.threads = threads;
  auto enc = ComputeEnclosure(*e.module, args,
                              conformance::PolicyEnclosureOptions(oracle));
  EXPECT_TRUE(enc.ok()) << enc.status();
  if (enc.ok()) e.enc = *std::move(enc);
  Evaluator ev(oracle);
  auto r = ev.Run(*e.module, args);
  EXPECT_TRUE(r.ok()) << r.status();
  if (r.ok()) {
    for (EvaluatedOutput& o : r->outputs)
      e.oracle.push_back(std::move(o.value));
  }
  return e;
}

EnclosureVerdict Judge(const Enclosed& e, const std::vector<Literal>& values) {
  auto v = JudgeWithEnclosure(e.enc, values);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : EnclosureVerdict{};
}

Literal FromDoubles(PrimitiveType type, std::vector<int64_t> dims,
                    const std::vector<double>& v) {
  Literal lit(Shape(type, dims));
  for (size_t i = 0; i < v.size(); ++i) lit.SetFromDouble(i, v[i]);
  return lit;
}

// Round-to-nearest-even f32 -> bf16 by bits (test-side, not the oracle).
float RoundBf16(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  if (std::isnan(x)) return x;
  b += 0x7fff + ((b >> 16) & 1);
  b &= 0xffff0000u;
  float r;
  std::memcpy(&r, &b, 4);
  return r;
}

// ---- Hand-derived bounds.

TEST(Enclosure, CorrectlyRoundedAddIsDirectedRoundingOfTheExactSum) {
  // 1 + 2^-30 in f32: the conforming results are RN_f32 = 1 and, kept in a
  // wider type, the exact 1 + 2^-30; the enclosure is [RD, RU] =
  // [1, 1 + 2^-23].
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
})",
                       {"f32[] 1", "f32[] 9.31322574615478515625e-10"});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  EXPECT_EQ(e.enc.outputs[0].lo[0], 1.0);
  EXPECT_EQ(e.enc.outputs[0].hi[0], 1.0 + std::ldexp(1.0, -23));
  // An exact sum stays a point.
  Enclosed p = Enclose(R"(
HloModule m
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
})",
                       {"f32[] 1.5", "f32[] 0.25"});
  EXPECT_EQ(p.enc.outputs[0].lo[0], 1.75);
  EXPECT_EQ(p.enc.outputs[0].hi[0], 1.75);
}

TEST(Enclosure, F64ProgramsAreEnclosedToo) {
  // f64: 1 + 2^-60 has RD = 1 and RU = 1 + 2^-52 (by hand); exp(1) with
  // the f64 budget of 2 ulp (ulp_f64(e) = 2^-51) spans at least 4 ulp and,
  // with the outward steps of the double arithmetic, at most 8.
  Enclosed e =
      Enclose(R"(
HloModule m
ENTRY main {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  s = f64[] add(a, b)
  x = f64[] exponential(a)
  ROOT t = (f64[], f64[]) tuple(s, x)
})",
              {"f64[] 1", "f64[] 8.67361737988403547205962240695953e-19"});
  EXPECT_EQ(e.enc.outputs[0].lo[0], 1.0);
  EXPECT_EQ(e.enc.outputs[0].hi[0], 1.0 + std::ldexp(1.0, -52));
  const double w = e.enc.outputs[1].hi[0] - e.enc.outputs[1].lo[0];
  EXPECT_GE(w, 4 * std::ldexp(1.0, -51));
  EXPECT_LE(w, 8 * std::ldexp(1.0, -51));
  EXPECT_LT(e.enc.outputs[1].lo[0], M_E);
  EXPECT_GT(e.enc.outputs[1].hi[0], M_E);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass + v.outputs[1].pass, 2) << v.Summary();
}

TEST(Enclosure, F32ExpWithinItsBudget) {
  // mpmath (enclosure_refs.py): exp(1) -+ 8 ulp_f32 =
  // [2.718279921110412422860287, 2.718283735807678047860287]; the enclosure
  // holds that interval and exceeds it by no more than the outward
  // rounding of double arithmetic (a few 1e-16).
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  x = f32[] parameter(0)
  ROOT y = f32[] exponential(x)
})",
                       {"f32[] 1"});
  const double lo = e.enc.outputs[0].lo[0], hi = e.enc.outputs[0].hi[0];
  EXPECT_LE(lo, 2.718279921110412422860287);
  EXPECT_GE(lo, 2.718279921110412422860287 - 4e-15);
  EXPECT_GE(hi, 2.718283735807678047860287);
  EXPECT_LE(hi, 2.718283735807678047860287 + 4e-15);
}

constexpr char kBf16Chain[] = R"(
HloModule chain
ENTRY main {
  x = bf16[4] parameter(0)
  sq = bf16[4] multiply(x, x)
  one = bf16[] constant(1)
  ones = bf16[4] broadcast(one), dimensions={}
  p = bf16[4] add(sq, ones)
  ROOT l = bf16[4] log(p)
})";

TEST(Enclosure, Bf16ChainContainsExactAndF32Intermediates) {
  Enclosed e = Enclose(kBf16Chain, {"bf16[4] {0.5, 1.5, -2.25, 3}"});
  const ArrayEnclosure& o = e.enc.outputs[0];
  // mpmath: log(x^2 + 1) exactly.
  const double exact[4] = {
      0.2231435513142097557662951, 1.178654996341646117219023,
      1.802122256263601584447793, 2.302585092994045684017991};
  for (int i = 0; i < 4; ++i) {
    EXPECT_LE(o.lo[i], exact[i]) << i;
    EXPECT_GE(o.hi[i], exact[i]) << i;
    // Per-op rounding: 1/2 ulp twice and 1 ulp of log in bf16 (2^-8
    // relative each): well under 2^-5 relative.
    EXPECT_LT(RelativeRadius(o, i), 0x1p-5) << i;
  }
  // Excess precision: everything in f32, one rounding to bf16 at the end.
  std::vector<double> f32_kept;
  for (float x : {0.5f, 1.5f, -2.25f, 3.0f}) {
    f32_kept.push_back(RoundBf16(std::log(x * x + 1.0f)));
  }
  EnclosureVerdict v =
      Judge(e, {FromDoubles(PrimitiveType::kBF16, {4}, f32_kept)});
  EXPECT_EQ(v.outputs[0].fail, 0) << v.Summary();
  EXPECT_EQ(v.outputs[0].pass, 4) << v.Summary();
  EnclosureVerdict ov = Judge(e, e.oracle);
  EXPECT_EQ(ov.outputs[0].pass, 4) << ov.Summary();
}

constexpr char kSoftmax[] = R"(
HloModule softmax
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[] reduce(x, ninf), dimensions={0}, to_apply=max_f32
  mxb = f32[4] broadcast(mx), dimensions={}
  d = f32[4] subtract(x, mxb)
  e = f32[4] exponential(d)
  zero = f32[] constant(0)
  s = f32[] reduce(e, zero), dimensions={0}, to_apply=add_f32
  sb = f32[4] broadcast(s), dimensions={}
  ROOT y = f32[4] divide(e, sb)
})";

TEST(Enclosure, F32SoftmaxContainsExact) {
  Enclosed e = Enclose(kSoftmax, {"f32[4] {1, 2, 3, 0.5}"});
  const ArrayEnclosure& o = e.enc.outputs[0];
  // mpmath softmax of {1, 2, 3, 0.5}.
  const double exact[4] = {
      0.0853688935097888934692968, 0.2320567119433144730474657,
      0.6307955432474668261252751, 0.05177885129942980735796242};
  for (int i = 0; i < 4; ++i) {
    EXPECT_LE(o.lo[i], exact[i]) << i;
    EXPECT_GE(o.hi[i], exact[i]) << i;
    // exp 8 ulp + sum gamma_4 + divide 1/2 ulp: under 2^-17 relative.
    EXPECT_LT(RelativeRadius(o, i), 0x1p-17) << i;
  }
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass, 4) << v.Summary();
}

// A bf16 layer norm as JAX writes it: statistics in f32, element-wise
// work in bf16.
constexpr char kLayerNorm[] = R"(
HloModule layer_norm
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = bf16[2,8] parameter(0)
  gamma = bf16[8] parameter(1)
  beta = bf16[8] parameter(2)
  xf = f32[2,8] convert(x)
  zero = f32[] constant(0)
  sum = f32[2] reduce(xf, zero), dimensions={1}, to_apply=add_f32
  n = f32[] constant(8)
  nb = f32[2] broadcast(n), dimensions={}
  meanf = f32[2] divide(sum, nb)
  mean = bf16[2] convert(meanf)
  meanb = bf16[2,8] broadcast(mean), dimensions={0}
  c = bf16[2,8] subtract(x, meanb)
  sq = bf16[2,8] multiply(c, c)
  sqf = f32[2,8] convert(sq)
  ss = f32[2] reduce(sqf, zero), dimensions={1}, to_apply=add_f32
  var = f32[2] divide(ss, nb)
  eps = f32[] constant(0.001)
  epsb = f32[2] broadcast(eps), dimensions={}
  ve = f32[2] add(var, epsb)
  rf = f32[2] rsqrt(ve)
  r = bf16[2] convert(rf)
  rb = bf16[2,8] broadcast(r), dimensions={0}
  nrm = bf16[2,8] multiply(c, rb)
  gb = bf16[2,8] broadcast(gamma), dimensions={1}
  bb = bf16[2,8] broadcast(beta), dimensions={1}
  sc = bf16[2,8] multiply(nrm, gb)
  ROOT out = bf16[2,8] add(sc, bb)
})";

const std::vector<std::string> kLayerNormArgs = {
    "bf16[2,8] {{1, 2, 3, 4, 5, 6, 7, 8}, {-3, 0.25, 2.5, -1.75, 4, -0.5, "
    "1.25, 3.5}}",
    "bf16[8] {1, 0.5, 2, -1, 1.5, 0.75, -0.25, 1}",
    "bf16[8] {0, 0.125, -0.5, 0.25, 0, 1, -1, 0.5}"};

// The layer norm as XLA:CPU may run it: every bf16 intermediate kept in
// f32 (excess precision), multiply-add contracted into an FMA, one
// rounding to bf16 at the end. Plain C++ floats, not the oracle.
std::vector<double> LayerNormExcessPrecision(bool sign_error) {
  const float x[2][8] = {{1, 2, 3, 4, 5, 6, 7, 8},
                         {-3, 0.25, 2.5, -1.75, 4, -0.5, 1.25, 3.5}};
  const float g[8] = {1, 0.5, 2, -1, 1.5, 0.75, -0.25, 1};
  const float b[8] = {0, 0.125, -0.5, 0.25, 0, 1, -1, 0.5};
  std::vector<double> out;
  for (int r = 0; r < 2; ++r) {
    float sum = 0;
    for (int i = 7; i >= 0; --i) sum += x[r][i];  // another order
    const float mean = sum / 8;
    float ss = 0;
    for (int i = 0; i < 8; ++i)
      ss = std::fma(x[r][i] - mean, x[r][i] - mean, ss);
    const float rs = 1.0f / std::sqrt(ss / 8 + 0.001f);
    for (int i = 0; i < 8; ++i) {
      float y = std::fma((x[r][i] - mean) * rs, g[i], b[i]);
      if (sign_error && r == 1 && i == 4) y = -y;
      out.push_back(RoundBf16(y));
    }
  }
  return out;
}

TEST(Enclosure, Bf16LayerNormExcessPrecisionAndFmaPass) {
  Enclosed e = Enclose(kLayerNorm, kLayerNormArgs);
  EnclosureVerdict v =
      Judge(e, {FromDoubles(PrimitiveType::kBF16, {2, 8},
                            LayerNormExcessPrecision(/*sign_error=*/false))});
  EXPECT_EQ(v.outputs[0].fail, 0) << v.Summary();
  EXPECT_EQ(v.outputs[0].pass, 16) << v.Summary();
  EXPECT_LT(v.outputs[0].max_relative_radius, 1.0 / 16) << v.Summary();
  EnclosureVerdict ov = Judge(e, e.oracle);
  EXPECT_EQ(ov.outputs[0].pass, 16) << ov.Summary();
}

TEST(Enclosure, ExactDataAccumulatesExactly) {
  // Multiples of 2^-2 with S = 10 < 2^(-2 + 24): every order's partial
  // sums are representable, so the sum is the point 1 - 2 + 3.25 + 3.75 = 6.
  // 0.1 + 0.2 (rounded f32 inputs) is not: the gamma bound applies.
  constexpr char kSum[] = R"(
HloModule r
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[] reduce(x, zero), dimensions={0}, to_apply=add_f32
})";
  Enclosed e = Enclose(kSum, {"f32[4] {1, -2, 3.25, 3.75}"});
  EXPECT_EQ(e.enc.outputs[0].lo[0], 6);
  EXPECT_EQ(e.enc.outputs[0].hi[0], 6);
  Enclosed w = Enclose(kSum, {"f32[4] {0.1, 0.2, 0, 0}"});
  EXPECT_LT(w.enc.outputs[0].lo[0], w.enc.outputs[0].hi[0]);
}

TEST(Enclosure, SignErrorFails) {
  Enclosed e = Enclose(kLayerNorm, kLayerNormArgs);
  EnclosureVerdict v =
      Judge(e, {FromDoubles(PrimitiveType::kBF16, {2, 8},
                            LayerNormExcessPrecision(/*sign_error=*/true))});
  EXPECT_EQ(v.outputs[0].fail, 1) << v.Summary();
  ASSERT_EQ(v.outputs[0].failures.size(), 1u);
  EXPECT_EQ(v.outputs[0].failures[0].index, "[1,4]");
  EXPECT_NE(v.outputs[0].failures[0].ToString().find("outside the enclosure"),
            std::string::npos);
}

TEST(Enclosure, WrongGatherIndexFails) {
  Enclosed e = Enclose(R"(
HloModule g
ENTRY main {
  table = f32[4,3] parameter(0)
  idx = s32[2] parameter(1)
  g = f32[2,3] gather(table, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
  two = f32[] constant(2)
  tb = f32[2,3] broadcast(two), dimensions={}
  ROOT m = f32[2,3] multiply(g, tb)
})",
                       {"f32[4,3] {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, "
                        "11, 12}}",
                        "s32[2] {2, 0}"});
  // Rows 2 and 0, doubled (exact: the enclosure is a point).
  EnclosureVerdict good = Judge(
      e, {FromDoubles(PrimitiveType::kF32, {2, 3}, {14, 16, 18, 2, 4, 6})});
  EXPECT_EQ(good.outputs[0].pass, 6) << good.Summary();
  EXPECT_EQ(good.outputs[0].max_relative_radius, 0);
  // Row 3 instead of row 2.
  EnclosureVerdict bad = Judge(
      e, {FromDoubles(PrimitiveType::kF32, {2, 3}, {20, 22, 24, 2, 4, 6})});
  EXPECT_EQ(bad.outputs[0].fail, 3) << bad.Summary();
}

TEST(Enclosure, DroppedNanFails) {
  Enclosed e = Enclose(R"(
HloModule n
ENTRY main {
  x = f32[3] parameter(0)
  two = f32[] constant(2)
  tb = f32[3] broadcast(two), dimensions={}
  m = f32[3] multiply(x, tb)
  ROOT a = f32[3] add(m, tb)
})",
                       {"f32[3] {1, nan, -1}"});
  const double nan = std::nan("");
  EnclosureVerdict good =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {3}, {4, nan, 0})});
  EXPECT_EQ(good.outputs[0].pass, 3) << good.Summary();
  EnclosureVerdict bad =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {3}, {4, 0, 0})});
  EXPECT_EQ(bad.outputs[0].fail, 1) << bad.Summary();
  EXPECT_NE(bad.outputs[0].failures[0].ToString().find("NaN"),
            std::string::npos);
}

TEST(Enclosure, Bf16AccumulationWhereF32WasAskedFails) {
  // bf16 x bf16 -> f32 dot of 256 terms: f32 accumulation is required.
  std::string xs = "bf16[256] {", ys = "bf16[256] {";
  std::vector<float> xv, yv;
  for (int i = 0; i < 256; ++i) {
    xv.push_back(RoundBf16(1.0f + i / 256.0f));
    yv.push_back(RoundBf16(0.75f + (i % 7) / 16.0f));
    absl::StrAppend(&xs, i ? ", " : "", xv.back());
    absl::StrAppend(&ys, i ? ", " : "", yv.back());
  }
  xs += "}";
  ys += "}";
  Enclosed e = Enclose(R"(
HloModule d
ENTRY main {
  x = bf16[256] parameter(0)
  y = bf16[256] parameter(1)
  ROOT d = f32[] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
                       {xs, ys});
  float f32_acc = 0, bf16_acc = 0;
  for (int i = 0; i < 256; ++i) {
    f32_acc = std::fma(xv[i], yv[i], f32_acc);
    bf16_acc = RoundBf16(bf16_acc + xv[i] * yv[i]);
  }
  EnclosureVerdict good =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {}, {f32_acc})});
  EXPECT_EQ(good.outputs[0].pass, 1) << good.Summary();
  EnclosureVerdict bad =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {}, {bf16_acc})});
  EXPECT_EQ(bad.outputs[0].fail, 1) << bad.Summary();
}

TEST(Enclosure, CancellationIsUnjudgedNotPassed) {
  // (x + 1e8) - 1e8 in f32: the sum rounds by up to 4, so x is lost.
  Enclosed e = Enclose(R"(
HloModule c
ENTRY main {
  x = f32[3] parameter(0)
  big = f32[] constant(1e8)
  bb = f32[3] broadcast(big), dimensions={}
  s = f32[3] add(x, bb)
  ROOT d = f32[3] subtract(s, bb)
})",
                       {"f32[3] {1, 2, 3}"});
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].fail, 0) << v.Summary();
  EXPECT_EQ(v.outputs[0].unjudged, 3) << v.Summary();
  EXPECT_EQ(v.outputs[0].wide, 3) << v.Summary();
  // Far outside even the wide enclosure is still a failure.
  EnclosureVerdict bad =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {3}, {1, 2, 100})});
  EXPECT_EQ(bad.outputs[0].fail, 1) << bad.Summary();
}

TEST(Enclosure, UndecidedSelectTakesTheUnionOfBothBranches) {
  // a + b is in [1, 1 + 2^-23]: "> 1" is undecided.
  Enclosed e = Enclose(R"(
HloModule s
ENTRY main {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  one = f32[] constant(1)
  p = pred[] compare(s, one), direction=GT
  t = f32[] constant(10)
  f = f32[] constant(20)
  ROOT r = f32[] select(p, t, f)
})",
                       {"f32[] 1", "f32[] 9.31322574615478515625e-10"});
  EXPECT_EQ(e.enc.outputs[0].lo[0], 10);
  EXPECT_EQ(e.enc.outputs[0].hi[0], 20);
  EXPECT_TRUE(e.enc.outputs[0].Judgeable(0));
}

TEST(Enclosure, WhileWithDecidedConditionAndUndecidedCondition) {
  constexpr char kLoop[] = R"(
HloModule w
cond {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  k = f32[] constant(1.1)
  y = f32[] multiply(x, k)
  ROOT t = (s32[], f32[]) tuple(j, y)
}
ENTRY main {
  x = f32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, x)
  ROOT w = (s32[], f32[]) while(init), condition=cond, body=body
})";
  Enclosed e = Enclose(kLoop, {"f32[] 2"});
  ASSERT_EQ(e.enc.outputs.size(), 2u);
  EXPECT_EQ(e.enc.outputs[0].ints[0], 3);
  // 2 * fl(1.1)^3 with fl(1.1) = 1.10000002384185791015625 (f32):
  // 2.6620001731109629... by hand; the enclosure holds it.
  const double k = 1.10000002384185791015625;
  EXPECT_LE(e.enc.outputs[1].lo[0], 2 * k * k * k);
  EXPECT_GE(e.enc.outputs[1].hi[0], 2 * k * k * k);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass + v.outputs[1].pass, 2) << v.Summary();
}

TEST(Enclosure, ConvolutionEnclosesTheExactResult) {
  // y[i] = x[i] + 0.5 x[i+1] = {2.5, 5, 7.5} by hand (exact);
  // 5.25 in place of 5 is outside.
  Enclosed e = Enclose(
      R"(
HloModule f
ENTRY main {
  x = f32[1,4,1] parameter(0)
  k = f32[2,1,1] parameter(1)
  ROOT c = f32[1,3,1] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f
})",
      {"f32[1,4,1] {{{1}, {3}, {4}, {7}}}", "f32[2,1,1] {{{1}}, {{0.5}}}"});
  const double exact[3] = {2.5, 5, 7.5};
  for (int i = 0; i < 3; ++i) {
    EXPECT_LE(e.enc.outputs[0].lo[i], exact[i]);
    EXPECT_GE(e.enc.outputs[0].hi[i], exact[i]);
    EXPECT_LT(RelativeRadius(e.enc.outputs[0], i), 1e-6);
  }
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass, 3) << v.Summary();
  EnclosureVerdict bad =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {1, 3, 1}, {2.5, 5.25, 7.5})});
  EXPECT_EQ(bad.outputs[0].fail, 1) << bad.Summary();
}

TEST(Enclosure, ReduceWindowAddAndMax) {
  // Windows of 2 over {1, 2.5, -3, 4}: sums {3.5, -0.5, 1}, maxima
  // {2.5, 2.5, 4} (by hand).
  constexpr char kWindows[] = R"(
HloModule w
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  s = f32[3] reduce-window(x, zero), window={size=2}, to_apply=add_f32
  m = f32[3] reduce-window(x, ninf), window={size=2}, to_apply=max_f32
  ROOT t = (f32[3], f32[3]) tuple(s, m)
})";
  Enclosed e = Enclose(kWindows, {"f32[4] {1, 2.5, -3, 4}"});
  ASSERT_EQ(e.enc.outputs.size(), 2u);
  const double sums[3] = {3.5, -0.5, 1};
  for (int i = 0; i < 3; ++i) {
    EXPECT_LE(e.enc.outputs[0].lo[i], sums[i]);
    EXPECT_GE(e.enc.outputs[0].hi[i], sums[i]);
  }
  EXPECT_EQ(e.enc.outputs[1].lo, (std::vector<double>{2.5, 2.5, 4}));
  EXPECT_EQ(e.enc.outputs[1].hi, (std::vector<double>{2.5, 2.5, 4}));
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass + v.outputs[1].pass, 6) << v.Summary();
}

TEST(Enclosure, PowerAndTan) {
  // mpmath (enclosure_refs.py): 1.5^2.5 = 2.755675960631075 and
  // tan(1) = 1.557407724654902 lie inside (f32 budgets: 8 ulp each).
  Enclosed e = Enclose(R"(
HloModule f
ENTRY main {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  a = f32[] add(x, y)
  p = f32[] power(x, a)
  t = f32[] tan(y)
  ROOT r = (f32[], f32[]) tuple(p, t)
})",
                       {"f32[] 1.5", "f32[] 1"});
  EXPECT_LE(e.enc.outputs[0].lo[0], 2.755675960631075);
  EXPECT_GE(e.enc.outputs[0].hi[0], 2.755675960631075);
  EXPECT_LE(e.enc.outputs[1].lo[0], 1.557407724654902);
  EXPECT_GE(e.enc.outputs[1].hi[0], 1.557407724654902);
  EXPECT_LT(RelativeRadius(e.enc.outputs[0], 0), 1e-5);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass + v.outputs[1].pass, 2) << v.Summary();
}

TEST(Enclosure, OpWithoutRuleIsUnjudgedAndNamed) {
  Enclosed e = Enclose(R"(
HloModule f
ENTRY main {
  x = f32[2,2] parameter(0)
  ROOT p = f32[2,2] cholesky(x), lower=true
})",
                       {"f32[2,2] {{4, 2}, {2, 5}}"});
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].unjudged, 4) << v.Summary();
  EXPECT_EQ(v.outputs[0].pass, 0);
  bool named = false;
  for (const std::string& r : v.outputs[0].reasons) {
    named |= r.find("cholesky has no enclosure rule") != std::string::npos;
  }
  EXPECT_TRUE(named) << v.Summary();
}

// ---- Rules added for ops that used to be unjudged.

// A copy of output k with element i replaced.
std::vector<Literal> WithElement(const std::vector<Literal>& values, size_t k,
                                 int64_t i, double v) {
  std::vector<Literal> out = values;
  out[k].SetFromDouble(i, v);
  return out;
}

TEST(Enclosure, Atan2WithinItsBudgetOverIntervals) {
  // y = a + b: 1 (point), [1, 1 + 2^-23] (1 + 2^-30 in f32), -1; x = 2, 2,
  // -2. mpmath (enclosure_refs.py): atan2(1, 2) = 0.46364760900080611621,
  // atan2(1 + 2^-23, 2) = 0.46364765668452079966, atan2(-1, -2) =
  // -2.6779450445889871222. Budget: 4 ulp_f32 (compare_policy.def); ulp in
  // [0.25, 0.5) is 2^-25, in [2, 4) 2^-22.
  Enclosed e =
      Enclose(R"(
HloModule m
ENTRY main {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  x = f32[3] parameter(2)
  y = f32[3] add(a, b)
  ROOT r = f32[3] atan2(y, x)
})",
              {"f32[3] {1, 1, -1}", "f32[3] {0, 9.31322574615478515625e-10, 0}",
               "f32[3] {2, 2, -2}"});
  const ArrayEnclosure& o = e.enc.outputs[0];
  const double u25 = std::ldexp(1.0, -25);
  EXPECT_LT(o.lo[0], 0.46364760900080611621);
  EXPECT_GT(o.hi[0], 0.46364760900080611621);
  EXPECT_LE(o.hi[0] - o.lo[0], 8 * u25 + 1e-15);
  EXPECT_GE(o.hi[0] - o.lo[0], 8 * u25 - 1e-15);
  EXPECT_LT(o.lo[1], 0.46364760900080611621);
  EXPECT_GT(o.hi[1], 0.46364765668452079966);
  EXPECT_LE(o.hi[1], 0.46364765668452079966 + 4 * u25 + 1e-15);
  EXPECT_LT(o.lo[2], -2.6779450445889871222);
  EXPECT_GT(o.hi[2], -2.6779450445889871222);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass, 3) << v.Summary();
  // A sign error and a value 16 ulp off fail.
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 0, -0.46364760900080611621))
                .outputs[0]
                .fail,
            1);
  EXPECT_EQ(
      Judge(e, WithElement(e.oracle, 0, 0, 0.46364760900080611621 + 16 * u25))
          .outputs[0]
          .fail,
      1);
}

TEST(Enclosure, RemainderIsExactWithinAPeriodAndUnjudgedAcrossOne) {
  // x = a + b in f32: [7, 7 + 2^-21], 5.5, [2 - 2^-23, 2]; fmod(x, 2) by
  // hand: [1, 1 + 2^-21], 1.5, and for the third, which straddles the
  // multiple 2 of the divisor, every value in [0, 2): unjudged.
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  d = f32[3] parameter(2)
  x = f32[3] add(a, b)
  ROOT r = f32[3] remainder(x, d)
})",
                       {"f32[3] {7, 5.5, 2}",
                        "f32[3] {9.31322574615478515625e-10, 0, "
                        "-9.31322574615478515625e-10}",
                        "f32[3] {2, 2, 2}"});
  const ArrayEnclosure& o = e.enc.outputs[0];
  EXPECT_EQ(o.lo[0], 1.0);
  EXPECT_EQ(o.hi[0], 1.0 + std::ldexp(1.0, -21));
  EXPECT_EQ(o.lo[1], 1.5);
  EXPECT_EQ(o.hi[1], 1.5);
  EXPECT_EQ(o.lo[2], 0.0);
  EXPECT_EQ(o.hi[2], 2.0);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass, 2) << v.Summary();
  EXPECT_EQ(v.outputs[0].unjudged, 1) << v.Summary();
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 1, 1.25)).outputs[0].fail, 1);
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 0, -1)).outputs[0].fail, 1);
}

// One HLO value, two values: XLA:CPU (jaxlib 0.10.2, default
// xla_allow_excess_precision) computes the bf16 `d` in f32 and drops its
// rounding for the use that converts it to f32 (`u`), while the bf16 add
// reads the rounded `d`. With one value per HLO value `r = 2 u - (d + d)`
// is exactly 0; XLA:CPU returns 2 (x c - RN_bf16(x c)): {0.00170898438,
// 0.00048828125, -0.00048828125, 0.0029296875, 0.00048828125,
// 0.0048828125, 0.005859375, 0.0029296875} for the x below (this module
// and x through tools/backends/xla_jax.py; docs/enclosures.md).
// The enclosures must hold both: every use of a rounded value may see a
// different member of its enclosure, so no rule may keep a correlation
// between two uses of one value (x - max(x) in a softmax, d in d * d).
constexpr char kOneValuePerUse[] = R"(
HloModule one_value_per_use
ENTRY main {
  x = bf16[8] parameter(0)
  c = bf16[] constant(0.30078125)
  cb = bf16[8] broadcast(c), dimensions={}
  d = bf16[8] multiply(x, cb)
  u = f32[8] convert(d)
  e = bf16[8] add(d, d)
  v = f32[8] convert(e)
  two = f32[] constant(2)
  twob = f32[8] broadcast(two), dimensions={}
  dbl = f32[8] multiply(u, twob)
  ROOT r = f32[8] subtract(dbl, v)
}
)";

TEST(Enclosure, EachUseOfARoundedValueMayDiffer) {
  // bf16 values, exact in the literal.
  const std::vector<float> x = {1.09375f, 1.3125f, 1.6875f, 2.875f,
                                3.3125f,  5.125f,  7.75f,   9.875f};
  std::string arg = "bf16[8] {";
  for (size_t i = 0; i < x.size(); ++i) {
    arg += (i ? ", " : "") + std::to_string(x[i]);
  }
  arg += "}";
  Enclosed e = Enclose(kOneValuePerUse, {arg});
  // XLA:CPU's values, by hand: x c is exact in f32 (8 x 8 bits), so
  // u = x c, d + d = 2 RN_bf16(x c) exactly, r = 2 (x c - RN_bf16(x c)).
  std::vector<double> excess;
  int nonzero = 0;
  for (float xi : x) {
    const float p = xi * 0.30078125f;
    excess.push_back(2.0 * (double{p} - double{RoundBf16(p)}));
    nonzero += excess.back() != 0;
  }
  EXPECT_EQ(excess[0], 0.001708984375);  // XLA:CPU's first element
  EXPECT_EQ(excess[2], -0.00048828125);
  EXPECT_GE(nonzero, 6);
  EnclosureVerdict xla =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {8}, excess)});
  EXPECT_EQ(xla.outputs[0].fail, 0) << xla.Summary();
  // The oracle's per-op value (one value per use: 0) is inside too; both
  // are unjudged (the enclosure of a cancellation), never passed.
  EnclosureVerdict ov = Judge(e, e.oracle);
  EXPECT_EQ(ov.outputs[0].fail, 0) << ov.Summary();
  EXPECT_EQ(ov.outputs[0].pass, 0) << ov.Summary();
  // Still a bound: a value 2^-4 away fails.
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 0, 0.0625)).outputs[0].fail, 1);
}

// Exactly zero addends round nothing: a bf16 sum of 4 nonzero values and
// 3 zeros (init 0) rounds at most 3 times along any path of any summation
// tree, so gamma_3(2^-8) S bounds every order, not gamma_7(2^-8) S.
constexpr char kSumWithZeros[] = R"(
HloModule sum_with_zeros
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  x = bf16[7] parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[] reduce(x, z), dimensions={0}, to_apply=add
}
)";

TEST(Enclosure, ZeroAddendsRoundNothing) {
  const std::vector<float> x = {3.25f,      0, 1.0078125f, 0,
                                1.0078125f, 0, 1.0078125f};
  Enclosed e =
      Enclose(kSumWithZeros,
              {"bf16[7] {3.25, 0, 1.0078125, 0, 1.0078125, 0, 1.0078125}"});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const double lo = e.enc.outputs[0].lo[0], hi = e.enc.outputs[0].hi[0];
  // Every order, by brute force in the test: all 8! permutations of the
  // addends (init included), summed left to right and as a balanced tree,
  // each addition rounded to bf16 (exact in f32 for these values, then
  // RoundBf16).
  std::vector<float> t = x;
  t.push_back(0);  // the init
  std::sort(t.begin(), t.end());
  auto add = [](float a, float b) { return RoundBf16(a + b); };
  double seen_lo = 1e9, seen_hi = -1e9;
  do {
    float acc = t[0];
    for (size_t i = 1; i < t.size(); ++i) acc = add(acc, t[i]);
    float p4[4], p2[2];
    for (int i = 0; i < 4; ++i) p4[i] = add(t[2 * i], t[2 * i + 1]);
    for (int i = 0; i < 2; ++i) p2[i] = add(p4[2 * i], p4[2 * i + 1]);
    const float tree = add(p2[0], p2[1]);
    for (float v : {acc, tree}) {
      EXPECT_GE(v, lo);
      EXPECT_LE(v, hi);
      seen_lo = std::min<double>(seen_lo, v);
      seen_hi = std::max<double>(seen_hi, v);
    }
  } while (std::next_permutation(t.begin(), t.end()));
  EXPECT_LT(seen_lo, seen_hi);  // the orders do differ
  // The orders give 6.25 and 6.28125 (numpy / ml_dtypes bf16 agrees).
  // The bound by hand: S = 6.2734375 (exact), gamma_3(2^-8) S = 0.0744,
  // so [6.1991, 6.3478] rounded out to bf16: [6.1875, 6.375]. gamma_7
  // would give +-0.176: [6.09375, 6.46875] (the rule before this one).
  EXPECT_EQ(lo, 6.1875);
  EXPECT_EQ(hi, 6.375);
  // 6.4375 lies inside gamma_7's bound and outside every order: it fails.
  EnclosureVerdict bad =
      Judge(e, {FromDoubles(PrimitiveType::kBF16, {}, {6.4375})});
  EXPECT_EQ(bad.outputs[0].fail, 1) << bad.Summary();
  EXPECT_EQ(Judge(e, e.oracle).outputs[0].pass, 1);
}

// Scatter-add and convolution count exactly zero terms out too, as reduce
// and dot. Both sum the multiset of ZeroAddendsRoundNothing ({3.25,
// 1.0078125 x 3} and zeros; every order of it is 6.25 or 6.28125,
// brute-forced there), so:
//   scatter: the operand's 0 and 7 updates, 4 nonzero addends: gamma_3
//     (2^-8) S, [6.1875, 6.375] as reduce (gamma_7, counting every update,
//     gave [6.09375, 6.46875]);
//   convolution of x = {3.25, 5, 1.0078125, 5, 1.0078125, 5, 1.0078125}
//     with w = {1, 0, 1, 0, 1, 0, 1}: 4 nonzero products, gamma_4(2^-8) S =
//     0.0996 by hand: [6.1739, 6.3730] rounded out to bf16 [6.15625,
//     6.375] (gamma_7 over the window: [6.09375, 6.46875]).
// 6.4375, inside both old bounds and outside every order, fails; both
// tests fail on the previous rules (checked by restoring the full counts).
TEST(Enclosure, ScatterAndConvolutionZeroTermsRoundNothing) {
  Enclosed sc =
      Enclose(R"(
HloModule m
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  op = bf16[2] parameter(0)
  idx = s32[7,1] parameter(1)
  upd = bf16[7] parameter(2)
  ROOT s = bf16[2] scatter(op, idx, upd), update_window_dims={},
    inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
    index_vector_dim=1, to_apply=add
})",
              {"bf16[2] {0, 1}", "s32[7,1] {{0}, {0}, {0}, {0}, {0}, {0}, {0}}",
               "bf16[7] {3.25, 0, 1.0078125, 0, 1.0078125, 0, "
               "1.0078125}"});
  ASSERT_EQ(sc.enc.outputs.size(), 1u);
  EXPECT_EQ(sc.enc.outputs[0].lo[0], 6.1875);
  EXPECT_EQ(sc.enc.outputs[0].hi[0], 6.375);
  EXPECT_EQ(sc.enc.outputs[0].lo[1], 1.0);  // untouched
  EXPECT_EQ(sc.enc.outputs[0].hi[1], 1.0);
  EXPECT_EQ(Judge(sc, {FromDoubles(PrimitiveType::kBF16, {2}, {6.4375, 1})})
                .outputs[0]
                .fail,
            1);
  for (double v : {6.25, 6.28125}) {
    EXPECT_EQ(Judge(sc, {FromDoubles(PrimitiveType::kBF16, {2}, {v, 1})})
                  .outputs[0]
                  .pass,
              2);
  }
  Enclosed cv = Enclose(R"(
HloModule m
ENTRY main {
  x = bf16[1,7,1] parameter(0)
  k = bf16[7,1,1] parameter(1)
  ROOT c = bf16[1,1,1] convolution(x, k), window={size=7}, dim_labels=b0f_0io->b0f
})",
                        {"bf16[1,7,1] {{{3.25}, {5}, {1.0078125}, {5}, "
                         "{1.0078125}, {5}, {1.0078125}}}",
                         "bf16[7,1,1] {{{1}}, {{0}}, {{1}}, {{0}}, {{1}}, "
                         "{{0}}, {{1}}}"});
  ASSERT_EQ(cv.enc.outputs.size(), 1u);
  EXPECT_EQ(cv.enc.outputs[0].lo[0], 6.15625);
  EXPECT_EQ(cv.enc.outputs[0].hi[0], 6.375);
  EXPECT_EQ(Judge(cv, {FromDoubles(PrimitiveType::kBF16, {1, 1, 1}, {6.4375})})
                .outputs[0]
                .fail,
            1);
  for (double v : {6.25, 6.28125}) {
    EXPECT_EQ(Judge(cv, {FromDoubles(PrimitiveType::kBF16, {1, 1, 1}, {v})})
                  .outputs[0]
                  .pass,
              1);
  }
  EXPECT_EQ(Judge(sc, sc.oracle).outputs[0].fail, 0);
  EXPECT_EQ(Judge(cv, cv.oracle).outputs[0].fail, 0);
}

// ---- The partial-sum bound (PartialSums in enclosure.cc).

// "{a, b, ...}" of doubles printed exactly enough for their type.
std::string Braced(const std::vector<double>& v) {
  std::vector<std::string> s;
  for (double x : v) s.push_back(absl::StrFormat("%.17g", x));
  return absl::StrCat("{", absl::StrJoin(s, ", "), "}");
}

// A summation order near the partial-sum bound, by hand. bf16 reduce of
// {256, 20 x 255/256, -256} with init 0, left to right: each 255/256 is
// below half an ulp of 256 (ulp 2) and is lost, then 256 - 256 = 0, while
// the exact sum is 20 x 255/256 = 19.921875: an error of 19.92.
//   Partial sums: n = 22 terms, P = 275.921875, N = 256, p_max = q_max =
//   256, so M(k) = 275.921875 for k >= 2 and sum_{k=2..22} M(k) =
//   5794.359375; the unit u' = 2^-8 (1 + 2^-7) (a node may round twice,
//   see PartialSums::Bound), (1 + u')^n <= 1 / (1 - 22 u'); bound =
//   u' / (1 - 22 u') 5794.36 = 24.974: [-5.052, 44.896], rounded out to
//   bf16 [-5.0625, 45].
//   gamma_21(2^-8) S (S = 531.921875, the previous rule) = 47.53:
//   [-27.625, 67.5].
// The left-to-right 0 is inside (unjudged: too wide); halving the node-sum
// bound (checked by breaking SumOfNodeBounds, then restored) gives [7.43, 32.4]
// and fails this test; 50 (inside gamma's bound, outside every order) fails.
TEST(Enclosure, PartialSumBoundByHandNearItsWorstOrder) {
  std::vector<double> x = {256};
  for (int i = 0; i < 20; ++i) x.push_back(255.0 / 256);
  x.push_back(-256);
  Enclosed e = Enclose(R"(
HloModule m
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  x = bf16[22] parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[] reduce(x, z), dimensions={0}, to_apply=add
})",
                       {absl::StrCat("bf16[22] ", Braced(x))});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  EXPECT_EQ(e.enc.outputs[0].lo[0], -5.0625);
  EXPECT_EQ(e.enc.outputs[0].hi[0], 45);
  float acc = 0;  // the init, then left to right in bf16
  for (double v : x) acc = RoundBf16(acc + static_cast<float>(v));
  EXPECT_EQ(acc, 0.0f);
  // Inside (not failed); relative radius 0.55, so unjudged, not passed.
  const EnclosureVerdict v =
      Judge(e, {FromDoubles(PrimitiveType::kBF16, {}, {acc})});
  EXPECT_EQ(v.outputs[0].fail, 0);
  EXPECT_EQ(v.outputs[0].unjudged, 1);
  EXPECT_EQ(
      Judge(e, {FromDoubles(PrimitiveType::kBF16, {}, {50})}).outputs[0].fail,
      1);
  EXPECT_EQ(Judge(e, e.oracle).outputs[0].fail, 0);

  // The same addends as a scatter-add of 22 updates into the operand's 0:
  // the same bound (P and N from scatters of the parts), the same
  // [-5.0625, 45]; 0 inside, 50 fails (with P and N halved in the
  // scatter rule, checked, then restored, 0 fails).
  std::vector<std::string> idx(22, "{0}");
  Enclosed sc =
      Enclose(R"(
HloModule m
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  op = bf16[1] parameter(0)
  idx = s32[22,1] parameter(1)
  upd = bf16[22] parameter(2)
  ROOT s = bf16[1] scatter(op, idx, upd), update_window_dims={},
    inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
    index_vector_dim=1, to_apply=add
})",
              {"bf16[1] {0}",
               absl::StrCat("s32[22,1] {", absl::StrJoin(idx, ", "), "}"),
               absl::StrCat("bf16[22] ", Braced(x))});
  ASSERT_EQ(sc.enc.outputs.size(), 1u);
  EXPECT_EQ(sc.enc.outputs[0].lo[0], -5.0625);
  EXPECT_EQ(sc.enc.outputs[0].hi[0], 45);
  EXPECT_EQ(Judge(sc, {FromDoubles(PrimitiveType::kBF16, {1}, {acc})})
                .outputs[0]
                .fail,
            0);
  EXPECT_EQ(
      Judge(sc, {FromDoubles(PrimitiveType::kBF16, {1}, {50})}).outputs[0].fail,
      1);
}

// Random bf16 row sums of both signs (40 rows of 40 terms in [-1, 1)):
// every order simulated here in plain C++ (left to right, reversed, a
// balanced tree, positives first then negatives, 20 random permutations,
// all rounded to bf16 per addition, and the f32 sum rounded once: excess
// precision) and the exact sum (exact in double: bf16 terms of exponents
// -8..0) lie inside, and the enclosure is at most 0.7 of the radius of
// gamma_39(2^-8) S (computed here from the terms), about half in fact.
TEST(Enclosure, PartialSumBoundHoldsEveryOrderOfRandomBf16Sums) {
  constexpr int kRows = 40, kN = 40;
  std::mt19937 rng(20);
  std::uniform_real_distribution<float> uni(-1, 1);
  std::vector<std::vector<double>> rows(kRows);
  std::vector<std::string> row_text;
  for (auto& r : rows) {
    for (int i = 0; i < kN; ++i) {
      float v = RoundBf16(uni(rng));
      if (v == 0) v = 0.5f;
      r.push_back(v);
    }
    row_text.push_back(Braced(r));
  }
  Enclosed e = Enclose(
      R"(
HloModule m
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  x = bf16[40,40] parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[40] reduce(x, z), dimensions={1}, to_apply=add
})",
      {absl::StrCat("bf16[40,40] {", absl::StrJoin(row_text, ", "), "}")});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const ArrayEnclosure& o = e.enc.outputs[0];
  auto add = [](float a, float b) { return RoundBf16(a + b); };
  std::function<float(const std::vector<float>&, size_t, size_t)> tree =
      [&](const std::vector<float>& t, size_t b, size_t n) -> float {
    if (n == 1) return t[b];
    return add(tree(t, b, n / 2), tree(t, b + n / 2, n - n / 2));
  };
  int checked = 0;
  double largest_ratio = 0;
  for (int j = 0; j < kRows; ++j) {
    std::vector<float> t(rows[j].begin(), rows[j].end());
    std::vector<std::vector<float>> orders = {t};
    orders.push_back(std::vector<float>(t.rbegin(), t.rend()));
    // Positives first, each group in its original order (copy_if, not
    // std::stable_partition, whose libstdc++ 12 form clang 19 -Werror
    // refuses; see topk_test.cc).
    std::vector<float> pos_first;
    std::copy_if(t.begin(), t.end(), std::back_inserter(pos_first),
                 [](float v) { return v > 0; });
    std::copy_if(t.begin(), t.end(), std::back_inserter(pos_first),
                 [](float v) { return !(v > 0); });
    orders.push_back(pos_first);
    for (int p = 0; p < 20; ++p) {
      std::shuffle(t.begin(), t.end(), rng);
      orders.push_back(t);
    }
    std::vector<double> values;
    for (const auto& ord : orders) {
      float acc = 0;
      for (float v : ord) acc = add(acc, v);
      values.push_back(acc);
      values.push_back(tree(ord, 0, ord.size()));
    }
    float f32 = 0;
    double exact = 0, s = 0;
    for (double v : rows[j]) {
      f32 += static_cast<float>(v);
      exact += v;
      s += std::fabs(v);
    }
    values.push_back(RoundBf16(f32));
    values.push_back(exact);
    for (double v : values) {
      EXPECT_GE(v, o.lo[j]) << "row " << j;
      EXPECT_LE(v, o.hi[j]) << "row " << j;
      ++checked;
    }
    const double u = 0x1p-8, m = kN - 1;
    const double gamma_s = m * u / (1 - m * u) * s;
    const double ratio = (o.hi[j] - o.lo[j]) / 2 / gamma_s;
    largest_ratio = std::max(largest_ratio, ratio);
    EXPECT_LT(ratio, 0.7) << "row " << j;
  }
  EXPECT_EQ(checked, kRows * 48);
  std::printf("partial-sum bound / gamma bound: largest %.3f\n", largest_ratio);
  EXPECT_EQ(Judge(e, e.oracle).outputs[0].fail, 0);
}

// Random f32 dots of 512 terms of both signs (as attention_block's
// projections): left to right, reversed, a balanced tree, an FMA chain,
// 10 random permutations (all in float) and the double sum rounded once
// (excess precision) lie inside, and so does the __float128 sum of the
// exact products (each exact in double); the radius is at most 0.6 of
// gamma_512(2^-24) S.
TEST(Enclosure, PartialSumBoundHoldsEveryOrderOfRandomF32Dots) {
  constexpr int kM = 4, kK = 512, kN = 4;
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> uni(-1, 1);
  std::vector<double> a(kM * kK), b(kK * kN);
  for (double& v : a) v = uni(rng);
  for (double& v : b) v = uni(rng);
  auto text = [](const std::vector<double>& v, int rows, int cols) {
    std::vector<std::string> r;
    for (int i = 0; i < rows; ++i) {
      r.push_back(Braced(std::vector<double>(v.begin() + i * cols,
                                             v.begin() + (i + 1) * cols)));
    }
    return absl::StrCat("{", absl::StrJoin(r, ", "), "}");
  };
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  a = f32[4,512] parameter(0)
  b = f32[512,4] parameter(1)
  ROOT d = f32[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                       {absl::StrCat("f32[4,512] ", text(a, kM, kK)),
                        absl::StrCat("f32[512,4] ", text(b, kK, kN))});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const ArrayEnclosure& o = e.enc.outputs[0];
  std::function<float(const std::vector<std::pair<float, float>>&, size_t,
                      size_t)>
      tree = [&](const std::vector<std::pair<float, float>>& t, size_t lo,
                 size_t n) -> float {
    if (n == 1) return t[lo].first * t[lo].second;
    return tree(t, lo, n / 2) + tree(t, lo + n / 2, n - n / 2);
  };
  int checked = 0;
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      std::vector<std::pair<float, float>> t;
      __float128 exact = 0;
      double f64 = 0, s = 0;
      for (int k = 0; k < kK; ++k) {
        const float x = a[i * kK + k], y = b[k * kN + j];
        t.push_back({x, y});
        exact += static_cast<__float128>(static_cast<double>(x) * y);
        f64 += static_cast<double>(x) * y;
        s += std::fabs(static_cast<double>(x) * y);
      }
      std::vector<std::vector<std::pair<float, float>>> orders = {t};
      orders.push_back({t.rbegin(), t.rend()});
      for (int p = 0; p < 10; ++p) {
        std::shuffle(t.begin(), t.end(), rng);
        orders.push_back(t);
      }
      std::vector<double> values;
      for (const auto& ord : orders) {
        float acc = 0, fma = 0;
        for (const auto& [x, y] : ord) {
          acc += x * y;
          fma = std::fma(x, y, fma);
        }
        values.push_back(acc);
        values.push_back(fma);
        values.push_back(tree(ord, 0, ord.size()));
      }
      values.push_back(static_cast<float>(f64));
      const int jj = i * kN + j;
      for (double v : values) {
        EXPECT_GE(v, o.lo[jj]);
        EXPECT_LE(v, o.hi[jj]);
        ++checked;
      }
      EXPECT_TRUE(static_cast<__float128>(o.lo[jj]) <= exact &&
                  exact <= static_cast<__float128>(o.hi[jj]));
      const double u = 0x1p-24;
      const double gamma_s = kK * u / (1 - kK * u) * s;
      EXPECT_LT((o.hi[jj] - o.lo[jj]) / 2, 0.6 * gamma_s) << jj;
    }
  }
  EXPECT_EQ(checked, kM * kN * 37);
  EXPECT_EQ(Judge(e, e.oracle).outputs[0].fail, 0);
}

// Convolution takes the partial-sum bound too (P and N from convolutions
// of the operands' positive and negative parts): a random f32 1-D
// convolution of 128 inputs with a 64-tap kernel, both of both signs (65
// outputs): each output summed in float forward, reversed, with FMAs, and
// in double rounded once lies inside, and so does the __float128 sum; the
// radius is below 0.8 of gamma_64(2^-24) S (0.75 at most here: max(P, N)
// is the larger side of each output's terms). Then an order near the
// bound, by hand.
TEST(Enclosure, ConvolutionPartialSumBoundHoldsEveryOrder) {
  constexpr int kX = 128, kW = 64, kOut = kX - kW + 1;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uni(-1, 1);
  std::vector<double> x(kX), w(kW);
  for (double& v : x) v = uni(rng);
  for (double& v : w) v = uni(rng);
  auto nested = [](const std::vector<double>& v, bool kernel) {
    std::vector<std::string> el;
    for (double d : v) {
      const std::string num = absl::StrFormat("%.9g", d);
      el.push_back(kernel ? absl::StrCat("{{", num, "}}")
                          : absl::StrCat("{", num, "}"));
    }
    return absl::StrCat(kernel ? "{" : "{{", absl::StrJoin(el, ", "),
                        kernel ? "}" : "}}");
  };
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  x = f32[1,128,1] parameter(0)
  k = f32[64,1,1] parameter(1)
  ROOT c = f32[1,65,1] convolution(x, k), window={size=64}, dim_labels=b0f_0io->b0f
})",
                       {absl::StrCat("f32[1,128,1] ", nested(x, false)),
                        absl::StrCat("f32[64,1,1] ", nested(w, true))});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const ArrayEnclosure& o = e.enc.outputs[0];
  double largest_ratio = 0;
  for (int j = 0; j < kOut; ++j) {
    float fwd = 0, rev = 0, fma = 0;
    double f64 = 0, s = 0;
    __float128 exact = 0;
    for (int k = 0; k < kW; ++k) {
      const float a = x[j + k], b = w[k];
      fwd += a * b;
      fma = std::fma(a, b, fma);
      f64 += double{a} * b;
      s += std::fabs(double{a} * b);
      exact += static_cast<__float128>(double{a} * b);
    }
    for (int k = kW - 1; k >= 0; --k) {
      rev += static_cast<float>(x[j + k]) * static_cast<float>(w[k]);
    }
    for (double v : {double{fwd}, double{rev}, double{fma},
                     double{static_cast<float>(f64)}}) {
      EXPECT_GE(v, o.lo[j]) << j;
      EXPECT_LE(v, o.hi[j]) << j;
    }
    EXPECT_TRUE(static_cast<__float128>(o.lo[j]) <= exact &&
                exact <= static_cast<__float128>(o.hi[j]));
    const double u = 0x1p-24;
    const double ratio = (o.hi[j] - o.lo[j]) / 2 / (kW * u / (1 - kW * u) * s);
    largest_ratio = std::max(largest_ratio, ratio);
  }
  EXPECT_LT(largest_ratio, 0.8);
  std::printf("convolution: partial-sum radius / gamma radius <= %.3f\n",
              largest_ratio);
  EXPECT_EQ(Judge(e, e.oracle).outputs[0].fail, 0);
  // Near its worst order, by hand (PartialSumBoundByHandNearItsWorstOrder's
  // data as a bf16 convolution with 22 unit weights): the products are
  // exact, left to right gives 0 for the exact 19.921875. S = 531.921875,
  // n = 22, P = 275.921875 (p_max over the operands 256), so (S + 21 P)
  // u' / (1 - 22 u') = 27.267 (u' = 2^-8 (1 + 2^-7)): [-7.345, 47.189],
  // rounded out to bf16 [-7.375, 47.25] (gamma_22 S = 50.0: [-30.1, 69.9]). 0
  // is inside (wide: unjudged); with P and N halved (checked, then restored) 0
  // fails; 50 fails.
  std::vector<double> hx = {256};
  for (int i = 0; i < 20; ++i) hx.push_back(255.0 / 256);
  hx.push_back(-256);
  Enclosed h =
      Enclose(R"(
HloModule m
ENTRY main {
  x = bf16[1,22,1] parameter(0)
  k = bf16[22,1,1] parameter(1)
  ROOT c = bf16[1,1,1] convolution(x, k), window={size=22}, dim_labels=b0f_0io->b0f
})",
              {absl::StrCat("bf16[1,22,1] ", nested(hx, false)),
               absl::StrCat("bf16[22,1,1] ",
                            nested(std::vector<double>(22, 1), true))});
  ASSERT_EQ(h.enc.outputs.size(), 1u);
  EXPECT_EQ(h.enc.outputs[0].lo[0], -7.375);
  EXPECT_EQ(h.enc.outputs[0].hi[0], 47.25);
  float acc = 0;
  for (double v : hx) acc = RoundBf16(acc + static_cast<float>(v));
  EXPECT_EQ(acc, 0.0f);
  EXPECT_EQ(Judge(h, {FromDoubles(PrimitiveType::kBF16, {1, 1, 1}, {acc})})
                .outputs[0]
                .fail,
            0);
  EXPECT_EQ(Judge(h, {FromDoubles(PrimitiveType::kBF16, {1, 1, 1}, {50})})
                .outputs[0]
                .fail,
            1);
}

// reduce-window add counts exactly zero addends out too: the window of 7
// holding ZeroAddendsRoundNothing's data (every order of it is 6.25 or
// 6.28125, brute-forced there) gets the same [6.1875, 6.375] (gamma_3 by
// hand; the full window count gave gamma_7's [6.09375, 6.46875]); 6.4375
// fails.
TEST(Enclosure, ReduceWindowZeroAddendsRoundNothing) {
  Enclosed e = Enclose(R"(
HloModule m
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  x = bf16[7] parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[1] reduce-window(x, z), window={size=7}, to_apply=add
})",
                       {"bf16[7] {3.25, 0, 1.0078125, 0, 1.0078125, 0, "
                        "1.0078125}"});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  EXPECT_EQ(e.enc.outputs[0].lo[0], 6.1875);
  EXPECT_EQ(e.enc.outputs[0].hi[0], 6.375);
  EXPECT_EQ(Judge(e, {FromDoubles(PrimitiveType::kBF16, {1}, {6.4375})})
                .outputs[0]
                .fail,
            1);
  EXPECT_EQ(Judge(e, e.oracle).outputs[0].pass, 1);
}

// A dot with zero products (a ReLU's zeros): gamma of the nonzero
// products. f32 [1 + 2^-23, 0, 0, 0, 1 + 2^-22] . [1 + 2^-23, 5, 7, 9,
// 1 + 2^-23]: exact 2 + 3 2^-23 + 2^-45 + 2^-46, S the same; 2 nonzero
// products: gamma_2(2^-24) S = 2.4e-7 < 2 ulp_f32(2), so the enclosure is
// [RD(2 + 3 2^-23 - 2.4e-7), RU(...)] = [2 - 2^-22 ... ], 4 ulps wide at
// most; gamma_5 would reach 2.5 ulps each side.
constexpr char kDotWithZeros[] = R"(
HloModule dot_with_zeros
ENTRY main {
  a = f32[5] parameter(0)
  b = f32[5] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
)";

TEST(Enclosure, ZeroProductsRoundNothing) {
  const double u = std::ldexp(1.0, -24);
  const double one = 1 + std::ldexp(1.0, -23);
  const double exact = one * one + (1 + std::ldexp(1.0, -22)) * one;
  Enclosed e =
      Enclose(kDotWithZeros, {"f32[5] {1.00000012, 0, 0, 0, 1.00000024}",
                              "f32[5] {1.00000012, 5, 7, 9, 1.00000012}"});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const double lo = e.enc.outputs[0].lo[0], hi = e.enc.outputs[0].hi[0];
  EXPECT_LE(lo, exact);
  EXPECT_GE(hi, exact);
  const double g2 = 2 * u / (1 - 2 * u), g5 = 5 * u / (1 - 5 * u);
  // Within gamma_2 S plus the final directed rounding (one f32 ulp of 2
  // each side), and strictly tighter than gamma_5 S would be.
  const double ulp2 = std::ldexp(1.0, -22);
  EXPECT_GE(lo, exact - g2 * exact - ulp2);
  EXPECT_LE(hi, exact + g2 * exact + ulp2);
  EXPECT_LT(hi - lo, 2 * g5 * exact);
}

// Zero products counted out, against every order: random bf16 dots of 6
// terms with about 40% zeros; every permutation of the products summed
// left to right with bf16 rounding after each product and each addition
// (the widest conforming evaluation), and the exact sum rounded once (a
// wider accumulator), must lie inside the enclosure. Magnitudes in
// [0.25, 2] keep every f32 sum of two bf16 values here exact, so
// RoundBf16(a + b) is the correctly rounded bf16 sum.
TEST(Enclosure, ZeroProductsHoldEveryOrderOnRandomData) {
  constexpr char kDot6[] = R"(
HloModule dot6
ENTRY main {
  a = bf16[6] parameter(0)
  b = bf16[6] parameter(1)
  ROOT d = bf16[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
)";
  std::mt19937 rng(20);
  std::uniform_real_distribution<float> mag(0.25f, 2.0f);
  std::bernoulli_distribution zero(0.4), neg(0.5);
  int orders_differ = 0;
  for (int c = 0; c < 30; ++c) {
    std::vector<float> a(6), b(6);
    for (int i = 0; i < 6; ++i) {
      a[i] = zero(rng) ? 0 : RoundBf16(neg(rng) ? -mag(rng) : mag(rng));
      b[i] = zero(rng) ? 0 : RoundBf16(neg(rng) ? -mag(rng) : mag(rng));
    }
    auto lit = [](const std::vector<float>& v) {
      std::string t = "bf16[6] {";
      for (size_t i = 0; i < v.size(); ++i) {
        t += absl::StrCat(i ? ", " : "", v[i]);
      }
      return t + "}";
    };
    Enclosed e = Enclose(kDot6, {lit(a), lit(b)});
    ASSERT_EQ(e.enc.outputs.size(), 1u);
    const double lo = e.enc.outputs[0].lo[0], hi = e.enc.outputs[0].hi[0];
    std::vector<float> p(6);
    double exact = 0;
    for (int i = 0; i < 6; ++i) {
      p[i] = RoundBf16(a[i] * b[i]);  // a[i] * b[i] is exact in f32
      exact += double{a[i]} * double{b[i]};
    }
    const float once = RoundBf16(static_cast<float>(exact));
    EXPECT_GE(once, lo) << "case " << c;
    EXPECT_LE(once, hi) << "case " << c;
    std::vector<int> idx = {0, 1, 2, 3, 4, 5};
    float first = 0;
    bool differ = false, any = false;
    do {
      float acc = p[idx[0]];
      for (int k = 1; k < 6; ++k) acc = RoundBf16(acc + p[idx[k]]);
      EXPECT_GE(acc, lo) << "case " << c;
      EXPECT_LE(acc, hi) << "case " << c;
      if (any && acc != first) differ = true;
      if (!any) first = acc, any = true;
    } while (std::next_permutation(idx.begin(), idx.end()));
    orders_differ += differ;
  }
  EXPECT_GE(orders_differ, 3);  // the check sees order effects
}

TEST(Enclosure, ReducePrecisionRoundsTheEnds) {
  // x = a + b in f32: [1, 1 + 2^-23] and [1 + 2^-8, 1 + 2^-8 + 2^-23];
  // rounded to 7 mantissa bits (by hand): 1 + 2^-23 -> 1; 1 + 2^-8 is the
  // tie between 1 and 1 + 2^-7 (even: 1), just above it -> 1 + 2^-7.
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  x = f32[2] add(a, b)
  ROOT r = f32[2] reduce-precision(x), exponent_bits=8, mantissa_bits=7
})",
                       {"f32[2] {1, 1.00390625}",
                        "f32[2] {9.31322574615478515625e-10, "
                        "9.31322574615478515625e-10}"});
  const ArrayEnclosure& o = e.enc.outputs[0];
  EXPECT_EQ(o.lo[0], 1.0);
  EXPECT_EQ(o.hi[0], 1.0);
  EXPECT_EQ(o.lo[1], 1.0);
  EXPECT_EQ(o.hi[1], 1.0078125);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass, 2) << v.Summary();
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 0, 1.0078125)).outputs[0].fail,
            1);
}

TEST(Enclosure, MapAppliesTheComputationsRules) {
  // x * x + 1 in f32 (by hand): 1.5 -> 3.25 and 3 -> 10 exactly; 4097:
  // 4097^2 = 16785409 needs 25 bits, so x * x is in [16785408, 16785410]
  // and + 1 gives [RD(16785409), RU(16785411)] = [16785408, 16785412].
  Enclosed e = Enclose(R"(
HloModule m
sq1 {
  x = f32[] parameter(0)
  m = f32[] multiply(x, x)
  one = f32[] constant(1)
  ROOT r = f32[] add(m, one)
}
ENTRY main {
  a = f32[3] parameter(0)
  ROOT r = f32[3] map(a), dimensions={0}, to_apply=sq1
})",
                       {"f32[3] {1.5, 3, 4097}"});
  const ArrayEnclosure& o = e.enc.outputs[0];
  EXPECT_EQ(o.lo[0], 3.25);
  EXPECT_EQ(o.hi[0], 3.25);
  EXPECT_EQ(o.lo[1], 10.0);
  EXPECT_EQ(o.hi[1], 10.0);
  EXPECT_EQ(o.lo[2], 16785408.0);
  EXPECT_EQ(o.hi[2], 16785412.0);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass, 3) << v.Summary();
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 2, 16785416)).outputs[0].fail, 1);
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 0, 3.5)).outputs[0].fail, 1);
}

TEST(Enclosure, ReduceMultiplyWithinGammaOfTheExactProduct) {
  // prod(1.1f, 1.3f, 0.7f, 1.9f) (mpmath, enclosure_refs.py) =
  // 1.9018999152064320810; gamma_4(2^-24) |P| gives [1.9018994617580485936,
  // 1.9019003686548155685], then one f32 ulp (2^-23) of directed rounding
  // at most. A zero factor gives exactly 0; factors whose sub-products may
  // underflow are unjudged.
  Enclosed e = Enclose(R"(
HloModule m
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] multiply(a, b)
}
ENTRY main {
  x = f32[3,4] parameter(0)
  one = f32[] constant(1)
  ROOT r = f32[3] reduce(x, one), dimensions={1}, to_apply=mul
})",
                       {"f32[3,4] {{1.1, 1.3, 0.7, 1.9}, {3, 0, 5, 7}, "
                        "{1e-30, 1e-30, 1e-30, 1e30}}"});
  const ArrayEnclosure& o = e.enc.outputs[0];
  const double u23 = std::ldexp(1.0, -23);
  EXPECT_LT(o.lo[0], 1.9018999152064320810);
  EXPECT_GT(o.hi[0], 1.9018999152064320810);
  EXPECT_GE(o.lo[0], 1.9018994617580485936 - u23);
  EXPECT_LE(o.hi[0], 1.9019003686548155685 + u23);
  EXPECT_EQ(o.lo[1], 0.0);
  EXPECT_EQ(o.hi[1], 0.0);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass, 2) << v.Summary();
  EXPECT_EQ(v.outputs[0].unjudged, 1) << v.Summary();
  EXPECT_EQ(
      Judge(e, WithElement(e.oracle, 0, 0,
                           1.9018999152064320810 * (1 + std::ldexp(1.0, -20))))
          .outputs[0]
          .fail,
      1);
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 1, 1)).outputs[0].fail, 1);
}

TEST(Enclosure, SortOfRoundedKeysPermutesTheEnclosures) {
  // keys = a + b in f32: [3, 3 + 2^-22], [1, 1 + 2^-23], 1, 2; payload
  // 10..13. By hand: the sorted keys lie in the order statistics of the
  // ends: [1, 1], [1, 1 + 2^-23], [2, 2], [3, 3 + 2^-22]; the two keys
  // near 1 overlap, so the payloads at positions 0 and 1 are undecided,
  // positions 2 and 3 hold 13 and 10.
  Enclosed e = Enclose(R"(
HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  p = s32[4] parameter(2)
  k = f32[4] add(a, b)
  ROOT s = (f32[4], s32[4]) sort(k, p), dimensions={0}, is_stable=true,
    to_apply=less
})",
                       {"f32[4] {3, 1, 1, 2}",
                        "f32[4] {9.31322574615478515625e-10, "
                        "9.31322574615478515625e-10, 0, 0}",
                        "s32[4] {10, 11, 12, 13}"});
  const ArrayEnclosure& k = e.enc.outputs[0];
  EXPECT_EQ(k.lo, (std::vector<double>{1, 1, 2, 3}));
  EXPECT_EQ(k.hi, (std::vector<double>{1, 1 + std::ldexp(1.0, -23), 2,
                                       3 + std::ldexp(1.0, -22)}));
  const ArrayEnclosure& p = e.enc.outputs[1];
  EXPECT_FALSE(p.Judgeable(0));
  EXPECT_FALSE(p.Judgeable(1));
  EXPECT_EQ(p.ints[2], 13);
  EXPECT_EQ(p.ints[3], 10);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass, 4) << v.Summary();
  EXPECT_EQ(v.outputs[1].pass, 2) << v.Summary();
  EXPECT_EQ(v.outputs[1].unjudged, 2) << v.Summary();
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 1, 3, 13)).outputs[1].fail, 1);
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 2, 3)).outputs[0].fail, 1);
}

// Key arithmetic: compare(negate(a), negate(b)), LT sorts descending (the
// data of SortOfRoundedKeysPermutesTheEnclosures). By hand: keys [3, 3 +
// 2^-22], [2, 2], [1, 1 + 2^-23], [1, 1]; payloads 10 and 13 decided, the
// two near 1 undecided; the same enclosures as compare(a, b), GT, and in a
// lexicographic comparator too. Ignoring the negations (checked, then
// restored) sorts ascending and fails this.
TEST(Enclosure, SortKeyNegationReversesTheOrder) {
  constexpr char kSort[] = R"(
HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  %s
}
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  p = s32[4] parameter(2)
  k = f32[4] add(a, b)
  ROOT s = (f32[4], s32[4]) sort(k, p), dimensions={0}, is_stable=true,
    to_apply=less
})";
  const std::vector<std::string> args = {
      "f32[4] {3, 1, 1, 2}",
      "f32[4] {9.31322574615478515625e-10, 9.31322574615478515625e-10, 0, 0}",
      "s32[4] {10, 11, 12, 13}"};
  auto with = [&](const char* body) {
    return Enclose(absl::StrReplaceAll(kSort, {{"%s", body}}).c_str(), args);
  };
  Enclosed neg = with(
      "na = f32[] negate(a)\n  nb = f32[] negate(b)\n"
      "  ROOT lt = pred[] compare(na, nb), direction=LT");
  Enclosed gt = with("ROOT gt = pred[] compare(a, b), direction=GT");
  Enclosed lex = with(
      "na = f32[] negate(a)\n  nb = f32[] negate(b)\n"
      "  lt = pred[] compare(na, nb), direction=LT\n"
      "  eq = pred[] compare(na, nb), direction=EQ\n"
      "  lt2 = pred[] compare(c, d), direction=LT\n"
      "  both = pred[] and(eq, lt2)\n"
      "  ROOT r = pred[] or(lt, both)");
  ASSERT_EQ(neg.enc.outputs.size(), 2u);
  const ArrayEnclosure& k = neg.enc.outputs[0];
  EXPECT_EQ(k.lo, (std::vector<double>{3, 2, 1, 1}));
  EXPECT_EQ(k.hi, (std::vector<double>{3 + std::ldexp(1.0, -22), 2,
                                       1 + std::ldexp(1.0, -23), 1}));
  const ArrayEnclosure& p = neg.enc.outputs[1];
  EXPECT_EQ(p.ints[0], 10);
  EXPECT_EQ(p.ints[1], 13);
  EXPECT_FALSE(p.Judgeable(2));
  EXPECT_FALSE(p.Judgeable(3));
  for (const Enclosed* other : {&gt, &lex}) {
    ASSERT_EQ(other->enc.outputs.size(), 2u);
    EXPECT_EQ(other->enc.outputs[0].lo, k.lo);
    EXPECT_EQ(other->enc.outputs[0].hi, k.hi);
    EXPECT_EQ(other->enc.outputs[0].flags, k.flags);
    EXPECT_EQ(other->enc.outputs[1].flags, p.flags);
  }
  EXPECT_EQ(lex.enc.outputs[1].ints[0], 10);
  EXPECT_EQ(lex.enc.outputs[1].ints[1], 13);
  EnclosureVerdict v = Judge(neg, neg.oracle);
  EXPECT_EQ(v.outputs[0].fail + v.outputs[1].fail, 0) << v.Summary();
  EXPECT_EQ(v.outputs[1].pass, 2) << v.Summary();
  EXPECT_EQ(Judge(neg, WithElement(neg.oracle, 1, 0, 13)).outputs[1].fail, 1);
}

// A two-key lexicographic sort (primary key x, exact, drawn from four
// values so that it ties often; secondary key z = bf16 y * 0.296875, an
// interval of one bf16 ulp; payload the index), in JAX's comparator form
// or(lt(x), and(eq(x), lt(z))) and in XLA's select(ne(x), lt(x), lt(z)),
// stable. The reference sorts here, independently of the oracle, with z
// rounded per op and z kept in f32 (excess precision): the primary keys
// must be inside their enclosures everywhere, and where the enclosure
// decides a payload or a secondary key, both sorts must agree with it.
TEST(Enclosure, MultiKeySortHoldsBothRoundingsOnRandomData) {
  constexpr char kJax[] = R"(
HloModule m
less {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  c = bf16[] parameter(2)
  d = bf16[] parameter(3)
  e = s32[] parameter(4)
  f = s32[] parameter(5)
  lt0 = pred[] compare(a, b), direction=LT, type=TOTALORDER
  eq0 = pred[] compare(a, b), direction=EQ, type=TOTALORDER
  lt1 = pred[] compare(c, d), direction=LT, type=TOTALORDER
  both = pred[] and(eq0, lt1)
  ROOT r = pred[] or(lt0, both)
}
ENTRY main {
  x = bf16[12] parameter(0)
  y = bf16[12] parameter(1)
  p = s32[12] iota(), iota_dimension=0
  c = bf16[] constant(0.296875)
  cb = bf16[12] broadcast(c), dimensions={}
  z = bf16[12] multiply(y, cb)
  ROOT s = (bf16[12], bf16[12], s32[12]) sort(x, z, p), dimensions={0},
    is_stable=true, to_apply=less
})";
  const std::string xla = absl::StrReplaceAll(
      kJax, {{"  both = pred[] and(eq0, lt1)\n  ROOT r = pred[] or(lt0, both)",
              "  ne0 = pred[] compare(a, b), direction=NE, type=TOTALORDER\n"
              "  ROOT r = pred[] select(ne0, lt0, lt1)"}});
  const float c = 0.296875f;  // exact in bf16
  const float choices[4] = {-1, 0.5, 2, 3};
  std::mt19937 rng(22);
  std::uniform_int_distribution<int> pick(0, 3);
  std::uniform_real_distribution<float> mag(0.5f, 4.0f);
  std::bernoulli_distribution neg(0.5);
  int decided = 0, checked = 0;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<float> x(12), y(12);
    std::string xt = "bf16[12] {", yt = "bf16[12] {";
    for (int i = 0; i < 12; ++i) {
      x[i] = choices[pick(rng)];
      y[i] = RoundBf16(neg(rng) ? -mag(rng) : mag(rng));
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%s%.9g", i ? ", " : "", x[i]);
      xt += buf;
      std::snprintf(buf, sizeof(buf), "%s%.9g", i ? ", " : "", y[i]);
      yt += buf;
    }
    xt += "}";
    yt += "}";
    for (const char* text : {kJax, xla.c_str()}) {
      Enclosed e = Enclose(text, {xt, yt});
      ASSERT_EQ(e.enc.outputs.size(), 3u);
      for (bool excess : {false, true}) {
        std::vector<float> z(12);
        for (int i = 0; i < 12; ++i) {
          z[i] = excess ? y[i] * c : RoundBf16(y[i] * c);
        }
        std::vector<int> order(12);
        for (int i = 0; i < 12; ++i) order[i] = i;
        // Stable: the index breaks remaining ties (std::sort, not
        // std::stable_sort, whose libstdc++ 12 form is an error under the
        // sanitizer build's clang 19 -Werror; see topk_test.cc).
        std::sort(order.begin(), order.end(), [&](int a, int b) {
          if (x[a] != x[b]) return x[a] < x[b];
          if (z[a] != z[b]) return z[a] < z[b];
          return a < b;
        });
        for (int p = 0; p < 12; ++p) {
          const int q = order[p];
          EXPECT_LE(e.enc.outputs[0].lo[p], x[q]) << trial << " " << p;
          EXPECT_GE(e.enc.outputs[0].hi[p], x[q]) << trial << " " << p;
          // z kept in f32 is not a bf16 value; its enclosure holds it.
          if (e.enc.outputs[1].Judgeable(p)) {
            EXPECT_LE(e.enc.outputs[1].lo[p], z[q]) << trial << " " << p;
            EXPECT_GE(e.enc.outputs[1].hi[p], z[q]) << trial << " " << p;
          }
          if (e.enc.outputs[2].Judgeable(p)) {
            EXPECT_EQ(e.enc.outputs[2].ints[p], q) << trial << " " << p;
            decided += !excess;
          }
          ++checked;
        }
      }
      EnclosureVerdict v = Judge(e, e.oracle);
      EXPECT_EQ(v.TotalFail(), 0) << v.Summary();
      // Swapping two adjacent decided payloads fails both.
      for (int p = 0; p + 1 < 12; ++p) {
        if (e.enc.outputs[2].Judgeable(p) &&
            e.enc.outputs[2].Judgeable(p + 1)) {
          std::vector<Literal> bad =
              WithElement(e.oracle, 2, p, e.enc.outputs[2].ints[p + 1]);
          bad[2].SetFromDouble(p + 1, e.enc.outputs[2].ints[p]);
          EXPECT_EQ(Judge(e, bad).outputs[2].fail, 2) << trial << " " << p;
          break;
        }
      }
    }
  }
  EXPECT_EQ(checked, 20 * 2 * 2 * 12);
  // Most positions are decided (ties on x broken by disjoint z).
  EXPECT_GT(decided, 20 * 2 * 12 / 2);
}

TEST(Enclosure, TopKOfRoundedValues) {
  // x = a + b in f32: 1, [5, 5 + 2^-21], 3, 5; top 3 (by hand): values
  // [5, 5 + 2^-21], [5, 5], [3, 3]; indices: the two near 5 overlap
  // (undecided), then 2.
  Enclosed e = Enclose(
      R"(
HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  x = f32[4] add(a, b)
  ROOT t = (f32[3], s32[3]) topk(x), k=3, largest=true
})",
      {"f32[4] {1, 5, 3, 5}", "f32[4] {0, 9.31322574615478515625e-10, 0, 0}"});
  const ArrayEnclosure& v = e.enc.outputs[0];
  EXPECT_EQ(v.lo, (std::vector<double>{5, 5, 3}));
  EXPECT_EQ(v.hi, (std::vector<double>{5 + std::ldexp(1.0, -21), 5, 3}));
  const ArrayEnclosure& i = e.enc.outputs[1];
  EXPECT_FALSE(i.Judgeable(0));
  EXPECT_FALSE(i.Judgeable(1));
  EXPECT_EQ(i.ints[2], 2);
  EnclosureVerdict verdict = Judge(e, e.oracle);
  EXPECT_EQ(verdict.outputs[0].pass, 3) << verdict.Summary();
  EXPECT_EQ(verdict.outputs[1].pass, 1) << verdict.Summary();
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 1, 2, 0)).outputs[1].fail, 1);
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 0, 3)).outputs[0].fail, 1);
}

TEST(Enclosure, ArgmaxIndexExactWhenTheMaximumIsDecided) {
  // Row 0: 1, 4, 2, 3 -> max 4 at index 1 (decided). Row 1: 4,
  // [4, 4 + 2^-21] (4 + 2^-30 in f32), 1, 2: the maximum is in
  // [4, 4 + 2^-21] and its index (0 or 1) undecided. By hand.
  Enclosed e = Enclose(R"(
HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lti = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lti)
  pa = pred[] or(gt, tie)
  v = f32[] select(pa, av, bv)
  i = s32[] select(pa, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  a = f32[2,4] parameter(0)
  b = f32[2,4] parameter(1)
  x = f32[2,4] add(a, b)
  io = s32[2,4] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  m1 = s32[] constant(-1)
  ROOT r = (f32[2], s32[2]) reduce(x, io, ninf, m1), dimensions={1},
    to_apply=argmax
})",
                       {"f32[2,4] {{1, 4, 2, 3}, {4, 4, 1, 2}}",
                        "f32[2,4] {{0, 0, 0, 0}, "
                        "{0, 9.31322574615478515625e-10, 0, 0}}"});
  const ArrayEnclosure& v = e.enc.outputs[0];
  EXPECT_EQ(v.lo, (std::vector<double>{4, 4}));
  EXPECT_EQ(v.hi, (std::vector<double>{4, 4 + std::ldexp(1.0, -21)}));
  const ArrayEnclosure& i = e.enc.outputs[1];
  EXPECT_TRUE(i.Judgeable(0));
  EXPECT_EQ(i.ints[0], 1);
  EXPECT_FALSE(i.Judgeable(1));
  EnclosureVerdict verdict = Judge(e, e.oracle);
  EXPECT_EQ(verdict.outputs[0].pass, 2) << verdict.Summary();
  EXPECT_EQ(verdict.outputs[1].pass, 1) << verdict.Summary();
  EXPECT_EQ(verdict.outputs[1].unjudged, 1) << verdict.Summary();
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 1, 0, 3)).outputs[1].fail, 1);
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 0, 3)).outputs[0].fail, 1);
}

TEST(Enclosure, RoundedArgumentsStandForTheirRoundingPreimage) {
  // bf16 1 (by hand): the neighbours are 1 - 2^-8 and 1 + 2^-7, so the
  // reals rounding to 1 are [1 - 2^-9, 1 + 2^-8]; argument 1 (not listed)
  // stays exact.
  auto m = ParseHloModule(R"(
HloModule m
ENTRY main {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT t = (bf16[], bf16[]) tuple(a, b)
})");
  ASSERT_TRUE(m.ok());
  std::vector<Literal> args;
  args.push_back(*ParseLiteral("bf16[] 1"));
  args.push_back(*ParseLiteral("bf16[] 1"));
  EnclosureOptions options = conformance::PolicyEnclosureOptions();
  options.rounded_arguments = {0};
  auto enc = ComputeEnclosure(**m, args, options);
  ASSERT_TRUE(enc.ok()) << enc.status();
  EXPECT_EQ(enc->outputs[0].lo[0], 1 - std::ldexp(1.0, -9));
  EXPECT_EQ(enc->outputs[0].hi[0], 1 + std::ldexp(1.0, -8));
  EXPECT_EQ(enc->outputs[1].lo[0], 1.0);
  EXPECT_EQ(enc->outputs[1].hi[0], 1.0);
}

TEST(Enclosure, DotAlgorithmModelsItsInputPrecision) {
  // x = 1 + 2^-10 (4 times), y = 1: the exact dot is 4.00390625; with
  // inputs rounded to bf16 (dot_bf16_bf16_f32) x becomes 1 and the result
  // 4 (by hand). E_in = (2 2^-8 + 2^-16) S ~ 0.0313 admits it; without an
  // algorithm the data is exact and only 4.00390625 conforms; under
  // bf16_x3 (two bf16 halves hold 1 + 2^-10 exactly, E_in ~ 2^-16 S) 4 is
  // 0.0039 away, far outside, and fails.
  auto text = [](const std::string& alg) {
    return absl::StrCat(R"(
HloModule m
ENTRY main {
  x = f32[1,4] parameter(0)
  y = f32[4,1] parameter(1)
  ROOT d = f32[1,1] dot(x, y), lhs_contracting_dims={1},
    rhs_contracting_dims={0})",
                        alg.empty() ? "" : ", algorithm=", alg, "\n}");
  };
  const std::vector<std::string> args = {
      "f32[1,4] {{1.0009765625, 1.0009765625, 1.0009765625, 1.0009765625}}",
      "f32[4,1] {{1}, {1}, {1}, {1}}"};
  const std::vector<Literal> bf16_result = {
      FromDoubles(PrimitiveType::kF32, {1, 1}, {4})};
  const std::vector<Literal> exact_result = {
      FromDoubles(PrimitiveType::kF32, {1, 1}, {4.00390625})};
  Enclosed plain = Enclose(text("").c_str(), args);
  EXPECT_EQ(plain.enc.outputs[0].lo[0], 4.00390625);
  EXPECT_EQ(plain.enc.outputs[0].hi[0], 4.00390625);
  EXPECT_EQ(Judge(plain, bf16_result).outputs[0].fail, 1);
  Enclosed bf16 = Enclose(text("dot_bf16_bf16_f32").c_str(), args);
  EXPECT_EQ(Judge(bf16, bf16_result).outputs[0].pass, 1);
  EXPECT_EQ(Judge(bf16, exact_result).outputs[0].pass, 1);
  EXPECT_EQ(Judge(bf16, {FromDoubles(PrimitiveType::kF32, {1, 1}, {3.9})})
                .outputs[0]
                .fail,
            1);
  Enclosed x3 = Enclose(text("dot_bf16_bf16_f32_x3").c_str(), args);
  EXPECT_EQ(Judge(x3, exact_result).outputs[0].pass, 1);
  EXPECT_EQ(Judge(x3, bf16_result).outputs[0].fail, 1);
  // An algorithm without a model stays without a rule.
  Enclosed fast = Enclose(text("dot_any_f8_any_f32_fast_accum").c_str(), args);
  EXPECT_EQ(Judge(fast, exact_result).outputs[0].unjudged, 1);
}

TEST(Enclosure, ScatterAddBoundsEveryOrderOfOverlappingUpdates) {
  // Element 0 receives 1 + 2^24 - 2^24 in an unspecified order: f32 gives
  // 0 ((1 + 2^24) rounds to 2^24) or 1 (by hand); both lie inside, and the
  // enclosure (radius gamma_2(2^-24) S, S ~ 2^25) is too wide to judge.
  // Element 2: 3 + 0.1f = 3.1000000015 exactly, within a few f32 ulps;
  // element 1 is untouched: the point 2. A max combiner is exact.
  constexpr char kScatter[] = R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] %s(a, b)
}
ENTRY main {
  op = f32[3] parameter(0)
  idx = s32[3,1] parameter(1)
  upd = f32[3] parameter(2)
  ROOT s = f32[3] scatter(op, idx, upd), update_window_dims={},
    inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
    index_vector_dim=1, to_apply=add
})";
  const std::vector<std::string> args = {"f32[3] {1, 2, 3}",
                                         "s32[3,1] {{0}, {0}, {2}}",
                                         "f32[3] {16777216, -16777216, 0.1}"};
  Enclosed e =
      Enclose(absl::StrReplaceAll(kScatter, {{"%s", "add"}}).c_str(), args);
  const ArrayEnclosure& o = e.enc.outputs[0];
  EXPECT_LE(o.lo[0], 0.0);
  EXPECT_GE(o.hi[0], 1.0);
  EXPECT_EQ(o.lo[1], 2.0);
  EXPECT_EQ(o.hi[1], 2.0);
  const double u22 = std::ldexp(1.0, -22);  // ulp_f32 in [2, 4)
  EXPECT_LT(o.lo[2], 3.1000000014901161);
  EXPECT_GT(o.hi[2], 3.1000000014901161);
  EXPECT_LE(o.hi[2] - o.lo[2], 4 * u22);
  for (double first : {0.0, 1.0}) {
    EnclosureVerdict v =
        Judge(e, {FromDoubles(PrimitiveType::kF32, {3}, {first, 2, 3.1f})});
    EXPECT_EQ(v.outputs[0].fail, 0) << v.Summary();
    EXPECT_EQ(v.outputs[0].pass, 2) << v.Summary();
    EXPECT_EQ(v.outputs[0].unjudged, 1) << v.Summary();
  }
  EXPECT_EQ(Judge(e, {FromDoubles(PrimitiveType::kF32, {3}, {1, 2, 3.2})})
                .outputs[0]
                .fail,
            1);
  Enclosed mx =
      Enclose(absl::StrReplaceAll(kScatter, {{"%s", "maximum"}}).c_str(), args);
  EXPECT_EQ(mx.enc.outputs[0].lo, (std::vector<double>{16777216, 2, 3}));
  EXPECT_EQ(mx.enc.outputs[0].hi, (std::vector<double>{16777216, 2, 3}));
  EXPECT_EQ(Judge(mx, mx.oracle).outputs[0].pass, 3);
}

// The oracle is a conforming implementation: on random data its values
// must lie inside the new rules' enclosures (0 fail), with the operands
// made intervals by an inexact f32 add first (x + 2^-30 x-ish terms).
TEST(Enclosure, NewRulesHoldTheOracleOnRandomData) {
  constexpr char kModule[] = R"(
HloModule r
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] multiply(a, b)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lti = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lti)
  pa = pred[] or(gt, tie)
  v = f32[] select(pa, av, bv)
  i = s32[] select(pa, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
sq1 {
  x = f32[] parameter(0)
  m = f32[] multiply(x, x)
  ROOT r = f32[] subtract(m, x)
}
ENTRY main {
  a = f32[2,6] parameter(0)
  b = f32[2,6] parameter(1)
  idx = s32[4,1] parameter(2)
  x = f32[2,6] add(a, b)
  y = f32[2,6] multiply(b, a)
  at = f32[2,6] atan2(x, y)
  rm = f32[2,6] remainder(x, b)
  rp = f32[2,6] reduce-precision(x), exponent_bits=5, mantissa_bits=4
  mp = f32[2,6] map(x), dimensions={0,1}, to_apply=sq1
  io = s32[2,6] iota(), iota_dimension=1
  st = (f32[2,6], s32[2,6]) sort(x, io), dimensions={1}, is_stable=true,
    to_apply=less
  tk = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
  ninf = f32[] constant(-inf)
  m1 = s32[] constant(-1)
  am = (f32[2], s32[2]) reduce(x, io, ninf, m1), dimensions={1},
    to_apply=argmax
  one = f32[] constant(1)
  pr = f32[2] reduce(x, one), dimensions={1}, to_apply=mul
  fl = f32[12] reshape(x)
  up = f32[4] slice(fl), slice={[0:4]}
  sc = f32[12] scatter(fl, idx, up), update_window_dims={},
    inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
    index_vector_dim=1, to_apply=add
  s2 = f32[2] constant({1.5, -0.5})
  o2 = f32[2] constant({0.25, 1})
  xt = f32[6,2] transpose(x), dimensions={1,0}
  bn = (f32[6,2], f32[2], f32[2]) batch-norm-training(xt, s2, o2),
    epsilon=0.001, feature_index=1
  bm = f32[2] get-tuple-element(bn), index=1
  bv = f32[2] get-tuple-element(bn), index=2
  by = f32[6,2] get-tuple-element(bn), index=0
  bg = (f32[6,2], f32[2], f32[2]) batch-norm-grad(xt, s2, bm, bv, by),
    epsilon=0.001, feature_index=1
  ROOT t = (f32[2,6], f32[2,6], f32[2,6], f32[2,6], (f32[2,6], s32[2,6]),
    (f32[2,3], s32[2,3]), (f32[2], s32[2]), f32[2], f32[12],
    (f32[6,2], f32[2], f32[2]), (f32[6,2], f32[2], f32[2]))
    tuple(at, rm, rp, mp, st, tk, am, pr, sc, bn, bg)
})";
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> big(-4, 4), small(-1e-6f, 1e-6f);
  std::uniform_int_distribution<int> pick(0, 11), coin(0, 3);
  int64_t pass = 0, unjudged = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<std::string> a, b, idx;
    for (int i = 0; i < 12; ++i) {
      // Some repeated keys, so sort / topk / argmax meet ties and overlaps.
      a.push_back(absl::StrCat(coin(rng) == 0 ? 1.5f : big(rng)));
      b.push_back(absl::StrCat(coin(rng) == 0 ? 0.0f : small(rng)));
    }
    for (int i = 0; i < 4; ++i)
      idx.push_back(absl::StrCat("{", pick(rng), "}"));
    Enclosed e = Enclose(
        kModule,
        {absl::StrCat("f32[2,6] {{",
                      absl::StrJoin(a.begin(), a.begin() + 6, ", "), "}, {",
                      absl::StrJoin(a.begin() + 6, a.end(), ", "), "}}"),
         absl::StrCat("f32[2,6] {{",
                      absl::StrJoin(b.begin(), b.begin() + 6, ", "), "}, {",
                      absl::StrJoin(b.begin() + 6, b.end(), ", "), "}}"),
         absl::StrCat("s32[4,1] {", absl::StrJoin(idx, ", "), "}")});
    EnclosureVerdict v = Judge(e, e.oracle);
    EXPECT_EQ(v.TotalFail(), 0) << "trial " << trial << "\n" << v.Summary();
    for (const EnclosureOutputVerdict& o : v.outputs) pass += o.pass;
    unjudged += v.TotalUnjudged();
  }
  std::printf("new rules on random data: %lld pass, %lld unjudged, 0 fail\n",
              static_cast<long long>(pass), static_cast<long long>(unjudged));
  EXPECT_GT(pass, 60 * 40);
}

TEST(Enclosure, BatchNormTrainingStatisticsAndOutput) {
  // x = 1, 2, 3, 4 (one feature), scale 1, offset 0, epsilon 0 (mpmath,
  // enclosure_refs.py): mean 2.5, variance 1.25, outputs -+1.34164078649987
  // and -+0.447213595499958. Bessel's variance 5/3 (outputs
  // -+1.16189500386223, -+0.387298334620742) is a real bug and fails.
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  x = f32[4,1] parameter(0)
  s = f32[1] constant({1})
  o = f32[1] constant({0})
  ROOT bn = (f32[4,1], f32[1], f32[1]) batch-norm-training(x, s, o),
    epsilon=0, feature_index=1
})",
                       {"f32[4,1] {{1}, {2}, {3}, {4}}"});
  ASSERT_EQ(e.enc.outputs.size(), 3u);
  const double ys[4] = {-1.3416407864998738178, -0.44721359549995793928,
                        0.44721359549995793928, 1.3416407864998738178};
  for (int i = 0; i < 4; ++i) {
    EXPECT_LT(e.enc.outputs[0].lo[i], ys[i]);
    EXPECT_GT(e.enc.outputs[0].hi[i], ys[i]);
    // The comparator's training bound (E_var = 4 gamma_8 (Q + S1^2) with
    // Q = 7.5, S1^2 = 6.25, doubled terms): measured 5e-5 .. 2.6e-4.
    EXPECT_LT(RelativeRadius(e.enc.outputs[0], i), 1e-3);
  }
  EXPECT_LE(e.enc.outputs[1].lo[0], 2.5);
  EXPECT_GE(e.enc.outputs[1].hi[0], 2.5);
  EXPECT_LE(e.enc.outputs[2].lo[0], 1.25);
  EXPECT_GE(e.enc.outputs[2].hi[0], 1.25);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.TotalFail(), 0) << v.Summary();
  EXPECT_EQ(v.outputs[0].pass + v.outputs[1].pass + v.outputs[2].pass, 6)
      << v.Summary();
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 2, 0, 5.0 / 3)).outputs[2].fail, 1);
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 3, 1.1618950038622250656))
                .outputs[0]
                .fail,
            1);
}

TEST(Enclosure, BatchNormGradByHand) {
  // x = 1..4, mean 2.5, variance 1.25, scale 1, epsilon 0, dy = 1, 0, 0, 0
  // (by hand, checked with mpmath in enclosure_refs.py): grad_offset 1,
  // grad_scale -1.5 r = -1.3416407864998738178, grad_operand r (0.3, -0.4,
  // -0.1, 0.2) with r = 1/sqrt(1.25). Dropping the mean terms (dy scale r:
  // 0.894 for the first) is a real bug and fails.
  Enclosed e = Enclose(
      R"(
HloModule m
ENTRY main {
  x = f32[4,1] parameter(0)
  dy = f32[4,1] parameter(1)
  s = f32[1] constant({1})
  mu = f32[1] constant({2.5})
  v = f32[1] constant({1.25})
  ROOT g = (f32[4,1], f32[1], f32[1]) batch-norm-grad(x, s, mu, v, dy),
    epsilon=0, feature_index=1
})",
      {"f32[4,1] {{1}, {2}, {3}, {4}}", "f32[4,1] {{1}, {0}, {0}, {0}}"});
  ASSERT_EQ(e.enc.outputs.size(), 3u);
  const double gx[4] = {
      0.2683281572999747635691008, -0.3577708763999663514254678,
      -0.08944271909999158785636695, 0.1788854381999831757127339};
  for (int i = 0; i < 4; ++i) {
    EXPECT_LT(e.enc.outputs[0].lo[i], gx[i]) << i;
    EXPECT_GT(e.enc.outputs[0].hi[i], gx[i]) << i;
  }
  EXPECT_LT(e.enc.outputs[1].lo[0], -1.3416407864998738178);
  EXPECT_GT(e.enc.outputs[1].hi[0], -1.3416407864998738178);
  EXPECT_LE(e.enc.outputs[2].lo[0], 1.0);
  EXPECT_GE(e.enc.outputs[2].hi[0], 1.0);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.TotalFail(), 0) << v.Summary();
  EXPECT_EQ(v.outputs[0].pass + v.outputs[1].pass + v.outputs[2].pass, 6)
      << v.Summary();
  EXPECT_EQ(Judge(e, WithElement(e.oracle, 0, 0, 0.894427190999915878563669))
                .outputs[0]
                .fail,
            1);
}

TEST(Enclosure, ReduceWindowMultiplyOfPositiveAndNegativeData) {
  // Window products of adjacent pairs of 1.1f, 1.3f, 0.7f, 1.9f (mpmath,
  // enclosure_refs.py): 1.4299999785423267440, 0.90999995112419185261,
  // 1.3299999606609347325; the bound is gamma_2(2^-24) |P| (two products
  // with the init) plus one f32 ulp of directed rounding. With -1.3f in
  // place of 1.3f the first two products change sign (the f32 products are
  // exact in f64: 24 + 24 bits).
  constexpr char kWindow[] = R"(
HloModule m
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] multiply(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  one = f32[] constant(1)
  ROOT r = f32[3] reduce-window(x, one), window={size=2}, to_apply=mul
})";
  Enclosed e = Enclose(kWindow, {"f32[4] {1.1, 1.3, 0.7, 1.9}"});
  const double p[3] = {1.4299999785423267440, 0.90999995112419185261,
                       1.3299999606609347325};
  for (int i = 0; i < 3; ++i) {
    EXPECT_LT(e.enc.outputs[0].lo[i], p[i]) << i;
    EXPECT_GT(e.enc.outputs[0].hi[i], p[i]) << i;
    EXPECT_LT(RelativeRadius(e.enc.outputs[0], i), 1e-6) << i;
  }
  EXPECT_EQ(Judge(e, e.oracle).outputs[0].pass, 3);
  EXPECT_EQ(
      Judge(e, WithElement(e.oracle, 0, 1, p[1] * (1 + std::ldexp(1.0, -18))))
          .outputs[0]
          .fail,
      1);
  Enclosed neg = Enclose(kWindow, {"f32[4] {1.1, -1.3, 0.7, 1.9}"});
  const double q[3] = {double{1.1f} * double{-1.3f},
                       double{-1.3f} * double{0.7f},
                       double{0.7f} * double{1.9f}};
  for (int i = 0; i < 3; ++i) {
    EXPECT_LT(neg.enc.outputs[0].lo[i], q[i]) << i;
    EXPECT_GT(neg.enc.outputs[0].hi[i], q[i]) << i;
    EXPECT_LT(RelativeRadius(neg.enc.outputs[0], i), 1e-6) << i;
  }
  EXPECT_EQ(Judge(neg, neg.oracle).outputs[0].pass, 3);
  EXPECT_EQ(Judge(neg, WithElement(neg.oracle, 0, 0, -q[0])).outputs[0].fail,
            1);
}

// Every product order of a bf16 reduce-window with a multiply reducer, on
// random data of both signs, lies inside the enclosure. The operand is
// y = bf16 x * 0.296875 (each y an interval of one bf16 ulp); the windows are
// size 3, stride 1, padding 1_1 (the edge windows hold two elements), the
// init -1.25. Values are computed here, independently of the oracle: y per
// op (rounded to bf16) and kept in f32 (excess precision); then for each
// window every permutation of its factors (the init included) multiplied
// left to right with bf16 rounding after each product, the balanced tree
// (a b)(c d), and the product in f32 rounded to bf16 once. A product
// 2^-4 away (relative) from the f64 product of the per-op y fails: the
// bound is gamma_3(2^-8) ~ 0.012 relative plus the operand intervals.
TEST(Enclosure, ReduceWindowMultiplyHoldsEveryOrderOnRandomData) {
  constexpr char kWindow[] = R"(
HloModule m
mul {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT m = bf16[] multiply(a, b)
}
ENTRY main {
  x = bf16[8] parameter(0)
  c = bf16[] constant(0.296875)
  cb = bf16[8] broadcast(c), dimensions={}
  y = bf16[8] multiply(x, cb)
  init = bf16[] constant(-1.25)
  ROOT r = bf16[8] reduce-window(y, init), window={size=3 pad=1_1},
    to_apply=mul
})";
  const float c = 0.296875f, init = -1.25f;  // both exact in bf16
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> mag(0.5f, 4.0f);
  std::bernoulli_distribution neg(0.5);
  int checked = 0, failed_broken = 0;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<float> x(8);
    std::string text = "bf16[8] {";
    for (int i = 0; i < 8; ++i) {
      x[i] = RoundBf16(neg(rng) ? -mag(rng) : mag(rng));
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%s%.9g", i ? ", " : "", x[i]);
      text += buf;
    }
    text += "}";
    Enclosed e = Enclose(kWindow, {text});
    ASSERT_EQ(e.enc.outputs.size(), 1u);
    const ArrayEnclosure& o = e.enc.outputs[0];
    for (int j = 0; j < 8; ++j) {
      for (bool excess : {false, true}) {
        std::vector<float> f = {init};
        for (int i = j - 1; i <= j + 1; ++i) {
          if (i < 0 || i >= 8) continue;
          const float yi = x[i] * c;  // exact in f32 (8 + 8 bits)
          f.push_back(excess ? yi : RoundBf16(yi));
        }
        std::vector<float> results;
        std::vector<int> perm(f.size());
        for (size_t k = 0; k < perm.size(); ++k) perm[k] = k;
        do {
          float acc = f[perm[0]];
          for (size_t k = 1; k < perm.size(); ++k) {
            acc = RoundBf16(acc * f[perm[k]]);
          }
          results.push_back(acc);
        } while (std::next_permutation(perm.begin(), perm.end()));
        if (f.size() == 4) {
          results.push_back(
              RoundBf16(RoundBf16(f[0] * f[1]) * RoundBf16(f[2] * f[3])));
        }
        float wide = 1;
        for (float v : f) wide *= v;
        results.push_back(RoundBf16(wide));
        for (float r : results) {
          EXPECT_LE(o.lo[j], r) << "trial " << trial << " window " << j;
          EXPECT_GE(o.hi[j], r) << "trial " << trial << " window " << j;
          ++checked;
        }
      }
      double exact = init;
      for (int i = j - 1; i <= j + 1; ++i) {
        if (i >= 0 && i < 8) exact *= double{RoundBf16(x[i] * c)};
      }
      const double broken = exact * (1 + 0x1p-4);
      failed_broken += broken < o.lo[j] || broken > o.hi[j];
    }
    EnclosureVerdict v = Judge(e, e.oracle);
    EXPECT_EQ(v.outputs[0].pass, 8) << v.Summary();
  }
  EXPECT_GT(checked, 2000);
  EXPECT_EQ(failed_broken, 20 * 8);
}

// ---- select-and-scatter (hand values, every order and rounding).

constexpr char kSelectAndScatter[] = R"(
HloModule m
sel {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(%args), direction=%dir
}
comb {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] %comb(a, b)
}
ENTRY main {
  x = f32[5] parameter(0)
  d = f32[5] parameter(1)
  y = f32[5] add(x, d)
  src = f32[4] parameter(2)
  zero = f32[] constant(0)
  ROOT r = f32[5] select-and-scatter(y, src, zero), window={size=2},
    select=sel, scatter=comb
})";

Enclosed EncloseSelectAndScatter(const char* args, const char* dir,
                                 const char* comb, const char* d) {
  return Enclose(
      absl::StrReplaceAll(kSelectAndScatter,
                          {{"%args", args}, {"%dir", dir}, {"%comb", comb}})
          .c_str(),
      {"f32[5] {1, 3, 2, 2, 5}", d, "f32[4] {0.1, 0.2, 0.3, 0.4}"});
}

TEST(Enclosure, SelectAndScatterDecidedAndUndecidedWindows) {
  // y = {1, 3, 2, [2, 2 + 2^-22], 5} (y3 = 2 + 2^-30 rounded in f32 or
  // kept wider), windows of 2 at stride 1, select GE (max pooling's
  // gradient). By hand: window 0 (1, 3) and window 1 (3, y2) select
  // element 1 for sure, window 3 (y3, 5) element 4; window 2 (2, y3):
  // select(2, y3) = 2 >= y3 is undecided, so 2 and 3 are candidates.
  // Element 1 = 0.1f + 0.2f (exact sum by hand in f64, and its f32
  // rounding), elements 2 and 3 are 0 or 0.3f, element 4 the point 0.4f.
  const double a = 0.100000001490116119384765625;  // 0.1f
  const double b = 0.20000000298023223876953125;   // 0.2f
  const double c = 0.300000011920928955078125;     // 0.3f
  const double e4 = 0.4000000059604644775390625;   // 0.4f
  const char* d = "f32[5] {0, 0, 0, 9.31322574615478515625e-10, 0}";
  Enclosed e = EncloseSelectAndScatter("a, b", "GE", "add", d);
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const ArrayEnclosure& o = e.enc.outputs[0];
  EXPECT_EQ(o.lo[0], 0.0);
  EXPECT_EQ(o.hi[0], 0.0);
  EXPECT_LE(o.lo[1], a + b);
  EXPECT_GE(o.hi[1], a + b);
  EXPECT_LE(o.hi[1] - o.lo[1], 4 * std::ldexp(1.0, -25));  // few f32 ulps
  for (int j : {2, 3}) {
    EXPECT_EQ(o.lo[j], 0.0) << j;
    EXPECT_EQ(o.hi[j], c) << j;
  }
  EXPECT_EQ(o.lo[4], e4);
  EXPECT_EQ(o.hi[4], e4);
  const float sum = 0.1f + 0.2f;  // RN_f32(a + b)
  // Both selections in window 2 conform: never a fail, the undecided
  // elements unjudged (too wide), never passed.
  for (bool second : {false, true}) {
    EnclosureVerdict v =
        Judge(e, {FromDoubles(PrimitiveType::kF32, {5},
                              {0, sum, second ? 0 : c, second ? c : 0, e4})});
    EXPECT_EQ(v.outputs[0].fail, 0) << v.Summary();
    EXPECT_EQ(v.outputs[0].pass, 3) << v.Summary();
    EXPECT_EQ(v.outputs[0].unjudged, 2) << v.Summary();
  }
  EXPECT_EQ(Judge(e, e.oracle).outputs[0].fail, 0);
  // Deliberately wrong: window 1's source scattered to element 2 (the
  // second largest), and window 0's to element 0 (the minimum).
  EXPECT_EQ(Judge(e, {FromDoubles(PrimitiveType::kF32, {5},
                                  {0, 0.1f, 0.2f + 0.3f, 0, e4})})
                .outputs[0]
                .fail,
            2);
  EXPECT_EQ(
      Judge(e, {FromDoubles(PrimitiveType::kF32, {5}, {0.1f, 0.2f, c, 0, e4})})
          .outputs[0]
          .fail,
      2);

  // A maximum combiner is exact: element 1 = max(0, 0.1f, 0.2f) = 0.2f.
  Enclosed mx = EncloseSelectAndScatter("a, b", "GE", "maximum", d);
  EXPECT_EQ(mx.enc.outputs[0].lo, (std::vector<double>{0, b, 0, 0, e4}));
  EXPECT_EQ(mx.enc.outputs[0].hi, (std::vector<double>{0, b, c, c, e4}));

  // Exact ties (y2 = y3 = 2): GE keeps the lower index, GT moves to the
  // higher one (seed 001: select(a, b) with a's index before b's), and
  // compare(b, a) LE is GE mirrored. Decided, so element 2 or 3 is the
  // point 0.3f and the other the point 0.
  const char* zero = "f32[5] {0, 0, 0, 0, 0}";
  for (const auto& [args, dir, selected] :
       std::vector<std::tuple<const char*, const char*, int>>{
           {"a, b", "GE", 2}, {"a, b", "GT", 3}, {"b, a", "LE", 2}}) {
    Enclosed t = EncloseSelectAndScatter(args, dir, "add", zero);
    const ArrayEnclosure& to = t.enc.outputs[0];
    EXPECT_EQ(to.lo[selected], c) << dir;
    EXPECT_EQ(to.hi[selected], c) << dir;
    EXPECT_EQ(to.lo[5 - selected], 0.0) << dir;
    EXPECT_EQ(to.hi[5 - selected], 0.0) << dir;
    EXPECT_EQ(Judge(t, t.oracle).outputs[0].pass, 5) << dir;
  }
}

// Random bf16 data with near ties, two conforming implementations (every
// op rounded to bf16; every intermediate kept in f32 and rounded on
// output) simulated in plain C++ with every order of each element's scatter
// additions: all inside. Scattering to the window's minimum instead fails.
TEST(Enclosure, SelectAndScatterHoldsEveryOrderAndRoundingOnRandomData) {
  constexpr char kModule[] = R"(
HloModule m
ge {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  x = bf16[10] parameter(0)
  s = bf16[8] parameter(1)
  c = bf16[] constant(0.296875)
  cx = bf16[10] broadcast(c), dimensions={}
  y = bf16[10] multiply(x, cx)
  cs = bf16[8] broadcast(c), dimensions={}
  g = bf16[8] multiply(s, cs)
  init = bf16[] constant(0.5)
  ROOT r = bf16[10] select-and-scatter(y, g, init), window={size=3},
    select=ge, scatter=add
})";
  const float c = 0.296875f, init = 0.5f;  // exact in bf16
  // Products of these with c land in [0.5, 0.52), where bf16's spacing
  // (2^-8) is wider than theirs (2^-7 c): by hand 1.71875 c = 0.5102539
  // and 1.7265625 c = 0.5125732 both round to 0.51171875, so rounding per
  // op ties them (GE keeps the first) where excess precision does not.
  const float near[] = {1.703125f, 1.7109375f, 1.71875f, 1.7265625f};
  std::mt19937 rng(20);
  std::uniform_real_distribution<float> mag(0.5f, 2.0f), sgn(-1.0f, 1.0f);
  std::bernoulli_distribution pick_near(0.6);
  std::uniform_int_distribution<int> which(0, 3);
  auto text_of = [](const char* type, const std::vector<float>& v) {
    std::string t = absl::StrCat(type, "[", v.size(), "] {");
    for (size_t i = 0; i < v.size(); ++i) {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%s%.9g", i ? ", " : "", v[i]);
      t += buf;
    }
    return t + "}";
  };
  int checked = 0, undecided_windows = 0, wrong_failed = 0;
  constexpr int kTrials = 30;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<float> x(10), s(8);
    for (float& v : x)
      v = pick_near(rng) ? near[which(rng)] : RoundBf16(mag(rng));
    for (float& v : s) v = RoundBf16(sgn(rng));
    Enclosed e = Enclose(kModule, {text_of("bf16", x), text_of("bf16", s)});
    ASSERT_EQ(e.enc.outputs.size(), 1u);
    const ArrayEnclosure& o = e.enc.outputs[0];
    std::vector<std::vector<int>> selected_by(2);
    for (bool excess : {false, true}) {
      std::vector<float> y(10), g(8);  // x c, s c: exact in f32
      for (int i = 0; i < 10; ++i)
        y[i] = excess ? x[i] * c : RoundBf16(x[i] * c);
      for (int w = 0; w < 8; ++w)
        g[w] = excess ? s[w] * c : RoundBf16(s[w] * c);
      std::vector<std::vector<float>> addends(10, std::vector<float>{init});
      std::vector<int>& sel = selected_by[excess];
      for (int w = 0; w < 8; ++w) {
        int best = w;  // row-major fold: select(best, k) = best >= k
        for (int k = w + 1; k < w + 3; ++k) {
          if (!(y[best] >= y[k])) best = k;
        }
        sel.push_back(best);
        addends[best].push_back(g[w]);
      }
      for (int j = 0; j < 10; ++j) {
        std::vector<float>& f = addends[j];
        std::sort(f.begin(), f.end());
        do {
          float acc = f[0];
          for (size_t k = 1; k < f.size(); ++k) {
            acc = excess ? acc + f[k] : RoundBf16(acc + f[k]);
          }
          acc = RoundBf16(acc);
          EXPECT_LE(o.lo[j], acc) << "trial " << trial << " element " << j;
          EXPECT_GE(o.hi[j], acc) << "trial " << trial << " element " << j;
          ++checked;
        } while (std::next_permutation(f.begin(), f.end()));
      }
    }
    for (int w = 0; w < 8; ++w) {
      undecided_windows += selected_by[0][w] != selected_by[1][w];
    }
    EXPECT_EQ(Judge(e, e.oracle).outputs[0].fail, 0);
    // Deliberately wrong: each window's source scattered to its minimum
    // (per-op rounded data, left-to-right bf16 sums).
    std::vector<float> wrong(10, init);
    for (int w = 0; w < 8; ++w) {
      int worst = w;
      for (int k = w + 1; k < w + 3; ++k) {
        if (RoundBf16(x[k] * c) < RoundBf16(x[worst] * c)) worst = k;
      }
      wrong[worst] = RoundBf16(wrong[worst] + RoundBf16(s[w] * c));
    }
    std::vector<double> wd(wrong.begin(), wrong.end());
    wrong_failed += Judge(e, {FromDoubles(PrimitiveType::kBF16, {10}, wd)})
                        .outputs[0]
                        .fail > 0;
  }
  EXPECT_GT(checked, 600);
  // The two implementations select differently in some windows (the
  // undecided case is exercised), and the argmin scatter fails nearly
  // always (it conforms only where every window's minimum is a candidate).
  EXPECT_GT(undecided_windows, 0);
  EXPECT_GE(wrong_failed, kTrials - 3);
  std::printf(
      "select-and-scatter: %d results checked, %d windows selected "
      "differently, wrong scatter failed in %d of %d\n",
      checked, undecided_windows, wrong_failed, kTrials);
}

TEST(Enclosure, VariadicReduceWindowArgmaxBySelection) {
  // y = {1, 3, 2, [2, 2 + 2^-22], 5, 4, 0.5} (y3 = 2 + 2^-30 in f32 or
  // wider), windows of 2 at stride 2 with one element of padding on the
  // right (the last window holds y6 alone), an argmax reducer with ties
  // to the lower index. By hand: (3, 1) exact, (5, 4) exact, (0.5, 6)
  // exact; window 1: the value is y3's enclosure [2, 2 + 2^-22] (2 or
  // y3), the index 2 or 3 undecided.
  constexpr char kArgmax[] = R"(
HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  pa = pred[] or(gt, tie)
  v = f32[] select(pa, av, bv)
  i = s32[] select(pa, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  x = f32[7] parameter(0)
  d = f32[7] parameter(1)
  y = f32[7] add(x, d)
  ids = s32[7] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  big = s32[] constant(100)
  ROOT r = (f32[4], s32[4]) reduce-window(y, ids, ninf, big),
    window={size=2 stride=2 pad=0_1}, to_apply=argmax
})";
  Enclosed e = Enclose(
      kArgmax, {"f32[7] {1, 3, 2, 2, 5, 4, 0.5}",
                "f32[7] {0, 0, 0, 9.31322574615478515625e-10, 0, 0, 0}"});
  ASSERT_EQ(e.enc.outputs.size(), 2u);
  const ArrayEnclosure& v = e.enc.outputs[0];
  const ArrayEnclosure& i = e.enc.outputs[1];
  EXPECT_EQ(v.lo, (std::vector<double>{3, 2, 5, 0.5}));
  EXPECT_EQ(v.hi, (std::vector<double>{3, 2 + std::ldexp(1.0, -22), 5, 0.5}));
  for (int j : {0, 2, 3}) EXPECT_TRUE(i.Judgeable(j)) << j;
  EXPECT_EQ(i.ints[0], 1);
  EXPECT_EQ(i.ints[2], 4);
  EXPECT_EQ(i.ints[3], 6);
  EXPECT_FALSE(i.Judgeable(1));
  EnclosureVerdict ok = Judge(e, e.oracle);
  EXPECT_EQ(ok.TotalFail(), 0) << ok.Summary();
  EXPECT_EQ(ok.outputs[0].pass, 4) << ok.Summary();
  EXPECT_EQ(ok.outputs[1].pass, 3) << ok.Summary();
  EXPECT_EQ(ok.outputs[1].unjudged, 1) << ok.Summary();
  // Both conforming choices in window 1 pass (the value) or are unjudged
  // (the index); a wrong index (the minimum's) or a wrong value fails.
  Literal idx_other(Shape(PrimitiveType::kS32, {4}));
  Literal idx_wrong(Shape(PrimitiveType::kS32, {4}));
  const int other[] = {1, 3, 4, 6}, wrong[] = {0, 2, 5, 6};
  for (int j = 0; j < 4; ++j) {
    idx_other.SetFromDouble(j, other[j]);
    idx_wrong.SetFromDouble(j, wrong[j]);
  }
  const Literal vals = FromDoubles(PrimitiveType::kF32, {4},
                                   {3, 2 + std::ldexp(1.0, -22), 5, 0.5});
  EXPECT_EQ(Judge(e, {vals, idx_other}).TotalFail(), 0);
  EXPECT_EQ(Judge(e, {vals, idx_wrong}).outputs[1].fail, 2);
  EXPECT_EQ(Judge(e, {FromDoubles(PrimitiveType::kF32, {4}, {3, 2, 4, 0.5}),
                      idx_other})
                .outputs[0]
                .fail,
            1);
}

TEST(Enclosure, NonStrictSortComparatorFollowsTheProfile) {
  // keys = a + b in f32: {[3, 3 + 2^-22], 2, 1, 2} with payload 10..13,
  // comparator compare(a, b) LE (GE mirrored: compare(b, a) GE). LE is not
  // a strict weak order (a <= a): the sort has no defined result
  // (impl.sort.1), so under the portable profile everything is don't care.
  // Under the XLA profile the oracle's permutation is required; rounded
  // keys decide it where an element's key is apart from every other (by
  // hand: 12 first, 10 last), never between the equal keys 2 and 2 (LE
  // orders neither first), and the keys are the order statistics.
  constexpr char kSort[] = R"(
HloModule m
le {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT le = pred[] compare(%args), direction=%dir
}
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  p = s32[4] parameter(2)
  k = f32[4] add(a, b)
  ROOT s = (f32[4], s32[4]) sort(k, p), dimensions={0}, is_stable=true,
    to_apply=le
})";
  std::vector<Literal> args;
  args.push_back(*ParseLiteral("f32[4] {3, 2, 1, 2}"));
  args.push_back(*ParseLiteral("f32[4] {9.31322574615478515625e-10, 0, 0, 0}"));
  args.push_back(*ParseLiteral("s32[4] {10, 11, 12, 13}"));
  for (const auto& [ops, dir] :
       std::vector<std::pair<const char*, const char*>>{{"a, b", "LE"},
                                                        {"b, a", "GE"}}) {
    auto m = ParseHloModule(
        absl::StrReplaceAll(kSort, {{"%args", ops}, {"%dir", dir}}));
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_TRUE(VerifyModule(**m).ok());
    EvaluatorOptions xla, portable;
    portable.profile = Profile::kPortable;
    auto x =
        ComputeEnclosure(**m, args, conformance::PolicyEnclosureOptions(xla));
    ASSERT_TRUE(x.ok()) << x.status();
    const ArrayEnclosure& k = x->outputs[0];
    const ArrayEnclosure& p = x->outputs[1];
    EXPECT_EQ(k.lo, (std::vector<double>{1, 2, 2, 3})) << dir;
    EXPECT_EQ(k.hi, (std::vector<double>{1, 2, 2, 3 + std::ldexp(1.0, -22)}))
        << dir;
    EXPECT_TRUE(p.Judgeable(0) && p.Judgeable(3)) << dir;
    EXPECT_EQ(p.ints[0], 12) << dir;
    EXPECT_EQ(p.ints[3], 10) << dir;
    EXPECT_FALSE(p.Judgeable(1)) << dir;
    EXPECT_FALSE(p.Judgeable(2)) << dir;
    // Either order of the tied payloads conforms; a misplaced key fails.
    const std::vector<Literal> swapped = {
        FromDoubles(PrimitiveType::kF32, {4}, {1, 2, 2, 3}),
        *ParseLiteral("s32[4] {12, 13, 11, 10}")};
    auto vs = JudgeWithEnclosure(*x, swapped);
    ASSERT_TRUE(vs.ok());
    EXPECT_EQ(vs->TotalFail(), 0) << vs->Summary();
    EXPECT_EQ(vs->outputs[0].pass, 4) << vs->Summary();
    const std::vector<Literal> wrong = {
        FromDoubles(PrimitiveType::kF32, {4}, {2, 1, 2, 3}),
        *ParseLiteral("s32[4] {11, 12, 13, 10}")};
    auto vw = JudgeWithEnclosure(*x, wrong);
    ASSERT_TRUE(vw.ok());
    EXPECT_EQ(vw->outputs[0].fail, 2) << vw->Summary();
    EXPECT_EQ(vw->outputs[1].fail, 1) << vw->Summary();
    auto pe = ComputeEnclosure(**m, args,
                               conformance::PolicyEnclosureOptions(portable));
    ASSERT_TRUE(pe.ok()) << pe.status();
    auto vp = JudgeWithEnclosure(*pe, wrong);
    ASSERT_TRUE(vp.ok());
    EXPECT_EQ(vp->TotalFail(), 0) << vp->Summary();
    EXPECT_EQ(vp->outputs[0].dont_care + vp->outputs[1].dont_care, 8)
        << vp->Summary();
  }
}

// ---- Complex element types (boxes: an interval per part).

TEST(Enclosure, ComplexAddMovesAndPartsByHand) {
  // z = complex(x + d, y) with x + d = 1 + 2^-30 in f32: [1, 1 + 2^-23]
  // (RD, RU by hand), y exact; w = z + v with v = (2^-2, -3): the parts
  // [1.25, 1.25 + 2^-23] (1.25 + 2^-30 rounds outward to the f32
  // neighbours 1.25 and 1.25 + 2^-23) and the exact -1; then reversed,
  // negated, and split into real / imag.
  Enclosed e =
      Enclose(R"(
HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  d = f32[2] parameter(1)
  y = f32[2] parameter(2)
  v = c64[2] parameter(3)
  s = f32[2] add(x, d)
  z = c64[2] complex(s, y)
  w = c64[2] add(z, v)
  r = c64[2] reverse(w), dimensions={0}
  n = c64[2] negate(r)
  re = f32[2] real(n)
  im = f32[2] imag(n)
  ROOT t = (c64[2], f32[2], f32[2]) tuple(n, re, im)
})",
              {"f32[2] {1, 4}", "f32[2] {9.31322574615478515625e-10, 0}",
               "f32[2] {2, 5}", "c64[2] {(0.25, -3), (1, 1)}"});
  ASSERT_EQ(e.enc.outputs.size(), 3u);
  const ArrayEnclosure& n = e.enc.outputs[0];
  ASSERT_TRUE(n.is_complex);
  const double u23 = std::ldexp(1.0, -23);
  // Element 0 of n is -(w[1]) = -(5, 6): exact; element 1 is -(w[0]).
  EXPECT_EQ(n.lo[0], -5.0);
  EXPECT_EQ(n.hi[0], -5.0);
  EXPECT_EQ(n.ilo[0], -6.0);
  EXPECT_EQ(n.ihi[0], -6.0);
  EXPECT_EQ(n.lo[1], -1.25 - u23);
  EXPECT_EQ(n.hi[1], -1.25);
  EXPECT_EQ(n.ilo[1], 1.0);
  EXPECT_EQ(n.ihi[1], 1.0);
  EXPECT_EQ(e.enc.outputs[1].lo, (std::vector<double>{-5, -1.25 - u23}));
  EXPECT_EQ(e.enc.outputs[2].hi, (std::vector<double>{-6, 1}));
  EnclosureVerdict ok = Judge(e, e.oracle);
  EXPECT_EQ(ok.TotalFail(), 0) << ok.Summary();
  EXPECT_EQ(ok.outputs[0].pass, 2) << ok.Summary();
  // Kept wider: the exact -1.25 - 2^-30 rounds to -1.25 (inside); a wrong
  // imaginary part fails and is named.
  Literal bad(Shape(PrimitiveType::kC64, {2}));
  bad.SetFromComplex(0, {-5, -6});
  bad.SetFromComplex(1, {-1.25, -1});
  EnclosureVerdict v = Judge(e, {bad, e.oracle[1], e.oracle[2]});
  EXPECT_EQ(v.outputs[0].fail, 1) << v.Summary();
  ASSERT_EQ(v.outputs[0].failures.size(), 1u);
  EXPECT_NE(v.outputs[0].failures[0].index.find("imaginary"),
            std::string::npos);
  // An exact complex point with an infinite part moved as it is passes
  // (relative radius 0, not the infinity of inf - inf).
  Enclosed p = Enclose(R"(
HloModule m
ENTRY main {
  p = c64[2] parameter(0)
  ROOT r = c64[2] reverse(p), dimensions={0}
})",
                       {"c64[2] {(inf, 1), (2, -3)}"});
  EnclosureVerdict pv = Judge(p, p.oracle);
  EXPECT_EQ(pv.outputs[0].pass, 2) << pv.Summary();
}

// Complex multiply is judged normwise (numerics.md: |v - y| <= 4 u |y|):
// textbook f32 products (each product rounded, then the difference), FMA
// contraction and a product computed in f64 and rounded once must all be
// inside, whatever a part cancels; the exact product (in __float128,
// exact for products of f32 values) too. Swapping the sign of the
// imaginary part (a conjugate) fails.
TEST(Enclosure, ComplexMultiplyHoldsEveryEvaluationOnRandomData) {
  constexpr char kMul[] = R"(
HloModule m
ENTRY main {
  a = c64[64] parameter(0)
  b = c64[64] parameter(1)
  ROOT p = c64[64] multiply(a, b)
})";
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uni(-2.0f, 2.0f), tiny(-1e-3f, 1e-3f);
  int checked = 0, conj_failed = 0, cancelling = 0;
  double widest = 0;
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<std::complex<float>> a(64), b(64);
    for (int i = 0; i < 64; ++i) {
      a[i] = {uni(rng), uni(rng)};
      // Every other element: b close to (Im a, Re a), so that the real
      // part ac - bd of the product nearly cancels.
      b[i] = i % 2 == 0 ? std::complex<float>(uni(rng), uni(rng))
                        : std::complex<float>(a[i].imag() * (1 + tiny(rng)),
                                              a[i].real());
    }
    auto text = [](const std::vector<std::complex<float>>& v) {
      std::string t = "c64[64] {";
      for (size_t i = 0; i < v.size(); ++i) {
        char buf[80];
        std::snprintf(buf, sizeof(buf), "%s(%.9g, %.9g)", i ? ", " : "",
                      v[i].real(), v[i].imag());
        t += buf;
      }
      return t + "}";
    };
    Enclosed e = Enclose(kMul, {text(a), text(b)});
    ASSERT_EQ(e.enc.outputs.size(), 1u);
    const ArrayEnclosure& o = e.enc.outputs[0];
    ASSERT_TRUE(o.is_complex);
    Literal conj(Shape(PrimitiveType::kC64, {64}));
    for (int i = 0; i < 64; ++i) {
      const float ar = a[i].real(), ai = a[i].imag();
      const float br = b[i].real(), bi = b[i].imag();
      const __float128 xr =
          static_cast<__float128>(ar) * br - static_cast<__float128>(ai) * bi;
      const __float128 xi =
          static_cast<__float128>(ar) * bi + static_cast<__float128>(ai) * br;
      cancelling += std::fabs(static_cast<double>(xr)) <
                    1e-2 * std::fabs(static_cast<double>(xi));
      const float tr = ar * br - ai * bi;  // textbook, rounded per op
      const float ti = ar * bi + ai * br;
      volatile float p1 = ar * br, p2 = ai * bi, p3 = ar * bi, p4 = ai * br;
      const float sr = p1 - p2, si = p3 + p4;
      const float fr = std::fma(ar, br, -(ai * bi));  // contracted
      const float fi = std::fma(ar, bi, ai * br);
      const float wr = static_cast<float>(double{ar} * br - double{ai} * bi);
      const float wi = static_cast<float>(double{ar} * bi + double{ai} * br);
      const double rs[] = {static_cast<double>(xr), tr, sr, fr, wr};
      const double is[] = {static_cast<double>(xi), ti, si, fi, wi};
      for (int k = 0; k < 5; ++k) {
        EXPECT_LE(o.lo[i], rs[k]) << trial << " " << i << " " << k;
        EXPECT_GE(o.hi[i], rs[k]) << trial << " " << i << " " << k;
        EXPECT_LE(o.ilo[i], is[k]) << trial << " " << i << " " << k;
        EXPECT_GE(o.ihi[i], is[k]) << trial << " " << i << " " << k;
        ++checked;
      }
      conj.SetFromComplex(i, {sr, -si});
      widest = std::max(widest, RelativeRadius(o, i));
    }
    EnclosureVerdict v = Judge(e, e.oracle);
    EXPECT_EQ(v.outputs[0].fail, 0) << v.Summary();
    EXPECT_EQ(v.outputs[0].pass, 64) << v.Summary();
    conj_failed += Judge(e, {conj}).outputs[0].fail;
  }
  EXPECT_EQ(checked, 10 * 64 * 5);
  EXPECT_GT(cancelling, 50);
  EXPECT_GE(conj_failed, 10 * 64 - 5);
  // Normwise 4 u (|re| + |im|) plus the outward rounding: at most
  // about 10 u of the larger part.
  EXPECT_LT(widest, 12 * std::ldexp(1.0, -24));
  std::printf(
      "complex multiply: %d values checked, %d cancelling real "
      "parts, largest relative radius %.3g\n",
      checked, cancelling, widest);
}

// Complex divide, normwise (numerics.md "Complex ops", k = 8): the exact
// quotient's box by interval arithmetic on a conj(b) / |b|^2, widened by
// 8 u (max|re| + max|im|) + min_normal. 640 random c64 quotients (every
// other one with a cancelling real part, b close to (Im a, -Re a) / 2):
// the __float128 quotient and four f32 evaluations (textbook per op, with
// FMA contraction, Smith's algorithm, the double quotient rounded once)
// lie inside; the oracle passes; the conjugate fails. With the normwise
// widening dropped (checked, then restored) the f32 evaluations fall
// outside.
TEST(Enclosure, ComplexDivideHoldsEveryEvaluationOnRandomData) {
  constexpr char kDiv[] = R"(
HloModule m
ENTRY main {
  a = c64[64] parameter(0)
  b = c64[64] parameter(1)
  ROOT q = c64[64] divide(a, b)
})";
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> uni(-2.0f, 2.0f), tiny(-1e-3f, 1e-3f);
  int checked = 0, conj_failed = 0, cancelling = 0, passed = 0;
  double widest = 0;
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<std::complex<float>> a(64), b(64);
    for (int i = 0; i < 64; ++i) {
      a[i] = {uni(rng), uni(rng)};
      if (i % 2 == 0) {
        do {
          b[i] = {uni(rng), uni(rng)};
        } while (std::abs(b[i]) < 0.1f);
      } else {
        b[i] = {a[i].imag() * (1 + tiny(rng)) / 2, -a[i].real() / 2};
      }
    }
    auto text = [](const std::vector<std::complex<float>>& v) {
      std::string t = "c64[64] {";
      for (size_t i = 0; i < v.size(); ++i) {
        char buf[80];
        std::snprintf(buf, sizeof(buf), "%s(%.9g, %.9g)", i ? ", " : "",
                      v[i].real(), v[i].imag());
        t += buf;
      }
      return t + "}";
    };
    Enclosed e = Enclose(kDiv, {text(a), text(b)});
    ASSERT_EQ(e.enc.outputs.size(), 1u);
    const ArrayEnclosure& o = e.enc.outputs[0];
    ASSERT_TRUE(o.is_complex);
    Literal conj(Shape(PrimitiveType::kC64, {64}));
    for (int i = 0; i < 64; ++i) {
      const float ar = a[i].real(), ai = a[i].imag();
      const float br = b[i].real(), bi = b[i].imag();
      using Q = __float128;
      const Q d = Q(br) * br + Q(bi) * bi;
      const Q xr = (Q(ar) * br + Q(ai) * bi) / d;
      const Q xi = (Q(ai) * br - Q(ar) * bi) / d;
      cancelling += std::fabs(static_cast<double>(xr)) <
                    1e-2 * std::fabs(static_cast<double>(xi));
      volatile float p1 = ar * br, p2 = ai * bi, p3 = ai * br, p4 = ar * bi;
      volatile float dd = br * br + bi * bi;
      const float tr = (p1 + p2) / dd, ti = (p3 - p4) / dd;  // textbook
      const float fd = std::fma(br, br, bi * bi);            // contracted
      const float fr = std::fma(ar, br, ai * bi) / fd;
      const float fi = std::fma(ai, br, -(ar * bi)) / fd;
      float sr, si;  // Smith's algorithm
      if (std::fabs(br) >= std::fabs(bi)) {
        const float rr = bi / br, den = br + bi * rr;
        sr = (ar + ai * rr) / den;
        si = (ai - ar * rr) / den;
      } else {
        const float rr = br / bi, den = br * rr + bi;
        sr = (ar * rr + ai) / den;
        si = (ai * rr - ar) / den;
      }
      const double wd = double{br} * br + double{bi} * bi;
      const float wr =
          static_cast<float>((double{ar} * br + double{ai} * bi) / wd);
      const float wi =
          static_cast<float>((double{ai} * br - double{ar} * bi) / wd);
      const double rs[] = {static_cast<double>(xr), tr, fr, sr, wr};
      const double is[] = {static_cast<double>(xi), ti, fi, si, wi};
      for (int k = 0; k < 5; ++k) {
        EXPECT_LE(o.lo[i], rs[k]) << trial << " " << i << " " << k;
        EXPECT_GE(o.hi[i], rs[k]) << trial << " " << i << " " << k;
        EXPECT_LE(o.ilo[i], is[k]) << trial << " " << i << " " << k;
        EXPECT_GE(o.ihi[i], is[k]) << trial << " " << i << " " << k;
        ++checked;
      }
      conj.SetFromComplex(i, {tr, -ti});
      widest = std::max(widest, RelativeRadius(o, i));
    }
    EnclosureVerdict v = Judge(e, e.oracle);
    EXPECT_EQ(v.outputs[0].fail, 0) << v.Summary();
    passed += v.outputs[0].pass;
    conj_failed += Judge(e, {conj}).outputs[0].fail;
  }
  EXPECT_EQ(checked, 10 * 64 * 5);
  EXPECT_GT(cancelling, 50);
  EXPECT_EQ(passed, 10 * 64);
  EXPECT_GE(conj_failed, 10 * 64 - 5);
  // 8 u (|re| + |im|) plus the point boxes' rounding: about 20 u of the
  // larger part at most.
  EXPECT_LT(widest, 24 * std::ldexp(1.0, -24));
  std::printf(
      "complex divide: %d values checked, %d cancelling real parts, largest "
      "relative radius %.3g\n",
      checked, cancelling, widest);
  // A divisor box holding 0 is undecided, not judged.
  Enclosed z = Enclose(R"(
HloModule m
ENTRY main {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT q = c64[] divide(a, b)
})",
                       {"c64[] (1, 2)", "c64[] (0, 0)"});
  EXPECT_NE(z.enc.outputs[0].flags[0] & kEnclUndecided, 0);
}

// Complex reduce with an add reducer: each part is a real sum (complex add
// is one correctly rounded add per part), so reduce's real rule per part.
// 16 rows of 24 random c64 values: every part summed in float left to
// right, reversed, as a balanced tree and in 10 shuffled orders, and the
// double sums rounded once, lie inside, and so does the __float128 sum;
// the oracle passes; the conjugate sum fails. With the accumulation bound
// dropped from the fold (checked, then restored) the float orders fall
// outside.
TEST(Enclosure, ComplexReduceAddHoldsEveryOrderOnRandomData) {
  constexpr int kRows = 16, kN = 24;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> uni(-1, 1);
  std::vector<std::vector<std::complex<float>>> rows(kRows);
  std::vector<std::string> row_text;
  for (auto& r : rows) {
    std::vector<std::string> el;
    for (int i = 0; i < kN; ++i) {
      r.push_back({uni(rng), uni(rng)});
      el.push_back(
          absl::StrFormat("(%.9g, %.9g)", r.back().real(), r.back().imag()));
    }
    row_text.push_back(absl::StrCat("{", absl::StrJoin(el, ", "), "}"));
  }
  Enclosed e = Enclose(
      R"(
HloModule m
add {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT s = c64[] add(a, b)
}
ENTRY main {
  x = c64[16,24] parameter(0)
  z = c64[] constant((0, 0))
  ROOT r = c64[16] reduce(x, z), dimensions={1}, to_apply=add
})",
      {absl::StrCat("c64[16,24] {", absl::StrJoin(row_text, ", "), "}")});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const ArrayEnclosure& o = e.enc.outputs[0];
  ASSERT_TRUE(o.is_complex);
  using C = std::complex<float>;
  std::function<C(const std::vector<C>&, size_t, size_t)> tree =
      [&](const std::vector<C>& t, size_t b, size_t n) -> C {
    if (n == 1) return t[b];
    return tree(t, b, n / 2) + tree(t, b + n / 2, n - n / 2);
  };
  int checked = 0;
  Literal conj(Shape(PrimitiveType::kC64, {kRows}));
  for (int j = 0; j < kRows; ++j) {
    std::vector<C> t = rows[j];
    std::vector<std::vector<C>> orders = {t, {t.rbegin(), t.rend()}};
    for (int p = 0; p < 10; ++p) {
      std::shuffle(t.begin(), t.end(), rng);
      orders.push_back(t);
    }
    std::vector<C> values;
    for (const auto& ord : orders) {
      C acc = 0;
      for (const C& v : ord) acc += v;
      values.push_back(acc);
      values.push_back(tree(ord, 0, ord.size()));
    }
    double wr = 0, wi = 0;
    __float128 xr = 0, xi = 0;
    for (const C& v : rows[j]) {
      wr += v.real();
      wi += v.imag();
      xr += v.real();
      xi += v.imag();
    }
    values.push_back(C(static_cast<float>(wr), static_cast<float>(wi)));
    for (const C& v : values) {
      EXPECT_LE(o.lo[j], v.real()) << j;
      EXPECT_GE(o.hi[j], v.real()) << j;
      EXPECT_LE(o.ilo[j], v.imag()) << j;
      EXPECT_GE(o.ihi[j], v.imag()) << j;
      ++checked;
    }
    EXPECT_TRUE(static_cast<__float128>(o.lo[j]) <= xr &&
                xr <= static_cast<__float128>(o.hi[j]) &&
                static_cast<__float128>(o.ilo[j]) <= xi &&
                xi <= static_cast<__float128>(o.ihi[j]));
    conj.SetFromComplex(j, {values[0].real(), -values[0].imag()});
  }
  EXPECT_EQ(checked, kRows * 25);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].fail, 0) << v.Summary();
  EXPECT_GT(v.outputs[0].pass, kRows / 2) << v.Summary();
  EXPECT_GE(Judge(e, {conj}).outputs[0].fail, kRows - 1);
}

// Complex dot: 4x64 by 64x4 random c64. Every part computed as complex
// products summed per part (std::complex<float> left to right, reversed,
// as a balanced tree), as a real dot of 2n products interleaved with FMAs,
// and in double rounded once lies inside, and so does the __float128
// value; the oracle passes; the conjugate fails. Dropping either model's
// radius (checked, then restored: (A)'s per-product widening and (B)'s
// gamma_2n S') leaves some evaluations outside.
TEST(Enclosure, ComplexDotHoldsEveryEvaluationOnRandomData) {
  constexpr int kM = 4, kK = 64, kN = 4;
  using C = std::complex<float>;
  std::mt19937 rng(10);
  std::uniform_real_distribution<float> uni(-1, 1);
  std::vector<C> a(kM * kK), b(kK * kN);
  for (C& v : a) v = {uni(rng), uni(rng)};
  for (C& v : b) v = {uni(rng), uni(rng)};
  auto text = [](const std::vector<C>& v, int rows, int cols) {
    std::vector<std::string> r;
    for (int i = 0; i < rows; ++i) {
      std::vector<std::string> el;
      for (int j = 0; j < cols; ++j) {
        const C& z = v[i * cols + j];
        el.push_back(absl::StrFormat("(%.9g, %.9g)", z.real(), z.imag()));
      }
      r.push_back(absl::StrCat("{", absl::StrJoin(el, ", "), "}"));
    }
    return absl::StrCat("{", absl::StrJoin(r, ", "), "}");
  };
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  a = c64[4,64] parameter(0)
  b = c64[64,4] parameter(1)
  ROOT d = c64[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                       {absl::StrCat("c64[4,64] ", text(a, kM, kK)),
                        absl::StrCat("c64[64,4] ", text(b, kK, kN))});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const ArrayEnclosure& o = e.enc.outputs[0];
  ASSERT_TRUE(o.is_complex);
  std::function<C(const std::vector<C>&, const std::vector<C>&, size_t, size_t)>
      tree = [&](const std::vector<C>& x, const std::vector<C>& y, size_t lo,
                 size_t n) -> C {
    if (n == 1) return x[lo] * y[lo];
    return tree(x, y, lo, n / 2) + tree(x, y, lo + n / 2, n - n / 2);
  };
  int checked = 0;
  double widest = 0;
  Literal conj(Shape(PrimitiveType::kC64, {kM, kN}));
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      std::vector<C> x, y;
      for (int k = 0; k < kK; ++k) {
        x.push_back(a[i * kK + k]);
        y.push_back(b[k * kN + j]);
      }
      std::vector<C> values;
      C fwd = 0, rev = 0;
      for (int k = 0; k < kK; ++k) fwd += x[k] * y[k];
      for (int k = kK - 1; k >= 0; --k) rev += x[k] * y[k];
      values.push_back(fwd);
      values.push_back(rev);
      values.push_back(tree(x, y, 0, kK));
      float fr = 0, fi = 0;  // a real dot of 2n products with FMAs
      double dr = 0, di = 0;
      __float128 qr = 0, qi = 0;
      for (int k = 0; k < kK; ++k) {
        const float ar = x[k].real(), ai = x[k].imag();
        const float br = y[k].real(), bi = y[k].imag();
        fr = std::fma(ar, br, fr);
        fr = std::fma(-ai, bi, fr);
        fi = std::fma(ar, bi, fi);
        fi = std::fma(ai, br, fi);
        dr += double{ar} * br - double{ai} * bi;
        di += double{ar} * bi + double{ai} * br;
        qr += static_cast<__float128>(double{ar} * br) - double{ai} * bi;
        qi += static_cast<__float128>(double{ar} * bi) + double{ai} * br;
      }
      values.push_back({fr, fi});
      values.push_back({static_cast<float>(dr), static_cast<float>(di)});
      const int jj = i * kN + j;
      for (const C& v : values) {
        EXPECT_LE(o.lo[jj], v.real()) << jj;
        EXPECT_GE(o.hi[jj], v.real()) << jj;
        EXPECT_LE(o.ilo[jj], v.imag()) << jj;
        EXPECT_GE(o.ihi[jj], v.imag()) << jj;
        ++checked;
      }
      EXPECT_TRUE(static_cast<__float128>(o.lo[jj]) <= qr &&
                  qr <= static_cast<__float128>(o.hi[jj]) &&
                  static_cast<__float128>(o.ilo[jj]) <= qi &&
                  qi <= static_cast<__float128>(o.ihi[jj]));
      conj.SetFromComplex(jj, {fwd.real(), -fwd.imag()});
      widest = std::max(widest, RelativeRadius(o, jj));
    }
  }
  EXPECT_EQ(checked, kM * kN * 5);
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].fail, 0) << v.Summary();
  EXPECT_GE(Judge(e, {conj}).outputs[0].fail, kM * kN - 1);
  std::printf("complex dot: largest relative radius %.3g, %d pass\n", widest,
              static_cast<int>(v.outputs[0].pass));

  // Why model (B): a = {(1, 0), 20 x (15/16 2^-12, 15/16 2^-12)}, b =
  // {(1, 0), 20 x (2^-12, -2^-12)}. Each small product's real part is
  // ar br - ai bi = 2 x 15/16 2^-24 (the imaginary part 0); as a real dot
  // with FMAs every piece (15/16 2^-24, below half an ulp of 1) is lost and
  // the real part stays 1, while the exact one is 1 + 37.5 2^-24. Model
  // (A) alone allows 4u for the first product and about 20u of sums:
  // [1 + 13 2^-24, ...] rounded down is above 1, so 1 would fail; (B)'s
  // gamma_42(2^-24) S' covers it (dropping (B), checked, fails this).
  auto flat = [](const std::vector<C>& v) {
    std::vector<std::string> el;
    for (const C& z : v) {
      el.push_back(absl::StrFormat("(%.9g, %.9g)", z.real(), z.imag()));
    }
    return absl::StrCat("{", absl::StrJoin(el, ", "), "}");
  };
  std::vector<C> fa = {{1, 0}}, fb = {{1, 0}};
  const float piece = 0.9375f * std::ldexp(1.0f, -12);
  const float unit = std::ldexp(1.0f, -12);
  for (int k = 0; k < 20; ++k) {
    fa.push_back({piece, piece});
    fb.push_back({unit, -unit});
  }
  Enclosed f = Enclose(
      R"(
HloModule m
ENTRY main {
  a = c64[21] parameter(0)
  b = c64[21] parameter(1)
  ROOT d = c64[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
      {absl::StrCat("c64[21] ", flat(fa)), absl::StrCat("c64[21] ", flat(fb))});
  ASSERT_EQ(f.enc.outputs.size(), 1u);
  float fr = 0, fi = 0;
  for (int k = 0; k < 21; ++k) {
    fr = std::fma(fa[k].real(), fb[k].real(), fr);
    fr = std::fma(-fa[k].imag(), fb[k].imag(), fr);
    fi = std::fma(fa[k].real(), fb[k].imag(), fi);
    fi = std::fma(fa[k].imag(), fb[k].real(), fi);
  }
  EXPECT_EQ(fr, 1.0f);
  EXPECT_EQ(fi, 0.0f);
  Literal fv(Shape(PrimitiveType::kC64, {}));
  fv.SetFromComplex(0, {fr, fi});
  EXPECT_EQ(Judge(f, {fv}).outputs[0].fail, 0)
      << f.enc.outputs[0].lo[0] << " " << f.enc.outputs[0].hi[0];
  EXPECT_EQ(Judge(f, f.oracle).outputs[0].fail, 0);

  // Why model (A): a product by Gauss's three multiplications (im = (ar +
  // ai)(br + bi) - ar br - ai bi), normwise within 4u but not part by
  // part: a = b = (1, 2^-30) gives im = -2^-60 for the exact 2^-29 (both
  // sums round to 1), far outside (B)'s gamma_2 S'_im = 2^-52; (A)'s 4u
  // (|re| + |im|) holds it (dropping (A), checked, fails this).
  const float d = std::ldexp(1.0f, -30);
  Enclosed g = Enclose(R"(
HloModule m
ENTRY main {
  a = c64[1] parameter(0)
  b = c64[1] parameter(1)
  ROOT d = c64[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
                       {absl::StrCat("c64[1] ", flat({{1, d}})),
                        absl::StrCat("c64[1] ", flat({{1, d}}))});
  ASSERT_EQ(g.enc.outputs.size(), 1u);
  volatile float s1 = 1.0f + d, s2 = 1.0f + d;
  const float t1 = s1 * s2, t2 = 1.0f * 1.0f, t3 = d * d;
  const float gr = t2 - t3, gi = t1 - t2 - t3;
  EXPECT_EQ(gi, -d * d);
  Literal gv(Shape(PrimitiveType::kC64, {}));
  gv.SetFromComplex(0, {gr, gi});
  EXPECT_EQ(Judge(g, {gv}).outputs[0].fail, 0);
  EXPECT_EQ(Judge(g, g.oracle).outputs[0].fail, 0);
}

// ---- triangular-solve (numerics.md FORWARD_ERROR around the exact set).

TEST(Enclosure, TriangularSolveByHand) {
  // L = [[2, 0], [1, 4]], b = [2, 9 + 2^-30 (f32: [9, 9 + 2^-20])]: the
  // exact x = [1, (b1 - 1) / 4] = [1, [2, 2 + 2^-22]] (by hand). C =
  // |L^-1||L| = [[1, 0], [0.5, 1]], C^2 |x| <= [1, 3 + 2^-22], so the
  // allowed error is 4 gamma_3(2^-24) [1, 3] ~ [7.2e-7, 2.2e-6] (by hand).
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  a = f32[2,2] parameter(0)
  b = f32[2,1] parameter(1)
  d = f32[2,1] parameter(2)
  s = f32[2,1] add(b, d)
  ROOT x = f32[2,1] triangular-solve(a, s), left_side=true, lower=true,
    unit_diagonal=false, transpose_a=NO_TRANSPOSE
})",
                       {"f32[2,2] {{2, 7}, {1, 4}}", "f32[2,1] {{2}, {9}}",
                        "f32[2,1] {{0}, {9.31322574615478515625e-10}}"});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const ArrayEnclosure& o = e.enc.outputs[0];
  const double g3 = 3 * std::ldexp(1.0, -24) / (1 - 3 * std::ldexp(1.0, -24));
  EXPECT_LE(o.lo[0], 1 - 4 * g3);
  EXPECT_GE(o.hi[0], 1 + 4 * g3);
  EXPECT_LE(o.hi[0] - o.lo[0], 2 * 4 * g3 * 1.01 + 2 * std::ldexp(1.0, -23));
  EXPECT_LE(o.lo[1], 2 - 4 * g3 * 3);
  EXPECT_GE(o.hi[1], 2 + std::ldexp(1.0, -22) + 4 * g3 * 3);
  EXPECT_LE(o.hi[1] - o.lo[1], std::ldexp(1.0, -22) + 2 * 4 * g3 * 3.01 +
                                   2 * std::ldexp(1.0, -22));
  EnclosureVerdict v = Judge(e, e.oracle);
  EXPECT_EQ(v.outputs[0].pass, 2) << v.Summary();
  EXPECT_EQ(Judge(e, {FromDoubles(PrimitiveType::kF32, {2, 1}, {1, 2.00002})})
                .outputs[0]
                .fail,
            1);
  // The upper triangle (7) is not read; a zero diagonal may be singular.
  Enclosed z = Enclose(R"(
HloModule m
ENTRY main {
  a = f32[2,2] parameter(0)
  b = f32[2,1] parameter(1)
  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, lower=true,
    unit_diagonal=false, transpose_a=NO_TRANSPOSE
})",
                       {"f32[2,2] {{0, 7}, {1, 4}}", "f32[2,1] {{2}, {9}}"});
  EXPECT_FALSE(z.enc.outputs[0].Judgeable(0));
  EXPECT_FALSE(z.enc.outputs[0].Judgeable(1));
}

// Random well-conditioned systems, left (L X = B) and right with a
// transposed operand (X L^T = B, i.e. L X^T = B^T): the solution in
// __float128 substitution (113 bits: far below the f32 bound), f32
// substitution in both summation orders (conforming implementations
// simulated in plain C++) and the oracle's value all inside; a solution
// with one element off by 1e-3 fails.
TEST(Enclosure, TriangularSolveHoldsSubstitutionsOnRandomData) {
  constexpr char kSolve[] = R"(
HloModule m
ENTRY main {
  a = f32[6,6] parameter(0)
  b = f32[%b] parameter(1)
  ROOT x = f32[%b] triangular-solve(a, b), left_side=%left, lower=true,
    unit_diagonal=false, transpose_a=%tr
})";
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> diag(1.0f, 2.0f), off(-0.5f, 0.5f),
      rhs(-1.0f, 1.0f);
  int checked = 0, wrong_failed = 0;
  double widest = 0;
  constexpr int m = 6, k = 3;
  for (int trial = 0; trial < 10; ++trial) {
    const bool left = trial % 2 == 0;
    float l[m][m] = {};
    std::string at = "f32[6,6] {";
    for (int i = 0; i < m; ++i) {
      at += i ? ", {" : "{";
      for (int j = 0; j < m; ++j) {
        l[i][j] = j < i ? off(rng) : j == i ? diag(rng) : 0.0f;
        char buf[40];
        std::snprintf(buf, sizeof(buf), "%s%.9g", j ? ", " : "", l[i][j]);
        at += buf;
      }
      at += "}";
    }
    at += "}";
    // B: m x k (left) or k x m (right); column c of the left form is
    // rhs[c][0..m).
    float rh[k][m];
    for (auto& r : rh) {
      for (float& v : r) v = rhs(rng);
    }
    std::string bt = left ? "f32[6,3] {" : "f32[3,6] {";
    const int rows = left ? m : k, cols = left ? k : m;
    for (int r = 0; r < rows; ++r) {
      bt += r ? ", {" : "{";
      for (int c = 0; c < cols; ++c) {
        char buf[40];
        std::snprintf(buf, sizeof(buf), "%s%.9g", c ? ", " : "",
                      left ? rh[c][r] : rh[r][c]);
        bt += buf;
      }
      bt += "}";
    }
    bt += "}";
    const std::string text = absl::StrReplaceAll(
        kSolve, {{"%b", left ? "6,3" : "3,6"},
                 {"%left", left ? "true" : "false"},
                 {"%tr", left ? "NO_TRANSPOSE" : "TRANSPOSE"}});
    Enclosed e = Enclose(text.c_str(), {at, bt});
    ASSERT_EQ(e.enc.outputs.size(), 1u);
    const ArrayEnclosure& o = e.enc.outputs[0];
    std::vector<double> wrong(m * k);
    for (int c = 0; c < k; ++c) {
      __float128 xq[m];
      float xf[m], xr[m];
      for (int i = 0; i < m; ++i) {
        __float128 sq = rh[c][i];
        float sf = rh[c][i], sr = rh[c][i];
        for (int j = 0; j < i; ++j) {
          sq -= static_cast<__float128>(l[i][j]) * xq[j];
          sf -= l[i][j] * xf[j];
        }
        for (int j = i - 1; j >= 0; --j) sr -= l[i][j] * xr[j];
        xq[i] = sq / l[i][i];
        xf[i] = sf / l[i][i];
        xr[i] = sr / l[i][i];
      }
      for (int i = 0; i < m; ++i) {
        const int idx = left ? i * k + c : c * m + i;
        for (double ref :
             {static_cast<double>(xq[i]), double{xf[i]}, double{xr[i]}}) {
          EXPECT_LE(o.lo[idx], ref) << trial << " " << c << " " << i;
          EXPECT_GE(o.hi[idx], ref) << trial << " " << c << " " << i;
          ++checked;
        }
        widest = std::max(widest, RelativeRadius(o, idx));
        wrong[idx] = xf[i];
      }
    }
    EnclosureVerdict v = Judge(e, e.oracle);
    EXPECT_EQ(v.outputs[0].fail, 0) << v.Summary();
    wrong[trial % (m * k)] += 1e-3;
    wrong_failed += Judge(e, {FromDoubles(PrimitiveType::kF32,
                                          {left ? m : k, left ? k : m}, wrong)})
                        .outputs[0]
                        .fail;
  }
  EXPECT_EQ(checked, 10 * m * k * 3);
  EXPECT_EQ(wrong_failed, 10);
  // C^2 |x| mixes the other components in: small solution elements get a
  // relatively wide (still judged) enclosure.
  EXPECT_LT(widest, 1.0 / 16);
  std::printf(
      "triangular-solve: %d values checked, largest relative radius "
      "%.3g\n",
      checked, widest);
}

TEST(Enclosure, SortOfExactValuesIsExactAndOfRoundedValuesNoRule) {
  constexpr char kSort[] = R"(
HloModule s
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[3] parameter(0)
  ROOT s = f32[3] sort(x), dimensions={0}, to_apply=less
})";
  Enclosed e = Enclose(kSort, {"f32[3] {3, -1, 2}"});
  EnclosureVerdict v =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {3}, {-1, 2, 3})});
  EXPECT_EQ(v.outputs[0].pass, 3) << v.Summary();
  EnclosureVerdict bad =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {3}, {3, 2, -1})});
  EXPECT_EQ(bad.outputs[0].fail, 2) << bad.Summary();
}

TEST(Enclosure, IdenticalAtOneAndTwoOracleThreads) {
  for (const char* text : {kLayerNorm, kSoftmax}) {
    const std::vector<std::string> args =
        text == kSoftmax ? std::vector<std::string>{"f32[4] {1, 2, 3, 0.5}"}
                         : kLayerNormArgs;
    Enclosed one = Enclose(text, args, 1);
    Enclosed two = Enclose(text, args, 2);
    ASSERT_EQ(one.enc.outputs.size(), two.enc.outputs.size());
    for (size_t k = 0; k < one.enc.outputs.size(); ++k) {
      EXPECT_EQ(one.enc.outputs[k].lo, two.enc.outputs[k].lo);
      EXPECT_EQ(one.enc.outputs[k].hi, two.enc.outputs[k].hi);
      EXPECT_EQ(one.enc.outputs[k].flags, two.enc.outputs[k].flags);
    }
  }
}

TEST(Enclosure, DeclaredFlushToZeroAdmitsFlushedResults) {
  // 1e-20 * 1e-20 = 1e-40 is subnormal in f32: a backend flushing it
  // gives 0, outside the enclosure unless FTZ is declared for f32.
  auto m = ParseHloModule(R"(
HloModule ftz
ENTRY main {
  x = f32[] parameter(0)
  ROOT m = f32[] multiply(x, x)
})");
  ASSERT_TRUE(m.ok());
  std::vector<Literal> args;
  args.push_back(*ParseLiteral("f32[] 1e-20"));
  const std::vector<Literal> flushed = {
      FromDoubles(PrimitiveType::kF32, {}, {0})};
  conformance::Deviations none, ftz;
  ftz.ftz_types.insert(PrimitiveType::kF32);
  auto strict = ComputeEnclosure(**m, args,
                                 conformance::PolicyEnclosureOptions({}, none));
  ASSERT_TRUE(strict.ok());
  EXPECT_EQ(JudgeWithEnclosure(*strict, flushed)->TotalFail(), 1);
  auto declared =
      ComputeEnclosure(**m, args, conformance::PolicyEnclosureOptions({}, ftz));
  ASSERT_TRUE(declared.ok());
  EXPECT_EQ(JudgeWithEnclosure(*declared, flushed)->TotalFail(), 0);
}

TEST(Enclosure, DeclaredFastMinMaxAdmitsADroppedNan) {
  auto m = ParseHloModule(R"(
HloModule mm
ENTRY main {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
})");
  ASSERT_TRUE(m.ok());
  std::vector<Literal> args;
  args.push_back(*ParseLiteral("f32[] nan"));
  args.push_back(*ParseLiteral("f32[] 2"));
  const std::vector<Literal> dropped = {
      FromDoubles(PrimitiveType::kF32, {}, {2})};
  conformance::Deviations none, fast;
  fast.fast_min_max = true;
  auto strict = ComputeEnclosure(**m, args,
                                 conformance::PolicyEnclosureOptions({}, none));
  ASSERT_TRUE(strict.ok());
  EXPECT_EQ(JudgeWithEnclosure(*strict, dropped)->TotalFail(), 1);
  auto declared = ComputeEnclosure(
      **m, args, conformance::PolicyEnclosureOptions({}, fast));
  ASSERT_TRUE(declared.ok());
  EXPECT_EQ(JudgeWithEnclosure(*declared, dropped)->TotalFail(), 0);
}

TEST(Enclosure, ImplementationDefinedElementsFollowTheProfile) {
  // 7 / 0 in s32: XLA gives -1 (numerics.md 3.1, impl.divide): required
  // under the XLA profile, don't care under the portable one.
  auto m = ParseHloModule(R"(
HloModule d
ENTRY main {
  x = s32[2] parameter(0)
  y = s32[2] parameter(1)
  ROOT q = s32[2] divide(x, y)
})");
  ASSERT_TRUE(m.ok());
  std::vector<Literal> args;
  args.push_back(*ParseLiteral("s32[2] {7, 8}"));
  args.push_back(*ParseLiteral("s32[2] {0, 2}"));
  const std::vector<Literal> other = {*ParseLiteral("s32[2] {5, 4}")};
  EvaluatorOptions xla, portable;
  portable.profile = Profile::kPortable;
  auto x =
      ComputeEnclosure(**m, args, conformance::PolicyEnclosureOptions(xla));
  ASSERT_TRUE(x.ok());
  auto vx = JudgeWithEnclosure(*x, other);
  EXPECT_EQ(vx->outputs[0].fail, 1) << vx->Summary();
  EXPECT_EQ(vx->outputs[0].pass, 1) << vx->Summary();
  auto p = ComputeEnclosure(**m, args,
                            conformance::PolicyEnclosureOptions(portable));
  ASSERT_TRUE(p.ok());
  auto vp = JudgeWithEnclosure(*p, other);
  EXPECT_EQ(vp->outputs[0].fail, 0) << vp->Summary();
  EXPECT_EQ(vp->outputs[0].dont_care, 1) << vp->Summary();
}

TEST(Enclosure, OpTheOracleCannotIsolateIsUnjudgedNotAnError) {
  // infeed needs the run's host queues, which the pass does not have.
  auto m = ParseHloModule(R"(
HloModule h
ENTRY main {
  t = token[] after-all()
  i = (f32[2], token[]) infeed(t)
  ROOT x = f32[2] get-tuple-element(i), index=0
})");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_TRUE(VerifyModule(**m).ok());
  auto enc = ComputeEnclosure(**m, {}, conformance::PolicyEnclosureOptions());
  ASSERT_TRUE(enc.ok()) << enc.status();
  const ArrayEnclosure& o = enc->outputs[0];
  EXPECT_FALSE(o.Judgeable(0));
  ASSERT_FALSE(o.reasons.empty());
  EXPECT_NE(o.reasons.begin()->find("infeed"), std::string::npos)
      << *o.reasons.begin();
}

// rng and rng-get-and-update-state: every element is implementation-
// defined (the oracle marks them all, the comparator judges them ANY), so
// every element is don't care, whatever a backend returns, and the values
// computed from them are don't care too (an add of a constant keeps the
// mark); a value not computed from them is still judged.
TEST(Enclosure, RngElementsAreDontCareAndPropagate) {
  Enclosed e = Enclose(R"(
HloModule r
ENTRY main {
  x = f32[3] parameter(0)
  a = f32[] constant(0)
  b = f32[] constant(1)
  u = f32[3] rng(a, b), distribution=rng_uniform
  s = u64[2] rng-get-and-update-state(), delta=16
  y = f32[3] add(u, x)
  z = f32[3] multiply(x, x)
  ROOT t = (f32[3], u64[2], f32[3]) tuple(y, s, z)
})",
                       {"f32[3] {1, 2, 3}"});
  ASSERT_EQ(e.enc.outputs.size(), 3u);
  // Values no generator could give in [0, 1) + x: don't care all the same.
  std::vector<Literal> values;
  values.push_back(FromDoubles(PrimitiveType::kF32, {3}, {-7, 1e30, 0}));
  values.push_back(*ParseLiteral("u64[2] {5, 6}"));
  values.push_back(FromDoubles(PrimitiveType::kF32, {3}, {1, 4, 9}));
  EnclosureVerdict v = Judge(e, values);
  ASSERT_EQ(v.outputs.size(), 3u);
  EXPECT_EQ(v.outputs[0].dont_care, 3);
  EXPECT_EQ(v.outputs[0].fail, 0);
  EXPECT_EQ(v.outputs[1].dont_care, 2);
  EXPECT_EQ(v.outputs[2].pass, 3);
  // The multiply is still judged: a wrong square fails.
  values[2] = FromDoubles(PrimitiveType::kF32, {3}, {1, 4, 10});
  EXPECT_EQ(Judge(e, values).outputs[2].fail, 1);
}

// Complex functions on exact operands: a box around the oracle's value as
// wide as the comparator's normwise budget (k = 16 for exp and tan). The
// values judged are computed here independently, with std::exp / std::tan
// on std::complex<double> rounded to float per part: inside. One moved by
// 1e-4 relative (far beyond 16 u = 9.5e-7) fails. The same function of a
// rounded value (a square before it) has no rule: unjudged, never a pass.
TEST(Enclosure, ComplexFunctionsOfExactOperandsGetTheNormwiseBox) {
  Enclosed e = Enclose(R"(
HloModule cf
ENTRY main {
  z = c64[3] parameter(0)
  x = f32[3] parameter(1)
  ex = c64[3] exponential(z)
  tn = c64[3] tan(z)
  zero = f32[3] constant({0, 0, 0})
  s = f32[3] multiply(x, x)
  c = c64[3] complex(s, zero)
  w = c64[3] exponential(c)
  ROOT t = (c64[3], c64[3], c64[3]) tuple(ex, tn, w)
})",
                       {"c64[3] {(0.5, 1.25), (-2, 0.75), (0.1, -3)}",
                        "f32[3] {0.3, 1.7, -0.9}"});
  ASSERT_EQ(e.enc.outputs.size(), 3u);
  const std::complex<double> z[3] = {{0.5, 1.25}, {-2, 0.75}, {0.1, -3}};
  auto image = [&](auto fn, double scale) {
    Literal lit(Shape(PrimitiveType::kC64, {3}));
    for (int i = 0; i < 3; ++i) {
      const std::complex<double> y = fn(z[i]) * scale;
      lit.SetFromComplex(
          i, {static_cast<float>(y.real()), static_cast<float>(y.imag())});
    }
    return lit;
  };
  auto exp_fn = [](std::complex<double> v) { return std::exp(v); };
  auto tan_fn = [](std::complex<double> v) { return std::tan(v); };
  std::vector<Literal> values;
  values.push_back(image(exp_fn, 1.0));
  values.push_back(image(tan_fn, 1.0));
  values.push_back(e.oracle[2]);
  EnclosureVerdict v = Judge(e, values);
  ASSERT_EQ(v.outputs.size(), 3u);
  EXPECT_EQ(v.outputs[0].pass, 3) << v.Summary();
  EXPECT_EQ(v.outputs[1].pass, 3) << v.Summary();
  EXPECT_EQ(v.outputs[2].unjudged, 3) << v.Summary();
  EXPECT_EQ(v.outputs[2].pass, 0);
  EXPECT_LT(v.outputs[0].max_relative_radius, 2e-6);
  values[0] = image(exp_fn, 1 + 1e-4);
  values[1] = image(tan_fn, 1 - 1e-4);
  v = Judge(e, values);
  EXPECT_EQ(v.outputs[0].fail, 3) << v.Summary();
  EXPECT_EQ(v.outputs[1].fail, 3) << v.Summary();
}

// A device send / recv-done pair (no is_host_transfer) in one computation:
// the recv-done's data is the sent value's enclosure, unchanged, so a
// rounded value sent and used after the receive is judged like the value
// itself: x * y is enclosed in [RD(x*y), RU(x*y)], the two floats around
// the exact product (computed here in double: 0.3f * 0.7f and -1.5 * 0.1f
// need 46 and 26 bits, so neither is a float),
// the oracle's value passes and one a float ulp off fails. A channel with
// two sends has no rule (which send a receive gets depends on the
// schedule): unjudged.
TEST(Enclosure, DeviceSendRecvPairCarriesTheSentEnclosure) {
  Enclosed e = Enclose(R"(
HloModule sr
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  m = f32[2] multiply(x, y)
  tok = token[] after-all()
  s = (f32[2], u32[], token[]) send(m, tok), channel_id=5
  sd = token[] send-done(s), channel_id=5
  r = (f32[2], u32[], token[]) recv(tok), channel_id=5
  rd = (f32[2], token[]) recv-done(r), channel_id=5
  d = f32[2] get-tuple-element(rd), index=0
  s2 = (f32[2], u32[], token[]) send(x, tok), channel_id=6
  sd2 = token[] send-done(s2), channel_id=6
  s3 = (f32[2], u32[], token[]) send(y, tok), channel_id=6
  sd3 = token[] send-done(s3), channel_id=6
  r2 = (f32[2], u32[], token[]) recv(tok), channel_id=6
  rd2 = (f32[2], token[]) recv-done(r2), channel_id=6
  d2 = f32[2] get-tuple-element(rd2), index=0
  ROOT t = (f32[2], f32[2]) tuple(d, d2)
})",
                       {"f32[2] {0.3, -1.5}", "f32[2] {0.7, 0.1}"});
  ASSERT_EQ(e.enc.outputs.size(), 2u);
  const ArrayEnclosure& o = e.enc.outputs[0];
  ASSERT_TRUE(o.Judgeable(0) && o.Judgeable(1));
  const double exact0 = static_cast<double>(0.3f) * static_cast<double>(0.7f);
  const double exact1 = -1.5 * static_cast<double>(0.1f);
  EXPECT_LT(o.lo[0], exact0);
  EXPECT_GT(o.hi[0], exact0);
  EXPECT_LT(o.lo[1], exact1);
  EXPECT_GT(o.hi[1], exact1);
  // One float ulp wide: the two floats around the exact product.
  EXPECT_EQ(static_cast<float>(o.hi[0]),
            std::nextafter(static_cast<float>(o.lo[0]), 10.0f));
  EXPECT_FALSE(e.enc.outputs[1].Judgeable(0));
  std::vector<Literal> values = {e.oracle[0], e.oracle[1]};
  EnclosureVerdict v = Judge(e, values);
  EXPECT_EQ(v.outputs[0].pass, 2) << v.Summary();
  EXPECT_EQ(v.outputs[1].unjudged, 2) << v.Summary();
  values[0] = FromDoubles(
      PrimitiveType::kF32, {2},
      {std::nextafter(static_cast<float>(o.hi[0]), 10.0f), o.lo[1]});
  EXPECT_EQ(Judge(e, values).outputs[0].fail, 1);
}

// Results at zero and past max are narrow in the type's own terms: exp of
// -inf and of -200 is +0, enclosed in [-mn, mn] by the class's subnormal
// floor (relative radius 1 against min normal mn), and exp(x) for the
// float x = 88.72283935546875, 2.4e-7 above ln(max_f32), is max_f32 (1 +
// 2.4e-7): inf when correctly rounded, max_f32 within the 8-ulp budget,
// so the enclosure is [x', inf] with x' a few ulps below max.
// Both are judged (they used to be unjudged as "too wide"); a value past
// the floor fails, and the largest relative radius reported leaves the
// floor-bounded zeros out. A genuinely wide enclosure (x * 2^-40 - 1 + 1:
// cancellation) stays unjudged.
TEST(Enclosure, ZerosAtTheFloorAndOverflowsAreJudged) {
  Enclosed e = Enclose(R"(
HloModule z
ENTRY main {
  x = f32[4] parameter(0)
  r = f32[4] exponential(x)
  c = f32[4] constant({9.094947017729282e-13, 9.094947017729282e-13, 9.094947017729282e-13, 9.094947017729282e-13})
  m = f32[4] multiply(x, c)
  one = f32[4] constant({1, 1, 1, 1})
  a = f32[4] add(m, one)
  d = f32[4] subtract(a, one)
  ROOT t = (f32[4], f32[4]) tuple(r, d)
})",
                       {"f32[4] {-inf, -200, 88.72283935546875, 1}"});
  ASSERT_EQ(e.enc.outputs.size(), 2u);
  const ArrayEnclosure& o = e.enc.outputs[0];
  EXPECT_TRUE(WithinSubnormalFloor(o, 0));
  EXPECT_TRUE(WithinSubnormalFloor(o, 1));
  EXPECT_FALSE(WithinSubnormalFloor(o, 2));
  EXPECT_EQ(o.hi[2], std::numeric_limits<double>::infinity());
  EXPECT_LT(RelativeRadius(o, 2), 1e-5);
  std::vector<Literal> values = {e.oracle[0], e.oracle[1]};
  EnclosureVerdict v = Judge(e, values);
  EXPECT_EQ(v.outputs[0].pass, 4) << v.Summary();
  EXPECT_LT(v.outputs[0].max_relative_radius, 1e-5);
  // Cancellation: x * 2^-40 + 1 rounds to 1 or a neighbour; minus 1 is a
  // few ulps of 1 wide around a value of 2^-40 x.
  EXPECT_EQ(v.outputs[1].unjudged, 3) << v.Summary();
  values[0] = FromDoubles(PrimitiveType::kF32, {4},
                          {0x1p-124, 0, 3.4028234663852886e38, std::exp(1.0)});
  v = Judge(e, values);
  EXPECT_EQ(v.outputs[0].fail, 1) << v.Summary();
}

// ---- The dot family's newer members and the async wrappers.

// ragged-dot, mode 1 (lhs rows grouped, rhs [g, k, n]): group sizes
// {2, 3, 0} put rows 0-1 in group 0, rows 2-4 in group 1 and row 5 in no
// group (impl.ragged-dot.1: don't care). Every summation order of the
// products, computed here in plain C++ (forward and reversed in float, an
// FMA chain, the double sum rounded once), lies inside; a group boundary
// moved by one (row 2 multiplied by group 0's rhs) fails.
TEST(Enclosure, RaggedDotEveryOrderInsideAndAMovedGroupBoundaryFails) {
  constexpr int kRows = 6, kK = 24, kN = 4, kG = 3;
  std::vector<double> lhs(kRows * kK), rhs(kG * kK * kN);
  for (int i = 0; i < kRows * kK; ++i) {
    lhs[i] = static_cast<float>(std::sin(0.37 * i + 0.1) * 3.0);
  }
  for (int i = 0; i < kG * kK * kN; ++i) {
    rhs[i] = static_cast<float>(std::cos(0.21 * i) * 0.7 + 0.01 * (i % 5));
  }
  // Nested literal text of row-major `v` with dimensions `dims`.
  auto to_text = [](const char* shape, std::vector<int> dims,
                    const std::vector<double>& v) {
    size_t next = 0;
    std::function<std::string(size_t)> nest = [&](size_t d) {
      std::string t = "{";
      for (int i = 0; i < dims[d]; ++i) {
        if (i) t += ", ";
        t += d + 1 == dims.size() ? absl::StrFormat("%.9g", v[next++])
                                  : nest(d + 1);
      }
      return t + "}";
    };
    return std::string(shape) + " " + nest(0);
  };
  Enclosed e =
      Enclose(R"(
HloModule m
ENTRY main {
  x = f32[6,24] parameter(0)
  w = f32[3,24,4] parameter(1)
  g = s32[3] parameter(2)
  ROOT r = f32[6,4] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})",
              {to_text("f32[6,24]", {kRows, kK}, lhs),
               to_text("f32[3,24,4]", {kG, kK, kN}, rhs), "s32[3] {2, 3, 0}"});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  auto group_of = [](int row) { return row < 2 ? 0 : row < 5 ? 1 : -1; };
  auto orders = [&](int moved_row) {
    std::vector<std::vector<double>> outs(4, std::vector<double>(kRows * kN));
    for (int i = 0; i < kRows; ++i) {
      int g = group_of(i);
      if (i == moved_row) g = 0;
      for (int n = 0; n < kN; ++n) {
        float fwd = 0, rev = 0, fma = 0;
        double d = 0;
        for (int k = 0; k < kK; ++k) {
          if (g < 0) break;
          const float a = static_cast<float>(lhs[i * kK + k]);
          const float b = static_cast<float>(rhs[(g * kK + k) * kN + n]);
          fwd += a * b;
          fma = std::fma(a, b, fma);
          d += static_cast<double>(a) * b;
          const int kr = kK - 1 - k;
          rev += static_cast<float>(lhs[i * kK + kr]) *
                 static_cast<float>(rhs[(g * kK + kr) * kN + n]);
        }
        outs[0][i * kN + n] = fwd;
        outs[1][i * kN + n] = rev;
        outs[2][i * kN + n] = fma;
        outs[3][i * kN + n] = static_cast<float>(d);
      }
    }
    return outs;
  };
  for (const auto& v : orders(-1)) {
    EnclosureVerdict ok =
        Judge(e, {FromDoubles(PrimitiveType::kF32, {6, 4}, v)});
    ASSERT_EQ(ok.outputs.size(), 1u);
    EXPECT_EQ(ok.outputs[0].fail, 0) << ok.Summary();
    EXPECT_EQ(ok.outputs[0].dont_care, kN) << ok.Summary();  // row 5
    EXPECT_EQ(ok.outputs[0].pass, 5 * kN) << ok.Summary();
  }
  EnclosureVerdict bad =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {6, 4}, orders(2)[0])});
  EXPECT_EQ(bad.outputs[0].fail, kN) << bad.Summary();
  // The oracle's own value passes.
  EnclosureVerdict own = Judge(e, e.oracle);
  EXPECT_EQ(own.outputs[0].fail, 0) << own.Summary();
}

// ragged-dot, mode 2 (the contracting dimension grouped): group sizes
// {2, 4} split k = 0..5 into {0, 1} and {2..5}; the result [2, 1, 1] holds
// each group's partial dot. By hand: x = {1, 2^-24, 3, 2^-23, -3, 5},
// w = {1, 1, 1, 1, 1, 0.5}: group 0 = 1 + 2^-24 (a tie: RN_f32 gives 1,
// 1 + 2^-23 in another order is not possible with two terms, the exact
// value kept wider is inside), group 1 = 3 + 2^-23 - 3 + 2.5 = 2.5 + 2^-23
// (every order: the exact sum, 3 + 2^-23 - 3 first gives 2^-23 exactly).
// The whole-k sum (group sizes ignored) fails both.
TEST(Enclosure, RaggedDotContractingGroupsByHand) {
  Enclosed e =
      Enclose(R"(
HloModule m
ENTRY main {
  x = f32[1,6] parameter(0)
  w = f32[6,1] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = f32[2,1,1] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
})",
              {"f32[1,6] {{1, 5.9604644775390625e-08, 3, "
               "1.1920928955078125e-07, -3, 5}}",
               "f32[6,1] {{1}, {1}, {1}, {1}, {1}, {0.5}}", "s32[2] {2, 4}"});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const ArrayEnclosure& o = e.enc.outputs[0];
  const double g0 = 1 + std::ldexp(1.0, -24), g1 = 2.5 + std::ldexp(1.0, -23);
  EXPECT_LE(o.lo[0], 1.0);
  EXPECT_GE(o.hi[0], g0);
  EXPECT_LE(o.lo[1], g1);
  EXPECT_GE(o.hi[1], g1);
  for (double v0 : {1.0, g0}) {
    EnclosureVerdict ok =
        Judge(e, {FromDoubles(PrimitiveType::kF32, {2, 1, 1}, {v0, g1})});
    EXPECT_EQ(ok.outputs[0].fail, 0) << ok.Summary();
    EXPECT_EQ(ok.outputs[0].pass, 2) << ok.Summary();
  }
  const double all = 1 + std::ldexp(1.0, -24) + g1;
  EnclosureVerdict bad =
      Judge(e, {FromDoubles(PrimitiveType::kF32, {2, 1, 1}, {all, all})});
  EXPECT_EQ(bad.outputs[0].fail, 2) << bad.Summary();
}

// ragged-dot with group sizes the enclosures do not decide: (1 - 2^-24) +
// 2^-25 is a tie, [1 - 2^-24, 1] in any conforming implementation, so its
// conversion to s32 is 0 or 1: every element undecided, never a guess.
TEST(Enclosure, RaggedDotWithUndecidedGroupSizesIsUnjudged) {
  Enclosed e = Enclose(
      R"(
HloModule m
ENTRY main {
  x = f32[2,2] parameter(0)
  w = f32[2,2,1] parameter(1)
  f = f32[2] parameter(2)
  tiny = f32[2] constant({2.98023224e-08, 2.98023224e-08})
  p = f32[2] add(f, tiny)
  g = s32[2] convert(p)
  ROOT r = f32[2,1] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})",
      {"f32[2,2] {{1, 2}, {3, 4}}", "f32[2,2,1] {{{1}, {1}}, {{2}, {2}}}",
       "f32[2] {0.99999994, 0.99999994}"});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  for (int i = 0; i < 2; ++i) EXPECT_FALSE(e.enc.outputs[0].Judgeable(i));
}

// scaled-dot: lhs bf16 {1 + 2^-7, 1} scaled by 1 + 2^-7 (one block), rhs
// {1, 1} scaled by 1. Dequantized in bf16 (impl.scaled-dot.1), lhs[0] =
// RN_bf16(1 + 2^-6 + 2^-14) = 1 + 2^-6 and the dot is 2 + 2^-6 + 2^-7; an
// implementation dequantizing in f32 keeps 1 + 2^-6 + 2^-14 and gives
// 2 + 2^-6 + 2^-7 + 2^-14. Both pass; the dot without the scales
// (2 + 2^-7) and with the scale applied twice fail.
TEST(Enclosure, ScaledDotDequantizationInAnyWiderTypeIsInside) {
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  x = bf16[1,2] parameter(0)
  w = bf16[2,1] parameter(1)
  xs = bf16[1,1] parameter(2)
  ws = bf16[1,1] parameter(3)
  ROOT r = f32[1,1] scaled-dot(x, w, xs, ws), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                       {"bf16[1,2] {{1.0078125, 1}}", "bf16[2,1] {{1}, {1}}",
                        "bf16[1,1] {{1.0078125}}", "bf16[1,1] {{1}}"});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  const double bf = 2 + std::ldexp(1.0, -6) + std::ldexp(1.0, -7);
  const double f32 = bf + std::ldexp(1.0, -14);
  for (double v : {bf, f32}) {
    EnclosureVerdict ok =
        Judge(e, {FromDoubles(PrimitiveType::kF32, {1, 1}, {v})});
    EXPECT_EQ(ok.outputs[0].pass, 1) << ok.Summary() << " value " << v;
  }
  const double unscaled = 2 + std::ldexp(1.0, -7);
  const double twice = (1 + std::ldexp(1.0, -7)) * (1 + std::ldexp(1.0, -7)) *
                           (1 + std::ldexp(1.0, -7)) +
                       (1 + std::ldexp(1.0, -7));
  for (double v : {unscaled, twice}) {
    EnclosureVerdict bad =
        Judge(e, {FromDoubles(PrimitiveType::kF32, {1, 1}, {v})});
    EXPECT_EQ(bad.outputs[0].fail, 1) << bad.Summary() << " value " << v;
  }
  EnclosureVerdict own = Judge(e, e.oracle);
  EXPECT_EQ(own.outputs[0].pass, 1) << own.Summary();
}

// scan of a cumulative add, x = {1, 2^-24 x 7}, init 0. Left to right in
// f32 every prefix rounds back to 1 (1 + 2^-24 is a tie to even); the
// small terms summed first give 1 + 2^-23 at the third step and
// RN(1 + 7 2^-24) = 1 + 2^-21 at the last. With is_associative=true both
// associations (computed here in float) are inside every prefix's
// enclosure; without it the sequential chain is the definition and the
// chain's enclosure holds the left-to-right values. Both fail a prefix
// that dropped x_0 (3 2^-24 at step 3).
TEST(Enclosure, ScanCumulativeAddAssociativeAndSequential) {
  static constexpr char kModule[] = R"(
HloModule m
cum {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  a = f32[] add(x, c)
  ROOT t = (f32[], f32[]) tuple(a, a)
}
ENTRY main {
  x = f32[8] parameter(0)
  z = f32[] parameter(1)
  ROOT r = (f32[8], f32[]) scan(x, z), dimensions={0}, num_carries=1, is_associative=%s, to_apply=cum
})";
  const float tiny = std::ldexp(1.0f, -24);
  std::vector<double> seq(8), small_first(8);
  float acc = 0;
  for (int t = 0; t < 8; ++t) {
    acc += t == 0 ? 1.0f : tiny;
    seq[t] = acc;
    float smalls = 0;
    for (int k = 1; k <= t; ++k) smalls += tiny;
    small_first[t] = smalls + 1.0f;
  }
  EXPECT_EQ(seq[7], 1.0);
  EXPECT_EQ(small_first[2], 1.0 + std::ldexp(1.0, -23));
  EXPECT_EQ(small_first[7], 1.0 + std::ldexp(1.0, -21));
  const std::string x =
      "f32[8] {1, 5.96046448e-08, 5.96046448e-08, "
      "5.96046448e-08, 5.96046448e-08, 5.96046448e-08, "
      "5.96046448e-08, 5.96046448e-08}";
  for (const char* assoc : {"true", "false"}) {
    SCOPED_TRACE(assoc);
    Enclosed e =
        Enclose(absl::StrFormat(kModule, assoc).c_str(), {x, "f32[] 0"});
    ASSERT_EQ(e.enc.outputs.size(), 2u);
    std::vector<std::vector<double>> ok = {seq};
    if (std::string(assoc) == "true") ok.push_back(small_first);
    for (const auto& v : ok) {
      EnclosureVerdict vd =
          Judge(e, {FromDoubles(PrimitiveType::kF32, {8}, v),
                    FromDoubles(PrimitiveType::kF32, {}, {v[7]})});
      EXPECT_EQ(vd.TotalFail(), 0) << vd.Summary();
      EXPECT_EQ(vd.outputs[0].pass, 8) << vd.Summary();
      EXPECT_EQ(vd.outputs[1].pass, 1) << vd.Summary();
    }
    std::vector<double> dropped = seq;
    dropped[3] = 3 * std::ldexp(1.0, -24);
    EnclosureVerdict bad =
        Judge(e, {FromDoubles(PrimitiveType::kF32, {8}, dropped),
                  FromDoubles(PrimitiveType::kF32, {}, {seq[7]})});
    EXPECT_EQ(bad.outputs[0].fail, 1) << bad.Summary();
    EnclosureVerdict own = Judge(e, e.oracle);
    EXPECT_EQ(own.TotalFail(), 0) << own.Summary();
  }
}

// fft: c64[16] FFT of a computed input (x * 1.1, each product rounded
// to f32, so the transform's operand is an enclosure, not a point).
// Inside: an iterative radix-2 Cooley-Tukey FFT in float with float
// twiddles, and the direct DFT in long double rounded to float, both of
// the f32 products (computed here, not by the oracle). Outside: the
// transform with conjugated twiddles (the IFFT's sign) and the
// untransformed products. The largest relative radius stays small.
TEST(Enclosure, FftRadix2AndDirectDftInsideConjugateTwiddlesFail) {
  constexpr int kN = 16;
  std::vector<std::complex<float>> x(kN);
  std::string text = "c64[16] {";
  for (int j = 0; j < kN; ++j) {
    x[j] = {static_cast<float>(std::sin(1.3 * j) + 0.25),
            static_cast<float>(std::cos(0.7 * j * j) - 0.5)};
    text += absl::StrFormat("%s(%.9g, %.9g)", j ? ", " : "", x[j].real(),
                            x[j].imag());
  }
  text += "}";
  Enclosed e = Enclose(R"(
HloModule m
ENTRY main {
  x = c64[16] parameter(0)
  s = c64[] constant((1.1, 0))
  b = c64[16] broadcast(s), dimensions={}
  p = c64[16] multiply(x, b)
  ROOT f = c64[16] fft(p), fft_type=FFT, fft_length={16}
})",
                       {text});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  // The products as f32 computes them (the real factor 1.1f: im * 0 adds
  // an exact zero).
  std::vector<std::complex<float>> p(kN);
  for (int j = 0; j < kN; ++j) {
    p[j] = {x[j].real() * 1.1f, x[j].imag() * 1.1f};
  }
  auto radix2 = [&](float sign, const std::vector<std::complex<float>>& in) {
    std::vector<std::complex<float>> a(kN);
    for (int j = 0; j < kN; ++j) {  // bit-reversed order
      int r = 0;
      for (int b = 0; b < 4; ++b) r |= ((j >> b) & 1) << (3 - b);
      a[r] = in[j];
    }
    for (int len = 2; len <= kN; len *= 2) {
      for (int i = 0; i < kN; i += len) {
        for (int k = 0; k < len / 2; ++k) {
          const float ang = sign * 2 * static_cast<float>(M_PI) * k / len;
          const std::complex<float> w(std::cos(ang), std::sin(ang));
          const std::complex<float> t = w * a[i + k + len / 2];
          a[i + k + len / 2] = a[i + k] - t;
          a[i + k] = a[i + k] + t;
        }
      }
    }
    std::vector<double> out;
    Literal lit(Shape(PrimitiveType::kC64, {kN}));
    for (int j = 0; j < kN; ++j) lit.SetFromComplex(j, a[j]);
    return lit;
  };
  Literal direct(Shape(PrimitiveType::kC64, {kN}));
  for (int k = 0; k < kN; ++k) {
    std::complex<long double> acc = 0;
    for (int j = 0; j < kN; ++j) {
      const long double ang = -2 * 3.14159265358979323846264338327950288L *
                              static_cast<long double>(j * k % kN) / kN;
      acc += std::complex<long double>(p[j].real(), p[j].imag()) *
             std::complex<long double>(std::cos(ang), std::sin(ang));
    }
    direct.SetFromComplex(
        k, {static_cast<float>(acc.real()), static_cast<float>(acc.imag())});
  }
  for (const Literal* v : {&direct}) {
    EnclosureVerdict ok = Judge(e, {*v});
    EXPECT_EQ(ok.outputs[0].fail, 0) << ok.Summary();
    EXPECT_EQ(ok.outputs[0].pass, kN) << ok.Summary();
    // 8 u L ||Y||_2 with L = 5, u = 2^-24, ||Y||_2 about 4 |Y_k|: about
    // 1e-5 of a typical element, more for the small ones.
    EXPECT_LT(ok.outputs[0].max_relative_radius, 1e-3) << ok.Summary();
  }
  EnclosureVerdict fwd = Judge(e, {radix2(-1, p)});
  EXPECT_EQ(fwd.outputs[0].fail, 0) << fwd.Summary();
  EnclosureVerdict conj = Judge(e, {radix2(+1, p)});
  EXPECT_GE(conj.outputs[0].fail, kN / 2) << conj.Summary();
  Literal untransformed(Shape(PrimitiveType::kC64, {kN}));
  for (int j = 0; j < kN; ++j) untransformed.SetFromComplex(j, p[j]);
  EnclosureVerdict none = Judge(e, {untransformed});
  EXPECT_GE(none.outputs[0].fail, kN / 2) << none.Summary();
  EnclosureVerdict own = Judge(e, e.oracle);
  EXPECT_EQ(own.outputs[0].fail, 0) << own.Summary();
  // On the exact argument the enclosure is the FFT class alone: the
  // radix-2 float FFT of x passes there too (it fails without the class's
  // allowance: checked by zeroing it), the conjugate fails.
  Enclosed point = Enclose(R"(
HloModule m
ENTRY main {
  x = c64[16] parameter(0)
  ROOT f = c64[16] fft(x), fft_type=FFT, fft_length={16}
})",
                           {text});
  EnclosureVerdict fx = Judge(point, {radix2(-1, x)});
  EXPECT_EQ(fx.outputs[0].fail, 0) << fx.Summary();
  EXPECT_EQ(fx.outputs[0].pass, kN) << fx.Summary();
  EnclosureVerdict cx = Judge(point, {radix2(+1, x)});
  EXPECT_GE(cx.outputs[0].fail, kN / 2) << cx.Summary();
}

// IRFFT of a computed (inexact) spectrum: whether it is Hermitian on the
// self-conjugate planes (impl.fft.1) is not decided, so every element is
// unjudged; of an exact spectrum (the argument itself) it is judged.
TEST(Enclosure, IrfftOfAnInexactSpectrumIsUndecided) {
  static constexpr char kModule[] = R"(
HloModule m
ENTRY main {
  x = c64[5] parameter(0)
  s = c64[] constant((%s, 0))
  b = c64[5] broadcast(s), dimensions={}
  p = c64[5] multiply(x, b)
  ROOT f = f32[8] fft(p), fft_type=IRFFT, fft_length={8}
})";
  const char* spectrum =
      "c64[5] {(8, 0), (1, 2), (0, -1), (0.5, 0.25), (3, 0)}";
  Enclosed inexact =
      Enclose(absl::StrFormat(kModule, "1.1").c_str(), {spectrum});
  ASSERT_EQ(inexact.enc.outputs.size(), 1u);
  for (int i = 0; i < 8; ++i) EXPECT_FALSE(inexact.enc.outputs[0].Judgeable(i));
  Enclosed exact = Enclose(R"(
HloModule m
ENTRY main {
  x = c64[5] parameter(0)
  ROOT f = f32[8] fft(x), fft_type=IRFFT, fft_length={8}
})",
                           {spectrum});
  EnclosureVerdict own = Judge(exact, exact.oracle);
  EXPECT_EQ(own.outputs[0].pass, 8) << own.Summary();
}

// async-start / update / done around a float add, and copy-start /
// copy-done: the wrapped computation's enclosure, as the plain add's
// ([1, 1 + 2^-23] for 1 + 2^-30, CorrectlyRoundedAdd... above).
TEST(Enclosure, AsyncWrappersCarryTheWrappedComputationsEnclosure) {
  Enclosed e = Enclose(R"(
HloModule m
wrapped {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  s = ((f32[], f32[]), f32[], s32[]) async-start(x, y), calls=wrapped
  u = ((f32[], f32[]), f32[], s32[]) async-update(s)
  d = f32[] async-done(u)
  c = (f32[], f32[], u32[]) copy-start(d)
  ROOT r = f32[] copy-done(c)
})",
                       {"f32[] 1", "f32[] 9.31322574615478515625e-10"});
  ASSERT_EQ(e.enc.outputs.size(), 1u);
  ASSERT_TRUE(e.enc.outputs[0].Judgeable(0));
  EXPECT_EQ(e.enc.outputs[0].lo[0], 1.0);
  EXPECT_EQ(e.enc.outputs[0].hi[0], 1.0 + std::ldexp(1.0, -23));
  EnclosureVerdict bad = Judge(e, {FromDoubles(PrimitiveType::kF32, {}, {2})});
  EXPECT_EQ(bad.outputs[0].fail, 1) << bad.Summary();
}

TEST(Enclosure, MissingErrorModelIsAnError) {
  auto m =
      ParseHloModule("HloModule m\nENTRY e {\n ROOT x = f32[] parameter(0)\n}");
  ASSERT_TRUE(m.ok());
  std::vector<Literal> args;
  args.push_back(Literal(Shape::Scalar(PrimitiveType::kF32)));
  auto r = ComputeEnclosure(**m, args, EnclosureOptions{});
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace hloref
