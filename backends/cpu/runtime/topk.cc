// topk of the CPU runtime (topk.h): a partial selection per row.
//
// Every element gets an integer key whose order is the total order of
// topk.h (for `largest == 0` the key is complemented, which reverses the
// order and keeps equal keys equal), so one selection serves both
// directions. Selection, per row of n keys:
//   * a heap of the k best entries seen so far, its worst entry on top,
//     filled with positions 0..k-1; then every later position i replaces
//     the top exactly when key(i) > key(top): an equal key at a later
//     position is never better (ties go to the lower position), so the
//     strict test is the whole rule. The scan tests 16 keys against the
//     top's key at once (a branch-free loop the compiler vectorises) and
//     only looks at each key when one passes; on random data about
//     k ln(n / k) of n keys pass;
//   * when k is a large part of the row (k > 64 and 8k > n) an
//     nth_element + sort of (key, position) pairs, which costs O(n) rather
//     than O(n log k).
// Both orders compare (key, position) lexicographically (larger key, then
// smaller position), a strict total order, so the result does not depend
// on the algorithm.
#include "backends/cpu/runtime/topk.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/runtime/array_ops.h"
#include "backends/cpu/runtime/strided.h"
#include "backends/cpu/runtime/thread_pool.h"
#include "spec/types/minifloat.h"

namespace hloref::cpu {
namespace {

struct Entry {
  int64_t key;
  int64_t pos;
};

// a comes before b in the result.
inline bool Better(const Entry& a, const Entry& b) {
  return a.key > b.key || (a.key == b.key && a.pos < b.pos);
}

// Ordered by Better, the heap's front is the worst entry.
struct WorstOnTop {
  bool operator()(const Entry& a, const Entry& b) const { return Better(a, b); }
};

// The order key of one element (topk.h), larger is better for largest.
int64_t TotalOrderKey(PrimitiveType type, const uint8_t* p) {
  if (IsFloat(type)) {
    const FloatFormat& format = FormatOf(type);
    const uint64_t bits =
        rt::LoadBits(p, StorageBytes(type)) & rt::LowMask(format.total_bits);
    const int mag_bits = format.total_bits - (format.has_sign ? 1 : 0);
    const int64_t mag = static_cast<int64_t>(bits & rt::LowMask(mag_bits));
    const bool negative =
        format.has_sign && ((bits >> (format.total_bits - 1)) & 1) != 0;
    return negative ? -mag - 1 : mag;
  }
  if (IsUnsignedInt(type)) {
    // Shifted into signed order: 0 -> INT64_MIN, the largest -> above.
    const uint64_t bits =
        rt::LoadBits(p, StorageBytes(type)) & rt::LowMask(BitWidth(type));
    return static_cast<int64_t>(bits ^ (uint64_t{1} << 63));
  }
  return rt::LoadInt(type, p);  // signed integers, pred
}

// The f32 key from the bit pattern: sign-magnitude to two's complement
// (-mag - 1 for a negative sign, as TotalOrderKey).
inline int32_t F32Key(uint32_t bits) {
  const int32_t b = static_cast<int32_t>(bits);
  return b ^ static_cast<int32_t>((static_cast<uint32_t>(b >> 31)) >> 1);
}

// The selection of the file comment over keys key_at(0..n-1) of type Key
// (larger is better), positions written best first to out[0..k).
template <typename Key, typename KeyAt>
void SelectRow(int64_t n, int64_t k, const KeyAt& key_at,
               std::vector<Entry>& work, int32_t* out) {
  work.clear();
  if (k > 64 && 8 * k > n) {
    work.resize(n);
    for (int64_t i = 0; i < n; ++i) work[i] = {key_at(i), i};
    if (k < n) {
      std::nth_element(work.begin(), work.begin() + (k - 1), work.end(),
                       Better);
    }
    std::sort(work.begin(), work.begin() + k, Better);
  } else {
    work.resize(k);
    for (int64_t i = 0; i < k; ++i) work[i] = {key_at(i), i};
    std::make_heap(work.begin(), work.end(), WorstOnTop());
    auto offer = [&](int64_t i, Key key) {
      if (key <= work.front().key) return;
      std::pop_heap(work.begin(), work.end(), WorstOnTop());
      work.back() = {key, i};
      std::push_heap(work.begin(), work.end(), WorstOnTop());
    };
    constexpr int64_t kBlock = 16;
    int64_t i = k;
    for (; i + kBlock <= n; i += kBlock) {
      const Key top = static_cast<Key>(work.front().key);
      Key keys[kBlock];
      int any = 0;
      for (int64_t j = 0; j < kBlock; ++j) {
        keys[j] = key_at(i + j);
        any |= keys[j] > top ? 1 : 0;
      }
      if (any == 0) continue;
      for (int64_t j = 0; j < kBlock; ++j) offer(i + j, keys[j]);
    }
    for (; i < n; ++i) offer(i, key_at(i));
    std::sort_heap(work.begin(), work.end(), WorstOnTop());
  }
  for (int64_t j = 0; j < k; ++j) out[j] = static_cast<int32_t>(work[j].pos);
}

struct TopKJob {
  PrimitiveType type;
  int bytes;
  const uint8_t* in;
  uint8_t* values;
  uint8_t* indices;
  int64_t rank;
  const int64_t* dims;
  const int64_t* in_strides;
  const int64_t* value_strides;
  const int64_t* index_strides;
  int64_t k;
  bool largest;
};

void RunRows(const TopKJob& job, int64_t row_begin, int64_t row_end) {
  const int64_t last = job.rank - 1;
  const int64_t n = job.dims[last];
  const int64_t k = job.k;
  const int64_t is = job.in_strides[last];
  std::vector<Entry> work;
  std::vector<int64_t> keys;
  std::vector<int32_t> pos(static_cast<size_t>(k));
  std::vector<int64_t> index(static_cast<size_t>(job.rank), 0);
  for (int64_t row = row_begin; row < row_end; ++row) {
    // The row's logical index (row-major over the leading dimensions).
    int64_t r = row;
    for (int64_t d = last - 1; d >= 0; --d) {
      index[d] = r % job.dims[d];
      r /= job.dims[d];
    }
    const int64_t in_base = rt::Offset(index, job.in_strides, job.rank);
    const int64_t v_base = rt::Offset(index, job.value_strides, job.rank);
    const int64_t i_base = rt::Offset(index, job.index_strides, job.rank);
    const uint8_t* row_in = job.in + in_base * job.bytes;
    if (job.type == PrimitiveType::kF32) {
      const uint32_t flip = job.largest ? 0u : ~0u;
      if (is == 1) {  // contiguous: the block test vectorises
        auto key_at = [row_in, flip](int64_t i) -> int32_t {
          uint32_t bits;
          std::memcpy(&bits, row_in + i * 4, 4);
          return static_cast<int32_t>(static_cast<uint32_t>(F32Key(bits)) ^
                                      flip);
        };
        SelectRow<int32_t>(n, k, key_at, work, pos.data());
      } else {
        auto key_at = [&](int64_t i) -> int32_t {
          uint32_t bits;
          std::memcpy(&bits, row_in + i * is * 4, 4);
          return static_cast<int32_t>(static_cast<uint32_t>(F32Key(bits)) ^
                                      flip);
        };
        SelectRow<int32_t>(n, k, key_at, work, pos.data());
      }
    } else if (job.type == PrimitiveType::kS32) {
      const uint32_t flip = job.largest ? 0u : ~0u;
      auto key_at = [&](int64_t i) -> int32_t {
        uint32_t bits;
        std::memcpy(&bits, row_in + i * is * 4, 4);
        return static_cast<int32_t>(bits ^ flip);
      };
      SelectRow<int32_t>(n, k, key_at, work, pos.data());
    } else {
      keys.resize(static_cast<size_t>(n));
      const uint64_t flip = job.largest ? 0u : ~uint64_t{0};
      for (int64_t i = 0; i < n; ++i) {
        keys[i] =
            static_cast<int64_t>(static_cast<uint64_t>(TotalOrderKey(
                                     job.type, row_in + i * is * job.bytes)) ^
                                 flip);
      }
      const int64_t* kp = keys.data();
      auto key_at = [kp](int64_t i) -> int64_t { return kp[i]; };
      SelectRow<int64_t>(n, k, key_at, work, pos.data());
    }
    const int64_t vs = job.value_strides[last];
    const int64_t xs = job.index_strides[last];
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(job.values + (v_base + j * vs) * job.bytes,
                  row_in + pos[j] * is * job.bytes,
                  static_cast<size_t>(job.bytes));
      std::memcpy(job.indices + (i_base + j * xs) * 4, &pos[j], 4);
    }
  }
}

}  // namespace

void SelectTopKPositions(const int64_t* keys, int64_t n, int64_t k,
                         int32_t* out) {
  if (k <= 0 || n <= 0) return;
  std::vector<Entry> work;
  auto key_at = [keys](int64_t i) { return keys[i]; };
  SelectRow<int64_t>(n, std::min(k, n), key_at, work, out);
}

void AddTopKRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back(
      {"hloref_cpu_topk", reinterpret_cast<void*>(&hloref_cpu_topk)});
}

}  // namespace hloref::cpu

extern "C" void hloref_cpu_topk(hloref::cpu::RunContext* ctx, int32_t type_id,
                                const void* operand, void* values,
                                void* indices, int64_t rank,
                                const int64_t* dims, const int64_t* in_strides,
                                const int64_t* value_strides,
                                const int64_t* index_strides, int64_t k,
                                int32_t largest) {
  using hloref::cpu::TopKJob;
  if (rank <= 0 || k <= 0) return;
  const int64_t n = dims[rank - 1];
  const int64_t rows = hloref::cpu::rt::Product(dims, 0, rank - 1);
  if (n == 0 || rows == 0) return;
  if (k > n || n > INT32_MAX) {
    ctx->SetError(absl::InvalidArgumentError(
        "topk: k exceeds the row or the row exceeds s32 positions"));
    return;
  }
  const auto type = static_cast<hloref::PrimitiveType>(type_id);
  TopKJob job{type,
              hloref::StorageBytes(type),
              static_cast<const uint8_t*>(operand),
              static_cast<uint8_t*>(values),
              static_cast<uint8_t*>(indices),
              rank,
              dims,
              in_strides,
              value_strides,
              index_strides,
              k,
              largest != 0};
  // Rows in parallel when there is enough work to pay for waking the pool.
  if (rows < 2 || rows * n < (int64_t{1} << 14)) {
    hloref::cpu::RunRows(job, 0, rows);
    return;
  }
  hloref_cpu_parallel_for(
      ctx, rows,
      [](void* env, int64_t b, int64_t e) {
        hloref::cpu::RunRows(*static_cast<const TopKJob*>(env), b, e);
      },
      &job);
}
