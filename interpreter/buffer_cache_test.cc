// Tests of the evaluator's cache of freed values' storage (issue 16,
// interpreter/buffer_cache.h): the cache itself (sizes, types, capacity,
// order), and evaluations where results reuse freed storage: the values
// are those derived by hand in the comments and those of a run without
// the cache, a live value's storage is never reused, and the byte limit
// counts the cache.
#include "interpreter/buffer_cache.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/ops/data_movement_test_util.h"

namespace hloref {
namespace {

using testing_dm::RunHlo;

// f32[n] with element i = i + offset (exact in f32 for the sizes used).
Literal Iota(int64_t n, float offset) {
  Literal lit(Shape::Array(PrimitiveType::kF32, {n}));
  auto d = lit.mutable_data<float>();
  for (int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(i) + offset;
  return lit;
}

constexpr int64_t kN = 1 << 16;  // f32[kN]: 256 KiB, above kMinBytes

TEST(BufferCache, TakeGivesAFreedStorageOfTheSameSizeAsTheNewShape) {
  BufferCache cache(int64_t{1} << 20);
  Literal a = Iota(kN, 0);
  const uint8_t* storage = a.raw().data();
  cache.Put(std::move(a));
  EXPECT_EQ(cache.bytes(), kN * 4);
  // Another size, or a pred made from f32 bytes, does not fit.
  EXPECT_FALSE(cache.Take(Shape::Array(PrimitiveType::kF32, {kN + 1})));
  EXPECT_FALSE(cache.Take(Shape::Array(PrimitiveType::kPred, {4 * kN})));
  // s32[256, kN / 256]: the same 256 KiB, another type and rank.
  std::optional<Literal> b =
      cache.Take(Shape::Array(PrimitiveType::kS32, {256, kN / 256}));
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->shape(), Shape::Array(PrimitiveType::kS32, {256, kN / 256}));
  EXPECT_EQ(b->raw().data(), storage);
  EXPECT_EQ(cache.bytes(), 0);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_FALSE(cache.Take(Shape::Array(PrimitiveType::kF32, {kN})));
}

TEST(BufferCache, SmallValuesTuplesAndCapacity) {
  BufferCache cache(3 * kN * 4);  // room for three values of 256 KiB
  cache.Put(Iota(BufferCache::kMinBytes / 4 - 1, 0));  // below the minimum
  EXPECT_EQ(cache.bytes(), 0);
  std::vector<Literal> parts;
  parts.push_back(Iota(kN, 1));
  parts.push_back(Iota(2 * kN, 2));
  parts.push_back(Iota(4, 3));
  cache.Put(Literal::MakeTuple(std::move(parts)));  // leaves kept: 768 KiB
  EXPECT_EQ(cache.bytes(), 3 * kN * 4);
  // One more value of 256 KiB: the oldest (f32[kN], offset 1) is dropped.
  cache.Put(Iota(kN, 5));
  EXPECT_EQ(cache.bytes(), 3 * kN * 4);
  std::optional<Literal> got =
      cache.Take(Shape::Array(PrimitiveType::kF32, {kN}));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->data<float>()[0], 5.0f);  // stale bytes of the newest
  EXPECT_FALSE(cache.Take(Shape::Array(PrimitiveType::kF32, {kN})));
  cache.TrimTo(0);
  EXPECT_EQ(cache.bytes(), 0);
  EXPECT_FALSE(cache.Take(Shape::Array(PrimitiveType::kF32, {2 * kN})));
  BufferCache off(0);
  off.Put(Iota(kN, 0));
  EXPECT_EQ(off.bytes(), 0);
}

// A chain of element-wise ops and broadcasts over f32[kN] where every
// result can take the storage of a value freed before it:
//   a = 3 + iota, b = a * 2 (a dies) = 6 + 2i, c = broadcast(5) (may reuse
//   a), d = b - c = 1 + 2i (b, c die), e = broadcast(p) (p = 0.5),
//   f = d * e = 0.5 + i, g = exp(broadcast(0)) = 1 everywhere, and
//   root = f + g = 1.5 + i.
// A live value is read after others died: `keep` = a copy of a that is
// read at the end (root2 = root - keep = 1.5 + i - (3 + i) = -1.5), so its
// storage must never be handed out while it lives.
std::string ChainModule() {
  const std::string v = absl::StrCat("f32[", kN, "]");
  return absl::StrCat(
      "HloModule reuse\nENTRY e {\n"
      "  p = f32[] parameter(0)\n"
      "  three = f32[] constant(3)\n"
      "  two = f32[] constant(2)\n"
      "  five = f32[] constant(5)\n"
      "  zero = f32[] constant(0)\n"
      "  i = ",
      v,
      " iota(), iota_dimension=0\n"
      "  t = ",
      v,
      " broadcast(three), dimensions={}\n"
      "  a = ",
      v,
      " add(i, t)\n"
      "  keep = ",
      v,
      " copy(a)\n"
      "  tw = ",
      v,
      " broadcast(two), dimensions={}\n"
      "  b = ",
      v,
      " multiply(a, tw)\n"
      "  c = ",
      v,
      " broadcast(five), dimensions={}\n"
      "  d = ",
      v,
      " subtract(b, c)\n"
      "  e = ",
      v,
      " broadcast(p), dimensions={}\n"
      "  f = ",
      v,
      " multiply(d, e)\n"
      "  z = ",
      v,
      " broadcast(zero), dimensions={}\n"
      "  g = ",
      v,
      " exponential(z)\n"
      "  root = ",
      v,
      " add(f, g)\n"
      "  ROOT root2 = ",
      v, " subtract(root, keep)\n}\n");
}

TEST(BufferCacheEvaluation, ReusedStorageGivesTheHandDerivedValues) {
  std::vector<Literal> args;
  args.push_back(Literal::CreateR0<float>(PrimitiveType::kF32, 0.5f));
  for (int threads : {1, 3}) {
    EvaluatorOptions options;
    options.threads = threads;
    // Materialised broadcasts (read in place, they allocate nothing and
    // leave the cache little to do: BroadcastViews in memory_test.cc).
    options.broadcast_views = false;
    absl::StatusOr<EvalResult> r = RunHlo(ChainModule(), args, options);
    ASSERT_TRUE(r.ok()) << r.status();
    // t, tw, c, e, z, g, root, root2 can each take a freed value's storage
    // (i after a, t after a, ...): at least four of them do.
    EXPECT_GE(r->reused_buffers, 4);
    auto got = r->value.data<float>();
    ASSERT_EQ(got.size(), static_cast<size_t>(kN));
    for (int64_t k = 0; k < kN; ++k) {
      ASSERT_EQ(got[k], -1.5f) << "element " << k << ", threads " << threads;
    }
    options.buffer_cache_bytes = 0;
    absl::StatusOr<EvalResult> plain = RunHlo(ChainModule(), args, options);
    ASSERT_TRUE(plain.ok()) << plain.status();
    EXPECT_EQ(plain->reused_buffers, 0);
    EXPECT_EQ(plain->value, r->value);
    EXPECT_EQ(plain->peak_bytes, r->peak_bytes);
  }
}

// The cache counts against max_bytes with the values: a limit the run
// fits in without the cache is enough with it (the cache is given up).
// The smallest such limit is searched for (bisection): it is not the
// no-cache run's peak, since the limit is checked before an op that
// writes its result over a dying operand (g = exponential(z)) has taken
// it, counting the result's bytes too.
TEST(BufferCacheEvaluation, TheByteLimitCountsTheCache) {
  std::vector<Literal> args;
  args.push_back(Literal::CreateR0<float>(PrimitiveType::kF32, 0.5f));
  auto run = [&](int64_t cache, int64_t limit) {
    EvaluatorOptions options;
    options.buffer_cache_bytes = cache;
    options.max_bytes = limit;
    return RunHlo(ChainModule(), args, options);
  };
  absl::StatusOr<EvalResult> plain = run(0, 0);
  ASSERT_TRUE(plain.ok()) << plain.status();
  int64_t lo = plain->peak_bytes;
  int64_t hi = plain->peak_bytes + 4 * kN * 4;
  ASSERT_TRUE(run(0, hi).ok());
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (run(0, mid).ok()) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  // The run reports that smallest limit itself (EvalResult::limit_bytes),
  // above its peak.
  EXPECT_EQ(plain->limit_bytes, lo);
  EXPECT_GT(plain->limit_bytes, plain->peak_bytes);
  absl::StatusOr<EvalResult> r = run(int64_t{64} << 20, lo);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, plain->value);
  EXPECT_EQ(run(int64_t{64} << 20, lo - 1).status().code(),
            absl::StatusCode::kResourceExhausted);
}

// A while loop whose body builds a fresh f32[kN] every iteration from the
// carried one (x <- x * 2 + broadcast(1)) while the carried tuple's
// storage dies: 5 iterations from x = 1 give 2^5 + 2^5 - 1 = 63.
TEST(BufferCacheEvaluation, WhileLoopIterationsReuseTheirStorage) {
  const std::string v = absl::StrCat("f32[", kN, "]");
  const std::string s = absl::StrCat("(s32[], ", v, ")");
  const std::string text = absl::StrCat(
      "HloModule loop\n"
      "cond {\n  p = ",
      s,
      " parameter(0)\n"
      "  i = s32[] get-tuple-element(p), index=0\n"
      "  n = s32[] constant(5)\n"
      "  ROOT lt = pred[] compare(i, n), direction=LT\n}\n"
      "body {\n  p = ",
      s,
      " parameter(0)\n"
      "  i = s32[] get-tuple-element(p), index=0\n"
      "  x = ",
      v,
      " get-tuple-element(p), index=1\n"
      "  one = s32[] constant(1)\n"
      "  i1 = s32[] add(i, one)\n"
      "  two = f32[] constant(2)\n"
      "  onef = f32[] constant(1)\n"
      "  tw = ",
      v,
      " broadcast(two), dimensions={}\n"
      "  x2 = ",
      v,
      " multiply(x, tw)\n"
      "  o = ",
      v,
      " broadcast(onef), dimensions={}\n"
      "  y = ",
      v,
      " add(x2, o)\n"
      "  ROOT t = ",
      s,
      " tuple(i1, y)\n}\n"
      "ENTRY e {\n  zero = s32[] constant(0)\n  one = f32[] constant(1)\n"
      "  x = ",
      v,
      " broadcast(one), dimensions={}\n"
      "  init = ",
      s,
      " tuple(zero, x)\n"
      "  w = ",
      s,
      " while(init), condition=cond, body=body\n"
      "  ROOT r = ",
      v, " get-tuple-element(w), index=1\n}\n");
  // Materialised broadcasts (tw and o are fresh values each iteration);
  // read in place, x2 and y are written over x and the loop allocates
  // nothing after the first iteration.
  EvaluatorOptions options;
  options.broadcast_views = false;
  absl::StatusOr<EvalResult> r = RunHlo(text, {}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->reused_buffers, 5);
  for (float x : r->value.data<float>()) ASSERT_EQ(x, 63.0f);
  absl::StatusOr<EvalResult> views = RunHlo(text);
  ASSERT_TRUE(views.ok()) << views.status();
  EXPECT_EQ(views->value, r->value);
  EXPECT_LT(views->peak_bytes, r->peak_bytes);
}

// reduce and convolution results take freed storage too (dot's already
// did): s = slice(p) goes to the cache when its reader t = transpose(s)
// is done, and r = reduce(p) over dimension 0 (f32[128,256], 128 KiB, the
// size of s) takes it; t goes to the cache after u = transpose(t), and c,
// a convolution of q with a 1x1 kernel holding 2 (f32[1,128,256,1]),
// takes it. Values by hand: p[k,i,j] = (k + 1) (i % 7) + j % 5, so
// r[i,j] = 10 (i % 7) + 4 (j % 5) (exact), u = p[0], c = 2 q.
TEST(BufferCacheEvaluation, ReduceAndConvolutionResultsReuseStorage) {
  const char* text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4,128,256] parameter(0)
  q = f32[1,128,256,1] parameter(1)
  w = f32[1,1,1,1] parameter(2)
  zero = f32[] constant(0)
  s = f32[1,128,256] slice(p), slice={[0:1], [0:128], [0:256]}
  t = f32[256,128,1] transpose(s), dimensions={2,1,0}
  r = f32[128,256] reduce(p, zero), dimensions={0}, to_apply=add
  u = f32[128,256,1] transpose(t), dimensions={1,0,2}
  c = f32[1,128,256,1] convolution(q, w), window={size=1x1}, dim_labels=b01f_01io->b01f
  ROOT out = (f32[128,256], f32[128,256,1], f32[1,128,256,1]) tuple(r, u, c)
})";
  Literal p(Shape::Array(PrimitiveType::kF32, {4, 128, 256}));
  Literal q(Shape::Array(PrimitiveType::kF32, {1, 128, 256, 1}));
  Literal w(Shape::Array(PrimitiveType::kF32, {1, 1, 1, 1}));
  auto pd = p.mutable_data<float>();
  for (int64_t k = 0; k < 4; ++k) {
    for (int64_t i = 0; i < 128; ++i) {
      for (int64_t j = 0; j < 256; ++j) {
        pd[(k * 128 + i) * 256 + j] =
            static_cast<float>((k + 1) * (i % 7) + j % 5);
      }
    }
  }
  auto qd = q.mutable_data<float>();
  for (int64_t i = 0; i < 128 * 256; ++i) qd[i] = static_cast<float>(i % 1000);
  w.mutable_data<float>()[0] = 2.0f;
  std::vector<EvalResult> runs;
  for (int64_t cache : {int64_t{64} << 20, int64_t{0}}) {
    EvaluatorOptions options;
    options.buffer_cache_bytes = cache;
    absl::StatusOr<EvalResult> r = RunHlo(text, {p, q, w}, options);
    ASSERT_TRUE(r.ok()) << r.status();
    auto rd = r->value.tuple_element(0).data<float>();
    auto ud = r->value.tuple_element(1).data<float>();
    auto cd = r->value.tuple_element(2).data<float>();
    for (int64_t i = 0; i < 128; ++i) {
      for (int64_t j = 0; j < 256; ++j) {
        const int64_t o = i * 256 + j;
        ASSERT_EQ(rd[o], static_cast<float>(10 * (i % 7) + 4 * (j % 5))) << o;
        ASSERT_EQ(ud[o], pd[o]) << o;
        ASSERT_EQ(cd[o], 2.0f * static_cast<float>(o % 1000)) << o;
      }
    }
    runs.push_back(*std::move(r));
  }
  // s's storage (freed after t) for r, t's (freed after u) for c.
  EXPECT_GE(runs[0].reused_buffers, 2);
  EXPECT_EQ(runs[1].reused_buffers, 0);
  EXPECT_EQ(runs[0].value, runs[1].value);
}

}  // namespace
}  // namespace hloref
