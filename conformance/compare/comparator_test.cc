// Tests of the error-model comparator: verdicts built by hand for small
// modules, with expected outcomes derived from numerics.md 7.2-7.7 in the
// comments (never from the comparator's own output).
#include "conformance/compare/comparator.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
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

// Bit-identical outputs under an exact rule take a whole-array comparison
// instead of the per-element loop; the counts must be the loop's. negate
// (BITS: payload-preserving), integer add (EXACT) and a NaN with its
// payload: all 4 elements EXACT when identical; one element changed (the
// loop judges every element) gives the same 4 EXACT verdicts and 1
// mismatch.
TEST(Comparator, IdenticalOutputsCountAsThePerElementLoopDoes) {
  const std::string negate = R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)";
  Fixture f = Make(negate, {"f32[4] {1, -0, inf, nan}"});
  ComparisonResult same = Compare(f, "f32[4] {-1, 0, -inf, -nan}");
  EXPECT_TRUE(same.ok) << same.Summary();
  EXPECT_EQ(same.elements, 4);
  EXPECT_EQ(same.verdict_counts["EXACT"], 4);
  EXPECT_EQ(same.verdict_counts.size(), 1u);
  ComparisonResult one_off = Compare(f, "f32[4] {-1, 0, -inf, 1}");
  EXPECT_FALSE(one_off.ok);
  EXPECT_EQ(one_off.mismatches, 1);
  EXPECT_EQ(one_off.elements, 4);
  EXPECT_EQ(one_off.verdict_counts["EXACT"], 4);
  const std::string add = R"(
HloModule m
ENTRY e {
  a = s32[3] parameter(0)
  b = s32[3] parameter(1)
  ROOT s = s32[3] add(a, b)
}
)";
  Fixture g = Make(add, {"s32[3] {1, 2, 3}", "s32[3] {4, 5, 2147483647}"});
  ComparisonResult ints = Compare(g, "s32[3] {5, 7, -2147483646}");
  EXPECT_TRUE(ints.ok) << ints.Summary();
  EXPECT_EQ(ints.elements, 3);
  EXPECT_EQ(ints.verdict_counts["EXACT"], 3);
  ComparisonResult wrong = Compare(g, "s32[3] {5, 8, -2147483646}");
  EXPECT_FALSE(wrong.ok);
  EXPECT_EQ(wrong.mismatches, 1);
  EXPECT_EQ(wrong.verdict_counts["EXACT"], 3);
}

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

// ragged-dot with one group holding both lhs rows: row i is a . rhs[0];
// the same numbers as DotBoundFromSAndM, so the same bounds apply, and the
// declared dot deviations must reach ragged-dot too.
constexpr char kRaggedDot[] = R"(
HloModule m
ENTRY e {
  a = f32[1,3] parameter(0)
  b = f32[1,3,1] parameter(1)
  g = s32[1] constant({1})
  ROOT r = f32[1,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})";

TEST(Comparator, DotDeviationsApplyToRaggedDot) {
  Fixture f = Make(kRaggedDot, {"f32[1,3] {{1e8, 1, -1e8}}",
                                "f32[1,3,1] {{{1}, {1}, {1}}}"});
  EXPECT_TRUE(Compare(f, "f32[1,1] {{30}}").ok);
  EXPECT_FALSE(Compare(f, "f32[1,1] {{100}}").ok);
  EXPECT_TRUE(Compare(f, "f32[1,1] {{100}}", "dot-input=bf16").ok);
}

// set-dimension-size to 2 of f32[4]: the result f32[<=4] holds 2 valid
// elements; the 2 after them are padding.
constexpr char kPadded[] = R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  n = s32[] constant(2)
  ROOT r = f32[<=4] set-dimension-size(a, n), dimensions={0}
})";

TEST(Comparator, DynamicPaddingIsNeverComparedAndCompactResultsAreAccepted) {
  Fixture f = Make(kPadded, {"f32[4] {1, 2, 3, 4}"});
  // Whatever a backend leaves in the padding, under the xla profile too.
  ComparisonResult full = Compare(f, "f32[4] {1, 2, 99, -7}");
  EXPECT_TRUE(full.ok) << full.Summary();
  EXPECT_EQ(full.masked, 2);
  // Just the valid part, as XLA:CPU returns it.
  EXPECT_TRUE(Compare(f, "f32[2] {1, 2}").ok);
  // A wrong valid element still fails, in either form.
  EXPECT_FALSE(Compare(f, "f32[2] {1, 5}").ok);
  EXPECT_FALSE(Compare(f, "f32[4] {1, 5, 3, 4}").ok);
  // A compact result of another size is a structure mismatch.
  ComparisonResult wrong_size = Compare(f, "f32[3] {1, 2, 3}");
  EXPECT_FALSE(wrong_size.ok);
  EXPECT_FALSE(wrong_size.structure_error.empty());
  // A dynamic result carries its runtime sizes, and they must be the
  // oracle's (2).
  EXPECT_TRUE(Compare(f, "f32[<=4](2) {1, 2}").ok);
  ComparisonResult wrong_sizes = Compare(f, "f32[<=4](3) {1, 2, 3}");
  EXPECT_FALSE(wrong_sizes.ok);
  EXPECT_NE(wrong_sizes.structure_error.find("expected runtime sizes (2)"),
            std::string::npos)
      << wrong_sizes.structure_error;
}

// all-reduce-start/done with a float add: done is judged with start's
// reducer (class A with S and m), not as ANY.
constexpr char kAllReduceDone[] = R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2] parameter(0)
  s = f32[2] all-reduce-start(x), replica_groups={}, to_apply=add
  ROOT d = f32[2] all-reduce-done(s)
})";

TEST(Comparator, AllReduceDoneJudgedWithItsStartsReducer) {
  // One participant: the fold of one value is exact (no S and m), so the
  // class A rule demands the value itself.
  Fixture f = Make(kAllReduceDone, {"f32[2] {1.5, -2}"});
  EXPECT_TRUE(Compare(f, "f32[2] {1.5, -2}").ok);
  ComparisonResult bad = Compare(f, "f32[2] {2.5, -2}");
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.failures[0].rule.find("class A"), std::string::npos)
      << bad.failures[0].rule;
}

// all-reduce with a float multiply: the product bound with the group size
// as the factor count (was ANY).
constexpr char kAllReduceMul[] = R"(
HloModule m
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT p = f32[] multiply(a, b)
}
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=mul
})";

TEST(Comparator, AllReduceMultiplyJudgedWithTheProductBound) {
  Fixture f = Make(kAllReduceMul, {"f32[2] {1.5, -3}"});
  EXPECT_TRUE(Compare(f, "f32[2] {1.5, -3}").ok);
  ComparisonResult bad = Compare(f, "f32[2] {1.5, -3.01}");
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.failures[0].rule.find("product bound"), std::string::npos)
      << bad.failures[0].rule;
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
  EXPECT_EQ(d->ToString(),
            "ftz=bf16+f32+f64,fast-min-max,fma-contraction,"
            "nan-canonical=bf16+f8e5m2+f8e4m3fn+f8e4m3+f8e3m4");
  EXPECT_EQ(d->Describe().size(), 4u);
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

// ---------------------------------------------------------------------------
// Whole-output bounds (op_bounds.h): fft, cholesky, triangular-solve, batch
// norm. The float implementations below are written here, independently of
// the oracle, in plain float arithmetic; a correct one must pass and a
// wrong result must fail with the rule named.

// A deterministic value in [-1, 1) (LCG), for test data.
struct TestRng {
  uint64_t s = 12345;
  double Next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / 4503599627370496.0 - 1;
  }
};

Fixture MakeLits(const std::string& text, std::vector<Literal> args) {
  Fixture f;
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  f.module = *std::move(m);
  auto v = VerifyModule(*f.module);
  EXPECT_TRUE(v.ok()) << v;
  f.args = std::move(args);
  EvaluatorOptions options;
  options.compute_error_data = true;
  Evaluator ev(options);
  auto r = ev.Run(*f.module, f.args);
  EXPECT_TRUE(r.ok()) << r.status();
  f.oracle = *std::move(r);
  return f;
}

// Compares flattened outputs; with `ftz_alt`, the oracle on flushed
// arguments is passed too (what the suite does under a declared ftz).
ComparisonResult CompareOuts(const Fixture& f, const std::vector<Literal>& outs,
                             const std::string& deviations = "",
                             bool ftz_alt = false) {
  CompareConfig config;
  auto d = ParseDeviations(deviations);
  EXPECT_TRUE(d.ok()) << d.status();
  config.deviations = *d;
  EvalResult flushed_oracle;
  bool have_alt = false;
  if (ftz_alt) {
    bool changed = false;
    std::vector<Literal> flushed =
        FlushSubnormalArgs(f.args, config.deviations.ftz_types, &changed);
    if (changed) {
      EvaluatorOptions options;
      options.compute_error_data = true;
      Evaluator ev(options);
      auto r = ev.Run(*f.module, flushed);
      EXPECT_TRUE(r.ok()) << r.status();
      flushed_oracle = *std::move(r);
      have_alt = true;
    }
  }
  return CompareToOracle(*f.module, f.args, f.oracle,
                         have_alt ? &flushed_oracle : nullptr, outs, config);
}

std::vector<Literal> OracleOuts(const Fixture& f) {
  std::vector<Literal> outs;
  for (const EvaluatedOutput& o : f.oracle.outputs) outs.push_back(o.value);
  return outs;
}

bool RuleNamed(const ComparisonResult& r, const std::string& name) {
  return !r.failures.empty() &&
         r.failures[0].rule.find(name) != std::string::npos;
}

std::string FftModule(int n) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = c64[", n,
                      "] parameter(0)\n  ROOT f = c64[", n,
                      "] fft(x), fft_type=FFT, fft_length={", n, "}\n}\n");
}

// The naive DFT in float: X[k] = sum_j x[j] w^(jk mod n), twiddles by
// cosf/sinf of the reduced angle, recursive float accumulation.
Literal NaiveDftF32(const Literal& x, int n) {
  Literal out(x.shape());
  const float two_pi = 6.28318530717958647692f;
  for (int k = 0; k < n; ++k) {
    float re = 0, im = 0;
    for (int j = 0; j < n; ++j) {
      const float angle =
          -two_pi * static_cast<float>((j * k) % n) / static_cast<float>(n);
      const float c = std::cos(angle), s = std::sin(angle);
      const std::complex<double> v = x.GetAsComplex(j);
      const float a = static_cast<float>(v.real());
      const float b = static_cast<float>(v.imag());
      re += a * c - b * s;
      im += a * s + b * c;
    }
    out.SetFromComplex(k, {re, im});
  }
  return out;
}

TEST(OpBounds, FftFloatDftPassesAndWrongResultsFail) {
  for (int n : {1, 5, 8, 12, 13, 64}) {
    TestRng rng;
    Literal x(Shape(PrimitiveType::kC64, {n}));
    for (int j = 0; j < n; ++j) x.SetFromComplex(j, {rng.Next(), rng.Next()});
    std::vector<Literal> args;
    args.push_back(x);
    Fixture f = MakeLits(FftModule(n), std::move(args));
    SCOPED_TRACE(n);
    // The oracle's own result.
    ComparisonResult self = CompareOuts(f, OracleOuts(f));
    EXPECT_TRUE(self.ok) << self.Summary();
    EXPECT_EQ(self.masked, 0);
    // A float DFT (an f32 implementation of the definition).
    std::vector<Literal> naive;
    naive.push_back(NaiveDftF32(x, n));
    ComparisonResult r = CompareOuts(f, naive);
    EXPECT_TRUE(r.ok) << r.Summary();
    if (n < 5) continue;
    // ||Y||_2 = sqrt(n) ||x||_2 (Parseval); the bound is >= 8 u ||Y||_2,
    // so a perturbation of 2 u ||Y||_2 on every element is inside it.
    const Literal& y = f.oracle.outputs[0].value;
    double norm2 = 0, biggest = 0;
    int arg_big = 0, arg_small = 0;
    double smallest = INFINITY;
    for (int k = 0; k < n; ++k) {
      const double a = std::abs(y.GetAsComplex(k));
      norm2 += a * a;
      if (a > biggest) biggest = a, arg_big = k;
      if (a < smallest) smallest = a, arg_small = k;
    }
    const double norm = std::sqrt(norm2);
    Literal inside = y;
    for (int k = 0; k < n; ++k) {
      inside.SetFromComplex(
          k, y.GetAsComplex(k) +
                 std::complex<double>(2 * std::ldexp(1.0, -24) * norm, 0));
    }
    std::vector<Literal> in_outs;
    in_outs.push_back(inside);
    EXPECT_TRUE(CompareOuts(f, in_outs).ok);
    // The largest element off by 1e-3 relative: 1e-3 |Y_k| >= 1e-3
    // ||Y||/sqrt(n) >= 1.2e-4 ||Y||, far above 8 u L ||Y|| <= 7.7e-6 ||Y||.
    Literal off = y;
    off.SetFromComplex(arg_big, y.GetAsComplex(arg_big) * 1.001);
    std::vector<Literal> off_outs;
    off_outs.push_back(off);
    ComparisonResult bad = CompareOuts(f, off_outs);
    ASSERT_FALSE(bad.ok);
    EXPECT_TRUE(RuleNamed(bad, "FFT_BOUND")) << bad.Summary();
    EXPECT_EQ(bad.failures[0].index, arg_big);
    EXPECT_GT(bad.failures[0].bound, 0);
    EXPECT_NE(bad.failures[0].why.find("exceeds the bound"), std::string::npos);
    // Two elements swapped (the largest and the smallest).
    Literal swapped = y;
    swapped.SetFromComplex(arg_big, y.GetAsComplex(arg_small));
    swapped.SetFromComplex(arg_small, y.GetAsComplex(arg_big));
    std::vector<Literal> sw;
    sw.push_back(swapped);
    ComparisonResult bad2 = CompareOuts(f, sw);
    EXPECT_FALSE(bad2.ok);
    EXPECT_TRUE(RuleNamed(bad2, "FFT_BOUND")) << bad2.Summary();
  }
}

TEST(OpBounds, FftFlushToZeroCaughtAndAcceptedWhenDeclared) {
  // Every input is subnormal (2^-140 scale), so the result is subnormal
  // too: a flushing backend returns zeros, far outside the bound (which is
  // relative to ||Y|| plus L N times the subnormal spacing), and passes
  // once ftz is declared (oracle on flushed inputs = zeros).
  const int n = 8;
  Literal x(Shape(PrimitiveType::kC64, {n}));
  TestRng rng;
  for (int j = 0; j < n; ++j) {
    x.SetFromComplex(j, {std::ldexp(1.0, -130) * (1 + rng.Next()) / 2,
                         std::ldexp(1.0, -131) * (1 + rng.Next()) / 2});
  }
  std::vector<Literal> args;
  args.push_back(x);
  Fixture f = MakeLits(FftModule(n), std::move(args));
  std::vector<Literal> zeros;
  zeros.push_back(Literal(Shape(PrimitiveType::kC64, {n})));
  ComparisonResult strict = CompareOuts(f, zeros);
  EXPECT_FALSE(strict.ok);
  EXPECT_TRUE(RuleNamed(strict, "FFT_BOUND")) << strict.Summary();
  ComparisonResult declared = CompareOuts(f, zeros, "ftz=f32", true);
  EXPECT_TRUE(declared.ok) << declared.Summary();
}

std::string CholeskyModule(int n, bool lower) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = f32[", n, ",", n,
                      "] parameter(0)\n  ROOT l = f32[", n, ",", n,
                      "] cholesky(a)", lower ? ", lower=true" : "", "\n}\n");
}

// A = B B^T + n I, symmetric positive definite and well conditioned, in
// f32 (each element rounded; still symmetric).
Literal SpdMatrix(int n) {
  TestRng rng;
  std::vector<double> b(n * n);
  for (double& v : b) v = rng.Next();
  Literal a(Shape(PrimitiveType::kF32, {n, n}));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double s = i == j ? n : 0;
      for (int k = 0; k < n; ++k) s += b[i * n + k] * b[j * n + k];
      a.SetFromDouble(i * n + j, s);
    }
  }
  return a;
}

// Unblocked Cholesky-Crout in float; the result's other triangle is 0.
Literal CholeskyF32(const Literal& a, int n, bool lower) {
  std::vector<float> l(n * n, 0.0f);
  for (int j = 0; j < n; ++j) {
    float d = static_cast<float>(a.GetAsDouble(j * n + j));
    for (int k = 0; k < j; ++k) d -= l[j * n + k] * l[j * n + k];
    const float ljj = std::sqrt(d);
    l[j * n + j] = ljj;
    for (int i = j + 1; i < n; ++i) {
      float s = static_cast<float>(lower ? a.GetAsDouble(i * n + j)
                                         : a.GetAsDouble(j * n + i));
      for (int k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = s / ljj;
    }
  }
  Literal out(a.shape());
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      out.SetFromDouble(lower ? i * n + j : j * n + i, l[i * n + j]);
    }
  }
  return out;
}

TEST(OpBounds, CholeskyBackwardError) {
  for (int n : {1, 3, 16, 64}) {
    for (bool lower : {true, false}) {
      SCOPED_TRACE(absl::StrCat("n = ", n, lower ? " lower" : " upper"));
      std::vector<Literal> args;
      args.push_back(SpdMatrix(n));
      Fixture f = MakeLits(CholeskyModule(n, lower), args);
      ComparisonResult self = CompareOuts(f, OracleOuts(f));
      EXPECT_TRUE(self.ok) << self.Summary();
      std::vector<Literal> mine;
      mine.push_back(CholeskyF32(f.args[0], n, lower));
      ComparisonResult r = CompareOuts(f, mine);
      EXPECT_TRUE(r.ok) << r.Summary();
      // The other triangle is masked (numerics.md 3.9): junk there passes.
      if (n > 1) {
        std::vector<Literal> junk;
        junk.push_back(mine[0]);
        junk[0].SetFromDouble(lower ? 1 : n, 12345);
        EXPECT_TRUE(CompareOuts(f, junk).ok);
      }
      // The last diagonal element off by 1e-3 relative: the diagonal
      // residual a_nn - sum_k l_nk^2 moves by ~2e-3 l_nn^2, far above
      // 2 gamma_{n+1}(2^-24) a_nn.
      const Literal& y = f.oracle.outputs[0].value;
      const int last = n * n - 1;
      std::vector<Literal> off;
      off.push_back(y);
      off[0].SetFromDouble(last, y.GetAsDouble(last) * 1.001);
      ComparisonResult bad = CompareOuts(f, off);
      ASSERT_FALSE(bad.ok);
      EXPECT_TRUE(RuleNamed(bad, "BACKWARD_ERROR")) << bad.Summary();
      EXPECT_NE(bad.failures[0].why.find("residual"), std::string::npos);
      EXPECT_GT(bad.failures[0].bound, 0);
      if (n < 3) continue;
      // A transposed factor (L^T where L is expected): its returned
      // triangle is the diagonal only, so the residual fails.
      std::vector<Literal> tr;
      tr.push_back(Literal(y.shape()));
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
          tr[0].SetFromDouble(i * n + j, y.GetAsDouble(j * n + i));
        }
      }
      ComparisonResult bad2 = CompareOuts(f, tr);
      EXPECT_FALSE(bad2.ok);
      EXPECT_TRUE(RuleNamed(bad2, "BACKWARD_ERROR")) << bad2.Summary();
      // Two off-diagonal elements of the returned triangle swapped.
      const int p = lower ? 1 * n + 0 : 0 * n + 1;
      const int q = lower ? 2 * n + 1 : 1 * n + 2;
      std::vector<Literal> sw;
      sw.push_back(y);
      sw[0].SetFromDouble(p, y.GetAsDouble(q));
      sw[0].SetFromDouble(q, y.GetAsDouble(p));
      if (y.GetAsDouble(p) != y.GetAsDouble(q)) {
        EXPECT_FALSE(CompareOuts(f, sw).ok);
      }
      // A failed factorization (all NaN) of a safely positive definite
      // matrix fails.
      std::vector<Literal> nan;
      nan.push_back(y);
      for (int i = 0; i < n * n; ++i) nan[0].SetFromDouble(i, NAN);
      ComparisonResult bad3 = CompareOuts(f, nan);
      EXPECT_FALSE(bad3.ok);
      EXPECT_NE(bad3.failures[0].why.find("safely positive definite"),
                std::string::npos)
          << bad3.Summary();
    }
  }
}

TEST(OpBounds, CholeskyNearSingularAcceptsAFailedFactorization) {
  // diag(1, 2^-30): positive definite, but lambda_min = 2^-30 is below
  // 2 n gamma_{n+1}(2^-24) max a_ii, so a float factorization of a
  // matrix within its backward error may meet a non-positive pivot.
  std::vector<Literal> args;
  args.push_back(*ParseLiteral("f32[2,2] {{1, 0}, {0, 9.31322575e-10}}"));
  Fixture f = MakeLits(CholeskyModule(2, true), args);
  std::vector<Literal> nan;
  nan.push_back(*ParseLiteral("f32[2,2] {{nan, nan}, {nan, nan}}"));
  ComparisonResult r = CompareOuts(f, nan);
  EXPECT_TRUE(r.ok) << r.Summary();
  EXPECT_EQ(r.masked, 4);
}

TEST(OpBounds, TriangularSolveForwardError) {
  const int n = 16, k = 3;
  TestRng rng;
  // Lower triangular, diagonally dominant (well conditioned).
  Literal a(Shape(PrimitiveType::kF32, {n, n}));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      a.SetFromDouble(i * n + j, i == j ? 4 + rng.Next() : 0.5 * rng.Next());
    }
  }
  Literal b(Shape(PrimitiveType::kF32, {n, k}));
  for (int i = 0; i < n * k; ++i) b.SetFromDouble(i, rng.Next());
  std::vector<Literal> args;
  args.push_back(a);
  args.push_back(b);
  const std::string text =
      absl::StrCat("HloModule m\nENTRY e {\n  a = f32[", n, ",", n,
                   "] parameter(0)\n  b = f32[", n, ",", k,
                   "] parameter(1)\n  ROOT x = f32[", n, ",", k,
                   "] triangular-solve(a, b), left_side=true, lower=true, "
                   "transpose_a=NO_TRANSPOSE\n}\n");
  Fixture f = MakeLits(text, args);
  ComparisonResult self = CompareOuts(f, OracleOuts(f));
  EXPECT_TRUE(self.ok) << self.Summary();
  // Forward substitution in float.
  Literal x(Shape(PrimitiveType::kF32, {n, k}));
  for (int c = 0; c < k; ++c) {
    std::vector<float> xc(n);
    for (int i = 0; i < n; ++i) {
      float s = static_cast<float>(b.GetAsDouble(i * k + c));
      for (int j = 0; j < i; ++j) {
        s -= static_cast<float>(a.GetAsDouble(i * n + j)) * xc[j];
      }
      xc[i] = s / static_cast<float>(a.GetAsDouble(i * n + i));
      x.SetFromDouble(i * k + c, xc[i]);
    }
  }
  std::vector<Literal> mine;
  mine.push_back(x);
  ComparisonResult r = CompareOuts(f, mine);
  EXPECT_TRUE(r.ok) << r.Summary();
  // One element off by 1e-3 relative (the bound is about 4 gamma_17 C^2
  // |x| with C = |T^-1||T| of order 1 for this diagonally dominant T).
  const Literal& y = f.oracle.outputs[0].value;
  std::vector<Literal> off;
  off.push_back(y);
  off[0].SetFromDouble(7 * k + 1, y.GetAsDouble(7 * k + 1) * 1.001);
  ComparisonResult bad = CompareOuts(f, off);
  ASSERT_FALSE(bad.ok);
  EXPECT_TRUE(RuleNamed(bad, "FORWARD_ERROR")) << bad.Summary();
  EXPECT_EQ(bad.failures[0].multi_index, "{7,1}");
}

constexpr char kBnInference[] = R"(
HloModule m
ENTRY e {
  x = f32[8,3] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  m = f32[3] parameter(3)
  v = f32[3] parameter(4)
  ROOT y = f32[8,3] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=1
})";

constexpr char kBnTraining[] = R"(
HloModule m
ENTRY e {
  x = f32[8,3] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  ROOT t = (f32[8,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
})";

constexpr char kBnGrad[] = R"(
HloModule m
ENTRY e {
  x = f32[8,3] parameter(0)
  s = f32[3] parameter(1)
  m = f32[3] parameter(2)
  v = f32[3] parameter(3)
  dy = f32[8,3] parameter(4)
  ROOT t = (f32[8,3], f32[3], f32[3]) batch-norm-grad(x, s, m, v, dy), epsilon=0.001, feature_index=1
})";

Literal RandomF32(std::vector<int64_t> dims, TestRng& rng, double lo,
                  double hi) {
  Literal l(Shape(PrimitiveType::kF32, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) {
    l.SetFromDouble(i, lo + (hi - lo) * (rng.Next() + 1) / 2);
  }
  return l;
}

float F(const Literal& l, int64_t i) {
  return static_cast<float>(l.GetAsDouble(i));
}

TEST(OpBounds, BatchNormFloatImplementationsPassWrongOnesFail) {
  TestRng rng;
  const float eps = 0.001f;
  Literal x = RandomF32({8, 3}, rng, -2, 3);
  Literal s = RandomF32({3}, rng, 0.5, 2);
  Literal o = RandomF32({3}, rng, -1, 1);
  Literal m = RandomF32({3}, rng, -0.5, 0.5);
  Literal v = RandomF32({3}, rng, 0.5, 2);
  Literal dy = RandomF32({8, 3}, rng, -1, 1);
  {
    std::vector<Literal> args = {x, s, o, m, v};
    Fixture f = MakeLits(kBnInference, args);
    EXPECT_TRUE(CompareOuts(f, OracleOuts(f)).ok);
    // XLA's expander order: x * (s rsqrt(v + eps)) + (o - m s rsqrt(..)).
    Literal y(x.shape());
    for (int i = 0; i < 24; ++i) {
      const int c = i % 3;
      const float ts = F(s, c) / std::sqrt(F(v, c) + eps);
      y.SetFromDouble(i, F(x, i) * ts + (F(o, c) - F(m, c) * ts));
    }
    std::vector<Literal> mine = {y};
    ComparisonResult r = CompareOuts(f, mine);
    EXPECT_TRUE(r.ok) << r.Summary();
    std::vector<Literal> off = OracleOuts(f);
    off[0].SetFromDouble(5, off[0].GetAsDouble(5) * 1.001 + 1e-3);
    ComparisonResult bad = CompareOuts(f, off);
    ASSERT_FALSE(bad.ok);
    EXPECT_TRUE(RuleNamed(bad, "BATCH_NORM_BOUND")) << bad.Summary();
  }
  {
    std::vector<Literal> args = {x, s, o};
    Fixture f = MakeLits(kBnTraining, args);
    EXPECT_TRUE(CompareOuts(f, OracleOuts(f)).ok);
    // One-pass statistics in float (E[x^2] - E[x]^2), as XLA expands it.
    Literal y(x.shape()), mean(s.shape()), var(s.shape());
    for (int c = 0; c < 3; ++c) {
      float sum = 0, sum2 = 0;
      for (int r = 0; r < 8; ++r) {
        sum += F(x, r * 3 + c);
        sum2 += F(x, r * 3 + c) * F(x, r * 3 + c);
      }
      const float mu = sum / 8, var_c = sum2 / 8 - mu * mu;
      mean.SetFromDouble(c, mu);
      var.SetFromDouble(c, var_c);
      for (int r = 0; r < 8; ++r) {
        y.SetFromDouble(r * 3 + c, (F(x, r * 3 + c) - mu) * F(s, c) /
                                           std::sqrt(var_c + eps) +
                                       F(o, c));
      }
    }
    std::vector<Literal> mine = {y, mean, var};
    ComparisonResult r = CompareOuts(f, mine);
    EXPECT_TRUE(r.ok) << r.Summary();
    std::vector<Literal> off = OracleOuts(f);
    off[1].SetFromDouble(2, off[1].GetAsDouble(2) + 1e-3);
    ComparisonResult bad = CompareOuts(f, off);
    ASSERT_FALSE(bad.ok);
    EXPECT_EQ(bad.failures[0].output, 1);
    EXPECT_TRUE(RuleNamed(bad, "BATCH_NORM_BOUND")) << bad.Summary();
    EXPECT_NE(bad.failures[0].rule.find("batch_mean"), std::string::npos);
    // Mean and variance swapped.
    std::vector<Literal> sw = OracleOuts(f);
    std::swap(sw[1], sw[2]);
    EXPECT_FALSE(CompareOuts(f, sw).ok);
  }
  {
    std::vector<Literal> args = {x, s, m, v, dy};
    Fixture f = MakeLits(kBnGrad, args);
    EXPECT_TRUE(CompareOuts(f, OracleOuts(f)).ok);
    Literal gx(x.shape()), gs(s.shape()), go(s.shape());
    for (int c = 0; c < 3; ++c) {
      const float r = 1 / std::sqrt(F(v, c) + eps);
      float sdy = 0, sdyx = 0;
      for (int i = 0; i < 8; ++i) {
        sdy += F(dy, i * 3 + c);
        sdyx += F(dy, i * 3 + c) * (F(x, i * 3 + c) - F(m, c));
      }
      go.SetFromDouble(c, sdy);
      gs.SetFromDouble(c, sdyx * r);
      for (int i = 0; i < 8; ++i) {
        const float xm = F(x, i * 3 + c) - F(m, c);
        gx.SetFromDouble(i * 3 + c, F(s, c) * r *
                                        (F(dy, i * 3 + c) - sdy / 8 -
                                         xm * sdyx / (8 * (F(v, c) + eps))));
      }
    }
    std::vector<Literal> mine = {gx, gs, go};
    ComparisonResult r = CompareOuts(f, mine);
    EXPECT_TRUE(r.ok) << r.Summary();
    std::vector<Literal> off = OracleOuts(f);
    off[0].SetFromDouble(4, off[0].GetAsDouble(4) * 1.001 + 1e-3);
    ComparisonResult bad = CompareOuts(f, off);
    ASSERT_FALSE(bad.ok);
    EXPECT_TRUE(RuleNamed(bad, "BATCH_NORM_BOUND")) << bad.Summary();
  }
}

TEST(OpBounds, RngBitGeneratorDefaultIsAnyThreeFryIsExact) {
  for (const char* alg : {"rng_default", "rng_three_fry"}) {
    SCOPED_TRACE(alg);
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY e {\n  s = u64[2] parameter(0)\n  ROOT r = "
        "(u64[2], u32[4]) rng-bit-generator(s), algorithm=",
        alg, "\n}\n");
    std::vector<Literal> args;
    args.push_back(*ParseLiteral("u64[2] {1, 2}"));
    Fixture f = MakeLits(text, args);
    std::vector<Literal> outs = OracleOuts(f);
    EXPECT_TRUE(CompareOuts(f, outs).ok);
    outs[1].SetFromInt64(0, outs[1].GetAsInt64(0) ^ 1);
    ComparisonResult r = CompareOuts(f, outs);
    EXPECT_EQ(r.ok, std::string(alg) == "rng_default") << r.Summary();
  }
}

// nan-canonical (part of xla-cpu): XLA:CPU computes bf16/f8 abs and negate
// in f32, so a NaN operand gives the canonical NaN (f8e5m2 0x7F) whatever
// its payload and sign. Without the deviation, abs is payload-preserving
// (numerics.md 7.5) and must return the operand's NaN with the sign bit
// cleared: f8e5m2 0xFD (-NaN, payload 1) -> 0x7D.
TEST(Deviations, NanCanonicalAbsNegate) {
  Fixture f = Make(R"(
HloModule m
ENTRY e {
  a = f8e5m2[2] parameter(0)
  ROOT r = f8e5m2[2] abs(a)
})",
                   {"f8e5m2[2] {-nan(0x1), 2}"});
  EXPECT_TRUE(Compare(f, "f8e5m2[2] {nan(0x1), 2}").ok);
  EXPECT_FALSE(Compare(f, "f8e5m2[2] {nan(0x3), 2}").ok);
  EXPECT_TRUE(Compare(f, "f8e5m2[2] {nan(0x3), 2}", "nan-canonical").ok);
  EXPECT_TRUE(Compare(f, "f8e5m2[2] {nan(0x3), 2}", "xla-cpu").ok);
  // Still a NaN for a NaN, and exact elsewhere.
  EXPECT_FALSE(Compare(f, "f8e5m2[2] {1, 2}", "xla-cpu").ok);
  EXPECT_FALSE(Compare(f, "f8e5m2[2] {nan(0x3), 3}", "xla-cpu").ok);
  // Types not declared keep the payload rule.
  EXPECT_FALSE(Compare(f, "f8e5m2[2] {nan(0x3), 2}", "nan-canonical=bf16").ok);
  auto d = ParseDeviations("nan-canonical=bf16+f8e4m3");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->nan_canonical_types.size(), 2u);
  EXPECT_FALSE(ParseDeviations("nan-canonical=s32").ok());
}

// One naive float DFT along axis `axis` (length n, stride) of a complex
// float buffer, in place; sign -1 forward, +1 inverse (unscaled).
void NaiveAxisF32(std::vector<std::complex<float>>& v, int64_t n,
                  int64_t stride, int64_t count, int sign) {
  const float two_pi = 6.28318530717958647692f;
  std::vector<std::complex<float>> line(n), out(n);
  for (int64_t base = 0; base < count; ++base) {
    // base enumerates the lines: outer index o, inner index i.
    const int64_t o = base / stride, i = base % stride;
    const int64_t start = o * n * stride + i;
    for (int64_t j = 0; j < n; ++j) line[j] = v[start + j * stride];
    for (int64_t k = 0; k < n; ++k) {
      float re = 0, im = 0;
      for (int64_t j = 0; j < n; ++j) {
        const float angle = sign * two_pi * static_cast<float>((j * k) % n) /
                            static_cast<float>(n);
        const float c = std::cos(angle), sn = std::sin(angle);
        re += line[j].real() * c - line[j].imag() * sn;
        im += line[j].real() * sn + line[j].imag() * c;
      }
      out[k] = {re, im};
    }
    for (int64_t k = 0; k < n; ++k) v[start + k * stride] = out[k];
  }
}

TEST(OpBounds, FftMultiAxisInverseAndRealTransforms) {
  TestRng rng;
  {
    // IFFT over two axes of c64[4,6]: float DFT along each axis (rounded
    // to float in between), then scaled by 1/24 in float.
    Literal x(Shape(PrimitiveType::kC64, {4, 6}));
    for (int j = 0; j < 24; ++j) x.SetFromComplex(j, {rng.Next(), rng.Next()});
    std::vector<Literal> args = {x};
    Fixture f = MakeLits(
        "HloModule m\nENTRY e {\n  x = c64[4,6] parameter(0)\n  ROOT f = "
        "c64[4,6] fft(x), fft_type=IFFT, fft_length={4,6}\n}\n",
        args);
    EXPECT_TRUE(CompareOuts(f, OracleOuts(f)).ok);
    std::vector<std::complex<float>> v(24);
    for (int j = 0; j < 24; ++j) {
      const std::complex<double> z = x.GetAsComplex(j);
      v[j] = {static_cast<float>(z.real()), static_cast<float>(z.imag())};
    }
    NaiveAxisF32(v, 6, 1, 4, +1);  // innermost axis: 4 lines of 6
    NaiveAxisF32(v, 4, 6, 6, +1);  // outer axis: 6 lines of 4, stride 6
    Literal y(x.shape());
    for (int j = 0; j < 24; ++j) {
      y.SetFromComplex(j, {v[j].real() / 24.0f, v[j].imag() / 24.0f});
    }
    std::vector<Literal> mine = {y};
    ComparisonResult r = CompareOuts(f, mine);
    EXPECT_TRUE(r.ok) << r.Summary();
    // Forgetting the 1/N scaling is caught.
    Literal unscaled(x.shape());
    for (int j = 0; j < 24; ++j)
      unscaled.SetFromComplex(j, {v[j].real(), v[j].imag()});
    std::vector<Literal> bad = {unscaled};
    ComparisonResult b = CompareOuts(f, bad);
    EXPECT_FALSE(b.ok);
    EXPECT_TRUE(RuleNamed(b, "FFT_BOUND")) << b.Summary();
  }
  {
    // RFFT of f32[16]: entries 0..8 of the float DFT of the real input.
    Literal x(Shape(PrimitiveType::kF32, {16}));
    for (int j = 0; j < 16; ++j) x.SetFromDouble(j, rng.Next());
    std::vector<Literal> args = {x};
    Fixture f = MakeLits(
        "HloModule m\nENTRY e {\n  x = f32[16] parameter(0)\n  ROOT f = "
        "c64[9] fft(x), fft_type=RFFT, fft_length={16}\n}\n",
        args);
    EXPECT_TRUE(CompareOuts(f, OracleOuts(f)).ok);
    std::vector<std::complex<float>> v(16);
    for (int j = 0; j < 16; ++j)
      v[j] = {static_cast<float>(x.GetAsDouble(j)), 0};
    NaiveAxisF32(v, 16, 1, 1, -1);
    Literal y(Shape(PrimitiveType::kC64, {9}));
    for (int k = 0; k < 9; ++k) y.SetFromComplex(k, {v[k].real(), v[k].imag()});
    std::vector<Literal> mine = {y};
    ComparisonResult r = CompareOuts(f, mine);
    EXPECT_TRUE(r.ok) << r.Summary();
    // The conjugate spectrum (the inverse's sign) is caught.
    Literal conj = y;
    for (int k = 0; k < 9; ++k)
      conj.SetFromComplex(k, std::conj(y.GetAsComplex(k)));
    std::vector<Literal> bad = {conj};
    EXPECT_FALSE(CompareOuts(f, bad).ok);
  }
}

TEST(OpBounds, TriangularSolveRightSideTransposedUpper) {
  // x op(a) = b with the upper triangle of a (lower=false) and op =
  // TRANSPOSE: op(a) = a^T is lower triangular, so row r of x solves
  // sum_{i >= j} x_i a^T(i, j) = b_j, by back substitution over j in
  // float: x_j = (b_j - sum_{i > j} x_i a^T(i, j)) / a^T(j, j).
  const int n = 8, k = 2;
  TestRng rng;
  Literal a(Shape(PrimitiveType::kF32, {n, n}));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      // Junk below the diagonal: the op must not read it.
      a.SetFromDouble(i * n + j, i == j  ? 3 + rng.Next()
                                 : i < j ? 0.5 * rng.Next()
                                         : 100.0);
    }
  }
  Literal b(Shape(PrimitiveType::kF32, {k, n}));
  for (int i = 0; i < k * n; ++i) b.SetFromDouble(i, rng.Next());
  std::vector<Literal> args = {a, b};
  Fixture f = MakeLits(
      "HloModule m\nENTRY e {\n  a = f32[8,8] parameter(0)\n  b = f32[2,8] "
      "parameter(1)\n  ROOT x = f32[2,8] triangular-solve(a, b), "
      "transpose_a=TRANSPOSE\n}\n",
      args);
  EXPECT_TRUE(CompareOuts(f, OracleOuts(f)).ok);
  auto at = [&](int i, int j) {  // a^T(i, j) = a(j, i), upper part of a only
    return j <= i ? F(a, j * n + i) : 0.0f;
  };
  Literal x(b.shape());
  for (int r = 0; r < k; ++r) {
    std::vector<float> xr(n);
    for (int j = n - 1; j >= 0; --j) {
      float s = F(b, r * n + j);
      for (int i = j + 1; i < n; ++i) s -= xr[i] * at(i, j);
      xr[j] = s / at(j, j);
      x.SetFromDouble(r * n + j, xr[j]);
    }
  }
  std::vector<Literal> mine = {x};
  ComparisonResult r = CompareOuts(f, mine);
  EXPECT_TRUE(r.ok) << r.Summary();
  // One element off by 1e-3 relative is caught.
  std::vector<Literal> off = OracleOuts(f);
  off[0].SetFromDouble(3, off[0].GetAsDouble(3) * 1.001);
  ComparisonResult bad = CompareOuts(f, off);
  EXPECT_FALSE(bad.ok);
  EXPECT_TRUE(RuleNamed(bad, "FORWARD_ERROR")) << bad.Summary();
}

TEST(OpBounds, BatchNormFlushToZeroCaughtAndAcceptedWhenDeclared) {
  // x and offset are subnormal, scale = 1, mean = 0, var + eps = 1: the
  // result x + offset is subnormal. A flushing backend returns zeros:
  // outside the bound (relative terms of ~2^-20 |x| plus the subnormal
  // floor) without the deviation, accepted with ftz=f32.
  std::vector<Literal> args = {
      *ParseLiteral("f32[2,1] {{1e-39}, {-2e-39}}"),
      *ParseLiteral("f32[1] {1}"), *ParseLiteral("f32[1] {3e-39}"),
      *ParseLiteral("f32[1] {0}"), *ParseLiteral("f32[1] {0.75}")};
  Fixture f = MakeLits(
      "HloModule m\nENTRY e {\n  x = f32[2,1] parameter(0)\n  s = f32[1] "
      "parameter(1)\n  o = f32[1] parameter(2)\n  m = f32[1] parameter(3)\n  "
      "v = f32[1] parameter(4)\n  ROOT y = f32[2,1] batch-norm-inference(x, "
      "s, o, m, v), epsilon=0.25, feature_index=1\n}\n",
      args);
  std::vector<Literal> zeros = {*ParseLiteral("f32[2,1] {{0}, {0}}")};
  ComparisonResult strict = CompareOuts(f, zeros);
  EXPECT_FALSE(strict.ok);
  EXPECT_TRUE(RuleNamed(strict, "BATCH_NORM_BOUND")) << strict.Summary();
  ComparisonResult declared = CompareOuts(f, zeros, "ftz=f32", true);
  EXPECT_TRUE(declared.ok) << declared.Summary();
}

constexpr char kComplexAbsSqrt[] = R"(
HloModule m
ENTRY e {
  z = c64[1] parameter(0)
  a = f32[1] abs(z)
  s = c64[1] sqrt(z)
  ROOT t = (f32[1], c64[1]) tuple(a, s)
})";

TEST(Comparator, ComplexAbsAndSqrtAreJudgedAsFormulas) {
  // |3 + 4i| = 5 exactly, sqrt(3 + 4i) = 2 + i exactly. XLA computes both
  // with formulas (max * sqrt(1 + r^2), polar sqrt): a result 1 ulp off
  // is a correct implementation, 3 ulps off (abs) or 1e-4 relative (sqrt)
  // is not.
  Fixture f = MakeLits(kComplexAbsSqrt, [] {
    std::vector<Literal> a;
    a.push_back(*ParseLiteral("c64[1] {(3, 4)}"));
    return a;
  }());
  auto outs = [](float abs, std::complex<float> root) {
    std::vector<Literal> v;
    v.push_back(Literal::CreateR1<float>(PrimitiveType::kF32, {abs}));
    v.push_back(
        Literal::CreateR1<std::complex<float>>(PrimitiveType::kC64, {root}));
    return v;
  };
  const float five_up = std::nextafter(5.0f, 10.0f);
  const float two_up = std::nextafter(2.0f, 10.0f);
  EXPECT_TRUE(CompareOuts(f, outs(5, {2, 1})).ok);
  EXPECT_TRUE(CompareOuts(f, outs(five_up, {two_up, 1})).ok);
  const float five_3 = std::nextafter(std::nextafter(five_up, 10.0f), 10.0f);
  EXPECT_FALSE(CompareOuts(f, outs(five_3, {2, 1})).ok);
  EXPECT_FALSE(CompareOuts(f, outs(5, {2.0002f, 1})).ok);
}

}  // namespace
}  // namespace hloref::conformance
