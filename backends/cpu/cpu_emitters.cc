#include "backends/cpu/cpu_emitters.h"

namespace hloref::cpu {

codegen::EmitterTable CpuEmitterTable() {
  codegen::EmitterTable table = codegen::DefaultEmitterTable();
  RegisterCpuSortEmitters(table);
  RegisterCpuDotEmitters(table);
  RegisterCpuConvolutionEmitters(table);
  RegisterCpuFftEmitters(table);
  RegisterCpuLinalgEmitters(table);
  RegisterCpuRngEmitters(table);
  RegisterCpuCollectiveEmitters(table);
  RegisterCpuHostEmitters(table);
  RegisterCpuCustomCallEmitters(table);
  return table;
}

}  // namespace hloref::cpu
