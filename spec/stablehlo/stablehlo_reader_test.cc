// Tests of the StableHLO reader: every testdata/*.mlir file (hand-written,
// pretty and generic op forms) is read, verified and evaluated on the
// oracle with its `// ARG:` values, and each result must equal its
// `// EXPECT:` line (values derived by hand, see each file's comment);
// then the errors for input without an HLO counterpart.
#include "spec/stablehlo/stablehlo_reader.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
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
  std::string e = ErrorOf(
      "func.func @main(%a: tensor<2xf32>, %s: tensor<1xi32>) -> "
      "tensor<2xf32> {\n"
      "  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<2xf32>, "
      "tensor<1xi32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n");
  EXPECT_TRUE(absl::StartsWith(e,
                               "t.mlir:2:8: error: not supported: "
                               "stablehlo.dynamic_reshape"))
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

}  // namespace
}  // namespace hloref
