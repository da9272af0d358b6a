// HLO module -> one LLVM module for the host CPU: the emitter table of
// the CPU target, its runtime hooks (heap scratch, parallel loops), and an
// exported entry function with the computation ABI
//   void ENTRY(RunContext* ctx, void** params, void** results)
// (one pointer per array leaf of the parameters / the root, in physical
// layout order). Shared by the JIT (cpu_backend.cc) and ahead-of-time
// compilation (aot.cc).
#ifndef HLOREF_BACKENDS_CPU_MODULE_EMITTER_H_
#define HLOREF_BACKENDS_CPU_MODULE_EMITTER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "spec/ir/hlo_module.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace hloref::cpu {

struct EmittedModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
};

// The deepest nesting of computations (calls, loop bodies, branches,
// fusions, reducers inside one another) the CPU backend compiles; deeper
// modules are Unimplemented (its emitter recurses once per level).
inline constexpr int64_t kMaxComputationNesting = 1000;

// The most elements one value (an array, or a tuple's leaf) may have in a
// module the CPU backend compiles (2^32, the limit its code and runtime
// were written and tested for); larger ones are Unimplemented.
inline constexpr int64_t kMaxElementsPerValue = int64_t{1} << 32;

struct ModuleEmitOptions {
  std::string entry_name = "hloref_entry";
  bool fuse_elementwise = true;
  // codegen::CodegenOptions::stream_result_min_bytes (0: never; the
  // caller's result buffers must be 64-byte aligned otherwise).
  int64_t stream_result_min_bytes = 0;
  // codegen::CodegenOptions::row_group_block_bytes; -1: HostRowBlockBytes().
  int64_t row_group_block_bytes = -1;
  // codegen::CodegenOptions::serial_outline_min_work; -1:
  // SerialOutlineMinWork().
  int64_t serial_outline_min_work = -1;
};

// The work (elements times fused instructions) from which a loop nest too
// small for threads is still outlined and run on the calling thread
// (codegen::CodegenOptions::serial_outline_min_work): 1024, or
// HLOREF_CPU_SERIAL_OUTLINE (0: never; tuning and A/B runs).
int64_t SerialOutlineMinWork();

// A third of the host's L1d, between 4 and 64 KiB (HLOREF_CPU_ROW_BLOCK_BYTES
// overrides): the rows of a grouped row kernel's block stay in L1 between
// its passes.
int64_t HostRowBlockBytes();

absl::StatusOr<EmittedModule> EmitModuleForCpu(
    const HloModule& module, const ModuleEmitOptions& options);

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_MODULE_EMITTER_H_
