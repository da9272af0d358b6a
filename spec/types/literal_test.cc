// Tests of Literal: element access, bit-exact equality and the HLO literal
// printer. Expected strings are derived by hand from XLA's printing rules
// (docs/hlo-text-format.md section 4): %.{digits10}g with a
// %.{max_digits10}g fallback for f32/f64, %.{max_digits10}g for narrow
// floats, NaN payload suffixes, and the one-line brace layout.
#include "spec/types/literal.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hloref {
namespace {

using PT = PrimitiveType;

// An array literal whose elements have the given bit patterns.
Literal FromBits(PT type, std::vector<int64_t> dims,
                 std::vector<uint64_t> bits) {
  Literal lit(Shape::Array(type, dims));
  EXPECT_EQ(lit.element_count(), static_cast<int64_t>(bits.size()));
  for (size_t i = 0; i < bits.size(); ++i) lit.SetRawBits(i, bits[i]);
  return lit;
}

std::string ScalarBits(PT type, uint64_t bits) {
  return FromBits(type, {}, {bits}).ToStringWithoutShape();
}

uint32_t F32Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

std::string F32(float f) {
  return Literal::CreateR0<float>(PT::kF32, f).ToStringWithoutShape();
}
std::string F64(double d) {
  return Literal::CreateR0<double>(PT::kF64, d).ToStringWithoutShape();
}

TEST(LiteralPrintTest, F32ShortestOfDigits10AndMaxDigits10) {
  EXPECT_EQ(F32(1.0f), "1");
  EXPECT_EQ(F32(0.5f), "0.5");
  EXPECT_EQ(F32(-3.25f), "-3.25");
  // 0.1f reads back from "0.1" (6 digits suffice).
  EXPECT_EQ(F32(0.1f), "0.1");
  // 1/3 as a float is 0.3333333432674407958984375: "0.333333" does not read
  // back, so 9 significant digits are used.
  EXPECT_EQ(F32(1.0f / 3.0f), "0.333333343");
  EXPECT_EQ(F32(1e10f), "1e+10");
  EXPECT_EQ(F32(1e-7f), "1e-07");
  // 123456789 rounds to the float 123456792; "1.23457e+08" is not it.
  EXPECT_EQ(F32(123456789.0f), "123456792");
  // FLT_MAX = 3.4028234664e38; "3.40282e+38" is ~3.5e32 away (> 1 ulp).
  EXPECT_EQ(F32(std::numeric_limits<float>::max()), "3.40282347e+38");
  EXPECT_EQ(F32(-0.0f), "-0");
  EXPECT_EQ(F32(0.0f), "0");
  EXPECT_EQ(F32(std::numeric_limits<float>::infinity()), "inf");
  EXPECT_EQ(F32(-std::numeric_limits<float>::infinity()), "-inf");
}

TEST(LiteralPrintTest, F32NanPayloads) {
  // Default quiet NaN 0x7FC00000: payload (23 mantissa bits) is 0x400000.
  EXPECT_EQ(ScalarBits(PT::kF32, 0x7FC00000), "nan");
  EXPECT_EQ(ScalarBits(PT::kF32, 0xFFC00000), "-nan");
  EXPECT_EQ(ScalarBits(PT::kF32, 0x7F800001), "nan(0x1)");
  EXPECT_EQ(ScalarBits(PT::kF32, 0x7FC00001), "nan(0x400001)");
  EXPECT_EQ(ScalarBits(PT::kF32, 0xFFFFFFFF), "-nan(0x7fffff)");
}

TEST(LiteralPrintTest, F64) {
  EXPECT_EQ(F64(0.1), "0.1");
  EXPECT_EQ(F64(1.0 / 3.0), "0.33333333333333331");
  EXPECT_EQ(F64(1e100), "1e+100");
  EXPECT_EQ(F64(-2.5), "-2.5");
  EXPECT_EQ(F64(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(ScalarBits(PT::kF64, 0x7FF8000000000000), "nan");
  EXPECT_EQ(ScalarBits(PT::kF64, 0xFFF8000000000000), "-nan");
  EXPECT_EQ(ScalarBits(PT::kF64, 0x7FF0000000000001), "nan(0x1)");
  EXPECT_EQ(ScalarBits(PT::kF64, 0x8000000000000000), "-0");
}

TEST(LiteralPrintTest, F16UsesFiveDigits) {
  EXPECT_EQ(ScalarBits(PT::kF16, 0x3C00), "1");
  // f16(0.1) = 0x2E66 = 0.0999755859375 -> 5 significant digits.
  EXPECT_EQ(ScalarBits(PT::kF16, 0x2E66), "0.099976");
  EXPECT_EQ(ScalarBits(PT::kF16, 0x7BFF), "65504");
  // Smallest subnormal 2^-24 = 5.9604644775390625e-08.
  EXPECT_EQ(ScalarBits(PT::kF16, 0x0001), "5.9605e-08");
  EXPECT_EQ(ScalarBits(PT::kF16, 0x8000), "-0");
  EXPECT_EQ(ScalarBits(PT::kF16, 0x7C00), "inf");
  EXPECT_EQ(ScalarBits(PT::kF16, 0xFC00), "-inf");
  // 10 mantissa bits; the default quiet payload is 0x200.
  EXPECT_EQ(ScalarBits(PT::kF16, 0x7E00), "nan");
  EXPECT_EQ(ScalarBits(PT::kF16, 0xFE00), "-nan");
  EXPECT_EQ(ScalarBits(PT::kF16, 0x7C01), "nan(0x1)");
  EXPECT_EQ(ScalarBits(PT::kF16, 0x7E01), "nan(0x201)");
}

TEST(LiteralPrintTest, Bf16UsesFourDigits) {
  EXPECT_EQ(ScalarBits(PT::kBF16, 0x3F80), "1");
  // 0x3DCD = 0.10009765625.
  EXPECT_EQ(ScalarBits(PT::kBF16, 0x3DCD), "0.1001");
  // 0x4049 = 3.140625.
  EXPECT_EQ(ScalarBits(PT::kBF16, 0x4049), "3.141");
  EXPECT_EQ(ScalarBits(PT::kBF16, 0xFF80), "-inf");
  // 7 mantissa bits; the default quiet payload is 0x40.
  EXPECT_EQ(ScalarBits(PT::kBF16, 0x7FC0), "nan");
  EXPECT_EQ(ScalarBits(PT::kBF16, 0xFFC0), "-nan");
  EXPECT_EQ(ScalarBits(PT::kBF16, 0x7F81), "nan(0x1)");
}

TEST(LiteralPrintTest, F8Types) {
  // f8e4m3fn: p = 4 -> 3 digits. 0x7E = 1.75 * 2^8 = 448.
  EXPECT_EQ(ScalarBits(PT::kF8E4M3FN, 0x7E), "448");
  // 0x01 = 2^-9 = 0.001953125.
  EXPECT_EQ(ScalarBits(PT::kF8E4M3FN, 0x01), "0.00195");
  // Its only NaNs are 0x7F/0xFF and never carry a payload suffix.
  EXPECT_EQ(ScalarBits(PT::kF8E4M3FN, 0x7F), "nan");
  EXPECT_EQ(ScalarBits(PT::kF8E4M3FN, 0xFF), "-nan");
  // f8e5m2: p = 3 -> 2 digits. 0x7B = 1.75 * 2^15 = 57344.
  EXPECT_EQ(ScalarBits(PT::kF8E5M2, 0x7B), "5.7e+04");
  EXPECT_EQ(ScalarBits(PT::kF8E5M2, 0x7C), "inf");
  EXPECT_EQ(ScalarBits(PT::kF8E5M2, 0x7E), "nan");
  EXPECT_EQ(ScalarBits(PT::kF8E5M2, 0x7D), "nan(0x1)");
  EXPECT_EQ(ScalarBits(PT::kF8E5M2, 0x7F), "nan(0x3)");
  // fnuz: the NaN is the negative-zero encoding, so its sign bit is set.
  EXPECT_EQ(ScalarBits(PT::kF8E4M3FNUZ, 0x80), "-nan");
  EXPECT_EQ(ScalarBits(PT::kF8E5M2FNUZ, 0x80), "-nan");
  EXPECT_EQ(ScalarBits(PT::kF8E4M3B11FNUZ, 0x80), "-nan");
  // f8e4m3fnuz: bias 8; 0x40 = 2^(8-8) = 1.
  EXPECT_EQ(ScalarBits(PT::kF8E4M3FNUZ, 0x40), "1");
  // f8e4m3 (IEEE-like, bias 7): 0x78 inf, 0x7C quiet NaN, 0x79 payload 1.
  EXPECT_EQ(ScalarBits(PT::kF8E4M3, 0x78), "inf");
  EXPECT_EQ(ScalarBits(PT::kF8E4M3, 0x7C), "nan");
  EXPECT_EQ(ScalarBits(PT::kF8E4M3, 0x79), "nan(0x1)");
  EXPECT_EQ(ScalarBits(PT::kF8E4M3, 0x38), "1");
  // f8e3m4 (bias 3, p = 5 -> 3 digits): 0x70 inf, 0x78 quiet NaN.
  EXPECT_EQ(ScalarBits(PT::kF8E3M4, 0x70), "inf");
  EXPECT_EQ(ScalarBits(PT::kF8E3M4, 0x78), "nan");
  EXPECT_EQ(ScalarBits(PT::kF8E3M4, 0x71), "nan(0x1)");
  // 0x31 = 2^0 * (1 + 1/16) = 1.0625 -> "1.06".
  EXPECT_EQ(ScalarBits(PT::kF8E3M4, 0x31), "1.06");
  // f8e8m0fnu: value 2^(e-127), p = 1 -> 2 digits; 0xFF is NaN (unsigned).
  EXPECT_EQ(ScalarBits(PT::kF8E8M0FNU, 0x7F), "1");
  EXPECT_EQ(ScalarBits(PT::kF8E8M0FNU, 0x80), "2");
  EXPECT_EQ(ScalarBits(PT::kF8E8M0FNU, 0x00), "5.9e-39");
  EXPECT_EQ(ScalarBits(PT::kF8E8M0FNU, 0xFF), "nan");
}

TEST(LiteralPrintTest, F6F4Types) {
  // f4e2m1fn: p = 2 -> 2 digits. 0x7 = 1.5 * 2^2 = 6.
  EXPECT_EQ(ScalarBits(PT::kF4E2M1FN, 0x7), "6");
  EXPECT_EQ(ScalarBits(PT::kF4E2M1FN, 0x1), "0.5");
  EXPECT_EQ(ScalarBits(PT::kF4E2M1FN, 0xF), "-6");
  EXPECT_EQ(ScalarBits(PT::kF4E2M1FN, 0x8), "-0");
  // f6e3m2fn: max 0x1F = 1.75 * 2^4 = 28. f6e2m3fn: max 1.875 * 2^2 = 7.5.
  EXPECT_EQ(ScalarBits(PT::kF6E3M2FN, 0x1F), "28");
  EXPECT_EQ(ScalarBits(PT::kF6E2M3FN, 0x1F), "7.5");
  EXPECT_EQ(ScalarBits(PT::kF6E2M3FN, 0x3F), "-7.5");
}

TEST(LiteralPrintTest, Integers) {
  EXPECT_EQ(Literal::CreateR0<int8_t>(PT::kS4, -8).ToStringWithoutShape(),
            "-8");
  EXPECT_EQ(Literal::CreateR0<uint8_t>(PT::kU4, 15).ToStringWithoutShape(),
            "15");
  EXPECT_EQ(Literal::CreateR0<int8_t>(PT::kS1, -1).ToStringWithoutShape(),
            "-1");
  EXPECT_EQ(
      Literal::CreateR0<int64_t>(PT::kS64, std::numeric_limits<int64_t>::min())
          .ToStringWithoutShape(),
      "-9223372036854775808");
  EXPECT_EQ(Literal::CreateR0<uint64_t>(PT::kU64,
                                        std::numeric_limits<uint64_t>::max())
                .ToStringWithoutShape(),
            "18446744073709551615");
  EXPECT_EQ(Literal::CreateR1<int32_t>(PT::kS32, {-1, 0, 42}).ToString(),
            "s32[3]{0} {-1, 0, 42}");
}

TEST(LiteralPrintTest, PredScalarWordsArrayDigits) {
  EXPECT_EQ(Literal::CreateR0<bool>(PT::kPred, true).ToStringWithoutShape(),
            "true");
  EXPECT_EQ(Literal::CreateR0<bool>(PT::kPred, false).ToString(),
            "pred[] false");
  EXPECT_EQ(Literal::CreateR1<bool>(PT::kPred, {true, false, true})
                .ToStringWithoutShape(),
            "{1, 0, 1}");
  std::vector<bool> v = {true, false, false, true};
  Literal p(Shape::Array(PT::kPred, {2, 2}));
  for (int i = 0; i < 4; ++i) p.SetFromInt64(i, v[i]);
  EXPECT_EQ(p.ToStringWithoutShape(), "{ { 1, 0 }, { 0, 1 } }");
  // ElementToString is for messages: words, like a scalar.
  EXPECT_EQ(p.ElementToString(1), "false");
}

TEST(LiteralPrintTest, Complex) {
  EXPECT_EQ(Literal::CreateR0<std::complex<float>>(PT::kC64, {1.0f, -2.5f})
                .ToStringWithoutShape(),
            "(1, -2.5)");
  EXPECT_EQ(Literal::CreateR0<std::complex<double>>(
                PT::kC128, {0.1, std::numeric_limits<double>::infinity()})
                .ToString(),
            "c128[] (0.1, inf)");
  EXPECT_EQ(Literal::CreateR1<std::complex<float>>(
                PT::kC64, {{1.0f, 2.0f}, {1.0f / 3.0f, -0.0f}})
                .ToStringWithoutShape(),
            "{(1, 2), (0.333333343, -0)}");
  // A NaN payload in the imaginary part shows there.
  Literal c(Shape::Scalar(PT::kC64));
  uint32_t re = F32Bits(1.0f), im = 0x7F800001;
  std::memcpy(c.mutable_raw().data(), &re, 4);
  std::memcpy(c.mutable_raw().data() + 4, &im, 4);
  EXPECT_EQ(c.ToStringWithoutShape(), "(1, nan(0x1))");
}

Literal Iota(PT type, std::vector<int64_t> dims) {
  Literal lit(Shape::Array(type, dims));
  for (int64_t i = 0; i < lit.element_count(); ++i) lit.SetFromInt64(i, i + 1);
  return lit;
}

TEST(LiteralPrintTest, RankZeroToThree) {
  EXPECT_EQ(Literal::CreateR0<float>(PT::kF32, 7.0f).ToString(), "f32[] 7");
  EXPECT_EQ(Iota(PT::kF32, {3}).ToStringWithoutShape(), "{1, 2, 3}");
  EXPECT_EQ(Iota(PT::kF32, {1}).ToStringWithoutShape(), "{1}");
  EXPECT_EQ(Iota(PT::kF32, {2, 2}).ToString(),
            "f32[2,2]{1,0} { { 1, 2 }, { 3, 4 } }");
  // A row of one element gets no inner spaces.
  EXPECT_EQ(Iota(PT::kF32, {2, 1}).ToStringWithoutShape(), "{ {1}, {2} }");
  EXPECT_EQ(Iota(PT::kF32, {1, 3}).ToStringWithoutShape(), "{ { 1, 2, 3 } }");
  EXPECT_EQ(Iota(PT::kS32, {2, 1, 2}).ToStringWithoutShape(),
            "{ { { 1, 2 } }, { { 3, 4 } } }");
  EXPECT_EQ(Iota(PT::kS32, {2, 2, 2}).ToStringWithoutShape(),
            "{ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } }");
}

TEST(LiteralPrintTest, RankFourAndFiveIndexComments) {
  EXPECT_EQ(Iota(PT::kF32, {1, 1, 1, 2}).ToStringWithoutShape(),
            "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 } } } }");
  EXPECT_EQ(Iota(PT::kS32, {2, 1, 1, 2}).ToStringWithoutShape(),
            "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 } } }, "
            "{ /*i0=1*/ { /*i1=0*/ { 3, 4 } } } }");
  EXPECT_EQ(Iota(PT::kS8, {1, 1, 1, 1, 1}).ToStringWithoutShape(),
            "{ { /*i0=0*/ { /*i1=0*/ { /*i2=0*/ {1} } } } }");
  // An empty dimension below a comment: no space after the comment.
  EXPECT_EQ(Iota(PT::kF32, {1, 0, 1, 1}).ToStringWithoutShape(),
            "{ { /*i0=0*/ } }");
}

TEST(LiteralPrintTest, EmptyArrays) {
  EXPECT_EQ(Iota(PT::kF32, {0}).ToStringWithoutShape(), "{}");
  EXPECT_EQ(Iota(PT::kF32, {0}).ToString(), "f32[0]{0} {}");
  EXPECT_EQ(Iota(PT::kF32, {0, 3}).ToStringWithoutShape(), "{  }");
  EXPECT_EQ(Iota(PT::kF32, {2, 0}).ToStringWithoutShape(), "{ {}, {} }");
}

TEST(LiteralPrintTest, LayoutIsPrintedButDoesNotReorderValues) {
  Literal lit = Iota(PT::kF32, {2, 2});
  Layout col;
  col.minor_to_major = {0, 1};
  lit.set_layout(col);
  EXPECT_EQ(lit.ToString(), "f32[2,2]{0,1} { { 1, 2 }, { 3, 4 } }");
}

TEST(LiteralPrintTest, TuplesAndTokens) {
  std::vector<Literal> elems;
  elems.push_back(Literal::CreateR0<float>(PT::kF32, 1.0f));
  elems.push_back(Literal::CreateR1<int32_t>(PT::kS32, {1, 2}));
  Literal t = Literal::MakeTuple(std::move(elems));
  EXPECT_EQ(t.ToStringWithoutShape(), "( 1, {1, 2} )");
  EXPECT_EQ(t.ToString(), "(f32[], s32[2]{0}) ( 1, {1, 2} )");
  std::vector<Literal> inner;
  inner.push_back(Literal::CreateR0<float>(PT::kF32, 1.0f));
  inner.push_back(Literal::CreateR0<bool>(PT::kPred, true));
  std::vector<Literal> outer;
  outer.push_back(Literal::MakeTuple(std::move(inner)));
  outer.push_back(Literal::Token());
  Literal nested = Literal::MakeTuple(std::move(outer));
  EXPECT_EQ(nested.ToStringWithoutShape(), "( ( 1, true ), token )");
  EXPECT_EQ(nested.ToString(),
            "((f32[], pred[]), token[]) ( ( 1, true ), token )");
  EXPECT_EQ(Literal::MakeTuple({}).ToStringWithoutShape(), "(  )");
  EXPECT_EQ(Literal::Token().ToString(), "token[] token");
}

TEST(LiteralPrintTest, Elided) {
  Literal lit(Shape::Array(PT::kF32, {20}));
  lit.set_elided(true);
  EXPECT_EQ(lit.ToStringWithoutShape(), "{...}");
  EXPECT_EQ(lit.ToString(), "f32[20]{0} {...}");
}

TEST(FormatFloatForTypeTest, MatchesElementPrinting) {
  EXPECT_EQ(FormatFloatForType(PT::kF32, 0.1f, F32Bits(0.1f)), "0.1");
  EXPECT_EQ(FormatFloatForType(PT::kBF16, 0.10009765625, 0x3DCD), "0.1001");
  EXPECT_EQ(FormatFloatForType(PT::kF16, std::nan(""), 0x7C01), "nan(0x1)");
}

TEST(LiteralAccessTest, GetAndSetAcrossTypes) {
  Literal bf(Shape::Array(PT::kBF16, {2}));
  // 1/3 rounds to bf16 0x3EAB = 0.333984375 (round to nearest even).
  bf.SetFromDouble(0, 1.0 / 3.0);
  EXPECT_EQ(bf.GetRawBits(0), 0x3EABu);
  EXPECT_EQ(bf.GetAsDouble(0), 0.333984375);
  bf.SetFromDouble(1, -2.0);
  EXPECT_EQ(bf.data<uint16_t>()[1], 0xC000);

  Literal s4(Shape::Array(PT::kS4, {3}));
  s4.SetFromInt64(0, 9);  // wraps: 9 = 0b1001 -> -7
  EXPECT_EQ(s4.GetAsInt64(0), -7);
  EXPECT_EQ(s4.GetRawBits(0), 0x9u);
  EXPECT_EQ(s4.data<int8_t>()[0], -7);  // stored sign-extended
  s4.SetRawBits(1, 0xF);
  EXPECT_EQ(s4.GetAsInt64(1), -1);
  s4.SetFromDouble(2, -8.0);
  EXPECT_EQ(s4.GetAsDouble(2), -8.0);

  Literal u4(Shape::Array(PT::kU4, {1}));
  u4.SetFromInt64(0, -1);
  EXPECT_EQ(u4.GetAsInt64(0), 15);

  Literal u64 = Literal::CreateR0<uint64_t>(PT::kU64, uint64_t{1} << 63);
  EXPECT_EQ(u64.GetAsDouble(0), 9223372036854775808.0);
  EXPECT_EQ(u64.GetRawBits(0), uint64_t{1} << 63);

  Literal f32 = Literal::CreateR0<float>(PT::kF32, -1.5f);
  EXPECT_EQ(f32.GetRawBits(0), 0xBFC00000u);
  f32.SetRawBits(0, 0x3F800000);
  EXPECT_EQ(f32.GetAsDouble(0), 1.0);

  Literal c = Literal::CreateR0<std::complex<double>>(PT::kC128, {1.5, -2});
  EXPECT_EQ(c.GetAsDouble(0), 1.5);
  EXPECT_EQ(c.GetAsComplex(0), std::complex<double>(1.5, -2));
  c.SetFromDouble(0, 3);
  EXPECT_EQ(c.GetAsComplex(0), std::complex<double>(3, 0));

  Literal m(Shape::Array(PT::kS32, {2, 3}));
  m.Set<int32_t>({1, 2}, 7);
  EXPECT_EQ(m.GetAsInt64(5), 7);
  EXPECT_EQ(m.Get<int32_t>({1, 2}), 7);
}

TEST(LiteralAccessTest, ZeroAndOne) {
  EXPECT_EQ(Literal::Zero(PT::kF32).ToString(), "f32[] 0");
  EXPECT_EQ(Literal::One(PT::kBF16).GetRawBits(0), 0x3F80u);
  EXPECT_EQ(Literal::One(PT::kPred).ToStringWithoutShape(), "true");
  EXPECT_EQ(Literal::Zero(PT::kPred).ToStringWithoutShape(), "false");
  EXPECT_EQ(Literal::One(PT::kC64).ToStringWithoutShape(), "(1, 0)");
  EXPECT_EQ(Literal::One(PT::kU2).GetAsInt64(0), 1);
  EXPECT_EQ(Literal::Zero(PT::kS64).GetAsInt64(0), 0);
}

TEST(LiteralAccessTest, CopiesAreDeep) {
  Literal a = Iota(PT::kF32, {2});
  Literal b = a;
  b.SetFromDouble(0, 9);
  EXPECT_EQ(a.GetAsDouble(0), 1.0);
  EXPECT_EQ(b.GetAsDouble(0), 9.0);
  std::vector<Literal> elems;
  elems.push_back(a);
  Literal t = Literal::MakeTuple(std::move(elems));
  Literal t2 = t;
  t2.mutable_tuple_element(0).SetFromDouble(1, 5);
  EXPECT_EQ(t.tuple_element(0).GetAsDouble(1), 2.0);
  std::vector<Literal> parts = t2.DecomposeTuple();
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].GetAsDouble(1), 5.0);
  EXPECT_EQ(t2.tuple_size(), 0);
  EXPECT_EQ(t2.shape().ToString(), "()");
}

TEST(LiteralEqualityTest, BitExact) {
  Literal nan1 = FromBits(PT::kF32, {1}, {0x7FC00000});
  Literal nan2 = FromBits(PT::kF32, {1}, {0x7FC00000});
  Literal nan3 = FromBits(PT::kF32, {1}, {0x7FC00001});
  EXPECT_TRUE(nan1 == nan2);
  EXPECT_FALSE(nan1 == nan3);
  Literal pz = FromBits(PT::kF32, {1}, {0x00000000});
  Literal nz = FromBits(PT::kF32, {1}, {0x80000000});
  EXPECT_FALSE(pz == nz);
  // Layouts are ignored; dimensions and types are not.
  Literal a = Iota(PT::kF32, {2, 2});
  Literal b = Iota(PT::kF32, {2, 2});
  Layout col;
  col.minor_to_major = {0, 1};
  b.set_layout(col);
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == Iota(PT::kF32, {4}));
  EXPECT_FALSE(a == Iota(PT::kS32, {2, 2}));
  b.SetFromDouble(3, 0);
  EXPECT_FALSE(a == b);
}

TEST(LiteralEqualityTest, TuplesTokensElided) {
  std::vector<Literal> e1, e2;
  e1.push_back(Iota(PT::kS8, {2}));
  e1.push_back(Literal::Token());
  e2.push_back(Iota(PT::kS8, {2}));
  e2.push_back(Literal::Token());
  Literal t1 = Literal::MakeTuple(std::move(e1));
  Literal t2 = Literal::MakeTuple(std::move(e2));
  EXPECT_TRUE(t1 == t2);
  t2.mutable_tuple_element(0).SetFromInt64(0, 5);
  EXPECT_FALSE(t1 == t2);
  EXPECT_TRUE(Literal::Token() == Literal::Token());
  Literal x = Iota(PT::kF32, {3});
  Literal y = Iota(PT::kF32, {3});
  y.set_elided(true);
  EXPECT_FALSE(x == y);
}

TEST(LiteralTest, UninitializedHasTheShapeAndStorageAndIsWritable) {
  // Storage of 2 x 3 f32 = 24 bytes; tuple leaves recursively; a token has
  // no data. (The bytes' values are unspecified: only sizes are checked,
  // then a write reads back.)
  Literal a = Literal::Uninitialized(Shape(PrimitiveType::kF32, {2, 3}));
  EXPECT_EQ(a.shape().ToString(),
            Shape(PrimitiveType::kF32, {2, 3}).ToString());
  EXPECT_EQ(a.raw().size(), 24u);
  for (int64_t k = 0; k < 6; ++k) {
    a.mutable_data<float>()[k] = static_cast<float>(k);
  }
  EXPECT_EQ(a.data<float>()[5], 5.0f);
  Literal t = Literal::Uninitialized(
      Shape::Tuple({Shape(PrimitiveType::kS8, {5}), Shape::Token()}));
  ASSERT_EQ(t.tuple_elements().size(), 2u);
  EXPECT_EQ(t.tuple_elements()[0].raw().size(), 5u);
  EXPECT_TRUE(t.tuple_elements()[1].raw().empty());
}

TEST(LiteralTest, StorageIsLineAlignedAndCopiesAreDeepAndEqual) {
  // Array storage starts on a 64-byte line (kernels read literals in
  // place); a copy (construction and assignment) holds the same bytes in
  // its own storage, and writing the copy leaves the original unchanged.
  for (int64_t n : {1, 3, 17, 1000}) {
    Literal a = Iota(PT::kF32, {n});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.raw().data()) % 64, 0u) << n;
    Literal b = a;
    EXPECT_TRUE(a == b);
    EXPECT_NE(a.raw().data(), b.raw().data());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.raw().data()) % 64, 0u) << n;
    Literal c(Shape(PT::kF32, {2}));
    c = b;
    EXPECT_TRUE(c == a);
    c.mutable_data<float>()[0] = 42.0f;
    EXPECT_EQ(a.data<float>()[0], 1.0f);  // Iota counts from 1
    EXPECT_FALSE(c == a);
  }
  // Literal(shape) is all zero bits, whatever the allocator leaves.
  Literal z(Shape(PT::kS32, {257}));
  for (int64_t k = 0; k < 257; ++k) EXPECT_EQ(z.data<int32_t>()[k], 0);
}

// Typed access follows the aliasing rules (issue 17, no
// -fno-strict-aliasing): the storage type, its signed or unsigned
// counterpart and unsigned char are accepted; a float literal read as
// uint32_t, or a u8 literal read as bool, is an internal error.
TEST(LiteralTypedAccessTest, OnlyTypesThatMayAliasTheStorage) {
  Literal u = Literal::CreateR1<uint32_t>(PT::kU32, {0xFFFFFFFFu, 7u});
  EXPECT_EQ(u.data<int32_t>()[0], -1);  // counterpart: same bits
  EXPECT_EQ(u.data<uint32_t>()[1], 7u);
  Literal p = Literal::CreateR1<bool>(PT::kPred, {true, false});
  EXPECT_EQ(p.data<uint8_t>()[0], 1u);  // unsigned char reads any object
  Literal s8 = Literal::CreateR1<int8_t>(PT::kS8, {-1});
  EXPECT_EQ(s8.data<uint8_t>()[0], 0xFFu);
  Literal f = Literal::CreateR1<float>(PT::kF32, {1.0f});
  EXPECT_DEATH(f.data<uint32_t>(), "internal invariant failed");
  EXPECT_DEATH(f.mutable_data<int32_t>(), "internal invariant failed");
  Literal u8 = Literal::CreateR1<uint8_t>(PT::kU8, {2});
  EXPECT_DEATH(u8.data<bool>(), "internal invariant failed");
  EXPECT_DEATH(p.data<int8_t>(), "internal invariant failed");
  Literal d = Literal::CreateR0<double>(PT::kF64, 1.0);
  EXPECT_DEATH(d.data<uint64_t>(), "internal invariant failed");
  EXPECT_DEATH(d.data<int64_t>(), "internal invariant failed");
}

// After ReinterpretAs to another storage type the new type's view reads
// the old bits (1.0f = 0x3F800000, -0.0f = 0x80000000: IEEE 754 binary32),
// and the old type's view is refused.
TEST(LiteralTypedAccessTest, ReinterpretAsStartsTheNewType) {
  Literal f = Literal::CreateR1<float>(PT::kF32, {1.0f, -0.0f});
  ASSERT_TRUE(f.ReinterpretAs(Shape::Array(PT::kS32, {2})).ok());
  EXPECT_EQ(f.data<int32_t>()[0], 0x3F800000);
  EXPECT_EQ(f.data<uint32_t>()[1], 0x80000000u);
  EXPECT_DEATH(f.data<float>(), "internal invariant failed");
  f.mutable_data<int32_t>()[0] = 0x40000000;  // 2.0f
  ASSERT_TRUE(f.ReinterpretAs(Shape::Array(PT::kF32, {2})).ok());
  EXPECT_EQ(f.data<float>()[0], 2.0f);
  EXPECT_TRUE(std::signbit(f.data<float>()[1]));
}

// Moves hand over the block; a moved-from literal storage is empty, and a
// zero-element array has no block at all.
TEST(LiteralTypedAccessTest, MovesAndEmptyStorage) {
  Literal a = Literal::CreateR1<float>(PT::kF32, {3.0f, 4.0f});
  const uint8_t* block = a.raw().data();
  Literal b = std::move(a);
  EXPECT_EQ(b.raw().data(), block);
  EXPECT_EQ(b.data<float>()[1], 4.0f);
  Literal c(Shape(PT::kF32, {1}));
  c = std::move(b);
  EXPECT_EQ(c.raw().data(), block);
  Literal e(Shape(PT::kF32, {0}));
  EXPECT_TRUE(e.raw().empty());
  EXPECT_TRUE(e.data<float>().empty());
  Literal e2 = e;
  EXPECT_TRUE(e2 == e);
}

// ReinterpretAs: a new shape over the same storage, no copy.
TEST(LiteralReinterpretTest, KeepsTheStorage) {
  Literal lit =
      Literal::CreateFromValues<int32_t>(PT::kS32, {2, 3}, {0, 1, 2, 3, 4, 5});
  const uint8_t* storage = lit.raw().data();
  Shape to = Shape::Array(PT::kS32, {3, 1, 2});
  to.set_layout(Layout::Descending(3));
  ASSERT_TRUE(lit.ReinterpretAs(to).ok());
  EXPECT_EQ(lit.raw().data(), storage);  // the same buffer
  EXPECT_EQ(lit.shape(), to);
  EXPECT_EQ(lit.ToStringWithoutShape(),
            "{ { { 0, 1 } }, { { 2, 3 } }, { { 4, 5 } } }");
  // Another type of the same storage width: the bits carry over.
  // 1.0f = 0x3F800000, -2.0f = 0xC0000000.
  Literal f = Literal::CreateR1<float>(PT::kF32, {1.0f, -2.0f});
  ASSERT_TRUE(f.ReinterpretAs(Shape::Array(PT::kU32, {2})).ok());
  EXPECT_EQ(f.GetRawBits(0), 0x3F800000u);
  EXPECT_EQ(f.GetRawBits(1), 0xC0000000u);
  // A width change: u32 -> u8[2,4], little-endian bytes of each word.
  ASSERT_TRUE(f.ReinterpretAs(Shape::Array(PT::kU8, {2, 4})).ok());
  EXPECT_EQ(f.ToStringWithoutShape(),
            "{ { 0, 0, 128, 63 }, { 0, 0, 0, 192 } }");
  // A bounded dynamic shape: runtime sizes are the bounds.
  Shape bounded = Shape::Array(PT::kU8, {8});
  bounded.set_dynamic_dimension(0, true);
  ASSERT_TRUE(f.ReinterpretAs(bounded).ok());
  EXPECT_EQ(f.GetDynamicSize(0), 8);
  EXPECT_FALSE(f.HasPadding());
}

TEST(LiteralReinterpretTest, RefusesWhatWouldNotBeTheSameValue) {
  Literal lit = Literal::CreateR1<int32_t>(PT::kS32, {1, 2});
  const Literal before = lit;
  auto refused = [&](const Shape& to, const std::string& why) {
    absl::Status s = lit.ReinterpretAs(to);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << to.ToString();
    EXPECT_NE(s.message().find(why), std::string::npos) << s.message();
    EXPECT_TRUE(lit.BitwiseEquals(before));  // unchanged
    EXPECT_EQ(lit.shape(), before.shape());
  };
  refused(Shape::Array(PT::kS32, {3}),
          "takes 12 bytes of storage, the literal holds 8");
  refused(Shape::Array(PT::kPred, {8}), "not a valid pred");
  refused(Shape::Array(PT::kS4, {8}), "s4 does not use every bit");
  refused(Shape::Tuple({}), "both shapes must be arrays");
  Literal s4(Shape::Array(PT::kS4, {4}));
  EXPECT_NE(s4.CheckReinterpretAs(Shape::Array(PT::kU8, {4}))
                .message()
                .find("s4 does not use every bit"),
            std::string::npos);
  // The same sub-byte type is fine (only the dimensions change).
  EXPECT_TRUE(s4.ReinterpretAs(Shape::Array(PT::kS4, {2, 2})).ok());
  // Padding is not part of the value: a padded literal is refused.
  Shape bounded = Shape::Array(PT::kS32, {2});
  bounded.set_dynamic_dimension(0, true);
  absl::StatusOr<Literal> padded = Literal::ToBoundedDynamic(
      Literal::CreateR1<int32_t>(PT::kS32, {7}), bounded);
  ASSERT_TRUE(padded.ok()) << padded.status();
  EXPECT_NE(padded->CheckReinterpretAs(Shape::Array(PT::kS32, {2}))
                .message()
                .find("padding"),
            std::string::npos);
}

}  // namespace
}  // namespace hloref
