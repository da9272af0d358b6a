// The math runtime of the CPU backend: complex transcendentals and complex
// pow, what the CPU target's EmitContext::complex_math hook calls
// (module_emitter.cc; numbering: backends/codegen/complex_ir.h's
// ComplexFn), computed in long double (64-bit
// significand) with the C library's complex functions and XLA's special
// cases (numerics.md 3.4), then rounded to double; the generated code
// rounds once more to float for c64. Also the scalar fallbacks of the f64
// sin, cos and tan kernels.
#include <cmath>
#include <complex>
#include <cstdint>

#include "backends/codegen/complex_ir.h"
#include "backends/cpu/runtime/runtime_symbols.h"

namespace {

using CLD = std::complex<long double>;
using hloref::codegen::ComplexFn;

CLD Sqrt(CLD z) {
  // sqrt(0 +- 0i) = (+0, +0) (XLA's polar formula loses the zero's sign).
  if (z.real() == 0 && z.imag() == 0) return CLD(0.0L, 0.0L);
  return std::sqrt(z);
}

CLD Expm1(CLD z) {
  // expm1(a + ib) = expm1(a) cos b - 2 sin^2(b/2) + i exp(a) sin b: no
  // cancellation near 0.
  const long double a = z.real(), b = z.imag();
  if (!std::isfinite(a) || !std::isfinite(b)) return std::exp(z) - 1.0L;
  const long double s = std::sin(b / 2);
  return CLD(std::expm1(a) * std::cos(b) - 2 * s * s,
             std::exp(a) * std::sin(b));
}

CLD Log1p(CLD z) {
  // log1p(a + ib) = 0.5 log1p(2a + a^2 + b^2) + i atan2(b, 1 + a) near 0.
  const long double a = z.real(), b = z.imag();
  if (!std::isfinite(a) || !std::isfinite(b) || std::fabs(a) > 0.5L ||
      std::fabs(b) > 0.5L) {
    return std::log(1.0L + z);
  }
  return CLD(0.5L * std::log1p(2 * a + a * a + b * b), std::atan2(b, 1.0L + a));
}

CLD Eval(int32_t fn, CLD z) {
  switch (static_cast<ComplexFn>(fn)) {
    case ComplexFn::kSqrt:
      return Sqrt(z);
    case ComplexFn::kRsqrt:
      return 1.0L / Sqrt(z);
    case ComplexFn::kExp:
      return std::exp(z);
    case ComplexFn::kExpm1:
      return Expm1(z);
    case ComplexFn::kLog:
      return std::log(z);
    case ComplexFn::kLog1p:
      return Log1p(z);
    case ComplexFn::kLogistic:
      return 1.0L / (1.0L + std::exp(-z));
    case ComplexFn::kSin:
      return std::sin(z);
    case ComplexFn::kCos:
      return std::cos(z);
    case ComplexFn::kTan:
      return std::tan(z);
    case ComplexFn::kTanh:
      return std::tanh(z);
    case ComplexFn::kSinh:
      return std::sinh(z);
    case ComplexFn::kCosh:
      return std::cosh(z);
    case ComplexFn::kAsin:
      return std::asin(z);
    case ComplexFn::kAcos:
      return std::acos(z);
    case ComplexFn::kAsinh:
      return std::asinh(z);
    case ComplexFn::kAcosh:
      return std::acosh(z);
    case ComplexFn::kAtanh:
      return std::atanh(z);
    case ComplexFn::kPow:  // hloref_cpu_complex_pow, below
      break;
  }
  const long double nan = std::nanl("");
  return CLD(nan, nan);
}

}  // namespace

extern "C" {

void hloref_cpu_complex_unary(int32_t fn, double re, double im, double* out) {
  const CLD r = Eval(fn, CLD(re, im));
  out[0] = static_cast<double>(r.real());
  out[1] = static_cast<double>(r.imag());
}

// (a + ib)^(c + id) = |z|^c exp(-d arg z) (cos q + i sin q),
// q = c arg z + d log|z|; x^0 = 1, 1^w = 1, 0^(c + 0i) = 0 for c > 0.
void hloref_cpu_complex_pow(double a_, double b_, double c_, double d_,
                            double* out) {
  const long double a = a_, b = b_, c = c_, d = d_;
  if ((c == 0 && d == 0) || (a == 1 && b == 0)) {
    out[0] = 1.0;
    out[1] = 0.0;
    return;
  }
  if (a == 0 && b == 0 && d == 0 && c > 0) {
    out[0] = 0.0;
    out[1] = 0.0;
    return;
  }
  const long double abs = std::hypot(a, b);
  const long double arg = std::atan2(b, a);
  const long double mag = std::pow(abs, c) * std::exp(-d * arg);
  const long double q = c * arg + d * std::log(abs);
  out[0] = static_cast<double>(mag * std::cos(q));
  out[1] = static_cast<double>(mag * std::sin(q));
}

// The scalar fallbacks of the f64 sin, cos and tan kernels
// (backends/codegen/math_ir.h) for the finite arguments of magnitude
// >= 2^27 the vector reduction does not cover: the C library in long
// double (glibc reduces exactly; the 64-bit result rounded to double is
// within 0.5 + 2^-10 ulp). glibc's double cos is not enough there: at
// x = 5.3193726483265414e+255 (cos x = -4.687e-19) it is 8 ulp off
// (measured against libquadmath's cosq and mpmath at 3000 bits).
double hloref_cpu_sin_f64(double x) {
  return static_cast<double>(std::sin(static_cast<long double>(x)));
}
double hloref_cpu_cos_f64(double x) {
  return static_cast<double>(std::cos(static_cast<long double>(x)));
}
double hloref_cpu_tan_f64(double x) {
  return static_cast<double>(std::tan(static_cast<long double>(x)));
}

}  // extern "C"

namespace hloref::cpu {

void AddMathRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back({"hloref_cpu_complex_unary",
                  reinterpret_cast<void*>(&hloref_cpu_complex_unary)});
  list.push_back({"hloref_cpu_complex_pow",
                  reinterpret_cast<void*>(&hloref_cpu_complex_pow)});
  list.push_back(
      {"hloref_cpu_sin_f64", reinterpret_cast<void*>(&hloref_cpu_sin_f64)});
  list.push_back(
      {"hloref_cpu_cos_f64", reinterpret_cast<void*>(&hloref_cpu_cos_f64)});
  list.push_back(
      {"hloref_cpu_tan_f64", reinterpret_cast<void*>(&hloref_cpu_tan_f64)});
}

}  // namespace hloref::cpu
