// The HLO text printer: XLA's canonical long form (section 8 of
// docs/hlo-text-format.md) and its short parsable form. Attributes are
// written in ops.def order, then the called computations, then the common
// trailing attributes in the doc's order; defaults are omitted.
#include "spec/ir/hlo_printer.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloref {
namespace {

std::string Quote(absl::string_view s) {
  return absl::StrCat("\"", absl::CEscape(s), "\"");
}

// XLA prints a string value raw when it lexes as a `{...}` dictionary.
bool LooksLikeDict(absl::string_view s) {
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') return false;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      ++i;
      while (i < s.size() && s[i] != '"') {
        if (s[i] == '\\') ++i;
        ++i;
      }
      if (i >= s.size()) return false;
      continue;
    }
    if (c == '{') ++depth;
    if (c == '}') {
      --depth;
      if (depth == 0 && i + 1 != s.size()) return false;
      if (depth < 0) return false;
    }
  }
  return depth == 0;
}

std::string StringOrDict(absl::string_view s) {
  return LooksLikeDict(s) ? std::string(s) : Quote(s);
}

std::string IntList(absl::Span<const int64_t> v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

std::string IntListList(const std::vector<std::vector<int64_t>>& v) {
  std::vector<std::string> parts;
  for (const auto& inner : v) parts.push_back(IntList(inner));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

std::string WindowToString(const Window& w) {
  if (w.dimensions.empty()) return "{}";
  auto join = [&](auto field) {
    std::vector<std::string> parts;
    for (const WindowDimension& d : w.dimensions) {
      parts.push_back(absl::StrCat(field(d)));
    }
    return absl::StrJoin(parts, "x");
  };
  auto any = [&](auto pred) {
    for (const WindowDimension& d : w.dimensions) {
      if (pred(d)) return true;
    }
    return false;
  };
  std::string out = absl::StrCat(
      "{size=", join([](const WindowDimension& d) { return d.size; }));
  if (any([](const WindowDimension& d) { return d.stride != 1; })) {
    absl::StrAppend(&out, " stride=", join([](const WindowDimension& d) {
      return d.stride;
    }));
  }
  if (any([](const WindowDimension& d) {
        return d.padding_low != 0 || d.padding_high != 0;
      })) {
    absl::StrAppend(&out, " pad=", join([](const WindowDimension& d) {
      return absl::StrCat(d.padding_low, "_", d.padding_high);
    }));
  }
  if (any([](const WindowDimension& d) { return d.base_dilation != 1; })) {
    absl::StrAppend(&out, " lhs_dilate=", join([](const WindowDimension& d) {
      return d.base_dilation;
    }));
  }
  if (any([](const WindowDimension& d) { return d.window_dilation != 1; })) {
    absl::StrAppend(&out, " rhs_dilate=", join([](const WindowDimension& d) {
      return d.window_dilation;
    }));
  }
  if (any([](const WindowDimension& d) { return d.window_reversal; })) {
    absl::StrAppend(&out, " rhs_reversal=", join([](const WindowDimension& d) {
      return d.window_reversal ? 1 : 0;
    }));
  }
  absl::StrAppend(&out, "}");
  return out;
}

std::string PaddingToString(const PaddingConfig& p) {
  bool interior = false;
  for (const PaddingDimension& d : p.dimensions) {
    if (d.interior_padding != 0) interior = true;
  }
  std::vector<std::string> parts;
  for (const PaddingDimension& d : p.dimensions) {
    std::string s = absl::StrCat(d.edge_padding_low, "_", d.edge_padding_high);
    if (interior) absl::StrAppend(&s, "_", d.interior_padding);
    parts.push_back(std::move(s));
  }
  return absl::StrJoin(parts, "x");
}

std::string SliceToString(const SliceConfig& s) {
  bool strided = false;
  for (int64_t st : s.strides) {
    if (st != 1) strided = true;
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < s.start_indices.size(); ++i) {
    std::string p =
        absl::StrCat("[", s.start_indices[i], ":",
                     i < s.limit_indices.size() ? s.limit_indices[i] : 0);
    if (strided && i < s.strides.size()) absl::StrAppend(&p, ":", s.strides[i]);
    absl::StrAppend(&p, "]");
    parts.push_back(std::move(p));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

std::string DimLabelsToString(const ConvolutionDimensionNumbers& dn) {
  if (!dn.text.empty()) return dn.text;
  auto part = [](int64_t a_dim, char a, int64_t b_dim, char b,
                 const std::vector<int64_t>& spatial) {
    std::string s(spatial.size() + 2, '?');
    auto put = [&](int64_t pos, char c) {
      if (pos >= 0 && pos < static_cast<int64_t>(s.size())) s[pos] = c;
    };
    put(a_dim, a);
    put(b_dim, b);
    for (size_t i = 0; i < spatial.size(); ++i) {
      put(spatial[i], static_cast<char>('0' + i));
    }
    return s;
  };
  return absl::StrCat(
      part(dn.input_batch_dimension, 'b', dn.input_feature_dimension, 'f',
           dn.input_spatial_dimensions),
      "_",
      part(dn.kernel_input_feature_dimension, 'i',
           dn.kernel_output_feature_dimension, 'o',
           dn.kernel_spatial_dimensions),
      "->",
      part(dn.output_batch_dimension, 'b', dn.output_feature_dimension, 'f',
           dn.output_spatial_dimensions));
}

std::string ReplicaGroupsToString(const ReplicaGroups& rg) {
  if (!rg.iota_text.empty()) return rg.iota_text;
  return IntListList(rg.groups);
}

absl::string_view DirectionName(ComparisonDirection d) {
  switch (d) {
    case ComparisonDirection::kEq:
      return "EQ";
    case ComparisonDirection::kNe:
      return "NE";
    case ComparisonDirection::kLt:
      return "LT";
    case ComparisonDirection::kLe:
      return "LE";
    case ComparisonDirection::kGt:
      return "GT";
    case ComparisonDirection::kGe:
      return "GE";
  }
  return "EQ";
}

absl::string_view ComparisonTypeName(ComparisonType t) {
  switch (t) {
    case ComparisonType::kDefault:
      return "";
    case ComparisonType::kFloat:
      return "FLOAT";
    case ComparisonType::kTotalOrder:
      return "TOTALORDER";
    case ComparisonType::kSigned:
      return "SIGNED";
    case ComparisonType::kUnsigned:
      return "UNSIGNED";
  }
  return "";
}

ComparisonType DefaultComparisonType(PrimitiveType t) {
  if (IsFloat(t) || IsComplex(t)) return ComparisonType::kFloat;
  if (IsSignedInt(t)) return ComparisonType::kSigned;
  return ComparisonType::kUnsigned;
}

absl::string_view PrecisionName(PrecisionConfig p) {
  switch (p) {
    case PrecisionConfig::kDefault:
      return "default";
    case PrecisionConfig::kHigh:
      return "high";
    case PrecisionConfig::kHighest:
      return "highest";
  }
  return "default";
}

absl::string_view FusionKindName(FusionKind k) {
  switch (k) {
    case FusionKind::kLoop:
      return "kLoop";
    case FusionKind::kInput:
      return "kInput";
    case FusionKind::kOutput:
      return "kOutput";
    case FusionKind::kCustom:
      return "kCustom";
  }
  return "kLoop";
}

absl::string_view FftTypeName(FftType t) {
  switch (t) {
    case FftType::kFft:
      return "FFT";
    case FftType::kIfft:
      return "IFFT";
    case FftType::kRfft:
      return "RFFT";
    case FftType::kIrfft:
      return "IRFFT";
  }
  return "FFT";
}

absl::string_view TransposeAName(TransposeA t) {
  switch (t) {
    case TransposeA::kUnset:
      return "";
    case TransposeA::kNoTranspose:
      return "NO_TRANSPOSE";
    case TransposeA::kTranspose:
      return "TRANSPOSE";
    case TransposeA::kAdjoint:
      return "ADJOINT";
  }
  return "";
}

std::string MetadataToString(const OpMetadata& m) {
  std::vector<std::string> parts;
  if (!m.op_type.empty()) parts.push_back("op_type=" + Quote(m.op_type));
  if (!m.op_name.empty()) parts.push_back("op_name=" + Quote(m.op_name));
  if (!m.source_file.empty()) {
    parts.push_back("source_file=" + Quote(m.source_file));
  }
  if (m.source_line != 0) {
    parts.push_back(absl::StrCat("source_line=", m.source_line));
  }
  if (m.source_end_line != 0) {
    parts.push_back(absl::StrCat("source_end_line=", m.source_end_line));
  }
  if (m.source_column != 0) {
    parts.push_back(absl::StrCat("source_column=", m.source_column));
  }
  if (m.source_end_column != 0) {
    parts.push_back(absl::StrCat("source_end_column=", m.source_end_column));
  }
  if (!m.other.empty()) parts.push_back(m.other);
  if (m.stack_frame_id != 0) {
    parts.push_back(absl::StrCat("stack_frame_id=", m.stack_frame_id));
  }
  if (parts.empty()) return "";
  return absl::StrCat("{", absl::StrJoin(parts, " "), "}");
}

std::string FrontendAttributesToString(
    const std::map<std::string, std::string>& fa) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : fa) parts.push_back(k + "=" + StringOrDict(v));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

class Printer {
 public:
  explicit Printer(const PrintOptions& options) : options_(options) {}

  std::string Name(const std::string& name) const {
    return options_.print_percent ? "%" + name : name;
  }

  // The opcode word, with the async sugar when the callee is synthesized.
  static const HloInstruction* SugarWrapped(const HloInstruction& inst) {
    if (inst.opcode() != HloOpcode::kAsyncStart &&
        inst.opcode() != HloOpcode::kAsyncUpdate &&
        inst.opcode() != HloOpcode::kAsyncDone) {
      return nullptr;
    }
    if (inst.called_computations().empty()) return nullptr;
    const HloComputation* c = inst.called_computations()[0];
    if (c == nullptr || !c->is_async_sugar_wrapped() || c->root() == nullptr) {
      return nullptr;
    }
    return c->root();
  }

  std::string Instruction(const HloInstruction& inst) const {
    std::string out = absl::StrCat(Name(inst.name()), " = ",
                                   inst.shape().ToString(true), " ");
    const HloInstruction* wrapped = SugarWrapped(inst);
    if (wrapped != nullptr) {
      absl::string_view suffix =
          inst.opcode() == HloOpcode::kAsyncStart    ? "-start"
          : inst.opcode() == HloOpcode::kAsyncUpdate ? "-update"
                                                     : "-done";
      absl::StrAppend(&out, HloOpcodeString(wrapped->opcode()), suffix);
    } else {
      absl::StrAppend(&out, HloOpcodeString(inst.opcode()));
    }
    absl::StrAppend(&out, "(");
    if (inst.opcode() == HloOpcode::kParameter) {
      absl::StrAppend(&out, inst.parameter_number());
    } else if (inst.opcode() == HloOpcode::kConstant) {
      absl::StrAppend(&out, ConstantText(inst.literal()));
    } else {
      for (int64_t i = 0; i < inst.operand_count(); ++i) {
        if (i > 0) absl::StrAppend(&out, ", ");
        if (i > 0 && i % 5 == 0 && options_.print_index_comments) {
          absl::StrAppend(&out, "/*index=", i, "*/");
        }
        const HloInstruction* op = inst.operand(i);
        if (op == nullptr) {
          absl::StrAppend(&out, "<null>");
          continue;
        }
        if (options_.print_operand_shapes) {
          absl::StrAppend(&out, op->shape().ToString(true), " ");
        }
        absl::StrAppend(&out, Name(op->name()));
      }
    }
    absl::StrAppend(&out, ")");
    std::vector<std::string> attrs;
    if (wrapped != nullptr) {
      if (inst.opcode() == HloOpcode::kAsyncStart) {
        OpAttributes(*wrapped, &attrs);
        if (!inst.attrs().async_execution_thread.empty() &&
            inst.attrs().async_execution_thread != "main") {
          attrs.push_back("async_execution_thread=" +
                          Quote(inst.attrs().async_execution_thread));
        }
      }
    } else {
      OpAttributes(inst, &attrs);
    }
    CommonAttributes(inst, &attrs);
    for (const std::string& a : attrs) absl::StrAppend(&out, ", ", a);
    return out;
  }

  std::string ConstantText(const Literal& lit) const {
    if (lit.is_elided()) return "{...}";
    if (!options_.print_large_constants) {
      if (lit.shape().IsTuple()) return "{...}";
      if (lit.shape().IsArray() && lit.element_count() > 10) return "{...}";
    }
    return NegativeZeros(lit.ToStringWithoutShape());
  }

  // With print_negative_zero_as_decimal, every `-0` token of literal text
  // (a float or complex part that is negative zero: integers never print
  // `-0`) becomes `-0.0`. Tokens like `-0.5`, `-0e-05` or `-0x1` are left
  // alone: the character after the `0` must end the number.
  std::string NegativeZeros(std::string text) const {
    if (!options_.print_negative_zero_as_decimal) return text;
    std::string out;
    out.reserve(text.size());
    auto is_word = [](char c) {
      return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' ||
             c == '_';
    };
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '-' && i + 1 < text.size() && text[i + 1] == '0' &&
          (i == 0 || !is_word(text[i - 1])) &&
          (i + 2 == text.size() || !is_word(text[i + 2]))) {
        out.append("-0.0");
        ++i;  // the '0'
        continue;
      }
      out.push_back(text[i]);
    }
    return out;
  }

  void OpAttributes(const HloInstruction& inst,
                    std::vector<std::string>* out) const {
    const HloAttributes& a = inst.attrs();
    const HloOpcode op = inst.opcode();
    const auto& callees = inst.called_computations();
    auto comp_name = [&](size_t i) -> std::string {
      if (i >= callees.size() || callees[i] == nullptr) return "";
      return Name(callees[i]->name());
    };
    auto add = [&](AttrId id, std::string value) {
      out->push_back(absl::StrCat(AttrName(id), "=", value));
    };
    for (const OpAttrSpec& spec : GetOpInfo(op).attributes) {
      const AttrId id = spec.id;
      const bool must = spec.required || spec.always_print;
      auto list = [&](const std::vector<int64_t>& v) {
        if (must || !v.empty()) add(id, IntList(v));
      };
      auto flag = [&](bool v) {
        if (v || spec.always_print) add(id, v ? "true" : "false");
      };
      switch (id) {
        case AttrId::kDimensions:
          list(a.dimensions);
          break;
        case AttrId::kDynamicSliceSizes:
          list(a.dynamic_slice_sizes);
          break;
        case AttrId::kIndex:
          add(id, absl::StrCat(a.index));
          break;
        case AttrId::kInferredDimension:
          if (a.inferred_dimension != -1) {
            add(id, absl::StrCat(a.inferred_dimension));
          }
          break;
        case AttrId::kIotaDimension:
          add(id, absl::StrCat(a.iota_dimension));
          break;
        case AttrId::kPadding:
          add(id, PaddingToString(a.padding));
          break;
        case AttrId::kSlice:
          add(id, SliceToString(a.slice));
          break;
        case AttrId::kDirection:
          add(id, std::string(DirectionName(a.direction)));
          break;
        case AttrId::kComparisonType: {
          if (a.comparison_type == ComparisonType::kDefault) break;
          if (inst.operand_count() > 0 && inst.operand(0) != nullptr &&
              inst.operand(0)->shape().IsArray() &&
              DefaultComparisonType(inst.operand(0)->shape().element_type()) ==
                  a.comparison_type) {
            break;
          }
          add(id, std::string(ComparisonTypeName(a.comparison_type)));
          break;
        }
        case AttrId::kExponentBits:
          add(id, absl::StrCat(a.exponent_bits));
          break;
        case AttrId::kMantissaBits:
          add(id, absl::StrCat(a.mantissa_bits));
          break;
        case AttrId::kResultAccuracy:
          break;  // printed with the trailing attributes
        case AttrId::kAlgorithm:
          if (!a.algorithm.empty()) {
            add(id, a.algorithm);
          } else if (spec.required) {
            add(id, "rng_default");
          }
          break;
        case AttrId::kBatchGroupCount:
          if (a.batch_group_count != 1) {
            add(id, absl::StrCat(a.batch_group_count));
          }
          break;
        case AttrId::kFeatureGroupCount:
          if (a.feature_group_count != 1) {
            add(id, absl::StrCat(a.feature_group_count));
          }
          break;
        case AttrId::kConvolutionKind:
          if (!a.convolution_kind.empty()) add(id, a.convolution_kind);
          break;
        case AttrId::kDimLabels:
          if (spec.required || a.has(id)) {
            add(id, DimLabelsToString(a.convolution_dimension_numbers));
          }
          break;
        case AttrId::kLhsBatchDims:
          list(a.dot_dimension_numbers.lhs_batch_dimensions);
          break;
        case AttrId::kLhsContractingDims:
          list(a.dot_dimension_numbers.lhs_contracting_dimensions);
          break;
        case AttrId::kRhsBatchDims:
          list(a.dot_dimension_numbers.rhs_batch_dimensions);
          break;
        case AttrId::kRhsContractingDims:
          list(a.dot_dimension_numbers.rhs_contracting_dimensions);
          break;
        case AttrId::kLhsRaggedDims:
          list(a.lhs_ragged_dims);
          break;
        case AttrId::kRhsGroupDims:
          list(a.rhs_group_dims);
          break;
        case AttrId::kOperandPrecision: {
          bool non_default = false;
          std::vector<std::string> parts;
          for (PrecisionConfig p : a.operand_precision) {
            if (p != PrecisionConfig::kDefault) non_default = true;
            parts.emplace_back(PrecisionName(p));
          }
          if (non_default) {
            add(id, absl::StrCat("{", absl::StrJoin(parts, ","), "}"));
          }
          break;
        }
        case AttrId::kWindow:
          if (!a.window.dimensions.empty() || a.has(id)) {
            add(id, WindowToString(a.window));
          }
          break;
        case AttrId::kCollapsedSliceDims:
          list(a.gather_dimension_numbers.collapsed_slice_dims);
          break;
        case AttrId::kIndexVectorDim:
          add(id,
              absl::StrCat(op == HloOpcode::kScatter
                               ? a.scatter_dimension_numbers.index_vector_dim
                               : a.gather_dimension_numbers.index_vector_dim));
          break;
        case AttrId::kIndicesAreSorted:
          flag(a.indices_are_sorted);
          break;
        case AttrId::kInputBatchingDims:
          list(a.scatter_dimension_numbers.input_batching_dims);
          break;
        case AttrId::kInsertedWindowDims:
          list(a.scatter_dimension_numbers.inserted_window_dims);
          break;
        case AttrId::kOffsetDims:
          list(a.gather_dimension_numbers.offset_dims);
          break;
        case AttrId::kOperandBatchingDims:
          list(a.gather_dimension_numbers.operand_batching_dims);
          break;
        case AttrId::kScatterDimsToOperandDims:
          list(a.scatter_dimension_numbers.scatter_dims_to_operand_dims);
          break;
        case AttrId::kScatterIndicesBatchingDims:
          list(a.scatter_dimension_numbers.scatter_indices_batching_dims);
          break;
        case AttrId::kSliceSizes:
          if (!a.slice_sizes_list.empty()) {
            add(id, IntListList(a.slice_sizes_list));
          } else {
            list(a.slice_sizes);
          }
          break;
        case AttrId::kStartIndexMap:
          list(a.gather_dimension_numbers.start_index_map);
          break;
        case AttrId::kStartIndicesBatchingDims:
          list(a.gather_dimension_numbers.start_indices_batching_dims);
          break;
        case AttrId::kUniqueIndices:
          flag(a.unique_indices);
          break;
        case AttrId::kUpdateWindowDims:
          list(a.scatter_dimension_numbers.update_window_dims);
          break;
        case AttrId::kIsAssociative:
          flag(a.is_associative);
          break;
        case AttrId::kIsReverse:
          flag(a.is_reverse);
          break;
        case AttrId::kIsStable:
          // XLA's topk has no is_stable (jaxlib 0.10.2's parser: "unexpected
          // attribute is_stable"): the printer leaves it out there so XLA
          // reads what hloref prints; the parser still reads it.
          if (op != HloOpcode::kTopK) flag(a.is_stable);
          break;
        case AttrId::kK:
          add(id, absl::StrCat(a.k));
          break;
        case AttrId::kLargest:
          flag(a.largest);
          break;
        case AttrId::kNumCarries:
          if (a.num_carries != 0 || a.has(id)) {
            add(id, absl::StrCat(a.num_carries));
          }
          break;
        case AttrId::kToApply:
          if (op != HloOpcode::kCustomCall && !callees.empty()) {
            add(id, comp_name(0));
          }
          break;
        case AttrId::kCalls:
          if (!callees.empty()) add(id, comp_name(0));
          break;
        case AttrId::kCondition:
          if (callees.size() >= 1) add(id, comp_name(0));
          break;
        case AttrId::kBody:
          if (callees.size() >= 2) add(id, comp_name(1));
          break;
        case AttrId::kSelect:
          if (callees.size() >= 1) add(id, comp_name(0));
          break;
        case AttrId::kScatter:
          if (callees.size() >= 2) add(id, comp_name(1));
          break;
        case AttrId::kTrueComputation:
          if (IsPredConditional(inst)) add(id, comp_name(0));
          break;
        case AttrId::kFalseComputation:
          if (IsPredConditional(inst)) add(id, comp_name(1));
          break;
        case AttrId::kBranchComputations:
        case AttrId::kCalledComputations: {
          if (id == AttrId::kBranchComputations && IsPredConditional(inst)) {
            break;
          }
          if (id == AttrId::kCalledComputations && callees.empty()) break;
          std::vector<std::string> names;
          for (size_t i = 0; i < callees.size(); ++i) {
            names.push_back(comp_name(i));
          }
          add(id, absl::StrCat("{", absl::StrJoin(names, ", "), "}"));
          break;
        }
        case AttrId::kIsComposite:
          flag(a.is_composite);
          break;
        case AttrId::kAsyncExecutionThread:
          if (!a.async_execution_thread.empty() &&
              a.async_execution_thread != "main") {
            add(id, Quote(a.async_execution_thread));
          }
          break;
        case AttrId::kCrossProgramPrefetchIndex:
          if (a.cross_program_prefetch_index != -1) {
            add(id, absl::StrCat(a.cross_program_prefetch_index));
          }
          break;
        case AttrId::kFusionKind:
          add(id, std::string(FusionKindName(a.fusion_kind)));
          break;
        case AttrId::kIsCrossProgramPrefetch:
          flag(a.is_cross_program_prefetch);
          break;
        case AttrId::kDelta:
          add(id, absl::StrCat(a.delta));
          break;
        case AttrId::kDistribution:
          add(id, a.distribution == RandomDistribution::kNormal
                      ? "rng_normal"
                      : "rng_uniform");
          break;
        case AttrId::kEpsilon:
          add(id, absl::StrCat(a.epsilon));
          break;
        case AttrId::kFeatureIndex:
          add(id, absl::StrCat(a.feature_index));
          break;
        case AttrId::kFftLength:
          list(a.fft_length);
          break;
        case AttrId::kFftType:
          add(id, std::string(FftTypeName(a.fft_type)));
          break;
        case AttrId::kLeftSide:
          flag(a.left_side);
          break;
        case AttrId::kLower:
          flag(a.lower);
          break;
        case AttrId::kTransposeA:
          if (a.transpose_a != TransposeA::kUnset) {
            add(id, std::string(TransposeAName(a.transpose_a)));
          }
          break;
        case AttrId::kUnitDiagonal:
          flag(a.unit_diagonal);
          break;
        case AttrId::kChannelId:
          if (a.channel_id != 0 || a.has(id)) {
            add(id, absl::StrCat(a.channel_id));
          }
          break;
        case AttrId::kConstrainLayout:
          flag(a.constrain_layout);
          break;
        case AttrId::kHasDynamicRoot:
          flag(a.has_dynamic_root);
          break;
        case AttrId::kMode:
          if (!a.mode.empty()) add(id, a.mode);
          break;
        case AttrId::kReplicaGroups:
          add(id, ReplicaGroupsToString(a.replica_groups));
          break;
        case AttrId::kSourceTargetPairs: {
          std::vector<std::string> parts;
          for (const auto& [s, t] : a.source_target_pairs) {
            parts.push_back(absl::StrCat("{", s, ",", t, "}"));
          }
          add(id, absl::StrCat("{", absl::StrJoin(parts, ","), "}"));
          break;
        }
        case AttrId::kUseGlobalDeviceIds:
          flag(a.use_global_device_ids);
          break;
        case AttrId::kApiVersion:
          if (!a.api_version.empty() &&
              a.api_version != "API_VERSION_ORIGINAL") {
            add(id, a.api_version);
          }
          break;
        case AttrId::kCustomCallHasSideEffect:
          flag(a.custom_call_has_side_effect);
          break;
        case AttrId::kCustomCallTarget:
          add(id, Quote(a.custom_call_target));
          break;
        case AttrId::kInfeedConfig:
          if (!a.infeed_config.empty()) add(id, Quote(a.infeed_config));
          break;
        case AttrId::kIsHostTransfer:
          flag(a.is_host_transfer);
          break;
        case AttrId::kLiteral:
          if (a.literal.has_value()) {
            add(id, NegativeZeros(a.literal->ToString()));
          }
          break;
        case AttrId::kOperandLayoutConstraints:
          if (a.has(id) || !a.operand_layout_constraints.empty()) {
            std::vector<std::string> parts;
            for (const Shape& s : a.operand_layout_constraints) {
              parts.push_back(s.ToString(true));
            }
            add(id, absl::StrCat("{", absl::StrJoin(parts, ", "), "}"));
          }
          break;
        case AttrId::kOutfeedConfig:
          if (!a.outfeed_config.empty()) add(id, Quote(a.outfeed_config));
          break;
        case AttrId::kOutfeedShape:
          if (a.outfeed_shape.IsValid()) {
            add(id, a.outfeed_shape.ToString(true));
          }
          break;
        case AttrId::kPaddingType:
          if (!a.padding_type.empty()) add(id, a.padding_type);
          break;
        case AttrId::kSchedule:
          if (!a.schedule.empty() && a.schedule != "SCHEDULE_NONE") {
            add(id, a.schedule);
          }
          break;
        case AttrId::kSparsityConfig:
        case AttrId::kOutputToOperandAliasing:
        case AttrId::kParameterReplication:
        case AttrId::kDomain: {
          auto it = a.raw.find(id);
          if (it != a.raw.end()) add(id, it->second);
          break;
        }
        case AttrId::kSharding:
        case AttrId::kFrontendAttributes:
        case AttrId::kControlPredecessors:
        case AttrId::kStatistics:
        case AttrId::kOrigin:
        case AttrId::kOriginalValue:
        case AttrId::kMetadata:
        case AttrId::kBackendConfig:
          break;  // common, printed afterwards
      }
    }
  }

  static bool IsPredConditional(const HloInstruction& inst) {
    return inst.opcode() == HloOpcode::kConditional &&
           inst.operand_count() > 0 && inst.operand(0) != nullptr &&
           inst.operand(0)->shape().element_type() == PrimitiveType::kPred &&
           inst.called_computations().size() == 2;
  }

  void CommonAttributes(const HloInstruction& inst,
                        std::vector<std::string>* out) const {
    const HloAttributes& a = inst.attrs();
    auto raw = [&](AttrId id) {
      auto it = a.raw.find(id);
      if (it != a.raw.end()) {
        out->push_back(absl::StrCat(AttrName(id), "=", it->second));
      }
    };
    raw(AttrId::kSharding);
    if (!a.frontend_attributes.empty()) {
      out->push_back("frontend_attributes=" +
                     FrontendAttributesToString(a.frontend_attributes));
    }
    if (options_.print_control_predecessors &&
        !a.control_predecessors.empty()) {
      std::vector<std::string> names;
      for (const HloInstruction* p : a.control_predecessors) {
        names.push_back(p == nullptr ? "<null>" : Name(p->name()));
      }
      out->push_back(absl::StrCat("control-predecessors={",
                                  absl::StrJoin(names, ", "), "}"));
    }
    raw(AttrId::kStatistics);
    {
      auto it = a.raw.find(AttrId::kResultAccuracy);
      if (it != a.raw.end() && it->second != "{mode=default}") {
        out->push_back("result_accuracy=" + it->second);
      }
    }
    raw(AttrId::kOrigin);
    raw(AttrId::kOriginalValue);
    if (options_.print_metadata) {
      std::string m = MetadataToString(a.metadata);
      if (!m.empty()) out->push_back("metadata=" + m);
    }
    if (options_.print_backend_config && !a.backend_config.empty()) {
      out->push_back("backend_config=" + StringOrDict(a.backend_config));
    }
    // Attributes hloref does not know, as they were written.
    for (const auto& [name, value] : a.unknown_attributes) {
      out->push_back(absl::StrCat(name, "=", value));
    }
  }

  // Operands (and control predecessors) before users, stable otherwise.
  static std::vector<const HloInstruction*> PostOrder(
      const HloComputation& comp) {
    std::vector<const HloInstruction*> order;
    absl::flat_hash_set<const HloInstruction*> done;
    absl::flat_hash_set<const HloInstruction*> in_comp;
    for (const auto& inst : comp.instructions()) in_comp.insert(inst.get());
    for (const auto& start : comp.instructions()) {
      if (done.contains(start.get())) continue;
      // Iterative DFS: (instruction, next dependency index).
      std::vector<std::pair<const HloInstruction*, size_t>> stack;
      stack.emplace_back(start.get(), 0);
      absl::flat_hash_set<const HloInstruction*> on_stack{start.get()};
      while (!stack.empty()) {
        auto& [inst, next] = stack.back();
        const size_t n_ops = inst->operands().size();
        const size_t n_deps = n_ops + inst->attrs().control_predecessors.size();
        if (next < n_deps) {
          const HloInstruction* dep =
              next < n_ops ? inst->operand(static_cast<int64_t>(next))
                           : inst->attrs().control_predecessors[next - n_ops];
          ++next;
          if (dep != nullptr && in_comp.contains(dep) && !done.contains(dep) &&
              !on_stack.contains(dep)) {
            on_stack.insert(dep);
            stack.emplace_back(dep, 0);
          }
          continue;
        }
        done.insert(inst);
        on_stack.erase(inst);
        order.push_back(inst);
        stack.pop_back();
      }
    }
    return order;
  }

  std::string Computation(const HloComputation& comp) const {
    std::string out;
    if (comp.is_entry()) out = "ENTRY ";
    absl::StrAppend(&out, Name(comp.name()));
    if (options_.print_signatures) {
      std::vector<std::string> params;
      for (const HloInstruction* p : comp.parameters()) {
        if (p == nullptr) continue;
        params.push_back(
            absl::StrCat(p->name(), ": ", p->shape().ToString(false)));
      }
      absl::StrAppend(&out, " (", absl::StrJoin(params, ", "), ") -> ",
                      comp.root() != nullptr
                          ? comp.root()->shape().ToString(false)
                          : std::string("()"));
    }
    absl::StrAppend(&out, " {\n");
    for (const HloInstruction* inst : PostOrder(comp)) {
      absl::StrAppend(&out, "  ", inst == comp.root() ? "ROOT " : "",
                      Instruction(*inst), "\n");
    }
    absl::StrAppend(&out, "}");
    if (!comp.execution_thread().empty() && comp.execution_thread() != "main") {
      absl::StrAppend(&out,
                      ", execution_thread=", Quote(comp.execution_thread()));
    }
    return out;
  }

  std::string Module(const HloModule& module) const {
    const HloModuleConfig& config = module.config();
    std::vector<std::string> header;
    auto other = [&](absl::string_view name) {
      for (const auto& [n, v] : config.other) {
        if (n == name) header.push_back(absl::StrCat(n, "=", v));
      }
    };
    if (config.is_scheduled) header.push_back("is_scheduled=true");
    other("input_output_alias");
    other("buffer_donor");
    other("alias_passthrough_params");
    if (config.entry_parameter_layouts.has_value() &&
        config.entry_result_layout.has_value()) {
      std::vector<std::string> params;
      for (size_t i = 0; i < config.entry_parameter_layouts->size(); ++i) {
        params.push_back(absl::StrCat(
            i > 0 && i % 5 == 0 ? absl::StrCat("/*index=", i, "*/") : "",
            (*config.entry_parameter_layouts)[i].ToString(true)));
      }
      header.push_back(absl::StrCat(
          "entry_computation_layout={(", absl::StrJoin(params, ", "), ")->",
          config.entry_result_layout->ToString(true), "}"));
    }
    other("allow_spmd_sharding_propagation_to_parameters");
    other("allow_spmd_sharding_propagation_to_output");
    if (config.replica_count != 1) {
      header.push_back(absl::StrCat("replica_count=", config.replica_count));
    }
    if (config.num_partitions != 1) {
      header.push_back(absl::StrCat("num_partitions=", config.num_partitions));
    }
    if (!config.frontend_attributes.empty()) {
      header.push_back("frontend_attributes=" +
                       FrontendAttributesToString(config.frontend_attributes));
    }
    static const absl::flat_hash_set<std::string>* kPrinted =
        new absl::flat_hash_set<std::string>{
            "input_output_alias",
            "buffer_donor",
            "alias_passthrough_params",
            "allow_spmd_sharding_propagation_to_parameters",
            "allow_spmd_sharding_propagation_to_output",
            "stack_frames"};
    for (const auto& [n, v] : config.other) {
      if (!kPrinted->contains(n)) header.push_back(absl::StrCat(n, "=", v));
    }
    std::string out = absl::StrCat("HloModule ", module.name());
    for (const std::string& h : header) absl::StrAppend(&out, ", ", h);
    absl::StrAppend(&out, "\n\n");
    for (const auto& [n, v] : config.other) {
      if (n == "stack_frames") absl::StrAppend(&out, v, "\n\n");
    }
    for (const HloComputation* comp : ComputationPostOrder(module)) {
      if (comp->is_async_sugar_wrapped()) continue;
      absl::StrAppend(&out, Computation(*comp), "\n\n");
    }
    return out;
  }

  static std::vector<const HloComputation*> ComputationPostOrder(
      const HloModule& module) {
    std::vector<const HloComputation*> order;
    absl::flat_hash_set<const HloComputation*> done;
    std::vector<const HloComputation*> roots;
    for (const auto& c : module.computations()) {
      if (c.get() != module.entry()) roots.push_back(c.get());
    }
    if (module.entry() != nullptr) roots.push_back(module.entry());
    for (const HloComputation* start : roots) {
      if (done.contains(start)) continue;
      std::vector<
          std::pair<const HloComputation*, std::vector<const HloComputation*>>>
          stack;
      absl::flat_hash_set<const HloComputation*> on_stack{start};
      auto callees_of = [](const HloComputation* c) {
        std::vector<const HloComputation*> v;
        for (const auto& inst : c->instructions()) {
          for (const HloComputation* callee : inst->called_computations()) {
            if (callee != nullptr) v.push_back(callee);
          }
        }
        // Visited in reverse so the first callee is handled first.
        return std::vector<const HloComputation*>(v.rbegin(), v.rend());
      };
      stack.emplace_back(start, callees_of(start));
      while (!stack.empty()) {
        auto& [comp, pending] = stack.back();
        if (!pending.empty()) {
          const HloComputation* next = pending.back();
          pending.pop_back();
          if (!done.contains(next) && !on_stack.contains(next)) {
            on_stack.insert(next);
            stack.emplace_back(next, callees_of(next));
          }
          continue;
        }
        done.insert(comp);
        on_stack.erase(comp);
        order.push_back(comp);
        stack.pop_back();
      }
    }
    return order;
  }

 private:
  const PrintOptions& options_;
};

}  // namespace

PrintOptions PrintOptions::Short() {
  PrintOptions o;
  o.print_percent = false;
  o.print_signatures = false;
  o.print_metadata = false;
  o.print_large_constants = false;
  o.print_operand_shapes = false;
  o.print_index_comments = false;
  o.print_control_predecessors = false;
  return o;
}

std::string PrintModule(const HloModule& module, const PrintOptions& options) {
  return Printer(options).Module(module);
}

std::string PrintComputation(const HloComputation& computation,
                             const PrintOptions& options) {
  return Printer(options).Computation(computation);
}

std::string PrintInstruction(const HloInstruction& instruction,
                             const PrintOptions& options) {
  return Printer(options).Instruction(instruction);
}

}  // namespace hloref
