// Verifier: reduce, reduce-window, select-and-scatter, map, scan (seed 001
// "Reduce", "ReduceWindow", "SelectAndScatter", "Map"; scan from
// docs/hlo-text-format.md 6.6).
#include "spec/verifier/verifier_internal.h"

namespace hloref::verifier_internal {
namespace {

// Variadic reduce/reduce-window operands: N inputs then N scalar inits.
// <op>.C1 even operand count; <op>.C2 inputs arrays of equal dimensions;
// <op>.C3 inits scalars of the input's type. Returns the element types.
absl::StatusOr<std::vector<PrimitiveType>> CheckInputsAndInits(
    const HloInstruction& inst) {
  const std::string op(HloOpcodeString(inst.opcode()));
  const int64_t count = inst.operand_count();
  if (count % 2 != 0) {
    return Fail(inst, op + ".C1", "has ", count,
                " operands, expected N inputs followed by N init values");
  }
  const int64_t n = count / 2;
  std::vector<PrimitiveType> types;
  for (int64_t i = 0; i < n; ++i) {
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, i, op + ".C2"));
    const Shape& s = inst.operand(i)->shape();
    if (!SameDims(s, inst.operand(0)->shape())) {
      return Fail(inst, op + ".C2", OperandName(inst, i), " has dimensions ",
                  DimsStr(s.dimensions()), ", input 0 has ",
                  DimsStr(inst.operand(0)->shape().dimensions()),
                  "; all inputs must have the same dimensions");
    }
    const Shape& init = inst.operand(n + i)->shape();
    if (!IsScalarArray(init) || init.element_type() != s.element_type()) {
      // XLA's HloVerifier refuses another precision too ("Seen floating
      // point types of different precisions", or the to_apply type check).
      return Fail(inst, op + ".C3", "init value ", OperandName(inst, n + i),
                  " is ", ShapeStr(init), ", expected ",
                  PrimitiveTypeName(s.element_type()), "[]",
                  IsFloat(init.element_type()) && IsFloat(s.element_type())
                      ? " (XLA's HloVerifier refuses mixed floating-point "
                        "precision in "
                      : "",
                  IsFloat(init.element_type()) && IsFloat(s.element_type())
                      ? op + " as well)"
                      : "");
    }
    types.push_back(s.element_type());
  }
  return types;
}

// reduce and reduce-window keep one type where the reducer differs only in
// floating-point precision: XLA's shape inference would accept it, but
// XLA's HloVerifier (XLA:CPU's options, allow_mixed_precision=false)
// refuses it ("Shape mismatch between to_apply computation parameter and
// operand"); the message says so.
absl::Status RefuseAsXla(const HloInstruction& inst, absl::Status status,
                         absl::Span<const PrimitiveType> types) {
  if (status.ok() || !IsPrecisionChangeOnly(inst.to_apply(), types)) {
    return status;
  }
  absl::Status out(
      status.code(),
      absl::StrCat(status.message(),
                   " (a reducer in another floating-point precision is "
                   "refused, as XLA's HloVerifier refuses it: its to_apply "
                   "parameters must have the operands' element types)"));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
    out.SetPayload(url, payload);
  });
  return out;
}

Shape Collate(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return shapes[0];
  return Shape::Tuple(std::move(shapes));
}

absl::StatusOr<Shape> InferReduceOp(const HloInstruction& inst) {
  HLOREF_ASSIGN_OR_RETURN(std::vector<PrimitiveType> types,
                          CheckInputsAndInits(inst));
  const Shape& input = inst.operand(0)->shape();
  // reduce.C4: dimensions distinct and in range ("unordered array of
  // dimensions to reduce").
  const auto& dims = inst.attrs().dimensions;
  HLOREF_RETURN_IF_ERROR(
      CheckDimList(inst, "reduce.C4", "dimensions", dims, input.rank()));
  // reduce.C5: computation of type T_0..T_{N-1}, T_0..T_{N-1} ->
  // Collate(T_0..T_{N-1}).
  HLOREF_RETURN_IF_ERROR(RefuseAsXla(
      inst, CheckReducer(inst, "reduce.C5", "to_apply", inst.to_apply(), types),
      types));
  std::vector<Shape> results;
  for (PrimitiveType t : types) {
    Shape r = Shape::Scalar(t);
    for (int64_t d = 0; d < input.rank(); ++d) {
      if (!Contains(dims, d)) {
        r.add_dimension(input.dimensions(d), input.is_dynamic_dimension(d));
      }
    }
    results.push_back(r);
  }
  return Collate(std::move(results));
}

absl::StatusOr<Shape> InferReduceWindow(const HloInstruction& inst) {
  HLOREF_ASSIGN_OR_RETURN(std::vector<PrimitiveType> types,
                          CheckInputsAndInits(inst));
  const Shape& input = inst.operand(0)->shape();
  // reduce-window.C4: one window entry per input dimension, positive sizes,
  // strides and dilations.
  HLOREF_ASSIGN_OR_RETURN(
      std::vector<int64_t> dims,
      WindowOutputDims(inst, "reduce-window.C4", input.dimensions(),
                       inst.attrs().window));
  // reduce-window.C5: the reducer's type, as for reduce.
  HLOREF_RETURN_IF_ERROR(
      RefuseAsXla(inst,
                  CheckReducer(inst, "reduce-window.C5", "to_apply",
                               inst.to_apply(), types),
                  types));
  std::vector<Shape> results;
  for (PrimitiveType t : types) results.push_back(MakeShape(t, dims));
  return Collate(std::move(results));
}

absl::StatusOr<Shape> InferSelectAndScatter(const HloInstruction& inst) {
  // select-and-scatter.C1: operand and source arrays, init a scalar of T.
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 0, "select-and-scatter.C1"));
  HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, 1, "select-and-scatter.C1"));
  const Shape& operand = inst.operand(0)->shape();
  const Shape& source = inst.operand(1)->shape();
  const Shape& init = inst.operand(2)->shape();
  const PrimitiveType t = operand.element_type();
  if (source.element_type() != t || !IsScalarArray(init) ||
      init.element_type() != t) {
    return Fail(inst, "select-and-scatter.C1", "source ", ShapeStr(source),
                " and init value ", ShapeStr(init), " must have operand type ",
                PrimitiveTypeName(t), " (init a scalar)");
  }
  // select-and-scatter.C2: the window fits the operand's rank.
  HLOREF_ASSIGN_OR_RETURN(
      std::vector<int64_t> windows,
      WindowOutputDims(inst, "select-and-scatter.C2", operand.dimensions(),
                       inst.attrs().window));
  // select-and-scatter.C3: "the source array must have the same shape as
  // the result of applying a ReduceWindow operation on the operand".
  if (!SameDims(source, MakeShape(t, windows))) {
    return Fail(inst, "select-and-scatter.C3", "source has dimensions ",
                DimsStr(source.dimensions()),
                ", the windows over the operand give ", DimsStr(windows));
  }
  // select-and-scatter.C4: select is T, T -> PRED. XLA's shape inference
  // compares select's parameters with T ignoring floating-point precision:
  // read as XLA reads it, with a warning (impl.select-and-scatter.2).
  const Shape scalar = Shape::Scalar(t);
  absl::Status select_exact =
      CheckSignature(inst, "select-and-scatter.C4", "select", inst.select(),
                     {scalar, scalar}, Shape::Scalar(PrimitiveType::kPred));
  if (!select_exact.ok()) {
    const HloComputation* sel = inst.select();
    std::vector<Shape> ps;
    if (sel != nullptr) ps = ParameterShapes(*sel);
    const bool precision_only =
        sel != nullptr && ps.size() == 2 && IsScalarArray(ps[0]) &&
        IsScalarArray(ps[1]) &&
        SameTypeIgnoringFpPrecision(t, ps[0].element_type()) &&
        SameTypeIgnoringFpPrecision(t, ps[1].element_type()) &&
        SameShape(ResultShape(*sel), Shape::Scalar(PrimitiveType::kPred));
    if (!precision_only) return select_exact;
    Warn(inst, "select-and-scatter.C4",
         absl::StrCat("select computation %", sel->name(), " takes (",
                      ShapeStr(ps[0]), ", ", ShapeStr(ps[1]), ") over ",
                      PrimitiveTypeName(t),
                      " values: seed 001 gives one type, XLA's shape "
                      "inference ignores floating-point precision here; the "
                      "values are converted to its types "
                      "(impl.select-and-scatter.2)"));
  }
  // select-and-scatter.C5: scatter is T, T -> T; another floating-point
  // precision as for scatter.C13 (impl.select-and-scatter.2).
  HLOREF_RETURN_IF_ERROR(CheckReducerAsXla(inst, "select-and-scatter.C5",
                                           "scatter", inst.scatter(), {t},
                                           "impl.select-and-scatter.2"));
  return WithElementType(operand, t);
}

absl::StatusOr<Shape> InferMap(const HloInstruction& inst) {
  const Shape& first = inst.operand(0)->shape();
  std::vector<Shape> params;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    // map.C1: arrays with the same dimensions.
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, i, "map.C1"));
    const Shape& s = inst.operand(i)->shape();
    if (!SameDims(s, first)) {
      return Fail(inst, "map.C1", OperandName(inst, i), " has dimensions ",
                  DimsStr(s.dimensions()), ", operand 0 has ",
                  DimsStr(first.dimensions()));
    }
    params.push_back(Shape::Scalar(s.element_type()));
  }
  // map.C2: dimensions, when given, are 0..rank-1 in order (XLA maps over
  // all dimensions only).
  if (inst.attrs().has(AttrId::kDimensions)) {
    const auto& dims = inst.attrs().dimensions;
    bool ok = static_cast<int64_t>(dims.size()) == first.rank();
    for (size_t i = 0; ok && i < dims.size(); ++i) {
      ok = dims[i] == static_cast<int64_t>(i);
    }
    if (!ok) {
      return Fail(inst, "map.C2", "dimensions ", DimsStr(dims),
                  " must list every operand dimension in order");
    }
  }
  // map.C3: "N inputs of scalar type T and a single output with type S".
  const HloComputation* f = inst.to_apply();
  if (f == nullptr) return Fail(inst, "map.C3", "to_apply is missing");
  const Shape& out = ResultShape(*f);
  if (!IsScalarArray(out)) {
    return Fail(inst, "map.C3", "to_apply %", f->name(), " returns ",
                ShapeStr(out), ", expected a scalar");
  }
  HLOREF_RETURN_IF_ERROR(
      CheckSignature(inst, "map.C3", "to_apply", f, params, out));
  return WithElementType(first, out.element_type());
}

// scan (text format 6.6, since 2026-01). The text format gives only the
// syntax; the rules below follow XLA's HloScanInstruction as its
// ScanExpander (openxla/xla xla/service/scan_expander.cc) lowers it to a
// while loop, which is the op's executable definition:
//  - operands: the scanned inputs x_0..x_{I-1}, then num_carries initial
//    carries c_0..c_{C-1} (HloScanInstruction::inputs()/inits());
//  - to_apply is called once per position along the scan dimension with
//    (the inputs' slices at that position with the scan dimension removed,
//    then the carries) and returns (the per-step outputs, then the new
//    carries): a tuple, or the lone value when there is one in total;
//  - the result is (output arrays y_0..y_{O-1}, final carries), a tuple, or
//    the lone array when O + C == 1; output y_k holds step outputs stacked
//    along the scan dimension, at the same dimension number as the inputs;
//  - the scan length is the inputs' size along the scan dimension.
absl::StatusOr<Shape> InferScan(const HloInstruction& inst) {
  const auto& dims = inst.attrs().dimensions;
  const int64_t carries = inst.attrs().num_carries;
  // scan.C1: 0 <= num_carries < operand count.
  if (carries < 0 || carries >= inst.operand_count()) {
    return Fail(inst, "scan.C1", "num_carries is ", carries, " with ",
                inst.operand_count(), " operands");
  }
  const int64_t inputs = inst.operand_count() - carries;
  // scan.C2: one scan dimension valid for every scanned input.
  for (int64_t i = 0; i < inputs; ++i) {
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, i, "scan.C2"));
    const Shape& s = inst.operand(i)->shape();
    if (dims.size() != 1 || dims[0] < 0 || dims[0] >= s.rank()) {
      return Fail(inst, "scan.C2", "dimensions ", DimsStr(dims),
                  " must name one dimension of ", OperandName(inst, i), " ",
                  ShapeStr(s));
    }
  }
  if (inst.to_apply() == nullptr) {
    return Fail(inst, "scan.C3", "to_apply is missing");
  }
  const int64_t d = dims[0];
  // scan.C4: every scanned input has the same length along the scan
  // dimension (the expander's loop runs once per position).
  const int64_t n = inst.operand(0)->shape().dimensions(d);
  for (int64_t i = 1; i < inputs; ++i) {
    const Shape& s = inst.operand(i)->shape();
    if (s.dimensions(d) != n) {
      return Fail(inst, "scan.C4", OperandName(inst, i), " ", ShapeStr(s),
                  " has length ", s.dimensions(d), " along scan dimension ", d,
                  ", input 0 has ", n);
    }
  }
  // scan.C5: the result is (outputs..., carries...) -- a lone array when
  // there is one in total -- with each carry of its init's shape and each
  // output an array with length n along the scan dimension.
  const Shape& result = inst.shape();
  std::vector<Shape> parts;
  if (result.IsTuple()) {
    for (int64_t k = 0; k < result.tuple_size(); ++k) {
      parts.push_back(result.tuple_shapes(k));
    }
  } else {
    parts.push_back(result);
  }
  const int64_t outputs = static_cast<int64_t>(parts.size()) - carries;
  if (outputs < 0 || (!result.IsTuple() && outputs + carries != 1)) {
    return Fail(inst, "scan.C5", "shape ", ShapeStr(result), " has ",
                parts.size(), " element(s), expected the outputs then ",
                carries, " carr", carries == 1 ? "y" : "ies");
  }
  std::vector<Shape> step_params, step_results;
  for (int64_t i = 0; i < inputs; ++i) {
    Shape s = inst.operand(i)->shape();
    s.delete_dimension(d);
    s.ClearLayoutsRecursive();
    step_params.push_back(s);
  }
  for (int64_t k = 0; k < outputs; ++k) {
    const Shape& y = parts[k];
    if (!y.IsArray() || y.rank() <= d || y.dimensions(d) != n) {
      return Fail(inst, "scan.C5", "output ", k, " is ", ShapeStr(y),
                  ", expected an array with length ", n,
                  " along scan dimension ", d);
    }
    Shape s = y;
    s.delete_dimension(d);
    s.ClearLayoutsRecursive();
    step_results.push_back(s);
  }
  for (int64_t j = 0; j < carries; ++j) {
    const int64_t op = inputs + j;
    HLOREF_RETURN_IF_ERROR(ExpectArrayOperand(inst, op, "scan.C5"));
    Shape c = inst.operand(op)->shape();
    c.ClearLayoutsRecursive();
    if (!SameShape(parts[outputs + j], c)) {
      return Fail(inst, "scan.C5", "carry ", j, " of the result is ",
                  ShapeStr(parts[outputs + j]), ", its init ",
                  OperandName(inst, op), " is ", ShapeStr(c));
    }
    step_params.push_back(c);
    step_results.push_back(c);
  }
  // scan.C6: to_apply takes the input slices then the carries and returns
  // the step outputs then the new carries.
  // With one value in total, a 1-tuple root is accepted beside the lone
  // value (the expander reads either).
  const bool lone =
      step_results.size() == 1 && !ResultShape(*inst.to_apply()).IsTuple();
  const Shape step_result =
      lone ? step_results[0] : Shape::Tuple(std::move(step_results));
  HLOREF_RETURN_IF_ERROR(CheckSignature(
      inst, "scan.C6", "to_apply", inst.to_apply(), step_params, step_result));
  Shape s = result;
  s.ClearLayoutsRecursive();
  return s;
}

}  // namespace

absl::StatusOr<Shape> InferReduce(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kReduce:
      return InferReduceOp(inst);
    case HloOpcode::kReduceWindow:
      return InferReduceWindow(inst);
    case HloOpcode::kSelectAndScatter:
      return InferSelectAndScatter(inst);
    case HloOpcode::kMap:
      return InferMap(inst);
    case HloOpcode::kScan:
      return InferScan(inst);
    default:
      return WrongFamily(inst, "reduce");
  }
}

}  // namespace hloref::verifier_internal
