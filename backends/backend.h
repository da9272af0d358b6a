// The Backend / Executable interfaces every compiler or runtime under test
// implements (docs/architecture.md "backends/", style.md 9.4). Literals are
// the only data crossing the boundary. Backends never include interpreter/
// headers (the interpreter adapter in backends/interpreter/ is the one
// exception: it IS the oracle, offered as a backend for self-checks).
//
// Status codes a backend returns, and what the conformance harness makes of
// them (style.md 9.5):
//   kUnimplemented       an op, type or feature the backend does not
//                        support: the case is *unsupported*, never a pass
//   kFailedPrecondition  the environment is missing (no device, no program,
//                        a plugin of another ABI version): *skipped*
//   anything else        the case *fails* (the message says why)
#ifndef HLOREF_BACKENDS_BACKEND_H_
#define HLOREF_BACKENDS_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"

namespace hloref::backends {

struct CompileOptions {
  // Out-of-process backends (command:) kill a program that runs longer
  // than this and report DeadlineExceeded, so a hung runtime never hangs
  // the suite. In-process backends ignore it.
  absl::Duration timeout = absl::Minutes(5);
  // command: keep each run's exchange directory (its path is in the
  // error message or printed by the harness) instead of deleting it.
  bool keep_files = false;
  // command: where exchange directories are created; empty: the system
  // temporary directory ($TMPDIR or /tmp).
  std::string work_dir;
};

// A compiled module, ready to run any number of times.
class Executable {
 public:
  virtual ~Executable() = default;
  // Runs the entry computation on one literal per entry parameter. The
  // result is the root value flattened: one array (or token) literal per
  // leaf of a tuple root, in order; a non-tuple root gives one literal.
  virtual absl::StatusOr<std::vector<Literal>> Run(
      absl::Span<const Literal> args) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // The registry name this backend was created under ("interpreter",
  // "plugin:/path/lib.so", "command:prog").
  virtual std::string name() const = 0;
  // OK when the backend can compile this instruction (opcode, element
  // types, attributes); Unimplemented with a message naming what is
  // missing otherwise. Backends that only learn this at compile time
  // answer OK and let Compile say Unimplemented.
  virtual absl::Status Supports(const HloInstruction& instruction) const = 0;
  // Compiles a verified module.
  virtual absl::StatusOr<std::unique_ptr<Executable>> Compile(
      const HloModule& module, const CompileOptions& options) = 0;
};

// Asks Supports for every instruction of every computation of `module`;
// the first refusal is returned with the instruction's location and text
// prepended ("12:3: %x = cbrt(...): ...").
absl::Status SupportsModule(const Backend& backend, const HloModule& module);

// The leaves of a literal in order (a non-tuple literal is its own leaf);
// moves them out of `value`.
std::vector<Literal> FlattenLiteral(Literal value);

}  // namespace hloref::backends

#endif  // HLOREF_BACKENDS_BACKEND_H_
