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

#include <cstdint>
#include <map>
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
  // Shared libraries that serve custom-call targets with the ABI of
  // `hloref run --custom-call-lib` (`void f(void* out, void** in)`), for
  // in-process backends that compile custom-calls (cpu). Others ignore it.
  std::vector<std::string> custom_call_libraries;
};

// What a run exchanges with the host besides its arguments and results
// (seed 001 "Infeed", "Send", "Recv"; outfeed, docs/hlo-text-format.md
// 6.12). The caller fills the inputs; the run consumes them and appends
// the outputs.
struct HostTransfers {
  // In: one value per infeed executed, consumed in order.
  std::vector<Literal> infeed;
  // In: the values recv with is_host_transfer=true receives, per channel
  // id, consumed in order.
  std::map<int64_t, std::vector<Literal>> recv;
  // Out: the values outfeed wrote, in order.
  std::vector<Literal> outfeed;
  // Out: the values send with is_host_transfer=true wrote, per channel id.
  std::map<int64_t, std::vector<Literal>> sent;
};

// A compiled module, ready to run any number of times.
//
// Run is the one entry point every backend implements. The other two are
// optional capabilities; a backend without them answers Unimplemented, which
// the harness reports as *unsupported* (never as a pass):
//   RunReplicated     modules with replica_count * num_partitions > 1
//   RunWithHost       modules with infeed, outfeed or host-transfer
//                     send/recv
class Executable {
 public:
  virtual ~Executable() = default;
  // Runs the entry computation on one literal per entry parameter. The
  // result is the root value flattened: one array (or token) literal per
  // leaf of a tuple root, in order; a non-tuple root gives one literal.
  virtual absl::StatusOr<std::vector<Literal>> Run(
      absl::Span<const Literal> args) = 0;

  // Runs every participant of a replicated module (replica r, partition p
  // is participant r * partitions + p). `args` holds one argument list per
  // participant, or one list that every participant gets. Returns one
  // flattened result per participant, in participant order.
  virtual absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicated(
      absl::Span<const std::vector<Literal>> args);

  // Run with host transfers: reads host->infeed / host->recv from `host`
  // and appends what outfeed and host-transfer sends wrote.
  virtual absl::StatusOr<std::vector<Literal>> RunWithHost(
      absl::Span<const Literal> args, HostTransfers& host);
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
