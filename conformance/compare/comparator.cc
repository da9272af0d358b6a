// The element-by-element comparator (see comparator.h).
#include "conformance/compare/comparator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "conformance/compare/op_bounds.h"
#include "conformance/compare/policy.h"
#include "spec/ir/opcode.h"
#include "spec/types/minifloat.h"

namespace hloref::conformance {
namespace {

// The class actually applied to one output, after looking at reducers and
// mapped computations.
enum class Applied {
  kBits,
  kExact,
  kExactNoZeroSign,
  kRounded,
  kUlp,
  kMinMax,
  kClamp,
  kConvert,
  kAccumulate,
  kProduct,
  kMinMaxReduce,
  // Whole-output bounds of op_bounds.h: a per-element half-width
  // (fft, triangular-solve, batch norm) or per-element residual judgements
  // (cholesky).
  kOpBound,
  kResidual,
  kAny,
};

struct OutputPlan {
  Applied applied = Applied::kExact;
  const HloInstruction* inst = nullptr;  // the op producing the output
  double ulps = 0;
  double complex_k = 0;
  bool complex_normwise = false;
  std::string rule;
  // Element-wise ops: for each operand, the argument literal feeding it
  // (null when not a parameter of matching shape).
  std::vector<const Literal*> elementwise_inputs;
  int64_t reduce_factors = 0;  // kProduct
  // kOpBound / kResidual: computed by CompareToOracle once per output, on
  // the arguments and, under a declared ftz with flushed inputs, on the
  // flushed arguments against the flushed oracle.
  OpBounds op_bounds;
  OpBounds op_bounds_flushed;
};

HloOpcode ReducerOp(const HloComputation* comp) {
  if (comp == nullptr || comp->root() == nullptr) return HloOpcode::kTuple;
  const HloInstruction* root = comp->root();
  // Variadic reducers return a tuple; judge by the first element's op.
  if (root->opcode() == HloOpcode::kTuple && root->operand_count() > 0) {
    root = root->operand(0);
  }
  return root->opcode();
}

// The factors a cross-participant product may have: the size of the
// largest replica group, or every participant of the module when the groups
// are implicit (an upper bound, so the product bound stays fair in every
// group mode); 0 for other ops.
int64_t CollectiveFactors(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kReduceScatter:
      break;
    case HloOpcode::kAllReduceDone:
      return inst.operand_count() == 1 ? CollectiveFactors(*inst.operand(0))
                                       : 0;
    default:
      return 0;
  }
  int64_t largest = 0;
  for (const auto& group : inst.attrs().replica_groups.groups) {
    largest = std::max<int64_t>(largest, static_cast<int64_t>(group.size()));
  }
  if (largest > 0) return largest;
  const HloModule* module =
      inst.parent() != nullptr ? inst.parent()->parent() : nullptr;
  if (module == nullptr) return 0;
  return std::max<int64_t>(
      1, module->config().replica_count * module->config().num_partitions);
}

int64_t ReducedCount(const HloInstruction& inst) {
  // Factors per output element of a reduce: product of reduced dimension
  // sizes, plus the init value.
  if (inst.opcode() != HloOpcode::kReduce || inst.operand_count() == 0) {
    return 0;
  }
  const Shape& in = inst.operand(0)->shape();
  const Shape& out =
      inst.shape().IsTuple() ? inst.shape().tuple_shapes(0) : inst.shape();
  int64_t in_n = std::max<int64_t>(in.num_elements(), 0);
  int64_t out_n = std::max<int64_t>(out.num_elements(), 1);
  return in_n / std::max<int64_t>(out_n, 1) + 1;
}

OutputPlan PlanFor(const HloInstruction* inst, PrimitiveType type,
                   const CompareConfig& config, absl::Span<const Literal> args,
                   const Shape& out_shape) {
  OutputPlan plan;
  plan.inst = inst;
  const OpComparePolicy& policy = ComparePolicyFor(inst->opcode());
  const std::string op(HloOpcodeString(inst->opcode()));
  plan.ulps = policy.UlpBudget(type);
  plan.complex_k = policy.complex_k;
  CompareClass cls = policy.cls;
  HloOpcode effective = inst->opcode();
  // Complex operands of ops whose real form is exact or correctly rounded:
  // XLA computes them with formulas (numerics.md "complex (from the
  // emitter)"), judged as the complex functions are. sqrt is one of
  // numerics.md's exp/log/sqrt/pow/trig group (normwise k = 16); sign is
  // z / |z|, a division by the modulus (k = 8, divide's budget); abs gives a
  // real result, max * sqrt(1 + (min/max)^2): about 2.25 u relative from
  // its five roundings, within 2 ulp of the correctly rounded value.
  if (inst->operand_count() > 0 && inst->operand(0)->shape().IsArray() &&
      IsComplex(inst->operand(0)->shape().element_type())) {
    switch (inst->opcode()) {
      case HloOpcode::kSqrt:
        cls = CompareClass::kUlp;
        plan.complex_k = 16;
        break;
      case HloOpcode::kSign:
        cls = CompareClass::kUlp;
        plan.complex_k = 8;
        break;
      case HloOpcode::kAbs:
        cls = CompareClass::kUlp;
        plan.ulps = 2;
        break;
      default:
        break;
    }
  }
  if (cls == CompareClass::kMap) {
    effective = ReducerOp(inst->to_apply());
    const OpComparePolicy& inner = ComparePolicyFor(effective);
    cls = inner.cls;
    plan.ulps = inner.UlpBudget(type);
    plan.complex_k = inner.complex_k;
    if (cls == CompareClass::kMap || cls == CompareClass::kReduce ||
        cls == CompareClass::kAccumulate || cls == CompareClass::kScatter) {
      cls = CompareClass::kAny;
    }
  }
  switch (cls) {
    case CompareClass::kBits:
      plan.applied = Applied::kBits;
      plan.rule = absl::StrCat("EXACT bits (", op, ", payload-preserving)");
      break;
    case CompareClass::kExact:
      plan.applied = Applied::kExact;
      plan.rule = absl::StrCat("EXACT (", op, ", class E)");
      break;
    case CompareClass::kRounded:
      plan.applied = Applied::kRounded;
      plan.rule = absl::StrCat("ROUNDED (", op, ", class R)");
      if (IsComplex(type) && effective == HloOpcode::kMultiply) {
        plan.complex_normwise = true;
      }
      break;
    case CompareClass::kDivide:
      plan.applied = Applied::kRounded;
      plan.rule = absl::StrCat("ROUNDED (", op, ", class R)");
      if (IsComplex(type)) plan.complex_normwise = true;
      if (config.deviations.divide_ulps > 0 && IsFloat(type) &&
          BitWidth(type) <= 32) {
        plan.applied = Applied::kUlp;
        plan.ulps = config.deviations.divide_ulps;
        plan.rule = absl::StrCat("BOUNDED ", plan.ulps,
                                 " ulp (divide, declared divide-ulp)");
      }
      break;
    case CompareClass::kConvert:
      plan.applied = Applied::kConvert;
      plan.rule = absl::StrCat("ROUNDED (", op, ", class R)");
      break;
    case CompareClass::kUlp:
      plan.applied = Applied::kUlp;
      plan.complex_normwise = IsComplex(type);
      plan.rule =
          IsComplex(type)
              ? absl::StrCat("BOUNDED normwise k = ", plan.complex_k, " (", op,
                             ", complex class U)")
              : absl::StrCat("BOUNDED ", plan.ulps, " ulp (", op, ", class U)");
      break;
    case CompareClass::kMinMax:
      plan.applied = Applied::kMinMax;
      plan.rule = absl::StrCat("EXACT, +-0 tie SET (", op, ")");
      break;
    case CompareClass::kClamp:
      plan.applied = Applied::kClamp;
      plan.rule = absl::StrCat("EXACT, +-0 tie SET (", op, ")");
      break;
    case CompareClass::kAccumulate:
      plan.applied = Applied::kAccumulate;
      plan.rule = absl::StrCat("class A (", op, ")");
      break;
    case CompareClass::kReduce: {
      // all-reduce-done reduces with its all-reduce-start's computation.
      const HloComputation* reducer =
          inst->opcode() == HloOpcode::kSelectAndScatter ? inst->scatter()
          : inst->opcode() == HloOpcode::kAllReduceDone &&
                  inst->operand_count() == 1
              ? inst->operand(0)->to_apply()
              : inst->to_apply();
      const HloOpcode r = ReducerOp(reducer);
      const std::string rname(HloOpcodeString(r));
      if (!IsFloat(type) && !IsComplex(type)) {
        plan.applied = Applied::kExact;
        plan.rule =
            absl::StrCat("EXACT (", op, " of integers, reducer ", rname, ")");
      } else if (r == HloOpcode::kAdd) {
        plan.applied = Applied::kAccumulate;
        plan.rule = absl::StrCat("class A (", op, " with add)");
      } else if (r == HloOpcode::kMultiply &&
                 (inst->opcode() == HloOpcode::kReduce ||
                  CollectiveFactors(*inst) > 0)) {
        plan.applied = Applied::kProduct;
        plan.reduce_factors = inst->opcode() == HloOpcode::kReduce
                                  ? ReducedCount(*inst)
                                  : CollectiveFactors(*inst);
        plan.rule = absl::StrCat("product bound (", op, " with multiply)");
      } else if (r == HloOpcode::kMaximum || r == HloOpcode::kMinimum) {
        plan.applied = Applied::kMinMaxReduce;
        plan.rule =
            absl::StrCat("EXACT, any zero sign (", op, " with ", rname, ")");
      } else {
        plan.applied = Applied::kAny;
        plan.rule = absl::StrCat("ANY (", op, " with reducer ", rname,
                                 ": order-dependent on inexact data)");
      }
      break;
    }
    case CompareClass::kScatter:
      plan.applied = Applied::kExactNoZeroSign;
      plan.rule =
          absl::StrCat("EXACT, any zero sign (", op, ", exact update data)");
      break;
    case CompareClass::kFft:
    case CompareClass::kTriangularSolve:
    case CompareClass::kBatchNorm:
      // The rule comes from the bound (op_bounds.h) in CompareToOracle.
      plan.applied = Applied::kOpBound;
      break;
    case CompareClass::kCholesky:
      plan.applied = Applied::kResidual;
      break;
    case CompareClass::kMap:
    case CompareClass::kAny:
      plan.applied = Applied::kAny;
      plan.rule = absl::StrCat("ANY (", op, ": not judged element-wise)");
      break;
  }
  // rng-bit-generator: THREE_FRY and PHILOX are XLA's exact bits and state
  // (kBits above, numerics.md 3.7); the DEFAULT algorithm is judged
  // statistically, never by value (decision 6).
  if (inst->opcode() == HloOpcode::kRngBitGenerator &&
      (inst->attrs().algorithm.empty() ||
       inst->attrs().algorithm == "rng_default")) {
    plan.applied = Applied::kAny;
    plan.rule =
        "ANY (rng-bit-generator with the DEFAULT algorithm: "
        "implementation-defined bits, decision 6)";
  }
  // Inputs feeding an element-wise op, for explanations and SET candidates.
  const OpFamily family = GetOpInfo(inst->opcode()).family;
  if (family == OpFamily::kElementwiseUnary ||
      family == OpFamily::kElementwiseBinary ||
      family == OpFamily::kCompareSelect || family == OpFamily::kConvert ||
      inst->opcode() == HloOpcode::kMap) {
    for (const HloInstruction* operand : inst->operands()) {
      const Literal* lit = nullptr;
      if (operand->opcode() == HloOpcode::kParameter &&
          operand->parameter_number() < static_cast<int64_t>(args.size())) {
        const Literal& a = args[operand->parameter_number()];
        if (a.shape().IsArray() &&
            (a.shape().SameDimensions(out_shape) || a.shape().rank() == 0)) {
          lit = &a;
        }
      }
      plan.elementwise_inputs.push_back(lit);
    }
  }
  return plan;
}

std::string IndexText(const Shape& shape, int64_t linear) {
  std::vector<int64_t> index(shape.rank(), 0);
  int64_t rest = linear;
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    int64_t size = shape.dimensions(d);
    if (size > 0) {
      index[d] = rest % size;
      rest /= size;
    }
  }
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

int64_t InputIndex(const Literal& input, int64_t i) {
  return input.shape().rank() == 0 ? 0 : i;
}

std::string InputsText(const OutputPlan& plan, int64_t i) {
  std::vector<std::string> parts;
  for (size_t k = 0; k < plan.elementwise_inputs.size(); ++k) {
    const Literal* in = plan.elementwise_inputs[k];
    if (in == nullptr) continue;
    parts.push_back(absl::StrCat("operand ", k, " = ",
                                 in->ElementToString(InputIndex(*in, i))));
  }
  return absl::StrJoin(parts, ", ");
}

struct OracleElement {
  const EvaluatedOutput* out;
  int64_t i;
  bool flushed = false;  // the FTZ alternative (oracle on flushed inputs)
};

// Builds the verdict of one real element (`component` 0/1 selects the part
// of a complex element).
ElementVerdict RealVerdict(const OutputPlan& plan, PrimitiveType type,
                           uint64_t bits, const OracleElement& oe,
                           int component, const CompareConfig& config) {
  const Deviations& dev = config.deviations;
  ElementVerdict v;
  if (!IsFloat(type)) {
    // pred and integers: exact in every class (integer arithmetic wraps,
    // accumulations of integers are order-independent).
    v = ExactVerdict(type, bits, plan.rule);
    if (plan.applied == Applied::kAny) v.kind = VerdictKind::kAny;
    return v;
  }
  switch (plan.applied) {
    case Applied::kBits:
      v = ExactVerdict(type, bits, plan.rule);
      v.nan_payload_significant = true;
      // Declared nan-canonical: abs/negate computed in a wider type.
      if (dev.nan_canonical_types.count(type) > 0 && plan.inst != nullptr &&
          (plan.inst->opcode() == HloOpcode::kAbs ||
           plan.inst->opcode() == HloOpcode::kNegate)) {
        v.nan_payload_significant = false;
      }
      break;
    case Applied::kExact:
      v = ExactVerdict(type, bits, plan.rule);
      break;
    case Applied::kExactNoZeroSign:
      v = ExactVerdict(type, bits, plan.rule);
      v.zero_sign_significant = false;
      break;
    case Applied::kRounded:
      v = RoundedVerdict(type, bits, plan.rule);
      break;
    case Applied::kUlp:
      v = UlpVerdict(type, bits, plan.ulps, plan.rule);
      break;
    case Applied::kConvert: {
      v = RoundedVerdict(type, bits, plan.rule);
      if (dev.saturating_f8 && IsFloat(type) && BitWidth(type) <= 8 &&
          !plan.elementwise_inputs.empty() && plan.elementwise_inputs[0]) {
        const Literal& in = *plan.elementwise_inputs[0];
        double x = IsComplex(in.element_type())
                       ? in.GetAsComplex(InputIndex(in, oe.i)).real()
                       : in.GetAsDouble(InputIndex(in, oe.i));
        if (std::isfinite(x) && !std::isfinite(v.y)) {
          const FloatFormat& f = FormatOf(type);
          uint64_t max_bits = MaxFiniteEncoding(f);
          if (std::signbit(x)) max_bits = NegateEncoding(f, max_bits);
          v = SetVerdict(type, bits, {max_bits},
                         absl::StrCat(plan.rule, " or +-max (saturating-f8)"));
        }
      }
      break;
    }
    case Applied::kMinMax:
    case Applied::kClamp: {
      std::vector<uint64_t> candidates;
      const bool y_nan = IsNanBits(type, bits);
      if (y_nan && dev.fast_min_max) {
        for (const Literal* in : plan.elementwise_inputs) {
          if (in != nullptr && in->element_type() == type) {
            candidates.push_back(in->GetRawBits(InputIndex(*in, oe.i)));
          }
        }
      }
      v = SetVerdict(
          type, bits, std::move(candidates),
          y_nan && dev.fast_min_max
              ? absl::StrCat(plan.rule, ", NaN or an operand (fast-min-max)")
              : plan.rule);
      // max(-0, +0) may be either zero (7.3 class E, 7.5).
      v.zero_sign_significant = false;
      break;
    }
    case Applied::kMinMaxReduce:
      if (dev.fast_min_max && IsNanBits(type, bits)) {
        v = ExactVerdict(type, bits, plan.rule);
        v.kind = VerdictKind::kAny;
        v.rule = absl::StrCat(plan.rule, ": NaN may be dropped (fast-min-max)");
      } else {
        v = ExactVerdict(type, bits, plan.rule);
        v.zero_sign_significant = false;
      }
      break;
    case Applied::kAccumulate: {
      double s = std::numeric_limits<double>::quiet_NaN();
      int64_t m = -1;
      if (oe.out->abs_sum.has_value() && oe.out->term_count.has_value()) {
        s = oe.out->abs_sum->GetAsDouble(oe.i);
        m = oe.out->term_count->GetAsInt64(oe.i);
      }
      if (std::isnan(s) || m < 0) {
        // No error data from the oracle: only exact agreement is sound
        // to require of the oracle itself; reported by its rule.
        v = ExactVerdict(
            type, bits,
            absl::StrCat(plan.rule, ": EXACT (no error data from the oracle)"));
        v.zero_sign_significant = false;
        break;
      }
      AccumulationParams params;
      const bool is_dot = plan.inst->opcode() == HloOpcode::kDot ||
                          plan.inst->opcode() == HloOpcode::kRaggedDot ||
                          plan.inst->opcode() == HloOpcode::kScaledDot ||
                          plan.inst->opcode() == HloOpcode::kConvolution;
      if (component >= 0) {  // complex: per component, re = ar br - ai bi
        s *= 2;
        m += 1;
      }
      if (is_dot) {
        params.u_w = dev.DotInputUnit();
        if (params.u_w <= std::ldexp(1.0, -Precision(FormatOf(type)))) {
          params.u_w = 0;  // the declared input type is not narrower
        }
        if (dev.dot_accumulation != PrimitiveType::kInvalid) {
          params.u_a =
              std::ldexp(1.0, -Precision(FormatOf(dev.dot_accumulation)));
          params.max_acc = MaxFinite(FormatOf(dev.dot_accumulation));
        }
      }
      if (dev.truncating_accumulation && is_dot) {
        const double u = params.u_a > 0
                             ? params.u_a
                             : std::ldexp(1.0, -Precision(FormatOf(type)));
        params.u_a = 2 * u;
      }
      if (dev.ftz_types.count(type)) {
        params.ftz_min = MinNormal(FormatOf(type));
      }
      v = AccumulationVerdict(type, bits, s, m, params);
      v.rule = absl::StrCat(plan.rule, ": ", v.rule);
      break;
    }
    case Applied::kProduct:
      v = ProductVerdict(
          type, bits, plan.reduce_factors,
          dev.ftz_types.count(type) ? MinNormal(FormatOf(type)) : 0);
      v.rule = absl::StrCat(plan.rule, ": ", v.rule);
      break;
    case Applied::kOpBound: {
      const OpBounds& ob = oe.flushed ? plan.op_bounds_flushed : plan.op_bounds;
      const double b = static_cast<size_t>(oe.i) < ob.bound.size()
                           ? ob.bound[static_cast<size_t>(oe.i)]
                           : std::numeric_limits<double>::quiet_NaN();
      v = ExactVerdict(type, bits, ob.rule);
      if (std::isnan(b)) {
        v.kind = VerdictKind::kAny;
        v.rule = absl::StrCat("ANY (", ob.any_reason, ") under ", ob.rule);
      } else if (std::isinf(b)) {
        // Non-finite data: a NaN of the oracle still requires a NaN.
        if (!std::isnan(v.y)) {
          v.kind = VerdictKind::kAny;
          v.rule = absl::StrCat("ANY (non-finite data) under ", ob.rule);
        }
      } else {
        v.kind = VerdictKind::kBounded;
        // The oracle's value is its wide result rounded once: half an ulp.
        v.lo = v.hi = b + UlpIn(type, v.y) / 2;
        v.overflow_ok = true;
        v.zero_sign_significant = false;
      }
      break;
    }
    case Applied::kResidual:  // judged in JudgeElement
    case Applied::kAny:
      v = ExactVerdict(type, bits, plan.rule);
      v.kind = VerdictKind::kAny;
      break;
  }
  if (IsFloat(type) && dev.ftz_types.count(type)) {
    v.underflow_ok = true;
    v.zero_sign_significant = false;
  }
  return v;
}

struct ElementOutcome {
  Judgement judgement;
  ElementVerdict verdict;  // the primary verdict (first component failing)
};

ElementOutcome JudgeElement(const OutputPlan& plan, const Literal& want,
                            const Literal& got, const OracleElement& oe,
                            const CompareConfig& config) {
  ElementOutcome r;
  const PrimitiveType type = want.element_type();
  const int64_t i = oe.i;
  if (plan.applied == Applied::kResidual) {
    const OpBounds& ob = oe.flushed ? plan.op_bounds_flushed : plan.op_bounds;
    const PrimitiveType part =
        IsComplex(type) ? ComplexComponentType(type) : type;
    r.verdict = ExactVerdict(part, 0, ob.rule);
    r.verdict.kind = VerdictKind::kBounded;
    if (static_cast<size_t>(i) < ob.judgements.size()) {
      r.judgement = ob.judgements[static_cast<size_t>(i)];
    } else {
      r.judgement.masked = true;
    }
    if (r.judgement.masked) r.verdict.kind = VerdictKind::kAny;
    return r;
  }
  if (IsComplex(type)) {
    const PrimitiveType part = ComplexComponentType(type);
    const std::complex<double> w = want.GetAsComplex(i);
    const std::complex<double> g = got.GetAsComplex(i);
    if (plan.applied == Applied::kAny) {
      r.verdict = ExactVerdict(part, 0, plan.rule);
      r.verdict.kind = VerdictKind::kAny;
      r.judgement.masked = true;
      return r;
    }
    if (plan.complex_normwise) {
      r.verdict = ExactVerdict(part, DoubleToBits(part, w.real()), plan.rule);
      r.verdict.kind = VerdictKind::kBounded;
      const double k = plan.complex_k > 0 ? plan.complex_k : plan.ulps;
      r.judgement = JudgeComplexNormwise(part, w, g, k);
      return r;
    }
    for (int c = 0; c < 2; ++c) {
      const double wc = c == 0 ? w.real() : w.imag();
      const double gc = c == 0 ? g.real() : g.imag();
      ElementVerdict v =
          RealVerdict(plan, part, DoubleToBits(part, wc), oe, c, config);
      Judgement j = Judge(v, DoubleToBits(part, gc));
      if (!j.pass) {
        j.why =
            absl::StrCat(c == 0 ? "real part: " : "imaginary part: ", j.why);
        r.judgement = j;
        r.verdict = v;
        return r;
      }
      r.judgement.masked |= j.masked;
      r.judgement.bound = std::max(r.judgement.bound, j.bound);
      r.judgement.ulp_distance =
          std::max(r.judgement.ulp_distance, j.ulp_distance);
      r.verdict = v;
    }
    return r;
  }
  r.verdict = RealVerdict(plan, type, want.GetRawBits(i), oe, -1, config);
  r.judgement = Judge(r.verdict, got.GetRawBits(i));
  return r;
}

// The values of `inst`'s operands: parameters from `args`, constants from
// the module; null for anything computed.
std::vector<const Literal*> OperandValues(const HloInstruction& inst,
                                          absl::Span<const Literal> args) {
  std::vector<const Literal*> values;
  for (const HloInstruction* operand : inst.operands()) {
    const Literal* lit = nullptr;
    if (operand->opcode() == HloOpcode::kParameter &&
        operand->parameter_number() >= 0 &&
        operand->parameter_number() < static_cast<int64_t>(args.size())) {
      const Literal& a = args[operand->parameter_number()];
      if (a.shape().IsArray() && a.shape().SameDimensions(operand->shape()) &&
          a.element_type() == operand->shape().element_type()) {
        lit = &a;
      }
    } else if (operand->opcode() == HloOpcode::kConstant &&
               operand->literal().shape().IsArray()) {
      lit = &operand->literal();
    }
    values.push_back(lit);
  }
  return values;
}

OpBounds ComputeOpBounds(const OpBoundContext& ctx) {
  switch (ctx.inst->opcode()) {
    case HloOpcode::kFft:
      return FftBounds(ctx);
    case HloOpcode::kCholesky:
      return CholeskyBackwardError(ctx);
    case HloOpcode::kTriangularSolve:
      return TriangularSolveBounds(ctx);
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return BatchNormBounds(ctx);
    default: {
      OpBounds none;
      none.rule = absl::StrCat("ANY (", HloOpcodeString(ctx.inst->opcode()),
                               ": no whole-output bound)");
      return none;
    }
  }
}

}  // namespace

std::string ElementFailure::ToString() const {
  std::string s = absl::StrCat("output ", output, ", element ", multi_index);
  if (!inputs.empty()) absl::StrAppend(&s, " (inputs: ", inputs, ")");
  absl::StrAppend(&s, ": expected ", expected, ", got ", got);
  if (bound > 0) absl::StrAppend(&s, ", bound ", bound);
  if (ulp_distance != 0) {
    absl::StrAppend(&s, ", ", ulp_distance, " ulp away");
  }
  absl::StrAppend(&s, "; ", why, " [", rule, "]");
  return s;
}

std::string ComparisonResult::Summary() const {
  if (!structure_error.empty()) return structure_error;
  if (ok) {
    return absl::StrCat(elements, " elements ok (", masked, " masked)");
  }
  std::string s = failures.empty() ? "mismatch" : failures[0].ToString();
  if (mismatches > 1) {
    absl::StrAppend(&s, " (", mismatches, " of ", elements, " elements fail)");
  }
  return s;
}

void FlattenLiteral(const Literal& literal, std::vector<const Literal*>* out) {
  if (literal.shape().IsTuple()) {
    for (const Literal& e : literal.tuple_elements()) FlattenLiteral(e, out);
  } else {
    out->push_back(&literal);
  }
}

std::vector<Literal> FlushSubnormalArgs(absl::Span<const Literal> args,
                                        const std::set<PrimitiveType>& types,
                                        bool* changed) {
  *changed = false;
  std::vector<Literal> out;
  out.reserve(args.size());
  for (const Literal& a : args) {
    Literal copy = a;
    const PrimitiveType t =
        a.shape().IsArray() ? a.element_type() : PrimitiveType::kInvalid;
    const bool complex = IsComplex(t);
    const PrimitiveType part = complex ? ComplexComponentType(t) : t;
    if (t != PrimitiveType::kInvalid && (IsFloat(t) || complex) &&
        types.count(part)) {
      const double min_normal = MinNormal(FormatOf(part));
      auto flush = [&](double x) {
        if (x != 0 && std::fabs(x) < min_normal) {
          *changed = true;
          return std::copysign(0.0, x);
        }
        return x;
      };
      for (int64_t i = 0; i < copy.element_count(); ++i) {
        if (complex) {
          std::complex<double> z = copy.GetAsComplex(i);
          copy.SetFromComplex(i, {flush(z.real()), flush(z.imag())});
        } else {
          double x = copy.GetAsDouble(i);
          if (!std::isnan(x)) {
            double fx = flush(x);
            if (fx != x || std::signbit(fx) != std::signbit(x)) {
              copy.SetFromDouble(i, fx);
            }
          }
        }
      }
    }
    out.push_back(std::move(copy));
  }
  return out;
}

ComparisonResult CompareToOracle(const HloModule& module,
                                 absl::Span<const Literal> args,
                                 const EvalResult& oracle,
                                 const EvalResult* oracle_flushed,
                                 absl::Span<const Literal> got,
                                 const CompareConfig& config) {
  ComparisonResult result;
  if (got.size() != oracle.outputs.size()) {
    result.ok = false;
    result.structure_error =
        absl::StrCat("expected ", oracle.outputs.size(),
                     " output(s), the backend returned ", got.size());
    return result;
  }
  const HloInstruction* root = module.entry()->root();
  for (size_t o = 0; o < got.size(); ++o) {
    const EvaluatedOutput& out = oracle.outputs[o];
    const Literal& want = out.value;
    // A token carries no value: a token for a token is all there is to
    // compare.
    if (want.shape().IsToken() && got[o].shape().IsToken()) continue;
    // Bounded dynamic results: padding beyond the runtime sizes is not a
    // value (impl.dynamic.1 is data-dependent, no backend's choice), so it
    // is never compared, under either profile; and a backend may return
    // just the valid part (XLA:CPU returns bf16[1] for a bf16[<=4] result
    // of runtime size 1), which is placed back at the bounds here.
    const bool padded = want.shape().IsArray() && want.HasPadding();
    std::optional<Literal> relaid;
    if (padded && got[o].shape().IsArray() &&
        got[o].element_type() == want.element_type() &&
        !got[o].shape().SameDimensions(want.shape()) &&
        absl::c_equal(got[o].shape().dimensions(), want.dynamic_sizes())) {
      absl::StatusOr<Literal> bounded =
          Literal::ToBoundedDynamic(got[o], want.shape());
      if (bounded.ok()) relaid = *std::move(bounded);
    }
    const Literal& have = relaid.has_value() ? *relaid : got[o];
    if (!have.shape().IsArray() || have.element_type() != want.element_type() ||
        !have.shape().SameDimensions(want.shape())) {
      result.ok = false;
      result.structure_error = absl::StrCat(
          "output ", o, ": expected shape ", want.shape().ToString(false),
          ", got ", have.shape().ToString(false));
      return result;
    }
    // Runtime sizes are part of the value: a backend that reports sizes
    // (a dynamic result) must report the oracle's. (A backend that returns
    // only the valid part was placed back above with the oracle's sizes.)
    if (!want.shape().is_static() && !have.shape().is_static() &&
        !absl::c_equal(have.dynamic_sizes(), want.dynamic_sizes())) {
      result.ok = false;
      result.structure_error =
          absl::StrCat("output ", o, ": expected runtime sizes (",
                       absl::StrJoin(want.dynamic_sizes(), ","), ") of ",
                       want.shape().ToString(false), ", got (",
                       absl::StrJoin(have.dynamic_sizes(), ","), ")");
      return result;
    }
    const HloInstruction* inst = root;
    if (root->opcode() == HloOpcode::kTuple &&
        o < static_cast<size_t>(root->operand_count()) &&
        !root->operand(o)->shape().IsTuple()) {
      inst = root->operand(o);
    }
    const PrimitiveType type = want.element_type();
    OutputPlan plan = PlanFor(inst, type, config, args, want.shape());
    const EvaluatedOutput* alt =
        oracle_flushed != nullptr && o < oracle_flushed->outputs.size()
            ? &oracle_flushed->outputs[o]
            : nullptr;
    if (plan.applied == Applied::kOpBound ||
        plan.applied == Applied::kResidual) {
      // A tuple-shaped op at the root (batch-norm-training, -grad) gives
      // outputs 0, 1, 2 of the op itself.
      const int op_output =
          inst == root && root->shape().IsTuple() ? static_cast<int>(o) : 0;
      auto compute = [&](absl::Span<const Literal> values,
                         const EvaluatedOutput& oracle_out) {
        OpBoundContext ctx;
        ctx.inst = inst;
        ctx.op_output = op_output;
        ctx.operands = OperandValues(*inst, values);
        ctx.oracle = &oracle_out.value;
        ctx.dont_care =
            oracle_out.dont_care.has_value() ? &*oracle_out.dont_care : nullptr;
        ctx.got = &have;
        ctx.deviations = &config.deviations;
        ctx.rsqrt_ulps = ComparePolicyFor(HloOpcode::kRsqrt).UlpBudget(type);
        return ComputeOpBounds(ctx);
      };
      plan.op_bounds = compute(args, out);
      if (alt != nullptr) {
        bool changed = false;
        std::vector<Literal> flushed =
            FlushSubnormalArgs(args, config.deviations.ftz_types, &changed);
        plan.op_bounds_flushed = compute(flushed, *alt);
      }
      if (!plan.op_bounds.ok) {
        plan.applied = Applied::kAny;
        plan.rule = plan.op_bounds.rule;
      } else {
        plan.rule = plan.op_bounds.rule;
      }
    }
    const bool use_mask =
        config.profile == Profile::kPortable && out.dont_care.has_value();
    // Counted per kind here and added to verdict_counts (a map keyed by
    // name) once per output: a map update per element was a tenth of a
    // large comparison's time.
    int64_t padding = 0, portable = 0;
    std::array<int64_t, kVerdictKinds> kinds{};
    const int64_t elements = want.element_count();
    // Bit-identical outputs under a bit-exact rule (the exact verdicts,
    // integers and pred): every element passes as kExact, with no ulp
    // distance and no bound, which is what the loop below would find one
    // element at a time.
    const bool exact_rule =
        (!IsFloat(type) && !IsComplex(type) && plan.applied != Applied::kAny) ||
        plan.applied == Applied::kBits || plan.applied == Applied::kExact ||
        plan.applied == Applied::kExactNoZeroSign;
    const bool identical = exact_rule && !padded && !use_mask &&
                           absl::c_equal(have.raw(), want.raw());
    if (identical) {
      result.elements += elements;
      kinds[static_cast<size_t>(VerdictKind::kExact)] += elements;
      if (elements > 0) {
        result.max_ulp_distance = std::max(result.max_ulp_distance, 0.0);
      }
    }
    for (int64_t i = identical ? elements : 0; i < elements; ++i) {
      ++result.elements;
      if (padded && want.IsPaddingElement(i)) {
        ++result.masked;
        ++padding;
        continue;
      }
      if (use_mask && out.dont_care->GetAsInt64(i) != 0) {
        ++result.masked;
        ++portable;
        continue;
      }
      ElementOutcome eo =
          JudgeElement(plan, want, have, {&out, i, false}, config);
      if (!eo.judgement.pass && alt != nullptr) {
        // FTZ: the verdict computed on flushed inputs (7.6).
        ElementOutcome ea =
            JudgeElement(plan, alt->value, have, {alt, i, true}, config);
        if (ea.judgement.pass) eo = ea;
      }
      ++kinds[static_cast<size_t>(eo.verdict.kind)];
      if (eo.judgement.masked) {
        ++result.masked;
        continue;
      }
      if (std::isfinite(eo.judgement.ulp_distance)) {
        result.max_ulp_distance =
            std::max(result.max_ulp_distance, eo.judgement.ulp_distance);
      }
      if (plan.applied == Applied::kResidual) {
        const OpBounds& ob = plan.op_bounds;
        if (static_cast<size_t>(i) < ob.margin.size() &&
            std::isfinite(ob.margin[static_cast<size_t>(i)])) {
          result.worst_margin =
              std::max(result.worst_margin, ob.margin[static_cast<size_t>(i)]);
        }
      } else if (eo.judgement.bound > 0 && (IsFloat(type) || IsComplex(type))) {
        // Complex: the normwise error for normwise verdicts, else the
        // larger component error (the bound is per component).
        double err = 0;
        if (IsComplex(type)) {
          const std::complex<double> d =
              have.GetAsComplex(i) - want.GetAsComplex(i);
          err = plan.complex_normwise
                    ? std::abs(d)
                    : std::max(std::fabs(d.real()), std::fabs(d.imag()));
        } else {
          err = std::fabs(have.GetAsDouble(i) - want.GetAsDouble(i));
        }
        if (std::isfinite(err)) {
          result.worst_margin =
              std::max(result.worst_margin, err / eo.judgement.bound);
        }
      }
      if (eo.judgement.pass) continue;
      result.ok = false;
      ++result.mismatches;
      if (static_cast<int>(result.failures.size()) < config.max_explained) {
        ElementFailure f;
        f.output = static_cast<int>(o);
        f.index = i;
        f.multi_index = IndexText(want.shape(), i);
        f.inputs = InputsText(plan, i);
        f.expected = want.ElementToString(i);
        f.got = have.ElementToString(i);
        f.bound = eo.judgement.bound;
        f.ulp_distance = eo.judgement.ulp_distance;
        f.rule = absl::StrCat(VerdictKindName(eo.verdict.kind), ": ",
                              eo.verdict.rule);
        f.why = eo.judgement.why;
        result.failures.push_back(std::move(f));
      }
    }
    if (padding > 0) result.verdict_counts["ANY (dynamic padding)"] += padding;
    if (portable > 0) {
      result.verdict_counts["ANY (portable profile)"] += portable;
    }
    for (size_t k = 0; k < kinds.size(); ++k) {
      if (kinds[k] == 0) continue;
      result.verdict_counts[std::string(
          VerdictKindName(static_cast<VerdictKind>(k)))] += kinds[k];
    }
  }
  return result;
}

}  // namespace hloref::conformance
