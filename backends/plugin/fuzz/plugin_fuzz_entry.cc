// The plugin backend's fuzz entry (plugin_fuzz_entry.h).
#include "backends/plugin/fuzz/plugin_fuzz_entry.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/plugin/hloref_plugin.h"
#include "backends/plugin/plugin_host_replies.h"
#include "backends/plugin/plugin_protocol.h"
#include "backends/plugin/plugin_replies.h"
#include "spec/types/primitive_type.h"

namespace hloref {
namespace {

namespace proto = backends::plugin_protocol;
namespace internal = backends::plugin_internal;

constexpr uint64_t kMaxElements = uint64_t{1} << 40;
// The most bytes the fake backs with real memory; a larger size_bytes
// comes with a null data pointer (a plugin cannot hand out more than it
// has).
constexpr uint64_t kMaxDataBytes = uint64_t{1} << 16;

// Reads the input front to back; zeros once it is used up.
class Input {
 public:
  explicit Input(absl::string_view bytes) : bytes_(bytes) {}
  uint8_t U8() {
    return pos_ < bytes_.size() ? static_cast<uint8_t>(bytes_[pos_++]) : 0;
  }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(U8()) << (8 * i);
    return v;
  }
  // A string of 0-31 bytes with no NUL (the ABI's strings are C strings).
  std::string Text() {
    const int n = U8() % 32;
    std::string s;
    for (int i = 0; i < n; ++i) {
      const char c = static_cast<char>(U8());
      s.push_back(c == '\0' ? '?' : c);
    }
    return s;
  }

 private:
  absl::string_view bytes_;
  size_t pos_ = 0;
};

// What the fake's calls released, for the once-each checks.
struct Releases {
  int strings = 0;
  int results = 0;
  const hloref_buffer* results_array = nullptr;
  int64_t results_count = 0;
};
Releases* g_releases = nullptr;

// Everything one hloref_run result owns.
struct FakeResults {
  std::vector<hloref_buffer> buffers;
  std::vector<std::string> type_names;
  std::vector<std::vector<int64_t>> dims;
  std::vector<std::vector<uint8_t>> data;
};

void FakeFreeString(char* s) {
  ++g_releases->strings;
  std::free(s);
}

void FakeFreeResults(hloref_buffer* results, int64_t num_results) {
  ++g_releases->results;
  g_releases->results_array = results;
  g_releases->results_count = num_results;
}

char* NewMessage(const std::string& text) {
  char* m = static_cast<char*>(std::malloc(text.size() + 1));
  std::memcpy(m, text.c_str(), text.size() + 1);
  return m;
}

// A status: mostly the five of the ABI, sometimes any number.
hloref_status PickStatus(Input& in) {
  const uint8_t b = in.U8();
  switch (b % 8) {
    case 0:
    case 1:
    case 2:
      return HLOREF_OK;
    case 3:
      return HLOREF_INVALID_ARGUMENT;
    case 4:
      return HLOREF_FAILED_PRECONDITION;
    case 5:
      return HLOREF_UNIMPLEMENTED;
    case 6:
      return HLOREF_INTERNAL;
    default:
      return static_cast<hloref_status>(b);
  }
}

// None, or a message from the input (possibly empty).
char* PickMessage(Input& in) {
  if (in.U8() % 2 == 0) return nullptr;
  return NewMessage(in.Text());
}

const char* const kTypeNames[] = {
    "pred",      "s1",       "s2",       "s4",       "s8",     "s16",
    "s32",       "s64",      "u1",       "u2",       "u4",     "u8",
    "u16",       "u32",      "u64",      "f16",      "bf16",   "f32",
    "f64",       "f8e5m2",   "f8e4m3fn", "f8e4m3",   "f8e3m4", "f8e4m3b11fnuz",
    "f8e8m0fnu", "f4e2m1fn", "f6e3m2fn", "f6e2m3fn", "c64",    "c128",
    "token",     "tuple",    "opaque",   "",         "F32",    "f32 ",
};
constexpr int kNumTypeNames = sizeof(kTypeNames) / sizeof(kTypeNames[0]);

int64_t PickRank(Input& in) {
  const uint8_t b = in.U8();
  if (b % 16 < 12) return b % 6;
  const int64_t odd[] = {-1, 64, 65, std::numeric_limits<int64_t>::min()};
  return odd[b % 4];
}

int64_t PickDim(Input& in) {
  const uint8_t b = in.U8();
  if (b % 16 < 13) return b % 4;
  const int64_t odd[] = {-1,
                         int64_t{1} << 40,
                         (int64_t{1} << 40) + 1,
                         std::numeric_limits<int64_t>::max(),
                         std::numeric_limits<int64_t>::min(),
                         int64_t{1} << 20};
  return odd[b % 6];
}

// The valid storage of one element of a type narrower than a byte, or
// pred (hloref_plugin.h): pred 0/1, signed sub-byte sign-extended, the
// others (unsigned and the f4/f6 encodings) in the low bits.
uint8_t MaskToValid(PrimitiveType t, uint8_t byte) {
  if (t == PrimitiveType::kPred) return byte & 1;
  const int bits = BitWidth(t);
  if (bits >= 8) return byte;
  const uint8_t low = byte & static_cast<uint8_t>((1u << bits) - 1);
  if (!IsSignedInt(t)) return low;
  // Sign-extend the low `bits` bits.
  const int v = (low ^ (1u << (bits - 1))) - (1 << (bits - 1));
  return static_cast<uint8_t>(static_cast<int8_t>(v));
}

bool StorageByteValid(PrimitiveType t, uint8_t byte) {
  return MaskToValid(t, byte) == byte;
}

// The ABI's rules for one buffer (hloref_plugin.h), stated independently
// of plugin_replies.cc; empty when valid, else why not.
std::string WhyInvalid(const hloref_buffer& b) {
  if (b.element_type == nullptr) return "null type";
  if (std::strcmp(b.element_type, "token") == 0) {
    return b.rank == 0 && b.size_bytes == 0 ? "" : "token with rank or bytes";
  }
  absl::StatusOr<PrimitiveType> t = ParsePrimitiveType(b.element_type);
  if (!t.ok() || !IsArrayType(*t)) return "not an array type";
  if (b.rank < 0 || b.rank > 64) return "rank";
  if (b.rank > 0 && b.dims == nullptr) return "null dims";
  bool empty = false;
  for (int64_t i = 0; i < b.rank; ++i) {
    if (b.dims[i] < 0 || static_cast<uint64_t>(b.dims[i]) > kMaxElements) {
      return "dimension";
    }
    empty = empty || b.dims[i] == 0;
  }
  // Exact element count in 128 bits: the product of at most 64 numbers of
  // at most 2^40 is below 2^2560, so stop as soon as it passes 2^40.
  unsigned __int128 count = 1;
  for (int64_t i = 0; i < b.rank && !empty; ++i) {
    count *= static_cast<uint64_t>(b.dims[i]);
    if (count > kMaxElements) return "too many elements";
  }
  if (empty) count = 0;
  const uint64_t bytes =
      static_cast<uint64_t>(count) * static_cast<uint64_t>(StorageBytes(*t));
  if (b.size_bytes != bytes) return "size_bytes";
  if (bytes > 0 && b.data == nullptr) return "null data";
  if (*t == PrimitiveType::kPred || BitWidth(*t) < 8) {
    const auto* p = static_cast<const uint8_t*>(b.data);
    for (uint64_t i = 0; i < bytes; ++i) {
      if (!StorageByteValid(*t, p[i])) return "storage byte";
    }
  }
  return "";
}

// Builds the buffers of one run as the input says.
std::unique_ptr<FakeResults> MakeResults(Input& in, int64_t count) {
  auto r = std::make_unique<FakeResults>();
  r->buffers.resize(count);
  r->type_names.resize(count);
  r->dims.resize(count);
  r->data.resize(count);
  for (int64_t i = 0; i < count; ++i) {
    hloref_buffer& b = r->buffers[i];
    const uint8_t type_pick = in.U8();
    if (type_pick == 255) {
      r->type_names[i] = in.Text();  // any name
    } else if (type_pick != 254) {
      r->type_names[i] = kTypeNames[type_pick % kNumTypeNames];
    }
    b.element_type = type_pick == 254 ? nullptr : r->type_names[i].c_str();
    b.rank = PickRank(in);
    const uint8_t flags = in.U8();
    // dims: null (flag bit 0), else an array of `rank` entries (at most 65:
    // the host reads none beyond 64).
    if ((flags & 1) == 0) {
      const int64_t n = b.rank < 0 ? 0 : std::min<int64_t>(b.rank, 65);
      r->dims[i].resize(n);
      for (int64_t& d : r->dims[i]) d = PickDim(in);
      r->dims[i].push_back(0);  // so that data() is non-null when n == 0
      b.dims = r->dims[i].data();
    }
    // The exact size for the type and dims, where there is one.
    uint64_t exact = 0;
    absl::StatusOr<PrimitiveType> t = ParsePrimitiveType(r->type_names[i]);
    if (t.ok() && IsArrayType(*t) && b.rank >= 0 && b.rank <= 64 &&
        (b.dims != nullptr || b.rank == 0)) {
      unsigned __int128 c = 1;
      for (int64_t k = 0; k < b.rank; ++k) {
        const int64_t d = b.dims[k];
        c = d < 0 ? 0 : c * static_cast<uint64_t>(d);
        if (c > kMaxDataBytes) c = kMaxDataBytes + 1;
      }
      exact = static_cast<uint64_t>(c) * StorageBytes(*t);
    }
    switch ((flags >> 1) % 4) {
      case 0:
      case 1:
        b.size_bytes = exact;
        break;
      case 2:
        b.size_bytes = exact + static_cast<int8_t>(in.U8());  // a little off
        break;
      default:
        b.size_bytes = in.U64();
        break;
    }
    // data: null (flag bit 3) or size_bytes bytes from the input, masked to
    // valid storage unless flag bit 4.
    if ((flags & 8) == 0 && b.size_bytes <= kMaxDataBytes) {
      std::vector<uint8_t>& bytes = r->data[i];
      bytes.resize(b.size_bytes + 1);  // non-null also for 0 bytes
      for (uint64_t k = 0; k < b.size_bytes; ++k) {
        bytes[k] = in.U8();
        if ((flags & 16) == 0 && t.ok() && IsArrayType(*t)) {
          bytes[k] = MaskToValid(*t, bytes[k]);
        }
      }
      b.data = bytes.data();
    }
  }
  return r;
}

absl::StatusCode ExpectedCode(uint32_t code) {
  switch (code) {
    case HLOREF_INVALID_ARGUMENT:
      return absl::StatusCode::kInvalidArgument;
    case HLOREF_FAILED_PRECONDITION:
      return absl::StatusCode::kFailedPrecondition;
    case HLOREF_UNIMPLEMENTED:
      return absl::StatusCode::kUnimplemented;
    case HLOREF_INTERNAL:
      return absl::StatusCode::kInternal;
    default:
      return absl::StatusCode::kUnknown;
  }
}

// A failed plugin status must come back with its code, the plugin's name
// and its message; empty when it did.
std::string CheckPluginError(const absl::Status& got, hloref_status code,
                             const std::string& message, const char* call) {
  if (got.code() != ExpectedCode(code) ||
      !absl::StrContains(got.message(), "fuzz-plugin") ||
      !absl::StrContains(got.message(), message) ||
      !absl::StrContains(got.message(), call)) {
    return absl::StrCat(call, " status ", static_cast<uint32_t>(code),
                        " with message '", message, "' gave ", got.ToString());
  }
  return "";
}

FuzzOutcome RawReply(absl::string_view body) {
  const internal::PluginIdentity id{"fuzz-plugin", "/fuzz/plugin.so"};
  FuzzOutcome out;
  absl::StatusOr<uint64_t> compiled = internal::ReadCompileReply(id, body);
  if (!compiled.ok() && compiled.status().message().empty()) {
    out.violation = "a compile reply error without a message";
  }
  absl::StatusOr<std::vector<Literal>> ran = internal::ReadRunReply(id, body);
  out.status = ran.status();
  if (!ran.ok() && ran.status().message().empty()) {
    out.violation = "a run reply error without a message";
  }
  return out;
}

FuzzOutcome FakePlugin(Input& in) {
  const internal::PluginIdentity id{"fuzz-plugin", "/fuzz/plugin.so"};
  FuzzOutcome out;
  Releases releases;
  g_releases = &releases;

  // hloref_compile: a status, a message, an executable or null.
  {
    const hloref_status code = PickStatus(in);
    char* message = PickMessage(in);
    const std::string text = message != nullptr ? message : "";
    const bool exe = in.U8() % 8 != 0;
    proto::Writer w;
    proto::PutStatus(&w, FakeFreeString, code, message);
    // As the host's kCompile (plugin_host_main.cc): an id for an OK compile
    // with an executable, 0 otherwise.
    w.U64(code == HLOREF_OK && exe ? 1 : 0);
    absl::StatusOr<uint64_t> got = internal::ReadCompileReply(id, w.body());
    if (releases.strings != (message != nullptr ? 1 : 0)) {
      out.violation = "compile: the message was not released exactly once";
    } else if (code != HLOREF_OK) {
      out.violation = CheckPluginError(got.status(), code, text, "compile");
    } else if (!exe && (got.ok() || got.status().code() !=
                                        absl::StatusCode::kInvalidArgument)) {
      out.violation = absl::StrCat("compile: OK with a null executable gave ",
                                   got.status().ToString());
    } else if (exe && (!got.ok() || *got != 1)) {
      out.violation =
          absl::StrCat("compile: OK gave ", got.status().ToString());
    }
    if (!got.ok() || !out.violation.empty()) {
      out.status = got.status();
      g_releases = nullptr;
      return out;
    }
  }

  // hloref_run.
  releases = Releases{};
  const hloref_status code = PickStatus(in);
  char* message = PickMessage(in);
  const std::string text = message != nullptr ? message : "";
  const uint8_t count_pick = in.U8();
  int64_t num_results = count_pick % 5;
  bool null_array = count_pick % 32 == 31;
  if (count_pick >= 240) {  // negative or large counts come with no array
    const int64_t odd[] = {-1, std::numeric_limits<int64_t>::min(), 1000,
                           std::numeric_limits<int64_t>::max()};
    num_results = odd[count_pick % 4];
    null_array = true;
  }
  std::unique_ptr<FakeResults> results;
  if (!null_array) results = MakeResults(in, num_results);
  hloref_buffer* array = results != nullptr ? results->buffers.data() : nullptr;
  if (array == nullptr && !null_array) {
    // 0 results in an empty vector: data() may be null; make it real.
    static hloref_buffer none;
    array = &none;
  }
  proto::Writer w;
  proto::PutRunReply(&w, FakeFreeString, FakeFreeResults, code, message, array,
                     num_results);
  absl::StatusOr<std::vector<Literal>> got =
      internal::ReadRunReply(id, w.body());
  out.status = got.status();
  g_releases = nullptr;

  if (releases.strings != (message != nullptr ? 1 : 0)) {
    out.violation = "run: the message was not released exactly once";
    return out;
  }
  if (array != nullptr &&
      (releases.results != 1 || releases.results_array != array ||
       releases.results_count != num_results)) {
    out.violation = "run: the results were not released exactly once";
    return out;
  }
  if (array == nullptr && releases.results != 0) {
    out.violation = "run: free_results called on a null array";
    return out;
  }
  if (code != HLOREF_OK) {
    out.violation = CheckPluginError(got.status(), code, text, "run");
    return out;
  }
  if (num_results < 0 || (num_results > 0 && array == nullptr)) {
    if (got.ok() || got.status().code() != absl::StatusCode::kInvalidArgument) {
      out.violation = absl::StrCat("run: ", num_results, " results with ",
                                   array == nullptr ? "a null" : "an",
                                   " array gave ", got.status().ToString());
    }
    return out;
  }
  int64_t first_bad = -1;
  std::string why;
  for (int64_t i = 0; i < num_results && first_bad < 0; ++i) {
    why = WhyInvalid(array[i]);
    if (!why.empty()) first_bad = i;
  }
  if (first_bad >= 0) {
    if (got.ok() || got.status().code() != absl::StatusCode::kInvalidArgument ||
        !absl::StrContains(got.status().message(),
                           absl::StrCat("result ", first_bad, ": "))) {
      out.violation =
          absl::StrCat("run: result ", first_bad, " is invalid (", why,
                       ") but the reply gave ", got.status().ToString());
    }
    return out;
  }
  if (!got.ok()) {
    out.violation = absl::StrCat("run: valid results were refused: ",
                                 got.status().ToString());
    return out;
  }
  if (static_cast<int64_t>(got->size()) != num_results) {
    out.violation = absl::StrCat("run: ", num_results, " results came back as ",
                                 got->size());
    return out;
  }
  for (int64_t i = 0; i < num_results; ++i) {
    const hloref_buffer& b = array[i];
    const Literal& lit = (*got)[i];
    if (std::strcmp(b.element_type, "token") == 0) {
      if (!lit.shape().IsToken()) {
        out.violation = absl::StrCat("run: result ", i, " is not a token");
      }
      continue;
    }
    const std::vector<int64_t> dims(b.dims, b.dims + b.rank);
    const auto lit_dims = lit.shape().IsArray() ? lit.shape().dimensions()
                                                : absl::Span<const int64_t>();
    if (!lit.shape().IsArray() ||
        PrimitiveTypeName(lit.element_type()) != b.element_type ||
        std::vector<int64_t>(lit_dims.begin(), lit_dims.end()) != dims ||
        lit.raw().size() != b.size_bytes ||
        (b.size_bytes > 0 &&
         std::memcmp(lit.raw().data(), b.data, b.size_bytes) != 0)) {
      out.violation = absl::StrCat("run: result ", i, " came back as ",
                                   lit.shape().ToString(),
                                   ", not what the plugin returned");
      return out;
    }
  }
  return out;
}

}  // namespace

FuzzOutcome FuzzPluginResults(absl::string_view bytes) {
  if (bytes.empty()) return {};
  if (static_cast<uint8_t>(bytes[0]) % 4 == 3) {
    return RawReply(bytes.substr(1));
  }
  Input in(bytes.substr(1));
  return FakePlugin(in);
}

}  // namespace hloref
