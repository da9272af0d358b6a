// Reading HLO text as XLA and JAX print it (docs/hlo-text-format.md).
#ifndef HLOREF_SPEC_IR_HLO_PARSER_H_
#define HLOREF_SPEC_IR_HLO_PARSER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"
#include "spec/types/shape.h"

namespace hloref {

struct ParseOptions {
  // Name used in locations ("model.hlo:12:5"); empty prints "12:5".
  std::string file_name;
  // Warnings (unknown header attributes, skipped harmless attributes, a
  // bare scalar for an array constant, ...) are appended here if non-null.
  std::vector<std::string>* warnings = nullptr;
  // Refuse any shape with more elements than this (a clear error instead
  // of an allocation failure).
  int64_t max_elements = int64_t{1} << 32;
};

// Parses a whole module (with or without the HloModule header). Errors are
// InvalidArgument "file:line:col: error: <what>, near '<token>'" and carry
// the location payload of hlo_module.h. The result is parsed, not verified.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, const ParseOptions& options = {});
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleFile(
    const std::string& path, ParseOptions options = {});

// `f32[2,3]{1,0}`, `(f32[], token[])`.
absl::StatusOr<Shape> ParseShape(absl::string_view text);
// A literal with its shape: `f32[2] {1, 2}`, `(f32[], s32[]) (1, 2)`,
// `pred[] true`.
absl::StatusOr<Literal> ParseLiteral(absl::string_view text);
// A literal value without shape, for a known shape: `{1, 2}`.
absl::StatusOr<Literal> ParseLiteralWithShape(const Shape& shape,
                                              absl::string_view text);

}  // namespace hloref

#endif  // HLOREF_SPEC_IR_HLO_PARSER_H_
