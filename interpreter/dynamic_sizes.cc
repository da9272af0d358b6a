// Runtime sizes of bounded dynamic dimensions in the evaluator: the op
// gate, the element-wise size rule and the padding marks
// (interpreter/dynamic_sizes.h states the model).
#include "interpreter/dynamic_sizes.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/index_util.h"
#include "spec/ir/opcode.h"

namespace hloref {

bool HandlesPaddedOperands(HloOpcode op) {
  if (IsElementwiseForSizes(op)) return true;
  switch (op) {
    // Families that honour runtime sizes (their files say how).
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReshape:
    case HloOpcode::kCopy:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kReduce:
    case HloOpcode::kSlice:
    case HloOpcode::kConcatenate:
    // Values passed through whole: a literal keeps its runtime sizes.
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kAddDependency:
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kWhile:
    case HloOpcode::kFusion:
      return true;
    default:
      return false;
  }
}

absl::Status CheckPaddedOperands(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands) {
  if (HandlesPaddedOperands(inst.opcode())) return absl::OkStatus();
  for (size_t k = 0; k < operands.size(); ++k) {
    if (operands[k] != nullptr && operands[k]->HasPadding()) {
      const Literal& o = *operands[k];
      return InstructionUnimplemented(
          inst,
          absl::StrCat(
              "operand ", k, " ", o.shape().ToString(false),
              o.shape().IsArray()
                  ? absl::StrCat(" has runtime sizes (",
                                 absl::StrJoin(o.dynamic_sizes(), ","), ")")
                  : std::string(" has padded dynamic dimensions"),
              " below its bounds; ", HloOpcodeString(inst.opcode()),
              " is not evaluated on padded dynamic values (see "
              "interpreter/dynamic_sizes.h)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CommonRuntimeSize(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    int64_t rank, int64_t dim, int64_t bound) {
  int64_t size = -1;
  size_t first = 0;
  for (size_t k = 0; k < operands.size(); ++k) {
    const Literal* o = operands[k];
    if (o == nullptr || !o->shape().IsArray() || o->shape().rank() != rank ||
        dim >= rank || !o->shape().is_dynamic_dimension(dim)) {
      continue;
    }
    const int64_t s = o->GetDynamicSize(dim);
    if (size < 0) {
      size = s;
      first = k;
    } else if (s != size) {
      return absl::OutOfRangeError(
          absl::StrCat(InstructionPrefix(inst), "operands ", first, " and ", k,
                       " have runtime sizes ", size, " and ", s,
                       " in dynamic dimension ", dim, " (", kSizeMismatchImplId,
                       ": XLA assumes equal sizes; the result is undefined)"));
    }
  }
  return size < 0 ? bound : std::min(size, bound);
}

void AdoptDynamicDimensions(const Shape& shape, Literal& result) {
  if (shape.IsTuple()) {
    if (!result.shape().IsTuple()) return;
    for (int64_t i = 0; i < shape.tuple_size() && i < result.tuple_size();
         ++i) {
      AdoptDynamicDimensions(shape.tuple_shapes(i),
                             result.mutable_tuple_element(i));
    }
    return;
  }
  if (!shape.IsArray() || !result.shape().IsArray() ||
      shape.rank() != result.shape().rank()) {
    return;
  }
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.is_dynamic_dimension(d) &&
        !result.shape().is_dynamic_dimension(d)) {
      result.set_dynamic_dimension(d, true);
    }
  }
}

void ApplyRuntimeSizes(const Shape& instruction_shape,
                       absl::Span<const int64_t> sizes, Literal& result,
                       EvalContext& ctx, int64_t leaf) {
  AdoptDynamicDimensions(instruction_shape, result);
  const Shape& shape = result.shape();
  if (!shape.IsArray()) return;
  const int64_t rank = shape.rank();
  std::vector<int64_t> clamped(static_cast<size_t>(rank));
  bool reads_padding = false;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t bound = shape.dimensions(d);
    clamped[d] = d < static_cast<int64_t>(sizes.size())
                     ? std::clamp<int64_t>(sizes[d], 0, bound)
                     : bound;
    if (shape.is_dynamic_dimension(d)) {
      result.SetDynamicSize(d, clamped[d]);
    } else if (clamped[d] < bound) {
      reads_padding = true;
    }
  }
  if (!reads_padding) return;
  // Elements beyond a static dimension's size came from padding.
  const int64_t count = result.element_count();
  if (count == 0) return;
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t linear = 0;
  do {
    for (int64_t d = 0; d < rank; ++d) {
      if (!shape.is_dynamic_dimension(d) && index[d] >= clamped[d]) {
        ctx.MarkImplDefined(leaf, linear, kPaddingImplId);
        break;
      }
    }
    ++linear;
  } while (NextIndex(shape.dimensions(), absl::MakeSpan(index)));
}

absl::Status PropagateElementwiseSizes(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    Literal& result, EvalContext& ctx) {
  if (!result.shape().IsArray()) return absl::OkStatus();
  bool any_dynamic = false;
  for (const Literal* o : operands) {
    if (o != nullptr && o->shape().IsArray() && !o->shape().is_static()) {
      any_dynamic = true;
    }
  }
  if (!any_dynamic) return absl::OkStatus();
  const int64_t rank = result.shape().rank();
  // Operands of the result's rank; failing that (bitcast-convert between
  // widths, the only element-wise op whose ranks differ), the operand's
  // dimensions are the result's leading ones.
  int64_t operand_rank = rank;
  bool same_rank = false;
  for (const Literal* o : operands) {
    if (o != nullptr && o->shape().IsArray() && o->shape().rank() == rank) {
      same_rank = true;
    }
  }
  if (!same_rank && !operands.empty() && operands[0] != nullptr &&
      operands[0]->shape().IsArray()) {
    operand_rank = operands[0]->shape().rank();
  }
  std::vector<int64_t> sizes(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t bound = result.shape().dimensions(d);
    if (d >= operand_rank) {
      sizes[d] = bound;
      continue;
    }
    HLOREF_ASSIGN_OR_RETURN(
        sizes[d], CommonRuntimeSize(inst, operands, operand_rank, d, bound));
  }
  ApplyRuntimeSizes(inst.shape(), sizes, result, ctx);
  return absl::OkStatus();
}

std::vector<bool> PaddingFlags(const Literal& leaf) {
  std::vector<bool> flags;
  if (!leaf.shape().IsArray() || !leaf.HasPadding()) return flags;
  const int64_t n = leaf.element_count();
  flags.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) flags[i] = leaf.IsPaddingElement(i);
  return flags;
}

}  // namespace hloref
