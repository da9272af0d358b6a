// The linalg runtime of the CPU backend: cholesky and triangular-solve on
// raw strided buffers. Both compute in long double (complex<long double>
// for complex types) from the exact inputs and round each result element
// once to its type, which keeps the error far inside the comparator's
// BACKWARD_ERROR / FORWARD_ERROR bounds for every float and complex type.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "backends/cpu/runtime/array_ops.h"
#include "backends/cpu/runtime/runtime_symbols.h"
#include "backends/cpu/runtime/strided.h"

namespace hloref::cpu {
namespace {

using rt::CL;
using LD = long double;

// s / d, componentwise when d is real (one IEEE division per component).
CL Div(const CL& s, const CL& d) {
  if (d.imag() == 0) return CL(s.real() / d.real(), s.imag() / d.real());
  return s / d;
}

// Loads the [M, M] (or [R, C]) matrix at the batch index `index` (its two
// minor entries ignored) of a strided buffer into a row-major vector.
std::vector<CL> LoadMatrix(PrimitiveType type, const uint8_t* data,
                           const std::vector<int64_t>& index,
                           const int64_t* strides, int64_t rank, int64_t rows,
                           int64_t cols) {
  const int bytes = StorageBytes(type);
  const int64_t base = rt::Offset(index, strides, rank);
  std::vector<CL> m(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t off = base + i * strides[rank - 2] + j * strides[rank - 1];
      m[i * cols + j] = rt::LoadWide(type, data + off * bytes);
    }
  }
  return m;
}

void StoreMatrix(PrimitiveType type, uint8_t* data,
                 const std::vector<int64_t>& index, const int64_t* strides,
                 int64_t rank, int64_t rows, int64_t cols,
                 const std::vector<CL>& m) {
  const int bytes = StorageBytes(type);
  const int64_t base = rt::Offset(index, strides, rank);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t off = base + i * strides[rank - 2] + j * strides[rank - 1];
      rt::StoreWide(type, data + off * bytes, m[i * cols + j]);
    }
  }
}

}  // namespace

void AddLinalgRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back(
      {"hloref_cpu_cholesky", reinterpret_cast<void*>(&hloref_cpu_cholesky)});
  list.push_back({"hloref_cpu_triangular_solve",
                  reinterpret_cast<void*>(&hloref_cpu_triangular_solve)});
}

}  // namespace hloref::cpu

extern "C" {

void hloref_cpu_cholesky(hloref::cpu::RunContext* ctx, int32_t type_id,
                         const void* a, void* out, int64_t rank,
                         const int64_t* dims, const int64_t* a_strides,
                         const int64_t* out_strides, int32_t lower) {
  using hloref::cpu::CL;
  using hloref::cpu::LD;
  (void)ctx;
  const auto type = static_cast<hloref::PrimitiveType>(type_id);
  if (rank < 2 || hloref::cpu::rt::Product(dims, 0, rank) == 0) return;
  const int64_t m = dims[rank - 1];
  const LD nan = std::numeric_limits<LD>::quiet_NaN();
  std::vector<int64_t> index(rank, 0);
  std::vector<CL> l(static_cast<size_t>(m * m));
  do {
    const std::vector<CL> am = hloref::cpu::LoadMatrix(
        type, static_cast<const uint8_t*>(a), index, a_strides, rank, m, m);
    // The lower triangle of the Hermitian matrix read from a.
    auto a_low = [&](int64_t i, int64_t j) -> CL {
      return lower ? am[i * m + j] : std::conj(am[j * m + i]);
    };
    std::fill(l.begin(), l.end(), CL(0, 0));
    bool positive_definite = true;
    for (int64_t j = 0; j < m && positive_definite; ++j) {
      LD d = a_low(j, j).real();
      for (int64_t k = 0; k < j; ++k) d -= std::norm(l[j * m + k]);
      if (!(d > 0)) {
        positive_definite = false;
        break;
      }
      const LD ljj = std::sqrt(d);
      l[j * m + j] = CL(ljj, 0);
      for (int64_t i = j + 1; i < m; ++i) {
        CL s = a_low(i, j);
        for (int64_t k = 0; k < j; ++k) {
          s -= l[i * m + k] * std::conj(l[j * m + k]);
        }
        l[i * m + j] = s / ljj;
      }
    }
    std::vector<CL> result(static_cast<size_t>(m * m), CL(0, 0));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        if (!positive_definite) {
          result[i * m + j] = result[j * m + i] = CL(nan, 0);
        } else if (lower) {
          result[i * m + j] = l[i * m + j];
        } else {
          result[j * m + i] = i == j ? l[i * m + j] : std::conj(l[i * m + j]);
        }
      }
    }
    hloref::cpu::StoreMatrix(type, static_cast<uint8_t*>(out), index,
                             out_strides, rank, m, m, result);
  } while (hloref::cpu::rt::NextIndex(index, dims, rank - 2));
}

void hloref_cpu_triangular_solve(
    hloref::cpu::RunContext* ctx, int32_t type_id, const void* a, const void* b,
    void* out, int64_t rank, const int64_t* a_dims, const int64_t* a_strides,
    const int64_t* b_dims, const int64_t* b_strides, const int64_t* out_strides,
    int32_t left_side, int32_t lower, int32_t unit_diagonal,
    int32_t transpose) {
  using hloref::cpu::CL;
  (void)ctx;
  const auto type = static_cast<hloref::PrimitiveType>(type_id);
  if (rank < 2 || hloref::cpu::rt::Product(b_dims, 0, rank) == 0) return;
  const int64_t m = a_dims[rank - 1];
  const int64_t rows = b_dims[rank - 2];
  const int64_t cols = b_dims[rank - 1];
  const bool transposed = transpose != 0;
  const bool conjugate = transpose == 2;
  // op(a) is lower triangular when exactly one of `lower` and the
  // transposition holds.
  const bool t_lower = (lower != 0) != transposed;
  std::vector<int64_t> index(rank, 0);
  do {
    const std::vector<CL> am = hloref::cpu::LoadMatrix(
        type, static_cast<const uint8_t*>(a), index, a_strides, rank, m, m);
    std::vector<CL> x =
        hloref::cpu::LoadMatrix(type, static_cast<const uint8_t*>(b), index,
                                b_strides, rank, rows, cols);
    auto tri = [&](int64_t i, int64_t j) -> CL {
      if (i == j) return unit_diagonal ? CL(1, 0) : am[i * m + i];
      const bool inside = lower ? i > j : i < j;
      return inside ? am[i * m + j] : CL(0, 0);
    };
    auto t = [&](int64_t i, int64_t j) -> CL {
      if (!transposed) return tri(i, j);
      return conjugate ? std::conj(tri(j, i)) : tri(j, i);
    };
    if (left_side) {
      // op(a) x = b, x is M x K: substitution down (lower) or up (upper)
      // each column, in place (b's entries are read before overwritten).
      const int64_t k = cols;
      for (int64_t c = 0; c < k; ++c) {
        for (int64_t step = 0; step < m; ++step) {
          const int64_t i = t_lower ? step : m - 1 - step;
          CL s = x[i * k + c];
          if (t_lower) {
            for (int64_t j = 0; j < i; ++j) s -= t(i, j) * x[j * k + c];
          } else {
            for (int64_t j = i + 1; j < m; ++j) s -= t(i, j) * x[j * k + c];
          }
          x[i * k + c] = hloref::cpu::Div(s, t(i, i));
        }
      }
    } else {
      // x op(a) = b, x is K x M: forward in j for upper op(a), backward for
      // lower.
      const int64_t k = rows;
      for (int64_t r = 0; r < k; ++r) {
        for (int64_t step = 0; step < m; ++step) {
          const int64_t j = t_lower ? m - 1 - step : step;
          CL s = x[r * m + j];
          if (t_lower) {
            for (int64_t i = j + 1; i < m; ++i) s -= x[r * m + i] * t(i, j);
          } else {
            for (int64_t i = 0; i < j; ++i) s -= x[r * m + i] * t(i, j);
          }
          x[r * m + j] = hloref::cpu::Div(s, t(j, j));
        }
      }
    }
    hloref::cpu::StoreMatrix(type, static_cast<uint8_t*>(out), index,
                             out_strides, rank, rows, cols, x);
  } while (hloref::cpu::rt::NextIndex(index, b_dims, rank - 2));
}

}  // extern "C"
