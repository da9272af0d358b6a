// The HLO IR classes, deep copy, and the located, rule-tagged program
// errors every layer reports (style.md 9.5).
#include "spec/ir/hlo_module.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "spec/ir/hlo_printer.h"

namespace hloref {

std::string SourceLocation::ToString() const {
  if (!known()) return file;
  if (file.empty()) return absl::StrCat(line, ":", column);
  return absl::StrCat(file, ":", line, ":", column);
}

// ----------------------------------------------------------------------------
// HloInstruction

HloInstruction::HloInstruction(HloOpcode opcode, Shape shape, std::string name)
    : opcode_(opcode), shape_(std::move(shape)), name_(std::move(name)) {}

HloComputation* HloInstruction::to_apply() const {
  switch (opcode_) {
    case HloOpcode::kWhile:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kConditional:
      return nullptr;
    default:
      return called_computations_.empty() ? nullptr : called_computations_[0];
  }
}

HloComputation* HloInstruction::while_condition() const {
  if (opcode_ != HloOpcode::kWhile || called_computations_.size() < 1) {
    return nullptr;
  }
  return called_computations_[0];
}

HloComputation* HloInstruction::while_body() const {
  if (opcode_ != HloOpcode::kWhile || called_computations_.size() < 2) {
    return nullptr;
  }
  return called_computations_[1];
}

HloComputation* HloInstruction::select() const {
  if (opcode_ != HloOpcode::kSelectAndScatter ||
      called_computations_.size() < 1) {
    return nullptr;
  }
  return called_computations_[0];
}

HloComputation* HloInstruction::scatter() const {
  if (opcode_ != HloOpcode::kSelectAndScatter ||
      called_computations_.size() < 2) {
    return nullptr;
  }
  return called_computations_[1];
}

absl::Span<HloComputation* const> HloInstruction::branch_computations() const {
  if (opcode_ != HloOpcode::kConditional) return {};
  return called_computations_;
}

std::string HloInstruction::ToString() const { return PrintInstruction(*this); }

std::string HloInstruction::ShortDescription() const {
  return absl::StrCat("%", name_, " = ", HloOpcodeString(opcode_), "(...)");
}

// ----------------------------------------------------------------------------
// HloComputation

HloComputation::HloComputation(std::string name) : name_(std::move(name)) {}

void HloComputation::set_name(std::string name) {
  std::string old = std::exchange(name_, std::move(name));
  if (parent_ != nullptr) parent_->OnRenamed(this, old);
}

HloInstruction* HloComputation::AddInstruction(
    std::unique_ptr<HloInstruction> inst) {
  inst->set_parent(this);
  instructions_.push_back(std::move(inst));
  return instructions_.back().get();
}

void HloComputation::FinalizeParameters() {
  // Sized by the number of parameter instructions, so a wild parameter
  // number in the text cannot make this allocate; numbers out of range or
  // given twice leave holes (nullptr) that the verifier reports.
  int64_t count = 0;
  for (const auto& inst : instructions_) {
    if (inst->opcode() == HloOpcode::kParameter) ++count;
  }
  parameters_.assign(count, nullptr);
  for (const auto& inst : instructions_) {
    if (inst->opcode() != HloOpcode::kParameter) continue;
    int64_t n = inst->parameter_number();
    if (n >= 0 && n < count && parameters_[n] == nullptr) {
      parameters_[n] = inst.get();
    }
  }
}

HloInstruction* HloComputation::FindInstruction(absl::string_view name) const {
  for (const auto& inst : instructions_) {
    if (inst->name() == name) return inst.get();
  }
  return nullptr;
}

// ----------------------------------------------------------------------------
// HloModule

HloModule::HloModule(std::string name) : name_(std::move(name)) {}

HloComputation* HloModule::AddComputation(
    std::unique_ptr<HloComputation> comp) {
  comp->set_parent(this);
  by_name_.emplace(comp->name(), comp.get());  // an earlier namesake stays
  computations_.push_back(std::move(comp));
  return computations_.back().get();
}

void HloModule::set_entry(HloComputation* entry) {
  for (auto& c : computations_) c->set_is_entry(c.get() == entry);
  entry_ = entry;
}

HloComputation* HloModule::FindComputation(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

HloComputation* HloModule::ScanForComputation(absl::string_view name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

void HloModule::OnRenamed(HloComputation* comp, const std::string& old_name) {
  // Renames are rare (never in the parser): rescan the two names.
  for (const std::string* n : {&old_name, &comp->name()}) {
    if (HloComputation* first = ScanForComputation(*n)) {
      by_name_[*n] = first;
    } else {
      by_name_.erase(*n);
    }
  }
}

std::unique_ptr<HloModule> HloModule::Clone() const {
  auto clone = std::make_unique<HloModule>(name_);
  clone->config_ = config_;
  clone->source_file_ = source_file_;
  absl::flat_hash_map<const HloComputation*, HloComputation*> comp_map;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> inst_map;
  // First pass: copy everything, keeping old pointers.
  for (const auto& c : computations_) {
    auto nc = std::make_unique<HloComputation>(c->name());
    nc->set_location(c->location());
    nc->set_execution_thread(c->execution_thread());
    nc->set_is_entry(c->is_entry());
    nc->set_is_async_sugar_wrapped(c->is_async_sugar_wrapped());
    *nc->mutable_signature_parameters() = c->signature_parameters();
    if (c->signature_result().has_value()) {
      nc->set_signature_result(*c->signature_result());
    }
    for (const auto& inst : c->instructions()) {
      auto ni = std::make_unique<HloInstruction>(*inst);
      inst_map[inst.get()] = nc->AddInstruction(std::move(ni));
    }
    if (c->root() != nullptr) nc->set_root(inst_map[c->root()]);
    comp_map[c.get()] = clone->AddComputation(std::move(nc));
  }
  // Second pass: remap operands, callees and control predecessors.
  auto remap_inst = [&](HloInstruction* old) -> HloInstruction* {
    auto it = inst_map.find(old);
    return it == inst_map.end() ? old : it->second;
  };
  for (const auto& c : clone->computations_) {
    for (const auto& inst : c->instructions()) {
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        inst->ReplaceOperand(i, remap_inst(inst->operand(i)));
      }
      for (HloComputation*& callee : *inst->mutable_called_computations()) {
        auto it = comp_map.find(callee);
        if (it != comp_map.end()) callee = it->second;
      }
      for (HloInstruction*& p : inst->mutable_attrs()->control_predecessors) {
        p = remap_inst(p);
      }
    }
    c->FinalizeParameters();
  }
  if (entry_ != nullptr) clone->set_entry(comp_map[entry_]);
  return clone;
}

// ----------------------------------------------------------------------------
// Errors

namespace {

absl::Status MakeProgramError(const SourceLocation& loc,
                              absl::string_view subject, absl::string_view rule,
                              absl::string_view message) {
  std::string text;
  std::string where = loc.ToString();
  if (!where.empty()) absl::StrAppend(&text, where, ": ");
  absl::StrAppend(&text, subject, ": ");
  if (!rule.empty()) absl::StrAppend(&text, "[", rule, "] ");
  absl::StrAppend(&text, message);
  absl::Status status = absl::InvalidArgumentError(text);
  if (!rule.empty()) status.SetPayload("hloref.rule", absl::Cord(rule));
  if (!where.empty()) status.SetPayload("hloref.location", absl::Cord(where));
  return status;
}

}  // namespace

absl::Status InstructionError(const HloInstruction& inst,
                              absl::string_view rule,
                              absl::string_view message) {
  return MakeProgramError(inst.location(), inst.ShortDescription(), rule,
                          message);
}

absl::Status ComputationError(const HloComputation& comp,
                              absl::string_view rule,
                              absl::string_view message) {
  return MakeProgramError(comp.location(),
                          absl::StrCat("computation %", comp.name()), rule,
                          message);
}

std::string RuleOf(const absl::Status& status) {
  auto payload = status.GetPayload("hloref.rule");
  if (!payload.has_value()) return "";
  return std::string(*payload);
}

}  // namespace hloref
