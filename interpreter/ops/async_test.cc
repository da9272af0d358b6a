// Tests of the kAsync family evaluators (interpreter/ops/async.cc): the
// generic async-start/update/done wrapper and copy-start/copy-done.
#include "interpreter/ops/async.h"

#include <string>

#include "gtest/gtest.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using testing_dm::ExpectRootEquals;
using testing_dm::Lit;
using testing_dm::RunHlo;

constexpr char kAsync[] = R"(HloModule m
wrapped {
  p = s32[2,3] parameter(0)
  ROOT t = s32[3,2] transpose(p), dimensions={1,0}
}
ENTRY e {
  x = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  s = ((s32[2,3]), s32[3,2], s32[]) async-start(x), calls=wrapped
  u = ((s32[2,3]), s32[3,2], s32[]) async-update(s)
)";

TEST(Async, DoneGivesTheWrappedResult) {
  ExpectRootEquals(
      std::string(kAsync) + "  ROOT d = s32[3,2] async-done(u)\n}\n",
      "s32[3,2] {{1, 4}, {2, 5}, {3, 6}}");
}

TEST(Async, StartValueIsOperandsResultContext) {
  absl::StatusOr<EvalResult> result =
      RunHlo(std::string(kAsync) +
             "  ROOT r = ((s32[2,3]), s32[3,2], s32[]) copy(u)\n}\n");
  ASSERT_TRUE(result.ok()) << result.status();
  const Literal& v = result->value;
  ASSERT_EQ(v.tuple_size(), 3);
  EXPECT_EQ(v.tuple_element(0), Lit("(s32[2,3]) ({{1, 2, 3}, {4, 5, 6}})"));
  EXPECT_EQ(v.tuple_element(1), Lit("s32[3,2] {{1, 4}, {2, 5}, {3, 6}}"));
}

TEST(Async, CopyStartAndDone) {
  ExpectRootEquals(R"(HloModule m
ENTRY e {
  x = f8e5m2[2,2]{1,0} constant({{1, 2}, {3, 4}})
  s = (f8e5m2[2,2]{0,1}, f8e5m2[2,2]{1,0}, u32[]) copy-start(x)
  ROOT d = f8e5m2[2,2]{0,1} copy-done(s)
})",
                   "f8e5m2[2,2] {{1, 2}, {3, 4}}");
}

}  // namespace
}  // namespace hloref
