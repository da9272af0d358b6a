// The sort runtime of the CPU backend: sort (any comparator, compiled
// code called through a function pointer). topk has its own selection
// kernel (topk.cc).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "backends/cpu/runtime/array_ops.h"
#include "backends/cpu/runtime/runtime_symbols.h"
#include "backends/cpu/runtime/strided.h"
#include "backends/cpu/runtime/thread_pool.h"
#include "spec/types/minifloat.h"

namespace hloref::cpu {
namespace {

// Stable bottom-up merge sort of `perm` under less(i, j): on a tie
// (less(right, left) false) the left run's element goes first. Every merge
// step consumes one element, so it terminates for any comparator, and for
// a strict weak order the result is THE stable order (the same as the
// oracle's, whatever algorithm it uses); for inconsistent comparators it is
// the same permutation as the oracle's identical merge sort.
template <typename Less>
void MergeSort(std::vector<int64_t>& perm, std::vector<int64_t>& buffer,
               Less less) {
  const int64_t n = static_cast<int64_t>(perm.size());
  buffer.resize(perm.size());
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = std::min(lo + width, n);
      const int64_t hi = std::min(lo + 2 * width, n);
      int64_t a = lo, b = mid, out = lo;
      while (a < mid && b < hi) {
        buffer[out++] = less(perm[b], perm[a]) ? perm[b++] : perm[a++];
      }
      while (a < mid) buffer[out++] = perm[a++];
      while (b < hi) buffer[out++] = perm[b++];
    }
    perm.swap(buffer);
  }
}

// The TOTALORDER key of an f16 / bf16 / f32 / f64 encoding (-NaN < -inf
// < ... < -0 < +0 < ... < +NaN: sign-magnitude to two's complement) or
// the value of an integer, as an int64 whose order is the comparator's.
int64_t SortKeyAt(PrimitiveType type, const uint8_t* p) {
  switch (type) {
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
    case PrimitiveType::kF32:
    case PrimitiveType::kF64: {
      const int bits = 8 * StorageBytes(type);
      const uint64_t raw = rt::LoadBits(p, StorageBytes(type));
      const uint64_t sign = uint64_t{1} << (bits - 1);
      const int64_t magnitude = static_cast<int64_t>(raw & (sign - 1));
      return (raw & sign) != 0 ? -1 - magnitude : magnitude;
    }
    default:
      if (IsUnsignedInt(type)) {
        // Unsigned order shifted into signed order.
        return static_cast<int64_t>(rt::LoadBits(p, StorageBytes(type)) ^
                                    (uint64_t{1} << 63));
      }
      return rt::LoadInt(type, p);
  }
}

struct KeyedSortJob {
  PrimitiveType key_type;
  int64_t key_operand;
  bool descending;
  int64_t n;
  void* const* operands;
  void* const* outputs;
  const int64_t* elem_bytes;
  int64_t rank;
  const int64_t* dims;
  int64_t dimension;
  const int64_t* in_strides;
  const int64_t* out_strides;
};

// Slices [begin, end) in row-major order of the dimensions other than the
// sorted one.
void RunKeyedSlices(const KeyedSortJob& job, int64_t begin, int64_t end) {
  const int64_t size = job.dims[job.dimension];
  struct Item {
    int64_t key;
    int64_t pos;
  };
  std::vector<Item> items(static_cast<size_t>(size));
  std::vector<int64_t> index(static_cast<size_t>(job.rank), 0);
  const int64_t kbytes = job.elem_bytes[job.key_operand];
  const int64_t kstride =
      job.in_strides[job.key_operand * job.rank + job.dimension];
  for (int64_t slice = begin; slice < end; ++slice) {
    int64_t r = slice;
    for (int64_t d = job.rank - 1; d >= 0; --d) {
      if (d == job.dimension) {
        index[d] = 0;
        continue;
      }
      index[d] = r % job.dims[d];
      r /= job.dims[d];
    }
    const uint8_t* kdata =
        static_cast<const uint8_t*>(job.operands[job.key_operand]) +
        rt::Offset(index, job.in_strides + job.key_operand * job.rank,
                   job.rank) *
            kbytes;
    for (int64_t i = 0; i < size; ++i) {
      int64_t key = SortKeyAt(job.key_type, kdata + i * kstride * kbytes);
      // Descending: the complement reverses the order, ties stay ties.
      items[i] = {job.descending ? ~key : key, i};
    }
    // (key, position) is a strict total order: its sorted order is the
    // stable order by key, whatever the algorithm.
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      return a.key < b.key || (a.key == b.key && a.pos < b.pos);
    });
    for (int64_t k = 0; k < job.n; ++k) {
      const uint8_t* src =
          static_cast<const uint8_t*>(job.operands[k]) +
          rt::Offset(index, job.in_strides + k * job.rank, job.rank) *
              job.elem_bytes[k];
      uint8_t* dst =
          static_cast<uint8_t*>(job.outputs[k]) +
          rt::Offset(index, job.out_strides + k * job.rank, job.rank) *
              job.elem_bytes[k];
      const int64_t bytes = job.elem_bytes[k];
      const int64_t is = job.in_strides[k * job.rank + job.dimension];
      const int64_t os = job.out_strides[k * job.rank + job.dimension];
      if (bytes == 4) {
        for (int64_t i = 0; i < size; ++i) {
          std::memcpy(dst + i * os * 4, src + items[i].pos * is * 4, 4);
        }
      } else {
        for (int64_t i = 0; i < size; ++i) {
          std::memcpy(dst + i * os * bytes, src + items[i].pos * is * bytes,
                      static_cast<size_t>(bytes));
        }
      }
    }
  }
}

}  // namespace

void AddSortRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back(
      {"hloref_cpu_sort", reinterpret_cast<void*>(&hloref_cpu_sort)});
  list.push_back({"hloref_cpu_sort_by_key",
                  reinterpret_cast<void*>(&hloref_cpu_sort_by_key)});
}

}  // namespace hloref::cpu

extern "C" {

void hloref_cpu_sort(hloref::cpu::RunContext* ctx,
                     HlorefComputationFn comparator, int64_t n,
                     void* const* operands, void* const* outputs,
                     const int64_t* elem_bytes, int64_t rank,
                     const int64_t* dims, int64_t dimension,
                     const int64_t* in_strides, const int64_t* out_strides) {
  using hloref::cpu::rt::Offset;
  if (rank == 0 || hloref::cpu::rt::Product(dims, 0, rank) == 0) return;
  const int64_t size = dims[dimension];
  std::vector<void*> params(static_cast<size_t>(2 * n));
  uint8_t result = 0;
  void* results[1] = {&result};
  std::vector<int64_t> in_base(n), out_base(n);
  std::vector<int64_t> perm(size), buffer(size);
  std::vector<int64_t> index(rank, 0);
  do {
    for (int64_t k = 0; k < n; ++k) {
      in_base[k] = Offset(index, in_strides + k * rank, rank);
      out_base[k] = Offset(index, out_strides + k * rank, rank);
    }
    std::iota(perm.begin(), perm.end(), int64_t{0});
    auto less = [&](int64_t i, int64_t j) {
      for (int64_t k = 0; k < n; ++k) {
        uint8_t* data = static_cast<uint8_t*>(operands[k]);
        const int64_t stride = in_strides[k * rank + dimension];
        params[2 * k] = data + (in_base[k] + i * stride) * elem_bytes[k];
        params[2 * k + 1] = data + (in_base[k] + j * stride) * elem_bytes[k];
      }
      result = 0;
      comparator(ctx, params.data(), results);
      return result != 0;
    };
    hloref::cpu::MergeSort(perm, buffer, less);
    for (int64_t k = 0; k < n; ++k) {
      const uint8_t* src = static_cast<const uint8_t*>(operands[k]);
      uint8_t* dst = static_cast<uint8_t*>(outputs[k]);
      const int64_t bytes = elem_bytes[k];
      const int64_t is = in_strides[k * rank + dimension];
      const int64_t os = out_strides[k * rank + dimension];
      for (int64_t i = 0; i < size; ++i) {
        std::memcpy(dst + (out_base[k] + i * os) * bytes,
                    src + (in_base[k] + perm[i] * is) * bytes,
                    static_cast<size_t>(bytes));
      }
    }
    if (ctx->failed()) return;
  } while (hloref::cpu::rt::NextIndex(index, dims, rank, dimension));
}

void hloref_cpu_sort_by_key(hloref::cpu::RunContext* ctx, int32_t key_type,
                            int64_t key_operand, int32_t descending, int64_t n,
                            void* const* operands, void* const* outputs,
                            const int64_t* elem_bytes, int64_t rank,
                            const int64_t* dims, int64_t dimension,
                            const int64_t* in_strides,
                            const int64_t* out_strides) {
  if (rank == 0 || hloref::cpu::rt::Product(dims, 0, rank) == 0) return;
  const hloref::cpu::KeyedSortJob job{
      static_cast<hloref::PrimitiveType>(key_type),
      key_operand,
      descending != 0,
      n,
      operands,
      outputs,
      elem_bytes,
      rank,
      dims,
      dimension,
      in_strides,
      out_strides};
  const int64_t slices =
      hloref::cpu::rt::Product(dims, 0, rank) / dims[dimension];
  if (slices < 2 || slices * dims[dimension] < (int64_t{1} << 14)) {
    hloref::cpu::RunKeyedSlices(job, 0, slices);
    return;
  }
  hloref_cpu_parallel_for(
      ctx, slices,
      [](void* env, int64_t b, int64_t e) {
        hloref::cpu::RunKeyedSlices(
            *static_cast<const hloref::cpu::KeyedSortJob*>(env), b, e);
      },
      const_cast<hloref::cpu::KeyedSortJob*>(&job));
}

}  // extern "C"
