// `command:<program>`: a backend in another process, spoken to through
// files, so that a runtime in any language can be certified.
//
// The protocol (also in the README):
//  1. hloref creates a fresh directory DIR and writes
//       DIR/module.hlo      the verified module in HLO text
//       DIR/arg_<k>.npy     one .npy per entry parameter k = 0, 1, ...
//                           (spec/types/npy.h: NumPy dtypes where NumPy
//                           has one, else a one-field structured dtype
//                           named after the type, e.g. [('bf16', '<u2')])
//  2. it runs `<program> DIR` (the program text is split on spaces, so
//     `command:python3 tools/backends/xla_jax.py` works) with the caller's
//     environment, stdin closed, stdout and stderr captured;
//  3. exit status 0: the program has written DIR/result_<i>.npy, one per
//     leaf of the (flattened) root, i = 0, 1, ...;
//     exit status 3 (kUnsupportedExitCode): unsupported; stderr says what
//     (reported *unsupported*, not failed);
//     exit status 4 (kUnavailableExitCode): the environment is missing
//     (e.g. its runtime is not installed): *skipped*;
//     any other status or a signal: an error, with the tail of stderr.
//  A program running longer than CompileOptions::timeout is killed (its
//  whole process group) and the run fails with DeadlineExceeded.
//  Tuple-shaped parameters are not passed (unsupported).
//  Replicated modules (replica_count * num_partitions = N > 1, run with
//  Executable::RunReplicated): module.hlo is at the top as before, but
//  participant i (= replica * num_partitions + partition) gets its
//  arguments in DIR/p<i>/arg_<k>.npy (the same files for all when the
//  caller passes one shared list) and the program writes its results to
//  DIR/p<i>/result_<j>.npy, i = 0 .. N-1. A program that cannot run
//  replicated modules exits 3 (unsupported) as for any other module.
//  Executable::Run on a replicated module runs every participant on the
//  same arguments this way and returns their common result (an error when
//  participants disagree).
#ifndef HLOREF_BACKENDS_COMMAND_COMMAND_BACKEND_H_
#define HLOREF_BACKENDS_COMMAND_COMMAND_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backends/backend.h"

namespace hloref::backends {

inline constexpr int kUnsupportedExitCode = 3;
inline constexpr int kUnavailableExitCode = 4;

// FailedPrecondition when the program (its first word) is not an
// executable file, or not found on PATH when it has no '/'.
absl::StatusOr<std::unique_ptr<Backend>> CreateCommandBackend(
    const std::string& program);

}  // namespace hloref::backends

#endif  // HLOREF_BACKENDS_COMMAND_COMMAND_BACKEND_H_
