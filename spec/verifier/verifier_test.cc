// Tests for the verifier: every rule has a negative case (a small
// ill-formed module that must fail with that rule ID and name the offending
// instruction), and well-formed modules for every opcode verify.
#include "spec/verifier/verifier.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/opcode.h"
#include "spec/ir/test_modules.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

using ::testing::HasSubstr;

// Scalar computations the cases below call.
constexpr char kHelpers[] = R"(
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
add_f32_2 {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT r = f32[2] add(a, b)
}
scan_add_f32 {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  s = f32[] add(x, c)
  ROOT t = (f32[], f32[]) tuple(s, s)
}
add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}
lt_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ge_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}
lt_f32_s32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}
argmax {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  p = pred[] compare(a, c), direction=GE
  m = f32[] select(p, a, c)
  i = s32[] select(p, b, d)
  ROOT r = (f32[], s32[]) tuple(m, i)
}
neg_f32 {
  a = f32[] parameter(0)
  ROOT r = f32[] negate(a)
}
id_f32_2 {
  ROOT a = f32[2] parameter(0)
}
id_s32_2 {
  ROOT a = s32[2] parameter(0)
}
two_params {
  a = f32[2] parameter(0)
  b = s32[] parameter(1)
  ROOT r = f32[2] add(a, a)
}
cond_s32 {
  a = s32[] parameter(0)
  z = s32[] constant(10)
  ROOT r = pred[] compare(a, z), direction=LT
}
body_s32 {
  a = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT r = s32[] add(a, one)
}
)";

std::string Module(absl::string_view entry, absl::string_view header = "") {
  return absl::StrCat("HloModule t", header, "\n", kHelpers, "\nENTRY e {\n",
                      entry, "\n}\n");
}

absl::StatusOr<std::unique_ptr<HloModule>> Parse(const std::string& text) {
  return ParseHloModule(text);
}

// Parses `text` (must parse) and verifies it.
absl::Status ParseAndVerify(const std::string& text) {
  auto module = Parse(text);
  if (!module.ok()) {
    return absl::InternalError(absl::StrCat(
        "test module does not parse: ", module.status().message(), "\n", text));
  }
  return VerifyModule(**module);
}

struct Case {
  const char* rule;
  const char* inst;  // the instruction the message must name
  const char* entry;
  const char* header = "";
};

class NegativeTest : public ::testing::TestWithParam<Case> {};

TEST_P(NegativeTest, FailsWithRule) {
  const Case& c = GetParam();
  absl::Status st = ParseAndVerify(Module(c.entry, c.header));
  ASSERT_FALSE(st.ok()) << c.rule << " not detected:\n" << c.entry;
  ASSERT_NE(st.code(), absl::StatusCode::kInternal) << st;
  EXPECT_EQ(RuleOf(st), c.rule) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr(absl::StrCat("%", c.inst)))
      << st;
  EXPECT_THAT(std::string(st.message()),
              HasSubstr(absl::StrCat("[", c.rule, "]")))
      << st;
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name =
      absl::StrReplaceAll(info.param.rule, {{".", "_"}, {"-", "_"}});
  return absl::StrCat(name, "_", info.index);
}

// clang-format off
const Case kCases[] = {
  // --- module structure (text-expressible ones; the rest below via API)
  {"module.C10", "r", "p = f32[2] parameter(0)\nROOT r = f32[3] negate(p)"},
  {"impl.module.2", "p", "ROOT p = f32[?] parameter(0)"},
  // --- elementwise unary
  {"negate.C1", "r", "p = (f32[]) parameter(0)\nROOT r = (f32[]) negate(p)"},
  {"floor.C2", "r", "p = s32[2] parameter(0)\nROOT r = s32[2] floor(p)"},
  {"abs.C2", "r", "p = u8[2] parameter(0)\nROOT r = u8[2] abs(p)"},
  {"sine.C2", "r", "p = s32[2] parameter(0)\nROOT r = s32[2] sine(p)"},
  {"erf.C2", "r", "p = c64[2] parameter(0)\nROOT r = c64[2] erf(p)"},
  {"not.C2", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] not(p)"},
  {"popcnt.C2", "r", "p = pred[2] parameter(0)\nROOT r = pred[2] popcnt(p)"},
  {"count-leading-zeros.C2", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] count-leading-zeros(p)"},
  {"is-finite.C2", "r", "p = s32[2] parameter(0)\nROOT r = pred[2] is-finite(p)"},
  {"real.C2", "r", "p = s32[2] parameter(0)\nROOT r = s32[2] real(p)"},
  {"module.C10", "r", "p = c64[2] parameter(0)\nROOT r = c64[2] abs(p)"},
  {"module.C10", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] is-finite(p)"},
  // --- elementwise binary
  {"add.C1", "r", "p = f32[2] parameter(0)\nt = token[] after-all()\nROOT r = f32[2] add(p, t)"},
  {"add.C2", "r", "p = f32[2] parameter(0)\nq = f32[3] parameter(1)\nROOT r = f32[2] add(p, q)"},
  {"add.C3", "r", "p = f32[2] parameter(0)\nq = s32[2] parameter(1)\nROOT r = f32[2] add(p, q)"},
  {"subtract.C4", "r", "p = pred[2] parameter(0)\nROOT r = pred[2] subtract(p, p)"},
  {"and.C4", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] and(p, p)"},
  {"shift-left.C4", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] shift-left(p, p)"},
  {"atan2.C4", "r", "p = s32[2] parameter(0)\nROOT r = s32[2] atan2(p, p)"},
  {"complex.C4", "r", "p = f16[2] parameter(0)\nROOT r = c64[2] complex(p, p)"},
  {"module.C10", "r", "p = f32[2] parameter(0)\nROOT r = c128[2] complex(p, p)"},
  // --- compare / select / clamp
  {"compare.C1", "r", "p = (f32[]) parameter(0)\nROOT r = pred[] compare(p, p), direction=EQ"},
  {"compare.C2", "r", "p = f32[2] parameter(0)\nq = f32[3] parameter(1)\nROOT r = pred[2] compare(p, q), direction=EQ"},
  {"compare.C3", "r", "p = f32[2] parameter(0)\nq = s32[2] parameter(1)\nROOT r = pred[2] compare(p, q), direction=EQ"},
  {"compare.C4", "r", "p = s32[2] parameter(0)\nROOT r = pred[2] compare(p, p), direction=LT, type=FLOAT"},
  {"compare.C4", "r", "p = u32[2] parameter(0)\nROOT r = pred[2] compare(p, p), direction=LT, type=SIGNED"},
  {"compare.C5", "r", "p = c64[2] parameter(0)\nROOT r = pred[2] compare(p, p), direction=LT"},
  {"module.C10", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] compare(p, p), direction=LT"},
  {"select.C1", "r", "c = pred[2] parameter(0)\np = f32[2] parameter(1)\nq = s32[2] parameter(2)\nROOT r = f32[2] select(c, p, q)"},
  {"select.C2", "r", "c = s32[2] parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] select(c, p, p)"},
  {"select.C3", "r", "c = pred[3] parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] select(c, p, p)"},
  {"clamp.C1", "r", "t = (f32[]) parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] clamp(t, p, p)"},
  {"clamp.C2", "r", "lo = s32[] parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] clamp(lo, p, p)"},
  {"clamp.C3", "r", "lo = f32[3] parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] clamp(lo, p, p)"},
  {"clamp.C4", "r", "p = c64[2] parameter(0)\nROOT r = c64[2] clamp(p, p, p)"},
  // --- convert family
  {"convert.C1", "r", "p = (f32[]) parameter(0)\nROOT r = s32[] convert(p)"},
  {"convert.C2", "r", "p = f32[] parameter(0)\nROOT r = (s32[]) convert(p)"},
  {"convert.C3", "r", "p = c64[2] parameter(0)\nROOT r = f32[2] convert(p)"},
  {"bitcast-convert.C1", "r", "p = (f32[]) parameter(0)\nROOT r = s32[] bitcast-convert(p)"},
  {"bitcast-convert.C2", "r", "p = f32[] parameter(0)\nROOT r = (s32[]) bitcast-convert(p)"},
  {"bitcast-convert.C3", "r", "p = f64[2] parameter(0)\nROOT r = c64[2] bitcast-convert(p)"},
  {"bitcast-convert.C4", "r", "p = f32[3] parameter(0)\nROOT r = f6e3m2fn[3] bitcast-convert(p)"},
  {"bitcast-convert.C5", "r", "p = f16[10,4] parameter(0)\nROOT r = f32[10] bitcast-convert(p)"},
  {"module.C10", "r", "p = f32[10] parameter(0)\nROOT r = f16[10] bitcast-convert(p)"},
  {"reduce-precision.C1", "r", "p = s32[2] parameter(0)\nROOT r = s32[2] reduce-precision(p), exponent_bits=5, mantissa_bits=10"},
  {"reduce-precision.C2", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] reduce-precision(p), exponent_bits=0, mantissa_bits=10"},
  {"reduce-precision.C3", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] reduce-precision(p), exponent_bits=5, mantissa_bits=-1"},
  {"stochastic-convert.C1", "r", "p = (f32[]) parameter(0)\nq = u32[] parameter(1)\nROOT r = bf16[] stochastic-convert(p, q)"},
  {"stochastic-convert.C2", "r", "p = s32[2] parameter(0)\nq = u32[2] parameter(1)\nROOT r = s8[2] stochastic-convert(p, q)"},
  {"stochastic-convert.C3", "r", "p = f32[2] parameter(0)\nq = u16[2] parameter(1)\nROOT r = bf16[2] stochastic-convert(p, q)"},
  // --- shape family
  {"bitcast.C1", "r", "p = (f32[]) parameter(0)\nROOT r = f32[] bitcast(p)"},
  {"bitcast.C2", "r", "p = f32[2,3] parameter(0)\nROOT r = f32[7] bitcast(p)"},
  {"broadcast.C1", "r", "p = (f32[]) parameter(0)\nROOT r = f32[2] broadcast(p), dimensions={}"},
  {"broadcast.C2", "r", "p = f32[3] parameter(0)\nROOT r = f32[2,3] broadcast(p), dimensions={}"},
  {"broadcast.C3", "r", "p = f32[3] parameter(0)\nROOT r = f32[2,3] broadcast(p), dimensions={2}"},
  {"broadcast.C4", "r", "p = f32[3] parameter(0)\nROOT r = f32[2,4] broadcast(p), dimensions={1}"},
  {"broadcast.C5", "r", "p = f32[3] parameter(0)\nROOT r = s32[2,3] broadcast(p), dimensions={1}"},
  {"dynamic-reshape.C1", "r", "p = (f32[]) parameter(0)\nd = s32[] parameter(1)\nROOT r = f32[<=4] dynamic-reshape(p, d)"},
  {"dynamic-reshape.C2", "r", "p = f32[4] parameter(0)\nd = s32[] parameter(1)\nROOT r = f32[<=2,2] dynamic-reshape(p, d)"},
  {"dynamic-reshape.C5", "r", "p = f32[6] parameter(0)\nd = s32[] parameter(1)\nROOT r = f32[<=9] dynamic-reshape(p, d)"},
  {"dynamic-reshape.C3", "r", "p = f32[4] parameter(0)\nd = s64[] parameter(1)\nROOT r = f32[<=4] dynamic-reshape(p, d)"},
  {"dynamic-reshape.C4", "r", "p = f32[4] parameter(0)\nd = s32[] parameter(1)\nROOT r = s32[<=4] dynamic-reshape(p, d)"},
  {"get-dimension-size.C1", "r", "p = (f32[]) parameter(0)\nROOT r = s32[] get-dimension-size(p), dimensions={0}"},
  {"get-dimension-size.C2", "r", "p = f32[4] parameter(0)\nROOT r = s32[] get-dimension-size(p), dimensions={1}"},
  {"set-dimension-size.C1", "r", "p = (f32[]) parameter(0)\nd = s32[] parameter(1)\nROOT r = f32[] set-dimension-size(p, d), dimensions={0}"},
  {"set-dimension-size.C2", "r", "p = f32[4] parameter(0)\nd = s32[] parameter(1)\nROOT r = f32[<=4] set-dimension-size(p, d), dimensions={1}"},
  {"set-dimension-size.C3", "r", "p = f32[4] parameter(0)\nd = s64[] parameter(1)\nROOT r = f32[<=4] set-dimension-size(p, d), dimensions={0}"},
  {"iota.C1", "r", "ROOT r = (s32[4]) iota(), iota_dimension=0"},
  {"iota.C2", "r", "ROOT r = s32[4] iota(), iota_dimension=1"},
  {"iota.C3", "r", "ROOT r = pred[4] iota(), iota_dimension=0"},
  {"reshape.C1", "r", "p = (f32[]) parameter(0)\nROOT r = f32[] reshape(p)"},
  {"reshape.C2", "r", "p = f32[2,3] parameter(0)\nROOT r = s32[6] reshape(p)"},
  {"reshape.C3", "r", "p = f32[2,3] parameter(0)\nROOT r = f32[5] reshape(p)"},
  {"reshape.C4", "r", "p = f32[2,3] parameter(0)\nROOT r = f32[6] reshape(p), inferred_dimension=1"},
  {"reverse.C1", "r", "p = (f32[]) parameter(0)\nROOT r = (f32[]) reverse(p), dimensions={}"},
  {"reverse.C2", "r", "p = f32[2,3] parameter(0)\nROOT r = f32[2,3] reverse(p), dimensions={0,0}"},
  {"transpose.C1", "r", "p = (f32[]) parameter(0)\nROOT r = (f32[]) transpose(p), dimensions={}"},
  {"transpose.C2", "r", "p = f32[2,3] parameter(0)\nROOT r = f32[3,2] transpose(p), dimensions={1,1}"},
  {"transpose.C2", "r", "p = f32[2,3] parameter(0)\nROOT r = f32[3,2] transpose(p), dimensions={1}"},
  {"module.C10", "r", "p = f32[2,3] parameter(0)\nROOT r = f32[2,3] transpose(p), dimensions={1,0}"},
  // --- slicing
  {"slice.C1", "r", "p = (f32[]) parameter(0)\nROOT r = f32[] slice(p), slice={}"},
  {"slice.C2", "r", "p = f32[4,4] parameter(0)\nROOT r = f32[2] slice(p), slice={[0:2]}"},
  {"slice.C3", "r", "p = f32[4] parameter(0)\nROOT r = f32[2] slice(p), slice={[3:5]}"},
  {"slice.C3", "r", "p = f32[4] parameter(0)\nROOT r = f32[0] slice(p), slice={[3:2]}"},
  {"slice.C4", "r", "p = f32[4] parameter(0)\nROOT r = f32[2] slice(p), slice={[0:4:0]}"},
  {"module.C10", "r", "p = f32[5] parameter(0)\nROOT r = f32[2] slice(p), slice={[0:5:2]}"},
  {"dynamic-slice.C1", "r", "p = (f32[]) parameter(0)\ni = s32[] parameter(1)\nROOT r = f32[1] dynamic-slice(p, i), dynamic_slice_sizes={1}"},
  {"dynamic-slice.C2", "r", "p = f32[4,4] parameter(0)\ni = s32[] parameter(1)\nROOT r = f32[1,1] dynamic-slice(p, i), dynamic_slice_sizes={1,1}"},
  {"dynamic-slice.C2", "r", "p = f32[4,4] parameter(0)\ni = s32[3] parameter(1)\nROOT r = f32[1,1] dynamic-slice(p, i), dynamic_slice_sizes={1,1}"},
  {"dynamic-slice.C3", "r", "p = f32[4,4] parameter(0)\ni = s32[] parameter(1)\nj = f32[] parameter(2)\nROOT r = f32[1,1] dynamic-slice(p, i, j), dynamic_slice_sizes={1,1}"},
  {"dynamic-slice.C3", "r", "p = f32[4,4] parameter(0)\ni = s32[] parameter(1)\nj = s64[] parameter(2)\nROOT r = f32[1,1] dynamic-slice(p, i, j), dynamic_slice_sizes={1,1}"},
  {"dynamic-slice.C4", "r", "p = f32[4,4] parameter(0)\ni = s32[] parameter(1)\nROOT r = f32[1] dynamic-slice(p, i, i), dynamic_slice_sizes={1}"},
  {"dynamic-slice.C5", "r", "p = f32[4,4] parameter(0)\ni = s32[] parameter(1)\nROOT r = f32[5,1] dynamic-slice(p, i, i), dynamic_slice_sizes={5,1}"},
  {"dynamic-update-slice.C1", "r", "p = f32[4] parameter(0)\nu = (f32[]) parameter(1)\ni = s32[] parameter(2)\nROOT r = f32[4] dynamic-update-slice(p, u, i)"},
  {"dynamic-update-slice.C2", "r", "p = f32[4,4] parameter(0)\nu = f32[2,2] parameter(1)\ni = s32[] parameter(2)\nROOT r = f32[4,4] dynamic-update-slice(p, u, i)"},
  {"dynamic-update-slice.C3", "r", "p = f32[4] parameter(0)\nu = f32[2] parameter(1)\ni = f32[] parameter(2)\nROOT r = f32[4] dynamic-update-slice(p, u, i)"},
  {"dynamic-update-slice.C4", "r", "p = f32[4] parameter(0)\nu = s32[2] parameter(1)\ni = s32[] parameter(2)\nROOT r = f32[4] dynamic-update-slice(p, u, i)"},
  {"dynamic-update-slice.C5", "r", "p = f32[4] parameter(0)\nu = f32[5] parameter(1)\ni = s32[] parameter(2)\nROOT r = f32[4] dynamic-update-slice(p, u, i)"},
  // --- concatenate / pad
  {"concatenate.C1", "r", "p = f32[2] parameter(0)\nt = (f32[]) parameter(1)\nROOT r = f32[3] concatenate(p, t), dimensions={0}"},
  {"concatenate.C2", "r", "p = f32[2] parameter(0)\nROOT r = f32[4] concatenate(p, p), dimensions={1}"},
  {"concatenate.C3", "r", "p = f32[2] parameter(0)\nq = s32[2] parameter(1)\nROOT r = f32[4] concatenate(p, q), dimensions={0}"},
  {"concatenate.C4", "r", "p = f32[2,3] parameter(0)\nq = f32[2,4] parameter(1)\nROOT r = f32[4,3] concatenate(p, q), dimensions={0}"},
  {"module.C10", "r", "p = f32[2,3] parameter(0)\nq = f32[2,4] parameter(1)\nROOT r = f32[2,8] concatenate(p, q), dimensions={1}"},
  {"pad.C1", "r", "p = (f32[]) parameter(0)\nv = f32[] parameter(1)\nROOT r = f32[] pad(p, v), padding=0_0"},
  {"pad.C2", "r", "p = f32[2] parameter(0)\nv = s32[] parameter(1)\nROOT r = f32[4] pad(p, v), padding=1_1"},
  {"pad.C3", "r", "p = f32[2,2] parameter(0)\nv = f32[] parameter(1)\nROOT r = f32[4] pad(p, v), padding=1_1"},
  {"pad.C5", "r", "p = f32[3] parameter(0)\nv = f32[] parameter(1)\nROOT r = f32[0] pad(p, v), padding=-2_-2"},
  {"module.C10", "r", "p = f32[3] parameter(0)\nv = f32[] parameter(1)\nROOT r = f32[6] pad(p, v), padding=-1_1_2"},
  // --- dot family
  {"dot.C1", "r", "p = (f32[]) parameter(0)\nq = f32[2] parameter(1)\nROOT r = f32[] dot(p, q), lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
  {"dot.C2", "r", "p = f32[2,3] parameter(0)\nq = f32[3,4] parameter(1)\nROOT r = f32[2,4] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={}"},
  {"dot.C2", "r", "p = f32[2,3] parameter(0)\nq = f32[3,4] parameter(1)\nROOT r = f32[3,4] dot(p, q), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  {"dot.C3", "r", "p = f32[2,3] parameter(0)\nq = f32[4,5] parameter(1)\nROOT r = f32[2,5] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  {"dot.C4", "r", "p = f32[2,3] parameter(0)\nq = f32[3,4] parameter(1)\nROOT r = f32[2,4] dot(p, q), lhs_contracting_dims={2}, rhs_contracting_dims={0}"},
  {"dot.C4", "r", "p = f32[3,3] parameter(0)\nq = f32[3,3] parameter(1)\nROOT r = f32[3] dot(p, q), lhs_batch_dims={1}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={1}"},
  {"dot.C5", "r", "p = f32[2,3,4] parameter(0)\nq = f32[5,4,6] parameter(1)\nROOT r = f32[2,3,6] dot(p, q), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}"},
  // dot.C6 is a warning on dot (XLA's mixed classes, VerifierApiTest.DotMixedClassesWarn); ragged-dot keeps the rule.
  {"ragged-dot.C6", "r", "p = f32[8,3] parameter(0)\nq = s32[3,4] parameter(1)\ng = s32[2] parameter(2)\nROOT r = f32[8,4] ragged-dot(p, q, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={0}, rhs_group_dims={}"},
  {"dot.C7", "r", "p = f32[2,3] parameter(0)\nq = c64[3,4] parameter(1)\nROOT r = f32[2,4] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  {"dot.C7", "r", "p = f32[2,3] parameter(0)\nq = f32[3,4] parameter(1)\nROOT r = c64[2,4] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  {"dot.C8", "r", "p = f32[2,3] parameter(0)\nq = f32[3,4] parameter(1)\nROOT r = f32[2,4] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={high}"},
  {"module.C10", "r", "p = f32[2,3] parameter(0)\nq = f32[3,4] parameter(1)\nROOT r = f32[4,2] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  {"ragged-dot.C1", "r", "p = f32[8,3] parameter(0)\nq = f32[3,4] parameter(1)\ng = (s32[2]) parameter(2)\nROOT r = f32[8,4] ragged-dot(p, q, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}, rhs_group_dims={}"},
  {"scaled-dot.C1", "r", "p = f32[2,32] parameter(0)\nps = (f32[2,1]) parameter(1)\nq = f32[32,4] parameter(2)\nqs = f32[1,4] parameter(3)\nROOT r = f32[2,4] scaled-dot(p, q, ps, qs), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  {"ragged-dot.C9", "r", "p = f32[8,3] parameter(0)\nq = f32[2,3,4] parameter(1)\ng = s32[2] parameter(2)\nROOT r = f32[8,4] ragged-dot(p, q, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={}, rhs_group_dims={0}"},
  {"ragged-dot.C10", "r", "p = f32[8,3] parameter(0)\nq = f32[3,4] parameter(1)\ng = s32[2] parameter(2)\nROOT r = f32[8,4] ragged-dot(p, q, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={0}, rhs_group_dims={}"},
  // The older description's order (lhs, lhs_scale, rhs, rhs_scale) is not
  // XLA's: rhs (f32[32,4]) is read as the lhs scale and does not
  // block-scale lhs f32[2,32].
  {"scaled-dot.C9", "r", "p = f32[2,32] parameter(0)\nps = f32[2,1] parameter(1)\nq = f32[32,4] parameter(2)\nqs = f32[1,4] parameter(3)\nROOT r = f32[2,4] scaled-dot(p, ps, q, qs), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  {"scaled-dot.C9", "r", "p = f32[2,32] parameter(0)\nps = f32[2,3] parameter(1)\nq = f32[32,4] parameter(2)\nqs = f32[1,4] parameter(3)\nROOT r = f32[2,4] scaled-dot(p, q, ps, qs), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  // ragged-dot.C11: group_sizes [p..., g] with p... the lhs batch dims then the free dims before the ragged one ([2,3] here, not [3]).
  {"ragged-dot.C11", "r", "p = f32[2,5,3] parameter(0)\nq = f32[3,2,3,4] parameter(1)\ng = s32[3,3] parameter(2)\nROOT r = f32[2,5,4] ragged-dot(p, q, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}"},
  // ragged-dot.C11 (contracting mode): the prefix is the batch dims then the contracting dims listed before the ragged one: [4], not [5].
  {"ragged-dot.C11", "r", "p = f32[2,4,6] parameter(0)\nq = f32[4,6,3] parameter(1)\ng = s32[5,2] parameter(2)\nROOT r = f32[2,2,3] ragged-dot(p, q, g), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}, lhs_ragged_dims={2}"},
  // ragged-dot.C12: the rhs group dimension must have one entry per group (3 != 2).
  {"ragged-dot.C12", "r", "p = f32[8,3] parameter(0)\nq = f32[3,3,4] parameter(1)\ng = s32[2] parameter(2)\nROOT r = f32[8,4] ragged-dot(p, q, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}"},
  // ragged-dot.C12: the rhs group dimension cannot be a contracting dimension.
  {"ragged-dot.C12", "r", "p = f32[8,2] parameter(0)\nq = f32[2,4] parameter(1)\ng = s32[2] parameter(2)\nROOT r = f32[8,4] ragged-dot(p, q, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={0}, rhs_group_dims={0}"},
  // scaled-dot.C10: integer operands / scales / result are refused.
  {"scaled-dot.C10", "r", "p = s8[2,32] parameter(0)\nps = s8[2,1] parameter(1)\nq = s8[32,4] parameter(2)\nqs = s8[1,4] parameter(3)\nROOT r = s32[2,4] scaled-dot(p, q, ps, qs), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  {"scaled-dot.C10", "r", "p = f8e4m3fn[2,32] parameter(0)\nps = s32[2,1] parameter(1)\nq = f8e4m3fn[32,4] parameter(2)\nqs = f8e8m0fnu[1,4] parameter(3)\nROOT r = f32[2,4] scaled-dot(p, q, ps, qs), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  {"scaled-dot.C10", "r", "p = c64[2,32] parameter(0)\nps = f32[2,1] parameter(1)\nq = c64[32,4] parameter(2)\nqs = f32[1,4] parameter(3)\nROOT r = c64[2,4] scaled-dot(p, q, ps, qs), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
  // --- convolution
  // convolution.C1: complex lhs with a real kernel (pred is allowed, issue 14).
  {"convolution.C1", "r", "p = c64[1,4,1] parameter(0)\nk = f32[3,1,1] parameter(1)\nROOT r = c64[1,2,1] convolution(p, k), window={size=3}, dim_labels=b0f_0io->b0f"},
  {"convolution.C2", "r", "p = f32[1,4,1,1] parameter(0)\nk = f32[3,1,1] parameter(1)\nROOT r = f32[1,2,1] convolution(p, k), window={size=3}, dim_labels=b0f_0io->b0f"},
  {"convolution.C3", "r", "p = f32[1,4,1] parameter(0)\nk = f32[3,1,1] parameter(1)\nROOT r = f32[1,3,1] convolution(p, k), window={size=2}, dim_labels=b0f_0io->b0f"},
  {"convolution.C4", "r", "p = f32[2,4,4] parameter(0)\nk = f32[3,2,4] parameter(1)\nROOT r = f32[1,2,4] convolution(p, k), window={size=3}, dim_labels=b0f_0io->b0f, feature_group_count=2, batch_group_count=2"},
  {"convolution.C5", "r", "p = f32[1,4,3] parameter(0)\nk = f32[3,1,4] parameter(1)\nROOT r = f32[1,2,4] convolution(p, k), window={size=3}, dim_labels=b0f_0io->b0f, feature_group_count=2"},
  {"convolution.C6", "r", "p = f32[1,4,4] parameter(0)\nk = f32[3,3,2] parameter(1)\nROOT r = f32[1,2,2] convolution(p, k), window={size=3}, dim_labels=b0f_0io->b0f"},
  {"convolution.C7", "r", "p = f32[3,4,1] parameter(0)\nk = f32[3,1,2] parameter(1)\nROOT r = f32[1,2,2] convolution(p, k), window={size=3}, dim_labels=b0f_0io->b0f, batch_group_count=2"},
  {"convolution.C8", "r", "p = f32[1,4,1] parameter(0)\nk = f32[3,1,1] parameter(1)\nROOT r = f32[1,2,1] convolution(p, k), window={size=3 stride=0}, dim_labels=b0f_0io->b0f"},
  {"module.C10", "r", "p = f32[1,5,1] parameter(0)\nk = f32[3,1,1] parameter(1)\nROOT r = f32[1,4,1] convolution(p, k), window={size=3 stride=2 pad=1_1}, dim_labels=b0f_0io->b0f"},
  // --- reduce family
  {"reduce.C1", "r", "p = f32[2] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[] reduce(p, z, z), dimensions={0}, to_apply=add_f32"},
  {"reduce.C2", "r", "p = f32[2] parameter(0)\nq = s32[3] parameter(1)\nz = f32[] constant(0)\ni = s32[] constant(0)\nROOT r = (f32[], s32[]) reduce(p, q, z, i), dimensions={0}, to_apply=argmax"},
  {"reduce.C3", "r", "p = f32[2] parameter(0)\nz = s32[] constant(0)\nROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add_f32"},
  {"reduce.C4", "r", "p = f32[2] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[] reduce(p, z), dimensions={1}, to_apply=add_f32"},
  {"reduce.C5", "r", "p = f32[2] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=lt_f32"},
  {"module.C10", "r", "p = f32[2,3] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[2] reduce(p, z), dimensions={0}, to_apply=add_f32"},
  {"reduce-window.C1", "r", "p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[2] reduce-window(p, z, z), window={size=2 stride=2}, to_apply=add_f32"},
  {"reduce-window.C3", "r", "p = f32[4] parameter(0)\nz = f32[2] parameter(1)\nROOT r = f32[2] reduce-window(p, z), window={size=2 stride=2}, to_apply=add_f32"},
  {"reduce-window.C4", "r", "p = f32[4,4] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[2] reduce-window(p, z), window={size=2 stride=2}, to_apply=add_f32"},
  {"reduce-window.C5", "r", "p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[2] reduce-window(p, z), window={size=2 stride=2}, to_apply=neg_f32"},
  {"module.C10", "r", "p = f32[5] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[3] reduce-window(p, z), window={size=2 stride=2}, to_apply=add_f32"},
  {"select-and-scatter.C1", "r", "p = f32[4] parameter(0)\ns = s32[2] parameter(1)\nz = f32[] constant(0)\nROOT r = f32[4] select-and-scatter(p, s, z), window={size=2 stride=2}, select=ge_f32, scatter=add_f32"},
  {"select-and-scatter.C2", "r", "p = f32[4] parameter(0)\ns = f32[2] parameter(1)\nz = f32[] constant(0)\nROOT r = f32[4] select-and-scatter(p, s, z), window={size=2x2 stride=2x2}, select=ge_f32, scatter=add_f32"},
  {"select-and-scatter.C3", "r", "p = f32[4] parameter(0)\ns = f32[3] parameter(1)\nz = f32[] constant(0)\nROOT r = f32[4] select-and-scatter(p, s, z), window={size=2 stride=2}, select=ge_f32, scatter=add_f32"},
  {"select-and-scatter.C4", "r", "p = f32[4] parameter(0)\ns = f32[2] parameter(1)\nz = f32[] constant(0)\nROOT r = f32[4] select-and-scatter(p, s, z), window={size=2 stride=2}, select=add_f32, scatter=add_f32"},
  {"select-and-scatter.C5", "r", "p = f32[4] parameter(0)\ns = f32[2] parameter(1)\nz = f32[] constant(0)\nROOT r = f32[4] select-and-scatter(p, s, z), window={size=2 stride=2}, select=ge_f32, scatter=ge_f32"},
  {"map.C1", "r", "p = f32[2] parameter(0)\nq = f32[3] parameter(1)\nROOT r = f32[2] map(p, q), dimensions={0}, to_apply=add_f32"},
  {"map.C2", "r", "p = f32[2,2] parameter(0)\nROOT r = f32[2,2] map(p), dimensions={1,0}, to_apply=neg_f32"},
  {"map.C3", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] map(p), dimensions={0}, to_apply=add_f32"},
  {"scan.C1", "r", "p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT r = (f32[4], f32[]) scan(p, z), dimensions={0}, num_carries=2, to_apply=scan_add_f32"},
  {"scan.C2", "r", "p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT r = (f32[4], f32[]) scan(p, z), dimensions={1}, num_carries=1, to_apply=scan_add_f32"},
  {"scan.C4", "r", "p = f32[4] parameter(0)\nq = f32[3] parameter(1)\nz = f32[] constant(0)\nROOT r = (f32[4], f32[]) scan(p, q, z), dimensions={0}, num_carries=1, to_apply=scan_add_f32"},
  {"scan.C5", "r", "p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT r = (f32[3], f32[]) scan(p, z), dimensions={0}, num_carries=1, to_apply=scan_add_f32"},
  {"scan.C5", "r", "p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT r = (f32[4], s32[]) scan(p, z), dimensions={0}, num_carries=1, to_apply=scan_add_f32"},
  {"scan.C6", "r", "p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT r = (f32[4], f32[]) scan(p, z), dimensions={0}, num_carries=1, to_apply=add_f32"},
  // --- gather / scatter
  {"gather.C1", "r", "p = f32[4,3] parameter(0)\ni = f32[2] parameter(1)\nROOT r = f32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}"},
  {"gather.C2", "r", "p = f32[4,3] parameter(0)\ni = s32[2] parameter(1)\nROOT r = f32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,3}"},
  {"gather.C3", "r", "p = f32[4,3,2] parameter(0)\ni = s32[5] parameter(1)\nROOT r = f32[5,3,2] gather(p, i), offset_dims={2,1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3,2}"},
  {"gather.C4", "r", "p = f32[4,3] parameter(0)\ni = s32[2] parameter(1)\nROOT r = f32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={2}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}"},
  {"gather.C5", "r", "p = f32[2,4,3] parameter(0)\ni = s32[2] parameter(1)\nROOT r = f32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={1}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1,3}"},
  {"gather.C6", "r", "p = f32[4,3] parameter(0)\ni = s32[2] parameter(1)\nROOT r = f32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}"},
  {"gather.C7", "r", "p = f32[4,3] parameter(0)\ni = s32[2,2] parameter(1)\nROOT r = f32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}"},
  {"gather.C8", "r", "p = f32[3,4,3] parameter(0)\ni = s32[2] parameter(1)\nROOT r = f32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1,3}"},
  {"gather.C9", "r", "p = f32[4,3] parameter(0)\ni = s32[2] parameter(1)\nROOT r = f32[2,4] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}"},
  {"gather.C10", "r", "p = f32[4,3] parameter(0)\ni = s32[2] parameter(1)\nROOT r = f32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3}"},
  {"module.C10", "r", "p = f32[4,3] parameter(0)\ni = s32[2] parameter(1)\nROOT r = f32[3,2] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}"},
  {"scatter.C1", "r", "p = f32[4] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2] parameter(2)\nROOT r = f32[4] scatter(p, i, u, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C2", "r", "p = f32[4] parameter(0)\ni = s32[2,1] parameter(1)\nu = s32[2] parameter(2)\nROOT r = f32[4] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C3", "r", "p = f32[4] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2] parameter(2)\nROOT r = f32[4] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=3, to_apply=add_f32"},
  {"scatter.C4", "r", "p = f32[4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,3] parameter(2)\nROOT r = f32[4,3] scatter(p, i, u), update_window_dims={2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C5", "r", "p = f32[4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,3] parameter(2)\nROOT r = f32[4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={2}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C6", "r", "p = f32[2,4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,3] parameter(2)\nROOT r = f32[2,4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={1}, scatter_indices_batching_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C7", "r", "p = f32[4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,3] parameter(2)\nROOT r = f32[4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C8", "r", "p = f32[4,3] parameter(0)\ni = s32[2,2] parameter(1)\nu = f32[2,3] parameter(2)\nROOT r = f32[4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C9", "r", "p = f32[3,4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,3] parameter(2)\nROOT r = f32[3,4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C10", "r", "p = f32[4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,3,1] parameter(2)\nROOT r = f32[4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C11", "r", "p = f32[4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,4] parameter(2)\nROOT r = f32[4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C12", "r", "p = f32[4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[5,3] parameter(2)\nROOT r = f32[4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32"},
  {"scatter.C13", "r", "p = f32[4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,3] parameter(2)\nROOT r = f32[4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_s32"},
  // --- sort / topk
  {"sort.C1", "r", "p = f32[4] parameter(0)\nq = s32[5] parameter(1)\nROOT r = (f32[4], s32[5]) sort(p, q), dimensions={0}, to_apply=lt_f32_s32"},
  {"sort.C2", "r", "p = f32[4] parameter(0)\nROOT r = f32[4] sort(p), dimensions={1}, to_apply=lt_f32"},
  {"sort.C3", "r", "p = f32[4] parameter(0)\nROOT r = f32[4] sort(p), dimensions={0}, to_apply=add_f32"},
  {"topk.C1", "r", "p = f32[] parameter(0)\nROOT r = (f32[], s32[]) topk(p), k=1"},
  {"topk.C2", "r", "p = f32[4] parameter(0)\nROOT r = (f32[5], s32[5]) topk(p), k=5"},
  {"topk.C3", "r", "p = c64[4] parameter(0)\nROOT r = (c64[2], s32[2]) topk(p), k=2"},
  // --- control flow
  {"call.C1", "r", "p = s32[2] parameter(0)\nROOT r = f32[2] call(p), to_apply=id_f32_2"},
  {"fusion.C1", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] fusion(p, p), kind=kLoop, calls=id_f32_2"},
  {"conditional.C1", "r", "c = s32[] parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] conditional(c, p, p), true_computation=id_f32_2, false_computation=id_f32_2"},
  {"conditional.C2", "r", "c = s32[] parameter(0)\nROOT r = f32[2] conditional(c), branch_computations={}"},
  {"conditional.C3", "r", "c = s32[] parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] conditional(c, p), branch_computations={id_f32_2, id_f32_2}"},
  {"conditional.C4", "r", "c = pred[] parameter(0)\np = f32[2] parameter(1)\nq = s32[2] parameter(2)\nROOT r = f32[2] conditional(c, p, q), true_computation=id_f32_2, false_computation=id_f32_2"},
  {"conditional.C5", "r", "c = pred[] parameter(0)\np = f32[2] parameter(1)\nq = s32[2] parameter(2)\nROOT r = f32[2] conditional(c, p, q), true_computation=id_f32_2, false_computation=id_s32_2"},
  {"while.C1", "r", "p = s32[] parameter(0)\nROOT r = s32[] while(p), condition=body_s32, body=body_s32"},
  {"while.C2", "r", "p = s32[] parameter(0)\nROOT r = s32[] while(p), condition=cond_s32, body=cond_s32"},
  // --- tuples and tokens
  {"get-tuple-element.C1", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] get-tuple-element(p), index=0"},
  {"get-tuple-element.C2", "r", "p = (f32[2]) parameter(0)\nROOT r = f32[2] get-tuple-element(p), index=1"},
  {"after-all.C1", "r", "p = f32[] parameter(0)\nROOT r = token[] after-all(p)"},
  {"add-dependency.C1", "r", "p = f32[] parameter(0)\nROOT r = f32[] add-dependency(p, p)"},
  {"module.C10", "r", "p = f32[2] parameter(0)\nq = s32[] parameter(1)\nROOT r = (f32[2], f32[]) tuple(p, q)"},
  // --- collectives
  {"all-reduce.C1", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] all-reduce(p), replica_groups={{0,1},{1,2}}, to_apply=add_f32", ", replica_count=4"},
  {"all-reduce.C2", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] all-reduce(p), replica_groups={{0,4}}, to_apply=add_f32", ", replica_count=4"},
  {"all-reduce.C5", "r", "p = (f32[2]) parameter(0)\nROOT r = (f32[2]) all-reduce(p), replica_groups={}, to_apply=add_f32"},
  {"all-reduce.C7", "r", "p = s32[2] parameter(0)\nROOT r = s32[2] all-reduce(p), replica_groups={}, to_apply=add_f32"},
  // X.C9: use_global_device_ids=true without a (positive) channel_id, as XLA refuses it.
  {"all-reduce.C9", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] all-reduce(p), replica_groups={{0}}, use_global_device_ids=true, to_apply=add_f32"},
  {"all-reduce.C9", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] all-reduce(p), channel_id=0, replica_groups={{0}}, use_global_device_ids=true, to_apply=add_f32"},
  {"all-gather.C9", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] all-gather(p), replica_groups={{0}}, use_global_device_ids=true, dimensions={0}"},
  {"reduce-scatter.C9", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] reduce-scatter(p), channel_id=-1, replica_groups={{0}}, use_global_device_ids=true, dimensions={0}, to_apply=add_f32"},
  {"all-gather.C4", "r", "p = f32[2] parameter(0)\nROOT r = f32[4] all-gather(p), replica_groups={{0,1},{2}}, dimensions={0}", ", replica_count=3"},
  {"all-gather.C6", "r", "p = f32[2] parameter(0)\nROOT r = f32[4] all-gather(p), replica_groups={{0,1}}, dimensions={1}", ", replica_count=2"},
  {"module.C10", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] all-gather(p), replica_groups={{0,1}}, dimensions={0}", ", replica_count=2"},
  {"reduce-scatter.C7", "r", "p = f32[4] parameter(0)\nROOT r = f32[2] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=lt_f32", ", replica_count=2"},
  {"reduce-scatter.C8", "r", "p = f32[3] parameter(0)\nROOT r = f32[1] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=add_f32", ", replica_count=2"},
  {"all-to-all.C7", "r", "p = f32[3] parameter(0)\nROOT r = f32[3] all-to-all(p), replica_groups={{0,1}}, dimensions={0}", ", replica_count=2"},
  {"all-to-all.C3", "r", "p = f32[4] parameter(0)\nROOT r = f32[4] all-to-all(p), replica_groups={{}}, dimensions={0}", ", replica_count=2"},
  {"collective-permute.C5", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] collective-permute(p), source_target_pairs={{0,1},{0,2}}", ", replica_count=4"},
  {"collective-permute.C6", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] collective-permute(p), source_target_pairs={{0,1},{2,1}}", ", replica_count=4"},
  {"collective-permute.C7", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] collective-permute(p), source_target_pairs={{0,5}}", ", replica_count=4"},
  {"all-reduce-done.C1", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] all-reduce-done(p)"},
  {"module.C10", "r", "ROOT r = s32[] replica-id()"},
  // --- rng
  {"rng.C1", "r", "a = f32[] parameter(0)\nROOT r = (f32[2]) rng(a, a), distribution=rng_uniform"},
  {"rng.C2", "r", "a = f32[2] parameter(0)\nROOT r = f32[2] rng(a, a), distribution=rng_uniform"},
  {"rng.C3", "r", "a = s32[] parameter(0)\nROOT r = s32[2] rng(a, a), distribution=rng_normal"},
  {"rng.C4", "r", "a = c64[] parameter(0)\nROOT r = c64[2] rng(a, a), distribution=rng_uniform"},
  {"rng-bit-generator.C1", "r", "s = u32[2] parameter(0)\nROOT r = (u32[2], u32[4]) rng-bit-generator(s), algorithm=rng_default"},
  {"rng-bit-generator.C2", "r", "s = u64[1] parameter(0)\nROOT r = (u64[1], u32[4]) rng-bit-generator(s), algorithm=rng_three_fry"},
  {"rng-bit-generator.C2", "r", "s = u64[0] parameter(0)\nROOT r = (u64[0], u32[4]) rng-bit-generator(s), algorithm=rng_philox"},
  {"rng-bit-generator.C3", "r", "s = u64[2] parameter(0)\nROOT r = (u64[2], f32[4]) rng-bit-generator(s), algorithm=rng_philox"},
  {"module.C10", "r", "ROOT r = u64[3] rng-get-and-update-state(), delta=4"},
  // --- fft
  {"fft.C1", "r", "p = (c64[8]) parameter(0)\nROOT r = c64[8] fft(p), fft_type=FFT, fft_length={8}"},
  {"fft.C2", "r", "p = c64[8] parameter(0)\nROOT r = c64[8] fft(p), fft_type=FFT, fft_length={8,8}"},
  {"fft.C3", "r", "p = f32[8] parameter(0)\nROOT r = f32[8] fft(p), fft_type=FFT, fft_length={8}"},
  {"fft.C4", "r", "p = c64[8] parameter(0)\nROOT r = f32[16] fft(p), fft_type=IRFFT, fft_length={16}"},
  {"module.C10", "r", "p = f32[16] parameter(0)\nROOT r = c64[16] fft(p), fft_type=RFFT, fft_length={16}"},
  // --- linalg
  {"cholesky.C1", "r", "p = f32[2,3] parameter(0)\nROOT r = f32[2,3] cholesky(p), lower=true"},
  {"cholesky.C1", "r", "p = s32[2,2] parameter(0)\nROOT r = s32[2,2] cholesky(p)"},
  {"triangular-solve.C1", "r", "a = f32[2,3] parameter(0)\nb = f32[2,3] parameter(1)\nROOT r = f32[2,3] triangular-solve(a, b), left_side=true, transpose_a=NO_TRANSPOSE"},
  {"triangular-solve.C2", "r", "a = f32[5,3,3] parameter(0)\nb = f32[4,3,2] parameter(1)\nROOT r = f32[4,3,2] triangular-solve(a, b), left_side=true, transpose_a=NO_TRANSPOSE"},
  {"triangular-solve.C3", "r", "a = f32[3,3] parameter(0)\nb = f32[3,2] parameter(1)\nROOT r = f32[3,2] triangular-solve(a, b), transpose_a=NO_TRANSPOSE"},
  // --- batch norm
  {"batch-norm-training.C1", "r", "x = s32[2,3] parameter(0)\ns = s32[3] parameter(1)\nROOT r = (s32[2,3], s32[3], s32[3]) batch-norm-training(x, s, s), epsilon=0.001, feature_index=1"},
  {"batch-norm-training.C2", "r", "x = f32[2,3] parameter(0)\ns = f32[3] parameter(1)\nROOT r = (f32[2,3], f32[3], f32[3]) batch-norm-training(x, s, s), epsilon=0.001, feature_index=2"},
  {"batch-norm-inference.C3", "r", "x = f32[2,3] parameter(0)\ns = f32[2] parameter(1)\nROOT r = f32[2,3] batch-norm-inference(x, s, s, s, s), epsilon=0.001, feature_index=1"},
  {"batch-norm-grad.C4", "r", "x = f32[2,3] parameter(0)\ns = f32[3] parameter(1)\ng = f32[3,2] parameter(2)\nROOT r = (f32[2,3], f32[3], f32[3]) batch-norm-grad(x, s, s, s, g), epsilon=0.001, feature_index=1"},
  // --- host io
  {"infeed.C1", "r", "p = f32[] parameter(0)\nROOT r = (f32[2], token[]) infeed(p)"},
  {"infeed.C2", "r", "t = token[] after-all()\nROOT r = (f32[2]) infeed(t)"},
  {"infeed.C3", "r", "t = token[] after-all()\nROOT r = (((f32[2])), token[]) infeed(t)"},
  {"outfeed.C1", "r", "p = f32[2] parameter(0)\nROOT r = token[] outfeed(p, p), outfeed_shape=f32[2]"},
  {"outfeed.C2", "r", "p = f32[2] parameter(0)\nt = token[] after-all()\nROOT r = token[] outfeed(p, t), outfeed_shape=f32[3]"},
  {"recv.C2", "r", "t = token[] after-all()\nROOT r = (f32[2], s32[], token[]) recv(t), channel_id=1"},
  {"send-done.C1", "r", "t = token[] after-all()\nROOT r = token[] send-done(t), channel_id=1"},
  {"recv-done.C2", "r", "t = token[] after-all()\nv = (f32[2], u32[], token[]) recv(t), channel_id=1\nROOT r = (f32[2], token[]) recv-done(v), channel_id=2"},
  // --- custom call / async
  {"custom-call.C2", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] custom-call(p), custom_call_target=\"foo\", operand_layout_constraints={f32[3]{0}}"},
  {"async-start.C1", "r", "p = s32[2] parameter(0)\nROOT r = ((s32[2]), f32[2], s32[]) async-start(p), calls=id_f32_2"},
  {"async-start.C2", "r", "p = f32[2] parameter(0)\nROOT r = ((f32[2]), f32[3], s32[]) async-start(p), calls=id_f32_2"},
  {"async-done.C1", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] async-done(p)"},
  {"copy-start.C1", "r", "p = f32[2] parameter(0)\nROOT r = (f32[3], f32[2], u32[]) copy-start(p)"},
  {"copy-done.C1", "r", "p = (f32[2], f32[2], u32[]) parameter(0)\nROOT r = f32[2] copy-done(p)"},
  {"reduce-window.C2", "r", "p = f32[4] parameter(0)\nq = s32[5] parameter(1)\nz = f32[] constant(0)\ni = s32[] constant(0)\nROOT r = (f32[2], s32[2]) reduce-window(p, q, z, i), window={size=2 stride=2}, to_apply=argmax"},
  {"ragged-all-to-all.C6", "r", "p = f32[4] parameter(0)\nq = s32[4] parameter(1)\no = s32[2] parameter(2)\nROOT r = s32[4] ragged-all-to-all(p, q, o, o, o, o), replica_groups={{0,1}}", ", replica_count=2"},
  {"ragged-all-to-all.C7", "r", "p = f32[4] parameter(0)\no = s32[2] parameter(1)\nf = f32[2] parameter(2)\nROOT r = f32[4] ragged-all-to-all(p, p, o, o, f, o), replica_groups={{0,1}}", ", replica_count=2"},
  {"ragged-all-to-all.C8", "r", "p = f32[4] parameter(0)\no = s32[2,1,1] parameter(1)\nROOT r = f32[4] ragged-all-to-all(p, p, o, o, o, o), replica_groups={{0,1}}", ", replica_count=2"},
  {"ragged-all-to-all.C9", "r", "p = f32[4,2] parameter(0)\nq = f32[4,3] parameter(1)\no = s32[2] parameter(2)\nROOT r = f32[4,3] ragged-all-to-all(p, q, o, o, o, o), replica_groups={{0,1}}", ", replica_count=2"},
  {"all-gather.C5", "r", "p = (f32[2]) parameter(0)\nROOT r = (f32[2]) all-gather(p), replica_groups={}, dimensions={0}"},
  {"all-to-all.C6", "r", "p = f32[4] parameter(0)\nROOT r = (f32[4], f32[4]) all-to-all(p, p), replica_groups={{0,1}}, dimensions={0}", ", replica_count=2"},
  {"collective-permute-start.C8", "r", "p = f32[2] parameter(0)\nROOT r = (f32[2], f32[3]) collective-permute-start(p), source_target_pairs={{0,1}}", ", replica_count=2"},
  {"collective-permute-done.C1", "r", "p = (f32[2], f32[2]) parameter(0)\nROOT r = f32[2] collective-permute-done(p)"},
  {"all-gather-done.C1", "r", "p = (f32[2], f32[4]) parameter(0)\nROOT r = f32[4] all-gather-done(p)"},
  {"custom-call.C1", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] custom-call(p), custom_call_target=\"\""},
  {"send.C1", "r", "p = f32[2] parameter(0)\nROOT r = (f32[2], u32[], token[]) send(p, p), channel_id=1"},
  {"recv.C1", "r", "p = f32[2] parameter(0)\nROOT r = (f32[2], u32[], token[]) recv(p), channel_id=1"},
  {"recv-done.C1", "r", "t = token[] after-all()\nROOT r = (f32[2], token[]) recv-done(t), channel_id=1"},
  {"async-update.C1", "r", "p = f32[2] parameter(0)\nROOT r = f32[2] async-update(p)"},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Rules, NegativeTest, ::testing::ValuesIn(kCases),
                         CaseName);

// --- well-formed modules: every opcode verifies

// clang-format off
const char* const kPositive[] = {
  // elementwise unary
  "p = f32[2,3] parameter(0)\nROOT r = f32[2,3] abs(p)",
  "p = c64[2] parameter(0)\nROOT r = f32[2] abs(p)",
  "p = s8[2] parameter(0)\nROOT r = s8[2] abs(p)",
  "p = f32[2] parameter(0)\na = f32[2] acos(p)\nb = f32[2] acosh(a)\nc = f32[2] asin(b)\nd = f32[2] asinh(c)\ne = f32[2] atanh(d)\nf = f32[2] cbrt(e)\ng = f32[2] ceil(f)\nh = f32[2] cosh(g)\ni = f32[2] cosine(h)\nj = f32[2] erf(i)\nk = f32[2] exponential(j)\nl = f32[2] exponential-minus-one(k)\nm = f32[2] floor(l)\nn = f32[2] log(m)\no = f32[2] log-plus-one(n)\nq = f32[2] logistic(o)\ns = f32[2] negate(q)\nt = f32[2] round-nearest-afz(s)\nu = f32[2] round-nearest-even(t)\nv = f32[2] rsqrt(u)\nw = f32[2] sign(v)\nx = f32[2] sine(w)\ny = f32[2] sinh(x)\nz = f32[2] sqrt(y)\naa = f32[2] tan(z)\nROOT bb = f32[2] tanh(aa)",
  "p = c128[2] parameter(0)\nre = f64[2] real(p)\nim = f64[2] imag(p)\nROOT r = c128[2] complex(re, im)",
  "p = bf16[2] parameter(0)\nROOT r = pred[2] is-finite(p)",
  "p = u32[2] parameter(0)\na = u32[2] not(p)\nb = u32[2] popcnt(a)\nROOT c = u32[2] count-leading-zeros(b)",
  "p = pred[2] parameter(0)\nROOT r = pred[2] not(p)",
  // elementwise binary
  "p = f32[2] parameter(0)\na = f32[2] add(p, p)\nb = f32[2] subtract(a, p)\nc = f32[2] multiply(b, p)\nd = f32[2] divide(c, p)\ne = f32[2] remainder(d, p)\nf = f32[2] power(e, p)\ng = f32[2] atan2(f, p)\nh = f32[2] maximum(g, p)\nROOT i = f32[2] minimum(h, p)",
  "p = s32[2] parameter(0)\na = s32[2] and(p, p)\nb = s32[2] or(a, p)\nc = s32[2] xor(b, p)\nd = s32[2] shift-left(c, p)\ne = s32[2] shift-right-arithmetic(d, p)\nf = s32[2] shift-right-logical(e, p)\nROOT g = s32[2] mulhi(f, p)",
  "p = pred[2] parameter(0)\nROOT r = pred[2] add(p, p)",
  // compare / select / clamp
  "p = f32[2] parameter(0)\nROOT r = pred[2] compare(p, p), direction=LT, type=TOTALORDER",
  "p = u8[2] parameter(0)\nROOT r = pred[2] compare(p, p), direction=GE, type=UNSIGNED",
  "c = pred[] parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] select(c, p, p)",
  "c = pred[2] parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] select(c, p, p)",
  "lo = f32[] parameter(0)\np = f32[2] parameter(1)\nhi = f32[2] parameter(2)\nROOT r = f32[2] clamp(lo, p, hi)",
  // convert
  "p = f32[2] parameter(0)\nROOT r = s8[2] convert(p)",
  "p = f32[10] parameter(0)\nROOT r = f16[10,2] bitcast-convert(p)",
  "p = f16[10,2] parameter(0)\nROOT r = f32[10] bitcast-convert(p)",
  "p = f32[] parameter(0)\nROOT r = u8[4] bitcast-convert(p)",
  "p = f32[3] parameter(0)\nROOT r = s32[3] bitcast-convert(p)",
  "p = f32[2] parameter(0)\nROOT r = f32[2] reduce-precision(p), exponent_bits=5, mantissa_bits=10",
  "p = f32[2] parameter(0)\nq = u32[2] parameter(1)\nROOT r = bf16[2] stochastic-convert(p, q)",
  // shape family
  "p = f32[2,3] parameter(0)\nROOT r = s32[6] bitcast(p)",
  "p = f32[3] parameter(0)\nROOT r = f32[2,3] broadcast(p), dimensions={1}",
  "p = f32[1,3] parameter(0)\nROOT r = f32[2,3,4] broadcast(p), dimensions={0,1}",
  "p = f32[] parameter(0)\nROOT r = f32[2,3] broadcast(p), dimensions={}",
  "p = f32[2,3] parameter(0)\nROOT r = f32[2,3] copy(p)",
  "p = f32[4] parameter(0)\nd = s32[] parameter(1)\ne = s32[] parameter(2)\nROOT r = f32[<=2,<=2] dynamic-reshape(p, d, e)",
  "p = f32[4,3] parameter(0)\nROOT r = s32[] get-dimension-size(p), dimensions={1}",
  "p = f32[4] parameter(0)\nd = s32[] parameter(1)\nROOT r = f32[<=4] set-dimension-size(p, d), dimensions={0}",
  "ROOT r = f32[4,8] iota(), iota_dimension=1",
  "p = f32[2,3,4] parameter(0)\nROOT r = f32[6,4] reshape(p)",
  "p = f32[1,1] parameter(0)\nROOT r = f32[] reshape(p)",
  "p = f32[2,3] parameter(0)\nROOT r = f32[2,3] reverse(p), dimensions={0,1}",
  "p = f32[2,3,4] parameter(0)\nROOT r = f32[4,2,3] transpose(p), dimensions={2,0,1}",
  // slicing
  "p = f32[4,3] parameter(0)\nROOT r = f32[2,2] slice(p), slice={[2:4], [0:3:2]}",
  "p = f32[5] parameter(0)\nROOT r = f32[3] slice(p), slice={[0:5:2]}",
  "p = f32[4,3] parameter(0)\ni = s32[] parameter(1)\nj = s32[] parameter(2)\nROOT r = f32[2,2] dynamic-slice(p, i, j), dynamic_slice_sizes={2,2}",
  "p = f32[4,3] parameter(0)\ni = s64[2] parameter(1)\nROOT r = f32[2,0] dynamic-slice(p, i), dynamic_slice_sizes={2,0}",
  "p = f32[4,3] parameter(0)\nu = f32[2,3] parameter(1)\ni = u32[] parameter(2)\nROOT r = f32[4,3] dynamic-update-slice(p, u, i, i)",
  // concatenate / pad
  "p = f32[2,3] parameter(0)\nq = f32[2,4] parameter(1)\nROOT r = f32[2,10] concatenate(p, q, p), dimensions={1}",
  "p = f32[3] parameter(0)\nv = f32[] parameter(1)\nROOT r = f32[7] pad(p, v), padding=-1_1_2",
  "p = f32[2,3] parameter(0)\nv = f32[] parameter(1)\nROOT r = f32[4,1] pad(p, v), padding=1_1x-1_-1",
  // dot family
  "p = f32[2,3] parameter(0)\nq = f32[3,4] parameter(1)\nROOT r = f32[2,4] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
  "p = f32[3] parameter(0)\nROOT r = f32[] dot(p, p), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
  "p = f32[5,2,3] parameter(0)\nq = f32[5,4,3] parameter(1)\nROOT r = f32[5,2,4] dot(p, q), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}",
  "p = s8[2,3] parameter(0)\nq = s8[3,4] parameter(1)\nROOT r = s32[2,4] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={high,highest}",
  "p = bf16[2,3] parameter(0)\nq = f8e4m3fn[3,4] parameter(1)\nROOT r = f32[2,4] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
  "p = f32[2] parameter(0)\nq = f32[3] parameter(1)\nROOT r = f32[2,3] dot(p, q), lhs_contracting_dims={}, rhs_contracting_dims={}",
  "p = f32[8,3] parameter(0)\nq = f32[2,3,4] parameter(1)\ng = s32[2] parameter(2)\nROOT r = f32[8,4] ragged-dot(p, q, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}",
  "p = f32[2,8] parameter(0)\nq = f32[8,4] parameter(1)\ng = s32[3] parameter(2)\nROOT r = f32[3,2,4] ragged-dot(p, q, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}, rhs_group_dims={}",
  "p = f32[2,32] parameter(0)\nps = f32[2,1] parameter(1)\nq = f32[32,4] parameter(2)\nqs = f32[1,4] parameter(3)\nROOT r = f32[2,4] scaled-dot(p, q, ps, qs), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
  // ragged-dot: group_sizes with a prefix (batch, then free dims before the ragged one), ragged batch mode, MX scaled-dot.
  "p = f32[2,5,3] parameter(0)\nq = f32[3,2,3,4] parameter(1)\ng = s32[2,3] parameter(2)\nROOT r = f32[2,5,4] ragged-dot(p, q, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}",
  "p = f32[2,4,6] parameter(0)\nq = f32[4,6,3] parameter(1)\ng = s32[4,2] parameter(2)\nROOT r = f32[2,2,3] ragged-dot(p, q, g), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}, lhs_ragged_dims={2}",
  "p = s8[4,2,3] parameter(0)\nq = s8[4,3,5] parameter(1)\ng = u32[2] parameter(2)\nROOT r = s32[4,2,5] ragged-dot(p, q, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={0}",
  "p = f8e4m3fn[2,64] parameter(0)\nps = f8e8m0fnu[2,2] parameter(1)\nq = f8e5m2[64,3] parameter(2)\nqs = f8e8m0fnu[2,3] parameter(3)\nROOT r = f32[2,3] scaled-dot(p, q, ps, qs), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
  // scaled-dot in XLA's operand order (lhs, rhs, lhs_scale, rhs_scale), the example of issue 14.
  "lhs = f8e4m3fn[32,256] parameter(0)\nrhs = f8e4m3fn[16,256] parameter(1)\nlhs_scale = f8e8m0fnu[32,8] parameter(2)\nrhs_scale = f8e8m0fnu[16,8] parameter(3)\nROOT r = f32[32,16] scaled-dot(lhs, rhs, lhs_scale, rhs_scale), lhs_contracting_dims={1}, rhs_contracting_dims={1}",
  // convolution
  "p = f32[1,5,1] parameter(0)\nk = f32[3,1,1] parameter(1)\nROOT r = f32[1,3,1] convolution(p, k), window={size=3 stride=2 pad=1_1}, dim_labels=b0f_0io->b0f",
  "p = f32[2,8,8,4] parameter(0)\nk = f32[3,3,2,6] parameter(1)\nROOT r = f32[2,3,3,6] convolution(p, k), window={size=3x3 stride=2x2 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f, feature_group_count=2",
  "p = f32[4,5,3] parameter(0)\nk = f32[3,3,4] parameter(1)\nROOT r = f32[2,5,4] convolution(p, k), window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f, batch_group_count=2",
  "p = f32[1,3,4] parameter(0)\nk = f32[2,3,2] parameter(1)\nROOT r = f32[1,2,8] convolution(p, k), window={size=2 pad=1_1 lhs_dilate=2}, dim_labels=bf0_oi0->bf0",
  "p = f32[1,1] parameter(0)\nk = f32[1,4] parameter(1)\nROOT r = f32[1,4] convolution(p, k), dim_labels=bf_io->bf",
  // convolution on pred, as XLA parses, verifies and runs it (issue 14).
  "p = pred[1,4,1] parameter(0)\nk = pred[3,1,1] parameter(1)\nROOT r = pred[1,2,1] convolution(p, k), window={size=3}, dim_labels=b0f_0io->b0f",
  "p = pred[1,4,2] parameter(0)\nk = pred[3,2,1] parameter(1)\nROOT r = s32[1,2,1] convolution(p, k), window={size=3}, dim_labels=b0f_0io->b0f",
  // reduce family
  "p = f32[2,3] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[3] reduce(p, z), dimensions={0}, to_apply=add_f32",
  "p = f32[2,3] parameter(0)\nq = s32[2,3] parameter(1)\nz = f32[] constant(0)\ni = s32[] constant(0)\nROOT r = (f32[2], s32[2]) reduce(p, q, z, i), dimensions={1}, to_apply=argmax",
  "p = f32[4,6] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[2,2] reduce-window(p, z), window={size=2x3 stride=2x3}, to_apply=add_f32",
  "p = f32[5] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[9] reduce-window(p, z), window={size=1 lhs_dilate=2}, to_apply=add_f32",
  "p = f32[4] parameter(0)\ns = f32[2] parameter(1)\nz = f32[] constant(0)\nROOT r = f32[4] select-and-scatter(p, s, z), window={size=2 stride=2}, select=ge_f32, scatter=add_f32",
  "p = f32[2] parameter(0)\nq = f32[2] parameter(1)\nROOT r = f32[2] map(p, q), dimensions={0}, to_apply=add_f32",
  "p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT r = (f32[4], f32[]) scan(p, z), dimensions={0}, num_carries=1, to_apply=scan_add_f32",
  "p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[] scan(p, z), dimensions={0}, num_carries=1, is_reverse=true, to_apply=add_f32",
  "p = f32[0,2] parameter(0)\nROOT r = f32[0,2] scan(p, p), dimensions={0}, num_carries=0, to_apply=add_f32_2",
  // gather / scatter
  "p = f32[4,3] parameter(0)\ni = s32[5] parameter(1)\nROOT r = f32[5,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}",
  "p = f32[16,11] parameter(0)\ni = s64[5,2] parameter(1)\nROOT r = f32[5,8,6] gather(p, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={8,6}",
  "p = f32[2,4,3] parameter(0)\ni = s32[2,1] parameter(1)\nROOT r = f32[2,3] gather(p, i), offset_dims={1}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1,3}",
  "p = f32[4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,3] parameter(2)\nROOT r = f32[4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32",
  "p = f32[4] parameter(0)\nq = s32[4] parameter(1)\ni = s32[2] parameter(2)\nu = f32[2] parameter(3)\nv = s32[2] parameter(4)\nROOT r = (f32[4], s32[4]) scatter(p, q, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=argmax",
  "p = f32[2,4,3] parameter(0)\ni = s32[2,1] parameter(1)\nu = f32[2,3] parameter(2)\nROOT r = f32[2,4,3] scatter(p, i, u), update_window_dims={1}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=1, to_apply=add_f32",
  // sort / topk
  "p = f32[4,3] parameter(0)\nROOT r = f32[4,3] sort(p), dimensions={0}, is_stable=true, to_apply=lt_f32",
  "p = f32[4] parameter(0)\nq = s32[4] parameter(1)\nROOT r = (f32[4], s32[4]) sort(p, q), dimensions={0}, to_apply=lt_f32_s32",
  "p = f32[3,8] parameter(0)\nROOT r = (f32[3,2], s32[3,2]) topk(p), k=2, largest=true",
  // topk on pred, as XLA:CPU compiles and runs it (issue 14).
  "p = pred[2,5] parameter(0)\nROOT r = (pred[2,3], s32[2,3]) topk(p), k=3",
  // control flow
  "p = f32[2] parameter(0)\nROOT r = f32[2] call(p), to_apply=id_f32_2",
  "p = f32[2] parameter(0)\nROOT r = f32[2] call(p), to_apply=id_f32_2, is_composite=true",
  "p = f32[2] parameter(0)\nb = s32[] parameter(1)\nROOT r = f32[2] fusion(p, b), kind=kLoop, calls=two_params",
  "c = pred[] parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] conditional(c, p, p), true_computation=id_f32_2, false_computation=id_f32_2",
  "c = s32[] parameter(0)\np = f32[2] parameter(1)\nROOT r = f32[2] conditional(c, p, p, p), branch_computations={id_f32_2, id_f32_2, id_f32_2}",
  "p = s32[] parameter(0)\nROOT r = s32[] while(p), condition=cond_s32, body=body_s32",
  // tuples, tokens, constants
  "p = f32[2] parameter(0)\nq = s32[] parameter(1)\nt = (f32[2], s32[]) tuple(p, q)\ng = s32[] get-tuple-element(t), index=1\nROOT e = () tuple()",
  "t0 = token[] after-all()\nt1 = token[] after-all(t0, t0)\np = f32[2] parameter(0)\nROOT r = f32[2] add-dependency(p, t1)",
  "c = f32[2,2] constant({{1, 2}, {3, 4}})\nd = (f32[], s32[]) constant((1, 2))\nROOT r = f32[2,2] opt-barrier(c)",
  "p = (f32[2], s32[]) parameter(0)\nROOT r = (f32[2], s32[]) opt-barrier(p)",
  "p = f32[2] parameter(0)\nROOT r = f32[2] domain(p), domain={kind=\"sharding\", entry={maximal device=0}, exit={replicated}}",
  // collectives
  "p = f32[2] parameter(0)\nROOT r = f32[2] all-reduce(p), replica_groups={{0,1},{2,3}}, to_apply=add_f32",
  "p = f32[2] parameter(0)\nq = f32[3] parameter(1)\nROOT r = (f32[2], f32[3]) all-reduce(p, q), replica_groups={}, to_apply=add_f32",
  "p = f32[2] parameter(0)\ns = f32[2] all-reduce-start(p), replica_groups={{0,1}}, to_apply=add_f32\nROOT r = f32[2] all-reduce-done(s)",
  "p = f32[2,3] parameter(0)\nROOT r = f32[2,6] all-gather(p), replica_groups={{0,1},{2,3}}, dimensions={1}",
  "p = f32[2] parameter(0)\ns = (f32[2], f32[4]) all-gather-start(p), replica_groups={{0,1}}, dimensions={0}\nROOT r = f32[4] all-gather-done(s)",
  "p = f32[8] parameter(0)\nROOT r = f32[2] reduce-scatter(p), replica_groups={{0,1,2,3}}, dimensions={0}, to_apply=add_f32",
  "p = f32[4,6] parameter(0)\nROOT r = f32[4,6] all-to-all(p), replica_groups={{0,1}}, dimensions={1}",
  "p = f32[4] parameter(0)\nq = f32[4] parameter(1)\nROOT r = (f32[4], f32[4]) all-to-all(p, q), replica_groups={{0,1}}",
  "p = f32[2] parameter(0)\nROOT r = f32[2] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,0}}",
  "p = f32[2] parameter(0)\ns = (f32[2], f32[2], u32[], u32[]) collective-permute-start(p), source_target_pairs={{0,1},{1,0}}\nROOT r = f32[2] collective-permute-done(s)",
  "p = f32[2] parameter(0)\nROOT r = f32[2] collective-broadcast(p), replica_groups={{0,1}}",
  "p = f32[8] parameter(0)\nq = f32[8] parameter(1)\no = s64[2] parameter(2)\nROOT r = f32[8] ragged-all-to-all(p, q, o, o, o, o), replica_groups={{0,1}}",
  "a = u32[] replica-id()\nROOT b = u32[] partition-id()",
  // rng
  "a = f32[] parameter(0)\nROOT r = f32[3,2] rng(a, a), distribution=rng_normal",
  "a = s32[] parameter(0)\nROOT r = s32[3] rng(a, a), distribution=rng_uniform",
  "s = u64[2] parameter(0)\nROOT r = (u64[2], u32[4,4]) rng-bit-generator(s), algorithm=rng_three_fry",
  "s = u64[3] parameter(0)\nROOT r = (u64[3], u8[7]) rng-bit-generator(s), algorithm=rng_philox",
  // Longer states, as XLA's verifier accepts them (impl.rng-bit-generator.3).
  "s = u64[3] parameter(0)\nROOT r = (u64[3], u32[4]) rng-bit-generator(s), algorithm=rng_three_fry",
  "s = u64[5] parameter(0)\nROOT r = (u64[5], u32[4]) rng-bit-generator(s), algorithm=rng_default",
  "ROOT r = u64[2] rng-get-and-update-state(), delta=4096",
  // fft
  "p = c64[8,32] parameter(0)\nROOT r = c64[8,32] fft(p), fft_type=FFT, fft_length={32}",
  "p = c128[4,8] parameter(0)\nROOT r = c128[4,8] fft(p), fft_type=IFFT, fft_length={4,8}",
  "p = f32[3,16] parameter(0)\nROOT r = c64[3,9] fft(p), fft_type=RFFT, fft_length={16}",
  "p = c64[3,9] parameter(0)\nROOT r = f32[3,17] fft(p), fft_type=IRFFT, fft_length={17}",
  // linalg
  "p = f32[5,3,3] parameter(0)\nROOT r = f32[5,3,3] cholesky(p), lower=true",
  "a = f32[5,3,3] parameter(0)\nb = f32[5,3,2] parameter(1)\nROOT r = f32[5,3,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=TRANSPOSE",
  "a = c64[3,3] parameter(0)\nb = c64[2,3] parameter(1)\nROOT r = c64[2,3] triangular-solve(a, b), transpose_a=ADJOINT",
  // batch norm
  "x = f32[2,3,4] parameter(0)\ns = f32[4] parameter(1)\nROOT r = (f32[2,3,4], f32[4], f32[4]) batch-norm-training(x, s, s), epsilon=0.001, feature_index=2",
  "x = f32[2,3] parameter(0)\ns = f32[3] parameter(1)\nROOT r = f32[2,3] batch-norm-inference(x, s, s, s, s), epsilon=0.001, feature_index=1",
  "x = f32[2,3] parameter(0)\ns = f32[2] parameter(1)\nROOT r = (f32[2,3], f32[2], f32[2]) batch-norm-grad(x, s, s, s, x), epsilon=0.001, feature_index=0",
  // host io
  "t = token[] after-all()\ni = ((f32[4], s32[]), token[]) infeed(t), infeed_config=\"cfg\"\nd = (f32[4], s32[]) get-tuple-element(i), index=0\nt2 = token[] get-tuple-element(i), index=1\nROOT o = token[] outfeed(d, t2), outfeed_shape=(f32[4], s32[]), outfeed_config=\"cfg\"",
  "p = f32[4] parameter(0)\nt = token[] after-all()\ns = (f32[4], u32[], token[]) send(p, t), channel_id=7\nsd = token[] send-done(s), channel_id=7\nr = (f32[4], u32[], token[]) recv(t), channel_id=8\nROOT rd = (f32[4], token[]) recv-done(r), channel_id=8",
  // custom call / async
  "p = f32[2] parameter(0)\nROOT r = (f32[8,8], s8[1024]) custom-call(p), custom_call_target=\"__cublas$gemm\", api_version=API_VERSION_STATUS_RETURNING, backend_config={\"alpha_real\":1}",
  "p = f32[2] parameter(0)\nROOT r = f32[2] custom-call(p), custom_call_target=\"foo\", operand_layout_constraints={f32[2]{0}}",
  "p = f32[2] parameter(0)\ns = ((f32[2]), f32[2], s32[]) async-start(p), calls=id_f32_2\nu = ((f32[2]), f32[2], s32[]) async-update(s)\nROOT d = f32[2] async-done(u)",
  "p = f32[4] parameter(0)\ns = (f32[4]{0:S(1)}, f32[4], u32[]) copy-start(p)\nROOT d = f32[4]{0:S(1)} copy-done(s)",
};
// clang-format on

class PositiveTest : public ::testing::TestWithParam<const char*> {};

TEST_P(PositiveTest, Verifies) {
  absl::Status st = ParseAndVerify(Module(GetParam(), ", replica_count=4"));
  EXPECT_TRUE(st.ok()) << st << "\n" << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Ops, PositiveTest, ::testing::ValuesIn(kPositive));

// Every opcode of spec/ops.def appears in some well-formed module above.
TEST(PositiveCoverageTest, EveryOpcodeCovered) {
  std::set<HloOpcode> seen;
  for (const char* entry : kPositive) {
    auto m = Parse(Module(entry, ", replica_count=4"));
    ASSERT_TRUE(m.ok()) << m.status() << "\n" << entry;
    for (const auto& c : (*m)->computations()) {
      for (const auto& inst : c->instructions()) seen.insert(inst->opcode());
    }
  }
  for (const OpInfo& info : AllOps()) {
    EXPECT_TRUE(seen.count(info.opcode))
        << info.name << " has no positive case";
  }
}

// Realistic dumps: the parser's testdata modules (docs/hlo-text-format.md
// section 11 examples and dumps in each printing style) all verify.
TEST(RealisticDumpsTest, ParserTestdataVerifies) {
  const std::filesystem::path dir =
      std::filesystem::path(HLOREF_SOURCE_DIR) / "spec/ir/testdata";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".hlo") continue;
    ++count;
    auto m = ParseHloModuleFile(entry.path().string());
    ASSERT_TRUE(m.ok()) << entry.path() << ": " << m.status();
    absl::Status st = VerifyModule(**m);
    EXPECT_TRUE(st.ok()) << entry.path() << ": " << st;
  }
  EXPECT_GE(count, 6) << "expected the section 11 examples in " << dir;
}

// --- rules only reachable through the API (the parser refuses such text)

std::unique_ptr<HloModule> MustParse(absl::string_view entry) {
  auto m = ParseHloModule(Module(entry));
  HLOREF_CHECK(m.ok());
  return std::move(m).value();
}

void ExpectRule(const absl::Status& st, absl::string_view rule) {
  ASSERT_FALSE(st.ok()) << rule << " not detected";
  EXPECT_EQ(RuleOf(st), rule) << st;
  EXPECT_THAT(std::string(st.message()),
              HasSubstr(absl::StrCat("[", rule, "]")))
      << st;
}

constexpr char kSimple[] =
    "p = f32[2] parameter(0)\nq = f32[2] parameter(1)\n"
    "c = pred[2] compare(p, q), direction=LT\n"
    "ROOT r = f32[2] negate(p)";

TEST(VerifierApiTest, SimpleModuleVerifies) {
  auto m = MustParse(kSimple);
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
}

TEST(VerifierApiTest, TwoEntries) {
  auto m = MustParse(kSimple);
  m->FindComputation("add_f32")->set_is_entry(true);
  ExpectRule(VerifyModule(*m), "module.C1");
}

TEST(VerifierApiTest, RootOutsideComputation) {
  auto m = MustParse(kSimple);
  m->entry()->set_root(m->FindComputation("add_f32")->root());
  ExpectRule(VerifyModule(*m), "module.C2");
}

TEST(VerifierApiTest, ParameterNumbersNotDense) {
  auto m = MustParse(kSimple);
  m->entry()->FindInstruction("q")->set_parameter_number(2);
  ExpectRule(VerifyModule(*m), "module.C3");
}

TEST(VerifierApiTest, DuplicateParameterNumber) {
  auto m = MustParse(kSimple);
  m->entry()->FindInstruction("q")->set_parameter_number(0);
  absl::Status st = VerifyModule(*m);
  ExpectRule(st, "module.C3");
  EXPECT_THAT(std::string(st.message()), HasSubstr("%q"));
}

TEST(VerifierApiTest, OperandFromOtherComputation) {
  auto m = MustParse(kSimple);
  m->entry()->FindInstruction("r")->ReplaceOperand(
      0, m->FindComputation("add_f32")->FindInstruction("a"));
  absl::Status st = VerifyModule(*m);
  ExpectRule(st, "module.C4");
  EXPECT_THAT(std::string(st.message()), HasSubstr("%r"));
}

TEST(VerifierApiTest, CalledComputationNotInModule) {
  auto m = MustParse(
      "p = f32[2] parameter(0)\n"
      "ROOT r = f32[2] call(p), to_apply=id_f32_2");
  auto other = MustParse(kSimple);
  (*m->entry()->FindInstruction("r")->mutable_called_computations())[0] =
      other->FindComputation("id_f32_2");
  ExpectRule(VerifyModule(*m), "module.C5");
}

TEST(VerifierApiTest, DeepCallChainsVerifyWithoutRecursion) {
  // 50,000 nested computations: the recursion check walks the call graph
  // with its own stack (a native recursion per level overflowed it), and
  // the parser finds computations by name in constant time.
  auto m = ParseHloModule(test_modules::CallChainModule(50000));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(VerifyModule(**m).ok()) << VerifyModule(**m);
}

TEST(VerifierApiTest, Recursion) {
  auto m = MustParse(
      "p = f32[2] parameter(0)\n"
      "ROOT r = f32[2] call(p), to_apply=id_f32_2");
  HloComputation* callee = m->FindComputation("id_f32_2");
  HloInstruction* r = m->entry()->FindInstruction("r");
  // Make id_f32_2 call itself through a new call instruction.
  auto call = std::make_unique<HloInstruction>(
      HloOpcode::kCall, Shape(PrimitiveType::kF32, {2}), "loop");
  call->AppendOperand(callee->root());
  call->mutable_called_computations()->push_back(callee);
  call->mutable_attrs()->set(AttrId::kToApply);
  HloInstruction* added = callee->AddInstruction(std::move(call));
  callee->set_root(added);
  (void)r;
  absl::Status st = VerifyModule(*m);
  ExpectRule(st, "module.C6");
  EXPECT_THAT(std::string(st.message()), HasSubstr("%loop"));
}

TEST(VerifierApiTest, OperandCount) {
  auto m = MustParse(kSimple);
  HloInstruction* r = m->entry()->FindInstruction("r");
  r->AppendOperand(m->entry()->FindInstruction("q"));
  absl::Status st = VerifyModule(*m);
  ExpectRule(st, "module.C7");
  EXPECT_THAT(std::string(st.message()), HasSubstr("%r"));
}

TEST(VerifierApiTest, MissingRequiredAttribute) {
  auto m = MustParse(kSimple);
  m->entry()->FindInstruction("c")->mutable_attrs()->present.reset(
      static_cast<size_t>(AttrId::kDirection));
  absl::Status st = VerifyModule(*m);
  ExpectRule(st, "module.C8");
  EXPECT_THAT(std::string(st.message()), HasSubstr("direction"));
}

TEST(VerifierApiTest, ForeignAttribute) {
  auto m = MustParse(kSimple);
  m->entry()->FindInstruction("r")->mutable_attrs()->set(AttrId::kIndex);
  absl::Status st = VerifyModule(*m);
  ExpectRule(st, "module.C9");
  EXPECT_THAT(std::string(st.message()), HasSubstr("index"));
}

TEST(VerifierApiTest, SignatureResult) {
  auto m = MustParse(kSimple);
  m->entry()->set_signature_result(Shape(PrimitiveType::kS32, {2}));
  ExpectRule(VerifyModule(*m), "module.C11");
}

TEST(VerifierApiTest, NegativeDimension) {
  auto m = MustParse(kSimple);
  m->entry()->FindInstruction("r")->mutable_shape()->set_dimensions(0, -2);
  ExpectRule(VerifyModule(*m), "module.C12");
}

TEST(VerifierApiTest, BadLayout) {
  auto m = MustParse(kSimple);
  Layout layout;
  layout.minor_to_major = {1};
  m->entry()->FindInstruction("r")->mutable_shape()->set_layout(layout);
  ExpectRule(VerifyModule(*m), "module.C13");
}

TEST(VerifierApiTest, NegativeInteriorPadding) {
  // The parser refuses `0_0_-1`; a builder could still produce it.
  auto m = MustParse(
      "p = f32[3] parameter(0)\nv = f32[] parameter(1)\n"
      "ROOT r = f32[3] pad(p, v), padding=0_0");
  HloInstruction* r = m->entry()->FindInstruction("r");
  r->mutable_attrs()->padding.dimensions[0].interior_padding = -1;
  absl::Status st = VerifyModule(*m);
  ExpectRule(st, "pad.C4");
  EXPECT_THAT(std::string(st.message()), HasSubstr("%r"));
}

TEST(VerifierApiTest, CustomCallToApplyAndCalledComputations) {
  auto m = MustParse(
      "p = f32[2] parameter(0)\nROOT r = f32[2] custom-call(p), "
      "custom_call_target=\"foo\", to_apply=id_f32_2");
  m->entry()->FindInstruction("r")->mutable_attrs()->set(
      AttrId::kCalledComputations);
  ExpectRule(VerifyModule(*m), "custom-call.C3");
}

// Annotation targets XLA replaces by their operand (Sharding, ...) keep
// the operand's shape; a shard shape is refused with custom-call.C4.
TEST(VerifierApiTest, AnnotationCustomCallIsAnIdentity) {
  auto ok = MustParse(
      "p = f32[4,8] parameter(0)\nROOT r = f32[4,8]{0,1} custom-call(p), "
      "custom_call_target=\"Sharding\", sharding={replicated}");
  EXPECT_TRUE(VerifyModule(*ok).ok());
  auto shard = MustParse(
      "p = f32[4,8] parameter(0)\nROOT r = f32[4,4] custom-call(p), "
      "custom_call_target=\"SPMDFullToShardShape\", sharding={manual}");
  absl::Status st = VerifyModule(*shard);
  ExpectRule(st, "custom-call.C4");
  EXPECT_THAT(std::string(st.message()), HasSubstr("%r"));
  auto two = MustParse(
      "p = f32[2] parameter(0)\nROOT r = f32[2] custom-call(p, p), "
      "custom_call_target=\"MoveToHost\"");
  ExpectRule(VerifyModule(*two), "custom-call.C4");
  // Any other target decides its own shape.
  auto other = MustParse(
      "p = f32[4,8] parameter(0)\nROOT r = f32[4,4] custom-call(p), "
      "custom_call_target=\"my_kernel\"");
  EXPECT_TRUE(VerifyModule(*other).ok());
}

TEST(VerifierApiTest, MaxElements) {
  auto m = MustParse(
      "p = f32[100,100] parameter(0)\n"
      "ROOT r = f32[100,100] negate(p)");
  EXPECT_TRUE(VerifyModule(*m).ok());
  VerifyOptions options;
  options.max_elements = 9999;
  absl::Status st = VerifyModule(*m, options);
  ExpectRule(st, "impl.module.1");
  EXPECT_THAT(std::string(st.message()), HasSubstr("%p"));
}

TEST(VerifierApiTest, UnboundedIsUnimplemented) {
  absl::Status st = ParseAndVerify(Module("ROOT p = f32[?] parameter(0)"));
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented) << st;
}

TEST(VerifierApiTest, ParameterNumberNegativeThroughInferShape) {
  auto m = MustParse(kSimple);
  HloInstruction* p = m->entry()->FindInstruction("p");
  p->set_parameter_number(-1);
  ExpectRule(InferShape(*p).status(), "parameter.C1");
  ExpectRule(VerifyModule(*m), "module.C3");
}

TEST(VerifierApiTest, ConstantLiteralShape) {
  auto m = MustParse("ROOT c = f32[2] constant({1, 2})");
  HloInstruction* c = m->entry()->FindInstruction("c");
  *c->mutable_shape() = Shape(PrimitiveType::kF32, {3});
  ExpectRule(VerifyModule(*m), "constant.C1");
}

TEST(VerifierApiTest, InferShapeGivesExpected) {
  auto m = MustParse(
      "p = f32[2,3] parameter(0)\nq = f32[3,5] parameter(1)\n"
      "ROOT d = f32[2,5] dot(p, q), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}");
  auto s = InferShape(*m->entry()->FindInstruction("d"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->element_type(), PrimitiveType::kF32);
  EXPECT_EQ(
      std::vector<int64_t>(s->dimensions().begin(), s->dimensions().end()),
      (std::vector<int64_t>{2, 5}));
}

// Issue 14: computations in another floating-point precision. XLA's shape
// inference ignores precision for scatter, select-and-scatter, all-reduce
// and reduce-scatter: read with a warning naming the rule and the impl ID.
// reduce and reduce-window stay refused, as XLA's HloVerifier refuses them.
TEST(VerifierApiTest, MixedPrecisionReducersWarnOrRefuse) {
  struct Case {
    std::string text, rule, impl;
  };
  const std::string add32 =
      "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = "
      "f32[] add(a, b)\n}\n";
  const std::string ge32 =
      "ge {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = "
      "pred[] compare(a, b), direction=GE\n}\n";
  const std::vector<Case> warn = {
      {"HloModule m\n" + add32 +
           "ENTRY e {\n p = bf16[4] parameter(0)\n i = s32[2,1] "
           "parameter(1)\n u = bf16[2] parameter(2)\n ROOT r = bf16[4] "
           "scatter(p, i, u), update_window_dims={}, inserted_window_dims={0}, "
           "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
           "to_apply=add\n}",
       "[scatter.C13]", "impl.scatter.5"},
      {"HloModule m\n" + add32 + ge32 +
           "ENTRY e {\n p = f16[4] parameter(0)\n s = f16[2] parameter(1)\n "
           "i = f16[] constant(0)\n ROOT r = f16[4] select-and-scatter(p, s, "
           "i), window={size=2 stride=2}, select=ge, scatter=add\n}",
       "[select-and-scatter.C4]", "impl.select-and-scatter.2"},
      {"HloModule m, replica_count=2\n" + add32 +
           "ENTRY e {\n p = bf16[4] parameter(0)\n ROOT r = bf16[4] "
           "all-reduce(p), replica_groups={}, to_apply=add\n}",
       "[all-reduce.C7]", "impl.all-reduce.1"},
      {"HloModule m, replica_count=2\n" + add32 +
           "ENTRY e {\n p = f64[4] parameter(0)\n ROOT r = f64[2] "
           "reduce-scatter(p), replica_groups={}, dimensions={0}, "
           "to_apply=add\n}",
       "[reduce-scatter.C7]", "impl.reduce-scatter.1"},
  };
  for (const Case& c : warn) {
    auto m = ParseHloModule(c.text);
    ASSERT_TRUE(m.ok()) << m.status();
    std::vector<std::string> warnings;
    VerifyOptions options;
    options.warnings = &warnings;
    ASSERT_TRUE(VerifyModule(**m, options).ok()) << c.text;
    ASSERT_FALSE(warnings.empty()) << c.text;
    EXPECT_THAT(warnings[0], HasSubstr(c.rule));
    EXPECT_THAT(warnings[0], HasSubstr(c.impl));
  }
  // The result keeps the operand type: an f32 result of a bf16 all-reduce
  // is refused (XLA: the inferred shape is the operand's).
  auto wrong = ParseHloModule("HloModule m, replica_count=2\n" + add32 +
                              "ENTRY e {\n p = bf16[4] parameter(0)\n ROOT r "
                              "= f32[4] all-reduce(p), replica_groups={}, "
                              "to_apply=add\n}");
  ASSERT_TRUE(wrong.ok()) << wrong.status();
  EXPECT_FALSE(VerifyModule(**wrong).ok());
  // Another class (s32 computation over f32) is refused.
  auto other_class = ParseHloModule(
      "HloModule m, replica_count=2\nadd {\n a = s32[] parameter(0)\n b = "
      "s32[] parameter(1)\n ROOT s = s32[] add(a, b)\n}\nENTRY e {\n p = "
      "f32[4] parameter(0)\n ROOT r = f32[4] all-reduce(p), "
      "replica_groups={}, to_apply=add\n}");
  ASSERT_TRUE(other_class.ok()) << other_class.status();
  EXPECT_FALSE(VerifyModule(**other_class).ok());
  // reduce with an f32 reducer over bf16: refused, saying XLA refuses it.
  auto reduce = ParseHloModule("HloModule m\n" + add32 +
                               "ENTRY e {\n p = bf16[4] parameter(0)\n z = "
                               "bf16[] constant(0)\n ROOT r = f32[] reduce(p, "
                               "z), dimensions={0}, to_apply=add\n}");
  ASSERT_TRUE(reduce.ok()) << reduce.status();
  absl::Status s = VerifyModule(**reduce);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("[reduce.C5]"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("XLA's HloVerifier"));
}

// Issue 14: dot operands of different classes (seed 001: both "array of
// type T") are read as XLA reads them, with a warning naming the rule.
TEST(VerifierApiTest, DotMixedClassesWarn) {
  auto m = ParseHloModule(R"(HloModule m
ENTRY e {
  p = bf16[2,3] parameter(0)
  q = s8[3,4] parameter(1)
  ROOT r = bf16[2,4] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_TRUE(m.ok()) << m.status();
  std::vector<std::string> warnings;
  VerifyOptions options;
  options.warnings = &warnings;
  ASSERT_TRUE(VerifyModule(**m, options).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("[dot.C6]"));
  EXPECT_THAT(warnings[0], HasSubstr("seed 001"));
  // Without a sink the module verifies the same, silently.
  EXPECT_TRUE(VerifyModule(**m).ok());
  // Same class: no warning.
  auto same = ParseHloModule(R"(HloModule m
ENTRY e {
  p = bf16[2,3] parameter(0)
  q = f32[3,4] parameter(1)
  ROOT r = f32[2,4] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_TRUE(same.ok()) << same.status();
  warnings.clear();
  ASSERT_TRUE(VerifyModule(**same, options).ok());
  EXPECT_TRUE(warnings.empty());
}

TEST(VerifierApiTest, DotMessageStatesSizes) {
  absl::Status st = ParseAndVerify(
      Module("p = f32[2,3] parameter(0)\nq = f32[4,5] parameter(1)\n"
             "ROOT d = f32[2,5] dot(p, q), lhs_contracting_dims={1}, "
             "rhs_contracting_dims={0}"));
  EXPECT_EQ(RuleOf(st), "dot.C3");
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("lhs contracting dimension 1 has size 3, rhs "
                        "contracting dimension 0 has size 4"));
}

// Every rule ID used in the negative table is listed in spec/families.md.
TEST(FamiliesDocTest, EveryTestedRuleIsDocumented) {
  std::string path = std::string(HLOREF_SOURCE_DIR) + "/spec/families.md";
  FILE* f = std::fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr) << path;
  std::string doc;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) doc.append(buf, n);
  std::fclose(f);
  std::set<std::string> rules;
  for (const Case& c : kCases) rules.insert(c.rule);
  for (const char* r :
       {"module.C1", "module.C2", "module.C3", "module.C4", "module.C5",
        "module.C6", "module.C7", "module.C8", "module.C9", "module.C11",
        "module.C12", "module.C13", "module.C14", "impl.module.1",
        "parameter.C1", "constant.C1"}) {
    rules.insert(r);
  }
  for (const std::string& r : rules) {
    EXPECT_NE(doc.find("`" + r + "`"), std::string::npos)
        << r << " is not in spec/families.md";
  }
}

// module.C14: an unknown attribute may change the result, so it fails
// verification; debugging-only ones pass.
TEST(UnknownAttributeTest, RefusedUnlessHarmless) {
  auto bad = ParseHloModule(
      "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] "
      "reverse(p), dimensions={0}, dimension={1}\n}");
  ASSERT_TRUE(bad.ok()) << bad.status();
  absl::Status st = VerifyModule(**bad);
  EXPECT_EQ(RuleOf(st), "module.C14") << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("%r"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("'dimension={1}'"));
  auto ok = ParseHloModule(
      "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] "
      "reverse(p), dimensions={0}, scheduling_name=\"r.1\"\n}");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(VerifyModule(**ok).ok());
}

// all-gather with channel_id and no use_global_device_ids on 2 partitions
// (cross-replica-and-partition mode): each replica group spans both
// partitions, so the operand is gathered from 2 participants per replica.
TEST(CollectivesVerifierTest, CrossReplicaAndPartitionShardCount) {
  const char* text = R"(HloModule m, replica_count=2, num_partitions=2
ENTRY e {
  p = f32[3] parameter(0)
  ROOT g = f32[12] all-gather(p), channel_id=1, replica_groups={{0,1}}, dimensions={0}
})";
  auto m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(VerifyModule(**m).ok()) << VerifyModule(**m);
  // The group size alone (2 -> f32[6]) is the wrong reading.
  std::string wrong(text);
  wrong.replace(wrong.find("f32[12]"), 7, "f32[6]");
  auto w = ParseHloModule(wrong);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(RuleOf(VerifyModule(**w)), "module.C10");
}

// Result shapes XLA's parser infers (issue 14): instructions written
// without a shape before the opcode get the verifier's inferred shape.
// Expected shapes are derived by hand from the ops' shape rules (seed 001;
// dot/convolution element type: XLA's HigherPrecisionType of the operands).
struct InferredCase {
  const char* entry;     // the root is written without a shape
  const char* expected;  // its shape, without layout
};

class InferredShapeTest : public ::testing::TestWithParam<InferredCase> {};

TEST_P(InferredShapeTest, ParsesWithTheInferredShapeAndVerifies) {
  const std::string text = Module(GetParam().entry);
  auto m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
  const HloInstruction* root = (*m)->entry()->root();
  EXPECT_EQ(root->shape().ToString(/*print_layout=*/false),
            GetParam().expected);
  EXPECT_TRUE(VerifyModule(**m).ok()) << VerifyModule(**m);
}

INSTANTIATE_TEST_SUITE_P(
    Ops, InferredShapeTest,
    ::testing::Values(
        InferredCase{"a = f32[2,3] parameter(0)\nb = f32[3,4] parameter(1)\n"
                     "ROOT d = dot(a, b), lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={0}",
                     "f32[2,4]"},
        // mixed operand types: bf16 x f32 -> f32 (more precision);
        // s8 x s32 -> s32 (wider); f16 x bf16 -> bf16 (more range).
        InferredCase{"a = bf16[5,2,3] parameter(0)\nb = f32[5,3] "
                     "parameter(1)\nROOT d = dot(a, b), lhs_batch_dims={0}, "
                     "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                     "rhs_contracting_dims={1}",
                     "f32[5,2]"},
        InferredCase{"a = s8[2,3] parameter(0)\nb = s32[3] parameter(1)\n"
                     "ROOT d = dot(a, b), lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={0}",
                     "s32[2]"},
        InferredCase{"a = f16[2,3] parameter(0)\nb = bf16[3] parameter(1)\n"
                     "ROOT d = dot(a, b), lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={0}",
                     "bf16[2]"},
        // 1x8x8x2 input, 3x3 kernel 2->16 features, pad 1: 1x8x8x16.
        InferredCase{"x = f32[1,8,8,2] parameter(0)\nk = f32[3,3,2,16] "
                     "parameter(1)\nROOT c = convolution(x, k), "
                     "window={size=3x3 pad=1_1x1_1}, "
                     "dim_labels=b01f_01io->b01f",
                     "f32[1,8,8,16]"},
        // stride 2 without padding over 5: (5 - 3) / 2 + 1 = 2.
        InferredCase{"x = f32[1,5,1] parameter(0)\nk = f32[3,1,1] "
                     "parameter(1)\nROOT c = convolution(x, k), "
                     "window={size=3 stride=2}, dim_labels=b0f_0io->b0f",
                     "f32[1,2,1]"},
        InferredCase{"x = f32[8,3] parameter(0)\ny = f32[2,3,4] "
                     "parameter(1)\ng = s32[2] parameter(2)\nROOT r = "
                     "ragged-dot(x, y, g), lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={1}, lhs_ragged_dims={0}, "
                     "rhs_group_dims={0}",
                     "f32[8,4]"},
        InferredCase{"p = f32[2,3] parameter(0)\nz = f32[] constant(0)\n"
                     "ROOT r = reduce(p, z), dimensions={0}, to_apply=add_f32",
                     "f32[3]"},
        InferredCase{"p = f32[2,3] parameter(0)\nROOT t = transpose(p), "
                     "dimensions={1,0}",
                     "f32[3,2]"},
        InferredCase{"p = f32[2,3] parameter(0)\nq = f32[2,4] parameter(1)\n"
                     "ROOT c = concatenate(p, q), dimensions={1}",
                     "f32[2,7]"},
        InferredCase{"p = f32[3] parameter(0)\nv = f32[] parameter(1)\n"
                     "ROOT r = pad(p, v), padding=1_2_1",
                     "f32[8]"},
        InferredCase{"p = f32[2,3] parameter(0)\nROOT r = reverse(p), "
                     "dimensions={0}",
                     "f32[2,3]"},
        InferredCase{"p = f32[2,3] parameter(0)\nROOT s = sort(p), "
                     "dimensions={1}, to_apply=lt_f32",
                     "f32[2,3]"},
        InferredCase{"p = f32[2,3] parameter(0)\nROOT s = "
                     "get-dimension-size(p), dimensions={1}",
                     "s32[]"},
        // broadcast: XLA reads dimensions as sizes prepended to the
        // operand's (InferBroadcastShape(operand, sizes)); a scalar
        // without dimensions stays a scalar.
        InferredCase{"p = f32[] parameter(0)\nROOT b = broadcast(p), "
                     "dimensions={}",
                     "f32[]"},
        // Nested: an inferred dot feeds an inferred reduce.
        InferredCase{"a = f32[2,3] parameter(0)\nb = f32[3,4] parameter(1)\n"
                     "d = dot(a, b), lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={0}\nz = f32[] constant(0)\n"
                     "ROOT r = reduce(d, z), dimensions={1}, to_apply=add_f32",
                     "f32[2]"}));

TEST(InferredShapeTest, RefusedWhereXlaNeedsTheShape) {
  // reshape's result is not determined by its operand (XLA's parser also
  // refuses it).
  auto m =
      ParseHloModule(Module("p = f32[2,3] parameter(0)\nROOT r = reshape(p)"));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("reshape"));
  // A dot whose dimension numbers are wrong: the parser reports the
  // verifier's rule.
  auto d = ParseHloModule(
      Module("a = f32[2,3] parameter(0)\nb = f32[4,5] parameter(1)\n"
             "ROOT d = dot(a, b), lhs_contracting_dims={1}, "
             "rhs_contracting_dims={0}"));
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("dot.C3"));
}

// Collectives whose participant count the text does not fix (issue 14):
// replica_groups={} and no replica_count/num_partitions in the header (XLA's
// tests set the count at run time). The verifier accepts a result consistent
// with some participant count and checks the count once the header states
// it (the interpreter checks it at run time).
TEST(CollectivesVerifierTest, OpenParticipantCountAcceptsXlaShapes) {
  const char* open[] = {
      // all-gather of f32[2] over 4 participants: f32[8].
      "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT g = f32[8] "
      "all-gather(p), replica_groups={}, dimensions={0}\n}\n",
      // two operands, both gathered over the same 3 participants.
      "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  q = s32[1,4] "
      "parameter(1)\n  ROOT g = (f32[6], s32[3,4]) all-gather(p, q), "
      "replica_groups={}, dimensions={0}\n}\n",
      // reduce-scatter of f32[8] over 4 participants: f32[2].
      "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] "
      "parameter(1)\n  ROOT r = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[8] "
      "parameter(0)\n  ROOT r = f32[2] reduce-scatter(p), replica_groups={}, "
      "dimensions={0}, to_apply=add\n}\n",
      // all-to-all: 6 is not divisible by an unknown split count (checked
      // at run time), and the tuple form's operand count is one per
      // participant, 3 here.
      "HloModule m\nENTRY e {\n  p = f32[6] parameter(0)\n  ROOT a = f32[6] "
      "all-to-all(p), replica_groups={}, dimensions={0}\n}\n",
      "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = (f32[2], "
      "f32[2], f32[2]) all-to-all(p, p, p), replica_groups={}\n}\n",
  };
  for (const char* text : open) {
    auto m = ParseHloModule(text);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(VerifyModule(**m).ok()) << VerifyModule(**m) << "\n" << text;
  }
  // Operands implying different counts (2 and 3) are refused.
  auto mixed = ParseHloModule(
      "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  q = f32[2] "
      "parameter(1)\n  ROOT g = (f32[4], f32[6]) all-gather(p, q), "
      "replica_groups={}, dimensions={0}\n}\n");
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(RuleOf(VerifyModule(**mixed)), "module.C10");
  // A result no count explains (7 is not a multiple of 2) is refused.
  auto odd = ParseHloModule(
      "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT g = f32[7] "
      "all-gather(p), replica_groups={}, dimensions={0}\n}\n");
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(RuleOf(VerifyModule(**odd)), "module.C10");
  // Once the header states the count, it is checked: 2 replicas gather
  // f32[2] into f32[4], not f32[8].
  auto fixed = ParseHloModule(
      "HloModule m, replica_count=2\nENTRY e {\n  p = f32[2] parameter(0)\n"
      "  ROOT g = f32[8] all-gather(p), replica_groups={}, "
      "dimensions={0}\n}\n");
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(RuleOf(VerifyModule(**fixed)), "module.C10");
  auto a2a = ParseHloModule(
      "HloModule m, replica_count=4\nENTRY e {\n  p = f32[6] parameter(0)\n"
      "  ROOT a = f32[6] all-to-all(p), replica_groups={}, "
      "dimensions={0}\n}\n");
  ASSERT_TRUE(a2a.ok());
  EXPECT_EQ(RuleOf(VerifyModule(**a2a)), "all-to-all.C7");
}

}  // namespace
}  // namespace hloref
