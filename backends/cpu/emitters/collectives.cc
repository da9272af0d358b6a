// (to be written) the CPU emitters of the collectives ops.
#include "backends/cpu/cpu_emitters.h"

namespace hloref::cpu {

void RegisterCpuCollectiveEmitters(codegen::EmitterTable& table) {}

}  // namespace hloref::cpu
