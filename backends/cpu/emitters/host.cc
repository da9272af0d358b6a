// (to be written) the CPU emitters of the host ops.
#include "backends/cpu/cpu_emitters.h"

namespace hloref::cpu {

void RegisterCpuHostEmitters(codegen::EmitterTable& table) {}

}  // namespace hloref::cpu
