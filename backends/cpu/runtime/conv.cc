// The convolution runtime's driver: the problem as a GEMM per group, the
// filter packing, the per-strip row-pointer tables, the blocked loop nest,
// the range guard and its wide fallback, threads (design: conv.h and
// docs/cpu-kernels.md "Convolution").
//
// Loop nest of one work item (a group, a block of output rows M and a block
// of output-feature panels; items are split across the thread pool):
//   for each channel chunk q (the filter block [taps x cc x nc] in L2):
//     for each strip of 6 output rows:
//       row pointers [tap][6] into the input (zero row where the window
//       falls on padding or a dilation hole)
//       for each NR-wide panel: microkernel on C[6 x NR]
// Each output element is one FMA chain over (q, tap, channel) in that
// order (the kernel continues C's value across chunks), whatever the item
// split or the thread count.
#include "backends/cpu/runtime/conv.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "backends/cpu/runtime/gemm.h"
#include "backends/cpu/runtime/kernel_support.h"
#include "backends/cpu/runtime/thread_pool.h"
#include "spec/types/minifloat.h"

namespace hloref::cpu {
namespace {

using conv::ConvKernels;
using conv::kConvMr;
using kernel_support::BalancedBlocks;
using kernel_support::Bits;
using kernel_support::CacheBytes;
using kernel_support::CeilDiv;
using kernel_support::EnvInt;
using kernel_support::FastPathSafe;
using kernel_support::IsNarrowFloat;
using kernel_support::Loader;
using kernel_support::MakeLoader;
using kernel_support::NarrowTable;
using kernel_support::Parallel;
using kernel_support::PrimitiveTypeOf;
using kernel_support::RoundUp;
using kernel_support::Scratch;
using kernel_support::Stats;
using kernel_support::StoreOut;

constexpr int64_t kDescVersion = 1;
constexpr int64_t kMaxSpatial = 8;

thread_local const char* last_path = "empty";

// ---- the problem

struct Problem {
  ConvDims d;
  bool f64 = false;
  int64_t nsp = 0;
  int64_t groups = 1, cg = 0, ng = 0, ntaps = 1, m = 0, k = 0;
  int64_t out_spatial = 1;  // product of the output spatial sizes
  // Per tap (row-major over the kernel's spatial dimensions): the kernel
  // element offset (reversal applied) and the window offset per dimension
  // (w_d * window_dilation).
  std::vector<int64_t> tap_kernel, tap_shift;
  std::vector<int64_t> dilated;    // (input_size - 1) * base_dilation + 1
  std::vector<int64_t> max_shift;  // (kernel_size - 1) * window_dilation
  bool interior_ok = true;         // no lhs dilation
  bool depthwise = false;
  // Blocking (the GEMM path).
  int64_t nr = 64, panels = 1, nc_panels = 1, n_blocks = 1;
  int64_t cc = 1, chunks = 1;
  int64_t m_chunk = 6, m_blocks = 1;
  bool direct_c = false;
  int64_t items() const { return groups * m_blocks * n_blocks; }
};

absl::StatusOr<Problem> MakeProblem(const ConvDims& d, int threads) {
  Problem p;
  p.d = d;
  if (!ConvPathFor(d.input_type, d.kernel_type, d.output_type)) {
    return absl::UnimplementedError(absl::StrCat(
        "convolution runtime: no path for ", PrimitiveTypeName(d.input_type),
        " x ", PrimitiveTypeName(d.kernel_type), " -> ",
        PrimitiveTypeName(d.output_type)));
  }
  p.f64 = d.output_type == PrimitiveType::kF64;
  p.nsp = static_cast<int64_t>(d.spatial.size());
  if (p.nsp > kMaxSpatial) {
    return absl::UnimplementedError(
        "convolution runtime: more than 8 spatial dimensions");
  }
  const int64_t fgc = d.feature_group_count, bgc = d.batch_group_count;
  bool ok = fgc >= 1 && bgc >= 1 && d.input_batch >= 0 &&
            d.input_feature >= 0 && d.kernel_input_feature >= 0 &&
            d.kernel_output_feature >= 0 && d.output_batch >= 0 &&
            d.output_feature == d.kernel_output_feature;
  if (ok) {
    ok = d.input_feature == d.kernel_input_feature * fgc &&
         d.output_feature % fgc == 0 && d.output_feature % bgc == 0 &&
         d.input_batch == d.output_batch * bgc;
  }
  for (const ConvDims::Spatial& s : d.spatial) {
    ok = ok && s.input_size >= 0 && s.kernel_size >= 0 && s.output_size >= 0 &&
         s.stride >= 1 && s.base_dilation >= 1 && s.window_dilation >= 1;
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        "convolution runtime: dimensions do not describe a convolution");
  }
  if (fgc > 1 && bgc > 1) {
    return absl::UnimplementedError(
        "convolution runtime: feature and batch groups together");
  }
  p.groups = fgc * bgc;
  p.cg = d.kernel_input_feature;
  p.ng = d.output_feature / p.groups;
  p.out_spatial = 1;
  p.ntaps = 1;
  for (const ConvDims::Spatial& s : d.spatial) {
    p.out_spatial *= s.output_size;
    p.ntaps *= s.kernel_size;
    p.dilated.push_back(
        s.input_size == 0 ? 0 : (s.input_size - 1) * s.base_dilation + 1);
    p.max_shift.push_back(std::max<int64_t>(s.kernel_size - 1, 0) *
                          s.window_dilation);
    p.interior_ok = p.interior_ok && s.base_dilation == 1;
  }
  p.m = d.output_batch * p.out_spatial;
  p.k = p.ntaps * p.cg;
  p.tap_kernel.assign(p.ntaps, 0);
  p.tap_shift.assign(p.ntaps * p.nsp, 0);
  for (int64_t t = 0; t < p.ntaps; ++t) {
    int64_t rem = t;
    for (int64_t dd = p.nsp - 1; dd >= 0; --dd) {
      const ConvDims::Spatial& s = d.spatial[dd];
      const int64_t w = rem % s.kernel_size;
      rem /= s.kernel_size;
      const int64_t kw = s.reversal ? s.kernel_size - 1 - w : w;
      p.tap_kernel[t] += kw * s.kernel_stride;
      p.tap_shift[t * p.nsp + dd] = w * s.window_dilation;
    }
  }
  const int64_t eb = p.f64 ? 8 : 4;
  const PrimitiveType acc_type =
      p.f64 ? PrimitiveType::kF64 : PrimitiveType::kF32;
  p.depthwise = fgc > 1 && p.cg == 1 && p.ng == 1;
  p.direct_c = d.output_type == acc_type &&
               (d.output_feature_stride == 1 || d.output_feature <= 1);
  // Blocking: N blocks of at most 4 panels; channel chunks so that the
  // filter block [taps x cc x nc] takes at most half the L2
  // (HLOREF_CPU_CONV_L2 overrides the L2 size: tuning and tests).
  p.nr = p.f64 ? conv::kConvNrF64 : conv::kConvNrF32;
  p.panels = std::max<int64_t>(1, CeilDiv(p.ng, p.nr));
  p.nc_panels = std::min<int64_t>(p.panels, 4);
  p.n_blocks = CeilDiv(p.panels, p.nc_panels);
  p.nc_panels = CeilDiv(p.panels, p.n_blocks);
  const int64_t l2 =
      EnvInt("HLOREF_CPU_CONV_L2", CacheBytes(_SC_LEVEL2_CACHE_SIZE, 1 << 20));
  const int64_t cc_max = std::max<int64_t>(
      1, (l2 / 2) / std::max<int64_t>(1, p.ntaps * p.nc_panels * p.nr * eb));
  p.chunks = std::max<int64_t>(1, CeilDiv(p.cg, cc_max));
  p.cc = std::max<int64_t>(1, CeilDiv(p.cg, p.chunks));
  p.chunks = std::max<int64_t>(1, CeilDiv(p.cg, p.cc));
  // M blocks: at most 768 rows (bounds the C scratch), and enough items for
  // the threads (>= 2 per thread when blocks keep >= 48 rows).
  const int64_t base = p.depthwise ? 1 : p.groups * p.n_blocks;
  int64_t m_blocks = CeilDiv(std::max<int64_t>(p.m, 1), 768);
  if (threads > 1 && base < 2 * threads) {
    m_blocks = std::max(m_blocks, CeilDiv(2 * threads, base));
  }
  m_blocks = BalancedBlocks(m_blocks, base, threads, p.m / 48);
  p.m_chunk = RoundUp(CeilDiv(std::max<int64_t>(p.m, 1), m_blocks), kConvMr);
  p.m_blocks = std::max<int64_t>(1, CeilDiv(p.m, p.m_chunk));
  return p;
}

// ---- the input as the kernels read it: channels contiguous, every other
// dimension by its stride (the buffer itself when it already is that, in
// the accumulation type; otherwise a converted copy).

template <typename T>
struct Input {
  const T* base = nullptr;
  int64_t batch_stride = 0;
  int64_t sp_stride[kMaxSpatial] = {};
  // In place: the range guard scans each input position (row_len features)
  // the first time a strip reads it (while the kernel is about to read it
  // anyway: no separate pass over memory), `seen` marking the positions
  // done; the buffer is dense with the features minor, so offset / row_len
  // numbers the positions. Null for a converted copy (scanned while
  // copying).
  std::atomic<uint8_t>* seen = nullptr;
  int64_t row_len = 1;
  int row_shift = -1;  // log2(row_len) when a power of two
  // Per tap, the offset of its input row from the window's origin (without
  // lhs dilation), for the strips' interior rows.
  std::vector<int64_t> tap_off;
};

// Scans the positions of `rows` not scanned yet (see Input::seen). With
// `flags`, scans nothing but sets flags[i] for the rows to scan (the tile
// scans them, conv_kernels.h) and returns whether there is one.
template <typename T>
bool ScanRows(const Input<T>& in, const T* const* rows, int64_t n,
              const T* zero, const gemm::GemmKernels& k, Stats<T>& stats,
              uint8_t* flags = nullptr) {
  if (in.seen == nullptr) return false;
  if (flags != nullptr) {
    bool any = false;
    for (int64_t i = 0; i < n; ++i) {
      flags[i] = 0;
      const T* r = rows[i];
      if (r == zero) continue;
      const int64_t diff = r - in.base;
      std::atomic<uint8_t>& seen =
          in.seen[in.row_shift >= 0 ? diff >> in.row_shift : diff / in.row_len];
      if (seen.load(std::memory_order_relaxed) != 0) continue;
      seen.store(1, std::memory_order_relaxed);
      flags[i] = 1;
      any = true;
    }
    return any;
  }
  // Unseen rows that follow each other in memory are scanned by one call
  // (a strip's rows usually do: consecutive positions along the last
  // dimension). One call per row cost ~50 cycles of setup and horizontal
  // reduction per 1 KiB row (the 1x1 layer's 3,136 rows).
  const T* run = nullptr;
  int64_t run_len = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T* r = rows[i];
    if (r == zero) continue;
    const int64_t diff = r - in.base;
    std::atomic<uint8_t>& seen =
        in.seen[in.row_shift >= 0 ? diff >> in.row_shift : diff / in.row_len];
    if (seen.load(std::memory_order_relaxed) != 0) continue;
    seen.store(1, std::memory_order_relaxed);
    if (run != nullptr && r == run + run_len) {
      run_len += in.row_len;
      continue;
    }
    if (run != nullptr) stats.Scan(k, run, run_len);
    run = r;
    run_len = in.row_len;
  }
  if (run != nullptr) stats.Scan(k, run, run_len);
  return false;
}

struct Shared {
  const Problem* p;
  const ConvKernels* kernels;
  RunContext* ctx;
  const void* input;
  const void* kernel;
  void* output;
  std::mutex mu;
  bool failed_alloc = false;
};

// Where the next strip starts: the output index of row `next` (batch b,
// spatial idx), so that a strip that follows the previous one is found
// without dividing (StripRows). A fresh cursor, or one left at another
// row, decomposes its row once.
struct StripCursor {
  int64_t next = -1;
  int64_t b = 0;
  int64_t idx[kMaxSpatial] = {};
};

// Row pointers of one strip of output rows [m0, m0 + mr): rows[t * 6 + r]
// is the input row (channel 0 of the group's batch) of row r under tap t,
// or `zero` off the input; coff[r] the row's output offset. Leaves `cur`
// at row m0 + mr. A strip of six interior rows fills its table without a
// test per entry.
template <typename T>
void StripRows(const Problem& p, const Input<T>& in, const T* zero,
               int64_t batch_off, int64_t m0, int mr, const T** rows,
               int64_t* coff, StripCursor& cur) {
  const ConvDims& d = p.d;
  const int64_t nsp = p.nsp;
  const T* const ibase = in.base;
  const int64_t* const tap_off = in.tap_off.data();
  const int64_t* const tap_shift = p.tap_shift.data();
  if (cur.next != m0) {
    int64_t b = m0;
    for (int64_t dd = nsp - 1; dd >= 0; --dd) {
      cur.idx[dd] = b % d.spatial[dd].output_size;
      b /= d.spatial[dd].output_size;
    }
    cur.b = b;
  }
  int64_t boff[kConvMr];
  int64_t base[kConvMr][kMaxSpatial];
  // Interior rows (every tap inside the input, no lhs dilation) take
  // origin + tap_off[t] without per-dimension tests.
  bool interior[kConvMr];
  bool all_interior = mr == kConvMr;
  int64_t origin[kConvMr];
  int64_t* const idx = cur.idx;
  int64_t b = cur.b;
  for (int r = 0; r < mr; ++r) {
    int64_t co = b * d.output_batch_stride;
    bool in_r = p.interior_ok;
    boff[r] = batch_off + b * in.batch_stride;
    int64_t o = boff[r];
    for (int64_t dd = 0; dd < nsp; ++dd) {
      const ConvDims::Spatial& s = d.spatial[dd];
      const int64_t pos = idx[dd] * s.stride - s.padding_low;
      base[r][dd] = pos;
      co += idx[dd] * s.output_stride;
      in_r = in_r && pos >= 0 && pos + p.max_shift[dd] < p.dilated[dd];
      o += pos * in.sp_stride[dd];
    }
    interior[r] = in_r;
    all_interior = all_interior && in_r;
    origin[r] = o;
    coff[r] = co;
    int64_t dd = nsp - 1;
    for (; dd >= 0; --dd) {
      if (++idx[dd] < d.spatial[dd].output_size) break;
      idx[dd] = 0;
    }
    if (dd < 0) ++b;
  }
  cur.b = b;
  cur.next = m0 + mr;
  if (all_interior) {
    for (int64_t t = 0; t < p.ntaps; ++t) {
      const T* const o = ibase + tap_off[t];
      const T** trow = rows + t * kConvMr;
      for (int r = 0; r < kConvMr; ++r) trow[r] = o + origin[r];
    }
    return;
  }
  for (int64_t t = 0; t < p.ntaps; ++t) {
    const int64_t* shift = tap_shift + t * nsp;
    const T** trow = rows + t * kConvMr;
    for (int r = 0; r < kConvMr; ++r) {
      if (r >= mr) {
        trow[r] = zero;
        continue;
      }
      if (interior[r]) {
        trow[r] = ibase + origin[r] + tap_off[t];
        continue;
      }
      int64_t off = boff[r];
      bool valid = true;
      for (int64_t dd = 0; dd < nsp && valid; ++dd) {
        int64_t pos = base[r][dd] + shift[dd];
        const int64_t ld = d.spatial[dd].base_dilation;
        if (pos < 0 || pos >= p.dilated[dd]) {
          valid = false;
        } else if (ld > 1) {
          if (pos % ld != 0) {
            valid = false;
          } else {
            pos /= ld;
          }
        }
        off += pos * in.sp_stride[dd];
      }
      trow[r] = valid ? ibase + off : zero;
    }
  }
}

// The group's input batch offset and first input channel.
template <typename T>
void GroupInput(const Problem& p, const Input<T>& in, int64_t g,
                int64_t* batch_off, int64_t* ci0) {
  const bool bgroups = p.d.batch_group_count > 1;
  *batch_off = bgroups ? g * p.d.output_batch * in.batch_stride : 0;
  *ci0 = bgroups ? 0 : g * p.cg;
}

template <typename T>
void KernelCall(const ConvKernels& k, int64_t ntaps, int64_t kc,
                const T* const* rows, int64_t a_off, const T* b,
                T* const* c_rows, int mr, int nr, bool accumulate,
                const uint8_t* scan, typename Bits<T>::U* stats) {
  if constexpr (std::is_same_v<T, float>) {
    k.f32(ntaps, kc, rows, a_off, b, c_rows, mr, nr, accumulate, scan, stats);
  } else {
    k.f64(ntaps, kc, rows, a_off, b, c_rows, mr, nr, accumulate, scan, stats);
  }
}

// The implicit-GEMM items (see the file comment).
template <typename T>
void RunGemmItems(Shared& sh, const Input<T>& in, const T* zero, const T* bpack,
                  Stats<T>* input_stats, int64_t item_begin, int64_t item_end) {
  const Problem& p = *sh.p;
  const int64_t nr_full = p.nr;
  const int64_t ldc = p.nc_panels * nr_full;
  Scratch rows_buf(p.ntaps * kConvMr * static_cast<int64_t>(sizeof(T*)));
  Scratch c_buf(p.direct_c ? 64 : p.m_chunk * ldc * int64_t{sizeof(T)});
  if (rows_buf.p == nullptr || c_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  const T** rows = static_cast<const T**>(rows_buf.p);
  T* scratch = static_cast<T*>(c_buf.p);
  T* out = static_cast<T*>(sh.output);
  const int64_t ofs = p.d.output_feature_stride;
  Stats<T> sa;
  // The range guard's scan of a strip's new input rows runs inside the
  // first tile that reads them (conv_kernels.h) when that tile reads whole
  // rows: one channel chunk covering every input feature (no feature
  // groups). Otherwise ScanRows scans them before the tiles.
  const bool tile_scan =
      in.seen != nullptr && p.chunks == 1 && p.cg == in.row_len && p.cc == p.cg;
  std::vector<uint8_t> flags(
      static_cast<size_t>(tile_scan ? p.ntaps * kConvMr : 0));
  typename Bits<T>::U tile_stats[2] = {sa.max_abs, sa.min_nz_minus1};
  for (int64_t item = item_begin; item < item_end; ++item) {
    const int64_t ni = item % p.n_blocks;
    const int64_t mi = (item / p.n_blocks) % p.m_blocks;
    const int64_t g = item / (p.n_blocks * p.m_blocks);
    const int64_t m0 = mi * p.m_chunk, m1 = std::min(p.m, m0 + p.m_chunk);
    const int64_t p0 = ni * p.nc_panels;
    const int64_t p1 = std::min(p.panels, p0 + p.nc_panels);
    if (m0 >= m1 || p0 >= p1) continue;
    int64_t batch_off, ci0;
    GroupInput(p, in, g, &batch_off, &ci0);
    const int64_t n_base = g * p.ng;  // the group's first output feature
    int64_t coff[kConvMr];
    T* c_rows[kConvMr];
    for (int64_t q = 0; q < p.chunks; ++q) {
      const int64_t k0 = q * p.cc;
      const int64_t kc = std::min(p.cc, p.cg - k0);
      StripCursor cur;
      for (int64_t s0 = m0; s0 < m1; s0 += kConvMr) {
        const int mr = static_cast<int>(std::min<int64_t>(kConvMr, m1 - s0));
        StripRows<T>(p, in, zero, batch_off, s0, mr, rows, coff, cur);
        bool scan_in_tile = false;
        if (q == 0) {
          scan_in_tile =
              ScanRows<T>(in, rows, p.ntaps * kConvMr, zero, *sh.kernels->gemm,
                          sa, tile_scan ? flags.data() : nullptr);
        }
        for (int64_t pi = p0; pi < p1; ++pi) {
          const int nr =
              static_cast<int>(std::min<int64_t>(nr_full, p.ng - pi * nr_full));
          for (int r = 0; r < kConvMr; ++r) {
            c_rows[r] =
                p.direct_c
                    ? (r < mr ? out + coff[r] + (n_base + pi * nr_full) * ofs
                              : nullptr)
                    : scratch + (s0 - m0 + r) * ldc + (pi - p0) * nr_full;
          }
          const T* b =
              bpack + ((g * p.panels + pi) * p.k + k0 * p.ntaps) * nr_full;
          KernelCall<T>(*sh.kernels, p.ntaps, kc, rows, ci0 + k0, b, c_rows, mr,
                        nr, q > 0,
                        scan_in_tile && pi == p0 ? flags.data() : nullptr,
                        tile_stats);
        }
      }
    }
    if (!p.direct_c) {
      const int64_t j0 = p0 * nr_full, j1 = std::min(p.ng, p1 * nr_full);
      StripCursor cur;
      for (int64_t s0 = m0; s0 < m1; s0 += kConvMr) {
        const int mr = static_cast<int>(std::min<int64_t>(kConvMr, m1 - s0));
        StripRows<T>(p, in, zero, batch_off, s0, mr, rows, coff, cur);
        for (int r = 0; r < mr; ++r) {
          const T* src = scratch + (s0 - m0 + r) * ldc;
          for (int64_t j = j0; j < j1; ++j) {
            StoreOut<T>(p.d.output_type, sh.output,
                        coff[r] + (n_base + j) * ofs, src[j - j0]);
          }
        }
      }
    }
  }
  sa.max_abs = std::max(sa.max_abs, tile_stats[0]);
  sa.min_nz_minus1 = std::min(sa.min_nz_minus1, tile_stats[1]);
  std::lock_guard<std::mutex> lock(sh.mu);
  input_stats->Merge(sa);
}

// The depthwise items: rows [m0, m1) x every feature, 6 rows and kDwCols
// features per kernel call. w is the packed filter [tap][feature].
template <typename T>
void RunDepthwiseItems(Shared& sh, const Input<T>& in, const T* zero,
                       const T* w, Stats<T>* input_stats, int64_t item_begin,
                       int64_t item_end) {
  const Problem& p = *sh.p;
  const int64_t channels = p.d.output_feature;
  constexpr int64_t kCols =
      std::is_same_v<T, float> ? conv::kDwColsF32 : conv::kDwColsF64;
  Scratch rows_buf(p.ntaps * kConvMr * static_cast<int64_t>(sizeof(T*)));
  Scratch c_buf(p.direct_c ? 64 : kConvMr * channels * int64_t{sizeof(T)});
  if (rows_buf.p == nullptr || c_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  const T** rows = static_cast<const T**>(rows_buf.p);
  T* scratch = static_cast<T*>(c_buf.p);
  T* out = static_cast<T*>(sh.output);
  const int64_t ofs = p.d.output_feature_stride;
  int64_t coff[kConvMr];
  T* c_rows[kConvMr];
  Stats<T> sa;
  StripCursor cur;
  for (int64_t item = item_begin; item < item_end; ++item) {
    const int64_t m0 = item * p.m_chunk, m1 = std::min(p.m, m0 + p.m_chunk);
    for (int64_t s0 = m0; s0 < m1; s0 += kConvMr) {
      const int mr = static_cast<int>(std::min<int64_t>(kConvMr, m1 - s0));
      StripRows<T>(p, in, zero, 0, s0, mr, rows, coff, cur);
      ScanRows<T>(in, rows, p.ntaps * kConvMr, zero, *sh.kernels->gemm, sa);
      for (int r = 0; r < kConvMr; ++r) {
        c_rows[r] = p.direct_c ? (r < mr ? out + coff[r] : nullptr)
                               : scratch + r * channels;
      }
      for (int64_t c0 = 0; c0 < channels; c0 += kCols) {
        const int nc = static_cast<int>(std::min(kCols, channels - c0));
        if constexpr (std::is_same_v<T, float>) {
          sh.kernels->dw_f32(p.ntaps, rows, c0, w + c0, channels, c_rows, c0,
                             mr, nc);
        } else {
          sh.kernels->dw_f64(p.ntaps, rows, c0, w + c0, channels, c_rows, c0,
                             mr, nc);
        }
      }
      if (!p.direct_c) {
        for (int r = 0; r < mr; ++r) {
          for (int64_t j = 0; j < channels; ++j) {
            StoreOut<T>(p.d.output_type, sh.output, coff[r] + j * ofs,
                        scratch[r * channels + j]);
          }
        }
      }
    }
  }
  std::lock_guard<std::mutex> lock(sh.mu);
  input_stats->Merge(sa);
}

// The depthwise path along output rows (conv_kernels.h DwRowArgs): when
// the last spatial dimension (X) has no lhs dilation. Output rows (batch x
// the other output spatial dimensions) are the work items; per row, one
// input row pointer per outer tap (the taps of the other spatial
// dimensions), null where that tap falls on padding or a hole.
struct DwRowPlan {
  int64_t last = 0;     // X: the last spatial dimension
  int64_t rows = 0;     // output rows
  int64_t n_outer = 1;  // taps of the other spatial dimensions
  int64_t in_rows = 0;  // input rows (batch x other input spatial sizes)
};

DwRowPlan MakeDwRowPlan(const Problem& p) {
  const ConvDims& d = p.d;
  DwRowPlan plan;
  plan.last = p.nsp - 1;
  const ConvDims::Spatial& sx = d.spatial[plan.last];
  plan.rows = d.output_batch;
  plan.in_rows = d.input_batch;
  for (int64_t dd = 0; dd < plan.last; ++dd) {
    plan.rows *= d.spatial[dd].output_size;
    plan.in_rows *= d.spatial[dd].input_size;
  }
  plan.n_outer = sx.kernel_size == 0 ? 0 : p.ntaps / sx.kernel_size;
  return plan;
}

template <typename T>
void DwRowCall(const ConvKernels& k, const conv::DwRowArgs<T>& a) {
  if constexpr (std::is_same_v<T, float>) {
    k.dw_row_f32(a);
  } else {
    k.dw_row_f64(a);
  }
}

template <typename T>
bool DwRow2Available(const ConvKernels& k) {
  if constexpr (std::is_same_v<T, float>) {
    return k.dw_row2_f32 != nullptr;
  } else {
    return k.dw_row2_f64 != nullptr;
  }
}

template <typename T>
void DwRow2Call(const ConvKernels& k, const conv::DwRow2Args<T>& a) {
  if constexpr (std::is_same_v<T, float>) {
    k.dw_row2_f32(a);
  } else {
    k.dw_row2_f64(a);
  }
}

template <typename T>
void RunDepthwiseRowItems(Shared& sh, const DwRowPlan& plan, const Input<T>& in,
                          std::atomic<uint8_t>* row_seen, const T* w,
                          Stats<T>* input_stats, int64_t row_begin,
                          int64_t row_end) {
  const Problem& p = *sh.p;
  const ConvDims& d = p.d;
  const int64_t channels = d.output_feature;
  const int64_t nsp = p.nsp, last = plan.last;
  const ConvDims::Spatial& sx = d.spatial[last];
  const int64_t out_x = sx.output_size;
  Scratch rows_buf(std::max<int64_t>(plan.n_outer, 1) *
                   static_cast<int64_t>(sizeof(T*)));
  Scratch c_buf(p.direct_c ? 64 : out_x * channels * int64_t{sizeof(T)});
  if (rows_buf.p == nullptr || c_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  const T** rows = static_cast<const T**>(rows_buf.p);
  T* scratch = static_cast<T*>(c_buf.p);
  std::vector<uint8_t> scan(static_cast<size_t>(plan.n_outer), 0);
  Stats<T> sa;
  typename conv::DwRowArgs<T>::U stats[2] = {sa.max_abs, sa.min_nz_minus1};
  conv::DwRowArgs<T> a;
  a.scan = row_seen != nullptr ? scan.data() : nullptr;
  a.stats = stats;
  a.n_outer = plan.n_outer;
  a.rows = rows;
  a.w = w;
  a.channels = channels;
  a.kw = sx.kernel_size;
  a.stride = sx.stride;
  a.dilation = sx.window_dilation;
  a.pad = sx.padding_low;
  a.in_x = sx.input_size;
  a.in_sx = in.sp_stride[last];
  a.x0 = 0;
  a.nx = out_x;
  a.out_sx = p.direct_c ? sx.output_stride : channels;
  // The first row's output indices (batch, then dimensions 0 .. last-1);
  // then an odometer.
  int64_t idx[kMaxSpatial] = {};
  int64_t b = row_begin;
  for (int64_t dd = last - 1; dd >= 0; --dd) {
    idx[dd] = b % d.spatial[dd].output_size;
    b /= d.spatial[dd].output_size;
  }
  // Two output rows per call where the two-row kernel applies
  // (conv_kernels.h DwRow2Args): one outer dimension (Y) without lhs
  // dilation, a 3-wide stride-1 undilated window along X, the output
  // written in place.
  const ConvDims::Spatial* sy = p.nsp == 2 ? &d.spatial[0] : nullptr;
  conv::DwRow2Args<T> a2;
  const bool pairs = DwRow2Available<T>(*sh.kernels) && sy != nullptr &&
                     sy->base_dilation == 1 && sx.kernel_size == 3 &&
                     sx.stride == 1 && sx.window_dilation == 1 && p.direct_c &&
                     sy->kernel_size <= 64;
  const T* in2[128];
  int8_t tap2[2][128];
  uint8_t scan2[128];
  if (pairs) {
    a2.in_rows = in2;
    a2.tap[0] = tap2[0];
    a2.tap[1] = tap2[1];
    a2.w = w;
    a2.channels = channels;
    a2.pad = sx.padding_low;
    a2.in_x = sx.input_size;
    a2.in_sx = in.sp_stride[last];
    a2.x0 = 0;
    a2.nx = out_x;
    a2.out_sx = sx.output_stride;
    a2.scan = row_seen != nullptr ? scan2 : nullptr;
    a2.stats = stats;
  }
  for (int64_t r = row_begin; r < row_end; ++r) {
    if (pairs && r + 1 < row_end && idx[0] + 1 < sy->output_size) {
      // Input rows of outputs y and y + 1, merged in increasing position:
      // output 0 reads position y * stride - pad + o * dilation at outer
      // tap o, output 1 the same plus the stride.
      const int64_t base_pos = idx[0] * sy->stride - sy->padding_low;
      int64_t n_in = 0;
      int64_t o0 = 0, o1 = 0;
      const int64_t kh = sy->kernel_size;
      while (o0 < kh || o1 < kh) {
        const int64_t p0 = o0 < kh ? base_pos + o0 * sy->window_dilation
                                   : std::numeric_limits<int64_t>::max();
        const int64_t p1 =
            o1 < kh ? base_pos + sy->stride + o1 * sy->window_dilation
                    : std::numeric_limits<int64_t>::max();
        const int64_t pos = std::min(p0, p1);
        const int t0 = p0 == pos ? static_cast<int>(o0++) : -1;
        const int t1 = p1 == pos ? static_cast<int>(o1++) : -1;
        if (pos < 0 || pos >= sy->input_size) continue;
        in2[n_in] = in.base + b * in.batch_stride + pos * in.sp_stride[0];
        tap2[0][n_in] = static_cast<int8_t>(t0);
        tap2[1][n_in] = static_cast<int8_t>(t1);
        scan2[n_in] = 0;
        const int64_t row_id = b * sy->input_size + pos;
        if (row_seen != nullptr &&
            row_seen[row_id].load(std::memory_order_relaxed) == 0) {
          scan2[n_in] = 1;
          row_seen[row_id].store(1, std::memory_order_relaxed);
        }
        ++n_in;
      }
      a2.n_in = n_in;
      T* out0 = static_cast<T*>(sh.output) + b * d.output_batch_stride +
                idx[0] * sy->output_stride;
      a2.out[0] = out0;
      a2.out[1] = out0 + sy->output_stride;
      DwRow2Call<T>(*sh.kernels, a2);
      idx[0] += 2;
      if (idx[0] == sy->output_size) {
        idx[0] = 0;
        ++b;
      }
      ++r;
      continue;
    }
    int64_t co = b * d.output_batch_stride;
    for (int64_t dd = 0; dd < last; ++dd) {
      co += idx[dd] * d.spatial[dd].output_stride;
    }
    for (int64_t o = 0; o < plan.n_outer; ++o) {
      const int64_t* shift = p.tap_shift.data() + o * sx.kernel_size * nsp;
      int64_t off = b * in.batch_stride, row_id = b;
      bool valid = true;
      for (int64_t dd = 0; dd < last && valid; ++dd) {
        const ConvDims::Spatial& s = d.spatial[dd];
        int64_t pos = idx[dd] * s.stride - s.padding_low + shift[dd];
        if (pos < 0 || pos >= p.dilated[dd] || pos % s.base_dilation != 0) {
          valid = false;
          break;
        }
        pos /= s.base_dilation;
        off += pos * in.sp_stride[dd];
        row_id = row_id * s.input_size + pos;
      }
      rows[o] = valid ? in.base + off : nullptr;
      // The range guard's statistics of an input row not seen yet are
      // taken by the kernel from its own loads (the whole output row reads
      // exactly the positions of the input row that windows read).
      scan[o] = 0;
      if (valid && row_seen != nullptr &&
          row_seen[row_id].load(std::memory_order_relaxed) == 0) {
        scan[o] = 1;
        row_seen[row_id].store(1, std::memory_order_relaxed);
      }
    }
    a.out = p.direct_c ? static_cast<T*>(sh.output) + co : scratch;
    DwRowCall<T>(*sh.kernels, a);
    if (!p.direct_c) {
      for (int64_t x = 0; x < out_x; ++x) {
        for (int64_t c = 0; c < channels; ++c) {
          StoreOut<T>(d.output_type, sh.output,
                      co + x * sx.output_stride + c * d.output_feature_stride,
                      scratch[x * channels + c]);
        }
      }
    }
    int64_t dd = last - 1;
    for (; dd >= 0; --dd) {
      if (++idx[dd] < d.spatial[dd].output_size) break;
      idx[dd] = 0;
    }
    if (dd < 0) ++b;
  }
  sa.max_abs = stats[0];
  sa.min_nz_minus1 = stats[1];
  std::lock_guard<std::mutex> lock(sh.mu);
  input_stats->Merge(sa);
}

// The wide sequential fallback: each element one sum in (tap, channel)
// order in W (double for the f32 path, long double for f64), rounded once.
template <typename T, typename W>
void RunWideRows(Shared& sh, const Input<T>& in, const T* zero,
                 int64_t row_begin, int64_t row_end) {
  const Problem& p = *sh.p;
  const ConvDims& d = p.d;
  const Loader<T> lk = MakeLoader<T>(d.kernel_type, sh.kernel);
  std::vector<const T*> rows(p.ntaps * kConvMr);
  int64_t coff[kConvMr];
  StripCursor cur;
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t g = row / p.m, m = row % p.m;
    int64_t batch_off, ci0;
    GroupInput(p, in, g, &batch_off, &ci0);
    StripRows<T>(p, in, zero, batch_off, m, 1, rows.data(), coff, cur);
    for (int64_t n = 0; n < p.ng; ++n) {
      const int64_t o = g * p.ng + n;
      W acc = 0, abs_sum = 0;
      auto weight = [&](int64_t c, int64_t t) {
        return static_cast<W>(lk(o * d.kernel_output_stride +
                                 c * d.kernel_input_stride + p.tap_kernel[t]));
      };
      for (int64_t t = 0; t < p.ntaps; ++t) {
        const T* x = rows[t * kConvMr];
        if (x == zero) continue;
        for (int64_t c = 0; c < p.cg; ++c) {
          const W prod = static_cast<W>(x[ci0 + c]) * weight(c, t);
          acc += prod;
          abs_sum += prod < 0 ? -prod : prod;
        }
      }
      if constexpr (!std::is_same_v<T, float>) {
        // S = sum |x w| past f64's range with every term finite: the
        // suite then requires the correctly rounded sum (numerics.md 7.3
        // has no order-independent bound there), so this element is
        // summed again with error-free products (fmal) and a compensated
        // (Neumaier) long-double sum, about 128 bits, rounded once.
        if (abs_sum > std::numeric_limits<double>::max() &&
            abs_sum <= std::numeric_limits<long double>::max()) {
          long double sum = 0, comp = 0;
          for (int64_t t = 0; t < p.ntaps; ++t) {
            const T* x = rows[t * kConvMr];
            if (x == zero) continue;
            for (int64_t c = 0; c < p.cg; ++c) {
              const long double a = x[ci0 + c], b = weight(c, t);
              const long double prod = a * b;
              const long double prod_err = std::fmal(a, b, -prod);
              const long double next = sum + prod;
              comp +=
                  (std::fabs(sum) >= std::fabs(prod) ? (sum - next) + prod
                                                     : (prod - next) + sum) +
                  prod_err;
              sum = next;
            }
          }
          acc = sum + comp;
        }
      }
      const int64_t i = coff[0] + o * d.output_feature_stride;
      if constexpr (std::is_same_v<T, float>) {
        if (d.output_type == PrimitiveType::kF32) {
          static_cast<float*>(sh.output)[i] = static_cast<float>(acc);
        } else {
          static_cast<uint16_t*>(sh.output)[i] = static_cast<uint16_t>(
              EncodeFloat(FormatOf(d.output_type), static_cast<double>(acc)));
        }
      } else {
        static_cast<double*>(sh.output)[i] = static_cast<double>(acc);
      }
    }
  }
}

template <typename T>
void SetTapOffsets(const Problem& p, Input<T>* in) {
  in->tap_off.assign(p.ntaps, 0);
  for (int64_t t = 0; t < p.ntaps; ++t) {
    for (int64_t dd = 0; dd < p.nsp; ++dd) {
      in->tap_off[t] += p.tap_shift[t * p.nsp + dd] * in->sp_stride[dd];
    }
  }
}

// Builds the kernels' view of the input: in place (scanned by the items
// as they first read each position) or a converted copy (scanned while
// copying, row by row).
template <typename T>
bool PrepareInput(Shared& sh, Input<T>* in, std::unique_ptr<Scratch>* copy,
                  std::unique_ptr<std::atomic<uint8_t>[]>* seen,
                  Stats<T>* stats) {
  const Problem& p = *sh.p;
  const ConvDims& d = p.d;
  const PrimitiveType acc_type = PrimitiveTypeOf<T>();
  int64_t in_spatial = 1;
  for (const ConvDims::Spatial& s : d.spatial) in_spatial *= s.input_size;
  const int64_t positions = d.input_batch * in_spatial;
  const int64_t c = d.input_feature;
  in->row_len = std::max<int64_t>(c, 1);
  if ((in->row_len & (in->row_len - 1)) == 0) {
    in->row_shift = __builtin_ctzll(static_cast<uint64_t>(in->row_len));
  }
  if (d.input_type == acc_type && (d.input_feature_stride == 1 || c <= 1)) {
    in->base = static_cast<const T*>(sh.input);
    in->batch_stride = d.input_batch_stride;
    for (int64_t i = 0; i < p.nsp; ++i) {
      in->sp_stride[i] = d.spatial[i].input_stride;
    }
    SetTapOffsets(p, in);
    *seen = std::make_unique<std::atomic<uint8_t>[]>(
        static_cast<size_t>(std::max<int64_t>(positions, 1)));
    if (*seen == nullptr) return false;
    in->seen = seen->get();
    return true;
  }
  // Copy: [batch][spatial row-major][feature], converted to T (exact).
  *copy = std::make_unique<Scratch>(positions * c * int64_t{sizeof(T)});
  if ((*copy)->p == nullptr) return false;
  T* dst = static_cast<T*>((*copy)->p);
  int64_t stride = c;
  for (int64_t i = p.nsp - 1; i >= 0; --i) {
    in->sp_stride[i] = stride;
    stride *= d.spatial[i].input_size;
  }
  in->batch_stride = stride;
  in->base = dst;
  SetTapOffsets(p, in);
  const Loader<T> li = MakeLoader<T>(d.input_type, sh.input);
  const gemm::GemmKernels& gk = *sh.kernels->gemm;
  auto body = [&](int64_t b, int64_t e) {
    Stats<T> st;
    for (int64_t row = b; row < e; ++row) {
      int64_t rem = row, src = 0;
      for (int64_t i = p.nsp - 1; i >= 0; --i) {
        const ConvDims::Spatial& s = d.spatial[i];
        src += (rem % s.input_size) * s.input_stride;
        rem /= s.input_size;
      }
      src += rem * d.input_batch_stride;
      T* drow = dst + row * c;
      for (int64_t f = 0; f < c; ++f) {
        drow[f] = li(src + f * d.input_feature_stride);
      }
      st.Scan(gk, drow, c);
    }
    std::lock_guard<std::mutex> lock(sh.mu);
    stats->Merge(st);
  };
  Parallel(sh.ctx, positions, body);
  return true;
}

template <typename T>
absl::Status RunFloat(Shared& sh) {
  const Problem& p = *sh.p;
  const ConvDims& d = p.d;
  Input<T> in;
  std::unique_ptr<Scratch> in_copy;
  std::unique_ptr<std::atomic<uint8_t>[]> seen;
  Stats<T> sa, sb;
  if (!PrepareInput<T>(sh, &in, &in_copy, &seen, &sa)) {
    return absl::ResourceExhaustedError(
        "convolution runtime: cannot allocate the input copy");
  }
  // A zero row as long as the input's feature dimension.
  Scratch zero_buf(std::max<int64_t>(d.input_feature, 1) *
                   static_cast<int64_t>(sizeof(T)));
  if (zero_buf.p == nullptr) {
    return absl::ResourceExhaustedError(
        "convolution runtime: cannot allocate the zero row");
  }
  std::memset(
      zero_buf.p, 0,
      static_cast<size_t>(std::max<int64_t>(d.input_feature, 1)) * sizeof(T));
  const T* zero = static_cast<const T*>(zero_buf.p);
  const Loader<T> lk = MakeLoader<T>(d.kernel_type, sh.kernel);
  const bool same_type = d.kernel_type == PrimitiveTypeOf<T>();
  if (p.depthwise) {
    // Filter as w[tap][feature].
    const int64_t channels = d.output_feature;
    // The filter at the input's offset within a 64-byte line, so that the
    // row kernel's line-aligned feature vectors (conv_kernels.cc DwLead)
    // are aligned in both.
    const int64_t lead =
        static_cast<int64_t>(reinterpret_cast<uintptr_t>(in.base) % 64) /
        static_cast<int64_t>(sizeof(T));
    Scratch w_buf((p.ntaps * channels + 64) * static_cast<int64_t>(sizeof(T)));
    if (w_buf.p == nullptr) {
      return absl::ResourceExhaustedError(
          "convolution runtime: cannot allocate the packed filter");
    }
    T* w = static_cast<T*>(w_buf.p) + lead;
    for (int64_t t = 0; t < p.ntaps; ++t) {
      if (same_type && (d.kernel_output_stride == 1 || channels == 1)) {
        // A tap's features are contiguous (HWIO): one copy per tap. The
        // element-wise loader costs more than the convolution's first
        // rows at two threads, where the other thread waits for it.
        std::memcpy(w + t * channels,
                    static_cast<const T*>(sh.kernel) + p.tap_kernel[t],
                    static_cast<size_t>(channels) * sizeof(T));
        continue;
      }
      for (int64_t c = 0; c < channels; ++c) {
        w[t * channels + c] = lk(c * d.kernel_output_stride + p.tap_kernel[t]);
      }
    }
    sb.Scan(*sh.kernels->gemm, w, p.ntaps * channels);
    last_path = "depthwise";
    if (p.nsp >= 1 && d.spatial[p.nsp - 1].base_dilation == 1) {
      // Along output rows. The range guard scans each input row once
      // (a flag per input row) when in place.
      const DwRowPlan plan = MakeDwRowPlan(p);
      std::unique_ptr<std::atomic<uint8_t>[]> row_seen;
      if (in.seen != nullptr) {
        row_seen = std::make_unique<std::atomic<uint8_t>[]>(
            static_cast<size_t>(std::max<int64_t>(plan.in_rows, 1)));
      }
      auto body = [&](int64_t b, int64_t e) {
        RunDepthwiseRowItems<T>(sh, plan, in, row_seen.get(), w, &sa, b, e);
      };
      Parallel(sh.ctx, plan.rows, body);
    } else {
      auto body = [&](int64_t b, int64_t e) {
        RunDepthwiseItems<T>(sh, in, zero, w, &sa, b, e);
      };
      Parallel(sh.ctx, p.m_blocks, body);
    }
  } else {
    // Filter panels: for group g and panel pi, [chunk][tap][k][NR] (NR
    // output features, zero past the group's), so a chunk's block of every
    // tap is contiguous.
    const int64_t nr = p.nr;
    const int64_t block = p.k * nr;  // one (group, panel)
    Scratch b_buf(p.groups * p.panels * block *
                  static_cast<int64_t>(sizeof(T)));
    if (b_buf.p == nullptr) {
      return absl::ResourceExhaustedError(
          "convolution runtime: cannot allocate the packed filter");
    }
    T* bpack = static_cast<T*>(b_buf.p);
    auto pack = [&](int64_t b, int64_t e) {
      Stats<T> s;
      for (int64_t gp = b; gp < e; ++gp) {
        const int64_t g = gp / p.panels, pi = gp % p.panels;
        T* dst = bpack + gp * block;
        const int64_t n0 = pi * nr;
        const int64_t cols = std::min(nr, p.ng - n0);
        for (int64_t q = 0; q < p.chunks; ++q) {
          const int64_t k0 = q * p.cc, kc = std::min(p.cc, p.cg - k0);
          T* qdst = dst + k0 * p.ntaps * nr;
          for (int64_t t = 0; t < p.ntaps; ++t) {
            for (int64_t k = 0; k < kc; ++k) {
              T* row = qdst + (t * kc + k) * nr;
              const int64_t src = (k0 + k) * d.kernel_input_stride +
                                  p.tap_kernel[t] +
                                  (g * p.ng + n0) * d.kernel_output_stride;
              if (same_type && d.kernel_output_stride == 1) {
                // Output features contiguous (HWIO): a copy (the per-element
                // loader took 8 % of conv_block, 1 thread).
                std::memcpy(row, static_cast<const T*>(sh.kernel) + src,
                            static_cast<size_t>(cols) * sizeof(T));
              } else {
                for (int64_t j = 0; j < cols; ++j) {
                  row[j] = lk(src + j * d.kernel_output_stride);
                }
              }
              for (int64_t j = cols; j < nr; ++j) row[j] = T(0);
            }
          }
        }
        s.Scan(*sh.kernels->gemm, dst, block);
      }
      std::lock_guard<std::mutex> lock(sh.mu);
      sb.Merge(s);
    };
    Parallel(sh.ctx, p.groups * p.panels, pack);
    last_path = "gemm";
    auto body = [&](int64_t b, int64_t e) {
      RunGemmItems<T>(sh, in, zero, bpack, &sa, b, e);
    };
    Parallel(sh.ctx, p.items(), body);
  }
  if (sh.failed_alloc) {
    return absl::ResourceExhaustedError(
        "convolution runtime: cannot allocate scratch buffers");
  }
  if (!FastPathSafe(sa, sb, p.k)) {
    last_path = "wide";
    using W = std::conditional_t<std::is_same_v<T, float>, double, long double>;
    auto body = [&](int64_t b, int64_t e) {
      RunWideRows<T, W>(sh, in, zero, b, e);
    };
    Parallel(sh.ctx, p.groups * p.m, body);
  }
  return absl::OkStatus();
}

absl::Status RunConvolutionIn(RunContext* ctx, const ConvDims& dims,
                              const void* input, const void* kernel,
                              void* output, const ConvKernels& kernels) {
  last_path = "empty";
  const int threads = ctx->pool != nullptr ? ctx->pool->threads() : 1;
  absl::StatusOr<Problem> problem = MakeProblem(dims, threads);
  if (!problem.ok()) return problem.status();
  const Problem& p = *problem;
  if (p.m == 0 || p.ng == 0) return absl::OkStatus();
  Shared sh;
  sh.p = &p;
  sh.kernels = &kernels;
  sh.ctx = ctx;
  sh.input = input;
  sh.kernel = kernel;
  sh.output = output;
  if (p.k == 0) {
    // Empty sums: +0 in every output.
    for (int64_t g = 0; g < p.groups; ++g) {
      for (int64_t m = 0; m < p.m; ++m) {
        int64_t rem = m, co = 0;
        for (int64_t i = p.nsp - 1; i >= 0; --i) {
          const ConvDims::Spatial& s = dims.spatial[i];
          co += (rem % s.output_size) * s.output_stride;
          rem /= s.output_size;
        }
        co += rem * dims.output_batch_stride;
        for (int64_t n = 0; n < p.ng; ++n) {
          StoreOut<float>(dims.output_type, output,
                          co + (g * p.ng + n) * dims.output_feature_stride,
                          0.0f);
        }
      }
    }
    return absl::OkStatus();
  }
  return p.f64 ? RunFloat<double>(sh) : RunFloat<float>(sh);
}

}  // namespace

bool ConvPathFor(PrimitiveType input, PrimitiveType kernel,
                 PrimitiveType output) {
  const GemmPath path = GemmPathFor(input, kernel, output);
  return path == GemmPath::kF32 || path == GemmPath::kF64;
}

std::vector<int64_t> EncodeConvDims(const ConvDims& d) {
  std::vector<int64_t> v = {kDescVersion,
                            static_cast<int64_t>(d.input_type),
                            static_cast<int64_t>(d.kernel_type),
                            static_cast<int64_t>(d.output_type),
                            d.feature_group_count,
                            d.batch_group_count,
                            d.input_batch,
                            d.input_batch_stride,
                            d.input_feature,
                            d.input_feature_stride,
                            d.kernel_input_feature,
                            d.kernel_input_stride,
                            d.kernel_output_feature,
                            d.kernel_output_stride,
                            d.output_batch,
                            d.output_batch_stride,
                            d.output_feature,
                            d.output_feature_stride,
                            static_cast<int64_t>(d.spatial.size())};
  for (const ConvDims::Spatial& s : d.spatial) {
    v.insert(v.end(),
             {s.input_size, s.input_stride, s.kernel_size, s.kernel_stride,
              s.output_size, s.output_stride, s.stride, s.padding_low,
              s.base_dilation, s.window_dilation, s.reversal ? 1 : 0});
  }
  return v;
}

absl::StatusOr<ConvDims> DecodeConvDims(const int64_t* desc) {
  if (desc == nullptr || desc[0] != kDescVersion) {
    return absl::InvalidArgumentError(
        "convolution runtime: bad descriptor version");
  }
  ConvDims d;
  d.input_type = static_cast<PrimitiveType>(desc[1]);
  d.kernel_type = static_cast<PrimitiveType>(desc[2]);
  d.output_type = static_cast<PrimitiveType>(desc[3]);
  d.feature_group_count = desc[4];
  d.batch_group_count = desc[5];
  d.input_batch = desc[6];
  d.input_batch_stride = desc[7];
  d.input_feature = desc[8];
  d.input_feature_stride = desc[9];
  d.kernel_input_feature = desc[10];
  d.kernel_input_stride = desc[11];
  d.kernel_output_feature = desc[12];
  d.kernel_output_stride = desc[13];
  d.output_batch = desc[14];
  d.output_batch_stride = desc[15];
  d.output_feature = desc[16];
  d.output_feature_stride = desc[17];
  const int64_t n = desc[18];
  if (n < 0 || n > kMaxSpatial) {
    return absl::InvalidArgumentError(
        "convolution runtime: bad spatial dimension count");
  }
  const int64_t* s = desc + 19;
  for (int64_t i = 0; i < n; ++i, s += 11) {
    d.spatial.push_back({s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8],
                         s[9], s[10] != 0});
  }
  return d;
}

absl::Status RunConvolution(const ConvDims& dims, const void* input,
                            const void* kernel, void* output,
                            ThreadPool* threads,
                            const conv::ConvKernels& kernels) {
  RunContext ctx;
  ctx.pool = threads;
  return RunConvolutionIn(&ctx, dims, input, kernel, output, kernels);
}

const char* LastConvolutionPath() { return last_path; }

void AddConvRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back({"hloref_cpu_convolution",
                  reinterpret_cast<void*>(&hloref_cpu_convolution)});
}

}  // namespace hloref::cpu

extern "C" void hloref_cpu_convolution(hloref::cpu::RunContext* ctx,
                                       const int64_t* desc, const void* input,
                                       const void* kernel, void* output) {
  absl::StatusOr<hloref::cpu::ConvDims> dims =
      hloref::cpu::DecodeConvDims(desc);
  absl::Status status = dims.ok() ? hloref::cpu::RunConvolutionIn(
                                        ctx, *dims, input, kernel, output,
                                        hloref::cpu::conv::HostConvKernels())
                                  : dims.status();
  if (!status.ok()) ctx->SetError(status);
}
