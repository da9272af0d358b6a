// (being written by h6) Temporary: returns Unimplemented until the family
// lands, so that the interpreter library links.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/ops/families.h"

namespace hloref {

absl::StatusOr<Literal> EvalCompareSelect(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  return absl::UnimplementedError(
      absl::StrCat("%", inst.name(), ": the interpreter does not implement ",
                   HloOpcodeString(inst.opcode()), " yet"));
}

}  // namespace hloref
