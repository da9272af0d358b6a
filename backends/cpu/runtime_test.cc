// Tests of the CPU runtime's array functions (backends/cpu/runtime/
// {sort,fft,linalg,rng}.cc) called directly on raw strided buffers, and of
// its scratch allocation (run_context.cc).
// Expected values are derived by hand (stated next to each), from the
// Random123 known-answer tests (kat_vectors of Random123 1.09), or, for
// the fft, from a naive O(n^2) DFT in double written here.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/runtime/array_ops.h"
#include "backends/cpu/runtime/run_context.h"
#include "gtest/gtest.h"
#include "spec/types/primitive_type.h"

namespace hloref::cpu {
namespace {

int32_t T(PrimitiveType t) { return static_cast<int32_t>(t); }

TEST(ScratchCache, KeepsLargeBlocksForTheNextRunOfTheSameSize) {
  // Blocks of at least 1 MiB come back to a later allocation of the same
  // size (same address: no fresh pages); other sizes get other blocks;
  // small blocks and pointers the cache did not hand out are plain
  // malloc / free; without a cache nothing is kept.
  ScratchCache cache;
  RunContext ctx;
  ctx.scratch = &cache;
  const int64_t big = 3 << 20;
  void* a = hloref_cpu_alloc(&ctx, big);
  ASSERT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  std::memset(a, 0x5a, big);              // writable, all of it
  void* b = hloref_cpu_alloc(&ctx, big);  // a is still in use
  EXPECT_NE(a, b);
  hloref_cpu_free(&ctx, a);
  hloref_cpu_free(&ctx, b);
  EXPECT_EQ(cache.kept_bytes(), 2u * big);
  void* c = hloref_cpu_alloc(&ctx, big);
  EXPECT_TRUE(c == a || c == b);
  void* d = hloref_cpu_alloc(&ctx, big + 64);  // another size: fresh
  EXPECT_NE(d, a);
  EXPECT_NE(d, b);
  EXPECT_EQ(cache.kept_bytes(), 1u * big);
  void* small = hloref_cpu_alloc(&ctx, 4096);
  hloref_cpu_free(&ctx, small);
  EXPECT_EQ(cache.kept_bytes(), 1u * big);
  int local = 0;
  EXPECT_FALSE(cache.Give(&local));
  hloref_cpu_free(&ctx, c);
  hloref_cpu_free(&ctx, d);
  EXPECT_EQ(cache.kept_bytes(), 3u * big + 64);
  RunContext plain;  // no cache: malloc and free
  void* e = hloref_cpu_alloc(&plain, big);
  hloref_cpu_free(&plain, e);
  EXPECT_EQ(cache.kept_bytes(), 3u * big + 64);
}

TEST(Random123, ThreefryKnownAnswers) {
  const uint32_t zero[2] = {0, 0};
  uint32_t out[2];
  Threefry2x32Block(zero, zero, out);
  EXPECT_EQ(out[0], 0x6b200159u);
  EXPECT_EQ(out[1], 0x99ba4efeu);
  const uint32_t ones[2] = {0xffffffff, 0xffffffff};
  Threefry2x32Block(ones, ones, out);
  EXPECT_EQ(out[0], 0x1cb996fcu);
  EXPECT_EQ(out[1], 0xbb002be7u);
  const uint32_t ctr[2] = {0x243f6a88, 0x85a308d3};
  const uint32_t key[2] = {0x13198a2e, 0x03707344};
  Threefry2x32Block(ctr, key, out);
  EXPECT_EQ(out[0], 0xc4923a9cu);
  EXPECT_EQ(out[1], 0x483df7a0u);
}

TEST(Random123, PhiloxKnownAnswers) {
  const uint32_t zero4[4] = {0, 0, 0, 0};
  const uint32_t zero2[2] = {0, 0};
  uint32_t out[4];
  Philox4x32Block(zero4, zero2, out);
  EXPECT_EQ(out[0], 0x6627e8d5u);
  EXPECT_EQ(out[1], 0xe169c58du);
  EXPECT_EQ(out[2], 0xbc57ac4cu);
  EXPECT_EQ(out[3], 0x9b00dbd8u);
  const uint32_t ctr[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
  const uint32_t key[2] = {0xa4093822, 0x299f31d0};
  Philox4x32Block(ctr, key, out);
  EXPECT_EQ(out[0], 0xd16cfe09u);
  EXPECT_EQ(out[1], 0x94fdccebu);
  EXPECT_EQ(out[2], 0x5001e420u);
  EXPECT_EQ(out[3], 0x24126ea1u);
}

TEST(RngBitGenerator, ThreeFryU64AndU32Layout) {
  RunContext ctx;
  // key 0, counter 0: element i uses counter i; element 0 is the KAT.
  const uint64_t state[2] = {0, 0};
  uint64_t new_state[2];
  uint64_t out[3];
  const int64_t dims[1] = {3};
  const int64_t strides[1] = {1};
  hloref_cpu_rng_bit_generator(&ctx, 1, state, 2, new_state,
                               T(PrimitiveType::kU64), out, 1, dims, strides);
  EXPECT_EQ(out[0], 0x99ba4efe6b200159ull);
  EXPECT_EQ(new_state[0], 0u);
  EXPECT_EQ(new_state[1], 3u);
  // u32[2]: the split dimension 0 halves to 1: counter 0 gives words 0, 1.
  uint32_t out32[2];
  const int64_t dims2[1] = {2};
  hloref_cpu_rng_bit_generator(&ctx, 1, state, 2, new_state,
                               T(PrimitiveType::kU32), out32, 1, dims2,
                               strides);
  EXPECT_EQ(out32[0], 0x6b200159u);
  EXPECT_EQ(out32[1], 0x99ba4efeu);
  EXPECT_EQ(new_state[1], 1u);
  EXPECT_FALSE(ctx.failed());
}

TEST(RngBitGenerator, PhiloxU32ColumnMajorAndU8) {
  RunContext ctx;
  // u64[3] state {key 0, counter 0}: row-major element w is word w of the
  // KAT block. A [2,2] output in column-major layout: logical (i, j) at
  // physical i + 2j.
  const uint64_t state[3] = {0, 0, 0};
  uint64_t new_state[3];
  uint32_t out[4];
  const int64_t dims[2] = {2, 2};
  const int64_t col_major[2] = {1, 2};
  hloref_cpu_rng_bit_generator(&ctx, 2, state, 3, new_state,
                               T(PrimitiveType::kU32), out, 2, dims, col_major);
  EXPECT_EQ(out[0], 0x6627e8d5u);  // (0,0)
  EXPECT_EQ(out[2], 0xe169c58du);  // (0,1)
  EXPECT_EQ(out[1], 0xbc57ac4cu);  // (1,0)
  EXPECT_EQ(out[3], 0x9b00dbd8u);  // (1,1)
  EXPECT_EQ(new_state[0], 0u);
  EXPECT_EQ(new_state[1], 1u);
  EXPECT_EQ(new_state[2], 0u);
  // u8 keeps the low byte of each word; s4 the low nibble sign-extended.
  uint8_t bytes[2];
  const int64_t d2[1] = {2};
  const int64_t s1[1] = {1};
  hloref_cpu_rng_bit_generator(&ctx, 0, state, 3, new_state,
                               T(PrimitiveType::kU8), bytes, 1, d2, s1);
  EXPECT_EQ(bytes[0], 0xd5);
  EXPECT_EQ(bytes[1], 0x8d);
  int8_t nibbles[2];
  hloref_cpu_rng_bit_generator(&ctx, 0, state, 3, new_state,
                               T(PrimitiveType::kS4), nibbles, 1, d2, s1);
  EXPECT_EQ(nibbles[0], 5);
  EXPECT_EQ(nibbles[1], -3);  // 0xd
}

TEST(RngState, GetAndUpdateWrapsAndUsesTheContextState) {
  RunContext ctx;
  uint64_t module_state[3] = {7, ~uint64_t{0}, 4};
  uint64_t out[2];
  hloref_cpu_rng_get_and_update_state(&ctx, module_state, 1, out);
  EXPECT_EQ(out[0], ~uint64_t{0});
  EXPECT_EQ(out[1], 4u);
  EXPECT_EQ(module_state[1], 0u);  // carry into the high word
  EXPECT_EQ(module_state[2], 5u);
  hloref_cpu_rng_get_and_update_state(&ctx, module_state, -1, out);
  EXPECT_EQ(module_state[1], ~uint64_t{0});
  EXPECT_EQ(module_state[2], 4u);
  uint64_t own[3] = {0, 10, 0};
  ctx.rng_state = own;
  hloref_cpu_rng_get_and_update_state(&ctx, module_state, 3, out);
  EXPECT_EQ(out[0], 10u);
  EXPECT_EQ(own[1], 13u);
  EXPECT_EQ(module_state[2], 4u);  // untouched
}

TEST(Rng, UniformStaysInRange) {
  RunContext ctx;
  uint64_t state[3] = {0, 0, 0};
  const float a = 1.0f, b = 1.0000001f;  // b = a + 1 ulp: every draw is a
  float out[64];
  const int64_t dims[1] = {64};
  const int64_t strides[1] = {1};
  hloref_cpu_rng(&ctx, state, 0, T(PrimitiveType::kF32), &a, &b, out, 1, dims,
                 strides);
  for (float v : out) EXPECT_EQ(v, 1.0f);
  EXPECT_EQ(state[1], 32u);  // 64 words: 32 Philox blocks
  const int32_t ia = -3, ib = 4;
  int32_t iout[64];
  hloref_cpu_rng(&ctx, state, 0, T(PrimitiveType::kS32), &ia, &ib, iout, 1,
                 dims, strides);
  for (int32_t v : iout) {
    EXPECT_GE(v, -3);
    EXPECT_LT(v, 4);
  }
}

// The comparator of an (s32 key, f32 value) sort: key less-than.
void LessS32(RunContext*, void** params, void** results) {
  int32_t a, b;
  std::memcpy(&a, params[0], 4);
  std::memcpy(&b, params[1], 4);
  *static_cast<uint8_t*>(results[0]) = a < b ? 1 : 0;
}

TEST(Sort, PairsAlongDimensionOneColumnMajorStable) {
  RunContext ctx;
  // keys s32[2,3] {{3,1,3},{0,-1,0}} in column-major layout (physical
  // (i,j) at i + 2j), values f32[2,3] row-major {{10,11,12},{20,21,22}};
  // sort along dimension 1. Row 0: keys 3,1,3 -> 1,3,3 (stable: the first
  // 3 first), values 11,10,12. Row 1: 0,-1,0 -> -1,0,0, values 21,20,22.
  int32_t keys[6] = {3, 0, 1, -1, 3, 0};
  float values[6] = {10, 11, 12, 20, 21, 22};
  int32_t keys_out[6];
  float values_out[6];
  void* ins[2] = {keys, values};
  void* outs[2] = {keys_out, values_out};
  const int64_t bytes[2] = {4, 4};
  const int64_t dims[2] = {2, 3};
  // Operand 0 column-major, operand 1 row-major; outputs row-major.
  const int64_t in_strides[4] = {1, 2, 3, 1};
  const int64_t out_strides[4] = {3, 1, 3, 1};
  // The comparator sees (key_i, key_j, value_i, value_j).
  hloref_cpu_sort(&ctx, LessS32, 2, ins, outs, bytes, 2, dims, 1, in_strides,
                  out_strides);
  const int32_t want_keys[6] = {1, 3, 3, -1, 0, 0};
  const float want_values[6] = {11, 10, 12, 21, 20, 22};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(keys_out[i], want_keys[i]) << i;
    EXPECT_EQ(values_out[i], want_values[i]) << i;
  }
}

// A comparator that is not a strict weak order (always true) must still
// terminate and give a permutation.
void AlwaysLess(RunContext*, void**, void** results) {
  *static_cast<uint8_t*>(results[0]) = 1;
}

TEST(Sort, InconsistentComparatorGivesAPermutation) {
  RunContext ctx;
  int32_t keys[7] = {0, 1, 2, 3, 4, 5, 6};
  int32_t out[7];
  void* ins[1] = {keys};
  void* outs[1] = {out};
  const int64_t bytes[1] = {4};
  const int64_t dims[1] = {7};
  const int64_t strides[1] = {1};
  hloref_cpu_sort(&ctx, AlwaysLess, 1, ins, outs, bytes, 1, dims, 0, strides,
                  strides);
  std::vector<int32_t> sorted(out, out + 7);
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 7; ++i) EXPECT_EQ(sorted[i], i);
}

TEST(SortByKey, FloatTotalOrderStableBothDirections) {
  // Keys {2, -0, NaN, +0, 2, -NaN, -inf, 1} with payload positions 0..7.
  // By hand, ascending in TOTALORDER: -NaN(5) -inf(6) -0(1) +0(3) 1(7)
  // 2(0) 2(4) NaN(2); descending: NaN(2) 2(0) 2(4) 1(7) +0(3) -0(1)
  // -inf(6) -NaN(5) (equal keys keep input order both ways).
  RunContext ctx;
  const float nan = std::nanf("");
  const float inf = INFINITY;
  float keys[8] = {2, -0.0f, nan, 0.0f, 2, -nan, -inf, 1};
  int32_t payload[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  float out_keys[8];
  int32_t out_payload[8];
  void* ins[2] = {keys, payload};
  void* outs[2] = {out_keys, out_payload};
  const int64_t bytes[2] = {4, 4};
  const int64_t dims[1] = {8};
  const int64_t strides[2] = {1, 1};
  hloref_cpu_sort_by_key(&ctx, T(PrimitiveType::kF32), 0, 0, 2, ins, outs,
                         bytes, 1, dims, 0, strides, strides);
  EXPECT_EQ(std::vector<int32_t>(out_payload, out_payload + 8),
            (std::vector<int32_t>{5, 6, 1, 3, 7, 0, 4, 2}));
  EXPECT_TRUE(std::signbit(out_keys[2]));
  EXPECT_FALSE(std::signbit(out_keys[3]));
  hloref_cpu_sort_by_key(&ctx, T(PrimitiveType::kF32), 0, 1, 2, ins, outs,
                         bytes, 1, dims, 0, strides, strides);
  EXPECT_EQ(std::vector<int32_t>(out_payload, out_payload + 8),
            (std::vector<int32_t>{2, 0, 4, 7, 3, 1, 6, 5}));
}

TEST(SortByKey, UnsignedKeyIsTheSecondOperandColumnMajor) {
  // A [4, 2] pair sorted along dimension 0, stored column-major (element
  // (i, j) at j * 4 + i); the key is operand 1 (u8), operand 0 a payload.
  // Column 0 keys {200, 5, 200, 0} -> positions 3, 1, 0, 2; column 1 keys
  // {1, 1, 0, 255} -> positions 2, 0, 1, 3 (by hand, ties in input order).
  RunContext ctx;
  int32_t payload[8] = {0, 1, 2, 3, 10, 11, 12, 13};
  uint8_t keys[8] = {200, 5, 200, 0, 1, 1, 0, 255};
  int32_t out_payload[8];
  uint8_t out_keys[8];
  void* ins[2] = {payload, keys};
  void* outs[2] = {out_payload, out_keys};
  const int64_t bytes[2] = {4, 1};
  const int64_t dims[2] = {4, 2};
  const int64_t strides[4] = {1, 4, 1, 4};
  hloref_cpu_sort_by_key(&ctx, T(PrimitiveType::kU8), 1, 0, 2, ins, outs, bytes,
                         2, dims, 0, strides, strides);
  EXPECT_EQ(std::vector<int32_t>(out_payload, out_payload + 8),
            (std::vector<int32_t>{3, 1, 0, 2, 12, 10, 11, 13}));
  EXPECT_EQ(std::vector<uint8_t>(out_keys, out_keys + 8),
            (std::vector<uint8_t>{0, 5, 200, 200, 0, 1, 1, 255}));
}

TEST(TopK, FloatTotalOrderNaNAndSignedZero) {
  RunContext ctx;
  const float nan = std::nanf("");
  // Largest first in XLA's total order: NaN, 2, +0, -0, -NaN.
  float in[5] = {-0.0f, 2.0f, -nan, 0.0f, nan};
  float values[3];
  int32_t indices[3];
  const int64_t dims[1] = {5};
  const int64_t s[1] = {1};
  hloref_cpu_topk(&ctx, T(PrimitiveType::kF32), in, values, indices, 1, dims, s,
                  s, s, 3, 1);
  EXPECT_TRUE(std::isnan(values[0]));
  EXPECT_EQ(indices[0], 4);
  EXPECT_EQ(values[1], 2.0f);
  EXPECT_EQ(indices[1], 1);
  EXPECT_FALSE(std::signbit(values[2]));
  EXPECT_EQ(indices[2], 3);
  // Smallest first: -NaN, -0, +0.
  hloref_cpu_topk(&ctx, T(PrimitiveType::kF32), in, values, indices, 1, dims, s,
                  s, s, 3, 0);
  EXPECT_EQ(indices[0], 2);
  EXPECT_EQ(indices[1], 0);
  EXPECT_EQ(indices[2], 3);
}

TEST(TopK, UnsignedTiesKeepIndexOrder) {
  RunContext ctx;
  uint8_t in[2][4] = {{5, 200, 5, 7}, {1, 1, 1, 0}};
  uint8_t values[2][2];
  int32_t indices[2][2];
  const int64_t dims[2] = {2, 4};
  const int64_t in_s[2] = {4, 1};
  const int64_t out_s[2] = {2, 1};
  hloref_cpu_topk(&ctx, T(PrimitiveType::kU8), in, values, indices, 2, dims,
                  in_s, out_s, out_s, 2, 1);
  EXPECT_EQ(values[0][0], 200);
  EXPECT_EQ(indices[0][0], 1);
  EXPECT_EQ(values[0][1], 7);
  EXPECT_EQ(indices[0][1], 3);
  EXPECT_EQ(indices[1][0], 0);
  EXPECT_EQ(indices[1][1], 1);
}

// Naive DFT in double (independent of the runtime's mixed-radix code).
std::vector<std::complex<double>> NaiveDft(
    const std::vector<std::complex<double>>& x, bool inverse) {
  const size_t n = x.size();
  std::vector<std::complex<double>> y(n);
  const double pi = std::acos(-1.0);
  for (size_t k = 0; k < n; ++k) {
    std::complex<double> acc = 0;
    for (size_t j = 0; j < n; ++j) {
      const double angle = (inverse ? 2 : -2) * pi *
                           static_cast<double>((j * k) % n) /
                           static_cast<double>(n);
      acc += x[j] * std::complex<double>(std::cos(angle), std::sin(angle));
    }
    y[k] = inverse ? acc / static_cast<double>(n) : acc;
  }
  return y;
}

TEST(Fft, LengthFourByHand) {
  RunContext ctx;
  // DFT of 1,2,3,4 = 10, -2+2i, -2, -2-2i.
  std::complex<float> in[4] = {1, 2, 3, 4};
  std::complex<float> out[4];
  const int64_t dims[1] = {4};
  const int64_t s[1] = {1};
  const int64_t len[1] = {4};
  hloref_cpu_fft(&ctx, T(PrimitiveType::kC64), T(PrimitiveType::kC64), in, out,
                 1, dims, s, dims, s, 0, 1, len);
  EXPECT_EQ(out[0], std::complex<float>(10, 0));
  EXPECT_EQ(out[1], std::complex<float>(-2, 2));
  EXPECT_EQ(out[2], std::complex<float>(-2, 0));
  EXPECT_EQ(out[3], std::complex<float>(-2, -2));
}

TEST(Fft, MixedRadixAndPrimeLengthsMatchANaiveDft) {
  RunContext ctx;
  for (int64_t n : {6, 7, 12, 15, 16}) {
    std::vector<std::complex<double>> x(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = {std::sin(0.7 * i + 0.1), std::cos(1.3 * i) - 0.25};
    }
    for (int32_t type : {0, 1}) {
      std::vector<std::complex<double>> out(n);
      const int64_t dims[1] = {n};
      const int64_t s[1] = {1};
      hloref_cpu_fft(&ctx, T(PrimitiveType::kC128), T(PrimitiveType::kC128),
                     x.data(), out.data(), 1, dims, s, dims, s, type, 1, dims);
      const std::vector<std::complex<double>> want = NaiveDft(x, type == 1);
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_NEAR(out[i].real(), want[i].real(), 1e-12) << n << " " << i;
        EXPECT_NEAR(out[i].imag(), want[i].imag(), 1e-12) << n << " " << i;
      }
    }
  }
}

TEST(Fft, RfftThenIrfftRoundTripsTwoAxes) {
  RunContext ctx;
  // f64[3,4] -> RFFT over both axes -> c128[3,3] -> IRFFT -> f64[3,4].
  double x[12];
  for (int i = 0; i < 12; ++i) x[i] = 0.5 * i - 2 + (i % 3);
  std::complex<double> spec[9];
  double back[12];
  const int64_t in_dims[2] = {3, 4};
  const int64_t in_s[2] = {4, 1};
  const int64_t half_dims[2] = {3, 3};
  const int64_t half_s[2] = {3, 1};
  const int64_t len[2] = {3, 4};
  hloref_cpu_fft(&ctx, T(PrimitiveType::kF64), T(PrimitiveType::kC128), x, spec,
                 2, in_dims, in_s, half_dims, half_s, 2, 2, len);
  // DC term: the sum of x.
  double sum = 0;
  for (double v : x) sum += v;
  EXPECT_NEAR(spec[0].real(), sum, 1e-12);
  EXPECT_NEAR(spec[0].imag(), 0, 1e-12);
  hloref_cpu_fft(&ctx, T(PrimitiveType::kC128), T(PrimitiveType::kF64), spec,
                 back, 2, half_dims, half_s, in_dims, in_s, 3, 2, len);
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(back[i], x[i], 1e-12) << i;
}

TEST(Cholesky, TwoByTwoLowerUpperAndNotPositiveDefinite) {
  RunContext ctx;
  // [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, sqrt 2]].
  double a[4] = {4, 2, 2, 3};
  double out[4];
  const int64_t dims[2] = {2, 2};
  const int64_t s[2] = {2, 1};
  hloref_cpu_cholesky(&ctx, T(PrimitiveType::kF64), a, out, 2, dims, s, s, 1);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], 1);
  EXPECT_EQ(out[3], std::sqrt(2.0));
  // upper: U = L^T = [[2, 1], [0, sqrt 2]], reading a's upper triangle
  // (the lower one is garbage).
  double a_up[4] = {4, 2, 99, 3};
  hloref_cpu_cholesky(&ctx, T(PrimitiveType::kF64), a_up, out, 2, dims, s, s,
                      0);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 1);
  EXPECT_EQ(out[2], 0);
  EXPECT_EQ(out[3], std::sqrt(2.0));
  // [[1, 2], [2, 1]] is indefinite: every element NaN.
  double bad[4] = {1, 2, 2, 1};
  hloref_cpu_cholesky(&ctx, T(PrimitiveType::kF64), bad, out, 2, dims, s, s, 1);
  for (double v : out) EXPECT_TRUE(std::isnan(v));
}

TEST(TriangularSolve, LeftLowerTransposeAndRightSide) {
  RunContext ctx;
  // a = [[2, 9], [1, 1]] with lower=true reads L = [[2, 0], [1, 1]].
  float a[4] = {2, 9, 1, 1};
  const int64_t a_dims[2] = {2, 2};
  const int64_t a_s[2] = {2, 1};
  // L x = [2, 3]^T: x = [1, 2].
  float b[2] = {2, 3};
  float x[2];
  const int64_t b_dims[2] = {2, 1};
  const int64_t b_s[2] = {1, 1};
  hloref_cpu_triangular_solve(&ctx, T(PrimitiveType::kF32), a, b, x, 2, a_dims,
                              a_s, b_dims, b_s, b_s, 1, 1, 0, 0);
  EXPECT_EQ(x[0], 1);
  EXPECT_EQ(x[1], 2);
  // L^T x = [2, 3]^T: [[2, 1], [0, 1]] x: x1 = 3, x0 = (2 - 3) / 2.
  hloref_cpu_triangular_solve(&ctx, T(PrimitiveType::kF32), a, b, x, 2, a_dims,
                              a_s, b_dims, b_s, b_s, 1, 1, 0, 1);
  EXPECT_EQ(x[0], -0.5f);
  EXPECT_EQ(x[1], 3);
  // x L = [4, 3] (x is 1 x 2): x1 * 1 = 3, 2 x0 + x1 = 4 -> x0 = 0.5.
  float br[2] = {4, 3};
  const int64_t br_dims[2] = {1, 2};
  const int64_t br_s[2] = {2, 1};
  hloref_cpu_triangular_solve(&ctx, T(PrimitiveType::kF32), a, br, x, 2, a_dims,
                              a_s, br_dims, br_s, br_s, 0, 1, 0, 0);
  EXPECT_EQ(x[0], 0.5f);
  EXPECT_EQ(x[1], 3);
  // unit_diagonal: [[1, 0], [1, 1]] x = [2, 3]: x = [2, 1].
  hloref_cpu_triangular_solve(&ctx, T(PrimitiveType::kF32), a, b, x, 2, a_dims,
                              a_s, b_dims, b_s, b_s, 1, 1, 1, 0);
  EXPECT_EQ(x[0], 2);
  EXPECT_EQ(x[1], 1);
}

TEST(TriangularSolve, ComplexAdjoint) {
  RunContext ctx;
  // upper a = [[i, 1], [0, 2]]; adjoint = [[-i, 0], [1, 2]] (lower).
  // [[-i, 0], [1, 2]] x = [1, 0]: x0 = 1 / -i = i, x1 = -x0 / 2 = -i/2.
  std::complex<double> a[4] = {{0, 1}, {1, 0}, {0, 0}, {2, 0}};
  std::complex<double> b[2] = {{1, 0}, {0, 0}};
  std::complex<double> x[2];
  const int64_t a_dims[2] = {2, 2};
  const int64_t a_s[2] = {2, 1};
  const int64_t b_dims[2] = {2, 1};
  const int64_t b_s[2] = {1, 1};
  hloref_cpu_triangular_solve(&ctx, T(PrimitiveType::kC128), a, b, x, 2, a_dims,
                              a_s, b_dims, b_s, b_s, 1, 0, 0, 2);
  EXPECT_EQ(x[0], std::complex<double>(0, 1));
  EXPECT_EQ(x[1], std::complex<double>(0, -0.5));
}

}  // namespace
}  // namespace hloref::cpu
