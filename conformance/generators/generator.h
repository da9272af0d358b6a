// Generated conformance cases (docs/architecture.md conformance/): one
// generator per op family, driven by spec/ops.def, drawing random shapes
// (rank 0, zero-size and odd dimensions, occasional large reductions),
// attributes, element types and special values. A case is reproducible from
// (op, seed) and prints as a self-contained HLO module plus .npy inputs that
// `hloref run` replays. Expected values are not stored: the oracle computes
// them when the case is judged (numerics.md 7.2).
//
// Validity is the verifier's business, not the generators': a draw is
// turned into a module and InferShape / VerifyModule accept or reject it;
// rejected draws are redrawn (a deterministic sequence of attempts), so
// every element type an op accepts turns up without the generators
// restating the typing rules.
#ifndef HLOREF_CONFORMANCE_GENERATORS_GENERATOR_H_
#define HLOREF_CONFORMANCE_GENERATORS_GENERATOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "spec/ir/hlo_module.h"
#include "spec/ir/opcode.h"
#include "spec/types/literal.h"

namespace hloref::conformance {

struct GeneratedCase {
  // "gen/<op>/<seed>": the generator (its op) and the seed reproduce it.
  std::string id;
  HloOpcode opcode;
  uint64_t seed = 0;
  // The element type the case is about (the first operand's, or the
  // result's for ops without operands): the column of the report matrix.
  PrimitiveType type = PrimitiveType::kInvalid;
  std::string module_text;  // self-contained, verified
  std::shared_ptr<const HloModule> module;
  std::vector<Literal> args;
  // Replicated cases: participants = replica_count * partition_count (also
  // in the module header). participant_args is empty when every
  // participant gets `args`, else one list per participant (replica r,
  // partition p at r * partition_count + p).
  int64_t replica_count = 1;
  int64_t partition_count = 1;
  std::vector<std::vector<Literal>> participant_args;
  // Host transfers: true when the module uses infeed, outfeed or
  // host-transfer send/recv; `host` holds the inputs (infeed, recv) the run
  // consumes; the outputs (outfeed, sent) are compared with the oracle's
  // like results.
  bool uses_host = false;
  backends::HostTransfers host;

  bool replicated() const { return replica_count * partition_count > 1; }
};

// The ops that have a generator (in ops.def order).
std::vector<HloOpcode> GeneratedOps();
bool HasGenerator(HloOpcode opcode);
// The ops that have no generator by design, each with the reason (printed
// by reports and `hloref conformance --list-ops`); misc.cc.
std::vector<std::pair<HloOpcode, std::string>> ExcludedFromGeneration();

// Generates case `seed` of `opcode`. Unimplemented when the op has no
// generator; FailedPrecondition when no valid draw was found within the
// attempt limit (reported as skipped).
absl::StatusOr<GeneratedCase> GenerateCase(HloOpcode opcode, uint64_t seed);

// Writes DIR/module.hlo, DIR/arg_<k>.npy and DIR/README (the replay
// command: `hloref run DIR/module.hlo DIR/arg_0.npy ...`).
absl::Status WriteCaseDir(const GeneratedCase& c, const std::string& dir);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_GENERATORS_GENERATOR_H_
