// Helpers shared by the verifier's family files, and the per-family shape
// inference entry points that verifier.cc dispatches to. Private to
// spec/verifier/.
#ifndef HLOREF_SPEC_VERIFIER_VERIFIER_INTERNAL_H_
#define HLOREF_SPEC_VERIFIER_VERIFIER_INTERNAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/shape.h"
#include "spec/util/status_macros.h"

namespace hloref::verifier_internal {

// A rule violation at `inst`: InstructionError with the message built from
// the pieces (absl::StrCat).
template <typename... Args>
absl::Status Fail(const HloInstruction& inst, absl::string_view rule,
                  const Args&... pieces) {
  return InstructionError(inst, rule, absl::StrCat(pieces...));
}

// A point where seed 001 and XLA disagree and hloref reads what XLA
// accepts: recorded in VerifyOptions::warnings of the VerifyModule call in
// progress on this thread (dropped outside one, e.g. from InferShape).
void Warn(const HloInstruction& inst, absl::string_view rule,
          absl::string_view message);

// `{1,2}`.
std::string DimsStr(absl::Span<const int64_t> dims);
// A shape without layout, `f32[2,3]`.
std::string ShapeStr(const Shape& shape);
// "operand 1 (%x)".
std::string OperandName(const HloInstruction& inst, int64_t i);

// Equal element types and dimension sizes (bounds), recursively for
// tuples; layouts and dynamic flags ignored.
bool SameShape(const Shape& a, const Shape& b);
// Equal dimension sizes (element types may differ); arrays only.
bool SameDims(const Shape& a, const Shape& b);
// An array of `type` with the dimensions (and dynamic flags) of `like`.
Shape WithElementType(const Shape& like, PrimitiveType type);
Shape MakeShape(PrimitiveType type, absl::Span<const int64_t> dims);
bool IsScalarArray(const Shape& s);
bool IsTupleOfArrays(const Shape& s);

// `<rule>`: operand i must be an array (not tuple, token or opaque).
absl::Status ExpectArrayOperand(const HloInstruction& inst, int64_t i,
                                absl::string_view rule);
// `<rule>`: every entry of `dims` (named `what`) in [0, rank), no repeats;
// with `sorted` also strictly increasing.
absl::Status CheckDimList(const HloInstruction& inst, absl::string_view rule,
                          absl::string_view what,
                          absl::Span<const int64_t> dims, int64_t rank,
                          bool sorted = false);
bool Contains(absl::Span<const int64_t> list, int64_t v);

// Parameter shapes (by number) and result shape of a computation. Call only
// after the module structure check (parameters numbered 0..N-1, root set).
std::vector<Shape> ParameterShapes(const HloComputation& comp);
const Shape& ResultShape(const HloComputation& comp);

// `<rule>`: `comp` (named by its attribute `what`) takes exactly
// `params` and returns `result` (shapes compared with SameShape).
absl::Status CheckSignature(const HloInstruction& inst, absl::string_view rule,
                            absl::string_view what, const HloComputation* comp,
                            absl::Span<const Shape> params,
                            const Shape& result);

// Reducer-style computations (reduce, reduce-window, scatter, all-reduce,
// reduce-scatter): (T_0..T_{N-1}, T_0..T_{N-1}) -> T_0 for N == 1 or
// (T_0, ..., T_{N-1}) for N > 1, every T_i a scalar of `types[i]`.
absl::Status CheckReducer(const HloInstruction& inst, absl::string_view rule,
                          absl::string_view what, const HloComputation* comp,
                          absl::Span<const PrimitiveType> types);

// CheckReducer as XLA reads it for scatter, select-and-scatter's scatter,
// all-reduce and reduce-scatter: XLA's shape inference (VerifyReducerShape)
// compares the computation's types with the operands' ignoring
// floating-point precision, and XLA's HloVerifier (XLA:CPU's options) adds
// no exact-type rule for these ops. Accepts a computation whose parameter i
// has exactly its result i's type, with every T_i, parameter N+i and
// result i real floating-point types (or equal), and records a warning
// naming the precision change and `impl_id` (the oracle's rule: each
// application converts its arguments to the computation's types and its
// results back to T_i). Anything else fails as CheckReducer does.
absl::Status CheckReducerAsXla(const HloInstruction& inst,
                               absl::string_view rule, absl::string_view what,
                               const HloComputation* comp,
                               absl::Span<const PrimitiveType> types,
                               absl::string_view impl_id);
// Equal types, or two real floating-point types (XLA's
// ShapeUtil::SameElementTypeIgnoringFpPrecision).
bool SameTypeIgnoringFpPrecision(PrimitiveType a, PrimitiveType b);
// Whether CheckReducerAsXla would accept `comp` for `types` with a
// precision change (for error messages of the ops where XLA refuses it).
bool IsPrecisionChangeOnly(const HloComputation* comp,
                           absl::Span<const PrimitiveType> types);

// The windowed output size along one dimension: the number of valid window
// placements over the dilated, padded base (XLA's StridedBound).
absl::StatusOr<std::vector<int64_t>> WindowOutputDims(
    const HloInstruction& inst, absl::string_view rule,
    absl::Span<const int64_t> base_dims, const Window& window);

// Participant groups of a collective after normalisation; checks that ids
// are non-negative, unique across groups, groups non-empty, and (when the
// module states more than one device) below `limit`. Rule IDs are
// `<op>.C1` (disjoint/unique), `<op>.C2` (range), `<op>.C3` (non-empty).
absl::Status CheckReplicaGroups(const HloInstruction& inst);
// The number of participants in each group: the common group size, or, for
// empty replica_groups, all participants of the op's mode. `<op>.C4` when
// groups have different sizes and `uniform` is required.
absl::StatusOr<int64_t> GroupSize(const HloInstruction& inst, bool uniform);
// The number of ids in the space a collective's groups index (replicas,
// partitions or global devices); 0 when the module header does not say.
int64_t IdSpace(const HloInstruction& inst);

// Sets of element-type kinds an op accepts.
enum TypeSet : unsigned {
  kPredOk = 1,
  kSignedOk = 2,
  kUnsignedOk = 4,
  kFloatOk = 8,
  kComplexOk = 16,
  kIntOk = kSignedOk | kUnsignedOk,
  kNumericOk = kIntOk | kFloatOk | kComplexOk,
  kAnyOk = kPredOk | kNumericOk,
};
bool AcceptsType(unsigned set, PrimitiveType t);
// "pred or signed integer".
std::string TypeSetName(unsigned set);

// The family entry points (one per file of this directory).
absl::StatusOr<Shape> InferElementwiseUnary(const HloInstruction& inst);
absl::StatusOr<Shape> InferElementwiseBinary(const HloInstruction& inst);
absl::StatusOr<Shape> InferCompareSelect(const HloInstruction& inst);
absl::StatusOr<Shape> InferConvert(const HloInstruction& inst);
absl::StatusOr<Shape> InferShapeOps(const HloInstruction& inst);
absl::StatusOr<Shape> InferSlicing(const HloInstruction& inst);
absl::StatusOr<Shape> InferConcatPad(const HloInstruction& inst);
absl::StatusOr<Shape> InferDot(const HloInstruction& inst);
absl::StatusOr<Shape> InferConvolution(const HloInstruction& inst);
absl::StatusOr<Shape> InferReduce(const HloInstruction& inst);
absl::StatusOr<Shape> InferGatherScatter(const HloInstruction& inst);
absl::StatusOr<Shape> InferSort(const HloInstruction& inst);
absl::StatusOr<Shape> InferControlFlow(const HloInstruction& inst);
absl::StatusOr<Shape> InferTupleToken(const HloInstruction& inst);
absl::StatusOr<Shape> InferCollectives(const HloInstruction& inst);
absl::StatusOr<Shape> InferRng(const HloInstruction& inst);
absl::StatusOr<Shape> InferFft(const HloInstruction& inst);
absl::StatusOr<Shape> InferLinalg(const HloInstruction& inst);
absl::StatusOr<Shape> InferBatchNorm(const HloInstruction& inst);
absl::StatusOr<Shape> InferHostIo(const HloInstruction& inst);
absl::StatusOr<Shape> InferCustomCall(const HloInstruction& inst);
absl::StatusOr<Shape> InferAsync(const HloInstruction& inst);

// For a family's switch default: the op was dispatched to the wrong family.
absl::Status WrongFamily(const HloInstruction& inst, absl::string_view family);

// "<opname>.C<n>" for ops whose rules are numbered per family (the
// elementwise groups share one numbering).
std::string Rule(const HloInstruction& inst, int n);

}  // namespace hloref::verifier_internal

#endif  // HLOREF_SPEC_VERIFIER_VERIFIER_INTERNAL_H_
