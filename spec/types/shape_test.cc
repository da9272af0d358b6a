// Tests of shapes and layouts: HLO text printing, seed 000's layout index
// mapping, and size/layout validation.
#include "spec/types/shape.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hloref {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Layout MakeLayout(std::vector<int64_t> minor_to_major) {
  Layout layout;
  layout.minor_to_major = std::move(minor_to_major);
  return layout;
}

TEST(LayoutTest, PlainMinorToMajor) {
  EXPECT_EQ(MakeLayout({1, 0}).ToString(), "{1,0}");
  EXPECT_EQ(MakeLayout({0, 1, 2}).ToString(), "{0,1,2}");
  EXPECT_EQ(MakeLayout({}).ToString(), "{}");
}

TEST(LayoutTest, ExtendedFieldsInXlaOrder) {
  Layout layout = MakeLayout({1, 0});
  layout.tiles = {Tile{{8, 128}}, Tile{{2, 1}}};
  EXPECT_EQ(layout.ToString(), "{1,0:T(8,128)(2,1)}");
  layout.tail_padding_alignment = 4;
  layout.element_size_in_bits = 4;
  layout.memory_space = 1;
  EXPECT_EQ(layout.ToString(), "{1,0:T(8,128)(2,1)L(4)E(4)S(1)}");
  // Verbatim fields go to their own place: D first, #/* between L and E,
  // SC/P/M after S, whatever order other_fields lists them in.
  layout.other_fields = "M(8)SC(0:1024,2048)(1:512)D(D,C)#(u16)*(u32)";
  EXPECT_EQ(layout.ToString(),
            "{1,0:D(D,C)T(8,128)(2,1)L(4)#(u16)*(u32)E(4)S(1)"
            "SC(0:1024,2048)(1:512)M(8)}");
}

TEST(LayoutTest, CombineDimensionTileAndScalarMemorySpace) {
  Layout layout = MakeLayout({0});
  layout.tiles = {Tile{{Tile::kCombineDimension, 128}}};
  EXPECT_EQ(layout.ToString(), "{0:T(*,128)}");
  Layout scalar;
  scalar.memory_space = 2;
  EXPECT_EQ(scalar.ToString(), "{:S(2)}");
}

TEST(LayoutTest, DefaultAlignmentOneIsNotPrinted) {
  Layout layout = MakeLayout({0});
  layout.tail_padding_alignment = 1;
  EXPECT_FALSE(layout.HasExtendedFields());
  EXPECT_EQ(layout.ToString(), "{0}");
}

TEST(LayoutTest, DescendingAndHasExtendedFields) {
  EXPECT_EQ(Layout::Descending(3).minor_to_major,
            (std::vector<int64_t>{2, 1, 0}));
  EXPECT_TRUE(Layout::Descending(0).minor_to_major.empty());
  EXPECT_TRUE(MakeLayout({2, 1, 0}).IsDescending());
  EXPECT_FALSE(MakeLayout({0, 1}).IsDescending());
  EXPECT_TRUE(MakeLayout({}).IsDescending());
  EXPECT_FALSE(MakeLayout({1, 0}).HasExtendedFields());
  Layout with_e = MakeLayout({0});
  with_e.element_size_in_bits = 4;
  EXPECT_TRUE(with_e.HasExtendedFields());
}

TEST(ShapeTest, ArrayToString) {
  Shape s = Shape::Array(PrimitiveType::kF32, {2, 3});
  EXPECT_EQ(s.ToString(), "f32[2,3]");
  s.set_layout(MakeLayout({1, 0}));
  EXPECT_EQ(s.ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(s.ToString(/*print_layout=*/false), "f32[2,3]");
  EXPECT_EQ(Shape::Array(PrimitiveType::kS32, {0}).ToString(), "s32[0]");
}

TEST(ShapeTest, DynamicAndUnboundedDimensions) {
  Shape s(PrimitiveType::kF32, {2});
  s.add_dimension(3, /*dynamic=*/true);
  s.add_dimension(Shape::kUnboundedSize);
  s.set_layout(MakeLayout({2, 1, 0}));
  EXPECT_EQ(s.ToString(), "f32[2,<=3,?]{2,1,0}");
  EXPECT_TRUE(s.is_dynamic_dimension(1));
  EXPECT_TRUE(s.is_dynamic_dimension(2));
  EXPECT_TRUE(s.is_unbounded_dimension(2));
  EXPECT_FALSE(s.is_unbounded_dimension(1));
  EXPECT_FALSE(s.is_static());
  EXPECT_TRUE(Shape(PrimitiveType::kF32, {2, 3}).is_static());
}

TEST(ShapeTest, ScalarsPrintNoPlainLayout) {
  Shape s = Shape::Scalar(PrimitiveType::kF32);
  EXPECT_EQ(s.ToString(), "f32[]");
  s.set_layout(Layout{});
  EXPECT_EQ(s.ToString(), "f32[]");
  Layout space;
  space.memory_space = 2;
  Shape u = Shape::Scalar(PrimitiveType::kU32);
  u.set_layout(space);
  EXPECT_EQ(u.ToString(), "u32[]{:S(2)}");
}

TEST(ShapeTest, TokenOpaqueTuple) {
  EXPECT_EQ(Shape::Token().ToString(), "token[]");
  EXPECT_EQ(Shape::Opaque().ToString(), "opaque[]");
  EXPECT_EQ(Shape::Tuple({}).ToString(), "()");
  Shape s4 = Shape::Array(PrimitiveType::kS32, {4});
  s4.set_layout(MakeLayout({0}));
  Shape inner = Shape::Tuple({s4, Shape::Scalar(PrimitiveType::kPred)});
  Shape outer = Shape::Tuple({Shape::Scalar(PrimitiveType::kF32), inner});
  EXPECT_EQ(outer.ToString(), "(f32[], (s32[4]{0}, pred[]))");
  EXPECT_EQ(outer.ToString(false), "(f32[], (s32[4], pred[]))");
  EXPECT_TRUE(outer.IsTuple());
  EXPECT_EQ(outer.tuple_size(), 2);
}

TEST(ShapeTest, TupleIndexAnnotationEveryFifthElement) {
  std::vector<Shape> elems;
  for (int i = 0; i < 11; ++i)
    elems.push_back(Shape::Scalar(PrimitiveType::kS8));
  EXPECT_EQ(Shape::Tuple(elems).ToString(),
            "(s8[], s8[], s8[], s8[], s8[], /*index=5*/s8[], s8[], s8[], "
            "s8[], s8[], /*index=10*/s8[])");
}

TEST(ShapeTest, NumElementsAndDimensionEdits) {
  Shape s(PrimitiveType::kF32, {2, 3, 4});
  EXPECT_EQ(s.num_elements(), 24);
  EXPECT_EQ(Shape::Scalar(PrimitiveType::kF32).num_elements(), 1);
  EXPECT_EQ(Shape(PrimitiveType::kF32, {3, 0}).num_elements(), 0);
  // The .npy fuzzer's shape (0, 8808, ..., 380, ...): the product of the
  // dimensions before the 0 would overflow int64 (UBSan); it is 0. Without
  // a 0, 2^40 * 2^40 saturates to INT64_MAX.
  EXPECT_EQ(Shape(PrimitiveType::kF64,
                  {int64_t{1} << 40, int64_t{1} << 40, 380, 0, 3})
                .num_elements(),
            0);
  EXPECT_EQ(Shape(PrimitiveType::kF64, {int64_t{1} << 40, int64_t{1} << 40})
                .num_elements(),
            std::numeric_limits<int64_t>::max());
  s.set_layout(MakeLayout({0, 2, 1}));
  s.delete_dimension(1);
  EXPECT_THAT(s.dimensions(), ElementsAre(2, 4));
  // Dimension 2 became dimension 1; the relative order is kept.
  EXPECT_EQ(s.layout().minor_to_major, (std::vector<int64_t>{0, 1}));
  Shape d(PrimitiveType::kF32, {5});
  d.set_layout(MakeLayout({0}));
  d.add_dimension(7);
  EXPECT_EQ(d.ToString(), "f32[5,7]{1,0}");
}

TEST(ShapeTest, EqualityCompatibleSameDimensions) {
  Shape a(PrimitiveType::kF32, {2, 3});
  Shape b(PrimitiveType::kF32, {2, 3});
  b.set_layout(MakeLayout({0, 1}));
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a.Compatible(b));
  Shape c(PrimitiveType::kF32, {2});
  c.add_dimension(3, /*dynamic=*/true);
  EXPECT_FALSE(a.Compatible(c));
  EXPECT_TRUE(a.SameDimensions(c));
  EXPECT_FALSE(a.SameDimensions(Shape(PrimitiveType::kS32, {2, 3})));
  Shape t1 = Shape::Tuple({a, Shape::Token()});
  Shape t2 = Shape::Tuple({b, Shape::Token()});
  EXPECT_TRUE(t1.Compatible(t2));
  EXPECT_FALSE(t1 == t2);
  t2.ClearLayoutsRecursive();
  EXPECT_TRUE(t1 == t2);
  EXPECT_EQ(a.LayoutOrDefault().minor_to_major, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(b.LayoutOrDefault().minor_to_major, (std::vector<int64_t>{0, 1}));
}

// Seed 000, "Minor-to-major dimension ordering": the [2 x 3] array
//   a b c
//   d e f
// is laid out as `a d b e c f` under minor_to_major [0, 1] and as
// `a b c d e f` under [1, 0].
TEST(LinearIndexTest, SeedExampleColumnMajor) {
  const std::vector<int64_t> dims = {2, 3};
  const Layout col_major = MakeLayout({0, 1});
  // Logical positions of a..f, row by row.
  const std::vector<std::vector<int64_t>> letters = {{0, 0}, {0, 1}, {0, 2},
                                                     {1, 0}, {1, 1}, {1, 2}};
  const std::string names = "abcdef";
  const std::string expected_memory = "adbecf";
  std::string memory(6, '?');
  for (size_t i = 0; i < letters.size(); ++i) {
    memory[LinearIndex(dims, col_major, letters[i])] = names[i];
  }
  EXPECT_EQ(memory, expected_memory);
  for (int64_t lin = 0; lin < 6; ++lin) {
    std::vector<int64_t> idx = MultiIndex(dims, col_major, lin);
    EXPECT_EQ(names[idx[0] * 3 + idx[1]], expected_memory[lin]);
  }
}

TEST(LinearIndexTest, SeedExampleRowMajor) {
  const std::vector<int64_t> dims = {2, 3};
  const Layout row_major = MakeLayout({1, 0});
  const std::string names = "abcdef";
  std::string memory(6, '?');
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t c = 0; c < 3; ++c) {
      memory[LinearIndex(dims, row_major, {r, c})] = names[r * 3 + c];
    }
  }
  EXPECT_EQ(memory, "abcdef");
  EXPECT_THAT(MultiIndex(dims, row_major, 4), ElementsAre(1, 1));
  EXPECT_EQ(RowMajorIndex(dims, {1, 1}), 4);
}

TEST(LinearIndexTest, Rank3PermutedLayoutRoundTrips) {
  // minor_to_major {1, 2, 0}: dimension 1 is fastest (stride 1), then
  // dimension 2 (stride dims[1] = 3), then dimension 0 (stride 3 * 4).
  const std::vector<int64_t> dims = {2, 3, 4};
  const Layout layout = MakeLayout({1, 2, 0});
  EXPECT_EQ(LinearIndex(dims, layout, {0, 1, 0}), 1);
  EXPECT_EQ(LinearIndex(dims, layout, {0, 0, 1}), 3);
  EXPECT_EQ(LinearIndex(dims, layout, {1, 0, 0}), 12);
  EXPECT_EQ(LinearIndex(dims, layout, {1, 2, 3}), 12 + 9 + 2);
  std::vector<bool> hit(24, false);
  std::vector<int64_t> idx(3, 0);
  do {
    const int64_t lin = LinearIndex(dims, layout, idx);
    ASSERT_FALSE(hit[lin]);
    hit[lin] = true;
    EXPECT_EQ(MultiIndex(dims, layout, lin), idx);
  } while (NextIndex(dims, absl::MakeSpan(idx)));
  for (bool h : hit) EXPECT_TRUE(h);
}

TEST(LinearIndexTest, ScalarHasOnePosition) {
  EXPECT_EQ(LinearIndex({}, Layout{}, {}), 0);
  EXPECT_TRUE(MultiIndex({}, Layout{}, 0).empty());
  std::vector<int64_t> idx;
  EXPECT_FALSE(NextIndex({}, absl::MakeSpan(idx)));
}

TEST(NextIndexTest, RowMajorOrder) {
  const std::vector<int64_t> dims = {2, 2};
  std::vector<int64_t> idx = {0, 0};
  std::vector<std::vector<int64_t>> seen = {idx};
  while (NextIndex(dims, absl::MakeSpan(idx))) seen.push_back(idx);
  EXPECT_EQ(seen, (std::vector<std::vector<int64_t>>{
                      {0, 0}, {0, 1}, {1, 0}, {1, 1}}));
  EXPECT_THAT(idx, ElementsAre(0, 0));  // wrapped around after the last
}

TEST(ValidateLayoutTest, AcceptsPermutationsRejectsOthers) {
  EXPECT_TRUE(ValidateLayout(MakeLayout({1, 0}), 2).ok());
  EXPECT_TRUE(ValidateLayout(Layout{}, 0).ok());
  absl::Status repeated = ValidateLayout(MakeLayout({0, 0}), 2);
  EXPECT_EQ(repeated.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(repeated.message(), HasSubstr("{0,0}"));
  EXPECT_THAT(repeated.message(), HasSubstr("repeated"));
  absl::Status range = ValidateLayout(MakeLayout({0, 2}), 2);
  EXPECT_THAT(range.message(), HasSubstr("out of range"));
  absl::Status count = ValidateLayout(MakeLayout({0}), 2);
  EXPECT_THAT(count.message(), HasSubstr("rank 2"));
}

TEST(CheckShapeSizeTest, AcceptsWithinLimit) {
  EXPECT_TRUE(CheckShapeSize(Shape(PrimitiveType::kF32, {10, 10}), 100).ok());
  EXPECT_TRUE(CheckShapeSize(Shape::Scalar(PrimitiveType::kF32), 1).ok());
  EXPECT_TRUE(CheckShapeSize(Shape::Token(), 0).ok());
  // A zero-size dimension makes the array empty even if the others are huge.
  const int64_t big = int64_t{1} << 40;
  EXPECT_TRUE(
      CheckShapeSize(Shape(PrimitiveType::kF32, {big, big, 0}), 10).ok());
}

TEST(CheckShapeSizeTest, RejectsNegative) {
  Shape s(PrimitiveType::kF32, {2, 3});
  s.set_dimensions(1, -5);
  absl::Status st = CheckShapeSize(s, 1000);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("f32[2,-5]"));
  EXPECT_THAT(st.message(), HasSubstr("negative"));
}

TEST(CheckShapeSizeTest, RejectsOverLimit) {
  absl::Status st = CheckShapeSize(Shape(PrimitiveType::kS8, {10, 11}), 100);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("s8[10,11]"));
  EXPECT_THAT(st.message(), HasSubstr("110"));
  // Tuples count all their arrays together.
  Shape t = Shape::Tuple(
      {Shape(PrimitiveType::kF32, {60}), Shape(PrimitiveType::kF32, {60})});
  EXPECT_FALSE(CheckShapeSize(t, 100).ok());
  EXPECT_TRUE(CheckShapeSize(t, 120).ok());
}

TEST(CheckShapeSizeTest, RejectsInt64Overflow) {
  const int64_t big = int64_t{1} << 32;
  absl::Status st = CheckShapeSize(Shape(PrimitiveType::kF32, {big, big}),
                                   std::numeric_limits<int64_t>::max());
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("f32[4294967296,4294967296]"));
  EXPECT_THAT(st.message(), HasSubstr("64-bit"));
}

TEST(CheckShapeSizeTest, RejectsUnbounded) {
  Shape s(PrimitiveType::kF32, {Shape::kUnboundedSize});
  absl::Status st = CheckShapeSize(s, 100);
  EXPECT_THAT(st.message(), HasSubstr("f32[?]"));
}

}  // namespace
}  // namespace hloref
