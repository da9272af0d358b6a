// hloref diff (see diff.h).
#include "conformance/diff/diff.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/diff/slice.h"
#include "conformance/generators/generator.h"
#include "conformance/harness/suite.h"
#include "spec/ir/hlo_printer.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

std::string LocationOf(const HloInstruction& inst) {
  return inst.location().known() ? inst.location().ToString() : "";
}

// Judges `module` on `backend` with `args` the way the conformance suite
// judges a generated case (oracle, backend, comparator).
CaseRecord Judge(const HloModule& module, std::vector<Literal> args,
                 HloOpcode opcode, PrimitiveType type, const std::string& id,
                 backends::Backend& backend, const DiffOptions& options) {
  GeneratedCase c;
  c.id = id;
  c.opcode = opcode;
  c.type = type;
  c.module_text = PrintModule(module);
  c.module = module.Clone();
  c.args = std::move(args);
  SuiteOptions suite;
  suite.deviations = options.deviations;
  suite.profile = options.profile;
  suite.compile_options = options.compile_options;
  return RunGeneratedCase(c, backend, suite);
}

class Differ {
 public:
  Differ(backends::Backend& backend, const DiffOptions& options,
         DiffResult& result)
      : backend_(backend), options_(options), result_(result) {}

  // Judges the entry instructions of `module` run on `args`; returns the
  // index (into result.instructions) of the innermost first departure at
  // this level, or -1.
  //
  // `original` is the computation of the user's module that `module`'s
  // entry was printed from: locations are reported in the user's file.
  absl::StatusOr<int> Run(const HloModule& module,
                          absl::Span<const Literal> args,
                          const std::vector<std::string>& path,
                          const HloComputation& original) {
    // The oracle's value of every entry instruction.
    std::map<const HloInstruction*, Literal> values;
    EvaluatorOptions eval_options;
    eval_options.profile = options_.profile;
    eval_options.entry_value_observer = [&values](const HloInstruction& inst,
                                                  const Literal& value) {
      values.insert_or_assign(&inst, value);
    };
    Evaluator oracle(eval_options);
    absl::StatusOr<EvalResult> run = oracle.Run(module, args);
    if (!run.ok()) {
      return absl::Status(
          run.status().code(),
          absl::StrCat(
              path.empty() ? "" : absl::StrCat(absl::StrJoin(path, "/"), ": "),
              "the oracle cannot evaluate the module: ",
              run.status().message()));
    }
    int first = -1;
    for (const auto& owned : module.entry()->instructions()) {
      const HloInstruction& inst = *owned;
      if (inst.opcode() == HloOpcode::kParameter) continue;
      if (first >= 0 && !options_.all) break;
      InstructionVerdict verdict;
      verdict.path = path;
      verdict.name = inst.name();
      if (const HloInstruction* source = original.FindInstruction(inst.name());
          source != nullptr) {
        verdict.location = LocationOf(*source);
      }
      verdict.opcode = inst.opcode();
      std::vector<const HloInstruction*> operands;
      for (const HloInstruction* o : inst.operands()) {
        if (std::find(operands.begin(), operands.end(), o) == operands.end()) {
          operands.push_back(o);
        }
      }
      absl::StatusOr<EntrySlice> isolated = SliceEntry(
          module, inst, operands, absl::StrCat("isolated_", inst.name()));
      if (!isolated.ok()) {
        verdict.outcome = Outcome::kSkipped;
        verdict.message = std::string(isolated.status().message());
        result_.instructions.push_back(std::move(verdict));
        continue;
      }
      // The oracle's values of the operands, in parameter order.
      std::vector<Literal> isolated_args;
      bool missing = false;
      for (const HloInstruction* source : isolated->sources) {
        auto it = values.find(source);
        if (it == values.end()) {
          missing = true;
          break;
        }
        isolated_args.push_back(it->second);
      }
      if (missing) {
        verdict.outcome = Outcome::kSkipped;
        verdict.message = "an operand was not evaluated by the oracle";
        result_.instructions.push_back(std::move(verdict));
        continue;
      }
      CaseRecord record = Judge(*isolated->module, isolated_args, inst.opcode(),
                                CaseElementType(inst), verdict.QualifiedName(),
                                backend_, options_);
      verdict.outcome = record.outcome;
      verdict.message = record.message;
      const bool failed = record.outcome == Outcome::kFail;
      if (failed) {
        verdict.isolated_module = isolated->text;
        verdict.isolated_args = isolated_args;
      }
      const int index = static_cast<int>(result_.instructions.size());
      result_.instructions.push_back(std::move(verdict));
      // Enter a failing fusion or call: its computation runs once on the
      // instruction's operands, so the search can go on inside. An
      // unsupported one is entered too: the backend may run its parts.
      const bool unsupported = record.outcome == Outcome::kUnsupported;
      if (!failed && !unsupported) continue;
      int departure = failed ? index : -1;
      const bool enterable = inst.opcode() == HloOpcode::kFusion ||
                             inst.opcode() == HloOpcode::kCall;
      if (options_.descend && enterable && inst.to_apply() != nullptr &&
          static_cast<int>(path.size()) < options_.max_depth) {
        absl::StatusOr<std::unique_ptr<HloModule>> inner =
            EnterComputation(module, *inst.to_apply());
        if (inner.ok()) {
          std::vector<Literal> inner_args;
          for (const HloInstruction* o : inst.operands()) {
            inner_args.push_back(values.at(o));
          }
          std::vector<std::string> inner_path = path;
          inner_path.push_back(inst.name());
          const HloComputation* source_callee =
              original.FindInstruction(inst.name()) != nullptr
                  ? original.FindInstruction(inst.name())->to_apply()
                  : nullptr;
          absl::StatusOr<int> inner_first =
              Run(**inner, inner_args, inner_path,
                  source_callee != nullptr ? *source_callee
                                           : *inner->get()->entry());
          if (inner_first.ok() && *inner_first >= 0) departure = *inner_first;
        }
      }
      if (first < 0 && departure >= 0) first = departure;
    }
    return first;
  }

 private:
  backends::Backend& backend_;
  const DiffOptions& options_;
  DiffResult& result_;
};

}  // namespace

std::string InstructionVerdict::QualifiedName() const {
  if (path.empty()) return name;
  return absl::StrCat(absl::StrJoin(path, "/"), "/", name);
}

std::string DiffResult::Conclusion() const {
  if (first_departure >= 0) {
    const InstructionVerdict& v = instructions[first_departure];
    return absl::StrCat(
        "%", v.QualifiedName(), v.location.empty() ? "" : " (", v.location,
        v.location.empty() ? "" : ")",
        " is the first instruction that departs from the oracle when fed "
        "the oracle's operands: ",
        v.message);
  }
  switch (whole) {
    case Outcome::kPass:
      return "no departure: the whole module and every isolated "
             "instruction agree with the oracle";
    case Outcome::kFail:
      return absl::StrCat(
          "the module departs from the oracle (", whole_message,
          ") but no isolated instruction does: the departure needs several "
          "instructions together (fusion or reassociation across "
          "instructions); shrink the module with `hloref reduce`");
    default:
      return absl::StrCat("the whole module is ", OutcomeName(whole), ": ",
                          whole_message, "; no isolated instruction departs");
  }
}

absl::StatusOr<std::unique_ptr<HloModule>> IsolateInstruction(
    const HloModule& module, const HloInstruction& instruction) {
  if (instruction.opcode() == HloOpcode::kParameter) {
    return absl::InvalidArgumentError("a parameter is not isolated");
  }
  std::vector<const HloInstruction*> operands;
  for (const HloInstruction* o : instruction.operands()) {
    if (std::find(operands.begin(), operands.end(), o) == operands.end()) {
      operands.push_back(o);
    }
  }
  HLOREF_ASSIGN_OR_RETURN(
      EntrySlice slice,
      SliceEntry(module, instruction, operands,
                 absl::StrCat("isolated_", instruction.name())));
  return std::move(slice.module);
}

absl::StatusOr<DiffResult> DiffModule(const HloModule& module,
                                      absl::Span<const Literal> args,
                                      backends::Backend& backend,
                                      const DiffOptions& options) {
  HLOREF_RETURN_IF_ERROR(VerifyModule(module));
  if (module.config().replica_count * module.config().num_partitions != 1) {
    return absl::UnimplementedError(absl::StrCat(
        "hloref diff runs single-device modules; this one has replica_count=",
        module.config().replica_count,
        " num_partitions=", module.config().num_partitions));
  }
  DiffResult result;
  std::vector<Literal> all_args(args.begin(), args.end());
  CaseRecord whole = Judge(module, all_args, module.entry()->root()->opcode(),
                           CaseElementType(*module.entry()->root()),
                           module.name(), backend, options);
  result.whole = whole.outcome;
  result.whole_message = whole.message;
  Differ differ(backend, options, result);
  HLOREF_ASSIGN_OR_RETURN(result.first_departure,
                          differ.Run(module, args, {}, *module.entry()));
  return result;
}

}  // namespace hloref::conformance
