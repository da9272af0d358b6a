// (to be replaced) a minimal f32 add/multiply/negate to bring up the
// pipeline.
#include "backends/codegen/emitter_table.h"
#include "llvm/IR/IRBuilder.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {

void RegisterElementwiseEmitters(EmitterTable& table) {
  auto binary = [](HloOpcode op) {
    return [op](EmitContext& ctx, const HloInstruction& inst,
                absl::Span<const ElementGenerator> operands)
               -> absl::StatusOr<ElementGenerator> {
      if (inst.shape().element_type() != PrimitiveType::kF32) {
        return absl::UnimplementedError("only f32 for now");
      }
      ElementGenerator a = operands[0], b = operands[1];
      return ElementGenerator(
          [&ctx, op, a, b](const IrIndex& i) -> absl::StatusOr<llvm::Value*> {
            HLOREF_ASSIGN_OR_RETURN(llvm::Value * x, a(i));
            HLOREF_ASSIGN_OR_RETURN(llvm::Value * y, b(i));
            return op == HloOpcode::kAdd ? ctx.b().CreateFAdd(x, y)
                                         : ctx.b().CreateFMul(x, y);
          });
    };
  };
  table.SetElemental(HloOpcode::kAdd, binary(HloOpcode::kAdd));
  table.SetElemental(HloOpcode::kMultiply, binary(HloOpcode::kMultiply));
}

}  // namespace hloref::codegen
