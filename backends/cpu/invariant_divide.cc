#include "backends/cpu/invariant_divide.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

namespace hloref::cpu {

namespace {

// The magnitude range [2^-E, 2^E] of invariant_divide.h, as bit patterns of
// the element type.
struct Range {
  uint64_t lo, span;  // lo = bits(2^-E), span = bits(2^E) - lo
  uint64_t magnitude_mask;
};

Range RangeFor(llvm::Type* element) {
  if (element->isFloatTy()) {
    constexpr uint64_t kE = 60;
    return {(127 - kE) << 23, (2 * kE) << 23, 0x7fffffffu};
  }
  constexpr uint64_t kE = 500;
  return {(1023 - kE) << 52, (2 * kE) << 52, 0x7fffffffffffffffull};
}

// An i1: every lane of `v` lies in the range (or, with allow_plus_zero, is
// +0).
llvm::Value* AllLanesOk(llvm::IRBuilderBase& b, llvm::Value* v,
                        bool allow_plus_zero) {
  auto* type = llvm::cast<llvm::FixedVectorType>(v->getType());
  llvm::Type* element = type->getElementType();
  const Range r = RangeFor(element);
  const unsigned bits = element->getPrimitiveSizeInBits().getFixedValue();
  const unsigned lanes = type->getNumElements();
  llvm::Type* int_vector = llvm::FixedVectorType::get(b.getIntNTy(bits), lanes);
  auto splat = [&](uint64_t c) {
    return llvm::ConstantInt::get(int_vector, c);
  };
  llvm::Value* raw = b.CreateBitCast(v, int_vector);
  llvm::Value* magnitude = b.CreateAnd(raw, splat(r.magnitude_mask));
  llvm::Value* ok =
      b.CreateICmpULE(b.CreateSub(magnitude, splat(r.lo)), splat(r.span));
  if (allow_plus_zero) {
    ok = b.CreateOr(ok, b.CreateICmpEQ(raw, splat(0)));
  }
  llvm::Value* mask = b.CreateBitCast(ok, b.getIntNTy(lanes));
  return b.CreateICmpEQ(mask,
                        llvm::ConstantInt::getAllOnesValue(mask->getType()));
}

bool Qualifies(const llvm::BinaryOperator& div) {
  if (div.getOpcode() != llvm::Instruction::FDiv) return false;
  auto* type = llvm::dyn_cast<llvm::FixedVectorType>(div.getType());
  if (type == nullptr) return false;
  llvm::Type* element = type->getElementType();
  if (!element->isFloatTy() && !element->isDoubleTy()) return false;
  return type->getPrimitiveSizeInBits().getFixedValue() >= 256;
}

// Divides by one divisor in one block (not in a loop where it is
// invariant) that share a reciprocal.
constexpr size_t kMinDividesPerReciprocal = 4;

bool HasFma(const llvm::Function& f) {
  const llvm::Attribute a = f.getFnAttribute("target-features");
  if (!a.isValid()) return false;
  const llvm::StringRef features = a.getValueAsString();
  return features.contains("+fma");
}

}  // namespace

bool UseInvariantDivideRewrite() {
  const char* env = std::getenv("HLOREF_CPU_INVARIANT_DIVIDE");
  return env == nullptr || std::string(env) != "0";
}

int64_t RewriteInvariantDivides(llvm::Module& module) {
  int64_t rewritten = 0;
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || !HasFma(f)) continue;
    // Collect first: splitting blocks invalidates the loop info, not the
    // instructions, their loops' preheaders or the divisors.
    struct Candidate {
      llvm::BinaryOperator* div;
      // Where y and b's check go: the loop's preheader terminator, or the
      // first divide of a block's group by one divisor.
      llvm::Instruction* reciprocal_at;
    };
    std::vector<Candidate> candidates;
    {
      llvm::DominatorTree dt(f);
      llvm::LoopInfo li(dt);
      for (llvm::BasicBlock& bb : f) {
        llvm::Loop* loop = li.getLoopFor(&bb);
        llvm::BasicBlock* preheader =
            loop != nullptr ? loop->getLoopPreheader() : nullptr;
        // The other divides of this block (no preheader, or a divisor
        // that varies in the loop), by divisor, in program order.
        std::vector<std::pair<llvm::Value*, std::vector<llvm::BinaryOperator*>>>
            by_divisor;
        for (llvm::Instruction& inst : bb) {
          auto* div = llvm::dyn_cast<llvm::BinaryOperator>(&inst);
          if (div == nullptr || !Qualifies(*div)) continue;
          llvm::Value* d = div->getOperand(1);
          if (preheader != nullptr && loop->isLoopInvariant(d)) {
            candidates.push_back({div, preheader->getTerminator()});
            continue;
          }
          auto it = std::find_if(by_divisor.begin(), by_divisor.end(),
                                 [d](const auto& e) { return e.first == d; });
          if (it == by_divisor.end()) {
            by_divisor.push_back({d, {div}});
          } else {
            it->second.push_back(div);
          }
        }
        // A row the vectoriser unrolled completely divides it vector by
        // vector within one block: one reciprocal serves them all.
        for (const auto& [d, divs] : by_divisor) {
          if (divs.size() < kMinDividesPerReciprocal) continue;
          for (llvm::BinaryOperator* div : divs) {
            candidates.push_back({div, divs.front()});
          }
        }
      }
    }
    // y = RN(1/b) and b's check, once per insertion point and divisor.
    std::map<std::pair<llvm::Instruction*, llvm::Value*>,
             std::pair<llvm::Value*, llvm::Value*>>
        reciprocals;
    for (const Candidate& c : candidates) {
      llvm::BinaryOperator* div = c.div;
      llvm::Value* a = div->getOperand(0);
      llvm::Value* d = div->getOperand(1);
      llvm::Type* type = div->getType();
      auto [it, inserted] =
          reciprocals.try_emplace({c.reciprocal_at, d}, nullptr, nullptr);
      if (inserted) {
        llvm::IRBuilder<> b(c.reciprocal_at);
        llvm::Value* y =
            b.CreateFDiv(llvm::ConstantFP::get(type, 1.0), d, "inv.recip");
        it->second = {y, AllLanesOk(b, d, /*allow_plus_zero=*/false)};
      }
      auto [y, divisor_ok] = it->second;
      llvm::IRBuilder<> b(div);
      llvm::Value* ok = b.CreateAnd(AllLanesOk(b, a, /*allow_plus_zero=*/true),
                                    divisor_ok, "inv.ok");
      llvm::Instruction* then_term = nullptr;
      llvm::Instruction* else_term = nullptr;
      llvm::MDBuilder md(module.getContext());
      llvm::SplitBlockAndInsertIfThenElse(ok, div->getIterator(), &then_term,
                                          &else_term,
                                          md.createBranchWeights(1000, 1));
      // The fast path.
      b.SetInsertPoint(then_term);
      llvm::Function* fma = llvm::Intrinsic::getDeclaration(
          &module, llvm::Intrinsic::fma, {type});
      llvm::Value* q0 = b.CreateFMul(a, y, "inv.q0");
      llvm::Value* r0 = b.CreateCall(fma, {b.CreateFNeg(q0), d, a}, "inv.r0");
      llvm::Value* q1 = b.CreateCall(fma, {r0, y, q0}, "inv.q1");
      llvm::Value* r1 = b.CreateCall(fma, {b.CreateFNeg(q1), d, a}, "inv.r1");
      llvm::Value* q2 = b.CreateCall(fma, {r1, y, q1}, "inv.q2");
      // The divide itself is the slow path.
      div->moveBefore(else_term);
      llvm::BasicBlock* tail = then_term->getSuccessor(0);
      auto* phi = llvm::PHINode::Create(type, 2, "inv.q", tail->begin());
      phi->addIncoming(q2, then_term->getParent());
      phi->addIncoming(div, else_term->getParent());
      div->replaceUsesWithIf(
          phi, [phi](llvm::Use& u) { return u.getUser() != phi; });
      ++rewritten;
    }
  }
  return rewritten;
}

}  // namespace hloref::cpu
