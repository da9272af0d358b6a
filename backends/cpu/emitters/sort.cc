// (to be written) the CPU emitters of the sort ops.
#include "backends/cpu/cpu_emitters.h"

namespace hloref::cpu {

void RegisterCpuSortEmitters(codegen::EmitterTable& table) {}

}  // namespace hloref::cpu
