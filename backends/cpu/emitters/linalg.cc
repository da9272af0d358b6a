// (to be written) the CPU emitters of the linalg ops.
#include "backends/cpu/cpu_emitters.h"

namespace hloref::cpu {

void RegisterCpuLinalgEmitters(codegen::EmitterTable& table) {}

}  // namespace hloref::cpu
