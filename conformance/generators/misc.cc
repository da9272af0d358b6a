// Generators for the ops whose family generator does not draw them:
// stochastic-convert (convert family), dynamic-reshape and
// set-dimension-size (shape family: runtime sizes; get-dimension-size of
// values with runtime sizes, besides the shape family's static cases),
// after-all, domain and parameter (tuple/token family). GeneratorFor
// (generator.cc) asks MiscGeneratorFor first, so the family files stay as
// they are.
//
// custom-call has no generator, by design (ExcludedFromGeneration): see
// kCustomCallExclusion below.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/generators/draw.h"
#include "conformance/generators/generator.h"

namespace hloref::conformance {
namespace gen {
namespace {

// The unsigned type of `bits` bits (the random operand of
// stochastic-convert.C3); kInvalid when there is none.
PrimitiveType UnsignedOfWidth(int bits) {
  switch (bits) {
    case 2:
      return PrimitiveType::kU2;
    case 4:
      return PrimitiveType::kU4;
    case 8:
      return PrimitiveType::kU8;
    case 16:
      return PrimitiveType::kU16;
    case 32:
      return PrimitiveType::kU32;
    case 64:
      return PrimitiveType::kU64;
    default:
      return PrimitiveType::kInvalid;
  }
}

// `t[d0,<=d1,...]`: dimension i is dynamic (bounded by dims[i]) when
// dynamic[i].
std::string DynamicShapeText(PrimitiveType t, absl::Span<const int64_t> dims,
                             const std::vector<bool>& dynamic) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < dims.size(); ++i) {
    parts.push_back(absl::StrCat(dynamic[i] ? "<=" : "", dims[i]));
  }
  return absl::StrCat(PrimitiveTypeName(t), "[", absl::StrJoin(parts, ","),
                      "]");
}

Shape DynamicShape(PrimitiveType t, absl::Span<const int64_t> dims,
                   const std::vector<bool>& dynamic) {
  Shape s(t, dims);
  for (size_t i = 0; i < dims.size(); ++i) {
    s.set_dynamic_dimension(static_cast<int64_t>(i), dynamic[i]);
  }
  return s;
}

// A prelude line defining the s32 scalar `name` = `value` (a constant).
std::string ConstantSize(const std::string& name, int64_t value) {
  return absl::StrCat("  ", name, " = s32[] constant(", value, ")\n");
}

// A runtime size in [0, bound] for set-dimension-size: a constant (half of
// the time), else clamp(0, p, bound) of a new s32 parameter p drawn around
// [0, bound], so that the size comes from the data (a backend cannot fold
// it) and the case stays valid.
std::string DataSize(Draw& d, Rng& rng, const std::string& name,
                     int64_t bound) {
  if (rng.Chance(0.5)) return ConstantSize(name, rng.Range(0, bound));
  const size_t p = d.params.size();
  d.params.push_back({Shape(PrimitiveType::kS32, {}), Fill::kIndex, bound});
  return absl::StrCat("  ", name, "_lo = s32[] constant(0)\n  ", name,
                      "_hi = s32[] constant(", bound, ")\n  ", name,
                      " = s32[] clamp(", name, "_lo, p", p, ", ", name,
                      "_hi)\n");
}

// Splits `n` (> 0) into `rank` factors (rank >= 1).
std::vector<int64_t> Factorise(Rng& rng, int64_t n, int64_t rank) {
  std::vector<int64_t> out(static_cast<size_t>(rank), 1);
  for (int64_t f = 2, m = n; m > 1;) {
    if (m % f == 0) {
      out[rng.Below(out.size())] *= f;
      m /= f;
    } else {
      ++f;
    }
  }
  return out;
}

// stochastic-convert (docs/hlo-text-format.md 6.2; XLA's
// StochasticConvertDecomposer is the only definition: float -> signed
// integer, the random operand an unsigned array of the operand's width).
// Special values (NaN, +-inf, out-of-range magnitudes) are marked
// impl.stochastic-convert.1 by the oracle; the random bits cover the whole
// unsigned range, so both roundings of every fraction are exercised.
absl::StatusOr<Draw> GenerateStochasticConvert(Rng& rng) {
  Draw d;
  const PrimitiveType from = DrawFloatType(rng);
  const PrimitiveType random = UnsignedOfWidth(BitWidth(from));
  if (random == PrimitiveType::kInvalid) {
    return absl::InvalidArgumentError("no unsigned type of that width");
  }
  static constexpr PrimitiveType kTargets[] = {
      PrimitiveType::kS2,  PrimitiveType::kS4,  PrimitiveType::kS8,
      PrimitiveType::kS16, PrimitiveType::kS32, PrimitiveType::kS64};
  // Mostly the widths programs use (s8..s32).
  const PrimitiveType to =
      rng.Chance(0.7) ? kTargets[rng.Range(2, 4)] : kTargets[rng.Below(6)];
  const std::vector<int64_t> dims = DrawDims(rng, 0, 3);
  d.params.push_back(
      {Shape(from, dims), rng.Chance(0.5) ? Fill::kGeneral : Fill::kFinite});
  d.params.push_back({Shape(random, dims), Fill::kGeneral});
  d.op_text = "stochastic-convert(p0, p1)";
  d.result_shape = Shape(to, dims);
  d.type = from;
  return d;
}

// set-dimension-size (seed 001 SetDimensionSize): a runtime size in
// [0, bound] of one dimension (the root keeps the padding, which the oracle
// reports as don't-care), sometimes on an operand that already has a
// runtime size, sometimes followed by an integer sum that must skip the
// padding (the seed's example).
absl::StatusOr<Draw> GenerateSetDimensionSize(Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  std::vector<int64_t> dims = DrawDims(rng, 1, 3);
  const int64_t rank = static_cast<int64_t>(dims.size());
  d.params.push_back({Shape(t, dims), Fill::kGeneral});
  d.type = t;
  const int64_t dim = rng.Below(dims.size());
  std::vector<bool> dynamic(dims.size(), false);
  std::string operand = "p0";
  if (rank > 1 && rng.Chance(0.3)) {
    // First give another dimension a runtime size.
    const int64_t other = (dim + 1) % rank;
    d.prelude += DataSize(d, rng, "n0", dims[other]);
    dynamic[other] = true;
    d.prelude +=
        absl::StrCat("  x = ", DynamicShapeText(t, dims, dynamic),
                     " set-dimension-size(p0, n0), dimensions={", other, "}\n");
    operand = "x";
  }
  d.prelude += DataSize(d, rng, "n", dims[dim]);
  dynamic[dim] = true;
  const std::string op = absl::StrCat("set-dimension-size(", operand,
                                      ", n), dimensions={", dim, "}");
  if (IsInteger(t) && rng.Chance(0.3)) {
    // Integer addition wraps, so the sum is exact in any order.
    d.computations = BinaryComputation("sum", "add", t);
    d.prelude +=
        absl::StrCat("  s = ", DynamicShapeText(t, dims, dynamic), " ", op,
                     "\n  zero = ", PrimitiveTypeName(t), "[] constant(0)\n");
    std::vector<int64_t> all(dims.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
    d.op_text = absl::StrCat("reduce(s, zero), dimensions=", ListText(all),
                             ", to_apply=sum");
    d.result_shape = Shape(t, {});
    return d;
  }
  d.op_text = op;
  d.result_shape = DynamicShape(t, dims, dynamic);
  return d;
}

// dynamic-reshape (docs/hlo-text-format.md 6.4): the operand's valid
// elements (all of a static operand, or those within a runtime size set
// just before) reshaped row-major to runtime sizes whose product is their
// count; a result dimension is static (size = bound) or dynamic (size at
// most the bound), and the bounds hold as many elements as the operand's.
absl::StatusOr<Draw> GenerateDynamicReshape(Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  std::vector<int64_t> dims = DrawDims(rng, 0, 3);
  d.params.push_back({Shape(t, dims), Fill::kGeneral});
  d.type = t;
  int64_t valid = 1;
  for (int64_t s : dims) valid *= s;
  std::string operand = "p0";
  if (!dims.empty() && rng.Chance(0.25)) {
    // A runtime size from the data: set-dimension-size with a size in
    // [0, bound] read from a parameter, then flattened with the size
    // computed from it (n * the other dimensions' product), so neither
    // size is known before the run.
    const int64_t dim = rng.Below(dims.size());
    int64_t others = 1, total = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      total *= dims[i];
      if (static_cast<int64_t>(i) != dim) others *= dims[i];
    }
    std::vector<bool> dynamic(dims.size(), false);
    dynamic[dim] = true;
    const size_t p = d.params.size();
    d.params.push_back(
        {Shape(PrimitiveType::kS32, {}), Fill::kIndex, dims[dim]});
    absl::StrAppend(&d.prelude, "  lo = s32[] constant(0)\n  hi = s32[] ",
                    "constant(", dims[dim], ")\n  n = s32[] clamp(lo, p", p,
                    ", hi)\n  x = ", DynamicShapeText(t, dims, dynamic),
                    " set-dimension-size(p0, n), dimensions={", dim,
                    "}\n  others = s32[] constant(", others,
                    ")\n  flat = s32[] multiply(n, others)\n");
    d.op_text = "dynamic-reshape(x, flat)";
    d.result_shape = DynamicShape(t, {total}, {true});
    return d;
  }
  // XLA requires the result's bounds to hold as many elements as the
  // operand's (HloInstruction::CreateDynamicReshape checks the static
  // extent products), so the bounds regroup the operand's bounds and the
  // runtime sizes regroup its valid elements.
  std::vector<int64_t> sizes, bounds;
  std::vector<bool> dynamic;
  const int64_t out_rank = rng.Range(1, 3);
  auto regroup = [&](int64_t n, int64_t rank) {
    if (rank == 0) return std::vector<int64_t>{};  // n == 1
    if (n != 0) return Factorise(rng, n, rank);
    std::vector<int64_t> out = DrawDims(rng, rank, rank);
    out[rng.Below(out.size())] = 0;
    return out;
  };
  if (!dims.empty() && rng.Chance(0.4)) {
    // The operand's dimension `dim` gets runtime size `size`: the result
    // keeps that dimension (bound and size) at some position and regroups
    // the other dimensions, whose elements are all valid.
    const int64_t dim = rng.Below(dims.size());
    const int64_t size = rng.Range(0, dims[dim]);
    std::vector<bool> operand_dynamic(dims.size(), false);
    operand_dynamic[dim] = true;
    d.prelude += ConstantSize("n", size);
    d.prelude +=
        absl::StrCat("  x = ", DynamicShapeText(t, dims, operand_dynamic),
                     " set-dimension-size(p0, n), dimensions={", dim, "}\n");
    operand = "x";
    int64_t others = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (static_cast<int64_t>(i) != dim) others *= dims[i];
    }
    sizes = regroup(others, others == 1 ? out_rank - 1
                                        : std::max<int64_t>(out_rank - 1, 1));
    bounds = sizes;
    dynamic.assign(sizes.size(), false);
    const int64_t at = rng.Range(0, static_cast<int64_t>(sizes.size()));
    sizes.insert(sizes.begin() + at, size);
    bounds.insert(bounds.begin() + at, dims[dim]);
    dynamic.insert(dynamic.begin() + at, true);
  } else {
    sizes = regroup(valid, out_rank);
    bounds = sizes;
    dynamic.assign(sizes.size(), false);
  }
  std::vector<std::string> size_names;
  for (size_t i = 0; i < sizes.size(); ++i) {
    // A dimension whose size is its bound may still be declared dynamic.
    if (sizes[i] == bounds[i] && rng.Chance(0.5)) dynamic[i] = true;
    size_names.push_back(absl::StrCat("d", i));
    d.prelude += ConstantSize(size_names.back(), sizes[i]);
  }
  d.op_text = absl::StrCat("dynamic-reshape(", operand, ", ",
                           absl::StrJoin(size_names, ", "), ")");
  d.result_shape = DynamicShape(t, bounds, dynamic);
  return d;
}

// get-dimension-size (seed 001 GetDimensionSize) of a value with runtime
// sizes: set-dimension-size gives one or two dimensions sizes read from the
// data, and the case reads one dimension (dynamic or static) back. Half of
// the draws are the shape family's static-operand cases.
absl::StatusOr<Draw> GenerateGetDimensionSize(Rng& rng) {
  if (rng.Chance(0.5)) return GenerateShape(HloOpcode::kGetDimensionSize, rng);
  Draw d;
  const PrimitiveType t = DrawType(rng);
  std::vector<int64_t> dims = DrawDims(rng, 1, 3);
  d.params.push_back({Shape(t, dims), Fill::kGeneral});
  d.type = t;
  std::vector<bool> dynamic(dims.size(), false);
  std::string operand = "p0";
  const int64_t sized = rng.Range(1, std::min<int64_t>(2, dims.size()));
  for (int64_t k = 0; k < sized; ++k) {
    const int64_t dim = rng.Below(dims.size());
    if (dynamic[dim]) continue;
    dynamic[dim] = true;
    const std::string n = absl::StrCat("n", k), x = absl::StrCat("x", k);
    d.prelude += DataSize(d, rng, n, dims[dim]);
    absl::StrAppend(&d.prelude, "  ", x, " = ",
                    DynamicShapeText(t, dims, dynamic), " set-dimension-size(",
                    operand, ", ", n, "), dimensions={", dim, "}\n");
    operand = x;
  }
  d.op_text = absl::StrCat("get-dimension-size(", operand, "), dimensions={",
                           rng.Below(dims.size()), "}");
  return d;
}

// Ops that take padded dynamic values (interpreter/dynamic_sizes.h: map,
// broadcast, transpose, reshape, copy, slice, concatenate, fusion and the
// element-wise ops) get a quarter of their cases on an operand with a
// runtime size from the data (set-dimension-size of a parameter); a few
// ops that do not take padding (reverse) get dynamic operands whose size is
// their bound, which every op accepts. The result shapes are inferred
// (dynamic where XLA's inference makes them so) except where the text
// states them. The other cases are the family generator's.
bool HasDynamicDraw(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReshape:
    case HloOpcode::kCopy:
    case HloOpcode::kSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kMap:
    case HloOpcode::kFusion:
    case HloOpcode::kAdd:
    case HloOpcode::kNegate:
    case HloOpcode::kReverse:
      return true;
    default:
      return false;
  }
}

// `x` = p0 (of `dims`, type t) with dimension `dim` given a runtime size:
// from the data, or the bound itself when `full`.
void DynamicOperand(Draw& d, Rng& rng, PrimitiveType t,
                    const std::vector<int64_t>& dims, int64_t dim,
                    const std::string& p, const std::string& x,
                    const std::string& n, bool full, bool define_size,
                    std::vector<bool>* dynamic) {
  if (define_size) {
    d.prelude +=
        full ? ConstantSize(n, dims[dim]) : DataSize(d, rng, n, dims[dim]);
  }
  dynamic->assign(dims.size(), false);
  (*dynamic)[dim] = true;
  absl::StrAppend(&d.prelude, "  ", x, " = ",
                  DynamicShapeText(t, dims, *dynamic), " set-dimension-size(",
                  p, ", ", n, "), dimensions={", dim, "}\n");
}

absl::StatusOr<Draw> GenerateDynamicCase(HloOpcode op, Rng& rng) {
  Draw d;
  PrimitiveType t = DrawType(rng);
  if (op == HloOpcode::kFusion || op == HloOpcode::kNegate ||
      op == HloOpcode::kAdd) {
    t = DrawFloatType(rng);
  }
  std::vector<int64_t> dims = DrawDims(rng, 1, 3);
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t dim = rng.Below(dims.size());
  d.params.push_back({Shape(t, dims), Fill::kGeneral});
  d.type = t;
  std::vector<bool> dynamic;
  DynamicOperand(d, rng, t, dims, dim, "p0", "x", "n",
                 op == HloOpcode::kReverse, true, &dynamic);
  switch (op) {
    case HloOpcode::kCopy:
      d.op_text = "copy(x)";
      d.result_shape = DynamicShape(t, dims, dynamic);
      return d;
    case HloOpcode::kNegate:
      d.op_text = "negate(x)";
      return d;
    case HloOpcode::kAdd:
      // A static operand takes the dynamic one's size.
      d.params.push_back({Shape(t, dims), Fill::kGeneral});
      d.op_text = rng.Chance(0.5) ? "add(x, p1)" : "add(p1, x)";
      return d;
    case HloOpcode::kReverse: {
      std::vector<int64_t> rev;
      for (int64_t i = 0; i < rank; ++i) {
        if (rng.Chance(0.5)) rev.push_back(i);
      }
      d.op_text = absl::StrCat("reverse(x), dimensions=", ListText(rev));
      d.result_shape = DynamicShape(t, dims, dynamic);
      return d;
    }
    case HloOpcode::kTranspose: {
      const std::vector<int64_t> perm = Permutation(rng, rank);
      std::vector<int64_t> out;
      std::vector<bool> out_dynamic;
      for (int64_t p : perm) {
        out.push_back(dims[p]);
        out_dynamic.push_back(dynamic[p]);
      }
      d.op_text = absl::StrCat("transpose(x), dimensions=", ListText(perm));
      d.result_shape = DynamicShape(t, out, out_dynamic);
      return d;
    }
    case HloOpcode::kBroadcast: {
      // 0..2 new dimensions at random places; the operand's keep order.
      std::vector<int64_t> out = dims;
      std::vector<bool> out_dynamic = dynamic;
      std::vector<bool> added(out.size(), false);
      const int64_t extra = rng.Range(0, 2);
      for (int64_t e = 0; e < extra; ++e) {
        const int64_t at = rng.Range(0, static_cast<int64_t>(out.size()));
        out.insert(out.begin() + at, rng.Range(1, 4));
        out_dynamic.insert(out_dynamic.begin() + at, false);
        added.insert(added.begin() + at, true);
      }
      std::vector<int64_t> map;
      for (size_t i = 0; i < out.size(); ++i) {
        if (!added[i]) map.push_back(static_cast<int64_t>(i));
      }
      d.op_text = absl::StrCat("broadcast(x), dimensions=", ListText(map));
      d.result_shape = DynamicShape(t, out, out_dynamic);
      return d;
    }
    case HloOpcode::kSlice: {
      std::vector<std::string> parts;
      std::vector<int64_t> out;
      for (int64_t i = 0; i < rank; ++i) {
        const bool full = rng.Chance(0.4);
        const int64_t start = full ? 0 : rng.Range(0, dims[i]);
        const int64_t limit = full ? dims[i] : rng.Range(start, dims[i]);
        const int64_t stride = full ? 1 : rng.Range(1, 3);
        parts.push_back(absl::StrCat("[", start, ":", limit, ":", stride, "]"));
        out.push_back((limit - start + stride - 1) / stride);
      }
      d.op_text =
          absl::StrCat("slice(x), slice={", absl::StrJoin(parts, ", "), "}");
      // The sliced dimension stays dynamic (its size depends on the
      // operand's), as XLA's dynamic dimension inference has it.
      d.result_shape = DynamicShape(t, out, dynamic);
      return d;
    }
    case HloOpcode::kReshape: {
      // Valid elements regrouped so that one dynamic dimension takes
      // count / (the other bounds): flattened, or the dynamic leading
      // dimension kept with the trailing ones collapsed.
      int64_t total = 1, trailing = 1;
      for (int64_t i = 0; i < rank; ++i) {
        total *= dims[i];
        if (i > 0) trailing *= dims[i];
      }
      d.op_text = "reshape(x)";
      if (dim == 0 && rank > 1 && rng.Chance(0.5)) {
        d.result_shape = DynamicShape(t, {dims[0], trailing}, {true, false});
      } else {
        d.result_shape = DynamicShape(t, {total}, {true});
      }
      return d;
    }
    case HloOpcode::kConcatenate: {
      // 2..3 operands; each gets the runtime size on `dim`: its own when
      // `dim` is the concatenated dimension, else the shared n.
      const int64_t cat = rng.Chance(0.5) ? dim : rng.Below(dims.size());
      const int64_t count = rng.Range(2, 3);
      std::vector<std::string> names = {"x"};
      std::vector<int64_t> out = dims;
      for (int64_t k = 1; k < count; ++k) {
        std::vector<int64_t> kd = dims;
        kd[cat] = rng.Range(0, 5);
        out[cat] += kd[cat];
        const std::string p = absl::StrCat("p", d.params.size());
        d.params.push_back({Shape(t, kd), Fill::kGeneral});
        const std::string x = absl::StrCat("x", k);
        const std::string n = cat == dim ? absl::StrCat("n", k) : "n";
        std::vector<bool> kdyn;
        DynamicOperand(d, rng, t, kd, dim, p, x, n, false, cat == dim, &kdyn);
        names.push_back(x);
      }
      d.op_text = absl::StrCat("concatenate(", absl::StrJoin(names, ", "),
                               "), dimensions={", cat, "}");
      d.result_shape = DynamicShape(t, out, dynamic);
      return d;
    }
    case HloOpcode::kMap:
      d.computations =
          BinaryComputation("mapped", rng.Chance(0.5) ? "add" : "multiply", t);
      {
        std::vector<int64_t> all(rank);
        for (int64_t i = 0; i < rank; ++i) all[i] = i;
        d.op_text = absl::StrCat("map(x, x), dimensions=", ListText(all),
                                 ", to_apply=mapped");
      }
      d.result_shape = DynamicShape(t, dims, dynamic);
      return d;
    case HloOpcode::kFusion: {
      // A loop fusion of transpose and negate on the padded value.
      const std::vector<int64_t> perm = Permutation(rng, rank);
      std::vector<int64_t> out;
      std::vector<bool> out_dynamic;
      for (int64_t p : perm) {
        out.push_back(dims[p]);
        out_dynamic.push_back(dynamic[p]);
      }
      const std::string in = DynamicShapeText(t, dims, dynamic);
      const std::string res = DynamicShapeText(t, out, out_dynamic);
      d.computations =
          absl::StrCat("fused {\n  a = ", in, " parameter(0)\n  b = ", res,
                       " transpose(a), dimensions=", ListText(perm),
                       "\n  ROOT c = ", res, " negate(b)\n}\n\n");
      d.op_text = "fusion(x), kind=kLoop, calls=fused";
      d.result_shape = DynamicShape(t, out, out_dynamic);
      return d;
    }
    default:
      return absl::UnimplementedError("no dynamic draw");
  }
}

// A quarter of the cases of an op with a dynamic draw; the family
// generator's otherwise.
absl::StatusOr<Draw> GenerateWithDynamicCases(HloOpcode op, Rng& rng) {
  if (rng.Chance(0.25)) return GenerateDynamicCase(op, rng);
  switch (GetOpInfo(op).family) {
    case OpFamily::kElementwiseUnary:
      return GenerateElementwiseUnary(op, rng);
    case OpFamily::kElementwiseBinary:
      return GenerateElementwiseBinary(op, rng);
    case OpFamily::kShape:
      return GenerateShape(op, rng);
    case OpFamily::kSlicing:
      return GenerateSlicing(op, rng);
    case OpFamily::kConcatPad:
      return GenerateConcatPad(op, rng);
    case OpFamily::kReduce:
      return GenerateReduce(op, rng);
    case OpFamily::kControlFlow:
      return GenerateControlFlow(op, rng);
    case OpFamily::kTupleToken:
      return GenerateTupleToken(op, rng);
    default:
      return absl::UnimplementedError("no generator");
  }
}

// after-all (seed 001 AfterAll): joins 0..4 tokens made by other
// after-alls (chains and fan-in) and token parameters; the result is a
// token, which carries no value (a backend must return a token).
absl::StatusOr<Draw> GenerateAfterAll(Rng& rng) {
  Draw d;
  std::vector<std::string> tokens;
  const int64_t n = rng.Range(0, 4);
  for (int64_t i = 0; i < n; ++i) {
    if (rng.Chance(0.3)) {
      tokens.push_back(absl::StrCat("p", d.params.size()));
      d.params.push_back({Shape::Token(), Fill::kGeneral});
      continue;
    }
    // A fresh token, or one joining the tokens made so far.
    const std::string name = absl::StrCat("t", i);
    const std::string inputs =
        tokens.empty() || rng.Chance(0.5) ? "" : absl::StrJoin(tokens, ", ");
    absl::StrAppend(&d.prelude, "  ", name, " = token[] after-all(", inputs,
                    ")\n");
    tokens.push_back(name);
  }
  d.op_text = absl::StrCat("after-all(", absl::StrJoin(tokens, ", "), ")");
  d.result_shape = Shape::Token();
  d.type = PrimitiveType::kToken;
  return d;
}

// domain (docs/hlo-text-format.md 6.8): the identity on an array or a
// tuple; the metadata only marks a sharding boundary.
absl::StatusOr<Draw> GenerateDomain(Rng& rng) {
  Draw d;
  static constexpr const char* kMetadata[] = {
      "domain={kind=\"sharding\", entry={maximal device=0}, "
      "exit={replicated}}",
      "domain={kind=\"sharding\", entry={replicated}, exit={maximal "
      "device=0}}",
  };
  const char* metadata = kMetadata[rng.Below(2)];
  if (rng.Chance(0.7)) {
    const Shape s(DrawType(rng), DrawDims(rng, 0, 3));
    d.params.push_back({s, Fill::kGeneral});
    d.op_text = absl::StrCat("domain(p0), ", metadata);
    return d;
  }
  std::vector<std::string> parts, names;
  const int64_t n = rng.Range(1, 3);
  for (int64_t i = 0; i < n; ++i) {
    const Shape s(DrawType(rng), DrawDims(rng, 0, 3));
    d.params.push_back({s, Fill::kGeneral});
    parts.push_back(s.ToString(false));
    names.push_back(absl::StrCat("p", i));
  }
  d.prelude = absl::StrCat("  t = (", absl::StrJoin(parts, ", "), ") tuple(",
                           absl::StrJoin(names, ", "), ")\n");
  d.op_text = absl::StrCat("domain(t), ", metadata);
  return d;
}

// A random parameter shape: an array (mostly), a tuple of arrays, a
// nested tuple, or the empty tuple.
Shape ParameterShape(Rng& rng, int depth) {
  if (depth > 1 || rng.Chance(0.7)) {
    return Shape(DrawType(rng), DrawDims(rng, 0, 3));
  }
  std::vector<Shape> elements;
  const int64_t n = rng.Range(0, 3);
  for (int64_t i = 0; i < n; ++i) {
    elements.push_back(ParameterShape(rng, depth + 1));
  }
  return Shape::Tuple(std::move(elements));
}

// parameter (docs/hlo-text-format.md 6.8): the entry root is one of 1..4
// parameters, an array or a tuple; the backend must hand back the
// argument's bits unchanged (NaN payloads included).
absl::StatusOr<Draw> GenerateParameter(Rng& rng) {
  Draw d;
  const int64_t n = rng.Range(1, 4);
  const int64_t root = rng.Below(static_cast<uint64_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    d.params.push_back({ParameterShape(rng, 0), Fill::kGeneral});
  }
  // The driver declares p<root> as the root itself (generator.cc
  // ModuleText: a parameter op_text replaces its declaration).
  d.op_text = absl::StrCat("parameter(", root, ")");
  d.result_shape = d.params[root].shape;
  // The type column: the first array element type of the root.
  const Shape* s = &d.params[root].shape;
  while (s->IsTuple() && s->tuple_size() > 0) s = &s->tuple_shapes(0);
  d.type = s->IsTuple() ? PrimitiveType::kTuple : s->element_type();
  return d;
}

absl::StatusOr<Draw> GenerateMisc(HloOpcode op, Rng& rng) {
  switch (op) {
    case HloOpcode::kStochasticConvert:
      return GenerateStochasticConvert(rng);
    case HloOpcode::kSetDimensionSize:
      return GenerateSetDimensionSize(rng);
    case HloOpcode::kDynamicReshape:
      return GenerateDynamicReshape(rng);
    case HloOpcode::kGetDimensionSize:
      return GenerateGetDimensionSize(rng);
    case HloOpcode::kAfterAll:
      return GenerateAfterAll(rng);
    case HloOpcode::kDomain:
      return GenerateDomain(rng);
    case HloOpcode::kParameter:
      return GenerateParameter(rng);
    default:
      return absl::UnimplementedError("no generator");
  }
}

// custom-call cannot be certified by generated cases. Its semantics is
// whatever the target's code does; a case is only meaningful when the
// oracle and the backend run the same target. The oracle's targets are
// in-process functions or libraries with seed 001's C ABI that the caller
// names; a backend under test (XLA through the command protocol, a
// vendor's plugin, the compiled backends) has its own target registry,
// with no way to load hloref's test library, so every generated case would
// be `unsupported` there, and on the interpreter it would compare the
// oracle with itself. The ABI round trip (operand and result buffers,
// tuples as pointer arrays, layouts) is certified by golden cases and
// interpreter/ops/custom_call_test.cc instead.
constexpr const char kCustomCallExclusion[] =
    "custom-call runs the target's own code: a generated case certifies "
    "nothing unless oracle and backend share the target, and backends "
    "cannot load hloref's seed-ABI test library; covered by golden cases "
    "and custom_call_test instead";

}  // namespace

FamilyGenerator MiscGeneratorFor(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kStochasticConvert:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kAfterAll:
    case HloOpcode::kDomain:
    case HloOpcode::kParameter:
      return &GenerateMisc;
    default:
      return HasDynamicDraw(opcode) ? &GenerateWithDynamicCases : nullptr;
  }
}

absl::StatusOr<Draw> GenerateCustomCall(HloOpcode /*op*/, Rng& /*rng*/) {
  return absl::UnimplementedError(kCustomCallExclusion);
}

}  // namespace gen

std::vector<std::pair<HloOpcode, std::string>> ExcludedFromGeneration() {
  return {{HloOpcode::kCustomCall, gen::kCustomCallExclusion}};
}

}  // namespace hloref::conformance
