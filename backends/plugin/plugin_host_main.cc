// hloref-plugin-host: loads one hloref_plugin.h library and serves the
// requests of plugin_protocol.h on file descriptor 3, so that whatever the
// plugin does (crash, abort, hang, exit, corrupt memory) happens in this
// process and not in hloref. Started by backends/plugin/plugin_backend.cc;
// not meant to be run by hand.
//
//   hloref-plugin-host PLUGIN_PATH
//
// Exits 0 when hloref closes the socket. The plugin's own output on stdout
// is sent to stderr (stdout is hloref's, for results).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "backends/plugin/hloref_plugin.h"
#include "backends/plugin/plugin_host_replies.h"
#include "backends/plugin/plugin_protocol.h"

namespace hloref::backends::plugin_protocol {
namespace {

constexpr std::align_val_t kArgumentAlignment{64};
struct AlignedDelete {
  void operator()(void* p) const { ::operator delete(p, kArgumentAlignment); }
};

struct Plugin {
  void* handle = nullptr;
  hloref_plugin_abi_version_fn abi_version = nullptr;
  hloref_plugin_name_fn name = nullptr;
  hloref_compile_fn compile = nullptr;
  hloref_run_fn run = nullptr;
  hloref_free_results_fn free_results = nullptr;
  hloref_free_executable_fn free_executable = nullptr;
  hloref_free_string_fn free_string = nullptr;
  hloref_supports_fn supports = nullptr;
};

// Loads the library; on failure returns the message (empty on success).
std::string Load(const char* path, Plugin* p) {
  p->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (p->handle == nullptr) {
    const char* why = dlerror();
    return std::string("cannot load plugin '") + path +
           "': " + (why != nullptr ? why : "dlopen failed");
  }
  struct Symbol {
    const char* name;
    void** slot;
    bool required;
  };
  const Symbol symbols[] = {
      {"hloref_plugin_abi_version", reinterpret_cast<void**>(&p->abi_version),
       true},
      {"hloref_plugin_name", reinterpret_cast<void**>(&p->name), true},
      {"hloref_compile", reinterpret_cast<void**>(&p->compile), true},
      {"hloref_run", reinterpret_cast<void**>(&p->run), true},
      {"hloref_free_results", reinterpret_cast<void**>(&p->free_results), true},
      {"hloref_free_executable", reinterpret_cast<void**>(&p->free_executable),
       true},
      {"hloref_free_string", reinterpret_cast<void**>(&p->free_string), true},
      {"hloref_supports", reinterpret_cast<void**>(&p->supports), false},
  };
  for (const Symbol& s : symbols) {
    *s.slot = dlsym(p->handle, s.name);
    if (*s.slot == nullptr && s.required) {
      return std::string("plugin '") + path + "' lacks the required symbol '" +
             s.name + "' (see backends/plugin/hloref_plugin.h)";
    }
    // The ABI version decides whether the other symbols mean what we think.
    if (s.slot == reinterpret_cast<void**>(&p->abi_version)) {
      const uint32_t v = p->abi_version();
      if (v != HLOREF_PLUGIN_ABI_VERSION) {
        return std::string("plugin '") + path +
               "' speaks hloref plugin ABI version " + std::to_string(v) +
               ", this hloref speaks version " +
               std::to_string(HLOREF_PLUGIN_ABI_VERSION);
      }
    }
  }
  return "";
}

void Send(const Writer& w) {
  if (!SendFrame(kHostSocketFd, w.body())) _exit(0);  // hloref is gone
}

int Serve(const char* path) {
  Plugin plugin;
  const std::string load_error = Load(path, &plugin);
  std::map<uint64_t, hloref_executable*> executables;
  uint64_t next_id = 1;
  std::string body;
  while (ReceiveFrame(kHostSocketFd, &body) == ReceiveResult::kOk) {
    Reader r(body);
    const auto request = static_cast<Request>(r.U32());
    Writer w;
    if (request == Request::kHello) {
      w.U32(kMagic);
      w.U32(HLOREF_PLUGIN_ABI_VERSION);
      if (!load_error.empty()) {
        w.U32(HLOREF_FAILED_PRECONDITION);
        w.String(load_error);
      } else {
        w.U32(HLOREF_OK);
        const char* name = plugin.name();
        w.String(std::string_view(name != nullptr ? name : path));
      }
      w.U32(plugin.supports != nullptr ? 1 : 0);
      Send(w);
      continue;
    }
    if (!load_error.empty() || !r.ok()) return 2;  // hloref checks hello
    switch (request) {
      case Request::kSupports: {
        const std::string opcode(r.Bytes());
        const std::string type(r.Bytes());
        char* message = nullptr;
        hloref_status code =
            plugin.supports != nullptr
                ? plugin.supports(opcode.c_str(), type.c_str(), &message)
                : HLOREF_OK;
        PutStatus(&w, plugin.free_string, code, message);
        Send(w);
        break;
      }
      case Request::kCompile: {
        const std::string text(r.Bytes());
        hloref_executable* exe = nullptr;
        char* message = nullptr;
        hloref_status code = plugin.compile(text.c_str(), &exe, &message);
        PutStatus(&w, plugin.free_string, code, message);
        uint64_t id = 0;
        if (code == HLOREF_OK && exe != nullptr) {
          id = next_id++;
          executables[id] = exe;
        }
        w.U64(id);
        Send(w);
        break;
      }
      case Request::kRun: {
        const uint64_t id = r.U64();
        const uint64_t n = r.U64();
        auto it = executables.find(id);
        if (!r.ok() || it == executables.end() || n > body.size()) return 2;
        std::vector<std::string> types(n);
        std::vector<std::vector<int64_t>> dims(n);
        std::vector<hloref_buffer> args(n);
        // Each argument's bytes copied out of the message (where they sit
        // at any offset) into a 64-byte aligned block, as hloref's own
        // literals are: a plugin reads them as the element type, which
        // needs its natural alignment.
        std::vector<std::unique_ptr<void, AlignedDelete>> blocks;
        for (uint64_t k = 0; k < n; ++k) {
          types[k] = std::string(r.Bytes());
          const int64_t rank = r.I64();
          if (rank < 0 || static_cast<uint64_t>(rank) > body.size()) return 2;
          dims[k].resize(rank);
          for (int64_t& d : dims[k]) d = r.I64();
          std::string_view data = r.Bytes();
          void* block = nullptr;
          if (!data.empty()) {
            block = ::operator new(data.size(), kArgumentAlignment);
            blocks.emplace_back(block);
            std::memcpy(block, data.data(), data.size());
          }
          args[k] = {types[k].c_str(), rank,
                     rank > 0 ? dims[k].data() : nullptr, block, data.size()};
        }
        if (!r.done()) return 2;
        hloref_buffer* results = nullptr;
        int64_t num_results = 0;
        char* message = nullptr;
        hloref_status code =
            plugin.run(it->second, args.data(), static_cast<int64_t>(n),
                       &results, &num_results, &message);
        PutRunReply(&w, plugin.free_string, plugin.free_results, code, message,
                    results, num_results);
        Send(w);
        break;
      }
      case Request::kFree: {
        const uint64_t id = r.U64();
        auto it = executables.find(id);
        if (it != executables.end()) {
          plugin.free_executable(it->second);
          executables.erase(it);
        }
        break;
      }
      default:
        return 2;
    }
  }
  for (auto& [id, exe] : executables) plugin.free_executable(exe);
  return 0;
}

}  // namespace
}  // namespace hloref::backends::plugin_protocol

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: hloref-plugin-host PLUGIN_PATH (started by hloref's "
                 "plugin: backend, with its socket on descriptor 3)\n");
    return 2;
  }
  // The plugin's stdout goes to stderr: hloref's stdout carries results.
  dup2(2, 1);
  return hloref::backends::plugin_protocol::Serve(argv[1]);
}
