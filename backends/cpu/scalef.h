// p * 2^k rounded once, as AVX-512's vscalefps computes it, for kernels
// emitted as scalar IR that LLVM's loop vectoriser widens.
//
// The loop vectoriser widens only the intrinsics it knows, and LLVM 19
// does not widen llvm.ldexp (a <16 x float> ldexp becomes sixteen ldexpf
// calls). So the kernels call a declared function, @hloref.scalef.f32,
// whose call sites name vector variants of 4, 8 and 16 lanes
// ("vector-function-abi-variant"); the vectoriser calls the variant of its
// width. After the optimisation pipeline, LowerScalefCalls replaces every
// call to these functions with the x86 intrinsic of its width and removes
// the declarations, so no call is left to resolve.
#ifndef HLOREF_BACKENDS_CPU_SCALEF_H_
#define HLOREF_BACKENDS_CPU_SCALEF_H_

#include <cstdint>

namespace llvm {
class IRBuilderBase;
class Module;
class Value;
}  // namespace llvm

namespace hloref::cpu {

// Whether modules for this host use vscalefps: the host has AVX-512F and
// AVX-512VL (for the 4- and 8-lane variants), and HLOREF_CPU_SCALEF is not
// "0" (read at each call: a switch for measurements and for the tests that
// compare the two ways).
bool UseScalefForHost();

// p * 2^k for float p (a scalar, or a vector of 4, 8 or 16 floats) and k of
// p's type holding integers (or NaN where p is NaN), rounded once to float
// under the current rounding mode, as vscalefps computes it (overflow to
// inf, subnormal results rounded once, NaN propagated). Emits a call that
// LowerScalefCalls must lower (at the builder's insertion point, in its
// function's module): only for modules that go through jit.cc's Optimize.
llvm::Value* EmitScalefCall(llvm::IRBuilderBase& b, llvm::Value* p,
                            llvm::Value* k);

// Replaces every call emitted by EmitScalefCall (and the vectoriser's
// widened ones) with the AVX-512 intrinsic of its width and erases the
// declarations. Returns the number of calls lowered.
int64_t LowerScalefCalls(llvm::Module& module);

}  // namespace hloref::cpu

#endif  // HLOREF_BACKENDS_CPU_SCALEF_H_
