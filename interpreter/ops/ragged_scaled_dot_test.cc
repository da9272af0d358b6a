// Tests of ragged-dot and scaled-dot (interpreter/ops/ragged_scaled_dot.cc).
// Every expected value is derived by hand in the comment beside it from the
// semantics in the header comment of ragged_scaled_dot.cc (group g covers
// [start_g, end_g) of the ragged dimension; scaled operands are
// RN_D(x * scale of its block)).
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "interpreter/ops/accumulate_test_util.h"
#include "interpreter/ops/dot.h"

namespace hloref {
namespace {

using testing_acc::EvalRootDirect;
using testing_acc::RecordingContext;

// Records the impl-defined marks too.
class MarkingContext : public RecordingContext {
 public:
  void MarkImplDefined(int64_t leaf, int64_t linear,
                       absl::string_view id) override {
    marks[{leaf, linear}] = std::string(id);
  }
  std::map<std::pair<int64_t, int64_t>, std::string> marks;
};

Literal FromDoubles(PrimitiveType type, std::vector<int64_t> dims,
                    const std::vector<double>& values) {
  Literal lit{Shape(type, dims)};
  for (size_t i = 0; i < values.size(); ++i) {
    lit.SetFromDouble(static_cast<int64_t>(i), values[i]);
  }
  return lit;
}

std::vector<double> AsDoubles(const Literal& lit) {
  std::vector<double> out;
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    out.push_back(lit.GetAsDouble(i));
  }
  return out;
}

std::string Module(const std::string& body) {
  return "HloModule m\nENTRY e {\n" + body + "\n}\n";
}

// Mode 1, ragged free dimension: lhs rows {1,2},{3,4},{5,6},{7,8}; rhs[0]
// the identity, rhs[1] the swap; group_sizes {1, 2}: row 0 in group 0
// ({1,2}), rows 1-2 in group 1 ({4,3}, {6,5}), row 3 in no group (zeros,
// impl.ragged-dot.1).
TEST(RaggedDot, NonContractingRowsAndTail) {
  const std::string text = Module(R"(  a = f32[4,2] parameter(0)
  b = f32[2,2,2] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = f32[4,2] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0})");
  MarkingContext ctx;
  auto r = EvalRootDirect(
      text, &EvalDot,
      {FromDoubles(PrimitiveType::kF32, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
       FromDoubles(PrimitiveType::kF32, {2, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0}),
       FromDoubles(PrimitiveType::kS32, {2}, {1, 2})},
      ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(AsDoubles(*r), (std::vector<double>{1, 2, 4, 3, 6, 5, 0, 0}));
  // Error data: row 0 column 0 has terms 1*1 and 2*0: S = 1, m = 2 (f32
  // products rounded: n = 2 products, 1 addition + 1). Row 3 has no term.
  EXPECT_EQ((ctx.data[{0, 0}]), (std::pair<double, int64_t>{1, 2}));
  EXPECT_EQ((ctx.data[{0, 2}]), (std::pair<double, int64_t>{4, 2}));
  EXPECT_EQ((ctx.data[{0, 6}]), (std::pair<double, int64_t>{0, 0}));
  // Only the tail row is marked.
  EXPECT_EQ(ctx.marks.size(), 2u);
  EXPECT_EQ((ctx.marks[{0, 6}]), "impl.ragged-dot.1");
  EXPECT_EQ((ctx.marks[{0, 7}]), "impl.ragged-dot.1");
}

// Mode 1 with a transposed layout: ragged lhs dimension 1 after a
// contracting dimension 0, rhs group dimension 2 last. lhs [k=2, m=3]
// columns (1,10), (2,20), (3,30); rhs [k=2, n=1, g=2]: group 0 (1, 0),
// group 1 (0, 1) along k. group_sizes {2, 1}: rows 0, 1 take k=0 (1, 2),
// row 2 takes k=1 (30).
TEST(RaggedDot, NonContractingGroupDimLast) {
  const std::string text = Module(R"(  a = f32[2,3] parameter(0)
  b = f32[2,1,2] parameter(1)
  g = s64[2] parameter(2)
  ROOT r = f32[3,1] ragged-dot(a, b, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}, lhs_ragged_dims={1}, rhs_group_dims={2})");
  MarkingContext ctx;
  auto r = EvalRootDirect(
      text, &EvalDot,
      {FromDoubles(PrimitiveType::kF32, {2, 3}, {1, 2, 3, 10, 20, 30}),
       FromDoubles(PrimitiveType::kF32, {2, 1, 2}, {1, 0, 0, 1}),
       FromDoubles(PrimitiveType::kS64, {2}, {2, 1})},
      ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(AsDoubles(*r), (std::vector<double>{1, 2, 30}));
  EXPECT_TRUE(ctx.marks.empty());
}

// Mode 1 with a batch dimension and group_sizes per batch ([b, g]):
// batch 0 sizes {2, 0} (both rows group 0: times 1), batch 1 sizes
// {0, 2} (both rows group 1: times 10). lhs [b=2, m=2, k=1] = 1,2 / 3,4;
// rhs [g=2, b=2, k=1, n=1] = g0: (1, 1), g1: (10, 10).
TEST(RaggedDot, NonContractingPerBatchGroupSizes) {
  const std::string text = Module(R"(  a = f32[2,2,1] parameter(0)
  b = f32[2,2,1,1] parameter(1)
  g = s32[2,2] parameter(2)
  ROOT r = f32[2,2,1] ragged-dot(a, b, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0})");
  MarkingContext ctx;
  auto r = EvalRootDirect(
      text, &EvalDot,
      {FromDoubles(PrimitiveType::kF32, {2, 2, 1}, {1, 2, 3, 4}),
       FromDoubles(PrimitiveType::kF32, {2, 2, 1, 1}, {1, 1, 10, 10}),
       FromDoubles(PrimitiveType::kS32, {2, 2}, {2, 0, 0, 2})},
      ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(AsDoubles(*r), (std::vector<double>{1, 2, 30, 40}));
}

// Mode 2, ragged contracting dimension: lhs [m=2, k=4] rows {1,2,3,4},
// {5,6,7,8}; rhs [k=4, n=1] = 1, 10, 100, 1000; group_sizes {1, 2}:
// group 0 = k 0 -> {1, 5}; group 1 = k 1..2 -> {2*10 + 3*100, 6*10 +
// 7*100} = {320, 760}; k = 3 is in no group (dropped, impl.ragged-dot.1).
// Result [g=2, m=2, n=1].
TEST(RaggedDot, ContractingGroups) {
  const std::string text = Module(R"(  a = f32[2,4] parameter(0)
  b = f32[4,1] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = f32[2,2,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1})");
  MarkingContext ctx;
  auto r = EvalRootDirect(
      text, &EvalDot,
      {FromDoubles(PrimitiveType::kF32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}),
       FromDoubles(PrimitiveType::kF32, {4, 1}, {1, 10, 100, 1000}),
       FromDoubles(PrimitiveType::kS32, {2}, {1, 2})},
      ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(AsDoubles(*r), (std::vector<double>{1, 5, 320, 760}));
  // Group 1, row 0: terms 20 and 300 -> S = 320, m = 2.
  EXPECT_EQ((ctx.data[{0, 2}]), (std::pair<double, int64_t>{320, 2}));
  EXPECT_EQ((ctx.marks[{0, 0}]), "impl.ragged-dot.1");
  // With sizes {1, 3} every k is in a group: nothing marked; group 1 adds
  // k = 3: {320 + 4000, 760 + 8000}.
  MarkingContext full;
  auto r2 = EvalRootDirect(
      text, &EvalDot,
      {FromDoubles(PrimitiveType::kF32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}),
       FromDoubles(PrimitiveType::kF32, {4, 1}, {1, 10, 100, 1000}),
       FromDoubles(PrimitiveType::kS32, {2}, {1, 3})},
      full);
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(AsDoubles(*r2), (std::vector<double>{1, 5, 4320, 8760}));
  EXPECT_TRUE(full.marks.empty());
}

// Mode 2 with two contracting dimensions, the ragged one second, and
// group_sizes per outer contracting index ([k0, g]): lhs [m=1, k0=2,
// k1=3] = 1..6, rhs [k0=2, k1=3, n=1] all ones. Row k0=0 sizes {1, 2}:
// group 0 gets lhs 1, group 1 gets 2 + 3; row k0=1 sizes {3, 0}: group 0
// gets 4 + 5 + 6. Result [g=2, m=1, n=1] = {1 + 15, 5} = {16, 5}.
TEST(RaggedDot, ContractingPerOuterIndexGroupSizes) {
  const std::string text = Module(R"(  a = f32[1,2,3] parameter(0)
  b = f32[2,3,1] parameter(1)
  g = u8[2,2] parameter(2)
  ROOT r = f32[2,1,1] ragged-dot(a, b, g), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}, lhs_ragged_dims={2})");
  MarkingContext ctx;
  auto r = EvalRootDirect(
      text, &EvalDot,
      {FromDoubles(PrimitiveType::kF32, {1, 2, 3}, {1, 2, 3, 4, 5, 6}),
       FromDoubles(PrimitiveType::kF32, {2, 3, 1}, {1, 1, 1, 1, 1, 1}),
       FromDoubles(PrimitiveType::kU8, {2, 2}, {1, 2, 3, 0})},
      ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(AsDoubles(*r), (std::vector<double>{16, 5}));
  EXPECT_TRUE(ctx.marks.empty());
}

// Mode 3, ragged batch dimension: the plain batched dot (group_sizes
// unused, even {0, 0}). lhs [b=2, m=1, k=2] = (1, 2), (3, 4); rhs [b=2,
// k=2, n=1] = (5, 6), (7, 8): {1*5 + 2*6, 3*7 + 4*8} = {17, 53}, s32.
TEST(RaggedDot, BatchIsPlainDot) {
  const std::string text = Module(R"(  a = s32[2,1,2] parameter(0)
  b = s32[2,2,1] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = s32[2,1,1] ragged-dot(a, b, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={0})");
  for (double size : {0.0, 1.0}) {
    MarkingContext ctx;
    auto r = EvalRootDirect(
        text, &EvalDot,
        {FromDoubles(PrimitiveType::kS32, {2, 1, 2}, {1, 2, 3, 4}),
         FromDoubles(PrimitiveType::kS32, {2, 2, 1}, {5, 6, 7, 8}),
         FromDoubles(PrimitiveType::kS32, {2}, {size, size})},
        ctx);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(AsDoubles(*r), (std::vector<double>{17, 53}));
    EXPECT_TRUE(ctx.marks.empty());
  }
}

// Negative sizes (impl.ragged-dot.2): sizes {3, -1, 2} over 4 rows give
// the cumulative sums 3, 2, 4: group 0 = [0, 3), group 1 = [3, 2) (empty),
// group 2 = [2, 4). Row 2 is in groups 0 and 2 and gets both products.
// lhs rows (1), (2), (3), (4) (k = 1); rhs groups (1), (100), (10):
// {1, 2, 3 + 30, 40}. Every row is marked (the row of sizes is irregular).
TEST(RaggedDot, NegativeSizesOverlap) {
  const std::string text = Module(R"(  a = f32[4,1] parameter(0)
  b = f32[3,1,1] parameter(1)
  g = s32[3] parameter(2)
  ROOT r = f32[4,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0})");
  MarkingContext ctx;
  auto r =
      EvalRootDirect(text, &EvalDot,
                     {FromDoubles(PrimitiveType::kF32, {4, 1}, {1, 2, 3, 4}),
                      FromDoubles(PrimitiveType::kF32, {3, 1, 1}, {1, 100, 10}),
                      FromDoubles(PrimitiveType::kS32, {3}, {3, -1, 2})},
                     ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(AsDoubles(*r), (std::vector<double>{1, 2, 33, 40}));
  EXPECT_EQ(ctx.marks.size(), 4u);
  EXPECT_EQ((ctx.marks[{0, 2}]), "impl.ragged-dot.2");
  // Two terms for row 2: S = 3 + 30, m = 2.
  EXPECT_EQ((ctx.data[{0, 2}]), (std::pair<double, int64_t>{33, 2}));
}

// Sizes summing past the dimension (impl.ragged-dot.2): {1, 5} over 3 rows:
// group 0 = row 0, group 1 = rows 1..2 (the interval [1, 6) clipped).
TEST(RaggedDot, SizesPastTheDimension) {
  const std::string text = Module(R"(  a = f32[3,1] parameter(0)
  b = f32[2,1,1] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = f32[3,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0})");
  MarkingContext ctx;
  auto r =
      EvalRootDirect(text, &EvalDot,
                     {FromDoubles(PrimitiveType::kF32, {3, 1}, {1, 2, 3}),
                      FromDoubles(PrimitiveType::kF32, {2, 1, 1}, {-1, 10}),
                      FromDoubles(PrimitiveType::kS32, {2}, {1, 5})},
                     ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(AsDoubles(*r), (std::vector<double>{-1, 20, 30}));
  EXPECT_EQ((ctx.marks[{0, 0}]), "impl.ragged-dot.2");
}

// Integer wrap: s8 result, 100 * 2 = 200 wraps to -56; pred: OR of ANDs;
// complex: (1 + i)(1 - i) = 2.
TEST(RaggedDot, IntegerPredComplex) {
  MarkingContext ctx;
  auto s8 = EvalRootDirect(Module(R"(  a = s8[2,1] parameter(0)
  b = s8[2,1,1] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = s8[2,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0})"),
                           &EvalDot,
                           {FromDoubles(PrimitiveType::kS8, {2, 1}, {100, 100}),
                            FromDoubles(PrimitiveType::kS8, {2, 1, 1}, {1, 2}),
                            FromDoubles(PrimitiveType::kS32, {2}, {1, 1})},
                           ctx);
  ASSERT_TRUE(s8.ok()) << s8.status();
  EXPECT_EQ(AsDoubles(*s8), (std::vector<double>{100, -56}));

  auto pred = EvalRootDirect(
      Module(R"(  a = pred[2,2] parameter(0)
  b = pred[2,2,1] parameter(1)
  g = s32[2] parameter(2)
  ROOT r = pred[2,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0})"),
      &EvalDot,
      // row 0 (1, 0) with group 0 (0, 1): false; row 1 (1, 1) with group 1
      // (0, 1): true.
      {FromDoubles(PrimitiveType::kPred, {2, 2}, {1, 0, 1, 1}),
       FromDoubles(PrimitiveType::kPred, {2, 2, 1}, {0, 1, 0, 1}),
       FromDoubles(PrimitiveType::kS32, {2}, {1, 1})},
      ctx);
  ASSERT_TRUE(pred.ok()) << pred.status();
  EXPECT_EQ(AsDoubles(*pred), (std::vector<double>{0, 1}));

  Literal ca{Shape(PrimitiveType::kC64, {1, 1})};
  ca.mutable_data<std::complex<float>>()[0] = {1, 1};
  Literal cb{Shape(PrimitiveType::kC64, {1, 1, 1})};
  cb.mutable_data<std::complex<float>>()[0] = {1, -1};
  auto c = EvalRootDirect(
      Module(R"(  a = c64[1,1] parameter(0)
  b = c64[1,1,1] parameter(1)
  g = s32[1] parameter(2)
  ROOT r = c64[1,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0})"),
      &EvalDot, {ca, cb, FromDoubles(PrimitiveType::kS32, {1}, {1})}, ctx);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->GetAsComplex(0), (std::complex<double>(2, 0)));
}

// Group sizes are read as their type: u8 {255, 2} over 3 rows wraps the
// cumulative sum to 1, so group 0 = [0, 255) covers every row and group 1
// = [255, 1) none.
TEST(RaggedDot, GroupSizeSumWrapsInItsType) {
  MarkingContext ctx;
  auto r =
      EvalRootDirect(Module(R"(  a = f32[3,1] parameter(0)
  b = f32[2,1,1] parameter(1)
  g = u8[2] parameter(2)
  ROOT r = f32[3,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0})"),
                     &EvalDot,
                     {FromDoubles(PrimitiveType::kF32, {3, 1}, {1, 2, 3}),
                      FromDoubles(PrimitiveType::kF32, {2, 1, 1}, {2, 100}),
                      FromDoubles(PrimitiveType::kU8, {2}, {255, 2})},
                     ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(AsDoubles(*r), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ((ctx.marks[{0, 1}]), "impl.ragged-dot.2");
}

// No groups at all (g = 0): every row is in no group, so the result is
// zero (impl.ragged-dot.1); with a ragged contracting dimension the result
// [0, m, n] is empty.
TEST(RaggedDot, ZeroGroups) {
  MarkingContext ctx;
  auto r =
      EvalRootDirect(Module(R"(  a = f32[2,2] parameter(0)
  b = f32[0,2,1] parameter(1)
  g = s32[0] parameter(2)
  ROOT r = f32[2,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0})"),
                     &EvalDot,
                     {FromDoubles(PrimitiveType::kF32, {2, 2}, {1, 2, 3, 4}),
                      FromDoubles(PrimitiveType::kF32, {0, 2, 1}, {}),
                      FromDoubles(PrimitiveType::kS32, {0}, {})},
                     ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(AsDoubles(*r), (std::vector<double>{0, 0}));
  EXPECT_EQ((ctx.marks[{0, 1}]), "impl.ragged-dot.1");
  auto c = EvalRootDirect(
      Module(R"(  a = f32[2,3] parameter(0)
  b = f32[3,1] parameter(1)
  g = s32[0] parameter(2)
  ROOT r = f32[0,2,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1})"),
      &EvalDot,
      {FromDoubles(PrimitiveType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6}),
       FromDoubles(PrimitiveType::kF32, {3, 1}, {1, 1, 1}),
       FromDoubles(PrimitiveType::kS32, {0}, {})},
      ctx);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->element_count(), 0);
}

// Random cases of modes 1 and 2 in the canonical layout (lhs [b, m, k];
// mode 1: rhs [g, b, k, n], result [b, m, n]; mode 2: rhs [b, k, n],
// result [g, b, m, n]; group_sizes [b, g] with non-negative sizes summing to
// at most the ragged size), s32 data, against a naive loop written here
// that walks the groups one after another.
TEST(RaggedDot, RandomCanonicalAgainstNaiveLoop) {
  testing_acc::Lcg rng(12345);
  for (int iter = 0; iter < 60; ++iter) {
    const bool contracting = iter % 2 == 1;
    const int64_t B = rng.Int(1, 2), M = rng.Int(1, 5), K = rng.Int(1, 5),
                  N = rng.Int(1, 3), G = rng.Int(1, 3);
    const int64_t R = contracting ? K : M;  // the ragged size
    std::vector<int32_t> sizes;
    for (int64_t b = 0; b < B; ++b) {
      int64_t left = rng.Int(0, static_cast<int>(R));
      for (int64_t g = 0; g < G; ++g) {
        const int64_t s =
            g + 1 == G ? left : rng.Int(0, static_cast<int>(left));
        sizes.push_back(static_cast<int32_t>(s));
        left -= s;
      }
    }
    std::vector<int32_t> lhs(B * M * K), rhs((contracting ? 1 : G) * B * K * N);
    for (auto& v : lhs) v = rng.Int(-9, 9);
    for (auto& v : rhs) v = rng.Int(-9, 9);
    // Naive: group of index i in batch b (-1 if none).
    auto group_of = [&](int64_t b, int64_t i) -> int64_t {
      int64_t start = 0;
      for (int64_t g = 0; g < G; ++g) {
        const int64_t end = start + sizes[b * G + g];
        if (i >= start && i < end) return g;
        start = end;
      }
      return -1;
    };
    std::vector<int32_t> want;
    if (!contracting) {
      for (int64_t b = 0; b < B; ++b)
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            const int64_t g = group_of(b, m);
            int32_t sum = 0;
            for (int64_t k = 0; g >= 0 && k < K; ++k)
              sum +=
                  lhs[(b * M + m) * K + k] * rhs[((g * B + b) * K + k) * N + n];
            want.push_back(sum);
          }
    } else {
      for (int64_t g = 0; g < G; ++g)
        for (int64_t b = 0; b < B; ++b)
          for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
              int32_t sum = 0;
              for (int64_t k = 0; k < K; ++k) {
                if (group_of(b, k) == g)
                  sum += lhs[(b * M + m) * K + k] * rhs[(b * K + k) * N + n];
              }
              want.push_back(sum);
            }
    }
    const std::string dims = absl::StrCat(B, ",", M, ",", K);
    const std::string text =
        contracting
            ? Module(absl::StrCat(
                  "  a = s32[", dims, "] parameter(0)\n  b = s32[", B, ",", K,
                  ",", N, "] parameter(1)\n  g = s32[", B, ",", G,
                  "] parameter(2)\n  ROOT r = s32[", G, ",", B, ",", M, ",", N,
                  "] ragged-dot(a, b, g), lhs_batch_dims={0}, "
                  "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                  "rhs_contracting_dims={1}, lhs_ragged_dims={2}"))
            : Module(absl::StrCat(
                  "  a = s32[", dims, "] parameter(0)\n  b = s32[", G, ",", B,
                  ",", K, ",", N, "] parameter(1)\n  g = s32[", B, ",", G,
                  "] parameter(2)\n  ROOT r = s32[", B, ",", M, ",", N,
                  "] ragged-dot(a, b, g), lhs_batch_dims={0}, "
                  "lhs_contracting_dims={2}, rhs_batch_dims={1}, "
                  "rhs_contracting_dims={2}, lhs_ragged_dims={1}, "
                  "rhs_group_dims={0}"));
    MarkingContext ctx;
    auto r = EvalRootDirect(
        text, &EvalDot,
        {Literal::CreateFromValues<int32_t>(PrimitiveType::kS32, {B, M, K},
                                            lhs),
         contracting ? Literal::CreateFromValues<int32_t>(PrimitiveType::kS32,
                                                          {B, K, N}, rhs)
                     : Literal::CreateFromValues<int32_t>(PrimitiveType::kS32,
                                                          {G, B, K, N}, rhs),
         Literal::CreateFromValues<int32_t>(PrimitiveType::kS32, {B, G},
                                            sizes)},
        ctx);
    ASSERT_TRUE(r.ok()) << r.status() << "\n" << text;
    const auto got = r->data<int32_t>();
    EXPECT_EQ(std::vector<int32_t>(got.begin(), got.end()), want) << text;
  }
}

// scaled-dot with f8e8m0fnu block scales over the contracting dimension
// (block 2): 1*2*1*1 + 2*2*1*1 + 3*0.5*2*4 + 4*0.5*(-1)*4 = 10; lhs f8e4m3fn
// (exact in bf16 after scaling), rhs f32.
TEST(ScaledDot, MxBlockScales) {
  const std::string text = Module(R"(  a = f8e4m3fn[1,4] parameter(0)
  b = f32[4,1] parameter(1)
  as = f8e8m0fnu[1,2] parameter(2)
  bs = f8e8m0fnu[2,1] parameter(3)
  ROOT r = f32[1,1] scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, rhs_contracting_dims={0})");
  RecordingContext ctx;
  auto r = EvalRootDirect(
      text, &EvalDot,
      {FromDoubles(PrimitiveType::kF8E4M3FN, {1, 4}, {1, 2, 3, 4}),
       FromDoubles(PrimitiveType::kF32, {4, 1}, {1, 1, 2, -1}),
       FromDoubles(PrimitiveType::kF8E8M0FNU, {1, 2}, {2, 0.5}),
       FromDoubles(PrimitiveType::kF8E8M0FNU, {2, 1}, {1, 4})},
      ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetAsDouble(0), 10);
  // lhs' is bf16 (both f8 < 16 bits), rhs' f32 (f32 wider than e8m0):
  // products 8 + 24 bits > 24: rounded, m = 4; S = 2 + 4 + 12 + 8.
  EXPECT_EQ((ctx.data[{0, 0}]), (std::pair<double, int64_t>{26, 4}));
}

// Scales along a non-contracting dimension and blocks in two dimensions:
// lhs [2, 2] all ones with one scale per row (2 and 8); rhs [2, 2]
// identity with scale [1, 1] = 0.5 (one block of everything):
// {{2*0.5, 2*0.5}, {8*0.5, 8*0.5}} times the identity.
TEST(ScaledDot, RowScalesAndWholeBlock) {
  const std::string text = Module(R"(  a = f32[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  as = f32[2,1] parameter(2)
  bs = f32[1,1] parameter(3)
  ROOT r = f32[2,2] scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, rhs_contracting_dims={0})");
  RecordingContext ctx;
  auto r =
      EvalRootDirect(text, &EvalDot,
                     {FromDoubles(PrimitiveType::kF32, {2, 2}, {1, 1, 1, 1}),
                      FromDoubles(PrimitiveType::kF32, {2, 2}, {1, 0, 0, 1}),
                      FromDoubles(PrimitiveType::kF32, {2, 1}, {2, 8}),
                      FromDoubles(PrimitiveType::kF32, {1, 1}, {0.5})},
                     ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(AsDoubles(*r), (std::vector<double>{1, 1, 4, 4}));
}

// impl.scaled-dot.1: the scaled operand is rounded once to the
// dequantization type. f16 x f16 -> D = f16: (1 + 2^-10)^2 = 1 + 2^-9 +
// 2^-20 rounds to 1 + 2^-9 in f16 (2^-20 is below half an f16 ulp, 2^-11);
// times rhs 1 (scale 1) the f32 result is 1 + 2^-9, not the exact
// 1 + 2^-9 + 2^-20 (which f32 could hold).
TEST(ScaledDot, DequantizedOperandRoundedToItsType) {
  const std::string text = Module(R"(  a = f16[1,1] parameter(0)
  b = f16[1,1] parameter(1)
  as = f16[1,1] parameter(2)
  bs = f16[1,1] parameter(3)
  ROOT r = f32[1,1] scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, rhs_contracting_dims={0})");
  RecordingContext ctx;
  const double x = 1 + std::ldexp(1, -10);
  auto r = EvalRootDirect(text, &EvalDot,
                          {FromDoubles(PrimitiveType::kF16, {1, 1}, {x}),
                           FromDoubles(PrimitiveType::kF16, {1, 1}, {1}),
                           FromDoubles(PrimitiveType::kF16, {1, 1}, {x}),
                           FromDoubles(PrimitiveType::kF16, {1, 1}, {1})},
                          ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetAsDouble(0), 1 + std::ldexp(1, -9));
  // f16 x f16 products (22 bits) are exact in f32: m = n - 1 = 0.
  EXPECT_EQ((ctx.data[{0, 0}].second), 0);
}

// The bf16 dequantization of f8 operands overflows like XLA's: 448 (the
// f8e4m3fn maximum) times 2^127 is past bf16's range, so lhs' = +inf and
// the f64 result is +inf (the exact product, about 7.6e40, would fit f64).
TEST(ScaledDot, Bf16DequantizationOverflows) {
  const std::string text = Module(R"(  a = f8e4m3fn[1,1] parameter(0)
  b = f8e4m3fn[1,1] parameter(1)
  as = f8e8m0fnu[1,1] parameter(2)
  bs = f8e8m0fnu[1,1] parameter(3)
  ROOT r = f64[1,1] scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, rhs_contracting_dims={0})");
  RecordingContext ctx;
  auto r = EvalRootDirect(
      text, &EvalDot,
      {FromDoubles(PrimitiveType::kF8E4M3FN, {1, 1}, {448}),
       FromDoubles(PrimitiveType::kF8E4M3FN, {1, 1}, {1}),
       FromDoubles(PrimitiveType::kF8E8M0FNU, {1, 1}, {std::ldexp(1, 127)}),
       FromDoubles(PrimitiveType::kF8E8M0FNU, {1, 1}, {1})},
      ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetAsDouble(0), HUGE_VAL);
}

}  // namespace
}  // namespace hloref
