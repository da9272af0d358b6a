// (to be written) the CPU emitters of the custom call ops.
#include "backends/cpu/cpu_emitters.h"

namespace hloref::cpu {

void RegisterCpuCustomCallEmitters(codegen::EmitterTable& table) {}

}  // namespace hloref::cpu
