// Recursive-descent reader for the HLO text format
// (docs/hlo-text-format.md). Every error is an InvalidArgument
// "file:line:col: error: <what>, near '<token>'" with the location payload;
// nesting (tuple shapes, literals, nested instructions, inline
// computations) is bounded by kMaxDepth so no input recurses without limit.
//
// Representation choices (documented for the verifier and interpreter):
//  - Async sugar `op-start(...)` / `op-update` / `op-done` becomes
//    kAsyncStart / kAsyncUpdate / kAsyncDone. The start calls a synthesized
//    computation `<start name>.wrapped` (flagged is_async_sugar_wrapped())
//    holding one parameter per operand and the wrapped `op` instruction as
//    root, whose shape is element 1 of the start's shape (the whole shape if
//    that is not a tuple of at least two). The op's own attributes live on
//    the wrapped instruction; the common ones (metadata, backend_config, ...)
//    on the start, and backend_config / frontend_attributes are also copied
//    to the wrapped instruction so custom-call handlers find them.
//    async-update / async-done (sugared or generic) get the start's wrapped
//    computation as their only called computation.
//  - Compact GTE operands `%t#1` become (or reuse) a get-tuple-element
//    instruction inserted before the user; nested operand instructions
//    `f32[2] add(a, b)` become instructions named `<opcode>.nested.<n>`.
//  - Instruction result shapes without a layout get the default descending
//    layout (as XLA's parser does); signature shapes and shapes given to
//    ParseShape are kept as written.
//  - frontend_attributes and backend_config hold the string value (quotes
//    removed, escapes decoded; a raw `{...}` value as written).
//  - Stack-frame tables are kept verbatim in config().other under the name
//    "stack_frames"; input_output_alias, buffer_donor, alias_passthrough_params
//    and the allow_spmd_... lists verbatim under their own names.
#include "spec/ir/hlo_parser.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "spec/ir/hlo_lexer.h"
#include "spec/types/minifloat.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

ShapeInferenceHook g_shape_inference_hook = nullptr;

// Opcodes whose result shape XLA's parser infers (its CanInferShape) and
// this parser leaves to the shape-inference hook.
bool HookInfersShape(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kCall:
    case HloOpcode::kCholesky:
    case HloOpcode::kConcatenate:
    case HloOpcode::kConditional:
    case HloOpcode::kConvolution:
    case HloOpcode::kDomain:
    case HloOpcode::kDot:
    case HloOpcode::kFft:
    case HloOpcode::kGather:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kMap:
    case HloOpcode::kPad:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kScaledDot:
    case HloOpcode::kReduce:
    case HloOpcode::kReverse:
    case HloOpcode::kScatter:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kSort:
    case HloOpcode::kTranspose:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kWhile:
    case HloOpcode::kTopK:
      return true;
    default:
      return false;
  }
}

constexpr int kMaxDepth = 64;
constexpr int64_t kMaxReplicaGroupDevices = int64_t{1} << 20;

class DepthScope {
 public:
  explicit DepthScope(int* depth) : depth_(depth) { ++*depth_; }
  ~DepthScope() { --*depth_; }
  DepthScope(const DepthScope&) = delete;
  DepthScope& operator=(const DepthScope&) = delete;

 private:
  int* depth_;
};

#define HLOREF_DEPTH_GUARD()                                         \
  DepthScope depth_scope_(&depth_);                                  \
  if (depth_ > kMaxDepth) {                                          \
    return ErrorHere(                                                \
        absl::StrCat("nesting deeper than ", kMaxDepth, " levels")); \
  }

// Attributes read for one instruction before it is built.
struct ParsedAttrs {
  HloAttributes attrs;
  absl::flat_hash_map<AttrId, std::vector<HloComputation*>> callees;
  std::vector<std::pair<std::string, Token>> control_predecessor_names;
};

// Per-computation parsing state.
struct CompState {
  HloComputation* comp = nullptr;
  absl::flat_hash_map<std::string, HloInstruction*> by_name;
  HloInstruction* root = nullptr;
  int64_t nested_counter = 0;
  // Control predecessors are resolved when the computation ends, so they
  // may name instructions defined later.
  std::vector<std::pair<HloInstruction*, ParsedAttrs>> pending_control;
  std::vector<std::tuple<HloInstruction*, std::string, Token>> control_refs;
};

bool IsSugarSuffix(absl::string_view word, absl::string_view* base,
                   HloOpcode* async_op) {
  for (auto [suffix, op] : {std::pair<absl::string_view, HloOpcode>{
                                "-start", HloOpcode::kAsyncStart},
                            {"-update", HloOpcode::kAsyncUpdate},
                            {"-done", HloOpcode::kAsyncDone}}) {
    if (absl::EndsWith(word, suffix) && word.size() > suffix.size()) {
      *base = word.substr(0, word.size() - suffix.size());
      *async_op = op;
      return true;
    }
  }
  return false;
}

void SetDefaultLayouts(Shape* shape) {
  if (shape->IsTuple()) {
    for (Shape& s : *shape->mutable_tuple_shapes()) SetDefaultLayouts(&s);
    return;
  }
  if (shape->IsArray() && !shape->has_layout()) {
    shape->set_layout(Layout::Descending(shape->rank()));
  }
}

class Parser {
 public:
  Parser(absl::string_view text, const ParseOptions& options)
      : lex_(text), options_(options) {
    tok_ = lex_.Lex(0);
  }

  absl::StatusOr<std::unique_ptr<HloModule>> ParseModule();
  absl::StatusOr<Shape> ParseShapeOnly();
  absl::StatusOr<Literal> ParseLiteralOnly();
  absl::StatusOr<Literal> ParseLiteralAttempt();
  absl::StatusOr<Literal> ParseLiteralForShape(const Shape& shape);

 private:
  // ---- tokens and errors
  void Next() { tok_ = lex_.Lex(tok_.end); }
  Token PeekNext() const { return lex_.Lex(tok_.end); }
  void SeekTo(size_t offset) { tok_ = lex_.Lex(offset); }
  bool Is(TokKind k) const { return tok_.kind == k; }
  bool IsWord(absl::string_view w) const {
    return tok_.kind == TokKind::kIdent && !tok_.percent && tok_.text == w;
  }
  std::string Where(size_t offset) const {
    int line, col;
    lex_.LineColumn(offset, &line, &col);
    if (options_.file_name.empty()) return absl::StrCat(line, ":", col);
    return absl::StrCat(options_.file_name, ":", line, ":", col);
  }
  SourceLocation LocationOf(const Token& t) const {
    SourceLocation loc;
    loc.file = options_.file_name;
    lex_.LineColumn(t.start, &loc.line, &loc.column);
    return loc;
  }
  absl::Status Error(const Token& at, absl::string_view what) const {
    std::string near;
    if (at.kind == TokKind::kEof) {
      near = "end of input";
    } else {
      absl::string_view t = lex_.text().substr(at.start, at.end - at.start);
      if (t.size() > 40) t = t.substr(0, 40);
      near = std::string(t);
    }
    std::string where = Where(at.start);
    std::string message =
        at.kind == TokKind::kError ? at.error : std::string(what);
    absl::Status status = absl::InvalidArgumentError(
        absl::StrCat(where, ": error: ", message, ", near '", near, "'"));
    status.SetPayload("hloref.location", absl::Cord(where));
    return status;
  }
  absl::Status ErrorHere(absl::string_view what) const {
    return Error(tok_, what);
  }
  absl::Status Expect(TokKind kind, absl::string_view what) {
    if (tok_.kind != kind) return ErrorHere(absl::StrCat("expected ", what));
    Next();
    return absl::OkStatus();
  }
  void Warn(const Token& at, absl::string_view what) {
    if (options_.warnings != nullptr) {
      options_.warnings->push_back(
          absl::StrCat(Where(at.start), ": warning: ", what));
    }
  }
  // Raw value starting at the current token; advances past it.
  absl::StatusOr<std::string> TakeRawValue() {
    if (Is(TokKind::kEof)) return ErrorHere("expected a value");
    // `name= =x`: printed back as `name==x`, which the lexer reads as a
    // comparison, not `name=` (hlo_module_fuzz finding 23). XLA never
    // writes a value starting with '='.
    if (lex_.text()[tok_.start] == '=') {
      return ErrorHere("a value cannot start with '=' (a stray '='?)");
    }
    std::string error;
    size_t end = lex_.ScanRawValue(tok_.start, &error);
    if (end == absl::string_view::npos) return ErrorHere(error);
    if (end == tok_.start) return ErrorHere("expected a value");
    std::string text(lex_.text().substr(tok_.start, end - tok_.start));
    while (!text.empty() &&
           absl::ascii_isspace(static_cast<unsigned char>(text.back()))) {
      text.pop_back();
    }
    SeekTo(end);
    return text;
  }
  // A `{...}` taken by characters (JSON-dict values).
  absl::StatusOr<std::string> TakeBraced() {
    if (!Is(TokKind::kLbrace)) return ErrorHere("expected '{'");
    std::string error;
    size_t end = lex_.ScanBalanced(tok_.start, &error);
    if (end == absl::string_view::npos) return ErrorHere(error);
    std::string text(lex_.text().substr(tok_.start, end - tok_.start));
    SeekTo(end);
    return text;
  }

  // ---- basic values
  absl::Status ParseInt64(int64_t* out);
  absl::Status ParseBool(bool* out);
  absl::Status ParseDouble(double* out);
  absl::Status ParseString(std::string* out);
  absl::Status ParseWord(std::string* out);
  absl::Status ParseIntList(std::vector<int64_t>* out);
  absl::Status ParseIntListList(std::vector<std::vector<int64_t>>* out);

  // ---- shapes and literals
  absl::Status ParseShapeImpl(Shape* out);
  absl::Status ParseLayout(const Shape& shape, Layout* out);
  bool AtShape() const {
    return Is(TokKind::kLparen) ||
           (Is(TokKind::kIdent) && !tok_.percent &&
            IsPrimitiveTypeName(tok_.text)) ||
           AtBufferShape();
  }
  // Newer XLA's buffer shape `b(f32[2,4])` (custom-call operands/results).
  bool AtBufferShape() const {
    return Is(TokKind::kIdent) && !tok_.percent && tok_.text == "b" &&
           PeekNext().kind == TokKind::kLparen;
  }
  absl::Status ParseLiteralValue(const Shape& shape, Literal* out);
  // Refuses an array literal whose storage exceeds
  // ParseOptions::max_literal_bytes, naming ParseOptions::limit_flag.
  absl::Status CheckLiteralSize(const Shape& shape);
  absl::Status ParseArrayLevel(Literal* lit, int64_t dim, int64_t base);
  absl::Status ParseElement(Literal* lit, int64_t linear);
  absl::Status ParseFloatToken(PrimitiveType type, double* value,
                               std::optional<uint64_t>* bits);

  // ---- module structure
  absl::Status ParseHeaderAttribute(absl::flat_hash_set<std::string>* seen);
  absl::Status ParseEntryComputationLayout();
  absl::Status ParseStackFrames();
  absl::Status ParseComputation();
  absl::Status ParseSignature(HloComputation* comp);
  absl::Status ParseInstructions(CompState* cs);
  absl::Status FinishComputation(CompState* cs, const Token& close);
  absl::Status ParseInstruction(CompState* cs);
  absl::StatusOr<HloInstruction*> ParseInstructionBody(
      CompState* cs, std::string name, std::optional<Shape> shape, bool nested,
      const Token& name_tok);
  absl::Status ParseOperands(CompState* cs,
                             std::vector<HloInstruction*>* operands);
  absl::StatusOr<HloInstruction*> GetOrCreateGte(CompState* cs,
                                                 HloInstruction* tuple,
                                                 int64_t index,
                                                 const Token& at);
  absl::Status InferShape(HloOpcode opcode,
                          const std::vector<HloInstruction*>& operands,
                          const HloAttributes& attrs, const Token& at,
                          Shape* out);

  // ---- attributes
  absl::Status ParseAttribute(HloOpcode opcode, HloOpcode alt_opcode,
                              absl::flat_hash_set<AttrId>* seen,
                              ParsedAttrs* pa);
  absl::Status ParseAttributeValue(AttrId id, HloOpcode opcode,
                                   ParsedAttrs* pa);
  absl::StatusOr<HloComputation*> ParseComputationRef();
  absl::Status ParseWindow(Window* out);
  absl::Status ParseDimLabels(ConvolutionDimensionNumbers* out);
  absl::Status ParsePaddingConfig(PaddingConfig* out);
  absl::Status ParseSliceRanges(SliceConfig* out);
  absl::Status ParseReplicaGroups(ReplicaGroups* out);
  absl::Status ParseFrontendAttributes(std::map<std::string, std::string>* out);
  absl::Status ParseMetadata(OpMetadata* out);
  absl::Status ParseBackendConfig(std::string* out);
  absl::Status ParseEnumValue(AttrId id, HloOpcode opcode,
                              HloAttributes* attrs);

  std::string UniqueComputationName(absl::string_view base) const {
    std::string name(base);
    for (int i = 1; module_->FindComputation(name) != nullptr ||
                    pending_names_.contains(name);
         ++i) {
      name = absl::StrCat(base, ".", i);
    }
    return name;
  }
  static std::string UniqueInstructionName(const CompState& cs,
                                           absl::string_view base) {
    std::string name(base);
    for (int i = 1; cs.by_name.contains(name); ++i) {
      name = absl::StrCat(base, ".", i);
    }
    return name;
  }

  HloLexer lex_;
  const ParseOptions& options_;
  Token tok_;
  int depth_ = 0;
  // ParseLiteral's second attempt: `f32[2] {1, 2}` has no layout.
  bool no_layouts_ = false;
  std::unique_ptr<HloModule> module_;
  // Names of computations being parsed (not yet added to the module).
  absl::flat_hash_set<std::string> pending_names_;
};

// ============================================================================
// Basic values

absl::Status Parser::ParseInt64(int64_t* out) {
  if (!Is(TokKind::kInt)) return ErrorHere("expected an integer");
  uint64_t limit =
      tok_.negative
          ? (uint64_t{1} << 63)
          : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (tok_.int_magnitude > limit) {
    return ErrorHere("integer does not fit in 64 bits");
  }
  *out = tok_.negative ? static_cast<int64_t>(~tok_.int_magnitude + 1)
                       : static_cast<int64_t>(tok_.int_magnitude);
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseBool(bool* out) {
  if (IsWord("true")) {
    *out = true;
  } else if (IsWord("false")) {
    *out = false;
  } else {
    return ErrorHere("expected 'true' or 'false'");
  }
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseDouble(double* out) {
  if (!Is(TokKind::kInt) && !Is(TokKind::kDecimal)) {
    return ErrorHere("expected a number");
  }
  *out = tok_.decimal;
  if (Is(TokKind::kInt) && tok_.negative && tok_.int_magnitude == 0) {
    *out = -0.0;
  }
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseString(std::string* out) {
  if (!Is(TokKind::kString)) return ErrorHere("expected a quoted string");
  *out = tok_.text;
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseWord(std::string* out) {
  if (!Is(TokKind::kIdent) || tok_.percent) {
    return ErrorHere("expected a word");
  }
  *out = tok_.text;
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseIntList(std::vector<int64_t>* out) {
  out->clear();
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start a list"));
  if (Is(TokKind::kRbrace)) {
    Next();
    return absl::OkStatus();
  }
  while (true) {
    int64_t v = 0;
    HLOREF_RETURN_IF_ERROR(ParseInt64(&v));
    out->push_back(v);
    if (Is(TokKind::kComma)) {
      Next();
      continue;
    }
    return Expect(TokKind::kRbrace, "',' or '}' in integer list");
  }
}

absl::Status Parser::ParseIntListList(std::vector<std::vector<int64_t>>* out) {
  out->clear();
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start a list"));
  if (Is(TokKind::kRbrace)) {
    Next();
    return absl::OkStatus();
  }
  while (true) {
    std::vector<int64_t> inner;
    HLOREF_RETURN_IF_ERROR(ParseIntList(&inner));
    out->push_back(std::move(inner));
    if (Is(TokKind::kComma)) {
      Next();
      continue;
    }
    return Expect(TokKind::kRbrace, "',' or '}' in list of lists");
  }
}

// ============================================================================
// Shapes

absl::Status Parser::ParseShapeImpl(Shape* out) {
  HLOREF_DEPTH_GUARD();
  if (Is(TokKind::kLparen)) {
    Next();
    std::vector<Shape> elements;
    if (Is(TokKind::kRparen)) {
      Next();
      *out = Shape::Tuple({});
      return absl::OkStatus();
    }
    while (true) {
      Shape element;
      HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&element));
      elements.push_back(std::move(element));
      if (Is(TokKind::kComma)) {
        Next();
        continue;
      }
      HLOREF_RETURN_IF_ERROR(
          Expect(TokKind::kRparen, "',' or ')' in tuple shape"));
      break;
    }
    *out = Shape::Tuple(std::move(elements));
    return absl::OkStatus();
  }
  if (AtBufferShape()) {
    // `b(f32[2,4])`: a buffer holding an array; the oracle has values, not
    // buffers, so it is read as the array shape it holds.
    Warn(tok_, "buffer shape b(...) read as the array shape it holds");
    Next();
    Next();
    HLOREF_RETURN_IF_ERROR(ParseShapeImpl(out));
    return Expect(TokKind::kRparen, "')' after the buffer's shape");
  }
  if (!Is(TokKind::kIdent) || tok_.percent) {
    return ErrorHere("expected a shape");
  }
  absl::StatusOr<PrimitiveType> type = ParsePrimitiveType(tok_.text);
  if (!type.ok() || *type == PrimitiveType::kTuple ||
      *type == PrimitiveType::kInvalid) {
    return ErrorHere(absl::StrCat("expected a shape; '", tok_.text,
                                  "' is not an element type"));
  }
  const Token type_tok = tok_;
  Next();
  HLOREF_RETURN_IF_ERROR(
      Expect(TokKind::kLsquare, "'[' after the element type"));
  if (*type == PrimitiveType::kToken || *type == PrimitiveType::kOpaque) {
    HLOREF_RETURN_IF_ERROR(Expect(
        TokKind::kRsquare,
        absl::StrCat("']': ", PrimitiveTypeName(*type), " has no dimensions")));
    *out = *type == PrimitiveType::kToken ? Shape::Token() : Shape::Opaque();
    return absl::OkStatus();
  }
  Shape shape(*type, {});
  uint64_t product = 1;
  bool overflow = false;
  if (!Is(TokKind::kRsquare)) {
    while (true) {
      if (Is(TokKind::kQuestion)) {
        Next();
        shape.add_dimension(Shape::kUnboundedSize, true);
      } else {
        bool dynamic = false;
        if (Is(TokKind::kLeq)) {
          dynamic = true;
          Next();
        }
        if (!Is(TokKind::kInt) || tok_.negative) {
          return ErrorHere("expected a non-negative dimension size");
        }
        int64_t size = 0;
        HLOREF_RETURN_IF_ERROR(ParseInt64(&size));
        shape.add_dimension(size, dynamic);
        if (size != 0 && product > std::numeric_limits<uint64_t>::max() /
                                       static_cast<uint64_t>(size)) {
          overflow = true;
        } else {
          product *= static_cast<uint64_t>(size);
        }
      }
      if (Is(TokKind::kComma)) {
        Next();
        continue;
      }
      break;
    }
  }
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRsquare, "',' or ']' in dimensions"));
  // Shapes are not limited (a dump of a 405B-parameter model is a valid
  // module); only a literal's storage is (CheckLiteralSize).
  if (overflow ||
      product > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Error(type_tok,
                 absl::StrCat("shape ", shape.ToString(false),
                              " has more elements than fit in a 64-bit "
                              "integer"));
  }
  if (Is(TokKind::kLbrace) && !no_layouts_) {
    Token next = PeekNext();
    if (next.kind == TokKind::kInt || next.kind == TokKind::kColon) {
      Layout layout;
      HLOREF_RETURN_IF_ERROR(ParseLayout(shape, &layout));
      shape.set_layout(std::move(layout));
    }
  }
  *out = std::move(shape);
  return absl::OkStatus();
}

absl::Status Parser::ParseLayout(const Shape& shape, Layout* out) {
  const Token open = tok_;
  Next();  // {
  std::vector<bool> seen(static_cast<size_t>(shape.rank()), false);
  while (Is(TokKind::kInt)) {
    const Token at = tok_;
    int64_t d = 0;
    HLOREF_RETURN_IF_ERROR(ParseInt64(&d));
    if (d < 0 || d >= shape.rank() || seen[d]) {
      return Error(at, absl::StrCat("layout entry ", d,
                                    " is not a new dimension of a rank-",
                                    shape.rank(), " shape"));
    }
    seen[d] = true;
    out->minor_to_major.push_back(d);
    if (Is(TokKind::kComma)) Next();
  }
  if (static_cast<int64_t>(out->minor_to_major.size()) != shape.rank()) {
    return Error(
        open, absl::StrCat("layout lists ", out->minor_to_major.size(),
                           " dimensions for a rank-", shape.rank(), " shape"));
  }
  if (Is(TokKind::kColon)) {
    Next();
    while (!Is(TokKind::kRbrace)) {
      auto paren_int = [&](int64_t* v) -> absl::Status {
        Next();
        HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
        HLOREF_RETURN_IF_ERROR(ParseInt64(v));
        return Expect(TokKind::kRparen, "')'");
      };
      if (IsWord("T")) {
        Next();
        if (!Is(TokKind::kLparen)) return ErrorHere("expected '(' after T");
        while (Is(TokKind::kLparen)) {
          Next();
          Tile tile;
          while (!Is(TokKind::kRparen)) {
            if (Is(TokKind::kStar)) {
              tile.dimensions.push_back(Tile::kCombineDimension);
              Next();
            } else {
              int64_t v = 0;
              HLOREF_RETURN_IF_ERROR(ParseInt64(&v));
              tile.dimensions.push_back(v);
            }
            if (Is(TokKind::kComma)) {
              Next();
            } else if (!Is(TokKind::kRparen)) {
              return ErrorHere("expected ',' or ')' in tile");
            }
          }
          Next();
          out->tiles.push_back(std::move(tile));
        }
      } else if (IsWord("L")) {
        HLOREF_RETURN_IF_ERROR(paren_int(&out->tail_padding_alignment));
      } else if (IsWord("E")) {
        HLOREF_RETURN_IF_ERROR(paren_int(&out->element_size_in_bits));
      } else if (IsWord("S")) {
        HLOREF_RETURN_IF_ERROR(paren_int(&out->memory_space));
      } else if (IsWord("D") || IsWord("SC") || IsWord("P") || IsWord("M") ||
                 Is(TokKind::kHash) || Is(TokKind::kStar)) {
        // Kept verbatim: the field letter(s) and its parenthesized groups.
        size_t start = tok_.start;
        size_t pos = tok_.end;
        if (pos >= lex_.text().size() || lex_.text()[pos] != '(') {
          return ErrorHere("expected '(' after layout field");
        }
        while (pos < lex_.text().size() && lex_.text()[pos] == '(') {
          std::string error;
          size_t end = lex_.ScanBalanced(pos, &error);
          if (end == absl::string_view::npos) return ErrorHere(error);
          pos = end;
        }
        absl::StrAppend(&out->other_fields,
                        lex_.text().substr(start, pos - start));
        SeekTo(pos);
      } else {
        return ErrorHere("expected a layout field (T, L, E, S, ...) or '}'");
      }
    }
  }
  return Expect(TokKind::kRbrace, "'}' to end the layout");
}

// ============================================================================
// Literals

absl::Status Parser::ParseFloatToken(PrimitiveType type, double* value,
                                     std::optional<uint64_t>* bits) {
  if (!Is(TokKind::kInt) && !Is(TokKind::kDecimal)) {
    return ErrorHere(
        absl::StrCat("expected a ", PrimitiveTypeName(type), " value"));
  }
  const FloatFormat& format = FormatOf(type);
  double v = tok_.decimal;
  if (Is(TokKind::kInt) && tok_.negative && tok_.int_magnitude == 0) v = -0.0;
  if (Is(TokKind::kDecimal) && std::isinf(v) &&
      !absl::StrContains(tok_.text, "inf")) {
    return ErrorHere(
        absl::StrCat("value is out of range for ", PrimitiveTypeName(type)));
  }
  // XLA rejects values outside the finite range, but a value that rounds to
  // the largest finite one is in range: XLA itself prints f32's max as
  // 3.40282347e+38, which is above FLT_MAX as a decimal.
  if (std::isfinite(v) && std::fabs(v) > MaxFinite(format)) {
    bool overflows;
    if (format.nan == NanEncoding::kNone) {
      // Finite-only types saturate, so find the rounding boundary: the
      // largest value's mantissa is odd for all of them, so the tie at
      // max + ulp/2 rounds up (out of range).
      const double max = MaxFinite(format);
      const double half_ulp =
          std::ldexp(1.0, std::ilogb(max) - format.mantissa_bits - 1);
      overflows = std::fabs(v) >= max + half_ulp;
    } else {
      const uint64_t enc = EncodeFloat(format, v);
      overflows = IsInfEncoding(format, enc) || IsNanEncoding(format, enc);
    }
    if (overflows) {
      return ErrorHere(absl::StrCat("value ", tok_.text,
                                    " is out of range for ",
                                    PrimitiveTypeName(type)));
    }
  }
  if (tok_.has_nan_payload) {
    if (format.nan == NanEncoding::kIeee) {
      uint64_t max_payload = (uint64_t{1} << format.mantissa_bits) - 1;
      if (tok_.nan_payload == 0 || tok_.nan_payload > max_payload) {
        return ErrorHere(
            absl::StrCat("NaN payload does not fit the ", format.mantissa_bits,
                         " mantissa bits of ", PrimitiveTypeName(type)));
      }
      uint64_t b =
          tok_.nan_payload |
          (((uint64_t{1} << format.exponent_bits) - 1) << format.mantissa_bits);
      if (tok_.negative) b |= uint64_t{1} << (format.total_bits - 1);
      *bits = b;
    }
    // Types without NaN payload bits take their one NaN encoding.
  }
  *value = v;
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseElement(Literal* lit, int64_t linear) {
  const PrimitiveType type = lit->element_type();
  if (type == PrimitiveType::kPred) {
    if (IsWord("true") || IsWord("false")) {
      lit->SetFromInt64(linear, IsWord("true") ? 1 : 0);
      Next();
      return absl::OkStatus();
    }
    if (Is(TokKind::kInt) && tok_.int_magnitude <= 1 &&
        !(tok_.negative && tok_.int_magnitude == 1)) {
      lit->SetFromInt64(linear, static_cast<int64_t>(tok_.int_magnitude));
      Next();
      return absl::OkStatus();
    }
    return ErrorHere("expected a pred value (true, false, 1 or 0)");
  }
  if (IsInteger(type)) {
    if (!Is(TokKind::kInt)) {
      return ErrorHere(
          absl::StrCat("expected an integer for ", PrimitiveTypeName(type)));
    }
    const int bits = BitWidth(type);
    bool ok;
    if (IsSignedInt(type)) {
      uint64_t pos_max = (uint64_t{1} << (bits - 1)) - 1;
      ok = tok_.negative ? tok_.int_magnitude <= pos_max + 1
                         : tok_.int_magnitude <= pos_max;
    } else {
      uint64_t max = bits == 64 ? std::numeric_limits<uint64_t>::max()
                                : (uint64_t{1} << bits) - 1;
      ok = (!tok_.negative || tok_.int_magnitude == 0) &&
           tok_.int_magnitude <= max;
    }
    if (!ok) {
      return ErrorHere(absl::StrCat("value ", tok_.text,
                                    " is out of range for ",
                                    PrimitiveTypeName(type)));
    }
    int64_t v = tok_.negative ? static_cast<int64_t>(~tok_.int_magnitude + 1)
                              : static_cast<int64_t>(tok_.int_magnitude);
    lit->SetFromInt64(linear, v);
    Next();
    return absl::OkStatus();
  }
  if (IsFloat(type)) {
    double v = 0;
    std::optional<uint64_t> bits;
    HLOREF_RETURN_IF_ERROR(ParseFloatToken(type, &v, &bits));
    if (bits.has_value()) {
      lit->SetRawBits(linear, *bits);
    } else {
      lit->SetFromDouble(linear, v);
    }
    return absl::OkStatus();
  }
  if (IsComplex(type)) {
    PrimitiveType component = ComplexComponentType(type);
    double re = 0, im = 0;
    std::optional<uint64_t> bits;
    if (Is(TokKind::kLparen)) {
      Next();
      HLOREF_RETURN_IF_ERROR(ParseFloatToken(component, &re, &bits));
      HLOREF_RETURN_IF_ERROR(
          Expect(TokKind::kComma, "',' between real and imaginary parts"));
      HLOREF_RETURN_IF_ERROR(ParseFloatToken(component, &im, &bits));
      HLOREF_RETURN_IF_ERROR(
          Expect(TokKind::kRparen, "')' after the imaginary part"));
    } else {
      HLOREF_RETURN_IF_ERROR(ParseFloatToken(component, &re, &bits));
    }
    lit->SetFromComplex(linear, {re, im});
    return absl::OkStatus();
  }
  return ErrorHere(absl::StrCat("a ", PrimitiveTypeName(type),
                                " value cannot be written as a literal"));
}

absl::Status Parser::ParseArrayLevel(Literal* lit, int64_t dim, int64_t base) {
  HLOREF_DEPTH_GUARD();
  const Shape& shape = lit->shape();
  const int64_t n = shape.dimensions(dim);
  // The product overflows only when another dimension is 0 (a shape with
  // elements is at most max_literal_bytes, checked before): then no element
  // is ever written and the stride does not matter (a fuzzer finding:
  // f16[0, 655065409, 3, 65506540906540, 3] {...} overflowed int64).
  int64_t stride = 1;
  for (int64_t d = dim + 1; d < shape.rank(); ++d) {
    if (__builtin_mul_overflow(stride, shape.dimensions(d), &stride)) {
      stride = 0;
      break;
    }
  }
  const Token open = tok_;
  HLOREF_RETURN_IF_ERROR(Expect(
      TokKind::kLbrace,
      absl::StrCat("'{' for dimension ", dim, " of ", shape.ToString(false))));
  int64_t count = 0;
  if (!Is(TokKind::kRbrace)) {
    while (true) {
      if (count >= n) {
        return ErrorHere(absl::StrCat("too many elements in dimension ", dim,
                                      " of ", shape.ToString(false),
                                      " (expected ", n, ")"));
      }
      if (dim == shape.rank() - 1) {
        HLOREF_RETURN_IF_ERROR(ParseElement(lit, base + count));
      } else {
        HLOREF_RETURN_IF_ERROR(
            ParseArrayLevel(lit, dim + 1, base + count * stride));
      }
      ++count;
      if (Is(TokKind::kComma)) {
        Next();
        continue;
      }
      break;
    }
  }
  if (!Is(TokKind::kRbrace)) return ErrorHere("expected ',' or '}' in literal");
  if (count != n) {
    return Error(open, absl::StrCat("dimension ", dim, " of ",
                                    shape.ToString(false), " has ", n,
                                    " elements but the literal gives ", count));
  }
  Next();
  return absl::OkStatus();
}

absl::Status Parser::CheckLiteralSize(const Shape& shape) {
  // Tuples element by element (an elided tuple constant gets storage for
  // every element, nested tuples too).
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      HLOREF_RETURN_IF_ERROR(CheckLiteralSize(s));
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  // A literal's storage is sized from its dimensions: an unbounded or a
  // negative one has no size (literal_fuzz findings 18 and 20: the storage
  // of `f32[?]{0}(-5)` and of an elided tuple holding `f32[?]` was sized
  // from them and the process aborted).
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.is_unbounded_dimension(d)) {
      return ErrorHere(
          absl::StrCat("a literal cannot have the unbounded "
                       "shape ",
                       shape.ToString()));
    }
    if (shape.dimensions(d) < 0) {
      return ErrorHere(absl::StrCat("dimension ", d, " of the literal's shape ",
                                    shape.ToString(), " has negative size ",
                                    shape.dimensions(d)));
    }
  }
  // Arrays are stored at their bounds; 16 bytes is the widest element.
  uint64_t bytes = static_cast<uint64_t>(StorageBytes(shape.element_type()));
  for (int64_t d : shape.dimensions()) {
    if (d != 0 && bytes > std::numeric_limits<uint64_t>::max() /
                              static_cast<uint64_t>(d)) {
      bytes = std::numeric_limits<uint64_t>::max();
      break;
    }
    bytes *= static_cast<uint64_t>(d);
  }
  if (bytes >
      static_cast<uint64_t>(std::max<int64_t>(options_.max_literal_bytes, 0))) {
    return ErrorHere(absl::StrCat(
        "a literal of shape ", shape.ToString(false), " needs ", bytes,
        " bytes, more than the limit of ", options_.max_literal_bytes, " bytes",
        options_.limit_flag.empty() ? "" : " (raise it with ",
        options_.limit_flag, options_.limit_flag.empty() ? "" : "=BYTES)"));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseLiteralValue(const Shape& shape, Literal* out) {
  HLOREF_DEPTH_GUARD();
  if (shape.IsTuple()) {
    if (Is(TokKind::kLbrace) && PeekNext().kind == TokKind::kDots) {
      Next();
      Next();
      HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' after '{...'"));
      std::vector<Literal> elements;
      for (const Shape& s : shape.tuple_shapes()) {
        Literal e;
        HLOREF_RETURN_IF_ERROR(CheckLiteralSize(s));
        // Storage nobody reads (elided values are refused, printed as
        // {...}, or overwritten by `run --fill-elided`): left unwritten, so
        // a large elided constant costs address space, not memory.
        e = s.IsToken() ? Literal::Token() : Literal::Uninitialized(s);
        e.set_elided(true);
        elements.push_back(std::move(e));
      }
      *out = Literal::MakeTuple(std::move(elements));
      out->set_elided(true);
      return absl::OkStatus();
    }
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' for a tuple literal"));
    std::vector<Literal> elements;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0) {
        HLOREF_RETURN_IF_ERROR(
            Expect(TokKind::kComma, "',' between tuple literal elements"));
      }
      Literal e;
      HLOREF_RETURN_IF_ERROR(ParseLiteralValue(shape.tuple_shapes(i), &e));
      elements.push_back(std::move(e));
    }
    HLOREF_RETURN_IF_ERROR(Expect(
        TokKind::kRparen,
        absl::StrCat("')' after ", shape.tuple_size(), " tuple elements")));
    *out = Literal::MakeTuple(std::move(elements));
    return absl::OkStatus();
  }
  if (shape.IsToken()) {
    return ErrorHere("a token cannot be written as a literal");
  }
  if (!shape.IsArray()) {
    return ErrorHere(
        absl::StrCat("no literal syntax for shape ", shape.ToString()));
  }
  HLOREF_RETURN_IF_ERROR(CheckLiteralSize(shape));
  const bool elided = shape.rank() != 0 && Is(TokKind::kLbrace) &&
                      PeekNext().kind == TokKind::kDots;
  if (!elided && shape.rank() != 0 && shape.is_static() &&
      Is(TokKind::kLbrace)) {
    // Every element written takes at least one character, so a shape with
    // more elements than the rest of the text has characters is refused
    // before its storage is allocated (an 80-byte text naming a 7 GB shape
    // made the parser allocate and zero 7 GB, found by fuzzing).
    const uint64_t room = lex_.text().size() - tok_.start;
    uint64_t count = 1;
    for (int64_t d : shape.dimensions()) {
      const uint64_t n = static_cast<uint64_t>(d);
      count = (n != 0 && count > room / n) ? room + 1 : count * n;
    }
    if (count > room) {
      return ErrorHere(
          absl::StrCat("the literal of shape ", shape.ToString(false),
                       " has more elements than the ", room,
                       " characters of text that follow can hold"));
    }
  }
  // An elided literal's storage is never read (see the tuple case above).
  Literal lit = elided ? Literal::Uninitialized(shape) : Literal(shape);
  if (shape.rank() == 0) {
    HLOREF_RETURN_IF_ERROR(ParseElement(&lit, 0));
  } else if (elided) {
    Next();
    Next();
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' after '{...'"));
    lit.set_elided(true);
  } else if (Is(TokKind::kLbrace)) {
    HLOREF_RETURN_IF_ERROR(ParseArrayLevel(&lit, 0, 0));
  } else {
    // XLA sets element 0 only (docs/hlo-text-format.md 4.3).
    if (lit.element_count() == 0) {
      return ErrorHere(
          absl::StrCat("a scalar cannot initialize the empty "
                       "shape ",
                       shape.ToString()));
    }
    Warn(tok_, absl::StrCat("scalar value for the non-scalar constant shape ",
                            shape.ToString(),
                            " sets element 0 only, the rest stay zero "
                            "(XLA's behaviour)"));
    HLOREF_RETURN_IF_ERROR(ParseElement(&lit, 0));
  }
  *out = std::move(lit);
  return absl::OkStatus();
}

// ============================================================================
// Module structure

absl::StatusOr<std::unique_ptr<HloModule>> Parser::ParseModule() {
  module_ = std::make_unique<HloModule>("");
  module_->set_source_file(options_.file_name);
  bool headerless = true;
  if (IsWord("HloModule")) {
    headerless = false;
    Next();
    // Older dumps end the header with a colon (`HloModule name:`), which
    // the lexer reads with the name.
    const bool name_colon = Is(TokKind::kNameColon);
    if (!Is(TokKind::kIdent) && !Is(TokKind::kString) && !name_colon) {
      return ErrorHere("expected the module name after HloModule");
    }
    module_->set_name(tok_.text);
    Next();
    absl::flat_hash_set<std::string> seen;
    while (!name_colon && Is(TokKind::kComma)) {
      Next();
      HLOREF_RETURN_IF_ERROR(ParseHeaderAttribute(&seen));
    }
    // ... or after header attributes (`HloModule name, a=1:`).
    if (Is(TokKind::kColon)) Next();
  }
  if (IsWord("FileNames")) HLOREF_RETURN_IF_ERROR(ParseStackFrames());
  while (!Is(TokKind::kEof)) {
    HLOREF_RETURN_IF_ERROR(ParseComputation());
  }
  if (module_->computations().empty()) {
    return ErrorHere("the module has no computations");
  }
  HloComputation* entry = nullptr;
  for (const auto& c : module_->computations()) {
    if (c->is_entry()) entry = c.get();
  }
  if (entry == nullptr) {
    // No ENTRY: the last computation that is not a synthesized one.
    for (const auto& c : module_->computations()) {
      if (!c->is_async_sugar_wrapped()) entry = c.get();
    }
    if (entry == nullptr) entry = module_->computations().back().get();
  }
  module_->set_entry(entry);
  if (headerless) module_->set_name(absl::StrCat("module_", entry->name()));
  return std::move(module_);
}

absl::Status Parser::ParseHeaderAttribute(
    absl::flat_hash_set<std::string>* seen) {
  if (!Is(TokKind::kAttrName)) {
    return ErrorHere("expected a header attribute 'name=value'");
  }
  const Token name_tok = tok_;
  const std::string name = tok_.text;
  if (!seen->insert(name).second) {
    return ErrorHere(absl::StrCat("header attribute '", name, "' given twice"));
  }
  Next();
  HloModuleConfig* config = module_->mutable_config();
  if (name == "is_scheduled") {
    config->has_is_scheduled = true;
    return ParseBool(&config->is_scheduled);
  }
  if (name == "entry_computation_layout") return ParseEntryComputationLayout();
  if (name == "replica_count" || name == "num_partitions") {
    int64_t v = 0;
    const Token at = tok_;
    HLOREF_RETURN_IF_ERROR(ParseInt64(&v));
    if (v < 1) return Error(at, absl::StrCat(name, " must be at least 1"));
    (name == "replica_count" ? config->replica_count : config->num_partitions) =
        v;
    return absl::OkStatus();
  }
  if (name == "frontend_attributes") {
    return ParseFrontendAttributes(&config->frontend_attributes);
  }
  if (name == "input_output_alias" || name == "buffer_donor" ||
      name == "alias_passthrough_params" ||
      name == "allow_spmd_sharding_propagation_to_parameters" ||
      name == "allow_spmd_sharding_propagation_to_output") {
    HLOREF_ASSIGN_OR_RETURN(std::string value, TakeRawValue());
    config->other.emplace_back(name, std::move(value));
    return absl::OkStatus();
  }
  Warn(name_tok, absl::StrCat("unknown header attribute '", name, "' skipped"));
  HLOREF_ASSIGN_OR_RETURN(std::string ignored, TakeRawValue());
  (void)ignored;
  return absl::OkStatus();
}

absl::Status Parser::ParseEntryComputationLayout() {
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start the layout"));
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before the parameters"));
  std::vector<Shape> params;
  if (!Is(TokKind::kRparen)) {
    while (true) {
      Shape s;
      HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&s));
      params.push_back(std::move(s));
      if (Is(TokKind::kComma)) {
        Next();
        continue;
      }
      break;
    }
  }
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the parameters"));
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->'"));
  Shape result;
  HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&result));
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' to end the layout"));
  module_->mutable_config()->entry_parameter_layouts = std::move(params);
  module_->mutable_config()->entry_result_layout = std::move(result);
  return absl::OkStatus();
}

absl::Status Parser::ParseStackFrames() {
  const size_t start = tok_.start;
  size_t end = start;
  for (absl::string_view section :
       {"FileNames", "FunctionNames", "FileLocations", "StackFrames"}) {
    if (!IsWord(section)) {
      return ErrorHere(
          absl::StrCat("expected the stack-frame section '", section, "'"));
    }
    end = tok_.end;
    Next();
    const bool names = section == "FileNames" || section == "FunctionNames";
    while (Is(TokKind::kInt)) {
      Next();
      if (names) {
        std::string s;
        end = tok_.end;
        HLOREF_RETURN_IF_ERROR(ParseString(&s));
      } else {
        HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' for the entry"));
        while (!Is(TokKind::kRbrace)) {
          if (!Is(TokKind::kAttrName)) {
            return ErrorHere("expected 'field=' in the stack-frame entry");
          }
          Next();
          int64_t v = 0;
          HLOREF_RETURN_IF_ERROR(ParseInt64(&v));
          if (Is(TokKind::kComma)) Next();
        }
        end = tok_.end;
        Next();
      }
    }
  }
  std::string text(lex_.text().substr(start, end - start));
  while (!text.empty() &&
         absl::ascii_isspace(static_cast<unsigned char>(text.back()))) {
    text.pop_back();
  }
  module_->mutable_config()->other.emplace_back("stack_frames",
                                                std::move(text));
  return absl::OkStatus();
}

absl::Status Parser::ParseComputation() {
  const Token start = tok_;
  bool is_entry = false;
  if (IsWord("ENTRY")) {
    is_entry = true;
    Next();
  }
  if (!Is(TokKind::kIdent)) {
    return ErrorHere("expected a computation name");
  }
  const Token name_tok = tok_;
  std::string name = tok_.text;
  if (module_->FindComputation(name) != nullptr) {
    return ErrorHere(absl::StrCat("computation '", name, "' is defined twice"));
  }
  Next();
  auto comp = std::make_unique<HloComputation>(name);
  comp->set_location(LocationOf(name_tok));
  comp->set_is_entry(is_entry);
  if (is_entry) {
    for (const auto& c : module_->computations()) {
      if (c->is_entry()) {
        return Error(start, "a second ENTRY computation");
      }
    }
  }
  if (Is(TokKind::kLparen)) HLOREF_RETURN_IF_ERROR(ParseSignature(comp.get()));
  CompState cs;
  cs.comp = comp.get();
  pending_names_.insert(name);
  HLOREF_RETURN_IF_ERROR(
      Expect(TokKind::kLbrace, "'{' to start the computation body"));
  HLOREF_RETURN_IF_ERROR(ParseInstructions(&cs));
  const Token close = tok_;
  HLOREF_RETURN_IF_ERROR(
      Expect(TokKind::kRbrace, "'}' to end the computation"));
  HLOREF_RETURN_IF_ERROR(FinishComputation(&cs, close));
  if (Is(TokKind::kComma) && PeekNext().kind == TokKind::kAttrName &&
      PeekNext().text == "execution_thread") {
    Next();
    Next();
    std::string thread;
    HLOREF_RETURN_IF_ERROR(ParseString(&thread));
    comp->set_execution_thread(thread);
  }
  pending_names_.erase(name);
  module_->AddComputation(std::move(comp));
  return absl::OkStatus();
}

absl::Status Parser::ParseSignature(HloComputation* comp) {
  Next();  // (
  if (!Is(TokKind::kRparen)) {
    while (true) {
      std::string pname;
      if (Is(TokKind::kNameColon)) {
        pname = tok_.text;
        Next();
      } else if (Is(TokKind::kIdent) && PeekNext().kind == TokKind::kColon) {
        pname = tok_.text;
        Next();
        Next();
      } else {
        return ErrorHere("expected 'name: shape' in the signature");
      }
      Shape s;
      HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&s));
      comp->mutable_signature_parameters()->emplace_back(pname, std::move(s));
      if (Is(TokKind::kComma)) {
        Next();
        continue;
      }
      break;
    }
  }
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' to end the signature"));
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->' and the result shape"));
  Shape result;
  HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&result));
  comp->set_signature_result(std::move(result));
  return absl::OkStatus();
}

absl::Status Parser::ParseInstructions(CompState* cs) {
  if (Is(TokKind::kRbrace)) {
    return ErrorHere(absl::StrCat("computation '", cs->comp->name(),
                                  "' has no instructions"));
  }
  while (!Is(TokKind::kRbrace)) {
    if (Is(TokKind::kEof)) {
      return ErrorHere("expected '}' to end the computation");
    }
    HLOREF_RETURN_IF_ERROR(ParseInstruction(cs));
  }
  return absl::OkStatus();
}

absl::Status Parser::FinishComputation(CompState* cs, const Token& close) {
  HloComputation* comp = cs->comp;
  for (auto& [inst, name, at] : cs->control_refs) {
    auto it = cs->by_name.find(name);
    if (it == cs->by_name.end()) {
      return Error(at, absl::StrCat("control predecessor '", name,
                                    "' is not an instruction of computation '",
                                    comp->name(), "'"));
    }
    inst->mutable_attrs()->control_predecessors.push_back(it->second);
  }
  HloInstruction* root = cs->root;
  if (root == nullptr) root = comp->instructions().back().get();
  comp->set_root(root);
  comp->FinalizeParameters();
  if (comp->signature_result().has_value() &&
      !comp->signature_result()->Compatible(root->shape())) {
    return Error(
        close, absl::StrCat(
                   "computation '", comp->name(), "' declares result shape ",
                   comp->signature_result()->ToString(false), " but its root %",
                   root->name(), " has shape ", root->shape().ToString(false)));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseInstruction(CompState* cs) {
  bool is_root = false;
  const Token start = tok_;
  if (IsWord("ROOT")) {
    is_root = true;
    Next();
  }
  const Token name_tok = tok_;
  std::string name;
  if (Is(TokKind::kIdent)) {
    name = tok_.text;
    Next();
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'=' after the name"));
  } else if (Is(TokKind::kAttrName)) {
    name = tok_.text;
    Next();
  } else {
    return ErrorHere("expected an instruction 'name = ...'");
  }
  if (cs->by_name.contains(name)) {
    return Error(name_tok, absl::StrCat("instruction '", name,
                                        "' is defined twice in computation '",
                                        cs->comp->name(), "'"));
  }
  std::optional<Shape> shape;
  if (AtShape()) {
    Shape s;
    HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&s));
    shape = std::move(s);
  }
  HLOREF_ASSIGN_OR_RETURN(
      HloInstruction * inst,
      ParseInstructionBody(cs, name, std::move(shape), false, name_tok));
  if (is_root) {
    if (cs->root != nullptr) {
      return Error(
          start, absl::StrCat("second ROOT in computation '", cs->comp->name(),
                              "' (first: %", cs->root->name(), ")"));
    }
    cs->root = inst;
  }
  return absl::OkStatus();
}

absl::StatusOr<HloInstruction*> Parser::ParseInstructionBody(
    CompState* cs, std::string name, std::optional<Shape> shape, bool nested,
    const Token& name_tok) {
  HLOREF_DEPTH_GUARD();
  if (!Is(TokKind::kIdent) || tok_.percent) {
    return ErrorHere("expected an opcode");
  }
  const Token op_tok = tok_;
  HloOpcode opcode;
  std::optional<HloOpcode> wrapped;  // async sugar: the wrapped opcode
  {
    absl::StatusOr<HloOpcode> parsed = ParseHloOpcode(tok_.text);
    absl::string_view base;
    HloOpcode async_op;
    if (parsed.ok()) {
      opcode = *parsed;
    } else if (IsSugarSuffix(tok_.text, &base, &async_op) &&
               ParseHloOpcode(base).ok()) {
      opcode = async_op;
      wrapped = *ParseHloOpcode(base);
    } else {
      return ErrorHere(parsed.status().message());
    }
  }
  Next();
  if (!Is(TokKind::kLparen)) {
    return ErrorHere(
        absl::StrCat("expected '(' after the opcode '", op_tok.text, "'"));
  }
  std::vector<HloInstruction*> operands;
  int64_t parameter_number = -1;
  Literal literal;
  if (opcode == HloOpcode::kParameter) {
    Next();
    if (!Is(TokKind::kInt) || tok_.negative) {
      return ErrorHere("expected the parameter number");
    }
    HLOREF_RETURN_IF_ERROR(ParseInt64(&parameter_number));
    HLOREF_RETURN_IF_ERROR(
        Expect(TokKind::kRparen, "')' after the parameter number"));
  } else if (opcode == HloOpcode::kConstant) {
    if (!shape.has_value()) {
      return Error(op_tok,
                   "a constant needs its shape written before "
                   "'constant'");
    }
    Next();
    HLOREF_RETURN_IF_ERROR(ParseLiteralValue(*shape, &literal));
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the literal"));
  } else {
    HLOREF_RETURN_IF_ERROR(ParseOperands(cs, &operands));
  }

  // Attributes.
  ParsedAttrs pa;
  const HloOpcode validate_op =
      wrapped.has_value() && opcode == HloOpcode::kAsyncStart ? *wrapped
                                                              : opcode;
  const HloOpcode alt_op = opcode;
  absl::flat_hash_set<AttrId> seen;
  if (!nested) {
    while (Is(TokKind::kComma)) {
      Next();
      HLOREF_RETURN_IF_ERROR(ParseAttribute(validate_op, alt_op, &seen, &pa));
    }
  }
  // Required attributes.
  const OpInfo& info = GetOpInfo(validate_op);
  if (!(wrapped.has_value() && opcode != HloOpcode::kAsyncStart)) {
    for (const OpAttrSpec& spec : info.attributes) {
      if (!spec.required || seen.contains(spec.id)) continue;
      if (wrapped.has_value() && spec.id == AttrId::kCalls &&
          validate_op == HloOpcode::kAsyncStart) {
        continue;
      }
      if (validate_op == HloOpcode::kCustomCall) continue;  // target below
      return Error(op_tok,
                   absl::StrCat("'", info.name, "' requires the attribute '",
                                AttrName(spec.id), "'"));
    }
  }
  if (validate_op == HloOpcode::kCustomCall &&
      !seen.contains(AttrId::kCustomCallTarget)) {
    return Error(op_tok,
                 "'custom-call' requires the attribute "
                 "'custom_call_target'");
  }
  if (validate_op == HloOpcode::kCustomCall &&
      seen.contains(AttrId::kToApply) &&
      seen.contains(AttrId::kCalledComputations)) {
    return Error(op_tok,
                 "custom-call takes either to_apply or "
                 "called_computations, not both");
  }
  if (validate_op == HloOpcode::kConditional) {
    bool pred_form = seen.contains(AttrId::kTrueComputation) ||
                     seen.contains(AttrId::kFalseComputation);
    bool branch_form = seen.contains(AttrId::kBranchComputations);
    if (pred_form && branch_form) {
      return Error(op_tok,
                   "conditional takes true_computation/"
                   "false_computation or branch_computations, not "
                   "both");
    }
    if (!branch_form && !(seen.contains(AttrId::kTrueComputation) &&
                          seen.contains(AttrId::kFalseComputation))) {
      return Error(op_tok,
                   "conditional requires true_computation and "
                   "false_computation, or branch_computations");
    }
  }
  // Called computations in canonical order.
  std::vector<HloComputation*> callees;
  for (AttrId id : {AttrId::kToApply, AttrId::kCalls, AttrId::kCondition,
                    AttrId::kBody, AttrId::kSelect, AttrId::kScatter,
                    AttrId::kTrueComputation, AttrId::kFalseComputation,
                    AttrId::kBranchComputations, AttrId::kCalledComputations}) {
    auto it = pa.callees.find(id);
    if (it == pa.callees.end()) continue;
    for (HloComputation* c : it->second) callees.push_back(c);
  }

  // Result shape.
  bool infer_later = false;
  if (!shape.has_value()) {
    if (wrapped.has_value() && opcode == HloOpcode::kAsyncStart) {
      return Error(op_tok,
                   "the shape of an async start cannot be inferred; "
                   "write it");
    }
    Shape inferred;
    HloOpcode infer_op = opcode;
    if (opcode == HloOpcode::kAsyncDone && wrapped.has_value() &&
        operands.size() == 1 && operands[0]->shape().IsTuple() &&
        operands[0]->shape().tuple_size() >= 2) {
      inferred = operands[0]->shape().tuple_shapes(1);
    } else if (!wrapped.has_value() && HookInfersShape(opcode)) {
      if (g_shape_inference_hook == nullptr) {
        return Error(op_tok, absl::StrCat("the result shape of '",
                                          HloOpcodeString(opcode),
                                          "' is inferred by the verifier, "
                                          "which is not linked here; write "
                                          "it before the opcode"));
      }
      for (HloComputation* c : callees) {
        if (c->root() == nullptr) {
          return Error(
              op_tok,
              absl::StrCat("the result shape of '", HloOpcodeString(opcode),
                           "' cannot be inferred before "
                           "computation '",
                           c->name(), "' is defined; write it"));
        }
      }
      // Placeholder: XLA's default element type; the hook sets the shape.
      PrimitiveType t = operands.empty() || !operands[0]->shape().IsArray()
                            ? PrimitiveType::kF32
                            : operands[0]->shape().element_type();
      if ((opcode == HloOpcode::kDot || opcode == HloOpcode::kRaggedDot ||
           opcode == HloOpcode::kScaledDot ||
           opcode == HloOpcode::kConvolution) &&
          operands.size() >= 2 && operands[1]->shape().IsArray()) {
        t = HigherPrecisionType(t, operands[1]->shape().element_type());
      }
      inferred = Shape::Scalar(t);
      infer_later = true;
    } else {
      HLOREF_RETURN_IF_ERROR(
          InferShape(infer_op, operands, pa.attrs, op_tok, &inferred));
    }
    shape = std::move(inferred);
  }
  SetDefaultLayouts(&*shape);

  if (nested)
    name = UniqueInstructionName(
        *cs, absl::StrCat(HloOpcodeString(opcode), ".nested"));
  if (cs->by_name.contains(name)) {
    return Error(name_tok, absl::StrCat("instruction '", name,
                                        "' is defined twice in computation '",
                                        cs->comp->name(), "'"));
  }
  auto inst = std::make_unique<HloInstruction>(opcode, *shape, name);
  inst->set_location(LocationOf(name_tok));
  inst->set_parameter_number(parameter_number);
  if (opcode == HloOpcode::kConstant) {
    if (literal.shape().IsArray() && shape->has_layout()) {
      literal.set_layout(shape->layout());
    }
    *inst->mutable_literal() = std::move(literal);
  }
  for (HloInstruction* op : operands) inst->AppendOperand(op);

  if (wrapped.has_value() && opcode == HloOpcode::kAsyncStart) {
    // Synthesize the wrapped computation.
    std::string comp_name =
        UniqueComputationName(absl::StrCat(name, ".wrapped"));
    auto comp = std::make_unique<HloComputation>(comp_name);
    comp->set_location(LocationOf(name_tok));
    comp->set_is_async_sugar_wrapped(true);
    std::vector<HloInstruction*> params;
    for (size_t i = 0; i < operands.size(); ++i) {
      auto p = std::make_unique<HloInstruction>(HloOpcode::kParameter,
                                                operands[i]->shape(),
                                                absl::StrCat("param_", i));
      p->set_parameter_number(static_cast<int64_t>(i));
      p->set_location(LocationOf(name_tok));
      params.push_back(comp->AddInstruction(std::move(p)));
    }
    Shape wrapped_shape = *shape;
    if (shape->IsTuple() && shape->tuple_size() >= 2) {
      wrapped_shape = shape->tuple_shapes(1);
    }
    auto w = std::make_unique<HloInstruction>(
        *wrapped, wrapped_shape, std::string(HloOpcodeString(*wrapped)));
    w->set_location(LocationOf(name_tok));
    for (HloInstruction* p : params) w->AppendOperand(p);
    // Split attributes: common ones and async_execution_thread stay on the
    // start, the op's own go to the wrapped instruction.
    HloAttributes start_attrs;
    HloAttributes& wa = *w->mutable_attrs();
    wa = pa.attrs;
    wa.present.reset();
    for (int i = 0; i < kNumAttrs; ++i) {
      AttrId id = static_cast<AttrId>(i);
      if (!pa.attrs.has(id)) continue;
      bool to_start = IsCommonAttr(id) || id == AttrId::kAsyncExecutionThread ||
                      (!OpAcceptsAttr(*wrapped, id) &&
                       OpAcceptsAttr(HloOpcode::kAsyncStart, id));
      (to_start ? start_attrs : wa).set(id);
    }
    start_attrs.metadata = pa.attrs.metadata;
    start_attrs.frontend_attributes = pa.attrs.frontend_attributes;
    start_attrs.backend_config = pa.attrs.backend_config;
    start_attrs.async_execution_thread = pa.attrs.async_execution_thread;
    for (auto& [id, text] : pa.attrs.raw) {
      if (start_attrs.has(id)) start_attrs.raw[id] = text;
    }
    if (start_attrs.has(AttrId::kOutputToOperandAliasing)) {
      wa.raw.erase(AttrId::kOutputToOperandAliasing);
    }
    for (int i = 0; i < kNumAttrs; ++i) {
      AttrId id = static_cast<AttrId>(i);
      if (start_attrs.has(id) && !IsCommonAttr(id)) continue;
      if (IsCommonAttr(id) && id != AttrId::kBackendConfig &&
          id != AttrId::kFrontendAttributes) {
        wa.raw.erase(id);
      }
    }
    if (start_attrs.has(AttrId::kBackendConfig)) {
      wa.set(AttrId::kBackendConfig);
    }
    if (start_attrs.has(AttrId::kFrontendAttributes)) {
      wa.set(AttrId::kFrontendAttributes);
    }
    wa.control_predecessors.clear();
    wa.metadata = OpMetadata();
    *w->mutable_called_computations() = callees;
    HloInstruction* root = comp->AddInstruction(std::move(w));
    comp->set_root(root);
    comp->FinalizeParameters();
    HloComputation* wrapped_comp = module_->AddComputation(std::move(comp));
    *inst->mutable_attrs() = std::move(start_attrs);
    inst->mutable_called_computations()->push_back(wrapped_comp);
  } else {
    *inst->mutable_attrs() = std::move(pa.attrs);
    *inst->mutable_called_computations() = std::move(callees);
  }
  if (opcode == HloOpcode::kAsyncUpdate || opcode == HloOpcode::kAsyncDone) {
    // Inherit the wrapped computation from the start (or update).
    HloComputation* from = nullptr;
    if (inst->operand_count() == 1 &&
        (inst->operand(0)->opcode() == HloOpcode::kAsyncStart ||
         inst->operand(0)->opcode() == HloOpcode::kAsyncUpdate) &&
        !inst->operand(0)->called_computations().empty()) {
      from = inst->operand(0)->called_computations()[0];
    }
    if (wrapped.has_value()) {
      if (from == nullptr || from->root() == nullptr ||
          from->root()->opcode() != *wrapped) {
        return Error(op_tok, absl::StrCat("'", op_tok.text,
                                          "' takes one operand, the "
                                          "'",
                                          HloOpcodeString(*wrapped),
                                          "-start' or '-update' it completes"));
      }
    }
    inst->mutable_called_computations()->clear();
    if (from != nullptr) inst->mutable_called_computations()->push_back(from);
  }
  if (infer_later) {
    absl::StatusOr<Shape> inferred = g_shape_inference_hook(*inst);
    if (!inferred.ok()) {
      return Error(op_tok, absl::StrCat("cannot infer the result shape of '",
                                        HloOpcodeString(opcode),
                                        "': ", inferred.status().message(),
                                        "; write the shape"));
    }
    *inst->mutable_shape() = *std::move(inferred);
    SetDefaultLayouts(inst->mutable_shape());
  }
  for (auto& [pname, at] : pa.control_predecessor_names) {
    cs->control_refs.emplace_back(nullptr, pname, at);
  }
  HloInstruction* added = cs->comp->AddInstruction(std::move(inst));
  for (auto& ref : cs->control_refs) {
    if (std::get<0>(ref) == nullptr) std::get<0>(ref) = added;
  }
  cs->by_name[added->name()] = added;
  return added;
}

absl::Status Parser::ParseOperands(CompState* cs,
                                   std::vector<HloInstruction*>* operands) {
  Next();  // (
  if (Is(TokKind::kRparen)) {
    Next();
    return absl::OkStatus();
  }
  while (true) {
    std::optional<Shape> shape;
    const Token shape_tok = tok_;
    // An instruction may be named like an element type (`s1`, `u4`): in
    // operand position such a word starts a shape only when `[` follows.
    const bool type_named_operand = Is(TokKind::kIdent) &&
                                    PeekNext().kind != TokKind::kLsquare &&
                                    !AtBufferShape();
    if (AtShape() && !type_named_operand) {
      Shape s;
      HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&s));
      shape = std::move(s);
    }
    if (!Is(TokKind::kIdent)) {
      return ErrorHere("expected an operand name");
    }
    const Token name_tok = tok_;
    HloInstruction* operand = nullptr;
    if (!tok_.percent && PeekNext().kind == TokKind::kLparen) {
      // Nested instruction: `f32[2] add(a, b)`.
      HLOREF_ASSIGN_OR_RETURN(
          operand,
          ParseInstructionBody(cs, "", std::move(shape), true, name_tok));
      shape.reset();
    } else {
      auto it = cs->by_name.find(tok_.text);
      if (it == cs->by_name.end()) {
        return ErrorHere(
            absl::StrCat("use of undefined instruction '", tok_.text,
                         "' (operands must be defined earlier in computation '",
                         cs->comp->name(), "')"));
      }
      operand = it->second;
      Next();
      while (Is(TokKind::kHash)) {
        const Token hash = tok_;
        Next();
        int64_t index = 0;
        if (!Is(TokKind::kInt)) return ErrorHere("expected a tuple index");
        HLOREF_RETURN_IF_ERROR(ParseInt64(&index));
        HLOREF_ASSIGN_OR_RETURN(operand,
                                GetOrCreateGte(cs, operand, index, hash));
      }
    }
    if (shape.has_value() && !shape->Compatible(operand->shape())) {
      return Error(shape_tok, absl::StrCat("operand shape ", shape->ToString(),
                                           " does not match the shape ",
                                           operand->shape().ToString(), " of %",
                                           operand->name()));
    }
    operands->push_back(operand);
    if (Is(TokKind::kComma)) {
      Next();
      continue;
    }
    return Expect(TokKind::kRparen, "',' or ')' in the operand list");
  }
}

absl::StatusOr<HloInstruction*> Parser::GetOrCreateGte(CompState* cs,
                                                       HloInstruction* tuple,
                                                       int64_t index,
                                                       const Token& at) {
  if (!tuple->shape().IsTuple()) {
    return Error(at, absl::StrCat("'#' needs a tuple operand; %", tuple->name(),
                                  " has shape ", tuple->shape().ToString()));
  }
  if (index < 0 || index >= tuple->shape().tuple_size()) {
    return Error(
        at, absl::StrCat("tuple index ", index, " is out of range for %",
                         tuple->name(), " with ", tuple->shape().tuple_size(),
                         " elements"));
  }
  for (const auto& inst : cs->comp->instructions()) {
    if (inst->opcode() == HloOpcode::kGetTupleElement &&
        inst->operand_count() == 1 && inst->operand(0) == tuple &&
        inst->attrs().index == index) {
      return inst.get();
    }
  }
  std::string name =
      UniqueInstructionName(*cs, absl::StrCat(tuple->name(), ".gte", index));
  auto gte = std::make_unique<HloInstruction>(
      HloOpcode::kGetTupleElement, tuple->shape().tuple_shapes(index), name);
  gte->AppendOperand(tuple);
  gte->mutable_attrs()->index = index;
  gte->mutable_attrs()->set(AttrId::kIndex);
  gte->set_location(LocationOf(at));
  HloInstruction* added = cs->comp->AddInstruction(std::move(gte));
  cs->by_name[name] = added;
  return added;
}

absl::Status Parser::InferShape(HloOpcode opcode,
                                const std::vector<HloInstruction*>& operands,
                                const HloAttributes& attrs, const Token& at,
                                Shape* out) {
  const OpInfo& info = GetOpInfo(opcode);
  auto need = [&](size_t n) -> absl::Status {
    if (operands.size() < n) {
      return Error(
          at, absl::StrCat("cannot infer the shape of '", info.name, "' with ",
                           operands.size(), " operands; write the shape"));
    }
    return absl::OkStatus();
  };
  switch (opcode) {
    case HloOpcode::kTuple: {
      std::vector<Shape> elements;
      for (HloInstruction* op : operands) elements.push_back(op->shape());
      *out = Shape::Tuple(std::move(elements));
      return absl::OkStatus();
    }
    case HloOpcode::kGetTupleElement: {
      HLOREF_RETURN_IF_ERROR(need(1));
      const Shape& t = operands[0]->shape();
      if (!t.IsTuple() || attrs.index < 0 || attrs.index >= t.tuple_size()) {
        return Error(at,
                     "cannot infer the shape of get-tuple-element: the "
                     "operand is not a tuple or the index is out of "
                     "range");
      }
      *out = t.tuple_shapes(attrs.index);
      return absl::OkStatus();
    }
    case HloOpcode::kCompare:
    case HloOpcode::kIsFinite:
      HLOREF_RETURN_IF_ERROR(need(1));
      if (!operands[0]->shape().IsArray()) break;
      *out = operands[0]->shape();
      out->set_element_type(PrimitiveType::kPred);
      return absl::OkStatus();
    case HloOpcode::kSelect:
    case HloOpcode::kClamp:
      HLOREF_RETURN_IF_ERROR(need(2));
      *out = operands[1]->shape();
      return absl::OkStatus();
    case HloOpcode::kBroadcast: {
      // XLA's parser: InferBroadcastShape(operand, dimensions) reads
      // `dimensions` as sizes prepended to the operand's dimensions (so a
      // scalar with no dimensions stays a scalar).
      HLOREF_RETURN_IF_ERROR(need(1));
      const Shape& o = operands[0]->shape();
      if (!o.IsArray()) break;
      std::vector<int64_t> dims = attrs.dimensions;
      for (int64_t d = 0; d < o.rank(); ++d) dims.push_back(o.dimensions(d));
      *out = Shape(o.element_type(), dims);
      return absl::OkStatus();
    }
    case HloOpcode::kAfterAll:
      *out = Shape::Token();
      return absl::OkStatus();
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      *out = Shape::Scalar(PrimitiveType::kU32);
      return absl::OkStatus();
    case HloOpcode::kAddDependency:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kCopy:
      HLOREF_RETURN_IF_ERROR(need(1));
      *out = operands[0]->shape();
      return absl::OkStatus();
    case HloOpcode::kReal:
    case HloOpcode::kImag:
    case HloOpcode::kAbs:
      HLOREF_RETURN_IF_ERROR(need(1));
      *out = operands[0]->shape();
      if (out->IsArray() && IsComplex(out->element_type())) {
        out->set_element_type(ComplexComponentType(out->element_type()));
      }
      return absl::OkStatus();
    case HloOpcode::kComplex:
      HLOREF_RETURN_IF_ERROR(need(1));
      *out = operands[0]->shape();
      if (out->IsArray() && out->element_type() == PrimitiveType::kF32) {
        out->set_element_type(PrimitiveType::kC64);
        return absl::OkStatus();
      }
      if (out->IsArray() && out->element_type() == PrimitiveType::kF64) {
        out->set_element_type(PrimitiveType::kC128);
        return absl::OkStatus();
      }
      break;
    default:
      if (info.family == OpFamily::kElementwiseUnary ||
          (info.family == OpFamily::kElementwiseBinary &&
           opcode != HloOpcode::kComplex)) {
        HLOREF_RETURN_IF_ERROR(need(1));
        *out = operands[0]->shape();
        return absl::OkStatus();
      }
      break;
  }
  return Error(at, absl::StrCat("the result shape of '", info.name,
                                "' cannot be inferred here; write it before "
                                "the opcode"));
}

// ============================================================================
// Attributes

absl::StatusOr<HloComputation*> Parser::ParseComputationRef() {
  if (Is(TokKind::kLbrace)) {
    // Inline computation `to_apply={ a = f32[] parameter(0) ... }`.
    HLOREF_DEPTH_GUARD();
    const Token open = tok_;
    Next();
    std::string name = UniqueComputationName("_");
    auto comp = std::make_unique<HloComputation>(name);
    comp->set_location(LocationOf(open));
    CompState cs;
    cs.comp = comp.get();
    pending_names_.insert(name);
    HLOREF_RETURN_IF_ERROR(ParseInstructions(&cs));
    const Token close = tok_;
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}'"));
    HLOREF_RETURN_IF_ERROR(FinishComputation(&cs, close));
    pending_names_.erase(name);
    return module_->AddComputation(std::move(comp));
  }
  if (!Is(TokKind::kIdent)) return ErrorHere("expected a computation name");
  HloComputation* comp = module_->FindComputation(tok_.text);
  if (comp == nullptr) {
    return ErrorHere(absl::StrCat(
        "computation '", tok_.text,
        "' is not defined (computations must be defined before use)"));
  }
  Next();
  return comp;
}

absl::Status Parser::ParseAttribute(HloOpcode opcode, HloOpcode alt_opcode,
                                    absl::flat_hash_set<AttrId>* seen,
                                    ParsedAttrs* pa) {
  std::string name;
  const Token name_tok = tok_;
  if (Is(TokKind::kAttrName)) {
    name = tok_.text;
    Next();
  } else if (Is(TokKind::kIdent) && PeekNext().kind == TokKind::kEqual) {
    name = tok_.text;
    Next();
    Next();
  } else {
    return ErrorHere("expected an attribute 'name=value'");
  }
  absl::StatusOr<AttrId> id = ParseAttrName(name);
  if (!id.ok()) {
    // An attribute from a newer (or older) XLA than the op table knows:
    // kept verbatim so printing gives it back, with a warning, since
    // evaluation cannot honour it.
    HLOREF_ASSIGN_OR_RETURN(std::string value, TakeRawValue());
    for (const auto& [known, unused] : pa->attrs.unknown_attributes) {
      if (known == name) {
        return Error(name_tok,
                     absl::StrCat("attribute '", name, "' given twice"));
      }
    }
    Warn(name_tok,
         absl::StrCat(
             "unknown attribute '", name, "' on '", HloOpcodeString(opcode),
             "' kept verbatim (verification refuses it, module.C14, unless it "
             "only carries debugging data)"));
    pa->attrs.unknown_attributes.emplace_back(name, std::move(value));
    return absl::OkStatus();
  }
  // Legacy `calls=` on async-update / async-done: read and ignore (the
  // computation is taken from the start).
  if (*id == AttrId::kCalls &&
      (opcode == HloOpcode::kAsyncUpdate || opcode == HloOpcode::kAsyncDone)) {
    HLOREF_ASSIGN_OR_RETURN(HloComputation * ignored, ParseComputationRef());
    (void)ignored;
    return absl::OkStatus();
  }
  bool accepted = OpAcceptsAttr(opcode, *id);
  if (!accepted && alt_opcode != opcode && *id != AttrId::kCalls) {
    accepted = OpAcceptsAttr(alt_opcode, *id);
  }
  if (!accepted) {
    return Error(name_tok,
                 absl::StrCat("attribute '", name, "' is not valid on '",
                              HloOpcodeString(opcode), "'"));
  }
  if (!seen->insert(*id).second) {
    return Error(name_tok, absl::StrCat("attribute '", name, "' given twice"));
  }
  pa->attrs.set(*id);
  return ParseAttributeValue(*id, opcode, pa);
}

// Sets *out to the value `word` names in `table` (exact spelling); false
// when no entry matches.
template <typename T, size_t N>
bool MatchWord(absl::string_view word,
               const std::pair<const char*, T> (&table)[N], T* out) {
  for (const auto& [name, value] : table) {
    if (word == name) {
      *out = value;
      return true;
    }
  }
  return false;
}

absl::Status Parser::ParseEnumValue(AttrId id, HloOpcode opcode,
                                    HloAttributes* a) {
  if (!Is(TokKind::kIdent) || tok_.percent) {
    return ErrorHere(absl::StrCat("expected a word for '", AttrName(id), "'"));
  }
  const std::string word = tok_.text;
  const std::string lower = absl::AsciiStrToLower(word);
  const std::string upper = absl::AsciiStrToUpper(word);
  auto bad = [&](absl::string_view allowed) {
    return ErrorHere(absl::StrCat("invalid ", AttrName(id), " '", word,
                                  "'; expected one of ", allowed));
  };
  switch (id) {
    case AttrId::kDirection: {
      static const std::pair<const char*, ComparisonDirection> kDirs[] = {
          {"EQ", ComparisonDirection::kEq}, {"NE", ComparisonDirection::kNe},
          {"LT", ComparisonDirection::kLt}, {"LE", ComparisonDirection::kLe},
          {"GT", ComparisonDirection::kGt}, {"GE", ComparisonDirection::kGe}};
      if (MatchWord(word, kDirs, &a->direction)) {
        Next();
        return absl::OkStatus();
      }
      return bad("EQ NE LT LE GT GE");
    }
    case AttrId::kComparisonType: {
      static const std::pair<const char*, ComparisonType> kTypes[] = {
          {"FLOAT", ComparisonType::kFloat},
          {"TOTALORDER", ComparisonType::kTotalOrder},
          {"SIGNED", ComparisonType::kSigned},
          {"UNSIGNED", ComparisonType::kUnsigned}};
      if (MatchWord(word, kTypes, &a->comparison_type)) {
        Next();
        return absl::OkStatus();
      }
      return bad("FLOAT TOTALORDER SIGNED UNSIGNED");
    }
    case AttrId::kFusionKind: {
      static const std::pair<const char*, FusionKind> kKinds[] = {
          {"kLoop", FusionKind::kLoop},
          {"kInput", FusionKind::kInput},
          {"kOutput", FusionKind::kOutput},
          {"kCustom", FusionKind::kCustom}};
      if (MatchWord(word, kKinds, &a->fusion_kind)) {
        Next();
        return absl::OkStatus();
      }
      return bad("kLoop kInput kOutput kCustom");
    }
    case AttrId::kDistribution:
      if (lower == "rng_uniform") {
        a->distribution = RandomDistribution::kUniform;
      } else if (lower == "rng_normal") {
        a->distribution = RandomDistribution::kNormal;
      } else {
        return bad("rng_uniform rng_normal");
      }
      break;
    case AttrId::kAlgorithm:
      if (opcode == HloOpcode::kRngBitGenerator) {
        if (lower != "rng_default" && lower != "rng_three_fry" &&
            lower != "rng_philox") {
          return bad("rng_default rng_three_fry rng_philox");
        }
      } else if (!absl::StartsWith(lower, "dot_") && lower != "unset") {
        return bad("a dot algorithm such as dot_bf16_bf16_f32");
      }
      a->algorithm = lower;
      break;
    case AttrId::kFftType:
      if (word == "FFT") {
        a->fft_type = FftType::kFft;
      } else if (word == "IFFT") {
        a->fft_type = FftType::kIfft;
      } else if (word == "RFFT") {
        a->fft_type = FftType::kRfft;
      } else if (word == "IRFFT") {
        a->fft_type = FftType::kIrfft;
      } else {
        return bad("FFT IFFT RFFT IRFFT");
      }
      break;
    case AttrId::kTransposeA:
      if (word == "NO_TRANSPOSE") {
        a->transpose_a = TransposeA::kNoTranspose;
      } else if (word == "TRANSPOSE") {
        a->transpose_a = TransposeA::kTranspose;
      } else if (word == "ADJOINT") {
        a->transpose_a = TransposeA::kAdjoint;
      } else {
        return bad("NO_TRANSPOSE TRANSPOSE ADJOINT");
      }
      break;
    case AttrId::kPaddingType:
      if (word != "PADDING_VALID" && word != "PADDING_SAME") {
        return bad("PADDING_VALID PADDING_SAME");
      }
      a->padding_type = word;
      break;
    case AttrId::kSchedule:
      if (upper != "SCHEDULE_NONE" && upper != "SCHEDULE_LATEST" &&
          upper != "SCHEDULE_EARLIEST") {
        return bad("SCHEDULE_NONE SCHEDULE_LATEST SCHEDULE_EARLIEST");
      }
      a->schedule = upper;
      break;
    case AttrId::kApiVersion:
      if (upper != "API_VERSION_ORIGINAL" &&
          upper != "API_VERSION_STATUS_RETURNING" &&
          upper != "API_VERSION_STATUS_RETURNING_UNIFIED" &&
          upper != "API_VERSION_TYPED_FFI") {
        return bad(
            "API_VERSION_ORIGINAL API_VERSION_STATUS_RETURNING "
            "API_VERSION_STATUS_RETURNING_UNIFIED "
            "API_VERSION_TYPED_FFI");
      }
      a->api_version = upper == "API_VERSION_ORIGINAL" ? "" : upper;
      break;
    case AttrId::kConvolutionKind:
      if (lower != "fprop" && lower != "dgrad" && lower != "wgrad" &&
          lower != "unset") {
        return bad("fprop dgrad wgrad unset");
      }
      a->convolution_kind = lower;
      break;
    case AttrId::kMode:
      if (lower != "cross_replica" && lower != "cross_partition" &&
          lower != "cross_replica_and_partition" && lower != "flattened_id") {
        return bad(
            "cross_replica cross_partition cross_replica_and_partition "
            "flattened_id");
      }
      a->mode = lower;
      break;
    default:
      return ErrorHere(
          absl::StrCat("internal: no enum reader for '", AttrName(id), "'"));
  }
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseAttributeValue(AttrId id, HloOpcode opcode,
                                         ParsedAttrs* pa) {
  HloAttributes& a = pa->attrs;
  switch (id) {
    case AttrId::kDimensions:
      return ParseIntList(&a.dimensions);
    case AttrId::kDynamicSliceSizes:
      return ParseIntList(&a.dynamic_slice_sizes);
    case AttrId::kIndex:
      return ParseInt64(&a.index);
    case AttrId::kInferredDimension:
      return ParseInt64(&a.inferred_dimension);
    case AttrId::kIotaDimension:
      return ParseInt64(&a.iota_dimension);
    case AttrId::kPadding:
      return ParsePaddingConfig(&a.padding);
    case AttrId::kSlice:
      return ParseSliceRanges(&a.slice);
    case AttrId::kExponentBits:
      return ParseInt64(&a.exponent_bits);
    case AttrId::kMantissaBits:
      return ParseInt64(&a.mantissa_bits);
    case AttrId::kBatchGroupCount:
      return ParseInt64(&a.batch_group_count);
    case AttrId::kFeatureGroupCount:
      return ParseInt64(&a.feature_group_count);
    case AttrId::kDimLabels:
      return ParseDimLabels(&a.convolution_dimension_numbers);
    case AttrId::kLhsBatchDims:
      return ParseIntList(&a.dot_dimension_numbers.lhs_batch_dimensions);
    case AttrId::kLhsContractingDims:
      return ParseIntList(&a.dot_dimension_numbers.lhs_contracting_dimensions);
    case AttrId::kRhsBatchDims:
      return ParseIntList(&a.dot_dimension_numbers.rhs_batch_dimensions);
    case AttrId::kRhsContractingDims:
      return ParseIntList(&a.dot_dimension_numbers.rhs_contracting_dimensions);
    case AttrId::kLhsRaggedDims:
      return ParseIntList(&a.lhs_ragged_dims);
    case AttrId::kRhsGroupDims:
      return ParseIntList(&a.rhs_group_dims);
    case AttrId::kOperandPrecision: {
      a.operand_precision.clear();
      HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
      while (!Is(TokKind::kRbrace)) {
        std::string word;
        HLOREF_RETURN_IF_ERROR(ParseWord(&word));
        std::string lower = absl::AsciiStrToLower(word);
        if (lower == "default") {
          a.operand_precision.push_back(PrecisionConfig::kDefault);
        } else if (lower == "high") {
          a.operand_precision.push_back(PrecisionConfig::kHigh);
        } else if (lower == "highest") {
          a.operand_precision.push_back(PrecisionConfig::kHighest);
        } else {
          return ErrorHere(absl::StrCat("invalid precision '", word,
                                        "'; expected default, high or "
                                        "highest"));
        }
        if (Is(TokKind::kComma)) {
          Next();
        } else if (!Is(TokKind::kRbrace)) {
          return ErrorHere("expected ',' or '}' in operand_precision");
        }
      }
      Next();
      return absl::OkStatus();
    }
    case AttrId::kWindow:
      return ParseWindow(&a.window);
    case AttrId::kCollapsedSliceDims:
      return ParseIntList(&a.gather_dimension_numbers.collapsed_slice_dims);
    case AttrId::kIndexVectorDim:
      return ParseInt64(opcode == HloOpcode::kScatter
                            ? &a.scatter_dimension_numbers.index_vector_dim
                            : &a.gather_dimension_numbers.index_vector_dim);
    case AttrId::kIndicesAreSorted:
      return ParseBool(&a.indices_are_sorted);
    case AttrId::kInputBatchingDims:
      return ParseIntList(&a.scatter_dimension_numbers.input_batching_dims);
    case AttrId::kInsertedWindowDims:
      return ParseIntList(&a.scatter_dimension_numbers.inserted_window_dims);
    case AttrId::kOffsetDims:
      return ParseIntList(&a.gather_dimension_numbers.offset_dims);
    case AttrId::kOperandBatchingDims:
      return ParseIntList(&a.gather_dimension_numbers.operand_batching_dims);
    case AttrId::kScatterDimsToOperandDims:
      return ParseIntList(
          &a.scatter_dimension_numbers.scatter_dims_to_operand_dims);
    case AttrId::kScatterIndicesBatchingDims:
      return ParseIntList(
          &a.scatter_dimension_numbers.scatter_indices_batching_dims);
    case AttrId::kSliceSizes:
      if (Is(TokKind::kLbrace) && PeekNext().kind == TokKind::kLbrace) {
        return ParseIntListList(&a.slice_sizes_list);
      }
      return ParseIntList(&a.slice_sizes);
    case AttrId::kStartIndexMap:
      return ParseIntList(&a.gather_dimension_numbers.start_index_map);
    case AttrId::kStartIndicesBatchingDims:
      return ParseIntList(
          &a.gather_dimension_numbers.start_indices_batching_dims);
    case AttrId::kUniqueIndices:
      return ParseBool(&a.unique_indices);
    case AttrId::kUpdateWindowDims:
      return ParseIntList(&a.scatter_dimension_numbers.update_window_dims);
    case AttrId::kIsAssociative:
      return ParseBool(&a.is_associative);
    case AttrId::kIsReverse:
      return ParseBool(&a.is_reverse);
    case AttrId::kIsStable:
      return ParseBool(&a.is_stable);
    case AttrId::kK:
      return ParseInt64(&a.k);
    case AttrId::kLargest:
      return ParseBool(&a.largest);
    case AttrId::kNumCarries:
      return ParseInt64(&a.num_carries);
    case AttrId::kToApply:
    case AttrId::kCalls:
    case AttrId::kCondition:
    case AttrId::kBody:
    case AttrId::kSelect:
    case AttrId::kScatter:
    case AttrId::kTrueComputation:
    case AttrId::kFalseComputation: {
      HLOREF_ASSIGN_OR_RETURN(HloComputation * c, ParseComputationRef());
      pa->callees[id] = {c};
      return absl::OkStatus();
    }
    case AttrId::kBranchComputations:
    case AttrId::kCalledComputations: {
      std::vector<HloComputation*> list;
      HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
      while (!Is(TokKind::kRbrace)) {
        HLOREF_ASSIGN_OR_RETURN(HloComputation * c, ParseComputationRef());
        list.push_back(c);
        if (Is(TokKind::kComma)) {
          Next();
        } else if (!Is(TokKind::kRbrace)) {
          return ErrorHere("expected ',' or '}' in the computation list");
        }
      }
      Next();
      pa->callees[id] = std::move(list);
      return absl::OkStatus();
    }
    case AttrId::kIsComposite:
      return ParseBool(&a.is_composite);
    case AttrId::kAsyncExecutionThread:
      return ParseString(&a.async_execution_thread);
    case AttrId::kCrossProgramPrefetchIndex:
      return ParseInt64(&a.cross_program_prefetch_index);
    case AttrId::kIsCrossProgramPrefetch:
      return ParseBool(&a.is_cross_program_prefetch);
    case AttrId::kDelta:
      return ParseInt64(&a.delta);
    case AttrId::kEpsilon: {
      double v = 0;
      HLOREF_RETURN_IF_ERROR(ParseDouble(&v));
      a.epsilon = static_cast<float>(v);
      return absl::OkStatus();
    }
    case AttrId::kFeatureIndex:
      return ParseInt64(&a.feature_index);
    case AttrId::kFftLength:
      return ParseIntList(&a.fft_length);
    case AttrId::kLeftSide:
      return ParseBool(&a.left_side);
    case AttrId::kLower:
      return ParseBool(&a.lower);
    case AttrId::kUnitDiagonal:
      return ParseBool(&a.unit_diagonal);
    case AttrId::kChannelId:
      return ParseInt64(&a.channel_id);
    case AttrId::kConstrainLayout:
      return ParseBool(&a.constrain_layout);
    case AttrId::kHasDynamicRoot:
      return ParseBool(&a.has_dynamic_root);
    case AttrId::kReplicaGroups:
      return ParseReplicaGroups(&a.replica_groups);
    case AttrId::kSourceTargetPairs: {
      std::vector<std::vector<int64_t>> pairs;
      const Token at = tok_;
      HLOREF_RETURN_IF_ERROR(ParseIntListList(&pairs));
      a.source_target_pairs.clear();
      for (const auto& p : pairs) {
        if (p.size() != 2) {
          return Error(at,
                       "each source_target_pairs entry must be "
                       "{source,target}");
        }
        a.source_target_pairs.emplace_back(p[0], p[1]);
      }
      return absl::OkStatus();
    }
    case AttrId::kUseGlobalDeviceIds:
      return ParseBool(&a.use_global_device_ids);
    case AttrId::kCustomCallHasSideEffect:
      return ParseBool(&a.custom_call_has_side_effect);
    case AttrId::kCustomCallTarget:
      return ParseString(&a.custom_call_target);
    case AttrId::kInfeedConfig:
      return ParseString(&a.infeed_config);
    case AttrId::kIsHostTransfer:
      return ParseBool(&a.is_host_transfer);
    case AttrId::kLiteral: {
      Shape s;
      HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&s));
      Literal lit;
      HLOREF_RETURN_IF_ERROR(ParseLiteralValue(s, &lit));
      a.literal = std::move(lit);
      return absl::OkStatus();
    }
    case AttrId::kOperandLayoutConstraints: {
      a.operand_layout_constraints.clear();
      HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
      while (!Is(TokKind::kRbrace)) {
        Shape s;
        HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&s));
        a.operand_layout_constraints.push_back(std::move(s));
        if (Is(TokKind::kComma)) {
          Next();
        } else if (!Is(TokKind::kRbrace)) {
          return ErrorHere("expected ',' or '}' in the shape list");
        }
      }
      Next();
      return absl::OkStatus();
    }
    case AttrId::kOutfeedConfig:
      return ParseString(&a.outfeed_config);
    case AttrId::kOutfeedShape:
      return ParseShapeImpl(&a.outfeed_shape);
    case AttrId::kDirection:
    case AttrId::kComparisonType:
    case AttrId::kAlgorithm:
    case AttrId::kConvolutionKind:
    case AttrId::kFusionKind:
    case AttrId::kDistribution:
    case AttrId::kFftType:
    case AttrId::kTransposeA:
    case AttrId::kMode:
    case AttrId::kApiVersion:
    case AttrId::kPaddingType:
    case AttrId::kSchedule:
      return ParseEnumValue(id, opcode, &a);
    case AttrId::kFrontendAttributes:
      return ParseFrontendAttributes(&a.frontend_attributes);
    case AttrId::kControlPredecessors: {
      HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
      while (!Is(TokKind::kRbrace)) {
        if (!Is(TokKind::kIdent)) {
          return ErrorHere("expected an instruction name");
        }
        pa->control_predecessor_names.emplace_back(tok_.text, tok_);
        Next();
        if (Is(TokKind::kComma)) {
          Next();
        } else if (!Is(TokKind::kRbrace)) {
          return ErrorHere("expected ',' or '}' in control-predecessors");
        }
      }
      Next();
      return absl::OkStatus();
    }
    case AttrId::kMetadata:
      return ParseMetadata(&a.metadata);
    case AttrId::kBackendConfig:
      return ParseBackendConfig(&a.backend_config);
    case AttrId::kResultAccuracy:
    case AttrId::kSparsityConfig:
    case AttrId::kOutputToOperandAliasing:
    case AttrId::kParameterReplication:
    case AttrId::kSharding:
    case AttrId::kDomain:
    case AttrId::kStatistics:
    case AttrId::kOrigin:
    case AttrId::kOriginalValue: {
      HLOREF_ASSIGN_OR_RETURN(std::string text, TakeRawValue());
      a.raw[id] = std::move(text);
      return absl::OkStatus();
    }
  }
  return ErrorHere("internal: unhandled attribute");
}

absl::Status Parser::ParseWindow(Window* out) {
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start the window"));
  std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::vector<std::pair<int64_t, int64_t>> pad;
  bool have_size = false;
  absl::flat_hash_set<std::string> seen;
  auto split_dxd = [&](std::vector<int64_t>* values) -> absl::Status {
    if (Is(TokKind::kInt)) {
      int64_t v = 0;
      HLOREF_RETURN_IF_ERROR(ParseInt64(&v));
      values->push_back(v);
      return absl::OkStatus();
    }
    if (!Is(TokKind::kDxD)) return ErrorHere("expected NxN... in window");
    for (absl::string_view part : absl::StrSplit(tok_.text, 'x')) {
      int64_t v = 0;
      if (!absl::SimpleAtoi(part, &v)) return ErrorHere("number too large");
      values->push_back(v);
    }
    Next();
    return absl::OkStatus();
  };
  while (!Is(TokKind::kRbrace)) {
    if (!Is(TokKind::kAttrName)) {
      return ErrorHere(
          "expected a window field (size=, stride=, pad=, "
          "lhs_dilate=, rhs_dilate=, rhs_reversal=)");
    }
    const std::string field = tok_.text;
    if (!seen.insert(field).second) {
      return ErrorHere(absl::StrCat("window field '", field, "' given twice"));
    }
    Next();
    if (field == "size") {
      have_size = true;
      HLOREF_RETURN_IF_ERROR(split_dxd(&size));
    } else if (field == "stride") {
      HLOREF_RETURN_IF_ERROR(split_dxd(&stride));
    } else if (field == "lhs_dilate") {
      HLOREF_RETURN_IF_ERROR(split_dxd(&lhs_dilate));
    } else if (field == "rhs_dilate") {
      HLOREF_RETURN_IF_ERROR(split_dxd(&rhs_dilate));
    } else if (field == "rhs_reversal") {
      HLOREF_RETURN_IF_ERROR(split_dxd(&reversal));
    } else if (field == "pad") {
      if (!Is(TokKind::kPad)) return ErrorHere("expected low_high padding");
      for (absl::string_view group : absl::StrSplit(tok_.text, 'x')) {
        std::vector<absl::string_view> parts = absl::StrSplit(group, '_');
        int64_t lo = 0, hi = 0;
        if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &lo) ||
            !absl::SimpleAtoi(parts[1], &hi)) {
          return ErrorHere("window padding must be low_high per dimension");
        }
        pad.emplace_back(lo, hi);
      }
      Next();
    } else {
      return ErrorHere(absl::StrCat("unknown window field '", field, "'"));
    }
  }
  const Token close = tok_;
  Next();
  if (!have_size && !seen.empty()) {
    return Error(close, "a window with fields needs size=");
  }
  const size_t n = size.size();
  auto check = [&](size_t count, absl::string_view what) -> absl::Status {
    if (count != 0 && count != n) {
      return Error(close, absl::StrCat("window ", what, " has ", count,
                                       " entries but size has ", n));
    }
    return absl::OkStatus();
  };
  HLOREF_RETURN_IF_ERROR(check(stride.size(), "stride"));
  HLOREF_RETURN_IF_ERROR(check(pad.size(), "pad"));
  HLOREF_RETURN_IF_ERROR(check(lhs_dilate.size(), "lhs_dilate"));
  HLOREF_RETURN_IF_ERROR(check(rhs_dilate.size(), "rhs_dilate"));
  HLOREF_RETURN_IF_ERROR(check(reversal.size(), "rhs_reversal"));
  out->dimensions.assign(n, WindowDimension());
  for (size_t i = 0; i < n; ++i) {
    WindowDimension& d = out->dimensions[i];
    d.size = size[i];
    if (!stride.empty()) d.stride = stride[i];
    if (!pad.empty()) {
      d.padding_low = pad[i].first;
      d.padding_high = pad[i].second;
    }
    if (!lhs_dilate.empty()) d.base_dilation = lhs_dilate[i];
    if (!rhs_dilate.empty()) d.window_dilation = rhs_dilate[i];
    if (!reversal.empty()) {
      if (reversal[i] != 0 && reversal[i] != 1) {
        return Error(close, "rhs_reversal entries must be 0 or 1");
      }
      d.window_reversal = reversal[i] == 1;
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseDimLabels(ConvolutionDimensionNumbers* out) {
  if (!Is(TokKind::kDimLabels)) {
    return ErrorHere("expected dim labels such as b01f_01io->b01f");
  }
  const std::string text = tok_.text;
  std::vector<std::string> parts = absl::StrSplit(text, absl::ByAnyChar("_>"));
  // "b01f", "01io-", "b01f"
  if (parts.size() != 3 || parts[1].empty() || parts[1].back() != '-') {
    return ErrorHere("malformed dim labels");
  }
  parts[1].pop_back();
  const bool has_unused = absl::StrContains(text, '?');
  auto parse_part = [&](const std::string& part, char a, char b, int64_t* da,
                        int64_t* db,
                        std::vector<int64_t>* spatial) -> absl::Status {
    int64_t count_a = 0, count_b = 0;
    std::vector<int64_t> sp;
    for (size_t i = 0; i < part.size(); ++i) {
      char c = part[i];
      if (c == a) {
        *da = static_cast<int64_t>(i);
        ++count_a;
      } else if (c == b) {
        *db = static_cast<int64_t>(i);
        ++count_b;
      } else if (c >= '0' && c <= '9') {
        size_t d = static_cast<size_t>(c - '0');
        if (sp.size() <= d) sp.resize(d + 1, -1);
        if (sp[d] != -1) {
          return ErrorHere(absl::StrCat("dim labels '", part,
                                        "' repeat spatial dimension ", d));
        }
        sp[d] = static_cast<int64_t>(i);
      } else if (c != '?') {
        return ErrorHere(
            absl::StrCat("unexpected '", std::string(1, c), "' in dim labels"));
      }
    }
    if (count_a > 1 || count_b > 1 ||
        (!has_unused && (count_a != 1 || count_b != 1))) {
      return ErrorHere(absl::StrCat("dim labels '", part,
                                    "' need exactly one '", std::string(1, a),
                                    "' and one '", std::string(1, b), "'"));
    }
    for (int64_t v : sp) {
      if (v == -1) {
        return ErrorHere(
            absl::StrCat("dim labels '", part, "' skip a spatial dimension"));
      }
    }
    *spatial = std::move(sp);
    return absl::OkStatus();
  };
  ConvolutionDimensionNumbers dn;
  HLOREF_RETURN_IF_ERROR(
      parse_part(parts[0], 'b', 'f', &dn.input_batch_dimension,
                 &dn.input_feature_dimension, &dn.input_spatial_dimensions));
  HLOREF_RETURN_IF_ERROR(parse_part(
      parts[1], 'i', 'o', &dn.kernel_input_feature_dimension,
      &dn.kernel_output_feature_dimension, &dn.kernel_spatial_dimensions));
  HLOREF_RETURN_IF_ERROR(
      parse_part(parts[2], 'b', 'f', &dn.output_batch_dimension,
                 &dn.output_feature_dimension, &dn.output_spatial_dimensions));
  if (dn.input_spatial_dimensions.size() !=
          dn.kernel_spatial_dimensions.size() ||
      dn.input_spatial_dimensions.size() !=
          dn.output_spatial_dimensions.size()) {
    return ErrorHere(
        "dim labels have different numbers of spatial "
        "dimensions for input, kernel and output");
  }
  dn.text = text;
  *out = std::move(dn);
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParsePaddingConfig(PaddingConfig* out) {
  out->dimensions.clear();
  if (!Is(TokKind::kPad)) {
    return ErrorHere("expected padding such as 0_0x1_2_1");
  }
  for (absl::string_view group : absl::StrSplit(tok_.text, 'x')) {
    std::vector<absl::string_view> parts = absl::StrSplit(group, '_');
    PaddingDimension d;
    if ((parts.size() != 2 && parts.size() != 3) ||
        !absl::SimpleAtoi(parts[0], &d.edge_padding_low) ||
        !absl::SimpleAtoi(parts[1], &d.edge_padding_high) ||
        (parts.size() == 3 &&
         !absl::SimpleAtoi(parts[2], &d.interior_padding))) {
      return ErrorHere(
          "padding must be low_high or low_high_interior per "
          "dimension");
    }
    out->dimensions.push_back(d);
  }
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseSliceRanges(SliceConfig* out) {
  *out = SliceConfig();
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' to start the slice"));
  while (!Is(TokKind::kRbrace)) {
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLsquare, "'[start:limit]'"));
    int64_t start = 0, limit = 0, stride = 1;
    HLOREF_RETURN_IF_ERROR(ParseInt64(&start));
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kColon, "':' after the start"));
    HLOREF_RETURN_IF_ERROR(ParseInt64(&limit));
    if (Is(TokKind::kColon)) {
      Next();
      HLOREF_RETURN_IF_ERROR(ParseInt64(&stride));
    }
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRsquare, "']'"));
    out->start_indices.push_back(start);
    out->limit_indices.push_back(limit);
    out->strides.push_back(stride);
    if (Is(TokKind::kComma)) {
      Next();
    } else if (!Is(TokKind::kRbrace)) {
      return ErrorHere("expected ',' or '}' in the slice");
    }
  }
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseReplicaGroups(ReplicaGroups* out) {
  *out = ReplicaGroups();
  const size_t start = tok_.start;
  if (Is(TokKind::kLbrace)) {
    return ParseIntListList(&out->groups);
  }
  if (Is(TokKind::kLsquare)) {
    // [groups,group_size]<=[dims]T(perm)
    const Token open = tok_;
    Next();
    int64_t num_groups = 0, group_size = 0;
    HLOREF_RETURN_IF_ERROR(ParseInt64(&num_groups));
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
    HLOREF_RETURN_IF_ERROR(ParseInt64(&group_size));
    HLOREF_RETURN_IF_ERROR(
        Expect(TokKind::kRsquare,
               "']': iota replica groups give exactly [groups,group_size]"));
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLeq, "'<='"));
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLsquare, "'['"));
    std::vector<int64_t> dims;
    while (true) {
      int64_t d = 0;
      HLOREF_RETURN_IF_ERROR(ParseInt64(&d));
      dims.push_back(d);
      if (Is(TokKind::kComma)) {
        Next();
        continue;
      }
      break;
    }
    size_t end = tok_.end;
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRsquare, "']'"));
    std::vector<int64_t> perm;
    if (IsWord("T") && PeekNext().kind == TokKind::kLparen) {
      Next();
      Next();
      while (true) {
        int64_t p = 0;
        HLOREF_RETURN_IF_ERROR(ParseInt64(&p));
        perm.push_back(p);
        if (Is(TokKind::kComma)) {
          Next();
          continue;
        }
        break;
      }
      end = tok_.end;
      HLOREF_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
    }
    // Validate and expand.
    int64_t total = 1;
    for (int64_t d : dims) {
      if (d <= 0 || total > kMaxReplicaGroupDevices / d) {
        return Error(open,
                     "iota replica groups: bad or too large device "
                     "array");
      }
      total *= d;
    }
    if (num_groups <= 0 || group_size <= 0 ||
        num_groups > kMaxReplicaGroupDevices / group_size ||
        num_groups * group_size != total) {
      return Error(open, absl::StrCat("iota replica groups: ", num_groups, "x",
                                      group_size, " groups do not match ",
                                      total, " devices"));
    }
    if (perm.empty()) {
      for (size_t i = 0; i < dims.size(); ++i) {
        perm.push_back(static_cast<int64_t>(i));
      }
    }
    std::vector<bool> used(dims.size(), false);
    if (perm.size() != dims.size()) {
      return Error(open,
                   "iota replica groups: the transpose must list every "
                   "reshape dimension");
    }
    for (int64_t p : perm) {
      if (p < 0 || p >= static_cast<int64_t>(dims.size()) || used[p]) {
        return Error(open,
                     "iota replica groups: T(...) is not a "
                     "permutation");
      }
      used[p] = true;
    }
    // Element i of the transposed array (row-major) is the row-major index
    // in `dims` of the transposed multi-index.
    std::vector<int64_t> tdims;
    for (int64_t p : perm) tdims.push_back(dims[p]);
    std::vector<int64_t> tindex(dims.size(), 0);
    std::vector<int64_t> flat;
    flat.reserve(total);
    for (int64_t i = 0; i < total; ++i) {
      std::vector<int64_t> oindex(dims.size());
      for (size_t k = 0; k < perm.size(); ++k) oindex[perm[k]] = tindex[k];
      int64_t linear = 0;
      for (size_t k = 0; k < dims.size(); ++k) {
        linear = linear * dims[k] + oindex[k];
      }
      flat.push_back(linear);
      for (int64_t k = static_cast<int64_t>(tdims.size()) - 1; k >= 0; --k) {
        if (++tindex[k] < tdims[k]) break;
        tindex[k] = 0;
      }
    }
    for (int64_t g = 0; g < num_groups; ++g) {
      out->groups.emplace_back(flat.begin() + g * group_size,
                               flat.begin() + (g + 1) * group_size);
    }
    out->iota_text = std::string(lex_.text().substr(start, end - start));
    return absl::OkStatus();
  }
  if (IsWord("mesh")) {
    // mesh['x'=2,'y'=2] {'y'}: groups vary the listed axes (in the listed
    // order), one group per assignment of the other axes. [uncertain]
    const Token at = tok_;
    Next();
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLsquare, "'[' after mesh"));
    std::vector<std::pair<std::string, int64_t>> axes;
    while (!Is(TokKind::kRsquare)) {
      std::string axis;
      HLOREF_RETURN_IF_ERROR(ParseString(&axis));
      HLOREF_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'=' after the axis"));
      int64_t size = 0;
      HLOREF_RETURN_IF_ERROR(ParseInt64(&size));
      axes.emplace_back(axis, size);
      if (Is(TokKind::kComma)) Next();
    }
    Next();
    HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' with the axes"));
    std::vector<size_t> listed;
    while (!Is(TokKind::kRbrace)) {
      std::string axis;
      HLOREF_RETURN_IF_ERROR(ParseString(&axis));
      size_t k = 0;
      while (k < axes.size() && axes[k].first != axis) ++k;
      if (k == axes.size()) {
        return ErrorHere(absl::StrCat("axis '", axis, "' is not in the mesh"));
      }
      listed.push_back(k);
      if (Is(TokKind::kComma)) Next();
    }
    const size_t end = tok_.end;
    Next();
    int64_t total = 1;
    for (auto& [n, s] : axes) {
      if (s <= 0 || total > kMaxReplicaGroupDevices / s) {
        return Error(at, "mesh replica groups: bad or too large mesh");
      }
      total *= s;
    }
    std::vector<size_t> others;
    for (size_t k = 0; k < axes.size(); ++k) {
      if (std::find(listed.begin(), listed.end(), k) == listed.end()) {
        others.push_back(k);
      }
    }
    // Iterate other axes (outer, row-major) then listed axes (inner).
    std::vector<size_t> order = others;
    order.insert(order.end(), listed.begin(), listed.end());
    std::vector<int64_t> idx(axes.size(), 0);
    int64_t group_size = 1;
    for (size_t k : listed) group_size *= axes[k].second;
    std::vector<int64_t> current;
    for (int64_t i = 0; i < total; ++i) {
      int64_t linear = 0;
      for (size_t k = 0; k < axes.size(); ++k) {
        linear = linear * axes[k].second + idx[k];
      }
      current.push_back(linear);
      if (static_cast<int64_t>(current.size()) == group_size) {
        out->groups.push_back(std::move(current));
        current.clear();
      }
      for (int64_t j = static_cast<int64_t>(order.size()) - 1; j >= 0; --j) {
        size_t k = order[j];
        if (++idx[k] < axes[k].second) break;
        idx[k] = 0;
      }
    }
    out->iota_text = std::string(lex_.text().substr(start, end - start));
    return absl::OkStatus();
  }
  return ErrorHere(
      "expected replica groups: {{...}}, [n,m]<=[...] or "
      "mesh[...]");
}

absl::Status Parser::ParseFrontendAttributes(
    std::map<std::string, std::string>* out) {
  out->clear();
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  while (!Is(TokKind::kRbrace)) {
    std::string key;
    if (Is(TokKind::kAttrName)) {
      key = tok_.text;
      Next();
    } else if (Is(TokKind::kString) || Is(TokKind::kIdent)) {
      key = tok_.text;
      Next();
      HLOREF_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'=' after the key"));
    } else {
      return ErrorHere("expected 'key=value' in frontend_attributes");
    }
    std::string value;
    if (Is(TokKind::kLbrace)) {
      HLOREF_ASSIGN_OR_RETURN(value, TakeBraced());
    } else {
      HLOREF_RETURN_IF_ERROR(ParseString(&value));
    }
    (*out)[key] = std::move(value);
    if (Is(TokKind::kComma)) {
      Next();
    } else if (!Is(TokKind::kRbrace)) {
      return ErrorHere("expected ',' or '}' in frontend_attributes");
    }
  }
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseMetadata(OpMetadata* out) {
  *out = OpMetadata();
  HLOREF_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  while (!Is(TokKind::kRbrace)) {
    if (!Is(TokKind::kAttrName)) {
      return ErrorHere("expected 'field=value' in metadata");
    }
    const std::string field = tok_.text;
    Next();
    if (field == "op_type") {
      HLOREF_RETURN_IF_ERROR(ParseString(&out->op_type));
    } else if (field == "op_name") {
      HLOREF_RETURN_IF_ERROR(ParseString(&out->op_name));
    } else if (field == "source_file") {
      HLOREF_RETURN_IF_ERROR(ParseString(&out->source_file));
    } else if (field == "source_line") {
      HLOREF_RETURN_IF_ERROR(ParseInt64(&out->source_line));
    } else if (field == "source_end_line") {
      HLOREF_RETURN_IF_ERROR(ParseInt64(&out->source_end_line));
    } else if (field == "source_column") {
      HLOREF_RETURN_IF_ERROR(ParseInt64(&out->source_column));
    } else if (field == "source_end_column") {
      HLOREF_RETURN_IF_ERROR(ParseInt64(&out->source_end_column));
    } else if (field == "stack_frame_id") {
      HLOREF_RETURN_IF_ERROR(ParseInt64(&out->stack_frame_id));
    } else {
      // Kept verbatim (profile_type={...}, deduplicated_name="...", ...).
      size_t start = tok_.start;
      size_t end;
      if (Is(TokKind::kLbrace)) {
        std::string error;
        end = lex_.ScanBalanced(start, &error);
        if (end == absl::string_view::npos) return ErrorHere(error);
        SeekTo(end);
      } else if (Is(TokKind::kString) || Is(TokKind::kInt) ||
                 Is(TokKind::kDecimal) || Is(TokKind::kIdent)) {
        end = tok_.end;
        Next();
      } else {
        return ErrorHere(
            absl::StrCat("expected a value for metadata field '", field, "'"));
      }
      if (!out->other.empty()) out->other += " ";
      absl::StrAppend(&out->other, field, "=",
                      lex_.text().substr(start, end - start));
    }
    if (Is(TokKind::kComma)) Next();
  }
  Next();
  return absl::OkStatus();
}

absl::Status Parser::ParseBackendConfig(std::string* out) {
  if (Is(TokKind::kString)) return ParseString(out);
  if (Is(TokKind::kLbrace)) {
    HLOREF_ASSIGN_OR_RETURN(*out, TakeBraced());
    return absl::OkStatus();
  }
  return ErrorHere(
      "expected a quoted string or a {...} dictionary for "
      "backend_config");
}

// ============================================================================
// Entry points for shapes and literals

absl::StatusOr<Shape> Parser::ParseShapeOnly() {
  Shape s;
  HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&s));
  if (!Is(TokKind::kEof)) return ErrorHere("unexpected text after the shape");
  return s;
}

absl::StatusOr<Literal> Parser::ParseLiteralOnly() {
  absl::StatusOr<Literal> first = ParseLiteralAttempt();
  if (first.ok()) return first;
  no_layouts_ = true;
  SeekTo(0);
  absl::StatusOr<Literal> second = ParseLiteralAttempt();
  if (second.ok()) return second;
  return first.status();
}

absl::StatusOr<Literal> Parser::ParseLiteralAttempt() {
  Shape s;
  HLOREF_RETURN_IF_ERROR(ParseShapeImpl(&s));
  Literal lit;
  if (s.IsArray() && !s.is_static() && Is(TokKind::kLparen)) {
    // A bounded dynamic array as the printer writes it (and XLA prints
    // it): `f32[<=4]{0}(2) {1, 2}`, the runtime sizes in parentheses, then
    // the valid elements only.
    const Token open = tok_;
    Next();
    std::vector<int64_t> sizes;
    while (true) {
      int64_t size = 0;
      if (!Is(TokKind::kInt)) return ErrorHere("expected a runtime size");
      const Token at = tok_;
      HLOREF_RETURN_IF_ERROR(ParseInt64(&size));
      if (size < 0) {
        return Error(at, absl::StrCat("runtime size ", size,
                                      " is negative (a dimension's size is 0 "
                                      "or more)"));
      }
      sizes.push_back(size);
      if (Is(TokKind::kComma)) {
        Next();
        continue;
      }
      HLOREF_RETURN_IF_ERROR(
          Expect(TokKind::kRparen, "',' or ')' after a runtime size"));
      break;
    }
    if (static_cast<int64_t>(sizes.size()) != s.rank()) {
      return Error(
          open, absl::StrCat(sizes.size(), " runtime sizes for the ", s.rank(),
                             "-dimensional shape ", s.ToString()));
    }
    // The storage is at the bounds: their size is checked as any
    // literal's.
    HLOREF_RETURN_IF_ERROR(CheckLiteralSize(s));
    Literal valid;
    HLOREF_RETURN_IF_ERROR(
        ParseLiteralValue(Shape::Array(s.element_type(), sizes), &valid));
    if (valid.is_elided()) {
      // `f32[<=4]{0}(2) {...}`: an elided dynamic constant, as the printer
      // writes one. It stays elided, with its runtime sizes (it used to
      // come back as a literal of unread storage, not elided: literal_fuzz
      // finding 22), and its storage is never read, so never written.
      for (int64_t d = 0; d < s.rank(); ++d) {
        const bool fits = s.is_dynamic_dimension(d)
                              ? sizes[d] <= s.dimensions(d)
                              : sizes[d] == s.dimensions(d);
        if (!fits) {
          return Error(
              open, absl::StrCat("runtime size ", sizes[d], " of dimension ", d,
                                 " does not fit ", s.ToString(false),
                                 s.is_dynamic_dimension(d)
                                     ? " (above its bound)"
                                     : " (a static dimension's size)"));
        }
      }
      lit = Literal::Uninitialized(s);
      for (int64_t d = 0; d < s.rank(); ++d) lit.SetDynamicSize(d, sizes[d]);
      lit.set_elided(true);
    } else {
      auto bounded = Literal::ToBoundedDynamic(valid, s);
      if (!bounded.ok()) return Error(open, bounded.status().message());
      lit = *std::move(bounded);
    }
  } else {
    HLOREF_RETURN_IF_ERROR(ParseLiteralValue(s, &lit));
  }
  if (!Is(TokKind::kEof)) {
    return ErrorHere("unexpected text after the literal");
  }
  if (lit.shape().IsArray() && s.has_layout()) lit.set_layout(s.layout());
  return lit;
}

absl::StatusOr<Literal> Parser::ParseLiteralForShape(const Shape& shape) {
  Literal lit;
  HLOREF_RETURN_IF_ERROR(ParseLiteralValue(shape, &lit));
  if (!Is(TokKind::kEof)) {
    return ErrorHere("unexpected text after the literal");
  }
  return lit;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, const ParseOptions& options) {
  Parser parser(text, options);
  return parser.ParseModule();
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleFile(
    const std::string& path, ParseOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open HLO file '", path, "'"));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (options.file_name.empty()) options.file_name = path;
  std::string text = buffer.str();
  return ParseHloModule(text, options);
}

absl::StatusOr<Shape> ParseShape(absl::string_view text) {
  ParseOptions options;
  Parser parser(text, options);
  return parser.ParseShapeOnly();
}

absl::StatusOr<Literal> ParseLiteral(absl::string_view text,
                                     const ParseOptions& options) {
  Parser parser(text, options);
  return parser.ParseLiteralOnly();
}

absl::StatusOr<Literal> ParseLiteralWithShape(const Shape& shape,
                                              absl::string_view text,
                                              const ParseOptions& options) {
  Parser parser(text, options);
  return parser.ParseLiteralForShape(shape);
}

void SetShapeInferenceHook(ShapeInferenceHook hook) {
  g_shape_inference_hook = hook;
}

PrimitiveType HigherPrecisionType(PrimitiveType a, PrimitiveType b) {
  auto properties = [](PrimitiveType t) {
    const FloatFormat* f = FindFloatFormat(t);
    return std::make_tuple(IsComplex(t), f ? std::ilogb(MaxFinite(*f)) + 1 : -1,
                           f ? Precision(*f) : -1, BitWidth(t),
                           KindOf(t) == TypeKind::kSigned);
  };
  return properties(b) > properties(a) ? b : a;
}

}  // namespace hloref
