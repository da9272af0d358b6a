// Tests of the kGatherScatter family (interpreter/ops/gather_scatter.cc):
// seed 001's Gather descriptions (the [16,11] / [5,2] batch dynamic slice
// and the tf.gather_nd form), every dimension-number kind including
// batching dimensions and index_vector_dim == rank, clamping with signed
// and unsigned index types, zero-size shapes, element-type sweeps; Scatter
// against a naive loop written from the seed's pseudo-code with XLA's
// whole-window skip, repeated indices with simple and generic combiners,
// variadic scatter, and the impl.scatter.* / impl.gather.* marks.
#include "interpreter/ops/gather_scatter.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using testing_dm::Arr;
using testing_dm::RunHlo;
using testing_dm::Shp;
using testing_dm::SweepTypes;

std::string List(const std::vector<int64_t>& v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}
int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}
bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
// Row-major linear index of `idx` in `dims`.
int64_t Linear(const std::vector<int64_t>& dims,
               const std::vector<int64_t>& idx) {
  int64_t l = 0;
  for (size_t d = 0; d < dims.size(); ++d) l = l * dims[d] + idx[d];
  return l;
}
// Calls f on every index of `dims` in row-major order.
void ForEachIndex(const std::vector<int64_t>& dims,
                  const std::function<void(const std::vector<int64_t>&)>& f) {
  if (Count(dims) == 0) return;
  std::vector<int64_t> idx(dims.size(), 0);
  while (true) {
    f(idx);
    int64_t d = static_cast<int64_t>(dims.size()) - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

Literal IntLiteral(PrimitiveType t, const std::vector<int64_t>& dims,
                   const std::vector<int64_t>& values) {
  Literal lit(Shape::Array(t, dims));
  for (size_t i = 0; i < values.size(); ++i) {
    lit.SetFromInt64(static_cast<int64_t>(i), values[i]);
  }
  return lit;
}
Literal FloatLiteral(PrimitiveType t, const std::vector<int64_t>& dims,
                     const std::vector<double>& values) {
  Literal lit(Shape::Array(t, dims));
  for (size_t i = 0; i < values.size(); ++i) {
    lit.SetFromDouble(static_cast<int64_t>(i), values[i]);
  }
  return lit;
}

// ---- Gather reference: the seed's "Formally, the operand index In
// corresponding to a given output index Out" steps 1-4, with the start
// clamped to [0, operand_dim - slice_size] (numerics.md 3.5) and batching
// dimensions taking the output's batch coordinate.
struct GatherCfg {
  std::vector<int64_t> operand_dims;
  std::vector<int64_t> index_dims;
  int64_t index_vector_dim;
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  std::vector<int64_t> slice_sizes;
};

// The seed's output bounds: batch dims from start_indices (skipping
// index_vector_dim), offset dims from the adjusted slice sizes.
std::vector<int64_t> GatherOutDims(const GatherCfg& c) {
  std::vector<int64_t> batch, adjusted;
  for (size_t d = 0; d < c.index_dims.size(); ++d) {
    if (static_cast<int64_t>(d) != c.index_vector_dim) {
      batch.push_back(c.index_dims[d]);
    }
  }
  for (size_t d = 0; d < c.operand_dims.size(); ++d) {
    if (!Has(c.collapsed_slice_dims, d) && !Has(c.operand_batching_dims, d)) {
      adjusted.push_back(c.slice_sizes[d]);
    }
  }
  const size_t rank = batch.size() + c.offset_dims.size();
  std::vector<int64_t> out;
  size_t b = 0, o = 0;
  for (size_t i = 0; i < rank; ++i) {
    out.push_back(Has(c.offset_dims, i) ? adjusted[o++] : batch[b++]);
  }
  return out;
}

std::vector<int64_t> RefGather(const GatherCfg& c,
                               const std::vector<int64_t>& operand,
                               const std::vector<int64_t>& indices) {
  const std::vector<int64_t> out_dims = GatherOutDims(c);
  const int64_t rank = static_cast<int64_t>(c.operand_dims.size());
  std::vector<int64_t> batch_dims;  // output dims not in offset_dims
  for (size_t i = 0; i < out_dims.size(); ++i) {
    if (!Has(c.offset_dims, i)) batch_dims.push_back(i);
  }
  std::vector<int64_t> remapped;  // remapped_offset_dims
  for (int64_t d = 0; d < rank; ++d) {
    if (!Has(c.collapsed_slice_dims, d) && !Has(c.operand_batching_dims, d)) {
      remapped.push_back(d);
    }
  }
  const bool implicit =
      c.index_vector_dim == static_cast<int64_t>(c.index_dims.size());
  std::vector<int64_t> full_index_dims = c.index_dims;
  if (implicit) full_index_dims.push_back(1);
  std::vector<int64_t> result;
  ForEachIndex(out_dims, [&](const std::vector<int64_t>& out) {
    // 1. G and S[i] = start_indices[Combine(G, i)].
    std::vector<int64_t> g;
    for (int64_t d : batch_dims) g.push_back(out[d]);
    std::vector<int64_t> sin(rank, 0);
    for (size_t k = 0; k < c.start_index_map.size(); ++k) {
      std::vector<int64_t> combined = g;
      combined.insert(combined.begin() + c.index_vector_dim,
                      static_cast<int64_t>(k));
      int64_t s = indices[Linear(full_index_dims, combined)];
      // 2. Sin[start_index_map[k]] = S[k], clamped.
      const int64_t d = c.start_index_map[k];
      s = std::max<int64_t>(
          0, std::min<int64_t>(s, c.operand_dims[d] - c.slice_sizes[d]));
      sin[d] = s;
    }
    for (size_t t = 0; t < c.operand_batching_dims.size(); ++t) {
      const int64_t sd = c.start_indices_batching_dims[t];
      sin[c.operand_batching_dims[t]] =
          g[sd < c.index_vector_dim ? sd : sd - 1];
    }
    // 3. Oin[remapped_offset_dims(k)] = Out[offset_dims[k]].
    std::vector<int64_t> in(rank, 0);
    for (size_t k = 0; k < c.offset_dims.size(); ++k) {
      in[remapped[k]] = out[c.offset_dims[k]];
    }
    // 4. In = Oin + Sin.
    for (int64_t d = 0; d < rank; ++d) in[d] += sin[d];
    result.push_back(operand[Linear(c.operand_dims, in)]);
  });
  return result;
}

std::string GatherModule(const GatherCfg& c, const std::string& type,
                         const std::string& index_type,
                         const std::string& extra = "") {
  return absl::StrCat(
      "HloModule m\nENTRY e {\n  op = ", Shp(type, c.operand_dims),
      " parameter(0)\n  idx = ", Shp(index_type, c.index_dims),
      " parameter(1)\n  ROOT g = ", Shp(type, GatherOutDims(c)),
      " gather(op, idx), offset_dims=", List(c.offset_dims),
      ", collapsed_slice_dims=", List(c.collapsed_slice_dims),
      ", start_index_map=", List(c.start_index_map),
      ", operand_batching_dims=", List(c.operand_batching_dims),
      ", start_indices_batching_dims=", List(c.start_indices_batching_dims),
      ", index_vector_dim=", c.index_vector_dim,
      ", slice_sizes=", List(c.slice_sizes), extra, "\n}\n");
}

// Runs the gather on s32 operand values 0..n-1 (times 7, mod 1000) and
// index values `indices` of `index_type`, comparing with RefGather.
void CheckGather(const GatherCfg& c, PrimitiveType index_type,
                 const std::vector<int64_t>& indices) {
  std::vector<int64_t> operand(Count(c.operand_dims));
  for (size_t i = 0; i < operand.size(); ++i) {
    operand[i] = static_cast<int64_t>(i * 7 % 1000);
  }
  std::vector<Literal> args;
  args.push_back(IntLiteral(PrimitiveType::kS32, c.operand_dims, operand));
  args.push_back(IntLiteral(index_type, c.index_dims, indices));
  // The reference reads the indices as the literal holds them (so an
  // unsigned type sees the wrapped value).
  std::vector<int64_t> stored(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    stored[i] = args[1].GetAsInt64(static_cast<int64_t>(i));
    if (IsUnsignedInt(index_type) && stored[i] < 0) stored[i] = INT64_MAX;
  }
  const std::string text =
      GatherModule(c, "s32", std::string(PrimitiveTypeName(index_type)));
  absl::StatusOr<EvalResult> r = RunHlo(text, std::move(args));
  ASSERT_TRUE(r.ok()) << r.status() << "\n" << text;
  const std::vector<int64_t> want = RefGather(c, operand, stored);
  ASSERT_EQ(r->value.element_count(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(r->value.GetAsInt64(static_cast<int64_t>(i)), want[i])
        << "element " << i << "\n"
        << text;
  }
  EXPECT_FALSE(r->outputs[0].dont_care.has_value());
}

std::vector<int64_t> RandomIndices(int64_t n, int64_t lo, int64_t hi,
                                   uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

// Seed: "gathers 5 slices of shape [8,6] from a [16,11] array ... The
// element in the output array at index [G,O0,O1] is then the element in
// the input array at index [X+O0,Y+O1]".
TEST(Gather, SeedBatchDynamicSlice) {
  GatherCfg c{{16, 11}, {5, 2}, 1, {1, 2}, {}, {0, 1}, {}, {}, {8, 6}};
  const std::vector<int64_t> xy = {0, 0, 8, 5, 3, 2, 8, 0, 1, 4};
  std::vector<Literal> args;
  std::vector<double> operand(16 * 11);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 11; ++j) operand[i * 11 + j] = i * 100 + j;
  }
  args.push_back(FloatLiteral(PrimitiveType::kF32, {16, 11}, operand));
  args.push_back(IntLiteral(PrimitiveType::kS64, {5, 2}, xy));
  absl::StatusOr<EvalResult> r =
      RunHlo(GatherModule(c, "f32", "s64"), std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  for (int g = 0; g < 5; ++g) {
    for (int o0 = 0; o0 < 8; ++o0) {
      for (int o1 = 0; o1 < 6; ++o1) {
        const double want = (xy[2 * g] + o0) * 100 + (xy[2 * g + 1] + o1);
        EXPECT_EQ(r->value.GetAsDouble((g * 8 + o0) * 6 + o1), want)
            << g << "," << o0 << "," << o1;
      }
    }
  }
}

// Seed: "a more general version of the example above using a 'gather
// indices' array of shape [4,5,2]": output [G0,G1,O0,O1] is input
// [X+O0, Y+O1] with (X, Y) = indices[G0,G1,:].
TEST(Gather, SeedTwoBatchDimensions) {
  GatherCfg c{{16, 11}, {4, 5, 2}, 2, {2, 3}, {}, {0, 1}, {}, {}, {8, 6}};
  const std::vector<int64_t> xy = RandomIndices(40, 0, 5, 21);
  std::vector<double> operand(16 * 11);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 11; ++j) operand[i * 11 + j] = i * 100 + j;
  }
  std::vector<Literal> args;
  args.push_back(FloatLiteral(PrimitiveType::kF32, {16, 11}, operand));
  args.push_back(IntLiteral(PrimitiveType::kS32, {4, 5, 2}, xy));
  absl::StatusOr<EvalResult> r =
      RunHlo(GatherModule(c, "f32", "s32"), std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  for (int g = 0; g < 20; ++g) {
    for (int o0 = 0; o0 < 8; ++o0) {
      for (int o1 = 0; o1 < 6; ++o1) {
        const double want = (xy[2 * g] + o0) * 100 + (xy[2 * g + 1] + o1);
        ASSERT_EQ(r->value.GetAsDouble((g * 8 + o0) * 6 + o1), want)
            << g << "," << o0 << "," << o1;
      }
    }
  }
}

// Seed: the tf.gather_nd form, "the output index [G0,G1,O0] maps to the
// input index [GatherIndices[G0,G1,0],O0]", slice_sizes [1,11]; also with
// the index vector dimension implicit (index_vector_dim == rank).
TEST(Gather, SeedGatherNd) {
  for (bool implicit : {false, true}) {
    SCOPED_TRACE(implicit);
    GatherCfg c{
        {6, 11},
        implicit ? std::vector<int64_t>{4, 5} : std::vector<int64_t>{4, 5, 1},
        2,
        {2},
        {0},
        {0},
        {},
        {},
        {1, 11}};
    std::vector<int64_t> rows = RandomIndices(20, 0, 5, 7);
    std::vector<double> operand(6 * 11);
    for (int i = 0; i < 66; ++i) operand[i] = i;
    std::vector<Literal> args;
    args.push_back(FloatLiteral(PrimitiveType::kF32, {6, 11}, operand));
    args.push_back(IntLiteral(PrimitiveType::kS32, c.index_dims, rows));
    absl::StatusOr<EvalResult> r =
        RunHlo(GatherModule(c, "f32", "s32"), std::move(args));
    ASSERT_TRUE(r.ok()) << r.status();
    absl::Span<const int64_t> dims = r->value.shape().dimensions();
    ASSERT_EQ(std::vector<int64_t>(dims.begin(), dims.end()),
              (std::vector<int64_t>{4, 5, 11}));
    for (int g = 0; g < 20; ++g) {
      for (int o = 0; o < 11; ++o) {
        EXPECT_EQ(r->value.GetAsDouble(g * 11 + o), rows[g] * 11 + o);
      }
    }
  }
}

TEST(Gather, ClampsStartsForEveryIndexType) {
  GatherCfg c{{7, 9}, {6, 2}, 1, {1, 2}, {}, {1, 0}, {}, {}, {3, 4}};
  // Out-of-range in both directions (negative for signed types only).
  const std::vector<int64_t> signed_idx = {-5, 2, 100,  -1, 3, 3,
                                           7,  8, -100, 50, 5, 6};
  const std::vector<int64_t> unsigned_idx = {0, 2, 100, 1,  3, 3,
                                             7, 8, 200, 50, 5, 6};
  for (PrimitiveType t : {PrimitiveType::kS8, PrimitiveType::kS16,
                          PrimitiveType::kS32, PrimitiveType::kS64}) {
    SCOPED_TRACE(PrimitiveTypeName(t));
    CheckGather(c, t, signed_idx);
  }
  for (PrimitiveType t : {PrimitiveType::kU8, PrimitiveType::kU16,
                          PrimitiveType::kU32, PrimitiveType::kU64}) {
    SCOPED_TRACE(PrimitiveTypeName(t));
    CheckGather(c, t, unsigned_idx);
  }
  // u32 above INT32_MAX and u64 above INT64_MAX clamp to the top.
  CheckGather(c, PrimitiveType::kU32,
              {4000000000, 4000000000, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4});
  CheckGather(c, PrimitiveType::kU64, {-1, -1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4});
}

TEST(Gather, DimensionNumberVariants) {
  // index_vector_dim = 0; offset dims around the batch dim.
  CheckGather({{7, 9}, {2, 5}, 0, {0, 2}, {}, {0, 1}, {}, {}, {3, 4}},
              PrimitiveType::kS32, RandomIndices(10, -3, 10, 1));
  // index_vector_dim in the middle of a rank-3 index array.
  CheckGather({{5, 6, 4}, {3, 2, 4}, 1, {1}, {0, 2}, {0, 2}, {}, {}, {1, 6, 1}},
              PrimitiveType::kS64, RandomIndices(24, -2, 7, 2));
  // Partial start index: only dimension 2 indexed, the others start at 0.
  CheckGather({{3, 4, 8}, {5, 1}, 1, {1, 2, 3}, {}, {2}, {}, {}, {2, 3, 3}},
              PrimitiveType::kU8, RandomIndices(5, 0, 9, 3));
  // Rank-1 take with index_vector_dim == rank, scalar slices.
  CheckGather({{10}, {6}, 1, {}, {0}, {0}, {}, {}, {1}}, PrimitiveType::kS32,
              {3, 0, 9, 12, -4, 5});
  // Rank-0 start_indices: one slice, no batch dims.
  CheckGather({{10, 3}, {}, 0, {0, 1}, {}, {0}, {}, {}, {4, 3}},
              PrimitiveType::kS32, {8});
}

TEST(Gather, BatchingDimensions) {
  // One batching pair in the leading dimensions.
  CheckGather({{3, 7, 5}, {3, 4, 1}, 2, {2}, {1}, {1}, {0}, {0}, {1, 1, 5}},
              PrimitiveType::kS32, RandomIndices(12, -2, 8, 4));
  // Two batching pairs at non-leading positions, index_vector_dim == rank.
  CheckGather({{6, 3, 4, 2},
               {3, 5, 2},
               3,
               {1, 4},
               {},
               {0},
               {1, 3},
               {0, 2},
               {2, 1, 3, 1}},
              PrimitiveType::kS64, RandomIndices(30, -1, 6, 5));
}

TEST(Gather, ZeroSize) {
  CheckGather({{16, 11}, {0, 2}, 1, {1, 2}, {}, {0, 1}, {}, {}, {8, 6}},
              PrimitiveType::kS32, {});
  CheckGather({{4, 5}, {3, 1}, 1, {1, 2}, {}, {0}, {}, {}, {0, 5}},
              PrimitiveType::kS32, {1, 2, 3});
}

TEST(Gather, EveryElementType) {
  // Gather moves bits: every type, values 0..7 (Arr's encoding).
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY e {\n  op = ", Shp(t, {4, 3}), " constant(",
        testing_dm::Nest(t, {4, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3}),
        ")\n  idx = s32[2,1] constant({{3}, {1}})\n  ROOT g = ", Shp(t, {2, 2}),
        " gather(op, idx), offset_dims={1}, collapsed_slice_dims={0}, "
        "start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}\n}\n");
    testing_dm::ExpectRootEquals(text, Arr(t, {2, 2}, {1, 2, 3, 4}));
  }
}

TEST(Gather, BrokenSortednessPromiseIsMarked) {
  GatherCfg c{{10}, {3}, 1, {}, {0}, {0}, {}, {}, {1}};
  for (bool sorted_data : {true, false}) {
    std::vector<Literal> args;
    args.push_back(
        IntLiteral(PrimitiveType::kS32, {10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    args.push_back(IntLiteral(PrimitiveType::kS32, {3},
                              sorted_data ? std::vector<int64_t>{1, 4, 4}
                                          : std::vector<int64_t>{4, 1, 5}));
    absl::StatusOr<EvalResult> r =
        RunHlo(GatherModule(c, "s32", "s32", ", indices_are_sorted=true"),
               std::move(args));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->outputs[0].dont_care.has_value(), !sorted_data);
    if (!sorted_data) {
      EXPECT_EQ(r->outputs[0].impl_ids,
                std::vector<std::string>{"impl.gather.1"});
    }
  }
}

// ---- Scatter reference: the seed's "In summary" loop over update indices
// U in row-major order, with XLA's rule that a window that does not fit
// (start < 0 or start > operand_dim - window_size in any dimension) is
// skipped as a whole; `partial` collects the in-bounds elements of skipped
// windows (where the seed's per-element rule would differ).
struct ScatterCfg {
  std::vector<int64_t> operand_dims;
  std::vector<int64_t> index_dims;
  std::vector<int64_t> updates_dims;
  int64_t index_vector_dim;
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
};

template <typename T>
std::vector<T> RefScatter(const ScatterCfg& c, std::vector<T> out,
                          const std::vector<int64_t>& indices,
                          const std::vector<T>& updates,
                          const std::function<T(T, T)>& combine,
                          std::vector<bool>* partial, std::vector<int>* hits) {
  const int64_t rank = static_cast<int64_t>(c.operand_dims.size());
  std::vector<int64_t> update_scatter_dims;
  for (size_t i = 0; i < c.updates_dims.size(); ++i) {
    if (!Has(c.update_window_dims, i)) update_scatter_dims.push_back(i);
  }
  std::vector<int64_t> w2o;  // window_dims_to_operand_dims
  for (int64_t d = 0; d < rank; ++d) {
    if (!Has(c.inserted_window_dims, d) && !Has(c.input_batching_dims, d)) {
      w2o.push_back(d);
    }
  }
  std::vector<int64_t> window(rank, 1);
  for (size_t k = 0; k < w2o.size(); ++k) {
    window[w2o[k]] = c.updates_dims[c.update_window_dims[k]];
  }
  std::vector<int64_t> full_index_dims = c.index_dims;
  if (c.index_vector_dim == static_cast<int64_t>(c.index_dims.size())) {
    full_index_dims.push_back(1);
  }
  partial->assign(out.size(), false);
  hits->assign(out.size(), 0);
  ForEachIndex(c.updates_dims, [&](const std::vector<int64_t>& u) {
    std::vector<int64_t> g;
    for (int64_t d : update_scatter_dims) g.push_back(u[d]);
    std::vector<int64_t> sin(rank, 0);
    for (size_t k = 0; k < c.scatter_dims_to_operand_dims.size(); ++k) {
      std::vector<int64_t> combined = g;
      combined.insert(combined.begin() + c.index_vector_dim,
                      static_cast<int64_t>(k));
      sin[c.scatter_dims_to_operand_dims[k]] =
          indices[Linear(full_index_dims, combined)];
    }
    for (size_t t = 0; t < c.input_batching_dims.size(); ++t) {
      const int64_t sd = c.scatter_indices_batching_dims[t];
      sin[c.input_batching_dims[t]] = g[sd < c.index_vector_dim ? sd : sd - 1];
    }
    std::vector<int64_t> win(rank, 0);
    for (size_t k = 0; k < c.update_window_dims.size(); ++k) {
      win[w2o[k]] = u[c.update_window_dims[k]];
    }
    bool fits = true, in_bounds = true;
    std::vector<int64_t> i(rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (sin[d] < 0 || sin[d] > c.operand_dims[d] - window[d]) fits = false;
      const __int128 sum = static_cast<__int128>(sin[d]) + win[d];
      if (sum < 0 || sum >= c.operand_dims[d]) {
        in_bounds = false;
      } else {
        i[d] = static_cast<int64_t>(sum);
      }
    }
    if (!in_bounds) return;
    const int64_t o = Linear(c.operand_dims, i);
    if (!fits) {
      (*partial)[o] = true;
      return;
    }
    out[o] = combine(out[o], updates[Linear(c.updates_dims, u)]);
    ++(*hits)[o];
  });
  return out;
}

std::string ScatterModule(const ScatterCfg& c, const std::string& type,
                          const std::string& index_type,
                          const std::string& combiner_body,
                          const std::string& extra = "") {
  return absl::StrCat(
      "HloModule m\ncomb {\n  p0 = ", type, "[] parameter(0)\n  ",
      combiner_body.empty() ? "ROOT " : "", "p1 = ", type, "[] parameter(1)\n",
      combiner_body, "\n}\nENTRY e {\n  op = ", Shp(type, c.operand_dims),
      " parameter(0)\n  idx = ", Shp(index_type, c.index_dims),
      " parameter(1)\n  upd = ", Shp(type, c.updates_dims),
      " parameter(2)\n  ROOT s = ", Shp(type, c.operand_dims),
      " scatter(op, idx, upd), update_window_dims=", List(c.update_window_dims),
      ", inserted_window_dims=", List(c.inserted_window_dims),
      ", scatter_dims_to_operand_dims=", List(c.scatter_dims_to_operand_dims),
      ", input_batching_dims=", List(c.input_batching_dims),
      ", scatter_indices_batching_dims=", List(c.scatter_indices_batching_dims),
      ", index_vector_dim=", c.index_vector_dim, extra, ", to_apply=comb\n}\n");
}

constexpr char kAddBody[] = "  ROOT r = s32[] add(p0, p1)";

// Runs an s32 add scatter with random updates and checks values against
// RefScatter and the impl.scatter.1 marks against `partial`.
void CheckScatterAdd(const ScatterCfg& c, PrimitiveType index_type,
                     const std::vector<int64_t>& indices) {
  std::vector<int64_t> operand(Count(c.operand_dims));
  for (size_t i = 0; i < operand.size(); ++i) operand[i] = 1000 * i;
  std::vector<int64_t> updates(Count(c.updates_dims));
  for (size_t i = 0; i < updates.size(); ++i) updates[i] = i + 1;
  std::vector<Literal> args;
  args.push_back(IntLiteral(PrimitiveType::kS32, c.operand_dims, operand));
  args.push_back(IntLiteral(index_type, c.index_dims, indices));
  args.push_back(IntLiteral(PrimitiveType::kS32, c.updates_dims, updates));
  const std::string text = ScatterModule(
      c, "s32", std::string(PrimitiveTypeName(index_type)), kAddBody);
  absl::StatusOr<EvalResult> r = RunHlo(text, std::move(args));
  ASSERT_TRUE(r.ok()) << r.status() << "\n" << text;
  std::vector<bool> partial;
  std::vector<int> hits;
  const std::vector<int64_t> want = RefScatter<int64_t>(
      c, operand, indices, updates, [](int64_t a, int64_t b) { return a + b; },
      &partial, &hits);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(r->value.GetAsInt64(static_cast<int64_t>(i)), want[i])
        << "element " << i << "\n"
        << text;
  }
  const auto& mask = r->outputs[0].dont_care;
  const bool any_partial =
      std::find(partial.begin(), partial.end(), true) != partial.end();
  ASSERT_EQ(mask.has_value(), any_partial) << text;
  if (any_partial) {
    EXPECT_EQ(r->outputs[0].impl_ids,
              std::vector<std::string>{"impl.scatter.1"});
    for (size_t i = 0; i < partial.size(); ++i) {
      EXPECT_EQ(mask->data<bool>()[i], partial[i]) << "element " << i;
    }
  }
}

TEST(Scatter, InverseOfSeedGatherForms) {
  // Rows scattered into a [6,11] array (the scatter counterpart of the
  // gather_nd example), including repeated and out-of-range rows.
  CheckScatterAdd({{6, 11}, {4, 1}, {4, 11}, 1, {1}, {0}, {0}, {}, {}},
                  PrimitiveType::kS32, {5, 0, 5, 9});
  // [8,6] windows into [16,11] at (X, Y), partially out of range ones
  // skipped whole (XLA), marked where the per-element rule differs.
  CheckScatterAdd({{16, 11}, {5, 2}, {5, 8, 6}, 1, {1, 2}, {}, {0, 1}, {}, {}},
                  PrimitiveType::kS64, {0, 0, 8, 5, 9, 2, -1, 0, 3, 6});
}

TEST(Scatter, DimensionNumberVariants) {
  // index_vector_dim == rank: rank-1 indices, scalar updates.
  CheckScatterAdd({{10}, {6}, {6}, 1, {}, {0}, {0}, {}, {}},
                  PrimitiveType::kS32, {3, 0, 9, 3, -1, 10});
  // index_vector_dim = 0; scatter dims after window dims in updates.
  CheckScatterAdd({{7, 9}, {2, 3}, {2, 3, 3}, 0, {0, 1}, {}, {1, 0}, {}, {}},
                  PrimitiveType::kU32, {0, 6, 2, 1, 0, 7});
  // Partial index vector; inserted dimension in the middle.
  CheckScatterAdd({{3, 5, 4}, {2, 1}, {2, 3, 4}, 1, {1, 2}, {1}, {1}, {}, {}},
                  PrimitiveType::kS8, {4, 2});
  // Unsigned index types clamp nothing: huge values skip.
  CheckScatterAdd({{10}, {3}, {3}, 1, {}, {0}, {0}, {}, {}},
                  PrimitiveType::kU64, {-1, 2, 2});
  // Extreme s64 starts with a window: skipped without overflow.
  CheckScatterAdd({{10, 4}, {3, 1}, {3, 2, 4}, 1, {1, 2}, {}, {0}, {}, {}},
                  PrimitiveType::kS64, {INT64_MAX, INT64_MIN, 8});
}

TEST(Scatter, BatchingDimensions) {
  CheckScatterAdd({{3, 7, 5}, {3, 4, 1}, {3, 4, 5}, 2, {2}, {1}, {1}, {0}, {0}},
                  PrimitiveType::kS32, RandomIndices(12, -1, 7, 11));
  CheckScatterAdd({{4, 3, 6, 2},
                   {3, 2, 5, 2},
                   {3, 2, 5, 2},
                   3,
                   {3},
                   {2},
                   {2, 0},
                   {1, 3},
                   {0, 1}},
                  PrimitiveType::kS64, RandomIndices(60, -1, 5, 12));
}

TEST(Scatter, ZeroSize) {
  CheckScatterAdd({{6, 11}, {0, 1}, {0, 11}, 1, {1}, {0}, {0}, {}, {}},
                  PrimitiveType::kS32, {});
  CheckScatterAdd({{6, 0}, {2, 1}, {2, 0}, 1, {1}, {0}, {0}, {}, {}},
                  PrimitiveType::kS32, {1, 2});
}

// Repeated indices with a non-commutative generic combiner (current -
// update) are applied in index order and marked impl.scatter.2; a
// replace combiner with equal colliding values is not marked.
TEST(Scatter, RepeatedIndicesGenericAndReplace) {
  ScatterCfg c{{4}, {5}, {5}, 1, {}, {0}, {0}, {}, {}};
  const std::vector<int64_t> idx = {1, 3, 1, 1, 2};
  std::vector<bool> partial;
  std::vector<int> hits;
  {
    std::vector<Literal> args;
    args.push_back(IntLiteral(PrimitiveType::kS32, {4}, {100, 200, 300, 400}));
    args.push_back(IntLiteral(PrimitiveType::kS32, {5}, idx));
    args.push_back(IntLiteral(PrimitiveType::kS32, {5}, {1, 2, 3, 4, 5}));
    absl::StatusOr<EvalResult> r = RunHlo(
        ScatterModule(c, "s32", "s32", "  ROOT r = s32[] subtract(p0, p1)"),
        std::move(args));
    ASSERT_TRUE(r.ok()) << r.status();
    const std::vector<int64_t> want = RefScatter<int64_t>(
        c, {100, 200, 300, 400}, idx, {1, 2, 3, 4, 5},
        [](int64_t a, int64_t b) { return a - b; }, &partial, &hits);
    EXPECT_EQ(want, (std::vector<int64_t>{100, 192, 295, 398}));
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r->value.GetAsInt64(i), want[i]);
    ASSERT_TRUE(r->outputs[0].dont_care.has_value());
    const auto mask = r->outputs[0].dont_care->data<bool>();
    EXPECT_EQ(std::vector<bool>(mask.begin(), mask.end()),
              (std::vector<bool>{false, true, false, false}));
    EXPECT_EQ(r->outputs[0].impl_ids,
              std::vector<std::string>{"impl.scatter.2"});
  }
  for (bool equal : {true, false}) {
    std::vector<Literal> args;
    args.push_back(FloatLiteral(PrimitiveType::kBF16, {4}, {1, 2, 3, 4}));
    args.push_back(IntLiteral(PrimitiveType::kS32, {5}, idx));
    args.push_back(FloatLiteral(PrimitiveType::kBF16, {5},
                                {7, 8, equal ? 7.0 : 9.0, 7, 5}));
    absl::StatusOr<EvalResult> r = RunHlo(
        ScatterModule(c, "bf16", "s32", /*combiner_body=*/""), std::move(args));
    // (An empty body makes parameter 1 the root: replace.)
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->value.GetAsDouble(1), 7);  // last of 7, (7|9), 7
    EXPECT_EQ(r->value.GetAsDouble(2), 5);
    EXPECT_EQ(r->value.GetAsDouble(3), 8);
    EXPECT_EQ(r->outputs[0].dont_care.has_value(), !equal);
  }
}

// Float add: colliding updates whose every partial sum is exact in the
// type are order-free (not marked); inexact ones are marked. The direct
// add path must agree bit for bit with the element-wise evaluator reached
// through a combiner the detector does not recognise.
TEST(Scatter, FloatAddCollisionsAndDirectPathAgreement) {
  ScatterCfg c{{3}, {6}, {6}, 1, {}, {0}, {0}, {}, {}};
  const std::vector<int64_t> idx = {0, 1, 0, 1, 2, 0};
  for (const char* type : {"f32", "bf16", "f16", "f64"}) {
    SCOPED_TRACE(type);
    const PrimitiveType t = type[0] == 'b'   ? PrimitiveType::kBF16
                            : type[1] == '1' ? PrimitiveType::kF16
                            : type[1] == '3' ? PrimitiveType::kF32
                                             : PrimitiveType::kF64;
    // Exact: small integers.
    {
      std::vector<Literal> args;
      args.push_back(FloatLiteral(t, {3}, {1, 2, 3}));
      args.push_back(IntLiteral(PrimitiveType::kS32, {6}, idx));
      args.push_back(FloatLiteral(t, {6}, {1, 2, 4, 8, 16, -32}));
      absl::StatusOr<EvalResult> r = RunHlo(
          ScatterModule(c, type, "s32",
                        absl::StrCat("  ROOT r = ", type, "[] add(p1, p0)")),
          std::move(args));
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(r->value.GetAsDouble(0), 1 + 1 + 4 - 32);
      EXPECT_EQ(r->value.GetAsDouble(1), 2 + 2 + 8);
      EXPECT_EQ(r->value.GetAsDouble(2), 3 + 16);
      EXPECT_FALSE(r->outputs[0].dont_care.has_value());
    }
    // Inexact: 1 + 0.3 + 0.1 + 1.5 in every type; direct path vs generic
    // path.
    std::vector<double> upd = {0.3, 1.0 / 3, 0.1, 0.7, 1e-12, 1.5};
    std::vector<std::vector<double>> got;
    for (bool generic : {false, true}) {
      std::vector<Literal> args;
      args.push_back(FloatLiteral(t, {3}, {1, 2, 3}));
      args.push_back(IntLiteral(PrimitiveType::kS32, {6}, idx));
      args.push_back(FloatLiteral(t, {6}, upd));
      const std::string body =
          generic
              ? absl::StrCat("  a = ", type, "[] add(p0, p1)\n  one = ", type,
                             "[] constant(1)\n  ROOT r = ", type,
                             "[] multiply(a, one)")
              : absl::StrCat("  ROOT r = ", type, "[] add(p0, p1)");
      absl::StatusOr<EvalResult> r =
          RunHlo(ScatterModule(c, type, "s32", body), std::move(args));
      ASSERT_TRUE(r.ok()) << r.status();
      std::vector<double> v;
      for (int i = 0; i < 3; ++i) v.push_back(r->value.GetAsDouble(i));
      got.push_back(v);
      ASSERT_TRUE(r->outputs[0].dont_care.has_value());
      const auto mask = r->outputs[0].dont_care->data<bool>();
      EXPECT_TRUE(mask[0]);
      EXPECT_FALSE(mask[2]);  // one update only
    }
    EXPECT_EQ(got[0], got[1]);
    // Sequential rounding in the type, index order: element 2 = 3 + 1e-12
    // rounded once.
    EXPECT_EQ(got[0][2], FloatLiteral(t, {1}, {3 + 1e-12}).GetAsDouble(0));
  }
}

// maximum/minimum with NaN and signed zeros: the direct path equals the
// element-wise evaluator (reached through an undetected combiner) bit for
// bit, and marks the NaN / mixed-zero applications impl.maximum.1 /
// impl.minimum.1 the way the element-wise family does.
TEST(Scatter, MaxMinSpecialValuesMatchElementwise) {
  ScatterCfg c{{4}, {4}, {4}, 1, {}, {0}, {0}, {}, {}};
  const double nan = std::nan("");
  for (const char* op : {"maximum", "minimum"}) {
    SCOPED_TRACE(op);
    std::vector<Literal> results;
    for (bool generic : {false, true}) {
      std::vector<Literal> args;
      args.push_back(FloatLiteral(PrimitiveType::kF32, {4}, {0.0, -0.0, 1, 2}));
      args.push_back(IntLiteral(PrimitiveType::kS32, {4}, {0, 1, 2, 3}));
      args.push_back(
          FloatLiteral(PrimitiveType::kF32, {4}, {-0.0, 0.0, nan, 5}));
      const std::string body =
          generic ? absl::StrCat("  a = f32[] ", op,
                                 "(p0, p1)\n  z = f32[] constant(0)\n"
                                 "  ROOT r = f32[] add(a, z)")
                  : absl::StrCat("  ROOT r = f32[] ", op, "(p0, p1)");
      absl::StatusOr<EvalResult> r =
          RunHlo(ScatterModule(c, "f32", "s32", body), std::move(args));
      ASSERT_TRUE(r.ok()) << r.status();
      if (!generic) {
        // Elements 0-2 are NaN or mixed-zero applications.
        ASSERT_TRUE(r->outputs[0].dont_care.has_value());
        const auto mask = r->outputs[0].dont_care->data<bool>();
        EXPECT_EQ(std::vector<bool>(mask.begin(), mask.end()),
                  (std::vector<bool>{true, true, true, false}));
      }
      results.push_back(r->value);
    }
    // (x + 0 keeps every value but -0, so compare elements 2 and 3 bitwise
    // and the zeros by sign of the direct path's IEEE 754-2019 rule.)
    EXPECT_TRUE(std::isnan(results[0].GetAsDouble(2)));
    EXPECT_TRUE(std::isnan(results[1].GetAsDouble(2)));
    EXPECT_EQ(results[0].GetAsDouble(3), results[1].GetAsDouble(3));
    const bool is_max = std::string(op) == "maximum";
    EXPECT_EQ(std::signbit(results[0].GetAsDouble(0)), !is_max);
    EXPECT_EQ(std::signbit(results[0].GetAsDouble(1)), !is_max);
  }
}

TEST(Scatter, VariadicWithTupleCombiner) {
  // (sum, max) over two inputs of different types.
  const std::string text =
      "HloModule m\n"
      "comb {\n"
      "  a0 = s32[] parameter(0)\n  a1 = f32[] parameter(1)\n"
      "  b0 = s32[] parameter(2)\n  b1 = f32[] parameter(3)\n"
      "  s = s32[] add(a0, b0)\n  m = f32[] maximum(a1, b1)\n"
      "  ROOT t = (s32[], f32[]) tuple(s, m)\n}\n"
      "ENTRY e {\n"
      "  x = s32[4] constant({0, 10, 20, 30})\n"
      "  y = f32[4] constant({5, 5, 5, 5})\n"
      "  idx = s32[5,1] constant({{1}, {3}, {1}, {7}, {0}})\n"
      "  u = s32[5] constant({1, 2, 3, 4, 5})\n"
      "  v = f32[5] constant({9, 1, 2, 8, 6})\n"
      "  ROOT s = (s32[4], f32[4]) scatter(x, y, idx, u, v), "
      "update_window_dims={}, inserted_window_dims={0}, "
      "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=comb\n"
      "}\n";
  absl::StatusOr<EvalResult> r = RunHlo(text);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Literal::MakeTuple([] {
              std::vector<Literal> parts;
              parts.push_back(testing_dm::Lit("s32[4] {5, 14, 20, 32}"));
              parts.push_back(testing_dm::Lit("f32[4] {6, 9, 5, 5}"));
              return parts;
            }()))
      << r->value.ToString();
  // Element 1 collides under a generic (called) combiner: both leaves
  // marked there.
  ASSERT_EQ(r->outputs.size(), 2u);
  for (int leaf = 0; leaf < 2; ++leaf) {
    ASSERT_TRUE(r->outputs[leaf].dont_care.has_value());
    const auto mask = r->outputs[leaf].dont_care->data<bool>();
    EXPECT_EQ(std::vector<bool>(mask.begin(), mask.end()),
              (std::vector<bool>{false, true, false, false}));
  }
}

TEST(Scatter, IntegerCombinersAreOrderFree) {
  ScatterCfg c{{3}, {6}, {6}, 1, {}, {0}, {0}, {}, {}};
  const std::vector<int64_t> idx = {0, 1, 0, 1, 2, 0};
  struct Case {
    const char* op;
    std::function<int64_t(int64_t, int64_t)> f;
  };
  const std::vector<Case> cases = {
      {"add", [](int64_t a, int64_t b) { return a + b; }},
      {"multiply", [](int64_t a, int64_t b) { return a * b; }},
      {"maximum", [](int64_t a, int64_t b) { return std::max(a, b); }},
      {"minimum", [](int64_t a, int64_t b) { return std::min(a, b); }},
      {"and", [](int64_t a, int64_t b) { return a & b; }},
      {"or", [](int64_t a, int64_t b) { return a | b; }},
      {"xor", [](int64_t a, int64_t b) { return a ^ b; }},
  };
  for (const Case& k : cases) {
    for (const char* type : {"s8", "u16", "s32", "u64"}) {
      SCOPED_TRACE(absl::StrCat(k.op, " ", type));
      const PrimitiveType t =
          type[0] == 's'
              ? (type[1] == '8' ? PrimitiveType::kS8 : PrimitiveType::kS32)
              : (type[1] == '1' ? PrimitiveType::kU16 : PrimitiveType::kU64);
      const std::vector<int64_t> base = {3, 100, 7};
      const std::vector<int64_t> upd = {5, 60, 6, 9, 2, 12};
      std::vector<Literal> args;
      args.push_back(IntLiteral(t, {3}, base));
      args.push_back(IntLiteral(PrimitiveType::kS32, {6}, idx));
      args.push_back(IntLiteral(t, {6}, upd));
      absl::StatusOr<EvalResult> r = RunHlo(
          ScatterModule(
              c, type, "s32",
              absl::StrCat("  ROOT r = ", type, "[] ", k.op, "(p0, p1)")),
          std::move(args));
      ASSERT_TRUE(r.ok()) << r.status();
      std::vector<bool> partial;
      std::vector<int> hits;
      std::vector<int64_t> want =
          RefScatter<int64_t>(c, base, idx, upd, k.f, &partial, &hits);
      // Wrap to the type the way the literal stores it.
      Literal wrapped = IntLiteral(t, {3}, want);
      EXPECT_EQ(r->value, wrapped) << r->value.ToString();
      EXPECT_FALSE(r->outputs[0].dont_care.has_value());
    }
  }
}

TEST(Scatter, BrokenPromisesAreMarked) {
  ScatterCfg c{{4}, {3}, {3}, 1, {}, {0}, {0}, {}, {}};
  // unique_indices=true with a repeated index: impl.scatter.3 there only.
  {
    std::vector<Literal> args;
    args.push_back(IntLiteral(PrimitiveType::kS32, {4}, {0, 0, 0, 0}));
    args.push_back(IntLiteral(PrimitiveType::kS32, {3}, {2, 0, 2}));
    args.push_back(IntLiteral(PrimitiveType::kS32, {3}, {1, 2, 3}));
    absl::StatusOr<EvalResult> r = RunHlo(
        ScatterModule(c, "s32", "s32", kAddBody, ", unique_indices=true"),
        std::move(args));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->value, testing_dm::Lit("s32[4] {2, 0, 4, 0}"));
    ASSERT_TRUE(r->outputs[0].dont_care.has_value());
    const auto mask = r->outputs[0].dont_care->data<bool>();
    EXPECT_EQ(std::vector<bool>(mask.begin(), mask.end()),
              (std::vector<bool>{false, false, true, false}));
    EXPECT_EQ(r->outputs[0].impl_ids,
              std::vector<std::string>{"impl.scatter.3"});
  }
  // indices_are_sorted=true with unsorted indices: everything marked.
  for (bool sorted : {true, false}) {
    std::vector<Literal> args;
    args.push_back(IntLiteral(PrimitiveType::kS32, {4}, {0, 0, 0, 0}));
    args.push_back(IntLiteral(PrimitiveType::kS32, {3},
                              sorted ? std::vector<int64_t>{0, 1, 3}
                                     : std::vector<int64_t>{1, 0, 3}));
    args.push_back(IntLiteral(PrimitiveType::kS32, {3}, {1, 2, 3}));
    absl::StatusOr<EvalResult> r = RunHlo(
        ScatterModule(c, "s32", "s32", kAddBody, ", indices_are_sorted=true"),
        std::move(args));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->outputs[0].dont_care.has_value(), !sorted);
  }
}

TEST(Scatter, EveryElementTypeReplace) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    const std::string text = absl::StrCat(
        "HloModule m\ncomb {\n  p0 = ", t, "[] parameter(0)\n  ROOT p1 = ", t,
        "[] parameter(1)\n}\nENTRY e {\n  op = ", Shp(t, {4}), " constant(",
        testing_dm::Nest(t, {4}, {0, 1, 2, 3}),
        ")\n  idx = s32[2,1] constant({{3}, {1}})\n  u = ", Shp(t, {2}),
        " constant(", testing_dm::Nest(t, {2}, {6, 7}),
        ")\n  ROOT s = ", Shp(t, {4}),
        " scatter(op, idx, u), update_window_dims={}, "
        "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
        "index_vector_dim=1, to_apply=comb\n}\n");
    testing_dm::ExpectRootEquals(text, Arr(t, {4}, {0, 7, 2, 6}));
  }
}

}  // namespace
}  // namespace hloref
