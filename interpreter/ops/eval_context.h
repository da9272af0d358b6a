// What every op-family evaluator receives besides its instruction and
// operand values: options, nested-computation calls and the sink for
// implementation-defined elements.
#ifndef HLOREF_INTERPRETER_OPS_EVAL_CONTEXT_H_
#define HLOREF_INTERPRETER_OPS_EVAL_CONTEXT_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {

class Rendezvous;      // interpreter/replicas.h
struct BroadcastView;  // interpreter/ops/broadcast_view.h

class DeviceChannels;  // interpreter/host_queues.h
class RngState;        // interpreter/ops/rng.h

class EvalContext {
 public:
  virtual ~EvalContext() = default;
  virtual const EvaluatorOptions& options() const = 0;

  // Evaluates a called computation (to_apply, body, branch, ...) on
  // argument values, with the same evaluator, limits and depth tracking.
  virtual absl::StatusOr<Literal> Call(
      const HloComputation& computation,
      absl::Span<const Literal* const> args) = 0;

  // Call with argument values the callee may consume: a value the callee
  // reads for the last time (a while loop's carried tuple, taken apart by
  // get-tuple-element and updated in place by dynamic-update-slice) is
  // reused instead of copied. Same result as Call.
  virtual absl::StatusOr<Literal> CallConsuming(
      const HloComputation& computation, std::vector<Literal> args) {
    std::vector<const Literal*> ptrs;
    ptrs.reserve(args.size());
    for (const Literal& a : args) ptrs.push_back(&a);
    return Call(computation, ptrs);
  }

  // Operand `k` of the current instruction moved out of the evaluator, when
  // this instruction is its last reader (its storage can become the
  // result: in-place updates); nullopt otherwise (the caller copies). After
  // a successful take, operands[k] must not be read again.
  virtual std::optional<Literal> TakeOperand(int64_t k) { return std::nullopt; }
  // As TakeOperand, for a caller that writes the result over every element
  // of the storage (element-wise ops): also nullopt when the storage is
  // adopted (Literal::storage_adopted: a mapped argument), whose pages
  // would each be copied on their first write, no cheaper than new
  // storage. Moves and partial updates (tuple, dynamic-update-slice) use
  // TakeOperand.
  virtual std::optional<Literal> TakeOperandToOverwrite(int64_t k) {
    return std::nullopt;
  }

  // Operand `k` of the current instruction as a broadcast read in place,
  // or null when operands[k] is the operand's value. When it is not null,
  // operands[k] is the broadcast's *operand* (view->source), not a value
  // of the instruction's operand shape. The evaluator hands views only to
  // instructions it knows read them (EvaluatorImpl::PlanOf: real-float
  // add, subtract, multiply, divide, remainder, maximum, minimum with a
  // result of the operand type); every other reader gets the broadcast
  // materialised.
  virtual const BroadcastView* OperandView(int64_t k) const { return nullptr; }

  // Storage for the current instruction's result. NewUninitialized: an
  // array literal of `shape` whose bytes are unspecified (possibly those of
  // a value freed earlier in the run, never of a value still live), for an
  // op that writes every element before reading any; NewZeroed: all bytes
  // zero, as Literal(shape). Both reuse the storage of freed values of the
  // same size where the evaluator keeps some (interpreter/buffer_cache.h),
  // so that the result does not fault in fresh pages. Tuples and tokens are
  // built as Literal::Uninitialized / Literal(shape) build them.
  virtual Literal NewUninitialized(const Shape& shape) {
    return Literal::Uninitialized(shape);
  }
  virtual Literal NewZeroed(const Shape& shape) { return Literal(shape); }

  // Records that element `linear` (row-major) of the current instruction's
  // result is implementation-defined (impl.<op>.<n>). `leaf` is the index
  // of the array leaf in a tuple-shaped result (0 for an array result):
  // the non-tuple leaves of the result shape numbered depth-first in
  // order (a token leaf counts, it has no elements).
  // Cheap to call in XLA-profile runs (the evaluator keeps the marks for
  // the portable profile and for propagation).
  virtual void MarkImplDefined(int64_t leaf, int64_t linear,
                               absl::string_view impl_id) = 0;
  // Marks every element of leaf `leaf`.
  virtual void MarkAllImplDefined(int64_t leaf, absl::string_view impl_id) = 0;

  // Per-element error data for accumulating ops (numerics.md 7.3/7.6),
  // only consulted when options().compute_error_data is set: S and m for
  // element `linear` of leaf `leaf`.
  virtual void SetErrorData(int64_t leaf, int64_t linear, double abs_sum,
                            int64_t term_count) = 0;

  // Returns ResourceExhausted when the wall-time limit has passed; loops
  // that can run long call it now and then.
  virtual absl::Status CheckDeadline(const HloInstruction& inst) = 0;

  // Called by while (and any other looping op) once per completed
  // iteration with the running count; returns ResourceExhausted naming the
  // instruction and EvaluatorOptions::max_while_iterations once the count
  // exceeds it. Also checks the wall-time deadline.
  virtual absl::Status CountWhileIteration(const HloInstruction& inst,
                                           int64_t iterations) {
    if (iterations > options().max_while_iterations) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "%", inst.name(), ": while loop ran more than ",
          options().max_while_iterations,
          " iterations (limit EvaluatorOptions::max_while_iterations)"));
    }
    return CheckDeadline(inst);
  }

  // Replicated runs (Evaluator::RunReplicated, interpreter/replicas.h):
  // this participant's replica and partition ids, and the rendezvous where
  // the collectives of the run meet (null in a one-participant run, where
  // every group is this participant alone).
  virtual int64_t replica_id() const { return 0; }
  virtual int64_t partition_id() const { return 0; }
  virtual Rendezvous* rendezvous() { return nullptr; }
  // Counts one more execution of `inst` on this participant and returns
  // the count (1 the first time): the k-th execution of a collective in a
  // loop meets the k-th execution on the other participants.
  virtual int64_t CountExecution(const HloInstruction& inst) { return 1; }

  // The evaluator-wide generator state of rng and rng-get-and-update-state
  // (interpreter/ops/rng.h); null in contexts without one (test fakes).
  virtual RngState* rng_state() { return nullptr; }
  // The device-to-device send/recv mailboxes of the current run
  // (interpreter/host_queues.h); null in contexts without them.
  virtual DeviceChannels* device_channels() { return nullptr; }
};

// Operand k moved out when TakeOperand allows it, else a copy. (Not a
// conditional expression: `c ? *std::move(taken) : *operands[k]` has the
// type const Literal and copies both ways.)
inline Literal TakeOrCopyOperand(EvalContext& ctx,
                                 absl::Span<const Literal* const> operands,
                                 int64_t k) {
  std::optional<Literal> taken = ctx.TakeOperand(k);
  if (taken.has_value()) return std::move(*taken);
  return *operands[static_cast<size_t>(k)];
}

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_EVAL_CONTEXT_H_
