// Verifier: gather and scatter (seed 001 "Gather", "Scatter"; the batching
// dimensions operand_batching_dims / start_indices_batching_dims and
// input_batching_dims / scatter_indices_batching_dims from
// docs/hlo-text-format.md 6.7, with XLA's rules for them).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

// The index vector size: indices.shape[index_vector_dim], or 1 for the
// implicit trailing dimension ("If index_vector_dim is equal to
// start_indices.rank we implicitly consider start_indices to have a
// trailing 1 dimension").
int64_t IndexVectorSize(const Shape& indices, int64_t ivd) {
  return ivd == indices.rank() ? 1 : indices.dimensions(ivd);
}

// The dimensions of `indices` without index_vector_dim.
std::vector<int64_t> BatchDims(const Shape& indices, int64_t ivd) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d != ivd) dims.push_back(indices.dimensions(d));
  }
  return dims;
}

// Shared: the batching dimension pairs (operand side, indices side).
absl::Status CheckBatching(const HloInstruction& inst, absl::string_view rule,
                           absl::string_view operand_name,
                           absl::Span<const int64_t> operand_batching,
                           const Shape& operand, absl::string_view indices_name,
                           absl::Span<const int64_t> indices_batching,
                           const Shape& indices, int64_t ivd) {
  HLOREF_RETURN_IF_ERROR(
      CheckDimList(inst, rule, indices_name, indices_batching, indices.rank()));
  if (Contains(indices_batching, ivd)) {
    return Fail(inst, rule, indices_name, " ", DimsStr(indices_batching),
                " contains index_vector_dim ", ivd);
  }
  if (operand_batching.size() != indices_batching.size()) {
    return Fail(inst, rule, operand_name, " ", DimsStr(operand_batching),
                " and ", indices_name, " ", DimsStr(indices_batching),
                " must have the same number of entries");
  }
  for (size_t i = 0; i < operand_batching.size(); ++i) {
    int64_t a = operand.dimensions(operand_batching[i]);
    int64_t b = indices.dimensions(indices_batching[i]);
    if (a != b) {
      return Fail(inst, rule, "operand batching dimension ",
                  operand_batching[i], " has size ", a,
                  ", indices batching dimension ", indices_batching[i],
                  " has size ", b);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferGather(const HloInstruction& inst) {
  // gather.C1: operand array, start_indices an integer array.
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "gather.C1"));
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 1, "gather.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const Shape& indices = inst.operand(1)->shape();
  if (!IsInteger(indices.element_type())) {
    return Fail(inst, "gather.C1", "start_indices has element type ",
                PrimitiveTypeName(indices.element_type()),
                ", expected an integer type");
  }
  const GatherDimensionNumbers& dn = inst.attrs().gather_dimension_numbers;
  const int64_t ivd = dn.index_vector_dim;
  // gather.C2: index_vector_dim in [0, start_indices.rank].
  if (ivd < 0 || ivd > indices.rank()) {
    return Fail(inst, "gather.C2", "index_vector_dim is ", ivd,
                ", expected a value in [0, ", indices.rank(), "]");
  }
  const std::vector<int64_t> batch = BatchDims(indices, ivd);
  const int64_t out_rank =
      static_cast<int64_t>(batch.size() + dn.offset_dims.size());
  // gather.C3: offset_dims sorted, distinct, output dimensions.
  HLOREF_RETURN_IF_ERROR(CheckDimList(inst, "gather.C3", "offset_dims",
                                      dn.offset_dims, out_rank,
                                      /*sorted=*/true));
  // gather.C4: collapsed_slice_dims sorted, distinct, operand dimensions.
  HLOREF_RETURN_IF_ERROR(CheckDimList(inst, "gather.C4", "collapsed_slice_dims",
                                      dn.collapsed_slice_dims, operand.rank(),
                                      /*sorted=*/true));
  // gather.C5: operand_batching_dims sorted, distinct, operand dimensions,
  // disjoint from collapsed_slice_dims.
  HLOREF_RETURN_IF_ERROR(CheckDimList(inst, "gather.C5",
                                      "operand_batching_dims",
                                      dn.operand_batching_dims, operand.rank(),
                                      /*sorted=*/true));
  for (int64_t d : dn.operand_batching_dims) {
    if (Contains(dn.collapsed_slice_dims, d)) {
      return Fail(inst, "gather.C5", "dimension ", d,
                  " is in both collapsed_slice_dims and operand_batching_dims");
    }
  }
  // gather.C6: "operand.rank must equal the sum of offset_dims.size and
  // collapsed_slice_dims.size" (plus the batching dims).
  const int64_t sum = static_cast<int64_t>(dn.offset_dims.size() +
                                           dn.collapsed_slice_dims.size() +
                                           dn.operand_batching_dims.size());
  if (sum != operand.rank()) {
    return Fail(inst, "gather.C6", "offset_dims (", dn.offset_dims.size(),
                ") + collapsed_slice_dims (", dn.collapsed_slice_dims.size(),
                ") + operand_batching_dims (", dn.operand_batching_dims.size(),
                ") = ", sum, ", operand rank is ", operand.rank());
  }
  // gather.C7: start_index_map has one distinct operand dimension per index
  // vector entry, none of them a batching dimension.
  const int64_t index_size = IndexVectorSize(indices, ivd);
  if (static_cast<int64_t>(dn.start_index_map.size()) != index_size) {
    return Fail(inst, "gather.C7", "start_index_map ",
                DimsStr(dn.start_index_map), " has ", dn.start_index_map.size(),
                " entries, the index vector has ", index_size);
  }
  HLOREF_RETURN_IF_ERROR(CheckDimList(inst, "gather.C7", "start_index_map",
                                      dn.start_index_map, operand.rank()));
  for (int64_t d : dn.start_index_map) {
    if (Contains(dn.operand_batching_dims, d)) {
      return Fail(inst, "gather.C7", "start_index_map entry ", d,
                  " is an operand batching dimension");
    }
  }
  // gather.C8: batching dimension pairs.
  HLOREF_RETURN_IF_ERROR(CheckBatching(
      inst, "gather.C8", "operand_batching_dims", dn.operand_batching_dims,
      operand, "start_indices_batching_dims", dn.start_indices_batching_dims,
      indices, ivd));
  // gather.C9: "slice_sizes.size has to be equal to operand.rank", each
  // within the operand.
  const auto& sizes = inst.attrs().slice_sizes;
  if (static_cast<int64_t>(sizes.size()) != operand.rank()) {
    return Fail(inst, "gather.C9", "slice_sizes ", DimsStr(sizes), " has ",
                sizes.size(), " entries, operand rank is ", operand.rank());
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (sizes[i] < 0 || sizes[i] > operand.dimensions(i)) {
      return Fail(inst, "gather.C9", "slice size ", sizes[i], " in dimension ",
                  i, " is outside [0, ", operand.dimensions(i), "]");
    }
  }
  // gather.C10: collapsed and batching dimensions have slice size 1 (XLA
  // also allows 0).
  for (const auto* list :
       {&dn.collapsed_slice_dims, &dn.operand_batching_dims}) {
    for (int64_t d : *list) {
      if (sizes[d] > 1) {
        return Fail(inst, "gather.C10", "slice size of ",
                    list == &dn.collapsed_slice_dims ? "collapsed" : "batching",
                    " dimension ", d, " is ", sizes[d], ", expected 1");
      }
    }
  }
  // Output: offset_dims get the adjusted slice sizes in order, the others
  // the batch dimensions of start_indices in order.
  std::vector<int64_t> adjusted;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (!Contains(dn.collapsed_slice_dims, i) &&
        !Contains(dn.operand_batching_dims, i)) {
      adjusted.push_back(sizes[i]);
    }
  }
  std::vector<int64_t> dims;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (Contains(dn.offset_dims, i)) {
      dims.push_back(adjusted[next_offset++]);
    } else {
      dims.push_back(batch[next_batch++]);
    }
  }
  return MakeShape(operand.element_type(), dims);
}

absl::StatusOr<Shape> InferScatter(const HloInstruction& inst) {
  // scatter.C1: 2N+1 operands: N inputs, the indices, N updates.
  const int64_t count = inst.operand_count();
  if (count % 2 == 0) {
    return Fail(inst, "scatter.C1", "has ", count,
                " operands, expected N inputs, the indices and N updates");
  }
  const int64_t n = count / 2;
  const Shape& operand = inst.operand(0)->shape();
  const Shape& indices = inst.operand(n)->shape();
  const Shape& updates = inst.operand(n + 1)->shape();
  // scatter.C2: inputs arrays of one set of dimensions, updates arrays of
  // one set of dimensions, updates[i] of input i's type; integer indices.
  std::vector<PrimitiveType> types;
  for (int64_t i = 0; i < n; ++i) {
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, i, "scatter.C2"));
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, n + 1 + i, "scatter.C2"));
    const Shape& in = inst.operand(i)->shape();
    const Shape& up = inst.operand(n + 1 + i)->shape();
    if (!SameDims(in, operand) || !SameDims(up, updates) ||
        up.element_type() != in.element_type()) {
      return Fail(inst, "scatter.C2", "input ", i, " ", ShapeStr(in),
                  " and update ", i, " ", ShapeStr(up), " must match input 0 ",
                  ShapeStr(operand), " and update 0 ", ShapeStr(updates),
                  " in dimensions and each other in type");
    }
    types.push_back(in.element_type());
  }
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, n, "scatter.C2"));
  if (!IsInteger(indices.element_type())) {
    return Fail(inst, "scatter.C2", "scatter_indices has element type ",
                PrimitiveTypeName(indices.element_type()),
                ", expected an integer type");
  }
  const ScatterDimensionNumbers& dn = inst.attrs().scatter_dimension_numbers;
  const int64_t ivd = dn.index_vector_dim;
  // scatter.C3: index_vector_dim in [0, scatter_indices.rank].
  if (ivd < 0 || ivd > indices.rank()) {
    return Fail(inst, "scatter.C3", "index_vector_dim is ", ivd,
                ", expected a value in [0, ", indices.rank(), "]");
  }
  // scatter.C4: "update_window_dims must be in ascending order, not have
  // any repeating dimension numbers, and be in the range [0, updates.rank)".
  HLOREF_RETURN_IF_ERROR(CheckDimList(inst, "scatter.C4", "update_window_dims",
                                      dn.update_window_dims, updates.rank(),
                                      /*sorted=*/true));
  // scatter.C5: the same for inserted_window_dims over the operand.
  HLOREF_RETURN_IF_ERROR(CheckDimList(inst, "scatter.C5",
                                      "inserted_window_dims",
                                      dn.inserted_window_dims, operand.rank(),
                                      /*sorted=*/true));
  // scatter.C6: input_batching_dims likewise, disjoint from
  // inserted_window_dims.
  HLOREF_RETURN_IF_ERROR(CheckDimList(inst, "scatter.C6", "input_batching_dims",
                                      dn.input_batching_dims, operand.rank(),
                                      /*sorted=*/true));
  for (int64_t d : dn.input_batching_dims) {
    if (Contains(dn.inserted_window_dims, d)) {
      return Fail(inst, "scatter.C6", "dimension ", d,
                  " is in both inserted_window_dims and input_batching_dims");
    }
  }
  // scatter.C7: "operand.rank must equal the sum of update_window_dims.size
  // and inserted_window_dims.size" (plus the batching dims).
  const int64_t sum = static_cast<int64_t>(dn.update_window_dims.size() +
                                           dn.inserted_window_dims.size() +
                                           dn.input_batching_dims.size());
  if (sum != operand.rank()) {
    return Fail(inst, "scatter.C7", "update_window_dims (",
                dn.update_window_dims.size(), ") + inserted_window_dims (",
                dn.inserted_window_dims.size(), ") + input_batching_dims (",
                dn.input_batching_dims.size(), ") = ", sum,
                ", operand rank is ", operand.rank());
  }
  // scatter.C8: "scatter_dims_to_operand_dims.size must be equal to
  // scatter_indices.shape.dims[index_vector_dim], and its values must be in
  // the range [0, operand.rank)"; one-to-one; no batching dimension.
  const int64_t index_size = IndexVectorSize(indices, ivd);
  const auto& to_operand = dn.scatter_dims_to_operand_dims;
  if (static_cast<int64_t>(to_operand.size()) != index_size) {
    return Fail(inst, "scatter.C8", "scatter_dims_to_operand_dims ",
                DimsStr(to_operand), " has ", to_operand.size(),
                " entries, the index vector has ", index_size);
  }
  HLOREF_RETURN_IF_ERROR(CheckDimList(inst, "scatter.C8",
                                      "scatter_dims_to_operand_dims",
                                      to_operand, operand.rank()));
  for (int64_t d : to_operand) {
    if (Contains(dn.input_batching_dims, d)) {
      return Fail(inst, "scatter.C8", "scatter_dims_to_operand_dims entry ", d,
                  " is an input batching dimension");
    }
  }
  // scatter.C9: batching dimension pairs.
  HLOREF_RETURN_IF_ERROR(CheckBatching(
      inst, "scatter.C9", "input_batching_dims", dn.input_batching_dims,
      operand, "scatter_indices_batching_dims",
      dn.scatter_indices_batching_dims, indices, ivd));
  // scatter.C10: "Each updates array must be of rank update_window_dims.size
  // + scatter_indices.rank - 1" (the implicit trailing index dimension
  // counts).
  const std::vector<int64_t> batch = BatchDims(indices, ivd);
  const int64_t expected_rank =
      static_cast<int64_t>(dn.update_window_dims.size() + batch.size());
  if (updates.rank() != expected_rank) {
    return Fail(inst, "scatter.C10", "updates rank is ", updates.rank(),
                ", expected update_window_dims (", dn.update_window_dims.size(),
                ") + scatter dimensions (", batch.size(),
                ") = ", expected_rank);
  }
  // scatter.C11: window dimensions within the adjusted operand bounds;
  // scatter.C12: scatter dimensions equal to the indices' batch dimensions.
  std::vector<int64_t> adjusted;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (!Contains(dn.inserted_window_dims, i) &&
        !Contains(dn.input_batching_dims, i)) {
      adjusted.push_back(operand.dimensions(i));
    }
  }
  size_t next_window = 0, next_scatter = 0;
  for (int64_t i = 0; i < updates.rank(); ++i) {
    if (Contains(dn.update_window_dims, i)) {
      int64_t bound = adjusted[next_window++];
      if (updates.dimensions(i) > bound) {
        return Fail(inst, "scatter.C11", "updates dimension ", i, " has size ",
                    updates.dimensions(i),
                    ", more than the operand window bound ", bound);
      }
    } else {
      int64_t bound = batch[next_scatter++];
      if (updates.dimensions(i) != bound) {
        return Fail(inst, "scatter.C12", "updates scatter dimension ", i,
                    " has size ", updates.dimensions(i),
                    ", scatter_indices gives ", bound);
      }
    }
  }
  // scatter.C13: update_computation of type T_0..T_N, T_0..T_N ->
  // Collate(T_0..T_N); a computation in another floating-point precision is
  // read as XLA reads it, with a warning (impl.scatter.5).
  HLOREF_RETURN_IF_ERROR(CheckReducerAsXla(inst, "scatter.C13", "to_apply",
                                           inst.to_apply(), types,
                                           "impl.scatter.5"));
  if (n == 1) return WithElementType(operand, types[0]);
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    results.push_back(WithElementType(inst.operand(i)->shape(), types[i]));
  }
  return Shape::Tuple(std::move(results));
}

}  // namespace

absl::StatusOr<Shape> InferGatherScatter(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kGather:
      return InferGather(inst);
    case HloOpcode::kScatter:
      return InferScatter(inst);
    default:
      return WrongFamily(inst, "gather_scatter");
  }
}

}  // namespace hloref::verifier_internal
