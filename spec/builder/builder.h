// The builder API: seed 001's XlaBuilder calls (one function per documented
// operation, with the documented argument names and order) lowering to the
// HLO IR of spec/ir/hlo_module.h, and seed 000's broadcasting rules for the
// element-wise binary ops.
//
// Usage mirrors XlaBuilder: ops are free functions taking and returning
// XlaOp handles; a Builder collects them into a computation; Build()
// returns the first recorded error or a verified HloModule. Sub-computations
// (reducers, comparators, loop bodies, branches) come from a second builder
// (CreateSubBuilder) and are passed as the HloModule its Build() returned;
// the calling builder copies them into its own module.
//
//   Builder b("axpy");
//   XlaOp a = Parameter(&b, 0, Shape(PrimitiveType::kF32, {}), "a");
//   XlaOp x = Parameter(&b, 1, Shape(PrimitiveType::kF32, {2, 3}), "x");
//   XlaOp y = ConstantR1<float>(&b, {1, 2, 3});
//   Add(Mul(a, x), y, /*broadcast_dimensions=*/{1});
//   absl::StatusOr<std::unique_ptr<HloModule>> module = b.Build();
//
// Errors: a misused call records InvalidArgument naming the call and its
// arguments, e.g. `Add(lhs=f32[2,3] %x, rhs=f32[4], broadcast_dimensions=
// {1}): ...`; later calls that use the failed op's handle record nothing
// new, and Build() returns the first error (XlaBuilder's behaviour).
//
// Lowerings the seeds define at builder level (and only there):
//  - binary ops with implicit broadcast: a scalar operand, degenerate (size
//    1) dimensions and broadcast_dimensions become broadcast (and, for
//    degenerate dimensions, reshape) instructions before the op, as seed
//    000's broadcasting page describes;
//  - Broadcast (sizes prepended), BroadcastInDim with degenerate dimensions,
//    Collapse, Reshape with a dimension order (transpose + reshape);
//  - Conv / ReduceWindow / SelectAndScatter with Padding::kSame: low/high
//    padding from ceil(input / stride) outputs (seed 001's ReduceWindow
//    example), split with the extra element on the high side;
//  - Clamp and Select with scalar operands broadcast to the array operand;
//  - Dot's rank-dependent contracting dimensions;
//  - DynamicSlice / DynamicUpdateSlice with a sequence of scalar indices;
//  - AllToAll with split_dimension != concat_dimension (reshape, transpose
//    around an array all-to-all); CrossReplicaSum (all-reduce with add);
//  - Infeed / Outfeed / Send / Recv without explicit tokens (after-all,
//    the -done halves and get-tuple-element are added);
//  - CompositeCall: call with is_composite and composite.* frontend
//    attributes.
#ifndef HLOREF_SPEC_BUILDER_BUILDER_H_
#define HLOREF_SPEC_BUILDER_BUILDER_H_

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "spec/ir/attributes.h"
#include "spec/ir/hlo_module.h"
#include "spec/ir/opcode.h"
#include "spec/types/literal.h"
#include "spec/types/shape.h"

namespace hloref {

class Builder;

// A handle to one instruction of a Builder's computation (XlaOp). Default-
// constructed handles are invalid; a handle returned by a failed call is
// invalid but still names its builder, so later calls add no new error.
class XlaOp {
 public:
  XlaOp() = default;
  bool valid() const { return builder_ != nullptr && instruction_ != nullptr; }
  Builder* builder() const { return builder_; }
  const HloInstruction* instruction() const { return instruction_; }

 private:
  friend class Builder;
  XlaOp(Builder* builder, HloInstruction* instruction)
      : builder_(builder), instruction_(instruction) {}
  Builder* builder_ = nullptr;
  HloInstruction* instruction_ = nullptr;
};

// Padding::kSame pads so that the output has ceil(input / stride) elements
// per spatial dimension; kValid uses no padding.
enum class Padding : uint8_t { kSame, kValid };

// Identifies a Send/Recv pair (XLA's ChannelHandle).
struct ChannelHandle {
  int64_t handle = 0;
};

// The (low, high) padding per spatial dimension of Padding `padding` for a
// window moving over `input_dimensions` (seed 001 Conv / ReduceWindow).
std::vector<std::pair<int64_t, int64_t>> MakePadding(
    absl::Span<const int64_t> input_dimensions,
    absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides, Padding padding);

// The smallest / largest value of an element type (XLA's LiteralUtil::
// MinValue / MaxValue): -inf / +inf for floating-point types that have
// infinities, the lowest / highest finite value for the others, integer
// limits, false / true for pred.
Literal MinValue(PrimitiveType type);
Literal MaxValue(PrimitiveType type);

// The default dimension numbers of Conv: lhs and output [batch, feature,
// spatial...], rhs [output-feature, input-feature, spatial...].
ConvolutionDimensionNumbers CreateDefaultConvDimensionNumbers(
    int num_spatial_dims = 2);

// Description of an instruction the op functions add (low-level API; the op
// functions below are the interface for users).
struct InstructionSpec {
  HloOpcode opcode = HloOpcode::kParameter;
  // The result shape when the call states it (broadcast, reshape, iota,
  // custom-call, ...), else a shape carrying the wanted element type (dot,
  // convolution); the dimensions are inferred.
  Shape shape;
  std::vector<XlaOp> operands;
  HloAttributes attrs;  // attributes with their presence bits set
  // Called computations in the canonical order (to_apply, condition, body,
  // select, scatter, true, false, branches), each with its attribute.
  std::vector<std::pair<AttrId, const HloModule*>> callees;
  int64_t parameter_number = -1;
  Literal literal;   // constant
  std::string name;  // instruction name; "" = opcode name + counter
};

class Builder {
 public:
  explicit Builder(std::string name);
  ~Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  const std::string& name() const { return name_; }

  // A builder for a sub-computation (reducer, comparator, body, branch)
  // named `computation_name`; build it and pass the module to the op.
  std::unique_ptr<Builder> CreateSubBuilder(
      const std::string& computation_name);

  // The first error, or the verified module whose entry computation holds
  // every instruction added, rooted at `root` (default: the last added).
  // A builder builds once.
  absl::StatusOr<std::unique_ptr<HloModule>> Build();
  absl::StatusOr<std::unique_ptr<HloModule>> Build(XlaOp root);

  // OK, or the first error recorded.
  absl::Status first_error() const { return first_error_; }
  // The shape of `op` (an error for invalid handles or another builder's).
  absl::StatusOr<Shape> GetShape(XlaOp op) const;

  // Module header settings (replica_count, num_partitions) the collectives
  // and their verification read.
  HloModuleConfig* mutable_config();

  // ---- Low-level API used by the op functions.
  // Appends the instruction, after checking its operands belong here and
  // inferring its shape (InferShape of spec/verifier). `call` describes the
  // builder call for error messages: `Add(lhs=f32[2] %p, rhs=...)`.
  XlaOp AddInstruction(absl::string_view call, InstructionSpec spec);
  // Records `status` (prefixed with `call`) unless an error is already
  // recorded; returns an invalid handle of this builder.
  XlaOp ReportError(absl::string_view call, const absl::Status& status);
  // The builder to record an error of a call with these operands in: the
  // first operand's builder, nullptr when none is known.
  static Builder* BuilderOf(absl::Span<const XlaOp> operands);
  // OK when every operand is a valid handle of this builder; else the
  // error to report. (An invalid handle returned by an earlier failed call
  // only exists once an error is recorded, so reporting it adds nothing.)
  absl::Status CheckOperands(absl::Span<const XlaOp> operands) const;
  // Shape of a handle known to be valid and ours.
  const Shape& ShapeOf(XlaOp op) const;

 private:
  std::string UniqueInstructionName(absl::string_view base);
  std::string UniqueComputationName(absl::string_view base);
  // Copies `sub`'s computations into module_; returns the copy of its
  // entry.
  absl::StatusOr<HloComputation*> Import(const HloModule& sub);

  std::string name_;
  std::unique_ptr<HloModule> module_;
  std::unique_ptr<HloComputation> entry_;
  std::set<std::string> instruction_names_;
  std::set<std::string> computation_names_;
  std::set<int64_t> parameter_numbers_;
  int64_t next_id_ = 1;
  absl::Status first_error_;
  bool built_ = false;
};

// ============================================================ constants
// seed 001 has no section for constants; these are XlaBuilder's helpers.
XlaOp Parameter(Builder* builder, int64_t parameter_number, const Shape& shape,
                const std::string& name);
XlaOp ConstantLiteral(Builder* builder, const Literal& literal);

// C++ element type -> PrimitiveType for the typed constant helpers.
template <typename T>
struct NativeToPrimitiveType;
#define HLOREF_NATIVE_TYPE(T, P)                             \
  template <>                                                \
  struct NativeToPrimitiveType<T> {                          \
    static constexpr PrimitiveType value = PrimitiveType::P; \
  };
HLOREF_NATIVE_TYPE(bool, kPred)
HLOREF_NATIVE_TYPE(int8_t, kS8)
HLOREF_NATIVE_TYPE(int16_t, kS16)
HLOREF_NATIVE_TYPE(int32_t, kS32)
HLOREF_NATIVE_TYPE(int64_t, kS64)
HLOREF_NATIVE_TYPE(uint8_t, kU8)
HLOREF_NATIVE_TYPE(uint16_t, kU16)
HLOREF_NATIVE_TYPE(uint32_t, kU32)
HLOREF_NATIVE_TYPE(uint64_t, kU64)
HLOREF_NATIVE_TYPE(float, kF32)
HLOREF_NATIVE_TYPE(double, kF64)
HLOREF_NATIVE_TYPE(std::complex<float>, kC64)
HLOREF_NATIVE_TYPE(std::complex<double>, kC128)
#undef HLOREF_NATIVE_TYPE

// Any rank: `values` in row-major order; their count must be the product of
// `dimensions` (else the builder records an error).
template <typename T>
XlaOp ConstantFromValues(Builder* builder, absl::Span<const int64_t> dimensions,
                         absl::Span<const T> values);
template <typename T>
XlaOp ConstantR0(Builder* builder, T value) {
  return ConstantFromValues<T>(builder, {}, absl::Span<const T>(&value, 1));
}
template <typename T>
XlaOp ConstantR1(Builder* builder, absl::Span<const T> values) {
  return ConstantFromValues<T>(builder, {static_cast<int64_t>(values.size())},
                               values);
}
template <typename T>
XlaOp ConstantR1(Builder* builder, std::initializer_list<T> values) {
  return ConstantR1<T>(builder,
                       absl::Span<const T>(values.begin(), values.size()));
}
// `length` copies of `value`.
template <typename T>
XlaOp ConstantR1(Builder* builder, int64_t length, T value) {
  // InlinedVector, not std::vector: std::vector<bool> has no contiguous data.
  absl::InlinedVector<T, 8> v(length > 0 ? length : 0, value);
  return ConstantFromValues<T>(builder, {length},
                               absl::Span<const T>(v.data(), v.size()));
}
// Rows must all have the same length (else an error is recorded).
template <typename T>
XlaOp ConstantR2(Builder* builder,
                 std::initializer_list<std::initializer_list<T>> values);

// ============================================================ element-wise
// Element-wise binary arithmetic operations (seed 001) with seed 000's
// broadcasting: equal shapes, a scalar operand, degenerate dimensions, or
// `broadcast_dimensions` mapping the lower-rank operand's dimensions to the
// higher-rank operand's (strictly increasing).
XlaOp Add(XlaOp lhs, XlaOp rhs,
          absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Sub(XlaOp lhs, XlaOp rhs,
          absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Mul(XlaOp lhs, XlaOp rhs,
          absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Div(XlaOp lhs, XlaOp rhs,
          absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Rem(XlaOp lhs, XlaOp rhs,
          absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Max(XlaOp lhs, XlaOp rhs,
          absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Min(XlaOp lhs, XlaOp rhs,
          absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Pow(XlaOp lhs, XlaOp rhs,
          absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp And(XlaOp lhs, XlaOp rhs,
          absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Or(XlaOp lhs, XlaOp rhs,
         absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Xor(XlaOp lhs, XlaOp rhs,
          absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftLeft(XlaOp lhs, XlaOp rhs,
                absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftRightArithmetic(XlaOp lhs, XlaOp rhs,
                           absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftRightLogical(XlaOp lhs, XlaOp rhs,
                        absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Atan2(XlaOp lhs, XlaOp rhs,
            absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Complex(XlaOp lhs, XlaOp rhs,
              absl::Span<const int64_t> broadcast_dimensions = {});

// Element-wise comparison operations; the TotalOrder forms compare floats
// with comparison type TOTALORDER.
XlaOp Eq(XlaOp lhs, XlaOp rhs,
         absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Ne(XlaOp lhs, XlaOp rhs,
         absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Ge(XlaOp lhs, XlaOp rhs,
         absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Gt(XlaOp lhs, XlaOp rhs,
         absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Le(XlaOp lhs, XlaOp rhs,
         absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Lt(XlaOp lhs, XlaOp rhs,
         absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp EqTotalOrder(XlaOp lhs, XlaOp rhs,
                   absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp NeTotalOrder(XlaOp lhs, XlaOp rhs,
                   absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp GeTotalOrder(XlaOp lhs, XlaOp rhs,
                   absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp GtTotalOrder(XlaOp lhs, XlaOp rhs,
                   absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp LeTotalOrder(XlaOp lhs, XlaOp rhs,
                   absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp LtTotalOrder(XlaOp lhs, XlaOp rhs,
                   absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Compare(XlaOp lhs, XlaOp rhs,
              absl::Span<const int64_t> broadcast_dimensions,
              ComparisonDirection direction,
              ComparisonType compare_type = ComparisonType::kDefault);
XlaOp Compare(XlaOp lhs, XlaOp rhs, ComparisonDirection direction);

// Element-wise unary functions.
XlaOp Abs(XlaOp operand);
XlaOp Cbrt(XlaOp operand);
XlaOp Ceil(XlaOp operand);
XlaOp Clz(XlaOp operand);
XlaOp Cos(XlaOp operand);
XlaOp Erf(XlaOp operand);
XlaOp Exp(XlaOp operand);
XlaOp Expm1(XlaOp operand);
XlaOp Floor(XlaOp operand);
XlaOp Imag(XlaOp operand);
XlaOp IsFinite(XlaOp operand);
XlaOp Log(XlaOp operand);
XlaOp Log1p(XlaOp operand);
XlaOp Logistic(XlaOp operand);
XlaOp Neg(XlaOp operand);
XlaOp Not(XlaOp operand);
XlaOp PopulationCount(XlaOp operand);
XlaOp Real(XlaOp operand);
XlaOp Round(XlaOp operand);  // ties away from zero
XlaOp RoundNearestEven(XlaOp operand);
XlaOp Rsqrt(XlaOp operand);
XlaOp Sign(XlaOp operand);
XlaOp Sin(XlaOp operand);
XlaOp Sqrt(XlaOp operand);
XlaOp Tan(XlaOp operand);
XlaOp Tanh(XlaOp operand);

// Clamp(min, operand, max); min and/or max may be scalars.
XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max);
// Select(pred, on_true, on_false); pred may be a scalar.
XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false);

XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_element_type);
// Different widths: the last dimension grows (B > B') or must be B'/B and
// is dropped (B' > B), as seed 001 describes.
XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_element_type);
// Argument order as XlaBuilder declares it (the table of seed 001 lists
// exponent_bits first too; its prose heading swaps them).
XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits);

// ============================================================ shapes
XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> broadcast_sizes);
XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dim_size,
                     absl::Span<const int64_t> broadcast_dimensions);
// `dimensions` (in-order, consecutive) become one dimension in their place
// (seed 001's text and XlaBuilder: {0,1} of f32[4,2,3] gives f32[8,3]; the
// seed's worked example lists the {0,1} and {1,2} results under swapped
// labels).
XlaOp Collapse(XlaOp operand, absl::Span<const int64_t> dimensions);
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes);
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> dimensions,
              absl::Span<const int64_t> new_sizes);
XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation);
XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions);
XlaOp Iota(Builder* builder, const Shape& shape, int64_t iota_dimension);
XlaOp Iota(Builder* builder, PrimitiveType type, int64_t size);
XlaOp GetDimensionSize(XlaOp operand, int64_t dimension);
XlaOp SetDimensionSize(XlaOp operand, XlaOp val, int64_t dimension);

// ============================================================ slicing
XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start_indices,
            absl::Span<const int64_t> limit_indices,
            absl::Span<const int64_t> strides);
XlaOp SliceInDim(XlaOp operand, int64_t start_index, int64_t limit_index,
                 int64_t stride, int64_t dimno);
XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices,
                   absl::Span<const int64_t> slice_sizes);
XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update,
                         absl::Span<const XlaOp> start_indices);
XlaOp ConcatInDim(Builder* builder, absl::Span<const XlaOp> operands,
                  int64_t dimension);
inline XlaOp Concatenate(Builder* builder, absl::Span<const XlaOp> operands,
                         int64_t dimension) {
  return ConcatInDim(builder, operands, dimension);
}
XlaOp Pad(XlaOp operand, XlaOp padding_value,
          const PaddingConfig& padding_config);

// ============================================================ contraction
// Dot: vector.vector, matrix.vector, matrix.matrix (seed 001 table).
XlaOp Dot(XlaOp lhs, XlaOp rhs,
          absl::Span<const PrecisionConfig> precision_config = {},
          std::optional<PrimitiveType> preferred_element_type = std::nullopt);
XlaOp DotGeneral(
    XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& dimension_numbers,
    absl::Span<const PrecisionConfig> precision_config = {},
    std::optional<PrimitiveType> preferred_element_type = std::nullopt);

XlaOp Conv(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
           Padding padding, int64_t feature_group_count = 1,
           int64_t batch_group_count = 1,
           absl::Span<const PrecisionConfig> precision_config = {});
XlaOp ConvWithGeneralPadding(
    XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding,
    int64_t feature_group_count = 1, int64_t batch_group_count = 1,
    absl::Span<const PrecisionConfig> precision_config = {});
XlaOp ConvWithGeneralDimensions(
    XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
    Padding padding, const ConvolutionDimensionNumbers& dimension_numbers,
    int64_t feature_group_count = 1, int64_t batch_group_count = 1,
    absl::Span<const PrecisionConfig> precision_config = {});
XlaOp ConvGeneral(XlaOp lhs, XlaOp rhs,
                  absl::Span<const int64_t> window_strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  const ConvolutionDimensionNumbers& dimension_numbers,
                  int64_t feature_group_count = 1,
                  int64_t batch_group_count = 1,
                  absl::Span<const PrecisionConfig> precision_config = {});
XlaOp ConvGeneralDilated(
    XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding,
    absl::Span<const int64_t> lhs_dilation,
    absl::Span<const int64_t> rhs_dilation,
    const ConvolutionDimensionNumbers& dimension_numbers,
    int64_t feature_group_count = 1, int64_t batch_group_count = 1,
    absl::Span<const PrecisionConfig> precision_config = {},
    std::optional<PrimitiveType> preferred_element_type = std::nullopt);

// ============================================================ reductions
XlaOp Reduce(XlaOp operand, XlaOp init_value, const HloModule& computation,
             absl::Span<const int64_t> dimensions_to_reduce);
// Variadic: the result is a tuple when there are several operands.
XlaOp Reduce(Builder* builder, absl::Span<const XlaOp> operands,
             absl::Span<const XlaOp> init_values, const HloModule& computation,
             absl::Span<const int64_t> dimensions_to_reduce);
XlaOp ReduceAll(XlaOp operand, XlaOp init_value, const HloModule& computation);

XlaOp ReduceWindow(XlaOp operand, XlaOp init_value,
                   const HloModule& computation,
                   absl::Span<const int64_t> window_dimensions,
                   absl::Span<const int64_t> window_strides, Padding padding);
XlaOp ReduceWindow(absl::Span<const XlaOp> operands,
                   absl::Span<const XlaOp> init_values,
                   const HloModule& computation,
                   absl::Span<const int64_t> window_dimensions,
                   absl::Span<const int64_t> window_strides, Padding padding);
XlaOp ReduceWindowWithGeneralPadding(
    absl::Span<const XlaOp> operands, absl::Span<const XlaOp> init_values,
    const HloModule& computation, absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides,
    absl::Span<const int64_t> base_dilations,
    absl::Span<const int64_t> window_dilations,
    absl::Span<const std::pair<int64_t, int64_t>> padding);

XlaOp SelectAndScatter(XlaOp operand, const HloModule& select,
                       absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides,
                       Padding padding, XlaOp source, XlaOp init_value,
                       const HloModule& scatter);
XlaOp SelectAndScatterWithGeneralPadding(
    XlaOp operand, const HloModule& select,
    absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding, XlaOp source,
    XlaOp init_value, const HloModule& scatter);

// Map(operands..., computation, dimensions); `dimensions` defaults to all
// dimensions of the operands.
XlaOp Map(Builder* builder, absl::Span<const XlaOp> operands,
          const HloModule& computation, absl::Span<const int64_t> dimensions,
          absl::Span<const XlaOp> static_operands = {});

// dimension -1 sorts along the last dimension.
XlaOp Sort(absl::Span<const XlaOp> operands, const HloModule& comparator,
           int64_t dimension = -1, bool is_stable = false);

// ============================================================ gather/scatter
XlaOp Gather(XlaOp operand, XlaOp start_indices,
             const GatherDimensionNumbers& dimension_numbers,
             absl::Span<const int64_t> slice_sizes,
             bool indices_are_sorted = false);
XlaOp Scatter(XlaOp operand, XlaOp scatter_indices, XlaOp updates,
              const HloModule& update_computation,
              const ScatterDimensionNumbers& dimension_numbers,
              bool indices_are_sorted = false, bool unique_indices = false);
XlaOp Scatter(absl::Span<const XlaOp> operands, XlaOp scatter_indices,
              absl::Span<const XlaOp> updates,
              const HloModule& update_computation,
              const ScatterDimensionNumbers& dimension_numbers,
              bool indices_are_sorted = false, bool unique_indices = false);

// ============================================================ control flow
XlaOp Call(Builder* builder, const HloModule& computation,
           absl::Span<const XlaOp> operands);
// A call with is_composite=true and frontend attributes composite.name,
// composite.attributes (when given) and composite.version.
XlaOp CompositeCall(Builder* builder, const HloModule& computation,
                    absl::Span<const XlaOp> operands, const std::string& name,
                    std::optional<absl::string_view> attributes = std::nullopt,
                    std::optional<int64_t> version = std::nullopt);
XlaOp Conditional(XlaOp predicate, XlaOp true_operand,
                  const HloModule& true_computation, XlaOp false_operand,
                  const HloModule& false_computation);
XlaOp Conditional(XlaOp branch_index,
                  absl::Span<const HloModule* const> branch_computations,
                  absl::Span<const XlaOp> branch_operands);
XlaOp While(const HloModule& condition, const HloModule& body, XlaOp init);

// ============================================================ tuples, tokens
XlaOp Tuple(Builder* builder, absl::Span<const XlaOp> elements);
XlaOp GetTupleElement(XlaOp tuple_data, int64_t index);
XlaOp AfterAll(Builder* builder, absl::Span<const XlaOp> tokens);
XlaOp CreateToken(Builder* builder);  // after-all with no operands
XlaOp OptimizationBarrier(XlaOp operand);

// ============================================================ collectives
// replica_groups empty: all replicas form one group.
XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension,
                int64_t shard_count,
                const std::vector<std::vector<int64_t>>& replica_groups = {},
                std::optional<int64_t> channel_id = std::nullopt,
                bool use_global_device_ids = false);
XlaOp AllReduce(XlaOp operand, const HloModule& computation,
                const std::vector<std::vector<int64_t>>& replica_groups = {},
                std::optional<int64_t> channel_id = std::nullopt,
                bool use_global_device_ids = false);
XlaOp AllToAll(XlaOp operand, int64_t split_dimension, int64_t concat_dimension,
               int64_t split_count,
               const std::vector<std::vector<int64_t>>& replica_groups = {});
XlaOp CollectivePermute(
    XlaOp operand,
    const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
    std::optional<int64_t> channel_id = std::nullopt);
XlaOp ReduceScatter(
    XlaOp operand, const HloModule& computation, int64_t scatter_dimension,
    int64_t shard_count,
    const std::vector<std::vector<int64_t>>& replica_groups = {},
    std::optional<int64_t> channel_id = std::nullopt,
    bool use_global_device_ids = false);
XlaOp CrossReplicaSum(
    XlaOp operand,
    const std::vector<std::vector<int64_t>>& replica_groups = {});
XlaOp ReplicaId(Builder* builder);

// ============================================================ random
XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape);
XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape);
// Returns the tuple (new state, data of `shape`).
XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state,
                      const Shape& shape);

// ============================================================ numerics
XlaOp Fft(XlaOp operand, FftType fft_type,
          absl::Span<const int64_t> fft_length);
XlaOp TriangularSolve(XlaOp a, XlaOp b, bool left_side, bool lower,
                      bool unit_diagonal, TransposeA transpose_a);
XlaOp Cholesky(XlaOp a, bool lower);
XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset, float epsilon,
                        int64_t feature_index);
XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean,
                         XlaOp variance, float epsilon, int64_t feature_index);
XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp batch_mean,
                    XlaOp batch_var, XlaOp grad_output, float epsilon,
                    int64_t feature_index);

// ============================================================ host I/O
// Infeed: reads `shape` (after-all token, infeed, get-tuple-element 0).
XlaOp Infeed(Builder* builder, const Shape& shape,
             const std::string& config = "");
// Returns the (shape, token) tuple.
XlaOp InfeedWithToken(XlaOp token, const Shape& shape,
                      const std::string& config = "");
// Returns the outfeed's token.
XlaOp Outfeed(XlaOp operand, const Shape& shape_with_layout,
              const std::string& outfeed_config = "");
XlaOp OutfeedWithToken(XlaOp operand, XlaOp token,
                       const Shape& shape_with_layout,
                       const std::string& outfeed_config = "");
// send + send-done; returns the send-done token.
XlaOp Send(XlaOp operand, const ChannelHandle& channel_handle);
XlaOp SendWithToken(XlaOp operand, XlaOp token,
                    const ChannelHandle& channel_handle);
// recv + recv-done + get-tuple-element 0: the received data.
XlaOp Recv(Builder* builder, const Shape& shape,
           const ChannelHandle& channel_handle);
// Returns recv-done's (data, token) tuple.
XlaOp RecvWithToken(XlaOp token, const Shape& shape,
                    const ChannelHandle& channel_handle);

// CustomCall(target_name, args..., shape); `opaque` becomes backend_config.
XlaOp CustomCall(Builder* builder, const std::string& call_target_name,
                 absl::Span<const XlaOp> operands, const Shape& shape,
                 const std::string& opaque = "", bool has_side_effect = false);

// ============================================================ templates
template <typename T>
XlaOp ConstantFromValues(Builder* builder, absl::Span<const int64_t> dimensions,
                         absl::Span<const T> values) {
  int64_t count = 1;
  for (int64_t d : dimensions) count *= d < 0 ? 0 : d;
  if (builder == nullptr) return XlaOp();
  bool bad_dims = false;
  for (int64_t d : dimensions) bad_dims |= d < 0;
  if (bad_dims || count != static_cast<int64_t>(values.size())) {
    return builder->ReportError(
        "ConstantFromValues",
        absl::InvalidArgumentError(
            "the number of values does not match the dimensions (or a "
            "dimension is negative)"));
  }
  return ConstantLiteral(
      builder, Literal::CreateFromValues<T>(NativeToPrimitiveType<T>::value,
                                            dimensions, values));
}

template <typename T>
XlaOp ConstantR2(Builder* builder,
                 std::initializer_list<std::initializer_list<T>> values) {
  absl::InlinedVector<T, 16> flat;
  const int64_t rows = static_cast<int64_t>(values.size());
  const int64_t cols =
      rows == 0 ? 0 : static_cast<int64_t>(values.begin()->size());
  for (const auto& row : values) {
    if (static_cast<int64_t>(row.size()) != cols) {
      if (builder == nullptr) return XlaOp();
      return builder->ReportError(
          "ConstantR2", absl::InvalidArgumentError(
                            "rows have different lengths (ragged array)"));
    }
    flat.insert(flat.end(), row.begin(), row.end());
  }
  return ConstantFromValues<T>(builder, {rows, cols},
                               absl::Span<const T>(flat.data(), flat.size()));
}

}  // namespace hloref

#endif  // HLOREF_SPEC_BUILDER_BUILDER_H_
