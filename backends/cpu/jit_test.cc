// cpu/jit.h: the perf map (JitOptions::perf_map_path). A module with two
// exported functions and an internal one is compiled with a map file; the
// map must name all three, give the exported ones the addresses the JIT's
// own lookup returns (the second sits at a nonzero offset in the first's
// section, so section offsets are applied), and give the internal one
// (which no lookup can reach) an address that really is its code: calling
// it must run it.
#include "backends/cpu/jit.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace hloref::cpu {
namespace {

// internal void store_seven(i32* p) noinline { *p = 7; }
// void outer(i32* p) { store_seven(p); p[1] = 9; }
// void second(i32* p) { p[1] = 5; }  (after outer in its section)
std::unique_ptr<llvm::Module> TwoFunctions(llvm::LLVMContext& context) {
  auto module = std::make_unique<llvm::Module>("perf_map", context);
  llvm::IRBuilder<> b(context);
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  auto* outer = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage,
                                       "outer", module.get());
  auto* inner = llvm::Function::Create(fty, llvm::GlobalValue::InternalLinkage,
                                       "store_seven", module.get());
  inner->addFnAttr(llvm::Attribute::NoInline);
  // Keep the C calling convention: the test calls it through a plain
  // function pointer (an unused-address internal function may otherwise be
  // given fastcc).
  llvm::appendToUsed(*module, {inner});
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", inner));
  b.CreateStore(b.getInt32(7), inner->getArg(0));
  b.CreateRetVoid();
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", outer));
  b.CreateCall(inner, {outer->getArg(0)});
  b.CreateStore(b.getInt32(9),
                b.CreateConstGEP1_64(b.getInt32Ty(), outer->getArg(0), 1));
  b.CreateRetVoid();
  auto* second = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage,
                                        "second", module.get());
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", second));
  b.CreateStore(b.getInt32(5),
                b.CreateConstGEP1_64(b.getInt32Ty(), second->getArg(0), 1));
  b.CreateRetVoid();
  return module;
}

struct MapEntry {
  uint64_t address = 0;
  uint64_t size = 0;
};

TEST(JitPerfMap, NamesExportedAndInternalFunctionsAtTheirAddresses) {
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "jit_test_perf.map")
          .string();
  std::filesystem::remove(path);
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = TwoFunctions(*context);
  JitOptions options;
  options.perf_map_path = path;
  auto jit = JitModule::Compile(std::move(module), std::move(context), options);
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto outer = (*jit)->Lookup("outer");  // links the module: map written
  ASSERT_TRUE(outer.ok()) << outer.status();
  auto second = (*jit)->Lookup("second");
  ASSERT_TRUE(second.ok()) << second.status();

  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "no perf map at " << path;
  std::map<std::string, MapEntry> entries;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    MapEntry e;
    std::string name;
    fields >> std::hex >> e.address >> e.size >> name;
    ASSERT_FALSE(fields.fail()) << "malformed line: " << line;
    entries[name] = e;
  }
  ASSERT_EQ(entries.count("outer"), 1u);
  ASSERT_EQ(entries.count("store_seven"), 1u);
  ASSERT_EQ(entries.count("second"), 1u);
  // second shares outer's section, at a nonzero offset in it.
  EXPECT_EQ(entries["second"].address, reinterpret_cast<uint64_t>(*second));
  EXPECT_NE(entries["second"].address, entries["outer"].address);
  const MapEntry o = entries["outer"];
  const MapEntry s = entries["store_seven"];
  EXPECT_EQ(o.address, reinterpret_cast<uint64_t>(*outer));
  EXPECT_GT(o.size, 0u);
  EXPECT_GT(s.size, 0u);
  // Disjoint code ranges.
  EXPECT_TRUE(s.address + s.size <= o.address ||
              o.address + o.size <= s.address);

  int32_t v[2] = {0, 0};
  reinterpret_cast<void (*)(int32_t*)> (*outer)(v);
  EXPECT_EQ(v[0], 7);
  EXPECT_EQ(v[1], 9);
  v[0] = 0;
  v[1] = 0;
  reinterpret_cast<void (*)(int32_t*)>(s.address)(v);
  EXPECT_EQ(v[0], 7);
  EXPECT_EQ(v[1], 0);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace hloref::cpu
