// The custom call runtime of the CPU backend (see custom_call.h).
#include "backends/cpu/runtime/custom_call.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "backends/cpu/runtime/runtime_symbols.h"
#include "spec/types/primitive_type.h"

namespace hloref::cpu {
namespace {

using TargetFn = void (*)(void* out, void** in);

struct Libraries {
  std::mutex mu;
  bool env_read = false;
  std::vector<std::pair<std::string, void*>> handles;  // in search order
  std::map<std::string, void*, std::less<>> targets;   // resolved targets
};

Libraries& Libs() {
  static Libraries* libs = new Libraries;
  return *libs;
}

absl::Status OpenLocked(Libraries& libs, const std::string& path) {
  for (const auto& [p, h] : libs.handles) {
    if (p == path) return absl::OkStatus();
  }
  // A path without '/' is taken relative to the working directory, never
  // searched for on the library path.
  const std::string open_path =
      path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(absl::StrCat("cannot open custom-call library '",
                                            path,
                                            "': ", why ? why : "unknown"));
  }
  libs.handles.emplace_back(path, handle);
  return absl::OkStatus();
}

void ReadEnvLocked(Libraries& libs) {
  if (libs.env_read) return;
  libs.env_read = true;
  const char* env = std::getenv("HLOREF_CPU_CUSTOM_CALL_LIBS");
  if (env == nullptr) return;
  for (absl::string_view p : absl::StrSplit(env, ':', absl::SkipEmpty())) {
    // A library that cannot be opened is reported by FindCustomCallTarget's
    // list (it is simply not searched).
    (void)OpenLocked(libs, std::string(p));
  }
}

}  // namespace

absl::Status AddCustomCallLibrary(const std::string& path) {
  Libraries& libs = Libs();
  std::lock_guard<std::mutex> lock(libs.mu);
  ReadEnvLocked(libs);
  return OpenLocked(libs, path);
}

std::vector<std::string> CustomCallLibraries() {
  Libraries& libs = Libs();
  std::lock_guard<std::mutex> lock(libs.mu);
  ReadEnvLocked(libs);
  std::vector<std::string> paths;
  for (const auto& [p, h] : libs.handles) paths.push_back(p);
  return paths;
}

absl::StatusOr<void*> FindCustomCallTarget(const std::string& target) {
  Libraries& libs = Libs();
  std::lock_guard<std::mutex> lock(libs.mu);
  ReadEnvLocked(libs);
  if (auto it = libs.targets.find(target); it != libs.targets.end()) {
    return it->second;
  }
  std::vector<std::string> searched;
  for (const auto& [path, handle] : libs.handles) {
    searched.push_back(path);
    dlerror();
    void* sym = dlsym(handle, target.c_str());
    if (sym != nullptr && dlerror() == nullptr) {
      libs.targets[target] = sym;
      return sym;
    }
  }
  return absl::UnimplementedError(absl::StrCat(
      "unknown custom-call target \"", target,
      "\": not exported by any custom-call library of the CPU backend "
      "(searched: ",
      searched.empty() ? "none; name libraries with "
                         "HLOREF_CPU_CUSTOM_CALL_LIBS=PATH[:PATH...]"
                       : absl::StrJoin(searched, ", "),
      ")"));
}

void AddCustomCallRuntimeSymbols(RuntimeSymbolList& list) {
  list.push_back({"hloref_cpu_custom_call",
                  reinterpret_cast<void*>(&hloref_cpu_custom_call)});
}

absl::StatusOr<void*> ResolveCustomCallTarget(const std::string& instruction,
                                              const std::string& target,
                                              const std::string& api_version) {
  absl::StatusOr<void*> fn = FindCustomCallTarget(target);
  if (!fn.ok()) {
    return absl::Status(
        fn.status().code(),
        absl::StrCat("%", instruction, ": ", fn.status().message()));
  }
  if (!api_version.empty() && api_version != "API_VERSION_ORIGINAL") {
    return absl::UnimplementedError(absl::StrCat(
        "%", instruction, ": custom-call target \"", target, "\" uses ",
        api_version,
        "; only API_VERSION_ORIGINAL (void target(void* out, void** in)) is "
        "called from a library"));
  }
  return fn;
}

}  // namespace hloref::cpu

extern "C" {

void hloref_cpu_custom_call(hloref::cpu::RunContext* ctx, const char* target,
                            const char* name, void* out, void** in,
                            int64_t count, const int64_t* types,
                            const int64_t* elems, void** leaves) {
  using hloref::PrimitiveType;
  if (ctx->failed()) return;
  absl::StatusOr<void*> fn = hloref::cpu::FindCustomCallTarget(target);
  if (!fn.ok()) {
    ctx->SetError(
        absl::Status(fn.status().code(),
                     absl::StrCat("%", name, ": ", fn.status().message())));
    return;
  }
  reinterpret_cast<hloref::cpu::TargetFn> (*fn)(out, in);
  for (int64_t i = 0; i < count; ++i) {
    const auto type = static_cast<PrimitiveType>(types[i]);
    const int bits = hloref::BitWidth(type);
    const bool pred = hloref::IsPred(type);
    if (!pred && bits >= 8) continue;
    uint8_t* p = static_cast<uint8_t*>(leaves[i]);
    for (int64_t e = 0; e < elems[i]; ++e) {
      const uint8_t b = p[e];
      if (pred) {
        p[e] = b != 0 ? 1 : 0;
      } else if (hloref::IsSignedInt(type)) {
        const int shift = 8 - bits;
        p[e] = static_cast<uint8_t>(
            static_cast<int8_t>(static_cast<uint8_t>(b << shift)) >> shift);
      } else {
        p[e] = static_cast<uint8_t>(b & ((1u << bits) - 1));
      }
    }
  }
}

}  // extern "C"
