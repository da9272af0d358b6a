// Where custom-call targets come from (seed 001 "CustomCall"): a registry
// of in-process targets, and shared libraries the user names explicitly
// (`hloref run --custom-call-lib=PATH`, EvaluatorOptions::
// custom_call_libraries) whose exported symbols use the seed's ABI
//   extern "C" void target_name(void* out, void** in);
// A library is opened only when its path is given: the oracle never
// searches the system for a target.
#ifndef HLOREF_INTERPRETER_CUSTOM_CALL_REGISTRY_H_
#define HLOREF_INTERPRETER_CUSTOM_CALL_REGISTRY_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref {

// An in-process target: receives the custom-call instruction (its shape,
// custom_call_target, backend_config, literal=, ...) and the operand
// values, returns the result, whose shape must be the instruction's
// (dimensions and element type; a tuple for a tuple-shaped custom-call).
using CustomCallFunction = std::function<absl::StatusOr<Literal>(
    const HloInstruction& inst, absl::Span<const Literal* const> operands)>;

// The seed's C ABI: `out` points to the result buffer (for a tuple result,
// to an array of pointers, one per element buffer), in[i] to operand i's
// buffer (likewise an array of pointers for a tuple operand).
using CustomCallCFunction = void (*)(void* out, void** in);

class CustomCallRegistry {
 public:
  // Registers `fn` under `target_name`; AlreadyExists if the name is taken.
  absl::Status Register(absl::string_view target_name, CustomCallFunction fn);
  // The target registered under `target_name`, or nullptr.
  const CustomCallFunction* Find(absl::string_view target_name) const;
  // Registered names, sorted (for error messages).
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, CustomCallFunction, std::less<>> targets_;
};

// Opens the shared library at `path` (once per process: later calls with
// the same path return the same handle; libraries stay loaded until exit)
// and looks up `symbol`. Errors: NotFound naming the library and dlerror's
// reason when it cannot be opened; NotFound naming the symbol and the
// library when the symbol is absent. A path without '/' is taken relative
// to the working directory, never searched for on the library path.
absl::StatusOr<CustomCallCFunction> LookupCustomCallSymbol(
    const std::string& path, const std::string& symbol);
// Just opens the library (the same cache), to report a bad path early.
absl::Status OpenCustomCallLibrary(const std::string& path);

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_CUSTOM_CALL_REGISTRY_H_
