#include "backends/gpu/gpu_conv.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "spec/util/status_macros.h"

namespace hloref::gpu {

using codegen::EmitContext;
using codegen::IrIndex;

namespace {

// What the loaders need, shared by the three callbacks.
struct ConvMap {
  ConvolutionDimensionNumbers dn;
  std::vector<WindowDimension> window;
  std::vector<int64_t> in_size, k_size, out_size;  // spatial, dn order
  int64_t rank = 0, cg = 0, og = 0, groups = 1;
  int64_t out_positions = 1, window_positions = 1;
};

// Splits `linear` (i64) into the row-major digits of `sizes`.
std::vector<llvm::Value*> Digits(EmitContext& ctx, llvm::Value* linear,
                                 const std::vector<int64_t>& sizes) {
  std::vector<llvm::Value*> out(sizes.size());
  llvm::Value* rest = linear;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (i == 0) {
      out[i] = rest;
    } else {
      out[i] = ctx.b().CreateURem(rest, ctx.I64(sizes[i]));
      rest = ctx.b().CreateUDiv(rest, ctx.I64(sizes[i]));
    }
  }
  return out;
}

}  // namespace

std::optional<ConvGemmShape> ConvolutionAsGemm(const HloInstruction& conv,
                                               std::string* why) {
  auto no = [&](std::string reason) -> std::optional<ConvGemmShape> {
    *why = std::move(reason);
    return std::nullopt;
  };
  if (conv.opcode() != HloOpcode::kConvolution || conv.operand_count() != 2) {
    return no("not a two-operand convolution");
  }
  const Shape& lhs = conv.operand(0)->shape();
  const Shape& rhs = conv.operand(1)->shape();
  const Shape& out = conv.shape();
  if (!lhs.IsArray() || !rhs.IsArray() || !out.IsArray()) {
    return no("non-array operands");
  }
  const PrimitiveType t = out.element_type();
  if ((t != PrimitiveType::kF32 && t != PrimitiveType::kF64 &&
       !TensorCoreType(t)) ||
      lhs.element_type() != t || rhs.element_type() != t) {
    return no(
        "operands and result are not one common f32 / f64 / bf16 / f16 "
        "type");
  }
  const auto& a = conv.attrs();
  if (a.batch_group_count != 1) return no("batch_group_count > 1");
  const ConvolutionDimensionNumbers& dn = a.convolution_dimension_numbers;
  const size_t ns = dn.input_spatial_dimensions.size();
  if (a.window.dimensions.size() != ns ||
      lhs.rank() != static_cast<int64_t>(ns) + 2 ||
      rhs.rank() != static_cast<int64_t>(ns) + 2 ||
      out.rank() != static_cast<int64_t>(ns) + 2 ||
      dn.kernel_spatial_dimensions.size() != ns ||
      dn.output_spatial_dimensions.size() != ns) {
    return no("window, dim_labels and ranks disagree");
  }
  const int64_t g = a.feature_group_count;
  const int64_t cg = rhs.dimensions(dn.kernel_input_feature_dimension);
  const int64_t o = rhs.dimensions(dn.kernel_output_feature_dimension);
  if (g < 1 || o % g != 0 ||
      lhs.dimensions(dn.input_feature_dimension) != cg * g) {
    return no("feature groups do not match the shapes");
  }
  ConvGemmShape s;
  s.groups = g;
  s.n = o / g;
  s.m = out.dimensions(dn.output_batch_dimension);
  s.k = cg;
  for (size_t d = 0; d < ns; ++d) {
    s.m *= out.dimensions(dn.output_spatial_dimensions[d]);
    s.k *= rhs.dimensions(dn.kernel_spatial_dimensions[d]);
    if (lhs.dimensions(dn.input_spatial_dimensions[d]) == 0) {
      return no("an empty input spatial dimension");
    }
    if (a.window.dimensions[d].stride < 1 ||
        a.window.dimensions[d].base_dilation < 1 ||
        a.window.dimensions[d].window_dilation < 1) {
      return no("a non-positive stride or dilation");
    }
  }
  if (s.m < 1 || s.n < 1 || s.k < 1) return no("an empty GEMM dimension");
  if (s.m >= (int64_t{1} << 31) || s.k >= (int64_t{1} << 31) ||
      !TensorCoreGridFits(s.groups, s.m, s.n)) {
    return no("the GEMM exceeds the launch grid");
  }
  return s;
}

GemmIo ConvolutionGemmIo(EmitContext& ctx, const HloInstruction& conv,
                         const ConvGemmShape& shape,
                         codegen::ElementGenerator lhs,
                         codegen::ElementGenerator rhs,
                         const codegen::IrArray& out) {
  auto map = std::make_shared<ConvMap>();
  const auto& a = conv.attrs();
  map->dn = a.convolution_dimension_numbers;
  map->window = a.window.dimensions;
  map->rank = conv.shape().rank();
  map->groups = shape.groups;
  map->og = shape.n;
  map->cg = conv.operand(1)->shape().dimensions(
      map->dn.kernel_input_feature_dimension);
  for (size_t d = 0; d < map->window.size(); ++d) {
    map->in_size.push_back(conv.operand(0)->shape().dimensions(
        map->dn.input_spatial_dimensions[d]));
    map->k_size.push_back(conv.operand(1)->shape().dimensions(
        map->dn.kernel_spatial_dimensions[d]));
    map->out_size.push_back(
        conv.shape().dimensions(map->dn.output_spatial_dimensions[d]));
    map->out_positions *= map->out_size.back();
    map->window_positions *= map->k_size.back();
  }
  EmitContext* c = &ctx;
  // The GEMM row -> (output batch, output spatial position).
  auto split_row = [map, c](llvm::Value* row) {
    std::vector<int64_t> sizes = {0};  // batch: the leading digit
    sizes.insert(sizes.end(), map->out_size.begin(), map->out_size.end());
    return Digits(*c, row, sizes);
  };
  // The GEMM k index -> (window position digits..., input feature c).
  auto split_l = [map, c](llvm::Value* l) {
    std::vector<int64_t> sizes = {0};
    for (int64_t s : map->k_size) sizes.push_back(s);
    sizes.push_back(map->cg);
    return Digits(*c, l, sizes);
  };
  auto kernel_spatial = [map, c](IrIndex& ridx,
                                 const std::vector<llvm::Value*>& w) {
    for (size_t d = 0; d < map->window.size(); ++d) {
      ridx[map->dn.kernel_spatial_dimensions[d]] =
          map->window[d].window_reversal
              ? c->b().CreateSub(c->I64(map->k_size[d] - 1), w[d])
              : w[d];
    }
  };
  GemmIo io;
  io.type = conv.shape().element_type();
  io.batch = shape.groups;
  io.m = shape.m;
  io.n = shape.n;
  io.k = shape.k;
  const PrimitiveType type = io.type;
  io.load_a = [map, c, lhs, split_row, split_l, type](
                  llvm::Value* g, llvm::Value* row,
                  llvm::Value* l) -> absl::StatusOr<llvm::Value*> {
    codegen::IRBuilder& b = c->b();
    const size_t ns = map->window.size();
    std::vector<llvm::Value*> r = split_row(row);  // b, o_0 .. o_{ns-1}
    std::vector<llvm::Value*> k = split_l(l);      // w_0 .. w_{ns-1}, c
    IrIndex lidx(map->rank, nullptr);
    lidx[map->dn.input_batch_dimension] = r[0];
    llvm::Value* feature = k[ns];
    if (map->groups > 1) {
      feature = b.CreateAdd(b.CreateMul(g, c->I64(map->cg)), feature);
    }
    lidx[map->dn.input_feature_dimension] = feature;
    llvm::Value* valid = b.getTrue();
    for (size_t d = 0; d < ns; ++d) {
      const WindowDimension& wd = map->window[d];
      const int64_t dilated = (map->in_size[d] - 1) * wd.base_dilation + 1;
      llvm::Value* pos = b.CreateSub(
          b.CreateAdd(b.CreateMul(r[d + 1], c->I64(wd.stride)),
                      b.CreateMul(k[d], c->I64(wd.window_dilation))),
          c->I64(wd.padding_low));
      valid = b.CreateAnd(valid, b.CreateICmpSGE(pos, c->I64(0)));
      valid = b.CreateAnd(valid, b.CreateICmpSLT(pos, c->I64(dilated)));
      llvm::Value* in_pos = pos;
      if (wd.base_dilation > 1) {
        // Under `valid` pos >= 0, so unsigned division is exact.
        valid = b.CreateAnd(
            valid, b.CreateICmpEQ(b.CreateURem(pos, c->I64(wd.base_dilation)),
                                  c->I64(0)));
        in_pos = b.CreateUDiv(pos, c->I64(wd.base_dilation));
      }
      lidx[map->dn.input_spatial_dimensions[d]] = in_pos;
    }
    llvm::Type* t = codegen::ComputeType(b.getContext(), type);
    llvm::Value* slot = c->EntryAlloca(t, 1, "conv_a");
    b.CreateStore(llvm::ConstantFP::get(t, 0.0), slot);
    HLOREF_RETURN_IF_ERROR(c->EmitIf(
        valid,
        [&]() -> absl::Status {
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, lhs(lidx));
          b.CreateStore(x, slot);
          return absl::OkStatus();
        },
        "conv_in"));
    return b.CreateLoad(t, slot);
  };
  io.load_b = [map, c, rhs, split_l, kernel_spatial](
                  llvm::Value* g, llvm::Value* l,
                  llvm::Value* col) -> absl::StatusOr<llvm::Value*> {
    codegen::IRBuilder& b = c->b();
    std::vector<llvm::Value*> k = split_l(l);
    IrIndex ridx(map->rank, nullptr);
    kernel_spatial(ridx, k);
    ridx[map->dn.kernel_input_feature_dimension] = k[map->window.size()];
    ridx[map->dn.kernel_output_feature_dimension] =
        map->groups > 1 ? b.CreateAdd(b.CreateMul(g, c->I64(map->og)), col)
                        : col;
    return rhs(ridx);
  };
  io.store = [map, c, out, split_row](llvm::Value* g, llvm::Value* row,
                                      llvm::Value* col,
                                      llvm::Value* v) -> absl::Status {
    codegen::IRBuilder& b = c->b();
    std::vector<llvm::Value*> r = split_row(row);
    IrIndex oidx(map->rank, nullptr);
    oidx[map->dn.output_batch_dimension] = r[0];
    for (size_t d = 0; d < map->window.size(); ++d) {
      oidx[map->dn.output_spatial_dimensions[d]] = r[d + 1];
    }
    oidx[map->dn.output_feature_dimension] =
        map->groups > 1 ? b.CreateAdd(b.CreateMul(g, c->I64(map->og)), col)
                        : col;
    out.EmitWrite(*c, oidx, v);
    return absl::OkStatus();
  };
  return io;
}

}  // namespace hloref::gpu
