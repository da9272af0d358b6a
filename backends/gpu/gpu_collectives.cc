#include "backends/gpu/gpu_collectives.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/codegen/collectives.h"
#include "backends/codegen/ir_value.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "spec/ir/collective_groups.h"
#include "spec/types/primitive_type.h"
#include "spec/util/status_macros.h"

namespace hloref::gpu {
namespace {

using codegen::CollectiveOp;
using codegen::EmitContext;
using codegen::IrArray;
using codegen::IrIndex;
using codegen::IrValue;

int64_t Align16(int64_t bytes) {
  return (std::max<int64_t>(bytes, 0) + 15) / 16 * 16;
}

Shape RowMajor(const Shape& s) {
  Shape r = s;
  r.clear_layout();
  return r;
}

IrValue ValueOf(const IrArray& a) {
  IrValue v;
  v.shape = a.shape();
  v.array = a;
  return v;
}

// The module-global exchange area, grown to at least `bytes` bytes (one
// area reused by every collective: the barrier after each exchange
// orders the reads before the next writes).
llvm::Value* ExchangeArea(EmitContext& ctx, int64_t bytes) {
  llvm::Module& m = ctx.module();
  llvm::GlobalVariable* old =
      m.getGlobalVariable(kCollectiveExchangeName, /*AllowInternal=*/true);
  if (old != nullptr &&
      static_cast<int64_t>(old->getValueType()->getArrayNumElements()) >=
          bytes) {
    return old;
  }
  auto* type =
      llvm::ArrayType::get(ctx.b().getInt8Ty(), std::max<int64_t>(bytes, 16));
  // Address space 0: NVPTX's generic-to-global pass places it in global
  // memory; the host emulation uses it as it is.
  auto* g = new llvm::GlobalVariable(m, type, /*isConstant=*/false,
                                     llvm::GlobalValue::InternalLinkage,
                                     llvm::Constant::getNullValue(type), "");
  g->setAlignment(llvm::Align(16));
  if (old != nullptr) {
    old->replaceAllUsesWith(g);
    old->eraseFromParent();
  }
  g->setName(kCollectiveExchangeName);
  return g;
}

// table[i] for an i64 index, as i64 (a constant i64 global).
llvm::Value* LoadTable(EmitContext& ctx, const std::vector<int64_t>& table,
                       llvm::Value* i, const std::string& name) {
  std::vector<uint64_t> u(table.begin(), table.end());
  if (u.empty()) u.push_back(0);
  llvm::Constant* init = llvm::ConstantDataArray::get(ctx.context(), u);
  auto* g = new llvm::GlobalVariable(
      ctx.module(), init->getType(),
      /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage, init, name);
  codegen::IRBuilder& b = ctx.b();
  return b.CreateLoad(b.getInt64Ty(),
                      b.CreateInBoundsGEP(b.getInt64Ty(), g, {i}), name);
}

// What every participant's exchange resolves to at compile time.
struct Plan {
  // Per participant: the global ids of its group in group order (or, for
  // collective-permute, the one participant it receives from, or none),
  // its position there, or the error it reports instead.
  std::vector<std::vector<int64_t>> groups;
  std::vector<int64_t> index;
  std::vector<int64_t> source;
  std::vector<absl::Status> error;
};

// The CPU runtime's shape checks of one participant's group of `n`.
absl::Status CheckShapes(const HloInstruction& inst, CollectiveOp op, int64_t n,
                         int64_t dim, const std::vector<IrArray>& in,
                         const std::vector<IrArray>& out) {
  switch (op) {
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllGather:
    case CollectiveOp::kAllToAllArray: {
      std::vector<std::vector<int64_t>> in_dims, out_dims;
      for (const IrArray& a : in) {
        in_dims.emplace_back(a.shape().dimensions().begin(),
                             a.shape().dimensions().end());
      }
      for (const IrArray& a : out) {
        out_dims.emplace_back(a.shape().dimensions().begin(),
                              a.shape().dimensions().end());
      }
      return CheckCollectiveGroupShapes(
          op == CollectiveOp::kReduceScatter
              ? CollectiveShapeRule::kReduceScatter
          : op == CollectiveOp::kAllGather ? CollectiveShapeRule::kAllGather
                                           : CollectiveShapeRule::kAllToAll,
          n, dim, in_dims, out_dims, inst.name());
    }
    case CollectiveOp::kAllToAllTuple:
      if (static_cast<int64_t>(in.size()) != n) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", inst.name(), ": the tuple form has ", in.size(),
            " operands, expected one per participant of the group (", n, ")"));
      }
      for (size_t i = 0; i < in.size(); ++i) {
        if (!(RowMajor(in[i].shape()) == RowMajor(in[0].shape())) ||
            out.size() != in.size() ||
            !(RowMajor(out[i].shape()) == RowMajor(in[0].shape()))) {
          return absl::InvalidArgumentError(absl::StrCat(
              "%", inst.name(), ": all-to-all operands of different shapes"));
        }
      }
      return absl::OkStatus();
    case CollectiveOp::kRaggedAllToAll: {
      const int64_t entries = in[2].shape().num_elements();
      if (entries % n != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", inst.name(), ": the offset and size arrays have ", entries,
            " entries, not a multiple of the group size ", n));
      }
      return absl::OkStatus();
    }
    default:
      return absl::OkStatus();
  }
}

// ragged-all-to-all's input and output rows must hold the same elements
// (the CPU runtime compares their bytes).
absl::Status CheckRaggedRows(const HloInstruction& inst,
                             const std::vector<IrArray>& in) {
  const Shape& input = in[0].shape();
  const Shape& output = in[1].shape();
  if (input.rank() == 0 || output.rank() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": ragged-all-to-all of a scalar"));
  }
  const std::vector<int64_t> a(input.dimensions().begin() + 1,
                               input.dimensions().end());
  const std::vector<int64_t> b(output.dimensions().begin() + 1,
                               output.dimensions().end());
  if (input.dimensions(0) > 0 && output.dimensions(0) > 0 &&
      (a != b || input.element_type() != output.element_type())) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": input and output rows differ"));
  }
  return absl::OkStatus();
}

// Element i (i64) of an integer array of offsets or sizes, as i64.
llvm::Value* LoadInt(EmitContext& ctx, const IrArray& flat, llvm::Value* i) {
  codegen::IRBuilder& b = ctx.b();
  llvm::Value* v = flat.EmitRead(ctx, {i});
  const PrimitiveType t = flat.element_type();
  const bool is_signed = t == PrimitiveType::kS32 || t == PrimitiveType::kS64;
  return is_signed ? b.CreateSExt(v, b.getInt64Ty())
                   : b.CreateZExt(v, b.getInt64Ty());
}

// ragged-all-to-all as the CPU runtime computes it: the result starts as
// the output operand; for each participant s of the group in order and
// each of its per_peer entries k for this participant (entry e = my index
// * per_peer + k of s's arrays), rows [off, off + size) of s's input go
// to rows [to, to + size), after the checks of impl.ragged-all-to-all.1
// (in range), .2 (recv_sizes[s * per_peer + k] == size) and .3 (no output
// row written by two slices), each an OutOfRange run-time error (the
// first one found, in the CPU runtime's order, is the run's).
template <typename Contribution, typename Member>
absl::Status EmitRagged(EmitContext& ctx, const HloInstruction& inst,
                        const std::vector<IrArray>& in, const IrArray& o,
                        llvm::Value* me, llvm::Value* n, llvm::Value* my_index,
                        const Contribution& contribution,
                        const Member& member) {
  codegen::IRBuilder& b = ctx.b();
  HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(ValueOf(in[1]), ValueOf(o)));
  const int64_t entries = in[2].shape().num_elements();
  const int64_t in_rows = in[0].shape().dimensions(0);
  const int64_t out_rows = o.shape().dimensions(0);
  llvm::Value* per_peer = b.CreateUDiv(b.getInt64(entries), n);
  auto flat = [&](llvm::Value* q, size_t i) {
    const IrArray a = contribution(q, i);
    return IrArray(a.base(),
                   Shape(a.element_type(), {a.shape().num_elements()}));
  };
  // Participant q's slice for entry e: (off, size, to).
  struct Slice {
    llvm::Value *off, *size, *to;
  };
  auto slice = [&](llvm::Value* q, llvm::Value* e) {
    return Slice{LoadInt(ctx, flat(q, 2), e), LoadInt(ctx, flat(q, 3), e),
                 LoadInt(ctx, flat(q, 4), e)};
  };
  if (!ctx.report_error_code) {
    return absl::InternalError(absl::StrCat(
        "%", inst.name(), ": ragged-all-to-all outside the serial entry"));
  }
  const std::string name(inst.name());
  auto report = [&](const std::string& message) {
    ctx.report_error_code(ctx, absl::StatusCode::kOutOfRange,
                          absl::StrCat("%", name, ": ", message));
  };
  llvm::Value* overlap = ctx.EntryAlloca(b.getInt1Ty(), 1, "ragged.overlap");
  const Shape row_shape(o.element_type(),
                        std::vector<int64_t>(o.shape().dimensions().begin() + 1,
                                             o.shape().dimensions().end()));
  return ctx.EmitForLoop(
      "ragged.s", b.getInt64(0), n, b.getInt64(1),
      [&](llvm::Value* s) -> absl::Status {
        llvm::Value* q = member(s);
        return ctx.EmitForLoop(
            "ragged.k", b.getInt64(0), per_peer, b.getInt64(1),
            [&](llvm::Value* k) -> absl::Status {
              llvm::Value* e = b.CreateAdd(b.CreateMul(my_index, per_peer), k);
              llvm::Value* r = b.CreateAdd(b.CreateMul(s, per_peer), k);
              const Slice x = slice(q, e);
              llvm::Value* zero = b.getInt64(0);
              llvm::Value* bad = b.CreateOr(
                  b.CreateOr(b.CreateICmpSLT(x.off, zero),
                             b.CreateICmpSLT(x.size, zero)),
                  b.CreateOr(
                      b.CreateICmpSLT(x.to, zero),
                      b.CreateOr(
                          b.CreateICmpSGT(
                              x.off, b.CreateSub(b.getInt64(in_rows), x.size)),
                          b.CreateICmpSGT(
                              x.to,
                              b.CreateSub(b.getInt64(out_rows), x.size)))));
              HLOREF_RETURN_IF_ERROR(ctx.EmitIf(bad, [&]() {
                report(
                    "a participant sends rows outside its input or to rows "
                    "outside the output (impl.ragged-all-to-all.1)");
                return absl::OkStatus();
              }));
              // recv_sizes: this participant's own operand 5.
              llvm::Value* recv = LoadInt(ctx, flat(me, 5), r);
              llvm::Value* ok = b.CreateNot(bad);
              HLOREF_RETURN_IF_ERROR(ctx.EmitIf(
                  b.CreateAnd(ok, b.CreateICmpNE(recv, x.size)), [&]() {
                    report(
                        "recv_sizes differs from the rows its sender sends "
                        "(impl.ragged-all-to-all.2)");
                    return absl::OkStatus();
                  }));
              ok = b.CreateAnd(ok, b.CreateICmpEQ(recv, x.size));
              return ctx.EmitIf(ok, [&]() -> absl::Status {
                // Rows an earlier slice (s2, k2) wrote.
                b.CreateStore(b.getFalse(), overlap);
                HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
                    "ragged.s2", b.getInt64(0), b.CreateAdd(s, b.getInt64(1)),
                    b.getInt64(1), [&](llvm::Value* s2) -> absl::Status {
                      llvm::Value* q2 = member(s2);
                      llvm::Value* k_end =
                          b.CreateSelect(b.CreateICmpEQ(s2, s), k, per_peer);
                      return ctx.EmitForLoop(
                          "ragged.k2", b.getInt64(0), k_end, b.getInt64(1),
                          [&](llvm::Value* k2) -> absl::Status {
                            const Slice y = slice(
                                q2, b.CreateAdd(b.CreateMul(my_index, per_peer),
                                                k2));
                            llvm::Value* hit = b.CreateAnd(
                                b.CreateAnd(b.CreateICmpSGT(x.size, zero),
                                            b.CreateICmpSGT(y.size, zero)),
                                b.CreateAnd(
                                    b.CreateICmpSLT(x.to,
                                                    b.CreateAdd(y.to, y.size)),
                                    b.CreateICmpSLT(
                                        y.to, b.CreateAdd(x.to, x.size))));
                            b.CreateStore(
                                b.CreateOr(b.CreateLoad(b.getInt1Ty(), overlap),
                                           hit),
                                overlap);
                            return absl::OkStatus();
                          });
                    }));
                llvm::Value* twice = b.CreateLoad(b.getInt1Ty(), overlap);
                HLOREF_RETURN_IF_ERROR(ctx.EmitIf(twice, [&]() {
                  report(
                      "a row of the output is written by two slices: the "
                      "write order is unspecified (impl.ragged-all-to-all.3)");
                  return absl::OkStatus();
                }));
                const IrArray src = contribution(q, 0);
                return ctx.EmitIf(b.CreateNot(twice), [&]() -> absl::Status {
                  return ctx.EmitForLoop(
                      "ragged.row", b.getInt64(0), x.size, b.getInt64(1),
                      [&](llvm::Value* row) -> absl::Status {
                        return ctx.EmitLoopNest(
                            row_shape, "ragged.element",
                            [&](const IrIndex& inner) -> absl::Status {
                              IrIndex from{b.CreateAdd(x.off, row)};
                              IrIndex to{b.CreateAdd(x.to, row)};
                              from.insert(from.end(), inner.begin(),
                                          inner.end());
                              to.insert(to.end(), inner.begin(), inner.end());
                              o.EmitWrite(ctx, to, src.EmitRead(ctx, from));
                              return absl::OkStatus();
                            });
                      });
                });
              });
            });
      });
}

absl::StatusOr<Plan> MakePlan(const GpuCollectiveTarget& t,
                              const HloInstruction& inst, CollectiveOp op,
                              int64_t dim, const std::vector<IrArray>& in,
                              const std::vector<IrArray>& out) {
  const int64_t count = t.replicas * t.partitions;
  const std::string where = absl::StrCat("%", inst.name(), ": ");
  HLOREF_ASSIGN_OR_RETURN(CollectiveGroupMode mode,
                          CollectiveGroupModeOf(inst, where));
  Plan plan;
  plan.groups.resize(count);
  plan.index.assign(count, 0);
  plan.source.assign(count, -1);
  plan.error.resize(count);
  for (int64_t me = 0; me < count; ++me) {
    DeviceTopology topo;
    topo.replicas = t.replicas;
    topo.partitions = t.partitions;
    topo.replica = me / t.partitions;
    topo.partition = me % t.partitions;
    if (op == CollectiveOp::kCollectivePermute) {
      // channel_id means partition ids (as the CPU runtime).
      absl::StatusOr<CollectivePermutePeers> peers = ResolveCollectivePermute(
          inst.attrs().source_target_pairs,
          HasCollectiveChannel(inst) && inst.attrs().channel_id > 0, topo,
          where);
      if (peers.ok()) {
        plan.source[me] = peers->source;
      } else {
        plan.error[me] = peers.status();
      }
      continue;
    }
    absl::StatusOr<std::vector<int64_t>> group = ResolveCollectiveGroup(
        mode, inst.attrs().replica_groups.groups, topo, where);
    if (!group.ok()) {
      plan.error[me] = group.status();
      continue;
    }
    auto pos = std::find(group->begin(), group->end(), me);
    if (pos == group->end()) {
      plan.error[me] = absl::InternalError(
          absl::StrCat(where, "participant ", me, " is not in its own group {",
                       absl::StrJoin(*group, ","), "}"));
      continue;
    }
    plan.index[me] = pos - group->begin();
    plan.error[me] = CheckShapes(inst, op, static_cast<int64_t>(group->size()),
                                 dim, in, out);
    plan.groups[me] = *std::move(group);
  }
  return plan;
}

// One collective: contributions to the exchange area, a barrier, the
// results from the group's contributions, a barrier.
absl::Status EmitExchange(const GpuCollectiveTarget& t, EmitContext& ctx,
                          const HloInstruction& inst, CollectiveOp op,
                          const std::vector<IrArray>& in,
                          const std::vector<IrArray>& out, bool with_reducer) {
  int64_t dim = -1;
  if (op == CollectiveOp::kReduceScatter || op == CollectiveOp::kAllGather ||
      op == CollectiveOp::kAllToAllArray) {
    const auto& dims = inst.attrs().dimensions;
    if (dims.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "%", inst.name(), ": dimensions must name one dimension"));
    }
    dim = dims[0];
    for (const IrArray& a : in) {
      if (dim < 0 || dim >= a.shape().rank()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", inst.name(), ": dimension ", dim, " out of range"));
      }
    }
  }
  if (op == CollectiveOp::kRaggedAllToAll) {
    HLOREF_RETURN_IF_ERROR(CheckRaggedRows(inst, in));
  } else if (op != CollectiveOp::kAllToAllTuple && in.size() != out.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": ", in.size(), " operand arrays and ",
                     out.size(), " result arrays"));
  }
  HLOREF_ASSIGN_OR_RETURN(Plan plan, MakePlan(t, inst, op, dim, in, out));
  codegen::IRBuilder& b = ctx.b();
  llvm::Value* me = b.CreateZExt(t.participant(ctx), b.getInt64Ty(), "me");
  // A participant that cannot take part reports the CPU runtime's error;
  // then nobody exchanges (the decision is the same for every thread, so
  // the barriers stay matched).
  bool failed = false;
  for (size_t p = 0; p < plan.error.size(); ++p) {
    if (plan.error[p].ok()) continue;
    failed = true;
    if (!ctx.report_error_code) return plan.error[p];
    const absl::Status s = plan.error[p];
    HLOREF_RETURN_IF_ERROR(ctx.EmitIf(b.CreateICmpEQ(me, b.getInt64(p)), [&]() {
      ctx.report_error_code(ctx, s.code(), std::string(s.message()));
      return absl::OkStatus();
    }));
  }
  if (failed) return absl::OkStatus();

  const int64_t count = t.replicas * t.partitions;
  std::vector<int64_t> offsets;  // of each operand array in a slot
  int64_t slot_bytes = 0;
  for (const IrArray& a : in) {
    offsets.push_back(slot_bytes);
    slot_bytes += Align16(codegen::ArrayBytes(RowMajor(a.shape())));
  }
  slot_bytes = std::max<int64_t>(slot_bytes, 16);
  llvm::Value* area = ExchangeArea(ctx, count * slot_bytes);
  // Operand array i of participant q (i64) in row-major order.
  auto contribution = [&](llvm::Value* q, size_t i) {
    llvm::Value* at = b.CreateAdd(b.CreateMul(q, b.getInt64(slot_bytes)),
                                  b.getInt64(offsets[i]));
    return IrArray(b.CreateInBoundsGEP(b.getInt8Ty(), area, {at}),
                   RowMajor(in[i].shape()));
  };
  for (size_t i = 0; i < in.size(); ++i) {
    HLOREF_RETURN_IF_ERROR(
        ctx.EmitCopyValue(ValueOf(in[i]), ValueOf(contribution(me, i))));
  }
  t.barrier(ctx);

  // The group tables: members[me * width + k], size[me], index[me].
  size_t width = 1;
  for (const auto& g : plan.groups) width = std::max(width, g.size());
  std::vector<int64_t> members(count * width, 0), sizes(count), index(count);
  for (int64_t p = 0; p < count; ++p) {
    for (size_t k = 0; k < plan.groups[p].size(); ++k) {
      members[p * width + k] = plan.groups[p][k];
    }
    sizes[p] = static_cast<int64_t>(plan.groups[p].size());
  }
  const std::string name(inst.name());
  auto member = [&](llvm::Value* k) {
    return LoadTable(ctx, members,
                     b.CreateAdd(b.CreateMul(me, b.getInt64(width)), k),
                     absl::StrCat("coll.members.", name));
  };
  llvm::Value* n = nullptr;
  llvm::Value* my_index = nullptr;
  if (op != CollectiveOp::kCollectivePermute) {
    n = LoadTable(ctx, sizes, me, absl::StrCat("coll.size.", name));
    my_index =
        LoadTable(ctx, plan.index, me, absl::StrCat("coll.index.", name));
  }

  switch (op) {
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kReduceScatter: {
      llvm::Function* reducer = nullptr;
      const PrimitiveType type = inst.operand(0)->shape().element_type();
      if (with_reducer) {
        if (inst.to_apply() == nullptr) {
          return absl::InvalidArgumentError(
              absl::StrCat("%", inst.name(), ": has no to_apply computation"));
        }
        HLOREF_ASSIGN_OR_RETURN(
            reducer,
            codegen::CollectiveReducer(ctx, inst, *inst.to_apply(), type));
      }
      for (size_t i = 0; i < in.size(); ++i) {
        const Shape scalar = Shape::Scalar(in[i].element_type());
        const IrArray acc = ctx.AllocateValue(scalar, "coll.acc").array;
        const IrArray x = ctx.AllocateValue(scalar, "coll.x").array;
        const IrArray r = ctx.AllocateValue(scalar, "coll.r").array;
        llvm::Value* params = ctx.EntryAlloca(ctx.PtrType(), 2, "coll.params");
        llvm::Value* results =
            ctx.EntryAlloca(ctx.PtrType(), 1, "coll.results");
        b.CreateStore(acc.base(), params);
        b.CreateStore(x.base(),
                      b.CreateConstInBoundsGEP1_64(ctx.PtrType(), params, 1));
        b.CreateStore(r.base(), results);
        const IrArray& o = out[i];
        const bool scatter = op == CollectiveOp::kReduceScatter;
        HLOREF_RETURN_IF_ERROR(ctx.EmitLoopNest(
            o.shape(), "coll.fold", [&](const IrIndex& idx) -> absl::Status {
              IrIndex src = idx;
              if (scatter) {
                src[dim] = b.CreateAdd(
                    idx[dim],
                    b.CreateMul(my_index,
                                b.getInt64(o.shape().dimensions(dim))));
              }
              // The left fold f(...f(f(x_0, x_1), x_2)..., x_{n-1}).
              acc.EmitWrite(
                  ctx, {},
                  contribution(member(b.getInt64(0)), i).EmitRead(ctx, src));
              if (reducer != nullptr) {
                HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
                    "coll.k", b.getInt64(1), n, b.getInt64(1),
                    [&](llvm::Value* k) -> absl::Status {
                      x.EmitWrite(
                          ctx, {},
                          contribution(member(k), i).EmitRead(ctx, src));
                      b.CreateCall(reducer->getFunctionType(), reducer,
                                   {ctx.run_context(), params, results});
                      acc.EmitWrite(ctx, {}, r.EmitRead(ctx, {}));
                      return absl::OkStatus();
                    }));
              }
              o.EmitWrite(ctx, idx, acc.EmitRead(ctx, {}));
              return absl::OkStatus();
            }));
      }
      break;
    }
    case CollectiveOp::kAllGather:
      for (size_t i = 0; i < in.size(); ++i) {
        const IrArray& o = out[i];
        llvm::Value* extent = b.getInt64(in[i].shape().dimensions(dim));
        HLOREF_RETURN_IF_ERROR(ctx.EmitLoopNest(
            o.shape(), "coll.gather", [&](const IrIndex& idx) -> absl::Status {
              IrIndex src = idx;
              src[dim] = b.CreateURem(idx[dim], extent);
              llvm::Value* k = b.CreateUDiv(idx[dim], extent);
              o.EmitWrite(ctx, idx,
                          contribution(member(k), i).EmitRead(ctx, src));
              return absl::OkStatus();
            }));
      }
      break;
    case CollectiveOp::kAllToAllArray: {
      const IrArray& o = out[0];
      llvm::Value* block =
          b.CreateUDiv(b.getInt64(in[0].shape().dimensions(dim)), n);
      HLOREF_RETURN_IF_ERROR(ctx.EmitLoopNest(
          o.shape(), "coll.all_to_all",
          [&](const IrIndex& idx) -> absl::Status {
            IrIndex src = idx;
            src[dim] = b.CreateAdd(b.CreateMul(my_index, block),
                                   b.CreateURem(idx[dim], block));
            llvm::Value* k = b.CreateUDiv(idx[dim], block);
            o.EmitWrite(ctx, idx,
                        contribution(member(k), 0).EmitRead(ctx, src));
            return absl::OkStatus();
          }));
      break;
    }
    case CollectiveOp::kAllToAllTuple: {
      // Result k is operand `my_index` of the group's k-th participant
      // (every operand has the same shape, so operand j sits at
      // j * offsets[1] in a slot).
      const int64_t stride = in.size() > 1 ? offsets[1] : 0;
      for (size_t k = 0; k < out.size(); ++k) {
        llvm::Value* at = b.CreateGEP(
            b.getInt8Ty(), contribution(member(b.getInt64(k)), 0).base(),
            {b.CreateMul(my_index, b.getInt64(stride))});
        HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(
            ValueOf(IrArray(at, RowMajor(out[k].shape()))), ValueOf(out[k])));
      }
      break;
    }
    case CollectiveOp::kCollectivePermute: {
      // Zeros where nothing is received, else the source's operands.
      for (const IrArray& o : out) {
        b.CreateMemSet(o.base(), b.getInt8(0), b.getInt64(o.SizeInBytes()),
                       llvm::MaybeAlign(1));
      }
      llvm::Value* source =
          LoadTable(ctx, plan.source, me, absl::StrCat("coll.source.", name));
      HLOREF_RETURN_IF_ERROR(ctx.EmitIf(
          b.CreateICmpSGE(source, b.getInt64(0)), [&]() -> absl::Status {
            for (size_t i = 0; i < out.size(); ++i) {
              HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(
                  ValueOf(contribution(source, i)), ValueOf(out[i])));
            }
            return absl::OkStatus();
          }));
      break;
    }
    case CollectiveOp::kCollectiveBroadcast:
      for (size_t i = 0; i < out.size(); ++i) {
        HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(
            ValueOf(contribution(member(b.getInt64(0)), i)), ValueOf(out[i])));
      }
      break;
    case CollectiveOp::kRaggedAllToAll:
      HLOREF_RETURN_IF_ERROR(EmitRagged(ctx, inst, in, out[0], me, n, my_index,
                                        contribution, member));
      break;
  }
  t.barrier(ctx);
  return absl::OkStatus();
}

}  // namespace

void RegisterGpuCollectiveEmitters(codegen::EmitterTable& table,
                                   GpuCollectiveTarget target) {
  auto shared = std::make_shared<const GpuCollectiveTarget>(std::move(target));
  for (HloOpcode op : codegen::CollectiveFamilyOpcodes()) {
    table.SetBuffer(op, [shared](EmitContext& ctx, const HloInstruction& inst,
                                 absl::Span<const IrValue> operands,
                                 const IrValue& output) {
      return codegen::EmitCollectiveFamily(
          ctx, inst, operands, output,
          [shared](EmitContext& c, const HloInstruction& i, CollectiveOp op,
                   const std::vector<IrArray>& in,
                   const std::vector<IrArray>& out, bool with_reducer) {
            return EmitExchange(*shared, c, i, op, in, out, with_reducer);
          });
    });
  }
  // replica-id = participant / partitions, partition-id = participant %
  // partitions; one participant: both 0 (seed 001), a constant any kernel
  // can use.
  for (HloOpcode op : {HloOpcode::kReplicaId, HloOpcode::kPartitionId}) {
    const bool replica = op == HloOpcode::kReplicaId;
    table.SetElemental(
        op,
        [shared, replica](EmitContext& c, const HloInstruction& inst,
                          absl::Span<const codegen::ElementGenerator>)
            -> absl::StatusOr<codegen::ElementGenerator> {
          if (!inst.shape().IsArray() ||
              inst.shape().element_type() != PrimitiveType::kU32) {
            return absl::UnimplementedError(absl::StrCat(
                "%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
                " of shape ", inst.shape().ToString(false)));
          }
          EmitContext* ctx = &c;
          return codegen::ElementGenerator(
              [shared, replica,
               ctx](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
                codegen::IRBuilder& b = ctx->b();
                if (shared->replicas * shared->partitions == 1) {
                  return b.getInt32(0);
                }
                llvm::Value* me = shared->participant(*ctx);
                llvm::Value* p =
                    b.getInt32(static_cast<uint32_t>(shared->partitions));
                return replica ? b.CreateUDiv(me, p) : b.CreateURem(me, p);
              });
        });
  }
}

}  // namespace hloref::gpu
