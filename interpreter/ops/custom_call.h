// The custom-call family (seed 001 "CustomCall"; attributes in
// docs/hlo-text-format.md 6.9).
//
// custom_call_target is resolved, in order, in
//   1. EvaluatorOptions::custom_call_registry (in-process targets, which
//      receive the instruction and the operand literals), then
//   2. the shared libraries of EvaluatorOptions::custom_call_libraries, in
//      order (dlopen'ed only because the user listed them), as a symbol
//      with the seed's ABI `extern "C" void target(void* out, void** in)`.
// An unknown target is Unimplemented (the oracle cannot evaluate it: a
// conformance run reports "unsupported"), naming it, the registered
// targets and the libraries searched; a library that cannot be opened is
// NotFound naming it and the loader's reason.
//
// Buffers passed to a library target (the seed's example reads
// `float (&y)[2][3] = *static_cast<float(*)[2][3]>(in[1])`):
//   * an array is one contiguous buffer, elements in the physical order of
//     the shape's layout (minor_to_major; row-major when the shape has no
//     layout, as in the seed's example; tiles are ignored), one element
//     per StorageBytes of its type (pred one byte 0/1; sub-byte types one
//     per byte, unpacked);
//   * a tuple is an array of void*, one per element buffer (recursively),
//     for operands and for the result (XLA's original CPU convention);
//   * a token is a null pointer;
//   * the result buffers start zeroed and are read back after the call.
// Only api_version API_VERSION_ORIGINAL (the default) can be called from a
// library; the status-returning and typed-FFI ABIs are Unimplemented.
// The seed requires targets to be side-effect free and idempotent; the
// oracle calls each once per execution of the instruction.
#ifndef HLOREF_INTERPRETER_OPS_CUSTOM_CALL_H_
#define HLOREF_INTERPRETER_OPS_CUSTOM_CALL_H_

#include "interpreter/ops/families.h"

#endif  // HLOREF_INTERPRETER_OPS_CUSTOM_CALL_H_
