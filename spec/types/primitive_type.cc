// Name and property tables of the element types, from primitive_types.def.
#include "spec/types/primitive_type.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace hloref {
namespace {

struct TypeInfo {
  PrimitiveType type;
  absl::string_view name;
  int bits;
  TypeKind kind;
};

constexpr TypeInfo kTypeInfos[] = {
    {PrimitiveType::kInvalid, "invalid", 0, TypeKind::kInvalid},
#define HLOREF_PRIMITIVE_TYPE(e, name, bits, kind) \
  {PrimitiveType::e, name, bits, TypeKind::kind},
#include "spec/types/primitive_types.def"
#undef HLOREF_PRIMITIVE_TYPE
};

constexpr int kNumTypeInfos = sizeof(kTypeInfos) / sizeof(kTypeInfos[0]);

// The .def order must match the enum (kInvalid first, then .def order).
constexpr bool InfosMatchEnum() {
  for (int i = 0; i < kNumTypeInfos; ++i) {
    if (static_cast<int>(kTypeInfos[i].type) != i) return false;
  }
  return true;
}
static_assert(InfosMatchEnum(), "kTypeInfos out of enum order");

// Out-of-range values (a corrupted enum) read as kInvalid, never past the
// table.
const TypeInfo& Info(PrimitiveType t) {
  int i = static_cast<int>(t);
  return kTypeInfos[i < kNumTypeInfos ? i : 0];
}

// Name -> type for every type that HLO text spells as a word.
const absl::flat_hash_map<std::string, PrimitiveType>& TypesByName() {
  static const auto* by_name = [] {
    auto* m = new absl::flat_hash_map<std::string, PrimitiveType>;
    for (const TypeInfo& info : kTypeInfos) {
      if (info.type == PrimitiveType::kInvalid ||
          info.type == PrimitiveType::kTuple) {
        continue;  // "tuple" is not written as a word in HLO text.
      }
      (*m)[std::string(info.name)] = info.type;
    }
    return m;
  }();
  return *by_name;
}

// "pred, s1, ..." for error messages.
const std::string& KnownNames() {
  static const auto* names = [] {
    auto* s = new std::string;
    for (const TypeInfo& info : kTypeInfos) {
      if (info.type == PrimitiveType::kInvalid ||
          info.type == PrimitiveType::kTuple) {
        continue;
      }
      if (!s->empty()) s->append(", ");
      s->append(info.name.data(), info.name.size());
    }
    return s;
  }();
  return *names;
}

}  // namespace

absl::Span<const PrimitiveType> AllArrayTypes() {
  static const std::vector<PrimitiveType>* types = [] {
    auto* v = new std::vector<PrimitiveType>;
    for (const TypeInfo& info : kTypeInfos) {
      if (IsArrayType(info.type)) v->push_back(info.type);
    }
    return v;
  }();
  return *types;
}

absl::string_view PrimitiveTypeName(PrimitiveType type) {
  return Info(type).name;
}

bool IsPrimitiveTypeName(absl::string_view name) {
  return TypesByName().contains(std::string(name));
}

absl::StatusOr<PrimitiveType> ParsePrimitiveType(absl::string_view name) {
  const auto& by_name = TypesByName();
  auto it = by_name.find(std::string(name));
  if (it == by_name.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown element type '", name,
                     "' (element types are lower case: ", KnownNames(), ")"));
  }
  return it->second;
}

TypeKind KindOf(PrimitiveType type) { return Info(type).kind; }
int BitWidth(PrimitiveType type) { return Info(type).bits; }

int StorageBytes(PrimitiveType type) {
  const TypeInfo& info = Info(type);
  switch (info.kind) {
    case TypeKind::kInvalid:
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
      return 0;
    case TypeKind::kPred:
      return 1;
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
    case TypeKind::kFloat:
    case TypeKind::kComplex:
      return info.bits <= 8 ? 1 : info.bits / 8;
  }
  return 0;
}

bool IsMinifloat(PrimitiveType t) {
  return IsFloat(t) && t != PrimitiveType::kF32 && t != PrimitiveType::kF64;
}

PrimitiveType ComplexComponentType(PrimitiveType t) {
  if (t == PrimitiveType::kC64) return PrimitiveType::kF32;
  if (t == PrimitiveType::kC128) return PrimitiveType::kF64;
  return PrimitiveType::kInvalid;
}

absl::string_view TypeClassName(PrimitiveType t) {
  switch (KindOf(t)) {
    case TypeKind::kPred:
      return "pred";
    case TypeKind::kSigned:
      return "signed";
    case TypeKind::kUnsigned:
      return "unsigned";
    case TypeKind::kFloat:
      return "float";
    case TypeKind::kComplex:
      return "complex";
    case TypeKind::kInvalid:
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
      break;
  }
  return "other";
}

}  // namespace hloref
