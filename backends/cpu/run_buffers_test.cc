// Executable::Run's buffers (cpu_backend.cc): argument leaves whose
// storage already is the buffer compiled code expects are passed by
// pointer, result leaves are written straight into the returned literals,
// and every other leaf is copied. These tests check the cases where that
// could go wrong: one parameter read twice, a parameter returned as the
// result, non-default layouts (copied), tuples, dynamic shapes, empty
// arrays, and repeated runs. Every expected value is derived by hand in
// the test's comment.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_test_util.h"
#include "spec/ir/hlo_parser.h"

namespace hloref::cpu {
namespace {

using ::testing::ElementsAre;

Literal F32(std::vector<float> v) {
  return Literal::CreateR1<float>(PrimitiveType::kF32, v);
}

Literal F32Matrix(int64_t rows, int64_t cols, std::vector<float> v) {
  return Literal::CreateFromValues<float>(PrimitiveType::kF32, {rows, cols}, v);
}

std::unique_ptr<backends::Executable> Compile(absl::string_view text,
                                              int threads = 1) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  CpuBackendOptions options;
  options.threads = threads;
  options.compile_cache = false;
  auto backend = CreateCpuBackend(options);
  EXPECT_TRUE(backend.ok()) << backend.status();
  if (!backend.ok()) return nullptr;
  auto exe = (*backend)->Compile(**module, {});
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!exe.ok()) return nullptr;
  return *std::move(exe);
}

TEST(CpuRunBuffers, OneParameterReadTwiceAndEqualArguments) {
  // a * a - b * 2 with a = b = {1, 2, 3} (one a read by two operands of
  // one multiply, the same storage handed to two loads):
  // {1-2, 4-4, 9-6} = {-1, 0, 3}; the arguments are unchanged. (A span of
  // Literals holds distinct objects, so two arguments never share
  // storage through Run's interface; read-only sharing is what one
  // parameter read twice exercises.)
  auto exe = Compile(R"(
HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  aa = f32[3] multiply(a, a)
  two = f32[] constant(2)
  t = f32[3] broadcast(two), dimensions={}
  m = f32[3] multiply(b, t)
  ROOT r = f32[3] subtract(aa, m)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> args;
  args.push_back(F32({1, 2, 3}));
  args.push_back(F32({1, 2, 3}));
  auto out = exe->Run(args);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(-1, 0, 3));
  EXPECT_THAT(args[0].data<float>(), ElementsAre(1, 2, 3));
  EXPECT_THAT(args[1].data<float>(), ElementsAre(1, 2, 3));
}

TEST(CpuRunBuffers, ParameterReturnedIsACopyNotTheArgument) {
  // ROOT is the parameter itself and, in a tuple, the parameter twice: the
  // results hold {5, 6} and live in their own storage, so writing to a
  // result leaves the argument {5, 6} (and the other result) alone.
  auto exe = Compile(R"(
HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT t = (f32[2], f32[2], f32[2]) tuple(a, a, a)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> args;
  args.push_back(F32({5, 6}));
  auto out = exe->Run(args);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  for (const Literal& r : *out) {
    EXPECT_THAT(r.data<float>(), ElementsAre(5, 6));
    EXPECT_NE(r.raw().data(), args[0].raw().data());
  }
  (*out)[0].mutable_data<float>()[0] = 42;
  EXPECT_THAT(args[0].data<float>(), ElementsAre(5, 6));
  EXPECT_THAT((*out)[1].data<float>(), ElementsAre(5, 6));
}

TEST(CpuRunBuffers, NonDefaultLayoutsAreConverted) {
  // a = [[1, 2, 3], [4, 5, 6]] (logical, row-major in the literal) into a
  // column-major parameter; the result is column-major too. a + a
  // = [[2, 4, 6], [8, 10, 12]] logically; the returned literal keeps its
  // storage row-major, so data() reads 2 4 6 8 10 12. The transposed
  // result (layout {1,0} of a [3,2]) is [[1, 4], [2, 5], [3, 6]].
  auto exe = Compile(R"(
HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  s = f32[2,3]{0,1} add(a, a)
  t = f32[3,2]{1,0} transpose(a), dimensions={1,0}
  ROOT r = (f32[2,3]{0,1}, f32[3,2]{1,0}) tuple(s, t)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> args;
  args.push_back(F32Matrix(2, 3, {1, 2, 3, 4, 5, 6}));
  auto out = exe->Run(args);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(2, 4, 6, 8, 10, 12));
  EXPECT_THAT((*out)[1].data<float>(), ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_THAT(args[0].data<float>(), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(CpuRunBuffers, TupleParameterAndNestedTupleResult) {
  // p = ({1, 2}, {10, 20, 30} s32): results ((x + x), (y + 1, x)) by hand
  // = (({2, 4}), ({11, 21, 31}, {1, 2})), flattened depth first.
  auto exe = Compile(R"(
HloModule m
ENTRY e {
  p = (f32[2], s32[3]) parameter(0)
  x = f32[2] get-tuple-element(p), index=0
  y = s32[3] get-tuple-element(p), index=1
  xx = f32[2] add(x, x)
  one = s32[] constant(1)
  ones = s32[3] broadcast(one), dimensions={}
  y1 = s32[3] add(y, ones)
  inner = (s32[3], f32[2]) tuple(y1, x)
  ROOT r = (f32[2], (s32[3], f32[2])) tuple(xx, inner)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> elements;
  elements.push_back(F32({1, 2}));
  elements.push_back(
      Literal::CreateR1<int32_t>(PrimitiveType::kS32, {10, 20, 30}));
  std::vector<Literal> args;
  args.push_back(Literal::MakeTuple(std::move(elements)));
  auto out = exe->Run(args);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_THAT((*out)[0].data<float>(), ElementsAre(2, 4));
  EXPECT_THAT((*out)[1].data<int32_t>(), ElementsAre(11, 21, 31));
  EXPECT_THAT((*out)[2].data<float>(), ElementsAre(1, 2));
}

TEST(CpuRunBuffers, DynamicParameterAndResult) {
  // A dynamic parameter f32[<=4] given {1, 2, 3} (a static array within
  // the bound, converted) and given a bounded literal of runtime size 2
  // holding {7, 8 | padding}; the result a * 3 keeps the runtime size:
  // {3, 6, 9} and {21, 24}.
  auto exe = Compile(R"(
HloModule m
ENTRY e {
  a = f32[<=4] parameter(0)
  three = f32[] constant(3)
  t = f32[<=4] broadcast(three), dimensions={}
  n = s32[] get-dimension-size(a), dimensions={0}
  t2 = f32[<=4] set-dimension-size(t, n), dimensions={0}
  ROOT r = f32[<=4] multiply(a, t2)
})");
  ASSERT_NE(exe, nullptr);
  {
    std::vector<Literal> args;
    args.push_back(F32({1, 2, 3}));
    auto out = exe->Run(args);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].GetDynamicSize(0), 3);
    EXPECT_THAT((*out)[0].ToStatic().data<float>(), ElementsAre(3, 6, 9));
  }
  {
    Shape bound = Shape::Array(PrimitiveType::kF32, {4});
    bound.set_dynamic_dimension(0, true);
    auto bounded = Literal::ToBoundedDynamic(F32({7, 8}), bound);
    ASSERT_TRUE(bounded.ok()) << bounded.status();
    std::vector<Literal> args;
    args.push_back(*std::move(bounded));
    auto out = exe->Run(args);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].GetDynamicSize(0), 2);
    EXPECT_THAT((*out)[0].ToStatic().data<float>(), ElementsAre(21, 24));
  }
}

TEST(CpuRunBuffers, EmptyArraysAndScalars) {
  // f32[0] + f32[0] is empty; the scalar 2 * 21 = 42.
  auto exe = Compile(R"(
HloModule m
ENTRY e {
  a = f32[0] parameter(0)
  s = f32[] parameter(1)
  e = f32[0] add(a, a)
  d = f32[] add(s, s)
  ROOT r = (f32[0], f32[]) tuple(e, d)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> args;
  args.push_back(F32({}));
  args.push_back(Literal::CreateR0<float>(PrimitiveType::kF32, 21));
  auto out = exe->Run(args);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].element_count(), 0);
  EXPECT_EQ((*out)[1].data<float>()[0], 42);
}

TEST(CpuRunBuffers, RepeatedRunsGiveFreshResults) {
  // Results of one run are not overwritten by the next: x + 1 of {1, 2}
  // then of {10, 20} (also with 2 threads, a loop nest split across the
  // pool over 4096 elements: element i of x = i, result i + 1).
  for (int threads : {1, 2}) {
    auto exe = Compile(R"(
HloModule m
ENTRY e {
  x = f32[4096] parameter(0)
  one = f32[] constant(1)
  b = f32[4096] broadcast(one), dimensions={}
  ROOT r = f32[4096] add(x, b)
})",
                       threads);
    ASSERT_NE(exe, nullptr);
    std::vector<float> v1(4096), v2(4096);
    for (int i = 0; i < 4096; ++i) {
      v1[i] = static_cast<float>(i);
      v2[i] = static_cast<float>(10 * i);
    }
    std::vector<Literal> a1, a2;
    a1.push_back(F32(v1));
    a2.push_back(F32(v2));
    auto out1 = exe->Run(a1);
    auto out2 = exe->Run(a2);
    ASSERT_TRUE(out1.ok() && out2.ok());
    for (int i = 0; i < 4096; i += 511) {
      EXPECT_EQ((*out1)[0].data<float>()[i], i + 1.0f);
      EXPECT_EQ((*out2)[0].data<float>()[i], 10.0f * i + 1.0f);
    }
  }
}

TEST(CpuRunBuffers, LargeElementwiseNestsOverScratchBuffers) {
  // Softmax-like chains large enough for the outlined (parallel) loop
  // nests, whose innermost loops are declared free of loop-carried
  // dependences (computation_emitter.cc MarkParallelAccesses), reading
  // several buffers of the scratch block, one of them transposed:
  //   s = x - broadcast(rowmax(x));  r1 = s * s;  r2 = transpose(s) + s^T
  // of a [128, 640] x whose element (i, j) is ((i * 37 + j * 11) % 101) / 8.
  // Expected values computed here with the same float operations (each is
  // one correctly rounded IEEE operation, so the results are exact
  // matches), with 1 and 2 threads.
  constexpr int64_t kRows = 128, kCols = 640;
  std::vector<float> x(kRows * kCols);
  for (int64_t i = 0; i < kRows; ++i) {
    for (int64_t j = 0; j < kCols; ++j) {
      x[i * kCols + j] = static_cast<float>((i * 37 + j * 11) % 101) / 8.0f;
    }
  }
  std::vector<float> rowmax(kRows, -INFINITY), s(kRows * kCols);
  for (int64_t i = 0; i < kRows; ++i) {
    for (int64_t j = 0; j < kCols; ++j) {
      rowmax[i] = std::max(rowmax[i], x[i * kCols + j]);
    }
    for (int64_t j = 0; j < kCols; ++j) {
      s[i * kCols + j] = x[i * kCols + j] - rowmax[i];
    }
  }
  for (int threads : {1, 2}) {
    auto exe = Compile(R"(
HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[128,640] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[128] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[128,640] broadcast(m), dimensions={0}
  s = f32[128,640] subtract(x, mb)
  r1 = f32[128,640] multiply(s, s)
  t = f32[640,128] transpose(s), dimensions={1,0}
  r2 = f32[640,128] add(t, t)
  ROOT r = (f32[128,640], f32[640,128]) tuple(r1, r2)
})",
                       threads);
    ASSERT_NE(exe, nullptr);
    std::vector<Literal> args;
    args.push_back(Literal::CreateFromValues<float>(PrimitiveType::kF32,
                                                    {kRows, kCols}, x));
    auto out = exe->Run(args);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < kRows; ++i) {
      for (int64_t j = 0; j < kCols; ++j) {
        const float v = s[i * kCols + j];
        if ((*out)[0].data<float>()[i * kCols + j] != v * v) ++mismatches;
        if ((*out)[1].data<float>()[j * kRows + i] != v + v) ++mismatches;
      }
    }
    EXPECT_EQ(mismatches, 0) << threads << " threads";
  }
}

}  // namespace
}  // namespace hloref::cpu
