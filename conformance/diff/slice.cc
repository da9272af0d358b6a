// Entry slicing (see slice.h).
#include "conformance/diff/slice.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/hlo_printer.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

// The computations reachable from `roots` through called computations.
std::set<const HloComputation*> Reachable(
    std::vector<const HloComputation*> stack) {
  std::set<const HloComputation*> seen;
  while (!stack.empty()) {
    const HloComputation* c = stack.back();
    stack.pop_back();
    if (c == nullptr || !seen.insert(c).second) continue;
    for (const auto& inst : c->instructions()) {
      for (const HloComputation* callee : inst->called_computations()) {
        stack.push_back(callee);
      }
    }
  }
  return seen;
}

PrintOptions SlicePrintOptions() {
  PrintOptions options;
  // Control edges may name instructions the slice does not have.
  options.print_control_predecessors = false;
  return options;
}

// The non-entry computations of `module` in `keep`, in text order (callees
// before callers); the parser's synthesized async wrappers are left out
// (the printer writes their callers in sugared form again).
std::string PrintCallees(const HloModule& module,
                         const std::set<const HloComputation*>& keep,
                         const HloComputation* except) {
  std::string out;
  for (const auto& c : module.computations()) {
    if (c.get() == except || c->is_entry() || !keep.count(c.get()) ||
        c->is_async_sugar_wrapped()) {
      continue;
    }
    absl::StrAppend(&out, PrintComputation(*c, SlicePrintOptions()), "\n\n");
  }
  return out;
}

std::string Header(const HloModule& module, const std::string& name) {
  std::string out = absl::StrCat("HloModule ", name);
  if (module.config().replica_count != 1) {
    absl::StrAppend(&out, ", replica_count=", module.config().replica_count);
  }
  if (module.config().num_partitions != 1) {
    absl::StrAppend(&out, ", num_partitions=", module.config().num_partitions);
  }
  return absl::StrCat(out, "\n\n");
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseAndVerify(
    const std::string& text, const std::string& what) {
  auto module = ParseHloModule(text);
  if (!module.ok()) {
    return absl::InternalError(
        absl::StrCat("the slice ", what, " does not parse (an hloref bug): ",
                     module.status().message(), "\n", text));
  }
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) {
    return absl::Status(verified.code(),
                        absl::StrCat("the slice ", what,
                                     " does not verify: ", verified.message()));
  }
  return std::move(*module);
}

}  // namespace

PrimitiveType CaseElementType(const HloInstruction& inst) {
  for (const HloInstruction* o : inst.operands()) {
    if (o->shape().IsArray()) return o->shape().element_type();
  }
  return inst.shape().IsArray() ? inst.shape().element_type()
                                : PrimitiveType::kInvalid;
}

absl::StatusOr<EntrySlice> SliceEntry(
    const HloModule& module, const HloInstruction& root,
    const std::vector<const HloInstruction*>& cuts, const std::string& name) {
  const HloComputation* entry = module.entry();
  if (root.parent() != entry) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", root.name(), " is not in the entry computation"));
  }
  const std::set<const HloInstruction*> cut_set(cuts.begin(), cuts.end());
  // The instructions the root needs, stopping at cuts.
  std::set<const HloInstruction*> kept;
  std::vector<const HloInstruction*> stack = {&root};
  while (!stack.empty()) {
    const HloInstruction* i = stack.back();
    stack.pop_back();
    if (!kept.insert(i).second) continue;
    if (cut_set.count(i) && i != &root) continue;
    for (const HloInstruction* o : i->operands()) stack.push_back(o);
  }
  EntrySlice slice;
  // Original parameters (not cut), by number; then the cuts, as given.
  std::vector<const HloInstruction*> params;
  for (const HloInstruction* p : entry->parameters()) {
    if (p != nullptr && kept.count(p) && !cut_set.count(p) && p != &root) {
      params.push_back(p);
    }
  }
  for (const HloInstruction* c : cuts) {
    if (kept.count(c) && c != &root &&
        std::find(params.begin(), params.end(), c) == params.end()) {
      params.push_back(c);
    }
  }
  std::map<const HloInstruction*, int64_t> number;
  for (size_t k = 0; k < params.size(); ++k) number[params[k]] = k;
  slice.sources = params;

  std::vector<const HloComputation*> called;
  std::string body;
  for (const auto& owned : entry->instructions()) {
    const HloInstruction* i = owned.get();
    if (!kept.count(i)) continue;
    auto n = number.find(i);
    if (n != number.end()) {
      absl::StrAppend(&body, "  %", i->name(), " = ", i->shape().ToString(),
                      " parameter(", n->second, ")\n");
      continue;
    }
    if (i->opcode() == HloOpcode::kParameter) {
      // The root itself is a parameter: it stays one (numbered last).
      absl::StrAppend(&body, "  ROOT %", i->name(), " = ",
                      i->shape().ToString(), " parameter(", params.size(),
                      ")\n");
      slice.sources.push_back(i);
      continue;
    }
    for (const HloComputation* c : i->called_computations()) {
      called.push_back(c);
    }
    absl::StrAppend(&body, "  ", i == &root ? "ROOT " : "",
                    PrintInstruction(*i, SlicePrintOptions()), "\n");
  }
  slice.text = absl::StrCat(Header(module, name),
                            PrintCallees(module, Reachable(called), nullptr),
                            "ENTRY %", name, " {\n", body, "}\n");
  auto parsed = ParseAndVerify(slice.text, absl::StrCat("at %", root.name()));
  if (!parsed.ok()) return parsed.status();
  slice.module = *std::move(parsed);
  return slice;
}

absl::StatusOr<std::unique_ptr<HloModule>> EnterComputation(
    const HloModule& module, const HloComputation& computation) {
  if (computation.is_entry()) {
    return absl::InvalidArgumentError(
        absl::StrCat("computation ", computation.name(),
                     " is already the entry computation"));
  }
  std::set<const HloComputation*> keep = Reachable({&computation});
  keep.erase(&computation);
  std::string text =
      absl::StrCat(Header(module, absl::StrCat("entered_", computation.name())),
                   PrintCallees(module, keep, &computation), "ENTRY ",
                   PrintComputation(computation, SlicePrintOptions()), "\n");
  return ParseAndVerify(text, absl::StrCat("entering ", computation.name()));
}

}  // namespace hloref::conformance
