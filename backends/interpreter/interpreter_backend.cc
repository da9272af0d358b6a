// The oracle as a backend (see interpreter_backend.h).
#include "backends/interpreter/interpreter_backend.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref::backends {
namespace {

class InterpreterExecutable : public Executable {
 public:
  InterpreterExecutable(std::unique_ptr<HloModule> module,
                        EvaluatorOptions options)
      : module_(std::move(module)), evaluator_(std::move(options)) {}

  absl::StatusOr<std::vector<Literal>> Run(
      absl::Span<const Literal> args) override {
    HLOREF_ASSIGN_OR_RETURN(Literal value, evaluator_.Evaluate(*module_, args));
    return FlattenLiteral(std::move(value));
  }

 private:
  std::unique_ptr<HloModule> module_;
  Evaluator evaluator_;
};

class InterpreterBackend : public Backend {
 public:
  explicit InterpreterBackend(EvaluatorOptions options)
      : options_(std::move(options)) {}

  std::string name() const override { return "interpreter"; }

  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Executable>> Compile(
      const HloModule& module, const CompileOptions&) override {
    // The evaluator assumes a verified module; verifying here keeps a
    // malformed module a clear InvalidArgument, never a crash.
    HLOREF_RETURN_IF_ERROR(VerifyModule(module));
    return std::unique_ptr<Executable>(
        new InterpreterExecutable(module.Clone(), options_));
  }

 private:
  EvaluatorOptions options_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateInterpreterBackend(
    EvaluatorOptions options) {
  return std::unique_ptr<Backend>(new InterpreterBackend(std::move(options)));
}

}  // namespace hloref::backends
