#include "backends/codegen/fusion.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace hloref::codegen {

namespace {

bool IsElementwiseOpcode(HloOpcode op) {
  OpFamily f = GetOpInfo(op).family;
  return f == OpFamily::kElementwiseUnary ||
         f == OpFamily::kElementwiseBinary || f == OpFamily::kCompareSelect ||
         op == HloOpcode::kConvert || op == HloOpcode::kReducePrecision ||
         op == HloOpcode::kBitcastConvert;
}

bool IsCheapIndexOp(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kReverse:
    case HloOpcode::kCopy:
      return true;
    default:
      return false;
  }
}

// Consumers that read each element of each operand at most once.
bool ReadsOperandsOnce(HloOpcode op) {
  if (IsElementwiseOpcode(op)) return true;
  switch (op) {
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kReverse:
    case HloOpcode::kCopy:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
      return true;
    default:
      return false;
  }
}

// A reduce reads each element of its N inputs once (every input element
// feeds one output element), its N init values once per output element:
// arithmetic may be inlined into the inputs only.
bool ReadsOperandOnce(const HloInstruction& consumer,
                      const HloInstruction* operand) {
  if (ReadsOperandsOnce(consumer.opcode())) return true;
  if (consumer.opcode() != HloOpcode::kReduce) return false;
  const int64_t n = consumer.operand_count() / 2;
  for (int64_t j = n; j < consumer.operand_count(); ++j) {
    if (consumer.operand(j) == operand) return false;
  }
  return true;
}

// Whether `consumer` is a static variadic reduce reading `operand` only
// as one of its inputs (EmitVariadicReduce takes generators for those).
bool IsVariadicReduceInput(const HloInstruction& consumer,
                           const HloInstruction* operand) {
  if (consumer.opcode() != HloOpcode::kReduce || !consumer.shape().IsTuple() ||
      !consumer.shape().is_static()) {
    return false;
  }
  const int64_t n = consumer.operand_count() / 2;
  for (int64_t j = n; j < consumer.operand_count(); ++j) {
    if (consumer.operand(j) == operand) return false;
  }
  return true;
}

// Arithmetic cheap enough to recompute per user: a few vector
// instructions per element (no division, transcendental or root).
bool IsCheapArithmetic(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kNegate:
    case HloOpcode::kAbs:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kConvert:
    case HloOpcode::kCompare:
    case HloOpcode::kSelect:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
    case HloOpcode::kNot:
      return true;
    default:
      return false;
  }
}

// Whether `a` and `b` are arrays of the same dimensions (an element-wise
// op reads its operands at its own index only when they have its shape).
bool SameDimensions(const HloInstruction& a, const HloInstruction& b) {
  return a.shape().IsArray() && b.shape().IsArray() &&
         a.shape().SameDimensions(b.shape());
}

// Multi-user recomputation (see fusion.h): at most this many users, and at
// most this many arithmetic instructions recomputed per user.
constexpr size_t kMaxRecomputeUsers = 2;
constexpr int kMaxRecomputedArithmetic = 4;

}  // namespace

bool CanEmitElementally(EmitContext& ctx, const HloInstruction& inst) {
  if (!inst.shape().IsArray()) return false;
  const ElementalEmitter& e = ctx.table().Elemental(inst.opcode());
  if (!e) return false;
  std::vector<ElementGenerator> placeholders(
      inst.operand_count(), [](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
        return absl::InternalError("placeholder generator called");
      });
  return e(ctx, inst, placeholders).ok();
}

absl::flat_hash_set<const HloInstruction*> ChooseInlinedInstructions(
    EmitContext& ctx, const HloComputation& computation) {
  absl::flat_hash_set<const HloInstruction*> inlined;
  if (!ctx.options().fuse_elementwise) return inlined;
  // Users (with multiplicity) of each instruction.
  absl::flat_hash_map<const HloInstruction*, std::vector<const HloInstruction*>>
      users;
  for (const auto& inst : computation.instructions()) {
    for (const HloInstruction* op : inst->operands()) {
      users[op].push_back(inst.get());
    }
  }
  absl::flat_hash_map<const HloInstruction*, bool> elemental;
  auto can = [&](const HloInstruction* i) {
    auto it = elemental.find(i);
    if (it != elemental.end()) return it->second;
    bool ok = CanEmitElementally(ctx, *i);
    elemental[i] = ok;
    return ok;
  };
  absl::flat_hash_set<const HloInstruction*> arithmetic_beneath;
  // Arithmetic instructions an element of an inlined instruction computes
  // (itself and the inlined instructions beneath it).
  absl::flat_hash_map<const HloInstruction*, int> arithmetic_count;
  // Inlined instructions with costly arithmetic beneath them (p included).
  absl::flat_hash_set<const HloInstruction*> costly_beneath;
  for (const auto& inst : computation.instructions()) {
    const HloInstruction* p = inst.get();
    if (p == computation.root()) continue;
    HloOpcode op = p->opcode();
    if (!IsElementwiseOpcode(op) && !IsCheapIndexOp(op)) continue;
    auto it = users.find(p);
    if (it == users.end() || it->second.empty()) continue;
    const std::vector<const HloInstruction*>& consumers = it->second;
    // Dynamic values keep their own buffers (their runtime sizes are
    // tracked per materialised value).
    if (!p->shape().is_static() || !can(p)) continue;
    bool ok = true;
    for (const HloInstruction* consumer : consumers) {
      if (!consumer->shape().is_static() ||
          (!can(consumer) && !(ctx.options().fuse_into_variadic_reduce &&
                               IsVariadicReduceInput(*consumer, p)))) {
        ok = false;
      }
    }
    if (!ok) continue;
    // Whether arithmetic is inlined somewhere beneath p (p included).
    bool arithmetic = !IsCheapIndexOp(op);
    int count = arithmetic ? 1 : 0;
    bool costly = arithmetic && !IsCheapArithmetic(op);
    for (const HloInstruction* o : p->operands()) {
      if (arithmetic_beneath.contains(o)) arithmetic = true;
      if (costly_beneath.contains(o)) costly = true;
      auto c = arithmetic_count.find(o);
      if (c != arithmetic_count.end()) count += c->second;
    }
    if (consumers.size() > 1) {
      // Recomputed by each user: only a short chain, few users, each of
      // them reading every element once. A user listing p twice (layer
      // norm's multiply(xc, xc)) reads one element of p twice at the same
      // index only when it is element-wise: both reads compute the same
      // element from the same loads, one value after LLVM's CSE; such a
      // user counts once. Any other user listing p twice keeps p.
      std::vector<const HloInstruction*> distinct;
      for (const HloInstruction* consumer : consumers) {
        if (std::find(distinct.begin(), distinct.end(), consumer) ==
            distinct.end()) {
          distinct.push_back(consumer);
        } else if (!IsElementwiseOpcode(consumer->opcode()) ||
                   !SameDimensions(*consumer, *p)) {
          ok = false;
        }
      }
      if (distinct.size() > kMaxRecomputeUsers ||
          count > kMaxRecomputedArithmetic || costly) {
        continue;
      }
    }
    for (const HloInstruction* consumer : consumers) {
      if (arithmetic && !ReadsOperandOnce(*consumer, p)) ok = false;
    }
    if (!ok) continue;
    inlined.insert(p);
    arithmetic_count[p] = count;
    if (costly) costly_beneath.insert(p);
    if (arithmetic) arithmetic_beneath.insert(p);
  }
  return inlined;
}

}  // namespace hloref::codegen
