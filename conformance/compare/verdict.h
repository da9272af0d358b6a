// The per-element verdict of docs/numerics.md section 7.2 and the judging of
// one implementation value against it. The verdict kinds are implemented
// one file per mode (style.md 9.7): exact.cc (EXACT), rounded.cc (ROUNDED),
// ulp.cc (class U bounds and ulp arithmetic), accumulation.cc (class A:
// BOUNDED from the oracle's S and m), set.cc (SET) and special.cc (CLASS,
// ANY and the special-value policy of 7.5 shared by all of them).
#ifndef HLOREF_CONFORMANCE_COMPARE_VERDICT_H_
#define HLOREF_CONFORMANCE_COMPARE_VERDICT_H_

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "spec/types/primitive_type.h"

namespace hloref::conformance {

enum class VerdictKind : uint8_t {
  kExact,    // bit-exact (NaN matches any NaN unless payloads significant)
  kRounded,  // equal to the correctly rounded value RN_T(y)
  kBounded,  // y - lo <= v <= y + hi
  kSet,      // one of `candidates`
  kClass,    // only NaN / +inf / -inf / zero / sign of finite checked
  kAny,      // masked: implementation-defined, reported as masked
};
inline constexpr int kVerdictKinds = 6;  // the kinds above
absl::string_view VerdictKindName(VerdictKind kind);

// One real element's verdict. Complex elements are judged as two real
// components, except class-U complex ops, which are normwise (ulp.cc).
struct ElementVerdict {
  VerdictKind kind = VerdictKind::kExact;
  PrimitiveType type = PrimitiveType::kF32;  // the output element type
  // The oracle's value (every element of every float type converts to a
  // double exactly) and its raw bits.
  double y = 0;
  uint64_t bits = 0;
  // kBounded: the half-widths of the interval around y.
  double lo = 0, hi = 0;
  // kSet: the allowed values (bits of `type`), besides y itself.
  std::vector<uint64_t> candidates;
  // 7.2 flags.
  bool zero_sign_significant = true;
  bool nan_payload_significant = false;
  bool overflow_ok = false;   // +-inf (or NaN without inf) of y's sign ok
  bool underflow_ok = false;  // +-0 ok (interval reaches below min normal)
  // kBounded ulp budget it came from (for the report), 0 when not ulp-based.
  double ulps = 0;
  // Human-readable name of the rule that produced the verdict, e.g.
  // "ROUNDED (divide, class R)" or "BOUNDED gamma_m(u_a)*S, m=12".
  std::string rule;
};

// The result of judging one value.
struct Judgement {
  bool pass = true;
  bool masked = false;  // kAny: not compared
  // Why it failed: "NaN where a finite value was required", ...
  std::string why;
  // |v - y| / ulp_T(y); infinite for a NaN/inf mismatch; 0 when equal.
  double ulp_distance = 0;
  // The accepted half-width (max(lo, hi)) for kBounded, else 0.
  double bound = 0;
};

// Judges the implementation value (`got_bits` of the verdict's type).
Judgement Judge(const ElementVerdict& verdict, uint64_t got_bits);

// Mode implementations (one file each), called by Judge after the checks
// common to all of them.
Judgement JudgeExact(const ElementVerdict& v, double got, uint64_t got_bits);
Judgement JudgeRounded(const ElementVerdict& v, double got, uint64_t got_bits);
// The check EXACT and ROUNDED share: the oracle's bits (or a zero of
// either sign where the sign is not significant); otherwise a failure
// whose text is `zero_sign_why` for a zero of the wrong sign and
// `differs_why` followed by the ulp distance for any other value.
Judgement JudgeAgainstBits(const ElementVerdict& v, double got,
                           uint64_t got_bits, const char* zero_sign_why,
                           const char* differs_why);
Judgement JudgeBounded(const ElementVerdict& v, double got, uint64_t got_bits);
Judgement JudgeSet(const ElementVerdict& v, double got, uint64_t got_bits);
Judgement JudgeClass(const ElementVerdict& v, double got, uint64_t got_bits);

// ulp_T(y) of numerics.md's notation: the spacing of the binade of |y| in
// float type `type`, at least the subnormal spacing; 1 for integer types.
double UlpIn(PrimitiveType type, double y);
// Distance in ulps of `type` between two finite values, measured with the
// ulp of `reference`.
double UlpDistance(PrimitiveType type, double reference, double got);

// Raw bits <-> value of an element of a real type (integers as int64
// cast to double, which is only used for reporting).
double BitsToDouble(PrimitiveType type, uint64_t bits);
uint64_t DoubleToBits(PrimitiveType type, double value);
bool IsNanBits(PrimitiveType type, uint64_t bits);

// The value printed the way HLO literals print it.
std::string ValueText(PrimitiveType type, uint64_t bits);

// Verdict builders, one per mode (the file of the mode holds it). `bits`
// is the oracle's value in the output type; `rule` names the op class.
ElementVerdict ExactVerdict(PrimitiveType type, uint64_t bits,
                            std::string rule);
// A verdict of `kind` (kExact or kRounded) on the oracle's bits.
ElementVerdict BitsVerdict(VerdictKind kind, PrimitiveType type, uint64_t bits,
                           std::string rule);
ElementVerdict RoundedVerdict(PrimitiveType type, uint64_t bits,
                              std::string rule);
// Class U: lo = hi = ulps * ulp_T(y) + ulp_T(y)/2 (the oracle's rounding),
// at least min_T for subnormal results; overflow to inf accepted when the
// interval reaches the overflow threshold.
ElementVerdict UlpVerdict(PrimitiveType type, uint64_t bits, double ulps,
                          std::string rule);
ElementVerdict SetVerdict(PrimitiveType type, uint64_t bits,
                          std::vector<uint64_t> candidates, std::string rule);

// Class A parameters from the declared algorithm (numerics.md 7.3).
struct AccumulationParams {
  double u_w = 0;      // input rounding unit; 0: inputs used as typed
  double u_a = 0;      // accumulation unit; 0: the output type's u_T
  double ftz_min = 0;  // min normal of the accumulator when FTZ declared
  double max_acc = 0;  // largest finite accumulator value; 0: output type's
};
// gamma_m(u) = m u / (1 - m u); +inf when m u >= 1.
double GammaBound(int64_t m, double u);
ElementVerdict AccumulationVerdict(PrimitiveType type, uint64_t bits,
                                   double abs_sum, int64_t term_count,
                                   const AccumulationParams& params);
// Reduce with a multiply reducer over `factors` factors (init included).
ElementVerdict ProductVerdict(PrimitiveType type, uint64_t bits,
                              int64_t factors, double ftz_min);

// Complex class-U and multiply/divide results, judged normwise:
// |v - y| <= k u_T |y| + min_T (+ the oracle's rounding).
Judgement JudgeComplexNormwise(PrimitiveType component_type,
                               std::complex<double> want,
                               std::complex<double> got, double k);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_COMPARE_VERDICT_H_
