// Reading hloref-plugin-host's replies (plugin_replies.h).
#include "backends/plugin/plugin_replies.h"

#include <cstring>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/plugin/plugin_protocol.h"
#include "spec/types/primitive_type.h"

namespace hloref::backends::plugin_internal {

namespace proto = plugin_protocol;

namespace {

// The largest rank a result may have (plugin_host_replies.h: the host sends
// dimensions only for ranks up to this).
constexpr int64_t kMaxRank = 64;

absl::Status CorruptReply(absl::string_view what) {
  return absl::InternalError(absl::StrCat(
      "corrupt ", what,
      " reply from the plugin's process (did the plugin write to its "
      "descriptor 3?)"));
}

}  // namespace

absl::Status StatusFromPlugin(const PluginIdentity& plugin, uint32_t code,
                              absl::string_view text, absl::string_view what) {
  if (code == HLOREF_OK) return absl::OkStatus();
  std::string full =
      absl::StrCat("plugin '", plugin.name, "' (", plugin.path, ") ", what,
                   ": ", text.empty() ? "no message" : text);
  switch (code) {
    case HLOREF_INVALID_ARGUMENT:
      return absl::InvalidArgumentError(full);
    case HLOREF_FAILED_PRECONDITION:
      return absl::FailedPreconditionError(full);
    case HLOREF_UNIMPLEMENTED:
      return absl::UnimplementedError(full);
    case HLOREF_INTERNAL:
      return absl::InternalError(full);
    default:
      break;
  }
  return absl::UnknownError(
      absl::StrCat(full, " (unknown hloref_status ", code, ")"));
}

absl::StatusOr<Literal> LiteralFromBuffer(const hloref_buffer& buffer,
                                          int64_t index) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("result ", index, ": ", why));
  };
  if (buffer.element_type == nullptr) return bad("element_type is null");
  if (std::strcmp(buffer.element_type, "token") == 0) {
    // hloref_plugin.h: a token has rank 0 and no bytes.
    if (buffer.rank != 0 || buffer.size_bytes != 0) {
      return bad(absl::StrCat("a token with rank ", buffer.rank, " and ",
                              buffer.size_bytes,
                              " bytes (a token has rank 0 and no bytes)"));
    }
    return Literal::Token();
  }
  auto type = ParsePrimitiveType(buffer.element_type);
  if (!type.ok() || !IsArrayType(*type)) {
    return bad(absl::StrCat("element_type '", buffer.element_type,
                            "' is not an array element type"));
  }
  if (buffer.rank < 0 || buffer.rank > kMaxRank) {
    return bad(
        absl::StrCat("rank ", buffer.rank, " is outside [0, ", kMaxRank, "]"));
  }
  if (buffer.rank > 0 && buffer.dims == nullptr) {
    return bad(absl::StrCat("rank ", buffer.rank, " with null dims"));
  }
  std::vector<int64_t> dims(buffer.dims, buffer.dims + buffer.rank);
  // Every dimension is checked first and the count saturates, so that the
  // verdict does not depend on the order of the dimensions (a 0 anywhere
  // makes an empty array).
  uint64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || static_cast<uint64_t>(d) > kMaxResultElements) {
      return bad(absl::StrCat("dimension ", d, " is outside [0, 2^40]"));
    }
    const uint64_t ud = static_cast<uint64_t>(d);
    count = ud != 0 && count > kMaxResultElements / ud ? kMaxResultElements + 1
                                                       : count * ud;
  }
  for (int64_t d : dims) {
    if (d == 0) count = 0;
  }
  if (count > kMaxResultElements) {
    return bad("the dimensions make more than 2^40 elements");
  }
  const uint64_t want = count * static_cast<uint64_t>(StorageBytes(*type));
  if (buffer.size_bytes != want) {
    return bad(absl::StrCat("size_bytes is ", buffer.size_bytes, ", but ",
                            count, " elements of ", buffer.element_type,
                            " take ", want));
  }
  if (want > 0 && buffer.data == nullptr) return bad("data is null");
  Literal lit(Shape::Array(*type, dims));
  if (want > 0) std::memcpy(lit.mutable_raw().data(), buffer.data, want);
  // Keep the Literal storage invariants (primitive_type.h): pred 0/1,
  // sub-byte values in range, narrow float encodings in the low bits.
  const int bits = BitWidth(*type);
  if (*type == PrimitiveType::kPred || bits < 8) {
    for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
      const uint8_t byte = lit.raw()[i];
      bool ok;
      if (*type == PrimitiveType::kPred) {
        ok = byte <= 1;
      } else if (IsSignedInt(*type)) {
        const int v = static_cast<int8_t>(byte);
        ok = v >= -(1 << (bits - 1)) && v < (1 << (bits - 1));
      } else {
        ok = byte < (1u << bits);
      }
      if (!ok) {
        return bad(absl::StrCat("element ", i, " has storage byte ",
                                static_cast<int>(byte), ", not a valid ",
                                buffer.element_type, " value"));
      }
    }
  }
  return lit;
}

absl::StatusOr<uint64_t> ReadCompileReply(const PluginIdentity& plugin,
                                          absl::string_view reply) {
  proto::Reader r(std::string_view(reply.data(), reply.size()));
  const uint32_t code = r.U32();
  const std::string message(r.Bytes());
  const uint64_t id = r.U64();
  if (!r.done()) return CorruptReply("compile");
  if (absl::Status s = StatusFromPlugin(plugin, code, message, "compile");
      !s.ok()) {
    return s;
  }
  if (id == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("plugin '", plugin.name,
                     "' compile returned HLOREF_OK and a null executable"));
  }
  return id;
}

absl::StatusOr<std::vector<Literal>> ReadRunReply(const PluginIdentity& plugin,
                                                  absl::string_view reply) {
  proto::Reader r(std::string_view(reply.data(), reply.size()));
  const uint32_t code = r.U32();
  const std::string message(r.Bytes());
  const int64_t num_results = r.I64();
  const bool have = r.U32() != 0;
  if (!r.ok()) return CorruptReply("run");
  if (absl::Status s = StatusFromPlugin(plugin, code, message, "run");
      !s.ok()) {
    return s;
  }
  if (!have) {
    return absl::InvalidArgumentError(
        absl::StrCat("plugin '", plugin.name, "' run returned ", num_results,
                     " results", num_results < 0 ? "" : " with a null array"));
  }
  // The host sends buffers only for a count >= 0 (plugin_host_replies.h).
  if (num_results < 0) return CorruptReply("run");
  std::vector<Literal> out;
  for (int64_t i = 0; i < num_results; ++i) {
    const bool has_type = r.U32() != 0;
    const std::string type(r.Bytes());
    const int64_t rank = r.I64();
    const bool has_dims = r.U32() != 0;
    // The host sends dimensions only for a rank in [0, 64].
    if (!r.ok() || (has_dims && (rank < 0 || rank > kMaxRank))) {
      return CorruptReply("run");
    }
    std::vector<int64_t> dims(has_dims ? rank : 0);
    for (int64_t& d : dims) d = r.I64();
    const uint64_t size_bytes = r.U64();
    const bool has_data = r.U32() != 0;
    const std::string_view data = r.Bytes();
    if (!r.ok()) return CorruptReply("run");
    // The host sends the bytes only when size_bytes is plausible for the
    // dims; when it did not, LiteralFromBuffer refuses the size before it
    // would read them (and a null pointer is all it sees).
    const bool sent = data.size() == size_bytes;
    absl::StatusOr<Literal> lit = LiteralFromBuffer(
        {has_type ? type.c_str() : nullptr, rank,
         has_dims ? dims.data() : nullptr,
         has_data && sent ? data.data() : nullptr, size_bytes},
        i);
    if (!lit.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("plugin '", plugin.name,
                       "' returned a bad buffer: ", lit.status().message()));
    }
    out.push_back(*std::move(lit));
  }
  if (!r.done()) return CorruptReply("run");
  return out;
}

}  // namespace hloref::backends::plugin_internal
