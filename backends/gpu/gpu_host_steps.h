// Host-staged instructions of the GPU backend (KernelKind::kHostStep): the
// runtime stops between two launches, copies the instruction's operand
// buffers to the host, runs the step there and copies its results back
// (gpu_program.h's HostStep). The steps call the CPU backend's runtime, so
// the semantics are the CPU backend's exactly:
//   custom-call       hloref_cpu_custom_call: targets of user-named
//                     libraries with seed 001's C ABI, operand buffers in
//                     their layouts, results zeroed before the call;
//                     unknown targets and other API versions are
//                     Unimplemented at compile time (annotation targets
//                     are device copies, not host steps: gpu_emitter.cc);
//   infeed / outfeed  hloref_cpu_host_transfer with row-major leaves
//                     (other layouts converted on the host), through the
//                     run's backends::HostTransfers (Executable::
//                     RunWithHost; Run has none: FailedPrecondition, as on
//                     the CPU);
//   send / recv / recv-done
//                     send copies its operand to the result's data and
//                     zeroes the u32 context; host-transfer send / recv go
//                     through HostTransfers; device-to-device channels
//                     through the run's channels (recv-done takes the
//                     oldest value sent), released when the run ends;
//   send-done         nothing to do (no step).
#ifndef HLOREF_BACKENDS_GPU_GPU_HOST_STEPS_H_
#define HLOREF_BACKENDS_GPU_GPU_HOST_STEPS_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "backends/backend.h"
#include "backends/gpu/gpu_program.h"
#include "spec/ir/hlo_module.h"

namespace hloref::gpu {

// The host step of `inst` when its opcode is host-staged (its `run` unset
// when the instruction has nothing to do: send-done, an infeed of ()); the
// step's inputs are then the array leaves of the operands (depth first, in
// operand order) and its outputs those of the result, for the caller to
// fill with buffer ids. nullopt for other opcodes (and annotation
// custom-calls). Errors: an unknown custom-call target or API version
// (Unimplemented), malformed shapes (InvalidArgument).
absl::StatusOr<std::optional<HostStep>> PlanHostStep(
    const HloInstruction& inst);

// The host-side state of one run (created per Executable::Run).
class HostStepRun {
 public:
  // `host`: the run's transfers, null for a plain Run.
  explicit HostStepRun(backends::HostTransfers* host);
  ~HostStepRun();
  HostStepRun(const HostStepRun&) = delete;
  HostStepRun& operator=(const HostStepRun&) = delete;
  HostStepContext& context() { return *context_; }

 private:
  std::unique_ptr<HostStepContext> context_;
};

}  // namespace hloref::gpu

#endif  // HLOREF_BACKENDS_GPU_GPU_HOST_STEPS_H_
