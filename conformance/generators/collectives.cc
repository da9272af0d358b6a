// Generators of the collectives family (seed 001 "AllGather", "AllReduce",
// "AllToAll", "CollectivePermute", "ReduceScatter", "ReplicaId";
// collective-broadcast, partition-id, ragged-all-to-all and the async
// -start/-done pairs from docs/hlo-text-format.md 6.11).
//
// Every case is replicated: 1..4 replicas, sometimes 2 partitions, each
// participant with its own argument values (Draw::per_participant_args),
// so a collective combines values that differ. The group mode is drawn
// with the op: no channel_id (cross-replica), channel_id (cross-partition
// for all-to-all / collective-permute / collective-broadcast /
// ragged-all-to-all, cross-replica-and-partition for the others), and
// channel_id with use_global_device_ids=true (flattened global ids, always
// with explicit groups). Replica groups are drawn as `{}` (one group of
// every id), explicit groups in a random order (group order is the
// concatenation order of all-gather), and the iota forms `[G,S]<=[N]` and
// `[G,S]<=[S,G]T(1,0)`. Groups always cover the mode's whole id space:
// a participant in no group is an error of the program, not a case.
//
// Judging (conformance/compare/compare_policy.def: all-reduce,
// all-reduce-start/-done and reduce-scatter are kReduce, judged by their
// reducer; the others kBits or kExact). The order of a cross-replica sum
// is not specified, so a float add must be judged with a bound, not bit
// for bit:
//  - all-reduce with add on a float type is class A: the oracle sums
//    exactly, rounds once and reports S and m per element
//    (interpreter/ops/collectives.cc), so a backend summing the group in
//    any order passes within gamma_m(u) * S, and one that drops or doubles
//    a contribution does not (the bound is a few ulps of S, below one term
//    unless terms cancel). Its values are general (specials included: a
//    non-finite sum is order-independent; an overflowing order makes the
//    element ANY).
//  - where the oracle reports no S and m -- reduce-scatter (a slice of the
//    sum), all-reduce-done (the value passes through the -start) and
//    complex add -- the comparator falls back to exact agreement. Float
//    adds there draw small integers on types where every partial sum of
//    them is exact (at least 6 significant bits: f16, bf16, f32, f64 and
//    the complex types), so every order gives the oracle's bits and
//    exactness is fair; narrower float types draw the other reducers.
//  - max / min are exact up to the zero sign; integer reducers are exact
//    (they wrap); pred and/or are exact.
//  - float multiply is ANY in the comparator today (a product over the
//    group has no bound rule for collectives), as is every float
//    all-reduce-done (its rule cannot see the -start's reducer): such
//    elements are reported as masked, never as passes on value. Products
//    draw small integers, so a future product bound has exact data.
#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/generators/draw.h"
#include "spec/types/minifloat.h"
#include "spec/util/status_macros.h"

namespace hloref::conformance::gen {
namespace {

enum class Mode {
  kCrossReplica,              // no channel_id: replica ids
  kCrossPartition,            // channel_id (all-to-all family): partitions
  kCrossReplicaAndPartition,  // channel_id: replica ids x all partitions
  kFlattened,                 // use_global_device_ids=true: global ids
};

// The run's participants and the op's mode.
struct Topology {
  int64_t replicas = 1;
  int64_t partitions = 1;
  Mode mode = Mode::kCrossReplica;
  int64_t channel_id = 0;  // 0: none

  int64_t ids() const {
    switch (mode) {
      case Mode::kCrossReplica:
      case Mode::kCrossReplicaAndPartition:
        return replicas;
      case Mode::kCrossPartition:
        return partitions;
      case Mode::kFlattened:
        return replicas * partitions;
    }
    return 1;
  }
  // The attributes stating the mode (before replica_groups).
  std::string ModeText() const {
    std::string text;
    if (channel_id > 0) absl::StrAppend(&text, ", channel_id=", channel_id);
    return text;
  }
  std::string GlobalText() const {
    return mode == Mode::kFlattened ? ", use_global_device_ids=true" : "";
  }
};

// Ops whose channel_id means cross-partition (text-format 6.11).
bool PartitionFamily(HloOpcode op) {
  return op == HloOpcode::kAllToAll || op == HloOpcode::kCollectivePermute ||
         op == HloOpcode::kCollectivePermuteStart ||
         op == HloOpcode::kCollectiveBroadcast ||
         op == HloOpcode::kRaggedAllToAll;
}

// Ops that may carry use_global_device_ids (spec/ops.def).
bool GlobalIdsAllowed(HloOpcode op) {
  return op == HloOpcode::kAllReduce || op == HloOpcode::kAllReduceStart ||
         op == HloOpcode::kAllGather || op == HloOpcode::kAllGatherStart ||
         op == HloOpcode::kReduceScatter;
}

Topology DrawTopology(HloOpcode op, Rng& rng) {
  Topology t;
  // Mostly 2..4 replicas (1 keeps the single-participant path covered);
  // sometimes two partitions.
  const uint64_t r = rng.Below(10);
  t.replicas = r == 0 ? 1 : (r < 4 ? 2 : (r < 7 ? 3 : 4));
  if (rng.Chance(0.3)) t.partitions = 2;
  if (t.partitions == 2 && t.replicas > 2 && rng.Chance(0.5)) t.replicas = 2;
  const uint64_t m = rng.Below(op == HloOpcode::kCollectivePermute ||
                                       op == HloOpcode::kCollectivePermuteStart
                                   ? 2
                                   : 3);
  // With one partition the cross-partition mode has a single id: every
  // participant is alone, so it is drawn rarely there.
  const bool lone = PartitionFamily(op) && t.partitions == 1;
  if (m == 0 || (lone && rng.Chance(0.8))) {
    t.mode = Mode::kCrossReplica;
  } else {
    t.channel_id = rng.Range(1, 5);
    if (PartitionFamily(op)) {
      t.mode = Mode::kCrossPartition;
    } else if (m == 2 && GlobalIdsAllowed(op)) {
      t.mode = Mode::kFlattened;
    } else {
      t.mode = Mode::kCrossReplicaAndPartition;
    }
  }
  return t;
}

struct Groups {
  std::string text;                       // "replica_groups=..."
  std::vector<std::vector<int64_t>> ids;  // resolved, in group order
};

std::string GroupsListText(const std::vector<std::vector<int64_t>>& groups) {
  std::vector<std::string> parts;
  for (const auto& g : groups) parts.push_back(ListText(g));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

// Replica groups over ids 0..n-1 covering every id. `uniform`: all groups
// of one size (ops that split or concatenate by group size).
Groups DrawGroups(Rng& rng, int64_t n, bool uniform, bool allow_empty) {
  Groups g;
  const uint64_t form = rng.Below(allow_empty ? 4 : 3);
  if (form == 3 || (n == 1 && allow_empty && rng.Chance(0.5))) {
    g.text = "replica_groups={}";
    std::vector<int64_t> all(n);
    std::iota(all.begin(), all.end(), 0);
    g.ids.push_back(all);
    return g;
  }
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d == 0) divisors.push_back(d);
  }
  const int64_t size = divisors[rng.Below(divisors.size())];
  const int64_t count = n / size;
  if (form == 0) {
    // iota: rows of iota(n) reshaped [count, size], or with the transpose
    // form the columns of iota(n) reshaped [size, count].
    const bool transpose = count > 1 && size > 1 && rng.Chance(0.5);
    for (int64_t i = 0; i < count; ++i) {
      std::vector<int64_t> group;
      for (int64_t j = 0; j < size; ++j) {
        group.push_back(transpose ? j * count + i : i * size + j);
      }
      g.ids.push_back(group);
    }
    g.text = transpose ? absl::StrCat("replica_groups=[", count, ",", size,
                                      "]<=[", size, ",", count, "]T(1,0)")
                       : absl::StrCat("replica_groups=[", count, ",", size,
                                      "]<=[", n, "]");
    return g;
  }
  // Explicit groups: a random order of the ids cut into groups (equal
  // sizes, or random sizes where the op allows).
  const std::vector<int64_t> order = Permutation(rng, n);
  size_t at = 0;
  while (at < order.size()) {
    const int64_t left = static_cast<int64_t>(order.size() - at);
    const int64_t take = uniform ? size : rng.Range(1, left);
    g.ids.emplace_back(order.begin() + at, order.begin() + at + take);
    at += static_cast<size_t>(take);
  }
  g.text = absl::StrCat("replica_groups=", GroupsListText(g.ids));
  return g;
}

// The participants (global ids, group order) of every meeting the groups
// make in the run: each group meets once per partition (cross-replica),
// per replica (cross-partition), with every partition of its replicas
// (cross-replica-and-partition) or once (flattened ids).
std::vector<std::vector<int64_t>> Meetings(const Topology& t,
                                           const Groups& groups) {
  std::vector<std::vector<int64_t>> out;
  const int64_t P = t.partitions;
  for (const auto& g : groups.ids) {
    switch (t.mode) {
      case Mode::kCrossReplica:
        for (int64_t p = 0; p < P; ++p) {
          std::vector<int64_t> m;
          for (int64_t r : g) m.push_back(r * P + p);
          out.push_back(m);
        }
        break;
      case Mode::kCrossPartition:
        for (int64_t r = 0; r < t.replicas; ++r) {
          std::vector<int64_t> m;
          for (int64_t p : g) m.push_back(r * P + p);
          out.push_back(m);
        }
        break;
      case Mode::kCrossReplicaAndPartition: {
        std::vector<int64_t> m;
        for (int64_t r : g) {
          for (int64_t p = 0; p < P; ++p) m.push_back(r * P + p);
        }
        out.push_back(m);
        break;
      }
      case Mode::kFlattened:
        out.push_back(g);
        break;
    }
  }
  return out;
}

// The number of shards one all-gather / reduce-scatter combines.
int64_t ShardCount(const Topology& t, const Groups& g) {
  const int64_t size = static_cast<int64_t>(g.ids[0].size());
  return t.mode == Mode::kCrossReplicaAndPartition ? size * t.partitions : size;
}

// Whether every partial sum of up to 8 integers in [-4, 4] is exact in
// `t` (at least 6 significant bits and room for 32): then any summation
// order gives the same result and an exact comparison is fair.
bool ExactSmallIntSums(PrimitiveType t) {
  if (IsComplex(t)) return true;  // c64 / c128 parts are f32 / f64
  if (!IsFloat(t)) return true;
  const FloatFormat& f = FormatOf(t);
  return f.has_sign && Precision(f) >= 6 && MaxFinite(f) >= 64;
}

// The reducers a type allows (the verifier checks the computation too).
// `sum_judged_exactly`: the oracle reports no S and m for this result, so
// a float sum is compared exactly; add is then only drawn on types where
// small-integer sums are exact in every order (see the file comment).
std::vector<std::string> ReducersFor(PrimitiveType t, bool sum_judged_exactly) {
  if (IsPred(t)) return {"and", "or", "maximum", "minimum"};
  if (IsComplex(t)) return {"add", "multiply"};
  if (IsFloat(t)) {
    if (sum_judged_exactly && !ExactSmallIntSums(t)) {
      return {"multiply", "maximum", "minimum"};
    }
    return {"add", "multiply", "maximum", "minimum"};
  }
  return {"add", "multiply", "maximum", "minimum", "and", "or"};
}

// Values a reduction of `reducer` over `t` is judged fairly on (see the
// file comment).
Fill ReductionFill(const std::string& reducer, PrimitiveType t,
                   bool sum_judged_exactly, Rng& rng) {
  if (reducer == "add") {
    if (IsComplex(t) || (IsFloat(t) && sum_judged_exactly)) {
      return Fill::kSmallInt;
    }
    if (IsFloat(t)) {
      return rng.Chance(0.3)
                 ? Fill::kSmallInt
                 : (rng.Chance(0.6) ? Fill::kFinite : Fill::kGeneral);
    }
    return Fill::kGeneral;  // integers wrap: exact in every order
  }
  if (reducer == "multiply" && (IsFloat(t) || IsComplex(t))) {
    return Fill::kSmallInt;
  }
  return Fill::kGeneral;
}

void SetTopology(Draw& d, const Topology& t) {
  d.replica_count = t.replicas;
  d.partition_count = t.partitions;
  d.per_participant_args = true;
}

std::string OperandList(int64_t n) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) names.push_back(absl::StrCat("p", i));
  return absl::StrJoin(names, ", ");
}

std::string TupleText(const std::vector<std::string>& shapes) {
  if (shapes.size() == 1) return shapes[0];
  return absl::StrCat("(", absl::StrJoin(shapes, ", "), ")");
}

// all-reduce, all-reduce-start/-done.
absl::StatusOr<Draw> DrawAllReduce(HloOpcode op, Rng& rng) {
  Draw d;
  const Topology t = DrawTopology(op, rng);
  SetTopology(d, t);
  const Groups g = DrawGroups(rng, t.ids(), /*uniform=*/false,
                              /*allow_empty=*/t.mode != Mode::kFlattened);
  const PrimitiveType type = DrawType(rng);
  // The oracle reports S and m for all-reduce (and -start) results but not
  // through all-reduce-done.
  const bool exact_sums = op != HloOpcode::kAllReduce;
  const std::vector<std::string> reducers = ReducersFor(type, exact_sums);
  const std::string reducer = reducers[rng.Below(reducers.size())];
  d.computations = BinaryComputation("reducer", reducer, type);
  // Variadic: one reducer for all operands, so they share the type.
  const int64_t operands = rng.Chance(0.75) ? 1 : rng.Range(2, 3);
  const Fill fill = ReductionFill(reducer, type, exact_sums, rng);
  std::vector<std::string> shapes;
  for (int64_t i = 0; i < operands; ++i) {
    std::vector<int64_t> dims = DrawDims(rng, 0, 3);
    ParamSpec p;
    p.shape = Shape::Array(type, dims);
    p.fill = fill;
    d.params.push_back(p);
    shapes.push_back(ShapeText(type, dims));
  }
  const std::string attrs = absl::StrCat(t.ModeText(), ", ", g.text,
                                         t.GlobalText(), ", to_apply=reducer");
  if (op == HloOpcode::kAllReduce) {
    d.op_text = absl::StrCat("all-reduce(", OperandList(operands), ")", attrs);
    return d;
  }
  // The async pair: a -start is only valid with its -done, so -start and
  // -done cases are both the pair (the root is the -done).
  d.prelude = absl::StrCat("  s = ", TupleText(shapes), " all-reduce-start(",
                           OperandList(operands), ")", attrs, "\n");
  d.op_text = "all-reduce-done(s)";
  return d;
}

// all-gather, all-gather-start/-done.
absl::StatusOr<Draw> DrawAllGather(HloOpcode op, Rng& rng) {
  Draw d;
  const Topology t = DrawTopology(op, rng);
  SetTopology(d, t);
  const Groups g = DrawGroups(rng, t.ids(), /*uniform=*/true,
                              /*allow_empty=*/t.mode != Mode::kFlattened);
  const PrimitiveType type = DrawType(rng);
  const int64_t operands = rng.Chance(0.8) ? 1 : 2;
  std::vector<int64_t> first = DrawDims(rng, 1, 3);
  const int64_t dim = rng.Range(0, static_cast<int64_t>(first.size()) - 1);
  const int64_t shards = ShardCount(t, g);
  std::vector<std::string> in_shapes, out_shapes;
  for (int64_t i = 0; i < operands; ++i) {
    // Every operand needs the gathered dimension; the others may differ.
    std::vector<int64_t> dims = i == 0 ? first : DrawDims(rng, 1, 3);
    if (static_cast<int64_t>(dims.size()) <= dim) dims.resize(dim + 1, 2);
    ParamSpec p;
    p.shape = Shape::Array(type, dims);
    d.params.push_back(p);
    in_shapes.push_back(ShapeText(type, dims));
    std::vector<int64_t> out = dims;
    out[dim] *= shards;
    out_shapes.push_back(ShapeText(type, out));
  }
  const std::string attrs = absl::StrCat(
      t.ModeText(), ", ", g.text, ", dimensions={", dim, "}", t.GlobalText());
  if (op == HloOpcode::kAllGather) {
    d.op_text = absl::StrCat("all-gather(", OperandList(operands), ")", attrs);
    return d;
  }
  const std::string start_shape =
      absl::StrCat("(", TupleText(in_shapes), ", ", TupleText(out_shapes), ")");
  d.prelude = absl::StrCat("  s = ", start_shape, " all-gather-start(",
                           OperandList(operands), ")", attrs, "\n");
  d.op_text = "all-gather-done(s)";
  return d;
}

absl::StatusOr<Draw> DrawReduceScatter(HloOpcode op, Rng& rng) {
  Draw d;
  const Topology t = DrawTopology(op, rng);
  SetTopology(d, t);
  const Groups g = DrawGroups(rng, t.ids(), /*uniform=*/true,
                              /*allow_empty=*/t.mode != Mode::kFlattened);
  const PrimitiveType type = DrawType(rng);
  // The oracle reports no S and m for reduce-scatter's sliced result.
  const std::vector<std::string> reducers =
      ReducersFor(type, /*sum_judged_exactly=*/true);
  const std::string reducer = reducers[rng.Below(reducers.size())];
  d.computations = BinaryComputation("reducer", reducer, type);
  const int64_t shards = ShardCount(t, g);
  const int64_t operands = rng.Chance(0.8) ? 1 : 2;
  std::vector<int64_t> first = DrawDims(rng, 1, 3);
  const int64_t dim = rng.Range(0, static_cast<int64_t>(first.size()) - 1);
  const Fill fill =
      ReductionFill(reducer, type, /*sum_judged_exactly=*/true, rng);
  for (int64_t i = 0; i < operands; ++i) {
    std::vector<int64_t> dims = i == 0 ? first : DrawDims(rng, 1, 3);
    if (static_cast<int64_t>(dims.size()) <= dim) dims.resize(dim + 1, 1);
    // The scattered dimension splits into `shards` blocks of 0..3.
    dims[dim] = shards * (rng.Chance(0.1) ? 0 : rng.Range(1, 3));
    ParamSpec p;
    p.shape = Shape::Array(type, dims);
    p.fill = fill;
    d.params.push_back(p);
  }
  d.op_text = absl::StrCat("reduce-scatter(", OperandList(operands), ")",
                           t.ModeText(), ", ", g.text, ", dimensions={", dim,
                           "}", t.GlobalText(), ", to_apply=reducer");
  return d;
}

absl::StatusOr<Draw> DrawAllToAll(HloOpcode op, Rng& rng) {
  Draw d;
  const Topology t = DrawTopology(op, rng);
  SetTopology(d, t);
  const Groups g = DrawGroups(rng, t.ids(), /*uniform=*/true,
                              /*allow_empty=*/true);
  const PrimitiveType type = DrawType(rng);
  const int64_t n = static_cast<int64_t>(g.ids[0].size());
  std::vector<int64_t> dims = DrawDims(rng, 1, 3);
  if (rng.Chance(0.6)) {
    // Array form: the split (= concat) dimension splits into n blocks.
    const int64_t dim = rng.Range(0, static_cast<int64_t>(dims.size()) - 1);
    dims[dim] = n * (rng.Chance(0.1) ? 0 : rng.Range(1, 3));
    ParamSpec p;
    p.shape = Shape::Array(type, dims);
    d.params.push_back(p);
    d.op_text = absl::StrCat("all-to-all(p0)", t.ModeText(), ", ", g.text,
                             ", dimensions={", dim, "}");
    return d;
  }
  // Tuple form: one operand per participant of the group, all of one
  // shape (result element k is participant k's operand for this one).
  for (int64_t i = 0; i < n; ++i) {
    ParamSpec p;
    p.shape = Shape::Array(type, dims);
    d.params.push_back(p);
  }
  d.op_text = absl::StrCat("all-to-all(", OperandList(n), ")", t.ModeText(),
                           ", ", g.text);
  return d;
}

// collective-permute and its -start/-done: pairs over the mode's ids, some
// ids left without a source (their result is zeros).
absl::StatusOr<Draw> DrawCollectivePermute(HloOpcode op, Rng& rng) {
  Draw d;
  const Topology t = DrawTopology(op, rng);
  SetTopology(d, t);
  const int64_t n = t.ids();
  // A random permutation, or a rotation (every participant sends to
  // another one).
  std::vector<int64_t> targets = Permutation(rng, n);
  if (n > 1 && rng.Chance(0.5)) {
    const int64_t shift = rng.Range(1, n - 1);
    for (int64_t s = 0; s < n; ++s) targets[s] = (s + shift) % n;
  }
  std::vector<std::string> pairs;
  for (int64_t s = 0; s < n; ++s) {
    // About a quarter of the sources send nothing, so their targets (and
    // ids in no pair) receive zeros.
    if (n > 1 && rng.Chance(0.25)) continue;
    pairs.push_back(absl::StrCat("{", s, ",", targets[s], "}"));
  }
  const PrimitiveType type = DrawType(rng);
  const int64_t operands = rng.Chance(0.8) ? 1 : 2;
  std::vector<std::string> shapes;
  for (int64_t i = 0; i < operands; ++i) {
    std::vector<int64_t> dims = DrawDims(rng, 0, 3);
    ParamSpec p;
    p.shape = Shape::Array(type, dims);
    d.params.push_back(p);
    shapes.push_back(ShapeText(type, dims));
  }
  const std::string attrs = absl::StrCat(
      t.ModeText(), ", source_target_pairs={", absl::StrJoin(pairs, ","), "}");
  const std::string name = op == HloOpcode::kCollectivePermute
                               ? "collective-permute"
                               : "collective-permute-start";
  if (op == HloOpcode::kCollectivePermute) {
    d.op_text = absl::StrCat(name, "(", OperandList(operands), ")", attrs);
    return d;
  }
  // (operand, result, context...): the context is 0..2 u32[] values.
  const std::string value = TupleText(shapes);
  std::string start_shape = absl::StrCat("(", value, ", ", value);
  const int64_t context = rng.Range(0, 2);
  for (int64_t i = 0; i < context; ++i)
    absl::StrAppend(&start_shape, ", u32[]");
  absl::StrAppend(&start_shape, ")");
  const std::string start =
      absl::StrCat(name, "(", OperandList(operands), ")", attrs);
  d.prelude = absl::StrCat("  s = ", start_shape, " ", start, "\n");
  d.op_text = "collective-permute-done(s)";
  return d;
}

absl::StatusOr<Draw> DrawCollectiveBroadcast(HloOpcode op, Rng& rng) {
  Draw d;
  const Topology t = DrawTopology(op, rng);
  SetTopology(d, t);
  const Groups g = DrawGroups(rng, t.ids(), /*uniform=*/false,
                              /*allow_empty=*/true);
  const PrimitiveType type = DrawType(rng);
  const int64_t operands = rng.Chance(0.8) ? 1 : 2;
  for (int64_t i = 0; i < operands; ++i) {
    ParamSpec p;
    p.shape = Shape::Array(type, DrawDims(rng, 0, 3));
    d.params.push_back(p);
  }
  d.op_text = absl::StrCat("collective-broadcast(", OperandList(operands), ")",
                           t.ModeText(), ", ", g.text);
  return d;
}

absl::StatusOr<Draw> DrawId(HloOpcode op, Rng& rng) {
  Draw d;
  const Topology t = DrawTopology(op, rng);
  SetTopology(d, t);
  d.per_participant_args = false;  // no parameters
  d.op_text = op == HloOpcode::kReplicaId ? "replica-id()" : "partition-id()";
  d.type = PrimitiveType::kU32;
  return d;
}

// ragged-all-to-all: every participant's offsets and sizes are built
// together so that they agree (recv_sizes match the senders' send_sizes,
// slices stay inside the buffers, no two slices overlap in a receiver);
// the data-dependent undefined cases are the oracle's to report, not a
// generator's to draw.
absl::StatusOr<Draw> DrawRaggedAllToAll(HloOpcode op, Rng& rng) {
  Draw d;
  const Topology t = DrawTopology(op, rng);
  SetTopology(d, t);
  const Groups g = DrawGroups(rng, t.ids(), /*uniform=*/false,
                              /*allow_empty=*/true);
  const std::vector<std::vector<int64_t>> meetings = Meetings(t, g);
  const int64_t participants = t.replicas * t.partitions;
  // Entries per peer; every meeting's group size n gives n * per_peer
  // entries, and the offset arrays have one static shape: equal group
  // sizes are needed, else redraw.
  const int64_t n = static_cast<int64_t>(meetings[0].size());
  for (const auto& m : meetings) {
    if (static_cast<int64_t>(m.size()) != n) {
      return absl::InvalidArgumentError("ragged groups of unequal sizes");
    }
  }
  const int64_t per_peer = rng.Chance(0.7) ? 1 : 2;
  const int64_t entries = n * per_peer;
  const int64_t max_size = rng.Chance(0.8) ? 2 : 4;
  // Per participant: input_offsets, send_sizes, output_offsets, recv_sizes.
  std::vector<std::vector<int64_t>> in_off(participants), send(participants),
      out_off(participants), recv(participants);
  std::vector<int64_t> in_need(participants, 0), out_need(participants, 0);
  for (const auto& m : meetings) {
    // sizes[s][e]: sender s's entry e (for receiver e / per_peer).
    std::vector<std::vector<int64_t>> sizes(n, std::vector<int64_t>(entries));
    for (auto& row : sizes) {
      for (int64_t& v : row) v = rng.Range(0, max_size);
    }
    for (int64_t s = 0; s < n; ++s) {
      const int64_t me = m[s];
      send[me] = sizes[s];
      in_off[me].assign(entries, 0);
      out_off[me].assign(entries, 0);
      recv[me].assign(entries, 0);
      // The sender's slices lie in its input in a random order, with
      // occasional gaps.
      int64_t at = 0;
      for (int64_t e : Permutation(rng, entries)) {
        at += rng.Chance(0.2) ? 1 : 0;
        in_off[me][e] = at;
        at += sizes[s][e];
      }
      in_need[me] = at;
    }
    for (int64_t p = 0; p < n; ++p) {
      const int64_t me = m[p];
      // Receiver p's incoming slices (sender s, k) in a random order.
      int64_t at = 0;
      for (int64_t slot : Permutation(rng, entries)) {
        const int64_t s = slot / per_peer, k = slot % per_peer;
        const int64_t e = p * per_peer + k;  // the sender's entry
        at += rng.Chance(0.2) ? 1 : 0;
        out_off[m[s]][e] = at;
        at += sizes[s][e];
        recv[me][s * per_peer + k] = sizes[s][e];
      }
      out_need[me] = at;
    }
  }
  const int64_t in_rows =
      *std::max_element(in_need.begin(), in_need.end()) + rng.Range(0, 1);
  const int64_t out_rows =
      *std::max_element(out_need.begin(), out_need.end()) + rng.Range(0, 1);
  const PrimitiveType type = DrawType(rng);
  const PrimitiveType index_type =
      rng.Chance(0.5) ? PrimitiveType::kS32 : PrimitiveType::kS64;
  std::vector<int64_t> rows = DrawDims(rng, 0, 2);
  for (int64_t& r : rows) r = std::min<int64_t>(r, 4);
  std::vector<int64_t> in_dims = {in_rows}, out_dims = {out_rows};
  in_dims.insert(in_dims.end(), rows.begin(), rows.end());
  out_dims.insert(out_dims.end(), rows.begin(), rows.end());
  ParamSpec input, output, index;
  input.shape = Shape::Array(type, in_dims);
  output.shape = Shape::Array(type, out_dims);
  index.shape = Shape::Array(index_type, {entries});
  d.params = {input, output, index, index, index, index};
  const std::vector<std::vector<int64_t>>* arrays[] = {&in_off, &send, &out_off,
                                                       &recv};
  for (int64_t who = 0; who < participants; ++who) {
    for (int64_t k = 0; k < 4; ++k) {
      Literal lit(index.shape);
      for (int64_t e = 0; e < entries; ++e) {
        lit.SetFromInt64(e, (*arrays[k])[who][e]);
      }
      d.fixed_values[{who, k + 2}] = std::move(lit);
    }
  }
  d.op_text = absl::StrCat("ragged-all-to-all(p0, p1, p2, p3, p4, p5)",
                           t.ModeText(), ", ", g.text);
  return d;
}

}  // namespace

absl::StatusOr<Draw> GenerateCollectives(HloOpcode op, Rng& rng) {
  switch (op) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
      return DrawAllReduce(op, rng);
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
      return DrawAllGather(op, rng);
    case HloOpcode::kReduceScatter:
      return DrawReduceScatter(op, rng);
    case HloOpcode::kAllToAll:
      return DrawAllToAll(op, rng);
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
      return DrawCollectivePermute(op, rng);
    case HloOpcode::kCollectiveBroadcast:
      return DrawCollectiveBroadcast(op, rng);
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return DrawId(op, rng);
    case HloOpcode::kRaggedAllToAll:
      return DrawRaggedAllToAll(op, rng);
    default:
      return absl::UnimplementedError(absl::StrCat(
          "no collectives generator for '", HloOpcodeString(op), "'"));
  }
}

}  // namespace hloref::conformance::gen
