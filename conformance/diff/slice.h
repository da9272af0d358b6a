// Slicing an entry computation into a smaller module: the shared machinery
// of `hloref diff` (isolate one instruction) and `hloref reduce` (shrink a
// failing module). The slice is written as HLO text and parsed back, so
// every slice is a module any backend can take.
#ifndef HLOREF_CONFORMANCE_DIFF_SLICE_H_
#define HLOREF_CONFORMANCE_DIFF_SLICE_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "spec/ir/hlo_module.h"

namespace hloref::conformance {

struct EntrySlice {
  std::unique_ptr<HloModule> module;
  std::string text;
  // For each parameter of the slice, in parameter order, the instruction of
  // the original entry it stands for: an original parameter, or a cut
  // instruction whose value the caller supplies.
  std::vector<const HloInstruction*> sources;
};

// The module computing `root` (an instruction of `module`'s entry) from the
// instructions it depends on, where each instruction in `cuts` becomes a
// parameter (its producers are dropped). Parameters: the original
// parameters still needed (not cut), by parameter number, then the cuts
// that are needed, in the order given. Only the computations the kept
// instructions call come along. The slice is verified; errors say which
// slice failed and why.
absl::StatusOr<EntrySlice> SliceEntry(
    const HloModule& module, const HloInstruction& root,
    const std::vector<const HloInstruction*>& cuts, const std::string& name);

// The module whose entry is `computation` (a non-entry computation of
// `module`), with the computations it calls.
absl::StatusOr<std::unique_ptr<HloModule>> EnterComputation(
    const HloModule& module, const HloComputation& computation);

// The element type a case about `inst` is filed under: its first array
// operand's, else its own (kInvalid for tuples and tokens).
PrimitiveType CaseElementType(const HloInstruction& inst);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_DIFF_SLICE_H_
