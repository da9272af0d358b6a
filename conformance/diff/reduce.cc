// hloref reduce (see reduce.h).
#include "conformance/diff/reduce.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "conformance/compare/enclosure_model.h"
#include "conformance/diff/slice.h"
#include "conformance/generators/generator.h"
#include "conformance/harness/suite.h"
#include "spec/ir/hlo_printer.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

int64_t EntrySize(const HloModule& module) {
  return module.entry()->instruction_count();
}

// The oracle's value of every entry instruction of `module` on `args`.
absl::StatusOr<std::map<const HloInstruction*, Literal>> OracleValues(
    const HloModule& module, absl::Span<const Literal> args,
    int64_t max_bytes) {
  std::map<const HloInstruction*, Literal> values;
  EvaluatorOptions options;
  options.max_bytes = max_bytes;
  options.entry_value_observer = [&values](int64_t, const HloInstruction& inst,
                                           const Literal& value) {
    values.insert_or_assign(&inst, value);
  };
  Evaluator oracle(options);
  HLOREF_RETURN_IF_ERROR(oracle.Run(module, args).status());
  return values;
}

class Reducer {
 public:
  Reducer(const StillFails& still_fails, const ReduceOptions& options)
      : still_fails_(still_fails),
        options_(options),
        deadline_(absl::Now() + options.max_time) {}

  absl::StatusOr<ReduceResult> Run(const HloModule& module,
                                   absl::Span<const Literal> args) {
    HLOREF_RETURN_IF_ERROR(VerifyModule(module));
    if (module.config().replica_count * module.config().num_partitions != 1) {
      return absl::UnimplementedError(
          absl::StrCat("hloref reduce runs single-device modules; this one has "
                       "replica_count=",
                       module.config().replica_count,
                       " num_partitions=", module.config().num_partitions));
    }
    result_.instructions_before = EntrySize(module);
    current_ = module.Clone();
    args_.assign(args.begin(), args.end());
    std::string why;
    ++result_.candidates;
    if (!still_fails_(*current_, args_, &why)) {
      return absl::FailedPreconditionError(
          "the module does not fail on the backend with these arguments; "
          "there is nothing to reduce");
    }
    result_.why = why;
    bool changed = true;
    while (changed && !Exhausted()) {
      changed = false;
      auto values = OracleValues(*current_, args_, options_.max_bytes);
      if (!values.ok()) break;  // keep the last good module
      changed = TryRoot(*values) || TryEnter(*values) || TryCut(*values);
    }
    result_.exhausted = Exhausted();
    result_.instructions_after = EntrySize(*current_);
    result_.module_text = PrintModule(*current_);
    result_.module = std::move(current_);
    result_.args = std::move(args_);
    return std::move(result_);
  }

 private:
  bool Exhausted() const {
    return result_.candidates >= options_.max_candidates ||
           absl::Now() >= deadline_;
  }

  // The arguments of a slice: the current arguments for the original
  // parameters, the oracle's values for the cut instructions.
  std::vector<Literal> SliceArgs(
      const EntrySlice& slice,
      const std::map<const HloInstruction*, Literal>& values) const {
    std::vector<Literal> out;
    for (const HloInstruction* source : slice.sources) {
      if (source->opcode() == HloOpcode::kParameter) {
        out.push_back(args_[source->parameter_number()]);
      } else {
        out.push_back(values.at(source));
      }
    }
    return out;
  }

  // Judges a candidate; adopts it when it still fails.
  bool Accept(std::unique_ptr<HloModule> candidate, std::vector<Literal> args,
              const std::string& move) {
    if (Exhausted()) return false;
    ++result_.candidates;
    std::string why;
    if (!still_fails_(*candidate, args, &why)) return false;
    const int64_t before = EntrySize(*current_);
    current_ = std::move(candidate);
    args_ = std::move(args);
    result_.why = why;
    ++result_.steps;
    if (options_.log) {
      options_.log(absl::StrCat(move, ": ", before, " -> ",
                                EntrySize(*current_), " instructions"));
    }
    return true;
  }

  std::string SliceName() const {
    return absl::StrCat(current_->name(), "_r", result_.steps + 1);
  }

  // root: the earliest instruction (post order) that still fails alone.
  bool TryRoot(const std::map<const HloInstruction*, Literal>& values) {
    const HloInstruction* root = current_->entry()->root();
    for (const auto& owned : current_->entry()->instructions()) {
      const HloInstruction* i = owned.get();
      if (i == root || i->opcode() == HloOpcode::kParameter) continue;
      auto slice = SliceEntry(*current_, *i, {}, SliceName());
      if (!slice.ok() || EntrySize(*slice->module) >= EntrySize(*current_)) {
        continue;
      }
      std::vector<Literal> args = SliceArgs(*slice, values);
      if (Accept(std::move(slice->module), std::move(args),
                 absl::StrCat("root %", i->name()))) {
        return true;
      }
      if (Exhausted()) return false;
    }
    return false;
  }

  // enter: a fusion or call at the root becomes the module.
  bool TryEnter(const std::map<const HloInstruction*, Literal>& values) {
    const HloInstruction* root = current_->entry()->root();
    if ((root->opcode() != HloOpcode::kFusion &&
         root->opcode() != HloOpcode::kCall) ||
        root->to_apply() == nullptr) {
      return false;
    }
    auto inner = EnterComputation(*current_, *root->to_apply());
    if (!inner.ok()) return false;
    std::vector<Literal> args;
    for (const HloInstruction* o : root->operands()) {
      args.push_back(values.at(o));
    }
    return Accept(*std::move(inner), std::move(args),
                  absl::StrCat("enter %", root->name()));
  }

  // cut: an instruction becomes a parameter, nearest the root first.
  bool TryCut(const std::map<const HloInstruction*, Literal>& values) {
    const HloInstruction* root = current_->entry()->root();
    const auto& instructions = current_->entry()->instructions();
    for (auto it = instructions.rbegin(); it != instructions.rend(); ++it) {
      const HloInstruction* i = it->get();
      if (i == root || i->opcode() == HloOpcode::kParameter ||
          i->operand_count() == 0) {
        continue;
      }
      auto slice = SliceEntry(*current_, *root, {i}, SliceName());
      if (!slice.ok() || EntrySize(*slice->module) >= EntrySize(*current_)) {
        continue;
      }
      std::vector<Literal> args = SliceArgs(*slice, values);
      if (Accept(std::move(slice->module), std::move(args),
                 absl::StrCat("cut %", i->name()))) {
        return true;
      }
      if (Exhausted()) return false;
    }
    return false;
  }

  const StillFails& still_fails_;
  const ReduceOptions& options_;
  const absl::Time deadline_;
  std::unique_ptr<HloModule> current_;
  std::vector<Literal> args_;
  ReduceResult result_;
};

}  // namespace

absl::StatusOr<ReduceResult> ReduceModule(const HloModule& module,
                                          absl::Span<const Literal> args,
                                          const StillFails& still_fails,
                                          const ReduceOptions& options) {
  Reducer reducer(still_fails, options);
  return reducer.Run(module, args);
}

StillFails BackendStillFails(backends::Backend& backend, Profile profile,
                             Deviations deviations,
                             backends::CompileOptions compile_options,
                             std::string match, int64_t max_bytes) {
  return
      [&backend, profile, deviations = std::move(deviations),
       compile_options = std::move(compile_options), match = std::move(match),
       max_bytes](const HloModule& module, absl::Span<const Literal> args,
                  std::string* why) {
        GeneratedCase c;
        c.id = module.name();
        c.opcode = module.entry()->root()->opcode();
        c.type = CaseElementType(*module.entry()->root());
        c.module_text = PrintModule(module);
        c.module = module.Clone();
        c.args.assign(args.begin(), args.end());
        SuiteOptions suite;
        suite.profile = profile;
        suite.deviations = deviations;
        suite.compile_options = compile_options;
        suite.max_bytes = max_bytes;
        CaseRecord record = RunGeneratedCase(c, backend, suite);
        if (why != nullptr) *why = record.message;
        return record.outcome == Outcome::kFail &&
               (match.empty() || absl::StrContains(record.message, match));
      };
}

StillFails EnclosureStillFails(backends::Backend& backend, Profile profile,
                               Deviations deviations,
                               backends::CompileOptions compile_options,
                               std::string match, int64_t max_bytes) {
  return [&backend, profile, deviations = std::move(deviations),
          compile_options = std::move(compile_options),
          match = std::move(match),
          max_bytes](const HloModule& module, absl::Span<const Literal> args,
                     std::string* why) {
    auto failed = [&](const std::string& text) {
      if (why != nullptr) *why = text;
      return match.empty() || absl::StrContains(text, match);
    };
    EvaluatorOptions oracle;
    oracle.profile = profile;
    if (max_bytes > 0) oracle.max_bytes = max_bytes;
    absl::StatusOr<ModuleEnclosure> enc = ComputeEnclosure(
        module, args, PolicyEnclosureOptions(oracle, deviations));
    if (!enc.ok()) {
      if (why != nullptr) *why = std::string(enc.status().message());
      return false;  // not judgeable: never kept as "still failing"
    }
    absl::StatusOr<std::unique_ptr<backends::Executable>> exe =
        backend.Compile(module, compile_options);
    if (!exe.ok()) {
      return match.empty() &&
             failed(absl::StrCat("compile error: ", exe.status().message()));
    }
    absl::StatusOr<std::vector<Literal>> got = (*exe)->Run(args);
    if (!got.ok()) {
      return match.empty() &&
             failed(absl::StrCat("run error: ", got.status().message()));
    }
    absl::StatusOr<EnclosureVerdict> verdict = JudgeWithEnclosure(*enc, *got);
    if (!verdict.ok() || verdict->TotalFail() == 0) return false;
    for (size_t i = 0; i < verdict->outputs.size(); ++i) {
      const EnclosureOutputVerdict& o = verdict->outputs[i];
      if (!o.failures.empty()) {
        return failed(absl::StrCat(o.fail, " element(s) of result ", i,
                                   " outside the whole-program enclosure; "
                                   "first ",
                                   o.failures.front().ToString()));
      }
    }
    return false;
  };
}

}  // namespace hloref::conformance
