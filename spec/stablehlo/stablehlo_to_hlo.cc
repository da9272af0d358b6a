// Converting the StableHLO syntax tree (mlir_ast.h) to HLO text, which the
// HLO parser then reads. One HLO computation per function and per region;
// values a while / if / case region uses from outside it are passed in
// explicitly (HLO computations see only their parameters). The op mapping
// is the table of docs/stablehlo.md.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "spec/stablehlo/chlo_expansions.h"
#include "spec/stablehlo/mlir_ast.h"
#include "spec/stablehlo/stablehlo_reader.h"
#include "spec/types/literal.h"
#include "spec/types/shape.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace stablehlo {
namespace {

struct Val {
  std::string hlo;  // HLO instruction name without %
  Type type;
};

struct Scope {
  std::map<std::string, Val> vals;
  const Scope* parent = nullptr;
  const Val* Lookup(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      auto it = s->vals.find(name);
      if (it != s->vals.end()) return &it->second;
    }
    return nullptr;
  }
};

// One HLO computation being written.
struct Comp {
  std::string name;
  std::vector<std::string> lines;
  std::vector<Loc> locs;
  std::map<std::string, size_t> line_of;  // instruction -> line index
  std::vector<Type> params;
};

Type Scalar(PrimitiveType t) {
  Type type;
  type.element = t;
  return type;
}

Type TupleOf(std::vector<Type> elements) {
  Type type;
  type.kind = Type::kTuple;
  type.elements = std::move(elements);
  return type;
}

std::string Braced(const std::vector<int64_t>& v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// Free values of a region: operands used inside (nested regions included)
// that are not defined inside.
void CollectFree(const Region& region, std::set<std::string>& defined,
                 std::vector<std::string>& free) {
  std::set<std::string> local = defined;
  for (const BlockArg& a : region.args) local.insert(a.name);
  for (const Op& op : region.ops) {
    auto use = [&](const std::string& v) {
      if (local.count(v) == 0 &&
          std::find(free.begin(), free.end(), v) == free.end()) {
        free.push_back(v);
      }
    };
    for (const std::string& v : op.operands) use(v);
    for (const std::string& v : op.inits) use(v);
    for (const Region& r : op.regions) {
      std::set<std::string> inner = local;
      for (const std::string& n : op.iter_names) inner.insert(n);
      CollectFree(r, inner, free);
    }
    for (const std::string& r : op.results) local.insert(r);
  }
}

class Emitter {
 public:
  Emitter(const MlirModule& module, std::string file)
      : module_(module), file_(std::move(file)) {}

  absl::StatusOr<std::string> Run(std::vector<Loc>* line_locs);

 private:
  absl::Status Err(Loc loc, absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(file_.empty() ? "" : file_ + ":", loc.line, ":", loc.col,
                     ": error: ", what));
  }
  absl::Status Unsupported(Loc loc, absl::string_view what) const {
    return absl::UnimplementedError(
        absl::StrCat(file_.empty() ? "" : file_ + ":", loc.line, ":", loc.col,
                     ": error: not supported: ", what));
  }
  std::string Fresh(absl::string_view hint) {
    std::string base;
    for (char c : hint) {
      base += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
               c == '.' || c == '-')
                  ? c
                  : '_';
    }
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) {
      base = "v" + base;
    }
    std::string name = base;
    for (int k = 1; used_.count(name) > 0; ++k)
      name = absl::StrCat(base, ".", k);
    used_.insert(name);
    return name;
  }
  std::string Add(Comp& c, Loc loc, const Type& type, absl::string_view opcode,
                  const std::vector<std::string>& operands,
                  const std::string& attrs = "", absl::string_view hint = "") {
    std::string name = Fresh(hint.empty() ? opcode : hint);
    std::vector<std::string> ops;
    for (const std::string& o : operands) ops.push_back("%" + o);
    std::string line = absl::StrCat("  %", name, " = ", type.ToHlo(), " ",
                                    opcode, "(", absl::StrJoin(ops, ", "), ")");
    if (!attrs.empty()) absl::StrAppend(&line, ", ", attrs);
    c.line_of[name] = c.lines.size();
    c.lines.push_back(std::move(line));
    c.locs.push_back(loc);
    return name;
  }
  void Finish(Comp& c, const std::string& root) {
    c.lines[c.line_of.at(root)].replace(0, 2, "  ROOT ");
    std::vector<std::string> params;
    for (size_t i = 0; i < c.params.size(); ++i) {
      params.push_back(absl::StrCat("p", i, ": ", c.params[i].ToHlo()));
    }
    out_.push_back("");
    out_locs_.push_back(Loc{});
    out_.push_back(absl::StrCat("%", c.name, " {"));
    out_locs_.push_back(Loc{});
    for (size_t i = 0; i < c.lines.size(); ++i) {
      out_.push_back(c.lines[i]);
      out_locs_.push_back(c.locs[i]);
    }
    out_.push_back("}");
    out_locs_.push_back(Loc{});
  }

  absl::StatusOr<std::vector<Val>> Operands(const Scope& scope, const Op& op) {
    std::vector<Val> vals;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const Val* v = scope.Lookup(op.operands[i]);
      if (v == nullptr) {
        return Err(i < op.operand_locs.size() ? op.operand_locs[i] : op.loc,
                   absl::StrCat("use of undefined value %", op.operands[i]));
      }
      vals.push_back(*v);
    }
    return vals;
  }
  absl::StatusOr<Val> Lookup(const Scope& scope, const std::string& name,
                             Loc loc) {
    const Val* v = scope.Lookup(name);
    if (v == nullptr) {
      return Err(loc, absl::StrCat("use of undefined value %", name));
    }
    return *v;
  }

  // Binds op's results to `name`, which has HLO type `type`: one result
  // directly, several through get-tuple-element.
  absl::Status Bind(Comp& c, Scope& scope, const Op& op,
                    const std::string& name, const Type& type,
                    bool tuple_result) {
    if (!tuple_result) {
      if (op.results.size() != 1) {
        return Err(op.loc, absl::StrCat(op.name, " has one result, ",
                                        op.results.size(), " are named"));
      }
      scope.vals[op.results[0]] = Val{name, type};
      return absl::OkStatus();
    }
    if (op.results.size() != type.elements.size()) {
      return Err(op.loc,
                 absl::StrCat(op.name, " has ", type.elements.size(),
                              " results, ", op.results.size(), " are named"));
    }
    for (size_t i = 0; i < op.results.size(); ++i) {
      std::string g = Add(c, op.loc, type.elements[i], "get-tuple-element",
                          {name}, absl::StrCat("index=", i), op.results[i]);
      scope.vals[op.results[i]] = Val{g, type.elements[i]};
    }
    return absl::OkStatus();
  }
  absl::StatusOr<Type> ResultType(const Op& op, size_t i = 0) {
    if (op.result_types.size() <= i) {
      return Err(op.loc, absl::StrCat(op.name, ": missing result type"));
    }
    // `: T, T` lists operand and result types for some ops (select): the
    // results are the last ones.
    size_t n = op.results.size();
    if (!op.signature_has_arrow && op.result_types.size() > n && n > 0) {
      return op.result_types[op.result_types.size() - n + i];
    }
    return op.result_types[i];
  }
  absl::StatusOr<Type> AllResults(const Op& op) {
    size_t n = op.results.size();
    if (n == 1) return ResultType(op, 0);
    std::vector<Type> types;
    for (size_t i = 0; i < n; ++i) {
      HLOREF_ASSIGN_OR_RETURN(Type t, ResultType(op, i));
      types.push_back(std::move(t));
    }
    return TupleOf(std::move(types));
  }

  absl::StatusOr<std::string> FuncComp(const std::string& name, Loc loc);
  absl::StatusOr<std::string> EmitFunc(const Func& f, bool entry);
  absl::Status EmitOps(Comp& c, Scope& scope, const std::vector<Op>& ops,
                       std::vector<Val>* returned, Loc* return_loc);
  absl::Status EmitOp(Comp& c, Scope& scope, const Op& op);
  // A region with scalar (or any) block arguments as parameters, isolated.
  absl::StatusOr<std::string> RegionComp(const Region& r,
                                         absl::string_view hint, const Op& op);
  // A computation applying one binary op (reduce's `applies` form).
  std::string BinaryComp(absl::string_view opcode, PrimitiveType t, Loc loc);
  absl::StatusOr<std::string> Constant(Comp& c, const Op& op, const Attr& value,
                                       const Type& type);
  absl::StatusOr<std::string> ElementText(const std::string& t,
                                          PrimitiveType type, Loc loc);
  absl::StatusOr<std::string> Window(const Op& op,
                                     const std::vector<int64_t>& size,
                                     const Attr* strides, const Attr* padding,
                                     const Attr* lhs_dilate,
                                     const Attr* rhs_dilate,
                                     const Attr* reversal);
  absl::StatusOr<std::vector<int64_t>> Ints(const Attr* a, Loc loc);
  absl::StatusOr<std::string> ReplicaGroups(const Op& op);
  std::string ChannelAttrs(const Op& op);
  absl::Status EmitControlFlow(Comp& c, Scope& scope, const Op& op);
  absl::Status EmitBroadcastBinary(Comp& c, Scope& scope, const Op& op,
                                   absl::string_view opcode);

  const MlirModule& module_;
  std::string file_;
  std::set<std::string> used_;
  std::map<std::string, std::string> func_comps_;
  std::set<std::string> in_progress_;
  std::vector<std::string> out_;
  std::vector<Loc> out_locs_;
};

const Attr* FindAny(const Op& op,
                    std::initializer_list<absl::string_view> keys) {
  for (absl::string_view k : keys) {
    if (const Attr* a = op.Find(k)) return a;
  }
  return nullptr;
}

absl::StatusOr<std::vector<int64_t>> Emitter::Ints(const Attr* a, Loc loc) {
  std::vector<int64_t> v;
  if (a == nullptr) return v;
  if (a->kind == Attr::kInt) return std::vector<int64_t>{a->i};
  if (a->kind == Attr::kList) {
    for (const Attr& e : a->list) {
      if (e.kind == Attr::kBool) {
        v.push_back(e.b ? 1 : 0);
      } else if (e.kind == Attr::kList) {
        HLOREF_ASSIGN_OR_RETURN(auto inner, Ints(&e, loc));
        for (int64_t x : inner) v.push_back(x);
      } else if (e.kind != Attr::kInt) {
        return Err(e.loc, "expected a list of integers");
      } else {
        v.push_back(e.i);
      }
    }
    return v;
  }
  if (a->kind == Attr::kDense) {
    for (const std::string& e : a->dense.elements) {
      int64_t x;
      if (e == "true" || e == "false") {
        v.push_back(e == "true");
      } else if (!absl::SimpleAtoi(e, &x)) {
        return Err(a->loc, absl::StrCat("expected integers, got '", e, "'"));
      } else {
        v.push_back(x);
      }
    }
    if (a->has_type && a->dense.elements.size() == 1) {
      int64_t n = 1;
      for (int64_t d : a->type.dims) n *= d;
      v.assign(n, v[0]);
    }
    return v;
  }
  return Err(a->loc.line > 0 ? a->loc : loc, "expected a list of integers");
}

absl::StatusOr<std::string> Emitter::ElementText(const std::string& t,
                                                 PrimitiveType type, Loc loc) {
  if (t == "true" || t == "false") {
    if (type == PrimitiveType::kPred) return t;
    return std::string(t == "true" ? "1" : "0");
  }
  bool hex = absl::StartsWith(t, "0x") || absl::StartsWith(t, "-0x");
  if (!hex) {
    if (type == PrimitiveType::kPred) {
      return std::string(t == "0" ? "false" : "true");
    }
    return t;
  }
  uint64_t bits = 0;
  for (size_t k = 2; k < t.size(); ++k) {
    char ch = absl::ascii_tolower(t[k]);
    bits = bits * 16 + (std::isdigit(static_cast<unsigned char>(ch))
                            ? ch - '0'
                            : ch - 'a' + 10);
  }
  if (IsFloat(type)) {
    Literal lit(Shape::Scalar(type));
    auto raw = lit.mutable_raw();
    for (size_t k = 0; k < raw.size() && k < 8; ++k) {
      raw[k] = static_cast<uint8_t>(bits >> (8 * k));
    }
    return lit.ElementToString(0);
  }
  if (IsInteger(type)) {
    int w = BitWidth(type);
    if (IsSignedInt(type) && w < 64 && (bits >> (w - 1)) & 1) {
      return absl::StrCat(static_cast<int64_t>(bits) -
                          (static_cast<int64_t>(1) << w));
    }
    if (IsSignedInt(type)) return absl::StrCat(static_cast<int64_t>(bits));
    return absl::StrCat(bits);
  }
  return Err(loc, absl::StrCat("hex element '", t, "' for a ",
                               PrimitiveTypeName(type), " constant"));
}

absl::StatusOr<std::string> Emitter::Constant(Comp& c, const Op& op,
                                              const Attr& value,
                                              const Type& type) {
  if (value.kind != Attr::kDense) {
    return Err(value.loc, "expected a dense<...> constant");
  }
  if (type.kind != Type::kTensor) {
    return Err(op.loc, "a constant must be a tensor");
  }
  int64_t count = 1;
  for (int64_t d : type.dims) count *= d;
  const Dense& d = value.dense;
  Type scalar = Scalar(type.element);
  if (d.hex_blob) {
    Literal lit(Shape(type.element, type.dims));
    auto raw = lit.mutable_raw();
    const size_t one = static_cast<size_t>(StorageBytes(type.element));
    std::string text;
    Type t = type;
    if (d.blob.size() == raw.size()) {
      std::memcpy(raw.data(), d.blob.data(), raw.size());
      text = lit.ToStringWithoutShape();
    } else if (count > 0 && d.blob.size() == one) {  // a splat blob
      Literal s(Shape::Scalar(type.element));
      std::memcpy(s.mutable_raw().data(), d.blob.data(), one);
      text = s.ToStringWithoutShape();
      t = scalar;
    } else {
      return Err(value.loc,
                 absl::StrCat("dense blob has ", d.blob.size(), " bytes, ",
                              type.ToHlo(), " needs ", raw.size()));
    }
    std::string k = Add(c, op.loc, t, "constant", {}, "", "constant");
    c.lines.back() =
        absl::StrCat("  %", k, " = ", t.ToHlo(), " constant(", text, ")");
    if (t.rank() == type.rank() && t.dims == type.dims) return k;
    return Add(c, op.loc, type, "broadcast", {k}, "dimensions={}",
               op.results.empty() ? "constant" : op.results[0]);
  }
  size_t per = d.complex ? 2 : 1;
  size_t n = d.elements.size() / per;
  auto element = [&](size_t i) -> absl::StatusOr<std::string> {
    if (!d.complex) return ElementText(d.elements[i], type.element, value.loc);
    PrimitiveType part = ComplexComponentType(type.element);
    HLOREF_ASSIGN_OR_RETURN(std::string re,
                            ElementText(d.elements[2 * i], part, value.loc));
    HLOREF_ASSIGN_OR_RETURN(
        std::string im, ElementText(d.elements[2 * i + 1], part, value.loc));
    return absl::StrCat("(", re, ", ", im, ")");
  };
  if (n == 1 && (count != 1 || type.rank() > 0)) {
    // A splat: a scalar constant broadcast (keeps the text small).
    HLOREF_ASSIGN_OR_RETURN(std::string e, element(0));
    std::string k = Add(c, op.loc, scalar, "constant", {}, "", "constant");
    c.lines.back() =
        absl::StrCat("  %", k, " = ", scalar.ToHlo(), " constant(", e, ")");
    return Add(c, op.loc, type, "broadcast", {k}, "dimensions={}",
               op.results.empty() ? "constant" : op.results[0]);
  }
  if (static_cast<int64_t>(n) != count) {
    return Err(value.loc, absl::StrCat("dense has ", n, " elements, ",
                                       type.ToHlo(), " needs ", count));
  }
  // Nested braces by dimension.
  std::string text;
  std::vector<int64_t> strides(type.dims.size(), 1);
  // strides[k]: the elements of one sub-array at nesting level k.
  for (int64_t k = type.rank() - 1; k >= 0; --k) {
    strides[k] = type.dims[k] * (k + 1 < type.rank() ? strides[k + 1] : 1);
  }
  for (size_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < type.rank(); ++k) {
      if (i % strides[k] == 0) text += "{";
    }
    HLOREF_ASSIGN_OR_RETURN(std::string e, element(i));
    text += e;
    int closes = 0;
    for (int64_t k = 0; k < type.rank(); ++k) {
      if ((i + 1) % strides[k] == 0) ++closes;
    }
    text += std::string(closes, '}');
    if (i + 1 < n) text += ", ";
  }
  if (count == 0)
    text = std::string(type.rank(), '{') + std::string(type.rank(), '}');
  std::string k = Add(c, op.loc, type, "constant", {}, "",
                      op.results.empty() ? "constant" : op.results[0]);
  c.lines.back() =
      absl::StrCat("  %", k, " = ", type.ToHlo(), " constant(", text, ")");
  return k;
}

std::string Emitter::BinaryComp(absl::string_view opcode, PrimitiveType t,
                                Loc loc) {
  Comp c;
  c.name = Fresh(absl::StrCat(opcode, "_computation"));
  Type s = Scalar(t);
  c.params = {s, s};
  std::string a = Add(c, loc, s, "parameter", {}, "", "lhs");
  c.lines.back() = absl::StrCat("  %", a, " = ", s.ToHlo(), " parameter(0)");
  std::string b = Add(c, loc, s, "parameter", {}, "", "rhs");
  c.lines.back() = absl::StrCat("  %", b, " = ", s.ToHlo(), " parameter(1)");
  std::string r = Add(c, loc, s, opcode, {a, b});
  Finish(c, r);
  return c.name;
}

absl::StatusOr<std::string> Emitter::RegionComp(const Region& r,
                                                absl::string_view hint,
                                                const Op& op) {
  std::set<std::string> defined;
  std::vector<std::string> free;
  CollectFree(r, defined, free);
  // Names that resolve to functions' values are captures, which HLO's
  // reduce / sort / scatter / map computations cannot take.
  if (!free.empty()) {
    return Unsupported(
        r.loc, absl::StrCat("the region of ", op.name, " uses %", free[0],
                            " from outside it (HLO's ", op.name,
                            " computation sees only its parameters)"));
  }
  Comp c;
  c.name = Fresh(hint);
  Scope scope;
  for (size_t i = 0; i < r.args.size(); ++i) {
    const BlockArg& a = r.args[i];
    c.params.push_back(a.type);
    std::string p =
        Add(c, a.loc.line ? a.loc : r.loc, a.type, "parameter", {}, "", a.name);
    c.lines.back() =
        absl::StrCat("  %", p, " = ", a.type.ToHlo(), " parameter(", i, ")");
    scope.vals[a.name] = Val{p, a.type};
  }
  std::vector<Val> returned;
  Loc rloc = r.loc;
  HLOREF_RETURN_IF_ERROR(EmitOps(c, scope, r.ops, &returned, &rloc));
  std::string root;
  if (returned.size() == 1) {
    root = returned[0].hlo;
    if (c.line_of.count(root) == 0 || root.empty()) {
      root = Add(c, rloc, returned[0].type, "copy", {returned[0].hlo});
    }
  } else {
    std::vector<std::string> names;
    std::vector<Type> types;
    for (const Val& v : returned) {
      names.push_back(v.hlo);
      types.push_back(v.type);
    }
    root = Add(c, rloc, TupleOf(types), "tuple", names);
  }
  Finish(c, root);
  return c.name;
}

absl::StatusOr<std::string> Emitter::FuncComp(const std::string& name,
                                              Loc loc) {
  auto it = func_comps_.find(name);
  if (it != func_comps_.end()) return it->second;
  for (const Func& f : module_.funcs) {
    if (f.name != name) continue;
    if (in_progress_.count(name) > 0) {
      return Unsupported(loc, absl::StrCat("recursive call of @", name,
                                           " (HLO has no recursion)"));
    }
    in_progress_.insert(name);
    HLOREF_ASSIGN_OR_RETURN(std::string comp, EmitFunc(f, /*entry=*/false));
    in_progress_.erase(name);
    func_comps_[name] = comp;
    return comp;
  }
  return Err(loc, absl::StrCat("call of undefined function @", name));
}

absl::StatusOr<std::string> Emitter::EmitFunc(const Func& f, bool entry) {
  Comp c;
  c.name = Fresh(f.name);
  Scope scope;
  for (size_t i = 0; i < f.args.size(); ++i) {
    const BlockArg& a = f.args[i];
    c.params.push_back(a.type);
    std::string p = Add(c, a.loc, a.type, "parameter", {}, "", a.name);
    c.lines.back() =
        absl::StrCat("  %", p, " = ", a.type.ToHlo(), " parameter(", i, ")");
    scope.vals[a.name] = Val{p, a.type};
  }
  std::vector<Val> returned;
  Loc rloc = f.loc;
  HLOREF_RETURN_IF_ERROR(EmitOps(c, scope, f.body, &returned, &rloc));
  std::string root;
  if (returned.size() == 1) {
    root = returned[0].hlo;
  } else {
    std::vector<std::string> names;
    std::vector<Type> types;
    for (const Val& v : returned) {
      names.push_back(v.hlo);
      types.push_back(v.type);
    }
    root = Add(c, rloc, TupleOf(types), "tuple", names);
  }
  if (entry) {
    out_.push_back("");
    out_locs_.push_back(Loc{});
    c.name = "ENTRY %" + c.name;
    c.lines[c.line_of.at(root)].replace(0, 2, "  ROOT ");
    out_.push_back(c.name + " {");
    out_locs_.push_back(Loc{});
    for (size_t i = 0; i < c.lines.size(); ++i) {
      out_.push_back(c.lines[i]);
      out_locs_.push_back(c.locs[i]);
    }
    out_.push_back("}");
    out_locs_.push_back(Loc{});
    return c.name;
  }
  Finish(c, root);
  return c.name;
}

absl::Status Emitter::EmitOps(Comp& c, Scope& scope, const std::vector<Op>& ops,
                              std::vector<Val>* returned, Loc* return_loc) {
  bool saw_return = false;
  for (const Op& op : ops) {
    if (saw_return) return Err(op.loc, "op after the terminator");
    if (op.name == "return" || op.name == "func.return" ||
        op.name == "stablehlo.return" || op.name == "mhlo.return") {
      HLOREF_ASSIGN_OR_RETURN(*returned, Operands(scope, op));
      *return_loc = op.loc;
      saw_return = true;
      continue;
    }
    HLOREF_RETURN_IF_ERROR(EmitOp(c, scope, op));
  }
  if (!saw_return) {
    return Err(*return_loc, "block without a return");
  }
  if (returned->empty()) {
    std::string t = Add(c, *return_loc, TupleOf({}), "tuple", {});
    returned->push_back(Val{t, TupleOf({})});
  }
  // A returned value that is a value of an enclosing scope only (or used
  // twice) is copied so the computation has an instruction to mark ROOT.
  for (Val& v : *returned) {
    if (c.line_of.count(v.hlo) == 0) {
      v.hlo = Add(c, *return_loc, v.type, "copy", {v.hlo});
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Emitter::Window(
    const Op& op, const std::vector<int64_t>& size, const Attr* strides,
    const Attr* padding, const Attr* lhs_dilate, const Attr* rhs_dilate,
    const Attr* reversal) {
  size_t n = size.size();
  if (n == 0) return std::string("window={}");
  auto dims = [&](const Attr* a, const char* what,
                  int64_t dflt) -> absl::StatusOr<std::vector<int64_t>> {
    HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> v, Ints(a, op.loc));
    if (a == nullptr) v.assign(n, dflt);
    if (v.size() != n) {
      return Err(
          a->loc.line ? a->loc : op.loc,
          absl::StrCat(what, " has ", v.size(), " entries, the window ", n));
    }
    return v;
  };
  HLOREF_ASSIGN_OR_RETURN(auto stride, dims(strides, "strides", 1));
  HLOREF_ASSIGN_OR_RETURN(auto lhs, dims(lhs_dilate, "lhs dilation", 1));
  HLOREF_ASSIGN_OR_RETURN(auto rhs, dims(rhs_dilate, "rhs dilation", 1));
  HLOREF_ASSIGN_OR_RETURN(auto rev, dims(reversal, "reversal", 0));
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> pad, Ints(padding, op.loc));
  if (padding == nullptr) pad.assign(2 * n, 0);
  if (pad.size() != 2 * n) {
    return Err(
        padding->loc.line ? padding->loc : op.loc,
        absl::StrCat("padding has ", pad.size(), " numbers, expected ", 2 * n));
  }
  std::vector<std::string> sz, st, pd, ld, rd, rv;
  for (size_t i = 0; i < n; ++i) {
    sz.push_back(absl::StrCat(size[i]));
    st.push_back(absl::StrCat(stride[i]));
    pd.push_back(absl::StrCat(pad[2 * i], "_", pad[2 * i + 1]));
    ld.push_back(absl::StrCat(lhs[i]));
    rd.push_back(absl::StrCat(rhs[i]));
    rv.push_back(absl::StrCat(rev[i] ? 1 : 0));
  }
  std::string w = absl::StrCat("window={size=", absl::StrJoin(sz, "x"),
                               " stride=", absl::StrJoin(st, "x"),
                               " pad=", absl::StrJoin(pd, "x"),
                               " lhs_dilate=", absl::StrJoin(ld, "x"),
                               " rhs_dilate=", absl::StrJoin(rd, "x"));
  if (reversal != nullptr) {
    absl::StrAppend(&w, " rhs_reversal=", absl::StrJoin(rv, "x"));
  }
  return w + "}";
}

absl::StatusOr<std::string> Emitter::ReplicaGroups(const Op& op) {
  const Attr* a = op.Find("replica_groups");
  if (a == nullptr) return std::string("replica_groups={}");
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> flat, Ints(a, op.loc));
  int64_t groups = 1, size = static_cast<int64_t>(flat.size());
  if (a->kind == Attr::kDense && a->has_type && a->type.rank() == 2) {
    groups = a->type.dims[0];
    size = a->type.dims[1];
  }
  std::vector<std::string> parts;
  for (int64_t g = 0; g < groups; ++g) {
    std::vector<int64_t> members;
    for (int64_t k = 0; k < size; ++k) {
      if (flat[g * size + k] >= 0) members.push_back(flat[g * size + k]);
    }
    parts.push_back(Braced(members));
  }
  if (groups == 1 && size == 0) return std::string("replica_groups={}");
  return absl::StrCat("replica_groups={", absl::StrJoin(parts, ","), "}");
}

std::string Emitter::ChannelAttrs(const Op& op) {
  std::string s;
  if (const Attr* ch = op.Find("channel_handle")) {
    if (const Attr* h = ch->Find("handle"); h && h->i > 0) {
      s = absl::StrCat("channel_id=", h->i);
    }
  }
  if (op.Find("use_global_device_ids") != nullptr) {
    if (!s.empty()) s += ", ";
    s += "use_global_device_ids=true";
  }
  return s;
}

std::string Join(std::initializer_list<std::string> parts) {
  std::vector<std::string> v;
  for (const std::string& p : parts) {
    if (!p.empty()) v.push_back(p);
  }
  return absl::StrJoin(v, ", ");
}

// stablehlo / chlo element-wise names -> HLO opcodes.
const std::map<std::string, std::string>& ElementwiseOps() {
  static const auto* m = new std::map<std::string, std::string>{
      {"abs", "abs"},
      {"cbrt", "cbrt"},
      {"ceil", "ceil"},
      {"cosine", "cosine"},
      {"count_leading_zeros", "count-leading-zeros"},
      {"exponential", "exponential"},
      {"exponential_minus_one", "exponential-minus-one"},
      {"floor", "floor"},
      {"imag", "imag"},
      {"is_finite", "is-finite"},
      {"log", "log"},
      {"log_plus_one", "log-plus-one"},
      {"logistic", "logistic"},
      {"negate", "negate"},
      {"not", "not"},
      {"popcnt", "popcnt"},
      {"real", "real"},
      {"round_nearest_afz", "round-nearest-afz"},
      {"round_nearest_even", "round-nearest-even"},
      {"rsqrt", "rsqrt"},
      {"sign", "sign"},
      {"sine", "sine"},
      {"sqrt", "sqrt"},
      {"tan", "tan"},
      {"tanh", "tanh"},
      {"convert", "convert"},
      {"bitcast_convert", "bitcast-convert"},
      {"reshape", "reshape"},
      {"add", "add"},
      {"and", "and"},
      {"atan2", "atan2"},
      {"complex", "complex"},
      {"divide", "divide"},
      {"maximum", "maximum"},
      {"minimum", "minimum"},
      {"multiply", "multiply"},
      {"or", "or"},
      {"power", "power"},
      {"remainder", "remainder"},
      {"shift_left", "shift-left"},
      {"shift_right_arithmetic", "shift-right-arithmetic"},
      {"shift_right_logical", "shift-right-logical"},
      {"subtract", "subtract"},
      {"xor", "xor"},
      {"select", "select"},
      {"clamp", "clamp"},
      {"dynamic_update_slice", "dynamic-update-slice"},
      {"after_all", "after-all"},
  };
  return *m;
}

// chlo ops hloref has natively (XLA's CHLO legalization expands most of
// them into polynomial approximations; hloref's op evaluates the function
// itself, within the error model of docs/numerics.md).
const std::map<std::string, std::string>& ChloNative() {
  static const auto* m = new std::map<std::string, std::string>{
      {"erf", "erf"},     {"tan", "tan"},     {"asin", "asin"},
      {"acos", "acos"},   {"sinh", "sinh"},   {"cosh", "cosh"},
      {"asinh", "asinh"}, {"acosh", "acosh"}, {"atanh", "atanh"},
      {"mulhi", "mulhi"},  // the high half of the double-width product
  };
  return *m;
}

absl::Status Emitter::EmitBroadcastBinary(Comp& c, Scope& scope, const Op& op,
                                          absl::string_view opcode) {
  HLOREF_ASSIGN_OR_RETURN(std::vector<Val> in, Operands(scope, op));
  HLOREF_ASSIGN_OR_RETURN(Type out, ResultType(op));
  if (in.size() != 2) return Err(op.loc, "expected two operands");
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> bdims,
                          Ints(op.Find("broadcast_dimensions"), op.loc));
  std::vector<std::string> names;
  for (const Val& v : in) {
    if (v.type.dims == out.dims) {
      names.push_back(v.hlo);
      continue;
    }
    std::vector<int64_t> map;
    if (op.Find("broadcast_dimensions") != nullptr &&
        bdims.size() == static_cast<size_t>(v.type.rank())) {
      map = bdims;
    } else {
      for (int64_t k = 0; k < v.type.rank(); ++k) {
        map.push_back(out.rank() - v.type.rank() + k);
      }
    }
    // Size-1 dimensions stretched to the result's size are dropped first.
    Type kept = v.type;
    kept.dims.clear();
    kept.dynamic.clear();
    std::vector<int64_t> kept_map;
    for (int64_t k = 0; k < v.type.rank(); ++k) {
      if (map[k] < 0 || map[k] >= out.rank()) {
        return Err(op.loc, "broadcast_dimensions out of range");
      }
      if (v.type.dims[k] == out.dims[map[k]]) {
        kept.dims.push_back(v.type.dims[k]);
        kept.dynamic.push_back(v.type.dynamic[k]);
        kept_map.push_back(map[k]);
      } else if (v.type.dims[k] != 1) {
        return Err(op.loc,
                   absl::StrCat("operand dimension ", k, " (", v.type.dims[k],
                                ") does not broadcast to ", out.dims[map[k]]));
      }
    }
    std::string x = v.hlo;
    if (kept.dims.size() != v.type.dims.size()) {
      x = Add(c, op.loc, kept, "reshape", {x});
    }
    Type bt = out;
    bt.element = v.type.element;
    names.push_back(Add(c, op.loc, bt, "broadcast", {x},
                        absl::StrCat("dimensions=", Braced(kept_map))));
  }
  std::string attrs;
  if (opcode == "compare") {
    const Attr* dir = op.Find("comparison_direction");
    const Attr* ty = op.Find("compare_type");
    attrs = absl::StrCat("direction=", dir ? dir->text : "EQ");
    if (ty != nullptr && ty->text != "NOTYPE") {
      absl::StrAppend(&attrs, ", type=", ty->text);
    }
  }
  std::string r = Add(c, op.loc, out, opcode, names, attrs,
                      op.results.empty() ? "" : op.results[0]);
  return Bind(c, scope, op, r, out, false);
}

absl::Status Emitter::EmitControlFlow(Comp& c, Scope& scope, const Op& op) {
  HLOREF_ASSIGN_OR_RETURN(std::vector<Val> in, Operands(scope, op));
  HLOREF_ASSIGN_OR_RETURN(Type out, AllResults(op));
  std::string hint = op.results.empty() ? "cf" : op.results[0];
  if (op.name == "stablehlo.while") {
    if (op.regions.size() != 2) return Err(op.loc, "while needs cond and do");
    // Loop state: the operands, then the outer values either region uses.
    std::vector<std::string> free;
    std::set<std::string> defined;
    std::vector<std::string> names = op.iter_names;
    std::vector<BlockArg> args[2];
    for (int k = 0; k < 2; ++k) {
      args[k] = op.regions[k].args;
      if (!op.regions[k].has_args || args[k].size() != in.size()) {
        if (op.regions[k].args.size() != in.size()) {
          return Err(
              op.regions[k].loc,
              absl::StrCat("the while region has ", op.regions[k].args.size(),
                           " arguments, the while ", in.size(), " operands"));
        }
      }
      CollectFree(op.regions[k], defined, free);
    }
    std::vector<Val> captured;
    for (const std::string& f : free) {
      HLOREF_ASSIGN_OR_RETURN(Val v, Lookup(scope, f, op.loc));
      captured.push_back(v);
    }
    std::vector<Type> state_types;
    std::vector<std::string> state_names;
    for (const Val& v : in) {
      state_types.push_back(v.type);
      state_names.push_back(v.hlo);
    }
    for (const Val& v : captured) {
      state_types.push_back(v.type);
      state_names.push_back(v.hlo);
    }
    Type state = TupleOf(state_types);
    std::string comps[2];
    for (int k = 0; k < 2; ++k) {
      const Region& r = op.regions[k];
      Comp rc;
      rc.name = Fresh(k == 0 ? "while_cond" : "while_body");
      rc.params = {state};
      std::string p = Add(rc, r.loc, state, "parameter", {}, "", "state");
      rc.lines.back() =
          absl::StrCat("  %", p, " = ", state.ToHlo(), " parameter(0)");
      Scope rs;
      std::vector<std::string> elems;
      for (size_t i = 0; i < state_types.size(); ++i) {
        std::string g =
            Add(rc, r.loc, state_types[i], "get-tuple-element", {p},
                absl::StrCat("index=", i),
                i < in.size() ? args[k][i].name : free[i - in.size()]);
        elems.push_back(g);
        if (i < in.size()) {
          rs.vals[args[k][i].name] = Val{g, state_types[i]};
        } else {
          rs.vals[free[i - in.size()]] = Val{g, state_types[i]};
        }
      }
      std::vector<Val> returned;
      Loc rloc = r.loc;
      HLOREF_RETURN_IF_ERROR(EmitOps(rc, rs, r.ops, &returned, &rloc));
      std::string root;
      if (k == 0) {
        if (returned.size() != 1) {
          return Err(rloc, "the while condition must return one i1");
        }
        root = returned[0].hlo;
      } else {
        if (returned.size() != in.size()) {
          return Err(rloc,
                     absl::StrCat("the while body returns ", returned.size(),
                                  " values, expected ", in.size()));
        }
        std::vector<std::string> rn;
        for (const Val& v : returned) rn.push_back(v.hlo);
        for (size_t i = in.size(); i < elems.size(); ++i)
          rn.push_back(elems[i]);
        root = Add(rc, rloc, state, "tuple", rn);
      }
      Finish(rc, root);
      comps[k] = rc.name;
    }
    std::string init =
        Add(c, op.loc, state, "tuple", state_names, "", "while_init");
    std::string w =
        Add(c, op.loc, state, "while", {init},
            absl::StrCat("condition=%", comps[0], ", body=%", comps[1]), hint);
    for (size_t i = 0; i < op.results.size(); ++i) {
      std::string g = Add(c, op.loc, state_types[i], "get-tuple-element", {w},
                          absl::StrCat("index=", i), op.results[i]);
      scope.vals[op.results[i]] = Val{g, state_types[i]};
    }
    return absl::OkStatus();
  }
  // if / case: each branch takes a tuple of the outer values it uses.
  std::vector<std::string> branch_comps, branch_args;
  for (const Region& r : op.regions) {
    std::vector<std::string> free;
    std::set<std::string> defined;
    CollectFree(r, defined, free);
    std::vector<Type> types;
    std::vector<std::string> names;
    for (const std::string& f : free) {
      HLOREF_ASSIGN_OR_RETURN(Val v, Lookup(scope, f, r.loc));
      types.push_back(v.type);
      names.push_back(v.hlo);
    }
    Type arg = TupleOf(types);
    branch_args.push_back(Add(c, r.loc, arg, "tuple", names, "", "branch_arg"));
    Comp rc;
    rc.name = Fresh("branch");
    rc.params = {arg};
    std::string p = Add(rc, r.loc, arg, "parameter", {}, "", "captured");
    rc.lines.back() =
        absl::StrCat("  %", p, " = ", arg.ToHlo(), " parameter(0)");
    Scope rs;
    for (size_t i = 0; i < free.size(); ++i) {
      std::string g = Add(rc, r.loc, types[i], "get-tuple-element", {p},
                          absl::StrCat("index=", i), free[i]);
      rs.vals[free[i]] = Val{g, types[i]};
    }
    std::vector<Val> returned;
    Loc rloc = r.loc;
    HLOREF_RETURN_IF_ERROR(EmitOps(rc, rs, r.ops, &returned, &rloc));
    std::string root;
    if (op.results.size() == 1 && returned.size() == 1) {
      root = returned[0].hlo;
    } else {
      std::vector<std::string> rn;
      std::vector<Type> rt;
      for (const Val& v : returned) {
        rn.push_back(v.hlo);
        rt.push_back(v.type);
      }
      if (op.results.empty()) {
        rn.clear();
        rt.clear();
      }
      root = Add(rc, rloc, TupleOf(rt), "tuple", rn);
    }
    Finish(rc, root);
    branch_comps.push_back(rc.name);
  }
  if (in.size() != 1) return Err(op.loc, "expected one operand");
  std::vector<std::string> operands = {in[0].hlo};
  for (const std::string& a : branch_args) operands.push_back(a);
  std::string attrs;
  if (op.name == "stablehlo.if") {
    if (branch_comps.size() != 2) return Err(op.loc, "if needs two regions");
    attrs = absl::StrCat("true_computation=%", branch_comps[0],
                         ", false_computation=%", branch_comps[1]);
  } else {
    std::vector<std::string> refs;
    for (const std::string& b : branch_comps) refs.push_back("%" + b);
    attrs =
        absl::StrCat("branch_computations={", absl::StrJoin(refs, ", "), "}");
  }
  Type result = op.results.empty() ? TupleOf({}) : out;
  std::string r = Add(c, op.loc, result, "conditional", operands, attrs, hint);
  if (op.results.empty()) return absl::OkStatus();
  return Bind(c, scope, op, r, out, op.results.size() > 1);
}

absl::Status Emitter::EmitOp(Comp& c, Scope& scope, const Op& op) {
  const std::string& name = op.name;
  std::string dialect, base;
  if (size_t dot = name.find('.'); dot != std::string::npos) {
    dialect = name.substr(0, dot);
    base = name.substr(dot + 1);
  } else {
    base = name;
  }
  std::string hint = op.results.empty() ? base : op.results[0];
  if (name == "stablehlo.constant") {
    const Attr* value =
        op.positional.empty() ? op.Find("value") : &op.positional[0];
    if (value == nullptr) return Err(op.loc, "constant without a value");
    Type type;
    if (!op.result_types.empty()) {
      HLOREF_ASSIGN_OR_RETURN(type, ResultType(op));
    } else if (value->has_type) {
      type = value->type;
    } else {
      return Err(op.loc, "constant without a type");
    }
    HLOREF_ASSIGN_OR_RETURN(std::string k, Constant(c, op, *value, type));
    return Bind(c, scope, op, k, type, false);
  }
  if (name == "stablehlo.while" || name == "stablehlo.if" ||
      name == "stablehlo.case") {
    return EmitControlFlow(c, scope, op);
  }
  if (dialect == "mhlo") {
    // XLA's HLO -> StableHLO conversion keeps the HLO ops StableHLO lacks
    // as mhlo.* (mhlo.acos, mhlo.topk, ...) and may print others there.
    static const auto* kMhloNative = new std::map<std::string, std::string>{
        {"acos", "acos"},
        {"acosh", "acosh"},
        {"asin", "asin"},
        {"asinh", "asinh"},
        {"atanh", "atanh"},
        {"cosh", "cosh"},
        {"sinh", "sinh"},
        {"erf", "erf"},
        {"copy", "copy"},
        {"add_dependency", "add-dependency"},
        {"stochastic_convert", "stochastic-convert"},
    };
    auto it = kMhloNative->find(base);
    if (it != kMhloNative->end()) {
      HLOREF_ASSIGN_OR_RETURN(std::vector<Val> xs, Operands(scope, op));
      std::vector<std::string> names;
      for (const Val& v : xs) names.push_back(v.hlo);
      HLOREF_ASSIGN_OR_RETURN(Type out, ResultType(op));
      std::string r = Add(c, op.loc, out, it->second, names, "", hint);
      return Bind(c, scope, op, r, out, false);
    }
    if (base == "domain") {  // identity
      HLOREF_ASSIGN_OR_RETURN(std::vector<Val> xs, Operands(scope, op));
      if (xs.size() != 1 || op.results.size() != 1) {
        return Err(op.loc, "mhlo.domain takes one operand");
      }
      scope.vals[op.results[0]] = xs[0];
      return absl::OkStatus();
    }
    if (base == "topk") {
      HLOREF_ASSIGN_OR_RETURN(std::vector<Val> xs, Operands(scope, op));
      const Attr* k = op.Find("k");
      const Attr* largest = op.Find("largest");
      if (k == nullptr) return Err(op.loc, "topk without k");
      HLOREF_ASSIGN_OR_RETURN(Type out, AllResults(op));
      std::string r =
          Add(c, op.loc, out, "topk", {xs.at(0).hlo},
              absl::StrCat("k=", k->i, ", largest=",
                           largest == nullptr || largest->b ? "true" : "false"),
              hint);
      return Bind(c, scope, op, r, out, op.results.size() > 1);
    }
    Op renamed = op;
    renamed.name = "stablehlo." + base;
    if (base != "return") return EmitOp(c, scope, renamed);
  }
  HLOREF_ASSIGN_OR_RETURN(std::vector<Val> in, Operands(scope, op));
  std::vector<std::string> ins;
  for (const Val& v : in) ins.push_back(v.hlo);
  auto one = [&](absl::string_view opcode, const std::vector<std::string>& xs,
                 const std::string& attrs) -> absl::Status {
    HLOREF_ASSIGN_OR_RETURN(Type out, ResultType(op));
    std::string r = Add(c, op.loc, out, opcode, xs, attrs, hint);
    return Bind(c, scope, op, r, out, false);
  };
  auto multi = [&](absl::string_view opcode, const std::vector<std::string>& xs,
                   const std::string& attrs) -> absl::Status {
    HLOREF_ASSIGN_OR_RETURN(Type out, AllResults(op));
    std::string r = Add(c, op.loc, out, opcode, xs, attrs, hint);
    return Bind(c, scope, op, r, out, op.results.size() > 1);
  };
  auto ints = [&](std::initializer_list<absl::string_view> keys)
      -> absl::StatusOr<std::vector<int64_t>> {
    return Ints(FindAny(op, keys), op.loc);
  };
  auto word = [&](std::initializer_list<absl::string_view> keys,
                  const std::string& dflt) -> std::string {
    const Attr* a = FindAny(op, keys);
    if (a == nullptr) return dflt;
    if (a->kind == Attr::kBool) return a->b ? "true" : "false";
    return a->text;
  };
  auto boolean = [&](absl::string_view key) {
    const Attr* a = op.Find(key);
    return a != nullptr && (a->kind == Attr::kUnit || a->b);
  };
  auto region = [&](size_t k,
                    absl::string_view h) -> absl::StatusOr<std::string> {
    if (op.regions.size() <= k) {
      return Err(op.loc, absl::StrCat(name, " needs ", k + 1, " region(s)"));
    }
    return RegionComp(op.regions[k], h, op);
  };
  auto precision = [&](const Attr* a) -> std::string {
    if (a == nullptr || a->kind != Attr::kList) return "";
    std::vector<std::string> p;
    bool all_default = true;
    for (const Attr& e : a->list) {
      std::string w = absl::AsciiStrToLower(e.text);
      if (w != "default") all_default = false;
      p.push_back(w);
    }
    if (all_default) return "";
    return absl::StrCat("operand_precision={", absl::StrJoin(p, ","), "}");
  };

  if (dialect == "stablehlo" || dialect.empty()) {
    auto ew = ElementwiseOps().find(base);
    if (dialect == "stablehlo" && ew != ElementwiseOps().end()) {
      return one(ew->second, ins, "");
    }
  }
  if (name == "stablehlo.compare") {
    std::string dir = word({"comparison_direction"}, "");
    std::string type = word({"compare_type"}, "");
    for (const std::string& w : op.words) {
      if (w == "EQ" || w == "NE" || w == "LT" || w == "LE" || w == "GT" ||
          w == "GE") {
        dir = w;
      } else {
        type = w;
      }
    }
    if (dir.empty()) return Err(op.loc, "compare without a direction");
    std::string attrs = "direction=" + dir;
    if (!type.empty() && type != "NOTYPE")
      absl::StrAppend(&attrs, ", type=", type);
    return one("compare", ins, attrs);
  }
  if (name == "stablehlo.broadcast_in_dim") {
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"dims", "broadcast_dimensions"}));
    return one("broadcast", ins, "dimensions=" + Braced(d));
  }
  if (name == "stablehlo.broadcast") {
    HLOREF_ASSIGN_OR_RETURN(auto sizes, ints({"sizes", "broadcast_sizes"}));
    if (in.size() != 1) return Err(op.loc, "broadcast takes one operand");
    std::vector<int64_t> d;
    for (int64_t k = 0; k < in[0].type.rank(); ++k) {
      d.push_back(static_cast<int64_t>(sizes.size()) + k);
    }
    return one("broadcast", ins, "dimensions=" + Braced(d));
  }
  if (name == "stablehlo.transpose") {
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"dims", "permutation"}));
    return one("transpose", ins, "dimensions=" + Braced(d));
  }
  if (name == "stablehlo.reverse") {
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"dims", "dimensions"}));
    return one("reverse", ins, "dimensions=" + Braced(d));
  }
  if (name == "stablehlo.concatenate") {
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"dim", "dimension"}));
    return one("concatenate", ins, "dimensions=" + Braced(d));
  }
  if (name == "stablehlo.iota") {
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"dim", "iota_dimension"}));
    if (d.size() != 1) return Err(op.loc, "iota needs one dimension");
    return one("iota", {}, absl::StrCat("iota_dimension=", d[0]));
  }
  if (name == "stablehlo.slice") {
    std::vector<int64_t> start, limit, stride;
    if (op.has_ranges) {
      for (const auto& r : op.ranges) {
        if (r.size() < 2) return Err(op.loc, "slice range needs start:limit");
        start.push_back(r[0]);
        limit.push_back(r[1]);
        stride.push_back(r.size() > 2 ? r[2] : 1);
      }
    } else {
      HLOREF_ASSIGN_OR_RETURN(start, ints({"start_indices"}));
      HLOREF_ASSIGN_OR_RETURN(limit, ints({"limit_indices"}));
      HLOREF_ASSIGN_OR_RETURN(stride, ints({"strides"}));
    }
    if (limit.size() != start.size() || stride.size() != start.size()) {
      return Err(op.loc, "slice start, limit and strides differ in length");
    }
    std::vector<std::string> parts;
    for (size_t k = 0; k < start.size(); ++k) {
      parts.push_back(
          absl::StrCat("[", start[k], ":", limit[k], ":", stride[k], "]"));
    }
    return one("slice", ins,
               absl::StrCat("slice={", absl::StrJoin(parts, ", "), "}"));
  }
  // Shape-taking ops whose result type fixes the shape: the shape operand
  // is redundant (StableHLO requires it to equal the result's dimensions),
  // so they are their static counterparts. dynamic_reshape to a bounded
  // result is HLO's dynamic-reshape with one s32 size per dimension.
  if (name == "stablehlo.dynamic_reshape" ||
      name == "stablehlo.dynamic_broadcast_in_dim" ||
      name == "stablehlo.dynamic_iota") {
    HLOREF_ASSIGN_OR_RETURN(Type out, ResultType(op));
    const bool is_static = std::none_of(out.dynamic.begin(), out.dynamic.end(),
                                        [](bool d) { return d; });
    const bool iota = name == "stablehlo.dynamic_iota";
    if (in.size() != (iota ? 1u : 2u)) {
      return Err(op.loc,
                 absl::StrCat(name, " takes ",
                              iota ? "a shape" : "an operand and a shape"));
    }
    if (name == "stablehlo.dynamic_reshape" && !is_static) {
      const Val& shape = in[1];
      if (shape.type.rank() != 1 || shape.type.dims[0] != out.rank()) {
        return Err(op.loc,
                   "dynamic_reshape: the shape operand needs one "
                   "element per result dimension");
      }
      std::vector<std::string> sizes;
      for (int64_t k = 0; k < out.rank(); ++k) {
        Type one_elem = shape.type;
        one_elem.dims = {1};
        std::string sl = Add(c, op.loc, one_elem, "slice", {shape.hlo},
                             absl::StrCat("slice={[", k, ":", k + 1, "]}"));
        std::string size =
            Add(c, op.loc, Scalar(shape.type.element), "reshape", {sl});
        if (shape.type.element != PrimitiveType::kS32) {
          size = Add(c, op.loc, Scalar(PrimitiveType::kS32), "convert", {size});
        }
        sizes.push_back(size);
      }
      std::vector<std::string> xs = {ins[0]};
      xs.insert(xs.end(), sizes.begin(), sizes.end());
      return one("dynamic-reshape", xs, "");
    }
    if (!is_static) {
      return Unsupported(op.loc, absl::StrCat(name,
                                              " with a bounded dynamic result "
                                              "(only dynamic_reshape has an "
                                              "HLO counterpart for it)"));
    }
    if (name == "stablehlo.dynamic_reshape")
      return one("reshape", {ins[0]}, "");
    if (iota) {
      HLOREF_ASSIGN_OR_RETURN(auto d, ints({"iota_dimension", "dim"}));
      if (d.size() != 1) return Err(op.loc, "dynamic_iota needs one dimension");
      return one("iota", {}, absl::StrCat("iota_dimension=", d[0]));
    }
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"broadcast_dimensions", "dims"}));
    return one("broadcast", {ins[0]}, "dimensions=" + Braced(d));
  }
  if (name == "stablehlo.dynamic_slice") {
    HLOREF_ASSIGN_OR_RETURN(auto s, ints({"sizes", "slice_sizes"}));
    return one("dynamic-slice", ins, "dynamic_slice_sizes=" + Braced(s));
  }
  if (name == "stablehlo.pad") {
    HLOREF_ASSIGN_OR_RETURN(auto lo, ints({"low", "edge_padding_low"}));
    HLOREF_ASSIGN_OR_RETURN(auto hi, ints({"high", "edge_padding_high"}));
    HLOREF_ASSIGN_OR_RETURN(auto it, ints({"interior", "interior_padding"}));
    if (hi.size() != lo.size() || it.size() != lo.size()) {
      return Err(op.loc, "pad low, high and interior differ in length");
    }
    std::vector<std::string> parts;
    for (size_t k = 0; k < lo.size(); ++k) {
      parts.push_back(absl::StrCat(lo[k], "_", hi[k], "_", it[k]));
    }
    return one("pad", ins, "padding=" + absl::StrJoin(parts, "x"));
  }
  if (name == "stablehlo.get_tuple_element") {
    int64_t index = 0;
    if (op.has_ranges && !op.ranges.empty()) {
      index = op.ranges[0][0];
    } else if (const Attr* a = op.Find("index")) {
      index = a->i;
    }
    return one("get-tuple-element", ins, absl::StrCat("index=", index));
  }
  if (name == "stablehlo.tuple") return one("tuple", ins, "");
  if (name == "stablehlo.create_token") return one("after-all", {}, "");
  if (name == "stablehlo.optimization_barrier") {
    std::vector<Type> types;
    for (const Val& v : in) types.push_back(v.type);
    Type t = TupleOf(types);
    std::string tup = Add(c, op.loc, t, "tuple", ins);
    std::string b = Add(c, op.loc, t, "opt-barrier", {tup}, "", hint);
    return Bind(c, scope, op, b, t, true);
  }
  if (name == "stablehlo.replica_id") return one("replica-id", {}, "");
  if (name == "stablehlo.partition_id") return one("partition-id", {}, "");
  if (name == "stablehlo.reduce_precision") {
    int64_t e = 0, m = 0;
    if (const Attr* f = op.Find("format")) {  // format = e5m10
      std::vector<std::string> p = absl::StrSplit(f->text.substr(1), 'm');
      if (p.size() != 2 || !absl::SimpleAtoi(p[0], &e) ||
          !absl::SimpleAtoi(p[1], &m)) {
        return Err(f->loc, "format must be eNmM");
      }
    } else {
      if (const Attr* a = op.Find("exponent_bits")) e = a->i;
      if (const Attr* a = op.Find("mantissa_bits")) m = a->i;
    }
    return one("reduce-precision", ins,
               absl::StrCat("exponent_bits=", e, ", mantissa_bits=", m));
  }
  if (name == "stablehlo.dot_general" || name == "stablehlo.dot") {
    std::vector<int64_t> lb, rb, lc, rc;
    if (name == "stablehlo.dot") {
      if (in.size() != 2) return Err(op.loc, "dot takes two operands");
      lc = {in[0].type.rank() - 1};
      rc = {0};
    } else if (const Attr* dn = op.Find("dot_dimension_numbers")) {
      HLOREF_ASSIGN_OR_RETURN(
          lb, Ints(dn->Find("lhs_batching_dimensions"), op.loc));
      HLOREF_ASSIGN_OR_RETURN(
          rb, Ints(dn->Find("rhs_batching_dimensions"), op.loc));
      HLOREF_ASSIGN_OR_RETURN(
          lc, Ints(dn->Find("lhs_contracting_dimensions"), op.loc));
      HLOREF_ASSIGN_OR_RETURN(
          rc, Ints(dn->Find("rhs_contracting_dimensions"), op.loc));
    } else {
      if (const Attr* b = op.Find("batching_dims"); b && b->list.size() == 2) {
        HLOREF_ASSIGN_OR_RETURN(lb, Ints(&b->list[0], op.loc));
        HLOREF_ASSIGN_OR_RETURN(rb, Ints(&b->list[1], op.loc));
      }
      if (const Attr* b = op.Find("contracting_dims");
          b && b->list.size() == 2) {
        HLOREF_ASSIGN_OR_RETURN(lc, Ints(&b->list[0], op.loc));
        HLOREF_ASSIGN_OR_RETURN(rc, Ints(&b->list[1], op.loc));
      }
    }
    if (op.Find("algorithm") != nullptr) {
      return Unsupported(op.Find("algorithm")->loc,
                         "dot_general with an algorithm attribute");
    }
    std::string attrs;
    if (!lb.empty()) attrs += "lhs_batch_dims=" + Braced(lb) + ", ";
    attrs += "lhs_contracting_dims=" + Braced(lc);
    if (!rb.empty()) attrs += ", rhs_batch_dims=" + Braced(rb);
    attrs += ", rhs_contracting_dims=" + Braced(rc);
    std::string p = precision(FindAny(op, {"precision", "precision_config"}));
    if (!p.empty()) attrs += ", " + p;
    return one("dot", ins, attrs);
  }
  // ragged_dot (chlo.ragged_dot as JAX may emit it, mhlo.ragged_dot as
  // XLA's HLO -> StableHLO conversion keeps it): HLO's ragged-dot.
  if (name == "stablehlo.ragged_dot" || name == "chlo.ragged_dot") {
    const Attr* rd = op.Find("ragged_dot_dimension_numbers");
    if (rd == nullptr || in.size() != 3) {
      return Err(op.loc,
                 "ragged_dot takes lhs, rhs and group sizes and "
                 "ragged_dot_dimension_numbers");
    }
    // mhlo nests the dot dimensions in a #mhlo.dot; chlo lists them.
    const Attr* dn = rd->Find("dot_dimension_numbers");
    if (dn == nullptr) dn = rd;
    std::string attrs;
    for (const auto& [key, hlo] :
         std::vector<std::pair<const char*, const char*>>{
             {"lhs_batching_dimensions", "lhs_batch_dims"},
             {"rhs_batching_dimensions", "rhs_batch_dims"},
             {"lhs_contracting_dimensions", "lhs_contracting_dims"},
             {"rhs_contracting_dimensions", "rhs_contracting_dims"}}) {
      HLOREF_ASSIGN_OR_RETURN(auto v, Ints(dn->Find(key), op.loc));
      if (v.empty() && absl::StrContains(key, "batching")) continue;
      absl::StrAppend(&attrs, attrs.empty() ? "" : ", ", hlo, "=", Braced(v));
    }
    HLOREF_ASSIGN_OR_RETURN(auto ragged,
                            Ints(rd->Find("lhs_ragged_dimensions"), op.loc));
    HLOREF_ASSIGN_OR_RETURN(auto group,
                            Ints(rd->Find("rhs_group_dimensions"), op.loc));
    absl::StrAppend(&attrs, ", lhs_ragged_dims=", Braced(ragged),
                    ", rhs_group_dims=", Braced(group));
    std::string p = precision(FindAny(op, {"precision", "precision_config"}));
    if (!p.empty()) attrs += ", " + p;
    return one("ragged-dot", ins, attrs);
  }
  if (name == "stablehlo.convolution") {
    if (in.size() != 2) return Err(op.loc, "convolution takes two operands");
    const Attr* dn = FindAny(op, {"dim_numbers", "dimension_numbers"});
    if (dn == nullptr || dn->kind != Attr::kRaw) {
      return Err(op.loc, "convolution without dim_numbers");
    }
    // [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] -> b01f_01io->b01f
    std::string raw = absl::StrReplaceAll(dn->text, {{" ", ""}, {"\n", ""}});
    std::vector<std::string> labels;
    for (size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] == '[') {
        size_t end = raw.find(']', k);
        if (end == std::string::npos) break;
        labels.push_back(
            absl::StrReplaceAll(raw.substr(k + 1, end - k - 1), {{",", ""}}));
        k = end;
      }
    }
    if (labels.size() != 3) {
      return Err(dn->loc, absl::StrCat("cannot read dim_numbers '", raw, "'"));
    }
    std::vector<int64_t> size;
    const std::string& kernel = labels[1];
    for (int64_t s = 0;; ++s) {
      size_t pos = kernel.find(static_cast<char>('0' + s));
      if (pos == std::string::npos || s > 9) break;
      if (static_cast<int64_t>(pos) >= in[1].type.rank()) {
        return Err(dn->loc, "kernel labels do not match the kernel rank");
      }
      size.push_back(in[1].type.dims[pos]);
    }
    const Attr* window = op.Find("window");
    auto wf = [&](absl::string_view k, absl::string_view generic) {
      if (window != nullptr) return window->Find(k);
      return op.Find(generic);
    };
    HLOREF_ASSIGN_OR_RETURN(
        std::string w,
        Window(op, size, wf("stride", "window_strides"), wf("pad", "padding"),
               wf("lhs_dilate", "lhs_dilation"),
               wf("rhs_dilate", "rhs_dilation"),
               wf("reverse", "window_reversal")));
    // A reversal of all false is the default; drop it.
    if (absl::StrContains(w, " rhs_reversal=")) {
      std::string rv = w.substr(w.find(" rhs_reversal=") + 14);
      if (rv.find('1') == std::string::npos) {
        w = w.substr(0, w.find(" rhs_reversal=")) + "}";
      }
    }
    std::string attrs = absl::StrCat(w, ", dim_labels=", labels[0], "_",
                                     labels[1], "->", labels[2]);
    if (const Attr* a = op.Find("feature_group_count"); a && a->i != 1) {
      absl::StrAppend(&attrs, ", feature_group_count=", a->i);
    }
    if (const Attr* a = op.Find("batch_group_count"); a && a->i != 1) {
      absl::StrAppend(&attrs, ", batch_group_count=", a->i);
    }
    std::string p = precision(op.Find("precision_config"));
    if (!p.empty()) attrs += ", " + p;
    return one("convolution", ins, attrs);
  }
  if (name == "stablehlo.reduce") {
    std::vector<std::string> xs = ins;
    size_t n = in.size();
    if (!op.inits.empty()) {
      for (size_t k = 0; k < op.inits.size(); ++k) {
        HLOREF_ASSIGN_OR_RETURN(Val v, Lookup(scope, op.inits[k], op.loc));
        xs.push_back(v.hlo);
      }
    } else {
      n /= 2;
    }
    HLOREF_ASSIGN_OR_RETURN(auto dims, ints({"dimensions"}));
    std::string to_apply;
    auto applies = std::find(op.words.begin(), op.words.end(), "applies");
    if (applies != op.words.end() && applies + 1 != op.words.end()) {
      std::string body = *(applies + 1);
      auto it = ElementwiseOps().find(
          absl::StartsWith(body, "stablehlo.") ? body.substr(10) : body);
      if (it == ElementwiseOps().end() || n != 1) {
        return Err(op.loc, absl::StrCat("cannot apply '", body, "'"));
      }
      HLOREF_ASSIGN_OR_RETURN(Val init, Lookup(scope, op.inits[0], op.loc));
      to_apply = BinaryComp(it->second, init.type.element, op.loc);
    } else {
      HLOREF_ASSIGN_OR_RETURN(to_apply, region(0, "reducer"));
    }
    return multi(
        "reduce", xs,
        absl::StrCat("dimensions=", Braced(dims), ", to_apply=%", to_apply));
  }
  if (name == "stablehlo.reduce_window") {
    HLOREF_ASSIGN_OR_RETURN(auto size, ints({"window_dimensions"}));
    HLOREF_ASSIGN_OR_RETURN(
        std::string w, Window(op, size, op.Find("window_strides"),
                              op.Find("padding"), op.Find("base_dilations"),
                              op.Find("window_dilations"), nullptr));
    HLOREF_ASSIGN_OR_RETURN(std::string to_apply, region(0, "reducer"));
    return multi("reduce-window", ins,
                 absl::StrCat(w, ", to_apply=%", to_apply));
  }
  if (name == "stablehlo.select_and_scatter") {
    HLOREF_ASSIGN_OR_RETURN(auto size, ints({"window_dimensions"}));
    HLOREF_ASSIGN_OR_RETURN(
        std::string w, Window(op, size, op.Find("window_strides"),
                              op.Find("padding"), nullptr, nullptr, nullptr));
    HLOREF_ASSIGN_OR_RETURN(std::string sel, region(0, "select"));
    HLOREF_ASSIGN_OR_RETURN(std::string sct, region(1, "scatter"));
    return one("select-and-scatter", ins,
               absl::StrCat(w, ", select=%", sel, ", scatter=%", sct));
  }
  if (name == "stablehlo.async_start" || name == "stablehlo.async_update" ||
      name == "stablehlo.async_done") {
    // mhlo.async_* as XLA's HLO -> StableHLO conversion prints HLO's async
    // ops: the bundle (!mhlo.async_bundle) is HLO's tuple. copy-start /
    // copy-done come out the same way, calling a function of one copy,
    // with a bundle (T, T, u32[]) whose first element is not a tuple.
    if (in.size() != 1 && name != "stablehlo.async_start") {
      return Err(op.loc, absl::StrCat(name, " takes one bundle"));
    }
    HLOREF_ASSIGN_OR_RETURN(Type out, ResultType(op));
    const Type& bundle = name == "stablehlo.async_start" ? out : in[0].type;
    const bool copy = bundle.kind == Type::kTuple &&
                      bundle.elements.size() == 3 &&
                      bundle.elements[0].kind != Type::kTuple;
    if (name == "stablehlo.async_update") return one("async-update", ins, "");
    if (name == "stablehlo.async_done") {
      return one(copy ? "copy-done" : "async-done", ins, "");
    }
    if (copy) return one("copy-start", ins, "");
    const Attr* callee = op.Find("called_computation");
    if (callee == nullptr) {
      return Err(op.loc, "async_start without called_computation");
    }
    HLOREF_ASSIGN_OR_RETURN(std::string comp, FuncComp(callee->text, op.loc));
    return one("async-start", ins, "calls=%" + comp);
  }
  if (name == "stablehlo.fusion") {
    // mhlo.fusion as XLA's HLO -> StableHLO conversion prints HLO's fusion:
    // the fused computation as the region, `fusion_kind`.
    std::string kind = word({"fusion_kind"}, "kLoop");
    if (kind != "kLoop" && kind != "kInput" && kind != "kOutput" &&
        kind != "kCustom") {
      return Err(op.loc,
                 absl::StrCat("mhlo.fusion: unknown fusion_kind '", kind, "'"));
    }
    HLOREF_ASSIGN_OR_RETURN(std::string f, region(0, "fused_computation"));
    return multi("fusion", ins, absl::StrCat("kind=", kind, ", calls=%", f));
  }
  if (name == "stablehlo.xla.rng_get_and_update_state") {
    // mhlo.xla.rng_get_and_update_state {delta = N}: the state, u64[2].
    const Attr* delta = op.Find("delta");
    if (delta == nullptr || op.results.size() != 1) {
      return Err(op.loc, "rng_get_and_update_state needs a delta");
    }
    Type out = Scalar(PrimitiveType::kU64);
    out.dims = {2};
    out.dynamic = {false};
    std::string r = Add(c, op.loc, out, "rng-get-and-update-state", {},
                        absl::StrCat("delta=", delta->i), hint);
    return Bind(c, scope, op, r, out, false);
  }
  if (name == "stablehlo.scan") {
    // mhlo.scan(%inputs) inits (%carries) dimension=d attributes
    // {is_reverse, is_associative} { ^bb0(elements..., carries...) } as
    // XLA's HLO -> StableHLO conversion keeps HLO's scan: outputs then
    // final carries.
    std::vector<std::string> xs = ins;
    for (size_t i = 0; i < op.inits.size(); ++i) {
      HLOREF_ASSIGN_OR_RETURN(Val v, Lookup(scope, op.inits[i], op.loc));
      xs.push_back(v.hlo);
    }
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"dimension", "dimensions"}));
    HLOREF_ASSIGN_OR_RETURN(std::string f, region(0, "scan_body"));
    std::string attrs = absl::StrCat("dimensions=", Braced(d),
                                     ", num_carries=", op.inits.size());
    if (boolean("is_reverse")) attrs += ", is_reverse=true";
    if (boolean("is_associative")) attrs += ", is_associative=true";
    return multi("scan", xs, attrs + ", to_apply=%" + f);
  }
  if (name == "stablehlo.sort") {
    int64_t dim = -1;
    if (const Attr* a = op.Find("dimension")) dim = a->i;
    if (dim < 0 && !in.empty()) dim += in[0].type.rank();
    HLOREF_ASSIGN_OR_RETURN(std::string cmp, region(0, "comparator"));
    std::string attrs = absl::StrCat("dimensions={", dim, "}");
    if (boolean("is_stable")) attrs += ", is_stable=true";
    return multi("sort", ins, attrs + ", to_apply=%" + cmp);
  }
  if (name == "stablehlo.map") {
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"dimensions"}));
    HLOREF_ASSIGN_OR_RETURN(std::string f, region(0, "map"));
    return one("map", ins,
               absl::StrCat("dimensions=", Braced(d), ", to_apply=%", f));
  }
  if (name == "stablehlo.gather" || name == "stablehlo.scatter") {
    bool gather = name == "stablehlo.gather";
    const Attr* dn =
        FindAny(op, {"dimension_numbers", "scatter_dimension_numbers"});
    if (dn == nullptr) return Err(op.loc, "missing dimension numbers");
    auto field = [&](const char* k) { return Ints(dn->Find(k), op.loc); };
    int64_t ivd = 0;
    if (const Attr* a = dn->Find("index_vector_dim")) ivd = a->i;
    std::string attrs;
    auto list = [&](const char* hlo_name, const char* key,
                    bool always) -> absl::Status {
      HLOREF_ASSIGN_OR_RETURN(auto v, field(key));
      if (!always && v.empty()) return absl::OkStatus();
      if (!attrs.empty()) attrs += ", ";
      attrs += absl::StrCat(hlo_name, "=", Braced(v));
      return absl::OkStatus();
    };
    if (gather) {
      HLOREF_RETURN_IF_ERROR(list("offset_dims", "offset_dims", true));
      HLOREF_RETURN_IF_ERROR(
          list("collapsed_slice_dims", "collapsed_slice_dims", true));
      HLOREF_RETURN_IF_ERROR(list("start_index_map", "start_index_map", true));
      HLOREF_RETURN_IF_ERROR(
          list("operand_batching_dims", "operand_batching_dims", false));
      HLOREF_RETURN_IF_ERROR(list("start_indices_batching_dims",
                                  "start_indices_batching_dims", false));
      HLOREF_ASSIGN_OR_RETURN(auto sizes, ints({"slice_sizes"}));
      absl::StrAppend(&attrs, ", index_vector_dim=", ivd,
                      ", slice_sizes=", Braced(sizes));
      if (boolean("indices_are_sorted")) attrs += ", indices_are_sorted=true";
      return one("gather", ins, attrs);
    }
    HLOREF_RETURN_IF_ERROR(
        list("update_window_dims", "update_window_dims", true));
    HLOREF_RETURN_IF_ERROR(
        list("inserted_window_dims", "inserted_window_dims", true));
    HLOREF_RETURN_IF_ERROR(list("scatter_dims_to_operand_dims",
                                "scatter_dims_to_operand_dims", true));
    HLOREF_RETURN_IF_ERROR(
        list("input_batching_dims", "input_batching_dims", false));
    HLOREF_RETURN_IF_ERROR(list("scatter_indices_batching_dims",
                                "scatter_indices_batching_dims", false));
    absl::StrAppend(&attrs, ", index_vector_dim=", ivd);
    if (boolean("indices_are_sorted")) attrs += ", indices_are_sorted=true";
    if (boolean("unique_indices")) attrs += ", unique_indices=true";
    HLOREF_ASSIGN_OR_RETURN(std::string f, region(0, "scatter_update"));
    return multi("scatter", ins, attrs + ", to_apply=%" + f);
  }
  if (name == "stablehlo.all_reduce" || name == "stablehlo.reduce_scatter") {
    HLOREF_ASSIGN_OR_RETURN(std::string groups, ReplicaGroups(op));
    HLOREF_ASSIGN_OR_RETURN(std::string f, region(0, "sum"));
    std::string dims;
    if (name == "stablehlo.reduce_scatter") {
      HLOREF_ASSIGN_OR_RETURN(auto d, ints({"scatter_dimension"}));
      dims = "dimensions=" + Braced(d);
    }
    return multi(
        name == "stablehlo.all_reduce" ? "all-reduce" : "reduce-scatter", ins,
        Join({ChannelAttrs(op), groups, dims, "to_apply=%" + f}));
  }
  if (name == "stablehlo.all_gather") {
    HLOREF_ASSIGN_OR_RETURN(std::string groups, ReplicaGroups(op));
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"all_gather_dim"}));
    return multi("all-gather", ins,
                 Join({ChannelAttrs(op), groups, "dimensions=" + Braced(d)}));
  }
  if (name == "stablehlo.all_to_all") {
    HLOREF_ASSIGN_OR_RETURN(std::string groups, ReplicaGroups(op));
    HLOREF_ASSIGN_OR_RETURN(auto s, ints({"split_dimension"}));
    HLOREF_ASSIGN_OR_RETURN(auto cd, ints({"concat_dimension"}));
    if (s.size() != 1 || cd.size() != 1) {
      return Err(op.loc,
                 "all_to_all needs split_dimension and concat_dimension");
    }
    if (s == cd) {
      return multi("all-to-all", ins,
                   Join({ChannelAttrs(op), groups, "dimensions=" + Braced(s)}));
    }
    // HLO's array all-to-all splits and concatenates along one dimension.
    // As XLA's conversion does: all-to-all along split_dimension s (chunk
    // j goes to participant j; the received chunks stand in source order
    // along s), reshape s into (n, d_s / n), transpose the source
    // dimension n in front of concat_dimension c and merge the two.
    HLOREF_ASSIGN_OR_RETURN(auto count, ints({"split_count"}));
    HLOREF_ASSIGN_OR_RETURN(Type all_out, AllResults(op));
    const std::vector<Type> outs =
        op.results.size() > 1 ? all_out.elements : std::vector<Type>{all_out};
    const int64_t split = s[0], concat = cd[0];
    if (count.size() != 1 || count[0] <= 0 || outs.size() != in.size()) {
      return Err(op.loc,
                 "all_to_all needs a positive split_count and one "
                 "result per operand");
    }
    const int64_t n = count[0];
    std::vector<Type> exchanged;  // the received values, s split in two
    std::vector<Type> operand_types;
    for (const Val& v : in) {
      const int64_t rank = v.type.rank();
      if (split < 0 || split >= rank || concat < 0 || concat >= rank ||
          v.type.dims[split] % n != 0) {
        return Err(op.loc, absl::StrCat("all_to_all: split_dimension ", split,
                                        " / concat_dimension ", concat,
                                        " / split_count ", n,
                                        " do not fit the operand"));
      }
      Type t = v.type;
      t.dims.insert(t.dims.begin() + split, n);
      t.dims[split + 1] /= n;
      t.dynamic.assign(t.dims.size(), false);
      exchanged.push_back(t);
      operand_types.push_back(v.type);
    }
    const Type a2a_type =
        operand_types.size() == 1 ? operand_types[0] : TupleOf(operand_types);
    std::string a2a = Add(c, op.loc, a2a_type, "all-to-all", ins,
                          Join({ChannelAttrs(op), groups,
                                absl::StrCat("dimensions={", split, "}")}));
    // The transpose: original dimensions in order, with the source
    // dimension (at `split` in the exchanged shape) just before `concat`.
    std::vector<int64_t> perm;
    const int64_t rank = in[0].type.rank();
    for (int64_t d = 0; d < rank; ++d) {
      if (d == concat) perm.push_back(split);
      perm.push_back(d < split ? d : d + 1);
    }
    std::vector<std::string> results;
    for (size_t i = 0; i < outs.size(); ++i) {
      std::string part = a2a;
      if (outs.size() > 1) {
        part = Add(c, op.loc, operand_types[i], "get-tuple-element", {a2a},
                   absl::StrCat("index=", i));
      }
      part = Add(c, op.loc, exchanged[i], "reshape", {part});
      Type tt = exchanged[i];
      for (size_t k = 0; k < perm.size(); ++k) {
        tt.dims[k] = exchanged[i].dims[perm[k]];
      }
      std::string tr =
          Add(c, op.loc, tt, "transpose", {part}, "dimensions=" + Braced(perm));
      results.push_back(Add(c, op.loc, outs[i], "reshape", {tr}, "",
                            op.results.size() > i ? op.results[i] : hint));
    }
    if (op.results.size() != results.size()) {
      return Err(op.loc,
                 absl::StrCat("all_to_all has ", results.size(), " results, ",
                              op.results.size(), " are named"));
    }
    for (size_t i = 0; i < results.size(); ++i) {
      scope.vals[op.results[i]] = Val{results[i], outs[i]};
    }
    return absl::OkStatus();
  }
  if (name == "stablehlo.collective_permute") {
    const Attr* p = op.Find("source_target_pairs");
    HLOREF_ASSIGN_OR_RETURN(auto flat, Ints(p, op.loc));
    std::vector<std::string> pairs;
    for (size_t k = 0; k + 1 < flat.size(); k += 2) {
      pairs.push_back(absl::StrCat("{", flat[k], ",", flat[k + 1], "}"));
    }
    return one(
        "collective-permute", ins,
        Join({ChannelAttrs(op), absl::StrCat("source_target_pairs={",
                                             absl::StrJoin(pairs, ","), "}")}));
  }
  if (name == "stablehlo.collective_broadcast") {
    HLOREF_ASSIGN_OR_RETURN(std::string groups, ReplicaGroups(op));
    return one("collective-broadcast", ins, Join({ChannelAttrs(op), groups}));
  }
  if (name == "stablehlo.rng") {
    std::string dist = absl::AsciiStrToLower(
        word({"distribution", "rng_distribution"}, "UNIFORM"));
    if (in.size() != 3) return Err(op.loc, "rng takes a, b and shape");
    return one("rng", {ins[0], ins[1]}, "distribution=rng_" + dist);
  }
  if (name == "stablehlo.rng_bit_generator") {
    std::string alg =
        absl::AsciiStrToLower(word({"algorithm", "rng_algorithm"}, "DEFAULT"));
    return multi("rng-bit-generator", ins, "algorithm=rng_" + alg);
  }
  if (name == "stablehlo.fft") {
    std::string type = word({"type", "fft_type"}, "FFT");
    HLOREF_ASSIGN_OR_RETURN(auto len, ints({"length", "fft_length"}));
    return one("fft", ins,
               absl::StrCat("fft_type=", type, ", fft_length=", Braced(len)));
  }
  if (name == "stablehlo.cholesky") {
    return one("cholesky", ins, boolean("lower") ? "lower=true" : "");
  }
  if (name == "stablehlo.triangular_solve") {
    std::string t = word({"transpose_a"}, "NO_TRANSPOSE");
    return one("triangular-solve", ins,
               Join({boolean("left_side") ? "left_side=true" : "",
                     boolean("lower") ? "lower=true" : "",
                     boolean("unit_diagonal") ? "unit_diagonal=true" : "",
                     "transpose_a=" + t}));
  }
  if (absl::StartsWith(name, "stablehlo.batch_norm_")) {
    const Attr* eps = op.Find("epsilon");
    const Attr* fi = op.Find("feature_index");
    if (eps == nullptr || fi == nullptr) {
      return Err(op.loc, "batch_norm needs epsilon and feature_index");
    }
    std::string e = eps->kind == Attr::kInt ? absl::StrCat(eps->i) : eps->text;
    std::string attrs = absl::StrCat("epsilon=", e, ", feature_index=", fi->i);
    if (base == "batch_norm_inference") {
      return one("batch-norm-inference", ins, attrs);
    }
    return multi(base == "batch_norm_training" ? "batch-norm-training"
                                               : "batch-norm-grad",
                 ins, attrs);
  }
  // Host and device transfers, as XLA's StableHLO -> HLO conversion writes
  // them: infeed / recv results are the data (a tuple when there are
  // several values) and a token; send / recv are followed by their -done.
  if (name == "stablehlo.infeed" || name == "stablehlo.recv") {
    const bool infeed = name == "stablehlo.infeed";
    if (in.size() != 1 || op.results.empty()) {
      return Err(op.loc, absl::StrCat(name,
                                      " takes a token and returns data "
                                      "and a token"));
    }
    std::vector<Type> data;
    for (size_t i = 0; i + 1 < op.results.size(); ++i) {
      HLOREF_ASSIGN_OR_RETURN(Type t, ResultType(op, i));
      data.push_back(t);
    }
    HLOREF_ASSIGN_OR_RETURN(Type token, ResultType(op, op.results.size() - 1));
    const Type value = data.size() == 1 ? data[0] : TupleOf(data);
    std::string done;
    if (infeed) {
      std::string cfg;
      if (const Attr* a = op.Find("infeed_config");
          a && a->kind == Attr::kString && !a->text.empty()) {
        cfg = "infeed_config=" + Quote(a->text);
      }
      done = Add(c, op.loc, TupleOf({value, token}), "infeed", ins, cfg, hint);
    } else {
      const std::string attrs =
          Join({ChannelAttrs(op),
                boolean("is_host_transfer") ? "is_host_transfer=true" : ""});
      std::string r =
          Add(c, op.loc, TupleOf({value, Scalar(PrimitiveType::kU32), token}),
              "recv", ins, attrs);
      done = Add(c, op.loc, TupleOf({value, token}), "recv-done", {r}, attrs,
                 hint);
    }
    // An infeed of no values reads an empty tuple.
    std::string v;
    if (!data.empty()) {
      v = Add(c, op.loc, value, "get-tuple-element", {done}, "index=0");
    }
    for (size_t i = 0; i < data.size(); ++i) {
      std::string d = v;
      if (data.size() > 1) {
        d = Add(c, op.loc, data[i], "get-tuple-element", {v},
                absl::StrCat("index=", i), op.results[i]);
      }
      scope.vals[op.results[i]] = Val{d, data[i]};
    }
    std::string t = Add(c, op.loc, token, "get-tuple-element", {done},
                        "index=1", op.results.back());
    scope.vals[op.results.back()] = Val{t, token};
    return absl::OkStatus();
  }
  if (name == "stablehlo.outfeed" || name == "stablehlo.send") {
    if (in.size() < 2 || op.results.size() != 1) {
      return Err(op.loc, absl::StrCat(name,
                                      " takes data and a token and "
                                      "returns a token"));
    }
    std::vector<std::string> data(ins.begin(), ins.end() - 1);
    std::vector<Type> types;
    for (size_t i = 0; i + 1 < in.size(); ++i) types.push_back(in[i].type);
    std::string value = data[0];
    Type value_type = types[0];
    if (data.size() > 1) {
      value_type = TupleOf(types);
      value = Add(c, op.loc, value_type, "tuple", data);
    }
    HLOREF_ASSIGN_OR_RETURN(Type token, ResultType(op));
    if (name == "stablehlo.outfeed") {
      std::string attrs = "outfeed_shape=" + value_type.ToHlo();
      if (const Attr* a = op.Find("outfeed_config");
          a && a->kind == Attr::kString && !a->text.empty()) {
        attrs += ", outfeed_config=" + Quote(a->text);
      }
      return one("outfeed", {value, ins.back()}, attrs);
    }
    const std::string attrs =
        Join({ChannelAttrs(op),
              boolean("is_host_transfer") ? "is_host_transfer=true" : ""});
    std::string sent = Add(
        c, op.loc, TupleOf({value_type, Scalar(PrimitiveType::kU32), token}),
        "send", {value, ins.back()}, attrs);
    return one("send-done", {sent}, attrs);
  }
  if (name == "stablehlo.custom_call") {
    std::string target = op.callee;
    if (target.empty()) target = word({"call_target_name"}, "");
    std::string attrs = "custom_call_target=" + Quote(target);
    if (boolean("has_side_effect"))
      attrs += ", custom_call_has_side_effect=true";
    if (const Attr* b = op.Find("backend_config");
        b && b->kind == Attr::kString && !b->text.empty()) {
      attrs += ", backend_config=" + Quote(b->text);
    }
    if (const Attr* v = op.Find("api_version"); v && v->i > 1) {
      static const char* kNames[] = {
          "API_VERSION_ORIGINAL", "API_VERSION_ORIGINAL",
          "API_VERSION_STATUS_RETURNING",
          "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
      if (v->i < 5) absl::StrAppend(&attrs, ", api_version=", kNames[v->i]);
    }
    if (op.results.empty()) {
      std::string r = Add(c, op.loc, TupleOf({}), "custom-call", ins, attrs);
      (void)r;
      return absl::OkStatus();
    }
    return multi("custom-call", ins, attrs);
  }
  if (name == "call" || name == "func.call" || name == "stablehlo.composite") {
    std::string callee = op.callee;
    if (name == "stablehlo.composite") {
      const Attr* d = op.Find("decomposition");
      if (d == nullptr) return Err(op.loc, "composite without decomposition");
      callee = d->text;
    }
    HLOREF_ASSIGN_OR_RETURN(std::string comp, FuncComp(callee, op.loc));
    if (op.results.empty()) return absl::OkStatus();  // no effect
    return multi("call", ins, "to_apply=%" + comp);
  }
  if (name == "stablehlo.get_dimension_size") {
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"dim", "dimension"}));
    return one("get-dimension-size", ins, "dimensions=" + Braced(d));
  }
  if (name == "stablehlo.set_dimension_size") {
    HLOREF_ASSIGN_OR_RETURN(auto d, ints({"dim", "dimension"}));
    return one("set-dimension-size", ins, "dimensions=" + Braced(d));
  }
  // chlo.
  if (dialect == "chlo") {
    if (auto it = ChloNative().find(base); it != ChloNative().end()) {
      return one(it->second, ins, "");
    }
    if (base == "atan") {  // atan(x) = atan2(x, 1)
      HLOREF_ASSIGN_OR_RETURN(Type out, ResultType(op));
      Type s = Scalar(out.element);
      std::string k = Add(c, op.loc, s, "constant", {}, "", "one");
      c.lines.back() = absl::StrCat("  %", k, " = ", s.ToHlo(), " constant(1)");
      std::string b = Add(c, op.loc, out, "broadcast", {k}, "dimensions={}");
      return one("atan2", {ins[0], b}, "");
    }
    if (base == "conj") {  // complex(real(x), -imag(x))
      HLOREF_ASSIGN_OR_RETURN(Type out, ResultType(op));
      Type part = out;
      part.element = ComplexComponentType(out.element);
      std::string re = Add(c, op.loc, part, "real", ins);
      std::string im = Add(c, op.loc, part, "imag", ins);
      std::string ng = Add(c, op.loc, part, "negate", {im});
      return one("complex", {re, ng}, "");
    }
    if (base == "square") return one("multiply", {ins[0], ins[0]}, "");
    if (IsExpandedChloOp(base)) {
      // XLA's CHLO legalization (chlo_expansions.h).
      HLOREF_ASSIGN_OR_RETURN(Type out, ResultType(op));
      for (const Val& v : in) {
        if (v.type.dims != out.dims || v.type.kind != Type::kTensor) {
          return Err(op.loc, absl::StrCat(name,
                                          ": operands must have the "
                                          "result's shape"));
        }
      }
      struct Sink : ExpansionSink {
        Emitter* e;
        Comp* c;
        Loc loc;
        Type shape;
        std::string Emit(PrimitiveType type, absl::string_view opcode,
                         const std::vector<std::string>& operands,
                         const std::string& attrs) override {
          Type t = shape;
          t.element = type;
          return e->Add(*c, loc, t, opcode, operands, attrs);
        }
        std::string Constant(PrimitiveType type,
                             const std::string& text) override {
          Type s = Scalar(type);
          std::string k = e->Add(*c, loc, s, "constant", {}, "", "k");
          c->lines.back() =
              absl::StrCat("  %", k, " = ", s.ToHlo(), " constant(", text, ")");
          Type t = shape;
          t.element = type;
          return e->Add(*c, loc, t, "broadcast", {k}, "dimensions={}");
        }
      } sink;
      sink.e = this;
      sink.c = &c;
      sink.loc = op.loc;
      sink.shape = out;
      absl::StatusOr<std::string> r = ExpandChlo(base, out.element, ins, sink);
      if (!r.ok()) {
        if (r.status().code() == absl::StatusCode::kUnimplemented) {
          return Unsupported(op.loc, r.status().message());
        }
        return Err(op.loc, r.status().message());
      }
      return Bind(c, scope, op, *r, out, false);
    }
    if (base == "is_inf" || base == "is_pos_inf" || base == "is_neg_inf") {
      HLOREF_ASSIGN_OR_RETURN(Type out, ResultType(op));
      Type s = Scalar(in[0].type.element);
      Type b = in[0].type;
      std::string x = ins[0];
      if (base == "is_inf") x = Add(c, op.loc, in[0].type, "abs", {x});
      std::string k = Add(c, op.loc, s, "constant", {}, "", "inf");
      c.lines.back() = absl::StrCat("  %", k, " = ", s.ToHlo(), " constant(",
                                    base == "is_neg_inf" ? "-inf" : "inf", ")");
      std::string kb = Add(c, op.loc, b, "broadcast", {k}, "dimensions={}");
      (void)out;
      return one("compare", {x, kb}, "direction=EQ");
    }
    if (base == "top_k") {
      const Attr* k = op.Find("k");
      if (k == nullptr) return Err(op.loc, "top_k without k");
      return multi("topk", ins, absl::StrCat("k=", k->i, ", largest=true"));
    }
    if (absl::StartsWith(base, "broadcast_")) {
      std::string b = base.substr(10);
      auto it = ElementwiseOps().find(b);
      if (b == "compare") return EmitBroadcastBinary(c, scope, op, "compare");
      if (it != ElementwiseOps().end() && in.size() == 2) {
        return EmitBroadcastBinary(c, scope, op, it->second);
      }
    }
    return Unsupported(op.loc,
                       absl::StrCat(name,
                                    " (no HLO op and no expansion in "
                                    "hloref's mapping, docs/stablehlo.md)"));
  }
  if (absl::StartsWith(name, "stablehlo.dynamic_") ||
      name == "stablehlo.real_dynamic_slice" ||
      name == "stablehlo.compute_reshape_shape" ||
      absl::StartsWith(name, "shape.")) {
    return Unsupported(op.loc, absl::StrCat(name,
                                            " (shapes computed at run time "
                                            "without bounds have no HLO "
                                            "counterpart)"));
  }
  if (absl::StartsWith(name, "stablehlo.uniform_")) {
    return Unsupported(op.loc, absl::StrCat(name,
                                            " (quantized types have no "
                                            "HLO counterpart)"));
  }
  if (absl::StartsWith(name, "check.")) {
    return Unsupported(op.loc, absl::StrCat(name,
                                            " outside the stablehlo suite mode "
                                            "(hloref conformance "
                                            "--suite=stablehlo:DIR)"));
  }
  return Unsupported(op.loc, absl::StrCat("op '", name, "'"));
}

absl::StatusOr<std::string> Emitter::Run(std::vector<Loc>* line_locs) {
  const Func* entry = nullptr;
  for (const Func& f : module_.funcs) {
    if (f.name == "main") entry = &f;
  }
  if (entry == nullptr) {
    for (const Func& f : module_.funcs) {
      if (f.is_public) {
        if (entry != nullptr) {
          return Err(f.loc, "several public functions and none is @main");
        }
        entry = &f;
      }
    }
  }
  if (entry == nullptr) return Err(Loc{1, 1}, "no @main function");
  HLOREF_RETURN_IF_ERROR(EmitFunc(*entry, /*entry=*/true).status());
  std::string header = absl::StrCat("HloModule ", module_.name);
  if (module_.num_replicas != 1) {
    absl::StrAppend(&header, ", replica_count=", module_.num_replicas);
  }
  if (module_.num_partitions != 1) {
    absl::StrAppend(&header, ", num_partitions=", module_.num_partitions);
  }
  out_.insert(out_.begin(), header);
  out_locs_.insert(out_locs_.begin(), Loc{});
  if (line_locs != nullptr) *line_locs = out_locs_;
  return absl::StrJoin(out_, "\n") + "\n";
}

// Removes the check ops of @main (StableHloTestModule) and makes its
// return give (checked, expected) per check.
absl::Status SplitChecks(MlirModule& module, const std::string& file,
                         std::vector<StableHloCheck>* checks) {
  Func* main = nullptr;
  for (Func& f : module.funcs) {
    if (f.name == "main") main = &f;
  }
  if (main == nullptr) {
    return absl::InvalidArgumentError(file + ": no @main function");
  }
  std::vector<Op> body;
  std::vector<std::string> returned;
  int fresh = 0;
  for (Op& op : main->body) {
    std::string kind;
    if (absl::StartsWith(op.name, "check.expect_")) {
      kind = op.name.substr(13);
    } else if (op.name == "stablehlo.custom_call" &&
               absl::StartsWith(op.callee, "check.expect_")) {
      kind = op.callee.substr(13);
    }
    if (kind.empty()) {
      if (op.name == "return" || op.name == "func.return") {
        Op ret = op;
        ret.operands = returned;
        ret.operand_locs.clear();
        body.push_back(std::move(ret));
      } else {
        body.push_back(std::move(op));
      }
      continue;
    }
    bool constant = absl::EndsWith(kind, "_const");
    if (constant) kind = kind.substr(0, kind.size() - 6);
    if (kind != "eq" && kind != "almost_eq" && kind != "close") {
      return absl::UnimplementedError(
          absl::StrCat(file, ":", op.loc.line, ":", op.loc.col,
                       ": error: not supported: check.expect_", kind));
    }
    std::string want;
    if (constant) {
      if (op.operands.size() != 1 || op.positional.empty() ||
          !op.positional[0].has_type) {
        return absl::InvalidArgumentError(
            absl::StrCat(file, ":", op.loc.line, ":", op.loc.col,
                         ": error: expected `check.expect_", kind,
                         "_const %x, dense<...> : type`"));
      }
      Op k;
      k.name = "stablehlo.constant";
      k.loc = op.loc;
      want = absl::StrCat("__expected_", fresh++);
      k.results = {want};
      k.positional = {op.positional[0]};
      k.result_types = {op.positional[0].type};
      body.push_back(std::move(k));
    } else {
      if (op.operands.size() != 2) {
        return absl::InvalidArgumentError(
            absl::StrCat(file, ":", op.loc.line, ":", op.loc.col,
                         ": error: a check takes two values"));
      }
      want = op.operands[1];
    }
    returned.push_back(op.operands[0]);
    returned.push_back(want);
    checks->push_back(StableHloCheck{kind, op.loc.line});
  }
  if (checks->empty()) {
    return absl::InvalidArgumentError(file + ": @main has no check ops");
  }
  main->body = std::move(body);
  return absl::OkStatus();
}

// Runs the conversion, keeping the .mlir location of each HLO line.
absl::StatusOr<std::string> Convert(
    absl::string_view text, const std::string& file_name,
    std::vector<Loc>* line_locs,
    std::vector<StableHloCheck>* checks = nullptr) {
  HLOREF_ASSIGN_OR_RETURN(MlirModule module, ParseMlir(text, file_name));
  if (checks != nullptr) {
    HLOREF_RETURN_IF_ERROR(SplitChecks(module, file_name, checks));
  }
  std::string name;
  for (char ch : module.name) {
    name += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' ||
             ch == '.' || ch == '-')
                ? ch
                : '_';
  }
  module.name = name.empty() ? "module" : name;
  Emitter emitter(module, file_name);
  return emitter.Run(line_locs);
}

}  // namespace
}  // namespace stablehlo

bool LooksLikeStableHlo(absl::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && absl::ascii_isspace(text[i])) ++i;
    if (text.substr(i, 2) == "//") {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    break;
  }
  absl::string_view rest = text.substr(i);
  return absl::StartsWith(rest, "module") ||
         absl::StartsWith(rest, "func.func") || absl::StartsWith(rest, "#loc");
}

absl::StatusOr<std::string> StableHloToHloText(absl::string_view text,
                                               const std::string& file_name) {
  return stablehlo::Convert(text, file_name, nullptr);
}

namespace {

absl::StatusOr<std::unique_ptr<HloModule>> ParseConverted(
    absl::string_view text, const ParseOptions& options,
    std::vector<StableHloCheck>* checks) {
  std::vector<stablehlo::Loc> locs;
  HLOREF_ASSIGN_OR_RETURN(
      std::string hlo,
      stablehlo::Convert(text, options.file_name, &locs, checks));
  ParseOptions hlo_options = options;
  hlo_options.file_name = "<converted>";
  auto module = ParseHloModule(hlo, hlo_options);
  if (module.ok()) return module;
  // "<converted>:L:C: error: ..." -> the .mlir op of HLO line L.
  std::string msg(module.status().message());
  int line = 0;
  if (absl::StartsWith(msg, "<converted>:")) {
    size_t colon = msg.find(':', 12);
    if (colon != std::string::npos) {
      (void)absl::SimpleAtoi(msg.substr(12, colon - 12), &line);
    }
  }
  std::string where = options.file_name.empty() ? "" : options.file_name + ":";
  if (line >= 1 && static_cast<size_t>(line) <= locs.size() &&
      locs[line - 1].line > 0) {
    std::vector<std::string> lines = absl::StrSplit(hlo, '\n');
    return absl::Status(
        module.status().code(),
        absl::StrCat(where, locs[line - 1].line, ":", locs[line - 1].col,
                     ": error: the HLO this op converts to is rejected: ", msg,
                     "\n  converted: ", lines[line - 1]));
  }
  return absl::Status(
      module.status().code(),
      absl::StrCat(where, "error: in the converted HLO: ", msg));
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ParseStableHloModule(
    absl::string_view text, const ParseOptions& options) {
  return ParseConverted(text, options, nullptr);
}

absl::StatusOr<StableHloTestModule> ParseStableHloTestModule(
    absl::string_view text, const ParseOptions& options) {
  StableHloTestModule out;
  HLOREF_ASSIGN_OR_RETURN(out.module,
                          ParseConverted(text, options, &out.checks));
  return out;
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseStableHloModuleFile(
    const std::string& path, ParseOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (options.file_name.empty()) options.file_name = path;
  return ParseStableHloModule(ss.str(), options);
}

}  // namespace hloref
