// (to be written) the reduction emitters; see emitter_table.h.
#include "backends/codegen/emitter_table.h"

namespace hloref::codegen {

void RegisterReductionEmitters(EmitterTable& table) {}

}  // namespace hloref::codegen
