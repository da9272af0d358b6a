// Tests of the evaluator core: argument checks, post-order evaluation,
// nested calls through EvalContext::Call, limits and don't-care marks.
// Modules are built with the hlo_module.h API.
#include "interpreter/evaluator.h"

#include <pthread.h>

#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "interpreter/ops/elementwise_test_util.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/test_modules.h"

namespace hloref {
namespace {

using namespace testing_util;  // NOLINT
using ::testing::HasSubstr;

// Builds computations instruction by instruction.
class Builder {
 public:
  explicit Builder(HloModule* m, std::string name) : module_(m) {
    comp_ = std::make_unique<HloComputation>(std::move(name));
  }
  HloInstruction* Param(int64_t n, Shape s, std::string name) {
    auto p = std::make_unique<HloInstruction>(HloOpcode::kParameter, s, name);
    p->set_parameter_number(n);
    return comp_->AddInstruction(std::move(p));
  }
  HloInstruction* Op(HloOpcode op, Shape s, std::vector<HloInstruction*> ops,
                     std::string name) {
    auto i = std::make_unique<HloInstruction>(op, s, name);
    for (auto* o : ops) i->AppendOperand(o);
    return comp_->AddInstruction(std::move(i));
  }
  HloInstruction* Constant(Literal lit, std::string name) {
    auto i = std::make_unique<HloInstruction>(HloOpcode::kConstant, lit.shape(),
                                              name);
    *i->mutable_literal() = std::move(lit);
    return comp_->AddInstruction(std::move(i));
  }
  HloComputation* Finish(HloInstruction* root, bool entry) {
    comp_->set_root(root);
    comp_->FinalizeParameters();
    comp_->set_is_entry(entry);
    HloComputation* c = module_->AddComputation(std::move(comp_));
    if (entry) module_->set_entry(c);
    return c;
  }

 private:
  HloModule* module_;
  std::unique_ptr<HloComputation> comp_;
};

// main(x: s32[3], y: s32[3]) = (x + y) * constant {2,2,2}
std::unique_ptr<HloModule> AddMul() {
  auto m = std::make_unique<HloModule>("addmul");
  Builder b(m.get(), "main");
  Shape s = Shape::Array(PT::kS32, {3});
  auto* x = b.Param(0, s, "x");
  auto* y = b.Param(1, s, "y");
  auto* sum = b.Op(HloOpcode::kAdd, s, {x, y}, "sum");
  auto* two = b.Constant(FromInts(PT::kS32, {2, 2, 2}), "two");
  b.Finish(b.Op(HloOpcode::kMultiply, s, {sum, two}, "prod"), true);
  return m;
}

TEST(Evaluator, RunsInPostOrder) {
  auto m = AddMul();
  Evaluator ev;
  auto r = ev.Run(
      *m, {FromInts(PT::kS32, {1, 2, 3}), FromInts(PT::kS32, {10, 20, 30})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, FromInts(PT::kS32, {22, 44, 66}));
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_FALSE(r->outputs[0].dont_care.has_value());
}

// outputs_take_the_result: the same outputs as a plain Run, each one the
// result's own leaf moved out (the result's leaves are left without
// bytes), for an array root and for a tuple root.
TEST(Evaluator, OutputsTakeTheResultWithoutACopy) {
  auto m = ParseHloModule(R"(
HloModule pair
ENTRY main {
  x = f32[4] parameter(0)
  n = f32[4] negate(x)
  e = f32[4] exponential(x)
  ROOT t = (f32[4], f32[4]) tuple(n, e)
}
)");
  ASSERT_TRUE(m.ok()) << m.status();
  const std::vector<Literal> args = {
      Literal::CreateR1<float>(PT::kF32, {0.5f, -1.0f, 2.0f, 0.0f})};
  auto plain = Evaluator().Run(**m, args);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EvaluatorOptions options;
  options.outputs_take_the_result = true;
  auto taken = Evaluator(options).Run(**m, args);
  ASSERT_TRUE(taken.ok()) << taken.status();
  ASSERT_EQ(taken->outputs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(taken->outputs[i].value, plain->outputs[i].value) << i;
    EXPECT_TRUE(
        taken->value.tuple_element(static_cast<int64_t>(i)).raw().empty())
        << i;
  }
  auto array_root = AddMul();
  auto one = Evaluator(options).Run(
      *array_root,
      {FromInts(PT::kS32, {1, 2, 3}), FromInts(PT::kS32, {10, 20, 30})});
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->outputs.size(), 1u);
  EXPECT_EQ(one->outputs[0].value, FromInts(PT::kS32, {22, 44, 66}));
  EXPECT_TRUE(one->value.raw().empty());
}

TEST(Evaluator, ArgumentErrorsNameTheParameter) {
  auto m = AddMul();
  Evaluator ev;
  auto count = ev.Run(*m, {FromInts(PT::kS32, {1, 2, 3})});
  EXPECT_EQ(count.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(count.status().message()), HasSubstr("2 arguments"));
  auto type = ev.Run(
      *m, {FromInts(PT::kS32, {1, 2, 3}), FromInts(PT::kS64, {1, 2, 3})});
  EXPECT_EQ(type.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(type.status().message()),
              HasSubstr("parameter 1 (%y)"));
  auto dims =
      ev.Run(*m, {FromInts(PT::kS32, {1, 2}), FromInts(PT::kS32, {1, 2, 3})});
  EXPECT_THAT(std::string(dims.status().message()),
              HasSubstr("parameter 0 (%x)"));
}

TEST(Evaluator, ElidedConstant) {
  auto m = std::make_unique<HloModule>("elided");
  Builder b(m.get(), "main");
  Literal lit(Shape::Array(PT::kF32, {1000}));
  lit.set_elided(true);
  b.Finish(b.Constant(std::move(lit), "big"), true);
  auto r = Evaluator().Run(*m, {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("constant %big was elided in the dump; re-dump with "
                        "--xla_dump_large_constants"));
}

TEST(Evaluator, ElementLimit) {
  auto m = AddMul();
  EvaluatorOptions opts;
  opts.max_elements_per_value = 2;
  auto r = Evaluator(opts).Run(
      *m, {FromInts(PT::kS32, {1, 2, 3}), FromInts(PT::kS32, {1, 2, 3})});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("max_elements_per_value"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("%x"));
}

TEST(Evaluator, WallTimeLimit) {
  auto m = AddMul();
  EvaluatorOptions opts;
  opts.max_wall_time = absl::ZeroDuration() - absl::Seconds(1);
  auto r = Evaluator(opts).Run(
      *m, {FromInts(PT::kS32, {1, 2, 3}), FromInts(PT::kS32, {1, 2, 3})});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("max_wall_time"));
}

// Evaluates the n-deep call chain (test_modules.h) with the call-depth
// limit out of the way, on a thread with a 2 MiB stack.
absl::StatusOr<EvalResult> RunChainOnSmallStack(int64_t n) {
  auto m = ParseHloModule(test_modules::CallChainModule(n));
  if (!m.ok()) return m.status();
  struct Job {
    HloModule* module;
    absl::StatusOr<EvalResult> result = absl::UnknownError("not run");
  } job{m->get()};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t{2} << 20);
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* j = static_cast<Job*>(p);
        EvaluatorOptions opts;
        opts.max_call_depth = 1 << 30;
        j->result = Evaluator(opts).Run(
            *j->module, {Literal::CreateR0<float>(PrimitiveType::kF32, 2)});
        return nullptr;
      },
      &job);
  pthread_attr_destroy(&attr);
  if (rc != 0) return absl::InternalError("pthread_create failed");
  pthread_join(thread, nullptr);
  return std::move(job.result);
}

TEST(Evaluator, DeepCallsStopBeforeTheStackRunsOut) {
  // 100 levels fit in 2 MiB: -2 (one negate of 2).
  auto shallow = RunChainOnSmallStack(100);
  ASSERT_TRUE(shallow.ok()) << shallow.status();
  EXPECT_EQ(shallow->value.data<float>()[0], -2.0f);
  // 10,000 levels need some 40 MiB (a few KiB of native recursion per
  // level): an error naming the stack, not a crash.
  auto deep = RunChainOnSmallStack(10000);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(deep.status().message()),
              HasSubstr("the evaluator's stack is nearly exhausted"));
}

TEST(Evaluator, UnimplementedOpsSayWhich) {
  // A custom call to a target nobody implements reaches the custom-call
  // family, which answers Unimplemented naming the op.
  auto m = std::make_unique<HloModule>("cc");
  Builder b(m.get(), "main");
  Shape s = Shape::Array(PT::kF32, {4});
  auto* x = b.Param(0, s, "x");
  auto* cc = b.Op(HloOpcode::kCustomCall, s, {x}, "f");
  cc->mutable_attrs()->custom_call_target = "__hloref_no_such_target__";
  cc->mutable_attrs()->set(AttrId::kCustomCallTarget);
  b.Finish(cc, true);
  auto r = Evaluator().Run(*m, {Literal(s)});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("custom-call"));
}

TEST(Evaluator, MarksPropagateElementwiseAndConservatively) {
  // d = x / y (s32, y has a zero at index 1); e = d + x keeps the mark per
  // element; t = tuple(e, x) moves it to leaf 0.
  auto m = std::make_unique<HloModule>("marks");
  Builder b(m.get(), "main");
  Shape s = Shape::Array(PT::kS32, {3});
  auto* x = b.Param(0, s, "x");
  auto* y = b.Param(1, s, "y");
  auto* d = b.Op(HloOpcode::kDivide, s, {x, y}, "d");
  auto* e = b.Op(HloOpcode::kAdd, s, {d, x}, "e");
  b.Finish(b.Op(HloOpcode::kTuple, Shape::Tuple({s, s}), {e, x}, "t"), true);
  for (Profile p : {Profile::kXla, Profile::kPortable}) {
    EvaluatorOptions opts;
    opts.profile = p;
    auto r = Evaluator(opts).Run(
        *m, {FromInts(PT::kS32, {6, 7, 8}), FromInts(PT::kS32, {2, 0, 4})});
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->outputs.size(), 2u);
    // 7 / 0 = -1 (XLA), then -1 + 7 = 6.
    EXPECT_EQ(r->outputs[0].value, FromInts(PT::kS32, {9, 6, 10}));
    ASSERT_TRUE(r->outputs[0].dont_care.has_value());
    EXPECT_EQ(*r->outputs[0].dont_care, FromInts(PT::kPred, {0, 1, 0}));
    EXPECT_EQ(r->outputs[0].impl_ids,
              (std::vector<std::string>{"impl.divide.1"}));
    EXPECT_FALSE(r->outputs[1].dont_care.has_value());
  }
}

TEST(Evaluator, ScalarMarkedOperandMarksWholeClamp) {
  // lo = 1 / 0 (marked scalar) used as clamp's min: every element marked.
  auto m = std::make_unique<HloModule>("clamp");
  Builder b(m.get(), "main");
  Shape sc = Shape::Scalar(PT::kS32);
  Shape s = Shape::Array(PT::kS32, {2});
  auto* one = b.Constant(Literal::CreateR0<int32_t>(PT::kS32, 1), "one");
  auto* zero = b.Constant(Literal::CreateR0<int32_t>(PT::kS32, 0), "zero");
  auto* lo = b.Op(HloOpcode::kDivide, sc, {one, zero}, "lo");
  auto* x = b.Param(0, s, "x");
  auto* hi = b.Constant(Literal::CreateR0<int32_t>(PT::kS32, 5), "hi");
  b.Finish(b.Op(HloOpcode::kClamp, s, {lo, x, hi}, "c"), true);
  auto r = Evaluator().Run(*m, {FromInts(PT::kS32, {-3, 9})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value, FromInts(PT::kS32, {-1, 5}));
  ASSERT_TRUE(r->outputs[0].dont_care.has_value());
  EXPECT_EQ(*r->outputs[0].dont_care, FromInts(PT::kPred, {1, 1}));
}

TEST(Evaluator, ZeroSizeAndScalarValues) {
  auto m = std::make_unique<HloModule>("empty");
  Builder b(m.get(), "main");
  Shape s = Shape::Array(PT::kF32, {0, 4});
  auto* x = b.Param(0, s, "x");
  b.Finish(b.Op(HloOpcode::kNegate, s, {x}, "n"), true);
  auto r = Evaluator().Run(*m, {Literal(s)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->value.element_count(), 0);
}

}  // namespace
}  // namespace hloref
