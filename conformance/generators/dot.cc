// Generator of dot (seed 001 DotGeneral): any number of batch, free and
// contracting dimensions in any position, occasional long contractions
// (class-A bounds), exact small-integer data (every order agrees) or
// random data with special values.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {
namespace {

// Places logical dimensions (batch, free, contracting, in that order) at
// random positions; returns the physical sizes and where each logical
// dimension went.
void Place(Rng& rng, const std::vector<int64_t>& logical,
           std::vector<int64_t>* physical, std::vector<int64_t>* where) {
  *where = Permutation(rng, static_cast<int64_t>(logical.size()));
  physical->assign(logical.size(), 0);
  for (size_t i = 0; i < logical.size(); ++i) {
    (*physical)[(*where)[i]] = logical[i];
  }
}

Fill DrawAccumulationFill(Rng& rng) {
  const uint64_t r = rng.Below(10);
  return r < 4 ? Fill::kSmallInt : (r < 8 ? Fill::kFinite : Fill::kGeneral);
}

}  // namespace

absl::StatusOr<Draw> GenerateDot(HloOpcode op, Rng& rng) {
  if (op != HloOpcode::kDot) return absl::UnimplementedError("no generator");
  Draw d;
  const PrimitiveType t = DrawType(rng);
  const int64_t nb = rng.Range(0, 2), nlf = rng.Range(0, 2),
                nc = rng.Range(0, 2), nrf = rng.Range(0, 2);
  const bool long_contraction = rng.Chance(0.1);
  std::vector<int64_t> batch, lfree, contr, rfree;
  for (int64_t i = 0; i < nb; ++i) batch.push_back(rng.Range(1, 3));
  for (int64_t i = 0; i < nlf; ++i) lfree.push_back(rng.Range(0, 4));
  for (int64_t i = 0; i < nc; ++i) contr.push_back(rng.Range(1, 6));
  for (int64_t i = 0; i < nrf; ++i) rfree.push_back(rng.Range(0, 4));
  if (long_contraction) contr = {rng.Range(50, 400)};
  std::vector<int64_t> lhs_logical = batch, rhs_logical = batch;
  lhs_logical.insert(lhs_logical.end(), lfree.begin(), lfree.end());
  lhs_logical.insert(lhs_logical.end(), contr.begin(), contr.end());
  rhs_logical.insert(rhs_logical.end(), contr.begin(), contr.end());
  rhs_logical.insert(rhs_logical.end(), rfree.begin(), rfree.end());
  std::vector<int64_t> lhs, rhs, lw, rw;
  Place(rng, lhs_logical, &lhs, &lw);
  Place(rng, rhs_logical, &rhs, &rw);
  const int64_t b = static_cast<int64_t>(batch.size());
  const int64_t c = static_cast<int64_t>(contr.size());
  std::vector<int64_t> lb(lw.begin(), lw.begin() + b);
  std::vector<int64_t> rb(rw.begin(), rw.begin() + b);
  std::vector<int64_t> lc(lw.end() - c, lw.end());
  std::vector<int64_t> rc(rw.begin() + b, rw.begin() + b + c);
  const Fill fill = DrawAccumulationFill(rng);
  d.params.push_back({Shape(t, lhs), fill});
  d.params.push_back({Shape(t, rhs), fill});
  d.op_text = "dot(p0, p1)";
  if (b > 0) {
    absl::StrAppend(&d.op_text, ", lhs_batch_dims=", ListText(lb));
  }
  absl::StrAppend(&d.op_text, ", lhs_contracting_dims=", ListText(lc));
  if (b > 0) {
    absl::StrAppend(&d.op_text, ", rhs_batch_dims=", ListText(rb));
  }
  absl::StrAppend(&d.op_text, ", rhs_contracting_dims=", ListText(rc));
  return d;
}

}  // namespace hloref::conformance::gen
