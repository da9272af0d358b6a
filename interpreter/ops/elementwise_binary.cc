// The element-wise binary family. Implements seed 001 "Element-wise binary
// arithmetic operations" (add, subtract, multiply, divide, power,
// remainder, maximum, minimum, and, or, xor, shift-left,
// shift-right-arithmetic, shift-right-logical, atan2, complex) and mulhi
// (docs/hlo-text-format.md 6.2).
//
// HLO has no implicit broadcasting: both operands have the result's
// dimensions (the verifier checks it; a mismatch here is InvalidArgument).
#include "interpreter/ops/elementwise_binary.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/broadcast_view.h"
#include "interpreter/ops/families.h"
#include "interpreter/ops/parallel.h"
#include "spec/util/status_macros.h"

namespace hloref {

namespace {
bool elementwise_fused_disabled = false;
}  // namespace

void SetElementwiseFusedPathDisabledForTesting(bool disabled) {
  elementwise_fused_disabled = disabled;
}
bool ElementwiseFusedPathDisabledForTesting() {
  return elementwise_fused_disabled;
}

namespace {

absl::Status TypeError(const HloInstruction& inst, PrimitiveType t) {
  return absl::InvalidArgumentError(
      absl::StrCat("%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
                   " does not accept element type ", PrimitiveTypeName(t)));
}

// ---- Real floats, fused: the same per-element computation as BinaryFloat
// below (LoadFloat<T> of each operand, one double operation, StoreFloat<T>)
// read from and written to the literals' storage directly, without the
// three double vectors, and split across threads in chunks of elements
// (each element is computed alone, so any thread count gives the same
// bits). Marks of maximum / minimum are collected per chunk and recorded
// afterwards on the calling thread, in element order.
constexpr int64_t kChunk = 1 << 15;

bool FusesFloat(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      return true;
    default:
      return false;
  }
}

bool MinMaxMarked(double a, double b) {
  return std::isnan(a) || std::isnan(b) ||
         (a == 0 && b == 0 && std::signbit(a) != std::signbit(b));
}

// The general path's arithmetic on double arrays: BinaryFloat runs it on
// whole operands, the fused path on the chunks where a result is NaN, so
// NaN results (their payload and sign depend on the machine code: which
// operand a commutative operation sees first, and whether an f32 -> f64 ->
// f32 round trip that quiets a signalling NaN is kept) come from the same
// code in both.
[[gnu::noinline]] void BinaryOnDoubles(HloOpcode op, const double* lhs,
                                       const double* rhs, double* r, size_t n) {
  switch (op) {
    case HloOpcode::kAdd:
      for (size_t i = 0; i < n; ++i) r[i] = lhs[i] + rhs[i];
      break;
    case HloOpcode::kSubtract:
      for (size_t i = 0; i < n; ++i) r[i] = lhs[i] - rhs[i];
      break;
    case HloOpcode::kMultiply:
      for (size_t i = 0; i < n; ++i) r[i] = lhs[i] * rhs[i];
      break;
    case HloOpcode::kDivide:
      for (size_t i = 0; i < n; ++i) r[i] = lhs[i] / rhs[i];
      break;
    case HloOpcode::kRemainder:
      // fmod is exact: the sign follows the dividend and |r| < |rhs|.
      for (size_t i = 0; i < n; ++i) r[i] = std::fmod(lhs[i], rhs[i]);
      break;
    case HloOpcode::kMaximum:
      for (size_t i = 0; i < n; ++i) r[i] = XlaMax(lhs[i], rhs[i]);
      break;
    case HloOpcode::kMinimum:
      for (size_t i = 0; i < n; ++i) r[i] = XlaMin(lhs[i], rhs[i]);
      break;
    default:
      break;
  }
}

// f32 add / subtract / multiply / divide over n elements in SIMD registers
// (GCC vector extensions, compiled for AVX2 and the baseline), in single
// precision: the scalar loop computes the double operation on the exact
// operands and rounds to f32 once more, which gives the correctly rounded
// f32 result of the exact operation (double rounding through a format of
// p' >= 2p + 2 bits is innocuous for + - * / : Figueroa, "When is double
// rounding innocuous?", 1995; 53 >= 2 * 24 + 2, subnormal results
// included, since the process never flushes them), and that is what the
// IEEE f32 operation returns. Eight lanes per vector, no conversions
// (before: f32 -> f64, the double operation, f64 -> f32, four lanes:
// about 4 instructions per element under callgrind; GCC 12 at -O2 leaves
// the scalar loop unvectorised at 15). NaN results' bits are not the
// same (they depend on the machine code either way), so a chunk with a
// NaN result is recomputed by the general path's code, as for every fused
// chunk. Returns whether a result is NaN.
typedef float F32x8 __attribute__((vector_size(32)));
typedef int32_t I32x8 __attribute__((vector_size(32)));

template <HloOpcode kOp>
__attribute__((always_inline)) inline bool F32Loop(const float* __restrict a,
                                                   const float* __restrict b,
                                                   float* __restrict r,
                                                   int64_t n) {
  I32x8 nan = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    F32x8 x, y;
    __builtin_memcpy(&x, a + i, sizeof x);
    __builtin_memcpy(&y, b + i, sizeof y);
    F32x8 v;
    if constexpr (kOp == HloOpcode::kAdd) v = x + y;
    if constexpr (kOp == HloOpcode::kSubtract) v = x - y;
    if constexpr (kOp == HloOpcode::kMultiply) v = x * y;
    if constexpr (kOp == HloOpcode::kDivide) v = x / y;
    nan |= v != v;
    __builtin_memcpy(r + i, &v, sizeof v);
  }
  bool any = false;
  for (int j = 0; j < 8; ++j) any |= nan[j] != 0;
  for (; i < n; ++i) {
    const double xd = a[i], yd = b[i];
    double v;
    if constexpr (kOp == HloOpcode::kAdd) v = xd + yd;
    if constexpr (kOp == HloOpcode::kSubtract) v = xd - yd;
    if constexpr (kOp == HloOpcode::kMultiply) v = xd * yd;
    if constexpr (kOp == HloOpcode::kDivide) v = xd / yd;
    r[i] = static_cast<float>(v);
    any |= v != v;
  }
  return any;
}

__attribute__((target_clones("avx2", "default"))) bool F32ArithmeticChunk(
    HloOpcode op, const float* a, const float* b, float* r, int64_t n) {
  switch (op) {
    case HloOpcode::kAdd:
      return F32Loop<HloOpcode::kAdd>(a, b, r, n);
    case HloOpcode::kSubtract:
      return F32Loop<HloOpcode::kSubtract>(a, b, r, n);
    case HloOpcode::kMultiply:
      return F32Loop<HloOpcode::kMultiply>(a, b, r, n);
    default:
      return F32Loop<HloOpcode::kDivide>(a, b, r, n);
  }
}

bool F32Arithmetic(HloOpcode op) {
  return op == HloOpcode::kAdd || op == HloOpcode::kSubtract ||
         op == HloOpcode::kMultiply || op == HloOpcode::kDivide;
}

// Results of elements [0, len) of one chunk into r (not aliasing a or
// b): branch-free (the compiler vectorises it). Returns whether a result
// is NaN.
template <PrimitiveType T, typename Fn>
bool FusedChunk(HloOpcode op, const StorageType<T>* __restrict ca,
                const StorageType<T>* __restrict cb,
                StorageType<T>* __restrict cr, int64_t len, Fn fn) {
  if constexpr (T == PrimitiveType::kF32) {
    if (F32Arithmetic(op)) return F32ArithmeticChunk(op, ca, cb, cr, len);
  }
  int64_t nans = 0;
  for (int64_t i = 0; i < len; ++i) {
    const double v = fn(LoadFloat<T>(ca[i]), LoadFloat<T>(cb[i]));
    cr[i] = StoreFloat<T>(v);
    nans += v != v;
  }
  return nans != 0;
}

// Elements [0, len) as the general path computes them, into r.
template <PrimitiveType T>
void GeneralChunk(HloOpcode op, const StorageType<T>* a,
                  const StorageType<T>* b, StorageType<T>* r, int64_t len) {
  const size_t n = static_cast<size_t>(len);
  std::vector<double> x(n), y(n), v(n);
  for (size_t k = 0; k < n; ++k) {
    x[k] = LoadFloat<T>(a[k]);
    y[k] = LoadFloat<T>(b[k]);
  }
  BinaryOnDoubles(op, x.data(), y.data(), v.data(), n);
  for (size_t k = 0; k < n; ++k) r[k] = StoreFloat<T>(v[k]);
}

// The fused loop. With `in_place` the result's storage is an operand's
// (out aliases lhs_lit or rhs_lit): each block of kInPlaceBlock elements
// is computed into a buffer on the stack, recomputed there by the general
// path when a result is NaN (the operands still hold their values), then
// copied over the operand's block, which no later element reads (element
// i reads only element i of each operand). maximum / minimum marks are
// then found per block before the copy (the operand given away is gone
// after the loop) and listed per chunk in `marked_at`, in element order;
// otherwise `marked` flags the chunks to look at again afterwards.
constexpr int64_t kInPlaceBlock = 1024;

// An operand given as a BroadcastView (`va` / `vb`, else null) is read
// block by block (BroadcastView::Reader: blocks of at most kInPlaceBlock
// elements that do not cross a long row of a view): in place where the
// block is part of a source row, else from a buffer on the stack holding
// the elements the materialised broadcast would hold there (a repeated
// element is written once per row, or once for a scalar). Each block is
// computed as the unblocked loop computes it from the materialised
// operands (FusedChunk, and GeneralChunk over the same block when a
// result is NaN, as the in-place loop does): element i's result depends
// on element i of each operand only.
template <PrimitiveType T, typename Fn>
void FusedLoop(HloOpcode op, const Literal& lhs_lit, const Literal& rhs_lit,
               const BroadcastView* va, const BroadcastView* vb, Literal& out,
               bool in_place, int threads, bool min_max,
               std::vector<char>& marked,
               std::vector<std::vector<int64_t>>& marked_at, Fn fn) {
  using S = StorageType<T>;
  const S* a = lhs_lit.data<S>().data();
  const S* b = rhs_lit.data<S>().data();
  S* r = out.mutable_data<S>().data();
  const int64_t n = static_cast<int64_t>(out.element_count());
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  marked.assign(static_cast<size_t>(chunks), 0);
  marked_at.assign(in_place && min_max ? static_cast<size_t>(chunks) : 0, {});
  // Marks of elements [i, i + len) of an in-place maximum / minimum.
  auto list_marks = [&](int64_t c, int64_t i, int64_t len, const S* x,
                        const S* y) {
    for (int64_t k = 0; k < len; ++k) {
      if (MinMaxMarked(LoadFloat<T>(x[k]), LoadFloat<T>(y[k]))) {
        marked_at[static_cast<size_t>(c)].push_back(i + k);
      }
    }
  };
  ParallelFor(n >= 2 * kChunk ? threads : 1, chunks, [&](int64_t c, int) {
    const int64_t begin = c * kChunk;
    const int64_t end = std::min(n, begin + kChunk);
    if (va != nullptr || vb != nullptr) {
      S a_block[kInPlaceBlock];
      S b_block[kInPlaceBlock];
      S r_block[kInPlaceBlock];
      BroadcastView::Reader<S> ra{va, a_block};
      BroadcastView::Reader<S> rb{vb, b_block};
      bool any = false;
      int64_t len = 0;
      for (int64_t i = begin; i < end; i += len) {
        len = std::min(kInPlaceBlock, end - i);
        if (va != nullptr) len = va->BlockLength(i, len);
        if (vb != nullptr) len = vb->BlockLength(i, len);
        const S* x = va != nullptr ? ra.Read(i, len) : a + i;
        const S* y = vb != nullptr ? rb.Read(i, len) : b + i;
        // In place, r aliases the operand that is not a view (x or y).
        S* dst = in_place ? r_block : r + i;
        if (FusedChunk<T>(op, x, y, dst, len, fn)) {
          GeneralChunk<T>(op, x, y, dst, len);
        }
        if (min_max && in_place) {
          list_marks(c, i, len, x, y);
        } else if (min_max) {
          for (int64_t k = 0; k < len; ++k) {
            any |= MinMaxMarked(LoadFloat<T>(x[k]), LoadFloat<T>(y[k]));
          }
        }
        if (in_place) {
          std::memcpy(r + i, r_block, static_cast<size_t>(len) * sizeof(S));
        }
      }
      marked[static_cast<size_t>(c)] = any;
      return true;
    }
    if (in_place) {
      S block[kInPlaceBlock];
      for (int64_t i = begin; i < end; i += kInPlaceBlock) {
        const int64_t len = std::min(kInPlaceBlock, end - i);
        if (FusedChunk<T>(op, a + i, b + i, block, len, fn)) {
          GeneralChunk<T>(op, a + i, b + i, block, len);
        }
        if (min_max) list_marks(c, i, len, a + i, b + i);
        std::memcpy(r + i, block, static_cast<size_t>(len) * sizeof(S));
      }
      return true;
    }
    const int64_t len = end - begin;
    const bool nans =
        FusedChunk<T>(op, a + begin, b + begin, r + begin, len, fn);
    bool any = false;
    if (min_max) {
      for (int64_t i = begin; i < end; ++i) {
        any |= MinMaxMarked(LoadFloat<T>(a[i]), LoadFloat<T>(b[i]));
      }
    }
    // The chunk again as the general path computes it.
    if (nans) GeneralChunk<T>(op, a + begin, b + begin, r + begin, len);
    marked[static_cast<size_t>(c)] = any;
    return true;
  });
}

// `va` / `vb`: the operand given as a broadcast read in place
// (EvalContext::OperandView; lhs_lit / rhs_lit are then its source), or
// null.
absl::StatusOr<Literal> FusedBinaryFloat(
    const HloInstruction& inst, const Literal& lhs_lit, const Literal& rhs_lit,
    const BroadcastView* va, const BroadcastView* vb, EvalContext& ctx) {
  const HloOpcode op = inst.opcode();
  const PrimitiveType t = lhs_lit.element_type();
  const int threads = ctx.options().threads;
  const bool min_max = op == HloOpcode::kMaximum || op == HloOpcode::kMinimum;
  // The result over an operand the evaluator gives away (this is its last
  // reader: EvalContext::TakeOperandToOverwrite), else new storage. After a
  // take that operand's reference is gone: `lhs` / `rhs` point at `out`
  // instead.
  const Literal* lhs = &lhs_lit;
  const Literal* rhs = &rhs_lit;
  Literal out;
  bool in_place = false;
  for (int64_t k = 0; k < 2 && !in_place; ++k) {
    const Literal& operand = k == 0 ? lhs_lit : rhs_lit;
    if ((k == 0 ? va : vb) != nullptr) continue;  // a view's source
    if (!operand.CheckReinterpretAs(inst.shape()).ok()) continue;
    std::optional<Literal> taken = ctx.TakeOperandToOverwrite(k);
    if (!taken.has_value()) continue;
    out = *std::move(taken);
    HLOREF_CHECK(out.ReinterpretAs(inst.shape()).ok());
    (k == 0 ? lhs : rhs) = &out;
    in_place = true;
  }
  if (!in_place) out = ctx.NewUninitialized(inst.shape());
  std::vector<char> marked;
  std::vector<std::vector<int64_t>> marked_at;
  HLOREF_RETURN_IF_ERROR(ForFloatType(t, [&](auto tc) {
    constexpr PrimitiveType T = decltype(tc)::value;
    auto run = [&](auto fn) {
      FusedLoop<T>(op, *lhs, *rhs, va, vb, out, in_place, threads, min_max,
                   marked, marked_at, fn);
    };
    switch (op) {
      case HloOpcode::kAdd:
        run([](double x, double y) { return x + y; });
        break;
      case HloOpcode::kSubtract:
        run([](double x, double y) { return x - y; });
        break;
      case HloOpcode::kMultiply:
        run([](double x, double y) { return x * y; });
        break;
      case HloOpcode::kDivide:
        run([](double x, double y) { return x / y; });
        break;
      case HloOpcode::kRemainder:
        run([](double x, double y) { return std::fmod(x, y); });
        break;
      case HloOpcode::kMaximum:
        run([](double x, double y) { return XlaMax(x, y); });
        break;
      default:
        run([](double x, double y) { return XlaMin(x, y); });
        break;
    }
    if (!min_max) return;
    const char* id =
        op == HloOpcode::kMaximum ? "impl.maximum.1" : "impl.minimum.1";
    if (in_place) {
      // lhs_lit or rhs_lit was given away: the marks were listed.
      for (const std::vector<int64_t>& list : marked_at) {
        for (int64_t i : list) ctx.MarkImplDefined(0, i, id);
      }
      return;
    }
    using S = StorageType<T>;
    auto a = lhs_lit.data<S>();
    auto b = rhs_lit.data<S>();
    const int64_t n = static_cast<int64_t>(out.element_count());
    for (size_t c = 0; c < marked.size(); ++c) {
      if (!marked[c]) continue;
      const int64_t end = std::min<int64_t>(n, (int64_t(c) + 1) * kChunk);
      for (int64_t i = int64_t(c) * kChunk; i < end; ++i) {
        const S x = a[va != nullptr ? va->SourceIndex(i) : i];
        const S y = b[vb != nullptr ? vb->SourceIndex(i) : i];
        if (MinMaxMarked(LoadFloat<T>(x), LoadFloat<T>(y))) {
          ctx.MarkImplDefined(0, i, id);
        }
      }
    }
  }));
  return out;
}

// ---- Real floats: exact load, one operation in double, one rounding.
absl::StatusOr<Literal> BinaryFloat(const HloInstruction& inst,
                                    const Literal& lhs_lit,
                                    const Literal& rhs_lit, EvalContext& ctx) {
  const HloOpcode op = inst.opcode();
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> lhs, LoadDoubles(lhs_lit));
  HLOREF_ASSIGN_OR_RETURN(std::vector<double> rhs, LoadDoubles(rhs_lit));
  const size_t n = lhs.size();
  const ResultPrecision prec = PrecisionFor(inst.shape().element_type());

  if (op == HloOpcode::kComplex) {
    std::vector<std::complex<double>> r(n);
    for (size_t i = 0; i < n; ++i) r[i] = {lhs[i], rhs[i]};
    return StoreComplex(inst.shape(), r);
  }

  std::vector<double> r(n);
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
      BinaryOnDoubles(op, lhs.data(), rhs.data(), r.data(), n);
      break;
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: {
      // impl.maximum.1 / impl.minimum.1: NaN-propagating, -0 < +0 (XLA's
      // non-fast min/max). Fast min/max and older XLA differ when an
      // operand is NaN or the operands are zeros of different signs.
      BinaryOnDoubles(op, lhs.data(), rhs.data(), r.data(), n);
      const char* id =
          op == HloOpcode::kMaximum ? "impl.maximum.1" : "impl.minimum.1";
      for (size_t i = 0; i < n; ++i) {
        if (MinMaxMarked(lhs[i], rhs[i])) {
          ctx.MarkImplDefined(0, static_cast<int64_t>(i), id);
        }
      }
      break;
    }
    case HloOpcode::kPower:
      // Correctly rounded pow with C Annex F special cases
      // (numerics.md 3.4): pow(x, +-0) = 1 even for NaN x, pow(1, y) = 1.
      for (size_t i = 0; i < n; ++i) {
        r[i] = EvalMath2(MathFn2::kPow, lhs[i], rhs[i], prec);
      }
      break;
    case HloOpcode::kAtan2:
      for (size_t i = 0; i < n; ++i) {
        r[i] = EvalMath2(MathFn2::kAtan2, lhs[i], rhs[i], prec);
      }
      break;
    default:
      return TypeError(inst, lhs_lit.element_type());
  }
  return StoreDoubles(inst.shape(), r);
}

// ---- Integers and pred (pred: add is logical or, multiply is and,
// maximum/minimum are or/and; the verifier refuses the other arithmetic).
absl::StatusOr<Literal> BinaryInt(const HloInstruction& inst,
                                  const Literal& lhs_lit,
                                  const Literal& rhs_lit, EvalContext& ctx) {
  const HloOpcode op = inst.opcode();
  const PrimitiveType t = lhs_lit.element_type();
  const int width = IntWidth(t);
  const bool is_signed = IsSignedInt(t);
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  // The most negative value of the type (signed types only).
  const int64_t int_min = WrapToWidth(uint64_t{1} << (width - 1), width, true);
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> lhs, LoadInts(lhs_lit));
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> rhs, LoadInts(rhs_lit));
  const size_t n = lhs.size();
  std::vector<int64_t> r(n);
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto s = [](uint64_t v) { return static_cast<int64_t>(v); };

  switch (op) {
    case HloOpcode::kAdd:
      if (t == PrimitiveType::kPred) {
        // pred add is logical or (true + true = true), as StableHLO
        // specifies for booleans and XLA:CPU computes (checked on jaxlib
        // 0.10.2); a 1-bit wrap would give false.
        for (size_t i = 0; i < n; ++i) r[i] = (lhs[i] | rhs[i]) & 1;
        break;
      }
      // Two's-complement wrap (the store wraps to the width).
      for (size_t i = 0; i < n; ++i) r[i] = s(u(lhs[i]) + u(rhs[i]));
      break;
    case HloOpcode::kSubtract:
      for (size_t i = 0; i < n; ++i) r[i] = s(u(lhs[i]) - u(rhs[i]));
      break;
    case HloOpcode::kMultiply:
      for (size_t i = 0; i < n; ++i) r[i] = s(u(lhs[i]) * u(rhs[i]));
      break;
    case HloOpcode::kDivide:
      // Seed: division by zero and INT_MIN / -1 are implementation-defined.
      // impl.divide.1: x / 0 = -1 (all ones). impl.divide.2: INT_MIN / -1 =
      // INT_MIN. Otherwise truncating division.
      for (size_t i = 0; i < n; ++i) {
        if (rhs[i] == 0) {
          r[i] = -1;
          ctx.MarkImplDefined(0, static_cast<int64_t>(i), "impl.divide.1");
        } else if (is_signed && lhs[i] == int_min && rhs[i] == -1) {
          r[i] = int_min;
          ctx.MarkImplDefined(0, static_cast<int64_t>(i), "impl.divide.2");
        } else if (is_signed) {
          r[i] = lhs[i] / rhs[i];
        } else {
          r[i] = s(u(lhs[i]) / u(rhs[i]));
        }
      }
      break;
    case HloOpcode::kRemainder:
      // impl.remainder.1: x % 0 = x. impl.remainder.2: INT_MIN % -1 = 0.
      // Otherwise the sign follows the dividend (C %).
      for (size_t i = 0; i < n; ++i) {
        if (rhs[i] == 0) {
          r[i] = lhs[i];
          ctx.MarkImplDefined(0, static_cast<int64_t>(i), "impl.remainder.1");
        } else if (is_signed && lhs[i] == int_min && rhs[i] == -1) {
          r[i] = 0;
          ctx.MarkImplDefined(0, static_cast<int64_t>(i), "impl.remainder.2");
        } else if (is_signed) {
          r[i] = lhs[i] % rhs[i];
        } else {
          r[i] = s(u(lhs[i]) % u(rhs[i]));
        }
      }
      break;
    case HloOpcode::kMaximum:
      for (size_t i = 0; i < n; ++i) {
        r[i] = is_signed ? std::max(lhs[i], rhs[i])
                         : s(std::max(u(lhs[i]), u(rhs[i])));
      }
      break;
    case HloOpcode::kMinimum:
      for (size_t i = 0; i < n; ++i) {
        r[i] = is_signed ? std::min(lhs[i], rhs[i])
                         : s(std::min(u(lhs[i]), u(rhs[i])));
      }
      break;
    case HloOpcode::kAnd:
      for (size_t i = 0; i < n; ++i) r[i] = lhs[i] & rhs[i];
      break;
    case HloOpcode::kOr:
      for (size_t i = 0; i < n; ++i) r[i] = lhs[i] | rhs[i];
      break;
    case HloOpcode::kXor:
      for (size_t i = 0; i < n; ++i) r[i] = lhs[i] ^ rhs[i];
      break;
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kShiftRightArithmetic: {
      // The amount is read as unsigned (a negative amount is huge); an
      // amount >= the width gives 0, or the sign fill for arithmetic shifts
      // (impl.shift-left.1, impl.shift-right-logical.1,
      // impl.shift-right-arithmetic.1).
      const char* id = op == HloOpcode::kShiftLeft
                           ? "impl.shift-left.1"
                           : (op == HloOpcode::kShiftRightLogical
                                  ? "impl.shift-right-logical.1"
                                  : "impl.shift-right-arithmetic.1");
      for (size_t i = 0; i < n; ++i) {
        const uint64_t amount = u(rhs[i]) & mask;
        const int64_t as_signed = WrapToWidth(u(lhs[i]), width, true);
        if (amount >= static_cast<uint64_t>(width)) {
          ctx.MarkImplDefined(0, static_cast<int64_t>(i), id);
          r[i] = (op == HloOpcode::kShiftRightArithmetic && as_signed < 0) ? -1
                                                                           : 0;
          continue;
        }
        switch (op) {
          case HloOpcode::kShiftLeft:
            r[i] = s(u(lhs[i]) << amount);
            break;
          case HloOpcode::kShiftRightLogical:
            r[i] = s((u(lhs[i]) & mask) >> amount);
            break;
          default:
            // Arithmetic shift of the width's two's-complement value,
            // also for unsigned types (their bits are shifted with sign
            // fill).
            r[i] = as_signed >> amount;
            break;
        }
      }
      break;
    }
    case HloOpcode::kPower:
      // impl.power.1: a negative exponent gives 1 for base 1, else 0 (so
      // (-1)^-1 = 0). impl.power.2: square-and-multiply over the low 6 bits
      // of the exponent only (b^e computed as b^(e mod 64), wrapping).
      for (size_t i = 0; i < n; ++i) {
        const int64_t b = lhs[i];
        const int64_t e = rhs[i];
        if (is_signed && e < 0) {
          r[i] = b == 1 ? 1 : 0;
          ctx.MarkImplDefined(0, static_cast<int64_t>(i), "impl.power.1");
          continue;
        }
        if (u(e) >= 64) {
          ctx.MarkImplDefined(0, static_cast<int64_t>(i), "impl.power.2");
        }
        uint64_t result = 1;
        uint64_t base = u(b);
        for (int bit = 0; bit < 6; ++bit) {
          if ((u(e) >> bit) & 1) result *= base;
          base *= base;
        }
        r[i] = s(result);
      }
      break;
    case HloOpcode::kMulhi:
      // The high `width` bits of the full 2*width-bit product.
      for (size_t i = 0; i < n; ++i) {
        if (is_signed) {
          const __int128 p =
              static_cast<__int128>(lhs[i]) * static_cast<__int128>(rhs[i]);
          r[i] = static_cast<int64_t>(p >> width);
        } else {
          const unsigned __int128 p =
              static_cast<unsigned __int128>(u(lhs[i])) * u(rhs[i]);
          r[i] = s(static_cast<uint64_t>(p >> width));
        }
      }
      break;
    default:
      return TypeError(inst, t);
  }
  return StoreInts(inst.shape(), r);
}

// ---- Complex.
using CD = std::complex<double>;
using CLD = std::complex<long double>;

// XLA's complex division: Smith's algorithm, then C99-style recovery when
// both parts came out NaN (numerics.md 3.4).
CD ComplexDivide(CD a, CD b) {
  const double ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  double re, im;
  if (std::fabs(br) < std::fabs(bi)) {
    const double ratio = br / bi;
    const double denom = br * ratio + bi;
    re = (ar * ratio + ai) / denom;
    im = (ai * ratio - ar) / denom;
  } else {
    const double ratio = bi / br;
    const double denom = bi * ratio + br;
    re = (ai * ratio + ar) / denom;
    im = (ai - ar * ratio) / denom;
  }
  if (std::isnan(re) && std::isnan(im)) {
    const double inf = std::numeric_limits<double>::infinity();
    if (br == 0 && bi == 0 && (!std::isnan(ar) || !std::isnan(ai))) {
      re = std::copysign(inf, br) * ar;
      im = std::copysign(inf, br) * ai;
    } else if ((std::isinf(ar) || std::isinf(ai)) && std::isfinite(br) &&
               std::isfinite(bi)) {
      const double a2 = std::copysign(std::isinf(ar) ? 1.0 : 0.0, ar);
      const double b2 = std::copysign(std::isinf(ai) ? 1.0 : 0.0, ai);
      re = inf * (a2 * br + b2 * bi);
      im = inf * (b2 * br - a2 * bi);
    } else if ((std::isinf(br) || std::isinf(bi)) && std::isfinite(ar) &&
               std::isfinite(ai)) {
      const double c2 = std::copysign(std::isinf(br) ? 1.0 : 0.0, br);
      const double d2 = std::copysign(std::isinf(bi) ? 1.0 : 0.0, bi);
      re = 0.0 * (ar * c2 + ai * d2);
      im = 0.0 * (ai * c2 - ar * d2);
    }
  }
  return {re, im};
}

// XLA's complex pow (numerics.md 3.4): |z|^c exp(-d arg z) (cos q + i sin q)
// with q = c arg z + d log|z|, plus x^0 = 1, 1^w = 1, 0^(c+0i) = 0 for
// c > 0 (impl.power.3 for the zero-base conventions).
CD ComplexPow(CD z, CD w) {
  const long double a = z.real(), b = z.imag(), c = w.real(), d = w.imag();
  if (c == 0 && d == 0) return {1.0, 0.0};
  if (a == 1 && b == 0) return {1.0, 0.0};
  if (a == 0 && b == 0) {
    if (d == 0 && c > 0) return {0.0, 0.0};
  }
  const long double abs = std::hypot(a, b);
  const long double arg = std::atan2(b, a);
  const long double mag = std::pow(abs, c) * std::exp(-d * arg);
  const long double q = c * arg + d * std::log(abs);
  return {static_cast<double>(mag * std::cos(q)),
          static_cast<double>(mag * std::sin(q))};
}

absl::StatusOr<Literal> BinaryComplex(const HloInstruction& inst,
                                      const Literal& lhs_lit,
                                      const Literal& rhs_lit) {
  HLOREF_ASSIGN_OR_RETURN(std::vector<CD> lhs, LoadComplex(lhs_lit));
  HLOREF_ASSIGN_OR_RETURN(std::vector<CD> rhs, LoadComplex(rhs_lit));
  const size_t n = lhs.size();
  std::vector<CD> r(n);
  switch (inst.opcode()) {
    case HloOpcode::kAdd:
      for (size_t i = 0; i < n; ++i) {
        r[i] = {lhs[i].real() + rhs[i].real(), lhs[i].imag() + rhs[i].imag()};
      }
      break;
    case HloOpcode::kSubtract:
      for (size_t i = 0; i < n; ++i) {
        r[i] = {lhs[i].real() - rhs[i].real(), lhs[i].imag() - rhs[i].imag()};
      }
      break;
    case HloOpcode::kMultiply:
      // Textbook (ac - bd) + i(ad + bc), no Annex G infinity recovery (as
      // XLA). For c64 the products are exact in double, so each part is
      // rounded once.
      for (size_t i = 0; i < n; ++i) {
        const double a = lhs[i].real(), b = lhs[i].imag();
        const double c = rhs[i].real(), d = rhs[i].imag();
        r[i] = {a * c - b * d, a * d + b * c};
      }
      break;
    case HloOpcode::kDivide:
      for (size_t i = 0; i < n; ++i) r[i] = ComplexDivide(lhs[i], rhs[i]);
      break;
    case HloOpcode::kPower:
      for (size_t i = 0; i < n; ++i) r[i] = ComplexPow(lhs[i], rhs[i]);
      break;
    default:
      return TypeError(inst, lhs_lit.element_type());
  }
  return StoreComplex(inst.shape(), r);
}

}  // namespace

absl::StatusOr<Literal> EvalElementwiseBinary(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  if (operands.size() != 2 || !operands[0]->shape().IsArray() ||
      !operands[1]->shape().IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
                     " takes two array operands"));
  }
  // Operands given as broadcasts read in place (EvalContext::OperandView):
  // read through the view by the fused loop, materialised for every other
  // path.
  const BroadcastView* va = ctx.OperandView(0);
  const BroadcastView* vb = ctx.OperandView(1);
  std::optional<Literal> lhs_copy, rhs_copy;
  if (va != nullptr || vb != nullptr) {
    const Shape& sa = va != nullptr ? va->shape : operands[0]->shape();
    const Shape& sb = vb != nullptr ? vb->shape : operands[1]->shape();
    if (sa.element_type() != sb.element_type() ||
        !std::equal(sa.dimensions().begin(), sa.dimensions().end(),
                    sb.dimensions().begin(), sb.dimensions().end())) {
      return absl::InvalidArgumentError(
          absl::StrCat("%", inst.name(), ": operands have shapes ",
                       sa.ToString(false), " and ", sb.ToString(false),
                       "; HLO element-wise ops need equal "
                       "shapes"));
    }
    if (KindOf(sa.element_type()) == TypeKind::kFloat &&
        FusesFloat(inst.opcode()) &&
        inst.shape().element_type() == sa.element_type() &&
        !ElementwiseFusedPathDisabledForTesting()) {
      return FusedBinaryFloat(inst, *operands[0], *operands[1], va, vb, ctx);
    }
    if (va != nullptr) lhs_copy = va->Materialize();
    if (vb != nullptr) rhs_copy = vb->Materialize();
  }
  const Literal& lhs = lhs_copy.has_value() ? *lhs_copy : *operands[0];
  const Literal& rhs = rhs_copy.has_value() ? *rhs_copy : *operands[1];
  if (lhs.element_type() != rhs.element_type() ||
      !std::equal(
          lhs.shape().dimensions().begin(), lhs.shape().dimensions().end(),
          rhs.shape().dimensions().begin(), rhs.shape().dimensions().end())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "%", inst.name(), ": operands have shapes ",
        lhs.shape().ToString(false), " and ", rhs.shape().ToString(false),
        "; HLO element-wise ops need equal shapes"));
  }
  switch (KindOf(lhs.element_type())) {
    case TypeKind::kFloat:
      if (FusesFloat(inst.opcode()) &&
          inst.shape().element_type() == lhs.element_type() &&
          !ElementwiseFusedPathDisabledForTesting()) {
        return FusedBinaryFloat(inst, lhs, rhs, nullptr, nullptr, ctx);
      }
      return BinaryFloat(inst, lhs, rhs, ctx);
    case TypeKind::kComplex:
      return BinaryComplex(inst, lhs, rhs);
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
      if (inst.opcode() == HloOpcode::kAtan2 ||
          inst.opcode() == HloOpcode::kComplex) {
        return TypeError(inst, lhs.element_type());
      }
      return BinaryInt(inst, lhs, rhs, ctx);
    default:
      return TypeError(inst, lhs.element_type());
  }
}

}  // namespace hloref
