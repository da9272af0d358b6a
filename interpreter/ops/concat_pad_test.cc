// Tests of the kConcatPad family evaluators (interpreter/ops/concat_pad.cc):
// seed 001's Concatenate examples, Pad with edge, interior and negative
// padding, every element type class, zero-size and rank-0 cases.
#include "interpreter/ops/concat_pad.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using testing_dm::Arr;
using testing_dm::ExpectRootEquals;
using testing_dm::Nest;
using testing_dm::Shp;
using testing_dm::SweepTypes;

std::string Module(const std::string& body) {
  return absl::StrCat("HloModule m\nENTRY e {\n", body, "\n}\n");
}

// ---- concatenate --------------------------------------------------------

TEST(Concatenate, SeedExamples) {
  // Concat({{2, 3}, {4, 5}, {6, 7}}, 0) >>> {2, 3, 4, 5, 6, 7}.
  ExpectRootEquals(Module(R"(  a = s32[2] constant({2, 3})
  b = s32[2] constant({4, 5})
  c = s32[2] constant({6, 7})
  ROOT r = s32[6] concatenate(a, b, c), dimensions={0})"),
                   "s32[6] {2, 3, 4, 5, 6, 7}");
  // The 2-dimensional example: a (3x2) then b (1x2) along dimension 0.
  ExpectRootEquals(Module(R"(  a = s32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})
  b = s32[1,2] constant({{7, 8}})
  ROOT r = s32[4,2] concatenate(a, b), dimensions={0})"),
                   "s32[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}}");
}

TEST(Concatenate, EveryTypeAlongMinorDimension) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    ExpectRootEquals(
        Module(absl::StrCat(
            "  a = ", Shp(t, {2, 1}), " constant(", Nest(t, {2, 1}, {0, 1}),
            ")\n  b = ", Shp(t, {2, 2}), " constant(",
            Nest(t, {2, 2}, {2, 3, 4, 5}), ")\n  ROOT r = ", Shp(t, {2, 3}),
            " concatenate(a, b), "
            "dimensions={1}")),
        Arr(t, {2, 3}, {0, 2, 3, 1, 4, 5}));
  }
}

TEST(Concatenate, ZeroSizeOperandAndSingleOperand) {
  ExpectRootEquals(Module(R"(  a = f32[0,2] constant({})
  b = f32[1,2] constant({{7, 8}})
  ROOT r = f32[1,2] concatenate(a, b, a), dimensions={0})"),
                   "f32[1,2] {{7, 8}}");
  ExpectRootEquals(Module(R"(  a = u8[2] constant({1, 2})
  ROOT r = u8[2] concatenate(a), dimensions={0})"),
                   "u8[2] {1, 2}");
}

// ---- pad ----------------------------------------------------------------

TEST(Pad, EdgePadding) {
  // 1 low, 2 high in dimension 0; none in dimension 1.
  ExpectRootEquals(Module(R"(  a = f32[2,2] constant({{1, 2}, {3, 4}})
  p = f32[] constant(0)
  ROOT r = f32[5,2] pad(a, p), padding=1_2x0_0)"),
                   "f32[5,2] {{0, 0}, {1, 2}, {3, 4}, {0, 0}, {0, 0}}");
}

TEST(Pad, InteriorPadding) {
  // One element between neighbours in dimension 1, plus 1 high:
  // {1, p, 2, p}.
  ExpectRootEquals(Module(R"(  a = f32[2,2] constant({{1, 2}, {3, 4}})
  p = f32[] constant(9)
  ROOT r = f32[2,4] pad(a, p), padding=0_0x0_1_1)"),
                   "f32[2,4] {{1, 9, 2, 9}, {3, 9, 4, 9}}");
}

TEST(Pad, NegativeEdgePaddingRemovesFromInteriorPadded) {
  // Interior padding first: {1, 9, 2, 9, 3}; then -2 low removes "1, 9"
  // and +1 high appends 9: {2, 9, 3, 9}.
  ExpectRootEquals(Module(R"(  a = f32[3] constant({1, 2, 3})
  p = f32[] constant(9)
  ROOT r = f32[4] pad(a, p), padding=-2_1_1)"),
                   "f32[4] {2, 9, 3, 9}");
  // -1 on both edges of {1, 2, 3}: {2}. -3 low and +1 high: {} then 9.
  ExpectRootEquals(Module(R"(  a = f32[3] constant({1, 2, 3})
  p = f32[] constant(9)
  ROOT r = f32[1] pad(a, p), padding=-1_-1)"),
                   "f32[1] {2}");
  ExpectRootEquals(Module(R"(  a = f32[3] constant({1, 2, 3})
  p = f32[] constant(9)
  ROOT r = f32[1] pad(a, p), padding=-3_1)"),
                   "f32[1] {9}");
  // Removing an interior-padding element at the high end: {1, 9, 2, 9, 3}
  // with -2 high gives {1, 9, 2}.
  ExpectRootEquals(Module(R"(  a = f32[3] constant({1, 2, 3})
  p = f32[] constant(9)
  ROOT r = f32[3] pad(a, p), padding=0_-2_1)"),
                   "f32[3] {1, 9, 2}");
}

TEST(Pad, EveryType) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    // {a, b} with value v: low 1, interior 1, high 1 -> {v, a, v, b, v}.
    ExpectRootEquals(
        Module(absl::StrCat(
            "  a = ", Shp(t, {2}), " constant(", Nest(t, {2}, {2, 3}),
            ")\n  p = ", Shp(t, {}), " constant(", Nest(t, {}, {1}),
            ")\n  ROOT r = ", Shp(t, {5}), " pad(a, p), padding=1_1_1")),
        Arr(t, {5}, {1, 2, 1, 3, 1}));
  }
}

TEST(Pad, ZeroSize) {
  // Interior padding needs two neighbours, so a zero-size operand only
  // gets its edges.
  ExpectRootEquals(Module(R"(  a = s32[0] constant({})
  p = s32[] constant(5)
  ROOT r = s32[3] pad(a, p), padding=1_2_4)"),
                   "s32[3] {5, 5, 5}");
}

}  // namespace
}  // namespace hloref
