#include "backends/gpu/nvptx_target.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/Internalize.h"
#include "spec/util/status_macros.h"

extern "C" {
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace hloref::gpu {

namespace {

const llvm::Target* NvptxTarget(std::string* error) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  return llvm::TargetRegistry::lookupTarget(kNvptxTriple, *error);
}

std::unique_ptr<llvm::MCSubtargetInfo> SubtargetInfo(const std::string& cpu) {
  std::string error;
  const llvm::Target* t = NvptxTarget(&error);
  if (t == nullptr) return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      t->createMCSubtargetInfo(kNvptxTriple, cpu, ""));
}

// The highest PTX ISA version (major * 10 + minor) CUDA `major.minor`'s
// ptxas accepts (facts doc 1.1: 12.0-12.5 -> 8.0-8.5, 12.6+ -> minor - 1
// up to 12.9, 13.0 -> 9.0).
int CudaMaxPtx(int major, int minor) {
  if (major >= 13) return 90;
  if (major == 12) return minor <= 5 ? 80 + minor : 80 + minor - 1;
  if (major == 11) return 70 + std::min(minor, 8);
  return 65;
}

struct DiagnosticState {
  std::vector<std::string> errors;
};

void HandleDiagnostic(const llvm::DiagnosticInfo* diagnostic, void* context) {
  const llvm::DiagnosticInfo& info = *diagnostic;
  if (info.getSeverity() != llvm::DS_Error) return;
  auto* state = static_cast<DiagnosticState*>(context);
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::DiagnosticPrinterRawOStream printer(os);
  info.print(printer);
  state->errors.push_back(os.str());
}

// Intrinsics LLVM 19's NVPTX cannot lower: "no libcall available" or an
// abort in instruction selection (facts doc 2.4, measured).
bool UnselectableIntrinsic(llvm::Intrinsic::ID id) {
  switch (id) {
    case llvm::Intrinsic::exp:
    case llvm::Intrinsic::exp2:
    case llvm::Intrinsic::exp10:
    case llvm::Intrinsic::log:
    case llvm::Intrinsic::log2:
    case llvm::Intrinsic::log10:
    case llvm::Intrinsic::sin:
    case llvm::Intrinsic::cos:
    case llvm::Intrinsic::tan:
    case llvm::Intrinsic::pow:
    case llvm::Intrinsic::powi:
      return true;
    default:
      return false;
  }
}

absl::Status LinkLibdevice(llvm::Module& module, const std::string& path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot read libdevice '", path, "': ", buffer.getError().message()));
  }
  llvm::Expected<std::unique_ptr<llvm::Module>> lib =
      llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module.getContext());
  if (!lib) {
    return absl::InternalError(
        absl::StrCat("cannot parse libdevice '", path,
                     "': ", llvm::toString(lib.takeError())));
  }
  // libdevice carries triple nvptx64-nvidia-gpulibs and a datalayout
  // without i128 (facts doc 2.4.2): take the module's.
  (*lib)->setTargetTriple(module.getTargetTriple());
  (*lib)->setDataLayout(module.getDataLayout());
  const bool failed = llvm::Linker::linkModules(
      module, std::move(*lib), llvm::Linker::LinkOnlyNeeded,
      [](llvm::Module& m, const llvm::StringSet<>& from_lib) {
        llvm::internalizeModule(m, [&from_lib](const llvm::GlobalValue& gv) {
          return !gv.hasName() || !from_lib.contains(gv.getName());
        });
      });
  if (failed) {
    return absl::InternalError(
        absl::StrCat("linking libdevice '", path, "' failed"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(
    const std::string& arch, int opt_level) {
  HLOREF_RETURN_IF_ERROR(CheckArch(arch));
  std::string error;
  const llvm::Target* t = NvptxTarget(&error);
  if (t == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("LLVM has no NVPTX target: ", error));
  }
  llvm::TargetOptions options;
  // No FMA contraction beyond explicit llvm.fma / llvm.fmuladd.
  options.AllowFPOpFusion = llvm::FPOpFusion::Standard;
  llvm::CodeGenOptLevel level = opt_level <= 0   ? llvm::CodeGenOptLevel::None
                                : opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                : opt_level == 2
                                    ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(
      t->createTargetMachine(kNvptxTriple, arch, PtxVersionFeature(), options,
                             std::nullopt, std::nullopt, level));
  if (!tm) {
    return absl::InternalError(
        absl::StrCat("cannot create the NVPTX TargetMachine for ", arch));
  }
  return tm;
}

}  // namespace

absl::Status CheckArch(const std::string& arch) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti = SubtargetInfo("sm_90");
  if (sti == nullptr) {
    return absl::FailedPreconditionError("LLVM has no NVPTX target");
  }
  std::vector<std::string> known;
  for (const llvm::SubtargetSubTypeKV& cpu :
       sti->getAllProcessorDescriptions()) {
    if (arch == cpu.Key) {
      // CUDA 13's ptxas dropped everything below sm_75 (facts doc 2.2).
      int number = 0;
      std::string digits = arch.substr(3);
      if (!digits.empty() && digits.back() == 'a') digits.pop_back();
      if (absl::SimpleAtoi(digits, &number) && number < 75) {
        return absl::InvalidArgumentError(
            absl::StrCat("--gpu-arch=", arch,
                         ": CUDA 13's ptxas accepts sm_75 and newer only"));
      }
      return absl::OkStatus();
    }
    if (absl::StartsWith(cpu.Key, "sm_")) known.push_back(cpu.Key);
  }
  return absl::InvalidArgumentError(absl::StrCat("--gpu-arch=", arch,
                                                 ": LLVM's NVPTX target knows ",
                                                 absl::StrJoin(known, ", ")));
}

std::string PtxVersionFeature() {
  static const std::string feature = [] {
    int best = 0;
    if (std::unique_ptr<llvm::MCSubtargetInfo> sti = SubtargetInfo("sm_90")) {
      for (const llvm::SubtargetFeatureKV& f : sti->getAllProcessorFeatures()) {
        int v = 0;
        llvm::StringRef key(f.Key);
        if (key.starts_with("ptx") &&
            absl::SimpleAtoi(key.substr(3).str(), &v)) {
          best = std::max(best, v);
        }
      }
    }
#if defined(HLOREF_CUDA_VERSION_MAJOR) && defined(HLOREF_CUDA_VERSION_MINOR)
    best = std::min(
        best, CudaMaxPtx(HLOREF_CUDA_VERSION_MAJOR, HLOREF_CUDA_VERSION_MINOR));
#else
    (void)&CudaMaxPtx;
#endif
    return best > 0 ? absl::StrCat("+ptx", best) : std::string();
  }();
  return feature;
}

std::string DefaultLibdevicePath() {
#ifdef HLOREF_CUDA_ROOT
  return absl::StrCat(HLOREF_CUDA_ROOT, "/nvvm/libdevice/libdevice.10.bc");
#else
  return "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
#endif
}

absl::Status PrepareModuleForNvptx(llvm::Module& module,
                                   const std::string& arch) {
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm,
                          CreateTargetMachine(arch, 3));
  module.setTargetTriple(kNvptxTriple);
  module.setDataLayout(tm->createDataLayout());
  return absl::OkStatus();
}

absl::StatusOr<PtxResult> EmitPtx(llvm::Module& module,
                                  const PtxOptions& options) {
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm,
                          CreateTargetMachine(options.arch, options.opt_level));
  llvm::LLVMContext& context = module.getContext();
  DiagnosticState diagnostics;
  context.setDiagnosticHandlerCallBack(&HandleDiagnostic, &diagnostics);
  auto diagnostic_status = [&](absl::string_view stage) -> absl::Status {
    if (diagnostics.errors.empty()) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(
        "LLVM NVPTX ", stage, ": ", absl::StrJoin(diagnostics.errors, "; ")));
  };
  PtxResult result;
  for (const llvm::Function& f : module) {
    if (f.isIntrinsic() && UnselectableIntrinsic(f.getIntrinsicID()) &&
        !f.use_empty()) {
      return absl::UnimplementedError(absl::StrCat(
          "the GPU backend cannot lower ", f.getName().str(),
          " (LLVM 19's NVPTX has no instruction selection for it)"));
    }
  }
  bool needs_libdevice = false;
  for (const llvm::Function& f : module) {
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) {
      needs_libdevice = true;
    }
  }
  if (needs_libdevice) {
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                         uint32_t{0});
    HLOREF_RETURN_IF_ERROR(LinkLibdevice(module, options.libdevice_path.empty()
                                                     ? DefaultLibdevicePath()
                                                     : options.libdevice_path));
    result.linked_libdevice = true;
  }
  {
    std::string s;
    llvm::raw_string_ostream os(s);
    if (llvm::verifyModule(module, &os)) {
      return absl::InternalError(
          absl::StrCat("generated NVPTX LLVM IR is invalid: ", os.str()));
    }
  }
  if (options.opt_level > 0) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions tuning;
    llvm::PassBuilder pb(tm.get(), tuning);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel level =
        options.opt_level == 1   ? llvm::OptimizationLevel::O1
        : options.opt_level == 2 ? llvm::OptimizationLevel::O2
                                 : llvm::OptimizationLevel::O3;
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
    mpm.run(module, mam);
  }
  HLOREF_RETURN_IF_ERROR(diagnostic_status("optimisation"));
  {
    llvm::raw_string_ostream os(result.optimized_ir);
    module.print(os, nullptr);
  }
  llvm::SmallString<0> ptx;
  {
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager pm;
    pm.add(new llvm::TargetLibraryInfoWrapperPass(
        llvm::Triple(module.getTargetTriple())));
    if (tm->addPassesToEmitFile(pm, os, nullptr,
                                llvm::CodeGenFileType::AssemblyFile)) {
      return absl::InternalError("the NVPTX target cannot emit assembly");
    }
    pm.run(module);
  }
  HLOREF_RETURN_IF_ERROR(diagnostic_status("code generation"));
  result.ptx = std::string(ptx.str());
  return result;
}

}  // namespace hloref::gpu
