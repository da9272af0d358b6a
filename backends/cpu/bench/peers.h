// The peers of backends/cpu/bench/kernel_benchmark.cc: oneDNN, OpenBLAS and
// Eigen on the same shapes as the CPU backend's kernels, and the machine's
// limits (f32 FMA peak, memory bandwidth). Each workload is an object that
// allocates and prepares everything in its constructor (primitive
// creation, weight reorders, thread pools: outside the timing) and whose
// Run() is the timed call. Peers compiled out (the library was not found
// by CMake) are simply not offered: Available*() says which ones are.
#ifndef HLOREF_BACKENDS_CPU_BENCH_PEERS_H_
#define HLOREF_BACKENDS_CPU_BENCH_PEERS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hloref::cpu::bench {

// One timed workload of a peer.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual void Run() = 0;
};

enum class DType { kF32, kF64, kBF16, kS8 };
const char* DTypeName(DType t);

// C[b] = A[b] (M x K) * B[b] (K x N), all row-major, batch >= 1; the result
// type is f32 for f32/bf16, f64 for f64, s32 for s8.
struct GemmShape {
  int64_t batch = 1, m = 0, k = 0, n = 0;
  DType type = DType::kF32;
};
// 2-D convolution, NHWC input (batch 1), HWIO filter, NHWC output, f32.
struct ConvShape {
  int64_t h = 0, w = 0, c = 0, out_c = 0, kh = 3, kw = 3, stride = 1, pad = 1,
          groups = 1;
  int64_t out_h() const { return (h + 2 * pad - kh) / stride + 1; }
  int64_t out_w() const { return (w + 2 * pad - kw) / stride + 1; }
};
enum class ReduceKind { kRowSum, kColSum, kRowMax, kColMax };
struct ReduceShape {
  int64_t rows = 0, cols = 0;
  ReduceKind kind = ReduceKind::kRowSum;
  DType type = DType::kF32;  // kF32 or kBF16 input
};
// 2x2 max pooling, stride 2, no padding, of an f32 NHWC tensor (h, w even).
struct PoolShape {
  int64_t n = 1, h = 0, w = 0, c = 0;
};

// Which peers were compiled in.
bool HaveOneDnn();
bool HaveOpenBlas();
std::string PeerVersions();  // "oneDNN 2.6.3, OpenBLAS 0.3.21 ..., Eigen 3.4.0"
// OpenBLAS (DYNAMIC_ARCH) picks its kernels from the CPU model once, when
// the library loads; a model newer than its table gets the generic x86-64
// kernels (0.3.21 on the Xeon of family 6 model 207: "Prescott", SSE3, a
// tenth of its AVX-512 rate). Returns the OPENBLAS_CORETYPE value that
// matches the host's vector ISA when the core it chose lacks that ISA
// (main re-executes the benchmark with it set), or "" when its choice is
// right, it has no DYNAMIC_ARCH, or OpenBLAS is absent.
std::string OpenBlasCoreTypeForHost();

// Returns null when the peer does not take this shape/type (the caller
// leaves the row out). `threads` is the peer's own thread setting.
std::unique_ptr<Workload> OneDnnGemm(const GemmShape& s, int threads);
std::unique_ptr<Workload> OpenBlasGemm(const GemmShape& s, int threads);
std::unique_ptr<Workload> EigenGemm(const GemmShape& s, int threads);
std::unique_ptr<Workload> OneDnnConv(const ConvShape& s, int threads);
std::unique_ptr<Workload> OneDnnReduce(const ReduceShape& s, int threads);
std::unique_ptr<Workload> EigenReduce(const ReduceShape& s, int threads);
std::unique_ptr<Workload> EigenArgmax(int64_t n, int threads);
std::unique_ptr<Workload> OneDnnLayerNorm(int64_t rows, int64_t cols,
                                          int threads);
// Layer norm over the rows of an f32 rows x cols matrix with scale and
// shift (epsilon 1e-5), and softmax along the rows.
std::unique_ptr<Workload> EigenLayerNorm(int64_t rows, int64_t cols,
                                         int threads);
std::unique_ptr<Workload> OneDnnSoftmax(int64_t rows, int64_t cols,
                                        int threads);
std::unique_ptr<Workload> EigenSoftmax(int64_t rows, int64_t cols, int threads);
std::unique_ptr<Workload> OneDnnMaxPool(const PoolShape& s, int threads);
std::unique_ptr<Workload> EigenMaxPool(const PoolShape& s, int threads);

// The machine's limits, measured in the same run. FmaPeak: `threads`
// threads each run a register-only loop of independent f32 FMA chains
// (AVX-512 when the CPU has it, else AVX2+FMA); FmaFlops() is the work of
// one Run(). Bandwidth: sum of an array of `bytes` bytes, or the triad
// a = b + s * c over three arrays of `bytes` / 3 each (bytes moved counted
// as 3 arrays, write-allocate traffic not counted), split across threads.
std::unique_ptr<Workload> FmaPeak(int threads);
double FmaPeakFlops(int threads);
const char* FmaIsa();
std::unique_ptr<Workload> BandwidthSum(int64_t bytes, int threads);
std::unique_ptr<Workload> BandwidthTriad(int64_t bytes, int threads);
// Copy of an array of `bytes` bytes into another (the bandwidth reference of
// kernels that read and write the same amount: count 2 * bytes).
std::unique_ptr<Workload> BandwidthCopy(int64_t bytes, int threads);

}  // namespace hloref::cpu::bench

#endif  // HLOREF_BACKENDS_CPU_BENCH_PEERS_H_
