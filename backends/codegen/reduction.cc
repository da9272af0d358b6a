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
//   * Vector kernels (single-operand reduce of f32, f64, bf16, f16 and 8-
//     to 64-bit integers and pred, static shapes; HLOREF_CPU_REDUCE_VECTOR=0
//     turns them off for comparisons). The operand's physically most minor
//     dimension of size > 1 decides:
//       - reduced ("row" reduction): only for reducers that are one
//         element-wise op of the two parameters and that the suite accepts
//         in any order (integer add/mul/max/min/and/or/xor: exact in any
//         order; float add: class A, whose bound covers every summation
//         tree; float max/min: exact with any zero sign). One fixed tree,
//         independent of the thread count and of the host's vector width
//         (EmitRowReduce: 4 accumulators of 512 bits, lanes combined in
//         halves, init last). bf16/f16 accumulate in f32 and round once,
//         within the class-A bound of the type. Float multiply and other
//         reducers keep the sequential fold.
//       - kept ("column" reduction): outputs along that dimension are
//         computed a block at a time, streaming the operand's rows into
//         lane-wise accumulators: each output is still the sequential fold
//         in the oracle's order, so every reducer computation applies (the
//         recognised ops as vector instructions, others lane by lane).
//     Operand elements come from the operand's element generator, one call
//     per lane, so element-wise producers fused into the reduce
//     (fusion.cc) are computed where they are read; LLVM turns the
//     consecutive loads into vector loads and the lane-wise arithmetic into
//     vector arithmetic.
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
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/codegen/convert.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
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

// HLOREF_CPU_REDUCE_VECTOR=0 turns the vector kernels off (comparisons).
bool VectorKernelsEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("HLOREF_CPU_REDUCE_VECTOR");
    return v == nullptr || std::string(v) != "0";
  }();
  return enabled;
}

// ---- vectorised reduce (docs in the file comment: "Vector kernels")

// The reducer as one lane-wise operation, when its computation is exactly
// `op(parameter 0, parameter 1)` (either order) on scalars of `type`.
enum class LaneOp { kNone, kAdd, kMul, kMax, kMin, kAnd, kOr, kXor };

LaneOp SimpleReducer(const HloComputation& comp, PrimitiveType type) {
  if (comp.num_parameters() != 2 || comp.instruction_count() != 3) {
    return LaneOp::kNone;
  }
  const HloInstruction* root = comp.root();
  if (root == nullptr || root->operand_count() != 2 ||
      !root->shape().IsArray() || root->shape().rank() != 0 ||
      root->shape().element_type() != type) {
    return LaneOp::kNone;
  }
  const HloInstruction* p0 = comp.parameter(0);
  const HloInstruction* p1 = comp.parameter(1);
  if (!((root->operand(0) == p0 && root->operand(1) == p1) ||
        (root->operand(0) == p1 && root->operand(1) == p0))) {
    return LaneOp::kNone;
  }
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      return LaneOp::kAdd;
    case HloOpcode::kMultiply:
      return LaneOp::kMul;
    case HloOpcode::kMaximum:
      return LaneOp::kMax;
    case HloOpcode::kMinimum:
      return LaneOp::kMin;
    case HloOpcode::kAnd:
      return LaneOp::kAnd;
    case HloOpcode::kOr:
      return LaneOp::kOr;
    case HloOpcode::kXor:
      return LaneOp::kXor;
    default:
      return LaneOp::kNone;
  }
}

bool IsVectorFloat(PrimitiveType t) {
  return t == PrimitiveType::kF32 || t == PrimitiveType::kF64 ||
         t == PrimitiveType::kBF16 || t == PrimitiveType::kF16;
}

bool IsVectorInt(PrimitiveType t) {
  if (IsPred(t)) return true;
  if (!IsSignedInt(t) && !IsUnsignedInt(t)) return false;
  const int w = BitWidth(t);
  return w == 8 || w == 16 || w == 32 || w == 64;
}

// Whether `op` on `t` may be evaluated in any order: the suite accepts every
// order of these (numerics.md 7.3: integer reductions wrap exactly in any
// order; max/min are exact, NaN-propagating, with any zero sign; float add
// is judged by the class-A bound, which covers every summation tree).
// Float multiply is not reassociated (intermediate overflow / underflow
// depends on the order).
bool Reassociable(LaneOp op, PrimitiveType t) {
  if (op == LaneOp::kNone) return false;
  if (IsVectorInt(t)) return true;
  if (IsVectorFloat(t)) {
    return op == LaneOp::kAdd || op == LaneOp::kMax || op == LaneOp::kMin;
  }
  return false;
}

// a op b, lane-wise on vectors or on scalars of t's compute type. Float
// max/min propagate NaN (either operand NaN gives a NaN); the sign of a
// zero result is either operand's (the suite accepts any zero sign of a
// reduce with max/min). Callers pass the accumulator as `a`: float max is
// llvm.maximum(c, a) with nsz, which x86 lowers to vmaxps (a, NaN
// included, unless c is greater) and c where c is NaN (a compare of c with
// itself, off the accumulator's dependency chain).
llvm::Value* EmitLaneOp(EmitContext& ctx, LaneOp op, PrimitiveType t,
                        llvm::Value* a, llvm::Value* c) {
  IRBuilder& b = ctx.b();
  const bool fp = IsFloat(t);
  const bool is_signed = IsSignedInt(t);
  switch (op) {
    case LaneOp::kAdd:
      // pred add is or, pred multiply is and (elementwise.cc).
      if (IsPred(t)) return b.CreateOr(a, c);
      return fp ? b.CreateFAdd(a, c) : b.CreateAdd(a, c);
    case LaneOp::kMul:
      if (IsPred(t)) return b.CreateAnd(a, c);
      return fp ? b.CreateFMul(a, c) : b.CreateMul(a, c);
    case LaneOp::kMax:
    case LaneOp::kMin: {
      const bool max = op == LaneOp::kMax;
      if (fp) {
        llvm::Value* r = max ? b.CreateMaximum(c, a) : b.CreateMinimum(c, a);
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(r)) {
          llvm::FastMathFlags fmf;
          fmf.setNoSignedZeros();
          call->setFastMathFlags(fmf);
        }
        return r;
      }
      llvm::Value* gt =
          is_signed ? b.CreateICmpSGT(a, c) : b.CreateICmpUGT(a, c);
      return max ? b.CreateSelect(gt, a, c) : b.CreateSelect(gt, c, a);
    }
    case LaneOp::kAnd:
      return b.CreateAnd(a, c);
    case LaneOp::kOr:
      return b.CreateOr(a, c);
    case LaneOp::kXor:
      return b.CreateXor(a, c);
    case LaneOp::kNone:
      break;
  }
  return nullptr;
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
  // A float max / min reducer folds as one lane operation: the semantics
  // leave the zero sign of a reduction's max / min tie free (numerics.md
  // 7.5; the comparator's kReduce policy), and the lane op's NaN rule is
  // the reducer's. The full computation (EmitXlaMaximum) orders the zeros
  // with three extra compares and blends per element, which is most of a
  // max pool's time.
  const LaneOp lane = n == 1 ? SimpleReducer(comp, types[0]) : LaneOp::kNone;
  const bool lane_fold =
      (lane == LaneOp::kMax || lane == LaneOp::kMin) && IsVectorFloat(types[0]);
  HLOREF_RETURN_IF_ERROR(visit([&](const IrIndex& pos) -> absl::Status {
    if (lane_fold) {
      llvm::Value* acc = b.CreateLoad(tys[0], slots[0]);
      HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, inputs[0](pos));
      b.CreateStore(EmitLaneOp(ctx, lane, types[0], acc, x), slots[0]);
      return absl::OkStatus();
    }
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

// The identity of `op` on t's compute type (x op identity == x for every x,
// NaN and both zeros included): -0 for float add, -inf / +inf for float
// max / min, the extreme integers, all ones for and.
llvm::Constant* LaneIdentity(EmitContext& ctx, LaneOp op, PrimitiveType t) {
  llvm::Type* ty = ComputeType(ctx.context(), t);
  if (IsFloat(t)) {
    switch (op) {
      case LaneOp::kAdd:
        return llvm::ConstantFP::getNegativeZero(ty);
      case LaneOp::kMul:
        return llvm::ConstantFP::get(ty, 1.0);
      case LaneOp::kMax:
        return llvm::ConstantFP::getInfinity(ty, /*Negative=*/true);
      case LaneOp::kMin:
        return llvm::ConstantFP::getInfinity(ty, /*Negative=*/false);
      default:
        return nullptr;
    }
  }
  const unsigned w = ty->getIntegerBitWidth();
  const bool is_signed = IsSignedInt(t);
  switch (op) {
    case LaneOp::kAdd:
    case LaneOp::kOr:
    case LaneOp::kXor:
      return llvm::ConstantInt::get(ty, 0);
    case LaneOp::kMul:
      return llvm::ConstantInt::get(ty, 1);
    case LaneOp::kAnd:
      return llvm::ConstantInt::get(ctx.context(), llvm::APInt::getAllOnes(w));
    case LaneOp::kMax:
      return llvm::ConstantInt::get(
          ctx.context(), is_signed ? llvm::APInt::getSignedMinValue(w)
                                   : llvm::APInt::getMinValue(w));
    case LaneOp::kMin:
      return llvm::ConstantInt::get(
          ctx.context(), is_signed ? llvm::APInt::getSignedMaxValue(w)
                                   : llvm::APInt::getMaxValue(w));
    case LaneOp::kNone:
      break;
  }
  return nullptr;
}

// An entry-block alloca of `count` vectors of `vt`, aligned for them
// (EntryAlloca aligns to 16 bytes; vector loads assume the type's own
// alignment).
llvm::Value* VectorAlloca(EmitContext& ctx, llvm::Type* vt, int64_t count,
                          absl::string_view name) {
  llvm::Value* a = ctx.EntryAlloca(vt, count, name);
  llvm::cast<llvm::AllocaInst>(a)->setAlignment(
      ctx.module().getDataLayout().getPrefTypeAlign(vt));
  return a;
}

// Lanes per vector: 512 bits of the compute type (at most 64 lanes).
int64_t VectorLanes(PrimitiveType t) {
  if (IsPred(t)) return 64;
  const int bits = IsMinifloat(t) ? 32 : BitWidth(t);
  return std::min<int64_t>(64, 512 / bits);
}

// The operand's physically most minor dimension of size > 1 (its layout's
// minor_to_major order), or -1 when every dimension has size 1.
int64_t PhysicalMinorDimension(const Shape& shape) {
  const Layout layout = shape.LayoutOrDefault();
  std::vector<int64_t> m2m = layout.minor_to_major;
  if (static_cast<int64_t>(m2m.size()) != shape.rank()) {
    m2m = Layout::Descending(shape.rank()).minor_to_major;
  }
  for (int64_t d : m2m) {
    if (shape.dimensions(d) > 1) return d;
  }
  return -1;
}

// `count` consecutive elements of the operand along dimension `dim`,
// starting at pos[dim] + first (an i64 value), as a vector of `lanes`
// lanes; lanes from `count` on hold `fill`. One generator call per lane:
// LLVM turns consecutive loads into a vector load and lane-wise arithmetic
// of fused producers into vector arithmetic (SLP).
absl::StatusOr<llvm::Value*> EmitGatherLanes(EmitContext& ctx,
                                             const ElementGenerator& gen,
                                             IrIndex pos, int64_t dim,
                                             llvm::Value* first, int64_t count,
                                             int64_t lanes, llvm::Value* fill) {
  IRBuilder& b = ctx.b();
  llvm::Value* v = b.CreateVectorSplat(lanes, fill);
  llvm::Value* base = pos[dim];
  for (int64_t l = 0; l < count; ++l) {
    pos[dim] = b.CreateAdd(base, b.CreateAdd(first, ctx.I64(l)));
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, gen(pos));
    v = b.CreateInsertElement(v, x, l);
  }
  return v;
}

// Combines the lanes of `v` pairwise in halves (lane i with lane i + w/2,
// w = lanes, lanes/2, ..., 2) and returns lane 0: a fixed tree.
llvm::Value* EmitHorizontal(EmitContext& ctx, LaneOp op, PrimitiveType t,
                            llvm::Value* v, int64_t lanes) {
  IRBuilder& b = ctx.b();
  for (int64_t w = lanes; w > 1; w /= 2) {
    std::vector<int> lo, hi;
    for (int64_t i = 0; i < w / 2; ++i) {
      lo.push_back(static_cast<int>(i));
      hi.push_back(static_cast<int>(i + w / 2));
    }
    v = EmitLaneOp(ctx, op, t, b.CreateShuffleVector(v, lo),
                   b.CreateShuffleVector(v, hi));
  }
  return b.CreateExtractElement(v, uint64_t{0});
}

constexpr int64_t kRowAccumulators = 4;

// Row reduction (the operand's physical minor dimension `minor` is
// reduced), for one output element `out`. Deterministic tree:
//   * kRowAccumulators vector accumulators of L lanes (L = VectorLanes),
//     starting at the identity;
//   * for every position of the other reduced dimensions (row-major), the
//     minor dimension (size R) in chunks of L * kRowAccumulators
//     elements: element p of the row goes to accumulator (p / L) % 4,
//     lane p % L (chunks in order); the last R % L elements go to
//     accumulator 0 (other lanes: the identity);
//   * then acc = (acc0 op acc1) op (acc2 op acc3), the lanes combined in
//     halves (EmitHorizontal), and the result is init op that.
// Minifloats accumulate in f32 and round once at the end.
//
// With `bf16_pairs` (f32 accumulation of values that are all bf16 numbers:
// a bf16 reduce, or an f32 one of a convert from bf16), each accumulator
// step takes 2L elements as their 16-bit patterns (the f32 value's high
// half: LLVM sees through to the loaded bf16) and widens them with two
// shifts instead of a lane shuffle: the even elements (w << 16) go to
// accumulator k, the odd ones (w & 0xffff0000) to its twin k', combined
// (k op k') before the tree above; chunks of 2L * 4 elements. Float
// max/min instead fold the 16-bit patterns w as integers, three lane-wise
// folds per 32 elements (where the float fold with NaN tracking took 6
// instructions), each starting at the identity's pattern: the signed
// maximum SMAX, the signed minimum SMIN and the unsigned maximum UMAX.
// Sign-magnitude patterns order as their values within one sign (the
// non-negative ones as signed integers; the negative ones reversed, so as
// signed integers the negative of the smallest magnitude is the
// smallest), hence:
//   * a NaN was seen iff SMAX > 0x7f80 (a positive NaN: above +inf) or
//     UMAX > 0xff80 (a negative NaN: above -inf); the result is then a
//     NaN, as the oracle's fold gives;
//   * max: SMAX when it is >= 0 (some non-negative pattern), else every
//     pattern is negative and the largest value is SMIN's;
//   * min: UMAX when it is >= 0x8000 (the negative pattern of the largest
//     magnitude), else every pattern is non-negative and the smallest is
//     SMIN's.
// Max and min are exact in any order; a zero result may take either sign
// (numerics.md: any zero sign for reduce with max / min).
absl::StatusOr<llvm::Value*> EmitRowReduce(EmitContext& ctx,
                                           const ReducePlan& p, LaneOp op,
                                           int64_t minor, bool bf16_pairs,
                                           const ElementGenerator& input,
                                           llvm::Value* init,
                                           const IrIndex& out) {
  IRBuilder& b = ctx.b();
  const PrimitiveType t = p.types[0];
  const int64_t lanes = VectorLanes(t);
  const int64_t rlen = p.in_dims[minor];
  llvm::Type* ct = ComputeType(ctx.context(), t);
  llvm::Type* vt = llvm::FixedVectorType::get(ct, lanes);
  llvm::Constant* ident = LaneIdentity(ctx, op, t);
  llvm::Value* ident_v = b.CreateVectorSplat(lanes, ident);
  const bool pairs = bf16_pairs && ct->isFloatTy() && lanes == 16;
  std::vector<llvm::Value*> acc(kRowAccumulators), twin(kRowAccumulators);
  for (int64_t k = 0; k < kRowAccumulators; ++k) {
    acc[k] = VectorAlloca(ctx, vt, 1, "row.acc");
    b.CreateStore(ident_v, acc[k]);
    if (pairs) {
      twin[k] = VectorAlloca(ctx, vt, 1, "row.twin");
      b.CreateStore(ident_v, twin[k]);
    }
  }
  IrIndex pos(p.in_dims.size(), nullptr);
  for (size_t k = 0; k < p.kept.size(); ++k) pos[p.kept[k]] = out[k];
  pos[minor] = ctx.I64(0);
  // Elements per accumulator step.
  const int64_t step = pairs ? 2 * lanes : lanes;
  llvm::Type* w16t = llvm::FixedVectorType::get(b.getInt16Ty(), step);
  // Pairs with float max/min: the patterns' lane-wise signed maxima and
  // minima and unsigned maxima (see above).
  const bool keys = pairs && (op == LaneOp::kMax || op == LaneOp::kMin);
  std::vector<llvm::Value*> key_max(kRowAccumulators),
      key_min(kRowAccumulators), key_umax(kRowAccumulators);
  auto fold_into = [&](llvm::Value* slot, llvm::Value* x) {
    llvm::Value* a = b.CreateLoad(vt, slot);
    b.CreateStore(EmitLaneOp(ctx, op, t, a, x), slot);
  };
  auto accumulate = [&](int64_t k, llvm::Value* first,
                        int64_t count) -> absl::Status {
    if (!pairs) {
      HLOREF_ASSIGN_OR_RETURN(
          llvm::Value * x,
          EmitGatherLanes(ctx, input, pos, minor, first, count, lanes, ident));
      fold_into(acc[k], x);
      return absl::OkStatus();
    }
    // The identity is a bf16 number too (-0, -inf, +inf): its high half.
    llvm::Type* i16 = b.getInt16Ty();
    llvm::Type* i32 = b.getInt32Ty();
    auto high_half = [&](llvm::Value* f) {
      return b.CreateTrunc(b.CreateLShr(b.CreateBitCast(f, i32), 16), i16);
    };
    llvm::Value* w = b.CreateVectorSplat(step, high_half(ident));
    IrIndex at = pos;
    for (int64_t l = 0; l < count; ++l) {
      at[minor] = b.CreateAdd(pos[minor], b.CreateAdd(first, ctx.I64(l)));
      HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, input(at));
      w = b.CreateInsertElement(w, high_half(x), l);
    }
    if (keys) {
      const std::pair<llvm::Intrinsic::ID, llvm::Value*> folds[] = {
          {llvm::Intrinsic::smax, key_max[k]},
          {llvm::Intrinsic::smin, key_min[k]},
          {llvm::Intrinsic::umax, key_umax[k]}};
      for (const auto& [id, slot] : folds) {
        b.CreateStore(b.CreateBinaryIntrinsic(id, b.CreateLoad(w16t, slot), w),
                      slot);
      }
      return absl::OkStatus();
    }
    llvm::Value* w32 =
        b.CreateBitCast(w, llvm::FixedVectorType::get(i32, lanes));
    llvm::Value* even = b.CreateBitCast(b.CreateShl(w32, 16), vt);
    llvm::Value* odd = b.CreateBitCast(
        b.CreateAnd(w32, b.CreateVectorSplat(
                             lanes, llvm::ConstantInt::get(i32, 0xffff0000u))),
        vt);
    fold_into(acc[k], even);
    fold_into(twin[k], odd);
    return absl::OkStatus();
  };
  if (keys) {
    // All three start at the identity's pattern (-inf 0xff80 for max,
    // +inf 0x7f80 for min), as the tail's missing lanes do: inside the
    // NaN thresholds, and a row of identities gives the identity.
    llvm::Value* start = b.CreateVectorSplat(
        step, b.getInt16(op == LaneOp::kMax ? 0xff80 : 0x7f80));
    for (int64_t k = 0; k < kRowAccumulators; ++k) {
      key_max[k] = VectorAlloca(ctx, w16t, 1, "row.smax");
      key_min[k] = VectorAlloca(ctx, w16t, 1, "row.smin");
      key_umax[k] = VectorAlloca(ctx, w16t, 1, "row.umax");
      for (llvm::Value* slot : {key_max[k], key_min[k], key_umax[k]}) {
        b.CreateStore(start, slot);
      }
    }
  }
  const int64_t chunk = step * kRowAccumulators;
  const int64_t chunks = rlen / chunk;
  auto row = [&]() -> absl::Status {
    if (chunks > 0) {
      HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
          "row.chunk", ctx.I64(0), ctx.I64(chunks), ctx.I64(1),
          [&](llvm::Value* c) -> absl::Status {
            llvm::Value* first = b.CreateMul(c, ctx.I64(chunk));
            for (int64_t k = 0; k < kRowAccumulators; ++k) {
              HLOREF_RETURN_IF_ERROR(
                  accumulate(k, b.CreateAdd(first, ctx.I64(k * step)), step));
            }
            return absl::OkStatus();
          }));
    }
    int64_t done = chunks * chunk;
    for (int64_t k = 0; done + step <= rlen; ++k, done += step) {
      HLOREF_RETURN_IF_ERROR(accumulate(k, ctx.I64(done), step));
    }
    if (done < rlen) {
      HLOREF_RETURN_IF_ERROR(accumulate(0, ctx.I64(done), rlen - done));
    }
    return absl::OkStatus();
  };
  // The other reduced dimensions, row-major, around the row.
  std::function<absl::Status(size_t)> nest = [&](size_t level) {
    if (level == p.reduced.size()) return row();
    const int64_t d = p.reduced[level];
    if (d == minor) return nest(level + 1);
    if (p.in_dims[d] == 1) {
      pos[d] = ctx.I64(0);
      return nest(level + 1);
    }
    return ctx.EmitForLoop(absl::StrCat("row.d", d), ctx.I64(0),
                           ctx.I64(p.in_dims[d]), ctx.I64(1),
                           [&](llvm::Value* iv) -> absl::Status {
                             pos[d] = iv;
                             return nest(level + 1);
                           });
  };
  HLOREF_RETURN_IF_ERROR(nest(0));
  if (keys) {
    auto fold = [&](llvm::Intrinsic::ID lanes_id, llvm::Intrinsic::ID all_id,
                    const std::vector<llvm::Value*>& slots) {
      llvm::Value* v = b.CreateLoad(w16t, slots[0]);
      for (int64_t k = 1; k < kRowAccumulators; ++k) {
        v = b.CreateBinaryIntrinsic(lanes_id, v, b.CreateLoad(w16t, slots[k]));
      }
      return b.CreateUnaryIntrinsic(all_id, v);
    };
    llvm::Value* smax = fold(llvm::Intrinsic::smax,
                             llvm::Intrinsic::vector_reduce_smax, key_max);
    llvm::Value* smin = fold(llvm::Intrinsic::smin,
                             llvm::Intrinsic::vector_reduce_smin, key_min);
    llvm::Value* umax = fold(llvm::Intrinsic::umax,
                             llvm::Intrinsic::vector_reduce_umax, key_umax);
    llvm::Value* nan = b.CreateOr(
        b.CreateICmpSGT(smax, b.getInt16(0x7f80)),
        b.CreateICmpUGT(umax, b.getInt16(static_cast<uint16_t>(0xff80))));
    llvm::Value* bits =
        op == LaneOp::kMax
            ? b.CreateSelect(b.CreateICmpSGE(smax, b.getInt16(0)), smax, smin)
            : b.CreateSelect(
                  b.CreateICmpUGE(umax,
                                  b.getInt16(static_cast<uint16_t>(0x8000))),
                  umax, smin);
    // The bf16 pattern as the f32 value's high half.
    llvm::Value* value = b.CreateBitCast(
        b.CreateShl(b.CreateZExt(bits, b.getInt32Ty()), 16), ct);
    llvm::Value* total =
        b.CreateSelect(nan, llvm::ConstantFP::getNaN(ct), value);
    // Already a value of the type: the max or min of init (a value of the
    // type) and a bf16 number or NaN is one of them or a NaN, so it is not
    // rounded again (that was about a third of a 2 KiB row's instructions).
    return EmitLaneOp(ctx, op, t, init, total);
  }
  if (pairs) {
    for (int64_t k = 0; k < kRowAccumulators; ++k)
      fold_into(acc[k], b.CreateLoad(vt, twin[k]));
  }
  llvm::Value* a01 = EmitLaneOp(ctx, op, t, b.CreateLoad(vt, acc[0]),
                                b.CreateLoad(vt, acc[1]));
  llvm::Value* a23 = EmitLaneOp(ctx, op, t, b.CreateLoad(vt, acc[2]),
                                b.CreateLoad(vt, acc[3]));
  llvm::Value* total =
      EmitHorizontal(ctx, op, t, EmitLaneOp(ctx, op, t, a01, a23), lanes);
  llvm::Value* r = EmitLaneOp(ctx, op, t, init, total);
  return IsMinifloat(t) ? EmitRoundToType(ctx, t, r) : r;
}

// bf16 max / min over bit patterns (the column kernel; the row kernel's
// pairs use the same three folds): sign-magnitude patterns order as their
// values within one sign (the non-negative ones as signed integers, the
// negative ones reversed), so three lane-wise folds of the 16-bit
// patterns, each starting at the identity's pattern (-inf 0xff80 for max,
// +inf 0x7f80 for min), give the result:
//   * SMAX, the signed maximum; SMIN, the signed minimum; UMAX, the
//     unsigned maximum;
//   * a NaN was seen iff SMAX > 0x7f80 (a positive NaN) or UMAX > 0xff80
//     (a negative NaN);
//   * max: SMAX when it is >= 0 (some non-negative pattern), else SMIN (all
//     negative: the smallest magnitude);
//   * min: UMAX when it is >= 0x8000 (the negative pattern of the largest
//     magnitude), else SMIN (all non-negative).
// 32 elements per three integer operations of latency 1, where the f32
// fold of the widened values takes 16 per widening, max, compare and
// masked move (bf16 4096 x 1024 column max: 36 -> 70-80 GB/s, 1 thread,
// Zen 4). Not for f32: the same folds on f32 patterns measured slower
// than vmaxps with its NaN test (37-39 against 40-50 GB/s), that loop
// being bound by its memory accesses, not its operations. Max and min are
// exact in any order; a zero result may take either sign (numerics.md:
// reduce with max / min).
struct ColumnKeys {
  int64_t lanes;       // 32 patterns per vector
  llvm::Type* vector;  // <32 x i16>
  llvm::Value* start;  // the identity's pattern, splat
};
constexpr int64_t kKeyFolds = 3;  // SMAX, SMIN, UMAX
// The column kernel's cache of keys: kKeyFolds vectors per 32 columns,
// 2048 columns (6, 12 and 24 KiB measured alike).
constexpr int64_t kKeyCacheBytes = 12288;
constexpr uint16_t kBf16Inf = 0x7f80, kBf16Sign = 0x8000;

std::optional<ColumnKeys> ColumnKeysFor(EmitContext& ctx, LaneOp op,
                                        PrimitiveType t) {
  if ((op != LaneOp::kMax && op != LaneOp::kMin) || t != PrimitiveType::kBF16) {
    return std::nullopt;
  }
  IRBuilder& b = ctx.b();
  ColumnKeys k;
  k.lanes = 32;
  k.vector = llvm::FixedVectorType::get(b.getInt16Ty(), k.lanes);
  k.start = b.CreateVectorSplat(
      k.lanes,
      b.getInt16(op == LaneOp::kMax ? kBf16Sign | kBf16Inf : kBf16Inf));
  return k;
}

// `count` consecutive elements along `dim` from pos[dim] + first as their
// bf16 patterns (the f32 compute value's high half; LLVM sees through to
// the loaded bf16), lanes from `count` on the start pattern.
absl::StatusOr<llvm::Value*> EmitGatherKeys(EmitContext& ctx,
                                            const ColumnKeys& k,
                                            const ElementGenerator& gen,
                                            IrIndex pos, int64_t dim,
                                            llvm::Value* first, int64_t count) {
  IRBuilder& b = ctx.b();
  llvm::Value* v = k.start;
  llvm::Value* base = pos[dim];
  for (int64_t l = 0; l < count; ++l) {
    pos[dim] = b.CreateAdd(base, b.CreateAdd(first, ctx.I64(l)));
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, gen(pos));
    llvm::Value* bits = b.CreateTrunc(
        b.CreateLShr(b.CreateBitCast(x, b.getInt32Ty()), 16), b.getInt16Ty());
    v = b.CreateInsertElement(v, bits, l);
  }
  return v;
}

// acc = {SMAX, SMIN, UMAX} folded with the patterns w.
void FoldKeys(EmitContext& ctx, std::vector<llvm::Value*>& acc,
              llvm::Value* w) {
  IRBuilder& b = ctx.b();
  acc[0] = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, acc[0], w);
  acc[1] = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, acc[1], w);
  acc[2] = b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, acc[2], w);
}

// The max / min of one lane's folded keys {SMAX, SMIN, UMAX} (i16
// scalars) as the f32 compute value (a NaN when one was seen).
llvm::Value* KeysResult(EmitContext& ctx, LaneOp op,
                        const std::vector<llvm::Value*>& f) {
  IRBuilder& b = ctx.b();
  llvm::Value* nan =
      b.CreateOr(b.CreateICmpSGT(f[0], b.getInt16(kBf16Inf)),
                 b.CreateICmpUGT(f[2], b.getInt16(kBf16Sign | kBf16Inf)));
  llvm::Value* bits =
      op == LaneOp::kMax
          ? b.CreateSelect(b.CreateICmpSGE(f[0], b.getInt16(0)), f[0], f[1])
          : b.CreateSelect(b.CreateICmpUGE(f[2], b.getInt16(kBf16Sign)), f[2],
                           f[1]);
  llvm::Value* value = b.CreateBitCast(
      b.CreateShl(b.CreateZExt(bits, b.getInt32Ty()), 16), b.getFloatTy());
  return b.CreateSelect(nan, llvm::ConstantFP::getNaN(b.getFloatTy()), value);
}

// Elements of a column block: the block spans kColumnBlockBytes of compute
// values along the operand's minor (kept) dimension.
constexpr int64_t kColumnBlockBytes = 8192;
// Positions of the innermost reduced dimension folded per load / store of a
// cached vector (EmitColumnReduce). Eight against four, 4096 x 1024, three
// interleaved pairs of kernel_benchmark runs (Zen 4, 2026-11-29): f32
// column sum 1 thread 40-46 -> 46-51 GB/s, f32 column max 2 threads 75-84
// -> 85-100, bf16 column sums +3-9 %, the rest within the noise.
constexpr int64_t kColumnRowUnroll = 8;

// Column reduction (the operand's physical minor dimension `minor` is
// kept), for output element `out`. The outputs along `minor` are computed
// a block at a time into a cache: for every reduced position in row-major
// order, the block's lanes fold that position's element, so every output
// is the sequential fold of the reducer in the oracle's order (no
// reassociation: any reducer computation, applied lane-wise; the
// recognised element-wise reducers as vector instructions, others per
// lane). The block is recomputed whenever `out` leaves it. Minifloat
// reducers recognised as LaneOps accumulate in f32 and round once.
//
// Blocks are the kColumnBlockBytes-wide pieces of the row that `out`
// falls in, cut to the parallel chunk when `out` along `minor` is the
// index of the loop a thread's chunk runs over (EmitContext::
// ParallelChunk): one thread then reads whole rows (4096 x 1024 f32
// column sum, best of 12 runs, two runs each: half rows 47-49 GB/s, whole
// rows 57-59, Zen 4, 2026-11-29), two threads each their half. Without the
// chunk, a reduction whose outputs along `minor` are what the loop nest splits
// across threads (split_on_minor) takes two blocks per row, so that two threads
// do not both compute one. Results do not depend on the blocks (every output is
// a sequential fold).
absl::StatusOr<llvm::Value*> EmitColumnReduce(
    EmitContext& ctx, const ReducePlan& p, const HloComputation& comp,
    LaneOp op, int64_t minor, bool split_on_minor,
    const ElementGenerator& input, llvm::Value* init, const IrIndex& out) {
  IRBuilder& b = ctx.b();
  const PrimitiveType t = p.types[0];
  // bf16 max / min fold the elements' bit patterns as integer keys
  // (ColumnKeys): 32 lanes per vector.
  const std::optional<ColumnKeys> keys = ColumnKeysFor(ctx, op, t);
  const int64_t lanes = keys ? keys->lanes : VectorLanes(t);
  const int64_t cols = p.in_dims[minor];
  llvm::Type* ct = ComputeType(ctx.context(), t);
  llvm::Type* vt = keys ? keys->vector : llvm::FixedVectorType::get(ct, lanes);
  const int64_t compute_bytes =
      keys ? 2 : std::max<int64_t>(1, BitWidth(t) / 8);
  const int64_t kminor =
      std::find(p.kept.begin(), p.kept.end(), minor) - p.kept.begin();
  llvm::Value* o = out[kminor];
  const EmitContext::ParallelChunk chunk = ctx.parallel_chunk.index == o
                                               ? ctx.parallel_chunk
                                               : EmitContext::ParallelChunk{};
  const bool chunked = chunk.index != nullptr;
  // Keys: three vectors per group, in kKeyCacheBytes.
  const int64_t block_values =
      keys ? kKeyCacheBytes / (kKeyFolds * compute_bytes)
           : kColumnBlockBytes / (IsMinifloat(t) ? 4 : compute_bytes);
  int64_t block = std::max<int64_t>(lanes, block_values / lanes * lanes);
  block = std::min<int64_t>(block, (cols + lanes - 1) / lanes * lanes);
  if (!chunked && split_on_minor && cols >= 2 * lanes) {
    block = std::min<int64_t>(block, (cols / 2 + lanes - 1) / lanes * lanes);
  }
  // The cache holds whole vectors (pred vectors are bit-packed in memory,
  // so lanes are never addressed as scalars there); with keys, three per
  // group of lanes (kKeyFolds).
  const int64_t per_group = keys ? kKeyFolds : 1;
  llvm::Value* cache =
      VectorAlloca(ctx, vt, per_group * (block / lanes), "col.cache");
  // The cached range: the linear index of the kept dimensions but `minor`
  // (-1: nothing cached yet) and the columns [lo, hi) along `minor`.
  llvm::Value* key_slot = ctx.EntryAlloca(b.getInt64Ty(), 1, "col.key");
  llvm::Value* lo_slot = ctx.EntryAlloca(b.getInt64Ty(), 1, "col.lo");
  llvm::Value* hi_slot = ctx.EntryAlloca(b.getInt64Ty(), 1, "col.hi");
  {
    // Nothing cached: stored in the entry block (after the allocas).
    llvm::Function* f = b.GetInsertBlock()->getParent();
    llvm::BasicBlock& entry = f->getEntryBlock();
    llvm::IRBuilder<> eb(&entry, entry.getTerminator()
                                     ? entry.getTerminator()->getIterator()
                                     : entry.end());
    eb.CreateStore(eb.getInt64(-1), key_slot);
    eb.CreateStore(eb.getInt64(0), lo_slot);
    eb.CreateStore(eb.getInt64(0), hi_slot);
  }
  llvm::Value* key = ctx.I64(0);
  for (size_t k = 0; k < p.kept.size(); ++k) {
    if (static_cast<int64_t>(k) == kminor) continue;
    key = b.CreateAdd(b.CreateMul(key, ctx.I64(p.in_dims[p.kept[k]])), out[k]);
  }
  auto umin = [&](llvm::Value* a, llvm::Value* c) {
    return b.CreateSelect(b.CreateICmpULT(a, c), a, c);
  };
  auto umax = [&](llvm::Value* a, llvm::Value* c) {
    return b.CreateSelect(b.CreateICmpUGT(a, c), a, c);
  };
  auto floor_lanes = [&](llvm::Value* v) {
    return b.CreateMul(b.CreateUDiv(v, ctx.I64(lanes)), ctx.I64(lanes));
  };
  auto lane_fold = [&](llvm::Value* a, llvm::Value* x,
                       int64_t count) -> absl::StatusOr<llvm::Value*> {
    if (op != LaneOp::kNone) return EmitLaneOp(ctx, op, t, a, x);
    llvm::Value* r = a;
    for (int64_t l = 0; l < count; ++l) {
      HLOREF_ASSIGN_OR_RETURN(
          std::vector<llvm::Value*> v,
          ctx.EmitCallScalarComputation(comp, {b.CreateExtractElement(a, l),
                                               b.CreateExtractElement(x, l)}));
      if (v.size() != 1 || v[0]->getType() != ct) {
        return absl::InvalidArgumentError(absl::StrCat(
            "reducer ", comp.name(), " must return one scalar of the type"));
      }
      r = b.CreateInsertElement(r, v[0], l);
    }
    return r;
  };
  // Fills the cache for columns [lo, hi): lo is a multiple of `lanes`,
  // and hi too unless it is `cols` (then the last vector is partial).
  auto fill = [&](llvm::Value* lo, llvm::Value* hi) -> absl::Status {
    llvm::Value* width = b.CreateSub(hi, lo);
    llvm::Value* full = b.CreateUDiv(width, ctx.I64(lanes));
    const int64_t tail = cols % lanes;
    llvm::Value* partial =
        tail != 0
            ? b.CreateICmpNE(b.CreateURem(width, ctx.I64(lanes)), ctx.I64(0))
            : nullptr;
    llvm::Value* init_v = keys ? keys->start : b.CreateVectorSplat(lanes, init);
    // Group g's vector (with keys: its first of kKeyFolds).
    auto vec_at = [&](llvm::Value* g) {
      return b.CreateInBoundsGEP(vt, cache,
                                 keys ? b.CreateMul(g, ctx.I64(kKeyFolds)) : g);
    };
    // Full vectors then (if any) one partial vector.
    llvm::Value* nvec =
        b.CreateUDiv(b.CreateAdd(width, ctx.I64(lanes - 1)), ctx.I64(lanes));
    HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
        "col.init", ctx.I64(0), nvec, ctx.I64(1), [&](llvm::Value* g) {
          llvm::Value* at = vec_at(g);
          for (int64_t f = 0; f < per_group; ++f) {
            b.CreateStore(init_v, b.CreateInBoundsGEP(vt, at, ctx.I64(f)));
          }
          return absl::OkStatus();
        }));
    IrIndex pos(p.in_dims.size(), nullptr);
    for (size_t k = 0; k < p.kept.size(); ++k) pos[p.kept[k]] = out[k];
    pos[minor] = lo;
    // Folds `nrows` consecutive positions row0, row0 + 1, ... of reduced
    // dimension d (d < 0: one position, pos complete) into cache vector g:
    // one load and one store of the cache per nrows elements, the folds in
    // the oracle's order.
    auto step = [&](llvm::Value* g, int64_t count, int64_t d, llvm::Value* row0,
                    int64_t nrows) -> absl::Status {
      llvm::Value* first = b.CreateMul(g, ctx.I64(lanes));
      llvm::Value* ptr = vec_at(g);
      if (keys) {
        std::vector<llvm::Value*> acc(kKeyFolds), at(kKeyFolds);
        for (int64_t f = 0; f < kKeyFolds; ++f) {
          at[f] = b.CreateInBoundsGEP(vt, ptr, ctx.I64(f));
          acc[f] = b.CreateLoad(vt, at[f]);
        }
        for (int64_t u = 0; u < nrows; ++u) {
          if (d >= 0) pos[d] = b.CreateAdd(row0, ctx.I64(u));
          HLOREF_ASSIGN_OR_RETURN(
              llvm::Value * w,
              EmitGatherKeys(ctx, *keys, input, pos, minor, first, count));
          FoldKeys(ctx, acc, w);
        }
        for (int64_t f = 0; f < kKeyFolds; ++f) b.CreateStore(acc[f], at[f]);
        return absl::OkStatus();
      }
      llvm::Value* a = b.CreateLoad(vt, ptr);
      for (int64_t u = 0; u < nrows; ++u) {
        if (d >= 0) pos[d] = b.CreateAdd(row0, ctx.I64(u));
        HLOREF_ASSIGN_OR_RETURN(
            llvm::Value * x,
            EmitGatherLanes(ctx, input, pos, minor, first, count, lanes, init));
        HLOREF_ASSIGN_OR_RETURN(a, lane_fold(a, x, count));
      }
      b.CreateStore(a, ptr);
      return absl::OkStatus();
    };
    // Every full vector of the range, then (if any) its partial one.
    auto vectors = [&](int64_t d, llvm::Value* row0,
                       int64_t nrows) -> absl::Status {
      HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
          "col.g", ctx.I64(0), full, ctx.I64(1),
          [&](llvm::Value* g) { return step(g, lanes, d, row0, nrows); }));
      if (partial == nullptr) return absl::OkStatus();
      return ctx.EmitIf(
          partial, [&]() { return step(full, tail, d, row0, nrows); },
          "col.tail");
    };
    // The recognised reducers take the innermost reduced dimension
    // kColumnRowUnroll positions at a time (code size: not the others).
    const int64_t unroll = op != LaneOp::kNone ? kColumnRowUnroll : 1;
    std::function<absl::Status(size_t)> nest = [&](size_t level) {
      if (level == p.reduced.size()) return vectors(-1, nullptr, 1);
      const int64_t d = p.reduced[level];
      if (p.in_dims[d] == 1) {
        pos[d] = ctx.I64(0);
        return nest(level + 1);
      }
      if (level + 1 == p.reduced.size() && unroll > 1 &&
          p.in_dims[d] >= unroll) {
        const int64_t groups = p.in_dims[d] / unroll;
        HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
            absl::StrCat("col.d", d), ctx.I64(0), ctx.I64(groups), ctx.I64(1),
            [&](llvm::Value* iv) -> absl::Status {
              return vectors(d, b.CreateMul(iv, ctx.I64(unroll)), unroll);
            }));
        const int64_t rest = p.in_dims[d] % unroll;
        if (rest == 0) return absl::OkStatus();
        return vectors(d, ctx.I64(groups * unroll), rest);
      }
      return ctx.EmitForLoop(absl::StrCat("col.d", d), ctx.I64(0),
                             ctx.I64(p.in_dims[d]), ctx.I64(1),
                             [&](llvm::Value* iv) -> absl::Status {
                               pos[d] = iv;
                               return nest(level + 1);
                             });
    };
    return nest(0);
  };
  llvm::Value* stale = b.CreateOr(
      b.CreateICmpNE(b.CreateLoad(b.getInt64Ty(), key_slot), key),
      b.CreateOr(b.CreateICmpULT(o, b.CreateLoad(b.getInt64Ty(), lo_slot)),
                 b.CreateICmpUGE(o, b.CreateLoad(b.getInt64Ty(), hi_slot))));
  HLOREF_RETURN_IF_ERROR(ctx.EmitIf(
      stale,
      [&]() -> absl::Status {
        // The block of `o`, cut to the chunk (never to exclude `o`).
        llvm::Value* blk_lo =
            b.CreateMul(b.CreateUDiv(o, ctx.I64(block)), ctx.I64(block));
        llvm::Value* lo = blk_lo;
        llvm::Value* hi =
            umin(b.CreateAdd(blk_lo, ctx.I64(block)), ctx.I64(cols));
        if (chunked) {
          lo = umax(lo, umin(floor_lanes(chunk.begin), floor_lanes(o)));
          hi = umin(
              hi, umax(floor_lanes(b.CreateAdd(chunk.end, ctx.I64(lanes - 1))),
                       b.CreateAdd(floor_lanes(o), ctx.I64(lanes))));
        }
        HLOREF_RETURN_IF_ERROR(fill(lo, hi));
        b.CreateStore(key, key_slot);
        b.CreateStore(lo, lo_slot);
        b.CreateStore(hi, hi_slot);
        return absl::OkStatus();
      },
      "col.stale"));
  llvm::Value* offset = b.CreateSub(o, b.CreateLoad(b.getInt64Ty(), lo_slot));
  llvm::Value* group = b.CreateUDiv(offset, ctx.I64(lanes));
  llvm::Value* lane = b.CreateURem(offset, ctx.I64(lanes));
  if (keys) {
    llvm::Value* at =
        b.CreateInBoundsGEP(vt, cache, b.CreateMul(group, ctx.I64(kKeyFolds)));
    std::vector<llvm::Value*> folded(kKeyFolds);
    for (int64_t f = 0; f < kKeyFolds; ++f) {
      folded[f] = b.CreateExtractElement(
          b.CreateLoad(vt, b.CreateInBoundsGEP(vt, at, ctx.I64(f))), lane);
    }
    // Exact: one of init and the column's elements, or a NaN (as the row
    // kernel's keys).
    return EmitLaneOp(ctx, op, t, init, KeysResult(ctx, op, folded));
  }
  llvm::Value* r = b.CreateExtractElement(
      b.CreateLoad(vt, b.CreateInBoundsGEP(vt, cache, group)), lane);
  return IsMinifloat(t) && op != LaneOp::kNone ? EmitRoundToType(ctx, t, r) : r;
}

// The vector kernel for a single-operand reduce, or nullopt when the scalar
// fold applies (see the file comment).
std::optional<int64_t> VectorKernelMinor(const HloInstruction& inst,
                                         const ReducePlan& p, bool* row) {
  if (!VectorKernelsEnabled() || p.n != 1 || p.reduced.empty()) {
    return std::nullopt;
  }
  const PrimitiveType t = p.types[0];
  if (!IsVectorFloat(t) && !IsVectorInt(t)) return std::nullopt;
  const Shape& s = inst.operand(0)->shape();
  if (!s.is_static()) return std::nullopt;
  const int64_t minor = PhysicalMinorDimension(s);
  if (minor < 0) return std::nullopt;
  *row = std::binary_search(p.reduced.begin(), p.reduced.end(), minor);
  const int64_t lanes = VectorLanes(t);
  if (*row) {
    if (!Reassociable(SimpleReducer(*inst.to_apply(), t), t) ||
        p.in_dims[minor] < lanes / 2) {
      return std::nullopt;
    }
  } else if (p.in_dims[minor] < lanes / 2) {
    return std::nullopt;
  }
  return minor;
}

// ---- variadic reduce with an order-select reducer (argmax / argmin)

// A reducer of N operands of the form
//   (select(p_0, a_0, b_0), ..., select(p_{N-1}, a_{N-1}, b_{N-1}))
// (either select operand order) whose predicates are built from compares
// (default or FLOAT type) of parameters and and/or/xor/not: its result
// depends only on how its inputs order, so checking it on every ordering
// pattern of three elements decides whether it is associative and
// commutative (see IsOrderSelectReducer).
bool OrderSelectStructure(const HloComputation& comp, int64_t n) {
  if (comp.num_parameters() != 2 * n) return false;
  const HloInstruction* root = comp.root();
  if (root == nullptr || root->opcode() != HloOpcode::kTuple ||
      root->operand_count() != n) {
    return false;
  }
  for (int64_t j = 0; j < 2 * n; ++j) {
    const Shape& s = comp.parameter(j)->shape();
    if (!s.IsArray() || s.rank() != 0) return false;
  }
  for (const auto& inst : comp.instructions()) {
    const HloInstruction* i = inst.get();
    switch (i->opcode()) {
      case HloOpcode::kParameter:
        break;
      case HloOpcode::kCompare: {
        const ComparisonType ct = i->attrs().comparison_type;
        if (ct != ComparisonType::kDefault && ct != ComparisonType::kFloat) {
          return false;
        }
        for (const HloInstruction* o : i->operands()) {
          if (o->opcode() != HloOpcode::kParameter) return false;
        }
        if (i->operand(0)->parameter_number() % n !=
            i->operand(1)->parameter_number() % n) {
          return false;
        }
        break;
      }
      case HloOpcode::kAnd:
      case HloOpcode::kOr:
      case HloOpcode::kXor:
      case HloOpcode::kNot:
        if (i->shape().element_type() != PrimitiveType::kPred) return false;
        for (const HloInstruction* o : i->operands()) {
          if (o->opcode() == HloOpcode::kParameter) return false;
        }
        break;
      case HloOpcode::kSelect: {
        if (i->operand_count() != 3) return false;
        const HloInstruction* x = i->operand(1);
        const HloInstruction* y = i->operand(2);
        if (x->opcode() != HloOpcode::kParameter ||
            y->opcode() != HloOpcode::kParameter ||
            x->parameter_number() % n != y->parameter_number() % n ||
            x->parameter_number() == y->parameter_number() ||
            i->operand(0)->opcode() == HloOpcode::kParameter) {
          return false;
        }
        break;
      }
      case HloOpcode::kTuple:
        if (i != root) return false;
        break;
      default:
        return false;
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    const HloInstruction* s = root->operand(j);
    if (s->opcode() != HloOpcode::kSelect ||
        s->operand(1)->parameter_number() % n != j) {
      return false;
    }
  }
  return true;
}

bool CompareDoubles(ComparisonDirection d, double x, double y) {
  switch (d) {
    case ComparisonDirection::kEq:
      return x == y;
    case ComparisonDirection::kNe:
      return x != y;
    case ComparisonDirection::kLt:
      return x < y;
    case ComparisonDirection::kLe:
      return x <= y;
    case ComparisonDirection::kGt:
      return x > y;
    case ComparisonDirection::kGe:
      return x >= y;
  }
  return false;
}

// The reducer on abstract scalars (doubles standing for the values; a
// structure OrderSelectStructure accepted).
std::vector<double> EvalOrderSelect(const HloComputation& comp,
                                    const std::vector<double>& args) {
  absl::flat_hash_map<const HloInstruction*, bool> preds;
  auto value = [&](const HloInstruction* p) {
    return args[p->parameter_number()];
  };
  for (const auto& inst : comp.instructions()) {
    const HloInstruction* i = inst.get();
    switch (i->opcode()) {
      case HloOpcode::kCompare:
        preds[i] = CompareDoubles(i->attrs().direction, value(i->operand(0)),
                                  value(i->operand(1)));
        break;
      case HloOpcode::kAnd:
        preds[i] = preds[i->operand(0)] && preds[i->operand(1)];
        break;
      case HloOpcode::kOr:
        preds[i] = preds[i->operand(0)] || preds[i->operand(1)];
        break;
      case HloOpcode::kXor:
        preds[i] = preds[i->operand(0)] != preds[i->operand(1)];
        break;
      case HloOpcode::kNot:
        preds[i] = !preds[i->operand(0)];
        break;
      default:
        break;
    }
  }
  std::vector<double> out;
  for (const HloInstruction* s : comp.root()->operands()) {
    out.push_back(preds[s->operand(0)] ? value(s->operand(1))
                                       : value(s->operand(2)));
  }
  return out;
}

// Whether a variadic reduce's reducer is an order-select reducer that is
// associative and commutative, so the vector kernel may fold in any tree:
// checked on every ordering pattern of three elements (values from
// {-1, 0, 1} for floats, {0, 1, 2} for integers, per operand). NaNs are
// left out: argmax reducers (XLA's and JAX's included) are not commutative
// between two NaNs, so with NaN inputs the tree decides which NaN
// candidate wins. The suite accepts every order there: a variadic reduce
// with float values is judged ANY (its reducer is neither add, multiply,
// max nor min; numerics.md 7.3), one with integer values EXACT, which the
// check covers.
bool IsOrderSelectReducer(const HloComputation& comp,
                          absl::Span<const PrimitiveType> types) {
  const int64_t n = static_cast<int64_t>(types.size());
  if (!OrderSelectStructure(comp, n)) return false;
  std::vector<std::vector<double>> domains;
  for (PrimitiveType t : types) {
    if (IsFloat(t)) {
      domains.push_back({-1, 0, 1});
    } else {
      domains.push_back({0, 1, 2});
    }
  }
  std::vector<std::vector<double>> elements(1);
  for (const auto& d : domains) {
    std::vector<std::vector<double>> next;
    for (const auto& e : elements) {
      for (double v : d) {
        next.push_back(e);
        next.back().push_back(v);
      }
    }
    elements = std::move(next);
  }
  auto f = [&](const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> args = a;
    args.insert(args.end(), b.begin(), b.end());
    return EvalOrderSelect(comp, args);
  };
  auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
    for (size_t k = 0; k < a.size(); ++k) {
      if (!(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k])))) {
        return false;
      }
    }
    return true;
  };
  for (const auto& x : elements) {
    for (const auto& y : elements) {
      const std::vector<double> xy = f(x, y);
      if (!same(xy, f(y, x))) return false;
      for (const auto& z : elements) {
        if (!same(f(xy, z), f(x, f(y, z)))) return false;
      }
    }
  }
  return true;
}

// The reducer, lane-wise on vectors (or on scalars): a[j], c[j] are the
// accumulator and element of operand j. Where earlier[j] is set, every lane
// of a[j] is known to be less than the same lane of c[j] (positions of an
// iota, the accumulator's from earlier in the row): compares of a[j] with
// c[j] are then constants.
std::vector<llvm::Value*> EmitOrderSelect(EmitContext& ctx,
                                          const HloComputation& comp,
                                          absl::Span<const PrimitiveType> types,
                                          absl::Span<llvm::Value* const> a,
                                          absl::Span<llvm::Value* const> c,
                                          absl::Span<const bool> earlier = {}) {
  IRBuilder& b = ctx.b();
  const int64_t n = static_cast<int64_t>(types.size());
  absl::flat_hash_map<const HloInstruction*, llvm::Value*> v;
  auto param = [&](const HloInstruction* p) {
    const int64_t k = p->parameter_number();
    return k < n ? a[k] : c[k - n];
  };
  for (const auto& inst : comp.instructions()) {
    const HloInstruction* i = inst.get();
    switch (i->opcode()) {
      case HloOpcode::kCompare: {
        const PrimitiveType t = types[i->operand(0)->parameter_number() % n];
        llvm::Value* x = param(i->operand(0));
        llvm::Value* y = param(i->operand(1));
        const ComparisonDirection d = i->attrs().direction;
        const int64_t p0 = i->operand(0)->parameter_number();
        const int64_t p1 = i->operand(1)->parameter_number();
        if (!earlier.empty() && earlier[p0 % n] && p0 != p1) {
          // The accumulator's lanes (parameter p < n) are the smaller.
          const bool r = CompareDoubles(d, p0 < n ? 0 : 1, p0 < n ? 1 : 0);
          v[i] = llvm::ConstantInt::get(
              llvm::CmpInst::makeCmpResultType(x->getType()), r ? 1 : 0);
          break;
        }
        if (IsFloat(t)) {
          static constexpr llvm::CmpInst::Predicate kFloat[] = {
              llvm::CmpInst::FCMP_OEQ, llvm::CmpInst::FCMP_UNE,
              llvm::CmpInst::FCMP_OLT, llvm::CmpInst::FCMP_OLE,
              llvm::CmpInst::FCMP_OGT, llvm::CmpInst::FCMP_OGE};
          v[i] = b.CreateFCmp(kFloat[static_cast<int>(d)], x, y);
        } else {
          const bool s = IsSignedInt(t);
          static constexpr llvm::CmpInst::Predicate kSigned[] = {
              llvm::CmpInst::ICMP_EQ,  llvm::CmpInst::ICMP_NE,
              llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_SLE,
              llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_SGE};
          static constexpr llvm::CmpInst::Predicate kUnsigned[] = {
              llvm::CmpInst::ICMP_EQ,  llvm::CmpInst::ICMP_NE,
              llvm::CmpInst::ICMP_ULT, llvm::CmpInst::ICMP_ULE,
              llvm::CmpInst::ICMP_UGT, llvm::CmpInst::ICMP_UGE};
          v[i] = b.CreateICmp((s ? kSigned : kUnsigned)[static_cast<int>(d)], x,
                              y);
        }
        break;
      }
      case HloOpcode::kAnd:
        v[i] = b.CreateAnd(v[i->operand(0)], v[i->operand(1)]);
        break;
      case HloOpcode::kOr:
        v[i] = b.CreateOr(v[i->operand(0)], v[i->operand(1)]);
        break;
      case HloOpcode::kXor:
        v[i] = b.CreateXor(v[i->operand(0)], v[i->operand(1)]);
        break;
      case HloOpcode::kNot:
        v[i] = b.CreateNot(v[i->operand(0)]);
        break;
      default:
        break;
    }
  }
  std::vector<llvm::Value*> out;
  for (const HloInstruction* s : comp.root()->operands()) {
    out.push_back(b.CreateSelect(v[s->operand(0)], param(s->operand(1)),
                                 param(s->operand(2))));
  }
  return out;
}

// The minor dimension for the variadic row kernel: every operand a type of
// the vector kernels but minifloats, the reducer an associative and
// commutative order-select reducer, and the physical minor dimension the
// only reduced dimension of size > 1, at least 4 vectors long.
std::optional<int64_t> VariadicRowMinor(const HloInstruction& inst,
                                        const ReducePlan& p) {
  if (p.n < 2 || inst.to_apply() == nullptr) return std::nullopt;
  int64_t lanes = 64;
  for (PrimitiveType t : p.types) {
    if (IsMinifloat(t) || IsPred(t) || (!IsVectorFloat(t) && !IsVectorInt(t))) {
      return std::nullopt;
    }
    lanes = std::min(lanes, VectorLanes(t));
  }
  for (int64_t j = 0; j < p.n; ++j) {
    if (!inst.operand(j)->shape().is_static()) return std::nullopt;
  }
  const int64_t minor = PhysicalMinorDimension(inst.operand(0)->shape());
  if (minor < 0 || p.in_dims[minor] < lanes * kRowAccumulators) {
    return std::nullopt;
  }
  for (int64_t d : p.reduced) {
    if (d != minor && p.in_dims[d] != 1) return std::nullopt;
  }
  if (!std::binary_search(p.reduced.begin(), p.reduced.end(), minor)) {
    return std::nullopt;
  }
  for (int64_t j = 1; j < p.n; ++j) {
    if (PhysicalMinorDimension(inst.operand(j)->shape()) != minor) {
      return std::nullopt;
    }
  }
  if (!IsOrderSelectReducer(*inst.to_apply(), p.types)) return std::nullopt;
  return minor;
}

// Per operand of a variadic row reduce: whether it is an iota along
// `minor` of an integer type in which every position along `minor` is
// exact (so its element is its position).
std::vector<bool> IotaIndexOperands(const HloInstruction& inst,
                                    const ReducePlan& p, int64_t minor) {
  std::vector<bool> out(p.n, false);
  for (int64_t j = 0; j < p.n; ++j) {
    const HloInstruction* o = inst.operand(j);
    const PrimitiveType t = p.types[j];
    if (o->opcode() != HloOpcode::kIota || o->attrs().iota_dimension != minor ||
        !(IsSignedInt(t) || IsUnsignedInt(t))) {
      continue;
    }
    const int w = BitWidth(t) - (IsSignedInt(t) ? 1 : 0);
    if (w < 63 && p.in_dims[minor] - 1 > (int64_t{1} << w) - 1) continue;
    out[j] = true;
  }
  return out;
}

// Variadic row reduction with an order-select reducer (any tree is the
// same result): kRowAccumulators accumulators per operand start as the
// row's first kRowAccumulators vectors; the following whole vectors fold
// into accumulator (vector index) % 4, then the accumulators combine
// ((0,1),(2,3)), the lanes in halves, the last R % lanes elements one by
// one, and the init last. Operands with iota[j] set (integer iotas along
// `minor`, every position exact in the type: IotaIndexOperands) are not
// read: their lanes are the positions; and in the whole-vector folds the
// accumulator's positions are the earlier ones, so the reducer's compares
// between them are constants (EmitOrderSelect's `earlier`): an argmax's
// index tie-break costs nothing there.
absl::StatusOr<std::vector<llvm::Value*>> EmitVariadicRowReduce(
    EmitContext& ctx, const ReducePlan& p, const HloComputation& comp,
    int64_t minor, absl::Span<const ElementGenerator> inputs,
    absl::Span<llvm::Value* const> inits, absl::Span<const bool> iota,
    const IrIndex& out) {
  IRBuilder& b = ctx.b();
  const int64_t n = p.n;
  int64_t lanes = 64;
  for (PrimitiveType t : p.types) lanes = std::min(lanes, VectorLanes(t));
  const int64_t rlen = p.in_dims[minor];
  std::vector<llvm::Type*> vts;
  for (PrimitiveType t : p.types) {
    vts.push_back(
        llvm::FixedVectorType::get(ComputeType(ctx.context(), t), lanes));
  }
  IrIndex pos(p.in_dims.size(), nullptr);
  for (size_t k = 0; k < p.kept.size(); ++k) pos[p.kept[k]] = out[k];
  for (int64_t d : p.reduced) pos[d] = ctx.I64(0);
  // The positions first, first + 1, ... of an iota operand j; with
  // `chunk_base` (the positions of the chunk's first vector, formed once
  // per chunk) and `offset` (first minus the chunk's start) one add of a
  // constant instead of a broadcast per vector.
  auto positions = [&](int64_t j, llvm::Value* first) {
    llvm::Type* et = vts[j]->getScalarType();
    std::vector<llvm::Constant*> steps;
    for (int64_t l = 0; l < lanes; ++l) {
      steps.push_back(llvm::ConstantInt::get(et, l));
    }
    return b.CreateAdd(b.CreateVectorSplat(lanes, b.CreateTrunc(first, et)),
                       llvm::ConstantVector::get(steps));
  };
  std::vector<llvm::Value*> chunk_base(n, nullptr);
  int64_t offset = 0;
  auto gather =
      [&](llvm::Value* first) -> absl::StatusOr<std::vector<llvm::Value*>> {
    std::vector<llvm::Value*> x(n);
    for (int64_t j = 0; j < n; ++j) {
      if (iota[j]) {
        x[j] =
            chunk_base[j] == nullptr
                ? positions(j, first)
                : b.CreateAdd(chunk_base[j],
                              b.CreateVectorSplat(
                                  lanes, llvm::ConstantInt::get(
                                             vts[j]->getScalarType(), offset)));
        continue;
      }
      HLOREF_ASSIGN_OR_RETURN(
          x[j], EmitGatherLanes(ctx, inputs[j], pos, minor, first, lanes, lanes,
                                inits[j]));
    }
    return x;
  };
  std::vector<std::vector<llvm::Value*>> acc(kRowAccumulators,
                                             std::vector<llvm::Value*>(n));
  for (int64_t k = 0; k < kRowAccumulators; ++k) {
    HLOREF_ASSIGN_OR_RETURN(std::vector<llvm::Value*> x,
                            gather(ctx.I64(k * lanes)));
    for (int64_t j = 0; j < n; ++j) {
      acc[k][j] = VectorAlloca(ctx, vts[j], 1, "vrow.acc");
      b.CreateStore(x[j], acc[k][j]);
    }
  }
  auto fold = [&](int64_t k, llvm::Value* first) -> absl::Status {
    HLOREF_ASSIGN_OR_RETURN(std::vector<llvm::Value*> x, gather(first));
    std::vector<llvm::Value*> a(n);
    for (int64_t j = 0; j < n; ++j) a[j] = b.CreateLoad(vts[j], acc[k][j]);
    std::vector<llvm::Value*> r =
        EmitOrderSelect(ctx, comp, p.types, a, x, iota);
    for (int64_t j = 0; j < n; ++j) b.CreateStore(r[j], acc[k][j]);
    return absl::OkStatus();
  };
  const int64_t chunk = lanes * kRowAccumulators;
  const int64_t chunks = rlen / chunk;
  if (chunks > 1) {
    HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
        "vrow.chunk", ctx.I64(1), ctx.I64(chunks), ctx.I64(1),
        [&](llvm::Value* c) -> absl::Status {
          llvm::Value* first = b.CreateMul(c, ctx.I64(chunk));
          for (int64_t j = 0; j < n; ++j) {
            if (iota[j]) chunk_base[j] = positions(j, first);
          }
          for (int64_t k = 0; k < kRowAccumulators; ++k) {
            offset = k * lanes;
            HLOREF_RETURN_IF_ERROR(
                fold(k, b.CreateAdd(first, ctx.I64(k * lanes))));
          }
          std::fill(chunk_base.begin(), chunk_base.end(), nullptr);
          return absl::OkStatus();
        }));
  }
  int64_t done = chunks * chunk;
  for (int64_t k = 0; done + lanes <= rlen; ++k, done += lanes) {
    HLOREF_RETURN_IF_ERROR(fold(k, ctx.I64(done)));
  }
  auto load = [&](int64_t k) {
    std::vector<llvm::Value*> a(n);
    for (int64_t j = 0; j < n; ++j) a[j] = b.CreateLoad(vts[j], acc[k][j]);
    return a;
  };
  std::vector<llvm::Value*> t = EmitOrderSelect(
      ctx, comp, p.types, EmitOrderSelect(ctx, comp, p.types, load(0), load(1)),
      EmitOrderSelect(ctx, comp, p.types, load(2), load(3)));
  for (int64_t w = lanes; w > 1; w /= 2) {
    std::vector<int> lo, hi;
    for (int64_t i = 0; i < w / 2; ++i) {
      lo.push_back(static_cast<int>(i));
      hi.push_back(static_cast<int>(i + w / 2));
    }
    std::vector<llvm::Value*> l(n), h(n);
    for (int64_t j = 0; j < n; ++j) {
      l[j] = b.CreateShuffleVector(t[j], lo);
      h[j] = b.CreateShuffleVector(t[j], hi);
    }
    t = EmitOrderSelect(ctx, comp, p.types, l, h);
  }
  for (int64_t j = 0; j < n; ++j) {
    t[j] = b.CreateExtractElement(t[j], uint64_t{0});
  }
  for (; done < rlen; ++done) {
    std::vector<llvm::Value*> x(n);
    IrIndex at = pos;
    at[minor] = ctx.I64(done);
    for (int64_t j = 0; j < n; ++j) {
      HLOREF_ASSIGN_OR_RETURN(x[j], inputs[j](at));
    }
    t = EmitOrderSelect(ctx, comp, p.types, t, x);
  }
  return EmitOrderSelect(ctx, comp, p.types, inits, t);
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
  bool row = false;
  const std::optional<int64_t> minor = VectorKernelMinor(inst, plan, &row);
  const LaneOp op = SimpleReducer(*comp, plan.types[0]);
  // Whether the output's most major dimension of extent other than 1 (the
  // one parallel loop nests split: computation_emitter.cc OuterDim) is the
  // operand's minor one.
  bool split_on_minor = false;
  if (minor && !row) {
    const Shape& out = inst.shape();
    const Layout layout = out.LayoutOrDefault();
    int64_t major = 0;
    if (static_cast<int64_t>(layout.minor_to_major.size()) == out.rank() &&
        out.rank() > 0) {
      major = layout.minor_to_major.back();
      for (auto it = layout.minor_to_major.rbegin();
           it != layout.minor_to_major.rend(); ++it) {
        if (out.dimensions(*it) != 1) {
          major = *it;
          break;
        }
      }
    }
    split_on_minor = major < static_cast<int64_t>(plan.kept.size()) &&
                     plan.kept[major] == *minor;
  }
  // Whether every element is a bf16 number held in f32 (EmitRowReduce).
  const HloInstruction* in = inst.operand(0);
  const bool bf16_pairs =
      plan.types[0] == PrimitiveType::kBF16 ||
      (plan.types[0] == PrimitiveType::kF32 &&
       in->opcode() == HloOpcode::kConvert &&
       in->operand(0)->shape().element_type() == PrimitiveType::kBF16);
  return ElementGenerator(
      [&ctx, plan = std::move(plan), ops = std::move(ops), comp, minor, row, op,
       split_on_minor,
       bf16_pairs](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * init, ops[1](IrIndex{}));
        if (minor && row) {
          return EmitRowReduce(ctx, plan, op, *minor, bf16_pairs, ops[0], init,
                               index);
        }
        if (minor) {
          return EmitColumnReduce(ctx, plan, *comp, op, *minor, split_on_minor,
                                  ops[0], init, index);
        }
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
  const int64_t n = inst.operand_count() / 2;
  std::vector<ElementGenerator> inputs;
  for (int64_t j = 0; j < n; ++j) {
    inputs.push_back(Reader(ctx, operands[j].array));
  }
  return EmitVariadicReduce(ctx, inst, inputs, operands.subspan(n), output);
}

// ---- windows (reduce-window, select-and-scatter)

struct WindowPlan {
  std::vector<int64_t> in_dims;
  std::vector<WindowDimension> window;
  // Per dimension: every window position of every index in the index
  // space (the output's or the source's extents) lies inside the operand,
  // so the visitor needs no bounds test there (no padding reached, no base
  // dilation).
  std::vector<bool> always_inside;
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
  p.always_inside.resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    const WindowDimension& wd = p.window[d];
    const int64_t extent = out.dimensions()[d];
    // Positions o * stride + w * window_dilation - padding_low for o in
    // [0, extent), w in [0, size): the least is -padding_low, the greatest
    // (extent - 1) * stride + (size - 1) * window_dilation - padding_low.
    p.always_inside[d] = wd.base_dilation == 1 && extent > 0 && wd.size > 0 &&
                         wd.padding_low <= 0 &&
                         (extent - 1) * wd.stride +
                                 (wd.size - 1) * wd.window_dilation -
                                 wd.padding_low <
                             p.in_dims[d];
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
        valid[d] = p.always_inside[d] ? nullptr : ok;
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

// `v` (a compute value of `type`) converted to the type of parameter `k`
// of `comp` when that differs (impl.select-and-scatter.2).
absl::StatusOr<llvm::Value*> AsParamType(EmitContext& ctx,
                                         const HloComputation& comp, int64_t k,
                                         PrimitiveType type, llvm::Value* v) {
  const HloInstruction* p = comp.parameter(k);
  if (p == nullptr || !p->shape().IsArray() ||
      p->shape().element_type() == type) {
    return v;
  }
  return EmitConvertValue(ctx, type, p->shape().element_type(), v);
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
          // impl.select-and-scatter.2: select in another floating-point
          // precision compares the values converted to its types.
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * sel_a,
                                  AsParamType(ctx, select, 0, type, current));
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * sel_b,
                                  AsParamType(ctx, select, 1, type, candidate));
          HLOREF_ASSIGN_OR_RETURN(
              std::vector<llvm::Value*> keep,
              ctx.EmitCallScalarComputation(select, {sel_a, sel_b}));
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
              // impl.select-and-scatter.2: a scatter computation in
              // another floating-point precision gets its arguments
              // converted and its result converted back to T.
              HLOREF_ASSIGN_OR_RETURN(
                  llvm::Value * current,
                  AsParamType(ctx, scatter, 0, type, out.EmitRead(ctx, sel)));
              HLOREF_ASSIGN_OR_RETURN(
                  llvm::Value * src,
                  AsParamType(ctx, scatter, 1, type, source.EmitRead(ctx, s)));
              HLOREF_ASSIGN_OR_RETURN(
                  std::vector<llvm::Value*> r,
                  ctx.EmitCallScalarComputation(scatter, {current, src}));
              const Shape& root = scatter.root()->shape();
              if (r.size() == 1 && root.IsArray() &&
                  root.element_type() != type) {
                HLOREF_ASSIGN_OR_RETURN(
                    r[0],
                    EmitConvertValue(ctx, root.element_type(), type, r[0]));
              }
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

absl::Status EmitVariadicReduce(EmitContext& ctx, const HloInstruction& inst,
                                absl::Span<const ElementGenerator> inputs,
                                absl::Span<const IrValue> init_values,
                                const IrValue& output) {
  HLOREF_ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(inst));
  std::vector<IrArray> outs;
  output.CollectArrays(&outs);
  const std::optional<int64_t> minor =
      VectorKernelsEnabled() ? VariadicRowMinor(inst, plan) : std::nullopt;
  const std::vector<bool> iota_flags =
      minor ? IotaIndexOperands(inst, plan, *minor)
            : std::vector<bool>(plan.n, false);
  // (std::vector<bool> has no span.)
  const std::unique_ptr<bool[]> iota(new bool[plan.n]);
  for (int64_t j = 0; j < plan.n; ++j) iota[j] = iota_flags[j];
  return ctx.EmitLoopNest(
      outs[0].shape(), "reduce", [&](const IrIndex& index) -> absl::Status {
        std::vector<llvm::Value*> inits;
        for (int64_t j = 0; j < plan.n; ++j) {
          inits.push_back(init_values[j].array.EmitRead(ctx, {}));
        }
        std::vector<llvm::Value*> r;
        if (minor) {
          HLOREF_ASSIGN_OR_RETURN(
              r, EmitVariadicRowReduce(
                     ctx, plan, *inst.to_apply(), *minor, inputs, inits,
                     absl::MakeConstSpan(iota.get(), plan.n), index));
        } else {
          HLOREF_ASSIGN_OR_RETURN(
              r, EmitFold(ctx, *inst.to_apply(), plan.types, inits, inputs,
                          ReduceVisitor(ctx, plan, index)));
        }
        for (int64_t j = 0; j < plan.n; ++j)
          outs[j].EmitWrite(ctx, index, r[j]);
        return absl::OkStatus();
      });
}

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
