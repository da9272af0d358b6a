// The compare/select family. Implements seed 001 "Element-wise comparison
// operations" (compare with direction EQ/NE/LT/LE/GT/GE and comparison type
// FLOAT/TOTALORDER/SIGNED/UNSIGNED), "Select" and "Clamp".
#include "interpreter/ops/compare_select.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/broadcast_view.h"
#include "interpreter/ops/families.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

absl::Status TypeError(const HloInstruction& inst, PrimitiveType t,
                       absl::string_view what = "") {
  return absl::InvalidArgumentError(
      absl::StrCat("%", inst.name(), ": ", HloOpcodeString(inst.opcode()), what,
                   " does not accept element type ", PrimitiveTypeName(t)));
}

bool SameDims(const Shape& a, const Shape& b) {
  return std::equal(a.dimensions().begin(), a.dimensions().end(),
                    b.dimensions().begin(), b.dimensions().end());
}

template <typename T>
bool Apply(ComparisonDirection d, const T& a, const T& b) {
  return ApplyComparisonDirection(d, a, b);
}

// The TOTALORDER key of an encoding (numerics.md 3.6): the sign-magnitude
// bits mapped to a signed integer whose order is -NaN < -inf < ... < -0 <
// +0 < ... < +inf < +NaN; types without -0 (fnuz) map their single NaN
// (the -0 encoding) below everything; types without a sign order by bits.
int64_t TotalOrderKey(const FloatFormat& f, uint64_t bits) {
  if (!f.has_sign) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (f.total_bits - 1);
  const int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
  if ((bits & sign) == 0) return magnitude;
  if (f.nan == NanEncoding::kNegativeZero) {
    if (magnitude == 0) return std::numeric_limits<int64_t>::min();
    return -magnitude;
  }
  return -1 - magnitude;
}

template <PrimitiveType T>
void TotalOrderKeys(const Literal& lit, std::vector<int64_t>* keys) {
  const FloatFormat& f = FormatOf(T);
  auto data = lit.data<StorageType<T>>();
  keys->resize(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    (*keys)[i] = TotalOrderKey(f, FloatBits<T>(data[i]));
  }
}

// IEEE 754 comparisons of two float arrays of type T (NaN unordered, -0 ==
// +0) on their exact values, straight into the pred result: no double or
// int64 copies of the operands (24 bytes per element before).
template <PrimitiveType T>
void CompareFloatInto(ComparisonDirection d, const Literal& lhs,
                      const Literal& rhs, bool* out) {
  auto a = lhs.data<StorageType<T>>();
  auto b = rhs.data<StorageType<T>>();
  for (size_t i = 0; i < a.size(); ++i) {
    out[i] =
        ApplyComparisonDirection(d, LoadFloat<T>(a[i]), LoadFloat<T>(b[i]));
  }
}

absl::Status CompareFloat(ComparisonDirection d, const Literal& lhs,
                          const Literal& rhs, bool* out) {
  switch (lhs.element_type()) {
#define HLOREF_CASE(e)                                    \
  case PrimitiveType::e:                                  \
    CompareFloatInto<PrimitiveType::e>(d, lhs, rhs, out); \
    return absl::OkStatus();
    HLOREF_FLOAT_TYPES(HLOREF_CASE)
#undef HLOREF_CASE
    default:
      return absl::InvalidArgumentError("not a float type");
  }
}

// clamp of floats of type T in their own storage (bounds scalar or of the
// operand's shape), straight into `out`: min(max(lo, x), hi) with XLA's
// min / max, the result one of the three values; impl.clamp.1 marks where
// a NaN or zeros of both signs meet. No double copies of the operands (32
// bytes per element before).
template <PrimitiveType T>
void ClampFloatInto(const Literal& lo, const Literal& x, const Literal& hi,
                    StorageType<T>* out, EvalContext& ctx) {
  auto l = lo.data<StorageType<T>>();
  auto v = x.data<StorageType<T>>();
  auto h = hi.data<StorageType<T>>();
  const bool scalar_lo = l.size() == 1, scalar_hi = h.size() == 1;
  auto zero_tie = [](double u, double w) {
    return u == 0 && w == 0 && std::signbit(u) != std::signbit(w);
  };
  for (size_t i = 0; i < v.size(); ++i) {
    const double a = LoadFloat<T>(l[scalar_lo ? 0 : i]);
    const double b = LoadFloat<T>(h[scalar_hi ? 0 : i]);
    const double xi = LoadFloat<T>(v[i]);
    out[i] = StoreFloat<T>(XlaMin(XlaMax(a, xi), b));
    if (std::isnan(a) || std::isnan(b) || std::isnan(xi) || zero_tie(a, xi) ||
        zero_tie(b, xi) || zero_tie(a, b)) {
      ctx.MarkImplDefined(0, static_cast<int64_t>(i), "impl.clamp.1");
    }
  }
}

absl::StatusOr<std::vector<int64_t>> LoadTotalOrderKeys(const Literal& lit) {
  std::vector<int64_t> keys;
  switch (lit.element_type()) {
#define HLOREF_CASE(e)                            \
  case PrimitiveType::e:                          \
    TotalOrderKeys<PrimitiveType::e>(lit, &keys); \
    return keys;
    HLOREF_FLOAT_TYPES(HLOREF_CASE)
#undef HLOREF_CASE
    default:
      return absl::InvalidArgumentError("TOTALORDER needs a float type");
  }
}

absl::StatusOr<Literal> EvalCompare(const HloInstruction& inst,
                                    const Literal& lhs, const Literal& rhs,
                                    EvalContext& ctx) {
  const PrimitiveType t = lhs.element_type();
  const ComparisonDirection dir = inst.attrs().direction;
  ComparisonType type = inst.attrs().comparison_type;
  const size_t n = static_cast<size_t>(lhs.element_count());
  std::vector<int64_t> r(n);

  switch (KindOf(t)) {
    case TypeKind::kFloat: {
      if (type == ComparisonType::kSigned ||
          type == ComparisonType::kUnsigned) {
        return TypeError(inst, t, " with an integer comparison type");
      }
      if (type == ComparisonType::kTotalOrder) {
        // impl.compare.1: EQ/NE under TOTALORDER are bit equality after
        // the key transform (-0 != +0, NaN == the same NaN bits), XLA's
        // ComparisonExpander; the seed's wording leaves zeros and NaNs
        // open.
        HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> a,
                                LoadTotalOrderKeys(lhs));
        HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> b,
                                LoadTotalOrderKeys(rhs));
        HLOREF_ASSIGN_OR_RETURN(std::vector<double> av, LoadDoubles(lhs));
        HLOREF_ASSIGN_OR_RETURN(std::vector<double> bv, LoadDoubles(rhs));
        for (size_t i = 0; i < n; ++i) {
          r[i] = Apply(dir, a[i], b[i]);
          if ((dir == ComparisonDirection::kEq ||
               dir == ComparisonDirection::kNe) &&
              ((av[i] == 0 && bv[i] == 0) ||
               (std::isnan(av[i]) && std::isnan(bv[i])))) {
            ctx.MarkImplDefined(0, static_cast<int64_t>(i), "impl.compare.1");
          }
        }
        break;
      }
      // IEEE 754 comparisons on the exact values (NaN unordered, -0 == +0).
      if (inst.shape().is_static() && lhs.shape().is_static() &&
          !lhs.HasPadding() && !rhs.HasPadding()) {
        Literal out = ctx.NewUninitialized(inst.shape());
        HLOREF_RETURN_IF_ERROR(
            CompareFloat(dir, lhs, rhs, out.mutable_data<bool>().data()));
        return out;
      }
      HLOREF_ASSIGN_OR_RETURN(std::vector<double> a, LoadDoubles(lhs));
      HLOREF_ASSIGN_OR_RETURN(std::vector<double> b, LoadDoubles(rhs));
      for (size_t i = 0; i < n; ++i) r[i] = Apply(dir, a[i], b[i]);
      break;
    }
    case TypeKind::kComplex: {
      if (dir != ComparisonDirection::kEq && dir != ComparisonDirection::kNe) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", inst.name(), ": complex compare supports only EQ and NE"));
      }
      HLOREF_ASSIGN_OR_RETURN(auto a, LoadComplex(lhs));
      HLOREF_ASSIGN_OR_RETURN(auto b, LoadComplex(rhs));
      for (size_t i = 0; i < n; ++i) {
        const bool eq =
            a[i].real() == b[i].real() && a[i].imag() == b[i].imag();
        r[i] = dir == ComparisonDirection::kEq ? eq : !eq;
      }
      break;
    }
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: {
      if (type == ComparisonType::kDefault || type == ComparisonType::kFloat ||
          type == ComparisonType::kTotalOrder) {
        type = IsSignedInt(t) ? ComparisonType::kSigned
                              : ComparisonType::kUnsigned;
      }
      const int width = IntWidth(t);
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> a, LoadInts(lhs));
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> b, LoadInts(rhs));
      for (size_t i = 0; i < n; ++i) {
        // Re-read the bits in the requested signedness.
        const int64_t as = WrapToWidth(static_cast<uint64_t>(a[i]), width,
                                       type == ComparisonType::kSigned);
        const int64_t bs = WrapToWidth(static_cast<uint64_t>(b[i]), width,
                                       type == ComparisonType::kSigned);
        r[i] = type == ComparisonType::kSigned
                   ? Apply(dir, as, bs)
                   : Apply(dir, static_cast<uint64_t>(as),
                           static_cast<uint64_t>(bs));
      }
      break;
    }
    default:
      return TypeError(inst, t);
  }
  return StoreInts(inst.shape(), r);
}

// Elements of `from` where the predicate is `pick` (every element with a
// scalar predicate) copied into `to`, as codes of sizeof(S) bytes.
template <typename S>
void CopyWhere(const bool* p, bool scalar_pred, bool pick, const uint8_t* from,
               uint8_t* to, size_t n) {
  const S* f = reinterpret_cast<const S*>(from);
  S* t = reinterpret_cast<S*>(to);
  if (scalar_pred) {
    // n == 0: both pointers may be null, which memcpy may not take.
    if (p[0] == pick && n > 0) std::memcpy(to, from, n * sizeof(S));
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    if (p[i] == pick) t[i] = f[i];
  }
}

void CopyWhere(size_t bytes, const bool* p, bool scalar_pred, bool pick,
               const uint8_t* from, uint8_t* to, size_t n) {
  switch (bytes) {
    case 1:
      return CopyWhere<uint8_t>(p, scalar_pred, pick, from, to, n);
    case 2:
      return CopyWhere<uint16_t>(p, scalar_pred, pick, from, to, n);
    case 4:
      return CopyWhere<uint32_t>(p, scalar_pred, pick, from, to, n);
    case 8:
      return CopyWhere<uint64_t>(p, scalar_pred, pick, from, to, n);
    default:
      for (size_t i = 0; i < n; ++i) {
        if ((scalar_pred ? p[0] : p[i]) == pick) {
          std::memcpy(to + i * bytes, from + i * bytes, bytes);
        }
      }
  }
}

// Select: element bytes are copied, so no type dispatch is needed. The
// result is written over on_true or on_false when this is its last reader
// (EvalContext::TakeOperandToOverwrite: only the other operand's elements are
// then copied), else into storage every element of which is written
// (EvalContext::NewUninitialized: possibly a freed value's).
absl::StatusOr<Literal> EvalSelect(const HloInstruction& inst,
                                   const Literal& pred, const Literal& on_true,
                                   const Literal& on_false, EvalContext& ctx) {
  if (pred.element_type() != PrimitiveType::kPred) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": select predicate must be pred, got ",
                     PrimitiveTypeName(pred.element_type())));
  }
  const bool scalar_pred = pred.shape().rank() == 0;
  auto p = pred.data<bool>();
  if (on_true.shape().IsTuple() || !on_true.shape().IsArray()) {
    // Tuple select: a scalar predicate picks a whole value.
    if (!scalar_pred) {
      return absl::InvalidArgumentError(absl::StrCat(
          "%", inst.name(), ": selecting tuples needs a scalar predicate"));
    }
    return p[0] ? on_true : on_false;
  }
  if (!scalar_pred && !SameDims(pred.shape(), on_true.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(), ": predicate shape ", pred.shape().ToString(false),
        " does not match ", on_true.shape().ToString(false)));
  }
  if (!on_false.shape().IsArray() ||
      on_false.element_type() != on_true.element_type() ||
      !SameDims(on_false.shape(), on_true.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(), ": on_false ", on_false.shape().ToString(false),
        " does not match on_true ", on_true.shape().ToString(false)));
  }
  const size_t bytes =
      static_cast<size_t>(StorageBytes(on_true.element_type()));
  const size_t n = static_cast<size_t>(on_true.element_count());
  const bool fixed = inst.shape().is_static() && on_true.shape().is_static() &&
                     on_false.shape().is_static();
  if (fixed && on_true.CheckReinterpretAs(inst.shape()).ok()) {
    // k = 1: on_true given away, on_false's picked elements copied over
    // it; k = 2 the other way round. After the take the operand taken is
    // gone: only `out` and the other one are read.
    for (int64_t k = 1; k <= 2; ++k) {
      std::optional<Literal> taken = ctx.TakeOperandToOverwrite(k);
      if (!taken.has_value()) continue;
      Literal out = *std::move(taken);
      HLOREF_CHECK(out.ReinterpretAs(inst.shape()).ok());
      const Literal& other = k == 1 ? on_false : on_true;
      CopyWhere(bytes, p.data(), scalar_pred, /*pick=*/k == 2,
                other.raw().data(), out.mutable_raw().data(), n);
      return out;
    }
  }
  Literal out =
      fixed ? ctx.NewUninitialized(inst.shape()) : Literal(inst.shape());
  uint8_t* o = out.mutable_raw().data();
  CopyWhere(bytes, p.data(), scalar_pred, true, on_true.raw().data(), o, n);
  CopyWhere(bytes, p.data(), scalar_pred, false, on_false.raw().data(), o, n);
  return out;
}

// Clamp: min(max(min_value, operand), max_value) with XLA's min/max.
absl::StatusOr<Literal> EvalClamp(const HloInstruction& inst,
                                  const Literal& min_lit,
                                  const Literal& operand,
                                  const Literal& max_lit, EvalContext& ctx) {
  for (const Literal* l : {&min_lit, &max_lit}) {
    if (l->shape().rank() != 0 && !SameDims(l->shape(), operand.shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat("%", inst.name(), ": clamp bound of shape ",
                       l->shape().ToString(false), " is neither scalar nor ",
                       operand.shape().ToString(false)));
    }
  }
  const size_t n = static_cast<size_t>(operand.element_count());
  auto at = [](size_t count, size_t i) { return count == 1 ? 0 : i; };
  const PrimitiveType t = operand.element_type();
  switch (KindOf(t)) {
    case TypeKind::kFloat: {
      if (inst.shape().is_static() && operand.shape().is_static() &&
          !operand.HasPadding() && !min_lit.HasPadding() &&
          !max_lit.HasPadding() && inst.shape().element_type() == t) {
        Literal out = ctx.NewUninitialized(inst.shape());
        switch (t) {
#define HLOREF_CASE(e)                                                  \
  case PrimitiveType::e:                                                \
    ClampFloatInto<PrimitiveType::e>(                                   \
        min_lit, operand, max_lit,                                      \
        out.mutable_data<StorageType<PrimitiveType::e>>().data(), ctx); \
    return out;
          HLOREF_FLOAT_TYPES(HLOREF_CASE)
#undef HLOREF_CASE
          default:
            break;
        }
      }
      HLOREF_ASSIGN_OR_RETURN(std::vector<double> lo, LoadDoubles(min_lit));
      HLOREF_ASSIGN_OR_RETURN(std::vector<double> x, LoadDoubles(operand));
      HLOREF_ASSIGN_OR_RETURN(std::vector<double> hi, LoadDoubles(max_lit));
      std::vector<double> r(n);
      for (size_t i = 0; i < n; ++i) {
        const double a = lo[at(lo.size(), i)];
        const double b = hi[at(hi.size(), i)];
        r[i] = XlaMin(XlaMax(a, x[i]), b);
        // impl.clamp.1: NaN anywhere (or zeros of both signs) follows
        // XLA's min/max choices, which fast min/max changes.
        auto zero_tie = [](double u, double v) {
          return u == 0 && v == 0 && std::signbit(u) != std::signbit(v);
        };
        if (std::isnan(a) || std::isnan(b) || std::isnan(x[i]) ||
            zero_tie(a, x[i]) || zero_tie(b, x[i]) || zero_tie(a, b)) {
          ctx.MarkImplDefined(0, static_cast<int64_t>(i), "impl.clamp.1");
        }
      }
      return StoreDoubles(inst.shape(), r);
    }
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: {
      const bool is_signed = IsSignedInt(t);
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> lo, LoadInts(min_lit));
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> x, LoadInts(operand));
      HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> hi, LoadInts(max_lit));
      std::vector<int64_t> r(n);
      for (size_t i = 0; i < n; ++i) {
        const int64_t a = lo[at(lo.size(), i)];
        const int64_t b = hi[at(hi.size(), i)];
        if (is_signed) {
          r[i] = std::min(std::max(a, x[i]), b);
        } else {
          r[i] = static_cast<int64_t>(std::min(
              std::max(static_cast<uint64_t>(a), static_cast<uint64_t>(x[i])),
              static_cast<uint64_t>(b)));
        }
      }
      return StoreInts(inst.shape(), r);
    }
    default:
      return TypeError(inst, t);
  }
}

// The picked elements of a broadcast read in place (`view`) copied into
// `to` (n elements of S codes), block by block through a
// BroadcastView::Reader: the broadcast is never materialised.
template <typename S>
void CopyWhereFromView(const BroadcastView& view, const bool* p,
                       bool scalar_pred, bool pick, S* to, int64_t n) {
  constexpr int64_t kBlock = 2048;
  S block[kBlock];
  BroadcastView::Reader<S> reader{&view, block};
  int64_t len = 0;
  for (int64_t i = 0; i < n; i += len) {
    len = view.BlockLength(i, std::min(kBlock, n - i));
    const S* from = reader.Read(i, len);
    CopyWhere<S>(scalar_pred ? p : p + i, scalar_pred, pick,
                 reinterpret_cast<const uint8_t*>(from),
                 reinterpret_cast<uint8_t*>(to + i), static_cast<size_t>(len));
  }
}

void CopyWhereFromView(size_t bytes, const BroadcastView& view, const bool* p,
                       bool scalar_pred, bool pick, uint8_t* to, int64_t n) {
  switch (bytes) {
    case 1:
      return CopyWhereFromView<uint8_t>(view, p, scalar_pred, pick, to, n);
    case 2:
      return CopyWhereFromView<uint16_t>(view, p, scalar_pred, pick,
                                         reinterpret_cast<uint16_t*>(to), n);
    case 4:
      return CopyWhereFromView<uint32_t>(view, p, scalar_pred, pick,
                                         reinterpret_cast<uint32_t*>(to), n);
    default:
      return CopyWhereFromView<uint64_t>(view, p, scalar_pred, pick,
                                         reinterpret_cast<uint64_t*>(to), n);
  }
}

// select with on_true and / or on_false given as broadcasts read in place
// (EvalContext::OperandView, issue 16: a masked fill such as
// select(mask, scores, broadcast(-inf)) no longer materialises the
// broadcast). The operand that is not a view is taken for the result when
// it dies here; the view's picked elements are read block by block.
absl::StatusOr<Literal> EvalSelectWithViews(
    const HloInstruction& inst, const Literal& pred,
    absl::Span<const Literal* const> operands, const BroadcastView* vt,
    const BroadcastView* vf, EvalContext& ctx) {
  const Shape& st = vt != nullptr ? vt->shape : operands[1]->shape();
  const Shape& sf = vf != nullptr ? vf->shape : operands[2]->shape();
  if (pred.element_type() != PrimitiveType::kPred || !st.IsArray() ||
      !sf.IsArray() || st.element_type() != sf.element_type() ||
      !SameDims(st, sf) ||
      (pred.shape().rank() != 0 && !SameDims(pred.shape(), st))) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(),
                     ": select needs a pred predicate and on_true / "
                     "on_false of one shape and element type"));
  }
  const bool scalar_pred = pred.shape().rank() == 0;
  const bool* p = pred.data<bool>().data();
  const size_t bytes = static_cast<size_t>(StorageBytes(st.element_type()));
  const int64_t n = st.num_elements();
  // Take the operand that is not a view when it dies here.
  const int64_t plain = vt == nullptr ? 1 : (vf == nullptr ? 2 : 0);
  if (plain != 0 && operands[plain]->shape().is_static() &&
      operands[plain]->CheckReinterpretAs(inst.shape()).ok()) {
    std::optional<Literal> taken = ctx.TakeOperandToOverwrite(plain);
    if (taken.has_value()) {
      Literal out = *std::move(taken);
      HLOREF_CHECK(out.ReinterpretAs(inst.shape()).ok());
      const BroadcastView& other = plain == 1 ? *vf : *vt;
      CopyWhereFromView(bytes, other, p, scalar_pred, /*pick=*/plain == 2,
                        out.mutable_raw().data(), n);
      return out;
    }
  }
  Literal out = ctx.NewUninitialized(inst.shape());
  uint8_t* o = out.mutable_raw().data();
  for (int64_t k = 1; k <= 2; ++k) {
    const BroadcastView* v = k == 1 ? vt : vf;
    if (v != nullptr) {
      CopyWhereFromView(bytes, *v, p, scalar_pred, /*pick=*/k == 1, o, n);
    } else {
      CopyWhere(bytes, p, scalar_pred, /*pick=*/k == 1,
                operands[k]->raw().data(), o, static_cast<size_t>(n));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalCompareSelect(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kCompare: {
      if (operands.size() != 2 || !operands[0]->shape().IsArray() ||
          operands[0]->element_type() != operands[1]->element_type() ||
          !SameDims(operands[0]->shape(), operands[1]->shape())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", inst.name(),
            ": compare needs two arrays of the same shape and element type"));
      }
      return EvalCompare(inst, *operands[0], *operands[1], ctx);
    }
    case HloOpcode::kSelect: {
      if (operands.size() != 3) break;
      const BroadcastView* vt = ctx.OperandView(1);
      const BroadcastView* vf = ctx.OperandView(2);
      if (vt != nullptr || vf != nullptr) {
        return EvalSelectWithViews(inst, *operands[0], operands, vt, vf, ctx);
      }
      return EvalSelect(inst, *operands[0], *operands[1], *operands[2], ctx);
    }
    case HloOpcode::kClamp:
      if (operands.size() != 3 || !operands[1]->shape().IsArray() ||
          operands[0]->element_type() != operands[1]->element_type() ||
          operands[2]->element_type() != operands[1]->element_type()) {
        return absl::InvalidArgumentError(
            absl::StrCat("%", inst.name(),
                         ": clamp needs three arrays of one element type"));
      }
      return EvalClamp(inst, *operands[0], *operands[1], *operands[2], ctx);
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
                   " is not a compare/select op or has the wrong operands"));
}

absl::StatusOr<std::vector<int64_t>> CompareTotalOrderKeys(const Literal& lit) {
  return LoadTotalOrderKeys(lit);
}

}  // namespace hloref
