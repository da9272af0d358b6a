// The CPU backend's differential fuzz entry (docs/fuzzing.md): the generated
// case the input chooses, run by the CPU backend (backends/cpu, LLVM 19 ORC
// JIT) and judged against the oracle. Shared by the libFuzzer target
// conformance/fuzz/cpu_differential_fuzz.cc and the regression test
// conformance/fuzz/fuzz_regression_test.cc.
#ifndef HLOREF_CONFORMANCE_FUZZ_CPU_DIFFERENTIAL_FUZZ_ENTRY_H_
#define HLOREF_CONFORMANCE_FUZZ_CPU_DIFFERENTIAL_FUZZ_ENTRY_H_

#include "absl/strings/string_view.h"
#include "spec/fuzz/fuzz_entries.h"

namespace hloref {

// As FuzzDifferentialCase (conformance_fuzz_entries.h: bytes 0-1 the op,
// bytes 2-9 the seed), with the CPU backend (default options: -O2, fusion,
// two worker threads, the compile cache on) in place of the interpreter
// backend. A fail or known-failure verdict is a finding.
FuzzOutcome FuzzCpuDifferentialCase(absl::string_view bytes);

}  // namespace hloref

#endif  // HLOREF_CONFORMANCE_FUZZ_CPU_DIFFERENTIAL_FUZZ_ENTRY_H_
