// What `hloref check` / `run` need for modules as JAX and XLA dump them
// (docs/real-dumps.md): elided constants (`constant({...})`) found, named
// and, on request, filled; parameters without ARGs drawn from a seed
// (--random-args); results summarised instead of printed in full
// (--print=summary); the one-line note about annotation custom-calls.
#ifndef HLOREF_TOOLS_HLOREF_REAL_DUMPS_H_
#define HLOREF_TOOLS_HLOREF_REAL_DUMPS_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref::tools {

// ---- Elided constants.

// Every constant of `module` (any computation) whose value is elided
// (`{...}`, also inside a tuple constant), in text order.
std::vector<HloInstruction*> FindElidedConstants(const HloModule& module);

// "model.hlo:12:5: %constant.3 f32[16,16]".
std::string DescribeElidedConstant(const HloInstruction& inst);

// --fill-elided=zeros | random | random:SEED.
struct FillElided {
  bool random = false;
  uint64_t seed = 0;
};
absl::StatusOr<FillElided> ParseFillElided(absl::string_view value);

// Gives every elided constant a value (zeros, or values drawn as
// --random-args draws them, each constant from its own stream of the
// seed) and clears the elided mark. Returns one line per constant for the
// note on stderr ("%c f32[16,16] (model.hlo:12:5): zeros").
std::vector<std::string> FillElidedConstants(
    const std::vector<HloInstruction*>& elided, const FillElided& how);

// ---- Random arguments.

// Values for every entry parameter, drawn from `seed`: floats uniform in
// [-1, 1) (f8e8m0fnu, which has no sign, in [0.25, 4)), complex parts
// likewise, signed integers in [-8, 8], unsigned in [0, 8], pred both
// values, tokens as tokens, tuples element by element. An integer
// parameter the module uses (directly or through convert / reshape /
// broadcast / copy / bitcast) as a dynamic-slice or dynamic-update-slice
// start index, as gather or scatter indices, or as a while loop's bound
// (through the loop's init tuple into a compare of its condition) is kept
// in range: [0, the largest start that keeps the slice inside the
// operand], [0, 8] for a loop bound. `notes` gets one line per parameter
// saying what was drawn and why.
// Only parameters `first` and later are drawn (the earlier ones were given
// as ARGs: hloref diff / reduce); each parameter's values do not depend on
// `first`. Parameters needing more than `max_bytes` in all are refused
// before anything is allocated (the message names --max-bytes).
absl::StatusOr<std::vector<Literal>> DrawArguments(
    const HloComputation& entry, uint64_t seed, std::vector<std::string>* notes,
    int64_t first = 0, int64_t max_bytes = std::numeric_limits<int64_t>::max());

// ---- Shared by run, diff and reduce.

// The value of --random-args[=SEED]: an unsigned integer, 0 when empty.
absl::StatusOr<uint64_t> ParseRandomArgsSeed(absl::string_view value);

// The elided constants of `module` (read from `path`): without `fill`, an
// InvalidArgument naming each one and the flags that give them values
// (nothing is evaluated then); with it, the constants filled
// (FillElidedConstants) and one note line per constant. No elided
// constant: no notes.
absl::StatusOr<std::vector<std::string>> ResolveElidedConstants(
    HloModule& module, const std::string& path,
    const std::optional<FillElided>& fill);

// The libraries name their limits by option field ("limit
// EvaluatorOptions::max_bytes"); users set them with flags, so messages
// shown to them name the flag ("raise it with --max-bytes=BYTES").
std::string NameLimitFlags(absl::string_view message);

// ---- Printing results.

enum class PrintMode { kFull, kSummary, kNone };
absl::StatusOr<PrintMode> ParsePrintMode(absl::string_view value);

// One line per array leaf of `value` (tuples flattened in order):
//   `result 0: f32[2,4]{1,0} min -7 max 16 mean 3.25 nan 0 inf 0`
// (`label` prefixes each line, e.g. "replica 1: "). Integers and pred
// print exact min and max; complex values the min and max of |z| and the
// mean of the real and imaginary parts; the padding of a dynamic value is
// left out; an empty array says so.
std::string SummarizeResult(const Literal& value, const std::string& label);

}  // namespace hloref::tools

#endif  // HLOREF_TOOLS_HLOREF_REAL_DUMPS_H_
