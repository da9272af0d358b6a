// Tests of the reduce family (interpreter/ops/reduce.cc): the seed's
// Reduce examples (2-D, 3-D: [20, 28, 36] and 84), variadic argmax,
// ReduceWindow ([10000, 1000, 100, 10, 1] VALID/SAME, 2x3 max pooling,
// dilations against an explicit dense reference), SelectAndScatter
// (overlapping windows, padding, against a naive loop), map, exact add
// reductions, reducer detection vs generic reducers, zero-size inputs and
// the error data.
#include "interpreter/ops/reduce.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "interpreter/ops/accumulate_test_util.h"
#include "interpreter/ops/exact_sum.h"

namespace hloref {
namespace {

using testing_acc::EvalRootDirect;
using testing_acc::Lcg;
using testing_acc::Make;
using testing_acc::RecordingContext;
using testing_acc::RunHlo;

std::string Binary(const std::string& name, const std::string& type,
                   const std::string& op) {
  return absl::StrCat(name, " {\n  x = ", type, "[] parameter(0)\n  y = ", type,
                      "[] parameter(1)\n  ROOT r = ", type, "[] ", op,
                      "(x, y)\n}\n");
}

Literal F32(std::vector<int64_t> dims, std::vector<float> v) {
  return Make<float>(PrimitiveType::kF32, dims, v);
}

// ---- Reduce: the seed's examples.

TEST(Reduce, Seed2D) {
  const std::string head = "HloModule m\n" + Binary("add", "f32", "add") +
                           "ENTRY e {\n  a = f32[2,3] constant({{1, 2, 3}, "
                           "{4, 5, 6}})\n  z = f32[] constant(0)\n";
  EXPECT_EQ(RunHlo(head + "  ROOT r = f32[3] reduce(a, z), dimensions={0}, "
                          "to_apply=add\n}\n"),
            F32({3}, {5, 7, 9}));
  EXPECT_EQ(RunHlo(head + "  ROOT r = f32[2] reduce(a, z), dimensions={1}, "
                          "to_apply=add\n}\n"),
            F32({2}, {6, 15}));
}

TEST(Reduce, Seed3D) {
  // 4x2x3, the values 1..6 replicated across dimension 0.
  const std::string head =
      "HloModule m\n" + Binary("add", "f32", "add") +
      "ENTRY e {\n  a = f32[4,2,3] constant({{{1,2,3},{4,5,6}}, "
      "{{1,2,3},{4,5,6}}, {{1,2,3},{4,5,6}}, {{1,2,3},{4,5,6}}})\n"
      "  z = f32[] constant(0)\n";
  EXPECT_EQ(RunHlo(head + "  ROOT r = f32[2,3] reduce(a, z), dimensions={0}, "
                          "to_apply=add\n}\n"),
            F32({2, 3}, {4, 8, 12, 16, 20, 24}));
  EXPECT_EQ(RunHlo(head + "  ROOT r = f32[4,2] reduce(a, z), dimensions={2}, "
                          "to_apply=add\n}\n"),
            F32({4, 2}, {6, 15, 6, 15, 6, 15, 6, 15}));
  EXPECT_EQ(RunHlo(head + "  ROOT r = f32[3] reduce(a, z), dimensions={0,1}, "
                          "to_apply=add\n}\n"),
            F32({3}, {20, 28, 36}));
  EXPECT_EQ(RunHlo(head + "  ROOT r = f32[] reduce(a, z), dimensions={0,1,2}, "
                          "to_apply=add\n}\n"),
            Literal::CreateR0<float>(PrimitiveType::kF32, 84));
  // Unordered dimension list, same result.
  EXPECT_EQ(RunHlo(head + "  ROOT r = f32[] reduce(a, z), dimensions={2,0,1}, "
                          "to_apply=add\n}\n"),
            Literal::CreateR0<float>(PrimitiveType::kF32, 84));
}

TEST(Reduce, SeedVariadicArgmax) {
  // f(max, argmax, value, index) = value >= max ? (value, index)
  //                                             : (max, argmax)
  const std::string text = R"(HloModule m
argmax {
  m = f32[] parameter(0)
  am = s32[] parameter(1)
  v = f32[] parameter(2)
  i = s32[] parameter(3)
  ge = pred[] compare(v, m), direction=GE
  nv = f32[] select(ge, v, m)
  ni = s32[] select(ge, i, am)
  ROOT t = (f32[], s32[]) tuple(nv, ni)
}
ENTRY e {
  v = f32[2,5] constant({{3, 9, 1, 9, 2}, {-1, -5, -0.5, -7, -2}})
  k = s32[2,5] iota(), iota_dimension=1
  iv = f32[] constant(-inf)
  ik = s32[] constant(-1)
  ROOT r = (f32[2], s32[2]) reduce(v, k, iv, ik), dimensions={1}, to_apply=argmax
})";
  // Row 0: max 9, first at 1, the later equal 9 (>=) moves it to 3.
  // Row 1: max -0.5 at 2.
  const Literal r = RunHlo(text);
  ASSERT_TRUE(r.shape().IsTuple());
  EXPECT_EQ(r.tuple_element(0), F32({2}, {9, -0.5f}));
  EXPECT_EQ(r.tuple_element(1),
            Make<int32_t>(PrimitiveType::kS32, {2}, {3, 2}));
}

TEST(Reduce, AddIsExactlyAccumulatedAndRoundedOnce) {
  // 2^30 + 1 - 2^30: a float loop gives 0, the exact sum is 1.
  EXPECT_EQ(RunHlo("HloModule m\n" + Binary("add", "f32", "add") + R"(ENTRY e {
  a = f32[3] constant({1073741824, 1, -1073741824})
  z = f32[] constant(0)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=add
})"),
            Literal::CreateR0<float>(PrimitiveType::kF32, 1));
  // Reducer written as add(y, x) is recognised too; init participates.
  EXPECT_EQ(RunHlo(R"(HloModule m
add2 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] add(y, x)
}
ENTRY e {
  a = f32[2] constant({0.25, 0.5})
  z = f32[] constant(10)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=add2
})"),
            Literal::CreateR0<float>(PrimitiveType::kF32, 10.75f));
}

TEST(Reduce, OtherDetectedReducersAndTypes) {
  // Integers wrap (s8: 100 + 100 = -56).
  EXPECT_EQ(RunHlo("HloModule m\n" + Binary("add", "s8", "add") + R"(ENTRY e {
  a = s8[2] constant({100, 100})
  z = s8[] constant(0)
  ROOT r = s8[] reduce(a, z), dimensions={0}, to_apply=add
})"),
            Literal::CreateR0<int8_t>(PrimitiveType::kS8, -56));
  EXPECT_EQ(
      RunHlo("HloModule m\n" + Binary("mx", "u32", "maximum") + R"(ENTRY e {
  a = u32[3] constant({4000000000, 1, 7})
  z = u32[] constant(0)
  ROOT r = u32[] reduce(a, z), dimensions={0}, to_apply=mx
})"),
      Literal::CreateR0<uint32_t>(PrimitiveType::kU32, 4000000000u));
  EXPECT_EQ(
      RunHlo("HloModule m\n" + Binary("mn", "s32", "minimum") + R"(ENTRY e {
  a = s32[3] constant({4, -9, 7})
  z = s32[] constant(2147483647)
  ROOT r = s32[] reduce(a, z), dimensions={0}, to_apply=mn
})"),
      Literal::CreateR0<int32_t>(PrimitiveType::kS32, -9));
  EXPECT_EQ(RunHlo("HloModule m\n" + Binary("mul", "f32", "multiply") +
                   R"(ENTRY e {
  a = f32[3] constant({1.5, -2, 4})
  z = f32[] constant(1)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=mul
})"),
            Literal::CreateR0<float>(PrimitiveType::kF32, -12));
  // max propagates NaN (XLA non-fast semantics).
  const Literal mx = RunHlo("HloModule m\n" + Binary("mx", "f32", "maximum") +
                            R"(ENTRY e {
  a = f32[3] constant({1, nan, 3})
  z = f32[] constant(-inf)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=mx
})");
  EXPECT_TRUE(std::isnan(mx.GetAsDouble(0)));
  const std::string preds =
      "ENTRY e {\n  a = pred[2,2] constant({{1, 0}, {1, 1}})\n";
  EXPECT_EQ(RunHlo("HloModule m\n" + Binary("and", "pred", "and") + preds +
                   "  t = pred[] constant(true)\n  ROOT r = pred[2] reduce(a, "
                   "t), dimensions={1}, to_apply=and\n}\n"),
            RunHlo("HloModule m\nENTRY e {\n  ROOT c = pred[2] constant({0, "
                   "1})\n}\n"));
  EXPECT_EQ(RunHlo("HloModule m\n" + Binary("or", "pred", "or") + preds +
                   "  f = pred[] constant(false)\n  ROOT r = pred[2] reduce(a, "
                   "f), dimensions={0}, to_apply=or\n}\n"),
            RunHlo("HloModule m\nENTRY e {\n  ROOT c = pred[2] constant({1, "
                   "1})\n}\n"));
  // Complex add: exact per component.
  EXPECT_EQ(RunHlo("HloModule m\n" + Binary("add", "c64", "add") + R"(ENTRY e {
  a = c64[3] constant({(1, 2), (3, -4), (0.5, 0.25)})
  z = c64[] constant((0, 0))
  ROOT r = c64[] reduce(a, z), dimensions={0}, to_apply=add
})"),
            Literal::CreateR0<std::complex<float>>(PrimitiveType::kC64,
                                                   {4.5f, -1.75f}));
}

TEST(Reduce, GenericReducerFollowsTheSequentialOrder) {
  // subtract is not recognised: f(f(f(init, x0), x1), x2) = 10-1-2-3 = 4
  // per row (a reassociating evaluation would differ).
  EXPECT_EQ(RunHlo("HloModule m\n" + Binary("sub", "f32", "subtract") +
                   R"(ENTRY e {
  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  z = f32[] constant(10)
  ROOT r = f32[2] reduce(a, z), dimensions={1}, to_apply=sub
})"),
            F32({2}, {4, -5}));
}

TEST(Reduce, ZeroSizeGivesInit) {
  EXPECT_EQ(RunHlo("HloModule m\n" + Binary("add", "f32", "add") + R"(ENTRY e {
  a = f32[3,0] constant({{}, {}, {}})
  z = f32[] constant(7)
  ROOT r = f32[3] reduce(a, z), dimensions={1}, to_apply=add
})"),
            F32({3}, {7, 7, 7}));
  EXPECT_EQ(RunHlo("HloModule m\n" + Binary("add", "f32", "add") + R"(ENTRY e {
  a = f32[0,3] constant({})
  z = f32[] constant(7)
  ROOT r = f32[0] reduce(a, z), dimensions={1}, to_apply=add
})"),
            F32({0}, {}));
}

TEST(Reduce, ErrorData) {
  const std::string text =
      "HloModule m\n" + Binary("add", "f32", "add") + R"(ENTRY e {
  a = f32[2,3] parameter(0)
  z = f32[] parameter(1)
  ROOT r = f32[2] reduce(a, z), dimensions={1}, to_apply=add
})";
  RecordingContext ctx;
  auto r =
      EvalRootDirect(text, &EvalReduce,
                     {F32({2, 3}, {1, -2, 3, -4, 5.5f, -6}),
                      Literal::CreateR0<float>(PrimitiveType::kF32, -0.5f)},
                     ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, F32({2}, {1.5f, -5}));
  EXPECT_EQ((ctx.data[{0, 0}].first), 0.5 + 1 + 2 + 3);
  EXPECT_EQ((ctx.data[{0, 1}].first), 0.5 + 4 + 5.5 + 6);
  EXPECT_EQ((ctx.data[{0, 0}].second), 3);  // 4 addends with init -> m = 3
  // max: exact, m = 0.
  RecordingContext ctx2;
  auto r2 = EvalRootDirect(
      "HloModule m\n" + Binary("mx", "f32", "maximum") + R"(ENTRY e {
  a = f32[3] parameter(0)
  z = f32[] parameter(1)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=mx
})",
      &EvalReduce,
      {F32({3}, {1, -7, 3}), Literal::CreateR0<float>(PrimitiveType::kF32, -9)},
      ctx2);
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ((ctx2.data[{0, 0}].second), 0);
  EXPECT_EQ((ctx2.data[{0, 0}].first), 3);
}

// ---- ReduceWindow.

TEST(ReduceWindow, SeedValidAndSame) {
  const std::string head = "HloModule m\n" + Binary("mn", "f32", "minimum") +
                           "ENTRY e {\n  a = f32[5] constant({10000, 1000, "
                           "100, 10, 1})\n  z = f32[] constant(inf)\n";
  EXPECT_EQ(RunHlo(head + "  ROOT r = f32[2] reduce-window(a, z), "
                          "window={size=3 stride=2}, to_apply=mn\n}\n"),
            F32({2}, {100, 1}));
  EXPECT_EQ(RunHlo(head + "  ROOT r = f32[3] reduce-window(a, z), "
                          "window={size=3 stride=2 pad=1_1}, to_apply=mn\n}\n"),
            F32({3}, {1000, 10, 1}));
}

TEST(ReduceWindow, SeedMaxPool2x3) {
  // 4x6 input, window and stride 2x3: the max of each 2x3 block.
  std::vector<float> in(24);
  for (int i = 0; i < 24; ++i) in[i] = static_cast<float>((i * 7) % 11);
  std::vector<float> want;
  for (int bi = 0; bi < 2; ++bi)
    for (int bj = 0; bj < 2; ++bj) {
      float m = -1e30f;
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
          m = std::max(m, in[(bi * 2 + i) * 6 + bj * 3 + j]);
      want.push_back(m);
    }
  EXPECT_EQ(
      RunHlo("HloModule m\n" + Binary("mx", "f32", "maximum") + R"(ENTRY e {
  a = f32[4,6] parameter(0)
  z = f32[] constant(-inf)
  ROOT r = f32[2,2] reduce-window(a, z), window={size=2x3 stride=2x3}, to_apply=mx
})",
             {F32({4, 6}, in)}),
      F32({2, 2}, want));
}

// Dense reference: build the base-dilated, padded array with init in the
// holes and padding, then reduce every (window-dilated) window.
TEST(ReduceWindow, DilationsAndPaddingAgainstDenseReference) {
  struct D {
    int64_t size, window, stride, lo, hi, base_dil, win_dil;
  };
  const std::vector<D> dims = {{5, 3, 2, 2, 1, 2, 1}, {4, 2, 1, 1, 2, 1, 2}};
  Lcg rng(3);
  std::vector<float> in(20);
  for (float& x : in) x = static_cast<float>(rng.Int(-20, 20));
  // init 0.5 is not an identity: it enters once per window and never for
  // a hole or padding position, which the oracle skips
  // (impl.reduce-window.1, XLA's evaluator).
  const float init = 0.5f;
  std::vector<int64_t> pd(2);
  for (int d = 0; d < 2; ++d)
    pd[d] = (dims[d].size - 1) * dims[d].base_dil + 1 + dims[d].lo + dims[d].hi;
  std::vector<int64_t> od(2);
  for (int d = 0; d < 2; ++d) {
    const int64_t span = (dims[d].window - 1) * dims[d].win_dil + 1;
    od[d] = (pd[d] - span) / dims[d].stride + 1;
  }
  std::vector<float> want;
  for (int64_t o0 = 0; o0 < od[0]; ++o0)
    for (int64_t o1 = 0; o1 < od[1]; ++o1) {
      double s = init;
      for (int64_t w0 = 0; w0 < dims[0].window; ++w0)
        for (int64_t w1 = 0; w1 < dims[1].window; ++w1) {
          const int64_t p[2] = {o0 * dims[0].stride + w0 * dims[0].win_dil,
                                o1 * dims[1].stride + w1 * dims[1].win_dil};
          int64_t idx[2];
          bool real = true;
          for (int d = 0; d < 2; ++d) {
            const int64_t q = p[d] - dims[d].lo;
            if (q < 0 || q % dims[d].base_dil != 0 ||
                q / dims[d].base_dil >= dims[d].size) {
              real = false;
            } else {
              idx[d] = q / dims[d].base_dil;
            }
          }
          if (real) s += in[idx[0] * 4 + idx[1]];
        }
      want.push_back(static_cast<float>(s));
    }
  const std::string text = absl::StrCat(
      "HloModule m\n", Binary("add", "f32", "add"),
      "ENTRY e {\n  a = f32[5,4] parameter(0)\n  z = f32[] constant(0.5)\n"
      "  ROOT r = f32[",
      od[0], ",", od[1],
      "] reduce-window(a, z), window={size=3x2 stride=2x1 pad=2_1x1_2 "
      "lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=add\n}\n");
  EXPECT_EQ(RunHlo(text, {F32({5, 4}, in)}), F32(od, want)) << text;
}

TEST(ReduceWindow, VariadicGenericReducer) {
  // Max and argmax over windows of 2 with stride 1.
  const std::string text = R"(HloModule m
argmax {
  m = f32[] parameter(0)
  am = s32[] parameter(1)
  v = f32[] parameter(2)
  i = s32[] parameter(3)
  gt = pred[] compare(v, m), direction=GT
  nv = f32[] select(gt, v, m)
  ni = s32[] select(gt, i, am)
  ROOT t = (f32[], s32[]) tuple(nv, ni)
}
ENTRY e {
  v = f32[5] constant({1, 5, 2, 2, 8})
  k = s32[5] iota(), iota_dimension=0
  iv = f32[] constant(-inf)
  ik = s32[] constant(-1)
  ROOT r = (f32[4], s32[4]) reduce-window(v, k, iv, ik), window={size=2}, to_apply=argmax
})";
  const Literal r = RunHlo(text);
  ASSERT_TRUE(r.shape().IsTuple());
  EXPECT_EQ(r.tuple_element(0), F32({4}, {5, 5, 2, 8}));
  EXPECT_EQ(r.tuple_element(1),
            Make<int32_t>(PrimitiveType::kS32, {4}, {1, 1, 2, 4}));
}

TEST(ReduceWindow, ZeroSize) {
  EXPECT_EQ(RunHlo("HloModule m\n" + Binary("add", "f32", "add") + R"(ENTRY e {
  a = f32[0,4] constant({})
  z = f32[] constant(0)
  ROOT r = f32[0,3] reduce-window(a, z), window={size=1x2}, to_apply=add
})"),
            F32({0, 3}, {}));
}

// ---- SelectAndScatter.

const std::string kGeAdd =
    "HloModule m\n" +
    std::string(
        "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
        "  ROOT r = pred[] compare(a, b), direction=GE\n}\n") +
    Binary("add", "f32", "add");

TEST(SelectAndScatter, SeedOverlappingWindows) {
  // Two overlapping 2x3 windows (stride 1x2) both select the 9; the add
  // scatter gives 2 + 6 = 8 there (the seed's description).
  EXPECT_EQ(RunHlo(kGeAdd + R"(ENTRY e {
  o = f32[2,5] constant({{7, 2, 5, 3, 8}, {3, 8, 9, 3, 4}})
  s = f32[1,2] constant({{2, 6}})
  z = f32[] constant(0)
  ROOT r = f32[2,5] select-and-scatter(o, s, z), window={size=2x3 stride=1x2}, select=ge, scatter=add
})"),
            F32({2, 5}, {0, 0, 0, 0, 0, 0, 0, 8, 0, 0}));
}

TEST(SelectAndScatter, PaddingAndTiesAgainstNaiveLoop) {
  // 1-D, window 3 stride 2 pad 1_1 over [1, 4, 4, 2, 7, 7]: ties keep the
  // first (GE selects the current one); padding is never selected.
  const std::vector<float> op = {1, 4, 4, 2, 7, 7};
  const std::vector<float> src = {10, 20, 30};
  std::vector<float> want(6, 1.0f);  // init 1
  for (int w = 0; w < 3; ++w) {
    int sel = -1;
    for (int k = 0; k < 3; ++k) {
      const int i = w * 2 + k - 1;
      if (i < 0 || i >= 6) continue;
      if (sel < 0 || !(op[sel] >= op[i])) sel = i;
    }
    want[sel] += src[w];
  }
  EXPECT_EQ(RunHlo(kGeAdd + R"(ENTRY e {
  o = f32[6] parameter(0)
  s = f32[3] parameter(1)
  z = f32[] constant(1)
  ROOT r = f32[6] select-and-scatter(o, s, z), window={size=3 stride=2 pad=1_1}, select=ge, scatter=add
})",
                   {F32({6}, op), F32({3}, src)}),
            F32({6}, want));
}

// ---- Map.

TEST(Map, TwoOperands) {
  EXPECT_EQ(RunHlo(R"(HloModule m
f {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  xy = f32[] multiply(x, y)
  ROOT r = f32[] add(xy, x)
}
ENTRY e {
  a = f32[2,2] constant({{1, 2}, {3, 4}})
  b = f32[2,2] constant({{5, 6}, {7, 8}})
  ROOT m = f32[2,2] map(a, b), dimensions={0,1}, to_apply=f
})"),
            F32({2, 2}, {1 * 5 + 1, 2 * 6 + 2, 3 * 7 + 3, 4 * 8 + 4}));
}

TEST(Map, ChangesElementType) {
  EXPECT_EQ(RunHlo(R"(HloModule m
f {
  x = s32[] parameter(0)
  z = s32[] constant(2)
  ROOT r = pred[] compare(x, z), direction=GT
}
ENTRY e {
  a = s32[3] constant({1, 2, 3})
  ROOT m = pred[3] map(a), dimensions={0}, to_apply=f
})"),
            RunHlo("HloModule m\nENTRY e {\n  ROOT c = pred[3] constant({0, 0, "
                   "1})\n}\n"));
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// The max / min tests' data: row 0 zeros of both signs only, row 1 the
// specials (NaN now and then), the other rows mostly finite values (a
// special one time in five), from the random word r.
double MaxMinTestValue(uint32_t r, int64_t row, const float (&specials)[12]) {
  if (row == 0) return (r & 1) ? 0.0 : -0.0;
  if (row == 1 || r % 5 == 0) return specials[r % 12];
  return static_cast<double>(static_cast<int32_t>(r)) * 0x1p-20;
}

// The init values the max / min tests write as constants.
double MaxMinInit(const std::string& init) {
  return init == "nan"    ? NAN
         : init == "inf"  ? INFINITY
         : init == "-inf" ? -INFINITY
         : init == "-0"   ? -0.0
         : init == "0.5"  ? 0.5
                          : 0.0;
}

// reduce-add's verified two-sum path (fast_round.h) against ExactSum
// applied in the test to the same terms (init first, then the elements in
// index order; the exact sum does not depend on the order): same bits on
// ties at rounding midpoints, cancellation to signed zero, mixed
// magnitudes, subnormal results and specials, for f32 / bf16 / f16,
// reducing rows, columns and everything (rows and everything take the
// plain sums with an a priori bound first: elements consecutive).
// Maximum and minimum over f32 rows (the reduced dimension innermost:
// the eight-lane MinMaxF32 path when no element and not the init is NaN)
// against the seed's semantics folded in the test, element by element:
// NaN if any operand is NaN, max(-0, +0) = +0, min(-0, +0) = -0, else the
// largest / smallest. Rows of 1..40 elements (the vector loop and its
// tail), drawn from +-0, +-inf, NaN, the extremes and random values;
// inits -inf, +inf, +0, -0, 0.5 and NaN.
TEST(ReduceFastPath, MaxMinRowsFollowTheSeedSemantics) {
  const float specials[] = {0.0f,       -0.0f,   INFINITY, -INFINITY,
                            NAN,        1.0f,    -1.0f,    0x1p-149f,
                            -0x1p-149f, 3.4e38f, -3.4e38f, 0.5f};
  uint64_t seed = 23;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(seed >> 33);
  };
  for (const char* op : {"maximum", "minimum"}) {
    const bool is_max = std::string(op) == "maximum";
    for (int64_t cols = 1; cols <= 40; ++cols) {
      const int64_t rows = 6;
      Literal x(Shape::Array(PrimitiveType::kF32, {rows, cols}));
      for (int64_t i = 0; i < rows * cols; ++i) {
        const uint32_t r = next();
        x.SetFromDouble(i, MaxMinTestValue(r, i / cols, specials));
      }
      for (const char* init : {"-inf", "inf", "0", "-0", "0.5", "nan"}) {
        const std::string text = absl::StrCat(
            "HloModule m\nf {\n  a = f32[] parameter(0)\n  b = f32[] "
            "parameter(1)\n  ROOT s = f32[] ",
            op, "(a, b)\n}\nENTRY e {\n  x = f32[", rows, ",", cols,
            "] parameter(0)\n  z = f32[] constant(", init, ")\n  ROOT r = f32[",
            rows, "] reduce(x, z), dimensions={1}, to_apply=f\n}\n");
        const Literal got = RunHlo(text, {x});
        const double z = MaxMinInit(init);
        for (int64_t o = 0; o < rows; ++o) {
          double want = z;
          for (int64_t j = 0; j < cols; ++j) {
            const double v = x.GetAsDouble(o * cols + j);
            if (std::isnan(want)) break;
            if (std::isnan(v)) {
              want = v;
            } else if (want == 0 && v == 0) {
              // +0 wins for maximum, -0 for minimum.
              want = (std::signbit(want) == is_max) ? v : want;
            } else if (is_max ? v > want : v < want) {
              want = v;
            }
          }
          const double g = got.GetAsDouble(o);
          if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(g))
                << op << " cols " << cols << " init " << init << " row " << o;
            continue;
          }
          EXPECT_EQ(g, want)
              << op << " cols " << cols << " init " << init << " row " << o;
          EXPECT_EQ(std::signbit(g), std::signbit(want))
              << op << " cols " << cols << " init " << init << " row " << o;
        }
      }
    }
  }
}

// Maximum and minimum over columns (the reduced dimension not innermost:
// the eight-column ColumnMinMax path for f32 and bf16, NaN columns folded
// in order) against the seed's semantics folded in the test: 2-D [rows,
// cols] over dimension 0 with 2..40 columns (the vector loop and its
// tail), a 3-D [2, rows, cols] over dimension 1 (two groups), and a
// [1100, 1001] f32 column max large enough to be split across threads
// (1 and 3 threads: same bits). Elements and inits as the row test.
TEST(ReduceFastPath, MaxMinColumnsFollowTheSeedSemantics) {
  const float specials[] = {0.0f,       -0.0f,   INFINITY, -INFINITY,
                            NAN,        1.0f,    -1.0f,    0x1p-126f,
                            -0x1p-126f, 3.0e38f, -3.0e38f, 0.5f};
  const int64_t decided_before = ReduceColumnMinMaxDecided();
  const int64_t undecided_before = ReduceColumnMinMaxUndecided();
  uint64_t seed = 29;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(seed >> 33);
  };
  // The seed's fold of one column (terms a stride apart from `first`).
  auto fold = [](const Literal& x, bool is_max, double init, int64_t first,
                 int64_t stride, int64_t count) {
    double want = init;
    for (int64_t r = 0; r < count; ++r) {
      const double v = x.GetAsDouble(first + r * stride);
      if (std::isnan(want)) break;
      if (std::isnan(v)) {
        want = v;
      } else if (want == 0 && v == 0) {
        want = (std::signbit(want) == is_max) ? v : want;
      } else if (is_max ? v > want : v < want) {
        want = v;
      }
    }
    return want;
  };
  auto check = [](double g, double want, const std::string& what) {
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(g)) << what;
      return;
    }
    EXPECT_EQ(g, want) << what;
    EXPECT_EQ(std::signbit(g), std::signbit(want)) << what;
  };
  for (const char* type : {"f32", "bf16"}) {
    const PrimitiveType t =
        std::string(type) == "f32" ? PrimitiveType::kF32 : PrimitiveType::kBF16;
    for (const char* op : {"maximum", "minimum"}) {
      const bool is_max = std::string(op) == "maximum";
      for (int64_t cols = 2; cols <= 40; cols += (cols < 18 ? 1 : 7)) {
        for (int64_t groups : {1, 2}) {
          const int64_t rows = 7;
          std::vector<int64_t> dims = {rows, cols};
          if (groups == 2) dims.insert(dims.begin(), 2);
          Literal x(Shape::Array(t, dims));
          for (int64_t i = 0; i < groups * rows * cols; ++i) {
            const uint32_t r = next();
            x.SetFromDouble(i, MaxMinTestValue(r, (i / cols) % rows, specials));
          }
          for (const char* init : {"-inf", "inf", "0", "-0", "0.5", "nan"}) {
            const std::string shape =
                groups == 2 ? absl::StrCat("[2,", rows, ",", cols, "]")
                            : absl::StrCat("[", rows, ",", cols, "]");
            const std::string out = groups == 2 ? absl::StrCat("[2,", cols, "]")
                                                : absl::StrCat("[", cols, "]");
            const std::string text = absl::StrCat(
                "HloModule m\nf {\n  a = ", type,
                "[] parameter(0)\n  b = ", type,
                "[] parameter(1)\n  ROOT s = ", type, "[] ", op,
                "(a, b)\n}\nENTRY e {\n  x = ", type, shape,
                " parameter(0)\n  z = ", type, "[] constant(", init,
                ")\n  ROOT r = ", type, out, " reduce(x, z), dimensions={",
                groups == 2 ? 1 : 0, "}, to_apply=f\n}\n");
            const Literal got = RunHlo(text, {x});
            const double z = MaxMinInit(init);
            for (int64_t g = 0; g < groups; ++g) {
              for (int64_t c = 0; c < cols; ++c) {
                check(got.GetAsDouble(g * cols + c),
                      fold(x, is_max, z, g * rows * cols + c, cols, rows),
                      absl::StrCat(type, " ", op, " cols ", cols, " groups ",
                                   groups, " init ", init, " column ", c));
              }
            }
          }
        }
      }
    }
  }
  // Large: split across threads; 1 and 3 threads give the same bits.
  const int64_t rows = 1100, cols = 1001;
  Literal x(Shape::Array(PrimitiveType::kF32, {rows, cols}));
  for (int64_t i = 0; i < rows * cols; ++i) {
    const uint32_t r = next();
    x.SetFromDouble(
        i, r % 997 == 0
               ? specials[r % 12]
               : static_cast<double>(static_cast<int32_t>(r)) * 0x1p-20);
  }
  const std::string text =
      "HloModule m\nf {\n  a = f32[] parameter(0)\n  b = f32[] "
      "parameter(1)\n  ROOT s = f32[] maximum(a, b)\n}\nENTRY e {\n  x = "
      "f32[1100,1001] parameter(0)\n  z = f32[] constant(-inf)\n  ROOT r = "
      "f32[1001] reduce(x, z), dimensions={0}, to_apply=f\n}\n";
  EvaluatorOptions one, three;
  one.threads = 1;
  three.threads = 3;
  const Literal a = RunHlo(text, {x}, one);
  const Literal b = RunHlo(text, {x}, three);
  ASSERT_EQ(a.raw(), b.raw());
  int64_t nan_columns = 0;
  for (int64_t c = 0; c < cols; ++c) {
    const double want = fold(x, true, -INFINITY, c, cols, rows);
    nan_columns += std::isnan(want);
    check(a.GetAsDouble(c), want, absl::StrCat("large column ", c));
  }
  EXPECT_GT(nan_columns, 0);
  EXPECT_LT(nan_columns, cols);
  // The column path took every output above: NaN-free columns decided,
  // the others folded in order.
  EXPECT_GT(ReduceColumnMinMaxDecided() - decided_before, 10000);
  EXPECT_GT(ReduceColumnMinMaxUndecided() - undecided_before, 1000);
}

TEST(ReduceFastPath, AgreesWithTheExactSum) {
  const float specials[] = {0.0f,   -0.0f,   1.0f,     -1.0f,   0.5f,
                            3.0f,   257.0f,  1e30f,    -1e30f,  1e-30f,
                            1e-40f, -1e-42f, 0x1p-24f, 65504.0f};
  uint64_t seed = 17;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(seed >> 33);
  };
  for (PrimitiveType t :
       {PrimitiveType::kF32, PrimitiveType::kBF16, PrimitiveType::kF16}) {
    const std::string ty(PrimitiveTypeName(t));
    for (int trial = 0; trial < 8; ++trial) {
      const int64_t rows = 5, cols = 3 + trial * 17;
      Literal x(Shape::Array(t, {rows, cols}));
      for (int64_t i = 0; i < rows * cols; ++i) {
        const uint32_t r = next();
        double v;
        switch (trial % 4) {
          case 0:
            v = static_cast<double>(static_cast<int>(r % 9) - 4) *
                ((r & 0x100) ? 256.0 : 1.0);
            break;
          case 1:
            v = specials[r % 14];
            break;
          case 2:
            v = static_cast<double>(static_cast<int32_t>(r)) *
                std::ldexp(1.0, static_cast<int>(r % 30) - 45);
            break;
          default:
            v = (r % 3 == 0) ? 1.0 : (r % 3 == 1 ? -1.0 : 0x1p-11);
            break;
        }
        x.SetFromDouble(i, v);  // rounds to the type
      }
      for (const char* dims : {"{1}", "{0}", "{0,1}"}) {
        // Init 0.5, and -0 (an all -0 row sums to -0, ExactSum's sign).
        for (const double init : {0.5, -0.0}) {
          const std::string out =
              std::string(dims) == "{1}"   ? absl::StrCat(ty, "[", rows, "]")
              : std::string(dims) == "{0}" ? absl::StrCat(ty, "[", cols, "]")
                                           : absl::StrCat(ty, "[]");
          const std::string text = absl::StrCat(
              "HloModule m\nadd {\n  a = ", ty, "[] parameter(0)\n  b = ", ty,
              "[] parameter(1)\n  ROOT s = ", ty,
              "[] add(a, b)\n}\nENTRY e {\n  x = ", ty, "[", rows, ",", cols,
              "] parameter(0)\n  z = ", ty, "[] constant(",
              init == 0 ? "-0" : "0.5", ")\n  ROOT r = ", out,
              " reduce(x, z), dimensions=", dims, ", to_apply=add\n}\n");
          const Literal got = RunHlo(text, {x});
          ASSERT_TRUE(got.shape().IsArray()) << text;
          for (int64_t o = 0; o < got.element_count(); ++o) {
            ExactSum acc;
            acc.Add(init);
            for (int64_t i = 0; i < rows; ++i) {
              for (int64_t j = 0; j < cols; ++j) {
                const bool in = std::string(dims) == "{1}"   ? i == o
                                : std::string(dims) == "{0}" ? j == o
                                                             : true;
                if (in) acc.Add(x.GetAsDouble(i * cols + j));
              }
            }
            Literal want(Shape::Scalar(t));
            want.SetFromDouble(0, acc.RoundTo(t));
            ASSERT_EQ(got.GetRawBits(o), want.GetRawBits(0))
                << ty << " trial " << trial << " dims " << dims << " init "
                << init << " output " << o;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// Reduce split across threads (outputs in chunks): 1, 2, 3 and 8 threads
// give the same bits for add (the verified two-sum and its exact fallback:
// every 5th element is a small integer, so some rows tie or cancel), max
// and integer add, over rows (contiguous), columns (strided) and both; a
// spot check of one row sum against a double sum computed here.
TEST(ReduceThreads, BitIdenticalForEveryThreadCount) {
  const std::string adds =
      "add_f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(a, b)\n}\n"
      "max_f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT s = f32[] maximum(a, b)\n}\n"
      "add_i {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT s = s32[] add(a, b)\n}\n";
  Literal x(Shape::Array(PrimitiveType::kF32, {700, 1600}));
  Literal xi(Shape::Array(PrimitiveType::kS32, {700, 1600}));
  uint64_t seed = 99;
  for (int64_t i = 0; i < x.element_count(); ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t r = static_cast<uint32_t>(seed >> 33);
    x.mutable_data<float>()[i] =
        (r % 5 == 0) ? static_cast<float>(static_cast<int>(r % 7) - 3)
                     : static_cast<float>(static_cast<int32_t>(r)) * 0x1p-30f;
    xi.mutable_data<int32_t>()[i] = static_cast<int32_t>(r);
  }
  struct Case {
    std::string root;
    bool integer = false;
  };
  const std::vector<Case> cases = {
      {"  ROOT r = f32[700] reduce(x, z), dimensions={1}, to_apply=add_f\n"},
      {"  r0 = f32[1600] reduce(x, z), dimensions={0}, to_apply=add_f\n"
       "  ROOT r = bf16[1600] convert(r0)\n"},
      {"  ROOT r = f32[700] reduce(x, z), dimensions={1}, to_apply=max_f\n"},
      {"  ROOT r = f32[] reduce(x, z), dimensions={0,1}, to_apply=add_f\n"},
      {"  ROOT r = s32[1600] reduce(x, z), dimensions={0}, to_apply=add_i\n",
       true},
  };
  for (const Case& c : cases) {
    const std::string text = absl::StrCat(
        "HloModule m\n", adds, "ENTRY e {\n  x = ", c.integer ? "s32" : "f32",
        "[700,1600] parameter(0)\n  z = ", c.integer ? "s32" : "f32",
        "[] constant(0)\n", c.root, "}\n");
    std::vector<Literal> args;
    args.push_back(c.integer ? xi : x);
    std::vector<Literal> results;
    for (int threads : {1, 2, 3, 8}) {
      EvaluatorOptions options;
      options.threads = threads;
      results.push_back(RunHlo(text, args, options));
    }
    ASSERT_TRUE(results[0].shape().IsArray()) << text;
    for (size_t k = 1; k < results.size(); ++k) {
      EXPECT_TRUE(results[k].BitwiseEquals(results[0]))
          << text << " thread case " << k;
    }
  }
  // Row 5's sum: the double sum of 1600 values of at most 31 significant
  // bits differs from the exact sum by far less than f32's half ulp
  // unless it is near a tie; compare within one f32 ulp.
  const Literal rows =
      RunHlo(absl::StrCat("HloModule m\n", adds,
                          "ENTRY e {\n  x = f32[700,1600] parameter(0)\n"
                          "  z = f32[] constant(0)\n",
                          cases[0].root, "}\n"),
             {x});
  double sum = 0;
  for (int64_t j = 0; j < 1600; ++j) sum += x.data<float>()[5 * 1600 + j];
  EXPECT_NEAR(rows.GetAsDouble(5), sum, std::fabs(sum) * 0x1p-23 + 1e-30);
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// Add reductions whose reduced dimensions are not innermost (column sums,
// reduce.cc FoldColumnsPlain): every output equals ExactSum's correctly
// rounded sum computed here, for f32, bf16 and f16, inits 0.5 and -0, 1, 2
// and 3 threads, on shapes that take the path's corners: an odd row count
// (the last row alone), 1501 columns (two tiles of 1024 and 477, a tail
// that is no multiple of the four-column vectors), kept dimensions before,
// between and after the reduced ones, two kept trailing columns, one
// large enough to be split across threads. The columns mix random values
// (the bound decides them), exact midpoints of the type (1 + half an ulp:
// ties, left to ExactSum, which rounds to even), cancellation to zero,
// all -0 columns (-0 only with init -0), subnormals, inf and NaN. The counters
// check that the column sums decided most outputs and left the ties to the
// exact path.
TEST(ReduceColumns, AgreeWithTheExactSum) {
  struct Case {
    std::vector<int64_t> dims;
    std::string reduced;
    std::vector<int64_t> kept;  // in order
  };
  const std::vector<Case> cases = {
      {{7, 1501}, "{0}", {1}},
      {{3, 5, 4, 6}, "{0,2}", {1, 3}},
      {{9, 2, 131}, "{0}", {1, 2}},
      {{6, 3, 2}, "{1}", {0, 2}},
      {{4, 5, 3, 2}, "{1,2}", {0, 3}},
      // 1.1 M elements: split across threads (tiles of 84 and 76 columns
      // at 3 threads, of 128 and 104 at 2).
      {{1100, 1000}, "{0}", {1}},
  };
  uint64_t seed = 2026;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(seed >> 33);
  };
  const int64_t decided_before = ReduceColumnOutputsDecided();
  const int64_t undecided_before = ReduceColumnOutputsUndecided();
  int64_t outputs_checked = 0;
  for (PrimitiveType t :
       {PrimitiveType::kF32, PrimitiveType::kBF16, PrimitiveType::kF16}) {
    const std::string ty(PrimitiveTypeName(t));
    const int precision = t == PrimitiveType::kF32    ? 24
                          : t == PrimitiveType::kBF16 ? 8
                                                      : 11;
    for (const Case& c : cases) {
      const int64_t rank = static_cast<int64_t>(c.dims.size());
      int64_t count = 1;
      for (int64_t d : c.dims) count *= d;
      const int64_t last = c.dims.back();
      Literal x(Shape::Array(t, c.dims));
      for (int64_t i = 0; i < count; ++i) {
        // The column kind from the innermost index, the row from the rest.
        const int64_t col = i % last;
        const int64_t row = i / last;
        const uint32_t r = next();
        double v;
        switch (col % 8) {
          case 0:  // 1 in the first row, half an ulp of 1 in the second
            v = row == 0 ? 1.0 : row == 1 ? std::ldexp(1.0, -precision) : 0.0;
            break;
          case 1:  // all -0
            v = -0.0;
            break;
          case 2:  // +-3 alternating: cancels to zero or to one term
            v = (row % 2 == 0) ? 3.0 : -3.0;
            break;
          case 3:  // subnormals of the type and small normals
            v = static_cast<double>(static_cast<int>(r % 7) - 3) *
                std::ldexp(1.0, t == PrimitiveType::kF32    ? -149
                                : t == PrimitiveType::kBF16 ? -133
                                                            : -24);
            break;
          case 4:  // an inf or a NaN in some columns
            v = (r % 11 == 0)   ? std::numeric_limits<double>::infinity()
                : (r % 13 == 0) ? std::numeric_limits<double>::quiet_NaN()
                                : 1.0 / (1 + r % 5);
            break;
          default:  // random magnitudes and signs
            v = static_cast<double>(static_cast<int32_t>(r)) *
                std::ldexp(1.0, static_cast<int>(r % 20) - 40);
            break;
        }
        x.SetFromDouble(i, v);  // rounds to the type
      }
      std::vector<int64_t> out_dims;
      for (int64_t d : c.kept) out_dims.push_back(c.dims[d]);
      for (const double init : {0.5, -0.0}) {
        const std::string text = absl::StrCat(
            "HloModule m\nadd {\n  a = ", ty, "[] parameter(0)\n  b = ", ty,
            "[] parameter(1)\n  ROOT s = ", ty,
            "[] add(a, b)\n}\nENTRY e {\n  x = ", ty, "[",
            absl::StrJoin(c.dims, ","), "] parameter(0)\n  z = ", ty,
            "[] constant(", init == 0 ? "-0" : "0.5", ")\n  ROOT r = ", ty, "[",
            absl::StrJoin(out_dims, ","),
            "] reduce(x, z), dimensions=", c.reduced, ", to_apply=add\n}\n");
        // The reference: each output's elements found by their index.
        int64_t outputs = 1;
        for (int64_t d : out_dims) outputs *= d;
        std::vector<ExactSum> want(static_cast<size_t>(outputs));
        for (ExactSum& e : want) e.Add(init);
        std::vector<int64_t> index(static_cast<size_t>(rank), 0);
        for (int64_t i = 0; i < count; ++i) {
          int64_t rest = i;
          for (int64_t d = rank - 1; d >= 0; --d) {
            index[d] = rest % c.dims[d];
            rest /= c.dims[d];
          }
          int64_t o = 0;
          for (int64_t d : c.kept) o = o * c.dims[d] + index[d];
          want[static_cast<size_t>(o)].Add(x.GetAsDouble(i));
        }
        for (int threads : {1, 2, 3}) {
          EvaluatorOptions options;
          options.threads = threads;
          const Literal got = RunHlo(text, {x}, options);
          ASSERT_TRUE(got.shape().IsArray()) << text;
          ASSERT_EQ(got.element_count(), outputs) << text;
          for (int64_t o = 0; o < outputs; ++o) {
            Literal w(Shape::Scalar(t));
            w.SetFromDouble(0, want[static_cast<size_t>(o)].RoundTo(t));
            ASSERT_EQ(got.GetRawBits(o), w.GetRawBits(0))
                << text << "threads " << threads << " output " << o << ": "
                << got.GetAsDouble(o) << " vs " << w.GetAsDouble(0);
            ++outputs_checked;
          }
        }
      }
    }
  }
  // Each output went through the column sums once per run: decided or
  // left to the exact path (the ties, the cancellations, inf and NaN).
  const int64_t decided = ReduceColumnOutputsDecided() - decided_before;
  const int64_t undecided = ReduceColumnOutputsUndecided() - undecided_before;
  EXPECT_EQ(decided + undecided, outputs_checked);
  EXPECT_GT(decided, outputs_checked / 2);
  EXPECT_GT(undecided, outputs_checked / 10);
}

// A tie the column sums cannot decide is decided by the exact path, to
// even: f32[2,4] summed over dimension 0 with init 0, columns (1, 2^-24)
// -> 1 (the midpoint of 1 and 1 + 2^-23 rounds to the even 1), (1 +
// 2^-23, 2^-24) -> 1 + 2^-22 (the midpoint rounds up to even), (3, -3) ->
// +0, (-0, -0) -> +0 (init +0). Derived by hand.
TEST(ReduceColumns, TiesRoundToEven) {
  const std::string text =
      "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] "
      "parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[2,4] "
      "parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[4] reduce(x, z), "
      "dimensions={0}, to_apply=add\n}\n";
  const Literal x = F32({2, 4}, {1.0f, 1.0f + 0x1p-23f, 3.0f, -0.0f, 0x1p-24f,
                                 0x1p-24f, -3.0f, -0.0f});
  const Literal got = RunHlo(text, {x});
  const Literal want = F32({4}, {1.0f, 1.0f + 0x1p-22f, 0.0f, 0.0f});
  EXPECT_TRUE(got.BitwiseEquals(want)) << got.ToString();
}

}  // namespace
}  // namespace hloref
