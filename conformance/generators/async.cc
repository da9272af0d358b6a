// Generators of the async family (docs/hlo-text-format.md 6.13):
//  - async-start / async-update / async-done: an op drawn by another
//    family's generator, wrapped as the async computation
//    (`((operands...), result, s32[]) async-start(...), calls=...`, 0..2
//    async-updates, async-done as the root). The semantics is "apply the
//    wrapped computation", so the case checks that the backend's async
//    lowering gives the wrapped op's value.
//  - copy-start / copy-done: a copy through the (destination, source,
//    context) tuple, for every element type and shape.
//
// Instruction names never spell an element type (s1, u2, ...): XLA's
// lexer reserves those words.
//
// The comparator judges an async-done root with async-done's own policy,
// bit-exact, not the wrapped op's; so only wraps whose value is bit-exact
// on every conforming backend are drawn: ops whose policy is bit-exact
// (data movement, negate, abs, select, ...) on any type, and other ops
// only when every value involved is an integer or pred (where every class
// is exact).
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/compare/policy.h"
#include "conformance/generators/draw.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance::gen {
namespace {

// Ops of other families that take part as wrapped computations (no
// prelude, one participant, no host transfers).
constexpr HloOpcode kWrappable[] = {
    HloOpcode::kAbs,
    HloOpcode::kNegate,
    HloOpcode::kNot,
    HloOpcode::kPopulationCount,
    HloOpcode::kAdd,
    HloOpcode::kMultiply,
    HloOpcode::kSubtract,
    HloOpcode::kAnd,
    HloOpcode::kXor,
    HloOpcode::kShiftLeft,
    HloOpcode::kMaximum,
    HloOpcode::kCompare,
    HloOpcode::kSelect,
    HloOpcode::kClamp,
    HloOpcode::kConvert,
    HloOpcode::kBitcastConvert,
    HloOpcode::kBroadcast,
    HloOpcode::kCopy,
    HloOpcode::kReshape,
    HloOpcode::kReverse,
    HloOpcode::kTranspose,
    HloOpcode::kIota,
    HloOpcode::kSlice,
    HloOpcode::kDynamicSlice,
    HloOpcode::kDynamicUpdateSlice,
    HloOpcode::kConcatenate,
    HloOpcode::kPad,
    HloOpcode::kDot,
    HloOpcode::kReduce,
    HloOpcode::kSort,
    HloOpcode::kGather,
    HloOpcode::kMap,
};

bool AllIntegral(const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) {
      if (!AllIntegral(e)) return false;
    }
    return true;
  }
  return s.IsArray() &&
         (IsInteger(s.element_type()) || IsPred(s.element_type()));
}

std::string ParamLines(const Draw& d, const std::string& prefix) {
  std::string text;
  for (size_t i = 0; i < d.params.size(); ++i) {
    absl::StrAppend(&text, "  ", prefix, i, " = ",
                    d.params[i].shape.ToString(false), " parameter(", i, ")\n");
  }
  return text;
}

// The result shape of the drawn op: stated by the draw, or inferred by the
// verifier from a probe module (as the driver does).
absl::StatusOr<Shape> ResultOf(const Draw& d) {
  if (d.result_shape.has_value()) return *d.result_shape;
  const PrimitiveType placeholder =
      d.params.empty() ? PrimitiveType::kF32 : d.params[0].shape.element_type();
  HLOREF_ASSIGN_OR_RETURN(
      auto probe,
      ParseHloModule(absl::StrCat("HloModule probe\n\n", d.computations,
                                  "ENTRY main {\n", ParamLines(d, "p"),
                                  "  ROOT r = ", PrimitiveTypeName(placeholder),
                                  "[] ", d.op_text, "\n}\n")));
  return InferShape(*probe->entry()->root());
}

absl::StatusOr<Draw> GenerateAsyncWrap(HloOpcode op, Rng& rng) {
  const HloOpcode wrapped_op =
      kWrappable[rng.Below(sizeof(kWrappable) / sizeof(kWrappable[0]))];
  FamilyGenerator g = GeneratorFor(wrapped_op);
  if (g == nullptr) return absl::InternalError("wrapped op has no generator");
  HLOREF_ASSIGN_OR_RETURN(Draw inner, g(wrapped_op, rng));
  if (!inner.prelude.empty() || inner.replica_count != 1 ||
      inner.partition_count != 1 || !inner.infeed.empty() ||
      !inner.recv.empty()) {
    return absl::InvalidArgumentError("draw not wrappable");
  }
  HLOREF_ASSIGN_OR_RETURN(Shape result, ResultOf(inner));
  bool integral = AllIntegral(result);
  for (const ParamSpec& p : inner.params) integral &= AllIntegral(p.shape);
  if (!integral && ComparePolicyFor(wrapped_op).cls != CompareClass::kBits) {
    return absl::InvalidArgumentError(
        "wrapped value is not bit-exact across backends");
  }
  Draw d;
  d.params = inner.params;  // the same parameter numbers
  d.fixed_values = inner.fixed_values;
  d.type = inner.type;
  // The wrapped computation names its parameters w<i>; the draw's text
  // names them p<i>.
  static const std::regex kParam(R"(\bp(\d+)\b)");
  const std::string body = std::regex_replace(inner.op_text, kParam, "w$1");
  const std::string rs = result.ToString(false);
  d.computations =
      absl::StrCat(inner.computations, "wrapped {\n", ParamLines(inner, "w"),
                   "  ROOT w = ", rs, " ", body, "\n}\n\n");
  std::vector<std::string> operand_shapes, operand_names;
  for (size_t i = 0; i < inner.params.size(); ++i) {
    operand_shapes.push_back(inner.params[i].shape.ToString(false));
    operand_names.push_back(absl::StrCat("p", i));
  }
  const std::string state = absl::StrCat(
      "((", absl::StrJoin(operand_shapes, ", "), "), ", rs, ", s32[])");
  const std::string thread =
      rng.Chance(0.3) ? ", async_execution_thread=\"parallel\"" : "";
  d.prelude = absl::StrCat("  st0 = ", state, " async-start(",
                           absl::StrJoin(operand_names, ", "),
                           "), calls=wrapped", thread, "\n");
  const int64_t updates =
      op == HloOpcode::kAsyncUpdate ? rng.Range(1, 2) : rng.Range(0, 2);
  for (int64_t u = 1; u <= updates; ++u) {
    absl::StrAppend(&d.prelude, "  st", u, " = ", state, " async-update(st",
                    u - 1, ")\n");
  }
  d.op_text = absl::StrCat("async-done(st", updates, ")");
  d.result_shape = result;
  if (d.type == PrimitiveType::kInvalid) {
    d.type = d.params.empty() ? (result.IsArray() ? result.element_type()
                                                  : PrimitiveType::kTuple)
                              : d.params[0].shape.element_type();
  }
  return d;
}

absl::StatusOr<Draw> GenerateCopyPair(Rng& rng) {
  Draw d;
  const Shape s(DrawType(rng), DrawDims(rng, 0, 4));
  const std::string t = s.ToString(false);
  d.params.push_back({s, Fill::kGeneral});
  d.prelude = absl::StrCat(
      "  s = (", t, ", ", t, ", u32[]) copy-start(p0)",
      rng.Chance(0.2) ? ", cross_program_prefetch_index=0" : "", "\n");
  d.op_text = "copy-done(s)";
  return d;
}

}  // namespace

absl::StatusOr<Draw> GenerateAsync(HloOpcode op, Rng& rng) {
  switch (op) {
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return GenerateAsyncWrap(op, rng);
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
      return GenerateCopyPair(rng);
    default:
      return absl::UnimplementedError("no generator");
  }
}

}  // namespace hloref::conformance::gen
