// Tests of the generators added for issue 8's coverage: every op of the
// families named there has a generator that yields verified cases, and the
// well-conditioned fill gives symmetric strictly diagonally dominant
// matrices (checked here element by element, independently of how it is
// produced).
#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "conformance/generators/draw.h"
#include "conformance/generators/generator.h"
#include "conformance/harness/report.h"
#include "gtest/gtest.h"
#include "interpreter/evaluator.h"
#include "interpreter/host_queues.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/npy.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

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

// Issue 14: convolution draws pred operands sometimes, and rng-bit-generator
// sometimes a state longer than its algorithm reads.
TEST(Generators, ConvolutionPredAndLongRngStates) {
  int pred_conv = 0, long_state = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    auto conv = GenerateCase(HloOpcode::kConvolution, seed);
    if (conv.ok() &&
        conv->args[0].shape().element_type() == PrimitiveType::kPred) {
      ++pred_conv;
    }
    auto rbg = GenerateCase(HloOpcode::kRngBitGenerator, seed);
    ASSERT_TRUE(rbg.ok()) << rbg.status();
    const Shape& state = rbg->args[0].shape();
    const bool three_fry =
        rbg->module_text.find("rng_three_fry") != std::string::npos;
    if (state.dimensions(0) > (three_fry ? 2 : 3)) ++long_state;
  }
  EXPECT_GE(pred_conv, 3);
  EXPECT_GE(long_state, 10);
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

// IRFFT inputs are mostly spectra of real signals (Fill::kHermitian), so
// the oracle judges them instead of masking the items as impl.fft.1: over
// many seeds, fewer than half of the IRFFT elements are masked (before the
// Hermitian fill nearly all were).
TEST(Generators, IrfftInputsAreMostlyRealSignalSpectra) {
  int64_t elements = 0, masked = 0, cases = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    auto c = GenerateCase(HloOpcode::kFft, seed);
    ASSERT_TRUE(c.ok()) << c.status();
    if (c->module_text.find("IRFFT") == std::string::npos) continue;
    ++cases;
    Evaluator oracle;
    auto r = oracle.Run(*c->module, c->args);
    ASSERT_TRUE(r.ok()) << c->id << ": " << r.status();
    const EvaluatedOutput& out = r->outputs[0];
    for (int64_t i = 0; i < out.value.element_count(); ++i) {
      ++elements;
      if (out.dont_care.has_value() && out.dont_care->GetAsInt64(i) != 0) {
        ++masked;
      }
    }
  }
  ASSERT_GT(cases, 40);
  ASSERT_GT(elements, 0);
  EXPECT_LT(masked * 2, elements) << masked << " of " << elements;
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
    HloOpcode::kParameter,      HloOpcode::kGetDimensionSize};

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

TEST(Generators, GetDimensionSizeReadsRuntimeSizes) {
  int dynamic = 0, in_range = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    auto c = GenerateCase(HloOpcode::kGetDimensionSize, seed);
    ASSERT_TRUE(c.ok()) << c.status();
    const HloInstruction* root = c->module->entry()->root();
    const HloInstruction* operand = root->operand(0);
    Evaluator evaluator;
    auto r = evaluator.Evaluate(*c->module, c->args);
    ASSERT_TRUE(r.ok()) << r.status();
    // The size read back lies within the dimension's bound, whatever the
    // data; it equals the bound for a static dimension.
    const int64_t dim = root->attrs().dimensions[0];
    const int64_t bound = operand->shape().dimensions(dim);
    const int64_t got = r->GetAsInt64(0);
    in_range += got >= 0 && got <= bound;
    if (operand->shape().is_dynamic_dimension(dim)) {
      ++dynamic;
    } else {
      EXPECT_EQ(got, bound) << c->module_text;
    }
  }
  EXPECT_EQ(in_range, 100);
  EXPECT_GT(dynamic, 15);
}

// XLA's CreateDynamicReshape checks that the result's bounds hold as many
// elements as the operand's; the runtime sizes stay within the bounds.
TEST(Generators, DynamicReshapeBoundsHoldTheOperandsElements) {
  int dynamic_operand = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    auto c = GenerateCase(HloOpcode::kDynamicReshape, seed);
    ASSERT_TRUE(c.ok()) << c.status();
    const HloInstruction* root = c->module->entry()->root();
    const Shape& operand = root->operand(0)->shape();
    EXPECT_EQ(root->shape().num_elements(), operand.num_elements())
        << c->module_text;
    dynamic_operand += !operand.is_static();
  }
  EXPECT_GT(dynamic_operand, 40);
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

TEST(Generators, ReportsNameTheExcludedOpsAndWhy) {
  SuiteResult empty;
  ReportMeta meta;
  const std::string j = ReportJson(empty, meta);
  const std::string h = ReportHtml(empty, meta);
  const size_t key = j.find("\"excluded_from_generation\": [");
  ASSERT_NE(key, std::string::npos) << j;
  EXPECT_NE(
      j.find("{\"op\": \"custom-call\", \"reason\": \"custom-call runs", key),
      std::string::npos)
      << j;
  const size_t section = h.find("<h2>Ops without generated cases</h2>");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(
      h.find("<th class=\"op\">custom-call</th><td>custom-call runs", section),
      std::string::npos);
}

// ---- Collectives: replicated cases (collectives.cc).

constexpr HloOpcode kCollectiveOps[] = {HloOpcode::kAllReduce,
                                        HloOpcode::kAllReduceStart,
                                        HloOpcode::kAllReduceDone,
                                        HloOpcode::kAllGather,
                                        HloOpcode::kAllGatherStart,
                                        HloOpcode::kAllGatherDone,
                                        HloOpcode::kReduceScatter,
                                        HloOpcode::kAllToAll,
                                        HloOpcode::kCollectivePermute,
                                        HloOpcode::kCollectivePermuteStart,
                                        HloOpcode::kCollectivePermuteDone,
                                        HloOpcode::kCollectiveBroadcast,
                                        HloOpcode::kReplicaId,
                                        HloOpcode::kPartitionId,
                                        HloOpcode::kRaggedAllToAll};

bool CollectiveZeroSize(const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) {
      if (CollectiveZeroSize(e)) return true;
    }
    return false;
  }
  return s.IsArray() && s.num_elements() == 0;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The oracle on every participant of the case.
absl::StatusOr<std::vector<EvalResult>> RunCollectiveCase(
    const GeneratedCase& c) {
  Evaluator ev;
  if (!c.replicated()) {
    HLOREF_ASSIGN_OR_RETURN(EvalResult r, ev.Run(*c.module, c.args));
    std::vector<EvalResult> one;
    one.push_back(std::move(r));
    return one;
  }
  if (c.participant_args.empty()) {
    std::vector<std::vector<Literal>> shared = {c.args};
    return ev.RunReplicated(*c.module, shared);
  }
  return ev.RunReplicated(*c.module, c.participant_args);
}

TEST(GeneratorsCollectives, EveryOpYieldsVerifiedReplicatedCases) {
  std::set<std::string> forms;  // replica-group forms and modes seen
  for (HloOpcode op : kCollectiveOps) {
    const std::string name(HloOpcodeString(op));
    ASSERT_TRUE(HasGenerator(op)) << name;
    int ok = 0, replicated = 0, partitioned = 0;
    bool zero_size = false;
    std::set<PrimitiveType> types;
    for (uint64_t seed = 0; seed < 150; ++seed) {
      auto c = GenerateCase(op, seed);
      if (!c.ok()) {
        EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition)
            << name << ": " << c.status();
        continue;
      }
      ++ok;
      types.insert(c->type);
      EXPECT_TRUE(Contains(c->module_text, name + "(")) << c->module_text;
      // The text stands on its own: it parses and verifies again, and its
      // header states the participants the case runs.
      auto again = ParseHloModule(c->module_text);
      ASSERT_TRUE(again.ok()) << again.status() << "\n" << c->module_text;
      EXPECT_TRUE(VerifyModule(**again).ok()) << c->module_text;
      EXPECT_EQ((*again)->config().replica_count, c->replica_count);
      EXPECT_EQ((*again)->config().num_partitions, c->partition_count);
      const int64_t participants = c->replica_count * c->partition_count;
      EXPECT_GE(c->replica_count, 1);
      EXPECT_LE(c->replica_count, 4);
      EXPECT_LE(participants, 8);
      const int64_t params = c->module->entry()->num_parameters();
      ASSERT_EQ(static_cast<int64_t>(c->args.size()), params);
      if (c->replicated()) {
        ++replicated;
        partitioned += c->partition_count > 1;
        if (params > 0) {
          // One argument list per participant, participant 0's = args,
          // each matching the entry parameters' shapes.
          ASSERT_EQ(static_cast<int64_t>(c->participant_args.size()),
                    participants);
          for (const auto& list : c->participant_args) {
            ASSERT_EQ(static_cast<int64_t>(list.size()), params);
            for (int64_t k = 0; k < params; ++k) {
              EXPECT_TRUE(list[k].shape().SameDimensions(
                  c->module->entry()->parameter(k)->shape()));
              EXPECT_EQ(
                  list[k].element_type(),
                  c->module->entry()->parameter(k)->shape().element_type());
            }
          }
          for (int64_t k = 0; k < params; ++k) {
            EXPECT_TRUE(c->participant_args[0][k] == c->args[k]);
          }
        }
      } else {
        EXPECT_TRUE(c->participant_args.empty());
      }
      EXPECT_FALSE(c->uses_host);
      for (const Literal& a : c->args)
        zero_size |= CollectiveZeroSize(a.shape());
      for (const char* form :
           {"replica_groups={}", "replica_groups={{", "]<=[", "T(1,0)",
            "use_global_device_ids=true", "channel_id=", "to_apply"}) {
        if (Contains(c->module_text, form)) forms.insert(form);
      }
      for (const char* reducer :
           {"add(a, b)", "multiply(a, b)", "maximum(a, b)", "minimum(a, b)",
            "and(a, b)", "or(a, b)"}) {
        if (Contains(c->module_text, reducer)) forms.insert(reducer);
      }
      if (c->replicated() && Contains(c->module_text, "source_target_pairs")) {
        // Some participant in no pair's target list receives zeros.
        forms.insert("pairs");
      }
    }
    EXPECT_GE(ok, 145) << name;
    EXPECT_GE(replicated, 100) << name;
    if (op != HloOpcode::kReplicaId && op != HloOpcode::kPartitionId) {
      EXPECT_GE(types.size(), 8u) << name;
      EXPECT_GE(partitioned, 15) << name;
    }
    if (op != HloOpcode::kReplicaId && op != HloOpcode::kPartitionId &&
        op != HloOpcode::kRaggedAllToAll) {
      EXPECT_TRUE(zero_size) << name << ": no zero-size operand in 150 seeds";
    }
  }
  for (const char* form :
       {"replica_groups={}", "replica_groups={{", "]<=[", "T(1,0)",
        "use_global_device_ids=true", "channel_id=", "add(a, b)",
        "multiply(a, b)", "maximum(a, b)", "minimum(a, b)", "and(a, b)",
        "or(a, b)", "pairs"}) {
    EXPECT_TRUE(forms.count(form)) << "never drawn: " << form;
  }
}

TEST(GeneratorsCollectives, ReproducibleFromTheSeed) {
  for (HloOpcode op : kCollectiveOps) {
    for (uint64_t seed = 0; seed < 20; ++seed) {
      auto a = GenerateCase(op, seed);
      auto b = GenerateCase(op, seed);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(a->module_text, b->module_text);
      ASSERT_EQ(a->participant_args.size(), b->participant_args.size());
      for (size_t i = 0; i < a->participant_args.size(); ++i) {
        ASSERT_EQ(a->participant_args[i].size(), b->participant_args[i].size());
        for (size_t k = 0; k < a->participant_args[i].size(); ++k) {
          EXPECT_TRUE(a->participant_args[i][k] == b->participant_args[i][k]);
        }
      }
    }
    // Another seed gives another case.
    EXPECT_NE(GenerateCase(op, 1)->module_text + GenerateCase(op, 2)->id,
              GenerateCase(op, 2)->module_text + GenerateCase(op, 1)->id);
  }
}

TEST(GeneratorsCollectives, ParticipantsGetTheirOwnValues) {
  int differ = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    auto c = GenerateCase(HloOpcode::kAllReduce, seed);
    ASSERT_TRUE(c.ok());
    if (!c->replicated() || c->args[0].element_count() < 2) continue;
    differ += !(c->participant_args[0][0] == c->participant_args[1][0]);
  }
  EXPECT_GT(differ, 20);
}

// Every case runs on the oracle: groups cover every participant, shapes
// agree with the run, and ragged-all-to-all's offsets and sizes are in
// range and consistent (the oracle reports the undefined cases as
// OutOfRange, which would fail here).
TEST(GeneratorsCollectives, TheOracleRunsEveryCase) {
  for (HloOpcode op : kCollectiveOps) {
    for (uint64_t seed = 0; seed < 40; ++seed) {
      auto c = GenerateCase(op, seed);
      ASSERT_TRUE(c.ok()) << c.status();
      auto r = RunCollectiveCase(*c);
      ASSERT_TRUE(r.ok()) << HloOpcodeString(op) << " seed " << seed << ": "
                          << r.status() << "\n"
                          << c->module_text;
      EXPECT_EQ(static_cast<int64_t>(r->size()),
                c->replica_count * c->partition_count);
    }
  }
}

// all-reduce with an integer add over one group of every replica: every
// participant gets the wrapping sum of all participants' operands
// (independent computation here).
TEST(GeneratorsCollectives, IntegerAllReduceSumsEveryReplica) {
  int checked = 0;
  for (uint64_t seed = 0; seed < 3000 && checked < 6; ++seed) {
    auto c = GenerateCase(HloOpcode::kAllReduce, seed);
    ASSERT_TRUE(c.ok());
    if (!c->replicated() || c->partition_count != 1 || !IsInteger(c->type) ||
        c->args.size() != 1 || !Contains(c->module_text, "add(a, b)") ||
        !Contains(c->module_text, "replica_groups={},") ||
        Contains(c->module_text, "channel_id")) {
      continue;
    }
    auto r = RunCollectiveCase(*c);
    ASSERT_TRUE(r.ok()) << r.status();
    Literal want(c->args[0].shape());
    for (int64_t e = 0; e < want.element_count(); ++e) {
      uint64_t sum = 0;
      for (const auto& list : c->participant_args) {
        sum += static_cast<uint64_t>(list[0].GetAsInt64(e));
      }
      want.SetFromInt64(e, static_cast<int64_t>(sum));
    }
    for (const EvalResult& got : *r) {
      EXPECT_TRUE(got.value == want) << c->id << "\n" << c->module_text;
    }
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

// ragged-all-to-all over one group of every replica (no channel, one
// partition): what each sender sends to a receiver is what the receiver
// expects, and every slice lies inside the buffers without overlapping
// another in the receiver (checked here from the arguments alone).
TEST(GeneratorsCollectives, RaggedAllToAllSizesAgreeAcrossParticipants) {
  int checked = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    auto c = GenerateCase(HloOpcode::kRaggedAllToAll, seed);
    ASSERT_TRUE(c.ok());
    if (!c->replicated() || c->partition_count != 1 ||
        Contains(c->module_text, "channel_id") ||
        !Contains(c->module_text, "replica_groups={}")) {
      continue;
    }
    const auto& a = c->participant_args;
    const int64_t n = c->replica_count;
    const int64_t entries = a[0][2].element_count();
    ASSERT_EQ(entries % n, 0);
    const int64_t per_peer = entries / n;
    const int64_t in_rows = a[0][0].shape().dimensions(0);
    const int64_t out_rows = a[0][1].shape().dimensions(0);
    for (int64_t p = 0; p < n; ++p) {
      std::vector<int> written(out_rows, 0);
      for (int64_t s = 0; s < n; ++s) {
        for (int64_t k = 0; k < per_peer; ++k) {
          const int64_t e = p * per_peer + k;
          const int64_t size = a[s][3].GetAsInt64(e);
          EXPECT_EQ(a[p][5].GetAsInt64(s * per_peer + k), size) << c->id;
          const int64_t from = a[s][2].GetAsInt64(e);
          const int64_t to = a[s][4].GetAsInt64(e);
          EXPECT_TRUE(from >= 0 && from + size <= in_rows) << c->id;
          ASSERT_TRUE(to >= 0 && to + size <= out_rows) << c->id;
          for (int64_t row = to; row < to + size; ++row) ++written[row];
        }
      }
      for (int w : written) EXPECT_LE(w, 1) << c->id;
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// collective-permute over replicas (no channel, one partition): a target
// receives its source's operand, every other replica zeros (seed 001
// CollectivePermute), computed here from the pairs and the arguments.
TEST(GeneratorsCollectives, CollectivePermuteTargetsGetTheirSourceElseZeros) {
  int checked = 0, zeros = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    auto c = GenerateCase(HloOpcode::kCollectivePermute, seed);
    ASSERT_TRUE(c.ok());
    const HloInstruction* root = c->module->entry()->root();
    if (!c->replicated() || c->partition_count != 1 || c->args.size() != 1 ||
        Contains(c->module_text, "channel_id")) {
      continue;
    }
    auto r = RunCollectiveCase(*c);
    ASSERT_TRUE(r.ok()) << r.status();
    for (int64_t t = 0; t < c->replica_count; ++t) {
      int64_t source = -1;
      for (const auto& [from, to] : root->attrs().source_target_pairs) {
        if (to == t) source = from;
      }
      Literal want(c->args[0].shape());  // zeros
      if (source >= 0) {
        want = c->participant_args[source][0];
      } else {
        ++zeros;
      }
      EXPECT_TRUE((*r)[t].value == want) << c->id << " replica " << t;
    }
    ++checked;
  }
  EXPECT_GE(checked, 40);
  EXPECT_GE(zeros, 10);
}

// all-gather over replicas (no channel, one partition, one operand): each
// replica gets its group's operands concatenated along the dimension in
// group order (seed 001 AllGather), computed here element by element.
// Explicit groups in a random order and the iota forms are both drawn, so
// this also checks the groups the text names.
TEST(GeneratorsCollectives, AllGatherConcatenatesInGroupOrder) {
  int checked = 0, reordered = 0;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    auto c = GenerateCase(HloOpcode::kAllGather, seed);
    ASSERT_TRUE(c.ok());
    const HloInstruction* root = c->module->entry()->root();
    if (!c->replicated() || c->partition_count != 1 || c->args.size() != 1 ||
        Contains(c->module_text, "channel_id") ||
        c->type == PrimitiveType::kC128) {
      continue;
    }
    auto r = RunCollectiveCase(*c);
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<std::vector<int64_t>> groups =
        root->attrs().replica_groups.groups;
    if (groups.empty()) {
      groups.emplace_back();
      for (int64_t i = 0; i < c->replica_count; ++i) groups[0].push_back(i);
    }
    const int64_t dim = root->attrs().dimensions[0];
    const Shape& in = c->args[0].shape();
    for (int64_t me = 0; me < c->replica_count; ++me) {
      const std::vector<int64_t>* mine = nullptr;
      for (const auto& g : groups) {
        if (std::find(g.begin(), g.end(), me) != g.end()) mine = &g;
      }
      ASSERT_NE(mine, nullptr) << c->module_text;
      reordered += !std::is_sorted(mine->begin(), mine->end());
      const Literal& got = (*r)[me].value;
      ASSERT_EQ(got.shape().dimensions(dim),
                in.dimensions(dim) * static_cast<int64_t>(mine->size()));
      for (int64_t e = 0; e < got.element_count(); ++e) {
        // Row-major index of e in the result, then the block it falls in.
        std::vector<int64_t> index(in.rank());
        int64_t rest = e;
        for (int64_t d = in.rank() - 1; d >= 0; --d) {
          index[d] = rest % got.shape().dimensions(d);
          rest /= got.shape().dimensions(d);
        }
        const int64_t block = index[dim] / in.dimensions(dim);
        index[dim] %= in.dimensions(dim);
        int64_t source = 0;
        for (int64_t d = 0; d < in.rank(); ++d) {
          source = source * in.dimensions(d) + index[d];
        }
        const Literal& from = c->participant_args[(*mine)[block]][0];
        ASSERT_EQ(got.GetRawBits(e), from.GetRawBits(source))
            << c->id << " replica " << me << " element " << e;
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 40);
  EXPECT_GE(reordered, 5);  // groups whose order is not ascending
}

TEST(GeneratorsCollectives, CaseDirHoldsEveryParticipantsArguments) {
  GeneratedCase c;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    auto g = GenerateCase(HloOpcode::kAllGather, seed);
    ASSERT_TRUE(g.ok());
    if (g->replica_count >= 2) {
      c = *std::move(g);
      break;
    }
  }
  ASSERT_GE(c.replica_count, 2);
  const std::string dir = ::testing::TempDir() + "/h4_collective_case";
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(WriteCaseDir(c, dir).ok());
  for (size_t i = 0; i < c.participant_args.size(); ++i) {
    auto back = ReadNpyFile(absl::StrCat(dir, "/p", i, "/arg_0.npy"));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(*back == c.participant_args[i][0]) << "participant " << i;
  }
  std::ifstream readme(dir + "/README");
  std::stringstream text;
  text << readme.rdbuf();
  EXPECT_TRUE(Contains(
      text.str(), absl::StrCat("hloref run --replicas=", c.replica_count, " ")))
      << text.str();
  EXPECT_TRUE(Contains(text.str(), "p<i>/arg_<k>.npy")) << text.str();
}

}  // namespace
}  // namespace hloref::conformance
