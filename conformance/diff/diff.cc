// hloref diff (see diff.h).
#include "conformance/diff/diff.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/compare/enclosure_model.h"
#include "conformance/diff/slice.h"
#include "conformance/generators/generator.h"
#include "conformance/harness/suite.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/hlo_printer.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

std::string LocationOf(const HloInstruction& inst) {
  return inst.location().known() ? inst.location().ToString() : "";
}

// Per-participant argument lists: one per participant of `module`, or one
// list every participant gets.
using ParticipantArgs = std::vector<std::vector<Literal>>;

int64_t Participants(const HloModule& module) {
  return module.config().replica_count * module.config().num_partitions;
}

// Judges `module` on `backend` with `args` the way the conformance suite
// judges a generated case (oracle, backend, comparator); replicated
// modules run replicated on both sides, every participant judged. One
// participant's list moves into the case and back, so a large argument
// is not copied (`args` is unchanged on return).
CaseRecord Judge(const HloModule& module, ParticipantArgs& args,
                 HloOpcode opcode, PrimitiveType type, const std::string& id,
                 backends::Backend& backend, const DiffOptions& options) {
  GeneratedCase c;
  c.id = id;
  c.opcode = opcode;
  c.type = type;
  c.module_text = PrintModule(module);
  c.module = module.Clone();
  c.replica_count = module.config().replica_count;
  c.partition_count = module.config().num_partitions;
  const bool one_list = args.size() == 1;
  if (one_list) {
    c.args = std::move(args.front());
  } else {
    c.args = args.front();
    c.participant_args = args;
  }
  SuiteOptions suite;
  suite.deviations = options.deviations;
  suite.profile = options.profile;
  suite.compile_options = options.compile_options;
  CaseRecord record = RunGeneratedCase(c, backend, suite);
  if (one_list) args.front() = std::move(c.args);
  return record;
}

// Host transfers need the host queues of a run: not judged by enclosures.
bool UsesHost(const HloModule& module) {
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      switch (inst->opcode()) {
        case HloOpcode::kInfeed:
        case HloOpcode::kOutfeed:
        case HloOpcode::kSend:
        case HloOpcode::kRecv:
        case HloOpcode::kSendDone:
        case HloOpcode::kRecvDone:
          return true;
        default:
          break;
      }
    }
  }
  return false;
}

// The whole module on the backend judged against its whole-program
// enclosures (single participant, no host transfers).
void JudgeWithEnclosures(const HloModule& module,
                         absl::Span<const Literal> args,
                         backends::Backend& backend, const DiffOptions& options,
                         DiffResult& result) {
  if (Participants(module) > 1) {
    result.enclosure_note = "enclosures are computed for one participant";
    return;
  }
  EvaluatorOptions eval_options;
  eval_options.profile = options.profile;
  eval_options.max_bytes = options.max_bytes;
  absl::StatusOr<ModuleEnclosure> enc = ComputeEnclosure(
      module, args, PolicyEnclosureOptions(eval_options, options.deviations));
  if (!enc.ok()) {
    result.enclosure_note =
        absl::StrCat("enclosures not computed: ", enc.status().message());
    return;
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> exe =
      backend.Compile(module, options.compile_options);
  if (!exe.ok()) {
    result.enclosure_note = absl::StrCat(
        "the backend cannot compile the "
        "module: ",
        exe.status().message());
    return;
  }
  absl::StatusOr<std::vector<Literal>> got = (*exe)->Run(args);
  if (!got.ok()) {
    result.enclosure_note = absl::StrCat("the backend cannot run the module: ",
                                         got.status().message());
    return;
  }
  absl::StatusOr<EnclosureVerdict> verdict = JudgeWithEnclosure(*enc, *got);
  if (!verdict.ok()) {
    result.enclosure_note = std::string(verdict.status().message());
    return;
  }
  result.enclosure = *std::move(verdict);
}

// Whether every leaf of `shape` is an array (no token, no opaque).
bool AllLeavesArrays(const Shape& shape) {
  if (!shape.IsTuple()) return shape.IsArray();
  for (const Shape& s : shape.tuple_shapes()) {
    if (!AllLeavesArrays(s)) return false;
  }
  return true;
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

// The module computing every value of the entry but the parameters: a
// clone whose entry root is a flat tuple of every array-valued
// instruction and of every array leaf of each tuple-valued one (reached by
// get-tuple-element chains, so any backend that returns a tuple of arrays
// can run it). `kept` gets the instructions in entry order; each takes
// LeafCount(shape) outputs in turn. Values holding a token are left out.
absl::StatusOr<std::unique_ptr<HloModule>> AllValuesModule(
    const HloModule& module, std::vector<const HloInstruction*>& kept) {
  std::unique_ptr<HloModule> clone = module.Clone();
  HloComputation* entry = clone->entry();
  std::vector<HloInstruction*> values;
  std::vector<Shape> shapes;
  int64_t leaf_names = 0;
  // Appends the array leaves of `v` to `values`, in flattening order.
  std::function<void(HloInstruction*)> add_leaves = [&](HloInstruction* v) {
    if (!v->shape().IsTuple()) {
      values.push_back(v);
      shapes.push_back(v->shape());
      return;
    }
    for (int64_t i = 0; i < v->shape().tuple_size(); ++i) {
      auto gte = std::make_unique<HloInstruction>(
          HloOpcode::kGetTupleElement, v->shape().tuple_shapes(i),
          absl::StrCat("enclosure_leaf.", leaf_names++));
      gte->AppendOperand(v);
      gte->mutable_attrs()->index = i;
      add_leaves(entry->AddInstruction(std::move(gte)));
    }
  };
  for (const auto& owned : module.entry()->instructions()) {
    const HloInstruction& inst = *owned;
    if (inst.opcode() == HloOpcode::kParameter ||
        !AllLeavesArrays(inst.shape()) || LeafCount(inst.shape()) == 0) {
      continue;
    }
    HloInstruction* c = entry->FindInstruction(inst.name());
    if (c == nullptr) continue;
    kept.push_back(&inst);
    add_leaves(c);
  }
  auto tuple = std::make_unique<HloInstruction>(
      HloOpcode::kTuple, Shape::Tuple(shapes), "enclosure_all_values");
  for (HloInstruction* v : values) tuple->AppendOperand(v);
  entry->set_root(entry->AddInstruction(std::move(tuple)));
  entry->set_signature_result(entry->root()->shape());
  clone->mutable_config()->entry_result_layout.reset();
  // Through text, as every slice: a module any backend can take.
  const std::string text = PrintModule(*clone);
  HLOREF_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> parsed,
                          ParseHloModule(text));
  HLOREF_RETURN_IF_ERROR(VerifyModule(*parsed));
  return parsed;
}

// The value of shape `shape` rebuilt from `leaves` (consumed from `next`).
Literal Assemble(const Shape& shape, std::vector<Literal>& leaves,
                 size_t& next) {
  if (!shape.IsTuple()) return std::move(leaves[next++]);
  std::vector<Literal> elements;
  for (const Shape& s : shape.tuple_shapes()) {
    elements.push_back(Assemble(s, leaves, next));
  }
  return Literal::MakeTuple(std::move(elements));
}

void FlattenInto(const Literal& value, std::vector<Literal>& leaves) {
  if (!value.shape().IsTuple()) {
    leaves.push_back(value);
    return;
  }
  for (const Literal& e : value.tuple_elements()) FlattenInto(e, leaves);
}

// One level of the localisation (DiffResult::enclosure_departure):
// `module`'s entry on `args`, where the parameters in `rounded_params`
// hold values a backend computed (an entered fusion's operands). `path`
// names the fusions entered; `original` is the user's computation the
// entry was printed from (for locations). Sets result.enclosure_departure
// and returns true on a departure; adds the instructions found inside to
// `judged`; `note` says why a level could not be searched.
bool LocaliseAt(const HloModule& module, absl::Span<const Literal> args,
                const std::set<int64_t>& rounded_params,
                const std::vector<std::string>& path,
                const HloComputation& original, backends::Backend& backend,
                const DiffOptions& options, int64_t& judged, std::string& note,
                DiffResult& result) {
  const std::string where =
      path.empty() ? "" : absl::StrCat(" inside %", absl::StrJoin(path, "/%"));
  std::vector<const HloInstruction*> kept;
  absl::StatusOr<std::unique_ptr<HloModule>> all =
      AllValuesModule(module, kept);
  if (!all.ok()) {
    note = absl::StrCat("no module of every intermediate value", where, ": ",
                        all.status().message());
    return false;
  }
  absl::StatusOr<std::unique_ptr<backends::Executable>> exe =
      backend.Compile(**all, options.compile_options);
  if (!exe.ok()) {
    note = absl::StrCat(
        "the backend cannot compile the module of every "
        "intermediate value",
        where, ": ", exe.status().message());
    return false;
  }
  absl::StatusOr<std::vector<Literal>> got = (*exe)->Run(args);
  int64_t leaves = 0;
  for (const HloInstruction* inst : kept) leaves += LeafCount(inst->shape());
  if (!got.ok() || static_cast<int64_t>(got->size()) != leaves) {
    note = absl::StrCat(
        "the backend cannot run the module of every intermediate value", where,
        got.ok() ? "" : ": ", got.ok() ? "" : got.status().message());
    return false;
  }
  std::map<const HloInstruction*, Literal> backend_value;
  {
    size_t next = 0;
    for (const HloInstruction* inst : kept) {
      backend_value[inst] = Assemble(inst->shape(), *got, next);
    }
    got->clear();
  }
  EvaluatorOptions eval_options;
  eval_options.profile = options.profile;
  eval_options.max_bytes = options.max_bytes;
  for (const HloInstruction* inst : kept) {
    // The operands' values: the arguments, or the backend's.
    std::vector<const HloInstruction*> operands;
    for (const HloInstruction* o : inst->operands()) {
      if (std::find(operands.begin(), operands.end(), o) == operands.end()) {
        operands.push_back(o);
      }
    }
    std::vector<Literal> values;
    std::set<int64_t> rounded;
    bool available = true;
    for (const HloInstruction* o : operands) {
      const int64_t slot = static_cast<int64_t>(values.size());
      if (o->opcode() == HloOpcode::kParameter) {
        const int64_t n = o->parameter_number();
        if (n < 0 || n >= static_cast<int64_t>(args.size())) {
          available = false;
          break;
        }
        values.push_back(args[n]);
        if (rounded_params.count(n) > 0) rounded.insert(slot);
        continue;
      }
      auto it = backend_value.find(o);
      if (it == backend_value.end()) {
        available = false;  // a value holding a token
        break;
      }
      values.push_back(it->second);
      rounded.insert(slot);
    }
    if (!available) continue;
    absl::StatusOr<std::unique_ptr<HloModule>> isolated =
        IsolateInstruction(module, *inst);
    if (!isolated.ok()) continue;
    EnclosureOptions enc_options =
        PolicyEnclosureOptions(eval_options, options.deviations);
    enc_options.rounded_arguments.insert(rounded.begin(), rounded.end());
    absl::StatusOr<ModuleEnclosure> enc =
        ComputeEnclosure(**isolated, values, enc_options);
    if (!enc.ok()) continue;
    std::vector<Literal> flat;
    FlattenInto(backend_value[inst], flat);
    absl::StatusOr<EnclosureVerdict> verdict = JudgeWithEnclosure(*enc, flat);
    if (!verdict.ok()) continue;
    if (verdict->TotalFail() == 0) {
      ++judged;
      continue;
    }
    EnclosureDeparture d;
    d.path = path;
    d.name = inst->name();
    const HloInstruction* source = original.FindInstruction(inst->name());
    d.location = LocationOf(source != nullptr ? *source : *inst);
    d.opcode = inst->opcode();
    d.verdict = *std::move(verdict);
    d.judged_before = judged;
    result.enclosure_departure = std::move(d);
    // A fusion or call: search its computation, run on its own on the
    // backend's values of the operands (every one of them rounded).
    const bool enterable = inst->opcode() == HloOpcode::kFusion ||
                           inst->opcode() == HloOpcode::kCall;
    if (!options.descend || !enterable || inst->to_apply() == nullptr ||
        static_cast<int>(path.size()) >= options.max_depth) {
      return true;
    }
    absl::StatusOr<std::unique_ptr<HloModule>> inner =
        EnterComputation(module, *inst->to_apply());
    if (!inner.ok()) return true;
    std::vector<Literal> inner_args;
    std::set<int64_t> inner_rounded;
    for (const HloInstruction* o : inst->operands()) {
      const int64_t slot = static_cast<int64_t>(inner_args.size());
      if (o->opcode() == HloOpcode::kParameter) {
        inner_args.push_back(args[o->parameter_number()]);
        if (rounded_params.count(o->parameter_number()) > 0) {
          inner_rounded.insert(slot);
        }
      } else {
        inner_args.push_back(backend_value[o]);
        inner_rounded.insert(slot);
      }
    }
    std::vector<std::string> inner_path = path;
    inner_path.push_back(inst->name());
    const HloComputation* source_callee =
        source != nullptr ? source->to_apply() : nullptr;
    const EnclosureDeparture outer = *result.enclosure_departure;
    int64_t inner_judged = judged;
    std::string inner_note;
    if (LocaliseAt(
            **inner, inner_args, inner_rounded, inner_path,
            source_callee != nullptr ? *source_callee : *inner->get()->entry(),
            backend, options, inner_judged, inner_note, result)) {
      return true;
    }
    result.enclosure_departure = outer;
    note =
        inner_note.empty()
            ? absl::StrCat("inside %", outer.QualifiedName(),
                           ", run on its own on the backend's operand values, "
                           "every instruction lies inside its enclosure: the "
                           "departure needs its instructions together")
            : inner_note;
    return true;
  }
  return false;
}

// DiffResult::enclosure_departure (see diff.h).
void LocaliseWithEnclosures(const HloModule& module,
                            absl::Span<const Literal> args,
                            backends::Backend& backend,
                            const DiffOptions& options, DiffResult& result) {
  int64_t judged = 0;
  std::string note;
  if (LocaliseAt(module, args, /*rounded_params=*/{}, /*path=*/{},
                 *module.entry(), backend, options, judged, note, result)) {
    result.localisation_note = note;
    return;
  }
  result.localisation_note =
      !note.empty()
          ? note
          : absl::StrCat(
                "every one of the ", judged,
                " instructions judged on the backend's own operand values "
                "lies inside its enclosure (the departure is in an "
                "instruction whose operands or value hold tokens, or outside "
                "what the enclosures judge)");
}

std::string EnclosureText(const DiffResult& r) {
  if (!r.enclosure.has_value()) return "";
  int64_t pass = 0, fail = 0, unjudged = 0, dont_care = 0;
  double radius = 0;
  std::string first_failure;
  for (size_t i = 0; i < r.enclosure->outputs.size(); ++i) {
    const EnclosureOutputVerdict& o = r.enclosure->outputs[i];
    pass += o.pass;
    fail += o.fail;
    unjudged += o.unjudged;
    dont_care += o.dont_care;
    radius = std::max(radius, o.max_relative_radius);
    if (first_failure.empty() && !o.failures.empty()) {
      first_failure = absl::StrCat("; first: result ", i, " ",
                                   o.failures.front().ToString());
    }
  }
  return absl::StrCat("whole-program enclosures: ", pass, " pass, ", fail,
                      " fail, ", unjudged, " unjudged, ", dont_care,
                      " don't care, largest relative radius ", radius,
                      first_failure);
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
  absl::StatusOr<int> Run(const HloModule& module, ParticipantArgs& args,
                          const std::vector<std::string>& path,
                          const HloComputation& original) {
    // The oracle's value of every entry instruction, per participant (each
    // participant's thread writes only its own map).
    const int64_t participants = Participants(module);
    std::vector<std::map<const HloInstruction*, Literal>> values(
        static_cast<size_t>(participants));
    // Each entry instruction's last user (its index in the entry's order):
    // only values some instruction reads are kept, each until its last
    // user has been judged, and the parameters are read from `args`
    // (diffing a dump with gigabytes of weights kept a copy of every value
    // and every argument for the whole search).
    const HloComputation& entry = *module.entry();
    std::map<const HloInstruction*, int64_t> last_use;
    {
      int64_t index = 0;
      for (const auto& owned : entry.instructions()) {
        for (const HloInstruction* o : owned->operands()) last_use[o] = index;
        ++index;
      }
    }
    EvaluatorOptions eval_options;
    eval_options.profile = options_.profile;
    eval_options.max_bytes = options_.max_bytes;
    eval_options.entry_value_observer = [&values, &last_use](
                                            int64_t participant,
                                            const HloInstruction& inst,
                                            const Literal& value) {
      if (inst.opcode() == HloOpcode::kParameter || !last_use.contains(&inst)) {
        return;
      }
      values[static_cast<size_t>(participant)].insert_or_assign(&inst, value);
    };
    Evaluator oracle(eval_options);
    absl::Status run = participants > 1
                           ? oracle.RunReplicated(module, args).status()
                           : oracle.Run(module, args.front()).status();
    if (!run.ok()) {
      return absl::Status(
          run.code(),
          absl::StrCat(
              path.empty() ? "" : absl::StrCat(absl::StrJoin(path, "/"), ": "),
              "the oracle cannot evaluate the module: ", run.message()));
    }
    // The oracle's values of `sources` for every participant, or nullopt
    // when one is missing. With `loans`, `sources` are distinct and the
    // parameters' arguments are moved out of `args` (a weight of gigabytes
    // is not copied for the one instruction that reads it), recorded in
    // `loans` for give_back; otherwise they are copied.
    struct Loan {
      size_t participant, number, position;
    };
    auto values_of =
        [&](const std::vector<const HloInstruction*>& sources,
            std::vector<Loan>* loans) -> std::optional<ParticipantArgs> {
      for (size_t p = 0; p < values.size(); ++p) {
        const std::vector<Literal>& list = args[std::min(p, args.size() - 1)];
        for (const HloInstruction* source : sources) {
          if (source->opcode() == HloOpcode::kParameter) {
            const int64_t number = source->parameter_number();
            if (number < 0 || number >= static_cast<int64_t>(list.size())) {
              return std::nullopt;
            }
          } else if (!values[p].contains(source)) {
            return std::nullopt;
          }
        }
      }
      // One list per participant: each list's entries lent at most once.
      const bool lend = loans != nullptr && args.size() == values.size();
      ParticipantArgs out;
      for (size_t p = 0; p < values.size(); ++p) {
        std::vector<Literal>& list = args[std::min(p, args.size() - 1)];
        std::vector<Literal> own;
        for (const HloInstruction* source : sources) {
          if (source->opcode() == HloOpcode::kParameter) {
            const size_t number =
                static_cast<size_t>(source->parameter_number());
            if (lend) {
              loans->push_back({p, number, own.size()});
              own.push_back(std::move(list[number]));
            } else {
              own.push_back(list[number]);
            }
            continue;
          }
          own.push_back(values[p].at(source));
        }
        out.push_back(std::move(own));
      }
      return out;
    };
    // The lent arguments back into `args`.
    auto give_back = [&](ParticipantArgs& from,
                         const std::vector<Loan>& loans) {
      for (const Loan& l : loans) {
        args[l.participant][l.number] =
            std::move(from[l.participant][l.position]);
      }
    };
    int first = -1;
    int64_t index = -1;
    for (const auto& owned : entry.instructions()) {
      const HloInstruction& inst = *owned;
      ++index;
      // The values whose last user was the previous instruction.
      if (index > 0) {
        for (auto& participant : values) {
          for (auto it = participant.begin(); it != participant.end();) {
            it = last_use.at(it->first) < index ? participant.erase(it)
                                                : std::next(it);
          }
        }
      }
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
      std::vector<Loan> loans;
      std::optional<ParticipantArgs> isolated_args =
          values_of(isolated->sources, &loans);
      if (!isolated_args.has_value()) {
        verdict.outcome = Outcome::kSkipped;
        verdict.message = "an operand was not evaluated by the oracle";
        result_.instructions.push_back(std::move(verdict));
        continue;
      }
      CaseRecord record = Judge(*isolated->module, *isolated_args,
                                inst.opcode(), CaseElementType(inst),
                                verdict.QualifiedName(), backend_, options_);
      verdict.outcome = record.outcome;
      verdict.message = record.message;
      const bool failed = record.outcome == Outcome::kFail;
      if (failed) {
        verdict.isolated_module = isolated->text;
        verdict.isolated_args = isolated_args->front();
        if (isolated_args->size() > 1) {
          verdict.isolated_participant_args = *isolated_args;
        }
      }
      give_back(*isolated_args, loans);
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
          std::vector<const HloInstruction*> operands(inst.operands().begin(),
                                                      inst.operands().end());
          std::optional<ParticipantArgs> inner_args =
              values_of(operands, nullptr);
          if (!inner_args.has_value()) continue;
          std::vector<std::string> inner_path = path;
          inner_path.push_back(inst.name());
          const HloComputation* source_callee =
              original.FindInstruction(inst.name()) != nullptr
                  ? original.FindInstruction(inst.name())->to_apply()
                  : nullptr;
          absl::StatusOr<int> inner_first =
              Run(**inner, *inner_args, inner_path,
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

std::string EnclosureDeparture::QualifiedName() const {
  if (path.empty()) return name;
  return absl::StrCat(absl::StrJoin(path, "/"), "/", name);
}

std::string DiffResult::Conclusion() const {
  std::string text = ConclusionWithoutEnclosure();
  if (enclosure_departure.has_value()) {
    const EnclosureDeparture& d = *enclosure_departure;
    std::string first;
    for (const EnclosureOutputVerdict& o : d.verdict.outputs) {
      if (!o.failures.empty()) {
        first = o.failures.front().ToString();
        break;
      }
    }
    absl::StrAppend(
        &text, " %", d.QualifiedName(), d.location.empty() ? "" : " (",
        d.location, d.location.empty() ? "" : ")",
        " is the first instruction whose backend value leaves its enclosure "
        "computed from the backend's own operand values (",
        d.verdict.TotalFail(), " elements, first ", first, ").");
    // A fusion whose inside did not show the departure says why.
    if (!localisation_note.empty()) {
      absl::StrAppend(&text, " ", localisation_note, ".");
    }
  } else if (enclosure.has_value() && enclosure->TotalFail() > 0 &&
             !localisation_note.empty()) {
    absl::StrAppend(&text,
                    " No single instruction was named by the "
                    "enclosures: ",
                    localisation_note, ".");
  }
  const std::string enc = EnclosureText(*this);
  if (!enc.empty()) absl::StrAppend(&text, " [", enc, "]");
  return text;
}

std::string DiffResult::ConclusionWithoutEnclosure() const {
  if (conforms_within_enclosures) {
    return absl::StrCat(
        "the module conforms within its whole-program enclosures: its "
        "outputs differ from the oracle's per-op rounding (",
        whole_message,
        ") but every element lies inside the set any conforming "
        "implementation may produce (fusion, FMA contraction or excess "
        "precision), so no instruction was isolated");
  }
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
  return DiffModuleTakingArgs(
      module, std::vector<Literal>(args.begin(), args.end()), backend, options);
}

absl::StatusOr<DiffResult> DiffModuleTakingArgs(const HloModule& module,
                                                std::vector<Literal> owned_args,
                                                backends::Backend& backend,
                                                const DiffOptions& options) {
  HLOREF_RETURN_IF_ERROR(VerifyModule(module));
  const int64_t participants = Participants(module);
  ParticipantArgs all_args;
  if (!options.participant_args.empty()) {
    if (static_cast<int64_t>(options.participant_args.size()) != participants) {
      return absl::InvalidArgumentError(
          absl::StrCat(options.participant_args.size(),
                       " per-participant argument lists for a module with ",
                       participants, " participants"));
    }
    all_args = options.participant_args;
  } else if (participants == 1) {
    all_args.push_back(std::move(owned_args));
  } else {
    // One list for every participant.
    all_args.assign(static_cast<size_t>(participants), owned_args);
  }
  DiffResult result;
  CaseRecord whole = Judge(module, all_args, module.entry()->root()->opcode(),
                           CaseElementType(*module.entry()->root()),
                           module.name(), backend, options);
  result.whole = whole.outcome;
  result.whole_message = whole.message;
  // Without per-participant lists every participant has the same list.
  const absl::Span<const Literal> args = all_args.front();
  if (options.enclosure && options.participant_args.empty() &&
      !UsesHost(module)) {
    JudgeWithEnclosures(module, args, backend, options, result);
    if (result.enclosure.has_value() && result.enclosure->TotalFail() > 0) {
      LocaliseWithEnclosures(module, args, backend, options, result);
    }
    if (result.whole == Outcome::kFail && result.enclosure.has_value() &&
        result.enclosure->TotalFail() == 0 &&
        result.enclosure->TotalUnjudged() == 0) {
      int64_t dont_care = 0;
      for (const auto& o : result.enclosure->outputs) dont_care += o.dont_care;
      result.conforms_within_enclosures = dont_care == 0;
      if (result.conforms_within_enclosures) return result;
    }
  }
  Differ differ(backend, options, result);
  HLOREF_ASSIGN_OR_RETURN(result.first_departure,
                          differ.Run(module, all_args, {}, *module.entry()));
  return result;
}

}  // namespace hloref::conformance
