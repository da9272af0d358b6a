// The verifier driver: module structure (entry, parameters, roots, called
// computations, recursion), per-instruction operand counts and attributes
// from the op table, and the comparison of every instruction's shape with
// the shape inferred by its family file. Also the helpers the family files
// share (verifier_internal.h). Rule IDs: `module.C<n>` here, `<op>.C<n>` in
// the family files; spec/families.md lists them all.
#include "spec/verifier/verifier.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/opcode.h"
#include "spec/verifier/verifier_internal.h"

namespace hloref {
namespace verifier_internal {

std::string DimsStr(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

std::string ShapeStr(const Shape& shape) {
  return shape.ToString(/*print_layout=*/false);
}

std::string OperandName(const HloInstruction& inst, int64_t i) {
  const HloInstruction* op = inst.operand(i);
  return absl::StrCat("operand ", i, " (%", op ? op->name() : "<null>", ")");
}

bool SameShape(const Shape& a, const Shape& b) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!SameShape(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (!a.IsArray()) return true;  // token, opaque
  return std::equal(a.dimensions().begin(), a.dimensions().end(),
                    b.dimensions().begin(), b.dimensions().end());
}

bool SameDims(const Shape& a, const Shape& b) {
  return std::equal(a.dimensions().begin(), a.dimensions().end(),
                    b.dimensions().begin(), b.dimensions().end());
}

Shape WithElementType(const Shape& like, PrimitiveType type) {
  Shape s = like;
  s.set_element_type(type);
  s.clear_layout();
  return s;
}

Shape MakeShape(PrimitiveType type, absl::Span<const int64_t> dims) {
  return Shape(type, dims);
}

bool IsScalarArray(const Shape& s) { return s.IsArray() && s.rank() == 0; }

bool IsTupleOfArrays(const Shape& s) {
  if (!s.IsTuple()) return false;
  for (const Shape& e : s.tuple_shapes()) {
    if (!e.IsArray()) return false;
  }
  return true;
}

absl::Status ExpectArrayOperand(const HloInstruction& inst, int64_t i,
                                absl::string_view rule) {
  const Shape& s = inst.operand(i)->shape();
  if (!s.IsArray()) {
    return Fail(inst, rule, OperandName(inst, i), " must be an array, got ",
                ShapeStr(s));
  }
  return absl::OkStatus();
}

bool Contains(absl::Span<const int64_t> list, int64_t v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

absl::Status CheckDimList(const HloInstruction& inst, absl::string_view rule,
                          absl::string_view what,
                          absl::Span<const int64_t> dims, int64_t rank,
                          bool sorted) {
  std::set<int64_t> seen;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= rank) {
      return Fail(inst, rule, what, " ", DimsStr(dims), " has entry ", dims[i],
                  ", expected a dimension in [0, ", rank, ")");
    }
    if (!seen.insert(dims[i]).second) {
      return Fail(inst, rule, what, " ", DimsStr(dims), " repeats dimension ",
                  dims[i]);
    }
    if (sorted && i > 0 && dims[i] < dims[i - 1]) {
      return Fail(inst, rule, what, " ", DimsStr(dims),
                  " must be sorted in increasing order");
    }
  }
  return absl::OkStatus();
}

namespace {
// Parameter instructions of `comp` by number; nullptr entries where a number
// is missing (reported by the structure check).
std::vector<const HloInstruction*> ParametersByNumber(
    const HloComputation& comp) {
  std::vector<const HloInstruction*> params;
  for (const auto& inst : comp.instructions()) {
    if (inst->opcode() != HloOpcode::kParameter) continue;
    int64_t n = inst->parameter_number();
    if (n < 0 || n > comp.instruction_count()) continue;
    if (static_cast<int64_t>(params.size()) <= n) params.resize(n + 1);
    params[n] = inst.get();
  }
  return params;
}

const HloInstruction* RootOf(const HloComputation& comp) {
  if (comp.root() != nullptr) return comp.root();
  if (comp.instructions().empty()) return nullptr;
  return comp.instructions().back().get();
}
}  // namespace

std::vector<Shape> ParameterShapes(const HloComputation& comp) {
  std::vector<Shape> shapes;
  for (const HloInstruction* p : ParametersByNumber(comp)) {
    shapes.push_back(p ? p->shape() : Shape());
  }
  return shapes;
}

const Shape& ResultShape(const HloComputation& comp) {
  static const Shape* const kInvalid = new Shape();
  const HloInstruction* root = RootOf(comp);
  return root ? root->shape() : *kInvalid;
}

namespace {
std::string ShapeListStr(absl::Span<const Shape> shapes) {
  std::vector<std::string> parts;
  for (const Shape& s : shapes) parts.push_back(ShapeStr(s));
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}
}  // namespace

absl::Status CheckSignature(const HloInstruction& inst, absl::string_view rule,
                            absl::string_view what, const HloComputation* comp,
                            absl::Span<const Shape> params,
                            const Shape& result) {
  if (comp == nullptr) {
    return Fail(inst, rule, what, " computation is missing");
  }
  std::vector<Shape> actual = ParameterShapes(*comp);
  bool ok = actual.size() == params.size();
  for (size_t i = 0; ok && i < params.size(); ++i) {
    ok = SameShape(actual[i], params[i]);
  }
  if (!ok || !SameShape(ResultShape(*comp), result)) {
    return Fail(inst, rule, what, " computation %", comp->name(), " has type ",
                ShapeListStr(actual), " -> ", ShapeStr(ResultShape(*comp)),
                ", expected ", ShapeListStr(params), " -> ", ShapeStr(result));
  }
  return absl::OkStatus();
}

absl::Status CheckReducer(const HloInstruction& inst, absl::string_view rule,
                          absl::string_view what, const HloComputation* comp,
                          absl::Span<const PrimitiveType> types) {
  std::vector<Shape> params;
  for (int pass = 0; pass < 2; ++pass) {
    for (PrimitiveType t : types) params.push_back(Shape::Scalar(t));
  }
  Shape result;
  if (types.size() == 1) {
    result = Shape::Scalar(types[0]);
  } else {
    std::vector<Shape> elems;
    for (PrimitiveType t : types) elems.push_back(Shape::Scalar(t));
    result = Shape::Tuple(std::move(elems));
  }
  return CheckSignature(inst, rule, what, comp, params, result);
}

bool SameTypeIgnoringFpPrecision(PrimitiveType a, PrimitiveType b) {
  return a == b || (IsFloat(a) && IsFloat(b));
}

bool IsPrecisionChangeOnly(const HloComputation* comp,
                           absl::Span<const PrimitiveType> types) {
  if (comp == nullptr) return false;
  const size_t n = types.size();
  std::vector<Shape> params = ParameterShapes(*comp);
  const Shape& result = ResultShape(*comp);
  if (params.size() != 2 * n) return false;
  std::vector<Shape> acc;
  if (n == 1 && result.IsArray()) {
    acc.push_back(result);
  } else if (n > 1 && result.IsTuple() && result.tuple_shapes().size() == n) {
    for (const Shape& e : result.tuple_shapes()) acc.push_back(e);
  } else {
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    if (!IsScalarArray(acc[i]) || !IsScalarArray(params[i]) ||
        !IsScalarArray(params[n + i]) ||
        acc[i].element_type() != params[i].element_type() ||
        !SameTypeIgnoringFpPrecision(types[i], acc[i].element_type()) ||
        !SameTypeIgnoringFpPrecision(types[i], params[n + i].element_type())) {
      return false;
    }
  }
  return true;
}

absl::Status CheckReducerAsXla(const HloInstruction& inst,
                               absl::string_view rule, absl::string_view what,
                               const HloComputation* comp,
                               absl::Span<const PrimitiveType> types,
                               absl::string_view impl_id) {
  absl::Status exact = CheckReducer(inst, rule, what, comp, types);
  if (exact.ok() || !IsPrecisionChangeOnly(comp, types)) return exact;
  std::vector<std::string> names;
  for (PrimitiveType t : types) {
    names.push_back(std::string(PrimitiveTypeName(t)));
  }
  Warn(inst, rule,
       absl::StrCat(
           what, " computation %", comp->name(), " has type ",
           ShapeListStr(ParameterShapes(*comp)), " -> ",
           ShapeStr(ResultShape(*comp)), " over ", absl::StrJoin(names, ", "),
           " values: seed 001 gives one type, XLA's shape inference ignores "
           "floating-point precision here; each application converts its "
           "arguments to the computation's types and its results back (",
           impl_id, ")"));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> WindowOutputDims(
    const HloInstruction& inst, absl::string_view rule,
    absl::Span<const int64_t> base_dims, const Window& window) {
  const std::string op(HloOpcodeString(inst.opcode()));
  if (window.dimensions.size() != base_dims.size()) {
    return Fail(inst, rule, "window has ", window.dimensions.size(),
                " dimensions, expected ", base_dims.size());
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < base_dims.size(); ++i) {
    const WindowDimension& w = window.dimensions[i];
    if (w.size <= 0 || w.stride <= 0 || w.base_dilation <= 0 ||
        w.window_dilation <= 0) {
      return Fail(inst, rule, "window dimension ", i, " has size ", w.size,
                  ", stride ", w.stride, ", lhs_dilate ", w.base_dilation,
                  ", rhs_dilate ", w.window_dilation, "; all must be positive");
    }
    int64_t dilated_base =
        base_dims[i] == 0 ? 0 : (base_dims[i] - 1) * w.base_dilation + 1;
    int64_t padded = dilated_base + w.padding_low + w.padding_high;
    int64_t dilated_window = (w.size - 1) * w.window_dilation + 1;
    if (padded < 0) {
      return Fail(inst, rule, "window dimension ", i, ": padding ",
                  w.padding_low, "_", w.padding_high,
                  " leaves a negative base size ", padded);
    }
    out.push_back(
        padded < dilated_window ? 0 : (padded - dilated_window) / w.stride + 1);
  }
  return out;
}

namespace {
int64_t DeviceCount(const HloInstruction& inst) {
  const HloModule* m = inst.parent() ? inst.parent()->parent() : nullptr;
  if (m == nullptr) return 0;
  return m->config().replica_count * m->config().num_partitions;
}
}  // namespace

// The number of ids in the space the groups index (replicas, partitions or
// global devices); 0 when the module does not say.
int64_t IdSpace(const HloInstruction& inst) {
  const HloModule* m = inst.parent() ? inst.parent()->parent() : nullptr;
  if (m == nullptr) return 0;
  const int64_t replicas = m->config().replica_count;
  const int64_t partitions = m->config().num_partitions;
  if (replicas * partitions <= 1) return 0;  // not stated by the header
  const HloAttributes& a = inst.attrs();
  const bool has_channel = a.has(AttrId::kChannelId) && a.channel_id > 0;
  if (!has_channel) return replicas;
  if (a.use_global_device_ids) return replicas * partitions;
  switch (inst.opcode()) {
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kRaggedAllToAll:
      return partitions;  // cross-partition mode
    default:
      return replicas;  // cross-replica-and-partition mode
  }
}

absl::Status CheckReplicaGroups(const HloInstruction& inst) {
  const std::string op(HloOpcodeString(inst.opcode()));
  // <op>.C9: use_global_device_ids=true names global device ids, which
  // need a channel (XLA: "Cannot have use_global_device_ids=true without
  // channel_id", its parser for all-reduce(-start) and reduce-scatter, its
  // verifier for all-gather(-start)). A channel_id <= 0 is no channel: XLA's
  // proto keeps only positive ids, and StableHLO says "channel_id must be
  // positive when useGlobalDeviceIds is set".
  const HloAttributes& attrs = inst.attrs();
  if (attrs.use_global_device_ids &&
      !(attrs.has(AttrId::kChannelId) && attrs.channel_id > 0)) {
    return Fail(inst, op + ".C9",
                "use_global_device_ids=true needs a positive channel_id, got ",
                attrs.has(AttrId::kChannelId)
                    ? absl::StrCat("channel_id=", attrs.channel_id)
                    : std::string("none"));
  }
  const auto& groups = inst.attrs().replica_groups.groups;
  std::set<int64_t> seen;
  const int64_t limit = IdSpace(inst);
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty()) {
      return Fail(inst, op + ".C3", "replica group ", g, " is empty");
    }
    for (int64_t id : groups[g]) {
      if (id < 0 || (limit > 0 && id >= limit)) {
        return Fail(inst, op + ".C2", "replica group ", g, " ",
                    DimsStr(groups[g]), " has id ", id,
                    ", expected ids in [0, ",
                    limit > 0 ? absl::StrCat(limit) : std::string("inf"), ")");
      }
      if (!seen.insert(id).second) {
        return Fail(inst, op + ".C1", "id ", id,
                    " appears more than once in replica_groups");
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> GroupSize(const HloInstruction& inst, bool uniform) {
  const std::string op(HloOpcodeString(inst.opcode()));
  const auto& groups = inst.attrs().replica_groups.groups;
  if (groups.empty()) {
    int64_t n = IdSpace(inst);
    if (n == 0) n = std::max<int64_t>(DeviceCount(inst), 1);
    return n;
  }
  for (size_t g = 1; uniform && g < groups.size(); ++g) {
    if (groups[g].size() != groups[0].size()) {
      return Fail(inst, op + ".C4", "replica group ", g, " has ",
                  groups[g].size(), " ids, group 0 has ", groups[0].size(),
                  "; groups must have equal sizes");
    }
  }
  return static_cast<int64_t>(groups[0].size());
}

bool AcceptsType(unsigned set, PrimitiveType t) {
  switch (KindOf(t)) {
    case TypeKind::kPred:
      return set & kPredOk;
    case TypeKind::kSigned:
      return set & kSignedOk;
    case TypeKind::kUnsigned:
      return set & kUnsignedOk;
    case TypeKind::kFloat:
      return set & kFloatOk;
    case TypeKind::kComplex:
      return set & kComplexOk;
    default:
      return false;
  }
}

std::string TypeSetName(unsigned set) {
  std::vector<std::string> parts;
  if (set & kPredOk) parts.push_back("pred");
  if (set & kSignedOk) parts.push_back("signed integer");
  if (set & kUnsignedOk) parts.push_back("unsigned integer");
  if (set & kFloatOk) parts.push_back("floating-point");
  if (set & kComplexOk) parts.push_back("complex");
  return absl::StrJoin(parts, " or ");
}

absl::Status WrongFamily(const HloInstruction& inst, absl::string_view family) {
  return absl::InternalError(absl::StrCat("verifier: opcode ",
                                          HloOpcodeString(inst.opcode()),
                                          " dispatched to family ", family));
}

std::string Rule(const HloInstruction& inst, int n) {
  return absl::StrCat(HloOpcodeString(inst.opcode()), ".C", n);
}

}  // namespace verifier_internal

using verifier_internal::Fail;
using verifier_internal::SameShape;
using verifier_internal::ShapeStr;

namespace {

// module.C7: the operand count from the op table.
absl::Status CheckOperandCount(const HloInstruction& inst) {
  const OpInfo& info = GetOpInfo(inst.opcode());
  const int64_t n = inst.operand_count();
  if (n < info.min_operands ||
      (info.max_operands >= 0 && n > info.max_operands)) {
    std::string expected = info.max_operands < 0
                               ? absl::StrCat("at least ", info.min_operands)
                               : (info.min_operands == info.max_operands
                                      ? absl::StrCat(info.min_operands)
                                      : absl::StrCat(info.min_operands, " to ",
                                                     info.max_operands));
    return Fail(inst, "module.C7", info.name, " has ", n,
                " operands, expected ", expected);
  }
  for (int64_t i = 0; i < n; ++i) {
    if (inst.operand(i) == nullptr) {
      return Fail(inst, "module.C4", "operand ", i, " is missing");
    }
  }
  return absl::OkStatus();
}

// Counts elements of every array in `shape` (recursively); rejects
// negative sizes (module.C12), unbounded sizes (impl.module.2) and totals
// above max_elements (impl.module.1).
absl::Status CheckShapeLimits(const HloInstruction& inst, const Shape& shape,
                              int64_t max_elements) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) {
      HLOREF_RETURN_IF_ERROR(CheckShapeLimits(inst, e, max_elements));
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  int64_t count = 1;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    int64_t d = shape.dimensions(i);
    if (d == Shape::kUnboundedSize) {
      absl::Status located = InstructionError(
          inst, "impl.module.2",
          absl::StrCat("shape ", ShapeStr(shape),
                       " has an unbounded dimension; hloref verifies "
                       "static and bounded shapes only"));
      absl::Status unimplemented(absl::StatusCode::kUnimplemented,
                                 located.message());
      located.ForEachPayload(
          [&](absl::string_view url, const absl::Cord& payload) {
            unimplemented.SetPayload(url, payload);
          });
      return unimplemented;
    }
    if (d < 0) {
      return Fail(inst, "module.C12", "shape ", ShapeStr(shape),
                  " has negative dimension size ", d);
    }
    if (d != 0 && count > max_elements / d) {
      count = max_elements + 1;
    } else {
      count *= d;
    }
  }
  if (count > max_elements) {
    return Fail(inst, "impl.module.1", "shape ", ShapeStr(shape),
                " has more than ", max_elements,
                " elements (VerifyOptions::max_elements)");
  }
  if (shape.has_layout() && !shape.layout().minor_to_major.empty()) {
    absl::Status st = ValidateLayout(shape.layout(), shape.rank());
    if (!st.ok()) {
      return Fail(inst, "module.C13", "layout of ", shape.ToString(), ": ",
                  st.message());
    }
  }
  return absl::OkStatus();
}

// module.C8 / module.C9: required attributes present, no foreign ones.
absl::Status CheckAttributes(const HloInstruction& inst) {
  const OpInfo& info = GetOpInfo(inst.opcode());
  const HloAttributes& attrs = inst.attrs();
  for (const OpAttrSpec& spec : info.attributes) {
    // A called computation may come without its attribute bit (the parser
    // synthesizes the wrapped computation of async sugar): the call itself
    // is what the attribute would give.
    const AttrKind kind = AttrKindOf(spec.id);
    if ((kind == AttrKind::kComputation ||
         kind == AttrKind::kComputationList) &&
        !inst.called_computations().empty()) {
      continue;
    }
    if (spec.required && !attrs.has(spec.id)) {
      return Fail(inst, "module.C8", info.name, " requires attribute ",
                  AttrName(spec.id));
    }
  }
  for (int i = 0; i < kNumAttrs; ++i) {
    AttrId id = static_cast<AttrId>(i);
    if (attrs.has(id) && !OpAcceptsAttr(inst.opcode(), id)) {
      return Fail(inst, "module.C9", info.name, " does not accept attribute ",
                  AttrName(id));
    }
  }
  // module.C14: an attribute the op table does not know (the parser keeps
  // it verbatim) may change the result, so a module carrying one is not
  // evaluated; the few that only carry debugging or scheduling data pass.
  static const auto* kHarmless = new absl::flat_hash_set<std::string>{
      "debug_attributes", "profile_type", "scheduling_name",
      "original_value_recovery_table", "statistics_viz"};
  for (const auto& [name, value] : attrs.unknown_attributes) {
    if (!kHarmless->contains(name)) {
      return Fail(inst, "module.C14", "unknown attribute '", name, "=", value,
                  "' on ", info.name,
                  ": hloref cannot tell whether it changes the result");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckComputationStructure(const HloModule& module,
                                       const HloComputation& comp) {
  if (comp.instructions().empty()) {
    return ComputationError(
        comp, "module.C2",
        absl::StrCat("computation %", comp.name(), " has no instructions"));
  }
  if (comp.root() != nullptr && comp.root()->parent() != &comp) {
    bool found = false;
    for (const auto& inst : comp.instructions()) {
      found |= inst.get() == comp.root();
    }
    if (!found) {
      return ComputationError(
          comp, "module.C2",
          absl::StrCat("root %", comp.root()->name(),
                       " is not an instruction of computation %", comp.name()));
    }
  }
  // module.C3: parameter numbers 0..N-1, each once.
  std::map<int64_t, const HloInstruction*> params;
  for (const auto& inst : comp.instructions()) {
    if (inst->opcode() != HloOpcode::kParameter) continue;
    int64_t n = inst->parameter_number();
    auto [it, inserted] = params.emplace(n, inst.get());
    if (n < 0) {
      return Fail(*inst, "module.C3", "parameter number ", n, " is negative");
    }
    if (!inserted) {
      return Fail(*inst, "module.C3", "parameter number ", n,
                  " is also used by %", it->second->name());
    }
  }
  int64_t expected = 0;
  for (const auto& [n, inst] : params) {
    if (n != expected) {
      return ComputationError(
          comp, "module.C3",
          absl::StrCat("computation %", comp.name(), " has ", params.size(),
                       " parameters but no parameter number ", expected,
                       "; numbers must be 0..", params.size() - 1));
    }
    ++expected;
  }
  // module.C4: operands defined earlier in the same computation.
  std::map<const HloInstruction*, int64_t> position;
  int64_t pos = 0;
  for (const auto& inst : comp.instructions()) {
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      const HloInstruction* op = inst->operand(i);
      if (op == nullptr) {
        return Fail(*inst, "module.C4", "operand ", i, " is missing");
      }
      if (position.find(op) == position.end()) {
        return Fail(*inst, "module.C4", "operand ", i, " %", op->name(),
                    " is not defined earlier in computation %", comp.name());
      }
    }
    // module.C5: called computations belong to this module.
    for (const HloComputation* callee : inst->called_computations()) {
      bool found = false;
      for (const auto& c : module.computations()) found |= c.get() == callee;
      if (!found) {
        return Fail(*inst, "module.C5", "calls a computation %",
                    callee ? callee->name() : std::string("<null>"),
                    " that is not in the module");
      }
    }
    position[inst.get()] = pos++;
  }
  // module.C11: a written signature result matches the root.
  if (comp.signature_result().has_value()) {
    const Shape& root = verifier_internal::ResultShape(comp);
    if (!SameShape(*comp.signature_result(), root)) {
      return ComputationError(
          comp, "module.C11",
          absl::StrCat("computation %", comp.name(), " declares result ",
                       ShapeStr(*comp.signature_result()), " but its root has ",
                       ShapeStr(root)));
    }
  }
  return absl::OkStatus();
}

// module.C6: the call graph has no cycle.
absl::Status CheckNoRecursion(const HloModule& module) {
  // Depth-first over the call graph with an explicit stack (a module may
  // nest computations hundreds of thousands deep: no recursion here).
  enum Color { kWhite, kGrey, kBlack };
  std::map<const HloComputation*, Color> color;
  struct Frame {
    const HloComputation* comp;
    size_t inst = 0;    // next instruction to look at
    size_t callee = 0;  // next callee of that instruction
  };
  std::vector<Frame> stack;
  for (const auto& start : module.computations()) {
    if (color[start.get()] != kWhite) continue;
    color[start.get()] = kGrey;
    stack.push_back({start.get()});
    while (!stack.empty()) {
      Frame& f = stack.back();
      const auto& insts = f.comp->instructions();
      if (f.inst == insts.size()) {
        color[f.comp] = kBlack;
        stack.pop_back();
        continue;
      }
      const HloInstruction& inst = *insts[f.inst];
      const auto& callees = inst.called_computations();
      if (f.callee == callees.size()) {
        ++f.inst;
        f.callee = 0;
        continue;
      }
      const HloComputation* callee = callees[f.callee++];
      if (callee == nullptr) continue;
      Color& cc = color[callee];
      if (cc == kGrey) {
        std::vector<std::string> names;
        bool on = false;
        for (const Frame& s : stack) {
          on |= s.comp == callee;
          if (on) names.push_back("%" + s.comp->name());
        }
        names.push_back("%" + callee->name());
        return Fail(inst, "module.C6",
                    "computation calls itself: ", absl::StrJoin(names, " -> "));
      }
      if (cc == kWhite) {
        cc = kGrey;
        stack.push_back({callee});  // f is not used after this
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferShape(const HloInstruction& inst) {
  using namespace verifier_internal;  // NOLINT: the family entry points
  HLOREF_RETURN_IF_ERROR(CheckOperandCount(inst));
  switch (GetOpInfo(inst.opcode()).family) {
    case OpFamily::kElementwiseUnary:
      return InferElementwiseUnary(inst);
    case OpFamily::kElementwiseBinary:
      return InferElementwiseBinary(inst);
    case OpFamily::kCompareSelect:
      return InferCompareSelect(inst);
    case OpFamily::kConvert:
      return InferConvert(inst);
    case OpFamily::kShape:
      return InferShapeOps(inst);
    case OpFamily::kSlicing:
      return InferSlicing(inst);
    case OpFamily::kConcatPad:
      return InferConcatPad(inst);
    case OpFamily::kDot:
      return InferDot(inst);
    case OpFamily::kConvolution:
      return InferConvolution(inst);
    case OpFamily::kReduce:
      return InferReduce(inst);
    case OpFamily::kGatherScatter:
      return InferGatherScatter(inst);
    case OpFamily::kSort:
      return InferSort(inst);
    case OpFamily::kControlFlow:
      return InferControlFlow(inst);
    case OpFamily::kTupleToken:
      return InferTupleToken(inst);
    case OpFamily::kCollectives:
      return InferCollectives(inst);
    case OpFamily::kRng:
      return InferRng(inst);
    case OpFamily::kFft:
      return InferFft(inst);
    case OpFamily::kLinalg:
      return InferLinalg(inst);
    case OpFamily::kBatchNorm:
      return InferBatchNorm(inst);
    case OpFamily::kHostIo:
      return InferHostIo(inst);
    case OpFamily::kCustomCall:
      return InferCustomCall(inst);
    case OpFamily::kAsync:
      return InferAsync(inst);
  }
  return absl::InternalError("verifier: unknown op family");
}

namespace {
// The warnings of the VerifyModule call running on this thread.
thread_local std::vector<std::string>* current_warnings = nullptr;

class WarningSink {
 public:
  explicit WarningSink(std::vector<std::string>* sink)
      : saved_(current_warnings) {
    current_warnings = sink;
  }
  ~WarningSink() { current_warnings = saved_; }

 private:
  std::vector<std::string>* saved_;
};
}  // namespace

void verifier_internal::Warn(const HloInstruction& inst, absl::string_view rule,
                             absl::string_view message) {
  if (current_warnings == nullptr) return;
  const absl::Status located = InstructionError(inst, rule, message);
  current_warnings->push_back(absl::StrCat("warning: ", located.message()));
}

absl::Status VerifyModule(const HloModule& module,
                          const VerifyOptions& options) {
  WarningSink sink(options.warnings);
  // module.C1: one entry computation.
  if (module.computations().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "module ", module.name(), ": [module.C1] module has no computations"));
  }
  int entries = 0;
  for (const auto& c : module.computations()) entries += c->is_entry();
  if (module.entry() == nullptr || entries > 1 ||
      (entries == 1 && !module.entry()->is_entry())) {
    const HloComputation& where = module.entry() != nullptr
                                      ? *module.entry()
                                      : *module.computations().back();
    return ComputationError(
        where, "module.C1",
        absl::StrCat(
            "module must have exactly one entry computation; ", entries,
            " computations are marked ENTRY",
            module.entry() == nullptr ? " and none is the entry" : ""));
  }
  for (const auto& c : module.computations()) {
    HLOREF_RETURN_IF_ERROR(CheckComputationStructure(module, *c));
  }
  HLOREF_RETURN_IF_ERROR(CheckNoRecursion(module));
  for (const auto& c : module.computations()) {
    for (const auto& inst_ptr : c->instructions()) {
      const HloInstruction& inst = *inst_ptr;
      HLOREF_RETURN_IF_ERROR(CheckOperandCount(inst));
      HLOREF_RETURN_IF_ERROR(CheckAttributes(inst));
      HLOREF_RETURN_IF_ERROR(
          CheckShapeLimits(inst, inst.shape(), options.max_elements));
      HLOREF_ASSIGN_OR_RETURN(Shape inferred, InferShape(inst));
      // module.C10: the written shape is the inferred one (layouts and
      // dynamic flags ignored).
      if (!SameShape(inferred, inst.shape())) {
        return Fail(inst, "module.C10", "shape is ", ShapeStr(inst.shape()),
                    ", expected ", ShapeStr(inferred));
      }
    }
  }
  return absl::OkStatus();
}

// The parser asks the verifier for the result shapes XLA's parser infers
// (dot, convolution, reduce, ... written without a shape): installed when
// this library is linked (spec/ir/hlo_parser.h SetShapeInferenceHook).
namespace {
const bool kShapeInferenceHookInstalled = [] {
  SetShapeInferenceHook(
      static_cast<absl::StatusOr<Shape> (*)(const HloInstruction&)>(
          &InferShape));
  return true;
}();
}  // namespace

}  // namespace hloref
