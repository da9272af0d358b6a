// (to be written) the CPU emitters of the rng ops.
#include "backends/cpu/cpu_emitters.h"

namespace hloref::cpu {

void RegisterCpuRngEmitters(codegen::EmitterTable& table) {}

}  // namespace hloref::cpu
