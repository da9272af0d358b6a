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

}  // namespace
}  // namespace hloref::conformance
