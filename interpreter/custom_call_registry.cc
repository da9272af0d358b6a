// Custom-call targets: the in-process registry and explicitly named shared
// libraries (dlopen/dlsym).
#include "interpreter/custom_call_registry.h"

#include <dlfcn.h>

#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hloref {

absl::Status CustomCallRegistry::Register(absl::string_view target_name,
                                          CustomCallFunction fn) {
  if (target_name.empty()) {
    return absl::InvalidArgumentError(
        "custom-call target name must not be empty");
  }
  if (!fn) {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom-call target \"", target_name, "\" has an empty function"));
  }
  auto [it, inserted] = targets_.emplace(std::string(target_name), fn);
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat(
        "custom-call target \"", target_name, "\" is already registered"));
  }
  return absl::OkStatus();
}

const CustomCallFunction* CustomCallRegistry::Find(
    absl::string_view target_name) const {
  auto it = targets_.find(target_name);
  return it == targets_.end() ? nullptr : &it->second;
}

std::vector<std::string> CustomCallRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, fn] : targets_) names.push_back(name);
  return names;
}

namespace {

// Process-wide: dlopen handles are process-wide anyway, and keeping them
// open avoids unloading code a later run may call.
struct LibraryCache {
  std::mutex mu;
  std::map<std::string, void*> handles;
};

LibraryCache& Cache() {
  static auto* cache = new LibraryCache();
  return *cache;
}

absl::StatusOr<void*> OpenLibrary(const std::string& path) {
  if (path.empty()) {
    return absl::InvalidArgumentError("custom-call library path is empty");
  }
  // dlopen searches the library path for names without '/'; the user named
  // a file, so make it one.
  const std::string file =
      path.find('/') == std::string::npos ? absl::StrCat("./", path) : path;
  LibraryCache& cache = Cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  auto it = cache.handles.find(file);
  if (it != cache.handles.end()) return it->second;
  dlerror();  // clear a stale error
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(
        absl::StrCat("custom-call library \"", path,
                     "\" could not be loaded: ", why ? why : "unknown error"));
  }
  cache.handles.emplace(file, handle);
  return handle;
}

}  // namespace

absl::Status OpenCustomCallLibrary(const std::string& path) {
  return OpenLibrary(path).status();
}

absl::StatusOr<CustomCallCFunction> LookupCustomCallSymbol(
    const std::string& path, const std::string& symbol) {
  HLOREF_ASSIGN_OR_RETURN(void* handle, OpenLibrary(path));
  std::lock_guard<std::mutex> lock(Cache().mu);
  dlerror();
  void* sym = dlsym(handle, symbol.c_str());
  if (sym == nullptr) {
    return absl::NotFoundError(absl::StrCat("symbol \"", symbol,
                                            "\" not found in custom-call "
                                            "library \"",
                                            path, "\""));
  }
  // POSIX guarantees that a data pointer from dlsym converts to a function
  // pointer; going through the integer keeps -Wpedantic quiet.
  return reinterpret_cast<CustomCallCFunction>(
      reinterpret_cast<uintptr_t>(sym));
}

}  // namespace hloref
