// (to be written) the math runtime of the CPU backend.
#include "backends/cpu/runtime/runtime_symbols.h"

namespace hloref::cpu {

void AddMathRuntimeSymbols(RuntimeSymbolList& list) {}

}  // namespace hloref::cpu
