// Generators of the shape family (seed 001 BroadcastInDim, Reshape, Rev,
// Transpose, Iota, GetDimensionSize; copy, bitcast): random permutations,
// dimension subsets and factorisations, including rank 0 and zero-size shapes.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {

absl::StatusOr<Draw> GenerateShape(HloOpcode op, Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  std::vector<int64_t> dims = DrawDims(rng, 0, 4);
  const int64_t rank = static_cast<int64_t>(dims.size());
  switch (op) {
    case HloOpcode::kCopy:
      d.params.push_back({Shape(t, dims), Fill::kGeneral});
      d.op_text = "copy(p0)";
      return d;
    case HloOpcode::kTranspose:
      d.params.push_back({Shape(t, dims), Fill::kGeneral});
      d.op_text = absl::StrCat("transpose(p0), dimensions=",
                               ListText(Permutation(rng, rank)));
      return d;
    case HloOpcode::kReverse: {
      std::vector<int64_t> which;
      for (int64_t i = 0; i < rank; ++i) {
        if (rng.Chance(0.5)) which.push_back(i);
      }
      d.params.push_back({Shape(t, dims), Fill::kGeneral});
      d.op_text = absl::StrCat("reverse(p0), dimensions=", ListText(which));
      return d;
    }
    case HloOpcode::kBroadcast: {
      // Output: the operand's dims in increasing positions among new ones.
      std::vector<int64_t> out = DrawDims(rng, 0, 2);
      std::vector<int64_t> mapping;
      for (int64_t size : dims) {
        const int64_t pos = rng.Range(0, static_cast<int64_t>(out.size()));
        out.insert(out.begin() + pos, size);
        for (int64_t& m : mapping) {
          if (m >= pos) ++m;
        }
        mapping.push_back(pos);
      }
      std::sort(mapping.begin(), mapping.end());
      d.params.push_back({Shape(t, dims), Fill::kGeneral});
      d.op_text = absl::StrCat("broadcast(p0), dimensions=", ListText(mapping));
      d.result_shape = Shape(t, out);
      return d;
    }
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast: {
      // Same element count: regroup the prime factors of the count. With
      // the default (descending) layouts on both sides a bitcast that
      // keeps the element type is the same regrouping of the bytes.
      int64_t n = 1;
      for (int64_t s : dims) n *= s;
      std::vector<int64_t> out;
      if (n == 0) {
        out = DrawDims(rng, 1, 3);
        out[rng.Below(out.size())] = 0;
      } else {
        std::vector<int64_t> factors;
        for (int64_t f = 2, m = n; m > 1;) {
          if (m % f == 0) {
            factors.push_back(f);
            m /= f;
          } else {
            ++f;
          }
        }
        const int64_t out_rank = rng.Range(0, 4);
        if (out_rank == 0 && n == 1) {
          out = {};
        } else {
          out.assign(std::max<int64_t>(out_rank, 1), 1);
          for (int64_t f : factors) out[rng.Below(out.size())] *= f;
        }
      }
      d.params.push_back({Shape(t, dims), Fill::kGeneral});
      d.op_text = op == HloOpcode::kBitcast ? "bitcast(p0)" : "reshape(p0)";
      d.result_shape = Shape(t, out);
      return d;
    }
    case HloOpcode::kIota: {
      if (rank == 0) dims.push_back(rng.Range(1, 6));
      d.op_text =
          absl::StrCat("iota(), iota_dimension=", rng.Below(dims.size()));
      d.result_shape = Shape(t, dims);
      d.type = t;
      return d;
    }
    case HloOpcode::kGetDimensionSize: {
      if (rank == 0) dims.push_back(rng.Range(0, 6));
      d.params.push_back({Shape(t, dims), Fill::kGeneral});
      d.op_text = absl::StrCat("get-dimension-size(p0), dimensions={",
                               rng.Below(dims.size()), "}");
      return d;
    }
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
