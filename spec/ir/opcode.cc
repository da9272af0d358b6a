// Opcode and attribute tables, generated from spec/ops.def and
// spec/attributes.def by X-macro inclusion. The per-op attribute strings of
// ops.def ("!direction,type") are parsed once, on first use.
#include "spec/ir/opcode.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

struct RawOp {
  HloOpcode opcode;
  const char* name;
  int min_operands;
  int max_operands;
  OpFamily family;
  const char* section;
  const char* attrs;
};

constexpr RawOp kRawOps[] = {
#define HLOREF_OP(e, text, min_ops, max_ops, family, section, attrs) \
  {HloOpcode::e, text, min_ops, max_ops, OpFamily::family, section, attrs},
#include "spec/ops.def"
#undef HLOREF_OP
};

struct RawAttr {
  AttrId id;
  const char* name;
  AttrKind kind;
};

constexpr RawAttr kRawAttrs[] = {
#define HLOREF_ATTR(e, text, kind) {AttrId::e, text, AttrKind::kind},
#include "spec/attributes.def"
#undef HLOREF_ATTR
};

struct Tables {
  std::vector<OpInfo> ops;
  absl::flat_hash_map<std::string, HloOpcode> op_by_name;
  absl::flat_hash_map<std::string, AttrId> attr_by_name;
  // accepts[op][attr]
  std::vector<std::vector<bool>> accepts;
};

const Tables& GetTables() {
  static const Tables* tables = [] {
    auto* t = new Tables;
    for (const RawAttr& a : kRawAttrs) t->attr_by_name[a.name] = a.id;
    t->ops.reserve(kNumOpcodes);
    t->accepts.assign(kNumOpcodes, std::vector<bool>(kNumAttrs, false));
    for (const RawOp& r : kRawOps) {
      OpInfo info{r.opcode,  r.name, r.min_operands, r.max_operands, r.family,
                  r.section, {}};
      absl::string_view attrs(r.attrs);
      if (!attrs.empty()) {
        for (absl::string_view item : absl::StrSplit(attrs, ',')) {
          OpAttrSpec spec{AttrId::kDimensions, false, false};
          if (absl::ConsumePrefix(&item, "!")) spec.required = true;
          if (absl::ConsumePrefix(&item, "+")) spec.always_print = true;
          auto it = t->attr_by_name.find(std::string(item));
          // A misspelt attribute in ops.def is a bug in the table itself.
          if (it == t->attr_by_name.end()) {
            std::fprintf(stderr,
                         "ops.def: op '%s' lists unknown attribute '%.*s'\n",
                         r.name, static_cast<int>(item.size()), item.data());
            std::abort();
          }
          spec.id = it->second;
          info.attributes.push_back(spec);
          t->accepts[static_cast<size_t>(r.opcode)]
                    [static_cast<size_t>(spec.id)] = true;
        }
      }
      t->op_by_name[r.name] = r.opcode;
      t->ops.push_back(std::move(info));
    }
    return t;
  }();
  return *tables;
}

}  // namespace

bool IsElementwiseForSizes(HloOpcode op) {
  if (op == HloOpcode::kMap) return true;
  switch (GetOpInfo(op).family) {
    case OpFamily::kElementwiseUnary:
    case OpFamily::kElementwiseBinary:
    case OpFamily::kCompareSelect:
    case OpFamily::kConvert:
      return true;
    default:
      return false;
  }
}

const OpInfo& GetOpInfo(HloOpcode opcode) {
  return GetTables().ops[static_cast<size_t>(opcode)];
}

absl::Span<const OpInfo> AllOps() { return GetTables().ops; }

absl::string_view HloOpcodeString(HloOpcode opcode) {
  return GetOpInfo(opcode).name;
}

absl::StatusOr<HloOpcode> ParseHloOpcode(absl::string_view text) {
  const Tables& t = GetTables();
  auto it = t.op_by_name.find(std::string(text));
  if (it != t.op_by_name.end()) return it->second;
  if (text == "tuple-select") {
    return absl::InvalidArgumentError(
        "opcode 'tuple-select' was removed from HLO; use a select per tuple "
        "element");
  }
  if (text == "trace") {
    return absl::InvalidArgumentError("opcode 'trace' was removed from HLO");
  }
  if (text == "cross-replica-sum") {
    return absl::InvalidArgumentError(
        "opcode 'cross-replica-sum' was removed from HLO (renamed "
        "'all-reduce')");
  }
  if (text == "generate-token") {
    return absl::InvalidArgumentError(
        "opcode 'generate-token' was removed from HLO (replaced by "
        "'after-all')");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown opcode '", text, "'"));
}

absl::string_view OpFamilyName(OpFamily family) {
  switch (family) {
    case OpFamily::kElementwiseUnary:
      return "elementwise_unary";
    case OpFamily::kElementwiseBinary:
      return "elementwise_binary";
    case OpFamily::kCompareSelect:
      return "compare_select";
    case OpFamily::kConvert:
      return "convert";
    case OpFamily::kShape:
      return "shape";
    case OpFamily::kSlicing:
      return "slicing";
    case OpFamily::kConcatPad:
      return "concat_pad";
    case OpFamily::kDot:
      return "dot";
    case OpFamily::kConvolution:
      return "convolution";
    case OpFamily::kReduce:
      return "reduce";
    case OpFamily::kGatherScatter:
      return "gather_scatter";
    case OpFamily::kSort:
      return "sort";
    case OpFamily::kControlFlow:
      return "control_flow";
    case OpFamily::kTupleToken:
      return "tuple_token";
    case OpFamily::kCollectives:
      return "collectives";
    case OpFamily::kRng:
      return "rng";
    case OpFamily::kFft:
      return "fft";
    case OpFamily::kLinalg:
      return "linalg";
    case OpFamily::kBatchNorm:
      return "batch_norm";
    case OpFamily::kHostIo:
      return "host_io";
    case OpFamily::kCustomCall:
      return "custom_call";
    case OpFamily::kAsync:
      return "async";
  }
  return "unknown";
}

absl::string_view AttrName(AttrId id) {
  return kRawAttrs[static_cast<size_t>(id)].name;
}

AttrKind AttrKindOf(AttrId id) {
  return kRawAttrs[static_cast<size_t>(id)].kind;
}

absl::StatusOr<AttrId> ParseAttrName(absl::string_view text) {
  const Tables& t = GetTables();
  auto it = t.attr_by_name.find(std::string(text));
  if (it != t.attr_by_name.end()) return it->second;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown attribute '", text, "'"));
}

bool IsCommonAttr(AttrId id) {
  switch (id) {
    case AttrId::kSharding:
    case AttrId::kFrontendAttributes:
    case AttrId::kControlPredecessors:
    case AttrId::kStatistics:
    case AttrId::kOrigin:
    case AttrId::kOriginalValue:
    case AttrId::kMetadata:
    case AttrId::kBackendConfig:
      return true;
    default:
      return false;
  }
}

bool OpAcceptsAttr(HloOpcode opcode, AttrId id) {
  if (IsCommonAttr(id)) return true;
  return GetTables()
      .accepts[static_cast<size_t>(opcode)][static_cast<size_t>(id)];
}

}  // namespace hloref
