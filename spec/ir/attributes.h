// Typed instruction attributes: one struct per structured attribute of the
// HLO text format, and HloAttributes, the set an instruction carries.
// Field names copy seed 001's argument names.
#ifndef HLOREF_SPEC_IR_ATTRIBUTES_H_
#define HLOREF_SPEC_IR_ATTRIBUTES_H_

#include <bitset>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spec/ir/opcode.h"
#include "spec/types/literal.h"
#include "spec/types/shape.h"

namespace hloref {

class HloComputation;
class HloInstruction;

// `window={size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=.. rhs_dilate=..
// rhs_reversal=..}`: one entry per spatial (or, for reduce-window, every)
// dimension.
struct WindowDimension {
  int64_t size = 0;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t base_dilation = 1;     // lhs_dilate
  int64_t window_dilation = 1;   // rhs_dilate
  bool window_reversal = false;  // rhs_reversal
  bool operator==(const WindowDimension&) const = default;
};
struct Window {
  std::vector<WindowDimension> dimensions;
  bool operator==(const Window&) const = default;
};

// `dim_labels=b01f_01io->b01f`.
struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
  // The label text as written (keeps `?` markers of custom calls).
  std::string text;
  bool operator==(const ConvolutionDimensionNumbers&) const = default;
};

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  bool operator==(const DotDimensionNumbers&) const = default;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const GatherDimensionNumbers&) const = default;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const ScatterDimensionNumbers&) const = default;
};

// `padding=0_0x1_2_1`.
struct PaddingDimension {
  int64_t edge_padding_low = 0;
  int64_t edge_padding_high = 0;
  int64_t interior_padding = 0;
  bool operator==(const PaddingDimension&) const = default;
};
struct PaddingConfig {
  std::vector<PaddingDimension> dimensions;
  bool operator==(const PaddingConfig&) const = default;
};

// `slice={[0:4], [2:8:2]}`.
struct SliceConfig {
  std::vector<int64_t> start_indices;
  std::vector<int64_t> limit_indices;
  std::vector<int64_t> strides;
  bool operator==(const SliceConfig&) const = default;
};

// Replica groups, normalized to explicit groups. `iota_text` keeps the
// `[2,2]<=[4]` (or mesh) spelling when the text used it, so printing gives
// the same form back.
struct ReplicaGroups {
  std::vector<std::vector<int64_t>> groups;
  std::string iota_text;
  bool operator==(const ReplicaGroups&) const = default;
};

enum class ComparisonDirection : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
enum class ComparisonType : uint8_t {
  kDefault,  // not written: FLOAT / SIGNED / UNSIGNED by element type
  kFloat,
  kTotalOrder,
  kSigned,
  kUnsigned,
};
enum class PrecisionConfig : uint8_t { kDefault, kHigh, kHighest };
enum class FftType : uint8_t { kFft, kIfft, kRfft, kIrfft };
enum class TransposeA : uint8_t {
  kUnset,  // not written
  kNoTranspose,
  kTranspose,
  kAdjoint,
};
enum class RandomDistribution : uint8_t { kUniform, kNormal };
enum class RandomAlgorithm : uint8_t { kDefault, kThreeFry, kPhilox };
enum class FusionKind : uint8_t { kLoop, kInput, kOutput, kCustom };

// `metadata={op_type=".." op_name=".." source_file=".." source_line=12}`.
struct OpMetadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  int64_t source_end_line = 0;
  int64_t source_column = 0;
  int64_t source_end_column = 0;
  int64_t stack_frame_id = 0;
  // Sub-fields we do not model, verbatim, e.g. `profile_type={relayout}`.
  std::string other;
  bool operator==(const OpMetadata&) const = default;
};

// All attributes an instruction may carry. `present` records which were
// given (or set by the builder); the printer writes those that are present
// and not at their default, plus the ones ops.def marks `+`.
struct HloAttributes {
  std::bitset<kNumAttrs> present;
  bool has(AttrId id) const { return present[static_cast<size_t>(id)]; }
  void set(AttrId id) { present.set(static_cast<size_t>(id)); }

  // dimensions (broadcast, transpose, reverse, reduce, concatenate, sort,
  // map, collectives, get/set-dimension-size).
  std::vector<int64_t> dimensions;
  std::vector<int64_t> dynamic_slice_sizes;
  int64_t index = 0;  // get-tuple-element
  int64_t inferred_dimension = -1;
  int64_t iota_dimension = 0;
  PaddingConfig padding;
  SliceConfig slice;

  ComparisonDirection direction = ComparisonDirection::kEq;
  ComparisonType comparison_type = ComparisonType::kDefault;
  int64_t exponent_bits = 0;
  int64_t mantissa_bits = 0;

  DotDimensionNumbers dot_dimension_numbers;
  std::vector<int64_t> lhs_ragged_dims;
  std::vector<int64_t> rhs_group_dims;
  std::vector<PrecisionConfig> operand_precision;
  std::string algorithm;  // dot algorithm or rng algorithm word, lower case
  ConvolutionDimensionNumbers convolution_dimension_numbers;
  Window window;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  std::string convolution_kind;

  GatherDimensionNumbers gather_dimension_numbers;
  ScatterDimensionNumbers scatter_dimension_numbers;
  // gather slice_sizes; collective-permute slice_sizes goes to
  // slice_sizes_list.
  std::vector<int64_t> slice_sizes;
  std::vector<std::vector<int64_t>> slice_sizes_list;
  bool indices_are_sorted = false;
  bool unique_indices = false;

  bool is_stable = false;
  int64_t k = 0;
  bool largest = true;
  int64_t num_carries = 0;
  bool is_reverse = false;
  bool is_associative = false;

  bool is_composite = false;
  FusionKind fusion_kind = FusionKind::kLoop;
  std::string async_execution_thread;
  int64_t cross_program_prefetch_index = -1;
  bool is_cross_program_prefetch = false;

  RandomDistribution distribution = RandomDistribution::kUniform;
  int64_t delta = 0;
  float epsilon = 0;
  int64_t feature_index = 0;
  FftType fft_type = FftType::kFft;
  std::vector<int64_t> fft_length;
  bool left_side = false;
  bool lower = false;
  bool unit_diagonal = false;
  TransposeA transpose_a = TransposeA::kUnset;

  int64_t channel_id = 0;
  bool constrain_layout = false;
  bool has_dynamic_root = false;
  bool use_global_device_ids = false;
  std::string mode;  // legacy collective mode, ignored
  ReplicaGroups replica_groups;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;

  std::string custom_call_target;
  bool custom_call_has_side_effect = false;
  std::string api_version;  // upper-case proto name; empty = ORIGINAL
  std::string padding_type;
  std::string schedule;
  std::optional<Literal> literal;  // custom-call literal=
  std::vector<Shape> operand_layout_constraints;
  std::string infeed_config;
  std::string outfeed_config;
  Shape outfeed_shape;
  bool is_host_transfer = false;

  // Common trailing attributes.
  OpMetadata metadata;
  // Values are the string values: quotes removed and C escapes decoded for
  // quoted values, raw `{...}` dictionaries as written. The printer writes
  // a value raw when it is a balanced `{...}`, quoted otherwise (as XLA).
  std::map<std::string, std::string> frontend_attributes;
  std::string backend_config;  // same convention; empty = absent
  std::vector<HloInstruction*> control_predecessors;
  // kRaw attributes, verbatim value text keyed by attribute (sharding,
  // domain, statistics, origin, result_accuracy, output_to_operand_aliasing,
  // parameter_replication, sparsity_config).
  std::map<AttrId, std::string> raw;
  // Attributes not in spec/attributes.def (from another XLA version), in
  // text order as (name, verbatim value); printed back after the others.
  std::vector<std::pair<std::string, std::string>> unknown_attributes;
};

}  // namespace hloref

#endif  // HLOREF_SPEC_IR_ATTRIBUTES_H_
