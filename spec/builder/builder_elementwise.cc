// Builder: element-wise ops. Seed 001 "Element-wise binary arithmetic
// operations", "Element-wise comparison operations", "Element-wise unary
// functions", Clamp, Select, ConvertElementType, BitcastConvertType,
// ReducePrecision; seed 000 "Broadcasting semantics" for the implicit
// broadcasts of the binary ops.
#include <algorithm>

#include "spec/builder/builder.h"
#include "spec/builder/builder_internal.h"

namespace hloref {

using builder_internal::AddBroadcastSequence;
using builder_internal::Begin;
using builder_internal::Call;
using builder_internal::CallContext;
using builder_internal::Desc;
using builder_internal::Dims;
using builder_internal::InDimBroadcast;
using builder_internal::Invalid;
using builder_internal::Spec;

namespace {

// Seed 000: the result dimensions of a binary op between `lhs` and `rhs`
// with `broadcast_dimensions` (the "InDim" broadcast of the lower-rank
// operand, then degenerate-dimension broadcasting).
absl::StatusOr<std::vector<int64_t>> BroadcastResultDims(
    const Shape& lhs, const Shape& rhs,
    absl::Span<const int64_t> broadcast_dimensions) {
  if (!lhs.IsArray() || !rhs.IsArray()) {
    return Invalid("operands must be arrays, got ", Desc(lhs), " and ",
                   Desc(rhs));
  }
  if (lhs.rank() == rhs.rank()) {
    for (size_t i = 0; i < broadcast_dimensions.size(); ++i) {
      if (broadcast_dimensions.size() != static_cast<size_t>(lhs.rank()) ||
          broadcast_dimensions[i] != static_cast<int64_t>(i)) {
        return Invalid(
            "broadcast_dimensions must be empty or the identity when the "
            "operands have the same rank ",
            lhs.rank());
      }
    }
    std::vector<int64_t> out;
    for (int64_t i = 0; i < lhs.rank(); ++i) {
      const int64_t l = lhs.dimensions(i), r = rhs.dimensions(i);
      if (l == r || r == 1) {
        out.push_back(l);
      } else if (l == 1) {
        out.push_back(r);
      } else {
        // Seed 000: dimensions are compatible when equal or one is 1.
        return Invalid("dimension ", i, " has size ", l, " in lhs and ", r,
                       " in rhs; broadcasting needs equal sizes or a size 1 "
                       "(degenerate) dimension");
      }
    }
    return out;
  }
  const bool lhs_smaller = lhs.rank() < rhs.rank();
  const Shape& small = lhs_smaller ? lhs : rhs;
  const Shape& large = lhs_smaller ? rhs : lhs;
  if (static_cast<int64_t>(broadcast_dimensions.size()) != small.rank()) {
    if (broadcast_dimensions.empty()) {
      return Invalid(
          "operands of ranks ", lhs.rank(), " and ", rhs.rank(),
          " need broadcast_dimensions (seed 000: without specifying "
          "broadcasting, an operation between arrays of different ranks is "
          "invalid unless one is a scalar)");
    }
    return Invalid("broadcast_dimensions has ", broadcast_dimensions.size(),
                   " entries, expected ", small.rank(),
                   " (the rank of the lower-rank operand)");
  }
  std::vector<int64_t> out(large.dimensions().begin(),
                           large.dimensions().end());
  for (int64_t i = 0; i < small.rank(); ++i) {
    const int64_t d = broadcast_dimensions[i];
    if (d < 0 || d >= large.rank()) {
      return Invalid("broadcast_dimensions[", i, "] = ", d,
                     " is not a dimension of the higher-rank operand (rank ",
                     large.rank(), ")");
    }
    if (i > 0 && d <= broadcast_dimensions[i - 1]) {
      return Invalid("broadcast_dimensions must be strictly increasing");
    }
    const int64_t s = small.dimensions(i), l = large.dimensions(d);
    if (s == l || s == 1) {
      out[d] = l;
    } else if (l == 1) {
      out[d] = s;
    } else {
      return Invalid("dimension ", i, " of the lower-rank operand has size ", s,
                     " but is matched to dimension ", d,
                     " of the higher-rank operand, which has size ", l);
    }
  }
  return out;
}

// The binary op with implicit broadcasting, lowered like XlaBuilder: the
// lower-rank operand is broadcast "in dim" to the result rank keeping its
// own sizes, then each operand whose dimensions differ from the result's
// is reshaped (dropping degenerate dimensions) and broadcast.
XlaOp BinaryOp(absl::string_view fn, HloOpcode opcode, XlaOp lhs, XlaOp rhs,
               absl::Span<const int64_t> broadcast_dimensions,
               ComparisonDirection direction = ComparisonDirection::kEq,
               ComparisonType compare_type = ComparisonType::kDefault) {
  CallContext ctx;
  if (!Begin(
          &ctx, nullptr, {lhs, rhs},
          Call(fn, {{"lhs", Desc(lhs)},
                    {"rhs", Desc(rhs)},
                    {"broadcast_dimensions", Dims(broadcast_dimensions)}}))) {
    return ctx.Failed();
  }
  const Shape& ls = lhs.instruction()->shape();
  const Shape& rs = rhs.instruction()->shape();
  absl::StatusOr<std::vector<int64_t>> out =
      BroadcastResultDims(ls, rs, broadcast_dimensions);
  if (!out.ok()) return ctx.Fail(out.status());

  XlaOp l = lhs, r = rhs;
  if (ls.rank() != rs.rank() && !broadcast_dimensions.empty()) {
    const bool lhs_smaller = ls.rank() < rs.rank();
    const Shape& small = lhs_smaller ? ls : rs;
    std::vector<int64_t> to_size = *out;
    for (int64_t i = 0; i < small.rank(); ++i) {
      to_size[broadcast_dimensions[i]] = small.dimensions(i);
    }
    XlaOp b = InDimBroadcast(ctx, lhs_smaller ? lhs : rhs, to_size,
                             broadcast_dimensions);
    (lhs_smaller ? l : r) = b;
  }
  l = AddBroadcastSequence(ctx, l, *out);
  r = AddBroadcastSequence(ctx, r, *out);
  if (!l.valid() || !r.valid()) return ctx.Failed();
  InstructionSpec spec = Spec(opcode, {l, r});
  if (opcode == HloOpcode::kCompare) {
    spec.attrs.direction = direction;
    spec.attrs.set(AttrId::kDirection);
    if (compare_type != ComparisonType::kDefault) {
      spec.attrs.comparison_type = compare_type;
      spec.attrs.set(AttrId::kComparisonType);
    }
  }
  return ctx.Add(std::move(spec));
}

XlaOp UnaryOp(absl::string_view fn, HloOpcode opcode, XlaOp operand) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call(fn, {{"operand", Desc(operand)}}))) {
    return ctx.Failed();
  }
  return ctx.Add(Spec(opcode, {operand}));
}

// Clamp and Select: scalar array operands are broadcast to the shape of
// the non-scalar array operand ("a restricted form of broadcasting").
XlaOp TernaryOp(
    absl::string_view fn, HloOpcode opcode,
    std::initializer_list<std::pair<absl::string_view, XlaOp>> args) {
  std::vector<XlaOp> ops;
  for (const auto& [name, op] : args) ops.push_back(op);
  CallContext ctx;
  std::string call = absl::StrCat(fn, "(");
  bool first = true;
  for (const auto& [name, op] : args) {
    absl::StrAppend(&call, first ? "" : ", ", name, "=", Desc(op));
    first = false;
  }
  absl::StrAppend(&call, ")");
  if (!Begin(&ctx, nullptr, ops, call)) return ctx.Failed();
  const Shape* non_scalar = nullptr;
  for (const XlaOp& op : ops) {
    const Shape& s = op.instruction()->shape();
    if (s.IsArray() && s.rank() > 0) {
      if (non_scalar == nullptr) {
        non_scalar = &s;
      } else if (!non_scalar->SameDimensions(
                     Shape(non_scalar->element_type(), s.dimensions()))) {
        return ctx.Fail(
            Invalid("the non-scalar operands must have the same "
                    "dimensions, got ",
                    Desc(*non_scalar), " and ", Desc(s)));
      }
    }
  }
  if (non_scalar != nullptr) {
    std::vector<int64_t> dims(non_scalar->dimensions().begin(),
                              non_scalar->dimensions().end());
    for (XlaOp& op : ops) {
      const Shape& s = op.instruction()->shape();
      if (s.IsArray() && s.rank() == 0) op = InDimBroadcast(ctx, op, dims, {});
      if (!op.valid()) return ctx.Failed();
    }
  }
  return ctx.Add(Spec(opcode, ops));
}

}  // namespace

#define HLOREF_BINARY(Fn, opcode)                                            \
  XlaOp Fn(XlaOp lhs, XlaOp rhs,                                             \
           absl::Span<const int64_t> broadcast_dimensions) {                 \
    return BinaryOp(#Fn, HloOpcode::opcode, lhs, rhs, broadcast_dimensions); \
  }
HLOREF_BINARY(Add, kAdd)
HLOREF_BINARY(Sub, kSubtract)
HLOREF_BINARY(Mul, kMultiply)
HLOREF_BINARY(Div, kDivide)
HLOREF_BINARY(Rem, kRemainder)
HLOREF_BINARY(Max, kMaximum)
HLOREF_BINARY(Min, kMinimum)
HLOREF_BINARY(Pow, kPower)
HLOREF_BINARY(And, kAnd)
HLOREF_BINARY(Or, kOr)
HLOREF_BINARY(Xor, kXor)
HLOREF_BINARY(ShiftLeft, kShiftLeft)
HLOREF_BINARY(ShiftRightArithmetic, kShiftRightArithmetic)
HLOREF_BINARY(ShiftRightLogical, kShiftRightLogical)
HLOREF_BINARY(Atan2, kAtan2)
HLOREF_BINARY(Complex, kComplex)
#undef HLOREF_BINARY

#define HLOREF_COMPARE(Fn, dir, type)                                         \
  XlaOp Fn(XlaOp lhs, XlaOp rhs,                                              \
           absl::Span<const int64_t> broadcast_dimensions) {                  \
    return BinaryOp(#Fn, HloOpcode::kCompare, lhs, rhs, broadcast_dimensions, \
                    ComparisonDirection::dir, ComparisonType::type);          \
  }
HLOREF_COMPARE(Eq, kEq, kDefault)
HLOREF_COMPARE(Ne, kNe, kDefault)
HLOREF_COMPARE(Ge, kGe, kDefault)
HLOREF_COMPARE(Gt, kGt, kDefault)
HLOREF_COMPARE(Le, kLe, kDefault)
HLOREF_COMPARE(Lt, kLt, kDefault)
HLOREF_COMPARE(EqTotalOrder, kEq, kTotalOrder)
HLOREF_COMPARE(NeTotalOrder, kNe, kTotalOrder)
HLOREF_COMPARE(GeTotalOrder, kGe, kTotalOrder)
HLOREF_COMPARE(GtTotalOrder, kGt, kTotalOrder)
HLOREF_COMPARE(LeTotalOrder, kLe, kTotalOrder)
HLOREF_COMPARE(LtTotalOrder, kLt, kTotalOrder)
#undef HLOREF_COMPARE

XlaOp Compare(XlaOp lhs, XlaOp rhs,
              absl::Span<const int64_t> broadcast_dimensions,
              ComparisonDirection direction, ComparisonType compare_type) {
  return BinaryOp("Compare", HloOpcode::kCompare, lhs, rhs,
                  broadcast_dimensions, direction, compare_type);
}

XlaOp Compare(XlaOp lhs, XlaOp rhs, ComparisonDirection direction) {
  return Compare(lhs, rhs, {}, direction);
}

#define HLOREF_UNARY(Fn, opcode) \
  XlaOp Fn(XlaOp operand) { return UnaryOp(#Fn, HloOpcode::opcode, operand); }
HLOREF_UNARY(Abs, kAbs)
HLOREF_UNARY(Cbrt, kCbrt)
HLOREF_UNARY(Ceil, kCeil)
HLOREF_UNARY(Clz, kClz)
HLOREF_UNARY(Cos, kCos)
HLOREF_UNARY(Erf, kErf)
HLOREF_UNARY(Exp, kExp)
HLOREF_UNARY(Expm1, kExpm1)
HLOREF_UNARY(Floor, kFloor)
HLOREF_UNARY(Imag, kImag)
HLOREF_UNARY(IsFinite, kIsFinite)
HLOREF_UNARY(Log, kLog)
HLOREF_UNARY(Log1p, kLog1p)
HLOREF_UNARY(Logistic, kLogistic)
HLOREF_UNARY(Neg, kNegate)
HLOREF_UNARY(Not, kNot)
HLOREF_UNARY(PopulationCount, kPopulationCount)
HLOREF_UNARY(Real, kReal)
HLOREF_UNARY(Round, kRoundNearestAfz)
HLOREF_UNARY(RoundNearestEven, kRoundNearestEven)
HLOREF_UNARY(Rsqrt, kRsqrt)
HLOREF_UNARY(Sign, kSign)
HLOREF_UNARY(Sin, kSin)
HLOREF_UNARY(Sqrt, kSqrt)
HLOREF_UNARY(Tan, kTan)
HLOREF_UNARY(Tanh, kTanh)
XlaOp OptimizationBarrier(XlaOp operand) {
  return UnaryOp("OptimizationBarrier", HloOpcode::kOptimizationBarrier,
                 operand);
}
#undef HLOREF_UNARY

XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max) {
  return TernaryOp("Clamp", HloOpcode::kClamp,
                   {{"min", min}, {"operand", operand}, {"max", max}});
}

XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false) {
  return TernaryOp(
      "Select", HloOpcode::kSelect,
      {{"pred", pred}, {"on_true", on_true}, {"on_false", on_false}});
}

XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_element_type) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("ConvertElementType",
                  {{"operand", Desc(operand)},
                   {"new_element_type",
                    std::string(PrimitiveTypeName(new_element_type))}}))) {
    return ctx.Failed();
  }
  const Shape& s = operand.instruction()->shape();
  if (!s.IsArray() || !IsArrayType(new_element_type)) {
    return ctx.Fail(
        Invalid("the operand and the new element type must be "
                "arrays (not tuples or tokens)"));
  }
  return ctx.Add(Spec(HloOpcode::kConvert, {operand},
                      Shape(new_element_type, s.dimensions())));
}

XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_element_type) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("BitcastConvertType",
                  {{"operand", Desc(operand)},
                   {"new_element_type",
                    std::string(PrimitiveTypeName(new_element_type))}}))) {
    return ctx.Failed();
  }
  const Shape& s = operand.instruction()->shape();
  if (!s.IsArray() || !IsArrayType(new_element_type)) {
    return ctx.Fail(
        Invalid("the operand and the new element type must be "
                "arrays (not tuples or tokens)"));
  }
  const int64_t b = BitWidth(s.element_type());
  const int64_t b_new = BitWidth(new_element_type);
  std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
  if (b > b_new) {
    // Seed 001: "the output shape gets a new minor-most dimension of size
    // B/B'".
    if (b % b_new != 0) {
      return ctx.Fail(Invalid("bit widths ", b, " and ", b_new,
                              " are not multiples of each other"));
    }
    dims.push_back(b / b_new);
  } else if (b_new > b) {
    // "the last logical dimension of the input shape [must] be equal to
    // B'/B, and this dimension is dropped".
    if (b_new % b != 0 || dims.empty() || dims.back() != b_new / b) {
      return ctx.Fail(Invalid("converting ", b, "-bit to ", b_new,
                              "-bit elements needs a last dimension of size ",
                              b_new / std::max<int64_t>(b, 1), ", got ",
                              Desc(s)));
    }
    dims.pop_back();
  }
  return ctx.Add(Spec(HloOpcode::kBitcastConvert, {operand},
                      Shape(new_element_type, dims)));
}

XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits) {
  CallContext ctx;
  if (!Begin(&ctx, nullptr, {operand},
             Call("ReducePrecision",
                  {{"operand", Desc(operand)},
                   {"exponent_bits", absl::StrCat(exponent_bits)},
                   {"mantissa_bits", absl::StrCat(mantissa_bits)}}))) {
    return ctx.Failed();
  }
  InstructionSpec spec = Spec(HloOpcode::kReducePrecision, {operand});
  spec.attrs.exponent_bits = exponent_bits;
  spec.attrs.mantissa_bits = mantissa_bits;
  spec.attrs.set(AttrId::kExponentBits);
  spec.attrs.set(AttrId::kMantissaBits);
  return ctx.Add(std::move(spec));
}

}  // namespace hloref
