// The evaluator's per-element error data (S and m of numerics.md 7.3/7.6)
// for accumulating roots, through tuples, and its absence when not asked.
// Expected values are hand-derived in the comments.
#include <cmath>

#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

constexpr char kModule[] = R"(
HloModule error_data

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

weird {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT d = f32[] subtract(y, x)
}

ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[3] parameter(1)
  v = f32[4] parameter(2)
  d = f32[2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  init = f32[] constant(1.5)
  r = f32[] reduce(v, init), dimensions={0}, to_apply=add
  w = f32[] reduce(v, init), dimensions={0}, to_apply=weird
  ROOT t = (f32[2], f32[], f32[]) tuple(d, r, w)
}
)";

absl::StatusOr<EvalResult> RunIt(bool error_data) {
  auto m = ParseHloModule(kModule);
  if (!m.ok()) return m.status();
  HLOREF_RETURN_IF_ERROR(VerifyModule(**m));
  EvaluatorOptions options;
  options.compute_error_data = error_data;
  Evaluator ev(options);
  std::vector<Literal> args;
  for (const char* text : {"f32[2,3] {{1, -2, 3}, {0.5, 0.25, -4}}",
                           "f32[3] {2, -1, 0.5}", "f32[4] {1, -2, 3, -4}"}) {
    auto lit = ParseLiteral(text);
    if (!lit.ok()) return lit.status();
    args.push_back(*std::move(lit));
  }
  return ev.Run(**m, args);
}

TEST(ErrorData, DotAndReduceThroughTuple) {
  auto r = RunIt(/*error_data=*/true);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->outputs.size(), 3u);
  // dot row 0: 1*2 + (-2)(-1) + 3*0.5 = 5.5, S = 2 + 2 + 1.5 = 5.5, m = 3
  // row 1: 0.5*2 + 0.25*(-1) + (-4)(0.5) = -1.25, S = 1 + 0.25 + 2 = 3.25.
  const EvaluatedOutput& d = r->outputs[0];
  EXPECT_EQ(d.value.GetAsDouble(0), 5.5);
  EXPECT_EQ(d.value.GetAsDouble(1), -1.25);
  ASSERT_TRUE(d.abs_sum.has_value());
  ASSERT_TRUE(d.term_count.has_value());
  EXPECT_EQ(d.abs_sum->GetAsDouble(0), 5.5);
  EXPECT_EQ(d.abs_sum->GetAsDouble(1), 3.25);
  EXPECT_EQ(d.term_count->GetAsInt64(0), 3);
  EXPECT_EQ(d.term_count->GetAsInt64(1), 3);
  // reduce-add: 1.5 + 1 - 2 + 3 - 4 = -0.5; S = 1.5 + 1 + 2 + 3 + 4 = 11.5;
  // m = addends (5, init included) - 1 = 4.
  const EvaluatedOutput& red = r->outputs[1];
  EXPECT_EQ(red.value.GetAsDouble(0), -0.5);
  ASSERT_TRUE(red.abs_sum.has_value());
  EXPECT_EQ(red.abs_sum->GetAsDouble(0), 11.5);
  EXPECT_EQ(red.term_count->GetAsInt64(0), 4);
  // An arbitrary reducer cannot be bounded: S = NaN, m = -1.
  const EvaluatedOutput& w = r->outputs[2];
  ASSERT_TRUE(w.abs_sum.has_value());
  EXPECT_TRUE(std::isnan(w.abs_sum->GetAsDouble(0)));
  EXPECT_EQ(w.term_count->GetAsInt64(0), -1);
}

TEST(ErrorData, AbsentUnlessRequested) {
  auto r = RunIt(/*error_data=*/false);
  ASSERT_TRUE(r.ok()) << r.status();
  for (const EvaluatedOutput& out : r->outputs) {
    EXPECT_FALSE(out.abs_sum.has_value());
    EXPECT_FALSE(out.term_count.has_value());
  }
}

}  // namespace
}  // namespace hloref
