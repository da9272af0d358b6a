// Test helpers shared by the CPU backend's tests (header only): compile a
// module from text on a fresh CPU backend and run it; literals from and to
// raw bit patterns.
#ifndef HLOREF_BACKENDS_CPU_CPU_TEST_UTIL_H_
#define HLOREF_BACKENDS_CPU_CPU_TEST_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "backends/cpu/cpu_backend.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/literal.h"

namespace hloref::cpu {

inline absl::StatusOr<std::vector<Literal>> CompileAndRun(
    absl::string_view text, std::vector<Literal> args,
    CpuBackendOptions options = {}) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  auto backend = CreateCpuBackend(options);
  if (!backend.ok()) return backend.status();
  auto exe = (*backend)->Compile(**module, {});
  if (!exe.ok()) return exe.status();
  return (*exe)->Run(args);
}

// The elements' bit patterns, row-major.
inline std::vector<uint64_t> Bits(const Literal& lit) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    out.push_back(lit.GetRawBits(i));
  }
  return out;
}

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_CPU_TEST_UTIL_H_
