// Parsing StableHLO textual MLIR (generic and pretty op forms) into the
// syntax tree of mlir_ast.h. A character-level recursive-descent reader:
// MLIR's syntax is context sensitive (2x3xf32), so there is no token stream.
#include <cctype>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spec/stablehlo/mlir_ast.h"
#include "spec/util/status_macros.h"

namespace hloref::stablehlo {

std::string Type::ToHlo() const {
  if (kind == kToken) return "token[]";
  if (kind == kTuple) {
    std::vector<std::string> parts;
    for (const Type& t : elements) parts.push_back(t.ToHlo());
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  std::string out = absl::StrCat(PrimitiveTypeName(element), "[");
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d > 0) out += ",";
    if (dynamic[d]) out += "<=";
    absl::StrAppend(&out, dims[d]);
  }
  return out + "]";
}

const Attr* Attr::Find(absl::string_view key) const {
  for (const auto& [k, v] : dict) {
    if (k == key) return &v;
  }
  return nullptr;
}

const Attr* Op::Find(absl::string_view key) const {
  for (const auto& [k, v] : attrs) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

bool IsIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '$' || c == '-';
}

class Parser {
 public:
  Parser(absl::string_view text, std::string file)
      : text_(text), file_(std::move(file)) {}

  absl::StatusOr<MlirModule> ParseModule();

 private:
  // --- character level ---
  void SkipWs() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        line_start_ = pos_ + 1;
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() &&
                 text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  char Peek() {
    SkipWs();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  char PeekAt(size_t k) {
    SkipWs();
    return pos_ + k < text_.size() ? text_[pos_ + k] : '\0';
  }
  // The first character at or after pos_ + k that is not white space.
  char PeekNonSpaceAt(size_t k) {
    SkipWs();
    size_t i = pos_ + k;
    while (i < text_.size() && absl::ascii_isspace(text_[i])) ++i;
    return i < text_.size() ? text_[i] : '\0';
  }
  Loc Here() {
    SkipWs();
    return Loc{line_, static_cast<int>(pos_ - line_start_) + 1};
  }
  bool Consume(absl::string_view s) {
    SkipWs();
    if (absl::StartsWith(text_.substr(pos_), s)) {
      pos_ += s.size();
      return true;
    }
    return false;
  }
  // A whole word (not followed by an identifier character).
  bool ConsumeWord(absl::string_view w) {
    SkipWs();
    if (!absl::StartsWith(text_.substr(pos_), w)) return false;
    size_t end = pos_ + w.size();
    if (end < text_.size() && IsIdentChar(text_[end])) return false;
    pos_ = end;
    return true;
  }
  bool PeekWord(absl::string_view w) {
    size_t save = pos_;
    int save_line = line_;
    size_t save_start = line_start_;
    bool ok = ConsumeWord(w);
    pos_ = save;
    line_ = save_line;
    line_start_ = save_start;
    return ok;
  }
  absl::Status Error(Loc loc, absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat(file_.empty() ? "" : file_ + ":", loc.line, ":", loc.col,
                     ": error: ", what));
  }
  absl::Status ErrorHere(absl::string_view what) {
    Loc loc = Here();
    std::string near(text_.substr(pos_, 20));
    if (size_t nl = near.find('\n'); nl != std::string::npos) near.resize(nl);
    return Error(loc, absl::StrCat(what, ", near '", near, "'"));
  }
  absl::Status Expect(absl::string_view s) {
    if (Consume(s)) return absl::OkStatus();
    return ErrorHere(absl::StrCat("expected '", s, "'"));
  }
  std::string Ident() {
    SkipWs();
    size_t start = pos_;
    if (pos_ < text_.size() && IsIdentStart(text_[pos_])) {
      ++pos_;
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }
  // A quoted string with MLIR escapes (\", \\, \n, \t, \XX hex).
  absl::StatusOr<std::string> String() {
    HLOREF_RETURN_IF_ERROR(Expect("\""));
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\n') return ErrorHere("unterminated string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      char e = text_[pos_++];
      if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else if (std::isxdigit(static_cast<unsigned char>(e)) &&
                 pos_ < text_.size() &&
                 std::isxdigit(static_cast<unsigned char>(text_[pos_]))) {
        out += static_cast<char>(
            std::strtol(std::string{e, text_[pos_++]}.c_str(), nullptr, 16));
      } else {
        out += e;
      }
    }
    if (pos_ >= text_.size()) return ErrorHere("unterminated string");
    ++pos_;
    return out;
  }
  // A number token: -12, 1.5e+00, 0x7FC00000.
  std::string NumberText() {
    SkipWs();
    size_t start = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) {
      ++pos_;
    }
    if (absl::StartsWith(text_.substr(pos_), "0x")) {
      pos_ += 2;
      while (pos_ < text_.size() &&
             std::isxdigit(static_cast<unsigned char>(text_[pos_]))) {
        ++pos_;
      }
    } else {
      while (pos_ < text_.size()) {
        char c = text_[pos_];
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
          ++pos_;
        } else if ((c == 'e' || c == 'E') && pos_ + 1 < text_.size()) {
          ++pos_;
          if (text_[pos_] == '+' || text_[pos_] == '-') ++pos_;
        } else {
          break;
        }
      }
    }
    return std::string(text_.substr(start, pos_ - start));
  }
  bool PeekNumber() {
    char c = Peek();
    if (std::isdigit(static_cast<unsigned char>(c))) return true;
    return (c == '-' || c == '+') &&
           std::isdigit(static_cast<unsigned char>(PeekAt(1)));
  }
  absl::StatusOr<int64_t> Int() {
    Loc loc = Here();
    std::string t = NumberText();
    int64_t v;
    if (!absl::SimpleAtoi(t, &v)) {
      return Error(loc, absl::StrCat("expected an integer, got '", t, "'"));
    }
    return v;
  }
  // Skips a balanced (...) / <...> / [...] / {...} group starting at the
  // current opening character; strings inside are skipped whole.
  absl::Status SkipBalanced() {
    SkipWs();
    int depth = 0;
    do {
      if (pos_ >= text_.size()) return ErrorHere("unbalanced brackets");
      char c = text_[pos_];
      if (c == '"') {
        HLOREF_RETURN_IF_ERROR(String().status());
        continue;
      }
      if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
      if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
      if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
        pos_ += 2;  // an arrow inside, not a closing '>'
        continue;
      }
      if (c == '\n') {
        ++line_;
        line_start_ = pos_ + 1;
      }
      ++pos_;
    } while (depth > 0);
    return absl::OkStatus();
  }
  // `loc(...)` after an op, argument or function: skipped.
  absl::Status SkipLoc() {
    if (PeekWord("loc") && PeekAt(3) == '(') {
      ConsumeWord("loc");
      return SkipBalanced();
    }
    return absl::OkStatus();
  }

  // --- types ---
  absl::StatusOr<PrimitiveType> ElementType();
  absl::StatusOr<Type> ParseType();
  absl::StatusOr<std::vector<Type>> TypeListInParens();
  // --- attributes ---
  absl::StatusOr<Attr> AttrValue(bool allow_type_suffix = true);
  absl::StatusOr<std::vector<NamedAttr>> AttrDict();
  absl::Status DenseBody(Dense& dense);
  absl::Status DenseElements(Dense& dense);
  // --- ops ---
  absl::StatusOr<Op> ParseOp();
  absl::Status GenericOp(Op& op);
  absl::Status PrettyOp(Op& op);
  absl::Status PrettyItems(Op& op, bool in_parens);
  absl::Status Signature(Op& op);
  absl::StatusOr<Region> ParseRegion(std::vector<BlockArg> args);
  absl::StatusOr<std::vector<Op>> OpsUntilBrace();
  absl::StatusOr<BlockArg> ArgDecl();
  absl::StatusOr<std::string> ValueRef();
  absl::StatusOr<Func> ParseFunc();

  absl::string_view text_;
  std::string file_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

absl::StatusOr<PrimitiveType> Parser::ElementType() {
  Loc loc = Here();
  if (Peek() == '!') {
    std::string name = (++pos_, Ident());
    return Error(loc, absl::StrCat("not supported: element type !", name,
                                   " (quantized and custom element types "
                                   "have no HLO counterpart)"));
  }
  std::string name = Ident();
  if (name == "complex") {
    HLOREF_RETURN_IF_ERROR(Expect("<"));
    HLOREF_ASSIGN_OR_RETURN(PrimitiveType inner, ElementType());
    HLOREF_RETURN_IF_ERROR(Expect(">"));
    if (inner == PrimitiveType::kF32) return PrimitiveType::kC64;
    if (inner == PrimitiveType::kF64) return PrimitiveType::kC128;
    return Error(loc, "not supported: complex of a type other than f32/f64");
  }
  if (name == "i1") return PrimitiveType::kPred;
  if (name == "index") return PrimitiveType::kS64;  // attribute values only
  std::string hlo;
  if (absl::StartsWith(name, "ui")) {
    hlo = "u" + name.substr(2);
  } else if (absl::StartsWith(name, "si")) {
    hlo = "s" + name.substr(2);
  } else if (absl::StartsWith(name, "i")) {
    hlo = "s" + name.substr(1);
  } else {
    hlo = absl::AsciiStrToLower(name);
  }
  auto t = ParsePrimitiveType(hlo);
  if (!t.ok() || !IsArrayType(*t)) {
    return Error(loc, absl::StrCat("not supported: element type '", name,
                                   "' has no HLO counterpart"));
  }
  return *t;
}

absl::StatusOr<Type> Parser::ParseType() {
  Loc loc = Here();
  Type type;
  if (Consume("!stablehlo.token") || Consume("!mhlo.token")) {
    type.kind = Type::kToken;
    return type;
  }
  // XLA's HLO -> StableHLO conversion types async-start's result (HLO's
  // ((operands), result, context) tuple) as !mhlo.async_bundle<...>.
  const bool bundle = Consume("!mhlo.async_bundle");
  if (bundle || ConsumeWord("tuple")) {
    type.kind = Type::kTuple;
    HLOREF_RETURN_IF_ERROR(Expect("<"));
    if (!Consume(">")) {
      do {
        HLOREF_ASSIGN_OR_RETURN(Type t, ParseType());
        type.elements.push_back(std::move(t));
      } while (Consume(","));
      HLOREF_RETURN_IF_ERROR(Expect(">"));
    }
    return type;
  }
  if (ConsumeWord("tensor")) {
    HLOREF_RETURN_IF_ERROR(Expect("<"));
    if (Peek() == '*') {
      return Error(loc, "not supported: unranked tensor (no HLO shape)");
    }
    while (true) {
      SkipWs();
      if (text_[pos_] == '?') {
        ++pos_;
        type.dims.push_back(-1);
        type.dynamic.push_back(true);
      } else if (std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        size_t start = pos_;
        while (std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        int64_t d;
        (void)absl::SimpleAtoi(text_.substr(start, pos_ - start), &d);
        type.dims.push_back(d);
        type.dynamic.push_back(false);
      } else {
        break;
      }
      if (text_[pos_] != 'x') return ErrorHere("expected 'x' in tensor type");
      ++pos_;
    }
    HLOREF_ASSIGN_OR_RETURN(type.element, ElementType());
    if (Consume(",")) {
      Loc enc = Here();
      if (!Consume("#stablehlo.bounds<")) {
        return Error(enc,
                     "not supported: tensor encoding other than "
                     "#stablehlo.bounds");
      }
      for (size_t d = 0; d < type.dims.size(); ++d) {
        if (d > 0) HLOREF_RETURN_IF_ERROR(Expect(","));
        if (Consume("?")) {
          if (type.dynamic[d]) {
            return Error(enc, absl::StrCat("not supported: dimension ", d,
                                           " is dynamic without a bound (an "
                                           "HLO shape needs one)"));
          }
          continue;
        }
        HLOREF_ASSIGN_OR_RETURN(int64_t b, Int());
        if (!type.dynamic[d]) {
          return Error(
              enc, absl::StrCat("dimension ", d, " is static but has a bound"));
        }
        type.dims[d] = b;
      }
      HLOREF_RETURN_IF_ERROR(Expect(">"));
    }
    for (size_t d = 0; d < type.dims.size(); ++d) {
      if (type.dims[d] < 0) {
        return Error(loc, absl::StrCat("not supported: dimension ", d,
                                       " is dynamic without a bound (an HLO "
                                       "shape needs one)"));
      }
    }
    HLOREF_RETURN_IF_ERROR(Expect(">"));
    return type;
  }
  // A bare element type (in attribute values).
  HLOREF_ASSIGN_OR_RETURN(type.element, ElementType());
  type.bare_element = true;
  return type;
}

absl::StatusOr<std::vector<Type>> Parser::TypeListInParens() {
  std::vector<Type> types;
  HLOREF_RETURN_IF_ERROR(Expect("("));
  if (Consume(")")) return types;
  do {
    HLOREF_ASSIGN_OR_RETURN(Type t, ParseType());
    types.push_back(std::move(t));
    if (Peek() == '{') HLOREF_RETURN_IF_ERROR(SkipBalanced());  // res attrs
    HLOREF_RETURN_IF_ERROR(SkipLoc());
  } while (Consume(","));
  HLOREF_RETURN_IF_ERROR(Expect(")"));
  return types;
}

absl::Status Parser::DenseElements(Dense& dense) {
  if (Consume("[")) {
    if (Consume("]")) return absl::OkStatus();
    do {
      HLOREF_RETURN_IF_ERROR(DenseElements(dense));
    } while (Consume(","));
    return Expect("]");
  }
  if (Consume("(")) {
    dense.complex = true;
    for (int k = 0; k < 2; ++k) {
      if (k == 1) HLOREF_RETURN_IF_ERROR(Expect(","));
      std::string n = NumberText();
      if (n.empty()) return ErrorHere("expected a number");
      dense.elements.push_back(n);
    }
    return Expect(")");
  }
  if (ConsumeWord("true")) {
    dense.elements.push_back("true");
    return absl::OkStatus();
  }
  if (ConsumeWord("false")) {
    dense.elements.push_back("false");
    return absl::OkStatus();
  }
  std::string n = NumberText();
  if (n.empty() || n == "-" || n == "+") {
    return ErrorHere("expected a dense element");
  }
  dense.elements.push_back(n);
  return absl::OkStatus();
}

absl::Status Parser::DenseBody(Dense& dense) {
  HLOREF_RETURN_IF_ERROR(Expect("<"));
  if (Peek() == '"') {
    Loc loc = Here();
    HLOREF_ASSIGN_OR_RETURN(std::string hex, String());
    if (!absl::StartsWith(hex, "0x") || hex.size() % 2 != 0) {
      return Error(loc, "dense string is not a 0x hex blob");
    }
    dense.hex_blob = true;
    for (size_t k = 2; k + 1 < hex.size(); k += 2) {
      char* end = nullptr;
      std::string byte = hex.substr(k, 2);
      long v = std::strtol(byte.c_str(), &end, 16);
      if (*end != '\0') return Error(loc, "bad hex digit in dense blob");
      dense.blob += static_cast<char>(v);
    }
  } else if (Peek() != '>') {
    HLOREF_RETURN_IF_ERROR(DenseElements(dense));
  }
  return Expect(">");
}

absl::StatusOr<std::vector<NamedAttr>> Parser::AttrDict() {
  std::vector<NamedAttr> dict;
  HLOREF_RETURN_IF_ERROR(Expect("{"));
  if (Consume("}")) return dict;
  do {
    std::string key;
    if (Peek() == '"') {
      HLOREF_ASSIGN_OR_RETURN(key, String());
    } else {
      key = Ident();
      if (key.empty()) return ErrorHere("expected an attribute name");
    }
    Attr value;
    value.kind = Attr::kUnit;
    if (Consume("=")) {
      HLOREF_ASSIGN_OR_RETURN(value, AttrValue());
    }
    dict.emplace_back(std::move(key), std::move(value));
  } while (Consume(","));
  HLOREF_RETURN_IF_ERROR(Expect("}"));
  return dict;
}

absl::StatusOr<Attr> Parser::AttrValue(bool allow_type_suffix) {
  Attr a;
  a.loc = Here();
  char c = Peek();
  if (c == '[') {
    ++pos_;
    a.kind = Attr::kList;
    if (!Consume("]")) {
      do {
        HLOREF_ASSIGN_OR_RETURN(Attr e, AttrValue());
        a.list.push_back(std::move(e));
      } while (Consume(","));
      HLOREF_RETURN_IF_ERROR(Expect("]"));
    }
  } else if (c == '{') {
    a.kind = Attr::kDict;
    HLOREF_ASSIGN_OR_RETURN(a.dict, AttrDict());
  } else if (c == '"') {
    a.kind = Attr::kString;
    HLOREF_ASSIGN_OR_RETURN(a.text, String());
  } else if (c == '@') {
    ++pos_;
    a.kind = Attr::kSymbol;
    if (Peek() == '"') {
      HLOREF_ASSIGN_OR_RETURN(a.text, String());
    } else {
      a.text = Ident();
    }
  } else if (c == '#') {
    ++pos_;
    std::string name = Ident();
    if (Peek() != '<') {
      return Error(a.loc, absl::StrCat("not supported: attribute alias #", name,
                                       " (print without aliases)"));
    }
    ++pos_;
    a.text = name;
    if (Peek() == '[') {  // #stablehlo.conv<[b, 0, 1, f]x[...]->[...]>
      size_t start = pos_;
      int depth = 1;
      while (pos_ < text_.size() && depth > 0) {
        if (text_[pos_] == '<') ++depth;
        if (text_[pos_] == '>' && text_[pos_ - 1] != '-') --depth;
        ++pos_;
      }
      a.kind = Attr::kRaw;
      a.text = std::string(text_.substr(start, pos_ - 1 - start));
      return a;
    }
    // `k = v, ...` entries, or enum words (#stablehlo<precision DEFAULT>).
    a.kind = Attr::kDict;
    std::vector<std::string> words;
    while (!Consume(">")) {
      if (pos_ >= text_.size()) return ErrorHere("unterminated attribute");
      if (Consume(",")) continue;
      if (PeekNumber()) {
        HLOREF_ASSIGN_OR_RETURN(Attr v, AttrValue());
        a.list.push_back(std::move(v));
        continue;
      }
      if (Peek() == '[' || Peek() == '"' || Peek() == '{' || Peek() == '#') {
        HLOREF_ASSIGN_OR_RETURN(Attr v, AttrValue());
        a.list.push_back(std::move(v));
        continue;
      }
      std::string w = Ident();
      if (w.empty()) return ErrorHere("unexpected character in attribute");
      if (Consume("=")) {
        HLOREF_ASSIGN_OR_RETURN(Attr v, AttrValue());
        a.dict.emplace_back(w, std::move(v));
      } else {
        words.push_back(w);
      }
    }
    if (a.dict.empty() && a.list.empty() && !words.empty()) {
      a.kind = Attr::kWord;
      a.text = words.back();  // precision DEFAULT -> DEFAULT
    }
    return a;
  } else if (ConsumeWord("true") ||
             (PeekWord("false") && ConsumeWord("false"))) {
    a.kind = Attr::kBool;
    a.b = text_[pos_ - 1] == 'e' && text_.substr(pos_ - 4, 4) == "true";
  } else if (PeekWord("dense") && PeekAt(5) == '<') {
    ConsumeWord("dense");
    a.kind = Attr::kDense;
    HLOREF_RETURN_IF_ERROR(DenseBody(a.dense));
  } else if (PeekWord("dense_resource")) {
    return Error(a.loc,
                 "not supported: dense_resource constants (the data lives "
                 "outside the text; export with the values inline)");
  } else if (PeekWord("array") && PeekAt(5) == '<') {
    ConsumeWord("array");
    ++pos_;
    a.kind = Attr::kList;
    HLOREF_ASSIGN_OR_RETURN(a.type, ParseType());
    if (Consume(":")) {
      do {
        Attr e;
        e.loc = Here();
        if (ConsumeWord("true") || ConsumeWord("false")) {
          e.kind = Attr::kBool;
          e.b = text_[pos_ - 1] == 'e' && text_.substr(pos_ - 4, 4) == "true";
        } else {
          std::string n = NumberText();
          if (!absl::SimpleAtoi(n, &e.i)) {
            e.kind = Attr::kFloat;
            e.text = n;
            (void)absl::SimpleAtod(n, &e.f);
          } else {
            e.kind = Attr::kInt;
          }
        }
        a.list.push_back(std::move(e));
      } while (Consume(","));
    }
    HLOREF_RETURN_IF_ERROR(Expect(">"));
    return a;
  } else if (PeekNumber()) {
    std::string n = NumberText();
    if (absl::SimpleAtoi(n, &a.i)) {
      a.kind = Attr::kInt;
    } else {
      a.kind = Attr::kFloat;
      a.text = n;
      if (!absl::StartsWith(n, "0x") && !absl::SimpleAtod(n, &a.f)) {
        return Error(a.loc, absl::StrCat("bad number '", n, "'"));
      }
    }
  } else if (PeekWord("tensor") || PeekWord("tuple") || c == '!') {
    a.kind = Attr::kType;
    HLOREF_ASSIGN_OR_RETURN(a.type, ParseType());
    return a;
  } else if (IsIdentStart(c)) {
    a.kind = Attr::kWord;
    a.text = Ident();
  } else {
    return ErrorHere("expected an attribute value");
  }
  // `1 : i64`, `dense<..> : tensor<..>`.
  if (allow_type_suffix && Peek() == ':' && PeekAt(1) != ':') {
    size_t save = pos_;
    ++pos_;
    SkipWs();
    if (PeekWord("tensor") || PeekWord("tuple") || IsIdentStart(Peek()) ||
        Peek() == '!') {
      auto t = ParseType();
      if (t.ok()) {
        a.type = *t;
        a.has_type = true;
        return a;
      }
      if (a.kind == Attr::kDense) return t.status();
    }
    pos_ = save;
  }
  return a;
}

absl::StatusOr<std::string> Parser::ValueRef() {
  SkipWs();
  if (Peek() != '%') return ErrorHere("expected a value (%name)");
  ++pos_;
  size_t start = pos_;
  while (pos_ < text_.size() &&
         (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
          text_[pos_] == '_' || text_[pos_] == '.' || text_[pos_] == '$' ||
          text_[pos_] == '-')) {
    ++pos_;
  }
  std::string name(text_.substr(start, pos_ - start));
  if (name.empty()) return ErrorHere("empty value name");
  if (pos_ < text_.size() && text_[pos_] == '#') {
    size_t s = pos_;
    ++pos_;
    while (pos_ < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    name += std::string(text_.substr(s, pos_ - s));
  }
  return name;
}

absl::StatusOr<BlockArg> Parser::ArgDecl() {
  BlockArg arg;
  arg.loc = Here();
  HLOREF_ASSIGN_OR_RETURN(arg.name, ValueRef());
  HLOREF_RETURN_IF_ERROR(Expect(":"));
  HLOREF_ASSIGN_OR_RETURN(arg.type, ParseType());
  if (Peek() == '{') HLOREF_RETURN_IF_ERROR(SkipBalanced());
  HLOREF_RETURN_IF_ERROR(SkipLoc());
  return arg;
}

absl::StatusOr<std::vector<Op>> Parser::OpsUntilBrace() {
  std::vector<Op> ops;
  while (Peek() != '}') {
    if (pos_ >= text_.size()) return ErrorHere("unexpected end of input");
    HLOREF_ASSIGN_OR_RETURN(Op op, ParseOp());
    ops.push_back(std::move(op));
  }
  return ops;
}

// `{ [^bb0(%a: T, ...):] ops }`; `args` are the arguments of a pretty form
// (reducer(...), while's iter args) when the block has no header.
absl::StatusOr<Region> Parser::ParseRegion(std::vector<BlockArg> args) {
  Region region;
  region.loc = Here();
  region.args = std::move(args);
  region.has_args = !region.args.empty();
  HLOREF_RETURN_IF_ERROR(Expect("{"));
  if (Peek() == '^') {
    ++pos_;
    (void)Ident();
    region.args.clear();
    region.has_args = true;
    if (Consume("(")) {
      if (!Consume(")")) {
        do {
          HLOREF_ASSIGN_OR_RETURN(BlockArg a, ArgDecl());
          region.args.push_back(std::move(a));
        } while (Consume(","));
        HLOREF_RETURN_IF_ERROR(Expect(")"));
      }
    }
    HLOREF_RETURN_IF_ERROR(Expect(":"));
  }
  HLOREF_ASSIGN_OR_RETURN(region.ops, OpsUntilBrace());
  HLOREF_RETURN_IF_ERROR(Expect("}"));
  if (Peek() == '^') {
    return ErrorHere("not supported: a region with more than one block");
  }
  return region;
}

// `: T`, `: T, T`, `: (T, T) -> T`, `: (T) -> (T, T)`, `: T -> T`.
absl::Status Parser::Signature(Op& op) {
  if (!Consume(":")) return absl::OkStatus();
  std::vector<Type> first;
  if (Peek() == '(') {
    HLOREF_ASSIGN_OR_RETURN(first, TypeListInParens());
  } else {
    do {
      HLOREF_ASSIGN_OR_RETURN(Type t, ParseType());
      first.push_back(std::move(t));
    } while (Peek() == ',' && (++pos_, true));
  }
  if (Consume("->")) {
    op.signature_has_arrow = true;
    op.operand_types = std::move(first);
    if (Peek() == '(') {
      HLOREF_ASSIGN_OR_RETURN(op.result_types, TypeListInParens());
    } else {
      HLOREF_ASSIGN_OR_RETURN(Type t, ParseType());
      op.result_types.push_back(std::move(t));
    }
  } else {
    op.result_types = std::move(first);
  }
  return absl::OkStatus();
}

absl::Status Parser::GenericOp(Op& op) {
  HLOREF_RETURN_IF_ERROR(Expect("("));
  if (!Consume(")")) {
    do {
      op.operand_locs.push_back(Here());
      HLOREF_ASSIGN_OR_RETURN(std::string v, ValueRef());
      op.operands.push_back(std::move(v));
    } while (Consume(","));
    HLOREF_RETURN_IF_ERROR(Expect(")"));
  }
  if (Peek() == '[') {
    return ErrorHere("not supported: successor blocks");
  }
  if (Consume("<{")) {
    pos_ -= 1;
    HLOREF_ASSIGN_OR_RETURN(auto props, AttrDict());
    for (auto& p : props) op.attrs.push_back(std::move(p));
    HLOREF_RETURN_IF_ERROR(Expect(">"));
  }
  if (Peek() == '(' && PeekAt(1) == '{') {
    ++pos_;
    do {
      HLOREF_ASSIGN_OR_RETURN(Region r, ParseRegion({}));
      op.regions.push_back(std::move(r));
    } while (Consume(","));
    HLOREF_RETURN_IF_ERROR(Expect(")"));
  }
  if (Peek() == '{') {
    HLOREF_ASSIGN_OR_RETURN(auto attrs, AttrDict());
    for (auto& p : attrs) op.attrs.push_back(std::move(p));
  }
  HLOREF_RETURN_IF_ERROR(Expect(":"));
  pos_ -= 1;
  return Signature(op);
}

// The items of a pretty form up to its `:` signature: operands, `k = v`
// attributes, bare words, attribute dictionaries, @callee, slice ranges,
// and the parenthesised operand groups of reduce, while, convolution and
// custom_call.
absl::Status Parser::PrettyItems(Op& op, bool in_parens) {
  while (true) {
    char c = Peek();
    if (c == '\0') return ErrorHere("unexpected end of input");
    if (in_parens && c == ')') {
      ++pos_;
      return absl::OkStatus();
    }
    if (!in_parens && (c == ':' || c == '}' ||
                       (c == '{' && op.name == "stablehlo."
                                               "while"))) {
      return absl::OkStatus();
    }
    if (c == ',') {
      ++pos_;
      continue;
    }
    if (c == '%') {
      Loc loc = Here();
      HLOREF_ASSIGN_OR_RETURN(std::string v, ValueRef());
      if (Consume("init:")) {  // reduce(%x init: %i)
        HLOREF_ASSIGN_OR_RETURN(std::string init, ValueRef());
        op.operands.push_back(v);
        op.operand_locs.push_back(loc);
        op.inits.push_back(init);
        continue;
      }
      if (Peek() == '=' && PeekAt(1) != '=') {  // while(%iterArg = %x)
        ++pos_;
        op.iter_names.push_back(v);
        loc = Here();
        HLOREF_ASSIGN_OR_RETURN(v, ValueRef());
      }
      op.operands.push_back(v);
      op.operand_locs.push_back(loc);
      continue;
    }
    if (c == '(') {
      ++pos_;
      HLOREF_RETURN_IF_ERROR(PrettyItems(op, /*in_parens=*/true));
      continue;
    }
    if (c == '[') {  // slice [0:2, 1:3:1], get_tuple_element [0]
      ++pos_;
      op.has_ranges = true;
      if (!Consume("]")) {
        do {
          std::vector<int64_t> r;
          do {
            HLOREF_ASSIGN_OR_RETURN(int64_t v, Int());
            r.push_back(v);
          } while (Consume(":"));
          op.ranges.push_back(std::move(r));
        } while (Consume(","));
        HLOREF_RETURN_IF_ERROR(Expect("]"));
      }
      continue;
    }
    if (c == '{' && !in_parens && PeekNonSpaceAt(1) == '^') {
      return absl::OkStatus();  // a region (mhlo.scan's pretty form)
    }
    if (c == '{') {
      HLOREF_ASSIGN_OR_RETURN(auto attrs, AttrDict());
      for (auto& p : attrs) op.attrs.push_back(std::move(p));
      continue;
    }
    if (c == '@') {
      ++pos_;
      if (Peek() == '"') {
        HLOREF_ASSIGN_OR_RETURN(op.callee, String());
      } else {
        op.callee = Ident();
      }
      continue;
    }
    if (c == '"' ||
        ((PeekWord("dense") || PeekWord("array")) && PeekAt(5) == '<')) {
      HLOREF_ASSIGN_OR_RETURN(Attr a, AttrValue());
      // `dense<..> : tensor<..>` took the op's signature with it.
      bool typed = a.has_type && !in_parens;
      if (typed) op.result_types.push_back(a.type);
      op.positional.push_back(std::move(a));
      if (typed) return absl::OkStatus();
      continue;
    }
    if (IsIdentStart(c)) {
      // An op without a signature (mhlo.xla.rng_get_and_update_state)
      // ends at its location.
      if (!in_parens && PeekWord("loc") && PeekAt(3) == '(') {
        return absl::OkStatus();
      }
      Loc loc = Here();
      std::string w = Ident();
      if (w == "inits" && Peek() == '(') {  // mhlo.scan(%x) inits (%c)
        ++pos_;
        while (!Consume(")")) {
          HLOREF_ASSIGN_OR_RETURN(std::string v, ValueRef());
          op.inits.push_back(v);
          if (!Consume(",") && Peek() != ')') {
            return ErrorHere("expected ',' or ')' in inits (...)");
          }
        }
        continue;
      }
      if (w == "dim_numbers" && Consume("=")) {  // convolution's compact form
        SkipWs();
        size_t start = pos_;
        int depth = 0;
        while (pos_ < text_.size() && text_[pos_] != '\n' &&
               !(depth == 0 && text_[pos_] == ',')) {
          if (text_[pos_] == '[') ++depth;
          if (text_[pos_] == ']') --depth;
          ++pos_;
        }
        Attr a;
        a.kind = Attr::kRaw;
        a.loc = loc;
        a.text = std::string(text_.substr(start, pos_ - start));
        op.attrs.emplace_back(w, std::move(a));
        continue;
      }
      if (Peek() == '=' && PeekAt(1) != '=') {
        ++pos_;
        HLOREF_ASSIGN_OR_RETURN(Attr a, AttrValue(/*allow_type_suffix=*/false));
        // contracting_dims = [1] x [0]: the second list follows.
        if (a.kind == Attr::kList && PeekWord("x")) {
          ConsumeWord("x");
          HLOREF_ASSIGN_OR_RETURN(Attr b, AttrValue());
          Attr pair;
          pair.kind = Attr::kList;
          pair.loc = loc;
          pair.list = {std::move(a), std::move(b)};
          op.attrs.emplace_back(w, std::move(pair));
          continue;
        }
        op.attrs.emplace_back(w, std::move(a));
        continue;
      }
      op.words.push_back(w);
      continue;
    }
    if (PeekNumber()) {
      HLOREF_ASSIGN_OR_RETURN(Attr a, AttrValue());
      op.positional.push_back(std::move(a));
      continue;
    }
    return ErrorHere(absl::StrCat("unexpected character '", std::string(1, c),
                                  "' in ", op.name));
  }
}

absl::Status Parser::PrettyOp(Op& op) {
  HLOREF_RETURN_IF_ERROR(PrettyItems(op, /*in_parens=*/false));
  if (op.name == "stablehlo.while") {
    // (%iterArg = %x, ...) : T, T cond { } do { }
    HLOREF_RETURN_IF_ERROR(Signature(op));
    for (int k = 0; k < 2; ++k) {
      if (!ConsumeWord(k == 0 ? "cond" : "do")) {
        return ErrorHere(k == 0 ? "expected 'cond'" : "expected 'do'");
      }
      std::vector<BlockArg> args;
      for (size_t i = 0; i < op.iter_names.size(); ++i) {
        BlockArg a;
        a.name = op.iter_names[i];
        if (i < op.result_types.size()) a.type = op.result_types[i];
        args.push_back(std::move(a));
      }
      HLOREF_ASSIGN_OR_RETURN(Region r, ParseRegion(std::move(args)));
      op.regions.push_back(std::move(r));
    }
    return absl::OkStatus();
  }
  if (Peek() == '{') {  // a region before the signature (mhlo.scan)
    HLOREF_ASSIGN_OR_RETURN(Region r, ParseRegion({}));
    op.regions.push_back(std::move(r));
  }
  if (Peek() == ':') HLOREF_RETURN_IF_ERROR(Signature(op));
  if (PeekWord("reducer")) {  // reduce / reduce_window pretty region
    ConsumeWord("reducer");
    std::vector<BlockArg> lhs, rhs;
    while (Peek() == '(') {
      ++pos_;
      HLOREF_ASSIGN_OR_RETURN(BlockArg a, ArgDecl());
      HLOREF_RETURN_IF_ERROR(Expect(","));
      HLOREF_ASSIGN_OR_RETURN(BlockArg b, ArgDecl());
      HLOREF_RETURN_IF_ERROR(Expect(")"));
      lhs.push_back(std::move(a));
      rhs.push_back(std::move(b));
    }
    for (auto& b : rhs) lhs.push_back(std::move(b));
    HLOREF_ASSIGN_OR_RETURN(Region r, ParseRegion(std::move(lhs)));
    op.regions.push_back(std::move(r));
  }
  return absl::OkStatus();
}

absl::StatusOr<Op> Parser::ParseOp() {
  Op op;
  op.loc = Here();
  // Results: %a, %b:2 =
  if (Peek() == '%') {
    do {
      HLOREF_ASSIGN_OR_RETURN(std::string r, ValueRef());
      if (Peek() == ':' &&
          std::isdigit(static_cast<unsigned char>(PeekAt(1)))) {
        ++pos_;
        HLOREF_ASSIGN_OR_RETURN(int64_t n, Int());
        for (int64_t k = 0; k < n; ++k) {
          op.results.push_back(absl::StrCat(r, "#", k));
        }
      } else {
        op.results.push_back(r);
      }
    } while (Consume(","));
    HLOREF_RETURN_IF_ERROR(Expect("="));
  }
  op.loc = Here();
  if (Peek() == '"') {
    HLOREF_ASSIGN_OR_RETURN(op.name, String());
    HLOREF_RETURN_IF_ERROR(GenericOp(op));
  } else {
    op.name = Ident();
    if (op.name.empty()) return ErrorHere("expected an op");
    if (op.name == "stablehlo.reduce" || op.name == "stablehlo.while" ||
        op.name == "stablehlo.convolution" ||
        op.name == "stablehlo.custom_call" || op.name == "chlo.top_k" ||
        op.name == "call" || op.name == "func.call" ||
        op.name == "stablehlo.composite") {
      // Their operands sit in parentheses; PrettyItems handles both.
    }
    HLOREF_RETURN_IF_ERROR(PrettyOp(op));
  }
  HLOREF_RETURN_IF_ERROR(SkipLoc());
  return op;
}

absl::StatusOr<Func> Parser::ParseFunc() {
  Func func;
  func.loc = Here();
  if (ConsumeWord("public")) {
    func.is_public = true;
  } else if (ConsumeWord("private") || ConsumeWord("nested")) {
    func.is_public = false;
  }
  HLOREF_RETURN_IF_ERROR(Expect("@"));
  if (Peek() == '"') {
    HLOREF_ASSIGN_OR_RETURN(func.name, String());
  } else {
    func.name = Ident();
  }
  HLOREF_RETURN_IF_ERROR(Expect("("));
  if (!Consume(")")) {
    do {
      HLOREF_ASSIGN_OR_RETURN(BlockArg a, ArgDecl());
      func.args.push_back(std::move(a));
    } while (Consume(","));
    HLOREF_RETURN_IF_ERROR(Expect(")"));
  }
  if (Consume("->")) {
    if (Peek() == '(') {
      HLOREF_ASSIGN_OR_RETURN(func.results, TypeListInParens());
    } else {
      HLOREF_ASSIGN_OR_RETURN(Type t, ParseType());
      func.results.push_back(std::move(t));
    }
  }
  if (ConsumeWord("attributes")) HLOREF_RETURN_IF_ERROR(SkipBalanced());
  HLOREF_RETURN_IF_ERROR(Expect("{"));
  HLOREF_ASSIGN_OR_RETURN(func.body, OpsUntilBrace());
  HLOREF_RETURN_IF_ERROR(Expect("}"));
  HLOREF_RETURN_IF_ERROR(SkipLoc());
  return func;
}

absl::StatusOr<MlirModule> Parser::ParseModule() {
  MlirModule module;
  bool braced = false;
  // Top-level `#loc = loc(...)` alias definitions are skipped.
  auto skip_aliases = [&]() -> absl::Status {
    while (Peek() == '#') {
      ++pos_;
      (void)Ident();
      HLOREF_RETURN_IF_ERROR(Expect("="));
      if (PeekWord("loc")) {
        HLOREF_RETURN_IF_ERROR(SkipLoc());
      } else {
        HLOREF_RETURN_IF_ERROR(AttrValue().status());
      }
    }
    return absl::OkStatus();
  };
  HLOREF_RETURN_IF_ERROR(skip_aliases());
  if (ConsumeWord("module")) {
    if (Consume("@")) {
      if (Peek() == '"') {
        HLOREF_ASSIGN_OR_RETURN(module.name, String());
      } else {
        module.name = Ident();
      }
    }
    if (ConsumeWord("attributes")) {
      HLOREF_ASSIGN_OR_RETURN(auto attrs, AttrDict());
      for (const auto& [k, v] : attrs) {
        if (k == "mhlo.num_replicas" && v.kind == Attr::kInt) {
          module.num_replicas = v.i;
        }
        if (k == "mhlo.num_partitions" && v.kind == Attr::kInt) {
          module.num_partitions = v.i;
        }
      }
    }
    HLOREF_RETURN_IF_ERROR(Expect("{"));
    braced = true;
  }
  while (true) {
    HLOREF_RETURN_IF_ERROR(skip_aliases());
    if (braced && Consume("}")) break;
    if (!braced && Peek() == '\0') break;
    Loc loc = Here();
    if (ConsumeWord("func.func") || ConsumeWord("func")) {
      HLOREF_ASSIGN_OR_RETURN(Func f, ParseFunc());
      module.funcs.push_back(std::move(f));
      continue;
    }
    std::string what = Ident();
    return Error(loc, absl::StrCat("not supported: top-level '", what,
                                   "' (expected func.func)"));
  }
  HLOREF_RETURN_IF_ERROR(SkipLoc());
  HLOREF_RETURN_IF_ERROR(skip_aliases());
  if (Peek() != '\0') return ErrorHere("text after the module");
  if (module.name.empty()) module.name = "module";
  return module;
}

}  // namespace

absl::StatusOr<MlirModule> ParseMlir(absl::string_view text,
                                     const std::string& file_name) {
  Parser parser(text, file_name);
  return parser.ParseModule();
}

}  // namespace hloref::stablehlo
