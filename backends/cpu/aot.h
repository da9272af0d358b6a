// Ahead-of-time compilation (seed 000's tfcompile model): a module
// compiled into an object file with a plain C entry point, and a C header
// declaring it. The object holds the same code the JIT runs; it calls the
// backend's runtime (link the program with the hloref_cpu_runtime
// library).
//
// The entry point, for a module with parameters p0..pn-1 and a root with
// array leaves r0..rm-1 (tuple roots flattened depth first; tokens
// omitted):
//   int NAME(const T0* p0, ..., T* r0, ...);
// Every pointer is one array buffer in the physical order of its shape's
// layout, each element stored as hloref's Literals store it (sub-byte and
// 8-bit types one byte each, f16/bf16 as uint16_t bits, c64 as float
// pairs). Tuple-shaped parameters take one pointer per array leaf. Returns
// 0 on success, otherwise non-zero with hloref_aot_last_error() saying why.
#ifndef HLOREF_BACKENDS_CPU_AOT_H_
#define HLOREF_BACKENDS_CPU_AOT_H_

#include <string>

#include "absl/status/status.h"
#include "spec/ir/hlo_module.h"

namespace hloref::cpu {

struct AotOptions {
  std::string function_name;  // a C identifier
  std::string object_path;    // NAME.o
  std::string header_path;    // NAME.h (empty: no header)
  int opt_level = 2;
};

// Compiles a verified module; InvalidArgument for a bad function name,
// Unimplemented for what the CPU backend does not compile.
absl::Status CompileAheadOfTime(const HloModule& module,
                                const AotOptions& options);

// The header text for `module` (also written by CompileAheadOfTime).
std::string AotHeader(const HloModule& module, const std::string& function);

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_AOT_H_
