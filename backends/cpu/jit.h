// The CPU target's LLVM side: host detection, the optimisation pipeline,
// ORC LLJIT, dumps for compiler engineers, and LLVM errors turned into
// statuses (a fatal LLVM error during compilation becomes an Internal
// status, the process survives).
#ifndef HLOREF_BACKENDS_CPU_JIT_H_
#define HLOREF_BACKENDS_CPU_JIT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace llvm {
class LLVMContext;
class Module;
namespace orc {
class LLJIT;
}  // namespace orc
}  // namespace llvm

namespace hloref::cpu {

struct JitOptions {
  // LLVM optimisation level 0..3 (HLOREF_CPU_OPT overrides the default 2).
  int opt_level = 2;
  // When non-empty: write <dump_dir>/<name>.ll (before optimisation),
  // <name>.opt.ll (after) and <name>.s (assembly).
  std::string dump_dir;
  std::string dump_name = "module";
  // When non-empty: append every function the JIT links to this file as
  // `ADDRESS SIZE NAME` lines (hex), the perf map format that `perf report`
  // reads from /tmp/perf-PID.map to name samples in JIT code. Empty here
  // and HLOREF_CPU_PERF_MAP set (not "0"): /tmp/perf-PID.map.
  std::string perf_map_path;
};

// The host's target triple, CPU name and features as LLVM spells them.
struct HostTarget {
  std::string triple;
  std::string cpu;
  std::string features;
};
const HostTarget& GetHostTarget();

// Sets the module's triple and data layout for the host, and every
// function's target-cpu / target-features / prefer-vector-width
// attributes. Floating point stays IEEE: no fast-math flags anywhere, no
// FMA contraction, denormals preserved.
absl::Status PrepareModuleForHost(llvm::Module& module);

// A compiled module: owns its JIT; lookups return function addresses.
class JitModule {
 public:
  ~JitModule();
  // Optimises, dumps (if asked), compiles and loads `module`; every
  // runtime symbol (run_context.h) and the process's symbols (libm) are
  // resolvable.
  static absl::StatusOr<std::unique_ptr<JitModule>> Compile(
      std::unique_ptr<llvm::Module> module,
      std::unique_ptr<llvm::LLVMContext> context, const JitOptions& options);
  absl::StatusOr<void*> Lookup(const std::string& name);

  // Optimises `module` in place and returns its assembly (for tests and
  // ahead-of-time compilation).
  static absl::StatusOr<std::string> OptimizeAndEmitAssembly(
      llvm::Module& module, int opt_level);
  // Optimises `module` and writes an ELF object file (ahead-of-time).
  static absl::Status OptimizeAndEmitObject(llvm::Module& module, int opt_level,
                                            const std::string& path);

 private:
  JitModule() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

// The optimisation level from HLOREF_CPU_OPT (0..3), else `fallback`.
int OptLevelFromEnvironment(int fallback);

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_JIT_H_
