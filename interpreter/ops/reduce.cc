// The reduce family: map, reduce, reduce-window, select-and-scatter (and
// scan, evaluated in interpreter/ops/scan.cc).
// Semantics: seed 001 "Map", "Reduce" (incl. "Variadic Reduce"),
// "ReduceWindow", "SelectAndScatter".
//
// Reducers. The computation is arbitrary; the common single-operand ones
// (a root add/multiply/maximum/minimum/and/or of the two parameters) are
// recognised and evaluated directly, everything else is called through
// EvalContext::Call in the sequential order the seed uses to define
// variadic reduce (f(...f(f(init, x0), x1)...), elements in row-major order
// over the reduced dimensions or the window).
//  - float add: the exact sum of init and the elements rounded once
//    (numerics.md decision 4); complex add: the same per component.
//  - float multiply: the sequential product, each step rounded to the
//    element type (IEEE multiplication; the oracle's own error is at most
//    gamma_m(u_T)|y|, see the error data below).
//  - maximum / minimum: XLA's non-fast semantics (XlaMax/XlaMin: NaN
//    propagates, -0 < +0), exact and order-independent.
//  - integers: two's-complement wrap for add/multiply, exact.
// Error data (with compute_error_data, float and complex results):
//   add:      S = |init| + sum |x_i| (rounded up), m = number of elements
//             (addends including init, minus one)
//   multiply: S = |oracle value|, m = number of elements (factors
//             including init, minus one); the comparator's relative bound
//             ((1+u)^m - 1) S must be doubled for the oracle's own
//             sequential rounding
//   max/min:  S = |value|, m = 0 (exact)
//   other reducers: S = NaN, m = -1 (no bound derivable: ANY unless the
//             test data is exact)
// reduce-window visits only window positions that fall on the operand
// (padding and base-dilation holes are skipped, i.e. they act as init;
// impl.reduce-window.1: with a non-identity init the result differs from
// padding with init values, as XLA's evaluator does).
#include "interpreter/ops/reduce.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "interpreter/dynamic_sizes.h"
#include "interpreter/index_util.h"
#include "interpreter/numerics.h"
#include "interpreter/ops/control_flow.h"
#include "interpreter/ops/convert.h"
#include "interpreter/ops/dot.h"
#include "interpreter/ops/exact_sum.h"
#include "interpreter/ops/families.h"
#include "interpreter/ops/fast_round.h"
#include "interpreter/ops/parallel.h"
#include "interpreter/ops/window_plan.h"
#include "spec/types/minifloat.h"

namespace hloref {

// Max (is_max) or min of x[0, n), n >= 1, with whether a +0 and a -0
// occur; false when an element is NaN. Eight lanes (AVX2 and baseline
// clones); comparisons only, so the value is one of the elements.
struct MinMaxF32Result {
  float value;
  bool positive_zero, negative_zero;
};
typedef float MinMaxF8 __attribute__((vector_size(32)));
typedef int32_t MinMaxI8 __attribute__((vector_size(32)));
__attribute__((target_clones("avx2", "default"))) bool MinMaxF32(
    const float* x, int64_t n, bool is_max, MinMaxF32Result* out) {
  const float start = is_max ? -INFINITY : INFINITY;
  MinMaxF8 m = {start, start, start, start, start, start, start, start};
  MinMaxI8 nan = {0, 0, 0, 0, 0, 0, 0, 0};
  MinMaxI8 pz = nan, nz = nan;
  const MinMaxI8 zero_bits = nan;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    MinMaxF8 v;
    __builtin_memcpy(&v, x + i, sizeof v);
    nan |= v != v;
    m = is_max ? (v > m ? v : m) : (v < m ? v : m);
    const MinMaxI8 zero = v == 0;
    const MinMaxI8 bits = (MinMaxI8)v;
    pz |= zero & (bits == zero_bits);
    nz |= zero & (bits != zero_bits);
  }
  float best = start;
  bool any_nan = false, any_pz = false, any_nz = false;
  for (int j = 0; j < 8; ++j) {
    any_nan |= nan[j] != 0;
    any_pz |= pz[j] != 0;
    any_nz |= nz[j] != 0;
    best = is_max ? (m[j] > best ? m[j] : best) : (m[j] < best ? m[j] : best);
  }
  for (; i < n; ++i) {
    const float v = x[i];
    any_nan |= v != v;
    best = is_max ? (v > best ? v : best) : (v < best ? v : best);
    any_pz |= v == 0 && !std::signbit(v);
    any_nz |= v == 0 && std::signbit(v);
  }
  if (any_nan) return false;
  *out = {best, any_pz, any_nz};
  return true;
}
namespace {
std::atomic<int64_t> column_outputs_decided{0};
std::atomic<int64_t> column_outputs_undecided{0};
}  // namespace

std::atomic<int64_t> column_minmax_decided{0};
std::atomic<int64_t> column_minmax_undecided{0};

int64_t ReduceColumnMinMaxDecided() {
  return column_minmax_decided.load(std::memory_order_relaxed);
}
int64_t ReduceColumnMinMaxUndecided() {
  return column_minmax_undecided.load(std::memory_order_relaxed);
}

int64_t ReduceColumnOutputsDecided() {
  return column_outputs_decided.load(std::memory_order_relaxed);
}
int64_t ReduceColumnOutputsUndecided() {
  return column_outputs_undecided.load(std::memory_order_relaxed);
}

// Column sums of an add reducer whose reduced dimensions are not the
// innermost (a sum over dimension 0 of [rows, cols]: each output's terms
// lie a row apart). For j in [0, width): s[j] = fl(-0 + sum_r x[rows[r] +
// j]) and a[j] = fl(sum_r |x[rows[r] + j]|), two rows at a time ((x_r +
// x_{r+1}) into the chain), four columns per vector, every row read
// contiguously (before: one column at a time, gathered through an offset
// table, 2048 elements 4 KiB apart for sum_mean's sum over dimension 0,
// in the scalar two-sum). Each output is one summation tree over the -0
// start and its n terms; with the init value added afterwards, every term
// passes through fewer additions than the n + 2 leaves, so VerifiedRound(s
// + init, 0, a + |init|, ColumnSumLeaves(n)) is the correctly rounded sum
// or NaN (the a priori bound of Sum4, fast_round.h, holds for any order of
// the additions). Compiled for AVX2 and the baseline; the loads are exact.
typedef float ColumnF4 __attribute__((vector_size(16)));
typedef uint32_t ColumnU4 __attribute__((vector_size(16)));
typedef uint16_t ColumnH4 __attribute__((vector_size(8)));

// Leaves of one column's tree: the -0 start, n terms and the init value.
inline int64_t ColumnSumLeaves(int64_t n) { return n + 2; }

template <typename Load4, typename Load1>
__attribute__((always_inline)) inline void ColumnSumLoop(
    const int64_t* rows, int64_t n, int64_t width, double* s, double* a,
    Load4 load4, Load1 load1) {
  const TwoSumI4 abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  for (int64_t j = 0; j < width; ++j) {
    s[j] = kTwoSumStart;
    a[j] = 0;
  }
  int64_t r = 0;
  for (; r + 2 <= n; r += 2) {
    const int64_t o0 = rows[r], o1 = rows[r + 1];
    int64_t j = 0;
    for (; j + 4 <= width; j += 4) {
      TwoSumV4 v0, v1, sv, av;
      load4(o0 + j, &v0);
      load4(o1 + j, &v1);
      __builtin_memcpy(&sv, s + j, sizeof sv);
      __builtin_memcpy(&av, a + j, sizeof av);
      sv += v0 + v1;
      av += (TwoSumV4)((TwoSumI4)v0 & abs_mask) +
            (TwoSumV4)((TwoSumI4)v1 & abs_mask);
      __builtin_memcpy(s + j, &sv, sizeof sv);
      __builtin_memcpy(a + j, &av, sizeof av);
    }
    for (; j < width; ++j) {
      const double v0 = load1(o0 + j), v1 = load1(o1 + j);
      s[j] += v0 + v1;
      a[j] += std::fabs(v0) + std::fabs(v1);
    }
  }
  if (r < n) {
    const int64_t o0 = rows[r];
    for (int64_t j = 0; j < width; ++j) {
      const double v0 = load1(o0 + j);
      s[j] += v0;
      a[j] += std::fabs(v0);
    }
  }
}

__attribute__((target_clones("avx2", "default"))) void ColumnSumF32(
    const float* x, const int64_t* rows, int64_t n, int64_t width, double* s,
    double* a) {
  ColumnSumLoop(
      rows, n, width, s, a,
      [x](int64_t o, TwoSumV4* v) {
        ColumnF4 f;
        __builtin_memcpy(&f, x + o, sizeof f);
        *v = __builtin_convertvector(f, TwoSumV4);
      },
      [x](int64_t o) { return static_cast<double>(x[o]); });
}

__attribute__((target_clones("avx2", "default"))) void ColumnSumBf16(
    const uint16_t* x, const int64_t* rows, int64_t n, int64_t width, double* s,
    double* a) {
  ColumnSumLoop(
      rows, n, width, s, a,
      [x](int64_t o, TwoSumV4* v) {
        ColumnH4 h;
        __builtin_memcpy(&h, x + o, sizeof h);
        const ColumnU4 u = __builtin_convertvector(h, ColumnU4) << 16;
        *v = __builtin_convertvector((ColumnF4)u, TwoSumV4);
      },
      [x](int64_t o) {
        const uint32_t bits = static_cast<uint32_t>(x[o]) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return static_cast<double>(f);
      });
}

__attribute__((target_clones("avx2", "default"))) void ColumnSumF64(
    const double* x, const int64_t* rows, int64_t n, int64_t width, double* s,
    double* a) {
  ColumnSumLoop(
      rows, n, width, s, a,
      [x](int64_t o, TwoSumV4* v) { __builtin_memcpy(v, x + o, sizeof *v); },
      [x](int64_t o) { return x[o]; });
}

// Column maxima (kMax) or minima of a reducer whose reduced dimensions are
// not the innermost: for j in [0, width), m[j] = the extreme of x[rows[r] +
// j] over r in [0, n), n >= 1 (comparisons only, so one of the elements),
// and flags[j] = 1 if a NaN, | 2 if a +0, | 4 if a -0 is among them (the
// caller decides the zero's sign and leaves NaN columns to the in-order
// fold, as MinMaxF32). Eight columns per vector, every row read
// contiguously; compiled for AVX2 and the baseline.
typedef uint16_t ColumnH8 __attribute__((vector_size(16)));
typedef uint32_t ColumnU8 __attribute__((vector_size(32)));

template <bool kMax, typename Load8, typename Load1>
__attribute__((always_inline)) inline void ColumnMinMaxLoop(
    const int64_t* rows, int64_t n, int64_t width, float* m, int32_t* flags,
    Load8 load8, Load1 load1) {
  const float start = kMax ? -INFINITY : INFINITY;
  for (int64_t j = 0; j < width; ++j) {
    m[j] = start;
    flags[j] = 0;
  }
  const MinMaxI8 one = {1, 1, 1, 1, 1, 1, 1, 1};
  const MinMaxI8 two = one + one, four = two + two;
  const MinMaxI8 zero_bits = {0, 0, 0, 0, 0, 0, 0, 0};
  const MinMaxI8 sign_bits = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN,
                              INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN};
  for (int64_t r = 0; r < n; ++r) {
    const int64_t o = rows[r];
    int64_t j = 0;
    for (; j + 8 <= width; j += 8) {
      MinMaxF8 v, mv;
      MinMaxI8 fv;
      load8(o + j, &v);
      __builtin_memcpy(&mv, m + j, sizeof mv);
      __builtin_memcpy(&fv, flags + j, sizeof fv);
      mv = kMax ? (v > mv ? v : mv) : (v < mv ? v : mv);
      const MinMaxI8 bits = (MinMaxI8)v;
      fv |= ((v != v) & one) | ((bits == zero_bits) & two) |
            ((bits == sign_bits) & four);
      __builtin_memcpy(m + j, &mv, sizeof mv);
      __builtin_memcpy(flags + j, &fv, sizeof fv);
    }
    for (; j < width; ++j) {
      const float v = load1(o + j);
      m[j] = kMax ? (v > m[j] ? v : m[j]) : (v < m[j] ? v : m[j]);
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      flags[j] |= (v != v ? 1 : 0) | (bits == 0 ? 2 : 0) |
                  (bits == 0x80000000u ? 4 : 0);
    }
  }
}

__attribute__((target_clones("avx2", "default"))) void ColumnMinMaxF32(
    const float* x, const int64_t* rows, int64_t n, int64_t width, bool is_max,
    float* m, int32_t* flags) {
  auto load8 = [x](int64_t o, MinMaxF8* v) {
    __builtin_memcpy(v, x + o, sizeof *v);
  };
  auto load1 = [x](int64_t o) { return x[o]; };
  if (is_max) {
    ColumnMinMaxLoop<true>(rows, n, width, m, flags, load8, load1);
  } else {
    ColumnMinMaxLoop<false>(rows, n, width, m, flags, load8, load1);
  }
}

__attribute__((target_clones("avx2", "default"))) void ColumnMinMaxBf16(
    const uint16_t* x, const int64_t* rows, int64_t n, int64_t width,
    bool is_max, float* m, int32_t* flags) {
  auto load8 = [x](int64_t o, MinMaxF8* v) {
    ColumnH8 h;
    __builtin_memcpy(&h, x + o, sizeof h);
    *v = (MinMaxF8)(__builtin_convertvector(h, ColumnU8) << 16);
  };
  auto load1 = [x](int64_t o) {
    const uint32_t bits = static_cast<uint32_t>(x[o]) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  if (is_max) {
    ColumnMinMaxLoop<true>(rows, n, width, m, flags, load8, load1);
  } else {
    ColumnMinMaxLoop<false>(rows, n, width, m, flags, load8, load1);
  }
}

namespace {

enum class ReducerKind { kGeneric, kAdd, kMultiply, kMax, kMin, kAnd, kOr };

// Recognises `f(p0, p1) = op(p0, p1)` (either operand order) on scalars of
// `type`.
ReducerKind DetectReducer(const HloComputation& comp, PrimitiveType type) {
  if (comp.num_parameters() != 2 || comp.root() == nullptr) {
    return ReducerKind::kGeneric;
  }
  const HloInstruction* root = comp.root();
  const HloInstruction* p0 = comp.parameter(0);
  const HloInstruction* p1 = comp.parameter(1);
  if (p0 == nullptr || p1 == nullptr || root->operand_count() != 2) {
    return ReducerKind::kGeneric;
  }
  for (const HloInstruction* i : {root, p0, p1}) {
    if (!i->shape().IsArray() || i->shape().rank() != 0 ||
        i->shape().element_type() != type) {
      return ReducerKind::kGeneric;
    }
  }
  const bool operands_ok = (root->operand(0) == p0 && root->operand(1) == p1) ||
                           (root->operand(0) == p1 && root->operand(1) == p0);
  if (!operands_ok) return ReducerKind::kGeneric;
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      return ReducerKind::kAdd;
    case HloOpcode::kMultiply:
      return ReducerKind::kMultiply;
    case HloOpcode::kMaximum:
      return ReducerKind::kMax;
    case HloOpcode::kMinimum:
      return ReducerKind::kMin;
    case HloOpcode::kAnd:
      return ReducerKind::kAnd;
    case HloOpcode::kOr:
      return ReducerKind::kOr;
    default:
      return ReducerKind::kGeneric;
  }
}

double RoundToType(double v, PrimitiveType t) {
  if (t == PrimitiveType::kF64) return v;
  if (t == PrimitiveType::kF32)
    return static_cast<double>(static_cast<float>(v));
  return MinifloatToDouble(t, MinifloatFromDouble(t, v));
}

// Element `i` of an array literal as a scalar literal.
Literal ScalarAt(const Literal& lit, int64_t i) {
  Literal s(Shape::Scalar(lit.element_type()));
  const int bytes = StorageBytes(lit.element_type());
  std::memcpy(s.mutable_raw().data(), lit.raw().data() + i * bytes, bytes);
  return s;
}
void CopyScalarInto(Literal& dst, int64_t i, const Literal& scalar) {
  const int bytes = StorageBytes(dst.element_type());
  std::memcpy(dst.mutable_raw().data() + i * bytes, scalar.raw().data(), bytes);
}

// Folds lists of operand elements into output elements, one output
// element at a time: Fold(out, offsets) computes
// f(...f(f(init, x[offsets[0]]), x[offsets[1]])...) for all N operands.
class Folder {
 public:
  static absl::StatusOr<Folder> Create(const HloInstruction& inst,
                                       EvalContext& ctx,
                                       const HloComputation& comp,
                                       absl::Span<const Literal* const> inputs,
                                       absl::Span<const Literal* const> inits,
                                       absl::Span<const int64_t> out_dims) {
    Folder f(inst, ctx, comp);
    f.n_ = static_cast<int64_t>(inputs.size());
    f.inputs_ = inputs;
    f.inits_ = inits;
    for (int64_t j = 0; j < f.n_; ++j) {
      if (!inputs[j]->shape().IsArray() || !inits[j]->shape().IsArray() ||
          inits[j]->element_count() != 1 ||
          inits[j]->element_type() != inputs[j]->element_type()) {
        return absl::InvalidArgumentError(absl::StrCat(
            InstructionPrefix(inst), "operand ", j,
            " and its init value do not match (is the module verified?)"));
      }
      f.outputs_.emplace_back(
          Shape::Array(inputs[j]->element_type(), out_dims));
    }
    const PrimitiveType t = inputs[0]->element_type();
    f.type_ = t;
    f.kind_ = f.n_ == 1 ? DetectReducer(comp, t) : ReducerKind::kGeneric;
    f.error_data_ =
        ctx.options().compute_error_data && (IsFloat(t) || IsComplex(t));
    const int64_t count = Product(out_dims);
    if (f.kind_ != ReducerKind::kGeneric) {
      if (IsFloat(t)) {
        if (f.kind_ == ReducerKind::kAnd || f.kind_ == ReducerKind::kOr) {
          f.kind_ = ReducerKind::kGeneric;
        } else {
          f.mode_ = Mode::kFloat;
          // f32, bf16 and f64 are read in place (no double copy of the
          // operand); other float types are loaded as doubles once.
          f.raw_ = inputs[0]->raw().data();
          if (t == PrimitiveType::kF32) {
            f.load_ = Load::kF32;
          } else if (t == PrimitiveType::kBF16) {
            f.load_ = Load::kBF16;
          } else if (t == PrimitiveType::kF64) {
            f.load_ = Load::kF64;
          } else {
            HLOREF_ASSIGN_OR_RETURN(f.fx_, LoadDoubles(*inputs[0]));
          }
          if (t == PrimitiveType::kF32 || t == PrimitiveType::kBF16 ||
              t == PrimitiveType::kF16) {
            const FloatFormat& format = FormatOf(t);
            f.fast_add_ = !f.error_data_;
            f.rounding_ =
                FastRounding{Precision(format), std::ilogb(MinNormal(format)),
                             MaxFinite(format)};
          }
          HLOREF_ASSIGN_OR_RETURN(std::vector<double> i0,
                                  LoadDoubles(*inits[0]));
          f.finit_ = i0[0];
          f.fout_.resize(static_cast<size_t>(count));
        }
      } else if (IsComplex(t)) {
        if (f.kind_ == ReducerKind::kAdd) {
          f.mode_ = Mode::kComplex;
          HLOREF_ASSIGN_OR_RETURN(f.cx_, LoadComplex(*inputs[0]));
          HLOREF_ASSIGN_OR_RETURN(auto i0, LoadComplex(*inits[0]));
          f.cinit_ = i0[0];
          f.cout_.resize(static_cast<size_t>(count));
        } else {
          f.kind_ = ReducerKind::kGeneric;
        }
      } else if (IsInteger(t) || (IsPred(t) && f.kind_ != ReducerKind::kAdd &&
                                  f.kind_ != ReducerKind::kMultiply)) {
        f.mode_ = Mode::kInt;
        HLOREF_ASSIGN_OR_RETURN(f.ix_, LoadInts(*inputs[0]));
        HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> i0, LoadInts(*inits[0]));
        f.iinit_ = i0[0];
        f.iout_.resize(static_cast<size_t>(count));
        f.unsigned_ = IsUnsignedInt(t) || IsPred(t);
      } else {
        f.kind_ = ReducerKind::kGeneric;
      }
    }
    return f;
  }

  // Whether outputs may be folded on several threads at once (FoldOn, each
  // thread with its own accumulator): the native float and integer
  // reducers without error data (which goes through the context).
  bool Parallel() const {
    return !error_data_ && (mode_ == Mode::kFloat || mode_ == Mode::kInt);
  }
  // Fold for a Parallel() folder, with the caller's accumulator.
  void FoldOn(int64_t out, absl::Span<const int64_t> offsets,
              ExactSum& scratch) {
    if (mode_ == Mode::kFloat) {
      FoldFloat(out, offsets, scratch);
    } else {
      FoldInt(out, offsets);
    }
  }

  // A maximum / minimum reducer's output over `count` consecutive f32
  // elements from `start` (MinMaxF32, eight lanes), when neither they nor
  // the init value is NaN: then XlaMax / XlaMin folded in any order give
  // the same value (the largest / smallest; at zero, +0 for maximum when
  // any zero operand is +0, -0 for minimum when any is -0). Returns false,
  // writing nothing, otherwise (which NaN comes first decides the
  // result's bits: the caller folds in order).
  bool FoldContiguousMinMax(int64_t out, int64_t start, int64_t count) {
    if (mode_ != Mode::kFloat || load_ != Load::kF32 || error_data_ ||
        (kind_ != ReducerKind::kMax && kind_ != ReducerKind::kMin) ||
        count < 1 || finit_ != finit_) {
      return false;
    }
    const bool is_max = kind_ == ReducerKind::kMax;
    MinMaxF32Result m;
    if (!MinMaxF32(reinterpret_cast<const float*>(raw_) + start, count, is_max,
                   &m)) {
      return false;
    }
    fout_[out] = WithInit(is_max, m.value, m.positive_zero, m.negative_zero);
    return true;
  }

  // Whether FoldColumnsMinMax applies: a maximum / minimum reducer on f32
  // or bf16 read in place, without error data, and an init that is not
  // NaN.
  bool ColumnsMinMax() const {
    return mode_ == Mode::kFloat && !error_data_ &&
           (load_ == Load::kF32 || load_ == Load::kBF16) &&
           (kind_ == ReducerKind::kMax || kind_ == ReducerKind::kMin) &&
           finit_ == finit_;
  }

  // A maximum / minimum reducer's outputs [out, out + width) laid out as
  // FoldColumnsPlain's: column extremes (ColumnMinMax*), combined with the
  // init value as FoldContiguousMinMax does. Columns holding a NaN are
  // appended to `undecided` (which NaN comes first decides the bits: the
  // caller folds them in order). `m` and `flags` hold width elements.
  void FoldColumnsMinMax(int64_t out, int64_t base, int64_t width,
                         absl::Span<const int64_t> rows, float* m,
                         int32_t* flags, std::vector<int64_t>& undecided) {
    const int64_t n = static_cast<int64_t>(rows.size());
    const bool is_max = kind_ == ReducerKind::kMax;
    if (load_ == Load::kF32) {
      ColumnMinMaxF32(reinterpret_cast<const float*>(raw_) + base, rows.data(),
                      n, width, is_max, m, flags);
    } else {
      ColumnMinMaxBf16(reinterpret_cast<const uint16_t*>(raw_) + base,
                       rows.data(), n, width, is_max, m, flags);
    }
    const size_t before = undecided.size();
    for (int64_t j = 0; j < width; ++j) {
      if (flags[j] & 1) {
        undecided.push_back(j);
      } else {
        fout_[out + j] =
            WithInit(is_max, m[j], (flags[j] & 2) != 0, (flags[j] & 4) != 0);
      }
    }
    const int64_t left = static_cast<int64_t>(undecided.size() - before);
    column_minmax_decided.fetch_add(width - left, std::memory_order_relaxed);
    column_minmax_undecided.fetch_add(left, std::memory_order_relaxed);
  }

  // An add reducer's output over `count` consecutive operand elements from
  // `start` (the reduced dimensions innermost): plain sums with an a priori
  // bound (SumAndAbsSum*, fast_round.h). Returns false, writing nothing,
  // when the bound cannot decide or the path does not apply; the caller
  // then folds as usual (the two-sum, then ExactSum).
  bool FoldContiguousPlain(int64_t out, int64_t start, int64_t count) {
    if (mode_ != Mode::kFloat || kind_ != ReducerKind::kAdd || !fast_add_ ||
        count >= (int64_t{1} << 20)) {
      return false;
    }
    double s, a;
    switch (load_) {
      case Load::kF32:
        SumAndAbsSumF32(reinterpret_cast<const float*>(raw_) + start, count, &s,
                        &a);
        break;
      case Load::kBF16:
        SumAndAbsSumBf16(reinterpret_cast<const uint16_t*>(raw_) + start, count,
                         &s, &a);
        break;
      case Load::kF64:
        SumAndAbsSumF64(reinterpret_cast<const double*>(raw_) + start, count,
                        &s, &a);
        break;
      case Load::kDoubles:
        SumAndAbsSumF64(fx_.data() + start, count, &s, &a);
        break;
    }
    s += finit_;
    a += std::fabs(finit_);
    const double r =
        VerifiedRound(s, 0.0, a, SumAndAbsSumLeaves(count), rounding_);
    if (std::isnan(r)) return false;
    fout_[out] = r;
    return true;
  }

  // The extreme of NaN-free elements (`value`, with whether a +0 and a -0
  // occur among them) and the init value: at zero, +0 for maximum when any
  // zero operand is +0, -0 for minimum when any is -0 (XlaMax / XlaMin
  // folded in any order).
  double WithInit(bool is_max, double value, bool positive_zero,
                  bool negative_zero) const {
    double v = is_max ? std::max<double>(value, finit_)
                      : std::min<double>(value, finit_);
    if (v == 0) {
      const bool pos = positive_zero || (finit_ == 0 && !std::signbit(finit_));
      const bool neg = negative_zero || (finit_ == 0 && std::signbit(finit_));
      v = is_max ? (pos ? 0.0 : -0.0) : (neg ? -0.0 : 0.0);
    }
    return v;
  }

  // Whether FoldColumnsPlain applies to outputs of `per_output` terms.
  bool ColumnsPlain(int64_t per_output) const {
    return mode_ == Mode::kFloat && kind_ == ReducerKind::kAdd && fast_add_ &&
           per_output < (int64_t{1} << 20);
  }

  // An add reducer's outputs [out, out + width) whose terms are the
  // operand elements base + j + rows[r] for output out + j (the kept
  // dimensions after the last reduced one are innermost in the operand):
  // column sums (ColumnSum*) with the plain sums' bound. Writes the outputs
  // the bound decides and appends the others' j to `undecided`, which the
  // caller folds as usual (the two-sum, then ExactSum). `s` and `a` hold
  // width doubles each.
  void FoldColumnsPlain(int64_t out, int64_t base, int64_t width,
                        absl::Span<const int64_t> rows, double* s, double* a,
                        std::vector<int64_t>& undecided) {
    const int64_t n = static_cast<int64_t>(rows.size());
    switch (load_) {
      case Load::kF32:
        ColumnSumF32(reinterpret_cast<const float*>(raw_) + base, rows.data(),
                     n, width, s, a);
        break;
      case Load::kBF16:
        ColumnSumBf16(reinterpret_cast<const uint16_t*>(raw_) + base,
                      rows.data(), n, width, s, a);
        break;
      case Load::kF64:
        ColumnSumF64(reinterpret_cast<const double*>(raw_) + base, rows.data(),
                     n, width, s, a);
        break;
      case Load::kDoubles:
        ColumnSumF64(fx_.data() + base, rows.data(), n, width, s, a);
        break;
    }
    const double abs_init = std::fabs(finit_);
    const int64_t leaves = ColumnSumLeaves(n);
    const size_t before = undecided.size();
    for (int64_t j = 0; j < width; ++j) {
      const double r =
          VerifiedRound(s[j] + finit_, 0.0, a[j] + abs_init, leaves, rounding_);
      if (std::isnan(r)) {
        undecided.push_back(j);
      } else {
        fout_[out + j] = r;
      }
    }
    const int64_t left = static_cast<int64_t>(undecided.size() - before);
    column_outputs_decided.fetch_add(width - left, std::memory_order_relaxed);
    column_outputs_undecided.fetch_add(left, std::memory_order_relaxed);
  }

  absl::Status Fold(int64_t out, absl::Span<const int64_t> offsets) {
    switch (mode_) {
      case Mode::kFloat:
        FoldFloat(out, offsets, sum_);
        return absl::OkStatus();
      case Mode::kComplex:
        FoldComplex(out, offsets);
        return absl::OkStatus();
      case Mode::kInt:
        FoldInt(out, offsets);
        return absl::OkStatus();
      case Mode::kGeneric:
        break;
    }
    return FoldGeneric(out, offsets);
  }

  // The result: an array, or a tuple of N arrays.
  absl::StatusOr<Literal> Finish() {
    switch (mode_) {
      case Mode::kFloat:
        return StoreDoublesReusing(outputs_[0].shape(), fout_, *ctx_);
      case Mode::kComplex:
        return StoreComplex(outputs_[0].shape(), cout_);
      case Mode::kInt:
        return StoreInts(outputs_[0].shape(), iout_);
      case Mode::kGeneric:
        break;
    }
    if (n_ == 1) return std::move(outputs_[0]);
    return Literal::MakeTuple(std::move(outputs_));
  }

 private:
  enum class Mode { kGeneric, kFloat, kComplex, kInt };
  Folder(const HloInstruction& inst, EvalContext& ctx,
         const HloComputation& comp)
      : inst_(&inst), ctx_(&ctx), comp_(&comp) {}

  // Calls fn(load) with load(o) == X(o), the type switch hoisted out of
  // the caller's loop.
  template <typename Fn>
  void WithLoader(Fn fn) const {
    switch (load_) {
      case Load::kF32:
        fn([this](int64_t o) {
          float f;
          std::memcpy(&f, raw_ + 4 * o, 4);
          return static_cast<double>(f);
        });
        return;
      case Load::kBF16:
        fn([this](int64_t o) {
          uint16_t h;
          std::memcpy(&h, raw_ + 2 * o, 2);
          const uint32_t bits = static_cast<uint32_t>(h) << 16;
          float f;
          std::memcpy(&f, &bits, 4);
          return static_cast<double>(f);
        });
        return;
      case Load::kF64:
        fn([this](int64_t o) {
          double d;
          std::memcpy(&d, raw_ + 8 * o, 8);
          return d;
        });
        return;
      case Load::kDoubles:
        fn([this](int64_t o) { return fx_[static_cast<size_t>(o)]; });
        return;
    }
  }

  void FoldFloat(int64_t out, absl::Span<const int64_t> offsets,
                 ExactSum& sum) {
    double v = finit_;
    double s = 0;
    int64_t m = 0;
    switch (kind_) {
      case ReducerKind::kAdd:
        if (fast_add_ && offsets.size() < (size_t{1} << 20)) {
          // Verified two-sum (fast_round.h); the exact sum decides when
          // the bound does not.
          double ts = kTwoSumStart, tc = 0, ta = 0;
          TwoSumStep(v, ts, tc, ta);
          WithLoader([&](auto load) {
            for (int64_t o : offsets) TwoSumStep(load(o), ts, tc, ta);
          });
          const double r = VerifiedRound(
              ts, tc, ta, static_cast<int64_t>(offsets.size()) + 1, rounding_);
          if (!std::isnan(r)) {
            v = r;
            break;
          }
        }
        sum.Clear();
        sum.Add(v);
        for (int64_t o : offsets) sum.Add(X(o));
        v = sum.RoundTo(type_);
        if (error_data_) {
          abs_.Clear();
          abs_.Add(std::fabs(finit_));
          for (int64_t o : offsets) abs_.Add(std::fabs(X(o)));
          s = abs_.RoundUpToDouble();
          m = AccumulationSteps(static_cast<int64_t>(offsets.size()) + 1,
                                /*products_rounded=*/false);
        }
        break;
      case ReducerKind::kMultiply:
        for (int64_t o : offsets) v = RoundToType(v * X(o), type_);
        s = std::fabs(v);
        m = static_cast<int64_t>(offsets.size());
        break;
      case ReducerKind::kMax:
        WithLoader([&](auto load) {
          for (int64_t o : offsets) v = XlaMax(v, load(o));
        });
        s = std::fabs(v);
        break;
      case ReducerKind::kMin:
        WithLoader([&](auto load) {
          for (int64_t o : offsets) v = XlaMin(v, load(o));
        });
        s = std::fabs(v);
        break;
      default:
        break;
    }
    fout_[out] = v;
    if (error_data_) ctx_->SetErrorData(0, out, s, m);
  }

  void FoldComplex(int64_t out, absl::Span<const int64_t> offsets) {
    sum_.Clear();
    sum2_.Clear();
    sum_.Add(cinit_.real());
    sum2_.Add(cinit_.imag());
    for (int64_t o : offsets) {
      sum_.Add(cx_[o].real());
      sum2_.Add(cx_[o].imag());
    }
    const PrimitiveType ct = ComplexComponentType(type_);
    cout_[out] = {sum_.RoundTo(ct), sum2_.RoundTo(ct)};
    if (error_data_) {
      abs_.Clear();
      abs_.Add(std::fabs(cinit_.real()));
      abs_.Add(std::fabs(cinit_.imag()));
      for (int64_t o : offsets) {
        abs_.Add(std::fabs(cx_[o].real()));
        abs_.Add(std::fabs(cx_[o].imag()));
      }
      ctx_->SetErrorData(
          0, out, abs_.RoundUpToDouble(),
          AccumulationSteps(static_cast<int64_t>(offsets.size()) + 1, false));
    }
  }

  void FoldInt(int64_t out, absl::Span<const int64_t> offsets) {
    uint64_t v = static_cast<uint64_t>(iinit_);
    for (int64_t o : offsets) {
      const uint64_t x = static_cast<uint64_t>(ix_[o]);
      switch (kind_) {
        case ReducerKind::kAdd:
          v += x;
          break;
        case ReducerKind::kMultiply:
          v *= x;
          break;
        case ReducerKind::kMax:
          v = unsigned_
                  ? std::max(v, x)
                  : static_cast<uint64_t>(std::max(static_cast<int64_t>(v),
                                                   static_cast<int64_t>(x)));
          break;
        case ReducerKind::kMin:
          v = unsigned_
                  ? std::min(v, x)
                  : static_cast<uint64_t>(std::min(static_cast<int64_t>(v),
                                                   static_cast<int64_t>(x)));
          break;
        case ReducerKind::kAnd:
          v &= x;
          break;
        case ReducerKind::kOr:
          v |= x;
          break;
        case ReducerKind::kGeneric:
          break;
      }
    }
    iout_[out] = static_cast<int64_t>(v);
  }

  absl::Status FoldGeneric(int64_t out, absl::Span<const int64_t> offsets) {
    std::vector<Literal> acc;
    acc.reserve(static_cast<size_t>(n_));
    for (int64_t j = 0; j < n_; ++j) acc.push_back(ScalarAt(*inits_[j], 0));
    std::vector<Literal> xs(static_cast<size_t>(n_));
    std::vector<const Literal*> args(static_cast<size_t>(2 * n_));
    for (int64_t o : offsets) {
      for (int64_t j = 0; j < n_; ++j) {
        xs[j] = ScalarAt(*inputs_[j], o);
        args[j] = &acc[j];
        args[n_ + j] = &xs[j];
      }
      HLOREF_ASSIGN_OR_RETURN(Literal r, ctx_->Call(*comp_, args));
      if (n_ == 1) {
        if (r.shape().IsTuple()) {
          if (r.tuple_size() != 1) return BadResult(r);
          acc[0] = std::move(r.mutable_tuple_element(0));
        } else {
          acc[0] = std::move(r);
        }
      } else {
        if (!r.shape().IsTuple() || r.tuple_size() != n_) return BadResult(r);
        std::vector<Literal> parts = r.DecomposeTuple();
        for (int64_t j = 0; j < n_; ++j) acc[j] = std::move(parts[j]);
      }
      for (int64_t j = 0; j < n_; ++j) {
        if (acc[j].element_type() != inputs_[j]->element_type() ||
            acc[j].element_count() != 1) {
          return BadResult(acc[j]);
        }
      }
    }
    for (int64_t j = 0; j < n_; ++j) CopyScalarInto(outputs_[j], out, acc[j]);
    if (ctx_->options().compute_error_data &&
        (IsFloat(type_) || IsComplex(type_))) {
      for (int64_t j = 0; j < n_; ++j) {
        ctx_->SetErrorData(j, out, std::numeric_limits<double>::quiet_NaN(),
                           -1);
      }
    }
    return absl::OkStatus();
  }

  absl::Status BadResult(const Literal& r) const {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(*inst_), "computation ", comp_->name(), " returned ",
        r.shape().ToString(), ", expected ", n_,
        " scalar(s) of the operand types (is the module verified?)"));
  }

  const HloInstruction* inst_;
  EvalContext* ctx_;
  const HloComputation* comp_;
  int64_t n_ = 0;
  absl::Span<const Literal* const> inputs_;
  absl::Span<const Literal* const> inits_;
  std::vector<Literal> outputs_;
  PrimitiveType type_ = PrimitiveType::kInvalid;
  ReducerKind kind_ = ReducerKind::kGeneric;
  Mode mode_ = Mode::kGeneric;
  bool error_data_ = false;
  bool unsigned_ = false;
  // Element o of a float operand as an exact double.
  enum class Load : uint8_t { kDoubles, kF32, kBF16, kF64 };
  double X(int64_t o) const {
    switch (load_) {
      case Load::kF32: {
        float f;
        std::memcpy(&f, raw_ + 4 * o, 4);
        return f;
      }
      case Load::kBF16: {
        uint16_t h;
        std::memcpy(&h, raw_ + 2 * o, 2);
        const uint32_t bits = static_cast<uint32_t>(h) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
      }
      case Load::kF64: {
        double d;
        std::memcpy(&d, raw_ + 8 * o, 8);
        return d;
      }
      case Load::kDoubles:
        break;
    }
    return fx_[static_cast<size_t>(o)];
  }
  Load load_ = Load::kDoubles;
  const uint8_t* raw_ = nullptr;
  bool fast_add_ = false;
  FastRounding rounding_{24, -126, 0};
  std::vector<double> fx_, fout_;
  double finit_ = 0;
  std::vector<std::complex<double>> cx_, cout_;
  std::complex<double> cinit_;
  std::vector<int64_t> ix_, iout_;
  int64_t iinit_ = 0;
  ExactSum sum_, sum2_, abs_;
};

absl::Status CheckSameDims(const HloInstruction& inst,
                           absl::Span<const Literal* const> inputs) {
  for (size_t j = 0; j < inputs.size(); ++j) {
    HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *inputs[j], j));
    if (!(inputs[j]->shape().dimensions() == inputs[0]->shape().dimensions())) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "operand ", j,
          " has dimensions different from operand 0 (is the module "
          "verified?)"));
    }
  }
  return absl::OkStatus();
}

const HloComputation* ToApply(const HloInstruction& inst) {
  return inst.to_apply();
}

absl::Status MissingComputation(const HloInstruction& inst,
                                absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(InstructionPrefix(inst), "has no ", what,
                   " computation (is the module verified?)"));
}

// The folded result of EvalReduceOp with its runtime sizes applied.
absl::StatusOr<Literal> FinishReduce(const HloInstruction& inst,
                                     const Shape& shape,
                                     const std::vector<int64_t>& kept,
                                     const std::vector<int64_t>& sizes,
                                     Folder& folder, EvalContext& ctx) {
  HLOREF_ASSIGN_OR_RETURN(Literal result, folder.Finish());
  if (!shape.is_static() || !inst.shape().IsArray() ||
      !inst.shape().is_static()) {
    std::vector<int64_t> out_sizes;
    for (int64_t d : kept) out_sizes.push_back(sizes[d]);
    if (result.shape().IsTuple() && inst.shape().IsTuple()) {
      for (int64_t j = 0; j < result.tuple_size(); ++j) {
        ApplyRuntimeSizes(inst.shape().tuple_shapes(j), out_sizes,
                          result.mutable_tuple_element(j), ctx, j);
      }
    } else {
      ApplyRuntimeSizes(inst.shape(), out_sizes, result, ctx);
    }
  }
  return result;
}

// Semantics: seed 001 "Reduce". Output element order: row-major over the
// kept dimensions; reduced elements visited row-major over the reduced
// dimensions in increasing dimension order.
// Dynamic dimensions (interpreter/dynamic_sizes.h): only valid elements
// take part (the seed's SetDimensionSize example: "padded values will be
// ignored by downstream reduction ops"); the kept dimensions keep their
// runtime sizes and padding outputs are not folded (left zero). XLA's
// dynamic padder instead fills the padding with init, which agrees
// whenever init is an identity of the reducer.
absl::StatusOr<Literal> EvalReduceOp(const HloInstruction& inst,
                                     absl::Span<const Literal* const> operands,
                                     EvalContext& ctx) {
  if (operands.size() < 2 || operands.size() % 2 != 0) {
    return ExpectOperandCount(inst, operands, 2, -1).ok()
               ? absl::InvalidArgumentError(absl::StrCat(
                     InstructionPrefix(inst),
                     "needs N operands and N init values (is the module "
                     "verified?)"))
               : ExpectOperandCount(inst, operands, 2, -1);
  }
  const HloComputation* comp = ToApply(inst);
  if (comp == nullptr) return MissingComputation(inst, "to_apply");
  const size_t n = operands.size() / 2;
  auto inputs = operands.subspan(0, n);
  auto inits = operands.subspan(n, n);
  HLOREF_RETURN_IF_ERROR(CheckSameDims(inst, inputs));
  const Shape& shape = inputs[0]->shape();
  std::vector<int64_t> reduced = inst.attrs().dimensions;
  std::sort(reduced.begin(), reduced.end());
  std::vector<bool> is_reduced(static_cast<size_t>(shape.rank()), false);
  for (int64_t d : reduced) {
    if (d < 0 || d >= shape.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "dimension ", d,
                       " is out of range (is the module verified?)"));
    }
    is_reduced[d] = true;
  }
  std::vector<int64_t> kept, out_dims;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (!is_reduced[d]) {
      kept.push_back(d);
      out_dims.push_back(shape.dimensions(d));
    }
  }
  const std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  const std::vector<int64_t> kept_off =
      DimOffsets(shape.dimensions(), strides, kept);
  // Runtime sizes: all inputs must agree on each dynamic dimension.
  std::vector<int64_t> sizes(shape.dimensions().begin(),
                             shape.dimensions().end());
  bool padded = false;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    HLOREF_ASSIGN_OR_RETURN(
        sizes[d],
        CommonRuntimeSize(inst, inputs, shape.rank(), d, shape.dimensions(d)));
    padded |= sizes[d] < shape.dimensions(d);
  }
  const std::vector<int64_t> red_off = DimOffsets(sizes, strides, reduced);
  // Kept positions that are padding (some kept index beyond its size).
  std::vector<bool> kept_padding;
  if (padded) {
    std::vector<int64_t> kept_sizes;
    for (int64_t d : kept) kept_sizes.push_back(sizes[d]);
    kept_padding.assign(kept_off.size(), false);
    std::vector<int64_t> index(kept.size(), 0);
    for (size_t i = 0; i < kept_off.size(); ++i) {
      for (size_t j = 0; j < kept.size(); ++j) {
        if (index[j] >= kept_sizes[j]) kept_padding[i] = true;
      }
      NextIndex(out_dims, absl::MakeSpan(index));
    }
  }
  HLOREF_ASSIGN_OR_RETURN(
      Folder folder, Folder::Create(inst, ctx, *comp, inputs, inits, out_dims));
  // A kept position at offset 0 (every full reduction) reads red_off
  // itself: no second offset table of the operand's size.
  const int64_t outputs = static_cast<int64_t>(kept_off.size());
  const int64_t per_output = static_cast<int64_t>(red_off.size());
  // The reduced elements of each output consecutive in the operand (the
  // reduced dimensions innermost): an add reducer tries plain sums first.
  bool contiguous = per_output > 0;
  for (int64_t r = 0; contiguous && r < per_output; ++r) {
    contiguous = red_off[static_cast<size_t>(r)] == r;
  }
  // The kept dimensions after the last reduced one (`inner` elements) are
  // innermost in the operand: output g * inner + c reads the elements
  // kept_off[g * inner] + c + red_off[r], so an add reducer sums each
  // group's outputs as columns, a row of up to `tile` of them at a time
  // (FoldColumnsPlain), and folds only the outputs it leaves undecided as
  // below. Each output's value is the correctly rounded sum either way, so
  // the tiles and their split across threads do not change the bits.
  int64_t inner = 1;
  for (int64_t d = reduced.empty() ? shape.rank() : reduced.back() + 1;
       d < shape.rank(); ++d) {
    inner *= shape.dimensions(d);
  }
  const bool min_max_columns = folder.ColumnsMinMax();
  const bool columns = !contiguous && !padded && per_output > 0 && inner >= 2 &&
                       outputs % inner == 0 &&
                       (folder.ColumnsPlain(per_output) || min_max_columns);
  if (columns) {
    const bool parallel =
        ctx.options().threads != 1 &&
        static_cast<double>(outputs) * per_output >= (1 << 20);
    const int threads = parallel ? ResolveThreads(ctx.options().threads) : 1;
    // 1024 columns (16 KiB of s and A) per pass, fewer when that leaves
    // threads without work (a multiple of the four-column vectors); a task
    // is one tile of one group, or several whole groups when they are
    // narrower than a tile (about 1024 outputs per task).
    const int64_t groups = outputs / inner;
    int64_t tile = std::min<int64_t>(1024, inner);
    if (threads > 1 && groups > 0 && groups < 4 * threads) {
      const int64_t want = (4 * threads + groups - 1) / groups;
      tile = std::min(
          tile, std::max<int64_t>(64, ((inner + want - 1) / want + 3) / 4 * 4));
    }
    const int64_t tiles = (inner + tile - 1) / tile;
    int64_t groups_per_task =
        tiles == 1 ? std::max<int64_t>(1, 1024 / inner) : 1;
    if (threads > 1) {
      groups_per_task = std::max<int64_t>(
          1, std::min(groups_per_task, groups / (4 * threads)));
    }
    const int64_t tasks = tiles == 1
                              ? (groups + groups_per_task - 1) / groups_per_task
                              : groups * tiles;
    struct ColumnWorker {
      std::vector<double> s, a;    // sums
      std::vector<float> m;        // maxima / minima
      std::vector<int32_t> flags;  // their NaN and zero flags
      std::vector<int64_t> undecided, offsets;
      ExactSum sum;
    };
    const int workers = static_cast<int>(
        std::max<int64_t>(1, std::min<int64_t>(threads, tasks)));
    std::vector<ColumnWorker> state(static_cast<size_t>(workers));
    for (ColumnWorker& w : state) {
      if (min_max_columns) {
        w.m.resize(static_cast<size_t>(tile));
        w.flags.resize(static_cast<size_t>(tile));
      } else {
        w.s.resize(static_cast<size_t>(tile));
        w.a.resize(static_cast<size_t>(tile));
      }
      w.offsets.resize(red_off.size());
    }
    // Outputs [out, out + width) of one group.
    auto fold = [&](ColumnWorker& w, int64_t out, int64_t width) {
      w.undecided.clear();
      if (min_max_columns) {
        folder.FoldColumnsMinMax(out, kept_off[static_cast<size_t>(out)], width,
                                 red_off, w.m.data(), w.flags.data(),
                                 w.undecided);
      } else {
        folder.FoldColumnsPlain(out, kept_off[static_cast<size_t>(out)], width,
                                red_off, w.s.data(), w.a.data(), w.undecided);
      }
      for (int64_t j : w.undecided) {
        const int64_t base = kept_off[static_cast<size_t>(out + j)];
        for (size_t r = 0; r < red_off.size(); ++r) {
          w.offsets[r] = base + red_off[r];
        }
        folder.FoldOn(out + j, w.offsets, w.sum);
      }
    };
    absl::Status status = ParallelForChecked(
        workers, tasks, [&] { return ctx.CheckDeadline(inst); },
        [&](int64_t task, int wi) {
          ColumnWorker& w = state[static_cast<size_t>(wi)];
          if (tiles == 1) {
            const int64_t end = std::min(groups, (task + 1) * groups_per_task);
            for (int64_t g = task * groups_per_task; g < end; ++g) {
              fold(w, g * inner, inner);
            }
          } else {
            const int64_t start = (task % tiles) * tile;
            fold(w, (task / tiles) * inner + start,
                 std::min(tile, inner - start));
          }
          return true;
        });
    HLOREF_RETURN_IF_ERROR(status);
    return FinishReduce(inst, shape, kept, sizes, folder, ctx);
  }
  if (folder.Parallel() && ctx.options().threads != 1 && outputs > 1 &&
      static_cast<double>(outputs) * per_output >= (1 << 20)) {
    // Outputs in chunks across threads: each output is folded alone
    // exactly as below, so any thread count gives the same bits.
    const int64_t chunk = std::max<int64_t>(
        1, (int64_t{1} << 16) / std::max<int64_t>(1, per_output));
    const int64_t tasks = (outputs + chunk - 1) / chunk;
    const int workers = static_cast<int>(std::max<int64_t>(
        1, std::min<int64_t>(ResolveThreads(ctx.options().threads), tasks)));
    struct Worker {
      ExactSum sum;
      std::vector<int64_t> offsets;
    };
    std::vector<Worker> state(static_cast<size_t>(workers));
    absl::Status status = ParallelForChecked(
        workers, tasks, [&] { return ctx.CheckDeadline(inst); },
        [&](int64_t task, int w) {
          Worker& me = state[static_cast<size_t>(w)];
          const int64_t end = std::min(outputs, (task + 1) * chunk);
          for (int64_t i = task * chunk; i < end; ++i) {
            if (!kept_padding.empty() && kept_padding[static_cast<size_t>(i)]) {
              continue;
            }
            if (contiguous &&
                (folder.FoldContiguousPlain(i, kept_off[static_cast<size_t>(i)],
                                            per_output) ||
                 folder.FoldContiguousMinMax(
                     i, kept_off[static_cast<size_t>(i)], per_output))) {
              continue;
            }
            if (kept_off[static_cast<size_t>(i)] == 0) {
              folder.FoldOn(i, red_off, me.sum);
              continue;
            }
            me.offsets.resize(red_off.size());
            for (size_t r = 0; r < red_off.size(); ++r) {
              me.offsets[r] = kept_off[static_cast<size_t>(i)] + red_off[r];
            }
            folder.FoldOn(i, me.offsets, me.sum);
          }
          return true;
        });
    HLOREF_RETURN_IF_ERROR(status);
    return FinishReduce(inst, shape, kept, sizes, folder, ctx);
  }
  std::vector<int64_t> offsets;
  for (size_t i = 0; i < kept_off.size(); ++i) {
    if ((i & 1023) == 0) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    if (!kept_padding.empty() && kept_padding[i]) continue;
    if (contiguous && (folder.FoldContiguousPlain(static_cast<int64_t>(i),
                                                  kept_off[i], per_output) ||
                       folder.FoldContiguousMinMax(static_cast<int64_t>(i),
                                                   kept_off[i], per_output))) {
      continue;
    }
    if (kept_off[i] == 0) {
      HLOREF_RETURN_IF_ERROR(folder.Fold(static_cast<int64_t>(i), red_off));
      continue;
    }
    offsets.resize(red_off.size());
    for (size_t r = 0; r < red_off.size(); ++r) {
      offsets[r] = kept_off[i] + red_off[r];
    }
    HLOREF_RETURN_IF_ERROR(folder.Fold(static_cast<int64_t>(i), offsets));
  }
  return FinishReduce(inst, shape, kept, sizes, folder, ctx);
}

}  // namespace

// Declared in interpreter/ops/window_plan.h.
absl::StatusOr<WindowPlan> MakeWindowPlan(const HloInstruction& inst,
                                          absl::Span<const int64_t> dims,
                                          absl::Span<const int64_t> out_dims) {
  const Window& window = inst.attrs().window;
  const size_t rank = dims.size();
  if (window.dimensions.size() != rank || out_dims.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "window has ", window.dimensions.size(),
        " dimensions, operand rank is ", rank, " (is the module verified?)"));
  }
  std::vector<int64_t> wsize(rank);
  std::vector<std::vector<int64_t>> in_index(rank);
  for (size_t d = 0; d < rank; ++d) {
    const WindowDimension& wd = window.dimensions[d];
    if (wd.stride < 1 || wd.base_dilation < 1 || wd.window_dilation < 1 ||
        wd.size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstructionPrefix(inst), "window dimension ", d,
                       " has a non-positive stride or dilation (is the module "
                       "verified?)"));
    }
    wsize[d] = wd.size;
    const int64_t dilated =
        dims[d] == 0 ? 0 : (dims[d] - 1) * wd.base_dilation + 1;
    in_index[d].assign(static_cast<size_t>(out_dims[d] * wd.size), -1);
    for (int64_t o = 0; o < out_dims[d]; ++o) {
      for (int64_t w = 0; w < wd.size; ++w) {
        const int64_t pos =
            o * wd.stride + w * wd.window_dilation - wd.padding_low;
        if (pos < 0 || pos >= dilated || pos % wd.base_dilation != 0) continue;
        in_index[d][o * wd.size + w] = pos / wd.base_dilation;
      }
    }
  }
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  WindowPlan plan;
  plan.start.push_back(0);
  if (Product(out_dims) == 0) return plan;
  std::vector<int64_t> o(rank, 0), w(rank, 0);
  do {
    if (Product(wsize) > 0) {
      std::fill(w.begin(), w.end(), 0);
      do {
        int64_t off = 0;
        bool valid = true;
        for (size_t d = 0; d < rank; ++d) {
          const int64_t idx = in_index[d][o[d] * wsize[d] + w[d]];
          if (idx < 0) {
            valid = false;
            break;
          }
          off += idx * strides[d];
        }
        if (valid) plan.offsets.push_back(off);
      } while (NextIndex(wsize, absl::MakeSpan(w)));
    }
    plan.start.push_back(static_cast<int64_t>(plan.offsets.size()));
  } while (NextIndex(out_dims, absl::MakeSpan(o)));
  return plan;
}

namespace {

// Semantics: seed 001 "ReduceWindow".
absl::StatusOr<Literal> EvalReduceWindow(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  if (operands.size() < 2 || operands.size() % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst),
                     "needs N operands and N init values (is the module "
                     "verified?)"));
  }
  const HloComputation* comp = ToApply(inst);
  if (comp == nullptr) return MissingComputation(inst, "to_apply");
  const size_t n = operands.size() / 2;
  auto inputs = operands.subspan(0, n);
  auto inits = operands.subspan(n, n);
  HLOREF_RETURN_IF_ERROR(CheckSameDims(inst, inputs));
  const Shape& out_shape =
      inst.shape().IsTuple() ? inst.shape().tuple_shapes(0) : inst.shape();
  HLOREF_ASSIGN_OR_RETURN(WindowPlan plan,
                          MakeWindowPlan(inst, inputs[0]->shape().dimensions(),
                                         out_shape.dimensions()));
  HLOREF_ASSIGN_OR_RETURN(
      Folder folder,
      Folder::Create(inst, ctx, *comp, inputs, inits, out_shape.dimensions()));
  const int64_t count = static_cast<int64_t>(plan.start.size()) - 1;
  for (int64_t i = 0; i < count; ++i) {
    if ((i & 1023) == 0) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    HLOREF_RETURN_IF_ERROR(folder.Fold(
        i, absl::MakeConstSpan(plan.offsets.data() + plan.start[i],
                               plan.offsets.data() + plan.start[i + 1])));
  }
  return folder.Finish();
}

absl::StatusOr<bool> CallPredicate(EvalContext& ctx, const HloInstruction& inst,
                                   const HloComputation& comp, const Literal& a,
                                   const Literal& b) {
  const Literal* args[] = {&a, &b};
  HLOREF_ASSIGN_OR_RETURN(Literal r, ctx.Call(comp, args));
  if (r.shape().IsTuple() && r.tuple_size() == 1) {
    Literal inner = std::move(r.mutable_tuple_element(0));
    r = std::move(inner);
  }
  if (r.element_type() != PrimitiveType::kPred || r.element_count() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "select computation ",
                     comp.name(), " returned ", r.shape().ToString(),
                     ", expected pred[] (is the module "
                     "verified?)"));
  }
  return r.data<bool>()[0];
}

// `value` converted (ConvertElementType) to the type of parameter `k` of
// `comp` when that differs (impl.select-and-scatter.2).
absl::StatusOr<Literal> AsParameterType(const Literal& value,
                                        const HloComputation& comp, int64_t k) {
  const HloInstruction* p = comp.parameter(k);
  if (p == nullptr || !p->shape().IsArray() ||
      p->shape().element_type() == value.element_type()) {
    return value;
  }
  return ConvertLiteral(value, p->shape().element_type(), nullptr);
}

// Semantics: seed 001 "SelectAndScatter". Each window's positions are
// visited in row-major order; select(current, candidate) == false moves the
// selection to the candidate. Source elements are scattered in row-major
// order, each with scatter(output[selected], source) (impl.select-and-
// scatter.1: the seed leaves the scatter order open; this is XLA's
// evaluator order). Positions on padding are never selected.
// impl.select-and-scatter.2: select or scatter computations in another
// floating-point precision than T (XLA's shape inference ignores precision;
// seed 001 gives one type): select compares the values converted to its
// parameter types; each scatter application converts output[selected] and
// the source element to its parameter types and its result back to T, so
// the running value is T (as impl.scatter.5; XLA:CPU measured the same for
// f16 and f32 operands, and keeps a bf16 running value in f32).
absl::StatusOr<Literal> EvalSelectAndScatter(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_RETURN_IF_ERROR(ExpectOperandCount(inst, operands, 3, 3));
  for (int64_t i = 0; i < 3; ++i) {
    HLOREF_RETURN_IF_ERROR(ExpectArray(inst, *operands[i], i));
  }
  const Literal& operand = *operands[0];
  const Literal& source = *operands[1];
  const Literal& init = *operands[2];
  const HloComputation* select = inst.select();
  const HloComputation* scatter = inst.scatter();
  if (select == nullptr) return MissingComputation(inst, "select");
  if (scatter == nullptr) return MissingComputation(inst, "scatter");
  if (init.element_count() != 1 ||
      source.element_type() != operand.element_type()) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst),
        "source/init_value do not match the operand (is the module "
        "verified?)"));
  }
  HLOREF_ASSIGN_OR_RETURN(WindowPlan plan,
                          MakeWindowPlan(inst, operand.shape().dimensions(),
                                         source.shape().dimensions()));
  Literal out(
      Shape::Array(operand.element_type(), operand.shape().dimensions()));
  const Literal init_scalar = ScalarAt(init, 0);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    CopyScalarInto(out, i, init_scalar);
  }
  const int64_t count = static_cast<int64_t>(plan.start.size()) - 1;
  for (int64_t i = 0; i < count; ++i) {
    if ((i & 255) == 0) HLOREF_RETURN_IF_ERROR(ctx.CheckDeadline(inst));
    const int64_t b = plan.start[i], e = plan.start[i + 1];
    if (b == e) continue;  // the window lies entirely on padding
    int64_t selected = plan.offsets[b];
    HLOREF_ASSIGN_OR_RETURN(
        Literal selected_value,
        AsParameterType(ScalarAt(operand, selected), *select, 0));
    for (int64_t k = b + 1; k < e; ++k) {
      HLOREF_ASSIGN_OR_RETURN(
          Literal candidate,
          AsParameterType(ScalarAt(operand, plan.offsets[k]), *select, 1));
      HLOREF_ASSIGN_OR_RETURN(
          bool keep,
          CallPredicate(ctx, inst, *select, selected_value, candidate));
      if (!keep) {
        selected = plan.offsets[k];
        HLOREF_ASSIGN_OR_RETURN(
            selected_value,
            AsParameterType(ScalarAt(operand, selected), *select, 0));
      }
    }
    HLOREF_ASSIGN_OR_RETURN(
        const Literal current,
        AsParameterType(ScalarAt(out, selected), *scatter, 0));
    HLOREF_ASSIGN_OR_RETURN(const Literal src,
                            AsParameterType(ScalarAt(source, i), *scatter, 1));
    const Literal* args[] = {&current, &src};
    HLOREF_ASSIGN_OR_RETURN(Literal r, ctx.Call(*scatter, args));
    if (r.shape().IsArray() && r.element_count() == 1 &&
        r.element_type() != out.element_type()) {
      HLOREF_ASSIGN_OR_RETURN(r,
                              ConvertLiteral(r, out.element_type(), nullptr));
    }
    if (r.element_type() != out.element_type() || r.element_count() != 1 ||
        !r.shape().IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstructionPrefix(inst), "scatter computation ", scatter->name(),
          " returned ", r.shape().ToString(),
          ", expected a scalar of the operand type (is the module verified?)"));
    }
    CopyScalarInto(out, selected, r);
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalReduce(const HloInstruction& inst,
                                   absl::Span<const Literal* const> operands,
                                   EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kReduce:
      return EvalReduceOp(inst, operands, ctx);
    case HloOpcode::kReduceWindow:
      return EvalReduceWindow(inst, operands, ctx);
    case HloOpcode::kSelectAndScatter:
      return EvalSelectAndScatter(inst, operands, ctx);
    case HloOpcode::kMap:
      return EvalMap(inst, operands, ctx);
    case HloOpcode::kScan:
      // interpreter/ops/scan.cc.
      return EvalScan(inst, operands, ctx);
    default:
      return InstructionUnimplemented(
          inst, absl::StrCat("the interpreter does not implement ",
                             HloOpcodeString(inst.opcode()),
                             " yet (its semantics are not in the seeds)"));
  }
}

}  // namespace hloref
