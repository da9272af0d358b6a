// The CPU runtime's topk: per row of the last dimension, the k largest (or
// smallest) elements in XLA's total order with their s32 positions, found
// by a partial selection (a k-element heap fed by a threshold scan, or a
// partial sort when k is a large part of the row) instead of a sort of the
// whole row; rows run in parallel on the run's thread pool.
//
// Order (the oracle's, text-format 6.6 / xla comparators.h's
// CreateScalarGtComputation): floats by their sign-magnitude bit pattern
// read as an integer (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN,
// NaNs by payload), integers and pred by value; equal keys keep the lower
// position first (a stable order), so the result is unique.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_TOPK_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_TOPK_H_

#include <cstdint>

#include "backends/cpu/runtime/run_context.h"

namespace hloref::cpu {

void AddTopKRuntimeSymbols(RuntimeSymbolList& list);

// The positions of the k best of n keys (best first; equal keys: lower
// position first), keys given as int64 where a larger key is better.
// `out` holds k entries. Exposed for unit tests.
void SelectTopKPositions(const int64_t* keys, int64_t n, int64_t k,
                         int32_t* out);

}  // namespace hloref::cpu

// The entry generated code calls, hloref_cpu_topk, is declared with the
// other array functions in array_ops.h.

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_TOPK_H_
