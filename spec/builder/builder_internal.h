// Helpers shared by the builder's op files: call descriptions for error
// messages and the implicit-broadcast lowering of seed 000.
#ifndef HLOREF_SPEC_BUILDER_BUILDER_INTERNAL_H_
#define HLOREF_SPEC_BUILDER_BUILDER_INTERNAL_H_

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "spec/builder/builder.h"

namespace hloref::builder_internal {

// `f32[2,3] %x`, or `<invalid op>`.
std::string Desc(const XlaOp& op);
std::string Desc(absl::Span<const XlaOp> ops);  // `{f32[] %a, f32[] %b}`
std::string Desc(const Shape& shape);
std::string Dims(absl::Span<const int64_t> dims);  // `{1,2}`
std::string Pairs(absl::Span<const std::pair<int64_t, int64_t>> pairs);
std::string Groups(const std::vector<std::vector<int64_t>>& groups);
// `Fn(a=x, b=y)`.
std::string Call(
    absl::string_view fn,
    std::initializer_list<std::pair<absl::string_view, std::string>> args);

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

// The builder of a call and its description; `builder` is null when no
// operand names a builder (nothing can be recorded then).
struct CallContext {
  Builder* builder = nullptr;
  std::string call;
  // Reports `status` in the builder; returns the invalid handle.
  XlaOp Fail(const absl::Status& status) const {
    return builder == nullptr ? XlaOp() : builder->ReportError(call, status);
  }
  // The invalid handle after an error that is already recorded.
  XlaOp Failed() const {
    return builder == nullptr ? XlaOp() : builder->ReportError(call, {});
  }
  XlaOp Add(InstructionSpec spec) const {
    return builder->AddInstruction(call, std::move(spec));
  }
};

// Starts a call: finds the builder, checks the operands. Returns false
// (after recording the error) when the call cannot go on; `*ctx` is filled
// either way.
bool Begin(CallContext* ctx, Builder* builder, absl::Span<const XlaOp> operands,
           std::string call);

// One instruction with `operands`; `shape` as InstructionSpec::shape.
InstructionSpec Spec(HloOpcode opcode, absl::Span<const XlaOp> operands,
                     Shape shape = Shape());

// broadcast(operand) to `dims` (element type kept) with `dimensions`.
XlaOp InDimBroadcast(const CallContext& ctx, XlaOp operand,
                     absl::Span<const int64_t> dims,
                     absl::Span<const int64_t> dimensions);
// reshape(operand) to `dims`.
XlaOp ReshapeTo(const CallContext& ctx, XlaOp operand,
                absl::Span<const int64_t> dims);
// Seed 000 degenerate-dimension broadcasting of a same-rank (or scalar)
// operand to `dims`: reshape away the size-1 dimensions that grow, then
// broadcast. Returns the operand when it already has `dims`.
XlaOp AddBroadcastSequence(const CallContext& ctx, XlaOp operand,
                           absl::Span<const int64_t> dims);

// Window for reduce-window / select-and-scatter / convolution.
Window MakeWindow(absl::Span<const int64_t> window_dimensions,
                  absl::Span<const int64_t> window_strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  absl::Span<const int64_t> base_dilations,
                  absl::Span<const int64_t> window_dilations);

// A scalar computation `name`: (T, T) -> T applying `opcode` (the adder of
// CrossReplicaSum).
absl::StatusOr<std::unique_ptr<HloModule>> ScalarBinaryComputation(
    absl::string_view name, HloOpcode opcode, PrimitiveType type);

}  // namespace hloref::builder_internal

#endif  // HLOREF_SPEC_BUILDER_BUILDER_INTERNAL_H_
