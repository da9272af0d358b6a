// Seed 000 "Shapes and layout", section "Padding": a layout may pad each
// dimension to a wider size (`padded_dimensions`) filled with a
// `padding_value`. hloref's Layout does not carry those fields (today's
// HLO text has no syntax for them); these helpers compute what such a
// layout stores, so the seed's worked example is checkable in a unit test
// (layout_util_test.cc).
#ifndef HLOREF_SPEC_TYPES_LAYOUT_UTIL_H_
#define HLOREF_SPEC_TYPES_LAYOUT_UTIL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "spec/types/literal.h"

namespace hloref {

// The logical array the padded layout describes: `value` (an array) in
// the low corner of an array of `padded_dimensions`, every other element
// `padding_value` (a scalar of value's element type). The seed: "dimension
// 0 is padded to a width of 3 and dimension 1 is padded to a width of 5".
// InvalidArgument when the rank differs, a padded size is below the
// dimension's size, or padding_value is not such a scalar.
absl::StatusOr<Literal> PadToDimensions(
    const Literal& value, absl::Span<const int64_t> padded_dimensions,
    const Literal& padding_value);

// The linear memory of `value` under a layout with `minor_to_major` and
// `padded_dimensions`: a rank-1 literal of product(padded_dimensions)
// elements in buffer order (minor_to_major[0] varies fastest), padding
// elements equal to `padding_value`. Errors as PadToDimensions, plus
// InvalidArgument when minor_to_major is not a permutation of the
// dimensions.
absl::StatusOr<Literal> LinearizeWithPadding(
    const Literal& value, absl::Span<const int64_t> minor_to_major,
    absl::Span<const int64_t> padded_dimensions, const Literal& padding_value);

}  // namespace hloref

#endif  // HLOREF_SPEC_TYPES_LAYOUT_UTIL_H_
