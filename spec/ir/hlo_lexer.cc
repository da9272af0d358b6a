// The HLO text lexer. Compound tokens (dim labels, DxD, padding) are
// matched by hand-written scanners instead of regular expressions; every
// scanner is a single forward pass, so no input can make lexing slow.
#include "spec/ir/hlo_lexer.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace hloref {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace

bool HloLexer::IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool HloLexer::IsIdentChar(char c) {
  return IsIdentStart(c) || IsDigit(c) || c == '.' || c == '-';
}

HloLexer::HloLexer(absl::string_view text) : text_(text) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

void HloLexer::LineColumn(size_t offset, int* line, int* column) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t index = static_cast<size_t>(it - line_starts_.begin()) - 1;
  *line = static_cast<int>(index + 1);
  *column = static_cast<int>(offset - line_starts_[index] + 1);
}

size_t HloLexer::SkipSpace(size_t pos, std::string* error) const {
  const size_t n = text_.size();
  while (pos < n) {
    char c = text_[pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      ++pos;
    } else if (c == '/' && pos + 1 < n && text_[pos + 1] == '*') {
      size_t close = text_.find("*/", pos + 2);
      if (close == absl::string_view::npos) {
        *error = "unterminated /* comment";
        return pos;
      }
      pos = close + 2;
    } else if (c == '/' && pos + 1 < n && text_[pos + 1] == '/') {
      while (pos < n && text_[pos] != '\n' && text_[pos] != '\r') ++pos;
    } else {
      break;
    }
  }
  return pos;
}

bool HloLexer::MatchDimLabels(size_t start, size_t* end) const {
  // [0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}
  const size_t n = text_.size();
  size_t p = start;
  auto run = [&](absl::string_view letters) {
    size_t count = 0;
    while (p < n && (IsDigit(text_[p]) || text_[p] == '?' ||
                     letters.find(text_[p]) != absl::string_view::npos)) {
      ++p;
      ++count;
    }
    return count;
  };
  if (run("bf") < 2) return false;
  if (p >= n || text_[p] != '_') return false;
  ++p;
  if (run("io") < 2) return false;
  if (p + 1 >= n || text_[p] != '-' || text_[p + 1] != '>') return false;
  p += 2;
  if (run("bf") < 2) return false;
  if (p < n && IsIdentChar(text_[p])) return false;
  *end = p;
  return true;
}

Token HloLexer::LexString(size_t start) const {
  Token tok;
  tok.start = start;
  const char quote = text_[start];
  size_t p = start + 1;
  const size_t n = text_.size();
  while (p < n && text_[p] != quote) {
    if (text_[p] == '\\') ++p;
    ++p;
  }
  if (p >= n) {
    tok.kind = TokKind::kError;
    tok.end = n;
    tok.error = "unterminated string";
    return tok;
  }
  tok.end = p + 1;
  std::string error;
  absl::string_view body = text_.substr(start + 1, p - start - 1);
  if (!absl::CUnescape(body, &tok.text, &error)) {
    tok.kind = TokKind::kError;
    tok.error = absl::StrCat("invalid escape in string: ", error);
    return tok;
  }
  tok.kind = TokKind::kString;
  return tok;
}

Token HloLexer::LexNumberOrPattern(size_t start) const {
  const size_t n = text_.size();
  Token tok;
  tok.start = start;
  size_t p = start;
  auto digits = [&]() {
    size_t s = p;
    while (p < n && IsDigit(text_[p])) ++p;
    return p - s;
  };
  auto fail = [&](absl::string_view why) {
    tok.kind = TokKind::kError;
    tok.end = std::max(p, start + 1);
    tok.error = std::string(why);
    return tok;
  };
  const bool neg = text_[p] == '-';
  if (neg) ++p;
  size_t int_digits = digits();
  if (int_digits == 0) {
    // Only "-.5" reaches here with a digit after the dot.
    if (!(neg && p + 1 < n && text_[p] == '.' && IsDigit(text_[p + 1]))) {
      return fail("malformed number");
    }
  }
  // Padding: -?N_-?N(_N)?(x-?N_-?N(_N)?)*
  if (int_digits > 0 && p < n && text_[p] == '_') {
    p = start;
    while (true) {
      if (p < n && text_[p] == '-') ++p;
      if (digits() == 0) return fail("malformed padding");
      if (p >= n || text_[p] != '_') return fail("malformed padding");
      ++p;
      if (p < n && text_[p] == '-') ++p;
      if (digits() == 0) return fail("malformed padding");
      if (p < n && text_[p] == '_') {
        ++p;
        if (digits() == 0) return fail("malformed padding");
      }
      if (p + 1 < n && text_[p] == 'x' &&
          (IsDigit(text_[p + 1]) || text_[p + 1] == '-')) {
        ++p;
        continue;
      }
      break;
    }
    tok.kind = TokKind::kPad;
    tok.end = p;
    tok.text = std::string(text_.substr(start, p - start));
    return tok;
  }
  // DxD: N(xN)+
  if (!neg && int_digits > 0 && p + 1 < n && text_[p] == 'x' &&
      IsDigit(text_[p + 1])) {
    while (p + 1 < n && text_[p] == 'x' && IsDigit(text_[p + 1])) {
      ++p;
      digits();
    }
    tok.kind = TokKind::kDxD;
    tok.end = p;
    tok.text = std::string(text_.substr(start, p - start));
    return tok;
  }
  bool is_decimal = false;
  if (p < n && text_[p] == '.') {
    is_decimal = true;
    ++p;
    digits();
  }
  if (p < n && (text_[p] == 'e' || text_[p] == 'E')) {
    size_t save = p;
    ++p;
    if (p < n && (text_[p] == '+' || text_[p] == '-')) ++p;
    if (digits() == 0) {
      p = save;  // `1e` is `1` followed by an identifier
    } else {
      is_decimal = true;
    }
  }
  tok.end = p;
  tok.text = std::string(text_.substr(start, p - start));
  if (is_decimal) {
    tok.kind = TokKind::kDecimal;
    errno = 0;
    tok.decimal = std::strtod(tok.text.c_str(), nullptr);
    tok.negative = neg;
    return tok;
  }
  // Integer: magnitude up to 2^64-1.
  uint64_t value = 0;
  for (size_t i = start + (neg ? 1 : 0); i < p; ++i) {
    uint64_t d = static_cast<uint64_t>(text_[i] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      return fail("integer literal out of range (more than 2^64-1)");
    }
    value = value * 10 + d;
  }
  tok.kind = TokKind::kInt;
  tok.int_magnitude = value;
  tok.negative = neg;
  tok.decimal = static_cast<double>(value);
  if (neg) tok.decimal = -tok.decimal;
  return tok;
}

Token HloLexer::Lex(size_t offset) const {
  Token tok;
  std::string error;
  size_t pos = SkipSpace(offset, &error);
  tok.start = pos;
  const size_t n = text_.size();
  if (!error.empty()) {
    tok.kind = TokKind::kError;
    tok.end = n;
    tok.error = error;
    return tok;
  }
  if (pos >= n) {
    tok.kind = TokKind::kEof;
    tok.end = n;
    return tok;
  }
  const char c = text_[pos];
  auto single = [&](TokKind kind) {
    tok.kind = kind;
    tok.end = pos + 1;
    tok.text = std::string(1, c);
    return tok;
  };
  // Dim labels may start with a digit, `?`, `b` or `f`.
  if (IsDigit(c) || c == '?' || c == 'b' || c == 'f') {
    size_t end;
    if (MatchDimLabels(pos, &end)) {
      tok.kind = TokKind::kDimLabels;
      tok.end = end;
      tok.text = std::string(text_.substr(pos, end - pos));
      return tok;
    }
  }
  // `nan(0x7f)`: NaN with a payload. `p` points at "nan".
  auto lex_nan = [&](size_t p, bool negative) {
    Token t;
    t.start = pos;
    t.kind = TokKind::kDecimal;
    t.negative = negative;
    t.decimal = negative ? -std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::quiet_NaN();
    size_t q = p + 3;
    if (q + 2 < n && text_[q] == '(' && text_[q + 1] == '0' &&
        (text_[q + 2] == 'x' || text_[q + 2] == 'X')) {
      size_t h = q + 3;
      uint64_t payload = 0;
      size_t count = 0;
      while (h < n && IsHexDigit(text_[h])) {
        char d = text_[h];
        uint64_t v = IsDigit(d) ? d - '0' : (d | 0x20) - 'a' + 10;
        if (count >= 16) {
          t.kind = TokKind::kError;
          t.end = h;
          t.error = "NaN payload too large";
          return t;
        }
        payload = payload * 16 + v;
        ++count;
        ++h;
      }
      if (count == 0 || h >= n || text_[h] != ')') {
        t.kind = TokKind::kError;
        t.end = std::min(h + 1, n);
        t.error = "malformed NaN payload, expected nan(0xHEX)";
        return t;
      }
      t.has_nan_payload = true;
      t.nan_payload = payload;
      q = h + 1;
    }
    t.end = q;
    t.text = std::string(text_.substr(pos, q - pos));
    return t;
  };
  auto word_at = [&](size_t p, absl::string_view word) {
    return text_.substr(p, word.size()) == word &&
           (p + word.size() >= n || !IsIdentChar(text_[p + word.size()]) ||
            text_[p + word.size()] == '(');
  };
  switch (c) {
    case '{':
      return single(TokKind::kLbrace);
    case '}':
      return single(TokKind::kRbrace);
    case '(':
      return single(TokKind::kLparen);
    case ')':
      return single(TokKind::kRparen);
    case '[':
      return single(TokKind::kLsquare);
    case ']':
      return single(TokKind::kRsquare);
    case ',':
      return single(TokKind::kComma);
    case ':':
      return single(TokKind::kColon);
    case '=':
      return single(TokKind::kEqual);
    case '#':
      return single(TokKind::kHash);
    case '*':
      return single(TokKind::kStar);
    case '?':
      return single(TokKind::kQuestion);
    case '"':
    case '\'':
      return LexString(pos);
    case '<':
      if (pos + 1 < n && text_[pos + 1] == '=') {
        tok.kind = TokKind::kLeq;
        tok.end = pos + 2;
        tok.text = "<=";
        return tok;
      }
      break;
    case '.':
      if (text_.substr(pos, 3) == "...") {
        tok.kind = TokKind::kDots;
        tok.end = pos + 3;
        tok.text = "...";
        return tok;
      }
      break;
    case '-':
      if (pos + 1 < n && text_[pos + 1] == '>') {
        tok.kind = TokKind::kArrow;
        tok.end = pos + 2;
        tok.text = "->";
        return tok;
      }
      if (pos + 1 < n && (IsDigit(text_[pos + 1]) || text_[pos + 1] == '.')) {
        return LexNumberOrPattern(pos);
      }
      if (word_at(pos + 1, "inf") && !(pos + 4 < n && text_[pos + 4] == '(')) {
        tok.kind = TokKind::kDecimal;
        tok.end = pos + 4;
        tok.text = "-inf";
        tok.negative = true;
        tok.decimal = -std::numeric_limits<double>::infinity();
        return tok;
      }
      if (word_at(pos + 1, "nan")) return lex_nan(pos + 1, true);
      break;
    case '%': {
      size_t p = pos + 1;
      if (p >= n || !IsIdentStart(text_[p])) break;
      while (p < n && IsIdentChar(text_[p])) ++p;
      tok.text = std::string(text_.substr(pos + 1, p - pos - 1));
      tok.percent = true;
      tok.kind = TokKind::kIdent;
      if (p < n && text_[p] == '=') {
        tok.kind = TokKind::kAttrName;
        ++p;
      } else if (p < n && text_[p] == ':') {
        tok.kind = TokKind::kNameColon;
        ++p;
      }
      tok.end = p;
      return tok;
    }
    default:
      break;
  }
  if (IsDigit(c)) return LexNumberOrPattern(pos);
  if (IsIdentStart(c)) {
    if (word_at(pos, "nan")) return lex_nan(pos, false);
    if (word_at(pos, "inf") && !(pos + 3 < n && text_[pos + 3] == '(')) {
      tok.kind = TokKind::kDecimal;
      tok.end = pos + 3;
      tok.text = "inf";
      tok.decimal = std::numeric_limits<double>::infinity();
      return tok;
    }
    size_t p = pos;
    while (p < n && IsIdentChar(text_[p])) ++p;
    tok.text = std::string(text_.substr(pos, p - pos));
    tok.kind = TokKind::kIdent;
    if (p < n && text_[p] == '=' && !(p + 1 < n && text_[p + 1] == '=')) {
      tok.kind = TokKind::kAttrName;
      ++p;
    } else if (p < n && text_[p] == ':') {
      tok.kind = TokKind::kNameColon;
      ++p;
    }
    tok.end = p;
    return tok;
  }
  tok.kind = TokKind::kError;
  tok.end = pos + 1;
  tok.text = std::string(1, c);
  tok.error =
      absl::StrCat("unexpected character '", absl::CEscape(tok.text), "'");
  return tok;
}

size_t HloLexer::ScanBalanced(size_t offset, std::string* error) const {
  const size_t n = text_.size();
  std::string closers;
  size_t p = offset;
  while (p < n) {
    char c = text_[p];
    if (c == '"') {
      ++p;
      while (p < n && text_[p] != '"') {
        if (text_[p] == '\\') ++p;
        ++p;
      }
      if (p >= n) break;
      ++p;
      continue;
    }
    if (c == '{') closers.push_back('}');
    if (c == '(') closers.push_back(')');
    if (c == '[') closers.push_back(']');
    if (c == '}' || c == ')' || c == ']') {
      if (closers.empty() || closers.back() != c) {
        *error = absl::StrCat("unbalanced '", std::string(1, c), "'");
        return absl::string_view::npos;
      }
      closers.pop_back();
      if (closers.empty()) return p + 1;
    }
    ++p;
  }
  *error = "unterminated bracketed value";
  return absl::string_view::npos;
}

size_t HloLexer::ScanRawValue(size_t offset, std::string* error) const {
  const size_t n = text_.size();
  if (offset < n &&
      (text_[offset] == '{' || text_[offset] == '(' || text_[offset] == '[')) {
    size_t end = ScanBalanced(offset, error);
    if (end == absl::string_view::npos) return end;
    // A group may be followed by more text (`[2,2]<=[4]`, `devices=[2]0,1`
    // never reaches here); keep only the group.
    return end;
  }
  size_t p = offset;
  while (p < n) {
    char c = text_[p];
    if (c == ',' || c == '\n' || c == '\r' || c == '}' || c == ')' ||
        c == ']') {
      break;
    }
    if (c == '{' || c == '(' || c == '[') {
      size_t end = ScanBalanced(p, error);
      if (end == absl::string_view::npos) return end;
      p = end;
      continue;
    }
    if (c == '"') {
      ++p;
      while (p < n && text_[p] != '"') {
        if (text_[p] == '\\') ++p;
        ++p;
      }
      if (p >= n) {
        *error = "unterminated string";
        return absl::string_view::npos;
      }
    }
    ++p;
  }
  return p;
}

}  // namespace hloref
