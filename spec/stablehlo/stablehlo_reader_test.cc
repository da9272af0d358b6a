// Tests of the StableHLO reader: every testdata/*.mlir file (hand-written,
// pretty and generic op forms) is read, verified and evaluated on the
// oracle with its `// ARG:` values, and each result must equal its
// `// EXPECT:` line (values derived by hand, see each file's comment);
// then the errors for input without an HLO counterpart.
#include "spec/stablehlo/stablehlo_reader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/host_queues.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class TestdataTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TestdataTest, EvaluatesToExpected) {
  const std::string path =
      std::string(HLOREF_STABLEHLO_TESTDATA) + "/" + GetParam();
  const std::string text = ReadText(path);
  ASSERT_TRUE(LooksLikeStableHlo(text) || absl::StartsWith(text, "//"));
  std::vector<Literal> args;
  std::vector<Literal> expects;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    for (const char* tag : {"// ARG: ", "// EXPECT: "}) {
      if (!absl::StartsWith(line, tag)) continue;
      auto lit = ParseLiteral(line.substr(std::string(tag).size()));
      ASSERT_TRUE(lit.ok()) << line << ": " << lit.status();
      (tag[3] == 'A' ? args : expects).push_back(*std::move(lit));
    }
  }
  ParseOptions options;
  options.file_name = GetParam();
  auto module = ParseStableHloModule(text, options);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok()) << VerifyModule(**module);
  Evaluator evaluator;
  auto result = evaluator.Evaluate(**module, args);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_FALSE(expects.empty());
  if (expects.size() == 1) {
    EXPECT_EQ(result->ToString(), expects[0].ToString());
    return;
  }
  ASSERT_EQ(result->tuple_size(), static_cast<int64_t>(expects.size()));
  for (size_t i = 0; i < expects.size(); ++i) {
    EXPECT_EQ(result->tuple_element(i).ToString(), expects[i].ToString())
        << "result " << i;
  }
}

std::vector<std::string> TestdataFiles() {
  std::vector<std::string> files;
  for (const auto& e :
       std::filesystem::directory_iterator(HLOREF_STABLEHLO_TESTDATA)) {
    if (e.path().extension() == ".mlir") {
      files.push_back(e.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

INSTANTIATE_TEST_SUITE_P(Files, TestdataTest,
                         ::testing::ValuesIn(TestdataFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name =
                               info.param.substr(0, info.param.size() - 5);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           }
                           return name;
                         });

// The error for `text` (expected to fail) as a string.
std::string ErrorOf(const std::string& text) {
  auto hlo = StableHloToHloText(text, "t.mlir");
  EXPECT_FALSE(hlo.ok()) << *hlo;
  return hlo.ok() ? "" : std::string(hlo.status().message());
}

TEST(StableHloReaderTest, BoundedDynamicDimensionBecomesHloBound) {
  auto hlo = StableHloToHloText(
      "func.func @main(%a: tensor<?x2xf32, #stablehlo.bounds<4, ?>>) -> "
      "tensor<?x2xf32, #stablehlo.bounds<4, ?>> {\n"
      "  %0 = stablehlo.negate %a : tensor<?x2xf32, #stablehlo.bounds<4, ?>>\n"
      "  return %0 : tensor<?x2xf32, #stablehlo.bounds<4, ?>>\n}\n",
      "t.mlir");
  ASSERT_TRUE(hlo.ok()) << hlo.status();
  EXPECT_TRUE(absl::StrContains(*hlo, "f32[<=4,2] negate(")) << *hlo;
}

TEST(StableHloReaderTest, GenericFormIsRead) {
  auto hlo = StableHloToHloText(
      "\"func.func\"() <{function_type = () -> ()}> ({}) : () -> ()", "t");
  EXPECT_FALSE(hlo.ok());  // the generic form of func.func is not taken
  auto ok = StableHloToHloText(
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = \"stablehlo.add\"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> "
      "tensor<2xf32>\n  \"func.return\"(%0) : (tensor<2xf32>) -> ()\n}\n",
      "t.mlir");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(absl::StrContains(*ok, "f32[2] add(%a, %a)")) << *ok;
}

TEST(StableHloReaderTest, UnboundedDynamicDimensionIsNotSupported) {
  std::string e = ErrorOf(
      "func.func @main(%a: tensor<?x2xf32>) -> tensor<?x2xf32> {\n"
      "  return %a : tensor<?x2xf32>\n}\n");
  EXPECT_TRUE(absl::StartsWith(e, "t.mlir:1:21: error: not supported:")) << e;
  EXPECT_TRUE(absl::StrContains(e, "without a bound")) << e;
}

TEST(StableHloReaderTest, QuantizedTypeIsNotSupported) {
  std::string e = ErrorOf(
      "func.func @main(%a: tensor<2x!quant.uniform<i8:f32, 1.0>>) -> "
      "tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n");
  EXPECT_TRUE(absl::StrContains(e, "t.mlir:1:30: error: not supported")) << e;
  EXPECT_TRUE(absl::StrContains(e, "quantized")) << e;
}

TEST(StableHloReaderTest, DynamicOpAndUnknownOpAreLocated) {
  // dynamic_pad's padding is run-time data: no HLO counterpart.
  std::string e = ErrorOf(
      "func.func @main(%a: tensor<2xf32>, %p: tensor<f32>, %s: "
      "tensor<1xi32>) -> tensor<4xf32> {\n"
      "  %0 = \"stablehlo.dynamic_pad\"(%a, %p, %s, %s, %s) : "
      "(tensor<2xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, "
      "tensor<1xi32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n");
  EXPECT_TRUE(absl::StartsWith(e,
                               "t.mlir:2:8: error: not supported: "
                               "stablehlo.dynamic_pad"))
      << e;
  // dynamic_broadcast_in_dim to a bounded result has none either.
  e = ErrorOf(
      "func.func @main(%a: tensor<2xf32>, %s: tensor<1xi32>) -> "
      "tensor<?xf32, #stablehlo.bounds<4>> {\n"
      "  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] : "
      "(tensor<2xf32>, tensor<1xi32>) -> tensor<?xf32, "
      "#stablehlo.bounds<4>>\n"
      "  return %0 : tensor<?xf32, #stablehlo.bounds<4>>\n}\n");
  EXPECT_TRUE(absl::StrContains(e,
                                "t.mlir:2:8: error: not supported: "
                                "stablehlo.dynamic_broadcast_in_dim with "
                                "a bounded dynamic result"))
      << e;
  e = ErrorOf(
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.frobnicate %a : tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n}\n");
  EXPECT_TRUE(absl::StartsWith(e,
                               "t.mlir:2:8: error: not supported: op "
                               "'stablehlo.frobnicate'"))
      << e;
}

TEST(StableHloReaderTest, UndefinedValueIsLocated) {
  std::string e = ErrorOf(
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n}\n");
  EXPECT_EQ(e, "t.mlir:2:26: error: use of undefined value %b");
}

TEST(StableHloReaderTest, HloErrorPointsAtTheMlirOp) {
  // Shapes that disagree: the HLO parser or verifier rejects the converted
  // text; the error names the .mlir line of the op.
  auto m = ParseStableHloModule(
      "func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
      "  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<3xf32>\n"
      "  return %0 : tensor<3xf32>\n}\n",
      ParseOptions{.file_name = "t.mlir"});
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StartsWith(m.status().message(), "t.mlir:2:"))
      << m.status();
}

// chlo.`op` of f64 on `args` (one f64[n] literal per operand), evaluated on
// the oracle through the reader's expansion.
std::vector<double> EvalChlo(const std::string& op,
                             const std::vector<std::vector<double>>& args) {
  const size_t n = args[0].size();
  const std::string t = absl::StrCat("tensor<", n, "xf64>");
  std::string params, operands, types;
  std::vector<Literal> lits;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::StrAppend(&params, i ? ", " : "", "%a", i, ": ", t);
    absl::StrAppend(&operands, i ? ", " : "", "%a", i);
    absl::StrAppend(&types, i ? ", " : "", t);
    std::string text = absl::StrCat("f64[", n, "] {");
    for (size_t k = 0; k < n; ++k) {
      absl::StrAppend(&text, k ? ", " : "",
                      absl::StrFormat("%.17g", args[i][k]));
    }
    auto lit = ParseLiteral(text + "}");
    EXPECT_TRUE(lit.ok()) << lit.status();
    lits.push_back(*std::move(lit));
  }
  const std::string text = absl::StrCat(
      "func.func @main(", params, ") -> ", t, " {\n  %0 = chlo.", op, " ",
      operands, " : ", types, " -> ", t, "\n  return %0 : ", t, "\n}\n");
  auto module = ParseStableHloModule(text, ParseOptions{.file_name = op});
  EXPECT_TRUE(module.ok()) << module.status();
  std::vector<double> out;
  if (!module.ok()) return out;
  EXPECT_TRUE(VerifyModule(**module).ok());
  Evaluator evaluator;
  auto result = evaluator.Evaluate(**module, lits);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return out;
  for (size_t k = 0; k < n; ++k) out.push_back(result->GetAsDouble(k));
  return out;
}

void ExpectRelativelyNear(const std::string& op,
                          const std::vector<std::vector<double>>& args,
                          const std::vector<double>& want, double tolerance) {
  std::vector<double> got = EvalChlo(op, args);
  ASSERT_EQ(got.size(), want.size()) << op;
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_LE(std::fabs(got[k] - want[k]), tolerance * std::fabs(want[k]))
        << op << " point " << k << ": got " << absl::StrFormat("%.17g", got[k])
        << ", scipy " << absl::StrFormat("%.17g", want[k]);
  }
}

// The expansions of lgamma, digamma, erf_inv, erfc, bessel_i1e, zeta and
// polygamma (f64) at points away from the functions' zeros, against
// scipy.special 1.17.1 (gammaln, digamma, erfinv, erfc, i1e, zeta,
// polygamma)
// evaluated in float64. The tolerances are about 3x the largest relative
// error XLA:CPU's own expansion shows against scipy on 600-900 random
// points (spec/stablehlo/chlo_vs_xla.py): the approximation error of
// XLA's formulas, which hloref reproduces.
TEST(StableHloReaderTest, ChloExpansionsMatchScipy) {
  const std::vector<double> g = {0.25,    1.5,  3.75,  10.0,
                                 123.456, -0.5, -2.25, -7.75};
  ExpectRelativelyNear(
      "lgamma", {g},
      {1.2880225246980774, -0.12078223763524526, 1.4868155785934172,
       12.801827480081469, 469.6055471299295, 1.2655121234846454,
       0.5555015450206474, -8.581847763551867},
      1e-13);
  ExpectRelativelyNear(
      "digamma", {g},
      {-4.2274535333762655, 0.03648997397857652, 1.1825373886117962,
       2.251752589066721, 4.811829323828985, 0.03648997397857651,
       4.158583564657972, -1.0307688328309312},
      2e-13);
  ExpectRelativelyNear(
      "erf_inv",
      {{-0.9, -0.3, 0.001, 0.5, 0.95, 0.999, 0.99999999, -0.9999999999}},
      {-1.1630871536766743, -0.2724627147267544, 0.000886227157466552,
       0.4769362762044699, 1.3859038243496775, 2.326753765513524,
       4.052237243268763, -4.572824958544925},
      3e-10);
  // erfc: XLA:CPU's expansion is within 1.1e-15 of scipy (f64).
  ExpectRelativelyNear(
      "erfc", {{-3.0, -1.0, -0.25, 0.0, 0.5, 1.0, 2.5, 7.5, 9.0, 20.0}},
      {1.9999779095030015, 1.8427007929497148, 1.276326390168237, 1.0,
       0.4795001221869535, 0.15729920705028516, 0.00040695201744495886,
       2.7766493860305694e-26, 4.137031746513811e-37, 5.395865611607901e-176},
      4e-15);
  ExpectRelativelyNear(
      "bessel_i1e", {{-20.0, -3.5, -0.25, 0.001, 1.0, 7.5, 8.5, 100.0}},
      {-0.08750622218328867, -0.18739997660304997, -0.0981126286973682,
       0.0004995003123542213, 0.2079104153497085, 0.13804121154855414,
       0.13054935509459586, 0.03974415302513025},
      4e-15);
  ExpectRelativelyNear(
      "zeta",
      {{2.0, 3.5, 1.5, 6.0, 11.0, 4.25}, {1.0, 0.25, 10.0, 2.75, 0.5, 100.0}},
      {1.6449340668482266, 128.54695896428433, 0.6486616319415703,
       0.0028067390129189766, 2048.011604072633, 9.889318903316971e-08},
      2e-15);
  ExpectRelativelyNear(
      "polygamma", {{1, 2, 3, 4, 0, 1}, {0.5, 3.25, 1.0, 7.5, 2.5, 20.0}},
      {4.93480220054468, -0.12815694713911513, 6.493939402266829,
       -0.002457482989368555, 0.7031566406452432, 0.051270822935203124},
      1e-13);
}

// next_after against numpy.nextafter (float64): the neighbour toward y,
// the smallest subnormal from zero, y itself when x == y (signed zeros);
// NaN in, NaN out; domain points of the others by their definitions.
TEST(StableHloReaderTest, ChloExpansionsExactPoints) {
  std::vector<double> next =
      EvalChlo("next_after", {{1.0, 1.0, 0.0, -0.0, -1.5, 5e-324, NAN},
                              {2.0, 0.0, -1.0, 0.0, -2.0, 0.0, 1.0}});
  ASSERT_EQ(next.size(), 7u);
  EXPECT_EQ(next[0], 1.0000000000000002);
  EXPECT_EQ(next[1], 0.9999999999999999);
  EXPECT_EQ(next[2], -5e-324);
  EXPECT_EQ(next[3], 0.0);
  EXPECT_FALSE(std::signbit(next[3]));
  EXPECT_EQ(next[4], -1.5000000000000002);
  EXPECT_EQ(next[5], 0.0);
  EXPECT_TRUE(std::isnan(next[6]));
  // lgamma: +inf at the poles (x = 0, -3) and at +-inf; digamma: NaN at
  // the poles; zeta(1, q) = +inf (the harmonic series), zeta(x < 1) = NaN;
  // polygamma of a non-natural n is NaN; erf_inv(+-1) = +-inf.
  std::vector<double> lg =
      EvalChlo("lgamma", {{0.0, -3.0, INFINITY, -INFINITY}});
  for (double v : lg) EXPECT_EQ(v, INFINITY);
  std::vector<double> dg = EvalChlo("digamma", {{0.0, -3.0}});
  for (double v : dg) EXPECT_TRUE(std::isnan(v));
  std::vector<double> z = EvalChlo("zeta", {{1.0, 0.5}, {2.0, 2.0}});
  EXPECT_EQ(z[0], INFINITY);
  EXPECT_TRUE(std::isnan(z[1]));
  std::vector<double> pg = EvalChlo("polygamma", {{1.5, -1.0}, {2.0, 2.0}});
  for (double v : pg) EXPECT_TRUE(std::isnan(v));
  std::vector<double> ei = EvalChlo("erf_inv", {{1.0, -1.0}});
  EXPECT_EQ(ei[0], INFINITY);
  EXPECT_EQ(ei[1], -INFINITY);
}

// Types the expansions do not take are refused with the reason.
TEST(StableHloReaderTest, ChloExpansionOfIntegersIsNotSupported) {
  std::string e = ErrorOf(
      "func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {\n"
      "  %0 = chlo.lgamma %a : tensor<2xi32> -> tensor<2xi32>\n"
      "  return %0 : tensor<2xi32>\n}\n");
  EXPECT_TRUE(absl::StrContains(e,
                                "t.mlir:2:8: error: not supported: "
                                "chlo.lgamma of s32"))
      << e;
}

// infeed / outfeed / send / recv as XLA's StableHLO -> HLO conversion
// writes them (jaxlib mlir_module_to_xla_computation on this module
// prints the same instructions), run on the oracle with host queues: the
// values go through unchanged (data movement), so the expected results
// are the values queued and passed.
TEST(StableHloReaderTest, HostTransfersRoundTrip) {
  const std::string text =
      "module @io {\n"
      "  func.func public @main(%x: tensor<2xf32>, %y: tensor<3xi32>) -> "
      "(tensor<2xf32>, tensor<3xi32>, tensor<2xf32>) {\n"
      "    %t = stablehlo.create_token : !stablehlo.token\n"
      "    %r:3 = \"stablehlo.infeed\"(%t) <{infeed_config = \"cfg\", layout "
      "= [[0], [0]]}> : (!stablehlo.token) -> (tensor<2xf32>, "
      "tensor<3xi32>, !stablehlo.token)\n"
      "    %t2 = \"stablehlo.outfeed\"(%x, %y, %r#2) <{outfeed_config = "
      "\"\"}> : (tensor<2xf32>, tensor<3xi32>, !stablehlo.token) -> "
      "!stablehlo.token\n"
      "    %t3 = \"stablehlo.send\"(%x, %t2) <{channel_handle = "
      "#stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = "
      "true}> : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token\n"
      "    %v:2 = \"stablehlo.recv\"(%t3) <{channel_handle = "
      "#stablehlo.channel_handle<handle = 6, type = 3>, is_host_transfer = "
      "true}> : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)\n"
      "    return %r#1, %r#0, %v#0 : tensor<3xi32>, tensor<2xf32>, "
      "tensor<2xf32>\n  }\n}\n";
  auto hlo = StableHloToHloText(text, "io.mlir");
  ASSERT_TRUE(hlo.ok()) << hlo.status();
  for (const char* want :
       {"((f32[2], s32[3]), token[]) infeed(", "infeed_config=\"cfg\"",
        "token[] outfeed(", "outfeed_shape=(f32[2], s32[3])",
        "(f32[2], u32[], token[]) send(", "channel_id=5, is_host_transfer=true",
        "token[] send-done(", "(f32[2], u32[], token[]) recv(",
        "(f32[2], token[]) recv-done("}) {
    EXPECT_TRUE(absl::StrContains(*hlo, want)) << want << "\n" << *hlo;
  }
  auto module = ParseStableHloModule(text, ParseOptions{.file_name = "io"});
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok()) << VerifyModule(**module);
  HostQueues queues;
  queues.PushInfeed(*ParseLiteral("(f32[2], s32[3]) ({1.5, -2}, {7, 8, 9})"));
  queues.PushRecv(6, *ParseLiteral("f32[2] {0.25, 4}"));
  EvaluatorOptions options;
  options.host_queues = &queues;
  Evaluator evaluator(options);
  auto result = evaluator.Evaluate(
      **module,
      {*ParseLiteral("f32[2] {3, -0}"), *ParseLiteral("s32[3] {1, 2, 3}")});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->ToString(),
            ParseLiteral("(s32[3], f32[2], f32[2]) ({7, 8, 9}, {1.5, -2}, "
                         "{0.25, 4})")
                ->ToString());
  std::vector<Literal> out = queues.TakeOutfeed();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].ToString(),
            ParseLiteral("(f32[2], s32[3]) ({3, -0}, {1, 2, 3})")->ToString());
  std::vector<Literal> sent = queues.TakeSent(5);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].ToString(), ParseLiteral("f32[2] {3, -0}")->ToString());
}

// dynamic_reshape to a bounded result: HLO's dynamic-reshape with the
// shape operand's elements as sizes (run time 3 x 2 within bounds 3 x 2,
// row-major values by hand).
TEST(StableHloReaderTest, DynamicReshapeToBoundedResult) {
  auto module = ParseStableHloModule(
      "func.func @main(%x: tensor<2x3xi32>, %s: tensor<2xi32>) -> "
      "tensor<?x?xi32, #stablehlo.bounds<3, 2>> {\n"
      "  %0 = stablehlo.dynamic_reshape %x, %s : (tensor<2x3xi32>, "
      "tensor<2xi32>) -> tensor<?x?xi32, #stablehlo.bounds<3, 2>>\n"
      "  return %0 : tensor<?x?xi32, #stablehlo.bounds<3, 2>>\n}\n",
      ParseOptions{.file_name = "t.mlir"});
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok()) << VerifyModule(**module);
  Evaluator evaluator;
  auto result = evaluator.Evaluate(
      **module, {*ParseLiteral("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"),
                 *ParseLiteral("s32[2] {3, 2}")});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->shape().ToString(false), "s32[<=3,<=2]");
  EXPECT_EQ(result->dynamic_sizes(), (std::vector<int64_t>{3, 2}));
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(result->GetAsInt64(i), i + 1);
}

// The module `text` run on every replica with participant r's argument
// `args[r]`; participant r's result as text.
std::vector<std::string> RunOnReplicas(const std::string& text,
                                       const std::vector<std::string>& args) {
  auto module = ParseStableHloModule(text, ParseOptions{.file_name = "t.mlir"});
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  EXPECT_TRUE(VerifyModule(**module).ok()) << VerifyModule(**module);
  std::vector<std::vector<Literal>> all;
  for (const std::string& a : args) {
    auto lit = ParseLiteral(a);
    EXPECT_TRUE(lit.ok()) << lit.status();
    all.emplace_back();
    all.back().push_back(*std::move(lit));
  }
  Evaluator evaluator;
  auto results = evaluator.RunReplicated(**module, all);
  EXPECT_TRUE(results.ok()) << results.status();
  std::vector<std::string> out;
  if (!results.ok()) return out;
  for (const EvalResult& r : *results) out.push_back(r.value.ToString());
  return out;
}

// Literal texts as Literal::ToString prints them.
std::vector<std::string> Canonical(const std::vector<std::string>& texts) {
  std::vector<std::string> out;
  for (const std::string& t : texts) {
    auto lit = ParseLiteral(t);
    EXPECT_TRUE(lit.ok()) << t << ": " << lit.status();
    out.push_back(lit.ok() ? lit->ToString() : t);
  }
  return out;
}

// all_to_all with split_dimension != concat_dimension (HLO all-to-all,
// reshape, transpose, reshape). Expected values by hand from the
// StableHLO spec: replica j receives chunk j (along split_dimension) of
// every replica's operand, concatenated along concat_dimension in the
// order of the sending replicas.
TEST(StableHloReaderTest, AllToAllSplitAndConcatDiffer) {
  // 2 replicas, x_r = f32[4,2] {{10r, 10r+1}, ..., {10r+6, 10r+7}}: split
  // rows into 2 chunks of 2 rows, concatenate along columns.
  const std::string two =
      "module @a2a attributes {mhlo.num_replicas = 2 : i32} {\n"
      "  func.func public @main(%x: tensor<4x2xf32>) -> tensor<2x4xf32> {\n"
      "    %0 = \"stablehlo.all_to_all\"(%x) <{concat_dimension = 1 : i64, "
      "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : "
      "i64, split_dimension = 0 : i64}> : (tensor<4x2xf32>) -> "
      "tensor<2x4xf32>\n"
      "    return %0 : tensor<2x4xf32>\n  }\n}\n";
  EXPECT_EQ(RunOnReplicas(two, {"f32[4,2] {{0, 1}, {2, 3}, {4, 5}, {6, 7}}",
                                "f32[4,2] {{10, 11}, {12, 13}, {14, 15}, "
                                "{16, 17}}"}),
            Canonical({"f32[2,4] {{0, 1, 10, 11}, {2, 3, 12, 13}}",
                       "f32[2,4] {{4, 5, 14, 15}, {6, 7, 16, 17}}"}));
  // 3 replicas, x_r = s32[2,3] {{10r, 10r+1, 10r+2}, {10r+3, 10r+4, 10r+5}}:
  // split columns (one each), concatenate along rows: replica j gets
  // column j of x_0, x_1, x_2 stacked.
  const std::string three =
      "module @a2a attributes {mhlo.num_replicas = 3 : i32} {\n"
      "  func.func public @main(%x: tensor<2x3xi32>) -> tensor<6x1xi32> {\n"
      "    %0 = \"stablehlo.all_to_all\"(%x) <{concat_dimension = 0 : i64, "
      "replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>, split_count = 3 "
      ": i64, split_dimension = 1 : i64}> : (tensor<2x3xi32>) -> "
      "tensor<6x1xi32>\n"
      "    return %0 : tensor<6x1xi32>\n  }\n}\n";
  EXPECT_EQ(RunOnReplicas(three, {"s32[2,3] {{0, 1, 2}, {3, 4, 5}}",
                                  "s32[2,3] {{10, 11, 12}, {13, 14, 15}}",
                                  "s32[2,3] {{20, 21, 22}, {23, 24, 25}}"}),
            Canonical({"s32[6,1] {{0}, {3}, {10}, {13}, {20}, {23}}",
                       "s32[6,1] {{1}, {4}, {11}, {14}, {21}, {24}}",
                       "s32[6,1] {{2}, {5}, {12}, {15}, {22}, {25}}"}));
}

}  // namespace
}  // namespace hloref
