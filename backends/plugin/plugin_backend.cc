// The dlopen loader of hloref_plugin.h libraries (see plugin_backend.h).
#include "backends/plugin/plugin_backend.h"

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/plugin/hloref_plugin.h"
#include "spec/ir/hlo_printer.h"
#include "spec/types/primitive_type.h"
#include "spec/util/status_macros.h"

namespace hloref::backends {
namespace {

// The lock that serialises calls into one loaded library (the ABI
// promises one thread at a time). Keyed by dlopen handle, which is the same
// for every backend that opened the same file, so backends created per
// worker thread still take turns. Entries live as long as the process.
std::mutex* LockFor(void* handle) {
  static std::mutex* registry_mu = new std::mutex;
  static auto* locks = new std::map<void*, std::unique_ptr<std::mutex>>;
  std::lock_guard<std::mutex> lock(*registry_mu);
  std::unique_ptr<std::mutex>& mu = (*locks)[handle];
  if (mu == nullptr) mu = std::make_unique<std::mutex>();
  return mu.get();
}

// The loaded library: its handle, entry points and lock.
struct Library {
  std::string path;
  std::string plugin_name;
  void* handle = nullptr;
  hloref_compile_fn compile = nullptr;
  hloref_run_fn run = nullptr;
  hloref_free_results_fn free_results = nullptr;
  hloref_free_executable_fn free_executable = nullptr;
  hloref_free_string_fn free_string = nullptr;
  hloref_supports_fn supports = nullptr;  // optional
  std::mutex* mu = nullptr;

  ~Library() {
    if (handle != nullptr) dlclose(handle);
  }

  // Converts a plugin status and message into an absl::Status, releasing
  // the message. `what` says which call failed.
  absl::Status ToStatus(hloref_status code, char* message,
                        absl::string_view what) {
    std::string text = message != nullptr ? message : "";
    if (message != nullptr) free_string(message);
    if (code == HLOREF_OK) return absl::OkStatus();
    std::string full =
        absl::StrCat("plugin '", plugin_name, "' (", path, ") ", what, ": ",
                     text.empty() ? "no message" : text);
    switch (code) {
      case HLOREF_INVALID_ARGUMENT:
        return absl::InvalidArgumentError(full);
      case HLOREF_FAILED_PRECONDITION:
        return absl::FailedPreconditionError(full);
      case HLOREF_UNIMPLEMENTED:
        return absl::UnimplementedError(full);
      case HLOREF_INTERNAL:
        return absl::InternalError(full);
      case HLOREF_OK:
        break;
    }
    return absl::UnknownError(absl::StrCat(full, " (unknown hloref_status ",
                                           static_cast<int>(code), ")"));
  }
};

template <typename Fn>
absl::Status LoadSymbol(Library* lib, const char* symbol, Fn* out,
                        bool required) {
  dlerror();
  void* p = dlsym(lib->handle, symbol);
  if (p == nullptr && required) {
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", lib->path, "' lacks the required symbol '",
                     symbol, "' (see backends/plugin/hloref_plugin.h)"));
  }
  *out = reinterpret_cast<Fn>(p);
  return absl::OkStatus();
}

// Copies a plugin result buffer into a Literal, checking every field.
absl::StatusOr<Literal> LiteralFromBuffer(const hloref_buffer& buffer,
                                          int64_t index) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("result ", index, ": ", why));
  };
  if (buffer.element_type == nullptr) return bad("element_type is null");
  if (std::strcmp(buffer.element_type, "token") == 0) return Literal::Token();
  auto type = ParsePrimitiveType(buffer.element_type);
  if (!type.ok() || !IsArrayType(*type)) {
    return bad(absl::StrCat("element_type '", buffer.element_type,
                            "' is not an array element type"));
  }
  if (buffer.rank < 0 || (buffer.rank > 0 && buffer.dims == nullptr)) {
    return bad(absl::StrCat("rank ", buffer.rank, " with ",
                            buffer.dims == nullptr ? "null" : "non-null",
                            " dims"));
  }
  std::vector<int64_t> dims(buffer.dims, buffer.dims + buffer.rank);
  uint64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && count > (uint64_t{1} << 40) / d)) {
      return bad(absl::StrCat("dimension ", d, " is negative or too large"));
    }
    count *= static_cast<uint64_t>(d);
  }
  const uint64_t want = count * StorageBytes(*type);
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

class PluginExecutable : public Executable {
 public:
  PluginExecutable(std::shared_ptr<Library> lib, hloref_executable* exe)
      : lib_(std::move(lib)), exe_(exe) {}
  ~PluginExecutable() override {
    std::lock_guard<std::mutex> lock(*lib_->mu);
    lib_->free_executable(exe_);
  }

  absl::StatusOr<std::vector<Literal>> Run(
      absl::Span<const Literal> args) override {
    std::vector<hloref_buffer> buffers(args.size());
    std::vector<std::vector<int64_t>> dims(args.size());
    for (size_t k = 0; k < args.size(); ++k) {
      const Literal& arg = args[k];
      hloref_buffer& b = buffers[k];
      if (arg.shape().IsToken()) {
        b = {"token", 0, nullptr, nullptr, 0};
        continue;
      }
      if (!arg.shape().IsArray()) {
        return absl::UnimplementedError(
            absl::StrCat("plugin ABI v", HLOREF_PLUGIN_ABI_VERSION,
                         " passes array and token arguments only; argument ", k,
                         " is ", arg.shape().ToString()));
      }
      dims[k] = std::vector<int64_t>(arg.shape().dimensions().begin(),
                                     arg.shape().dimensions().end());
      b.element_type = PrimitiveTypeName(arg.element_type()).data();
      b.rank = static_cast<int64_t>(dims[k].size());
      b.dims = dims[k].data();
      b.data = arg.raw().data();
      b.size_bytes = arg.raw().size();
    }
    std::lock_guard<std::mutex> lock(*lib_->mu);
    hloref_buffer* results = nullptr;
    int64_t num_results = 0;
    char* message = nullptr;
    hloref_status code =
        lib_->run(exe_, buffers.data(), static_cast<int64_t>(buffers.size()),
                  &results, &num_results, &message);
    HLOREF_RETURN_IF_ERROR(lib_->ToStatus(code, message, "run"));
    std::vector<Literal> out;
    absl::Status status;
    if (num_results < 0 || (num_results > 0 && results == nullptr)) {
      status = absl::InvalidArgumentError(
          absl::StrCat("plugin '", lib_->plugin_name, "' run returned ",
                       num_results, " results with a ",
                       results == nullptr ? "null" : "non-null", " array"));
    }
    for (int64_t i = 0; status.ok() && i < num_results; ++i) {
      auto lit = LiteralFromBuffer(results[i], i);
      if (!lit.ok()) {
        status = absl::InvalidArgumentError(
            absl::StrCat("plugin '", lib_->plugin_name,
                         "' returned a bad buffer: ", lit.status().message()));
        break;
      }
      out.push_back(*std::move(lit));
    }
    if (results != nullptr) lib_->free_results(results, num_results);
    HLOREF_RETURN_IF_ERROR(status);
    return out;
  }

 private:
  std::shared_ptr<Library> lib_;
  hloref_executable* exe_;
};

class PluginBackend : public Backend {
 public:
  explicit PluginBackend(std::shared_ptr<Library> lib) : lib_(std::move(lib)) {}

  std::string name() const override { return "plugin:" + lib_->path; }

  absl::Status Supports(const HloInstruction& instruction) const override {
    if (lib_->supports == nullptr) return absl::OkStatus();
    std::lock_guard<std::mutex> lock(*lib_->mu);
    char* message = nullptr;
    const std::string opcode(HloOpcodeString(instruction.opcode()));
    const std::string type(
        PrimitiveTypeName(instruction.shape().element_type()));
    hloref_status code = lib_->supports(opcode.c_str(), type.c_str(), &message);
    return lib_->ToStatus(code, message, "supports");
  }

  absl::StatusOr<std::unique_ptr<Executable>> Compile(
      const HloModule& module, const CompileOptions&) override {
    const std::string text = PrintModule(module);
    std::lock_guard<std::mutex> lock(*lib_->mu);
    hloref_executable* exe = nullptr;
    char* message = nullptr;
    hloref_status code = lib_->compile(text.c_str(), &exe, &message);
    HLOREF_RETURN_IF_ERROR(lib_->ToStatus(code, message, "compile"));
    if (exe == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("plugin '", lib_->plugin_name,
                       "' compile returned HLOREF_OK and a null executable"));
    }
    return std::unique_ptr<Executable>(new PluginExecutable(lib_, exe));
  }

 private:
  std::shared_ptr<Library> lib_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreatePluginBackend(
    const std::string& path) {
  auto lib = std::make_shared<Library>();
  lib->path = path;
  lib->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib->handle == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load plugin '", path,
                     "': ", why != nullptr ? why : "dlopen failed"));
  }
  lib->mu = LockFor(lib->handle);
  hloref_plugin_abi_version_fn version = nullptr;
  hloref_plugin_name_fn plugin_name = nullptr;
  HLOREF_RETURN_IF_ERROR(
      LoadSymbol(lib.get(), "hloref_plugin_abi_version", &version, true));
  const uint32_t v = version();
  if (v != HLOREF_PLUGIN_ABI_VERSION) {
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin '", path, "' speaks hloref plugin ABI version ", v,
        ", this hloref speaks version ", HLOREF_PLUGIN_ABI_VERSION));
  }
  HLOREF_RETURN_IF_ERROR(
      LoadSymbol(lib.get(), "hloref_plugin_name", &plugin_name, true));
  HLOREF_RETURN_IF_ERROR(
      LoadSymbol(lib.get(), "hloref_compile", &lib->compile, true));
  HLOREF_RETURN_IF_ERROR(LoadSymbol(lib.get(), "hloref_run", &lib->run, true));
  HLOREF_RETURN_IF_ERROR(
      LoadSymbol(lib.get(), "hloref_free_results", &lib->free_results, true));
  HLOREF_RETURN_IF_ERROR(LoadSymbol(lib.get(), "hloref_free_executable",
                                    &lib->free_executable, true));
  HLOREF_RETURN_IF_ERROR(
      LoadSymbol(lib.get(), "hloref_free_string", &lib->free_string, true));
  HLOREF_RETURN_IF_ERROR(
      LoadSymbol(lib.get(), "hloref_supports", &lib->supports, false));
  const char* n = plugin_name();
  lib->plugin_name = n != nullptr ? n : path;
  return std::unique_ptr<Backend>(new PluginBackend(std::move(lib)));
}

}  // namespace hloref::backends
