// The CPU emitter of convolution above the small-shape threshold: a buffer
// emitter calling the implicit-GEMM convolution runtime
// (backends/cpu/runtime/conv.h) with the operands' base pointers and, per
// logical dimension, its size and element stride (so every dim_labels and
// layout folds into the runtime's row-pointer tables and filter packing),
// plus the window. Small convolutions, dynamic shapes, the element types
// without a float GEMM path, and feature and batch groups together keep the
// target-independent elemental emitter (backends/codegen/contraction.cc),
// which inlines and fuses: the CPU table wraps it so that it declines
// exactly the convolutions this emitter takes.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_emitters.h"
#include "backends/cpu/emitters/emitter_util.h"
#include "backends/cpu/runtime/conv.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"

namespace hloref::cpu {
namespace {

using codegen::EmitContext;
using codegen::IrValue;

// Below this many multiply-adds (outputs x kernel taps x input features per
// group) the runtime call (tables, filter packing, a thread-pool round
// trip) costs more than the inlined elemental loop saves; the GEMM's
// threshold (emitters/dot.cc).
constexpr int64_t kMinConvMacs = 16 * 1024;

// The runtime's view of `inst` with the buffers' strides (ist, kst, ost: per
// logical dimension; empty for the decision alone), or an error when the
// runtime does not take it (the elemental emitter then does).
absl::StatusOr<ConvDims> PlanConv(const HloInstruction& inst,
                                  std::vector<int64_t> ist = {},
                                  std::vector<int64_t> kst = {},
                                  std::vector<int64_t> ost = {}) {
  if (inst.opcode() != HloOpcode::kConvolution || inst.operand_count() != 2) {
    return absl::UnimplementedError("not a two-operand convolution");
  }
  const Shape& is = inst.operand(0)->shape();
  const Shape& ks = inst.operand(1)->shape();
  const Shape& os = inst.shape();
  if (!is.IsArray() || !ks.IsArray() || !os.IsArray() || !is.is_static() ||
      !ks.is_static() || !os.is_static()) {
    return absl::UnimplementedError("dynamic or non-array convolution");
  }
  if (!ConvPathFor(is.element_type(), ks.element_type(), os.element_type())) {
    return absl::UnimplementedError(
        "no convolution runtime path for these element types");
  }
  const ConvolutionDimensionNumbers& dn =
      inst.attrs().convolution_dimension_numbers;
  const std::vector<WindowDimension>& window = inst.attrs().window.dimensions;
  const size_t n = dn.input_spatial_dimensions.size();
  const int64_t rank = static_cast<int64_t>(n) + 2;
  if (n > 8 || window.size() != n || dn.kernel_spatial_dimensions.size() != n ||
      dn.output_spatial_dimensions.size() != n || is.rank() != rank ||
      ks.rank() != rank || os.rank() != rank) {
    return absl::UnimplementedError(
        "convolution window, dim_labels and ranks disagree");
  }
  ist.resize(rank, 0);
  kst.resize(rank, 0);
  ost.resize(rank, 0);
  ConvDims d;
  d.input_type = is.element_type();
  d.kernel_type = ks.element_type();
  d.output_type = os.element_type();
  d.feature_group_count = inst.attrs().feature_group_count;
  d.batch_group_count = inst.attrs().batch_group_count;
  if (d.feature_group_count > 1 && d.batch_group_count > 1) {
    return absl::UnimplementedError("feature and batch groups together");
  }
  d.input_batch = is.dimensions(dn.input_batch_dimension);
  d.input_batch_stride = ist[dn.input_batch_dimension];
  d.input_feature = is.dimensions(dn.input_feature_dimension);
  d.input_feature_stride = ist[dn.input_feature_dimension];
  d.kernel_input_feature = ks.dimensions(dn.kernel_input_feature_dimension);
  d.kernel_input_stride = kst[dn.kernel_input_feature_dimension];
  d.kernel_output_feature = ks.dimensions(dn.kernel_output_feature_dimension);
  d.kernel_output_stride = kst[dn.kernel_output_feature_dimension];
  d.output_batch = os.dimensions(dn.output_batch_dimension);
  d.output_batch_stride = ost[dn.output_batch_dimension];
  d.output_feature = os.dimensions(dn.output_feature_dimension);
  d.output_feature_stride = ost[dn.output_feature_dimension];
  const int64_t fgc = d.feature_group_count, bgc = d.batch_group_count;
  if (fgc < 1 || bgc < 1 || d.input_feature != d.kernel_input_feature * fgc ||
      d.output_feature != d.kernel_output_feature ||
      d.output_feature % fgc != 0 || d.output_feature % bgc != 0 ||
      d.input_batch != d.output_batch * bgc) {
    return absl::UnimplementedError(
        "convolution group counts do not match the shapes");
  }
  int64_t macs = d.output_batch * d.output_feature * d.kernel_input_feature;
  for (size_t i = 0; i < n; ++i) {
    const WindowDimension& wd = window[i];
    ConvDims::Spatial s;
    s.input_size = is.dimensions(dn.input_spatial_dimensions[i]);
    s.input_stride = ist[dn.input_spatial_dimensions[i]];
    s.kernel_size = ks.dimensions(dn.kernel_spatial_dimensions[i]);
    s.kernel_stride = kst[dn.kernel_spatial_dimensions[i]];
    s.output_size = os.dimensions(dn.output_spatial_dimensions[i]);
    s.output_stride = ost[dn.output_spatial_dimensions[i]];
    s.stride = wd.stride;
    s.padding_low = wd.padding_low;
    s.base_dilation = wd.base_dilation;
    s.window_dilation = wd.window_dilation;
    s.reversal = wd.window_reversal;
    if (wd.size != s.kernel_size || wd.stride < 1 || wd.base_dilation < 1 ||
        wd.window_dilation < 1) {
      return absl::UnimplementedError(
          "convolution window does not match the kernel");
    }
    macs *= s.output_size * s.kernel_size;
    d.spatial.push_back(s);
  }
  if (macs < kMinConvMacs) {
    return absl::UnimplementedError("below the convolution runtime threshold");
  }
  return d;
}

absl::Status EmitConvolutionCall(EmitContext& ctx, const HloInstruction& inst,
                                 absl::Span<const IrValue> operands,
                                 const IrValue& output) {
  if (operands.size() != 2 || !operands[0].IsArray() ||
      !operands[1].IsArray() || !output.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(), ": convolution operands are not arrays"));
  }
  absl::StatusOr<ConvDims> dims =
      PlanConv(inst, Strides(operands[0].array), Strides(operands[1].array),
               Strides(output.array));
  if (!dims.ok()) {
    return absl::InternalError(absl::StrCat(
        "%", inst.name(), ": convolution reached the runtime emitter but ",
        dims.status().message()));
  }
  llvm::Type* ptr = ctx.PtrType();
  llvm::FunctionType* type = llvm::FunctionType::get(
      ctx.b().getVoidTy(), {ptr, ptr, ptr, ptr, ptr}, false);
  llvm::Function* f = ctx.GetRuntimeFunction("hloref_cpu_convolution", type);
  ctx.b().CreateCall(
      f, {ctx.run_context(), ConstI64Array(ctx, EncodeConvDims(*dims)),
          operands[0].array.base(), operands[1].array.base(),
          output.array.base()});
  return absl::OkStatus();
}

}  // namespace

void RegisterCpuConvolutionEmitters(codegen::EmitterTable& table) {
  codegen::ElementalEmitter elemental =
      table.Elemental(HloOpcode::kConvolution);
  table.SetElemental(
      HloOpcode::kConvolution,
      [elemental](EmitContext& ctx, const HloInstruction& inst,
                  absl::Span<const codegen::ElementGenerator> operands)
          -> absl::StatusOr<codegen::ElementGenerator> {
        if (PlanConv(inst).ok()) {
          return absl::UnimplementedError(
              "convolution above the runtime threshold: the buffer emitter "
              "calls the convolution runtime");
        }
        if (!elemental)
          return absl::UnimplementedError("no convolution emitter");
        return elemental(ctx, inst, operands);
      });
  table.SetBuffer(HloOpcode::kConvolution, EmitConvolutionCall);
}

}  // namespace hloref::cpu
