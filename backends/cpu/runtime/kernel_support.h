// Pieces the CPU runtime's GEMM (gemm.cc) and convolution (conv.cc)
// share: element loaders into the accumulation type, the range guard's
// operand statistics and its rule (FastPathSafe, see gemm.h), cache and
// environment queries, aligned scratch, the result stores and the pool
// loop. Internal to backends/cpu/runtime.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_KERNEL_SUPPORT_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_KERNEL_SUPPORT_H_

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include "backends/cpu/runtime/gemm_kernels.h"
#include "backends/cpu/runtime/run_context.h"
#include "backends/cpu/runtime/thread_pool.h"
#include "spec/types/minifloat.h"
#include "spec/types/primitive_type.h"

namespace hloref::cpu::kernel_support {

inline bool IsNarrowFloat(PrimitiveType t) {
  return IsFloat(t) && t != PrimitiveType::kF32 && t != PrimitiveType::kF64 &&
         (StorageBytes(t) == 1 || StorageBytes(t) == 2);
}

// The primitive type of an accumulation type (float or double).
template <typename T>
constexpr PrimitiveType PrimitiveTypeOf() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  return std::is_same_v<T, float> ? PrimitiveType::kF32 : PrimitiveType::kF64;
}

// ---- element loads (the operand's storage -> the accumulation type)

// The f32 value of every encoding of a float type of 1 or 2 bytes, built
// once per type (exact: every value of these types is an f32 value).
inline const float* NarrowTable(PrimitiveType t) {
  static std::mutex mu;
  static std::unique_ptr<float[]> tables[64];
  const int id = static_cast<int>(t);
  std::lock_guard<std::mutex> lock(mu);
  if (!tables[id]) {
    const FloatFormat& f = FormatOf(t);
    const int64_t n = int64_t{1} << (8 * StorageBytes(t));
    tables[id] = std::make_unique<float[]>(n);
    for (int64_t bits = 0; bits < n; ++bits) {
      const uint32_t v = DecodeFloatToF32Bits(f, static_cast<uint64_t>(bits));
      std::memcpy(&tables[id][bits], &v, sizeof(float));
    }
  }
  return tables[id].get();
}

// Loads element `i` of a buffer as T (float or double).
template <typename T>
struct Loader {
  PrimitiveType type;
  const void* base;
  const float* table = nullptr;  // narrow floats

  T operator()(int64_t i) const {
    switch (type) {
      case PrimitiveType::kF32:
        return static_cast<T>(static_cast<const float*>(base)[i]);
      case PrimitiveType::kF64:
        return static_cast<T>(static_cast<const double*>(base)[i]);
      case PrimitiveType::kBF16: {
        const uint32_t bits = uint32_t{static_cast<const uint16_t*>(base)[i]}
                              << 16;
        float f;
        std::memcpy(&f, &bits, sizeof(f));
        return static_cast<T>(f);
      }
      default:
        if (StorageBytes(type) == 1) {
          return static_cast<T>(table[static_cast<const uint8_t*>(base)[i]]);
        }
        return static_cast<T>(table[static_cast<const uint16_t*>(base)[i]]);
    }
  }
};

template <typename T>
Loader<T> MakeLoader(PrimitiveType type, const void* base) {
  Loader<T> l{type, base};
  if (IsNarrowFloat(type) && type != PrimitiveType::kBF16) {
    l.table = NarrowTable(type);
  }
  return l;
}

inline int32_t LoadSmallInt(PrimitiveType type, const void* base, int64_t i) {
  return type == PrimitiveType::kS8
             ? int32_t{static_cast<const int8_t*>(base)[i]}
             : int32_t{static_cast<const uint8_t*>(base)[i]};
}

// ---- the range guard's statistics (on values already in type T)

template <typename T>
struct Bits;
template <>
struct Bits<float> {
  using U = uint32_t;
  static constexpr U kAbs = 0x7fffffffu;
  static constexpr U kInf = 0x7f800000u;
};
template <>
struct Bits<double> {
  using U = uint64_t;
  static constexpr U kAbs = 0x7fffffffffffffffull;
  static constexpr U kInf = 0x7ff0000000000000ull;
};

// max |x| and the smallest nonzero |x| as bit patterns (the order of
// nonnegative IEEE bit patterns is the order of their values; inf and NaN
// are above every finite one).
template <typename T>
struct Stats {
  using U = typename Bits<T>::U;
  U max_abs = 0;
  U min_nz_minus1 = std::numeric_limits<U>::max();  // (|x| bits) - 1

  // n values from src, statistics only.
  void Scan(const gemm::GemmKernels& k, const T* src, int64_t n) {
    if (n > 0) CopyScan(k, src, nullptr, n);
  }
  // One value.
  void Add(T v) {
    const U u = std::bit_cast<U>(v) & Bits<T>::kAbs;
    max_abs = std::max(max_abs, u);
    min_nz_minus1 = std::min(min_nz_minus1, static_cast<U>(u - 1));
  }
  // n values from src, copied to dst too when it is not null: contiguous,
  // or in chunks of `chunk` values `dst_stride` apart.
  void CopyScan(const gemm::GemmKernels& k, const T* src, T* dst, int64_t n,
                int64_t chunk = 0, int64_t dst_stride = 0) {
    if (chunk <= 0) chunk = dst_stride = std::max<int64_t>(n, 1);
    if constexpr (std::is_same_v<T, float>) {
      k.scan_f32(src, dst, n, chunk, dst_stride, &max_abs, &min_nz_minus1);
    } else {
      k.scan_f64(src, dst, n, chunk, dst_stride, &max_abs, &min_nz_minus1);
    }
  }
  void Merge(const Stats& o) {
    max_abs = std::max(max_abs, o.max_abs);
    min_nz_minus1 = std::min(min_nz_minus1, o.min_nz_minus1);
  }
  bool HasNonzero() const {
    return min_nz_minus1 != std::numeric_limits<U>::max();
  }
  bool Finite() const { return max_abs < Bits<T>::kInf; }
  long double MaxAbs() const { return FromBits(max_abs); }
  long double MinNonzero() const { return FromBits(min_nz_minus1 + 1); }
  static long double FromBits(U u) {
    T v;
    std::memcpy(&v, &u, sizeof(v));
    return static_cast<long double>(v);
  }
};

// Whether an FMA chain in T over these operands stays in T's normal range
// (see gemm.h): then every step's rounding error is at most u * S.
template <typename T>
bool FastPathSafe(const Stats<T>& a, const Stats<T>& b, int64_t k) {
  if (!a.Finite() || !b.Finite()) return false;
  if (!a.HasNonzero() || !b.HasNonzero()) return true;  // every product 0
  const long double max_t = std::numeric_limits<T>::max();
  const long double min_t = std::numeric_limits<T>::min();  // smallest normal
  if (static_cast<long double>(k) * a.MaxAbs() * b.MaxAbs() >= max_t / 2) {
    return false;
  }
  return a.MinNonzero() * b.MinNonzero() >= min_t;
}

// Whether a bf16 x bf16 dot over operands with these statistics (bf16
// values widened to f32 bits) never meets a subnormal on the hardware
// dot-product instructions (vdpbf16ps, tdpbf16ps), which treat subnormal
// inputs as zero and flush subnormal products, sums and results to zero
// whatever MXCSR says. Then they are conformant without a declared
// deviation: every product of two bf16 values is exact in f32, every
// addition is rounded to nearest, and no flush can happen (below).
//
// Proof. A normal bf16 value is m 2^(E - 7) with an integer m in
// [128, 255], E its exponent; so a product of two nonzero normal operands
// is an integer multiple of q = 2^(Ea + Eb - 14), where Ea, Eb are the
// smallest exponents among the nonzero entries of A and of B (the
// exponent of the smallest nonzero |x|). Every exact sum of such products
// is a multiple of q too, and so is its rounding to f32 (q is a power of
// two: where the f32 spacing around a multiple s of q is at least q, the
// candidates are multiples of the spacing, hence of q; where it is below
// q, it divides q, so s is representable and rounds to itself). The f32
// accumulator only
// ever holds such roundings (K blocks are joined by f32 additions of
// values of the same kind), so each partial sum, product and result is 0
// or at least q in magnitude. With q >= 2^-126 (f32's and bf16's
// smallest normal), i.e. Ea + Eb >= -112, nothing is ever subnormal, no
// input is subnormal (Ea, Eb >= -126), and each rounding errs by at most
// u |partial sum| with u = 2^-24: the class-A bound of numerics.md 7.3
// (m = K - 1, products exact) holds for any association, and so for the
// instructions' pair order. Overflow and non-finite operands are the
// caller's (FastPathSafe's maximum test, or the wide fallback). An
// operand without a nonzero entry makes every product 0.
inline bool Bf16ProductsStayNormal(const Stats<float>& a,
                                   const Stats<float>& b) {
  if (!a.HasNonzero() || !b.HasNonzero()) return true;
  const int ea = static_cast<int>((a.min_nz_minus1 + 1) >> 23);  // biased
  const int eb = static_cast<int>((b.min_nz_minus1 + 1) >> 23);
  if (ea == 0 || eb == 0) return false;  // a subnormal input
  return (ea - 127) + (eb - 127) >= -112;
}

// The range guard's three outcomes for a float dot run as FMA chains.
enum class RangeGuard {
  kFast,        // the fast path's result stands
  kCheckSmall,  // it stands except where |result| < 2 * min normal: those
                // elements are recomputed with a wide accumulator
  kWide,        // the whole dot is recomputed with a wide accumulator
  kCheckEach,   // B's statistics were not taken: each element is judged
                // on its own value (CheckEachStands), then on its own
                // operands' statistics, else recomputed wide
};

// The relaxed rule behind kCheckSmall (FastPathSafe's tiny-product
// condition dropped). Preconditions the caller checks (`small_check_ok`):
// each output element is ONE chain of K fused multiply-adds in T from 0
// (every kernel of the chain is an FMA: no separately rounded products),
// the result type is T, the oracle counts m = K rounding steps (products
// rounded: precision(lhs) + precision(rhs) > precision(T)), and K u <= 1/4.
//
// Proof (u = 2^-24 / 2^-53 the unit roundoff, lambda = 2^-126 / 2^-1022
// the smallest normal, eta = u lambda = 2^-150 / 2^-1075 half the spacing
// of the subnormals, for f32 / f64). Step i rounds x_i = s'_{i-1} + t_i (s' the
// computed partial sums, t_i = a_i b_i exact): |fl(x) - x| <= u |x| when |x| >=
// lambda, <= eta when |x| < lambda (no flush: MXCSR is IEEE). With e_i =
// s'_i - s_i, |x_i| <= S + |e_{i-1}| (S = sum |t_i|), so every step adds
// at most max(u (S + |e_{i-1}|), eta).
//  * S >= lambda: eta = u lambda <= u S, so |e_i| <= (1 + u)|e_{i-1}| + u S
//    and |e_K| <= ((1 + u)^K - 1) S <= gamma_K(u) S: the suite's class-A
//    bound (numerics.md 7.3, m = K) holds whatever the subnormal products.
//  * S < lambda: every step adds at most eta + u |e_{i-1}|, so |e_K| <=
//    eta ((1 + u)^K - 1) / u <= eta K e^(1/4) < lambda / 2 (K u <= 1/4),
//    and |result| <= S + |e_K| < 1.5 lambda < 2 lambda.
// Hence an element whose computed |value| >= 2 lambda has S >= lambda and
// meets the bound; the others (|value| < 2 lambda) are recomputed.
// Overflow and non-finite operands still send the whole dot to kWide.
template <typename T>
RangeGuard RangeGuardFor(const Stats<T>& a, const Stats<T>& b, int64_t k,
                         bool small_check_ok) {
  if (FastPathSafe(a, b, k)) return RangeGuard::kFast;
  if (!small_check_ok || !a.Finite() || !b.Finite()) return RangeGuard::kWide;
  const long double max_t = std::numeric_limits<T>::max();
  if (static_cast<long double>(k) * a.MaxAbs() * b.MaxAbs() >= max_t / 2) {
    return RangeGuard::kWide;
  }
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  if (static_cast<long double>(k) * u > 0.25L) return RangeGuard::kWide;
  return RangeGuard::kCheckSmall;
}

// RangeGuard::kCheckEach, for a dot whose B was not scanned (the
// K-contiguous GEMV, where the scan cost more than the FMAs). Same
// preconditions as kCheckSmall (`small_check_ok`, K u <= 1/4), none about
// the data. An element whose computed value v is finite with |v| >= 2
// lambda stands:
//  * finite v means that no operand of its chain is an infinity or a NaN
//    and that no partial sum overflowed: once an infinity or a NaN enters a
//    chain of FMAs it never leaves it (inf * 0 and inf - inf are NaN, inf
//    plus a finite value is inf, NaN propagates). So every step rounded in
//    T's finite range, which is all RangeGuardFor's proof assumes besides
//    the preconditions;
//  * by that proof, |v| >= 2 lambda then gives S >= lambda and the class-A
//    bound.
// Every other element (|v| < 2 lambda, inf or NaN) is judged alone: it
// stands if FastPathSafe holds for its own operands (A's statistics, which
// cover its row, and its B column's, taken then), else it is recomputed
// with the wide accumulator, as kWide would have computed it.
template <typename T>
bool CheckEachStands(T v) {
  return std::isfinite(v) && std::fabs(v) >= 2 * std::numeric_limits<T>::min();
}

inline int64_t CacheBytes(int name, int64_t fallback) {
  const long v = sysconf(name);
  return v > 0 ? v : fallback;
}

inline int64_t EnvInt(const char* name, int64_t fallback) {
  const char* s = std::getenv(name);
  if (s == nullptr || *s == 0) return fallback;
  const long long v = std::atoll(s);
  return v > 0 ? v : fallback;
}

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// The number of M blocks for `base` independent items per M block (batch
// x N blocks, or groups x panel blocks), at least `blocks` and at most
// `max_blocks`: raised to the next count that makes the items a multiple
// of the thread count when there is one within the limit. Items run in
// contiguous ranges, one per thread, so 5 items over 2 threads leave a
// thread a whole item short (at most 1.67x instead of 2x); measured on
// the 3x3 64 -> 64 convolution (3136 rows in 5 blocks): 170 -> 209
// GFLOP/s at 2 threads (docs/performance.md).
inline int64_t BalancedBlocks(int64_t blocks, int64_t base, int threads,
                              int64_t max_blocks) {
  blocks = std::clamp<int64_t>(blocks, 1, std::max<int64_t>(1, max_blocks));
  if (threads <= 1) return blocks;
  for (int64_t b = blocks; b <= max_blocks; ++b) {
    if ((base * b) % threads == 0) return b;
  }
  return blocks;
}

// ---- aligned scratch

// Blocks of 64 KiB and more that Scratch freed, kept per thread for the
// next Scratch they fit. glibc gives blocks of this size back to the
// kernel when the top of the heap grows past its trim threshold, so a
// kernel run repeatedly (a 256^3 GEMM packs 256 KiB of B per call) could
// fault every page of its packing buffer in on every call. Measured on
// the f32 256^3 GEMM benchmark (kernel_benchmark, 1 thread, one process
// per run): 6 of 36 processes ran at 51-66 instead of 105-110 GFLOP/s,
// with page faults in the packing and the tile in their profiles; with
// the cache, 0 of 27. At most kSlots blocks and kMaxBytes per thread are
// kept; they are freed when the thread ends.
class ScratchCache {
 public:
  static constexpr size_t kMinBytes = size_t{64} << 10;
  static constexpr size_t kMaxBytes = size_t{64} << 20;
  static constexpr int kSlots = 8;
  ~ScratchCache() {
    for (Block& b : blocks_) std::free(b.p);
  }
  // The smallest kept block of at least `bytes`, or null.
  void* Take(size_t bytes, size_t* size) {
    Block* best = nullptr;
    for (Block& b : blocks_) {
      if (b.p != nullptr && b.size >= bytes &&
          (best == nullptr || b.size < best->size)) {
        best = &b;
      }
    }
    if (best == nullptr) return nullptr;
    void* p = std::exchange(best->p, nullptr);
    *size = best->size;
    total_ -= best->size;
    return p;
  }
  // Keeps `p` (of `size` bytes) or frees it.
  void Give(void* p, size_t size) {
    if (size >= kMinBytes && total_ + size <= kMaxBytes) {
      for (Block& b : blocks_) {
        if (b.p == nullptr) {
          b = {p, size};
          total_ += size;
          return;
        }
      }
    }
    std::free(p);
  }
  static ScratchCache& ForThisThread() {
    static thread_local ScratchCache cache;
    return cache;
  }

 private:
  struct Block {
    void* p = nullptr;
    size_t size = 0;
  };
  Block blocks_[kSlots];
  size_t total_ = 0;
};

struct Scratch {
  void* p = nullptr;
  size_t size = 0;
  explicit Scratch(int64_t bytes) {
    const size_t need =
        static_cast<size_t>(RoundUp(std::max<int64_t>(bytes, 64), 64));
    if (need >= ScratchCache::kMinBytes) {
      p = ScratchCache::ForThisThread().Take(need, &size);
      if (p != nullptr) return;
    }
    p = std::aligned_alloc(64, need);
    size = need;
  }
  ~Scratch() {
    if (p != nullptr) ScratchCache::ForThisThread().Give(p, size);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

// ---- stores of the result

// The bf16 encoding of an f32 (its bits), rounded to nearest even as
// EncodeFloatFromF32Bits does: bf16 has f32's exponent field, so rounding
// the pattern's low 16 bits is rounding the value (subnormals, the carry
// into the exponent and overflow to inf included). A NaN keeps its sign
// and the fraction's top seven bits, the quiet bit set when those are
// zero. A few integer operations where the general encoder goes through
// double: a bf16 attention's dots spent 60 % of their time there.
inline uint16_t F32BitsToBf16(uint32_t u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    const uint32_t high = u >> 16;
    return static_cast<uint16_t>((high & 0x7f) == 0 ? (high | 0x40) : high);
  }
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

template <typename T>
void StoreOut(PrimitiveType ot, void* out, int64_t i, T v) {
  switch (ot) {
    case PrimitiveType::kF32:
      static_cast<float*>(out)[i] = static_cast<float>(v);
      return;
    case PrimitiveType::kF64:
      static_cast<double*>(out)[i] = static_cast<double>(v);
      return;
    case PrimitiveType::kBF16:
      if constexpr (std::is_same_v<T, float>) {
        uint32_t fb;
        std::memcpy(&fb, &v, sizeof(fb));
        static_cast<uint16_t*>(out)[i] = F32BitsToBf16(fb);
        return;
      }
      [[fallthrough]];
    default: {
      // bf16 / f16: one rounding from the f32 (or wider) sum.
      const FloatFormat& f = FormatOf(ot);
      uint64_t bits;
      if constexpr (std::is_same_v<T, float>) {
        uint32_t fb;
        std::memcpy(&fb, &v, sizeof(fb));
        bits = EncodeFloatFromF32Bits(f, fb);
      } else {
        bits = EncodeFloat(f, static_cast<double>(v));
      }
      static_cast<uint16_t*>(out)[i] = static_cast<uint16_t>(bits);
      return;
    }
  }
}

// Runs body(begin, end) over [0, n) on the run's pool.
template <typename Body>
void Parallel(RunContext* ctx, int64_t n, Body& body) {
  if (n <= 0) return;
  hloref_cpu_parallel_for(
      ctx, n,
      [](void* env, int64_t b, int64_t e) { (*static_cast<Body*>(env))(b, e); },
      &body);
}

}  // namespace hloref::cpu::kernel_support

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_KERNEL_SUPPORT_H_
