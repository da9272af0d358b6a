// Tokens of the HLO text format (section 1 of docs/hlo-text-format.md).
// The lexer is position based: Lex(offset) skips whitespace and comments
// and returns the token starting there, so the parser can look ahead,
// back up, and switch to raw character scanning (JSON-dict values,
// unknown attributes, extended layout fields) and resume afterwards.
#ifndef HLOREF_SPEC_IR_HLO_LEXER_H_
#define HLOREF_SPEC_IR_HLO_LEXER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace hloref {

enum class TokKind : uint8_t {
  kEof,
  kError,      // `error` says why
  kLbrace,     // {
  kRbrace,     // }
  kLparen,     // (
  kRparen,     // )
  kLsquare,    // [
  kRsquare,    // ]
  kComma,      // ,
  kColon,      // :
  kEqual,      // =
  kArrow,      // ->
  kLeq,        // <=
  kDots,       // ...
  kHash,       // #
  kStar,       // *
  kQuestion,   // ?
  kIdent,      // identifier, keyword or opcode word; `percent` if `%x`
  kAttrName,   // identifier immediately followed by `=` (consumed)
  kNameColon,  // identifier immediately followed by `:` (consumed)
  kInt,        // -?[0-9]+
  kDecimal,    // float literal, incl. -inf, -nan, nan(0x..)
  kString,     // "..." or '...'; `text` is the unescaped value
  kDxD,        // 3x3, 1x2x2x1
  kPad,        // 0_0x1_2_1, -1_2
  kDimLabels,  // b01f_01io->b01f
};

struct Token {
  TokKind kind = TokKind::kEof;
  size_t start = 0;  // offset of the first character
  size_t end = 0;    // offset one past the last character
  // Identifier text without `%` / trailing `=`/`:`; the unescaped string;
  // the raw text of numbers and compound tokens.
  std::string text;
  bool percent = false;
  // kInt: magnitude and sign (values up to 2^64-1).
  uint64_t int_magnitude = 0;
  bool negative = false;
  // kDecimal (and kInt as a float): the value; nan_payload for nan(0x..).
  double decimal = 0;
  bool has_nan_payload = false;
  uint64_t nan_payload = 0;
  std::string error;  // kError
};

class HloLexer {
 public:
  explicit HloLexer(absl::string_view text);

  absl::string_view text() const { return text_; }
  // The token at or after `offset` (whitespace and comments skipped).
  Token Lex(size_t offset) const;
  // Skips whitespace and comments; returns the offset of the next token or
  // of the end of text; sets *error on an unterminated comment.
  size_t SkipSpace(size_t offset, std::string* error) const;
  // Raw scan of a balanced value starting at `offset` (which must hold
  // `{`, `(` or `[`): returns the offset just past the matching closer.
  // Double-quoted strings are skipped (braces in them do not count).
  // Returns npos and sets *error when unbalanced.
  size_t ScanBalanced(size_t offset, std::string* error) const;
  // Raw scan of an attribute value of unknown syntax starting at `offset`:
  // a balanced bracket group, or characters up to a top-level `,` or
  // newline. Returns the end offset (npos + *error on failure).
  size_t ScanRawValue(size_t offset, std::string* error) const;

  // 1-based line and column of an offset.
  void LineColumn(size_t offset, int* line, int* column) const;

  static bool IsIdentStart(char c);
  static bool IsIdentChar(char c);

 private:
  Token LexNumberOrPattern(size_t start) const;
  Token LexString(size_t start) const;
  bool MatchDimLabels(size_t start, size_t* end) const;

  absl::string_view text_;
  std::vector<size_t> line_starts_;
};

}  // namespace hloref

#endif  // HLOREF_SPEC_IR_HLO_LEXER_H_
