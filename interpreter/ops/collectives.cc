// Placeholder for the collectives family: no op of this family is evaluated
// yet. Each returns Unimplemented naming the opcode, so the interpreter links
// and callers get a clear "unsupported" rather than a crash.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/ops/families.h"

namespace hloref {

absl::StatusOr<Literal> EvalCollectives(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  return absl::UnimplementedError(
      absl::StrCat("%", inst.name(), ": the interpreter does not implement ",
                   HloOpcodeString(inst.opcode()), " yet"));
}

}  // namespace hloref
