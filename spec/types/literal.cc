// Literal storage, type-generic element access, bit-exact equality and the
// HLO literal text printer (docs/hlo-text-format.md section 4, matching
// XLA's one-line literal printer).
#include "spec/types/literal.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "spec/types/minifloat.h"

namespace hloref {
namespace {

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Mask of the low `bits` bits (bits in 1..64).
uint64_t LowMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// Sign-extends the low `bits` bits of `v`.
int64_t SignExtend(uint64_t v, int bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  v &= LowMask(bits);
  return static_cast<int64_t>((v ^ sign) - sign);
}

// The shape with every array given its layout or the descending default,
// which is how literals print their shape (XLA literals always carry one).
Shape WithDefaultLayouts(const Shape& shape) {
  Shape out = shape;
  if (out.IsTuple()) {
    for (Shape& s : *out.mutable_tuple_shapes()) s = WithDefaultLayouts(s);
  } else if (out.IsArray() && !out.has_layout()) {
    out.set_layout(Layout::Descending(out.rank()));
  }
  return out;
}

// The number of significant decimal digits that always round-trip a
// p-bit significand: ceil(1 + p * log10(2)) (C17 5.2.4.2.2), which is what
// ml_dtypes and Eigen report as max_digits10 (5 for f16, 4 for bf16).
int MaxDigits10(int precision) {
  return static_cast<int>(std::ceil(1.0 + precision * std::log10(2.0)));
}

// "nan", "-nan", plus "(0x<payload>)" when an IEEE NaN's payload (the
// mantissa bits) differs from the default quiet payload (only the top
// mantissa bit set). Types without IEEE NaN payload bits never get one.
std::string NanToString(bool negative, bool ieee_payload, int mantissa_bits,
                        uint64_t bits) {
  std::string out = negative ? "-nan" : "nan";
  if (ieee_payload && mantissa_bits > 0) {
    const uint64_t payload = bits & LowMask(mantissa_bits);
    const uint64_t quiet = uint64_t{1} << (mantissa_bits - 1);
    if (payload != quiet) absl::StrAppendFormat(&out, "(0x%x)", payload);
  }
  return out;
}

std::string FormatF32(float v, uint32_t bits) {
  if (std::isnan(v)) {
    return NanToString((bits >> 31) != 0, true, 23, bits);
  }
  // %.{digits10}g first; %.{max_digits10}g when that does not read back.
  std::string s =
      absl::StrFormat("%.*g", std::numeric_limits<float>::digits10, v);
  if (std::strtof(s.c_str(), nullptr) != v) {
    s = absl::StrFormat("%.*g", std::numeric_limits<float>::max_digits10, v);
  }
  return s;
}

std::string FormatF64(double v, uint64_t bits) {
  if (std::isnan(v)) {
    return NanToString((bits >> 63) != 0, true, 52, bits);
  }
  std::string s =
      absl::StrFormat("%.*g", std::numeric_limits<double>::digits10, v);
  if (std::strtod(s.c_str(), nullptr) != v) {
    s = absl::StrFormat("%.*g", std::numeric_limits<double>::max_digits10, v);
  }
  return s;
}

}  // namespace

std::string FormatFloatForType(PrimitiveType type, double value,
                               uint64_t bits) {
  if (type == PrimitiveType::kF32) {
    return FormatF32(static_cast<float>(value), static_cast<uint32_t>(bits));
  }
  if (type == PrimitiveType::kF64) return FormatF64(value, bits);
  HLOREF_CHECK(IsMinifloat(type));
  const FloatFormat& format = FormatOf(type);
  if (std::isnan(value)) {
    // The sign comes from the encoding (the fnuz NaN 0x80 has its sign bit
    // set and prints as -nan, as ml_dtypes converts it to a negative NaN).
    const bool negative =
        format.has_sign && ((bits >> (format.total_bits - 1)) & 1) != 0;
    return NanToString(negative, format.nan == NanEncoding::kIeee,
                       format.mantissa_bits, bits);
  }
  // Narrow types: the value converted to double, printed with the type's
  // own max_digits10, with no shorter first attempt (XLA's
  // GenericRoundTripFpToString).
  return absl::StrFormat("%.*g", MaxDigits10(Precision(format)), value);
}

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape_.IsTuple()) {
    elements_.reserve(shape_.tuple_size());
    for (const Shape& s : shape_.tuple_shapes()) elements_.emplace_back(s);
  } else if (shape_.IsArray()) {
    data_.AssignZeros(static_cast<size_t>(shape_.num_elements()) *
                      StorageBytes(shape_.element_type()));
  }
}

Literal Literal::Uninitialized(const Shape& shape) {
  Literal lit;
  lit.shape_ = shape;
  if (shape.IsTuple()) {
    lit.elements_.reserve(shape.tuple_size());
    for (const Shape& s : shape.tuple_shapes()) {
      lit.elements_.push_back(Uninitialized(s));
    }
  } else if (shape.IsArray()) {
    lit.data_.AssignUninitialized(static_cast<size_t>(shape.num_elements()) *
                                  StorageBytes(shape.element_type()));
  }
  return lit;
}

Literal Literal::AdoptStorage(const Shape& shape, LiteralBytes bytes) {
  HLOREF_CHECK(shape.IsArray() && shape.is_static());
  HLOREF_CHECK(bytes.size() == static_cast<size_t>(shape.num_elements()) *
                                   StorageBytes(shape.element_type()));
  Literal lit;
  lit.shape_ = shape;
  lit.data_ = std::move(bytes);
  return lit;
}

absl::Status Literal::CheckReinterpretAs(const Shape& shape) const {
  auto refuse = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot give the literal of shape ", shape_.ToString(), " the shape ",
        shape.ToString(), " over its storage: ", why));
  };
  if (!shape_.IsArray() || !shape.IsArray()) {
    return refuse("both shapes must be arrays");
  }
  if (HasPadding()) {
    return refuse("the literal has padding (runtime sizes below bounds)");
  }
  const PrimitiveType from = shape_.element_type();
  const PrimitiveType to = shape.element_type();
  if (from != to) {
    for (PrimitiveType t : {from, to}) {
      if (BitWidth(t) != 8 * StorageBytes(t)) {
        return refuse(absl::StrCat(PrimitiveTypeName(t),
                                   " does not use every bit of its storage"));
      }
    }
    if (to == PrimitiveType::kPred) {
      return refuse("a byte of another type is not a valid pred");
    }
  }
  int64_t bytes = StorageBytes(to);
  for (int64_t d : shape.dimensions()) {
    if (d < 0) return refuse("the new shape has an unbounded dimension");
    if (__builtin_mul_overflow(bytes, d, &bytes)) {
      return refuse("the new shape is too large to address");
    }
  }
  if (bytes != static_cast<int64_t>(data_.size())) {
    return refuse(absl::StrCat("the new shape takes ", bytes,
                               " bytes of storage, the literal holds ",
                               data_.size()));
  }
  return absl::OkStatus();
}

absl::Status Literal::ReinterpretAs(const Shape& shape) {
  HLOREF_RETURN_IF_ERROR(CheckReinterpretAs(shape));
  const bool retype = StorageAliasOfType(shape_.element_type()) !=
                      StorageAliasOfType(shape.element_type());
  shape_ = shape;
  // The bytes become objects of the new storage type (a bitcast f32 ->
  // s32 reads them as int32_t from here on).
  if (retype) data_.RestartLifetime();
  dynamic_sizes_.clear();
  return absl::OkStatus();
}

Literal Literal::MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal lit;
  lit.shape_ = Shape::Tuple(std::move(shapes));
  lit.elements_ = std::move(elements);
  return lit;
}

Literal Literal::Zero(PrimitiveType type) {
  HLOREF_CHECK(IsArrayType(type));
  Literal lit(Shape::Scalar(type));
  if (IsFloat(type)) lit.SetFromDouble(0, 0.0);
  return lit;
}

Literal Literal::One(PrimitiveType type) {
  HLOREF_CHECK(IsArrayType(type));
  Literal lit(Shape::Scalar(type));
  if (IsComplex(type)) {
    lit.SetFromComplex(0, {1.0, 0.0});
  } else {
    lit.SetFromDouble(0, 1.0);
  }
  return lit;
}

StorageAlias StorageAliasOfType(PrimitiveType type) {
  switch (type) {
#define HLOREF_ALIAS_CASE(e, ...) \
  case PrimitiveType::e:          \
    return StorageAliasOf<StorageType<PrimitiveType::e>>();
    HLOREF_ALIAS_CASE(kPred)
    HLOREF_ALIAS_CASE(kS1)
    HLOREF_ALIAS_CASE(kS2)
    HLOREF_ALIAS_CASE(kS4)
    HLOREF_ALIAS_CASE(kS8)
    HLOREF_ALIAS_CASE(kS16)
    HLOREF_ALIAS_CASE(kS32)
    HLOREF_ALIAS_CASE(kS64)
    HLOREF_ALIAS_CASE(kU1)
    HLOREF_ALIAS_CASE(kU2)
    HLOREF_ALIAS_CASE(kU4)
    HLOREF_ALIAS_CASE(kU8)
    HLOREF_ALIAS_CASE(kU16)
    HLOREF_ALIAS_CASE(kU32)
    HLOREF_ALIAS_CASE(kU64)
    HLOREF_ALIAS_CASE(kF16)
    HLOREF_ALIAS_CASE(kBF16)
    HLOREF_ALIAS_CASE(kF32)
    HLOREF_ALIAS_CASE(kF64)
    HLOREF_ALIAS_CASE(kF8E5M2)
    HLOREF_ALIAS_CASE(kF8E4M3FN)
    HLOREF_ALIAS_CASE(kF8E4M3B11FNUZ)
    HLOREF_ALIAS_CASE(kF8E5M2FNUZ)
    HLOREF_ALIAS_CASE(kF8E4M3FNUZ)
    HLOREF_ALIAS_CASE(kF8E4M3)
    HLOREF_ALIAS_CASE(kF8E3M4)
    HLOREF_ALIAS_CASE(kF4E2M1FN)
    HLOREF_ALIAS_CASE(kF8E8M0FNU)
    HLOREF_ALIAS_CASE(kF6E3M2FN)
    HLOREF_ALIAS_CASE(kF6E2M3FN)
    HLOREF_ALIAS_CASE(kC64)
    HLOREF_ALIAS_CASE(kC128)
#undef HLOREF_ALIAS_CASE
    default:
      break;
  }
  HLOREF_CHECK(false && "StorageAliasOfType of a non-array type");
  return StorageAlias::kBytes;
}

void Literal::CheckType(int storage_bytes, StorageAlias alias) const {
  HLOREF_CHECK(shape_.IsArray());
  HLOREF_CHECK(StorageBytes(shape_.element_type()) == storage_bytes);
  // data<T>() with a T the storage may not be accessed as (a float literal
  // read as uint32_t) would break the aliasing rules: copy the bits instead.
  HLOREF_CHECK(alias == StorageAlias::kBytes ||
               alias == StorageAliasOfType(shape_.element_type()));
}

double Literal::GetAsDouble(int64_t linear) const {
  const PrimitiveType type = element_type();
  switch (KindOf(type)) {
    case TypeKind::kPred:
    case TypeKind::kSigned:
      return static_cast<double>(GetAsInt64(linear));
    case TypeKind::kUnsigned:
      return static_cast<double>(GetRawBits(linear));
    case TypeKind::kFloat:
      if (type == PrimitiveType::kF32) return data<float>()[linear];
      if (type == PrimitiveType::kF64) return data<double>()[linear];
      return MinifloatToDouble(type, GetRawBits(linear));
    case TypeKind::kComplex:
      return GetAsComplex(linear).real();
    case TypeKind::kInvalid:
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
      break;
  }
  HLOREF_CHECK(false && "GetAsDouble on a non-array literal");
  return 0;
}

std::complex<double> Literal::GetAsComplex(int64_t linear) const {
  if (element_type() == PrimitiveType::kC64) {
    std::complex<float> c = data<std::complex<float>>()[linear];
    return {c.real(), c.imag()};
  }
  if (element_type() == PrimitiveType::kC128) {
    return data<std::complex<double>>()[linear];
  }
  return {GetAsDouble(linear), 0.0};
}

int64_t Literal::GetAsInt64(int64_t linear) const {
  const PrimitiveType type = element_type();
  HLOREF_CHECK(IsPred(type) || IsInteger(type));
  HLOREF_CHECK(linear >= 0 && linear < element_count());
  const uint8_t* p = data_.data() + linear * StorageBytes(type);
  if (IsPred(type)) return *p != 0 ? 1 : 0;
  if (IsSignedInt(type)) {
    switch (StorageBytes(type)) {
      case 1:
        return Load<int8_t>(p);
      case 2:
        return Load<int16_t>(p);
      case 4:
        return Load<int32_t>(p);
      default:
        return Load<int64_t>(p);
    }
  }
  return static_cast<int64_t>(GetRawBits(linear));  // u64 wraps
}

uint64_t Literal::GetRawBits(int64_t linear) const {
  const PrimitiveType type = element_type();
  HLOREF_CHECK(shape_.IsArray());
  const int bytes = StorageBytes(type);
  HLOREF_CHECK(bytes <= 8);  // c128 has no 64-bit pattern
  HLOREF_CHECK(linear >= 0 && linear < element_count());
  uint64_t bits = 0;
  std::memcpy(&bits, data_.data() + linear * bytes, bytes);  // little-endian
  if (IsPred(type)) return bits != 0 ? 1 : 0;
  return bits & LowMask(BitWidth(type));
}

void Literal::SetRawBits(int64_t linear, uint64_t bits) {
  const PrimitiveType type = element_type();
  HLOREF_CHECK(shape_.IsArray());
  const int bytes = StorageBytes(type);
  HLOREF_CHECK(bytes <= 8);
  HLOREF_CHECK(linear >= 0 && linear < element_count());
  uint64_t stored;
  if (IsPred(type)) {
    stored = (bits & 0xFF) != 0 ? 1 : 0;
  } else if (IsSignedInt(type)) {
    // Sub-byte signed values are kept sign-extended in their byte.
    stored = static_cast<uint64_t>(SignExtend(bits, BitWidth(type)));
  } else {
    stored = bits & LowMask(BitWidth(type));
  }
  std::memcpy(data_.data() + linear * bytes, &stored, bytes);
}

void Literal::SetFromInt64(int64_t linear, int64_t value) {
  const PrimitiveType type = element_type();
  switch (KindOf(type)) {
    case TypeKind::kPred:
      SetRawBits(linear, value != 0 ? 1 : 0);
      return;
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
      SetRawBits(linear, static_cast<uint64_t>(value));  // wraps to width
      return;
    case TypeKind::kFloat:
      if (type == PrimitiveType::kF32) {
        mutable_data<float>()[linear] = static_cast<float>(value);
      } else {
        SetFromDouble(linear, static_cast<double>(value));
      }
      return;
    case TypeKind::kComplex:
      SetFromComplex(linear, {static_cast<double>(value), 0.0});
      return;
    case TypeKind::kInvalid:
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
      break;
  }
  HLOREF_CHECK(false && "SetFromInt64 on a non-array literal");
}

void Literal::SetFromDouble(int64_t linear, double value) {
  const PrimitiveType type = element_type();
  switch (KindOf(type)) {
    case TypeKind::kPred:
      SetRawBits(linear, value != 0 ? 1 : 0);
      return;
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: {
      const int width = BitWidth(type);
      HLOREF_CHECK(std::trunc(value) == value);  // integral, not NaN/inf
      if (IsSignedInt(type)) {
        const double lo = -std::ldexp(1.0, width - 1);
        HLOREF_CHECK(value >= lo && value < -lo);
        SetRawBits(linear, static_cast<uint64_t>(static_cast<int64_t>(value)));
      } else {
        HLOREF_CHECK(value >= 0 && value < std::ldexp(1.0, width));
        SetRawBits(linear, static_cast<uint64_t>(value));
      }
      return;
    }
    case TypeKind::kFloat:
      if (type == PrimitiveType::kF32) {
        mutable_data<float>()[linear] = static_cast<float>(value);
      } else if (type == PrimitiveType::kF64) {
        mutable_data<double>()[linear] = value;
      } else {
        SetRawBits(linear, MinifloatFromDouble(type, value));
      }
      return;
    case TypeKind::kComplex:
      SetFromComplex(linear, {value, 0.0});
      return;
    case TypeKind::kInvalid:
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
      break;
  }
  HLOREF_CHECK(false && "SetFromDouble on a non-array literal");
}

void Literal::SetFromComplex(int64_t linear, std::complex<double> value) {
  if (element_type() == PrimitiveType::kC64) {
    mutable_data<std::complex<float>>()[linear] = {
        static_cast<float>(value.real()), static_cast<float>(value.imag())};
  } else if (element_type() == PrimitiveType::kC128) {
    mutable_data<std::complex<double>>()[linear] = value;
  } else {
    SetFromDouble(linear, value.real());
  }
}

std::vector<Literal> Literal::DecomposeTuple() {
  HLOREF_CHECK(shape_.IsTuple());
  std::vector<Literal> out = std::move(elements_);
  elements_.clear();
  shape_ = Shape::Tuple({});
  return out;
}

void Literal::SetDynamicSize(int64_t dim, int64_t size) {
  HLOREF_CHECK(shape_.IsArray() && dim >= 0 && dim < shape_.rank());
  const int64_t bound = shape_.dimensions(dim);
  HLOREF_CHECK(size >= 0 && size <= bound);
  HLOREF_CHECK(shape_.is_dynamic_dimension(dim) || size == bound);
  if (dynamic_sizes_.empty()) {
    if (size == bound) return;
    dynamic_sizes_.assign(shape_.dimensions().begin(),
                          shape_.dimensions().end());
  }
  dynamic_sizes_[dim] = size;
}

void Literal::set_dynamic_dimension(int64_t dim, bool dynamic) {
  HLOREF_CHECK(shape_.IsArray() && dim >= 0 && dim < shape_.rank());
  HLOREF_CHECK(dynamic || GetDynamicSize(dim) == shape_.dimensions(dim));
  shape_.set_dynamic_dimension(dim, dynamic);
}

bool Literal::HasPadding() const {
  if (shape_.IsTuple()) {
    for (const Literal& e : elements_) {
      if (e.HasPadding()) return true;
    }
    return false;
  }
  if (!shape_.IsArray() || dynamic_sizes_.empty()) return false;
  for (int64_t d = 0; d < shape_.rank(); ++d) {
    if (dynamic_sizes_[d] < shape_.dimensions(d)) return true;
  }
  return false;
}

bool Literal::IsPaddingElement(int64_t linear) const {
  if (!shape_.IsArray() || dynamic_sizes_.empty()) return false;
  // Peel row-major indices from the minor end.
  for (int64_t d = shape_.rank() - 1; d >= 0; --d) {
    const int64_t bound = shape_.dimensions(d);
    if (bound == 0) return false;
    if (linear % bound >= dynamic_sizes_[d]) return true;
    linear /= bound;
  }
  return false;
}

namespace {

// Copies the box `sizes` (row-major) between two arrays of element size
// `bytes` laid out row-major over `src_dims` and `dst_dims`.
void CopyBox(int bytes, absl::Span<const int64_t> sizes,
             absl::Span<const int64_t> src_dims, const uint8_t* src,
             absl::Span<const int64_t> dst_dims, uint8_t* dst) {
  int64_t count = 1;
  for (int64_t s : sizes) count *= s;
  if (count == 0) return;
  std::vector<int64_t> index(sizes.size(), 0);
  do {
    const int64_t s = RowMajorIndex(src_dims, index);
    const int64_t t = RowMajorIndex(dst_dims, index);
    std::memcpy(dst + t * bytes, src + s * bytes, bytes);
  } while (NextIndex(sizes, absl::MakeSpan(index)));
}

}  // namespace

Literal Literal::ToStatic() const {
  if (shape_.IsTuple()) {
    std::vector<Literal> parts;
    parts.reserve(elements_.size());
    for (const Literal& e : elements_) parts.push_back(e.ToStatic());
    return MakeTuple(std::move(parts));
  }
  if (!shape_.IsArray()) return *this;
  Literal out(Shape::Array(element_type(), dynamic_sizes()));
  CopyBox(StorageBytes(element_type()), dynamic_sizes(), shape_.dimensions(),
          data_.data(), out.shape_.dimensions(), out.data_.data());
  return out;
}

absl::StatusOr<Literal> Literal::ToBoundedDynamic(const Literal& value,
                                                  const Shape& bounded) {
  if (bounded.IsTuple()) {
    if (!value.shape().IsTuple() ||
        value.tuple_size() != bounded.tuple_size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("value ", value.shape().ToString(false),
                       " does not fit ", bounded.ToString(false)));
    }
    std::vector<Literal> parts;
    for (int64_t i = 0; i < bounded.tuple_size(); ++i) {
      absl::StatusOr<Literal> part =
          ToBoundedDynamic(value.tuple_element(i), bounded.tuple_shapes(i));
      if (!part.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("tuple element ", i, ": ", part.status().message()));
      }
      parts.push_back(*std::move(part));
    }
    return MakeTuple(std::move(parts));
  }
  if (!bounded.IsArray()) {
    if (value.shape().element_type() != bounded.element_type()) {
      return absl::InvalidArgumentError(
          absl::StrCat("value ", value.shape().ToString(false),
                       " does not fit ", bounded.ToString(false)));
    }
    return value;
  }
  if (!value.shape().IsArray() ||
      value.element_type() != bounded.element_type() ||
      value.shape().rank() != bounded.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "value ", value.shape().ToString(false), " does not fit ",
        bounded.ToString(false), " (element type and rank must agree)"));
  }
  absl::Span<const int64_t> sizes = value.dynamic_sizes();
  for (int64_t d = 0; d < bounded.rank(); ++d) {
    const int64_t bound = bounded.dimensions(d);
    if (bounded.is_dynamic_dimension(d) ? (sizes[d] > bound)
                                        : (sizes[d] != bound)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "value ", value.shape().ToString(false), " does not fit ",
          bounded.ToString(false), ": dimension ", d, " has size ", sizes[d],
          bounded.is_dynamic_dimension(d) ? ", above its bound "
                                          : ", the static size is ",
          bound));
    }
  }
  Literal out(bounded);
  CopyBox(StorageBytes(bounded.element_type()), sizes,
          value.shape().dimensions(), value.data_.data(), bounded.dimensions(),
          out.data_.data());
  for (int64_t d = 0; d < bounded.rank(); ++d) {
    out.SetDynamicSize(d, sizes[d]);
  }
  return out;
}

bool Literal::BitwiseEquals(const Literal& other) const {
  if (!shape_.SameDimensions(other.shape_)) return false;
  if (elided_ || other.elided_) {
    // Values unknown: equal when both are elided with the same runtime
    // sizes.
    return elided_ == other.elided_ &&
           (!shape_.IsArray() || dynamic_sizes() == other.dynamic_sizes());
  }
  if (shape_.IsTuple()) {
    for (int64_t i = 0; i < tuple_size(); ++i) {
      if (!elements_[i].BitwiseEquals(other.elements_[i])) return false;
    }
    return true;
  }
  if (!shape_.IsArray()) return true;  // tokens, opaque, invalid
  if (HasPadding() || other.HasPadding()) {
    if (dynamic_sizes() != other.dynamic_sizes()) return false;
    for (int64_t i = 0; i < element_count(); ++i) {
      if (!IsPaddingElement(i) && GetRawBits(i) != other.GetRawBits(i)) {
        return false;
      }
    }
    return true;
  }
  const PrimitiveType type = element_type();
  if (StorageBytes(type) * 8 != BitWidth(type) || IsPred(type)) {
    // Types whose storage has spare bits: compare the meaningful bits only.
    for (int64_t i = 0; i < element_count(); ++i) {
      if (GetRawBits(i) != other.GetRawBits(i)) return false;
    }
    return true;
  }
  return data_ == other.data_;
}

std::string Literal::ElementToString(int64_t linear) const {
  const PrimitiveType type = element_type();
  HLOREF_CHECK(shape_.IsArray() && linear >= 0 && linear < element_count());
  switch (KindOf(type)) {
    case TypeKind::kPred:
      return GetAsInt64(linear) != 0 ? "true" : "false";
    case TypeKind::kSigned:
      return absl::StrCat(GetAsInt64(linear));
    case TypeKind::kUnsigned:
      return absl::StrCat(GetRawBits(linear));
    case TypeKind::kFloat:
      return FormatFloatForType(type, GetAsDouble(linear), GetRawBits(linear));
    case TypeKind::kComplex: {
      // Each part is printed as its own float type, bits included (so NaN
      // payloads show in either part).
      const uint8_t* p = data_.data() + linear * StorageBytes(type);
      if (type == PrimitiveType::kC64) {
        return absl::StrCat(
            "(", FormatF32(Load<float>(p), Load<uint32_t>(p)), ", ",
            FormatF32(Load<float>(p + 4), Load<uint32_t>(p + 4)), ")");
      }
      return absl::StrCat(
          "(", FormatF64(Load<double>(p), Load<uint64_t>(p)), ", ",
          FormatF64(Load<double>(p + 8), Load<uint64_t>(p + 8)), ")");
    }
    case TypeKind::kInvalid:
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
      break;
  }
  HLOREF_CHECK(false && "ElementToString on a non-array literal");
  return "";
}

namespace {

// XLA's one-line dense array printer (DenseArrayPrintHelper with
// oneline=true). `level` is the dimension being opened; `linear` the
// row-major offset of the indices fixed so far; `index` those indices.
// Only the valid elements of a dynamic literal are printed: `dims` are the
// runtime sizes, while `linear` advances over the bounds (the storage).
void PrintArrayLevel(const Literal& lit, int64_t level, int64_t linear,
                     std::vector<int64_t>* index, std::string* out) {
  absl::Span<const int64_t> dims = lit.dynamic_sizes();
  absl::Span<const int64_t> bounds = lit.shape().dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (level == rank) {
    // Inside arrays, pred prints densely as 1/0; a pred scalar as
    // true/false.
    if (IsPred(lit.element_type()) && rank > 0) {
      out->append(lit.GetAsInt64(linear) != 0 ? "1" : "0");
    } else {
      out->append(lit.ElementToString(linear));
    }
    return;
  }
  const int64_t size = dims[level];
  const bool innermost = level == rank - 1;
  // Opening brace.
  if (rank == 1) {
    out->append("{");
  } else if (innermost) {
    out->append(size <= 1 ? "{" : "{ ");
  } else if (rank > 3 && level > 0) {
    absl::StrAppend(out, "{ /*i", level - 1, "=", index->back(), "*/",
                    size > 0 ? " " : "");
  } else {
    out->append("{ ");
  }
  for (int64_t i = 0; i < size; ++i) {
    index->push_back(i);
    PrintArrayLevel(lit, level + 1, linear * bounds[level] + i, index, out);
    index->pop_back();
    if (i < size - 1) out->append(", ");
  }
  // Closing brace.
  if (rank == 1) {
    out->append("}");
  } else if (innermost) {
    out->append(size <= 1 ? "}" : " }");
  } else {
    out->append(" }");
  }
}

}  // namespace

std::string Literal::ToStringWithoutShape() const {
  if (!shape_.IsValid()) return "<invalid literal>";
  if (elided_) return "{...}";
  if (shape_.IsToken()) return "token";
  if (shape_.IsOpaque()) return "opaque";
  if (shape_.IsTuple()) {
    std::vector<std::string> parts;
    parts.reserve(elements_.size());
    for (const Literal& e : elements_)
      parts.push_back(e.ToStringWithoutShape());
    return absl::StrCat("( ", absl::StrJoin(parts, ", "), " )");
  }
  std::string out;
  std::vector<int64_t> index;
  PrintArrayLevel(*this, 0, 0, &index, &out);
  return out;
}

std::string Literal::ShapeString() const {
  return WithDefaultLayouts(shape_).ToString(/*print_layout=*/true);
}

std::string Literal::ToString() const {
  if (!shape_.IsValid()) return "<invalid literal>";
  std::string sizes;
  if (shape_.IsArray() && !shape_.is_static()) {
    sizes = absl::StrCat("(", absl::StrJoin(dynamic_sizes(), ","), ")");
  }
  return absl::StrCat(ShapeString(), sizes, " ", ToStringWithoutShape());
}

}  // namespace hloref
