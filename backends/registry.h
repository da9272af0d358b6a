// The backend registry: maps a backend name to a factory. Names are either
// exact (`interpreter`) or a prefix with an argument (`plugin:<path.so>`,
// `command:<program>`). Builtins are registered by an explicit call to
// RegisterBuiltinBackends, never by static initialisers (style.md 9.4).
#ifndef HLOREF_BACKENDS_REGISTRY_H_
#define HLOREF_BACKENDS_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "backends/backend.h"

namespace hloref::backends {

class BackendRegistry {
 public:
  // Receives the text after the prefix's colon (empty for exact names).
  using Factory = std::function<absl::StatusOr<std::unique_ptr<Backend>>(
      absl::string_view argument)>;

  // `key` is either a plain name ("interpreter"), matched exactly, or a
  // prefix ending in ':' ("plugin:"), matched by the start of the name
  // with a non-empty argument after it. `usage` is shown in listings
  // ("plugin:<path.so>"). AlreadyExists if the key is taken.
  absl::Status Register(std::string key, std::string usage, Factory factory);

  // Creates the backend `name`. InvalidArgument naming the known backends
  // when nothing matches; the factory's error otherwise (e.g.
  // FailedPrecondition for a plugin that does not load).
  absl::StatusOr<std::unique_ptr<Backend>> Create(absl::string_view name) const;

  // The usage strings in key order ("command:<program>", "interpreter",
  // "plugin:<path.so>").
  std::vector<std::string> Usages() const;

 private:
  struct Entry {
    std::string usage;
    Factory factory;
  };
  std::map<std::string, Entry, std::less<>> entries_;
};

// Registers `interpreter`, `plugin:` and `command:` (and, when built, the
// other compiled-in backends) into `registry`.
absl::Status RegisterBuiltinBackends(BackendRegistry* registry);

// Convenience: a registry with the builtins, then Create(name).
absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(absl::string_view name);

}  // namespace hloref::backends

#endif  // HLOREF_BACKENDS_REGISTRY_H_
