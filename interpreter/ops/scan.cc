// The reduce family's scan (docs/hlo-text-format.md 6.6, since 2026-01).
// Semantics: the text format gives only the syntax
//   scan(%xs, %init), dimensions={0}, num_carries=1, is_reverse=true,
//        is_associative=true, to_apply=%f
// and the seeds say nothing, so the meaning is taken from XLA's own
// lowering of the op, openxla/xla xla/service/scan_expander.cc (the
// ScanExpander that turns every scan it is given into a while loop; read
// through the `search` tool, facts only):
//  - operands are the scanned inputs x_0..x_{I-1} followed by num_carries
//    initial carries c_0..c_{C-1} (HloScanInstruction::inputs()/inits());
//  - the loop runs n times, n = the inputs' size along the scan dimension
//    d = dimensions[0]; step t reads position i = t, or i = n-1-t when
//    is_reverse=true;
//  - each step calls to_apply with (x_0[i]..x_{I-1}[i], the carries), where
//    x[i] is the slice at position i with dimension d removed (a
//    dynamic-slice plus reshape), and to_apply returns (the O step outputs,
//    then the C new carries) as a tuple, or the lone value when O + C == 1;
//  - step output k is written at position i along d of output array y_k
//    (dynamic-update-slice); the result is (y_0..y_{O-1}, final carries), a
//    tuple, or the lone array when O + C == 1;
//  - with n == 0 the loop never runs: the outputs are empty arrays and the
//    carries are the inits.
// The verifier's scan.C1..C6 (spec/verifier/reduce.cc) check these shapes.
// Cross-check: the golden cases and 300 generated cases agree with XLA:CPU
// (jaxlib 0.10.2 through tools/backends/xla_jax.py, declared deviations
// xla-cpu), except zero-length scans, which XLA:CPU fails to compile (its
// expander slices a size-1 window out of the empty dimension).
//
// is_associative. It never changes the oracle: the oracle is the sequential
// left-to-right (or right-to-left) chain above, the order the expander's
// while loop uses. XLA only rewrites scans declared associative
// (ReduceWindowRewriter::TryOptimizeAssociativeScan: a tree/parallel
// prefix; the GPU ScanRewriter: a library prefix sum), so on such a scan a
// backend may reassociate (impl.scan.1, spec/impl_defined.md). The values
// this leaves open are rounding differences of the same real-number
// result, not unspecified values, so nothing is marked don't-care; instead
// the comparator needs a bound. For the scan it can bound -- a float or
// complex cumulative add, to_apply(x, c) = (x + c, x + c) or carry-only
// x + c -- the oracle reports error data per element (numerics.md 7.3
// class A): S = |init| + sum |x_j| over the steps folded so far and m = 2k
// for k steps. Any association of the k additions is within gamma_k(u) S
// of the exact sum, and so is the oracle's own sequential chain, so the
// backend and the oracle differ by at most 2 gamma_k(u) S <= gamma_2k(u) S.
// Without is_associative the sequential order is the op's definition and
// no error data is given (the comparator then asks for exact agreement).
// Other reducers get no error data (the comparator's kReduce policy judges
// them).
//
// Don't-care marks propagate as for every computation-calling op: the
// evaluator marks the whole result when an operand or the called
// computation carries marks (interpreter/evaluator.cc PropagateMarks).
// Dynamic dimensions are not given runtime sizes here (static shapes).
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/families.h"

namespace hloref {
namespace {

Shape StripLayout(Shape s) {
  s.ClearLayoutsRecursive();
  return s;
}

// x[i]: the slice of `x` at position `i` along `d`, with `d` removed.
Literal SliceAt(const Literal& x, int64_t d, int64_t i) {
  Shape s = StripLayout(x.shape());
  std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
  dims[d] = 1;
  s.delete_dimension(d);
  Literal out(s);
  const auto src_strides = RowMajorStrides(x.shape().dimensions());
  const auto dst_strides = RowMajorStrides(dims);
  StridedCopy(StorageBytes(x.element_type()), dims, x.raw().data(),
              i * src_strides[d], src_strides, out.mutable_raw().data(), 0,
              dst_strides);
  return out;
}

// y[i] = v: writes `v` (y's shape without `d`) at position `i` along `d`.
void WriteAt(Literal& y, int64_t d, int64_t i, const Literal& v) {
  std::vector<int64_t> dims(y.shape().dimensions().begin(),
                            y.shape().dimensions().end());
  const auto dst_strides = RowMajorStrides(dims);
  dims[d] = 1;
  const auto src_strides = RowMajorStrides(dims);
  StridedCopy(StorageBytes(y.element_type()), dims, v.raw().data(), 0,
              src_strides, y.mutable_raw().data(), i * dst_strides[d],
              dst_strides);
}

}  // namespace

bool IsScanCumulativeAdd(const HloComputation& comp, int64_t outputs) {
  if (comp.num_parameters() != 2 || comp.root() == nullptr) return false;
  const HloInstruction* root = comp.root();
  const HloInstruction* sum = root;
  if (outputs == 1) {
    if (root->opcode() != HloOpcode::kTuple || root->operand_count() != 2 ||
        root->operand(0) != root->operand(1)) {
      return false;
    }
    sum = root->operand(0);
  } else if (outputs != 0) {
    return false;
  }
  if (sum->opcode() != HloOpcode::kAdd || sum->operand_count() != 2) {
    return false;
  }
  const HloInstruction* p0 = comp.parameter(0);
  const HloInstruction* p1 = comp.parameter(1);
  return (sum->operand(0) == p0 && sum->operand(1) == p1) ||
         (sum->operand(0) == p1 && sum->operand(1) == p0);
}

namespace {

// Error data of a cumulative add (see the file comment): per step
// position and slice element, S = |init| + sum of |x| over the steps folded
// so far (complex: |re| + |im|), m = 2 * steps.
absl::Status SetCumulativeAddErrorData(const Literal& x, const Literal& init,
                                       int64_t d, bool reverse, int64_t outputs,
                                       EvalContext& ctx) {
  const PrimitiveType t = x.element_type();
  std::vector<double> ax, ainit;
  if (IsComplex(t)) {
    HLOREF_ASSIGN_OR_RETURN(auto cx, LoadComplex(x));
    HLOREF_ASSIGN_OR_RETURN(auto ci, LoadComplex(init));
    for (const auto& v : cx) {
      ax.push_back(std::fabs(v.real()) + std::fabs(v.imag()));
    }
    for (const auto& v : ci) {
      ainit.push_back(std::fabs(v.real()) + std::fabs(v.imag()));
    }
  } else {
    HLOREF_ASSIGN_OR_RETURN(ax, LoadDoubles(x));
    HLOREF_ASSIGN_OR_RETURN(ainit, LoadDoubles(init));
    for (double& v : ax) v = std::fabs(v);
    for (double& v : ainit) v = std::fabs(v);
  }
  const auto& dims = x.shape().dimensions();
  const int64_t n = dims[d];
  // Row-major: outer = product of the dimensions before d, inner = after
  // (either may be 0; no division, so zero-size slices are fine).
  int64_t outer = 1, inner = 1;
  for (int64_t e = 0; e < static_cast<int64_t>(dims.size()); ++e) {
    if (e < d) outer *= dims[e];
    if (e > d) inner *= dims[e];
  }
  const int64_t slice = outer * inner;  // elements of one step's slice
  std::vector<double> s(ainit.begin(), ainit.end());
  if (static_cast<int64_t>(s.size()) != slice && n > 0) {
    return absl::InternalError("scan error data: carry size mismatch");
  }
  for (int64_t t_step = 0; t_step < n; ++t_step) {
    const int64_t i = reverse ? n - 1 - t_step : t_step;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < inner; ++k) {
        const int64_t linear = o * n * inner + i * inner + k;
        double& acc = s[static_cast<size_t>(o * inner + k)];
        // Rounded up so the bound stays a bound.
        acc = std::nextafter(acc + ax[static_cast<size_t>(linear)], INFINITY);
        if (outputs == 1) ctx.SetErrorData(0, linear, acc, 2 * (t_step + 1));
      }
    }
  }
  // The final carry: leaf `outputs`.
  for (int64_t e = 0; e < static_cast<int64_t>(ainit.size()); ++e) {
    ctx.SetErrorData(outputs, e, n == 0 ? ainit[e] : s[e], 2 * n);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> EvalScan(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands,
                                 EvalContext& ctx) {
  const HloComputation* f = inst.to_apply();
  if (f == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst),
                     "has no to_apply computation (is the module verified?)"));
  }
  const int64_t carries = inst.attrs().num_carries;
  const int64_t count = static_cast<int64_t>(operands.size());
  const auto& dims = inst.attrs().dimensions;
  if (carries < 0 || carries >= count || dims.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "num_carries ", carries, " with ",
                     count, " operands and dimensions of size ", dims.size(),
                     " do not describe a scan (is the module verified?)"));
  }
  const int64_t inputs = count - carries;
  const int64_t d = dims[0];
  for (int64_t j = 0; j < count; ++j) {
    HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[j], j));
  }
  const Shape& x0 = operands[0]->shape();
  if (d < 0 || d >= x0.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "scan dimension ", d,
                     " is out of range (is the module verified?)"));
  }
  const int64_t n = x0.dimensions(d);
  for (int64_t j = 1; j < inputs; ++j) {
    const Shape& s = operands[j]->shape();
    if (d >= s.rank() || s.dimensions(d) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "input ", j, " ", s.ToString(false),
          " has another length along scan dimension ", d,
          " (is the module verified?)"));
    }
  }
  // Result parts: O outputs then C carries.
  const Shape& shape = inst.shape();
  const int64_t parts = shape.IsTuple() ? shape.tuple_size() : 1;
  const int64_t outputs = parts - carries;
  if (outputs < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "shape ", shape.ToString(false), " has fewer ",
        "elements than num_carries (is the module verified?)"));
  }
  std::vector<Literal> ys;
  for (int64_t k = 0; k < outputs; ++k) {
    const Shape& y = shape.IsTuple() ? shape.tuple_shapes(k) : shape;
    if (!y.IsArray() || y.rank() <= d || y.dimensions(d) != n) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "output ", k, " ",
                       y.ToString(false), " has no length-", n,
                       " scan dimension ", d, " (is the module verified?)"));
    }
    HLOREF_ASSIGN_OR_RETURN(
        Literal lit,
        AllocateLiteral(StripLayout(y), ctx.options().max_elements_per_value));
    ys.push_back(std::move(lit));
  }
  std::vector<Literal> carry;
  for (int64_t j = 0; j < carries; ++j) carry.push_back(*operands[inputs + j]);

  const bool reverse = inst.attrs().is_reverse;
  std::vector<Literal> slices(static_cast<size_t>(inputs));
  std::vector<const Literal*> args(static_cast<size_t>(inputs + carries));
  for (int64_t t = 0; t < n; ++t) {
    if ((t & 255) == 0) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    const int64_t i = reverse ? n - 1 - t : t;
    for (int64_t j = 0; j < inputs; ++j) {
      slices[j] = SliceAt(*operands[j], d, i);
      args[j] = &slices[j];
    }
    for (int64_t j = 0; j < carries; ++j) args[inputs + j] = &carry[j];
    HLOREF_ASSIGN_OR_RETURN(Literal r, ctx.Call(*f, args));
    std::vector<Literal> step;
    if (r.shape().IsTuple()) {
      step = r.DecomposeTuple();
    } else {
      step.push_back(std::move(r));
    }
    if (static_cast<int64_t>(step.size()) != outputs + carries) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "to_apply %", f->name(), " returned ",
          step.size(), " value(s), expected ", outputs, " output(s) and ",
          carries, " carr", carries == 1 ? "y" : "ies",
          " (is the module verified?)"));
    }
    for (int64_t k = 0; k < outputs; ++k) {
      const Shape& want = ys[k].shape();
      const Shape& got = step[k].shape();
      if (!got.IsArray() || got.element_type() != want.element_type() ||
          got.rank() + 1 != want.rank() ||
          got.num_elements() * n != want.num_elements()) {
        return absl::InvalidArgumentError(absl::StrCat(
            InstructionPrefix(inst), "to_apply %", f->name(), " output ", k,
            " is ", got.ToString(false), ", which is not a slice of ",
            want.ToString(false), " (is the module verified?)"));
      }
      WriteAt(ys[k], d, i, step[k]);
    }
    for (int64_t j = 0; j < carries; ++j) {
      if (step[outputs + j].shape().ToString(false) !=
          carry[j].shape().ToString(false)) {
        return absl::InvalidArgumentError(absl::StrCat(
            InstructionPrefix(inst), "to_apply %", f->name(), " carry ", j,
            " is ", step[outputs + j].shape().ToString(false), ", expected ",
            carry[j].shape().ToString(false), " (is the module verified?)"));
      }
      carry[j] = std::move(step[outputs + j]);
    }
  }

  const PrimitiveType t0 = operands[0]->element_type();
  if (ctx.options().compute_error_data && inst.attrs().is_associative &&
      inputs == 1 && carries == 1 && (IsFloat(t0) || IsComplex(t0)) &&
      IsScanCumulativeAdd(*f, outputs)) {
    HLOREF_RETURN_IF_ERROR(SetCumulativeAddErrorData(*operands[0], *operands[1],
                                                     d, reverse, outputs, ctx));
  }

  std::vector<Literal> result = std::move(ys);
  for (Literal& c : carry) result.push_back(std::move(c));
  if (!shape.IsTuple()) return std::move(result[0]);
  return Literal::MakeTuple(std::move(result));
}

}  // namespace hloref
