#include "backends/codegen/emitter_table.h"

namespace hloref::codegen {

EmitterTable DefaultEmitterTable() {
  EmitterTable table;
  RegisterElementwiseEmitters(table);
  RegisterConvertEmitters(table);
  RegisterDataMovementEmitters(table);
  RegisterGatherScatterEmitters(table);
  RegisterReductionEmitters(table);
  RegisterContractionEmitters(table);
  RegisterBatchNormEmitters(table);
  return table;
}

}  // namespace hloref::codegen
