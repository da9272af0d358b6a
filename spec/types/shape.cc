// Shapes and layouts: printing in HLO text syntax, index arithmetic of seed
// 000's "Shapes and layout" page, and size/layout validation.
#include "spec/types/shape.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

// Splits Layout::other_fields ("D(D,C)SC(0:1024)M(8)") into its top-level
// fields, each a tag followed by one or more parenthesised groups, so the
// printer can put each field back in XLA's fixed order.
std::vector<std::pair<std::string, std::string>> SplitOtherFields(
    const std::string& text) {
  std::vector<std::pair<std::string, std::string>> fields;  // (tag, text)
  size_t i = 0;
  while (i < text.size()) {
    const size_t start = i;
    while (i < text.size() && text[i] != '(') ++i;
    std::string tag = text.substr(start, i - start);
    // Consume every directly following parenthesised group, scanned as
    // the parser scans it (HloLexer::ScanBalanced): brackets of every kind
    // nest, and a quoted string's brackets do not count (literal_fuzz
    // finding 21: a ')' inside quotes split a field differently here than
    // in the parser, and the printed layout did not parse).
    while (i < text.size() && text[i] == '(') {
      int depth = 0;
      do {
        const char c = text[i];
        if (c == '"') {
          ++i;
          while (i < text.size() && text[i] != '"') {
            if (text[i] == '\\') ++i;
            ++i;
          }
        } else if (c == '(' || c == '{' || c == '[') {
          ++depth;
        } else if (c == ')' || c == '}' || c == ']') {
          --depth;
        }
        ++i;
      } while (i < text.size() && depth > 0);
    }
    fields.emplace_back(std::move(tag), text.substr(start, i - start));
  }
  return fields;
}

std::string TileToString(const Tile& tile) {
  std::vector<std::string> dims;
  for (int64_t d : tile.dimensions) {
    dims.push_back(d == Tile::kCombineDimension ? "*" : absl::StrCat(d));
  }
  return absl::StrCat("(", absl::StrJoin(dims, ","), ")");
}

void AppendShape(const Shape& shape, bool print_layout, std::string* out) {
  if (shape.IsTuple()) {
    out->append("(");
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0) {
        // XLA marks every 5th tuple element: `, /*index=5*/f32[]`.
        out->append(i % 5 == 0 ? absl::StrCat(", /*index=", i, "*/") : ", ");
      }
      AppendShape(shape.tuple_shapes(i), print_layout, out);
    }
    out->append(")");
    return;
  }
  if (shape.IsToken() || shape.IsOpaque() || !shape.IsValid()) {
    absl::StrAppend(out, PrimitiveTypeName(shape.element_type()), "[]");
    return;
  }
  absl::StrAppend(out, PrimitiveTypeName(shape.element_type()), "[");
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (i > 0) out->append(",");
    if (shape.is_unbounded_dimension(i)) {
      out->append("?");
    } else if (shape.is_dynamic_dimension(i)) {
      absl::StrAppend(out, "<=", shape.dimensions(i));
    } else {
      absl::StrAppend(out, shape.dimensions(i));
    }
  }
  out->append("]");
  if (print_layout && shape.has_layout()) {
    std::string layout = shape.layout().ToString();
    // A scalar's plain `{}` layout is never printed; `{:S(2)}` is.
    if (shape.rank() > 0 || layout != "{}") out->append(layout);
  }
}

}  // namespace

std::string Layout::ToString() const {
  std::string out = absl::StrCat("{", absl::StrJoin(minor_to_major, ","));
  if (!HasExtendedFields()) return out + "}";
  out.append(":");
  std::vector<std::pair<std::string, std::string>> other =
      SplitOtherFields(other_fields);
  std::vector<bool> used(other.size(), false);
  auto append_other = [&](absl::string_view tag) {
    for (size_t i = 0; i < other.size(); ++i) {
      if (!used[i] && other[i].first == tag) {
        out.append(other[i].second);
        used[i] = true;
      }
    }
  };
  // Order of docs/hlo-text-format.md section 3.4: D T L # * E S SC P M.
  append_other("D");
  if (!tiles.empty()) {
    out.append("T");
    for (const Tile& tile : tiles) out.append(TileToString(tile));
  }
  // XLA omits L(1), the default alignment, as well.
  if (tail_padding_alignment != 0 && tail_padding_alignment != 1) {
    absl::StrAppend(&out, "L(", tail_padding_alignment, ")");
  }
  append_other("#");
  append_other("*");
  if (element_size_in_bits != 0) {
    absl::StrAppend(&out, "E(", element_size_in_bits, ")");
  }
  if (memory_space != 0) absl::StrAppend(&out, "S(", memory_space, ")");
  append_other("SC");
  append_other("P");
  append_other("M");
  // Fields we do not know the place of keep their relative order at the end.
  for (size_t i = 0; i < other.size(); ++i) {
    if (!used[i]) out.append(other[i].second);
  }
  return out + "}";
}

Layout Layout::Descending(int64_t rank) {
  Layout layout;
  for (int64_t i = rank - 1; i >= 0; --i) layout.minor_to_major.push_back(i);
  return layout;
}

bool Layout::IsDescending() const {
  const int64_t rank = static_cast<int64_t>(minor_to_major.size());
  for (int64_t i = 0; i < rank; ++i) {
    if (minor_to_major[i] != rank - 1 - i) return false;
  }
  return true;
}

bool Layout::HasExtendedFields() const {
  return !tiles.empty() ||
         (tail_padding_alignment != 0 && tail_padding_alignment != 1) ||
         element_size_in_bits != 0 || memory_space != 0 ||
         !other_fields.empty();
}

Shape::Shape(PrimitiveType element_type, absl::Span<const int64_t> dimensions)
    : element_type_(element_type) {
  for (int64_t d : dimensions) add_dimension(d);
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape shape;
  shape.element_type_ = PrimitiveType::kTuple;
  shape.tuple_shapes_ = std::move(elements);
  return shape;
}

Shape Shape::Token() {
  Shape shape;
  shape.element_type_ = PrimitiveType::kToken;
  return shape;
}

Shape Shape::Opaque() {
  Shape shape;
  shape.element_type_ = PrimitiveType::kOpaque;
  return shape;
}

bool Shape::is_static() const {
  if (IsTuple()) {
    return std::all_of(tuple_shapes_.begin(), tuple_shapes_.end(),
                       [](const Shape& s) { return s.is_static(); });
  }
  for (int64_t i = 0; i < rank(); ++i) {
    if (dynamic_[i] || dimensions_[i] == kUnboundedSize) return false;
  }
  return true;
}

void Shape::add_dimension(int64_t size, bool dynamic) {
  dimensions_.push_back(size);
  // `?` is always dynamic; a bound alone never makes a dimension unbounded.
  dynamic_.push_back(dynamic || size == kUnboundedSize);
  if (layout_.has_value()) {
    // The new dimension becomes the most minor one, which keeps a
    // descending layout descending.
    layout_->minor_to_major.insert(layout_->minor_to_major.begin(), rank() - 1);
  }
}

void Shape::delete_dimension(int64_t i) {
  HLOREF_CHECK(i >= 0 && i < rank());
  dimensions_.erase(dimensions_.begin() + i);
  dynamic_.erase(dynamic_.begin() + i);
  if (layout_.has_value()) {
    std::vector<int64_t>& m2m = layout_->minor_to_major;
    m2m.erase(std::remove(m2m.begin(), m2m.end(), i), m2m.end());
    for (int64_t& d : m2m) {
      if (d > i) --d;
    }
  }
}

int64_t Shape::num_elements() const {
  HLOREF_CHECK(IsArray());
  // A 0 dimension makes the count 0 whatever the others (an .npy header may
  // say (0, 8808, ..., 380, ...) and the product of the rest overflow: a
  // fuzzer finding); without one, a product past int64 saturates to
  // INT64_MAX, which every size limit refuses.
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : dimensions_) {
    HLOREF_CHECK(d != kUnboundedSize);
    if (d == 0) return 0;
    overflow = overflow || __builtin_mul_overflow(n, d, &n);
  }
  return overflow ? std::numeric_limits<int64_t>::max() : n;
}

Layout Shape::LayoutOrDefault() const {
  return layout_.has_value() ? *layout_ : Layout::Descending(rank());
}

std::string Shape::ToString(bool print_layout) const {
  std::string out;
  AppendShape(*this, print_layout, &out);
  return out;
}

bool Shape::Compatible(const Shape& other) const {
  if (element_type_ != other.element_type_) return false;
  if (IsTuple()) {
    if (tuple_size() != other.tuple_size()) return false;
    for (int64_t i = 0; i < tuple_size(); ++i) {
      if (!tuple_shapes_[i].Compatible(other.tuple_shapes_[i])) return false;
    }
    return true;
  }
  return dimensions_ == other.dimensions_ && dynamic_ == other.dynamic_;
}

bool Shape::SameDimensions(const Shape& other) const {
  if (element_type_ != other.element_type_) return false;
  if (IsTuple()) {
    if (tuple_size() != other.tuple_size()) return false;
    for (int64_t i = 0; i < tuple_size(); ++i) {
      if (!tuple_shapes_[i].SameDimensions(other.tuple_shapes_[i])) {
        return false;
      }
    }
    return true;
  }
  return dimensions_ == other.dimensions_;
}

void Shape::ClearLayoutsRecursive() {
  layout_.reset();
  for (Shape& s : tuple_shapes_) s.ClearLayoutsRecursive();
}

int64_t LinearIndex(absl::Span<const int64_t> dims, const Layout& layout,
                    absl::Span<const int64_t> index) {
  HLOREF_CHECK(dims.size() == index.size());
  HLOREF_CHECK(layout.minor_to_major.size() == dims.size());
  // minor_to_major[0] is the dimension that changes fastest in memory, so
  // its stride is 1; each later dimension's stride is the product of the
  // sizes of the dimensions more minor than it.
  int64_t linear = 0;
  int64_t stride = 1;
  for (int64_t d : layout.minor_to_major) {
    HLOREF_CHECK(d >= 0 && d < static_cast<int64_t>(dims.size()));
    HLOREF_CHECK(index[d] >= 0 && index[d] < dims[d]);
    linear += index[d] * stride;
    stride *= dims[d];
  }
  return linear;
}

std::vector<int64_t> MultiIndex(absl::Span<const int64_t> dims,
                                const Layout& layout, int64_t linear) {
  HLOREF_CHECK(layout.minor_to_major.size() == dims.size());
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t d : layout.minor_to_major) {
    HLOREF_CHECK(d >= 0 && d < static_cast<int64_t>(dims.size()));
    HLOREF_CHECK(dims[d] > 0);
    index[d] = linear % dims[d];
    linear /= dims[d];
  }
  HLOREF_CHECK(linear == 0);  // `linear` was within the array
  return index;
}

int64_t RowMajorIndex(absl::Span<const int64_t> dims,
                      absl::Span<const int64_t> index) {
  HLOREF_CHECK(dims.size() == index.size());
  int64_t linear = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    HLOREF_CHECK(index[i] >= 0 && index[i] < dims[i]);
    linear = linear * dims[i] + index[i];
  }
  return linear;
}

bool NextIndex(absl::Span<const int64_t> dims, absl::Span<int64_t> index) {
  HLOREF_CHECK(dims.size() == index.size());
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    if (++index[i] < dims[i]) return true;
    index[i] = 0;
  }
  return false;
}

absl::Status ValidateLayout(const Layout& layout, int64_t rank) {
  const int64_t n = static_cast<int64_t>(layout.minor_to_major.size());
  if (n != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout ", layout.ToString(), " has ", n,
                     " minor_to_major entries, but the array has rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t d : layout.minor_to_major) {
    if (d < 0 || d >= rank || seen[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "layout ", layout.ToString(), " is not a permutation of 0..",
          rank - 1, " (entry ", d,
          d < 0 || d >= rank ? " out of range" : " repeated", ")"));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

namespace {

// Adds the element count of `shape` (arrays, recursively through tuples) to
// `*total`, checking every step against overflow and the limit.
absl::Status AccumulateSize(const Shape& shape, const Shape& whole,
                            int64_t max_elements, int64_t* total) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      HLOREF_RETURN_IF_ERROR(AccumulateSize(s, whole, max_elements, total));
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  int64_t n = 1;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    const int64_t d = shape.dimensions(i);
    if (shape.is_unbounded_dimension(i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape ", whole.ToString(), " has an unbounded ", "dimension ", i,
          " (`?`), which has no size to "
          "allocate"));
    }
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat("shape ", whole.ToString(),
                                                     " has negative size ", d,
                                                     " in dimension ", i));
    }
  }
  bool overflow = false;
  for (int64_t d : shape.dimensions()) {
    int64_t product;
    if (__builtin_mul_overflow(n, d, &product)) {
      overflow = true;
      break;
    }
    n = product;
  }
  // A zero-size dimension anywhere makes the whole array empty, even when
  // a prefix product overflowed.
  if (overflow &&
      std::find(shape.dimensions().begin(), shape.dimensions().end(), 0) !=
          shape.dimensions().end()) {
    overflow = false;
    n = 0;
  }
  if (overflow || __builtin_add_overflow(*total, n, total)) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", whole.ToString(),
                     " has more elements than fit in a 64-bit integer"));
  }
  if (*total > max_elements) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", whole.ToString(), " has ", *total,
                     " elements, more than the limit of ", max_elements));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckShapeSize(const Shape& shape, int64_t max_elements) {
  int64_t total = 0;
  return AccumulateSize(shape, shape, max_elements, &total);
}

}  // namespace hloref
