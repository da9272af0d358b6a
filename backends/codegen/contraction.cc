// (to be written) the contraction emitters; see emitter_table.h.
#include "backends/codegen/emitter_table.h"

namespace hloref::codegen {

void RegisterContractionEmitters(EmitterTable& table) {}

}  // namespace hloref::codegen
