// The convolution microkernels of the CPU backend's convolution runtime
// (conv.cc; design in docs/cpu-kernels.md "Convolution").
//
// Implicit GEMM without an A panel: the GEMM microkernel (gemm_kernels.h)
// broadcasts A from a packed [k][6] panel; these kernels broadcast it from
// six *row pointers per kernel tap* straight into the input, so a window's
// stride, padding, lhs / rhs dilation and batch offset live in the pointer
// table the driver builds per 6-row strip (a padded or hole position
// points at a zero row), and the input is never packed or expanded into
// im2col. The kernel's B side is the packed filter, [tap][k][NR] per
// NR-wide panel of output features, zero-padded to NR.
//
// Summation order, the same in every kernel: each C element is one FMA (or
// multiply-add) chain over t = 0 .. ntaps-1, and within a tap over
// k = 0 .. kc-1, starting from 0 or from C's previous value. The driver
// calls the kernel over consecutive channel chunks in a fixed order, so an
// output element's value depends on the problem only, never on the thread
// count or the tile it landed in.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_CONV_KERNELS_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_CONV_KERNELS_H_

#include <cstdint>
#include <type_traits>

#include "backends/cpu/runtime/gemm_kernels.h"

namespace hloref::cpu::conv {

// Register tile: 6 output positions x 4 vectors of output features (64 f32
// or 32 f64): 24 zmm accumulators, the GEMM's shape.
constexpr int kConvMr = 6;
constexpr int kConvNrF32 = 64;
constexpr int kConvNrF64 = 32;

// Implicit-GEMM tile. For r < kConvMr and t < ntaps, a_rows[t * kConvMr + r]
// points at the input row of output position r under tap t (channels
// contiguous; every row pointer must be readable at a_off .. a_off + kc-1,
// rows past mr included: the driver points them at a zero row). b is the
// packed panel: b[(t * kc + k) * NR + j], zero past nr.
//   c_rows[r][j] (+)= sum_t sum_k a_rows[t*6 + r][a_off + k] * b[(t*kc+k)*NR +
//   j]
// for r < mr, j < nr (nothing else is read or written in C).
//
// The range guard's statistics (kernel_support.h Stats) of the input rows
// the tile reads first, taken inside the tile: `scan` is null or has a
// flag per (t, r) (scan[t * kConvMr + r]); every element a_rows[t*6 +
// r][a_off .. a_off + kc-1] of a flagged row is merged into stats = {max of
// |x| bits, min of (|x| bits - 1)} (unsigned, as in DwRowArgs). The tile
// loads each flagged row as vectors between its broadcasts, so the row's
// first trip from L3 overlaps the FMAs instead of stalling a separate scan
// before them (the 1x1 layer's scan took 13-19 % of its time).
using ConvKernelF32 = void (*)(int64_t ntaps, int64_t kc,
                               const float* const* a_rows, int64_t a_off,
                               const float* b, float* const* c_rows, int mr,
                               int nr, bool accumulate, const uint8_t* scan,
                               uint32_t* stats);
using ConvKernelF64 = void (*)(int64_t ntaps, int64_t kc,
                               const double* const* a_rows, int64_t a_off,
                               const double* b, double* const* c_rows, int mr,
                               int nr, bool accumulate, const uint8_t* scan,
                               uint64_t* stats);

// Depthwise (one input feature per group, one output feature per input
// feature): vectorised along the features. For r < mr and j < nc (at most
// kDwCols: 4 vectors):
//   c_rows[r][c_off + j] = sum_t a_rows[t*6 + r][a_off + j] * w[t * ldw + j]
// (each a chain over t in order, from 0). Loads past nc are masked, so rows
// need only be readable up to a_off + nc - 1.
constexpr int kDwColsF32 = 64;
constexpr int kDwColsF64 = 32;
using DwKernelF32 = void (*)(int64_t ntaps, const float* const* a_rows,
                             int64_t a_off, const float* w, int64_t ldw,
                             float* const* c_rows, int64_t c_off, int mr,
                             int nc);
using DwKernelF64 = void (*)(int64_t ntaps, const double* const* a_rows,
                             int64_t a_off, const double* w, int64_t ldw,
                             double* const* c_rows, int64_t c_off, int mr,
                             int nc);

// Depthwise along one output row (the last spatial dimension, X): the
// filter taps of a block of features stay in registers while the kernel
// slides along X, each input vector loaded once and used by every (output,
// tap) pair that reads it (a 3-tap stride-1 window: 10 loads per 24 FMAs
// for 8 outputs instead of 2 loads per FMA). The other spatial dimensions'
// taps ("outer" taps, o) come as row pointers.
//   out[x * out_sx + c] = sum over o < n_outer, kx < kw of
//     rows[o][i * in_sx + c] * w[(o * kw + kx) * channels + c],
//     i = x * stride - pad + kx * dilation,
// for x0 <= x < x0 + nx and c < channels, each a chain from +0 over the
// taps t = o * kw + kx in increasing order, skipping the taps whose row is
// null (padding or a hole in an outer dimension) or whose i falls outside
// [0, in_x). Skipping a tap equals adding its +-0 product: a chain that
// starts at +0 is never -0, and x + (+-0) = x for any other finite x (with
// inf / NaN operands the driver's range guard recomputes everything).
//
// The range guard's statistics (kernel_support.h Stats) of the input are
// folded into the kernel's own loads: for each outer tap o with scan[o]
// set, every input element the row's windows read (x in [x0, x0 + nx)) is
// merged into stats = {max of |x| bits, min of (|x| bits - 1)} (unsigned:
// zeros do not count as the smallest nonzero). So the input crosses
// memory once, in the kernel, instead of in a separate scan first.
template <typename T>
struct DwRowArgs {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  int64_t n_outer;
  const T* const* rows;  // [n_outer]: X position 0, channel 0; or null
  const T* w;            // [tap][channels]
  int64_t channels;
  int64_t kw, stride, dilation, pad;
  int64_t in_x, in_sx;
  int64_t x0, nx;
  T* out;  // X position 0, channel 0
  int64_t out_sx;
  const uint8_t* scan = nullptr;  // [n_outer], or null: no statistics
  U* stats = nullptr;             // [2]: max_abs, min_nz_minus1
};
using DwRowKernelF32 = void (*)(const DwRowArgs<float>& a);
using DwRowKernelF64 = void (*)(const DwRowArgs<double>& a);

// Depthwise along two output rows at once (two consecutive positions of
// the outer spatial dimension, same batch): the input rows both windows
// read are loaded into L1 once for both outputs instead of once per output
// (a 3x3 stride-1 layer: 4 input rows per 2 output rows instead of 6; the
// one-row kernel is bound by those L2 -> L1 loads). in_rows lists the input
// rows in increasing position along the outer dimension; tap[y][u] is the
// outer tap (o) at which output y reads input row u, or -1. Each output is
// the same chain as DwRowArgs gives it: its taps t = o * kw + kx in
// increasing order (u ascending gives o ascending, for each output), from
// +0, skipping the taps outside [0, in_x). Statistics as in DwRowArgs, for
// the rows u with scan[u] set. Only for kw = 3, stride 1, dilation 1
// (the kernel table has null elsewhere and for portable kernels).
template <typename T>
struct DwRow2Args {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  int64_t n_in;
  const T* const* in_rows;  // [n_in]: X position 0, channel 0; non-null
  const int8_t* tap[2];     // [n_in] each
  const T* w;               // [tap][channels]
  int64_t channels;
  int64_t pad;
  int64_t in_x, in_sx;
  int64_t x0, nx;
  T* out[2];  // X position 0, channel 0, per output row
  int64_t out_sx;
  const uint8_t* scan = nullptr;  // [n_in], or null
  U* stats = nullptr;
};
using DwRow2KernelF32 = void (*)(const DwRow2Args<float>& a);
using DwRow2KernelF64 = void (*)(const DwRow2Args<double>& a);

struct ConvKernels {
  const char* name;  // "avx512", "avx2", "portable"
  ConvKernelF32 f32;
  ConvKernelF64 f64;
  DwKernelF32 dw_f32;
  DwKernelF64 dw_f64;
  DwRowKernelF32 dw_row_f32;
  DwRowKernelF64 dw_row_f64;
  DwRow2KernelF32 dw_row2_f32;  // null: not available (use dw_row_f32)
  DwRow2KernelF64 dw_row2_f64;
  // The range guard's copy-and-scan kernels (shared with the GEMM).
  const gemm::GemmKernels* gemm;
};

// Portable C++ kernels (any host).
const ConvKernels& PortableConvKernels();
// AVX-512 kernels; null when the host lacks avx512f/bw/vl/dq.
const ConvKernels* Avx512ConvKernels();
// AVX2 + FMA kernels (the implicit-GEMM tiles; depthwise portable); null
// when the host lacks avx2 or fma.
const ConvKernels* Avx2ConvKernels();
// The best kernels for this host, chosen once: AVX-512, else AVX2, else
// portable; HLOREF_CPU_GEMM_ISA=portable or =avx2 forces those (as for the
// GEMM).
const ConvKernels& HostConvKernels();

}  // namespace hloref::cpu::conv

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_CONV_KERNELS_H_
