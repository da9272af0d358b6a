// Tests of scan (interpreter/ops/scan.cc): cumulative sums forward and
// reverse, outputs without carries and carries without outputs, several
// inputs and carries, a non-leading scan dimension with array slices, a
// zero-length scan, pred/unsigned/complex element types, error data of an
// associative float add scan, and don't-care propagation. Every expected
// value is derived by hand in the comments next to it.
#include <cmath>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "interpreter/ops/accumulate_test_util.h"

namespace hloref {
namespace {

using testing_acc::Make;
using testing_acc::ParseVerified;
using testing_acc::RunHlo;

// to_apply(x, c) = (x + c, x + c): the cumulative-sum step on T[dims].
std::string CumAdd(const std::string& type, const std::string& dims = "") {
  const std::string s = absl::StrCat(type, "[", dims, "]");
  return absl::StrCat("cum {\n  x = ", s, " parameter(0)\n  c = ", s,
                      " parameter(1)\n  a = ", s, " add(x, c)\n  ROOT t = (", s,
                      ", ", s, ") tuple(a, a)\n}\n");
}

Literal F32(std::vector<int64_t> dims, std::vector<float> v) {
  return Make<float>(PrimitiveType::kF32, dims, v);
}
Literal S32(std::vector<int64_t> dims, std::vector<int32_t> v) {
  return Make<int32_t>(PrimitiveType::kS32, dims, v);
}

Literal Pred(std::vector<int64_t> dims, std::initializer_list<bool> v) {
  const std::vector<bool> bits(v);
  std::unique_ptr<bool[]> values(new bool[bits.size()]);
  for (size_t i = 0; i < bits.size(); ++i) values[i] = bits[i];
  return Literal::CreateFromValues<bool>(
      PrimitiveType::kPred, dims,
      absl::MakeConstSpan(values.get(), bits.size()));
}

Literal Tuple2(Literal a, Literal b) {
  std::vector<Literal> v;
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  return Literal::MakeTuple(std::move(v));
}

TEST(Scan, CumulativeSumForward) {
  // x = [1, 2, 3, 4], c0 = 10: outputs 11, 13, 16, 20; final carry 20.
  const std::string text = "HloModule m\n" + CumAdd("s32") + R"(ENTRY e {
  x = s32[4] constant({1, 2, 3, 4})
  z = s32[] constant(10)
  ROOT r = (s32[4], s32[]) scan(x, z), dimensions={0}, num_carries=1, to_apply=cum
})";
  EXPECT_EQ(RunHlo(text),
            Tuple2(S32({4}, {11, 13, 16, 20}),
                   Literal::CreateR0<int32_t>(PrimitiveType::kS32, 20)));
}

TEST(Scan, CumulativeSumReverse) {
  // Reverse visits positions 3, 2, 1, 0: y[3] = 4 + 10 = 14, y[2] = 17,
  // y[1] = 19, y[0] = 20; final carry 20.
  const std::string text = "HloModule m\n" + CumAdd("s32") + R"(ENTRY e {
  x = s32[4] constant({1, 2, 3, 4})
  z = s32[] constant(10)
  ROOT r = (s32[4], s32[]) scan(x, z), dimensions={0}, num_carries=1, is_reverse=true, to_apply=cum
})";
  EXPECT_EQ(RunHlo(text),
            Tuple2(S32({4}, {20, 19, 17, 14}),
                   Literal::CreateR0<int32_t>(PrimitiveType::kS32, 20)));
}

TEST(Scan, OrderMattersForNonCommutativeStep) {
  // to_apply(x, c) = (c, x - c): output is the carry before the step, the
  // new carry is x - c. Forward over [5, 7, 2], c0 = 1:
  //   t0: y[0] = 1, c = 5 - 1 = 4; t1: y[1] = 4, c = 7 - 4 = 3;
  //   t2: y[2] = 3, c = 2 - 3 = -1.
  // Reverse (positions 2, 1, 0): y[2] = 1, c = 2 - 1 = 1; y[1] = 1,
  //   c = 7 - 1 = 6; y[0] = 6, c = 5 - 6 = -1.
  const std::string head = R"(HloModule m
f {
  x = s32[] parameter(0)
  c = s32[] parameter(1)
  d = s32[] subtract(x, c)
  ROOT t = (s32[], s32[]) tuple(c, d)
}
ENTRY e {
  x = s32[3] constant({5, 7, 2})
  z = s32[] constant(1)
)";
  EXPECT_EQ(RunHlo(head + "  ROOT r = (s32[3], s32[]) scan(x, z), "
                          "dimensions={0}, num_carries=1, to_apply=f\n}\n"),
            Tuple2(S32({3}, {1, 4, 3}),
                   Literal::CreateR0<int32_t>(PrimitiveType::kS32, -1)));
  EXPECT_EQ(RunHlo(head + "  ROOT r = (s32[3], s32[]) scan(x, z), "
                          "dimensions={0}, num_carries=1, is_reverse=true, "
                          "to_apply=f\n}\n"),
            Tuple2(S32({3}, {6, 1, 1}),
                   Literal::CreateR0<int32_t>(PrimitiveType::kS32, -1)));
}

TEST(Scan, CarryOnlyAndOutputOnly) {
  // Carry only: f(x, c) = c * 2 + x over [1, 0, 1] from 0 reads a binary
  // number: 1, 2, 5 -> 5 (a lone array result, lone value root).
  const std::string carry_only = R"(HloModule m
f {
  x = u8[] parameter(0)
  c = u8[] parameter(1)
  two = u8[] constant(2)
  m = u8[] multiply(c, two)
  ROOT a = u8[] add(m, x)
}
ENTRY e {
  x = u8[3] constant({1, 0, 1})
  z = u8[] constant(0)
  ROOT r = u8[] scan(x, z), dimensions={0}, num_carries=1, to_apply=f
})";
  EXPECT_EQ(RunHlo(carry_only),
            Literal::CreateR0<uint8_t>(PrimitiveType::kU8, 5));
  // Output only (no carries): a map along the scan dimension over two
  // inputs, y = xor(x, w).
  const std::string output_only = R"(HloModule m
f {
  x = pred[] parameter(0)
  w = pred[] parameter(1)
  ROOT n = pred[] xor(x, w)
}
ENTRY e {
  x = pred[3] constant({true, false, true})
  w = pred[3] constant({true, true, false})
  ROOT r = pred[3] scan(x, w), dimensions={0}, num_carries=0, to_apply=f
})";
  EXPECT_EQ(RunHlo(output_only), Pred({3}, {false, true, true}));
}

TEST(Scan, TwoInputsTwoCarries) {
  // f(a, b, s, p) = (s + a*b, s + a*b, p * a): a running dot product
  // and a running product of a.
  // a = [1, 2, 3], b = [4, 5, 6], s0 = 0, p0 = 1:
  //   s: 4, 14, 32; p: 1, 2, 6.
  const std::string text = R"(HloModule m
f {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  s = s32[] parameter(2)
  p = s32[] parameter(3)
  ab = s32[] multiply(a, b)
  sn = s32[] add(s, ab)
  pn = s32[] multiply(p, a)
  ROOT t = (s32[], s32[], s32[]) tuple(sn, sn, pn)
}
ENTRY e {
  a = s32[3] constant({1, 2, 3})
  b = s32[3] constant({4, 5, 6})
  z = s32[] constant(0)
  o = s32[] constant(1)
  ROOT r = (s32[3], s32[], s32[]) scan(a, b, z, o), dimensions={0}, num_carries=2, to_apply=f
})";
  std::vector<Literal> want;
  want.push_back(S32({3}, {4, 14, 32}));
  want.push_back(Literal::CreateR0<int32_t>(PrimitiveType::kS32, 32));
  want.push_back(Literal::CreateR0<int32_t>(PrimitiveType::kS32, 6));
  EXPECT_EQ(RunHlo(text), Literal::MakeTuple(std::move(want)));
}

TEST(Scan, InnerDimensionWithArraySlices) {
  // x = [[1, 2, 3], [4, 5, 6]] scanned along dimension 1: slices are the
  // columns f32[2], the carry is f32[2] = [0.5, -1].
  //   col 0: [1.5, 3]; col 1: [3.5, 8]; col 2: [6.5, 14].
  const std::string text = "HloModule m\n" + CumAdd("f32", "2") + R"(ENTRY e {
  x = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  z = f32[2] constant({0.5, -1})
  ROOT r = (f32[2,3], f32[2]) scan(x, z), dimensions={1}, num_carries=1, to_apply=cum
})";
  EXPECT_EQ(RunHlo(text), Tuple2(F32({2, 3}, {1.5f, 3.5f, 6.5f, 3, 8, 14}),
                                 F32({2}, {6.5f, 14})));
}

TEST(Scan, ZeroLength) {
  // No steps: the output is empty and the carry is the init.
  const std::string text = "HloModule m\n" + CumAdd("f32", "3") + R"(ENTRY e {
  x = f32[0,3] parameter(0)
  z = f32[3] constant({1, 2, 3})
  ROOT r = (f32[0,3], f32[3]) scan(x, z), dimensions={0}, num_carries=1, to_apply=cum
})";
  std::vector<Literal> args;
  args.push_back(F32({0, 3}, {}));
  EXPECT_EQ(RunHlo(text, args), Tuple2(F32({0, 3}, {}), F32({3}, {1, 2, 3})));
}

TEST(Scan, ComplexCumulativeSum) {
  // [(1,1), (2,-1), (0.5,0)] from (0,0): (1,1), (3,0), (3.5,0).
  const std::string text = "HloModule m\n" + CumAdd("c64") + R"(ENTRY e {
  x = c64[3] constant({(1, 1), (2, -1), (0.5, 0)})
  z = c64[] constant((0, 0))
  ROOT r = (c64[3], c64[]) scan(x, z), dimensions={0}, num_carries=1, to_apply=cum
})";
  using C = std::complex<float>;
  EXPECT_EQ(
      RunHlo(text),
      Tuple2(Make<C>(PrimitiveType::kC64, {3}, {C(1, 1), C(3, 0), C(3.5f, 0)}),
             Literal::CreateR0<C>(PrimitiveType::kC64, C(3.5f, 0))));
}

TEST(Scan, SequentialFloatRounding) {
  // f32 cumulative sum of [1, 2^-24, 2^-24] from 0, sequentially rounded:
  // 1; 1 + 2^-24 is a tie -> 1 (even); again 1. The exact sums would be
  // 1 + 2^-23 = next float after 1 at the last step; the sequential chain
  // gives 1 (the oracle is sequential whatever is_associative says).
  const std::string text = "HloModule m\n" + CumAdd("f32") + R"(ENTRY e {
  x = f32[3] constant({1, 5.96046448e-08, 5.96046448e-08})
  z = f32[] constant(0)
  ROOT r = (f32[3], f32[]) scan(x, z), dimensions={0}, num_carries=1, is_associative=true, to_apply=cum
})";
  EXPECT_EQ(RunHlo(text),
            Tuple2(F32({3}, {1, 1, 1}),
                   Literal::CreateR0<float>(PrimitiveType::kF32, 1)));
}

// Error data (with compute_error_data): only an associative float add
// scan reports a bound; S = |init| + the |x| folded so far, m = 2k.
TEST(Scan, ErrorDataOfAssociativeAdd) {
  const std::string body = "HloModule m\n" + CumAdd("f32") + R"(ENTRY e {
  x = f32[3] constant({1, -2, 4})
  z = f32[] constant(-0.5)
  ROOT r = (f32[3], f32[]) scan(x, z), dimensions={0}, num_carries=1, ATTR to_apply=cum
})";
  auto run = [&](const std::string& attr) {
    std::string text = body;
    text.replace(text.find("ATTR "), 5, attr);
    auto module = ParseVerified(text);
    EXPECT_TRUE(module.ok()) << module.status();
    EvaluatorOptions options;
    options.compute_error_data = true;
    Evaluator evaluator(options);
    auto result = evaluator.Run(**module, {});
    EXPECT_TRUE(result.ok()) << result.status();
    return std::move(result).value();
  };
  EvalResult assoc = run("is_associative=true, ");
  ASSERT_EQ(assoc.outputs.size(), 2u);
  ASSERT_TRUE(assoc.outputs[0].abs_sum.has_value());
  // Forward: S = 0.5 + 1, 0.5 + 1 + 2, 0.5 + 1 + 2 + 4 (rounded up by at
  // most one ulp of f64); m = 2, 4, 6.
  const double s[] = {1.5, 3.5, 7.5};
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(assoc.outputs[0].abs_sum->GetAsDouble(i), s[i], 1e-12);
    EXPECT_GE(assoc.outputs[0].abs_sum->GetAsDouble(i), s[i]);
    EXPECT_EQ(assoc.outputs[0].term_count->GetAsInt64(i), 2 * (i + 1));
  }
  ASSERT_TRUE(assoc.outputs[1].abs_sum.has_value());
  EXPECT_NEAR(assoc.outputs[1].abs_sum->GetAsDouble(0), 7.5, 1e-12);
  EXPECT_EQ(assoc.outputs[1].term_count->GetAsInt64(0), 6);
  // Without is_associative the sequential order is the definition: no
  // bound (S NaN or absent).
  EvalResult seq = run("");
  if (seq.outputs[0].abs_sum.has_value()) {
    EXPECT_TRUE(std::isnan(seq.outputs[0].abs_sum->GetAsDouble(0)));
  }
}

TEST(Scan, ErrorDataWithZeroSizeSlices) {
  // f32[3,0] scanned along 0 with an f32[0] carry: three steps over empty
  // slices; the result is empty, and computing the error data must not
  // divide by the zero slice size.
  const std::string text = "HloModule m\n" + CumAdd("f32", "0") + R"(ENTRY e {
  x = f32[3,0] parameter(0)
  z = f32[0] parameter(1)
  ROOT r = (f32[3,0], f32[0]) scan(x, z), dimensions={0}, num_carries=1, is_associative=true, to_apply=cum
})";
  auto module = ParseVerified(text);
  ASSERT_TRUE(module.ok()) << module.status();
  EvaluatorOptions options;
  options.compute_error_data = true;
  Evaluator evaluator(options);
  std::vector<Literal> args;
  args.push_back(F32({3, 0}, {}));
  args.push_back(F32({0}, {}));
  auto result = evaluator.Run(**module, args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->value, Tuple2(F32({3, 0}, {}), F32({0}, {})));
}

TEST(Scan, MarksPropagate) {
  // An integer division by zero (impl.divide.1, XLA gives -1) feeds the
  // scan: its result is marked as a whole, as for any computation-calling
  // op (the evaluator's generic propagation).
  const std::string text = "HloModule m\n" + CumAdd("s32") + R"(ENTRY e {
  a = s32[4] constant({1, 2, 3, 4})
  b = s32[4] constant({1, 0, 1, 1})
  x = s32[4] divide(a, b)
  z = s32[] constant(0)
  ROOT r = (s32[4], s32[]) scan(x, z), dimensions={0}, num_carries=1, to_apply=cum
})";
  auto module = ParseVerified(text);
  ASSERT_TRUE(module.ok()) << module.status();
  Evaluator evaluator;
  auto result = evaluator.Run(**module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  // x = [1, -1, 3, 4]: sums 1, 0, 3, 7.
  EXPECT_EQ(result->value,
            Tuple2(S32({4}, {1, 0, 3, 7}),
                   Literal::CreateR0<int32_t>(PrimitiveType::kS32, 7)));
  ASSERT_EQ(result->outputs.size(), 2u);
  for (const auto& out : result->outputs) {
    ASSERT_TRUE(out.dont_care.has_value());
    EXPECT_EQ(out.impl_ids, std::vector<std::string>{"impl.divide.1"});
  }
}

}  // namespace
}  // namespace hloref
