// The kFft family: Fft with fft_type FFT, IFFT, RFFT and IRFFT over the 1
// to 3 innermost axes (seed 001 "Fft"). EvalFft (families.h) evaluates it.
//
// Definitions (XLA's, Eigen/cuFFT conventions): FFT X[k] = sum_j x[j]
// exp(-2 pi i jk/n) per transformed axis; IFFT uses exp(+2 pi i jk/n) and
// multiplies by 1/N, N the product of fft_length; RFFT is the FFT of the
// real operand keeping entries 0 .. n/2 of the innermost axis; IRFFT
// applies the inverse over the outer transformed axes, then along the
// innermost axis the inverse of the Hermitian extension X[n-k] =
// conj(X[k]) of entries 0 .. n/2, keeping the real part, times 1/N.
//
// Numerics: a mixed-radix decimation-in-time transform (direct DFT for
// prime lengths) in double-double arithmetic with twiddle factors
// exp(2 pi i m/n) correctly rounded to 106 bits by MPFR (exact at
// multiples of a quarter turn), cascaded over the axes without
// intermediate rounding, then each component rounded once to the output
// type (round-to-odd at 53 bits first for c64). Oracle error before the
// final rounding, per component: <= 2^-98 * (sum over axes of the prime
// factors of n_axis) * ||x||_1 of the contributing inputs: negligible
// against half an ulp of f64 for every practical size, so results are the
// correctly rounded exact transform except where the exact value is
// smaller than that bound (zeros may come out as tiny values of either
// sign).
//
// Implementation-defined points (spec/impl_defined.md):
//   impl.fft.1  IRFFT input that is not the spectrum of a real signal on
//               the self-conjugate planes (imaginary part at frequency 0
//               or n/2 of the innermost axis, or no Hermitian symmetry of
//               those planes over the outer axes): backends disagree on
//               what they ignore; the batch item's outputs are marked.
//   impl.fft.2  a zero fft_length with a non-empty result (IRFFT with
//               fft_length[-1] = 0): zeros, marked.
//   impl.fft.3  an infinite input: the result components are NaN or
//               infinite depending on the algorithm; the batch item's
//               outputs are marked (the oracle gives NaN).
#ifndef HLOREF_INTERPRETER_OPS_FFT_H_
#define HLOREF_INTERPRETER_OPS_FFT_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "interpreter/ops/eval_context.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {

// The comparator's FFT_BOUND (conformance/compare/fft_bound.cc, which
// derives it) allows |v - y| <= kFftBoundConstant u L ||Y_item||_2 (times
// sqrt 2 for RFFT) + L N_item tiny per element; the whole-program
// enclosures (interpreter/enclosure.cc) use the same class. L, the
// butterfly stage count: per axis of length n, ceil(log2 n) + 1 for a
// power of two, else 3 ceil(log2 2n) + 4 (Bluestein), at least n / 4 for
// n <= 64 (a direct DFT); summed over the axes, plus 1 for the 1/N of IFFT
// and IRFFT.
inline constexpr double kFftBoundConstant = 8;
double FftBoundStages(absl::Span<const int64_t> fft_length, FftType type);

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_FFT_H_
