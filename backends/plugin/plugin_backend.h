// `plugin:<path.so>`: a backend in a vendor's shared library speaking the C
// ABI of hloref_plugin.h, loaded with dlopen.
#ifndef HLOREF_BACKENDS_PLUGIN_PLUGIN_BACKEND_H_
#define HLOREF_BACKENDS_PLUGIN_PLUGIN_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backends/backend.h"

namespace hloref::backends {

// Loads the library at `path` (a path with no '/' is searched as dlopen
// searches). FailedPrecondition (the harness's "skipped") when it does not
// load, lacks a required symbol or speaks another ABI version; the message
// names the path and what is wrong. The library stays loaded while the
// backend or any executable it compiled lives.
absl::StatusOr<std::unique_ptr<Backend>> CreatePluginBackend(
    const std::string& path);

}  // namespace hloref::backends

#endif  // HLOREF_BACKENDS_PLUGIN_PLUGIN_BACKEND_H_
