// `hloref reduce`: shrinks a module that fails on a backend while it keeps
// failing (docs/architecture.md "conformance/"). Where `hloref diff`
// names one instruction, reduce is for the departures diff cannot isolate
// (several instructions together) and for backend errors (a compile error,
// a crash), and it yields the minimal module a bug report wants.
//
// The reduction is greedy over three moves, repeated until none applies:
//   root     the module computes an earlier instruction instead of its root
//            (the earliest in post order that still fails);
//   cut      an instruction becomes a parameter fed with the oracle's value
//            of it, dropping everything that only fed it;
//   enter    a fusion or call at the root is replaced by its computation,
//            run on the oracle's values of its operands.
// Every candidate is a verified module judged by the caller's predicate on
// fresh oracle values, so the result fails for the same reason and replays
// on its own.
#ifndef HLOREF_CONFORMANCE_DIFF_REDUCE_H_
#define HLOREF_CONFORMANCE_DIFF_REDUCE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "backends/backend.h"
#include "conformance/compare/deviations.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref::conformance {

// Whether a candidate still shows the problem; `why` receives a one-line
// description of the failure (for the log).
using StillFails = std::function<bool(
    const HloModule& module, absl::Span<const Literal> args, std::string* why)>;

struct ReduceOptions {
  // Candidates judged at most, and the wall time; reduce stops with the
  // smallest failing module found so far when either runs out.
  int64_t max_candidates = 2000;
  absl::Duration max_time = absl::Minutes(30);
  // Called with a line for each accepted step ("root %m: 14 -> 6
  // instructions").
  std::function<void(const std::string&)> log;
  // The oracle's EvaluatorOptions::max_bytes when it records the values of
  // the module being reduced (0: its default, the available memory).
  int64_t max_bytes = 0;
};

struct ReduceResult {
  std::unique_ptr<HloModule> module;
  std::string module_text;
  std::vector<Literal> args;
  int64_t instructions_before = 0;  // entry instructions
  int64_t instructions_after = 0;
  int64_t candidates = 0;  // judged
  int64_t steps = 0;       // accepted
  bool exhausted = false;  // stopped by a limit, not by a fixed point
  std::string why;         // the failure of the final module
};

// Reduces `module` (verified, single participant) with `args`.
// FailedPrecondition when the module does not fail to begin with.
absl::StatusOr<ReduceResult> ReduceModule(const HloModule& module,
                                          absl::Span<const Literal> args,
                                          const StillFails& still_fails,
                                          const ReduceOptions& options);

// The usual predicate: the backend's verdict on the candidate, judged as
// the conformance suite judges a case, is fail, and (when `match` is not
// empty) the failure message contains `match` - so that a reduction keeps
// one particular failure instead of drifting to another.
// `max_bytes`: the oracle's byte limit (EvaluatorOptions::max_bytes; 0: its
// default), the user's --max-bytes, so that a candidate of a module that
// needs more than the default is judged rather than skipped.
StillFails BackendStillFails(backends::Backend& backend, Profile profile,
                             Deviations deviations,
                             backends::CompileOptions compile_options,
                             std::string match, int64_t max_bytes = 0);

// The whole-program predicate (docs/enclosures.md): the backend's outputs
// of the candidate leave its whole-program enclosures (some element
// fails; unjudged elements never count), and the first failure's text
// contains `match` when given. A reduction with it keeps a real departure
// and never drifts to a difference that fusion, FMA contraction or excess
// precision explains. A candidate the backend cannot compile or run
// counts as failing only when `match` is empty (as a backend error).
StillFails EnclosureStillFails(backends::Backend& backend, Profile profile,
                               Deviations deviations,
                               backends::CompileOptions compile_options,
                               std::string match, int64_t max_bytes = 0);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_DIFF_REDUCE_H_
