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

ValueStorage OwnsUnlessParameterOrTuple(const HloInstruction& i) {
  switch (i.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
      return ValueStorage::kExternal;
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
      return ValueStorage::kAliases;
    default:
      return ValueStorage::kOwns;
  }
}

TEST(BufferAssignment, TemporaryReadLastByTheRootLivesInTheResult) {
  // Softmax's shape: ex is read by the row sum s, then only by the root at
  // the root's own index. Named as such, ex goes to the result buffer (no
  // scratch slot); m, s and sb stay in scratch.
  auto m = Parse(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,16] parameter(0)
  ex = f32[4,16] exponential(x)
  z = f32[] constant(0)
  s = f32[4] reduce(ex, z), dimensions={1}, to_apply=add
  sb = f32[4,16] broadcast(s), dimensions={0}
  ROOT y = f32[4,16] divide(ex, sb)
})");
  const HloComputation& c = *m->entry();
  const HloInstruction* ex = c.FindInstruction("ex");
  absl::flat_hash_set<const HloInstruction*> in_place = {ex};
  BufferPlan plan =
      AssignBuffers(c, OwnsUnlessParameterOrTuple, true, &in_place);
  EXPECT_EQ(plan.in_result, ex);
  EXPECT_FALSE(plan.offsets.contains(ex));
  EXPECT_TRUE(plan.offsets.contains(c.FindInstruction("s")));
  // s (16 bytes -> one 64-byte slot) and sb (256 bytes) are live together.
  EXPECT_EQ(plan.scratch_bytes, 64 + 256);
  // Without the caller naming it, nothing goes to the result.
  BufferPlan plain = AssignBuffers(c, OwnsUnlessParameterOrTuple, true);
  EXPECT_EQ(plain.in_result, nullptr);
  EXPECT_TRUE(plain.offsets.contains(ex));
}

TEST(BufferAssignment, NoTemporaryInTheResultWhenReadAfterTheRootOrAliased) {
  // b is read by the root and, through the tuple t, by g after it: its
  // last read is not the root. c is read by the root and through the
  // tuple u, which the root also reads: an alias the root reads at its own
  // index would still see the root's writes, so c stays out too.
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[16] parameter(0)
  b = f32[16] negate(a)
  c = f32[16] exponential(a)
  u = (f32[16]) tuple(c)
  uc = f32[16] get-tuple-element(u), index=0
  ROOT r = f32[16] add(b, uc)
  t = (f32[16]) tuple(b)
  g = f32[16] get-tuple-element(t), index=0
})");
  const HloComputation& comp = *m->entry();
  absl::flat_hash_set<const HloInstruction*> in_place = {
      comp.FindInstruction("b"), comp.FindInstruction("c")};
  BufferPlan plan =
      AssignBuffers(comp, OwnsUnlessParameterOrTuple, true, &in_place);
  EXPECT_EQ(plan.in_result, nullptr);
}

}  // namespace
}  // namespace hloref::codegen
