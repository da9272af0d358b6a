// The compare/select family (seed 001 "Element-wise comparison
// operations", "Select", "Clamp"). The entry point is EvalCompareSelect in
// families.h; this header records the contract.
//
// - compare FLOAT (the default for floats): IEEE 754 on the exact values.
//   TOTALORDER: XLA's key transform, -NaN < -inf < ... < -0 < +0 < ... <
//   +inf < +NaN, EQ/NE are bit equality (impl.compare.1). SIGNED/UNSIGNED
//   read integer bits with that signedness; complex supports EQ/NE.
// - select copies element bytes (scalar predicate allowed, tuples with a
//   scalar predicate).
// - clamp = min(max(min, x), max) with XLA's NaN-propagating min/max;
//   min and max may be scalars (impl.clamp.1 for NaN and signed zeros).
#ifndef HLOREF_INTERPRETER_OPS_COMPARE_SELECT_H_
#define HLOREF_INTERPRETER_OPS_COMPARE_SELECT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "interpreter/ops/families.h"
#include "spec/types/literal.h"

namespace hloref {

// compare's TOTALORDER keys of every element of a float array (the order
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN as int64), exactly as
// compare evaluates them; sort's comparator fast path uses them.
absl::StatusOr<std::vector<int64_t>> CompareTotalOrderKeys(const Literal& lit);

// a DIRECTION b with C++'s operators on already-converted values (IEEE for
// doubles: every comparison with NaN is false except NE); compare and
// sort's comparator fast path share it.
template <typename T>
bool ApplyComparisonDirection(ComparisonDirection d, const T& a, const T& b) {
  switch (d) {
    case ComparisonDirection::kEq:
      return a == b;
    case ComparisonDirection::kNe:
      return a != b;
    case ComparisonDirection::kLt:
      return a < b;
    case ComparisonDirection::kLe:
      return a <= b;
    case ComparisonDirection::kGt:
      return a > b;
    case ComparisonDirection::kGe:
      return a >= b;
  }
  return false;
}

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_COMPARE_SELECT_H_
