// custom-call on the CPU backend: targets exported by user-named shared
// libraries with seed 001's C ABI
//   extern "C" void target(void* out, void** in);
// (`out`: the result buffer, or for a tuple result an array of pointers,
// one per element; in[i]: operand i's buffer, likewise a pointer array for
// a tuple operand; buffers in the shape's layout, zeroed before the call).
// The same documented ABI as the oracle's --custom-call-lib (interpreter/
// custom_call_registry.h, read, not linked); the backend opens the
// libraries itself. A library is opened only when its path is given
// (AddCustomCallLibrary, or HLOREF_CPU_CUSTOM_CALL_LIBS=PATH[:PATH...]):
// nothing is searched for on the system.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_CUSTOM_CALL_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_CUSTOM_CALL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/cpu/runtime/run_context.h"

namespace hloref::cpu {

// Adds a library to the process-wide list the backend searches (in the
// order added, after those of HLOREF_CPU_CUSTOM_CALL_LIBS). Opens it at
// once: NotFound with dlerror's reason when it cannot be opened.
absl::Status AddCustomCallLibrary(const std::string& path);
// The libraries searched, in order.
std::vector<std::string> CustomCallLibraries();
// The address of `target` in the first library that exports it;
// Unimplemented naming the target and the libraries searched otherwise.
absl::StatusOr<void*> FindCustomCallTarget(const std::string& target);
// FindCustomCallTarget for the custom-call `instruction` (its name, for
// the message) whose api_version must be empty or API_VERSION_ORIGINAL,
// the only ABI called from a library: Unimplemented otherwise. Shared by
// the CPU emitter and the GPU backend's host steps.
absl::StatusOr<void*> ResolveCustomCallTarget(const std::string& instruction,
                                              const std::string& target,
                                              const std::string& api_version);

}  // namespace hloref::cpu

extern "C" {
// Calls `target` (resolved with FindCustomCallTarget) with the seed's ABI;
// then normalizes the `count` result arrays `leaves` (types[i], elems[i]):
// pred bytes to 0/1, sub-byte integers sign-extended or masked, as the
// oracle's unmarshalling.
void hloref_cpu_custom_call(hloref::cpu::RunContext* ctx, const char* target,
                            const char* name, void* out, void** in,
                            int64_t count, const int64_t* types,
                            const int64_t* elems, void** leaves);
}

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_CUSTOM_CALL_H_
