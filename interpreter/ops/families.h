// The entry point of each op family's evaluator; the evaluator's dispatch
// switch (generated from spec/ops.def) calls the one named after the op's
// family. Each family file lists the seed sections it implements.
#ifndef HLOREF_INTERPRETER_OPS_FAMILIES_H_
#define HLOREF_INTERPRETER_OPS_FAMILIES_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "interpreter/ops/eval_context.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {

#define HLOREF_DECLARE_FAMILY(Name)                                          \
  absl::StatusOr<Literal> Eval##Name(                                        \
      const HloInstruction& inst, absl::Span<const Literal* const> operands, \
      EvalContext& ctx);
HLOREF_DECLARE_FAMILY(ElementwiseUnary)
HLOREF_DECLARE_FAMILY(ElementwiseBinary)
HLOREF_DECLARE_FAMILY(CompareSelect)
HLOREF_DECLARE_FAMILY(Convert)
HLOREF_DECLARE_FAMILY(Shape)
HLOREF_DECLARE_FAMILY(Slicing)
HLOREF_DECLARE_FAMILY(ConcatPad)
HLOREF_DECLARE_FAMILY(Dot)
HLOREF_DECLARE_FAMILY(Convolution)
HLOREF_DECLARE_FAMILY(Reduce)
HLOREF_DECLARE_FAMILY(GatherScatter)
HLOREF_DECLARE_FAMILY(Sort)
HLOREF_DECLARE_FAMILY(ControlFlow)
HLOREF_DECLARE_FAMILY(TupleToken)
HLOREF_DECLARE_FAMILY(Collectives)
HLOREF_DECLARE_FAMILY(Rng)
HLOREF_DECLARE_FAMILY(Fft)
HLOREF_DECLARE_FAMILY(Linalg)
HLOREF_DECLARE_FAMILY(BatchNorm)
HLOREF_DECLARE_FAMILY(HostIo)
HLOREF_DECLARE_FAMILY(CustomCall)
HLOREF_DECLARE_FAMILY(Async)
#undef HLOREF_DECLARE_FAMILY

// The reduce family's scan (interpreter/ops/scan.cc); EvalReduce dispatches
// to it.
absl::StatusOr<Literal> EvalScan(const HloInstruction& inst,
                                 absl::Span<const Literal* const> operands,
                                 EvalContext& ctx);
// True when `comp` is a scan's cumulative add of one input and one carry:
// (x, c) -> add(x, c) [carry only, outputs == 0], or (x, c) -> (a, a) with
// a = add(x, c) [output and carry, outputs == 1], the add's operands in
// either order (scan.cc; the enclosures' scan rule uses it too).
bool IsScanCumulativeAdd(const HloComputation& comp, int64_t outputs);

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_FAMILIES_H_
