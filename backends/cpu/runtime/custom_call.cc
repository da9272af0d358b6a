// (to be written) the custom call runtime of the CPU backend.
#include "backends/cpu/runtime/runtime_symbols.h"

namespace hloref::cpu {

void AddCustomCallRuntimeSymbols(RuntimeSymbolList& list) {}

}  // namespace hloref::cpu
