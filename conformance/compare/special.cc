// The special-value, NaN and signed-zero policy of docs/numerics.md 7.5,
// applied before every mode, and the CLASS and ANY modes (7.2).
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "conformance/compare/verdict.h"
#include "spec/types/literal.h"
#include "spec/types/minifloat.h"

namespace hloref::conformance {
namespace {

enum class ValueClass { kNan, kPosInf, kNegInf, kZero, kPositive, kNegative };

ValueClass ClassOf(double v) {
  if (std::isnan(v)) return ValueClass::kNan;
  if (std::isinf(v)) return v > 0 ? ValueClass::kPosInf : ValueClass::kNegInf;
  if (v == 0) return ValueClass::kZero;
  return v > 0 ? ValueClass::kPositive : ValueClass::kNegative;
}

absl::string_view ClassName(ValueClass c) {
  switch (c) {
    case ValueClass::kNan:
      return "NaN";
    case ValueClass::kPosInf:
      return "+inf";
    case ValueClass::kNegInf:
      return "-inf";
    case ValueClass::kZero:
      return "zero";
    case ValueClass::kPositive:
      return "positive finite";
    case ValueClass::kNegative:
      return "negative finite";
  }
  return "?";
}

Judgement Fail(std::string why, double ulp_distance) {
  Judgement j;
  j.pass = false;
  j.why = std::move(why);
  j.ulp_distance = ulp_distance;
  return j;
}

}  // namespace

absl::string_view VerdictKindName(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::kExact:
      return "EXACT";
    case VerdictKind::kRounded:
      return "ROUNDED";
    case VerdictKind::kBounded:
      return "BOUNDED";
    case VerdictKind::kSet:
      return "SET";
    case VerdictKind::kClass:
      return "CLASS";
    case VerdictKind::kAny:
      return "ANY";
  }
  return "?";
}

double BitsToDouble(PrimitiveType type, uint64_t bits) {
  if (const FloatFormat* f = FindFloatFormat(type)) {
    return DecodeFloat(*f, bits);
  }
  if (IsSignedInt(type)) {
    const int w = BitWidth(type);
    if (w < 64 && (bits >> (w - 1)) & 1) {
      bits |= ~uint64_t{0} << w;  // sign-extend
    }
    return static_cast<double>(static_cast<int64_t>(bits));
  }
  return static_cast<double>(bits);
}

uint64_t DoubleToBits(PrimitiveType type, double value) {
  if (const FloatFormat* f = FindFloatFormat(type)) {
    return EncodeFloat(*f, value);
  }
  return static_cast<uint64_t>(static_cast<int64_t>(value));
}

bool IsNanBits(PrimitiveType type, uint64_t bits) {
  const FloatFormat* f = FindFloatFormat(type);
  return f != nullptr && IsNanEncoding(*f, bits);
}

std::string ValueText(PrimitiveType type, uint64_t bits) {
  if (IsFloat(type)) {
    return FormatFloatForType(type, BitsToDouble(type, bits), bits);
  }
  if (IsPred(type)) return bits ? "true" : "false";
  if (IsSignedInt(type)) {
    return absl::StrCat(static_cast<int64_t>(BitsToDouble(type, bits)));
  }
  return absl::StrCat(bits);
}

Judgement Judge(const ElementVerdict& v, uint64_t got_bits) {
  if (v.kind == VerdictKind::kAny) {
    Judgement j;
    j.masked = true;
    return j;
  }
  if (!IsFloat(v.type)) {
    // pred and integers: every mode is exact (numerics.md 7.3 class E).
    if (got_bits == v.bits) return Judgement{};
    if (v.kind == VerdictKind::kSet) return JudgeSet(v, 0, got_bits);
    return Fail(absl::StrCat("integer value differs (", v.rule, ")"),
                std::fabs(BitsToDouble(v.type, got_bits) -
                          BitsToDouble(v.type, v.bits)));
  }
  const FloatFormat& format = FormatOf(v.type);
  const double got = BitsToDouble(v.type, got_bits);
  const bool want_nan = std::isnan(v.y);
  const bool got_nan = std::isnan(got);
  if (v.kind == VerdictKind::kClass) return JudgeClass(v, got, got_bits);
  if (v.kind == VerdictKind::kSet) return JudgeSet(v, got, got_bits);
  // 7.5: NaN expected -> any NaN, unless the op preserves payloads.
  if (want_nan) {
    if (!got_nan) {
      return Fail(
          absl::StrCat("NaN required, got ", ValueText(v.type, got_bits)),
          std::numeric_limits<double>::infinity());
    }
    if (v.nan_payload_significant && got_bits != v.bits) {
      return Fail("NaN payload or sign differs (the op preserves NaN bits)", 0);
    }
    return Judgement{};
  }
  const bool y_at_overflow =
      std::isinf(v.y) || std::fabs(v.y) >= MaxFinite(format);
  if (got_nan) {
    // Overflow into a type without infinity under the non-saturating
    // convention gives NaN (7.5).
    if (v.overflow_ok && !format.has_infinity && y_at_overflow) {
      return Judgement{};
    }
    return Fail(
        absl::StrCat("NaN where ", ValueText(v.type, v.bits), " was required"),
        std::numeric_limits<double>::infinity());
  }
  if (v.overflow_ok && std::isinf(got) &&
      std::signbit(got) == std::signbit(v.y) && y_at_overflow) {
    return Judgement{};
  }
  if (v.underflow_ok && got == 0 && std::fabs(v.y) < MinNormal(format)) {
    return Judgement{};
  }
  switch (v.kind) {
    case VerdictKind::kExact:
      return JudgeExact(v, got, got_bits);
    case VerdictKind::kRounded:
      return JudgeRounded(v, got, got_bits);
    case VerdictKind::kBounded:
      return JudgeBounded(v, got, got_bits);
    default:
      break;
  }
  return Fail("internal: unhandled verdict kind", 0);
}

Judgement JudgeClass(const ElementVerdict& v, double got, uint64_t got_bits) {
  const ValueClass want = ClassOf(v.y);
  const ValueClass have = ClassOf(got);
  if (want == have) return Judgement{};
  Judgement j;
  j.pass = false;
  j.ulp_distance = std::numeric_limits<double>::infinity();
  j.why =
      absl::StrCat("class ", ClassName(have), " (", ValueText(v.type, got_bits),
                   ") where ", ClassName(want), " was required");
  return j;
}

}  // namespace hloref::conformance
