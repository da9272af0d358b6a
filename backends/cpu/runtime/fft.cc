// The fft runtime of the CPU backend: FFT, IFFT, RFFT and IRFFT over the 1
// to 3 minor dimensions. Each 1-D transform is Eigen 3.4's FFT module
// (unsupported/Eigen/FFT, its kissfft mixed-radix engine, unscaled both
// ways) in complex<long double> (64-bit significand, twiddles computed in
// long double); the multi-dimensional transforms, the RFFT half spectrum,
// the IRFFT Hermitian extension and the 1/N scaling of the inverses are
// hloref's (the oracle's documented rules). Each result component is
// rounded once to the result type; the error is orders of magnitude below
// FFT_BOUND's 8 u L ||Y||_2 for f32 and f64 results.
#include "unsupported/Eigen/FFT"

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "backends/cpu/runtime/array_ops.h"
#include "backends/cpu/runtime/runtime_symbols.h"
#include "backends/cpu/runtime/strided.h"

namespace hloref::cpu {
namespace {

using rt::CL;
using LD = long double;

using Fft = Eigen::FFT<LD>;

// An FFT engine whose inverse is unscaled (the callers divide by N once
// over all the transformed axes).
struct UnscaledFft {
  UnscaledFft() { fft.SetFlag(Fft::Unscaled); }
  // result[k] = sum_j line[j] exp(-+2 pi i j k / n) (+ for the inverse).
  void Transform(const std::vector<CL>& line, std::vector<CL>& result,
                 bool inverse) {
    if (line.size() <= 1) {  // kissfft has no length-1 plan (it crashes)
      result = line;
      return;
    }
    if (inverse) {
      fft.inv(result, line);
    } else {
      fft.fwd(result, line);
    }
  }
  Fft fft;
};

// Transforms every line along `axis` of the row-major box `box` in place.
void TransformAxis(std::vector<CL>& data, const std::vector<int64_t>& box,
                   int64_t axis, bool inverse, UnscaledFft& fft) {
  const int64_t n = box[axis];
  if (n <= 1) return;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= box[d];
  for (int64_t d = axis + 1; d < static_cast<int64_t>(box.size()); ++d) {
    inner *= box[d];
  }
  std::vector<CL> line(static_cast<size_t>(n)), result(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) line[j] = data[base + j * inner];
      fft.Transform(line, result, inverse);
      for (int64_t j = 0; j < n; ++j) data[base + j * inner] = result[j];
    }
  }
}

// Physical positions of the row-major elements of the minor box (dims
// [first, rank)) of a strided buffer, relative to the batch item's base.
std::vector<int64_t> BoxOffsets(const int64_t* dims, const int64_t* strides,
                                int64_t first, int64_t rank) {
  std::vector<int64_t> offsets;
  std::vector<int64_t> box(dims + first, dims + rank);
  const int64_t k = rank - first;
  if (rt::Product(dims, first, rank) == 0) return offsets;
  std::vector<int64_t> idx(static_cast<size_t>(k), 0);
  do {
    int64_t off = 0;
    for (int64_t i = 0; i < k; ++i) off += idx[i] * strides[first + i];
    offsets.push_back(off);
  } while (rt::NextIndex(idx, box.data(), k));
  return offsets;
}

}  // namespace

void AddFftRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back({"hloref_cpu_fft", reinterpret_cast<void*>(&hloref_cpu_fft)});
}

}  // namespace hloref::cpu

extern "C" {

void hloref_cpu_fft(hloref::cpu::RunContext* ctx, int32_t in_type_id,
                    int32_t out_type_id, const void* in_data, void* out_data,
                    int64_t rank, const int64_t* in_dims,
                    const int64_t* in_strides, const int64_t* out_dims,
                    const int64_t* out_strides, int32_t fft_type, int64_t nlen,
                    const int64_t* lengths) {
  using hloref::cpu::CL;
  using hloref::cpu::LD;
  namespace rt = hloref::cpu::rt;
  (void)ctx;
  const auto in_type = static_cast<hloref::PrimitiveType>(in_type_id);
  const auto out_type = static_cast<hloref::PrimitiveType>(out_type_id);
  const uint8_t* in = static_cast<const uint8_t*>(in_data);
  uint8_t* out = static_cast<uint8_t*>(out_data);
  const int in_bytes = hloref::StorageBytes(in_type);
  const int out_bytes = hloref::StorageBytes(out_type);
  const int64_t out_count = rt::Product(out_dims, 0, rank);
  if (out_count == 0) return;
  const int64_t first = rank - nlen;
  const std::vector<int64_t> out_off =
      hloref::cpu::BoxOffsets(out_dims, out_strides, first, rank);
  const std::vector<int64_t> in_off =
      hloref::cpu::BoxOffsets(in_dims, in_strides, first, rank);
  std::vector<int64_t> full(lengths, lengths + nlen);
  bool zero_length = false;
  for (int64_t l : full) zero_length |= l == 0;
  const bool inverse = fft_type == 1 || fft_type == 3;
  const bool real_out = fft_type == 3;
  LD total = 1;
  for (int64_t l : full) total *= static_cast<LD>(l);
  const int64_t n_last = full.back();
  const int64_t half = n_last / 2 + 1;
  std::vector<int64_t> in_box(in_dims + first, in_dims + rank);
  std::vector<int64_t> out_box(out_dims + first, out_dims + rank);
  int64_t full_size = 1;
  for (int64_t l : full) full_size *= l;
  const int64_t in_size = static_cast<int64_t>(in_off.size());
  const int64_t out_size = static_cast<int64_t>(out_off.size());
  hloref::cpu::UnscaledFft fft;
  std::vector<int64_t> batch(static_cast<size_t>(rank), 0);
  do {
    const int64_t in_base = rt::Offset(batch, in_strides, rank);
    const int64_t out_base = rt::Offset(batch, out_strides, rank);
    if (zero_length) {
      // A zero-length transform with a non-empty result: zeros.
      for (int64_t o = 0; o < out_size; ++o) {
        rt::StoreWide(out_type, out + (out_base + out_off[o]) * out_bytes,
                      CL(0, 0));
      }
      continue;
    }
    std::vector<CL> data(static_cast<size_t>(real_out ? in_size : full_size));
    for (int64_t i = 0; i < in_size; ++i) {
      data[i] = rt::LoadWide(in_type, in + (in_base + in_off[i]) * in_bytes);
    }
    if (!real_out) {
      for (int64_t a = nlen - 1; a >= 0; --a) {
        hloref::cpu::TransformAxis(data, full, a, inverse, fft);
      }
      // The output box (RFFT: entries 0..n/2 of the innermost axis) of the
      // full row-major box.
      std::vector<int64_t> idx(static_cast<size_t>(nlen), 0);
      for (int64_t o = 0; o < out_size; ++o) {
        int64_t src = 0;
        for (int64_t i = 0; i < nlen; ++i) src = src * full[i] + idx[i];
        CL v = data[src];
        if (inverse) v = CL(v.real() / total, v.imag() / total);
        rt::StoreWide(out_type, out + (out_base + out_off[o]) * out_bytes, v);
        rt::NextIndex(idx, out_box.data(), nlen);
      }
      continue;
    }
    // IRFFT: inverse over the outer axes on the half spectrum, then per
    // innermost line the Hermitian extension, an inverse DFT and the real
    // part.
    for (int64_t a = nlen - 2; a >= 0; --a) {
      hloref::cpu::TransformAxis(data, in_box, a, /*inverse=*/true, fft);
    }
    const int64_t lines = in_size / half;
    std::vector<CL> line(static_cast<size_t>(n_last)),
        result(static_cast<size_t>(n_last));
    for (int64_t l = 0; l < lines; ++l) {
      for (int64_t j = 0; j < half; ++j) line[j] = data[l * half + j];
      for (int64_t j = half; j < n_last; ++j) {
        line[j] = std::conj(data[l * half + (n_last - j)]);
      }
      fft.Transform(line, result, /*inverse=*/true);
      for (int64_t j = 0; j < n_last; ++j) {
        const int64_t o = l * n_last + j;
        rt::StoreWide(out_type, out + (out_base + out_off[o]) * out_bytes,
                      CL(result[j].real() / total, 0));
      }
    }
  } while (rt::NextIndex(batch, out_dims, first));
}

}  // extern "C"
