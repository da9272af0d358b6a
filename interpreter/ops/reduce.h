// Counters of the reduce family's fast paths (interpreter/ops/reduce.cc),
// for tests that must know a path was taken: a test that compares values
// only would pass just the same if the path were never used.
#ifndef HLOREF_INTERPRETER_OPS_REDUCE_H_
#define HLOREF_INTERPRETER_OPS_REDUCE_H_

#include <cstdint>

namespace hloref {

// Outputs of add reductions decided by the column sums (an add reducer
// whose reduced dimensions are not innermost: FoldColumnsPlain) and
// outputs those sums left to the two-sum and ExactSum, since the process
// started (all threads, all evaluations).
int64_t ReduceColumnOutputsDecided();
int64_t ReduceColumnOutputsUndecided();

// Outputs of maximum / minimum reductions over columns decided by the
// column extremes (FoldColumnsMinMax), and those left to the in-order
// fold (a NaN in the column).
int64_t ReduceColumnMinMaxDecided();
int64_t ReduceColumnMinMaxUndecided();

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_REDUCE_H_
