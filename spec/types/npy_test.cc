// Tests of .npy reading and writing. Expected bytes are built by hand from
// the NPY format specification (numpy/lib/format.py): magic "\x93NUMPY",
// version bytes, little-endian HEADER_LEN, a dict literal padded with
// spaces and ended by '\n' so that the data starts at a multiple of 64.
#include "spec/types/npy.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hloref {
namespace {

using PT = PrimitiveType;
using ::testing::HasSubstr;

// Builds a .npy file from a header dict text and data, per the spec.
std::string MakeNpy(const std::string& dict, const std::string& data,
                    int major = 1) {
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t preamble = 6 + 2 + len_bytes;
  std::string header = dict;
  while ((preamble + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  for (size_t i = 0; i < len_bytes; ++i) {
    out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  }
  return out + header + data;
}

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

TEST(NpyWriteTest, F32MatchesHandDerivedBytes) {
  Literal lit = Literal::CreateFromValues<float>(
      PT::kF32, {2, 3}, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});
  // The dict is 59 characters; 10 + 59 + 1 = 70, so 58 spaces of padding
  // make the data start at 128 and HEADER_LEN = 59 + 58 + 1 = 118 = 0x76.
  const std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ASSERT_EQ(dict.size(), 59u);
  std::string expected = Bytes({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0x76, 0});
  expected += dict + std::string(58, ' ') + "\n";
  ASSERT_EQ(expected.size(), 128u);
  // 1.0f = 0x3F800000, 2.0f = 0x40000000, 3.0f = 0x40400000, 4.0f =
  // 0x40800000, 5.0f = 0x40A00000, 6.0f = 0x40C00000, little-endian.
  expected += Bytes({0, 0, 0x80, 0x3F, 0, 0, 0,    0x40, 0, 0, 0x40, 0x40,
                     0, 0, 0x80, 0x40, 0, 0, 0xA0, 0x40, 0, 0, 0xC0, 0x40});
  absl::StatusOr<std::string> bytes = NpyBytesFromLiteral(lit);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, expected);
}

TEST(NpyWriteTest, Bf16UsesOneFieldStructuredDtype) {
  Literal lit(Shape::Array(PT::kBF16, {2}));
  lit.SetRawBits(0, 0x3F80);
  lit.SetRawBits(1, 0xC000);
  const std::string dict =
      "{'descr': [('bf16', '<u2')], 'fortran_order': False, 'shape': (2,), }";
  ASSERT_EQ(dict.size(), 69u);  // 10 + 69 + 1 = 80 -> 48 spaces, length 118
  std::string expected = Bytes({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0});
  expected += dict + std::string(48, ' ') + "\n";
  expected += Bytes({0x80, 0x3F, 0x00, 0xC0});
  absl::StatusOr<std::string> bytes = NpyBytesFromLiteral(lit);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, expected);
}

TEST(NpyWriteTest, ScalarAndDescrs) {
  absl::StatusOr<std::string> s =
      NpyBytesFromLiteral(Literal::CreateR0<int32_t>(PT::kS32, -2));
  ASSERT_TRUE(s.ok());
  // The dict is 58 characters: 10 + 58 + 1 = 69 pads up to 128.
  EXPECT_EQ(s->size(), 128u + 4u);
  EXPECT_THAT(*s, HasSubstr("{'descr': '<i4', 'fortran_order': False, "
                            "'shape': (), }"));
  EXPECT_EQ(s->substr(128), Bytes({0xFE, 0xFF, 0xFF, 0xFF}));
  struct Case {
    PT type;
    std::string descr;
  } cases[] = {
      {PT::kPred, "'|b1'"},
      {PT::kS8, "'|i1'"},
      {PT::kS64, "'<i8'"},
      {PT::kU8, "'|u1'"},
      {PT::kU16, "'<u2'"},
      {PT::kF16, "'<f2'"},
      {PT::kF64, "'<f8'"},
      {PT::kC64, "'<c8'"},
      {PT::kC128, "'<c16'"},
      {PT::kS4, "[('s4', '|i1')]"},
      {PT::kU2, "[('u2', '|u1')]"},
      {PT::kF8E4M3FN, "[('f8e4m3fn', '|u1')]"},
      {PT::kF4E2M1FN, "[('f4e2m1fn', '|u1')]"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::string> b =
        NpyBytesFromLiteral(Literal(Shape::Array(c.type, {1})));
    ASSERT_TRUE(b.ok());
    EXPECT_THAT(*b, HasSubstr("{'descr': " + c.descr + ", "))
        << PrimitiveTypeName(c.type);
    EXPECT_EQ(b->size() % 64, static_cast<size_t>(StorageBytes(c.type)) % 64);
    EXPECT_EQ((*b)[b->size() - StorageBytes(c.type) - 1], '\n');
  }
}

TEST(NpyWriteTest, TokenAndErrors) {
  absl::StatusOr<std::string> t = NpyBytesFromLiteral(Literal::Token());
  ASSERT_TRUE(t.ok());
  EXPECT_THAT(*t, HasSubstr("{'descr': [('token', '|u1')], 'fortran_order': "
                            "False, 'shape': (), }"));
  EXPECT_EQ(t->size(), 129u);  // 128-byte header + one byte
  absl::StatusOr<Literal> back = LiteralFromNpyBytes(*t);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->shape().IsToken());

  absl::StatusOr<std::string> tuple =
      NpyBytesFromLiteral(Literal::MakeTuple({}));
  EXPECT_EQ(tuple.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(tuple.status().message(), HasSubstr("()"));
  Literal elided(Shape::Array(PT::kF32, {20}));
  elided.set_elided(true);
  EXPECT_THAT(NpyBytesFromLiteral(elided).status().message(),
              HasSubstr("elided"));
}

// Fills a literal with varied valid values of its type.
Literal Varied(PT type, std::vector<int64_t> dims) {
  Literal lit(Shape::Array(type, dims));
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    if (IsComplex(type)) {
      lit.SetFromComplex(i, {i * 0.5 - 1, -i * 0.25});
    } else if (IsFloat(type)) {
      lit.SetRawBits(i, static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull >>
                            (64 - BitWidth(type)));
    } else {
      lit.SetFromInt64(i, i * 37 - 50);  // wraps for narrow types
    }
  }
  return lit;
}

TEST(NpyRoundTripTest, EveryArrayType) {
  for (PT type : AllArrayTypes()) {
    for (std::vector<int64_t> dims :
         {std::vector<int64_t>{}, {5}, {2, 3}, {2, 0, 3}, {2, 3, 4}}) {
      Literal lit = Varied(type, dims);
      absl::StatusOr<std::string> bytes = NpyBytesFromLiteral(lit);
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      ASSERT_EQ((bytes->size() - lit.raw().size()) % 64, 0u);
      absl::StatusOr<Literal> back = LiteralFromNpyBytes(*bytes);
      ASSERT_TRUE(back.ok())
          << PrimitiveTypeName(type) << ": " << back.status();
      EXPECT_EQ(back->shape().element_type(), type);
      EXPECT_EQ(std::vector<int64_t>(back->shape().dimensions().begin(),
                                     back->shape().dimensions().end()),
                dims);
      EXPECT_TRUE(back->BitwiseEquals(lit))
          << PrimitiveTypeName(type) << " " << lit.ToString() << " vs "
          << back->ToString();
    }
  }
}

TEST(NpyRoundTripTest, Files) {
  const std::string path =
      ::testing::TempDir() + "/hloref_npy_test_roundtrip.npy";
  Literal lit = Varied(PT::kS16, {3, 2});
  ASSERT_TRUE(WriteNpyFile(lit, path).ok());
  absl::StatusOr<Literal> back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->BitwiseEquals(lit));
  std::remove(path.c_str());
  absl::StatusOr<Literal> missing = ReadNpyFile(path);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr(path));
}

TEST(NpyReadTest, BigEndianNative) {
  // '>i4' 258 = 0x00000102 and -1; '>f2' 1.0 = 0x3C00; '>c8' (1, -2).
  absl::StatusOr<Literal> i = LiteralFromNpyBytes(
      MakeNpy("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }",
              Bytes({0, 0, 1, 2, 0xFF, 0xFF, 0xFF, 0xFF})));
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_EQ(i->ToString(), "s32[2]{0} {258, -1}");
  absl::StatusOr<Literal> h = LiteralFromNpyBytes(
      MakeNpy("{'descr': '>f2', 'fortran_order': False, 'shape': (), }",
              Bytes({0x3C, 0x00})));
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->GetRawBits(0), 0x3C00u);
  // Complex swaps each part on its own: 1.0f = 3F800000, -2.0f = C0000000.
  absl::StatusOr<Literal> c = LiteralFromNpyBytes(
      MakeNpy("{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }",
              Bytes({0x3F, 0x80, 0, 0, 0xC0, 0, 0, 0})));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->ToStringWithoutShape(), "{(1, -2)}");
  // Structured bf16 stored big-endian.
  absl::StatusOr<Literal> b = LiteralFromNpyBytes(MakeNpy(
      "{'descr': [('bf16', '>u2')], 'fortran_order': False, 'shape': (1,), }",
      Bytes({0x3F, 0x80})));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->GetRawBits(0), 0x3F80u);
}

TEST(NpyReadTest, FortranOrderIsTransposedIntoRowMajor) {
  // The 2x3 array {{1,2,3},{4,5,6}} in column-major order is 1 4 2 5 3 6.
  absl::StatusOr<Literal> lit = LiteralFromNpyBytes(
      MakeNpy("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }",
              Bytes({1, 0, 4, 0, 2, 0, 5, 0, 3, 0, 6, 0})));
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_EQ(lit->ToStringWithoutShape(), "{ { 1, 2, 3 }, { 4, 5, 6 } }");
  // Rank 3 [2,2,2]: column-major position k holds the element whose index
  // (i, j, l) has k = i + 2*j + 4*l; write the row-major number 4i+2j+l.
  std::string data;
  for (int l = 0; l < 2; ++l) {
    for (int j = 0; j < 2; ++j) {
      for (int i = 0; i < 2; ++i)
        data.push_back(static_cast<char>(4 * i + 2 * j + l));
    }
  }
  absl::StatusOr<Literal> r3 = LiteralFromNpyBytes(MakeNpy(
      "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 2, 2), }", data));
  ASSERT_TRUE(r3.ok()) << r3.status();
  for (int64_t k = 0; k < 8; ++k) EXPECT_EQ(r3->GetAsInt64(k), k);
}

TEST(NpyReadTest, Version2And3HeadersAndLenientSpelling) {
  const std::string dict =
      "{\"descr\": \"<u2\", \"shape\": (3L,), \"fortran_order\": False}";
  for (int major : {2, 3}) {
    absl::StatusOr<Literal> lit =
        LiteralFromNpyBytes(MakeNpy(dict, Bytes({1, 0, 2, 0, 3, 1}), major));
    ASSERT_TRUE(lit.ok()) << lit.status();
    EXPECT_EQ(lit->ToString(), "u16[3]{0} {1, 2, 259}");
  }
}

TEST(NpyReadTest, PredNormalisedAndBoolDtype) {
  absl::StatusOr<Literal> lit = LiteralFromNpyBytes(
      MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
              Bytes({0, 1, 7})));
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_EQ(lit->ToStringWithoutShape(), "{0, 1, 1}");
}

absl::Status ReadError(const std::string& bytes) {
  return LiteralFromNpyBytes(bytes).status();
}

TEST(NpyReadTest, Errors) {
  const std::string ok_dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string eight = std::string(8, '\0');
  ASSERT_TRUE(LiteralFromNpyBytes(MakeNpy(ok_dict, eight)).ok());

  EXPECT_THAT(ReadError("PK\x03\x04 not an npy").message(),
              HasSubstr("bad magic"));
  EXPECT_THAT(ReadError("").message(), HasSubstr("bad magic"));
  std::string v9 = MakeNpy(ok_dict, eight);
  v9[6] = 9;
  EXPECT_THAT(ReadError(v9).message(), HasSubstr("version 9.0"));
  EXPECT_THAT(ReadError(MakeNpy(ok_dict, eight).substr(0, 40)).message(),
              HasSubstr("truncated"));
  absl::Status short_data = ReadError(MakeNpy(ok_dict, std::string(7, '\0')));
  EXPECT_EQ(short_data.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_data.message(), HasSubstr("truncated data"));
  EXPECT_THAT(short_data.message(), HasSubstr("needs 8 bytes"));
  EXPECT_THAT(ReadError(MakeNpy(ok_dict, std::string(9, '\0'))).message(),
              HasSubstr("size mismatch"));
  EXPECT_THAT(
      ReadError(
          MakeNpy("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }",
                  std::string(16, '\0')))
          .message(),
      HasSubstr("unsupported dtype descr '<f16'"));
  EXPECT_THAT(
      ReadError(
          MakeNpy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
                  "x"))
          .message(),
      HasSubstr("unsupported dtype descr '|O'"));
  EXPECT_THAT(
      ReadError(MakeNpy("{'descr': '<f4', 'shape': (2,), }", eight)).message(),
      HasSubstr("'fortran_order'"));
  EXPECT_THAT(ReadError(MakeNpy("{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (-2,), }",
                                eight))
                  .message(),
              HasSubstr("bad header"));
  EXPECT_THAT(ReadError(MakeNpy("{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (2,)",
                                eight))
                  .message(),
              HasSubstr("bad header"));
  // Structured dtypes: wrong storage size, unknown name, two fields.
  EXPECT_THAT(ReadError(MakeNpy("{'descr': [('bf16', '|u1')], "
                                "'fortran_order': False, 'shape': (1,), }",
                                "x"))
                  .message(),
              HasSubstr("expected an integer of 2 byte(s)"));
  EXPECT_THAT(ReadError(MakeNpy("{'descr': [('x', '|u1')], "
                                "'fortran_order': False, 'shape': (1,), }",
                                "x"))
                  .message(),
              HasSubstr("field name 'x'"));
  EXPECT_THAT(ReadError(MakeNpy("{'descr': [('s4', '|i1'), ('u4', '|u1')], "
                                "'fortran_order': False, 'shape': (1,), }",
                                "xx"))
                  .message(),
              HasSubstr("2 fields"));
  // Values outside a sub-byte type.
  absl::Status s4 =
      ReadError(MakeNpy("{'descr': [('s4', '|i1')], 'fortran_order': False, "
                        "'shape': (2,), }",
                        Bytes({7, 8})));
  EXPECT_THAT(s4.message(), HasSubstr("element 1 holds 8"));
  EXPECT_THAT(s4.message(), HasSubstr("s4"));
  EXPECT_THAT(ReadError(MakeNpy("{'descr': [('f4e2m1fn', '|u1')], "
                                "'fortran_order': False, 'shape': (1,), }",
                                Bytes({0x10})))
                  .message(),
              HasSubstr("not a valid f4e2m1fn encoding"));
  // Overflowing shapes are refused before any allocation.
  EXPECT_THAT(ReadError(MakeNpy("{'descr': '<f8', 'fortran_order': False, "
                                "'shape': (4294967296, 4294967296), }",
                                eight))
                  .message(),
              HasSubstr("too large"));
  // A token must have shape ().
  EXPECT_THAT(ReadError(MakeNpy("{'descr': [('token', '|u1')], "
                                "'fortran_order': False, 'shape': (1,), }",
                                "x"))
                  .message(),
              HasSubstr("a token has shape ()"));
}

}  // namespace
}  // namespace hloref
