// Verifier: dot, ragged-dot, scaled-dot (seed 001 "Dot", "DotGeneral";
// ragged-dot and scaled-dot from docs/hlo-text-format.md 6.5).
//
// The result element type is the one the instruction's shape states (XLA's
// preferred_element_type): operands may differ in type as long as both are
// integers, or both floating point, or both complex (mixed-precision dots
// such as s8 x s8 -> s32 or bf16 x f8e4m3fn -> f32 appear in real dumps).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

TypeKind NumberClass(PrimitiveType t) {
  TypeKind k = KindOf(t);
  return k == TypeKind::kUnsigned ? TypeKind::kSigned : k;
}

// Checks dimension numbers of lhs x rhs (rules <op>.C1..C8) and returns
// the dot result dimensions: batch, lhs free, rhs free (rhs dimensions in
// `rhs_skip` are left out too).
absl::StatusOr<Shape> DotGeneralShape(const HloInstruction& inst,
                                      const Shape& lhs, const Shape& rhs,
                                      absl::Span<const int64_t> rhs_skip) {
  const std::string op(HloOpcodeString(inst.opcode()));
  const DotDimensionNumbers& dn = inst.attrs().dot_dimension_numbers;
  // <op>.C2: as many lhs as rhs batch dimensions, and contracting ones.
  if (dn.lhs_batch_dimensions.size() != dn.rhs_batch_dimensions.size()) {
    return Fail(inst, op + ".C2", "lhs has ", dn.lhs_batch_dimensions.size(),
                " batch dimensions, rhs has ", dn.rhs_batch_dimensions.size());
  }
  if (dn.lhs_contracting_dimensions.size() !=
      dn.rhs_contracting_dimensions.size()) {
    return Fail(inst, op + ".C2", "lhs has ",
                dn.lhs_contracting_dimensions.size(),
                " contracting dimensions, rhs has ",
                dn.rhs_contracting_dimensions.size());
  }
  // <op>.C4: dimension numbers in range and each used once per side
  // (batch and contracting dimensions do not overlap).
  for (int side = 0; side < 2; ++side) {
    const Shape& s = side == 0 ? lhs : rhs;
    const auto& batch =
        side == 0 ? dn.lhs_batch_dimensions : dn.rhs_batch_dimensions;
    const auto& contracting = side == 0 ? dn.lhs_contracting_dimensions
                                        : dn.rhs_contracting_dimensions;
    std::vector<int64_t> all(batch.begin(), batch.end());
    all.insert(all.end(), contracting.begin(), contracting.end());
    HLOREF_RETURN_IF_ERROR(
        CheckDimList(inst, op + ".C4",
                     side == 0 ? "lhs batch and contracting dimensions"
                               : "rhs batch and contracting dimensions",
                     all, s.rank()));
  }
  // <op>.C3: contracting dimensions have equal sizes (seed DotGeneral).
  for (size_t i = 0; i < dn.lhs_contracting_dimensions.size(); ++i) {
    int64_t l = dn.lhs_contracting_dimensions[i];
    int64_t r = dn.rhs_contracting_dimensions[i];
    if (lhs.dimensions(l) != rhs.dimensions(r)) {
      return Fail(inst, op + ".C3", "lhs contracting dimension ", l,
                  " has size ", lhs.dimensions(l),
                  ", rhs contracting dimension ", r, " has size ",
                  rhs.dimensions(r));
    }
  }
  // <op>.C5: batch dimensions have equal sizes.
  for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) {
    int64_t l = dn.lhs_batch_dimensions[i];
    int64_t r = dn.rhs_batch_dimensions[i];
    if (lhs.dimensions(l) != rhs.dimensions(r)) {
      return Fail(inst, op + ".C5", "lhs batch dimension ", l, " has size ",
                  lhs.dimensions(l), ", rhs batch dimension ", r, " has size ",
                  rhs.dimensions(r));
    }
  }
  // Seed: "the resulting dimension number starts with the batch dimension,
  // then the lhs non-contracting/non-batch dimension, and finally the rhs
  // non-contracting/non-batch dimension".
  Shape result = Shape::Scalar(lhs.element_type());
  for (int64_t d : dn.lhs_batch_dimensions) {
    result.add_dimension(lhs.dimensions(d), lhs.is_dynamic_dimension(d));
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Contains(dn.lhs_batch_dimensions, d) &&
        !Contains(dn.lhs_contracting_dimensions, d)) {
      result.add_dimension(lhs.dimensions(d), lhs.is_dynamic_dimension(d));
    }
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Contains(dn.rhs_batch_dimensions, d) &&
        !Contains(dn.rhs_contracting_dimensions, d) && !Contains(rhs_skip, d)) {
      result.add_dimension(rhs.dimensions(d), rhs.is_dynamic_dimension(d));
    }
  }
  return result;
}

// <op>.C1 arrays; <op>.C6 element types of one number class, not pred
// mixed with numbers (dot: XLA's mixed classes are read with a warning);
// <op>.C7 a complex result exactly with a complex operand;
// <op>.C8 operand_precision has 0 or 2 entries.
absl::Status CheckDotTypes(const HloInstruction& inst, int64_t lhs_i,
                           int64_t rhs_i) {
  const std::string op(HloOpcodeString(inst.opcode()));
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, lhs_i, op + ".C1"));
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, rhs_i, op + ".C1"));
  const PrimitiveType l = inst.operand(lhs_i)->shape().element_type();
  const PrimitiveType r = inst.operand(rhs_i)->shape().element_type();
  if (!inst.shape().IsArray()) {
    return Fail(inst, op + ".C7", "result must be an array, got ",
                ShapeStr(inst.shape()));
  }
  const PrimitiveType out = inst.shape().element_type();
  if (l != r && NumberClass(l) != NumberClass(r)) {
    if (inst.opcode() != HloOpcode::kDot) {
      return Fail(inst, op + ".C6", "lhs element type ", PrimitiveTypeName(l),
                  " and rhs element type ", PrimitiveTypeName(r),
                  " must both be integers, both floating point or both "
                  "complex");
    }
    // Seed 001 DotGeneral types both operands "array of type T"; XLA's
    // shape inference (given the result type) and XLA:CPU take operands of
    // different classes (bf16 x s8, s32 x pred, c64 x f32: checked with
    // jaxlib 0.10.2), and jax emits them (mixed-dtype dot_general). Read
    // as XLA does, with a warning; the values are each operand's, exactly
    // (dot.h).
    Warn(inst, op + ".C6",
         absl::StrCat("lhs element type ", PrimitiveTypeName(l),
                      " and rhs element type ", PrimitiveTypeName(r),
                      " differ in class: seed 001 DotGeneral types both "
                      "operands \"array of type T\"; read as XLA accepts it"));
  }
  if ((IsComplex(l) || IsComplex(r)) != IsComplex(out)) {
    return Fail(inst, op + ".C7", "result element type ",
                PrimitiveTypeName(out), " does not fit operand types ",
                PrimitiveTypeName(l), " and ", PrimitiveTypeName(r),
                " (a complex result exactly with complex operands)");
  }
  const auto& precision = inst.attrs().operand_precision;
  if (!precision.empty() && precision.size() != 2) {
    return Fail(inst, op + ".C8", "operand_precision has ", precision.size(),
                " entries, expected 2 (lhs, rhs)");
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferDotOp(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(CheckDotTypes(inst, 0, 1));
  HLOREF_ASSIGN_OR_RETURN(Shape result,
                          DotGeneralShape(inst, inst.operand(0)->shape(),
                                          inst.operand(1)->shape(), {}));
  result.set_element_type(inst.shape().element_type());
  return result;
}

// ragged-dot(lhs, rhs, group_sizes): one lhs ragged dimension. When it is
// a non-contracting dimension, rhs has one group dimension (left out of the
// result); when it is a contracting dimension, the result gains a leading
// group dimension of size group_sizes' last dimension; when it is a batch
// dimension, the result is the plain dot.
absl::StatusOr<Shape> InferRaggedDot(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(CheckDotTypes(inst, 0, 1));
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 2, "ragged-dot.C1"));
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  const Shape& group_sizes = inst.operand(2)->shape();
  const auto& ragged = inst.attrs().lhs_ragged_dims;
  const auto& group = inst.attrs().rhs_group_dims;
  const DotDimensionNumbers& dn = inst.attrs().dot_dimension_numbers;
  // ragged-dot.C9: exactly one lhs ragged dimension, at most one rhs group
  // dimension, group_sizes integers.
  if (ragged.size() != 1 || ragged[0] < 0 || ragged[0] >= lhs.rank() ||
      group.size() > 1 ||
      (group.size() == 1 && (group[0] < 0 || group[0] >= rhs.rank())) ||
      !IsInteger(group_sizes.element_type()) || group_sizes.rank() < 1) {
    return Fail(inst, "ragged-dot.C9", "lhs_ragged_dims ", DimsStr(ragged),
                ", rhs_group_dims ", DimsStr(group), ", group_sizes ",
                ShapeStr(group_sizes),
                ": expected one lhs ragged dimension, at most one rhs group "
                "dimension and integer group sizes");
  }
  const bool contracting = Contains(dn.lhs_contracting_dimensions, ragged[0]);
  const bool batch = Contains(dn.lhs_batch_dimensions, ragged[0]);
  // ragged-dot.C10: a ragged non-contracting dimension needs an rhs group
  // dimension, the other modes none.
  if ((!contracting && !batch) != (group.size() == 1)) {
    return Fail(inst, "ragged-dot.C10", "lhs ragged dimension ", ragged[0],
                (!contracting && !batch)
                    ? " is a free dimension and needs one rhs_group_dims entry"
                    : " is a batch or contracting dimension and allows no "
                      "rhs_group_dims");
  }
  // Dimension numbers first (<op>.C2-C5), so that C11 reads valid ones.
  HLOREF_ASSIGN_OR_RETURN(Shape result, DotGeneralShape(inst, lhs, rhs, group));
  // ragged-dot.C11: group_sizes is [g] or [p..., g], p... the sizes of the
  // lhs batch dimensions, then (ragged contracting) the lhs contracting
  // dimensions listed before the ragged one, or (ragged free) the lhs free
  // dimensions before it; for a ragged batch dimension only the batch
  // dimensions listed before it (StableHLO/CHLO checkRaggedDotConstraints;
  // JAX ragged_dot_general's [b..., x..., g]).
  {
    std::vector<int64_t> prefix;
    if (batch) {
      for (int64_t d : dn.lhs_batch_dimensions) {
        if (d == ragged[0]) break;
        prefix.push_back(d);
      }
    } else {
      prefix = dn.lhs_batch_dimensions;
      if (contracting) {
        for (int64_t d : dn.lhs_contracting_dimensions) {
          if (d == ragged[0]) break;
          prefix.push_back(d);
        }
      } else {
        for (int64_t d = 0; d < ragged[0]; ++d) {
          if (!Contains(dn.lhs_batch_dimensions, d) &&
              !Contains(dn.lhs_contracting_dimensions, d)) {
            prefix.push_back(d);
          }
        }
      }
    }
    bool ok = group_sizes.rank() == 1 ||
              group_sizes.rank() == static_cast<int64_t>(prefix.size()) + 1;
    for (size_t j = 0; ok && group_sizes.rank() > 1 && j < prefix.size(); ++j) {
      ok = prefix[j] >= 0 && prefix[j] < lhs.rank() &&
           group_sizes.dimensions(static_cast<int64_t>(j)) ==
               lhs.dimensions(prefix[j]);
    }
    if (!ok) {
      std::vector<int64_t> expected;
      for (int64_t d : prefix) {
        expected.push_back(d >= 0 && d < lhs.rank() ? lhs.dimensions(d) : -1);
      }
      expected.push_back(group_sizes.dimensions(group_sizes.rank() - 1));
      return Fail(inst, "ragged-dot.C11", "group_sizes ", ShapeStr(group_sizes),
                  " must have shape [g] or ", DimsStr(expected),
                  " (lhs dimensions before the ragged one)");
    }
  }
  // ragged-dot.C12: the rhs group dimension is neither a batch nor a
  // contracting dimension and has one entry per group (CHLO
  // checkRaggedDotConstraints).
  if (group.size() == 1) {
    const int64_t num_groups = group_sizes.dimensions(group_sizes.rank() - 1);
    if (Contains(dn.rhs_batch_dimensions, group[0]) ||
        Contains(dn.rhs_contracting_dimensions, group[0]) ||
        rhs.dimensions(group[0]) != num_groups) {
      return Fail(inst, "ragged-dot.C12", "rhs group dimension ", group[0],
                  " (size ", rhs.dimensions(group[0]),
                  ") must be neither batch nor contracting and have size ",
                  num_groups, " (the number of groups)");
    }
  }
  if (contracting) {
    Shape with_group = Shape::Scalar(result.element_type());
    with_group.add_dimension(group_sizes.dimensions(group_sizes.rank() - 1));
    for (int64_t d : result.dimensions()) with_group.add_dimension(d);
    result = with_group;
  }
  result.set_element_type(inst.shape().element_type());
  return result;
}

// scaled-dot(lhs, rhs, lhs_scale, rhs_scale) (XLA's operand order: its
// parser, printer and tests; docs/hlo-text-format.md 6.5 as corrected): a
// dot of lhs and rhs; each scale has its operand's rank and each operand
// dimension is a multiple of the scale's (block scaling; XLA
// ScaledDotRewriter CheckOperandAndScaleShapes).
absl::StatusOr<Shape> InferScaledDot(const HloInstruction& inst) {
  HLOREF_RETURN_IF_ERROR(CheckDotTypes(inst, 0, 1));
  for (int i : {2, 3}) {
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, i, "scaled-dot.C1"));
  }
  // scaled-dot.C10: operands, scales and result are real floating point:
  // the op is the block-scaled (MX, NVFP4) dot; XLA's decomposition
  // (ScaledDotRewriter) and its backends (Triton dot_scaled, cuDNN,
  // hipBLASLt) take floating-point operands and scales only.
  for (int i = 0; i < 4; ++i) {
    const PrimitiveType t = inst.operand(i)->shape().element_type();
    if (!IsFloat(t)) {
      return Fail(inst, "scaled-dot.C10", OperandName(inst, i),
                  " has element type ", PrimitiveTypeName(t),
                  ": operands and scales must be floating point");
    }
  }
  if (!IsFloat(inst.shape().element_type())) {
    return Fail(inst, "scaled-dot.C10", "result element type ",
                PrimitiveTypeName(inst.shape().element_type()),
                " must be floating point");
  }
  for (int i : {0, 1}) {
    const Shape& x = inst.operand(i)->shape();
    const Shape& scale = inst.operand(i + 2)->shape();
    // scaled-dot.C9: block scales fit their operand.
    bool ok = scale.rank() == x.rank();
    for (int64_t d = 0; ok && d < x.rank(); ++d) {
      ok = scale.dimensions(d) > 0 ? x.dimensions(d) % scale.dimensions(d) == 0
                                   : x.dimensions(d) == 0;
    }
    if (!ok) {
      return Fail(inst, "scaled-dot.C9", OperandName(inst, i + 2), " ",
                  ShapeStr(scale), " does not block-scale ", ShapeStr(x),
                  ": expected the same rank and dimensions dividing it");
    }
  }
  HLOREF_ASSIGN_OR_RETURN(Shape result,
                          DotGeneralShape(inst, inst.operand(0)->shape(),
                                          inst.operand(1)->shape(), {}));
  result.set_element_type(inst.shape().element_type());
  return result;
}

}  // namespace

absl::StatusOr<Shape> InferDot(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kDot:
      return InferDotOp(inst);
    case HloOpcode::kRaggedDot:
      return InferRaggedDot(inst);
    case HloOpcode::kScaledDot:
      return InferScaledDot(inst);
    default:
      return WrongFamily(inst, "dot");
  }
}

}  // namespace hloref::verifier_internal
