// Tests of .npy reading and writing. Expected bytes are built by hand from
// the NPY format specification (numpy/lib/format.py): magic "\x93NUMPY",
// version bytes, little-endian HEADER_LEN, a dict literal padded with
// spaces and ended by '\n' so that the data starts at a multiple of 64.
#include "spec/types/npy.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
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

// ---- ReadNpyFile: the header first, then the data straight into the
// literal's storage (npy.h).

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/hloref_npy_test_" + name + ".npy";
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

absl::StatusOr<Literal> ReadBytesAsFile(const std::string& name,
                                        const std::string& bytes) {
  const std::string path = TempPath(name);
  WriteBytes(path, bytes);
  absl::StatusOr<Literal> lit = ReadNpyFile(path);
  std::remove(path.c_str());
  return lit;
}

TEST(NpyFileTest, EveryArrayTypeThroughFiles) {
  const std::string path = TempPath("every_type");
  for (PT type : AllArrayTypes()) {
    for (std::vector<int64_t> dims :
         {std::vector<int64_t>{}, {7}, {2, 0, 3}, {3, 5, 2}}) {
      Literal lit = Varied(type, dims);
      ASSERT_TRUE(WriteNpyFile(lit, path).ok());
      absl::StatusOr<Literal> back = ReadNpyFile(path);
      ASSERT_TRUE(back.ok())
          << PrimitiveTypeName(type) << ": " << back.status();
      EXPECT_TRUE(back->BitwiseEquals(lit))
          << PrimitiveTypeName(type) << " " << lit.ToString() << " vs "
          << back->ToString();
    }
  }
  std::remove(path.c_str());
}

TEST(NpyFileTest, LargeLittleEndianDataIsReadExactly) {
  // 1,000,003 s32 values i * 2654435761 (mod 2^32), written by hand as
  // little-endian bytes: the reader must return them unchanged.
  const int64_t n = 1000003;
  std::string data;
  data.reserve(static_cast<size_t>(n) * 4);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t v = static_cast<uint32_t>(i * 2654435761u);
    for (int b = 0; b < 4; ++b) data.push_back(static_cast<char>(v >> (8 * b)));
  }
  absl::StatusOr<Literal> lit = ReadBytesAsFile(
      "large_le",
      MakeNpy("{'descr': '<u4', 'fortran_order': False, 'shape': (1000003,), }",
              data));
  ASSERT_TRUE(lit.ok()) << lit.status();
  ASSERT_EQ(lit->element_count(), n);
  absl::Span<const uint32_t> got = lit->data<uint32_t>();
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], static_cast<uint32_t>(i * 2654435761u)) << i;
  }
}

// Mapped reads (NpyReadOptions::map). Values u32 i * 2654435761 (mod 2^32)
// written by hand as little-endian bytes, as in the test above.
std::string HashedU32Bytes(int64_t n, bool big_endian = false) {
  std::string data;
  data.reserve(static_cast<size_t>(n) * 4);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t v = static_cast<uint32_t>(i * 2654435761u);
    for (int b = 0; b < 4; ++b) {
      data.push_back(static_cast<char>(v >> (8 * (big_endian ? 3 - b : b))));
    }
  }
  return data;
}

void ExpectHashedU32(const Literal& lit, int64_t n) {
  ASSERT_EQ(lit.element_count(), n);
  absl::Span<const uint32_t> got = lit.data<uint32_t>();
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], static_cast<uint32_t>(i * 2654435761u)) << i;
  }
}

// The file at `path` read (not mapped) under `map`, holding the n hashed
// values.
void ExpectReadNotMapped(const std::string& path, const NpyReadOptions& map,
                         int64_t n) {
  absl::StatusOr<Literal> lit = ReadNpyFile(path, map);
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_FALSE(lit->storage_adopted());
  ExpectHashedU32(*lit, n);
}

TEST(NpyMapTest, LargeArraysAreMappedWithTheSameValues) {
  const int64_t n = 300000;  // 1.2 MB, over the 1 MiB default
  const std::string path = TempPath("mapped");
  WriteBytes(path, MakeNpy("{'descr': '<u4', 'fortran_order': False, "
                           "'shape': (300000,), }",
                           HashedU32Bytes(n)));
  NpyReadOptions map;
  map.map = true;
  absl::StatusOr<Literal> mapped = ReadNpyFile(path, map);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_TRUE(mapped->storage_adopted());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(mapped->raw().data()) % 64, 0u);
  ExpectHashedU32(*mapped, n);
  absl::StatusOr<Literal> read = ReadNpyFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_FALSE(read->storage_adopted());
  EXPECT_TRUE(read->BitwiseEquals(*mapped));
  // A copy is ordinary storage; writes to the mapped literal stay private
  // (the file, read again, is unchanged).
  Literal copy = *mapped;
  EXPECT_FALSE(copy.storage_adopted());
  mapped->mutable_data<uint32_t>()[1] = 7;
  mapped->mutable_data<uint32_t>()[n - 1] = 9;
  EXPECT_EQ(mapped->data<uint32_t>()[1], 7u);
  absl::StatusOr<Literal> again = ReadNpyFile(path, map);
  ASSERT_TRUE(again.ok()) << again.status();
  ExpectHashedU32(*again, n);
  ExpectHashedU32(copy, n);
  // Below min_map_bytes the file is read.
  map.min_map_bytes = n * 4 + 1;
  ExpectReadNotMapped(path, map, n);
  EXPECT_TRUE(CheckMappedNpyFiles().ok());
  std::remove(path.c_str());
}

TEST(NpyMapTest, DataThatIsNotTheStorageAsItIsIsRead) {
  const int64_t n = 300000;
  NpyReadOptions map;
  map.map = true;
  const std::string path = TempPath("not_mapped");
  // Big-endian: swapped while read.
  WriteBytes(path, MakeNpy("{'descr': '>u4', 'fortran_order': False, "
                           "'shape': (300000,), }",
                           HashedU32Bytes(n, /*big_endian=*/true)));
  ExpectReadNotMapped(path, map, n);
  // Fortran order at rank 2 goes through the staging buffer (transposed;
  // [1, 300000] has the same order either way, which the values show).
  WriteBytes(path, MakeNpy("{'descr': '<u4', 'fortran_order': True, "
                           "'shape': (1, 300000), }",
                           HashedU32Bytes(n)));
  ExpectReadNotMapped(path, map, n);
  // Data at byte 80 (a header padded to 16 bytes, as NumPy before 1.14
  // wrote it): not 64-byte aligned, so read.
  std::string dict =
      "{'descr': '<u4', 'fortran_order': False, "
      "'shape': (300000,), }";
  while ((10 + dict.size() + 1) % 16 != 0 || (10 + dict.size() + 1) % 64 == 0) {
    dict.push_back(' ');
  }
  dict.push_back('\n');
  std::string npy("\x93NUMPY\x01\x00", 8);
  npy.push_back(static_cast<char>(dict.size() & 0xFF));
  npy.push_back(static_cast<char>(dict.size() >> 8));
  npy += dict;
  ASSERT_NE(npy.size() % 64, 0u);
  WriteBytes(path, npy + HashedU32Bytes(n));
  ExpectReadNotMapped(path, map, n);
  EXPECT_TRUE(CheckMappedNpyFiles().ok());
  std::remove(path.c_str());
}

TEST(NpyMapTest, AFileThatShrinksWhileMappedIsReportedNotACrash) {
  // 2 MiB of 0x01 bytes mapped, then cut to its first data page by
  // "another process" (truncate): reading past the cut raises SIGBUS, which
  // the guard turns into zeros and a report naming the file.
  const int64_t n = 512 * 1024;
  const std::string path = TempPath("shrinks");
  const std::string dict =
      "{'descr': '<u4', 'fortran_order': False, 'shape': (524288,), }";
  const int64_t offset = static_cast<int64_t>(MakeNpy(dict, "").size());
  WriteBytes(path,
             MakeNpy(dict, std::string(static_cast<size_t>(n) * 4, '\x01')));
  NpyReadOptions map;
  map.map = true;
  absl::StatusOr<Literal> lit = ReadNpyFile(path, map);
  ASSERT_TRUE(lit.ok()) << lit.status();
  ASSERT_TRUE(lit->storage_adopted());
  const long page = ::sysconf(_SC_PAGESIZE);
  ASSERT_GT(page, 64);
  // The file's first page holds page - offset bytes of the data.
  ASSERT_EQ(::truncate(path.c_str(), page), 0);
  const int64_t kept = (page - offset) / 4;
  absl::Span<const uint32_t> data = lit->data<uint32_t>();
  int64_t ones = 0, zeros = 0;
  for (int64_t i = 0; i < n; ++i) {
    ones += data[i] == 0x01010101u;
    zeros += data[i] == 0;
  }
  EXPECT_EQ(ones, kept);
  EXPECT_EQ(zeros, n - kept);
  absl::Status status = CheckMappedNpyFiles();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_THAT(status.message(), HasSubstr("shrank while mapped"));
  // Reported once; the literal stays readable and is freed normally.
  EXPECT_TRUE(CheckMappedNpyFiles().ok());
  EXPECT_EQ(lit->data<uint32_t>()[n - 1], 0u);
  lit = Literal();
  EXPECT_TRUE(CheckMappedNpyFiles().ok());
  std::remove(path.c_str());
}

TEST(NpyFileTest, BigEndianEveryWidth) {
  // Big-endian bytes written by hand (most significant byte first).
  auto big = [](uint64_t v, int width) {
    std::string s;
    for (int b = width - 1; b >= 0; --b) {
      s.push_back(static_cast<char>(v >> (8 * b)));
    }
    return s;
  };
  // >i2: i * 37 - 18000 for i in [0, 1000) (inside s16), two's complement.
  std::string i2;
  for (int i = 0; i < 1000; ++i)
    i2 += big(static_cast<uint16_t>(i * 37 - 18000), 2);
  absl::StatusOr<Literal> a = ReadBytesAsFile(
      "be_i2",
      MakeNpy("{'descr': '>i2', 'fortran_order': False, 'shape': (1000,), }",
              i2));
  ASSERT_TRUE(a.ok()) << a.status();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a->GetAsInt64(i), i * 37 - 18000);
  // >f8: 1.0 = 0x3FF0000000000000, -2.5 = 0xC004000000000000.
  absl::StatusOr<Literal> d = ReadBytesAsFile(
      "be_f8",
      MakeNpy("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }",
              big(0x3FF0000000000000ull, 8) + big(0xC004000000000000ull, 8)));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->ToStringWithoutShape(), "{1, -2.5}");
  // >c16: each 8-byte part swapped on its own: (1, -2.5).
  absl::StatusOr<Literal> c = ReadBytesAsFile(
      "be_c16",
      MakeNpy("{'descr': '>c16', 'fortran_order': False, 'shape': (), }",
              big(0x3FF0000000000000ull, 8) + big(0xC004000000000000ull, 8)));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->ToStringWithoutShape(), "(1, -2.5)");
  // Structured bf16, big-endian: 0x3F80 (1.0) and 0xC040 (-3.0).
  absl::StatusOr<Literal> b = ReadBytesAsFile(
      "be_bf16", MakeNpy("{'descr': [('bf16', '>u2')], 'fortran_order': False, "
                         "'shape': (2,), }",
                         big(0x3F80, 2) + big(0xC040, 2)));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->GetRawBits(0), 0x3F80u);
  EXPECT_EQ(b->GetRawBits(1), 0xC040u);
  // '|u1' and '>u1' have nothing to swap.
  absl::StatusOr<Literal> u = ReadBytesAsFile(
      "be_u1",
      MakeNpy("{'descr': '>u1', 'fortran_order': False, 'shape': (2,), }",
              Bytes({0x12, 0x34})));
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->ToStringWithoutShape(), "{18, 52}");
}

TEST(NpyFileTest, FortranOrder) {
  // Rank 3 [2,3,4]: column-major position k = i + 2j + 6l holds the
  // element (i, j, l), whose row-major number is 12i + 4j + l.
  std::string data;
  for (int l = 0; l < 4; ++l) {
    for (int j = 0; j < 3; ++j) {
      for (int i = 0; i < 2; ++i) {
        const int v = 12 * i + 4 * j + l;
        data.push_back(static_cast<char>(v));
        data.push_back(0);
      }
    }
  }
  absl::StatusOr<Literal> lit = ReadBytesAsFile(
      "fortran_u2",
      MakeNpy("{'descr': '<u2', 'fortran_order': True, 'shape': (2, 3, 4), }",
              data));
  ASSERT_TRUE(lit.ok()) << lit.status();
  for (int64_t k = 0; k < 24; ++k) EXPECT_EQ(lit->GetAsInt64(k), k);
  // Fortran order and big-endian together: the 2x2 s32 {{1, 2}, {3, 4}}
  // column-major is 1 3 2 4.
  absl::StatusOr<Literal> both = ReadBytesAsFile(
      "fortran_be",
      MakeNpy("{'descr': '>i4', 'fortran_order': True, 'shape': (2, 2), }",
              Bytes({0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 4})));
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->ToStringWithoutShape(), "{ { 1, 2 }, { 3, 4 } }");
  // Rank 1 and empty arrays are the same in both orders.
  absl::StatusOr<Literal> r1 = ReadBytesAsFile(
      "fortran_r1",
      MakeNpy("{'descr': '|i1', 'fortran_order': True, 'shape': (3,), }",
              Bytes({5, 6, 0xF9})));
  ASSERT_TRUE(r1.ok()) << r1.status();
  EXPECT_EQ(r1->ToStringWithoutShape(), "{5, 6, -7}");
  absl::StatusOr<Literal> empty = ReadBytesAsFile(
      "fortran_empty",
      MakeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 0), }",
              ""));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->element_count(), 0);
}

TEST(NpyFileTest, PredAndSubByteChecksInFiles) {
  absl::StatusOr<Literal> pred = ReadBytesAsFile(
      "pred",
      MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
              Bytes({0, 2, 1})));
  ASSERT_TRUE(pred.ok()) << pred.status();
  EXPECT_EQ(pred->raw()[1], 1);  // any non-zero byte is true, stored as 1
  absl::StatusOr<Literal> s4 = ReadBytesAsFile(
      "s4", MakeNpy("{'descr': [('s4', '|i1')], 'fortran_order': False, "
                    "'shape': (3,), }",
                    Bytes({7, 0xF8, 0xF7})));  // 7, -8, -9: -9 is not an s4
  EXPECT_EQ(s4.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s4.status().message(), HasSubstr(TempPath("s4")));
  EXPECT_THAT(s4.status().message(), HasSubstr("element 2 holds -9"));
}

TEST(NpyFileTest, TruncatedAndOversizedFiles) {
  const std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }";
  const std::string full = MakeNpy(dict, std::string(24, '\x01'));
  const std::string path = TempPath("truncated");
  struct Case {
    size_t size;
    std::string message;
  } cases[] = {
      {0, "bad magic"},
      {5, "bad magic"},
      {9, "the header length is missing"},
      {40, "truncated: the header is"},
      {full.size() - 1,
       "truncated data: shape (3, 2) of 4-byte elements needs 24 bytes of "
       "data, the file has 23"},
      {full.size() - 24, "the file has 0"},
  };
  for (const Case& c : cases) {
    WriteBytes(path, full.substr(0, c.size));
    absl::StatusOr<Literal> lit = ReadNpyFile(path);
    EXPECT_EQ(lit.status().code(), absl::StatusCode::kInvalidArgument)
        << c.size;
    EXPECT_THAT(lit.status().message(), HasSubstr(path + ": .npy: ")) << c.size;
    EXPECT_THAT(lit.status().message(), HasSubstr(c.message)) << c.size;
    // The header reader refuses the same files.
    EXPECT_THAT(ReadNpyHeader(path).status().message(), HasSubstr(c.message));
  }
  WriteBytes(path, full + "x");
  EXPECT_THAT(ReadNpyFile(path).status().message(),
              HasSubstr("size mismatch: shape (3, 2) of 4-byte elements "
                        "needs 24 bytes of data, the file has 25"));
  // A header describing an enormous array is refused from the file's
  // size, before anything is allocated.
  WriteBytes(path, MakeNpy("{'descr': '<f8', 'fortran_order': False, "
                           "'shape': (1000000, 1000000), }",
                           std::string(8, '\0')));
  EXPECT_THAT(ReadNpyFile(path).status().message(),
              HasSubstr("needs 8000000000000 bytes of data, the file has 8"));
  std::remove(path.c_str());
}

TEST(NpyFileTest, DtypeErrorsNameTheFile) {
  const std::string path = TempPath("dtype");
  // A structured bf16 field stored in 4 bytes, and a dtype hloref has no
  // type for ('<f16', float128): refused from the header, file named.
  WriteBytes(path, MakeNpy("{'descr': [('bf16', '<u4')], "
                           "'fortran_order': False, 'shape': (1,), }",
                           std::string(4, '\0')));
  absl::Status s = ReadNpyFile(path).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(path + ": .npy: "));
  EXPECT_THAT(s.message(), HasSubstr("field 'bf16' has dtype '<u4', expected "
                                     "an integer of 2 byte(s)"));
  WriteBytes(path, MakeNpy("{'descr': '<f16', 'fortran_order': False, "
                           "'shape': (1,), }",
                           std::string(16, '\0')));
  EXPECT_THAT(ReadNpyHeader(path).status().message(),
              HasSubstr("unsupported dtype descr '<f16'"));
  std::remove(path.c_str());
}

TEST(NpyFileTest, NotARegularFile) {
  const std::string dir = ::testing::TempDir();
  absl::StatusOr<Literal> lit = ReadNpyFile(dir);
  EXPECT_EQ(lit.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(lit.status().message(), HasSubstr("not a regular file"));
}

TEST(NpyFileTest, HeaderOnly) {
  const std::string path = TempPath("header_only");
  WriteBytes(path,
             MakeNpy("{'descr': [('bf16', '<u2')], 'fortran_order': True, "
                     "'shape': (2, 3), }",
                     std::string(12, '\0')));
  absl::StatusOr<NpyArrayInfo> info = ReadNpyHeader(path);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->type, PT::kBF16);
  EXPECT_EQ(info->dims, (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(info->fortran_order);
  EXPECT_FALSE(info->big_endian);
  EXPECT_EQ(info->descr, "[('bf16', '<u2')]");
  WriteBytes(path, MakeNpy("{'descr': '>f4', 'fortran_order': False, "
                           "'shape': (), }",
                           std::string(4, '\0')));
  info = ReadNpyHeader(path);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->type, PT::kF32);
  EXPECT_TRUE(info->dims.empty());
  EXPECT_TRUE(info->big_endian);
  EXPECT_EQ(info->descr, ">f4");
  std::remove(path.c_str());
  EXPECT_EQ(ReadNpyHeader(path).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace hloref
