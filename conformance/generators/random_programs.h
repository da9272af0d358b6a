// Random well-conditioned multi-op programs for whole-program enclosures
// (interpreter/enclosure.h, docs/enclosures.md): element-wise chains,
// broadcasts, row normalisations (reduce + divide), softmax rows (reduce
// max, subtract, exp), one dot, while loops carrying (counter, value)
// through 2-4 iterations of v * c + d, and attention shapes (softmax(q q^T
// c) v with q the row-normalised value), in f32 and bf16. Every value stays
// positive (data in [0.5, 2), ops that keep positivity), so no
// cancellation makes an enclosure wide. Used by `hloref conformance
// --suite=programs` (conformance/harness/suite.h) and
// conformance/enclosure_programs_test.cc.
#ifndef HLOREF_CONFORMANCE_GENERATORS_RANDOM_PROGRAMS_H_
#define HLOREF_CONFORMANCE_GENERATORS_RANDOM_PROGRAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "spec/types/literal.h"

namespace hloref::conformance {

struct RandomProgram {
  std::string text;
  std::vector<Literal> args;
  int ops = 0;
  int whiles = 0, attentions = 0;  // steps of those kinds
};

// A program of 4..8 steps (bf16: 2..4) on x: T[R, C] (and w: T[C, K] for
// the dot),
// drawn from `seed` (std::mt19937_64 is fully specified, so the programs
// are the same everywhere).
RandomProgram MakeRandomProgram(uint64_t seed, bool bf16);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_GENERATORS_RANDOM_PROGRAMS_H_
