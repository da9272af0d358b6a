// Shapes and layouts of HLO values: arrays (static, bounded-dynamic or
// unbounded dimensions, with an optional layout), tuples, tokens, opaque.
// Seed 000 "Shapes and layout" defines minor_to_major and the mapping
// between logical (multi-dimensional) and linear indices.
#ifndef HLOREF_SPEC_TYPES_SHAPE_H_
#define HLOREF_SPEC_TYPES_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "spec/types/primitive_type.h"

namespace hloref {

// One tiling level `T(8,128)`; kCombineDimension is the `*` entry.
struct Tile {
  static constexpr int64_t kCombineDimension = -1;
  std::vector<int64_t> dimensions;
  bool operator==(const Tile&) const = default;
};

// A layout as XLA prints it: `{1,0:T(8,128)(2,1)L(4)E(4)S(1)}`.
// minor_to_major, tiles, element size and memory space are kept as data;
// the other extended fields are kept as their text so the printer can
// write them back (they never change a value's meaning).
struct Layout {
  std::vector<int64_t> minor_to_major;
  std::vector<Tile> tiles;
  int64_t tail_padding_alignment = 0;  // L(n); 0 = absent
  int64_t element_size_in_bits = 0;    // E(n); 0 = absent (natural)
  int64_t memory_space = 0;            // S(n); 0 = default
  // Verbatim text of fields we do not model (D(...), #(..), *(..), SC(..),
  // P(..), M(..)), in printed order, e.g. "SC(0:1024)M(8)".
  std::string other_fields;

  bool operator==(const Layout&) const = default;
  // `{1,0:T(8,128)}`; `{}` for an empty minor_to_major with no fields.
  std::string ToString() const;
  // The descending (row-major) layout {rank-1, ..., 0}.
  static Layout Descending(int64_t rank);
  bool IsDescending() const;
  bool HasExtendedFields() const;
};

class Shape {
 public:
  // Dimension marker for `?` (unbounded dynamic).
  static constexpr int64_t kUnboundedSize = -1;

  Shape() = default;  // an invalid shape
  // An array shape with static dimensions and no layout.
  Shape(PrimitiveType element_type, absl::Span<const int64_t> dimensions);
  static Shape Array(PrimitiveType element_type,
                     absl::Span<const int64_t> dimensions) {
    return Shape(element_type, dimensions);
  }
  static Shape Scalar(PrimitiveType element_type) {
    return Shape(element_type, {});
  }
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token();
  static Shape Opaque();

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }
  bool IsValid() const { return element_type_ != PrimitiveType::kInvalid; }
  bool IsArray() const { return IsArrayType(element_type_); }
  bool IsTuple() const { return element_type_ == PrimitiveType::kTuple; }
  bool IsToken() const { return element_type_ == PrimitiveType::kToken; }
  bool IsOpaque() const { return element_type_ == PrimitiveType::kOpaque; }

  // Array accessors. For a dynamic dimension, dimensions()[i] is its bound
  // (or kUnboundedSize for `?`).
  int64_t rank() const { return static_cast<int64_t>(dimensions_.size()); }
  absl::Span<const int64_t> dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_[i]; }
  void set_dimensions(int64_t i, int64_t size) { dimensions_[i] = size; }
  bool is_dynamic_dimension(int64_t i) const { return dynamic_[i]; }
  absl::Span<const bool> dynamic_dimensions() const { return dynamic_; }
  void set_dynamic_dimension(int64_t i, bool dynamic) { dynamic_[i] = dynamic; }
  bool is_unbounded_dimension(int64_t i) const {
    return dimensions_[i] == kUnboundedSize;
  }
  bool is_static() const;  // no dynamic dimension anywhere (tuples too)
  void add_dimension(int64_t size, bool dynamic = false);
  void delete_dimension(int64_t i);

  // Product of the dimensions (bounds for dynamic ones); 1 for a scalar.
  // Requires a bounded array shape.
  int64_t num_elements() const;

  bool has_layout() const { return layout_.has_value(); }
  const Layout& layout() const { return *layout_; }
  Layout* mutable_layout() { return &*layout_; }
  void set_layout(Layout layout) { layout_ = std::move(layout); }
  void clear_layout() { layout_.reset(); }
  // The layout, or the descending default when there is none.
  Layout LayoutOrDefault() const;

  // Tuple accessors.
  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shapes(int64_t i) const { return tuple_shapes_[i]; }
  std::vector<Shape>* mutable_tuple_shapes() { return &tuple_shapes_; }
  int64_t tuple_size() const {
    return static_cast<int64_t>(tuple_shapes_.size());
  }

  // HLO text: `f32[2,<=3,?]{2,1,0}`, `(f32[], s32[4]{0})`, `token[]`.
  // Scalars never print a layout. Tuple elements are preceded by
  // `/*index=N*/` every 5th element, as XLA prints them.
  std::string ToString(bool print_layout = true) const;

  // Structural equality including layouts and dynamic bounds.
  bool operator==(const Shape& other) const = default;
  // Equal ignoring layouts (and recursively for tuples).
  bool Compatible(const Shape& other) const;
  // Equal element types and dimensions ignoring layouts and dynamism.
  bool SameDimensions(const Shape& other) const;

  // Removes all layouts (recursively).
  void ClearLayoutsRecursive();

 private:
  PrimitiveType element_type_ = PrimitiveType::kInvalid;
  std::vector<int64_t> dimensions_;
  // Not std::vector<bool>: dynamic_dimensions() needs contiguous bools.
  absl::InlinedVector<bool, 8> dynamic_;
  std::optional<Layout> layout_;
  std::vector<Shape> tuple_shapes_;
};

// Seed 000, "Shapes and layout": the position in the linear (physical)
// buffer of the element at `index` under `layout` (minor_to_major[0] varies
// fastest). Requires a valid permutation layout and in-range index.
int64_t LinearIndex(absl::Span<const int64_t> dims, const Layout& layout,
                    absl::Span<const int64_t> index);
// The inverse: the multi-dimensional index of linear position `linear`.
std::vector<int64_t> MultiIndex(absl::Span<const int64_t> dims,
                                const Layout& layout, int64_t linear);
// Row-major (descending layout) linear index, the order Literal storage
// uses.
int64_t RowMajorIndex(absl::Span<const int64_t> dims,
                      absl::Span<const int64_t> index);

// Advances `index` to the next row-major position within `dims`; returns
// false after the last one. Works for rank 0 (one position) and zero-size
// dimensions (callers should check num_elements first).
bool NextIndex(absl::Span<const int64_t> dims, absl::Span<int64_t> index);

// Checks that `layout` is usable for an array of this rank: a permutation
// of 0..rank-1 (or empty for a scalar). Error text names the layout.
absl::Status ValidateLayout(const Layout& layout, int64_t rank);

// Refuses shapes beyond `max_elements` (huge shapes give a clear error,
// not an allocation failure); also rejects negative dimension sizes.
absl::Status CheckShapeSize(const Shape& shape, int64_t max_elements);

}  // namespace hloref

#endif  // HLOREF_SPEC_TYPES_SHAPE_H_
