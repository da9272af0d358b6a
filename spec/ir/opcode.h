// HLO opcodes and their static properties, generated from spec/ops.def.
#ifndef HLOREF_SPEC_IR_OPCODE_H_
#define HLOREF_SPEC_IR_OPCODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace hloref {

enum class HloOpcode : uint8_t {
#define HLOREF_OP(e, text, min_ops, max_ops, family, section, attrs) e,
#include "spec/ops.def"
#undef HLOREF_OP
};
inline constexpr int kNumOpcodes = 0
#define HLOREF_OP(e, text, min_ops, max_ops, family, section, attrs) +1
#include "spec/ops.def"
#undef HLOREF_OP
    ;

// The op families of ops.def; each has one verifier file and one
// interpreter file of the same name.
enum class OpFamily : uint8_t {
  kElementwiseUnary,
  kElementwiseBinary,
  kCompareSelect,
  kConvert,
  kShape,
  kSlicing,
  kConcatPad,
  kDot,
  kConvolution,
  kReduce,
  kGatherScatter,
  kSort,
  kControlFlow,
  kTupleToken,
  kCollectives,
  kRng,
  kFft,
  kLinalg,
  kBatchNorm,
  kHostIo,
  kCustomCall,
  kAsync,
};

enum class AttrId : uint16_t {
#define HLOREF_ATTR(e, text, kind) e,
#include "spec/attributes.def"
#undef HLOREF_ATTR
};
inline constexpr int kNumAttrs = 0
#define HLOREF_ATTR(e, text, kind) +1
#include "spec/attributes.def"
#undef HLOREF_ATTR
    ;

// How an attribute's value is written in HLO text (section 5 of
// docs/hlo-text-format.md).
enum class AttrKind : uint8_t {
  kBool,
  kInt,
  kFloat,
  kString,
  kIntList,
  kIntListList,
  kIntListOrListList,  // slice_sizes: gather {1,2}; collective-permute {{..}}
  kComputation,
  kComputationList,
  kShape,
  kShapeList,
  kEnum,
  kWindow,
  kDimLabels,
  kPaddingConfig,
  kSliceRanges,
  kReplicaGroups,
  kPrecisionList,
  kLiteral,
  kInstructionList,
  kFrontendAttributes,
  kMetadata,
  kBackendConfig,
  kRaw,  // kept verbatim (balanced braces / strings)
};

struct OpAttrSpec {
  AttrId id;
  bool required;      // `!` in ops.def
  bool always_print;  // `+` in ops.def
};

struct OpInfo {
  HloOpcode opcode;
  absl::string_view name;
  int min_operands;
  int max_operands;  // -1: variadic
  OpFamily family;
  absl::string_view seed_section;
  std::vector<OpAttrSpec> attributes;  // in printing order
};

const OpInfo& GetOpInfo(HloOpcode opcode);

// Whether `op` is element-wise for bounded dynamic sizes: its result takes
// its operands' common runtime sizes (map and the element-wise, compare /
// select and convert families). The oracle and the backends share it.
bool IsElementwiseForSizes(HloOpcode op);
absl::Span<const OpInfo> AllOps();
absl::string_view HloOpcodeString(HloOpcode opcode);
// Parses an opcode word. Error names the word; for the removed opcodes
// (tuple-select, trace, cross-replica-sum, generate-token) the message says
// they were removed from HLO.
absl::StatusOr<HloOpcode> ParseHloOpcode(absl::string_view text);
absl::string_view OpFamilyName(OpFamily family);  // "elementwise_unary"

absl::string_view AttrName(AttrId id);
AttrKind AttrKindOf(AttrId id);
// Looks up an attribute by its text name.
absl::StatusOr<AttrId> ParseAttrName(absl::string_view text);
// True for the trailing attributes every opcode accepts (sharding,
// metadata, frontend_attributes, backend_config, control-predecessors,
// statistics, origin, original_value, result_accuracy is op-specific).
bool IsCommonAttr(AttrId id);
// True when `opcode` lists `id` in ops.def or `id` is common.
bool OpAcceptsAttr(HloOpcode opcode, AttrId id);

}  // namespace hloref

#endif  // HLOREF_SPEC_IR_OPCODE_H_
