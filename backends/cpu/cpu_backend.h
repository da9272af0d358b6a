// `--backend=cpu`: HLO -> LLVM IR (backends/codegen) -> native code
// through ORC LLJIT on the host CPU. One compiled function per module;
// ops that need more than a loop nest call the backend's own runtime
// (backends/cpu/runtime). Never calls the interpreter.
#ifndef HLOREF_BACKENDS_CPU_CPU_BACKEND_H_
#define HLOREF_BACKENDS_CPU_CPU_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"

namespace hloref::cpu {

struct CpuBackendOptions {
  // LLVM optimisation level 0..3; HLOREF_CPU_OPT overrides.
  int opt_level = 2;
  // Worker threads for parallel loop nests (0: the machine's core count);
  // HLOREF_CPU_THREADS overrides. Results do not depend on it.
  int threads = 0;
  // Write each compiled module's IR before / after optimisation and its
  // assembly here (HLOREF_CPU_DUMP overrides).
  std::string dump_dir;
  // Producer-consumer fusion of element-wise chains.
  bool fuse_elementwise = true;
  // Entry results of at least this many bytes are written with
  // non-temporal stores where the compiled loops' vector stores are
  // provably 64-byte aligned (they skip the read for ownership of each
  // line: layer norm over 4096 x 768 f32 ran 1.6x faster, docs/
  // performance.md). -1: a quarter of the last-level cache; 0: never.
  // HLOREF_CPU_STREAM_BYTES overrides.
  int64_t stream_result_min_bytes = -1;
  // Bytes of rows per block of a grouped row kernel (softmax, layer norm:
  // codegen::CodegenOptions::row_group_block_bytes). -1: from the host's
  // L1d (module_emitter.cc; HLOREF_CPU_ROW_BLOCK_BYTES overrides). The
  // results are the same bits for any value.
  int64_t row_group_block_bytes = -1;
  // Loop nests too small for threads but with at least this much work
  // (elements times fused instructions) are outlined and run on the
  // calling thread, with the vector code of a parallel nest
  // (codegen::CodegenOptions::serial_outline_min_work). -1: 1024
  // (HLOREF_CPU_SERIAL_OUTLINE overrides); 0: never.
  int64_t serial_outline_min_work = -1;
  // Reuse compiled code for modules with identical canonical text; the
  // cache keeps the most recently used `compile_cache_entries` modules.
  bool compile_cache = true;
  size_t compile_cache_entries = 256;
  // Fast mode (--cpu-fast; HLOREF_CPU_FAST=1|0 overrides): runtime kernels
  // may use hardware paths that change results, each covered by a declared
  // deviation: bf16 x bf16 dots on AVX512_BF16 vdpbf16ps, which flushes
  // subnormals (certify with --deviations=ftz=f32+bf16;
  // docs/cpu-kernels.md). Off: conformant with no declared deviation.
  bool fast = false;
};

// The options `--backend=cpu` uses: set by tools from their flags
// (--cpu-threads, --cpu-dump), then the environment variables above apply.
CpuBackendOptions& DefaultCpuBackendOptions();
CpuBackendOptions ApplyEnvironment(CpuBackendOptions options);

absl::StatusOr<std::unique_ptr<backends::Backend>> CreateCpuBackend(
    CpuBackendOptions options);

// Compile-time statistics of this process (for reports and notes).
struct CompileStats {
  int64_t modules_compiled = 0;
  int64_t cache_hits = 0;
  double total_compile_seconds = 0;
  // Wall time of every compilation (HLO -> machine code), in order.
  std::vector<double> compile_seconds;
};
CompileStats GetCompileStats();
// "N modules compiled in T s (median M ms, p99 P ms, max X ms); H cache
// hits", or "" when nothing was compiled.
std::string CompileStatsSummary();

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_CPU_BACKEND_H_
