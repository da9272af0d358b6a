// Literal: an HLO value (array, tuple or token) held in host memory, with
// typed access, bit-exact equality and HLO literal text printing.
// Parsing literal text lives in spec/ir/hlo_parser.h (ParseLiteral), since
// it shares the HLO lexer; .npy I/O lives in spec/types/npy.h.
//
// Storage: array elements in row-major (descending) logical order whatever
// the shape's layout, one element in StorageBytes(type) bytes as the table
// in primitive_type.h states. The layout is metadata; only bitcast and
// backends look at physical order.
#ifndef HLOREF_SPEC_TYPES_LITERAL_H_
#define HLOREF_SPEC_TYPES_LITERAL_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "spec/types/primitive_type.h"
#include "spec/types/shape.h"
#include "spec/util/status_macros.h"

namespace hloref {

// C++ storage type of one element of each array type.
template <PrimitiveType T>
struct StorageTypeOf;
#define HLOREF_STORAGE(e, cpp)             \
  template <>                              \
  struct StorageTypeOf<PrimitiveType::e> { \
    using type = cpp;                      \
  };
HLOREF_STORAGE(kPred, bool)
HLOREF_STORAGE(kS1, int8_t)
HLOREF_STORAGE(kS2, int8_t)
HLOREF_STORAGE(kS4, int8_t)
HLOREF_STORAGE(kS8, int8_t)
HLOREF_STORAGE(kS16, int16_t)
HLOREF_STORAGE(kS32, int32_t)
HLOREF_STORAGE(kS64, int64_t)
HLOREF_STORAGE(kU1, uint8_t)
HLOREF_STORAGE(kU2, uint8_t)
HLOREF_STORAGE(kU4, uint8_t)
HLOREF_STORAGE(kU8, uint8_t)
HLOREF_STORAGE(kU16, uint16_t)
HLOREF_STORAGE(kU32, uint32_t)
HLOREF_STORAGE(kU64, uint64_t)
HLOREF_STORAGE(kF16, uint16_t)
HLOREF_STORAGE(kBF16, uint16_t)
HLOREF_STORAGE(kF32, float)
HLOREF_STORAGE(kF64, double)
HLOREF_STORAGE(kF8E5M2, uint8_t)
HLOREF_STORAGE(kF8E4M3FN, uint8_t)
HLOREF_STORAGE(kF8E4M3B11FNUZ, uint8_t)
HLOREF_STORAGE(kF8E5M2FNUZ, uint8_t)
HLOREF_STORAGE(kF8E4M3FNUZ, uint8_t)
HLOREF_STORAGE(kF8E4M3, uint8_t)
HLOREF_STORAGE(kF8E3M4, uint8_t)
HLOREF_STORAGE(kF4E2M1FN, uint8_t)
HLOREF_STORAGE(kF8E8M0FNU, uint8_t)
HLOREF_STORAGE(kF6E3M2FN, uint8_t)
HLOREF_STORAGE(kF6E2M3FN, uint8_t)
HLOREF_STORAGE(kC64, std::complex<float>)
HLOREF_STORAGE(kC128, std::complex<double>)
#undef HLOREF_STORAGE
template <PrimitiveType T>
using StorageType = typename StorageTypeOf<T>::type;

// Literal storage (issue 17: no -fno-strict-aliasing). An array literal's
// bytes hold objects of its element type's storage type (StorageType<T>),
// so typed access (Literal::data<T>) reads and writes objects that exist,
// as [basic.lval]/11 requires, with these rules:
//  - the block comes from the aligned ::operator new, which implicitly
//    creates objects of implicit-lifetime types ([intro.object]/10, C++20
//    P0593): the element objects start to exist when first written;
//    std::memcpy and std::memmove into it do the same ([cstring.syn]/3), so
//    a copy of another literal's bytes creates objects of this one's type;
//  - raw bytes (Literal::raw, mutable_raw) are unsigned char, which may
//    read and write any object's representation;
//  - typed access checks that T is the storage type, its signed or
//    unsigned counterpart or a character type (Literal::CheckType), so a
//    float literal is never read as uint32_t through data<T>(): code that
//    wants another type's view of the bits copies them (std::memcpy,
//    std::bit_cast) or goes through raw bytes;
//  - storage that changes element type in place (Literal::ReinterpretAs)
//    restarts the lifetime of its objects (RestartLifetime: a memmove onto
//    itself, which is what std::start_lifetime_as_array does in C++23).
// Blocks are 64-byte aligned (a cache line, and a whole zmm vector, so
// compiled kernels reading a literal in place start on a line). Copies are
// one memcpy.
//
// A block may also be adopted from an Owner that keeps it alive (a .npy
// file mapped copy-on-write, see ReadNpyFile): its bytes were written
// before the literal got them, as by a read, and the literal may write
// them (the owner's source never sees the writes). Freeing it deletes the
// owner; a copy of it is an ordinary block.
class LiteralBytes {
 public:
  static constexpr std::align_val_t kAlignment{64};
  class Owner {
   public:
    virtual ~Owner() = default;
  };
  LiteralBytes() = default;
  // `size` bytes at `bytes` (64-byte aligned, readable and writable), valid
  // until `owner` is deleted.
  static LiteralBytes Adopt(unsigned char* bytes, size_t size,
                            std::unique_ptr<Owner> owner) {
    LiteralBytes b;
    b.bytes_ = bytes;
    b.size_ = size;
    b.owner_ = owner.release();
    return b;
  }
  LiteralBytes(const LiteralBytes& other) { CopyFrom(other); }
  LiteralBytes(LiteralBytes&& other) noexcept
      : bytes_(std::exchange(other.bytes_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        owner_(std::exchange(other.owner_, nullptr)) {}
  LiteralBytes& operator=(const LiteralBytes& other) {
    if (this != &other) CopyFrom(other);
    return *this;
  }
  LiteralBytes& operator=(LiteralBytes&& other) noexcept {
    if (this != &other) {
      Free();
      bytes_ = std::exchange(other.bytes_, nullptr);
      size_ = std::exchange(other.size_, 0);
      owner_ = std::exchange(other.owner_, nullptr);
    }
    return *this;
  }
  ~LiteralBytes() { Free(); }
  // Whether the block is adopted (kept alive by an Owner).
  bool adopted() const { return owner_ != nullptr; }

  unsigned char* data() { return bytes_; }
  const unsigned char* data() const { return bytes_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // n bytes, all zero (memset).
  void AssignZeros(size_t n) {
    AssignUninitialized(n);
    if (n != 0) std::memset(bytes_, 0, n);
  }
  // n bytes left unwritten (Literal::Uninitialized).
  void AssignUninitialized(size_t n) {
    if (n != size_) {
      Free();
      if (n != 0) {
        bytes_ = static_cast<unsigned char*>(::operator new(n, kAlignment));
        size_ = n;
      }
    }
  }
  // The storage's objects as an array of T (T of implicit-lifetime type,
  // created by the allocation, a copy or RestartLifetime).
  template <typename T>
  T* typed() {
    return bytes_ == nullptr ? nullptr
                             : std::launder(reinterpret_cast<T*>(bytes_));
  }
  template <typename T>
  const T* typed() const {
    return bytes_ == nullptr ? nullptr
                             : std::launder(reinterpret_cast<const T*>(bytes_));
  }
  // Ends the lifetime of the objects in the storage and implicitly creates
  // new ones holding the same bytes (std::memmove onto itself,
  // [cstring.syn]/3), for storage about to be read as another type. The
  // empty asm tells the compiler that memory may have changed, so no
  // access of the old type moves past it even when the memmove is folded.
  void RestartLifetime() {
    if (bytes_ == nullptr) return;
    std::memmove(bytes_, bytes_, size_);
    asm volatile("" : : "r"(bytes_) : "memory");
  }

  friend bool operator==(const LiteralBytes& a, const LiteralBytes& b) {
    return a.size_ == b.size_ &&
           (a.size_ == 0 || std::memcmp(a.bytes_, b.bytes_, a.size_) == 0);
  }

 private:
  void Free() {
    if (owner_ != nullptr) {
      delete owner_;
    } else if (bytes_ != nullptr) {
      ::operator delete(bytes_, size_, kAlignment);
    }
    bytes_ = nullptr;
    size_ = 0;
    owner_ = nullptr;
  }
  void CopyFrom(const LiteralBytes& other) {
    AssignUninitialized(other.size_);
    if (size_ != 0) std::memcpy(bytes_, other.bytes_, size_);
  }
  unsigned char* bytes_ = nullptr;
  size_t size_ = 0;
  Owner* owner_ = nullptr;  // owns the block when set (Adopt)
};

// The C++ types that may access elements of a storage type under the
// aliasing rules ([basic.lval]/11): a type and its signed or unsigned
// counterpart share a class; character types (kBytes) may access any.
enum class StorageAlias : uint8_t {
  kBytes,
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat,
  kDouble,
  kComplex64,
  kComplex128,
};
template <typename T>
constexpr StorageAlias StorageAliasOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, unsigned char> || std::is_same_v<U, char> ||
                std::is_same_v<U, std::byte>) {
    return StorageAlias::kBytes;
  } else if constexpr (std::is_same_v<U, bool>) {
    return StorageAlias::kBool;
  } else if constexpr (std::is_same_v<U, signed char>) {
    return StorageAlias::kInt8;
  } else if constexpr (std::is_same_v<U, int16_t> ||
                       std::is_same_v<U, uint16_t>) {
    return StorageAlias::kInt16;
  } else if constexpr (std::is_same_v<U, int32_t> ||
                       std::is_same_v<U, uint32_t>) {
    return StorageAlias::kInt32;
  } else if constexpr (std::is_same_v<U, int64_t> ||
                       std::is_same_v<U, uint64_t>) {
    return StorageAlias::kInt64;
  } else if constexpr (std::is_same_v<U, float>) {
    return StorageAlias::kFloat;
  } else if constexpr (std::is_same_v<U, double>) {
    return StorageAlias::kDouble;
  } else if constexpr (std::is_same_v<U, std::complex<float>>) {
    return StorageAlias::kComplex64;
  } else {
    static_assert(std::is_same_v<U, std::complex<double>>,
                  "not a literal storage type");
    return StorageAlias::kComplex128;
  }
}
// The class of StorageType<type> (array types only).
StorageAlias StorageAliasOfType(PrimitiveType type);

class Literal {
 public:
  Literal() = default;  // invalid (no shape)
  // All elements zero (all-zero bits); tuples get zero elements; tokens are
  // valid with no data. Dimensions must be static (or bounded: the bound is
  // allocated). Callers check CheckShapeSize first for untrusted shapes.
  explicit Literal(const Shape& shape);

  // As Literal(shape), but array bytes are left unwritten (no zero fill):
  // only for a caller that writes every byte before anything reads them
  // (the CPU backend's static results, written by the compiled code).
  static Literal Uninitialized(const Shape& shape);
  // An array literal over storage written elsewhere (LiteralBytes::Adopt):
  // `shape` is an array of static dimensions whose storage size is
  // bytes.size() (checked), and the bytes are its row-major storage.
  static Literal AdoptStorage(const Shape& shape, LiteralBytes bytes);
  static Literal MakeTuple(std::vector<Literal> elements);
  static Literal Token() { return Literal(Shape::Token()); }
  // Scalars holding 0 and 1 of an array type (false/true for pred, (0, 0)
  // and (1, 0) for complex). Zero of f8e8m0fnu, which has no zero, is what
  // SetFromDouble(0) gives. Literal is a value type: copies are deep.
  static Literal Zero(PrimitiveType type);
  static Literal One(PrimitiveType type);

  // Typed constructors for tests and the builder (T is the storage type).
  template <typename T>
  static Literal CreateR0(PrimitiveType type, T value);
  template <typename T>
  static Literal CreateR1(PrimitiveType type, absl::Span<const T> values);
  // Any rank: `values` in row-major order, size == product(dims).
  template <typename T>
  static Literal CreateFromValues(PrimitiveType type,
                                  absl::Span<const int64_t> dims,
                                  absl::Span<const T> values);

  const Shape& shape() const { return shape_; }
  // Replaces the layout (never the dimensions or type).
  void set_layout(Layout layout) { shape_.set_layout(std::move(layout)); }
  // Gives an array literal the array shape `shape` over the same storage,
  // without copying or allocating (a reshape, or a bitcast whose physical
  // order is the row-major order on both sides, of a value nobody else
  // reads): the storage bytes are kept as they are and read as the new
  // shape's row-major storage. Runtime sizes become the new shape's
  // dimensions (its bounds). Allowed when the literal is an array without
  // padding, `shape` is an array of bounded dimensions whose storage size
  // (elements x StorageBytes) equals raw().size(), and the element types
  // are equal or both store every bit of their byte(s) (no sub-byte types:
  // an s4 byte holding 8 is no s4; and no pred result from another type: a
  // byte 2 is no pred). CheckReinterpretAs says why not (InvalidArgument);
  // ReinterpretAs leaves the literal unchanged then.
  absl::Status CheckReinterpretAs(const Shape& shape) const;
  absl::Status ReinterpretAs(const Shape& shape);
  PrimitiveType element_type() const { return shape_.element_type(); }
  int64_t element_count() const {
    return shape_.IsArray() ? shape_.num_elements() : 0;
  }

  // Whether the storage is adopted (LiteralBytes::Adopt: a mapped file,
  // whose pages cost a copy each when first written).
  bool storage_adopted() const { return data_.adopted(); }

  // Raw bytes of an array literal.
  absl::Span<const uint8_t> raw() const {
    return absl::Span<const uint8_t>(data_.data(), data_.size());
  }
  absl::Span<uint8_t> mutable_raw() {
    return absl::Span<uint8_t>(data_.data(), data_.size());
  }

  // Typed views; T must be the storage type of element_type(), its signed
  // or unsigned counterpart, or unsigned char (checked; see LiteralBytes).
  template <typename T>
  absl::Span<const T> data() const;
  template <typename T>
  absl::Span<T> mutable_data();
  template <typename T>
  T Get(absl::Span<const int64_t> index) const {
    return data<T>()[RowMajorIndex(shape_.dimensions(), index)];
  }
  template <typename T>
  void Set(absl::Span<const int64_t> index, T value) {
    mutable_data<T>()[RowMajorIndex(shape_.dimensions(), index)] = value;
  }

  // Type-generic element access by row-major linear index, for tests,
  // printing and generators (not for evaluator inner loops):
  //  - AsDouble: exact value for pred, integers (may round above 2^53) and
  //    floats; for complex the real part.
  //  - AsInt64 / AsUint64: integer and pred values.
  //  - RawBits: the element's bit pattern (floats included), zero-extended.
  //  - SetFromDouble rounds to the element type (round-to-nearest-even,
  //    OverflowMode::kXla for narrow floats; integers: must be integral).
  double GetAsDouble(int64_t linear) const;
  std::complex<double> GetAsComplex(int64_t linear) const;
  int64_t GetAsInt64(int64_t linear) const;
  uint64_t GetRawBits(int64_t linear) const;
  void SetFromDouble(int64_t linear, double value);
  void SetFromComplex(int64_t linear, std::complex<double> value);
  void SetFromInt64(int64_t linear, int64_t value);  // wraps to the width
  void SetRawBits(int64_t linear, uint64_t bits);

  // Tuples.
  int64_t tuple_size() const { return static_cast<int64_t>(elements_.size()); }
  const Literal& tuple_element(int64_t i) const { return elements_[i]; }
  Literal& mutable_tuple_element(int64_t i) { return elements_[i]; }
  const std::vector<Literal>& tuple_elements() const { return elements_; }
  // Moves the elements out, leaving an empty tuple.
  std::vector<Literal> DecomposeTuple();

  // ---- Bounded dynamic dimensions (`f32[<=10]`, docs/hlo-text-format.md
  // 3.2). A dimension that is dynamic in shape() has, besides its bound
  // (shape().dimensions(d)), a runtime size in [0, bound]; a static
  // dimension's runtime size is its size. Storage stays allocated at the
  // bounds and row-major over the bounds, as in XLA's Literal, so Get/Set,
  // data() and linear indices never depend on the runtime sizes. An element
  // with index[d] >= GetDynamicSize(d) for some d is padding: it is not part
  // of the value, holds whatever its producer left there (zero for a new
  // literal, the operand's bytes after set-dimension-size) and is
  // don't-care in results (the evaluator marks it impl.dynamic.1, see
  // interpreter/dynamic_sizes.h). A new literal's runtime sizes are its
  // bounds.
  //
  // The runtime size of dimension `dim` of an array literal.
  int64_t GetDynamicSize(int64_t dim) const {
    return dynamic_sizes_.empty() ? shape_.dimensions(dim)
                                  : dynamic_sizes_[dim];
  }
  // All runtime sizes (the dimensions themselves when nothing is dynamic).
  absl::Span<const int64_t> dynamic_sizes() const {
    return dynamic_sizes_.empty() ? shape_.dimensions()
                                  : absl::Span<const int64_t>(dynamic_sizes_);
  }
  // Sets the runtime size of a dynamic dimension (HLOREF_CHECKs that the
  // dimension is dynamic, or that `size` is its static size, and that
  // 0 <= size <= bound: callers validate untrusted sizes first).
  void SetDynamicSize(int64_t dim, int64_t size);
  // Marks dimension `dim` of an array literal dynamic (its runtime size
  // stays what it is) or static (HLOREF_CHECKs that it has no padding).
  // Evaluators use it to give a result the dynamism of its instruction.
  void set_dynamic_dimension(int64_t dim, bool dynamic);
  // True when some runtime size is below its bound (tuples: any element).
  bool HasPadding() const;
  // Whether row-major element `linear` (over the bounds) is padding.
  bool IsPaddingElement(int64_t linear) const;
  // The value without padding: a static array of the runtime sizes holding
  // the valid elements (layout dropped); tuples element by element.
  Literal ToStatic() const;
  // `value` placed into a literal of the bounded shape `bounded`: value must
  // be an array of the same element type and rank whose dimensions equal
  // the static dimensions of `bounded` and lie within the bounds of its
  // dynamic ones (a value that is itself dynamic contributes its runtime
  // sizes). The runtime sizes are value's dimensions; padding is zero.
  // InvalidArgument, naming the dimension, otherwise. Tuples recursively.
  static absl::StatusOr<Literal> ToBoundedDynamic(const Literal& value,
                                                  const Shape& bounded);

  // An elided constant (`{...}` in a dump): shape known, values unknown.
  bool is_elided() const { return elided_; }
  void set_elided(bool elided) { elided_ = elided; }

  // Bit-exact equality: same element type and dimensions (layouts and
  // dynamic bounds ignored), same bits (so NaN == NaN with equal payloads,
  // -0 != +0); tuples elementwise. With padding on either side the runtime
  // sizes must agree and only the valid elements are compared.
  bool BitwiseEquals(const Literal& other) const;
  bool operator==(const Literal& other) const { return BitwiseEquals(other); }

  // HLO literal text. ToString: `f32[2,2]{1,0} { { 1, 2 }, { 3, 4 } }`
  // (shape then value; tuples `(f32[], s32[]) ( 1, 2 )`). ToStringWithoutShape:
  // what `constant(...)` holds. Floats use XLA's formatting (shortest of
  // %.{digits10}g that round-trips, else max_digits10), NaN payloads as
  // `nan(0x..)`, complex `(re, im)`, pred `true`/`false` (scalar) and
  // `1`/`0` inside arrays as XLA prints them, /*iK=v*/ markers at rank >= 4.
  // A dynamic shape is followed by the runtime size of every dimension and
  // only the valid elements are printed, as XLA's literal printer does:
  // `f32[<=4]{0}(2) {1, 2}` (ToStringWithoutShape: `{1, 2}`).
  std::string ToString() const;
  std::string ToStringWithoutShape() const;
  // The shape as ToString prints it: arrays always with a layout (the
  // descending default when the shape has none), tuples recursively.
  std::string ShapeString() const;
  // The text of one element (used by error messages and reports).
  std::string ElementToString(int64_t linear) const;

 private:
  void CheckType(int storage_bytes, StorageAlias alias) const;
  Shape shape_;
  LiteralBytes data_;
  std::vector<Literal> elements_;
  // Runtime sizes of every dimension; empty = the dimensions themselves.
  std::vector<int64_t> dynamic_sizes_;
  bool elided_ = false;
};

// Formats one float value as XLA's literal printer does for `type`.
std::string FormatFloatForType(PrimitiveType type, double value, uint64_t bits);

template <typename T>
absl::Span<const T> Literal::data() const {
  CheckType(sizeof(T), StorageAliasOf<T>());
  return absl::Span<const T>(data_.typed<T>(), data_.size() / sizeof(T));
}
template <typename T>
absl::Span<T> Literal::mutable_data() {
  CheckType(sizeof(T), StorageAliasOf<T>());
  return absl::Span<T>(data_.typed<T>(), data_.size() / sizeof(T));
}
template <typename T>
Literal Literal::CreateR0(PrimitiveType type, T value) {
  Literal lit(Shape::Scalar(type));
  lit.mutable_data<T>()[0] = value;
  return lit;
}
template <typename T>
Literal Literal::CreateR1(PrimitiveType type, absl::Span<const T> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return CreateFromValues<T>(type, absl::MakeConstSpan(&n, 1), values);
}
template <typename T>
Literal Literal::CreateFromValues(PrimitiveType type,
                                  absl::Span<const int64_t> dims,
                                  absl::Span<const T> values) {
  Literal lit(Shape::Array(type, dims));
  absl::Span<T> out = lit.mutable_data<T>();
  HLOREF_CHECK(out.size() == values.size());
  std::copy(values.begin(), values.end(), out.begin());
  return lit;
}

}  // namespace hloref

#endif  // HLOREF_SPEC_TYPES_LITERAL_H_
