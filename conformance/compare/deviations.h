// Vendor-declarable deviations (docs/numerics.md decision 5 and 7.7). Each
// one changes a formula of the comparator, never a threshold by hand, and
// all of them are printed in every report. XLA:CPU's own defaults form the
// named set `xla-cpu`.
#ifndef HLOREF_CONFORMANCE_COMPARE_DEVIATIONS_H_
#define HLOREF_CONFORMANCE_COMPARE_DEVIATIONS_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "spec/types/primitive_type.h"

namespace hloref::conformance {

struct Deviations {
  // denormals: subnormal inputs of these types may be read as zero (DAZ)
  // and subnormal results flushed to zero (FTZ). Effect: an alternative
  // oracle run on sign-preservingly flushed inputs (7.6), underflow_ok on
  // results, and E_ftz = (m+1) min_acc in accumulation bounds.
  std::set<PrimitiveType> ftz_types;
  // dot/convolution input precision (tf32, bf16, f16): products use inputs
  // rounded to it; E_in = (2 u_w + u_w^2) S. kInvalid: as typed.
  PrimitiveType dot_input = PrimitiveType::kInvalid;
  bool dot_input_tf32 = false;  // tf32 has no PrimitiveType
  // dot/convolution accumulation type (kInvalid: the result type) and
  // whether the accumulator truncates (u_a doubled).
  PrimitiveType dot_accumulation = PrimitiveType::kInvalid;
  bool truncating_accumulation = false;
  // maximum/minimum/clamp and max/min reductions may drop a NaN operand
  // (XLA:CPU's xla_cpu_enable_fast_min_max): SET of the operands.
  bool fast_min_max = false;
  // f32 (and narrower) division within this many ulps instead of
  // correctly rounded (class R -> class U). 0: correctly rounded.
  double divide_ulps = 0;
  // Conversions to narrow float types saturate to +-max instead of giving
  // inf/NaN on overflow (OCP satfinite).
  bool saturating_f8 = false;
  // a*b + c may be rounded once inside multi-op graphs (7.8). Single-op
  // cases are unaffected; recorded in the report.
  bool fma_contraction = false;
  // abs and negate on these types may return any NaN for a NaN operand
  // (payload and sign not kept): XLA:CPU computes them on bf16 and the f8
  // types in f32 and converts back, which canonicalizes the NaN. Effect:
  // the payload-preserving EXACT-bits verdict of abs/negate compares a NaN
  // by class only (numerics.md 7.5's default for other ops).
  std::set<PrimitiveType> nan_canonical_types;

  // The accepted spelling, one key per deviation, comma separated, e.g.
  // "ftz=f32+f64+bf16,fast-min-max"; "" when none.
  std::string ToString() const;
  // One line per declared deviation: key and the formula it changes.
  std::vector<std::string> Describe() const;
  bool empty() const { return ToString().empty(); }
  // u_w of the dot input precision (0 when inputs are used as typed).
  double DotInputUnit() const;
};

// Parses a comma-separated list of deviation keys:
//   none                       nothing declared
//   xla-cpu                    ftz=f32+f64+bf16,fast-min-max,fma-contraction,
//                              nan-canonical
//   ftz[=T+T...]               flush subnormals of these types (default
//                              f32+f64+bf16)
//   dot-input=tf32|bf16|f16    dot/conv input precision
//   dot-accumulation=T         dot/conv accumulation type (f16, bf16, f32)
//   truncating-accumulation    the accumulator rounds toward zero
//   fast-min-max               min/max may drop NaN operands
//   divide-ulp=N               division within N ulps (N in (0, 16])
//   saturating-f8              narrow float conversion saturates
//   fma-contraction            a*b+c may be contracted in graphs
//   nan-canonical[=T+T...]     abs/negate may return any NaN for a NaN
//                              (default bf16+f8e5m2+f8e4m3+f8e4m3fn+f8e3m4)
// Unknown keys are an InvalidArgument error naming the key.
absl::StatusOr<Deviations> ParseDeviations(absl::string_view text);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_COMPARE_DEVIATIONS_H_
