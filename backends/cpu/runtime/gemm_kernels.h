// The GEMM microkernels of the CPU backend's dot runtime (gemm.cc): one
// register tile C[mr x nr] (+)= A_panel[mr x kc] * B[kc x nr] per call,
// for f32 and f64 (FMA accumulation in the type) and for integers widened
// to s16 pairs (s32 accumulation, wrapping). Each ISA (AVX-512 with
// intrinsics, and a portable C++ version the compiler vectorises for
// whatever the baseline is) has the same packed layouts, so the driver and
// the packing routines are shared and the choice is one pointer table
// picked once from CPUID (HostGemmKernels).
//
// Summation order, the same in every kernel: each C element is one FMA
// (or multiply-add) chain over k = 0, 1, ..., kc-1 starting from 0 or from
// C's previous value. The driver calls kernels over consecutive K blocks,
// so an output element's value depends only on K's blocking, never on the
// thread count or the tile it landed in.
//
// Layouts (shared by every kernel):
//   A panel  a[k * kGemmMr + r], r < mr (rows mr..kGemmMr-1 unused);
//            integers: a[(p * kGemmMr + r) * 2 + {0,1}] = A[r][2p + {0,1}]
//   B rows   b[k * ldb + j], j < nr (a packed panel has ldb = NR and zero
//            padding up to NR; an unpacked row-major B has its own ldb);
//            integers: b[p * ldb + 2 j + {0,1}] = B[2p + {0,1}][j]
//   C        c[r * ldc + j] for r < mr, j < nr; nothing else is written.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_GEMM_KERNELS_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_GEMM_KERNELS_H_

#include <cstdint>

namespace hloref::cpu::gemm {

// Register tile: 6 rows x 4 vectors of 16 f32 (64 columns) = 24 zmm
// accumulators (oneDNN brgemm's 6x64); f64: 6 x 32; integers: 6 x 64 s32.
constexpr int kGemmMr = 6;
constexpr int kGemmNrF32 = 64;
constexpr int kGemmNrF64 = 32;
constexpr int kGemmNrInt = 64;

// accumulate: C += A*B (C's old value starts each chain) or C = A*B.
// full_b_rows: every B row has NR readable elements (packed, or an
// unpacked B whose tile is not at the N edge); otherwise only nr are read.
using GemmKernelF32 = void (*)(int64_t kc, const float* a, const float* b,
                               int64_t ldb, float* c, int64_t ldc, int mr,
                               int nr, bool accumulate, bool full_b_rows);
using GemmKernelF32RowsA = void (*)(int64_t kc, const float* a, int64_t lda,
                                    const float* b, int64_t ldb, float* c,
                                    int64_t ldc, int mr, int nr,
                                    bool accumulate, bool full_b_rows);
using GemmKernelF64 = void (*)(int64_t kc, const double* a, const double* b,
                               int64_t ldb, double* c, int64_t ldc, int mr,
                               int nr, bool accumulate, bool full_b_rows);
// kp: number of k PAIRS; ldb in int16 elements per k pair.
using GemmKernelInt = void (*)(int64_t kp, const int16_t* a, const int16_t* b,
                               int64_t ldb, int32_t* c, int64_t ldc, int mr,
                               int nr, bool accumulate, bool full_b_rows);

// The range guard's statistics over n f32 (f64) values, from their bit
// patterns (read with std::bit_cast or vector loads, never through an
// integer pointer to the floats): *max_abs = max(|x| bits), *min_nz_m1 =
// min(|x| bits - 1) (zero wraps to the maximum, so it is the smallest
// nonzero |x| minus 1); both are updated, not reset. When dst is not null
// the values are also copied there, bit for bit (packing and scanning in
// one pass), in chunks: value i goes to dst[(i / chunk) * dst_stride + i %
// chunk] (chunk >= 1; a contiguous copy has dst_stride = chunk).
using GemmCopyScanF32 = void (*)(const float* src, float* dst, int64_t n,
                                 int64_t chunk, int64_t dst_stride,
                                 uint32_t* max_abs, uint32_t* min_nz_m1);
using GemmCopyScanF64 = void (*)(const double* src, double* dst, int64_t n,
                                 int64_t chunk, int64_t dst_stride,
                                 uint64_t* max_abs, uint64_t* min_nz_m1);

// Skinny M: c[m * ldc + j] (+)= sum over k < kc of a[m * lda + k] *
// b[k * ldb + j], for m < mr <= kGemvMaxRows and j < n. B is read in place,
// whole rows in k order (memory streams, no packing; C stays in L1/L2);
// each element is one FMA chain in k order (after c's old value when
// accumulate), the same order as the tile kernels. The kernel also
// updates the range guard's statistics of every B value it reads
// (*max_abs, *min_nz_m1 as in GemmCopyScanF*), so B is read once.
// From kGemvTileMinRows rows on, when the B block fits a quarter of the
// last-level cache, the AVX-512 kernel keeps C in registers (row groups of
// at most 8 x 3 vectors) instead: the same chains, the same bits.
constexpr int kGemvMaxRows = 32;
constexpr int kGemvTileMinRows = 9;
using GemvKernelF32 = void (*)(int mr, int64_t kc, const float* a, int64_t lda,
                               const float* b, int64_t ldb, int64_t n, float* c,
                               int64_t ldc, bool accumulate, uint32_t* max_abs,
                               uint32_t* min_nz_m1);
// Skinny M over a B whose K dimension is contiguous (row j of B^T at
// b + j * ldb, as the keys of attention's q . k^T): c[m * ldc + j] = sum
// over k < kc of a[m * lda + k] * b[j * ldb + k], for m < mr <=
// kGemvKtMaxRows and j < n, without packing B. Each element is one FMA
// chain in k order from 0 (the tile kernels' order, so the same bits) on
// AVX-512; the range guard's statistics of every B value read are updated
// as in GemvKernelF32, unless max_abs and min_nz_m1 are null: then B is
// not scanned (the driver judges the results instead, RangeGuard::
// kCheckEach in kernel_support.h).
constexpr int kGemvKtMaxRows = 4;
using GemvKtKernelF32 = void (*)(int mr, int64_t kc, const float* a,
                                 int64_t lda, const float* b, int64_t ldb,
                                 int64_t n, float* c, int64_t ldc,
                                 uint32_t* max_abs, uint32_t* min_nz_m1);
// Skinny M over a bf16 B (its bit patterns, row-major as GemvKernelF32's
// B): each value widened to f32 as it is read (exact), then as
// GemvKernelF32 over the widened B, with the same chains (the same bits)
// and the statistics of the widened values. A bf16 weight read in place
// at decoding, where the packed path copied and widened all of it for one
// or a few rows. At most kGemvBf16MaxRows rows (the row-streaming kernel).
constexpr int kGemvBf16MaxRows = 8;
using GemvKernelBf16B = void (*)(int mr, int64_t kc, const float* a,
                                 int64_t lda, const uint16_t* b, int64_t ldb,
                                 int64_t n, float* c, int64_t ldc,
                                 bool accumulate, uint32_t* max_abs,
                                 uint32_t* min_nz_m1);
// GemvKtKernelF32 over a bf16 B (its bit patterns, K contiguous), each
// value widened to f32 as it is read: the bits and statistics of the f32
// kernel over the widened B (a decoding step's q . k^T against a bf16 key
// cache).
using GemvKtKernelBf16B = void (*)(int mr, int64_t kc, const float* a,
                                   int64_t lda, const uint16_t* b, int64_t ldb,
                                   int64_t n, float* c, int64_t ldc,
                                   uint32_t* max_abs, uint32_t* min_nz_m1);
using GemvKernelF64 = void (*)(int mr, int64_t kc, const double* a, int64_t lda,
                               const double* b, int64_t ldb, int64_t n,
                               double* c, int64_t ldc, bool accumulate,
                               uint64_t* max_abs, uint64_t* min_nz_m1);

// 16-bit float operands of the f32 path (bf16: `cvt_bf16`, f16:
// `cvt_f16`): n values from src (their bit patterns) widened to f32
// (exact: every bf16 and f16 value, subnormals included, is an f32 value)
// and stored as f32 values in dst, in chunks as GemmCopyScanF32, with the
// range guard's statistics of the widened values (dst must not be null).
using GemmCvtScanBf16 = void (*)(const uint16_t* src, float* dst, int64_t n,
                                 int64_t chunk, int64_t dst_stride,
                                 uint32_t* max_abs, uint32_t* min_nz_m1);

// 8-bit integers on AVX512-VNNI vpdpbusd: K in quads (groups of 4, the
// last zero-padded in B), each s32 lane adding 4 products of an unsigned
// byte and a signed byte per instruction, wrapping modulo 2^32.
//   A panel  a[(q * kGemmMr + r) * 4 + t] = A'[r][4q + t], broadcast
//   B rows   b[q * ldb + 4 j + t] = B[4q + t][j]
// b_unsigned: B's bytes are the unsigned operand and A's the signed one
// (else the reverse). The driver maps the four s8/u8 combinations onto it
// (gemm.cc RunIntItems): A' = A, or A xor 0x80 (A + 128 for s8 A, A - 128
// for u8 A) when both operands have the same signedness, with the exact
// correction corr[j] = -+128 * (sum of B's column j over the block) added
// to every row of the tile (null: none). Sums and the correction wrap in
// s32 like the oracle's, so the result is exact modulo 2^32.
using GemmKernelI8 = void (*)(int64_t kq, const uint8_t* a, const uint8_t* b,
                              int64_t ldb, int32_t* c, int64_t ldc, int mr,
                              int nr, bool accumulate, bool b_unsigned,
                              const int32_t* corr);

// Packs rows k = 0 .. rows-1 (rows <= 4; the others are zero) of n
// columns of a byte matrix (row j at src + k * ld + j) as one quad row of
// the GemmKernelI8 B layout: column j's 4 bytes at
// dst + (j / 64) * panel_stride + 4 * (j % 64); the last panel is
// zero-filled past n. When colsum is not null, colsum[j] += the sum of
// column j's bytes (as s8 when b_signed, else as u8), for j < n.
using GemmPackI8B = void (*)(const uint8_t* src, int64_t ld, int rows,
                             int64_t n, uint8_t* dst, int64_t panel_stride,
                             int32_t* colsum, bool b_signed);

// Interleaves the first `words` 32-bit words of six rows, each byte xor
// `flip`: dst[(q * 6 + r) * 4 + b] = rows[r][4 q + b] ^ flip. The A panel
// of GemmKernelI8 (a word is a quad of bytes) and of the bf16 pair tiles
// (a word is a pair of bf16 values, flip 0).
using GemmPackAWords = void (*)(const uint8_t* const rows[6], int64_t words,
                                uint8_t flip, uint8_t* dst);

// f32 transposing copy, bit for bit: dst[c * ldd + r] = src[r * lds + c]
// for r < rows and c < cols; nothing else in dst is written. Packs a B whose
// K dimension is contiguous into the [k][kNr] panels (ldd = kGemmNrF32)
// and a row-major A into its [k][kGemmMr] panel (ldd = kGemmMr): the
// per-element packing loops took ~a third of the GEMM time on attention's
// q . k^T (128 x 128 x 64 per batch element).
using GemmTransposeF32 = void (*)(const float* src, int64_t lds, int64_t rows,
                                  int64_t cols, float* dst, int64_t ldd);

using GemmF32ToBf16 = void (*)(const float* src, uint16_t* dst, int64_t n);

struct GemmKernels {
  const char* name;  // "avx512", "avx512-vnni", "avx2", "portable"
  GemmKernelF32 f32;
  GemmKernelF64 f64;
  GemmKernelInt i16;
  GemmCopyScanF32 scan_f32;
  GemmCopyScanF64 scan_f64;
  GemvKernelF32 gemv_f32;
  GemvKernelF64 gemv_f64;
  GemmCvtScanBf16 cvt_bf16;
  // Null where the host has no VNNI (the integer path then widens to s16
  // pairs for `i16`).
  GemmKernelI8 i8;
  GemmPackI8B pack_i8b;  // with i8
  GemmTransposeF32 transpose_f32;
  // Every f32 / f64 kernel (tile and GEMV) computes each element as one
  // chain of fused multiply-adds (no separately rounded product): the
  // range guard's relaxed rule (kernel_support.h RangeGuardFor) relies on
  // it. False for the portable kernels (ISO C++: no contraction).
  bool fma_chain = false;
  // The f32 tile reading A in place, a[r * lda + k] for r < mr (a
  // row-major A, K contiguous), instead of a packed [k][kGemmMr] panel:
  // the transposing A pack took a quarter of multi_head_attention's time
  // (128 x 64 and 128 x 128 A blocks per batch element). Each element is
  // the same FMA chain as with `f32`. Null where there is none (portable).
  GemmKernelF32RowsA f32_rows_a = nullptr;
  // f16 -> f32 (vcvtph2ps on AVX-512; the bit conversion in the portable
  // set), the same contract as cvt_bf16.
  GemmCvtScanBf16 cvt_f16 = nullptr;
  // n f32 values to bf16 bits, rounded to nearest even exactly as
  // kernel_support.h F32BitsToBf16 (the results of bf16 dots: 16 lanes on
  // AVX-512, the scalar function in the portable set).
  GemmF32ToBf16 f32_to_bf16 = nullptr;
  // Skinny M over a K-contiguous f32 B (GemvKtKernelF32).
  GemvKtKernelF32 gemv_kt_f32 = nullptr;
  // Skinny M over a row-major bf16 B (GemvKernelBf16B).
  GemvKernelBf16B gemv_bf16b_f32 = nullptr;
  // Skinny M over a K-contiguous bf16 B (GemvKtKernelBf16B).
  GemvKtKernelBf16B gemv_kt_bf16b_f32 = nullptr;
  // Whether f32_rows_a suits rows whose distance is a multiple of 4 KiB.
  // False for the AVX2 tile, whose 16-column strips re-read A's six rows
  // once per strip: six rows 4 KiB apart share one L1 set with the B lines
  // and thrash (1024^3 f32 on Zen 3: 42-48 GFLOP/s in place against 51-62
  // with A packed); the driver packs such an A instead.
  bool f32_rows_a_any_ld = true;
  // Six-row A panels of 32-bit words (the 8-bit and bf16 tiles' A with K
  // contiguous; null: the driver packs word by word).
  GemmPackAWords pack_a_words = nullptr;
};

// Fast mode only (CpuBackendOptions::fast, --cpu-fast): bf16 x bf16 on
// AVX512_BF16 vdpbf16ps, f32 accumulators, K in pairs (the i16 kernel's
// layouts with raw bf16 bits: a[(p * kGemmMr + r) * 2 + h],
// b[p * ldb + 2 j + h], the last pair zero-padded in B). Not conformant
// without a declared deviation: the instruction reads subnormal inputs as
// zero and flushes subnormal products and sums (measured in gemm_test), so
// the fast mode certifies with --deviations=ftz=f32+bf16.
using GemmKernelBf16Dp = void (*)(int64_t kp, const uint16_t* a,
                                  const uint16_t* b, int64_t ldb, float* c,
                                  int64_t ldc, int mr, int nr, bool accumulate);
// Packs rows k = 0 .. rows-1 (rows <= 2; the other zero) of n bf16 columns
// (row k at src + k * ld) as one pair row of that B layout: column j's
// pair at dst + (j / 64) * panel_stride + 2 * (j % 64), the last panel
// zero-filled past n; updates the range guard's statistics of the values
// as f32 bits (GemmCopyScanF32's *max_abs, *min_nz_m1).
using GemmPackBf16Pairs = void (*)(const uint16_t* src, int64_t ld, int rows,
                                   int64_t n, uint16_t* dst,
                                   int64_t panel_stride, uint32_t* max_abs,
                                   uint32_t* min_nz_m1);
// The range guard's statistics of n bf16 values (their bit patterns) as
// f32 bits (GemmCopyScanF32's *max_abs, *min_nz_m1), without widening
// them: every bf16 value is the f32 value of its bits shifted up 16.
using GemmScanBf16 = void (*)(const uint16_t* src, int64_t n, uint32_t* max_abs,
                              uint32_t* min_nz_m1);
// Packs a K-contiguous B block (column j's kc values at src + j * ld) into
// ceil(kc / 2) pair rows of the layout above: pair q of column j at
// dst + (j / 64) * panel_stride + q * 128 + 2 * (j % 64), the odd row of
// a last pair and the last panel's columns past n zero. A K pair of a
// column is one 32-bit word of it, so each 16 x 16 block of words is one
// register transpose. Statistics as GemmPackBf16Pairs.
using GemmPackBf16PairsKt = void (*)(const uint16_t* src, int64_t ld,
                                     int64_t kc, int64_t n, uint16_t* dst,
                                     int64_t panel_stride, uint32_t* max_abs,
                                     uint32_t* min_nz_m1);
struct Bf16DotKernels {
  GemmKernelBf16Dp kernel;
  GemmPackBf16Pairs pack_b;
  GemmScanBf16 scan;
  GemmPackBf16PairsKt pack_b_kt;
};
// Null when the host lacks AVX512_BF16 (or AVX-512).
const Bf16DotKernels* HostBf16DotKernels();

// Fast mode on AMX (tdpbf16ps, f32 accumulation in 16 x 16 tiles), where
// the host has AMX-TILE and AMX-BF16 and the OS grants the tile state
// (arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA)). C[r][j] (+)= sum over k of
// A[r][k] * B[k][j] for r < mr <= kGemmAmxMr, j < nr <= kGemmNrF32:
//   a: kGemmAmxMr rows of 2 * kp bf16 values, row r at a + r * 2 * kp (a
//      row-major A block, K contiguous; rows past mr and k past K zero);
//   b: the vdpbf16ps B layout above, b[p * ldb + 2 j + h], kp pair rows,
//      zero past K and past nr;
//   kp: pairs of k, a positive multiple of 16 (one tile's depth).
// Computed as 2 x 2 tiles of 16 x 16 accumulators per 32 columns, each
// element one tdpbf16ps chain over k (pairs in order), stored through a
// scratch tile so M and N edges are masked stores; `accumulate` adds the
// tile sums to C (one f32 addition per K block). Same subnormal flushing
// as vdpbf16ps (Intel: DAZ, FTZ, round to nearest even whatever MXCSR
// says), so it serves only the fast mode (--deviations=ftz=f32+bf16).
inline constexpr int kGemmAmxMr = 32;
inline constexpr int kGemmAmxKpStep = 16;
using GemmKernelBf16Amx = void (*)(int64_t kp, const uint16_t* a,
                                   const uint16_t* b, int64_t ldb, float* c,
                                   int64_t ldc, int mr, int nr,
                                   bool accumulate);
// begin() loads the tile configuration the kernel expects on the calling
// thread (ldtilecfg: all eight tiles 16 rows x 64 bytes) and end() releases
// it (tilerelease); kernel calls go between the two on the same thread.
// Measured: loading and releasing it per kernel call took 16 % of the
// kernel's samples at 1024^3 (perf record).
struct Bf16AmxKernels {
  GemmKernelBf16Amx kernel;
  void (*begin)();
  void (*end)();
};
// Null when the host lacks AMX-BF16 (cpuid), AVX-512, or the OS refuses
// the tile state. The first call makes the arch_prctl request for the
// process (once); the answer is cached.
const Bf16AmxKernels* HostBf16AmxKernel();

// 8-bit integers on AMX-INT8 (tdpbssd, tdpbsud, tdpbusd, tdpbuud: s8 or
// u8 A times s8 or u8 B, each a tile product of 16 x 64 bytes by 16 x 16
// quads), in both modes: every product of two bytes and every sum of
// them is exact in s32 and the sums wrap modulo 2^32 as the oracle's (no
// saturation, no rounding), so the results are the VNNI kernel's bits.
// C[r][j] (+)= sum over k of A[r][k] * B[k][j] for r < mr <= kGemmAmxMr,
// j < nr <= kGemmNrInt:
//   a: kGemmAmxMr rows of 4 * kq bytes, row r at a + r * 4 * kq (K
//      contiguous; rows past mr and bytes past K zero);
//   b: GemmKernelI8's B layout, b[q * ldb + 4 j + t] = B[4q + t][j], kq
//      quad rows, zero past K and past nr;
//   kq: quads of k, a positive multiple of kGemmAmxKqStep (one tile's
//      depth of 64 bytes).
// Same 2 x 2 tiles per 32 columns, scratch tile and masked edge stores as
// the bf16 kernel; `accumulate` adds C's previous value (s32 wraparound).
inline constexpr int kGemmAmxKqStep = 16;
using GemmKernelI8Amx = void (*)(int64_t kq, const uint8_t* a, const uint8_t* b,
                                 int64_t ldb, int32_t* c, int64_t ldc, int mr,
                                 int nr, bool accumulate);
struct I8AmxKernels {
  // [A is u8][B is u8]
  GemmKernelI8Amx kernel[2][2];
  void (*begin)();  // as Bf16AmxKernels (the same tile configuration)
  void (*end)();
};
// Null when the host lacks AMX-INT8 (cpuid), AVX-512, or the OS refuses
// the tile state (the same request as HostBf16AmxKernel's).
const I8AmxKernels* HostI8AmxKernel();

// The portable kernels (plain C++, any x86-64 or other host).
const GemmKernels& PortableGemmKernels();
// Tests: the largest B block (bytes) the register-tiled GEMV takes (0: the
// row-streaming kernel always; -1: back to a quarter of the host's
// last-level cache).
void SetGemvTileBudgetForTesting(int64_t bytes);
// The size of the last-level cache one core sees, in bytes, from sysfs
// (cpu0's highest cache level): glibc's sysconf(_SC_LEVEL3_CACHE_SIZE)
// said 320 MiB for the 32 MiB L3 of the Zen 4 virtual machine this was
// tuned on. sysconf when sysfs is missing, 32 MiB when neither answers.
int64_t HostLastLevelCacheBytes();
// AVX-512 kernels (f32/f64 need avx512f; the integer kernel needs
// avx512_vnni and is the portable one otherwise); null when the host lacks
// avx512f (or the OS does not save zmm state).
const GemmKernels* Avx512GemmKernels();
// AVX2 + FMA kernels for hosts without AVX-512 (AMD Zen 2 / 3, Intel
// Haswell to Comet Lake): the f32 / f64 tiles (6 x 16 f32 strips, and the
// rows-A form), every float GEMV, the f32 copy-and-scan and the transpose
// on 8 f32 lanes, each element one FMA chain as in the AVX-512 set
// (fma_chain); the integer kernel, the 16-bit widening and the f64 scan
// are the portable ones. Null without avx2 and fma.
const GemmKernels* Avx2GemmKernels();
// The best kernels for this host, chosen once: AVX-512, else AVX2, else
// portable. HLOREF_CPU_GEMM_ISA=portable or =avx2 in the environment
// forces those (bisecting; avx2 only where the host has it).
const GemmKernels& HostGemmKernels();

}  // namespace hloref::cpu::gemm

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_GEMM_KERNELS_H_
