// The NVPTX target of the GPU backend: LLVM module -> PTX text through
// LLVM 19's NVPTX TargetMachine (docs/gpu-backend.md "Pipeline").
//
//   * triple nvptx64-nvidia-cuda, the datalayout of the TargetMachine;
//   * the CPU is the --gpu-arch value (sm_90 default, sm_90a, sm_89, ...),
//     refused when LLVM's NVPTX does not know it;
//   * the PTX ISA version is the highest `ptxNN` feature LLVM's NVPTX
//     offers, capped by the PTX the installed CUDA accepts (nvJitLink's
//     version, facts doc 1.1 table); LLVM 19 + CUDA 13 give +ptx85;
//   * libdevice is linked (LinkOnlyNeeded, then internalised) only when
//     the module declares `__nv_*` functions;
//   * O3 (PassBuilder with the TargetMachine, so NVVMReflect runs), then
//     the legacy codegen pipeline into a string;
//   * IEEE division and sqrt and no FMA contraction are LLVM 19's NVPTX
//     defaults and are kept (no fast-math flags, AllowFPOpFusion=Standard
//     only fuses explicit llvm.fmuladd, which no emitter produces);
//   * LLVM diagnostics of severity error become statuses. Intrinsics that
//     LLVM 19's NVPTX cannot select (llvm.exp/log/sin/cos/pow/tanh...,
//     which abort the process with "Cannot select") are found before code
//     generation and reported as Unimplemented.
#ifndef HLOREF_BACKENDS_GPU_NVPTX_TARGET_H_
#define HLOREF_BACKENDS_GPU_NVPTX_TARGET_H_

#include <string>

#include "absl/status/statusor.h"

namespace llvm {
class Module;
}  // namespace llvm

namespace hloref::gpu {

inline constexpr char kNvptxTriple[] = "nvptx64-nvidia-cuda";

struct PtxOptions {
  std::string arch = "sm_90";
  int opt_level = 3;
  // libdevice.10.bc; empty: <cuda root>/nvvm/libdevice/libdevice.10.bc of
  // the CUDA found at build time (HLOREF_CUDA_ROOT) or /usr/local/cuda.
  std::string libdevice_path;
};

// "sm_90" / "sm_90a" / "sm_80" ... when LLVM's NVPTX target knows it,
// otherwise InvalidArgument listing the known ones.
absl::Status CheckArch(const std::string& arch);

// The PTX feature ("+ptx85") used for every module.
std::string PtxVersionFeature();

// The libdevice path PtxOptions defaults to.
std::string DefaultLibdevicePath();

// Sets the triple and datalayout of the NVPTX TargetMachine for `arch`
// (call before emitting code that depends on the datalayout).
absl::Status PrepareModuleForNvptx(llvm::Module& module,
                                   const std::string& arch);

struct PtxResult {
  std::string optimized_ir;
  std::string ptx;
  bool linked_libdevice = false;
};

// Links libdevice if needed, optimises and emits PTX. The module must
// have been prepared with PrepareModuleForNvptx.
absl::StatusOr<PtxResult> EmitPtx(llvm::Module& module,
                                  const PtxOptions& options);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_NVPTX_TARGET_H_
