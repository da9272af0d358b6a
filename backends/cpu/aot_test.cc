// A program linked against an object file `hloref compile` made from
// backends/cpu/testdata/aot_axpy.hlo (built by CMake before this test):
// the entry point is called through the generated header and its results
// are compared with values derived by hand.
#include <gtest/gtest.h>

#include "aot_axpy.h"

namespace {

TEST(AheadOfTime, AxpyAndColumnMajorResult) {
  const float a = 2;
  const float x[5] = {1, 2, 3, 4, 0.5f};
  const float y[5] = {10, 20, 30, 40, -1};
  // m is f32[2,3]{0,1}: column-major, so the buffer lists m[0][0], m[1][0],
  // m[0][1], ... ; the result has the same layout and doubles each element.
  const float m[6] = {1, 2, 3, 4, 5, 6};
  float out[5] = {};
  float mm[6] = {};
  ASSERT_EQ(aot_axpy(&a, x, y, m, out, mm), 0) << hloref_aot_last_error();
  // 2 * x + y by hand.
  const float expected[5] = {12, 24, 36, 48, 0};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out[i], expected[i]) << i;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(mm[i], 2 * m[i]) << i;
}

}  // namespace
