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

}  // namespace

void AddSortRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back(
      {"hloref_cpu_sort", reinterpret_cast<void*>(&hloref_cpu_sort)});
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

}  // extern "C"
