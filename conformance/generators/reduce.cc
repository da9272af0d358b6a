// Generators of the reduce family (seed 001 Reduce, ReduceWindow, Map):
// every reducer the element type allows (add -> class A, multiply ->
// product bound, max/min, logical), any subset of reduced dimensions,
// occasional long reductions, windows with strides, padding and dilations;
// select-and-scatter with every select direction.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/generators/draw.h"

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

}  // namespace

absl::StatusOr<Draw> GenerateReduce(HloOpcode op, Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  const std::string reducer = kReducers[rng.Below(6)];
  d.computations = BinaryComputation("reducer", reducer, t);
  switch (op) {
    case HloOpcode::kReduce: {
      std::vector<int64_t> dims = DrawDims(rng, 1, 3);
      if (reducer != "multiply" && rng.Chance(0.1)) {
        dims = {rng.Range(100, 1000)};  // a long reduction
      }
      std::vector<int64_t> which;
      for (size_t i = 0; i < dims.size(); ++i) {
        if (rng.Chance(0.6)) which.push_back(static_cast<int64_t>(i));
      }
      const Fill fill = FillFor(reducer, rng);
      d.params.push_back({Shape(t, dims), fill});
      d.params.push_back({Shape(t, {}), fill});
      d.op_text = absl::StrCat("reduce(p0, p1), dimensions=", ListText(which),
                               ", to_apply=reducer");
      return d;
    }
    case HloOpcode::kReduceWindow: {
      const std::vector<int64_t> dims = DrawDims(rng, 1, 3);
      std::vector<std::string> size, stride, pad, ld, rd;
      bool any_ld = false, any_rd = false;
      for (int64_t n : dims) {
        size.push_back(absl::StrCat(rng.Range(1, std::max<int64_t>(n, 1))));
        stride.push_back(absl::StrCat(rng.Range(1, 2)));
        pad.push_back(absl::StrCat(rng.Range(0, 1), "_", rng.Range(0, 1)));
        const bool l = rng.Chance(0.15), r = rng.Chance(0.15);
        any_ld |= l;
        any_rd |= r;
        ld.push_back(l ? "2" : "1");
        rd.push_back(r ? "2" : "1");
      }
      const Fill fill = FillFor(reducer, rng);
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
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
