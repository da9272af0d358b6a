// The convert family on the CPU backend, end to end, against values derived
// by hand (each test shows the derivation): XLA's double rounding through
// f16 for some f8 targets, the single rounding of 64-bit integers to narrow
// floats, float -> int saturation and NaN -> 0, bitcast-convert splits and
// joins, reduce-precision and stochastic-convert.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_test_util.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::cpu {
namespace {

// A literal of `type` and `dims` from raw bit patterns (row-major).
Literal FromBits(PrimitiveType type, std::vector<int64_t> dims,
                 const std::vector<uint64_t>& bits) {
  Literal lit(Shape::Array(type, dims));
  for (size_t i = 0; i < bits.size(); ++i) {
    lit.SetRawBits(static_cast<int64_t>(i), bits[i]);
  }
  return lit;
}

uint64_t F32Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint64_t F64Bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

TEST(Convert, F32ToF8e4m3fnRoundsThroughF16) {
  // x = 1.0625 + 2^-12. f8e4m3fn's grid near 1 has step 1/8, so the
  // midpoint of 1 (0x38) and 1.125 (0x39) is 1.0625 and x, above it,
  // rounds directly to 0x39. XLA rounds to f16 first (step 2^-10): x is a
  // quarter step above 1.0625, so f16 gives 1.0625 exactly, a tie that goes
  // to the even encoding 1.0 = 0x38. f8e4m3 (not f16-only) gets 0x39.
  const float x = 1.0625f + 0x1p-12f;
  auto out = CompileAndRun(R"(
HloModule m
ENTRY e {
  a = f32[1] parameter(0)
  c = f8e4m3fn[1] convert(a)
  d = f8e4m3[1] convert(a)
  ROOT t = (f8e4m3fn[1], f8e4m3[1]) tuple(c, d)
})",
                           {FromBits(PrimitiveType::kF32, {1}, {F32Bits(x)})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Bits((*out)[0]), std::vector<uint64_t>{0x38});
  EXPECT_EQ(Bits((*out)[1]), std::vector<uint64_t>{0x39});
}

TEST(Convert, S64ToBf16RoundsOnce) {
  // v = 2^60 + 2^52 + 1. bf16 keeps 8 significant bits: near 2^60 its step
  // is 2^53, so v is just above the midpoint 2^60 + 2^52 and rounds up to
  // 2^60 + 2^53 = exponent 60 (biased 187), fraction 0000001: 0x5D81.
  // (Rounding to f64 first would give the midpoint, then 2^60 = 0x5D80.)
  // -v gives 0xDD81.
  const int64_t v = (int64_t{1} << 60) + (int64_t{1} << 52) + 1;
  auto out = CompileAndRun(
      R"(
HloModule m
ENTRY e {
  a = s64[2] parameter(0)
  ROOT c = bf16[2] convert(a)
})",
      {FromBits(PrimitiveType::kS64, {2},
                {static_cast<uint64_t>(v), static_cast<uint64_t>(-v)})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Bits((*out)[0]), (std::vector<uint64_t>{0x5D81, 0xDD81}));
}

TEST(Convert, FloatToIntSaturatesAndNanIsZero) {
  // Truncation toward zero; out of range saturates; NaN -> 0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> in = {-200.5f, 127.9f, -128.9f, nan,
                           3.99f,   -3.99f, inf,     -inf};
  std::vector<uint64_t> in_bits;
  for (float f : in) in_bits.push_back(F32Bits(f));
  auto out = CompileAndRun(R"(
HloModule m
ENTRY e {
  a = f32[8] parameter(0)
  s = s8[8] convert(a)
  u = u8[8] convert(a)
  p = pred[8] convert(a)
  ROOT t = (s8[8], u8[8], pred[8]) tuple(s, u, p)
})",
                           {FromBits(PrimitiveType::kF32, {8}, in_bits)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<int64_t> s;
  for (int64_t i = 0; i < 8; ++i) s.push_back((*out)[0].GetAsInt64(i));
  EXPECT_EQ(s, (std::vector<int64_t>{-128, 127, -128, 0, 3, -3, 127, -128}));
  EXPECT_EQ(Bits((*out)[1]),
            (std::vector<uint64_t>{0, 127, 0, 0, 3, 0, 255, 0}));
  // pred: x != 0, NaN -> true.
  EXPECT_EQ(Bits((*out)[2]), (std::vector<uint64_t>{1, 1, 1, 1, 1, 1, 1, 1}));
}

TEST(Convert, F64ToU64Range) {
  // 2^64 saturates to 2^64 - 1; 2^63 is in range; -1 gives 0.
  auto out = CompileAndRun(
      R"(
HloModule m
ENTRY e {
  a = f64[3] parameter(0)
  ROOT c = u64[3] convert(a)
})",
      {FromBits(PrimitiveType::kF64, {3},
                {F64Bits(0x1p64), F64Bits(0x1p63), F64Bits(-1.0)})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Bits((*out)[0]),
            (std::vector<uint64_t>{~uint64_t{0}, uint64_t{1} << 63, 0}));
}

TEST(BitcastConvert, SplitAndJoin) {
  // Split: the lowest-order byte first (little-endian stream). Join of s4
  // pairs: index 0 in the low nibble: {1, -1} -> 0xF1, {-8, 7} -> 0x78.
  // f32 1.0 (0x3F800000) split into bf16: {0x0000, 0x3F80}.
  auto out = CompileAndRun(
      R"(
HloModule m
ENTRY e {
  a = u32[2] parameter(0)
  b = s4[2,2] parameter(1)
  f = f32[1] parameter(2)
  x = u8[2,4] bitcast-convert(a)
  y = u8[2] bitcast-convert(b)
  z = bf16[1,2] bitcast-convert(f)
  ROOT t = (u8[2,4], u8[2], bf16[1,2]) tuple(x, y, z)
})",
      {FromBits(PrimitiveType::kU32, {2}, {0x11223344, 0xAABBCCDD}),
       FromBits(PrimitiveType::kS4, {2, 2}, {1, 0xFF, 0xF8, 7}),
       FromBits(PrimitiveType::kF32, {1}, {F32Bits(1.0f)})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Bits((*out)[0]), (std::vector<uint64_t>{0x44, 0x33, 0x22, 0x11,
                                                    0xDD, 0xCC, 0xBB, 0xAA}));
  EXPECT_EQ(Bits((*out)[1]), (std::vector<uint64_t>{0xF1, 0x78}));
  EXPECT_EQ(Bits((*out)[2]), (std::vector<uint64_t>{0x0000, 0x3F80}));
}

TEST(BitcastConvert, NanPayloadsSurvive) {
  // A signalling f16 NaN 0x7C01 and the f8e4m3fn NaN 0xFF keep their bits
  // through same-width bitcasts (no float conversion on the way).
  auto out = CompileAndRun(R"(
HloModule m
ENTRY e {
  a = u16[1] parameter(0)
  h = f16[1] bitcast-convert(a)
  ROOT back = s16[1] bitcast-convert(h)
})",
                           {FromBits(PrimitiveType::kU16, {1}, {0x7C01})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Bits((*out)[0]), std::vector<uint64_t>{0x7C01});
}

TEST(ReducePrecision, F32ToF16Parameters) {
  // exponent_bits=5, mantissa_bits=10 on f32:
  //   1 + 2^-11: a tie between 1 and 1 + 2^-10 -> even: 1
  //   1 + 3*2^-11: a tie between 1 + 2^-10 (odd) and 1 + 2^-9 -> 1 + 2^-9
  //   65520: rounds to 65536 = 2^16, above f16's exponent range -> inf
  //   1e-6: below f16's smallest normal, no subnormals -> 0
  //   -1e-6 -> -0
  auto out = CompileAndRun(
      R"(
HloModule m
ENTRY e {
  a = f32[5] parameter(0)
  ROOT r = f32[5] reduce-precision(a), exponent_bits=5, mantissa_bits=10
})",
      {FromBits(PrimitiveType::kF32, {5},
                {F32Bits(1.0f + 0x1p-11f), F32Bits(1.0f + 3 * 0x1p-11f),
                 F32Bits(65520.0f), F32Bits(1e-6f), F32Bits(-1e-6f)})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Bits((*out)[0]),
            (std::vector<uint64_t>{F32Bits(1.0f), F32Bits(1.0f + 0x1p-9f),
                                   0x7F800000, 0, 0x80000000}));
}

TEST(StochasticConvert, RoundsUpWhenRandomBelowFraction) {
  // x = 2.25: whole 2, fraction 0.25 -> 0.25 * 2^32 = 2^30; random bits
  // below 2^30 round up. Negative values round the magnitude and negate.
  // 3e10 saturates to 2^31 - 1; NaN gives 0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = CompileAndRun(
      R"(
HloModule m
ENTRY e {
  a = f32[6] parameter(0)
  r = u32[6] parameter(1)
  ROOT c = s32[6] stochastic-convert(a, r)
})",
      {FromBits(PrimitiveType::kF32, {6},
                {F32Bits(2.25f), F32Bits(2.25f), F32Bits(-2.25f),
                 F32Bits(-2.25f), F32Bits(3e10f), F32Bits(nan)}),
       FromBits(PrimitiveType::kU32, {6},
                {(1u << 30) - 1, 1u << 30, 0, 1u << 30, 0, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<int64_t> got;
  for (int64_t i = 0; i < 6; ++i) got.push_back((*out)[0].GetAsInt64(i));
  EXPECT_EQ(got, (std::vector<int64_t>{3, 2, -3, -2, 2147483647, 0}));
}

}  // namespace
}  // namespace hloref::cpu
