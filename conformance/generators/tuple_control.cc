// Generators of the tuple family (seed 001 Tuple, GetTupleElement,
// OptimizationBarrier, add-dependency, constant) and of control flow
// (Call, fusion, Conditional, While) with
// small generated bodies. The bodies only move data (reverse, select, copy,
// tuple reordering) and count with s32, so every conforming implementation
// gives the same bits and the bit-exact policy of these ops is sound.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {
namespace {

std::string TupleText(const std::vector<Shape>& shapes) {
  std::vector<std::string> parts;
  for (const Shape& s : shapes) parts.push_back(s.ToString(false));
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

std::string ParamNames(int64_t n) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) names.push_back(absl::StrCat("p", i));
  return absl::StrJoin(names, ", ");
}

// Adds 1..3 array parameters of random types and shapes (rank 0 and
// zero-size included); returns their shapes.
std::vector<Shape> AddArrayParams(Draw& d, Rng& rng) {
  std::vector<Shape> shapes;
  const int64_t n = rng.Range(1, 3);
  for (int64_t i = 0; i < n; ++i) {
    shapes.push_back(Shape(DrawType(rng), DrawDims(rng, 0, 3)));
    d.params.push_back({shapes.back(), Fill::kGeneral});
  }
  return shapes;
}

// "{0,1,...}" over a random subset of `rank` dimensions.
std::string DimSubset(Rng& rng, int64_t rank) {
  std::vector<int64_t> which;
  for (int64_t i = 0; i < rank; ++i) {
    if (rng.Chance(0.5)) which.push_back(i);
  }
  return ListText(which);
}

// A data-movement computation `name` from `shape` to `shape`.
std::string MoveComputation(const std::string& name, const Shape& shape,
                            Rng& rng) {
  const std::string s = shape.ToString(false);
  std::string body = absl::StrCat(name, " {\n  x = ", s, " parameter(0)\n");
  if (rng.Chance(0.6)) {
    absl::StrAppend(&body, "  ROOT y = ", s,
                    " reverse(x), dimensions=", DimSubset(rng, shape.rank()),
                    "\n}\n\n");
  } else {
    absl::StrAppend(&body, "  ROOT y = ", s, " copy(x)\n}\n\n");
  }
  return body;
}

}  // namespace

absl::StatusOr<Draw> GenerateTupleToken(HloOpcode op, Rng& rng) {
  Draw d;
  switch (op) {
    case HloOpcode::kTuple: {
      const std::vector<Shape> shapes = AddArrayParams(d, rng);
      d.op_text = absl::StrCat("tuple(", ParamNames(shapes.size()), ")");
      return d;
    }
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kOptimizationBarrier: {
      const std::vector<Shape> shapes = AddArrayParams(d, rng);
      d.prelude = absl::StrCat("  t = ", TupleText(shapes), " tuple(",
                               ParamNames(shapes.size()), ")\n");
      if (op == HloOpcode::kOptimizationBarrier) {
        d.op_text = "opt-barrier(t)";
      } else {
        const int64_t index = rng.Below(shapes.size());
        d.op_text = absl::StrCat("get-tuple-element(t), index=", index);
        d.type = shapes[index].element_type();
      }
      return d;
    }
    case HloOpcode::kConstant: {
      // A literal of random values (special values, NaN payloads, -0 and
      // subnormals included) written as HLO text: the backend's literal
      // parsing must give back the same bits.
      const Shape shape(DrawType(rng), DrawDims(rng, 0, 3));
      const Literal value = MakeValues({shape, Fill::kGeneral}, rng);
      d.op_text = absl::StrCat("constant(", value.ToStringWithoutShape(), ")");
      d.result_shape = shape;
      d.type = shape.element_type();
      return d;
    }
    // after-all, domain and parameter are drawn by misc.cc
    // (MiscGeneratorFor); add-dependency below also runs after-all as an
    // operand.
    case HloOpcode::kAddDependency: {
      const Shape shape(DrawType(rng), DrawDims(rng, 0, 3));
      d.params.push_back({shape, Fill::kGeneral});
      d.prelude = "  tok = token[] after-all()\n";
      d.op_text = "add-dependency(p0, tok)";
      return d;
    }
    default:
      return absl::UnimplementedError("no generator");
  }
}

absl::StatusOr<Draw> GenerateControlFlow(HloOpcode op, Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  const Shape shape(t, DrawDims(rng, 0, 3));
  const std::string s = shape.ToString(false);
  const std::string pred =
      Shape(PrimitiveType::kPred, shape.dimensions()).ToString(false);
  d.type = t;
  switch (op) {
    case HloOpcode::kCall:
    case HloOpcode::kFusion: {
      // callee(a, b, c) -> select(c, a, b), (b, a) or reverse(a) (for
      // fusion: (b, select(c, a, b)) or reverse(select(c, a, b))).
      d.params.push_back({shape, Fill::kGeneral});
      d.params.push_back({shape, Fill::kGeneral});
      d.params.push_back(
          {Shape(PrimitiveType::kPred, shape.dimensions()), Fill::kGeneral});
      std::string callee =
          absl::StrCat("callee {\n  a = ", s, " parameter(0)\n  b = ", s,
                       " parameter(1)\n  c = ", pred, " parameter(2)\n");
      // XLA's verifier requires every non-root instruction of a fusion
      // computation, parameters included, to have users ("Non-root
      // instruction ... in fusion must have users"); a call has no such
      // rule. So the fusion callee routes a, b and c through the select
      // before the tuple / reverse root.
      const int64_t form = rng.Below(3);
      const char* x = "a";
      if (op == HloOpcode::kFusion && form != 0) {
        absl::StrAppend(&callee, "  m = ", s, " select(c, a, b)\n");
        x = "m";
      }
      switch (form) {
        case 0:
          absl::StrAppend(&callee, "  ROOT r = ", s, " select(c, a, b)\n");
          break;
        case 1:
          absl::StrAppend(&callee, "  ROOT r = (", s, ", ", s, ") tuple(b, ", x,
                          ")\n");
          break;
        default:
          absl::StrAppend(&callee, "  ROOT r = ", s, " reverse(", x,
                          "), dimensions=", DimSubset(rng, shape.rank()), "\n");
      }
      d.computations = callee + "}\n\n";
      if (op == HloOpcode::kFusion) {
        // Semantics of call; the kind is a scheduling hint.
        static constexpr const char* kKinds[] = {"kLoop", "kInput", "kOutput"};
        d.op_text =
            absl::StrCat("fusion(p0, p1, p2), kind=", kKinds[rng.Below(3)],
                         ", calls=callee");
      } else {
        d.op_text = "call(p0, p1, p2), to_apply=callee";
      }
      return d;
    }
    case HloOpcode::kConditional: {
      if (rng.Chance(0.4)) {
        // The predicate form.
        d.params.push_back({Shape(PrimitiveType::kPred, {}), Fill::kGeneral});
        d.params.push_back({shape, Fill::kGeneral});
        d.params.push_back({shape, Fill::kGeneral});
        d.computations = MoveComputation("on_true", shape, rng) +
                         MoveComputation("on_false", shape, rng);
        d.op_text =
            "conditional(p0, p1, p2), true_computation=on_true, "
            "false_computation=on_false";
        return d;
      }
      // The index form: 1..4 branches; indices outside [0, n) (drawn
      // around the bounds) select the last branch.
      const int64_t n = rng.Range(1, 4);
      d.params.push_back({Shape(PrimitiveType::kS32, {}), Fill::kIndex, n - 1});
      std::vector<std::string> branches;
      for (int64_t b = 0; b < n; ++b) {
        d.params.push_back({shape, Fill::kGeneral});
        branches.push_back(absl::StrCat("branch", b));
        d.computations += MoveComputation(branches.back(), shape, rng);
      }
      d.op_text = absl::StrCat("conditional(", ParamNames(n + 1),
                               "), branch_computations={",
                               absl::StrJoin(branches, ", "), "}");
      return d;
    }
    case HloOpcode::kWhile: {
      // State (i, n, x): runs while i < n (n from the data, around 0..4,
      // negative included: zero trips), each trip reverses x along a
      // random subset of dimensions and counts i up.
      d.params.push_back({shape, Fill::kGeneral});
      d.params.push_back({Shape(PrimitiveType::kS32, {}), Fill::kIndex, 4});
      const std::string st = absl::StrCat("(s32[], s32[], ", s, ")");
      d.computations = absl::StrCat(
          "cond {\n  st = ", st,
          " parameter(0)\n  i = s32[] get-tuple-element(st), index=0\n"
          "  n = s32[] get-tuple-element(st), index=1\n"
          "  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\n",
          "body {\n  st = ", st,
          " parameter(0)\n  i = s32[] get-tuple-element(st), index=0\n"
          "  n = s32[] get-tuple-element(st), index=1\n  x = ",
          s, " get-tuple-element(st), index=2\n",
          "  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n  y = ", s,
          " reverse(x), dimensions=", DimSubset(rng, shape.rank()),
          "\n  ROOT next = ", st, " tuple(i1, n, y)\n}\n\n");
      d.prelude = absl::StrCat("  zero = s32[] constant(0)\n  init = ", st,
                               " tuple(zero, p1, p0)\n");
      d.op_text = "while(init), condition=cond, body=body";
      return d;
    }
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
