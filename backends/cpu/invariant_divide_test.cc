// cpu/invariant_divide.h: a loop dividing by a loop-invariant divisor,
// through the optimisation pipeline and the rewrite, against the host's
// own division (the compiler's divss / divsd: an independent, correctly
// rounded computation). Every bit must agree: the fast path's quotients,
// the +0 lanes, and every lane the checks send to the divide (zeros of
// the divisor, -0, subnormals, the range edges, infinities, NaNs).
#include "backends/cpu/invariant_divide.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/jit.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace hloref::cpu {
namespace {

bool HostHasFma() {
  return GetHostTarget().features.find("+fma") != std::string::npos;
}

// void divide(const T* a, T* out, i64 n, T b): out[i] = a[i] / b, a scalar
// loop the vectoriser widens.
template <typename T>
std::unique_ptr<llvm::Module> DivideModule(llvm::LLVMContext& context) {
  auto module = std::make_unique<llvm::Module>("invariant_divide", context);
  llvm::IRBuilder<> b(context);
  llvm::Type* ptr = b.getPtrTy();
  llvm::Type* t = sizeof(T) == 4 ? b.getFloatTy() : b.getDoubleTy();
  llvm::Type* i64 = b.getInt64Ty();
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, i64, t}, false),
      llvm::Function::ExternalLinkage, "divide", *module);
  fn->addParamAttr(0, llvm::Attribute::NoAlias);
  fn->addParamAttr(1, llvm::Attribute::NoAlias);
  auto* entry = llvm::BasicBlock::Create(context, "entry", fn);
  auto* body = llvm::BasicBlock::Create(context, "body", fn);
  auto* exit = llvm::BasicBlock::Create(context, "exit", fn);
  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateICmpSGT(fn->getArg(2), b.getInt64(0)), body, exit);
  b.SetInsertPoint(body);
  llvm::PHINode* i = b.CreatePHI(i64, 2);
  i->addIncoming(b.getInt64(0), entry);
  llvm::Value* a = b.CreateLoad(t, b.CreateInBoundsGEP(t, fn->getArg(0), i));
  b.CreateStore(b.CreateFDiv(a, fn->getArg(3)),
                b.CreateInBoundsGEP(t, fn->getArg(1), i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, body);
  b.CreateCondBr(b.CreateICmpSLT(next, fn->getArg(2)), body, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  return module;
}

template <typename T>
using DivideFn = void (*)(const T*, T*, int64_t, T);

template <typename T>
struct Compiled {
  std::unique_ptr<JitModule> jit;
  DivideFn<T> fn = nullptr;
};

template <typename T>
Compiled<T> Compile() {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = DivideModule<T>(*context);
  auto jit =
      JitModule::Compile(std::move(module), std::move(context), JitOptions{});
  EXPECT_TRUE(jit.ok()) << jit.status();
  Compiled<T> c;
  if (!jit.ok()) return c;
  c.jit = std::move(*jit);
  auto f = c.jit->Lookup("divide");
  EXPECT_TRUE(f.ok()) << f.status();
  if (f.ok()) c.fn = reinterpret_cast<DivideFn<T>>(*f);
  return c;
}

template <typename T>
std::string Assembly() {
  llvm::LLVMContext context;
  auto module = DivideModule<T>(context);
  auto s = JitModule::OptimizeAndEmitAssembly(*module, 2);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : "";
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos;
       p = text.find(what, p + 1)) {
    ++n;
  }
  return n;
}

// Bit patterns and a small fast generator (xorshift64*).
template <typename T>
using UInt = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <typename T>
UInt<T> Bits(T v) {
  UInt<T> u;
  std::memcpy(&u, &v, sizeof v);
  return u;
}

template <typename T>
T FromBits(UInt<T> u) {
  T v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

struct Rng {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  uint64_t Next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545f4914f6cdd1dull;
  }
};

// The format's facts: mantissa bits, exponent bias, the rewrite's range E.
template <typename T>
struct Format;
template <>
struct Format<float> {
  static constexpr int kMant = 23, kBias = 127, kRange = 60;
};
template <>
struct Format<double> {
  static constexpr int kMant = 52, kBias = 1023, kRange = 500;
};

// A value with a random mantissa, the given sign and unbiased exponent.
template <typename T>
T Make(Rng& rng, bool negative, int exponent) {
  using U = UInt<T>;
  constexpr int m = Format<T>::kMant;
  const U mant = static_cast<U>(rng.Next()) & ((U{1} << m) - 1);
  const U e = static_cast<U>(exponent + Format<T>::kBias) << m;
  const U sign = negative ? U{1} << (sizeof(T) * 8 - 1) : 0;
  return FromBits<T>(sign | e | mant);
}

// The dividends that probe the checks' edges, the signed zeros, the
// non-finite values and subnormals.
template <typename T>
std::vector<T> SpecialDividends(T b) {
  const T inf = std::numeric_limits<T>::infinity();
  const T lo = std::ldexp(T(1), -Format<T>::kRange);
  const T hi = std::ldexp(T(1), Format<T>::kRange);
  return {T(1),
          T(-1),
          std::nextafter(T(2), T(0)),
          T(3),
          b,
          -b,
          std::nextafter(b, inf),
          std::nextafter(b, -inf),
          b * T(3),
          T(0),
          -T(0),
          lo,
          -lo,
          std::nextafter(lo, T(0)),
          hi,
          -hi,
          std::nextafter(hi, inf),
          std::numeric_limits<T>::denorm_min(),
          -std::numeric_limits<T>::denorm_min(),
          std::numeric_limits<T>::min(),
          std::numeric_limits<T>::max(),
          -std::numeric_limits<T>::max(),
          inf,
          -inf,
          std::numeric_limits<T>::quiet_NaN(),
          -std::numeric_limits<T>::quiet_NaN()};
}

// Divides `a` by `b` through the compiled loop and on the host; returns
// the number of elements whose bits differ (reporting the first few).
template <typename T>
int CheckBits(const Compiled<T>& c, const std::vector<T>& a, T b,
              int* reported) {
  std::vector<T> out(a.size());
  c.fn(a.data(), out.data(), static_cast<int64_t>(a.size()), b);
  int wrong = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    volatile T bv = b;  // the host's own divide, at run time
    const T want = a[i] / bv;
    if (Bits(out[i]) != Bits(want)) {
      ++wrong;
      if ((*reported)++ < 10) {
        ADD_FAILURE() << std::hexfloat << a[i] << " / " << b << ": got "
                      << out[i] << ", the divide gives " << want;
      }
    }
  }
  return wrong;
}

// 256 dividends for divisor b: 192 random ones in the fast path's range
// (whole vectors of them), then the special values mixed with random ones.
template <typename T>
std::vector<T> Dividends(Rng& rng, T b) {
  std::vector<T> a;
  const int e = Format<T>::kRange;
  for (int i = 0; i < 192; ++i) {
    a.push_back(Make<T>(rng, rng.Next() & 1,
                        static_cast<int>(rng.Next() % (2 * e + 1)) - e));
  }
  const std::vector<T> special = SpecialDividends<T>(b);
  for (int i = 0; i < 64; ++i) {
    a.push_back(
        i % 2 == 0 && static_cast<size_t>(i / 2) < special.size()
            ? special[i / 2]
            : Make<T>(rng, false, static_cast<int>(rng.Next() % 9) - 4));
  }
  return a;
}

// Divisors: the special values (zeros, the range edges, subnormals,
// non-finite) and random ones of every sign and of exponents inside and
// just outside the range.
template <typename T>
std::vector<T> Divisors(Rng& rng, int random) {
  std::vector<T> b = SpecialDividends<T>(T(1.5));
  const int e = Format<T>::kRange + 4;
  for (int i = 0; i < random; ++i) {
    b.push_back(Make<T>(rng, rng.Next() & 1,
                        static_cast<int>(rng.Next() % (2 * e + 1)) - e));
  }
  return b;
}

template <typename T>
void RunAgainstTheHostDivide() {
  Compiled<T> c = Compile<T>();
  ASSERT_NE(c.fn, nullptr);
  Rng rng;
  int reported = 0, wrong = 0;
  for (T b : Divisors<T>(rng, 4000)) {
    wrong += CheckBits(c, Dividends(rng, b), b, &reported);
  }
  EXPECT_EQ(wrong, 0);
}

TEST(InvariantDivide, F32MatchesTheHostDivideBitForBit) {
  RunAgainstTheHostDivide<float>();
}

TEST(InvariantDivide, F64MatchesTheHostDivideBitForBit) {
  RunAgainstTheHostDivide<double>();
}

// Every binary32 divisor mantissa (b in [1, 2)), 64 dividends each: the
// reciprocal of every mantissa is an input of the corrections once.
TEST(InvariantDivide, F32EveryDivisorMantissa) {
  Compiled<float> c = Compile<float>();
  ASSERT_NE(c.fn, nullptr);
  Rng rng;
  std::vector<float> a(64);
  int reported = 0;
  int64_t wrong = 0;
  for (uint32_t m = 0; m < (1u << 23); ++m) {
    const float b = FromBits<float>((127u << 23) | m);
    a[0] = 1.0f;
    a[1] = std::nextafter(2.0f, 0.0f);
    a[2] = b;
    a[3] = FromBits<float>((127u << 23) | (~m & 0x7fffffu));
    for (int i = 4; i < 64; ++i) {
      a[i] = Make<float>(rng, i % 5 == 0, static_cast<int>(rng.Next() % 5) - 2);
    }
    wrong += CheckBits(c, a, b, &reported);
  }
  EXPECT_EQ(wrong, 0);
}

// void rows(const float* a, float* out, const float* b): four 16-lane
// divides by splat(*b) in one block, no loop (a row the vectoriser
// unrolled completely).
using RowsFn = void (*)(const float*, float*, const float*);

std::unique_ptr<llvm::Module> RowsModule(llvm::LLVMContext& context) {
  auto module =
      std::make_unique<llvm::Module>("invariant_divide_rows", context);
  llvm::IRBuilder<> b(context);
  llvm::Type* ptr = b.getPtrTy();
  llvm::Type* f32 = b.getFloatTy();
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr}, false),
      llvm::Function::ExternalLinkage, "rows", *module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", fn));
  llvm::Type* vt = llvm::FixedVectorType::get(f32, 16);
  llvm::Value* d =
      b.CreateVectorSplat(16, b.CreateLoad(f32, fn->getArg(2)), "d");
  for (int v = 0; v < 4; ++v) {
    llvm::Value* a = b.CreateAlignedLoad(
        vt, b.CreateConstInBoundsGEP1_64(f32, fn->getArg(0), 16 * v),
        llvm::Align(4));
    b.CreateAlignedStore(
        b.CreateFDiv(a, d),
        b.CreateConstInBoundsGEP1_64(f32, fn->getArg(1), 16 * v),
        llvm::Align(4));
  }
  b.CreateRetVoid();
  return module;
}

TEST(InvariantDivide, FourDividesOfOneBlockShareTheReciprocal) {
  if (!HostHasFma()) GTEST_SKIP() << "host without FMA: no rewrite";
  {
    llvm::LLVMContext context;
    auto module = RowsModule(context);
    auto s = JitModule::OptimizeAndEmitAssembly(*module, 2);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_GT(Count(*s, "vfnmadd"), 0) << *s;
  }
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = RowsModule(*context);
  auto jit =
      JitModule::Compile(std::move(module), std::move(context), JitOptions{});
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto f = (*jit)->Lookup("rows");
  ASSERT_TRUE(f.ok()) << f.status();
  auto rows = reinterpret_cast<RowsFn>(*f);
  Rng rng;
  int reported = 0, wrong = 0;
  for (float b : Divisors<float>(rng, 2000)) {
    std::vector<float> a = Dividends(rng, b);
    for (size_t row = 0; row < a.size(); row += 64) {
      float out[64];
      rows(a.data() + row, out, &b);
      for (int i = 0; i < 64; ++i) {
        volatile float bv = b;
        const float want = a[row + i] / bv;
        if (Bits(out[i]) != Bits(want) && reported++ < 10) {
          ADD_FAILURE() << std::hexfloat << a[row + i] << " / " << b << ": got "
                        << out[i] << ", the divide gives " << want;
        }
        wrong += Bits(out[i]) != Bits(want);
      }
    }
  }
  EXPECT_EQ(wrong, 0);
}

// The rewrite fires where it should and only there: the loop's assembly
// has FMA corrections with it and none without it.
TEST(InvariantDivide, RewritesTheWideLoopOnly) {
  if (!HostHasFma()) GTEST_SKIP() << "host without FMA: no rewrite";
  const char* saved = std::getenv("HLOREF_CPU_INVARIANT_DIVIDE");
  const std::string restore = saved ? saved : "";
  setenv("HLOREF_CPU_INVARIANT_DIVIDE", "0", 1);
  const std::string off = Assembly<float>();
  unsetenv("HLOREF_CPU_INVARIANT_DIVIDE");
  const std::string on = Assembly<float>();
  const std::string on64 = Assembly<double>();
  if (saved) setenv("HLOREF_CPU_INVARIANT_DIVIDE", restore.c_str(), 1);
  EXPECT_EQ(Count(off, "vfnmadd"), 0);
  EXPECT_GT(Count(on, "vfnmadd"), 0);
  EXPECT_GT(Count(on64, "vfnmadd"), 0);
  // The divide stays: for the reciprocal, the slow path and the scalar
  // remainder loop.
  EXPECT_GT(Count(on, "vdivps"), 0);
  EXPECT_GT(Count(on, "vdivss"), 0);
}

}  // namespace
}  // namespace hloref::cpu
