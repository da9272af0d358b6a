// (to be written) the convert emitters; see emitter_table.h.
#include "backends/codegen/emitter_table.h"

namespace hloref::codegen {

void RegisterConvertEmitters(EmitterTable& table) {}

}  // namespace hloref::codegen
