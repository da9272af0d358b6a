#include "backends/codegen/buffer_assignment.h"

#include <algorithm>
#include <limits>

#include "backends/codegen/ir_value.h"

namespace hloref::codegen {

namespace {
constexpr int64_t kAlignment = 64;
int64_t AlignUp(int64_t v) {
  return (v + kAlignment - 1) / kAlignment * kAlignment;
}
}  // namespace

BufferPlan AssignBuffers(
    const HloComputation& computation,
    const std::function<ValueStorage(const HloInstruction&)>& storage,
    bool root_writes_results,
    const absl::flat_hash_set<const HloInstruction*>* root_in_place) {
  const auto& insts = computation.instructions();
  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  absl::flat_hash_map<const HloInstruction*, ValueStorage> kind;
  for (size_t i = 0; i < insts.size(); ++i) {
    position[insts[i].get()] = static_cast<int64_t>(i);
    kind[insts[i].get()] = storage(*insts[i]);
  }
  // owners(v): the owning instructions whose buffers v's value refers to.
  absl::flat_hash_map<const HloInstruction*,
                      absl::flat_hash_set<const HloInstruction*>>
      owners;
  for (const auto& inst : insts) {
    auto& o = owners[inst.get()];
    switch (kind[inst.get()]) {
      case ValueStorage::kOwns:
        o.insert(inst.get());
        break;
      case ValueStorage::kAliases:
        for (const HloInstruction* op : inst->operands()) {
          const auto& oo = owners[op];
          o.insert(oo.begin(), oo.end());
        }
        break;
      default:
        break;
    }
  }
  // reads(x) for an inlined x: the owners its element generator reads.
  absl::flat_hash_map<const HloInstruction*,
                      absl::flat_hash_set<const HloInstruction*>>
      inlined_reads;
  for (const auto& inst : insts) {
    if (kind[inst.get()] != ValueStorage::kInlined) continue;
    auto& r = inlined_reads[inst.get()];
    for (const HloInstruction* op : inst->operands()) {
      const auto& src =
          kind[op] == ValueStorage::kInlined ? inlined_reads[op] : owners[op];
      r.insert(src.begin(), src.end());
    }
  }
  // Last read position of every owner.
  absl::flat_hash_map<const HloInstruction*, int64_t> last_use;
  auto touch = [&](const HloInstruction* owner, int64_t pos) {
    int64_t& l = last_use[owner];
    l = std::max(l, pos);
  };
  for (const auto& inst : insts) {
    const int64_t pos = position[inst.get()];
    if (kind[inst.get()] == ValueStorage::kOwns) touch(inst.get(), pos);
    if (kind[inst.get()] == ValueStorage::kInlined) continue;
    for (const HloInstruction* op : inst->operands()) {
      const auto& src =
          kind[op] == ValueStorage::kInlined ? inlined_reads[op] : owners[op];
      for (const HloInstruction* o : src) touch(o, pos);
    }
  }
  const HloInstruction* root = computation.root();
  // A temporary in the result buffer (see the header): read last by the
  // root, and no other value the root reads refers to its buffer (a
  // bitcast of it read at another index would see the root's writes).
  const HloInstruction* in_result = nullptr;
  if (root_in_place != nullptr && root_writes_results &&
      kind[root] == ValueStorage::kOwns && root->shape().IsArray()) {
    // The values the root reads: its operands, through inlined ones.
    std::vector<const HloInstruction*> read;
    std::vector<const HloInstruction*> stack(root->operands().begin(),
                                             root->operands().end());
    absl::flat_hash_set<const HloInstruction*> seen;
    while (!stack.empty()) {
      const HloInstruction* op = stack.back();
      stack.pop_back();
      if (!seen.insert(op).second) continue;
      if (kind[op] == ValueStorage::kInlined) {
        stack.insert(stack.end(), op->operands().begin(), op->operands().end());
      } else {
        read.push_back(op);
      }
    }
    for (const auto& inst : insts) {
      const HloInstruction* t = inst.get();
      if (t == root || !root_in_place->contains(t) ||
          kind[t] != ValueStorage::kOwns || !t->shape().IsArray() ||
          ArrayBytes(t->shape()) != ArrayBytes(root->shape()) ||
          last_use[t] != position[root] || position[t] >= position[root]) {
        continue;
      }
      bool aliased = false;
      for (const HloInstruction* r : read) {
        if (r != t && owners[r].contains(t)) aliased = true;
      }
      if (aliased) continue;
      in_result = t;
      break;
    }
  }
  const int64_t kForever = std::numeric_limits<int64_t>::max();
  for (const HloInstruction* o : owners[root]) {
    last_use[o] = kForever;
  }

  struct Buffer {
    const HloInstruction* inst;
    size_t leaf;
    int64_t start, end, size, offset;
  };
  std::vector<Buffer> buffers;
  BufferPlan plan;
  plan.in_result = in_result;
  for (const auto& inst : insts) {
    if (kind[inst.get()] != ValueStorage::kOwns) continue;
    if (inst.get() == root && root_writes_results) continue;
    if (inst.get() == in_result) continue;
    std::vector<Shape> leaves;
    CollectArrayShapes(inst->shape(), &leaves);
    plan.offsets[inst.get()].assign(leaves.size(), 0);
    for (size_t l = 0; l < leaves.size(); ++l) {
      buffers.push_back(
          {inst.get(), l, position[inst.get()], last_use[inst.get()],
           AlignUp(std::max<int64_t>(ArrayBytes(leaves[l]), 1)), 0});
    }
  }
  // First fit by start position: the lowest offset that overlaps no placed
  // buffer whose live range intersects.
  std::vector<const Buffer*> placed;
  for (Buffer& buf : buffers) {
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (const Buffer* p : placed) {
      if (p->start <= buf.end && buf.start <= p->end) {
        busy.push_back({p->offset, p->offset + p->size});
      }
    }
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [lo, hi] : busy) {
      if (offset + buf.size <= lo) break;
      offset = std::max(offset, hi);
    }
    buf.offset = offset;
    plan.scratch_bytes = std::max(plan.scratch_bytes, offset + buf.size);
    plan.offsets[buf.inst][buf.leaf] = offset;
    placed.push_back(&buf);
  }
  return plan;
}

}  // namespace hloref::codegen
