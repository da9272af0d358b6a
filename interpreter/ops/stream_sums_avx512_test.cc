// StreamEnclosureAvx512* and DecideEnclosure (fast_round.h).
// References, independent of the code under test:
//  - the same chains one term at a time with std::fma under
//    fesetround(FE_DOWNWARD) / fesetround(FE_UPWARD) (this file is
//    compiled with -frounding-math, so the compiler keeps the mode
//    changes in place);
//  - the exact sum from ExactSum: lo <= S <= hi checked by the sign of
//    S - lo and of hi - S, both computed exactly;
//  - hand-derived roundings for DecideEnclosure.
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "interpreter/ops/accumulate_test_util.h"
#include "interpreter/ops/exact_sum.h"
#include "interpreter/ops/fast_round.h"

namespace hloref {
namespace {

constexpr FastRounding kF32{24, -126, 0x1.fffffep127};

bool SameBitsOf(double a, double b) {
  return __builtin_memcmp(&a, &b, sizeof a) == 0;
}

TEST(DecideEnclosure, RoundsWhatTheEnclosureDecides) {
  // A point: S itself, ties to even.
  EXPECT_EQ(DecideEnclosure(1 + 0x1p-24, 1 + 0x1p-24, kF32), 1.0);
  EXPECT_EQ(DecideEnclosure(1 + 0x3p-24, 1 + 0x3p-24, kF32), 1 + 0x1p-22);
  EXPECT_EQ(DecideEnclosure(-3.0, -3.0, kF32), -3.0);
  // Both ends in one rounding cell.
  EXPECT_EQ(DecideEnclosure(1.0, 1 + 0x1p-30, kF32), 1.0);
  EXPECT_EQ(DecideEnclosure(1 + 0x1p-24 + 0x1p-40, 1 + 0x1p-23, kF32),
            1 + 0x1p-23);
  // Straddling a midpoint, or zero: undecided.
  EXPECT_TRUE(std::isnan(
      DecideEnclosure(1 + 0x1p-24 - 0x1p-40, 1 + 0x1p-24 + 0x1p-40, kF32)));
  EXPECT_TRUE(std::isnan(DecideEnclosure(-0x1p-140, 0x1p-140, kF32)));
  // An exact zero keeps hi's sign.
  EXPECT_TRUE(std::signbit(DecideEnclosure(-0.0, -0.0, kF32)));
  const double z = DecideEnclosure(-0.0, 0.0, kF32);
  EXPECT_EQ(z, 0.0);
  EXPECT_FALSE(std::signbit(z));
  // Results that round to zero or overflow, non-finite or reversed ends.
  EXPECT_TRUE(std::isnan(DecideEnclosure(0x1p-160, 0x1p-160, kF32)));
  EXPECT_TRUE(std::isnan(DecideEnclosure(0x1p128, 0x1p128, kF32)));
  EXPECT_TRUE(std::isnan(
      DecideEnclosure(1.0, std::numeric_limits<double>::infinity(), kF32)));
  EXPECT_TRUE(std::isnan(
      DecideEnclosure(std::numeric_limits<double>::quiet_NaN(), 1.0, kF32)));
  EXPECT_TRUE(std::isnan(DecideEnclosure(2.0, 1.0, kF32)));
}

// DecideEnclosures (eight at a time for f32 on AVX-512) gives
// DecideEnclosure's bits for every pair: points and intervals around f32
// ties, at the subnormal, normal and overflow boundaries, zeros of both
// signs, infinities, NaN and reversed ends, and random doubles; for f32
// and for bf16 results (the scalar loop), lengths not a multiple of 8.
TEST(DecideEnclosure, ManyAtOnceAsOneAtATime) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> special = {0.0,
                                       -0.0,
                                       1.0,
                                       -1.0,
                                       1 + 0x1p-24,
                                       1 + 0x3p-24,
                                       1 + 0x1p-24 + 0x1p-50,
                                       0x1p-126,
                                       0x1p-149,
                                       0x1p-150,
                                       0x3p-151,
                                       0x1p-151,
                                       -0x1p-149,
                                       0x1.fffffep127,
                                       0x1.ffffffp127,
                                       0x1.fffffefffffffp127,
                                       0x1p128,
                                       inf,
                                       -inf,
                                       std::numeric_limits<double>::quiet_NaN(),
                                       0x1p-1022,
                                       0x1p-1074,
                                       3.0,
                                       -3.0 - 0x1p-40};
  testing_acc::Lcg rng(5);
  std::vector<double> lo, hi;
  for (double a : special) {
    for (double b : special) {
      lo.push_back(a);
      hi.push_back(b);
    }
    lo.push_back(a);
    hi.push_back(std::nextafter(a, inf));
  }
  for (int t = 0; t < 3000; ++t) {
    const double a = std::ldexp(static_cast<double>(rng.Next()) - 0x1p31,
                                static_cast<int>(rng.Next() % 300) - 180);
    const int gap = static_cast<int>(rng.Next() % 4);
    double b = a;
    for (int g = 0; g < gap * 1000; ++g) b = std::nextafter(b, inf);
    lo.push_back(a);
    hi.push_back(b);
  }
  lo.push_back(1.0);  // 1 pair past a multiple of 8
  hi.push_back(1.0);
  constexpr FastRounding kBf16{8, -126, 0x1.fep127};
  for (const FastRounding& f : {kF32, kBf16}) {
    std::vector<double> out(lo.size());
    DecideEnclosures(lo.data(), hi.data(), static_cast<int64_t>(lo.size()), f,
                     out.data());
    for (size_t j = 0; j < lo.size(); ++j) {
      const double want = DecideEnclosure(lo[j], hi[j], f);
      ASSERT_TRUE(std::isnan(want) ? std::isnan(out[j])
                                   : SameBitsOf(out[j], want))
          << "precision " << f.precision << " [" << lo[j] << ", " << hi[j]
          << "]: " << out[j] << " vs " << want;
    }
  }
}

uint16_t Bf16Code(double v) {  // v must be a bf16 value
  const float f = static_cast<float>(v);
  uint32_t bits;
  __builtin_memcpy(&bits, &f, 4);
  return static_cast<uint16_t>(bits >> 16);
}

// One chain in c order from -0 in the given rounding mode.
double DirectedChain(const double* x, const std::vector<double>& w,
                     const std::vector<int64_t>& rows, int64_t k, int64_t j,
                     int mode) {
  std::fesetround(mode);
  volatile double s = -0.0;
  for (int64_t c = 0; c < k; ++c) {
    s = std::fma(x[c], w[static_cast<size_t>(rows[c] + j)], s);
  }
  std::fesetround(FE_TONEAREST);
  return s;
}

// Sign of sum_c x[c] w[c][j] - v, exactly: -1, 0 or 1.
int CompareExact(const double* x, const std::vector<double>& w,
                 const std::vector<int64_t>& rows, int64_t k, int64_t j,
                 double v) {
  ExactSum acc;
  for (int64_t c = 0; c < k; ++c) {
    acc.Add(x[c] * w[static_cast<size_t>(rows[c] + j)]);
  }
  acc.Add(-v);
  const double r = acc.Round(53, -1022);
  return r > 0 ? 1 : (r < 0 ? -1 : 0);
}

bool SameBits(double a, double b) {
  return __builtin_memcmp(&a, &b, sizeof a) == 0;
}

// Data kinds: 0 bf16 values of mixed scale (most sums inexact); 1 small
// integers (every sum exact, many on f32 midpoints); 2 signed zeros and
// ones (exact zeros of both signs); 3 as 0 with an infinity and a NaN.
double Value(testing_acc::Lcg& rng, int kind) {
  const uint32_t r = rng.Next();
  switch (kind) {
    case 1:
      return static_cast<double>(static_cast<int>(r % 9) - 4);
    case 2:
      return r % 3 == 0 ? -0.0 : (r % 3 == 1 ? 0.0 : (r & 8 ? 1.0 : -1.0));
    default: {
      const float f = static_cast<float>(static_cast<int32_t>(r)) *
                      std::ldexp(1.0f, static_cast<int>(r % 40) - 50);
      uint32_t bits;
      __builtin_memcpy(&bits, &f, 4);
      bits &= 0xffff0000u;
      float g;
      __builtin_memcpy(&g, &bits, 4);
      return g;
    }
  }
}

// Every shape class the kernel has: m = 1, 3 and 16 lhs rows; k with and
// without a partial chunk of four rows; column counts below, at and past
// a group of 32 and past a block (m = 16: blocks of 64 columns); rhs rows
// further apart than the columns read, from an offset. bf16 and f32
// weights; the chains bit for bit as the scalar directed chains, and the
// exact sum inside [lo, hi].
TEST(StreamEnclosureAvx512, DirectedChainsBitForBitAndEncloseTheExactSum) {
  if (!StreamEnclosureAvx512Available()) {
    GTEST_SKIP() << "no AVX-512 (F, BW, DQ, VL) on this host: the kernel "
                    "declines and dot takes the AVX2 loops";
  }
  testing_acc::Lcg rng(99);
  int64_t outputs = 0, points = 0;
  for (bool bf16 : {true, false}) {
    for (int64_t m : {1, 3, 16}) {
      for (int64_t k : {1, 3, 4, 9, 130}) {
        for (int64_t cols : {1, 31, 32, 33, 95, 300}) {
          const int kind = static_cast<int>(rng.Next() % 4);
          const int64_t stride = cols + 7, offset = 5;
          std::vector<int64_t> rows(static_cast<size_t>(k));
          for (int64_t c = 0; c < k; ++c) rows[c] = c * stride;
          std::vector<double> x(static_cast<size_t>(m * k));
          for (double& v : x) v = Value(rng, kind == 3 ? 0 : kind);
          std::vector<double> w(static_cast<size_t>(k * stride + offset));
          for (double& v : w) v = Value(rng, kind == 3 ? 0 : kind);
          if (kind == 3) {
            w[static_cast<size_t>(offset + rows[k - 1])] =
                std::numeric_limits<double>::infinity();
            w[static_cast<size_t>(offset + cols - 1)] =
                std::numeric_limits<double>::quiet_NaN();
          }
          std::vector<double> lo(static_cast<size_t>(m * cols)), hi(lo.size());
          bool ran;
          if (bf16) {
            std::vector<uint16_t> codes(w.size());
            for (size_t t = 0; t < w.size(); ++t) codes[t] = Bf16Code(w[t]);
            ran = StreamEnclosureAvx512Bf16(x.data(), m, k,
                                            codes.data() + offset, rows.data(),
                                            cols, lo.data(), hi.data());
          } else {
            std::vector<float> f(w.begin(), w.end());
            ran = StreamEnclosureAvx512F32(x.data(), m, k, f.data() + offset,
                                           rows.data(), cols, lo.data(),
                                           hi.data());
          }
          ASSERT_TRUE(ran);
          std::vector<int64_t> shifted(rows);
          for (int64_t& r : shifted) r += offset;
          for (int64_t i = 0; i < m; ++i) {
            const double* xi = x.data() + i * k;
            for (int64_t j = 0; j < cols; ++j) {
              const double l = lo[static_cast<size_t>(i * cols + j)];
              const double h = hi[static_cast<size_t>(i * cols + j)];
              const double want_l =
                  DirectedChain(xi, w, shifted, k, j, FE_DOWNWARD);
              const double want_h =
                  DirectedChain(xi, w, shifted, k, j, FE_UPWARD);
              SCOPED_TRACE(testing::Message()
                           << (bf16 ? "bf16" : "f32") << " m " << m << " k "
                           << k << " cols " << cols << " kind " << kind
                           << " output (" << i << ", " << j << ")");
              ASSERT_TRUE(SameBits(l, want_l)) << l << " vs " << want_l;
              ASSERT_TRUE(SameBits(h, want_h)) << h << " vs " << want_h;
              ++outputs;
              if (!std::isfinite(l) || !std::isfinite(h)) continue;
              EXPECT_GE(CompareExact(xi, w, shifted, k, j, l), 0);
              EXPECT_LE(CompareExact(xi, w, shifted, k, j, h), 0);
              if (kind == 1 || kind == 2) {
                // Sums of small integers never round: a point (a zero
                // may be -0 in the downward chain, +0 in the upward).
                EXPECT_EQ(l, h);
                ++points;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(outputs, 10000);
  EXPECT_GT(points, 1000);
}

// One lhs row over whole rows takes one chain per column while its sums
// are exact (RunFewRows), checked a segment of 1024 columns at a time, and
// redoes a chunk as the two directed chains from the first chunk that
// rounds. Three segments (2100 columns, the last group partial), k = 130
// (chunks of four rows and a tail of two):
//  - segment 0 stays exact: small integers, with columns that cancel to
//    zero, columns of -0 products only, and of +0 and -0 products;
//  - segment 1 rounds first at row 61 (inside the chunk of rows 60-63),
//    and only in column 1500, after which the whole segment is two chains;
//  - segment 2 rounds first at row 129, in the tail;
// every output bit for bit as the scalar directed chains (so the zeros'
// signs too), and the caller's MXCSR (rounding mode, flags) unchanged.
TEST(StreamEnclosureAvx512, OneRowTakesOneChainWhileItsSumsAreExact) {
  if (!StreamEnclosureAvx512Available()) {
    GTEST_SKIP() << "no AVX-512 (F, BW, DQ, VL) on this host";
  }
  const int64_t k = 130, cols = 2100, stride = 2112;
  std::vector<int64_t> rows(static_cast<size_t>(k));
  for (int64_t c = 0; c < k; ++c) rows[c] = c * stride;
  testing_acc::Lcg rng(7);
  std::vector<double> x(static_cast<size_t>(k));
  for (double& v : x) v = static_cast<double>(rng.Next() % 7) - 3.0;
  x[61] = 0x1p-60;
  x[129] = 0x1p-60;
  std::vector<double> w(static_cast<size_t>(k * stride));
  for (int64_t c = 0; c < k; ++c) {
    for (int64_t j = 0; j < cols; ++j) {
      double v = static_cast<double>(rng.Next() % 9) - 4.0;
      if (c == 61 || c == 129) v = 0.0;       // tiny x: only the columns below
      if (j == 5) v = x[c] < 0 ? 0.0 : -0.0;  // products all -0 (or +0 * 0)
      if (j == 6) v = c % 2 ? -0.0 : 0.0;     // products of both signs
      if (j == 7) v = c < 2 ? (c == 0 ? 3.0 : -3.0) * x[1 - c] : 0.0;
      w[static_cast<size_t>(rows[c] + j)] = v;
    }
  }
  // Row 61 (x = 2^-60) times 1 + 2^-7 (a bf16 value) in column 1500: the
  // running sum (integers up to a few hundred) then needs more than 53
  // bits. Row 129 (x = 2^-60) the same in column 2090.
  w[static_cast<size_t>(rows[61] + 1500)] = 1 + 0x1p-7;
  w[static_cast<size_t>(rows[129] + 2090)] = 1 + 0x1p-7;
  for (int64_t c = 0; c < k; ++c) {
    if (c != 61) w[static_cast<size_t>(rows[c] + 1500)] = 3.0;
    if (c != 129) w[static_cast<size_t>(rows[c] + 2090)] = 3.0;
  }
  std::vector<uint16_t> codes(w.size());
  for (size_t t = 0; t < w.size(); ++t) codes[t] = Bf16Code(w[t]);
  std::vector<double> lo(cols), hi(cols);
  const unsigned before = __builtin_ia32_stmxcsr();
  ASSERT_TRUE(StreamEnclosureAvx512Bf16(
      x.data(), 1, k, codes.data(), rows.data(), cols, lo.data(), hi.data()));
  EXPECT_EQ(__builtin_ia32_stmxcsr(), before);
  int64_t points = 0, rounded = 0;
  for (int64_t j = 0; j < cols; ++j) {
    const double want_l = DirectedChain(x.data(), w, rows, k, j, FE_DOWNWARD);
    const double want_h = DirectedChain(x.data(), w, rows, k, j, FE_UPWARD);
    ASSERT_TRUE(SameBits(lo[j], want_l))
        << j << ": " << lo[j] << " vs " << want_l;
    ASSERT_TRUE(SameBits(hi[j], want_h))
        << j << ": " << hi[j] << " vs " << want_h;
    (lo[j] == hi[j] ? points : rounded) += 1;
  }
  EXPECT_EQ(rounded, 2);  // columns 1500 and 2090
  EXPECT_NE(lo[1500], hi[1500]);
  EXPECT_NE(lo[2090], hi[2090]);
  EXPECT_TRUE(lo[5] == 0 && std::signbit(lo[5]) && std::signbit(hi[5]));
  EXPECT_TRUE(hi[6] == 0 && std::signbit(lo[6]) && !std::signbit(hi[6]));
  EXPECT_TRUE(hi[7] == 0 && std::signbit(lo[7]) && !std::signbit(hi[7]));
  EXPECT_EQ(points, cols - 2);
}

// Up to four lhs rows give the same bits with and without the one-chain
// passes (SetStreamOneChainDisabledForTesting: the two directed chains
// throughout, checked against the scalar chains above), row-major and
// transposed, bf16 and f32 weights, over the data kinds: sums that round
// from the start, exact ones (small integers, signed zeros) and ones with
// an infinity and a NaN; 130 rows. Shapes: one row over 2100 columns
// (three segments of the row-major kernel, 263 passes of the transposed
// one, with the redos' back-off), two and three rows over 2100 (the
// transposed passes of two rows and of one), four rows over 8300
// (row-major: two spans of columns, 8192 and 108; transposed: the passes
// of four rows), six rows over 800 (groups of four rows, sixteen rhs rows
// per chunk, and two); the caller's MXCSR unchanged.
TEST(StreamEnclosureAvx512, OneChainGivesTheTwoChainsBits) {
  if (!StreamEnclosureAvx512Available()) {
    GTEST_SKIP() << "no AVX-512 (F, BW, DQ, VL) on this host";
  }
  testing_acc::Lcg rng(31);
  const int64_t k = 130;
  struct Shape {
    int64_t m, cols;
  };
  int64_t compared = 0, expected = 0;
  for (bool transposed : {false, true}) {
    for (const Shape shape : {Shape{1, 2100}, Shape{2, 2100}, Shape{3, 2100},
                              Shape{4, 8300}, Shape{6, 800}}) {
      const int64_t m = shape.m, cols = shape.cols;
      for (bool bf16 : {true, false}) {
        for (int kind : {0, 1, 2, 3}) {
          const int64_t stride = transposed ? k + 3 : cols + 5;
          std::vector<int64_t> at(static_cast<size_t>(transposed ? cols : k));
          for (size_t t = 0; t < at.size(); ++t) {
            at[t] = static_cast<int64_t>(t) * stride;
          }
          std::vector<double> x(static_cast<size_t>(m * k));
          for (double& v : x) v = Value(rng, kind == 3 ? 0 : kind);
          std::vector<double> w(
              static_cast<size_t>((transposed ? cols : k) * stride));
          for (double& v : w) v = Value(rng, kind == 3 ? 0 : kind);
          // Some columns exact in the mixed data too, some rounding late
          // in the exact data: small integers in a band of columns, and
          // one tiny lhs value (in the last row).
          for (int64_t c = 0; c < k; ++c) {
            for (int64_t j = 700; j < 760; ++j) {
              w[static_cast<size_t>(transposed ? j * stride + c
                                               : c * stride + j)] =
                  static_cast<double>(rng.Next() % 5) - 2.0;
            }
          }
          if (kind == 1) x[static_cast<size_t>((m - 1) * k + 100)] = 0x1p-60;
          if (kind == 3) {
            w[5] = std::numeric_limits<double>::infinity();
            w[static_cast<size_t>(3 * stride + 9)] =
                std::numeric_limits<double>::quiet_NaN();
          }
          std::vector<uint16_t> codes(w.size());
          for (size_t t = 0; t < w.size(); ++t) codes[t] = Bf16Code(w[t]);
          const std::vector<float> f(w.begin(), w.end());
          auto run = [&](bool one_chain, std::vector<double>& lo,
                         std::vector<double>& hi) {
            lo.assign(static_cast<size_t>(m * cols), 0.0);
            hi.assign(static_cast<size_t>(m * cols), 0.0);
            SetStreamOneChainDisabledForTesting(!one_chain);
            const unsigned before = __builtin_ia32_stmxcsr();
            bool ran;
            if (transposed) {
              ran = bf16 ? TransposedEnclosureAvx512Bf16(
                               x.data(), m, k, codes.data(), at.data(), cols,
                               lo.data(), hi.data())
                         : TransposedEnclosureAvx512F32(
                               x.data(), m, k, f.data(), at.data(), cols,
                               lo.data(), hi.data());
            } else {
              ran = bf16 ? StreamEnclosureAvx512Bf16(x.data(), m, k,
                                                     codes.data(), at.data(),
                                                     cols, lo.data(), hi.data())
                         : StreamEnclosureAvx512F32(x.data(), m, k, f.data(),
                                                    at.data(), cols, lo.data(),
                                                    hi.data());
            }
            EXPECT_EQ(__builtin_ia32_stmxcsr(), before);
            SetStreamOneChainDisabledForTesting(false);
            return ran;
          };
          std::vector<double> lo1, hi1, lo2, hi2;
          ASSERT_TRUE(run(true, lo1, hi1));
          ASSERT_TRUE(run(false, lo2, hi2));
          for (int64_t j = 0; j < m * cols; ++j) {
            ASSERT_TRUE(SameBits(lo1[j], lo2[j]) && SameBits(hi1[j], hi2[j]))
                << (transposed ? "transposed " : "row-major ")
                << (bf16 ? "bf16" : "f32") << " m " << m << " kind " << kind
                << " output " << j << ": [" << lo1[j] << ", " << hi1[j]
                << "] vs [" << lo2[j] << ", " << hi2[j] << "]";
            ++compared;
          }
          expected += m * cols;
        }
      }
    }
  }
  EXPECT_EQ(compared, expected);
  EXPECT_GT(compared, 200000);
}

// The transposed rhs ([n][k]: output j's terms contiguous from
// cols_at[j]): the chains run in eight lanes and are summed at the end,
// so they are not the scalar chains; the exact sum must lie inside
// [lo, hi], exact sums must be points, and the enclosure must be narrow
// (hi - lo at most 2 (k + 8) 2^-52 sum |p|, the sum of the two chains'
// error bounds). m = 1, 2, 3 (the passes of two rows and of one), k below,
// at and past a group of 32 (every padding case of the lanes), column
// counts odd and even, columns in shuffled order.
TEST(StreamEnclosureAvx512, TransposedEnclosesTheExactSum) {
  if (!StreamEnclosureAvx512Available()) {
    GTEST_SKIP() << "no AVX-512 (F, BW, DQ, VL) on this host";
  }
  testing_acc::Lcg rng(123);
  int64_t outputs = 0, points = 0, inexact = 0;
  for (bool bf16 : {true, false}) {
    for (int64_t m : {1, 2, 3}) {
      for (int64_t k : {1, 7, 31, 32, 33, 100, 257}) {
        for (int64_t cols : {1, 2, 5, 8}) {
          for (int kind : {0, 1, 2, 3}) {
            const int64_t stride = k + 3, offset = 2;
            std::vector<int64_t> cols_at(static_cast<size_t>(cols));
            for (int64_t j = 0; j < cols; ++j) {
              cols_at[j] = offset + ((j * 3) % cols) * stride;
            }
            std::vector<double> x(static_cast<size_t>(m * k));
            for (double& v : x) v = Value(rng, kind == 3 ? 0 : kind);
            std::vector<double> w(static_cast<size_t>(cols * stride + offset));
            for (double& v : w) v = Value(rng, kind == 3 ? 0 : kind);
            if (kind == 3) {
              w[static_cast<size_t>(cols_at[0] + k - 1)] =
                  std::numeric_limits<double>::infinity();
            }
            std::vector<double> lo(static_cast<size_t>(m * cols)),
                hi(lo.size());
            bool ran;
            if (bf16) {
              std::vector<uint16_t> codes(w.size());
              for (size_t t = 0; t < w.size(); ++t) codes[t] = Bf16Code(w[t]);
              ran = TransposedEnclosureAvx512Bf16(x.data(), m, k, codes.data(),
                                                  cols_at.data(), cols,
                                                  lo.data(), hi.data());
            } else {
              std::vector<float> f(w.begin(), w.end());
              ran = TransposedEnclosureAvx512F32(x.data(), m, k, f.data(),
                                                 cols_at.data(), cols,
                                                 lo.data(), hi.data());
            }
            ASSERT_TRUE(ran);
            for (int64_t i = 0; i < m; ++i) {
              const double* xi = x.data() + i * k;
              for (int64_t j = 0; j < cols; ++j) {
                const double l = lo[static_cast<size_t>(i * cols + j)];
                const double h = hi[static_cast<size_t>(i * cols + j)];
                SCOPED_TRACE(testing::Message()
                             << (bf16 ? "bf16" : "f32") << " m " << m << " k "
                             << k << " cols " << cols << " kind " << kind
                             << " output (" << i << ", " << j << ")");
                ++outputs;
                // Terms of output j: w[cols_at[j] + c], as rows c of
                // stride 1 from cols_at[j].
                std::vector<int64_t> rows(static_cast<size_t>(k));
                for (int64_t c = 0; c < k; ++c) rows[c] = cols_at[j] + c;
                if (kind == 3 && j == 0) {
                  EXPECT_FALSE(std::isfinite(l) && std::isfinite(h));
                  continue;
                }
                ASSERT_TRUE(std::isfinite(l) && std::isfinite(h));
                EXPECT_GE(CompareExact(xi, w, rows, k, 0, l), 0);
                EXPECT_LE(CompareExact(xi, w, rows, k, 0, h), 0);
                double abs_sum = 0;
                for (int64_t c = 0; c < k; ++c) {
                  abs_sum += std::fabs(xi[c] * w[static_cast<size_t>(rows[c])]);
                }
                EXPECT_LE(h - l, 2.0 * static_cast<double>(k + 8) * 0x1p-52 *
                                     abs_sum * (1 + 0x1p-20));
                if (kind == 1 || kind == 2) {
                  EXPECT_EQ(l, h);
                  ++points;
                } else if (l != h) {
                  ++inexact;
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(outputs, 2000);
  EXPECT_GT(points, 1000);
  EXPECT_GT(inexact, 100);  // the data did make the chains round
}

// An exact zero sum: -0 when every term is -0, else +0 (hi, as ExactSum
// and the round-to-nearest chain give it).
TEST(StreamEnclosureAvx512, ExactZeroSumsHaveTheRoundToNearestSign) {
  if (!StreamEnclosureAvx512Available()) {
    GTEST_SKIP() << "no AVX-512 (F, BW, DQ, VL) on this host";
  }
  const int64_t k = 6, cols = 40;
  std::vector<int64_t> rows(k);
  for (int64_t c = 0; c < k; ++c) rows[c] = c * cols;
  // x: -1 everywhere. Column 0: +0 weights (products -0): -0. Column 1:
  // -0 weights (products +0): +0. Column 2: 1, -1, 1, -1, 0, 0: +0.
  // Other columns: 1 in row 0 only: -1.
  std::vector<double> x(k, -1.0);
  std::vector<float> w(static_cast<size_t>(k * cols), 0.0f);
  for (int64_t c = 0; c < k; ++c) {
    w[static_cast<size_t>(c * cols + 1)] = -0.0f;
    w[static_cast<size_t>(c * cols + 2)] = c < 4 ? (c % 2 ? -1.0f : 1.0f) : 0;
  }
  for (int64_t j = 3; j < cols; ++j) w[static_cast<size_t>(j)] = 1.0f;
  std::vector<double> lo(cols), hi(cols);
  ASSERT_TRUE(StreamEnclosureAvx512F32(x.data(), 1, k, w.data(), rows.data(),
                                       cols, lo.data(), hi.data()));
  const double r0 = DecideEnclosure(lo[0], hi[0], kF32);
  const double r1 = DecideEnclosure(lo[1], hi[1], kF32);
  const double r2 = DecideEnclosure(lo[2], hi[2], kF32);
  EXPECT_TRUE(r0 == 0 && std::signbit(r0));
  EXPECT_TRUE(r1 == 0 && !std::signbit(r1));
  EXPECT_TRUE(r2 == 0 && !std::signbit(r2));
  for (int64_t j = 3; j < cols; ++j) {
    EXPECT_EQ(DecideEnclosure(lo[j], hi[j], kF32), -1.0) << j;
  }
}

}  // namespace
}  // namespace hloref
