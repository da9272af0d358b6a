// Tests of the padded-layout helpers (spec/types/layout_util.h) against
// seed 000's worked example ("Shapes and layout" / "Padding").
#include "spec/types/layout_util.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hloref {
namespace {

// The seed's [2 x 3] array
//   a b c
//   d e f
// held as u8 character codes, so a rendering can be compared with the
// seed's text character for character; padding is the number 0, which
// renders as "0" (the seed: "assuming a padding value of 0").
Literal SeedArray() {
  return Literal::CreateFromValues<uint8_t>(PrimitiveType::kU8, {2, 3},
                                            {'a', 'b', 'c', 'd', 'e', 'f'});
}
Literal ZeroU8() { return Literal::CreateR0<uint8_t>(PrimitiveType::kU8, 0); }

// Elements in storage order, space separated, 0 written as "0".
std::string Render(const Literal& lit) {
  std::string out;
  for (uint8_t v : lit.data<uint8_t>()) {
    if (!out.empty()) out += ' ';
    out += v == 0 ? '0' : static_cast<char>(v);
  }
  return out;
}

// Rows of a rank-2 literal, one line each.
std::string RenderRows(const Literal& lit) {
  std::string out;
  const int64_t cols = lit.shape().dimensions(1);
  auto values = lit.data<uint8_t>();
  for (size_t i = 0; i < values.size(); ++i) {
    out += values[i] == 0 ? '0' : static_cast<char>(values[i]);
    out += (static_cast<int64_t>(i) + 1) % cols == 0 ? '\n' : ' ';
  }
  return out;
}

TEST(LayoutUtil, SeedPaddedDimensionsColumnMajor) {
  // Seed 000: padded_dimensions [3, 5], column-major (minor_to_major
  // [0, 1]) gives "a d 0 b e 0 c f 0 0 0 0 0 0 0".
  auto linear = LinearizeWithPadding(SeedArray(), {0, 1}, {3, 5}, ZeroU8());
  ASSERT_TRUE(linear.ok()) << linear.status();
  EXPECT_EQ(linear->shape().dimensions(), (std::vector<int64_t>{15}));
  EXPECT_EQ(Render(*linear), "a d 0 b e 0 c f 0 0 0 0 0 0 0");
}

TEST(LayoutUtil, SeedPaddedDimensionsEquivalentArray) {
  // Seed 000: "equivalent to the layout of the following array with the
  // same minor-to-major dimension order".
  auto padded = PadToDimensions(SeedArray(), {3, 5}, ZeroU8());
  ASSERT_TRUE(padded.ok()) << padded.status();
  EXPECT_EQ(RenderRows(*padded),
            "a b c 0 0\n"
            "d e f 0 0\n"
            "0 0 0 0 0\n");
  // That array, unpadded (padded_dimensions = its own sizes) and laid out
  // column-major, has the same linear memory.
  auto linear = LinearizeWithPadding(*padded, {0, 1}, {3, 5}, ZeroU8());
  ASSERT_TRUE(linear.ok()) << linear.status();
  EXPECT_EQ(Render(*linear), "a d 0 b e 0 c f 0 0 0 0 0 0 0");
}

TEST(LayoutUtil, RowMajorPadding) {
  // minor_to_major [1, 0]: rows of width 5, three rows.
  auto linear = LinearizeWithPadding(SeedArray(), {1, 0}, {3, 5}, ZeroU8());
  ASSERT_TRUE(linear.ok()) << linear.status();
  EXPECT_EQ(Render(*linear), "a b c 0 0 d e f 0 0 0 0 0 0 0");
}

TEST(LayoutUtil, NoPaddingIsTheLayoutAlone) {
  // padded_dimensions equal to the dimensions: the seed's unpadded
  // renderings "a d b e c f" and "a b c d e f".
  auto col = LinearizeWithPadding(SeedArray(), {0, 1}, {2, 3}, ZeroU8());
  auto row = LinearizeWithPadding(SeedArray(), {1, 0}, {2, 3}, ZeroU8());
  ASSERT_TRUE(col.ok() && row.ok());
  EXPECT_EQ(Render(*col), "a d b e c f");
  EXPECT_EQ(Render(*row), "a b c d e f");
}

TEST(LayoutUtil, PaddingValueAndWiderTypes) {
  // f32 with padding value -1.5: column-major [2,2] in [3,2].
  Literal v = Literal::CreateFromValues<float>(PrimitiveType::kF32, {2, 2},
                                               {1, 2, 3, 4});
  auto linear = LinearizeWithPadding(
      v, {0, 1}, {3, 2}, Literal::CreateR0<float>(PrimitiveType::kF32, -1.5f));
  ASSERT_TRUE(linear.ok()) << linear.status();
  auto got = linear->data<float>();
  EXPECT_EQ(std::vector<float>(got.begin(), got.end()),
            (std::vector<float>{1, 3, -1.5f, 2, 4, -1.5f}));
}

TEST(LayoutUtil, Errors) {
  // The seed: "the number of elements in padded_dimensions must equal the
  // rank of the shape".
  auto rank = LinearizeWithPadding(SeedArray(), {0, 1}, {3}, ZeroU8());
  ASSERT_FALSE(rank.ok());
  EXPECT_EQ(rank.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(rank.status().message().find("rank 2"), std::string::npos)
      << rank.status();
  auto narrow = LinearizeWithPadding(SeedArray(), {0, 1}, {1, 5}, ZeroU8());
  ASSERT_FALSE(narrow.ok());
  EXPECT_NE(narrow.status().message().find("padded_dimensions[0] = 1"),
            std::string::npos)
      << narrow.status();
  auto type =
      LinearizeWithPadding(SeedArray(), {0, 1}, {3, 5},
                           Literal::CreateR0<float>(PrimitiveType::kF32, 0));
  ASSERT_FALSE(type.ok());
  EXPECT_NE(type.status().message().find("padding_value"), std::string::npos);
  auto layout = LinearizeWithPadding(SeedArray(), {0, 0}, {3, 5}, ZeroU8());
  ASSERT_FALSE(layout.ok());
  EXPECT_EQ(layout.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hloref
