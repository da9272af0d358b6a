// Element-wise comparison of golden values (see compare.h).
#include "conformance/compare/compare.h"

#include <cmath>
#include <complex>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "spec/types/minifloat.h"
#include "spec/types/primitive_type.h"
#include "spec/types/shape.h"

namespace hloref::conformance {
namespace {

// The class of a real value for CLASS comparisons.
enum class ValueClass { kNan, kPosInf, kNegInf, kZero, kPositive, kNegative };

ValueClass ClassOf(double v) {
  if (std::isnan(v)) return ValueClass::kNan;
  if (std::isinf(v)) return v > 0 ? ValueClass::kPosInf : ValueClass::kNegInf;
  if (v == 0) return ValueClass::kZero;
  return v > 0 ? ValueClass::kPositive : ValueClass::kNegative;
}

// True when the two doubles have the same bits. Every element value of
// every float type converts to double exactly, so this is bit equality of
// the elements (NaN payloads aside, which kBits compares on raw bits).
bool SameDouble(double a, double b) {
  return std::signbit(a) == std::signbit(b) &&
         (a == b || (std::isnan(a) && std::isnan(b)));
}

// One real component under `spec`; on failure sets *rule.
bool RealMatches(PrimitiveType type, double e, double g,
                 const CompareSpec& spec, std::string* rule) {
  switch (spec.kind) {
    case CompareKind::kExact:
    case CompareKind::kBits:  // payloads are checked on raw bits by caller
      if (std::isnan(e) || std::isnan(g)) {
        if (std::isnan(e) && std::isnan(g)) return true;
        *rule = std::isnan(e) ? "exact: NaN expected" : "exact: unexpected NaN";
        return false;
      }
      if (SameDouble(e, g)) return true;
      *rule = (e == g) ? "exact: zero sign differs" : "exact: values differ";
      return false;
    case CompareKind::kUlp: {
      if (std::isnan(e) || std::isnan(g)) {
        if (std::isnan(e) && std::isnan(g)) return true;
        *rule =
            absl::StrCat(spec.ToString(),
                         std::isnan(e) ? ": NaN expected" : ": unexpected NaN");
        return false;
      }
      if (std::isinf(e) || std::isinf(g)) {
        if (e == g) return true;
        *rule = absl::StrCat(spec.ToString(), ": infinity mismatch");
        return false;
      }
      double ulp = UlpOf(type, e);
      double dist = std::fabs(g - e) / ulp;
      if (dist <= spec.ulps) return true;
      *rule = absl::StrCat(spec.ToString(), ": off by ", dist,
                           " ulp (ulp = ", ulp, ")");
      return false;
    }
    case CompareKind::kClass:
      if (ClassOf(e) == ClassOf(g)) return true;
      *rule = "class: NaN/inf/zero/sign class differs";
      return false;
  }
  return false;
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

}  // namespace

std::string CompareSpec::ToString() const {
  switch (kind) {
    case CompareKind::kExact:
      return "exact";
    case CompareKind::kBits:
      return "bits";
    case CompareKind::kUlp:
      return absl::StrCat("ulp(", ulps, ")");
    case CompareKind::kClass:
      return "class";
  }
  return "?";
}

absl::StatusOr<CompareSpec> ParseCompareSpec(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  CompareSpec spec;
  if (text == "exact") return spec;
  if (text == "bits") {
    spec.kind = CompareKind::kBits;
    return spec;
  }
  if (text == "class") {
    spec.kind = CompareKind::kClass;
    return spec;
  }
  absl::string_view inner = text;
  if (absl::ConsumePrefix(&inner, "ulp(") && absl::ConsumeSuffix(&inner, ")")) {
    double n;
    if (absl::SimpleAtod(absl::StripAsciiWhitespace(inner), &n) && n >= 0 &&
        std::isfinite(n)) {
      spec.kind = CompareKind::kUlp;
      spec.ulps = n;
      return spec;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown comparison '", text,
                   "'; expected exact, bits, ulp(N) or class"));
}

double UlpOf(PrimitiveType type, double value) {
  const FloatFormat* format = FindFloatFormat(type);
  if (format == nullptr) return 1.0;  // integers: one unit
  const int p = format->mantissa_bits + 1;
  const int emin = 1 - format->bias;
  int e = emin;
  if (value != 0 && std::isfinite(value)) {
    e = std::max(static_cast<int>(std::floor(std::log2(std::fabs(value)))),
                 emin);
    // log2 can be off by one near powers of two; fix with exact scaling.
    if (std::ldexp(1.0, e) > std::fabs(value) && e > emin) --e;
    if (std::ldexp(1.0, e + 1) <= std::fabs(value)) ++e;
  }
  return std::ldexp(1.0, e - p + 1);
}

CompareOutcome CompareArrays(const Literal& expected, const Literal& got,
                             const CompareSpec& spec,
                             const Literal* dont_care) {
  CompareOutcome out;
  const Shape& es = expected.shape();
  const Shape& gs = got.shape();
  if (!es.IsArray() || !gs.IsArray() || !es.SameDimensions(gs)) {
    out.ok = false;
    out.mismatches = 1;
    out.expected = es.ToString(/*print_layout=*/false);
    out.got = gs.ToString(/*print_layout=*/false);
    out.rule = "shape: element type or dimensions differ";
    return out;
  }
  const PrimitiveType type = es.element_type();
  const bool use_mask = dont_care != nullptr && dont_care->shape().IsArray() &&
                        dont_care->element_count() == expected.element_count();
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    if (use_mask && dont_care->GetAsInt64(i) != 0) {
      ++out.masked;
      continue;
    }
    std::string rule;
    bool match;
    if (IsFloat(type)) {
      double e = expected.GetAsDouble(i);
      double g = got.GetAsDouble(i);
      match = RealMatches(type, e, g, spec, &rule);
      if (match && spec.kind == CompareKind::kBits &&
          expected.GetRawBits(i) != got.GetRawBits(i)) {
        match = false;
        rule = "bits: bit patterns differ (NaN payload or sign)";
      }
    } else if (IsComplex(type)) {
      std::complex<double> e = expected.GetAsComplex(i);
      std::complex<double> g = got.GetAsComplex(i);
      PrimitiveType part = ComplexComponentType(type);
      std::string rule_im;
      bool re = RealMatches(part, e.real(), g.real(), spec, &rule);
      bool im = RealMatches(part, e.imag(), g.imag(), spec, &rule_im);
      match = re && im;
      if (!re) rule = absl::StrCat("real part: ", rule);
      if (re && !im) rule = absl::StrCat("imaginary part: ", rule_im);
    } else {
      // pred and integers: always exact, whatever the spec says.
      match = expected.GetRawBits(i) == got.GetRawBits(i);
      if (!match) rule = "exact: integer values differ";
    }
    if (match) continue;
    if (out.ok) {
      out.ok = false;
      out.index = i;
      out.multi_index = IndexText(es, i);
      out.expected = expected.ElementToString(i);
      out.got = got.ElementToString(i);
      out.rule = rule;
    }
    ++out.mismatches;
  }
  return out;
}

}  // namespace hloref::conformance
