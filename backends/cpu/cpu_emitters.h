// The CPU target's emitters for the ops that call the backend's runtime
// (backends/cpu/runtime): one registration function per file of
// backends/cpu/emitters/.
#ifndef HLOREF_BACKENDS_CPU_CPU_EMITTERS_H_
#define HLOREF_BACKENDS_CPU_CPU_EMITTERS_H_

#include "backends/codegen/emitter_table.h"

namespace hloref::cpu {

void RegisterCpuSortEmitters(codegen::EmitterTable& table);  // sort, topk
void RegisterCpuDotEmitters(codegen::EmitterTable& table);   // dot (GEMM)
void RegisterCpuConvolutionEmitters(
    codegen::EmitterTable& table);  // convolution (implicit GEMM)
void RegisterCpuFftEmitters(codegen::EmitterTable& table);  // fft
void RegisterCpuLinalgEmitters(
    codegen::EmitterTable& table);  // cholesky, triangular-solve
void RegisterCpuRngEmitters(
    codegen::EmitterTable&
        table);  // rng, rng-bit-generator, rng-get-and-update-state
void RegisterCpuCollectiveEmitters(
    codegen::EmitterTable&
        table);  // every collective, replica-id, partition-id
void RegisterCpuHostEmitters(
    codegen::EmitterTable& table);  // infeed, outfeed, send, recv (+done)
void RegisterCpuCustomCallEmitters(
    codegen::EmitterTable& table);  // custom-call

// The default table plus all of the above.
codegen::EmitterTable CpuEmitterTable();

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_CPU_EMITTERS_H_
