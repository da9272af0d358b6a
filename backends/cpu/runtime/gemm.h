// The CPU backend's dot runtime: a packed, cache-blocked GEMM for any
// dot_general (batch, free and contracting dimensions in any position and
// layout), called from the dot buffer emitter (backends/cpu/emitters/dot.cc)
// for shapes above the small-shape threshold. docs/cpu-kernels.md
// describes the design; gemm_kernels.h the microkernels.
//
// What it computes is seed 001 "DotGeneral": out[batch, m, n] = sum over
// the contracting multi-index k of lhs[batch, m, k] * rhs[batch, k, n],
// where batch, m, n and k each stand for a group of logical dimensions
// (the emitter passes each dimension's size and element stride in every
// operand it appears in, so transposed or permuted layouts fold into the
// packing without a copy).
//
// Paths (GemmPathFor), all conformant with numerics.md 7.3 (class A) and
// no declared deviation:
//   * f32: operands f32, bf16, f16 or an 8-bit float type (converted to
//     f32 while packing: every product of two such values is exact in
//     f32's precision), result f32, bf16 or f16; FMA accumulation in f32,
//     the result rounded once to a narrower type.
//   * f64: result f64, operands any float type up to f64; FMA in f64.
//   * int: operands s8 / u8, result s32 / u32: widened to s16 pairs
//     (vpdpwssd on AVX512-VNNI), sums wrap modulo 2^32 exactly as the
//     oracle's do.
// Range guard (float paths): an FMA chain in the accumulation type meets
// the gamma_m(u) * S bound as long as nothing overflows and S is at least
// the smallest normal lambda. The packing routines record max |x| and the
// smallest nonzero |x| of both operands (and whether any is inf or NaN);
// when K * max|a| * max|b| could overflow or an operand is not finite, the
// dot is recomputed with a wide sequential accumulator (f64 for the f32
// path, long double for f64), as the elemental emitter does. When a
// nonzero product could fall below lambda (softmax probabilities, say),
// the FMA kernels' result stands except for the elements whose |value| <
// 2 lambda, which are recomputed with the wide accumulator: every other
// element provably has S >= lambda (kernel_support.h RangeGuardFor: the
// proof and its preconditions; otherwise, e.g. bf16 operands with an f32
// result, the whole dot takes the wide fallback). The K-contiguous GEMV
// (a decoding step's q . k^T) does not scan B where those preconditions
// hold: each element whose value is finite with |value| >= 2 lambda
// stands, and the others are judged on their own operands or recomputed
// (RangeGuard::kCheckEach). The decisions depend on the data only, so
// results never depend on the thread count.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_GEMM_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_GEMM_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/cpu/runtime/gemm_kernels.h"
#include "backends/cpu/runtime/run_context.h"
#include "spec/types/primitive_type.h"

namespace hloref::cpu {

class ThreadPool;

enum class GemmPath { kNone, kF32, kF64, kInt };

// The GEMM path for these element types (kNone: keep the elemental
// emitter).
GemmPath GemmPathFor(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType out);

// A dot_general in the runtime's terms: four groups of logical dimensions,
// each with its size and its element stride in the operands it belongs to
// (0 where it does not: m has no rhs stride, n no lhs stride, k no out
// stride). Each group is iterated row-major in the order given.
struct DotDims {
  struct Dim {
    int64_t size = 1;
    int64_t lhs = 0, rhs = 0, out = 0;
  };
  PrimitiveType lhs_type = PrimitiveType::kF32;
  PrimitiveType rhs_type = PrimitiveType::kF32;
  PrimitiveType out_type = PrimitiveType::kF32;
  std::vector<Dim> batch, m, n, k;
};

// The flat i64 form generated code passes (a constant array): version,
// types, group sizes, then 4 i64 per dimension.
std::vector<int64_t> EncodeDotDims(const DotDims& dims);
absl::StatusOr<DotDims> DecodeDotDims(const int64_t* desc);

// Runs the dot on `threads` (null: the calling thread) with `kernels`.
// bf16 x bf16 dots (not the skinny path) run on AMX tdpbf16ps where the
// host has AMX (cpuid and the OS's arch_prctl grant, checked at run time),
// else on AVX512_BF16 vdpbf16ps where the host has it. Both flush
// subnormal inputs, products and sums to zero. Without `fast` that result
// is kept only when the operands make a subnormal impossible (their
// smallest nonzero magnitudes: kernel_support::Bf16ProductsStayNormal),
// else the dot runs again on the f32 kernel: conformant with no declared
// deviation. fast (the CPU backend's --cpu-fast, RunContext::fast_math)
// keeps it always: not conformant without the declared deviation
// ftz=f32+bf16 (docs/cpu-kernels.md). Everything else is the same either
// way.
// Errors: an unsupported type combination or malformed dims.
absl::Status RunDot(const DotDims& dims, const void* lhs, const void* rhs,
                    void* out, ThreadPool* threads,
                    const gemm::GemmKernels& kernels, bool fast = false);

// Whether the last RunDot on this thread took the wide fallback, or the
// fast mode's vdpbf16ps path (tests).
bool LastDotUsedWideFallback();
bool LastDotUsedFastPath();
// Whether the last RunDot's result came from the bf16 dot-product
// instructions (either mode); whether it ran on AMX (tdpbf16ps for bf16,
// the tdpb*d int8 products for 8-bit integers); and whether a conformant
// run on the bf16 instructions was discarded (the operands could meet a
// subnormal) and redone on the f32 kernel.
bool LastDotUsedBf16DotProducts();
bool LastDotUsedAmx();
bool LastDotDiscardedBf16DotProducts();
// Whether the conformant mode may use the bf16 dot-product instructions
// (default: yes, unless HLOREF_CPU_BF16_DP=0); false keeps its bf16 x bf16
// dots on the f32 kernel (tests, benchmarks).
void SetConformantBf16DotProductsAllowed(bool allowed);
// Whether dots may use AMX where the host has it (default: yes, unless
// HLOREF_CPU_AMX=0 in the environment): bf16 x bf16 on tdpbf16ps (false:
// vdpbf16ps) and 8-bit integers on the int8 tile products (false: VNNI
// vpdpbusd). Tests and benchmarks.
void SetAmxAllowed(bool allowed);
// Whether bf16 B's with at most gemm::kGemvBf16MaxRows rows may take the
// bf16 GEMV (default: yes, unless HLOREF_CPU_GEMV_BF16=0); false sends
// them to the packed paths (tests of those paths on skinny shapes).
void SetBf16GemvAllowed(bool allowed);
// -1 when the last RunDot on this thread did not run the range guard's
// small-result check (RangeGuard::kCheckSmall) or its per-element check
// (RangeGuard::kCheckEach: the K-contiguous GEMV, B not scanned), else how
// many elements it recomputed with the wide accumulator.
int64_t LastDotSmallResultsRecomputed();

void AddGemmRuntimeSymbols(RuntimeSymbolList& list);

}  // namespace hloref::cpu

extern "C" {
// Generated code's entry: `desc` from EncodeDotDims; errors are recorded on
// the run context.
void hloref_cpu_dot(hloref::cpu::RunContext* ctx, const int64_t* desc,
                    const void* lhs, const void* rhs, void* out);
}

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_GEMM_H_
