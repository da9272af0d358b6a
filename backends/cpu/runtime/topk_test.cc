// The CPU runtime's topk selection (topk.cc) against a naive reference
// written here: a stable sort of the whole row under a comparator that
// reads the order rule of topk.h directly (floats: sign first, then the
// magnitude bits, larger magnitude lower for negative signs; integers by
// value), taking the first k. Also hand-derived rows (NaN, signed zeros,
// ties), the large-k path, strided layouts, several element types, and
// the compiled topk through the CPU backend with 1 and 2 threads. The last
// test checks the sibling fast path of sort (emitters/sort.cc SortKeyOf:
// a comparator ordering by one key) on the same naive reference.
#include "backends/cpu/runtime/topk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/runtime/array_ops.h"

namespace hloref::cpu {
namespace {

int32_t T(PrimitiveType t) { return static_cast<int32_t>(t); }

// a < b in the total order of topk.h, f32 read as sign and magnitude.
bool F32Less(float a, float b) {
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  const bool sx = (x >> 31) != 0, sy = (y >> 31) != 0;
  const uint32_t mx = x & 0x7fffffffu, my = y & 0x7fffffffu;
  if (sx != sy) return sx;  // negative sign below positive
  return sx ? mx > my : mx < my;
}

// Positions of the k best of `row` by a stable sort (best first).
template <typename V, typename Less>
std::vector<int32_t> NaiveTopK(const std::vector<V>& row, int64_t k,
                               bool largest, Less less) {
  std::vector<int32_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return largest ? less(row[b], row[a]) : less(row[a], row[b]);
  });
  order.resize(static_cast<size_t>(k));
  return order;
}

// hloref_cpu_topk on one contiguous row.
template <typename V>
std::vector<int32_t> RuntimeTopK(PrimitiveType type, const std::vector<V>& row,
                                 int64_t k, bool largest,
                                 std::vector<V>* values = nullptr) {
  RunContext ctx;
  std::vector<V> v(static_cast<size_t>(k));
  std::vector<int32_t> idx(static_cast<size_t>(k), -1);
  const int64_t dims[1] = {static_cast<int64_t>(row.size())};
  const int64_t s[1] = {1};
  hloref_cpu_topk(&ctx, T(type), row.data(), v.data(), idx.data(), 1, dims, s,
                  s, s, k, largest ? 1 : 0);
  EXPECT_FALSE(ctx.failed()) << ctx.error();
  if (values != nullptr) *values = v;
  return idx;
}

TEST(CpuTopK, HandDerivedFloatOrder) {
  // By hand from the order -NaN < -inf < -1 < -0 < +0 < 1 < inf < NaN,
  // ties by lower position.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> row = {1, nan, -0.0f, 0.0f, -nan, inf, 1, -inf};
  EXPECT_EQ(RuntimeTopK(PrimitiveType::kF32, row, 8, true),
            (std::vector<int32_t>{1, 5, 0, 6, 3, 2, 7, 4}));
  EXPECT_EQ(RuntimeTopK(PrimitiveType::kF32, row, 3, false),
            (std::vector<int32_t>{4, 7, 2}));
  std::vector<float> v;
  RuntimeTopK(PrimitiveType::kF32, row, 2, true, &v);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], inf);
}

TEST(CpuTopK, TiesAcrossTheHeapThresholdKeepLowerPositions) {
  // 100 equal values then a larger one: the k = 3 best are the larger one
  // (position 100) then positions 0 and 1; smallest: positions 0, 1, 2.
  std::vector<int32_t> row(101, 7);
  row[100] = 8;
  EXPECT_EQ(RuntimeTopK(PrimitiveType::kS32, row, 3, true),
            (std::vector<int32_t>{100, 0, 1}));
  EXPECT_EQ(RuntimeTopK(PrimitiveType::kS32, row, 3, false),
            (std::vector<int32_t>{0, 1, 2}));
}

TEST(CpuTopK, RandomRowsMatchTheNaiveStableSort) {
  // Values from a small set (many ties) with signed zeros, infinities and
  // NaNs of both signs; every k from the heap path and the partial-sort
  // path (k > 64, 8k > n).
  std::mt19937 rng(7);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float pool[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, -2.5f,
                        inf,  -inf,  nan,  -nan,  3.0f, 1e-40f};
  for (int64_t n : {1, 2, 15, 16, 17, 33, 100, 257, 600, 1000}) {
    for (int64_t k : {int64_t{1}, int64_t{2}, n / 3 + 1, n / 2 + 1, n,
                      std::min<int64_t>(n, 65), std::min<int64_t>(n, 80)}) {
      if (k < 1 || k > n) continue;
      for (bool largest : {true, false}) {
        for (int trial = 0; trial < 3; ++trial) {
          std::vector<float> row(static_cast<size_t>(n));
          for (float& x : row) {
            x = trial == 0
                    ? pool[rng() % 12]
                    : static_cast<float>(static_cast<int>(rng() % 50) - 25) /
                          4.0f;
          }
          if (trial == 2) std::sort(row.begin(), row.end(), F32Less);
          EXPECT_EQ(RuntimeTopK(PrimitiveType::kF32, row, k, largest),
                    NaiveTopK(row, k, largest, F32Less))
              << "n=" << n << " k=" << k << " largest=" << largest
              << " trial=" << trial;
        }
      }
    }
  }
}

TEST(CpuTopK, IntegerAndNarrowFloatTypes) {
  std::mt19937 rng(11);
  auto less = [](auto a, auto b) { return a < b; };
  for (bool largest : {true, false}) {
    std::vector<uint8_t> u8(300);
    for (auto& x : u8) x = static_cast<uint8_t>(rng() % 256);
    EXPECT_EQ(RuntimeTopK(PrimitiveType::kU8, u8, 20, largest),
              NaiveTopK(u8, 20, largest, less));
    std::vector<int64_t> s64(300);
    for (auto& x : s64) {
      x = static_cast<int64_t>(rng() % 7) * (int64_t{1} << 40) -
          (int64_t{3} << 40);
    }
    EXPECT_EQ(RuntimeTopK(PrimitiveType::kS64, s64, 100, largest),
              NaiveTopK(s64, 100, largest, less));
    std::vector<uint64_t> u64(200);
    for (auto& x : u64) x = (rng() % 2) ? ~uint64_t{0} - rng() % 3 : rng() % 3;
    EXPECT_EQ(RuntimeTopK(PrimitiveType::kU64, u64, 10, largest),
              NaiveTopK(u64, 10, largest, less));
    std::vector<double> f64(300);
    for (auto& x : f64) x = static_cast<double>(rng() % 21) - 10.0;
    f64[5] = -0.0;
    f64[6] = 0.0;
    auto f64_less = [](double a, double b) {
      return F32Less(static_cast<float>(a), static_cast<float>(b));
    };
    EXPECT_EQ(RuntimeTopK(PrimitiveType::kF64, f64, 30, largest),
              NaiveTopK(f64, 30, largest, f64_less));
    // bf16: the upper 16 bits of an f32, so the f32 order of the widened
    // values is the bf16 order.
    std::vector<uint16_t> bf16(300);
    std::vector<float> widened(300);
    for (size_t i = 0; i < bf16.size(); ++i) {
      bf16[i] = static_cast<uint16_t>(rng() % 65536);
      const uint32_t w = static_cast<uint32_t>(bf16[i]) << 16;
      std::memcpy(&widened[i], &w, 4);
    }
    EXPECT_EQ(RuntimeTopK(PrimitiveType::kBF16, bf16, 40, largest),
              NaiveTopK(widened, 40, largest, F32Less));
  }
}

TEST(CpuTopK, StridedRowsOfAColumnMajorOperand) {
  // A [3, 50] operand stored column-major (element (r, c) at c * 3 + r):
  // every row's result equals the naive reference on that row.
  std::mt19937 rng(3);
  const int64_t rows = 3, n = 50, k = 7;
  std::vector<float> logical(rows * n), physical(rows * n);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      const float x = static_cast<float>(static_cast<int>(rng() % 40) - 20);
      logical[r * n + c] = x;
      physical[c * rows + r] = x;
    }
  }
  std::vector<float> values(rows * k);
  std::vector<int32_t> indices(rows * k);
  const int64_t dims[2] = {rows, n};
  const int64_t in_s[2] = {1, rows};
  const int64_t out_s[2] = {k, 1};
  RunContext ctx;
  hloref_cpu_topk(&ctx, T(PrimitiveType::kF32), physical.data(), values.data(),
                  indices.data(), 2, dims, in_s, out_s, out_s, k, 1);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<float> row(logical.begin() + r * n,
                           logical.begin() + (r + 1) * n);
    std::vector<int32_t> want = NaiveTopK(row, k, true, F32Less);
    for (int64_t j = 0; j < k; ++j) {
      EXPECT_EQ(indices[r * k + j], want[j]) << "row " << r << " j " << j;
      EXPECT_EQ(values[r * k + j], row[want[j]]);
    }
  }
}

TEST(CpuTopK, SelectTopKPositionsOnKeys) {
  // Keys {3, 9, 9, -1, 9}: best first 1, 2, 4 (ties by position), then 0.
  const int64_t keys[5] = {3, 9, 9, -1, 9};
  int32_t out[4];
  SelectTopKPositions(keys, 5, 4, out);
  EXPECT_EQ(std::vector<int32_t>(out, out + 4),
            (std::vector<int32_t>{1, 2, 4, 0}));
}

TEST(CpuTopK, CompiledModuleWithOneAndTwoThreads) {
  // topk through the CPU backend on f32[8, 4096] (enough work for the row
  // loop to split across the pool), checked row by row against the naive
  // reference.
  std::mt19937 rng(5);
  const int64_t rows = 8, n = 4096, k = 16;
  std::vector<float> data(rows * n);
  for (float& x : data) {
    x = static_cast<float>(static_cast<int>(rng() % 2000) - 1000) / 8.0f;
  }
  for (int threads : {1, 2}) {
    for (bool largest : {true, false}) {
      CpuBackendOptions options;
      options.threads = threads;
      options.compile_cache = false;
      std::vector<Literal> args;
      args.push_back(Literal::CreateFromValues<float>(PrimitiveType::kF32,
                                                      {rows, n}, data));
      auto out = CompileAndRun(absl::StrCat(R"(
HloModule m
ENTRY e {
  x = f32[8,4096] parameter(0)
  ROOT t = (f32[8,16], s32[8,16]) topk(x), k=16, largest=)",
                                            largest ? "true" : "false", "\n}"),
                               std::move(args), options);
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_EQ(out->size(), 2u);
      for (int64_t r = 0; r < rows; ++r) {
        std::vector<float> row(data.begin() + r * n,
                               data.begin() + (r + 1) * n);
        std::vector<int32_t> want = NaiveTopK(row, k, largest, F32Less);
        for (int64_t j = 0; j < k; ++j) {
          EXPECT_EQ((*out)[1].data<int32_t>()[r * k + j], want[j])
              << "threads " << threads << " row " << r << " j " << j;
          EXPECT_EQ((*out)[0].data<float>()[r * k + j], row[want[j]]);
        }
      }
    }
  }
}

TEST(CpuSortByKey, CompiledComparatorsAgreeWithTheNaiveStableSort) {
  // Key + iota sorted along dimension 1 of f32[64, 300] (ties and signed
  // zeros in the data) with comparators the key path takes
  // (TOTALORDER LT: ascending; GT with the parameters swapped: ascending;
  // GT: descending) and one it does not (FLOAT LT on the same NaN-free
  // data: ascending, through compiled comparator calls). Expected: the
  // naive stable sort of each row, with 1 and 2 threads (64 x 300
  // elements: enough for the key path to split rows across the pool).
  std::mt19937 rng(9);
  const int64_t rows = 64, n = 300;
  std::vector<float> data(rows * n);
  for (float& x : data) {
    x = static_cast<float>(static_cast<int>(rng() % 41) - 20) / 2.0f;
    if (x == 0 && rng() % 2) x = -0.0f;
  }
  struct Case {
    const char* compare;
    bool descending;
  };
  const Case cases[] = {
      {"compare(p0, p1), direction=LT, type=TOTALORDER", false},
      {"compare(p1, p0), direction=GT, type=TOTALORDER", false},
      {"compare(p0, p1), direction=GT, type=TOTALORDER", true},
      {"compare(p0, p1), direction=LT", false},
  };
  auto float_less = [](float a, float b) {
    // FLOAT order for the last case: -0 == +0, both stay in input order.
    return a < b;
  };
  for (int threads : {1, 2}) {
    for (const Case& c : cases) {
      CpuBackendOptions options;
      options.threads = threads;
      options.compile_cache = false;
      const bool total =
          std::string(c.compare).find("TOTALORDER") != std::string::npos;
      std::vector<Literal> args;
      args.push_back(Literal::CreateFromValues<float>(PrimitiveType::kF32,
                                                      {rows, n}, data));
      auto out = CompileAndRun(absl::StrCat(R"(
HloModule m
cmp {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  p2 = s32[] parameter(2)
  p3 = s32[] parameter(3)
  ROOT c = pred[] )",
                                            c.compare, R"(
}
ENTRY e {
  x = f32[64,300] parameter(0)
  i = s32[64,300] iota(), iota_dimension=1
  ROOT s = (f32[64,300], s32[64,300]) sort(x, i), dimensions={1}, is_stable=true, to_apply=cmp
})"),
                               std::move(args), options);
      ASSERT_TRUE(out.ok()) << out.status();
      for (int64_t r = 0; r < rows; ++r) {
        std::vector<float> row(data.begin() + r * n,
                               data.begin() + (r + 1) * n);
        std::vector<int32_t> want =
            total ? NaiveTopK(row, n, c.descending, F32Less)
                  : NaiveTopK(row, n, c.descending, float_less);
        // NaiveTopK(largest=false) is ascending, (largest=true) descending.
        for (int64_t j = 0; j < n; ++j) {
          ASSERT_EQ((*out)[1].data<int32_t>()[r * n + j], want[j])
              << c.compare << " threads " << threads << " row " << r << " j "
              << j;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hloref::cpu
