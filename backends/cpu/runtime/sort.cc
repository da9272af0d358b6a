// (to be written) the sort runtime of the CPU backend.
#include "backends/cpu/runtime/runtime_symbols.h"

namespace hloref::cpu {

void AddSortRuntimeSymbols(RuntimeSymbolList& list) {}

}  // namespace hloref::cpu
