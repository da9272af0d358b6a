// (to be written) the gather scatter emitters; see emitter_table.h.
#include "backends/codegen/emitter_table.h"

namespace hloref::codegen {

void RegisterGatherScatterEmitters(EmitterTable& table) {}

}  // namespace hloref::codegen
