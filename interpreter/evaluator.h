// The reference evaluator (the oracle): runs a verified HloModule on
// argument literals, instruction by instruction in post order, following
// seed 001 and, where it is silent, docs/numerics.md (XLA profile by
// default).
#ifndef HLOREF_INTERPRETER_EVALUATOR_H_
#define HLOREF_INTERPRETER_EVALUATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {

class CustomCallRegistry;  // interpreter/custom_call_registry.h
class HostQueues;          // interpreter/host_queues.h
class RngState;            // interpreter/ops/rng.h
class Rendezvous;          // interpreter/replicas.h

// numerics.md decision 1.
enum class Profile : uint8_t {
  kXla,       // implementation-defined points take XLA's concrete choice
  kPortable,  // the same points are reported as don't-care elements
};

struct EvaluatorOptions {
  Profile profile = Profile::kXla;
  // Limits; exceeding one is a ResourceExhausted error naming the limit,
  // the instruction and the option to raise it.
  int64_t max_elements_per_value = int64_t{1} << 28;
  int64_t max_while_iterations = 10'000'000;
  absl::Duration max_wall_time = absl::Minutes(10);
  int max_call_depth = 200;
  // The most bytes of values the evaluator may hold at once (results of
  // instructions, at every call depth; the caller's arguments and the
  // module's constants are not counted, they are read in place). Checked
  // before each instruction allocates its result: ResourceExhausted naming
  // the instruction, the bytes it needs and the bytes held. 0: the
  // machine's available memory (/proc/meminfo MemAvailable, read when the
  // run starts; 16 GiB where that file cannot be read).
  int64_t max_bytes = 0;
  // The most bytes of freed values' storage kept for later results of the
  // same size (interpreter/buffer_cache.h): results written into reused
  // storage do not fault in fresh pages. Values below 64 KiB are left to
  // malloc. Counted with the held values against max_bytes (the cache is
  // emptied before a result would exceed it). 0: no cache.
  int64_t buffer_cache_bytes = int64_t{64} << 20;
  // Broadcasts whose every reader is a real-float add, subtract, multiply,
  // divide, remainder, maximum or minimum (with a result of the operand
  // type) are not materialised: the readers read the broadcast's operand
  // through strides (interpreter/ops/broadcast_view.h). Same results;
  // false materialises every broadcast (tests compare the two).
  bool broadcast_views = true;
  // Worker threads for large independent work inside one instruction
  // (dot, convolution, reduce, element-wise ops over big values). Results
  // are bit-identical for every value: work is split by output elements,
  // never by the order of an accumulation. 0: the number of cores.
  int threads = 1;
  // Progress of long evaluations: called on the evaluating thread, at most
  // once per progress_interval, once the run has taken longer than
  // progress_interval (so short runs never call it). Replicated runs call
  // it from participant 0 only.
  struct Progress {
    int64_t entry_done = 0;   // entry-computation instructions finished
    int64_t entry_total = 0;  // instructions of the entry computation
    int64_t evaluated = 0;    // instructions evaluated at every depth
    absl::Duration elapsed;
    int64_t live_bytes = 0;
    int64_t peak_bytes = 0;
    int64_t limit_bytes = 0;  // EvalResult::limit_bytes so far
  };
  std::function<void(const Progress&)> progress;
  absl::Duration progress_interval = absl::Seconds(3);
  // Compute the per-element error data (S and m) of accumulating ops
  // (numerics.md 7.3, 7.6); see EvalResult.
  bool compute_error_data = false;
  // Run / RunReplicated: each EvalResult::outputs[i].value takes its leaf
  // out of EvalResult::value instead of copying it, so the result is held
  // once (value keeps its shape with empty leaves). For callers that read
  // only the outputs (the conformance harness: a large result was held
  // twice by every judged case of hloref diff and reduce).
  bool outputs_take_the_result = false;

  // Replicated runs (RunReplicated; interpreter/replicas.h): the number of
  // replicas and partitions; 0 takes the module header's replica_count /
  // num_partitions.
  int64_t replica_count = 0;
  int64_t partition_count = 0;
  // How long a participant waits at a collective for the others before the
  // run fails with DeadlineExceeded naming the instruction and the
  // participants that did not arrive. Deadlocks the rendezvous can prove
  // (a participant finished without arriving, or every unfinished
  // participant waits) are reported at once, without waiting this long.
  absl::Duration collective_timeout = absl::Seconds(5);

  // Host I/O (interpreter/host_queues.h): the queues infeed, outfeed and
  // host-transfer send/recv use, owned by the caller, who fills them before
  // Run and drains them after. Null: those ops fail with a clear error.
  HostQueues* host_queues = nullptr;
  // custom-call (interpreter/custom_call_registry.h): in-process targets
  // (owned by the caller, may be null), then these shared libraries in
  // order (opened with dlopen only because they are listed here).
  const CustomCallRegistry* custom_call_registry = nullptr;
  std::vector<std::string> custom_call_libraries;
  // rng and rng-get-and-update-state (interpreter/ops/rng.h): the seed of
  // hloref's own generator; the Evaluator's generator state starts at it.
  uint64_t rng_seed = 0;

  // Called with every instruction of the entry computation and its value
  // (parameters and constants included) as soon as it is evaluated, on the
  // evaluating thread, with the participant (replica * partitions +
  // partition; 0 in a single-device run). `hloref diff` uses it to feed
  // each instruction the oracle's operands. Replicated runs call it from
  // several threads at once.
  std::function<void(int64_t participant, const HloInstruction&,
                     const Literal&)>
      entry_value_observer;
};

// One output value with what a fair comparison needs.
//
// Don't-care marks (numerics.md decision 1): every family reports the
// elements whose value is an implementation-defined choice through
// EvalContext::MarkImplDefined. The evaluator propagates them: element-wise
// ops (the element-wise unary and binary, compare/select/clamp and convert
// families) mark an output element when the operand element it reads is
// marked; tuple and get-tuple-element move marks leaf by leaf; every other
// op marks its whole output when any element of any operand is marked, and
// an instruction whose called computation returns marked elements is marked
// as a whole. The marks are returned under BOTH profiles: under kXla the
// values are XLA's concrete choices and the mask is still filled, so that a
// comparator can apply the portable profile to an XLA-profile run without
// evaluating again; under kPortable the masked values are the same (the
// oracle has to put something there) and are meant to be ignored.
struct EvaluatedOutput {
  Literal value;
  // pred array of value's shape: true where the element is implementation-
  // defined under the portable profile (or data-dependent undefined). Only
  // filled when some element is masked; flattened tuples have one output
  // each, see EvalResult.
  std::optional<Literal> dont_care;
  // The impl.<op>.<n> IDs that caused masked elements (deduplicated).
  std::vector<std::string> impl_ids;
  // With compute_error_data, for roots produced by an accumulating op
  // (directly or through tuple / get-tuple-element): abs_sum is an f64
  // array of value's shape with S = |init| + sum |t_i|, term_count an s64
  // array with m (numerics.md 7.3, 7.6). An element the op could not bound
  // (an arbitrary reducer) has S = NaN and m = -1.
  std::optional<Literal> abs_sum;
  std::optional<Literal> term_count;
};

struct EvalResult {
  // The root value as a literal (a tuple for tuple-shaped roots).
  Literal value;
  // The root flattened: one entry per array leaf of the result in order
  // (a non-tuple result has exactly one).
  std::vector<EvaluatedOutput> outputs;
  // Memory and work of the run (EvaluatorOptions::max_bytes counts the
  // same bytes): the most bytes of values held at once, and the number of
  // instructions evaluated at every depth (while bodies once per
  // iteration, reducers per call).
  int64_t peak_bytes = 0;
  // The smallest EvaluatorOptions::max_bytes the run is accepted with: the
  // most bytes the limit check counted (the values held plus the next
  // result, counted before the op runs, also when the op then writes it
  // over an operand read for the last time). At least peak_bytes in runs
  // where every value passes the check; `hloref run` prints it.
  int64_t limit_bytes = 0;
  int64_t instructions_evaluated = 0;
  // Results written into the storage of a value freed earlier in the run
  // (EvaluatorOptions::buffer_cache_bytes) instead of new storage.
  int64_t reused_buffers = 0;
};

// The default of EvaluatorOptions::max_bytes: MemAvailable from
// /proc/meminfo, or 16 GiB where it cannot be read.
int64_t DefaultMaxBytes();

class Evaluator {
 public:
  explicit Evaluator(EvaluatorOptions options = {});
  ~Evaluator();

  // Runs the entry computation. The module must have passed VerifyModule.
  // Argument count, shapes (dimensions and element type) are checked
  // against the entry parameters; errors name the parameter.
  absl::StatusOr<EvalResult> Run(const HloModule& module,
                                 absl::Span<const Literal> args);
  // Convenience: just the root value. Errors: InvalidArgument for bad
  // arguments (naming the parameter number and name), ResourceExhausted for
  // an exceeded limit (naming the limit, the instruction and the
  // EvaluatorOptions field), Unimplemented for ops not implemented yet.
  absl::StatusOr<Literal> Evaluate(const HloModule& module,
                                   absl::Span<const Literal> args);
  // Run on arguments the evaluator may consume: an argument read for the
  // last time (put into a while loop's carried tuple, updated in place) is
  // moved instead of copied, so a module carrying its weights through a
  // loop does not hold them twice. Same results as Run, except that each
  // outputs[i].value is left empty: the result's leaves are held once, in
  // EvalResult::value (Run copies each leaf into its output, a second
  // buffer as large as the result).
  absl::StatusOr<EvalResult> RunConsuming(const HloModule& module,
                                          std::vector<Literal> args);
  // Run refuses a module that needs more than one participant
  // (ReplicaCount * PartitionCount > 1); RunReplicated runs it.

  // Runs the entry computation on every participant of the run (replicas x
  // partitions, see ReplicaCount/PartitionCount), one thread each, with
  // the collectives meeting at a rendezvous (interpreter/replicas.h).
  // `args` holds one argument list per participant (participant
  // r * partitions + p), or a single list that every participant gets.
  // Returns one EvalResult per participant in that order. When any
  // participant fails the run fails: the status is the first root-cause
  // error in participant order (one not caused by another participant's
  // failure), prefixed with the participant ("replica 1: ..."); a
  // collective that cannot complete gives DeadlineExceeded naming the
  // instruction and the participants that arrived and did not.
  absl::StatusOr<std::vector<EvalResult>> RunReplicated(
      const HloModule& module, absl::Span<const std::vector<Literal>> args);
  // The participant counts a run of `module` uses: the options when set
  // (non-zero), else the module header.
  int64_t ReplicaCount(const HloModule& module) const;
  int64_t PartitionCount(const HloModule& module) const;

  const EvaluatorOptions& options() const { return options_; }

  // The generator state of rng and rng-get-and-update-state
  // (interpreter/ops/rng.h): it lives as long as the Evaluator, so
  // successive Run calls continue one sequence. Copies of an Evaluator
  // share it.
  RngState& rng_state() const { return *rng_state_; }

 private:
  // One participant of a run (Run: replica 0 of 1, no rendezvous).
  absl::StatusOr<EvalResult> RunParticipant(
      const HloModule& module, absl::Span<const Literal> args,
      Rendezvous* rendezvous, int64_t replica, int64_t partition,
      std::vector<Literal>* owned = nullptr);

  EvaluatorOptions options_;
  std::shared_ptr<RngState> rng_state_;
};

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_EVALUATOR_H_
