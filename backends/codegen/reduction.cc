// The reduce family: reduce (single and variadic), reduce-window (variadic
// too), select-and-scatter, map and scan. Semantics are the oracle's
// (seed 001 "Reduce", "ReduceWindow", "SelectAndScatter", "Map";
// interpreter/ops/reduce.cc and scan.cc), restated here in IR:
//   * reduce: every output element is the sequential fold
//     f(...f(f(init, x0), x1)...) over the reduced elements in row-major
//     order of the reduced dimensions (ascending dimension numbers). The
//     reducer is called per element (EmitCallScalarComputation; LLVM
//     inlines it). For integers and min/max this is bit-exact; for float
//     add it is one summation order, within the class-A bound the
//     comparator applies (numerics.md 7.3); multiply likewise within the
//     product bound.
//   * reduce-window: the same fold over the window positions in row-major
//     order of the window; positions on padding or in base-dilation holes
//     are skipped (the fold never sees them, as the oracle does).
//   * select-and-scatter: output = init everywhere; source elements are
//     visited in row-major order; in each window the first in-bounds
//     position is selected, and select(selected, candidate) == false moves
//     the selection to the candidate (row-major window order); then
//     output[selected] = scatter(output[selected], source). Windows lying
//     entirely on padding scatter nothing.
//   * map: to_apply on the operands' elements at the same index.
//   * scan: steps t = 0..n-1 over position i = t (n-1-t when is_reverse);
//     each calls to_apply(x_0[i]..x_{I-1}[i], carries) and writes the O step
//     outputs at position i along the scan dimension; the result is the
//     outputs, then the final carries (the inits when n == 0).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {
namespace {

// Calls body(index) once per visited operand position; the position may
// be skipped by the visitor (padding), and the visitor may emit loops.
using PositionVisitor = std::function<absl::Status(
    const std::function<absl::Status(const IrIndex&)>& body)>;

absl::Status CheckArrayType(const Shape& shape, absl::string_view what) {
  if (!shape.IsArray() || !IsArrayType(shape.element_type())) {
    return absl::UnimplementedError(
        absl::StrCat(what, " has the non-array shape ", shape.ToString()));
  }
  return absl::OkStatus();
}

// The fold of N operands into N accumulators (initialised with `inits`)
// with `comp`, over the positions `visit` produces; returns the final
// accumulator values.
absl::StatusOr<std::vector<llvm::Value*>> EmitFold(
    EmitContext& ctx, const HloComputation& comp,
    absl::Span<const PrimitiveType> types, absl::Span<llvm::Value* const> inits,
    absl::Span<const ElementGenerator> inputs, const PositionVisitor& visit) {
  IRBuilder& b = ctx.b();
  const size_t n = types.size();
  std::vector<llvm::Value*> slots(n);
  std::vector<llvm::Type*> tys(n);
  for (size_t j = 0; j < n; ++j) {
    tys[j] = ComputeType(ctx.context(), types[j]);
    slots[j] = ctx.EntryAlloca(tys[j], 1, "acc");
    b.CreateStore(inits[j], slots[j]);
  }
  HLOREF_RETURN_IF_ERROR(visit([&](const IrIndex& pos) -> absl::Status {
    std::vector<llvm::Value*> args(2 * n);
    for (size_t j = 0; j < n; ++j) args[j] = b.CreateLoad(tys[j], slots[j]);
    for (size_t j = 0; j < n; ++j) {
      HLOREF_ASSIGN_OR_RETURN(args[n + j], inputs[j](pos));
    }
    HLOREF_ASSIGN_OR_RETURN(std::vector<llvm::Value*> r,
                            ctx.EmitCallScalarComputation(comp, args));
    if (r.size() != n) {
      return absl::InvalidArgumentError(absl::StrCat("reducer ", comp.name(),
                                                     " returns ", r.size(),
                                                     " values, expected ", n));
    }
    for (size_t j = 0; j < n; ++j) {
      if (r[j]->getType() != tys[j]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "reducer ", comp.name(), " result ", j, " has the wrong type"));
      }
      b.CreateStore(r[j], slots[j]);
    }
    return absl::OkStatus();
  }));
  std::vector<llvm::Value*> out(n);
  for (size_t j = 0; j < n; ++j) out[j] = b.CreateLoad(tys[j], slots[j]);
  return out;
}

// ---- reduce

// reduce and reduce-window take N inputs, then N init values, and a
// reducer: returns N after checking that every operand is an array of a
// type the emitters take.
absl::StatusOr<int64_t> VariadicInputCount(const HloInstruction& inst,
                                           absl::string_view op) {
  const int64_t count = inst.operand_count();
  if (count < 2 || count % 2 != 0 || inst.to_apply() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, " needs N operands, N init values and to_apply"));
  }
  for (int64_t j = 0; j < count; ++j) {
    HLOREF_RETURN_IF_ERROR(
        CheckArrayType(inst.operand(j)->shape(), absl::StrCat("operand ", j)));
  }
  return count / 2;
}

struct ReducePlan {
  int64_t n = 0;                 // operands
  std::vector<int64_t> reduced;  // ascending
  std::vector<int64_t> kept;     // ascending
  std::vector<int64_t> in_dims;  // operand dimensions
  std::vector<PrimitiveType> types;
};

absl::StatusOr<ReducePlan> PlanReduce(const HloInstruction& inst) {
  ReducePlan p;
  HLOREF_ASSIGN_OR_RETURN(p.n, VariadicInputCount(inst, "reduce"));
  const Shape& s0 = inst.operand(0)->shape();
  p.in_dims.assign(s0.dimensions().begin(), s0.dimensions().end());
  for (int64_t j = 0; j < p.n; ++j) {
    const Shape& s = inst.operand(j)->shape();
    const Shape& init = inst.operand(p.n + j)->shape();
    if (!(s.dimensions() == s0.dimensions()) || init.rank() != 0 ||
        init.element_type() != s.element_type()) {
      return absl::InvalidArgumentError(
          absl::StrCat("reduce operand ", j, " or its init does not match"));
    }
    p.types.push_back(s.element_type());
  }
  p.reduced = inst.attrs().dimensions;
  std::sort(p.reduced.begin(), p.reduced.end());
  std::vector<bool> is_reduced(p.in_dims.size(), false);
  for (int64_t d : p.reduced) {
    if (d < 0 || d >= s0.rank() || is_reduced[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("reduce dimension ", d, " is invalid"));
    }
    is_reduced[d] = true;
  }
  for (int64_t d = 0; d < s0.rank(); ++d) {
    if (!is_reduced[d]) p.kept.push_back(d);
  }
  std::vector<Shape> outs;
  CollectArrayShapes(inst.shape(), &outs);
  if (static_cast<int64_t>(outs.size()) != p.n) {
    return absl::InvalidArgumentError("reduce result has the wrong arity");
  }
  for (int64_t j = 0; j < p.n; ++j) {
    if (outs[j].element_type() != p.types[j] ||
        outs[j].rank() != static_cast<int64_t>(p.kept.size())) {
      return absl::InvalidArgumentError("reduce result shape mismatch");
    }
  }
  return p;
}

// Visits the reduced positions of output element `out` (row-major over the
// reduced dimensions).
PositionVisitor ReduceVisitor(EmitContext& ctx, const ReducePlan& p,
                              const IrIndex& out) {
  return
      [&ctx, &p, out](const std::function<absl::Status(const IrIndex&)>& body)
          -> absl::Status {
        IrIndex pos(p.in_dims.size(), nullptr);
        for (size_t k = 0; k < p.kept.size(); ++k) pos[p.kept[k]] = out[k];
        std::function<absl::Status(size_t)> nest = [&](size_t level) {
          if (level == p.reduced.size()) return body(pos);
          const int64_t d = p.reduced[level];
          if (p.in_dims[d] == 1) {
            pos[d] = ctx.I64(0);
            return nest(level + 1);
          }
          return ctx.EmitForLoop(absl::StrCat("reduce.d", d), ctx.I64(0),
                                 ctx.I64(p.in_dims[d]), ctx.I64(1),
                                 [&](llvm::Value* iv) -> absl::Status {
                                   pos[d] = iv;
                                   return nest(level + 1);
                                 });
        };
        return nest(0);
      };
}

absl::StatusOr<ElementGenerator> EmitReduceElemental(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (!inst.shape().IsArray()) {
    return absl::UnimplementedError("tuple-shaped reduce (buffer emitter)");
  }
  HLOREF_ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(inst));
  if (plan.n != 1) {
    return absl::UnimplementedError("variadic reduce (buffer emitter)");
  }
  std::vector<ElementGenerator> ops(operands.begin(), operands.end());
  const HloComputation* comp = inst.to_apply();
  return ElementGenerator(
      [&ctx, plan = std::move(plan), ops = std::move(ops),
       comp](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * init, ops[1](IrIndex{}));
        HLOREF_ASSIGN_OR_RETURN(
            std::vector<llvm::Value*> r,
            EmitFold(ctx, *comp, plan.types, {init}, {ops[0]},
                     ReduceVisitor(ctx, plan, index)));
        return r[0];
      });
}

ElementGenerator Reader(EmitContext& ctx, const IrArray& a) {
  return [&ctx, a](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
    return a.EmitRead(ctx, i);
  };
}

absl::Status EmitReduceBuffers(EmitContext& ctx, const HloInstruction& inst,
                               absl::Span<const IrValue> operands,
                               const IrValue& output) {
  HLOREF_ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(inst));
  std::vector<IrArray> outs;
  output.CollectArrays(&outs);
  std::vector<ElementGenerator> inputs;
  for (int64_t j = 0; j < plan.n; ++j) {
    inputs.push_back(Reader(ctx, operands[j].array));
  }
  return ctx.EmitLoopNest(
      outs[0].shape(), "reduce", [&](const IrIndex& index) -> absl::Status {
        std::vector<llvm::Value*> inits;
        for (int64_t j = 0; j < plan.n; ++j) {
          inits.push_back(operands[plan.n + j].array.EmitRead(ctx, {}));
        }
        HLOREF_ASSIGN_OR_RETURN(
            std::vector<llvm::Value*> r,
            EmitFold(ctx, *inst.to_apply(), plan.types, inits, inputs,
                     ReduceVisitor(ctx, plan, index)));
        for (int64_t j = 0; j < plan.n; ++j)
          outs[j].EmitWrite(ctx, index, r[j]);
        return absl::OkStatus();
      });
}

// ---- windows (reduce-window, select-and-scatter)

struct WindowPlan {
  std::vector<int64_t> in_dims;
  std::vector<WindowDimension> window;
};

absl::StatusOr<WindowPlan> PlanWindow(const HloInstruction& inst,
                                      const Shape& operand, const Shape& out) {
  WindowPlan p;
  p.in_dims.assign(operand.dimensions().begin(), operand.dimensions().end());
  p.window = inst.attrs().window.dimensions;
  const size_t rank = p.in_dims.size();
  if (p.window.size() != rank || out.rank() != static_cast<int64_t>(rank)) {
    return absl::InvalidArgumentError(
        "window rank does not match the operand's");
  }
  for (const WindowDimension& wd : p.window) {
    if (wd.stride < 1 || wd.base_dilation < 1 || wd.window_dilation < 1 ||
        wd.size < 0) {
      return absl::InvalidArgumentError("invalid window dimension");
    }
  }
  return p;
}

// Visits the in-bounds operand positions of window `out` (row-major over
// the window); `out` is the window's index (the output's or the source's).
PositionVisitor WindowVisitor(EmitContext& ctx, const WindowPlan& p,
                              const IrIndex& out) {
  return [&ctx, &p,
          out](const std::function<absl::Status(const IrIndex&)>& body)
             -> absl::Status {
    IRBuilder& b = ctx.b();
    const size_t rank = p.in_dims.size();
    IrIndex pos(rank, nullptr);
    std::vector<llvm::Value*> valid(rank, nullptr);
    std::function<absl::Status(size_t)> nest = [&](size_t d) -> absl::Status {
      if (d == rank) {
        llvm::Value* ok = nullptr;
        for (llvm::Value* v : valid) {
          if (v == nullptr) continue;
          ok = ok == nullptr ? v : b.CreateAnd(ok, v);
        }
        if (ok == nullptr) return body(pos);
        return ctx.EmitIf(
            ok, [&] { return body(pos); }, "window.valid");
      }
      const WindowDimension& wd = p.window[d];
      const int64_t dilated =
          p.in_dims[d] == 0 ? 0 : (p.in_dims[d] - 1) * wd.base_dilation + 1;
      auto at = [&](llvm::Value* w) -> absl::Status {
        // pos = o * stride + w * window_dilation - padding_low
        llvm::Value* v = b.CreateSub(
            b.CreateAdd(b.CreateMul(out[d], ctx.I64(wd.stride)),
                        b.CreateMul(w, ctx.I64(wd.window_dilation))),
            ctx.I64(wd.padding_low));
        llvm::Value* ok = b.CreateAnd(b.CreateICmpSGE(v, ctx.I64(0)),
                                      b.CreateICmpSLT(v, ctx.I64(dilated)));
        if (wd.base_dilation != 1) {
          ok = b.CreateAnd(
              ok, b.CreateICmpEQ(b.CreateSRem(v, ctx.I64(wd.base_dilation)),
                                 ctx.I64(0)));
          v = b.CreateSDiv(v, ctx.I64(wd.base_dilation));
        }
        pos[d] = v;
        valid[d] = ok;
        return nest(d + 1);
      };
      if (wd.size == 1) return at(ctx.I64(0));
      return ctx.EmitForLoop(absl::StrCat("window.d", d), ctx.I64(0),
                             ctx.I64(wd.size), ctx.I64(1), at);
    };
    return nest(0);
  };
}

struct ReduceWindowPlan {
  int64_t n = 0;
  std::vector<PrimitiveType> types;
  WindowPlan window;
};

absl::StatusOr<ReduceWindowPlan> PlanReduceWindow(const HloInstruction& inst) {
  ReduceWindowPlan p;
  HLOREF_ASSIGN_OR_RETURN(p.n, VariadicInputCount(inst, "reduce-window"));
  const Shape& s0 = inst.operand(0)->shape();
  for (int64_t j = 0; j < p.n; ++j) {
    const Shape& s = inst.operand(j)->shape();
    const Shape& init = inst.operand(p.n + j)->shape();
    if (!(s.dimensions() == s0.dimensions()) || init.rank() != 0 ||
        init.element_type() != s.element_type()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "reduce-window operand ", j, " or its init does not match"));
    }
    p.types.push_back(s.element_type());
  }
  std::vector<Shape> outs;
  CollectArrayShapes(inst.shape(), &outs);
  if (static_cast<int64_t>(outs.size()) != p.n) {
    return absl::InvalidArgumentError(
        "reduce-window result has the wrong arity");
  }
  for (int64_t j = 0; j < p.n; ++j) {
    if (outs[j].element_type() != p.types[j] ||
        !(outs[j].dimensions() == outs[0].dimensions())) {
      return absl::InvalidArgumentError("reduce-window result shape mismatch");
    }
  }
  HLOREF_ASSIGN_OR_RETURN(p.window, PlanWindow(inst, s0, outs[0]));
  return p;
}

absl::StatusOr<ElementGenerator> EmitReduceWindowElemental(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (!inst.shape().IsArray()) {
    return absl::UnimplementedError(
        "tuple-shaped reduce-window (buffer emitter)");
  }
  HLOREF_ASSIGN_OR_RETURN(ReduceWindowPlan plan, PlanReduceWindow(inst));
  if (plan.n != 1) {
    return absl::UnimplementedError("variadic reduce-window (buffer emitter)");
  }
  std::vector<ElementGenerator> ops(operands.begin(), operands.end());
  const HloComputation* comp = inst.to_apply();
  return ElementGenerator(
      [&ctx, plan = std::move(plan), ops = std::move(ops),
       comp](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * init, ops[1](IrIndex{}));
        HLOREF_ASSIGN_OR_RETURN(
            std::vector<llvm::Value*> r,
            EmitFold(ctx, *comp, plan.types, {init}, {ops[0]},
                     WindowVisitor(ctx, plan.window, index)));
        return r[0];
      });
}

absl::Status EmitReduceWindowBuffers(EmitContext& ctx,
                                     const HloInstruction& inst,
                                     absl::Span<const IrValue> operands,
                                     const IrValue& output) {
  HLOREF_ASSIGN_OR_RETURN(ReduceWindowPlan plan, PlanReduceWindow(inst));
  std::vector<IrArray> outs;
  output.CollectArrays(&outs);
  std::vector<ElementGenerator> inputs;
  for (int64_t j = 0; j < plan.n; ++j) {
    inputs.push_back(Reader(ctx, operands[j].array));
  }
  return ctx.EmitLoopNest(
      outs[0].shape(), "reduce_window",
      [&](const IrIndex& index) -> absl::Status {
        std::vector<llvm::Value*> inits;
        for (int64_t j = 0; j < plan.n; ++j) {
          inits.push_back(operands[plan.n + j].array.EmitRead(ctx, {}));
        }
        HLOREF_ASSIGN_OR_RETURN(
            std::vector<llvm::Value*> r,
            EmitFold(ctx, *inst.to_apply(), plan.types, inits, inputs,
                     WindowVisitor(ctx, plan.window, index)));
        for (int64_t j = 0; j < plan.n; ++j)
          outs[j].EmitWrite(ctx, index, r[j]);
        return absl::OkStatus();
      });
}

// A loop nest over every index of `dims` in row-major LOGICAL order
// (dimension 0 outermost).
absl::Status EmitRowMajorNest(
    EmitContext& ctx, absl::Span<const int64_t> dims, absl::string_view name,
    const std::function<absl::Status(const IrIndex&)>& body) {
  for (int64_t d : dims) {
    if (d == 0) return absl::OkStatus();
  }
  IrIndex index(dims.size(), nullptr);
  std::function<absl::Status(size_t)> nest = [&](size_t d) -> absl::Status {
    if (d == dims.size()) return body(index);
    if (dims[d] == 1) {
      index[d] = ctx.I64(0);
      return nest(d + 1);
    }
    return ctx.EmitForLoop(absl::StrCat(name, ".d", d), ctx.I64(0),
                           ctx.I64(dims[d]), ctx.I64(1),
                           [&](llvm::Value* iv) -> absl::Status {
                             index[d] = iv;
                             return nest(d + 1);
                           });
  };
  return nest(0);
}

absl::Status EmitSelectAndScatter(EmitContext& ctx, const HloInstruction& inst,
                                  absl::Span<const IrValue> operands,
                                  const IrValue& output) {
  if (inst.operand_count() != 3 || inst.select() == nullptr ||
      inst.scatter() == nullptr || !output.IsArray()) {
    return absl::InvalidArgumentError(
        "select-and-scatter needs operand, source, init, select and scatter");
  }
  for (int64_t j = 0; j < 3; ++j) {
    HLOREF_RETURN_IF_ERROR(
        CheckArrayType(inst.operand(j)->shape(), absl::StrCat("operand ", j)));
  }
  const IrArray& operand = operands[0].array;
  const IrArray& source = operands[1].array;
  const IrArray& init = operands[2].array;
  const IrArray& out = output.array;
  const PrimitiveType type = operand.element_type();
  if (source.element_type() != type || init.element_type() != type ||
      init.shape().rank() != 0 || out.element_type() != type) {
    return absl::InvalidArgumentError("select-and-scatter types do not match");
  }
  HLOREF_ASSIGN_OR_RETURN(WindowPlan plan,
                          PlanWindow(inst, operand.shape(), source.shape()));
  IRBuilder& b = ctx.b();
  // output = init.
  llvm::Value* init_value = init.EmitRead(ctx, {});
  HLOREF_RETURN_IF_ERROR(ctx.EmitLoopNest(
      out.shape(), "sas.init", [&](const IrIndex& index) -> absl::Status {
        out.EmitWrite(ctx, index, init_value);
        return absl::OkStatus();
      }));
  const size_t rank = plan.in_dims.size();
  llvm::Type* ct = ComputeType(ctx.context(), type);
  llvm::Value* have_slot = ctx.EntryAlloca(b.getInt1Ty(), 1, "sas.have");
  llvm::Value* value_slot = ctx.EntryAlloca(ct, 1, "sas.value");
  llvm::Value* index_slot =
      ctx.EntryAlloca(b.getInt64Ty(), std::max<size_t>(rank, 1), "sas.index");
  auto index_at = [&](size_t d) {
    return b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), index_slot, d);
  };
  const HloComputation& select = *inst.select();
  const HloComputation& scatter = *inst.scatter();
  const std::vector<int64_t> src_dims(source.shape().dimensions().begin(),
                                      source.shape().dimensions().end());
  return EmitRowMajorNest(
      ctx, src_dims, "sas", [&](const IrIndex& s) -> absl::Status {
        b.CreateStore(ctx.I1(false), have_slot);
        HLOREF_RETURN_IF_ERROR(WindowVisitor(
            ctx, plan, s)([&](const IrIndex& pos) -> absl::Status {
          llvm::Value* candidate = operand.EmitRead(ctx, pos);
          llvm::Value* have = b.CreateLoad(b.getInt1Ty(), have_slot);
          llvm::Value* current = b.CreateLoad(ct, value_slot);
          // Calls select only once a position is held; the first
          // in-bounds position is taken unconditionally.
          llvm::BasicBlock* pre = b.GetInsertBlock();
          llvm::Function* f = pre->getParent();
          llvm::BasicBlock* call_bb =
              llvm::BasicBlock::Create(ctx.context(), "sas.select", f);
          llvm::BasicBlock* join =
              llvm::BasicBlock::Create(ctx.context(), "sas.join", f);
          b.CreateCondBr(have, call_bb, join);
          b.SetInsertPoint(call_bb);
          HLOREF_ASSIGN_OR_RETURN(
              std::vector<llvm::Value*> keep,
              ctx.EmitCallScalarComputation(select, {current, candidate}));
          if (keep.size() != 1 || !keep[0]->getType()->isIntegerTy(1)) {
            return absl::InvalidArgumentError(
                "select computation must return pred[]");
          }
          llvm::Value* moves = b.CreateNot(keep[0]);
          llvm::BasicBlock* call_end = b.GetInsertBlock();
          b.CreateBr(join);
          b.SetInsertPoint(join);
          llvm::PHINode* take = b.CreatePHI(b.getInt1Ty(), 2, "sas.take");
          take->addIncoming(ctx.I1(true), pre);
          take->addIncoming(moves, call_end);
          return ctx.EmitIf(
              take,
              [&]() -> absl::Status {
                b.CreateStore(ctx.I1(true), have_slot);
                b.CreateStore(candidate, value_slot);
                for (size_t d = 0; d < rank; ++d) {
                  b.CreateStore(pos[d], index_at(d));
                }
                return absl::OkStatus();
              },
              "sas.take");
        }));
        llvm::Value* have = b.CreateLoad(b.getInt1Ty(), have_slot);
        return ctx.EmitIf(
            have,
            [&]() -> absl::Status {
              IrIndex sel(rank);
              for (size_t d = 0; d < rank; ++d) {
                sel[d] = b.CreateLoad(b.getInt64Ty(), index_at(d));
              }
              llvm::Value* current = out.EmitRead(ctx, sel);
              llvm::Value* src = source.EmitRead(ctx, s);
              HLOREF_ASSIGN_OR_RETURN(
                  std::vector<llvm::Value*> r,
                  ctx.EmitCallScalarComputation(scatter, {current, src}));
              if (r.size() != 1 || r[0]->getType() != ct) {
                return absl::InvalidArgumentError(
                    "scatter computation must return a scalar of the "
                    "operand type");
              }
              out.EmitWrite(ctx, sel, r[0]);
              return absl::OkStatus();
            },
            "sas.scatter");
      });
}

// ---- map

absl::StatusOr<ElementGenerator> EmitMap(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  const HloComputation* comp = inst.to_apply();
  if (comp == nullptr) return absl::InvalidArgumentError("map needs to_apply");
  HLOREF_RETURN_IF_ERROR(CheckArrayType(inst.shape(), "map result"));
  for (int64_t j = 0; j < inst.operand_count(); ++j) {
    HLOREF_RETURN_IF_ERROR(
        CheckArrayType(inst.operand(j)->shape(), absl::StrCat("operand ", j)));
    if (!(inst.operand(j)->shape().dimensions() == inst.shape().dimensions())) {
      return absl::InvalidArgumentError(
          "map operands must have the result's dimensions");
    }
  }
  if (comp->num_parameters() != inst.operand_count()) {
    return absl::InvalidArgumentError(
        "map's computation takes another number of parameters");
  }
  llvm::Type* want = ComputeType(ctx.context(), inst.shape().element_type());
  std::vector<ElementGenerator> ops(operands.begin(), operands.end());
  return ElementGenerator(
      [&ctx, comp, ops = std::move(ops),
       want](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        std::vector<llvm::Value*> args;
        for (const ElementGenerator& g : ops) {
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * v, g(index));
          args.push_back(v);
        }
        HLOREF_ASSIGN_OR_RETURN(std::vector<llvm::Value*> r,
                                ctx.EmitCallScalarComputation(*comp, args));
        if (r.size() != 1 || r[0]->getType() != want) {
          return absl::InvalidArgumentError(
              "map's computation must return one scalar of the result type");
        }
        return r[0];
      });
}

// ---- scan

// Copies element storage between `from` at `from_index(i)` and `to` at
// `to_index(i)` for every index i of `dims` (raw storage, no conversion).
absl::Status EmitRawCopy(EmitContext& ctx, const IrArray& from,
                         const IrArray& to, const Shape& iterate,
                         const std::function<IrIndex(const IrIndex&)>& from_ix,
                         const std::function<IrIndex(const IrIndex&)>& to_ix) {
  llvm::Type* st = StorageType(ctx.context(), from.element_type());
  return ctx.EmitLoopNest(
      iterate, "scan.copy", [&](const IrIndex& i) -> absl::Status {
        llvm::Value* v =
            ctx.b().CreateLoad(st, from.EmitElementPointer(ctx, from_ix(i)));
        ctx.b().CreateStore(v, to.EmitElementPointer(ctx, to_ix(i)));
        return absl::OkStatus();
      });
}

IrIndex InsertDim(const IrIndex& i, int64_t d, llvm::Value* v) {
  IrIndex r = i;
  r.insert(r.begin() + d, v);
  return r;
}

absl::Status EmitScan(EmitContext& ctx, const HloInstruction& inst,
                      absl::Span<const IrValue> operands,
                      const IrValue& output) {
  const HloComputation* comp = inst.to_apply();
  const int64_t carries = inst.attrs().num_carries;
  const int64_t count = inst.operand_count();
  const auto& dims = inst.attrs().dimensions;
  if (comp == nullptr || carries < 0 || carries >= count || dims.size() != 1 ||
      comp->num_parameters() != count) {
    return absl::InvalidArgumentError("malformed scan");
  }
  const int64_t inputs = count - carries;
  const int64_t d = dims[0];
  for (int64_t j = 0; j < count; ++j) {
    HLOREF_RETURN_IF_ERROR(
        CheckArrayType(inst.operand(j)->shape(), absl::StrCat("operand ", j)));
    HLOREF_RETURN_IF_ERROR(CheckArrayType(comp->parameter(j)->shape(),
                                          absl::StrCat("parameter ", j)));
  }
  const Shape& x0 = inst.operand(0)->shape();
  if (d < 0 || d >= x0.rank()) {
    return absl::InvalidArgumentError("scan dimension out of range");
  }
  const int64_t n = x0.dimensions(d);
  std::vector<IrValue> parts;
  if (inst.shape().IsTuple()) {
    parts = output.elements;
  } else {
    parts.push_back(output);
  }
  const int64_t outputs = static_cast<int64_t>(parts.size()) - carries;
  if (outputs < 0) return absl::InvalidArgumentError("scan result too small");
  for (const IrValue& p : parts) {
    if (!p.IsArray()) {
      return absl::UnimplementedError("scan parts that are not arrays");
    }
  }
  // The step result, in to_apply's root layout.
  const Shape& root_shape = comp->root()->shape();
  std::vector<Shape> step_shapes;
  CollectArrayShapes(root_shape, &step_shapes);
  if (static_cast<int64_t>(step_shapes.size()) != outputs + carries) {
    return absl::InvalidArgumentError(
        "scan's to_apply returns another number of values");
  }
  for (int64_t j = 0; j < inputs; ++j) {
    const Shape& x = inst.operand(j)->shape();
    const Shape& p = comp->parameter(j)->shape();
    if (x.rank() != x0.rank() || x.dimensions(d) != n ||
        p.rank() + 1 != x.rank() || p.element_type() != x.element_type()) {
      return absl::InvalidArgumentError("scan input/parameter mismatch");
    }
    for (int64_t e = 0, k = 0; e < x.rank(); ++e) {
      if (e == d) continue;
      if (p.dimensions(k++) != x.dimensions(e)) {
        return absl::InvalidArgumentError("scan input/parameter mismatch");
      }
    }
  }
  for (int64_t k = 0; k < outputs; ++k) {
    const Shape& y = parts[k].shape;
    const Shape& s = step_shapes[k];
    if (y.rank() != s.rank() + 1 || d >= y.rank() || y.dimensions(d) != n ||
        y.element_type() != s.element_type()) {
      return absl::InvalidArgumentError("scan output/step mismatch");
    }
  }
  IRBuilder& b = ctx.b();
  // Carry buffers in to_apply's parameter layouts, holding the inits.
  std::vector<IrValue> params;
  for (int64_t j = 0; j < count; ++j) {
    params.push_back(
        ctx.AllocateValue(comp->parameter(j)->shape(), "scan.param"));
  }
  for (int64_t j = 0; j < carries; ++j) {
    HLOREF_RETURN_IF_ERROR(
        ctx.EmitCopyValue(operands[inputs + j], params[inputs + j]));
  }
  IrValue step = ctx.AllocateValue(root_shape, "scan.step");
  std::vector<IrArray> step_leaves;
  step.CollectArrays(&step_leaves);
  if (n > 0) {
    HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
        "scan.t", ctx.I64(0), ctx.I64(n), ctx.I64(1),
        [&](llvm::Value* t) -> absl::Status {
          llvm::Value* i =
              inst.attrs().is_reverse ? b.CreateSub(ctx.I64(n - 1), t) : t;
          for (int64_t j = 0; j < inputs; ++j) {
            const IrArray& slice = params[j].array;
            HLOREF_RETURN_IF_ERROR(EmitRawCopy(
                ctx, operands[j].array, slice, slice.shape(),
                [&](const IrIndex& ix) { return InsertDim(ix, d, i); },
                [](const IrIndex& ix) { return ix; }));
          }
          HLOREF_RETURN_IF_ERROR(ctx.EmitCallComputation(*comp, params, step));
          for (int64_t k = 0; k < outputs; ++k) {
            HLOREF_RETURN_IF_ERROR(EmitRawCopy(
                ctx, step_leaves[k], parts[k].array, step_leaves[k].shape(),
                [](const IrIndex& ix) { return ix; },
                [&](const IrIndex& ix) { return InsertDim(ix, d, i); }));
          }
          for (int64_t j = 0; j < carries; ++j) {
            IrValue leaf;
            leaf.shape = step_leaves[outputs + j].shape();
            leaf.array = step_leaves[outputs + j];
            HLOREF_RETURN_IF_ERROR(ctx.EmitCopyValue(leaf, params[inputs + j]));
          }
          return absl::OkStatus();
        }));
  }
  for (int64_t j = 0; j < carries; ++j) {
    HLOREF_RETURN_IF_ERROR(
        ctx.EmitCopyValue(params[inputs + j], parts[outputs + j]));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterReductionEmitters(EmitterTable& table) {
  table.SetElemental(HloOpcode::kReduce, EmitReduceElemental);
  table.SetBuffer(HloOpcode::kReduce, EmitReduceBuffers);
  table.SetElemental(HloOpcode::kReduceWindow, EmitReduceWindowElemental);
  table.SetBuffer(HloOpcode::kReduceWindow, EmitReduceWindowBuffers);
  table.SetBuffer(HloOpcode::kSelectAndScatter, EmitSelectAndScatter);
  table.SetElemental(HloOpcode::kMap, EmitMap);
  table.SetBuffer(HloOpcode::kScan, EmitScan);
}

}  // namespace hloref::codegen
