// Host-driven control flow of the GPU backend (gpu_control_flow.h):
// while, conditional and call as kernel sequences, with host steps and rng
// inside their bodies. Without a GPU: every module compiles to PTX that
// nvJitLink (ptxas) accepts for sm_90 and sm_90a, and the GPU program
// itself runs on the host: its unoptimised LLVM IR with the NVPTX special
// registers replaced by one thread of one block (the element-wise and
// serial kernels these modules use are correct so: a grid-stride loop then
// covers every element), JIT-compiled for the CPU, the launches walked by
// the runtime's own WalkLaunches, host steps run by their HostStep::run
// with a HostStepRun as the runtime does, buffers laid out as the runtime
// lays out device buffers (temps start as 0xA5 garbage). Expected values
// are derived by hand (comments) or are the CPU backend's results on the
// same module and host transfers, never the GPU code's own.
#include "backends/gpu/gpu_control_flow.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/backend.h"
#include "backends/codegen/ir_value.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/jit.h"
#include "backends/gpu/gpu_dynamic.h"
#include "backends/gpu/gpu_emitter.h"
#include "backends/gpu/gpu_host_steps.h"
#include "backends/gpu/nvjitlink.h"
#include "conformance/compare/compare.h"
#include "conformance/harness/golden_case.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "spec/ir/hlo_parser.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref::gpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Literal Lit(absl::string_view text) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  EXPECT_TRUE(lit.ok()) << lit.status() << ": " << text;
  return lit.ok() ? *std::move(lit) : Literal();
}

// What one emulated run did besides its results.
struct Trace {
  std::vector<std::string> launches;  // kernels and host steps, in order
  int64_t branches = 0;               // selectors read
};

// The program's kernels JIT-compiled for the host (one thread of one
// block), and its buffers.
class HostProgram {
 public:
  static absl::StatusOr<std::unique_ptr<HostProgram>> Create(
      const GpuProgram& program) {
    auto h = std::unique_ptr<HostProgram>(new HostProgram(program));
    auto context = std::make_unique<llvm::LLVMContext>();
    llvm::SMDiagnostic diag;
    std::unique_ptr<llvm::Module> module =
        llvm::parseAssemblyString(program.llvm_ir, diag, *context);
    if (module == nullptr) {
      return absl::InternalError(absl::StrCat("cannot parse the program's IR: ",
                                              diag.getMessage().str()));
    }
    for (const KernelLaunch& k : program.launches) {
      if (k.kind != KernelKind::kSerial && k.kind != KernelKind::kElementwise &&
          k.kind != KernelKind::kHostStep && k.kind != KernelKind::kBranch &&
          k.kind != KernelKind::kJump) {
        return absl::UnimplementedError(
            absl::StrCat("kernel ", k.kernel, " needs more than one thread"));
      }
    }
    if (llvm::NamedMDNode* md = module->getNamedMetadata("nvvm.annotations")) {
      module->eraseNamedMetadata(md);
    }
    std::vector<llvm::Function*> declarations;
    for (llvm::Function& f : *module) {
      if (f.isDeclaration()) declarations.push_back(&f);
    }
    for (llvm::Function* f : declarations) {
      const std::string name = f->getName().str();
      if (name.rfind("llvm.nvvm.read.ptx.sreg.", 0) == 0) {
        const bool count = name.find(".ntid.") != std::string::npos ||
                           name.find(".nctaid.") != std::string::npos;
        std::vector<llvm::CallInst*> calls;
        for (llvm::User* u : f->users()) {
          if (auto* c = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(c);
        }
        for (llvm::CallInst* c : calls) {
          c->replaceAllUsesWith(
              llvm::ConstantInt::get(c->getType(), count ? 1 : 0));
          c->eraseFromParent();
        }
        f->eraseFromParent();
      } else if (name.rfind("__nv_", 0) == 0) {
        f->setName(name.substr(5));  // libdevice -> libm
      }
    }
    // emu<l>(ptr args): kernel l with its arguments from an array.
    llvm::IRBuilder<> b(*context);
    for (size_t l = 0; l < program.launches.size(); ++l) {
      const KernelLaunch& k = program.launches[l];
      if (k.kind != KernelKind::kSerial && k.kind != KernelKind::kElementwise) {
        continue;
      }
      llvm::Function* kernel = module->getFunction(k.kernel);
      if (kernel == nullptr) {
        return absl::InternalError(absl::StrCat("no function ", k.kernel));
      }
      auto* fty = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
      llvm::Function* w =
          llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage,
                                 absl::StrCat("emu", l), *module);
      b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", w));
      std::vector<llvm::Value*> call_args;
      for (unsigned i = 0; i < kernel->arg_size(); ++i) {
        call_args.push_back(b.CreateLoad(
            b.getPtrTy(),
            b.CreateConstInBoundsGEP1_64(b.getPtrTy(), w->getArg(0), i)));
      }
      b.CreateCall(kernel, call_args);
      b.CreateRetVoid();
    }
    HLOREF_RETURN_IF_ERROR(cpu::PrepareModuleForHost(*module));
    HLOREF_ASSIGN_OR_RETURN(
        h->jit_, cpu::JitModule::Compile(std::move(module), std::move(context),
                                         cpu::JitOptions()));
    // Module state (rng) is zeroed once and kept between runs.
    for (const GpuBuffer& buf : program.buffers) {
      h->state_.emplace_back(buf.kind == GpuBuffer::Kind::kState
                                 ? std::max<int64_t>(buf.bytes, 1)
                                 : 0,
                             0);
    }
    return h;
  }

  // One run, as GpuExecutable::RunWith does it.
  absl::StatusOr<std::vector<Literal>> Run(absl::Span<const Literal> args,
                                           backends::HostTransfers* host,
                                           Trace* trace) {
    const std::vector<std::vector<Literal>> leaves = ArgumentLeaves(args);
    std::vector<std::vector<uint8_t>> buffers;
    for (size_t i = 0; i < program_.buffers.size(); ++i) {
      const GpuBuffer& buf = program_.buffers[i];
      std::vector<uint8_t> bytes(std::max<int64_t>(buf.bytes, 1) + 64, 0xA5);
      if (buf.kind == GpuBuffer::Kind::kConstant) {
        std::memcpy(bytes.data(), buf.data.data(), buf.bytes);
      } else if (buf.kind == GpuBuffer::Kind::kState) {
        std::memcpy(bytes.data(), state_[i].data(), buf.bytes);
      } else if (buf.kind == GpuBuffer::Kind::kParameter ||
                 buf.kind == GpuBuffer::Kind::kParameterSizes) {
        HLOREF_ASSIGN_OR_RETURN(std::vector<uint8_t> up,
                                ParameterBytes(buf, leaves));
        std::memcpy(bytes.data(), up.data(), buf.bytes);
      }
      buffers.push_back(std::move(bytes));
    }
    HostStepRun host_run(host);
    LaunchWalker walker;
    walker.run = [&](int64_t l) -> absl::Status {
      const KernelLaunch& k = program_.launches[l];
      trace->launches.push_back(k.kernel);
      if (k.kind == KernelKind::kHostStep) {
        const HostStep& step = program_.host_steps.at(k.host_step);
        std::vector<std::vector<uint8_t>> in, out;
        for (int64_t id : step.inputs) {
          const uint8_t* p = buffers[id].data();
          in.emplace_back(p, p + program_.buffers[id].bytes);
        }
        for (int64_t id : step.outputs) {
          out.emplace_back(program_.buffers[id].bytes, 0);
        }
        HLOREF_RETURN_IF_ERROR(
            step.run(host_run.context(), in, absl::MakeSpan(out)));
        for (size_t i = 0; i < out.size(); ++i) {
          std::memcpy(buffers[step.outputs[i]].data(), out[i].data(),
                      out[i].size());
        }
        return absl::OkStatus();
      }
      std::vector<void*> ptrs;
      for (int64_t id : k.buffers) ptrs.push_back(buffers[id].data());
      HLOREF_ASSIGN_OR_RETURN(void* fn, jit_->Lookup(absl::StrCat("emu", l)));
      reinterpret_cast<void (*)(void**)>(fn)(ptrs.data());
      return absl::OkStatus();
    };
    walker.read = [&](int64_t id) -> absl::StatusOr<std::vector<uint8_t>> {
      ++trace->branches;
      const uint8_t* p = buffers[id].data();
      return std::vector<uint8_t>(p, p + program_.buffers[id].bytes);
    };
    HLOREF_RETURN_IF_ERROR(WalkLaunches(program_, walker));
    for (size_t i = 0; i < program_.buffers.size(); ++i) {
      if (program_.buffers[i].kind == GpuBuffer::Kind::kState) {
        std::memcpy(state_[i].data(), buffers[i].data(), state_[i].size());
      }
    }
    std::vector<Literal> results;
    for (size_t i = 0; i < program_.result_buffers.size(); ++i) {
      const int64_t id = program_.result_buffers[i];
      if (id < 0) {
        results.push_back(Literal::Token());
        continue;
      }
      HLOREF_ASSIGN_OR_RETURN(
          Literal leaf,
          ResultLeaf(program_.result_shapes[i], buffers[id].data(), nullptr));
      results.push_back(std::move(leaf));
    }
    return results;
  }

 private:
  explicit HostProgram(const GpuProgram& program) : program_(program) {}
  GpuProgram program_;
  std::unique_ptr<cpu::JitModule> jit_;
  std::vector<std::vector<uint8_t>> state_;
};

// Compiles `text` for sm_90a and sm_90 (nvJitLink accepts both PTX; no
// serial entry: every launch is a kernel of the parallel kinds, a host
// step or a control step) and loads the sm_90 program on the host.
absl::StatusOr<std::unique_ptr<HostProgram>> CompileForHost(
    absl::string_view text, GpuProgram* program_out = nullptr,
    bool specialised_kernels = true) {
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          ParseHloModule(text));
  absl::StatusOr<GpuProgram> program;
  for (const char* arch : {"sm_90a", "sm_90"}) {
    GpuCompileOptions options;
    options.arch = arch;
    options.specialised_kernels = specialised_kernels;
    program = CompileModuleToPtx(*module, options);
    if (!program.ok()) return program.status();
    absl::StatusOr<CubinResult> cubin = CompilePtxToCubin(program->ptx, arch);
    EXPECT_TRUE(cubin.ok()) << arch << ": " << cubin.status();
    EXPECT_FALSE(cubin.ok() && cubin->cubin.empty()) << arch;
    for (const KernelLaunch& k : program->launches) {
      EXPECT_FALSE(absl::StrContains(k.kernel, "entry_serial")) << k.kernel;
    }
  }
  if (program_out != nullptr) *program_out = *program;
  return HostProgram::Create(*program);
}

// The CPU backend's executable of the same module (its own rng state,
// zeroed, as the GPU program's).
absl::StatusOr<std::unique_ptr<backends::Executable>> CompileOnCpu(
    absl::string_view text) {
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          ParseHloModule(text));
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<backends::Backend> backend,
                          cpu::CreateCpuBackend(cpu::CpuBackendOptions()));
  return backend->Compile(*module, {});
}

// The CPU backend's results on the same module and host transfers.
absl::StatusOr<std::vector<Literal>> RunOnCpu(absl::string_view text,
                                              std::vector<Literal> args,
                                              backends::HostTransfers* host) {
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<backends::Executable> exe,
                          CompileOnCpu(text));
  return exe->RunWithHost(args, *host);
}

int64_t Count(const Trace& trace, absl::string_view part) {
  int64_t n = 0;
  for (const std::string& k : trace.launches) {
    if (absl::StrContains(k, part)) ++n;
  }
  return n;
}

std::string Text(const Literal& l) { return l.ToString(); }

TEST(GpuControlFlow, BranchIndexIsTheCpuBackendsRule) {
  // pred: true -> 0, false -> 1 (any nonzero byte is true).
  const uint8_t t = 1, f = 0, t2 = 0xFF;
  EXPECT_EQ(*BranchIndex(PrimitiveType::kPred, {&t, 1}, 2), 0);
  EXPECT_EQ(*BranchIndex(PrimitiveType::kPred, {&f, 1}, 2), 1);
  EXPECT_EQ(*BranchIndex(PrimitiveType::kPred, {&t2, 1}, 2), 0);
  // s32: in range -> itself; negative or too large -> the last branch.
  auto s32 = [](int32_t v, int64_t n) {
    uint8_t b[4];
    std::memcpy(b, &v, 4);
    return *BranchIndex(PrimitiveType::kS32, {b, 4}, n);
  };
  EXPECT_EQ(s32(0, 3), 0);
  EXPECT_EQ(s32(2, 3), 2);
  EXPECT_EQ(s32(3, 3), 2);
  EXPECT_EQ(s32(-1, 3), 2);
  EXPECT_EQ(s32(INT32_MIN, 3), 2);
  // s64 is truncated to 32 bits as the CPU's sext-or-trunc: 2^32 + 1 -> 1.
  const int64_t big = (int64_t{1} << 32) + 1;
  uint8_t b8[8];
  std::memcpy(b8, &big, 8);
  EXPECT_EQ(*BranchIndex(PrimitiveType::kS64, {b8, 8}, 3), 1);
  // u8 is sign-extended from 8 bits: 200 -> -56 -> the last branch.
  const uint8_t u = 200;
  EXPECT_EQ(*BranchIndex(PrimitiveType::kU8, {&u, 1}, 250), 249);
  EXPECT_FALSE(BranchIndex(PrimitiveType::kF32, {b8, 4}, 2).ok());
  EXPECT_FALSE(BranchIndex(PrimitiveType::kS32, {b8, 2}, 2).ok());
}

TEST(GpuControlFlow, WalkFollowsBranchesAndJumps) {
  // 0: kernel a; 1: branch on buffer 0 {2, 4}; 2: kernel b; 3: jump 0;
  // 4: kernel c. The selector is true twice, then false: a b a b a c.
  GpuProgram p;
  p.buffers.resize(1);
  p.buffers[0].shape = Shape::Scalar(PrimitiveType::kPred);
  p.buffers[0].bytes = 1;
  auto kernel = [](const char* name) {
    KernelLaunch k;
    k.kernel = name;
    return k;
  };
  p.launches.push_back(kernel("a"));
  KernelLaunch branch;
  branch.kind = KernelKind::kBranch;
  branch.kernel = "branch";
  branch.selector = 0;
  branch.targets = {2, 4};
  p.launches.push_back(branch);
  p.launches.push_back(kernel("b"));
  KernelLaunch jump;
  jump.kind = KernelKind::kJump;
  jump.kernel = "jump";
  jump.targets = {0};
  p.launches.push_back(jump);
  p.launches.push_back(kernel("c"));
  std::vector<uint8_t> answers = {1, 1, 0};
  std::string ran;
  size_t reads = 0;
  LaunchWalker w;
  w.run = [&](int64_t l) {
    ran += p.launches[l].kernel;
    return absl::OkStatus();
  };
  w.read = [&](int64_t) -> absl::StatusOr<std::vector<uint8_t>> {
    return std::vector<uint8_t>{answers.at(reads++)};
  };
  ASSERT_TRUE(WalkLaunches(p, w).ok());
  EXPECT_EQ(ran, "ababac");
  // A target outside the program is an internal error naming the step.
  p.launches[3].targets = {9};
  reads = 0;
  absl::Status bad = WalkLaunches(p, w);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(bad.message(), HasSubstr("jump"));
}

TEST(GpuControlFlow, WhileWithInfeedAndRngMatchesTheCpuBackend) {
  // golden infeed's seed_while_loop_reads_in_order plus an rng in the
  // body: acc = acc * 10 + x over the infeed 1, 2, 3 is 123 only when the
  // body runs exactly three times in order (hand-derived); the draws (s32
  // in [0, 1000), f32 in [-1, 1)) summed over the iterations must be the
  // CPU backend's bit for bit (the same Philox words from the same state).
  const std::string text = R"(
HloModule m
cond {
  p = (s32[], s32[], token[], s32[5], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[], token[], s32[5], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  tok = token[] get-tuple-element(p), index=2
  si = s32[5] get-tuple-element(p), index=3
  sf = f32[3] get-tuple-element(p), index=4
  in = (s32[], token[]) infeed(tok)
  x = s32[] get-tuple-element(in), index=0
  t = token[] get-tuple-element(in), index=1
  one = s32[] constant(1)
  ten = s32[] constant(10)
  i1 = s32[] add(i, one)
  shifted = s32[] multiply(acc, ten)
  acc1 = s32[] add(shifted, x)
  lo = s32[] constant(0)
  hi = s32[] constant(1000)
  di = s32[5] rng(lo, hi), distribution=rng_uniform
  si1 = s32[5] add(si, di)
  flo = f32[] constant(-1)
  fhi = f32[] constant(1)
  df = f32[3] rng(flo, fhi), distribution=rng_uniform
  sf1 = f32[3] add(sf, df)
  ROOT r = (s32[], s32[], token[], s32[5], f32[3]) tuple(i1, acc1, t, si1, sf1)
}
ENTRY main {
  zero = s32[] constant(0)
  t0 = token[] after-all()
  zi = s32[5] broadcast(zero), dimensions={}
  fz = f32[] constant(0)
  zf = f32[3] broadcast(fz), dimensions={}
  init = (s32[], s32[], token[], s32[5], f32[3]) tuple(zero, zero, t0, zi, zf)
  w = (s32[], s32[], token[], s32[5], f32[3]) while(init), condition=cond, body=body
  acc = s32[] get-tuple-element(w), index=1
  si = s32[5] get-tuple-element(w), index=3
  sf = f32[3] get-tuple-element(w), index=4
  ROOT s = (s32[], s32[5], f32[3]) tuple(acc, si, sf)
})";
  auto h = CompileForHost(text);
  ASSERT_TRUE(h.ok()) << h.status();
  auto feed = [] {
    backends::HostTransfers host;
    for (const char* v : {"s32[] 1", "s32[] 2", "s32[] 3"}) {
      host.infeed.push_back(Lit(v));
    }
    return host;
  };
  backends::HostTransfers gpu_host = feed(), cpu_host = feed();
  Trace trace;
  auto got = (*h)->Run({}, &gpu_host, &trace);
  ASSERT_TRUE(got.ok()) << got.status();
  auto cpu = CompileOnCpu(text);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  auto want = (*cpu)->RunWithHost({}, cpu_host);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_EQ(got->size(), 3u);
  ASSERT_EQ(want->size(), 3u);
  EXPECT_EQ((*got)[0].Get<int32_t>({}), 123);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(Text((*got)[i]), Text((*want)[i])) << "result " << i;
  }
  // The loop's shape: four condition branches (three true, one false),
  // three bodies, each with one infeed step and two rng draws (each draw
  // followed by its state-advance kernel).
  EXPECT_EQ(trace.branches, 4);
  EXPECT_EQ(Count(trace, "host_step"), 3);
  EXPECT_EQ(Count(trace, "_rng_advance_"), 6);
  EXPECT_TRUE(gpu_host.infeed.empty());
  // Run again: the state buffer persists between runs, so the draws move
  // on, equal to the CPU executable's second run, while the infeed
  // decides acc again.
  backends::HostTransfers again = feed(), cpu_again = feed();
  Trace trace2;
  auto second = (*h)->Run({}, &again, &trace2);
  ASSERT_TRUE(second.ok()) << second.status();
  auto want2 = (*cpu)->RunWithHost({}, cpu_again);
  ASSERT_TRUE(want2.ok()) << want2.status();
  EXPECT_EQ((*second)[0].Get<int32_t>({}), 123);
  EXPECT_NE(Text((*second)[1]), Text((*got)[1]));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(Text((*second)[i]), Text((*want2)[i]))
        << "second run, result " << i;
  }
}

TEST(GpuControlFlow, InfeedShortOfTheLoopIsTheCpuBackendsError) {
  // Two values for three iterations: the third infeed fails in the host
  // step, with the CPU runtime's message (the same code as the CPU
  // backend's run).
  const std::string text = R"(
HloModule m
cond {
  p = (s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  tok = token[] get-tuple-element(p), index=1
  in = (s32[], token[]) infeed(tok)
  x = s32[] get-tuple-element(in), index=0
  t = token[] get-tuple-element(in), index=1
  i1 = s32[] add(i, x)
  ROOT r = (s32[], token[]) tuple(i1, t)
}
ENTRY main {
  zero = s32[] constant(0)
  t0 = token[] after-all()
  init = (s32[], token[]) tuple(zero, t0)
  w = (s32[], token[]) while(init), condition=cond, body=body
  ROOT s = s32[] get-tuple-element(w), index=0
})";
  auto h = CompileForHost(text);
  ASSERT_TRUE(h.ok()) << h.status();
  // 1 + 1 + 1: three iterations read three values.
  backends::HostTransfers ok;
  for (int k = 0; k < 3; ++k) ok.infeed.push_back(Lit("s32[] 1"));
  Trace trace;
  auto three = (*h)->Run({}, &ok, &trace);
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_EQ((*three)[0].Get<int32_t>({}), 3);
  backends::HostTransfers gpu_short, cpu_short;
  for (int k = 0; k < 2; ++k) {
    gpu_short.infeed.push_back(Lit("s32[] 1"));
    cpu_short.infeed.push_back(Lit("s32[] 1"));
  }
  auto got = (*h)->Run({}, &gpu_short, &trace);
  auto want = RunOnCpu(text, {}, &cpu_short);
  ASSERT_FALSE(got.ok());
  ASSERT_FALSE(want.ok());
  EXPECT_EQ(got.status().code(), want.status().code());
  EXPECT_THAT(got.status().message(), HasSubstr("infeed"));
}

TEST(GpuControlFlow, NestedWhileRunsTheInnerLoopPerOuterIteration) {
  // outer i = 0, 1, 2; inner j = 0 .. i; total += 10 i + j + 1:
  // i=0: 1; i=1: 11 + 12 = 23; i=2: 21 + 22 + 23 = 66; total 90, and
  // 1 + 2 + 3 = 6 inner bodies (hand-derived). One iteration more or
  // less of either loop changes the total.
  const std::string text = R"(
HloModule m
icond {
  p = (s32[], s32[], s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  ROOT lt = pred[] compare(j, n), direction=LT
}
ibody {
  p = (s32[], s32[], s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  i = s32[] get-tuple-element(p), index=2
  total = s32[] get-tuple-element(p), index=3
  one = s32[] constant(1)
  ten = s32[] constant(10)
  ti = s32[] multiply(i, ten)
  tj = s32[] add(ti, j)
  t1 = s32[] add(tj, one)
  total1 = s32[] add(total, t1)
  j1 = s32[] add(j, one)
  ROOT r = (s32[], s32[], s32[], s32[]) tuple(j1, n, i, total1)
}
ocond {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
obody {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  total = s32[] get-tuple-element(p), index=1
  zero = s32[] constant(0)
  one = s32[] constant(1)
  n = s32[] add(i, one)
  init = (s32[], s32[], s32[], s32[]) tuple(zero, n, i, total)
  w = (s32[], s32[], s32[], s32[]) while(init), condition=icond, body=ibody
  total1 = s32[] get-tuple-element(w), index=3
  i1 = s32[] add(i, one)
  ROOT r = (s32[], s32[]) tuple(i1, total1)
}
ENTRY main {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  w = (s32[], s32[]) while(init), condition=ocond, body=obody
  ROOT total = s32[] get-tuple-element(w), index=1
})";
  auto h = CompileForHost(text);
  ASSERT_TRUE(h.ok()) << h.status();
  Trace trace;
  backends::HostTransfers host;
  auto got = (*h)->Run({}, &host, &trace);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].Get<int32_t>({}), 90);
  // Branches: outer 4 (3 true, 1 false), inner 2 + 3 + 4 = 9.
  EXPECT_EQ(trace.branches, 13);
}

TEST(GpuControlFlow, WhileBodyReorderingItsStateIsStaged) {
  // Fibonacci: (i, a, b) -> (i + 1, b, a + b) from (0, 0, 1) while i < 10:
  // (10, 55, 89) (hand-derived: F10 = 55, F11 = 89). The body returns its
  // state's element 2 as element 1, so that element is staged through a
  // temporary before the state is overwritten; without the staging a
  // becomes a + b too. A swap (x, y) -> (y, x) run 3 times ends swapped.
  const std::string text = R"(
HloModule m
cond {
  p = (s32[], s32[], s32[], f32[2], f32[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[], s32[], f32[2], f32[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = s32[] get-tuple-element(p), index=1
  b = s32[] get-tuple-element(p), index=2
  x = f32[2] get-tuple-element(p), index=3
  y = f32[2] get-tuple-element(p), index=4
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ab = s32[] add(a, b)
  ROOT r = (s32[], s32[], s32[], f32[2], f32[2]) tuple(i1, b, ab, y, x)
}
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  zero = s32[] constant(0)
  one = s32[] constant(1)
  init = (s32[], s32[], s32[], f32[2], f32[2]) tuple(zero, zero, one, x, y)
  ROOT w = (s32[], s32[], s32[], f32[2], f32[2]) while(init), condition=cond, body=body
})";
  auto h = CompileForHost(text);
  ASSERT_TRUE(h.ok()) << h.status();
  Trace trace;
  backends::HostTransfers host;
  auto got =
      (*h)->Run({Lit("f32[2] {1, 2}"), Lit("f32[2] {3, 4}")}, &host, &trace);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 5u);
  EXPECT_EQ((*got)[0].Get<int32_t>({}), 10);
  EXPECT_EQ((*got)[1].Get<int32_t>({}), 55);
  EXPECT_EQ((*got)[2].Get<int32_t>({}), 89);
  // 10 swaps: back where they started.
  EXPECT_EQ((*got)[3].ToStringWithoutShape(), "{1, 2}");
  EXPECT_EQ((*got)[4].ToStringWithoutShape(), "{3, 4}");
  EXPECT_EQ(trace.branches, 11);
  // The arguments are not written: run again with the same literals.
  auto again =
      (*h)->Run({Lit("f32[2] {1, 2}"), Lit("f32[2] {3, 4}")}, &host, &trace);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)[1].Get<int32_t>({}), 55);
}

TEST(GpuControlFlow, ConditionalWithAnOutfeedInOneBranch) {
  // Branch 0 outfeeds its operand and returns it doubled; branch 1 returns
  // it plus one; the selector picks branch 0 for 0, branch 1 for 1 and
  // for anything out of range (seed 001: the last branch). Hand-derived:
  // x = {3, -4}: 0 -> {6, -8} and one outfeed {3, -4}; 1, 7, -2 ->
  // {4, -3} and no outfeed. The CPU backend agrees on every selector.
  const std::string text = R"(
HloModule m
b0 {
  p = (s32[2], token[]) parameter(0)
  x = s32[2] get-tuple-element(p), index=0
  t = token[] get-tuple-element(p), index=1
  o = token[] outfeed(x, t)
  ROOT d = s32[2] add(x, x)
}
b1 {
  p = s32[2] parameter(0)
  one = s32[] constant(1)
  ones = s32[2] broadcast(one), dimensions={}
  ROOT q = s32[2] add(p, ones)
}
ENTRY main {
  i = s32[] parameter(0)
  x = s32[2] parameter(1)
  t = token[] after-all()
  a = (s32[2], token[]) tuple(x, t)
  ROOT c = s32[2] conditional(i, a, x), branch_computations={b0, b1}
})";
  auto h = CompileForHost(text);
  ASSERT_TRUE(h.ok()) << h.status();
  struct Case {
    int32_t selector;
    const char* result;
    size_t outfeeds;
  };
  for (const Case& c : {Case{0, "{6, -8}", 1}, Case{1, "{4, -3}", 0},
                        Case{7, "{4, -3}", 0}, Case{-2, "{4, -3}", 0}}) {
    SCOPED_TRACE(c.selector);
    std::vector<Literal> args;
    args.push_back(Literal::CreateR0<int32_t>(PrimitiveType::kS32, c.selector));
    args.push_back(Lit("s32[2] {3, -4}"));
    backends::HostTransfers gpu_host, cpu_host;
    Trace trace;
    auto got = (*h)->Run(args, &gpu_host, &trace);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ((*got)[0].ToStringWithoutShape(), c.result);
    ASSERT_EQ(gpu_host.outfeed.size(), c.outfeeds);
    if (c.outfeeds == 1) {
      EXPECT_EQ(gpu_host.outfeed[0].ToStringWithoutShape(), "{3, -4}");
    }
    EXPECT_EQ(trace.branches, 1);
    auto want = RunOnCpu(text, args, &cpu_host);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_EQ(Text((*got)[0]), Text((*want)[0]));
    EXPECT_EQ(cpu_host.outfeed.size(), gpu_host.outfeed.size());
  }
}

TEST(GpuControlFlow, PredConditionalInsideAWhileAndACallWithAnInfeed) {
  // A call (inlined) whose computation reads an infeed, inside a while
  // whose body branches on the value's sign: acc += x when x >= 0, else
  // acc -= 2x (x = 5, -1, 4 over three iterations: 5 + 2 + 4 = 11,
  // hand-derived); the CPU backend agrees.
  const std::string text = R"(
HloModule m
read {
  t = token[] parameter(0)
  ROOT in = (s32[], token[]) infeed(t)
}
pos {
  p = (s32[], s32[]) parameter(0)
  acc = s32[] get-tuple-element(p), index=0
  x = s32[] get-tuple-element(p), index=1
  ROOT s = s32[] add(acc, x)
}
neg {
  p = (s32[], s32[]) parameter(0)
  acc = s32[] get-tuple-element(p), index=0
  x = s32[] get-tuple-element(p), index=1
  x2 = s32[] add(x, x)
  ROOT s = s32[] subtract(acc, x2)
}
cond {
  p = (s32[], s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  tok = token[] get-tuple-element(p), index=2
  in = (s32[], token[]) call(tok), to_apply=read
  x = s32[] get-tuple-element(in), index=0
  t = token[] get-tuple-element(in), index=1
  zero = s32[] constant(0)
  ge = pred[] compare(x, zero), direction=GE
  ax = (s32[], s32[]) tuple(acc, x)
  acc1 = s32[] conditional(ge, ax, ax), true_computation=pos, false_computation=neg
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], s32[], token[]) tuple(i1, acc1, t)
}
ENTRY main {
  zero = s32[] constant(0)
  t0 = token[] after-all()
  init = (s32[], s32[], token[]) tuple(zero, zero, t0)
  w = (s32[], s32[], token[]) while(init), condition=cond, body=body
  ROOT s = s32[] get-tuple-element(w), index=1
})";
  auto h = CompileForHost(text);
  ASSERT_TRUE(h.ok()) << h.status();
  auto feed = [] {
    backends::HostTransfers host;
    for (const char* v : {"s32[] 5", "s32[] -1", "s32[] 4"}) {
      host.infeed.push_back(Lit(v));
    }
    return host;
  };
  backends::HostTransfers gpu_host = feed(), cpu_host = feed();
  Trace trace;
  auto got = (*h)->Run({}, &gpu_host, &trace);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].Get<int32_t>({}), 11);
  auto want = RunOnCpu(text, {}, &cpu_host);
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_EQ(Text((*got)[0]), Text((*want)[0]));
  // 4 loop branches + 3 conditional branches.
  EXPECT_EQ(trace.branches, 7);
}

TEST(GpuControlFlow, AsyncAndCopyStartAreKernelSequences) {
  // async-start / done around add(x, x) and copy-start / done: no serial
  // entry (CompileForHost checks), results hand-derived: {2, -6} and the
  // copy {1, -3}.
  const std::string text = R"(
HloModule m
wrapped {
  p = s32[2] parameter(0)
  ROOT r = s32[2] add(p, p)
}
ENTRY main {
  x = s32[2] parameter(0)
  s = ((s32[2]), s32[2], s32[]) async-start(x), calls=wrapped
  u = ((s32[2]), s32[2], s32[]) async-update(s)
  d = s32[2] async-done(u)
  cs = (s32[2], s32[2], u32[]) copy-start(x)
  cd = s32[2] copy-done(cs)
  ROOT t = (s32[2], s32[2]) tuple(d, cd)
})";
  auto h = CompileForHost(text);
  ASSERT_TRUE(h.ok()) << h.status();
  Trace trace;
  backends::HostTransfers host;
  auto got = (*h)->Run({Lit("s32[2] {1, -3}")}, &host, &trace);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].ToStringWithoutShape(), "{2, -6}");
  EXPECT_EQ((*got)[1].ToStringWithoutShape(), "{1, -3}");
}

// The golden cases of the control-flow ops (and infeed, whose loop case
// needs a host step in a while body) run on the host and compared with
// their expected values (hand-derived in golden/, independent of every
// backend) by the conformance comparator with each case's rule.
// Reductions and dots use the element-wise kernel here
// (specialised_kernels off: the host runs one thread per block); cases
// whose program still needs more than one thread (sort ...) are skipped
// and counted.
void Flatten(const Literal& l, std::vector<Literal>* out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Flatten(e, out);
  } else {
    out->push_back(l);
  }
}

TEST(GpuControlFlow, GoldenControlFlowCasesGiveTheirExpectedValues) {
  int ran = 0, skipped = 0;
  auto cases = conformance::LoadGoldenSuite(HLOREF_GOLDEN_DIR);
  ASSERT_TRUE(cases.ok()) << cases.status();
  for (const char* file :
       {"ops/while.golden", "ops/conditional.golden", "ops/call.golden",
        "ops/infeed.golden", "ops/async-start.golden", "ops/copy-start.golden",
        "ops/domain.golden", "programs/while_accumulate.golden"}) {
    for (const conformance::GoldenCase& c : *cases) {
      if (c.file != file) continue;
      SCOPED_TRACE(c.Id());
      auto m = ParseHloModule(c.module_text);
      if (!m.ok() || !VerifyModule(**m, VerifyOptions()).ok()) continue;
      auto h = CompileForHost(c.module_text, nullptr,
                              /*specialised_kernels=*/false);
      if (!h.ok() && h.status().code() == absl::StatusCode::kUnimplemented) {
        ++skipped;
        continue;
      }
      ASSERT_TRUE(h.ok()) << h.status();
      std::vector<Literal> args;
      for (const std::string& a : c.args) args.push_back(Lit(a));
      backends::HostTransfers host;
      for (const std::string& v : c.infeed) host.infeed.push_back(Lit(v));
      for (const auto& [channel, v] : c.recv) {
        host.recv[channel].push_back(Lit(v));
      }
      Trace trace;
      auto got = (*h)->Run(args, &host, &trace);
      ASSERT_TRUE(got.ok()) << got.status();
      std::vector<Literal> want;
      for (const std::string& e : c.expects) Flatten(Lit(e), &want);
      ASSERT_EQ(got->size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        if (!want[i].shape().IsArray()) continue;  // tokens
        const conformance::CompareSpec spec =
            c.compare.empty()       ? conformance::CompareSpec()
            : c.compare.size() == 1 ? c.compare[0]
                                    : c.compare[i];
        conformance::CompareOutcome o =
            conformance::CompareArrays(want[i], (*got)[i], spec);
        EXPECT_TRUE(o.ok) << "output " << i << ": expected " << o.expected
                          << ", got " << o.got << " at " << o.multi_index;
      }
      ASSERT_EQ(host.outfeed.size(), c.expect_outfeed.size());
      for (size_t i = 0; i < c.expect_outfeed.size(); ++i) {
        EXPECT_EQ(host.outfeed[i].ToString(),
                  Lit(c.expect_outfeed[i]).ToString());
      }
      ++ran;
    }
  }
  std::printf("golden control-flow cases run on the host: %d, skipped %d\n",
              ran, skipped);
  EXPECT_GE(ran, 30);
}

}  // namespace
}  // namespace hloref::gpu
