// Tests of the kShape family evaluators (interpreter/ops/shape.cc): every
// element type class, zero-size and rank-0 cases, and seed 001's Reshape,
// Collapse and Iota examples. Expected values are derived by hand.
#include "interpreter/ops/shape.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using testing_dm::Arr;
using testing_dm::ExpectRootEquals;
using testing_dm::Lit;
using testing_dm::OneConstantModule;
using testing_dm::RunHlo;
using testing_dm::Shp;
using testing_dm::SweepTypes;

// ---- broadcast ----------------------------------------------------------

TEST(BroadcastInDim, EveryTypeAlongEachDimension) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    // Operand dimension 0 -> result dimension 1: rows repeat.
    ExpectRootEquals(
        OneConstantModule(t, {3}, {1, 2, 3},
                          absl::StrCat("ROOT b = ", Shp(t, {2, 3}),
                                       " broadcast(c), dimensions={1}")),
        Arr(t, {2, 3}, {1, 2, 3, 1, 2, 3}));
    // Operand dimension 0 -> result dimension 0: columns repeat.
    ExpectRootEquals(
        OneConstantModule(t, {3}, {1, 2, 3},
                          absl::StrCat("ROOT b = ", Shp(t, {3, 2}),
                                       " broadcast(c), dimensions={0}")),
        Arr(t, {3, 2}, {1, 1, 2, 2, 3, 3}));
  }
}

// Long rows: the copy's contiguous-row path (operand dimension -> last
// result dimension) and its repeated-element path (a value repeated along
// a last dimension of 16 or more: written by doubling copies; 37 is not a
// power of two), for every element size; expected values written out by
// the test's loops.
TEST(BroadcastInDim, LongRowsEveryType) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    std::vector<int64_t> row, rows, cols;
    for (int64_t j = 0; j < 37; ++j) row.push_back(j % 8);
    for (int64_t i = 0; i < 3; ++i)
      rows.insert(rows.end(), row.begin(), row.end());
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 37; ++j) cols.push_back(i + 1);
    }
    ExpectRootEquals(
        OneConstantModule(t, {37}, row,
                          absl::StrCat("ROOT b = ", Shp(t, {3, 37}),
                                       " broadcast(c), dimensions={1}")),
        Arr(t, {3, 37}, rows));
    ExpectRootEquals(
        OneConstantModule(t, {3}, {1, 2, 3},
                          absl::StrCat("ROOT b = ", Shp(t, {3, 37}),
                                       " broadcast(c), dimensions={0}")),
        Arr(t, {3, 37}, cols));
  }
}

TEST(BroadcastInDim, ScalarAndRank3) {
  // Seed 001 Broadcast: scalar 2.0 to f32[2,3] gives all 2.0.
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = f32[] constant(2)
  ROOT b = f32[2,3] broadcast(c), dimensions={}
})",
                   "f32[2,3] {{2, 2, 2}, {2, 2, 2}}");
  // [2,2] into dims {0,2} of [2,3,2]: result[i,j,k] = operand[i,k].
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = s32[2,2] constant({{1, 2}, {3, 4}})
  ROOT b = s32[2,3,2] broadcast(c), dimensions={0,2}
})",
                   "s32[2,3,2] {{{1, 2}, {1, 2}, {1, 2}}, "
                   "{{3, 4}, {3, 4}, {3, 4}}}");
}

TEST(BroadcastInDim, ZeroSize) {
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = f32[0] constant({})
  ROOT b = f32[2,0] broadcast(c), dimensions={1}
})",
                   "f32[2,0] {{}, {}}");
}

// ---- reshape ------------------------------------------------------------

// Seed 001 Reshape's v: f32[4x2x3].
constexpr char kV[] =
    "f32[4,2,3] {{{10, 11, 12}, {15, 16, 17}}, {{20, 21, 22}, {25, 26, 27}},"
    " {{30, 31, 32}, {35, 36, 37}}, {{40, 41, 42}, {45, 46, 47}}}";

std::string ReshapeModule(const std::string& body) {
  return absl::StrCat("HloModule m\nENTRY e {\n  v = f32[4,2,3] constant(",
                      std::string(kV).substr(11), ")\n", body, "\n}\n");
}

TEST(Reshape, SeedInOrderCollapse) {
  ExpectRootEquals(ReshapeModule("  ROOT r = f32[24] reshape(v)"),
                   "f32[24] {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27,"
                   " 30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47}");
  ExpectRootEquals(ReshapeModule("  ROOT r = f32[8,3] reshape(v)"),
                   "f32[8,3] {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, "
                   "{25, 26, 27}, {30, 31, 32}, {35, 36, 37}, {40, 41, 42}, "
                   "{45, 46, 47}}");
}

// Reshape(v, {1,2,0}, sizes) reaches HLO as transpose(v, {1,2,0}) and a
// row-major reshape.
TEST(Reshape, SeedOutOfOrderCollapseAsTransposeReshape) {
  const std::string t = "  t = f32[2,3,4] transpose(v), dimensions={1,2,0}\n";
  ExpectRootEquals(ReshapeModule(t + "  ROOT r = f32[24] reshape(t)"),
                   "f32[24] {10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42,"
                   " 15, 25, 35, 45, 16, 26, 36, 46, 17, 27, 37, 47}");
  ExpectRootEquals(ReshapeModule(t + "  ROOT r = f32[8,3] reshape(t)"),
                   "f32[8,3] {{10, 20, 30}, {40, 11, 21}, {31, 41, 12}, "
                   "{22, 32, 42}, {15, 25, 35}, {45, 16, 26}, {36, 46, 17}, "
                   "{27, 37, 47}}");
  ExpectRootEquals(ReshapeModule(t + "  ROOT r = f32[2,6,2] reshape(t)"),
                   "f32[2,6,2] {{{10, 20}, {30, 40}, {11, 21}, {31, 41}, "
                   "{12, 22}, {32, 42}}, {{15, 25}, {35, 45}, {16, 26}, "
                   "{36, 46}, {17, 27}, {37, 47}}}");
}

// Seed 001 Collapse examples: collapsing consecutive dimensions is a
// row-major reshape.
TEST(Reshape, SeedCollapse) {
  ExpectRootEquals(ReshapeModule("  ROOT r = f32[4,6] reshape(v)"),
                   "f32[4,6] {{10, 11, 12, 15, 16, 17}, "
                   "{20, 21, 22, 25, 26, 27}, {30, 31, 32, 35, 36, 37}, "
                   "{40, 41, 42, 45, 46, 47}}");
  ExpectRootEquals(ReshapeModule("  ROOT r = f32[8,3] reshape(v)"),
                   "f32[8,3] {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, "
                   "{25, 26, 27}, {30, 31, 32}, {35, 36, 37}, {40, 41, 42}, "
                   "{45, 46, 47}}");
}

TEST(Reshape, SeedScalarCases) {
  // Reshape(f32[1x1] {{5}}, {0,1}, {}) == 5 and back.
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = f32[1,1] constant({{5}})
  ROOT r = f32[] reshape(c)
})",
                   "f32[] 5");
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = f32[] constant(5)
  ROOT r = f32[1,1] reshape(c)
})",
                   "f32[1,1] {{5}}");
}

TEST(Reshape, EveryTypeAndZeroSize) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    ExpectRootEquals(OneConstantModule(t, {2, 3}, {0, 1, 2, 3, 4, 5},
                                       absl::StrCat("ROOT r = ", Shp(t, {3, 2}),
                                                    " reshape(c)")),
                     Arr(t, {3, 2}, {0, 1, 2, 3, 4, 5}));
  }
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = s32[0,3] constant({})
  ROOT r = s32[3,0] reshape(c)
})",
                   "s32[3,0] {{}, {}, {}}");
}

// ---- transpose ----------------------------------------------------------

TEST(Transpose, EveryType) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    // result[i,j] = operand[j,i].
    ExpectRootEquals(
        OneConstantModule(t, {2, 3}, {0, 1, 2, 3, 4, 5},
                          absl::StrCat("ROOT r = ", Shp(t, {3, 2}),
                                       " transpose(c), dimensions={1,0}")),
        Arr(t, {3, 2}, {0, 3, 1, 4, 2, 5}));
  }
}

TEST(Transpose, Rank3ZeroSizeAndRank0) {
  // dimensions={2,0,1}: result[i,j,k] = operand[j,k,i] with operand
  // [2,2,2] holding 100*a+10*b+c at [a,b,c].
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = s32[2,2,2] constant({{{0, 1}, {10, 11}}, {{100, 101}, {110, 111}}})
  ROOT r = s32[2,2,2] transpose(c), dimensions={2,0,1}
})",
                   "s32[2,2,2] {{{0, 10}, {100, 110}}, {{1, 11}, {101, 111}}}");
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = f32[0,2] constant({})
  ROOT r = f32[2,0] transpose(c), dimensions={1,0}
})",
                   "f32[2,0] {{}, {}}");
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = f32[] constant(7)
  ROOT r = f32[] transpose(c), dimensions={}
})",
                   "f32[] 7");
}

// ---- reverse ------------------------------------------------------------

TEST(Rev, EveryType) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    ExpectRootEquals(
        OneConstantModule(t, {2, 3}, {0, 1, 2, 3, 4, 5},
                          absl::StrCat("ROOT r = ", Shp(t, {2, 3}),
                                       " reverse(c), dimensions={1}")),
        Arr(t, {2, 3}, {2, 1, 0, 5, 4, 3}));
    ExpectRootEquals(
        OneConstantModule(t, {2, 3}, {0, 1, 2, 3, 4, 5},
                          absl::StrCat("ROOT r = ", Shp(t, {2, 3}),
                                       " reverse(c), dimensions={0,1}")),
        Arr(t, {2, 3}, {5, 4, 3, 2, 1, 0}));
  }
}

TEST(Rev, ZeroSizeAndRank0) {
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = f32[3,0] constant({{}, {}, {}})
  ROOT r = f32[3,0] reverse(c), dimensions={0,1}
})",
                   "f32[3,0] {{}, {}, {}}");
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  c = s8[] constant(-3)
  ROOT r = s8[] reverse(c), dimensions={}
})",
                   "s8[] -3");
}

// ---- iota ---------------------------------------------------------------

TEST(Iota, SeedExamples) {
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  ROOT i = s32[4,8] iota(), iota_dimension=0
})",
                   "s32[4,8] {{0, 0, 0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1, "
                   "1}, {2, 2, 2, 2, 2, 2, 2, 2}, {3, 3, 3, 3, 3, 3, 3, 3}}");
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  ROOT i = s32[4,8] iota(), iota_dimension=1
})",
                   "s32[4,8] {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, "
                   "7}, {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}}");
}

TEST(Iota, EveryTypeClass) {
  for (const char* t : {"u8", "s16", "u64", "f16", "bf16", "f32", "f64",
                        "f8e4m3fn", "f8e5m2"}) {
    SCOPED_TRACE(t);
    ExpectRootEquals(absl::StrCat("HloModule m\nENTRY e {\n  ROOT i = ", t,
                                  "[2,3] iota(), iota_dimension=1\n}\n"),
                     absl::StrCat(t, "[2,3] {{0, 1, 2}, {0, 1, 2}}"));
  }
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  ROOT i = c64[3] iota(), iota_dimension=0
})",
                   "c64[3] {(0, 0), (1, 0), (2, 0)}");
}

TEST(Iota, ConversionWrapsAndRounds) {
  // Integers wrap as a conversion from a wide integer does: 200 in s8 is
  // -56, 256 in u8 is 0.
  absl::StatusOr<EvalResult> s8 = RunHlo(R"(HloModule m
ENTRY e {
  ROOT i = s8[300] iota(), iota_dimension=0
})");
  ASSERT_TRUE(s8.ok()) << s8.status();
  EXPECT_EQ(s8->value.data<int8_t>()[127], 127);
  EXPECT_EQ(s8->value.data<int8_t>()[200], -56);
  EXPECT_EQ(s8->value.data<int8_t>()[299], 43);
  absl::StatusOr<EvalResult> u8 = RunHlo(R"(HloModule m
ENTRY e {
  ROOT i = u8[300] iota(), iota_dimension=0
})");
  ASSERT_TRUE(u8.ok()) << u8.status();
  EXPECT_EQ(u8->value.data<uint8_t>()[256], 0);
  EXPECT_EQ(u8->value.data<uint8_t>()[299], 43);
  // f8e4m3fn: 17 lies halfway between 16 and 18 and goes to the even 16;
  // 464 lies halfway between 448 (the maximum, mantissa 110) and the
  // unrepresentable 480 (mantissa 111): the tie goes to the even 448. From
  // 465 on the value overflows,
  // which XLA turns into NaN (0x7f) and we mark impl.iota.1.
  EvaluatorOptions options;
  options.profile = Profile::kPortable;
  absl::StatusOr<EvalResult> f8 = RunHlo(R"(HloModule m
ENTRY e {
  ROOT i = f8e4m3fn[470] iota(), iota_dimension=0
})",
                                         {}, options);
  ASSERT_TRUE(f8.ok()) << f8.status();
  const Literal& v = f8->value;
  EXPECT_EQ(v.GetAsDouble(16), 16.0);
  EXPECT_EQ(v.GetAsDouble(17), 16.0);
  EXPECT_EQ(v.GetAsDouble(18), 18.0);
  EXPECT_EQ(v.GetAsDouble(463), 448.0);
  EXPECT_EQ(v.GetAsDouble(464), 448.0);
  EXPECT_EQ(v.GetRawBits(465) & 0x7f, 0x7fu);
  ASSERT_EQ(f8->outputs.size(), 1u);
  ASSERT_TRUE(f8->outputs[0].dont_care.has_value());
  const Literal& mask = *f8->outputs[0].dont_care;
  EXPECT_EQ(mask.GetAsInt64(464), 0);
  EXPECT_EQ(mask.GetAsInt64(465), 1);
  EXPECT_EQ(mask.GetAsInt64(469), 1);
  EXPECT_EQ(mask.GetAsInt64(0), 0);
  EXPECT_EQ(f8->outputs[0].impl_ids, std::vector<std::string>{"impl.iota.1"});
}

TEST(Iota, ZeroSize) {
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  ROOT i = f32[0,3] iota(), iota_dimension=1
})",
                   "f32[0,3] {}");
}

// ---- copy / bitcast -----------------------------------------------------

TEST(Copy, EveryTypeAndLayoutChange) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    ExpectRootEquals(OneConstantModule(t, {2, 2}, {0, 1, 2, 3},
                                       absl::StrCat("ROOT r = ", Shp(t, {2, 2}),
                                                    "{0,1} copy(c)")),
                     Arr(t, {2, 2}, {0, 1, 2, 3}));
  }
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  a = f32[] constant(1)
  b = s32[2] constant({2, 3})
  t = (f32[], s32[2]) tuple(a, b)
  ROOT r = (f32[], s32[2]) copy(t)
})",
                   "(f32[], s32[2]) (1, {2, 3})");
}

TEST(Bitcast, LayoutReinterpretation) {
  // f32[2,3]{1,0} holds a00 a01 a02 a10 a11 a12 in memory; read as
  // f32[3,2]{0,1} (dimension 0 fastest) that memory is r00 r10 r20 r01 r11
  // r21, so r is the transpose of a.
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  a = f32[2,3]{1,0} constant({{1, 2, 3}, {4, 5, 6}})
  ROOT r = f32[3,2]{0,1} bitcast(a)
})",
                   "f32[3,2] {{1, 4}, {2, 5}, {3, 6}}");
  // Same physical order: a row-major reshape.
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  a = s8[2,3]{1,0} constant({{1, 2, 3}, {4, 5, 6}})
  ROOT r = s8[6]{0} bitcast(a)
})",
                   "s8[6] {1, 2, 3, 4, 5, 6}");
}

TEST(Bitcast, ElementTypeChange) {
  // 1.0f is 0x3f800000 = 1065353216; -2.0f is 0xc0000000 = 3221225472.
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  a = f32[2]{0} constant({1, -2})
  ROOT r = u32[2]{0} bitcast(a)
})",
                   "u32[2] {1065353216, 3221225472}");
}

// ---- dimension sizes ----------------------------------------------------

TEST(GetDimensionSize, StaticShape) {
  ExpectRootEquals(
      R"(HloModule m
ENTRY e {
  a = f32[3,5] parameter(0)
  ROOT r = s32[] get-dimension-size(a), dimensions={1}
})",
      "s32[] 5", [] {
        std::vector<Literal> args;
        args.push_back(Literal(Shape::Array(PrimitiveType::kF32, {3, 5})));
        return args;
      }());
}

TEST(SetDimensionSize, SizeEqualToBoundPassesThrough) {
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  n = s32[] constant(3)
  ROOT r = f32[<=3] set-dimension-size(a, n), dimensions={0}
})",
                   "f32[3] {1, 2, 3}");
}

TEST(SetDimensionSize, SmallerSizeSetsTheRuntimeSize) {
  // Runtime sizes are modelled (interpreter/dynamic_sizes.h; more in
  // interpreter/dynamic_shapes_test.cc): the value is {1, 2}, element 2 is
  // padding.
  absl::StatusOr<EvalResult> result = RunHlo(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  n = s32[] constant(2)
  ROOT r = f32[<=3] set-dimension-size(a, n), dimensions={0}
})");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->value.GetDynamicSize(0), 2);
  EXPECT_EQ(result->value.ToString(), "f32[<=3]{0}(2) {1, 2}");
}

}  // namespace
}  // namespace hloref
