// NumPy .npy reading and writing (format versions 1.0 to 3.0, see
// numpy/lib/format.py's specification): a 6-byte magic "\x93NUMPY", a
// 2-byte version, a little-endian header length (2 bytes in 1.0, 4 bytes
// in 2.0/3.0), a Python dict literal header padded with spaces and ended by
// '\n' so the data starts at a multiple of 64 bytes, then the raw data.
#include "spec/types/npy.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spec/types/shape.h"
#include "spec/util/status_macros.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "npy.cc assumes a little-endian host (Literal storage is host "
              "order and .npy files are written little-endian)");

namespace hloref {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;

absl::Status NpyError(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(".npy: ", what));
}

// ---------------------------------------------------------------------------
// dtype mapping (npy.h).

// The NumPy dtype string of a type NumPy has natively; empty otherwise.
std::string NativeDescr(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kPred:
      return "|b1";
    case PrimitiveType::kS8:
      return "|i1";
    case PrimitiveType::kS16:
      return "<i2";
    case PrimitiveType::kS32:
      return "<i4";
    case PrimitiveType::kS64:
      return "<i8";
    case PrimitiveType::kU8:
      return "|u1";
    case PrimitiveType::kU16:
      return "<u2";
    case PrimitiveType::kU32:
      return "<u4";
    case PrimitiveType::kU64:
      return "<u8";
    case PrimitiveType::kF16:
      return "<f2";
    case PrimitiveType::kF32:
      return "<f4";
    case PrimitiveType::kF64:
      return "<f8";
    case PrimitiveType::kC64:
      return "<c8";
    case PrimitiveType::kC128:
      return "<c16";
    default:
      return "";
  }
}

// The field dtype of the one-field structured dtype used for the types
// NumPy lacks: the storage bits as an integer.
std::string StructuredFieldDescr(PrimitiveType type) {
  if (type == PrimitiveType::kToken) return "|u1";
  if (type == PrimitiveType::kBF16) return "<u2";
  if (IsSignedInt(type)) return "|i1";  // s1, s2, s4: the value
  return "|u1";  // u1, u2, u4, every f8/f6/f4: the value or encoding
}

std::string ShapeRepr(absl::Span<const int64_t> dims) {
  if (dims.empty()) return "()";
  if (dims.size() == 1) return absl::StrCat("(", dims[0], ",)");
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

// ---------------------------------------------------------------------------
// A parser for the Python literal subset .npy headers use: dicts, lists,
// tuples, strings, non-negative integers, True/False.

struct PyValue {
  enum class Kind { kString, kInt, kBool, kTuple, kList, kDict };
  Kind kind = Kind::kInt;
  std::string str;
  int64_t integer = 0;
  bool boolean = false;
  // Tuple and list elements; a dict's values, with their keys in `keys`
  // (a vector of std::pair<std::string, PyValue> would need PyValue
  // complete here: clang with libstdc++ refuses it).
  std::vector<PyValue> items;
  std::vector<std::string> keys;  // dict
};

class HeaderParser {
 public:
  explicit HeaderParser(absl::string_view text) : text_(text) {}

  absl::StatusOr<PyValue> ParseAll() {
    HLOREF_ASSIGN_OR_RETURN(PyValue v, ParseValue(0));
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the dict");
    return v;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return NpyError(absl::StrCat("bad header: ", what, " at offset ", pos_,
                                 " of header \"", absl::CEscape(text_), "\""));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  absl::StatusOr<PyValue> ParseValue(int depth) {
    if (depth > 16) return Error("nesting too deep");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("unexpected end");
    const char c = text_[pos_];
    if (c == '\'' || c == '"') return ParseString();
    if (c == '{') return ParseDict(depth);
    if (c == '(') return ParseSequence(depth, ')', PyValue::Kind::kTuple);
    if (c == '[') return ParseSequence(depth, ']', PyValue::Kind::kList);
    if (absl::ascii_isdigit(c)) return ParseInt();
    for (absl::string_view word : {"True", "False"}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        PyValue v;
        v.kind = PyValue::Kind::kBool;
        v.boolean = word == "True";
        return v;
      }
    }
    return Error(absl::StrCat("unexpected character '",
                              absl::CEscape(text_.substr(pos_, 1)), "'"));
  }

  absl::StatusOr<PyValue> ParseString() {
    const char quote = text_[pos_++];
    PyValue v;
    v.kind = PyValue::Kind::kString;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return Error("escapes in strings");
      v.str.push_back(text_[pos_++]);
    }
    if (pos_ >= text_.size()) return Error("unterminated string");
    ++pos_;
    return v;
  }

  absl::StatusOr<PyValue> ParseInt() {
    PyValue v;
    v.kind = PyValue::Kind::kInt;
    while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) {
      const int digit = text_[pos_] - '0';
      if (v.integer > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        return Error("integer does not fit in 64 bits");
      }
      v.integer = v.integer * 10 + digit;
      ++pos_;
    }
    // Python 2 era files write longs as `3L`.
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;
    return v;
  }

  absl::StatusOr<PyValue> ParseSequence(int depth, char close,
                                        PyValue::Kind kind) {
    ++pos_;  // opening bracket
    PyValue v;
    v.kind = kind;
    while (!Consume(close)) {
      HLOREF_ASSIGN_OR_RETURN(PyValue item, ParseValue(depth + 1));
      v.items.push_back(std::move(item));
      if (Consume(close)) break;
      if (!Consume(',')) return Error("expected ',' in a tuple or list");
    }
    return v;
  }

  absl::StatusOr<PyValue> ParseDict(int depth) {
    ++pos_;  // '{'
    PyValue v;
    v.kind = PyValue::Kind::kDict;
    while (!Consume('}')) {
      HLOREF_ASSIGN_OR_RETURN(PyValue key, ParseValue(depth + 1));
      if (key.kind != PyValue::Kind::kString) {
        return Error("dict keys must be strings");
      }
      if (!Consume(':')) return Error("expected ':' after a dict key");
      HLOREF_ASSIGN_OR_RETURN(PyValue value, ParseValue(depth + 1));
      v.keys.push_back(std::move(key.str));
      v.items.push_back(std::move(value));
      if (Consume('}')) break;
      if (!Consume(',')) return Error("expected ',' in the dict");
    }
    return v;
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------
// Interpreting the header.

struct Dtype {
  PrimitiveType type = PrimitiveType::kInvalid;
  int item_size = 0;        // bytes per element in the file
  bool big_endian = false;  // bytes need swapping
  int swap_unit = 0;        // bytes swapped as one unit (half for complex)
  std::string descr;        // as the header names it, for messages
};

struct TypeStr {
  char byte_order = '|';
  char kind = 0;
  int size = 0;
};

absl::StatusOr<TypeStr> ParseTypeStr(const std::string& s) {
  TypeStr t;
  size_t i = 0;
  if (!s.empty() &&
      (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
    t.byte_order = s[0];
    i = 1;
  }
  if (i >= s.size()) {
    return NpyError(absl::StrCat("unsupported dtype descr '", s, "'"));
  }
  t.kind = s[i++];
  if (i >= s.size() || i + 3 < s.size()) {
    return NpyError(absl::StrCat("unsupported dtype descr '", s, "'"));
  }
  for (; i < s.size(); ++i) {
    if (!absl::ascii_isdigit(s[i])) {
      return NpyError(absl::StrCat("unsupported dtype descr '", s, "'"));
    }
    t.size = t.size * 10 + (s[i] - '0');
  }
  return t;
}

absl::StatusOr<Dtype> NativeDtype(const std::string& descr) {
  HLOREF_ASSIGN_OR_RETURN(TypeStr t, ParseTypeStr(descr));
  Dtype d;
  d.item_size = t.size;
  d.big_endian = t.byte_order == '>';
  d.swap_unit = t.size;
  d.descr = descr;
  const std::pair<std::string, PrimitiveType> table[] = {
      {"b1", PrimitiveType::kPred}, {"i1", PrimitiveType::kS8},
      {"i2", PrimitiveType::kS16},  {"i4", PrimitiveType::kS32},
      {"i8", PrimitiveType::kS64},  {"u1", PrimitiveType::kU8},
      {"u2", PrimitiveType::kU16},  {"u4", PrimitiveType::kU32},
      {"u8", PrimitiveType::kU64},  {"f2", PrimitiveType::kF16},
      {"f4", PrimitiveType::kF32},  {"f8", PrimitiveType::kF64},
      {"c8", PrimitiveType::kC64},  {"c16", PrimitiveType::kC128},
  };
  const std::string key = absl::StrCat(std::string(1, t.kind), t.size);
  for (const auto& [name, type] : table) {
    if (name == key) d.type = type;
  }
  if (d.type == PrimitiveType::kInvalid) {
    return NpyError(absl::StrCat(
        "unsupported dtype descr '", descr,
        "' (hloref reads bool, int8..int64, uint8..uint64, float16/32/64, "
        "complex64/128 and its own one-field structured dtypes)"));
  }
  if (IsComplex(d.type)) d.swap_unit = t.size / 2;
  return d;
}

absl::StatusOr<Dtype> StructuredDtype(const PyValue& list) {
  auto bad = [&](absl::string_view why) {
    return NpyError(absl::StrCat("unsupported structured dtype: ", why,
                                 " (hloref expects [('<type>', '<int>')])"));
  };
  if (list.items.size() != 1) {
    return bad(absl::StrCat(list.items.size(), " fields"));
  }
  const PyValue& field = list.items[0];
  if (field.kind != PyValue::Kind::kTuple || field.items.size() != 2 ||
      field.items[0].kind != PyValue::Kind::kString ||
      field.items[1].kind != PyValue::Kind::kString) {
    return bad("the field is not a (name, dtype) pair");
  }
  const std::string& name = field.items[0].str;
  absl::StatusOr<PrimitiveType> type = ParsePrimitiveType(name);
  if (!type.ok() || (!NativeDescr(*type).empty()) ||
      (!IsArrayType(*type) && *type != PrimitiveType::kToken)) {
    return bad(absl::StrCat("field name '", name,
                            "' is not an hloref type stored this way"));
  }
  HLOREF_ASSIGN_OR_RETURN(TypeStr t, ParseTypeStr(field.items[1].str));
  const int expected_size =
      *type == PrimitiveType::kToken ? 1 : StorageBytes(*type);
  if ((t.kind != 'u' && t.kind != 'i') || t.size != expected_size) {
    return bad(absl::StrCat("field '", name, "' has dtype '",
                            field.items[1].str, "', expected an integer of ",
                            expected_size, " byte(s)"));
  }
  Dtype d;
  d.type = *type;
  d.item_size = t.size;
  d.big_endian = t.byte_order == '>';
  d.swap_unit = t.size;
  d.descr = absl::StrCat("[('", name, "', '", field.items[1].str, "')]");
  return d;
}

struct Header {
  Dtype dtype;
  bool fortran_order = false;
  std::vector<int64_t> dims;
};

absl::StatusOr<Header> InterpretHeader(const PyValue& dict) {
  if (dict.kind != PyValue::Kind::kDict) {
    return NpyError("bad header: not a dict");
  }
  const PyValue* descr = nullptr;
  const PyValue* fortran = nullptr;
  const PyValue* shape = nullptr;
  for (size_t i = 0; i < dict.keys.size(); ++i) {
    const std::string& key = dict.keys[i];
    const PyValue& value = dict.items[i];
    if (key == "descr") {
      descr = &value;
    } else if (key == "fortran_order") {
      fortran = &value;
    } else if (key == "shape") {
      shape = &value;
    } else {
      return NpyError(absl::StrCat("bad header: unexpected key '", key, "'"));
    }
  }
  if (descr == nullptr || fortran == nullptr || shape == nullptr) {
    return NpyError(
        "bad header: it needs the keys 'descr', 'fortran_order' and 'shape'");
  }
  Header h;
  if (descr->kind == PyValue::Kind::kString) {
    HLOREF_ASSIGN_OR_RETURN(h.dtype, NativeDtype(descr->str));
  } else if (descr->kind == PyValue::Kind::kList) {
    HLOREF_ASSIGN_OR_RETURN(h.dtype, StructuredDtype(*descr));
  } else {
    return NpyError("bad header: 'descr' is neither a string nor a list");
  }
  if (fortran->kind != PyValue::Kind::kBool) {
    return NpyError("bad header: 'fortran_order' is not True or False");
  }
  h.fortran_order = fortran->boolean;
  if (shape->kind != PyValue::Kind::kTuple) {
    return NpyError("bad header: 'shape' is not a tuple");
  }
  for (const PyValue& d : shape->items) {
    if (d.kind != PyValue::Kind::kInt) {
      return NpyError(
          "bad header: 'shape' holds something other than "
          "non-negative integers");
    }
    h.dims.push_back(d.integer);
  }
  return h;
}

// Checks one stored element (already in host order) and normalises it.
absl::Status CheckElement(PrimitiveType type, int64_t linear, uint8_t* p) {
  if (type == PrimitiveType::kPred) {
    *p = *p != 0 ? 1 : 0;  // NumPy reads any non-zero byte as True
    return absl::OkStatus();
  }
  const int width = BitWidth(type);
  if (width >= 8) return absl::OkStatus();
  bool ok;
  int64_t value;
  if (IsSignedInt(type)) {
    value = static_cast<int8_t>(*p);
    ok = value >= -(int64_t{1} << (width - 1)) &&
         value < (int64_t{1} << (width - 1));
  } else {
    value = *p;
    ok = value < (int64_t{1} << width);
  }
  if (!ok) {
    return NpyError(absl::StrCat(
        "element ", linear, " holds ", value, ", which is not a valid ",
        PrimitiveTypeName(type), IsFloat(type) ? " encoding" : " value"));
  }
  return absl::OkStatus();
}

uint32_t ReadLe32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
         uint32_t{p[3]} << 24;
}

}  // namespace

absl::StatusOr<std::string> NpyBytesFromLiteral(const Literal& literal) {
  const Shape& shape = literal.shape();
  std::string descr;
  std::vector<int64_t> dims;
  std::string data;
  if (shape.IsToken()) {
    descr = "[('token', '|u1')]";
    data.assign(1, '\0');
  } else if (shape.IsArray()) {
    if (literal.is_elided()) {
      return NpyError(absl::StrCat("cannot write the elided literal of shape ",
                                   shape.ToString(),
                                   ": its values are unknown"));
    }
    const PrimitiveType type = shape.element_type();
    descr = NativeDescr(type);
    if (descr.empty()) {
      descr = absl::StrCat("[('", PrimitiveTypeName(type), "', '",
                           StructuredFieldDescr(type), "')]");
    } else {
      descr = absl::StrCat("'", descr, "'");
    }
    dims.assign(shape.dimensions().begin(), shape.dimensions().end());
    absl::Span<const uint8_t> raw = literal.raw();
    data.assign(reinterpret_cast<const char*>(raw.data()), raw.size());
  } else {
    return NpyError(absl::StrCat("cannot write a literal of shape ",
                                 shape.ToString(),
                                 " (only arrays and tokens have a .npy form)"));
  }
  std::string header = absl::StrCat(
      "{'descr': ", descr,
      ", 'fortran_order': False, 'shape': ", ShapeRepr(dims), ", }");
  // Version 1.0 has a 2-byte header length; 2.0 a 4-byte one.
  size_t preamble = kMagicLen + 2 + 2;
  int major = 1;
  auto padded_length = [&] {
    const size_t unpadded = preamble + header.size() + 1;  // + '\n'
    return header.size() + 1 + (kAlign - unpadded % kAlign) % kAlign;
  };
  if (padded_length() > 0xFFFF) {
    major = 2;
    preamble = kMagicLen + 2 + 4;
  }
  const size_t header_len = padded_length();
  header.append(header_len - header.size() - 1, ' ');
  header.push_back('\n');

  std::string out(kMagic, kMagicLen);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) {
    out.push_back(static_cast<char>((header_len >> (8 * i)) & 0xFF));
  }
  out += header;
  out += data;
  return out;
}

namespace {

// The fixed part before the header text: magic, version, header length.
struct Preamble {
  size_t size = 0;        // bytes before the header text
  size_t header_len = 0;  // bytes of header text
};
// The longest preamble (versions 2.0 and 3.0).
constexpr size_t kMaxPreamble = kMagicLen + 2 + 4;

// Reads the preamble from the first min(kMaxPreamble, file size) bytes.
absl::StatusOr<Preamble> ParsePreamble(absl::string_view head) {
  const auto* u = reinterpret_cast<const uint8_t*>(head.data());
  if (head.size() < kMagicLen + 2 ||
      head.substr(0, kMagicLen) != absl::string_view(kMagic, kMagicLen)) {
    return NpyError("bad magic: the data does not start with \"\\x93NUMPY\"");
  }
  const int major = u[kMagicLen];
  const int minor = u[kMagicLen + 1];
  if (major < 1 || major > 3 || minor != 0) {
    return NpyError(absl::StrCat("unsupported format version ", major, ".",
                                 minor, " (hloref reads 1.0, 2.0 and 3.0)"));
  }
  Preamble p;
  p.size = kMagicLen + 2 + (major == 1 ? 2 : 4);
  if (head.size() < p.size) {
    return NpyError("truncated: the header length is missing");
  }
  p.header_len =
      major == 1 ? (size_t{u[8]} | size_t{u[9]} << 8) : ReadLe32(u + 8);
  return p;
}

absl::Status TruncatedHeader(const Preamble& p, size_t available) {
  return NpyError(absl::StrCat("truncated: the header is ", p.header_len,
                               " bytes long but only ", available, " follow"));
}

// The header and what its data takes.
struct ArrayHeader {
  Header h;
  int64_t count = 0;       // elements
  int64_t data_bytes = 0;  // bytes of data the file must hold
};

absl::StatusOr<ArrayHeader> ParseArrayHeader(absl::string_view text) {
  HLOREF_ASSIGN_OR_RETURN(PyValue dict, HeaderParser(text).ParseAll());
  ArrayHeader a;
  HLOREF_ASSIGN_OR_RETURN(a.h, InterpretHeader(dict));
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : a.h.dims) overflow |= __builtin_mul_overflow(n, d, &n);
  if (std::find(a.h.dims.begin(), a.h.dims.end(), 0) != a.h.dims.end()) {
    n = 0;
    overflow = false;
  }
  if (overflow ||
      __builtin_mul_overflow(n, int64_t{a.h.dtype.item_size}, &a.data_bytes)) {
    return NpyError(absl::StrCat("shape ", ShapeRepr(a.h.dims),
                                 " is too large to address"));
  }
  a.count = n;
  return a;
}

// The data the file holds must be exactly what the header describes.
absl::Status CheckDataSize(const ArrayHeader& a, int64_t available) {
  if (available == a.data_bytes) {
    if (a.h.dtype.type == PrimitiveType::kToken && !a.h.dims.empty()) {
      return NpyError(
          absl::StrCat("a token has shape (), not ", ShapeRepr(a.h.dims)));
    }
    return absl::OkStatus();
  }
  return NpyError(absl::StrCat(
      available < a.data_bytes ? "truncated data: " : "size mismatch: ",
      "shape ", ShapeRepr(a.h.dims), " of ", a.h.dtype.item_size,
      "-byte elements needs ", a.data_bytes, " bytes of data, the file has ",
      available));
}

// Fortran order: the file's k-th element is the k-th in column-major
// order, i.e. the first index varies fastest. Walks that index as an
// odometer, keeping the row-major byte offset it designates.
void ScatterColumnMajor(absl::Span<const int64_t> dims, int64_t count, int item,
                        const uint8_t* src, uint8_t* out) {
  const size_t rank = dims.size();
  std::vector<int64_t> stride(rank);  // row-major, in bytes
  int64_t s = item;
  for (size_t d = rank; d-- > 0;) {
    stride[d] = s;
    s *= dims[d];
  }
  std::vector<int64_t> index(rank, 0);
  int64_t dest = 0;
  for (int64_t k = 0; k < count; ++k) {
    std::memcpy(out + dest, src + k * item, static_cast<size_t>(item));
    for (size_t d = 0; d < rank; ++d) {
      dest += stride[d];
      if (++index[d] < dims[d]) break;
      dest -= stride[d] * dims[d];
      index[d] = 0;
    }
  }
}

// Reverses every `unit`-byte group of `bytes` bytes (big-endian to host).
void SwapBytes(uint8_t* p, size_t bytes, int unit) {
  switch (unit) {
    case 1:
      return;
    case 2:
      for (size_t i = 0; i + 2 <= bytes; i += 2) {
        uint16_t v;
        std::memcpy(&v, p + i, 2);
        v = __builtin_bswap16(v);
        std::memcpy(p + i, &v, 2);
      }
      return;
    case 4:
      for (size_t i = 0; i + 4 <= bytes; i += 4) {
        uint32_t v;
        std::memcpy(&v, p + i, 4);
        v = __builtin_bswap32(v);
        std::memcpy(p + i, &v, 4);
      }
      return;
    case 8:
      for (size_t i = 0; i + 8 <= bytes; i += 8) {
        uint64_t v;
        std::memcpy(&v, p + i, 8);
        v = __builtin_bswap64(v);
        std::memcpy(p + i, &v, 8);
      }
      return;
    default:
      for (size_t i = 0; i + unit <= bytes; i += unit) {
        std::reverse(p + i, p + i + unit);
      }
  }
}

// Puts the file's data `src` (a.data_bytes bytes, file order) into
// `lit`'s storage in row-major host order. `src` may be the storage itself
// unless the array is Fortran-ordered (then the elements move). Only pred
// and sub-byte types are looked at element by element; every other type is
// at most one memcpy and, for big-endian data, one byte swap.
absl::Status PlaceData(const ArrayHeader& a, const uint8_t* src, Literal& lit) {
  const Header& h = a.h;
  uint8_t* out = lit.mutable_raw().data();
  const size_t bytes = static_cast<size_t>(a.data_bytes);
  HLOREF_CHECK(lit.raw().size() == bytes);
  if (h.fortran_order && h.dims.size() >= 2 && a.count > 0) {
    HLOREF_CHECK(src != out);
    ScatterColumnMajor(h.dims, a.count, h.dtype.item_size, src, out);
  } else if (src != out && bytes != 0) {
    std::memcpy(out, src, bytes);
  }
  if (h.dtype.big_endian) SwapBytes(out, bytes, h.dtype.swap_unit);
  const PrimitiveType type = h.dtype.type;
  if (type == PrimitiveType::kPred || BitWidth(type) < 8) {
    for (int64_t i = 0; i < a.count; ++i) {
      HLOREF_RETURN_IF_ERROR(CheckElement(type, i, out + i));
    }
  }
  return absl::OkStatus();
}

// Whether the data goes through a staging buffer (its elements move).
bool NeedsStaging(const ArrayHeader& a) {
  return a.h.fortran_order && a.h.dims.size() >= 2 && a.count > 0;
}

NpyArrayInfo InfoOf(const ArrayHeader& a) {
  NpyArrayInfo info;
  info.type = a.h.dtype.type;
  info.dims = a.h.dims;
  info.fortran_order = a.h.fortran_order;
  info.big_endian = a.h.dtype.big_endian;
  info.descr = a.h.dtype.descr;
  return info;
}

}  // namespace

absl::StatusOr<Literal> LiteralFromNpyBytes(absl::string_view bytes) {
  HLOREF_ASSIGN_OR_RETURN(Preamble p,
                          ParsePreamble(bytes.substr(0, kMaxPreamble)));
  if (bytes.size() - p.size < p.header_len) {
    return TruncatedHeader(p, bytes.size() - p.size);
  }
  HLOREF_ASSIGN_OR_RETURN(ArrayHeader a,
                          ParseArrayHeader(bytes.substr(p.size, p.header_len)));
  const absl::string_view data = bytes.substr(p.size + p.header_len);
  HLOREF_RETURN_IF_ERROR(CheckDataSize(a, static_cast<int64_t>(data.size())));
  if (a.h.dtype.type == PrimitiveType::kToken) return Literal::Token();
  Literal lit = Literal::Uninitialized(Shape::Array(a.h.dtype.type, a.h.dims));
  HLOREF_RETURN_IF_ERROR(
      PlaceData(a, reinterpret_cast<const uint8_t*>(data.data()), lit));
  return lit;
}

absl::Status WriteNpyFile(const Literal& literal, const std::string& path) {
  absl::StatusOr<std::string> bytes = NpyBytesFromLiteral(literal);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat(path, ": ", bytes.status().message()));
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": cannot open for writing: ", std::strerror(errno)));
  }
  f.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  f.close();
  if (!f) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": write failed: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

namespace {

// An open file descriptor, closed on destruction.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads exactly `n` bytes at `offset` into `dst` (pread, so large reads
// go straight into the destination, no stream buffer in between).
absl::Status ReadExactly(int fd, uint8_t* dst, size_t n, int64_t offset,
                         absl::string_view what) {
  while (n > 0) {
    // Linux transfers at most 0x7ffff000 bytes per call.
    const size_t chunk = std::min<size_t>(n, size_t{1} << 30);
    const ssize_t got = ::pread(fd, dst, chunk, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      return absl::InvalidArgumentError(
          absl::StrCat("read failed at byte ", offset, " (", what,
                       "): ", std::strerror(errno)));
    }
    if (got == 0) {
      return NpyError(absl::StrCat("truncated: the file ended at byte ", offset,
                                   " while reading ", what,
                                   " (did it shrink while being read?)"));
    }
    dst += got;
    offset += got;
    n -= static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

// An open .npy file whose header has been read and checked against its
// size.
struct OpenNpy {
  std::unique_ptr<FileDescriptor> fd;
  ArrayHeader array;
  int64_t data_offset = 0;
};

absl::StatusOr<OpenNpy> OpenNpyFile(const std::string& path) {
  OpenNpy f;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot open: ", std::strerror(errno)));
  }
  f.fd = std::make_unique<FileDescriptor>(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot stat: ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        "not a regular file (.npy arguments are read from files)");
  }
  const int64_t size = st.st_size;
  uint8_t head[kMaxPreamble];
  const size_t head_size =
      static_cast<size_t>(std::min<int64_t>(size, kMaxPreamble));
  HLOREF_RETURN_IF_ERROR(ReadExactly(fd, head, head_size, 0, "the preamble"));
  HLOREF_ASSIGN_OR_RETURN(Preamble p,
                          ParsePreamble(absl::string_view(
                              reinterpret_cast<const char*>(head), head_size)));
  const int64_t after_preamble = size - static_cast<int64_t>(p.size);
  if (after_preamble < static_cast<int64_t>(p.header_len)) {
    return TruncatedHeader(p, static_cast<size_t>(after_preamble));
  }
  std::string text(p.header_len, '\0');
  HLOREF_RETURN_IF_ERROR(
      ReadExactly(fd, reinterpret_cast<uint8_t*>(text.data()), text.size(),
                  static_cast<int64_t>(p.size), "the header"));
  HLOREF_ASSIGN_OR_RETURN(f.array, ParseArrayHeader(text));
  f.data_offset = static_cast<int64_t>(p.size + p.header_len);
  HLOREF_RETURN_IF_ERROR(CheckDataSize(f.array, size - f.data_offset));
  return f;
}

// Mapped data and the SIGBUS guard.
//
// A file mapped MAP_PRIVATE is copy-on-write: the literal may write its
// storage, the file never changes. But a page of the file that another
// process truncates away raises SIGBUS when read. The guard keeps the
// mapped ranges in a fixed table the handler can read without locks; a
// fault inside one maps zero pages over the rest of that range, so the
// access completes, and marks it: CheckMappedNpyFiles then names the file,
// and the caller refuses the run's results. A fault outside every range
// goes to the previous disposition.
constexpr int kGuardSlots = 1024;
struct GuardSlot {
  std::atomic<uintptr_t> begin{0};  // 0: free
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> faulted{false};
};
GuardSlot g_guard[kGuardSlots];
// Under g_guard_mutex: each slot's path, and the files found shrunk whose
// mappings are gone.
std::mutex g_guard_mutex;
std::string g_guard_path[kGuardSlots];
std::vector<std::string> g_shrunk;
struct sigaction g_previous_sigbus;
std::atomic<uintptr_t> g_page_size{4096};

void OnSigbus(int sig, siginfo_t* info, void* context) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (GuardSlot& slot : g_guard) {
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    const uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (begin == 0 || address < begin || address >= end) continue;
    const uintptr_t page =
        address & ~(g_page_size.load(std::memory_order_relaxed) - 1);
    // mmap is a system call: safe in a handler in practice, though POSIX
    // does not list it.
    void* zeros = ::mmap(reinterpret_cast<void*>(page), end - page,
                         PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (zeros == MAP_FAILED) break;
    slot.faulted.store(true, std::memory_order_release);
    return;
  }
  const struct sigaction& previous = g_previous_sigbus;
  if ((previous.sa_flags & SA_SIGINFO) != 0 &&
      previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(sig, info, context);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
    return;
  }
  // The default action: returning re-runs the access, which faults again.
  struct sigaction fallback = {};
  fallback.sa_handler = SIG_DFL;
  ::sigaction(SIGBUS, &fallback, nullptr);
}

bool InstallGuard() {
  static const bool installed = [] {
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page > 0) g_page_size.store(static_cast<uintptr_t>(page));
    struct sigaction action = {};
    action.sa_sigaction = OnSigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    return ::sigaction(SIGBUS, &action, &g_previous_sigbus) == 0;
  }();
  return installed;
}

// A mapping of one .npy file, guarded while it lives.
class MappedNpy final : public LiteralBytes::Owner {
 public:
  // Maps `length` bytes of `fd` from offset 0; null when the mapping or a
  // guard slot is not to be had (the caller reads the file instead).
  static std::unique_ptr<MappedNpy> Map(int fd, size_t length,
                                        const std::string& path) {
    if (length == 0 || !InstallGuard()) return nullptr;
    void* base =
        ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) return nullptr;
    std::unique_ptr<MappedNpy> m(new MappedNpy(base, length));
    const uintptr_t begin = reinterpret_cast<uintptr_t>(base);
    std::lock_guard<std::mutex> lock(g_guard_mutex);
    for (int i = 0; i < kGuardSlots; ++i) {
      if (g_guard[i].begin.load(std::memory_order_relaxed) != 0) continue;
      g_guard_path[i] = path;
      g_guard[i].faulted.store(false, std::memory_order_relaxed);
      g_guard[i].end.store(begin + length, std::memory_order_release);
      g_guard[i].begin.store(begin, std::memory_order_release);
      m->slot_ = i;
      return m;
    }
    return nullptr;  // every slot taken: unmapped by the destructor
  }
  ~MappedNpy() override {
    if (slot_ >= 0) {
      std::lock_guard<std::mutex> lock(g_guard_mutex);
      GuardSlot& slot = g_guard[slot_];
      slot.begin.store(0, std::memory_order_release);
      slot.end.store(0, std::memory_order_release);
      if (slot.faulted.load(std::memory_order_acquire)) {
        g_shrunk.push_back(g_guard_path[slot_]);
      }
      g_guard_path[slot_].clear();
    }
    ::munmap(base_, length_);
  }
  unsigned char* bytes(int64_t offset) const {
    return static_cast<unsigned char*>(base_) + offset;
  }

 private:
  MappedNpy(void* base, size_t length) : base_(base), length_(length) {}
  void* base_;
  size_t length_;
  int slot_ = -1;
};

absl::Status WithPath(const std::string& path, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
}

absl::StatusOr<Literal> ReadOpenNpy(OpenNpy& f, const std::string& path,
                                    const NpyReadOptions& options) {
  const ArrayHeader& a = f.array;
  if (a.h.dtype.type == PrimitiveType::kToken) return Literal::Token();
  // Mapped when the file's bytes are the storage as they are (C order,
  // little-endian) and start on a 64-byte boundary, as NumPy pads them.
  if (options.map && a.data_bytes >= options.min_map_bytes &&
      !NeedsStaging(a) && !a.h.dtype.big_endian && f.data_offset % 64 == 0) {
    const size_t length = static_cast<size_t>(f.data_offset + a.data_bytes);
    if (std::unique_ptr<MappedNpy> m =
            MappedNpy::Map(f.fd->get(), length, path)) {
      unsigned char* data = m->bytes(f.data_offset);
      ::madvise(m->bytes(0), length, MADV_WILLNEED);
      Literal lit = Literal::AdoptStorage(
          Shape::Array(a.h.dtype.type, a.h.dims),
          LiteralBytes::Adopt(data, static_cast<size_t>(a.data_bytes),
                              std::move(m)));
      HLOREF_RETURN_IF_ERROR(PlaceData(a, data, lit));  // checks only
      return lit;
    }
  }
  // The storage is written by the read below: no zero fill first.
  Literal lit = Literal::Uninitialized(Shape::Array(a.h.dtype.type, a.h.dims));
  const size_t bytes = static_cast<size_t>(a.data_bytes);
  std::unique_ptr<uint8_t[]> staging;
  uint8_t* dst = lit.mutable_raw().data();
  if (NeedsStaging(a)) {
    staging.reset(new uint8_t[bytes]);
    dst = staging.get();
  }
  if (bytes != 0) {
    ::posix_fadvise(f.fd->get(), f.data_offset, a.data_bytes,
                    POSIX_FADV_SEQUENTIAL);
    HLOREF_RETURN_IF_ERROR(
        ReadExactly(f.fd->get(), dst, bytes, f.data_offset, "the data"));
  }
  HLOREF_RETURN_IF_ERROR(PlaceData(a, dst, lit));
  return lit;
}

}  // namespace

absl::StatusOr<NpyArrayInfo> ReadNpyHeader(const std::string& path) {
  absl::StatusOr<OpenNpy> f = OpenNpyFile(path);
  if (!f.ok()) return WithPath(path, f.status());
  return InfoOf(f->array);
}

absl::StatusOr<Literal> ReadNpyFile(const std::string& path,
                                    const NpyReadOptions& options) {
  absl::StatusOr<OpenNpy> f = OpenNpyFile(path);
  if (!f.ok()) return WithPath(path, f.status());
  absl::StatusOr<Literal> lit = ReadOpenNpy(*f, path, options);
  if (!lit.ok()) return WithPath(path, lit.status());
  return lit;
}

absl::Status CheckMappedNpyFiles() {
  std::vector<std::string> shrunk;
  {
    std::lock_guard<std::mutex> lock(g_guard_mutex);
    shrunk = std::exchange(g_shrunk, {});
    for (int i = 0; i < kGuardSlots; ++i) {
      if (g_guard[i].begin.load(std::memory_order_acquire) != 0 &&
          g_guard[i].faulted.exchange(false, std::memory_order_acq_rel)) {
        shrunk.push_back(g_guard_path[i]);
      }
    }
  }
  if (shrunk.empty()) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(
      absl::StrJoin(shrunk, ", "),
      ": shrank while mapped as an argument (another process truncated or "
      "rewrote it during the run), so part of its data was read as zeros "
      "and the results are void; keep argument files unchanged while a run "
      "reads them"));
}

}  // namespace hloref
