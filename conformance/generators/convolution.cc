// Generator of convolution (seed 001 Conv): 1 or 2 spatial dimensions,
// random dimension labels (layouts), strides, low/high and negative
// padding, lhs and rhs dilation, feature and batch groups.
//
// Blocked convolutions (GenerateBlockedConvolution): shapes past the CPU
// backend's convolution runtime threshold and blocking (backends/cpu/
// runtime/conv.h: 6-row strips, 64 / 32-feature panels, channel chunks,
// the depthwise kernel's 64 / 32-feature blocks), feature sizes one off
// those edges, 1-3 spatial dimensions, every window attribute, feature /
// batch groups and depthwise. By default 6 % of the draws are blocked and
// moderate (at most ~2M multiply-adds); the large ones (operands past the
// L2 size, up to ~40M multiply-adds) only under
// HLOREF_CONFORMANCE_LARGE_CONV=1 (the slow-labelled
// cpu.conformance_conv_large runs).
#include <algorithm>
#include <cstdlib>
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

bool LargeConvolutions() {
  static const bool large = [] {
    const char* v = std::getenv("HLOREF_CONFORMANCE_LARGE_CONV");
    return v != nullptr && std::string(v) == "1";
  }();
  return large;
}

// A feature count around the runtime's edges (6-row strips do not apply
// here; 16-lane vectors, 32 / 64-feature panels), or uniform in [1, hi].
int64_t EdgeSize(Rng& rng, int64_t hi) {
  static constexpr int64_t kEdges[] = {1,   3,   5,   8,   15,  16, 17,
                                       31,  32,  33,  63,  64,  65, 96,
                                       127, 129, 191, 193, 255, 257};
  if (rng.Chance(0.6)) {
    const int64_t v = kEdges[rng.Below(sizeof(kEdges) / sizeof(kEdges[0]))];
    if (v <= hi) return v;
  }
  return rng.Range(1, hi);
}

struct BlockedWindow {
  int64_t in = 1, k = 1, stride = 1, lo = 0, hi = 0, ld = 1, rd = 1;
  bool rev = false;
  int64_t Out() const {
    const int64_t padded = (in - 1) * ld + 1 + lo + hi;
    const int64_t dk = (k - 1) * rd + 1;
    return padded < dk ? 0 : (padded - dk) / stride + 1;
  }
};

// A convolution whose shape reaches the CPU backend's convolution runtime.
absl::StatusOr<Draw> GenerateBlockedConvolution(Rng& rng) {
  const bool large = LargeConvolutions();
  static constexpr PrimitiveType kTypes[] = {
      PrimitiveType::kF32, PrimitiveType::kF32,  PrimitiveType::kF32,
      PrimitiveType::kF32, PrimitiveType::kBF16, PrimitiveType::kF16,
      PrimitiveType::kF64};
  const PrimitiveType t = rng.Pick<PrimitiveType>(kTypes);
  // bf16 / f16 operands sometimes accumulate into an f32 result.
  const bool widen =
      t != PrimitiveType::kF32 && t != PrimitiveType::kF64 && rng.Chance(0.3);
  const double u = rng.Unit();
  const int spatial = u < 0.2 ? 1 : (u < 0.9 ? 2 : 3);
  // Groups: none, feature groups, depthwise, batch groups.
  const uint64_t g = rng.Below(10);
  int64_t fgc = 1, bgc = 1, cg, out_features;
  const int64_t hi_c = large ? 260 : 70, hi_o = large ? 300 : 140;
  if (g < 6) {
    cg = EdgeSize(rng, hi_c);
    out_features = EdgeSize(rng, hi_o);
  } else if (g < 7) {
    fgc = rng.Range(2, 4);
    cg = EdgeSize(rng, hi_c / 2);
    out_features = fgc * EdgeSize(rng, hi_o / 3);
  } else if (g < 9) {  // depthwise: one feature per group
    cg = 1;
    fgc = EdgeSize(rng, large ? 300 : 140);
    out_features = fgc;
  } else {
    bgc = rng.Range(2, 3);
    cg = EdgeSize(rng, hi_c / 2);
    out_features = bgc * EdgeSize(rng, hi_o / 3);
  }
  const int64_t in_features = cg * fgc;
  int64_t batch = rng.Range(1, 2) * bgc;
  std::vector<BlockedWindow> win(spatial);
  const int64_t hi_s = large ? (spatial == 1 ? 400 : (spatial == 2 ? 64 : 16))
                             : (spatial == 1 ? 60 : (spatial == 2 ? 16 : 6));
  for (BlockedWindow& w : win) {
    w.in = rng.Range(1, hi_s);
    w.k = rng.Chance(0.25) ? 1 : rng.Range(1, spatial == 1 ? 7 : 3);
    if (rng.Chance(0.25)) w.stride = rng.Range(2, 3);
    if (rng.Chance(0.6)) {
      w.lo = rng.Range(-1, w.k);
      w.hi = rng.Range(-1, w.k);
    }
    if (rng.Chance(0.15)) w.ld = 2;
    if (rng.Chance(0.2)) w.rd = 2;
    w.rev = rng.Chance(0.15);
  }
  // Large cases: half of them with an input past the L2 size (2 MiB).
  const int64_t eb = t == PrimitiveType::kF64 ? 8 : 4;
  if (large && rng.Chance(0.5)) {
    for (int iter = 0; iter < 64; ++iter) {
      int64_t bytes = batch * in_features * eb;
      for (const BlockedWindow& w : win) bytes *= w.in;
      if (bytes > (int64_t{5} << 19)) break;
      BlockedWindow& w = win[rng.Below(spatial)];
      w.in = w.in * 2 + 1;
    }
  }
  // The oracle's cost: outputs x taps x features per group.
  const int64_t budget = large ? int64_t{40} * 1000 * 1000 : 2000000;
  auto macs = [&] {
    int64_t m = (batch / bgc) * out_features * cg;
    for (const BlockedWindow& w : win) m *= std::max<int64_t>(w.Out(), 1) * w.k;
    return m;
  };
  for (int iter = 0; iter < 200 && macs() > budget; ++iter) {
    // Shrink output features first (keeps the input large), then windows.
    const int64_t per_group = out_features / (fgc * bgc);
    if (fgc == 1 && per_group > 8 && rng.Chance(0.5)) {
      out_features = bgc * ((per_group + 1) / 2);
      continue;
    }
    BlockedWindow& w = win[rng.Below(spatial)];
    if (w.k > 1 && rng.Chance(0.3)) {
      --w.k;
    } else if (w.in > 1) {
      w.in = (w.in + 1) / 2;
    }
  }
  for (BlockedWindow& w : win) {
    // A window larger than the padded input: pad it out.
    while (w.Out() == 0) ++w.hi;
  }
  std::vector<std::string> size, stride, pad, lhs_dilate, rhs_dilate, rev;
  bool any_rev = false;
  for (const BlockedWindow& w : win) {
    size.push_back(absl::StrCat(w.k));
    stride.push_back(absl::StrCat(w.stride));
    pad.push_back(absl::StrCat(w.lo, "_", w.hi));
    lhs_dilate.push_back(absl::StrCat(w.ld));
    rhs_dilate.push_back(absl::StrCat(w.rd));
    rev.push_back(w.rev ? "1" : "0");
    any_rev |= w.rev;
  }
  // Layouts: channels-minor (NHWC / HWIO) most of the time, else random.
  std::vector<int64_t> lpos, kpos, opos;
  std::string lhs_labels, k_labels, out_labels;
  if (rng.Chance(0.6)) {
    // b01f_01io->b01f: positions of b, f (i, o), then the spatial labels.
    std::string digits;
    for (int i = 0; i < spatial; ++i) absl::StrAppend(&digits, i);
    lhs_labels = out_labels = "b" + digits + "f";
    k_labels = digits + "io";
    lpos = {0, spatial + 1};
    kpos = {spatial, spatial + 1};
    for (int i = 0; i < spatial; ++i) {
      lpos.push_back(1 + i);
      kpos.push_back(i);
    }
    opos = lpos;
  } else {
    lhs_labels = Labels(rng, "bf", spatial, &lpos);
    k_labels = Labels(rng, "io", spatial, &kpos);
    out_labels = Labels(rng, "bf", spatial, &opos);
  }
  std::vector<int64_t> lhs(2 + spatial), kernel(2 + spatial), out(2 + spatial);
  lhs[lpos[0]] = batch;
  lhs[lpos[1]] = in_features;
  kernel[kpos[0]] = cg;
  kernel[kpos[1]] = out_features;
  out[opos[0]] = batch / bgc;
  out[opos[1]] = out_features;
  for (int i = 0; i < spatial; ++i) {
    lhs[lpos[2 + i]] = win[i].in;
    kernel[kpos[2 + i]] = win[i].k;
    out[opos[2 + i]] = win[i].Out();
  }
  const Fill fill = rng.Chance(0.3)
                        ? Fill::kSmallInt
                        : (rng.Chance(0.8) ? Fill::kFinite : Fill::kGeneral);
  Draw d;
  d.params.push_back({Shape(t, lhs), fill});
  d.params.push_back({Shape(t, kernel), fill});
  if (widen) d.result_shape = Shape(PrimitiveType::kF32, out);
  d.op_text = absl::StrCat(
      "convolution(p0, p1), window={size=", absl::StrJoin(size, "x"),
      " stride=", absl::StrJoin(stride, "x"), " pad=", absl::StrJoin(pad, "x"),
      " lhs_dilate=", absl::StrJoin(lhs_dilate, "x"),
      " rhs_dilate=", absl::StrJoin(rhs_dilate, "x"));
  if (any_rev) {
    absl::StrAppend(&d.op_text, " rhs_reversal=", absl::StrJoin(rev, "x"));
  }
  absl::StrAppend(&d.op_text, "}, dim_labels=", lhs_labels, "_", k_labels, "->",
                  out_labels);
  if (fgc > 1) absl::StrAppend(&d.op_text, ", feature_group_count=", fgc);
  if (bgc > 1) absl::StrAppend(&d.op_text, ", batch_group_count=", bgc);
  return d;
}

}  // namespace

absl::StatusOr<Draw> GenerateConvolution(HloOpcode op, Rng& rng) {
  if (op != HloOpcode::kConvolution) {
    return absl::UnimplementedError("no generator");
  }
  if (LargeConvolutions()) return GenerateBlockedConvolution(rng);
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
  // Drawn last, so the cases above keep their seeds: now and then a
  // blocked (runtime-sized) convolution instead.
  if (rng.Chance(0.06)) return GenerateBlockedConvolution(rng);
  return d;
}

}  // namespace hloref::conformance::gen
