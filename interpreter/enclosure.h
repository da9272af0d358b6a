// Whole-program error enclosures (docs/enclosures.md, numerics.md 7.8,
// issue 20): beside every value of a module, per element, a rigorous
// interval [lo, hi] containing every value a conforming implementation may
// produce for it, whatever it fuses, contracts into FMAs or keeps in a wider
// type (XLA's excess precision), and a verdict that judges a backend's
// outputs against those intervals.
//
// Each op applies its exact semantics to the enclosures of its operands
// (outward-rounded double interval arithmetic) and widens the result by the
// op's allowed error: exact ops none, correctly rounded ops a directed
// rounding of each end into the result type (which contains the correctly
// rounded result and any wider intermediate), ulp-bounded functions their
// budget, dot and reduce-add the order-independent gamma_m(u) * S bound.
// Where a decision depends on a comparison the enclosures do not decide
// (compare, select, while, conditional, indices) the union is taken where it
// is sound (select, conditional) and the affected elements are marked
// undecided otherwise; ops without a rule mark what they produce "no rule".
// Never a guess: an element is either enclosed or marked.
//
// The error classes are not a table of this file: EnclosureOptions::
// error_model supplies them (the conformance layer builds it from the
// comparator's policy, conformance/compare/enclosure_model.h), so the
// enclosures and the per-op comparator cannot disagree about an op's class.
//
// A separate pass: the oracle's own evaluation (evaluator.h) is untouched;
// this pass calls the oracle only to evaluate exact ops on exact operands
// and to find, for data movement, which operand element each output element
// is (evaluating the op on element ids).
#ifndef HLOREF_INTERPRETER_ENCLOSURE_H_
#define HLOREF_INTERPRETER_ENCLOSURE_H_

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "interpreter/evaluator.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {

// The allowed error of one op on one result type (numerics.md 7.3).
enum class EnclosureErrorKind : uint8_t {
  kExact,       // class E (and bit-exact data movement): no widening
  kRounded,     // class R: correctly rounded, or computed wider and rounded
                // later (excess precision)
  kUlp,         // class U: |v - y| <= ulps * ulp_T(y), min-normal floor
  kAccumulate,  // class A: gamma_m(u_T) * S (dot)
  kReduce,      // reduce: by the reducer (add: class A, max/min: exact)
  kFft,         // fft: the comparator's FFT_BOUND (interpreter/ops/fft.h)
  kNone,        // no enclosure rule: results unjudged
};

struct EnclosureErrorClass {
  EnclosureErrorKind kind = EnclosureErrorKind::kNone;
  double ulps = 0;  // kUlp: the budget for the result type
  // Complex results judged normwise (numerics.md "Complex ops": |v - y| <=
  // k u_T |y| plus a subnormal floor): k, or 0 where the op has none.
  double complex_k = 0;
};

// The error class of `opcode` producing `result_type`.
using EnclosureErrorModel =
    std::function<EnclosureErrorClass(HloOpcode opcode, PrimitiveType type)>;

// Per-element flags.
enum EnclosureFlag : uint8_t {
  kEnclNumber = 1,      // a number in [lo, hi] is a conforming result
  kEnclNaN = 2,         // NaN is a conforming result
  kEnclDontCare = 4,    // implementation-defined element (the oracle's marks)
  kEnclNoRule = 8,      // an op without an enclosure rule produced it
  kEnclUndecided = 16,  // depends on a decision the enclosures do not make
};

// The enclosure of one array value. Floats: [lo[i], hi[i]] per row-major
// element i (ints: `ints` holds the exact value, valid where flags has no
// kEnclUndecided / kEnclNoRule). Complex types: [lo[i], hi[i]] encloses
// the real part and [ilo[i], ihi[i]] the imaginary part (a box); a NaN in
// either part is not tracked (such elements are undecided), kEnclNaN is
// never set on them.
struct ArrayEnclosure {
  Shape shape;
  bool is_float = false;
  bool is_complex = false;
  std::vector<double> lo, hi;
  std::vector<double> ilo, ihi;  // complex only
  std::vector<int64_t> ints;
  std::vector<uint8_t> flags;
  // Why elements are unjudged (op names and reasons), at most a few.
  std::set<std::string> reasons;

  int64_t size() const { return static_cast<int64_t>(flags.size()); }
  bool Judgeable(int64_t i) const {
    return (flags[i] & (kEnclDontCare | kEnclNoRule | kEnclUndecided)) == 0;
  }
};

// A value: an array, or a tuple of values.
struct ValueEnclosure {
  Shape shape;
  ArrayEnclosure array;               // arrays (tokens: empty)
  std::vector<ValueEnclosure> tuple;  // tuples
};

// Declared vendor deviations (numerics.md 7.7; the conformance layer maps
// its Deviations onto these): they widen the enclosures accordingly.
struct EnclosureDeviations {
  // Subnormals of these types may be read as zero and results flushed to
  // zero: every interval meeting (-min_normal, min_normal) also holds 0,
  // and accumulations add (m + 1) min_normal.
  std::set<PrimitiveType> ftz_types;
  // maximum / minimum / clamp may drop a NaN operand.
  bool fast_min_max = false;
  // f32 and narrower division within this many ulps (0: correctly
  // rounded).
  double divide_ulps = 0;
  // dot / convolution: inputs rounded to a format of this unit roundoff
  // (0: as typed), accumulation unit (0: the result type's), doubled when
  // the accumulator truncates.
  double dot_input_unit = 0;
  double dot_accumulation_unit = 0;
  bool truncating_accumulation = false;
};

struct EnclosureOptions {
  // Required: the error class of each op (see the top of this file).
  EnclosureErrorModel error_model;
  EnclosureDeviations deviations;
  // For the oracle runs of exact ops (threads, limits, profile).
  EvaluatorOptions oracle;
  int64_t max_while_iterations = 1'000'000;
  // Arguments (by parameter number) that stand for every real number that
  // rounds to nearest to them in their type, not for their exact value:
  // float elements v become [midpoint(prev_T(v), v), midpoint(v,
  // next_T(v))] (f64: one double ulp each side; +-inf: beyond the
  // midpoint past max_T). `hloref diff` judges an instruction on a
  // backend's own operand values this way, so an operand the backend kept
  // wider and rounded only on output (excess precision) is inside.
  std::set<int64_t> rounded_arguments;
};

struct ModuleEnclosure {
  // The root flattened: one entry per array leaf in order.
  std::vector<ArrayEnclosure> outputs;
};

// The enclosure of every output of `module` (verified) on `args`.
// Errors: bad arguments (as Evaluator::Run), an oracle error on an exact op,
// a missing error model.
absl::StatusOr<ModuleEnclosure> ComputeEnclosure(
    const HloModule& module, absl::Span<const Literal> args,
    const EnclosureOptions& options);

// ---- The program verdict.

// Relative radius of element i: (hi - lo) / 2 / max(|lo|, |hi|, min normal
// of the type); 0 for a point, +inf for an unbounded interval, NaN for
// elements that are not judgeable (don't care, no rule, undecided) or
// NaN-only.
double RelativeRadius(const ArrayEnclosure& e, int64_t i);

// Whether element i's enclosure lies within two min-normals of zero (per
// part for complex types): a result at or near zero that the op's
// subnormal floor bounds. JudgeWithEnclosure judges such elements whatever
// their relative radius (and leaves them out of max_relative_radius).
bool WithinSubnormalFloor(const ArrayEnclosure& e, int64_t i);

struct EnclosureJudgeOptions {
  // Inside an enclosure wider than this relative radius: unjudged.
  double max_relative_radius = 1.0 / 16;
  int max_failures_listed = 10;
};

struct EnclosureFailure {
  int64_t linear = 0;
  std::string index;  // "[1,2]"
  double lo = 0, hi = 0;
  bool nan_allowed = false, number_allowed = true;
  double value = 0;
  std::string ToString() const;
};

struct EnclosureOutputVerdict {
  int64_t pass = 0, fail = 0;
  int64_t unjudged = 0;                    // wide, undecided or no rule
  int64_t dont_care = 0;                   // implementation-defined
  int64_t wide = 0;                        // of unjudged: inside but too wide
  double max_relative_radius = 0;          // over judgeable elements
  std::vector<EnclosureFailure> failures;  // the first few
  std::set<std::string> reasons;           // why elements are unjudged
};

struct EnclosureVerdict {
  std::vector<EnclosureOutputVerdict> outputs;
  bool passed() const {
    for (const auto& o : outputs) {
      if (o.fail > 0) return false;
    }
    return true;
  }
  int64_t TotalFail() const;
  int64_t TotalUnjudged() const;
  // One line per output: "result 0: 120 pass, 1 fail, 3 unjudged, ...".
  std::string Summary() const;
};

// Judges `values` (the module's outputs flattened, as the enclosure's
// outputs) element by element: pass (inside, narrow), fail (outside: a
// proof of non-conformance), unjudged (inside a wide enclosure, or not
// judgeable), don't care. InvalidArgument on a count/shape/type mismatch.
absl::StatusOr<EnclosureVerdict> JudgeWithEnclosure(
    const ModuleEnclosure& enclosure, absl::Span<const Literal> values,
    const EnclosureJudgeOptions& options = {});

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_ENCLOSURE_H_
