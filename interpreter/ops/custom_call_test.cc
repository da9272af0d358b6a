// Tests of the custom-call family (interpreter/ops/custom_call.cc) and the
// target registry (interpreter/custom_call_registry.h): in-process targets,
// the seed's documented example `myfunc` through a real shared library
// (custom_call_test_lib.cc, path from the build), tuple and layout buffer
// conventions, and the errors for unknown targets, missing libraries and
// missing symbols.
#include "interpreter/ops/custom_call.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "interpreter/custom_call_registry.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

#ifndef HLOREF_CUSTOM_CALL_TESTLIB
#error "HLOREF_CUSTOM_CALL_TESTLIB must name the test library"
#endif

namespace hloref {
namespace {

const std::string kLib = HLOREF_CUSTOM_CALL_TESTLIB;

absl::StatusOr<EvalResult> RunHlo(const std::string& text,
                                  const CustomCallRegistry* registry,
                                  std::vector<std::string> libraries = {},
                                  std::vector<Literal> args = {}) {
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          ParseHloModule(text));
  HLOREF_RETURN_IF_ERROR(VerifyModule(*module));
  EvaluatorOptions options;
  options.custom_call_registry = registry;
  options.custom_call_libraries = std::move(libraries);
  Evaluator evaluator(options);
  return evaluator.Run(*module, args);
}

Literal Lit(const std::string& text) {
  absl::StatusOr<Literal> l = ParseLiteral(text);
  EXPECT_TRUE(l.ok()) << text << ": " << l.status();
  return l.ok() ? *std::move(l) : Literal();
}

// Seed 001 "CustomCall": CustomCall("myfunc", {x, y}, f32[3x3]).
constexpr char kSeedExample[] = R"(HloModule m
ENTRY e {
  x = f32[2] constant({1, 2})
  y = f32[2,3] constant({{10, 20, 30}, {40, 50, 60}})
  ROOT z = f32[3,3] custom-call(x, y), custom_call_target="myfunc"
})";

TEST(CustomCallLibrary, SeedExampleMyfunc) {
  absl::StatusOr<EvalResult> r = RunHlo(kSeedExample, nullptr, {kLib});
  ASSERT_TRUE(r.ok()) << r.status();
  // z[0][0] = x[1] + y[1][0] = 42 (the seed's line); the library's rule
  // z[i][j] = x[(i+1)%2] + y[(i+1)%2][j] for the rest.
  EXPECT_EQ(r->value, Lit("f32[3,3] {{42, 52, 62}, {11, 21, 31}, "
                          "{42, 52, 62}}"));
}

TEST(CustomCallLibrary, InputsReachTheTargetAsTheSeedDocuments) {
  // Different inputs: the library's checks (the seed's EXPECT_EQs) fail and
  // it writes NaN, so the NaNs show the buffers arrived in the seed's
  // row-major form above and only there.
  std::string text = kSeedExample;
  text.replace(text.find("{1, 2}"), 6, "{2, 1}");
  absl::StatusOr<EvalResult> r = RunHlo(text, nullptr, {kLib});
  ASSERT_TRUE(r.ok()) << r.status();
  for (int64_t i = 0; i < 9; ++i) {
    EXPECT_TRUE(std::isnan(r->value.GetAsDouble(i))) << i;
  }
}

TEST(CustomCallLibrary, TupleOperandsAndResultsArePointerArrays) {
  constexpr char kText[] = R"(HloModule m
ENTRY e {
  a = s32[3] constant({1, -2, 5})
  d = f64[] constant(0.25)
  k = s32[] constant(3)
  t = (f64[], s32[]) tuple(d, k)
  ROOT r = (s32[3], f64[]) custom-call(a, t), custom_call_target="tuple_scale_and_sum"
})";
  absl::StatusOr<EvalResult> r = RunHlo(kText, nullptr, {kLib});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(s32[3], f64[]) ({3, -6, 15}, 4.25)"));
}

TEST(CustomCallLibrary, BuffersFollowTheLayout) {
  // Operand f32[2,3]{0,1}: dimension 0 is minor, so the buffer is column
  // by column: a00 a10 a01 a11 a02 a12.
  constexpr char kIn[] = R"(HloModule m
ENTRY e {
  a = f32[2,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}})
  ROOT r = f32[6] custom-call(a), custom_call_target="copy_six_floats"
})";
  absl::StatusOr<EvalResult> r = RunHlo(kIn, nullptr, {kLib});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[6] {1, 4, 2, 5, 3, 6}"));
  // Result f32[2,3]{0,1}: buffer position p holds element (p % 2, p / 2).
  constexpr char kOut[] = R"(HloModule m
ENTRY e {
  ROOT r = f32[2,3]{0,1} custom-call(), custom_call_target="iota_six_floats"
})";
  absl::StatusOr<EvalResult> o = RunHlo(kOut, nullptr, {kLib});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->value, Lit("f32[2,3] {{0, 2, 4}, {1, 3, 5}}"));
}

TEST(CustomCallLibrary, PredIsOneBytePerElement) {
  constexpr char kText[] = R"(HloModule m
ENTRY e {
  a = pred[4] constant({true, false, false, true})
  ROOT r = pred[4] custom-call(a), custom_call_target="not_pred4"
})";
  absl::StatusOr<EvalResult> r = RunHlo(kText, nullptr, {kLib});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("pred[4] {false, true, true, false}"));
}

TEST(CustomCallLibrary, MissingLibraryAndSymbolAreClearErrors) {
  absl::StatusOr<EvalResult> missing =
      RunHlo(kSeedExample, nullptr, {"/nonexistent/libnothing.so"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/libnothing.so"),
            std::string::npos)
      << missing.status();
  EXPECT_NE(missing.status().message().find("could not be loaded"),
            std::string::npos)
      << missing.status();

  std::string text = kSeedExample;
  text.replace(text.find("\"myfunc\""), 8, "\"no_such_fn\"");
  absl::StatusOr<EvalResult> symbol = RunHlo(text, nullptr, {kLib});
  ASSERT_FALSE(symbol.ok());
  EXPECT_EQ(symbol.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(symbol.status().message().find("\"no_such_fn\""), std::string::npos)
      << symbol.status();
  EXPECT_NE(symbol.status().message().find(kLib), std::string::npos)
      << symbol.status();
  // The direct lookup names the symbol and the library.
  absl::StatusOr<CustomCallCFunction> fn =
      LookupCustomCallSymbol(kLib, "no_such_fn");
  EXPECT_EQ(fn.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(LookupCustomCallSymbol(kLib, "myfunc").ok());
}

TEST(CustomCallLibrary, OnlyTheOriginalApiCanBeCalled) {
  std::string text = kSeedExample;
  text.replace(text.find("custom_call_target=\"myfunc\""),
               std::string("custom_call_target=\"myfunc\"").size(),
               "custom_call_target=\"myfunc\", "
               "api_version=API_VERSION_STATUS_RETURNING");
  absl::StatusOr<EvalResult> r = RunHlo(text, nullptr, {kLib});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented) << r.status();
}

TEST(CustomCallLibrary, NotOpenedUnlessListed) {
  // The same module without the library: the target is unknown, even
  // though the library was loaded by an earlier test in this process.
  absl::StatusOr<EvalResult> r = RunHlo(kSeedExample, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(r.status().message().find("unknown custom-call target \"myfunc\""),
            std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("--custom-call-lib"), std::string::npos)
      << r.status();
}

TEST(CustomCallRegistry, InProcessTargets) {
  CustomCallRegistry registry;
  ASSERT_TRUE(
      registry
          .Register("scale_by_attr",
                    [](const HloInstruction& inst,
                       absl::Span<const Literal* const> operands)
                        -> absl::StatusOr<Literal> {
                      // Doubles each element; the instruction is
                      // there for attributes such as backend_config.
                      Literal out = *operands[0];
                      const double factor =
                          inst.attrs().backend_config == "triple" ? 3 : 2;
                      for (int64_t i = 0; i < out.element_count(); ++i) {
                        out.SetFromDouble(i, out.GetAsDouble(i) * factor);
                      }
                      return out;
                    })
          .ok());
  ASSERT_TRUE(
      registry
          .Register("concat_two",
                    [](const HloInstruction&,
                       absl::Span<const Literal* const> operands)
                        -> absl::StatusOr<Literal> {
                      std::vector<Literal> e = {*operands[0], *operands[1]};
                      return Literal::MakeTuple(std::move(e));
                    })
          .ok());
  EXPECT_EQ(registry.Register("concat_two", nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      registry
          .Register("concat_two",
                    [](const HloInstruction&, absl::Span<const Literal* const>)
                        -> absl::StatusOr<Literal> { return Literal(); })
          .code(),
      absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.Names(),
            (std::vector<std::string>{"concat_two", "scale_by_attr"}));

  absl::StatusOr<EvalResult> r =
      RunHlo(R"(HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  b = s32[] constant(9)
  s = f32[3] custom-call(a), custom_call_target="scale_by_attr", backend_config="triple"
  ROOT t = (f32[3], s32[]) custom-call(s, b), custom_call_target="concat_two"
})",
             &registry, {}, {Lit("f32[3] {1, -0.5, 4}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("(f32[3], s32[]) ({3, -1.5, 12}, 9)"));

  // An unknown target lists what is registered.
  absl::StatusOr<EvalResult> u = RunHlo(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  ROOT r = f32[3] custom-call(a), custom_call_target="__cublas$gemm"
})",
                                        &registry);
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(u.status().message().find("\"__cublas$gemm\""), std::string::npos)
      << u.status();
  EXPECT_NE(u.status().message().find("concat_two, scale_by_attr"),
            std::string::npos)
      << u.status();
}

TEST(CustomCallRegistry, WrongResultShapeAndTargetErrors) {
  CustomCallRegistry registry;
  ASSERT_TRUE(
      registry
          .Register("wrong_shape",
                    [](const HloInstruction&, absl::Span<const Literal* const>)
                        -> absl::StatusOr<Literal> {
                      return Literal::Zero(PrimitiveType::kF32);
                    })
          .ok());
  ASSERT_TRUE(
      registry
          .Register("fails",
                    [](const HloInstruction&, absl::Span<const Literal* const>)
                        -> absl::StatusOr<Literal> {
                      return absl::InvalidArgumentError("bad input");
                    })
          .ok());
  absl::StatusOr<EvalResult> w = RunHlo(R"(HloModule m
ENTRY e {
  ROOT r = f32[2] custom-call(), custom_call_target="wrong_shape"
})",
                                        &registry);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(w.status().message().find("\"wrong_shape\" returned f32[]"),
            std::string::npos)
      << w.status();
  absl::StatusOr<EvalResult> f = RunHlo(R"(HloModule m
ENTRY e {
  ROOT r = f32[2] custom-call(), custom_call_target="fails"
})",
                                        &registry);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(f.status().message().find("\"fails\" failed: bad input"),
            std::string::npos)
      << f.status();
}

TEST(CustomCallRegistry, RegistryComesBeforeLibraries) {
  CustomCallRegistry registry;
  ASSERT_TRUE(
      registry
          .Register("myfunc",
                    [](const HloInstruction&, absl::Span<const Literal* const>)
                        -> absl::StatusOr<Literal> {
                      return Literal(Shape::Array(PrimitiveType::kF32, {3, 3}));
                    })
          .ok());
  absl::StatusOr<EvalResult> r = RunHlo(kSeedExample, &registry, {kLib});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, Lit("f32[3,3] {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}"));
}

}  // namespace
}  // namespace hloref
