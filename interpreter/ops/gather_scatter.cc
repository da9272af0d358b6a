// The kGatherScatter family: Gather and Scatter (seed 001 "Gather",
// "Scatter"; operand_batching_dims / start_indices_batching_dims and
// input_batching_dims / scatter_indices_batching_dims as in
// docs/hlo-text-format.md 6.7 and StableHLO). Out-of-bounds handling follows
// docs/numerics.md 3.5: gather starts are clamped (identical in the seed's
// successors, so not marked), scatter skips a whole update window that does
// not fit (XLA profile; impl.scatter.1 marks where the per-element rule
// differs).
#include "interpreter/ops/gather_scatter.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/convert.h"
#include "interpreter/ops/families.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

bool Contains(absl::Span<const int64_t> list, int64_t v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

absl::Status NotVerified(const HloInstruction& inst, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(InstructionPrefix(inst), why, " (is the module verified?)"));
}

bool AllIn(absl::Span<const int64_t> list, int64_t bound) {
  for (int64_t v : list) {
    if (v < 0 || v >= bound) return false;
  }
  return true;
}

// Reads index vectors out of start_indices / scatter_indices: the batch
// position G (the indices' dimensions without index_vector_dim, in order)
// and the component k. index_vector_dim == rank means an implicit trailing
// dimension of size 1 (seed: "we implicitly consider start_indices to have
// a trailing 1 dimension").
class IndexReader {
 public:
  IndexReader(const Literal& indices, int64_t index_vector_dim)
      : indices_(indices), ivd_(index_vector_dim) {
    const Shape& s = indices.shape();
    strides_ = RowMajorStrides(s.dimensions());
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (d == ivd_) continue;
      batch_dim_of_.push_back(d);
      batch_sizes_.push_back(s.dimensions(d));
    }
    index_size_ = ivd_ == s.rank() ? 1 : s.dimensions(ivd_);
    ivd_stride_ = ivd_ == s.rank() ? 0 : strides_[ivd_];
  }

  // Sizes of the batch dimensions (the indices' dimensions in order,
  // skipping index_vector_dim).
  const std::vector<int64_t>& batch_sizes() const { return batch_sizes_; }
  int64_t index_size() const { return index_size_; }
  // Position j of the batch vector for indices dimension d (d != ivd).
  int64_t BatchPositionOf(int64_t d) const { return d < ivd_ ? d : d - 1; }

  // S[k] for batch position G.
  absl::StatusOr<int64_t> Read(absl::Span<const int64_t> g, int64_t k) const {
    int64_t linear = k * ivd_stride_;
    for (size_t j = 0; j < g.size(); ++j) {
      linear += g[j] * strides_[batch_dim_of_[j]];
    }
    return ReadIndexElement(indices_, linear);
  }

 private:
  const Literal& indices_;
  int64_t ivd_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> batch_dim_of_;
  std::vector<int64_t> batch_sizes_;
  int64_t index_size_ = 1;
  int64_t ivd_stride_ = 0;
};

// Advances a row-major odometer over `sizes`; false when it wraps around.
bool NextIndex(absl::Span<const int64_t> sizes, std::vector<int64_t>* index) {
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (++(*index)[d] < sizes[d]) return true;
    (*index)[d] = 0;
  }
  return false;
}

// Checks the indices_are_sorted promise: the keys (batching coordinates,
// then the start index scattered into operand order, before any clamping)
// must be non-decreasing in row-major order of the index batch positions
// (seed: "sorted (in ascending order, after scattering its values
// according to start_index_map)").
class SortednessCheck {
 public:
  void Add(std::vector<int64_t> key) {
    if (have_prev_ && std::lexicographical_compare(
                          key.begin(), key.end(), prev_.begin(), prev_.end())) {
      sorted_ = false;
    }
    prev_ = std::move(key);
    have_prev_ = true;
  }
  bool sorted() const { return sorted_; }

 private:
  std::vector<int64_t> prev_;
  bool have_prev_ = false;
  bool sorted_ = true;
};

int64_t ElementBytes(PrimitiveType t) { return StorageBytes(t); }

}  // namespace

// Stitches together slices of `operand` at the start positions read from
// `start_indices`, one per batch position of the output.
// Semantics: Gather. Starts are clamped to [0, operand_dim - slice_size]
// (numerics.md 3.5; exact, not implementation-defined); impl.gather.1,
// impl.gather.2.
absl::StatusOr<Literal> EvalGather(const HloInstruction& inst,
                                   absl::Span<const Literal* const> operands,
                                   EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 2, 2));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[0], 0));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[1], 1));
  const Literal& operand = *operands[0];
  const Literal& start_indices = *operands[1];
  const GatherDimensionNumbers& dn = inst.attrs().gather_dimension_numbers;
  const std::vector<int64_t>& slice_sizes = inst.attrs().slice_sizes;
  const Shape& out_shape = inst.shape();
  const int64_t rank = operand.shape().rank();
  absl::Span<const int64_t> operand_dims = operand.shape().dimensions();
  const int64_t ivd = dn.index_vector_dim;

  // Guards against an unverified module (the verifier's gather.C* rules).
  if (ivd < 0 || ivd > start_indices.shape().rank() || !out_shape.IsArray() ||
      static_cast<int64_t>(slice_sizes.size()) != rank ||
      !AllIn(dn.collapsed_slice_dims, rank) ||
      !AllIn(dn.operand_batching_dims, rank) ||
      !AllIn(dn.start_index_map, rank) ||
      !AllIn(dn.offset_dims, out_shape.rank()) ||
      !AllIn(dn.start_indices_batching_dims, start_indices.shape().rank()) ||
      dn.operand_batching_dims.size() !=
          dn.start_indices_batching_dims.size()) {
    return NotVerified(inst, "inconsistent gather dimension numbers");
  }
  IndexReader reader(start_indices, ivd);
  if (static_cast<int64_t>(dn.start_index_map.size()) != reader.index_size() ||
      out_shape.rank() != static_cast<int64_t>(reader.batch_sizes().size() +
                                               dn.offset_dims.size())) {
    return NotVerified(inst, "start_index_map or result rank does not match");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > operand_dims[d]) {
      return NotVerified(inst, absl::StrCat("slice size ", slice_sizes[d],
                                            " out of range in dimension ", d));
    }
  }

  // remapped_offset_dims: offset_dims[k] <-> the k-th operand dimension that
  // is neither collapsed nor a batching dimension.
  std::vector<int64_t> remapped_offset_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.collapsed_slice_dims, d) &&
        !Contains(dn.operand_batching_dims, d)) {
      remapped_offset_dims.push_back(d);
    }
  }
  if (remapped_offset_dims.size() != dn.offset_dims.size()) {
    return NotVerified(inst, "offset_dims does not match the operand rank");
  }
  // batch_dims: the output dimensions not in offset_dims, in order.
  std::vector<int64_t> batch_dims;
  for (int64_t i = 0; i < out_shape.rank(); ++i) {
    if (!Contains(dn.offset_dims, i)) batch_dims.push_back(i);
  }
  for (size_t j = 0; j < batch_dims.size(); ++j) {
    if (out_shape.dimensions(batch_dims[j]) != reader.batch_sizes()[j]) {
      return NotVerified(inst, "result batch dimension does not match");
    }
  }
  for (size_t k = 0; k < dn.offset_dims.size(); ++k) {
    if (out_shape.dimensions(dn.offset_dims[k]) !=
        slice_sizes[remapped_offset_dims[k]]) {
      return NotVerified(inst, "result offset dimension does not match");
    }
  }

  Literal result(out_shape);
  if (result.element_count() == 0) return result;

  // impl.gather.2: a collapsed or batching dimension may have slice size 0
  // (XLA allows it) while the result still has elements; nothing can be
  // read then.
  for (const auto* list :
       {&dn.collapsed_slice_dims, &dn.operand_batching_dims}) {
    for (int64_t d : *list) {
      if (slice_sizes[d] == 0) {
        ctx.MarkAllImplDefined(0, "impl.gather.2");
        return result;  // zeros
      }
    }
  }

  const int64_t elem_bytes = ElementBytes(operand.element_type());
  const std::vector<int64_t> operand_strides = RowMajorStrides(operand_dims);
  const std::vector<int64_t> out_strides =
      RowMajorStrides(out_shape.dimensions());
  std::vector<int64_t> window_dims, src_strides, dst_strides;
  for (size_t k = 0; k < dn.offset_dims.size(); ++k) {
    window_dims.push_back(slice_sizes[remapped_offset_dims[k]]);
    src_strides.push_back(operand_strides[remapped_offset_dims[k]]);
    dst_strides.push_back(out_strides[dn.offset_dims[k]]);
  }

  const std::vector<int64_t>& batch_sizes = reader.batch_sizes();
  std::vector<int64_t> g(batch_sizes.size(), 0);
  SortednessCheck sortedness;
  std::vector<int64_t> start(rank);
  int64_t positions = 0;
  do {
    if ((++positions & 0xffff) == 0) {
      HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    }
    std::fill(start.begin(), start.end(), 0);
    std::vector<int64_t> key;
    // Batching dimensions: the operand index equals the batch coordinate.
    for (size_t t = 0; t < dn.operand_batching_dims.size(); ++t) {
      const int64_t j =
          reader.BatchPositionOf(dn.start_indices_batching_dims[t]);
      start[dn.operand_batching_dims[t]] = g[j];
      key.push_back(g[j]);
    }
    // Sin[start_index_map[k]] = S[k], clamped to [0, dim - slice_size].
    std::vector<int64_t> sin(rank, 0);
    for (int64_t k = 0; k < reader.index_size(); ++k) {
      HLOREF_ASSIGN_OR_RETURN(int64_t s, reader.Read(g, k));
      const int64_t d = dn.start_index_map[k];
      sin[d] = s;
      start[d] = std::clamp<int64_t>(s, 0, operand_dims[d] - slice_sizes[d]);
    }
    if (inst.attrs().indices_are_sorted) {
      key.insert(key.end(), sin.begin(), sin.end());
      sortedness.Add(std::move(key));
    }
    int64_t src_base = 0, dst_base = 0;
    for (int64_t d = 0; d < rank; ++d)
      src_base += start[d] * operand_strides[d];
    for (size_t j = 0; j < batch_dims.size(); ++j) {
      dst_base += g[j] * out_strides[batch_dims[j]];
    }
    StridedCopy(static_cast<int>(elem_bytes), window_dims, operand.raw().data(),
                src_base, src_strides, result.mutable_raw().data(), dst_base,
                dst_strides);
  } while (NextIndex(batch_sizes, &g));

  // impl.gather.1: a broken sortedness promise makes the result
  // implementation-defined (seed: "If they are not then the semantics are
  // implementation defined").
  if (inst.attrs().indices_are_sorted && !sortedness.sorted()) {
    ctx.MarkAllImplDefined(0, "impl.gather.1");
  }
  return result;
}

namespace {

// The combiner of a scatter when it is one of the simple forms the oracle
// applies directly instead of calling the computation per element.
enum class Combiner : uint8_t {
  kGeneric,  // anything else: ctx.Call
  kAdd,
  kMultiply,
  kMaximum,
  kMinimum,
  kAnd,
  kOr,
  kXor,
  kReplace,  // returns the update (parameter 1)
  kKeep,     // returns the current value (parameter 0)
};

// Detects `ROOT r = T[] op(p0, p1)` (either operand order for the
// commutative ops), `ROOT p1` and `ROOT p0` over two scalar parameters of
// type `type`.
Combiner DetectCombiner(const HloComputation* comp, PrimitiveType type) {
  if (comp == nullptr || comp->num_parameters() != 2) return Combiner::kGeneric;
  const HloInstruction* p0 = comp->parameter(0);
  const HloInstruction* p1 = comp->parameter(1);
  const HloInstruction* root = comp->root();
  if (p0 == nullptr || p1 == nullptr || root == nullptr) {
    return Combiner::kGeneric;
  }
  for (const HloInstruction* p : {p0, p1, root}) {
    if (!p->shape().IsArray() || p->shape().rank() != 0 ||
        p->shape().element_type() != type) {
      return Combiner::kGeneric;
    }
  }
  if (root == p1) return Combiner::kReplace;
  if (root == p0) return Combiner::kKeep;
  if (root->operand_count() != 2) return Combiner::kGeneric;
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (!((a == p0 && b == p1) || (a == p1 && b == p0))) {
    return Combiner::kGeneric;
  }
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      return Combiner::kAdd;
    case HloOpcode::kMultiply:
      return Combiner::kMultiply;
    case HloOpcode::kMaximum:
      return Combiner::kMaximum;
    case HloOpcode::kMinimum:
      return Combiner::kMinimum;
    case HloOpcode::kAnd:
      return Combiner::kAnd;
    case HloOpcode::kOr:
      return Combiner::kOr;
    case HloOpcode::kXor:
      return Combiner::kXor;
    default:
      return Combiner::kGeneric;
  }
}

// Significand precision of the float types the direct path handles.
int FloatPrecision(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF16:
      return 11;
    case PrimitiveType::kBF16:
      return 8;
    case PrimitiveType::kF32:
      return 24;
    case PrimitiveType::kF64:
      return 53;
    default:
      return 0;
  }
}

// Rounds a double to float type T and back (exact load), as the element-wise
// evaluator does for one application of add/multiply (numerics.md
// decision 3: compute in f64, round once).
template <PrimitiveType T>
double RoundTrip(double v) {
  return LoadFloat<T>(StoreFloat<T>(v));
}

using RoundFn = double (*)(double);
RoundFn RoundFnFor(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF16:
      return &RoundTrip<PrimitiveType::kF16>;
    case PrimitiveType::kBF16:
      return &RoundTrip<PrimitiveType::kBF16>;
    case PrimitiveType::kF32:
      return &RoundTrip<PrimitiveType::kF32>;
    case PrimitiveType::kF64:
      return &RoundTrip<PrimitiveType::kF64>;
    default:
      return nullptr;
  }
}

// Exponent of the lowest set bit of a finite non-zero double.
int LowestBitExponent(double v) {
  int exp = 0;
  double m = std::frexp(std::fabs(v), &exp);  // v = m * 2^exp, m in [0.5, 1)
  // Scale the 53-bit significand to an integer and strip trailing zeros.
  uint64_t mant = static_cast<uint64_t>(std::ldexp(m, 53));
  int e = exp - 53;
  while (mant != 0 && (mant & 1) == 0) {
    mant >>= 1;
    ++e;
  }
  return e;
}

// Per operand element bookkeeping for the collision rules.
struct ElementLog {
  uint32_t count = 0;        // updates applied
  bool differ = false;       // replace: the applied updates were not all equal
  int64_t first_update = 0;  // replace: the first applied update element
  // float add: sum of |terms| (initial value included) and the lowest set
  // bit exponent among them; all orders give the same exact result when
  // every partial sum stays a multiple of 2^min_exp below 2^p * 2^min_exp.
  double abs_sum = 0;
  int min_exp = 1 << 20;
  bool non_finite = false;
};

}  // namespace

// Copies the operands and applies the update computation at the positions
// addressed by scatter_indices and the update window, in the order of the
// index batch positions (row-major), each window in row-major order.
// Semantics: Scatter. impl.scatter.1 (whole-window skip), impl.scatter.2
// (order-dependent collisions), impl.scatter.3 (unique_indices broken),
// impl.scatter.4 (indices_are_sorted broken).
absl::StatusOr<Literal> EvalScatter(const HloInstruction& inst,
                                    absl::Span<const Literal* const> operands,
                                    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 3, -1));
  if (operands.size() % 2 == 0) {
    return NotVerified(inst, absl::StrCat("has ", operands.size(),
                                          " operands, expected 2N+1"));
  }
  const int64_t n = static_cast<int64_t>(operands.size()) / 2;
  for (size_t i = 0; i < operands.size(); ++i) {
    HLOREF_RETURN_IF_ERROR(
        ExpectArray(inst, *operands[i], static_cast<int64_t>(i)));
  }
  const Literal& scatter_indices = *operands[n];
  const ScatterDimensionNumbers& dn = inst.attrs().scatter_dimension_numbers;
  const Shape& operand_shape = operands[0]->shape();
  const Shape& updates_shape = operands[n + 1]->shape();
  const int64_t rank = operand_shape.rank();
  absl::Span<const int64_t> operand_dims = operand_shape.dimensions();
  const int64_t ivd = dn.index_vector_dim;
  const HloComputation* update_computation = inst.to_apply();
  if (update_computation == nullptr) {
    return NotVerified(inst, "scatter has no update computation (to_apply)");
  }
  for (int64_t i = 0; i < n; ++i) {
    const Shape& in = operands[i]->shape();
    const Shape& up = operands[n + 1 + i]->shape();
    if (!std::equal(in.dimensions().begin(), in.dimensions().end(),
                    operand_dims.begin(), operand_dims.end()) ||
        !std::equal(up.dimensions().begin(), up.dimensions().end(),
                    updates_shape.dimensions().begin(),
                    updates_shape.dimensions().end()) ||
        in.element_type() != up.element_type()) {
      return NotVerified(inst, "inputs and updates do not match");
    }
  }
  if (ivd < 0 || ivd > scatter_indices.shape().rank() ||
      !AllIn(dn.update_window_dims, updates_shape.rank()) ||
      !AllIn(dn.inserted_window_dims, rank) ||
      !AllIn(dn.input_batching_dims, rank) ||
      !AllIn(dn.scatter_dims_to_operand_dims, rank) ||
      !AllIn(dn.scatter_indices_batching_dims,
             scatter_indices.shape().rank()) ||
      dn.input_batching_dims.size() !=
          dn.scatter_indices_batching_dims.size()) {
    return NotVerified(inst, "inconsistent scatter dimension numbers");
  }
  IndexReader reader(scatter_indices, ivd);
  if (static_cast<int64_t>(dn.scatter_dims_to_operand_dims.size()) !=
      reader.index_size()) {
    return NotVerified(inst, "scatter_dims_to_operand_dims does not match");
  }
  // window_dims_to_operand_dims: update_window_dims[k] <-> the k-th operand
  // dimension neither inserted nor batching.
  std::vector<int64_t> window_to_operand;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) &&
        !Contains(dn.input_batching_dims, d)) {
      window_to_operand.push_back(d);
    }
  }
  if (window_to_operand.size() != dn.update_window_dims.size()) {
    return NotVerified(inst, "update_window_dims does not match the operand");
  }
  // update_scatter_dims: the update dimensions not in update_window_dims.
  std::vector<int64_t> update_scatter_dims;
  for (int64_t i = 0; i < updates_shape.rank(); ++i) {
    if (!Contains(dn.update_window_dims, i)) update_scatter_dims.push_back(i);
  }
  if (update_scatter_dims.size() != reader.batch_sizes().size()) {
    return NotVerified(inst, "updates rank does not match");
  }
  for (size_t j = 0; j < update_scatter_dims.size(); ++j) {
    if (updates_shape.dimensions(update_scatter_dims[j]) !=
        reader.batch_sizes()[j]) {
      return NotVerified(inst, "updates scatter dimension does not match");
    }
  }
  // Window size in each operand dimension (1 for inserted and batching
  // dimensions): XLA's validity check covers the whole window.
  std::vector<int64_t> window_size(rank, 1);
  std::vector<int64_t> window_sizes_in_order;
  for (size_t k = 0; k < dn.update_window_dims.size(); ++k) {
    const int64_t size = updates_shape.dimensions(dn.update_window_dims[k]);
    if (size > operand_dims[window_to_operand[k]]) {
      return NotVerified(inst, "update window larger than the operand");
    }
    window_size[window_to_operand[k]] = size;
    window_sizes_in_order.push_back(size);
  }

  // The result starts as a copy of the inputs.
  const Shape& result_shape = inst.shape();
  std::vector<Literal> outputs;
  for (int64_t i = 0; i < n; ++i) {
    Literal out = *operands[i];
    const Shape& leaf = n == 1 ? result_shape : result_shape.tuple_shapes(i);
    if (leaf.has_layout()) out.set_layout(leaf.layout());
    outputs.push_back(std::move(out));
  }
  auto finish = [&]() -> Literal {
    if (n == 1) return std::move(outputs[0]);
    return Literal::MakeTuple(std::move(outputs));
  };
  const int64_t operand_count = operands[0]->element_count();
  const int64_t updates_count = operands[n + 1]->element_count();
  if (operand_count == 0 || updates_count == 0) return finish();

  // Choose how to apply the combiner.
  const PrimitiveType type = operand_shape.element_type();
  const Combiner combiner =
      n == 1 ? DetectCombiner(update_computation, type) : Combiner::kGeneric;
  enum class Path : uint8_t { kCall, kFloat, kInt, kComplexAdd };
  Path path = Path::kCall;
  RoundFn round = RoundFnFor(type);
  if (combiner == Combiner::kKeep || combiner == Combiner::kReplace) {
    path = Path::kCall;  // handled below by moving bytes
  } else if (combiner != Combiner::kGeneric) {
    if (round != nullptr &&
        (combiner == Combiner::kAdd || combiner == Combiner::kMultiply ||
         combiner == Combiner::kMaximum || combiner == Combiner::kMinimum)) {
      path = Path::kFloat;
    } else if (IsInteger(type) && type != PrimitiveType::kPred) {
      path = Path::kInt;
    } else if (IsComplex(type) && combiner == Combiner::kAdd) {
      path = Path::kComplexAdd;
    }
  }
  // Whether a combination result can depend on the order of the updates.
  const bool order_free =
      combiner == Combiner::kKeep || (path == Path::kInt) ||
      (path == Path::kFloat &&
       (combiner == Combiner::kMaximum || combiner == Combiner::kMinimum));

  // Working copies for the direct paths.
  std::vector<double> fvals, fupd;
  std::vector<int64_t> ivals, iupd;
  std::vector<std::complex<double>> cvals, cupd;
  if (path == Path::kFloat) {
    HLOREF_ASSIGN_OR_RETURN(fvals, LoadDoubles(*operands[0]));
    HLOREF_ASSIGN_OR_RETURN(fupd, LoadDoubles(*operands[n + 1]));
  } else if (path == Path::kInt) {
    HLOREF_ASSIGN_OR_RETURN(ivals, LoadInts(*operands[0]));
    HLOREF_ASSIGN_OR_RETURN(iupd, LoadInts(*operands[n + 1]));
  } else if (path == Path::kComplexAdd) {
    HLOREF_ASSIGN_OR_RETURN(cvals, LoadComplex(*operands[0]));
    HLOREF_ASSIGN_OR_RETURN(cupd, LoadComplex(*operands[n + 1]));
  }
  const int width = IntWidth(type);
  const bool is_unsigned = IsUnsignedInt(type);
  const int precision = FloatPrecision(type);
  const char* max_min_id =
      combiner == Combiner::kMaximum ? "impl.maximum.1" : "impl.minimum.1";

  std::vector<ElementLog> log(static_cast<size_t>(operand_count));
  const int64_t elem_bytes = ElementBytes(type);
  std::vector<int64_t> elem_bytes_of(n);
  for (int64_t i = 0; i < n; ++i) {
    elem_bytes_of[i] = ElementBytes(operands[i]->element_type());
  }
  // Scalar argument literals for the generic path, reused.
  std::vector<Literal> cur_args, upd_args;
  std::vector<const Literal*> arg_ptrs;
  // Also for a recognised combiner without a direct path (e.g. add on an
  // f8 type, which has no rounding function here).
  // impl.scatter.5: an update computation in another floating-point
  // precision than T_i (XLA's shape inference ignores precision; seed 001
  // gives one type): each application converts the current element to the
  // computation's parameter i type and the update element to parameter
  // N+i's (as ConvertElementType), and its result i back to T_i, so the
  // precision changes at every application and the running value is T_i.
  // XLA:CPU (jaxlib 0.10.2, measured): f16 and f32 operands with an f32 /
  // f64 computation round after every application as here (f16: 2048 + 1
  // + 1 = 2048); bf16 operands keep the running value in f32 (256 + 1 + 1
  // = 258), an effect of its bf16 float normalization.
  std::vector<PrimitiveType> param_types;
  bool mixed = false;
  for (int64_t k = 0; k < update_computation->num_parameters(); ++k) {
    const HloInstruction* p = update_computation->parameter(k);
    const PrimitiveType want = operands[k % n]->element_type();
    param_types.push_back(p != nullptr && p->shape().IsArray()
                              ? p->shape().element_type()
                              : want);
    mixed = mixed || param_types.back() != want;
  }
  if (static_cast<int64_t>(param_types.size()) != 2 * n) {
    return NotVerified(inst, "update computation does not take 2N scalars");
  }
  if (path == Path::kCall && combiner != Combiner::kKeep &&
      combiner != Combiner::kReplace) {
    for (int64_t i = 0; i < n; ++i) {
      cur_args.emplace_back(Shape::Scalar(param_types[i]));
      upd_args.emplace_back(Shape::Scalar(param_types[n + i]));
    }
    for (auto& l : cur_args) arg_ptrs.push_back(&l);
    for (auto& l : upd_args) arg_ptrs.push_back(&l);
  }
  int64_t calls = 0;

  auto note_float_add_term = [&](ElementLog& e, double v) {
    if (!std::isfinite(v)) {
      e.non_finite = true;
      return;
    }
    e.abs_sum += std::fabs(v);
    if (v != 0) e.min_exp = std::min(e.min_exp, LowestBitExponent(v));
  };

  // Applies update element `u` (linear in updates) to operand element `o`.
  auto apply = [&](int64_t o, int64_t u) -> absl::Status {
    ElementLog& e = log[static_cast<size_t>(o)];
    ++e.count;
    switch (path) {
      case Path::kFloat: {
        double& cur = fvals[static_cast<size_t>(o)];
        const double upd = fupd[static_cast<size_t>(u)];
        switch (combiner) {
          case Combiner::kAdd:
            if (e.count == 1) note_float_add_term(e, cur);
            note_float_add_term(e, upd);
            cur = round(cur + upd);
            break;
          case Combiner::kMultiply:
            cur = round(cur * upd);
            break;
          case Combiner::kMaximum:
          case Combiner::kMinimum:
            if (std::isnan(cur) || std::isnan(upd) ||
                (cur == 0 && upd == 0 &&
                 std::signbit(cur) != std::signbit(upd))) {
              for (int64_t i = 0; i < n; ++i)
                ctx.MarkImplDefined(i, o, max_min_id);
            }
            cur = combiner == Combiner::kMaximum ? XlaMax(cur, upd)
                                                 : XlaMin(cur, upd);
            break;
          default:
            break;
        }
        return absl::OkStatus();
      }
      case Path::kInt: {
        int64_t& cur = ivals[static_cast<size_t>(o)];
        const int64_t upd = iupd[static_cast<size_t>(u)];
        const uint64_t a = static_cast<uint64_t>(cur);
        const uint64_t b = static_cast<uint64_t>(upd);
        uint64_t r = 0;
        switch (combiner) {
          case Combiner::kAdd:
            r = a + b;
            break;
          case Combiner::kMultiply:
            r = a * b;
            break;
          case Combiner::kMaximum:
            r = is_unsigned ? std::max(a, b)
                            : static_cast<uint64_t>(std::max(cur, upd));
            break;
          case Combiner::kMinimum:
            r = is_unsigned ? std::min(a, b)
                            : static_cast<uint64_t>(std::min(cur, upd));
            break;
          case Combiner::kAnd:
            r = a & b;
            break;
          case Combiner::kOr:
            r = a | b;
            break;
          case Combiner::kXor:
            r = a ^ b;
            break;
          default:
            break;
        }
        cur = WrapToWidth(r, width, !is_unsigned);
        return absl::OkStatus();
      }
      case Path::kComplexAdd:
        cvals[static_cast<size_t>(o)] += cupd[static_cast<size_t>(u)];
        return absl::OkStatus();
      case Path::kCall:
        break;
    }
    if (combiner == Combiner::kKeep) return absl::OkStatus();
    if (combiner == Combiner::kReplace) {
      const uint8_t* raw = operands[n + 1]->raw().data();
      if (e.count == 1) {
        e.first_update = u;
      } else if (std::memcmp(raw + u * elem_bytes,
                             raw + e.first_update * elem_bytes,
                             elem_bytes) != 0) {
        e.differ = true;
      }
      std::memcpy(outputs[0].mutable_raw().data() + o * elem_bytes,
                  operands[n + 1]->raw().data() + u * elem_bytes, elem_bytes);
      return absl::OkStatus();
    }
    // Generic: call the update computation on scalars.
    for (int64_t i = 0; i < n; ++i) {
      const int64_t b = elem_bytes_of[i];
      if (!mixed) {
        std::memcpy(cur_args[i].mutable_raw().data(),
                    outputs[i].raw().data() + o * b, b);
        std::memcpy(upd_args[i].mutable_raw().data(),
                    operands[n + 1 + i]->raw().data() + u * b, b);
        continue;
      }
      // impl.scatter.5: into the computation's types.
      Literal c(Shape::Scalar(outputs[i].element_type()));
      Literal d(Shape::Scalar(operands[n + 1 + i]->element_type()));
      std::memcpy(c.mutable_raw().data(), outputs[i].raw().data() + o * b, b);
      std::memcpy(d.mutable_raw().data(),
                  operands[n + 1 + i]->raw().data() + u * b, b);
      HLOREF_ASSIGN_OR_RETURN(cur_args[i],
                              ConvertLiteral(c, param_types[i], nullptr));
      HLOREF_ASSIGN_OR_RETURN(upd_args[i],
                              ConvertLiteral(d, param_types[n + i], nullptr));
    }
    if ((++calls & 0xfff) == 0) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    HLOREF_ASSIGN_OR_RETURN(Literal r, ctx.Call(*update_computation, arg_ptrs));
    for (int64_t i = 0; i < n; ++i) {
      const Literal& leaf = n == 1 ? r : r.tuple_element(i);
      if (!leaf.shape().IsArray() || leaf.element_count() != 1 ||
          (!mixed && leaf.element_type() != outputs[i].element_type())) {
        return InstructionInternal(
            inst, absl::StrCat("update computation returned ",
                               r.shape().ToString(), ", expected scalars"));
      }
      if (leaf.element_type() != outputs[i].element_type()) {
        // impl.scatter.5: the result back to T_i.
        HLOREF_ASSIGN_OR_RETURN(
            Literal back,
            ConvertLiteral(leaf, outputs[i].element_type(), nullptr));
        std::memcpy(outputs[i].mutable_raw().data() + o * elem_bytes_of[i],
                    back.raw().data(), elem_bytes_of[i]);
        continue;
      }
      std::memcpy(outputs[i].mutable_raw().data() + o * elem_bytes_of[i],
                  leaf.raw().data(), elem_bytes_of[i]);
    }
    return absl::OkStatus();
  };

  const std::vector<int64_t> operand_strides = RowMajorStrides(operand_dims);
  const std::vector<int64_t> update_strides =
      RowMajorStrides(updates_shape.dimensions());
  const std::vector<int64_t>& batch_sizes = reader.batch_sizes();
  std::vector<int64_t> g(batch_sizes.size(), 0);
  std::vector<int64_t> start(rank);
  SortednessCheck sortedness;
  bool any_window = true;
  for (int64_t s : window_sizes_in_order) any_window = any_window && s > 0;
  do {
    std::fill(start.begin(), start.end(), 0);
    std::vector<int64_t> key;
    for (size_t t = 0; t < dn.input_batching_dims.size(); ++t) {
      const int64_t j =
          reader.BatchPositionOf(dn.scatter_indices_batching_dims[t]);
      start[dn.input_batching_dims[t]] = g[j];
      key.push_back(g[j]);
    }
    for (int64_t k = 0; k < reader.index_size(); ++k) {
      HLOREF_ASSIGN_OR_RETURN(int64_t s, reader.Read(g, k));
      // Far out-of-range starts are all equally invalid; bounding them
      // keeps start + window offset from overflowing.
      constexpr int64_t kFar = int64_t{1} << 62;
      start[dn.scatter_dims_to_operand_dims[k]] = std::clamp(s, -kFar, kFar);
    }
    if (inst.attrs().indices_are_sorted) {
      key.insert(key.end(), start.begin(), start.end());
      sortedness.Add(std::move(key));
    }
    if (!any_window) continue;
    // XLA: the window is applied only if it fits entirely.
    bool window_valid = true;
    for (int64_t d = 0; d < rank; ++d) {
      if (start[d] < 0 || start[d] > operand_dims[d] - window_size[d]) {
        window_valid = false;
      }
    }
    int64_t u_base = 0;
    for (size_t j = 0; j < update_scatter_dims.size(); ++j) {
      u_base += g[j] * update_strides[update_scatter_dims[j]];
    }
    std::vector<int64_t> w(window_sizes_in_order.size(), 0);
    do {
      int64_t u = u_base;
      int64_t o = 0;
      bool in_bounds = true;
      std::vector<int64_t> full(start);
      for (size_t k = 0; k < w.size(); ++k) {
        u += w[k] * update_strides[dn.update_window_dims[k]];
        full[window_to_operand[k]] += w[k];
      }
      for (int64_t d = 0; d < rank; ++d) {
        if (full[d] < 0 || full[d] >= operand_dims[d]) {
          in_bounds = false;
          break;
        }
        o += full[d] * operand_strides[d];
      }
      if (window_valid) {
        HLOREF_RETURN_IF_ERROR(apply(o, u));
      } else if (in_bounds) {
        // impl.scatter.1: the seed's per-element rule would update this
        // element; XLA skips the whole window.
        for (int64_t i = 0; i < n; ++i) {
          ctx.MarkImplDefined(i, o, "impl.scatter.1");
        }
      }
    } while (NextIndex(window_sizes_in_order, &w));
  } while (NextIndex(batch_sizes, &g));

  // Store the direct paths' values back (one rounding already happened per
  // application).
  if (path == Path::kFloat) {
    HLOREF_ASSIGN_OR_RETURN(Literal stored,
                            StoreDoubles(outputs[0].shape(), fvals));
    outputs[0] = std::move(stored);
  } else if (path == Path::kInt) {
    HLOREF_ASSIGN_OR_RETURN(Literal stored,
                            StoreInts(outputs[0].shape(), ivals));
    outputs[0] = std::move(stored);
  } else if (path == Path::kComplexAdd) {
    HLOREF_ASSIGN_OR_RETURN(Literal stored,
                            StoreComplex(outputs[0].shape(), cvals));
    outputs[0] = std::move(stored);
  }

  // Collisions.
  for (int64_t o = 0; o < operand_count; ++o) {
    const ElementLog& e = log[static_cast<size_t>(o)];
    if (e.count < 2) continue;
    if (inst.attrs().unique_indices) {
      for (int64_t i = 0; i < n; ++i) {
        ctx.MarkImplDefined(i, o, "impl.scatter.3");
      }
    }
    bool order_dependent = !order_free;
    if (combiner == Combiner::kReplace) {
      order_dependent = e.differ;
    } else if (path == Path::kFloat && combiner == Combiner::kAdd) {
      // Every partial sum in any order is a multiple of 2^min_exp of
      // magnitude <= abs_sum, hence representable, when abs_sum <
      // 2^(p + min_exp); then all orders give the exact sum.
      order_dependent =
          e.non_finite || (e.abs_sum != 0 &&
                           e.abs_sum >= std::ldexp(1.0, precision + e.min_exp));
    }
    if (order_dependent) {
      for (int64_t i = 0; i < n; ++i) {
        ctx.MarkImplDefined(i, o, "impl.scatter.2");
      }
    }
  }
  if (inst.attrs().indices_are_sorted && !sortedness.sorted()) {
    for (int64_t i = 0; i < n; ++i) ctx.MarkAllImplDefined(i, "impl.scatter.4");
  }
  return finish();
}

absl::StatusOr<Literal> EvalGatherScatter(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kGather:
      return EvalGather(inst, operands, ctx);
    case HloOpcode::kScatter:
      return EvalScatter(inst, operands, ctx);
    default:
      return InstructionInternal(inst, "not a gather/scatter op");
  }
}

}  // namespace hloref
