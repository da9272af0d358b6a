// The convolution family: convolution (seed 001 "Conv (convolution)",
// "ConvWithGeneralPadding"). The SAME/VALID builder forms reach the IR as
// explicit padding, so only the general form exists here.
// Numerics: as dot (dot.h): exact accumulation of exact products, one
// rounding to the result type; error data S and m per output element,
// where n counts the in-bounds window positions times the input features
// of the group (padding and dilation holes contribute exact zeros and are
// not terms, numerics.md 7.3).
#include <algorithm>
#include <complex>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/dot.h"
#include "interpreter/ops/exact_sum.h"
#include "interpreter/ops/families.h"
#include "interpreter/ops/fast_round.h"
#include "interpreter/ops/parallel.h"
#include "spec/types/minifloat.h"

namespace hloref {
namespace {

// Everything the accumulation loop needs, independent of the element type.
struct ConvPlan {
  int64_t out_batch = 0;       // output batch size (input batch / bgc)
  int64_t out_features = 0;    // kernel output features
  int64_t in_features = 0;     // input features (all groups)
  int64_t group_features = 0;  // input features per feature group
  int64_t out_per_fgroup = 0;  // output features per feature group
  int64_t out_per_bgroup = 0;  // output features per batch group
  int64_t in_spatial = 0;      // product of input spatial sizes
  int64_t kernel_spatial = 0;  // product of kernel spatial sizes
  int64_t out_spatial = 0;     // product of output spatial sizes
  // For output spatial position p (row-major over the output spatial dims
  // in dim_labels order): pairs[pair_start[p] .. pair_start[p+1]) are the
  // (input spatial offset, kernel spatial offset) of its in-bounds window
  // positions, in window row-major order.
  std::vector<int64_t> pair_start;
  std::vector<std::pair<int64_t, int64_t>> pairs;
  // Output linear offset of spatial position p, and strides of the batch
  // and feature dimensions in the output.
  std::vector<int64_t> out_spatial_offset;
  int64_t out_batch_stride = 0;
  int64_t out_feature_stride = 0;
};

absl::StatusOr<ConvPlan> MakePlan(const HloInstruction& inst, const Shape& lhs,
                                  const Shape& rhs) {
  const ConvolutionDimensionNumbers& dn =
      inst.attrs().convolution_dimension_numbers;
  const Window& window = inst.attrs().window;
  const Shape& out = inst.shape();
  const size_t n = dn.input_spatial_dimensions.size();
  if (window.dimensions.size() != n ||
      dn.kernel_spatial_dimensions.size() != n ||
      dn.output_spatial_dimensions.size() != n ||
      lhs.rank() != int64_t(n) + 2 || rhs.rank() != int64_t(n) + 2 ||
      out.rank() != int64_t(n) + 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst),
        "window, dim_labels and operand ranks disagree (is the module "
        "verified?)"));
  }
  const int64_t fgc = inst.attrs().feature_group_count;
  const int64_t bgc = inst.attrs().batch_group_count;
  ConvPlan p;
  const int64_t in_batch = lhs.dimensions(dn.input_batch_dimension);
  p.in_features = lhs.dimensions(dn.input_feature_dimension);
  p.out_features = rhs.dimensions(dn.kernel_output_feature_dimension);
  p.group_features = rhs.dimensions(dn.kernel_input_feature_dimension);
  p.out_batch = out.dimensions(dn.output_batch_dimension);
  if (fgc < 1 || bgc < 1 || p.in_features != p.group_features * fgc ||
      p.out_features % fgc != 0 || p.out_features % bgc != 0 ||
      in_batch != p.out_batch * bgc ||
      out.dimensions(dn.output_feature_dimension) != p.out_features) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst),
        "feature/batch group counts do not match the shapes (is the module "
        "verified?)"));
  }
  p.out_per_fgroup = p.out_features / fgc;
  p.out_per_bgroup = p.out_features / bgc;

  std::vector<int64_t> in_size(n), k_size(n), o_size(n);
  for (size_t d = 0; d < n; ++d) {
    in_size[d] = lhs.dimensions(dn.input_spatial_dimensions[d]);
    k_size[d] = rhs.dimensions(dn.kernel_spatial_dimensions[d]);
    o_size[d] = out.dimensions(dn.output_spatial_dimensions[d]);
    if (window.dimensions[d].size != k_size[d] ||
        window.dimensions[d].stride < 1 ||
        window.dimensions[d].base_dilation < 1 ||
        window.dimensions[d].window_dilation < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "window dimension ", d,
          " does not match the kernel or has a non-positive stride or "
          "dilation (is the module verified?)"));
    }
  }
  p.in_spatial = Product(in_size);
  p.kernel_spatial = Product(k_size);
  p.out_spatial = Product(o_size);

  // Per spatial dimension and (output position, window position): the
  // input index, or -1 when the position falls on padding or on a hole of
  // the base (lhs) dilation. Window position w pairs with kernel element
  // w, or size-1-w under window reversal.
  std::vector<std::vector<int64_t>> in_index(n);
  for (size_t d = 0; d < n; ++d) {
    const WindowDimension& wd = window.dimensions[d];
    const int64_t dilated =
        in_size[d] == 0 ? 0 : (in_size[d] - 1) * wd.base_dilation + 1;
    in_index[d].assign(static_cast<size_t>(o_size[d] * k_size[d]), -1);
    for (int64_t o = 0; o < o_size[d]; ++o) {
      for (int64_t w = 0; w < k_size[d]; ++w) {
        const int64_t pos =
            o * wd.stride + w * wd.window_dilation - wd.padding_low;
        if (pos < 0 || pos >= dilated || pos % wd.base_dilation != 0) continue;
        in_index[d][o * k_size[d] + w] = pos / wd.base_dilation;
      }
    }
  }
  const std::vector<int64_t> in_stride = RowMajorStrides(in_size);
  const std::vector<int64_t> k_stride = RowMajorStrides(k_size);
  const std::vector<int64_t> out_strides = RowMajorStrides(out.dimensions());
  p.out_batch_stride = out_strides[dn.output_batch_dimension];
  p.out_feature_stride = out_strides[dn.output_feature_dimension];

  p.pair_start.reserve(static_cast<size_t>(p.out_spatial + 1));
  p.out_spatial_offset.reserve(static_cast<size_t>(p.out_spatial));
  p.pair_start.push_back(0);
  if (p.out_spatial > 0) {
    std::vector<int64_t> os(n, 0), w(n, 0);
    do {
      int64_t off = 0;
      for (size_t d = 0; d < n; ++d) {
        off += os[d] * out_strides[dn.output_spatial_dimensions[d]];
      }
      p.out_spatial_offset.push_back(off);
      if (p.kernel_spatial > 0) {
        std::fill(w.begin(), w.end(), 0);
        do {
          int64_t in_off = 0, k_off = 0;
          bool valid = true;
          for (size_t d = 0; d < n && valid; ++d) {
            const int64_t idx = in_index[d][os[d] * k_size[d] + w[d]];
            if (idx < 0) {
              valid = false;
              break;
            }
            const int64_t kw = window.dimensions[d].window_reversal
                                   ? k_size[d] - 1 - w[d]
                                   : w[d];
            in_off += idx * in_stride[d];
            k_off += kw * k_stride[d];
          }
          if (valid) p.pairs.emplace_back(in_off, k_off);
        } while (NextIndex(k_size, absl::MakeSpan(w)));
      }
      p.pair_start.push_back(static_cast<int64_t>(p.pairs.size()));
    } while (NextIndex(o_size, absl::MakeSpan(os)));
  }
  return p;
}

// Operands repacked so the feature loop is contiguous: input as
// [batch][spatial][feature], kernel as [out feature][spatial][in feature].
template <typename T>
std::vector<T> PackInput(const std::vector<T>& src, const Shape& shape,
                         const ConvolutionDimensionNumbers& dn) {
  const std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  const std::vector<int64_t> b =
      DimOffsets(shape.dimensions(), strides, {dn.input_batch_dimension});
  const std::vector<int64_t> s =
      DimOffsets(shape.dimensions(), strides, dn.input_spatial_dimensions);
  const std::vector<int64_t> f =
      DimOffsets(shape.dimensions(), strides, {dn.input_feature_dimension});
  std::vector<T> out;
  out.reserve(src.size());
  for (int64_t bi : b)
    for (int64_t si : s)
      for (int64_t fi : f) out.push_back(src[bi + si + fi]);
  return out;
}
template <typename T>
std::vector<T> PackKernel(const std::vector<T>& src, const Shape& shape,
                          const ConvolutionDimensionNumbers& dn) {
  const std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  const std::vector<int64_t> o = DimOffsets(
      shape.dimensions(), strides, {dn.kernel_output_feature_dimension});
  const std::vector<int64_t> s =
      DimOffsets(shape.dimensions(), strides, dn.kernel_spatial_dimensions);
  const std::vector<int64_t> i = DimOffsets(
      shape.dimensions(), strides, {dn.kernel_input_feature_dimension});
  std::vector<T> out;
  out.reserve(src.size());
  for (int64_t oi : o)
    for (int64_t si : s)
      for (int64_t ii : i) out.push_back(src[oi + si + ii]);
  return out;
}

// Calls body(out_linear, x, w, pairs_begin, pairs_end) for every output
// element, where x points at the input features of its feature group for
// its (batch-group) input batch and w at its kernel row.
template <typename T, typename Body>
absl::Status ForEachOutput(const HloInstruction& inst, EvalContext& ctx,
                           const ConvPlan& p, const std::vector<T>& x,
                           const std::vector<T>& w, Body body) {
  for (int64_t b = 0; b < p.out_batch; ++b) {
    for (int64_t o = 0; o < p.out_features; ++o) {
      HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
      // Seed: output features are split into consecutive groups; feature
      // group g reads input features [g*Cg, (g+1)*Cg), batch group h reads
      // input batch h*out_batch + b.
      const int64_t fgroup = o / p.out_per_fgroup;
      const int64_t bgroup = o / p.out_per_bgroup;
      const int64_t in_b = bgroup * p.out_batch + b;
      const T* xb = x.data() + in_b * p.in_spatial * p.in_features +
                    fgroup * p.group_features;
      const T* wo = w.data() + o * p.kernel_spatial * p.group_features;
      const int64_t base = b * p.out_batch_stride + o * p.out_feature_stride;
      for (int64_t s = 0; s < p.out_spatial; ++s) {
        body(base + p.out_spatial_offset[s], xb, wo,
             p.pairs.data() + p.pair_start[s],
             p.pairs.data() + p.pair_start[s + 1]);
      }
    }
  }
  return absl::OkStatus();
}

template <bool kExactInDouble>
inline void AddProductTo(ExactSum& acc, double a, double b) {
  if constexpr (kExactInDouble) {
    acc.Add(a * b);
  } else {
    acc.AddProduct(a, b);
  }
}

// Blocks of consecutive output features that share their feature group
// and batch group (so they read the same input features of the same input
// batch), at most `nb` features each.
std::vector<std::pair<int64_t, int64_t>> FeatureBlocks(const ConvPlan& p,
                                                       int64_t nb) {
  std::vector<std::pair<int64_t, int64_t>> blocks;
  int64_t o = 0;
  while (o < p.out_features) {
    const int64_t fend = (o / p.out_per_fgroup + 1) * p.out_per_fgroup;
    const int64_t bend = (o / p.out_per_bgroup + 1) * p.out_per_bgroup;
    const int64_t end = std::min({fend, bend, o + nb, p.out_features});
    blocks.emplace_back(o, end - o);
    o = end;
  }
  return blocks;
}

// Real results. Outputs are computed by tasks of (output batch, block of
// output features, chunk of output spatial positions); every output is its
// own exact (or verified) sum, so the split across threads cannot change a
// bit. With the verified two-sum (fast_round.h, as dot: exact products,
// results of at most 26 bits) the chain runs across the block's output
// features, with the kernel packed [window position][input feature][output
// feature] so the innermost loop is contiguous and vectorises (plain sums
// with a priori bound first, Sum4 in fast_round.h); outputs the bounds
// cannot decide, and every output without the fast path, are summed
// by ExactSum as before.
template <bool kExact>
absl::Status RealConv(const HloInstruction& inst, EvalContext& ctx,
                      const ConvPlan& p, const std::vector<double>& x,
                      const std::vector<double>& w, PrimitiveType rt,
                      bool error_data, bool rounded,
                      std::vector<double>* values) {
  const FloatFormat& format = FormatOf(rt);
  const int precision = Precision(format);
  const int emin = std::ilogb(MinNormal(format));
  const int64_t cg = p.group_features;
  const int64_t kt = p.kernel_spatial * cg;  // kernel terms per output feature
  const bool fast = kExact && !error_data && precision <= 26 &&
                    !DotFastPathDisabledForTesting();
  const FastRounding rounding{precision, emin, MaxFinite(format)};
  // Output features per block: a multiple of 4 (the two-sum's vector
  // width), the block's kernel at most about 2 MiB.
  const int64_t nb =
      4 * std::clamp<int64_t>(65536 / std::max<int64_t>(kt, 1), 1, 16);
  const std::vector<std::pair<int64_t, int64_t>> blocks = FeatureBlocks(p, nb);
  const int64_t nblocks = static_cast<int64_t>(blocks.size());
  // The kernel of block i, k-major: bt[i][t * nb + jj] = w[o0 + jj][t].
  std::vector<double> bt;
  if (fast) {
    bt.assign(static_cast<size_t>(nblocks * kt * nb), 0.0);
    for (int64_t i = 0; i < nblocks; ++i) {
      double* dst = bt.data() + i * kt * nb;
      for (int64_t jj = 0; jj < blocks[i].second; ++jj) {
        const double* src = w.data() + (blocks[i].first + jj) * kt;
        for (int64_t t = 0; t < kt; ++t) dst[t * nb + jj] = src[t];
      }
    }
  }
  const int64_t chunk = 16;
  const int64_t chunks = (p.out_spatial + chunk - 1) / chunk;
  const int64_t tasks = p.out_batch * nblocks * chunks;
  const double work = static_cast<double>(values->size()) *
                      static_cast<double>(std::max<int64_t>(kt, 1));
  // Error data goes through the context, which is not shared across
  // threads.
  const int threads =
      (error_data || work < (1 << 20)) ? 1 : ctx.options().threads;
  const int workers = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(ResolveThreads(threads), tasks)));
  struct Worker {
    ExactSum acc, abs_acc;
    std::vector<double> sums, comps, abss, rounded;
  };
  std::vector<Worker> state(static_cast<size_t>(workers));
  absl::Status status = ParallelForChecked(
      workers, tasks, [&] { return ctx.CheckDeadline(inst); },
      [&](int64_t task, int wk) {
        Worker& me = state[static_cast<size_t>(wk)];
        const int64_t b = task / (nblocks * chunks);
        const int64_t block = (task / chunks) % nblocks;
        const int64_t s0 = (task % chunks) * chunk;
        const int64_t s1 = std::min(p.out_spatial, s0 + chunk);
        const int64_t o0 = blocks[block].first;
        const int64_t cols = blocks[block].second;
        // Seed: output features are split into consecutive groups; feature
        // group g reads input features [g*Cg, (g+1)*Cg), batch group h reads
        // input batch h*out_batch + b. A block lies in one of each.
        const int64_t fgroup = o0 / p.out_per_fgroup;
        const int64_t bgroup = o0 / p.out_per_bgroup;
        const int64_t in_b = bgroup * p.out_batch + b;
        const double* xb = x.data() + in_b * p.in_spatial * p.in_features +
                           fgroup * p.group_features;
        // Only the fast path packs the kernel: without it bt is empty, and
        // an offset from its null data() is undefined (UBSan: "applying
        // non-zero offset to null pointer").
        const double* bblock = fast ? bt.data() + block * kt * nb : nullptr;
        me.sums.resize(static_cast<size_t>(nb));
        me.comps.resize(static_cast<size_t>(nb));
        me.abss.resize(static_cast<size_t>(nb));
        me.rounded.resize(static_cast<size_t>(nb));
        double* ss = me.sums.data();
        double* rs = me.rounded.data();
        double* cs = me.comps.data();
        double* as = me.abss.data();
        for (int64_t sp = s0; sp < s1; ++sp) {
          const std::pair<int64_t, int64_t>* begin =
              p.pairs.data() + p.pair_start[sp];
          const std::pair<int64_t, int64_t>* end =
              p.pairs.data() + p.pair_start[sp + 1];
          const int64_t terms = (end - begin) * cg;
          const bool try_fast = fast && terms > 0 && terms < (int64_t{1} << 20);
          if (try_fast) {
            // Output features in registers, four per group; the block's
            // kernel is zero-padded to nb features. First the plain sums
            // (Sum4), then for a group with an output they cannot decide
            // the two-sum; what neither decides is NaN in rs and goes to
            // ExactSum below. `finish` does that for one group.
            auto finish = [&](int64_t j0, const Sum4& plain) {
              const int64_t lanes = std::min<int64_t>(4, cols - j0);
              Sum4Store(plain, lanes, ss + j0, as + j0);
              bool undecided = false;
              for (int64_t jj = j0; jj < j0 + lanes; ++jj) {
                rs[jj] = VerifiedRoundPlain(ss[jj], as[jj], terms, rounding);
                undecided |= std::isnan(rs[jj]);
              }
              if (!undecided) return;
              TwoSum4 st;
              for (auto* q = begin; q != end; ++q) {
                TwoSum4Segment(st, xb + q->first * p.in_features,
                               bblock + q->second * cg * nb + j0, cg, nb);
              }
              TwoSum4Store(st, lanes, ss + j0, cs + j0, as + j0);
              for (int64_t jj = j0; jj < j0 + lanes; ++jj) {
                if (std::isnan(rs[jj])) {
                  rs[jj] =
                      VerifiedRound(ss[jj], cs[jj], as[jj], terms, rounding);
                }
              }
            };
            // Sixteen features per pass where the (zero-padded) block has
            // them, four otherwise.
            int64_t j0 = 0;
            for (; j0 + 16 <= nb && j0 < cols; j0 += 16) {
              Sum4 plain[4];
              for (auto* q = begin; q != end; ++q) {
                Sum16Segment(plain, xb + q->first * p.in_features,
                             bblock + q->second * cg * nb + j0, cg, nb);
              }
              for (int64_t g = 0; g < 4 && j0 + 4 * g < cols; ++g) {
                finish(j0 + 4 * g, plain[g]);
              }
            }
            for (; j0 < cols; j0 += 4) {
              Sum4 plain;
              for (auto* q = begin; q != end; ++q) {
                Sum4Segment(plain, xb + q->first * p.in_features,
                            bblock + q->second * cg * nb + j0, cg, nb);
              }
              finish(j0, plain);
            }
          }
          const int64_t base =
              b * p.out_batch_stride + p.out_spatial_offset[sp];
          for (int64_t jj = 0; jj < cols; ++jj) {
            const int64_t o = o0 + jj;
            const int64_t out = base + o * p.out_feature_stride;
            if (try_fast) {
              const double r = rs[jj];
              if (!std::isnan(r)) {
                (*values)[out] = r;
                continue;
              }
            }
            const double* wo = w.data() + o * kt;
            me.acc.Clear();
            for (auto* q = begin; q != end; ++q) {
              const double* xs = xb + q->first * p.in_features;
              const double* ws = wo + q->second * cg;
              if constexpr (kExact) {
                me.acc.AddExactProducts(xs, ws, cg);
              } else {
                for (int64_t c = 0; c < cg; ++c)
                  me.acc.AddProduct(xs[c], ws[c]);
              }
            }
            (*values)[out] = me.acc.Round(precision, emin);
            if (error_data) {
              me.abs_acc.Clear();
              for (auto* q = begin; q != end; ++q) {
                const double* xs = xb + q->first * p.in_features;
                const double* ws = wo + q->second * cg;
                for (int64_t c = 0; c < cg; ++c) {
                  AddProductTo<kExact>(me.abs_acc, std::fabs(xs[c]),
                                       std::fabs(ws[c]));
                }
              }
              ctx.SetErrorData(0, out, me.abs_acc.RoundUpToDouble(),
                               AccumulationSteps(terms, rounded));
            }
          }
        }
        return true;
      });
  return status;
}

template <bool kExact>
absl::Status ComplexConv(const HloInstruction& inst, EvalContext& ctx,
                         const ConvPlan& p,
                         const std::vector<std::complex<double>>& x,
                         const std::vector<std::complex<double>>& w,
                         PrimitiveType component, bool error_data, bool rounded,
                         std::vector<std::complex<double>>* values) {
  ExactSum re, im, abs_acc;
  const FloatFormat& format = FormatOf(component);
  const int precision = Precision(format);
  const int emin = std::ilogb(MinNormal(format));
  const int64_t cg = p.group_features;
  return ForEachOutput<std::complex<double>>(
      inst, ctx, p, x, w,
      [&](int64_t out, const std::complex<double>* xb,
          const std::complex<double>* wo,
          const std::pair<int64_t, int64_t>* begin,
          const std::pair<int64_t, int64_t>* end) {
        re.Clear();
        im.Clear();
        for (auto* q = begin; q != end; ++q) {
          const std::complex<double>* xs = xb + q->first * p.in_features;
          const std::complex<double>* ws = wo + q->second * cg;
          for (int64_t c = 0; c < cg; ++c) {
            const double ar = xs[c].real(), ai = xs[c].imag();
            const double br = ws[c].real(), bi = ws[c].imag();
            AddProductTo<kExact>(re, ar, br);
            AddProductTo<kExact>(re, -ai, bi);
            AddProductTo<kExact>(im, ar, bi);
            AddProductTo<kExact>(im, ai, br);
          }
        }
        (*values)[out] = {re.Round(precision, emin), im.Round(precision, emin)};
        if (error_data) {
          abs_acc.Clear();
          for (auto* q = begin; q != end; ++q) {
            const std::complex<double>* xs = xb + q->first * p.in_features;
            const std::complex<double>* ws = wo + q->second * cg;
            for (int64_t c = 0; c < cg; ++c) {
              const double ar = std::fabs(xs[c].real()),
                           ai = std::fabs(xs[c].imag());
              const double br = std::fabs(ws[c].real()),
                           bi = std::fabs(ws[c].imag());
              AddProductTo<kExact>(abs_acc, ar, br);
              AddProductTo<kExact>(abs_acc, ai, bi);
              AddProductTo<kExact>(abs_acc, ar, bi);
              AddProductTo<kExact>(abs_acc, ai, br);
            }
          }
          ctx.SetErrorData(0, out, abs_acc.RoundUpToDouble(),
                           AccumulationSteps(2 * (end - begin) * cg, rounded));
        }
      });
}

}  // namespace

// Semantics: seed 001 "ConvWithGeneralPadding (convolution)": for each
// output (b, o, spatial), the sum over the in-bounds window positions and
// the input features of o's feature group of input * kernel. Window
// position w along a spatial dimension reads the base-dilated, padded
// input at o*stride + w*rhs_dilate - pad_low (negative padding removes
// elements), and pairs with kernel element w (size-1-w when reversed).
// Groups (feature_group_count, batch_group_count): consecutive splits of
// the output features, as the seed describes.
// pred operands (seed 001 is silent; impl.convolution.1, as XLA:CPU): a
// pred result is the OR of (lhs AND rhs) over the same terms; other
// results count the true products (true = 1) in the result type.
absl::StatusOr<Literal> EvalConvolution(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  if (inst.opcode() != HloOpcode::kConvolution) {
    return InstructionUnimplemented(
        inst, absl::StrCat("the interpreter does not implement ",
                           HloOpcodeString(inst.opcode()), " yet"));
  }
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 2, 2));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[0], 0));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[1], 1));
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const ConvolutionDimensionNumbers& dn =
      inst.attrs().convolution_dimension_numbers;
  HLOREF_ASSIGN_OR_RETURN(ConvPlan plan,
                          MakePlan(inst, lhs.shape(), rhs.shape()));
  const Shape& shape = inst.shape();
  const PrimitiveType rt = shape.element_type();
  const PrimitiveType lt = lhs.element_type();
  const PrimitiveType kt = rhs.element_type();
  const int64_t count = shape.num_elements();
  const bool error_data = ctx.options().compute_error_data;
  const bool rounded = ProductsRounded(lt, kt, rt);
  const bool exact_in_double =
      OperandPrecision(lt) + OperandPrecision(kt) <= 53;

  if (IsFloat(rt)) {
    if (IsComplex(lt) || IsComplex(kt)) {
      return InstructionUnimplemented(
          inst, "complex operands with a real result are not supported");
    }
    HLOREF_ASSIGN_OR_RETURN(std::vector<double> x0, LoadReal(inst, lhs));
    HLOREF_ASSIGN_OR_RETURN(std::vector<double> w0, LoadReal(inst, rhs));
    const std::vector<double> x = PackInput(x0, lhs.shape(), dn);
    const std::vector<double> w = PackKernel(w0, rhs.shape(), dn);
    std::vector<double> values(static_cast<size_t>(count), 0.0);
    if (exact_in_double) {
      HLOREF_RETURN_IF_ERROR(RealConv<true>(inst, ctx, plan, x, w, rt,
                                            error_data, rounded, &values));
    } else {
      HLOREF_RETURN_IF_ERROR(RealConv<false>(inst, ctx, plan, x, w, rt,
                                             error_data, rounded, &values));
    }
    return StoreDoublesReusing(shape, values, ctx);
  }
  if (IsComplex(rt)) {
    HLOREF_ASSIGN_OR_RETURN(std::vector<std::complex<double>> x0,
                            LoadAsComplex(inst, lhs));
    HLOREF_ASSIGN_OR_RETURN(std::vector<std::complex<double>> w0,
                            LoadAsComplex(inst, rhs));
    const std::vector<std::complex<double>> x = PackInput(x0, lhs.shape(), dn);
    const std::vector<std::complex<double>> w = PackKernel(w0, rhs.shape(), dn);
    std::vector<std::complex<double>> values(static_cast<size_t>(count));
    const PrimitiveType ct = ComplexComponentType(rt);
    if (exact_in_double) {
      HLOREF_RETURN_IF_ERROR(ComplexConv<true>(inst, ctx, plan, x, w, ct,
                                               error_data, rounded, &values));
    } else {
      HLOREF_RETURN_IF_ERROR(ComplexConv<false>(inst, ctx, plan, x, w, ct,
                                                error_data, rounded, &values));
    }
    return StoreComplex(shape, values);
  }
  if (IsInteger(rt) || IsPred(rt)) {
    if (!(IsInteger(lt) || IsPred(lt)) || !(IsInteger(kt) || IsPred(kt))) {
      return InstructionUnimplemented(
          inst, absl::StrCat("operands ", PrimitiveTypeName(lt), " and ",
                             PrimitiveTypeName(kt),
                             " with an integer result are not supported"));
    }
    HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> x0, LoadInts(lhs));
    HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> w0, LoadInts(rhs));
    const std::vector<int64_t> x = PackInput(x0, lhs.shape(), dn);
    const std::vector<int64_t> w = PackKernel(w0, rhs.shape(), dn);
    std::vector<int64_t> values(static_cast<size_t>(count), 0);
    const bool pred = IsPred(rt);
    const int64_t cg = plan.group_features;
    HLOREF_RETURN_IF_ERROR(ForEachOutput<int64_t>(
        inst, ctx, plan, x, w,
        [&](int64_t out, const int64_t* xb, const int64_t* wo,
            const std::pair<int64_t, int64_t>* begin,
            const std::pair<int64_t, int64_t>* end) {
          uint64_t sum = 0;
          bool any = false;
          for (auto* q = begin; q != end; ++q) {
            const int64_t* xs = xb + q->first * plan.in_features;
            const int64_t* ws = wo + q->second * cg;
            for (int64_t c = 0; c < cg; ++c) {
              // Two's-complement wrap in the result width (XLA profile);
              // a pred result ORs the ANDs (impl.convolution.1).
              sum +=
                  static_cast<uint64_t>(xs[c]) * static_cast<uint64_t>(ws[c]);
              any = any || (xs[c] != 0 && ws[c] != 0);
            }
          }
          values[out] = pred ? (any ? 1 : 0) : static_cast<int64_t>(sum);
        }));
    return StoreInts(shape, values);
  }
  return InstructionUnimplemented(
      inst,
      absl::StrCat("result type ", PrimitiveTypeName(rt), " is not supported"));
}

}  // namespace hloref
