// The kFft family: Fft (seed 001 "Fft"): FFT, IFFT, RFFT, IRFFT over the 1
// to 3 innermost axes. See fft.h for the definitions, the numerics and
// the oracle's error bound.
#include "interpreter/ops/fft.h"

#include <mpfr.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/families.h"
#include "interpreter/ops/wide_float.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

using wide::CDD;
using wide::DD;

// exp(sign * 2 pi i m / n) for m in [0, n), each component correctly
// rounded to 106 bits (hi + lo) by MPFR's cosu/sinu, which are exact at
// multiples of a quarter turn.
struct Twiddles {
  int64_t n = 0;
  std::vector<CDD> w;
};

Twiddles MakeTwiddles(int64_t n, bool inverse) {
  Twiddles t;
  t.n = n;
  t.w.resize(static_cast<size_t>(n));
  mpfr_t x, c, s, rest;
  mpfr_inits2(160, x, c, s, rest, static_cast<mpfr_ptr>(nullptr));
  auto split = [&](mpfr_t v) {
    DD r;
    r.hi = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(rest, v, r.hi, MPFR_RNDN);
    r.lo = mpfr_get_d(rest, MPFR_RNDN);
    return r;
  };
  for (int64_t m = 0; m < n; ++m) {
    mpfr_set_si(x, static_cast<long>(m), MPFR_RNDN);
    mpfr_cosu(c, x, static_cast<unsigned long>(n), MPFR_RNDN);
    mpfr_sinu(s, x, static_cast<unsigned long>(n), MPFR_RNDN);
    if (!inverse) mpfr_neg(s, s, MPFR_RNDN);
    t.w[m] = CDD{split(c), split(s)};
  }
  mpfr_clears(x, c, s, rest, static_cast<mpfr_ptr>(nullptr));
  return t;
}

int64_t SmallestPrimeFactor(int64_t n) {
  if (n % 2 == 0) return 2;
  for (int64_t p = 3; p * p <= n; p += 2) {
    if (n % p == 0) return p;
  }
  return n;
}

// out[k] = sum_j in[j * stride] * w_n^(jk), k < n, where w_n^m is
// table.w[m * step] (table.n == n * step). Mixed radix: split off the
// smallest prime p, transform the p decimated subsequences, combine with
// length-p direct sums.
void Transform(const CDD* in, int64_t stride, int64_t n, CDD* out,
               const Twiddles& table, int64_t step) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const int64_t p = SmallestPrimeFactor(n);
  const int64_t m = n / p;
  if (m == 1) {
    for (int64_t k = 0; k < n; ++k) {
      CDD acc;
      for (int64_t j = 0; j < n; ++j) {
        acc = wide::CAdd(
            acc, wide::CMul(in[j * stride], table.w[((j * k) % n) * step]));
      }
      out[k] = acc;
    }
    return;
  }
  std::vector<CDD> sub(static_cast<size_t>(n));
  for (int64_t r = 0; r < p; ++r) {
    Transform(in + r * stride, stride * p, m, sub.data() + r * m, table,
              step * p);
  }
  for (int64_t k = 0; k < m; ++k) {
    for (int64_t q = 0; q < p; ++q) {
      const int64_t big_k = k + q * m;
      CDD acc = sub[k];  // r = 0: twiddle 1
      for (int64_t r = 1; r < p; ++r) {
        acc = wide::CAdd(
            acc, wide::CMul(sub[r * m + k], table.w[((r * big_k) % n) * step]));
      }
      out[big_k] = acc;
    }
  }
}

class TwiddleCache {
 public:
  const Twiddles& Get(int64_t n, bool inverse) {
    auto key = std::make_pair(n, inverse);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      it = cache_.emplace(key, MakeTwiddles(n, inverse)).first;
    }
    return it->second;
  }

 private:
  std::map<std::pair<int64_t, bool>, Twiddles> cache_;
};

// Transforms every line along `axis` of the row-major box `dims` in place.
// `check` is called once per line (the wall-time deadline).
absl::Status TransformAxis(std::vector<CDD>& data,
                           const std::vector<int64_t>& dims, int64_t axis,
                           bool inverse, TwiddleCache& cache,
                           const std::function<absl::Status()>& check) {
  const int64_t n = dims[axis];
  if (n <= 1) return absl::OkStatus();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  for (int64_t d = axis + 1; d < static_cast<int64_t>(dims.size()); ++d) {
    inner *= dims[d];
  }
  const Twiddles& table = cache.Get(n, inverse);
  std::vector<CDD> line(static_cast<size_t>(n)), result(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      HLOREF_RETURN_IF_ERROR(check());
      const int64_t base = o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) line[j] = data[base + j * inner];
      Transform(line.data(), 1, n, result.data(), table, 1);
      for (int64_t j = 0; j < n; ++j) data[base + j * inner] = result[j];
    }
  }
  return absl::OkStatus();
}

// Work of one length-n transform: n times the sum of its prime factors.
double TransformCost(int64_t n) {
  double primes = 0;
  for (int64_t m = n; m > 1;) {
    const int64_t p = SmallestPrimeFactor(m);
    primes += static_cast<double>(p);
    m /= p;
  }
  return static_cast<double>(n) * primes;
}

CDD FromComplex(std::complex<double> v) {
  return CDD{DD{v.real(), 0}, DD{v.imag(), 0}};
}

}  // namespace

// Discrete Fourier transforms over the innermost fft_length.size() axes.
// Semantics: Fft. impl.fft.1, impl.fft.2, impl.fft.3.
absl::StatusOr<Literal> EvalFft(const HloInstruction& inst,
                                absl::Span<const Literal* const> operands,
                                EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 1, 1));
  HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[0], 0));
  const Literal& operand = *operands[0];
  const Shape& in_shape = operand.shape();
  const Shape& out_shape = inst.shape();
  const std::vector<int64_t>& len = inst.attrs().fft_length;
  const FftType fft_type = inst.attrs().fft_type;
  const int64_t k = static_cast<int64_t>(len.size());
  const int64_t rank = in_shape.rank();
  const bool real_in = fft_type == FftType::kRfft;
  const bool real_out = fft_type == FftType::kIrfft;
  auto not_verified = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), why, " (is the module verified?)"));
  };
  if (k < 1 || k > 3 || k > rank || !out_shape.IsArray() ||
      out_shape.rank() != rank) {
    return not_verified("fft_length does not fit the operand");
  }
  if ((real_in ? !IsFloat(in_shape.element_type())
               : !IsComplex(in_shape.element_type())) ||
      (real_out ? !IsFloat(out_shape.element_type())
                : !IsComplex(out_shape.element_type()))) {
    return not_verified("element types do not fit the fft_type");
  }
  const int64_t first = rank - k;
  for (int64_t d = 0; d < first; ++d) {
    if (in_shape.dimensions(d) != out_shape.dimensions(d)) {
      return not_verified("batch dimensions differ");
    }
  }
  const int64_t n_last = len[k - 1];
  const int64_t half = n_last / 2 + 1;
  // The transformed boxes: input, output and the full working box.
  std::vector<int64_t> in_box, out_box, full_box(len);
  for (int64_t d = first; d < rank; ++d) {
    in_box.push_back(in_shape.dimensions(d));
    out_box.push_back(out_shape.dimensions(d));
  }
  for (int64_t i = 0; i < k; ++i) {
    int64_t want_in = len[i], want_out = len[i];
    if (i == k - 1 && fft_type == FftType::kRfft && n_last != 0) {
      want_out = half;
    }
    if (i == k - 1 && fft_type == FftType::kIrfft) {
      want_in = half;
      if (n_last == 0) want_out = in_box[i];
    }
    if (in_box[i] != want_in || out_box[i] != want_out) {
      return not_verified("transformed dimensions do not match fft_length");
    }
  }

  Literal zeros(out_shape);
  if (zeros.element_count() == 0) return zeros;
  for (int64_t l : len) {
    if (l == 0) {
      // impl.fft.2: a zero-length transform with a non-empty result.
      ctx.MarkAllImplDefined(0, "impl.fft.2");
      return zeros;
    }
  }

  int64_t batch = 1;
  for (int64_t d = 0; d < first; ++d) batch *= in_shape.dimensions(d);
  const int64_t in_size = Product(in_box);
  const int64_t out_size = Product(out_box);
  const int64_t full_size = Product(full_box);
  double total = 1;
  for (int64_t l : len) total *= static_cast<double>(l);

  std::vector<std::complex<double>> cin;
  std::vector<double> rin;
  if (real_in) {
    HLOREF_ASSIGN_OR_RETURN(rin, LoadDoubles(operand));
  } else {
    HLOREF_ASSIGN_OR_RETURN(cin, LoadComplex(operand));
  }
  const PrimitiveType out_type = out_shape.element_type();
  std::vector<std::complex<double>> cout;
  std::vector<double> rout;
  if (real_out) {
    rout.resize(static_cast<size_t>(batch * out_size));
  } else {
    cout.resize(static_cast<size_t>(batch * out_size));
  }
  // Refuse transforms whose direct prime-length stages would run for hours
  // (about 1e11 double-double multiply-adds), rather than hang.
  double cost = 0;
  for (int64_t i = 0; i < k; ++i) {
    cost += TransformCost(len[i]) * static_cast<double>(full_size / len[i]);
  }
  cost *= static_cast<double>(batch);
  if (cost > 1e11) {
    return absl::ResourceExhaustedError(absl::StrCat(
        InstructionPrefix(inst), "fft_length {", absl::StrJoin(len, ","),
        "} needs about ", cost,
        " double-double operations (length times the sum of its prime "
        "factors per line); the oracle computes large prime factors by a "
        "direct DFT and refuses more than 1e11"));
  }
  auto check = [&]() { return ctx.CheckDeadline(inst); };
  TwiddleCache cache;
  const bool inverse =
      fft_type == FftType::kIfft || fft_type == FftType::kIrfft;

  for (int64_t b = 0; b < batch; ++b) {
    HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    // Load the batch item and classify special values.
    bool has_inf = false;
    std::vector<CDD> data(static_cast<size_t>(real_out ? in_size : full_size));
    for (int64_t i = 0; i < in_size; ++i) {
      const int64_t src = b * in_size + i;
      const std::complex<double> v =
          real_in ? std::complex<double>(rin[src], 0) : cin[src];
      if (std::isinf(v.real()) || std::isinf(v.imag())) has_inf = true;
      data[i] = FromComplex(v);
    }
    auto mark_item = [&](absl::string_view id) {
      for (int64_t i = 0; i < out_size; ++i) {
        ctx.MarkImplDefined(0, b * out_size + i, id);
      }
    };
    if (has_inf) mark_item("impl.fft.3");

    if (!real_out) {
      // FFT, IFFT, RFFT: the full transform over every axis (innermost
      // first, as the seed describes for RFFT; the order does not change
      // the exact result).
      for (int64_t a = k - 1; a >= 0; --a) {
        HLOREF_RETURN_IF_ERROR(
            TransformAxis(data, full_box, a, inverse, cache, check));
      }
      // Copy the output box (RFFT keeps entries 0..n/2 of the innermost
      // axis), scaling the inverse by 1/N.
      std::vector<int64_t> idx(static_cast<size_t>(k), 0);
      const std::vector<int64_t> full_strides = RowMajorStrides(full_box);
      for (int64_t o = 0; o < out_size; ++o) {
        int64_t src = 0;
        for (int64_t i = 0; i < k; ++i) src += idx[i] * full_strides[i];
        CDD v = data[src];
        if (inverse) {
          v.re = wide::DivByDouble(v.re, total);
          v.im = wide::DivByDouble(v.im, total);
        }
        cout[b * out_size + o] = {wide::ForStore(out_type, v.re),
                                  wide::ForStore(out_type, v.im)};
        for (int64_t i = k - 1; i >= 0; --i) {
          if (++idx[i] < out_box[i]) break;
          idx[i] = 0;
        }
      }
      continue;
    }

    // IRFFT. impl.fft.1: the self-conjugate planes (innermost frequency 0
    // and, for even n, n/2) must be Hermitian over the outer axes (for
    // one axis: real).
    {
      std::vector<int64_t> outer(in_box.begin(), in_box.end() - 1);
      const int64_t outer_size = Product(outer);
      const std::vector<int64_t> outer_strides = RowMajorStrides(outer);
      bool hermitian = true;
      std::vector<int64_t> idx(outer.size(), 0);
      for (int64_t o = 0; o < outer_size && hermitian; ++o) {
        int64_t mirror = 0;
        for (size_t i = 0; i < outer.size(); ++i) {
          mirror += ((outer[i] - idx[i]) % outer[i]) * outer_strides[i];
        }
        for (int64_t plane : {int64_t{0}, n_last / 2}) {
          if (plane != 0 && n_last % 2 != 0) continue;
          const std::complex<double> v = cin[b * in_size + o * half + plane];
          const std::complex<double> w =
              cin[b * in_size + mirror * half + plane];
          if (!(v.real() == w.real() && v.imag() == -w.imag())) {
            hermitian = false;
          }
        }
        for (int64_t i = static_cast<int64_t>(outer.size()) - 1; i >= 0; --i) {
          if (++idx[i] < outer[i]) break;
          idx[i] = 0;
        }
      }
      if (!hermitian) mark_item("impl.fft.1");
    }
    // Inverse over the outer axes on the half spectrum.
    std::vector<int64_t> half_box(in_box);
    for (int64_t a = k - 2; a >= 0; --a) {
      HLOREF_RETURN_IF_ERROR(
          TransformAxis(data, half_box, a, /*inverse=*/true, cache, check));
    }
    // Innermost axis: Hermitian extension, inverse DFT, real part.
    const Twiddles& table = cache.Get(n_last, /*inverse=*/true);
    const int64_t lines = in_size / half;
    std::vector<CDD> line(static_cast<size_t>(n_last)),
        result(static_cast<size_t>(n_last));
    for (int64_t l = 0; l < lines; ++l) {
      for (int64_t j = 0; j < half; ++j) line[j] = data[l * half + j];
      for (int64_t j = half; j < n_last; ++j) {
        line[j] = wide::CConj(data[l * half + (n_last - j)]);
      }
      Transform(line.data(), 1, n_last, result.data(), table, 1);
      for (int64_t j = 0; j < n_last; ++j) {
        const DD v = wide::DivByDouble(result[j].re, total);
        rout[b * out_size + l * n_last + j] = wide::ForStore(out_type, v);
      }
    }
  }
  if (real_out) return StoreDoubles(out_shape, rout);
  return StoreComplex(out_shape, cout);
}

double FftBoundStages(absl::Span<const int64_t> fft_length, FftType type) {
  double stages = 0;
  for (int64_t n : fft_length) {
    if (n <= 1) continue;
    int64_t log2 = 0, log2_2n = 0;
    while ((int64_t{1} << log2) < n) ++log2;
    while ((int64_t{1} << log2_2n) < 2 * n) ++log2_2n;
    double l = (n & (n - 1)) == 0 ? static_cast<double>(log2 + 1)
                                  : static_cast<double>(3 * log2_2n + 4);
    if (n <= 64) l = std::max(l, static_cast<double>(n) / 4);
    stages += l;
  }
  if (type == FftType::kIfft || type == FftType::kIrfft) stages += 1;
  return stages;
}

}  // namespace hloref
