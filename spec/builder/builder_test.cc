// Tests of the builder API (spec/builder/builder.h): every builder function
// builds, verifies and evaluates on the interpreter (where the interpreter
// reports Unimplemented for an op, the built HLO is asserted instead and a
// note is printed), the lowerings the seeds define at builder level, every
// builder-level worked example of seeds 000 and 001, and the error
// reporting. Expected values are derived by hand from the seeds (or, for
// convolution, by the seed's own pseudo-code written out in the test).
#include "spec/builder/builder.h"

#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/hlo_printer.h"

namespace hloref {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr PrimitiveType F32 = PrimitiveType::kF32;
constexpr PrimitiveType S32 = PrimitiveType::kS32;
constexpr PrimitiveType U32 = PrimitiveType::kU32;
constexpr PrimitiveType PRED = PrimitiveType::kPred;

// A literal from HLO literal text, e.g. "f32[2] {1, 2}".
Literal L(absl::string_view text) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  EXPECT_TRUE(lit.ok()) << text << ": " << lit.status();
  return lit.ok() ? *std::move(lit) : Literal();
}

std::unique_ptr<HloModule> BuildOk(Builder& b) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = b.Build();
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

// The opcodes of the entry computation, parameters and constants left out.
std::vector<std::string> Ops(const HloModule& m) {
  std::vector<std::string> out;
  for (const auto& inst : m.entry()->instructions()) {
    if (inst->opcode() == HloOpcode::kParameter ||
        inst->opcode() == HloOpcode::kConstant) {
      continue;
    }
    out.emplace_back(HloOpcodeString(inst->opcode()));
  }
  return out;
}

const HloInstruction* Find(const HloModule& m, HloOpcode opcode) {
  for (const auto& inst : m.entry()->instructions()) {
    if (inst->opcode() == opcode) return inst.get();
  }
  return nullptr;
}

// Evaluates the module and compares with `expected` bit for bit. Returns
// false (after printing a note) when the interpreter does not implement an
// op of the module yet; the caller has asserted the HLO in that case.
bool ExpectEval(const HloModule& m, std::vector<Literal> args,
                const Literal& expected) {
  Evaluator evaluator;
  absl::StatusOr<Literal> r = evaluator.Evaluate(m, args);
  if (r.status().code() == absl::StatusCode::kUnimplemented) {
    std::cout << "[ NOTE ] interpreter: " << r.status().message()
              << "; checked the built HLO only\n";
    return false;
  }
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << PrintModule(m);
  if (!r.ok()) return false;
  EXPECT_TRUE(*r == expected) << "got      " << r->ToString() << "\nexpected "
                              << expected.ToString() << "\n"
                              << PrintModule(m);
  return true;
}

// Builds `b` and evaluates with no arguments.
void ExpectBuildsTo(Builder& b, const Literal& expected) {
  std::unique_ptr<HloModule> m = BuildOk(b);
  if (m != nullptr) ExpectEval(*m, {}, expected);
}

// A scalar (T, T) -> T computation applying `f`.
std::unique_ptr<HloModule> Binary(const std::string& name, PrimitiveType t,
                                  const std::function<XlaOp(XlaOp, XlaOp)>& f) {
  Builder b(name);
  f(Parameter(&b, 0, Shape::Scalar(t), "x"),
    Parameter(&b, 1, Shape::Scalar(t), "y"));
  return BuildOk(b);
}

// ===================================================== seed 000 broadcasting

TEST(BuilderBroadcasting, ScalarPlusMatrix) {
  // |1 2 3; 4 5 6| + 7 = |8 9 10; 11 12 13|
  Builder b("scalar");
  Add(ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}}), ConstantR0<float>(&b, 7));
  std::unique_ptr<HloModule> m = BuildOk(b);
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(Ops(*m), ElementsAre("broadcast", "add"));
  EXPECT_TRUE(Find(*m, HloOpcode::kBroadcast)->attrs().dimensions.empty());
  ExpectEval(*m, {}, L("f32[2,3] {{8, 9, 10}, {11, 12, 13}}"));
}

TEST(BuilderBroadcasting, MatrixPlusVectorBecomesBroadcastAndAdd) {
  // The example: f32[2,3] + f32[3] with broadcast_dimensions={1}
  // is a broadcast and an add; |1 2 3; 4 5 6| + |7 8 9| = |8 10 12; 11 13 15|.
  Builder b("matvec");
  XlaOp x = Parameter(&b, 0, Shape(F32, {2, 3}), "x");
  XlaOp v = Parameter(&b, 1, Shape(F32, {3}), "v");
  Add(x, v, {1});
  std::unique_ptr<HloModule> m = BuildOk(b);
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(Ops(*m), ElementsAre("broadcast", "add"));
  const HloInstruction* bc = Find(*m, HloOpcode::kBroadcast);
  EXPECT_THAT(bc->attrs().dimensions, ElementsAre(1));
  EXPECT_EQ(bc->shape().ToString(false), "f32[2,3]");
  EXPECT_EQ(m->entry()->root()->opcode(), HloOpcode::kAdd);
  ExpectEval(*m, {L("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"), L("f32[3] {7, 8, 9}")},
             L("f32[2,3] {{8, 10, 12}, {11, 13, 15}}"));
}

TEST(BuilderBroadcasting, VectorOntoSquareMatrixBothWays) {
  // Seed 000: dimension 1 makes each row |7 8 9|; dimension 0 makes each
  // column |7 8 9|^T.
  for (int64_t dim : {0, 1}) {
    Builder b("square");
    Add(ConstantR2<float>(&b, {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}),
        ConstantR1<float>(&b, {7, 8, 9}), {dim});
    ExpectBuildsTo(b, dim == 1
                          ? L("f32[3,3] {{7, 8, 9}, {7, 8, 9}, {7, 8, 9}}")
                          : L("f32[3,3] {{7, 7, 7}, {8, 8, 8}, {9, 9, 9}}"));
  }
}

TEST(BuilderBroadcasting, InvalidDimensionIsAnErrorNamingTheCall) {
  // "when adding a 2x3 matrix to a 3-element vector, a broadcasting
  // dimension of 0 is invalid."
  Builder b("bad");
  XlaOp x = Parameter(&b, 0, Shape(F32, {2, 3}), "x");
  XlaOp v = Parameter(&b, 1, Shape(F32, {3}), "v");
  XlaOp sum = Add(x, v, {0});
  EXPECT_FALSE(sum.valid());
  // A later call with the failed handle adds no second error.
  Neg(sum);
  absl::StatusOr<std::unique_ptr<HloModule>> m = b.Build();
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("Add(lhs=f32[2,3] %x, rhs=f32[3] %v, "
                        "broadcast_dimensions={0})"));
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("size 3"));
}

TEST(BuilderBroadcasting, DifferentRanksNeedBroadcastDimensions) {
  Builder b("ranks");
  Add(Parameter(&b, 0, Shape(F32, {2, 3}), "x"),
      Parameter(&b, 1, Shape(F32, {3}), "v"));
  absl::Status st = b.Build().status();
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("need broadcast_dimensions"));
}

TEST(BuilderBroadcasting, CuboidPlusMatrix) {
  // 2x3x4 cuboid (zeros) + 3x4 matrix m[j][k] = 10j + k with (1,2).
  Builder b("cuboid");
  std::vector<float> zeros(24, 0);
  std::vector<float> mat;
  for (int j = 0; j < 3; ++j) {
    for (int k = 0; k < 4; ++k) mat.push_back(10 * j + k);
  }
  Add(ConstantFromValues<float>(&b, {2, 3, 4}, zeros),
      ConstantFromValues<float>(&b, {3, 4}, mat), {1, 2});
  std::vector<float> expected;
  for (int i = 0; i < 2; ++i)
    expected.insert(expected.end(), mat.begin(), mat.end());
  ExpectBuildsTo(b, Literal::CreateFromValues<float>(
                        F32, {2, 3, 4}, absl::Span<const float>(expected)));
}

TEST(BuilderBroadcasting, DegenerateDimensions) {
  {  // (2,1) and (2,3) broadcast to (2,3).
    Builder b("deg");
    Add(ConstantR2<float>(&b, {{1}, {2}}),
        ConstantR2<float>(&b, {{10, 20, 30}, {40, 50, 60}}));
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    // The degenerate dimension is reshaped away, then broadcast.
    EXPECT_THAT(Ops(*m), ElementsAre("reshape", "broadcast", "add"));
    ExpectEval(*m, {}, L("f32[2,3] {{11, 21, 31}, {42, 52, 62}}"));
  }
  {  // The "outer operation": (2,1) and (1,3) broadcast to (2,3).
    Builder b("outer");
    Add(ConstantR2<float>(&b, {{1}, {2}}),
        ConstantR2<float>(&b, {{10, 20, 30}}));
    ExpectBuildsTo(b, L("f32[2,3] {{11, 21, 31}, {12, 22, 32}}"));
  }
  {  // (1,2,5) and (7,2,5) broadcast to (7,2,5).
    Builder b("shape");
    XlaOp s = Add(Parameter(&b, 0, Shape(F32, {1, 2, 5}), "a"),
                  Parameter(&b, 1, Shape(F32, {7, 2, 5}), "b"));
    EXPECT_EQ(b.GetShape(s)->ToString(false), "f32[7,2,5]");
  }
  {  // (7,2,5) and (7,2,6) are incompatible.
    Builder b("incompatible");
    Add(Parameter(&b, 0, Shape(F32, {7, 2, 5}), "a"),
        Parameter(&b, 1, Shape(F32, {7, 2, 6}), "b"));
    EXPECT_THAT(std::string(b.Build().status().message()),
                HasSubstr("dimension 2 has size 5 in lhs and 6 in rhs"));
  }
}

TEST(BuilderBroadcasting, CompositionVectorAndOneByTwo) {
  // |1 2 3 4| + [5 6] with broadcast dimensions (0) = |6 7; 7 8; 8 9; 9 10|.
  Builder b("compose");
  Add(ConstantR1<float>(&b, {1, 2, 3, 4}), ConstantR2<float>(&b, {{5, 6}}),
      {0});
  ExpectBuildsTo(b, L("f32[4,2] {{6, 7}, {7, 8}, {8, 9}, {9, 10}}"));
}

TEST(BuilderBroadcasting, CompositionOneByTwoOntoFourByThreeByOne) {
  // 1x2 [5 6] + 4x3x1 a[i][j] = 100i + 10j with (1, 2): a 4x3x2 result
  // out[i][j][k] = 100i + 10j + 5 + k.
  Builder b("compose3");
  std::vector<float> a, expected;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) {
      a.push_back(100 * i + 10 * j);
      for (int k = 0; k < 2; ++k) expected.push_back(100 * i + 10 * j + 5 + k);
    }
  }
  Add(ConstantR2<float>(&b, {{5, 6}}),
      ConstantFromValues<float>(&b, {4, 3, 1}, a), {1, 2});
  ExpectBuildsTo(b, Literal::CreateFromValues<float>(
                        F32, {4, 3, 2}, absl::Span<const float>(expected)));
}

// ===================================================== element-wise

TEST(BuilderElementWise, BinaryOps) {
  struct Case {
    std::function<XlaOp(XlaOp, XlaOp, absl::Span<const int64_t>)> fn;
    const char* lhs;
    const char* rhs;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {Add, "s32[2] {7, -7}", "s32[2] {2, 2}", "s32[2] {9, -5}"},
      {Sub, "s32[2] {7, -7}", "s32[2] {2, 2}", "s32[2] {5, -9}"},
      {Mul, "s32[2] {7, -7}", "s32[2] {2, 2}", "s32[2] {14, -14}"},
      {Div, "s32[2] {7, -7}", "s32[2] {2, 2}", "s32[2] {3, -3}"},
      // Rem: the sign of the dividend.
      {Rem, "s32[2] {7, -7}", "s32[2] {2, 2}", "s32[2] {1, -1}"},
      {Max, "s32[2] {7, -7}", "s32[2] {2, 2}", "s32[2] {7, 2}"},
      {Min, "s32[2] {7, -7}", "s32[2] {2, 2}", "s32[2] {2, -7}"},
      {Pow, "f32[2] {2, 3}", "f32[2] {10, 2}", "f32[2] {1024, 9}"},
      {And, "s32[2] {12, 5}", "s32[2] {10, 3}", "s32[2] {8, 1}"},
      {Or, "s32[2] {12, 5}", "s32[2] {10, 3}", "s32[2] {14, 7}"},
      {Xor, "s32[2] {12, 5}", "s32[2] {10, 3}", "s32[2] {6, 6}"},
      {ShiftLeft, "s32[2] {1, 3}", "s32[2] {4, 1}", "s32[2] {16, 6}"},
      {ShiftRightArithmetic, "s32[2] {-16, 16}", "s32[2] {2, 2}",
       "s32[2] {-4, 4}"},
      {ShiftRightLogical, "u32[2] {16, 4294967295}", "u32[2] {2, 31}",
       "u32[2] {4, 1}"},
      {Atan2, "f32[2] {0, 0}", "f32[2] {1, 2}", "f32[2] {0, 0}"},
      {Complex, "f32[2] {1, 3}", "f32[2] {2, -4}", "c64[2] {(1, 2), (3, -4)}"},
      {Eq, "f32[3] {1, 2, -0}", "f32[3] {1, 3, 0}", "pred[3] {1, 0, 1}"},
      {Ne, "f32[3] {1, 2, -0}", "f32[3] {1, 3, 0}", "pred[3] {0, 1, 0}"},
      {Ge, "f32[3] {1, 2, 4}", "f32[3] {1, 3, 0}", "pred[3] {1, 0, 1}"},
      {Gt, "f32[3] {1, 2, 4}", "f32[3] {1, 3, 0}", "pred[3] {0, 0, 1}"},
      {Le, "f32[3] {1, 2, 4}", "f32[3] {1, 3, 0}", "pred[3] {1, 1, 0}"},
      {Lt, "f32[3] {1, 2, 4}", "f32[3] {1, 3, 0}", "pred[3] {0, 1, 0}"},
      // Total order: -0 < +0.
      {EqTotalOrder, "f32[2] {-0, 1}", "f32[2] {0, 1}", "pred[2] {0, 1}"},
      {NeTotalOrder, "f32[2] {-0, 1}", "f32[2] {0, 1}", "pred[2] {1, 0}"},
      {LtTotalOrder, "f32[2] {-0, 1}", "f32[2] {0, 1}", "pred[2] {1, 0}"},
      {LeTotalOrder, "f32[2] {-0, 1}", "f32[2] {0, 1}", "pred[2] {1, 1}"},
      {GtTotalOrder, "f32[2] {0, 1}", "f32[2] {-0, 1}", "pred[2] {1, 0}"},
      {GeTotalOrder, "f32[2] {-0, 1}", "f32[2] {0, 1}", "pred[2] {0, 1}"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(
        absl::StrCat("case ", i, ": ", cases[i].lhs, " op ", cases[i].rhs));
    Builder b("binary");
    cases[i].fn(ConstantLiteral(&b, L(cases[i].lhs)),
                ConstantLiteral(&b, L(cases[i].rhs)), {});
    ExpectBuildsTo(b, L(cases[i].expected));
  }
  {  // Compare with an explicit direction and type.
    Builder b("compare");
    Compare(ConstantLiteral(&b, L("f32[2] {-0, 1}")),
            ConstantLiteral(&b, L("f32[2] {0, 1}")), {},
            ComparisonDirection::kLt, ComparisonType::kTotalOrder);
    ExpectBuildsTo(b, L("pred[2] {1, 0}"));
  }
  {  // The short form: no broadcast, the element type's default ordering.
    Builder b("compare_short");
    Compare(ConstantR1<int32_t>(&b, {1, 5}), ConstantR1<int32_t>(&b, {3, 3}),
            ComparisonDirection::kGt);
    ExpectBuildsTo(b, L("pred[2] {0, 1}"));
  }
}

TEST(BuilderElementWise, UnaryOps) {
  struct Case {
    std::function<XlaOp(XlaOp)> fn;
    const char* operand;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {Abs, "f32[2] {-2, 3}", "f32[2] {2, 3}"},
      {Cbrt, "f32[2] {8, -27}", "f32[2] {2, -3}"},
      {Ceil, "f32[2] {1.5, -1.5}", "f32[2] {2, -1}"},
      {Clz, "s32[2] {1, 0}", "s32[2] {31, 32}"},
      {Cos, "f32[1] {0}", "f32[1] {1}"},
      {Erf, "f32[1] {0}", "f32[1] {0}"},
      {Exp, "f32[1] {0}", "f32[1] {1}"},
      {Expm1, "f32[1] {0}", "f32[1] {0}"},
      {Floor, "f32[2] {1.5, -1.5}", "f32[2] {1, -2}"},
      {Imag, "c64[1] {(3, 4)}", "f32[1] {4}"},
      {IsFinite, "f32[3] {1, inf, nan}", "pred[3] {1, 0, 0}"},
      {Log, "f32[1] {1}", "f32[1] {0}"},
      {Log1p, "f32[1] {0}", "f32[1] {0}"},
      {Logistic, "f32[1] {0}", "f32[1] {0.5}"},
      {Neg, "s32[2] {2, -3}", "s32[2] {-2, 3}"},
      {Not, "pred[2] {1, 0}", "pred[2] {0, 1}"},
      {PopulationCount, "s32[2] {7, -1}", "s32[2] {3, 32}"},
      {Real, "c64[1] {(3, 4)}", "f32[1] {3}"},
      {Round, "f32[3] {2.5, -2.5, 0.4}", "f32[3] {3, -3, 0}"},
      {RoundNearestEven, "f32[3] {2.5, -2.5, 3.5}", "f32[3] {2, -2, 4}"},
      {Rsqrt, "f32[1] {4}", "f32[1] {0.5}"},
      {Sign, "f32[3] {-3, 0, 5}", "f32[3] {-1, 0, 1}"},
      {Sin, "f32[1] {0}", "f32[1] {0}"},
      {Sqrt, "f32[1] {4}", "f32[1] {2}"},
      {Tan, "f32[1] {0}", "f32[1] {0}"},
      {Tanh, "f32[1] {0}", "f32[1] {0}"},
      {OptimizationBarrier, "f32[1] {7}", "f32[1] {7}"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("case ", i, ": ", cases[i].operand));
    Builder b("unary");
    cases[i].fn(ConstantLiteral(&b, L(cases[i].operand)));
    ExpectBuildsTo(b, L(cases[i].expected));
  }
}

TEST(BuilderElementWise, ClampWithScalarMinAndMax) {
  // Seed 001: operand {-1, 5, 9}, min 0, max 6 ==> {0, 5, 6}.
  Builder b("clamp");
  Clamp(ConstantR0<int32_t>(&b, 0), ConstantR1<int32_t>(&b, {-1, 5, 9}),
        ConstantR0<int32_t>(&b, 6));
  std::unique_ptr<HloModule> m = BuildOk(b);
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(Ops(*m), ElementsAre("broadcast", "broadcast", "clamp"));
  ExpectEval(*m, {}, L("s32[3] {0, 5, 6}"));
}

TEST(BuilderElementWise, SelectSeedExamples) {
  {  // Non-scalar pred.
    Builder b("select");
    Select(ConstantLiteral(&b, L("pred[4] {1, 0, 0, 1}")),
           ConstantR1<int32_t>(&b, {1, 2, 3, 4}),
           ConstantR1<int32_t>(&b, {100, 200, 300, 400}));
    ExpectBuildsTo(b, L("s32[4] {1, 200, 300, 4}"));
  }
  {  // Scalar pred: broadcast, then select.
    Builder b("select_scalar");
    Select(ConstantR0<bool>(&b, true), ConstantR1<int32_t>(&b, {1, 2, 3, 4}),
           ConstantR1<int32_t>(&b, {100, 200, 300, 400}));
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(Ops(*m), ElementsAre("broadcast", "select"));
    ExpectEval(*m, {}, L("s32[4] {1, 2, 3, 4}"));
  }
}

TEST(BuilderElementWise, Conversions) {
  {  // Seed 001: convert(s32 {0, 1, 2}, f32) == f32 {0.0, 1.0, 2.0}.
    Builder b("convert");
    ConvertElementType(ConstantR1<int32_t>(&b, {0, 1, 2}), F32);
    ExpectBuildsTo(b, L("f32[3] {0, 1, 2}"));
  }
  {  // Same width: 1.0f is 0x3f800000.
    Builder b("bitcast");
    BitcastConvertType(ConstantR1<float>(&b, {1.0f}), U32);
    ExpectBuildsTo(b, L("u32[1] {1065353216}"));
  }
  {  // Seed 001 shapes: f32[10] -> f16[10,2]; f16[10,2] -> f32[10].
    Builder b("bitcast_width");
    XlaOp narrow = BitcastConvertType(Parameter(&b, 0, Shape(F32, {10}), "x"),
                                      PrimitiveType::kF16);
    EXPECT_EQ(b.GetShape(narrow)->ToString(false), "f16[10,2]");
    XlaOp wide = BitcastConvertType(narrow, F32);
    EXPECT_EQ(b.GetShape(wide)->ToString(false), "f32[10]");
    EXPECT_NE(BuildOk(b), nullptr);
  }
  {  // 1.3 with 2 mantissa bits rounds to 1.25 (1.01b).
    Builder b("reduce_precision");
    ReducePrecision(ConstantR1<float>(&b, {1.3f, 1.0f}), /*exponent_bits=*/5,
                    /*mantissa_bits=*/2);
    ExpectBuildsTo(b, L("f32[2] {1.25, 1}"));
  }
}

// ===================================================== shapes

TEST(BuilderShapes, BroadcastPrependsSizes) {
  {  // Seed 001: scalar 2.0f, broadcast_sizes {2, 3}.
    Builder b("broadcast");
    Broadcast(ConstantR0<float>(&b, 2.0f), {2, 3});
    ExpectBuildsTo(b, L("f32[2,3] {{2, 2, 2}, {2, 2, 2}}"));
  }
  {  // output[i0, j0] = operand[j0].
    Builder b("broadcast_vector");
    Broadcast(ConstantR1<float>(&b, {1, 2}), {3});
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(Find(*m, HloOpcode::kBroadcast)->attrs().dimensions,
                ElementsAre(1));
    ExpectEval(*m, {}, L("f32[3,2] {{1, 2}, {1, 2}, {1, 2}}"));
  }
}

TEST(BuilderShapes, BroadcastInDim) {
  {
    Builder b("bid");
    BroadcastInDim(ConstantR1<float>(&b, {1, 2, 3}), {2, 3}, {1});
    ExpectBuildsTo(b, L("f32[2,3] {{1, 2, 3}, {1, 2, 3}}"));
  }
  {  // A size-1 operand dimension expands (degenerate broadcast).
    Builder b("bid_degenerate");
    BroadcastInDim(ConstantR2<float>(&b, {{1}, {2}}), {2, 3, 2}, {0, 2});
    ExpectBuildsTo(b, L("f32[2,3,2] {{{1, 1}, {1, 1}, {1, 1}}, "
                        "{{2, 2}, {2, 2}, {2, 2}}}"));
  }
  {
    Builder b("bid_bad");
    BroadcastInDim(ConstantR1<float>(&b, {1, 2, 3}), {2, 4}, {1});
    EXPECT_THAT(std::string(b.Build().status().message()),
                HasSubstr("BroadcastInDim(operand=f32[3]"));
  }
}

// Seed 001's v = f32[4x2x3] of Collapse and Reshape.
XlaOp SeedV(Builder* b) {
  std::vector<float> v;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 3; ++k) v.push_back(10 * (i + 1) + 5 * j + k);
    }
  }
  return ConstantFromValues<float>(b, {4, 2, 3}, v);
}

TEST(BuilderShapes, CollapseSeedExamples) {
  const char* kFlat =
      "{10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35, 36, "
      "37, 40, 41, 42, 45, 46, 47}";
  struct Case {
    std::vector<int64_t> dims;
    std::string expected;
  };
  // The seed's normative text: the given (consecutive) dimensions are
  // "replaced by a single new dimension, in the same position ... with the
  // new dimension size equal to the product", which is also XlaBuilder's
  // behaviour. So {0, 1} of f32[4x2x3] gives f32[8x3] and {1, 2} gives
  // f32[4x6]. The seed's worked example prints these two results under
  // swapped labels (v01 = f32[4x6], v12 = f32[8x3]); the values are the
  // seed's, matched to the dimensions the text defines.
  const std::vector<Case> cases = {
      {{0, 1, 2}, absl::StrCat("f32[24] ", kFlat)},
      {{1, 2},
       "f32[4,6] {{10, 11, 12, 15, 16, 17}, {20, 21, 22, 25, 26, 27}, "
       "{30, 31, 32, 35, 36, 37}, {40, 41, 42, 45, 46, 47}}"},
      {{0, 1},
       "f32[8,3] {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27}, "
       "{30, 31, 32}, {35, 36, 37}, {40, 41, 42}, {45, 46, 47}}"},
  };
  for (const Case& c : cases) {
    Builder b("collapse");
    Collapse(SeedV(&b), c.dims);
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(Ops(*m), ElementsAre("reshape"));
    ExpectEval(*m, {}, L(c.expected));
  }
  Builder b("collapse_bad");
  Collapse(SeedV(&b), {0, 2});  // not consecutive
  EXPECT_THAT(std::string(b.Build().status().message()),
              HasSubstr("Collapse(operand=f32[4,2,3]"));
}

TEST(BuilderShapes, ReshapeSeedExamples) {
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int64_t> sizes;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{0, 1, 2},
       {24},
       "f32[24] {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, "
       "35, 36, 37, 40, 41, 42, 45, 46, 47}"},
      {{0, 1, 2},
       {8, 3},
       "f32[8,3] {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27}, "
       "{30, 31, 32}, {35, 36, 37}, {40, 41, 42}, {45, 46, 47}}"},
      {{1, 2, 0},
       {24},
       "f32[24] {10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42, 15, 25, 35, "
       "45, 16, 26, 36, 46, 17, 27, 37, 47}"},
      {{1, 2, 0},
       {8, 3},
       "f32[8,3] {{10, 20, 30}, {40, 11, 21}, {31, 41, 12}, {22, 32, 42}, "
       "{15, 25, 35}, {45, 16, 26}, {36, 46, 17}, {27, 37, 47}}"},
      {{1, 2, 0},
       {2, 6, 2},
       "f32[2,6,2] {{{10, 20}, {30, 40}, {11, 21}, {31, 41}, {12, 22}, "
       "{32, 42}}, {{15, 25}, {35, 45}, {16, 26}, {36, 46}, {17, 27}, "
       "{37, 47}}}"},
  };
  for (const Case& c : cases) {
    Builder b("reshape");
    Reshape(SeedV(&b), c.dims, c.sizes);
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    // Out-of-order collapse is a transpose followed by a reshape.
    if (c.dims[0] == 0) {
      EXPECT_THAT(Ops(*m), ElementsAre("reshape"));
    } else {
      EXPECT_THAT(Ops(*m), ElementsAre("transpose", "reshape"));
    }
    ExpectEval(*m, {}, L(c.expected));
  }
  {  // Reshape(f32[1x1] {{5}}, {0,1}, {}) == 5.
    Builder b("to_scalar");
    Reshape(ConstantR2<float>(&b, {{5}}), {0, 1}, {});
    ExpectBuildsTo(b, L("f32[] 5"));
  }
  {  // Reshape(5, {}, {1,1}) == f32[1x1] {{5}}.
    Builder b("from_scalar");
    Reshape(ConstantR0<float>(&b, 5), {}, {1, 1});
    ExpectBuildsTo(b, L("f32[1,1] {{5}}"));
  }
  {
    Builder b("reshape_bad");
    Reshape(SeedV(&b), {5});
    EXPECT_THAT(std::string(b.Build().status().message()),
                HasSubstr("Reshape(operand=f32[4,2,3]"));
  }
}

TEST(BuilderShapes, TransposeRevIota) {
  {
    Builder b("transpose");
    Transpose(ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}}), {1, 0});
    ExpectBuildsTo(b, L("f32[3,2] {{1, 4}, {2, 5}, {3, 6}}"));
  }
  {
    Builder b("rev");
    Rev(ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}}), {1});
    ExpectBuildsTo(b, L("f32[2,3] {{3, 2, 1}, {6, 5, 4}}"));
  }
  for (int64_t dim : {0, 1}) {  // Seed 001: Iota(s32[4, 8], 0 / 1).
    std::vector<int32_t> expected;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 8; ++j) expected.push_back(dim == 0 ? i : j);
    }
    Builder b("iota");
    Iota(&b, Shape(S32, {4, 8}), dim);
    ExpectBuildsTo(b, Literal::CreateFromValues<int32_t>(
                          S32, {4, 8}, absl::Span<const int32_t>(expected)));
  }
  {
    Builder b("iota1");
    Iota(&b, F32, 3);
    ExpectBuildsTo(b, L("f32[3] {0, 1, 2}"));
  }
}

TEST(BuilderShapes, DimensionSizes) {
  {
    Builder b("get");
    GetDimensionSize(ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}}), 1);
    ExpectBuildsTo(b, L("s32[] 3"));
  }
  {  // Seed 001: the sum of set_dimension_size(v, 5) is 1 + 2 + 3 + 4 + 5.
    Builder b("set");
    std::unique_ptr<HloModule> add =
        Binary("add", F32, [](XlaOp x, XlaOp y) { return Add(x, y); });
    XlaOp v = ConstantR1<float>(&b, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    XlaOp padded_v_five = SetDimensionSize(v, ConstantR0<int32_t>(&b, 5), 0);
    EXPECT_EQ(b.GetShape(padded_v_five)->ToString(false), "f32[<=10]");
    Reduce(padded_v_five, ConstantR0<float>(&b, 0), *add, {0});
    ExpectBuildsTo(b, L("f32[] 15"));
  }
}

// ===================================================== slicing

TEST(BuilderSlicing, SliceSeedExamples) {
  {
    Builder b("slice1");
    Slice(ConstantR1<float>(&b, {0, 1, 2, 3, 4}), {2}, {4}, {});
    ExpectBuildsTo(b, L("f32[2] {2, 3}"));
  }
  {
    Builder b("slice2");
    Slice(ConstantR2<float>(&b, {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}),
          {2, 1}, {4, 3}, {1, 1});
    ExpectBuildsTo(b, L("f32[2,2] {{7, 8}, {10, 11}}"));
  }
  {
    Builder b("slice_in_dim");
    SliceInDim(ConstantR1<float>(&b, {0, 1, 2, 3, 4}), 0, 5, 2, 0);
    ExpectBuildsTo(b, L("f32[3] {0, 2, 4}"));
  }
}

TEST(BuilderSlicing, DynamicSliceWithScalarIndices) {
  {  // DynamicSlice(a, {2}, {2}) = {2.0, 3.0}.
    Builder b("ds1");
    XlaOp s = ConstantR0<int32_t>(&b, 2);
    DynamicSlice(ConstantR1<float>(&b, {0, 1, 2, 3, 4}), {s}, {2});
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->entry()->root()->operand_count(), 2);
    ExpectEval(*m, {}, L("f32[2] {2, 3}"));
  }
  {  // 2-D with s = {2, 1} as two scalars.
    Builder b("ds2");
    XlaOp b_arr =
        ConstantR2<float>(&b, {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}});
    DynamicSlice(b_arr,
                 {ConstantR0<int32_t>(&b, 2), ConstantR0<int32_t>(&b, 1)},
                 {2, 2});
    ExpectBuildsTo(b, L("f32[2,2] {{7, 8}, {10, 11}}"));
  }
  {  // DynamicUpdateSlice(a, {5, 6}, {2}).
    Builder b("dus1");
    DynamicUpdateSlice(ConstantR1<float>(&b, {0, 1, 2, 3, 4}),
                       ConstantR1<float>(&b, {5, 6}),
                       {ConstantR0<int32_t>(&b, 2)});
    ExpectBuildsTo(b, L("f32[5] {0, 1, 5, 6, 4}"));
  }
  {
    Builder b("dus2");
    DynamicUpdateSlice(
        ConstantR2<float>(&b, {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}),
        ConstantR2<float>(&b, {{12, 13}, {14, 15}, {16, 17}}),
        {ConstantR0<int32_t>(&b, 1), ConstantR0<int32_t>(&b, 1)});
    ExpectBuildsTo(b, L("f32[4,3] {{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, "
                        "{9, 16, 17}}"));
  }
}

TEST(BuilderSlicing, ConcatenateAndPad) {
  {  // Concat({{2, 3}, {4, 5}, {6, 7}}, 0).
    Builder b("concat1");
    ConcatInDim(&b,
                {ConstantR1<float>(&b, {2, 3}), ConstantR1<float>(&b, {4, 5}),
                 ConstantR1<float>(&b, {6, 7})},
                0);
    ExpectBuildsTo(b, L("f32[6] {2, 3, 4, 5, 6, 7}"));
  }
  {
    Builder b("concat2");
    Concatenate(&b,
                {ConstantR2<float>(&b, {{1, 2}, {3, 4}, {5, 6}}),
                 ConstantR2<float>(&b, {{7, 8}})},
                0);
    ExpectBuildsTo(b, L("f32[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}}"));
  }
  {  // Interior padding first, then edges: {1, 2} -> {0, 1, 0, 2, 0, 0}.
    Builder b("pad");
    PaddingConfig config;
    config.dimensions.push_back({/*low=*/1, /*high=*/2, /*interior=*/1});
    Pad(ConstantR1<float>(&b, {1, 2}), ConstantR0<float>(&b, 0), config);
    ExpectBuildsTo(b, L("f32[6] {0, 1, 0, 2, 0, 0}"));
  }
}

// ===================================================== tuples and tokens

TEST(BuilderTuples, TupleGetTupleElementAfterAll) {
  {  // Seed 001: element_1 of tuple(v, s) is s = 5.
    Builder b("gte");
    XlaOp t = Tuple(&b, {Iota(&b, F32, 10), ConstantR0<int32_t>(&b, 5)});
    XlaOp e = GetTupleElement(t, 1);
    EXPECT_EQ(b.GetShape(e)->ToString(false), "s32[]");
    ExpectBuildsTo(b, L("s32[] 5"));
  }
  {
    Builder b("token");
    AfterAll(&b, {CreateToken(&b), CreateToken(&b)});
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_TRUE(m->entry()->root()->shape().IsToken());
    ExpectEval(*m, {}, Literal::Token());
  }
  {  // Barrier over a tuple passes it through.
    Builder b("barrier");
    OptimizationBarrier(
        Tuple(&b, {ConstantR0<float>(&b, 1), ConstantR0<int32_t>(&b, 2)}));
    ExpectBuildsTo(b, L("(f32[], s32[]) (1, 2)"));
  }
}

// ===================================================== dot

TEST(BuilderDot, RankDependentForms) {
  {  // vector . vector = scalar: 1*4 + 2*5 + 3*6 = 32.
    Builder b("vv");
    Dot(ConstantR1<float>(&b, {1, 2, 3}), ConstantR1<float>(&b, {4, 5, 6}));
    ExpectBuildsTo(b, L("f32[] 32"));
  }
  {  // matrix . vector: {1*5 + 2*6, 3*5 + 4*6} = {17, 39}.
    Builder b("mv");
    Dot(ConstantR2<float>(&b, {{1, 2}, {3, 4}}), ConstantR1<float>(&b, {5, 6}));
    ExpectBuildsTo(b, L("f32[2] {17, 39}"));
  }
  {  // matrix . matrix.
    Builder b("mm");
    Dot(ConstantR2<float>(&b, {{1, 2}, {3, 4}}),
        ConstantR2<float>(&b, {{5, 6}, {7, 8}}));
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    const DotDimensionNumbers& dn =
        m->entry()->root()->attrs().dot_dimension_numbers;
    EXPECT_THAT(dn.lhs_contracting_dimensions, ElementsAre(1));
    EXPECT_THAT(dn.rhs_contracting_dimensions, ElementsAre(0));
    ExpectEval(*m, {}, L("f32[2,2] {{19, 22}, {43, 50}}"));
  }
  {
    Builder b("rank3");
    Dot(Parameter(&b, 0, Shape(F32, {2, 2, 2}), "x"),
        Parameter(&b, 1, Shape(F32, {2, 2}), "y"));
    EXPECT_THAT(std::string(b.Build().status().message()),
                HasSubstr("use DotGeneral"));
  }
}

TEST(BuilderDot, DotGeneralSeedExamples) {
  {  // Contracting dimensions 1 and 1.
    Builder b("contract");
    DotDimensionNumbers dn;
    dn.lhs_contracting_dimensions = {1};
    dn.rhs_contracting_dimensions = {1};
    DotGeneral(ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}}),
               ConstantR2<float>(&b, {{1, 1, 1}, {2, 2, 2}}), dn);
    ExpectBuildsTo(b, L("f32[2,2] {{6, 12}, {15, 30}}"));
  }
  {  // Batch matmul with identity matrices.
    Builder b("batch");
    DotDimensionNumbers dn;
    dn.lhs_contracting_dimensions = {2};
    dn.rhs_contracting_dimensions = {1};
    dn.lhs_batch_dimensions = {0};
    dn.rhs_batch_dimensions = {0};
    DotGeneral(ConstantLiteral(
                   &b, L("f32[2,2,2] {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}")),
               ConstantLiteral(
                   &b, L("f32[2,2,2] {{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}}")),
               dn);
    ExpectBuildsTo(b, L("f32[2,2,2] {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}"));
  }
  {  // [b0, m, k] . [b0, k, n] -> [b0, m, n] (shape only).
    Builder b("shape");
    DotDimensionNumbers dn;
    dn.lhs_contracting_dimensions = {2};
    dn.rhs_contracting_dimensions = {1};
    dn.lhs_batch_dimensions = {0};
    dn.rhs_batch_dimensions = {0};
    XlaOp d = DotGeneral(Parameter(&b, 0, Shape(F32, {5, 2, 3}), "l"),
                         Parameter(&b, 1, Shape(F32, {5, 3, 7}), "r"), dn);
    EXPECT_EQ(b.GetShape(d)->ToString(false), "f32[5,2,7]");
  }
}

// ===================================================== convolution

// Seed 001's pseudo-code for a 2-d convolution with padding and striding
// (no dilation, one feature group), written out independently.
std::vector<float> ReferenceConv(const std::vector<float>& input,
                                 std::vector<int64_t> in_dims,  // b,z,y,x
                                 const std::vector<float>& kernel,
                                 std::vector<int64_t> k_dims,  // oz,iz,ky,kx
                                 std::vector<int64_t> strides,
                                 std::vector<std::pair<int64_t, int64_t>> pad,
                                 std::vector<int64_t>* out_dims) {
  auto out_size = [&](int i) {
    const int64_t padded = in_dims[2 + i] + pad[i].first + pad[i].second;
    return padded < k_dims[2 + i] ? 0
                                  : (padded - k_dims[2 + i]) / strides[i] + 1;
  };
  *out_dims = {in_dims[0], k_dims[0], out_size(0), out_size(1)};
  std::vector<float> out;
  for (int64_t b = 0; b < in_dims[0]; ++b) {
    for (int64_t oz = 0; oz < k_dims[0]; ++oz) {
      for (int64_t oy = 0; oy < (*out_dims)[2]; ++oy) {
        for (int64_t ox = 0; ox < (*out_dims)[3]; ++ox) {
          float value = 0;
          for (int64_t iz = 0; iz < k_dims[1]; ++iz) {
            for (int64_t ky = 0; ky < k_dims[2]; ++ky) {
              for (int64_t kx = 0; kx < k_dims[3]; ++kx) {
                const int64_t iy = oy * strides[0] + ky - pad[0].first;
                const int64_t ix = ox * strides[1] + kx - pad[1].first;
                if (iy >= 0 && iy < in_dims[2] && ix >= 0 && ix < in_dims[3]) {
                  value += input[((b * in_dims[1] + iz) * in_dims[2] + iy) *
                                     in_dims[3] +
                                 ix] *
                           kernel[((oz * k_dims[1] + iz) * k_dims[2] + ky) *
                                      k_dims[3] +
                                  kx];
                }
              }
            }
          }
          out.push_back(value);
        }
      }
    }
  }
  return out;
}

struct ConvCase {
  std::vector<int64_t> in_dims, k_dims, strides;
  std::optional<Padding> padding;
  std::vector<std::pair<int64_t, int64_t>> explicit_padding;
  std::vector<std::pair<int64_t, int64_t>> expected_padding;
};

void RunConvCase(const ConvCase& c) {
  std::vector<float> input, kernel;
  int64_t n = 1, k = 1;
  for (int64_t d : c.in_dims) n *= d;
  for (int64_t d : c.k_dims) k *= d;
  for (int64_t i = 0; i < n; ++i) input.push_back(static_cast<float>(i + 1));
  for (int64_t i = 0; i < k; ++i)
    kernel.push_back(static_cast<float>(i % 3 - 1));
  Builder b("conv");
  XlaOp lhs = ConstantFromValues<float>(&b, c.in_dims, input);
  XlaOp rhs = ConstantFromValues<float>(&b, c.k_dims, kernel);
  if (c.padding.has_value()) {
    Conv(lhs, rhs, c.strides, *c.padding);
  } else {
    ConvWithGeneralPadding(lhs, rhs, c.strides, c.explicit_padding);
  }
  std::unique_ptr<HloModule> m = BuildOk(b);
  ASSERT_NE(m, nullptr);
  const Window& w = m->entry()->root()->attrs().window;
  ASSERT_EQ(w.dimensions.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(w.dimensions[i].padding_low, c.expected_padding[i].first) << i;
    EXPECT_EQ(w.dimensions[i].padding_high, c.expected_padding[i].second) << i;
    EXPECT_EQ(w.dimensions[i].stride, c.strides[i]);
  }
  std::vector<int64_t> out_dims;
  std::vector<float> expected =
      ReferenceConv(input, c.in_dims, kernel, c.k_dims, c.strides,
                    c.expected_padding, &out_dims);
  ExpectEval(*m, {},
             Literal::CreateFromValues<float>(
                 F32, out_dims, absl::Span<const float>(expected)));
}

TEST(BuilderConv, ConvWithGeneralPadding) {
  // Seed 001: padding (2,3) on x puts 2 zeros on the left and 3 on the
  // right; negative padding removes elements.
  RunConvCase({{1, 1, 1, 4},
               {1, 1, 1, 2},
               {1, 1},
               std::nullopt,
               {{0, 0}, {2, 3}},
               {{0, 0}, {2, 3}}});
  RunConvCase({{2, 2, 5, 4},
               {3, 2, 2, 3},
               {2, 1},
               std::nullopt,
               {{1, -1}, {0, 2}},
               {{1, -1}, {0, 2}}});
  // Hand check of the first: x = {0,0,1,2,3,4,0,0,0} * {-1,0}: window sums.
  Builder b("conv_hand");
  ConvWithGeneralPadding(
      ConstantLiteral(&b, L("f32[1,1,1,4] {{{{1, 2, 3, 4}}}}")),
      ConstantLiteral(&b, L("f32[1,1,1,2] {{{{1, 1}}}}")), {1, 1},
      {{0, 0}, {2, 3}});
  ExpectBuildsTo(b, L("f32[1,1,1,8] {{{{0, 1, 3, 5, 7, 4, 0, 0}}}}"));
}

TEST(BuilderConv, SameAndValidPadding) {
  // SAME, stride 1: output = input; a 2-wide window needs 1 padding element,
  // on the high side.
  RunConvCase({{1, 1, 3, 3},
               {1, 1, 2, 2},
               {1, 1},
               Padding::kSame,
               {},
               {{0, 1}, {0, 1}}});
  // SAME, stride 2 over 5 with a 3-wide window: ceil(5/2) = 3 outputs need
  // (3-1)*2 + 3 - 5 = 2 padding elements, one per side.
  RunConvCase({{1, 2, 5, 5},
               {2, 2, 3, 3},
               {2, 2},
               Padding::kSame,
               {},
               {{1, 1}, {1, 1}}});
  RunConvCase({{1, 1, 4, 4},
               {1, 1, 3, 2},
               {1, 2},
               Padding::kValid,
               {},
               {{0, 0}, {0, 0}}});
}

TEST(BuilderConv, GeneralDimensionsAndDilation) {
  // NHWC input with HWIO kernel: the same numbers as NCHW/OIHW when there
  // is one feature.
  ConvolutionDimensionNumbers dn;
  dn.input_batch_dimension = 0;
  dn.input_spatial_dimensions = {1, 2};
  dn.input_feature_dimension = 3;
  dn.kernel_spatial_dimensions = {0, 1};
  dn.kernel_input_feature_dimension = 2;
  dn.kernel_output_feature_dimension = 3;
  dn.output_batch_dimension = 0;
  dn.output_spatial_dimensions = {1, 2};
  dn.output_feature_dimension = 3;
  {
    Builder b("nhwc");
    ConvWithGeneralDimensions(
        ConstantLiteral(&b, L("f32[1,2,2,1] {{{{1}, {2}}, {{3}, {4}}}}")),
        ConstantLiteral(&b, L("f32[1,1,1,1] {{{{2}}}}")), {1, 1},
        Padding::kValid, dn);
    ExpectBuildsTo(b, L("f32[1,2,2,1] {{{{2}, {4}}, {{6}, {8}}}}"));
  }
  {
    Builder b("general");
    ConvGeneral(
        ConstantLiteral(&b, L("f32[1,2,2,1] {{{{1}, {2}}, {{3}, {4}}}}")),
        ConstantLiteral(&b, L("f32[1,1,1,1] {{{{2}}}}")), {1, 1},
        {{0, 0}, {0, 1}}, dn);
    ExpectBuildsTo(b, L("f32[1,2,3,1] {{{{2}, {4}, {0}}, {{6}, {8}, {0}}}}"));
  }
  {  // lhs_dilation 2 on x: {1, 2} becomes {1, 0, 2}; a 1x1 kernel of 3.
    Builder b("dilated");
    ConvGeneralDilated(ConstantLiteral(&b, L("f32[1,1,1,2] {{{{1, 2}}}}")),
                       ConstantLiteral(&b, L("f32[1,1,1,1] {{{{3}}}}")), {1, 1},
                       {{0, 0}, {0, 0}}, {1, 2}, {1, 1},
                       CreateDefaultConvDimensionNumbers());
    ExpectBuildsTo(b, L("f32[1,1,1,3] {{{{3, 0, 6}}}}"));
  }
}

// ===================================================== reductions

TEST(BuilderReduce, SeedExamples) {
  std::unique_ptr<HloModule> add =
      Binary("add", F32, [](XlaOp x, XlaOp y) { return Add(x, y); });
  ASSERT_NE(add, nullptr);
  auto reduce2 = [&](std::vector<int64_t> dims, const char* expected) {
    Builder b("reduce2");
    Reduce(ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}}),
           ConstantR0<float>(&b, 0), *add, dims);
    ExpectBuildsTo(b, L(expected));
  };
  reduce2({0}, "f32[3] {5, 7, 9}");
  reduce2({1}, "f32[2] {6, 15}");
  // The 3-D example: 1..6 replicated across dimension 0 (4x2x3).
  std::vector<float> v;
  for (int i = 0; i < 4; ++i) {
    for (int x = 1; x <= 6; ++x) v.push_back(static_cast<float>(x));
  }
  auto reduce3 = [&](std::vector<int64_t> dims, const char* expected) {
    Builder b("reduce3");
    Reduce(ConstantFromValues<float>(&b, {4, 2, 3}, v),
           ConstantR0<float>(&b, 0), *add, dims);
    ExpectBuildsTo(b, L(expected));
  };
  reduce3({0}, "f32[2,3] {{4, 8, 12}, {16, 20, 24}}");
  reduce3({2}, "f32[4,2] {{6, 15}, {6, 15}, {6, 15}, {6, 15}}");
  reduce3({0, 1}, "f32[3] {20, 28, 36}");
  reduce3({0, 1, 2}, "f32[] 84");
  Builder b("reduce_all");
  ReduceAll(ConstantFromValues<float>(&b, {4, 2, 3}, v),
            ConstantR0<float>(&b, 0), *add);
  ExpectBuildsTo(b, L("f32[] 84"));
}

TEST(BuilderReduce, VariadicArgmax) {
  // Seed 001: f(max, argmax, value, index) keeps the larger value and its
  // index; applied to V and iota it returns (max, argmax).
  Builder fb("argmax");
  XlaOp max = Parameter(&fb, 0, Shape::Scalar(F32), "max");
  XlaOp argmax = Parameter(&fb, 1, Shape::Scalar(S32), "argmax");
  XlaOp value = Parameter(&fb, 2, Shape::Scalar(F32), "value");
  XlaOp index = Parameter(&fb, 3, Shape::Scalar(S32), "index");
  XlaOp take = Ge(value, max);
  Tuple(&fb, {Select(take, value, max), Select(take, index, argmax)});
  std::unique_ptr<HloModule> f = BuildOk(fb);
  ASSERT_NE(f, nullptr);
  Builder b("variadic");
  Reduce(&b, {ConstantR1<float>(&b, {3, 9, 7, 1}), Iota(&b, S32, 4)},
         {ConstantLiteral(&b, MinValue(F32)), ConstantR0<int32_t>(&b, -1)}, *f,
         {0});
  ExpectBuildsTo(b, L("(f32[], s32[]) (9, 1)"));
}

TEST(BuilderReduceWindow, SeedMinimumSameAndValid) {
  // [10000, 1000, 100, 10, 1], window 3, stride 2, init MAX_FLOAT:
  // VALID -> [100, 1]; SAME pads one element per side -> [1000, 10, 1].
  std::unique_ptr<HloModule> min =
      Binary("min", F32, [](XlaOp x, XlaOp y) { return Min(x, y); });
  ASSERT_NE(min, nullptr);
  for (Padding p : {Padding::kValid, Padding::kSame}) {
    Builder b("rw");
    ReduceWindow(ConstantR1<float>(&b, {10000, 1000, 100, 10, 1}),
                 ConstantLiteral(&b, MaxValue(F32)), *min, {3}, {2}, p);
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    const WindowDimension& w = m->entry()->root()->attrs().window.dimensions[0];
    EXPECT_EQ(w.padding_low, p == Padding::kSame ? 1 : 0);
    EXPECT_EQ(w.padding_high, p == Padding::kSame ? 1 : 0);
    ExpectEval(*m, {},
               p == Padding::kValid ? L("f32[2] {100, 1}")
                                    : L("f32[3] {1000, 10, 1}"));
  }
  EXPECT_THAT(MakePadding({5}, {3}, {2}, Padding::kSame),
              ElementsAre(std::make_pair(1, 1)));
  EXPECT_THAT(MakePadding({4}, {3}, {1}, Padding::kSame),
              ElementsAre(std::make_pair(1, 1)));
  EXPECT_THAT(MakePadding({4}, {2}, {1}, Padding::kSame),
              ElementsAre(std::make_pair(0, 1)));
}

TEST(BuilderReduceWindow, SeedMaxPooling2x3) {
  // The seed's code: a max computation with parameters y, x, then
  // ReduceWindow over f32[4,6] with window and stride [2,3], kValid.
  std::unique_ptr<HloModule> max;
  {
    Builder builder("max");
    XlaOp y = Parameter(&builder, 0, Shape::Scalar(F32), "y");
    XlaOp x = Parameter(&builder, 1, Shape::Scalar(F32), "x");
    Max(y, x);
    max = BuildOk(builder);
  }
  ASSERT_NE(max, nullptr);
  Builder builder("reduce_window_2x3");
  Shape shape(F32, {4, 6});
  XlaOp input = Parameter(&builder, 0, shape, "input");
  ReduceWindow(input, ConstantLiteral(&builder, MinValue(F32)), *max,
               /*window_dimensions=*/{2, 3}, /*window_strides=*/{2, 3},
               Padding::kValid);
  std::unique_ptr<HloModule> m = BuildOk(builder);
  ASSERT_NE(m, nullptr);
  // input[i][j] = 6i + j: each window's maximum is its bottom-right element.
  std::vector<float> in;
  for (int i = 0; i < 24; ++i) in.push_back(static_cast<float>(i));
  ExpectEval(*m, {Literal::CreateFromValues<float>(F32, {4, 6}, in)},
             L("f32[2,2] {{8, 11}, {20, 23}}"));
}

TEST(BuilderReduceWindow, GeneralPaddingVariadicAndSelectAndScatter) {
  std::unique_ptr<HloModule> add =
      Binary("add", F32, [](XlaOp x, XlaOp y) { return Add(x, y); });
  ASSERT_NE(add, nullptr);
  {  // Base dilation 2 on {1, 2, 3}: {1, 0, 2, 0, 3}; pairwise sums.
    Builder b("rw_general");
    ReduceWindowWithGeneralPadding({ConstantR1<float>(&b, {1, 2, 3})},
                                   {ConstantR0<float>(&b, 0)}, *add, {2}, {1},
                                   {2}, {1}, {{0, 0}});
    ExpectBuildsTo(b, L("f32[4] {1, 2, 2, 3}"));
  }
  {  // Variadic: sums of two operands at once.
    Builder fb("add2");
    XlaOp a0 = Parameter(&fb, 0, Shape::Scalar(F32), "a0");
    XlaOp a1 = Parameter(&fb, 1, Shape::Scalar(S32), "a1");
    XlaOp b0 = Parameter(&fb, 2, Shape::Scalar(F32), "b0");
    XlaOp b1 = Parameter(&fb, 3, Shape::Scalar(S32), "b1");
    Tuple(&fb, {Add(a0, b0), Add(a1, b1)});
    std::unique_ptr<HloModule> f = BuildOk(fb);
    ASSERT_NE(f, nullptr);
    Builder b("rw_variadic");
    ReduceWindow(
        {ConstantR1<float>(&b, {1, 2, 3}), ConstantR1<int32_t>(&b, {4, 5, 6})},
        {ConstantR0<float>(&b, 0), ConstantR0<int32_t>(&b, 0)}, *f, {2}, {1},
        Padding::kValid);
    ExpectBuildsTo(b, L("(f32[2], s32[2]) ({3, 5}, {9, 11})"));
  }
  {  // SelectAndScatter: max selection over windows of 2, stride 2; the
     // source values land on each window's maximum.
    std::unique_ptr<HloModule> ge;
    {
      Builder sb("ge");
      Ge(Parameter(&sb, 0, Shape::Scalar(F32), "a"),
         Parameter(&sb, 1, Shape::Scalar(F32), "b"));
      ge = BuildOk(sb);
    }
    ASSERT_NE(ge, nullptr);
    Builder b("sas");
    SelectAndScatter(ConstantR1<float>(&b, {1, 5, 4, 2}), *ge, {2}, {2},
                     Padding::kValid, ConstantR1<float>(&b, {10, 20}),
                     ConstantR0<float>(&b, 0), *add);
    ExpectBuildsTo(b, L("f32[4] {0, 10, 20, 0}"));
    Builder b2("sas_general");
    SelectAndScatterWithGeneralPadding(
        ConstantR1<float>(&b2, {1, 5, 4, 2}), *ge, {2}, {2}, {{0, 0}},
        ConstantR1<float>(&b2, {10, 20}), ConstantR0<float>(&b2, 0), *add);
    ExpectBuildsTo(b2, L("f32[4] {0, 10, 20, 0}"));
  }
}

TEST(BuilderMap, MultipliesElementwise) {
  std::unique_ptr<HloModule> mul =
      Binary("mul", F32, [](XlaOp x, XlaOp y) { return Mul(x, y); });
  ASSERT_NE(mul, nullptr);
  Builder b("map");
  Map(&b, {ConstantR1<float>(&b, {1, 2, 3}), ConstantR1<float>(&b, {4, 5, 6})},
      *mul, {0});
  ExpectBuildsTo(b, L("f32[3] {4, 10, 18}"));
  Builder bad("map_static");
  XlaOp x = ConstantR1<float>(&bad, {1});
  Map(&bad, {x, x}, *mul, {0}, {x});
  EXPECT_THAT(std::string(bad.Build().status().message()),
              HasSubstr("static_operands"));
}

TEST(BuilderSort, SeveralOperands) {
  // Seed 001: ([3, 1], [42, 50], [-3.0, 1.1]) sorted by operand 0 with
  // less-than gives ([1, 3], [50, 42], [1.1, -3.0]).
  Builder cb("less");
  XlaOp a = Parameter(&cb, 0, Shape::Scalar(S32), "a");
  XlaOp c = Parameter(&cb, 1, Shape::Scalar(S32), "c");
  Parameter(&cb, 2, Shape::Scalar(S32), "u0");
  Parameter(&cb, 3, Shape::Scalar(S32), "u1");
  Parameter(&cb, 4, Shape::Scalar(F32), "v0");
  Parameter(&cb, 5, Shape::Scalar(F32), "v1");
  Lt(a, c);
  std::unique_ptr<HloModule> less = BuildOk(cb);
  ASSERT_NE(less, nullptr);
  Builder b("sort");
  Sort({ConstantR1<int32_t>(&b, {3, 1}), ConstantR1<int32_t>(&b, {42, 50}),
        ConstantR1<float>(&b, {-3.0f, 1.1f})},
       *less);
  std::unique_ptr<HloModule> m = BuildOk(b);
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(m->entry()->root()->attrs().dimensions, ElementsAre(0));
  ExpectEval(*m, {},
             L("(s32[2], s32[2], f32[2]) ({1, 3}, {50, 42}, {1.1, -3})"));
}

// ===================================================== gather / scatter

TEST(BuilderGatherScatter, GatherRowsAndScatterAdd) {
  {  // tf.gather_nd style: rows 0 and 2 of a 3x3 matrix.
    Builder b("gather");
    GatherDimensionNumbers dn;
    dn.offset_dims = {1};
    dn.collapsed_slice_dims = {0};
    dn.start_index_map = {0};
    dn.index_vector_dim = 1;
    Gather(ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}),
           ConstantR2<int32_t>(&b, {{0}, {2}}), dn, {1, 3});
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    const std::string text = PrintModule(*m);
    EXPECT_THAT(text, HasSubstr("f32[2,3] gather("));
    EXPECT_THAT(text, HasSubstr("offset_dims={1}, collapsed_slice_dims={0}, "
                                "start_index_map={0}, index_vector_dim=1, "
                                "slice_sizes={1,3}"));
    ExpectEval(*m, {}, L("f32[2,3] {{1, 2, 3}, {7, 8, 9}}"));
  }
  {
    std::unique_ptr<HloModule> add =
        Binary("add", F32, [](XlaOp x, XlaOp y) { return Add(x, y); });
    ASSERT_NE(add, nullptr);
    Builder b("scatter");
    ScatterDimensionNumbers dn;
    dn.update_window_dims = {1};
    dn.inserted_window_dims = {0};
    dn.scatter_dims_to_operand_dims = {0};
    dn.index_vector_dim = 1;
    Scatter(ConstantR2<float>(&b, {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}),
            ConstantR2<int32_t>(&b, {{0}, {2}}),
            ConstantR2<float>(&b, {{1, 1, 1}, {2, 2, 2}}), *add, dn);
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    const std::string text = PrintModule(*m);
    EXPECT_THAT(text, HasSubstr("f32[3,3] scatter("));
    EXPECT_THAT(text,
                HasSubstr("update_window_dims={1}, inserted_window_dims={0}, "
                          "scatter_dims_to_operand_dims={0}, "
                          "index_vector_dim=1"));
    ExpectEval(*m, {}, L("f32[3,3] {{1, 1, 1}, {0, 0, 0}, {2, 2, 2}}"));
  }
}

// ===================================================== control flow

TEST(BuilderControlFlow, WhileAccumulatorSeedExample) {
  // init = {0, zero_vector[10]}; while (result(0) < 1000) { iteration + 1;
  // result(1) + constant_vector[10] }. With constant_vector[i] =
  // (i + 1) / 8 the result after 1000 iterations is 125 * (i + 1), exact.
  const Shape state = Shape::Tuple({Shape::Scalar(S32), Shape(F32, {10})});
  std::vector<float> step;
  for (int i = 0; i < 10; ++i) step.push_back((i + 1) / 8.0f);
  std::unique_ptr<HloModule> condition, body;
  {
    Builder cb("condition");
    XlaOp result = Parameter(&cb, 0, state, "result");
    Lt(GetTupleElement(result, 0), ConstantR0<int32_t>(&cb, 1000));
    condition = BuildOk(cb);
  }
  {
    Builder bb("body");
    XlaOp result = Parameter(&bb, 0, state, "result");
    XlaOp iteration =
        Add(GetTupleElement(result, 0), ConstantR0<int32_t>(&bb, 1));
    XlaOp new_vector = Add(GetTupleElement(result, 1),
                           ConstantFromValues<float>(&bb, {10}, step));
    Tuple(&bb, {iteration, new_vector});
    body = BuildOk(bb);
  }
  ASSERT_NE(condition, nullptr);
  ASSERT_NE(body, nullptr);
  Builder b("while");
  XlaOp init =
      Tuple(&b, {ConstantR0<int32_t>(&b, 0), ConstantR1<float>(&b, 10, 0.0f)});
  While(*condition, *body, init);
  std::unique_ptr<HloModule> m = BuildOk(b);
  ASSERT_NE(m, nullptr);
  std::vector<float> expected;
  for (int i = 0; i < 10; ++i) expected.push_back(125.0f * (i + 1));
  ExpectEval(
      *m, {},
      Literal::MakeTuple({Literal::CreateR0<int32_t>(S32, 1000),
                          Literal::CreateFromValues<float>(
                              F32, {10}, absl::Span<const float>(expected))}));
}

TEST(BuilderControlFlow, ConditionalBothFormsAndCalls) {
  std::unique_ptr<HloModule> negate, twice, plus_one;
  {
    Builder nb("negate");
    Neg(Parameter(&nb, 0, Shape::Scalar(F32), "x"));
    negate = BuildOk(nb);
    Builder tb("twice");
    XlaOp x = Parameter(&tb, 0, Shape::Scalar(F32), "x");
    Add(x, x);
    twice = BuildOk(tb);
    Builder pb("plus_one");
    Add(Parameter(&pb, 0, Shape::Scalar(F32), "x"), ConstantR0<float>(&pb, 1));
    plus_one = BuildOk(pb);
  }
  for (bool pred : {true, false}) {
    Builder b("cond");
    Conditional(ConstantR0<bool>(&b, pred), ConstantR0<float>(&b, 3), *negate,
                ConstantR0<float>(&b, 5), *twice);
    ExpectBuildsTo(b, pred ? L("f32[] -3") : L("f32[] 10"));
  }
  // Branch form; an out-of-range index runs the last branch.
  for (int32_t index : {0, 1, 2, 7, -1}) {
    Builder b("branches");
    const HloModule* branches[] = {negate.get(), twice.get(), plus_one.get()};
    Conditional(ConstantR0<int32_t>(&b, index), branches,
                {ConstantR0<float>(&b, 3), ConstantR0<float>(&b, 4),
                 ConstantR0<float>(&b, 5)});
    const float expected = index == 0 ? -3.0f : index == 1 ? 8.0f : 6.0f;
    ExpectBuildsTo(b, Literal::CreateR0<float>(F32, expected));
  }
  {
    Builder b("call");
    Call(&b, *twice, {ConstantR0<float>(&b, 21)});
    ExpectBuildsTo(b, L("f32[] 42"));
  }
  {  // CompositeCall: a call with is_composite and composite.* attributes.
    Builder b("composite");
    CompositeCall(&b, *plus_one, {ConstantR0<float>(&b, 1)}, "foo.bar",
                  "{n = 1 : i32}", 1);
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    const HloInstruction* call = m->entry()->root();
    EXPECT_EQ(call->opcode(), HloOpcode::kCall);
    EXPECT_TRUE(call->attrs().is_composite);
    EXPECT_EQ(call->attrs().frontend_attributes.at("composite.name"),
              "foo.bar");
    EXPECT_EQ(call->attrs().frontend_attributes.at("composite.attributes"),
              "{n = 1 : i32}");
    EXPECT_EQ(call->attrs().frontend_attributes.at("composite.version"), "1");
    EXPECT_THAT(PrintModule(*m), HasSubstr("is_composite=true"));
    ExpectEval(*m, {}, L("f32[] 2"));
  }
}

// ===================================================== collectives

TEST(BuilderCollectives, SingleReplicaValues) {
  std::unique_ptr<HloModule> add =
      Binary("add", F32, [](XlaOp x, XlaOp y) { return Add(x, y); });
  ASSERT_NE(add, nullptr);
  // With one replica every collective below returns its operand.
  const Literal x = L("f32[2,2] {{1, 2}, {3, 4}}");
  const std::vector<std::function<XlaOp(XlaOp)>> ops = {
      [&](XlaOp v) { return AllReduce(v, *add); },
      [&](XlaOp v) { return AllReduce(v, *add, {{0}}, /*channel_id=*/1); },
      [&](XlaOp v) { return AllGather(v, 1, 1); },
      [&](XlaOp v) { return ReduceScatter(v, *add, 0, 1); },
      [&](XlaOp v) { return AllToAll(v, 1, 0, 1); },
      [&](XlaOp v) {
        return CollectivePermute(v, {{0, 0}});
      },
      [&](XlaOp v) { return CrossReplicaSum(v); },
  };
  const char* names[] = {"all-reduce",     "all-reduce", "all-gather",
                         "reduce-scatter", "all-to-all", "collective-permute",
                         "all-reduce"};
  for (size_t i = 0; i < ops.size(); ++i) {
    SCOPED_TRACE(names[i]);
    Builder b("collective");
    ops[i](ConstantLiteral(&b, x));
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_NE(Find(*m, *ParseHloOpcode(names[i])), nullptr);
    ExpectEval(*m, {}, x);
  }
  Builder b("replica_id");
  ReplicaId(&b);
  ExpectBuildsTo(b, L("u32[] 0"));
}

TEST(BuilderCollectives, ShapesWithSeveralReplicas) {
  std::unique_ptr<HloModule> add =
      Binary("add", F32, [](XlaOp x, XlaOp y) { return Add(x, y); });
  ASSERT_NE(add, nullptr);
  {  // Seed 001 AllToAll: f32[4,16], split 1, concat 0, 4 cores -> f32[16,4].
    Builder b("alltoall");
    b.mutable_config()->replica_count = 4;
    XlaOp x = Parameter(&b, 0, Shape(F32, {4, 16}), "x");
    XlaOp r = AllToAll(x, /*split_dimension=*/1, /*concat_dimension=*/0,
                       /*split_count=*/4);
    EXPECT_EQ(b.GetShape(r)->ToString(false), "f32[16,4]");
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(Ops(*m),
                ElementsAre("all-to-all", "reshape", "transpose", "reshape"));
    EXPECT_THAT(Find(*m, HloOpcode::kAllToAll)->attrs().dimensions,
                ElementsAre(1));
  }
  {  // AllGather: the dimension grows shard_count times; groups {0,2},{1,3}.
    Builder b("allgather");
    b.mutable_config()->replica_count = 4;
    XlaOp g = AllGather(Parameter(&b, 0, Shape(F32, {2, 3}), "x"), 0, 2,
                        {{0, 2}, {1, 3}});
    EXPECT_EQ(b.GetShape(g)->ToString(false), "f32[4,3]");
    XlaOp s = ReduceScatter(g, *add, 0, 2, {{0, 2}, {1, 3}});
    EXPECT_EQ(b.GetShape(s)->ToString(false), "f32[2,3]");
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(PrintModule(*m), HasSubstr("replica_groups={{0,2},{1,3}}"));
  }
  {  // shard_count must be the group size.
    Builder b("bad_shards");
    b.mutable_config()->replica_count = 4;
    AllGather(Parameter(&b, 0, Shape(F32, {2}), "x"), 0, 3, {{0, 2}, {1, 3}});
    EXPECT_THAT(std::string(b.Build().status().message()),
                HasSubstr("shard_count is 3 but the group size is 2"));
  }
}

// ===================================================== random, fft, linalg

TEST(BuilderRandom, ShapesAndRanges) {
  {
    Builder b("uniform");
    RngUniform(ConstantR0<float>(&b, 0), ConstantR0<float>(&b, 1),
               Shape(F32, {64}));
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(PrintModule(*m), HasSubstr("distribution=rng_uniform"));
    Evaluator e;
    absl::StatusOr<Literal> r = e.Evaluate(*m, {});
    if (r.status().code() == absl::StatusCode::kUnimplemented) {
      std::cout << "[ NOTE ] interpreter: " << r.status().message() << "\n";
    } else {
      ASSERT_TRUE(r.ok()) << r.status();
      for (int64_t i = 0; i < 64; ++i) {  // [a, b)
        EXPECT_GE(r->GetAsDouble(i), 0.0);
        EXPECT_LT(r->GetAsDouble(i), 1.0);
      }
    }
  }
  {
    Builder b("normal");
    XlaOp n = RngNormal(ConstantR0<float>(&b, 0), ConstantR0<float>(&b, 1),
                        Shape(F32, {2, 3}));
    EXPECT_EQ(b.GetShape(n)->ToString(false), "f32[2,3]");
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(PrintModule(*m), HasSubstr("distribution=rng_normal"));
    Evaluator e;
    absl::StatusOr<Literal> r = e.Evaluate(*m, {});
    if (r.ok()) {
      for (int64_t i = 0; i < 6; ++i)
        EXPECT_TRUE(std::isfinite(r->GetAsDouble(i)));
    } else {
      EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented)
          << r.status();
    }
  }
  {
    Builder b("bits");
    XlaOp g = RngBitGenerator(RandomAlgorithm::kThreeFry,
                              ConstantLiteral(&b, L("u64[2] {1, 2}")),
                              Shape(U32, {8}));
    EXPECT_EQ(b.GetShape(g)->ToString(false), "(u64[2], u32[8])");
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(PrintModule(*m), HasSubstr("algorithm=rng_three_fry"));
    Evaluator e;
    absl::StatusOr<Literal> r = e.Evaluate(*m, {});
    if (r.ok()) {
      EXPECT_EQ(r->tuple_element(1).shape().ToString(false), "u32[8]");
    } else {
      EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented)
          << r.status();
    }
  }
}

TEST(BuilderNumerics, FftTriangularSolveCholesky) {
  {  // The transform of a unit impulse is all ones.
    Builder b("fft");
    XlaOp f =
        Fft(ConstantLiteral(&b, L("c64[4] {(1, 0), (0, 0), (0, 0), (0, 0)}")),
            FftType::kFft, {4});
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(PrintModule(*m), HasSubstr("fft_type=FFT, fft_length={4}"));
    ExpectEval(*m, {}, L("c64[4] {(1, 0), (1, 0), (1, 0), (1, 0)}"));
    Builder b2("rfft");
    XlaOp r =
        Fft(Parameter(&b2, 0, Shape(F32, {3, 8}), "x"), FftType::kRfft, {8});
    EXPECT_EQ(b2.GetShape(r)->ToString(false), "c64[3,5]");  // 8 // 2 + 1
    (void)f;
  }
  {  // [[2, 0], [1, 1]] x = [[2], [3]]: x = [[1], [2]].
    Builder b("trsm");
    TriangularSolve(ConstantR2<float>(&b, {{2, 0}, {1, 1}}),
                    ConstantR2<float>(&b, {{2}, {3}}), /*left_side=*/true,
                    /*lower=*/true, /*unit_diagonal=*/false,
                    TransposeA::kNoTranspose);
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(PrintModule(*m), HasSubstr("left_side=true, lower=true"));
    ExpectEval(*m, {}, L("f32[2,1] {{1}, {2}}"));
  }
  {  // [[4, 2], [2, 5]] = l l^T with l = [[2, 0], [1, 2]].
    Builder b("cholesky");
    Cholesky(ConstantR2<float>(&b, {{4, 2}, {2, 5}}), /*lower=*/true);
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(PrintModule(*m), HasSubstr("cholesky("));
    Evaluator e;
    absl::StatusOr<Literal> r = e.Evaluate(*m, {});
    if (r.status().code() == absl::StatusCode::kUnimplemented) {
      std::cout << "[ NOTE ] interpreter: " << r.status().message() << "\n";
    } else {
      ASSERT_TRUE(r.ok()) << r.status();
      // Only the lower triangle is defined.
      EXPECT_EQ(r->GetAsDouble(0), 2);
      EXPECT_EQ(r->GetAsDouble(2), 1);
      EXPECT_EQ(r->GetAsDouble(3), 2);
    }
  }
}

TEST(BuilderNumerics, BatchNorm) {
  // x = [[1, 2], [3, 4]], feature_index 1: feature 0 holds {1, 3} (mean 2,
  // variance 1), feature 1 holds {2, 4} (mean 3, variance 1); epsilon 0.
  {
    Builder b("training");
    BatchNormTraining(ConstantR2<float>(&b, {{1, 2}, {3, 4}}),
                      ConstantR1<float>(&b, {1, 1}),
                      ConstantR1<float>(&b, {0, 0}), 0.0f, 1);
    ExpectBuildsTo(b, L("(f32[2,2], f32[2], f32[2]) "
                        "({{-1, -1}, {1, 1}}, {2, 3}, {1, 1})"));
  }
  {  // y = scale * (x - mean) / sqrt(var) + offset = 2 (x - mean) + 1.
    Builder b("inference");
    BatchNormInference(
        ConstantR2<float>(&b, {{1, 2}, {3, 4}}), ConstantR1<float>(&b, {2, 2}),
        ConstantR1<float>(&b, {1, 1}), ConstantR1<float>(&b, {2, 3}),
        ConstantR1<float>(&b, {1, 1}), 0.0f, 1);
    ExpectBuildsTo(b, L("f32[2,2] {{-1, -1}, {3, 3}}"));
  }
  {  // grad_output all ones: d = 1, c = mean(x - mu) = 0, so grad_x = 0,
     // grad_scale = sum(x - mu) = 0, grad_offset = sum(1) = 2.
    Builder b("grad");
    BatchNormGrad(ConstantR2<float>(&b, {{1, 2}, {3, 4}}),
                  ConstantR1<float>(&b, {1, 1}), ConstantR1<float>(&b, {2, 3}),
                  ConstantR1<float>(&b, {1, 1}),
                  ConstantR2<float>(&b, {{1, 1}, {1, 1}}), 0.0f, 1);
    ExpectBuildsTo(b, L("(f32[2,2], f32[2], f32[2]) "
                        "({{0, 0}, {0, 0}}, {0, 0}, {2, 2})"));
  }
}

// ===================================================== host I/O, custom call

TEST(BuilderHostIo, TokensAreThreadedForTheCaller) {
  // Host transfers need the host's queues, so only the lowering is checked.
  {
    Builder b("infeed");
    XlaOp v = Infeed(&b, Shape(F32, {2}));
    EXPECT_EQ(b.GetShape(v)->ToString(false), "f32[2]");
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(Ops(*m),
                ElementsAre("after-all", "infeed", "get-tuple-element"));
  }
  {
    Builder b("outfeed");
    Outfeed(ConstantR1<float>(&b, {1, 2}), Shape(F32, {2}), "cfg");
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(Ops(*m), ElementsAre("after-all", "outfeed"));
    EXPECT_THAT(PrintModule(*m),
                HasSubstr("outfeed_shape=f32[2], outfeed_config=\"cfg\""));
  }
  {
    Builder b("send_recv");
    XlaOp token = CreateToken(&b);
    XlaOp data = RecvWithToken(token, Shape(F32, {2}), ChannelHandle{7});
    XlaOp received = GetTupleElement(data, 0);
    XlaOp done =
        SendWithToken(received, GetTupleElement(data, 1), ChannelHandle{8});
    EXPECT_TRUE(b.GetShape(done)->IsToken());
    Send(received, ChannelHandle{9});
    Recv(&b, Shape(S32, {}), ChannelHandle{10});
    XlaOp t = InfeedWithToken(token, Shape(F32, {1}));
    OutfeedWithToken(GetTupleElement(t, 0), GetTupleElement(t, 1),
                     Shape(F32, {1}));
    std::unique_ptr<HloModule> m = BuildOk(b);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(
        Ops(*m),
        ElementsAre("after-all", "recv", "recv-done", "get-tuple-element",
                    "get-tuple-element", "send", "send-done", "after-all",
                    "send", "send-done", "after-all", "recv", "recv-done",
                    "get-tuple-element", "infeed", "get-tuple-element",
                    "get-tuple-element", "outfeed"));
    EXPECT_THAT(PrintModule(*m), HasSubstr("channel_id=7"));
  }
}

TEST(BuilderCustomCall, TargetShapeAndOpaque) {
  // Seed 001: CustomCall("myfunc", {x, y}, f32[3x3]).
  Builder b("custom");
  XlaOp x = ConstantR1<float>(&b, {1, 2});
  XlaOp y = ConstantR2<float>(&b, {{10, 20, 30}, {40, 50, 60}});
  XlaOp z = CustomCall(&b, "myfunc", {x, y}, Shape(F32, {3, 3}), "opaque");
  EXPECT_EQ(b.GetShape(z)->ToString(false), "f32[3,3]");
  std::unique_ptr<HloModule> m = BuildOk(b);
  ASSERT_NE(m, nullptr);
  const std::string text = PrintModule(*m);
  EXPECT_THAT(text, HasSubstr("custom_call_target=\"myfunc\""));
  EXPECT_THAT(text, HasSubstr("backend_config=\"opaque\""));
}

// ===================================================== builder mechanics

TEST(BuilderApi, ErrorsAndMisuse) {
  {  // The first error wins.
    Builder b("first");
    XlaOp x = Parameter(&b, 0, Shape(F32, {2}), "x");
    Collapse(x, {1});
    Transpose(x, {0, 0});
    absl::Status st = b.Build().status();
    EXPECT_THAT(std::string(st.message()), HasSubstr("Collapse("));
    EXPECT_THAT(std::string(st.message()), HasSubstr("builder 'first'"));
  }
  {  // A verifier rule appears with its ID.
    Builder b("rule");
    Transpose(Parameter(&b, 0, Shape(F32, {2, 3}), "x"), {0, 0});
    absl::Status st = b.Build().status();
    EXPECT_THAT(std::string(st.message()),
                HasSubstr("Transpose(operand=f32[2,3] %x, permutation={0,0})"));
    EXPECT_EQ(RuleOf(st), "transpose.C2");
  }
  {  // Ops of another builder and default handles.
    Builder a("a"), b("b");
    XlaOp x = ConstantR0<float>(&a, 1);
    Add(ConstantR0<float>(&b, 1), x);
    EXPECT_THAT(std::string(b.Build().status().message()),
                HasSubstr("belongs to builder 'a'"));
    Builder c("c");
    Add(ConstantR0<float>(&c, 1), XlaOp());
    EXPECT_THAT(std::string(c.Build().status().message()),
                HasSubstr("invalid XlaOp"));
  }
  {  // Parameter numbers, empty builders, building twice.
    Builder b("params");
    Parameter(&b, 0, Shape::Scalar(F32), "x");
    Parameter(&b, 0, Shape::Scalar(F32), "y");
    EXPECT_THAT(std::string(b.Build().status().message()),
                HasSubstr("parameter number 0 is already used"));
    Builder gap("gap");
    Parameter(&gap, 1, Shape::Scalar(F32), "x");
    EXPECT_FALSE(gap.Build().ok());
    Builder empty("empty");
    EXPECT_THAT(std::string(empty.Build().status().message()),
                HasSubstr("no instructions"));
    Builder twice("twice");
    ConstantR0<float>(&twice, 1);
    EXPECT_TRUE(twice.Build().ok());
    EXPECT_EQ(twice.Build().status().code(),
              absl::StatusCode::kFailedPrecondition);
  }
  {  // Ragged constants.
    Builder b("ragged");
    ConstantR2<float>(&b, {{1, 2}, {3}});
    EXPECT_THAT(std::string(b.Build().status().message()), HasSubstr("ragged"));
  }
}

TEST(BuilderApi, RootAndSubComputationNames) {
  std::unique_ptr<HloModule> add =
      Binary("add", F32, [](XlaOp x, XlaOp y) { return Add(x, y); });
  ASSERT_NE(add, nullptr);
  Builder b("main");
  XlaOp x = Parameter(&b, 0, Shape(F32, {3}), "x");
  XlaOp s1 = Reduce(x, ConstantR0<float>(&b, 0), *add, {0});
  XlaOp s2 = Reduce(x, ConstantR0<float>(&b, 1), *add, {0});
  Mul(s1, s2);
  absl::StatusOr<std::unique_ptr<HloModule>> m = b.Build(s1);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->entry()->root()->opcode(), HloOpcode::kReduce);
  // Each use imports its own copy under a unique name; the text parses back.
  EXPECT_EQ((*m)->computations().size(), 3u);
  EXPECT_NE((*m)->computations()[0]->name(), (*m)->computations()[1]->name());
  const std::string text = PrintModule(**m);
  absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  ExpectEval(**m, {L("f32[3] {1, 2, 3}")}, L("f32[] 6"));
  // CreateSubBuilder gives an independent builder for sub-computations.
  std::unique_ptr<Builder> sub = b.CreateSubBuilder("sub");
  EXPECT_EQ(sub->name(), "sub");
  // Min/MaxValue.
  EXPECT_TRUE(std::isinf(MinValue(F32).GetAsDouble(0)));
  EXPECT_EQ(MaxValue(S32).GetAsInt64(0), 2147483647);
  EXPECT_EQ(MinValue(PrimitiveType::kS8).GetAsInt64(0), -128);
  EXPECT_EQ(MaxValue(PrimitiveType::kF8E4M3FN).GetAsDouble(0), 448);
}

}  // namespace
}  // namespace hloref
