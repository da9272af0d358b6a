// Generators of the conversion family (seed 001 ConvertElementType,
// BitcastConvertType, ReducePrecision): every pair of element types,
// bitcasts between equal and different widths, and reduced formats across
// the subnormal boundary.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {

absl::StatusOr<Draw> GenerateConvert(HloOpcode op, Rng& rng) {
  Draw d;
  const PrimitiveType from = DrawType(rng);
  std::vector<int64_t> dims = DrawDims(rng, 0, 3);
  switch (op) {
    case HloOpcode::kConvert: {
      const PrimitiveType to = DrawType(rng);
      d.params.push_back({Shape(from, dims), Fill::kGeneral});
      d.op_text = "convert(p0)";
      d.result_shape = Shape(to, dims);
      return d;
    }
    case HloOpcode::kBitcastConvert: {
      const PrimitiveType to = DrawType(rng);
      const int from_bits = BitWidth(from);
      const int to_bits = BitWidth(to);
      std::vector<int64_t> out = dims;
      if (from_bits > to_bits && to_bits > 0 && from_bits % to_bits == 0) {
        out.push_back(from_bits / to_bits);  // wide -> narrow adds a dim
      } else if (from_bits < to_bits && from_bits > 0 &&
                 to_bits % from_bits == 0) {
        dims.push_back(to_bits / from_bits);  // narrow -> wide eats it
      }
      d.params.push_back({Shape(from, dims), Fill::kGeneral});
      d.op_text = "bitcast-convert(p0)";
      d.result_shape = Shape(to, out);
      return d;
    }
    case HloOpcode::kReducePrecision: {
      d.params.push_back({Shape(from, dims), Fill::kGeneral});
      d.op_text =
          absl::StrCat("reduce-precision(p0), exponent_bits=", rng.Range(1, 11),
                       ", mantissa_bits=", rng.Range(0, 23));
      return d;
    }
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
