// Element types of HLO values (xla_data.proto's PrimitiveType) and their
// static properties.
//
// Storage (how a Literal holds one element; every element is byte aligned):
//   pred                 1 byte, 0 or 1
//   s1, s2, s4           1 byte each, an int8_t holding the sign-extended
//                        value (so -8..7 for s4); the high bits are never
//                        garbage
//   u1, u2, u4           1 byte each, a uint8_t holding the value
//   s8..s64, u8..u64     the matching <cstdint> type
//   f16, bf16            uint16_t bit pattern
//   f32, f64             float, double
//   every f8, f6, f4     1 byte: the encoding in the low bits, high bits 0
//   c64, c128            std::complex<float>, std::complex<double>
//   token, tuple, opaque no element storage
// Packed sub-byte layouts (E(4) in a layout) only matter to bitcast and to
// backends; the interpreter unpacks them at that boundary.
#ifndef HLOREF_SPEC_TYPES_PRIMITIVE_TYPE_H_
#define HLOREF_SPEC_TYPES_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace hloref {

enum class PrimitiveType : uint8_t {
  kInvalid = 0,
#define HLOREF_PRIMITIVE_TYPE(e, name, bits, kind) e,
#include "spec/types/primitive_types.def"
#undef HLOREF_PRIMITIVE_TYPE
};

// What kind of value an element type holds.
enum class TypeKind : uint8_t {
  kInvalid,
  kPred,
  kSigned,
  kUnsigned,
  kFloat,
  kComplex,
  kToken,
  kTuple,
  kOpaque,
};

// Every array element type (not token/tuple/opaque/invalid), in .def order.
absl::Span<const PrimitiveType> AllArrayTypes();

// "f32" for kF32; "invalid" for kInvalid.
absl::string_view PrimitiveTypeName(PrimitiveType type);
// Parses a lower-case HLO name ("f8e4m3fn"); error names the text.
absl::StatusOr<PrimitiveType> ParsePrimitiveType(absl::string_view name);
// True when `name` spells an element type (the lexer reserves these words).
bool IsPrimitiveTypeName(absl::string_view name);

TypeKind KindOf(PrimitiveType type);
// Logical width in bits (4 for s4 and f4e2m1fn, 64 for c64); 0 for
// token, tuple, opaque.
int BitWidth(PrimitiveType type);
// Bytes one element occupies in a Literal (see the storage table above).
int StorageBytes(PrimitiveType type);

inline bool IsArrayType(PrimitiveType t) {
  TypeKind k = KindOf(t);
  return k == TypeKind::kPred || k == TypeKind::kSigned ||
         k == TypeKind::kUnsigned || k == TypeKind::kFloat ||
         k == TypeKind::kComplex;
}
inline bool IsPred(PrimitiveType t) { return t == PrimitiveType::kPred; }
inline bool IsSignedInt(PrimitiveType t) {
  return KindOf(t) == TypeKind::kSigned;
}
inline bool IsUnsignedInt(PrimitiveType t) {
  return KindOf(t) == TypeKind::kUnsigned;
}
inline bool IsInteger(PrimitiveType t) {
  return IsSignedInt(t) || IsUnsignedInt(t);
}
inline bool IsFloat(PrimitiveType t) { return KindOf(t) == TypeKind::kFloat; }
inline bool IsComplex(PrimitiveType t) {
  return KindOf(t) == TypeKind::kComplex;
}
// f16, bf16 and every f8/f6/f4 type: the ones the generic minifloat covers.
bool IsMinifloat(PrimitiveType t);
// For c64 -> f32, c128 -> f64; otherwise kInvalid.
PrimitiveType ComplexComponentType(PrimitiveType t);

// The type-class names used by coverage pages and generators: "pred",
// "signed", "unsigned", "float", "complex".
absl::string_view TypeClassName(PrimitiveType t);

}  // namespace hloref

#endif  // HLOREF_SPEC_TYPES_PRIMITIVE_TYPE_H_
