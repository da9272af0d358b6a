// Host transfers of the CPU backend's runtime: infeed, outfeed,
// host-transfer send / recv through RunContext::host (the HostTransfers of
// Executable::RunWithHost), and the device-to-device channels of one
// participant's run (a send deposits its operand, the matching recv-done
// takes the oldest value of the channel; the oracle's rules, seed 001
// "Send" / "Recv", interpreter/ops/host_io.cc read, not linked).
//
// Shapes reach the runtime as an i64 descriptor the emitter writes
// (EncodeShape's format): array [0, type, rank, dims...], tuple
// [1, count, elements...], token [2]. Array leaves are row-major.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_HOST_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_HOST_H_

#include <cstdint>
#include <vector>

#include "backends/cpu/runtime/run_context.h"
#include "spec/types/shape.h"

namespace hloref::cpu {

// Appends the descriptor of `shape` (layouts ignored) to `out`.
void EncodeShape(const Shape& shape, std::vector<int64_t>* out);
// Reads one shape descriptor at *p and advances p.
Shape DecodeShape(const int64_t** p);

// The `kind` argument of hloref_cpu_host_transfer (below).
enum HostTransferKind : int64_t {
  kInfeed = 0,
  kOutfeed = 1,
  kSend = 2,
  kRecvHost = 3,
  kRecvDoneDevice = 4,
};

// Drops the device-to-device channels of a finished run.
void ReleaseDeviceChannels(RunContext* ctx);

}  // namespace hloref::cpu

extern "C" {
// kind: 0 infeed (fills `leaves` with the next infeed value), 1 outfeed
// (appends the value in `leaves`), 2 send (host transfer when is_host,
// else the run's device channel), 3 recv with is_host_transfer (fills
// `leaves`), 4 recv-done of a device channel (fills `leaves`). `shape`
// describes the value's shape; `name` names the instruction.
void hloref_cpu_host_transfer(hloref::cpu::RunContext* ctx, int64_t kind,
                              const int64_t* shape, const char* name,
                              int64_t channel, int64_t is_host, void** leaves);
}

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_HOST_H_
