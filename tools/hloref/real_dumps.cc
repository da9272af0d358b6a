// Elided constants, random arguments and result summaries for modules as
// JAX and XLA dump them (see real_dumps.h).
#include "tools/hloref/real_dumps.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "spec/types/minifloat.h"

namespace hloref::tools {
namespace {

bool LiteralIsElided(const Literal& lit) {
  if (lit.is_elided()) return true;
  for (const Literal& e : lit.tuple_elements()) {
    if (LiteralIsElided(e)) return true;
  }
  return false;
}

// An inclusive integer range for integer elements.
struct IntRange {
  int64_t lo = 0;
  int64_t hi = 0;
};

// One generator per value: the seed and a stream number, so that each
// parameter (or constant) gets values independent of the others' sizes.
std::mt19937_64 StreamRng(uint64_t seed, uint64_t stream) {
  std::seed_seq seq{
      static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
      static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)};
  return std::mt19937_64(seq);
}

// Fills every element of the array literal `lit` (see DrawArguments for
// the ranges).
void DrawArray(Literal& lit, std::mt19937_64& rng,
               std::optional<IntRange> range) {
  const PrimitiveType type = lit.element_type();
  const int64_t n = lit.element_count();
  if (IsPred(type)) {
    std::bernoulli_distribution coin(0.5);
    for (int64_t i = 0; i < n; ++i) lit.SetFromInt64(i, coin(rng) ? 1 : 0);
    return;
  }
  if (IsInteger(type)) {
    IntRange r =
        range.value_or(IsSignedInt(type) ? IntRange{-8, 8} : IntRange{0, 8});
    std::uniform_int_distribution<int64_t> dist(r.lo, r.hi);
    for (int64_t i = 0; i < n; ++i) lit.SetFromInt64(i, dist(rng));
    return;
  }
  const FloatFormat* format = FindFloatFormat(type);
  const bool unsigned_float = format != nullptr && !format->has_sign;
  std::uniform_real_distribution<double> dist(unsigned_float ? 0.25 : -1.0,
                                              unsigned_float ? 4.0 : 1.0);
  if (type == PrimitiveType::kF32) {
    absl::Span<float> data = lit.mutable_data<float>();
    for (float& x : data) x = static_cast<float>(dist(rng));
    return;
  }
  if (type == PrimitiveType::kBF16) {
    // The drawn value as a float, rounded to nearest even on its top 16
    // bits (no NaN or overflow can arise in [-1, 1)), without
    // SetFromDouble's per-element dispatch: a 1B-parameter model's bf16
    // weights draw in seconds.
    absl::Span<uint16_t> data = lit.mutable_data<uint16_t>();
    for (uint16_t& x : data) {
      const float f = static_cast<float>(dist(rng));
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof(bits));
      bits += 0x7FFF + ((bits >> 16) & 1);
      x = static_cast<uint16_t>(bits >> 16);
    }
    return;
  }
  if (IsComplex(type)) {
    for (int64_t i = 0; i < n; ++i) {
      const double re = dist(rng);
      lit.SetFromComplex(i, {re, dist(rng)});
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) lit.SetFromDouble(i, dist(rng));
}

// Draws every array leaf of `lit` in place.
void DrawValue(Literal& lit, std::mt19937_64& rng,
               std::optional<IntRange> range) {
  if (lit.shape().IsTuple()) {
    for (int64_t i = 0; i < lit.tuple_size(); ++i) {
      DrawValue(lit.mutable_tuple_element(i), rng, range);
    }
    return;
  }
  if (lit.shape().IsArray()) DrawArray(lit, rng, range);
}

void ZeroValue(Literal& lit) {
  if (lit.shape().IsTuple()) {
    for (int64_t i = 0; i < lit.tuple_size(); ++i) {
      ZeroValue(lit.mutable_tuple_element(i));
    }
    return;
  }
  if (!lit.shape().IsArray()) return;
  absl::Span<uint8_t> raw = lit.mutable_raw();
  if (!raw.empty()) std::memset(raw.data(), 0, raw.size());
  // f8e8m0fnu has no zero: the value SetFromDouble(0) gives (as Zero does).
  const FloatFormat* format = FindFloatFormat(lit.element_type());
  if (format != nullptr && !format->has_sign) {
    for (int64_t i = 0; i < lit.element_count(); ++i) lit.SetFromDouble(i, 0);
  }
}

void ClearElided(Literal& lit) {
  lit.set_elided(false);
  for (int64_t i = 0; i < lit.tuple_size(); ++i) {
    ClearElided(lit.mutable_tuple_element(i));
  }
}

// ---- Where an integer parameter ends up: the users of every instruction
// of a computation, and the ops that pass a value through unchanged
// enough that its range still matters.
using UserMap = std::map<const HloInstruction*, std::vector<HloInstruction*>>;

UserMap Users(const HloComputation& comp) {
  UserMap users;
  for (const auto& inst : comp.instructions()) {
    for (HloInstruction* op : inst->operands()) users[op].push_back(inst.get());
  }
  return users;
}

bool PassesValue(HloOpcode op) {
  switch (op) {
    case HloOpcode::kConvert:
    case HloOpcode::kReshape:
    case HloOpcode::kBroadcast:
    case HloOpcode::kCopy:
    case HloOpcode::kBitcast:
      return true;
    default:
      return false;
  }
}

struct Use {
  std::optional<IntRange> range;
  std::string why;
};

void Narrow(Use& use, IntRange r, const std::string& why) {
  r.hi = std::max<int64_t>(r.hi, 0);
  if (!use.range.has_value() || r.hi < use.range->hi) {
    use.range = IntRange{0, r.hi};
    use.why = why;
  }
}

// The largest start index along operand dimension `d` that keeps a window
// of `size` inside it.
int64_t MaxStart(const Shape& operand, int64_t d, int64_t size) {
  if (d < 0 || d >= operand.rank()) return 0;
  return std::max<int64_t>(operand.dimensions(d) - size, 0);
}

// Ranges from the uses of `value` (an entry parameter or a value derived
// from it) in `comp`, following pass-through ops; `depth` bounds the walk.
void CollectUses(const HloInstruction* value, const HloComputation& comp,
                 const UserMap& users, Use& use, int depth);

// A while loop's bound: element `index` of the loop's init tuple reaches a
// compare in the condition (through get-tuple-element and pass-through
// ops).
bool IsLoopBound(const HloInstruction& loop, int64_t index) {
  const HloComputation* cond = loop.while_condition();
  if (cond == nullptr || cond->num_parameters() != 1) return false;
  for (const auto& inst : cond->instructions()) {
    if (inst->opcode() != HloOpcode::kGetTupleElement ||
        inst->operand(0) != cond->parameter(0) ||
        inst->attrs().index != index) {
      continue;
    }
    UserMap users = Users(*cond);
    std::vector<const HloInstruction*> todo = {inst.get()};
    for (int steps = 0; !todo.empty() && steps < 64; ++steps) {
      const HloInstruction* v = todo.back();
      todo.pop_back();
      for (const HloInstruction* u : users[v]) {
        if (u->opcode() == HloOpcode::kCompare) return true;
        if (PassesValue(u->opcode())) todo.push_back(u);
      }
    }
  }
  return false;
}

void CollectUses(const HloInstruction* value, const HloComputation& comp,
                 const UserMap& users, Use& use, int depth) {
  if (depth > 16) return;
  auto it = users.find(value);
  if (it == users.end()) return;
  for (const HloInstruction* user : it->second) {
    const std::string name = absl::StrCat("%", user->name());
    for (int64_t k = 0; k < user->operand_count(); ++k) {
      if (user->operand(k) != value) continue;
      const Shape& operand = user->operand(0)->shape();
      switch (user->opcode()) {
        case HloOpcode::kDynamicSlice:
          if (k >= 1) {
            const auto& sizes = user->attrs().dynamic_slice_sizes;
            const int64_t d = k - 1;
            Narrow(
                use,
                {0, MaxStart(
                        operand, d,
                        d < static_cast<int64_t>(sizes.size()) ? sizes[d] : 1)},
                absl::StrCat("start index of dynamic-slice ", name));
          }
          break;
        case HloOpcode::kDynamicUpdateSlice:
          if (k >= 2) {
            const Shape& update = user->operand(1)->shape();
            const int64_t d = k - 2;
            Narrow(use,
                   {0, MaxStart(operand, d,
                                d < update.rank() ? update.dimensions(d) : 1)},
                   absl::StrCat("start index of dynamic-update-slice ", name));
          }
          break;
        case HloOpcode::kGather:
          if (k == 1) {
            const auto& dn = user->attrs().gather_dimension_numbers;
            const auto& sizes = user->attrs().slice_sizes;
            int64_t hi = std::numeric_limits<int64_t>::max();
            for (int64_t d : dn.start_index_map) {
              hi = std::min(
                  hi, MaxStart(operand, d,
                               d < static_cast<int64_t>(sizes.size()) ? sizes[d]
                                                                      : 1));
            }
            if (!dn.start_index_map.empty()) {
              Narrow(use, {0, hi}, absl::StrCat("gather indices of ", name));
            }
          }
          break;
        case HloOpcode::kScatter: {
          // scatter(operands..., indices, updates...): the indices are the
          // middle operand.
          const int64_t n = (user->operand_count() - 1) / 2;
          if (k == n) {
            const auto& dn = user->attrs().scatter_dimension_numbers;
            const Shape& updates = user->operand(n + 1)->shape();
            // The window's size along each operand dimension: 1 for
            // inserted and batching dimensions, else the next update
            // window dimension's size.
            std::vector<int64_t> window(operand.rank(), 1);
            size_t next = 0;
            for (int64_t d = 0; d < operand.rank(); ++d) {
              const bool inserted =
                  std::count(dn.inserted_window_dims.begin(),
                             dn.inserted_window_dims.end(), d) > 0 ||
                  std::count(dn.input_batching_dims.begin(),
                             dn.input_batching_dims.end(), d) > 0;
              if (inserted || next >= dn.update_window_dims.size()) continue;
              const int64_t ud = dn.update_window_dims[next++];
              if (ud < updates.rank()) window[d] = updates.dimensions(ud);
            }
            int64_t hi = std::numeric_limits<int64_t>::max();
            for (int64_t d : dn.scatter_dims_to_operand_dims) {
              hi = std::min(
                  hi, MaxStart(operand, d, d < operand.rank() ? window[d] : 1));
            }
            if (!dn.scatter_dims_to_operand_dims.empty()) {
              Narrow(use, {0, hi}, absl::StrCat("scatter indices of ", name));
            }
          }
          break;
        }
        case HloOpcode::kTuple: {
          auto tuple_users = users.find(user);
          if (tuple_users == users.end()) break;
          for (const HloInstruction* loop : tuple_users->second) {
            if (loop->opcode() == HloOpcode::kWhile && IsLoopBound(*loop, k)) {
              Narrow(use, {0, 8},
                     absl::StrCat("bound of while loop %", loop->name()));
            }
          }
          break;
        }
        default:
          break;
      }
    }
    if (PassesValue(user->opcode())) {
      CollectUses(user, comp, users, use, depth + 1);
    }
  }
}

std::string RangeText(const Shape& shape, std::optional<IntRange> range) {
  if (!shape.IsArray()) return "";
  const PrimitiveType type = shape.element_type();
  if (IsPred(type)) return "true or false";
  if (IsInteger(type)) {
    IntRange r =
        range.value_or(IsSignedInt(type) ? IntRange{-8, 8} : IntRange{0, 8});
    return absl::StrCat("integers in [", r.lo, ", ", r.hi, "]");
  }
  const FloatFormat* format = FindFloatFormat(type);
  const bool unsigned_float = format != nullptr && !format->has_sign;
  return absl::StrCat(
      IsComplex(type) ? "real and imaginary parts " : "",
      unsigned_float ? "uniform in [0.25, 4)" : "uniform in [-1, 1)");
}

}  // namespace

std::vector<HloInstruction*> FindElidedConstants(const HloModule& module) {
  std::vector<HloInstruction*> out;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (inst->opcode() == HloOpcode::kConstant &&
          LiteralIsElided(inst->literal())) {
        out.push_back(inst.get());
      }
    }
  }
  return out;
}

std::string DescribeElidedConstant(const HloInstruction& inst) {
  return absl::StrCat(inst.location().known()
                          ? absl::StrCat(inst.location().ToString(), ": ")
                          : std::string(),
                      "%", inst.name(), " ", inst.shape().ToString(false));
}

absl::StatusOr<FillElided> ParseFillElided(absl::string_view value) {
  FillElided how;
  if (value == "zeros") return how;
  if (value == "random") {
    how.random = true;
    return how;
  }
  if (absl::ConsumePrefix(&value, "random:") &&
      absl::SimpleAtoi(value, &how.seed)) {
    how.random = true;
    return how;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--fill-elided takes zeros, random or random:SEED (SEED an unsigned "
      "integer), got '",
      value, "'"));
}

std::vector<std::string> FillElidedConstants(
    const std::vector<HloInstruction*>& elided, const FillElided& how) {
  std::vector<std::string> notes;
  uint64_t stream = 0;
  for (HloInstruction* inst : elided) {
    Literal& lit = *inst->mutable_literal();
    std::string what;
    if (how.random) {
      std::mt19937_64 rng = StreamRng(how.seed, stream++);
      DrawValue(lit, rng, std::nullopt);
      what = absl::StrCat(lit.shape().IsArray()
                              ? RangeText(lit.shape(), std::nullopt)
                              : std::string("random"),
                          " (seed ", how.seed, ")");
    } else {
      ZeroValue(lit);
      what = "zeros";
    }
    ClearElided(lit);
    notes.push_back(absl::StrCat(DescribeElidedConstant(*inst), ": ", what));
  }
  return notes;
}

// The bytes a literal of `shape` takes (arrays at their bounds; tuples the
// sum of their leaves), saturating at UINT64_MAX.
uint64_t ShapeBytes(const Shape& shape) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  if (shape.IsTuple()) {
    uint64_t sum = 0;
    for (const Shape& e : shape.tuple_shapes()) {
      const uint64_t b = ShapeBytes(e);
      sum = b > kMax - sum ? kMax : sum + b;
    }
    return sum;
  }
  if (!shape.IsArray()) return 0;
  uint64_t bytes = static_cast<uint64_t>(StorageBytes(shape.element_type()));
  for (int64_t d : shape.dimensions()) {
    if (d <= 0) return 0;
    if (bytes > kMax / static_cast<uint64_t>(d)) return kMax;
    bytes *= static_cast<uint64_t>(d);
  }
  return bytes;
}

absl::StatusOr<std::vector<Literal>> DrawArguments(
    const HloComputation& entry, uint64_t seed, std::vector<std::string>* notes,
    int64_t first, int64_t max_bytes) {
  const UserMap users = Users(entry);
  std::vector<Literal> args;
  uint64_t total_bytes = 0;
  for (int64_t p = std::max<int64_t>(first, 0); p < entry.num_parameters();
       ++p) {
    const HloInstruction* param = entry.parameter(p);
    if (param == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("the entry computation has no parameter ", p));
    }
    const Shape& shape = param->shape();
    for (int64_t d = 0; shape.IsArray() && d < shape.rank(); ++d) {
      if (shape.is_unbounded_dimension(d)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "parameter ", p, " %", param->name(), " has the unbounded shape ",
            shape.ToString(false), "; give its value as an ARG"));
      }
    }
    Use use;
    if (shape.IsArray() && IsInteger(shape.element_type())) {
      CollectUses(param, entry, users, use, 0);
      // Unsigned types cannot go below 0; ranges never exceed the type.
      if (use.range.has_value() && BitWidth(shape.element_type()) < 64) {
        const int bits = BitWidth(shape.element_type()) -
                         (IsSignedInt(shape.element_type()) ? 1 : 0);
        use.range->hi =
            std::min<int64_t>(use.range->hi, (int64_t{1} << bits) - 1);
      }
    }
    // Checked before allocating: a parameter of a 405B-parameter dump
    // would otherwise end the process with std::bad_alloc.
    const uint64_t bytes = ShapeBytes(shape);
    const uint64_t limit =
        static_cast<uint64_t>(std::max<int64_t>(max_bytes, 0));
    if (bytes > limit || total_bytes > limit - bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "--random-args: parameter ", p, " %", param->name(), " ",
          shape.ToString(false), " needs ", bytes, " bytes (", total_bytes,
          " drawn before it), more than the limit of ", max_bytes,
          " bytes (raise it with --max-bytes=BYTES)"));
    }
    total_bytes += bytes;
    Literal value(shape);
    std::mt19937_64 rng = StreamRng(seed, static_cast<uint64_t>(p));
    DrawValue(value, rng, use.range);
    if (notes != nullptr) {
      notes->push_back(absl::StrCat(
          "parameter ", p, " %", param->name(), " ", shape.ToString(false),
          ": ",
          shape.IsTuple() ? "each element drawn by its type"
                          : RangeText(shape, use.range),
          use.why.empty() ? "" : absl::StrCat(" (", use.why, ")")));
    }
    args.push_back(std::move(value));
  }
  return args;
}

absl::StatusOr<uint64_t> ParseRandomArgsSeed(absl::string_view value) {
  uint64_t seed = 0;
  if (!value.empty() && !absl::SimpleAtoi(value, &seed)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--random-args takes an unsigned integer seed (--random-args=SEED), "
        "got '",
        value, "'"));
  }
  return seed;
}

absl::StatusOr<std::vector<std::string>> ResolveElidedConstants(
    HloModule& module, const std::string& path,
    const std::optional<FillElided>& fill) {
  const std::vector<HloInstruction*> elided = FindElidedConstants(module);
  if (elided.empty()) return std::vector<std::string>();
  if (!fill.has_value()) {
    std::string list;
    for (const HloInstruction* inst : elided) {
      absl::StrAppend(&list, "\n  ", DescribeElidedConstant(*inst));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        path, " has ", elided.size(),
        " elided constant(s) (`constant({...})`: the dump left their "
        "values out), so it cannot be evaluated as is:",
        list,
        "\nre-dump with XLA_FLAGS=--xla_dump_large_constants, or run on "
        "made-up values with --fill-elided=zeros or "
        "--fill-elided=random[:SEED]"));
  }
  return FillElidedConstants(elided, *fill);
}

std::string NameLimitFlags(absl::string_view message) {
  return absl::StrReplaceAll(
      message,
      {{"limit EvaluatorOptions::max_bytes", "raise it with --max-bytes=BYTES"},
       {"limit EvaluatorOptions::max_elements_per_value",
        "raise it with --max-elements=N"},
       {"limit EvaluatorOptions::max_while_iterations",
        "raise it with --max-while-iterations=N"},
       {"limit EvaluatorOptions::max_wall_time",
        "raise it with --timeout=SECONDS"},
       {"limit EvaluatorOptions::max_call_depth",
        "raise it with --max-call-depth=N"},
       {"lower EvaluatorOptions::max_call_depth", "lower --max-call-depth"},
       {"EvaluatorOptions::collective_timeout",
        "--collective-timeout=SECONDS"}});
}

absl::StatusOr<PrintMode> ParsePrintMode(absl::string_view value) {
  if (value == "full") return PrintMode::kFull;
  if (value == "summary") return PrintMode::kSummary;
  if (value == "none") return PrintMode::kNone;
  return absl::InvalidArgumentError(
      absl::StrCat("--print takes full, summary or none, got '", value, "'"));
}

namespace {

std::string Number(double v) { return absl::StrFormat("%.9g", v); }

void SummarizeLeaf(const Literal& leaf_in, const std::string& label,
                   int64_t index, std::string* out) {
  const Literal leaf = leaf_in.HasPadding() ? leaf_in.ToStatic() : Literal();
  const Literal& v = leaf_in.HasPadding() ? leaf : leaf_in;
  absl::StrAppend(out, label, "result ", index, ": ", leaf_in.ShapeString());
  const int64_t n = v.element_count();
  if (!v.shape().IsArray()) {
    absl::StrAppend(out, "\n");
    return;
  }
  if (n == 0) {
    absl::StrAppend(out, " (no elements)\n");
    return;
  }
  const PrimitiveType type = v.element_type();
  if (IsPred(type) || IsInteger(type)) {
    // Exact: min and max as integers (u64 read unsigned), mean in double.
    auto summarize = [&](auto read) {
      using X = decltype(read(int64_t{0}));
      X lo = std::numeric_limits<X>::max();
      X hi = std::numeric_limits<X>::lowest();
      long double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        const X x = read(i);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
        sum += static_cast<long double>(x);
      }
      absl::StrAppend(out, " min ", lo, " max ", hi, " mean ",
                      Number(static_cast<double>(sum / n)), "\n");
    };
    if (IsUnsignedInt(type) && BitWidth(type) == 64) {
      summarize([&](int64_t i) { return v.GetRawBits(i); });
    } else {
      summarize([&](int64_t i) { return v.GetAsInt64(i); });
    }
    return;
  }
  int64_t nans = 0, infs = 0, finite = 0;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  long double sum_re = 0, sum_im = 0;
  const bool complex = IsComplex(type);
  for (int64_t i = 0; i < n; ++i) {
    double key;
    if (complex) {
      const std::complex<double> z = v.GetAsComplex(i);
      if (std::isnan(z.real()) || std::isnan(z.imag())) {
        ++nans;
        continue;
      }
      if (std::isinf(z.real()) || std::isinf(z.imag())) {
        ++infs;
        continue;
      }
      key = std::abs(z);
      sum_re += z.real();
      sum_im += z.imag();
    } else {
      key = v.GetAsDouble(i);
      if (std::isnan(key)) {
        ++nans;
        continue;
      }
      if (std::isinf(key)) {
        ++infs;
        // Infinities take part in min and max, not in the mean.
        lo = std::min(lo, key);
        hi = std::max(hi, key);
        continue;
      }
      sum_re += key;
    }
    ++finite;
    lo = std::min(lo, key);
    hi = std::max(hi, key);
  }
  if (nans == n) {
    absl::StrAppend(out, " min nan max nan mean nan nan ", nans, " inf 0\n");
    return;
  }
  const std::string mean =
      finite == 0 ? "nan"
      : complex   ? absl::StrCat(
                        "(", Number(static_cast<double>(sum_re / finite)), ", ",
                        Number(static_cast<double>(sum_im / finite)), ")")
                : Number(static_cast<double>(sum_re / finite));
  absl::StrAppend(out, complex ? " min|z| " : " min ", Number(lo),
                  complex ? " max|z| " : " max ", Number(hi), " mean ", mean,
                  " nan ", nans, " inf ", infs, "\n");
}

void SummarizeInto(const Literal& value, const std::string& label,
                   int64_t* index, std::string* out) {
  if (value.shape().IsTuple()) {
    for (const Literal& e : value.tuple_elements()) {
      SummarizeInto(e, label, index, out);
    }
    return;
  }
  SummarizeLeaf(value, label, (*index)++, out);
}

}  // namespace

std::string SummarizeResult(const Literal& value, const std::string& label) {
  std::string out;
  int64_t index = 0;
  SummarizeInto(value, label, &index, &out);
  return out;
}

}  // namespace hloref::tools
