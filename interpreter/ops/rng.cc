// The rng family: rng (seed 001 "RngUniform", "RngNormal"),
// rng-bit-generator ("RngBitGenerator"), rng-get-and-update-state
// (docs/hlo-text-format.md 6.10). The generator choices are documented in
// rng.h and spec/impl_defined.md.
#include "interpreter/ops/rng.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "spec/types/primitive_type.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

constexpr uint32_t Lo32(uint64_t v) { return static_cast<uint32_t>(v); }
constexpr uint32_t Hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
constexpr uint64_t Join32(uint32_t lo, uint32_t hi) {
  return uint64_t{lo} | (uint64_t{hi} << 32);
}
constexpr uint32_t RotateLeft(uint32_t v, int distance) {
  return (v << distance) | (v >> (32 - distance));
}

// Words 0..k-1 of XLA's 64-bit Philox output (numerics.md 3.7): block j,
// computed on counter `counter + j`, gives words 2j and 2j+1.
std::vector<uint64_t> PhiloxWords64(uint64_t key, absl::uint128 counter,
                                    int64_t k) {
  std::vector<uint64_t> words(static_cast<size_t>(k));
  const std::array<uint32_t, 2> key32 = {Lo32(key), Hi32(key)};
  for (int64_t j = 0; 2 * j < k; ++j) {
    const absl::uint128 c = counter + static_cast<uint64_t>(j);
    const uint64_t lo = absl::Uint128Low64(c);
    const uint64_t hi = absl::Uint128High64(c);
    const std::array<uint32_t, 4> w =
        Philox4x32({Lo32(lo), Hi32(lo), Lo32(hi), Hi32(hi)}, key32);
    words[2 * j] = Join32(w[0], w[1]);
    if (2 * j + 1 < k) words[2 * j + 1] = Join32(w[2], w[3]);
  }
  return words;
}

// The split XLA's ThreeFry uses for outputs narrower than 64 bits
// (SplitShapeIntoHalves in prng.cc): the first even-sized dimension, else
// the first dimension of maximal size.
int64_t ThreeFrySplitDimension(absl::Span<const int64_t> dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] % 2 == 0) return static_cast<int64_t>(i);
  }
  int64_t split = 0;
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] > dims[split]) split = static_cast<int64_t>(i);
  }
  return split;
}

int64_t ElementCount(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Fills `out` (any integer type: the low BitWidth bits of each generated
// word are kept) with THREE_FRY bits; returns the new counter.
uint64_t ThreeFryFill(uint64_t key, uint64_t counter, Literal& out) {
  const std::array<uint32_t, 2> key32 = {Lo32(key), Hi32(key)};
  auto block = [&](uint64_t c) {
    return Threefry2x32({Lo32(c), Hi32(c)}, key32);
  };
  absl::Span<const int64_t> dims = out.shape().dimensions();
  const int64_t n = ElementCount(dims);
  if (BitWidth(out.element_type()) == 64) {
    // One counter per element, row-major; value = word0 | word1 << 32.
    for (int64_t i = 0; i < n; ++i) {
      const std::array<uint32_t, 2> w = block(counter + i);
      out.SetRawBits(i, Join32(w[0], w[1]));
    }
    return counter + static_cast<uint64_t>(n);
  }
  if (dims.empty()) {
    // Scalar: half shape [1], word 0 of counter c.
    out.SetRawBits(0, block(counter)[0]);
    return counter + 1;
  }
  // The half shape halves the split dimension (rounding up); its row-major
  // element i uses counter c + i and writes words 0 and 1 to positions
  // 2h and 2h+1 of the split dimension (dropping 2h+1 past an odd end).
  const int64_t split = ThreeFrySplitDimension(dims);
  std::vector<int64_t> half(dims.begin(), dims.end());
  half[split] = (dims[split] + 1) / 2;
  const int64_t half_count = ElementCount(half);
  if (half_count == 0) return counter;
  std::vector<int64_t> index(half.size(), 0);
  std::vector<int64_t> target(half.size(), 0);
  int64_t i = 0;
  do {
    const std::array<uint32_t, 2> w = block(counter + i);
    target = index;
    for (int word = 0; word < 2; ++word) {
      target[split] = 2 * index[split] + word;
      if (target[split] >= dims[split]) break;
      out.SetRawBits(RowMajorIndex(dims, target), w[word]);
    }
    ++i;
  } while (NextIndex(half, absl::MakeSpan(index)));
  return counter + static_cast<uint64_t>(half_count);
}

// Fills `out` with PHILOX bits from the 128-bit counter; returns the new
// counter.
absl::uint128 PhiloxFill(uint64_t key, absl::uint128 counter, Literal& out) {
  const int64_t n = out.element_count();
  if (BitWidth(out.element_type()) == 64) {
    // ceil(2n/4) blocks; block j gives elements 2j and 2j+1.
    const std::vector<uint64_t> words = PhiloxWords64(key, counter, n);
    for (int64_t i = 0; i < n; ++i) out.SetRawBits(i, words[i]);
    return counter + static_cast<uint64_t>((n + 1) / 2);
  }
  // ceil(n/4) blocks; element 4j + w is word w of block j.
  const std::array<uint32_t, 2> key32 = {Lo32(key), Hi32(key)};
  const int64_t blocks = (n + 3) / 4;
  for (int64_t j = 0; j < blocks; ++j) {
    const absl::uint128 c = counter + static_cast<uint64_t>(j);
    const uint64_t lo = absl::Uint128Low64(c);
    const uint64_t hi = absl::Uint128High64(c);
    const std::array<uint32_t, 4> w =
        Philox4x32({Lo32(lo), Hi32(lo), Lo32(hi), Hi32(hi)}, key32);
    for (int64_t word = 0; word < 4 && 4 * j + word < n; ++word) {
      out.SetRawBits(4 * j + word, w[word]);
    }
  }
  return counter + static_cast<uint64_t>(blocks);
}

absl::StatusOr<RandomAlgorithm> AlgorithmOf(const HloInstruction& inst) {
  const std::string& a = inst.attrs().algorithm;
  if (a == "rng_three_fry") return RandomAlgorithm::kThreeFry;
  if (a == "rng_philox") return RandomAlgorithm::kPhilox;
  if (a.empty() || a == "rng_default") return RandomAlgorithm::kDefault;
  return InstructionError(inst, "rng-bit-generator.C2",
                          absl::StrCat("unknown algorithm ", a));
}

// RngBitGenerator: XLA's bits and output state (numerics.md 3.7).
// Semantics: seed 001 "RngBitGenerator".
// impl.rng-bit-generator.1: DEFAULT is PHILOX (XLA CPU/GPU's choice).
// impl.rng-bit-generator.2: the seed guarantees the output only as "a
// deterministic function of the initial state", not across backends, so
// the bits of THREE_FRY and PHILOX are XLA's layout, marked for the
// portable profile.
// impl.rng-bit-generator.3: state words past those the algorithm reads
// (XLA:CPU compiles only u64[2] for THREE_FRY and u64[2] or u64[3] for
// PHILOX) come back unchanged.
absl::StatusOr<Literal> EvalRngBitGenerator(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  HLOREF_ASSIGN_OR_RETURN(RandomAlgorithm algorithm, AlgorithmOf(inst));
  const Shape& output_shape = inst.shape().tuple_shapes(1);
  absl::StatusOr<std::pair<Literal, Literal>> bits =
      GenerateRandomBits(algorithm, *operands[0], output_shape);
  if (!bits.ok()) {
    return InstructionError(inst, "rng-bit-generator.C2",
                            bits.status().message());
  }
  const char* id = algorithm == RandomAlgorithm::kDefault
                       ? "impl.rng-bit-generator.1"
                       : "impl.rng-bit-generator.2";
  ctx.MarkAllImplDefined(0, id);
  ctx.MarkAllImplDefined(1, id);
  std::vector<Literal> elements;
  elements.push_back(std::move(bits->first));
  elements.push_back(std::move(bits->second));
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<RngState*> StateOf(const HloInstruction& inst,
                                  EvalContext& ctx) {
  RngState* state = ctx.rng_state();
  if (state == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("%", inst.name(),
                     ": this evaluation context has no rng state (evaluate "
                     "through Evaluator)"));
  }
  return state;
}

// Draws k 64-bit words of the rng generator and advances the state.
absl::StatusOr<std::vector<uint64_t>> DrawWords(const HloInstruction& inst,
                                                EvalContext& ctx, int64_t k) {
  HLOREF_ASSIGN_OR_RETURN(RngState * state, StateOf(inst, ctx));
  const absl::uint128 counter =
      state->GetAndUpdate(static_cast<uint64_t>((k + 1) / 2));
  return PhiloxWords64(state->seed(), counter, k);
}

// 2^-53 times the top 53 bits of a word: uniform in [0, 1).
long double UnitInterval(uint64_t word) {
  return std::ldexp(static_cast<long double>(word >> 11), -53);
}

// The largest value of float type `type` below the value of element 0 of
// `b` (nullopt if there is none): one step down in the ordered encoding.
std::optional<uint64_t> FloatBelow(const Literal& b) {
  const double bv = b.GetAsDouble(0);
  if (!std::isfinite(bv)) return std::nullopt;
  const uint64_t bits = b.GetRawBits(0);
  const int width = BitWidth(b.element_type());
  const uint64_t sign = uint64_t{1} << (width - 1);
  uint64_t below;
  if (bv > 0) {
    below = bits - 1;
  } else if (bv == 0) {
    below = sign | 1;  // the negative subnormal closest to zero
  } else {
    below = bits + 1;
  }
  Literal probe(Shape::Scalar(b.element_type()));
  probe.SetRawBits(0, below);
  const double pv = probe.GetAsDouble(0);
  if (!(pv < bv)) return std::nullopt;
  return below;
}

// RngUniform: uniform over [a, b). Semantics: seed 001 "RngUniform".
// impl.rng.1 (every element: hloref's generator, rng.h); impl.rng.2
// (b <= a or a non-finite bound).
absl::StatusOr<Literal> EvalRngUniform(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  const Literal& a = *operands[0];
  const Literal& b = *operands[1];
  const PrimitiveType type = inst.shape().element_type();
  Literal out(inst.shape());
  const int64_t n = out.element_count();
  HLOREF_ASSIGN_OR_RETURN(std::vector<uint64_t> words, DrawWords(inst, ctx, n));
  bool degenerate = false;
  if (IsFloat(type)) {
    const double av = a.GetAsDouble(0);
    const double bv = b.GetAsDouble(0);
    degenerate = !(av < bv) || !std::isfinite(av) || !std::isfinite(bv);
    const long double lo = av;
    const long double width = static_cast<long double>(bv) - lo;
    std::optional<uint64_t> below = degenerate ? std::nullopt : FloatBelow(b);
    if (below.has_value()) {
      Literal probe(Shape::Scalar(type));
      probe.SetRawBits(0, *below);
      if (probe.GetAsDouble(0) < av) below.reset();
    }
    for (int64_t i = 0; i < n; ++i) {
      const long double x = lo + UnitInterval(words[i]) * width;
      out.SetFromDouble(i, static_cast<double>(x));
      if (!degenerate && out.GetAsDouble(i) >= bv) {
        if (below.has_value()) {
          out.SetRawBits(i, *below);
        } else {
          out.SetRawBits(i, a.GetRawBits(0));
        }
      }
    }
  } else if (IsInteger(type) || IsPred(type)) {
    const bool is_signed = IsSignedInt(type);
    const uint64_t av =
        is_signed ? static_cast<uint64_t>(a.GetAsInt64(0)) : a.GetRawBits(0);
    const uint64_t bv =
        is_signed ? static_cast<uint64_t>(b.GetAsInt64(0)) : b.GetRawBits(0);
    degenerate = is_signed
                     ? static_cast<int64_t>(bv) <= static_cast<int64_t>(av)
                     : bv <= av;
    const uint64_t range = degenerate ? 0 : bv - av;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t offset =
          absl::Uint128High64(absl::uint128(words[i]) * absl::uint128(range));
      out.SetFromInt64(i, static_cast<int64_t>(av + offset));
    }
  } else {
    return absl::UnimplementedError(
        absl::StrCat("%", inst.name(), ": rng_uniform of ",
                     PrimitiveTypeName(type), " is not supported"));
  }
  ctx.MarkAllImplDefined(0, "impl.rng.1");
  if (degenerate) ctx.MarkAllImplDefined(0, "impl.rng.2");
  return out;
}

// RngNormal: N(mu, sigma) by Box-Muller. Semantics: seed 001 "RngNormal".
// impl.rng.1 (every element).
absl::StatusOr<Literal> EvalRngNormal(const HloInstruction& inst,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  const PrimitiveType type = inst.shape().element_type();
  if (!IsFloat(type)) {
    return absl::UnimplementedError(
        absl::StrCat("%", inst.name(), ": rng_normal of ",
                     PrimitiveTypeName(type), " is not supported"));
  }
  const long double mu = operands[0]->GetAsDouble(0);
  const long double sigma = operands[1]->GetAsDouble(0);
  Literal out(inst.shape());
  const int64_t n = out.element_count();
  HLOREF_ASSIGN_OR_RETURN(std::vector<uint64_t> words,
                          DrawWords(inst, ctx, 2 * n));
  const long double two_pi = 2 * std::acos(-1.0L);
  for (int64_t i = 0; i < n; ++i) {
    const long double u1 =
        std::ldexp(static_cast<long double>((words[2 * i] >> 11) + 1), -53);
    const long double u2 = UnitInterval(words[2 * i + 1]);
    const long double z = std::sqrt(-2 * std::log(u1)) * std::cos(two_pi * u2);
    out.SetFromDouble(i, static_cast<double>(mu + sigma * z));
  }
  ctx.MarkAllImplDefined(0, "impl.rng.1");
  return out;
}

// rng-get-and-update-state: the evaluator-wide state as u64[2] {low, high},
// then state += delta. Semantics: docs/hlo-text-format.md 6.10.
// impl.rng-get-and-update-state.1 (the value is hloref's state).
absl::StatusOr<Literal> EvalRngGetAndUpdateState(const HloInstruction& inst,
                                                 EvalContext& ctx) {
  HLOREF_ASSIGN_OR_RETURN(RngState * state, StateOf(inst, ctx));
  // delta is an int64 in the text; a negative delta steps back (mod 2^128).
  const absl::uint128 delta =
      static_cast<absl::uint128>(absl::int128(inst.attrs().delta));
  const absl::uint128 old = state->GetAndUpdate(delta);
  Literal out(inst.shape());
  absl::Span<uint64_t> data = out.mutable_data<uint64_t>();
  if (data.size() != 2) {
    return absl::InternalError(
        absl::StrCat("%", inst.name(), ": rng-get-and-update-state result has ",
                     data.size(), " elements, expected 2"));
  }
  data[0] = absl::Uint128Low64(old);
  data[1] = absl::Uint128High64(old);
  ctx.MarkAllImplDefined(0, "impl.rng-get-and-update-state.1");
  return out;
}

}  // namespace

std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> counter,
                                     std::array<uint32_t, 2> key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]};
  uint32_t x0 = counter[0] + ks[0];
  uint32_t x1 = counter[1] + ks[1];
  // Five groups of four rounds; after group g (1-based) the key schedule
  // injects (ks[g % 3], ks[(g + 1) % 3] + g).
  for (int g = 1; g <= 5; ++g) {
    const int* r = (g % 2 == 1) ? kRotations : kRotations + 4;
    for (int round = 0; round < 4; ++round) {
      x0 += x1;
      x1 = RotateLeft(x1, r[round]) ^ x0;
    }
    x0 += ks[g % 3];
    x1 += ks[(g + 1) % 3] + static_cast<uint32_t>(g);
  }
  return {x0, x1};
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key) {
  constexpr uint64_t kM0 = 0xD2511F53;
  constexpr uint64_t kM1 = 0xCD9E8D57;
  constexpr uint32_t kW0 = 0x9E3779B9;
  constexpr uint32_t kW1 = 0xBB67AE85;
  std::array<uint32_t, 4> x = counter;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = kM0 * x[0];
    const uint64_t p1 = kM1 * x[2];
    x = {Hi32(p1) ^ x[1] ^ key[0], Lo32(p1), Hi32(p0) ^ x[3] ^ key[1],
         Lo32(p0)};
    key[0] += kW0;
    key[1] += kW1;
  }
  return x;
}

absl::StatusOr<std::pair<Literal, Literal>> GenerateRandomBits(
    RandomAlgorithm algorithm, const Literal& state,
    const Shape& output_shape) {
  if (algorithm == RandomAlgorithm::kDefault) {
    algorithm = RandomAlgorithm::kPhilox;
  }
  const Shape& state_shape = state.shape();
  if (!state_shape.IsArray() || state.element_type() != PrimitiveType::kU64 ||
      state_shape.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("rng-bit-generator state is ", state_shape.ToString(false),
                     ", expected a u64 vector"));
  }
  const int64_t words = state_shape.dimensions(0);
  const bool philox = algorithm == RandomAlgorithm::kPhilox;
  // Both algorithms read a key and at least one counter word; words past
  // those they read (three_fry: 2, philox: 3) are kept unchanged
  // (impl.rng-bit-generator.3).
  if (words < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(philox ? "rng_philox" : "rng_three_fry", " state has ",
                     words, " words, expected at least 2"));
  }
  const PrimitiveType type = output_shape.element_type();
  if (!output_shape.IsArray() || !IsInteger(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rng-bit-generator output must be an integer array, got ",
                     output_shape.ToString(false)));
  }
  absl::Span<const uint64_t> s = state.data<uint64_t>();
  Literal new_state(state_shape);
  absl::Span<uint64_t> ns = new_state.mutable_data<uint64_t>();
  std::copy(s.begin(), s.end(), ns.begin());
  Literal out(output_shape);
  const uint64_t key = s[0];
  ns[0] = key;
  if (philox) {
    // u64[3] or more: counter (low, high) = (s[1], s[2]). u64[2]: XLA
    // reverses the state, so (low, high) = (s[1], s[0]) and only the low
    // word of the new counter is written back.
    const absl::uint128 counter =
        absl::MakeUint128(words >= 3 ? s[2] : s[0], s[1]);
    const absl::uint128 next = PhiloxFill(key, counter, out);
    ns[1] = absl::Uint128Low64(next);
    if (words >= 3) ns[2] = absl::Uint128High64(next);
  } else {
    ns[1] = ThreeFryFill(key, s[1], out);
  }
  return std::make_pair(std::move(new_state), std::move(out));
}

absl::uint128 RngState::GetAndUpdate(absl::uint128 delta) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::uint128 old = value_;
  value_ += delta;
  return old;
}

absl::uint128 RngState::value() const {
  std::lock_guard<std::mutex> lock(mu_);
  return value_;
}

void RngState::set_value(absl::uint128 value) {
  std::lock_guard<std::mutex> lock(mu_);
  value_ = value;
}

absl::StatusOr<Literal> EvalRng(const HloInstruction& inst,
                                absl::Span<const Literal* const> operands,
                                EvalContext& ctx) {
  switch (inst.opcode()) {
    case HloOpcode::kRng:
      if (inst.attrs().distribution == RandomDistribution::kNormal) {
        return EvalRngNormal(inst, operands, ctx);
      }
      return EvalRngUniform(inst, operands, ctx);
    case HloOpcode::kRngBitGenerator:
      return EvalRngBitGenerator(inst, operands, ctx);
    case HloOpcode::kRngGetAndUpdateState:
      return EvalRngGetAndUpdateState(inst, ctx);
    default:
      return absl::InternalError(absl::StrCat("%", inst.name(), ": ",
                                              HloOpcodeString(inst.opcode()),
                                              " is not in the rng family"));
  }
}

}  // namespace hloref
