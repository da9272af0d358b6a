// Padded layouts (seed 000 "Padding"); see layout_util.h.
#include "spec/types/layout_util.h"

#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloref {
namespace {

// A padded array is materialised; refuse absurd sizes with an error
// instead of an allocation failure.
constexpr int64_t kMaxPaddedElements = int64_t{1} << 28;

}  // namespace

absl::StatusOr<Literal> PadToDimensions(
    const Literal& value, absl::Span<const int64_t> padded_dimensions,
    const Literal& padding_value) {
  const Shape& shape = value.shape();
  if (!shape.IsArray() || !shape.is_static()) {
    return absl::InvalidArgumentError(
        absl::StrCat("padded layout: the value must be a static array, got ",
                     shape.ToString(false)));
  }
  const Shape& pad_shape = padding_value.shape();
  if (!pad_shape.IsArray() || pad_shape.rank() != 0 ||
      pad_shape.element_type() != shape.element_type()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "padded layout: padding_value is ", pad_shape.ToString(false),
        ", expected a scalar of the value's element type ",
        PrimitiveTypeName(shape.element_type())));
  }
  if (static_cast<int64_t>(padded_dimensions.size()) != shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "padded layout: padded_dimensions [",
        absl::StrJoin(padded_dimensions, ","), "] has ",
        padded_dimensions.size(), " entries, the shape ", shape.ToString(false),
        " has rank ", shape.rank(), " (seed 000: they must be equal)"));
  }
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (padded_dimensions[d] < shape.dimensions(d)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "padded layout: padded_dimensions[", d, "] = ", padded_dimensions[d],
          " is smaller than dimension ", d, " of ", shape.ToString(false),
          " (padding only widens a dimension)"));
    }
  }
  HLOREF_RETURN_IF_ERROR(CheckShapeSize(
      Shape(shape.element_type(), padded_dimensions), kMaxPaddedElements));
  Literal out(Shape(shape.element_type(), padded_dimensions));
  const size_t bytes = static_cast<size_t>(StorageBytes(shape.element_type()));
  const uint8_t* pad = padding_value.raw().data();
  uint8_t* dst = out.mutable_raw().data();
  const uint8_t* src = value.raw().data();
  std::vector<int64_t> index(padded_dimensions.size(), 0);
  if (out.element_count() == 0) return out;
  int64_t linear = 0;
  do {
    bool inside = true;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      inside = inside && index[d] < shape.dimensions(d);
    }
    const uint8_t* from =
        inside ? src + RowMajorIndex(shape.dimensions(), index) * bytes : pad;
    std::memcpy(dst + linear * bytes, from, bytes);
    ++linear;
  } while (NextIndex(padded_dimensions, absl::MakeSpan(index)));
  return out;
}

absl::StatusOr<Literal> LinearizeWithPadding(
    const Literal& value, absl::Span<const int64_t> minor_to_major,
    absl::Span<const int64_t> padded_dimensions, const Literal& padding_value) {
  HLOREF_ASSIGN_OR_RETURN(
      Literal padded, PadToDimensions(value, padded_dimensions, padding_value));
  Layout layout;
  layout.minor_to_major.assign(minor_to_major.begin(), minor_to_major.end());
  HLOREF_RETURN_IF_ERROR(ValidateLayout(layout, padded.shape().rank()));
  const PrimitiveType type = value.shape().element_type();
  Literal out(Shape(type, {padded.element_count()}));
  const size_t bytes = static_cast<size_t>(StorageBytes(type));
  if (padded.element_count() == 0) return out;
  // Row-major position r of the padded array goes to its buffer position.
  std::vector<int64_t> index(padded_dimensions.size(), 0);
  int64_t r = 0;
  do {
    const int64_t position = LinearIndex(padded_dimensions, layout, index);
    std::memcpy(out.mutable_raw().data() + position * bytes,
                padded.raw().data() + r * bytes, bytes);
    ++r;
  } while (NextIndex(padded_dimensions, absl::MakeSpan(index)));
  return out;
}

}  // namespace hloref
