// The contraction family as elemental emitters: dot (dot-general),
// ragged-dot, scaled-dot and convolution. Each output element's generator
// loops over the contracted positions and accumulates the products; no
// packing or tiling here. A target may take large dots elsewhere: the CPU
// backend declines dots above its GEMM threshold in this emitter and runs
// them on its packed GEMM runtime (backends/cpu/emitters/dot.cc,
// docs/cpu-kernels.md), and float convolutions above the same threshold on
// its implicit-GEMM convolution runtime (backends/cpu/emitters/
// convolution.cc); small ones stay here, where they inline and fuse.
//
// Semantics are the oracle's (seed 001 "DotGeneral", "ConvWithGeneral
// Padding"; interpreter/ops/{dot,convolution,ragged_scaled_dot}.cc),
// restated here in IR:
//   * dot: result dimensions are the batch dimensions (lhs_batch_dims
//     order), the lhs free dimensions (ascending), the rhs free dimensions
//     (ascending); every output element sums lhs * rhs over the contracting
//     multi-index (lhs_contracting_dims order, paired with
//     rhs_contracting_dims).
//   * Accumulation (numerics.md decision 4, class A): float results
//     accumulate in f64 (products of operands up to f32 precision are exact
//     there) and round ONCE to the result type (fptrunc for f32,
//     EmitRoundToType for narrow floats), so the error stays far inside
//     the comparator's gamma_m(u_T) * S bound for any m >= 1 and is the
//     correctly rounded sum when m = 0. When an operand is f64 or c128 the
//     products can overflow or underflow f64 where the oracle's exact sum
//     does not (1e200*1e200 - 1e200*1e200 is 0, not inf - inf = NaN; a sum
//     past f64's range must round to inf): those sums run in x87 extended
//     precision (IEEE quad off x86), whose exponent range holds every
//     product, and round once to f64 at the end. f8e8m0fnu results round
//     on the type's grid first (RoundSumToType). Complex
//     results accumulate both components in f64 the same way (re += ar*br,
//     re += (-ai)*bi, im += ar*bi, im += ai*br). Integer results wrap in
//     the result width (operands sign- or zero-extended by their own
//     signedness, or truncated: the same residue as the oracle's 64-bit
//     wrap). pred results are the OR of the ANDs. Integer operands with a
//     float or complex result must be at most 53 bits wide (exact in f64,
//     as the oracle's LoadReal requires); float operands with an integer
//     result and complex operands with a real result are Unimplemented
//     (the oracle does not define them either).
//   * operand_precision and the dot algorithm do not change the value (the
//     oracle records them; they only widen what the comparator accepts), so
//     computing at full precision satisfies every one of them.
//   * convolution: output (b, o, spatial) sums, over the window positions w
//     (row-major over the spatial dimensions) and the input features c of
//     o's feature group, input[in_b, g*Cg + c, pos] * kernel[o, c, kw],
//     where pos_d = o_d*stride + w_d*rhs_dilate - pad_low must fall inside
//     the base-dilated input on a non-hole (pos_d % lhs_dilate == 0; the
//     input index is pos_d / lhs_dilate), kw_d = w_d or K_d-1-w_d under
//     window reversal, feature group g = o / (O / feature_group_count),
//     batch group h = o / (O / batch_group_count) and in_b = h * B_out + b.
//   * ragged-dot: the three modes by the kind of the lhs ragged dimension
//     (interpreter/ops/ragged_scaled_dot.cc): group g covers the ragged
//     indices i with start_g <= i < end_g, the inclusive cumulative sums of
//     group_sizes computed and compared in the group_sizes type (wrapping);
//     mode 1 (free) sums the rhs group of every group containing the row,
//     mode 2 (contracting) keeps the contracting indices of output group g,
//     mode 3 (batch) is the plain dot.
//   * scaled-dot: each operand is dequantized, x * scale[block] rounded once
//     to D (bf16 when operand and scale are narrower than 16 bits, else the
//     common type, else f32 for equal widths, else the wider one), then
//     dot-general of the dequantized operands.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {
namespace {

// scaled-dot's operand order, in ONE place: XLA's (lhs, rhs, lhs_scale,
// rhs_scale), as spec/verifier/dot.cc and the oracle read it.
struct ScaledDotOperands {
  static constexpr int kLhs = 0;
  static constexpr int kRhs = 1;
  static constexpr int kLhsScale = 2;
  static constexpr int kRhsScale = 3;
};

bool Has(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Dimensions of [0, rank) not in a, b or c, ascending.
std::vector<int64_t> OtherDims(int64_t rank, absl::Span<const int64_t> a,
                               absl::Span<const int64_t> b,
                               absl::Span<const int64_t> c = {}) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Has(a, d) && !Has(b, d) && !Has(c, d)) out.push_back(d);
  }
  return out;
}

// Row-major loop nest over `sizes` (size-1 dimensions get the constant 0,
// a zero size runs nothing); body gets one i64 per dimension.
absl::Status EmitNest(EmitContext& ctx, absl::Span<const int64_t> sizes,
                      absl::string_view name,
                      const std::function<absl::Status(const IrIndex&)>& body) {
  for (int64_t s : sizes) {
    if (s == 0) return absl::OkStatus();
  }
  IrIndex index(sizes.size(), nullptr);
  std::function<absl::Status(size_t)> nest = [&](size_t level) {
    if (level == sizes.size()) return body(index);
    if (sizes[level] == 1) {
      index[level] = ctx.I64(0);
      return nest(level + 1);
    }
    return ctx.EmitForLoop(absl::StrCat(name, ".k", level), ctx.I64(0),
                           ctx.I64(sizes[level]), ctx.I64(1),
                           [&](llvm::Value* iv) -> absl::Status {
                             index[level] = iv;
                             return nest(level + 1);
                           });
  };
  return nest(0);
}

// ---- The accumulator shared by every member of the family.

enum class AccKind { kPred, kInt, kReal, kComplex };

struct Accumulation {
  AccKind kind = AccKind::kReal;
  PrimitiveType out = PrimitiveType::kF32;  // result element type
  PrimitiveType lt = PrimitiveType::kF32;   // lhs product operand type
  PrimitiveType rt = PrimitiveType::kF32;   // rhs product operand type
};

bool IsIntLike(PrimitiveType t) { return IsPred(t) || IsInteger(t); }

absl::Status CheckRealOperand(PrimitiveType t, PrimitiveType out) {
  if (IsFloat(t)) return absl::OkStatus();
  if (IsIntLike(t) && BitWidth(t) <= 53) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat("operand type ", PrimitiveTypeName(t), " with a ",
                   PrimitiveTypeName(out), " result is not supported"));
}

// Validates the operand/result type combination (no code emitted).
absl::StatusOr<Accumulation> PlanAccumulation(PrimitiveType lt,
                                              PrimitiveType rt,
                                              PrimitiveType out) {
  Accumulation a;
  a.out = out;
  a.lt = lt;
  a.rt = rt;
  if (!IsArrayType(lt) || !IsArrayType(rt) || !IsArrayType(out)) {
    return absl::UnimplementedError("non-array element types");
  }
  if (IsPred(out) || IsInteger(out)) {
    if (!IsIntLike(lt) || !IsIntLike(rt)) {
      return absl::UnimplementedError(absl::StrCat(
          "operands ", PrimitiveTypeName(lt), " and ", PrimitiveTypeName(rt),
          " with an integer result are not supported"));
    }
    a.kind = IsPred(out) ? AccKind::kPred : AccKind::kInt;
    return a;
  }
  if (IsFloat(out)) {
    if (IsComplex(lt) || IsComplex(rt)) {
      return absl::UnimplementedError(
          "complex operands with a real result are not supported");
    }
    HLOREF_RETURN_IF_ERROR(CheckRealOperand(lt, out));
    HLOREF_RETURN_IF_ERROR(CheckRealOperand(rt, out));
    a.kind = AccKind::kReal;
    return a;
  }
  if (IsComplex(out)) {
    if (!IsComplex(lt)) HLOREF_RETURN_IF_ERROR(CheckRealOperand(lt, out));
    if (!IsComplex(rt)) HLOREF_RETURN_IF_ERROR(CheckRealOperand(rt, out));
    a.kind = AccKind::kComplex;
    return a;
  }
  return absl::UnimplementedError(absl::StrCat(
      "result type ", PrimitiveTypeName(out), " is not supported"));
}

// A real compute value of `t` (float/double/iN/i1) exactly in the float
// type `to` (double or wider; integers here have at most 53 bits).
llvm::Value* ToFloat(EmitContext& ctx, PrimitiveType t, llvm::Value* v,
                     llvm::Type* to) {
  IRBuilder& b = ctx.b();
  if (v->getType() == to) return v;
  if (v->getType()->isFloatingPointTy()) return b.CreateFPExt(v, to);
  return IsSignedInt(t) ? b.CreateSIToFP(v, to) : b.CreateUIToFP(v, to);
}
llvm::Value* ToDouble(EmitContext& ctx, PrimitiveType t, llvm::Value* v) {
  return ToFloat(ctx, t, v, ctx.b().getDoubleTy());
}

// (re, im) in the float type `to` of a compute value of `t` (real: im =
// 0).
std::pair<llvm::Value*, llvm::Value*> ToComplexFloat(EmitContext& ctx,
                                                     PrimitiveType t,
                                                     llvm::Value* v,
                                                     llvm::Type* to) {
  IRBuilder& b = ctx.b();
  if (IsComplex(t)) {
    llvm::Value* re = b.CreateExtractValue(v, 0);
    llvm::Value* im = b.CreateExtractValue(v, 1);
    if (re->getType() != to) {
      re = b.CreateFPExt(re, to);
      im = b.CreateFPExt(im, to);
    }
    return {re, im};
  }
  return {ToFloat(ctx, t, v, to), llvm::ConstantFP::get(to, 0.0)};
}

// Whether an operand type has f64's exponent range: products of two such
// values can overflow or underflow f64 where the oracle's exact sum does
// not, so these accumulate in a type with a wider exponent range.
bool HasF64Range(PrimitiveType t) {
  return t == PrimitiveType::kF64 || t == PrimitiveType::kC128;
}

// The float type for sums whose products may leave f64's range: x87's
// 80-bit extended (64-bit significand, 15-bit exponent) on x86, IEEE quad
// elsewhere. Products of f64 values round once there (2^-64) and never
// overflow or underflow; the final fptrunc rounds once to f64.
llvm::Type* WideFloatType(EmitContext& ctx) {
  std::string triple = ctx.module().getTargetTriple();
  if (triple.empty()) triple = llvm::sys::getProcessTriple();
  const llvm::Triple t(triple);
  if (t.getArch() == llvm::Triple::x86_64 || t.getArch() == llvm::Triple::x86) {
    return llvm::Type::getX86_FP80Ty(ctx.context());
  }
  return llvm::Type::getFP128Ty(ctx.context());
}

// An integer compute value of `t` (iN or i1) as iW, W the result width:
// the same residue modulo 2^W as the value.
llvm::Value* ToIntWidth(EmitContext& ctx, PrimitiveType t, llvm::Value* v,
                        llvm::Type* to) {
  IRBuilder& b = ctx.b();
  return IsSignedInt(t) ? b.CreateSExtOrTrunc(v, to)
                        : b.CreateZExtOrTrunc(v, to);
}

// The f64 sum `v` rounded once to the narrow float `type`, as the oracle
// does it: to the type's grid (precision p, minimum exponent emin, so
// values below the smallest normal round on the subnormal spacing), then
// encoded. For every type but f8e8m0fnu that is EmitRoundToType. f8e8m0fnu
// has no zero and no subnormals: its convert rule sends (0, 2^-127) to
// 2^-127, but on the grid (spacing 2^-127 there) sums in (0, 2^-128]
// round to 0 (the tie 2^-128 to even), which encodes as NaN.
llvm::Value* RoundSumToType(EmitContext& ctx, PrimitiveType type,
                            llvm::Value* v) {
  if (type == PrimitiveType::kF8E8M0FNU) {
    IRBuilder& b = ctx.b();
    llvm::Type* dbl = b.getDoubleTy();
    llvm::Value* to_zero =
        b.CreateAnd(b.CreateFCmpOGT(v, llvm::ConstantFP::get(dbl, 0.0)),
                    b.CreateFCmpOLE(v, llvm::ConstantFP::get(dbl, 0x1p-128)));
    v = b.CreateSelect(to_zero, llvm::ConstantFP::get(dbl, 0.0), v);
  }
  return EmitRoundToType(ctx, type, v);
}

// The running sum of one output element: entry-block slots (LLVM promotes
// them to registers), initialised to zero where Begin is emitted.
class Accumulator {
 public:
  Accumulator(EmitContext& ctx, const Accumulation& plan)
      : ctx_(ctx), plan_(plan) {}

  void Begin() {
    IRBuilder& b = ctx_.b();
    switch (plan_.kind) {
      case AccKind::kPred:
        type_ = b.getInt1Ty();
        break;
      case AccKind::kInt:
        type_ = b.getIntNTy(BitWidth(plan_.out));
        break;
      case AccKind::kReal:
      case AccKind::kComplex:
        type_ = HasF64Range(plan_.lt) || HasF64Range(plan_.rt)
                    ? WideFloatType(ctx_)
                    : b.getDoubleTy();
        break;
    }
    slot0_ = ctx_.EntryAlloca(type_, 1, "acc");
    b.CreateStore(llvm::Constant::getNullValue(type_), slot0_);
    if (plan_.kind == AccKind::kComplex) {
      slot1_ = ctx_.EntryAlloca(type_, 1, "acc.im");
      b.CreateStore(llvm::Constant::getNullValue(type_), slot1_);
    }
  }

  // acc += l * r (l, r compute values of plan.lt / plan.rt).
  void Add(llvm::Value* l, llvm::Value* r) {
    IRBuilder& b = ctx_.b();
    switch (plan_.kind) {
      case AccKind::kPred: {
        llvm::Value* lb =
            l->getType()->isIntegerTy(1)
                ? l
                : b.CreateICmpNE(l, llvm::ConstantInt::get(l->getType(), 0));
        llvm::Value* rb =
            r->getType()->isIntegerTy(1)
                ? r
                : b.CreateICmpNE(r, llvm::ConstantInt::get(r->getType(), 0));
        llvm::Value* acc = b.CreateLoad(type_, slot0_);
        b.CreateStore(b.CreateOr(acc, b.CreateAnd(lb, rb)), slot0_);
        return;
      }
      case AccKind::kInt: {
        llvm::Value* li = ToIntWidth(ctx_, plan_.lt, l, type_);
        llvm::Value* ri = ToIntWidth(ctx_, plan_.rt, r, type_);
        llvm::Value* acc = b.CreateLoad(type_, slot0_);
        b.CreateStore(b.CreateAdd(acc, b.CreateMul(li, ri)), slot0_);
        return;
      }
      case AccKind::kReal: {
        llvm::Value* ld = ToFloat(ctx_, plan_.lt, l, type_);
        llvm::Value* rd = ToFloat(ctx_, plan_.rt, r, type_);
        llvm::Value* acc = b.CreateLoad(type_, slot0_);
        b.CreateStore(b.CreateFAdd(acc, b.CreateFMul(ld, rd)), slot0_);
        return;
      }
      case AccKind::kComplex: {
        auto [ar, ai] = ToComplexFloat(ctx_, plan_.lt, l, type_);
        auto [br, bi] = ToComplexFloat(ctx_, plan_.rt, r, type_);
        const bool real_l = !IsComplex(plan_.lt), real_r = !IsComplex(plan_.rt);
        llvm::Value* re = b.CreateLoad(type_, slot0_);
        re = b.CreateFAdd(re, b.CreateFMul(ar, br));
        if (!real_l && !real_r) {
          re = b.CreateFAdd(re, b.CreateFMul(b.CreateFNeg(ai), bi));
        }
        b.CreateStore(re, slot0_);
        llvm::Value* im = b.CreateLoad(type_, slot1_);
        if (!real_l) im = b.CreateFAdd(im, b.CreateFMul(ai, br));
        if (!real_r) im = b.CreateFAdd(im, b.CreateFMul(ar, bi));
        b.CreateStore(im, slot1_);
        return;
      }
    }
  }

  // The result element in the compute representation of plan.out.
  llvm::Value* Finish() {
    IRBuilder& b = ctx_.b();
    llvm::Value* v0 = b.CreateLoad(type_, slot0_);
    switch (plan_.kind) {
      case AccKind::kPred:
      case AccKind::kInt:
        return v0;
      case AccKind::kReal:
        if (plan_.out == PrimitiveType::kF64 ||
            plan_.out == PrimitiveType::kF32) {
          // One rounding (fptrunc is correctly rounded).
          return b.CreateFPTrunc(v0, ComputeType(ctx_.context(), plan_.out));
        }
        // Narrow floats: from f64 (a wide sum is first rounded to f64; its
        // products were rounded already, so m >= 1 and the bound's slack
        // covers the second rounding).
        return RoundSumToType(ctx_, plan_.out,
                              b.CreateFPTrunc(v0, b.getDoubleTy()));
      case AccKind::kComplex: {
        llvm::Value* v1 = b.CreateLoad(type_, slot1_);
        llvm::Type* ct = ComputeType(ctx_.context(), plan_.out);
        llvm::Type* et =
            plan_.out == PrimitiveType::kC64 ? b.getFloatTy() : b.getDoubleTy();
        v0 = b.CreateFPTrunc(v0, et);
        v1 = b.CreateFPTrunc(v1, et);
        llvm::Value* c = llvm::UndefValue::get(ct);
        c = b.CreateInsertValue(c, v0, 0);
        return b.CreateInsertValue(c, v1, 1);
      }
    }
    return v0;
  }

 private:
  EmitContext& ctx_;
  const Accumulation& plan_;
  llvm::Type* type_ = nullptr;
  llvm::Value* slot0_ = nullptr;
  llvm::Value* slot1_ = nullptr;
};

// ---- dot (and the dot-general core of ragged-dot / scaled-dot)

struct DotPlan {
  std::vector<int64_t> lb, rb, lc, rc, lf, rf;
  std::vector<int64_t> c_sizes;  // sizes of the contracting dims (lc order)
  int64_t lrank = 0, rrank = 0;
  Accumulation acc;
};

absl::Status CheckArrayOperand(const HloInstruction& inst, int64_t i) {
  if (i >= inst.operand_count() || !inst.operand(i)->shape().IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        HloOpcodeString(inst.opcode()), " operand ", i, " is not an array"));
  }
  return absl::OkStatus();
}

// The dot-general structure of lhs x rhs with `rhs_skip` rhs dimensions
// (a ragged-dot group dimension) left out of the free dimensions; checks
// the result rank against `lead` extra leading result dimensions.
absl::StatusOr<DotPlan> PlanDot(const HloInstruction& inst, const Shape& ls,
                                const Shape& rs, PrimitiveType lt,
                                PrimitiveType rt,
                                absl::Span<const int64_t> rhs_skip,
                                int64_t lead) {
  const DotDimensionNumbers& dn = inst.attrs().dot_dimension_numbers;
  DotPlan p;
  p.lb = dn.lhs_batch_dimensions;
  p.rb = dn.rhs_batch_dimensions;
  p.lc = dn.lhs_contracting_dimensions;
  p.rc = dn.rhs_contracting_dimensions;
  p.lrank = ls.rank();
  p.rrank = rs.rank();
  if (p.lb.size() != p.rb.size() || p.lc.size() != p.rc.size()) {
    return absl::InvalidArgumentError(
        "dot batch or contracting dimension counts differ");
  }
  for (size_t j = 0; j < p.lc.size(); ++j) {
    if (p.lc[j] < 0 || p.lc[j] >= p.lrank || p.rc[j] < 0 ||
        p.rc[j] >= p.rrank ||
        ls.dimensions(p.lc[j]) != rs.dimensions(p.rc[j])) {
      return absl::InvalidArgumentError("dot contracting dimensions differ");
    }
    p.c_sizes.push_back(ls.dimensions(p.lc[j]));
  }
  for (size_t j = 0; j < p.lb.size(); ++j) {
    if (p.lb[j] < 0 || p.lb[j] >= p.lrank || p.rb[j] < 0 ||
        p.rb[j] >= p.rrank ||
        ls.dimensions(p.lb[j]) != rs.dimensions(p.rb[j])) {
      return absl::InvalidArgumentError("dot batch dimensions differ");
    }
  }
  p.lf = OtherDims(p.lrank, p.lb, p.lc);
  p.rf = OtherDims(p.rrank, p.rb, p.rc, rhs_skip);
  const Shape& out = inst.shape();
  if (!out.IsArray() ||
      out.rank() != lead + static_cast<int64_t>(p.lb.size() + p.lf.size() +
                                                p.rf.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat(HloOpcodeString(inst.opcode()),
                     " result rank does not match the dimension numbers"));
  }
  HLOREF_ASSIGN_OR_RETURN(p.acc, PlanAccumulation(lt, rt, out.element_type()));
  return p;
}

// Fills the batch and free positions of the operand indices from the
// output index (whose first `lead` entries belong to neither).
void SetOuterIndices(const DotPlan& p, const IrIndex& out, size_t lead,
                     IrIndex* lidx, IrIndex* ridx) {
  lidx->assign(p.lrank, nullptr);
  ridx->assign(p.rrank, nullptr);
  const size_t nb = p.lb.size(), nlf = p.lf.size();
  for (size_t j = 0; j < nb; ++j) {
    (*lidx)[p.lb[j]] = out[lead + j];
    (*ridx)[p.rb[j]] = out[lead + j];
  }
  for (size_t j = 0; j < nlf; ++j) (*lidx)[p.lf[j]] = out[lead + nb + j];
  for (size_t j = 0; j < p.rf.size(); ++j) {
    (*ridx)[p.rf[j]] = out[lead + nb + nlf + j];
  }
}

// Accumulates lhs * rhs over the contracting multi-index into `acc`,
// with `lidx` / `ridx` holding the outer positions. `filter`, when set,
// is called with the contracting index and returns an i1 condition under
// which the term counts (ragged-dot's contracting mode).
absl::Status EmitContract(
    EmitContext& ctx, const DotPlan& p, const ElementGenerator& lhs,
    const ElementGenerator& rhs, IrIndex lidx, IrIndex ridx, Accumulator& acc,
    const std::function<absl::StatusOr<llvm::Value*>(const IrIndex&)>& filter =
        nullptr) {
  return EmitNest(ctx, p.c_sizes, "dot", [&](const IrIndex& c) -> absl::Status {
    for (size_t j = 0; j < p.lc.size(); ++j) {
      lidx[p.lc[j]] = c[j];
      ridx[p.rc[j]] = c[j];
    }
    auto term = [&]() -> absl::Status {
      HLOREF_ASSIGN_OR_RETURN(llvm::Value * l, lhs(lidx));
      HLOREF_ASSIGN_OR_RETURN(llvm::Value * r, rhs(ridx));
      acc.Add(l, r);
      return absl::OkStatus();
    };
    if (!filter) return term();
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * keep, filter(c));
    return ctx.EmitIf(keep, term, "dot.keep");
  });
}

absl::StatusOr<ElementGenerator> EmitDot(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  if (inst.operand_count() != 2 || operands.size() != 2) {
    return absl::InvalidArgumentError("dot takes two operands");
  }
  HLOREF_RETURN_IF_ERROR(CheckArrayOperand(inst, 0));
  HLOREF_RETURN_IF_ERROR(CheckArrayOperand(inst, 1));
  const Shape& ls = inst.operand(0)->shape();
  const Shape& rs = inst.operand(1)->shape();
  HLOREF_ASSIGN_OR_RETURN(
      DotPlan plan, PlanDot(inst, ls, rs, ls.element_type(), rs.element_type(),
                            {}, /*lead=*/0));
  ElementGenerator lhs = operands[0], rhs = operands[1];
  return ElementGenerator(
      [&ctx, plan = std::move(plan), lhs,
       rhs](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        IrIndex lidx, ridx;
        SetOuterIndices(plan, index, 0, &lidx, &ridx);
        Accumulator acc(ctx, plan.acc);
        acc.Begin();
        HLOREF_RETURN_IF_ERROR(
            EmitContract(ctx, plan, lhs, rhs, lidx, ridx, acc));
        return acc.Finish();
      });
}

// ---- convolution

struct ConvPlan {
  ConvolutionDimensionNumbers dn;
  std::vector<WindowDimension> window;
  std::vector<int64_t> in_size, k_size;  // per spatial dimension
  int64_t group_features = 0;            // Cg (kernel input features)
  int64_t out_per_fgroup = 0, out_per_bgroup = 0, out_batch = 0;
  int64_t fgc = 1, bgc = 1;
  int64_t rank = 0;
  Accumulation acc;
};

absl::StatusOr<ConvPlan> PlanConvolution(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(CheckArrayOperand(inst, 0));
  HLOREF_RETURN_IF_ERROR(CheckArrayOperand(inst, 1));
  if (inst.operand_count() != 2) {
    return absl::InvalidArgumentError("convolution takes two operands");
  }
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  const Shape& out = inst.shape();
  ConvPlan p;
  p.dn = inst.attrs().convolution_dimension_numbers;
  p.window = inst.attrs().window.dimensions;
  const size_t n = p.dn.input_spatial_dimensions.size();
  if (!out.IsArray() || p.window.size() != n ||
      p.dn.kernel_spatial_dimensions.size() != n ||
      p.dn.output_spatial_dimensions.size() != n ||
      lhs.rank() != static_cast<int64_t>(n) + 2 ||
      rhs.rank() != static_cast<int64_t>(n) + 2 ||
      out.rank() != static_cast<int64_t>(n) + 2) {
    return absl::InvalidArgumentError(
        "convolution window, dim_labels and ranks disagree");
  }
  p.rank = static_cast<int64_t>(n) + 2;
  p.fgc = inst.attrs().feature_group_count;
  p.bgc = inst.attrs().batch_group_count;
  const int64_t in_batch = lhs.dimensions(p.dn.input_batch_dimension);
  const int64_t in_features = lhs.dimensions(p.dn.input_feature_dimension);
  const int64_t out_features =
      rhs.dimensions(p.dn.kernel_output_feature_dimension);
  p.group_features = rhs.dimensions(p.dn.kernel_input_feature_dimension);
  p.out_batch = out.dimensions(p.dn.output_batch_dimension);
  if (p.fgc < 1 || p.bgc < 1 || in_features != p.group_features * p.fgc ||
      out_features % p.fgc != 0 || out_features % p.bgc != 0 ||
      in_batch != p.out_batch * p.bgc ||
      out.dimensions(p.dn.output_feature_dimension) != out_features) {
    return absl::InvalidArgumentError(
        "convolution feature/batch group counts do not match the shapes");
  }
  p.out_per_fgroup = out_features / p.fgc;
  p.out_per_bgroup = out_features / p.bgc;
  for (size_t d = 0; d < n; ++d) {
    p.in_size.push_back(lhs.dimensions(p.dn.input_spatial_dimensions[d]));
    p.k_size.push_back(rhs.dimensions(p.dn.kernel_spatial_dimensions[d]));
    const WindowDimension& wd = p.window[d];
    if (wd.size != p.k_size[d] || wd.stride < 1 || wd.base_dilation < 1 ||
        wd.window_dilation < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "convolution window dimension ", d,
          " does not match the kernel or has a non-positive stride"));
    }
  }
  HLOREF_ASSIGN_OR_RETURN(
      p.acc, PlanAccumulation(lhs.element_type(), rhs.element_type(),
                              out.element_type()));
  return p;
}

absl::StatusOr<ElementGenerator> EmitConvolution(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_ASSIGN_OR_RETURN(ConvPlan plan, PlanConvolution(inst));
  ElementGenerator lhs = operands[0], rhs = operands[1];
  return ElementGenerator([&ctx, plan = std::move(plan), lhs,
                           rhs](const IrIndex& out)
                              -> absl::StatusOr<llvm::Value*> {
    IRBuilder& b = ctx.b();
    const ConvolutionDimensionNumbers& dn = plan.dn;
    llvm::Value* batch = out[dn.output_batch_dimension];
    llvm::Value* o = out[dn.output_feature_dimension];
    llvm::Value* fgroup = plan.fgc == 1
                              ? ctx.I64(0)
                              : b.CreateUDiv(o, ctx.I64(plan.out_per_fgroup));
    llvm::Value* bgroup = plan.bgc == 1
                              ? ctx.I64(0)
                              : b.CreateUDiv(o, ctx.I64(plan.out_per_bgroup));
    IrIndex lidx(plan.rank, nullptr), ridx(plan.rank, nullptr);
    lidx[dn.input_batch_dimension] =
        plan.bgc == 1
            ? batch
            : b.CreateAdd(b.CreateMul(bgroup, ctx.I64(plan.out_batch)), batch);
    ridx[dn.kernel_output_feature_dimension] = o;
    llvm::Value* feature_base =
        plan.fgc == 1 ? ctx.I64(0)
                      : b.CreateMul(fgroup, ctx.I64(plan.group_features));
    Accumulator acc(ctx, plan.acc);
    acc.Begin();
    const size_t n = plan.k_size.size();
    // Window positions, one spatial dimension per level; positions off the
    // (dilated, padded) input skip the levels below.
    std::function<absl::Status(size_t)> spatial =
        [&](size_t d) -> absl::Status {
      if (d == n) {
        if (plan.group_features == 0) return absl::OkStatus();
        return ctx.EmitForLoop(
            "conv.c", ctx.I64(0), ctx.I64(plan.group_features), ctx.I64(1),
            [&](llvm::Value* c) -> absl::Status {
              lidx[dn.input_feature_dimension] =
                  plan.fgc == 1 ? c : b.CreateAdd(feature_base, c);
              ridx[dn.kernel_input_feature_dimension] = c;
              HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, lhs(lidx));
              HLOREF_ASSIGN_OR_RETURN(llvm::Value * w, rhs(ridx));
              acc.Add(x, w);
              return absl::OkStatus();
            });
      }
      const WindowDimension& wd = plan.window[d];
      const int64_t k = plan.k_size[d];
      const int64_t dilated =
          plan.in_size[d] == 0 ? 0
                               : (plan.in_size[d] - 1) * wd.base_dilation + 1;
      if (k == 0 || dilated == 0) return absl::OkStatus();
      llvm::Value* os = out[dn.output_spatial_dimensions[d]];
      return ctx.EmitForLoop(
          absl::StrCat("conv.w", d), ctx.I64(0), ctx.I64(k), ctx.I64(1),
          [&, d, k, dilated](llvm::Value* w) -> absl::Status {
            llvm::Value* pos = b.CreateSub(
                b.CreateAdd(b.CreateMul(os, ctx.I64(wd.stride)),
                            b.CreateMul(w, ctx.I64(wd.window_dilation))),
                ctx.I64(wd.padding_low));
            llvm::Value* valid =
                b.CreateAnd(b.CreateICmpSGE(pos, ctx.I64(0)),
                            b.CreateICmpSLT(pos, ctx.I64(dilated)));
            llvm::Value* in_pos = pos;
            if (wd.base_dilation > 1) {
              // Under `valid` pos >= 0, so unsigned division is exact.
              valid = b.CreateAnd(
                  valid,
                  b.CreateICmpEQ(b.CreateURem(pos, ctx.I64(wd.base_dilation)),
                                 ctx.I64(0)));
              in_pos = b.CreateUDiv(pos, ctx.I64(wd.base_dilation));
            }
            return ctx.EmitIf(
                valid,
                [&, d, k]() -> absl::Status {
                  lidx[dn.input_spatial_dimensions[d]] = in_pos;
                  ridx[dn.kernel_spatial_dimensions[d]] =
                      wd.window_reversal ? b.CreateSub(ctx.I64(k - 1), w) : w;
                  return spatial(d + 1);
                },
                absl::StrCat("conv.in", d));
          });
    };
    HLOREF_RETURN_IF_ERROR(spatial(0));
    return acc.Finish();
  });
}

// ---- ragged-dot

enum class RaggedMode { kNonContracting, kContracting, kBatch };

struct RaggedPlan {
  DotPlan dot;
  RaggedMode mode = RaggedMode::kBatch;
  int64_t ragged_dim = 0;  // r (lhs)
  size_t ragged_pos = 0;   // r's position in lf (mode 1) or lc (mode 2)
  int64_t rhs_group = -1;  // mode 1 only
  int64_t num_groups = 0;
  PrimitiveType group_type = PrimitiveType::kS32;
  bool broadcast_sizes = true;  // group_sizes is [g]
  // group_sizes prefix positions: 'b' output batch j, 'f' lhs free j, 'c'
  // contracting j.
  std::vector<std::pair<char, size_t>> prefix;
};

absl::StatusOr<RaggedPlan> PlanRaggedDot(const HloInstruction& inst) {
  if (inst.operand_count() != 3) {
    return absl::InvalidArgumentError("ragged-dot takes three operands");
  }
  for (int64_t i = 0; i < 3; ++i) {
    HLOREF_RETURN_IF_ERROR(CheckArrayOperand(inst, i));
  }
  const Shape& ls = inst.operand(0)->shape();
  const Shape& rs = inst.operand(1)->shape();
  const Shape& gs = inst.operand(2)->shape();
  const DotDimensionNumbers& dn = inst.attrs().dot_dimension_numbers;
  const auto& ragged_dims = inst.attrs().lhs_ragged_dims;
  const auto& group_dims = inst.attrs().rhs_group_dims;
  if (ragged_dims.size() != 1 || group_dims.size() > 1 ||
      !IsInteger(gs.element_type()) || gs.rank() < 1) {
    return absl::InvalidArgumentError(
        "ragged-dot needs one lhs ragged dimension, at most one rhs group "
        "dimension and integer group sizes");
  }
  RaggedPlan p;
  p.ragged_dim = ragged_dims[0];
  p.mode = Has(dn.lhs_batch_dimensions, p.ragged_dim) ? RaggedMode::kBatch
           : Has(dn.lhs_contracting_dimensions, p.ragged_dim)
               ? RaggedMode::kContracting
               : RaggedMode::kNonContracting;
  p.rhs_group = group_dims.empty() ? -1 : group_dims[0];
  if ((p.mode == RaggedMode::kNonContracting) != (p.rhs_group >= 0) ||
      p.rhs_group >= rs.rank()) {
    return absl::InvalidArgumentError(
        "ragged-dot rhs_group_dims does not fit the ragged mode");
  }
  std::vector<int64_t> skip;
  if (p.rhs_group >= 0) skip.push_back(p.rhs_group);
  HLOREF_ASSIGN_OR_RETURN(
      p.dot, PlanDot(inst, ls, rs, ls.element_type(), rs.element_type(), skip,
                     p.mode == RaggedMode::kContracting ? 1 : 0));
  p.group_type = gs.element_type();
  p.num_groups = gs.dimensions(gs.rank() - 1);
  p.broadcast_sizes = gs.rank() == 1;
  const DotPlan& d = p.dot;
  switch (p.mode) {
    case RaggedMode::kBatch:
      for (size_t j = 0; j < d.lb.size() && d.lb[j] != p.ragged_dim; ++j) {
        p.prefix.push_back({'b', j});
      }
      break;
    case RaggedMode::kContracting:
      for (size_t j = 0; j < d.lb.size(); ++j) p.prefix.push_back({'b', j});
      for (size_t j = 0; j < d.lc.size() && d.lc[j] != p.ragged_dim; ++j) {
        p.prefix.push_back({'c', j});
      }
      while (d.lc[p.ragged_pos] != p.ragged_dim) ++p.ragged_pos;
      if (inst.shape().dimensions(0) != p.num_groups) {
        return absl::InvalidArgumentError(
            "ragged-dot result's group dimension does not match group_sizes");
      }
      break;
    case RaggedMode::kNonContracting:
      for (size_t j = 0; j < d.lb.size(); ++j) p.prefix.push_back({'b', j});
      for (size_t j = 0; j < d.lf.size() && d.lf[j] < p.ragged_dim; ++j) {
        p.prefix.push_back({'f', j});
      }
      while (d.lf[p.ragged_pos] != p.ragged_dim) ++p.ragged_pos;
      if (rs.dimensions(p.rhs_group) != p.num_groups) {
        return absl::InvalidArgumentError(
            "ragged-dot rhs group dimension does not match group_sizes");
      }
      break;
  }
  if (!p.broadcast_sizes &&
      static_cast<size_t>(gs.rank()) != p.prefix.size() + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("ragged-dot group_sizes has rank ", gs.rank(),
                     ", expected 1 or ", p.prefix.size() + 1));
  }
  return p;
}

// The group_sizes index of group `g` for the output index `out` and the
// contracting index `c` (mode 2 prefixes only).
IrIndex GroupSizesIndex(const RaggedPlan& p, const IrIndex& out,
                        const IrIndex* c, llvm::Value* g) {
  IrIndex gi;
  const size_t lead = p.mode == RaggedMode::kContracting ? 1 : 0;
  if (!p.broadcast_sizes) {
    for (const auto& [kind, j] : p.prefix) {
      switch (kind) {
        case 'b':
          gi.push_back(out[lead + j]);
          break;
        case 'f':
          gi.push_back(out[lead + p.dot.lb.size() + j]);
          break;
        default:
          gi.push_back((*c)[j]);
          break;
      }
    }
  }
  gi.push_back(g);
  return gi;
}

bool PrefixUsesContracting(const RaggedPlan& p) {
  if (p.broadcast_sizes) return false;
  for (const auto& e : p.prefix) {
    if (e.first == 'c') return true;
  }
  return false;
}

// start <= i < end, compared in the group_sizes type.
llvm::Value* EmitMember(EmitContext& ctx, const RaggedPlan& p,
                        llvm::Value* start, llvm::Value* end, llvm::Value* i) {
  IRBuilder& b = ctx.b();
  llvm::Value* iv = b.CreateTrunc(i, start->getType());
  if (IsSignedInt(p.group_type)) {
    return b.CreateAnd(b.CreateICmpSLE(start, iv), b.CreateICmpSLT(iv, end));
  }
  return b.CreateAnd(b.CreateICmpULE(start, iv), b.CreateICmpULT(iv, end));
}

// Group g's (start, end) for a group_sizes row: the wrapping sums of the
// sizes before g and through g.
absl::StatusOr<std::pair<llvm::Value*, llvm::Value*>> EmitGroupBounds(
    EmitContext& ctx, const RaggedPlan& p, const ElementGenerator& sizes,
    const IrIndex& out, const IrIndex* c, llvm::Value* g) {
  IRBuilder& b = ctx.b();
  llvm::Type* it = b.getIntNTy(BitWidth(p.group_type));
  llvm::Value* cum = ctx.EntryAlloca(it, 1, "ragged.cum");
  b.CreateStore(llvm::ConstantInt::get(it, 0), cum);
  HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
      "ragged.sum", ctx.I64(0), g, ctx.I64(1),
      [&](llvm::Value* j) -> absl::Status {
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * s,
                                sizes(GroupSizesIndex(p, out, c, j)));
        b.CreateStore(b.CreateAdd(b.CreateLoad(it, cum), s), cum);
        return absl::OkStatus();
      }));
  llvm::Value* start = b.CreateLoad(it, cum);
  HLOREF_ASSIGN_OR_RETURN(llvm::Value * s,
                          sizes(GroupSizesIndex(p, out, c, g)));
  return std::make_pair(start, b.CreateAdd(start, s));
}

absl::StatusOr<ElementGenerator> EmitRaggedDot(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  HLOREF_ASSIGN_OR_RETURN(RaggedPlan plan, PlanRaggedDot(inst));
  ElementGenerator lhs = operands[0], rhs = operands[1], sizes = operands[2];
  return ElementGenerator([&ctx, plan = std::move(plan), lhs, rhs,
                           sizes](const IrIndex& out)
                              -> absl::StatusOr<llvm::Value*> {
    IRBuilder& b = ctx.b();
    const DotPlan& d = plan.dot;
    const size_t lead = plan.mode == RaggedMode::kContracting ? 1 : 0;
    IrIndex lidx, ridx;
    SetOuterIndices(d, out, lead, &lidx, &ridx);
    Accumulator acc(ctx, d.acc);
    acc.Begin();
    switch (plan.mode) {
      case RaggedMode::kBatch:
        // XLA lowers this mode to the plain dot (group_sizes unused).
        HLOREF_RETURN_IF_ERROR(EmitContract(ctx, d, lhs, rhs, lidx, ridx, acc));
        break;
      case RaggedMode::kNonContracting: {
        // Every group containing row i adds its rhs group's dot.
        llvm::Type* it = b.getIntNTy(BitWidth(plan.group_type));
        llvm::Value* cum = ctx.EntryAlloca(it, 1, "ragged.cum");
        b.CreateStore(llvm::ConstantInt::get(it, 0), cum);
        llvm::Value* i = out[d.lb.size() + plan.ragged_pos];
        if (plan.num_groups == 0) break;
        HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
            "ragged.g", ctx.I64(0), ctx.I64(plan.num_groups), ctx.I64(1),
            [&](llvm::Value* g) -> absl::Status {
              HLOREF_ASSIGN_OR_RETURN(
                  llvm::Value * s,
                  sizes(GroupSizesIndex(plan, out, nullptr, g)));
              llvm::Value* start = b.CreateLoad(it, cum);
              llvm::Value* end = b.CreateAdd(start, s);
              b.CreateStore(end, cum);
              return ctx.EmitIf(
                  EmitMember(ctx, plan, start, end, i),
                  [&]() -> absl::Status {
                    IrIndex rg = ridx;
                    rg[plan.rhs_group] = g;
                    return EmitContract(ctx, d, lhs, rhs, lidx, rg, acc);
                  },
                  "ragged.member");
            }));
        break;
      }
      case RaggedMode::kContracting: {
        // Output group g keeps the contracting indices of group g.
        llvm::Value* g = out[0];
        if (!PrefixUsesContracting(plan)) {
          HLOREF_ASSIGN_OR_RETURN(
              auto bounds, EmitGroupBounds(ctx, plan, sizes, out, nullptr, g));
          HLOREF_RETURN_IF_ERROR(EmitContract(
              ctx, d, lhs, rhs, lidx, ridx, acc,
              [&](const IrIndex& c) -> absl::StatusOr<llvm::Value*> {
                return EmitMember(ctx, plan, bounds.first, bounds.second,
                                  c[plan.ragged_pos]);
              }));
        } else {
          HLOREF_RETURN_IF_ERROR(EmitContract(
              ctx, d, lhs, rhs, lidx, ridx, acc,
              [&](const IrIndex& c) -> absl::StatusOr<llvm::Value*> {
                HLOREF_ASSIGN_OR_RETURN(
                    auto bounds, EmitGroupBounds(ctx, plan, sizes, out, &c, g));
                return EmitMember(ctx, plan, bounds.first, bounds.second,
                                  c[plan.ragged_pos]);
              }));
        }
        break;
      }
    }
    return acc.Finish();
  });
}

// ---- scaled-dot

// XLA ScaledDotRewriter's dequantization type of an operand and its scale.
PrimitiveType DequantizeType(PrimitiveType a, PrimitiveType s) {
  const int wa = BitWidth(a), ws = BitWidth(s);
  if (wa < 16 && ws < 16) return PrimitiveType::kBF16;
  if (a == s) return a;
  if (wa == ws) return PrimitiveType::kF32;
  return wa > ws ? a : s;
}

struct ScaleSide {
  PrimitiveType type = PrimitiveType::kF32;  // D
  PrimitiveType x_type = PrimitiveType::kF32, s_type = PrimitiveType::kF32;
  std::vector<int64_t> block;  // operand size / scale size per dimension
};

absl::StatusOr<ScaleSide> PlanScaleSide(const Shape& x, const Shape& s) {
  ScaleSide side;
  if (!IsFloat(x.element_type()) || !IsFloat(s.element_type())) {
    return absl::InvalidArgumentError(
        "scaled-dot takes floating-point operands and scales");
  }
  if (x.rank() != s.rank()) {
    return absl::InvalidArgumentError(
        "scaled-dot scale rank differs from its operand's");
  }
  for (int64_t d = 0; d < x.rank(); ++d) {
    const int64_t sd = s.dimensions(d), xd = x.dimensions(d);
    if (sd > 0 ? xd % sd != 0 : xd != 0) {
      return absl::InvalidArgumentError(
          "scaled-dot scale does not block-scale its operand");
    }
    side.block.push_back(sd > 0 ? xd / sd : 1);
  }
  side.x_type = x.element_type();
  side.s_type = s.element_type();
  side.type = DequantizeType(side.x_type, side.s_type);
  return side;
}

// x * scale[index / block] rounded once to D, as D's compute value.
ElementGenerator Dequantized(EmitContext& ctx, ScaleSide side,
                             ElementGenerator x, ElementGenerator s) {
  return [&ctx, side = std::move(side), x,
          s](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    IRBuilder& b = ctx.b();
    IrIndex si(index.size());
    for (size_t d = 0; d < index.size(); ++d) {
      si[d] = side.block[d] == 1
                  ? index[d]
                  : b.CreateUDiv(index[d], ctx.I64(side.block[d]));
    }
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * xv, x(index));
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * sv, s(si));
    // Exact in f64 unless an operand is f64 (then D = f64 and the f64
    // multiply is the one rounding).
    llvm::Value* p = b.CreateFMul(ToDouble(ctx, side.x_type, xv),
                                  ToDouble(ctx, side.s_type, sv));
    if (side.type == PrimitiveType::kF64) return p;
    if (side.type == PrimitiveType::kF32) {
      return b.CreateFPTrunc(p, b.getFloatTy());
    }
    return EmitRoundToType(ctx, side.type, p);
  };
}

absl::StatusOr<ElementGenerator> EmitScaledDot(
    EmitContext& ctx, const HloInstruction& inst,
    absl::Span<const ElementGenerator> operands) {
  using Op = ScaledDotOperands;
  if (inst.operand_count() != 4) {
    return absl::InvalidArgumentError("scaled-dot takes four operands");
  }
  for (int64_t i = 0; i < 4; ++i) {
    HLOREF_RETURN_IF_ERROR(CheckArrayOperand(inst, i));
  }
  const Shape& ls = inst.operand(Op::kLhs)->shape();
  const Shape& rs = inst.operand(Op::kRhs)->shape();
  HLOREF_ASSIGN_OR_RETURN(
      ScaleSide lside, PlanScaleSide(ls, inst.operand(Op::kLhsScale)->shape()));
  HLOREF_ASSIGN_OR_RETURN(
      ScaleSide rside, PlanScaleSide(rs, inst.operand(Op::kRhsScale)->shape()));
  if (!IsFloat(inst.shape().element_type())) {
    return absl::InvalidArgumentError(
        "scaled-dot result type is not floating point");
  }
  HLOREF_ASSIGN_OR_RETURN(DotPlan plan, PlanDot(inst, ls, rs, lside.type,
                                                rside.type, {}, /*lead=*/0));
  ElementGenerator lhs = Dequantized(ctx, std::move(lside), operands[Op::kLhs],
                                     operands[Op::kLhsScale]);
  ElementGenerator rhs = Dequantized(ctx, std::move(rside), operands[Op::kRhs],
                                     operands[Op::kRhsScale]);
  return ElementGenerator(
      [&ctx, plan = std::move(plan), lhs,
       rhs](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        IrIndex lidx, ridx;
        SetOuterIndices(plan, index, 0, &lidx, &ridx);
        Accumulator acc(ctx, plan.acc);
        acc.Begin();
        HLOREF_RETURN_IF_ERROR(
            EmitContract(ctx, plan, lhs, rhs, lidx, ridx, acc));
        return acc.Finish();
      });
}

}  // namespace

void RegisterContractionEmitters(EmitterTable& table) {
  table.SetElemental(HloOpcode::kDot, EmitDot);
  table.SetElemental(HloOpcode::kRaggedDot, EmitRaggedDot);
  table.SetElemental(HloOpcode::kScaledDot, EmitScaledDot);
  table.SetElemental(HloOpcode::kConvolution, EmitConvolution);
}

}  // namespace hloref::codegen
