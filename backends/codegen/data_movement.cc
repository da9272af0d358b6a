// (to be written) the data movement emitters; see emitter_table.h.
#include "backends/codegen/emitter_table.h"

namespace hloref::codegen {

void RegisterDataMovementEmitters(EmitterTable& table) {}

}  // namespace hloref::codegen
