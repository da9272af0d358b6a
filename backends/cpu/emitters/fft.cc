// The CPU emitter of fft (FFT, IFFT, RFFT, IRFFT over 1 to 3 minor
// dimensions): a buffer emitter that calls the fft runtime
// (backends/cpu/runtime/fft.cc).
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_emitters.h"
#include "backends/cpu/emitters/emitter_util.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloref::cpu {
namespace {

using codegen::EmitContext;
using codegen::IrArray;
using codegen::IrValue;

absl::Status EmitFft(EmitContext& ctx, const HloInstruction& inst,
                     absl::Span<const IrValue> operands,
                     const IrValue& output) {
  if (operands.size() != 1 || !operands[0].IsArray() || !output.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": fft shapes"));
  }
  const IrArray& in = operands[0].array;
  const IrArray& out = output.array;
  const std::vector<int64_t>& len = inst.attrs().fft_length;
  const FftType fft_type = inst.attrs().fft_type;
  const int64_t k = static_cast<int64_t>(len.size());
  const int64_t rank = in.shape().rank();
  const bool real_in = fft_type == FftType::kRfft;
  const bool real_out = fft_type == FftType::kIrfft;
  auto not_verified = [&](const char* why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(), ": ", why, " (is the module verified?)"));
  };
  if (k < 1 || k > 3 || k > rank || out.shape().rank() != rank) {
    return not_verified("fft_length does not fit the operand");
  }
  const PrimitiveType it = in.element_type();
  const PrimitiveType ot = out.element_type();
  auto supported_real = [](PrimitiveType t) {
    return t == PrimitiveType::kF32 || t == PrimitiveType::kF64;
  };
  auto supported_complex = [](PrimitiveType t) {
    return t == PrimitiveType::kC64 || t == PrimitiveType::kC128;
  };
  if ((real_in ? !IsFloat(it) : !IsComplex(it)) ||
      (real_out ? !IsFloat(ot) : !IsComplex(ot))) {
    return not_verified("element types do not fit the fft_type");
  }
  if (!(real_in ? supported_real(it) : supported_complex(it)) ||
      !(real_out ? supported_real(ot) : supported_complex(ot))) {
    return absl::UnimplementedError(absl::StrCat("%", inst.name(), ": fft of ",
                                                 PrimitiveTypeName(it), " to ",
                                                 PrimitiveTypeName(ot)));
  }
  const int64_t first = rank - k;
  for (int64_t d = 0; d < first; ++d) {
    if (in.shape().dimensions(d) != out.shape().dimensions(d)) {
      return not_verified("batch dimensions differ");
    }
  }
  const int64_t n_last = len[k - 1];
  for (int64_t i = 0; i < k; ++i) {
    int64_t want_in = len[i], want_out = len[i];
    if (i == k - 1 && real_in && n_last != 0) want_out = n_last / 2 + 1;
    if (i == k - 1 && real_out) {
      want_in = n_last / 2 + 1;
      if (n_last == 0) want_out = in.shape().dimensions(first + i);
    }
    if (in.shape().dimensions(first + i) != want_in ||
        out.shape().dimensions(first + i) != want_out) {
      return not_verified("transformed dimensions do not match fft_length");
    }
  }
  llvm::Type* ptr = ctx.PtrType();
  llvm::Type* i64 = ctx.b().getInt64Ty();
  llvm::Type* i32 = ctx.b().getInt32Ty();
  llvm::FunctionType* ftype = llvm::FunctionType::get(
      ctx.b().getVoidTy(),
      {ptr, i32, i32, ptr, ptr, i64, ptr, ptr, ptr, ptr, i32, i64, ptr}, false);
  llvm::Function* f = ctx.GetRuntimeFunction("hloref_cpu_fft", ftype);
  ctx.b().CreateCall(
      f,
      {ctx.run_context(), ctx.I32(static_cast<int32_t>(it)),
       ctx.I32(static_cast<int32_t>(ot)), in.base(), out.base(), ctx.I64(rank),
       ConstI64Array(ctx, Dims(in.shape())), ConstI64Array(ctx, Strides(in)),
       ConstI64Array(ctx, Dims(out.shape())), ConstI64Array(ctx, Strides(out)),
       ctx.I32(static_cast<int32_t>(fft_type)), ctx.I64(k),
       ConstI64Array(ctx, len)});
  return absl::OkStatus();
}

}  // namespace

void RegisterCpuFftEmitters(codegen::EmitterTable& table) {
  table.SetBuffer(HloOpcode::kFft, EmitFft);
}

}  // namespace hloref::cpu
