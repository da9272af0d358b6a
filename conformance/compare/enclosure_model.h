// The error classes of the whole-program enclosures (interpreter/
// enclosure.h) taken from the comparator's per-op policy
// (compare_policy.def), so that an op's class is stated once.
#ifndef HLOREF_CONFORMANCE_COMPARE_ENCLOSURE_MODEL_H_
#define HLOREF_CONFORMANCE_COMPARE_ENCLOSURE_MODEL_H_

#include "conformance/compare/deviations.h"
#include "interpreter/enclosure.h"

namespace hloref::conformance {

// The class of each op under the default policy (no declared deviation):
// kBits / kExact / kMinMax / kClamp -> exact; kRounded / kDivide /
// kConvert -> correctly rounded; kUlp -> the ulp budget of the result type;
// kAccumulate -> accumulation; kReduce -> by the reducer; the whole-output
// classes (fft, cholesky, triangular-solve, batch-norm), kMap, kScatter
// and kAny -> no rule.
EnclosureErrorModel PolicyEnclosureModel();

// The declared deviations the enclosures model: ftz, fast-min-max,
// divide ulps, dot input precision and accumulation (saturating f8 and FMA
// contraction need nothing: their results are inside already; NaN
// payloads are never judged).
EnclosureDeviations EnclosureDeviationsOf(const Deviations& deviations);

// EnclosureOptions with PolicyEnclosureModel(), these oracle options and
// these declared deviations.
EnclosureOptions PolicyEnclosureOptions(const EvaluatorOptions& oracle = {},
                                        const Deviations& deviations = {});

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_COMPARE_ENCLOSURE_MODEL_H_
