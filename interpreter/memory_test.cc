// Tests of the evaluator's memory management (issue 16): values are freed
// after their last reader (EvalResult::peak_bytes observes it), operands
// read for the last time are reused (in-place dynamic-update-slice on a
// while loop's carried buffer) with results identical to copying, the
// EvaluatorOptions::max_bytes limit fails cleanly before allocating, and
// the progress callback reports. Expected values are derived by hand in
// the comments.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/ops/broadcast_view.h"
#include "interpreter/ops/data_movement_test_util.h"
#include "interpreter/ops/elementwise_binary.h"
#include "spec/ir/hlo_parser.h"

namespace hloref {
namespace {

using ::testing::HasSubstr;
using testing_dm::Lit;
using testing_dm::RunHlo;

constexpr int64_t kN = 1 << 20;  // f32[kN] is 4 MiB
constexpr int64_t kBytes = kN * 4;

// x_{k+1} = negate(x_k), 16 times, from a broadcast constant: every value
// is read once, by the next one.
std::string Chain(int links) {
  std::string text = absl::StrCat(
      "HloModule chain\nENTRY e {\n  c = f32[] constant(1.5)\n  x0 = f32[", kN,
      "] broadcast(c), dimensions={}\n");
  for (int k = 0; k < links; ++k) {
    absl::StrAppend(&text, "  x", k + 1, " = f32[", kN, "] negate(x", k, ")\n");
  }
  absl::StrAppend(&text, "  ROOT r = f32[] reduce(x", links,
                  ", c), dimensions={0}, to_apply=add\n}\n");
  return absl::StrCat(
      "HloModule chain\nadd {\n  a = f32[] parameter(0)\n  b = f32[] "
      "parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n",
      text.substr(text.find("ENTRY")));
}

TEST(Memory, ValuesAreFreedAfterTheirLastReader) {
  absl::StatusOr<EvalResult> r = RunHlo(Chain(16));
  ASSERT_TRUE(r.ok()) << r.status();
  // 16 negations of 1.5 give 1.5; kN * 1.5 + 1.5 (the init) is exact in
  // f32 (1572865.5 needs 22 bits).
  EXPECT_EQ(r->value.data<float>()[0], 1572865.5f);
  // Without freeing, 17 arrays of 4 MiB are held at the end; with it, a
  // value and its successor (8 MiB) at most, plus scalars.
  EXPECT_GE(r->peak_bytes, 2 * kBytes);
  EXPECT_LT(r->peak_bytes, 2 * kBytes + 4096);
  EXPECT_GT(r->instructions_evaluated, 17);
}

TEST(Memory, MaxBytesFailsBeforeAllocatingAndNamesTheInstruction) {
  EvaluatorOptions options;
  options.max_bytes = kBytes + kBytes / 2;  // one array fits, two do not
  absl::StatusOr<EvalResult> r = RunHlo(Chain(2), {}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(r.status().message(), HasSubstr("%x1"));
  EXPECT_THAT(r.status().message(), HasSubstr(absl::StrCat(kBytes, " bytes")));
  EXPECT_THAT(r.status().message(), HasSubstr("EvaluatorOptions::max_bytes"));
  options.max_bytes = 2 * kBytes + 4096;
  EXPECT_TRUE(RunHlo(Chain(2), {}, options).ok());
}

// A decoding-style loop: cache f32[R,C] carried with a counter; every
// iteration writes row i with the value i + 1 by dynamic-update-slice.
// `keep_initial` also returns the initial cache, so the loop's operand has
// another reader and must not be updated in place.
std::string CacheLoop(int64_t rows, int64_t cols, bool keep_initial) {
  const std::string cache = absl::StrCat("f32[", rows, ",", cols, "]");
  const std::string state = absl::StrCat("(s32[], ", cache, ")");
  return absl::StrCat(
      "HloModule cache\n"
      "cond {\n  p = ",
      state,
      " parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
      "  n = s32[] constant(",
      rows,
      ")\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\n"
      "body {\n  p = ",
      state,
      " parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
      "  c = ",
      cache,
      " get-tuple-element(p), index=1\n"
      "  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n"
      "  v = f32[] convert(i1)\n  row = f32[1,",
      cols,
      "] broadcast(v), dimensions={}\n  z = s32[] constant(0)\n"
      "  c1 = ",
      cache,
      " dynamic-update-slice(c, row, i, z)\n"
      "  ROOT t = ",
      state,
      " tuple(i1, c1)\n}\n"
      "ENTRY e {\n  zero = f32[] constant(0)\n  init = ",
      cache,
      " broadcast(zero), dimensions={}\n  i0 = s32[] constant(0)\n"
      "  s = ",
      state, " tuple(i0, init)\n  w = ", state,
      " while(s), condition=cond, body=body\n  out = ", cache,
      " get-tuple-element(w), index=1\n",
      keep_initial ? absl::StrCat("  ROOT r = (", cache, ", ", cache,
                                  ") tuple(out, init)\n")
                   : absl::StrCat("  ROOT r = ", cache, " copy(out)\n"),
      "}\n");
}

void ExpectRowsAreIndexPlusOne(const Literal& cache, int64_t rows,
                               int64_t cols) {
  absl::Span<const float> d = cache.data<float>();
  ASSERT_EQ(static_cast<int64_t>(d.size()), rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      ASSERT_EQ(d[r * cols + c], static_cast<float>(r + 1)) << r << "," << c;
    }
  }
}

TEST(Memory, WhileLoopUpdatesTheCarriedBufferInPlace) {
  const int64_t rows = 64, cols = 4096;  // 1 MiB cache
  const int64_t cache_bytes = rows * cols * 4;
  absl::StatusOr<EvalResult> r = RunHlo(CacheLoop(rows, cols, false));
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectRowsAreIndexPlusOne(r->value, rows, cols);
  // The cache is never copied: the loop's tuple, get-tuple-element,
  // dynamic-update-slice, the body's root tuple and the final copy all
  // reuse the one buffer; a row and scalars come on top.
  EXPECT_LT(r->peak_bytes, cache_bytes + 64 * 1024);
  EXPECT_GE(r->peak_bytes, cache_bytes);
}

TEST(Memory, AValueWithAnotherReaderIsNotUpdatedInPlace) {
  const int64_t rows = 8, cols = 16;
  absl::StatusOr<EvalResult> r = RunHlo(CacheLoop(rows, cols, true));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->value.tuple_size(), 2);
  ExpectRowsAreIndexPlusOne(r->value.tuple_element(0), rows, cols);
  // The initial cache, still read after the loop, is all zeros.
  for (float v : r->value.tuple_element(1).data<float>()) EXPECT_EQ(v, 0.0f);
}

TEST(Memory, DynamicUpdateSliceInPlaceMatchesCopying) {
  // dus(x, u, 1) read for the last time (in place) next to the same update
  // of a parameter the caller owns (copied): x = {0,1,2,3}, u = {7,8} at 1
  // gives {0,7,8,3}; the parameter stays {0,1,2,3}.
  const char* text = R"(HloModule m
ENTRY e {
  p = s32[4] parameter(0)
  u = s32[2] constant({7, 8})
  one = s32[] constant(1)
  x = s32[4] copy(p)
  a = s32[4] dynamic-update-slice(x, u, one)
  b = s32[4] dynamic-update-slice(p, u, one)
  ROOT t = (s32[4], s32[4], s32[4]) tuple(a, b, p)
})";
  std::vector<Literal> args;
  args.push_back(Lit("s32[4] {0, 1, 2, 3}"));
  absl::StatusOr<EvalResult> r = RunHlo(text, std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.tuple_element(0), Lit("s32[4] {0, 7, 8, 3}"));
  EXPECT_EQ(r->value.tuple_element(1), Lit("s32[4] {0, 7, 8, 3}"));
  EXPECT_EQ(r->value.tuple_element(2), Lit("s32[4] {0, 1, 2, 3}"));
}

TEST(Memory, RunConsumingMatchesRun) {
  // The cache loop with the initial cache passed as an argument: Run copies
  // it into the loop's tuple, RunConsuming moves it; same values.
  const int64_t rows = 16, cols = 64;
  std::string text = CacheLoop(rows, cols, false);
  const std::string init = absl::StrCat("  init = f32[", rows, ",", cols,
                                        "] broadcast(zero), dimensions={}\n");
  ASSERT_NE(text.find(init), std::string::npos);
  text.replace(
      text.find(init), init.size(),
      absl::StrCat("  init = f32[", rows, ",", cols, "] parameter(0)\n"));
  Literal arg(Shape::Array(PrimitiveType::kF32, {rows, cols}));
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  Evaluator evaluator;
  std::vector<Literal> args;
  args.push_back(arg);
  absl::StatusOr<EvalResult> run = evaluator.Run(**module, args);
  ASSERT_TRUE(run.ok()) << run.status();
  absl::StatusOr<EvalResult> consumed =
      evaluator.RunConsuming(**module, std::move(args));
  ASSERT_TRUE(consumed.ok()) << consumed.status();
  ExpectRowsAreIndexPlusOne(consumed->value, rows, cols);
  EXPECT_TRUE(consumed->value.BitwiseEquals(run->value));
  // RunConsuming holds the result once: its outputs carry no copy of it.
  ASSERT_EQ(run->outputs.size(), 1u);
  ASSERT_EQ(consumed->outputs.size(), 1u);
  EXPECT_TRUE(run->outputs[0].value.BitwiseEquals(run->value));
  EXPECT_TRUE(consumed->outputs[0].value.raw().empty());
  EXPECT_FALSE(consumed->outputs[0].value.shape().IsArray());
}

// Storage adopted from an owner (a mapped .npy argument) is never written
// over by an element-wise result, even when the run owns the argument and
// reads it for the last time: each page would be copied on its first
// write. a = p + broadcast(1): an ordinary consumed p becomes the result's
// storage; an adopted one stays as it was, and the result is new storage.
class RecordingOwner final : public LiteralBytes::Owner {
 public:
  RecordingOwner(float* data, int64_t n, bool* unchanged)
      : data_(data), n_(n), unchanged_(unchanged) {}
  ~RecordingOwner() override {
    bool same = true;
    for (int64_t i = 0; i < n_; ++i) same = same && data_[i] == Value(i);
    *unchanged_ = same;
    ::operator delete(data_, LiteralBytes::kAlignment);
  }
  static float Value(int64_t i) { return static_cast<float>(i % 1000); }

 private:
  float* data_;
  int64_t n_;
  bool* unchanged_;
};

TEST(Memory, AdoptedArgumentStorageIsNotWrittenOver) {
  const std::string v = absl::StrCat("f32[", kN, "]");
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  p = ", v,
      " parameter(0)\n  one = f32[] constant(1)\n  b = ", v,
      " broadcast(one), dimensions={}\n  ROOT a = ", v, " add(p, b)\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  const Shape shape = Shape::Array(PrimitiveType::kF32, {kN});
  Evaluator evaluator;
  for (bool adopted : {false, true}) {
    bool unchanged = false;
    std::vector<Literal> args;
    const void* storage = nullptr;
    if (adopted) {
      auto* data =
          static_cast<float*>(::operator new(kBytes, LiteralBytes::kAlignment));
      for (int64_t i = 0; i < kN; ++i) data[i] = RecordingOwner::Value(i);
      storage = data;
      args.push_back(Literal::AdoptStorage(
          shape, LiteralBytes::Adopt(
                     reinterpret_cast<unsigned char*>(data), kBytes,
                     std::make_unique<RecordingOwner>(data, kN, &unchanged))));
      ASSERT_TRUE(args.back().storage_adopted());
    } else {
      args.emplace_back(shape);
      auto d = args.back().mutable_data<float>();
      for (int64_t i = 0; i < kN; ++i) d[i] = RecordingOwner::Value(i);
      storage = args.back().raw().data();
    }
    absl::StatusOr<EvalResult> r =
        evaluator.RunConsuming(**module, std::move(args));
    ASSERT_TRUE(r.ok()) << r.status();
    auto a = r->value.data<float>();
    for (int64_t i = 0; i < kN; ++i) {
      ASSERT_EQ(a[i], RecordingOwner::Value(i) + 1) << i;
    }
    EXPECT_EQ(r->value.raw().data() == storage, !adopted);
    EXPECT_FALSE(r->value.storage_adopted());
    if (adopted) {
      EXPECT_TRUE(unchanged);  // the owner was deleted after its last use
    }
  }
}

// Moves and partial updates do take adopted storage: a dynamic-update-slice
// of a consumed, adopted argument writes its one element in place (a
// mapped KV cache is updated, not copied), and a tuple moves it. The
// result {d, p2}: d = p with element 3 set to 5; p2 another argument.
TEST(Memory, AdoptedArgumentStorageIsMovedAndUpdatedInPlace) {
  const std::string v = absl::StrCat("f32[", kN, "]");
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  p = ", v, " parameter(0)\n  q = ", v,
      " parameter(1)\n  u = f32[1] constant({5})\n  i = s32[] constant(3)\n"
      "  d = ",
      v, " dynamic-update-slice(p, u, i)\n  ROOT t = (", v, ", ", v,
      ") tuple(d, q)\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  const Shape shape = Shape::Array(PrimitiveType::kF32, {kN});
  std::vector<Literal> args;
  std::vector<const void*> storage;
  bool unchanged[2] = {false, false};
  for (int a = 0; a < 2; ++a) {
    auto* data =
        static_cast<float*>(::operator new(kBytes, LiteralBytes::kAlignment));
    for (int64_t i = 0; i < kN; ++i) data[i] = RecordingOwner::Value(i);
    storage.push_back(data);
    args.push_back(Literal::AdoptStorage(
        shape, LiteralBytes::Adopt(
                   reinterpret_cast<unsigned char*>(data), kBytes,
                   std::make_unique<RecordingOwner>(data, kN, &unchanged[a]))));
  }
  Evaluator evaluator;
  absl::StatusOr<EvalResult> r =
      evaluator.RunConsuming(**module, std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal& d = r->value.tuple_element(0);
  const Literal& q = r->value.tuple_element(1);
  EXPECT_TRUE(d.storage_adopted());
  EXPECT_TRUE(q.storage_adopted());
  EXPECT_EQ(d.raw().data(), storage[0]);
  EXPECT_EQ(q.raw().data(), storage[1]);
  auto dv = d.data<float>();
  for (int64_t i = 0; i < kN; ++i) {
    ASSERT_EQ(dv[i], i == 3 ? 5.0f : RecordingOwner::Value(i)) << i;
  }
  EXPECT_LT(r->peak_bytes, 2 * kBytes + 4096);
  r = absl::InternalError("released");  // frees the result: the owners go
  EXPECT_FALSE(unchanged[0]);           // element 3 was written in place
  EXPECT_TRUE(unchanged[1]);
}

// reshape and bitcast of a value read for the last time keep its storage
// (Literal::ReinterpretAs): iota s32[kN] (values 0..kN-1), reshaped to
// [1024,1024] and bitcast to u32[1024,1024] (the same bits, both laid out
// row-major), is one buffer for the whole chain; a copy would hold two.
TEST(Memory, ReshapeAndBitcastOfADyingValueKeepTheStorage) {
  const std::string text =
      absl::StrCat("HloModule m\nENTRY e {\n  x = s32[", kN,
                   "]{0} iota(), iota_dimension=0\n"
                   "  r = s32[1024,1024]{1,0} reshape(x)\n"
                   "  b = u32[1024,1024]{1,0} bitcast(r)\n"
                   "  ROOT c = u32[1048576,1]{0,1} bitcast(b)\n}\n");
  ASSERT_EQ(kN, 1024 * 1024);
  absl::StatusOr<EvalResult> r = RunHlo(text);
  ASSERT_TRUE(r.ok()) << r.status();
  absl::Span<const uint32_t> d = r->value.data<uint32_t>();
  ASSERT_EQ(static_cast<int64_t>(d.size()), kN);
  for (int64_t k = 0; k < kN; ++k) ASSERT_EQ(d[k], static_cast<uint32_t>(k));
  EXPECT_GE(r->peak_bytes, kBytes);
  EXPECT_LT(r->peak_bytes, kBytes + 4096);
}

// The arguments of RunConsuming are owned by the run: a reshaped weight is
// the argument's own storage (Run borrows its arguments and copies).
TEST(Memory, ReshapeOfAConsumedArgumentKeepsItsStorage) {
  const std::string text =
      absl::StrCat("HloModule m\nENTRY e {\n  p = f32[", kN,
                   "] parameter(0)\n  ROOT r = f32[1024,1024] reshape(p)\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  Literal arg(Shape::Array(PrimitiveType::kF32, {kN}));
  absl::Span<float> a = arg.mutable_data<float>();
  for (int64_t k = 0; k < kN; ++k) a[k] = static_cast<float>(k) * 0.5f;
  std::vector<Literal> args;
  args.push_back(arg);
  Evaluator evaluator;
  absl::StatusOr<EvalResult> r =
      evaluator.RunConsuming(**module, std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->peak_bytes, kBytes);
  EXPECT_LT(r->peak_bytes, kBytes + 4096);
  ASSERT_EQ(r->value.shape().rank(), 2);
  EXPECT_EQ(r->value.shape().dimensions(0), 1024);
  EXPECT_EQ(r->value.GetAsDouble(kN - 1), (kN - 1) * 0.5);
  EXPECT_EQ(std::memcmp(r->value.raw().data(), arg.raw().data(),
                        static_cast<size_t>(kBytes)),
            0);
}

TEST(Memory, ReshapeAndBitcastThatMustComputeStillDo) {
  // x = iota s32[2,3] = {{0,1,2},{3,4,5}}, row-major physical order.
  // bitcast to s32[3,2]{0,1} (column-major): element (a, b) sits at
  // physical position a + 3b, so the result is {{0,3},{1,4},{2,5}}.
  // bitcast of u8 {0,1,2,255} to pred: bytes above 1 become true
  // (impl.bitcast.1), so it is not a relabelling. A reshape whose operand
  // is read again afterwards is copied: both values are returned intact.
  const char* text = R"(HloModule m
ENTRY e {
  x = s32[2,3]{1,0} iota(), iota_dimension=1
  three = s32[] constant(3)
  threes = s32[2,3]{1,0} broadcast(three), dimensions={}
  row = s32[2,3]{1,0} iota(), iota_dimension=0
  rows = s32[2,3]{1,0} multiply(row, threes)
  v = s32[2,3]{1,0} add(x, rows)
  t = s32[3,2]{0,1} bitcast(v)
  u = u8[4] constant({0, 1, 2, 255})
  p = pred[4] bitcast(u)
  w = s32[2,3]{1,0} add(x, rows)
  r = s32[6] reshape(w)
  ROOT o = (s32[3,2]{0,1}, pred[4], s32[6], s32[2,3]{1,0}) tuple(t, p, r, w)
})";
  absl::StatusOr<EvalResult> r = RunHlo(text);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.tuple_element(0),
            Lit("s32[3,2] {{0, 3}, {1, 4}, {2, 5}}"));
  EXPECT_EQ(r->value.tuple_element(1), Lit("pred[4] {0, 1, 1, 1}"));
  EXPECT_EQ(r->value.tuple_element(2), Lit("s32[6] {0, 1, 2, 3, 4, 5}"));
  EXPECT_EQ(r->value.tuple_element(3), Lit("s32[2,3] {{0, 1, 2}, {3, 4, 5}}"));
}

// The in-place path against the ops path, bit for bit: `b` reads the
// borrowed parameter (never taken: the ops compute it), `a` the same op on
// a copy read for the last time. Peak bytes tell which path `a` took: b
// and c are held (2N); the in-place path adds nothing, the ops path N.
struct RelabelCase {
  std::string from;  // operand shape with layout
  std::string to;    // result shape with layout
  std::string op;    // reshape or bitcast
  bool in_place;
};

void ExpectSameAsOpsPath(const RelabelCase& c, Literal arg) {
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  p = ", c.from, " parameter(0)\n  b = ", c.to,
      " ", c.op, "(p)\n  c = ", c.from, " copy(p)\n  a = ", c.to, " ", c.op,
      "(c)\n  ROOT t = (", c.to, ", ", c.to, ") tuple(a, b)\n}\n");
  const int64_t n = static_cast<int64_t>(arg.raw().size());
  std::vector<Literal> args;
  args.push_back(std::move(arg));
  absl::StatusOr<EvalResult> r = RunHlo(text, std::move(args));
  ASSERT_TRUE(r.ok()) << r.status() << "\n" << text;
  EXPECT_TRUE(
      r->value.tuple_element(0).BitwiseEquals(r->value.tuple_element(1)))
      << text << "\nin place: " << r->value.tuple_element(0).ToString()
      << "\nops: " << r->value.tuple_element(1).ToString();
  EXPECT_EQ(r->peak_bytes, (c.in_place ? 2 : 3) * n) << text;
}

// Distinct bits per element (a multiplicative hash of the index, cut to the
// type's width; sub-byte types and pred wrap to their range).
Literal Hashed(const Shape& shape) {
  Literal lit(shape);
  const PrimitiveType type = shape.element_type();
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    const uint64_t h = static_cast<uint64_t>(i + 1) * 0x9E3779B97F4A7C15ull;
    if (IsPred(type)) {
      lit.SetFromInt64(i, static_cast<int64_t>(h >> 60) & 1);
    } else if (BitWidth(type) < 8) {
      lit.SetFromInt64(i, i % 3);  // 0, 1, 2: in range of s4 and u4
    } else if (IsComplex(type)) {
      lit.SetFromComplex(i, {static_cast<double>(i) - 7, 0.5 * i});
    } else {
      lit.SetRawBits(i, h >> (64 - BitWidth(type)));
    }
  }
  return lit;
}

TEST(Memory, ReshapeAndBitcastInPlaceEqualTheOpsPath) {
  for (const std::string& t : testing_dm::SweepTypes()) {
    const std::string from = t + "[2,3,4]{2,1,0}";
    const std::vector<RelabelCase> cases = {
        {from, t + "[6,4]{1,0}", "reshape", true},
        {from, t + "[24]{0}", "reshape", true},
        {from, t + "[4,1,3,2]{3,2,1,0}", "reshape", true},
        // Layouts are metadata for reshape: still the same storage.
        {from, t + "[4,6]{0,1}", "reshape", true},
        // bitcast: row-major on both sides (size-1 dimensions anywhere).
        {from, t + "[6,4]{1,0}", "bitcast", true},
        {from, t + "[24,1]{0,1}", "bitcast", true},
        {from, t + "[2,1,12]{2,0,1}", "bitcast", true},
        // A transposing bitcast moves elements: the ops compute it.
        {from, t + "[4,6]{0,1}", "bitcast", false},
        {from, t + "[2,12]{0,1}", "bitcast", false},
        {from, t + "[1,2,12]{1,2,0}", "bitcast", false},
    };
    for (const RelabelCase& c : cases) {
      absl::StatusOr<Shape> shape = ParseShape(c.from);
      ASSERT_TRUE(shape.ok()) << shape.status();
      ExpectSameAsOpsPath(c, Hashed(*shape));
    }
  }
  // Bitcasts between types of the same storage width or across widths
  // (little-endian bytes): in place; to pred from another type (bytes
  // above 1 become true, impl.bitcast.1) and from a sub-byte type: ops.
  const std::vector<RelabelCase> typed = {
      {"f32[2,3]{1,0}", "s32[3,2]{1,0}", "bitcast", true},
      {"f32[2,3]{1,0}", "u8[2,3,4]{2,1,0}", "bitcast", true},
      {"u8[2,3,4]{2,1,0}", "bf16[2,3,2]{2,1,0}", "bitcast", true},
      {"c64[3]{0}", "f64[3]{0}", "bitcast", true},
      {"f64[2,2]{1,0}", "c64[4]{0}", "bitcast", true},
      {"bf16[4,2]{1,0}", "f16[8]{0}", "bitcast", true},
      {"u8[8]{0}", "pred[8]{0}", "bitcast", false},
      {"s8[2,4]{1,0}", "f8e4m3fn[8]{0}", "bitcast", true},
  };
  for (const RelabelCase& c : typed) {
    absl::StatusOr<Shape> shape = ParseShape(c.from);
    ASSERT_TRUE(shape.ok()) << shape.status();
    ExpectSameAsOpsPath(c, Hashed(*shape));
  }
}

// f32[n] with element i = i % m + 1.
Literal Cycle(int64_t n, int64_t m) {
  Literal lit(Shape::Array(PrimitiveType::kF32, {n}));
  auto d = lit.mutable_data<float>();
  for (int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(i % m + 1);
  return lit;
}

// Element-wise results written over an operand read for the last time
// (FusedBinaryFloat taking it: EvalContext::TakeOperandToOverwrite). a = p * p
// is new storage (p is the caller's), b, c and d each overwrite their dying
// operand: one f32[kN] held at the peak instead of two. With p = i % 1000
// + 1 every value is an exact small integer: a = p^2, b = p^2 + p, c =
// p^2, d = p. 1, 2 and 3 threads (kN is 32 chunks of the fused loop).
TEST(Memory, ElementwiseResultsOverwriteADyingOperand) {
  const std::string v = absl::StrCat("f32[", kN, "]");
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  p = ", v, " parameter(0)\n  a = ", v,
      " multiply(p, p)\n  b = ", v, " add(a, p)\n  c = ", v,
      " subtract(b, p)\n  ROOT d = ", v, " divide(c, p)\n}\n");
  for (int threads : {1, 2, 3}) {
    EvaluatorOptions options;
    options.threads = threads;
    std::vector<Literal> args;
    args.push_back(Cycle(kN, 1000));
    absl::StatusOr<EvalResult> r = RunHlo(text, std::move(args), options);
    ASSERT_TRUE(r.ok()) << r.status();
    auto d = r->value.data<float>();
    ASSERT_EQ(static_cast<int64_t>(d.size()), kN);
    for (int64_t i = 0; i < kN; ++i) {
      ASSERT_EQ(d[i], static_cast<float>(i % 1000 + 1)) << i;
    }
    EXPECT_GE(r->peak_bytes, kBytes);
    EXPECT_LT(r->peak_bytes, kBytes + 4096) << "threads " << threads;
  }
}

// An operand read again later is not overwritten: b = a + p leaves a for
// c = a * b (then both die: c may overwrite one). With p = i % 100 + 1,
// a = p^2 and b = p^2 + p are exact, and c is the f32 rounding of their
// exact product, computed here in double (48 bits: exact) and rounded once.
// Overwriting a with b would give b * b.
TEST(Memory, ElementwiseDoesNotOverwriteAnOperandReadLater) {
  const std::string v = absl::StrCat("f32[", kN, "]");
  const std::string text =
      absl::StrCat("HloModule m\nENTRY e {\n  p = ", v,
                   " parameter(0)\n  a = ", v, " multiply(p, p)\n  b = ", v,
                   " add(a, p)\n  ROOT c = ", v, " multiply(a, b)\n}\n");
  for (int threads : {1, 3}) {
    EvaluatorOptions options;
    options.threads = threads;
    std::vector<Literal> args;
    args.push_back(Cycle(kN, 100));
    absl::StatusOr<EvalResult> r = RunHlo(text, std::move(args), options);
    ASSERT_TRUE(r.ok()) << r.status();
    auto c = r->value.data<float>();
    ASSERT_EQ(static_cast<int64_t>(c.size()), kN);
    for (int64_t i = 0; i < kN; ++i) {
      const double p = static_cast<double>(i % 100 + 1);
      ASSERT_EQ(c[i], static_cast<float>(p * p * (p * p + p))) << i;
    }
  }
}

// NaN results of an element-wise op written in place (their bits come from
// the general path's code, recomputed from the operands before they are
// overwritten) equal those of the same op into new storage: `b = a + q`
// with a dying (in place) and with a returned too (not in place). NaN
// operands with payloads and signs, 0 * inf, inf - inf, over 3000
// elements (blocks of 1024 without NaN results, then with them). The
// in-place run holds one f32[3000] at its peak, the other two.
TEST(Memory, ElementwiseInPlaceNaNsEqualTheOpsPath) {
  const int64_t n = 3000;
  Literal p(Shape::Array(PrimitiveType::kF32, {n}));
  Literal q(Shape::Array(PrimitiveType::kF32, {n}));
  const uint32_t specials[] = {0x7f800001u, 0xffc00123u, 0x7fc00000u,
                               0x7f800000u, 0xff800000u, 0x00000000u,
                               0x80000000u, 0x3f800000u};
  uint64_t seed = 5;
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t r = static_cast<uint32_t>(seed >> 33);
    // Specials from element 1500 on: blocks without a NaN result, then
    // blocks with them.
    const uint32_t pb =
        (i >= 1500 && i % 7 == 0) ? specials[r % 8] : 0x3f000000u + r % 999;
    const uint32_t qb =
        (i >= 1500 && i % 5 == 0) ? specials[(r >> 8) % 8] : 0x40000000u;
    std::memcpy(&p.mutable_data<float>()[i], &pb, 4);
    std::memcpy(&q.mutable_data<float>()[i], &qb, 4);
  }
  const std::string v = absl::StrCat("f32[", n, "]");
  const std::string head = absl::StrCat(
      "HloModule m\nENTRY e {\n  p = ", v, " parameter(0)\n  q = ", v,
      " parameter(1)\n  a = ", v, " multiply(p, q)\n  b = ", v, " add(a, q)\n");
  for (int threads : {1, 3}) {
    EvaluatorOptions options;
    options.threads = threads;
    std::vector<Literal> args = {p, q};
    absl::StatusOr<EvalResult> in_place = RunHlo(
        absl::StrCat(head, "  ROOT r = ", v, " copy(b)\n}\n"), args, options);
    ASSERT_TRUE(in_place.ok()) << in_place.status();
    absl::StatusOr<EvalResult> kept = RunHlo(
        absl::StrCat(head, "  ROOT r = (", v, ", ", v, ") tuple(b, a)\n}\n"),
        args, options);
    ASSERT_TRUE(kept.ok()) << kept.status();
    EXPECT_TRUE(in_place->value.BitwiseEquals(kept->value.tuple_element(0)));
    int64_t nans = 0;
    for (float x : in_place->value.data<float>()) nans += std::isnan(x);
    EXPECT_GT(nans, 50);
    EXPECT_LT(in_place->peak_bytes, kept->peak_bytes);
  }
}

// The same for the other float types (the generic fused loop, not the f32
// SIMD kernel) and ops, with the dying operand on either side: `b = a OP
// q` and `b = q OP a` over bf16, f16, f64 and f32, for add, subtract,
// divide and remainder, with NaN of both signs, infinities, signed zeros
// and values that overflow the type or divide by zero.
TEST(Memory, ElementwiseInPlaceOtherTypesAndOpsEqualTheOpsPath) {
  const int64_t n = 2500;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double specials[] = {nan, -nan, inf, -inf, 0.0, -0.0, 1.0, 6e4, -3e38};
  for (const char* type : {"bf16", "f16", "f64", "f32"}) {
    const PrimitiveType t = *ParsePrimitiveType(type);
    Literal p(Shape::Array(t, {n}));
    Literal q(Shape::Array(t, {n}));
    uint64_t seed = 11;
    for (int64_t i = 0; i < n; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      const uint32_t r = static_cast<uint32_t>(seed >> 33);
      const double x = static_cast<double>(static_cast<int32_t>(r)) * 0x1p-28;
      p.SetFromDouble(i, (i % 6 == 0) ? specials[r % 9] : x);
      q.SetFromDouble(i, (i % 4 == 0) ? specials[(r >> 8) % 9] : 1.0 - x);
    }
    const std::string v = absl::StrCat(type, "[", n, "]");
    for (const char* op : {"add", "subtract", "divide", "remainder"}) {
      for (const bool lhs : {true, false}) {
        const std::string head = absl::StrCat(
            "HloModule m\nENTRY e {\n  p = ", v, " parameter(0)\n  q = ", v,
            " parameter(1)\n  a = ", v, " add(p, q)\n  b = ", v, " ", op,
            lhs ? "(a, q)\n" : "(q, a)\n");
        std::vector<Literal> args = {p, q};
        absl::StatusOr<EvalResult> in_place =
            RunHlo(absl::StrCat(head, "  ROOT r = ", v, " copy(b)\n}\n"), args);
        ASSERT_TRUE(in_place.ok()) << in_place.status();
        absl::StatusOr<EvalResult> kept =
            RunHlo(absl::StrCat(head, "  ROOT r = (", v, ", ", v,
                                ") tuple(b, a)\n}\n"),
                   args);
        ASSERT_TRUE(kept.ok()) << kept.status();
        EXPECT_TRUE(in_place->value.BitwiseEquals(kept->value.tuple_element(0)))
            << type << " " << op << (lhs ? " lhs" : " rhs");
        EXPECT_LT(in_place->peak_bytes, kept->peak_bytes)
            << type << " " << op << (lhs ? " lhs" : " rhs");
      }
    }
  }
}

// maximum / minimum written over a dying operand: values, don't-care
// masks (impl.maximum.1 / impl.minimum.1: a NaN operand, zeros of
// opposite signs) and ids equal to the run where the operand stays live,
// at a lower peak (the root a tuple in both runs: it forwards the masks
// element for element, where copy marks all); bf16, f16, f64 over 2500
// elements, f32 over 100,000 (four chunks, 1 and 3 threads: the marks are
// listed per chunk and recorded in element order); the dying operand on either
// side; and b = maximum(a, broadcast(0)) (a ReLU: the broadcast read in place,
// the result over a). The masks are checked to be non-empty.
TEST(Memory, ElementwiseInPlaceMaxMinEqualTheOpsPath) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double specials[] = {nan, -nan, inf, -inf, 0.0, -0.0, 1.0, -1.0};
  for (const char* type : {"bf16", "f16", "f64", "f32"}) {
    const int64_t n = std::string(type) == "f32" ? 100000 : 2500;
    const PrimitiveType t = *ParsePrimitiveType(type);
    Literal p(Shape::Array(t, {n}));
    Literal q(Shape::Array(t, {n}));
    uint64_t seed = 23;
    for (int64_t i = 0; i < n; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      const uint32_t r = static_cast<uint32_t>(seed >> 33);
      const double x = static_cast<double>(static_cast<int32_t>(r)) * 0x1p-28;
      // p + q: specials plus zero give the special (and -0 + -0 = -0).
      p.SetFromDouble(i, (i % 6 == 0) ? specials[r % 8] : x);
      q.SetFromDouble(i, (i % 4 == 0) ? specials[(r >> 8) % 8] : -x);
    }
    const std::string v = absl::StrCat(type, "[", n, "]");
    for (const char* body : {"maximum(a, q)", "minimum(q, a)", "minimum(a, q)",
                             "maximum(a, zb)"}) {
      // zb only where it is read (an unread broadcast is materialised).
      const bool relu = std::string(body).find("zb") != std::string::npos;
      const std::string head = absl::StrCat(
          "HloModule m\nENTRY e {\n  p = ", v, " parameter(0)\n  q = ", v,
          " parameter(1)\n  a = ", v, " add(p, q)\n",
          relu ? absl::StrCat("  zero = ", type, "[] constant(0)\n  zb = ", v,
                              " broadcast(zero), dimensions={}\n")
               : std::string(),
          "  b = ", v, " ", body, "\n");
      for (int threads : {1, 3}) {
        EvaluatorOptions options;
        options.threads = threads;
        std::vector<Literal> args = {p, q};
        absl::StatusOr<EvalResult> in_place =
            RunHlo(absl::StrCat(head, "  ROOT r = (", v, ") tuple(b)\n}\n"),
                   args, options);
        ASSERT_TRUE(in_place.ok()) << in_place.status();
        absl::StatusOr<EvalResult> kept =
            RunHlo(absl::StrCat(head, "  ROOT r = (", v, ", ", v,
                                ") tuple(b, a)\n}\n"),
                   args, options);
        ASSERT_TRUE(kept.ok()) << kept.status();
        const std::string where = absl::StrCat(type, " ", body, " ", threads);
        EXPECT_TRUE(in_place->value.tuple_element(0).BitwiseEquals(
            kept->value.tuple_element(0)))
            << where;
        ASSERT_TRUE(in_place->outputs[0].dont_care.has_value()) << where;
        ASSERT_TRUE(kept->outputs[0].dont_care.has_value()) << where;
        EXPECT_TRUE(in_place->outputs[0].dont_care->BitwiseEquals(
            *kept->outputs[0].dont_care))
            << where;
        EXPECT_EQ(in_place->outputs[0].impl_ids, kept->outputs[0].impl_ids)
            << where;
        EXPECT_LT(in_place->peak_bytes, kept->peak_bytes) << where;
        // One value of n elements (plus scalars) at the peak.
        EXPECT_LT(in_place->peak_bytes, n * StorageBytes(t) + 4096) << where;
      }
    }
  }
}

// select writes over on_true or on_false when it reads it for the last
// time, copying only the other operand's picked elements. Over f32[kN]
// with x = i % 1000 + 1, y = 2 (both arguments, not taken) and a = x + y
// (dying): select(p, a, m) with m = broadcast(-7) (read in place as a
// view) and p = (i % 3 == 0), and the same with the
// operands the other way round (select(q, m, a), q = !p), a scalar
// predicate, and a read again after the select (r = s + a: a must not be
// overwritten). Expected values by hand: a = i % 1000 + 3. Before the
// in-place select, a, m and a new result were held at once; before
// select read views, a and m.
TEST(Memory, SelectWritesOverADyingOperand) {
  const std::string v = absl::StrCat("f32[", kN, "]");
  const std::string b = absl::StrCat("pred[", kN, "]");
  Literal pl(Shape::Array(PrimitiveType::kPred, {kN}));
  Literal ql(Shape::Array(PrimitiveType::kPred, {kN}));
  for (int64_t i = 0; i < kN; ++i) {
    pl.mutable_data<bool>()[i] = i % 3 == 0;
    ql.mutable_data<bool>()[i] = i % 3 != 0;
  }
  Literal y(Shape::Array(PrimitiveType::kF32, {kN}));
  for (float& e : y.mutable_data<float>()) e = 2.0f;
  const std::string head = absl::StrCat(
      "HloModule m\nENTRY e {\n  x = ", v, " parameter(0)\n  y = ", v,
      " parameter(1)\n  p = ", b, " parameter(2)\n  t = pred[] parameter(3)\n",
      "  a = ", v, " add(x, y)\n  c = f32[] constant(-7)\n  m = ", v,
      " broadcast(c), dimensions={}\n");
  struct Case {
    std::string body;
    bool later_read;  // a read after the select
  };
  const std::vector<Case> cases = {
      {"  ROOT s = " + v + " select(p, a, m)\n}\n", false},
      {"  ROOT s = " + v + " select(p, m, a)\n}\n", false},
      {"  s = " + v + " select(p, a, m)\n  ROOT r = " + v + " add(s, a)\n}\n",
       true},
      {"  tb = " + b + " broadcast(t), dimensions={}\n  ROOT s = " + v +
           " select(tb, a, m)\n}\n",
       false},
      {"  ROOT s = " + v + " select(t, a, m)\n}\n", false},
  };
  for (const Case& c : cases) {
    for (bool flip : {false, true}) {
      std::vector<Literal> args;
      args.push_back(Cycle(kN, 1000));
      args.push_back(y);
      args.push_back(flip ? ql : pl);
      args.push_back(Literal::CreateR0<bool>(PrimitiveType::kPred, !flip));
      absl::StatusOr<EvalResult> r = RunHlo(head + c.body, std::move(args));
      ASSERT_TRUE(r.ok()) << r.status() << "\n" << c.body;
      auto got = r->value.data<float>();
      ASSERT_EQ(static_cast<int64_t>(got.size()), kN);
      const bool m_on_true =
          c.body.find("select(p, m, a)") != std::string::npos;
      const bool scalar = c.body.find("(t") != std::string::npos ||
                          c.body.find("(tb") != std::string::npos;
      for (int64_t i = 0; i < kN; ++i) {
        const bool pick = scalar ? !flip : (flip ? i % 3 != 0 : i % 3 == 0);
        const float a = static_cast<float>(i % 1000 + 3);
        float want = pick != m_on_true ? a : -7.0f;
        if (c.later_read) want += a;
        ASSERT_EQ(got[i], want) << c.body << " flip " << flip << " i " << i;
      }
      // m is read in place (a view: select reads views since session 13),
      // so a (and the pred broadcast tb) and the result over a: one value;
      // two where a is read again (the result is new, then r over s).
      const int64_t tb = c.body.find("tb") != std::string::npos ? kN : 0;
      const int64_t values = c.later_read ? 2 : 1;
      EXPECT_GE(r->peak_bytes, values * kBytes + tb) << c.body;
      EXPECT_LT(r->peak_bytes, values * kBytes + tb + 4096) << c.body;
    }
  }
}

// Unary ops written over a dying operand (FusedUnaryFloat taking it):
// b = OP(a) with a = p + q read for the last time, against the run where
// a stays live (returned too), bit for bit: the rounding ops, sign, sqrt
// and the transcendentals, bf16 / f16 / f64 over 3,000 elements and f32
// over 70,000 (three chunks, 1 and 3 threads), with NaN of both signs and
// payloads, infinities, signed zeros, negatives (NaN for sqrt, log,
// rsqrt), subnormals, halves (ties for the roundings) and values where
// exp / logistic / tanh overflow, underflow or need MPFR. Peak one value
// in place, two otherwise. (Fails when the in-place math path re-reads
// the overwritten operand for the MPFR pass.)
TEST(Memory, ElementwiseUnaryInPlaceEqualTheOpsPath) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double specials[] = {nan,   -nan, inf,  -inf,    0.0,    -0.0,
                             2.5,   -3.5, 0.5,  -1e-40,  1e-310, 100.0,
                             -100., 1e5,  -1e5, 88.7228, -87.34, 11.09};
  for (const char* type : {"bf16", "f16", "f64", "f32"}) {
    const int64_t n = std::string(type) == "f32" ? 70000 : 3000;
    const PrimitiveType t = *ParsePrimitiveType(type);
    Literal p(Shape::Array(t, {n}));
    Literal q(Shape::Array(t, {n}));
    uint64_t seed = 29;
    for (int64_t i = 0; i < n; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      const uint32_t r = static_cast<uint32_t>(seed >> 33);
      const double x = static_cast<double>(static_cast<int32_t>(r)) * 0x1p-27;
      p.SetFromDouble(i, (i % 5 == 0) ? specials[r % 18] : x);
      q.SetFromDouble(i, (i % 7 == 0) ? specials[(r >> 8) % 18] : 0.0);
    }
    const std::string v = absl::StrCat(type, "[", n, "]");
    for (const char* op :
         {"ceil", "floor", "round-nearest-afz", "round-nearest-even", "sign",
          "sqrt", "exponential", "log", "logistic", "tanh", "rsqrt"}) {
      const std::string head =
          absl::StrCat("HloModule m\nENTRY e {\n  p = ", v,
                       " parameter(0)\n  q = ", v, " parameter(1)\n  a = ", v,
                       " add(p, q)\n  b = ", v, " ", op, "(a)\n");
      for (int threads : {1, 3}) {
        if (threads == 3 && n < 70000) continue;
        EvaluatorOptions options;
        options.threads = threads;
        std::vector<Literal> args = {p, q};
        absl::StatusOr<EvalResult> in_place =
            RunHlo(absl::StrCat(head, "  ROOT r = (", v, ") tuple(b)\n}\n"),
                   args, options);
        ASSERT_TRUE(in_place.ok()) << in_place.status();
        absl::StatusOr<EvalResult> kept =
            RunHlo(absl::StrCat(head, "  ROOT r = (", v, ", ", v,
                                ") tuple(b, a)\n}\n"),
                   args, options);
        ASSERT_TRUE(kept.ok()) << kept.status();
        const std::string where = absl::StrCat(type, " ", op, " ", threads);
        EXPECT_TRUE(in_place->value.tuple_element(0).BitwiseEquals(
            kept->value.tuple_element(0)))
            << where;
        EXPECT_LT(in_place->peak_bytes, kept->peak_bytes) << where;
      }
    }
  }
}

TEST(Memory, ProgressReportsEntryInstructions) {
  EvaluatorOptions options;
  options.progress_interval = absl::ZeroDuration();
  std::vector<EvaluatorOptions::Progress> seen;
  options.progress = [&](const EvaluatorOptions::Progress& p) {
    seen.push_back(p);
  };
  absl::StatusOr<EvalResult> r = RunHlo(Chain(4), {}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_FALSE(seen.empty());
  // c, x0..x4, r: 7 entry instructions.
  EXPECT_EQ(seen.back().entry_total, 7);
  EXPECT_EQ(seen.back().entry_done, 7);
  for (size_t k = 1; k < seen.size(); ++k) {
    EXPECT_GE(seen[k].entry_done, seen[k - 1].entry_done);
  }
}

}  // namespace
}  // namespace hloref

namespace hloref {
namespace {

// EvaluatorOptions::threads: large dots are split by output blocks; every
// thread count gives the same bits (each output is its own exact sum).
// Values with many significant bits and mixed signs make rounding matter.
TEST(Threads, DotIsBitIdenticalForEveryThreadCount) {
  const char* text = R"(HloModule m
ENTRY e {
  a = f32[3,700] parameter(0)
  b = f32[700,2100] parameter(1)
  ROOT d = bf16[3,2100] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  auto fill = [](std::vector<int64_t> dims, uint64_t seed) {
    Literal lit(Shape::Array(PrimitiveType::kF32, dims));
    for (float& x : lit.mutable_data<float>()) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      x = static_cast<float>(static_cast<int32_t>(seed >> 32)) * 0x1p-20f;
    }
    return lit;
  };
  std::vector<Literal> args;
  args.push_back(fill({3, 700}, 1));
  args.push_back(fill({700, 2100}, 2));
  std::vector<Literal> results;
  for (int threads : {1, 2, 3, 8}) {
    EvaluatorOptions options;
    options.threads = threads;
    std::vector<Literal> copy = args;
    absl::StatusOr<EvalResult> r = RunHlo(text, std::move(copy), options);
    ASSERT_TRUE(r.ok()) << r.status();
    results.push_back(std::move(r->value));
  }
  for (size_t k = 1; k < results.size(); ++k) {
    EXPECT_TRUE(results[k].BitwiseEquals(results[0])) << "thread case " << k;
  }
  // Spot check of one element against an independent computation: the
  // double sum of 700 products of 24-bit values is exact only up to
  // rounding, so compare to bf16 precision (2^-8 relative).
  double sum = 0;
  for (int k = 0; k < 700; ++k) {
    sum += static_cast<double>(args[0].data<float>()[k]) *
           args[1].data<float>()[static_cast<size_t>(k) * 2100];
  }
  EXPECT_NEAR(results[0].GetAsDouble(0), sum, std::fabs(sum) * 0x1p-8 + 1e-6);
}

}  // namespace
}  // namespace hloref

// ---- Broadcasts read in place (EvaluatorOptions::broadcast_views,
// interpreter/ops/broadcast_view.h).
namespace hloref {
namespace {

// BroadcastView::Gather and SourceIndex against the broadcast's definition
// computed here: result index (i_0, ..., i_{r-1}) reads the source element
// whose index in operand dimension k is i_{dims[k]}, or 0 where the
// operand dimension has size 1; row-major on both sides. Every element,
// and runs from random starting points of random lengths (crossing rows).
TEST(BroadcastViews, GatherReadsWhatTheBroadcastDefines) {
  struct Case {
    std::vector<int64_t> in, out, dims;
  };
  const std::vector<Case> cases = {
      {{}, {7}, {}},
      {{}, {3, 1, 5}, {}},
      {{6}, {6, 9}, {0}},
      {{9}, {6, 9}, {1}},
      {{4, 1}, {4, 3, 5}, {0, 2}},  // size 1 mapped to 5: repeats
      {{1, 5}, {4, 1, 5}, {1, 2}},
      {{3, 4}, {3, 2, 4, 2}, {0, 2}},
      {{2, 3}, {3, 2}, {1, 0}},  // dimensions out of order: a transpose
      {{5}, {1, 5, 1, 1}, {1}},
      {{2, 3, 4}, {2, 3, 4}, {0, 1, 2}},
  };
  uint64_t seed = 3;
  for (const Case& c : cases) {
    Literal src(Shape::Array(PrimitiveType::kF32, c.in));
    auto s = src.mutable_data<float>();
    for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<float>(i + 1);
    const Shape out = Shape::Array(PrimitiveType::kF32, c.out);
    std::optional<BroadcastView> view = BroadcastView::Make(src, out, c.dims);
    ASSERT_TRUE(view.has_value());
    const int64_t n = out.num_elements();
    ASSERT_EQ(view->element_count(), n);
    std::vector<float> want(static_cast<size_t>(n));
    for (int64_t linear = 0; linear < n; ++linear) {
      std::vector<int64_t> idx(c.out.size());
      int64_t rest = linear;
      for (size_t d = c.out.size(); d-- > 0;) {
        idx[d] = rest % c.out[d];
        rest /= c.out[d];
      }
      int64_t src_linear = 0;
      for (size_t k = 0; k < c.in.size(); ++k) {
        src_linear = src_linear * c.in[k] + (c.in[k] == 1 ? 0 : idx[c.dims[k]]);
      }
      want[static_cast<size_t>(linear)] = s[static_cast<size_t>(src_linear)];
      ASSERT_EQ(view->SourceIndex(linear), src_linear) << linear;
    }
    std::vector<uint32_t> got(static_cast<size_t>(n));
    view->Gather(0, n, got.data());
    for (int64_t i = 0; i < n; ++i) {
      float f;
      std::memcpy(&f, &got[static_cast<size_t>(i)], 4);
      ASSERT_EQ(f, want[static_cast<size_t>(i)]) << i;
    }
    for (int trial = 0; trial < 50; ++trial) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      const int64_t begin = static_cast<int64_t>(seed >> 33) % n;
      const int64_t len = 1 + static_cast<int64_t>(seed >> 17) % (n - begin);
      std::vector<uint32_t> part(static_cast<size_t>(len));
      view->Gather(begin, len, part.data());
      for (int64_t i = 0; i < len; ++i) {
        float f;
        std::memcpy(&f, &part[static_cast<size_t>(i)], 4);
        ASSERT_EQ(f, want[static_cast<size_t>(begin + i)]) << begin << "+" << i;
      }
    }
    Literal expected(out);
    std::memcpy(expected.mutable_raw().data(), want.data(), want.size() * 4);
    EXPECT_TRUE(view->Materialize().BitwiseEquals(expected));
  }
  // Shapes that do not fit give no view (the broadcast reports them).
  Literal v6(Shape::Array(PrimitiveType::kF32, {6}));
  EXPECT_FALSE(
      BroadcastView::Make(v6, Shape::Array(PrimitiveType::kF32, {5, 7}), {1})
          .has_value());
  EXPECT_FALSE(
      BroadcastView::Make(v6, Shape::Array(PrimitiveType::kF16, {6, 7}), {0})
          .has_value());
}

// A layer-norm tail: per-row mean and scale (dimensions={0}), per-column
// gain (dimensions={1}) and a scalar bias, over f32[256,1024] (1 MiB).
// With views no broadcast is materialised: xc is the only f32[256,1024]
// value the run allocates (the multiply and add write over it in place);
// without, a broadcast and the value it feeds are held together.
// x = i % 1000, mean = r % 7, scale = r % 3 + 1, gain = c % 5 + 1,
// bias 0.5: every intermediate is an integer or half-integer below 2^24,
// so the f32 results are exact and computed here in double.
TEST(BroadcastViews, LayerNormTailIsExactAndHoldsOneValue) {
  const int64_t rows = 256, cols = 1024;
  const std::string v = absl::StrCat("f32[", rows, ",", cols, "]");
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  x = ", v, " parameter(0)\n  mean = f32[", rows,
      "] parameter(1)\n  scale = f32[", rows, "] parameter(2)\n  gain = f32[",
      cols, "] parameter(3)\n  half = f32[] constant(0.5)\n  mb = ", v,
      " broadcast(mean), dimensions={0}\n  xc = ", v,
      " subtract(x, mb)\n  sb = ", v,
      " broadcast(scale), dimensions={0}\n  xs = ", v,
      " multiply(xc, sb)\n  gb = ", v,
      " broadcast(gain), dimensions={1}\n  xg = ", v,
      " multiply(gb, xs)\n  hb = ", v,
      " broadcast(half), dimensions={}\n  ROOT y = ", v, " add(xg, hb)\n}\n");
  Literal x(Shape::Array(PrimitiveType::kF32, {rows, cols}));
  Literal mean(Shape::Array(PrimitiveType::kF32, {rows}));
  Literal scale(Shape::Array(PrimitiveType::kF32, {rows}));
  Literal gain(Shape::Array(PrimitiveType::kF32, {cols}));
  for (int64_t i = 0; i < rows * cols; ++i) {
    x.mutable_data<float>()[i] = static_cast<float>(i % 1000);
  }
  for (int64_t r = 0; r < rows; ++r) {
    mean.mutable_data<float>()[r] = static_cast<float>(r % 7);
    scale.mutable_data<float>()[r] = static_cast<float>(r % 3 + 1);
  }
  for (int64_t c = 0; c < cols; ++c) {
    gain.mutable_data<float>()[c] = static_cast<float>(c % 5 + 1);
  }
  const int64_t bytes = rows * cols * 4;
  std::vector<Literal> results;
  for (bool views : {true, false}) {
    for (int threads : {1, 2, 3}) {
      EvaluatorOptions options;
      options.threads = threads;
      options.broadcast_views = views;
      absl::StatusOr<EvalResult> r =
          RunHlo(text, {x, mean, scale, gain}, options);
      ASSERT_TRUE(r.ok()) << r.status();
      auto y = r->value.data<float>();
      for (int64_t i = 0; i < rows * cols; ++i) {
        const int64_t row = i / cols, col = i % cols;
        const double want =
            (static_cast<double>(i % 1000) - static_cast<double>(row % 7)) *
                static_cast<double>(row % 3 + 1) *
                static_cast<double>(col % 5 + 1) +
            0.5;
        ASSERT_EQ(y[i], static_cast<float>(want)) << i;
      }
      if (views) {
        EXPECT_GE(r->peak_bytes, bytes);
        EXPECT_LT(r->peak_bytes, bytes + 4096) << "threads " << threads;
      } else {
        EXPECT_GE(r->peak_bytes, 2 * bytes) << "threads " << threads;
      }
      results.push_back(std::move(r->value));
    }
  }
}

// A view's source is not overwritten while the view is still to be read,
// and lives until then: `a` is read by the view ab and, for the last time
// by name, by b = a + p, which would write over a if it could take it;
// then t = transpose(q) needs a value of a's size, which the buffer cache
// would hand out from a's storage had a been freed after b. c = ab * bb
// then reads a through the view: c[j, i] = a_i * b_i = p^2 (p^2 + p),
// exact in double (p <= 100), rounded once to f32 here. (Overwriting a
// gives b * b, reading freed storage the transpose's values.)
TEST(BroadcastViews, ASourceOutlivesItsViewAndIsNotOverwritten) {
  const int64_t rows = 512, cols = 256, n = rows * cols;
  const std::string v = absl::StrCat("f32[", rows, ",", cols, "]");
  const std::string w = absl::StrCat("f32[2,", rows, ",", cols, "]");
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  p = ", v, " parameter(0)\n  q = f32[", cols,
      ",", rows, "] parameter(1)\n  a = ", v, " multiply(p, p)\n  ab = ", w,
      " broadcast(a), dimensions={1,2}\n  b = ", v, " add(a, p)\n  t = ", v,
      " transpose(q), dimensions={1,0}\n  bb = ", w,
      " broadcast(b), dimensions={1,2}\n  c = ", w,
      " multiply(ab, bb)\n  ROOT r = (", w, ", ", v, ") tuple(c, t)\n}\n");
  Literal p(Shape::Array(PrimitiveType::kF32, {rows, cols}));
  Literal q(Shape::Array(PrimitiveType::kF32, {cols, rows}));
  for (int64_t i = 0; i < n; ++i) {
    p.mutable_data<float>()[i] = static_cast<float>(i % 100 + 1);
    q.mutable_data<float>()[i] = -1.0f;
  }
  for (int threads : {1, 3}) {
    EvaluatorOptions options;
    options.threads = threads;
    absl::StatusOr<EvalResult> r = RunHlo(text, {p, q}, options);
    ASSERT_TRUE(r.ok()) << r.status();
    auto c = r->value.tuple_element(0).data<float>();
    ASSERT_EQ(static_cast<int64_t>(c.size()), 2 * n);
    for (int64_t i = 0; i < 2 * n; ++i) {
      const double x = static_cast<double>(i % n % 100 + 1);
      ASSERT_EQ(c[i], static_cast<float>(x * x * (x * x + x))) << i;
    }
  }
}

// Views against materialised broadcasts, bit for bit (values, don't-care
// masks and their ids): bf16, f16, f64 and f32; add, subtract, multiply,
// divide, remainder, maximum, minimum; the broadcast as lhs, as rhs and
// as both; per-row, per-column, scalar and size-1-dimension broadcasts;
// NaN of both signs with payloads, infinities, signed zeros, values that
// overflow the type, division by zero; 1 and 3 threads over 96,000
// elements (three chunks of the fused loop), with long and short rows.
// With the fused path switched off
// (SetElementwiseFusedPathDisabledForTesting) the views are materialised
// by the op, with the same results.
void CompareViewsWithMaterialisedBroadcasts(int64_t rows, int64_t cols,
                                            std::vector<const char*> types) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double specials[] = {nan, -nan, inf, -inf, 0.0, -0.0, 1.0, 6e4, -3e38};
  struct Bcast {
    const char* operand;  // operand dims, "R" rows, "C" columns
    const char* dims;
  };
  const Bcast kinds[] = {
      {"[R]", "{0}"}, {"[C]", "{1}"}, {"[]", "{}"}, {"[R,1]", "{0,1}"}};
  int64_t compared = 0;
  for (const char* type : types) {
    const PrimitiveType t = *ParsePrimitiveType(type);
    Literal p(Shape::Array(t, {rows, cols}));
    uint64_t seed = 17;
    auto draw = [&](int64_t i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      const uint32_t r = static_cast<uint32_t>(seed >> 33);
      if (i % 5 == 0) return specials[r % 9];
      return static_cast<double>(static_cast<int32_t>(r)) * 0x1p-28;
    };
    for (int64_t i = 0; i < rows * cols; ++i) p.SetFromDouble(i, draw(i));
    for (const Bcast& k : kinds) {
      std::string odims = absl::StrReplaceAll(
          k.operand, {{"R", absl::StrCat(rows)}, {"C", absl::StrCat(cols)}});
      const std::vector<int64_t> sdims =
          std::string(k.operand) == "[R]"   ? std::vector<int64_t>{rows}
          : std::string(k.operand) == "[C]" ? std::vector<int64_t>{cols}
          : std::string(k.operand) == "[]"  ? std::vector<int64_t>{}
                                            : std::vector<int64_t>{rows, 1};
      Literal s(Shape::Array(t, sdims));
      for (int64_t i = 0; i < s.element_count(); ++i) {
        s.SetFromDouble(i, draw(i * 3));
      }
      const std::string v = absl::StrCat(type, "[", rows, ",", cols, "]");
      for (const char* op : {"add", "subtract", "multiply", "divide",
                             "remainder", "maximum", "minimum"}) {
        for (const char* form : {"(p, sb)", "(sb, p)", "(sb, sb)"}) {
          const std::string text = absl::StrCat(
              "HloModule m\nENTRY e {\n  p = ", v,
              " parameter(0)\n  s = ", type, odims, " parameter(1)\n  sb = ", v,
              " broadcast(s), dimensions=", k.dims, "\n  ROOT r = ", v, " ", op,
              form, "\n}\n");
          for (bool fused_off : {false, true}) {
            SetElementwiseFusedPathDisabledForTesting(fused_off);
            for (int threads : {1, 3}) {
              std::vector<EvalResult> got;
              for (bool views : {true, false}) {
                EvaluatorOptions options;
                options.threads = threads;
                options.broadcast_views = views;
                absl::StatusOr<EvalResult> r = RunHlo(text, {p, s}, options);
                ASSERT_TRUE(r.ok()) << r.status() << "\n" << text;
                got.push_back(*std::move(r));
              }
              const std::string where =
                  absl::StrCat(type, " ", op, form, " ", k.operand, " threads ",
                               threads, fused_off ? " general path" : "");
              EXPECT_TRUE(got[0].value.BitwiseEquals(got[1].value)) << where;
              ASSERT_EQ(got[0].outputs.size(), 1u);
              ASSERT_EQ(got[1].outputs.size(), 1u);
              const auto& m0 = got[0].outputs[0].dont_care;
              const auto& m1 = got[1].outputs[0].dont_care;
              ASSERT_EQ(m0.has_value(), m1.has_value()) << where;
              if (m0.has_value()) {
                EXPECT_TRUE(m0->BitwiseEquals(*m1)) << where;
              }
              EXPECT_EQ(got[0].outputs[0].impl_ids, got[1].outputs[0].impl_ids)
                  << where;
              // The view run holds the result only; the other also the
              // materialised broadcast, except where the op writes its
              // result over the dying broadcast (in place: not when the op
              // reads it twice, nor on the general path).
              const bool in_place =
                  !fused_off && std::string(form) != "(sb, sb)";
              if (in_place) {
                EXPECT_EQ(got[0].peak_bytes, got[1].peak_bytes) << where;
              } else {
                EXPECT_LT(got[0].peak_bytes, got[1].peak_bytes) << where;
              }
              ++compared;
            }
          }
          SetElementwiseFusedPathDisabledForTesting(false);
        }
      }
    }
  }
  EXPECT_EQ(compared, static_cast<int64_t>(types.size()) * 4 * 7 * 3 * 2 * 2);
}

// Rows of 1000: read in place (stride 1) or one repeated value (stride
// 0), row by row (BroadcastView::Reader).
TEST(BroadcastViews, EqualMaterialisedBroadcastsBitForBit) {
  CompareViewsWithMaterialisedBroadcasts(96, 1000,
                                         {"bf16", "f16", "f64", "f32"});
}

// Rows of 32 (below BroadcastView::kMinRow): blocks of 1024 gathered
// across rows.
TEST(BroadcastViews, EqualMaterialisedBroadcastsWithShortRows) {
  CompareViewsWithMaterialisedBroadcasts(3000, 32, {"f32", "f16"});
}

// A broadcast with a reader that does not read views (here exponential
// and a dot-free reduce) is materialised for all of its readers; one read
// only by element-wise ops of another result type (compare) too. The
// values are derived by hand: s = 2, x = 1: x * sb = 2, exp(0) = 1 from
// the subtract, the reduce sums 2 over 8 elements = 16.
// select reads on_true / on_false given as broadcasts in place (a masked
// fill: select(mask, scores, broadcast(-inf)) and the mirror image, a
// row broadcast on the true side), block by block: the values are those
// computed here element by element (an array predicate; a scalar one
// picks a whole side), for f32 / bf16 / s32 (4, 2 and 4 bytes) and at 1 and 3
// threads (expected values read back from the literals, so bf16's
// rounding of the row is the test's too), and with views the broadcasts
// are never materialised: one value is held at a time (a, then the
// result written over it), against two without views.
TEST(BroadcastViews, SelectReadsOnTrueAndOnFalseInPlace) {
  const int64_t rows = 64, cols = 1000;
  for (const char* type : {"f32", "bf16", "s32"}) {
    const PrimitiveType t = std::string(type) == "f32"    ? PrimitiveType::kF32
                            : std::string(type) == "bf16" ? PrimitiveType::kBF16
                                                          : PrimitiveType::kS32;
    const std::string v = absl::StrCat(type, "[", rows, ",", cols, "]");
    const std::string text = absl::StrCat(
        "HloModule m\nENTRY e {\n  x = ", v, " parameter(0)\n  mask = pred[",
        rows, ",", cols, "] parameter(1)\n  fill = ", type,
        "[] parameter(2)\n  row = ", type, "[", cols,
        "] parameter(3)\n  fb = ", v,
        " broadcast(fill), dimensions={}\n  a = ", v,
        " select(mask, x, fb)\n  rb = ", v,
        " broadcast(row), dimensions={1}\n  ROOT b = ", v,
        " select(mask, rb, a)\n}\n");
    Literal x(Shape::Array(t, {rows, cols}));
    Literal mask(Shape::Array(PrimitiveType::kPred, {rows, cols}));
    Literal row(Shape::Array(t, {cols}));
    for (int64_t i = 0; i < rows * cols; ++i) {
      x.SetFromDouble(i, static_cast<double>(i % 97));
      mask.SetFromInt64(i, (i * 7 + i / cols) % 3 == 0 ? 1 : 0);
    }
    for (int64_t c = 0; c < cols; ++c) {
      row.SetFromDouble(c, static_cast<double>(1000 + c % 11));
    }
    const Literal fill = t == PrimitiveType::kS32   ? Lit("s32[] -7")
                         : t == PrimitiveType::kF32 ? Lit("f32[] -inf")
                                                    : Lit("bf16[] -inf");
    const int64_t bytes = rows * cols * StorageBytes(t);
    for (bool views : {true, false}) {
      for (int threads : {1, 3}) {
        EvaluatorOptions options;
        options.threads = threads;
        options.broadcast_views = views;
        absl::StatusOr<EvalResult> r =
            RunHlo(text, {x, mask, fill, row}, options);
        ASSERT_TRUE(r.ok()) << r.status();
        for (int64_t i = 0; i < rows * cols; ++i) {
          // a = mask ? x : fill; b = mask ? row : a = mask ? row : fill.
          const bool m = (i * 7 + i / cols) % 3 == 0;
          const double want =
              m ? row.GetAsDouble(i % cols) : fill.GetAsDouble(0);
          ASSERT_EQ(r->value.GetAsDouble(i), want)
              << type << " views " << views << " element " << i;
        }
        if (views) {
          // a (x is an argument, not owned: a is new storage), then the
          // result b written over a: one value at a time.
          EXPECT_GE(r->peak_bytes, bytes);
          EXPECT_LT(r->peak_bytes, bytes + 4096)
              << type << " threads " << threads;
        } else {
          // fb then a over it, rb beside a: two values.
          EXPECT_GE(r->peak_bytes, 2 * bytes) << type;
        }
      }
    }
  }
  // A scalar predicate picks a whole side: the row broadcast or x.
  const char* scalar = R"(HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  sp = pred[] parameter(1)
  row = f32[3] parameter(2)
  rb = f32[2,3] broadcast(row), dimensions={1}
  ROOT s = f32[2,3] select(sp, rb, x)
})";
  for (bool pick : {true, false}) {
    absl::StatusOr<EvalResult> r =
        RunHlo(scalar, {Lit("f32[2,3] {{1,2,3},{4,5,6}}"),
                        Lit(pick ? "pred[] true" : "pred[] false"),
                        Lit("f32[3] {7,8,9}")});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->value, pick ? Lit("f32[2,3] {{7,8,9},{7,8,9}}")
                             : Lit("f32[2,3] {{1,2,3},{4,5,6}}"));
  }
}

TEST(BroadcastViews, ReadersThatCannotReadViewsGetTheBroadcast) {
  const char* text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,4] parameter(0)
  s = f32[] parameter(1)
  zero = f32[] constant(0)
  sb = f32[2,4] broadcast(s), dimensions={}
  m = f32[2,4] multiply(x, sb)
  sum = f32[] reduce(sb, zero), dimensions={0,1}, to_apply=add
  d = f32[2,4] subtract(m, sb)
  e = f32[2,4] exponential(d)
  tb = f32[2,4] broadcast(s), dimensions={}
  c = pred[2,4] compare(m, tb), direction=EQ
  ROOT r = (f32[2,4], f32[], f32[2,4], pred[2,4]) tuple(m, sum, e, c)
})";
  absl::StatusOr<EvalResult> r =
      RunHlo(text, {Lit("f32[2,4] {{1,1,1,1},{1,1,1,1}}"), Lit("f32[] 2")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(
      r->value,
      Lit("(f32[2,4], f32[], f32[2,4], pred[2,4]) ({{2,2,2,2},{2,2,2,2}}, "
          "16, {{1,1,1,1},{1,1,1,1}}, {{1,1,1,1},{1,1,1,1}})"));
}

}  // namespace
}  // namespace hloref
