// (to be written) the fft runtime of the CPU backend.
#include "backends/cpu/runtime/runtime_symbols.h"

namespace hloref::cpu {

void AddFftRuntimeSymbols(RuntimeSymbolList& list) {}

}  // namespace hloref::cpu
