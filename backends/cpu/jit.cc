#include "backends/cpu/jit.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/codegen/emit_context.h"
#include "backends/cpu/invariant_divide.h"
#include "backends/cpu/runtime/run_context.h"
#include "backends/cpu/scalef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "spec/util/status_macros.h"

namespace hloref::cpu {

namespace {

// Appends every function the JIT links to a perf map (JitOptions::
// perf_map_path); internal functions (the outlined loop nests) included.
class PerfMapPlugin : public llvm::orc::ObjectLinkingLayer::Plugin {
 public:
  explicit PerfMapPlugin(std::string path) : path_(std::move(path)) {}

  // The function symbols of the object, read before the link: the linked
  // graph keeps no names for internal functions, but the object's symbol
  // table has them, as section offsets.
  void notifyMaterializing(llvm::orc::MaterializationResponsibility&,
                           llvm::jitlink::LinkGraph& graph,
                           llvm::jitlink::JITLinkContext&,
                           llvm::MemoryBufferRef object) override {
    auto file = llvm::object::ObjectFile::createObjectFile(object);
    if (!file) {
      llvm::consumeError(file.takeError());
      return;
    }
    std::vector<Function> functions;
    for (const llvm::object::SymbolRef& sym : (*file)->symbols()) {
      auto type = sym.getType();
      auto name = sym.getName();
      auto section = sym.getSection();
      auto value = sym.getValue();
      if (!type || !name || !section || !value) {
        if (!type) llvm::consumeError(type.takeError());
        if (!name) llvm::consumeError(name.takeError());
        if (!section) llvm::consumeError(section.takeError());
        if (!value) llvm::consumeError(value.takeError());
        continue;
      }
      if (*type != llvm::object::SymbolRef::ST_Function ||
          *section == (*file)->section_end()) {
        continue;
      }
      auto section_name = (*section)->getName();
      if (!section_name) {
        llvm::consumeError(section_name.takeError());
        continue;
      }
      functions.push_back({name->str(), section_name->str(), *value,
                           llvm::object::ELFSymbolRef(sym).getSize()});
    }
    std::lock_guard<std::mutex> lock(mu_);
    pending_[&graph] = std::move(functions);
  }

  // After the fix-ups every block has its final address: a function is at
  // its section's (single) block plus its offset.
  // (GCC 12 reports the small-buffer storage of the llvm::unique_function
  // built from the lambda as maybe uninitialized: a false positive; clang
  // has no such warning and refuses its name under -Werror.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
  void modifyPassConfig(llvm::orc::MaterializationResponsibility&,
                        llvm::jitlink::LinkGraph&,
                        llvm::jitlink::PassConfiguration& config) override {
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph& graph) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = pending_.find(&graph);
      if (it == pending_.end()) return llvm::Error::success();
      std::ofstream out(path_, std::ios::app);
      for (const Function& f : it->second) {
        llvm::jitlink::Section* section = graph.findSectionByName(f.section);
        if (section == nullptr || section->blocks_size() != 1) continue;
        const uint64_t base =
            (*section->blocks().begin())->getAddress().getValue();
        out << std::hex << base + f.offset << " " << f.size << std::dec << " "
            << f.name << "\n";
      }
      pending_.erase(it);
      return llvm::Error::success();
    });
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility&) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib&,
                                      llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey,
                                   llvm::orc::ResourceKey) override {}

 private:
  struct Function {
    std::string name;
    std::string section;
    uint64_t offset;
    uint64_t size;
  };
  const std::string path_;
  std::mutex mu_;
  std::map<const llvm::jitlink::LinkGraph*, std::vector<Function>> pending_;
};

std::string PerfMapPath(const JitOptions& options) {
  if (!options.perf_map_path.empty()) return options.perf_map_path;
  const char* env = std::getenv("HLOREF_CPU_PERF_MAP");
  if (env == nullptr || env[0] == '\0' || std::string(env) == "0") return "";
  return absl::StrCat("/tmp/perf-", getpid(), ".map");
}

// The message of the last fatal LLVM error on this thread.
thread_local std::string fatal_message;

void FatalErrorHandler(void*, const char* reason, bool) {
  fatal_message = reason ? reason : "unknown LLVM fatal error";
}

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    llvm::install_fatal_error_handler(&FatalErrorHandler, nullptr);
    // Fatal errors inside RunSafely unwind to it instead of exiting.
    llvm::CrashRecoveryContext::Enable();
  });
}

// Runs `fn` so that an LLVM fatal error (or crash) inside it becomes an
// Internal status instead of ending the process.
absl::Status RunLlvmSafely(absl::string_view what,
                           const std::function<absl::Status()>& fn) {
  absl::Status status;
  llvm::CrashRecoveryContext crc;
  fatal_message.clear();
  bool ok = crc.RunSafely([&] { status = fn(); });
  if (!ok) {
    return absl::InternalError(
        absl::StrCat("LLVM failed during ", what, ": ",
                     fatal_message.empty() ? "crash in LLVM" : fatal_message));
  }
  return status;
}

std::string ErrorToString(llvm::Error error) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << error;
  return os.str();
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateHostTargetMachine(
    int opt_level) {
  const HostTarget& host = GetHostTarget();
  std::string error;
  const llvm::Target* target =
      llvm::TargetRegistry::lookupTarget(host.triple, error);
  if (target == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("no LLVM target for ", host.triple, ": ", error));
  }
  llvm::TargetOptions options;  // IEEE: no unsafe/fast math, no contraction
  options.AllowFPOpFusion = llvm::FPOpFusion::Strict;
  llvm::CodeGenOptLevel level = opt_level <= 0   ? llvm::CodeGenOptLevel::None
                                : opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                : opt_level == 2
                                    ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(host.triple, host.cpu, host.features, options,
                                  llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm) return absl::InternalError("cannot create the host TargetMachine");
  return tm;
}

// Streaming stores (codegen::CodegenOptions::stream_result_min_bytes):
// after the vectoriser, every plain vector store of at least 16 bytes whose
// address is based on a pointer loaded with kStreamMetadata, and is
// provably aligned to its size (the load's !align 64 and the offsets'
// known bits: rows whose length is not a multiple of the vector stay
// ordinary), becomes non-temporal; a function that has one ends each
// return with an sfence, so that the stores are globally visible before
// the thread pool (or the caller) sees the function finish: they are
// weakly ordered, and the release that ends a parallel chunk does not
// order them. Returns how many stores were marked.
int64_t MarkStreamingStores(llvm::Module& module) {
  const llvm::Triple triple(module.getTargetTriple());
  if (!triple.isX86()) return 0;
  llvm::LLVMContext& c = module.getContext();
  const unsigned kind = c.getMDKindID(codegen::kStreamMetadata);
  const llvm::DataLayout& dl = module.getDataLayout();
  llvm::MDNode* nontemporal =
      llvm::MDNode::get(c, llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                               llvm::Type::getInt32Ty(c), 1)));
  int64_t marked = 0;
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    std::vector<llvm::ReturnInst*> returns;
    bool any = false;
    for (llvm::BasicBlock& bb : f) {
      for (llvm::Instruction& inst : bb) {
        if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(&inst)) {
          returns.push_back(ret);
          continue;
        }
        auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
        if (store == nullptr || !store->isSimple()) continue;
        llvm::Type* t = store->getValueOperand()->getType();
        if (!t->isVectorTy()) continue;
        const uint64_t bytes = dl.getTypeStoreSize(t).getFixedValue();
        if (bytes < 16 || !llvm::isPowerOf2_64(bytes)) continue;
        const auto* base = llvm::dyn_cast<llvm::LoadInst>(
            llvm::getUnderlyingObject(store->getPointerOperand(), 32));
        if (base == nullptr || base->getMetadata(kind) == nullptr) continue;
        if (llvm::getKnownAlignment(store->getPointerOperand(), dl) <
            llvm::Align(bytes)) {
          continue;
        }
        store->setAlignment(llvm::Align(bytes));
        store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
        any = true;
        ++marked;
      }
    }
    if (!any) continue;
    llvm::Function* sfence = llvm::Intrinsic::getDeclaration(
        &module, llvm::Intrinsic::x86_sse_sfence);
    for (llvm::ReturnInst* ret : returns) {
      llvm::CallInst::Create(sfence, {}, "", ret->getIterator());
    }
  }
  return marked;
}

// Row-group prefetch (codegen::CodegenOptions::group_prefetch): after
// the vectoriser, every vector load of at least 32 bytes whose address is
// based on a pointer loaded with kPrefetchMetadata (a parameter that a
// later member of a row group reads at its own rows) is followed by a
// prefetch of the same offset one block of rows ahead, into L2
// (prefetcht1): the next block's rows arrive while this block computes.
// A prefetch past the buffer's end does not fault. HLOREF_CPU_GROUP_
// PREFETCH: "0" turns it off, "1".."3" set the locality (default 2).
// Returns how many prefetches were inserted.
int64_t InsertGroupPrefetches(llvm::Module& module) {
  const llvm::Triple triple(module.getTargetTriple());
  if (!triple.isX86()) return 0;
  int locality = 2;
  if (const char* env = std::getenv("HLOREF_CPU_GROUP_PREFETCH")) {
    const std::string v = env;
    if (v == "0") return 0;
    if (v == "1" || v == "2" || v == "3") locality = v[0] - '0';
  }
  llvm::LLVMContext& c = module.getContext();
  const unsigned kind = c.getMDKindID(codegen::kPrefetchMetadata);
  const llvm::DataLayout& dl = module.getDataLayout();
  int64_t inserted = 0;
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    std::vector<std::pair<llvm::LoadInst*, int64_t>> loads;
    for (llvm::BasicBlock& bb : f) {
      for (llvm::Instruction& inst : bb) {
        auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst);
        if (load == nullptr || !load->getType()->isVectorTy() ||
            dl.getTypeStoreSize(load->getType()).getFixedValue() < 32) {
          continue;
        }
        const auto* base = llvm::dyn_cast<llvm::LoadInst>(
            llvm::getUnderlyingObject(load->getPointerOperand(), 32));
        if (base == nullptr) continue;
        const llvm::MDNode* md = base->getMetadata(kind);
        if (md == nullptr || md->getNumOperands() != 1) continue;
        const auto* ahead =
            llvm::mdconst::dyn_extract<llvm::ConstantInt>(md->getOperand(0));
        if (ahead == nullptr || ahead->getSExtValue() <= 0) continue;
        loads.push_back({load, ahead->getSExtValue()});
      }
    }
    for (const auto& [load, ahead] : loads) {
      llvm::IRBuilder<> b(load->getNextNode());
      llvm::Value* p = b.CreateGEP(b.getInt8Ty(), load->getPointerOperand(),
                                   b.getInt64(ahead));
      b.CreateIntrinsic(
          llvm::Intrinsic::prefetch, {p->getType()},
          {p, b.getInt32(0), b.getInt32(locality), b.getInt32(1)});
      ++inserted;
    }
  }
  return inserted;
}

absl::Status Optimize(llvm::Module& module, llvm::TargetMachine& tm,
                      int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.SLPVectorization = opt_level >= 2;
  tuning.LoopVectorization = opt_level >= 2;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = opt_level <= 0   ? llvm::OptimizationLevel::O0
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                  : opt_level == 2
                                      ? llvm::OptimizationLevel::O2
                                      : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = opt_level <= 0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
  if (opt_level >= 2 && UseInvariantDivideRewrite()) {
    RewriteInvariantDivides(module);
  }
  LowerScalefCalls(module);
  MarkStreamingStores(module);
  if (opt_level >= 2) InsertGroupPrefetches(module);
  return absl::OkStatus();
}

absl::Status Verify(llvm::Module& module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (llvm::verifyModule(module, &os)) {
    return absl::InternalError(
        absl::StrCat("generated LLVM IR is invalid: ", os.str()));
  }
  return absl::OkStatus();
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

std::string ModuleText(const llvm::Module& module) {
  std::string s;
  llvm::raw_string_ostream os(s);
  module.print(os, nullptr);
  return os.str();
}

absl::StatusOr<std::string> EmitCode(llvm::Module& module,
                                     llvm::TargetMachine& tm,
                                     llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type)) {
    return absl::InternalError("the target cannot emit this file type");
  }
  pm.run(module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace

const HostTarget& GetHostTarget() {
  static const HostTarget* host = [] {
    InitializeLlvmOnce();
    auto* h = new HostTarget;
    h->triple = llvm::sys::getProcessTriple();
    h->cpu = llvm::sys::getHostCPUName().str();
    std::vector<std::string> features;
    for (const auto& f : llvm::sys::getHostCPUFeatures()) {
      features.push_back(absl::StrCat(f.second ? "+" : "-", f.first().str()));
    }
    std::sort(features.begin(), features.end());
    h->features = absl::StrJoin(features, ",");
    return h;
  }();
  return *host;
}

absl::Status PrepareModuleForHost(llvm::Module& module) {
  InitializeLlvmOnce();
  const HostTarget& host = GetHostTarget();
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm,
                          CreateHostTargetMachine(2));
  module.setTargetTriple(host.triple);
  module.setDataLayout(tm->createDataLayout());
  const bool avx512 = host.features.find("+avx512f") != std::string::npos;
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", host.cpu);
    f.addFnAttr("target-features", host.features);
    if (avx512) f.addFnAttr("prefer-vector-width", "512");
  }
  return absl::OkStatus();
}

int OptLevelFromEnvironment(int fallback) {
  const char* v = std::getenv("HLOREF_CPU_OPT");
  if (v == nullptr || v[0] < '0' || v[0] > '3' || v[1] != '\0') return fallback;
  return v[0] - '0';
}

JitModule::~JitModule() = default;

absl::StatusOr<std::unique_ptr<JitModule>> JitModule::Compile(
    std::unique_ptr<llvm::Module> module,
    std::unique_ptr<llvm::LLVMContext> context, const JitOptions& options) {
  InitializeLlvmOnce();
  HLOREF_RETURN_IF_ERROR(PrepareModuleForHost(*module));
  HLOREF_RETURN_IF_ERROR(Verify(*module));
  const bool dump = !options.dump_dir.empty();
  const std::string base =
      dump ? absl::StrCat(options.dump_dir, "/", options.dump_name) : "";
  if (dump) {
    std::error_code ec;
    std::filesystem::create_directories(options.dump_dir, ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot create the dump directory '", options.dump_dir,
                       "': ", ec.message()));
    }
  }
  if (dump)
    HLOREF_RETURN_IF_ERROR(WriteFile(base + ".ll", ModuleText(*module)));
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm,
                          CreateHostTargetMachine(options.opt_level));
  HLOREF_RETURN_IF_ERROR(RunLlvmSafely("optimisation", [&] {
    return Optimize(*module, *tm, options.opt_level);
  }));
  if (dump) {
    HLOREF_RETURN_IF_ERROR(WriteFile(base + ".opt.ll", ModuleText(*module)));
    std::unique_ptr<llvm::Module> clone = llvm::CloneModule(*module);
    absl::StatusOr<std::string> asm_text;
    HLOREF_RETURN_IF_ERROR(RunLlvmSafely("assembly dump", [&] {
      asm_text = EmitCode(*clone, *tm, llvm::CodeGenFileType::AssemblyFile);
      return asm_text.status();
    }));
    HLOREF_RETURN_IF_ERROR(WriteFile(base + ".s", *asm_text));
  }

  std::unique_ptr<JitModule> result(new JitModule);
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    return absl::InternalError(ErrorToString(jtmb.takeError()));
  }
  const HostTarget& host = GetHostTarget();
  jtmb->setCPU(host.cpu);
  jtmb->setCodeGenOptLevel(tm->getOptLevel());
  jtmb->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict;
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(*jtmb))
                 .create();
  if (!jit) return absl::InternalError(ErrorToString(jit.takeError()));
  result->jit_ = std::move(*jit);
  llvm::orc::LLJIT& j = *result->jit_;
  if (std::string path = PerfMapPath(options); !path.empty()) {
    auto* linking =
        llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&j.getObjLinkingLayer());
    if (linking == nullptr) {
      return absl::FailedPreconditionError(
          "a perf map was asked for (HLOREF_CPU_PERF_MAP or "
          "JitOptions::perf_map_path), but this JIT does not link with "
          "JITLink");
    }
    linking->addPlugin(std::make_unique<PerfMapPlugin>(std::move(path)));
  }
  auto generator =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          j.getDataLayout().getGlobalPrefix());
  if (!generator)
    return absl::InternalError(ErrorToString(generator.takeError()));
  j.getMainJITDylib().addGenerator(std::move(*generator));
  llvm::orc::SymbolMap symbols;
  for (const RuntimeSymbol& s : AllRuntimeSymbols()) {
    symbols[j.mangleAndIntern(s.name)] = {
        llvm::orc::ExecutorAddr::fromPtr(s.address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  }
  if (llvm::Error e = j.getMainJITDylib().define(
          llvm::orc::absoluteSymbols(std::move(symbols)))) {
    return absl::InternalError(ErrorToString(std::move(e)));
  }
  if (llvm::Error e = j.addIRModule(
          llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
    return absl::InternalError(ErrorToString(std::move(e)));
  }
  return result;
}

absl::StatusOr<void*> JitModule::Lookup(const std::string& name) {
  absl::StatusOr<void*> address;
  HLOREF_RETURN_IF_ERROR(RunLlvmSafely("code generation", [&] {
    auto sym = jit_->lookup(name);
    if (!sym) {
      address = absl::InternalError(absl::StrCat(
          "JIT lookup of ", name, " failed: ", ErrorToString(sym.takeError())));
    } else {
      address = sym->toPtr<void*>();
    }
    return absl::OkStatus();
  }));
  return address;
}

absl::StatusOr<std::string> JitModule::OptimizeAndEmitAssembly(
    llvm::Module& module, int opt_level) {
  InitializeLlvmOnce();
  HLOREF_RETURN_IF_ERROR(PrepareModuleForHost(module));
  HLOREF_RETURN_IF_ERROR(Verify(module));
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm,
                          CreateHostTargetMachine(opt_level));
  absl::StatusOr<std::string> text;
  HLOREF_RETURN_IF_ERROR(RunLlvmSafely("assembly emission", [&] {
    HLOREF_RETURN_IF_ERROR(Optimize(module, *tm, opt_level));
    text = EmitCode(module, *tm, llvm::CodeGenFileType::AssemblyFile);
    return absl::OkStatus();
  }));
  return text;
}

absl::Status JitModule::OptimizeAndEmitObject(llvm::Module& module,
                                              int opt_level,
                                              const std::string& path) {
  InitializeLlvmOnce();
  HLOREF_RETURN_IF_ERROR(PrepareModuleForHost(module));
  HLOREF_RETURN_IF_ERROR(Verify(module));
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm,
                          CreateHostTargetMachine(opt_level));
  absl::StatusOr<std::string> object;
  HLOREF_RETURN_IF_ERROR(RunLlvmSafely("object emission", [&] {
    HLOREF_RETURN_IF_ERROR(Optimize(module, *tm, opt_level));
    object = EmitCode(module, *tm, llvm::CodeGenFileType::ObjectFile);
    return absl::OkStatus();
  }));
  HLOREF_RETURN_IF_ERROR(object.status());
  return WriteFile(path, *object);
}

}  // namespace hloref::cpu
