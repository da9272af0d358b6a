// Tests of the error-model comparator: verdicts built by hand for small
// modules, with expected outcomes derived from numerics.md 7.2-7.7 in the
// comments (never from the comparator's own output).
#include "conformance/compare/comparator.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "conformance/compare/deviations.h"
#include "conformance/compare/policy.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

float F32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

struct Fixture {
  std::unique_ptr<HloModule> module;
  std::vector<Literal> args;
  EvalResult oracle;
};

Fixture Make(const std::string& text, const std::vector<std::string>& args) {
  Fixture f;
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  f.module = *std::move(m);
  EXPECT_TRUE(VerifyModule(*f.module).ok());
  for (const std::string& a : args) {
    auto lit = ParseLiteral(a);
    EXPECT_TRUE(lit.ok()) << lit.status();
    f.args.push_back(*std::move(lit));
  }
  EvaluatorOptions options;
  options.compute_error_data = true;
  Evaluator ev(options);
  auto r = ev.Run(*f.module, f.args);
  EXPECT_TRUE(r.ok()) << r.status();
  f.oracle = *std::move(r);
  return f;
}

ComparisonResult Compare(const Fixture& f, const std::string& got,
                         const std::string& deviations = "") {
  auto lit = ParseLiteral(got);
  EXPECT_TRUE(lit.ok()) << lit.status();
  std::vector<Literal> outs;
  outs.push_back(*std::move(lit));
  CompareConfig config;
  auto d = ParseDeviations(deviations);
  EXPECT_TRUE(d.ok()) << d.status();
  config.deviations = *d;
  return CompareToOracle(*f.module, f.args, f.oracle, nullptr, outs, config);
}

constexpr char kAdd[] = R"(
HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT r = f32[3] add(a, b)
})";

TEST(Comparator, RoundedAddOneUlpOffFails) {
  // 1 + 2^-24 is a tie between 1 and 1 + 2^-23: RNE gives 1. An answer of
  // 1 + 2^-23 (0x3F800001) is one ulp off the correctly rounded result.
  Fixture f = Make(kAdd, {"f32[3] {1, 2, 3}", "f32[3] {5.96046448e-08, 0, 0}"});
  ComparisonResult ok = Compare(f, "f32[3] {1, 2, 3}");
  EXPECT_TRUE(ok.ok) << ok.Summary();
  ComparisonResult bad = Compare(f, "f32[3] {1.00000012, 2, 3}");
  ASSERT_FALSE(bad.ok);
  ASSERT_EQ(bad.failures.size(), 1u);
  const ElementFailure& e = bad.failures[0];
  EXPECT_EQ(e.index, 0);
  EXPECT_EQ(e.multi_index, "{0}");
  EXPECT_EQ(e.ulp_distance, 1);
  EXPECT_NE(e.rule.find("ROUNDED"), std::string::npos) << e.rule;
  EXPECT_NE(e.inputs.find("operand 1 = 5.96046448e-08"), std::string::npos)
      << e.inputs;
  EXPECT_NE(e.ToString().find("expected 1, got 1.00000012"), std::string::npos)
      << e.ToString();
}

TEST(Comparator, NanRequiredAndUnexpectedNan) {
  Fixture f = Make(kAdd, {"f32[3] {inf, 1, 2}", "f32[3] {-inf, 1, 2}"});
  // inf + -inf = NaN: any NaN passes (payload not compared, 7.5).
  EXPECT_TRUE(Compare(f, "f32[3] {-nan, 2, 4}").ok);
  ComparisonResult a = Compare(f, "f32[3] {0, 2, 4}");
  ASSERT_FALSE(a.ok);
  EXPECT_NE(a.failures[0].why.find("NaN required"), std::string::npos);
  ComparisonResult b = Compare(f, "f32[3] {nan, nan, 4}");
  ASSERT_FALSE(b.ok);
  EXPECT_EQ(b.failures[0].index, 1);
  EXPECT_NE(b.failures[0].why.find("NaN where 2 was required"),
            std::string::npos)
      << b.failures[0].why;
}

TEST(Comparator, ZeroSignOfAddIsJudged) {
  // -0 + -0 = -0 exactly (IEEE); +0 is wrong under class R.
  Fixture f = Make(kAdd, {"f32[3] {-0, 1, 1}", "f32[3] {-0, 1, 1}"});
  ComparisonResult r = Compare(f, "f32[3] {0, 2, 2}");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.failures[0].why.find("zero sign"), std::string::npos);
}

TEST(Comparator, FtzDeviationAcceptsFlushedSubnormalResult) {
  // 2^-149 + 0 = 2^-149 (a subnormal result); a flushing backend gives 0.
  Fixture f = Make(kAdd, {"f32[3] {1.40129846e-45, 1, 1}", "f32[3] {0, 1, 1}"});
  EXPECT_FALSE(Compare(f, "f32[3] {0, 2, 2}").ok);
  EXPECT_TRUE(Compare(f, "f32[3] {0, 2, 2}", "ftz=f32").ok);
  // ftz on another type does not help f32.
  EXPECT_FALSE(Compare(f, "f32[3] {0, 2, 2}", "ftz=f16").ok);
}

constexpr char kExp[] = R"(
HloModule m
ENTRY e {
  a = f32[1] parameter(0)
  ROOT r = f32[1] exponential(a)
})";

TEST(Comparator, ExpWithinItsUlpBudget) {
  // exp(1) = 2.71828183 (f32 0x402DF854). The f32 budget of exp is 8 ulp
  // (numerics.md 7.3), widened by half an ulp for the oracle's rounding:
  // 8 ulp away passes, 9 ulp away fails. ulp_f32 in [2,4) is 2^-22.
  Fixture f = Make(kExp, {"f32[1] {1}"});
  const uint32_t e = 0x402DF854;
  auto text = [](uint32_t bits) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "f32[1] {%.9g}", F32(bits));
    return std::string(buf);
  };
  ASSERT_EQ(F32(e), f.oracle.outputs[0].value.GetAsDouble(0));
  EXPECT_TRUE(Compare(f, text(e + 8)).ok);
  EXPECT_TRUE(Compare(f, text(e - 8)).ok);
  ComparisonResult bad = Compare(f, text(e + 9));
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.failures[0].ulp_distance, 9);
  EXPECT_DOUBLE_EQ(bad.failures[0].bound, 8.5 * std::ldexp(1.0, -22));
  EXPECT_NE(bad.failures[0].rule.find("BOUNDED 8 ulp"), std::string::npos)
      << bad.failures[0].rule;
}

constexpr char kDot[] = R"(
HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT r = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})";

TEST(Comparator, DotBoundFromSAndM) {
  // y = 1e8 + 1 - 1e8 = 1 exactly; S = 1e8 + 1 + 1e8 (each |a_i b_i|),
  // m = 3. The order-independent bound gamma_3(2^-24) S + ulp(1)/2 is
  // about 3 * 5.96e-8 * 2e8 = 35.8: a backend that summed left to right
  // in f32 gets (1e8 + 1) - 1e8 = 0 (1e8 + 1 rounds to 1e8), error 1 —
  // inside the bound. 100 is not.
  Fixture f = Make(kDot, {"f32[3] {1e8, 1, -1e8}", "f32[3] {1, 1, 1}"});
  ASSERT_TRUE(f.oracle.outputs[0].abs_sum.has_value())
      << "the evaluator does not report S and m yet";
  const double s = 2e8 + 1;
  EXPECT_EQ(f.oracle.outputs[0].abs_sum->GetAsDouble(0), s);
  EXPECT_EQ(f.oracle.outputs[0].term_count->GetAsInt64(0), 3);
  EXPECT_TRUE(Compare(f, "f32[] 0").ok);
  EXPECT_TRUE(Compare(f, "f32[] 30").ok);
  ComparisonResult bad = Compare(f, "f32[] 100");
  ASSERT_FALSE(bad.ok);
  const double u = std::ldexp(1.0, -24);
  const double bound = 3 * u / (1 - 3 * u) * s + std::ldexp(1.0, -24);
  EXPECT_NEAR(bad.failures[0].bound, bound, 1e-9);
  EXPECT_NE(bad.failures[0].rule.find("m = 3"), std::string::npos);
  // Declaring bf16 inputs adds E_in = (2 u_w + u_w^2) S with u_w = 2^-8:
  // about 1.57e6, so 100 passes.
  EXPECT_TRUE(Compare(f, "f32[] 100", "dot-input=bf16").ok);
}

constexpr char kMax[] = R"(
HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT r = f32[3] maximum(a, b)
})";

TEST(Comparator, FastMinMaxMayDropNan) {
  // IEEE maximum propagates NaN; XLA:CPU's fast min/max returns x for
  // max(x, NaN). +-0 ties may give either zero in both modes.
  Fixture f = Make(kMax, {"f32[3] {1, -0, 2}", "f32[3] {nan, 0, 3}"});
  EXPECT_TRUE(Compare(f, "f32[3] {nan, 0, 3}").ok);
  EXPECT_TRUE(Compare(f, "f32[3] {nan, -0, 3}").ok);  // tie: SET
  ComparisonResult dropped = Compare(f, "f32[3] {1, 0, 3}");
  ASSERT_FALSE(dropped.ok);
  EXPECT_NE(dropped.failures[0].why.find("allowed values"), std::string::npos);
  EXPECT_TRUE(Compare(f, "f32[3] {1, 0, 3}", "fast-min-max").ok);
  EXPECT_TRUE(Compare(f, "f32[3] {1, 0, 3}", "xla-cpu").ok);
  // Fast min/max still may not invent a value.
  EXPECT_FALSE(Compare(f, "f32[3] {5, 0, 3}", "fast-min-max").ok);
}

TEST(Comparator, StructureMismatchIsReported) {
  Fixture f = Make(kAdd, {"f32[3] {1, 2, 3}", "f32[3] {1, 2, 3}"});
  ComparisonResult r = Compare(f, "f32[2] {2, 4}");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.structure_error.find("expected shape f32[3]"), std::string::npos);
}

// A token result matches a returned token (no value to compare); an array
// where a token is expected is a structure error.
TEST(Comparator, TokenOutputs) {
  Fixture f = Make(R"(
HloModule m
ENTRY e {
  ROOT t = token[] after-all()
})",
                   {});
  std::vector<Literal> token;
  token.push_back(Literal::Token());
  CompareConfig config;
  EXPECT_TRUE(
      CompareToOracle(*f.module, f.args, f.oracle, nullptr, token, config).ok);
  std::vector<Literal> array;
  array.push_back(*ParseLiteral("f32[] 0"));
  ComparisonResult r =
      CompareToOracle(*f.module, f.args, f.oracle, nullptr, array, config);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.structure_error.find("expected shape token[]"), std::string::npos)
      << r.structure_error;
}

TEST(Deviations, ParseAndPrint) {
  auto d = ParseDeviations("xla-cpu");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->fast_min_max);
  EXPECT_TRUE(d->fma_contraction);
  EXPECT_EQ(d->ftz_types.count(PrimitiveType::kF32), 1u);
  EXPECT_EQ(d->ToString(), "ftz=bf16+f32+f64,fast-min-max,fma-contraction");
  EXPECT_EQ(d->Describe().size(), 3u);
  auto e = ParseDeviations("divide-ulp=2, dot-input=tf32,saturating-f8");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->divide_ulps, 2);
  EXPECT_EQ(e->DotInputUnit(), std::ldexp(1.0, -11));
  auto bad = ParseDeviations("turbo");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown deviation"),
            std::string::npos);
  EXPECT_FALSE(ParseDeviations("divide-ulp=0").ok());
  EXPECT_FALSE(ParseDeviations("ftz=s32").ok());
}

TEST(Policy, TableFollowsOpsDef) {
  for (const OpInfo& info : AllOps()) {
    EXPECT_EQ(ComparePolicyFor(info.opcode).opcode, info.opcode) << info.name;
  }
  EXPECT_EQ(ComparePolicyFor(HloOpcode::kExp).cls, CompareClass::kUlp);
  EXPECT_EQ(ComparePolicyFor(HloOpcode::kExp).UlpBudget(PrimitiveType::kF32),
            8);
  EXPECT_EQ(ComparePolicyFor(HloOpcode::kDot).cls, CompareClass::kAccumulate);
  EXPECT_EQ(ComparePolicyFor(HloOpcode::kAdd).cls, CompareClass::kRounded);
}

TEST(Verdict, UlpIn) {
  EXPECT_EQ(UlpIn(PrimitiveType::kF32, 1.0), std::ldexp(1.0, -23));
  EXPECT_EQ(UlpIn(PrimitiveType::kF32, 0.75), std::ldexp(1.0, -24));
  EXPECT_EQ(UlpIn(PrimitiveType::kF32, 0.0), std::ldexp(1.0, -149));
  EXPECT_EQ(UlpIn(PrimitiveType::kF16, 1.0), std::ldexp(1.0, -10));
  EXPECT_EQ(UlpIn(PrimitiveType::kBF16, 3.0), std::ldexp(1.0, -6));
  EXPECT_EQ(GammaBound(2, 0.25), 1.0);
  EXPECT_TRUE(std::isinf(GammaBound(4, 0.25)));
}

}  // namespace
}  // namespace hloref::conformance
