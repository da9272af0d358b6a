// Tests of the convolution evaluator (interpreter/ops/convolution.cc)
// against an independent reference written here from the seed's
// description: the input is explicitly base-dilated and padded (negative
// padding crops), the kernel explicitly dilated and reversed, groups are
// explicit slices, and the output is the plain strided correlation. Data
// are small integers stored in f32, so every sum is exact and the
// expected values are exact.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "interpreter/ops/accumulate_test_util.h"
#include "interpreter/ops/dot.h"

namespace hloref {
namespace {

using testing_acc::EvalRootDirect;
using testing_acc::Lcg;
using testing_acc::Make;
using testing_acc::RecordingContext;
using testing_acc::RunHlo;

struct WinDim {
  int64_t size, stride = 1, lo = 0, hi = 0, lhs_dil = 1, rhs_dil = 1;
  bool rev = false;
};

struct ConvCase {
  // Canonical sizes (batch, features, spatial...).
  int64_t batch, in_features, out_features;
  std::vector<int64_t> in_spatial;
  std::vector<WinDim> window;
  int64_t fgc = 1, bgc = 1;
  // dim_labels, e.g. "b01f_01io->b01f".
  std::string labels;
  std::string type = "f32";
};

// Positions of b/f/digits in a label part ("b01f": b at 0, f at 3,
// spatial 0 at 1, ...), for input/output; i/o/digits for the kernel.
struct Layout {
  int64_t first, second;  // b and f (or o and i)
  std::vector<int64_t> spatial;
};
Layout ParseLabel(const std::string& part, char first, char second) {
  Layout l;
  l.spatial.assign(part.size() - 2, -1);
  for (size_t i = 0; i < part.size(); ++i) {
    if (part[i] == first)
      l.first = i;
    else if (part[i] == second)
      l.second = i;
    else
      l.spatial[part[i] - '0'] = i;
  }
  return l;
}

// A dense canonical array [a][b][spatial...] as a flat vector.
struct Dense {
  std::vector<int64_t> dims;
  std::vector<double> v;
  double& at(const std::vector<int64_t>& idx) {
    int64_t lin = 0;
    for (size_t d = 0; d < dims.size(); ++d) lin = lin * dims[d] + idx[d];
    return v[lin];
  }
};

bool Next(const std::vector<int64_t>& dims, std::vector<int64_t>& idx) {
  for (int64_t d = dims.size() - 1; d >= 0; --d) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}
int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// The reference: canonical input [N][C][S...], kernel [O][I][K...] ->
// canonical output [N/bgc][O][OS...].
Dense Reference(const ConvCase& c, Dense in, Dense ker) {
  const size_t n = c.in_spatial.size();
  // 1. Base dilation then padding (negative: crop) of the input.
  for (size_t d = 0; d < n; ++d) {
    const WinDim& w = c.window[d];
    Dense next = in;
    const int64_t size = in.dims[2 + d];
    const int64_t dilated = size == 0 ? 0 : (size - 1) * w.lhs_dil + 1;
    const int64_t padded = std::max<int64_t>(0, dilated + w.lo + w.hi);
    next.dims[2 + d] = padded;
    next.v.assign(Count(next.dims), 0.0);
    if (Count(next.dims) > 0 && Count(in.dims) > 0) {
      std::vector<int64_t> idx(in.dims.size(), 0);
      do {
        const int64_t p = idx[2 + d] * w.lhs_dil + w.lo;
        if (p < 0 || p >= padded) continue;
        std::vector<int64_t> j = idx;
        j[2 + d] = p;
        next.at(j) = in.at(idx);
      } while (Next(in.dims, idx));
    }
    in = next;
  }
  // 2. Kernel dilation and reversal.
  for (size_t d = 0; d < n; ++d) {
    const WinDim& w = c.window[d];
    Dense next = ker;
    const int64_t size = ker.dims[2 + d];
    next.dims[2 + d] = size == 0 ? 0 : (size - 1) * w.rhs_dil + 1;
    next.v.assign(Count(next.dims), 0.0);
    if (Count(ker.dims) > 0) {
      std::vector<int64_t> idx(ker.dims.size(), 0);
      do {
        const int64_t k = w.rev ? size - 1 - idx[2 + d] : idx[2 + d];
        std::vector<int64_t> j = idx;
        j[2 + d] = k * w.rhs_dil;
        next.at(j) = ker.at(idx);
      } while (Next(ker.dims, idx));
    }
    ker = next;
  }
  // 3. Strided correlation per group.
  Dense out;
  const int64_t on = c.batch / c.bgc;
  out.dims = {on, c.out_features};
  for (size_t d = 0; d < n; ++d) {
    const int64_t span = in.dims[2 + d] - ker.dims[2 + d];
    out.dims.push_back(span < 0 ? 0 : span / c.window[d].stride + 1);
  }
  out.v.assign(Count(out.dims), 0.0);
  if (Count(out.dims) == 0) return out;
  const int64_t cg = c.in_features / c.fgc;
  std::vector<int64_t> oi(out.dims.size(), 0);
  do {
    const int64_t o = oi[1];
    const int64_t g = o / (c.out_features / c.fgc);
    const int64_t bg = o / (c.out_features / c.bgc);
    double sum = 0;
    std::vector<int64_t> kdims(ker.dims.begin() + 2, ker.dims.end());
    if (Count(kdims) > 0 && cg > 0) {
      std::vector<int64_t> ki(n, 0);
      do {
        for (int64_t ic = 0; ic < cg; ++ic) {
          std::vector<int64_t> xi = {bg * on + oi[0], g * cg + ic};
          std::vector<int64_t> wi = {o, ic};
          for (size_t d = 0; d < n; ++d) {
            xi.push_back(oi[2 + d] * c.window[d].stride + ki[d]);
            wi.push_back(ki[d]);
          }
          sum += in.at(xi) * ker.at(wi);
        }
      } while (Next(kdims, ki));
    }
    out.at(oi) = sum;
  } while (Next(out.dims, oi));
  return out;
}

// Converts between canonical order and the label order.
std::vector<int64_t> LabelDims(const Layout& l, int64_t first, int64_t second,
                               const std::vector<int64_t>& spatial) {
  std::vector<int64_t> dims(spatial.size() + 2);
  dims[l.first] = first;
  dims[l.second] = second;
  for (size_t d = 0; d < spatial.size(); ++d) dims[l.spatial[d]] = spatial[d];
  return dims;
}
// Flat values of a canonical Dense in label order.
std::vector<float> ToLabelOrder(Dense& canon, const Layout& l) {
  std::vector<int64_t> sp(canon.dims.begin() + 2, canon.dims.end());
  const std::vector<int64_t> ldims =
      LabelDims(l, canon.dims[0], canon.dims[1], sp);
  std::vector<float> out(Count(ldims));
  if (out.empty()) return out;
  std::vector<int64_t> ci(canon.dims.size(), 0);
  do {
    std::vector<int64_t> li(ci.size());
    li[l.first] = ci[0];
    li[l.second] = ci[1];
    for (size_t d = 0; d + 2 < ci.size(); ++d) li[l.spatial[d]] = ci[2 + d];
    int64_t lin = 0;
    for (size_t d = 0; d < li.size(); ++d) lin = lin * ldims[d] + li[d];
    out[lin] = static_cast<float>(canon.at(ci));
  } while (Next(canon.dims, ci));
  return out;
}

std::string WindowText(const std::vector<WinDim>& w) {
  std::vector<std::string> size, stride, pad, ld, rd, rev;
  for (const WinDim& d : w) {
    size.push_back(absl::StrCat(d.size));
    stride.push_back(absl::StrCat(d.stride));
    pad.push_back(absl::StrCat(d.lo, "_", d.hi));
    ld.push_back(absl::StrCat(d.lhs_dil));
    rd.push_back(absl::StrCat(d.rhs_dil));
    rev.push_back(d.rev ? "1" : "0");
  }
  return absl::StrCat("{size=", absl::StrJoin(size, "x"),
                      " stride=", absl::StrJoin(stride, "x"),
                      " pad=", absl::StrJoin(pad, "x"),
                      " lhs_dilate=", absl::StrJoin(ld, "x"),
                      " rhs_dilate=", absl::StrJoin(rd, "x"),
                      " rhs_reversal=", absl::StrJoin(rev, "x"), "}");
}

std::string Shape(const std::string& t, const std::vector<int64_t>& d) {
  return absl::StrCat(t, "[", absl::StrJoin(d, ","), "]");
}

void CheckCase(const ConvCase& c, uint64_t seed) {
  SCOPED_TRACE(absl::StrCat(c.labels, " window ", WindowText(c.window),
                            " fgc=", c.fgc, " bgc=", c.bgc));
  const size_t n = c.in_spatial.size();
  Lcg rng(seed);
  Dense in{{c.batch, c.in_features}, {}};
  for (int64_t s : c.in_spatial) in.dims.push_back(s);
  in.v.resize(Count(in.dims));
  for (double& x : in.v) x = rng.Int(-9, 9);
  Dense ker{{c.out_features, c.in_features / c.fgc}, {}};
  for (const WinDim& w : c.window) ker.dims.push_back(w.size);
  ker.v.resize(Count(ker.dims));
  for (double& x : ker.v) x = rng.Int(-9, 9);
  Dense want = Reference(c, in, ker);

  const std::string lhs_l = c.labels.substr(0, c.labels.find('_'));
  const std::string rhs_l = c.labels.substr(
      c.labels.find('_') + 1, c.labels.find('-') - c.labels.find('_') - 1);
  const std::string out_l = c.labels.substr(c.labels.find('>') + 1);
  const Layout li = ParseLabel(lhs_l, 'b', 'f');
  const Layout lk = ParseLabel(rhs_l, 'o', 'i');
  const Layout lo = ParseLabel(out_l, 'b', 'f');
  std::vector<int64_t> in_sp(in.dims.begin() + 2, in.dims.end());
  std::vector<int64_t> k_sp(ker.dims.begin() + 2, ker.dims.end());
  std::vector<int64_t> o_sp(want.dims.begin() + 2, want.dims.end());
  const auto ldims = LabelDims(li, in.dims[0], in.dims[1], in_sp);
  const auto kdims = LabelDims(lk, ker.dims[0], ker.dims[1], k_sp);
  const auto odims = LabelDims(lo, want.dims[0], want.dims[1], o_sp);
  ASSERT_EQ(n, c.window.size());
  std::string text =
      absl::StrCat("HloModule m\nENTRY e {\n  a = ", Shape(c.type, ldims),
                   " parameter(0)\n  k = ", Shape(c.type, kdims),
                   " parameter(1)\n  ROOT c = ", Shape(c.type, odims),
                   " convolution(a, k), window=", WindowText(c.window),
                   ", dim_labels=", c.labels);
  if (c.fgc != 1) absl::StrAppend(&text, ", feature_group_count=", c.fgc);
  if (c.bgc != 1) absl::StrAppend(&text, ", batch_group_count=", c.bgc);
  absl::StrAppend(&text, "\n}\n");
  const std::vector<float> xv = ToLabelOrder(in, li);
  const std::vector<float> kv = ToLabelOrder(ker, lk);
  const std::vector<float> wv = ToLabelOrder(want, lo);
  if (c.type == "f32") {
    const Literal got =
        RunHlo(text, {Make<float>(PrimitiveType::kF32, ldims, xv),
                      Make<float>(PrimitiveType::kF32, kdims, kv)});
    EXPECT_EQ(got, Make<float>(PrimitiveType::kF32, odims, wv)) << text;
  } else {  // s32
    std::vector<int32_t> xi(xv.begin(), xv.end()), ki(kv.begin(), kv.end()),
        wi(wv.begin(), wv.end());
    const Literal got =
        RunHlo(text, {Make<int32_t>(PrimitiveType::kS32, ldims, xi),
                      Make<int32_t>(PrimitiveType::kS32, kdims, ki)});
    EXPECT_EQ(got, Make<int32_t>(PrimitiveType::kS32, odims, wi)) << text;
  }
}

TEST(Convolution, Basic2DSamePadding) {
  CheckCase(
      {1, 3, 4, {5, 5}, {{3, 1, 1, 1}, {3, 1, 1, 1}}, 1, 1, "b01f_01io->b01f"},
      1);
}

TEST(Convolution, StridesAndAsymmetricPadding) {
  CheckCase(
      {2, 2, 3, {7, 6}, {{3, 2, 0, 1}, {2, 3, 2, 0}}, 1, 1, "bf01_oi01->bf01"},
      2);
}

TEST(Convolution, NegativePadding) {
  CheckCase({1, 2, 2, {8}, {{3, 1, -2, -1}}, 1, 1, "bf0_oi0->bf0"}, 3);
  CheckCase({1,
             1,
             1,
             {6, 6},
             {{2, 1, -1, 2}, {3, 2, 1, -2}},
             1,
             1,
             "b01f_01io->b01f"},
            4);
}

TEST(Convolution, LhsAndRhsDilationAndReversal) {
  WinDim a{3, 1, 2, 2, 2, 1, false};  // transposed-convolution style
  WinDim b{2, 2, 1, 0, 1, 3, true};   // atrous, reversed
  CheckCase({2, 2, 3, {4, 9}, {a, b}, 1, 1, "b01f_01io->b01f"}, 5);
  WinDim c{3, 2, 0, 0, 3, 2, true};
  CheckCase({1, 3, 2, {5}, {c}, 1, 1, "f0b_i0o->b0f"}, 6);
}

TEST(Convolution, FeatureGroups) {
  // Grouped (fgc 2) and depthwise (fgc = input features).
  CheckCase(
      {2, 4, 6, {5, 4}, {{3, 1, 1, 1}, {2, 1, 0, 1}}, 2, 1, "b01f_01io->b01f"},
      7);
  CheckCase({1, 3, 6, {6}, {{3, 1, 1, 1}}, 3, 1, "bf0_oi0->bf0"}, 8);
}

TEST(Convolution, BatchGroups) {
  CheckCase({4, 2, 6, {5}, {{2, 1, 0, 0}}, 1, 2, "bf0_io0->bf0"}, 9);
  CheckCase(
      {3, 2, 3, {4, 4}, {{4, 1, 0, 0}, {4, 1, 0, 0}}, 1, 3, "f01b_i01o->01bf"},
      10);
}

TEST(Convolution, DimLabelOrders1D3D) {
  CheckCase({2, 3, 2, {6}, {{3, 1, 0, 0}}, 1, 1, "0bf_o0i->f0b"}, 11);
  CheckCase({1,
             2,
             3,
             {4, 3, 5},
             {{2, 1, 0, 1}, {2, 2, 1, 0}, {3, 1, 1, 1}},
             1,
             1,
             "b012f_012io->b012f"},
            12);
  CheckCase({1,
             2,
             2,
             {3, 4, 3},
             {{2, 1, 0, 0}, {3, 1, 1, 1}, {1, 1, 0, 0}},
             1,
             1,
             "f20b1_o1i20->2b01f"},
            13);
}

TEST(Convolution, ZeroSize) {
  CheckCase(
      {0, 2, 3, {4, 4}, {{3, 1, 1, 1}, {3, 1, 1, 1}}, 1, 1, "b01f_01io->b01f"},
      14);
  CheckCase({1, 0, 3, {4}, {{3, 1, 1, 1}}, 1, 1, "b0f_0io->b0f"}, 15);
}

TEST(Convolution, Integers) {
  ConvCase c{
      2, 2, 3, {5, 5}, {{3, 2, 1, 1}, {3, 1, 1, 1}}, 1, 1, "b01f_01io->b01f"};
  c.type = "s32";
  CheckCase(c, 16);
}

TEST(Convolution, ErrorDataCountsInBoundsTerms) {
  // 1-D, 3 taps, pad 1 each side, 2 input features: the border outputs
  // have 2 in-bounds taps (n = 4 terms), the inner ones 3 (n = 6).
  const std::string text = R"(HloModule m
ENTRY e {
  a = f32[1,4,2] parameter(0)
  k = f32[3,2,1] parameter(1)
  ROOT c = f32[1,4,1] convolution(a, k), window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f
})";
  const std::vector<float> x = {1, -2, 3, 4, -5, 6, 7, -8};
  const std::vector<float> k = {0.5f, -1, 2, 3, -4, 0.25f};
  RecordingContext ctx;
  auto r = EvalRootDirect(text, &EvalConvolution,
                          {Make<float>(PrimitiveType::kF32, {1, 4, 2}, x),
                           Make<float>(PrimitiveType::kF32, {3, 2, 1}, k)},
                          ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  for (int o = 0; o < 4; ++o) {
    double s = 0, v = 0;
    int terms = 0;
    for (int w = 0; w < 3; ++w) {
      const int i = o + w - 1;
      if (i < 0 || i >= 4) continue;
      for (int f = 0; f < 2; ++f) {
        s += std::abs(x[i * 2 + f] * k[w * 2 + f]);
        v += x[i * 2 + f] * k[w * 2 + f];
        ++terms;
      }
    }
    EXPECT_EQ(r->GetAsDouble(o), v);
    EXPECT_EQ((ctx.data[{0, o}].first), s);
    EXPECT_EQ((ctx.data[{0, o}].second), terms);  // f32 products rounded: m = n
  }
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// Convolution's verified two-sum (fast_round.h) against the exact
// accumulator alone (the switch dot.h provides): same bits on data made
// to hit rounding midpoints, signed-zero cancellation, mixed magnitudes
// and subnormal results, for f32 / bf16 / f16 results.
TEST(ConvolutionFastPath, AgreesBitForBitWithTheExactAccumulator) {
  uint64_t seed = 23;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(seed >> 33);
  };
  const float specials[] = {0.0f,   -0.0f, 1.0f,   -1.0f,  0.5f,   3.0f,
                            257.0f, 1e30f, -1e30f, 1e-30f, 1e-40f, -1e-42f};
  for (const char* ty : {"f32", "bf16", "f16"}) {
    for (int trial = 0; trial < 8; ++trial) {
      Literal x(Shape::Array(PrimitiveType::kF32, {2, 9, 9, 5}));
      Literal k(Shape::Array(PrimitiveType::kF32, {3, 3, 5, 4}));
      for (Literal* lit : {&x, &k}) {
        for (float& v : lit->mutable_data<float>()) {
          const uint32_t r = next();
          switch (trial % 4) {
            case 0:
              v = static_cast<float>(static_cast<int>(r % 9) - 4) *
                  ((r & 0x100) ? 256.0f : 1.0f);
              break;
            case 1:
              v = specials[r % 12];
              break;
            case 2:
              v = static_cast<float>(static_cast<int32_t>(r)) *
                  std::ldexp(1.0f, static_cast<int>(r % 40) - 60);
              break;
            default:
              v = (r % 3 == 0) ? 1.0f : (r % 3 == 1 ? -1.0f : 0x1p-24f);
              break;
          }
        }
      }
      const std::string text = absl::StrCat(
          "HloModule m\nENTRY e {\n  x = f32[2,9,9,5] parameter(0)\n"
          "  k = f32[3,3,5,4] parameter(1)\n  ROOT c = ",
          ty,
          "[2,9,9,4] convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
          "dim_labels=b01f_01io->b01f\n}\n");
      std::vector<Literal> args;
      args.push_back(x);
      args.push_back(k);
      SetDotFastPathDisabledForTesting(false);
      const Literal fast = RunHlo(text, args);
      SetDotFastPathDisabledForTesting(true);
      const Literal exact = RunHlo(text, args);
      SetDotFastPathDisabledForTesting(false);
      ASSERT_TRUE(fast.shape().IsArray()) << text;
      EXPECT_TRUE(fast.BitwiseEquals(exact)) << ty << " trial " << trial;
    }
  }
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// Convolutions large enough to be split into several feature blocks and
// spatial chunks (and, with threads, across workers): every output is its
// own sum, so 1, 2, 3 and 8 threads and the exact accumulator alone give
// the same bits. Covers feature groups (blocks stop at group boundaries),
// batch groups, a stride and an f32 result whose products are not exact in
// double (f64 operands: the exact accumulator only).
TEST(ConvolutionThreads, BitIdenticalForEveryThreadCountAndPath) {
  struct Case {
    std::string text;
    std::vector<std::vector<int64_t>> dims;
    PrimitiveType type = PrimitiveType::kF32;
  };
  const std::vector<Case> cases = {
      {"HloModule m\nENTRY e {\n  x = f32[2,20,20,24] parameter(0)\n"
       "  k = f32[3,3,24,80] parameter(1)\n  ROOT c = bf16[2,20,20,80] "
       "convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
       "dim_labels=b01f_01io->b01f\n}\n",
       {{2, 20, 20, 24}, {3, 3, 24, 80}}},
      {"HloModule m\nENTRY e {\n  x = f32[1,30,30,32] parameter(0)\n"
       "  k = f32[3,3,8,96] parameter(1)\n  ROOT c = f32[1,14,14,96] "
       "convolution(x, k), window={size=3x3 stride=2x2}, "
       "dim_labels=b01f_01io->b01f, feature_group_count=4\n}\n",
       {{1, 30, 30, 32}, {3, 3, 8, 96}}},
      {"HloModule m\nENTRY e {\n  x = f32[4,18,18,16] parameter(0)\n"
       "  k = f32[3,3,16,64] parameter(1)\n  ROOT c = f16[2,16,16,64] "
       "convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, "
       "batch_group_count=2\n}\n",
       {{4, 18, 18, 16}, {3, 3, 16, 64}}},
      {"HloModule m\nENTRY e {\n  x = f64[1,16,16,16] parameter(0)\n"
       "  k = f64[3,3,16,72] parameter(1)\n  ROOT c = f32[1,16,16,72] "
       "convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
       "dim_labels=b01f_01io->b01f\n}\n",
       {{1, 16, 16, 16}, {3, 3, 16, 72}},
       PrimitiveType::kF64},
  };
  uint64_t seed = 7;
  for (const Case& c : cases) {
    std::vector<Literal> args;
    for (const std::vector<int64_t>& dims : c.dims) {
      Literal lit(Shape::Array(c.type, dims));
      for (int64_t i = 0; i < lit.element_count(); ++i) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const uint32_t r = static_cast<uint32_t>(seed >> 33);
        // Mostly wide random values; every 7th a small integer, so some
        // sums tie or cancel and take the exact accumulator.
        const double v =
            (r % 7 == 0)
                ? static_cast<double>(static_cast<int>(r % 5) - 2)
                : static_cast<double>(static_cast<int32_t>(r)) * 0x1p-31;
        if (c.type == PrimitiveType::kF64) {
          lit.mutable_data<double>()[i] = v;
        } else {
          lit.mutable_data<float>()[i] = static_cast<float>(v);
        }
      }
      args.push_back(std::move(lit));
    }
    SetDotFastPathDisabledForTesting(true);
    const Literal exact = RunHlo(c.text, args);
    SetDotFastPathDisabledForTesting(false);
    ASSERT_TRUE(exact.shape().IsArray()) << c.text;
    for (int threads : {1, 2, 3, 8}) {
      EvaluatorOptions options;
      options.threads = threads;
      const Literal r = RunHlo(c.text, args, options);
      EXPECT_TRUE(r.BitwiseEquals(exact)) << c.text << " threads " << threads;
    }
  }
}

}  // namespace
}  // namespace hloref
