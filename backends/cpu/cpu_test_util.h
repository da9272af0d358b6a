// Test helpers shared by the CPU backend's tests (header only): compile a
// module from text on a fresh CPU backend and run it; literals from and to
// raw bit patterns.
#ifndef HLOREF_BACKENDS_CPU_CPU_TEST_UTIL_H_
#define HLOREF_BACKENDS_CPU_CPU_TEST_UTIL_H_

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
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

// The files a compile dumped into `dir` (CpuBackendOptions::dump_dir) whose
// names end in `suffix`, concatenated; ".ll" means the unoptimised IR
// only (not the ".opt.ll" files).
inline std::string DumpedText(const std::string& dir,
                              absl::string_view suffix) {
  std::string text;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!absl::EndsWith(name, suffix) ||
        (suffix == ".ll" && absl::EndsWith(name, ".opt.ll"))) {
      continue;
    }
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    text += ss.str();
  }
  return text;
}

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_CPU_TEST_UTIL_H_
