// The backend registry and the explicit registration of the builtins.
#include "backends/registry.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/command/command_backend.h"
#include "backends/cpu/cpu_backend.h"
#ifdef HLOREF_HAVE_GPU_BACKEND
#include "backends/gpu/gpu_backend.h"
#endif
#include "backends/interpreter/interpreter_backend.h"
#include "backends/plugin/plugin_backend.h"

namespace hloref::backends {

absl::Status BackendRegistry::Register(std::string key, std::string usage,
                                       Factory factory) {
  if (key.empty()) {
    return absl::InvalidArgumentError("backend registry: empty backend name");
  }
  if (entries_.count(key) > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("backend registry: '", key, "' is already registered"));
  }
  entries_.emplace(std::move(key), Entry{std::move(usage), std::move(factory)});
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Backend>> BackendRegistry::Create(
    absl::string_view name) const {
  // Exact names first, then prefixes ("plugin:" matches "plugin:x.so").
  auto exact = entries_.find(name);
  if (exact != entries_.end() && !absl::EndsWith(exact->first, ":")) {
    return exact->second.factory("");
  }
  for (const auto& [key, entry] : entries_) {
    if (!absl::EndsWith(key, ":") || !absl::StartsWith(name, key)) continue;
    absl::string_view argument = name.substr(key.size());
    if (argument.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "backend '", name, "' needs an argument: ", entry.usage));
    }
    return entry.factory(argument);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown backend '", name,
                   "' (available: ", absl::StrJoin(Usages(), ", "), ")"));
}

std::vector<std::string> BackendRegistry::Usages() const {
  std::vector<std::string> out;
  for (const auto& [key, entry] : entries_) out.push_back(entry.usage);
  return out;
}

absl::Status RegisterBuiltinBackends(BackendRegistry* registry) {
  HLOREF_RETURN_IF_ERROR(registry->Register(
      "interpreter", "interpreter",
      [](absl::string_view) { return CreateInterpreterBackend(); }));
  HLOREF_RETURN_IF_ERROR(registry->Register(
      "cpu", "cpu", [](absl::string_view) {
        return cpu::CreateCpuBackend(cpu::DefaultCpuBackendOptions());
      }));
#ifdef HLOREF_HAVE_GPU_BACKEND
  HLOREF_RETURN_IF_ERROR(registry->Register(
      "gpu", "gpu", [](absl::string_view) {
        return gpu::CreateGpuBackend(gpu::DefaultGpuBackendOptions());
      }));
#endif
  HLOREF_RETURN_IF_ERROR(registry->Register(
      "plugin:", "plugin:<path.so>", [](absl::string_view path) {
        return CreatePluginBackend(std::string(path));
      }));
  HLOREF_RETURN_IF_ERROR(registry->Register(
      "command:", "command:<program>", [](absl::string_view program) {
        return CreateCommandBackend(std::string(program));
      }));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Backend>> CreateBackend(absl::string_view name) {
  BackendRegistry registry;
  HLOREF_RETURN_IF_ERROR(RegisterBuiltinBackends(&registry));
  return registry.Create(name);
}

}  // namespace hloref::backends
