// The oracle as a backend (see interpreter_backend.h).
#include "backends/interpreter/interpreter_backend.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "interpreter/host_queues.h"
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

  absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicated(
      absl::Span<const std::vector<Literal>> args) override {
    HLOREF_ASSIGN_OR_RETURN(std::vector<EvalResult> results,
                            evaluator_.RunReplicated(*module_, args));
    std::vector<std::vector<Literal>> out;
    out.reserve(results.size());
    for (EvalResult& result : results) {
      out.push_back(FlattenLiteral(std::move(result.value)));
    }
    return out;
  }

  absl::StatusOr<std::vector<Literal>> RunWithHost(
      absl::Span<const Literal> args, HostTransfers& host) override {
    // A fresh queue per run, filled from `host`; the evaluator shares the
    // executable's options otherwise (its rng sequence is its own).
    HostQueues queues;
    for (Literal& value : host.infeed) queues.PushInfeed(std::move(value));
    host.infeed.clear();
    for (auto& [channel, values] : host.recv) {
      for (Literal& value : values) queues.PushRecv(channel, std::move(value));
    }
    host.recv.clear();
    EvaluatorOptions options = evaluator_.options();
    options.host_queues = &queues;
    Evaluator evaluator(std::move(options));
    absl::StatusOr<Literal> value = evaluator.Evaluate(*module_, args);
    // Whatever was written before a failure is still handed back.
    for (Literal& written : queues.TakeOutfeed()) {
      host.outfeed.push_back(std::move(written));
    }
    for (int64_t channel : queues.SentChannels()) {
      for (Literal& written : queues.TakeSent(channel)) {
        host.sent[channel].push_back(std::move(written));
      }
    }
    if (!value.ok()) return value.status();
    return FlattenLiteral(*std::move(value));
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
