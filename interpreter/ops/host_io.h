// The host I/O family: infeed (seed 001 "Infeed"), outfeed
// (docs/hlo-text-format.md 6.12), send / send-done (seed 001 "Send") and
// recv / recv-done ("Recv").
//
// Values come from and go to the caller's HostQueues
// (interpreter/host_queues.h, EvaluatorOptions::host_queues):
//   * infeed pops the oldest infeed value (nothing for an empty-tuple data
//     shape, as the seed says); outfeed appends its operand;
//   * send with is_host_transfer=true appends its operand to the host's
//     queue for its channel_id; recv with is_host_transfer=true pops the
//     oldest value the caller queued for its channel_id;
//   * send/recv without is_host_transfer are a device-to-device pair in the
//     same run, matched by channel_id (absent = 0): send deposits its
//     operand in the run's mailbox, recv-done takes the oldest one.
// Tokens are threaded through unchanged (a token has no value). The
// request-identifier u32 of a send/recv context is 0, and a device recv's
// context buffer holds zeros until recv-done: only the -done ops consume a
// context, and they do not read either.
//
// Errors: FailedPrecondition when host queues are needed and absent;
// InvalidArgument, located at the instruction, for an empty infeed or
// recv queue, a recv-done with no matching send before it (which would
// deadlock on a device), and a queued value whose shape (element types and
// dimensions) differs from the instruction's.
#ifndef HLOREF_INTERPRETER_OPS_HOST_IO_H_
#define HLOREF_INTERPRETER_OPS_HOST_IO_H_

#include "interpreter/ops/families.h"

#endif  // HLOREF_INTERPRETER_OPS_HOST_IO_H_
