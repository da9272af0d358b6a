// Tests of the kTupleToken family evaluators (interpreter/ops/
// tuple_token.cc): tuple and get-tuple-element over every element type
// class, tokens, add-dependency, opt-barrier, domain, constants and
// parameters.
#include "interpreter/ops/tuple_token.h"

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
using testing_dm::Nest;
using testing_dm::RunHlo;
using testing_dm::Shp;
using testing_dm::SweepTypes;

std::string Module(const std::string& body) {
  return absl::StrCat("HloModule m\nENTRY e {\n", body, "\n}\n");
}

TEST(Tuple, TupleAndGetTupleElementEveryType) {
  for (const std::string& t : SweepTypes()) {
    SCOPED_TRACE(t);
    const std::string body = absl::StrCat(
        "  a = ", Shp(t, {2}), " constant(", Nest(t, {2}, {1, 2}),
        ")\n  b = ", Shp(t, {}), " constant(", Nest(t, {}, {3}), ")\n  tup = (",
        Shp(t, {2}), ", ", Shp(t, {}), ") tuple(a, b)\n");
    ExpectRootEquals(Module(absl::StrCat(body, "  ROOT g = ", Shp(t, {2}),
                                         " get-tuple-element(tup), index=0")),
                     Arr(t, {2}, {1, 2}));
    ExpectRootEquals(Module(absl::StrCat(body, "  ROOT g = ", Shp(t, {}),
                                         " get-tuple-element(tup), index=1")),
                     Arr(t, {}, {3}));
  }
}

TEST(Tuple, NestedEmptyAndZeroSize) {
  ExpectRootEquals(Module(R"(  a = f32[0] constant({})
  b = s32[] constant(4)
  e = () tuple()
  inner = (f32[0], s32[]) tuple(a, b)
  ROOT t = ((f32[0], s32[]), ()) tuple(inner, e))"),
                   "((f32[0], s32[]), ()) (({}, 4), ())");
  ExpectRootEquals(Module(R"(  a = f32[0] constant({})
  b = s32[] constant(4)
  inner = (f32[0], s32[]) tuple(a, b)
  outer = ((f32[0], s32[])) tuple(inner)
  g = (f32[0], s32[]) get-tuple-element(outer), index=0
  ROOT h = s32[] get-tuple-element(g), index=1)"),
                   "s32[] 4");
}

TEST(Token, AfterAllAndAddDependency) {
  absl::StatusOr<EvalResult> token = RunHlo(Module(R"(  t0 = token[] after-all()
  t1 = token[] after-all(t0)
  ROOT t2 = token[] after-all(t0, t1))"));
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_TRUE(token->value.shape().IsToken());
  ExpectRootEquals(Module(R"(  t = token[] after-all()
  x = c64[2] constant({(1, 2), (3, 4)})
  ROOT d = c64[2] add-dependency(x, t))"),
                   "c64[2] {(1, 2), (3, 4)}");
}

TEST(Identity, OptBarrierAndDomain) {
  ExpectRootEquals(Module(R"(  a = pred[2] constant({true, false})
  b = u64[] constant(18446744073709551615)
  t = (pred[2], u64[]) tuple(a, b)
  ROOT o = (pred[2], u64[]) opt-barrier(t))"),
                   "(pred[2], u64[]) ({true, false}, 18446744073709551615)");
  ExpectRootEquals(Module(R"(  a = bf16[2] constant({1.5, -2})
  ROOT d = bf16[2] domain(a), domain={kind="sharding", entry={maximal device=0}, exit={replicated}})"),
                   "bf16[2] {1.5, -2}");
}

TEST(ConstantAndParameter, ValuesPassThrough) {
  ExpectRootEquals(Module(R"(  c = f8e4m3fn[3] constant({-448, 0.5, 0})
  p = s4[2] parameter(0)
  ROOT t = (f8e4m3fn[3], s4[2]) tuple(c, p))"),
                   "(f8e4m3fn[3], s4[2]) ({-448, 0.5, 0}, {-8, 7})", [] {
                     std::vector<Literal> args;
                     args.push_back(Lit("s4[2] {-8, 7}"));
                     return args;
                   }());
}

}  // namespace
}  // namespace hloref
