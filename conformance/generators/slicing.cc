// Generators of the slicing family (seed 001 Slice, DynamicSlice,
// DynamicUpdateSlice): strided slices, empty slices, and start indices of
// every index type around and beyond the bounds (the clamp rule).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {
namespace {

PrimitiveType DrawIndexType(Rng& rng) {
  static constexpr PrimitiveType kTypes[] = {
      PrimitiveType::kS32, PrimitiveType::kS64, PrimitiveType::kU32,
      PrimitiveType::kS8,  PrimitiveType::kU8,  PrimitiveType::kS16};
  return kTypes[rng.Below(6)];
}

}  // namespace

absl::StatusOr<Draw> GenerateSlicing(HloOpcode op, Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  const std::vector<int64_t> dims = DrawDims(rng, 1, 3);
  const int64_t rank = static_cast<int64_t>(dims.size());
  d.params.push_back({Shape(t, dims), Fill::kGeneral});
  switch (op) {
    case HloOpcode::kSlice: {
      std::vector<std::string> parts;
      for (int64_t size : dims) {
        const int64_t start = rng.Range(0, size);
        const int64_t limit = rng.Range(start, size);
        const int64_t stride = rng.Range(1, 3);
        parts.push_back(stride == 1 ? absl::StrCat("[", start, ":", limit, "]")
                                    : absl::StrCat("[", start, ":", limit, ":",
                                                   stride, "]"));
      }
      d.op_text =
          absl::StrCat("slice(p0), slice={", absl::StrJoin(parts, ", "), "}");
      return d;
    }
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice: {
      const PrimitiveType index_type = DrawIndexType(rng);
      std::vector<int64_t> sizes;
      for (int64_t size : dims) sizes.push_back(rng.Range(0, size));
      std::vector<std::string> operands = {"p0"};
      if (op == HloOpcode::kDynamicUpdateSlice) {
        d.params.push_back({Shape(t, sizes), Fill::kGeneral});
        operands.push_back("p1");
      }
      for (int64_t i = 0; i < rank; ++i) {
        operands.push_back(absl::StrCat("p", d.params.size()));
        d.params.push_back(
            {Shape(index_type, {}), Fill::kIndex, dims[i] - sizes[i]});
      }
      d.op_text = absl::StrCat(HloOpcodeString(op), "(",
                               absl::StrJoin(operands, ", "), ")");
      if (op == HloOpcode::kDynamicSlice) {
        absl::StrAppend(&d.op_text, ", dynamic_slice_sizes=", ListText(sizes));
      }
      d.type = t;
      return d;
    }
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
