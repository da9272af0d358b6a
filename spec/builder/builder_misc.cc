// Builder: collectives, random numbers, Fft, linear algebra, batch norm,
// host I/O and custom calls. Seed 001 AllGather, AllReduce, AllToAll,
// CollectivePermute, ReduceScatter, CrossReplicaSum, ReplicaId, RngUniform,
// RngNormal, RngBitGenerator, Fft, TriangularSolve, Cholesky,
// BatchNormTraining, BatchNormInference, BatchNormGrad, Infeed, Outfeed,
// Send, Recv, CustomCall.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spec/builder/builder.h"
#include "spec/builder/builder_internal.h"

namespace hloref {

using builder_internal::Begin;
using builder_internal::CallContext;
using builder_internal::Desc;
using builder_internal::Dims;
using builder_internal::Groups;
using builder_internal::Invalid;
using builder_internal::ReshapeTo;
using builder_internal::Spec;

namespace {

std::string Opt(std::optional<int64_t> v) {
  return v.has_value() ? absl::StrCat(*v) : "none";
}

void SetGroups(InstructionSpec* spec,
               const std::vector<std::vector<int64_t>>& replica_groups,
               std::optional<int64_t> channel_id, bool use_global_device_ids) {
  spec->attrs.replica_groups.groups = replica_groups;
  spec->attrs.set(AttrId::kReplicaGroups);
  if (channel_id.has_value()) {
    spec->attrs.channel_id = *channel_id;
    spec->attrs.set(AttrId::kChannelId);
  }
  if (use_global_device_ids) {
    spec->attrs.use_global_device_ids = true;
    spec->attrs.set(AttrId::kUseGlobalDeviceIds);
  }
}

// Seed 001 AllGather / ReduceScatter / AllToAll: shard_count (split_count)
// "is the size of each replica group"; with no groups, the replica count.
absl::Status CheckShardCount(const CallContext& ctx, absl::string_view what,
                             int64_t shard_count,
                             const std::vector<std::vector<int64_t>>& groups) {
  const int64_t expected = groups.empty()
                               ? ctx.builder->mutable_config()->replica_count
                               : static_cast<int64_t>(groups[0].size());
  if (shard_count != expected) {
    return Invalid(what, " is ", shard_count, " but ",
                   groups.empty() ? "the replica count" : "the group size",
                   " is ", expected,
                   " (Builder::mutable_config() sets the "
                   "replica count)");
  }
  return absl::OkStatus();
}

absl::Status CheckDim(const XlaOp& op, int64_t dim, absl::string_view what) {
  const Shape& s = op.instruction()->shape();
  if (!s.IsArray() || dim < 0 || dim >= s.rank()) {
    return Invalid(what, " ", dim, " is not a dimension of ", Desc(op));
  }
  return absl::OkStatus();
}

// The flattened operands of a collective: a tuple operand becomes its
// elements (the all-reduce is performed on each element).
std::vector<XlaOp> Flatten(const CallContext& ctx, XlaOp operand) {
  const Shape& s = operand.instruction()->shape();
  if (!s.IsTuple()) return {operand};
  std::vector<XlaOp> out;
  for (int64_t i = 0; i < s.tuple_size(); ++i) {
    InstructionSpec spec = Spec(HloOpcode::kGetTupleElement, {operand});
    spec.attrs.index = i;
    spec.attrs.set(AttrId::kIndex);
    out.push_back(ctx.Add(std::move(spec)));
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- collectives

XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension,
                int64_t shard_count,
                const std::vector<std::vector<int64_t>>& replica_groups,
                std::optional<int64_t> channel_id, bool use_global_device_ids) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             builder_internal::Call(
                 "AllGather",
                 {{"operand", Desc(operand)},
                  {"all_gather_dim", absl::StrCat(all_gather_dimension)},
                  {"shard_count", absl::StrCat(shard_count)},
                  {"replica_groups", Groups(replica_groups)},
                  {"channel_id", Opt(channel_id)}}))) {
    return ctx.Failed();
  }
  absl::Status st = CheckDim(operand, all_gather_dimension, "all_gather_dim");
  if (st.ok())
    st = CheckShardCount(ctx, "shard_count", shard_count, replica_groups);
  if (!st.ok()) return ctx.Fail(st);
  InstructionSpec spec = Spec(HloOpcode::kAllGather, {operand});
  spec.attrs.dimensions = {all_gather_dimension};
  spec.attrs.set(AttrId::kDimensions);
  SetGroups(&spec, replica_groups, channel_id, use_global_device_ids);
  return ctx.Add(std::move(spec));
}

XlaOp AllReduce(XlaOp operand, const HloModule& computation,
                const std::vector<std::vector<int64_t>>& replica_groups,
                std::optional<int64_t> channel_id, bool use_global_device_ids) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             builder_internal::Call("AllReduce",
                                    {{"operand", Desc(operand)},
                                     {"computation", computation.name()},
                                     {"replica_groups", Groups(replica_groups)},
                                     {"channel_id", Opt(channel_id)}}))) {
    return ctx.Failed();
  }
  const Shape& s = operand.instruction()->shape();
  if (s.IsTuple() && s.tuple_size() == 0) {
    return ctx.Fail(
        Invalid("the operand must be an array or a non-empty "
                "tuple of arrays"));
  }
  std::vector<XlaOp> operands = Flatten(ctx, operand);
  for (const XlaOp& op : operands) {
    if (!op.valid()) return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kAllReduce, operands);
  SetGroups(&spec, replica_groups, channel_id, use_global_device_ids);
  spec.callees.emplace_back(AttrId::kToApply, &computation);
  return ctx.Add(std::move(spec));
}

XlaOp AllToAll(XlaOp operand, int64_t split_dimension, int64_t concat_dimension,
               int64_t split_count,
               const std::vector<std::vector<int64_t>>& replica_groups) {
  CallContext ctx;
  if (!Begin(
          &ctx, nullptr, {operand},
          builder_internal::Call(
              "AllToAll", {{"operand", Desc(operand)},
                           {"split_dimension", absl::StrCat(split_dimension)},
                           {"concat_dimension", absl::StrCat(concat_dimension)},
                           {"split_count", absl::StrCat(split_count)},
                           {"replica_groups", Groups(replica_groups)}}))) {
    return ctx.Failed();
  }
  absl::Status st = CheckDim(operand, split_dimension, "split_dimension");
  if (st.ok()) st = CheckDim(operand, concat_dimension, "concat_dimension");
  if (st.ok())
    st = CheckShardCount(ctx, "split_count", split_count, replica_groups);
  const Shape& s = operand.instruction()->shape();
  // Seed 001 prerequisite: the split dimension is divisible by split_count.
  if (st.ok() &&
      (split_count <= 0 || s.dimensions(split_dimension) % split_count != 0)) {
    st = Invalid("dimension ", split_dimension, " of size ",
                 s.dimensions(split_dimension),
                 " is not divisible by split_count ", split_count);
  }
  if (!st.ok()) return ctx.Fail(st);
  // The array all-to-all splits and concatenates along one dimension: block
  // j of the result comes from participant j.
  InstructionSpec spec = Spec(HloOpcode::kAllToAll, {operand});
  spec.attrs.dimensions = {split_dimension};
  spec.attrs.set(AttrId::kDimensions);
  SetGroups(&spec, replica_groups, std::nullopt, false);
  XlaOp all_to_all = ctx.Add(std::move(spec));
  if (!all_to_all.valid() || split_dimension == concat_dimension) {
    return all_to_all;
  }
  // Different dimensions: split the split dimension into (source, block),
  // move the source index in front of the concat dimension and merge it
  // into that dimension, so the received blocks are concatenated along
  // concat_dimension in participant order.
  const int64_t rank = s.rank();
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == split_dimension) {
      sizes.push_back(split_count);
      sizes.push_back(s.dimensions(i) / split_count);
    } else {
      sizes.push_back(s.dimensions(i));
    }
  }
  XlaOp split = ReshapeTo(ctx, all_to_all, sizes);
  std::vector<int64_t> permutation;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t after_reshape = i >= split_dimension ? i + 1 : i;
    if (i == concat_dimension) permutation.push_back(split_dimension);
    permutation.push_back(after_reshape);
  }
  InstructionSpec transpose = Spec(HloOpcode::kTranspose, {split});
  transpose.attrs.dimensions = permutation;
  transpose.attrs.set(AttrId::kDimensions);
  XlaOp moved = split.valid() ? ctx.Add(std::move(transpose)) : split;
  std::vector<int64_t> out(s.dimensions().begin(), s.dimensions().end());
  out[split_dimension] /= split_count;
  out[concat_dimension] *= split_count;
  return ReshapeTo(ctx, moved, out);
}

XlaOp CollectivePermute(
    XlaOp operand,
    const std::vector<std::pair<int64_t, int64_t>>& source_target_pairs,
    std::optional<int64_t> channel_id) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             builder_internal::Call(
                 "CollectivePermute",
                 {{"operand", Desc(operand)},
                  {"source_target_pairs",
                   builder_internal::Pairs(source_target_pairs)},
                  {"channel_id", Opt(channel_id)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kCollectivePermute, {operand});
  spec.attrs.source_target_pairs = source_target_pairs;
  spec.attrs.set(AttrId::kSourceTargetPairs);
  if (channel_id.has_value()) {
    spec.attrs.channel_id = *channel_id;
    spec.attrs.set(AttrId::kChannelId);
  }
  return ctx.Add(std::move(spec));
}

XlaOp ReduceScatter(XlaOp operand, const HloModule& computation,
                    int64_t scatter_dimension, int64_t shard_count,
                    const std::vector<std::vector<int64_t>>& replica_groups,
                    std::optional<int64_t> channel_id,
                    bool use_global_device_ids) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             builder_internal::Call(
                 "ReduceScatter",
                 {{"operand", Desc(operand)},
                  {"computation", computation.name()},
                  {"scatter_dimension", absl::StrCat(scatter_dimension)},
                  {"shard_count", absl::StrCat(shard_count)},
                  {"replica_groups", Groups(replica_groups)},
                  {"channel_id", Opt(channel_id)}}))) {
    return ctx.Failed();
  }
  absl::Status st =
      CheckShardCount(ctx, "shard_count", shard_count, replica_groups);
  if (!st.ok()) return ctx.Fail(st);
  std::vector<XlaOp> operands = Flatten(ctx, operand);
  for (const XlaOp& op : operands) {
    if (!op.valid()) return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kReduceScatter, operands);
  spec.attrs.dimensions = {scatter_dimension};
  spec.attrs.set(AttrId::kDimensions);
  SetGroups(&spec, replica_groups, channel_id, use_global_device_ids);
  spec.callees.emplace_back(AttrId::kToApply, &computation);
  return ctx.Add(std::move(spec));
}

XlaOp CrossReplicaSum(XlaOp operand,
                      const std::vector<std::vector<int64_t>>& replica_groups) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             builder_internal::Call(
                 "CrossReplicaSum",
                 {{"operand", Desc(operand)},
                  {"replica_groups", Groups(replica_groups)}}))) {
    return ctx.Failed();
  }
  const Shape& s = operand.instruction()->shape();
  if (!s.IsArray()) return ctx.Fail(Invalid("the operand must be an array"));
  // "Performs AllReduce with a summation computation" (or for pred, XLA's
  // scalar add computation: or).
  const HloOpcode add = s.element_type() == PrimitiveType::kPred
                            ? HloOpcode::kOr
                            : HloOpcode::kAdd;
  absl::StatusOr<std::unique_ptr<HloModule>> sum =
      builder_internal::ScalarBinaryComputation("add", add, s.element_type());
  if (!sum.ok()) return ctx.Fail(sum.status());
  InstructionSpec spec = Spec(HloOpcode::kAllReduce, {operand});
  SetGroups(&spec, replica_groups, std::nullopt, false);
  spec.callees.emplace_back(AttrId::kToApply, sum->get());
  return ctx.Add(std::move(spec));
}

XlaOp ReplicaId(Builder* builder) {
  CallContext ctx;
  if (!Begin(&ctx, builder, {}, "ReplicaId()")) return ctx.Failed();
  return ctx.Add(
      Spec(HloOpcode::kReplicaId, {}, Shape::Scalar(PrimitiveType::kU32)));
}

// ---------------------------------------------------------------- random

namespace {
XlaOp Rng(absl::string_view fn, absl::string_view a_name,
          absl::string_view b_name, RandomDistribution distribution, XlaOp a,
          XlaOp b, const Shape& shape) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {a, b},
             builder_internal::Call(fn, {{a_name, Desc(a)},
                                         {b_name, Desc(b)},
                                         {"shape", Desc(shape)}}))) {
    return ctx.Failed();
  }
  if (!shape.IsArray()) return ctx.Fail(Invalid("shape must be an array"));
  InstructionSpec spec = Spec(HloOpcode::kRng, {a, b}, shape);
  spec.attrs.distribution = distribution;
  spec.attrs.set(AttrId::kDistribution);
  return ctx.Add(std::move(spec));
}
}  // namespace

XlaOp RngUniform(XlaOp a, XlaOp b, const Shape& shape) {
  return Rng("RngUniform", "a", "b", RandomDistribution::kUniform, a, b, shape);
}

XlaOp RngNormal(XlaOp mu, XlaOp sigma, const Shape& shape) {
  return Rng("RngNormal", "mu", "sigma", RandomDistribution::kNormal, mu, sigma,
             shape);
}

XlaOp RngBitGenerator(RandomAlgorithm algorithm, XlaOp initial_state,
                      const Shape& shape) {
  const char* name = algorithm == RandomAlgorithm::kThreeFry ? "rng_three_fry"
                     : algorithm == RandomAlgorithm::kPhilox ? "rng_philox"
                                                             : "rng_default";
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {initial_state},
             builder_internal::Call("RngBitGenerator",
                                    {{"algorithm", name},
                                     {"initial_state", Desc(initial_state)},
                                     {"shape", Desc(shape)}}))) {
    return ctx.Failed();
  }
  if (!shape.IsArray()) return ctx.Fail(Invalid("shape must be an array"));
  InstructionSpec spec =
      Spec(HloOpcode::kRngBitGenerator, {initial_state},
           Shape::Tuple({initial_state.instruction()->shape(), shape}));
  spec.attrs.algorithm = name;
  spec.attrs.set(AttrId::kAlgorithm);
  return ctx.Add(std::move(spec));
}

// ---------------------------------------------------------------- numerics

XlaOp Fft(XlaOp operand, FftType fft_type,
          absl::Span<const int64_t> fft_length) {
  const char* type = fft_type == FftType::kFft    ? "FFT"
                     : fft_type == FftType::kIfft ? "IFFT"
                     : fft_type == FftType::kRfft ? "RFFT"
                                                  : "IRFFT";
  CallContext ctx;
  if (!Begin(
          &ctx, nullptr, {operand},
          builder_internal::Call("Fft", {{"operand", Desc(operand)},
                                         {"fft_type", type},
                                         {"fft_length", Dims(fft_length)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kFft, {operand});
  spec.attrs.fft_type = fft_type;
  spec.attrs.set(AttrId::kFftType);
  spec.attrs.fft_length.assign(fft_length.begin(), fft_length.end());
  spec.attrs.set(AttrId::kFftLength);
  return ctx.Add(std::move(spec));
}

XlaOp TriangularSolve(XlaOp a, XlaOp b, bool left_side, bool lower,
                      bool unit_diagonal, TransposeA transpose_a) {
  const char* t = transpose_a == TransposeA::kTranspose ? "TRANSPOSE"
                  : transpose_a == TransposeA::kAdjoint ? "ADJOINT"
                                                        : "NO_TRANSPOSE";
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {a, b},
             builder_internal::Call(
                 "TriangularSolve",
                 {{"a", Desc(a)},
                  {"b", Desc(b)},
                  {"left_side", left_side ? "true" : "false"},
                  {"lower", lower ? "true" : "false"},
                  {"unit_diagonal", unit_diagonal ? "true" : "false"},
                  {"transpose_a", t}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kTriangularSolve, {a, b});
  spec.attrs.left_side = left_side;
  spec.attrs.lower = lower;
  spec.attrs.unit_diagonal = unit_diagonal;
  spec.attrs.transpose_a = transpose_a == TransposeA::kUnset
                               ? TransposeA::kNoTranspose
                               : transpose_a;
  spec.attrs.set(AttrId::kLeftSide);
  spec.attrs.set(AttrId::kLower);
  spec.attrs.set(AttrId::kUnitDiagonal);
  spec.attrs.set(AttrId::kTransposeA);
  return ctx.Add(std::move(spec));
}

XlaOp Cholesky(XlaOp a, bool lower) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {a},
             builder_internal::Call(
                 "Cholesky",
                 {{"a", Desc(a)}, {"lower", lower ? "true" : "false"}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kCholesky, {a});
  spec.attrs.lower = lower;
  spec.attrs.set(AttrId::kLower);
  return ctx.Add(std::move(spec));
}

namespace {
XlaOp BatchNorm(absl::string_view fn, HloOpcode opcode,
                std::initializer_list<std::pair<absl::string_view, XlaOp>> args,
                float epsilon, int64_t feature_index) {
  std::vector<XlaOp> ops;
  std::string call = absl::StrCat(fn, "(");
  for (const auto& [name, op] : args) {
    ops.push_back(op);
    absl::StrAppend(&call, name, "=", Desc(op), ", ");
  }
  absl::StrAppend(&call, "epsilon=", epsilon, ", feature_index=", feature_index,
                  ")");
  CallContext ctx;
  if (!Begin(&ctx, nullptr, ops, call)) return ctx.Failed();
  InstructionSpec spec = Spec(opcode, ops);
  spec.attrs.epsilon = epsilon;
  spec.attrs.feature_index = feature_index;
  spec.attrs.set(AttrId::kEpsilon);
  spec.attrs.set(AttrId::kFeatureIndex);
  return ctx.Add(std::move(spec));
}
}  // namespace

XlaOp BatchNormTraining(XlaOp operand, XlaOp scale, XlaOp offset, float epsilon,
                        int64_t feature_index) {
  return BatchNorm("BatchNormTraining", HloOpcode::kBatchNormTraining,
                   {{"operand", operand}, {"scale", scale}, {"offset", offset}},
                   epsilon, feature_index);
}

XlaOp BatchNormInference(XlaOp operand, XlaOp scale, XlaOp offset, XlaOp mean,
                         XlaOp variance, float epsilon, int64_t feature_index) {
  return BatchNorm("BatchNormInference", HloOpcode::kBatchNormInference,
                   {{"operand", operand},
                    {"scale", scale},
                    {"offset", offset},
                    {"mean", mean},
                    {"variance", variance}},
                   epsilon, feature_index);
}

XlaOp BatchNormGrad(XlaOp operand, XlaOp scale, XlaOp batch_mean,
                    XlaOp batch_var, XlaOp grad_output, float epsilon,
                    int64_t feature_index) {
  return BatchNorm("BatchNormGrad", HloOpcode::kBatchNormGrad,
                   {{"operand", operand},
                    {"scale", scale},
                    {"mean", batch_mean},
                    {"variance", batch_var},
                    {"grad_output", grad_output}},
                   epsilon, feature_index);
}

// ---------------------------------------------------------------- host I/O

namespace {

XlaOp InfeedImpl(const CallContext& ctx, XlaOp token, const Shape& shape,
                 const std::string& config) {
  InstructionSpec spec =
      Spec(HloOpcode::kInfeed, {token}, Shape::Tuple({shape, Shape::Token()}));
  if (!config.empty()) {
    spec.attrs.infeed_config = config;
    spec.attrs.set(AttrId::kInfeedConfig);
  }
  return ctx.Add(std::move(spec));
}

XlaOp OutfeedImpl(const CallContext& ctx, XlaOp operand, XlaOp token,
                  const Shape& shape_with_layout, const std::string& config) {
  InstructionSpec spec =
      Spec(HloOpcode::kOutfeed, {operand, token}, Shape::Token());
  spec.attrs.outfeed_shape = shape_with_layout;
  spec.attrs.set(AttrId::kOutfeedShape);
  if (!config.empty()) {
    spec.attrs.outfeed_config = config;
    spec.attrs.set(AttrId::kOutfeedConfig);
  }
  return ctx.Add(std::move(spec));
}

// send + send-done (seed 001: "internally decomposed into 2 HLO
// instructions").
XlaOp SendImpl(const CallContext& ctx, XlaOp operand, XlaOp token,
               const ChannelHandle& channel_handle) {
  InstructionSpec send =
      Spec(HloOpcode::kSend, {operand, token},
           Shape::Tuple({operand.instruction()->shape(),
                         Shape::Scalar(PrimitiveType::kU32), Shape::Token()}));
  send.attrs.channel_id = channel_handle.handle;
  send.attrs.set(AttrId::kChannelId);
  XlaOp s = ctx.Add(std::move(send));
  if (!s.valid()) return s;
  InstructionSpec done = Spec(HloOpcode::kSendDone, {s}, Shape::Token());
  done.attrs.channel_id = channel_handle.handle;
  done.attrs.set(AttrId::kChannelId);
  return ctx.Add(std::move(done));
}

XlaOp RecvImpl(const CallContext& ctx, XlaOp token, const Shape& shape,
               const ChannelHandle& channel_handle) {
  InstructionSpec recv =
      Spec(HloOpcode::kRecv, {token},
           Shape::Tuple(
               {shape, Shape::Scalar(PrimitiveType::kU32), Shape::Token()}));
  recv.attrs.channel_id = channel_handle.handle;
  recv.attrs.set(AttrId::kChannelId);
  XlaOp r = ctx.Add(std::move(recv));
  if (!r.valid()) return r;
  InstructionSpec done =
      Spec(HloOpcode::kRecvDone, {r}, Shape::Tuple({shape, Shape::Token()}));
  done.attrs.channel_id = channel_handle.handle;
  done.attrs.set(AttrId::kChannelId);
  return ctx.Add(std::move(done));
}

XlaOp Element0(const CallContext& ctx, XlaOp tuple) {
  if (!tuple.valid()) return tuple;
  InstructionSpec spec = Spec(HloOpcode::kGetTupleElement, {tuple});
  spec.attrs.index = 0;
  spec.attrs.set(AttrId::kIndex);
  return ctx.Add(std::move(spec));
}

XlaOp Token(const CallContext& ctx) {
  return ctx.Add(Spec(HloOpcode::kAfterAll, {}));
}

}  // namespace

XlaOp Infeed(Builder* builder, const Shape& shape, const std::string& config) {
  CallContext ctx;
  if (!Begin(&ctx, builder, {},
             builder_internal::Call(
                 "Infeed", {{"shape", Desc(shape)}, {"config", config}}))) {
    return ctx.Failed();
  }
  XlaOp token = Token(ctx);
  if (!token.valid()) return token;
  return Element0(ctx, InfeedImpl(ctx, token, shape, config));
}

XlaOp InfeedWithToken(XlaOp token, const Shape& shape,
                      const std::string& config) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {token},
             builder_internal::Call("InfeedWithToken", {{"token", Desc(token)},
                                                        {"shape", Desc(shape)},
                                                        {"config", config}}))) {
    return ctx.Failed();
  }
  return InfeedImpl(ctx, token, shape, config);
}

XlaOp Outfeed(XlaOp operand, const Shape& shape_with_layout,
              const std::string& outfeed_config) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             builder_internal::Call(
                 "Outfeed", {{"operand", Desc(operand)},
                             {"shape_with_layout", Desc(shape_with_layout)},
                             {"outfeed_config", outfeed_config}}))) {
    return ctx.Failed();
  }
  XlaOp token = Token(ctx);
  if (!token.valid()) return token;
  return OutfeedImpl(ctx, operand, token, shape_with_layout, outfeed_config);
}

XlaOp OutfeedWithToken(XlaOp operand, XlaOp token,
                       const Shape& shape_with_layout,
                       const std::string& outfeed_config) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand, token},
             builder_internal::Call(
                 "OutfeedWithToken",
                 {{"operand", Desc(operand)},
                  {"token", Desc(token)},
                  {"shape_with_layout", Desc(shape_with_layout)},
                  {"outfeed_config", outfeed_config}}))) {
    return ctx.Failed();
  }
  return OutfeedImpl(ctx, operand, token, shape_with_layout, outfeed_config);
}

XlaOp Send(XlaOp operand, const ChannelHandle& channel_handle) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             builder_internal::Call(
                 "Send",
                 {{"operand", Desc(operand)},
                  {"channel_handle", absl::StrCat(channel_handle.handle)}}))) {
    return ctx.Failed();
  }
  XlaOp token = Token(ctx);
  if (!token.valid()) return token;
  return SendImpl(ctx, operand, token, channel_handle);
}

XlaOp SendWithToken(XlaOp operand, XlaOp token,
                    const ChannelHandle& channel_handle) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand, token},
             builder_internal::Call(
                 "SendWithToken",
                 {{"operand", Desc(operand)},
                  {"token", Desc(token)},
                  {"channel_handle", absl::StrCat(channel_handle.handle)}}))) {
    return ctx.Failed();
  }
  return SendImpl(ctx, operand, token, channel_handle);
}

XlaOp Recv(Builder* builder, const Shape& shape,
           const ChannelHandle& channel_handle) {
  CallContext ctx;
  if (!Begin(&ctx, builder, {},
             builder_internal::Call(
                 "Recv",
                 {{"shape", Desc(shape)},
                  {"channel_handle", absl::StrCat(channel_handle.handle)}}))) {
    return ctx.Failed();
  }
  XlaOp token = Token(ctx);
  if (!token.valid()) return token;
  return Element0(ctx, RecvImpl(ctx, token, shape, channel_handle));
}

XlaOp RecvWithToken(XlaOp token, const Shape& shape,
                    const ChannelHandle& channel_handle) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {token},
             builder_internal::Call(
                 "RecvWithToken",
                 {{"token", Desc(token)},
                  {"shape", Desc(shape)},
                  {"channel_handle", absl::StrCat(channel_handle.handle)}}))) {
    return ctx.Failed();
  }
  return RecvImpl(ctx, token, shape, channel_handle);
}

XlaOp CustomCall(Builder* builder, const std::string& call_target_name,
                 absl::Span<const XlaOp> operands, const Shape& shape,
                 const std::string& opaque, bool has_side_effect) {
  CallContext ctx;
  if (!Begin(&ctx, builder, operands,
             builder_internal::Call("CustomCall",
                                    {{"target_name", call_target_name},
                                     {"args", Desc(operands)},
                                     {"shape", Desc(shape)}}))) {
    return ctx.Failed();
  }
  if (call_target_name.empty()) {
    return ctx.Fail(Invalid("target_name must not be empty"));
  }
  InstructionSpec spec = Spec(HloOpcode::kCustomCall, operands, shape);
  spec.attrs.custom_call_target = call_target_name;
  spec.attrs.set(AttrId::kCustomCallTarget);
  if (!opaque.empty()) {
    spec.attrs.backend_config = opaque;
    spec.attrs.set(AttrId::kBackendConfig);
  }
  if (has_side_effect) {
    spec.attrs.custom_call_has_side_effect = true;
    spec.attrs.set(AttrId::kCustomCallHasSideEffect);
  }
  return ctx.Add(std::move(spec));
}

}  // namespace hloref
