// (to be written) the rng runtime of the CPU backend.
#include "backends/cpu/runtime/runtime_symbols.h"

namespace hloref::cpu {

void AddRngRuntimeSymbols(RuntimeSymbolList& list) {}

}  // namespace hloref::cpu
