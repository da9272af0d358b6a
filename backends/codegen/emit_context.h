// EmitContext: what every emitter of backends/codegen works with while it
// generates the LLVM IR of one module: the IRBuilder positioned where code
// goes, the module, the current function's run-context pointer (an opaque
// `ptr` the target layer gives meaning to), the functions of called
// computations, and small helpers (constants, loops, scratch memory).
//
// Emitters come in two kinds (emitter_table.h):
//   elemental  given element generators of the operands, return the
//              generator of the result's elements; the computation emitter
//              materialises it with a loop nest or inlines it into a
//              consumer (fusion)
//   buffer     given the operands' and the result's buffers, emit the whole
//              instruction (sort, scatter, while, runtime calls ...)
#ifndef HLOREF_BACKENDS_CODEGEN_EMIT_CONTEXT_H_
#define HLOREF_BACKENDS_CODEGEN_EMIT_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "backends/codegen/ir_value.h"
#include "spec/ir/hlo_module.h"

namespace llvm {
class BasicBlock;
class Function;
class FunctionType;
class LLVMContext;
class Module;
class Type;
class Value;
class ConstantFolder;
class IRBuilderDefaultInserter;
template <typename FolderTy, typename InserterTy>
class IRBuilder;
}  // namespace llvm

namespace hloref::codegen {

using IRBuilder =
    llvm::IRBuilder<llvm::ConstantFolder, llvm::IRBuilderDefaultInserter>;

struct EmitterTable;

// Code generation options shared by every target.
struct CodegenOptions {
  // Producer-consumer fusion of element-wise chains in unfused modules
  // (fusion.h). Off: every instruction gets its own buffer and loop nest.
  bool fuse_elementwise = true;
  // With fuse_elementwise: also inline producers into a variadic reduce's
  // inputs (fusion.h); the computation emitter then calls
  // EmitVariadicReduce with their generators. The GPU emitter, which runs
  // buffer emitters in serial kernels over buffers, leaves it off.
  bool fuse_into_variadic_reduce = false;
  // Entry results of at least this many bytes are marked for streaming
  // (non-temporal) stores: the pointer loaded for such a result inside a
  // parallel loop body carries !align 64 and kStreamMetadata, and the
  // target may turn the body's vector stores through it into
  // non-temporal ones (cpu/jit.cc). Only for callers whose result buffers
  // are 64-byte aligned. 0: never.
  int64_t stream_result_min_bytes = 0;
  // Row-local loop nests grouped into one parallel loop (softmax, layer
  // norm: computation_emitter.cc GroupBlock) run block by block; a block
  // holds at most this many bytes of the longest rows any member reads or
  // writes, so that the rows a member reads again are still in cache. The
  // CPU backend sets it from the host's L1d (module_emitter.cc).
  int64_t row_group_block_bytes = 64 << 10;
  // In such a group, the pointer loaded for a parameter that a member
  // after the first reads at its own outer index carries
  // kPrefetchMetadata: the bytes of one block of that parameter's rows
  // (computation_emitter.cc MarkGroupPrefetch). The target may prefetch
  // that far ahead of the member's loads (cpu/jit.cc). Off: no metadata.
  bool group_prefetch = false;
  // Loop nests with less work than EmitContext::parallel_min_work but at
  // least this much (the same measure: elements times fused instructions)
  // are outlined like a parallel nest and run on the calling thread
  // (computation_emitter.cc SerialFor): their body gets the alias scopes,
  // row groups and vector code of a parallel nest, where a nest emitted in
  // line shares the computation's function with every other access of the
  // same buffers and often stays scalar (a one-head attention's exp and
  // divide did). Needs EmitContext::parallel_for (the CPU target). 0:
  // small nests stay in line.
  int64_t serial_outline_min_work = 0;
};

// The metadata kind that marks a streamed result's base pointer.
inline constexpr char kStreamMetadata[] = "hloref.stream";
// The metadata kind that marks a group parameter's base pointer with the
// bytes of one block of its rows (CodegenOptions::group_prefetch).
inline constexpr char kPrefetchMetadata[] = "hloref.prefetch_ahead";

class EmitContext {
 public:
  EmitContext(llvm::Module& module, IRBuilder& builder,
              const EmitterTable& table, CodegenOptions options);
  ~EmitContext();

  llvm::LLVMContext& context() const;
  llvm::Module& module() const { return module_; }
  IRBuilder& b() const { return builder_; }
  const EmitterTable& table() const { return table_; }
  const CodegenOptions& options() const { return options_; }

  // The run-context pointer of the function being emitted (its first
  // argument). Runtime calls pass it through.
  llvm::Value* run_context() const { return run_context_; }
  void set_run_context(llvm::Value* v) { run_context_ = v; }

  // ---- Called computations. Every computation compiles to one function
  //   void @name(ptr %ctx, ptr %params, ptr %results)
  // where %params / %results point to arrays of `ptr`, one per array leaf
  // of the parameters (in parameter order, depth first) and of the root
  // shape. The callee never writes its parameters; the results must not
  // alias the parameters.
  absl::StatusOr<llvm::Function*> GetComputationFunction(
      const HloComputation& computation);
  // Calls `computation` on buffers.
  absl::Status EmitCallComputation(const HloComputation& computation,
                                   absl::Span<const IrValue> params,
                                   const IrValue& result);
  // Calls a computation whose parameters and result are scalars or tuples
  // of scalars (reducers, comparators, map and scatter bodies) on COMPUTE
  // values, one per array leaf of the parameters in order; returns one
  // compute value per array leaf of the root. Scratch slots are allocas in
  // the entry block, so LLVM promotes them to registers after inlining.
  absl::StatusOr<std::vector<llvm::Value*>> EmitCallScalarComputation(
      const HloComputation& computation, absl::Span<llvm::Value* const> args);

  // ---- Helpers.
  llvm::Value* I64(int64_t v) const;
  llvm::Value* I32(int32_t v) const;
  llvm::Value* I1(bool v) const;
  llvm::Type* PtrType() const;
  // An alloca in the current function's entry block (so loops do not grow
  // the stack); `count` elements of `type`.
  llvm::Value* EntryAlloca(llvm::Type* type, int64_t count = 1,
                           absl::string_view name = "");
  // Scratch memory for `bytes` bytes, 64-byte aligned, valid until the
  // current function returns: an entry-block alloca when small, otherwise
  // the target's heap hook (released when the function returns).
  llvm::Value* EmitScratch(int64_t bytes, absl::string_view name = "");
  // A new value of `shape` in scratch memory.
  IrValue AllocateValue(const Shape& shape, absl::string_view name = "");
  // A function of the runtime, declared on first use.
  llvm::Function* GetRuntimeFunction(absl::string_view name,
                                     llvm::FunctionType* type);

  // EmitLoopNest interleaves its innermost loop only from this many
  // iterations on (see the note there).
  static constexpr int64_t kMinInterleavedExtent = 64;

  // for (i = start; i < end; i += step) body(i); i64 induction variable.
  // The builder is left after the loop. Errors from `body` stop emission.
  // `interleave` > 1 asks LLVM's loop vectoriser to interleave that many
  // vector iterations (independent chains hide the latency of long
  // dependent element computations); it never changes results.
  absl::Status EmitForLoop(
      absl::string_view name, llvm::Value* start, llvm::Value* end,
      llvm::Value* step, const std::function<absl::Status(llvm::Value*)>& body,
      int interleave = 0);
  // if (cond) then_body(); the builder is left after it.
  absl::Status EmitIf(llvm::Value* cond,
                      const std::function<absl::Status()>& then_body,
                      absl::string_view name = "if");
  // Loop nest over every logical index of an array shape, outermost loop
  // over the most major dimension of its layout (so the innermost loop walks
  // memory contiguously). Nothing is emitted for a zero-size shape; a
  // rank-0 shape runs the body once.
  absl::Status EmitLoopNest(
      const Shape& shape, absl::string_view name,
      const std::function<absl::Status(const IrIndex&)>& body);
  // Copies every array leaf of `from` into `to` (same shapes, possibly
  // different layouts).
  absl::Status EmitCopyValue(const IrValue& from, const IrValue& to);

  // Reports a run-time error with `message` (the run fails with it; code
  // after the call still runs and must stay memory safe). Unset: ignored.
  std::function<void(EmitContext&, const std::string& message)> report_error;
  // The same with the error's class (the status code the run fails with,
  // so a backend's verdict can match the oracle's: Unimplemented,
  // OutOfRange ...). Unset: report_error is used.
  std::function<void(EmitContext&, absl::StatusCode code,
                     const std::string& message)>
      report_error_code;
  // i64 runtime sizes for a dynamic array of `shape` (an entry alloca).
  llvm::Value* AllocateSizes(const Shape& shape);
  // The runtime size of dimension `dim` of `v` (its bound when static).
  llvm::Value* EmitDimensionSize(const IrValue& v, int64_t dim);

  // Target hooks (set by the target layer): heap scratch and its release.
  std::function<llvm::Value*(EmitContext&, llvm::Value* bytes)> heap_alloc;
  std::function<void(EmitContext&, llvm::Value* ptr)> heap_free;
  // Complex transcendentals and complex pow (complex_ir.h): computes
  // function `fn` (a ComplexFn code) of the double parts `parts` (re, im;
  // for pow the base's then the exponent's) and returns the result's
  // {re, im} as doubles. Unset: those ops are unimplemented.
  std::function<std::pair<llvm::Value*, llvm::Value*>(
      EmitContext&, int32_t fn, absl::Span<llvm::Value* const> parts)>
      complex_math;
  // p * 2^k rounded once to float (IEEE ldexp under the current rounding
  // mode: overflow to inf, subnormal results rounded once, NaN kept) for
  // float p, a scalar or a vector, and k of p's type holding integers of
  // magnitude at most 300 (or NaN where p is NaN), where the target has an
  // instruction for it (AVX-512's vscalefps: cpu/scalef.h) that its loop
  // vectoriser can widen. Unset: kernels build the power of two in the
  // exponent field instead.
  std::function<llvm::Value*(EmitContext&, llvm::Value* p, llvm::Value* k)>
      scale_by_power_of_two;
  // Runs `body` (void body(ptr env, i64 begin, i64 end)) over [0, n) split
  // into chunks, possibly on several threads, and returns when all chunks
  // are done. Unset: loop nests are never split.
  std::function<void(EmitContext&, llvm::Value* n, llvm::Function* body,
                     llvm::Value* env)>
      parallel_for;
  // A loop nest is split across threads when the instruction's work
  // (result elements, or operand elements when larger) reaches this.
  int64_t parallel_min_work = 1 << 16;
  // While a parallel loop nest's body is emitted: its outermost loop's
  // induction variable and the chunk's bounds on it (the body's
  // arguments), so that a generator whose index component is that
  // variable can size per-chunk work (a column reduction's block) to the
  // chunk. A hint only: generators stay correct for any index. index
  // null: none.
  struct ParallelChunk {
    llvm::Value* index = nullptr;
    llvm::Value* begin = nullptr;
    llvm::Value* end = nullptr;
  };
  ParallelChunk parallel_chunk;

  // State of the bounded-dynamic-shape rules for this module
  // (dynamic_shapes.cc: a static twin of the module whose instructions the
  // family emitters see), kept alive as long as the context.
  std::shared_ptr<void> dynamic_shape_state;

  // Per-function state the computation emitter manages.
  struct FunctionState {
    llvm::Function* function = nullptr;
    llvm::Value* run_context = nullptr;
    std::vector<llvm::Value*> heap_blocks;  // freed before each return
  };
  FunctionState* function_state() { return function_state_; }
  void set_function_state(FunctionState* s) { function_state_ = s; }

 private:
  llvm::Module& module_;
  IRBuilder& builder_;
  const EmitterTable& table_;
  CodegenOptions options_;
  llvm::Value* run_context_ = nullptr;
  FunctionState* function_state_ = nullptr;
  std::map<const HloComputation*, llvm::Function*> functions_;
  int64_t next_function_id_ = 0;
};

}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_EMIT_CONTEXT_H_
