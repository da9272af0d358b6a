// The comparator of docs/numerics.md section 7: judges a backend's outputs
// against the oracle's evaluation of the same module and arguments, element
// by element, with the verdict the op's class (policy.h), the declared
// deviations (deviations.h) and the profile give. A failure explains
// itself: output, index, the inputs that fed it (element-wise ops),
// expected, got, bound, ULP distance and the rule.
//
// fft, cholesky, triangular-solve and batch-norm-* are judged with bounds
// computed from the whole output and the op's operands (op_bounds.h,
// README.md): FFT_BOUND, BACKWARD_ERROR (cholesky: a residual check on the
// whole factor, reported at the factor element of the failing residual),
// FORWARD_ERROR and BATCH_NORM_BOUND. Their operands must be parameters or
// constants of the module; otherwise the output is ANY and the rule says
// why.
#ifndef HLOREF_CONFORMANCE_COMPARE_COMPARATOR_H_
#define HLOREF_CONFORMANCE_COMPARE_COMPARATOR_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "conformance/compare/deviations.h"
#include "conformance/compare/verdict.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref::conformance {

struct CompareConfig {
  Profile profile = Profile::kXla;
  Deviations deviations;
  // How many failing elements are explained per case (all are counted).
  int max_explained = 5;
};

struct ElementFailure {
  int output = 0;           // index in the flattened result
  int64_t index = 0;        // row-major element index
  std::string multi_index;  // "{1,0}"
  std::string inputs;       // "p0=1.5, p1=nan" for element-wise ops
  std::string expected;     // the oracle's value
  std::string got;
  double bound = 0;         // accepted half-width (BOUNDED), else 0
  double ulp_distance = 0;  // |got - expected| in ulps of the type
  std::string rule;         // verdict kind and the class rule
  std::string why;          // what exactly failed
  // "output 0, element {1,0} (inputs p0=..): expected .., got ..; ..."
  std::string ToString() const;
};

struct ComparisonResult {
  bool ok = true;
  // A structural mismatch (output count, shape, element type); empty
  // when the shapes agree.
  std::string structure_error;
  int64_t elements = 0;  // compared, masked included
  int64_t masked = 0;    // ANY verdicts (profile masks, undefined)
  int64_t mismatches = 0;
  double max_ulp_distance = 0;  // over failing and passing elements
  // The largest error/bound over BOUNDED elements (drift indicator, 7.9).
  double worst_margin = 0;
  std::map<std::string, int64_t> verdict_counts;  // by verdict kind
  std::vector<ElementFailure> failures;           // the first few
  std::string Summary() const;  // one line: first failure + counts
};

// Flattens a tuple literal into its array leaves, in order.
void FlattenLiteral(const Literal& literal, std::vector<const Literal*>* out);

// The arguments with every subnormal element of the types in `types`
// replaced by a zero of the same sign (DAZ); *changed tells whether any
// element was flushed.
std::vector<Literal> FlushSubnormalArgs(absl::Span<const Literal> args,
                                        const std::set<PrimitiveType>& types,
                                        bool* changed);

// Compares `got` (the backend's flattened outputs) with `oracle` (an
// EvalResult of the oracle with compute_error_data on). `oracle_flushed`
// is the oracle on FlushSubnormalArgs(args) when FTZ is declared and some
// input was flushed (else null): an element passes if it passes either.
ComparisonResult CompareToOracle(const HloModule& module,
                                 absl::Span<const Literal> args,
                                 const EvalResult& oracle,
                                 const EvalResult* oracle_flushed,
                                 absl::Span<const Literal> got,
                                 const CompareConfig& config);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_COMPARE_COMPARATOR_H_
