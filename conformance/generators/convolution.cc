// Generator of convolution (seed 001 Conv): 1 or 2 spatial dimensions,
// random dimension labels (layouts), strides, low/high and negative
// padding, lhs and rhs dilation, feature and batch groups.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {
namespace {

// Labels in a random order: `letters` are the non-spatial labels (e.g.
// "bf"), followed by spatial digits.
std::string Labels(Rng& rng, const std::string& letters, int spatial,
                   std::vector<int64_t>* position) {
  std::vector<std::string> labels;
  for (char c : letters) labels.push_back(std::string(1, c));
  for (int i = 0; i < spatial; ++i) labels.push_back(absl::StrCat(i));
  *position = Permutation(rng, static_cast<int64_t>(labels.size()));
  std::vector<std::string> placed(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) placed[(*position)[i]] = labels[i];
  return absl::StrJoin(placed, "");
}

}  // namespace

absl::StatusOr<Draw> GenerateConvolution(HloOpcode op, Rng& rng) {
  if (op != HloOpcode::kConvolution) {
    return absl::UnimplementedError("no generator");
  }
  Draw d;
  const PrimitiveType t = DrawType(rng);
  const int spatial = static_cast<int>(rng.Range(1, 2));
  int64_t groups = 1, batch_groups = 1;
  const uint64_t g = rng.Below(4);
  if (g == 0) groups = rng.Range(2, 3);
  if (g == 1) batch_groups = rng.Range(2, 3);
  const int64_t batch = rng.Range(1, 2) * batch_groups;
  const int64_t in_features = rng.Range(1, 3) * groups;
  const int64_t out_features = rng.Range(1, 2) * groups * batch_groups;
  std::vector<int64_t> in_spatial, k_spatial;
  std::vector<std::string> size, stride, pad, lhs_dilate, rhs_dilate;
  bool any_stride = false, any_pad = false, any_ld = false, any_rd = false;
  for (int i = 0; i < spatial; ++i) {
    in_spatial.push_back(rng.Range(1, 7));
    k_spatial.push_back(rng.Range(1, 3));
    size.push_back(absl::StrCat(k_spatial.back()));
    const int64_t s = rng.Chance(0.3) ? 2 : 1;
    any_stride |= s != 1;
    stride.push_back(absl::StrCat(s));
    const int64_t lo = rng.Chance(0.4) ? rng.Range(-1, 2) : 0;
    const int64_t hi = rng.Chance(0.4) ? rng.Range(-1, 2) : 0;
    any_pad |= lo != 0 || hi != 0;
    pad.push_back(absl::StrCat(lo, "_", hi));
    const int64_t ld = rng.Chance(0.2) ? 2 : 1;
    const int64_t rd = rng.Chance(0.2) ? 2 : 1;
    any_ld |= ld != 1;
    any_rd |= rd != 1;
    lhs_dilate.push_back(absl::StrCat(ld));
    rhs_dilate.push_back(absl::StrCat(rd));
  }
  std::vector<int64_t> lpos, kpos, opos;
  const std::string lhs_labels = Labels(rng, "bf", spatial, &lpos);
  const std::string k_labels = Labels(rng, "io", spatial, &kpos);
  const std::string out_labels = Labels(rng, "bf", spatial, &opos);
  std::vector<int64_t> lhs(2 + spatial), kernel(2 + spatial);
  lhs[lpos[0]] = batch;
  lhs[lpos[1]] = in_features;
  kernel[kpos[0]] = in_features / groups;
  kernel[kpos[1]] = out_features;
  for (int i = 0; i < spatial; ++i) {
    lhs[lpos[2 + i]] = in_spatial[i];
    kernel[kpos[2 + i]] = k_spatial[i];
  }
  const Fill fill = rng.Chance(0.5)
                        ? Fill::kSmallInt
                        : (rng.Chance(0.7) ? Fill::kFinite : Fill::kGeneral);
  d.params.push_back({Shape(t, lhs), fill});
  d.params.push_back({Shape(t, kernel), fill});
  std::string window = absl::StrCat("size=", absl::StrJoin(size, "x"));
  if (any_stride)
    absl::StrAppend(&window, " stride=", absl::StrJoin(stride, "x"));
  if (any_pad) absl::StrAppend(&window, " pad=", absl::StrJoin(pad, "x"));
  if (any_ld) {
    absl::StrAppend(&window, " lhs_dilate=", absl::StrJoin(lhs_dilate, "x"));
  }
  if (any_rd) {
    absl::StrAppend(&window, " rhs_dilate=", absl::StrJoin(rhs_dilate, "x"));
  }
  d.op_text = absl::StrCat("convolution(p0, p1), window={", window,
                           "}, dim_labels=", lhs_labels, "_", k_labels, "->",
                           out_labels);
  if (groups > 1) {
    absl::StrAppend(&d.op_text, ", feature_group_count=", groups);
  }
  if (batch_groups > 1) {
    absl::StrAppend(&d.op_text, ", batch_group_count=", batch_groups);
  }
  return d;
}

}  // namespace hloref::conformance::gen
