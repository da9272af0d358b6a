// (to be written) the host runtime of the CPU backend.
#include "backends/cpu/runtime/runtime_symbols.h"

namespace hloref::cpu {

void AddHostRuntimeSymbols(RuntimeSymbolList& list) {}

}  // namespace hloref::cpu
