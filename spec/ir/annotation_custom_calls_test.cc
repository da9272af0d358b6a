// Tests of the annotation custom-call list: membership, the identity rule
// and the per-module counts.
#include "spec/ir/annotation_custom_calls.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"

namespace hloref {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<HloModule> MustParse(const std::string& text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

TEST(AnnotationCustomCallsTest, KnownTargets) {
  for (const char* t :
       {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape",
        "MoveToHost", "MoveToDevice", "PinToDevice", "LayoutConstraint",
        "annotate_device_placement", "xla.sdy.FuncResultSharding"}) {
    EXPECT_NE(FindAnnotationCustomCall(t), nullptr) << t;
  }
  // Exact spelling only, and real computations are not annotations.
  EXPECT_EQ(FindAnnotationCustomCall("sharding"), nullptr);
  EXPECT_EQ(FindAnnotationCustomCall("TopK"), nullptr);
  EXPECT_EQ(FindAnnotationCustomCall("__cublas$gemm"), nullptr);
  for (const AnnotationCustomCall& a : AnnotationCustomCalls()) {
    EXPECT_FALSE(a.origin.empty()) << a.target;
  }
}

TEST(AnnotationCustomCallsTest, IdentityRuleAndCounts) {
  auto m = MustParse(R"(HloModule m
ENTRY e {
  p = f32[4,8]{1,0} parameter(0)
  s = f32[4,8]{0,1} custom-call(p), custom_call_target="Sharding", sharding={replicated}
  h = f32[4,8]{1,0} custom-call(s), custom_call_target="MoveToHost"
  d = f32[4,8]{1,0} custom-call(h), custom_call_target="MoveToDevice"
  x = f32[4,8]{1,0} custom-call(d), custom_call_target="Sharding"
  ROOT shard = f32[4,4]{1,0} custom-call(x), custom_call_target="SPMDFullToShardShape", sharding={manual}
})");
  ASSERT_NE(m, nullptr);
  const HloComputation& e = *m->entry();
  // A different layout is still the identity (the value is re-laid out).
  EXPECT_TRUE(CheckAnnotationCustomCall(*e.FindInstruction("s")).ok());
  EXPECT_TRUE(IsAnnotationCustomCall(*e.FindInstruction("h")));
  EXPECT_FALSE(IsAnnotationCustomCall(*e.FindInstruction("p")));
  absl::Status shard = CheckAnnotationCustomCall(*e.FindInstruction("shard"));
  EXPECT_EQ(shard.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(shard.message()),
              HasSubstr("f32[4,4] differs from the operand's f32[4,8]"));
  EXPECT_THAT(std::string(shard.message()), HasSubstr("SPMD partitioning"));
  const auto counts = CountAnnotationCustomCalls(*m);
  EXPECT_EQ(AnnotationCountsToString(counts),
            "MoveToDevice (1), MoveToHost (1), SPMDFullToShardShape (1), "
            "Sharding (2)");
}

TEST(AnnotationCustomCallsTest, OperandCount) {
  auto m = MustParse(R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  ROOT s = f32[2] custom-call(p, p), custom_call_target="Sharding"
})");
  ASSERT_NE(m, nullptr);
  absl::Status st =
      CheckAnnotationCustomCall(*m->entry()->FindInstruction("s"));
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("exactly one operand; it has 2"));
}

}  // namespace
}  // namespace hloref
