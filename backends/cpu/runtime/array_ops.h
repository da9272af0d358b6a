// The runtime functions generated code calls for sort, topk, fft,
// cholesky, triangular-solve and the rng ops (emitted by
// backends/cpu/emitters/{sort,fft,linalg,rng}.cc).
//
// Conventions: every array is a raw buffer in PHYSICAL layout order plus,
// per LOGICAL dimension, its size (`dims`) and its stride in elements
// (`strides`, from the shape's minor_to_major); elements are stored as in a
// Literal. `type` arguments are PrimitiveType values. Errors are recorded
// on the RunContext (hloref_cpu_error), never thrown.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_ARRAY_OPS_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_ARRAY_OPS_H_

#include <cstdint>

#include "backends/cpu/runtime/run_context.h"

extern "C" {

// A compiled HLO computation: void f(ctx, params, results), params and
// results arrays of pointers to each array leaf (emit_context.h).
typedef void (*HlorefComputationFn)(hloref::cpu::RunContext* ctx, void** params,
                                    void** results);

// sort: sorts every 1-D slice along `dimension` of the `n` operands
// together by `comparator` (parameters 2k, 2k+1: operand k's elements;
// result: one pred byte), with the oracle's stable bottom-up merge sort (a
// tie keeps input order; it terminates for any comparator), and writes
// each permuted operand to outputs[k]. in_strides / out_strides hold n *
// rank strides (operand k's at k * rank); elem_bytes n sizes.
void hloref_cpu_sort(hloref::cpu::RunContext* ctx,
                     HlorefComputationFn comparator, int64_t n,
                     void* const* operands, void* const* outputs,
                     const int64_t* elem_bytes, int64_t rank,
                     const int64_t* dims, int64_t dimension,
                     const int64_t* in_strides, const int64_t* out_strides);

// sort by one operand's key (the comparator orders by operand
// `key_operand` alone: emitters/sort.cc SortKeyOf): ascending, or
// descending when `descending` != 0, ties in input order (stable), every
// operand permuted alike; the other arguments as hloref_cpu_sort. key_type
// is f16, bf16, f32 or f64 (TOTALORDER) or an integer type.
void hloref_cpu_sort_by_key(hloref::cpu::RunContext* ctx, int32_t key_type,
                            int64_t key_operand, int32_t descending, int64_t n,
                            void* const* operands, void* const* outputs,
                            const int64_t* elem_bytes, int64_t rank,
                            const int64_t* dims, int64_t dimension,
                            const int64_t* in_strides,
                            const int64_t* out_strides);

// topk along the last dimension: the k largest (largest != 0) or smallest
// elements of each row in XLA's total order (floats: -NaN < -inf < ... <
// -0 < +0 < ... < +inf < +NaN, by sign-magnitude bits), ties by lower
// index, with their s32 positions.
void hloref_cpu_topk(hloref::cpu::RunContext* ctx, int32_t type,
                     const void* operand, void* values, void* indices,
                     int64_t rank, const int64_t* dims,
                     const int64_t* in_strides, const int64_t* value_strides,
                     const int64_t* index_strides, int64_t k, int32_t largest);

// fft: fft_type 0 FFT, 1 IFFT, 2 RFFT, 3 IRFFT over the `nlen` minor
// dimensions with lengths `lengths`; in_dims / out_dims are the operand's
// and result's dimensions (both of rank `rank`).
void hloref_cpu_fft(hloref::cpu::RunContext* ctx, int32_t in_type,
                    int32_t out_type, const void* in, void* out, int64_t rank,
                    const int64_t* in_dims, const int64_t* in_strides,
                    const int64_t* out_dims, const int64_t* out_strides,
                    int32_t fft_type, int64_t nlen, const int64_t* lengths);

// cholesky of each [M, M] matrix of the batch (a's dims), reading the
// lower (lower != 0) or upper triangle; the other triangle of the result is
// zero; a batch element that is not positive definite gives all NaN.
void hloref_cpu_cholesky(hloref::cpu::RunContext* ctx, int32_t type,
                         const void* a, void* out, int64_t rank,
                         const int64_t* dims, const int64_t* a_strides,
                         const int64_t* out_strides, int32_t lower);

// triangular-solve: op(a) x = b (left_side) or x op(a) = b; transpose 0
// none, 1 TRANSPOSE, 2 ADJOINT. The result has b's dims.
void hloref_cpu_triangular_solve(
    hloref::cpu::RunContext* ctx, int32_t type, const void* a, const void* b,
    void* out, int64_t rank, const int64_t* a_dims, const int64_t* a_strides,
    const int64_t* b_dims, const int64_t* b_strides, const int64_t* out_strides,
    int32_t left_side, int32_t lower, int32_t unit_diagonal, int32_t transpose);

// rng-bit-generator: algorithm 0 DEFAULT (= PHILOX), 1 THREE_FRY, 2 PHILOX;
// state: `words` u64 (2, or 3 for PHILOX); writes the new state and the
// output bits (XLA's layout, in the output's logical row-major order).
void hloref_cpu_rng_bit_generator(hloref::cpu::RunContext* ctx,
                                  int32_t algorithm, const uint64_t* state,
                                  int64_t words, uint64_t* new_state,
                                  int32_t type, void* out, int64_t rank,
                                  const int64_t* dims, const int64_t* strides);

// rng: the module state is u64[3] {seed, S.low, S.high} (the run context's
// rng_state replaces it when set). distribution 0 uniform over [a, b), 1
// normal(a = mu, b = sigma); a and b are scalars of `type`.
void hloref_cpu_rng(hloref::cpu::RunContext* ctx, uint64_t* module_state,
                    int32_t distribution, int32_t type, const void* a,
                    const void* b, void* out, int64_t rank, const int64_t* dims,
                    const int64_t* strides);

// rng-get-and-update-state: out = u64[2] {S.low, S.high}; S += delta.
void hloref_cpu_rng_get_and_update_state(hloref::cpu::RunContext* ctx,
                                         uint64_t* module_state, int64_t delta,
                                         uint64_t* out);

}  // extern "C"

namespace hloref::cpu {
// Random123 blocks (exposed for tests): Threefry-2x32-20, Philox-4x32-10.
void Threefry2x32Block(const uint32_t counter[2], const uint32_t key[2],
                       uint32_t out[2]);
void Philox4x32Block(const uint32_t counter[4], const uint32_t key[2],
                     uint32_t out[4]);
}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_ARRAY_OPS_H_
