// ragged-dot and scaled-dot (docs/hlo-text-format.md 6.5), the two newer
// members of the dot family. Both reduce to dot-general's accumulation:
// the value of each float / complex result element is the exact sum of the
// exact products, rounded once to the result type (ExactSum; numerics.md
// decision 4), with the error data S and m of dot.h; integer results wrap,
// pred results are the OR of the ANDs (as dot.cc).
//
// Facts and sources (public; paraphrased):
//
// ragged-dot(lhs, rhs, group_sizes), lhs_ragged_dims={r}, rhs_group_dims:
//  - Modes by the kind of the lhs ragged dimension r (JAX
//    jax.lax.ragged_dot_general docs; StableHLO/CHLO
//    checkRaggedDotConstraints; XLA xla/hlo/transforms/expanders/
//    ragged_dot_rewriter.cc):
//      1. r a non-contracting (free) dimension m: rhs has one group
//         dimension g (left out of the result);
//         [b,m,k] x [g,b,k,n] -> [b,m,n]. Row i of m uses rhs[group(i)].
//      2. r a contracting dimension k: no rhs group dimension; the result
//         gains a leading group dimension: [b,m,k] x [b,k,n] -> [g,b,m,n],
//         result[g] = the dot restricted to the k of group g.
//      3. r a batch dimension: no rhs group dimension; [b,m,k] x [b,k,n]
//         -> [b,m,n]. XLA's RaggedDotRewriter lowers this mode to the
//         plain dot (group_sizes unused): every batch pairs lhs[b] with
//         rhs[b] whatever its group, so the grouping changes nothing.
//  - group_sizes: integers of shape [g], or [p..., g] where p... are the
//    sizes of these lhs dimensions (CHLO checkRaggedDotConstraints): mode
//    1: the lhs batch dimensions (lhs_batch_dims order) then the lhs free
//    dimensions before r (ascending); mode 2: the lhs batch dimensions,
//    then the lhs contracting dimensions listed before r in
//    lhs_contracting_dims; mode 3: the lhs batch dimensions listed before r
//    in lhs_batch_dims. A [g] group_sizes applies to every prefix index
//    (JAX: "broadcasted"). The group dimension of rhs has size g.
//  - Group membership (RaggedDotRewriter's RaggedToDense mask): with the
//    inclusive cumulative sums end_g = group_sizes[0] + ... +
//    group_sizes[g] and start_g = end_{g-1} (start_0 = 0), computed in the
//    group_sizes element type (a reduce-window add, so it wraps), index i
//    of the ragged dimension belongs to group g iff start_g <= i < end_g
//    (compared in that type, i being an iota of that type). The masked
//    operand is zero outside its groups, so:
//      * indices past sum(group_sizes) belong to no group: in mode 1 their
//        result rows are zero, in mode 2 they contribute to no group
//        (impl.ragged-dot.1; XLA's decomposition, which XLA:CPU uses);
//      * a negative size gives an empty group and moves the later groups
//        back, so the intervals may overlap and an index may then belong to
//        several groups, whose contributions add; sizes past the dimension
//        simply cover fewer indices (impl.ragged-dot.2: XLA documents
//        neither case; the oracle follows the decomposition above and
//        marks every element such a group_sizes row reaches).
//
// scaled-dot(lhs, rhs, lhs_scale, rhs_scale) (XLA's operand order: its
// parser, printer and every XLA test; text-format 6.5 as corrected - an
// earlier description had lhs, lhs_scale, rhs, rhs_scale):
//  - Each scale has its operand's rank; every operand dimension is a
//    multiple of the scale's; the scale element s[j] covers the contiguous
//    block j*B .. j*B + B - 1 of that dimension, B = operand size / scale
//    size (XLA ScaledDotRewriter BroadcastAndReshape: broadcast [s] to
//    [s, B] and reshape to [s*B]). The MX formats use B = 32 along the
//    contracting dimension with f8e8m0fnu scales (powers of two), NVFP4
//    B = 16 with f8e4m3fn scales.
//  - Dequantization (ScaledDotRewriter Dequantize/UpscaleBoth): operand and
//    scale are converted to the type D = bf16 when both are narrower than
//    16 bits, else their common type when equal, else f32 when of equal
//    width, else the wider; the operand is multiplied by the broadcast
//    scale in D (one rounding, RN_D). The result is dot(lhs', rhs') with
//    the dot dimension numbers (later XLA converts both sides to a common
//    wider type and converts the dot back to the result type: exact
//    widenings). impl.scaled-dot.1 records this choice; for the MX and
//    NVFP4 combinations (f8/f4 operands, f8e8m0fnu or f8e4m3fn scales) the
//    bf16 product is exact in range, so it equals the exact scaled value.
//  - Error data: the dot of lhs' and rhs' (types D_lhs, D_rhs): S over the
//    exact products of the dequantized values, m = AccumulationSteps(k,
//    ProductsRounded(D_lhs, D_rhs, result)).
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/dot.h"
#include "interpreter/ops/exact_sum.h"
#include "interpreter/ops/families.h"
#include "spec/types/minifloat.h"

namespace hloref {
namespace {

bool Has(absl::Span<const int64_t> v, int64_t x) {
  for (int64_t e : v) {
    if (e == x) return true;
  }
  return false;
}

// One product term of an output element: the row-major offsets of its lhs
// and rhs elements.
struct Term {
  int64_t l, r;
};

// The values of lhs and rhs in the working type of the result class.
struct Values {
  PrimitiveType lt, rt;  // types the products are formed in
  std::vector<double> lr, rr;
  std::vector<std::complex<double>> lc, rc;
  std::vector<int64_t> li, ri;
};

absl::Status LoadValues(const HloInstruction& inst, const Literal& lhs,
                        const Literal& rhs, Values* v) {
  const PrimitiveType out = inst.shape().element_type();
  v->lt = lhs.element_type();
  v->rt = rhs.element_type();
  if (IsComplex(out)) {
    HLOREF_ASSIGN_OR_RETURN(v->lc, LoadAsComplex(inst, lhs));
    HLOREF_ASSIGN_OR_RETURN(v->rc, LoadAsComplex(inst, rhs));
    return absl::OkStatus();
  }
  if (IsFloat(out)) {
    if (IsComplex(v->lt) || IsComplex(v->rt)) {
      return InstructionUnimplemented(
          inst, "complex operands with a real result are not supported");
    }
    HLOREF_ASSIGN_OR_RETURN(v->lr, LoadReal(inst, lhs));
    HLOREF_ASSIGN_OR_RETURN(v->rr, LoadReal(inst, rhs));
    return absl::OkStatus();
  }
  if (IsInteger(out) || IsPred(out)) {
    if (!(IsInteger(v->lt) || IsPred(v->lt)) ||
        !(IsInteger(v->rt) || IsPred(v->rt))) {
      return InstructionUnimplemented(
          inst, absl::StrCat("operands ", PrimitiveTypeName(v->lt), " and ",
                             PrimitiveTypeName(v->rt),
                             " with an integer result are not supported"));
    }
    HLOREF_ASSIGN_OR_RETURN(v->li, LoadInts(lhs));
    HLOREF_ASSIGN_OR_RETURN(v->ri, LoadInts(rhs));
    return absl::OkStatus();
  }
  return InstructionUnimplemented(
      inst, absl::StrCat("result type ", PrimitiveTypeName(out),
                         " is not supported"));
}

// Called once per output element (row-major) to list its terms.
using TermLister =
    absl::FunctionRef<void(int64_t out, std::vector<Term>* terms)>;

// Accumulates every output element's terms exactly (dot.h numerics) and
// stores the result; reports S and m when error data is requested.
absl::StatusOr<Literal> Accumulate(const HloInstruction& inst, EvalContext& ctx,
                                   const Values& v, TermLister list_terms) {
  const Shape& shape = inst.shape();
  const PrimitiveType out = shape.element_type();
  const int64_t count = shape.num_elements();
  const bool error_data =
      ctx.options().compute_error_data && (IsFloat(out) || IsComplex(out));
  const bool rounded = ProductsRounded(v.lt, v.rt, out);
  std::vector<Term> terms;
  ExactSum acc, im, abs_acc;
  if (IsComplex(out) || IsFloat(out)) {
    const bool complex = IsComplex(out);
    const FloatFormat& format =
        FormatOf(complex ? ComplexComponentType(out) : out);
    const int precision = Precision(format);
    const int emin = std::ilogb(MinNormal(format));
    std::vector<double> real(complex ? 0 : static_cast<size_t>(count));
    std::vector<std::complex<double>> cplx(complex ? static_cast<size_t>(count)
                                                   : 0);
    for (int64_t o = 0; o < count; ++o) {
      if (o % 256 == 0) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
      terms.clear();
      list_terms(o, &terms);
      acc.Clear();
      im.Clear();
      abs_acc.Clear();
      for (const Term& t : terms) {
        if (complex) {
          const double ar = v.lc[t.l].real(), ai = v.lc[t.l].imag();
          const double br = v.rc[t.r].real(), bi = v.rc[t.r].imag();
          acc.AddProduct(ar, br);
          acc.AddProduct(-ai, bi);
          im.AddProduct(ar, bi);
          im.AddProduct(ai, br);
          if (error_data) {
            abs_acc.AddProduct(std::fabs(ar), std::fabs(br));
            abs_acc.AddProduct(std::fabs(ai), std::fabs(bi));
            abs_acc.AddProduct(std::fabs(ar), std::fabs(bi));
            abs_acc.AddProduct(std::fabs(ai), std::fabs(br));
          }
        } else {
          acc.AddProduct(v.lr[t.l], v.rr[t.r]);
          if (error_data) {
            abs_acc.AddProduct(std::fabs(v.lr[t.l]), std::fabs(v.rr[t.r]));
          }
        }
      }
      const int64_t n = static_cast<int64_t>(terms.size());
      if (complex) {
        cplx[o] = {acc.Round(precision, emin), im.Round(precision, emin)};
      } else {
        real[o] = acc.Round(precision, emin);
      }
      if (error_data) {
        ctx.SetErrorData(0, o, abs_acc.RoundUpToDouble(),
                         AccumulationSteps(complex ? 2 * n : n, rounded));
      }
    }
    if (complex) return StoreComplex(shape, cplx);
    return StoreDoubles(shape, real);
  }
  // Integers wrap in the result width (impl.dot.1); pred is OR of ANDs.
  std::vector<int64_t> values(static_cast<size_t>(count));
  const bool pred = IsPred(out);
  for (int64_t o = 0; o < count; ++o) {
    if (o % 256 == 0) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    terms.clear();
    list_terms(o, &terms);
    if (pred) {
      bool any = false;
      for (const Term& t : terms)
        any = any || (v.li[t.l] != 0 && v.ri[t.r] != 0);
      values[o] = any ? 1 : 0;
    } else {
      uint64_t sum = 0;
      for (const Term& t : terms) {
        sum +=
            static_cast<uint64_t>(v.li[t.l]) * static_cast<uint64_t>(v.ri[t.r]);
      }
      values[o] = static_cast<int64_t>(sum);
    }
  }
  return StoreInts(shape, values);
}

// The dimensions of one operand not in `a` or `b`, ascending.
std::vector<int64_t> OtherDims(int64_t rank, absl::Span<const int64_t> a,
                               absl::Span<const int64_t> b,
                               absl::Span<const int64_t> c = {}) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Has(a, d) && !Has(b, d) && !Has(c, d)) out.push_back(d);
  }
  return out;
}

// Decodes row-major `linear` over `dims` into `index`.
void Decode(int64_t linear, absl::Span<const int64_t> dims,
            std::vector<int64_t>* index) {
  index->resize(dims.size());
  for (int64_t j = static_cast<int64_t>(dims.size()) - 1; j >= 0; --j) {
    const int64_t d = dims[j];
    (*index)[j] = d > 0 ? linear % d : 0;
    if (d > 0) linear /= d;
  }
}

// A group_sizes value, a cumulative sum or an iota value as the
// group_sizes element type reads it (two's-complement wrap to its width).
__int128 AsGroupType(uint64_t bits, PrimitiveType type) {
  const int width = BitWidth(type);
  if (width < 64) bits &= (uint64_t{1} << width) - 1;
  if (IsSignedInt(type)) {
    if (width < 64 && (bits >> (width - 1)) & 1) {
      return static_cast<__int128>(bits) - (static_cast<__int128>(1) << width);
    }
    return static_cast<__int128>(static_cast<int64_t>(bits));
  }
  return static_cast<__int128>(bits);
}

// The group intervals of every group_sizes row (one row per prefix index;
// one row for a [g] group_sizes): start and end of each group as the
// group type reads the cumulative sums, and whether the row is regular
// (every size >= 0, no wrap, sum <= the ragged dimension's size).
struct Groups {
  int64_t num_groups = 0;
  std::vector<__int128> start, end;  // [row][g]
  std::vector<bool> regular;         // [row]
  std::vector<bool> full;            // [row]: the sum covers the dimension
  PrimitiveType type = PrimitiveType::kS32;

  // Whether index i of the ragged dimension belongs to group g of `row`.
  bool Member(int64_t row, int64_t g, int64_t i) const {
    const __int128 iv = AsGroupType(static_cast<uint64_t>(i), type);
    const size_t k = static_cast<size_t>(row * num_groups + g);
    return start[k] <= iv && iv < end[k];
  }
};

absl::StatusOr<Groups> LoadGroups(const Literal& group_sizes,
                                  int64_t ragged_size) {
  Groups groups;
  groups.type = group_sizes.element_type();
  const auto& dims = group_sizes.shape().dimensions();
  groups.num_groups = dims.empty() ? 0 : dims.back();
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, LoadInts(group_sizes));
  // One row per prefix index (the dimensions before the last), also when
  // there are no groups.
  int64_t rows = 1;
  for (size_t j = 0; j + 1 < dims.size(); ++j) rows *= dims[j];
  groups.start.resize(sizes.size());
  groups.end.resize(sizes.size());
  groups.regular.assign(static_cast<size_t>(rows), true);
  groups.full.assign(static_cast<size_t>(rows), false);
  for (int64_t row = 0; row < rows; ++row) {
    uint64_t cum = 0;  // the reduce-window sum, modulo 2^64
    __int128 exact = 0;
    for (int64_t g = 0; g < groups.num_groups; ++g) {
      const size_t k = static_cast<size_t>(row * groups.num_groups + g);
      const __int128 size =
          AsGroupType(static_cast<uint64_t>(sizes[k]), groups.type);
      groups.start[k] = AsGroupType(cum, groups.type);
      cum += static_cast<uint64_t>(sizes[k]);
      exact += size;
      groups.end[k] = AsGroupType(cum, groups.type);
      if (size < 0 || groups.end[k] != exact) groups.regular[row] = false;
    }
    if (exact > ragged_size) groups.regular[row] = false;
    groups.full[row] = exact == ragged_size;
  }
  return groups;
}

}  // namespace

// Semantics: the header comment. Result dimensions: [g] (mode 2), batch
// (lhs_batch_dims order), lhs free (ascending), rhs free (ascending, the
// group dimension left out).
absl::StatusOr<Literal> EvalRaggedDot(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 3, 3));
  for (int i = 0; i < 3; ++i) {
    HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[i], i));
  }
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const Literal& group_sizes = *operands[2];
  const DotDimensionNumbers& dn = inst.attrs().dot_dimension_numbers;
  const auto& ragged_dims = inst.attrs().lhs_ragged_dims;
  const auto& group_dims = inst.attrs().rhs_group_dims;
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  if (ragged_dims.size() != 1 || group_dims.size() > 1 ||
      !IsInteger(group_sizes.element_type()) ||
      group_sizes.shape().rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst),
        "needs one lhs ragged dimension, at most one rhs group dimension and "
        "integer group sizes (is the module verified?)"));
  }
  const int64_t r = ragged_dims[0];
  enum class Mode { kNonContracting, kContracting, kBatch };
  const Mode mode = Has(dn.lhs_batch_dimensions, r) ? Mode::kBatch
                    : Has(dn.lhs_contracting_dimensions, r)
                        ? Mode::kContracting
                        : Mode::kNonContracting;
  const int64_t rhs_group = group_dims.empty() ? -1 : group_dims[0];
  if ((mode == Mode::kNonContracting) != (rhs_group >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst),
                     "rhs_group_dims does not fit the ragged mode (is the "
                     "module verified?)"));
  }
  const std::vector<int64_t>& lb = dn.lhs_batch_dimensions;
  const std::vector<int64_t>& rb = dn.rhs_batch_dimensions;
  const std::vector<int64_t>& lc = dn.lhs_contracting_dimensions;
  const std::vector<int64_t>& rc = dn.rhs_contracting_dimensions;
  const std::vector<int64_t> lf = OtherDims(ls.rank(), lb, lc);
  const std::vector<int64_t> rf =
      OtherDims(rs.rank(), rb, rc,
                rhs_group >= 0 ? std::vector<int64_t>{rhs_group}
                               : std::vector<int64_t>{});
  const std::vector<int64_t> lstr = RowMajorStrides(ls.dimensions());
  const std::vector<int64_t> rstr = RowMajorStrides(rs.dimensions());

  // The logical output index space and its pieces.
  HLOREF_ASSIGN_OR_RETURN(Groups groups,
                          LoadGroups(group_sizes, ls.dimensions(r)));
  const int64_t num_groups = groups.num_groups;
  std::vector<int64_t> out_dims;
  if (mode == Mode::kContracting) out_dims.push_back(num_groups);
  for (int64_t d : lb) out_dims.push_back(ls.dimensions(d));
  for (int64_t d : lf) out_dims.push_back(ls.dimensions(d));
  for (int64_t d : rf) out_dims.push_back(rs.dimensions(d));
  int64_t count = 1;
  for (int64_t d : out_dims) count *= d;
  if (count != inst.shape().num_elements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "result has ", inst.shape().num_elements(),
        " elements, the dimension numbers give ", count,
        " (is the module verified?)"));
  }
  if (mode == Mode::kNonContracting && rs.dimensions(rhs_group) != num_groups) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "rhs group dimension has size ",
                     rs.dimensions(rhs_group), ", group_sizes has ", num_groups,
                     " groups (is the module verified?)"));
  }

  // Contracting multi-indices (lhs_contracting_dims order).
  std::vector<int64_t> c_dims;
  for (int64_t d : lc) c_dims.push_back(ls.dimensions(d));
  int64_t k_count = 1;
  for (int64_t d : c_dims) k_count *= d;
  std::vector<int64_t> c_loff(static_cast<size_t>(k_count)),
      c_roff(static_cast<size_t>(k_count));
  std::vector<std::vector<int64_t>> c_index(static_cast<size_t>(k_count));
  for (int64_t k = 0; k < k_count; ++k) {
    Decode(k, c_dims, &c_index[k]);
    int64_t lo = 0, ro = 0;
    for (size_t j = 0; j < lc.size(); ++j) {
      lo += c_index[k][j] * lstr[lc[j]];
      ro += c_index[k][j] * rstr[rc[j]];
    }
    c_loff[k] = lo;
    c_roff[k] = ro;
  }

  // The prefix of group_sizes (see the header comment), as positions in
  // the logical index: 'b' batch position j, 'f' lhs free position j, 'c'
  // contracting position j.
  std::vector<std::pair<char, size_t>> prefix;
  size_t ragged_pos = 0;  // position of r in its list
  switch (mode) {
    case Mode::kBatch:
      for (size_t j = 0; j < lb.size() && lb[j] != r; ++j)
        prefix.push_back({'b', j});
      break;
    case Mode::kContracting:
      for (size_t j = 0; j < lb.size(); ++j) prefix.push_back({'b', j});
      for (size_t j = 0; j < lc.size() && lc[j] != r; ++j)
        prefix.push_back({'c', j});
      while (lc[ragged_pos] != r) ++ragged_pos;
      break;
    case Mode::kNonContracting:
      for (size_t j = 0; j < lb.size(); ++j) prefix.push_back({'b', j});
      for (size_t j = 0; j < lf.size() && lf[j] < r; ++j)
        prefix.push_back({'f', j});
      while (lf[ragged_pos] != r) ++ragged_pos;
      break;
  }
  const bool broadcast_sizes = group_sizes.shape().rank() == 1;
  const auto& gs_dims = group_sizes.shape().dimensions();
  if (!broadcast_sizes &&
      static_cast<size_t>(group_sizes.shape().rank()) != prefix.size() + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "group_sizes has rank ",
                     group_sizes.shape().rank(), ", expected 1 or ",
                     prefix.size() + 1, " (is the module verified?)"));
  }

  Values values;
  HLOREF_RETURN_IF_ERROR(LoadValues(inst, lhs, rhs, &values));

  const size_t nb = lb.size(), nlf = lf.size(), nrf = rf.size();
  const size_t lead = mode == Mode::kContracting ? 1 : 0;
  std::vector<int64_t> idx;
  // The group_sizes row of an output element (for mode 2 also depends on
  // the contracting index `k`).
  auto row_of = [&](const std::vector<int64_t>& o, int64_t k) -> int64_t {
    if (broadcast_sizes) return 0;
    int64_t row = 0;
    for (size_t p = 0; p < prefix.size(); ++p) {
      int64_t v = 0;
      switch (prefix[p].first) {
        case 'b':
          v = o[lead + prefix[p].second];
          break;
        case 'f':
          v = o[lead + nb + prefix[p].second];
          break;
        default:
          v = c_index[k][prefix[p].second];
          break;
      }
      row = row * gs_dims[p] + v;
    }
    return row;
  };
  // impl.ragged-dot.1/.2 marks, collected while listing.
  std::vector<const char*> marks(static_cast<size_t>(count), nullptr);

  auto list = [&](int64_t o, std::vector<Term>* terms) {
    Decode(o, out_dims, &idx);
    int64_t lbase = 0, rbase = 0;
    for (size_t j = 0; j < nb; ++j) {
      lbase += idx[lead + j] * lstr[lb[j]];
      rbase += idx[lead + j] * rstr[rb[j]];
    }
    for (size_t j = 0; j < nlf; ++j) lbase += idx[lead + nb + j] * lstr[lf[j]];
    for (size_t j = 0; j < nrf; ++j)
      rbase += idx[lead + nb + nlf + j] * rstr[rf[j]];
    switch (mode) {
      case Mode::kBatch:
        for (int64_t k = 0; k < k_count; ++k)
          terms->push_back({lbase + c_loff[k], rbase + c_roff[k]});
        break;
      case Mode::kNonContracting: {
        const int64_t row = row_of(idx, 0);
        const int64_t i = idx[lead + nb + ragged_pos];
        bool in_any = false;
        for (int64_t g = 0; g < num_groups; ++g) {
          if (!groups.Member(row, g, i)) continue;
          in_any = true;
          const int64_t rg = rbase + g * rstr[rhs_group];
          for (int64_t k = 0; k < k_count; ++k)
            terms->push_back({lbase + c_loff[k], rg + c_roff[k]});
        }
        if (!groups.regular[row]) {
          marks[o] = "impl.ragged-dot.2";
        } else if (!in_any) {
          marks[o] = "impl.ragged-dot.1";
        }
        break;
      }
      case Mode::kContracting: {
        const int64_t g = idx[0];
        for (int64_t k = 0; k < k_count; ++k) {
          const int64_t row_k = row_of(idx, k);
          if (!groups.regular[row_k]) {
            marks[o] = "impl.ragged-dot.2";
          } else if (!groups.full[row_k] && marks[o] == nullptr) {
            marks[o] = "impl.ragged-dot.1";
          }
          if (groups.Member(row_k, g, c_index[k][ragged_pos]))
            terms->push_back({lbase + c_loff[k], rbase + c_roff[k]});
        }
        break;
      }
    }
  };
  HLOREF_ASSIGN_OR_RETURN(Literal result, Accumulate(inst, ctx, values, list));
  for (int64_t o = 0; o < count; ++o) {
    if (marks[o] != nullptr) ctx.MarkImplDefined(0, o, marks[o]);
  }
  return result;
}

PrimitiveType ScaledDotDequantizeType(PrimitiveType a, PrimitiveType b) {
  const int wa = BitWidth(a), wb = BitWidth(b);
  if (wa < 16 && wb < 16) return PrimitiveType::kBF16;
  if (a == b) return a;
  if (wa == wb) return PrimitiveType::kF32;
  return wa > wb ? a : b;
}

namespace {

// operand * broadcast(scale), each product rounded once to `type`
// (impl.scaled-dot.1).
std::vector<double> Dequantize(const std::vector<double>& x, const Shape& xs,
                               const std::vector<double>& s, const Shape& ss,
                               PrimitiveType type) {
  const FloatFormat& format = FormatOf(type);
  const int precision = Precision(format);
  const int emin = std::ilogb(MinNormal(format));
  const double max = MaxFinite(format);
  const int64_t rank = xs.rank();
  std::vector<int64_t> block(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    block[d] = ss.dimensions(d) > 0 ? xs.dimensions(d) / ss.dimensions(d) : 1;
  }
  const std::vector<int64_t> sstr = RowMajorStrides(ss.dimensions());
  std::vector<double> out(x.size());
  std::vector<int64_t> idx;
  ExactSum acc;
  for (size_t e = 0; e < x.size(); ++e) {
    Decode(static_cast<int64_t>(e), xs.dimensions(), &idx);
    int64_t so = 0;
    for (int64_t d = 0; d < rank; ++d) so += (idx[d] / block[d]) * sstr[d];
    acc.Clear();
    acc.AddProduct(x[e], s[so]);
    double v = acc.Round(precision, emin);
    if (std::fabs(v) > max) v = std::copysign(HUGE_VAL, v);
    out[e] = v;
  }
  return out;
}

}  // namespace

// Semantics: the header comment. The result is dot-general of the
// dequantized operands.
absl::StatusOr<Literal> EvalScaledDot(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 4, 4));
  for (int i = 0; i < 4; ++i) {
    HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[i], i));
    if (!IsFloat(operands[i]->element_type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "operand ", i, " has element type ",
          PrimitiveTypeName(operands[i]->element_type()),
          ", scaled-dot takes floating-point operands and scales "
          "(scaled-dot.C10; is the module verified?)"));
    }
  }
  if (!IsFloat(inst.shape().element_type())) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "result type ",
        PrimitiveTypeName(inst.shape().element_type()),
        " is not floating point (scaled-dot.C10; is the module verified?)"));
  }
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const Literal& lhs_scale = *operands[2];
  const Literal& rhs_scale = *operands[3];
  for (int side = 0; side < 2; ++side) {
    const Shape& x = (side == 0 ? lhs : rhs).shape();
    const Shape& s = (side == 0 ? lhs_scale : rhs_scale).shape();
    bool ok = x.rank() == s.rank();
    for (int64_t d = 0; ok && d < x.rank(); ++d) {
      ok = s.dimensions(d) > 0 ? x.dimensions(d) % s.dimensions(d) == 0
                               : x.dimensions(d) == 0;
    }
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), side == 0 ? "lhs" : "rhs",
                       " scale does not block-scale its operand (is the module "
                       "verified?)"));
    }
  }
  Values v;
  v.lt = ScaledDotDequantizeType(lhs.element_type(), lhs_scale.element_type());
  v.rt = ScaledDotDequantizeType(rhs.element_type(), rhs_scale.element_type());
  {
    HLOREF_ASSIGN_OR_RETURN(std::vector<double> l, LoadDoubles(lhs));
    HLOREF_ASSIGN_OR_RETURN(std::vector<double> ls, LoadDoubles(lhs_scale));
    HLOREF_ASSIGN_OR_RETURN(std::vector<double> r, LoadDoubles(rhs));
    HLOREF_ASSIGN_OR_RETURN(std::vector<double> rs, LoadDoubles(rhs_scale));
    v.lr = Dequantize(l, lhs.shape(), ls, lhs_scale.shape(), v.lt);
    v.rr = Dequantize(r, rhs.shape(), rs, rhs_scale.shape(), v.rt);
  }

  const DotDimensionNumbers& dn = inst.attrs().dot_dimension_numbers;
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  const std::vector<int64_t>& lb = dn.lhs_batch_dimensions;
  const std::vector<int64_t>& rb = dn.rhs_batch_dimensions;
  const std::vector<int64_t>& lc = dn.lhs_contracting_dimensions;
  const std::vector<int64_t>& rc = dn.rhs_contracting_dimensions;
  if (lb.size() != rb.size() || lc.size() != rc.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst),
        "batch or contracting dimension counts differ (is the module "
        "verified?)"));
  }
  const std::vector<int64_t> lf = OtherDims(ls.rank(), lb, lc);
  const std::vector<int64_t> rf = OtherDims(rs.rank(), rb, rc);
  const std::vector<int64_t> lstr = RowMajorStrides(ls.dimensions());
  const std::vector<int64_t> rstr = RowMajorStrides(rs.dimensions());
  std::vector<int64_t> out_dims;
  for (int64_t d : lb) out_dims.push_back(ls.dimensions(d));
  for (int64_t d : lf) out_dims.push_back(ls.dimensions(d));
  for (int64_t d : rf) out_dims.push_back(rs.dimensions(d));
  int64_t count = 1;
  for (int64_t d : out_dims) count *= d;
  if (count != inst.shape().num_elements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "result has ", inst.shape().num_elements(),
        " elements, the dimension numbers give ", count,
        " (is the module verified?)"));
  }
  std::vector<int64_t> c_dims;
  for (int64_t d : lc) c_dims.push_back(ls.dimensions(d));
  int64_t k_count = 1;
  for (int64_t d : c_dims) k_count *= d;
  std::vector<int64_t> c_loff(static_cast<size_t>(k_count)),
      c_roff(static_cast<size_t>(k_count));
  std::vector<int64_t> cidx;
  for (int64_t k = 0; k < k_count; ++k) {
    Decode(k, c_dims, &cidx);
    int64_t lo = 0, ro = 0;
    for (size_t j = 0; j < lc.size(); ++j) {
      lo += cidx[j] * lstr[lc[j]];
      ro += cidx[j] * rstr[rc[j]];
    }
    c_loff[k] = lo;
    c_roff[k] = ro;
  }
  std::vector<int64_t> idx;
  const size_t nb = lb.size(), nlf = lf.size(), nrf = rf.size();
  auto list = [&](int64_t o, std::vector<Term>* terms) {
    Decode(o, out_dims, &idx);
    int64_t lbase = 0, rbase = 0;
    for (size_t j = 0; j < nb; ++j) {
      lbase += idx[j] * lstr[lb[j]];
      rbase += idx[j] * rstr[rb[j]];
    }
    for (size_t j = 0; j < nlf; ++j) lbase += idx[nb + j] * lstr[lf[j]];
    for (size_t j = 0; j < nrf; ++j) rbase += idx[nb + nlf + j] * rstr[rf[j]];
    for (int64_t k = 0; k < k_count; ++k)
      terms->push_back({lbase + c_loff[k], rbase + c_roff[k]});
  };
  return Accumulate(inst, ctx, v, list);
}

}  // namespace hloref
