// (to be written) the linalg runtime of the CPU backend.
#include "backends/cpu/runtime/runtime_symbols.h"

namespace hloref::cpu {

void AddLinalgRuntimeSymbols(RuntimeSymbolList& list) {}

}  // namespace hloref::cpu
