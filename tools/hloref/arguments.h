// Reading a module's arguments from the command line (hloref run, diff):
// an ARG is a .npy file, a file holding an HLO literal, or a literal
// written inline, with or without its shape.
#ifndef HLOREF_TOOLS_HLOREF_ARGUMENTS_H_
#define HLOREF_TOOLS_HLOREF_ARGUMENTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref::tools {

// The whole file; NotFound naming the path when it cannot be opened.
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Reads one ARG for parameter `param` (which may be null when there are
// more ARGs than parameters; the evaluator reports the count mismatch). A
// literal without a shape prefix is read with the parameter's shape.
// With map_npy a large .npy file is mapped rather than read
// (NpyReadOptions::map): the caller checks CheckMappedNpyFiles before
// trusting results computed from it.
absl::StatusOr<Literal> ReadArgument(const std::string& arg,
                                     const HloInstruction* param,
                                     bool map_npy = false);

// Per-participant arguments of a replicated module (`participants` of
// them): DIR/p<i>/arg_<k>.npy for participant i and parameter k, as a
// generated conformance case directory holds them. Errors name the
// participant and the file.
absl::StatusOr<std::vector<std::vector<Literal>>> ReadParticipantArgs(
    const std::string& dir, const HloComputation& entry, int64_t participants);

}  // namespace hloref::tools

#endif  // HLOREF_TOOLS_HLOREF_ARGUMENTS_H_
