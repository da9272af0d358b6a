// The element-wise families on the CPU backend, end to end, against values
// derived by hand (each test states the derivation): XLA's integer rules
// (division and remainder by zero and INT_MIN / -1, saturating shifts,
// integer power, mulhi, clz/popcnt on sub-byte types), NaN-propagating
// maximum/minimum with -0 < +0, rounding, sign, TOTALORDER compares, pred
// arithmetic, complex division, and negate on narrow floats' encodings.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_test_util.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/minifloat.h"

namespace hloref::cpu {
namespace {

Literal Ints(PrimitiveType type, const std::vector<int64_t>& values) {
  Literal lit(Shape::Array(type, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) {
    lit.SetFromInt64(static_cast<int64_t>(i), values[i]);
  }
  return lit;
}

std::vector<int64_t> AsInts(const Literal& lit) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    out.push_back(lit.GetAsInt64(i));
  }
  return out;
}

Literal FromBits(PrimitiveType type, const std::vector<uint64_t>& bits) {
  Literal lit(Shape::Array(type, {static_cast<int64_t>(bits.size())}));
  for (size_t i = 0; i < bits.size(); ++i) {
    lit.SetRawBits(static_cast<int64_t>(i), bits[i]);
  }
  return lit;
}

uint64_t F32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// A module applying `op` to one or two parameters of `in` type giving `out`.
std::string Module(absl::string_view op, absl::string_view in, int n,
                   absl::string_view out, int operands,
                   absl::string_view attrs = "") {
  std::string shape = absl::StrCat(in, "[", n, "]");
  std::string body =
      absl::StrCat("HloModule m\nENTRY e {\n  a = ", shape, " parameter(0)\n");
  if (operands == 2) absl::StrAppend(&body, "  b = ", shape, " parameter(1)\n");
  absl::StrAppend(&body, "  ROOT r = ", out, "[", n, "] ", op,
                  operands == 2 ? "(a, b)" : "(a)", attrs, "\n}\n");
  return body;
}

std::vector<int64_t> RunInts(absl::string_view op, PrimitiveType type,
                             absl::string_view type_name,
                             const std::vector<int64_t>& a,
                             const std::vector<int64_t>& b) {
  const int n = static_cast<int>(a.size());
  auto out = CompileAndRun(Module(op, type_name, n, type_name, 2),
                           {Ints(type, a), Ints(type, b)});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  return AsInts((*out)[0]);
}

constexpr int64_t kS32Min = std::numeric_limits<int32_t>::min();

TEST(Elementwise, IntegerDivideAndRemainderEdgeCases) {
  // Truncating division: 7/2 = 3, -7/2 = -3 (remainders 1, -1, the sign of
  // the dividend). x / 0 = -1 and x % 0 = x; INT_MIN / -1 = INT_MIN and
  // INT_MIN % -1 = 0; INT_MIN / 1 = INT_MIN, remainder 0.
  const std::vector<int64_t> a = {7, -7, 5, kS32Min, kS32Min, -9};
  const std::vector<int64_t> b = {2, 2, 0, -1, 1, 0};
  EXPECT_EQ(RunInts("divide", PrimitiveType::kS32, "s32", a, b),
            (std::vector<int64_t>{3, -3, -1, kS32Min, kS32Min, -1}));
  EXPECT_EQ(RunInts("remainder", PrimitiveType::kS32, "s32", a, b),
            (std::vector<int64_t>{1, -1, 5, 0, 0, -9}));
  // Unsigned: 200 / 0 = 255 (all ones), 200 % 0 = 200, 200 / 7 = 28 r 4.
  EXPECT_EQ(RunInts("divide", PrimitiveType::kU8, "u8", {200, 200}, {0, 7}),
            (std::vector<int64_t>{255, 28}));
  EXPECT_EQ(RunInts("remainder", PrimitiveType::kU8, "u8", {200, 200}, {0, 7}),
            (std::vector<int64_t>{200, 4}));
}

TEST(Elementwise, ShiftsSaturateAtTheWidth) {
  // s8: 1 << 7 = 0x80 = -128; 1 << 8 and 1 << -1 (amount 255 unsigned) =
  // 0. -128 >> 200 (arithmetic, amount -56 = 200 unsigned) = -1 (sign
  // fill); 64 >> 8 = 0; -128 >>> 7 (logical, 0x80) = 1; -128 >>> 8 = 0.
  EXPECT_EQ(
      RunInts("shift-left", PrimitiveType::kS8, "s8", {1, 1, 1}, {7, 8, -1}),
      (std::vector<int64_t>{-128, 0, 0}));
  EXPECT_EQ(RunInts("shift-right-arithmetic", PrimitiveType::kS8, "s8",
                    {-128, 64, -128}, {-56, 8, 1}),
            (std::vector<int64_t>{-1, 0, -64}));
  EXPECT_EQ(RunInts("shift-right-logical", PrimitiveType::kS8, "s8",
                    {-128, -128}, {7, 8}),
            (std::vector<int64_t>{1, 0}));
  // Unsigned types shift arithmetically with sign fill too: u8 0x80 >> 1 =
  // 0xC0 = 192; >> 9 = 0xFF.
  EXPECT_EQ(RunInts("shift-right-arithmetic", PrimitiveType::kU8, "u8",
                    {128, 128}, {1, 9}),
            (std::vector<int64_t>{192, 255}));
}

TEST(Elementwise, IntegerPower) {
  // 2^10 = 1024; 3^64 = 3^(64 mod 64) = 1 (low 6 bits of the exponent);
  // 3^65 = 3; (-1)^-1 = 0 and 2^-1 = 0 (negative exponent, base != 1);
  // 1^-5 = 1; 0^0 = 1.
  EXPECT_EQ(RunInts("power", PrimitiveType::kS32, "s32", {2, 3, 3, -1, 2, 1, 0},
                    {10, 64, 65, -1, -1, -5, 0}),
            (std::vector<int64_t>{1024, 1, 3, 0, 0, 1, 1}));
  // s1: the only values are 0 and -1; (-1)^-1 = 0 (-1 is not 1).
  EXPECT_EQ(RunInts("power", PrimitiveType::kS1, "s1", {-1}, {-1}),
            (std::vector<int64_t>{0}));
}

TEST(Elementwise, Mulhi) {
  // s8: -128 * -128 = 16384 = 0x4000 -> high byte 0x40 = 64; -1 * 1 = -1 =
  // 0xFFFF -> -1; 100 * 3 = 300 = 0x012C -> 1. u8: 255 * 255 = 65025 =
  // 0xFE01 -> 254.
  EXPECT_EQ(
      RunInts("mulhi", PrimitiveType::kS8, "s8", {-128, -1, 100}, {-128, 1, 3}),
      (std::vector<int64_t>{64, -1, 1}));
  EXPECT_EQ(RunInts("mulhi", PrimitiveType::kU8, "u8", {255}, {255}),
            (std::vector<int64_t>{254}));
  // s64: 2^62 * 4 = 2^64 -> high word 1.
  EXPECT_EQ(
      RunInts("mulhi", PrimitiveType::kS64, "s64", {int64_t{1} << 62}, {4}),
      (std::vector<int64_t>{1}));
}

TEST(Elementwise, ClzAndPopcntOnSubByteTypes) {
  // s4: 1 = 0b0001 -> clz 3, popcnt 1; -1 = 0b1111 -> clz 0, popcnt 4;
  // 0 -> clz 4 (the width), popcnt 0; -8 = 0b1000 -> clz 0, popcnt 1.
  auto clz = CompileAndRun(Module("count-leading-zeros", "s4", 4, "s4", 1),
                           {Ints(PrimitiveType::kS4, {1, -1, 0, -8})});
  ASSERT_TRUE(clz.ok()) << clz.status();
  EXPECT_EQ(AsInts((*clz)[0]), (std::vector<int64_t>{3, 0, 4, 0}));
  auto pop = CompileAndRun(Module("popcnt", "s4", 4, "s4", 1),
                           {Ints(PrimitiveType::kS4, {1, -1, 0, -8})});
  ASSERT_TRUE(pop.ok()) << pop.status();
  EXPECT_EQ(AsInts((*pop)[0]), (std::vector<int64_t>{1, 4, 0, 1}));
  // u2: 1 = 0b01 -> clz 1; 0 -> 2.
  auto clz2 = CompileAndRun(Module("count-leading-zeros", "u2", 2, "u2", 1),
                            {Ints(PrimitiveType::kU2, {1, 0})});
  ASSERT_TRUE(clz2.ok()) << clz2.status();
  EXPECT_EQ(AsInts((*clz2)[0]), (std::vector<int64_t>{1, 2}));
}

TEST(Elementwise, IntegerAbsNegateSign) {
  // s8: abs(-128) wraps to -128; sign(-5) = -1, sign(0) = 0, sign(7) = 1.
  auto abs = CompileAndRun(Module("abs", "s8", 2, "s8", 1),
                           {Ints(PrimitiveType::kS8, {-128, -5})});
  ASSERT_TRUE(abs.ok()) << abs.status();
  EXPECT_EQ(AsInts((*abs)[0]), (std::vector<int64_t>{-128, 5}));
  auto sign = CompileAndRun(Module("sign", "s8", 3, "s8", 1),
                            {Ints(PrimitiveType::kS8, {-5, 0, 7})});
  ASSERT_TRUE(sign.ok()) << sign.status();
  EXPECT_EQ(AsInts((*sign)[0]), (std::vector<int64_t>{-1, 0, 1}));
}

TEST(Elementwise, PredArithmetic) {
  // pred add is logical or (true + true = true), multiply is and.
  const std::vector<int64_t> a = {0, 0, 1, 1}, b = {0, 1, 0, 1};
  EXPECT_EQ(RunInts("add", PrimitiveType::kPred, "pred", a, b),
            (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(RunInts("multiply", PrimitiveType::kPred, "pred", a, b),
            (std::vector<int64_t>{0, 0, 0, 1}));
}

TEST(Elementwise, MaximumMinimumPropagateNanAndOrderZeros) {
  const uint64_t pz = F32(0.0f), nz = F32(-0.0f), one = F32(1.0f);
  const uint64_t nan = 0x7FC00000, ninf = F32(-INFINITY);
  std::vector<uint64_t> a = {nz, pz, nan, one, ninf};
  std::vector<uint64_t> b = {pz, nz, one, nan, nan};
  auto mx = CompileAndRun(
      Module("maximum", "f32", 5, "f32", 2),
      {FromBits(PrimitiveType::kF32, a), FromBits(PrimitiveType::kF32, b)});
  ASSERT_TRUE(mx.ok()) << mx.status();
  // max(-0, +0) = max(+0, -0) = +0; NaN in either operand gives NaN.
  std::vector<uint64_t> r = Bits((*mx)[0]);
  EXPECT_EQ(r[0], pz);
  EXPECT_EQ(r[1], pz);
  for (int i = 2; i < 5; ++i) {
    EXPECT_TRUE((r[i] & 0x7FFFFFFF) > 0x7F800000) << i;
  }
  auto mn = CompileAndRun(
      Module("minimum", "f32", 5, "f32", 2),
      {FromBits(PrimitiveType::kF32, a), FromBits(PrimitiveType::kF32, b)});
  ASSERT_TRUE(mn.ok()) << mn.status();
  r = Bits((*mn)[0]);
  // min(-0, +0) = min(+0, -0) = -0.
  EXPECT_EQ(r[0], nz);
  EXPECT_EQ(r[1], nz);
  for (int i = 2; i < 5; ++i) {
    EXPECT_TRUE((r[i] & 0x7FFFFFFF) > 0x7F800000) << i;
  }
}

TEST(Elementwise, RoundingAndSign) {
  std::vector<uint64_t> x = {F32(2.5f), F32(-2.5f), F32(0.5f), F32(-0.5f),
                             F32(3.5f)};
  // Halfway cases away from zero: 3, -3, 1, -1, 4.
  auto afz = CompileAndRun(Module("round-nearest-afz", "f32", 5, "f32", 1),
                           {FromBits(PrimitiveType::kF32, x)});
  ASSERT_TRUE(afz.ok()) << afz.status();
  EXPECT_EQ(Bits((*afz)[0]),
            (std::vector<uint64_t>{F32(3), F32(-3), F32(1), F32(-1), F32(4)}));
  // Halfway cases to even: 2, -2, 0, -0, 4.
  auto even = CompileAndRun(Module("round-nearest-even", "f32", 5, "f32", 1),
                            {FromBits(PrimitiveType::kF32, x)});
  ASSERT_TRUE(even.ok()) << even.status();
  EXPECT_EQ(Bits((*even)[0]), (std::vector<uint64_t>{F32(2), F32(-2), F32(0),
                                                     F32(-0.0f), F32(4)}));
  // sign: -0 -> -0, +0 -> +0, NaN -> the same NaN, -3 -> -1, inf -> 1.
  auto sign = CompileAndRun(
      Module("sign", "f32", 5, "f32", 1),
      {FromBits(PrimitiveType::kF32, {F32(-0.0f), F32(0.0f), 0x7FC00123,
                                      F32(-3.0f), F32(INFINITY)})});
  ASSERT_TRUE(sign.ok()) << sign.status();
  EXPECT_EQ(Bits((*sign)[0]),
            (std::vector<uint64_t>{F32(-0.0f), F32(0.0f), 0x7FC00123,
                                   F32(-1.0f), F32(1.0f)}));
}

TEST(Elementwise, CompareTotalOrder) {
  // Keys: -NaN < -inf < -0 < +0 < +inf < +NaN; EQ is bit equality after the
  // key transform, so -0 != +0 and a NaN equals itself.
  const uint64_t pz = F32(0.0f), nz = F32(-0.0f);
  const uint64_t pnan = 0x7FC00000, nnan = 0xFFC00000;
  const uint64_t pinf = F32(INFINITY), ninf = F32(-INFINITY);
  std::vector<uint64_t> a = {nz, nz, pnan, nnan, pnan};
  std::vector<uint64_t> b = {pz, pz, pinf, ninf, pnan};
  auto lt = CompileAndRun(
      Module("compare", "f32", 5, "pred", 2, ", direction=LT, type=TOTALORDER"),
      {FromBits(PrimitiveType::kF32, a), FromBits(PrimitiveType::kF32, b)});
  ASSERT_TRUE(lt.ok()) << lt.status();
  EXPECT_EQ(AsInts((*lt)[0]), (std::vector<int64_t>{1, 1, 0, 1, 0}));
  auto eq = CompileAndRun(
      Module("compare", "f32", 5, "pred", 2, ", direction=EQ, type=TOTALORDER"),
      {FromBits(PrimitiveType::kF32, a), FromBits(PrimitiveType::kF32, b)});
  ASSERT_TRUE(eq.ok()) << eq.status();
  EXPECT_EQ(AsInts((*eq)[0]), (std::vector<int64_t>{0, 0, 0, 0, 1}));
  // IEEE (FLOAT): -0 == +0, NaN != NaN, NaN NE NaN is true.
  auto feq = CompileAndRun(
      Module("compare", "f32", 5, "pred", 2, ", direction=EQ"),
      {FromBits(PrimitiveType::kF32, a), FromBits(PrimitiveType::kF32, b)});
  ASSERT_TRUE(feq.ok()) << feq.status();
  EXPECT_EQ(AsInts((*feq)[0]), (std::vector<int64_t>{1, 1, 0, 0, 0}));
}

TEST(Elementwise, CompareBySignedness) {
  // The bits 0xFF are -1 in s8 and 255 in u8: s8 1 < -1 is false and
  // -1 < 1 true; u8 1 < 255 is true and 255 < 1 false.
  auto s8 = CompileAndRun(
      Module("compare", "s8", 2, "pred", 2, ", direction=LT"),
      {Ints(PrimitiveType::kS8, {1, -1}), Ints(PrimitiveType::kS8, {-1, 1})});
  ASSERT_TRUE(s8.ok()) << s8.status();
  EXPECT_EQ(AsInts((*s8)[0]), (std::vector<int64_t>{0, 1}));
  auto u8 = CompileAndRun(
      Module("compare", "u8", 2, "pred", 2, ", direction=LT"),
      {Ints(PrimitiveType::kU8, {1, 255}), Ints(PrimitiveType::kU8, {255, 1})});
  ASSERT_TRUE(u8.ok()) << u8.status();
  EXPECT_EQ(AsInts((*u8)[0]), (std::vector<int64_t>{1, 0}));
}

TEST(Elementwise, ComplexDivision) {
  // (1 + 2i) / (3 + 4i) = (1 + 2i)(3 - 4i) / 25 = (11 + 2i) / 25
  //                     = 0.44 + 0.08i.
  // (1 + 1i) / (0 + 0i): Smith gives NaN + NaN i; the recovery gives
  // copysign(inf, +0) * (1, 1) = inf + inf i.
  Literal a(Shape::Array(PrimitiveType::kC64, {2}));
  Literal b(Shape::Array(PrimitiveType::kC64, {2}));
  a.SetFromComplex(0, {1, 2});
  b.SetFromComplex(0, {3, 4});
  a.SetFromComplex(1, {1, 1});
  b.SetFromComplex(1, {0, 0});
  auto out = CompileAndRun(Module("divide", "c64", 2, "c64", 2),
                           {std::move(a), std::move(b)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::complex<double> q = (*out)[0].GetAsComplex(0);
  EXPECT_NEAR(q.real(), 0.44, 1e-7);
  EXPECT_NEAR(q.imag(), 0.08, 1e-8);
  std::complex<double> z = (*out)[0].GetAsComplex(1);
  EXPECT_EQ(z.real(), INFINITY);
  EXPECT_EQ(z.imag(), INFINITY);
}

TEST(Elementwise, ComplexSignOfSubnormalParts) {
  // sign(-d + d i) with d = 2^-1074 (the smallest subnormal) is
  // (-1 + i) / sqrt(2) = (-0.70710678118654752, 0.70710678118654752): |z|
  // must not be rounded to a subnormal before dividing.
  Literal a(Shape::Array(PrimitiveType::kC128, {1}));
  a.SetFromComplex(0, {-0x1p-1074, 0x1p-1074});
  auto out =
      CompileAndRun(Module("sign", "c128", 1, "c128", 1), {std::move(a)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::complex<double> z = (*out)[0].GetAsComplex(0);
  EXPECT_NEAR(z.real(), -0.70710678118654752, 1e-15);
  EXPECT_NEAR(z.imag(), 0.70710678118654752, 1e-15);
}

TEST(Elementwise, NegateOnNarrowFloatEncodings) {
  // f16: the sign bit flips, NaN payloads stay (0x7E01 -> 0xFE01).
  auto f16 =
      CompileAndRun(Module("negate", "f16", 3, "f16", 1),
                    {FromBits(PrimitiveType::kF16, {0x3C00, 0x7E01, 0x0000})});
  ASSERT_TRUE(f16.ok()) << f16.status();
  EXPECT_EQ(Bits((*f16)[0]), (std::vector<uint64_t>{0xBC00, 0xFE01, 0x8000}));
  // f8e4m3fnuz has no -0: +0 stays 0x00, its NaN 0x80 stays, 0x01 -> 0x81.
  auto fnuz =
      CompileAndRun(Module("negate", "f8e4m3fnuz", 3, "f8e4m3fnuz", 1),
                    {FromBits(PrimitiveType::kF8E4M3FNUZ, {0x00, 0x80, 0x01})});
  ASSERT_TRUE(fnuz.ok()) << fnuz.status();
  EXPECT_EQ(Bits((*fnuz)[0]), (std::vector<uint64_t>{0x00, 0x80, 0x81}));
  // f8e8m0fnu is unsigned: -x is never representable, NaN 0xFF.
  auto e8m0 =
      CompileAndRun(Module("negate", "f8e8m0fnu", 2, "f8e8m0fnu", 1),
                    {FromBits(PrimitiveType::kF8E8M0FNU, {0x7F, 0x00})});
  ASSERT_TRUE(e8m0.ok()) << e8m0.status();
  EXPECT_EQ(Bits((*e8m0)[0]), (std::vector<uint64_t>{0xFF, 0xFF}));
}

TEST(Elementwise, NarrowFloatAddRoundsOnce) {
  // bf16: 1 + 2^-8 is the midpoint of 1 and 1 + 2^-7 (bf16 has 7 fraction
  // bits): ties to even give 1.0 = 0x3F80. 1 + 3 * 2^-8 is the midpoint of
  // 1 + 2^-7 and 1 + 2^-6: ties to even give 1 + 2^-6 = 0x3F82.
  // Operands: 1 = 0x3F80, 2^-8 = 0x3B80, 3 * 2^-8 = 0x3C40.
  auto out = CompileAndRun(Module("add", "bf16", 2, "bf16", 2),
                           {FromBits(PrimitiveType::kBF16, {0x3F80, 0x3F80}),
                            FromBits(PrimitiveType::kBF16, {0x3B80, 0x3C40})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Bits((*out)[0]), (std::vector<uint64_t>{0x3F80, 0x3F82}));
}

// bf16 add, subtract, multiply and divide compute in f32 and round to bf16
// (elementwise.cc says why that is one correct rounding): every bf16
// against 40 partners (zeros, subnormals, the smallest normal, values that
// make ties and carries, the largest finite, infinities, NaN) against the
// spec's rounding of the double result (exact sums and products of bf16
// values; quotients rounded at 53 >= 2 * 8 + 2 bits: one correct
// rounding). As x / y and y / x for divide, so that subnormal and huge
// dividends meet every divisor: quotients that underflow, overflow or
// fall near bf16 midpoints below 2^-126.
TEST(Elementwise, Bf16ArithmeticRoundsOnceOverEveryEncoding) {
  const std::vector<uint64_t> partners = {
      0x0000, 0x8000, 0x0001, 0x8001, 0x0003, 0x007F, 0x0080, 0x8080,
      0x0081, 0x00FF, 0x0100, 0x3B80, 0x3C40, 0x3F80, 0xBF80, 0x3F81,
      0x3FFF, 0x4000, 0xC040, 0x3E80, 0x4780, 0x3A80, 0x2D80, 0x1F80,
      0x4F80, 0x5F80, 0x7F00, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0,
      0x4049, 0xBEAB, 0x3DCD, 0x0C00, 0x0040, 0x3400, 0x4B00, 0xCB01};
  const int64_t n = 65536 * static_cast<int64_t>(partners.size());
  std::vector<uint64_t> xs(n), ys(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = static_cast<uint64_t>(i % 65536);
    ys[i] = partners[i / 65536];
  }
  for (const char* op : {"add", "subtract", "multiply", "divide"}) {
    for (bool swap : {false, true}) {
      if (swap && std::string(op) != "divide") continue;
      const std::vector<uint64_t>& lhs = swap ? ys : xs;
      const std::vector<uint64_t>& rhs = swap ? xs : ys;
      auto out = CompileAndRun(Module(op, "bf16", n, "bf16", 2),
                               {FromBits(PrimitiveType::kBF16, lhs),
                                FromBits(PrimitiveType::kBF16, rhs)});
      ASSERT_TRUE(out.ok()) << out.status();
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double x = MinifloatToDouble(PrimitiveType::kBF16, lhs[i]);
        const double y = MinifloatToDouble(PrimitiveType::kBF16, rhs[i]);
        const double exact = std::string(op) == "add"        ? x + y
                             : std::string(op) == "subtract" ? x - y
                             : std::string(op) == "multiply" ? x * y
                                                             : x / y;
        const uint64_t got = (*out)[0].GetRawBits(i);
        const uint64_t want = MinifloatFromDouble(PrimitiveType::kBF16, exact);
        const bool ok =
            std::isnan(exact) ? (got & 0x7FFF) > 0x7F80 : got == want;
        if (!ok && ++wrong <= 5) {
          ADD_FAILURE() << op << "(0x" << std::hex << lhs[i] << ", 0x" << rhs[i]
                        << ") = 0x" << got << ", want 0x" << want;
        }
      }
      EXPECT_EQ(wrong, 0) << op << (swap ? " (swapped)" : "");
    }
  }
}

TEST(Elementwise, SelectOfTuplesAndScalarClampBounds) {
  auto out = CompileAndRun(R"(
HloModule m
ENTRY e {
  p = pred[] parameter(0)
  a = s32[3] parameter(1)
  lo = s32[] constant(-2)
  hi = s32[] constant(5)
  c = s32[3] clamp(lo, a, hi)
  t = (s32[3], s32[3]) tuple(a, c)
  f = (s32[3], s32[3]) tuple(c, a)
  ROOT s = (s32[3], s32[3]) select(p, t, f)
})",
                           {Literal::One(PrimitiveType::kPred),
                            Ints(PrimitiveType::kS32, {-9, 3, 9})});
  ASSERT_TRUE(out.ok()) << out.status();
  // Clamp to [-2, 5]: -9 -> -2, 3 -> 3, 9 -> 5; p = true picks (a, c).
  EXPECT_EQ(AsInts((*out)[0]), (std::vector<int64_t>{-9, 3, 9}));
  EXPECT_EQ(AsInts((*out)[1]), (std::vector<int64_t>{-2, 3, 5}));
}

TEST(Elementwise, ShortInnerLoopsCompileInTime) {
  // Regression: the innermost loop of this map has 5 iterations; forcing
  // LLVM 19's vectoriser to interleave it (4x) made it tail-fold the loop
  // into predicated scalar chains of f16 conversions, and
  // InnerLoopVectorizer::sinkScalarOperands then ran for hours. The ctest
  // timeout catches a regression; the values check the result: each valid
  // element doubled (exact in f16), the runtime size of dimension 2 kept.
  const std::string text = R"(HloModule m
add_f16 {
  a = f16[] parameter(0)
  b = f16[] parameter(1)
  ROOT r = f16[] add(a, b)
}
ENTRY e {
  p0 = f16[3,5,3] parameter(0)
  p1 = s32[] parameter(1)
  x = f16[3,5,<=3] set-dimension-size(p0, p1), dimensions={2}
  ROOT m = f16[3,5,<=3]{1,0,2} map(x, x), dimensions={0,1,2}, to_apply=add_f16
})";
  std::vector<double> values(45);
  for (int i = 0; i < 45; ++i) values[i] = i % 7 - 3;
  Literal p0(Shape::Array(PrimitiveType::kF16, {3, 5, 3}));
  for (int i = 0; i < 45; ++i) p0.SetFromDouble(i, values[i]);
  std::vector<Literal> args;
  args.push_back(std::move(p0));
  args.push_back(Literal::CreateR0<int32_t>(PrimitiveType::kS32, 2));
  auto out = CompileAndRun(text, std::move(args));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  const Literal result = (*out)[0].ToStatic();
  ASSERT_EQ(result.shape().dimensions(), (std::vector<int64_t>{3, 5, 2}));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 5; ++j) {
      for (int k = 0; k < 2; ++k) {
        EXPECT_EQ(result.GetAsDouble((i * 5 + j) * 2 + k),
                  2 * values[(i * 5 + j) * 3 + k])
            << i << "," << j << "," << k;
      }
    }
  }
}

}  // namespace
}  // namespace hloref::cpu
