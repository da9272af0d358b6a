// The oracle's rendezvous (see replicas.h and spec/util/rendezvous.h).
#include "interpreter/replicas.h"

#include <string>
#include <utility>

#include "interpreter/index_util.h"
#include "spec/ir/opcode.h"

namespace hloref {

Rendezvous::Rendezvous(int64_t replica_count, int64_t partition_count,
                       absl::Duration timeout)
    : CollectiveRendezvous<Literal>(replica_count, partition_count, timeout,
                                    "(EvaluatorOptions::collective_timeout)") {}

absl::StatusOr<std::shared_ptr<const std::vector<Literal>>>
Rendezvous::Exchange(const HloInstruction& inst, int64_t execution,
                     absl::Span<const int64_t> group, int64_t me,
                     Literal contribution) {
  CollectiveSite site;
  site.id = &inst;
  site.channel = inst.attrs().channel_id;
  site.prefix = InstructionPrefix(inst);
  site.name = inst.name();
  site.noun = std::string(HloOpcodeString(inst.opcode()));
  return Meet(site, execution, group, me, std::move(contribution));
}

}  // namespace hloref
