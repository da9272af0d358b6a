// FFT_BOUND: the per-element bound of fft (FFT, IFFT, RFFT, IRFFT over 1 to
// 3 axes). docs/numerics.md has no fft formula; this is ours.
//
// Derivation. A radix-2 Cooley-Tukey FFT of length n = 2^t computed in
// floating point with twiddle factors of relative error mu satisfies
// (Higham, Accuracy and Stability, 2nd ed., thm 24.2)
//   ||Y^ - Y||_2 <= t eta / (1 - t eta) ||Y||_2,  eta = mu + gamma_4(u)(sqrt2
//   + mu),
// i.e. about t * (5.66 + 1) u ||Y||_2 with twiddles good to u. Every
// element's error is at most the norm of the error vector, so per element
//   |Y^_k - Y_k| <= c u L ||Y||_2,  c = 8,
// with L the number of butterfly stages. A transform over several axes is
// the composition of scaled unitary one-axis transforms, so the stage
// counts add (first order) and ||Y||_2 is the norm of the whole batch
// item's result. Per axis of length n we take
//   L_a = ceil(log2 n) + 1                     n a power of two
//   L_a = 3 ceil(log2 2n) + 4                  otherwise (Bluestein: three
//                                              power-of-two FFTs of length
//                                              >= 2n - 1 and two chirp
//                                              products; mixed-radix and
//                                              prime-factor plans are
//                                              below it)
//   L_a = max(L_a, n / 4)                      n <= 64: a direct DFT kernel,
//                                              whose error is <= (n + 2) u
//                                              ||x||_1 <= 2 n u ||Y||_2
// plus 1 for the 1/N scaling of IFFT and IRFFT. RFFT keeps half of the
// spectrum: the full spectrum's norm is at most sqrt(2) times the kept
// half's, so ||Y||_2 is taken times sqrt(2). IRFFT's result is real and
// the bound is the same with the real result's norm. ||Y||_2 is computed
// from the oracle's values (relative error <= u_T, covered by c's margin).
//
// Floors: gradual underflow makes each multiplication absolutely wrong by
// up to half the subnormal spacing and a flushing backend by up to min_T
// per stage and element; through the remaining scaled-unitary stages that
// is at most L N_item tiny, tiny = min_T under a declared ftz, else the
// subnormal spacing. The oracle's rounding (half an ulp of each
// component) is added by the comparator.
//
// Masked (ANY): items whose partial sums may overflow (||x||_1 times 2
// reaching max_T, for some evaluation order), elements the oracle marks
// implementation-defined
// (impl.fft.1 non-Hermitian IRFFT input, impl.fft.2 zero length, impl.fft.3
// infinite input), and every element of an item whose result is not
// finite: the oracle computes in exact complex arithmetic, where a NaN
// input reaches every component, but FFT plans skip the multiplications
// by trivial twiddles (1, -1, +-i), so which components become NaN
// depends on the plan (XLA:CPU returns (x, NaN) where the oracle has
// (NaN, NaN), and even finite values where an IRFFT drops an input
// component).
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/compare/op_bounds.h"
#include "interpreter/ops/fft.h"
#include "spec/types/minifloat.h"

namespace hloref::conformance {

double TinyOf(PrimitiveType type, const Deviations& deviations) {
  const PrimitiveType part =
      IsComplex(type) ? ComplexComponentType(type) : type;
  if (!IsFloat(part)) return 0;
  const FloatFormat& f = FormatOf(part);
  return deviations.ftz_types.count(part) ? MinNormal(f) : MinSubnormal(f);
}

OpBounds FftBounds(const OpBoundContext& ctx) {
  OpBounds r;
  const HloInstruction& inst = *ctx.inst;
  const Literal& y = *ctx.oracle;
  const Shape& shape = y.shape();
  const std::vector<int64_t>& len = inst.attrs().fft_length;
  const FftType fft_type = inst.attrs().fft_type;
  const int64_t k = static_cast<int64_t>(len.size());
  const int64_t rank = shape.rank();
  if (k < 1 || k > rank) {
    r.rule = "ANY (fft: fft_length does not fit the result)";
    return r;
  }
  const PrimitiveType type = y.element_type();
  const PrimitiveType part =
      IsComplex(type) ? ComplexComponentType(type) : type;
  if (!IsFloat(part)) {
    r.rule = "ANY (fft: not a floating-point result)";
    return r;
  }
  const double u = std::ldexp(1.0, -Precision(FormatOf(part)));
  const double stages = FftBoundStages(len, fft_type);
  int64_t item = 1;
  for (int64_t d = rank - k; d < rank; ++d) item *= shape.dimensions(d);
  const int64_t n_total = y.element_count();
  const double tiny = TinyOf(type, *ctx.deviations);
  const double max_t = MaxFinite(FormatOf(part));
  const double norm_factor = fft_type == FftType::kRfft ? std::sqrt(2.0) : 1;
  static constexpr const char* kTypeNames[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  r.ok = true;
  r.rule =
      absl::StrCat("FFT_BOUND (fft ", kTypeNames[static_cast<int>(fft_type)],
                   ", fft_length [", absl::StrJoin(len, ","),
                   "]): |v - y| <= ", kFftBoundConstant, " u L ||Y_item||_2",
                   fft_type == FftType::kRfft ? " sqrt2" : "",
                   " + L N tiny, L = ", stages, ", u = 2^", std::log2(u));
  r.bound.assign(static_cast<size_t>(n_total), 0);
  if (item == 0) return r;
  for (int64_t base = 0; base < n_total; base += item) {
    long double sum2 = 0;
    bool finite = true;
    bool marked = false;
    for (int64_t i = base; i < base + item; ++i) {
      const std::complex<double> v =
          IsComplex(type) ? y.GetAsComplex(i)
                          : std::complex<double>(y.GetAsDouble(i), 0);
      if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) finite = false;
      sum2 += static_cast<long double>(std::norm(v));
      if (ctx.dont_care != nullptr && ctx.dont_care->GetAsInt64(i) != 0) {
        marked = true;
      }
    }
    double b = kFftBoundConstant * u * stages * norm_factor *
                   static_cast<double>(std::sqrt(sum2)) +
               stages * static_cast<double>(item) * tiny;
    // Partial sums of any plan are bounded by ||x||_1 <= sqrt(N) ||x||_2,
    // which is ||Y||_2 for FFT and RFFT and N ||Y||_2 for the scaled
    // inverses: where that reaches the overflow threshold some plans
    // overflow an intermediate.
    const double reach =
        static_cast<double>(std::sqrt(sum2)) * norm_factor *
        (fft_type == FftType::kIfft || fft_type == FftType::kIrfft
             ? static_cast<double>(item)
             : 1.0) *
        2;
    if (marked) {
      b = NAN;
      r.any_reason = "implementation-defined item (impl.fft.*)";
    } else if (finite && !(reach < max_t)) {
      b = NAN;
      r.any_reason = "intermediate overflow possible (||x||_1 near max)";
    } else if (!finite) {
      b = NAN;
      r.any_reason =
          "non-finite data: which components become NaN or infinite "
          "depends on the plan (trivial twiddles are not multiplied)";
    }
    for (int64_t i = base; i < base + item; ++i) {
      r.bound[static_cast<size_t>(i)] = b;
    }
  }
  return r;
}

}  // namespace hloref::conformance
