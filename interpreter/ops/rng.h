// The rng family: rng (seed 001 "RngUniform", "RngNormal"),
// rng-bit-generator ("RngBitGenerator") and rng-get-and-update-state
// (docs/hlo-text-format.md 6.10); the Random123 generators they use
// (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011)
// and the evaluator-wide generator state.
//
// rng-bit-generator follows XLA's expansion exactly (docs/numerics.md 3.7,
// openxla/xla rng_bit_generator_expander.cc and hlo/builder/lib/prng.cc):
// THREE_FRY is Threefry-2x32-20 with key state[0] and 64-bit counter
// state[1]; PHILOX is Philox-4x32-10 with key state[0] and a 128-bit
// counter (state[1], state[2]) for u64[3] states, (state[1], state[0]) for
// u64[2] states; DEFAULT is PHILOX, as on XLA CPU and GPU.
//
// rng (uniform and normal) is implementation-defined in both the seed and
// XLA (which expands it with a per-module global state); hloref's own,
// documented generator is (impl.rng.1):
//   * the evaluator-wide 128-bit state S (RngState) starts at the seed
//     EvaluatorOptions::rng_seed (S = seed) when the Evaluator is built and
//     carries over between Run calls;
//   * one execution of an rng instruction with n output elements draws
//     k = n (uniform) or 2n (normal) 64-bit words: exactly the output of
//     rng-bit-generator(PHILOX) with the u64[3] state {seed, S.low, S.high}
//     and output u64[k], i.e. word 2j + h of the run is
//     w[2h] | w[2h+1] << 32 for the Philox block w = Philox-4x32-10(S + j,
//     key = (seed.low32, seed.high32)); S then advances by ceil(k/2);
//   * uniform integers (and pred) in [a, b): a + floor(W * (b - a) / 2^64)
//     for element word W (b - a computed exactly in 64 bits);
//   * uniform floats in [a, b): u = (W >> 11) * 2^-53 in [0, 1),
//     x = a + u * (b - a) in long double, rounded to nearest even to the
//     type; a result that rounds to b (or above) is replaced by the largest
//     value of the type below b (or a, if that is below a);
//   * normal: element i uses words W1 = word 2i, W2 = word 2i+1,
//     u1 = ((W1 >> 11) + 1) * 2^-53 in (0, 1], u2 = (W2 >> 11) * 2^-53,
//     x = mu + sigma * sqrt(-2 ln u1) * cos(2 pi u2) in long double, rounded
//     to the type (Box-Muller);
//   * b <= a, or a non-finite bound, is implementation-defined in the seed
//     (impl.rng.2): the same formulas are applied without the [a, b)
//     clamp (integers: every element is a).
// rng-get-and-update-state returns S as u64[2] {low, high} and adds delta
// to it (mod 2^128); the value depends on the seed and on every rng and
// rng-get-and-update-state executed before by the same Evaluator
// (impl.rng-get-and-update-state.1).
#ifndef HLOREF_INTERPRETER_OPS_RNG_H_
#define HLOREF_INTERPRETER_OPS_RNG_H_

#include <array>
#include <cstdint>
#include <mutex>
#include <utility>

#include "absl/numeric/int128.h"
#include "absl/status/statusor.h"
#include "interpreter/ops/families.h"
#include "spec/ir/attributes.h"
#include "spec/types/literal.h"
#include "spec/types/shape.h"

namespace hloref {

// Threefry-2x32 with 20 rounds (Random123's threefry2x32_R(20, ctr, key)).
std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> counter,
                                     std::array<uint32_t, 2> key);
// Philox-4x32 with 10 rounds (Random123's philox4x32_R(10, ctr, key)).
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key);

// XLA's rng-bit-generator on host values: `state` is the u64[2] (or, for
// PHILOX, u64[3]) state, `output_shape` an integer array shape (unsigned
// in verified modules; signed types get the same bits). kDefault means
// kPhilox. Returns (new state, output). InvalidArgument for a state of the
// wrong size or a non-integer output type.
absl::StatusOr<std::pair<Literal, Literal>> GenerateRandomBits(
    RandomAlgorithm algorithm, const Literal& state, const Shape& output_shape);

// The evaluator-wide generator state of rng and rng-get-and-update-state
// (see the file comment). Thread-safe.
class RngState {
 public:
  explicit RngState(uint64_t seed)
      : seed_(seed), value_(absl::MakeUint128(0, seed)) {}
  uint64_t seed() const { return seed_; }
  // Returns the current value and adds `delta` (mod 2^128).
  absl::uint128 GetAndUpdate(absl::uint128 delta);
  absl::uint128 value() const;
  void set_value(absl::uint128 value);

 private:
  const uint64_t seed_;
  mutable std::mutex mu_;
  absl::uint128 value_;
};

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_RNG_H_
