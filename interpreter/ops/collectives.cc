// The collectives family. Semantics: seed 001 "AllGather", "AllReduce",
// "AllToAll", "CollectivePermute", "CrossReplicaSum" (an all-reduce with a
// summation computation; the opcode was removed from HLO), "ReduceScatter",
// "ReplicaId"; collective-broadcast, partition-id, the -start/-done pairs
// and the replica-group modes from docs/hlo-text-format.md 6.11.
//
// Participants. A run has R replicas x P partitions (interpreter/replicas.h;
// global id = replica * P + partition). Which participants a group names
// depends on the op's mode (text-format 6.11, XLA's CollectiveOpGroupMode):
//  - no channel_id: cross-replica. Groups hold replica ids; each group
//    meets within every partition separately.
//  - channel_id on all-to-all, collective-permute, collective-broadcast:
//    cross-partition. Groups hold partition ids; each group meets within
//    every replica.
//  - channel_id on all-reduce, all-gather, reduce-scatter without
//    use_global_device_ids: cross-replica-and-partition. Groups hold
//    replica ids; a group meets with all partitions of its replicas, in
//    the order (replica of the group, then partition 0..P-1).
//  - use_global_device_ids=true (needs channel_id): groups hold global ids.
// Empty replica_groups: one group of all ids of the mode's id space, in
// increasing order (with use_global_device_ids an error, as in XLA). The
// position of a participant in its group is the "replica i of the group" of the
// seed (gather/scatter order).
//
// Reductions (all-reduce, reduce-scatter) apply to_apply as a left fold in
// group order: f(...f(f(x_0, x_1), x_2)..., x_{n-1}) per element. A reducer
// that is a plain add of its two parameters on a float or complex type is
// evaluated as the exact sum rounded once (docs/numerics.md decision 4, as
// the reduce family does), so the value does not depend on the order XLA's
// backends happen to use; integer add wraps and is order-independent.
// impl.all-reduce.1 / impl.reduce-scatter.1: a to_apply in another
// floating-point precision than the operand's T (XLA's verifier does not
// check the computation; seed 001 gives one type) is applied as written:
// each step of the fold converts the accumulator and the next contribution
// to its parameter types (ConvertElementType) and its result back to T, so
// the running value is T (as impl.scatter.5).
//
// The async pairs: all-reduce-start holds the all-reduce result and -done
// passes it on; all-gather-start holds (operands, result) and
// collective-permute-start (operand, result, context...); their -done
// returns element 1. The exchange happens at the start. The sugared async
// forms (all-to-all-start, reduce-scatter-start) are async-start over a
// wrapped computation (interpreter/ops/async.cc) and reach this file
// through it.
//
// ragged-all-to-all: see RaggedAllToAll below (semantics from JAX's
// jax.lax.ragged_all_to_all documentation and XLA's shape inference).
//
// Not evaluated (Unimplemented): the in-place collective-permute form with
// slice_sizes.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/convert.h"
#include "interpreter/ops/exact_sum.h"
#include "interpreter/ops/families.h"
#include "interpreter/replicas.h"
#include "spec/ir/collective_groups.h"

namespace hloref {
namespace {

using Topology = DeviceTopology;

Topology TopologyOf(EvalContext& ctx) {
  Topology t;
  if (Rendezvous* rv = ctx.rendezvous()) {
    t.replicas = rv->replica_count();
    t.partitions = rv->partition_count();
  }
  t.replica = ctx.replica_id();
  t.partition = ctx.partition_id();
  return t;
}

// The participants (global ids, in group order) of this participant's
// group.
absl::StatusOr<std::vector<int64_t>> GroupOf(const HloInstruction& inst,
                                             const Topology& t) {
  const std::string where = InstructionPrefix(inst);
  HLOREF_ASSIGN_OR_RETURN(CollectiveGroupMode mode,
                          CollectiveGroupModeOf(inst, where));
  return ResolveCollectiveGroup(mode, inst.attrs().replica_groups.groups, t,
                                where);
}

struct Exchanged {
  std::vector<int64_t> group;
  int64_t index = 0;  // this participant's position in `group`
  // Contributions in group order (shared with the other participants).
  std::shared_ptr<const std::vector<Literal>> values;
};

// Meets the other participants of `group` and returns their contributions.
// A run without a rendezvous (Evaluator::Run of a one-device module) has
// one participant.
absl::StatusOr<Exchanged> Meet(const HloInstruction& inst,
                               std::vector<int64_t> group, Literal mine,
                               EvalContext& ctx, const Topology& t) {
  Exchanged ex;
  ex.group = std::move(group);
  const int64_t me = t.me();
  auto pos = std::find(ex.group.begin(), ex.group.end(), me);
  if (pos == ex.group.end()) {
    return absl::InternalError(absl::StrCat(
        InstructionPrefix(inst), "participant ", me,
        " is not in its own group {", absl::StrJoin(ex.group, ","), "}"));
  }
  ex.index = pos - ex.group.begin();
  const int64_t execution = ctx.CountExecution(inst);
  Rendezvous* rv = ctx.rendezvous();
  if (rv == nullptr || ex.group.size() == 1) {
    if (ex.group.size() != 1) {
      return absl::InternalError(
          absl::StrCat(InstructionPrefix(inst), "a group of ", ex.group.size(),
                       " participants in a run without a rendezvous"));
    }
    auto v = std::make_shared<std::vector<Literal>>();
    v->push_back(std::move(mine));
    ex.values = std::move(v);
    return ex;
  }
  HLOREF_ASSIGN_OR_RETURN(
      ex.values, rv->Exchange(inst, execution, ex.group, me, std::move(mine)));
  // Every participant runs the same program on arguments of the same
  // shapes, so the contributions agree; check rather than read out of
  // bounds if they do not.
  for (size_t k = 1; k < ex.values->size(); ++k) {
    if ((*ex.values)[k].shape().ToString(false) !=
        (*ex.values)[0].shape().ToString(false)) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "participants contribute different shapes: ",
          (*ex.values)[0].shape().ToString(false), " and ",
          (*ex.values)[k].shape().ToString(false)));
    }
  }
  return ex;
}

// The operands as one value: the operand itself, or a tuple of several.
Literal Pack(absl::Span<const Literal* const> operands) {
  if (operands.size() == 1) return *operands[0];
  std::vector<Literal> elements;
  for (const Literal* o : operands) elements.push_back(*o);
  return Literal::MakeTuple(std::move(elements));
}

// Operand `i` of participant k's packed contribution.
const Literal& Part(const Literal& packed, size_t count, size_t i) {
  return count == 1 ? packed : packed.tuple_element(static_cast<int64_t>(i));
}

Literal Unpack(std::vector<Literal> results) {
  if (results.size() == 1) return std::move(results[0]);
  return Literal::MakeTuple(std::move(results));
}

absl::Status ExpectArrays(const HloInstruction& inst,
                          absl::Span<const Literal* const> operands) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, -1));
  for (size_t i = 0; i < operands.size(); ++i) {
    HLOREF_RETURN_IF_ERROR(
        ExpectArray(inst, *operands[i], static_cast<int64_t>(i)));
  }
  return absl::OkStatus();
}

// ---- Reductions.

// True when `comp` is `add(p0, p1)` (either order) on scalars of `type`.
bool IsPlainAdd(const HloComputation& comp, PrimitiveType type) {
  if (comp.num_parameters() != 2 || comp.root() == nullptr) return false;
  const HloInstruction* root = comp.root();
  const HloInstruction* p0 = comp.parameter(0);
  const HloInstruction* p1 = comp.parameter(1);
  if (p0 == nullptr || p1 == nullptr || root->opcode() != HloOpcode::kAdd ||
      root->operand_count() != 2) {
    return false;
  }
  for (const HloInstruction* i : {root, p0, p1}) {
    if (!i->shape().IsArray() || i->shape().rank() != 0 ||
        i->shape().element_type() != type) {
      return false;
    }
  }
  return (root->operand(0) == p0 && root->operand(1) == p1) ||
         (root->operand(0) == p1 && root->operand(1) == p0);
}

Literal ScalarAt(const Literal& lit, int64_t i) {
  Literal s(Shape::Scalar(lit.element_type()));
  const int bytes = StorageBytes(lit.element_type());
  std::memcpy(s.mutable_raw().data(), lit.raw().data() + i * bytes, bytes);
  return s;
}

// Reduces operand `leaf` of every contribution element-wise with
// `reducer`, in group order. Error data (S, m) is reported for leaf `leaf`
// of the current instruction when `report_leaf` >= 0 and the reducer is an
// exact float add.
absl::StatusOr<Literal> Reduce(const HloInstruction& inst,
                               const HloComputation& reducer,
                               const std::vector<const Literal*>& xs,
                               EvalContext& ctx, int64_t report_leaf) {
  const Literal& first = *xs[0];
  const PrimitiveType type = first.element_type();
  const int64_t count = first.element_count();
  Literal out(first.shape());
  if (xs.size() == 1) {
    // A fold of one value applies no computation.
    return first;
  }
  if (IsPlainAdd(reducer, type) && (IsFloat(type) || IsComplex(type))) {
    const bool error_data =
        ctx.options().compute_error_data && report_leaf >= 0 && IsFloat(type);
    ExactSum re, im, abs;
    for (int64_t e = 0; e < count; ++e) {
      re.Clear();
      im.Clear();
      abs.Clear();
      for (const Literal* x : xs) {
        if (IsComplex(type)) {
          const std::complex<double> v = x->GetAsComplex(e);
          re.Add(v.real());
          im.Add(v.imag());
        } else {
          const double v = x->GetAsDouble(e);
          re.Add(v);
          if (error_data) abs.Add(std::fabs(v));
        }
      }
      if (IsComplex(type)) {
        const PrimitiveType part = type == PrimitiveType::kC64
                                       ? PrimitiveType::kF32
                                       : PrimitiveType::kF64;
        out.SetFromComplex(e, {re.RoundTo(part), im.RoundTo(part)});
      } else {
        out.SetFromDouble(e, re.RoundTo(type));
        if (error_data) {
          ctx.SetErrorData(report_leaf, e, abs.RoundUpToDouble(),
                           static_cast<int64_t>(xs.size()) - 1);
        }
      }
    }
    return out;
  }
  if (IsPlainAdd(reducer, type) && IsInteger(type)) {
    for (int64_t e = 0; e < count; ++e) {
      uint64_t sum = 0;
      for (const Literal* x : xs)
        sum += static_cast<uint64_t>(x->GetAsInt64(e));
      out.SetFromInt64(e, static_cast<int64_t>(sum));
    }
    return out;
  }
  // Any other computation: the left fold, one element at a time.
  const int bytes = StorageBytes(type);
  for (int64_t e = 0; e < count; ++e) {
    if (e % 4096 == 0) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    Literal acc = ScalarAt(*xs[0], e);
    for (size_t k = 1; k < xs.size(); ++k) {
      Literal x = ScalarAt(*xs[k], e);
      Literal acc_in, x_in;  // in the computation's types when they differ
      const Literal* args[] = {&acc, &x};
      for (int64_t p = 0; p < 2; ++p) {
        const HloInstruction* param = reducer.parameter(p);
        if (param == nullptr || !param->shape().IsArray() ||
            param->shape().element_type() == type) {
          continue;
        }
        HLOREF_ASSIGN_OR_RETURN(
            (p == 0 ? acc_in : x_in),
            ConvertLiteral(p == 0 ? acc : x, param->shape().element_type(),
                           nullptr));
        args[p] = p == 0 ? &acc_in : &x_in;
      }
      HLOREF_ASSIGN_OR_RETURN(Literal next, ctx.Call(reducer, args));
      if (next.shape().IsArray() && next.element_count() == 1 &&
          next.element_type() != type && IsFloat(type) &&
          IsFloat(next.element_type())) {
        HLOREF_ASSIGN_OR_RETURN(next, ConvertLiteral(next, type, nullptr));
      }
      if (!next.shape().IsArray() || next.element_type() != type ||
          next.element_count() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            InstructionPrefix(inst), "to_apply returned ",
            next.shape().ToString(false), ", expected ",
            PrimitiveTypeName(type), "[] (is the module verified?)"));
      }
      acc = std::move(next);
    }
    std::memcpy(out.mutable_raw().data() + e * bytes, acc.raw().data(), bytes);
  }
  return out;
}

// Element-wise reduction of every operand across the group: the all-reduce
// result (one literal per operand).
absl::StatusOr<std::vector<Literal>> AllReduceValues(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx, Exchanged* exchanged) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst, operands));
  const HloComputation* reducer = inst.to_apply();
  if (reducer == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "has no to_apply computation"));
  }
  const Topology t = TopologyOf(ctx);
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(inst, t));
  HLOREF_ASSIGN_OR_RETURN(*exchanged,
                          Meet(inst, std::move(group), Pack(operands), ctx, t));
  std::vector<Literal> results;
  for (size_t i = 0; i < operands.size(); ++i) {
    std::vector<const Literal*> xs;
    for (const Literal& packed : *exchanged->values) {
      xs.push_back(&Part(packed, operands.size(), i));
    }
    const bool single_leaf_result = inst.opcode() == HloOpcode::kAllReduce ||
                                    inst.opcode() == HloOpcode::kAllReduceStart;
    HLOREF_ASSIGN_OR_RETURN(
        Literal r, Reduce(inst, *reducer, xs, ctx,
                          single_leaf_result ? static_cast<int64_t>(i) : -1));
    results.push_back(std::move(r));
  }
  return results;
}

// ---- Block moves along one dimension.

// Block `j` (of `count` equal blocks) of `x` along `dim`.
Literal SliceBlock(const Literal& x, int64_t dim, int64_t count, int64_t j) {
  Shape s = x.shape();
  const int64_t b = s.dimensions(dim) / count;
  s.set_dimensions(dim, b);
  Literal out(s);
  const auto src_strides = RowMajorStrides(x.shape().dimensions());
  const auto dst_strides = RowMajorStrides(s.dimensions());
  StridedCopy(StorageBytes(x.element_type()), s.dimensions(), x.raw().data(),
              j * b * src_strides[dim], src_strides, out.mutable_raw().data(),
              0, dst_strides);
  return out;
}

// The pieces concatenated along `dim` (all of one shape).
Literal ConcatBlocks(const std::vector<const Literal*>& pieces, int64_t dim) {
  Shape s = pieces[0]->shape();
  const int64_t b = s.dimensions(dim);
  s.set_dimensions(dim, b * static_cast<int64_t>(pieces.size()));
  Literal out(s);
  const auto src_strides = RowMajorStrides(pieces[0]->shape().dimensions());
  const auto dst_strides = RowMajorStrides(s.dimensions());
  for (size_t k = 0; k < pieces.size(); ++k) {
    StridedCopy(StorageBytes(s.element_type()), pieces[0]->shape().dimensions(),
                pieces[k]->raw().data(), 0, src_strides,
                out.mutable_raw().data(),
                static_cast<int64_t>(k) * b * dst_strides[dim], dst_strides);
  }
  return out;
}

absl::StatusOr<int64_t> OneDimension(const HloInstruction& inst,
                                     absl::Span<const Literal* const> ops) {
  const auto& dims = inst.attrs().dimensions;
  for (const Literal* o : ops) {
    if (dims.size() != 1 || dims[0] < 0 || dims[0] >= o->shape().rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "dimensions must name one dimension of ",
          o->shape().ToString(false), " (is the module verified?)"));
    }
  }
  return dims[0];
}

// The verifier derives result shapes from the module header; a run with
// other replica/partition counts can make groups of another size. Reports
// that instead of producing a value of the wrong shape.
absl::Status CheckGroupSize(const HloInstruction& inst, int64_t size,
                            const Shape& operand, const Shape& expected,
                            const Shape& got) {
  if (expected.ToString(false) == got.ToString(false)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      InstructionPrefix(inst), "the group has ", size,
      " participants, which turns operand ", operand.ToString(false), " into ",
      got.ToString(false), ", but the instruction's shape is ",
      expected.ToString(false),
      " (do the replica/partition counts of the run match the module "
      "header?)"));
}

// ---- The ops.

absl::StatusOr<Literal> AllReduce(const HloInstruction& inst,
                                  absl::Span<const Literal* const> operands,
                                  EvalContext& ctx) {
  Exchanged ex;
  HLOREF_ASSIGN_OR_RETURN(std::vector<Literal> results,
                          AllReduceValues(inst, operands, ctx, &ex));
  return Unpack(std::move(results));
}

absl::StatusOr<Literal> AllGather(const HloInstruction& inst,
                                  absl::Span<const Literal* const> operands,
                                  EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst, operands));
  HLOREF_ASSIGN_OR_RETURN(int64_t dim, OneDimension(inst, operands));
  const Topology t = TopologyOf(ctx);
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(inst, t));
  HLOREF_ASSIGN_OR_RETURN(Exchanged ex,
                          Meet(inst, std::move(group), Pack(operands), ctx, t));
  // Seed AllGather: "The order of replicas in each group determines the
  // order in which their inputs are located in the result."
  std::vector<Literal> results;
  for (size_t i = 0; i < operands.size(); ++i) {
    std::vector<const Literal*> pieces;
    for (const Literal& packed : *ex.values) {
      pieces.push_back(&Part(packed, operands.size(), i));
    }
    results.push_back(ConcatBlocks(pieces, dim));
  }
  Literal value = Unpack(std::move(results));
  // all-gather-start's shape is (operands, result).
  const bool start = inst.opcode() == HloOpcode::kAllGatherStart;
  const Shape& expected =
      start && inst.shape().IsTuple() && inst.shape().tuple_size() == 2
          ? inst.shape().tuple_shapes(1)
          : inst.shape();
  HLOREF_RETURN_IF_ERROR(
      CheckGroupSize(inst, static_cast<int64_t>(ex.group.size()),
                     operands[0]->shape(), expected, value.shape()));
  if (!start) return value;
  std::vector<Literal> elements;
  elements.push_back(Pack(operands));
  elements.push_back(std::move(value));
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> ReduceScatter(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  HLOREF_ASSIGN_OR_RETURN(int64_t dim, OneDimension(inst, operands));
  Exchanged ex;
  HLOREF_ASSIGN_OR_RETURN(std::vector<Literal> reduced,
                          AllReduceValues(inst, operands, ctx, &ex));
  const int64_t n = static_cast<int64_t>(ex.group.size());
  std::vector<Literal> results;
  for (size_t i = 0; i < reduced.size(); ++i) {
    if (reduced[i].shape().dimensions(dim) % n != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "dimension ", dim, " of ",
          reduced[i].shape().ToString(false),
          " does not split into one block per participant (", n, ")"));
    }
    // Seed ReduceScatter: "replica i in the replica group receives the ith
    // shard".
    results.push_back(SliceBlock(reduced[i], dim, n, ex.index));
    // Error data of a float sum (numerics.md 7.3): S is the sum of the
    // contributions' magnitudes at the element, m = n - 1 additions, so a
    // backend summing the participants in another order is judged fairly.
    const PrimitiveType type = reduced[i].element_type();
    if (ctx.options().compute_error_data && n > 1 && IsFloat(type) &&
        IsPlainAdd(*inst.to_apply(), type)) {
      std::vector<Literal> shards;
      for (const Literal& packed : *ex.values) {
        shards.push_back(
            SliceBlock(Part(packed, operands.size(), i), dim, n, ex.index));
      }
      ExactSum abs;
      for (int64_t e = 0; e < results.back().element_count(); ++e) {
        abs.Clear();
        for (const Literal& shard : shards) {
          abs.Add(std::fabs(shard.GetAsDouble(e)));
        }
        ctx.SetErrorData(static_cast<int64_t>(i), e, abs.RoundUpToDouble(),
                         n - 1);
      }
    }
  }
  Literal value = Unpack(std::move(results));
  HLOREF_RETURN_IF_ERROR(CheckGroupSize(inst, n, operands[0]->shape(),
                                        inst.shape(), value.shape()));
  return value;
}

absl::StatusOr<Literal> AllToAll(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands,
                                 EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst, operands));
  const Topology t = TopologyOf(ctx);
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(inst, t));
  const int64_t n = static_cast<int64_t>(group.size());
  if (inst.attrs().has(AttrId::kDimensions)) {
    // Array form: split along the dimension into n blocks, block j goes to
    // participant j, the received blocks are concatenated along the same
    // dimension in group order (seed AllToAll with split_dimension =
    // concat_dimension, the only form HLO has).
    HLOREF_ASSIGN_OR_RETURN(int64_t dim, OneDimension(inst, operands));
    if (operands.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "the array form takes one operand, got ",
          operands.size()));
    }
    if (operands[0]->shape().dimensions(dim) % n != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "split dimension ", dim, " of ",
                       operands[0]->shape().ToString(false),
                       " is not divisible by the group size ", n));
    }
    HLOREF_ASSIGN_OR_RETURN(Exchanged ex,
                            Meet(inst, std::move(group), *operands[0], ctx, t));
    std::vector<Literal> blocks;
    for (const Literal& x : *ex.values) {
      blocks.push_back(SliceBlock(x, dim, n, ex.index));
    }
    std::vector<const Literal*> pieces;
    for (const Literal& b : blocks) pieces.push_back(&b);
    return ConcatBlocks(pieces, dim);
  }
  // Tuple form: operand j goes to participant j; result element k is what
  // participant k sent to this one.
  if (static_cast<int64_t>(operands.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "the tuple form has ", operands.size(),
        " operands, expected one per participant of the group (", n, ")"));
  }
  HLOREF_ASSIGN_OR_RETURN(Exchanged ex,
                          Meet(inst, std::move(group), Pack(operands), ctx, t));
  std::vector<Literal> results;
  for (const Literal& packed : *ex.values) {
    results.push_back(
        Part(packed, operands.size(), static_cast<size_t>(ex.index)));
  }
  return Literal::MakeTuple(std::move(results));
}

absl::StatusOr<Literal> CollectivePermute(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, -1));
  if (inst.attrs().has(AttrId::kSliceSizes)) {
    return InstructionUnimplemented(
        inst,
        "the in-place collective-permute form (with slice_sizes) is not "
        "evaluated");
  }
  const Topology t = TopologyOf(ctx);
  // Pairs name replica ids (no channel_id) or partition ids (channel_id:
  // cross-partition), within this participant's partition or replica.
  const bool cross_partition = HasCollectiveChannel(inst);
  const int64_t id_space = cross_partition ? t.partitions : t.replicas;
  const int64_t my_id = cross_partition ? t.partition : t.replica;
  auto global = [&](int64_t id) {
    return cross_partition ? t.global(t.replica, id)
                           : t.global(id, t.partition);
  };
  std::vector<int64_t> ids;
  int64_t source = -1;
  for (const auto& [s, d] : inst.attrs().source_target_pairs) {
    for (int64_t id : {s, d}) {
      if (id < 0 || id >= id_space) {
        return absl::InvalidArgumentError(absl::StrCat(
            InstructionPrefix(inst), "source_target_pairs {", s, ",", d,
            "} names id ", id, ", but the run has ", id_space, " ",
            cross_partition ? "partition(s)" : "replica(s)"));
      }
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
        ids.push_back(id);
      }
    }
    if (d == my_id) source = s;
  }
  std::sort(ids.begin(), ids.end());
  Literal mine = Pack(operands);
  Literal result;
  if (std::find(ids.begin(), ids.end(), my_id) == ids.end()) {
    // In no pair: nothing to send or receive. Seed CollectivePermute: "If
    // a replica id is not a target in any pair, then the output on that
    // replica is a tensor consisting of 0(s)".
    HLOREF_ASSIGN_OR_RETURN(
        result,
        AllocateLiteral(mine.shape(), ctx.options().max_elements_per_value));
  } else {
    // The participants of all pairs meet; each target takes its source's
    // value.
    std::vector<int64_t> group;
    for (int64_t id : ids) group.push_back(global(id));
    HLOREF_ASSIGN_OR_RETURN(
        Literal zeros,
        AllocateLiteral(mine.shape(), ctx.options().max_elements_per_value));
    HLOREF_ASSIGN_OR_RETURN(
        Exchanged ex, Meet(inst, std::move(group), std::move(mine), ctx, t));
    if (source < 0) {
      result = std::move(zeros);
    } else {
      const auto it = std::find(ids.begin(), ids.end(), source);
      result = (*ex.values)[static_cast<size_t>(it - ids.begin())];
    }
  }
  if (inst.opcode() != HloOpcode::kCollectivePermuteStart) return result;
  // (operand, result, context...): the context is opaque runtime state.
  std::vector<Literal> start;
  start.push_back(Pack(operands));
  start.push_back(std::move(result));
  const Shape& shape = inst.shape();
  for (int64_t i = 2; shape.IsTuple() && i < shape.tuple_size(); ++i) {
    HLOREF_ASSIGN_OR_RETURN(
        Literal context, AllocateLiteral(shape.tuple_shapes(i),
                                         ctx.options().max_elements_per_value));
    start.push_back(std::move(context));
  }
  return Literal::MakeTuple(std::move(start));
}

absl::StatusOr<Literal> CollectiveBroadcast(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst, operands));
  const Topology t = TopologyOf(ctx);
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(inst, t));
  HLOREF_ASSIGN_OR_RETURN(Exchanged ex,
                          Meet(inst, std::move(group), Pack(operands), ctx, t));
  // The first participant of each group is the source (XLA's
  // CollectiveBroadcast; text-format 6.11 gives only the syntax).
  return (*ex.values)[0];
}

// ---- ragged-all-to-all.
//
// Semantics (XLA: HLO operands (input, output, input_offsets, send_sizes,
// output_offsets, recv_sizes), ShapeVerifier: the four offset/size
// operands share one shape of rank 1 or 2, and ShapeInference: the result
// has the output operand's shape; the data movement is documented with
// jax.lax.ragged_all_to_all, which lowers to this op):
//  - the ragged dimension is dimension 0 of input and output; a row is
//    everything below it;
//  - the offset/size arrays have N entries (rank 2: row-major), N a
//    multiple of the group size n; entry e names a slice for the
//    participant at group position e / (N / n) (XLA's GPU kernel:
//    update_idx = update + peer * num_updates_per_replica);
//  - participant s sends rows input[input_offsets[e], +send_sizes[e]) of
//    entry e to participant p = e / (N / n), which writes them at rows
//    [output_offsets[e], +send_sizes[e]) of its result -- output_offsets
//    are the sender's offsets into the receiver's buffer;
//  - the result starts as the output operand: rows nobody writes keep it;
//  - the receiver's recv_sizes[s * (N / n) + k] equals the sender's
//    send_sizes[p * (N / n) + k] (JAX: send_sizes == all_to_all(recv_sizes)).
// Data-dependent undefined behaviour (neither JAX nor XLA defines it; an
// XLA GPU/TPU kernel reads or writes outside the buffers): a negative
// offset or size, a slice outside input or output
// (impl.ragged-all-to-all.1), recv_sizes disagreeing with the sender's
// send_sizes (impl.ragged-all-to-all.2), and two slices written to
// overlapping rows of one receiver (impl.ragged-all-to-all.3, the write
// order is unspecified). The oracle reports them as OutOfRange naming the
// ID, on every participant (the values are exchanged before checking).
// (XLA's GPU kernel copies send_sizes rows and never reads recv_sizes, so
// on XLA a recv_sizes mismatch goes unnoticed; JAX states the equality as
// a requirement, so the oracle treats a mismatch as a broken
// precondition rather than copying XLA's silence.)
absl::StatusOr<Literal> RaggedAllToAll(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 6, 6));
  HLOREF_RETURN_IF_ERROR(ExpectArrays(inst, operands));
  const Literal& input = *operands[0];
  const Literal& output = *operands[1];
  if (input.shape().rank() < 1 ||
      output.shape().rank() != input.shape().rank() ||
      input.element_type() != output.element_type()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "input ", input.shape().ToString(false),
        " and output ", output.shape().ToString(false),
        " must be arrays of one type and rank >= 1 (is the module "
        "verified?)"));
  }
  for (int64_t d = 1; d < input.shape().rank(); ++d) {
    if (input.shape().dimensions(d) != output.shape().dimensions(d)) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "input ", input.shape().ToString(false),
          " and output ", output.shape().ToString(false),
          " rows differ in dimension ", d, " (only dimension 0 is ragged)"));
    }
  }
  // Rank-2 offset/size arrays ([peers, updates], ragged-all-to-all.C8) are
  // read in row-major order, the layout XLA's GPU kernel indexes
  // (update_idx = update + peer * num_updates_per_replica), so they are
  // the flat rank-1 form.
  int64_t entries = -1;
  for (int64_t i = 2; i < 6; ++i) {
    const Shape& s = operands[i]->shape();
    if (s.rank() != 1 && s.rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "offset/size operand ", i,
                       " is ", s.ToString(false),
                       ", expected rank 1 or 2 (is the module "
                       "verified?)"));
    }
    if (entries >= 0 && s.num_elements() != entries) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst),
                       "offset/size operands differ in size (is the module "
                       "verified?)"));
    }
    entries = s.num_elements();
  }
  const Topology t = TopologyOf(ctx);
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(inst, t));
  const int64_t n = static_cast<int64_t>(group.size());
  if (entries % n != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "the offset and size arrays have ", entries,
        " entries, not a multiple of the group size ", n));
  }
  const int64_t per_peer = entries / n;
  // Contribution: (input, input_offsets, send_sizes, output_offsets).
  std::vector<Literal> mine;
  for (int64_t i : {0, 2, 3, 4}) mine.push_back(*operands[i]);
  HLOREF_ASSIGN_OR_RETURN(Exchanged ex,
                          Meet(inst, std::move(group),
                               Literal::MakeTuple(std::move(mine)), ctx, t));
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> recv_sizes,
                          LoadInts(*operands[5]));
  const int64_t in_rows = input.shape().dimensions(0);
  const int64_t out_rows = output.shape().dimensions(0);
  int64_t row_elems = 1;  // elements of one row (dimensions 1..)
  for (int64_t d = 1; d < input.shape().rank(); ++d) {
    row_elems *= input.shape().dimensions(d);
  }
  const int bytes = StorageBytes(input.element_type());
  Literal result = output;
  std::vector<int64_t> writer(static_cast<size_t>(out_rows), -1);
  for (int64_t s = 0; s < n; ++s) {
    const Literal& contribution = (*ex.values)[static_cast<size_t>(s)];
    const Literal& s_input = contribution.tuple_element(0);
    HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> in_off,
                            LoadInts(contribution.tuple_element(1)));
    HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> send,
                            LoadInts(contribution.tuple_element(2)));
    HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> out_off,
                            LoadInts(contribution.tuple_element(3)));
    const std::string from = ctx.rendezvous() != nullptr
                                 ? ctx.rendezvous()->DeviceName(ex.group[s])
                                 : std::string("participant 0");
    for (int64_t k = 0; k < per_peer; ++k) {
      const int64_t e = ex.index * per_peer + k;  // the sender's entry
      const int64_t r = s * per_peer + k;         // this receiver's entry
      const int64_t off = in_off[e], size = send[e], to = out_off[e];
      if (off < 0 || size < 0 || to < 0 || off > in_rows - size ||
          to > out_rows - size) {
        return absl::OutOfRangeError(absl::StrCat(
            InstructionPrefix(inst), from, " sends rows [", off, ", ",
            off + size, ") of its input (", in_rows, " rows) to rows [", to,
            ", ", to + size, ") of the output (", out_rows,
            " rows): out of range (impl.ragged-all-to-all.1, entry ", e, ")"));
      }
      if (recv_sizes[r] != size) {
        return absl::OutOfRangeError(absl::StrCat(
            InstructionPrefix(inst), "recv_sizes[", r, "] is ", recv_sizes[r],
            ", but ", from, " sends ", size, " rows (send_sizes[", e,
            "]) (impl.ragged-all-to-all.2)"));
      }
      for (int64_t row = to; row < to + size; ++row) {
        if (writer[row] >= 0) {
          return absl::OutOfRangeError(
              absl::StrCat(InstructionPrefix(inst), "row ", row,
                           " of the output is written by two slices (entries ",
                           writer[row], " and ", s * entries + e,
                           "): the write order is unspecified "
                           "(impl.ragged-all-to-all.3)"));
        }
        writer[row] = s * entries + e;
      }
      // Rows of zero elements (a 0 dimension) have nothing to copy, and
      // a zero-size literal's data() is null, which memcpy may not take
      // (UBSan, found by differential_fuzz).
      if (size * row_elems * bytes > 0) {
        std::memcpy(result.mutable_raw().data() + to * row_elems * bytes,
                    s_input.raw().data() + off * row_elems * bytes,
                    static_cast<size_t>(size * row_elems * bytes));
      }
    }
  }
  return result;
}

absl::StatusOr<Literal> DoneElement(const HloInstruction& inst,
                                    absl::Span<const Literal* const> operands,
                                    int64_t element) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  const Literal& start = *operands[0];
  if (element < 0) return start;
  if (!start.shape().IsTuple() || start.tuple_size() <= element) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "operand ", start.shape().ToString(false),
        " is not the tuple the matching -start produces"));
  }
  return start.tuple_element(element);
}

}  // namespace

absl::StatusOr<Literal> EvalCollectives(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return AllReduce(inst, operands, ctx);
    case HloOpcode::kAllReduceDone:
      return DoneElement(inst, operands, -1);
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      return AllGather(inst, operands, ctx);
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      return DoneElement(inst, operands, 1);
    case HloOpcode::kReduceScatter:
      return ReduceScatter(inst, operands, ctx);
    case HloOpcode::kAllToAll:
      return AllToAll(inst, operands, ctx);
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      return CollectivePermute(inst, operands, ctx);
    case HloOpcode::kCollectiveBroadcast:
      return CollectiveBroadcast(inst, operands, ctx);
    case HloOpcode::kReplicaId:
      // Seed ReplicaId: "an unsigned integer in the interval [0, N)".
      return Literal::CreateR0<uint32_t>(
          PrimitiveType::kU32, static_cast<uint32_t>(ctx.replica_id()));
    case HloOpcode::kPartitionId:
      return Literal::CreateR0<uint32_t>(
          PrimitiveType::kU32, static_cast<uint32_t>(ctx.partition_id()));
    case HloOpcode::kRaggedAllToAll:
      return RaggedAllToAll(inst, operands, ctx);
    default:
      return InstructionInternal(
          inst, "not an op of the collectives family (spec/ops.def)");
  }
}

}  // namespace hloref
