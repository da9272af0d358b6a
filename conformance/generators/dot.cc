// Generator of the dot family. dot (seed 001 DotGeneral): any number of
// batch, free and contracting dimensions in any position, occasional long
// contractions (class-A bounds), exact small-integer data (every order
// agrees) or random data with special values. ragged-dot: the three modes
// (ragged free, contracting, batch dimension), group_sizes as a constant of
// shape [g] or [prefix..., g] whose rows sum to at most the ragged
// dimension (sometimes exactly), with empty groups. scaled-dot: float
// operands with block scales (f8e8m0fnu and other float scale types)
// dividing every dimension, MX-like blocks of 32 along the contraction.
// Blocked dots (GenerateBlockedDot): shapes past the CPU backend's GEMM
// tile (6 x 64 f32, 6 x 32 f64), K blocks and thread split, with odd sizes
// so every edge tile runs; the large ones (M, N, K up to ~600, operands
// past the L2 size) only under HLOREF_CONFORMANCE_LARGE_DOT=1.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
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

// Row-major `values` of `dims` as an HLO literal body ("{{1, 2}, {3, 4}}").
std::string NestedText(absl::Span<const int64_t> dims,
                       absl::Span<const int64_t> values, size_t level = 0,
                       int64_t offset = 0) {
  if (level == dims.size()) return absl::StrCat(values[offset]);
  int64_t stride = 1;
  for (size_t j = level + 1; j < dims.size(); ++j) stride *= dims[j];
  std::string out = "{";
  for (int64_t i = 0; i < dims[level]; ++i) {
    if (i > 0) out += ", ";
    out += NestedText(dims, values, level + 1, offset + i * stride);
  }
  return out + "}";
}

// The sizes of the logical dimensions `logical_ids` (indices into
// `logical`) in ascending order of their physical position `where`.
std::vector<int64_t> ByPosition(const std::vector<int64_t>& logical,
                                const std::vector<int64_t>& where,
                                int64_t first, int64_t count) {
  std::vector<std::pair<int64_t, int64_t>> pos;
  for (int64_t i = first; i < first + count; ++i) {
    pos.push_back({where[i], logical[i]});
  }
  std::sort(pos.begin(), pos.end());
  std::vector<int64_t> out;
  for (const auto& p : pos) out.push_back(p.second);
  return out;
}

// A dimension size in [1, hi], now and then 0 (zero-size operands).
int64_t DrawFreeSize(Rng& rng, int64_t hi) {
  return rng.Chance(0.08) ? 0 : rng.Range(1, hi);
}

// ragged-dot (text-format 6.5; modes and group_sizes shapes as in
// interpreter/ops/ragged_scaled_dot.cc).
absl::StatusOr<Draw> GenerateRaggedDot(Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  const int mode = static_cast<int>(rng.Range(0, 2));  // free, contr, batch
  // Now and then no groups at all (g = 0: every index in no group).
  const int64_t num_groups = rng.Chance(0.05) ? 0 : rng.Range(1, 4);
  const int64_t nb = rng.Range(mode == 2 ? 1 : 0, 2);
  const int64_t nlf = rng.Range(mode == 0 ? 1 : 0, 2);
  const int64_t nc = rng.Range(mode == 1 ? 1 : 0, 2);
  const int64_t nrf = rng.Range(0, 1);
  std::vector<int64_t> batch, lfree, contr, rfree;
  for (int64_t i = 0; i < nb; ++i) batch.push_back(rng.Range(1, 3));
  for (int64_t i = 0; i < nlf; ++i) lfree.push_back(DrawFreeSize(rng, 8));
  for (int64_t i = 0; i < nc; ++i) contr.push_back(rng.Range(1, 6));
  for (int64_t i = 0; i < nrf; ++i) rfree.push_back(DrawFreeSize(rng, 3));
  if (nc == 1 && rng.Chance(0.1)) contr[0] = rng.Range(40, 200);
  std::vector<int64_t> lhs_logical = batch;
  lhs_logical.insert(lhs_logical.end(), lfree.begin(), lfree.end());
  lhs_logical.insert(lhs_logical.end(), contr.begin(), contr.end());
  std::vector<int64_t> rhs_logical;
  if (mode == 0) rhs_logical.push_back(num_groups);
  rhs_logical.insert(rhs_logical.end(), batch.begin(), batch.end());
  rhs_logical.insert(rhs_logical.end(), contr.begin(), contr.end());
  rhs_logical.insert(rhs_logical.end(), rfree.begin(), rfree.end());
  std::vector<int64_t> lhs, rhs, lw, rw;
  Place(rng, lhs_logical, &lhs, &lw);
  Place(rng, rhs_logical, &rhs, &rw);
  const int64_t ro = mode == 0 ? 1 : 0;
  std::vector<int64_t> lb(lw.begin(), lw.begin() + nb);
  std::vector<int64_t> lc(lw.begin() + nb + nlf, lw.end());
  std::vector<int64_t> rb(rw.begin() + ro, rw.begin() + ro + nb);
  std::vector<int64_t> rc(rw.begin() + ro + nb, rw.begin() + ro + nb + nc);
  // The ragged dimension and the group_sizes prefix (StableHLO's rule).
  std::vector<int64_t> prefix;
  int64_t ragged = 0, ragged_size = 0;
  if (mode == 0) {
    const int64_t j = rng.Range(0, nlf - 1);
    ragged = lw[nb + j];
    ragged_size = lfree[j];
    prefix = batch;
    for (int64_t d = 0; d < ragged; ++d) {
      for (int64_t i = 0; i < nlf; ++i) {
        if (lw[nb + i] == d) prefix.push_back(lfree[i]);
      }
    }
  } else if (mode == 1) {
    const int64_t j = rng.Range(0, nc - 1);
    ragged = lc[j];
    ragged_size = contr[j];
    prefix = batch;
    prefix.insert(prefix.end(), contr.begin(), contr.begin() + j);
  } else {
    const int64_t j = rng.Range(0, nb - 1);
    ragged = lb[j];
    ragged_size = batch[j];
    prefix.assign(batch.begin(), batch.begin() + j);
  }
  int64_t rows = 1;
  for (int64_t p : prefix) rows *= p;
  const bool with_prefix =
      !prefix.empty() && rows > 0 && num_groups > 0 && rng.Chance(0.5);
  if (!with_prefix) {
    prefix.clear();
    rows = 1;
  }
  // Each row: a total <= the ragged size (often exactly it) cut into
  // num_groups sizes (empty groups included).
  std::vector<int64_t> sizes;
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t total =
        rng.Chance(0.5) ? ragged_size : rng.Range(0, ragged_size);
    std::vector<int64_t> cuts = {0, total};
    for (int64_t g = 1; g < num_groups; ++g)
      cuts.push_back(rng.Range(0, total));
    std::sort(cuts.begin(), cuts.end());
    for (int64_t g = 0; g < num_groups; ++g) {
      sizes.push_back(cuts[g + 1] - cuts[g]);
    }
  }
  static constexpr PrimitiveType kGroupTypes[] = {
      PrimitiveType::kS32, PrimitiveType::kS64, PrimitiveType::kU32,
      PrimitiveType::kU8};
  PrimitiveType gt = rng.Pick<PrimitiveType>(kGroupTypes);
  if (gt == PrimitiveType::kU8 && ragged_size > 255) gt = PrimitiveType::kS32;
  std::vector<int64_t> gs_dims = prefix;
  gs_dims.push_back(num_groups);
  d.prelude = absl::StrCat("  gs = ", ShapeText(gt, gs_dims), " constant(",
                           NestedText(gs_dims, sizes), ")\n");
  const Fill fill = DrawAccumulationFill(rng);
  d.params.push_back({Shape(t, lhs), fill});
  d.params.push_back({Shape(t, rhs), fill});
  d.op_text = "ragged-dot(p0, p1, gs)";
  if (nb > 0) absl::StrAppend(&d.op_text, ", lhs_batch_dims=", ListText(lb));
  absl::StrAppend(&d.op_text, ", lhs_contracting_dims=", ListText(lc));
  if (nb > 0) absl::StrAppend(&d.op_text, ", rhs_batch_dims=", ListText(rb));
  absl::StrAppend(&d.op_text, ", rhs_contracting_dims=", ListText(rc),
                  ", lhs_ragged_dims={", ragged, "}");
  if (mode == 0) absl::StrAppend(&d.op_text, ", rhs_group_dims={", rw[0], "}");
  return d;
}

// A block-scale shape for `dims`: each scale dimension divides its
// operand's; contracting dimensions (`contracting`) often get blocks of 32
// or small powers of two, the others one block or one scale per element.
std::vector<int64_t> DrawScaleDims(Rng& rng, const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& contracting) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t n = dims[d];
    if (n == 0) {
      out.push_back(0);
      continue;
    }
    std::vector<int64_t> divisors;
    for (int64_t q = 1; q <= n; ++q) {
      if (n % q == 0) divisors.push_back(q);
    }
    const bool is_contracting =
        std::find(contracting.begin(), contracting.end(),
                  static_cast<int64_t>(d)) != contracting.end();
    if (is_contracting && n % 32 == 0 && rng.Chance(0.7)) {
      out.push_back(n / 32);  // MX: blocks of 32
    } else {
      out.push_back(rng.Pick<int64_t>(divisors));
    }
  }
  return out;
}

// scaled-dot(lhs, rhs, lhs_scale, rhs_scale) (XLA's operand order,
// text-format 6.5).
absl::StatusOr<Draw> GenerateScaledDot(Rng& rng) {
  Draw d;
  static constexpr PrimitiveType kNarrow[] = {
      PrimitiveType::kF8E4M3FN, PrimitiveType::kF8E5M2,
      PrimitiveType::kF4E2M1FN, PrimitiveType::kBF16};
  static constexpr PrimitiveType kScales[] = {
      PrimitiveType::kF8E8M0FNU, PrimitiveType::kF8E8M0FNU,
      PrimitiveType::kF8E4M3FN, PrimitiveType::kBF16, PrimitiveType::kF32};
  static constexpr PrimitiveType kResults[] = {
      PrimitiveType::kF32, PrimitiveType::kF32, PrimitiveType::kBF16,
      PrimitiveType::kF16, PrimitiveType::kF64};
  const bool mx = rng.Chance(0.5);
  const PrimitiveType lt =
      mx ? rng.Pick<PrimitiveType>(kNarrow) : DrawFloatType(rng);
  const PrimitiveType rt =
      mx ? rng.Pick<PrimitiveType>(kNarrow) : DrawFloatType(rng);
  const PrimitiveType lst =
      rng.Chance(0.2) ? DrawFloatType(rng) : rng.Pick<PrimitiveType>(kScales);
  const PrimitiveType rst =
      rng.Chance(0.2) ? DrawFloatType(rng) : rng.Pick<PrimitiveType>(kScales);
  const PrimitiveType out =
      rng.Chance(0.2) ? DrawFloatType(rng) : rng.Pick<PrimitiveType>(kResults);
  const int64_t nb = rng.Range(0, 1), nlf = rng.Range(0, 2),
                nc = rng.Range(1, 2), nrf = rng.Range(0, 2);
  std::vector<int64_t> batch, lfree, contr, rfree;
  for (int64_t i = 0; i < nb; ++i) batch.push_back(rng.Range(1, 3));
  for (int64_t i = 0; i < nlf; ++i) lfree.push_back(DrawFreeSize(rng, 4));
  for (int64_t i = 0; i < nc; ++i) contr.push_back(rng.Range(1, 6));
  for (int64_t i = 0; i < nrf; ++i) rfree.push_back(DrawFreeSize(rng, 4));
  if (mx) contr.back() = 32 * rng.Range(1, 3);
  std::vector<int64_t> lhs_logical = batch, rhs_logical = batch;
  lhs_logical.insert(lhs_logical.end(), lfree.begin(), lfree.end());
  lhs_logical.insert(lhs_logical.end(), contr.begin(), contr.end());
  rhs_logical.insert(rhs_logical.end(), contr.begin(), contr.end());
  rhs_logical.insert(rhs_logical.end(), rfree.begin(), rfree.end());
  std::vector<int64_t> lhs, rhs, lw, rw;
  Place(rng, lhs_logical, &lhs, &lw);
  Place(rng, rhs_logical, &rhs, &rw);
  std::vector<int64_t> lb(lw.begin(), lw.begin() + nb);
  std::vector<int64_t> rb(rw.begin(), rw.begin() + nb);
  std::vector<int64_t> lc(lw.end() - nc, lw.end());
  std::vector<int64_t> rc(rw.begin() + nb, rw.begin() + nb + nc);
  const Fill fill = DrawAccumulationFill(rng);
  const Fill scale_fill = rng.Chance(0.1) ? Fill::kGeneral : Fill::kFinite;
  // Scale shapes are drawn lhs first (the draws of earlier generators'
  // seeds), then parameters are listed in the operand order.
  const Shape lhs_scale(lst, DrawScaleDims(rng, lhs, lc));
  const Shape rhs_scale(rst, DrawScaleDims(rng, rhs, rc));
  d.params.push_back({Shape(lt, lhs), fill});
  d.params.push_back({Shape(rt, rhs), fill});
  d.params.push_back({lhs_scale, scale_fill});
  d.params.push_back({rhs_scale, scale_fill});
  // Result: batch, lhs free, rhs free (each in physical order), in `out`.
  std::vector<int64_t> result = batch;
  for (int64_t s : ByPosition(lhs_logical, lw, nb, nlf)) result.push_back(s);
  for (int64_t s : ByPosition(rhs_logical, rw, nb + nc, nrf)) {
    result.push_back(s);
  }
  d.result_shape = Shape(out, result);
  d.op_text = "scaled-dot(p0, p1, p2, p3)";
  if (nb > 0) absl::StrAppend(&d.op_text, ", lhs_batch_dims=", ListText(lb));
  absl::StrAppend(&d.op_text, ", lhs_contracting_dims=", ListText(lc));
  if (nb > 0) absl::StrAppend(&d.op_text, ", rhs_batch_dims=", ListText(rb));
  absl::StrAppend(&d.op_text, ", rhs_contracting_dims=", ListText(rc));
  return d;
}

// Large blocked dots (oracle time ~seconds each) are drawn only when the
// environment sets HLOREF_CONFORMANCE_LARGE_DOT=1 (the slow-labelled
// cpu.conformance_dot_large run); the default, CI-sized set draws the
// moderate ones (at most ~2M multiply-adds) now and then.
bool LargeDots() {
  static const bool large = [] {
    const char* v = std::getenv("HLOREF_CONFORMANCE_LARGE_DOT");
    return v != nullptr && std::string(v) == "1";
  }();
  return large;
}

// A size around the GEMM's edges: one off a multiple of the 6-row tile or
// the 64 / 32-column panels, or uniform in [1, hi].
int64_t BlockedSize(Rng& rng, int64_t hi) {
  static constexpr int64_t kEdges[] = {1,  5,  6,  7,   13,  31,  32,  33,
                                       63, 64, 65, 127, 129, 191, 193, 257};
  if (rng.Chance(0.5)) {
    const int64_t v = kEdges[rng.Below(sizeof(kEdges) / sizeof(kEdges[0]))];
    if (v <= hi) return v;
  }
  return rng.Range(1, hi);
}

// A dot whose shape reaches the CPU backend's packed GEMM: one or two
// dimensions per group at random positions, element types of its paths
// (f32 mostly; narrow floats, f64, s8/u8 into s32) and sometimes others.
absl::StatusOr<Draw> GenerateBlockedDot(Rng& rng) {
  Draw d;
  const bool large = LargeDots();
  static constexpr PrimitiveType kTypes[] = {
      PrimitiveType::kF32,  PrimitiveType::kF32,      PrimitiveType::kF32,
      PrimitiveType::kBF16, PrimitiveType::kF16,      PrimitiveType::kF64,
      PrimitiveType::kS8,   PrimitiveType::kF8E4M3FN, PrimitiveType::kU8};
  const PrimitiveType t = rng.Pick<PrimitiveType>(kTypes);
  // M, N, K sizes; the product stays under 2M multiply-adds by default.
  const int64_t hi = large ? 600 : 200;
  int64_t m = BlockedSize(rng, hi), n = BlockedSize(rng, hi),
          k = BlockedSize(rng, large ? 700 : 300);
  const int64_t budget = large ? int64_t{300} * 1000 * 1000 : 2000000;
  while (m * n * k > budget) {
    if (m >= n && m >= k) {
      m = (m + 1) / 2;
    } else if (n >= k) {
      n = (n + 1) / 2;
    } else {
      k = (k + 1) / 2;
    }
  }
  if (rng.Chance(0.15)) m = rng.Range(1, 16);  // skinny (decoding-like)
  const int64_t nb = rng.Chance(0.3) ? 1 : 0;
  std::vector<int64_t> batch, lfree, contr, rfree;
  if (nb == 1) batch.push_back(rng.Range(2, 3));
  // Sometimes a group is two dimensions (a 2-D M or K).
  auto split = [&](int64_t size, std::vector<int64_t>* out) {
    if (size >= 4 && size % 2 == 0 && rng.Chance(0.2)) {
      out->push_back(2);
      out->push_back(size / 2);
    } else {
      out->push_back(size);
    }
  };
  split(m, &lfree);
  split(k, &contr);
  split(n, &rfree);
  std::vector<int64_t> lhs_logical = batch, rhs_logical = batch;
  lhs_logical.insert(lhs_logical.end(), lfree.begin(), lfree.end());
  lhs_logical.insert(lhs_logical.end(), contr.begin(), contr.end());
  rhs_logical.insert(rhs_logical.end(), contr.begin(), contr.end());
  rhs_logical.insert(rhs_logical.end(), rfree.begin(), rfree.end());
  std::vector<int64_t> lhs, rhs, lw, rw;
  Place(rng, lhs_logical, &lhs, &lw);
  Place(rng, rhs_logical, &rhs, &rw);
  const int64_t b = static_cast<int64_t>(batch.size());
  const int64_t nlf = static_cast<int64_t>(lfree.size());
  const int64_t c = static_cast<int64_t>(contr.size());
  const int64_t nrf = static_cast<int64_t>(rfree.size());
  std::vector<int64_t> lb(lw.begin(), lw.begin() + b);
  std::vector<int64_t> rb(rw.begin(), rw.begin() + b);
  std::vector<int64_t> lc(lw.begin() + b + nlf, lw.end());
  std::vector<int64_t> rc(rw.begin() + b, rw.begin() + b + c);
  const Fill fill = DrawAccumulationFill(rng);
  d.params.push_back({Shape(t, lhs), fill});
  d.params.push_back({Shape(t, rhs), fill});
  // Integers accumulate into s32; narrow floats sometimes into f32.
  PrimitiveType out = t;
  if (t == PrimitiveType::kS8 || t == PrimitiveType::kU8) {
    out = PrimitiveType::kS32;
  } else if ((t == PrimitiveType::kBF16 || t == PrimitiveType::kF16 ||
              t == PrimitiveType::kF8E4M3FN) &&
             rng.Chance(0.5)) {
    out = PrimitiveType::kF32;
  }
  std::vector<int64_t> result = batch;
  for (int64_t s : ByPosition(lhs_logical, lw, b, nlf)) result.push_back(s);
  for (int64_t s : ByPosition(rhs_logical, rw, b + c, nrf)) {
    result.push_back(s);
  }
  d.result_shape = Shape(out, result);
  d.op_text = "dot(p0, p1)";
  if (b > 0) absl::StrAppend(&d.op_text, ", lhs_batch_dims=", ListText(lb));
  absl::StrAppend(&d.op_text, ", lhs_contracting_dims=", ListText(lc));
  if (b > 0) absl::StrAppend(&d.op_text, ", rhs_batch_dims=", ListText(rb));
  absl::StrAppend(&d.op_text, ", rhs_contracting_dims=", ListText(rc));
  return d;
}

}  // namespace

absl::StatusOr<Draw> GenerateDot(HloOpcode op, Rng& rng) {
  if (op == HloOpcode::kRaggedDot) return GenerateRaggedDot(rng);
  if (op == HloOpcode::kScaledDot) return GenerateScaledDot(rng);
  if (op != HloOpcode::kDot) return absl::UnimplementedError("no generator");
  if (LargeDots()) return GenerateBlockedDot(rng);
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
  // Drawn last, so the cases above keep their seeds: now and then a
  // blocked (GEMM-sized) dot instead.
  if (rng.Chance(0.06)) return GenerateBlockedDot(rng);
  return d;
}

}  // namespace hloref::conformance::gen
