// Tests of the kSlicing family evaluators (interpreter/ops/slicing.cc):
// seed 001's Slice, DynamicSlice and DynamicUpdateSlice examples, start
// index clamping for signed and unsigned index types, both index forms,
// every element type class, zero-size and rank-0 cases.
#include "interpreter/ops/slicing.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using testing_dm::Arr;
using testing_dm::ExpectRootEquals;
using testing_dm::Nest;
using testing_dm::OneConstantModule;
using testing_dm::Shp;
using testing_dm::SweepTypes;

// Seed 001's a and b.
constexpr char kA[] = "a = f32[5] constant({0, 1, 2, 3, 4})";
constexpr char kB[] =
    "b = f32[4,3] constant({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}})";

std::string Module(const std::string& body) {
  return absl::StrCat("HloModule m\nENTRY e {\n", body, "\n}\n");
}

// ---- slice --------------------------------------------------------------

TEST(Slice, SeedExamples) {
  // Slice(a, {2}, {4}) produces {2.0, 3.0}.
  ExpectRootEquals(
      Module(absl::StrCat("  ", kA,
                          "\n  ROOT s = f32[2] slice(a), slice={[2:4]}")),
      "f32[2] {2, 3}");
  // Slice(b, {2, 1}, {4, 3}) produces {{7, 8}, {10, 11}}.
  ExpectRootEquals(Module(absl::StrCat("  ", kB,
                                       "\n  ROOT s = f32[2,2] slice(b), "
                                       "slice={[2:4], [1:3]}")),
                   "f32[2,2] {{7, 8}, {10, 11}}");
}

TEST(Slice, Strides) {
  // Every 2nd of 0..4 from 0: {0, 2, 4}; rows 0 and 3 (stride 3), columns
  // 0 and 2 (stride 2) of b.
  ExpectRootEquals(
      Module(absl::StrCat("  ", kA,
                          "\n  ROOT s = f32[3] slice(a), slice={[0:5:2]}")),
      "f32[3] {0, 2, 4}");
  ExpectRootEquals(Module(absl::StrCat("  ", kB,
                                       "\n  ROOT s = f32[2,2] slice(b), "
                                       "slice={[0:4:3], [0:3:2]}")),
                   "f32[2,2] {{0, 2}, {9, 11}}");
}

TEST(Slice, EveryType) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    ExpectRootEquals(
        OneConstantModule(t, {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7},
                          absl::StrCat("ROOT s = ", Shp(t, {2, 2}),
                                       " slice(c), slice={[0:2], [1:4:2]}")),
        Arr(t, {2, 2}, {1, 3, 5, 7}));
  }
}

TEST(Slice, ZeroSizeAndRank0) {
  ExpectRootEquals(
      Module(absl::StrCat("  ", kA,
                          "\n  ROOT s = f32[0] slice(a), slice={[3:3]}")),
      "f32[0] {}");
  ExpectRootEquals(Module("  c = u16[] constant(9)\n"
                          "  ROOT s = u16[] slice(c), slice={}"),
                   "u16[] 9");
}

// ---- dynamic-slice ------------------------------------------------------

TEST(DynamicSlice, SeedExamples) {
  // DynamicSlice(a, {2}, {2}) produces {2.0, 3.0}.
  ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  idx = s32[] constant(2)
  ROOT d = f32[2] dynamic-slice(a, idx), dynamic_slice_sizes={2})")),
                   "f32[2] {2, 3}");
  // DynamicSlice(b, {2, 1}, {2, 2}) produces {{7, 8}, {10, 11}}.
  ExpectRootEquals(Module(absl::StrCat("  ", kB, R"(
  i0 = s32[] constant(2)
  i1 = s32[] constant(1)
  ROOT d = f32[2,2] dynamic-slice(b, i0, i1), dynamic_slice_sizes={2,2})")),
                   "f32[2,2] {{7, 8}, {10, 11}}");
}

TEST(DynamicSlice, StartIndicesAreClamped) {
  // Start 4 with size 2 on 5 elements clamps to 5 - 2 = 3; -7 clamps to 0.
  ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  idx = s32[] constant(4)
  ROOT d = f32[2] dynamic-slice(a, idx), dynamic_slice_sizes={2})")),
                   "f32[2] {3, 4}");
  ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  idx = s64[] constant(-7)
  ROOT d = f32[2] dynamic-slice(a, idx), dynamic_slice_sizes={2})")),
                   "f32[2] {0, 1}");
  // Unsigned indices compare unsigned: 255 (u8) and 2^64-1 (u64) are large,
  // not negative, so they clamp to the top.
  ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  idx = u8[] constant(255)
  ROOT d = f32[2] dynamic-slice(a, idx), dynamic_slice_sizes={2})")),
                   "f32[2] {3, 4}");
  ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  idx = u64[] constant(18446744073709551615)
  ROOT d = f32[2] dynamic-slice(a, idx), dynamic_slice_sizes={2})")),
                   "f32[2] {3, 4}");
  // s8 -128 clamps to 0 in dimension 0; 9 clamps to 3 - 2 = 1 in
  // dimension 1 (every dimension is clamped, the first included).
  ExpectRootEquals(Module(absl::StrCat("  ", kB, R"(
  i0 = s8[] constant(-128)
  i1 = s8[] constant(9)
  ROOT d = f32[2,2] dynamic-slice(b, i0, i1), dynamic_slice_sizes={2,2})")),
                   "f32[2,2] {{1, 2}, {4, 5}}");
}

// The legacy form: one rank-1 vector holding every start index.
TEST(DynamicSlice, LegacyVectorForm) {
  ExpectRootEquals(Module(absl::StrCat("  ", kB, R"(
  idx = s32[2] constant({2, 1})
  ROOT d = f32[2,2] dynamic-slice(b, idx), dynamic_slice_sizes={2,2})")),
                   "f32[2,2] {{7, 8}, {10, 11}}");
  ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  upd = f32[2] constant({5, 6})
  idx = s32[1] constant({2})
  ROOT d = f32[5] dynamic-update-slice(a, upd, idx))")),
                   "f32[5] {0, 1, 5, 6, 4}");
}

TEST(DynamicSlice, EveryType) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    ExpectRootEquals(
        OneConstantModule(
            t, {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7},
            absl::StrCat("i = s32[] constant(1)\n  j = s32[] constant(2)\n"
                         "  ROOT d = ",
                         Shp(t, {1, 2}),
                         " dynamic-slice(c, i, j), "
                         "dynamic_slice_sizes={1,2}")),
        Arr(t, {1, 2}, {6, 7}));
  }
}

TEST(DynamicSlice, ZeroSize) {
  ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  idx = s32[] constant(9)
  ROOT d = f32[0] dynamic-slice(a, idx), dynamic_slice_sizes={0})")),
                   "f32[0] {}");
}

// ---- dynamic-update-slice -----------------------------------------------

TEST(DynamicUpdateSlice, SeedExamples) {
  // DynamicUpdateSlice(a, {5, 6}, {2}) produces {0, 1, 5, 6, 4}.
  ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  upd = f32[2] constant({5, 6})
  idx = s32[] constant(2)
  ROOT d = f32[5] dynamic-update-slice(a, upd, idx))")),
                   "f32[5] {0, 1, 5, 6, 4}");
  // The 2-dimensional example with s = {1, 1}.
  ExpectRootEquals(Module(absl::StrCat("  ", kB, R"(
  upd = f32[3,2] constant({{12, 13}, {14, 15}, {16, 17}})
  i0 = s32[] constant(1)
  i1 = s32[] constant(1)
  ROOT d = f32[4,3] dynamic-update-slice(b, upd, i0, i1))")),
                   "f32[4,3] {{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, "
                   "{9, 16, 17}}");
}

TEST(DynamicUpdateSlice, StartIndicesAreClamped) {
  // Start 4 with an update of 2 on 5 elements clamps to 3; u32 4294967295
  // is large, not negative, and clamps the same way; -1 clamps to 0.
  for (const char* index :
       {"s32[] constant(4)", "u32[] constant(4294967295)"}) {
    ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  upd = f32[2] constant({5, 6})
  idx = )",
                                         index, R"(
  ROOT d = f32[5] dynamic-update-slice(a, upd, idx))")),
                     "f32[5] {0, 1, 2, 5, 6}");
  }
  ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  upd = f32[2] constant({5, 6})
  idx = s16[] constant(-1)
  ROOT d = f32[5] dynamic-update-slice(a, upd, idx))")),
                   "f32[5] {5, 6, 2, 3, 4}");
}

TEST(DynamicUpdateSlice, EveryType) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    ExpectRootEquals(
        OneConstantModule(
            t, {2, 3}, {0, 1, 2, 3, 4, 5},
            absl::StrCat("u = ", Shp(t, {1, 2}), " constant(",
                         Nest(t, {1, 2}, {7, 6}),
                         ")\n"
                         "  i = s32[] constant(1)\n  j = s32[] constant(0)\n"
                         "  ROOT d = ",
                         Shp(t, {2, 3}), " dynamic-update-slice(c, u, i, j)")),
        Arr(t, {2, 3}, {0, 1, 2, 7, 6, 5}));
  }
}

TEST(DynamicUpdateSlice, ZeroSizeUpdate) {
  ExpectRootEquals(Module(absl::StrCat("  ", kA, R"(
  upd = f32[0] constant({})
  idx = s32[] constant(2)
  ROOT d = f32[5] dynamic-update-slice(a, upd, idx))")),
                   "f32[5] {0, 1, 2, 3, 4}");
}

}  // namespace
}  // namespace hloref
