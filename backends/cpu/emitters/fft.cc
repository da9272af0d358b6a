// (to be written) the CPU emitters of the fft ops.
#include "backends/cpu/cpu_emitters.h"

namespace hloref::cpu {

void RegisterCpuFftEmitters(codegen::EmitterTable& table) {}

}  // namespace hloref::cpu
