// The syntax tree of StableHLO textual MLIR as the reader sees it: modules,
// functions, ops (generic and pretty forms reduced to one shape), regions,
// types and attribute values. Internal to spec/stablehlo/.
#ifndef HLOREF_SPEC_STABLEHLO_MLIR_AST_H_
#define HLOREF_SPEC_STABLEHLO_MLIR_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "spec/types/primitive_type.h"

namespace hloref::stablehlo {

// A source position in the .mlir text (1-based).
struct Loc {
  int line = 0;
  int col = 0;
};

// tensor<2x?xf32, #stablehlo.bounds<?, 8>>, tuple<...>, !stablehlo.token,
// or a bare element type (i32, as in attribute values).
struct Type {
  enum Kind { kTensor, kTuple, kToken };
  Kind kind = kTensor;
  PrimitiveType element = PrimitiveType::kF32;
  std::vector<int64_t> dims;  // for a dynamic dimension: its bound
  std::vector<bool> dynamic;
  std::vector<Type> elements;  // kTuple
  bool bare_element = false;   // `i32` rather than `tensor<i32>`

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  // HLO shape text: f32[2,<=8], (f32[], s32[]), token[].
  std::string ToHlo() const;
};

// A dense<...> value: the flattened element texts (numbers, true/false,
// hex bit patterns; complex elements as two consecutive texts), or a hex
// blob of raw little-endian bytes.
struct Dense {
  std::vector<std::string> elements;
  bool complex = false;
  bool hex_blob = false;
  std::string blob;  // the bytes, decoded
};

struct NamedAttr;

// An attribute value.
struct Attr {
  enum Kind {
    kInt,
    kFloat,
    kString,
    kBool,
    kWord,    // DEFAULT, GT, a #stablehlo<precision DEFAULT> enum
    kList,    // [..], array<i64: ..>
    kDict,    // {k = v}, #stablehlo.gather<k = v>; name in `text`
    kDense,   // dense<..> with `type`
    kSymbol,  // @name
    kRaw,     // #stablehlo.conv<raw>, dim_numbers = raw
    kType,    // a type as a value
    kUnit,
  };
  Kind kind = kUnit;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string text;  // string, word, symbol, raw, float spelling, dict name
  std::vector<Attr> list;
  std::vector<NamedAttr> dict;
  Dense dense;
  Type type;
  bool has_type = false;
  Loc loc;

  const Attr* Find(absl::string_view key) const;
};

// `name = value` in an attribute dictionary. (Not std::pair<std::string,
// Attr>: clang 19 with libstdc++ 12 refuses that pair inside Attr's own
// definition, where Attr is still incomplete; the sanitizer build is clang.)
struct NamedAttr {
  std::string name;
  Attr value;
};

struct Op;

struct BlockArg {
  std::string name;  // without %
  Type type;
  Loc loc;
};

// One region with one block (StableHLO regions have one block).
struct Region {
  std::vector<BlockArg> args;
  bool has_args = false;  // ^bb0(...) or reducer(...) given
  std::vector<Op> ops;
  Loc loc;
};

struct Op {
  std::string name;  // "stablehlo.add", "func.call", "return", ...
  Loc loc;
  // Result names without %, one per result ("0#1" for `%0:2`'s second).
  std::vector<std::string> results;
  // Operand references without % ("arg0", "2#1").
  std::vector<std::string> operands;
  std::vector<Loc> operand_locs;
  // reduce's `(%x init: %i)` inits and while's `(%iterArg = %x)` names.
  std::vector<std::string> inits;
  std::vector<std::string> iter_names;
  // Named attributes: props <{..}>, attr dict {..}, and pretty `k = v`.
  std::vector<NamedAttr> attrs;
  // Bare words in the pretty form (GT, SIGNED, applies, across, ...) and
  // positional values (a constant's dense<..>, a string, slice ranges).
  std::vector<std::string> words;
  std::vector<Attr> positional;
  std::vector<std::vector<int64_t>> ranges;  // slice [a:b:c, ...] / gte [i]
  bool has_ranges = false;
  std::string callee;               // @name of call, custom_call, composite
  std::vector<Type> operand_types;  // from the signature, when written
  std::vector<Type> result_types;
  bool signature_has_arrow = false;
  std::vector<Region> regions;

  const Attr* Find(absl::string_view key) const;
};

struct Func {
  std::string name;
  bool is_public = true;
  Loc loc;
  std::vector<BlockArg> args;
  std::vector<Type> results;
  std::vector<Op> body;
};

struct MlirModule {
  std::string name;
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  std::vector<Func> funcs;
};

// Parses StableHLO textual MLIR. Errors are InvalidArgument (or
// Unimplemented for valid MLIR the reader does not take)
// "file:line:col: error: <what>".
absl::StatusOr<MlirModule> ParseMlir(absl::string_view text,
                                     const std::string& file_name);

}  // namespace hloref::stablehlo

#endif  // HLOREF_SPEC_STABLEHLO_MLIR_AST_H_
