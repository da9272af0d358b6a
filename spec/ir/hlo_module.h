// The HLO IR: HloModule owns HloComputations, which own HloInstructions.
// Instructions refer to their operands and to called computations by
// pointer; text order within a computation is a topological order.
#ifndef HLOREF_SPEC_IR_HLO_MODULE_H_
#define HLOREF_SPEC_IR_HLO_MODULE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "spec/ir/attributes.h"
#include "spec/ir/opcode.h"
#include "spec/types/literal.h"
#include "spec/types/shape.h"

namespace hloref {

class HloComputation;
class HloModule;

// Where an instruction (or computation) was written; line and column are
// 1-based; line 0 means "not from text" (built through the API).
struct SourceLocation {
  std::string file;  // may be empty ("<text>")
  int line = 0;
  int column = 0;
  bool known() const { return line > 0; }
  std::string ToString() const;  // "file:12:5" or "12:5"
};

class HloInstruction {
 public:
  HloInstruction(HloOpcode opcode, Shape shape, std::string name);

  HloOpcode opcode() const { return opcode_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }

  const std::vector<HloInstruction*>& operands() const { return operands_; }
  HloInstruction* operand(int64_t i) const { return operands_[i]; }
  int64_t operand_count() const {
    return static_cast<int64_t>(operands_.size());
  }
  void AppendOperand(HloInstruction* operand) { operands_.push_back(operand); }
  void ReplaceOperand(int64_t i, HloInstruction* operand) {
    operands_[i] = operand;
  }

  // Computations this instruction calls, in the order of its attributes:
  // to_apply / calls / (condition, body) / (select, scatter) /
  // (true, false) or branch_computations / called_computations.
  const std::vector<HloComputation*>& called_computations() const {
    return called_computations_;
  }
  std::vector<HloComputation*>* mutable_called_computations() {
    return &called_computations_;
  }
  // Named accessors over called_computations(); null when absent.
  HloComputation* to_apply() const;         // to_apply or calls
  HloComputation* while_condition() const;  // while
  HloComputation* while_body() const;       // while
  HloComputation* select() const;           // select-and-scatter
  HloComputation* scatter() const;          // select-and-scatter
  // Conditional branches: (true, false) for the predicate form, else
  // branch_computations in index order.
  absl::Span<HloComputation* const> branch_computations() const;

  const HloAttributes& attrs() const { return attrs_; }
  HloAttributes* mutable_attrs() { return &attrs_; }

  // parameter(N)
  int64_t parameter_number() const { return parameter_number_; }
  void set_parameter_number(int64_t n) { parameter_number_ = n; }
  // constant(...): the value (tuple or array; may be elided).
  const Literal& literal() const { return literal_; }
  Literal* mutable_literal() { return &literal_; }

  const SourceLocation& location() const { return location_; }
  void set_location(SourceLocation loc) { location_ = std::move(loc); }

  HloComputation* parent() const { return parent_; }
  void set_parent(HloComputation* parent) { parent_ = parent; }

  // `%name = f32[2]{0} add(%a, %b), ...` (long form) as the printer writes
  // it; for diagnostics.
  std::string ToString() const;
  // `%name = add(...)` shortened for error messages.
  std::string ShortDescription() const;

 private:
  HloOpcode opcode_;
  Shape shape_;
  std::string name_;
  std::vector<HloInstruction*> operands_;
  std::vector<HloComputation*> called_computations_;
  HloAttributes attrs_;
  int64_t parameter_number_ = -1;
  Literal literal_;
  SourceLocation location_;
  HloComputation* parent_ = nullptr;
};

class HloComputation {
 public:
  explicit HloComputation(std::string name);

  const std::string& name() const { return name_; }
  // Keeps the module's name index (FindComputation) up to date.
  void set_name(std::string name);

  // Instructions in text (post) order.
  const std::vector<std::unique_ptr<HloInstruction>>& instructions() const {
    return instructions_;
  }
  int64_t instruction_count() const {
    return static_cast<int64_t>(instructions_.size());
  }
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> inst);
  HloInstruction* root() const { return root_; }
  void set_root(HloInstruction* root) { root_ = root; }
  // Parameter instructions indexed by parameter number (after
  // FinalizeParameters; nullptr where a number is missing).
  const std::vector<HloInstruction*>& parameters() const { return parameters_; }
  HloInstruction* parameter(int64_t i) const { return parameters_[i]; }
  int64_t num_parameters() const {
    return static_cast<int64_t>(parameters_.size());
  }
  // Rebuilds parameters() from the parameter instructions.
  void FinalizeParameters();
  // Looks up an instruction by name (without `%`); nullptr if absent.
  HloInstruction* FindInstruction(absl::string_view name) const;

  // Signature as written in the text, when it was (for the printer and the
  // check that the root matches); empty when absent.
  const std::vector<std::pair<std::string, Shape>>& signature_parameters()
      const {
    return signature_parameters_;
  }
  std::vector<std::pair<std::string, Shape>>* mutable_signature_parameters() {
    return &signature_parameters_;
  }
  const std::optional<Shape>& signature_result() const {
    return signature_result_;
  }
  void set_signature_result(Shape s) { signature_result_ = std::move(s); }

  const std::string& execution_thread() const { return execution_thread_; }
  void set_execution_thread(std::string t) { execution_thread_ = std::move(t); }
  bool is_entry() const { return is_entry_; }
  void set_is_entry(bool e) { is_entry_ = e; }
  const SourceLocation& location() const { return location_; }
  void set_location(SourceLocation loc) { location_ = std::move(loc); }
  HloModule* parent() const { return parent_; }
  void set_parent(HloModule* m) { parent_ = m; }

  // True for the one-instruction computation the parser synthesizes for the
  // async sugar (`custom-call-start(...)` = async-start calling a wrapped
  // custom-call). The printer does not print such a computation; it prints
  // the async-start/update/done that call it in sugared form again.
  bool is_async_sugar_wrapped() const { return is_async_sugar_wrapped_; }
  void set_is_async_sugar_wrapped(bool v) { is_async_sugar_wrapped_ = v; }

 private:
  bool is_async_sugar_wrapped_ = false;
  std::string name_;
  std::vector<std::unique_ptr<HloInstruction>> instructions_;
  HloInstruction* root_ = nullptr;
  std::vector<HloInstruction*> parameters_;
  std::vector<std::pair<std::string, Shape>> signature_parameters_;
  std::optional<Shape> signature_result_;
  std::string execution_thread_;  // empty = "main"
  bool is_entry_ = false;
  SourceLocation location_;
  HloModule* parent_ = nullptr;
};

// Header attributes of a module (section 2.1 of docs/hlo-text-format.md).
struct HloModuleConfig {
  bool is_scheduled = false;
  bool has_is_scheduled = false;
  std::optional<std::vector<Shape>> entry_parameter_layouts;
  std::optional<Shape> entry_result_layout;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  std::map<std::string, std::string> frontend_attributes;
  // Other header attributes verbatim, in text order, as (name, value):
  // input_output_alias, buffer_donor, allow_spmd_..., tables.
  std::vector<std::pair<std::string, std::string>> other;
};

class HloModule {
 public:
  explicit HloModule(std::string name);

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const HloModuleConfig& config() const { return config_; }
  HloModuleConfig* mutable_config() { return &config_; }

  // Computations in text order (callees before callers).
  const std::vector<std::unique_ptr<HloComputation>>& computations() const {
    return computations_;
  }
  HloComputation* AddComputation(std::unique_ptr<HloComputation> comp);
  HloComputation* entry() const { return entry_; }
  void set_entry(HloComputation* entry);
  // The first computation (in text order) with this name, or null; a hash
  // lookup (modules of optimised dumps hold tens of thousands of fusion
  // computations, and the parser asks for every name it reads).
  HloComputation* FindComputation(absl::string_view name) const;

  // The file the module was parsed from ("" for text or the builder).
  const std::string& source_file() const { return source_file_; }
  void set_source_file(std::string f) { source_file_ = std::move(f); }

  // Deep copy (instructions, attributes, literals, locations).
  std::unique_ptr<HloModule> Clone() const;

 private:
  std::string name_;
  HloModuleConfig config_;
  friend class HloComputation;  // OnRenamed
  // Called by HloComputation::set_name for a computation of this module.
  void OnRenamed(HloComputation* comp, const std::string& old_name);
  // The first computation in text order named `name`, by a linear scan.
  HloComputation* ScanForComputation(absl::string_view name) const;

  std::vector<std::unique_ptr<HloComputation>> computations_;
  // name -> the first computation in text order with that name.
  absl::flat_hash_map<std::string, HloComputation*> by_name_;
  HloComputation* entry_ = nullptr;
  std::string source_file_;
};

// Errors about a program: InvalidArgument with the message
//   `file:12:5: %g = gather(...): [gather.C4] slice_sizes has 3 entries,
//    operand rank is 2`
// and payloads "hloref.rule" (the rule ID) and "hloref.location"
// (file:line:col) so tools can read them structurally.
absl::Status InstructionError(const HloInstruction& inst,
                              absl::string_view rule,
                              absl::string_view message);
absl::Status ComputationError(const HloComputation& comp,
                              absl::string_view rule,
                              absl::string_view message);
// Reads the rule ID payload of a status ("" if none).
std::string RuleOf(const absl::Status& status);

}  // namespace hloref

#endif  // HLOREF_SPEC_IR_HLO_MODULE_H_
