// Builder core: instruction creation with shape inference and error
// recording, import of sub-computations, Build(); constants and
// parameters; the helpers shared by the op files (builder_internal.h).
#include "spec/builder/builder.h"

#include <cmath>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "spec/builder/builder_internal.h"
#include "spec/verifier/verifier.h"

namespace hloref {

using builder_internal::Call;
using builder_internal::Desc;
using builder_internal::Invalid;

// ----------------------------------------------------------------------------
// Builder

Builder::Builder(std::string name)
    : name_(std::move(name)),
      module_(std::make_unique<HloModule>(name_)),
      entry_(std::make_unique<HloComputation>(name_)) {
  // The entry is added to the module last (callees come first in a
  // module), but collectives' inference reads the module config through
  // the parent pointer meanwhile.
  entry_->set_parent(module_.get());
  computation_names_.insert(name_);
}

Builder::~Builder() = default;

std::unique_ptr<Builder> Builder::CreateSubBuilder(
    const std::string& computation_name) {
  return std::make_unique<Builder>(computation_name);
}

HloModuleConfig* Builder::mutable_config() { return module_->mutable_config(); }

namespace {
std::string Sanitize(absl::string_view base) {
  std::string s;
  for (char c : base) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    s.push_back(ok ? c : '_');
  }
  if (s.empty() || (s[0] >= '0' && s[0] <= '9') || s[0] == '.' || s[0] == '-') {
    s = absl::StrCat("v", s);
  }
  return s;
}

// Copies payloads of `from` onto `to`.
absl::Status WithMessage(const absl::Status& from, std::string message) {
  absl::Status to(from.code(), message);
  from.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
    to.SetPayload(url, payload);
  });
  return to;
}
}  // namespace

std::string Builder::UniqueInstructionName(absl::string_view base) {
  std::string b = Sanitize(base);
  if (instruction_names_.insert(b).second) return b;
  while (true) {
    std::string candidate = absl::StrCat(b, ".", next_id_++);
    if (instruction_names_.insert(candidate).second) return candidate;
  }
}

std::string Builder::UniqueComputationName(absl::string_view base) {
  std::string b = Sanitize(base);
  if (computation_names_.insert(b).second) return b;
  for (int64_t i = 1;; ++i) {
    std::string candidate = absl::StrCat(b, ".", i);
    if (computation_names_.insert(candidate).second) return candidate;
  }
}

XlaOp Builder::ReportError(absl::string_view call, const absl::Status& status) {
  if (first_error_.ok() && !status.ok()) {
    first_error_ = WithMessage(
        status,
        absl::StrCat("builder '", name_, "': ", call, ": ", status.message()));
  }
  return XlaOp(this, nullptr);
}

Builder* Builder::BuilderOf(absl::Span<const XlaOp> operands) {
  for (const XlaOp& op : operands) {
    if (op.builder() != nullptr) return op.builder();
  }
  return nullptr;
}

absl::Status Builder::CheckOperands(absl::Span<const XlaOp> operands) const {
  for (size_t i = 0; i < operands.size(); ++i) {
    const XlaOp& op = operands[i];
    if (op.builder() == nullptr) {
      return Invalid("argument ", i,
                     " is an invalid XlaOp (default-constructed)");
    }
    if (op.builder() != this) {
      return Invalid("argument ", i, " belongs to builder '",
                     op.builder()->name(), "', not to '", name_, "'");
    }
    if (op.instruction() == nullptr) {
      return Invalid("argument ", i, " is the result of a failed call");
    }
  }
  return absl::OkStatus();
}

const Shape& Builder::ShapeOf(XlaOp op) const {
  return op.instruction()->shape();
}

absl::StatusOr<Shape> Builder::GetShape(XlaOp op) const {
  XlaOp ops[] = {op};
  HLOREF_RETURN_IF_ERROR(CheckOperands(ops));
  return op.instruction()->shape();
}

absl::StatusOr<HloComputation*> Builder::Import(const HloModule& sub) {
  if (sub.entry() == nullptr) {
    return Invalid("computation module '", sub.name(),
                   "' has no entry computation");
  }
  absl::flat_hash_map<const HloComputation*, HloComputation*> comp_map;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> inst_map;
  std::vector<HloComputation*> added;
  for (const auto& c : sub.computations()) {
    auto nc =
        std::make_unique<HloComputation>(UniqueComputationName(c->name()));
    nc->set_execution_thread(c->execution_thread());
    for (const auto& inst : c->instructions()) {
      auto ni = std::make_unique<HloInstruction>(*inst);
      ni->set_name(UniqueInstructionName(inst->name()));
      inst_map[inst.get()] = nc->AddInstruction(std::move(ni));
    }
    if (c->root() != nullptr) nc->set_root(inst_map[c->root()]);
    HloComputation* added_comp = module_->AddComputation(std::move(nc));
    added_comp->set_is_entry(false);
    comp_map[c.get()] = added_comp;
    added.push_back(added_comp);
  }
  auto remap = [&](HloInstruction* old) -> HloInstruction* {
    auto it = inst_map.find(old);
    return it == inst_map.end() ? old : it->second;
  };
  for (HloComputation* c : added) {
    for (const auto& inst : c->instructions()) {
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        inst->ReplaceOperand(i, remap(inst->operand(i)));
      }
      for (HloComputation*& callee : *inst->mutable_called_computations()) {
        auto it = comp_map.find(callee);
        if (it != comp_map.end()) callee = it->second;
      }
      for (HloInstruction*& p : inst->mutable_attrs()->control_predecessors) {
        p = remap(p);
      }
    }
    c->FinalizeParameters();
  }
  return comp_map[sub.entry()];
}

XlaOp Builder::AddInstruction(absl::string_view call, InstructionSpec spec) {
  if (!first_error_.ok()) return XlaOp(this, nullptr);
  if (built_) {
    return ReportError(call, absl::FailedPreconditionError(
                                 "the builder has already built its module"));
  }
  absl::Status operands_ok = CheckOperands(spec.operands);
  if (!operands_ok.ok()) return ReportError(call, operands_ok);

  if (spec.opcode == HloOpcode::kParameter &&
      parameter_numbers_.count(spec.parameter_number) > 0) {
    return ReportError(call, Invalid("parameter number ", spec.parameter_number,
                                     " is already used in this computation"));
  }
  const std::string name = UniqueInstructionName(
      spec.name.empty() ? std::string(HloOpcodeString(spec.opcode))
                        : spec.name);
  auto inst = std::make_unique<HloInstruction>(spec.opcode, spec.shape, name);
  for (const XlaOp& op : spec.operands) inst->AppendOperand(op.instruction_);
  for (const auto& [id, sub] : spec.callees) {
    absl::StatusOr<HloComputation*> comp = Import(*sub);
    if (!comp.ok()) return ReportError(call, comp.status());
    inst->mutable_called_computations()->push_back(*comp);
    spec.attrs.set(id);
  }
  *inst->mutable_attrs() = std::move(spec.attrs);
  inst->set_parameter_number(spec.parameter_number);
  *inst->mutable_literal() = std::move(spec.literal);
  inst->set_parent(entry_.get());

  absl::StatusOr<Shape> shape = InferShape(*inst);
  if (!shape.ok()) return ReportError(call, shape.status());
  // Keep the stated shape (with its layout) when it is the inferred one.
  if (!spec.shape.IsValid() || !spec.shape.Compatible(*shape)) {
    *inst->mutable_shape() = *shape;
  }
  if (spec.opcode == HloOpcode::kParameter) {
    parameter_numbers_.insert(spec.parameter_number);
  }
  return XlaOp(this, entry_->AddInstruction(std::move(inst)));
}

absl::StatusOr<std::unique_ptr<HloModule>> Builder::Build() {
  return Build(XlaOp());
}

absl::StatusOr<std::unique_ptr<HloModule>> Builder::Build(XlaOp root) {
  if (!first_error_.ok()) return first_error_;
  if (built_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "builder '", name_, "': Build(): the module was already built"));
  }
  if (entry_->instructions().empty()) {
    return Invalid("builder '", name_,
                   "': Build(): the computation has no instructions");
  }
  if (root.builder() != nullptr || root.instruction() != nullptr) {
    XlaOp ops[] = {root};
    absl::Status st = CheckOperands(ops);
    if (!st.ok()) {
      return WithMessage(st, absl::StrCat("builder '", name_, "': Build(root=",
                                          Desc(root), "): ", st.message()));
    }
    entry_->set_root(root.instruction_);
  } else {
    entry_->set_root(entry_->instructions().back().get());
  }
  entry_->FinalizeParameters();
  HloComputation* entry = module_->AddComputation(std::move(entry_));
  module_->set_entry(entry);
  built_ = true;
  absl::Status verified = VerifyModule(*module_);
  if (!verified.ok()) {
    return WithMessage(verified,
                       absl::StrCat("builder '", name_,
                                    "': Build(): the module does not verify: ",
                                    verified.message()));
  }
  return std::move(module_);
}

// ----------------------------------------------------------------------------
// Helpers (builder_internal.h)

namespace builder_internal {

std::string Desc(const XlaOp& op) {
  if (!op.valid()) return "<invalid op>";
  return absl::StrCat(
      op.instruction()->shape().ToString(/*print_layout=*/false), " %",
      op.instruction()->name());
}

std::string Desc(absl::Span<const XlaOp> ops) {
  std::vector<std::string> parts;
  for (const XlaOp& op : ops) parts.push_back(Desc(op));
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

std::string Desc(const Shape& shape) {
  return shape.IsValid() ? shape.ToString(/*print_layout=*/false)
                         : std::string("<invalid shape>");
}

std::string Dims(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

std::string Pairs(absl::Span<const std::pair<int64_t, int64_t>> pairs) {
  std::vector<std::string> parts;
  for (const auto& [a, b] : pairs)
    parts.push_back(absl::StrCat("(", a, ",", b, ")"));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

std::string Groups(const std::vector<std::vector<int64_t>>& groups) {
  std::vector<std::string> parts;
  for (const auto& g : groups) parts.push_back(Dims(g));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

std::string Call(
    absl::string_view fn,
    std::initializer_list<std::pair<absl::string_view, std::string>> args) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : args) parts.push_back(absl::StrCat(k, "=", v));
  return absl::StrCat(fn, "(", absl::StrJoin(parts, ", "), ")");
}

bool Begin(CallContext* ctx, Builder* builder, absl::Span<const XlaOp> operands,
           std::string call) {
  ctx->builder = builder != nullptr ? builder : Builder::BuilderOf(operands);
  ctx->call = std::move(call);
  if (ctx->builder == nullptr) return false;
  absl::Status st = ctx->builder->CheckOperands(operands);
  if (!st.ok()) {
    ctx->builder->ReportError(ctx->call, st);
    return false;
  }
  return true;
}

InstructionSpec Spec(HloOpcode opcode, absl::Span<const XlaOp> operands,
                     Shape shape) {
  InstructionSpec spec;
  spec.opcode = opcode;
  spec.operands.assign(operands.begin(), operands.end());
  spec.shape = std::move(shape);
  return spec;
}

XlaOp InDimBroadcast(const CallContext& ctx, XlaOp operand,
                     absl::Span<const int64_t> dims,
                     absl::Span<const int64_t> dimensions) {
  if (!operand.valid()) return operand;
  InstructionSpec spec =
      Spec(HloOpcode::kBroadcast, {operand},
           Shape(operand.instruction()->shape().element_type(), dims));
  spec.attrs.dimensions.assign(dimensions.begin(), dimensions.end());
  spec.attrs.set(AttrId::kDimensions);
  return ctx.Add(std::move(spec));
}

XlaOp ReshapeTo(const CallContext& ctx, XlaOp operand,
                absl::Span<const int64_t> dims) {
  if (!operand.valid()) return operand;
  return ctx.Add(
      Spec(HloOpcode::kReshape, {operand},
           Shape(operand.instruction()->shape().element_type(), dims)));
}

XlaOp AddBroadcastSequence(const CallContext& ctx, XlaOp operand,
                           absl::Span<const int64_t> dims) {
  if (!operand.valid()) return operand;
  const Shape& s = operand.instruction()->shape();
  if (s.IsArray() && s.dimensions() == dims) return operand;
  if (!s.IsArray() ||
      (s.rank() != 0 && s.rank() != static_cast<int64_t>(dims.size()))) {
    return ctx.Fail(
        Invalid("cannot broadcast ", Desc(operand), " to ", Dims(dims)));
  }
  std::vector<int64_t> kept_dims;  // output dimension of each kept one
  std::vector<int64_t> reshaped;   // sizes after dropping degenerate dims
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (s.dimensions(i) == dims[i]) {
      kept_dims.push_back(i);
      reshaped.push_back(s.dimensions(i));
    } else if (s.dimensions(i) != 1) {
      return ctx.Fail(Invalid("cannot broadcast ", Desc(operand), " to ",
                              Dims(dims), ": dimension ", i, " has size ",
                              s.dimensions(i), ", expected ", dims[i],
                              " or 1"));
    }
  }
  XlaOp reshaped_op = operand;
  if (static_cast<int64_t>(reshaped.size()) != s.rank()) {
    reshaped_op = ReshapeTo(ctx, operand, reshaped);
  }
  return InDimBroadcast(ctx, reshaped_op, dims, kept_dims);
}

Window MakeWindow(absl::Span<const int64_t> window_dimensions,
                  absl::Span<const int64_t> window_strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  absl::Span<const int64_t> base_dilations,
                  absl::Span<const int64_t> window_dilations) {
  Window w;
  for (size_t i = 0; i < window_dimensions.size(); ++i) {
    WindowDimension d;
    d.size = window_dimensions[i];
    if (i < window_strides.size()) d.stride = window_strides[i];
    if (i < padding.size()) {
      d.padding_low = padding[i].first;
      d.padding_high = padding[i].second;
    }
    if (i < base_dilations.size()) d.base_dilation = base_dilations[i];
    if (i < window_dilations.size()) d.window_dilation = window_dilations[i];
    w.dimensions.push_back(d);
  }
  return w;
}

absl::StatusOr<std::unique_ptr<HloModule>> ScalarBinaryComputation(
    absl::string_view name, HloOpcode opcode, PrimitiveType type) {
  Builder b{std::string(name)};
  XlaOp x = Parameter(&b, 0, Shape::Scalar(type), "x");
  XlaOp y = Parameter(&b, 1, Shape::Scalar(type), "y");
  CallContext ctx;
  if (Begin(&ctx, &b, {x, y}, std::string(name))) {
    ctx.Add(Spec(opcode, {x, y}));
  }
  return b.Build();
}

}  // namespace builder_internal

using builder_internal::Begin;
using builder_internal::CallContext;
using builder_internal::Spec;

// ----------------------------------------------------------------------------
// Free helpers

std::vector<std::pair<int64_t, int64_t>> MakePadding(
    absl::Span<const int64_t> input_dimensions,
    absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides, Padding padding) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < input_dimensions.size(); ++i) {
    if (padding == Padding::kValid || i >= window_dimensions.size() ||
        i >= window_strides.size() || window_strides[i] <= 0) {
      out.emplace_back(0, 0);
      continue;
    }
    // Seed 001 ReduceWindow: SAME keeps ceil(input / stride) window
    // positions; the padding needed for that is split low/high with the
    // odd element on the high side ([10000,1000,100,10,1], window 3,
    // stride 2 -> 3 outputs, one padding element on each side).
    const int64_t in = input_dimensions[i];
    const int64_t s = window_strides[i];
    const int64_t output = (in + s - 1) / s;
    const int64_t total =
        std::max<int64_t>((output - 1) * s + window_dimensions[i] - in, 0);
    out.emplace_back(total / 2, total - total / 2);
  }
  return out;
}

namespace {
Literal Extreme(PrimitiveType type, bool max) {
  Literal lit(Shape::Scalar(type));
  const int bits = BitWidth(type);
  switch (KindOf(type)) {
    case TypeKind::kPred:
      lit.SetFromInt64(0, max ? 1 : 0);
      break;
    case TypeKind::kSigned:
      if (max) {
        lit.SetRawBits(0, (uint64_t{1} << (bits - 1)) - 1);
      } else {
        lit.SetRawBits(0, uint64_t{1} << (bits - 1));  // two's complement min
      }
      break;
    case TypeKind::kUnsigned:
      lit.SetRawBits(
          0, max ? (bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1) : 0);
      break;
    case TypeKind::kFloat: {
      const double inf = std::numeric_limits<double>::infinity();
      lit.SetFromDouble(0, max ? inf : -inf);
      if (std::isinf(lit.GetAsDouble(0))) break;
      // No infinity (the fn/fnuz formats, e8m0): the extreme finite value.
      // These formats are at most 8 bits wide, so scan their encodings.
      double best = max ? -inf : inf;
      uint64_t best_bits = 0;
      Literal probe(Shape::Scalar(type));
      for (uint64_t b = 0; b < (uint64_t{1} << bits) && bits <= 16; ++b) {
        probe.SetRawBits(0, b);
        const double v = probe.GetAsDouble(0);
        if (std::isnan(v)) continue;
        if (max ? v > best : v < best) {
          best = v;
          best_bits = b;
        }
      }
      lit.SetRawBits(0, best_bits);
      break;
    }
    default:
      break;  // complex and non-arrays have no order: zero
  }
  return lit;
}
}  // namespace

Literal MinValue(PrimitiveType type) { return Extreme(type, /*max=*/false); }
Literal MaxValue(PrimitiveType type) { return Extreme(type, /*max=*/true); }

ConvolutionDimensionNumbers CreateDefaultConvDimensionNumbers(
    int num_spatial_dims) {
  ConvolutionDimensionNumbers dn;
  dn.input_batch_dimension = 0;
  dn.input_feature_dimension = 1;
  dn.kernel_output_feature_dimension = 0;
  dn.kernel_input_feature_dimension = 1;
  dn.output_batch_dimension = 0;
  dn.output_feature_dimension = 1;
  for (int i = 0; i < num_spatial_dims; ++i) {
    dn.input_spatial_dimensions.push_back(i + 2);
    dn.kernel_spatial_dimensions.push_back(i + 2);
    dn.output_spatial_dimensions.push_back(i + 2);
  }
  return dn;
}

// ----------------------------------------------------------------------------
// Parameters and constants

XlaOp Parameter(Builder* builder, int64_t parameter_number, const Shape& shape,
                const std::string& name) {
  CallContext ctx;
  if (!Begin(&ctx, builder, {},
             Call("Parameter",
                  {{"parameter_number", absl::StrCat(parameter_number)},
                   {"shape", Desc(shape)},
                   {"name", name}}))) {
    return XlaOp();
  }
  if (parameter_number < 0) {
    return ctx.Fail(Invalid("parameter_number must be >= 0"));
  }
  if (!shape.IsValid()) return ctx.Fail(Invalid("the shape is invalid"));
  InstructionSpec spec = Spec(HloOpcode::kParameter, {}, shape);
  spec.parameter_number = parameter_number;
  spec.name = name.empty() ? absl::StrCat("p", parameter_number) : name;
  return ctx.Add(std::move(spec));
}

XlaOp ConstantLiteral(Builder* builder, const Literal& literal) {
  CallContext ctx;
  if (!Begin(&ctx, builder, {},
             Call("ConstantLiteral", {{"literal", Desc(literal.shape())}}))) {
    return XlaOp();
  }
  if (!literal.shape().IsValid()) {
    return ctx.Fail(Invalid("the literal has no shape"));
  }
  InstructionSpec spec = Spec(HloOpcode::kConstant, {}, literal.shape());
  spec.literal = literal;
  return ctx.Add(std::move(spec));
}

}  // namespace hloref
