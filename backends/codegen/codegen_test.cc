// Unit tests of the target-independent passes: buffer assignment and
// producer-consumer fusion.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/codegen/buffer_assignment.h"
#include "backends/codegen/fusion.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::codegen {
namespace {

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return std::move(*m);
}

TEST(BufferAssignment, DisjointLiveRangesShareMemory) {
  // a -> b -> c -> d (root): b dies when c is computed, so d... the root
  // writes the results; b and c overlap at c's position, c's buffer can
  // reuse nothing of b's, but a third temporary after b dies can.
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[16] parameter(0)
  b = f32[16] negate(a)
  c = f32[16] negate(b)
  d = f32[16] negate(c)
  ROOT r = f32[16] negate(d)
})");
  BufferPlan plan = AssignBuffers(
      *m->entry(),
      [](const HloInstruction& i) {
        return i.opcode() == HloOpcode::kParameter ? ValueStorage::kExternal
                                                   : ValueStorage::kOwns;
      },
      /*root_writes_results=*/true);
  const HloComputation& c = *m->entry();
  int64_t ob = plan.offsets.at(c.FindInstruction("b"))[0];
  int64_t oc = plan.offsets.at(c.FindInstruction("c"))[0];
  int64_t od = plan.offsets.at(c.FindInstruction("d"))[0];
  EXPECT_NE(ob, oc);                   // live together at c
  EXPECT_NE(oc, od);                   // live together at d
  EXPECT_EQ(ob, od);                   // b is dead once c is computed
  EXPECT_EQ(plan.scratch_bytes, 128);  // two 64-byte slots
  EXPECT_FALSE(plan.offsets.contains(c.root()));
}

TEST(BufferAssignment, AliasesExtendLiveRanges) {
  // t = tuple(b) keeps b alive until t's user at the end.
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[16] parameter(0)
  b = f32[16] negate(a)
  t = (f32[16]) tuple(b)
  c = f32[16] negate(a)
  g = f32[16] get-tuple-element(t), index=0
  ROOT r = f32[16] add(g, c)
})");
  BufferPlan plan = AssignBuffers(
      *m->entry(),
      [](const HloInstruction& i) {
        switch (i.opcode()) {
          case HloOpcode::kParameter:
            return ValueStorage::kExternal;
          case HloOpcode::kTuple:
          case HloOpcode::kGetTupleElement:
            return ValueStorage::kAliases;
          default:
            return ValueStorage::kOwns;
        }
      },
      true);
  const HloComputation& c = *m->entry();
  EXPECT_NE(plan.offsets.at(c.FindInstruction("b"))[0],
            plan.offsets.at(c.FindInstruction("c"))[0]);
}

}  // namespace
}  // namespace hloref::codegen
