// Verifier: collectives (seed 001 "AllGather", "AllReduce", "AllToAll",
// "CollectivePermute", "ReduceScatter", "ReplicaId"; the -start/-done
// pairs, collective-broadcast, ragged-all-to-all and partition-id from
// docs/hlo-text-format.md 6.11). Every op with replica_groups shares:
//   <op>.C1 no id appears twice; <op>.C2 ids are non-negative and, when the
//   module header states replica_count/num_partitions (product > 1), below
//   the number of ids of the op's mode; <op>.C3 no group is empty;
//   <op>.C4 groups have equal sizes where the op splits or concatenates by
//   group size (all-gather, reduce-scatter, all-to-all).
// A -start op carries the rules of its synchronous op under its own name.
#include <set>

#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

Shape TupleOrSingle(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return shapes[0];
  return Shape::Tuple(std::move(shapes));
}

// <op>.C5: every operand is an array.
absl::Status ExpectArrays(const HloInstruction& inst) {
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, i, Rule(inst, 5)));
  }
  return absl::OkStatus();
}

// <op>.C6: `dimensions` names one dimension of every operand.
absl::StatusOr<int64_t> OneDimension(const HloInstruction& inst) {
  const auto& dims = inst.attrs().dimensions;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Shape& s = inst.operand(i)->shape();
    if (dims.size() != 1 || dims[0] < 0 || dims[0] >= s.rank()) {
      return Fail(inst, Rule(inst, 6), "dimensions ", DimsStr(dims),
                  " must name one dimension of ", OperandName(inst, i), " ",
                  ShapeStr(s));
    }
  }
  return dims[0];
}

absl::StatusOr<Shape> InferAllReduce(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(CheckReplicaGroups(inst));
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  std::vector<Shape> results;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Shape& s = inst.operand(i)->shape();
    // <op>.C7: the computation reduces operand i's elements: (T, T) -> T;
    // in another floating-point precision it is read as XLA reads it (XLA's
    // verifier does not check the computation), with a warning
    // (impl.all-reduce.1).
    HLOREF_RETURN_IF_ERROR(
        CheckReducerAsXla(inst, Rule(inst, 7), "to_apply", inst.to_apply(),
                          {s.element_type()}, "impl.all-reduce.1"));
    results.push_back(WithElementType(s, s.element_type()));
  }
  // Seed: "The output shape is the same as the input shape"; several
  // operands give a tuple.
  return TupleOrSingle(std::move(results));
}

// The number of participants whose operands one all-gather /
// reduce-scatter combines: the group size, times the partition count in
// cross-replica-and-partition mode (channel_id without
// use_global_device_ids, docs/hlo-text-format.md 6.11), where each group
// of replicas spans every partition.
absl::StatusOr<int64_t> ShardCount(const HloInstruction& inst) {
  HLOREF_ASSIGN_OR_RETURN(int64_t shards, GroupSize(inst, /*uniform=*/true));
  const HloAttributes& a = inst.attrs();
  const HloModule* m = inst.parent() ? inst.parent()->parent() : nullptr;
  const bool has_channel = a.has(AttrId::kChannelId) && a.channel_id > 0;
  if (m != nullptr && has_channel && !a.use_global_device_ids &&
      m->config().num_partitions > 1) {
    shards *= m->config().num_partitions;
  }
  return shards;
}

// True when the text does not fix the number of participants: empty
// replica_groups (every device of the op's mode) and no replica_count /
// num_partitions in the header. XLA's tests set the count at run time, and
// XLA's verifier accepts such modules; the count is checked when it is
// known (the header, or the run: the interpreter checks each collective's
// result against its group at run time).
bool ParticipantCountOpen(const HloInstruction& inst) {
  return inst.attrs().replica_groups.groups.empty() && IdSpace(inst) == 0;
}

// With the count open: the count the written result implies, the same for
// every operand (all-gather: result = operand * n along d; reduce-scatter:
// operand = result * n), or 1 when the written shape implies none (the
// shape check then reports the mismatch as for a known count).
int64_t ImpliedShardCount(const HloInstruction& inst, int64_t d, bool gather) {
  Shape written = inst.shape();
  if (inst.opcode() == HloOpcode::kAllGatherStart && written.IsTuple() &&
      written.tuple_size() == 2) {
    written = written.tuple_shapes(1);
  }
  const int64_t count = inst.operand_count();
  if (count > 1 && (!written.IsTuple() || written.tuple_size() != count)) {
    return 1;
  }
  int64_t n = 0;
  for (int64_t i = 0; i < count; ++i) {
    const Shape& r = count > 1 ? written.tuple_shapes(i) : written;
    const Shape& s = inst.operand(i)->shape();
    if (!r.IsArray() || r.rank() != s.rank() || d >= s.rank()) return 1;
    const int64_t big = gather ? r.dimensions(d) : s.dimensions(d);
    const int64_t small = gather ? s.dimensions(d) : r.dimensions(d);
    if (small <= 0 || big % small != 0 || big / small < 1) return 1;
    if (n != 0 && n != big / small) return 1;
    n = big / small;
  }
  return n > 0 ? n : 1;
}

absl::StatusOr<Shape> InferAllGather(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(CheckReplicaGroups(inst));
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_ASSIGN_OR_RETURN(int64_t d, OneDimension(inst));
  HLOREF_ASSIGN_OR_RETURN(int64_t shards, ShardCount(inst));
  if (ParticipantCountOpen(inst)) shards = ImpliedShardCount(inst, d, true);
  std::vector<Shape> operands, results;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Shape& s = inst.operand(i)->shape();
    // Seed: "the all_gather_dim made shard_count times larger".
    Shape r = WithElementType(s, s.element_type());
    r.set_dimensions(d, s.dimensions(d) * shards);
    operands.push_back(WithElementType(s, s.element_type()));
    results.push_back(r);
  }
  if (inst.opcode() == HloOpcode::kAllGatherStart) {
    // The start holds (operands, results).
    return Shape::Tuple({TupleOrSingle(std::move(operands)),
                         TupleOrSingle(std::move(results))});
  }
  return TupleOrSingle(std::move(results));
}

absl::StatusOr<Shape> InferReduceScatter(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(CheckReplicaGroups(inst));
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_ASSIGN_OR_RETURN(int64_t d, OneDimension(inst));
  HLOREF_ASSIGN_OR_RETURN(int64_t shards, ShardCount(inst));
  if (ParticipantCountOpen(inst)) shards = ImpliedShardCount(inst, d, false);
  std::vector<Shape> results;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Shape& s = inst.operand(i)->shape();
    // reduce-scatter.C8: the scatter dimension splits into shard_count
    // blocks.
    if (s.dimensions(d) % shards != 0) {
      return Fail(inst, "reduce-scatter.C8", OperandName(inst, i),
                  " dimension ", d, " has size ", s.dimensions(d),
                  ", not divisible by the shard count ", shards);
    }
    // reduce-scatter.C7: (T, T) -> T; another floating-point precision as
    // for all-reduce.C7 (impl.reduce-scatter.1).
    HLOREF_RETURN_IF_ERROR(CheckReducerAsXla(
        inst, "reduce-scatter.C7", "to_apply", inst.to_apply(),
        {s.element_type()}, "impl.reduce-scatter.1"));
    Shape r = WithElementType(s, s.element_type());
    r.set_dimensions(d, s.dimensions(d) / shards);
    results.push_back(r);
  }
  return TupleOrSingle(std::move(results));
}

absl::StatusOr<Shape> InferAllToAll(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(CheckReplicaGroups(inst));
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  HLOREF_ASSIGN_OR_RETURN(int64_t split_count,
                          GroupSize(inst, /*uniform=*/true));
  std::vector<Shape> results;
  for (const HloInstruction* op : inst.operands()) {
    results.push_back(WithElementType(op->shape(), op->shape().element_type()));
  }
  if (inst.attrs().has(AttrId::kDimensions)) {
    // Array form: all-to-all.C6 one split dimension (of a single operand);
    // all-to-all.C7 "The dimension size of the operand on the
    // split_dimension is divisible by split_count".
    if (inst.operand_count() != 1) {
      return Fail(inst, "all-to-all.C6",
                  "the array form (with dimensions) "
                  "takes one operand, got ",
                  inst.operand_count());
    }
    HLOREF_ASSIGN_OR_RETURN(int64_t d, OneDimension(inst));
    const Shape& s = inst.operand(0)->shape();
    // With the participant count open, C7 waits for the count (run time).
    if (!ParticipantCountOpen(inst) && s.dimensions(d) % split_count != 0) {
      return Fail(inst, "all-to-all.C7", "split dimension ", d, " has size ",
                  s.dimensions(d), ", not divisible by split_count ",
                  split_count);
    }
    return results[0];
  }
  // Tuple form: each operand goes to one participant; one per participant.
  if (!ParticipantCountOpen(inst) && inst.operand_count() != split_count &&
      inst.operand_count() != 1) {
    return Fail(inst, "all-to-all.C7", "the tuple form has ",
                inst.operand_count(),
                " operands, expected one per "
                "participant (",
                split_count, ")");
  }
  return Shape::Tuple(std::move(results));
}

// collective-permute.C5: sources unique; .C6: targets unique; .C7: ids
// non-negative and in range when known.
absl::Status CheckPairs(const HloInstruction& inst) {
  const auto& pairs = inst.attrs().source_target_pairs;
  std::set<int64_t> sources, targets;
  const HloModule* m = inst.parent() ? inst.parent()->parent() : nullptr;
  int64_t limit = 0;
  if (m != nullptr) {
    const bool has_channel =
        inst.attrs().has(AttrId::kChannelId) && inst.attrs().channel_id > 0;
    limit =
        has_channel ? m->config().num_partitions : m->config().replica_count;
    if (m->config().replica_count * m->config().num_partitions <= 1) limit = 0;
  }
  for (const auto& [source, target] : pairs) {
    for (int64_t id : {source, target}) {
      if (id < 0 || (limit > 0 && id >= limit)) {
        return Fail(inst, Rule(inst, 7), "pair {", source, ",", target,
                    "} has id ", id, ", expected ids in [0, ",
                    limit > 0 ? absl::StrCat(limit) : std::string("inf"), ")");
      }
    }
    if (!sources.insert(source).second) {
      return Fail(inst, Rule(inst, 5), "source ", source,
                  " appears in more than one source_target_pairs entry");
    }
    if (!targets.insert(target).second) {
      return Fail(inst, Rule(inst, 6), "target ", target,
                  " appears in more than one source_target_pairs entry");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferCollectivePermute(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(CheckPairs(inst));
  std::vector<Shape> operands;
  for (const HloInstruction* op : inst.operands()) {
    Shape s = op->shape();
    s.ClearLayoutsRecursive();
    operands.push_back(s);
  }
  // One operand: the result has its shape. The in-place form (input,
  // output, input offsets, output offsets, with slice_sizes) returns the
  // output buffer's shape; the combined form returns a tuple.
  Shape result;
  if (operands.size() == 1) {
    result = operands[0];
  } else if (operands.size() == 4 && inst.attrs().has(AttrId::kSliceSizes)) {
    result = operands[1];
  } else {
    result = Shape::Tuple(operands);
  }
  if (inst.opcode() == HloOpcode::kCollectivePermuteStart) {
    // collective-permute-start.C8: (operand, result, context...) as
    // written.
    const Shape& s = inst.shape();
    const Shape operand =
        operands.size() == 1 ? operands[0] : Shape::Tuple(operands);
    if (!s.IsTuple() || s.tuple_size() < 2 ||
        !SameShape(s.tuple_shapes(0), operand) ||
        !SameShape(s.tuple_shapes(1), result)) {
      return Fail(inst, "collective-permute-start.C8", "shape is ", ShapeStr(s),
                  ", expected a tuple (", ShapeStr(operand), ", ",
                  ShapeStr(result), ", context...)");
    }
    Shape out = s;
    out.ClearLayoutsRecursive();
    return out;
  }
  return result;
}

absl::StatusOr<Shape> InferRaggedAllToAll(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(CheckReplicaGroups(inst));
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
  const Shape& input = inst.operand(0)->shape();
  const Shape& output = inst.operand(1)->shape();
  // ragged-all-to-all.C6: input and output buffers of one type and rank.
  if (input.element_type() != output.element_type() ||
      input.rank() != output.rank()) {
    return Fail(inst, "ragged-all-to-all.C6", "input ", ShapeStr(input),
                " and output ", ShapeStr(output),
                " must have the same element type and rank");
  }
  // ragged-all-to-all.C7: offsets and sizes are integer arrays of one
  // shape.
  const Shape& first = inst.operand(2)->shape();
  for (int64_t i = 2; i < 6; ++i) {
    const Shape& s = inst.operand(i)->shape();
    if (!IsInteger(s.element_type()) || !SameShape(s, first)) {
      return Fail(inst, "ragged-all-to-all.C7", OperandName(inst, i), " is ",
                  ShapeStr(s), ", expected an integer array like ",
                  ShapeStr(first));
    }
  }
  // ragged-all-to-all.C8: the offset/size arrays are of rank 1 or 2
  // (XLA's ShapeVerifier::HandleRaggedAllToAll).
  if (first.rank() != 1 && first.rank() != 2) {
    return Fail(inst, "ragged-all-to-all.C8", "offset/size operands are ",
                ShapeStr(first), ", expected rank 1 or 2");
  }
  // ragged-all-to-all.C9: input and output are ragged along dimension 0
  // only: rank >= 1 and equal dimensions below it (jax.lax.
  // ragged_all_to_all: "shapes must be equal, except for the outermost
  // dimension").
  bool rows_match = input.rank() >= 1;
  for (int64_t d = 1; rows_match && d < input.rank(); ++d) {
    rows_match = input.dimensions(d) == output.dimensions(d);
  }
  if (!rows_match) {
    return Fail(inst, "ragged-all-to-all.C9", "input ", ShapeStr(input),
                " and output ", ShapeStr(output),
                " must have rank >= 1 and agree in every dimension but 0");
  }
  return WithElementType(output, output.element_type());
}

absl::StatusOr<Shape> DoneOf(const HloInstruction& inst, HloOpcode start,
                             int64_t element) {
  const HloInstruction* op = inst.operand(0);
  // <op>.C1: the operand is the matching -start.
  if (op->opcode() != start) {
    return Fail(inst, Rule(inst, 1), "operand %", op->name(), " is a ",
                HloOpcodeString(op->opcode()), ", expected ",
                HloOpcodeString(start));
  }
  Shape s = op->shape();
  if (element >= 0) {
    if (!s.IsTuple() || s.tuple_size() <= element) {
      return Fail(inst, Rule(inst, 1), "operand %", op->name(), " has shape ",
                  ShapeStr(s), ", expected a tuple with element ", element);
    }
    s = s.tuple_shapes(element);
  }
  s.ClearLayoutsRecursive();
  return s;
}

}  // namespace

absl::StatusOr<Shape> InferCollectives(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return InferAllReduce(inst);
    case HloOpcode::kAllReduceDone:
      return DoneOf(inst, HloOpcode::kAllReduceStart, -1);
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      return InferAllGather(inst);
    case HloOpcode::kAllGatherDone:
      return DoneOf(inst, HloOpcode::kAllGatherStart, 1);
    case HloOpcode::kReduceScatter:
      return InferReduceScatter(inst);
    case HloOpcode::kAllToAll:
      return InferAllToAll(inst);
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      return InferCollectivePermute(inst);
    case HloOpcode::kCollectivePermuteDone:
      return DoneOf(inst, HloOpcode::kCollectivePermuteStart, 1);
    case HloOpcode::kCollectiveBroadcast: {
      HLOREF_RETURN_IF_ERROR(CheckReplicaGroups(inst));
      HLOREF_RETURN_IF_ERROR(ExpectArrays(inst));
      std::vector<Shape> results;
      for (const HloInstruction* op : inst.operands()) {
        results.push_back(
            WithElementType(op->shape(), op->shape().element_type()));
      }
      return TupleOrSingle(std::move(results));
    }
    case HloOpcode::kRaggedAllToAll:
      return InferRaggedAllToAll(inst);
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      // Seed ReplicaId: "the unique ID (U32 scalar)".
      return Shape::Scalar(PrimitiveType::kU32);
    default:
      return WrongFamily(inst, "collectives");
  }
}

}  // namespace hloref::verifier_internal
