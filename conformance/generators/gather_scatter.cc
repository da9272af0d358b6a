// Generators of gather and scatter (seed 001 Gather, Scatter): random
// start_index_map / scatter_dims_to_operand_dims orders, collapsed and
// inserted window dimensions, offset/update window positions, indices of
// several types around and beyond the bounds (gather clamps, scatter skips
// whole windows). Scatter uses add on small integers (every update order
// gives the same bits) or replace with a single index.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {
namespace {

PrimitiveType DrawIndexType(Rng& rng) {
  static constexpr PrimitiveType kTypes[] = {
      PrimitiveType::kS32, PrimitiveType::kS64, PrimitiveType::kU32,
      PrimitiveType::kS8, PrimitiveType::kU16};
  return kTypes[rng.Below(5)];
}

// A sorted random subset of size k of 0..n-1.
std::vector<int64_t> SortedSubset(Rng& rng, int64_t n, int64_t k) {
  std::vector<int64_t> p = Permutation(rng, n);
  p.resize(k);
  std::sort(p.begin(), p.end());
  return p;
}

}  // namespace

absl::StatusOr<Draw> GenerateGatherScatter(HloOpcode op, Rng& rng) {
  if (op != HloOpcode::kGather && op != HloOpcode::kScatter) {
    return absl::UnimplementedError("no generator");
  }
  Draw d;
  const PrimitiveType t = DrawType(rng);
  const std::vector<int64_t> dims = DrawDims(rng, 1, 3);
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t k = rng.Range(1, rank);
  std::vector<int64_t> index_map = Permutation(rng, rank);
  index_map.resize(k);
  // Window sizes; dims in index_map may be collapsed when their size is 1.
  std::vector<int64_t> window(rank);
  std::vector<int64_t> collapsed;
  int64_t max_dim = 0;
  for (int64_t i = 0; i < rank; ++i) {
    window[i] = rng.Range(0, dims[i]);
    max_dim = std::max(max_dim, dims[i]);
  }
  for (int64_t i : index_map) {
    if (dims[i] > 0 && rng.Chance(0.5)) {
      window[i] = 1;
      collapsed.push_back(i);
    }
  }
  std::sort(collapsed.begin(), collapsed.end());
  const bool replace = op == HloOpcode::kScatter && rng.Chance(0.4);
  std::vector<int64_t> batch =
      replace ? std::vector<int64_t>{1} : DrawDims(rng, 0, 2);
  std::vector<int64_t> index_dims = batch;
  index_dims.push_back(k);
  const int64_t index_vector_dim = static_cast<int64_t>(batch.size());
  const PrimitiveType index_type = DrawIndexType(rng);
  std::vector<int64_t> window_dims;  // non-collapsed window sizes in order
  for (int64_t i = 0; i < rank; ++i) {
    if (!std::binary_search(collapsed.begin(), collapsed.end(), i)) {
      window_dims.push_back(window[i]);
    }
  }
  const int64_t out_rank =
      static_cast<int64_t>(batch.size() + window_dims.size());
  const std::vector<int64_t> offset_dims =
      SortedSubset(rng, out_rank, static_cast<int64_t>(window_dims.size()));
  if (op == HloOpcode::kGather) {
    d.params.push_back({Shape(t, dims), Fill::kGeneral});
    d.params.push_back({Shape(index_type, index_dims), Fill::kIndex, max_dim});
    d.op_text =
        absl::StrCat("gather(p0, p1), offset_dims=", ListText(offset_dims),
                     ", collapsed_slice_dims=", ListText(collapsed),
                     ", start_index_map=", ListText(index_map),
                     ", index_vector_dim=", index_vector_dim,
                     ", slice_sizes=", ListText(window));
    return d;
  }
  // scatter: updates = batch dims with the window dims at offset_dims.
  std::vector<int64_t> updates(out_rank);
  size_t w = 0, b = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (std::binary_search(offset_dims.begin(), offset_dims.end(), i)) {
      updates[i] = window_dims[w++];
    } else {
      updates[i] = batch[b++];
    }
  }
  const Fill fill = replace ? Fill::kGeneral : Fill::kSmallInt;
  d.params.push_back({Shape(t, dims), fill});
  d.params.push_back({Shape(index_type, index_dims), Fill::kIndex, max_dim});
  d.params.push_back({Shape(t, updates), fill});
  const std::string tn(PrimitiveTypeName(t));
  d.computations = replace ? absl::StrCat("updater {\n  a = ", tn,
                                          "[] parameter(0)\n  ROOT b = ", tn,
                                          "[] parameter(1)\n}\n\n")
                           : BinaryComputation("updater", "add", t);
  d.op_text = absl::StrCat(
      "scatter(p0, p1, p2), update_window_dims=", ListText(offset_dims),
      ", inserted_window_dims=", ListText(collapsed),
      ", scatter_dims_to_operand_dims=", ListText(index_map),
      ", index_vector_dim=", index_vector_dim, ", to_apply=updater");
  return d;
}

}  // namespace hloref::conformance::gen
