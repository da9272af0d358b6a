// Tests of the tables generated from spec/ops.def and spec/attributes.def.
#include "spec/ir/opcode.h"

#include <set>
#include <string>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hloref {
namespace {

using ::testing::HasSubstr;

// docs/hlo-text-format.md 6.14, copied from the document (the complete
// current upstream opcode list).
constexpr char kDocOpcodes[] =
    "abs acos acosh add add-dependency after-all all-gather all-gather-done "
    "all-gather-start all-reduce all-reduce-done all-reduce-start all-to-all "
    "and asin asinh async-done async-start async-update atan2 atanh "
    "batch-norm-grad batch-norm-inference batch-norm-training bitcast "
    "bitcast-convert broadcast call cbrt ceil cholesky clamp "
    "collective-broadcast collective-permute collective-permute-done "
    "collective-permute-start compare complex concatenate conditional "
    "constant convert convolution copy copy-done copy-start cosh cosine "
    "count-leading-zeros custom-call divide domain dot dynamic-reshape "
    "dynamic-slice dynamic-update-slice erf exponential "
    "exponential-minus-one fft floor fusion gather get-dimension-size "
    "get-tuple-element imag infeed iota is-finite log log-plus-one logistic "
    "map maximum minimum mulhi multiply negate not opt-barrier or outfeed "
    "pad parameter partition-id popcnt power ragged-all-to-all ragged-dot "
    "real recv recv-done reduce reduce-precision reduce-scatter "
    "reduce-window remainder replica-id reshape reverse rng "
    "rng-bit-generator rng-get-and-update-state round-nearest-afz "
    "round-nearest-even rsqrt scaled-dot scan scatter select "
    "select-and-scatter send send-done set-dimension-size shift-left "
    "shift-right-arithmetic shift-right-logical sign sine sinh slice sort "
    "sqrt stochastic-convert subtract tan tanh topk transpose "
    "triangular-solve tuple while xor";

TEST(OpcodeTest, TableMatchesTheDocumentedOpcodeList) {
  std::set<std::string> doc;
  for (absl::string_view w : absl::StrSplit(kDocOpcodes, ' ')) {
    doc.insert(std::string(w));
  }
  std::set<std::string> table;
  for (const OpInfo& info : AllOps()) table.insert(std::string(info.name));
  EXPECT_EQ(table, doc);
  EXPECT_EQ(static_cast<int>(AllOps().size()), kNumOpcodes);
}

TEST(OpcodeTest, LookupsRoundTrip) {
  for (const OpInfo& info : AllOps()) {
    auto op = ParseHloOpcode(info.name);
    ASSERT_TRUE(op.ok()) << info.name;
    EXPECT_EQ(*op, info.opcode);
    EXPECT_EQ(HloOpcodeString(info.opcode), info.name);
    EXPECT_EQ(&GetOpInfo(info.opcode), &info);
  }
  for (int i = 0; i < kNumAttrs; ++i) {
    AttrId id = static_cast<AttrId>(i);
    auto back = ParseAttrName(AttrName(id));
    ASSERT_TRUE(back.ok()) << AttrName(id);
    EXPECT_EQ(*back, id);
  }
  EXPECT_EQ(AttrKindOf(AttrId::kWindow), AttrKind::kWindow);
  EXPECT_EQ(AttrKindOf(AttrId::kControlPredecessors),
            AttrKind::kInstructionList);
  EXPECT_FALSE(ParseAttrName("no_such_attr").ok());
}

TEST(OpcodeTest, ArityFamilyAndSection) {
  const OpInfo& add = GetOpInfo(HloOpcode::kAdd);
  EXPECT_EQ(add.min_operands, 2);
  EXPECT_EQ(add.max_operands, 2);
  EXPECT_EQ(add.family, OpFamily::kElementwiseBinary);
  EXPECT_EQ(OpFamilyName(add.family), "elementwise_binary");
  EXPECT_EQ(add.seed_section, "Element-wise binary arithmetic operations");
  EXPECT_EQ(GetOpInfo(HloOpcode::kTuple).max_operands, -1);
  EXPECT_EQ(GetOpInfo(HloOpcode::kRaggedAllToAll).min_operands, 6);
  EXPECT_EQ(OpFamilyName(GetOpInfo(HloOpcode::kGather).family),
            "gather_scatter");
}

TEST(OpcodeTest, AttributeSpecsCarryMarkers) {
  const OpInfo& cmp = GetOpInfo(HloOpcode::kCompare);
  ASSERT_EQ(cmp.attributes.size(), 2u);
  EXPECT_EQ(cmp.attributes[0].id, AttrId::kDirection);
  EXPECT_TRUE(cmp.attributes[0].required);
  EXPECT_FALSE(cmp.attributes[0].always_print);
  EXPECT_EQ(cmp.attributes[1].id, AttrId::kComparisonType);
  EXPECT_FALSE(cmp.attributes[1].required);

  const OpInfo& bc = GetOpInfo(HloOpcode::kBroadcast);
  ASSERT_EQ(bc.attributes.size(), 1u);
  EXPECT_TRUE(bc.attributes[0].always_print);
  EXPECT_FALSE(bc.attributes[0].required);

  // dot: lhs_batch_dims optional, contracting dims always printed.
  const OpInfo& dot = GetOpInfo(HloOpcode::kDot);
  EXPECT_EQ(dot.attributes[0].id, AttrId::kLhsBatchDims);
  EXPECT_FALSE(dot.attributes[0].always_print);
  EXPECT_EQ(dot.attributes[1].id, AttrId::kLhsContractingDims);
  EXPECT_TRUE(dot.attributes[1].always_print);
}

TEST(OpcodeTest, OpAcceptsAttr) {
  EXPECT_TRUE(OpAcceptsAttr(HloOpcode::kCompare, AttrId::kDirection));
  EXPECT_FALSE(OpAcceptsAttr(HloOpcode::kAdd, AttrId::kDirection));
  // Common trailing attributes are accepted everywhere.
  for (const OpInfo& info : AllOps()) {
    EXPECT_TRUE(OpAcceptsAttr(info.opcode, AttrId::kMetadata));
    EXPECT_TRUE(OpAcceptsAttr(info.opcode, AttrId::kSharding));
    EXPECT_TRUE(OpAcceptsAttr(info.opcode, AttrId::kBackendConfig));
  }
  EXPECT_TRUE(IsCommonAttr(AttrId::kControlPredecessors));
  EXPECT_FALSE(IsCommonAttr(AttrId::kResultAccuracy));
  EXPECT_TRUE(OpAcceptsAttr(HloOpcode::kTanh, AttrId::kResultAccuracy));
  EXPECT_FALSE(OpAcceptsAttr(HloOpcode::kAbs, AttrId::kResultAccuracy));
}

TEST(OpcodeTest, RemovedAndUnknownOpcodes) {
  for (const char* removed :
       {"tuple-select", "trace", "cross-replica-sum", "generate-token"}) {
    auto op = ParseHloOpcode(removed);
    ASSERT_FALSE(op.ok());
    EXPECT_THAT(std::string(op.status().message()),
                HasSubstr("removed from HLO"));
    EXPECT_THAT(std::string(op.status().message()), HasSubstr(removed));
  }
  EXPECT_THAT(
      std::string(ParseHloOpcode("cross-replica-sum").status().message()),
      HasSubstr("all-reduce"));
  auto bad = ParseHloOpcode("exp");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("unknown opcode 'exp'"));
}

}  // namespace
}  // namespace hloref
