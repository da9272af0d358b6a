// The minifloat IR (minifloat_ir.h) JIT-compiled and compared bit for bit
// with spec/types/minifloat.h's DecodeFloatToF32Bits / EncodeFloat, an
// independent C++ implementation of the same rules: every encoding of every
// narrow type is decoded; encoding is checked on f32 and f64 values around
// each type's grid points (exact points, midpoints and their neighbours),
// overflow thresholds, subnormals, zeros, infinities, NaNs (quiet and
// signalling, both signs, with payloads) and pseudo-random bit patterns.
#include "backends/codegen/minifloat_ir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/codegen/emit_context.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/llvm_types.h"
#include "backends/cpu/jit.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "spec/types/minifloat.h"

namespace hloref::codegen {
namespace {

constexpr PrimitiveType kNarrowTypes[] = {
    PrimitiveType::kF16,           PrimitiveType::kBF16,
    PrimitiveType::kF8E5M2,        PrimitiveType::kF8E4M3,
    PrimitiveType::kF8E3M4,        PrimitiveType::kF8E4M3FN,
    PrimitiveType::kF8E4M3FNUZ,    PrimitiveType::kF8E5M2FNUZ,
    PrimitiveType::kF8E4M3B11FNUZ, PrimitiveType::kF8E8M0FNU,
    PrimitiveType::kF6E2M3FN,      PrimitiveType::kF6E3M2FN,
    PrimitiveType::kF4E2M1FN,
};

using DecodeFn = uint32_t (*)(uint32_t);
using EncodeF32Fn = uint32_t (*)(uint32_t);
using EncodeF64Fn = uint32_t (*)(uint64_t);

// One JIT-compiled module with, for a type, decode(bits) -> f32 bits,
// encode32(f32 bits) -> encoding and encode64(f64 bits) -> encoding; the
// arguments travel as integers so no NaN is touched by the calling
// convention.
struct Compiled {
  std::unique_ptr<cpu::JitModule> jit;
  DecodeFn decode;
  EncodeF32Fn encode32;
  EncodeF64Fn encode64;
};

Compiled Compile(PrimitiveType type) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("minifloat_test", *context);
  IRBuilder builder(*context);
  EmitterTable table;
  EmitContext ctx(*module, builder, table, CodegenOptions{});
  llvm::Type* i32 = builder.getInt32Ty();
  llvm::Type* i64 = builder.getInt64Ty();
  llvm::Type* storage = StorageType(*context, type);
  auto define = [&](const char* name, llvm::Type* arg) {
    auto* fn =
        llvm::Function::Create(llvm::FunctionType::get(i32, {arg}, false),
                               llvm::Function::ExternalLinkage, name, *module);
    builder.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", fn));
    return fn->getArg(0);
  };
  {
    llvm::Value* a = define("decode", i32);
    llvm::Value* f =
        EmitMinifloatToF32(ctx, type, builder.CreateTrunc(a, storage));
    builder.CreateRet(builder.CreateBitCast(f, i32));
  }
  {
    llvm::Value* a = define("encode32", i32);
    llvm::Value* e = EmitEncodeMinifloat(
        ctx, type, builder.CreateBitCast(a, builder.getFloatTy()));
    builder.CreateRet(builder.CreateZExt(e, i32));
  }
  {
    llvm::Value* a = define("encode64", i64);
    llvm::Value* e = EmitEncodeMinifloat(
        ctx, type, builder.CreateBitCast(a, builder.getDoubleTy()));
    builder.CreateRet(builder.CreateZExt(e, i32));
  }
  auto jit = cpu::JitModule::Compile(std::move(module), std::move(context),
                                     cpu::JitOptions{});
  EXPECT_TRUE(jit.ok()) << jit.status();
  Compiled c;
  c.jit = std::move(*jit);
  c.decode = reinterpret_cast<DecodeFn>(*c.jit->Lookup("decode"));
  c.encode32 = reinterpret_cast<EncodeF32Fn>(*c.jit->Lookup("encode32"));
  c.encode64 = reinterpret_cast<EncodeF64Fn>(*c.jit->Lookup("encode64"));
  return c;
}

uint64_t F64Bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}

// f32 and f64 bit patterns to try for `f`: around every grid point (its f32
// and f64 neighbours), every midpoint between consecutive positive
// encodings (and the midpoint above the largest finite value), powers of
// two over the whole range, specials and random patterns.
void Candidates(const FloatFormat& f, std::vector<uint32_t>& f32s,
                std::vector<uint64_t>& f64s) {
  const FloatFormat& f32 = FormatOf(PrimitiveType::kF32);
  std::vector<double> points;
  const int n = 1 << f.total_bits;
  for (int e = 0; e < n; ++e) {
    if (IsNanEncoding(f, e)) continue;
    double v = DecodeFloat(f, e);
    points.push_back(v);
  }
  std::vector<double> positives;
  for (int e = 0; e < n; ++e) {
    if (IsNanEncoding(f, e) || IsInfEncoding(f, e)) continue;
    double v = DecodeFloat(f, e);
    if (v > 0 || (v == 0 && !std::signbit(v))) positives.push_back(v);
  }
  std::sort(positives.begin(), positives.end());
  for (size_t i = 0; i + 1 < positives.size(); ++i) {
    double mid = (positives[i] + positives[i + 1]) / 2;  // exact
    points.push_back(mid);
    points.push_back(-mid);
  }
  // Beyond the largest finite value: the next grid step and its midpoint.
  if (positives.size() >= 2) {
    double top = positives.back();
    double step = top - positives[positives.size() - 2];
    for (double v : {top + step / 2, top + step, top + 2 * step}) {
      points.push_back(v);
      points.push_back(-v);
    }
  }
  for (int k = -160; k <= 140; ++k) {
    points.push_back(std::ldexp(1.0, k));
    points.push_back(std::ldexp(1.5, k));
    points.push_back(-std::ldexp(1.0, k));
  }
  for (double v : points) {
    uint64_t d = F64Bits(v);
    for (int64_t delta = -3; delta <= 3; ++delta) f64s.push_back(d + delta);
    if (std::isfinite(v) && std::fabs(v) < 3.4e38) {
      uint32_t s = static_cast<uint32_t>(EncodeFloat(f32, v));
      for (int64_t delta = -3; delta <= 3; ++delta) {
        f32s.push_back(static_cast<uint32_t>(s + delta));
      }
    }
  }
  // Specials: zeros, infinities, NaNs with payloads, f32 subnormals, the
  // f32 range ends.
  for (uint32_t s : {0u, 0x80000000u}) {
    for (uint32_t m :
         {0x0u,        0x1u,        0x2u,        0x3FFFFFu,   0x400000u,
          0x400001u,   0x600000u,   0x7FFFFFu,   0x7F800000u, 0x7F800001u,
          0x7FA00000u, 0x7FC00000u, 0x7FC00001u, 0x7FFFFFFFu, 0x7F7FFFFFu,
          0x7F000000u, 0x00800000u, 0x00FFFFFFu, 0x7FE00000u, 0x7F802000u,
          0x7F810000u}) {
      f32s.push_back(s | m);
    }
  }
  for (uint64_t s : {uint64_t{0}, uint64_t{1} << 63}) {
    for (uint64_t m :
         {uint64_t{0}, uint64_t{1}, uint64_t{0x7FF0000000000000},
          uint64_t{0x7FF0000000000001}, uint64_t{0x7FF8000000000000},
          uint64_t{0x7FF4000000000000}, uint64_t{0x7FF0040000000000},
          uint64_t{0x7FF0000020000000}, uint64_t{0x7FEFFFFFFFFFFFFF},
          uint64_t{0x000FFFFFFFFFFFFF}, uint64_t{0x0010000000000000},
          uint64_t{0x7FFFFFFFFFFFFFFF}, uint64_t{0x47EFFFFFE0000000}}) {
      f64s.push_back(s | m);
    }
  }
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 200000; ++i) {
    uint64_t r = rng();
    f32s.push_back(static_cast<uint32_t>(r));
    f64s.push_back(r);
    // Values near 1 in magnitude (the types' ranges): random exponent.
    int k = static_cast<int>(r % 300) - 150;
    double v = std::ldexp(static_cast<double>(r >> 11) * 0x1p-53 + 0.5, k);
    if (r & (uint64_t{1} << 10)) v = -v;
    f64s.push_back(F64Bits(v));
    f32s.push_back(static_cast<uint32_t>(EncodeFloat(f32, v)));
  }
}

class MinifloatIrTest : public ::testing::TestWithParam<PrimitiveType> {};

TEST_P(MinifloatIrTest, DecodeEveryEncoding) {
  const FloatFormat& f = FormatOf(GetParam());
  Compiled c = Compile(GetParam());
  ASSERT_NE(c.decode, nullptr);
  int failures = 0;
  for (uint32_t e = 0; e < (1u << f.total_bits); ++e) {
    uint32_t want = DecodeFloatToF32Bits(f, e);
    uint32_t got = c.decode(e);
    if (want != got && ++failures <= 10) {
      ADD_FAILURE() << PrimitiveTypeName(GetParam()) << " encoding 0x"
                    << std::hex << e << ": want 0x" << want << " got 0x" << got;
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST_P(MinifloatIrTest, EncodeFromF32AndF64) {
  const FloatFormat& f = FormatOf(GetParam());
  Compiled c = Compile(GetParam());
  ASSERT_NE(c.encode32, nullptr);
  std::vector<uint32_t> f32s;
  std::vector<uint64_t> f64s;
  Candidates(f, f32s, f64s);
  int failures = 0;
  for (uint32_t x : f32s) {
    uint64_t want = EncodeFloatFromF32Bits(f, x);
    uint32_t got = c.encode32(x);
    if (want != got && ++failures <= 10) {
      ADD_FAILURE() << PrimitiveTypeName(GetParam()) << " from f32 0x"
                    << std::hex << x << ": want 0x" << want << " got 0x" << got;
    }
  }
  for (uint64_t x : f64s) {
    double d;
    std::memcpy(&d, &x, sizeof(d));
    uint64_t want = EncodeFloat(f, d);
    uint32_t got = c.encode64(x);
    if (want != got && ++failures <= 20) {
      ADD_FAILURE() << PrimitiveTypeName(GetParam()) << " from f64 0x"
                    << std::hex << x << ": want 0x" << want << " got 0x" << got;
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST_P(MinifloatIrTest, RoundTripEveryEncoding) {
  // decode then encode (from f32) gives every encoding back, except the
  // NaNs of types whose NaN has a single encoding per sign.
  const FloatFormat& f = FormatOf(GetParam());
  Compiled c = Compile(GetParam());
  for (uint32_t e = 0; e < (1u << f.total_bits); ++e) {
    if (IsNanEncoding(f, e) && f.nan != NanEncoding::kIeee) continue;
    EXPECT_EQ(c.encode32(c.decode(e)), e)
        << PrimitiveTypeName(GetParam()) << " 0x" << std::hex << e;
  }
}

INSTANTIATE_TEST_SUITE_P(AllNarrowTypes, MinifloatIrTest,
                         ::testing::ValuesIn(kNarrowTypes),
                         [](const auto& info) {
                           return std::string(PrimitiveTypeName(info.param));
                         });

}  // namespace
}  // namespace hloref::codegen
