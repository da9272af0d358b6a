#include "backends/cpu/module_emitter.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/codegen/complex_ir.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/emitter_table.h"
#include "backends/cpu/cpu_emitters.h"
#include "backends/cpu/scalef.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "spec/util/status_macros.h"

namespace hloref::cpu {

namespace {

// How deep computations nest below the entry (calls, loop bodies and
// conditions, branches, fusions, reducers ...; the entry alone is 1),
// counted with an explicit stack: the verifier has ruled out recursion.
int64_t ComputationNestingDepth(const HloModule& module) {
  absl::flat_hash_map<const HloComputation*, int64_t> depth;
  std::vector<std::pair<const HloComputation*, bool>> stack = {
      {module.entry(), false}};
  while (!stack.empty()) {
    auto [comp, callees_done] = stack.back();
    stack.pop_back();
    if (depth.contains(comp)) continue;
    int64_t deepest = 0;
    bool ready = true;
    for (const auto& inst : comp->instructions()) {
      for (const HloComputation* callee : inst->called_computations()) {
        if (callee == nullptr) continue;
        auto it = depth.find(callee);
        if (it != depth.end()) {
          deepest = std::max(deepest, it->second);
        } else if (callees_done) {
          ready = false;  // cannot happen without recursion
        } else {
          if (ready) stack.push_back({comp, true});
          ready = false;
          stack.push_back({callee, false});
        }
      }
    }
    if (ready) depth[comp] = deepest + 1;
  }
  auto it = depth.find(module.entry());
  return it == depth.end() ? 0 : it->second;
}

// Whether an array shape has more than kMaxElementsPerValue elements
// (counted at the bounds, without overflow; unbounded dimensions are
// refused elsewhere).
bool TooManyElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) {
    if (d <= 0) return false;
    if (n > kMaxElementsPerValue / d) return true;
    n *= d;
  }
  return n > kMaxElementsPerValue;
}

}  // namespace

// codegen::CodegenOptions::row_group_block_bytes for this host: a third of
// the L1d (16 KiB on the Xeon's 48 KiB, ~11 KiB on a 32 KiB L1d), between
// 4 and 64 KiB; HLOREF_CPU_ROW_BLOCK_BYTES overrides (tuning). The blocks'
// rows then stay in L1 between the group's passes. Paired runs on the Xeon
// (tools/bench/paired_ratios.py, 12-14 runs each, two sweeps, 2026-11-30):
// 64 KiB blocks (the earlier constant) gave layer norm 0.85-0.86x oneDNN and
// softmax 44-45 % of the sum bandwidth; 8-24 KiB gave 0.89-0.96x and
// 49-54 %. This code against HLOREF_CPU_ROW_BLOCK_BYTES=65536, 14 paired
// runs each: layer norm 77 -> 82 % of the sum bandwidth, softmax 44 -> 50 %
// at 1 thread; at 2 threads no change.
int64_t HostRowBlockBytes() {
  static const int64_t bytes = [] {
    if (const char* env = std::getenv("HLOREF_CPU_ROW_BLOCK_BYTES");
        env != nullptr && *env != 0) {
      return std::max<int64_t>(1, std::atoll(env));
    }
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    const int64_t l1d = l1 > 0 ? l1 : int64_t{32} << 10;
    return std::clamp<int64_t>(l1d / 3, int64_t{4} << 10, int64_t{64} << 10);
  }();
  return bytes;
}

int64_t SerialOutlineMinWork() {
  if (const char* env = std::getenv("HLOREF_CPU_SERIAL_OUTLINE");
      env != nullptr && *env != 0) {
    return std::max<int64_t>(0, std::atoll(env));
  }
  return 1024;
}

absl::StatusOr<EmittedModule> EmitModuleForCpu(
    const HloModule& module, const ModuleEmitOptions& options) {
  // The code generator emits a computation's callees while emitting it:
  // one level of native recursion per level of nesting. Deeper modules
  // (100,000 nested calls overflowed the stack) are refused, not crashed on.
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      std::vector<const Shape*> leaves = {&inst->shape()};
      while (!leaves.empty()) {
        const Shape* s = leaves.back();
        leaves.pop_back();
        if (s->IsTuple()) {
          for (const Shape& e : s->tuple_shapes()) leaves.push_back(&e);
        } else if (s->IsArray() && TooManyElements(*s)) {
          return absl::UnimplementedError(absl::StrCat(
              "%", inst->name(), " has the shape ", s->ToString(false),
              ": the CPU backend compiles values of at most ",
              kMaxElementsPerValue, " elements"));
        }
      }
    }
  }
  if (const int64_t depth = ComputationNestingDepth(module);
      depth > kMaxComputationNesting) {
    return absl::UnimplementedError(absl::StrCat(
        "the module nests computations ", depth,
        " deep (calls, loops, conditionals, fusions, reducers inside one "
        "another); the CPU backend compiles at most ",
        kMaxComputationNesting, " levels"));
  }
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>(module.name(), *context);
  codegen::IRBuilder builder(*context);
  static const codegen::EmitterTable* table =
      new codegen::EmitterTable(CpuEmitterTable());
  codegen::CodegenOptions cg;
  cg.row_group_block_bytes = options.row_group_block_bytes > 0
                                 ? options.row_group_block_bytes
                                 : HostRowBlockBytes();
  cg.fuse_elementwise = options.fuse_elementwise;
  cg.fuse_into_variadic_reduce = true;
  cg.stream_result_min_bytes = options.stream_result_min_bytes;
  cg.group_prefetch = true;
  cg.serial_outline_min_work = options.serial_outline_min_work >= 0
                                   ? options.serial_outline_min_work
                                   : SerialOutlineMinWork();
  codegen::EmitContext ctx(*llvm_module, builder, *table, cg);
  ctx.heap_alloc = [](codegen::EmitContext& c, llvm::Value* bytes) {
    llvm::Type* ptr = c.PtrType();
    auto* fty = llvm::FunctionType::get(ptr, {ptr, c.b().getInt64Ty()}, false);
    return static_cast<llvm::Value*>(
        c.b().CreateCall(c.GetRuntimeFunction("hloref_cpu_alloc", fty),
                         {c.run_context(), bytes}));
  };
  ctx.heap_free = [](codegen::EmitContext& c, llvm::Value* p) {
    llvm::Type* ptr = c.PtrType();
    auto* fty = llvm::FunctionType::get(c.b().getVoidTy(), {ptr, ptr}, false);
    c.b().CreateCall(c.GetRuntimeFunction("hloref_cpu_free", fty),
                     {c.run_context(), p});
  };
  ctx.report_error = [](codegen::EmitContext& c, const std::string& message) {
    llvm::Type* ptr = c.PtrType();
    auto* fty = llvm::FunctionType::get(c.b().getVoidTy(), {ptr, ptr}, false);
    llvm::Value* text = c.b().CreateGlobalStringPtr(message, "error_message");
    c.b().CreateCall(c.GetRuntimeFunction("hloref_cpu_error", fty),
                     {c.run_context(), text});
  };
  ctx.report_error_code = [](codegen::EmitContext& c, absl::StatusCode code,
                             const std::string& message) {
    llvm::Type* ptr = c.PtrType();
    auto* fty = llvm::FunctionType::get(c.b().getVoidTy(),
                                        {ptr, c.b().getInt32Ty(), ptr}, false);
    llvm::Value* text = c.b().CreateGlobalStringPtr(message, "error_message");
    c.b().CreateCall(
        c.GetRuntimeFunction("hloref_cpu_error_code", fty),
        {c.run_context(), c.b().getInt32(static_cast<int32_t>(code)), text});
  };
  // Complex transcendentals: runtime/math.cc (long double), through
  //   void hloref_cpu_complex_unary(i32 fn, double re, double im, ptr out)
  //   void hloref_cpu_complex_pow(double a, double b, double c, double d,
  //                               ptr out)
  // writing double out[2].
  ctx.complex_math = [](codegen::EmitContext& c, int32_t fn,
                        absl::Span<llvm::Value* const> parts) {
    codegen::IRBuilder& b = c.b();
    llvm::Type* dbl = b.getDoubleTy();
    llvm::Value* out = c.EntryAlloca(dbl, 2, "complex.out");
    std::vector<llvm::Value*> args;
    const bool pow = fn == static_cast<int32_t>(codegen::ComplexFn::kPow);
    if (!pow) args.push_back(c.I32(fn));
    args.insert(args.end(), parts.begin(), parts.end());
    args.push_back(out);
    std::vector<llvm::Type*> params;
    for (llvm::Value* a : args) params.push_back(a->getType());
    auto* fty = llvm::FunctionType::get(b.getVoidTy(), params, false);
    b.CreateCall(
        c.GetRuntimeFunction(
            pow ? "hloref_cpu_complex_pow" : "hloref_cpu_complex_unary", fty),
        args);
    llvm::Value* re = b.CreateLoad(dbl, out);
    llvm::Value* im =
        b.CreateLoad(dbl, b.CreateConstInBoundsGEP1_64(dbl, out, 1));
    return std::make_pair(re, im);
  };
  if (UseScalefForHost()) {
    ctx.scale_by_power_of_two = [](codegen::EmitContext& c, llvm::Value* p,
                                   llvm::Value* k) {
      return EmitScalefCall(c.b(), p, k);
    };
  }
  ctx.parallel_for = [](codegen::EmitContext& c, llvm::Value* n,
                        llvm::Function* body, llvm::Value* env) {
    llvm::Type* ptr = c.PtrType();
    auto* fty = llvm::FunctionType::get(
        c.b().getVoidTy(), {ptr, c.b().getInt64Ty(), ptr, ptr}, false);
    c.b().CreateCall(c.GetRuntimeFunction("hloref_cpu_parallel_for", fty),
                     {c.run_context(), n, body, env});
  };
  HLOREF_ASSIGN_OR_RETURN(llvm::Function * entry,
                          ctx.GetComputationFunction(*module.entry()));
  // The exported entry point: same ABI, external linkage.
  llvm::Function* main = llvm::Function::Create(
      entry->getFunctionType(), llvm::GlobalValue::ExternalLinkage,
      options.entry_name, *llvm_module);
  {
    llvm::BasicBlock* bb = llvm::BasicBlock::Create(*context, "entry", main);
    builder.SetInsertPoint(bb);
    builder.CreateCall(entry,
                       {main->getArg(0), main->getArg(1), main->getArg(2)});
    builder.CreateRetVoid();
  }
  EmittedModule emitted;
  emitted.context = std::move(context);
  emitted.module = std::move(llvm_module);
  return emitted;
}

}  // namespace hloref::cpu
