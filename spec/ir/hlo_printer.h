// Writing HLO text in XLA's canonical long form (section 8 of
// docs/hlo-text-format.md). Print then parse gives the same module.
#ifndef HLOREF_SPEC_IR_HLO_PRINTER_H_
#define HLOREF_SPEC_IR_HLO_PRINTER_H_

#include <string>

#include "spec/ir/hlo_module.h"

namespace hloref {

struct PrintOptions {
  bool print_percent = true;     // `%name`
  bool print_signatures = true;  // `%comp (p: f32[]) -> f32[] {`
  bool print_metadata = true;
  bool print_backend_config = true;
  bool print_large_constants = true;  // false: `{...}` above 10 elements
  bool print_operand_shapes = false;  // pre-2025 `f32[2]{0} %x` operands
  bool print_index_comments = true;   // `/*index=5*/`
  bool print_control_predecessors = true;
  // Negative zero in literals as `-0.0` instead of XLA's `-0`. XLA's parser
  // reads the integer token `-0` as +0 (so XLA's own printed text does not
  // round-trip), but keeps the sign of the decimal `-0.0`; modules handed
  // to XLA (the command backend) need this to mean what hloref means.
  bool print_negative_zero_as_decimal = false;
  // XLA's short parsable form (no %, no signatures, no metadata).
  static PrintOptions Short();
};

std::string PrintModule(const HloModule& module,
                        const PrintOptions& options = {});
std::string PrintComputation(const HloComputation& computation,
                             const PrintOptions& options = {});
std::string PrintInstruction(const HloInstruction& instruction,
                             const PrintOptions& options = {});

}  // namespace hloref

#endif  // HLOREF_SPEC_IR_HLO_PRINTER_H_
