// Generators of the compare/select/clamp family (seed 001 "Element-wise
// comparison operations", Select, Clamp): every direction, the optional
// comparison type, scalar predicates and scalar clamp bounds.
#include <string>

#include "absl/strings/str_cat.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {

absl::StatusOr<Draw> GenerateCompareSelect(HloOpcode op, Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  const std::vector<int64_t> dims = DrawDims(rng, 0, 3);
  const Shape shape(t, dims);
  switch (op) {
    case HloOpcode::kCompare: {
      static constexpr const char* kDirections[] = {"EQ", "NE", "LT",
                                                    "LE", "GT", "GE"};
      static constexpr const char* kTypes[] = {"FLOAT", "TOTALORDER", "SIGNED",
                                               "UNSIGNED"};
      d.params.push_back({shape, Fill::kGeneral});
      d.params.push_back({shape, Fill::kGeneral});
      d.op_text = absl::StrCat("compare(p0, p1), direction=",
                               kDirections[rng.Below(6)]);
      if (rng.Chance(0.5)) {
        absl::StrAppend(&d.op_text, ", type=", kTypes[rng.Below(4)]);
      }
      return d;
    }
    case HloOpcode::kSelect: {
      const bool scalar_pred = rng.Chance(0.25);
      d.params.push_back({Shape(PrimitiveType::kPred,
                                scalar_pred ? std::vector<int64_t>{} : dims),
                          Fill::kGeneral});
      d.params.push_back({shape, Fill::kGeneral});
      d.params.push_back({shape, Fill::kGeneral});
      d.op_text = "select(p0, p1, p2)";
      d.type = t;
      return d;
    }
    case HloOpcode::kClamp: {
      const bool scalar_bounds = rng.Chance(0.4);
      const Shape bound = scalar_bounds ? Shape(t, {}) : shape;
      d.params.push_back({bound, Fill::kGeneral});
      d.params.push_back({shape, Fill::kGeneral});
      d.params.push_back({bound, Fill::kGeneral});
      d.op_text = "clamp(p0, p1, p2)";
      return d;
    }
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
