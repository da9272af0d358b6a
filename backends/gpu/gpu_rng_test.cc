// rng and rng-get-and-update-state on the GPU (gpu_rng.h), checked without
// a GPU:
//  - host emulation: the draw and state-update bodies (the IR the kernels
//    hold) JIT-compiled for the CPU with a plain loop for the grid (libm
//    in place of libdevice) and compared with the CPU backend's runtime
//    (hloref_cpu_rng / hloref_cpu_rng_get_and_update_state, an
//    independent implementation: C++ with unsigned __int128 and long
//    double) on the same state: integers and pred bit for bit, float
//    draws within the bounds gpu_rng.h states;
//  - PTX: the kernels of a module with rng and rng-get-and-update-state
//    pass ptxas (nvJitLink) for sm_90 and sm_90a, share one state buffer
//    of kind kState, and have no local memory.
#include "backends/gpu/gpu_rng.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/ir_value.h"
#include "backends/cpu/jit.h"
#include "backends/cpu/runtime/array_ops.h"
#include "backends/cpu/runtime/run_context.h"
#include "backends/cpu/runtime/strided.h"
#include "backends/gpu/gpu_emitter.h"
#include "backends/gpu/nvjitlink.h"
#include "gtest/gtest.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "spec/ir/hlo_parser.h"
#include "spec/util/status_macros.h"

namespace hloref::gpu {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? *std::move(m) : nullptr;
}

// The host build of an rng's kernels: draws(a, b, state, out) and
// advance(state), or for rng-get-and-update-state update(state, old).
struct HostRng {
  std::unique_ptr<cpu::JitModule> jit;
  void* first = nullptr;   // draws / update
  void* second = nullptr;  // advance
};

DeviceLoops HostLoops(codegen::EmitContext& ctx) {
  DeviceLoops loops;
  loops.for_each = [&ctx](llvm::Value* n, const DeviceLoops::Body& body) {
    return ctx.EmitForLoop("item", ctx.I64(0), n, ctx.I64(1), body);
  };
  loops.once = [](const std::function<absl::Status()>& body) { return body(); };
  return loops;
}

absl::StatusOr<HostRng> BuildHostRng(const HloInstruction& inst) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("rng", *context);
  codegen::IRBuilder b(*context);
  codegen::EmitterTable table = codegen::DefaultEmitterTable();
  codegen::EmitContext ctx(*module, b, table, codegen::CodegenOptions());
  codegen::EmitContext::FunctionState state;
  const bool update = inst.opcode() == HloOpcode::kRngGetAndUpdateState;
  auto function = [&](const char* name, int args) {
    std::vector<llvm::Type*> params(args, b.getPtrTy());
    llvm::Function* f = llvm::Function::Create(
        llvm::FunctionType::get(b.getVoidTy(), params, false),
        llvm::GlobalValue::ExternalLinkage, name, *module);
    state = codegen::EmitContext::FunctionState();
    state.function = f;
    state.run_context = llvm::ConstantPointerNull::get(b.getPtrTy());
    ctx.set_function_state(&state);
    ctx.set_run_context(state.run_context);
    b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", f));
    return f;
  };
  const DeviceLoops loops = HostLoops(ctx);
  if (update) {
    llvm::Function* f = function("first", 2);
    codegen::IrArray st(f->getArg(0), RngStateShape());
    codegen::IrArray old(f->getArg(1), inst.shape());
    HLOREF_RETURN_IF_ERROR(
        EmitRngStateUpdate(ctx, st, inst.attrs().delta, &old, loops));
    b.CreateRetVoid();
  } else {
    llvm::Function* f = function("first", 4);
    codegen::IrArray a(f->getArg(0), inst.operand(0)->shape());
    codegen::IrArray bb(f->getArg(1), inst.operand(1)->shape());
    codegen::IrArray st(f->getArg(2), RngStateShape());
    codegen::IrArray out(f->getArg(3), inst.shape());
    HLOREF_RETURN_IF_ERROR(EmitRngDraws(ctx, inst, a, bb, st, out, loops));
    b.CreateRetVoid();
    llvm::Function* g = function("second", 1);
    codegen::IrArray st2(g->getArg(0), RngStateShape());
    HLOREF_RETURN_IF_ERROR(
        EmitRngStateUpdate(ctx, st2, RngStateAdvance(inst), nullptr, loops));
    b.CreateRetVoid();
  }
  ctx.set_function_state(nullptr);
  HLOREF_RETURN_IF_ERROR(cpu::PrepareModuleForHost(*module));
  HostRng h;
  HLOREF_ASSIGN_OR_RETURN(
      h.jit, cpu::JitModule::Compile(std::move(module), std::move(context),
                                     cpu::JitOptions()));
  HLOREF_ASSIGN_OR_RETURN(h.first, h.jit->Lookup("first"));
  if (!update) {
    HLOREF_ASSIGN_OR_RETURN(h.second, h.jit->Lookup("second"));
  }
  return h;
}

std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  int64_t s = 1;
  for (int64_t d : shape.LayoutOrDefault().minor_to_major) {
    strides[d] = s;
    s *= shape.dimensions(d);
  }
  return strides;
}

// One rng run on the host build and in the CPU runtime from `state`:
// the two outputs (physical bytes) and both new states.
struct Draws {
  std::vector<uint8_t> got, want;
  uint64_t got_state[3], want_state[3];
};

Draws RunBoth(const HloInstruction& inst, const HostRng& h, uint64_t a_bits,
              uint64_t b_bits, const uint64_t state[3]) {
  const Shape& out = inst.shape();
  const PrimitiveType type = out.element_type();
  const size_t bytes = static_cast<size_t>(codegen::ArrayBytes(out));
  Draws d;
  d.got.assign(bytes + 1, 0xAA);
  d.want.assign(bytes + 1, 0xAA);
  uint8_t a[8], b[8];
  std::memcpy(a, &a_bits, 8);
  std::memcpy(b, &b_bits, 8);
  std::memcpy(d.got_state, state, 24);
  std::memcpy(d.want_state, state, 24);
  reinterpret_cast<void (*)(void*, void*, void*, void*)>(h.first)(
      a, b, d.got_state, d.got.data());
  reinterpret_cast<void (*)(void*)>(h.second)(d.got_state);
  const std::vector<int64_t> dims(out.dimensions().begin(),
                                  out.dimensions().end());
  const std::vector<int64_t> strides = Strides(out);
  cpu::RunContext ctx;
  hloref_cpu_rng(&ctx, d.want_state,
                 inst.attrs().distribution == RandomDistribution::kNormal,
                 static_cast<int32_t>(type), a, b, d.want.data(), out.rank(),
                 dims.data(), strides.data());
  return d;
}

std::string RngModule(const std::string& type, const std::string& out,
                      const char* distribution) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", type,
                      "[] parameter(0)\n  b = ", type,
                      "[] parameter(1)\n  ROOT r = ", out,
                      " rng(a, b), distribution=", distribution, "\n}\n");
}

const uint64_t kStates[][3] = {
    {0, 0, 0},
    {0x0123456789abcdefull, 42, 7},
    // The counter carries into the high word during the draws.
    {0xfeedfacecafebeefull, 0xfffffffffffffff0ull, 0xffffffffffffffffull},
};

TEST(GpuRngTest, IntegerAndPredDrawsMatchTheCpuRuntimeBitForBit) {
  struct Case {
    const char* type;
    const char* out;
    int64_t a, b;
  };
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const Case cases[] = {
      {"s32", "s32[37,5]{0,1}", -1000, 1000},
      {"s32", "s32[16]", 5, 5},  // degenerate: a
      {"s32", "s32[16]", 9, -3},
      {"u8", "u8[9,7]", 3, 250},
      {"s8", "s8[33]", -128, 127},
      {"u16", "u16[64]", 0, 65535},
      {"s64", "s64[40]", kMin, kMax},
      {"u64", "u64[40]", 1, -1},  // u64: [1, 2^64 - 1)
      {"u32", "u32[7,3,2]{1,2,0}", 17, 4000000000},
      {"pred", "pred[50]", 0, 1},
      {"s4", "s4[30]", -8, 7},
      {"u4", "u4[30]", 2, 15},
  };
  for (const Case& c : cases) {
    const std::string text = RngModule(c.type, c.out, "rng_uniform");
    std::unique_ptr<HloModule> m = Parse(text);
    ASSERT_NE(m, nullptr);
    const HloInstruction& inst = *m->entry()->root();
    absl::StatusOr<HostRng> h = BuildHostRng(inst);
    ASSERT_TRUE(h.ok()) << h.status();
    for (const auto& st : kStates) {
      const Draws d = RunBoth(inst, *h, static_cast<uint64_t>(c.a),
                              static_cast<uint64_t>(c.b), st);
      EXPECT_EQ(d.got, d.want) << text;
      EXPECT_EQ(std::vector<uint64_t>(d.got_state, d.got_state + 3),
                std::vector<uint64_t>(d.want_state, d.want_state + 3))
          << text;
    }
  }
}

// Bits of a double / float bound in a u64 (low bytes).
uint64_t F64(double v) {
  uint64_t u;
  std::memcpy(&u, &v, 8);
  return u;
}
uint64_t F32(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u;
}
// f16 / bf16 bits of a value exactly representable in them.
uint64_t Half(PrimitiveType t, double v) {
  uint8_t buf[8] = {};
  cpu::rt::StoreFloatFromDouble(t, buf, v);
  uint64_t u = 0;
  std::memcpy(&u, buf, 2);
  return u;
}

double Element(PrimitiveType t, const std::vector<uint8_t>& bytes, int64_t i) {
  return cpu::rt::LoadFloat(t, bytes.data() + i * StorageBytes(t));
}

// Units in the last place of `v` in `t` (f64 / f32 / f16 / bf16).
double Ulp(PrimitiveType t, double v) {
  const int digits = t == PrimitiveType::kF64   ? 53
                     : t == PrimitiveType::kF32 ? 24
                     : t == PrimitiveType::kF16 ? 11
                                                : 8;
  const int min_exp = t == PrimitiveType::kF64   ? -1022
                      : t == PrimitiveType::kF32 ? -126
                      : t == PrimitiveType::kF16 ? -14
                                                 : -126;
  int e = 0;
  std::frexp(v, &e);
  return std::ldexp(1.0, std::max(e - 1, min_exp) - (digits - 1));
}

TEST(GpuRngTest, FloatUniformDrawsMatchTheCpuRuntime) {
  // The CPU runtime rounds lo + U (b - a) from long double, the device
  // computes fma(U, b - a, a) in double: f32 / f16 / bf16 results are
  // equal unless the exact value is within 2^-52 relative of a rounding
  // boundary of the type (none in these 25,000 draws per type); f64
  // results within 1 ulp; the values at b replaced as the CPU does.
  struct Case {
    PrimitiveType type;
    const char* name;
    uint64_t a, b;
  };
  const double kMax = std::numeric_limits<double>::max();
  const Case cases[] = {
      {PrimitiveType::kF32, "f32", F32(0.0f), F32(1.0f)},
      {PrimitiveType::kF32, "f32", F32(-3.5f), F32(2.25f)},
      {PrimitiveType::kF32, "f32", F32(1e-30f), F32(1e30f)},
      {PrimitiveType::kF32, "f32", F32(1.0f), F32(1.0000001f)},  // clamps
      {PrimitiveType::kF32, "f32", F32(2.0f), F32(-1.0f)},       // degenerate
      {PrimitiveType::kF32, "f32", F32(-0.0f), F32(0.0f)},       // degenerate
      {PrimitiveType::kF32, "f32", F32(-1e-45f), F32(0.0f)},     // b = +0
      {PrimitiveType::kF64, "f64", F64(0.0), F64(1.0)},
      {PrimitiveType::kF64, "f64", F64(-1e300), F64(3e-300)},
      {PrimitiveType::kF64, "f64", F64(-kMax), F64(kMax)},  // b - a overflows
      {PrimitiveType::kF64, "f64", F64(5.0), F64(std::nextafter(5.0, 6.0))},
      {PrimitiveType::kF16, "f16", Half(PrimitiveType::kF16, -2.0),
       Half(PrimitiveType::kF16, 3.0)},
      {PrimitiveType::kF16, "f16", Half(PrimitiveType::kF16, 1.0),
       Half(PrimitiveType::kF16, 1.0009765625)},  // one ulp: clamps to a
      {PrimitiveType::kBF16, "bf16", Half(PrimitiveType::kBF16, 0.0),
       Half(PrimitiveType::kBF16, 100.0)},
  };
  for (const Case& c : cases) {
    const std::string text =
        RngModule(c.name, absl::StrCat(c.name, "[100,50]{0,1}"), "rng_uniform");
    std::unique_ptr<HloModule> m = Parse(text);
    ASSERT_NE(m, nullptr);
    const HloInstruction& inst = *m->entry()->root();
    absl::StatusOr<HostRng> h = BuildHostRng(inst);
    ASSERT_TRUE(h.ok()) << h.status();
    const uint64_t* st = kStates[1];
    // f64: the device rounds a + U (b - a) once when b - a is exact in
    // double (all these cases but [-1e300, 3e-300), whose b - a is off by
    // 3e-300); the CPU's long double products and sums each round at
    // 2^-64 relative, which a cancellation (a < 0 < b) magnifies: the
    // difference is within 2 ulp of the result + 2^-62 (|a| + |b|).
    double lo = 0, hi = 0;
    std::memcpy(&lo, &c.a, 8);
    std::memcpy(&hi, &c.b, 8);
    auto bound = [&](double w) {
      return 2 * Ulp(c.type, w) +
             std::ldexp(std::fabs(lo) + std::fabs(hi), -62);
    };
    for (int rep = 0; rep < 5; ++rep) {
      const uint64_t state[3] = {st[0] + static_cast<uint64_t>(rep), st[1],
                                 st[2]};
      const Draws d = RunBoth(inst, *h, c.a, c.b, state);
      EXPECT_EQ(std::vector<uint64_t>(d.got_state, d.got_state + 3),
                std::vector<uint64_t>(d.want_state, d.want_state + 3));
      int64_t differ = 0;
      for (int64_t i = 0; i < 5000; ++i) {
        const double g = Element(c.type, d.got, i);
        const double w = Element(c.type, d.want, i);
        if (std::memcmp(d.got.data() + i * StorageBytes(c.type),
                        d.want.data() + i * StorageBytes(c.type),
                        StorageBytes(c.type)) != 0) {
          ++differ;
          ASSERT_EQ(c.type, PrimitiveType::kF64)
              << text << " element " << i << ": " << g << " vs " << w;
          EXPECT_LE(std::fabs(g - w), bound(w)) << text << " element " << i;
        }
      }
      if (c.type == PrimitiveType::kF64 && rep == 0) {
        std::printf("rng_uniform f64 [%g, %g): %lld of 5000 draws differ\n", lo,
                    hi, static_cast<long long>(differ));
      }
    }
  }
}

TEST(GpuRngTest, NormalDrawsAreWithinTheBoundOfTheCpuRuntime) {
  // Box-Muller in double with the C library's log and cos against the
  // CPU runtime's long double: |z| <= sqrt(-2 ln 2^-53) < 8.6, and the
  // device's error in z is below 2^-46 absolute (log: 1 ulp of a value
  // <= 37, relative 2^-52 through sqrt; the phase 2 pi u2 within 2^-50;
  // cos: 1 ulp), so |got - want| <= 2^-45 (|mu| + |sigma| 9) + 1 ulp of
  // the type. f32 / f16 results are then equal or 1 ulp apart.
  struct Case {
    PrimitiveType type;
    const char* name;
    double mu, sigma;
  };
  const Case cases[] = {
      {PrimitiveType::kF64, "f64", 0.0, 1.0},
      {PrimitiveType::kF64, "f64", -3.0, 0.25},
      {PrimitiveType::kF64, "f64", 1e10, 1e-3},
      {PrimitiveType::kF32, "f32", 0.0, 1.0},
      {PrimitiveType::kF32, "f32", 2.5, 7.0},
      {PrimitiveType::kF16, "f16", 1.0, 0.5},
  };
  for (const Case& c : cases) {
    const std::string text =
        RngModule(c.name, absl::StrCat(c.name, "[40,64]"), "rng_normal");
    std::unique_ptr<HloModule> m = Parse(text);
    ASSERT_NE(m, nullptr);
    const HloInstruction& inst = *m->entry()->root();
    absl::StatusOr<HostRng> h = BuildHostRng(inst);
    ASSERT_TRUE(h.ok()) << h.status();
    uint64_t a, b;
    if (c.type == PrimitiveType::kF64) {
      a = F64(c.mu);
      b = F64(c.sigma);
    } else if (c.type == PrimitiveType::kF32) {
      a = F32(static_cast<float>(c.mu));
      b = F32(static_cast<float>(c.sigma));
    } else {
      a = Half(c.type, c.mu);
      b = Half(c.type, c.sigma);
    }
    int64_t equal = 0;
    for (const auto& st : kStates) {
      const Draws d = RunBoth(inst, *h, a, b, st);
      EXPECT_EQ(std::vector<uint64_t>(d.got_state, d.got_state + 3),
                std::vector<uint64_t>(d.want_state, d.want_state + 3));
      for (int64_t i = 0; i < 40 * 64; ++i) {
        const double g = Element(c.type, d.got, i);
        const double w = Element(c.type, d.want, i);
        const double bound =
            std::ldexp(std::fabs(c.mu) + 9 * c.sigma, -45) + Ulp(c.type, w);
        EXPECT_LE(std::fabs(g - w), bound)
            << text << " element " << i << ": " << g << " vs " << w;
        equal += g == w;
      }
    }
    // f32 / f16: identical (measured: all); f64: within the bound.
    std::printf("rng_normal %s mu=%g sigma=%g: %lld of %d draws identical\n",
                c.name, c.mu, c.sigma, static_cast<long long>(equal),
                3 * 40 * 64);
    if (c.type != PrimitiveType::kF64) {
      EXPECT_GE(equal, 3 * 40 * 64 * 99 / 100) << text;
    }
  }
}

TEST(GpuRngTest, GetAndUpdateStateMatchesTheCpuRuntime) {
  const int64_t deltas[] = {0,
                            1,
                            17,
                            -1,
                            -5,
                            std::numeric_limits<int64_t>::max(),
                            std::numeric_limits<int64_t>::min()};
  for (const char* out : {"u64[2]", "u64[1,2]{0,1}"}) {
    for (int64_t delta : deltas) {
      const std::string text =
          absl::StrCat("HloModule m\nENTRY e {\n  ROOT r = ", out,
                       " rng-get-and-update-state(), delta=", delta, "\n}\n");
      std::unique_ptr<HloModule> m = Parse(text);
      ASSERT_NE(m, nullptr);
      absl::StatusOr<HostRng> h = BuildHostRng(*m->entry()->root());
      ASSERT_TRUE(h.ok()) << h.status();
      for (const auto& st : kStates) {
        uint64_t got_state[3], want_state[3], got[2] = {1, 1}, want[2] = {2, 2};
        std::memcpy(got_state, st, 24);
        std::memcpy(want_state, st, 24);
        reinterpret_cast<void (*)(void*, void*)>(h->first)(got_state, got);
        cpu::RunContext ctx;
        hloref_cpu_rng_get_and_update_state(&ctx, want_state, delta, want);
        EXPECT_EQ(std::vector<uint64_t>(got, got + 2),
                  std::vector<uint64_t>(want, want + 2))
            << text;
        EXPECT_EQ(std::vector<uint64_t>(got_state, got_state + 3),
                  std::vector<uint64_t>(want_state, want_state + 3))
            << text;
      }
    }
  }
}

TEST(GpuRngPtxTest, KernelsShareOneStateBufferAndPassPtxas) {
  const std::string text = R"(HloModule m
ENTRY e {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  u = f32[64,32]{0,1} rng(a, b), distribution=rng_uniform
  n = f32[1000] rng(a, b), distribution=rng_normal
  lo = s32[] constant(-7)
  hi = s32[] constant(90)
  i = s32[33] rng(lo, hi), distribution=rng_uniform
  s = u64[2] rng-get-and-update-state(), delta=12
  ROOT t = (f32[64,32]{0,1}, f32[1000], s32[33], u64[2]) tuple(u, n, i, s)
})";
  std::unique_ptr<HloModule> m = Parse(text);
  ASSERT_NE(m, nullptr);
  for (const char* arch : {"sm_90", "sm_90a"}) {
    GpuCompileOptions options;
    options.arch = arch;
    absl::StatusOr<GpuProgram> p = CompileModuleToPtx(*m, options);
    ASSERT_TRUE(p.ok()) << p.status();
    int64_t state = -1;
    for (size_t i = 0; i < p->buffers.size(); ++i) {
      if (p->buffers[i].kind == GpuBuffer::Kind::kState) {
        EXPECT_EQ(state, -1) << "one state buffer";
        state = static_cast<int64_t>(i);
        EXPECT_EQ(p->buffers[i].bytes, 24);
      }
    }
    ASSERT_GE(state, 0);
    // Draws then advance for each rng, one kernel for the state read.
    std::vector<std::string> names;
    for (const KernelLaunch& k : p->launches) {
      names.push_back(k.kernel.substr(k.kernel.find('_') + 1));
      EXPECT_NE(std::find(k.buffers.begin(), k.buffers.end(), state),
                k.buffers.end())
          << k.kernel << " does not take the state";
    }
    EXPECT_EQ(names, (std::vector<std::string>{
                         "rng_u", "rng_advance_u", "rng_n", "rng_advance_n",
                         "rng_i", "rng_advance_i", "rng_state_s"}));
    EXPECT_EQ(p->launches[2].elements, 1000);
    EXPECT_EQ(p->launches[2].grid[0], 4);
    // No local memory in the kernels themselves (libdevice's cos has a
    // slow-path argument reduction with a local array, a separate .func
    // reached only for |x| >= 2^31 or so; the phase here is < 2 pi).
    for (const KernelLaunch& k : p->launches) {
      const size_t begin = p->ptx.find(".entry " + k.kernel + "(");
      ASSERT_NE(begin, std::string::npos) << k.kernel;
      size_t end = p->ptx.find(".entry ", begin + 1);
      end = std::min(end, p->ptx.find(".func ", begin));
      const std::string body = p->ptx.substr(begin, end - begin);
      EXPECT_EQ(body.find(".local"), std::string::npos) << k.kernel;
    }
    // The normal draws call libdevice's log and cos.
    EXPECT_TRUE(p->linked_libdevice);
    absl::StatusOr<CubinResult> c = CompilePtxToCubin(p->ptx, arch);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(
        c->info_log.find("bytes spill stores") == std::string::npos ||
            c->info_log.find(" 0 bytes spill stores") != std::string::npos,
        true)
        << c->info_log;
  }
}

// Not rng, but the other device path of this work: an annotation
// custom-call (Sharding) is a device copy in one serial kernel, not a host
// step, and needs no library.
TEST(GpuRngPtxTest, AnnotationCustomCallIsADeviceCopy) {
  std::unique_ptr<HloModule> m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4,8]{1,0} parameter(0)
  ROOT s = f32[4,8]{0,1} custom-call(p), custom_call_target="Sharding", sharding={replicated}
})");
  ASSERT_NE(m, nullptr);
  GpuCompileOptions options;
  absl::StatusOr<GpuProgram> p = CompileModuleToPtx(*m, options);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->launches.size(), 1u);
  EXPECT_EQ(p->launches[0].kind, KernelKind::kSerial);
  EXPECT_TRUE(p->host_steps.empty());
  ASSERT_TRUE(CompilePtxToCubin(p->ptx, "sm_90").ok());
}

}  // namespace
}  // namespace hloref::gpu
