// The CPU backend's convolution runtime: implicit GEMM on register-tiled
// microkernels (conv_kernels.h) for every dim_labels (layouts as strides),
// window stride, padding (negative too), lhs and rhs dilation, window
// reversal, feature_group_count and batch_group_count, and a vectorised
// depthwise kernel; called from the convolution buffer emitter
// (backends/cpu/emitters/convolution.cc) above the small-shape threshold.
// Design: docs/cpu-kernels.md "Convolution".
//
// What it computes is seed 001 "ConvWithGeneralPadding" as the oracle and
// the elemental emitter (backends/codegen/contraction.cc) state it: output
// (b, o, spatial) sums, over the window positions w and the input features
// c of o's feature group, input[in_b, g*Cg + c, pos] * kernel[o, c, kw],
// where pos_d = o_d*stride + w_d*rhs_dilate - pad_low must fall inside the
// base-dilated input on a non-hole (the input index is pos_d / lhs_dilate),
// kw_d = w_d or K_d-1-w_d under window reversal, g = o / (O / fgc), batch
// group h = o / (O / bgc) and in_b = h * B_out + b.
//
// As a GEMM per group: M = output batch x output spatial positions, N = the
// group's output features, K = kernel taps x the group's input features.
//
// Paths (the GEMM's GemmPathFor, float paths only): f32 (operands f32 or a
// narrower float type, converted to f32 once; FMA accumulation in f32;
// result f32, bf16 or f16, rounded once) and f64 (operands any float type up
// to f64). The range guard is the GEMM's (gemm.h): when K * max|x| * max|w|
// could overflow, a nonzero product could fall below the smallest normal,
// or an operand is not finite, the convolution is recomputed with a wide
// sequential accumulator (f64 for the f32 path, long double for f64). The
// decision depends on the data only, so results never depend on the thread
// count.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_CONV_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_CONV_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/cpu/runtime/conv_kernels.h"
#include "backends/cpu/runtime/run_context.h"
#include "spec/types/primitive_type.h"

namespace hloref::cpu {

class ThreadPool;

// A convolution in the runtime's terms: every logical dimension's size and
// its element stride in the buffer it belongs to (the buffers' layouts).
struct ConvDims {
  PrimitiveType input_type = PrimitiveType::kF32;
  PrimitiveType kernel_type = PrimitiveType::kF32;
  PrimitiveType output_type = PrimitiveType::kF32;
  int64_t feature_group_count = 1, batch_group_count = 1;
  // input: [batch, feature, spatial...]
  int64_t input_batch = 1, input_batch_stride = 0;
  int64_t input_feature = 1, input_feature_stride = 0;
  // kernel: [input feature (of one group), output feature, spatial...]
  int64_t kernel_input_feature = 1, kernel_input_stride = 0;
  int64_t kernel_output_feature = 1, kernel_output_stride = 0;
  // output: [batch, feature, spatial...]
  int64_t output_batch = 1, output_batch_stride = 0;
  int64_t output_feature = 1, output_feature_stride = 0;
  struct Spatial {
    int64_t input_size = 1, input_stride = 0;
    int64_t kernel_size = 1, kernel_stride = 0;
    int64_t output_size = 1, output_stride = 0;
    int64_t stride = 1, padding_low = 0, base_dilation = 1, window_dilation = 1;
    bool reversal = false;
  };
  std::vector<Spatial> spatial;
};

// Whether the runtime has a path for these element types (the float paths
// of the GEMM; everything else keeps the elemental emitter).
bool ConvPathFor(PrimitiveType input, PrimitiveType kernel,
                 PrimitiveType output);

// The flat i64 form generated code passes (a constant array).
std::vector<int64_t> EncodeConvDims(const ConvDims& dims);
absl::StatusOr<ConvDims> DecodeConvDims(const int64_t* desc);

// Runs the convolution on `threads` (null: the calling thread) with
// `kernels`. Errors: an unsupported type combination or dims that do not
// describe a convolution.
absl::Status RunConvolution(const ConvDims& dims, const void* input,
                            const void* kernel, void* output,
                            ThreadPool* threads,
                            const conv::ConvKernels& kernels);

// How the last RunConvolution on this thread ran (tests): "gemm",
// "depthwise", "wide" (the range guard's fallback), "empty".
const char* LastConvolutionPath();

void AddConvRuntimeSymbols(RuntimeSymbolList& list);

}  // namespace hloref::cpu

extern "C" {
// Generated code's entry: `desc` from EncodeConvDims; errors are recorded
// on the run context.
void hloref_cpu_convolution(hloref::cpu::RunContext* ctx, const int64_t* desc,
                            const void* input, const void* kernel,
                            void* output);
}

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_CONV_H_
