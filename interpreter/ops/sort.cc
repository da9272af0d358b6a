// The kSort family: Sort (seed 001) and topk (text-format 6.6).
// The user comparator may be anything, so the sort is a merge sort written
// here (std::sort with a comparator that is not a strict weak order is
// undefined behaviour); it terminates after O(n log n) comparator calls
// whatever the comparator answers.
#include "interpreter/ops/sort.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/ops/families.h"
#include "spec/types/minifloat.h"

namespace hloref {
namespace {

// Calls the comparator on the elements at two positions of the current
// slice of every operand: parameters 2k and 2k+1 are operand k's elements
// at positions i and j (seed 001, Sort).
class Comparator {
 public:
  Comparator(const HloInstruction& inst, const HloComputation& comparator,
             absl::Span<const Literal* const> operands, EvalContext& ctx)
      : inst_(inst), comparator_(comparator), operands_(operands), ctx_(ctx) {
    for (const Literal* operand : operands) {
      scalars_.emplace_back(Shape::Scalar(operand->element_type()));
      scalars_.emplace_back(Shape::Scalar(operand->element_type()));
      bytes_.push_back(StorageBytes(operand->element_type()));
    }
    for (const Literal& s : scalars_) args_.push_back(&s);
  }

  // Linear positions of the slice's elements are base + position * stride.
  void SetSlice(int64_t base, int64_t stride) {
    base_ = base;
    stride_ = stride;
  }

  // comparator(element at position i, element at position j).
  absl::StatusOr<bool> Less(int64_t i, int64_t j) {
    for (size_t k = 0; k < operands_.size(); ++k) {
      const uint8_t* data = operands_[k]->raw().data();
      std::memcpy(scalars_[2 * k].mutable_raw().data(),
                  data + (base_ + i * stride_) * bytes_[k], bytes_[k]);
      std::memcpy(scalars_[2 * k + 1].mutable_raw().data(),
                  data + (base_ + j * stride_) * bytes_[k], bytes_[k]);
    }
    HLOREF_ASSIGN_OR_RETURN(Literal result, ctx_.Call(comparator_, args_));
    if (!result.shape().IsArray() ||
        result.element_type() != PrimitiveType::kPred ||
        result.element_count() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst_), "the comparator returned ",
                       result.shape().ToString(), ", expected pred[]"));
    }
    return result.raw()[0] != 0;
  }

  // True when operand k holds the same bytes at positions i and j.
  bool SameBytes(size_t k, int64_t i, int64_t j) const {
    const uint8_t* data = operands_[k]->raw().data();
    return std::memcmp(data + (base_ + i * stride_) * bytes_[k],
                       data + (base_ + j * stride_) * bytes_[k],
                       bytes_[k]) == 0;
  }

 private:
  const HloInstruction& inst_;
  const HloComputation& comparator_;
  absl::Span<const Literal* const> operands_;
  EvalContext& ctx_;
  std::vector<Literal> scalars_;
  std::vector<const Literal*> args_;
  std::vector<int> bytes_;
  int64_t base_ = 0;
  int64_t stride_ = 1;
};

// Stable bottom-up merge sort of `perm` (positions) under `less`. On a tie
// (less(right, left) false) the left run's element goes first, which keeps
// equal elements in input order. Every merge step consumes one element,
// so it terminates for any comparator.
absl::Status MergeSort(std::vector<int64_t>& perm, Comparator& less) {
  const int64_t n = static_cast<int64_t>(perm.size());
  std::vector<int64_t> buffer(n);
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = std::min(lo + width, n);
      const int64_t hi = std::min(lo + 2 * width, n);
      int64_t a = lo, b = mid, out = lo;
      while (a < mid && b < hi) {
        HLOREF_ASSIGN_OR_RETURN(bool right_first, less.Less(perm[b], perm[a]));
        buffer[out++] = right_first ? perm[b++] : perm[a++];
      }
      while (a < mid) buffer[out++] = perm[a++];
      while (b < hi) buffer[out++] = perm[b++];
    }
    perm.swap(buffer);
  }
  return absl::OkStatus();
}

// Slices up to this length get the full pairwise consistency check
// (about n^2 extra comparator calls); longer ones only the neighbour check.
constexpr int64_t kFullCheckLimit = 32;

}  // namespace

// Sorts every 1-D slice along `dimension` of all operands together, by the
// comparator over the operands' elements (seed 001, Sort). The sort is
// always stable: with is_stable=false XLA may order comparator-equal
// elements in any way; we keep input order and mark (impl.sort.2) the
// elements of each run of comparator-equal elements whose values differ
// within the run, per output, since another order would change them.
// impl.sort.1: a comparator that is not a strict weak order (e.g. a FLOAT
// LT comparator meeting NaN, numerics.md 3.5) has no defined result. We
// return the merge sort's permutation and mark the slice when the
// inconsistency is seen cheaply: a sorted neighbour pair that the
// comparator orders the other way; and, for slices of at most 32 elements,
// a full check that the sorted slice is runs of mutually equal elements,
// each run less than every later one, with no element less than itself
// (exactly the strict-weak-order condition on the slice's elements).
// Longer slices whose inconsistency passes the neighbour check are not
// detected (documented in spec/impl_defined.md).
// EvalSort is also the family entry point (families.h); it hands topk to
// EvalTopK.
// Semantics: Sort.
absl::StatusOr<Literal> EvalSort(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands,
                                 EvalContext& ctx) {
  if (inst.opcode() == HloOpcode::kTopK) return EvalTopK(inst, operands, ctx);
  if (inst.opcode() != HloOpcode::kSort) {
    return InstructionInternal(inst, "not an op of the kSort family");
  }
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, -1));
  const HloComputation* comparator = inst.to_apply();
  if (comparator == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst),
                     "has no comparator (is the module "
                     "verified?)"));
  }
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[0], 0));
  absl::Span<const int64_t> dims = operands[0]->shape().dimensions();
  const int64_t rank = operands[0]->shape().rank();
  for (size_t k = 1; k < operands.size(); ++k) {
    HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[k], k));
    if (operands[k]->shape().dimensions() != dims) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "operand ", k, " ",
          operands[k]->shape().ToString(), " differs in dimensions from ",
          operands[0]->shape().ToString(), " (is the module verified?)"));
    }
  }
  // The seed's default is the last dimension.
  int64_t dimension = rank - 1;
  if (!inst.attrs().dimensions.empty()) dimension = inst.attrs().dimensions[0];
  if (rank == 0 || dimension < 0 || dimension >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "dimension ", dimension,
                     " is not a dimension of ", operands[0]->shape().ToString(),
                     " (is the module verified?)"));
  }
  const bool is_stable = inst.attrs().is_stable;
  const bool tuple_result = inst.shape().IsTuple();
  if (!tuple_result && operands.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "sorts ", operands.size(),
        " operands into a non-tuple result (is the module verified?)"));
  }

  std::vector<Literal> results;
  for (const Literal* operand : operands) results.push_back(*operand);

  const int64_t sort_size = dims[dimension];
  const int64_t count = Product(dims);
  const int64_t stride = RowMajorStrides(dims)[dimension];
  Comparator less(inst, *comparator, operands, ctx);
  std::vector<int64_t> perm(sort_size);
  const int64_t slices = sort_size == 0 ? 0 : count / sort_size;
  for (int64_t slice = 0; slice < slices; ++slice) {
    // Row-major: the dimensions before `dimension` select the block, the
    // ones after it (their product is `stride`) the offset inside it.
    const int64_t base = (slice / stride) * stride * sort_size + slice % stride;
    less.SetSlice(base, stride);
    std::iota(perm.begin(), perm.end(), int64_t{0});
    HLOREF_RETURN_IF_ERROR(MergeSort(perm, less));

    // Consistency (impl.sort.1) and ties (impl.sort.2). equal_next[i]:
    // positions i and i+1 of the sorted slice compare equal (neither is
    // less). A strict weak order makes the sorted slice a sequence of runs
    // of mutually equal elements, each run less than every later one.
    bool inconsistent = false;
    std::vector<bool> equal_next(sort_size > 0 ? sort_size - 1 : 0, false);
    std::vector<int64_t> run(sort_size, 0);
    for (int64_t i = 0; i + 1 < sort_size && !inconsistent; ++i) {
      HLOREF_ASSIGN_OR_RETURN(bool backwards, less.Less(perm[i + 1], perm[i]));
      HLOREF_ASSIGN_OR_RETURN(bool forwards, less.Less(perm[i], perm[i + 1]));
      inconsistent = backwards;
      equal_next[i] = !forwards;
      run[i + 1] = run[i] + (equal_next[i] ? 0 : 1);
    }
    if (!inconsistent && sort_size <= kFullCheckLimit) {
      for (int64_t i = 0; i < sort_size && !inconsistent; ++i) {
        HLOREF_ASSIGN_OR_RETURN(bool self_less, less.Less(perm[i], perm[i]));
        inconsistent = self_less;
        for (int64_t j = i + 2; j < sort_size && !inconsistent; ++j) {
          HLOREF_ASSIGN_OR_RETURN(bool forwards, less.Less(perm[i], perm[j]));
          HLOREF_ASSIGN_OR_RETURN(bool backwards, less.Less(perm[j], perm[i]));
          inconsistent = backwards || forwards != (run[i] != run[j]);
        }
      }
    }

    for (size_t k = 0; k < operands.size(); ++k) {
      const int bytes = StorageBytes(operands[k]->element_type());
      const uint8_t* src = operands[k]->raw().data();
      uint8_t* dst = results[k].mutable_raw().data();
      for (int64_t i = 0; i < sort_size; ++i) {
        std::memcpy(dst + (base + i * stride) * bytes,
                    src + (base + perm[i] * stride) * bytes, bytes);
      }
      if (inconsistent) {
        for (int64_t i = 0; i < sort_size; ++i) {
          ctx.MarkImplDefined(k, base + i * stride, "impl.sort.1");
        }
        continue;
      }
      if (is_stable) continue;
      // Runs of equal elements whose values in operand k differ.
      for (int64_t start = 0; start < sort_size;) {
        int64_t end = start + 1;
        while (end < sort_size && equal_next[end - 1]) ++end;
        bool differ = false;
        for (int64_t i = start + 1; i < end && !differ; ++i) {
          differ = !less.SameBytes(k, perm[start], perm[i]);
        }
        if (differ) {
          for (int64_t i = start; i < end; ++i) {
            ctx.MarkImplDefined(k, base + i * stride, "impl.sort.2");
          }
        }
        start = end;
      }
    }
    HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
  }

  if (!tuple_result) {
    Literal result = std::move(results[0]);
    if (inst.shape().IsArray() && inst.shape().has_layout()) {
      result.set_layout(inst.shape().layout());
    }
    return result;
  }
  return Literal::MakeTuple(std::move(results));
}

namespace {

// The key of element `linear` of `operand` in XLA's total order for
// TopK (xla/hlo/builder/lib/comparators.h, CreateScalarGtComputation):
// for floats -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN, NaNs ordered
// by payload, i.e. the sign-magnitude bit pattern read as an integer
// (negative encodings map to -magnitude - 1, so -0 sits just below +0);
// integers and pred by value (unsigned values shifted into int64 order).
int64_t TotalOrderKey(const Literal& operand, int64_t linear) {
  const PrimitiveType type = operand.element_type();
  if (IsFloat(type)) {
    const FloatFormat& format = FormatOf(type);
    const uint64_t bits = operand.GetRawBits(linear);
    const int mag_bits = format.total_bits - (format.has_sign ? 1 : 0);
    const uint64_t mag_mask =
        mag_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << mag_bits) - 1;
    const int64_t mag = static_cast<int64_t>(bits & mag_mask);
    const bool negative =
        format.has_sign && ((bits >> (format.total_bits - 1)) & 1) != 0;
    return negative ? -mag - 1 : mag;
  }
  if (IsUnsignedInt(type)) {
    return static_cast<int64_t>(operand.GetRawBits(linear) ^
                                (uint64_t{1} << 63));
  }
  return operand.GetAsInt64(linear);  // signed integers, pred
}

}  // namespace

// The k largest (largest=true, the default) or smallest elements of every
// row along the last dimension, in that order, with their s32 positions
// in the row. Semantics: text-format 6.6 (topk); XLA decomposes it into a
// sort of (value, iota) with the total-order comparator above.
// Order: XLA's total order (TotalOrderKey): NaN is the largest value and
// -NaN the smallest, -0 < +0; so with largest=true NaNs come first.
// Ties (elements with the same key, which for every type means the same
// bits, hence the same value): the lower index comes first.
// impl.topk.1: without is_stable=true XLA does not promise that order, so
// the index outputs of tied elements that reach the result are marked
// (the values are equal and stay unmarked).
// Complex operands are Unimplemented (XLA's TopK takes real types).
absl::StatusOr<Literal> EvalTopK(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands,
                                 EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  const Literal& operand = *operands[0];
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, operand, 0));
  const Shape& operand_shape = operand.shape();
  const int64_t rank = operand_shape.rank();
  const int64_t k = inst.attrs().k;
  if (rank == 0 || k < 0 || k > operand_shape.dimensions(rank - 1) ||
      !inst.shape().IsTuple() || inst.shape().tuple_size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "k=", k, " on ",
                     operand_shape.ToString(), " with result ",
                     inst.shape().ToString(), " (is the module verified?)"));
  }
  const PrimitiveType type = operand.element_type();
  if (!IsFloat(type) && !IsInteger(type) && !IsPred(type)) {
    return InstructionUnimplemented(
        inst, absl::StrCat("topk of element type ", PrimitiveTypeName(type)));
  }
  const bool largest = inst.attrs().largest;
  const bool is_stable = inst.attrs().is_stable;
  const int64_t n = operand_shape.dimensions(rank - 1);
  const int64_t rows = n == 0 ? 0 : operand.element_count() / n;
  HLOREF_ASSIGN_OR_RETURN(
      Literal values, AllocateLiteral(inst.shape().tuple_shapes(0),
                                      ctx.options().max_elements_per_value));
  HLOREF_ASSIGN_OR_RETURN(
      Literal indices, AllocateLiteral(inst.shape().tuple_shapes(1),
                                       ctx.options().max_elements_per_value));
  if (values.element_type() != type || values.element_count() != rows * k ||
      indices.element_type() != PrimitiveType::kS32 ||
      indices.element_count() != rows * k) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "result ",
                     inst.shape().ToString(), " does not hold k=", k,
                     " values and s32 indices per row (is the "
                     "module verified?)"));
  }
  const int bytes = StorageBytes(type);
  std::vector<int64_t> keys(static_cast<size_t>(n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  absl::Span<int32_t> index_out = indices.mutable_data<int32_t>();
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t base = row * n;
    for (int64_t i = 0; i < n; ++i) keys[i] = TotalOrderKey(operand, base + i);
    std::iota(order.begin(), order.end(), int64_t{0});
    // Stable: equal keys keep index order.
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return largest ? keys[a] > keys[b] : keys[a] < keys[b];
    });
    for (int64_t j = 0; j < k; ++j) {
      const int64_t src = order[j];
      std::memcpy(values.mutable_raw().data() + (row * k + j) * bytes,
                  operand.raw().data() + (base + src) * bytes, bytes);
      index_out[row * k + j] = static_cast<int32_t>(src);
      if (!is_stable) {
        // A tie with any other element of the row (sorted order puts
        // them next to each other) makes this index implementation-
        // defined.
        const bool tied = (j > 0 && keys[order[j - 1]] == keys[src]) ||
                          (j + 1 < n && keys[order[j + 1]] == keys[src]);
        if (tied) ctx.MarkImplDefined(1, row * k + j, "impl.topk.1");
      }
    }
    if ((row & 1023) == 0) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
  }
  return Literal::MakeTuple({std::move(values), std::move(indices)});
}

}  // namespace hloref
