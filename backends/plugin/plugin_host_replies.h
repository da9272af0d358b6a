// How hloref-plugin-host turns what a plugin's functions returned into the
// replies of plugin_protocol.h. Header-only and free of hloref's libraries,
// like the host itself (plugin_host_main.cc), so that the plugin fuzz target
// (backends/plugin/fuzz/plugin_fuzz_entry.cc) runs exactly this code on what
// an in-process fake plugin returns (docs/fuzzing.md).
#ifndef HLOREF_BACKENDS_PLUGIN_PLUGIN_HOST_REPLIES_H_
#define HLOREF_BACKENDS_PLUGIN_PLUGIN_HOST_REPLIES_H_

#include <cstdint>
#include <string_view>

#include "backends/plugin/hloref_plugin.h"
#include "backends/plugin/plugin_protocol.h"

namespace hloref::backends::plugin_protocol {

// The largest rank a result buffer may have (XLA's own limit is 64 too).
inline constexpr int64_t kMaxRank = 64;

// A status field: the code and the plugin's message ("" for none), which is
// then released with the plugin's free_string.
inline void PutStatus(Writer* w, hloref_free_string_fn free_string,
                      hloref_status code, char* message) {
  w->U32(static_cast<uint32_t>(code));
  w->String(std::string_view(message != nullptr ? message : ""));
  if (message != nullptr) free_string(message);
}

// The rest of a run reply, after its status: what hloref_run returned,
// copied as it stands (hloref checks every field, plugin_backend.cc); only
// pointers the ABI says are valid are read. A bad pointer here crashes the
// host, which hloref reports.
inline void PutRunResults(Writer* w, hloref_status code,
                          const hloref_buffer* results, int64_t num_results) {
  const bool have = code == HLOREF_OK && num_results >= 0 &&
                    (num_results == 0 || results != nullptr);
  w->I64(code == HLOREF_OK ? num_results : 0);
  w->U32(have ? 1 : 0);  // else hloref reports the count / null array
  if (!have) return;
  for (int64_t i = 0; i < num_results; ++i) {
    const hloref_buffer& b = results[i];
    w->U32(b.element_type != nullptr ? 1 : 0);
    w->String(
        std::string_view(b.element_type != nullptr ? b.element_type : ""));
    w->I64(b.rank);
    // Dimensions are read only for a rank hloref can accept.
    const bool rank_ok = b.rank >= 0 && b.rank <= kMaxRank;
    const bool dims_ok = b.dims != nullptr && rank_ok;
    w->U32(dims_ok ? 1 : 0);
    uint64_t count = 1;
    for (int64_t d = 0; dims_ok && d < b.rank; ++d) {
      w->I64(b.dims[d]);
      count = b.dims[d] < 0 || (b.dims[d] > 0 &&
                                count > kMaxFrameBytes /
                                            static_cast<uint64_t>(b.dims[d]))
                  ? kMaxFrameBytes + 1
                  : count * static_cast<uint64_t>(b.dims[d]);
    }
    w->U64(b.size_bytes);
    w->U32(b.data != nullptr ? 1 : 0);
    // The data is read only when size_bytes is within what the dims allow
    // for the widest element (16 bytes, c128): hloref then checks it
    // exactly. Otherwise nothing is read and hloref reports the size
    // mismatch.
    // A rank-0 buffer may have null dims (hloref_plugin.h): one element.
    // (Found by plugin_results_fuzz: its data used to be dropped, and the
    // scalar refused as "data is null".)
    const bool shape_known = dims_ok || (rank_ok && b.rank == 0);
    const bool read = shape_known && b.data != nullptr &&
                      count <= kMaxFrameBytes / 16 &&
                      b.size_bytes <= count * 16;
    w->Bytes(read ? b.data : nullptr, read ? b.size_bytes : 0);
  }
}

// A whole run reply (status, then results) for what hloref_run returned;
// the results are then released with the plugin's free_results.
inline void PutRunReply(Writer* w, hloref_free_string_fn free_string,
                        hloref_free_results_fn free_results, hloref_status code,
                        char* message, hloref_buffer* results,
                        int64_t num_results) {
  PutStatus(w, free_string, code, message);
  PutRunResults(w, code, results, num_results);
  if (results != nullptr) free_results(results, num_results);
}

}  // namespace hloref::backends::plugin_protocol

#endif  // HLOREF_BACKENDS_PLUGIN_PLUGIN_HOST_REPLIES_H_
