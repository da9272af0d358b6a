// Parsing and printing of declared deviations (see deviations.h).
#include "conformance/compare/deviations.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace hloref::conformance {
namespace {

absl::Status Bad(absl::string_view key, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("deviation '", key, "': ", why,
                   " (known: none, xla-cpu, ftz[=T+T], dot-input=tf32|bf16|"
                   "f16, dot-accumulation=T, truncating-accumulation, "
                   "fast-min-max, divide-ulp=N, saturating-f8, "
                   "fma-contraction, nan-canonical[=T+T])"));
}

const std::set<PrimitiveType>& DefaultFtzTypes() {
  static const auto* types = new std::set<PrimitiveType>{
      PrimitiveType::kF32, PrimitiveType::kF64, PrimitiveType::kBF16};
  return *types;
}

// The types whose abs/negate XLA:CPU computes in f32 (checked on jaxlib
// 0.10.2: NaN payloads come back canonical, f8e5m2 also loses the sign).
// The fnuz types and f8e8m0fnu have a single NaN encoding: nothing to
// declare for them.
const std::set<PrimitiveType>& DefaultNanCanonicalTypes() {
  static const auto* types = new std::set<PrimitiveType>{
      PrimitiveType::kBF16, PrimitiveType::kF8E5M2, PrimitiveType::kF8E4M3,
      PrimitiveType::kF8E4M3FN, PrimitiveType::kF8E3M4};
  return *types;
}

std::string TypeList(const std::set<PrimitiveType>& types,
                     absl::string_view separator) {
  std::vector<std::string> names;
  for (PrimitiveType t : types) names.emplace_back(PrimitiveTypeName(t));
  return absl::StrJoin(names, separator);
}

}  // namespace

double Deviations::DotInputUnit() const {
  if (dot_input_tf32) return std::ldexp(1.0, -11);
  switch (dot_input) {
    case PrimitiveType::kBF16:
      return std::ldexp(1.0, -8);
    case PrimitiveType::kF16:
      return std::ldexp(1.0, -11);
    default:
      return 0;
  }
}

std::string Deviations::ToString() const {
  std::vector<std::string> keys;
  if (!ftz_types.empty()) {
    std::vector<std::string> names;
    for (PrimitiveType t : ftz_types) {
      names.emplace_back(PrimitiveTypeName(t));
    }
    keys.push_back(absl::StrCat("ftz=", absl::StrJoin(names, "+")));
  }
  if (dot_input_tf32) keys.push_back("dot-input=tf32");
  if (dot_input != PrimitiveType::kInvalid) {
    keys.push_back(absl::StrCat("dot-input=", PrimitiveTypeName(dot_input)));
  }
  if (dot_accumulation != PrimitiveType::kInvalid) {
    keys.push_back(
        absl::StrCat("dot-accumulation=", PrimitiveTypeName(dot_accumulation)));
  }
  if (truncating_accumulation) keys.push_back("truncating-accumulation");
  if (fast_min_max) keys.push_back("fast-min-max");
  if (divide_ulps > 0) keys.push_back(absl::StrCat("divide-ulp=", divide_ulps));
  if (saturating_f8) keys.push_back("saturating-f8");
  if (fma_contraction) keys.push_back("fma-contraction");
  if (!nan_canonical_types.empty()) {
    keys.push_back(
        absl::StrCat("nan-canonical=", TypeList(nan_canonical_types, "+")));
  }
  return absl::StrJoin(keys, ",");
}

std::vector<std::string> Deviations::Describe() const {
  std::vector<std::string> lines;
  if (!ftz_types.empty()) {
    std::vector<std::string> names;
    for (PrimitiveType t : ftz_types) names.emplace_back(PrimitiveTypeName(t));
    lines.push_back(absl::StrCat(
        "ftz (", absl::StrJoin(names, ", "),
        "): subnormal inputs may read as +-0 (verdicts also computed on "
        "flushed inputs), subnormal results may be +-0 (underflow_ok), "
        "accumulations add E_ftz = (m+1) min_acc"));
  }
  if (dot_input_tf32 || dot_input != PrimitiveType::kInvalid) {
    lines.push_back(absl::StrCat(
        "dot-input=",
        dot_input_tf32 ? "tf32" : std::string(PrimitiveTypeName(dot_input)),
        ": dot/convolution inputs rounded before multiplying, E_in = (2 u_w + "
        "u_w^2) S with u_w = 2^",
        std::log2(DotInputUnit())));
  }
  if (dot_accumulation != PrimitiveType::kInvalid) {
    lines.push_back(absl::StrCat(
        "dot-accumulation=", PrimitiveTypeName(dot_accumulation),
        ": E_acc = gamma_m(u_a) (S + E_in) with u_a of ",
        PrimitiveTypeName(dot_accumulation),
        ", E_out = u_T (|y| + E_in + E_acc) for the final rounding"));
  }
  if (truncating_accumulation) {
    lines.push_back("truncating-accumulation: u_a doubled (directed rounding)");
  }
  if (fast_min_max) {
    lines.push_back(
        "fast-min-max: maximum/minimum/clamp may return the non-NaN operand "
        "(SET of the operands); max/min reductions with a NaN input ANY");
  }
  if (divide_ulps > 0) {
    lines.push_back(absl::StrCat("divide-ulp=", divide_ulps,
                                 ": divide is class U with k = ", divide_ulps,
                                 " instead of correctly rounded"));
  }
  if (saturating_f8) {
    lines.push_back(
        "saturating-f8: conversions that overflow a narrow float type may give "
        "+-max of the type (SET with the non-saturating value)");
  }
  if (fma_contraction) {
    lines.push_back(
        "fma-contraction: a*b+c may round once inside multi-op graphs; "
        "single-op cases unaffected");
  }
  if (!nan_canonical_types.empty()) {
    lines.push_back(absl::StrCat(
        "nan-canonical (", TypeList(nan_canonical_types, ", "),
        "): abs/negate of a NaN may give any NaN (payload and sign not "
        "kept; computed in f32 and converted back)"));
  }
  return lines;
}

absl::StatusOr<Deviations> ParseDeviations(absl::string_view text) {
  Deviations d;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (item.empty() || item == "none") continue;
    absl::string_view key = item;
    absl::string_view value;
    bool has_value = false;
    if (size_t eq = item.find('='); eq != absl::string_view::npos) {
      key = item.substr(0, eq);
      value = item.substr(eq + 1);
      has_value = true;
    }
    if (key == "xla-cpu") {
      if (has_value) return Bad(item, "takes no value");
      d.ftz_types = DefaultFtzTypes();
      d.fast_min_max = true;
      d.fma_contraction = true;
      d.nan_canonical_types = DefaultNanCanonicalTypes();
    } else if (key == "ftz") {
      if (!has_value) {
        d.ftz_types = DefaultFtzTypes();
        continue;
      }
      for (absl::string_view name : absl::StrSplit(value, '+')) {
        auto t = ParsePrimitiveType(name);
        if (!t.ok() || !IsFloat(*t)) {
          return Bad(item, absl::StrCat("'", name, "' is not a float type"));
        }
        d.ftz_types.insert(*t);
      }
    } else if (key == "dot-input") {
      if (value == "tf32") {
        d.dot_input_tf32 = true;
      } else if (value == "bf16") {
        d.dot_input = PrimitiveType::kBF16;
      } else if (value == "f16") {
        d.dot_input = PrimitiveType::kF16;
      } else {
        return Bad(item, "expected tf32, bf16 or f16");
      }
    } else if (key == "dot-accumulation") {
      auto t = ParsePrimitiveType(value);
      if (!t.ok() || !IsFloat(*t)) return Bad(item, "expected a float type");
      d.dot_accumulation = *t;
    } else if (key == "truncating-accumulation") {
      d.truncating_accumulation = true;
    } else if (key == "fast-min-max") {
      d.fast_min_max = true;
    } else if (key == "divide-ulp") {
      double n;
      if (!absl::SimpleAtod(value, &n) || !(n > 0) || n > 16) {
        return Bad(item, "expected a number of ulps in (0, 16]");
      }
      d.divide_ulps = n;
    } else if (key == "saturating-f8") {
      d.saturating_f8 = true;
    } else if (key == "fma-contraction") {
      d.fma_contraction = true;
    } else if (key == "nan-canonical") {
      if (!has_value) {
        d.nan_canonical_types = DefaultNanCanonicalTypes();
        continue;
      }
      for (absl::string_view name : absl::StrSplit(value, '+')) {
        auto t = ParsePrimitiveType(name);
        if (!t.ok() || !IsFloat(*t)) {
          return Bad(item, absl::StrCat("'", name, "' is not a float type"));
        }
        d.nan_canonical_types.insert(*t);
      }
    } else {
      return Bad(item, "unknown deviation");
    }
  }
  return d;
}

}  // namespace hloref::conformance
