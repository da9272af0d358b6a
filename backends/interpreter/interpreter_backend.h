// The reference interpreter (the oracle) offered as a backend, so that the
// conformance harness can certify it like any other (self-checks). This is
// the one backend allowed to depend on interpreter/ (style.md 9.4).
#ifndef HLOREF_BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_
#define HLOREF_BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_

#include <memory>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "interpreter/evaluator.h"

namespace hloref::backends {

// Named "interpreter". Supports every instruction (ops the evaluator lacks
// answer Unimplemented when they run). Compile verifies the module and
// keeps a copy; Run evaluates it with `options` (XLA profile by default).
absl::StatusOr<std::unique_ptr<Backend>> CreateInterpreterBackend(
    EvaluatorOptions options = {});

}  // namespace hloref::backends

#endif  // HLOREF_BACKENDS_INTERPRETER_INTERPRETER_BACKEND_H_
