// Bounded dynamic shapes on the GPU (gpu_dynamic.h) and single-participant
// replica-id / partition-id, without a GPU: each
// module compiles to PTX that nvJitLink (ptxas) accepts for sm_90 and
// sm_90a, and the GPU program itself (its unoptimised LLVM IR: the
// kernels, their arguments, the sizes and status buffers) runs on the
// host: the NVPTX special registers replaced by one thread of one block,
// the IR JIT-compiled for the CPU, the launches run in order over host
// buffers laid out as the runtime lays out device buffers (gpu_dynamic.h
// prepares the uploads and reads back the results and status, as the
// runtime does). Expected values are derived by hand in each test from
// the oracle's rules (interpreter/dynamic_sizes.h and the family files it
// names), never from a backend. Arguments carry garbage (99) in their
// padding, so a result that reads padding where it must not shows it.
#include "backends/gpu/gpu_dynamic.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <barrier>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/ir_value.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/jit.h"
#include "backends/gpu/gpu_emitter.h"
#include "backends/gpu/nvjitlink.h"
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

namespace hloref::gpu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// The host's stand-ins for the NVPTX thread index and block barrier when
// the participants of a replicated program run as host threads: each
// thread's tid.x, and one std::barrier of every participant for
// `barrier.sync 0`.
thread_local uint32_t emulated_tid = 0;
std::barrier<>* emulated_barrier = nullptr;
uint32_t EmulatedTid() { return emulated_tid; }
void EmulatedBarrier(int32_t) { emulated_barrier->arrive_and_wait(); }

// Runs `program` on the host: its serial and element-wise kernels (the
// only kinds that are correct with one thread of one block: the serial
// kernel's work is guarded by thread 0 of block 0, the element-wise
// kernel's grid-stride loop then covers every element). A replicated
// program (GpuProgram::participants = R > 1, gpu_collectives.h) runs its
// serial entry on R host threads, thread t with tid.x = t, and
// `barrier.sync` becomes a host barrier of the R threads; every buffer
// holds R slices, filled and read as the runtime does (gpu_backend.cc).
// `args`: one argument list per participant (or one for all); returns
// one result list per participant.
absl::StatusOr<std::vector<std::vector<Literal>>> EmulateParticipantsOnHost(
    const GpuProgram& program, absl::Span<const std::vector<Literal>> args) {
  const int64_t participants = program.participants;
  auto context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(program.llvm_ir, diag, *context);
  if (module == nullptr) {
    return absl::InternalError(absl::StrCat("cannot parse the program's IR: ",
                                            diag.getMessage().str()));
  }
  for (const KernelLaunch& k : program.launches) {
    if (k.kind != KernelKind::kSerial && k.kind != KernelKind::kElementwise) {
      return absl::UnimplementedError(
          absl::StrCat("kernel ", k.kernel, " needs more than one thread"));
    }
  }
  if (llvm::NamedMDNode* md = module->getNamedMetadata("nvvm.annotations")) {
    module->eraseNamedMetadata(md);
  }
  // One block; tid.x and the barrier call the host's stand-ins through
  // two pointer globals set after compilation; libdevice's functions are
  // libm's.
  llvm::IRBuilder<> b(*context);
  auto hook = [&](const char* name) {
    return new llvm::GlobalVariable(
        *module, b.getPtrTy(), false, llvm::GlobalValue::ExternalLinkage,
        llvm::ConstantPointerNull::get(b.getPtrTy()), name);
  };
  llvm::GlobalVariable* tid_hook = hook("emu_tid_hook");
  llvm::GlobalVariable* barrier_hook = hook("emu_barrier_hook");
  std::vector<llvm::Function*> declarations;
  for (llvm::Function& f : *module) {
    if (f.isDeclaration()) declarations.push_back(&f);
  }
  for (llvm::Function* f : declarations) {
    const std::string name = f->getName().str();
    const bool sreg = name.rfind("llvm.nvvm.read.ptx.sreg.", 0) == 0;
    if (sreg || name == "llvm.nvvm.barrier.sync") {
      const bool count = name.find(".ntid.") != std::string::npos ||
                         name.find(".nctaid.") != std::string::npos;
      const bool tid = name == "llvm.nvvm.read.ptx.sreg.tid.x";
      std::vector<llvm::CallInst*> calls;
      for (llvm::User* u : f->users()) {
        if (auto* c = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(c);
      }
      for (llvm::CallInst* c : calls) {
        if (sreg && !tid) {
          c->replaceAllUsesWith(
              llvm::ConstantInt::get(c->getType(), count ? 1 : 0));
        } else {
          b.SetInsertPoint(c);
          llvm::GlobalVariable* g = tid ? tid_hook : barrier_hook;
          llvm::Value* fn = b.CreateLoad(b.getPtrTy(), g);
          std::vector<llvm::Value*> call_args(c->arg_begin(), c->arg_end());
          llvm::Value* r = b.CreateCall(f->getFunctionType(), fn, call_args);
          if (tid) c->replaceAllUsesWith(r);
        }
        c->eraseFromParent();
      }
      f->eraseFromParent();
    } else if (name.rfind("__nv_", 0) == 0) {
      f->setName(name.substr(5));
    }
  }
  // emu<l>(ptr args): kernel l with its arguments from an array.
  for (size_t l = 0; l < program.launches.size(); ++l) {
    llvm::Function* kernel = module->getFunction(program.launches[l].kernel);
    if (kernel == nullptr) {
      return absl::InternalError(
          absl::StrCat("no function ", program.launches[l].kernel));
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
      std::unique_ptr<cpu::JitModule> jit,
      cpu::JitModule::Compile(std::move(module), std::move(context),
                              cpu::JitOptions()));
  for (auto [name, fn] :
       {std::pair<const char*, void*>{"emu_tid_hook",
                                      reinterpret_cast<void*>(&EmulatedTid)},
        std::pair<const char*, void*>{
            "emu_barrier_hook", reinterpret_cast<void*>(&EmulatedBarrier)}}) {
    HLOREF_ASSIGN_OR_RETURN(void* slot, jit->Lookup(name));
    *static_cast<void**>(slot) = fn;
  }
  // The buffers, as the runtime fills them (a slice per participant);
  // temps hold garbage.
  if (args.size() != 1 && static_cast<int64_t>(args.size()) != participants) {
    return absl::InvalidArgumentError("one argument list per participant");
  }
  auto slice = [&](const GpuBuffer& buf, int64_t p) -> size_t {
    return participants > 1 ? p * ParticipantSliceBytes(buf) : 0;
  };
  std::vector<std::vector<uint8_t>> buffers;
  for (const GpuBuffer& buf : program.buffers) {
    std::vector<uint8_t> bytes(
        slice(buf, participants) + std::max<int64_t>(buf.bytes, 1) + 64, 0xA5);
    for (int64_t p = 0; p < participants; ++p) {
      uint8_t* at = bytes.data() + slice(buf, p);
      if (buf.kind == GpuBuffer::Kind::kConstant) {
        std::memcpy(at, buf.data.data(), buf.bytes);
      } else if (buf.kind == GpuBuffer::Kind::kParameter ||
                 buf.kind == GpuBuffer::Kind::kParameterSizes) {
        HLOREF_ASSIGN_OR_RETURN(
            std::vector<uint8_t> up,
            ParameterBytes(
                buf, ArgumentLeaves(args.size() == 1 ? args[0] : args[p])));
        std::memcpy(at, up.data(), buf.bytes);
      }
    }
    buffers.push_back(std::move(bytes));
  }
  for (size_t l = 0; l < program.launches.size(); ++l) {
    std::vector<void*> ptrs;
    for (int64_t id : program.launches[l].buffers) {
      ptrs.push_back(buffers[id].data());
    }
    HLOREF_ASSIGN_OR_RETURN(void* fn, jit->Lookup(absl::StrCat("emu", l)));
    auto* kernel = reinterpret_cast<void (*)(void**)>(fn);
    const int64_t threads = program.launches[l].block[0];
    std::barrier<> barrier(std::max<int64_t>(threads, 1));
    emulated_barrier = &barrier;
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        emulated_tid = static_cast<uint32_t>(t);
        kernel(ptrs.data());
      });
    }
    for (std::thread& t : pool) t.join();
    emulated_barrier = nullptr;
  }
  if (program.status_buffer >= 0) {
    for (int64_t p = 0; p < participants; ++p) {
      int32_t word = 0;
      const GpuBuffer& buf = program.buffers[program.status_buffer];
      std::memcpy(&word, buffers[program.status_buffer].data() + slice(buf, p),
                  sizeof(word));
      absl::Status s = RunStatus(program, word);
      if (!s.ok()) {
        return absl::Status(s.code(),
                            absl::StrCat("participant ", p, ": ", s.message()));
      }
    }
  }
  std::vector<std::vector<Literal>> all;
  for (int64_t p = 0; p < participants; ++p) {
    std::vector<Literal> results;
    for (size_t i = 0; i < program.result_buffers.size(); ++i) {
      const int64_t id = program.result_buffers[i];
      if (id < 0) {
        results.push_back(Literal::Token());
        continue;
      }
      const int64_t sizes_id = program.result_sizes_buffers[i];
      const uint8_t* sizes =
          sizes_id >= 0
              ? buffers[sizes_id].data() + slice(program.buffers[sizes_id], p)
              : nullptr;
      HLOREF_ASSIGN_OR_RETURN(
          Literal leaf,
          ResultLeaf(program.result_shapes[i],
                     buffers[id].data() + slice(program.buffers[id], p),
                     reinterpret_cast<const int64_t*>(sizes)));
      results.push_back(std::move(leaf));
    }
    all.push_back(std::move(results));
  }
  return all;
}

absl::StatusOr<std::vector<Literal>> EmulateOnHost(
    const GpuProgram& program, absl::Span<const Literal> args) {
  HLOREF_ASSIGN_OR_RETURN(
      std::vector<std::vector<Literal>> all,
      EmulateParticipantsOnHost(
          program, {std::vector<Literal>(args.begin(), args.end())}));
  return std::move(all.at(0));
}

// `full` is the whole bounds' literal (padding included); the value has
// shape `bounded` and runtime sizes `sizes`.
Literal Padded(absl::string_view full, absl::string_view bounded,
               std::vector<int64_t> sizes) {
  absl::StatusOr<Literal> lit = ParseLiteral(full);
  EXPECT_TRUE(lit.ok()) << lit.status();
  absl::StatusOr<Shape> shape = ParseShape(bounded);
  EXPECT_TRUE(shape.ok()) << shape.status();
  absl::StatusOr<Literal> b = Literal::ToBoundedDynamic(*lit, *shape);
  EXPECT_TRUE(b.ok()) << b.status();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (shape->is_dynamic_dimension(d)) b->SetDynamicSize(d, sizes[d]);
  }
  return *std::move(b);
}

Literal Lit(absl::string_view text) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  EXPECT_TRUE(lit.ok()) << lit.status();
  return *std::move(lit);
}

std::vector<float> Valid(const Literal& lit) {
  Literal s = lit.ToStatic();
  return std::vector<float>(s.data<float>().begin(), s.data<float>().end());
}

std::vector<int64_t> Sizes(const Literal& lit) {
  return std::vector<int64_t>(lit.dynamic_sizes().begin(),
                              lit.dynamic_sizes().end());
}

// Compiles `text` for sm_90 and sm_90a (PTX through nvJitLink for both;
// one serial kernel) and runs the sm_90 program on the host.
absl::StatusOr<std::vector<Literal>> CompileAndEmulate(
    absl::string_view text, std::vector<Literal> args) {
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          ParseHloModule(text));
  absl::StatusOr<GpuProgram> program;
  for (const char* arch : {"sm_90a", "sm_90"}) {
    GpuCompileOptions options;
    options.arch = arch;
    program = CompileModuleToPtx(*module, options);
    if (!program.ok()) return program.status();
    absl::StatusOr<CubinResult> cubin = CompilePtxToCubin(program->ptx, arch);
    EXPECT_TRUE(cubin.ok()) << arch << ": " << cubin.status();
    EXPECT_FALSE(cubin.ok() && cubin->cubin.empty()) << arch;
    // One kernel, the entry in one thread; every array leaf computed has
    // its sizes buffer.
    EXPECT_EQ(program->launches.size(), 1u);
    if (!program->launches.empty()) {
      EXPECT_EQ(program->launches[0].kind, KernelKind::kSerial);
      EXPECT_EQ(program->launches[0].grid[0], 1);
      EXPECT_EQ(program->launches[0].block[0], 1);
    }
  }
  return EmulateOnHost(*program, args);
}

// f32[<=4,3] with runtime sizes (2,3): rows {1,2,3},{4,5,6} valid, rows 2
// and 3 padding holding 99.
Literal TwoRows() {
  return Padded("f32[4,3] {{1,2,3},{4,5,6},{99,99,99},{99,99,99}}",
                "f32[<=4,3]", {2, 3});
}

TEST(GpuDynamicShapes, SetAndGetDimensionSizeThroughNegate) {
  // set-dimension-size makes dimension 0 of {1,2,3,4} size 2; negate keeps
  // the size (element-wise), get-dimension-size reads it back.
  auto out = CompileAndEmulate(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  n = s32[] parameter(1)
  s = f32[<=4] set-dimension-size(p, n), dimensions={0}
  g = f32[<=4] negate(s)
  d = s32[] get-dimension-size(g), dimensions={0}
  ROOT t = (f32[<=4], s32[]) tuple(g, d)
})",
                               {Lit("f32[4] {1,2,3,4}"), Lit("s32[] 2")});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(2));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(-1, -2));
  EXPECT_EQ((*out)[1].Get<int32_t>({}), 2);
}

TEST(GpuDynamicShapes, TransposeCarriesTheSizeToItsNewPosition) {
  // Result dimension i has operand dimension permutation[i]'s size: (3,2);
  // the valid part is the transpose of the two rows.
  auto out = CompileAndEmulate(R"(
HloModule m
ENTRY e {
  p = f32[<=4,3] parameter(0)
  ROOT t = f32[3,<=4] transpose(p), dimensions={1,0}
})",
                               {TwoRows()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(3, 2));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(1, 4, 2, 5, 3, 6));
}

TEST(GpuDynamicShapes, BroadcastAndCopyKeepTheOperandsSize) {
  // broadcast dimension 1 <- operand dimension 0 (size 2 of {7,8,99}):
  // sizes (2,2), rows {7,8} twice; the copy keeps value and sizes.
  auto out = CompileAndEmulate(R"(
HloModule m
ENTRY e {
  p = f32[<=3] parameter(0)
  b = f32[2,<=3] broadcast(p), dimensions={1}
  ROOT c = f32[2,<=3] copy(b)
})",
                               {Padded("f32[3] {7,8,99}", "f32[<=3]", {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(2, 2));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(7, 8, 7, 8));
}

TEST(GpuDynamicShapes, ConcatenateMovesTheValidElements) {
  // Sizes 2 and 1 along the concatenated dimension: size 3, {1,2} then
  // {5}; the padding of the operands is skipped.
  auto out = CompileAndEmulate(R"(
HloModule m
ENTRY e {
  a = f32[<=3] parameter(0)
  b = f32[<=3] parameter(1)
  ROOT k = f32[<=6] concatenate(a, b), dimensions={0}
})",
                               {Padded("f32[3] {1,2,99}", "f32[<=3]", {2}),
                                Padded("f32[3] {5,99,99}", "f32[<=3]", {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(3));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(1, 2, 5));
}

TEST(GpuDynamicShapes, DynamicReshapeTakesItsSizesFromOperands) {
  // {1..6} reshaped to runtime sizes (2,3) within bounds (3,3): row-major.
  auto out = CompileAndEmulate(
      R"(
HloModule m
ENTRY e {
  p = f32[6] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  ROOT r = f32[<=3,<=3] dynamic-reshape(p, a, b)
})",
      {Lit("f32[6] {1,2,3,4,5,6}"), Lit("s32[] 2"), Lit("s32[] 3")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(2, 3));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(GpuDynamicShapes, FusionPassesSizesThrough) {
  // A fusion computing negate(transpose(x)) on sizes (2,3) -> (3,2).
  auto out = CompileAndEmulate(R"(
HloModule m
fused {
  x = f32[<=4,3] parameter(0)
  t = f32[3,<=4] transpose(x), dimensions={1,0}
  ROOT n = f32[3,<=4] negate(t)
}
ENTRY e {
  p = f32[<=4,3] parameter(0)
  ROOT f = f32[3,<=4] fusion(p), kind=kLoop, calls=fused
})",
                               {TwoRows()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Sizes((*out)[0]), ElementsAre(3, 2));
  EXPECT_THAT(Valid((*out)[0]), ElementsAre(-1, -4, -2, -5, -3, -6));
}

TEST(GpuDynamicShapes, RunTimeErrorsKeepTheOraclesClass) {
  // A size beyond the bound (impl.dynamic.3) and operands whose sizes
  // differ (impl.dynamic.2) fail the run with OutOfRange; the status
  // buffer carries the first error of the run.
  auto too_big = CompileAndEmulate(R"(
HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  n = s32[] parameter(1)
  ROOT s = f32[<=3] set-dimension-size(p, n), dimensions={0}
})",
                                   {Lit("f32[3] {1,2,3}"), Lit("s32[] 4")});
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kOutOfRange)
      << too_big.status();
  auto differ =
      CompileAndEmulate(R"(
HloModule m
ENTRY e {
  a = f32[<=4] parameter(0)
  b = f32[<=4] parameter(1)
  ROOT s = f32[<=4] add(a, b)
})",
                        {Padded("f32[4] {1,2,3,4}", "f32[<=4]", {4}),
                         Padded("f32[4] {1,2,99,99}", "f32[<=4]", {2})});
  ASSERT_FALSE(differ.ok());
  EXPECT_EQ(differ.status().code(), absl::StatusCode::kOutOfRange)
      << differ.status();
  // The same module with equal sizes: the sums of the valid elements.
  auto same =
      CompileAndEmulate(R"(
HloModule m
ENTRY e {
  a = f32[<=4] parameter(0)
  b = f32[<=4] parameter(1)
  ROOT s = f32[<=4] add(a, b)
})",
                        {Padded("f32[4] {1,2,99,99}", "f32[<=4]", {2}),
                         Padded("f32[4] {10,20,99,99}", "f32[<=4]", {2})});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_THAT(Valid((*same)[0]), ElementsAre(11, 22));
}

TEST(GpuDynamicShapes, StaticModulesKeepTheirParallelKernels) {
  // No dynamic shape: no status buffer, no serial kernel.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  p = f32[1000] parameter(0)
  d = s32[] get-dimension-size(p), dimensions={0}
  ROOT n = f32[1000] negate(p)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuProgram> program =
      CompileModuleToPtx(**module, GpuCompileOptions());
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->status_buffer, -1);
  for (const KernelLaunch& k : program->launches) {
    EXPECT_NE(k.kind, KernelKind::kSerial) << k.kernel;
  }
}

TEST(GpuParticipants, SingleParticipantIdsAreZero) {
  // One participant: replica-id and partition-id are 0 (seed 001), here
  // through an element-wise kernel run on the host: 7 + 0 + 0 twice.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  r = u32[] replica-id()
  p = u32[] partition-id()
  s = u32[] add(r, p)
  b = u32[2] broadcast(s), dimensions={}
  c = u32[2] constant({7, 7})
  ROOT a = u32[2] add(b, c)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuProgram> program =
      CompileModuleToPtx(**module, GpuCompileOptions());
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_TRUE(CompilePtxToCubin(program->ptx, "sm_90").ok());
  auto out = EmulateOnHost(*program, {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].Get<uint32_t>({0}), 7u);
  EXPECT_EQ((*out)[0].Get<uint32_t>({1}), 7u);
}

// ---------------------------------------------------------------------
// Replicated modules on one device (gpu_collectives.h): the participants
// are the threads of the serial entry's block, here host threads with a
// host barrier.

// Compiles `text` for sm_90 and sm_90a (nvJitLink accepts both; one serial
// kernel of one block with a thread per participant) and runs the sm_90
// program's participants on the host, every one with `args`.
absl::StatusOr<std::vector<std::vector<Literal>>> CompileAndEmulateReplicated(
    absl::string_view text, std::vector<Literal> args) {
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          ParseHloModule(text));
  const int64_t participants =
      module->config().replica_count * module->config().num_partitions;
  absl::StatusOr<GpuProgram> program;
  for (const char* arch : {"sm_90a", "sm_90"}) {
    GpuCompileOptions options;
    options.arch = arch;
    program = CompileModuleToPtx(*module, options);
    if (!program.ok()) return program.status();
    absl::StatusOr<CubinResult> cubin = CompilePtxToCubin(program->ptx, arch);
    EXPECT_TRUE(cubin.ok()) << arch << ": " << cubin.status();
    EXPECT_EQ(program->participants, participants);
    // The exchange area in global memory, the block barrier (the
    // non-.aligned barrier.sync, never bar.sync), one thread per
    // participant as the launch bound.
    EXPECT_THAT(program->ptx,
                HasSubstr(".global .align 16 .b8 hloref_collective_exchange["));
    EXPECT_THAT(program->ptx, HasSubstr("barrier.sync"));
    EXPECT_THAT(program->ptx, Not(HasSubstr("bar.sync")));
    EXPECT_THAT(program->ptx,
                HasSubstr(absl::StrCat(".maxntid ", participants, ", 1, 1")));
    EXPECT_EQ(program->launches.size(), 1u);
    if (!program->launches.empty()) {
      EXPECT_EQ(program->launches[0].kind, KernelKind::kSerial);
      EXPECT_EQ(program->launches[0].grid[0], 1);
      EXPECT_EQ(program->launches[0].block[0], participants);
    }
  }
  return EmulateParticipantsOnHost(*program, {std::move(args)});
}

std::vector<float> F32s(const Literal& lit) {
  return std::vector<float>(lit.data<float>().begin(), lit.data<float>().end());
}

TEST(GpuCollectives, EveryKindOnFourParticipantsHandDerived) {
  // replica_count=2, num_partitions=2: participant p = 2 r + q holds
  // x_p = {p + 1, p + 10}. Expected values by hand from seed 001's rules
  // and text-format 6.11's group modes:
  //   all-reduce, no channel (cross-replica, groups of one partition):
  //     q = 0: x_0 + x_2 = {4, 22}; q = 1: x_1 + x_3 = {6, 24};
  //     all-reduce-start / -done the same;
  //   all-gather, flattened ids {{3,0},{1,2}}: p in {0, 3}: x_3 ++ x_0 =
  //     {4,13,1,10}; p in {1, 2}: x_1 ++ x_2 = {2,11,3,12};
  //   reduce-scatter over all four of y_p = p * {1,10,100,1000}: the sum
  //     6 * {1,10,100,1000}, block p to participant p;
  //   all-to-all with a channel (cross-partition, partitions {0,1} of
  //     each replica): block k of the result is block `my index` of the
  //     group's k-th participant: p0 {1,2}, p1 {10,11}, p2 {3,4},
  //     p3 {12,13};
  //   collective-permute {0->1} between replicas: p2 gets x_0, p3 gets x_1,
  //     p0 and p1 zeros;
  //   collective-broadcast in replica groups {{1,0}}: from replica 1 of
  //     the same partition: x_2 for q = 0, x_3 for q = 1;
  //   replica-id p / 2, partition-id p % 2.
  auto out = CompileAndEmulateReplicated(R"(
HloModule m, replica_count=2, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  r = u32[] replica-id()
  q = u32[] partition-id()
  two = u32[] constant(2)
  r2 = u32[] multiply(r, two)
  id = u32[] add(r2, q)
  idf = f32[] convert(id)
  idb = f32[2] broadcast(idf), dimensions={}
  c = f32[2] constant({1, 10})
  x = f32[2] add(idb, c)
  ar = f32[2] all-reduce(x), replica_groups={}, to_apply=add
  ars = f32[2] all-reduce-start(x), replica_groups={}, to_apply=add
  ard = f32[2] all-reduce-done(ars)
  ag = f32[4] all-gather(x), channel_id=1, replica_groups={{3,0},{1,2}}, use_global_device_ids=true, dimensions={0}
  id4 = f32[4] broadcast(idf), dimensions={}
  w = f32[4] constant({1, 10, 100, 1000})
  y = f32[4] multiply(id4, w)
  rs = f32[1] reduce-scatter(y), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}, to_apply=add
  a2a = f32[2] all-to-all(x), channel_id=3, replica_groups={{0,1}}, dimensions={0}
  cp = f32[2] collective-permute(x), source_target_pairs={{0,1}}
  cb = f32[2] collective-broadcast(x), replica_groups={{1,0}}
  ROOT t = (f32[2], f32[2], f32[4], f32[1], f32[2], f32[2], f32[2], u32[], u32[]) tuple(ar, ard, ag, rs, a2a, cp, cb, r, q)
})",
                                         {});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 4u);
  const std::vector<std::vector<float>> ar = {
      {4, 22}, {6, 24}, {4, 22}, {6, 24}};
  const std::vector<std::vector<float>> ag = {
      {4, 13, 1, 10}, {2, 11, 3, 12}, {2, 11, 3, 12}, {4, 13, 1, 10}};
  const std::vector<float> rs = {6, 60, 600, 6000};
  const std::vector<std::vector<float>> a2a = {
      {1, 2}, {10, 11}, {3, 4}, {12, 13}};
  const std::vector<std::vector<float>> cp = {{0, 0}, {0, 0}, {1, 10}, {2, 11}};
  const std::vector<std::vector<float>> cb = {
      {3, 12}, {4, 13}, {3, 12}, {4, 13}};
  for (int p = 0; p < 4; ++p) {
    SCOPED_TRACE(absl::StrCat("participant ", p));
    const std::vector<Literal>& o = (*out)[p];
    ASSERT_EQ(o.size(), 9u);
    EXPECT_EQ(F32s(o[0]), ar[p]);
    EXPECT_EQ(F32s(o[1]), ar[p]);
    EXPECT_EQ(F32s(o[2]), ag[p]);
    EXPECT_EQ(F32s(o[3]), std::vector<float>{rs[p]});
    EXPECT_EQ(F32s(o[4]), a2a[p]);
    EXPECT_EQ(F32s(o[5]), cp[p]);
    EXPECT_EQ(F32s(o[6]), cb[p]);
    EXPECT_EQ(o[7].Get<uint32_t>({}), static_cast<uint32_t>(p / 2));
    EXPECT_EQ(o[8].Get<uint32_t>({}), static_cast<uint32_t>(p % 2));
  }
}

// Every golden case of the collective ops (and replica-id / partition-id)
// compiled for the GPU, its participants emulated on the host, against
// the CPU backend's RunReplicated on the same module and arguments (an
// independent implementation: threads meeting at a rendezvous, the
// runtime's exchange in C++): the same results bit for bit per participant
// and leaf, or both runs failing with the same status code.
TEST(GpuCollectives, GoldenCasesMatchTheCpuBackend) {
  absl::StatusOr<std::unique_ptr<backends::Backend>> cpu =
      cpu::CreateCpuBackend(cpu::CpuBackendOptions());
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  int compared = 0, both_failed = 0, unsupported = 0;
  for (const char* op :
       {"all-reduce", "all-reduce-start", "all-reduce-done", "all-gather",
        "all-gather-start", "all-gather-done", "reduce-scatter", "all-to-all",
        "collective-permute", "collective-permute-start",
        "collective-permute-done", "collective-broadcast", "replica-id",
        "partition-id", "ragged-all-to-all"}) {
    const std::string file = absl::StrCat("ops/", op, ".golden");
    std::ifstream in(std::string(HLOREF_GOLDEN_DIR) + "/" + file);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    absl::StatusOr<std::vector<conformance::GoldenCase>> cases =
        conformance::ParseGoldenFile(text, file, conformance::CaseKind::kOp,
                                     op);
    ASSERT_TRUE(cases.ok()) << cases.status();
    for (const conformance::GoldenCase& c : *cases) {
      SCOPED_TRACE(c.Id());
      absl::StatusOr<std::unique_ptr<HloModule>> m =
          ParseHloModule(c.module_text);
      if (!m.ok()) continue;
      std::vector<Literal> args;
      bool parsed = true;
      for (const std::string& a : c.args) {
        absl::StatusOr<Literal> lit = ParseLiteral(a);
        parsed = parsed && lit.ok();
        if (lit.ok()) args.push_back(*std::move(lit));
      }
      if (!parsed) continue;
      absl::StatusOr<GpuProgram> program =
          CompileModuleToPtx(**m, GpuCompileOptions());
      if (!program.ok() &&
          program.status().code() == absl::StatusCode::kUnimplemented) {
        ++unsupported;
        continue;
      }
      ASSERT_TRUE(program.ok()) << program.status();
      auto gpu = EmulateParticipantsOnHost(*program, {args});
      absl::StatusOr<std::vector<std::vector<Literal>>> want;
      absl::StatusOr<std::unique_ptr<backends::Executable>> exe =
          (*cpu)->Compile(**m, backends::CompileOptions());
      ASSERT_TRUE(exe.ok()) << exe.status();
      if (program->participants > 1) {
        want = (*exe)->RunReplicated({args});
      } else {
        absl::StatusOr<std::vector<Literal>> one = (*exe)->Run(args);
        if (one.ok()) {
          want = std::vector<std::vector<Literal>>{*std::move(one)};
        } else {
          want = one.status();
        }
      }
      if (!want.ok()) {
        ASSERT_FALSE(gpu.ok()) << "the CPU backend failed: " << want.status();
        EXPECT_EQ(gpu.status().code(), want.status().code())
            << gpu.status() << " vs the CPU's " << want.status();
        ++both_failed;
        continue;
      }
      ASSERT_TRUE(gpu.ok()) << gpu.status();
      ASSERT_EQ(gpu->size(), want->size());
      for (size_t p = 0; p < want->size(); ++p) {
        ASSERT_EQ((*gpu)[p].size(), (*want)[p].size());
        for (size_t l = 0; l < (*want)[p].size(); ++l) {
          EXPECT_TRUE((*gpu)[p][l].BitwiseEquals((*want)[p][l]))
              << "participant " << p << " leaf " << l << ": "
              << (*gpu)[p][l].ToString() << " vs the CPU's "
              << (*want)[p][l].ToString();
        }
      }
      ++compared;
    }
  }
  std::printf(
      "collective golden cases: %d equal to the CPU backend, %d failing "
      "alike, %d unsupported\n",
      compared, both_failed, unsupported);
  EXPECT_GT(compared, 60);
}

TEST(GpuCollectives, RaggedAllToAllAndItsErrorsMatchTheCpuBackend) {
  // Two replicas, per-replica operands (the golden file's first case):
  // participant 0 sends x0[0:1] to itself at row 0 and x0[1:4] to
  // participant 1 at row 0; participant 1 sends x1[0:2] to participant 0
  // at rows 1-2 and x1[2:3] to itself at row 3. Then one operand changed
  // at a time to break impl.ragged-all-to-all.1 (a slice past the input),
  // .2 (recv_sizes differs from what is sent) and .3 (two slices write
  // row 2 of participant 1's output). Each run against the CPU backend's
  // RunReplicated: the same results, or the same OutOfRange rule.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m, replica_count=2
ENTRY e {
  x = f32[4] parameter(0)
  o = f32[4] parameter(1)
  io = s32[2] parameter(2)
  ss = s32[2] parameter(3)
  oo = s32[2] parameter(4)
  rs = s32[2] parameter(5)
  ROOT r = f32[4] ragged-all-to-all(x, o, io, ss, oo, rs), replica_groups={{0,1}}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuProgram> program =
      CompileModuleToPtx(**module, GpuCompileOptions());
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_TRUE(CompilePtxToCubin(program->ptx, "sm_90").ok());
  absl::StatusOr<std::unique_ptr<backends::Backend>> cpu =
      cpu::CreateCpuBackend(cpu::CpuBackendOptions());
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  absl::StatusOr<std::unique_ptr<backends::Executable>> exe =
      (*cpu)->Compile(**module, backends::CompileOptions());
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto args = [](const char* ss0, const char* oo1, const char* rs1) {
    return std::vector<std::vector<Literal>>{
        {Lit("f32[4] {1,2,3,4}"), Lit("f32[4] {-1,-1,-1,-1}"),
         Lit("s32[2] {0,1}"), Lit(ss0), Lit("s32[2] {0,0}"),
         Lit("s32[2] {1,2}")},
        {Lit("f32[4] {5,6,7,8}"), Lit("f32[4] {-1,-1,-1,-1}"),
         Lit("s32[2] {0,2}"), Lit("s32[2] {2,1}"), Lit(oo1), Lit(rs1)}};
  };
  struct Case {
    const char* name;
    std::vector<std::vector<Literal>> args;
    const char* rule;  // empty: valid
  };
  std::vector<Case> cases;
  cases.push_back(
      {"valid", args("s32[2] {1,3}", "s32[2] {1,3}", "s32[2] {3,1}"), ""});
  cases.push_back({"past the input",
                   args("s32[2] {1,4}", "s32[2] {1,3}", "s32[2] {3,1}"),
                   "impl.ragged-all-to-all.1"});
  cases.push_back({"recv_sizes",
                   args("s32[2] {1,3}", "s32[2] {1,3}", "s32[2] {3,2}"),
                   "impl.ragged-all-to-all.2"});
  cases.push_back({"two writers",
                   args("s32[2] {1,3}", "s32[2] {1,2}", "s32[2] {3,1}"),
                   "impl.ragged-all-to-all.3"});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto gpu = EmulateParticipantsOnHost(*program, c.args);
    auto want = (*exe)->RunReplicated(c.args);
    if (std::string(c.rule).empty()) {
      ASSERT_TRUE(want.ok()) << want.status();
      ASSERT_TRUE(gpu.ok()) << gpu.status();
      // The hand-derived result (the golden file's note).
      EXPECT_EQ(F32s((*gpu)[0][0]), std::vector<float>({1, 5, 6, -1}));
      EXPECT_EQ(F32s((*gpu)[1][0]), std::vector<float>({2, 3, 4, 7}));
      for (int p = 0; p < 2; ++p) {
        EXPECT_TRUE((*gpu)[p][0].BitwiseEquals((*want)[p][0]));
      }
      continue;
    }
    ASSERT_FALSE(want.ok());
    ASSERT_FALSE(gpu.ok());
    EXPECT_EQ(want.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_EQ(gpu.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_THAT(std::string(want.status().message()), HasSubstr(c.rule));
    EXPECT_THAT(std::string(gpu.status().message()), HasSubstr(c.rule));
  }
}

}  // namespace
}  // namespace hloref::gpu
