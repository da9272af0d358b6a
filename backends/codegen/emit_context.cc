#include "backends/codegen/emit_context.h"

#include "absl/strings/str_cat.h"
#include "backends/codegen/computation_emitter.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {

namespace {
// Scratch at or below this size lives on the stack.
constexpr int64_t kMaxStackScratchBytes = 64 * 1024;
}  // namespace

EmitContext::EmitContext(llvm::Module& module, IRBuilder& builder,
                         const EmitterTable& table, CodegenOptions options)
    : module_(module), builder_(builder), table_(table), options_(options) {}

EmitContext::~EmitContext() = default;

llvm::LLVMContext& EmitContext::context() const { return module_.getContext(); }

absl::StatusOr<llvm::Function*> EmitContext::GetComputationFunction(
    const HloComputation& computation) {
  auto it = functions_.find(&computation);
  if (it != functions_.end()) return it->second;
  std::string name = absl::StrCat("hloref_comp_", next_function_id_++, "_",
                                  computation.name());
  for (char& c : name) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  // Save the caller's position and state: emission of the callee moves the
  // builder.
  llvm::IRBuilderBase::InsertPointGuard guard(builder_);
  FunctionState* saved_state = function_state_;
  llvm::Value* saved_ctx = run_context_;
  absl::StatusOr<llvm::Function*> f =
      EmitComputationFunction(*this, computation, name);
  function_state_ = saved_state;
  run_context_ = saved_ctx;
  if (!f.ok()) return f.status();
  functions_[&computation] = *f;
  return *f;
}

namespace {
// Whether every array leaf of `v` has the layout `shape` gives it (the
// descending default when absent).
bool LayoutsMatch(const IrValue& v, const Shape& shape) {
  if (shape.IsTuple()) {
    if (!v.IsTuple() || v.elements.size() != shape.tuple_shapes().size()) {
      return false;
    }
    for (size_t i = 0; i < v.elements.size(); ++i) {
      if (!LayoutsMatch(v.elements[i], shape.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (!shape.IsArray()) return true;
  if (!v.IsArray()) return false;
  std::vector<int64_t> want = shape.LayoutOrDefault().minor_to_major;
  if (static_cast<int64_t>(want.size()) != shape.rank()) {
    want = Layout::Descending(shape.rank()).minor_to_major;
  }
  return absl::Span<const int64_t>(want) == v.array.minor_to_major();
}
}  // namespace

absl::Status EmitContext::EmitCallComputation(const HloComputation& computation,
                                              absl::Span<const IrValue> params,
                                              const IrValue& result) {
  // The callee's parameters and root have their own layouts (a computation
  // written without layouts uses the descending default): values in other
  // layouts are copied into the callee's layout first, and a result
  // computed in the root's layout is copied out after the call.
  if (static_cast<int64_t>(params.size()) == computation.num_parameters()) {
    bool params_match = true;
    for (size_t i = 0; i < params.size(); ++i) {
      params_match = params_match &&
                     LayoutsMatch(params[i], computation.parameter(i)->shape());
    }
    const Shape& root = computation.root()->shape();
    const bool result_matches = LayoutsMatch(result, root);
    if (!params_match || !result_matches) {
      std::vector<IrValue> relaid;
      for (size_t i = 0; i < params.size(); ++i) {
        const Shape& want = computation.parameter(i)->shape();
        if (LayoutsMatch(params[i], want)) {
          relaid.push_back(params[i]);
          continue;
        }
        Shape s = want;
        relaid.push_back(AllocateValue(s, "relayout"));
        HLOREF_RETURN_IF_ERROR(EmitCopyValue(params[i], relaid.back()));
      }
      if (result_matches)
        return EmitCallComputation(computation, relaid, result);
      IrValue temp = AllocateValue(root, "relayout");
      HLOREF_RETURN_IF_ERROR(EmitCallComputation(computation, relaid, temp));
      return EmitCopyValue(temp, result);
    }
  }
  HLOREF_ASSIGN_OR_RETURN(llvm::Function * f,
                          GetComputationFunction(computation));
  // Array leaves, then the runtime sizes of the dynamic ones (ir_value.h).
  std::vector<IrArray> param_arrays, result_arrays;
  std::vector<llvm::Value*> param_sizes, result_sizes;
  for (const IrValue& p : params) {
    p.CollectArrays(&param_arrays);
    p.CollectSizes(&param_sizes);
  }
  result.CollectArrays(&result_arrays);
  result.CollectSizes(&result_sizes);
  std::vector<llvm::Value*> param_slots, result_slots;
  for (const IrArray& a : param_arrays) param_slots.push_back(a.base());
  param_slots.insert(param_slots.end(), param_sizes.begin(), param_sizes.end());
  for (const IrArray& a : result_arrays) result_slots.push_back(a.base());
  result_slots.insert(result_slots.end(), result_sizes.begin(),
                      result_sizes.end());
  for (llvm::Value* v : param_slots) {
    if (v == nullptr) return absl::InternalError("a dynamic value lacks sizes");
  }
  for (llvm::Value* v : result_slots) {
    if (v == nullptr) return absl::InternalError("a dynamic value lacks sizes");
  }
  llvm::Type* ptr = PtrType();
  llvm::Value* params_array =
      EntryAlloca(ptr, std::max<int64_t>(1, param_slots.size()), "params");
  llvm::Value* results_array =
      EntryAlloca(ptr, std::max<int64_t>(1, result_slots.size()), "results");
  for (size_t i = 0; i < param_slots.size(); ++i) {
    builder_.CreateStore(param_slots[i], builder_.CreateConstInBoundsGEP1_64(
                                             ptr, params_array, i));
  }
  for (size_t i = 0; i < result_slots.size(); ++i) {
    builder_.CreateStore(result_slots[i], builder_.CreateConstInBoundsGEP1_64(
                                              ptr, results_array, i));
  }
  builder_.CreateCall(f, {run_context_, params_array, results_array});
  return absl::OkStatus();
}

absl::StatusOr<std::vector<llvm::Value*>>
EmitContext::EmitCallScalarComputation(const HloComputation& computation,
                                       absl::Span<llvm::Value* const> args) {
  std::vector<IrValue> params;
  size_t next_arg = 0;
  // Builds a value of `shape` in entry-block allocas, storing args.
  std::function<absl::StatusOr<IrValue>(const Shape&, bool)> build =
      [&](const Shape& shape, bool fill) -> absl::StatusOr<IrValue> {
    IrValue v;
    v.shape = shape;
    if (shape.IsTuple()) {
      for (const Shape& e : shape.tuple_shapes()) {
        HLOREF_ASSIGN_OR_RETURN(IrValue ev, build(e, fill));
        v.elements.push_back(std::move(ev));
      }
    } else if (shape.IsArray()) {
      if (shape.num_elements() != 1) {
        return absl::UnimplementedError(
            absl::StrCat("computation ", computation.name(),
                         " is called per element but has the non-scalar shape ",
                         shape.ToString()));
      }
      llvm::Type* st = StorageType(context(), shape.element_type());
      v.array = IrArray(EntryAlloca(st, 1, "scalar"), shape);
      if (fill) {
        if (next_arg >= args.size()) {
          return absl::InternalError("too few scalar arguments");
        }
        v.array.EmitWrite(*this, IrIndex(shape.rank(), I64(0)),
                          args[next_arg++]);
      }
    }
    return v;
  };
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    HLOREF_ASSIGN_OR_RETURN(
        IrValue p, build(computation.parameter(i)->shape(), /*fill=*/true));
    params.push_back(std::move(p));
  }
  if (next_arg != args.size()) {
    return absl::InternalError(
        absl::StrCat("computation ", computation.name(), " takes ", next_arg,
                     " scalars, called with ", args.size()));
  }
  HLOREF_ASSIGN_OR_RETURN(IrValue result,
                          build(computation.root()->shape(), /*fill=*/false));
  HLOREF_RETURN_IF_ERROR(EmitCallComputation(computation, params, result));
  std::vector<IrArray> leaves;
  result.CollectArrays(&leaves);
  std::vector<llvm::Value*> out;
  for (const IrArray& a : leaves) {
    out.push_back(a.EmitRead(*this, IrIndex(a.shape().rank(), I64(0))));
  }
  return out;
}

llvm::Value* EmitContext::I64(int64_t v) const {
  return llvm::ConstantInt::get(builder_.getInt64Ty(), v);
}
llvm::Value* EmitContext::I32(int32_t v) const {
  return llvm::ConstantInt::get(builder_.getInt32Ty(), v);
}
llvm::Value* EmitContext::I1(bool v) const {
  return llvm::ConstantInt::get(builder_.getInt1Ty(), v);
}
llvm::Type* EmitContext::PtrType() const { return builder_.getPtrTy(); }

llvm::Value* EmitContext::EntryAlloca(llvm::Type* type, int64_t count,
                                      absl::string_view name) {
  llvm::Function* f = builder_.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  llvm::AllocaInst* a =
      entry.CreateAlloca(type, entry.getInt64(count), std::string(name));
  a->setAlignment(llvm::Align(16));
  return a;
}

llvm::Value* EmitContext::EmitScratch(int64_t bytes, absl::string_view name) {
  bytes = std::max<int64_t>(bytes, 1);
  if (bytes <= kMaxStackScratchBytes || !heap_alloc) {
    llvm::Function* f = builder_.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    llvm::AllocaInst* a = entry.CreateAlloca(
        entry.getInt8Ty(), entry.getInt64(bytes), std::string(name));
    a->setAlignment(llvm::Align(64));
    return a;
  }
  // Heap scratch is allocated in the entry block (after the allocas), so it
  // dominates every use, and released before the function returns.
  llvm::Function* f = builder_.GetInsertBlock()->getParent();
  llvm::IRBuilderBase::InsertPointGuard guard(builder_);
  llvm::BasicBlock& entry = f->getEntryBlock();
  if (entry.getTerminator()) {
    builder_.SetInsertPoint(entry.getTerminator());
  } else {
    builder_.SetInsertPoint(&entry);
  }
  llvm::Value* p = heap_alloc(*this, I64(bytes));
  if (function_state_) function_state_->heap_blocks.push_back(p);
  return p;
}

IrValue EmitContext::AllocateValue(const Shape& shape, absl::string_view name) {
  IrValue v;
  v.shape = shape;
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) {
      v.elements.push_back(AllocateValue(e, name));
    }
  } else if (shape.IsArray()) {
    v.array = IrArray(EmitScratch(ArrayBytes(shape), name), shape);
    if (!shape.is_static()) v.sizes = AllocateSizes(shape);
  }
  return v;
}

llvm::Value* EmitContext::AllocateSizes(const Shape& shape) {
  return EntryAlloca(builder_.getInt64Ty(), std::max<int64_t>(1, shape.rank()),
                     "sizes");
}

llvm::Value* EmitContext::EmitDimensionSize(const IrValue& v, int64_t dim) {
  if (v.sizes == nullptr || !v.shape.is_dynamic_dimension(dim)) {
    return I64(v.shape.dimensions(dim));
  }
  return builder_.CreateLoad(
      builder_.getInt64Ty(),
      builder_.CreateConstInBoundsGEP1_64(builder_.getInt64Ty(), v.sizes, dim));
}

llvm::Function* EmitContext::GetRuntimeFunction(absl::string_view name,
                                                llvm::FunctionType* type) {
  llvm::FunctionCallee callee = module_.getOrInsertFunction(
      llvm::StringRef(name.data(), name.size()), type);
  return llvm::cast<llvm::Function>(callee.getCallee());
}

absl::Status EmitContext::EmitForLoop(
    absl::string_view name, llvm::Value* start, llvm::Value* end,
    llvm::Value* step, const std::function<absl::Status(llvm::Value*)>& body,
    int interleave) {
  IRBuilder& b = builder_;
  llvm::Function* f = b.GetInsertBlock()->getParent();
  std::string n(name);
  llvm::BasicBlock* preheader = b.GetInsertBlock();
  llvm::BasicBlock* header =
      llvm::BasicBlock::Create(context(), n + ".header", f);
  llvm::BasicBlock* body_bb =
      llvm::BasicBlock::Create(context(), n + ".body", f);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context(), n + ".exit", f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* iv = b.CreatePHI(b.getInt64Ty(), 2, n + ".iv");
  iv->addIncoming(start, preheader);
  b.CreateCondBr(b.CreateICmpSLT(iv, end), body_bb, exit);
  b.SetInsertPoint(body_bb);
  HLOREF_RETURN_IF_ERROR(body(iv));
  llvm::Value* next = b.CreateAdd(iv, step, n + ".next", /*NUW=*/true,
                                  /*NSW=*/true);
  iv->addIncoming(next, b.GetInsertBlock());
  llvm::BranchInst* latch = b.CreateBr(header);
  if (interleave > 1) {
    llvm::LLVMContext& c = context();
    llvm::Metadata* count[] = {
        llvm::MDString::get(c, "llvm.loop.interleave.count"),
        llvm::ConstantAsMetadata::get(b.getInt32(interleave))};
    llvm::TempMDTuple temp = llvm::MDNode::getTemporary(c, {});
    llvm::Metadata* ops[] = {temp.get(), llvm::MDNode::get(c, count)};
    llvm::MDNode* loop = llvm::MDNode::getDistinct(c, ops);
    loop->replaceOperandWith(0, loop);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop);
  }
  b.SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status EmitContext::EmitIf(llvm::Value* cond,
                                 const std::function<absl::Status()>& then_body,
                                 absl::string_view name) {
  IRBuilder& b = builder_;
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* then_bb =
      llvm::BasicBlock::Create(context(), absl::StrCat(name, ".then"), f);
  llvm::BasicBlock* cont =
      llvm::BasicBlock::Create(context(), absl::StrCat(name, ".cont"), f);
  b.CreateCondBr(cond, then_bb, cont);
  b.SetInsertPoint(then_bb);
  HLOREF_RETURN_IF_ERROR(then_body());
  b.CreateBr(cont);
  b.SetInsertPoint(cont);
  return absl::OkStatus();
}

absl::Status EmitContext::EmitLoopNest(
    const Shape& shape, absl::string_view name,
    const std::function<absl::Status(const IrIndex&)>& body) {
  const int64_t rank = shape.rank();
  for (int64_t d : shape.dimensions()) {
    if (d == 0) return absl::OkStatus();
  }
  Layout layout = shape.LayoutOrDefault();
  std::vector<int64_t> m2m = layout.minor_to_major;
  if (static_cast<int64_t>(m2m.size()) != rank) {
    m2m = Layout::Descending(rank).minor_to_major;
  }
  IrIndex index(rank, nullptr);
  // Dimensions of size 1 need no loop.
  std::function<absl::Status(int64_t)> nest =
      [&](int64_t level) -> absl::Status {
    if (level < 0) return body(index);
    int64_t dim = m2m[level];
    if (shape.dimensions(dim) == 1) {
      index[dim] = I64(0);
      return nest(level - 1);
    }
    // The innermost loop walks memory contiguously: interleave it when it
    // is long enough for four vector iterations to be worth it. A forced
    // interleave count on a short loop (trip count 3..15) makes LLVM 19's
    // vectoriser tail-fold it with predicated scalar chains, and
    // InnerLoopVectorizer::sinkScalarOperands then runs for hours on a long
    // element computation (a map of f16 conversions: reproduced with
    // opt-19 -O2; EmitContextTest.ShortLoopsAreNotInterleaved).
    const int64_t extent = shape.dimensions(dim);
    const int interleave =
        level == 0 && extent >= kMinInterleavedExtent ? 4 : 0;
    return EmitForLoop(
        absl::StrCat(name, ".d", dim), I64(0), I64(shape.dimensions(dim)),
        I64(1),
        [&](llvm::Value* iv) -> absl::Status {
          index[dim] = iv;
          return nest(level - 1);
        },
        interleave);
  };
  return nest(rank - 1);
}

absl::Status EmitContext::EmitCopyValue(const IrValue& from,
                                        const IrValue& to) {
  // The runtime sizes of dynamic leaves first.
  std::vector<const IrValue*> from_dynamic, to_dynamic;
  std::function<void(const IrValue&, std::vector<const IrValue*>*)> dynamic =
      [&](const IrValue& v, std::vector<const IrValue*>* out) {
        if (v.IsDynamicArray()) out->push_back(&v);
        for (const IrValue& e : v.elements) dynamic(e, out);
      };
  dynamic(from, &from_dynamic);
  dynamic(to, &to_dynamic);
  if (from_dynamic.size() != to_dynamic.size()) {
    return absl::InternalError("EmitCopyValue: dynamic leaf counts differ");
  }
  for (size_t i = 0; i < from_dynamic.size(); ++i) {
    const IrValue& f = *from_dynamic[i];
    const IrValue& t = *to_dynamic[i];
    if (f.sizes == nullptr || t.sizes == nullptr) {
      return absl::InternalError("a dynamic value lacks its runtime sizes");
    }
    if (f.sizes == t.sizes) continue;
    builder_.CreateMemCpy(t.sizes, llvm::MaybeAlign(8), f.sizes,
                          llvm::MaybeAlign(8), I64(8 * f.shape.rank()));
  }
  std::vector<IrArray> src, dst;
  from.CollectArrays(&src);
  to.CollectArrays(&dst);
  if (src.size() != dst.size()) {
    return absl::InternalError("EmitCopyValue: leaf counts differ");
  }
  for (size_t i = 0; i < src.size(); ++i) {
    const IrArray& s = src[i];
    const IrArray& d = dst[i];
    if (!s.shape().SameDimensions(d.shape())) {
      return absl::InternalError(absl::StrCat(
          "copy between buffers of different shapes: ", s.shape().ToString(),
          " -> ", d.shape().ToString()));
    }
    if (s.base() == d.base()) continue;
    if (s.minor_to_major() == d.minor_to_major()) {
      builder_.CreateMemCpy(d.base(), llvm::MaybeAlign(1), s.base(),
                            llvm::MaybeAlign(1), I64(s.SizeInBytes()));
      continue;
    }
    llvm::Type* st = StorageType(context(), s.element_type());
    HLOREF_RETURN_IF_ERROR(
        EmitLoopNest(d.shape(), "copy", [&](const IrIndex& idx) {
          llvm::Value* v =
              builder_.CreateLoad(st, s.EmitElementPointer(*this, idx));
          builder_.CreateStore(v, d.EmitElementPointer(*this, idx));
          return absl::OkStatus();
        }));
  }
  return absl::OkStatus();
}

}  // namespace hloref::codegen
