// Each runtime file of backends/cpu/runtime adds the addresses of the
// extern "C" functions it offers generated code (run_context.cc collects
// them all for the JIT).
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_RUNTIME_SYMBOLS_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_RUNTIME_SYMBOLS_H_

#include "backends/cpu/runtime/run_context.h"

namespace hloref::cpu {

void AddSortRuntimeSymbols(RuntimeSymbolList& list);        // sort.cc
void AddFftRuntimeSymbols(RuntimeSymbolList& list);         // fft.cc
void AddLinalgRuntimeSymbols(RuntimeSymbolList& list);      // linalg.cc
void AddRngRuntimeSymbols(RuntimeSymbolList& list);         // rng.cc
void AddCollectiveRuntimeSymbols(RuntimeSymbolList& list);  // collectives.cc
void AddHostRuntimeSymbols(RuntimeSymbolList& list);        // host.cc
void AddCustomCallRuntimeSymbols(RuntimeSymbolList& list);  // custom_call.cc
void AddMathRuntimeSymbols(RuntimeSymbolList& list);        // math.cc

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_RUNTIME_SYMBOLS_H_
