// The dot family: dot (DotGeneral; Dot is its special case with
// lhs_contracting_dims={rank-1}, rhs_contracting_dims={0}). ragged-dot and
// scaled-dot (text-format 6.5) are evaluated in ragged_scaled_dot.cc.
// Semantics: seed 001 "Dot", "DotGeneral"; numerics per dot.h.
#include "interpreter/ops/dot.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/exact_sum.h"
#include "interpreter/ops/families.h"
#include "interpreter/ops/fast_round.h"
#include "interpreter/ops/parallel.h"
#include "spec/types/minifloat.h"

namespace hloref {

namespace {
std::atomic<bool> dot_fast_path_disabled{false};
std::atomic<bool> dot_rhs_codes_disabled{false};
}  // namespace

void SetDotRhsCodesDisabledForTesting(bool disabled) {
  dot_rhs_codes_disabled.store(disabled, std::memory_order_relaxed);
}
bool DotRhsCodesDisabledForTesting() {
  return dot_rhs_codes_disabled.load(std::memory_order_relaxed);
}

std::atomic<int64_t> stream_plain{0}, stream_two_sum{0}, stream_exact{0},
    stream_enclosed{0};

DotStreamCounts GetDotStreamCounts() {
  return {stream_plain.load(std::memory_order_relaxed),
          stream_two_sum.load(std::memory_order_relaxed),
          stream_exact.load(std::memory_order_relaxed),
          stream_enclosed.load(std::memory_order_relaxed)};
}

void SetDotFastPathDisabledForTesting(bool disabled) {
  dot_fast_path_disabled.store(disabled, std::memory_order_relaxed);
}
bool DotFastPathDisabledForTesting() {
  return dot_fast_path_disabled.load(std::memory_order_relaxed);
}

int OperandPrecision(PrimitiveType type) {
  if (type == PrimitiveType::kPred) return 1;
  if (IsInteger(type)) return BitWidth(type);
  if (IsComplex(type)) return OperandPrecision(ComplexComponentType(type));
  if (IsFloat(type)) return Precision(FormatOf(type));
  return 64;
}

bool ProductsRounded(PrimitiveType a, PrimitiveType b, PrimitiveType acc) {
  return OperandPrecision(acc) < OperandPrecision(a) + OperandPrecision(b);
}

std::vector<int64_t> DimOffsets(absl::Span<const int64_t> dims,
                                absl::Span<const int64_t> strides,
                                absl::Span<const int64_t> which) {
  int64_t count = 1;
  for (int64_t d : which) count *= dims[d];
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(count));
  if (count == 0) return offsets;
  std::vector<int64_t> index(which.size(), 0);
  while (true) {
    int64_t off = 0;
    for (size_t j = 0; j < which.size(); ++j)
      off += index[j] * strides[which[j]];
    offsets.push_back(off);
    int64_t j = static_cast<int64_t>(which.size()) - 1;
    for (; j >= 0; --j) {
      if (++index[j] < dims[which[j]]) break;
      index[j] = 0;
    }
    if (j < 0) break;
  }
  return offsets;
}

absl::StatusOr<Literal> StoreDoublesReusing(const Shape& shape,
                                            absl::Span<const double> values,
                                            EvalContext& ctx) {
  Literal lit = ctx.NewUninitialized(shape);
  HLOREF_RETURN_IF_ERROR(ForFloatType(shape.element_type(), [&](auto tc) {
    constexpr PrimitiveType T = decltype(tc)::value;
    auto out = lit.mutable_data<StorageType<T>>();
    HLOREF_CHECK(out.size() == values.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = StoreFloat<T>(values[i]);
  }));
  return lit;
}

namespace {

std::vector<int64_t> FreeDims(int64_t rank, absl::Span<const int64_t> batch,
                              absl::Span<const int64_t> contracting) {
  std::vector<bool> used(static_cast<size_t>(rank), false);
  for (int64_t d : batch) used[d] = true;
  for (int64_t d : contracting) used[d] = true;
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (!used[d]) free.push_back(d);
  }
  return free;
}

// One operand rearranged as [batch][free][contracting], contiguous in the
// contracting index so the inner loop reads memory in order.
struct PackPlan {
  std::vector<int64_t> batch, free, contracting;  // offsets
};

PackPlan MakePackPlan(const Shape& shape, absl::Span<const int64_t> batch,
                      absl::Span<const int64_t> contracting) {
  const std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  PackPlan plan;
  plan.batch = DimOffsets(shape.dimensions(), strides, batch);
  plan.free = DimOffsets(shape.dimensions(), strides,
                         FreeDims(shape.rank(), batch, contracting));
  plan.contracting = DimOffsets(shape.dimensions(), strides, contracting);
  return plan;
}

template <typename T>
std::vector<T> Pack(const std::vector<T>& src, const PackPlan& plan) {
  std::vector<T> out;
  out.reserve(plan.batch.size() * plan.free.size() * plan.contracting.size());
  for (int64_t b : plan.batch) {
    for (int64_t f : plan.free) {
      for (int64_t c : plan.contracting) out.push_back(src[b + f + c]);
    }
  }
  return out;
}

struct Sizes {
  int64_t batch, m, n, k;
};

// The lhs as exact doubles in [batch][free][contracting] order (Pack of
// LoadReal), read straight from a float literal's storage: no
// zero-filled intermediate of the whole operand and no second copy.
absl::StatusOr<std::unique_ptr<double[]>> PackRealLhs(
    const HloInstruction& inst, const Literal& lhs, const PackPlan& plan) {
  const size_t count =
      plan.batch.size() * plan.free.size() * plan.contracting.size();
  std::unique_ptr<double[]> out(new double[std::max<size_t>(count, 1)]);
  if (!IsFloat(lhs.element_type())) {
    HLOREF_ASSIGN_OR_RETURN(std::vector<double> l0, LoadReal(inst, lhs));
    const std::vector<double> packed = Pack(l0, plan);
    std::copy(packed.begin(), packed.end(), out.get());
    return out;
  }
  HLOREF_RETURN_IF_ERROR(ForFloatType(lhs.element_type(), [&](auto tc) {
    constexpr PrimitiveType T = decltype(tc)::value;
    const StorageType<T>* in = lhs.data<StorageType<T>>().data();
    double* o = out.get();
    const int64_t k = static_cast<int64_t>(plan.contracting.size());
    bool unit = true;  // contracting offsets 0, 1, ..., k - 1
    for (int64_t c = 0; c < k && unit; ++c) unit = plan.contracting[c] == c;
    for (int64_t b : plan.batch) {
      for (int64_t f : plan.free) {
        const StorageType<T>* row = in + b + f;
        if (unit) {
          for (int64_t c = 0; c < k; ++c) o[c] = LoadFloat<T>(row[c]);
        } else {
          for (int64_t c = 0; c < k; ++c) {
            o[c] = LoadFloat<T>(row[plan.contracting[c]]);
          }
        }
        o += k;
      }
    }
  }));
  return out;
}

// Fills out[jj * k + c] (jj < nb) with rhs element (batch b, free index
// j0 + jj, contracting index c) as an exact double.
// With kmajor = true the layout is out[c * cap + jj] instead (cap: the
// block's column capacity).
using RhsPacker = std::function<void(int64_t b, int64_t j0, int64_t nb,
                                     double* out, bool kmajor, int64_t cap)>;

// Reads the rhs in its own element type, block by block, so a large
// weight matrix is never held as doubles (8 bytes per element) in full.
// Integer operands (at most 53 bits) are loaded once as doubles.
absl::StatusOr<RhsPacker> MakeRhsPacker(const HloInstruction& inst,
                                        const Literal& rhs,
                                        const PackPlan& plan, int64_t k,
                                        std::vector<double>* storage) {
  // Contracting offsets of unit stride: read along them (a [n][k] rhs);
  // otherwise read along the free index (a [k][n] rhs, the common case).
  const bool contracting_inner =
      k > 1 && plan.contracting[1] - plan.contracting[0] == 1;
  // Free offsets 0, 1, 2, ...: rows of the rhs are read without the
  // offset table.
  bool free_unit = true;
  for (size_t j = 0; j < plan.free.size() && free_unit; ++j) {
    free_unit = plan.free[j] == static_cast<int64_t>(j);
  }
  auto make = [&plan, k, contracting_inner, free_unit](auto load) -> RhsPacker {
    return [&plan, k, contracting_inner, free_unit, load](
               int64_t b, int64_t j0, int64_t nb, double* out, bool kmajor,
               int64_t cap) {
      const int64_t base = plan.batch[b];
      // Element (jj, c) goes to out[jj * js + c * cs].
      const int64_t js = kmajor ? 1 : k;
      const int64_t cs = kmajor ? cap : 1;
      if (contracting_inner) {
        for (int64_t jj = 0; jj < nb; ++jj) {
          const int64_t f = base + plan.free[j0 + jj];
          double* o = out + jj * js;
          for (int64_t c = 0; c < k; ++c) {
            o[c * cs] = load(f + plan.contracting[c]);
          }
        }
      } else if (free_unit) {
        for (int64_t c = 0; c < k; ++c) {
          const int64_t off = base + plan.contracting[c] + j0;
          double* o = out + c * cs;
          for (int64_t jj = 0; jj < nb; ++jj) o[jj * js] = load(off + jj);
        }
      } else {
        const int64_t* free = plan.free.data() + j0;
        for (int64_t c = 0; c < k; ++c) {
          const int64_t off = base + plan.contracting[c];
          double* o = out + c * cs;
          for (int64_t jj = 0; jj < nb; ++jj) o[jj * js] = load(off + free[jj]);
        }
      }
    };
  };
  if (IsFloat(rhs.element_type())) {
    RhsPacker packer;
    HLOREF_RETURN_IF_ERROR(ForFloatType(rhs.element_type(), [&](auto tc) {
      constexpr PrimitiveType T = decltype(tc)::value;
      const StorageType<T>* in = rhs.data<StorageType<T>>().data();
      if constexpr (T == PrimitiveType::kBF16) {
        // bf16 is the upper half of an f32: exact without the generic
        // minifloat decoder.
        packer = make([in](int64_t i) {
          const uint32_t bits = static_cast<uint32_t>(in[i]) << 16;
          float f;
          std::memcpy(&f, &bits, sizeof f);
          return static_cast<double>(f);
        });
      } else if constexpr (sizeof(StorageType<T>) == 1) {
        // 8-bit and narrower types: a table of the 256 codes.
        auto table = std::make_shared<std::array<double, 256>>();
        for (int c = 0; c < 256; ++c) {
          (*table)[static_cast<size_t>(c)] =
              LoadFloat<T>(static_cast<StorageType<T>>(c));
        }
        packer = make([in, table](int64_t i) {
          return (*table)[static_cast<uint8_t>(in[i])];
        });
      } else {
        packer = make([in](int64_t i) { return LoadFloat<T>(in[i]); });
      }
    }));
    return packer;
  }
  HLOREF_ASSIGN_OR_RETURN(*storage, LoadReal(inst, rhs));
  const double* in = storage->data();
  return make([in](int64_t i) { return in[i]; });
}

// Vector-matrix products (issue 16): with m <= kCodesMaxRows lhs rows each
// packed rhs element is used at most m times, and converting the weights
// to doubles cost more than the two-sum itself (bf16 1x2048 by 2048x16384:
// 250-280 M terms/s against 2.6 G for a square f32 product). For bf16, f16
// and f32 rhs the fast path then packs each block of columns k-major in
// the rhs's own type (a copy of 2 or 4 bytes per element) and the two-sum
// converts to double in registers (TwoSum4SegmentBf16 and the like). The
// terms, their order and the verification are the same, so are the bits.
constexpr int64_t kCodesMaxRows = 16;
constexpr int64_t kCodesPrefetchRows = 32;

// The rhs read as its storage codes (MakeRhsCodes: none unless it is bf16,
// f16 or f32).
struct RhsCodes {
  PrimitiveType type;
  const uint8_t* data;
  int64_t bytes;  // per element: 2 or 4
  bool free_unit, contracting_inner;
};

std::optional<RhsCodes> MakeRhsCodes(const Literal& rhs, const PackPlan& plan,
                                     int64_t k) {
  const PrimitiveType t = rhs.element_type();
  if (t != PrimitiveType::kBF16 && t != PrimitiveType::kF16 &&
      t != PrimitiveType::kF32) {
    return std::nullopt;
  }
  RhsCodes codes{t, rhs.raw().data(), t == PrimitiveType::kF32 ? 4 : 2, true,
                 k > 1 && plan.contracting[1] - plan.contracting[0] == 1};
  for (size_t j = 0; j < plan.free.size() && codes.free_unit; ++j) {
    codes.free_unit = plan.free[j] == static_cast<int64_t>(j);
  }
  return codes;
}

// Elements from one group of four columns of a block of codes to the
// next: 4k and one cache line, so that the groups' rows (written side by
// side by PackCodes) do not all map to the same L1 set when 4k elements
// are a multiple of 4 KiB (k = 2048 bf16: 3.2 GB/s packing without it).
int64_t CodesGroupStride(int64_t k, int64_t bytes) {
  return 4 * k + 64 / bytes;
}

// The rhs codes of (batch b, free index j0 + jj, contracting index c) for
// jj < cols, in groups of four columns, each group contiguous over c:
// out[(jj / 4) * gs + 4c + jj % 4], gs = CodesGroupStride (what one
// TwoSum4Segment* call reads, in order). Columns cols <= jj < groups * 4
// are 0 (chains the caller discards).
template <typename T>
void PackCodes(const T* in, const RhsCodes& codes, const PackPlan& plan,
               int64_t k, int64_t b, int64_t j0, int64_t cols, T* out) {
  const int64_t base = plan.batch[b];
  const int64_t full = cols / 4;  // complete groups
  const int64_t rest = cols % 4;
  const int64_t gs = CodesGroupStride(k, sizeof(T));
  if (codes.contracting_inner) {
    for (int64_t jj = 0; jj < cols; ++jj) {
      const T* col = in + base + plan.free[j0 + jj];
      T* o = out + (jj / 4) * gs + jj % 4;
      for (int64_t c = 0; c < k; ++c) o[4 * c] = col[plan.contracting[c]];
    }
  } else {
    for (int64_t c = 0; c < k; ++c) {
      const T* row = in + base + plan.contracting[c];
      T* o = out + 4 * c;
      if (codes.free_unit) {
        const T* r = row + j0;
        if (c + kCodesPrefetchRows < k) {
          // Rows kCodesPrefetchRows ahead: the segments are short (cols
          // codes) and rows far apart, which the hardware prefetchers do
          // not follow (the loads took 90% of the packing without this).
          const char* ahead = reinterpret_cast<const char*>(
              in + base + plan.contracting[c + kCodesPrefetchRows] + j0);
          for (int64_t byte = 0; byte < cols * static_cast<int64_t>(sizeof(T));
               byte += 64) {
            __builtin_prefetch(ahead + byte);
          }
        }
        for (int64_t g = 0; g < full; ++g) {
          std::memcpy(o + g * gs, r + 4 * g, 4 * sizeof(T));
        }
        for (int64_t jj = 0; jj < rest; ++jj) {
          o[full * gs + jj] = r[4 * full + jj];
        }
      } else {
        const int64_t* free = plan.free.data() + j0;
        for (int64_t jj = 0; jj < cols; ++jj) {
          o[(jj / 4) * gs + jj % 4] = row[free[jj]];
        }
      }
    }
  }
  if (rest != 0) {
    T* o = out + full * gs;
    for (int64_t c = 0; c < k; ++c) {
      for (int64_t jj = rest; jj < 4; ++jj) o[4 * c + jj] = T{0};
    }
  }
}

// ---- A verified fast path for the exact accumulator (results stay
// bit-identical to ExactSum's).
//
// For products that are exact in double (kExactInDouble) and a result
// format of at most 26 significand bits, each output is first summed with
// error-free transformations: (s, e_i) = TwoSum(s, p_i) keeps
// s + sum e_i equal to the exact sum S, c = fl(sum e_i) and
// A = fl(sum |e_i|). Recursive summation gives
// |sum e_i - c| <= gamma_{K-1} * sum |e_i| <= gamma_{K-1} A / (1 -
// gamma_{K-1}) (Higham, Accuracy and Stability, 4.2), so with
// x = fl(s + c), |S - x| <= E = 2.02 K u A + 2u|x| (u = 2^-53, K u < 1%).
// Round-to-nearest is monotone: if RN_T(x - 2E) and RN_T(x + 2E) (both
// computed in double, the factor 2 covering their own rounding) are the
// same non-zero finite value r, every real in between, S included, rounds
// to r, and r is the correctly rounded exact sum. Otherwise (ties and near
// ties, zero or non-finite results, overflow, more than 2^20 terms) the
// output is summed again with ExactSum. Both give the same value by
// construction; dot_test and the golden suite check it.
// The verified values of lrow . bt[:, jj] for the `cols` columns of a
// block stored k-major (bt[c * nb + jj]) into r[jj], NaN where the caller
// must use ExactSum; returns whether there is such a NaN. Four columns at
// a time in SIMD registers: first the plain sums with their a priori bound
// (Sum16Segment / Sum4Segment, verified four lanes at a time by
// VerifiedRoundSum4), then for a group with an output they leave
// undecided the two-sum (TwoSum4Segment, VerifiedRound). nb is a multiple
// of 4 and the chains of columns [cols, nb) of bt (zeros or an earlier
// block's values) are discarded. s, c, a: scratch of nb doubles each.
bool VerifiedBlock(const double* lrow, const double* bt, int64_t k, int64_t nb,
                   int64_t cols, const FastRounding& rounding, double* s,
                   double* c, double* a, double* r) {
  bool any_undecided = false;
  // Groups of four columns from j0 whose plain sums left the lanes of
  // `undecided` (bit 4g + j: group g's lane j) undecided: the two-sum.
  auto finish = [&](int64_t j0, uint32_t undecided) {
    for (int64_t g = 0; undecided >> (4 * g) != 0; ++g) {
      if (((undecided >> (4 * g)) & 0xf) == 0) continue;
      const int64_t g0 = j0 + 4 * g;
      const int64_t lanes = std::min<int64_t>(4, cols - g0);
      TwoSum4 st;
      TwoSum4Segment(st, lrow, bt + g0, k, nb);
      TwoSum4Store(st, lanes, s + g0, c + g0, a + g0);
      for (int64_t jj = g0; jj < g0 + lanes; ++jj) {
        if (std::isnan(r[jj])) {
          r[jj] = VerifiedRound(s[jj], c[jj], a[jj], k, rounding);
          any_undecided |= std::isnan(r[jj]);
        }
      }
    }
  };
  // Sixteen columns per pass where the block has them (128 contiguous
  // bytes of a bt row per step), four otherwise; the verification four
  // lanes at a time (VerifiedRoundSum4).
  int64_t j0 = 0;
  for (; j0 + 16 <= nb && j0 < cols; j0 += 16) {
    Sum4 plain[4];
    Sum16Segment(plain, lrow, bt + j0, k, nb);
    finish(j0, VerifiedRoundSum4(plain, 4, std::min<int64_t>(16, cols - j0), k,
                                 rounding, r + j0));
  }
  for (; j0 < cols; j0 += 4) {
    Sum4 plain;
    Sum4Segment(plain, lrow, bt + j0, k, nb);
    finish(j0, VerifiedRoundSum4(&plain, 1, std::min<int64_t>(4, cols - j0), k,
                                 rounding, r + j0));
  }
  return any_undecided;
}

// The two-sum of rows [0, m) of l (m rows of k) with the `cols` columns of
// a block of rhs codes (PackCodes), writing s, c, A of output (i, jj) at
// [i * nb + jj]. Group by group, every row, so that a group's codes (4k
// of them) are read from L1 by every row after the first; two chain groups
// at a time (TwoSum4PairSegment*: two rows on one group, or with m = 1 two
// groups).
void TwoSumCodesBlock(const RhsCodes& codes, const double* l, int64_t m,
                      const uint8_t* bt, int64_t k, int64_t nb, int64_t cols,
                      double* s, double* c, double* a) {
  const int64_t gs = CodesGroupStride(k, codes.bytes) * codes.bytes;
  const int64_t stride = 4;  // elements from one c to the next in a group
  // Work items (group g, row i), g-major, run two at a time.
  const int64_t groups = (cols + 3) / 4;
  const int64_t items = groups * m;
  auto store = [&](const TwoSum4& st, int64_t item) {
    const int64_t g = item / m, i = item % m;
    const int64_t o = i * nb + 4 * g;
    TwoSum4Store(st, std::min<int64_t>(4, cols - 4 * g), s + o, c + o, a + o);
  };
  int64_t item = 0;
  for (; item + 1 < items; item += 2) {
    const double* x0 = l + (item % m) * k;
    const double* x1 = l + ((item + 1) % m) * k;
    const uint8_t* b0 = bt + (item / m) * gs;
    const uint8_t* b1 = bt + ((item + 1) / m) * gs;
    TwoSum4 st0, st1;
    if (codes.type == PrimitiveType::kF32) {
      TwoSum4PairSegmentF32(st0, st1, x0, x1,
                            reinterpret_cast<const float*>(b0),
                            reinterpret_cast<const float*>(b1), k, stride);
    } else if (codes.type == PrimitiveType::kBF16) {
      TwoSum4PairSegmentBf16(st0, st1, x0, x1,
                             reinterpret_cast<const uint16_t*>(b0),
                             reinterpret_cast<const uint16_t*>(b1), k, stride);
    } else {
      TwoSum4PairSegmentF16(st0, st1, x0, x1,
                            reinterpret_cast<const uint16_t*>(b0),
                            reinterpret_cast<const uint16_t*>(b1), k, stride);
    }
    store(st0, item);
    store(st1, item + 1);
  }
  if (item < items) {
    const double* x = l + (item % m) * k;
    const uint8_t* b = bt + (item / m) * gs;
    TwoSum4 st;
    if (codes.type == PrimitiveType::kF32) {
      TwoSum4SegmentF32(st, x, reinterpret_cast<const float*>(b), k, stride);
    } else if (codes.type == PrimitiveType::kBF16) {
      TwoSum4SegmentBf16(st, x, reinterpret_cast<const uint16_t*>(b), k,
                         stride);
    } else {
      TwoSum4SegmentF16(st, x, reinterpret_cast<const uint16_t*>(b), k, stride);
    }
    store(st, item);
  }
}

// Storage on 64-byte boundaries for the blocks and chains the summation
// kernels read in 32-byte vectors: a load then never splits a cache line.
// (With the heap's 16-byte alignment the square f32 dot's rate moved by
// 15 % between builds whose allocation order differed.)
template <typename T>
struct CacheAligned {
  using value_type = T;
  CacheAligned() = default;
  template <typename U>
  explicit CacheAligned(const CacheAligned<U>&) {}
  T* allocate(size_t n) {
    return static_cast<T*>(
        ::operator new (n * sizeof(T), std::align_val_t{64}));
  }
  void deallocate(T* p, size_t) { ::operator delete (p, std::align_val_t{64}); }
  bool operator==(const CacheAligned&) const { return true; }
};
using AlignedDoubles = std::vector<double, CacheAligned<double>>;

// The m lhs rows `x` (m rows of k) times the `cols` columns from j0 of
// batch b's row-major rhs codes, row i's outputs into r[i * n, + cols):
// the plain sums streamed over the rhs rows (StreamSums* for one row,
// StreamSumsRows* for several, sharing each rhs row's conversion),
// verified (on AVX-512 instead: each output enclosed by a chain rounded
// down and one rounded up, StreamEnclosureAvx512*, and decided by
// DecideEnclosure, ties and other exact sums included); the columns a row
// leaves undecided gathered (packer) four at a time for the two-sum with
// that row (TwoSum4Segment, VerifiedRound), then ExactSum. Every output is the
// correctly rounded exact sum whichever step decides it. The vectors are the
// worker's scratch.
//
// A transposed rhs (`transposed`: each output's terms contiguous, rhs
// [n][k]) takes TransposedEnclosureAvx512* on AVX-512, DotRowSums* row by
// row of the lhs elsewhere; its columns' offsets go through `offsets`.
void StreamBlock(const RhsCodes& codes, const PackPlan& rplan,
                 const RhsPacker& packer, bool transposed, const double* x,
                 int64_t m, int64_t k, int64_t b, int64_t j0, int64_t cols,
                 int64_t n, const FastRounding& rounding, double* r,
                 AlignedDoubles& sums, AlignedDoubles& abss, AlignedDoubles& bt,
                 AlignedDoubles& gathered, std::vector<int64_t>& undecided,
                 std::vector<int64_t>& offsets, ExactSum& acc) {
  sums.resize(static_cast<size_t>(std::max<int64_t>(m * cols, 4)));
  abss.resize(sums.size());
  const int64_t start = rplan.batch[b] + j0;
  const int64_t* rows = rplan.contracting.data();
  bool enclosed = false;
  if (transposed) {
    offsets.resize(static_cast<size_t>(cols));
    for (int64_t j = 0; j < cols; ++j) {
      offsets[static_cast<size_t>(j)] =
          rplan.batch[b] + rplan.free[j0 + j] + rplan.contracting[0];
    }
    enclosed = codes.bytes == 2
                   ? TransposedEnclosureAvx512Bf16(
                         x, m, k, reinterpret_cast<const uint16_t*>(codes.data),
                         offsets.data(), cols, sums.data(), abss.data())
                   : TransposedEnclosureAvx512F32(
                         x, m, k, reinterpret_cast<const float*>(codes.data),
                         offsets.data(), cols, sums.data(), abss.data());
    for (int64_t i = 0; i < m && !enclosed; ++i) {
      if (codes.bytes == 2) {
        DotRowSumsBf16(x + i * k, reinterpret_cast<const uint16_t*>(codes.data),
                       offsets.data(), k, cols, sums.data() + i * cols,
                       abss.data() + i * cols);
      } else {
        DotRowSumsF32(x + i * k, reinterpret_cast<const float*>(codes.data),
                      offsets.data(), k, cols, sums.data() + i * cols,
                      abss.data() + i * cols);
      }
    }
  } else if ((enclosed =
                  codes.bytes == 2
                      ? StreamEnclosureAvx512Bf16(
                            x, m, k,
                            reinterpret_cast<const uint16_t*>(codes.data) +
                                start,
                            rows, cols, sums.data(), abss.data())
                      : StreamEnclosureAvx512F32(
                            x, m, k,
                            reinterpret_cast<const float*>(codes.data) + start,
                            rows, cols, sums.data(), abss.data()))) {
    // sums / abss hold each output's enclosure [lo, hi].
  } else if (m == 1 && codes.bytes == 2) {
    StreamSumsBf16(x, reinterpret_cast<const uint16_t*>(codes.data) + start,
                   rows, k, cols, sums.data(), abss.data());
  } else if (m == 1) {
    StreamSumsF32(x, reinterpret_cast<const float*>(codes.data) + start, rows,
                  k, cols, sums.data(), abss.data());
  } else {
    bt.resize(static_cast<size_t>(4 * cols));
    if (codes.bytes == 2) {
      StreamSumsRowsBf16(x, m, k,
                         reinterpret_cast<const uint16_t*>(codes.data) + start,
                         rows, cols, sums.data(), abss.data(), bt.data());
    } else {
      StreamSumsRowsF32(x, m, k,
                        reinterpret_cast<const float*>(codes.data) + start,
                        rows, cols, sums.data(), abss.data(), bt.data());
    }
  }
  const int64_t leaves = transposed ? DotRowSumsLeaves(k) : StreamSumsLeaves(k);
  int64_t plain = 0, two_sum = 0, exact = 0;
  gathered.resize(static_cast<size_t>(4 * k));
  for (int64_t i = 0; i < m; ++i) {
    const double* xi = x + i * k;
    double* ri = r + i * n;
    const double* si = sums.data() + i * cols;
    const double* ai = abss.data() + i * cols;
    undecided.clear();
    if (enclosed) {
      DecideEnclosures(si, ai, cols, rounding, ri);
    } else {
      for (int64_t j = 0; j < cols; ++j) {
        ri[j] = VerifiedRound(si[j], 0.0, ai[j], leaves, rounding);
      }
    }
    for (int64_t j = 0; j < cols; ++j) {
      if (std::isnan(ri[j])) undecided.push_back(j);
    }
    plain += cols - static_cast<int64_t>(undecided.size());
    if (undecided.empty()) continue;
    if (bt.size() < static_cast<size_t>(4 * k)) {
      bt.resize(static_cast<size_t>(4 * k));
    }
    for (size_t u = 0; u < undecided.size(); u += 4) {
      const int64_t lanes =
          std::min<int64_t>(4, static_cast<int64_t>(undecided.size() - u));
      std::fill(bt.begin(), bt.begin() + 4 * k, 0.0);
      for (int64_t lane = 0; lane < lanes; ++lane) {
        double* col = gathered.data() + lane * k;
        packer(b, j0 + undecided[u + lane], 1, col, /*kmajor=*/false, 1);
        for (int64_t c = 0; c < k; ++c) {
          bt[static_cast<size_t>(4 * c + lane)] = col[c];
        }
      }
      TwoSum4 st;
      TwoSum4Segment(st, xi, bt.data(), k, 4);
      double ts[4], tc[4], ta[4];
      TwoSum4Store(st, lanes, ts, tc, ta);
      for (int64_t lane = 0; lane < lanes; ++lane) {
        double& out = ri[undecided[u + lane]];
        out = VerifiedRound(ts[lane], tc[lane], ta[lane], k, rounding);
        if (!std::isnan(out)) {
          ++two_sum;
          continue;
        }
        acc.Clear();
        acc.AddExactProducts(xi, gathered.data() + lane * k, k);
        out = acc.Round(rounding.precision, rounding.emin);
        ++exact;
      }
    }
  }
  stream_plain.fetch_add(plain, std::memory_order_relaxed);
  stream_two_sum.fetch_add(two_sum, std::memory_order_relaxed);
  stream_exact.fetch_add(exact, std::memory_order_relaxed);
  if (enclosed) stream_enclosed.fetch_add(plain, std::memory_order_relaxed);
}

// Real result: out[b][i][j] = RN(sum_k L[b][i][k] * R[b][j][k]).
// kExactInDouble: the double product of two elements is exact.
// The rhs is packed in blocks of columns that stay in cache while every
// lhs row streams over them; blocks are the tasks split across threads
// (each output is its own exact sum, so the split cannot change a bit).
template <bool kExactInDouble>
absl::Status RealKernel(const HloInstruction& inst, EvalContext& ctx,
                        const double* l, const RhsPacker& packer,
                        const RhsCodes* codes, const PackPlan& rplan,
                        const Sizes& s, PrimitiveType result_type,
                        bool error_data, double* values,
                        std::vector<double>* abs_sums) {
  const FloatFormat& format = FormatOf(result_type);
  const int precision = Precision(format);
  const int emin = std::ilogb(MinNormal(format));
  const bool fast = kExactInDouble && !error_data && precision <= 26 &&
                    s.k > 0 && s.k <= (int64_t{1} << 20);
  const bool codes_ok =
      fast && codes != nullptr && !DotRhsCodesDisabledForTesting();
  // More lhs rows than kCodesMaxRows over bf16 codes stream them too when
  // the enclosures decide the outputs (AVX-512), kCodesMaxRows rows at a
  // time (StreamBlock per group): the packed doubles' plain sums left the
  // ties of bf16 products (sums on or next to an f32 midpoint) to the
  // two-sum, a third of a square bf16 product's time. bf16 512^3 -> f32:
  // 5.7 -> 7.8 G terms/s (32^3 to 256^3: 1.2-2.1x). f32 codes keep the
  // packed doubles (512^3: 10.0 against 8.2 G streamed).
  const bool rows_ok =
      s.m <= kCodesMaxRows || (codes != nullptr && codes->bytes == 2 &&
                               StreamEnclosureAvx512Available());
  // Columns per block: a multiple of 4 (the two-sum's vector width), the
  // packed block (nb x k doubles) at most 256 KiB so that the column tiles
  // re-read it from L2 (2 MiB blocks halved bf16 8x2048 by 2048x16384).
  // Blocks of codes: at most 1 MiB (L2), up to 256 columns, so that each
  // pass reads long pieces of the rhs rows (k = 2048 bf16: 256 columns,
  // 512 bytes per row; 4 MiB blocks were slower).
  // Up to 16 lhs rows over a row-major rhs of bf16 / f32 codes: the rhs
  // rows streamed with plain sums (StreamSums*, no packing). For one row,
  // a block is as many
  // columns as one thread's share of a batch (up to 32768: their s and A,
  // 512 KiB, stay in L2), so that each rhs row is read in one long
  // contiguous piece (column blocks of 1024 read 2 KiB pieces 32 KiB
  // apart: 1.8 G terms/s against 2.1 with whole rows, k = 2048 bf16). The
  // outputs the plain sums leave undecided (ties, near ties) take the
  // two-sum on their gathered columns, then ExactSum.
  // The same for a transposed rhs ([n][k]: each output's k terms
  // contiguous, the logits dot of a tied embedding): one dot of
  // contiguous rows per output (DotRowSums*), blocks as for the packed
  // codes below when several lhs rows re-read them, a thread's share for
  // one row.
  bool contiguous_k = codes_ok && rows_ok && codes->contracting_inner;
  for (int64_t c = 1; contiguous_k && c < s.k; ++c) {
    contiguous_k = rplan.contracting[c] == rplan.contracting[0] + c;
  }
  const bool transposed = contiguous_k && codes->type != PrimitiveType::kF16 &&
                          !DotFastPathDisabledForTesting();
  const bool stream =
      transposed ||
      (codes_ok && rows_ok && codes->free_unit && !codes->contracting_inner &&
       codes->type != PrimitiveType::kF16 && !DotFastPathDisabledForTesting());
  const bool use_codes = codes_ok && (s.m <= kCodesMaxRows || stream);
  const double work = static_cast<double>(s.batch) * s.m * s.n *
                      static_cast<double>(std::max<int64_t>(s.k, 1));
  const int threads = work >= (1 << 22) ? ctx.options().threads : 1;
  const int64_t kk = std::max<int64_t>(s.k, 1);
  int64_t nb;
  if (stream) {
    const int64_t share =
        s.batch >= ResolveThreads(threads)
            ? s.n
            : (s.n + ResolveThreads(threads) - 1) / ResolveThreads(threads);
    // Several lhs rows: blocks of up to 1024 columns, so that a chunk of
    // four rhs rows widened to doubles (32 KiB) stays in L1 while every
    // lhs row reads it, and the rows' s and A (up to 256 KiB) in L2. Up
    // to four over a row-major rhs on AVX-512 take a thread's share like
    // one row: StreamEnclosureAvx512* splits it into spans whose chains
    // fit in L2, and reads the rows in longer pieces (bf16 2 x 2048 by
    // 2048 x 16384: 13.3-13.5 -> 15.4-15.6 G terms/s).
    const bool whole_share = s.m == 1 || (s.m <= 4 && !transposed &&
                                          StreamEnclosureAvx512Available());
    nb = 4 * std::clamp<int64_t>(
                 (share + 3) / 4, 1,
                 whole_share ? 8192
                 : transposed
                     ? std::clamp<int64_t>(262144 / (kk * codes->bytes), 1, 64)
                     : 256);
  } else if (use_codes) {
    nb = 4 * std::clamp<int64_t>(262144 / (kk * codes->bytes), 1, 64);
  } else {
    nb = 4 * std::clamp<int64_t>(8192 / kk, 1, 32);
  }
  const int64_t blocks = (s.n + nb - 1) / nb;
  const int64_t tasks = s.batch * blocks;
  const int workers = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(ResolveThreads(threads), tasks)));
  struct Worker {
    ExactSum acc, abs_acc;
    AlignedDoubles block, bt, sums, comps, abss, rounded;
    std::vector<uint8_t, CacheAligned<uint8_t>> code_block;
    std::vector<int64_t> undecided, offsets;
  };
  const FastRounding rounding{precision, emin, MaxFinite(format)};
  std::vector<Worker> state(static_cast<size_t>(workers));
  absl::Status status = ParallelForChecked(
      workers, tasks, [&] { return ctx.CheckDeadline(inst); },
      [&](int64_t task, int w) {
        Worker& me = state[static_cast<size_t>(w)];
        const int64_t b = task / blocks;
        const int64_t j0 = (task % blocks) * nb;
        const int64_t cols = std::min(nb, s.n - j0);
        if (stream) {
          for (int64_t i0 = 0; i0 < s.m; i0 += kCodesMaxRows) {
            const int64_t rows = std::min(kCodesMaxRows, s.m - i0);
            StreamBlock(*codes, rplan, packer, transposed,
                        l + (b * s.m + i0) * s.k, rows, s.k, b, j0, cols, s.n,
                        rounding, values + (b * s.m + i0) * s.n + j0, me.sums,
                        me.abss, me.bt, me.block, me.undecided, me.offsets,
                        me.acc);
          }
          return true;
        }
        me.block.resize(static_cast<size_t>(nb * s.k));
        if (!fast) packer(b, j0, cols, me.block.data(), /*kmajor=*/false, nb);
        if (fast) {
          // k-major for the two-sum loop; a column is gathered into `block`
          // only when it needs the exact accumulator.
          const int64_t rows = use_codes ? s.m : 1;
          me.sums.resize(static_cast<size_t>(rows * nb));
          me.comps.resize(static_cast<size_t>(rows * nb));
          me.abss.resize(static_cast<size_t>(rows * nb));
          if (use_codes) {
            me.code_block.resize(static_cast<size_t>(
                nb / 4 * CodesGroupStride(s.k, codes->bytes) * codes->bytes));
            if (codes->bytes == 4) {
              // As float, the type TwoSum4Segment*F32 reads them as (and
              // the rhs literal's storage type): no aliasing between
              // uint32_t writes and float reads.
              PackCodes(reinterpret_cast<const float*>(codes->data), *codes,
                        rplan, s.k, b, j0, cols,
                        reinterpret_cast<float*>(me.code_block.data()));
            } else {
              PackCodes(reinterpret_cast<const uint16_t*>(codes->data), *codes,
                        rplan, s.k, b, j0, cols,
                        reinterpret_cast<uint16_t*>(me.code_block.data()));
            }
            TwoSumCodesBlock(*codes, l + b * s.m * s.k, s.m,
                             me.code_block.data(), s.k, nb, cols,
                             me.sums.data(), me.comps.data(), me.abss.data());
          } else {
            me.bt.resize(static_cast<size_t>(nb * s.k));
            packer(b, j0, cols, me.bt.data(), /*kmajor=*/true, nb);
          }
        }
        for (int64_t i = 0; i < s.m; ++i) {
          const double* lrow = l + (b * s.m + i) * s.k;
          int64_t out = (b * s.m + i) * s.n + j0;
          // Row i's s, c, A (the codes path computed every row's above).
          const int64_t row = use_codes ? i * nb : 0;
          if (fast && !use_codes && !DotFastPathDisabledForTesting()) {
            // The verified values straight into the result; the columns
            // are visited again only when one of them needs ExactSum.
            double* r = values + out;
            if (!VerifiedBlock(lrow, me.bt.data(), s.k, nb, cols, rounding,
                               me.sums.data(), me.comps.data(), me.abss.data(),
                               r)) {
              continue;
            }
            me.rounded.assign(r, r + cols);
          }
          for (int64_t jj = 0; jj < cols; ++jj, ++out) {
            const double* rrow = me.block.data() + jj * s.k;
            if (fast) {
              const double r =
                  DotFastPathDisabledForTesting()
                      ? std::numeric_limits<double>::quiet_NaN()
                  : use_codes
                      ? VerifiedRound(me.sums[row + jj], me.comps[row + jj],
                                      me.abss[row + jj], s.k, rounding)
                      : me.rounded[jj];
              if (!std::isnan(r)) {
                values[out] = r;
                continue;
              }
              double* col = me.block.data() + jj * s.k;
              if (use_codes) {
                packer(b, j0 + jj, 1, col, /*kmajor=*/false, 1);
              } else {
                for (int64_t t = 0; t < s.k; ++t) col[t] = me.bt[t * nb + jj];
              }
            }
            me.acc.Clear();
            if constexpr (kExactInDouble) {
              me.acc.AddExactProducts(lrow, rrow, s.k);
            } else {
              for (int64_t k = 0; k < s.k; ++k) {
                me.acc.AddProduct(lrow[k], rrow[k]);
              }
            }
            values[out] = me.acc.Round(precision, emin);
            if (error_data) {
              me.abs_acc.Clear();
              for (int64_t k = 0; k < s.k; ++k) {
                if constexpr (kExactInDouble) {
                  me.abs_acc.Add(std::fabs(lrow[k] * rrow[k]));
                } else {
                  me.abs_acc.AddProduct(std::fabs(lrow[k]), std::fabs(rrow[k]));
                }
              }
              (*abs_sums)[out] = me.abs_acc.RoundUpToDouble();
            }
          }
        }
        return true;
      });
  return status;
}

template <bool kExactInDouble>
absl::Status ComplexKernel(const HloInstruction& inst, EvalContext& ctx,
                           const std::vector<std::complex<double>>& l,
                           const std::vector<std::complex<double>>& r,
                           const Sizes& s, PrimitiveType component_type,
                           bool error_data,
                           std::vector<std::complex<double>>* values,
                           std::vector<double>* abs_sums) {
  ExactSum re, im, abs_acc;
  const FloatFormat& format = FormatOf(component_type);
  const int precision = Precision(format);
  const int emin = std::ilogb(MinNormal(format));
  auto add = [](ExactSum& acc, double a, double b) {
    if constexpr (kExactInDouble) {
      acc.Add(a * b);
    } else {
      acc.AddProduct(a, b);
    }
  };
  int64_t out = 0;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t i = 0; i < s.m; ++i) {
      HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
      const std::complex<double>* lrow = l.data() + (b * s.m + i) * s.k;
      for (int64_t j = 0; j < s.n; ++j, ++out) {
        const std::complex<double>* rrow = r.data() + (b * s.n + j) * s.k;
        re.Clear();
        im.Clear();
        if (error_data) abs_acc.Clear();
        for (int64_t k = 0; k < s.k; ++k) {
          const double ar = lrow[k].real(), ai = lrow[k].imag();
          const double br = rrow[k].real(), bi = rrow[k].imag();
          add(re, ar, br);
          add(re, -ai, bi);
          add(im, ar, bi);
          add(im, ai, br);
          if (error_data) {
            add(abs_acc, std::fabs(ar), std::fabs(br));
            add(abs_acc, std::fabs(ai), std::fabs(bi));
            add(abs_acc, std::fabs(ar), std::fabs(bi));
            add(abs_acc, std::fabs(ai), std::fabs(br));
          }
        }
        (*values)[out] = {re.Round(precision, emin), im.Round(precision, emin)};
        if (error_data) (*abs_sums)[out] = abs_acc.RoundUpToDouble();
      }
    }
  }
  return absl::OkStatus();
}

// Semantics: seed 001 "DotGeneral". Result dimensions: batch dims (in the
// order of lhs_batch_dims), lhs free dims, rhs free dims (each ascending).
// operand_precision and algorithm are recorded on the instruction and do
// not change the oracle's value (they change the allowed error only).
absl::StatusOr<Literal> EvalDotGeneral(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 2, 2));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[0], 0));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[1], 1));
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const DotDimensionNumbers& dnums = inst.attrs().dot_dimension_numbers;
  const PackPlan lplan = MakePackPlan(lhs.shape(), dnums.lhs_batch_dimensions,
                                      dnums.lhs_contracting_dimensions);
  const PackPlan rplan = MakePackPlan(rhs.shape(), dnums.rhs_batch_dimensions,
                                      dnums.rhs_contracting_dimensions);
  Sizes s{static_cast<int64_t>(lplan.batch.size()),
          static_cast<int64_t>(lplan.free.size()),
          static_cast<int64_t>(rplan.free.size()),
          static_cast<int64_t>(lplan.contracting.size())};
  // An empty batch/free product empties the plan's other lists' use; the
  // contracting count must still be the product of the sizes (a zero-size
  // contracting dim gives k = 0 and all-zero results).
  {
    int64_t k = 1;
    for (int64_t d : dnums.lhs_contracting_dimensions)
      k *= lhs.shape().dimensions(d);
    s.k = k;
  }
  if (static_cast<int64_t>(rplan.batch.size()) != s.batch ||
      static_cast<int64_t>(rplan.contracting.size()) != s.k) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst),
                     "batch or contracting sizes of lhs and rhs differ (is "
                     "the module verified?)"));
  }
  const Shape& shape = inst.shape();
  const PrimitiveType rt = shape.element_type();
  const PrimitiveType lt = lhs.element_type();
  const PrimitiveType rht = rhs.element_type();
  const int64_t count = s.batch * s.m * s.n;
  if (shape.num_elements() != count) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "result has ", shape.num_elements(),
        " elements, the dimension numbers give ", count,
        " (is the module verified?)"));
  }
  const bool error_data = ctx.options().compute_error_data;

  if (IsFloat(rt)) {
    if (IsComplex(lt) || IsComplex(rht)) {
      return InstructionUnimplemented(
          inst, "complex operands with a real result are not supported");
    }
    HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<double[]> l,
                            PackRealLhs(inst, lhs, lplan));
    std::vector<double> r_storage;
    HLOREF_ASSIGN_OR_RETURN(RhsPacker packer,
                            MakeRhsPacker(inst, rhs, rplan, s.k, &r_storage));
    // Every output is written by the kernel: no zero fill.
    std::unique_ptr<double[]> values(new double[std::max<int64_t>(count, 1)]);
    std::vector<double> abs_sums(error_data ? static_cast<size_t>(count) : 0);
    const std::optional<RhsCodes> codes = MakeRhsCodes(rhs, rplan, s.k);
    const RhsCodes* codes_ptr = codes ? &*codes : nullptr;
    if (OperandPrecision(lt) + OperandPrecision(rht) <= 53) {
      HLOREF_RETURN_IF_ERROR(
          RealKernel<true>(inst, ctx, l.get(), packer, codes_ptr, rplan, s, rt,
                           error_data, values.get(), &abs_sums));
    } else {
      HLOREF_RETURN_IF_ERROR(
          RealKernel<false>(inst, ctx, l.get(), packer, codes_ptr, rplan, s, rt,
                            error_data, values.get(), &abs_sums));
    }
    if (error_data) {
      const int64_t m = AccumulationSteps(s.k, ProductsRounded(lt, rht, rt));
      for (int64_t i = 0; i < count; ++i)
        ctx.SetErrorData(0, i, abs_sums[i], m);
    }
    return StoreDoublesReusing(shape, absl::MakeConstSpan(values.get(), count),
                               ctx);
  }
  if (IsComplex(rt)) {
    const PrimitiveType ct = ComplexComponentType(rt);
    HLOREF_ASSIGN_OR_RETURN(std::vector<std::complex<double>> l0,
                            LoadAsComplex(inst, lhs));
    HLOREF_ASSIGN_OR_RETURN(std::vector<std::complex<double>> r0,
                            LoadAsComplex(inst, rhs));
    const std::vector<std::complex<double>> l = Pack(l0, lplan);
    const std::vector<std::complex<double>> r = Pack(r0, rplan);
    std::vector<std::complex<double>> values(static_cast<size_t>(count));
    std::vector<double> abs_sums(error_data ? static_cast<size_t>(count) : 0);
    if (OperandPrecision(lt) + OperandPrecision(rht) <= 53) {
      HLOREF_RETURN_IF_ERROR(ComplexKernel<true>(
          inst, ctx, l, r, s, ct, error_data, &values, &abs_sums));
    } else {
      HLOREF_RETURN_IF_ERROR(ComplexKernel<false>(
          inst, ctx, l, r, s, ct, error_data, &values, &abs_sums));
    }
    if (error_data) {
      const int64_t m =
          AccumulationSteps(2 * s.k, ProductsRounded(lt, rht, rt));
      for (int64_t i = 0; i < count; ++i)
        ctx.SetErrorData(0, i, abs_sums[i], m);
    }
    return StoreComplex(shape, values);
  }
  if (IsInteger(rt) || IsPred(rt)) {
    if (!(IsInteger(lt) || IsPred(lt)) || !(IsInteger(rht) || IsPred(rht))) {
      return InstructionUnimplemented(
          inst, absl::StrCat("operands ", PrimitiveTypeName(lt), " and ",
                             PrimitiveTypeName(rht),
                             " with an integer result "
                             "are not supported"));
    }
    HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> l0, LoadInts(lhs));
    HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> r0, LoadInts(rhs));
    const std::vector<int64_t> l = Pack(l0, lplan);
    const std::vector<int64_t> r = Pack(r0, rplan);
    std::vector<int64_t> values(static_cast<size_t>(count));
    const bool pred = IsPred(rt);
    int64_t out = 0;
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t i = 0; i < s.m; ++i) {
        HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
        const int64_t* lrow = l.data() + (b * s.m + i) * s.k;
        for (int64_t j = 0; j < s.n; ++j, ++out) {
          const int64_t* rrow = r.data() + (b * s.n + j) * s.k;
          if (pred) {
            bool any = false;
            for (int64_t k = 0; k < s.k && !any; ++k) {
              any = lrow[k] != 0 && rrow[k] != 0;
            }
            values[out] = any ? 1 : 0;
          } else {
            // Two's-complement wrap: exact modulo 2^64, then wrapped to
            // the result width by StoreInts (impl.dot.1: overflow wraps).
            uint64_t sum = 0;
            for (int64_t k = 0; k < s.k; ++k) {
              sum += static_cast<uint64_t>(lrow[k]) *
                     static_cast<uint64_t>(rrow[k]);
            }
            values[out] = static_cast<int64_t>(sum);
          }
        }
      }
    }
    return StoreInts(shape, values);
  }
  return InstructionUnimplemented(
      inst,
      absl::StrCat("result type ", PrimitiveTypeName(rt), " is not supported"));
}

}  // namespace

// Exact doubles for float operands and integers of at most 53 bits.
absl::StatusOr<std::vector<double>> LoadReal(const HloInstruction& inst,
                                             const Literal& lit) {
  const PrimitiveType t = lit.element_type();
  if (IsFloat(t)) return LoadDoubles(lit);
  if ((IsInteger(t) || IsPred(t)) && BitWidth(t) <= 53) {
    HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> ints, LoadInts(lit));
    return std::vector<double>(ints.begin(), ints.end());
  }
  return InstructionUnimplemented(
      inst, absl::StrCat("operand type ", PrimitiveTypeName(t), " with a ",
                         PrimitiveTypeName(inst.shape().element_type()),
                         " result is not supported"));
}

absl::StatusOr<std::vector<std::complex<double>>> LoadAsComplex(
    const HloInstruction& inst, const Literal& lit) {
  if (IsComplex(lit.element_type())) return LoadComplex(lit);
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> re, LoadReal(inst, lit));
  return std::vector<std::complex<double>>(re.begin(), re.end());
}

absl::StatusOr<Literal> EvalDot(const HloInstruction& inst,
                                absl::Span<const Literal* const> operands,
                                EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kDot:
      return EvalDotGeneral(inst, operands, ctx);
    case HloOpcode::kRaggedDot:
      return EvalRaggedDot(inst, operands, ctx);
    case HloOpcode::kScaledDot:
      return EvalScaledDot(inst, operands, ctx);
    default:
      return InstructionUnimplemented(
          inst, absl::StrCat("the interpreter does not implement ",
                             HloOpcodeString(inst.opcode()), " yet"));
  }
}

}  // namespace hloref
