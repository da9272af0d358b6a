// cpu/scalef.h: every width of the emitted call, after the optimisation
// pipeline and the lowering, against glibc's ldexpf (an independent
// computation): the same bits for normal, subnormal, zero, overflowing and
// infinite results, and NaN for NaN.
#include "backends/cpu/scalef.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/jit.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace hloref::cpu {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// void loop(float* p, float* k, float* out, i64 n): out[i] = scalef(p[i],
// k[i]) as a scalar loop the vectoriser widens (the 16-lane variant and the
// scalar remainder); void vN(float* p, float* k, float* out): one call on
// N lanes (4, 8, 16: the variants; 3: the lane-by-lane fallback).
using LoopFn = void (*)(const float*, const float*, float*, int64_t);
using VecFn = void (*)(const float*, const float*, float*);
constexpr int kWidths[] = {3, 4, 8, 16};

struct Compiled {
  std::unique_ptr<JitModule> jit;
  LoopFn loop = nullptr;
  VecFn vec[4] = {};
};

Compiled Compile() {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("scalef_test", *context);
  llvm::IRBuilder<> b(*context);
  llvm::Type* ptr = b.getPtrTy();
  llvm::Type* f32 = b.getFloatTy();
  llvm::Type* i64 = b.getInt64Ty();
  {
    auto* fn = llvm::Function::Create(
        llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr, i64}, false),
        llvm::Function::ExternalLinkage, "loop", *module);
    auto* entry = llvm::BasicBlock::Create(*context, "entry", fn);
    auto* body = llvm::BasicBlock::Create(*context, "body", fn);
    auto* exit = llvm::BasicBlock::Create(*context, "exit", fn);
    b.SetInsertPoint(entry);
    b.CreateCondBr(b.CreateICmpSGT(fn->getArg(3), b.getInt64(0)), body, exit);
    b.SetInsertPoint(body);
    llvm::PHINode* i = b.CreatePHI(i64, 2);
    i->addIncoming(b.getInt64(0), entry);
    llvm::Value* p =
        b.CreateLoad(f32, b.CreateInBoundsGEP(f32, fn->getArg(0), i));
    llvm::Value* k =
        b.CreateLoad(f32, b.CreateInBoundsGEP(f32, fn->getArg(1), i));
    b.CreateStore(EmitScalefCall(b, p, k),
                  b.CreateInBoundsGEP(f32, fn->getArg(2), i));
    llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
    i->addIncoming(next, body);
    b.CreateCondBr(b.CreateICmpSLT(next, fn->getArg(3)), body, exit);
    b.SetInsertPoint(exit);
    b.CreateRetVoid();
  }
  for (int w : kWidths) {
    auto* fn = llvm::Function::Create(
        llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr}, false),
        llvm::Function::ExternalLinkage, "v" + std::to_string(w), *module);
    b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", fn));
    llvm::Type* vt = llvm::FixedVectorType::get(f32, w);
    llvm::Value* p = b.CreateAlignedLoad(vt, fn->getArg(0), llvm::Align(4));
    llvm::Value* k = b.CreateAlignedLoad(vt, fn->getArg(1), llvm::Align(4));
    b.CreateAlignedStore(EmitScalefCall(b, p, k), fn->getArg(2),
                         llvm::Align(4));
    b.CreateRetVoid();
  }
  auto jit =
      JitModule::Compile(std::move(module), std::move(context), JitOptions{});
  EXPECT_TRUE(jit.ok()) << jit.status();
  Compiled c;
  if (!jit.ok()) return c;
  c.jit = std::move(*jit);
  auto loop = c.jit->Lookup("loop");
  EXPECT_TRUE(loop.ok()) << loop.status();
  if (loop.ok()) c.loop = reinterpret_cast<LoopFn>(*loop);
  for (int j = 0; j < 4; ++j) {
    auto f = c.jit->Lookup("v" + std::to_string(kWidths[j]));
    EXPECT_TRUE(f.ok()) << f.status();
    if (f.ok()) c.vec[j] = reinterpret_cast<VecFn>(*f);
  }
  return c;
}

// p and k pairs: every pair of the special values below, then random ones
// (p of every binade including subnormals, k in [-300, 300]).
void Cases(std::vector<float>* ps, std::vector<float>* ks) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special_p = {1.0f,         1.5f,
                                        0.70710677f,  1.4142135f,
                                        -1.25f,       1.9999999f,
                                        0.75000006f,  0.0f,
                                        -0.0f,        inf,
                                        -inf,         0x1.fffffep127f,
                                        0x1p-126f,    0x1.000002p-126f,
                                        0x1p-149f,    0x1.8p-140f,
                                        -0x1.4p-130f, 3.0000002f};
  const std::vector<float> special_k = {
      -300, -151, -150, -149, -148, -127, -126, -125, -75, -24, -1,
      0,    1,    23,   64,   126,  127,  128,  129,  200, 300};
  for (float p : special_p) {
    for (float k : special_k) {
      ps->push_back(p);
      ks->push_back(k);
    }
  }
  std::mt19937 rng(2026);
  std::uniform_int_distribution<uint32_t> bits(0, 0x7f7fffffu);
  std::uniform_int_distribution<int> exps(-300, 300);
  for (int i = 0; i < 20000; ++i) {
    float p;
    const uint32_t u = bits(rng) | (i % 2 ? 0x80000000u : 0);
    std::memcpy(&p, &u, 4);
    ps->push_back(p);
    ks->push_back(static_cast<float>(exps(rng)));
  }
  // NaN with any k, and NaN k with NaN p (what the exp kernel passes).
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (float k : {-5.0f, 0.0f, 7.0f, nan}) {
    ps->push_back(nan);
    ks->push_back(k);
  }
}

void ExpectLdexp(const std::vector<float>& ps, const std::vector<float>& ks,
                 const std::vector<float>& got, const std::string& what) {
  int64_t bad = 0;
  for (size_t i = 0; i < ps.size(); ++i) {
    const float want =
        std::isnan(ks[i]) ? ps[i] : std::ldexp(ps[i], static_cast<int>(ks[i]));
    const bool same =
        std::isnan(want) ? std::isnan(got[i]) : Bits(want) == Bits(got[i]);
    if (!same && ++bad <= 5) {
      ADD_FAILURE() << what << ": scalef(" << std::hexfloat << ps[i] << ", "
                    << std::defaultfloat << ks[i] << ") = " << std::hexfloat
                    << got[i] << ", ldexpf gives " << want;
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

TEST(Scalef, EveryWidthGivesLdexpBits) {
  if (!UseScalefForHost()) {
    GTEST_SKIP() << "the host has no AVX-512F / AVX-512VL (or "
                    "HLOREF_CPU_SCALEF=0): the kernels do not use vscalefps";
  }
  Compiled c = Compile();
  ASSERT_NE(c.loop, nullptr);
  std::vector<float> ps, ks;
  Cases(&ps, &ks);
  // The loop over every case (16-lane vectors and a scalar remainder: the
  // count is not a multiple of 16), then over the first 13 (scalar only,
  // or nearly).
  std::vector<float> got(ps.size());
  c.loop(ps.data(), ks.data(), got.data(), static_cast<int64_t>(ps.size()));
  ExpectLdexp(ps, ks, got, "loop");
  std::vector<float> few(13);
  c.loop(ps.data(), ks.data(), few.data(), 13);
  ExpectLdexp({ps.begin(), ps.begin() + 13}, {ks.begin(), ks.begin() + 13}, few,
              "loop of 13");
  for (int j = 0; j < 4; ++j) {
    ASSERT_NE(c.vec[j], nullptr);
    const size_t w = kWidths[j];
    std::vector<float> out(ps.size());
    for (size_t i = 0; i + w <= ps.size(); i += w) {
      c.vec[j](ps.data() + i, ks.data() + i, out.data() + i);
    }
    const size_t n = ps.size() / w * w;
    ExpectLdexp({ps.begin(), ps.begin() + n}, {ks.begin(), ks.begin() + n},
                {out.begin(), out.begin() + n}, "v" + std::to_string(w));
  }
}

}  // namespace
}  // namespace hloref::cpu
