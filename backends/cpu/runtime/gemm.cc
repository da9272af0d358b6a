// The dot runtime's driver: offset tables, the blocked loop nest, packing,
// the range guard and its wide fallback, threads (design: gemm.h and
// docs/cpu-kernels.md).
//
// Loop nest of one work item (a batch index, a range of M rows and a
// range of at most NC columns; items are split across the thread pool):
//   for each K block of KC (pc):
//     B block [KC x NC] packed into NR-wide panels (L2-resident)
//     for each 6-row panel of A (ir): pack A [6 x KC] (L1-resident)
//       for each NR-wide panel of B (jr): microkernel on C[6 x NR]
// KC and NC come from the host's L1 and L2 sizes. Each output element is
// one FMA chain over k = 0 .. K-1 in order (the kernel continues C's
// value across K blocks), whatever the item split or the thread count.
#include "backends/cpu/runtime/gemm.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "backends/cpu/runtime/kernel_support.h"
#include "backends/cpu/runtime/thread_pool.h"
#include "spec/types/minifloat.h"

namespace hloref::cpu {
namespace {

using gemm::GemmKernels;
using gemm::kGemmMr;
using kernel_support::BalancedBlocks;
using kernel_support::Bf16ProductsStayNormal;
using kernel_support::Bits;
using kernel_support::CacheBytes;
using kernel_support::CeilDiv;
using kernel_support::CheckEachStands;
using kernel_support::EnvInt;
using kernel_support::FastPathSafe;
using kernel_support::IsNarrowFloat;
using kernel_support::Loader;
using kernel_support::LoadSmallInt;
using kernel_support::MakeLoader;
using kernel_support::NarrowTable;
using kernel_support::Parallel;
using kernel_support::PrimitiveTypeOf;
using kernel_support::RangeGuard;
using kernel_support::RangeGuardFor;
using kernel_support::RoundUp;
using kernel_support::Scratch;
using kernel_support::Stats;
using kernel_support::StoreOut;

constexpr int64_t kDescVersion = 1;
constexpr int64_t kNotAffine = std::numeric_limits<int64_t>::min();

thread_local bool last_used_fallback = false;
thread_local bool last_used_fast = false;
thread_local bool last_used_amx = false;
// HLOREF_CPU_AMX=0 in the environment keeps bf16 dots on vdpbf16ps and
// 8-bit integer dots on VNNI.
std::atomic<bool> amx_allowed{[] {
  const char* v = std::getenv("HLOREF_CPU_AMX");
  return v == nullptr || std::strcmp(v, "0") != 0;
}()};
thread_local int64_t last_small_recomputed = -1;
// HLOREF_CPU_GEMV_BF16=0: skinny bf16 B's take the packed paths.
std::atomic<bool> bf16_gemv_allowed{[] {
  const char* v = std::getenv("HLOREF_CPU_GEMV_BF16");
  return v == nullptr || std::strcmp(v, "0") != 0;
}()};
thread_local bool last_used_bf16_dp = false;
thread_local bool last_discarded_bf16_dp = false;
// HLOREF_CPU_BF16_DP=0 keeps the conformant mode's bf16 x bf16 dots on the
// f32 kernel (widened while packing) instead of vdpbf16ps / tdpbf16ps.
std::atomic<bool> conformant_bf16_dp_allowed{[] {
  const char* v = std::getenv("HLOREF_CPU_BF16_DP");
  return v == nullptr || std::strcmp(v, "0") != 0;
}()};

// ---- the problem: offset tables and the blocking

std::vector<int64_t> Offsets(const std::vector<DotDims::Dim>& dims,
                             int64_t DotDims::Dim::*stride) {
  int64_t n = 1;
  for (const auto& d : dims) n *= d.size;
  std::vector<int64_t> out(static_cast<size_t>(n), 0);
  if (n == 0) return out;
  // Row-major over the group: the last dimension varies fastest. Built
  // dimension by dimension: the table of the first j dimensions, each
  // entry repeated for every index of dimension j (no divisions: the
  // per-element form took 4 % of a 256^3 GEMM, perf record).
  int64_t len = 1;
  for (const auto& d : dims) {
    const int64_t s = d.*stride;
    for (int64_t i = len - 1; i >= 0; --i) {
      const int64_t base = out[i];
      for (int64_t x = 0; x < d.size; ++x) out[i * d.size + x] = base + x * s;
    }
    len *= d.size;
  }
  return out;
}

int64_t AffineStride(const std::vector<int64_t>& t) {
  if (t.size() <= 1) return 0;
  const int64_t s = t[1] - t[0];
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != t[0] + static_cast<int64_t>(i) * s) return kNotAffine;
  }
  return s;
}

struct Problem {
  GemmPath path = GemmPath::kNone;
  PrimitiveType lt, rt, ot;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  // Element offsets: a = lhs, b = rhs, c = out.
  std::vector<int64_t> a_b, b_b, c_b, a_m, c_m, b_n, c_n, a_k, b_k;
  int64_t c_ms = kNotAffine, c_ns = kNotAffine, b_ks = kNotAffine,
          b_ns = kNotAffine, a_ks = kNotAffine, a_ms = kNotAffine;
  // Blocking.
  int64_t kc = 256, nc = 512, m_chunk = 1, n_blocks = 1, m_blocks = 1;
  bool direct_c = false;    // the kernel writes the output in place
  bool int8_amx = false;    // 8-bit integers on AMX (RunI8AmxItems)
  bool gemv = false;        // skinny M: RunGemvItems
  bool gemv_kt = false;     // ... over a K-contiguous B (GemvKtKernelF32)
  bool gemv_bf16b = false;  // ... over a row-major bf16 B (GemvKernelBf16B)
  bool swapped = false;     // lhs and rhs exchanged (C^T = B^T A^T)
  int64_t items() const { return batch * m_blocks * n_blocks; }
};

int64_t Nr(GemmPath p) {
  return p == GemmPath::kF64
             ? gemm::kGemmNrF64
             : (p == GemmPath::kF32 ? gemm::kGemmNrF32 : gemm::kGemmNrInt);
}
int64_t ElemBytes(GemmPath p) { return p == GemmPath::kF64 ? 8 : 4; }

// HLOREF_CPU_GEMV_KT=0 turns the K-contiguous GEMV off (EnvInt reads 0 as
// unset).
bool GemvKtEnabled() {
  const char* s = std::getenv("HLOREF_CPU_GEMV_KT");
  return s == nullptr || s[0] != '0';
}

// Whether the K-contiguous GEMV scans B for the range guard. It need not
// where RangeGuard::kCheckEach can judge each element instead: the same
// preconditions as kCheckSmall (`small_ok`, K u <= 1/4). On the Zen 4
// host the scan's four integer operations per vector of B made the kernel
// 1.4x slower than its loads, transposes and FMAs alone (decode_attention:
// docs/cpu-kernels.md). HLOREF_CPU_GEMV_KT_SCAN=1 keeps the scan (A/B
// runs); the results are the same bits either way.
bool GemvKtScansB(const Problem& p, bool small_ok) {
  if (!p.gemv_kt || !small_ok) return true;
  if (static_cast<long double>(p.k) * (FLT_EPSILON / 2) > 0.25L) return true;
  const char* s = std::getenv("HLOREF_CPU_GEMV_KT_SCAN");
  return s != nullptr && s[0] == '1';
}

// int8_amx: 8-bit integer dots will run on AMX (RunI8AmxItems), which
// takes its own blocking.
absl::StatusOr<Problem> MakeProblem(const DotDims& d, int threads,
                                    bool int8_amx) {
  Problem p;
  p.path = GemmPathFor(d.lhs_type, d.rhs_type, d.out_type);
  if (p.path == GemmPath::kNone) {
    return absl::UnimplementedError(absl::StrCat(
        "dot runtime: no GEMM path for ", PrimitiveTypeName(d.lhs_type), " x ",
        PrimitiveTypeName(d.rhs_type), " -> ", PrimitiveTypeName(d.out_type)));
  }
  p.lt = d.lhs_type;
  p.rt = d.rhs_type;
  p.ot = d.out_type;
  for (const auto* g : {&d.batch, &d.m, &d.n, &d.k}) {
    for (const auto& dim : *g) {
      if (dim.size < 0) {
        return absl::InvalidArgumentError("dot runtime: negative dimension");
      }
    }
  }
  using D = DotDims::Dim;
  p.a_b = Offsets(d.batch, &D::lhs);
  p.b_b = Offsets(d.batch, &D::rhs);
  p.c_b = Offsets(d.batch, &D::out);
  p.a_m = Offsets(d.m, &D::lhs);
  p.c_m = Offsets(d.m, &D::out);
  p.b_n = Offsets(d.n, &D::rhs);
  p.c_n = Offsets(d.n, &D::out);
  p.a_k = Offsets(d.k, &D::lhs);
  p.b_k = Offsets(d.k, &D::rhs);
  p.batch = static_cast<int64_t>(p.a_b.size());
  p.m = static_cast<int64_t>(p.a_m.size());
  p.n = static_cast<int64_t>(p.b_n.size());
  p.k = static_cast<int64_t>(p.a_k.size());
  // The kernel vectorises along N: a narrow N with a taller M runs as the
  // transposed product (C^T = B^T A^T: the tables swap roles; each
  // element's sum is the same chain over k).
  if (p.n < Nr(p.path) && p.m > p.n) {
    std::swap(p.lt, p.rt);
    std::swap(p.a_b, p.b_b);
    std::swap(p.a_m, p.b_n);
    std::swap(p.c_m, p.c_n);
    std::swap(p.a_k, p.b_k);
    std::swap(p.m, p.n);
    p.swapped = true;
  }
  p.c_ms = AffineStride(p.c_m);
  p.c_ns = AffineStride(p.c_n);
  p.b_ks = AffineStride(p.b_k);
  p.b_ns = AffineStride(p.b_n);
  p.a_ks = AffineStride(p.a_k);
  p.a_ms = AffineStride(p.a_m);
  const bool acc_out =
      (p.path == GemmPath::kF32 && p.ot == PrimitiveType::kF32) ||
      (p.path == GemmPath::kF64 && p.ot == PrimitiveType::kF64) ||
      p.path == GemmPath::kInt;
  p.direct_c = acc_out && p.c_ns == 1 && p.c_ms != kNotAffine;

  // Blocking from the caches: the A panel [6 x KC] in a third of L1, at
  // most 512 deep, and the B block [KC x NC] twice the L2 size, on the
  // 1 MiB L2 of the AMD EPYC (Zen 4) this was tuned on (1024^3 f32: NC =
  // 1152 ran ~1.05x OpenBLAS where half the L2 (288) ran ~0.7x and the L2
  // size (576) ~0.93x; the A panel is repacked once per B block, and a
  // wider block amortises that over more B panels, the panels streaming
  // from L2 and L3 fast enough for 24 FMAs per 256 bytes). With an L2 of
  // 2 MiB or more (the Intel Xeon with a 48 KiB L1 that replaced it) the
  // float paths use KC <= 256 and a B block of half the L2: 1024^3 f32
  // ran 1.3-1.7x faster than with that rule's KC = 512, NC = 2048 (five
  // interleaved pairs of kernel_benchmark runs), f64 1.3-1.4x; 256^3 and
  // 512^3 within the noise; the 8-bit integer path (no gain measured)
  // keeps the first rule. HLOREF_CPU_GEMM_KC / _NC override both (tuning).
  const int64_t eb = ElemBytes(p.path), nr = Nr(p.path);
  const int64_t l1 = CacheBytes(_SC_LEVEL1_DCACHE_SIZE, 32 << 10);
  const int64_t l2 = CacheBytes(_SC_LEVEL2_CACHE_SIZE, 1 << 20);
  const bool big_l2 = l2 >= (int64_t{2} << 20) && p.path != GemmPath::kInt;
  int64_t kc_max = std::clamp<int64_t>(l1 / 3 / (kGemmMr * eb) / 16 * 16, 64,
                                       big_l2 ? 256 : 512);
  // AMX int8: K blocks of up to 1024 (whole 64-byte tile rows) and a B
  // block of half the L2 in bytes. 1024^3 s8 on the Xeon (Emerald Rapids,
  // 2 MiB L2): 790-1340 GOPS with the VNNI rule's KC = 512 (two K blocks,
  // the 4 MiB s32 C read back from L3 between them), 1540-1750 with 1024;
  // 256 and 512 KC measured no better at 512^3.
  const bool amx8 = int8_amx && p.path == GemmPath::kInt;
  if (amx8) kc_max = 1024;
  kc_max = EnvInt("HLOREF_CPU_GEMM_KC", kc_max);
  const int64_t b_block = big_l2 || amx8 ? l2 / 2 : 2 * l2;
  int64_t nc_max =
      std::max<int64_t>(nr, b_block / (kc_max * (amx8 ? 1 : eb)) / nr * nr);
  nc_max = RoundUp(EnvInt("HLOREF_CPU_GEMM_NC", nc_max), nr);
  // Balanced blocks (no tiny last block); integer K blocks are even (pairs).
  const int64_t kb = std::max<int64_t>(1, CeilDiv(p.k, kc_max));
  p.kc = std::max<int64_t>(1, CeilDiv(p.k, kb));
  // Integer K blocks are whole quads (the VNNI byte kernel; pairs for s16),
  // on AMX whole 64-byte tile rows.
  if (p.path == GemmPath::kInt) p.kc = RoundUp(p.kc, amx8 ? 64 : 4);
  p.int8_amx = amx8;
  p.n_blocks = std::max<int64_t>(1, CeilDiv(p.n, nc_max));
  p.nc = RoundUp(CeilDiv(std::max<int64_t>(p.n, 1), p.n_blocks), nr);
  p.n_blocks = std::max<int64_t>(1, CeilDiv(p.n, p.nc));
  // M chunks: at most 1536 rows (bounds the C scratch), and at least one
  // item per thread when M allows chunks of >= 48 rows. Each chunk packs
  // its own B blocks, so more chunks than threads repack B for nothing:
  // two per thread ran 256^3 at 192 GFLOP/s and bf16 256^3 at 290 on 2
  // threads, one per thread 201 and 321 (docs/performance.md).
  int64_t m_blocks = CeilDiv(p.m, 1536);
  const int64_t base = p.batch * p.n_blocks;
  if (threads > 1 && base < threads) {
    m_blocks = std::max(m_blocks, CeilDiv(threads, base));
  }
  m_blocks = BalancedBlocks(m_blocks, base, threads, p.m / 48);
  p.m_chunk = RoundUp(CeilDiv(std::max<int64_t>(p.m, 1), m_blocks), kGemmMr);
  p.m_blocks = std::max<int64_t>(1, CeilDiv(p.m, p.m_chunk));
  // Skinny M over a row-major B of the accumulation type: the row-streaming
  // GEMV kernel reads B in place (no packing), all M rows at once, columns
  // split into items of >= 256 (two per thread when N allows).
  const bool same_b =
      (p.path == GemmPath::kF32 && p.rt == PrimitiveType::kF32) ||
      (p.path == GemmPath::kF64 && p.rt == PrimitiveType::kF64);
  p.gemv = same_b &&
           p.m <= std::min<int64_t>(
                      gemm::kGemvMaxRows,
                      EnvInt("HLOREF_CPU_GEMV_ROWS", gemm::kGemvMaxRows)) &&
           p.b_ns == 1 && p.b_ks != kNotAffine;
  // At most kGemvKtMaxRows rows over an f32 B with K contiguous (a decoding
  // step's q . k^T against a key cache): the GEMV kernel that transposes
  // 16 x 16 blocks of B in registers, where packing B (a transposing copy
  // and a scan of it) was 55 % of decode_attention's time for one FMA per
  // packed element. HLOREF_CPU_GEMV_KT=0 turns it off (A/B runs).
  // The same over a bf16 B (a bf16 key cache), widened as it is read,
  // unless SetBf16GemvAllowed(false).
  const bool bf16_b = p.path == GemmPath::kF32 &&
                      p.rt == PrimitiveType::kBF16 &&
                      bf16_gemv_allowed.load(std::memory_order_relaxed);
  p.gemv_kt = !p.gemv && (same_b || bf16_b) && p.path == GemmPath::kF32 &&
              p.m <= gemm::kGemvKtMaxRows && p.b_ks == 1 &&
              p.b_ns != kNotAffine && GemvKtEnabled();
  // At most kGemvBf16MaxRows rows over a row-major bf16 B (a decoding
  // step against bf16 weights): the row-streaming kernel widens B as it
  // reads it, where the packed path copied and widened (or paired) all of
  // B for one to eight rows. HLOREF_CPU_GEMV_BF16=0 / SetBf16GemvAllowed
  // turn it off.
  p.gemv_bf16b = !p.gemv && !p.gemv_kt && bf16_b &&
                 p.m <= gemm::kGemvBf16MaxRows && p.b_ns == 1 &&
                 p.b_ks != kNotAffine;
  p.gemv = p.gemv || p.gemv_kt || p.gemv_bf16b;
  if (p.gemv) {
    p.m_blocks = 1;
    p.m_chunk = p.m;
    const int64_t gemv_nc = EnvInt("HLOREF_CPU_GEMV_NC", 4096);
    int64_t n_blocks =
        std::max<int64_t>(CeilDiv(p.n, gemv_nc), threads > 1 ? 2 * threads : 1);
    n_blocks =
        std::clamp<int64_t>(n_blocks, 1, std::max<int64_t>(1, p.n / 256));
    p.nc = RoundUp(CeilDiv(p.n, n_blocks), 64);
    p.n_blocks = std::max<int64_t>(1, CeilDiv(p.n, p.nc));
  }
  return p;
}

// Columns [n0, n1) of one row of a C tile (`src`, the accumulation type)
// into the result at `offset` (its batch and row offset): a bf16 result
// with unit stride along N in one loop of the inline rounding
// (GemmKernels::f32_to_bf16), any other element by element.
template <typename T>
void StoreRow(const Problem& p, const GemmKernels& kernels, void* out,
              int64_t offset, int64_t n0, int64_t n1, const T* src) {
  if constexpr (std::is_same_v<T, float>) {
    if (p.ot == PrimitiveType::kBF16 && p.c_ns == 1 &&
        kernels.f32_to_bf16 != nullptr) {
      kernels.f32_to_bf16(src, static_cast<uint16_t*>(out) + offset + p.c_n[n0],
                          n1 - n0);
      return;
    }
  }
  for (int64_t j = n0; j < n1; ++j) {
    StoreOut<T>(p.ot, out, offset + p.c_n[j], src[j - n0]);
  }
}

void StoreInt(PrimitiveType ot, void* out, int64_t i, int32_t v) {
  static_cast<int32_t*>(out)[i] = v;  // s32 and u32 share the bits
}

// ---- the float path (T = float or double)

struct Shared {
  const Problem* p;
  const GemmKernels* kernels;
  const void* lhs;
  const void* rhs;
  void* out;
  std::mutex mu;
  bool failed_alloc = false;
  // Range-guard statistics, merged from every chunk.
  Stats<float> sa32, sb32;
  Stats<double> sa64, sb64;
  std::atomic<int64_t> small_recomputed{0};
  // Whether packed A panels and B blocks may have their subnormal entries
  // zeroed (the kernels are FMA chains and RangeGuard::kCheckSmall is
  // allowed: see FlushSubnormalsInPanel), and whether any A panel / B block
  // had one.
  bool flush_a = false;
  std::atomic<bool> flushed_a{false};
  std::atomic<bool> flushed_b{false};
  // False when the K-contiguous GEMV leaves B unscanned and each element
  // is judged afterwards (RangeGuard::kCheckEach, GemvKtScansB).
  bool scan_b = true;
};

// One work item of the packed loops: batch bi, rows [m0, m1), columns
// [n0, n1). Items run batch-major, then M blocks, then N blocks.
struct Tile {
  int64_t bi, m0, m1, n0, n1;
  int64_t cols() const { return n1 - n0; }
};

// Item `item` as a tile; false when it is empty (an edge block).
bool TileOf(const Problem& p, int64_t item, Tile* t) {
  const int64_t ni = item % p.n_blocks;
  const int64_t mi = (item / p.n_blocks) % p.m_blocks;
  t->bi = item / (p.n_blocks * p.m_blocks);
  t->m0 = mi * p.m_chunk;
  t->m1 = std::min(p.m, t->m0 + p.m_chunk);
  t->n0 = ni * p.nc;
  t->n1 = std::min(p.n, t->n0 + p.nc);
  return t->m0 < t->m1 && t->n0 < t->n1;
}

// Where a tile's C block is accumulated: straight into the result
// (direct_c: the result is the accumulator type, unit stride along N) or
// into the chunk's scratch, `ldc` elements per row.
template <typename Acc>
Acc* TileTarget(const Problem& p, void* out, void* scratch, const Tile& t,
                int64_t* ldc) {
  if (p.direct_c) {
    *ldc = p.c_ms;
    return static_cast<Acc*>(out) + p.c_b[t.bi] + p.c_m[t.m0] + p.c_n[t.n0];
  }
  *ldc = RoundUp(t.cols(), 16);
  return static_cast<Acc*>(scratch);
}

// Packs A rows [i0, i0 + mr) x [k0, k0 + kc) as a[k * 6 + r] (rows past mr
// zero): contiguous copies when A is T with unit stride along K (row-major)
// or along M (column-major), the offset tables otherwise.
template <typename T>
void PackA(const Problem& p, const Loader<T>& la, const void* lhs,
           int64_t a_off, int64_t i0, int mr, int64_t k0, int64_t kc, T* apanel,
           const GemmKernels& kernels) {
  const bool same = p.lt == PrimitiveTypeOf<T>();
  const T* src = static_cast<const T*>(lhs) + a_off;
  const int64_t* am = p.a_m.data() + i0;
  const int64_t* ak = p.a_k.data() + k0;
  if (mr < kGemmMr) {
    for (int64_t k = 0; k < kc; ++k) {
      for (int r = mr; r < kGemmMr; ++r) apanel[k * kGemmMr + r] = T(0);
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    if (same && p.a_ks == 1 && p.a_ms != kNotAffine) {
      kernels.transpose_f32(src + am[0] + ak[0], p.a_ms, mr, kc, apanel,
                            kGemmMr);
      return;
    }
  }
  if (same && p.a_ks == 1) {
    for (int r = 0; r < mr; ++r) {
      const T* row = src + am[r] + ak[0];
      for (int64_t k = 0; k < kc; ++k) apanel[k * kGemmMr + r] = row[k];
    }
    return;
  }
  if (same && p.a_ms == 1) {
    for (int64_t k = 0; k < kc; ++k) {
      const T* col = src + am[0] + ak[k];
      for (int r = 0; r < mr; ++r) apanel[k * kGemmMr + r] = col[r];
    }
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (p.lt == PrimitiveType::kBF16) {
      // Widened in place of the per-element loader (bf16 is f32's top half).
      const uint16_t* h = static_cast<const uint16_t*>(lhs) + a_off;
      auto widen = [](uint16_t v) {
        const uint32_t bits = uint32_t{v} << 16;
        float f;
        std::memcpy(&f, &bits, sizeof(f));
        return f;
      };
      for (int r = 0; r < mr; ++r) {
        const uint16_t* row = h + am[r];
        if (p.a_ks == 1) {
          row += ak[0];
          for (int64_t k = 0; k < kc; ++k)
            apanel[k * kGemmMr + r] = widen(row[k]);
        } else {
          for (int64_t k = 0; k < kc; ++k) {
            apanel[k * kGemmMr + r] = widen(row[ak[k]]);
          }
        }
      }
      return;
    }
  }
  for (int r = 0; r < mr; ++r) {
    const int64_t row = a_off + am[r];
    for (int64_t k = 0; k < kc; ++k) apanel[k * kGemmMr + r] = la(row + ak[k]);
  }
}

// The vector widening kernel of a 16-bit float type (null for others, or
// f16 on a kernel set without one).
gemm::GemmCvtScanBf16 Cvt16(PrimitiveType t, const GemmKernels& kernels) {
  if (t == PrimitiveType::kBF16) return kernels.cvt_bf16;
  if (t == PrimitiveType::kF16) return kernels.cvt_f16;
  return nullptr;
}

// Packs B [k0, k0 + kc) x [n0, n0 + ncols) into kNr-wide panels
// (panel q at q * kc * kNr, row k of it at k * kNr), zero-padded. Rows are
// read contiguously when B is T with unit stride along N; columns when
// its stride along K is 1; through the tables otherwise.
template <typename T, int64_t kNr>
void PackB(const Problem& p, const Loader<T>& lb, const void* rhs,
           int64_t b_off, int64_t n0, int64_t ncols, int64_t k0, int64_t kc,
           T* bblock, const GemmKernels& kernels, Stats<T>& stats) {
  const bool same = p.rt == PrimitiveTypeOf<T>();
  const T* src = static_cast<const T*>(rhs) + b_off;
  const int64_t* bn = p.b_n.data() + n0;
  const int64_t* bk = p.b_k.data() + k0;
  const int64_t tail = ncols % kNr;
  if (tail != 0) {
    T* last = bblock + (ncols / kNr) * kc * kNr;
    for (int64_t k = 0; k < kc; ++k) {
      for (int64_t j = tail; j < kNr; ++j) last[k * kNr + j] = T(0);
    }
  }
  if (same && p.b_ns == 1) {
    for (int64_t k = 0; k < kc; ++k) {
      const T* row = src + bk[k] + bn[0];
      // The row's panels are kc * kNr apart: one call per row.
      stats.CopyScan(kernels, row, bblock + k * kNr, ncols, kNr, kc * kNr);
    }
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    const gemm::GemmCvtScanBf16 cvt = Cvt16(p.rt, kernels);
    if (cvt != nullptr && p.b_ns == 1) {
      // bf16 / f16 rows widened to f32 while packing (one vector pass per
      // row).
      const uint16_t* h = static_cast<const uint16_t*>(rhs) + b_off;
      for (int64_t k = 0; k < kc; ++k) {
        cvt(h + bk[k] + bn[0], bblock + k * kNr, ncols, kNr, kc * kNr,
            &stats.max_abs, &stats.min_nz_minus1);
      }
      return;
    }
  }
  const int64_t total = CeilDiv(ncols, kNr) * kc * kNr;
  if constexpr (std::is_same_v<T, float>) {
    const gemm::GemmCvtScanBf16 cvt = Cvt16(p.rt, kernels);
    if (cvt != nullptr && p.b_ks == 1 && p.b_ns != kNotAffine) {
      // A 16-bit B with K contiguous (a bf16 attention's keys): each
      // column's kc values widened into a [nr x kc] block (one vector
      // pass, with the statistics), then transposed into the panel. The
      // per-element loader below took 17 % of multi_head_attention_bf16
      // on the AVX2 host.
      const uint16_t* h = static_cast<const uint16_t*>(rhs) + b_off;
      std::vector<float> cols(static_cast<size_t>(kNr * kc));
      for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
        const int64_t nr = std::min<int64_t>(kNr, ncols - j0);
        if (p.b_ns == kc) {  // the columns back to back: one pass
          cvt(h + bn[j0] + bk[0], cols.data(), nr * kc, nr * kc, nr * kc,
              &stats.max_abs, &stats.min_nz_minus1);
        } else {
          for (int64_t j = 0; j < nr; ++j) {
            cvt(h + bn[j0 + j] + bk[0], cols.data() + j * kc, kc, kc, kc,
                &stats.max_abs, &stats.min_nz_minus1);
          }
        }
        kernels.transpose_f32(cols.data(), kc, nr, kc,
                              bblock + (j0 / kNr) * kc * kNr, kNr);
      }
      return;
    }
    if (same && p.b_ks == 1 && p.b_ns != kNotAffine) {
      // K contiguous: each panel is a transposed [nr x kc] block.
      for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
        kernels.transpose_f32(src + bn[j0] + bk[0], p.b_ns,
                              std::min<int64_t>(kNr, ncols - j0), kc,
                              bblock + (j0 / kNr) * kc * kNr, kNr);
      }
      stats.CopyScan(kernels, bblock, nullptr, total);
      return;
    }
  }
  if (p.b_ks == 1) {
    for (int64_t j = 0; j < ncols; ++j) {
      T* dst = bblock + (j / kNr) * kc * kNr + j % kNr;
      const int64_t col = bn[j] + bk[0];
      for (int64_t k = 0; k < kc; ++k) dst[k * kNr] = lb(b_off + col + k);
    }
    stats.CopyScan(kernels, bblock, nullptr, total);
    return;
  }
  for (int64_t k = 0; k < kc; ++k) {
    const int64_t row = b_off + bk[k];
    for (int64_t j = 0; j < ncols; ++j) {
      bblock[((j / kNr) * kc + k) * kNr + j % kNr] = lb(row + bn[j]);
    }
  }
  stats.CopyScan(kernels, bblock, nullptr, total);
}

template <typename T>
void MergeStats(Shared& sh, const Stats<T>& sa, const Stats<T>& sb) {
  std::lock_guard<std::mutex> lock(sh.mu);
  if constexpr (std::is_same_v<T, float>) {
    sh.sa32.Merge(sa);
    sh.sb32.Merge(sb);
  } else {
    sh.sa64.Merge(sa);
    sh.sb64.Merge(sb);
  }
}

// The skinny kernel's C rows: the kernel loads and stores the same column
// vector of every row of C once per group of B rows, so rows whose
// distance is a multiple of 128 bytes share few L1 sets (a row stride of
// 8 KiB puts all of them into one 8-way set, and the block goes to L2 on
// every step: 32 x 512 x 2048 f32 ran at 0.45x oneDNN). The kernel writes
// the result in place only when it has one row or its row stride is an odd
// number of 64-byte lines (or not a multiple of a line), else into a
// scratch block whose stride is an odd number of lines, copied out after.
bool GemvDirect(const Problem& p) {
  if (!p.direct_c) return false;
  const int64_t bytes = p.c_ms * ElemBytes(p.path);
  return p.m == 1 || bytes % 128 != 0;
}
int64_t GemvScratchLd(int64_t cols, int64_t eb) {
  int64_t lines = CeilDiv(cols * eb, 64);
  if (lines % 2 == 0) ++lines;
  return lines * 64 / eb;
}

// The skinny-M items: A rows converted and scanned into `abuf` [m x K];
// the kernel streams B's rows of the item's columns once, scanning them.
template <typename T>
void RunGemvItems(Shared& sh, const Loader<T>& la, Stats<T>& sa, Stats<T>& sb,
                  int64_t item_begin, int64_t item_end) {
  const Problem& p = *sh.p;
  const bool direct = GemvDirect(p);
  const bool same_a = p.lt == PrimitiveTypeOf<T>();
  const int64_t scratch_ld = GemvScratchLd(p.nc, sizeof(T));
  // A's rows likewise an odd number of lines apart: each step of the
  // kernel reads a few values of every row.
  const int64_t lda = GemvScratchLd(p.k, sizeof(T));
  Scratch a_buf(p.m * lda * static_cast<int64_t>(sizeof(T)));
  Scratch c_buf(direct ? 64 : p.m * scratch_ld * int64_t{sizeof(T)});
  if (a_buf.p == nullptr || c_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  T* a = static_cast<T*>(a_buf.p);
  for (int64_t item = item_begin; item < item_end; ++item) {
    const int64_t ni = item % p.n_blocks;
    const int64_t bi = item / p.n_blocks;
    const int64_t n0 = ni * p.nc, n1 = std::min(p.n, n0 + p.nc);
    if (n0 >= n1) continue;
    const int64_t ncols = n1 - n0;
    const int64_t a_off = p.a_b[bi];
    for (int64_t r = 0; r < p.m; ++r) {
      if (same_a && p.a_ks == 1) {
        // Copied and scanned in one vector pass.
        sa.CopyScan(*sh.kernels,
                    static_cast<const T*>(sh.lhs) + a_off + p.a_m[r] + p.a_k[0],
                    a + r * lda, p.k);
        continue;
      }
      for (int64_t k = 0; k < p.k; ++k) {
        a[r * lda + k] = la(a_off + p.a_m[r] + p.a_k[k]);
      }
      sa.CopyScan(*sh.kernels, a + r * lda, nullptr, p.k);
    }
    T* c;
    int64_t ldc;
    if (direct) {
      c = static_cast<T*>(sh.out) + p.c_b[bi] + p.c_m[0] + p.c_n[n0];
      ldc = p.c_ms;
    } else {
      c = static_cast<T*>(c_buf.p);
      ldc = scratch_ld;
    }
    // One call over all of K: B streams through once, scanned by the
    // kernel itself for the range guard. B's element offset (a bf16 B is
    // read as its bit patterns).
    const int64_t b_off = p.b_b[bi] + p.b_n[n0] + p.b_k[0];
    const int m = static_cast<int>(p.m);
    if constexpr (std::is_same_v<T, float>) {
      // (Each pointer only for its own type: an offset in the other type's
      // elements could point past the buffer.)
      const uint16_t* b16 = p.rt == PrimitiveType::kBF16
                                ? static_cast<const uint16_t*>(sh.rhs) + b_off
                                : nullptr;
      const float* b32 = p.rt == PrimitiveType::kBF16
                             ? nullptr
                             : static_cast<const float*>(sh.rhs) + b_off;
      // Null statistics: B not scanned (sh.scan_b).
      uint32_t* kt_mx = sh.scan_b ? &sb.max_abs : nullptr;
      uint32_t* kt_mn = sh.scan_b ? &sb.min_nz_minus1 : nullptr;
      if (p.rt == PrimitiveType::kBF16 && p.gemv_kt) {
        sh.kernels->gemv_kt_bf16b_f32(m, p.k, a, lda, b16, p.b_ns, ncols, c,
                                      ldc, kt_mx, kt_mn);
      } else if (p.rt == PrimitiveType::kBF16) {
        sh.kernels->gemv_bf16b_f32(m, p.k, a, lda, b16, p.b_ks, ncols, c, ldc,
                                   false, &sb.max_abs, &sb.min_nz_minus1);
      } else if (p.gemv_kt) {
        sh.kernels->gemv_kt_f32(m, p.k, a, lda, b32, p.b_ns, ncols, c, ldc,
                                kt_mx, kt_mn);
      } else {
        sh.kernels->gemv_f32(m, p.k, a, lda, b32, p.b_ks, ncols, c, ldc, false,
                             &sb.max_abs, &sb.min_nz_minus1);
      }
    } else {
      sh.kernels->gemv_f64(m, p.k, a, lda,
                           static_cast<const T*>(sh.rhs) + b_off, p.b_ks, ncols,
                           c, ldc, false, &sb.max_abs, &sb.min_nz_minus1);
    }
    if (p.direct_c && !direct) {
      // The result type with unit stride along N: whole rows.
      T* out = static_cast<T*>(sh.out) + p.c_b[bi] + p.c_n[n0];
      for (int64_t i = 0; i < p.m; ++i) {
        std::memcpy(out + p.c_m[i], c + i * ldc,
                    static_cast<size_t>(ncols) * sizeof(T));
      }
    } else if (!direct) {
      const int64_t cb = p.c_b[bi];
      for (int64_t i = 0; i < p.m; ++i) {
        StoreRow<T>(p, *sh.kernels, sh.out, cb + p.c_m[i], n0, n1, c + i * ldc);
      }
    }
  }
}

// Zeroes the nonzero subnormal entries of a packed A panel (n values);
// true when there was one. On Intel cores an FMA with a subnormal operand
// takes a microcode assist (DAZ is off, as conformance requires): softmax
// probabilities with ~6 % subnormal entries ran the 6 x 64 tile 11x slower
// (docs/performance.md). A zeroed entry contributes fma(0, b, s) = s
// exactly, so each element stays one FMA chain over the kept terms; the
// dropped terms (|a| < lambda each) are accounted for by the threshold of
// RecheckRows (DroppedTermsThreshold).
template <typename T>
bool FlushSubnormalsInPanel(T* panel, int64_t n) {
  using U = typename Bits<T>::U;
  const U min_normal = std::bit_cast<U>(std::numeric_limits<T>::min());
  U any = 0;
  for (int64_t i = 0; i < n; ++i) {
    // The bits through std::bit_cast, not a U* view of the panel: the
    // panel holds T objects (written as T by the packing), and reading or
    // writing them as U would break the aliasing rules.
    const U bits = std::bit_cast<U>(panel[i]);
    const U u = bits & Bits<T>::kAbs;
    // u - 1 < min_normal - 1 exactly when 0 < |x| < lambda.
    const U sub = static_cast<U>(0) - static_cast<U>(u - 1 < min_normal - 1);
    panel[i] = std::bit_cast<T>(static_cast<U>(bits & ~sub));
    any |= sub;
  }
  return any != 0;
}

// The largest distance between B's rows at which RunFloatItems reads a B
// block in place instead of packing it.
constexpr int64_t kBInPlaceRowBytes = 512;

template <typename T>
void RunFloatItems(Shared& sh, int64_t item_begin, int64_t item_end) {
  const Problem& p = *sh.p;
  constexpr int64_t kNr =
      std::is_same_v<T, float> ? gemm::kGemmNrF32 : gemm::kGemmNrF64;
  const Loader<T> la = MakeLoader<T>(p.lt, sh.lhs);
  const Loader<T> lb = MakeLoader<T>(p.rt, sh.rhs);
  const bool same_b = p.rt == PrimitiveTypeOf<T>();
  if (p.gemv) {
    Stats<T> sa, sb;
    RunGemvItems<T>(sh, la, sa, sb, item_begin, item_end);
    MergeStats(sh, sa, sb);
    return;
  }
  Scratch a_buf(p.kc * kGemmMr * sizeof(T));
  Scratch b_buf(p.kc * p.nc * static_cast<int64_t>(sizeof(T)));
  Scratch c_buf(
      p.direct_c ? 64 : p.m_chunk * p.nc * static_cast<int64_t>(sizeof(T)));
  if (a_buf.p == nullptr || b_buf.p == nullptr || c_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  T* apanel = static_cast<T*>(a_buf.p);
  T* bblock = static_cast<T*>(b_buf.p);
  // Which A blocks the row kernel takes (see the K loop): an f32 A with K
  // contiguous in place, a bf16 / f16 one through `arows` (one 6-row
  // panel), rows an odd number of cache lines apart (six rows a power of
  // two apart would share L1 sets).
  static const bool force_pack_a = EnvInt("HLOREF_CPU_GEMM_PACK_A", 0) > 0;
  const bool rows_kernel = std::is_same_v<T, float> && !force_pack_a &&
                           sh.kernels->f32_rows_a != nullptr && p.a_ks == 1;
  const bool rows_a_f32 =
      rows_kernel && p.lt == PrimitiveType::kF32 && p.a_ms != kNotAffine &&
      (sh.kernels->f32_rows_a_any_ld ||
       p.a_ms * static_cast<int64_t>(sizeof(float)) % 4096 != 0);
  const gemm::GemmCvtScanBf16 cvt_a =
      rows_kernel ? Cvt16(p.lt, *sh.kernels) : nullptr;
  const int64_t arows_ld = GemvScratchLd(p.kc, sizeof(T));
  Scratch arows_buf(cvt_a != nullptr
                        ? kGemmMr * arows_ld * static_cast<int64_t>(sizeof(T))
                        : 64);
  if (arows_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  T* arows = static_cast<T*>(arows_buf.p);
  Stats<T> sa, sb;
  for (int64_t item = item_begin; item < item_end; ++item) {
    Tile t;
    if (!TileOf(p, item, &t)) continue;
    const int64_t bi = t.bi, m0 = t.m0, m1 = t.m1, n0 = t.n0, n1 = t.n1;
    const int64_t ncols = t.cols();
    int64_t ldc;
    T* c = TileTarget<T>(p, sh.out, c_buf.p, t, &ldc);
    const int64_t a_off = p.a_b[bi], b_off = p.b_b[bi];
    for (int64_t k0 = 0; k0 < p.k; k0 += p.kc) {
      const int64_t kc = std::min(p.kc, p.k - k0);
      // Pack B [kc x ncols] into kNr-wide panels, zero-padded. (Skinny M
      // packs too: reading a row-major B in place was slower here, its
      // 64-column panels strided by N rows conflicting in L1 and L2.)
      Stats<T> bstats;
      // One panel whose kc rows are already contiguous in B (N = kNr, row
      // stride kNr: attention's [tokens x 64] values) is the packed layout
      // itself: the kernel reads it in place, and only its statistics are
      // taken (multi_head_attention's second product packed 32 KiB per
      // head for nothing).
      // So is a block whose rows are at most kBInPlaceRowBytes apart
      // (batched 32 x (128 x 64 x 128): 512-byte rows; 12 % of its time
      // was the copy): the tile reads its panels with that row stride, and
      // the rows' 64-column slices spread over at least half the L1 sets.
      // Rows further apart are packed: N rows 4 KiB apart share L1 sets.
      // b_ld: the distance between B's rows as the kernel reads them;
      // b_step: between its 64-column panels.
      const T* bpanels = bblock;
      int64_t b_ld = kNr, b_step = kc * kNr;
      const bool b_in_place =
          same_b && p.b_ns == 1 && p.b_ks != kNotAffine &&
          (p.b_ks == kNr
               ? ncols == kNr
               : p.b_ks >= ncols && p.b_ks * static_cast<int64_t>(sizeof(T)) <=
                                        kBInPlaceRowBytes);
      if (b_in_place) {
        bpanels = static_cast<const T*>(sh.rhs) + b_off + p.b_k[k0] + p.b_n[n0];
        if (p.b_ks == ncols) {
          bstats.Scan(*sh.kernels, bpanels, kc * ncols);
        } else {
          for (int64_t k = 0; k < kc; ++k) {
            bstats.Scan(*sh.kernels, bpanels + k * p.b_ks, ncols);
          }
        }
        b_ld = p.b_ks;
        b_step = kNr;
      }
      // Subnormal entries of B zeroed as A's (FlushSubnormalsInPanel; the
      // zero padding past ncols is unchanged): in the packed copy.
      const bool flush_b = sh.flush_a && bstats.HasNonzero() &&
                           bstats.MinNonzero() < std::numeric_limits<T>::min();
      if (!b_in_place || flush_b) {
        bstats = Stats<T>();
        PackB<T, kNr>(p, lb, sh.rhs, b_off, n0, ncols, k0, kc, bblock,
                      *sh.kernels, bstats);
        bpanels = bblock;
        b_ld = kNr;
        b_step = kc * kNr;
      }
      // A panel read in place at the N edge has only nr readable columns.
      const bool b_packed = bpanels == bblock;
      sb.Merge(bstats);
      if (sh.flush_a && bstats.HasNonzero() &&
          bstats.MinNonzero() < std::numeric_limits<T>::min() &&
          FlushSubnormalsInPanel(bblock, CeilDiv(ncols, kNr) * kc * kNr)) {
        sh.flushed_b.store(true, std::memory_order_relaxed);
      }
      // A with K contiguous goes to the kernel as rows (f32_rows_a, no
      // transposing pack): a row-major f32 A in place, its statistics from
      // one scan of the block, unless the block has subnormal entries to
      // flush (then the packed path below); a bf16 / f16 A panel by panel
      // (6 rows) widened into `arows` just before its tiles (statistics
      // from the same pass, subnormals flushed there): one vector pass
      // instead of the per-element packing, and the kernel then reads A
      // from L1 (256^3 bf16: 0.98x -> ~1.0x our f32; the whole block
      // widened first, 1.5 MiB at most, ran slower).
      if constexpr (std::is_same_v<T, float>) {
        const float* a0 = nullptr;
        int64_t lda = 0;
        if (rows_a_f32) {
          a0 =
              static_cast<const float*>(sh.lhs) + a_off + p.a_m[m0] + p.a_k[k0];
          lda = p.a_ms;
          Stats<T> blk;
          if (p.a_ms == kc) {
            blk.Scan(*sh.kernels, a0, (m1 - m0) * kc);
          } else {
            for (int64_t i = m0; i < m1; ++i) {
              blk.Scan(*sh.kernels, a0 + (i - m0) * p.a_ms, kc);
            }
          }
          sa.Merge(blk);
          if (sh.flush_a && blk.HasNonzero() &&
              blk.MinNonzero() < std::numeric_limits<T>::min()) {
            a0 = nullptr;
          }
        }
        if (a0 != nullptr || cvt_a != nullptr) {
          const uint16_t* h = static_cast<const uint16_t*>(sh.lhs) + a_off;
          for (int64_t i0 = m0; i0 < m1; i0 += kGemmMr) {
            const int mr =
                static_cast<int>(std::min<int64_t>(kGemmMr, m1 - i0));
            const float* ap = arows;
            int64_t ld = arows_ld;
            if (cvt_a == nullptr) {
              ap = a0 + (i0 - m0) * lda;
              ld = lda;
            } else {
              // The panel's rows widened into `arows` (L1-resident for
              // the panel's tiles), with their statistics; subnormals
              // flushed there.
              Stats<T> panel;
              for (int r = 0; r < mr; ++r) {
                cvt_a(h + p.a_m[i0 + r] + p.a_k[k0], arows + r * arows_ld, kc,
                      kc, kc, &panel.max_abs, &panel.min_nz_minus1);
              }
              sa.Merge(panel);
              if (sh.flush_a && panel.HasNonzero() &&
                  panel.MinNonzero() < std::numeric_limits<T>::min()) {
                bool any = false;
                for (int r = 0; r < mr; ++r) {
                  any |= FlushSubnormalsInPanel(arows + r * arows_ld, kc);
                }
                if (any) sh.flushed_a.store(true, std::memory_order_relaxed);
              }
            }
            T* crow = c + (i0 - m0) * ldc;
            for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
              const int nr =
                  static_cast<int>(std::min<int64_t>(kNr, ncols - j0));
              sh.kernels->f32_rows_a(kc, ap, ld, bpanels + (j0 / kNr) * b_step,
                                     b_ld, crow + j0, ldc, mr, nr, k0 > 0,
                                     b_packed || nr == kNr);
            }
          }
          continue;
        }
      }
      for (int64_t i0 = m0; i0 < m1; i0 += kGemmMr) {
        const int mr = static_cast<int>(std::min<int64_t>(kGemmMr, m1 - i0));
        // Pack A [mr x kc] as a[k * 6 + r]; unused rows are zero.
        PackA<T>(p, la, sh.lhs, a_off, i0, mr, k0, kc, apanel, *sh.kernels);
        Stats<T> panel;
        panel.CopyScan(*sh.kernels, apanel, nullptr, kc * kGemmMr);
        sa.Merge(panel);
        if (sh.flush_a && panel.HasNonzero() &&
            panel.MinNonzero() < std::numeric_limits<T>::min() &&
            FlushSubnormalsInPanel(apanel, kc * kGemmMr)) {
          sh.flushed_a.store(true, std::memory_order_relaxed);
        }
        T* crow = c + (i0 - m0) * ldc;
        for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
          const int nr = static_cast<int>(std::min<int64_t>(kNr, ncols - j0));
          const T* bp = bpanels + (j0 / kNr) * b_step;
          const bool full_b_rows = b_packed || nr == kNr;
          if constexpr (std::is_same_v<T, float>) {
            sh.kernels->f32(kc, apanel, bp, b_ld, crow + j0, ldc, mr, nr,
                            k0 > 0, full_b_rows);
          } else {
            sh.kernels->f64(kc, apanel, bp, b_ld, crow + j0, ldc, mr, nr,
                            k0 > 0, full_b_rows);
          }
        }
      }
    }
    if (!p.direct_c) {
      const int64_t cb = p.c_b[bi];
      for (int64_t i = m0; i < m1; ++i) {
        StoreRow<T>(p, *sh.kernels, sh.out, cb + p.c_m[i], n0, n1,
                    c + (i - m0) * ldc);
      }
    }
  }
  MergeStats(sh, sa, sb);
}

// The threshold below which RecheckRows recomputes an element when A
// panels and / or B blocks had subnormal entries zeroed
// (FlushSubnormalsInPanel). Let D be the s >= 1 dropped terms of an
// element, S' the sum of |a b| over the kept ones, y' their exact sum and v
// the computed value (a chain of K - s roundings over the kept terms). A
// dropped term has a subnormal a (|a b| < lambda Bmax) or a subnormal b
// (|a b| < lambda Amax), so with M = Bmax if A was flushed, max'ed with
// Amax if B was, |a b| <= lambda M for each. By RangeGuardFor's proof,
// |v| >= 2 lambda implies S' >= lambda and |v - y'| <= gamma_{K-s} S', so
//   |v - y| <= gamma_{K-s} S' + E,  E = |sum_D a b| <= s lambda M.
// The bound is gamma_K S >= gamma_K S' >= gamma_{K-s} S' + s u S'
// (gamma_n = n u / (1 - n u) grows by at least u per step), so it suffices
// that lambda M <= u S'. From |v| <= S' (1 + gamma_K) and K u <= 1/4
// (gamma_K <= 1/3), S' >= 3 |v| / 4; hence every element with
// |v| >= 2 lambda M / u (and >= 2 lambda) meets the bound, and the
// others are recomputed wide.
template <typename T>
T DroppedTermsThreshold(const Stats<T>& a, const Stats<T>& b, bool flushed_a,
                        bool flushed_b) {
  const long double lambda = std::numeric_limits<T>::min();
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  long double m = 0;
  if (flushed_a && b.HasNonzero()) m = std::max(m, b.MaxAbs());
  if (flushed_b && a.HasNonzero()) m = std::max(m, a.MaxAbs());
  const long double t = std::max(2 * lambda, 2 * lambda / u * m);
  return static_cast<T>(t);
}

// The range guard once A panels or B blocks had subnormal entries zeroed: a
// fast verdict becomes kCheckSmall (with DroppedTermsThreshold), which needs K
// u <= 1/4 like RangeGuardFor's; kCheckSmall and kWide stand.
RangeGuard AfterFlush(const Shared& sh, RangeGuard guard, int64_t k,
                      long double epsilon) {
  if (!(sh.flushed_a.load() || sh.flushed_b.load()) ||
      guard != RangeGuard::kFast) {
    return guard;
  }
  return static_cast<long double>(k) * epsilon / 2 > 0.25L
             ? RangeGuard::kWide
             : RangeGuard::kCheckSmall;
}

// One element's wide sequential sum: in k order in W (double for the f32
// path, long double for f64), each product exact in W.
template <typename T, typename W>
W WideSum(const Problem& p, const Loader<T>& la, const Loader<T>& lb,
          int64_t arow, int64_t bcol) {
  W acc = 0;
  for (int64_t k = 0; k < p.k; ++k) {
    acc += static_cast<W>(la(arow + p.a_k[k])) *
           static_cast<W>(lb(bcol + p.b_k[k]));
  }
  return acc;
}

// The wide sequential fallback of the float paths: each element one
// WideSum, rounded once.
template <typename T, typename W>
void RunWideRows(Shared& sh, int64_t row_begin, int64_t row_end) {
  const Problem& p = *sh.p;
  const Loader<T> la = MakeLoader<T>(p.lt, sh.lhs);
  const Loader<T> lb = MakeLoader<T>(p.rt, sh.rhs);
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t bi = row / p.m, i = row % p.m;
    const int64_t arow = p.a_b[bi] + p.a_m[i];
    for (int64_t j = 0; j < p.n; ++j) {
      const W acc = WideSum<T, W>(p, la, lb, arow, p.b_b[bi] + p.b_n[j]);
      const int64_t o = p.c_b[bi] + p.c_m[i] + p.c_n[j];
      if constexpr (std::is_same_v<T, float>) {
        // One rounding from f64 (EncodeFloat is correctly rounded).
        if (p.ot == PrimitiveType::kF32) {
          static_cast<float*>(sh.out)[o] = static_cast<float>(acc);
        } else {
          static_cast<uint16_t*>(sh.out)[o] = static_cast<uint16_t>(
              EncodeFloat(FormatOf(p.ot), static_cast<double>(acc)));
        }
      } else {
        static_cast<double*>(sh.out)[o] = static_cast<double>(acc);
      }
    }
  }
}

// Whether every |v[j]|, j < n, lies in [lo, hi] (0 <= lo <= hi <= inf; a
// NaN does not). On the bit patterns, which order non-negative floats as
// their values and put NaN above inf: |v| in [lo, hi] iff abs_bits - lo_bits
// <= hi_bits - lo_bits unsigned. Chunks of 16 without an early exit, which
// GCC vectorises at -O2: the element-wise test of RecheckRows, with its
// index arrays, took 10 % of a decoding step's attention (16 x 1024
// scores, all standing).
template <typename T>
bool AllWithin(const T* v, int64_t n, T lo, T hi) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kAbs = ~U{0} >> 1;
  U lo_bits, hi_bits;
  std::memcpy(&lo_bits, &lo, sizeof(T));
  std::memcpy(&hi_bits, &hi, sizeof(T));
  const U span = hi_bits - lo_bits;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    U bits[16];
    std::memcpy(bits, v + j, sizeof(bits));
    U out = 0;
    for (int l = 0; l < 16; ++l) {
      out |= static_cast<U>((bits[l] & kAbs) - lo_bits > span);
    }
    if (out != 0) return false;
  }
  for (; j < n; ++j) {
    U bits;
    std::memcpy(&bits, v + j, sizeof(T));
    if ((bits & kAbs) - lo_bits > span) return false;
  }
  return true;
}

// The elements of a fast-path result that the range guard does not let
// stand, recomputed as RunWideRows does (the result type is T):
//  * RangeGuard::kCheckSmall (each_sa null): those whose value is below
//    `threshold` (2 lambda, kernel_support.h RangeGuardFor); every other
//    element already meets the bound;
//  * RangeGuard::kCheckEach (B was not scanned): those CheckEachStands does
//    not keep and FastPathSafe does not keep on their own operands (A's
//    statistics *each_sa, their B column's taken here).
template <typename T, typename W>
void RecheckRows(Shared& sh, T threshold, const Stats<T>* each_sa,
                 int64_t row_begin, int64_t row_end) {
  const Problem& p = *sh.p;
  const Loader<T> la = MakeLoader<T>(p.lt, sh.lhs);
  const Loader<T> lb = MakeLoader<T>(p.rt, sh.rhs);
  T* out = static_cast<T*>(sh.out);
  // Values that stand by their own magnitude alone: below `threshold`
  // (kCheckSmall) or not CheckEachStands (kCheckEach) is outside.
  const T lo =
      each_sa == nullptr ? threshold : 2 * std::numeric_limits<T>::min();
  const T hi = each_sa == nullptr ? std::numeric_limits<T>::infinity()
                                  : std::numeric_limits<T>::max();
  const bool rows_contiguous = p.c_ns == 1 || p.n == 1;
  int64_t count = 0;
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t bi = row / p.m, i = row % p.m;
    const int64_t arow = p.a_b[bi] + p.a_m[i];
    const int64_t crow = p.c_b[bi] + p.c_m[i];
    if (rows_contiguous && AllWithin(out + crow + p.c_n[0], p.n, lo, hi)) {
      continue;
    }
    for (int64_t j = 0; j < p.n; ++j) {
      T& v = out[crow + p.c_n[j]];
      const int64_t bcol = p.b_b[bi] + p.b_n[j];
      if (each_sa == nullptr) {
        if (!(std::fabs(v) < threshold)) continue;
      } else {
        if (CheckEachStands(v)) continue;
        Stats<T> sb;
        for (int64_t k = 0; k < p.k; ++k) sb.Add(lb(bcol + p.b_k[k]));
        if (FastPathSafe(*each_sa, sb, p.k)) continue;
      }
      v = static_cast<T>(WideSum<T, W>(p, la, lb, arow, bcol));
      ++count;
    }
  }
  sh.small_recomputed.fetch_add(count, std::memory_order_relaxed);
}

// Whether RangeGuard::kCheckSmall may replace the whole-dot fallback (the
// preconditions of RangeGuardFor's proof that are not about the data).
bool SmallCheckAllowed(const Problem& p, const GemmKernels& kernels) {
  if (!kernels.fma_chain) return false;
  const PrimitiveType acc =
      p.path == GemmPath::kF64 ? PrimitiveType::kF64 : PrimitiveType::kF32;
  if (p.ot != acc) return false;
  // The oracle counts m = K steps only when products are rounded in the
  // result type (interpreter's ProductsRounded); with exact products it
  // counts K - 1 and the first FMA's rounding of a subnormal product would
  // be outside the bound.
  return Precision(FormatOf(p.lt)) + Precision(FormatOf(p.rt)) >
         Precision(FormatOf(acc));
}

// ---- the integer path: operands widened to s16 pairs along K.

// A tile's s32 sums from the scratch C (ldc apart) into the output.
void StoreIntTile(const Problem& p, const Tile& t, const int32_t* c,
                  int64_t ldc, void* out) {
  const int64_t cb = p.c_b[t.bi];
  for (int64_t i = t.m0; i < t.m1; ++i) {
    for (int64_t j = t.n0; j < t.n1; ++j) {
      StoreInt(p.ot, out, cb + p.c_m[i] + p.c_n[j],
               c[(i - t.m0) * ldc + (j - t.n0)]);
    }
  }
}

void RunIntItems(Shared& sh, int64_t item_begin, int64_t item_end) {
  const Problem& p = *sh.p;
  constexpr int64_t kNr = gemm::kGemmNrInt;
  const int64_t kp_max = p.kc / 2;
  Scratch a_buf(kp_max * kGemmMr * 2 * sizeof(int16_t));
  Scratch b_buf(kp_max * 2 * p.nc * static_cast<int64_t>(sizeof(int16_t)));
  Scratch c_buf(p.direct_c
                    ? 64
                    : p.m_chunk * p.nc * static_cast<int64_t>(sizeof(int32_t)));
  if (a_buf.p == nullptr || b_buf.p == nullptr || c_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  int16_t* apanel = static_cast<int16_t*>(a_buf.p);
  int16_t* bblock = static_cast<int16_t*>(b_buf.p);
  for (int64_t item = item_begin; item < item_end; ++item) {
    Tile t;
    if (!TileOf(p, item, &t)) continue;
    const int64_t bi = t.bi, m0 = t.m0, m1 = t.m1, n0 = t.n0;
    const int64_t ncols = t.cols();
    int64_t ldc;
    int32_t* c = TileTarget<int32_t>(p, sh.out, c_buf.p, t, &ldc);
    const int64_t a_off = p.a_b[bi], b_off = p.b_b[bi];
    for (int64_t k0 = 0; k0 < p.k; k0 += p.kc) {
      const int64_t kc = std::min(p.kc, p.k - k0);
      const int64_t kp = CeilDiv(kc, 2);
      for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
        const int64_t nr = std::min<int64_t>(kNr, ncols - j0);
        int16_t* panel = bblock + (j0 / kNr) * kp * 2 * kNr;
        const int64_t* bn = p.b_n.data() + n0 + j0;
        for (int64_t q = 0; q < kp; ++q) {
          int16_t* dst = panel + q * 2 * kNr;
          for (int h = 0; h < 2; ++h) {
            const int64_t k = 2 * q + h;
            if (k >= kc) {
              for (int64_t j = 0; j < kNr; ++j) dst[2 * j + h] = 0;
              continue;
            }
            const int64_t row = b_off + p.b_k[k0 + k];
            for (int64_t j = 0; j < nr; ++j) {
              dst[2 * j + h] =
                  static_cast<int16_t>(LoadSmallInt(p.rt, sh.rhs, row + bn[j]));
            }
            for (int64_t j = nr; j < kNr; ++j) dst[2 * j + h] = 0;
          }
        }
      }
      for (int64_t i0 = m0; i0 < m1; i0 += kGemmMr) {
        const int mr = static_cast<int>(std::min<int64_t>(kGemmMr, m1 - i0));
        for (int r = 0; r < kGemmMr; ++r) {
          const int64_t row = r < mr ? a_off + p.a_m[i0 + r] : 0;
          for (int64_t k = 0; k < 2 * kp; ++k) {
            const int16_t v = r < mr && k < kc
                                  ? static_cast<int16_t>(LoadSmallInt(
                                        p.lt, sh.lhs, row + p.a_k[k0 + k]))
                                  : int16_t{0};
            apanel[((k / 2) * kGemmMr + r) * 2 + (k % 2)] = v;
          }
        }
        int32_t* crow = c + (i0 - m0) * ldc;
        for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
          const int nr = static_cast<int>(std::min<int64_t>(kNr, ncols - j0));
          const int16_t* bp = bblock + (j0 / kNr) * kp * 2 * kNr;
          sh.kernels->i16(kp, apanel, bp, 2 * kNr, crow + j0, ldc, mr, nr,
                          k0 > 0, true);
        }
      }
    }
    if (!p.direct_c) StoreIntTile(p, t, c, ldc, sh.out);
  }
}

// Packs B [kc x ncols] (rows k0.., columns n0.. of batch offset b_off)
// into the GemmKernelI8 B layout: 64-column panels panel_stride bytes
// apart, ceil(kc / 4) quad rows each, zero past kc in the last quad and
// past ncols in the last panel. With colsum, adds each column's byte sum
// (as s8 for an s8 B, else u8) to colsum[j].
void PackI8B(const Problem& p, const GemmKernels& kernels, const uint8_t* rhs,
             int64_t b_off, int64_t k0, int64_t kc, int64_t n0, int64_t ncols,
             int64_t panel_stride, uint8_t* bblock, int32_t* colsum) {
  constexpr int64_t kNr = gemm::kGemmNrInt;
  const bool b_signed = p.rt != PrimitiveType::kU8;
  const int64_t kq = CeilDiv(kc, 4);
  const int64_t* bn = p.b_n.data() + n0;
  if (p.b_ns == 1 && p.b_ks != kNotAffine) {
    // Row-major B: each quad of rows in one vector pass.
    const uint8_t* src = rhs + b_off + p.b_k[k0] + bn[0];
    for (int64_t q = 0; q < kq; ++q) {
      const int rows = static_cast<int>(std::min<int64_t>(4, kc - 4 * q));
      kernels.pack_i8b(src + 4 * q * p.b_ks, p.b_ks, rows, ncols,
                       bblock + q * 4 * kNr, panel_stride, colsum, b_signed);
    }
    return;
  }
  for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
    const int64_t nr = std::min<int64_t>(kNr, ncols - j0);
    uint8_t* panel = bblock + (j0 / kNr) * panel_stride;
    for (int64_t q = 0; q < kq; ++q) {
      uint8_t* dst = panel + q * 4 * kNr;
      if (nr < kNr || 4 * q + 4 > kc) std::memset(dst, 0, 4 * kNr);
      for (int h = 0; h < 4 && 4 * q + h < kc; ++h) {
        const int64_t row = b_off + p.b_k[k0 + 4 * q + h];
        for (int64_t j = 0; j < nr; ++j) {
          dst[4 * j + h] = rhs[row + bn[j0 + j]];
        }
      }
      if (colsum != nullptr) {
        int32_t* cs = colsum + j0;
        for (int64_t j = 0; j < nr; ++j) {
          const uint8_t* v = dst + 4 * j;
          cs[j] += b_signed ? int32_t{static_cast<int8_t>(v[0])} +
                                  static_cast<int8_t>(v[1]) +
                                  static_cast<int8_t>(v[2]) +
                                  static_cast<int8_t>(v[3])
                            : int32_t{v[0]} + v[1] + v[2] + v[3];
        }
      }
    }
  }
}

// ---- the integer path on vpdpbusd: bytes, K in quads (gemm_kernels.h
// GemmKernelI8). The operand roles and the offset: B's bytes are the
// unsigned operand when B is u8, else A's are; when both operands have the
// same signedness A is moved into the other one by xor 0x80 (s8: +128, u8:
// -128), and each tile gets corr[j] = -+128 * (B's column sum over the K
// block): (a + 128) b - 128 b = a b, (a - 128) b + 128 b = a b, all in s32
// with wraparound, so the sum is exact modulo 2^32 like the oracle's.
void RunI8Items(Shared& sh, int64_t item_begin, int64_t item_end) {
  const Problem& p = *sh.p;
  constexpr int64_t kNr = gemm::kGemmNrInt;
  const int64_t kq_max = CeilDiv(p.kc, 4);
  const int64_t b_bytes = kq_max * 4 * p.nc;
  Scratch a_buf(kq_max * kGemmMr * 4);
  Scratch b_buf(b_bytes + p.nc * int64_t{sizeof(int32_t)});
  Scratch c_buf(p.direct_c
                    ? 64
                    : p.m_chunk * p.nc * static_cast<int64_t>(sizeof(int32_t)));
  if (a_buf.p == nullptr || b_buf.p == nullptr || c_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  const bool same = p.lt == p.rt;
  const bool b_unsigned = p.rt == PrimitiveType::kU8;
  const uint8_t a_xor = same ? 0x80 : 0;
  const uint32_t corr_scale = same ? (b_unsigned ? 128u : 0u - 128u) : 0u;
  uint8_t* apanel = static_cast<uint8_t*>(a_buf.p);
  uint8_t* bblock = static_cast<uint8_t*>(b_buf.p);
  int32_t* corr = reinterpret_cast<int32_t*>(bblock + b_bytes);
  const uint8_t* lhs = static_cast<const uint8_t*>(sh.lhs);
  const uint8_t* rhs = static_cast<const uint8_t*>(sh.rhs);
  for (int64_t item = item_begin; item < item_end; ++item) {
    Tile t;
    if (!TileOf(p, item, &t)) continue;
    const int64_t bi = t.bi, m0 = t.m0, m1 = t.m1, n0 = t.n0;
    const int64_t ncols = t.cols();
    int64_t ldc;
    int32_t* c = TileTarget<int32_t>(p, sh.out, c_buf.p, t, &ldc);
    const int64_t a_off = p.a_b[bi], b_off = p.b_b[bi];
    for (int64_t k0 = 0; k0 < p.k; k0 += p.kc) {
      const int64_t kc = std::min(p.kc, p.k - k0);
      const int64_t kq = CeilDiv(kc, 4);
      // Pack B [kc x ncols] into 64-column panels of quads, zero-padded in
      // K and N, summing each column for the correction.
      if (same) std::fill(corr, corr + ncols, 0);
      const int64_t panel_stride = kq * 4 * kNr;
      PackI8B(p, *sh.kernels, rhs, b_off, k0, kc, n0, ncols, panel_stride,
              bblock, same ? corr : nullptr);
      if (same) {
        for (int64_t j = 0; j < ncols; ++j) {
          corr[j] =
              static_cast<int32_t>(static_cast<uint32_t>(corr[j]) * corr_scale);
        }
      }
      for (int64_t i0 = m0; i0 < m1; i0 += kGemmMr) {
        const int mr = static_cast<int>(std::min<int64_t>(kGemmMr, m1 - i0));
        if (mr < kGemmMr || kc % 4 != 0) {
          std::memset(apanel, 0, static_cast<size_t>(kq * kGemmMr * 4));
        }
        // Six rows with K contiguous: the kernel set's panel packer (whole
        // quads), the tail bytes here; otherwise row by row below.
        const bool six_rows =
            p.a_ks == 1 && mr == kGemmMr && sh.kernels->pack_a_words != nullptr;
        if (six_rows) {
          const uint8_t* rows[kGemmMr];
          for (int r = 0; r < kGemmMr; ++r) {
            rows[r] = lhs + a_off + p.a_m[i0 + r] + p.a_k[k0];
          }
          sh.kernels->pack_a_words(rows, kc / 4, a_xor, apanel);
          for (int r = 0; r < kGemmMr; ++r) {
            for (int64_t k = kc / 4 * 4; k < kc; ++k) {
              apanel[((k / 4) * kGemmMr + r) * 4 + k % 4] = rows[r][k] ^ a_xor;
            }
          }
        }
        for (int r = 0; r < (six_rows ? 0 : mr); ++r) {
          const int64_t row = a_off + p.a_m[i0 + r];
          if (p.a_ks == 1) {
            // Whole quads as 32-bit words, the tail byte by byte.
            const uint8_t* src = lhs + row + p.a_k[k0];
            const uint32_t x4 = a_xor * 0x01010101u;
            const int64_t full = kc / 4;
            for (int64_t q = 0; q < full; ++q) {
              uint32_t w;
              std::memcpy(&w, src + 4 * q, 4);
              w ^= x4;
              std::memcpy(apanel + (q * kGemmMr + r) * 4, &w, 4);
            }
            for (int64_t k = 4 * full; k < kc; ++k) {
              apanel[((k / 4) * kGemmMr + r) * 4 + k % 4] = src[k] ^ a_xor;
            }
          } else {
            for (int64_t k = 0; k < kc; ++k) {
              apanel[((k / 4) * kGemmMr + r) * 4 + k % 4] =
                  lhs[row + p.a_k[k0 + k]] ^ a_xor;
            }
          }
        }
        int32_t* crow = c + (i0 - m0) * ldc;
        for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
          const int nr = static_cast<int>(std::min<int64_t>(kNr, ncols - j0));
          const uint8_t* bp = bblock + (j0 / kNr) * kq * 4 * kNr;
          sh.kernels->i8(kq, apanel, bp, 4 * kNr, crow + j0, ldc, mr, nr,
                         k0 > 0, b_unsigned, same ? corr + j0 : nullptr);
        }
      }
    }
    if (!p.direct_c) StoreIntTile(p, t, c, ldc, sh.out);
  }
}

// ---- shared by the AMX paths (bf16 pairs, int8 quads; T is the element)

// Zeroes the rows [from, to) of K groups (pairs or quads, `group` elements
// each) in every one of `panels` B panels of kNr columns: the padding up
// to the tile depth.
template <typename T>
void ZeroAmxBPadding(T* bblock, int64_t panels, int64_t panel_stride,
                     int64_t group, int64_t from, int64_t to) {
  constexpr int64_t kNr = gemm::kGemmNrF32;
  static_assert(gemm::kGemmNrInt == gemm::kGemmNrF32,
                "both AMX paths use 64-column B panels");
  for (int64_t pn = 0; pn < panels; ++pn) {
    T* pad = bblock + pn * panel_stride + from * group * kNr;
    std::fill(pad, pad + (to - from) * group * kNr, T{0});
  }
}

// Copies rows [i0, i0 + mr) of A's K block [k0, k0 + kc) into an AMX A
// panel: row r at apanel + r * lda, K contiguous, zero from kc to lda;
// when mr > 16 also rows mr .. kGemmAmxMr - 1 zero (the second row tile
// reads them; the first tile's extra rows only reach rows not stored).
template <typename T>
void CopyAmxAPanel(const Problem& p, const T* lhs, int64_t a_off, int64_t i0,
                   int mr, int64_t k0, int64_t kc, int64_t lda, T* apanel) {
  for (int r = 0; r < mr; ++r) {
    T* dst = apanel + r * lda;
    const int64_t row = a_off + p.a_m[i0 + r];
    if (p.a_ks == 1) {
      std::memcpy(dst, lhs + row + p.a_k[k0],
                  static_cast<size_t>(kc) * sizeof(T));
    } else {
      for (int64_t k = 0; k < kc; ++k) dst[k] = lhs[row + p.a_k[k0 + k]];
    }
    std::fill(dst + kc, dst + lda, T{0});
  }
  if (mr > 16 && mr < gemm::kGemmAmxMr) {
    std::fill(apanel + mr * lda, apanel + gemm::kGemmAmxMr * lda, T{0});
  }
}

// ---- the integer path on AMX (gemm_kernels.h GemmKernelI8Amx): both
// operands' bytes as they are (the four instructions cover the s8 / u8
// combinations, so no offset and no correction), 32-row A panels with K
// contiguous, B in the VNNI kernel's quad panels with K padded to whole
// tiles (16 quads). The sums wrap modulo 2^32 like the oracle's.
void RunI8AmxItems(Shared& sh, const gemm::I8AmxKernels& amx,
                   int64_t item_begin, int64_t item_end) {
  const Problem& p = *sh.p;
  constexpr int64_t kNr = gemm::kGemmNrInt;
  constexpr int64_t kMr = gemm::kGemmAmxMr;
  const int64_t kq_max = RoundUp(CeilDiv(p.kc, 4), gemm::kGemmAmxKqStep);
  Scratch a_buf(kq_max * 4 * kMr);
  Scratch b_buf(kq_max * 4 * RoundUp(p.nc, kNr));
  Scratch c_buf(p.direct_c
                    ? 64
                    : p.m_chunk * p.nc * static_cast<int64_t>(sizeof(int32_t)));
  if (a_buf.p == nullptr || b_buf.p == nullptr || c_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  const gemm::GemmKernelI8Amx kernel =
      amx.kernel[p.lt == PrimitiveType::kU8][p.rt == PrimitiveType::kU8];
  uint8_t* apanel = static_cast<uint8_t*>(a_buf.p);
  uint8_t* bblock = static_cast<uint8_t*>(b_buf.p);
  const uint8_t* lhs = static_cast<const uint8_t*>(sh.lhs);
  const uint8_t* rhs = static_cast<const uint8_t*>(sh.rhs);
  amx.begin();
  for (int64_t item = item_begin; item < item_end; ++item) {
    Tile t;
    if (!TileOf(p, item, &t)) continue;
    const int64_t bi = t.bi, m0 = t.m0, m1 = t.m1, n0 = t.n0;
    const int64_t ncols = t.cols();
    int64_t ldc;
    int32_t* c = TileTarget<int32_t>(p, sh.out, c_buf.p, t, &ldc);
    const int64_t a_off = p.a_b[bi], b_off = p.b_b[bi];
    for (int64_t k0 = 0; k0 < p.k; k0 += p.kc) {
      const int64_t kc = std::min(p.kc, p.k - k0);
      const int64_t kq0 = CeilDiv(kc, 4);
      const int64_t kq = RoundUp(kq0, gemm::kGemmAmxKqStep);
      const int64_t panel_stride = kq * 4 * kNr;
      PackI8B(p, *sh.kernels, rhs, b_off, k0, kc, n0, ncols, panel_stride,
              bblock, nullptr);
      // The quad rows past K up to the tile depth: zero in every panel.
      ZeroAmxBPadding(bblock, CeilDiv(ncols, kNr), panel_stride, 4, kq0, kq);
      const int64_t lda = 4 * kq;
      for (int64_t i0 = m0; i0 < m1; i0 += kMr) {
        const int mr = static_cast<int>(std::min<int64_t>(kMr, m1 - i0));
        CopyAmxAPanel(p, lhs, a_off, i0, mr, k0, kc, lda, apanel);
        int32_t* crow = c + (i0 - m0) * ldc;
        for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
          const int nr = static_cast<int>(std::min<int64_t>(kNr, ncols - j0));
          kernel(kq, apanel, bblock + (j0 / kNr) * panel_stride, 4 * kNr,
                 crow + j0, ldc, mr, nr, k0 > 0);
        }
      }
    }
    if (!p.direct_c) StoreIntTile(p, t, c, ldc, sh.out);
  }
  amx.end();
}

// The bf16 fast paths' range-guard statistics of one value (as f32 bits).
void ScanBf16(Stats<float>& st, uint16_t v) {
  const uint32_t u = uint32_t{static_cast<uint16_t>(v & 0x7fffu)} << 16;
  st.max_abs = std::max(st.max_abs, u);
  st.min_nz_minus1 = std::min(st.min_nz_minus1, u - 1);
}

// Packs the B block of K rows [k0, k0 + kc) and columns [n0, n0 + ncols)
// into kNr-wide panels of ceil(kc / 2) K pairs (the vdpbf16ps / tdpbf16ps
// layout), panels `panel_stride` apart; the odd row of a last pair is zero.
// Pair rows past those (AMX's padding) are the caller's. The block's
// statistics go to `sb`.
void PackBf16PairsB(const Problem& p, const gemm::Bf16DotKernels& bk,
                    const uint16_t* rhs, int64_t b_off, int64_t k0, int64_t kc,
                    int64_t n0, int64_t ncols, int64_t panel_stride,
                    uint16_t* bblock, Stats<float>* sb) {
  constexpr int64_t kNr = gemm::kGemmNrF32;
  const int64_t kp = CeilDiv(kc, 2);
  const int64_t* bn = p.b_n.data() + n0;
  if (p.b_ns == 1 && p.b_ks != kNotAffine) {
    const uint16_t* src = rhs + b_off + p.b_k[k0] + bn[0];
    for (int64_t q = 0; q < kp; ++q) {
      const int rows = static_cast<int>(std::min<int64_t>(2, kc - 2 * q));
      bk.pack_b(src + 2 * q * p.b_ks, p.b_ks, rows, ncols, bblock + q * 2 * kNr,
                panel_stride, &sb->max_abs, &sb->min_nz_minus1);
    }
    return;
  }
  if (p.b_ks == 1 && p.b_ns != kNotAffine && bk.pack_b_kt != nullptr) {
    // K contiguous (attention's keys): a transpose of 32-bit pairs.
    bk.pack_b_kt(rhs + b_off + p.b_k[k0] + bn[0], p.b_ns, kc, ncols, bblock,
                 panel_stride, &sb->max_abs, &sb->min_nz_minus1);
    return;
  }
  for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
    const int64_t nr = std::min<int64_t>(kNr, ncols - j0);
    uint16_t* panel = bblock + (j0 / kNr) * panel_stride;
    for (int64_t q = 0; q < kp; ++q) {
      uint16_t* dst = panel + q * 2 * kNr;
      std::fill(dst, dst + 2 * kNr, uint16_t{0});
      for (int h = 0; h < 2 && 2 * q + h < kc; ++h) {
        const int64_t row = b_off + p.b_k[k0 + 2 * q + h];
        for (int64_t j = 0; j < nr; ++j) {
          dst[2 * j + h] = rhs[row + bn[j0 + j]];
          ScanBf16(*sb, dst[2 * j + h]);
        }
      }
    }
  }
}

// ---- fast mode (--cpu-fast): bf16 x bf16 on vdpbf16ps, K in pairs (not
// conformant without --deviations=ftz=f32+bf16: see gemm_kernels.h). Same
// loop nest as the float path; the range guard's statistics come from the
// packing (B) and a scan of each A panel.
void RunBf16FastItems(Shared& sh, const gemm::Bf16DotKernels& bk,
                      int64_t item_begin, int64_t item_end) {
  const Problem& p = *sh.p;
  constexpr int64_t kNr = gemm::kGemmNrF32;
  const int64_t kp_max = CeilDiv(p.kc, 2);
  Scratch a_buf(kp_max * kGemmMr * 2 * sizeof(uint16_t));
  Scratch b_buf(kp_max * 2 * p.nc * static_cast<int64_t>(sizeof(uint16_t)));
  Scratch c_buf(
      p.direct_c ? 64 : p.m_chunk * p.nc * static_cast<int64_t>(sizeof(float)));
  if (a_buf.p == nullptr || b_buf.p == nullptr || c_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  uint16_t* apanel = static_cast<uint16_t*>(a_buf.p);
  uint16_t* bblock = static_cast<uint16_t*>(b_buf.p);
  const uint16_t* lhs = static_cast<const uint16_t*>(sh.lhs);
  const uint16_t* rhs = static_cast<const uint16_t*>(sh.rhs);
  Stats<float> sa, sb;
  for (int64_t item = item_begin; item < item_end; ++item) {
    Tile t;
    if (!TileOf(p, item, &t)) continue;
    const int64_t bi = t.bi, m0 = t.m0, m1 = t.m1, n0 = t.n0, n1 = t.n1;
    const int64_t ncols = t.cols();
    int64_t ldc;
    float* c = TileTarget<float>(p, sh.out, c_buf.p, t, &ldc);
    const int64_t a_off = p.a_b[bi], b_off = p.b_b[bi];
    for (int64_t k0 = 0; k0 < p.k; k0 += p.kc) {
      const int64_t kc = std::min(p.kc, p.k - k0);
      const int64_t kp = CeilDiv(kc, 2);
      const int64_t panel_stride = kp * 2 * kNr;
      PackBf16PairsB(p, bk, rhs, b_off, k0, kc, n0, ncols, panel_stride, bblock,
                     &sb);
      for (int64_t i0 = m0; i0 < m1; i0 += kGemmMr) {
        const int mr = static_cast<int>(std::min<int64_t>(kGemmMr, m1 - i0));
        if (mr < kGemmMr || kc % 2 != 0) {
          std::fill(apanel, apanel + kp * kGemmMr * 2, uint16_t{0});
        }
        // Pairs are consecutive values: six rows with K contiguous go
        // through the kernel set's word interleave (the word-by-word copy
        // was 11 % of a bf16 256^3 GEMM, perf, Zen 5).
        const bool six_rows =
            p.a_ks == 1 && mr == kGemmMr && sh.kernels->pack_a_words != nullptr;
        if (six_rows) {
          const uint8_t* rows[kGemmMr];
          for (int r = 0; r < kGemmMr; ++r) {
            rows[r] = reinterpret_cast<const uint8_t*>(
                lhs + a_off + p.a_m[i0 + r] + p.a_k[k0]);
          }
          sh.kernels->pack_a_words(rows, kc / 2, 0,
                                   reinterpret_cast<uint8_t*>(apanel));
        }
        for (int r = 0; r < mr; ++r) {
          const int64_t row = a_off + p.a_m[i0 + r];
          if (p.a_ks == 1) {
            // The statistics from a vector pass on the bit patterns.
            const uint16_t* src = lhs + row + p.a_k[k0];
            for (int64_t q = 0; q < (six_rows ? 0 : kc / 2); ++q) {
              std::memcpy(apanel + (q * kGemmMr + r) * 2, src + 2 * q, 4);
            }
            if (kc % 2 != 0) {
              apanel[((kc / 2) * kGemmMr + r) * 2] = src[kc - 1];
            }
            bk.scan(src, kc, &sa.max_abs, &sa.min_nz_minus1);
            continue;
          }
          for (int64_t k = 0; k < kc; ++k) {
            const uint16_t v = lhs[row + p.a_k[k0 + k]];
            apanel[((k / 2) * kGemmMr + r) * 2 + k % 2] = v;
            ScanBf16(sa, v);
          }
        }
        float* crow = c + (i0 - m0) * ldc;
        for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
          const int nr = static_cast<int>(std::min<int64_t>(kNr, ncols - j0));
          bk.kernel(kp, apanel, bblock + (j0 / kNr) * panel_stride, 2 * kNr,
                    crow + j0, ldc, mr, nr, k0 > 0);
        }
      }
    }
    if (!p.direct_c) {
      const int64_t cb = p.c_b[bi];
      for (int64_t i = m0; i < m1; ++i) {
        StoreRow<float>(p, *sh.kernels, sh.out, cb + p.c_m[i], n0, n1,
                        c + (i - m0) * ldc);
      }
    }
  }
  MergeStats(sh, sa, sb);
}

// ---- fast mode on AMX (tdpbf16ps): the same loop nest and B packing as
// RunBf16FastItems, with K padded to whole tiles (16 pairs) and A packed
// as 32-row blocks of row-major bf16 (gemm_kernels.h, GemmKernelBf16Amx).
void RunBf16AmxItems(Shared& sh, const gemm::Bf16DotKernels& bk,
                     const gemm::Bf16AmxKernels& amx, int64_t item_begin,
                     int64_t item_end) {
  const Problem& p = *sh.p;
  constexpr int64_t kNr = gemm::kGemmNrF32;
  constexpr int64_t kMr = gemm::kGemmAmxMr;
  const int64_t kp_max = RoundUp(CeilDiv(p.kc, 2), gemm::kGemmAmxKpStep);
  Scratch a_buf(kp_max * kMr * 2 * sizeof(uint16_t));
  Scratch b_buf(kp_max * 2 * RoundUp(p.nc, kNr) *
                static_cast<int64_t>(sizeof(uint16_t)));
  Scratch c_buf(
      p.direct_c ? 64 : p.m_chunk * p.nc * static_cast<int64_t>(sizeof(float)));
  if (a_buf.p == nullptr || b_buf.p == nullptr || c_buf.p == nullptr) {
    std::lock_guard<std::mutex> lock(sh.mu);
    sh.failed_alloc = true;
    return;
  }
  uint16_t* apanel = static_cast<uint16_t*>(a_buf.p);
  uint16_t* bblock = static_cast<uint16_t*>(b_buf.p);
  const uint16_t* lhs = static_cast<const uint16_t*>(sh.lhs);
  const uint16_t* rhs = static_cast<const uint16_t*>(sh.rhs);
  Stats<float> sa, sb;
  amx.begin();
  for (int64_t item = item_begin; item < item_end; ++item) {
    Tile t;
    if (!TileOf(p, item, &t)) continue;
    const int64_t bi = t.bi, m0 = t.m0, m1 = t.m1, n0 = t.n0;
    const int64_t ncols = t.cols();
    int64_t ldc;
    float* c = TileTarget<float>(p, sh.out, c_buf.p, t, &ldc);
    const int64_t a_off = p.a_b[bi], b_off = p.b_b[bi];
    for (int64_t k0 = 0; k0 < p.k; k0 += p.kc) {
      const int64_t kc = std::min(p.kc, p.k - k0);
      const int64_t kp0 = CeilDiv(kc, 2);
      const int64_t kp = RoundUp(kp0, gemm::kGemmAmxKpStep);
      const int64_t panel_stride = kp * 2 * kNr;
      const int64_t panels = CeilDiv(ncols, kNr);
      PackBf16PairsB(p, bk, rhs, b_off, k0, kc, n0, ncols, panel_stride, bblock,
                     &sb);
      // The pair rows past K up to the tile depth: zero in every panel.
      ZeroAmxBPadding(bblock, panels, panel_stride, 2, kp0, kp);
      const int64_t lda = 2 * kp;
      for (int64_t i0 = m0; i0 < m1; i0 += kMr) {
        const int mr = static_cast<int>(std::min<int64_t>(kMr, m1 - i0));
        CopyAmxAPanel(p, lhs, a_off, i0, mr, k0, kc, lda, apanel);
        // The panel's statistics in one pass over its mr rows (the zero
        // padding changes nothing): one reduction per panel, not per row.
        bk.scan(apanel, mr * lda, &sa.max_abs, &sa.min_nz_minus1);
        float* crow = c + (i0 - m0) * ldc;
        for (int64_t j0 = 0; j0 < ncols; j0 += kNr) {
          const int nr = static_cast<int>(std::min<int64_t>(kNr, ncols - j0));
          amx.kernel(kp, apanel, bblock + (j0 / kNr) * panel_stride, 2 * kNr,
                     crow + j0, ldc, mr, nr, k0 > 0);
        }
      }
    }
    if (!p.direct_c) {
      const int64_t cb = p.c_b[bi];
      for (int64_t i = m0; i < m1; ++i) {
        StoreRow<float>(p, *sh.kernels, sh.out, cb + p.c_m[i], n0, t.n1,
                        c + (i - m0) * ldc);
      }
    }
  }
  amx.end();
  MergeStats(sh, sa, sb);
}

absl::Status RunDotIn(RunContext* ctx, const DotDims& dims, const void* lhs,
                      const void* rhs, void* out, const GemmKernels& kernels,
                      bool fast) {
  last_used_fallback = false;
  last_used_fast = false;
  last_used_amx = false;
  last_small_recomputed = -1;
  last_used_bf16_dp = false;
  last_discarded_bf16_dp = false;
  const int threads = ctx->pool != nullptr ? ctx->pool->threads() : 1;
  const gemm::I8AmxKernels* amx8 =
      kernels.i8 != nullptr && amx_allowed.load(std::memory_order_relaxed)
          ? gemm::HostI8AmxKernel()
          : nullptr;
  absl::StatusOr<Problem> problem = MakeProblem(dims, threads, amx8 != nullptr);
  if (!problem.ok()) return problem.status();
  const Problem& p = *problem;
  if (p.batch == 0 || p.m == 0 || p.n == 0) return absl::OkStatus();
  Shared sh;
  sh.p = &p;
  sh.kernels = &kernels;
  sh.lhs = p.swapped ? rhs : lhs;
  sh.rhs = p.swapped ? lhs : rhs;
  sh.out = out;
  if (p.k == 0) {
    // Empty sums: zeros of the result type (+0 in every float type).
    for (int64_t bi = 0; bi < p.batch; ++bi) {
      for (int64_t i = 0; i < p.m; ++i) {
        for (int64_t j = 0; j < p.n; ++j) {
          const int64_t o = p.c_b[bi] + p.c_m[i] + p.c_n[j];
          if (p.path == GemmPath::kInt) {
            StoreInt(p.ot, out, o, 0);
          } else {
            StoreOut<float>(p.ot, out, o, 0.0f);
          }
        }
      }
    }
    return absl::OkStatus();
  }
  RangeGuard guard = RangeGuard::kFast;
  const bool small_ok = SmallCheckAllowed(p, kernels);
  sh.flush_a = small_ok;
  sh.scan_b = GemvKtScansB(p, small_ok);
  switch (p.path) {
    case GemmPath::kF32: {
      // bf16 x bf16 runs on the hardware dot products (tdpbf16ps where the
      // host has AMX, else vdpbf16ps) in the fast mode, and in the
      // conformant mode too when the operands turn out to keep every
      // product and sum normal (kernel_support::Bf16ProductsStayNormal);
      // when they do not, that run is discarded and the dot runs again on
      // the f32 kernel. The statistics come from the packing, so a
      // conformant dot pays nothing for the check, and the decision depends
      // on the data only (the same for every thread count).
      const bool bf16_operands = p.lt == PrimitiveType::kBF16 &&
                                 p.rt == PrimitiveType::kBF16 && !p.gemv;
      const gemm::Bf16DotKernels* bf16 =
          bf16_operands && (fast || conformant_bf16_dp_allowed.load(
                                        std::memory_order_relaxed))
              ? gemm::HostBf16DotKernels()
              : nullptr;
      const gemm::Bf16AmxKernels* amx =
          bf16 != nullptr && amx_allowed.load(std::memory_order_relaxed)
              ? gemm::HostBf16AmxKernel()
              : nullptr;
      bool done = false;
      if (bf16 != nullptr) {
        auto body = [&](int64_t b, int64_t e) {
          if (amx != nullptr) {
            RunBf16AmxItems(sh, *bf16, *amx, b, e);
          } else {
            RunBf16FastItems(sh, *bf16, b, e);
          }
        };
        Parallel(ctx, p.items(), body);
        const Stats<float>& a = sh.sa32;
        const Stats<float>& b = sh.sb32;
        if (fast || sh.failed_alloc || Bf16ProductsStayNormal(a, b)) {
          // Overflow and non-finite operands still take the wide fallback;
          // tiny products do not in the fast mode (flushing them is its
          // declared deviation) and cannot occur here in the conformant one.
          const bool safe =
              a.Finite() && b.Finite() &&
              (!a.HasNonzero() || !b.HasNonzero() ||
               static_cast<long double>(p.k) * a.MaxAbs() * b.MaxAbs() <
                   static_cast<long double>(FLT_MAX) / 2);
          guard = safe ? RangeGuard::kFast : RangeGuard::kWide;
          last_used_amx = amx != nullptr;
          last_used_fast = fast;
          last_used_bf16_dp = true;
          done = true;
        } else {
          last_discarded_bf16_dp = true;
          sh.sa32 = Stats<float>();
          sh.sb32 = Stats<float>();
        }
      }
      if (!done) {
        auto body = [&](int64_t b, int64_t e) {
          RunFloatItems<float>(sh, b, e);
        };
        Parallel(ctx, p.items(), body);
        if (sh.scan_b) {
          guard = RangeGuardFor(sh.sa32, sh.sb32, p.k, small_ok);
          guard =
              AfterFlush(sh, guard, p.k, std::numeric_limits<float>::epsilon());
        } else {
          guard = RangeGuard::kCheckEach;  // (the GEMV flushes nothing)
        }
      }
      break;
    }
    case GemmPath::kF64: {
      auto body = [&](int64_t b, int64_t e) {
        RunFloatItems<double>(sh, b, e);
      };
      Parallel(ctx, p.items(), body);
      guard = RangeGuardFor(sh.sa64, sh.sb64, p.k, small_ok);
      guard =
          AfterFlush(sh, guard, p.k, std::numeric_limits<double>::epsilon());
      break;
    }
    case GemmPath::kInt: {
      last_used_amx = p.int8_amx;
      if (p.int8_amx) {
        auto body = [&](int64_t b, int64_t e) {
          RunI8AmxItems(sh, *amx8, b, e);
        };
        Parallel(ctx, p.items(), body);
      } else if (kernels.i8 != nullptr) {
        auto body = [&](int64_t b, int64_t e) { RunI8Items(sh, b, e); };
        Parallel(ctx, p.items(), body);
      } else {
        auto body = [&](int64_t b, int64_t e) { RunIntItems(sh, b, e); };
        Parallel(ctx, p.items(), body);
      }
      break;
    }
    case GemmPath::kNone:
      return absl::InternalError("dot runtime: no path");
  }
  if (sh.failed_alloc) {
    return absl::ResourceExhaustedError(
        "dot runtime: cannot allocate packing buffers");
  }
  if (guard == RangeGuard::kCheckSmall) {
    if (p.path == GemmPath::kF32) {
      auto body = [&](int64_t b, int64_t e) {
        RecheckRows<float, double>(
            sh,
            sh.flushed_a.load() || sh.flushed_b.load()
                ? DroppedTermsThreshold(sh.sa32, sh.sb32, sh.flushed_a.load(),
                                        sh.flushed_b.load())
                : 0x1p-125f,
            nullptr, b, e);
      };
      Parallel(ctx, p.batch * p.m, body);
    } else {
      auto body = [&](int64_t b, int64_t e) {
        RecheckRows<double, long double>(
            sh,
            sh.flushed_a.load() || sh.flushed_b.load()
                ? DroppedTermsThreshold(sh.sa64, sh.sb64, sh.flushed_a.load(),
                                        sh.flushed_b.load())
                : 0x1p-1021,
            nullptr, b, e);
      };
      Parallel(ctx, p.batch * p.m, body);
    }
    last_small_recomputed = sh.small_recomputed.load();
  }
  if (guard == RangeGuard::kCheckEach) {
    auto body = [&](int64_t b, int64_t e) {
      RecheckRows<float, double>(sh, 0.0f, &sh.sa32, b, e);
    };
    Parallel(ctx, p.batch * p.m, body);
    last_small_recomputed = sh.small_recomputed.load();
  }
  if (guard == RangeGuard::kWide) {
    last_used_fallback = true;
    if (p.path == GemmPath::kF32) {
      auto body = [&](int64_t b, int64_t e) {
        RunWideRows<float, double>(sh, b, e);
      };
      Parallel(ctx, p.batch * p.m, body);
    } else {
      auto body = [&](int64_t b, int64_t e) {
        RunWideRows<double, long double>(sh, b, e);
      };
      Parallel(ctx, p.batch * p.m, body);
    }
  }
  return absl::OkStatus();
}

}  // namespace

GemmPath GemmPathFor(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType out) {
  auto f32_operand = [](PrimitiveType t) {
    return t == PrimitiveType::kF32 || IsNarrowFloat(t);
  };
  auto small_int = [](PrimitiveType t) {
    return t == PrimitiveType::kS8 || t == PrimitiveType::kU8;
  };
  if (out == PrimitiveType::kF64 && IsFloat(lhs) && IsFloat(rhs) &&
      (lhs == PrimitiveType::kF64 || f32_operand(lhs)) &&
      (rhs == PrimitiveType::kF64 || f32_operand(rhs))) {
    return GemmPath::kF64;
  }
  if ((out == PrimitiveType::kF32 || out == PrimitiveType::kBF16 ||
       out == PrimitiveType::kF16) &&
      f32_operand(lhs) && f32_operand(rhs)) {
    return GemmPath::kF32;
  }
  if ((out == PrimitiveType::kS32 || out == PrimitiveType::kU32) &&
      small_int(lhs) && small_int(rhs)) {
    return GemmPath::kInt;
  }
  return GemmPath::kNone;
}

std::vector<int64_t> EncodeDotDims(const DotDims& d) {
  std::vector<int64_t> v = {kDescVersion,
                            static_cast<int64_t>(d.lhs_type),
                            static_cast<int64_t>(d.rhs_type),
                            static_cast<int64_t>(d.out_type),
                            static_cast<int64_t>(d.batch.size()),
                            static_cast<int64_t>(d.m.size()),
                            static_cast<int64_t>(d.n.size()),
                            static_cast<int64_t>(d.k.size())};
  for (const auto* g : {&d.batch, &d.m, &d.n, &d.k}) {
    for (const auto& dim : *g) {
      v.insert(v.end(), {dim.size, dim.lhs, dim.rhs, dim.out});
    }
  }
  return v;
}

absl::StatusOr<DotDims> DecodeDotDims(const int64_t* desc) {
  if (desc == nullptr || desc[0] != kDescVersion) {
    return absl::InvalidArgumentError("dot runtime: bad descriptor version");
  }
  DotDims d;
  d.lhs_type = static_cast<PrimitiveType>(desc[1]);
  d.rhs_type = static_cast<PrimitiveType>(desc[2]);
  d.out_type = static_cast<PrimitiveType>(desc[3]);
  const int64_t* pos = desc + 8;
  std::vector<DotDims::Dim>* groups[] = {&d.batch, &d.m, &d.n, &d.k};
  for (int g = 0; g < 4; ++g) {
    const int64_t count = desc[4 + g];
    if (count < 0 || count > 64) {
      return absl::InvalidArgumentError("dot runtime: bad dimension count");
    }
    for (int64_t i = 0; i < count; ++i, pos += 4) {
      groups[g]->push_back({pos[0], pos[1], pos[2], pos[3]});
    }
  }
  return d;
}

absl::Status RunDot(const DotDims& dims, const void* lhs, const void* rhs,
                    void* out, ThreadPool* threads,
                    const gemm::GemmKernels& kernels, bool fast) {
  RunContext ctx;
  ctx.pool = threads;
  return RunDotIn(&ctx, dims, lhs, rhs, out, kernels, fast);
}

bool LastDotUsedWideFallback() { return last_used_fallback; }
bool LastDotUsedFastPath() { return last_used_fast; }
bool LastDotUsedAmx() { return last_used_amx; }
bool LastDotUsedBf16DotProducts() { return last_used_bf16_dp; }
bool LastDotDiscardedBf16DotProducts() { return last_discarded_bf16_dp; }
void SetConformantBf16DotProductsAllowed(bool allowed) {
  conformant_bf16_dp_allowed.store(allowed, std::memory_order_relaxed);
}
void SetAmxAllowed(bool allowed) {
  amx_allowed.store(allowed, std::memory_order_relaxed);
}
void SetBf16GemvAllowed(bool allowed) {
  bf16_gemv_allowed.store(allowed, std::memory_order_relaxed);
}
int64_t LastDotSmallResultsRecomputed() { return last_small_recomputed; }

void AddGemmRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back({"hloref_cpu_dot", reinterpret_cast<void*>(&hloref_cpu_dot)});
}

}  // namespace hloref::cpu

extern "C" void hloref_cpu_dot(hloref::cpu::RunContext* ctx,
                               const int64_t* desc, const void* lhs,
                               const void* rhs, void* out) {
  absl::StatusOr<hloref::cpu::DotDims> dims = hloref::cpu::DecodeDotDims(desc);
  absl::Status status =
      dims.ok() ? hloref::cpu::RunDotIn(ctx, *dims, lhs, rhs, out,
                                        hloref::cpu::gemm::HostGemmKernels(),
                                        ctx->fast_math)
                : dims.status();
  if (!status.ok()) ctx->SetError(status);
}
