// The kSort family: Sort (seed 001) and topk (text-format 6.6).
// The user comparator may be anything, so the sort is a merge sort written
// here (std::sort with a comparator that is not a strict weak order is
// undefined behaviour); it terminates after O(n log n) comparator calls
// whatever the comparator answers.
#include "interpreter/ops/sort.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/compare_select.h"
#include "interpreter/ops/families.h"
#include "spec/types/minifloat.h"

namespace hloref {

namespace {
std::atomic<bool> sort_fast_path_disabled{false};
std::atomic<int64_t> sort_fast_path_uses{0};
}  // namespace

int64_t SortFastPathUsesForTesting() { return sort_fast_path_uses.load(); }

void SetSortFastPathDisabledForTesting(bool disabled) {
  sort_fast_path_disabled.store(disabled);
}
bool SortFastPathDisabledForTesting() { return sort_fast_path_disabled.load(); }

namespace {

// The comparators of real models (a compare of one operand's two elements,
// any direction and comparison type; with an index tie-break: or(compare,
// and(compare EQ, compare LT)); any and/or/not/xor/select of such compares)
// evaluated natively, without entering the evaluator per comparison. It
// answers exactly what evaluating the computation answers: compare's own
// semantics (FLOAT on exact values, NaN unordered, -0 == +0; TOTALORDER
// keys; SIGNED/UNSIGNED bits), and it reports whether any evaluated
// comparison would have carried a don't-care mark to the comparator's root
// (impl.compare.1: TOTALORDER EQ/NE meeting two zeros or two NaNs), which
// the evaluator turns into a mark on the whole sort result. Computations
// with anything else are not recognised (Compile returns false) and take
// the general path.
class FastComparator {
 public:
  // Node kinds, in the computation's post order.
  enum class Kind : uint8_t {
    kParam,
    kConst,
    kCompare,
    kAnd,
    kOr,
    kXor,
    kNot,
    kSelect
  };
  // How a compare reads its operands' elements.
  enum class View : uint8_t { kDouble, kTotalOrder, kSigned, kUnsigned };

  bool Compile(const HloComputation& comp,
               absl::Span<const Literal* const> operands) {
    if (comp.num_parameters() != 2 * static_cast<int64_t>(operands.size())) {
      return false;
    }
    std::unordered_map<const HloInstruction*, int> index;
    for (const auto& owned : comp.instructions()) {
      const HloInstruction& inst = *owned;
      Node node;
      const Shape& shape = inst.shape();
      if (!shape.IsArray() || shape.rank() != 0) return false;
      std::vector<int> args;
      for (const HloInstruction* o : inst.operands()) {
        auto it = index.find(o);
        if (it == index.end()) return false;
        args.push_back(it->second);
      }
      switch (inst.opcode()) {
        case HloOpcode::kParameter: {
          const int64_t n = inst.parameter_number();
          if (n < 0 || n >= comp.num_parameters()) return false;
          node.kind = Kind::kParam;
          node.operand = static_cast<int>(n / 2);
          node.side = static_cast<int>(n % 2);
          if (operands[node.operand]->element_type() != shape.element_type()) {
            return false;
          }
          break;
        }
        case HloOpcode::kConstant:
          if (shape.element_type() != PrimitiveType::kPred ||
              inst.literal().is_elided() || !inst.literal().shape().IsArray()) {
            return false;
          }
          node.kind = Kind::kConst;
          node.value = inst.literal().raw()[0] != 0;
          break;
        case HloOpcode::kCompare: {
          if (args.size() != 2) return false;
          const Node& a = nodes_[args[0]];
          const Node& b = nodes_[args[1]];
          if (a.kind != Kind::kParam || b.kind != Kind::kParam) return false;
          const PrimitiveType t = operands[a.operand]->element_type();
          if (operands[b.operand]->element_type() != t) return false;
          const ComparisonType ct = inst.attrs().comparison_type;
          if (IsFloat(t)) {
            if (ct == ComparisonType::kSigned ||
                ct == ComparisonType::kUnsigned) {
              return false;  // an error the general path reports
            }
            node.view = ct == ComparisonType::kTotalOrder ? View::kTotalOrder
                                                          : View::kDouble;
          } else if (IsInteger(t) || IsPred(t)) {
            if (ct == ComparisonType::kSigned) {
              node.view = View::kSigned;
            } else if (ct == ComparisonType::kUnsigned) {
              node.view = View::kUnsigned;
            } else {
              node.view = IsSignedInt(t) ? View::kSigned : View::kUnsigned;
            }
          } else {
            return false;  // complex
          }
          node.kind = Kind::kCompare;
          node.direction = inst.attrs().direction;
          node.a = args[0];
          node.b = args[1];
          Need(a.operand, node.view);
          Need(b.operand, node.view);
          if (node.view == View::kTotalOrder) {
            // The impl.compare.1 check reads the values.
            Need(a.operand, View::kDouble);
            Need(b.operand, View::kDouble);
          }
          break;
        }
        case HloOpcode::kAnd:
        case HloOpcode::kOr:
        case HloOpcode::kXor:
          if (args.size() != 2 ||
              shape.element_type() != PrimitiveType::kPred) {
            return false;
          }
          node.kind = inst.opcode() == HloOpcode::kAnd  ? Kind::kAnd
                      : inst.opcode() == HloOpcode::kOr ? Kind::kOr
                                                        : Kind::kXor;
          node.a = args[0];
          node.b = args[1];
          break;
        case HloOpcode::kNot:
          if (args.size() != 1 ||
              shape.element_type() != PrimitiveType::kPred) {
            return false;
          }
          node.kind = Kind::kNot;
          node.a = args[0];
          break;
        case HloOpcode::kSelect:
          if (args.size() != 3 ||
              shape.element_type() != PrimitiveType::kPred) {
            return false;
          }
          node.kind = Kind::kSelect;
          node.a = args[0];
          node.b = args[1];
          node.c = args[2];
          break;
        default:
          return false;
      }
      // Operands of pred nodes must be pred values (not raw parameters of
      // another type).
      if (node.kind == Kind::kAnd || node.kind == Kind::kOr ||
          node.kind == Kind::kXor || node.kind == Kind::kNot ||
          node.kind == Kind::kSelect) {
        for (int arg : args) {
          if (!IsPredNode(arg, operands)) return false;
        }
      }
      index.emplace(&inst, static_cast<int>(nodes_.size()));
      nodes_.push_back(node);
    }
    auto root = index.find(comp.root());
    if (root == index.end() ||
        root->second != static_cast<int>(nodes_.size()) - 1 ||
        comp.root()->shape().element_type() != PrimitiveType::kPred) {
      return false;
    }
    operands_ = operands;
    values_.assign(nodes_.size(), false);
    marked_.assign(nodes_.size(), false);
    return true;
  }

  // Loads the slice's elements (positions base + p * stride) in the views
  // the compares read.
  absl::Status SetSlice(int64_t base, int64_t stride, int64_t size) {
    for (Column& col : columns_) {
      const Literal& lit = *operands_[col.operand];
      col.d.resize(static_cast<size_t>(size));
      col.i.resize(static_cast<size_t>(size));
      if (col.whole_d.empty() && col.whole_i.empty()) {
        HLOREF_RETURN_IF_ERROR(LoadWhole(lit, col));
      }
      for (int64_t p = 0; p < size; ++p) {
        const size_t at = static_cast<size_t>(base + p * stride);
        if (col.view == View::kDouble) {
          col.d[p] = col.whole_d[at];
        } else {
          col.i[p] = col.whole_i[at];
        }
      }
    }
    return absl::OkStatus();
  }

  bool Less(int64_t i, int64_t j) {
    const int64_t pos[2] = {i, j};
    for (size_t n = 0; n < nodes_.size(); ++n) {
      const Node& node = nodes_[n];
      bool v = false, m = false;
      switch (node.kind) {
        case Kind::kParam:
          // A pred parameter used directly as a value.
          if (node.pred_column >= 0) {
            // kUnsigned columns hold the bits with the top bit flipped.
            v = static_cast<uint64_t>(
                    columns_[node.pred_column].i[pos[node.side]]) !=
                (uint64_t{1} << 63);
          }
          break;
        case Kind::kConst:
          v = node.value;
          break;
        case Kind::kCompare: {
          const Node& a = nodes_[node.a];
          const Node& b = nodes_[node.b];
          const int64_t pa = pos[a.side], pb = pos[b.side];
          if (node.view == View::kDouble) {
            v = Apply(node.direction, columns_[node.col_a].d[pa],
                      columns_[node.col_b].d[pb]);
          } else {
            v = Apply(node.direction, columns_[node.col_a].i[pa],
                      columns_[node.col_b].i[pb]);
            if (node.view == View::kTotalOrder &&
                (node.direction == ComparisonDirection::kEq ||
                 node.direction == ComparisonDirection::kNe)) {
              const double x = columns_[node.dcol_a].d[pa];
              const double y = columns_[node.dcol_b].d[pb];
              m = (x == 0 && y == 0) || (std::isnan(x) && std::isnan(y));
            }
          }
          break;
        }
        case Kind::kAnd:
          v = values_[node.a] && values_[node.b];
          m = marked_[node.a] || marked_[node.b];
          break;
        case Kind::kOr:
          v = values_[node.a] || values_[node.b];
          m = marked_[node.a] || marked_[node.b];
          break;
        case Kind::kXor:
          v = values_[node.a] != values_[node.b];
          m = marked_[node.a] || marked_[node.b];
          break;
        case Kind::kNot:
          v = !values_[node.a];
          m = marked_[node.a];
          break;
        case Kind::kSelect:
          v = values_[node.a] ? values_[node.b] : values_[node.c];
          m = marked_[node.a] || marked_[node.b] || marked_[node.c];
          break;
      }
      values_[n] = v;
      marked_[n] = m;
    }
    if (marked_.back()) root_marked_ = true;
    return values_.back();
  }

  // Some comparison's result carried impl.compare.1.
  bool root_marked() const { return root_marked_; }

  // Resolves the columns each node reads (after Compile).
  void Finish() {
    for (Node& node : nodes_) {
      if (node.kind == Kind::kCompare) {
        node.col_a = ColumnOf(nodes_[node.a].operand, node.view);
        node.col_b = ColumnOf(nodes_[node.b].operand, node.view);
        if (node.view == View::kTotalOrder) {
          node.dcol_a = ColumnOf(nodes_[node.a].operand, View::kDouble);
          node.dcol_b = ColumnOf(nodes_[node.b].operand, View::kDouble);
        }
      }
      if (node.kind == Kind::kParam && node.pred_use) {
        node.pred_column = ColumnOf(node.operand, View::kUnsigned);
      }
    }
  }

 private:
  struct Node {
    Kind kind = Kind::kConst;
    View view = View::kDouble;
    ComparisonDirection direction = ComparisonDirection::kEq;
    bool value = false;
    bool pred_use = false;
    int operand = 0, side = 0;
    int a = 0, b = 0, c = 0;
    int col_a = 0, col_b = 0, dcol_a = 0, dcol_b = 0, pred_column = -1;
  };
  struct Column {
    int operand = 0;
    View view = View::kDouble;
    std::vector<double> whole_d, d;
    std::vector<int64_t> whole_i, i;
  };

  template <typename T>
  static bool Apply(ComparisonDirection d, T a, T b) {
    return ApplyComparisonDirection(d, a, b);
  }

  bool IsPredNode(int n, absl::Span<const Literal* const> operands) {
    Node& node = nodes_[n];
    if (node.kind != Kind::kParam) return true;  // pred-valued by shape
    if (operands[node.operand]->element_type() != PrimitiveType::kPred) {
      return false;
    }
    node.pred_use = true;
    Need(node.operand, View::kUnsigned);
    return true;
  }

  void Need(int operand, View view) {
    if (ColumnOf(operand, view) < 0) {
      Column col;
      col.operand = operand;
      col.view = view;
      columns_.push_back(std::move(col));
    }
  }
  int ColumnOf(int operand, View view) const {
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].operand == operand && columns_[c].view == view) {
        return static_cast<int>(c);
      }
    }
    return -1;
  }

  // The whole operand in one view: exact doubles, TOTALORDER keys (as
  // compare computes them), or the bits read signed / unsigned (unsigned
  // values shifted into int64 order, which keeps equality).
  static absl::Status LoadWhole(const Literal& lit, Column& col) {
    switch (col.view) {
      case View::kDouble: {
        HLOREF_ASSIGN_OR_RETURN(col.whole_d, LoadDoubles(lit));
        return absl::OkStatus();
      }
      case View::kTotalOrder: {
        HLOREF_ASSIGN_OR_RETURN(col.whole_i, CompareTotalOrderKeys(lit));
        return absl::OkStatus();
      }
      case View::kSigned:
      case View::kUnsigned: {
        HLOREF_ASSIGN_OR_RETURN(col.whole_i, LoadInts(lit));
        const int width = IntWidth(lit.element_type());
        const bool is_signed = col.view == View::kSigned;
        for (int64_t& v : col.whole_i) {
          v = WrapToWidth(static_cast<uint64_t>(v), width, is_signed);
          if (!is_signed) {
            v = static_cast<int64_t>(static_cast<uint64_t>(v) ^
                                     (uint64_t{1} << 63));
          }
        }
        return absl::OkStatus();
      }
    }
    return absl::OkStatus();
  }

  std::vector<Node> nodes_;
  std::vector<Column> columns_;
  absl::Span<const Literal* const> operands_;
  std::vector<bool> values_, marked_;
  bool root_marked_ = false;
};

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
    if (fast_.Compile(comparator, operands)) {
      fast_.Finish();
      use_fast_ = true;
    }
  }

  // Tests: force the general path.
  void DisableFastPath() { use_fast_ = false; }
  bool fast() const { return use_fast_; }
  bool fast_root_marked() const { return use_fast_ && fast_.root_marked(); }

  // Linear positions of the slice's elements are base + position * stride.
  absl::Status SetSlice(int64_t base, int64_t stride, int64_t size) {
    base_ = base;
    stride_ = stride;
    if (use_fast_) return fast_.SetSlice(base, stride, size);
    return absl::OkStatus();
  }

  // comparator(element at position i, element at position j).
  absl::StatusOr<bool> Less(int64_t i, int64_t j) {
    if (use_fast_) return fast_.Less(i, j);
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
  FastComparator fast_;
  bool use_fast_ = false;
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
  if (SortFastPathDisabledForTesting()) less.DisableFastPath();
  if (less.fast()) sort_fast_path_uses.fetch_add(1);
  std::vector<int64_t> perm(sort_size);
  const int64_t slices = sort_size == 0 ? 0 : count / sort_size;
  for (int64_t slice = 0; slice < slices; ++slice) {
    // Row-major: the dimensions before `dimension` select the block, the
    // ones after it (their product is `stride`) the offset inside it.
    const int64_t base = (slice / stride) * stride * sort_size + slice % stride;
    HLOREF_RETURN_IF_ERROR(less.SetSlice(base, stride, sort_size));
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

  // What the general path's comparator calls would have marked
  // (FastComparator): the evaluator marks a called computation's marked
  // root as the whole result.
  if (less.fast_root_marked()) {
    for (size_t k = 0; k < operands.size(); ++k) {
      ctx.MarkAllImplDefined(static_cast<int64_t>(k), "impl.compare.1");
    }
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

// TotalOrderKey of elements [base, base + n) into keys: the same formula
// with the format's constants hoisted out of the loop for float types
// (the encodings read at their storage width); integers and pred per
// element.
void TotalOrderKeys(const Literal& operand, int64_t base, int64_t n,
                    int64_t* keys) {
  const PrimitiveType type = operand.element_type();
  const int bytes = StorageBytes(type);
  if (!IsFloat(type) ||
      !(bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)) {
    for (int64_t i = 0; i < n; ++i) keys[i] = TotalOrderKey(operand, base + i);
    return;
  }
  const FloatFormat& format = FormatOf(type);
  const int mag_bits = format.total_bits - (format.has_sign ? 1 : 0);
  const uint64_t mag_mask =
      mag_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << mag_bits) - 1;
  const int sign_shift = format.total_bits - 1;
  const bool has_sign = format.has_sign;
  const uint8_t* raw = operand.raw().data() + base * bytes;
  auto fill = [&](auto word) {
    using W = decltype(word);
    for (int64_t i = 0; i < n; ++i) {
      W w;
      std::memcpy(&w, raw + i * sizeof(W), sizeof(W));
      const uint64_t bits = w;
      const int64_t mag = static_cast<int64_t>(bits & mag_mask);
      const bool negative = has_sign && ((bits >> sign_shift) & 1) != 0;
      keys[i] = negative ? -mag - 1 : mag;
    }
  };
  switch (bytes) {
    case 1:
      fill(uint8_t{});
      break;
    case 2:
      fill(uint16_t{});
      break;
    case 4:
      fill(uint32_t{});
      break;
    default:
      fill(uint64_t{});
      break;
  }
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
    TotalOrderKeys(operand, base, n, keys.data());
    std::iota(order.begin(), order.end(), int64_t{0});
    // Stable: equal keys keep index order. (key, index) is a strict total
    // order, so the first k + 1 positions (k and the next one, for the tie
    // marks below) are those of a stable sort of the whole row.
    const int64_t sorted = std::min(n, k + 1);
    std::partial_sort(order.begin(), order.begin() + sorted, order.end(),
                      [&](int64_t a, int64_t b) {
                        if (keys[a] != keys[b]) {
                          return largest ? keys[a] > keys[b]
                                         : keys[a] < keys[b];
                        }
                        return a < b;
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
