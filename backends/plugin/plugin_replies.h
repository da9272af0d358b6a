// How the plugin backend reads the replies of hloref-plugin-host
// (plugin_protocol.h) into statuses and Literals, checking everything the
// plugin returned. Internal to backends/plugin; exposed for the plugin fuzz
// target (backends/plugin/fuzz/plugin_fuzz_entry.cc), which runs these
// functions on the replies plugin_host_replies.h makes of what a fake plugin
// returns, and on arbitrary bytes (a plugin that writes to the host's
// socket).
#ifndef HLOREF_BACKENDS_PLUGIN_PLUGIN_REPLIES_H_
#define HLOREF_BACKENDS_PLUGIN_PLUGIN_REPLIES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "backends/plugin/hloref_plugin.h"
#include "spec/types/literal.h"

namespace hloref::backends::plugin_internal {

// The largest element count a result buffer may have (a result of 2^40
// elements is beyond any machine hloref runs on).
inline constexpr uint64_t kMaxResultElements = uint64_t{1} << 40;

// Who answered, for messages: the plugin's name and its library's path.
struct PluginIdentity {
  std::string name;
  std::string path;
};

// A plugin status and message as an absl::Status naming the plugin and
// `what` (the call that failed): HLOREF_INVALID_ARGUMENT ->
// InvalidArgument, HLOREF_FAILED_PRECONDITION -> FailedPrecondition,
// HLOREF_UNIMPLEMENTED -> Unimplemented, HLOREF_INTERNAL -> Internal, any
// other non-zero code -> Unknown; "no message" when the text is empty.
absl::Status StatusFromPlugin(const PluginIdentity& plugin, uint32_t code,
                              absl::string_view text, absl::string_view what);

// Copies one result buffer into a Literal, checking every field: a known
// element type ("token", with rank 0 and no bytes, gives a token), rank 0..64
// with dims unless 0, every dimension in [0, 2^40] and at most 2^40 elements,
// size_bytes exactly elements * storage bytes, data unless 0 bytes, and each
// storage byte valid for pred / sub-byte types. Errors say "result <index>:
// why".
absl::StatusOr<Literal> LiteralFromBuffer(const hloref_buffer& buffer,
                                          int64_t index);

// A compile reply: the executable id, or the plugin's error (a reply that
// is not a compile reply is Internal).
absl::StatusOr<uint64_t> ReadCompileReply(const PluginIdentity& plugin,
                                          absl::string_view reply);

// A run reply: the results, or the plugin's error, or InvalidArgument
// naming the bad count or buffer; a reply that is not a run reply (only a
// plugin writing to the host's socket makes one) is Internal.
absl::StatusOr<std::vector<Literal>> ReadRunReply(const PluginIdentity& plugin,
                                                  absl::string_view reply);

}  // namespace hloref::backends::plugin_internal

#endif  // HLOREF_BACKENDS_PLUGIN_PLUGIN_REPLIES_H_
