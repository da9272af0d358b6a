// Tests of the generators added for issue 8's coverage: every op of the
// families named there has a generator that yields verified cases, and the
// well-conditioned fill gives symmetric strictly diagonally dominant
// matrices (checked here element by element, independently of how it is
// produced).
#include <cmath>
#include <complex>
#include <set>
#include <string>

#include "conformance/generators/draw.h"
#include "conformance/generators/generator.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/host_queues.h"

namespace hloref::conformance {
namespace {

constexpr HloOpcode kNewOps[] = {HloOpcode::kSelectAndScatter,
                                 HloOpcode::kTopK,
                                 HloOpcode::kTuple,
                                 HloOpcode::kGetTupleElement,
                                 HloOpcode::kOptimizationBarrier,
                                 HloOpcode::kCall,
                                 HloOpcode::kConditional,
                                 HloOpcode::kWhile,
                                 HloOpcode::kBitcast,
                                 HloOpcode::kRngBitGenerator,
                                 HloOpcode::kRng,
                                 HloOpcode::kFft,
                                 HloOpcode::kCholesky,
                                 HloOpcode::kTriangularSolve,
                                 HloOpcode::kBatchNormGrad,
                                 HloOpcode::kBatchNormInference,
                                 HloOpcode::kBatchNormTraining,
                                 HloOpcode::kFusion,
                                 HloOpcode::kAddDependency,
                                 HloOpcode::kConstant,
                                 HloOpcode::kRngGetAndUpdateState};

TEST(Generators, NewFamiliesYieldVerifiedCases) {
  for (HloOpcode op : kNewOps) {
    const std::string name(HloOpcodeString(op));
    EXPECT_TRUE(HasGenerator(op)) << name;
    int ok = 0;
    std::set<PrimitiveType> types;
    for (uint64_t seed = 0; seed < 60; ++seed) {
      auto c = GenerateCase(op, seed);
      if (!c.ok()) {
        // Only "no valid draw" may happen, never a missing generator.
        EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition)
            << name << ": " << c.status();
        continue;
      }
      ++ok;
      types.insert(c->type);
      EXPECT_NE(c->module_text.find(name + "("), std::string::npos)
          << c->module_text;
      EXPECT_EQ(static_cast<int64_t>(c->args.size()),
                c->module->entry()->num_parameters())
          << c->module_text;
    }
    EXPECT_GE(ok, 55) << name;
    // FFT draws two complex types, the others more; the rng state is
    // always u64[2].
    if (op != HloOpcode::kRngGetAndUpdateState) {
      EXPECT_GE(types.size(), 2u) << name;
    }
  }
}

TEST(Generators, FftCoversBothComplexTypes) {
  std::set<PrimitiveType> types;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    auto c = GenerateCase(HloOpcode::kFft, seed);
    ASSERT_TRUE(c.ok()) << c.status();
    types.insert(c->args[0].shape().element_type());
  }
  EXPECT_TRUE(types.count(PrimitiveType::kC64));
  EXPECT_TRUE(types.count(PrimitiveType::kC128));
  EXPECT_TRUE(types.count(PrimitiveType::kF32));  // RFFT input
}

TEST(Generators, ConstantsCarrySpecialValues) {
  bool nan = false, inf = false;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    auto c = GenerateCase(HloOpcode::kConstant, seed);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_TRUE(c->args.empty());
    nan |= c->module_text.find("nan") != std::string::npos;
    inf |= c->module_text.find("inf") != std::string::npos;
  }
  EXPECT_TRUE(nan);
  EXPECT_TRUE(inf);
}

TEST(Generators, WellConditionedIsSymmetricDiagonallyDominant) {
  gen::Rng rng(5);
  for (const Shape& shape : {Shape(PrimitiveType::kF64, {3, 4, 4}),
                             Shape(PrimitiveType::kF32, {5, 5}),
                             Shape(PrimitiveType::kC64, {2, 3, 3}),
                             Shape(PrimitiveType::kF64, {0, 2, 2})}) {
    const Literal lit =
        gen::MakeValues({shape, gen::Fill::kWellConditioned}, rng);
    const int64_t n = shape.dimensions(shape.rank() - 1);
    const int64_t count = lit.element_count();
    for (int64_t base = 0; base < count; base += n * n) {
      for (int64_t i = 0; i < n; ++i) {
        double off = 0;
        const std::complex<double> d = lit.GetAsComplex(base + i * n + i);
        for (int64_t j = 0; j < n; ++j) {
          const std::complex<double> a = lit.GetAsComplex(base + i * n + j);
          const std::complex<double> b = lit.GetAsComplex(base + j * n + i);
          EXPECT_EQ(a, b) << shape.ToString(false) << " " << i << "," << j;
          EXPECT_EQ(a.imag(), 0.0);
          if (i != j) off += std::abs(a);
        }
        EXPECT_GE(d.real(), 1.0);
        EXPECT_LT(off, d.real()) << shape.ToString(false) << " row " << i;
      }
    }
  }
}

// --- Host I/O, async, and the ops no family generator drew (issue 8:
// generated cases for every op).

constexpr HloOpcode kLateOps[] = {
    HloOpcode::kInfeed,         HloOpcode::kOutfeed,
    HloOpcode::kSend,           HloOpcode::kSendDone,
    HloOpcode::kRecv,           HloOpcode::kRecvDone,
    HloOpcode::kAsyncStart,     HloOpcode::kAsyncUpdate,
    HloOpcode::kAsyncDone,      HloOpcode::kCopyStart,
    HloOpcode::kCopyDone,       HloOpcode::kStochasticConvert,
    HloOpcode::kDynamicReshape, HloOpcode::kSetDimensionSize,
    HloOpcode::kAfterAll,       HloOpcode::kDomain,
    HloOpcode::kParameter};

// True when any array in `s` (recursively) has a zero dimension.
bool HasZeroSize(const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) {
      if (HasZeroSize(e)) return true;
    }
    return false;
  }
  if (!s.IsArray()) return false;
  for (int64_t d : s.dimensions()) {
    if (d == 0) return true;
  }
  return false;
}

// Runs the oracle on a case the way the suite does (host queues filled
// from the case).
absl::Status RunOracle(const GeneratedCase& c) {
  HostQueues queues;
  EvaluatorOptions options;
  for (const Literal& v : c.host.infeed) queues.PushInfeed(v);
  for (const auto& [channel, values] : c.host.recv) {
    for (const Literal& v : values) queues.PushRecv(channel, v);
  }
  options.host_queues = &queues;
  Evaluator evaluator(options);
  auto r = evaluator.Run(*c.module, c.args);
  if (!r.ok()) return r.status();
  // Every queued value was read: the case pushed exactly what it reads.
  if (queues.infeed_size() != 0) {
    return absl::InternalError("infeed values left over");
  }
  for (const auto& [channel, values] : c.host.recv) {
    if (queues.recv_size(channel) != 0) {
      return absl::InternalError("recv values left over");
    }
  }
  return absl::OkStatus();
}

TEST(Generators, LateOpsYieldVerifiedReproducibleCases) {
  for (HloOpcode op : kLateOps) {
    const std::string name(HloOpcodeString(op));
    EXPECT_TRUE(HasGenerator(op)) << name;
    int ok = 0;
    std::set<PrimitiveType> types;
    bool zero_size = false;
    for (uint64_t seed = 0; seed < 80; ++seed) {
      auto c = GenerateCase(op, seed);
      if (!c.ok()) {
        EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition)
            << name << ": " << c.status();
        continue;
      }
      ++ok;
      types.insert(c->type);
      EXPECT_NE(c->module_text.find(name + "("), std::string::npos)
          << c->module_text;
      ASSERT_EQ(static_cast<int64_t>(c->args.size()),
                c->module->entry()->num_parameters())
          << c->module_text;
      for (size_t i = 0; i < c->args.size(); ++i) {
        zero_size |= HasZeroSize(c->args[i].shape());
      }
      for (const Literal& v : c->host.infeed)
        zero_size |= HasZeroSize(v.shape());
      zero_size |= HasZeroSize(c->module->entry()->root()->shape());
      // Reproducible: the same seed gives the same text and bits.
      auto again = GenerateCase(op, seed);
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(again->module_text, c->module_text);
      ASSERT_EQ(again->args.size(), c->args.size());
      for (size_t i = 0; i < c->args.size(); ++i) {
        EXPECT_TRUE(again->args[i] == c->args[i]) << name << " seed " << seed;
      }
      ASSERT_EQ(again->host.infeed.size(), c->host.infeed.size());
      for (size_t i = 0; i < c->host.infeed.size(); ++i) {
        EXPECT_TRUE(again->host.infeed[i] == c->host.infeed[i]);
      }
      // The oracle evaluates it (runtime sizes are drawn in range, host
      // queues hold what the module reads).
      absl::Status run = RunOracle(*c);
      EXPECT_TRUE(run.ok()) << name << " seed " << seed << ": " << run << "\n"
                            << c->module_text;
    }
    EXPECT_GE(ok, 76) << name;
    if (op != HloOpcode::kAfterAll) {
      EXPECT_GE(types.size(), 4u) << name;
    }
    if (op != HloOpcode::kAfterAll && op != HloOpcode::kAsyncStart &&
        op != HloOpcode::kAsyncUpdate && op != HloOpcode::kAsyncDone) {
      EXPECT_TRUE(zero_size) << name << ": no zero-size shape in 80 seeds";
    }
  }
}

TEST(Generators, HostIoCasesCarryTheirTransfers) {
  int infeed_values = 0, empty_infeeds = 0, host_recvs = 0, device_pairs = 0,
      host_sends = 0, outfeeds = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    for (HloOpcode op : {HloOpcode::kInfeed, HloOpcode::kRecv, HloOpcode::kSend,
                         HloOpcode::kOutfeed}) {
      auto c = GenerateCase(op, seed);
      ASSERT_TRUE(c.ok()) << c.status();
      const std::string& t = c->module_text;
      const bool host_transfer =
          t.find("is_host_transfer=true") != std::string::npos;
      if (op == HloOpcode::kInfeed) {
        EXPECT_TRUE(c->uses_host);
        infeed_values += static_cast<int>(c->host.infeed.size());
        empty_infeeds += t.find("((), token[]) infeed") != std::string::npos;
      } else if (op == HloOpcode::kOutfeed) {
        EXPECT_TRUE(c->uses_host);
        ++outfeeds;
      } else if (host_transfer) {
        EXPECT_TRUE(c->uses_host) << t;
        if (op == HloOpcode::kRecv) {
          EXPECT_FALSE(c->host.recv.empty()) << t;
          ++host_recvs;
        } else {
          ++host_sends;
        }
      } else {
        // A device-to-device pair: one send and one recv on one channel.
        EXPECT_NE(t.find(" send("), std::string::npos) << t;
        EXPECT_NE(t.find(" recv("), std::string::npos) << t;
        EXPECT_TRUE(c->host.recv.empty());
        ++device_pairs;
      }
    }
  }
  EXPECT_GT(infeed_values, 40);
  EXPECT_GT(empty_infeeds, 0);
  EXPECT_GT(host_recvs, 20);
  EXPECT_GT(host_sends, 20);
  EXPECT_GT(device_pairs, 10);
  EXPECT_EQ(outfeeds, 60);
}

TEST(Generators, StochasticConvertRandomOperandMatchesTheInputWidth) {
  for (uint64_t seed = 0; seed < 100; ++seed) {
    auto c = GenerateCase(HloOpcode::kStochasticConvert, seed);
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_EQ(c->args.size(), 2u);
    const Shape& x = c->args[0].shape();
    const Shape& r = c->args[1].shape();
    EXPECT_TRUE(IsFloat(x.element_type()));
    EXPECT_TRUE(IsUnsignedInt(r.element_type()));
    EXPECT_EQ(BitWidth(r.element_type()), BitWidth(x.element_type()));
    EXPECT_TRUE(x.SameDimensions(Shape(x.element_type(), r.dimensions())));
    EXPECT_TRUE(
        IsSignedInt(c->module->entry()->root()->shape().element_type()));
  }
}

TEST(Generators, ParameterCasesReturnAParameter) {
  bool tuple = false;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    auto c = GenerateCase(HloOpcode::kParameter, seed);
    ASSERT_TRUE(c.ok()) << c.status();
    const HloInstruction* root = c->module->entry()->root();
    ASSERT_EQ(root->opcode(), HloOpcode::kParameter) << c->module_text;
    tuple |= root->shape().IsTuple();
    // The oracle returns exactly the argument (an independent check: the
    // argument's own bits).
    Evaluator evaluator;
    auto r = evaluator.Evaluate(*c->module, c->args);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(*r == c->args[root->parameter_number()]) << c->module_text;
  }
  EXPECT_TRUE(tuple);
}

TEST(Generators, CustomCallIsExcludedWithAReason) {
  EXPECT_FALSE(HasGenerator(HloOpcode::kCustomCall));
  const auto excluded = ExcludedFromGeneration();
  bool found = false;
  for (const auto& [op, reason] : excluded) {
    EXPECT_FALSE(HasGenerator(op));
    EXPECT_FALSE(reason.empty());
    found |= op == HloOpcode::kCustomCall;
  }
  EXPECT_TRUE(found);
  auto c = GenerateCase(HloOpcode::kCustomCall, 1);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(c.status().message().find("target"), absl::string_view::npos)
      << c.status();
}

}  // namespace
}  // namespace hloref::conformance
