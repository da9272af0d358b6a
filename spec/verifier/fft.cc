// Verifier: fft (seed 001 "Fft").
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {

absl::StatusOr<Shape> InferFft(const HloInstruction& inst) {
  if (inst.opcode() != HloOpcode::kFft) return WrongFamily(inst, "fft");
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "fft.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const auto& len = inst.attrs().fft_length;
  const int64_t k = static_cast<int64_t>(len.size());
  // fft.C2: "FFTs on up to 3 axes", the innermost ones of the operand.
  if (k < 1 || k > 3 || k > operand.rank()) {
    return Fail(inst, "fft.C2", "fft_length ", DimsStr(len), " has ", k,
                " entries, expected 1 to 3 and at most the operand rank ",
                operand.rank());
  }
  const PrimitiveType t = operand.element_type();
  const FftType type = inst.attrs().fft_type;
  const int64_t first = operand.rank() - k;
  Shape result = WithElementType(operand, t);
  // fft.C3: the element type fits the transform: FFT/IFFT complex in and
  // out; RFFT f32/f64 in, complex out; IRFFT complex in, real out.
  const bool real_in = type == FftType::kRfft;
  const bool ok = real_in
                      ? (t == PrimitiveType::kF32 || t == PrimitiveType::kF64)
                      : IsComplex(t);
  if (!ok) {
    return Fail(inst, "fft.C3",
                real_in ? "RFFT needs an f32 or f64 operand"
                        : "FFT, IFFT and IRFFT need a complex "
                          "operand",
                ", got ", PrimitiveTypeName(t));
  }
  // fft.C4: the transformed axes match fft_length: all of them for
  // FFT/IFFT/RFFT; for IRFFT the innermost has fft_length[-1] / 2 + 1
  // entries.
  for (int64_t i = 0; i < k; ++i) {
    int64_t want = len[i];
    if (type == FftType::kIrfft && i == k - 1) want = len[i] / 2 + 1;
    if (operand.dimensions(first + i) != want) {
      return Fail(inst, "fft.C4", "operand dimension ", first + i, " has size ",
                  operand.dimensions(first + i), ", fft_length ", DimsStr(len),
                  " needs ", want);
    }
  }
  const int64_t last = operand.rank() - 1;
  if (type == FftType::kRfft) {
    result.set_element_type(t == PrimitiveType::kF32 ? PrimitiveType::kC64
                                                     : PrimitiveType::kC128);
    // Seed: "reduced to fft_length[-1] // 2 + 1 if fft_length[-1] is a
    // non-zero value".
    if (len[k - 1] != 0) result.set_dimensions(last, len[k - 1] / 2 + 1);
  } else if (type == FftType::kIrfft) {
    result.set_element_type(ComplexComponentType(t));
    if (len[k - 1] != 0) result.set_dimensions(last, len[k - 1]);
  }
  return result;
}

}  // namespace hloref::verifier_internal
