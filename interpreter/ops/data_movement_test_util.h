// Test helpers for the data-movement, control-flow, sort and async family
// tests: run an HLO text module through parser, verifier and evaluator, and
// write array literals of any element type from small integer values.
#ifndef HLOREF_INTERPRETER_OPS_DATA_MOVEMENT_TEST_UTIL_H_
#define HLOREF_INTERPRETER_OPS_DATA_MOVEMENT_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/literal.h"
#include "spec/verifier/verifier.h"

namespace hloref {
namespace testing_dm {

// Parses, verifies and runs `text` on `args`.
inline absl::StatusOr<EvalResult> RunHlo(absl::string_view text,
                                         std::vector<Literal> args = {},
                                         EvaluatorOptions options = {}) {
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          ParseHloModule(text));
  HLOREF_RETURN_IF_ERROR(VerifyModule(*module));
  Evaluator evaluator(options);
  return evaluator.Run(*module, args);
}

// Parses a literal with its shape (`f32[2] {1, 2}`); a parse error fails
// the test and gives an invalid literal.
inline Literal Lit(absl::string_view text) {
  absl::StatusOr<Literal> literal = ParseLiteral(text);
  EXPECT_TRUE(literal.ok()) << text << ": " << literal.status();
  return literal.ok() ? *std::move(literal) : Literal();
}

// Element types covering every type class, for data-movement sweeps.
inline const std::vector<std::string>& SweepTypes() {
  static const auto* types = new std::vector<std::string>{
      "pred", "s4",       "s8",     "s16",        "s32", "s64",  "u4",
      "u8",   "u16",      "u32",    "u64",        "f16", "bf16", "f32",
      "f64",  "f8e4m3fn", "f8e5m2", "f8e4m3fnuz", "c64", "c128"};
  return *types;
}

// The text of small value v (0..7) in `type`, chosen so that distinct v
// stay distinct where the type allows (pred keeps v's parity): signed types
// are negated, complex gets an imaginary part.
inline std::string Val(absl::string_view type, int64_t v) {
  if (type == "pred") return v % 2 ? "true" : "false";
  if (type[0] == 's') return absl::StrCat(-v);
  if (type[0] == 'c') return absl::StrCat("(", v, ", ", 8 - v, ")");
  return absl::StrCat(v);
}

// The value text `{...}` of `values` (row-major, each 0..7) nested by dims.
inline std::string Nest(absl::string_view type, std::vector<int64_t> dims,
                        std::vector<int64_t> values) {
  size_t pos = 0;
  std::function<std::string(size_t)> nest = [&](size_t d) -> std::string {
    if (d == dims.size()) return Val(type, values[pos++]);
    std::vector<std::string> parts;
    for (int64_t i = 0; i < dims[d]; ++i) parts.push_back(nest(d + 1));
    return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
  };
  return nest(0);
}

// `type[dims] {...}`: a literal with its shape.
inline std::string Arr(absl::string_view type, std::vector<int64_t> dims,
                       std::vector<int64_t> values) {
  return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "] ",
                      Nest(type, dims, std::move(values)));
}

// The shape text `type[dims]`.
inline std::string Shp(absl::string_view type, std::vector<int64_t> dims) {
  return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]");
}

// A module whose entry holds the constant `c` (type[dims] with values) and
// the root line `root` (which refers to %c), e.g.
//   "ROOT r = f32[3,2] transpose(c), dimensions={1,0}".
inline std::string OneConstantModule(absl::string_view type,
                                     std::vector<int64_t> dims,
                                     std::vector<int64_t> values,
                                     absl::string_view root) {
  return absl::StrCat("HloModule m\nENTRY e {\n  c = ", Shp(type, dims),
                      " constant(", Nest(type, dims, std::move(values)),
                      ")\n  ", root, "\n}\n");
}

// Runs `text` and expects the root value to equal `expected` bit for bit.
inline void ExpectRootEquals(absl::string_view text, absl::string_view expected,
                             std::vector<Literal> args = {}) {
  absl::StatusOr<EvalResult> result = RunHlo(text, std::move(args));
  ASSERT_TRUE(result.ok()) << result.status() << "\n" << text;
  Literal want = Lit(expected);
  EXPECT_EQ(result->value, want) << "got " << result->value.ToString()
                                 << "\nwant " << want.ToString() << "\n"
                                 << text;
}

}  // namespace testing_dm
}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_DATA_MOVEMENT_TEST_UTIL_H_
