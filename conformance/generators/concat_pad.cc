// Generators of the concatenate/pad family (seed 001 Concatenate, Pad):
// several operands with zero-size pieces; low/high padding including
// negative amounts and interior padding.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {

absl::StatusOr<Draw> GenerateConcatPad(HloOpcode op, Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  std::vector<int64_t> dims = DrawDims(rng, 1, 3);
  switch (op) {
    case HloOpcode::kConcatenate: {
      const int64_t dim = rng.Below(dims.size());
      const int64_t count = rng.Range(1, 4);
      std::vector<std::string> operands;
      for (int64_t k = 0; k < count; ++k) {
        std::vector<int64_t> piece = dims;
        piece[dim] = rng.Range(0, 4);
        operands.push_back(absl::StrCat("p", k));
        d.params.push_back({Shape(t, piece), Fill::kGeneral});
      }
      d.op_text = absl::StrCat("concatenate(", absl::StrJoin(operands, ", "),
                               "), dimensions={", dim, "}");
      return d;
    }
    case HloOpcode::kPad: {
      std::vector<std::string> parts;
      for (int64_t size : dims) {
        const int64_t lo = rng.Range(-std::min<int64_t>(size, 2), 3);
        const int64_t hi = rng.Range(-std::min<int64_t>(size, 2), 3);
        const int64_t interior = rng.Chance(0.3) ? rng.Range(1, 2) : 0;
        parts.push_back(interior > 0 ? absl::StrCat(lo, "_", hi, "_", interior)
                                     : absl::StrCat(lo, "_", hi));
      }
      d.params.push_back({Shape(t, dims), Fill::kGeneral});
      d.params.push_back({Shape(t, {}), Fill::kGeneral});
      d.op_text =
          absl::StrCat("pad(p0, p1), padding=", absl::StrJoin(parts, "x"));
      return d;
    }
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
