// What a family generator draws (internal to conformance/generators/): the
// parameters, how to fill them, and the text of the op under test. The
// driver (generator.cc) wraps it into a module, asks the verifier for the
// result shape and validity, and fills the arguments (values.cc).
#ifndef HLOREF_CONFORMANCE_GENERATORS_DRAW_H_
#define HLOREF_CONFORMANCE_GENERATORS_DRAW_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "spec/ir/opcode.h"
#include "spec/types/literal.h"
#include "spec/types/shape.h"

namespace hloref::conformance::gen {

// SplitMix64: a counter-based generator whose output is fixed by the
// algorithm (std:: distributions are implementation-defined, so they
// would make cases differ between standard libraries).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, n) (n > 0).
  uint64_t Below(uint64_t n) { return Next() % n; }
  // Uniform in [lo, hi].
  int64_t Range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo + 1)));
  }
  bool Chance(double p) { return (Next() >> 11) * 0x1.0p-53 < p; }
  double Unit() { return (Next() >> 11) * 0x1.0p-53; }
  template <typename T>
  const T& Pick(absl::Span<const T> items) {
    return items[Below(items.size())];
  }

 private:
  uint64_t state_;
};

// How a parameter's values are drawn (values.cc).
enum class Fill {
  kGeneral,   // random values of the type with special values mixed in
  kFinite,    // random finite values of moderate magnitude, no specials
  kSmallInt,  // small integers in [-4, 4] (exact in every summation order)
  kIndex,     // indices in [-2, index_bound + 2] (clamping exercised)
  kUnique,    // a permutation of 0..n-1 scaled into the type (sort keys)
  kPositive,  // positive finite values (products, logs)
  // Batches of square matrices (the last two dimensions) that are
  // symmetric, real-valued and strictly diagonally dominant with a positive
  // diagonal: symmetric positive definite (cholesky) and with well
  // conditioned triangles (triangular-solve), so the oracle's result is
  // not dominated by cancellation.
  kWellConditioned,
  // Complex IRFFT input that is the spectrum of a real signal (finite
  // values, then made Hermitian on the self-conjugate planes: innermost
  // frequency 0 and, for an even fft_length, n/2, where X[k] must equal
  // conj(X[-k]) over the outer transformed axes), so the oracle does not
  // mask the item (impl.fft.1). ParamSpec::fft_lengths names the axes.
  kHermitian,
};

struct ParamSpec {
  Shape shape;
  Fill fill = Fill::kGeneral;
  int64_t index_bound = 0;                // kIndex
  std::vector<int64_t> fft_lengths = {};  // kHermitian: the IRFFT fft_length
};

struct Draw {
  std::vector<ParamSpec> params;
  // Extra computations (reducers, comparators) in HLO text.
  std::string computations;
  // The op line after `ROOT r = <shape> `, naming parameters p0, p1, ...
  std::string op_text;
  // Entry instructions before the op under test (building a tuple operand,
  // a while loop's initial state), one per line, naming parameters p0, ...;
  // empty for single-op cases.
  std::string prelude;
  // The result shape when the text must state it (broadcast, reshape,
  // iota); empty: inferred by InferShape.
  std::optional<Shape> result_shape;
  // The case's element type (defaults to params[0]'s, or the result's).
  PrimitiveType type = PrimitiveType::kInvalid;
  // Replicated cases (collectives): the module header's replica_count and
  // num_partitions. With per_participant_args every participant gets its
  // own argument values drawn from `params`; otherwise all share one list.
  int64_t replica_count = 1;
  int64_t partition_count = 1;
  bool per_participant_args = false;
  // Argument values the generator fixes instead of drawing them, keyed by
  // (participant, parameter): values that must agree across participants
  // (ragged-all-to-all's offsets and sizes). Participant 0's entries also
  // apply to cases without per-participant arguments.
  std::map<std::pair<int64_t, int64_t>, Literal> fixed_values;
  // Host transfers the case needs (infeed, outfeed, host-transfer
  // send/recv): values pushed before the run, one per spec, in order.
  std::vector<ParamSpec> infeed;
  std::map<int64_t, std::vector<ParamSpec>> recv;
};

// A family generator: draws one candidate for `opcode` (attempt-specific
// randomness comes from `rng`). May return an error to ask for a redraw.
using FamilyGenerator = absl::StatusOr<Draw> (*)(HloOpcode opcode, Rng& rng);

// Family generators (one file each).
absl::StatusOr<Draw> GenerateElementwiseUnary(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateElementwiseBinary(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateCompareSelect(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateConvert(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateShape(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateSlicing(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateConcatPad(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateDot(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateConvolution(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateReduce(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateGatherScatter(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateSort(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateTupleToken(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateControlFlow(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateRng(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateFft(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateLinalg(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateBatchNorm(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateCollectives(HloOpcode op, Rng& rng);
absl::StatusOr<Draw> GenerateHostIo(HloOpcode op, Rng& rng);  // host_io.cc
absl::StatusOr<Draw> GenerateAsync(HloOpcode op, Rng& rng);   // async.cc
// custom-call: always Unimplemented with the reason it is excluded
// (misc.cc; ExcludedFromGeneration in generator.h).
absl::StatusOr<Draw> GenerateCustomCall(HloOpcode op, Rng& rng);
// misc.cc: the generator of ops their family's generator does not draw
// (stochastic-convert, dynamic-reshape, set-dimension-size, after-all,
// domain, parameter; get-dimension-size of runtime sizes, delegating the
// static cases to GenerateShape); null for every other op. GeneratorFor
// asks it first.
FamilyGenerator MiscGeneratorFor(HloOpcode opcode);
// The generator of `opcode`'s family (null: none); `ops` of a family may
// still be refused by the generator (it returns Unimplemented).
FamilyGenerator GeneratorFor(HloOpcode opcode);

// Shared drawing helpers (generator.cc).
// Every array element type (the verifier filters per op).
absl::Span<const PrimitiveType> CandidateTypes();
PrimitiveType DrawType(Rng& rng);
// Float types only / integer types only.
PrimitiveType DrawFloatType(Rng& rng);
PrimitiveType DrawNumericType(Rng& rng);  // ints, floats, complex
// A random shape: rank in [min_rank, max_rank], dimensions mostly 1..5,
// sometimes 0 (zero-size) or 7 (odd).
std::vector<int64_t> DrawDims(Rng& rng, int min_rank, int max_rank);
std::string ShapeText(PrimitiveType type, absl::Span<const int64_t> dims);
std::string ListText(absl::Span<const int64_t> values);  // "{1,2}"
// A binary scalar computation named `name` applying `op_name` on `type`.
std::string BinaryComputation(const std::string& name,
                              const std::string& op_name, PrimitiveType type);
// A random permutation of 0..n-1.
std::vector<int64_t> Permutation(Rng& rng, int64_t n);

// values.cc: fills a literal of `spec.shape` as `spec.fill` says.
Literal MakeValues(const ParamSpec& spec, Rng& rng);
// The special values of a type, as raw bits (NaN, +-inf, +-0, smallest and
// largest subnormal, smallest normal, largest finite, +-1; integer min,
// max, 0, +-1).
std::vector<uint64_t> SpecialValueBits(PrimitiveType type);

}  // namespace hloref::conformance::gen

#endif  // HLOREF_CONFORMANCE_GENERATORS_DRAW_H_
