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
  // Shapes may have any size (up to 2^63 - 1 elements): a valid module is
  // read whatever its shapes. What the parser allocates is limited: a
  // literal written in the text, or an elided one (`{...}`, whose storage
  // is allocated but left unwritten), may take at most this many bytes; beyond
  // it the error names `limit_flag`, the option that raises the limit for
  // the user (the hloref command's --max-bytes).
  int64_t max_literal_bytes = int64_t{16} << 30;
  std::string limit_flag = "--max-bytes";
};

// Result shapes written nowhere: for an instruction without a shape before
// its opcode, the parser infers what it can itself (tuple, get-tuple-
// element, elementwise ops, compare, select, broadcast, ...). For the other
// opcodes whose shape XLA's parser infers (CanInferShape in XLA's
// hlo_parser.cc: dot, ragged-dot, convolution, reduce, gather, scatter,
// sort, while, call, ...) it asks this hook, which the verifier library
// installs (spec/verifier/verifier.cc: its InferShape). The hook sees the
// instruction with operands, attributes and called computations and a
// placeholder shape whose element type is XLA's default result type (for
// the dot family and convolution the higher-precision operand type, XLA's
// HigherPrecisionElementType). Without a hook such instructions are
// refused with "write the shape".
using ShapeInferenceHook = absl::StatusOr<Shape> (*)(const HloInstruction&);
void SetShapeInferenceHook(ShapeInferenceHook hook);

// XLA's default result element type of a dot or convolution of `a` and `b`
// without preferred_element_type (primitive_util::HigherPrecisionType):
// complex over real, then floats by range (overflow exponent), then by
// precision, then wider, then signed over unsigned.
PrimitiveType HigherPrecisionType(PrimitiveType a, PrimitiveType b);

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
// `pred[] true`. options.max_literal_bytes limits what is allocated, as
// for a module's constants.
absl::StatusOr<Literal> ParseLiteral(absl::string_view text,
                                     const ParseOptions& options = {});
// A literal value without shape, for a known shape: `{1, 2}`.
absl::StatusOr<Literal> ParseLiteralWithShape(const Shape& shape,
                                              absl::string_view text,
                                              const ParseOptions& options = {});

}  // namespace hloref

#endif  // HLOREF_SPEC_IR_HLO_PARSER_H_
