// (to be written) the batch norm emitters; see emitter_table.h.
#include "backends/codegen/emitter_table.h"

namespace hloref::codegen {

void RegisterBatchNormEmitters(EmitterTable& table) {}

}  // namespace hloref::codegen
