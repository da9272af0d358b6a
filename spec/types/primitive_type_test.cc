// Tests of the element-type tables: names, widths, storage, kinds, errors.
#include "spec/types/primitive_type.h"

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hloref {
namespace {

using ::testing::HasSubstr;

// Every type with its properties, written out by hand from xla_data.proto,
// docs/hlo-text-format.md section 3.1 and the storage table in
// primitive_type.h (not generated from primitive_types.def).
struct Want {
  PrimitiveType type;
  const char* name;
  int bits;
  int storage_bytes;
  TypeKind kind;
  const char* type_class;
};

const Want kWants[] = {
    {PrimitiveType::kPred, "pred", 8, 1, TypeKind::kPred, "pred"},
    {PrimitiveType::kS1, "s1", 1, 1, TypeKind::kSigned, "signed"},
    {PrimitiveType::kS2, "s2", 2, 1, TypeKind::kSigned, "signed"},
    {PrimitiveType::kS4, "s4", 4, 1, TypeKind::kSigned, "signed"},
    {PrimitiveType::kS8, "s8", 8, 1, TypeKind::kSigned, "signed"},
    {PrimitiveType::kS16, "s16", 16, 2, TypeKind::kSigned, "signed"},
    {PrimitiveType::kS32, "s32", 32, 4, TypeKind::kSigned, "signed"},
    {PrimitiveType::kS64, "s64", 64, 8, TypeKind::kSigned, "signed"},
    {PrimitiveType::kU1, "u1", 1, 1, TypeKind::kUnsigned, "unsigned"},
    {PrimitiveType::kU2, "u2", 2, 1, TypeKind::kUnsigned, "unsigned"},
    {PrimitiveType::kU4, "u4", 4, 1, TypeKind::kUnsigned, "unsigned"},
    {PrimitiveType::kU8, "u8", 8, 1, TypeKind::kUnsigned, "unsigned"},
    {PrimitiveType::kU16, "u16", 16, 2, TypeKind::kUnsigned, "unsigned"},
    {PrimitiveType::kU32, "u32", 32, 4, TypeKind::kUnsigned, "unsigned"},
    {PrimitiveType::kU64, "u64", 64, 8, TypeKind::kUnsigned, "unsigned"},
    {PrimitiveType::kF16, "f16", 16, 2, TypeKind::kFloat, "float"},
    {PrimitiveType::kBF16, "bf16", 16, 2, TypeKind::kFloat, "float"},
    {PrimitiveType::kF32, "f32", 32, 4, TypeKind::kFloat, "float"},
    {PrimitiveType::kF64, "f64", 64, 8, TypeKind::kFloat, "float"},
    {PrimitiveType::kF8E5M2, "f8e5m2", 8, 1, TypeKind::kFloat, "float"},
    {PrimitiveType::kF8E4M3FN, "f8e4m3fn", 8, 1, TypeKind::kFloat, "float"},
    {PrimitiveType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, 1, TypeKind::kFloat,
     "float"},
    {PrimitiveType::kF8E5M2FNUZ, "f8e5m2fnuz", 8, 1, TypeKind::kFloat, "float"},
    {PrimitiveType::kF8E4M3FNUZ, "f8e4m3fnuz", 8, 1, TypeKind::kFloat, "float"},
    {PrimitiveType::kF8E4M3, "f8e4m3", 8, 1, TypeKind::kFloat, "float"},
    {PrimitiveType::kF8E3M4, "f8e3m4", 8, 1, TypeKind::kFloat, "float"},
    {PrimitiveType::kF4E2M1FN, "f4e2m1fn", 4, 1, TypeKind::kFloat, "float"},
    {PrimitiveType::kF8E8M0FNU, "f8e8m0fnu", 8, 1, TypeKind::kFloat, "float"},
    {PrimitiveType::kF6E3M2FN, "f6e3m2fn", 6, 1, TypeKind::kFloat, "float"},
    {PrimitiveType::kF6E2M3FN, "f6e2m3fn", 6, 1, TypeKind::kFloat, "float"},
    {PrimitiveType::kC64, "c64", 64, 8, TypeKind::kComplex, "complex"},
    {PrimitiveType::kC128, "c128", 128, 16, TypeKind::kComplex, "complex"},
    {PrimitiveType::kToken, "token", 0, 0, TypeKind::kToken, "other"},
    {PrimitiveType::kTuple, "tuple", 0, 0, TypeKind::kTuple, "other"},
    {PrimitiveType::kOpaque, "opaque", 0, 0, TypeKind::kOpaque, "other"},
};

TEST(PrimitiveTypeTest, PropertiesOfEveryType) {
  for (const Want& w : kWants) {
    SCOPED_TRACE(w.name);
    EXPECT_EQ(PrimitiveTypeName(w.type), w.name);
    EXPECT_EQ(BitWidth(w.type), w.bits);
    EXPECT_EQ(StorageBytes(w.type), w.storage_bytes);
    EXPECT_EQ(KindOf(w.type), w.kind);
    EXPECT_EQ(TypeClassName(w.type), w.type_class);
  }
}

TEST(PrimitiveTypeTest, HandTableCoversTheDefFile) {
  // Every .def entry is in the hand table with the same name, width and
  // kind, and the counts agree, so a new .def line needs a test line.
  std::set<PrimitiveType> in_def;
#define HLOREF_PRIMITIVE_TYPE(e, def_name, def_bits, def_kind)             \
  {                                                                        \
    in_def.insert(PrimitiveType::e);                                       \
    bool found = false;                                                    \
    for (const Want& w : kWants) {                                         \
      if (w.type == PrimitiveType::e) {                                    \
        found = true;                                                      \
        EXPECT_STREQ(w.name, def_name);                                    \
        EXPECT_EQ(w.bits, def_bits) << def_name;                           \
        EXPECT_EQ(w.kind, TypeKind::def_kind) << def_name;                 \
      }                                                                    \
    }                                                                      \
    EXPECT_TRUE(found) << def_name << " is missing from the test's table"; \
  }
#include "spec/types/primitive_types.def"
#undef HLOREF_PRIMITIVE_TYPE
  EXPECT_EQ(in_def.size(), sizeof(kWants) / sizeof(kWants[0]));
}

TEST(PrimitiveTypeTest, NamesRoundTrip) {
  for (const Want& w : kWants) {
    if (w.type == PrimitiveType::kTuple) continue;  // not a word in HLO text
    absl::StatusOr<PrimitiveType> t = ParsePrimitiveType(w.name);
    ASSERT_TRUE(t.ok()) << w.name << ": " << t.status();
    EXPECT_EQ(*t, w.type) << w.name;
    EXPECT_TRUE(IsPrimitiveTypeName(w.name)) << w.name;
    EXPECT_EQ(ParsePrimitiveType(PrimitiveTypeName(w.type)).value(), w.type);
  }
  EXPECT_EQ(PrimitiveTypeName(PrimitiveType::kInvalid), "invalid");
}

TEST(PrimitiveTypeTest, UnknownNamesGiveAClearError) {
  for (const char* bad : {"f33", "F32", "tuple", "invalid", "", "s32 ", "float",
                          "f8e4m3FN", "i32", "fp8"}) {
    SCOPED_TRACE(bad);
    absl::StatusOr<PrimitiveType> t = ParsePrimitiveType(bad);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(t.status().message()),
                HasSubstr(std::string("unknown element type '") + bad + "'"));
    // The message lists what is accepted.
    EXPECT_THAT(std::string(t.status().message()), HasSubstr("f8e4m3fn"));
    EXPECT_FALSE(IsPrimitiveTypeName(bad));
  }
}

TEST(PrimitiveTypeTest, ArrayTypesAndPredicates) {
  std::vector<PrimitiveType> want;
  for (const Want& w : kWants) {
    bool array = w.kind == TypeKind::kPred || w.kind == TypeKind::kSigned ||
                 w.kind == TypeKind::kUnsigned || w.kind == TypeKind::kFloat ||
                 w.kind == TypeKind::kComplex;
    EXPECT_EQ(IsArrayType(w.type), array) << w.name;
    if (array) want.push_back(w.type);
    EXPECT_EQ(IsInteger(w.type),
              w.kind == TypeKind::kSigned || w.kind == TypeKind::kUnsigned)
        << w.name;
    EXPECT_EQ(IsSignedInt(w.type), w.kind == TypeKind::kSigned) << w.name;
    EXPECT_EQ(IsUnsignedInt(w.type), w.kind == TypeKind::kUnsigned) << w.name;
    EXPECT_EQ(IsFloat(w.type), w.kind == TypeKind::kFloat) << w.name;
    EXPECT_EQ(IsComplex(w.type), w.kind == TypeKind::kComplex) << w.name;
    EXPECT_EQ(IsPred(w.type), w.kind == TypeKind::kPred) << w.name;
    // Minifloats: every float except f32 and f64.
    EXPECT_EQ(IsMinifloat(w.type), w.kind == TypeKind::kFloat &&
                                       w.type != PrimitiveType::kF32 &&
                                       w.type != PrimitiveType::kF64)
        << w.name;
  }
  absl::Span<const PrimitiveType> all = AllArrayTypes();
  EXPECT_EQ(std::vector<PrimitiveType>(all.begin(), all.end()), want);
  EXPECT_FALSE(IsArrayType(PrimitiveType::kInvalid));
  EXPECT_EQ(KindOf(PrimitiveType::kInvalid), TypeKind::kInvalid);
  EXPECT_EQ(StorageBytes(PrimitiveType::kInvalid), 0);
}

TEST(PrimitiveTypeTest, ComplexComponents) {
  EXPECT_EQ(ComplexComponentType(PrimitiveType::kC64), PrimitiveType::kF32);
  EXPECT_EQ(ComplexComponentType(PrimitiveType::kC128), PrimitiveType::kF64);
  EXPECT_EQ(ComplexComponentType(PrimitiveType::kF32), PrimitiveType::kInvalid);
  EXPECT_EQ(ComplexComponentType(PrimitiveType::kS32), PrimitiveType::kInvalid);
}

TEST(PrimitiveTypeTest, OutOfRangeEnumReadsAsInvalid) {
  PrimitiveType garbage = static_cast<PrimitiveType>(200);
  EXPECT_EQ(PrimitiveTypeName(garbage), "invalid");
  EXPECT_EQ(KindOf(garbage), TypeKind::kInvalid);
  EXPECT_EQ(BitWidth(garbage), 0);
  EXPECT_FALSE(IsArrayType(garbage));
}

}  // namespace
}  // namespace hloref
