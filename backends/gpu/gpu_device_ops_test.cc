// The GPU target's device implementations (gpu_device_ops.h) checked on
// the host: the same LLVM IR the GPU kernels contain, JIT-compiled for the
// CPU (its C math calls resolve to the host's libm, where the GPU's resolve
// to libdevice) and compared with independent references. The PTX of the
// kernels that use them is checked in gpu_backend_test.
#include "backends/gpu/gpu_device_ops.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/complex_ir.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/emitter_table.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/jit.h"
#include "backends/cpu/runtime/array_ops.h"
#include "gtest/gtest.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "spec/ir/hlo_parser.h"
#include "spec/util/status_macros.h"

namespace hloref::gpu {
namespace {

using codegen::ComplexFn;
using CLD = std::complex<long double>;

// void unary_<fn>(double re, double im, double* out) for every unary
// ComplexFn, and void pow(double a, double b, double c, double d,
// double* out), all through EmitDeviceComplexMath, JIT-compiled.
class ComplexMathJit {
 public:
  static constexpr int kUnary = static_cast<int>(ComplexFn::kPow);

  ComplexMathJit() {
    auto context = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>("complex_math", *context);
    codegen::IRBuilder b(*context);
    codegen::EmitterTable table = codegen::DefaultEmitterTable();
    codegen::EmitContext ctx(*module, b, table, codegen::CodegenOptions());
    for (int fn = 0; fn <= kUnary; ++fn) {
      const int n = fn == kUnary ? 4 : 2;
      std::vector<llvm::Type*> params(n, b.getDoubleTy());
      params.push_back(b.getPtrTy());
      auto* fty = llvm::FunctionType::get(b.getVoidTy(), params, false);
      llvm::Function* f =
          llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage,
                                 absl::StrCat("fn", fn), *module);
      b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", f));
      std::vector<llvm::Value*> parts;
      for (int i = 0; i < n; ++i) parts.push_back(f->getArg(i));
      auto [re, im] = EmitDeviceComplexMath(ctx, fn, parts);
      llvm::Value* out = f->getArg(n);
      b.CreateStore(re, out);
      b.CreateStore(im, b.CreateConstInBoundsGEP1_64(b.getDoubleTy(), out, 1));
      b.CreateRetVoid();
    }
    absl::Status prepared = cpu::PrepareModuleForHost(*module);
    EXPECT_TRUE(prepared.ok()) << prepared;
    absl::StatusOr<std::unique_ptr<cpu::JitModule>> jit =
        cpu::JitModule::Compile(std::move(module), std::move(context),
                                cpu::JitOptions());
    EXPECT_TRUE(jit.ok()) << jit.status();
    if (!jit.ok()) return;
    jit_ = *std::move(jit);
    for (int fn = 0; fn <= kUnary; ++fn) {
      absl::StatusOr<void*> p = jit_->Lookup(absl::StrCat("fn", fn));
      EXPECT_TRUE(p.ok()) << p.status();
      fns_.push_back(p.ok() ? *p : nullptr);
    }
  }

  std::complex<double> Unary(ComplexFn fn, double re, double im) const {
    double out[2];
    reinterpret_cast<void (*)(double, double, double*)>(
        fns_.at(static_cast<int>(fn)))(re, im, out);
    return {out[0], out[1]};
  }
  std::complex<double> Pow(double a, double b, double c, double d) const {
    double out[2];
    reinterpret_cast<void (*)(double, double, double, double, double*)>(
        fns_.at(kUnary))(a, b, c, d, out);
    return {out[0], out[1]};
  }
  bool ok() const { return jit_ != nullptr; }

 private:
  std::unique_ptr<cpu::JitModule> jit_;
  std::vector<void*> fns_;
};

const ComplexMathJit& Jit() {
  static const ComplexMathJit* const jit = new ComplexMathJit();
  return *jit;
}

// The reference: the C library's complex functions in long double (64-bit
// significand), as the CPU runtime computes them, independent of the code
// under test.
CLD Reference(ComplexFn fn, CLD z) {
  switch (fn) {
    case ComplexFn::kSqrt:
      return std::sqrt(z);
    case ComplexFn::kRsqrt:
      return 1.0L / std::sqrt(z);
    case ComplexFn::kExp:
      return std::exp(z);
    case ComplexFn::kExpm1:
      return std::exp(z) - 1.0L;  // points below keep |z| away from 0
    case ComplexFn::kLog:
      return std::log(z);
    case ComplexFn::kLog1p:
      return std::log(1.0L + z);
    case ComplexFn::kLogistic:
      return 1.0L / (1.0L + std::exp(-z));
    case ComplexFn::kSin:
      return std::sin(z);
    case ComplexFn::kCos:
      return std::cos(z);
    case ComplexFn::kTan:
      return std::tan(z);
    case ComplexFn::kTanh:
      return std::tanh(z);
    case ComplexFn::kSinh:
      return std::sinh(z);
    case ComplexFn::kCosh:
      return std::cosh(z);
    case ComplexFn::kAsin:
      return std::asin(z);
    case ComplexFn::kAcos:
      return std::acos(z);
    case ComplexFn::kAsinh:
      return std::asinh(z);
    case ComplexFn::kAcosh:
      return std::acosh(z);
    case ComplexFn::kAtanh:
      return std::atanh(z);
    case ComplexFn::kPow:
      break;
  }
  return {NAN, NAN};
}

// numerics.md's complex judgement: |v - y| <= k u |y| (normwise), k = 16
// for the transcendentals, u = 2^-53 (c128).
void ExpectNormwise(std::complex<double> v, CLD y, const std::string& what) {
  const long double err = std::abs(CLD(v.real(), v.imag()) - y);
  const long double bound = 16 * 0x1p-53L * std::abs(y) + 0x1p-1022L;
  EXPECT_LE(err, bound) << what << ": got (" << v.real() << ", " << v.imag()
                        << "), want (" << static_cast<double>(y.real()) << ", "
                        << static_cast<double>(y.imag()) << "), "
                        << static_cast<double>(err / (0x1p-53L * std::abs(y)))
                        << " ulp normwise";
}

TEST(GpuComplexMathTest, MatchesTheCLibraryInLongDoubleWithin16Ulp) {
  const ComplexMathJit& jit = Jit();
  ASSERT_TRUE(jit.ok());
  const double values[] = {-3.7, -1.0, -0.6, -1e-3, -0.0, 0.0, 1e-3,
                           0.3,  0.75, 1.0,  1.25,  2.5,  9.0, 40.0};
  int checked = 0;
  for (int f = 0; f < ComplexMathJit::kUnary; ++f) {
    const ComplexFn fn = static_cast<ComplexFn>(f);
    for (double re : values) {
      for (double im : values) {
        if (fn == ComplexFn::kExpm1 && std::abs(re) < 0.5 &&
            std::abs(im) < 0.5) {
          continue;  // the reference exp(z) - 1 cancels there (below)
        }
        const CLD y = Reference(fn, CLD(re, im));
        if (!std::isfinite(y.real()) || !std::isfinite(y.imag())) continue;
        ExpectNormwise(jit.Unary(fn, re, im), y,
                       absl::StrCat("fn ", f, " at (", re, ", ", im, ")"));
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 3000);
}

TEST(GpuComplexMathTest, Expm1AndLog1pNearZeroKeepRelativeAccuracy) {
  const ComplexMathJit& jit = Jit();
  ASSERT_TRUE(jit.ok());
  // expm1(z) = z + z^2/2 + z^3/6 + ..., log1p(z) = z - z^2/2 + z^3/3 for
  // |z| = 1e-9 (the series in long double; the next term is ~1e-36
  // relative), where exp(z) - 1 in double would keep 7 digits.
  for (double t : {0.0, 0.7, 2.0, 4.0}) {
    const CLD z(1e-9L * std::cos(t), 1e-9L * std::sin(t));
    const CLD z2 = z * z, z3 = z2 * z;
    ExpectNormwise(jit.Unary(ComplexFn::kExpm1, static_cast<double>(z.real()),
                             static_cast<double>(z.imag())),
                   z + z2 / 2.0L + z3 / 6.0L,
                   absl::StrCat("expm1 at angle ", t));
    ExpectNormwise(jit.Unary(ComplexFn::kLog1p, static_cast<double>(z.real()),
                             static_cast<double>(z.imag())),
                   z - z2 / 2.0L + z3 / 3.0L,
                   absl::StrCat("log1p at angle ", t));
  }
}

TEST(GpuComplexMathTest, PowMatchesLongDoubleForModerateExponents) {
  const ComplexMathJit& jit = Jit();
  ASSERT_TRUE(jit.ok());
  const double bases[] = {-2.0, -0.5, 0.3, 1.5, 3.0};
  const double exps[] = {-1.5, -0.5, 0.0, 0.25, 1.0, 2.0};
  for (double a : bases) {
    for (double b : bases) {
      for (double c : exps) {
        for (double d : exps) {
          // std::pow(CLD, CLD) = exp(w log z) in long double.
          const CLD y = std::exp(CLD(c, d) * std::log(CLD(a, b)));
          ExpectNormwise(jit.Pow(a, b, c, d), y,
                         absl::StrCat("(", a, ",", b, ")^(", c, ",", d, ")"));
        }
      }
    }
  }
  // The CPU runtime's special cases.
  EXPECT_EQ(jit.Pow(0, 0, 2.5, 0), std::complex<double>(0, 0));
  EXPECT_EQ(jit.Pow(7, -3, 0, 0), std::complex<double>(1, 0));
  EXPECT_EQ(jit.Pow(1, 0, NAN, 4), std::complex<double>(1, 0));
}

TEST(GpuComplexMathTest, BranchCutsAndSpecialValues) {
  const ComplexMathJit& jit = Jit();
  ASSERT_TRUE(jit.ok());
  auto same = [](std::complex<double> v, double re, double im) {
    return std::signbit(v.real()) == std::signbit(re) &&
           std::signbit(v.imag()) == std::signbit(im) &&
           (v.real() == re || (std::isnan(v.real()) && std::isnan(re))) &&
           (v.imag() == im || (std::isnan(v.imag()) && std::isnan(im)));
  };
  const double pi = 3.141592653589793;
  // sqrt(+-0 +- 0i) = (+0, +0) (the CPU runtime, numerics.md); the cut
  // side follows the imaginary zero's sign; Annex G infinities.
  EXPECT_TRUE(same(jit.Unary(ComplexFn::kSqrt, -0.0, -0.0), 0.0, 0.0));
  EXPECT_TRUE(same(jit.Unary(ComplexFn::kSqrt, -4.0, 0.0), 0.0, 2.0));
  EXPECT_TRUE(same(jit.Unary(ComplexFn::kSqrt, -4.0, -0.0), 0.0, -2.0));
  EXPECT_TRUE(
      same(jit.Unary(ComplexFn::kSqrt, 1.0, INFINITY), INFINITY, INFINITY));
  EXPECT_TRUE(same(jit.Unary(ComplexFn::kSqrt, -INFINITY, 2.0), 0.0, INFINITY));
  EXPECT_TRUE(
      same(jit.Unary(ComplexFn::kSqrt, INFINITY, -2.0), INFINITY, -0.0));
  // Extremes do not overflow or flush: sqrt(2^1022 (1 + i)) and
  // sqrt(2^-1074 i) (values from the polar form by hand).
  std::complex<double> big = jit.Unary(ComplexFn::kSqrt, 0x1p1022, 0x1p1022);
  EXPECT_NEAR(big.real() / 0x1p511, 1.0986841134678100, 1e-15);
  EXPECT_NEAR(big.imag() / 0x1p511, 0.45508986056222733, 1e-15);
  std::complex<double> tiny = jit.Unary(ComplexFn::kSqrt, 0.0, 0x1p-1074);
  EXPECT_NEAR(tiny.real() / 0x1p-537, std::sqrt(0.5), 1e-15);
  // log(-1 -+ 0i) = (0, -+pi).
  EXPECT_TRUE(same(jit.Unary(ComplexFn::kLog, -1.0, -0.0), 0.0, -pi));
  EXPECT_TRUE(same(jit.Unary(ComplexFn::kLog, -1.0, 0.0), 0.0, pi));
  // exp(x + 0i) keeps the zero; a finite result past exp's overflow:
  // exp(709.9 + i pi/3) has |re| = e^709.9 / 2 < DBL_MAX.
  EXPECT_TRUE(same(jit.Unary(ComplexFn::kExp, 2.0, -0.0), std::exp(2.0), -0.0));
  std::complex<double> e = jit.Unary(ComplexFn::kExp, 709.9, pi / 3);
  EXPECT_TRUE(std::isfinite(e.real()));
  EXPECT_NEAR(e.real() / std::exp(354.95) / std::exp(354.95), 0.5, 1e-13);
  // asin / acos on their cuts: asin(2 +- 0i) = pi/2 +- i acosh 2.
  const double acosh2 = 1.3169578969248166;
  std::complex<double> s = jit.Unary(ComplexFn::kAsin, 2.0, 0.0);
  EXPECT_NEAR(s.real(), pi / 2, 1e-15);
  EXPECT_NEAR(s.imag(), acosh2, 1e-15);
  s = jit.Unary(ComplexFn::kAsin, 2.0, -0.0);
  EXPECT_NEAR(s.imag(), -acosh2, 1e-15);
  // atanh(1 + 0i) = (+inf, +0).
  EXPECT_TRUE(same(jit.Unary(ComplexFn::kAtanh, 1.0, 0.0), INFINITY, 0.0));
  // tanh for large |re| saturates: tanh(30 + i) = 1 + i 2 sin 2 e^-60.
  std::complex<double> t = jit.Unary(ComplexFn::kTanh, 30.0, 1.0);
  EXPECT_EQ(t.real(), 1.0);
  EXPECT_NEAR(t.imag() / (2 * std::sin(2.0) * std::exp(-60.0)), 1.0, 1e-14);
  // sin(1e-300 + 710i) = 1e-300 cosh 710 ~ 1.12e8: finite although
  // cosh(710) overflows.
  std::complex<double> sn = jit.Unary(ComplexFn::kSin, 1e-300, 710.0);
  EXPECT_NEAR(sn.real() / 1e8,
              1e-300 * 0.5 * std::exp(355.0) * std::exp(355.0) / 1e8, 1e-6);
}

// ---------------------------------------------------------------------
// Device kernels run on the host: the kernel body of PlanDeviceKernel
// JIT-compiled with a plain loop in place of the grid-stride loop (the
// work items are independent, so their order does not matter) and
// void f(operand buffers..., output buffers...) as its signature.

struct HostKernel {
  std::unique_ptr<cpu::JitModule> jit;
  void* fn = nullptr;
};

// `merge_split` > 0 splits the merges of a sort's last levels into that
// many chunks (merge path) although the host runs one thread per block.
absl::StatusOr<HostKernel> CompileForHost(const HloInstruction& inst,
                                          int64_t merge_split = 0) {
  HLOREF_ASSIGN_OR_RETURN(std::optional<DeviceKernel> k,
                          PlanDeviceKernel(inst));
  if (!k.has_value()) return absl::NotFoundError("no device kernel");
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("device_kernel", *context);
  codegen::IRBuilder b(*context);
  codegen::EmitterTable table = codegen::DefaultEmitterTable();
  codegen::EmitContext ctx(*module, b, table, codegen::CodegenOptions());
  std::vector<Shape> shapes;
  for (const HloInstruction* op : inst.operands()) {
    codegen::CollectArrayShapes(op->shape(), &shapes);
  }
  const size_t num_in = shapes.size();
  codegen::CollectArrayShapes(inst.shape(), &shapes);
  std::vector<llvm::Type*> params(shapes.size(), b.getPtrTy());
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), params, false);
  llvm::Function* f = llvm::Function::Create(
      fty, llvm::GlobalValue::ExternalLinkage, "kernel", *module);
  codegen::EmitContext::FunctionState state;
  state.function = f;
  state.run_context = llvm::ConstantPointerNull::get(b.getPtrTy());
  ctx.set_function_state(&state);
  ctx.set_run_context(state.run_context);
  b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", f));
  unsigned arg = 0;
  auto value_of = [&](const Shape& shape, auto& self) -> codegen::IrValue {
    codegen::IrValue v;
    v.shape = shape;
    if (shape.IsArray()) {
      v.array = codegen::IrArray(f->getArg(arg++), shape);
    }
    if (shape.IsTuple()) {
      for (const Shape& e : shape.tuple_shapes()) {
        v.elements.push_back(self(e, self));
      }
    }
    return v;
  };
  std::vector<codegen::IrValue> operands;
  for (const HloInstruction* op : inst.operands()) {
    operands.push_back(value_of(op->shape(), value_of));
  }
  EXPECT_EQ(arg, num_in);
  codegen::IrValue output = value_of(inst.shape(), value_of);
  DeviceLoops loops;
  loops.for_each = [&](llvm::Value* n, const DeviceLoops::Body& body) {
    return ctx.EmitForLoop("item", ctx.I64(0), n, ctx.I64(1), body);
  };
  loops.once = [](const std::function<absl::Status()>& body) { return body(); };
  // Block-cooperative kernels with one thread per block: the same code
  // with every strided loop of stride 1 and no-op barriers.
  loops.for_each_row = loops.for_each;
  loops.threads = 1;
  loops.thread = [&]() { return ctx.I64(0); };
  loops.barrier = []() {};
  loops.shared_array = [&](llvm::Type* type, int64_t count,
                           const char* name) -> llvm::Value* {
    auto* t = llvm::ArrayType::get(type, std::max<int64_t>(count, 1));
    return new llvm::GlobalVariable(*module, t, false,
                                    llvm::GlobalValue::InternalLinkage,
                                    llvm::UndefValue::get(t), name);
  };
  // One block: its global scratch is a global variable too.
  loops.block_scratch = loops.shared_array;
  loops.merge_split = merge_split;
  HLOREF_RETURN_IF_ERROR(k->body(ctx, operands, output, loops));
  b.CreateRetVoid();
  ctx.set_function_state(nullptr);
  HLOREF_RETURN_IF_ERROR(cpu::PrepareModuleForHost(*module));
  HostKernel h;
  HLOREF_ASSIGN_OR_RETURN(
      h.jit, cpu::JitModule::Compile(std::move(module), std::move(context),
                                     cpu::JitOptions()));
  HLOREF_ASSIGN_OR_RETURN(h.fn, h.jit->Lookup("kernel"));
  return h;
}

// Physical strides (in elements) of each logical dimension of `shape`.
std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  std::vector<int64_t> m2m = shape.LayoutOrDefault().minor_to_major;
  int64_t s = 1;
  for (int64_t d : m2m) {
    strides[d] = s;
    s *= shape.dimensions(d);
  }
  return strides;
}

TEST(GpuRngTest, BitGeneratorMatchesTheCpuRuntimeBitForBit) {
  // The reference is the CPU backend's runtime (rng.cc), whose Threefry
  // and Philox blocks runtime_test checks against Random123's known
  // answers; here every output element and the new state must be equal.
  struct Case {
    const char* algorithm;
    int64_t words;
    const char* out;
  };
  const Case cases[] = {
      {"rng_three_fry", 2, "u32[7,6]{1,0}"},
      {"rng_three_fry", 2, "u32[7,5]{0,1}"},
      {"rng_three_fry", 3, "s8[5,3]{0,1}"},
      {"rng_three_fry", 2, "u64[3,5]{1,0}"},
      {"rng_three_fry", 2, "u16[9]{0}"},
      {"rng_three_fry", 2, "u32[]"},
      {"rng_philox", 3, "u32[7,6]{1,0}"},
      {"rng_philox", 2, "u32[3,3,3]{0,2,1}"},
      {"rng_philox", 3, "u64[5,3]{0,1}"},
      {"rng_philox", 4, "s16[11]{0}"},
      {"rng_default", 3, "u8[6,2]{1,0}"},
      {"rng_philox", 3, "u64[]"},
  };
  const uint64_t states[][4] = {
      {0x0123456789abcdefull, 42, 7, 99},
      // Counters about to carry into the high word.
      {0xfeedfacecafebeefull, 0xfffffffffffffffeull, 0xffffffffffffffffull, 5},
  };
  for (const Case& c : cases) {
    for (const auto& st : states) {
      const std::string text = absl::StrCat(
          "HloModule m\nENTRY e {\n  s = u64[", c.words,
          "] parameter(0)\n  ROOT r = (u64[", c.words, "], ", c.out,
          ") rng-bit-generator(s), algorithm=", c.algorithm, "\n}\n");
      absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
      ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
      const HloInstruction& inst = *(*m)->entry()->root();
      absl::StatusOr<HostKernel> k = CompileForHost(inst);
      ASSERT_TRUE(k.ok()) << k.status();
      const Shape& out = inst.shape().tuple_shapes(1);
      const size_t bytes = static_cast<size_t>(codegen::ArrayBytes(out));
      std::vector<uint8_t> got(bytes + 1, 0xAA), want(bytes + 1, 0xAA);
      std::vector<uint64_t> state(st, st + c.words);
      std::vector<uint64_t> got_state(c.words, 1), want_state(c.words, 2);
      reinterpret_cast<void (*)(const void*, void*, void*)>(k->fn)(
          state.data(), got_state.data(), got.data());
      const std::string alg = c.algorithm;
      const std::vector<int64_t> dims(out.dimensions().begin(),
                                      out.dimensions().end());
      const std::vector<int64_t> strides = Strides(out);
      hloref_cpu_rng_bit_generator(
          nullptr, alg == "rng_three_fry" ? 1 : (alg == "rng_philox" ? 2 : 0),
          state.data(), c.words, want_state.data(),
          static_cast<int32_t>(out.element_type()), want.data(), out.rank(),
          dims.data(), strides.data());
      EXPECT_EQ(got, want) << text;
      EXPECT_EQ(got_state, want_state) << text;
    }
  }
}

Shape ShapeOf(const std::string& text) {
  absl::StatusOr<Shape> s = ParseShape(text);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : Shape();
}

// The module's root (whose operands are its parameters, in order) run as
// a device kernel on the host and by the CPU backend: every result element
// bit for bit equal.
// With `tolerance` > 0 the results are compared as values instead:
// |got - want| <= tolerance * max |want| per result (NaN where NaN).
// `merge_split`: as CompileForHost's.
void ExpectSameAsCpuBackend(const std::string& text,
                            const std::vector<Literal>& args,
                            double tolerance = 0, int64_t merge_split = 0) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
  const HloInstruction& inst = *(*m)->entry()->root();
  absl::StatusOr<HostKernel> k = CompileForHost(inst, merge_split);
  ASSERT_TRUE(k.ok()) << k.status();
  std::vector<std::vector<uint8_t>> buffers;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Shape& shape = inst.operand(i)->shape();
    buffers.emplace_back(codegen::ArrayBytes(shape) + 1);
    codegen::LiteralToPhysical(args[i], shape, buffers.back().data());
  }
  std::vector<Shape> outs;
  codegen::CollectArrayShapes(inst.shape(), &outs);
  for (const Shape& shape : outs) {
    buffers.emplace_back(codegen::ArrayBytes(shape) + 1, 0xAA);
  }
  std::vector<void*> ptrs;
  for (auto& b : buffers) ptrs.push_back(b.data());
  // At most 4 buffers in these tests (extra arguments are ignored).
  ASSERT_LE(ptrs.size(), 4u);
  ptrs.resize(4, nullptr);
  reinterpret_cast<void (*)(void*, void*, void*, void*)>(k->fn)(
      ptrs[0], ptrs[1], ptrs[2], ptrs[3]);
  std::vector<Literal> copies;
  for (const Literal& a : args) copies.push_back(a);
  absl::StatusOr<std::vector<Literal>> want =
      cpu::CompileAndRun(text, std::move(copies));
  ASSERT_TRUE(want.ok()) << want.status();
  std::vector<const Literal*> want_leaves;
  for (const Literal& l : *want) {
    if (l.shape().IsTuple()) {
      for (const Literal& e : l.tuple_elements()) want_leaves.push_back(&e);
    } else {
      want_leaves.push_back(&l);
    }
  }
  ASSERT_EQ(want_leaves.size(), outs.size());
  SCOPED_TRACE(absl::StrCat("merge_split ", merge_split));
  for (size_t r = 0; r < outs.size(); ++r) {
    Literal got = codegen::PhysicalToLiteral(
        buffers[inst.operand_count() + r].data(), outs[r]);
    if (tolerance == 0) {
      EXPECT_EQ(cpu::Bits(got), cpu::Bits(*want_leaves[r]))
          << "result " << r << " of\n"
          << text;
      continue;
    }
    const bool complex = IsComplex(outs[r].element_type());
    auto value = [&](const Literal& l, int64_t i) -> std::complex<double> {
      return complex ? l.GetAsComplex(i) : l.GetAsDouble(i);
    };
    double scale = 0;
    for (int64_t i = 0; i < got.element_count(); ++i) {
      const double w = std::abs(value(*want_leaves[r], i));
      if (std::isfinite(w)) scale = std::max(scale, w);
    }
    for (int64_t i = 0; i < got.element_count(); ++i) {
      const std::complex<double> g = value(got, i),
                                 w = value(*want_leaves[r], i);
      if (std::isnan(w.real())) {
        EXPECT_TRUE(std::isnan(g.real())) << "element " << i << " of\n" << text;
      } else {
        EXPECT_LE(std::abs(g - w), tolerance * scale)
            << "element " << i << ": " << g << " vs " << w << " in\n"
            << text;
      }
    }
  }
}

// Deterministic test data with many duplicates (23 distinct values), and
// for floats NaNs, -0 and -inf.
Literal Data(const Shape& shape, uint64_t seed, bool specials) {
  Literal l(shape);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int64_t v = static_cast<int64_t>(x % 23) - 11;
    if (IsFloat(shape.element_type())) {
      double d = static_cast<double>(v) * 0.5;
      if (specials && x % 17 == 0) d = std::nan("");
      if (specials && x % 19 == 0) d = -0.0;
      if (specials && x % 29 == 0) d = -std::numeric_limits<double>::infinity();
      l.SetFromDouble(i, d);
    } else if (IsComplex(shape.element_type())) {
      l.SetFromComplex(
          i, {static_cast<double>(v) * 0.25,
              static_cast<double>(static_cast<int64_t>(x % 13) - 6) * 0.5});
    } else {
      l.SetFromInt64(i, v);
    }
  }
  return l;
}

TEST(GpuSortTest, SortMatchesTheCpuBackend) {
  // f32 under LT with NaNs (not a strict weak order: the merge order
  // decides), unstable flag; keys + values with a GT comparator along
  // dimension 0 of a column-major array; TOTALORDER on f64 with a row
  // length that is not a power of two; rows of one element.
  std::vector<Literal> args;
  args.push_back(Data(ShapeOf("f32[4,37]"), 1, true));
  ExpectSameAsCpuBackend(R"(
HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[4,37] parameter(0)
  ROOT s = f32[4,37] sort(x), dimensions={1}, to_apply=lt
})",
                         args);
  args.clear();
  args.push_back(Data(ShapeOf("s32[50,3]{0,1}"), 2, false));
  args.push_back(Data(ShapeOf("f32[50,3]"), 3, true));
  ExpectSameAsCpuBackend(R"(
HloModule m
gt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY e {
  k = s32[50,3]{0,1} parameter(0)
  v = f32[50,3] parameter(1)
  ROOT s = (s32[50,3]{0,1}, f32[50,3]) sort(k, v), dimensions={0}, is_stable=true, to_apply=gt
})",
                         args);
  args.clear();
  args.push_back(Data(ShapeOf("f64[3,129]"), 4, true));
  ExpectSameAsCpuBackend(R"(
HloModule m
lt {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f64[3,129] parameter(0)
  ROOT s = f64[3,129] sort(x), dimensions={1}, is_stable=true, to_apply=lt
})",
                         args);
  args.clear();
  args.push_back(Data(ShapeOf("u8[5,1]"), 5, false));
  ExpectSameAsCpuBackend(R"(
HloModule m
lt {
  a = u8[] parameter(0)
  b = u8[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = u8[5,1] parameter(0)
  ROOT s = u8[5,1] sort(x), dimensions={1}, to_apply=lt
})",
                         args);
}

TEST(GpuSortTest, LongRowsAndMergePathMatchTheCpuBackend) {
  // Rows beyond shared memory (5,000 and 4,097 elements: global scratch)
  // and the merge path of the last levels (merges split into 2, 7, 64 and
  // 256 chunks, each found by binary search and checked against the next
  // chunk's start): bit for bit the CPU runtime's sequential merge sort,
  // for LT with NaNs (inconsistent: the check must catch splits the
  // sequential merge never reaches), TOTALORDER (consistent) and keys +
  // values, and topk of long rows.
  for (int64_t split : {0, 2, 7, 64, 256}) {
    std::vector<Literal> args;
    args.push_back(Data(ShapeOf("f32[2,5000]"), 11, true));
    ExpectSameAsCpuBackend(R"(
HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[2,5000] parameter(0)
  ROOT s = f32[2,5000] sort(x), dimensions={1}, to_apply=lt
})",
                           args, 0, split);
    args.clear();
    args.push_back(Data(ShapeOf("f64[4097]"), 12, true));
    ExpectSameAsCpuBackend(R"(
HloModule m
lt {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f64[4097] parameter(0)
  ROOT s = f64[4097] sort(x), dimensions={0}, is_stable=true, to_apply=lt
})",
                           args, 0, split);
    args.clear();
    args.push_back(Data(ShapeOf("s32[300,2]{0,1}"), 13, false));
    args.push_back(Data(ShapeOf("f32[300,2]"), 14, true));
    ExpectSameAsCpuBackend(R"(
HloModule m
gt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY e {
  k = s32[300,2]{0,1} parameter(0)
  v = f32[300,2] parameter(1)
  ROOT s = (s32[300,2]{0,1}, f32[300,2]) sort(k, v), dimensions={0}, is_stable=true, to_apply=gt
})",
                           args, 0, split);
    args.clear();
    args.push_back(Data(ShapeOf("bf16[2,6000]"), 15, true));
    ExpectSameAsCpuBackend(R"(
HloModule m
ENTRY e {
  x = bf16[2,6000] parameter(0)
  ROOT t = (bf16[2,9], s32[2,9]) topk(x), k=9, largest=true
})",
                           args, 0, split);
  }
}

TEST(GpuSortTest, TopKMatchesTheCpuBackend) {
  for (const char* type : {"f32", "bf16", "s8", "u16"}) {
    for (const char* largest : {"true", "false"}) {
      const std::string t = type;
      std::vector<Literal> args;
      args.push_back(Data(ShapeOf(t + "[3,100]"), 6, true));
      ExpectSameAsCpuBackend(
          absl::StrCat("HloModule m\nENTRY e {\n  x = ", t,
                       "[3,100] parameter(0)\n  ROOT t = (", t,
                       "[3,7], s32[3,7]) topk(x), k=7, largest=", largest,
                       "\n}\n"),
          args);
    }
  }
}

// A symmetric positive definite [batch, m, m] matrix (M M^T + m I of
// small integers, exact in every float type used) in `lower`'s triangle,
// garbage (1e30) in the other, which must not be read.
Literal Spd(const std::string& type, int64_t batch, int64_t m, bool lower) {
  Literal l(ShapeOf(absl::StrCat(type, "[", batch, ",", m, ",", m, "]")));
  for (int64_t bi = 0; bi < batch; ++bi) {
    std::vector<double> mm(m * m);
    for (int64_t i = 0; i < m * m; ++i) {
      mm[i] = static_cast<double>((i * 7 + bi * 3) % 5) - 2;
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        double v = i == j ? static_cast<double>(m) : 0.0;
        for (int64_t k = 0; k < m; ++k) v += mm[i * m + k] * mm[j * m + k];
        const bool used = lower ? j <= i : j >= i;
        l.SetFromDouble((bi * m + i) * m + j, used ? v : 1e30);
      }
    }
  }
  return l;
}

// A Hermitian positive definite [batch, m, m] matrix (M M^H + m I with
// small Gaussian-integer M) in `lower`'s triangle, garbage in the other.
Literal HermitianPd(const std::string& type, int64_t batch, int64_t m,
                    bool lower) {
  Literal l(ShapeOf(absl::StrCat(type, "[", batch, ",", m, ",", m, "]")));
  using C = std::complex<double>;
  for (int64_t bi = 0; bi < batch; ++bi) {
    std::vector<C> mm(m * m);
    for (int64_t i = 0; i < m * m; ++i) {
      mm[i] = C(static_cast<double>((i * 7 + bi * 3) % 5) - 2,
                static_cast<double>((i * 3 + bi) % 3) - 1);
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        C v = i == j ? C(static_cast<double>(m), 0) : C(0, 0);
        for (int64_t k = 0; k < m; ++k) {
          v += mm[i * m + k] * std::conj(mm[j * m + k]);
        }
        const bool used = lower ? j <= i : j >= i;
        l.SetFromComplex((bi * m + i) * m + j, used ? v : C(1e30, -1e30));
      }
    }
  }
  return l;
}

TEST(GpuLinalgTest, ComplexCholeskyAndSolveMatchTheCpuBackend) {
  for (const char* lower : {"true", "false"}) {
    const bool is_lower = std::string(lower) == "true";
    for (const auto& [type, tol] : std::vector<std::pair<std::string, double>>{
             {"c128", 1e-14}, {"c64", 1e-6}}) {
      std::vector<Literal> args;
      args.push_back(HermitianPd(type, 2, 5, is_lower));
      ExpectSameAsCpuBackend(
          absl::StrCat("HloModule m\nENTRY e {\n  a = ", type,
                       "[2,5,5] parameter(0)\n  ROOT c = ", type,
                       "[2,5,5] cholesky(a), lower=", lower, "\n}\n"),
          args, tol);
    }
    for (const char* left : {"true", "false"}) {
      for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
        const std::string b_shape =
            std::string(left) == "true" ? "c128[2,5,3]" : "c128[2,3,5]";
        std::vector<Literal> args;
        args.push_back(HermitianPd("c128", 2, 5, is_lower));
        args.push_back(Data(ShapeOf(b_shape), 10, false));
        ExpectSameAsCpuBackend(
            absl::StrCat(
                "HloModule m\nENTRY e {\n  a = c128[2,5,5] "
                "parameter(0)\n  b = ",
                b_shape, " parameter(1)\n  ROOT x = ", b_shape,
                " triangular-solve(a, b), left_side=", left, ", lower=", lower,
                ", unit_diagonal=false, transpose_a=", transpose, "\n}\n"),
            args, 1e-13);
      }
    }
  }
}

TEST(GpuLinalgTest, CholeskyMatchesTheCpuBackend) {
  // The CPU backend computes in long double (Eigen) and rounds once; the
  // device kernel accumulates in double and rounds each element: equal
  // within a few units of the type's precision on these well-conditioned
  // matrices.
  for (const char* lower : {"true", "false"}) {
    const bool is_lower = std::string(lower) == "true";
    for (const auto& [type, tol] : std::vector<std::pair<std::string, double>>{
             {"f64", 1e-14}, {"f32", 1e-6}}) {
      std::vector<Literal> args;
      args.push_back(Spd(type, 3, 6, is_lower));
      ExpectSameAsCpuBackend(
          absl::StrCat("HloModule m\nENTRY e {\n  a = ", type,
                       "[3,6,6] parameter(0)\n  ROOT c = ", type,
                       "[3,6,6] cholesky(a), lower=", lower, "\n}\n"),
          args, tol);
    }
  }
  // Not positive definite: all NaN (the CPU runtime's rule).
  std::vector<Literal> args;
  args.push_back(Data(ShapeOf("f64[2,4,4]"), 7, false));
  ExpectSameAsCpuBackend(R"(HloModule m
ENTRY e {
  a = f64[2,4,4] parameter(0)
  ROOT c = f64[2,4,4] cholesky(a), lower=true
})",
                         args, 1e-14);
}

TEST(GpuLinalgTest, TriangularSolveMatchesTheCpuBackend) {
  // Every combination of left_side, lower, transpose_a and unit_diagonal;
  // a is the (diagonally dominant) SPD matrix, b small integers.
  for (const char* left : {"true", "false"}) {
    for (const char* lower : {"true", "false"}) {
      for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
        for (const char* unit : {"false", "true"}) {
          const bool is_left = std::string(left) == "true";
          const std::string b_shape = is_left ? "f64[2,5,3]" : "f64[2,3,5]";
          std::vector<Literal> args;
          args.push_back(Spd("f64", 2, 5, std::string(lower) == "true"));
          args.push_back(Data(ShapeOf(b_shape), 8, false));
          ExpectSameAsCpuBackend(
              absl::StrCat("HloModule m\nENTRY e {\n  a = f64[2,5,5] "
                           "parameter(0)\n  b = ",
                           b_shape, " parameter(1)\n  ROOT x = ", b_shape,
                           " triangular-solve(a, b), left_side=", left,
                           ", lower=", lower, ", unit_diagonal=", unit,
                           ", transpose_a=", transpose, "\n}\n"),
              args, 1e-13);
        }
      }
    }
  }
}

TEST(GpuFftTest, DirectDftMatchesTheCpuBackend) {
  // The CPU backend: Eigen's FFT in long double, rounded once. The
  // device's direct DFT with compensated double sums: within 1e-13 (c128 /
  // f64) and 1e-6 (c64 / f32) of the largest result, every type, 1-3
  // axes, odd and even lengths.
  struct Case {
    const char* in;
    const char* out;
    const char* type;
    const char* lengths;
    double tolerance;
  };
  const Case cases[] = {
      {"c64[3,8]", "c64[3,8]", "FFT", "8", 1e-6},
      {"c128[2,6,5]", "c128[2,6,5]", "IFFT", "6,5", 1e-13},
      {"c128[2,3,4,5]", "c128[2,3,4,5]", "FFT", "3,4,5", 1e-13},
      {"f64[2,10]", "c128[2,6]", "RFFT", "10", 1e-13},
      {"f32[3,4,7]", "c64[3,4,4]", "RFFT", "4,7", 1e-6},
      {"c128[2,5]", "f64[2,8]", "IRFFT", "8", 1e-13},
      {"c64[3,4]", "f32[3,7]", "IRFFT", "7", 1e-6},
      {"c128[3,4,3]", "f64[3,4,4]", "IRFFT", "4,4", 1e-13},
  };
  for (const Case& c : cases) {
    std::vector<Literal> args;
    args.push_back(Data(ShapeOf(c.in), 9, false));
    ExpectSameAsCpuBackend(absl::StrCat("HloModule m\nENTRY e {\n  x = ", c.in,
                                        " parameter(0)\n  ROOT f = ", c.out,
                                        " fft(x), fft_type=", c.type,
                                        ", fft_length={", c.lengths, "}\n}\n"),
                           args, c.tolerance);
  }
}

}  // namespace
}  // namespace hloref::gpu
