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

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/ir_value.h"
#include "backends/cpu/jit.h"
#include "backends/gpu/gpu_emitter.h"
#include "backends/gpu/nvjitlink.h"
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

// Runs `program` on the host: its serial and element-wise kernels (the
// only kinds that are correct with one thread of one block: the serial
// kernel's work is guarded by thread 0 of block 0, the element-wise
// kernel's grid-stride loop then covers every element).
absl::StatusOr<std::vector<Literal>> EmulateOnHost(
    const GpuProgram& program, absl::Span<const Literal> args) {
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
  // One thread of one block; libdevice's functions are libm's.
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
      f->setName(name.substr(5));
    }
  }
  // emu<l>(ptr args): kernel l with its arguments from an array.
  llvm::IRBuilder<> b(*context);
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
  // The buffers, as the runtime fills them; temps hold garbage.
  const std::vector<std::vector<Literal>> leaves = ArgumentLeaves(args);
  std::vector<std::vector<uint8_t>> buffers;
  for (const GpuBuffer& buf : program.buffers) {
    std::vector<uint8_t> bytes(std::max<int64_t>(buf.bytes, 1) + 64, 0xA5);
    if (buf.kind == GpuBuffer::Kind::kConstant) {
      std::memcpy(bytes.data(), buf.data.data(), buf.bytes);
    } else if (buf.kind == GpuBuffer::Kind::kParameter ||
               buf.kind == GpuBuffer::Kind::kParameterSizes) {
      HLOREF_ASSIGN_OR_RETURN(std::vector<uint8_t> up,
                              ParameterBytes(buf, leaves));
      std::memcpy(bytes.data(), up.data(), buf.bytes);
    }
    buffers.push_back(std::move(bytes));
  }
  for (size_t l = 0; l < program.launches.size(); ++l) {
    std::vector<void*> ptrs;
    for (int64_t id : program.launches[l].buffers) {
      ptrs.push_back(buffers[id].data());
    }
    HLOREF_ASSIGN_OR_RETURN(void* fn, jit->Lookup(absl::StrCat("emu", l)));
    reinterpret_cast<void (*)(void**)>(fn)(ptrs.data());
  }
  if (program.status_buffer >= 0) {
    int32_t word = 0;
    std::memcpy(&word, buffers[program.status_buffer].data(), sizeof(word));
    HLOREF_RETURN_IF_ERROR(RunStatus(program, word));
  }
  std::vector<Literal> results;
  for (size_t i = 0; i < program.result_buffers.size(); ++i) {
    const int64_t id = program.result_buffers[i];
    if (id < 0) {
      results.push_back(Literal::Token());
      continue;
    }
    const int64_t sizes_id = program.result_sizes_buffers[i];
    HLOREF_ASSIGN_OR_RETURN(
        Literal leaf,
        ResultLeaf(program.result_shapes[i], buffers[id].data(),
                   sizes_id >= 0 ? reinterpret_cast<const int64_t*>(
                                       buffers[sizes_id].data())
                                 : nullptr));
    results.push_back(std::move(leaf));
  }
  return results;
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

TEST(GpuParticipants, SingleParticipantIdsAreZeroReplicatedIsRefused) {
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
  // replica_count * num_partitions = 4: refused with the reason.
  absl::StatusOr<std::unique_ptr<HloModule>> replicated = ParseHloModule(R"(
HloModule m, replica_count=2, num_partitions=2
ENTRY e {
  ROOT r = u32[] replica-id()
})");
  ASSERT_TRUE(replicated.ok()) << replicated.status();
  absl::StatusOr<GpuProgram> refused =
      CompileModuleToPtx(**replicated, GpuCompileOptions());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("replica_count * num_partitions = 4"));
}

}  // namespace
}  // namespace hloref::gpu
