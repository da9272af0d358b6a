// The batch-norm family as buffer emitters: batch-norm-training,
// batch-norm-inference and batch-norm-grad (seed 001 "BatchNormTraining",
// "BatchNormInference", "BatchNormGrad"; tuple results).
//
// Numerics: every element type is computed in f64 (minifloats and f32 are
// widened exactly) and each output is rounded once to its type. For f32
// and narrower outputs this is far inside BATCH_NORM_BOUND (which allows
// the whole computation in the output type); for f64 the formulas below
// are the straightforward ones the bound was derived for (two-pass
// variance). Per feature f with N elements:
//   training:  mean = (sum x) / N; var = (sum (x - mean)^2) / N;
//              y = scale (x - mean) / sqrt(var + eps) + offset
//   inference: y = (x - mean) (scale / sqrt(var + eps)) + offset
//   grad:      sdy = sum dy; p = sum dy (x - mean); r = sqrt(var + eps);
//              grad_operand = (scale / r) (dy - sdy / N - p / (N (var +
//              eps)) (x - mean)); grad_scale = p / r; grad_offset = sdy
// N == 0 gives NaN statistics (0 / 0), as the oracle does.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {
namespace {

// One float operand or output viewed as f64 values.
struct F64Array {
  IrArray array;
  llvm::Value* Read(EmitContext& ctx, const IrIndex& i) const {
    llvm::Value* v = array.EmitRead(ctx, i);
    if (v->getType()->isDoubleTy()) return v;
    return ctx.b().CreateFPExt(v, ctx.b().getDoubleTy());
  }
  // Rounds the f64 `v` once to the element type and stores it.
  void Write(EmitContext& ctx, const IrIndex& i, llvm::Value* v) const {
    const PrimitiveType t = array.element_type();
    llvm::Value* r = t == PrimitiveType::kF64 ? v : EmitRoundToType(ctx, t, v);
    array.EmitWrite(ctx, i, r);
  }
};

// Per-feature f64 scratch vectors.
class FeatureVector {
 public:
  FeatureVector(EmitContext& ctx, int64_t features, absl::string_view name)
      : base_(ctx.EmitScratch(std::max<int64_t>(features, 1) * 8, name)) {}
  llvm::Value* Ptr(EmitContext& ctx, llvm::Value* f) const {
    return ctx.b().CreateInBoundsGEP(ctx.b().getDoubleTy(), base_, {f});
  }
  llvm::Value* Load(EmitContext& ctx, llvm::Value* f) const {
    return ctx.b().CreateLoad(ctx.b().getDoubleTy(), Ptr(ctx, f));
  }
  void Store(EmitContext& ctx, llvm::Value* f, llvm::Value* v) const {
    ctx.b().CreateStore(v, Ptr(ctx, f));
  }
  void Add(EmitContext& ctx, llvm::Value* f, llvm::Value* v) const {
    Store(ctx, f, ctx.b().CreateFAdd(Load(ctx, f), v));
  }

 private:
  llvm::Value* base_;
};

struct Setup {
  int64_t feature_index = 0;
  int64_t features = 0;
  int64_t per_feature = 0;
  PrimitiveType type = PrimitiveType::kF32;
};

absl::StatusOr<Setup> CheckOperands(const HloInstruction& inst,
                                    int64_t operands, int64_t vectors) {
  if (inst.operand_count() != operands) {
    return absl::InvalidArgumentError(absl::StrCat(
        HloOpcodeString(inst.opcode()), " needs ", operands, " operands"));
  }
  Setup s;
  const Shape& x = inst.operand(0)->shape();
  s.type = x.element_type();
  s.feature_index = inst.attrs().feature_index;
  if (!x.IsArray() || !IsFloat(s.type) || s.feature_index < 0 ||
      s.feature_index >= x.rank()) {
    return absl::UnimplementedError(
        absl::StrCat(HloOpcodeString(inst.opcode()), " of ", x.ToString(),
                     " with feature_index ", s.feature_index));
  }
  s.features = x.dimensions(s.feature_index);
  s.per_feature = s.features == 0 ? 0 : x.num_elements() / s.features;
  for (int64_t i = 1; i <= vectors; ++i) {
    const Shape& v = inst.operand(i)->shape();
    if (!v.IsArray() || v.rank() != 1 || v.dimensions(0) != s.features ||
        v.element_type() != s.type) {
      return absl::InvalidArgumentError(
          absl::StrCat("operand ", i, " is not a feature vector"));
    }
  }
  return s;
}

llvm::Value* F64(EmitContext& ctx, double v) {
  return llvm::ConstantFP::get(ctx.b().getDoubleTy(), v);
}

llvm::Value* Sqrt(EmitContext& ctx, llvm::Value* v) {
  return ctx.b().CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, v);
}

// Loop over the features.
absl::Status ForEachFeature(
    EmitContext& ctx, const Setup& s,
    const std::function<absl::Status(llvm::Value*)>& f) {
  return ctx.EmitForLoop("bn.f", ctx.I64(0), ctx.I64(s.features), ctx.I64(1),
                         f);
}

absl::Status EmitTraining(EmitContext& ctx, const HloInstruction& inst,
                          absl::Span<const IrValue> operands,
                          const IrValue& output) {
  HLOREF_ASSIGN_OR_RETURN(Setup s, CheckOperands(inst, 3, 2));
  if (!output.IsTuple() || output.elements.size() != 3) {
    return absl::InvalidArgumentError("batch-norm-training returns a 3-tuple");
  }
  IRBuilder& b = ctx.b();
  const F64Array x{operands[0].array}, scale{operands[1].array},
      offset{operands[2].array};
  const F64Array y{output.elements[0].array},
      mean_out{output.elements[1].array}, var_out{output.elements[2].array};
  const Shape& xs = x.array.shape();
  const int64_t fi = s.feature_index;
  llvm::Value* count = F64(ctx, static_cast<double>(s.per_feature));
  FeatureVector sum(ctx, s.features, "bn.sum"), sq(ctx, s.features, "bn.sq");
  HLOREF_RETURN_IF_ERROR(ForEachFeature(ctx, s, [&](llvm::Value* f) {
    sum.Store(ctx, f, F64(ctx, 0));
    sq.Store(ctx, f, F64(ctx, 0));
    return absl::OkStatus();
  }));
  HLOREF_RETURN_IF_ERROR(
      ctx.EmitLoopNest(xs, "bn.sum", [&](const IrIndex& i) -> absl::Status {
        sum.Add(ctx, i[fi], x.Read(ctx, i));
        return absl::OkStatus();
      }));
  // sum := mean.
  HLOREF_RETURN_IF_ERROR(ForEachFeature(ctx, s, [&](llvm::Value* f) {
    sum.Store(ctx, f, b.CreateFDiv(sum.Load(ctx, f), count));
    return absl::OkStatus();
  }));
  HLOREF_RETURN_IF_ERROR(
      ctx.EmitLoopNest(xs, "bn.sq", [&](const IrIndex& i) -> absl::Status {
        llvm::Value* d = b.CreateFSub(x.Read(ctx, i), sum.Load(ctx, i[fi]));
        sq.Add(ctx, i[fi], b.CreateFMul(d, d));
        return absl::OkStatus();
      }));
  llvm::Value* eps = F64(ctx, static_cast<double>(inst.attrs().epsilon));
  // sq := var; write the statistics.
  HLOREF_RETURN_IF_ERROR(ForEachFeature(ctx, s, [&](llvm::Value* f) {
    llvm::Value* var = b.CreateFDiv(sq.Load(ctx, f), count);
    sq.Store(ctx, f, var);
    mean_out.Write(ctx, {f}, sum.Load(ctx, f));
    var_out.Write(ctx, {f}, var);
    return absl::OkStatus();
  }));
  return ctx.EmitLoopNest(
      y.array.shape(), "bn.y", [&](const IrIndex& i) -> absl::Status {
        llvm::Value* f = i[fi];
        llvm::Value* centered = b.CreateFSub(x.Read(ctx, i), sum.Load(ctx, f));
        llvm::Value* root = Sqrt(ctx, b.CreateFAdd(sq.Load(ctx, f), eps));
        llvm::Value* v = b.CreateFAdd(
            b.CreateFDiv(b.CreateFMul(scale.Read(ctx, {f}), centered), root),
            offset.Read(ctx, {f}));
        y.Write(ctx, i, v);
        return absl::OkStatus();
      });
}

absl::Status EmitInference(EmitContext& ctx, const HloInstruction& inst,
                           absl::Span<const IrValue> operands,
                           const IrValue& output) {
  HLOREF_ASSIGN_OR_RETURN(Setup s, CheckOperands(inst, 5, 4));
  if (!output.IsArray()) {
    return absl::InvalidArgumentError("batch-norm-inference returns an array");
  }
  IRBuilder& b = ctx.b();
  const F64Array x{operands[0].array}, scale{operands[1].array},
      offset{operands[2].array}, mean{operands[3].array},
      var{operands[4].array};
  const F64Array y{output.array};
  const int64_t fi = s.feature_index;
  llvm::Value* eps = F64(ctx, static_cast<double>(inst.attrs().epsilon));
  FeatureVector factor(ctx, s.features, "bn.factor");
  HLOREF_RETURN_IF_ERROR(ForEachFeature(ctx, s, [&](llvm::Value* f) {
    llvm::Value* root = Sqrt(ctx, b.CreateFAdd(var.Read(ctx, {f}), eps));
    factor.Store(ctx, f, b.CreateFDiv(scale.Read(ctx, {f}), root));
    return absl::OkStatus();
  }));
  return ctx.EmitLoopNest(
      y.array.shape(), "bn.y", [&](const IrIndex& i) -> absl::Status {
        llvm::Value* f = i[fi];
        llvm::Value* centered =
            b.CreateFSub(x.Read(ctx, i), mean.Read(ctx, {f}));
        llvm::Value* v = b.CreateFAdd(
            b.CreateFMul(centered, factor.Load(ctx, f)), offset.Read(ctx, {f}));
        y.Write(ctx, i, v);
        return absl::OkStatus();
      });
}

absl::Status EmitGrad(EmitContext& ctx, const HloInstruction& inst,
                      absl::Span<const IrValue> operands,
                      const IrValue& output) {
  HLOREF_ASSIGN_OR_RETURN(Setup s, CheckOperands(inst, 5, 3));
  const Shape& dys = inst.operand(4)->shape();
  if (!dys.IsArray() || dys.element_type() != s.type ||
      !(dys.dimensions() == inst.operand(0)->shape().dimensions())) {
    return absl::InvalidArgumentError(
        "grad_output must have the operand's shape");
  }
  if (!output.IsTuple() || output.elements.size() != 3) {
    return absl::InvalidArgumentError("batch-norm-grad returns a 3-tuple");
  }
  IRBuilder& b = ctx.b();
  const F64Array x{operands[0].array}, scale{operands[1].array},
      mean{operands[2].array}, var{operands[3].array}, dy{operands[4].array};
  const F64Array gx{output.elements[0].array}, gscale{output.elements[1].array},
      goffset{output.elements[2].array};
  const int64_t fi = s.feature_index;
  llvm::Value* eps = F64(ctx, static_cast<double>(inst.attrs().epsilon));
  llvm::Value* count = F64(ctx, static_cast<double>(s.per_feature));
  FeatureVector sdy(ctx, s.features, "bn.sdy"), p(ctx, s.features, "bn.p");
  HLOREF_RETURN_IF_ERROR(ForEachFeature(ctx, s, [&](llvm::Value* f) {
    sdy.Store(ctx, f, F64(ctx, 0));
    p.Store(ctx, f, F64(ctx, 0));
    return absl::OkStatus();
  }));
  HLOREF_RETURN_IF_ERROR(ctx.EmitLoopNest(
      x.array.shape(), "bn.sums", [&](const IrIndex& i) -> absl::Status {
        llvm::Value* f = i[fi];
        llvm::Value* g = dy.Read(ctx, i);
        sdy.Add(ctx, f, g);
        llvm::Value* centered =
            b.CreateFSub(x.Read(ctx, i), mean.Read(ctx, {f}));
        p.Add(ctx, f, b.CreateFMul(g, centered));
        return absl::OkStatus();
      }));
  // Per feature: c = p / (N (var + eps)), d = sdy / N, factor = scale / r.
  FeatureVector c(ctx, s.features, "bn.c"), d(ctx, s.features, "bn.d"),
      factor(ctx, s.features, "bn.factor");
  HLOREF_RETURN_IF_ERROR(ForEachFeature(ctx, s, [&](llvm::Value* f) {
    llvm::Value* ve = b.CreateFAdd(var.Read(ctx, {f}), eps);
    llvm::Value* root = Sqrt(ctx, ve);
    llvm::Value* pf = p.Load(ctx, f);
    llvm::Value* sf = sdy.Load(ctx, f);
    c.Store(ctx, f, b.CreateFDiv(pf, b.CreateFMul(count, ve)));
    d.Store(ctx, f, b.CreateFDiv(sf, count));
    factor.Store(ctx, f, b.CreateFDiv(scale.Read(ctx, {f}), root));
    gscale.Write(ctx, {f}, b.CreateFDiv(pf, root));
    goffset.Write(ctx, {f}, sf);
    return absl::OkStatus();
  }));
  return ctx.EmitLoopNest(
      gx.array.shape(), "bn.gx", [&](const IrIndex& i) -> absl::Status {
        llvm::Value* f = i[fi];
        llvm::Value* centered =
            b.CreateFSub(x.Read(ctx, i), mean.Read(ctx, {f}));
        llvm::Value* inner =
            b.CreateFSub(b.CreateFSub(dy.Read(ctx, i), d.Load(ctx, f)),
                         b.CreateFMul(c.Load(ctx, f), centered));
        gx.Write(ctx, i, b.CreateFMul(factor.Load(ctx, f), inner));
        return absl::OkStatus();
      });
}

}  // namespace

void RegisterBatchNormEmitters(EmitterTable& table) {
  table.SetBuffer(HloOpcode::kBatchNormTraining, EmitTraining);
  table.SetBuffer(HloOpcode::kBatchNormInference, EmitInference);
  table.SetBuffer(HloOpcode::kBatchNormGrad, EmitGrad);
}

}  // namespace hloref::codegen
