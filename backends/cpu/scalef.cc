#include "backends/cpu/scalef.h"

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/jit.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace hloref::cpu {

namespace {

constexpr char kScalarName[] = "hloref.scalef.f32";
// The vector variants: lanes and name.
constexpr std::array<int, 3> kLanes = {4, 8, 16};
std::string VariantName(int lanes) {
  return absl::StrCat("hloref.scalef.v", lanes, "f32");
}

// Declares `name` as T(T, T), pure: no memory, no unwinding, returns.
llvm::Function* Declare(llvm::Module& module, const std::string& name,
                        llvm::Type* t) {
  if (llvm::Function* f = module.getFunction(name)) return f;
  auto* fty = llvm::FunctionType::get(t, {t, t}, false);
  llvm::Function* f = llvm::Function::Create(
      fty, llvm::GlobalValue::ExternalLinkage, name, module);
  f->setDoesNotThrow();
  f->setDoesNotAccessMemory();
  f->setWillReturn();
  f->addFnAttr(llvm::Attribute::NoSync);
  return f;
}

// The scalar function, with its variants declared and kept alive until the
// vectoriser has run (llvm.compiler.used, as LLVM's own vector-library
// mappings are kept).
llvm::Function* ScalarFunction(llvm::Module& module) {
  if (llvm::Function* f = module.getFunction(kScalarName)) return f;
  llvm::Type* f32 = llvm::Type::getFloatTy(module.getContext());
  std::vector<llvm::GlobalValue*> keep;
  for (int lanes : kLanes) {
    keep.push_back(Declare(module, VariantName(lanes),
                           llvm::FixedVectorType::get(f32, lanes)));
  }
  llvm::appendToCompilerUsed(module, keep);
  return Declare(module, kScalarName, f32);
}

// "_ZGV_LLVM_N<lanes>vv_<scalar>(<variant>)" for every variant: the
// vector-function ABI names LLVM's loop vectoriser reads from a call site.
std::string VariantMappings() {
  std::string s;
  for (int lanes : kLanes) {
    if (!s.empty()) s += ",";
    absl::StrAppend(&s, "_ZGV_LLVM_N", lanes, "vv_", kScalarName, "(",
                    VariantName(lanes), ")");
  }
  return s;
}

}  // namespace

bool UseScalefForHost() {
  const char* env = std::getenv("HLOREF_CPU_SCALEF");
  if (env != nullptr && std::string(env) == "0") return false;
  const std::string& f = GetHostTarget().features;
  return f.find("+avx512f") != std::string::npos &&
         f.find("+avx512vl") != std::string::npos;
}

llvm::Value* EmitScalefCall(llvm::IRBuilderBase& b, llvm::Value* p,
                            llvm::Value* k) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::Function* scalar = ScalarFunction(module);
  llvm::Type* t = p->getType();
  if (!t->isVectorTy()) {
    llvm::CallInst* call = b.CreateCall(scalar, {p, k});
    call->addFnAttr(llvm::Attribute::get(
        module.getContext(), "vector-function-abi-variant", VariantMappings()));
    return call;
  }
  const int lanes =
      static_cast<int>(llvm::cast<llvm::FixedVectorType>(t)->getNumElements());
  for (int l : kLanes) {
    if (l == lanes) {
      return b.CreateCall(module.getFunction(VariantName(l)), {p, k});
    }
  }
  llvm::Value* r = llvm::PoisonValue::get(t);
  for (int i = 0; i < lanes; ++i) {
    llvm::Value* ri = b.CreateCall(
        scalar, {b.CreateExtractElement(p, i), b.CreateExtractElement(k, i)});
    r = b.CreateInsertElement(r, ri, i);
  }
  return r;
}

int64_t LowerScalefCalls(llvm::Module& module) {
  std::vector<llvm::Function*> functions;
  if (llvm::Function* f = module.getFunction(kScalarName)) {
    functions.push_back(f);
  }
  for (int lanes : kLanes) {
    if (llvm::Function* f = module.getFunction(VariantName(lanes))) {
      functions.push_back(f);
    }
  }
  if (functions.empty()) return 0;
  llvm::removeFromUsedLists(module, [&](llvm::Constant* c) {
    for (llvm::Function* f : functions) {
      if (c->stripPointerCasts() == f) return true;
    }
    return false;
  });
  int64_t lowered = 0;
  llvm::LLVMContext& c = module.getContext();
  llvm::Type* f32 = llvm::Type::getFloatTy(c);
  llvm::Type* i8 = llvm::Type::getInt8Ty(c);
  llvm::Type* i16 = llvm::Type::getInt16Ty(c);
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  // _MM_FROUND_CUR_DIRECTION: the MXCSR's rounding mode, as every other
  // floating-point instruction of the module.
  llvm::Value* current = llvm::ConstantInt::get(i32, 4);
  for (llvm::Function* f : functions) {
    std::vector<llvm::CallInst*> calls;
    for (llvm::User* u : f->users()) {
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(call);
    }
    for (llvm::CallInst* call : calls) {
      llvm::IRBuilder<> b(call);
      llvm::Value* p = call->getArgOperand(0);
      llvm::Value* k = call->getArgOperand(1);
      llvm::Value* r;
      llvm::Type* t = p->getType();
      if (!t->isVectorTy()) {
        // vscalefss on lane 0 of two 4-lane vectors.
        llvm::Type* v4 = llvm::FixedVectorType::get(f32, 4);
        llvm::Value* pv =
            b.CreateInsertElement(llvm::PoisonValue::get(v4), p, uint64_t{0});
        llvm::Value* kv =
            b.CreateInsertElement(llvm::PoisonValue::get(v4), k, uint64_t{0});
        llvm::Value* rv = b.CreateIntrinsic(
            llvm::Intrinsic::x86_avx512_mask_scalef_ss, {},
            {pv, kv, pv, llvm::ConstantInt::get(i8, 0xff), current});
        r = b.CreateExtractElement(rv, uint64_t{0});
      } else {
        const auto lanes =
            llvm::cast<llvm::FixedVectorType>(t)->getNumElements();
        if (lanes == 16) {
          r = b.CreateIntrinsic(
              llvm::Intrinsic::x86_avx512_mask_scalef_ps_512, {},
              {p, k, p, llvm::ConstantInt::get(i16, 0xffff), current});
        } else {
          r = b.CreateIntrinsic(
              lanes == 8 ? llvm::Intrinsic::x86_avx512_mask_scalef_ps_256
                         : llvm::Intrinsic::x86_avx512_mask_scalef_ps_128,
              {}, {p, k, p, llvm::ConstantInt::get(i8, 0xff)});
        }
      }
      call->replaceAllUsesWith(r);
      call->eraseFromParent();
      ++lowered;
    }
  }
  for (llvm::Function* f : functions) {
    if (f->use_empty()) f->eraseFromParent();
  }
  return lowered;
}

}  // namespace hloref::cpu
