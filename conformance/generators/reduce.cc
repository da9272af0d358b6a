// Generators of the reduce family (seed 001 Reduce, ReduceWindow, Map):
// every reducer the element type allows (add -> class A, multiply ->
// product bound, max/min, logical), any subset of reduced dimensions,
// occasional long reductions, windows with strides, padding and dilations.
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
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
