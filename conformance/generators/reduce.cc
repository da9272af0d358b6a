// Generators of the reduce family (seed 001 Reduce, ReduceWindow, Map):
// every reducer the element type allows (add -> class A, multiply ->
// product bound, max/min, logical), any subset of reduced dimensions,
// occasional long reductions, windows with strides, padding and dilations;
// select-and-scatter with every select direction; scan with 1-2 inputs,
// 0-2 carries and 0-2 outputs, forward and reverse, any scan dimension
// (zero-length ones included), the cumulative-add step with and without
// is_associative. Odd sizes around the CPU backend's vector widths and
// blocks; operands above the L2 size under HLOREF_CONFORMANCE_LARGE_REDUCE.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "conformance/generators/draw.h"
#include "spec/types/minifloat.h"
#include "spec/util/status_macros.h"

namespace hloref::conformance::gen {
namespace {

constexpr const char* kReducers[] = {"add",     "multiply", "maximum",
                                     "minimum", "and",      "or"};

Fill FillFor(const std::string& reducer, Rng& rng) {
  if (reducer == "multiply") return Fill::kPositive;
  if (reducer == "add") {
    return rng.Chance(0.4) ? Fill::kSmallInt
                           : (rng.Chance(0.7) ? Fill::kFinite : Fill::kGeneral);
  }
  return Fill::kGeneral;
}

// scan: a step computation over slices of `slice` dims. Inputs x_i
// (i < inputs), carries c_j (j < carries); new carry j is
// op(x_{j % inputs}, c_j); output k is new carry k % carries, or (without
// carries) op(x_{k % inputs}, x_{(k + 1) % inputs}). With one input, one
// carry and add this is the cumulative sum XLA recognises.
absl::StatusOr<Draw> DrawScan(PrimitiveType t, Rng& rng) {
  std::vector<const char*> ops;
  if (IsPred(t)) {
    ops = {"and", "or", "xor", "maximum", "minimum"};
  } else if (IsComplex(t)) {
    ops = {"add", "multiply", "subtract"};
  } else if (IsFloat(t)) {
    ops = {"add", "multiply", "maximum", "minimum", "subtract"};
  } else {
    ops = {"add", "multiply", "maximum", "minimum", "and", "or", "subtract"};
  }
  const std::string op = ops[rng.Below(ops.size())];
  int64_t inputs = rng.Chance(0.7) ? 1 : 2;
  const int64_t carries = rng.Range(0, 2);
  int64_t outputs = rng.Range(0, 2);
  if (outputs + carries == 0) outputs = 1;
  // spec/ops.def gives scan at least two operands.
  if (inputs + carries < 2) inputs = 2;
  std::vector<int64_t> dims = DrawDims(rng, 1, 3);
  const int64_t d = rng.Range(0, static_cast<int64_t>(dims.size()) - 1);
  if (rng.Chance(0.1)) dims[d] = 0;                    // zero-length scan
  if (rng.Chance(0.05)) dims[d] = rng.Range(50, 200);  // a long chain
  std::vector<int64_t> slice = dims;
  slice.erase(slice.begin() + d);
  const std::string tn(PrimitiveTypeName(t));
  const std::string st = ShapeText(t, slice);
  std::string body = "step {\n";
  for (int64_t i = 0; i < inputs; ++i) {
    absl::StrAppend(&body, "  x", i, " = ", st, " parameter(", i, ")\n");
  }
  for (int64_t j = 0; j < carries; ++j) {
    absl::StrAppend(&body, "  c", j, " = ", st, " parameter(", inputs + j,
                    ")\n");
  }
  std::vector<std::string> roots;
  for (int64_t j = 0; j < carries; ++j) {
    absl::StrAppend(&body, "  n", j, " = ", st, " ", op, "(x", j % inputs,
                    ", c", j, ")\n");
  }
  for (int64_t k = 0; k < outputs; ++k) {
    if (carries > 0) {
      roots.push_back(absl::StrCat("n", k % carries));
    } else {
      absl::StrAppend(&body, "  y", k, " = ", st, " ", op, "(x", k % inputs,
                      ", x", (k + 1) % inputs, ")\n");
      roots.push_back(absl::StrCat("y", k));
    }
  }
  for (int64_t j = 0; j < carries; ++j) roots.push_back(absl::StrCat("n", j));
  std::vector<Shape> results;
  for (int64_t k = 0; k < outputs; ++k) results.push_back(Shape(t, dims));
  for (int64_t j = 0; j < carries; ++j) results.push_back(Shape(t, slice));
  if (roots.size() == 1) {
    // The lone value is the last instruction defined: make it the root.
    const std::string def = absl::StrCat("  ", roots[0], " = ");
    body.replace(body.rfind(def), def.size(),
                 absl::StrCat("  ROOT ", roots[0], " = "));
    absl::StrAppend(&body, "}\n\n");
  } else {
    std::vector<std::string> types(roots.size(), st);
    absl::StrAppend(&body, "  ROOT r = (", absl::StrJoin(types, ", "),
                    ") tuple(", absl::StrJoin(roots, ", "), ")\n}\n\n");
  }
  Draw draw;
  draw.computations = body;
  const Fill fill = op == "multiply" ? Fill::kPositive
                    : op == "add"    ? FillFor("add", rng)
                                     : Fill::kGeneral;
  std::vector<std::string> names;
  for (int64_t i = 0; i < inputs; ++i) {
    draw.params.push_back({Shape(t, dims), fill});
    names.push_back(absl::StrCat("p", i));
  }
  for (int64_t j = 0; j < carries; ++j) {
    draw.params.push_back({Shape(t, slice), fill});
    names.push_back(absl::StrCat("p", inputs + j));
  }
  draw.op_text = absl::StrCat(
      "scan(", absl::StrJoin(names, ", "), "), dimensions={", d,
      "}, num_carries=", carries, rng.Chance(0.5) ? ", is_reverse=true" : "",
      rng.Chance(0.5) ? ", is_associative=true" : "", ", to_apply=step");
  draw.result_shape =
      results.size() == 1 ? results[0] : Shape::Tuple(std::move(results));
  draw.type = t;
  return draw;
}

// The identity of `reducer` on `type` as HLO literal text. Seed 001
// (Reduce) requires the init value to be an identity of the computation,
// and a backend may apply it any number of times: XLA's algebraic
// simplifier drops it when nothing is reduced (dimensions={} or size-1
// reduced dimensions), so a non-identity init has no defined result.
absl::StatusOr<std::string> IdentityText(const std::string& reducer,
                                         PrimitiveType type) {
  if (type == PrimitiveType::kPred) {
    if (reducer == "and" || reducer == "minimum" || reducer == "multiply") {
      return std::string("true");
    }
    return std::string("false");  // or, maximum, add
  }
  if (IsComplex(type)) {
    if (reducer == "add") return std::string("(-0.0, -0.0)");
    if (reducer == "multiply") return std::string("(1, 0)");
    return absl::InvalidArgumentError("no complex identity for " + reducer);
  }
  if (IsInteger(type)) {
    const int bits = BitWidth(type);
    const bool is_signed = IsSignedInt(type);
    // Extremes of the type, exact in int64/uint64 text.
    const std::string min_text =
        is_signed ? (bits == 64 ? std::string("-9223372036854775808")
                                : absl::StrCat(-(int64_t{1} << (bits - 1))))
                  : std::string("0");
    const std::string max_text =
        is_signed ? absl::StrCat((uint64_t{1} << (bits - 1)) - 1)
                  : (bits == 64 ? std::string("18446744073709551615")
                                : absl::StrCat((uint64_t{1} << bits) - 1));
    if (reducer == "add" || reducer == "or") return std::string("0");
    if (reducer == "multiply") return std::string("1");
    if (reducer == "maximum") return min_text;
    if (reducer == "minimum") return max_text;
    if (reducer == "and") return is_signed ? std::string("-1") : max_text;
    return absl::InvalidArgumentError("no integer identity for " + reducer);
  }
  const FloatFormat* f = FindFloatFormat(type);
  if (f == nullptr) {
    return absl::InvalidArgumentError("no identity for this element type");
  }
  if (reducer == "add") {
    if (!f->has_sign) {
      return absl::InvalidArgumentError("the type has no zero");
    }
    // -0 is the identity of IEEE addition (+0 + -0 = +0, -0 + -0 = -0).
    return std::string(f->has_negative_zero ? "-0.0" : "0");
  }
  if (reducer == "multiply") return std::string("1");
  const double max = MaxFinite(*f);
  if (reducer == "maximum") {
    if (f->has_infinity) return std::string("-inf");
    // No infinity: the least value of the type.
    return f->has_sign ? absl::StrFormat("%.17g", -max)
                       : absl::StrFormat("%.17g", DecodeFloat(*f, 0));
  }
  if (reducer == "minimum") {
    if (f->has_infinity) return std::string("inf");
    return absl::StrFormat("%.17g", max);
  }
  return absl::InvalidArgumentError("no float identity for " + reducer);
}

// Operands above the L2 size (2 MiB) are drawn only when the environment
// sets HLOREF_CONFORMANCE_LARGE_REDUCE=1 (the slow-labelled
// cpu.conformance_reduce_large run): the default, CI-sized set stays cheap
// for the oracle.
bool LargeOperands() {
  static const bool large = [] {
    const char* v = std::getenv("HLOREF_CONFORMANCE_LARGE_REDUCE");
    return v != nullptr && std::string(v) == "1";
  }();
  return large;
}

// Sizes one off the CPU backend's vector lane counts (8, 16, 32, 64),
// its row chunks (4 vectors) and column blocks (2 KiB of compute values:
// 256 to 2048 elements), so every tail path of the vector reduce kernels
// is exercised.
int64_t OddSize(Rng& rng) {
  static constexpr int64_t kSizes[] = {7,   9,   15,   17,   31,   33,
                                       63,  65,  127,  129,  255,  257,
                                       511, 513, 1023, 1025, 2047, 2049};
  return kSizes[rng.Below(sizeof(kSizes) / sizeof(kSizes[0]))];
}

// A rank-2 or rank-3 operand with an odd minor dimension and more than
// 2.2 MiB of storage.
std::vector<int64_t> LargeDims(Rng& rng, PrimitiveType t) {
  const int64_t minor = rng.Range(1000, 1100) | 1;
  const int64_t elements = (22 << 20) / 10 / StorageBytes(t) + 1;
  const int64_t rows = (elements + minor - 1) / minor + rng.Range(0, 7);
  if (rng.Chance(0.5)) return {rows, minor};
  return {3, (rows + 2) / 3, minor};
}

// The fill of an odd-sized or large operand: add reducers get finite
// data (small integers or moderate values). With the general fill a long
// add reduction soon holds -max, -max and +inf together, where the
// sequential order overflows to -inf and gives NaN while the exact sum is
// +inf, a result the comparator's class-A rule for infinite results does
// not accept (it requires the infinity). Other reducers keep FillFor's.
Fill BigFill(const std::string& reducer, bool big, Rng& rng) {
  if (big && reducer == "add") {
    return rng.Chance(0.5) ? Fill::kSmallInt : Fill::kFinite;
  }
  return FillFor(reducer, rng);
}

}  // namespace

absl::StatusOr<Draw> GenerateReduce(HloOpcode op, Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  const std::string reducer = kReducers[rng.Below(6)];
  d.computations = BinaryComputation("reducer", reducer, t);
  switch (op) {
    case HloOpcode::kReduce: {
      std::vector<int64_t> dims = DrawDims(rng, 1, 3);
      bool big = true;
      if (reducer != "multiply" && LargeOperands() && rng.Chance(0.5)) {
        dims = LargeDims(rng, t);
      } else if (reducer != "multiply" && rng.Chance(0.1)) {
        dims = {rng.Range(100, 1000)};  // a long reduction
        big = false;
      } else if (reducer != "multiply" && rng.Chance(0.15)) {
        // Row, column and multi-dimensional reductions over odd sizes.
        dims = {rng.Range(1, 5), OddSize(rng)};
        if (rng.Chance(0.3)) dims.insert(dims.begin(), rng.Range(2, 3));
      } else {
        big = false;
      }
      std::vector<int64_t> which;
      for (size_t i = 0; i < dims.size(); ++i) {
        if (rng.Chance(0.6)) which.push_back(static_cast<int64_t>(i));
      }
      const Fill fill = BigFill(reducer, big, rng);
      d.params.push_back({Shape(t, dims), fill});
      // The init value is the reducer's identity (a constant): see
      // IdentityText.
      HLOREF_ASSIGN_OR_RETURN(const std::string init, IdentityText(reducer, t));
      d.prelude = absl::StrCat("  init = ", PrimitiveTypeName(t),
                               "[] constant(", init, ")\n");
      d.op_text = absl::StrCat("reduce(p0, init), dimensions=", ListText(which),
                               ", to_apply=reducer");
      return d;
    }
    case HloOpcode::kReduceWindow: {
      std::vector<int64_t> dims = DrawDims(rng, 1, 3);
      bool big = reducer != "multiply" && LargeOperands() && rng.Chance(0.5);
      if (big) {
        dims = LargeDims(rng, t);
      } else if (reducer != "multiply" && rng.Chance(0.1)) {
        dims = {rng.Range(1, 4), OddSize(rng)};
        big = true;
      }
      std::vector<std::string> size, stride, pad, ld, rd;
      bool any_ld = false, any_rd = false;
      for (int64_t n : dims) {
        // Large and odd-sized operands: pooling-sized windows (up to 4).
        const int64_t most = dims.back() > 8 ? std::min<int64_t>(n, 4) : n;
        size.push_back(absl::StrCat(rng.Range(1, std::max<int64_t>(most, 1))));
        stride.push_back(absl::StrCat(rng.Range(1, 2)));
        pad.push_back(absl::StrCat(rng.Range(0, 1), "_", rng.Range(0, 1)));
        const bool l = rng.Chance(0.15), r = rng.Chance(0.15);
        any_ld |= l;
        any_rd |= r;
        ld.push_back(l ? "2" : "1");
        rd.push_back(r ? "2" : "1");
      }
      const Fill fill = BigFill(reducer, big, rng);
      d.params.push_back({Shape(t, dims), fill});
      d.params.push_back({Shape(t, {}), fill});
      std::string window = absl::StrCat("size=", absl::StrJoin(size, "x"),
                                        " stride=", absl::StrJoin(stride, "x"),
                                        " pad=", absl::StrJoin(pad, "x"));
      if (any_ld)
        absl::StrAppend(&window, " lhs_dilate=", absl::StrJoin(ld, "x"));
      if (any_rd)
        absl::StrAppend(&window, " rhs_dilate=", absl::StrJoin(rd, "x"));
      d.op_text = absl::StrCat("reduce-window(p0, p1), window={", window,
                               "}, to_apply=reducer");
      return d;
    }
    case HloOpcode::kMap: {
      static constexpr const char* kMapped[] = {"add", "multiply", "maximum",
                                                "subtract", "and"};
      d.computations = BinaryComputation("mapped", kMapped[rng.Below(5)], t);
      const std::vector<int64_t> dims = DrawDims(rng, 0, 3);
      std::vector<int64_t> all;
      for (size_t i = 0; i < dims.size(); ++i) {
        all.push_back(static_cast<int64_t>(i));
      }
      d.params.push_back({Shape(t, dims), Fill::kGeneral});
      d.params.push_back({Shape(t, dims), Fill::kGeneral});
      d.op_text = absl::StrCat("map(p0, p1), dimensions=", ListText(all),
                               ", to_apply=mapped");
      return d;
    }
    case HloOpcode::kSelectAndScatter: {
      // select: a comparison picking one element per window (GE/GT: the
      // first / last maximum; LE/LT: minimum); scatter: add on small
      // integers (exact in any order of the overlapping windows) or
      // max/min. The source has the shape of the windowed output.
      if (IsComplex(t)) return absl::InvalidArgumentError("complex select");
      static constexpr const char* kDirs[] = {"GE", "GT", "LE", "LT"};
      const std::string tn(PrimitiveTypeName(t));
      const std::string scatter =
          rng.Chance(0.7) ? "add" : (rng.Chance(0.5) ? "maximum" : "minimum");
      d.computations = absl::StrCat(
          "select {\n  a = ", tn, "[] parameter(0)\n  b = ", tn,
          "[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=",
          kDirs[rng.Below(4)],
          IsFloat(t) && rng.Chance(0.5) ? ", type=TOTALORDER" : "", "\n}\n\n",
          BinaryComputation("scatter", scatter, t));
      const std::vector<int64_t> dims = DrawDims(rng, 0, 3);
      std::vector<std::string> size, stride, pad;
      std::vector<int64_t> out;
      for (int64_t n : dims) {
        const int64_t w =
            rng.Range(1, std::max<int64_t>(std::min<int64_t>(n, 3), 1));
        const int64_t s = rng.Range(1, 2);
        const int64_t lo = rng.Chance(0.2) ? 1 : 0,
                      hi = rng.Chance(0.2) ? 1 : 0;
        size.push_back(absl::StrCat(w));
        stride.push_back(absl::StrCat(s));
        pad.push_back(absl::StrCat(lo, "_", hi));
        const int64_t padded = n + lo + hi;
        out.push_back(padded < w ? 0 : (padded - w) / s + 1);
      }
      const Fill sfill = scatter == "add" ? Fill::kSmallInt : Fill::kGeneral;
      d.params.push_back(
          {Shape(t, dims), rng.Chance(0.5) ? Fill::kUnique : Fill::kGeneral});
      d.params.push_back({Shape(t, out), sfill});
      d.params.push_back({Shape(t, {}), sfill});
      std::string window;
      if (!dims.empty()) {
        window = absl::StrCat("window={size=", absl::StrJoin(size, "x"),
                              " stride=", absl::StrJoin(stride, "x"),
                              " pad=", absl::StrJoin(pad, "x"), "}, ");
      } else {
        window = "window={}, ";
      }
      d.op_text = absl::StrCat("select-and-scatter(p0, p1, p2), ", window,
                               "select=select, scatter=scatter");
      return d;
    }
    case HloOpcode::kScan:
      return DrawScan(t, rng);
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
