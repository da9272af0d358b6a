// Convolution as an implicit GEMM on the GEMM tiles of gpu_gemm.h (the
// tensor-core kernels for bf16 / f16, the FFMA kernel for f32 / f64): no
// im2col buffer, the GEMM's A loads compute the input position of each
// (output position, window position, input feature) on the fly.
//
// For a convolution with feature_group_count G (batch_group_count 1):
//   batch = G (the group g),
//   m     = output batch x output spatial positions (row-major over the
//           output's spatial dimensions in dim_labels order),
//   n     = output features per group (O / G),
//   k     = window positions x input features per group (Cg), the input
//           feature fastest (contiguous in NHWC inputs);
//   A[g][row][l] = input[b, g*Cg + c, pos] where pos_d = o_d*stride +
//                  w_d*rhs_dilate - pad_low lands on a non-hole of the
//                  base-dilated input (else 0), as codegen's EmitConvolution;
//   B[g][l][j]   = kernel[g*(O/G) + j, c, w_d or K_d-1-w_d (reversal)];
//   C[g][row][j] = output[b, g*(O/G) + j, o].
// Any dim_labels, stride, padding (also negative), lhs / rhs dilation,
// window reversal and feature grouping. Not taken (the element-wise
// kernel): batch_group_count > 1, operands and result not of one common
// f32 / f64 / bf16 / f16 type (integers, complex, f8, mixed types),
// zero-sized dimensions, and grids beyond the launch limits.
#ifndef HLOREF_BACKENDS_GPU_GPU_CONV_H_
#define HLOREF_BACKENDS_GPU_GPU_CONV_H_

#include <optional>
#include <string>

#include "backends/codegen/emit_context.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/ir_value.h"
#include "backends/gpu/gpu_gemm.h"
#include "spec/ir/hlo_module.h"

namespace hloref::gpu {

struct ConvGemmShape {
  int64_t groups = 1, m = 1, n = 1, k = 1;
};

// The GEMM a convolution maps to, or nullopt with `why` set when the
// tensor-core path does not take it.
std::optional<ConvGemmShape> ConvolutionAsGemm(const HloInstruction& conv,
                                               std::string* why);

// The GemmIo of `conv` (ConvolutionAsGemm must have accepted it): loads
// through the operands' generators, stores into `out`.
GemmIo ConvolutionGemmIo(codegen::EmitContext& ctx, const HloInstruction& conv,
                         const ConvGemmShape& shape,
                         codegen::ElementGenerator lhs,
                         codegen::ElementGenerator rhs,
                         const codegen::IrArray& out);

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_CONV_H_
