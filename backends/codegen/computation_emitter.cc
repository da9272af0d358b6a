#include "backends/codegen/computation_emitter.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/codegen/buffer_assignment.h"
#include "backends/codegen/dynamic_shapes.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/fusion.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "spec/ir/opcode.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {

absl::Status InstructionCodegenError(const HloInstruction& inst,
                                     const absl::Status& status) {
  std::string where = inst.location().known()
                          ? absl::StrCat(inst.location().ToString(), ": ")
                          : "";
  return absl::Status(
      status.code(),
      absl::StrCat(where, inst.ShortDescription(), ": ", status.message()));
}

namespace {

// True when a buffer of `from` can be read as `to` without moving bytes:
// same element storage size and element count, and both layouts list the
// elements in row-major order of their own dimensions.
bool IsRowMajorReinterpretation(const Shape& from, const Shape& to) {
  if (!from.IsArray() || !to.IsArray()) return false;
  if (StorageBytes(from.element_type()) != StorageBytes(to.element_type()))
    return false;
  if (from.num_elements() != to.num_elements()) return false;
  auto descending = [](const Shape& s) {
    Layout l = s.LayoutOrDefault();
    return static_cast<int64_t>(l.minor_to_major.size()) != s.rank() ||
           l.IsDescending();
  };
  return descending(from) && descending(to);
}

class ComputationEmitter : public DynamicShapeHost {
 public:
  ComputationEmitter(EmitContext& ctx, const HloComputation& comp)
      : ctx_(ctx), comp_(comp), b_(ctx.b()) {}

  absl::StatusOr<llvm::Function*> Emit(const std::string& name) {
    llvm::LLVMContext& c = ctx_.context();
    llvm::Type* ptr = ctx_.PtrType();
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, ptr}, false);
    llvm::Function* f = llvm::Function::Create(
        fty, llvm::GlobalValue::InternalLinkage, name, ctx_.module());
    f->getArg(0)->setName("ctx");
    f->getArg(1)->setName("params");
    f->getArg(2)->setName("results");
    f->addFnAttr(llvm::Attribute::NoUnwind);
    state_.function = f;
    state_.run_context = f->getArg(0);
    ctx_.set_function_state(&state_);
    ctx_.set_run_context(f->getArg(0));

    llvm::BasicBlock* entry = llvm::BasicBlock::Create(c, "entry", f);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(c, "body", f);
    b_.SetInsertPoint(entry);

    // Parameter and result leaves: array buffers first, then the sizes of
    // the dynamic ones (ir_value.h).
    int64_t leaf = 0;
    int64_t dynamic_slot = 0;
    for (int64_t i = 0; i < comp_.num_parameters(); ++i) {
      const HloInstruction* p = comp_.parameter(i);
      if (p == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("computation ", comp_.name(), " lacks parameter ", i));
      }
      std::vector<Shape> arrays;
      CollectArrayShapes(p->shape(), &arrays);
      dynamic_slot += static_cast<int64_t>(arrays.size());
    }
    for (int64_t i = 0; i < comp_.num_parameters(); ++i) {
      const HloInstruction* p = comp_.parameter(i);
      values_[p] = LoadLeaves(p->shape(), f->getArg(1), &leaf, &dynamic_slot,
                              Origin::kParam);
    }
    leaf = 0;
    {
      std::vector<Shape> arrays;
      CollectArrayShapes(comp_.root()->shape(), &arrays);
      dynamic_slot = static_cast<int64_t>(arrays.size());
    }
    results_ = LoadLeaves(comp_.root()->shape(), f->getArg(2), &leaf,
                          &dynamic_slot, Origin::kResult);

    inlined_ = ChooseInlinedInstructions(ctx_, comp_);
    const absl::flat_hash_set<const HloInstruction*> in_place =
        RootInPlaceOperands();
    plan_ = AssignBuffers(
        comp_, [this](const HloInstruction& i) { return StorageOf(i); },
        /*root_writes_results=*/true, &in_place);
    if (plan_.scratch_bytes > 0) {
      scratch_ = ctx_.EmitScratch(plan_.scratch_bytes, "scratch");
    }

    b_.SetInsertPoint(body);
    for (const auto& inst : comp_.instructions()) {
      group_touched_ = false;
      absl::Status s = EmitInstruction(*inst);
      if (!s.ok()) return InstructionCodegenError(*inst, s);
      // Anything else emitted here runs after the group's call, so later
      // loop nests may not join it (they would run before this code).
      if (!group_touched_ && !inlined_.contains(inst.get()) &&
          inst->opcode() != HloOpcode::kParameter &&
          inst->opcode() != HloOpcode::kConstant) {
        group_.reset();
      }
    }
    // The root's value into the result buffers when it is elsewhere.
    const IrValue& root = values_.at(comp_.root());
    HLOREF_RETURN_IF_ERROR(ctx_.EmitCopyValue(root, results_));

    // Release heap scratch and return.
    for (llvm::Value* p : state_.heap_blocks) {
      if (ctx_.heap_free) ctx_.heap_free(ctx_, p);
    }
    b_.CreateRetVoid();
    b_.SetInsertPoint(entry);
    b_.CreateBr(body);
    return f;
  }

 private:
  // Where a buffer pointer of this function comes from, so a loop nest
  // outlined into a parallel body can re-derive it there.
  struct Origin {
    enum Kind { kParam, kResult, kScratch } kind;
    int64_t index;      // leaf slot, or offset in the scratch block
    int64_t bytes = 0;  // kScratch: the value's bytes from `index`
  };

  IrValue LoadLeaves(const Shape& shape, llvm::Value* array, int64_t* leaf,
                     int64_t* dynamic_slot, Origin::Kind kind) {
    IrValue v;
    v.shape = shape;
    if (shape.IsTuple()) {
      for (const Shape& e : shape.tuple_shapes()) {
        v.elements.push_back(LoadLeaves(e, array, leaf, dynamic_slot, kind));
      }
    } else if (shape.IsArray()) {
      int64_t index = (*leaf)++;
      llvm::Value* slot =
          b_.CreateConstInBoundsGEP1_64(ctx_.PtrType(), array, index);
      llvm::Value* base = b_.CreateLoad(ctx_.PtrType(), slot);
      origins_[base] = {kind, index};
      v.array = IrArray(base, shape);
      if (!shape.is_static()) {
        v.sizes = b_.CreateLoad(
            ctx_.PtrType(), b_.CreateConstInBoundsGEP1_64(ctx_.PtrType(), array,
                                                          (*dynamic_slot)++));
      }
    }
    return v;
  }

  ValueStorage StorageOf(const HloInstruction& inst) {
    if (inlined_.contains(&inst)) return ValueStorage::kInlined;
    switch (inst.opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kAfterAll:
      case HloOpcode::kPartitionId:
      case HloOpcode::kReplicaId:
        return inst.opcode() == HloOpcode::kParameter ||
                       inst.opcode() == HloOpcode::kConstant ||
                       inst.opcode() == HloOpcode::kAfterAll
                   ? ValueStorage::kExternal
                   : ValueStorage::kOwns;
      case HloOpcode::kTuple:
      case HloOpcode::kGetTupleElement:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kAddDependency:
      case HloOpcode::kDomain:
      case HloOpcode::kAsyncUpdate:
      case HloOpcode::kAsyncDone:
      case HloOpcode::kCopyDone:
        return ValueStorage::kAliases;
      case HloOpcode::kBitcast:
        if (inst.shape().IsArray() && inst.operand(0)->shape().IsArray() &&
            ArrayBytes(inst.shape()) == ArrayBytes(inst.operand(0)->shape()) &&
            !inlined_.contains(inst.operand(0))) {
          return ValueStorage::kAliases;
        }
        return ValueStorage::kOwns;
      case HloOpcode::kReshape:
        // A dynamic reshape moves valid elements (dynamic_shapes.h).
        if (inst.shape().is_static() && inst.operand(0)->shape().is_static() &&
            IsRowMajorReinterpretation(inst.operand(0)->shape(),
                                       inst.shape()) &&
            !inlined_.contains(inst.operand(0))) {
          return ValueStorage::kAliases;
        }
        return ValueStorage::kOwns;
      default:
        return ValueStorage::kOwns;
    }
  }

  // Whether `op` is an element-wise opcode whose elemental emitter reads
  // each operand of its own dimensions at the output index only.
  static bool ReadsAtOwnIndex(const HloInstruction& op) {
    return op.opcode() != HloOpcode::kMap && IsElementwiseForSizes(op.opcode());
  }

  // The values the root reads only at its own element index, laid out as
  // its result (buffer_assignment.h "In place into the result"): the root
  // is element-wise and emitted elementally, and the path from it to the
  // value runs through inlined element-wise instructions of the root's
  // dimensions. A value also reached through any other path (a broadcast,
  // a slice, a reduce ...) is left out.
  absl::flat_hash_set<const HloInstruction*> RootInPlaceOperands() {
    absl::flat_hash_set<const HloInstruction*> same, other;
    const HloInstruction* root = comp_.root();
    const Shape& rs = root->shape();
    if (inlined_.contains(root) || !rs.IsArray() || !rs.is_static() ||
        !ReadsAtOwnIndex(*root) || !ctx_.table().Elemental(root->opcode()) ||
        !CanEmitElementally(ctx_, *root)) {
      return same;
    }
    auto laid_out_as_root = [&](const Shape& s) {
      if (!s.IsArray() || !s.is_static() || !s.SameDimensions(rs) ||
          StorageBytes(s.element_type()) != StorageBytes(rs.element_type())) {
        return false;
      }
      return IrArray(nullptr, s).minor_to_major() ==
             IrArray(nullptr, rs).minor_to_major();
    };
    // (instruction, whether every step so far read at the root's index)
    std::vector<std::pair<const HloInstruction*, bool>> stack = {{root, true}};
    absl::flat_hash_set<std::pair<const HloInstruction*, bool>> seen;
    while (!stack.empty()) {
      auto [x, at_index] = stack.back();
      stack.pop_back();
      if (!seen.insert({x, at_index}).second) continue;
      for (const HloInstruction* op : x->operands()) {
        const bool step = at_index && ReadsAtOwnIndex(*x) &&
                          op->shape().IsArray() &&
                          op->shape().SameDimensions(x->shape());
        if (inlined_.contains(op)) {
          stack.push_back({op, step});
        } else if (step && laid_out_as_root(op->shape())) {
          same.insert(op);
        } else {
          other.insert(op);
        }
      }
    }
    for (const HloInstruction* o : other) same.erase(o);
    return same;
  }

  // The owned value of `inst`: the result buffers for the root (and for
  // the temporary buffer assignment put there), else its slots in the
  // scratch block.
  IrValue OwnedValue(const HloInstruction& inst) {
    if (&inst == comp_.root()) return results_;
    if (&inst == plan_.in_result) {
      IrValue v;
      v.shape = inst.shape();
      v.array = IrArray(results_.array.base(), inst.shape());
      return v;
    }
    const std::vector<int64_t>& offsets = plan_.offsets.at(&inst);
    size_t leaf = 0;
    std::function<IrValue(const Shape&)> build = [&](const Shape& s) {
      IrValue v;
      v.shape = s;
      if (s.IsTuple()) {
        for (const Shape& e : s.tuple_shapes()) v.elements.push_back(build(e));
      } else if (s.IsArray()) {
        const int64_t offset = offsets[leaf++];
        llvm::Value* p =
            b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), scratch_, offset);
        origins_[p] = {Origin::kScratch, offset, ArrayBytes(s)};
        v.array = IrArray(p, s);
        if (!s.is_static()) v.sizes = ctx_.AllocateSizes(s);
      }
      return v;
    };
    return build(inst.shape());
  }

  // The element generator of an instruction's value.
  absl::StatusOr<ElementGenerator> GeneratorOf(const HloInstruction& inst) {
    if (inlined_.contains(&inst)) return ElementalGenerator(inst);
    auto it = values_.find(&inst);
    if (it == values_.end() || !it->second.IsArray()) {
      return absl::InternalError(
          absl::StrCat("no array value for ", inst.name()));
    }
    IrArray array = it->second.array;
    EmitContext* ctx = &ctx_;
    return ElementGenerator(
        [array, ctx](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          return array.EmitRead(*ctx, index);
        });
  }

  absl::StatusOr<ElementGenerator> ElementalGenerator(
      const HloInstruction& inst) {
    std::vector<ElementGenerator> operands;
    for (const HloInstruction* op : inst.operands()) {
      HLOREF_ASSIGN_OR_RETURN(ElementGenerator g, GeneratorOf(*op));
      operands.push_back(std::move(g));
    }
    // Dynamic shapes: the emitter sees the bounds (dynamic_shapes.h).
    return ctx_.table().Elemental(inst.opcode())(ctx_, StaticTwin(ctx_, inst),
                                                 operands);
  }

  // An elemental instruction into `out`: one loop nest, split across
  // threads when the work is large and the target can; outlined but run
  // on the calling thread when it is smaller
  // (CodegenOptions::serial_outline_min_work).
  absl::Status EmitElemental(const HloInstruction& inst, const IrArray& out) {
    const NestMode mode = ModeOf(inst, out);
    if (mode != NestMode::kInline || MayJoinOpenGroup(out)) {
      absl::StatusOr<bool> done =
          TryEmitParallel(inst, out, mode != NestMode::kParallel);
      if (!done.ok()) return done.status();
      if (*done) return absl::OkStatus();
    }
    HLOREF_ASSIGN_OR_RETURN(ElementGenerator gen, ElementalGenerator(inst));
    return Materialize(gen, out);
  }

  // A nest too small to split across threads is still outlined when it
  // may join the open group of row-local nests (same outer size, result
  // in the scratch block or a result; ScheduleParallel checks the rest):
  // emitted inline it would end the group. Layer norm's per-row mean, variance
  // and rsqrt between its two row reductions are such nests.
  bool MayJoinOpenGroup(const IrArray& out) {
    if (!group_ || !group_->row_like || !ctx_.parallel_for ||
        out.shape().rank() == 0 || !out.shape().is_static()) {
      return false;
    }
    const int64_t outer = out.shape().dimensions(OuterDim(out));
    std::optional<Span> span = SpanOf(out.base(), out.shape());
    return outer == group_->outer && span && span->kind != Origin::kParam;
  }

  // The dimension an outlined nest's outermost loop runs over, which
  // threads split and row groups block by: the most major one whose extent
  // is not 1 (the most major when all are 1). Leading dimensions of extent
  // 1, as in the [1, heads, tokens, tokens] values of a one-sequence
  // attention, would leave a single outer index: one chunk, one block.
  static int64_t OuterDim(const IrArray& a) {
    const auto& m2m = a.minor_to_major();
    for (int64_t level = static_cast<int64_t>(m2m.size()) - 1; level >= 0;
         --level) {
      if (a.shape().dimensions(m2m[level]) != 1) return m2m[level];
    }
    return m2m.empty() ? 0 : m2m.back();
  }

  // How a loop nest runs: in line in the computation's function, outlined
  // and called on this thread (serial), or outlined and split across
  // threads (parallel_for).
  enum class NestMode { kInline, kSerial, kParallel };

  NestMode ModeOf(const HloInstruction& inst, const IrArray& out) {
    if (!ctx_.parallel_for || out.shape().rank() == 0 ||
        !out.shape().is_static()) {
      return NestMode::kInline;
    }
    const int64_t outer = out.shape().dimensions(OuterDim(out));
    if (outer < 1) return NestMode::kInline;
    // Work: the larger of the result and the operands, times the number of
    // instructions fused into this loop nest (a long element-wise chain is
    // worth splitting even over few elements).
    int64_t work = out.shape().num_elements();
    for (const HloInstruction* op : inst.operands()) {
      if (op->shape().IsArray()) {
        work = std::max(work, op->shape().num_elements());
      }
    }
    int64_t fused = 1;
    std::vector<const HloInstruction*> stack(inst.operands().begin(),
                                             inst.operands().end());
    while (!stack.empty() && fused < 1024) {
      const HloInstruction* op = stack.back();
      stack.pop_back();
      if (!inlined_.contains(op)) continue;
      ++fused;
      stack.insert(stack.end(), op->operands().begin(), op->operands().end());
    }
    const int64_t total = work * fused;
    if (total >= ctx_.parallel_min_work && outer >= 2) {
      return NestMode::kParallel;
    }
    const int64_t serial_min = ctx_.options().serial_outline_min_work;
    return serial_min > 0 && total >= serial_min ? NestMode::kSerial
                                                 : NestMode::kInline;
  }

  // Rebuilds `v` with every buffer pointer re-derived in the outlined
  // function from its origin; false when some pointer has no origin.
  bool Rebase(const IrValue& v, IrValue* out,
              const absl::flat_hash_map<llvm::Value*, llvm::Value*>& map) {
    *out = v;
    if (v.IsTuple()) {
      for (size_t i = 0; i < v.elements.size(); ++i) {
        if (!Rebase(v.elements[i], &out->elements[i], map)) return false;
      }
      return true;
    }
    if (!v.IsArray()) return true;
    out->sizes = nullptr;  // sizes are read outside the outlined loop
    llvm::Value* base = v.array.base();
    if (llvm::isa<llvm::GlobalValue>(base)) return true;
    auto it = map.find(base);
    if (it == map.end()) return false;
    out->array = IrArray(it->second, v.shape);
    return true;
  }

  // Whether `inst` writes the entry result `out` with streaming stores
  // (CodegenOptions::stream_result_min_bytes): only the root's own writes
  // (or a tuple root's operands'), and only into a buffer no other value
  // lives in. Softmax keeps exp(x - max) in the result buffer, reads it
  // for the row sum and divides in place: streaming the first write sent
  // both reads to memory, and streaming the in-place divide wrote every
  // dirty line twice (1 thread: 13.6-14.9 -> 10.9-12.5 GB/s).
  static constexpr int64_t kStreamAlign = 64;
  bool StreamsResult(const HloInstruction& inst, const IrArray& out) const {
    const int64_t min_bytes = ctx_.options().stream_result_min_bytes;
    if (min_bytes <= 0 || !comp_.is_entry() || out.SizeInBytes() < min_bytes) {
      return false;
    }
    for (const auto& [other, value] : values_) {
      if (other != &inst && value.IsArray() &&
          value.array.base() == out.base()) {
        return false;
      }
    }
    const HloInstruction* root = comp_.root();
    if (&inst == root) return true;
    if (root->opcode() != HloOpcode::kTuple) return false;
    for (const HloInstruction* op : root->operands()) {
      if (op == &inst) return true;
    }
    return false;
  }

  // The strip of the innermost dimension in a nest that reads an operand
  // transposed (TryEmitParallel): 32 elements, 32 lines of that operand
  // (2 KiB) live in L1 at a time.
  static constexpr int64_t kTransposeStrip = 32;

  // (other, inner) when the nest for `inst` into `out` reads a
  // materialized operand through a transpose or a layout-changing copy
  // (reached from `inst` through inlined element-wise instructions of its
  // dimensions) whose contiguous dimension is the result's dimension
  // `other` rather than its innermost one, `inner`; both long enough for
  // strips to pay.
  std::optional<std::pair<int64_t, int64_t>> TransposedRead(
      const HloInstruction& inst, const IrArray& out) const {
    const Shape& s = out.shape();
    if (s.rank() < 2 || !s.is_static()) return std::nullopt;
    const int64_t inner = out.minor_to_major()[0];
    if (s.dimensions(inner) < 2 * kTransposeStrip) return std::nullopt;
    std::vector<const HloInstruction*> stack = {&inst};
    absl::flat_hash_set<const HloInstruction*> seen;
    while (!stack.empty()) {
      const HloInstruction* c = stack.back();
      stack.pop_back();
      if (!seen.insert(c).second) continue;
      if (c != &inst && !inlined_.contains(c)) continue;
      if (!c->shape().IsArray() || !c->shape().SameDimensions(s)) continue;
      if (c->opcode() == HloOpcode::kTranspose ||
          c->opcode() == HloOpcode::kCopy) {
        const HloInstruction* x = c->operand(0);
        if (inlined_.contains(x)) continue;
        auto it = values_.find(x);
        if (it == values_.end() || !it->second.IsArray() ||
            it->second.array.base() == out.base() ||
            it->second.array.shape().rank() != s.rank()) {
          continue;
        }
        const int64_t x_minor = it->second.array.minor_to_major()[0];
        int64_t other = x_minor;
        if (c->opcode() == HloOpcode::kTranspose) {
          const std::vector<int64_t>& perm = c->attrs().dimensions;
          if (static_cast<int64_t>(perm.size()) != s.rank()) continue;
          for (int64_t j = 0; j < s.rank(); ++j) {
            if (perm[j] == x_minor) other = j;
          }
        }
        if (other != inner && s.dimensions(other) >= kTransposeStrip / 2) {
          return std::make_pair(other, inner);
        }
        continue;
      }
      if (ReadsAtOwnIndex(*c)) {
        for (const HloInstruction* op : c->operands()) stack.push_back(op);
      }
    }
    return std::nullopt;
  }

  // Outlines the loop nest into `void body(ptr env, i64 begin, i64 end)`
  // over the outermost dimension and hands it to the target's parallel_for.
  // Returns false (nothing emitted) when some buffer cannot be re-derived.
  absl::StatusOr<bool> TryEmitParallel(const HloInstruction& inst,
                                       const IrArray& out, bool serial) {
    const std::optional<std::pair<int64_t, int64_t>> transposed =
        TransposedRead(inst, out);
    llvm::LLVMContext& c = ctx_.context();
    llvm::Type* ptr = ctx_.PtrType();
    llvm::Function* parent = state_.function;
    auto* fty = llvm::FunctionType::get(
        b_.getVoidTy(), {ptr, b_.getInt64Ty(), b_.getInt64Ty()}, false);
    llvm::Function* body = llvm::Function::Create(
        fty, llvm::GlobalValue::InternalLinkage,
        absl::StrCat(parent->getName().str(), ".par.", inst.name()),
        ctx_.module());
    body->addFnAttr(llvm::Attribute::NoUnwind);
    // The body is built with the builder elsewhere; the guard brings it back.
    absl::StatusOr<bool> built = [&]() -> absl::StatusOr<bool> {
      llvm::IRBuilderBase::InsertPointGuard guard(b_);
      llvm::BasicBlock* entry = llvm::BasicBlock::Create(c, "entry", body);
      llvm::BasicBlock* code = llvm::BasicBlock::Create(c, "body", body);
      b_.SetInsertPoint(entry);
      // env = {ctx, params, results, scratch}
      llvm::Value* env = body->getArg(0);
      auto load = [&](int i) {
        return b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, env, i));
      };
      llvm::Value* new_ctx = load(0);
      llvm::Value* new_params = load(1);
      llvm::Value* new_results = load(2);
      llvm::Value* new_scratch = load(3);
      absl::flat_hash_map<llvm::Value*, llvm::Value*> map;
      for (const auto& [old, origin] : origins_) {
        llvm::Value* v = nullptr;
        switch (origin.kind) {
          case Origin::kParam:
          case Origin::kResult: {
            llvm::LoadInst* load = b_.CreateLoad(
                ptr,
                b_.CreateConstInBoundsGEP1_64(
                    ptr,
                    origin.kind == Origin::kParam ? new_params : new_results,
                    origin.index));
            if (origin.kind == Origin::kResult && old == out.base() &&
                StreamsResult(inst, out)) {
              // See CodegenOptions::stream_result_min_bytes.
              load->setMetadata(
                  llvm::LLVMContext::MD_align,
                  llvm::MDNode::get(
                      c, llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                             b_.getInt64Ty(), kStreamAlign))));
              load->setMetadata(kStreamMetadata, llvm::MDNode::get(c, {}));
            }
            v = load;
            break;
          }
          case Origin::kScratch:
            v = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), new_scratch,
                                              origin.index);
            break;
        }
        map[old] = v;
      }
      last_body_map_ = map;
      absl::flat_hash_map<const HloInstruction*, IrValue> rebased;
      for (const auto& [i, v] : values_) {
        IrValue nv;
        if (Rebase(v, &nv, map)) rebased[i] = std::move(nv);
      }
      IrValue new_out;
      IrValue out_value;
      out_value.shape = out.shape();
      out_value.array = out;
      bool ok = Rebase(out_value, &new_out, map);
      // Every value the generator may read must have been re-derived.
      std::function<bool(const HloInstruction*)> reachable_ok =
          [&](const HloInstruction* i) -> bool {
        for (const HloInstruction* op : i->operands()) {
          if (inlined_.contains(op)) {
            if (!reachable_ok(op)) return false;
          } else if (!rebased.contains(op)) {
            return false;
          }
        }
        return true;
      };
      if (!ok || !reachable_ok(&inst)) {
        return false;
      }
      // Emit the nest with the outlined function's state.
      EmitContext::FunctionState body_state;
      body_state.function = body;
      body_state.run_context = new_ctx;
      EmitContext::FunctionState* saved_state = ctx_.function_state();
      llvm::Value* saved_ctx = ctx_.run_context();
      ctx_.set_function_state(&body_state);
      ctx_.set_run_context(new_ctx);
      std::swap(values_, rebased);
      b_.SetInsertPoint(code);
      absl::Status status = [&]() -> absl::Status {
        HLOREF_ASSIGN_OR_RETURN(ElementGenerator gen, ElementalGenerator(inst));
        const IrArray& o = new_out.array;
        const int64_t rank = o.shape().rank();
        std::vector<int64_t> m2m(o.minor_to_major().begin(),
                                 o.minor_to_major().end());
        // The loops, outermost first: every dimension, most major first
        // (the outermost over the chunk [begin, end)), unless the nest
        // reads an operand transposed (TransposedRead): then the innermost
        // dimension is cut into strips of kTransposeStrip, and the loop
        // over the strips runs just outside the loop of the dimension that
        // is contiguous in that operand. For one strip that operand's rows
        // are then kTransposeStrip cache lines, each read element after
        // element on consecutive iterations of that loop, where the plain
        // order read each element from a new line and a new page: a
        // 1024 x 1024 f32 transpose ran 6.2 ms, 0.19x XLA:CPU.
        struct Loop {
          int64_t dim;
          enum Kind { kFull, kStrips, kInStrip } kind;
        };
        std::vector<Loop> loops;
        for (int64_t level = rank - 1; level >= 0; --level) {
          loops.push_back({m2m[level], Loop::kFull});
        }
        if (transposed) {
          const auto [other, inner] = *transposed;
          for (size_t i = 0; i < loops.size(); ++i) {
            if (loops[i].dim == inner) loops[i].kind = Loop::kInStrip;
          }
          for (size_t i = 0; i < loops.size(); ++i) {
            if (loops[i].dim == other) {
              loops.insert(loops.begin() + static_cast<int64_t>(i),
                           {inner, Loop::kStrips});
              break;
            }
          }
        }
        IrIndex index(rank, nullptr);
        llvm::Value* strip = nullptr;
        const int64_t outer_dim = OuterDim(o);
        std::function<absl::Status(size_t)> nest =
            [&](size_t level) -> absl::Status {
          if (level == loops.size()) {
            // The chunk of the outermost loop, for the generator (see
            // EmitContext::ParallelChunk).
            const EmitContext::ParallelChunk saved = ctx_.parallel_chunk;
            if (rank > 0) {
              ctx_.parallel_chunk = {index[outer_dim], body->getArg(1),
                                     body->getArg(2)};
            }
            absl::StatusOr<llvm::Value*> v = gen(index);
            ctx_.parallel_chunk = saved;
            HLOREF_RETURN_IF_ERROR(v.status());
            o.EmitWrite(ctx_, index, *v);
            return absl::OkStatus();
          }
          const Loop loop = loops[level];
          const int64_t extent = o.shape().dimensions(loop.dim);
          const bool outer =
              loop.dim == outer_dim && loop.kind != Loop::kInStrip;
          const bool innermost = level + 1 == loops.size();
          llvm::Value* start = outer ? body->getArg(1) : ctx_.I64(0);
          llvm::Value* end = outer ? body->getArg(2) : ctx_.I64(extent);
          llvm::Value* step = ctx_.I64(1);
          if (loop.kind == Loop::kStrips) {
            start = ctx_.I64(0);
            end = ctx_.I64(extent);
            step = ctx_.I64(kTransposeStrip);
          } else if (loop.kind == Loop::kInStrip) {
            start = strip;
            llvm::Value* stop = b_.CreateAdd(strip, ctx_.I64(kTransposeStrip));
            end = b_.CreateSelect(b_.CreateICmpSLT(stop, ctx_.I64(extent)),
                                  stop, ctx_.I64(extent));
          }
          const size_t blocks_before = body->size();
          // Interleaved only over a whole dimension (a strip is short:
          // see EmitContext::EmitLoopNest on short interleaved loops).
          const int interleave = innermost && loop.kind == Loop::kFull ? 4 : 0;
          HLOREF_RETURN_IF_ERROR(ctx_.EmitForLoop(
              absl::StrCat("par.d", loop.dim,
                           loop.kind == Loop::kStrips ? ".strips" : ""),
              start, end, step,
              [&](llvm::Value* iv) -> absl::Status {
                if (loop.kind == Loop::kStrips) {
                  strip = iv;
                } else {
                  index[loop.dim] = iv;
                }
                return nest(level + 1);
              },
              interleave));
          if (innermost) MarkParallelAccesses(*body, blocks_before, map);
          return absl::OkStatus();
        };
        return nest(0);
      }();
      std::swap(values_, rebased);
      ctx_.set_function_state(saved_state);
      ctx_.set_run_context(saved_ctx);
      HLOREF_RETURN_IF_ERROR(status);
      for (llvm::Value* p : body_state.heap_blocks) {
        if (ctx_.heap_free) ctx_.heap_free(ctx_, p);
      }
      b_.CreateRetVoid();
      b_.SetInsertPoint(entry);
      b_.CreateBr(code);
      return true;
    }();
    if (!built.ok() || !*built) {
      body->eraseFromParent();
      return built;
    }
    ScheduleParallel(inst, out, body, serial);
    return true;
  }

  // void hloref.serial_for(ptr ctx, i64 n, ptr body, ptr env):
  // body(env, 0, n) on the calling thread. It has parallel_for's
  // parameters, so that a group's call is patched the same way whichever
  // it is (MakeGroupWrapper); always inlined, the body's call becomes a
  // direct one.
  llvm::Function* SerialFor() {
    llvm::Module& m = ctx_.module();
    constexpr char kName[] = "hloref.serial_for";
    if (llvm::Function* f = m.getFunction(kName)) return f;
    llvm::LLVMContext& c = ctx_.context();
    llvm::Type* ptr = ctx_.PtrType();
    llvm::Type* i64 = b_.getInt64Ty();
    auto* fty =
        llvm::FunctionType::get(b_.getVoidTy(), {ptr, i64, ptr, ptr}, false);
    auto* body_ty =
        llvm::FunctionType::get(b_.getVoidTy(), {ptr, i64, i64}, false);
    llvm::Function* f = llvm::Function::Create(
        fty, llvm::GlobalValue::InternalLinkage, kName, m);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    b_.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", f));
    b_.CreateCall(body_ty, f->getArg(2),
                  {f->getArg(3), b_.getInt64(0), f->getArg(1)});
    b_.CreateRetVoid();
    return f;
  }

  // ---- groups of outlined loop nests run block by block
  //
  // Consecutive outlined nests over the same outermost size, where each
  // reads the earlier ones only at its own outer index, run as ONE
  // parallel loop over blocks of that index: per block every member in
  // program order. Softmax's rowmax, exp, rowsum and divide then pass over
  // a block of rows while it is in L1 / L2 instead of four times over the
  // whole scores tensor (multi_head_attention: 2 MiB per pass).

  // A byte range of one buffer: the scratch block (id 0, [lo, hi)) or a
  // whole parameter / result leaf (id = its slot).
  struct Span {
    Origin::Kind kind;
    int64_t id, lo, hi;
    bool Overlaps(const Span& o) const {
      return kind == o.kind && id == o.id && lo < o.hi && o.lo < hi;
    }
  };
  struct Group {
    llvm::Function* wrapper = nullptr;
    llvm::Instruction* insert_before = nullptr;  // in the wrapper's block
    llvm::Value* lo = nullptr;  // the block's outer index range
    llvm::Value* hi = nullptr;
    int64_t outer = 0;
    // Every member reads its large operands at their own outer index.
    bool row_like = false;
    // The first member's call of parallel_for (or SerialFor), until a
    // second one joins.
    llvm::CallInst* call = nullptr;
    // Called through SerialFor: members that want threads do not join.
    bool serial = false;
    int count_arg = -1, body_arg = -1;
    llvm::Function* first = nullptr;
    // The most bytes per outer index a member writes or reads at its own
    // outer index: the block size follows it (MakeGroupWrapper).
    int64_t row_bytes = 1;
    // The wrapper's `iv * block` and `lo + block`, and its block count (the
    // parallel call's count): patched when a member with longer rows joins.
    llvm::Instruction* block_lo = nullptr;
    llvm::Instruction* block_end = nullptr;
    // Members and their outermost (physical) logical dimension.
    absl::flat_hash_map<const HloInstruction*, int64_t> members;
    std::vector<Span> writes, reads;
    // Parameter base pointers that members after the first read at their
    // own outer index, with the parameter's bytes per outer index
    // (MarkGroupPrefetch).
    std::vector<std::pair<llvm::LoadInst*, int64_t>> prefetch;
  };

  std::optional<Span> SpanOf(llvm::Value* base, const Shape& shape) const {
    auto it = origins_.find(base);
    if (it == origins_.end()) return std::nullopt;
    if (it->second.kind == Origin::kScratch) {
      return Span{Origin::kScratch, 0, it->second.index,
                  it->second.index + ArrayBytes(shape)};
    }
    return Span{it->second.kind, it->second.index, 0,
                std::numeric_limits<int64_t>::max()};
  }

  // Whether element `dim` of x's outer index (-1: x's elements may read any
  // index) reads the group's members only at that same index; collects
  // the buffers read through x's inlined operands into `reads`.
  //
  // *row_like becomes false when an operand buffer above 64 KiB is read
  // other than at its own outermost index (a column reduction): such a
  // nest keeps one loop over the whole range (cutting it into blocks of
  // columns measured 3x slower on sum_mean).
  bool ReadsRowLocal(
      const HloInstruction* x, int64_t dim, std::vector<Span>* reads,
      bool* row_like, int64_t* row_bytes = nullptr,
      std::vector<std::pair<llvm::Value*, int64_t>>* param_rows = nullptr) {
    const auto& ops = x->operands();
    for (size_t i = 0; i < ops.size(); ++i) {
      const HloInstruction* op = ops[i];
      int64_t od = -1;
      if (dim >= 0 && op->shape().IsArray()) {
        const Shape& xs = x->shape();
        const Shape& os = op->shape();
        if (IsElementwiseForSizes(x->opcode()) && xs.IsArray() &&
            xs.rank() == os.rank() && xs.dimensions() == os.dimensions()) {
          od = dim;
        } else if (x->opcode() == HloOpcode::kBroadcast) {
          const std::vector<int64_t>& dims = x->attrs().dimensions;
          for (size_t j = 0; j < dims.size(); ++j) {
            if (dims[j] == dim) od = static_cast<int64_t>(j);
          }
        } else if (x->opcode() == HloOpcode::kReduce && i < ops.size() / 2) {
          const std::vector<int64_t>& red = x->attrs().dimensions;
          int64_t kept = 0;
          for (int64_t d = 0; d < os.rank(); ++d) {
            if (std::find(red.begin(), red.end(), d) != red.end()) continue;
            if (kept++ == dim) od = d;
          }
        }
      }
      if (inlined_.contains(op)) {
        if (!ReadsRowLocal(op, od, reads, row_like, row_bytes, param_rows)) {
          return false;
        }
        continue;
      }
      auto it = values_.find(op);
      if (it == values_.end() || !it->second.IsArray()) return false;
      llvm::Value* base = it->second.array.base();
      if (const auto* g = llvm::dyn_cast<llvm::GlobalVariable>(base);
          g != nullptr && g->isConstant()) {
        continue;  // a constant: never written
      }
      std::optional<Span> span = SpanOf(base, op->shape());
      if (!span) return false;
      const bool at_own_outer = od >= 0 && od == OuterDim(it->second.array);
      if (ArrayBytes(op->shape()) > (64 << 10) && !at_own_outer) {
        *row_like = false;
      }
      if (row_bytes != nullptr && at_own_outer &&
          op->shape().dimensions(od) > 0) {
        *row_bytes = std::max(
            *row_bytes, ArrayBytes(op->shape()) / op->shape().dimensions(od));
      }
      if (param_rows != nullptr && at_own_outer &&
          span->kind == Origin::kParam && op->shape().dimensions(od) > 0) {
        param_rows->push_back(
            {base, ArrayBytes(op->shape()) / op->shape().dimensions(od)});
      }
      if (group_) {
        auto m = group_->members.find(op);
        if (m != group_->members.end() &&
            (od < 0 || od != m->second ||
             op->shape().dimensions(od) != group_->outer)) {
          return false;
        }
      }
      reads->push_back(*span);
    }
    return true;
  }

  void ScheduleParallel(const HloInstruction& inst, const IrArray& out,
                        llvm::Function* body, bool serial) {
    group_touched_ = true;
    const int64_t outer_dim = OuterDim(out);
    const int64_t outer = out.shape().dimensions(outer_dim);
    std::optional<Span> out_span = SpanOf(out.base(), out.shape());
    const int64_t own_row_bytes =
        outer > 0 ? ArrayBytes(out.shape()) / outer : 1;
    if (group_ && group_->row_like && group_->outer == outer && out_span &&
        out_span->kind != Origin::kParam && (serial || !group_->serial)) {
      std::vector<Span> reads;
      std::vector<std::pair<llvm::Value*, int64_t>> param_rows;
      bool row_like = true;
      int64_t row_bytes = own_row_bytes;
      bool ok = ReadsRowLocal(&inst, outer_dim, &reads, &row_like, &row_bytes,
                              &param_rows) &&
                row_like;
      // Buffer assignment may give this nest the bytes of a member:
      //   * one that is dead here (softmax's row maxima, then its row
      //     sums), in the scratch block;
      //   * the temporary it placed in the root's result buffer, which
      //     this nest (the root) reads only at its own element
      //     (buffer_assignment.h "In place into the result": softmax's
      //     exp, then the divide).
      // When they are exactly that member's result bytes (a result leaf:
      // the same leaf), both are laid out by the outer index (each one's
      // outer dimension is its physically outermost, of the same size,
      // over the same number of bytes), so block [lo, hi) of this nest
      // overwrites only block [lo, hi) of the member, which earlier
      // members of the same block read at their own rows and this nest
      // reads element by element before writing it: no later code reads
      // the member (its bytes were free, or this nest is its last
      // reader), and a non-member buffer read by the group never shares a
      // member's bytes (that member could not have joined).
      auto member_rows = [&](const Span& s) {
        if (s.kind != out_span->kind || s.id != out_span->id ||
            s.lo != out_span->lo || s.hi != out_span->hi) {
          return false;
        }
        for (const Span& w : group_->writes) {
          if (w.kind == s.kind && w.id == s.id && w.lo == s.lo && w.hi == s.hi)
            return true;
        }
        return false;
      };
      for (const Span& s : group_->writes) {
        ok = ok && (!s.Overlaps(*out_span) || member_rows(s));
      }
      for (const Span& s : group_->reads) {
        ok = ok && (!s.Overlaps(*out_span) || member_rows(s));
      }
      if (ok) {
        group_->row_bytes = std::max(group_->row_bytes, row_bytes);
        SizeGroupBlocks();
      }
      if (ok && (group_->wrapper != nullptr || MakeGroupWrapper())) {
        llvm::IRBuilderBase::InsertPointGuard guard(b_);
        b_.SetInsertPoint(group_->insert_before);
        b_.CreateCall(body,
                      {group_->wrapper->getArg(0), group_->lo, group_->hi});
        group_->members[&inst] = outer_dim;
        group_->writes.push_back(*out_span);
        group_->reads.insert(group_->reads.end(), reads.begin(), reads.end());
        if (ctx_.options().group_prefetch) {
          for (const auto& [old, bytes] : param_rows) {
            auto it = last_body_map_.find(old);
            if (it == last_body_map_.end()) continue;
            if (auto* load = llvm::dyn_cast<llvm::LoadInst>(it->second)) {
              group_->prefetch.push_back({load, bytes});
            }
          }
          MarkGroupPrefetch();
        }
        return;
      }
    }
    group_.reset();
    // In the parent: env = {ctx, params, results, scratch} and the call
    // (over the outer index; it becomes a group's call when a second nest
    // joins, MakeGroupWrapper).
    llvm::LLVMContext& c = ctx_.context();
    llvm::Type* ptr = ctx_.PtrType();
    llvm::Function* parent = state_.function;
    llvm::Value* env_array = ctx_.EntryAlloca(ptr, 4, "par.env");
    llvm::Value* slots[4] = {
        ctx_.run_context(), parent->getArg(1), parent->getArg(2),
        scratch_
            ? scratch_
            : llvm::ConstantPointerNull::get(llvm::PointerType::get(c, 0))};
    for (int i = 0; i < 4; ++i) {
      b_.CreateStore(slots[i],
                     b_.CreateConstInBoundsGEP1_64(ptr, env_array, i));
    }
    llvm::Value* count = ctx_.I64(outer);
    if (serial) {
      b_.CreateCall(SerialFor(), {ctx_.run_context(), count, body, env_array});
    } else {
      ctx_.parallel_for(ctx_, count, body, env_array);
    }
    // The call just emitted, and where its count and body are.
    llvm::CallInst* call = nullptr;
    int count_arg = -1, body_arg = -1;
    llvm::BasicBlock* block = b_.GetInsertBlock();
    for (auto it = block->rbegin(); it != block->rend() && call == nullptr;
         ++it) {
      auto* ci = llvm::dyn_cast<llvm::CallInst>(&*it);
      if (ci == nullptr) continue;
      for (unsigned i = 0; i < ci->arg_size(); ++i) {
        if (ci->getArgOperand(i) == body) body_arg = static_cast<int>(i);
        if (ci->getArgOperand(i) == count) count_arg = static_cast<int>(i);
      }
      if (body_arg >= 0 && count_arg >= 0) call = ci;
    }
    std::vector<Span> reads;
    bool row_like = true;
    // When some buffer it reads is not known, nothing may join later.
    const bool reads_known = ReadsRowLocal(&inst, -1, &reads, &row_like);
    if (call == nullptr || !reads_known) return;
    // (Its own reads at the outer index: row-like or not.)
    row_like = true;
    std::vector<Span> unused;
    int64_t row_bytes = own_row_bytes;
    ReadsRowLocal(&inst, outer_dim, &unused, &row_like, &row_bytes);
    Group g;
    g.serial = serial;
    g.outer = outer;
    g.row_like = row_like;
    g.call = call;
    g.count_arg = count_arg;
    g.body_arg = body_arg;
    g.first = body;
    g.row_bytes = std::max<int64_t>(1, row_bytes);
    g.reads = reads;
    if (out_span) g.writes.push_back(*out_span);
    g.members[&inst] = outer_dim;
    group_ = std::move(g);
  }

  // Outer indices per block of the open group: at least min(outer, 16)
  // blocks (threads), and at most CodegenOptions::row_group_block_bytes of
  // the longest rows any member reads or writes at its own outer index, so
  // that the rows a member reads from memory are still in cache when the
  // next members of the block read them again (softmax: x for the row max,
  // then for exp; exp for the row sum, then for the divide).
  int64_t GroupBlock() const {
    const Group& g = *group_;
    const int64_t block_bytes =
        std::max<int64_t>(1, ctx_.options().row_group_block_bytes);
    return std::max<int64_t>(
        1, std::min<int64_t>(g.outer / std::min<int64_t>(g.outer, 16),
                             block_bytes / std::max<int64_t>(1, g.row_bytes)));
  }

  // CodegenOptions::group_prefetch: marks the parameter base pointers of
  // the group's later members with kPrefetchMetadata, the bytes of one
  // block of that parameter's rows. Their loads then prefetch the next
  // block's rows (cpu/jit.cc InsertGroupPrefetches) while the block's
  // compute runs: softmax's exp reads x from cache and fetches the next
  // block of x, which the next block's row max would otherwise wait for.
  void MarkGroupPrefetch() {
    Group& g = *group_;
    const int64_t block = GroupBlock();
    llvm::LLVMContext& c = ctx_.context();
    for (const auto& [load, bytes] : g.prefetch) {
      // Volatile: after the members are inlined into the group's wrapper,
      // GVN would merge this load with the first member's load of the same
      // pointer and drop the (to it unknown) metadata kind. One load per
      // member call.
      load->setVolatile(true);
      load->setMetadata(kPrefetchMetadata,
                        llvm::MDNode::get(c, llvm::ConstantAsMetadata::get(
                                                 b_.getInt64(block * bytes))));
    }
  }

  // After a member joined: the wrapper's block size and the parallel
  // call's block count follow the group's longest rows.
  void SizeGroupBlocks() {
    Group& g = *group_;
    if (g.wrapper == nullptr) return;
    const int64_t block = GroupBlock();
    g.block_lo->setOperand(1, ctx_.I64(block));
    g.block_end->setOperand(1, ctx_.I64(block));
    g.call->setArgOperand(g.count_arg, ctx_.I64(CeilDivI(g.outer, block)));
  }

  // Turns the open group's single call into a call of a wrapper that runs
  // the members block by block:
  //   void wrapper(env, b, e): for blk in [b, e): member(env, lo, hi) ...
  // (block size: GroupBlock).
  bool MakeGroupWrapper() {
    Group& g = *group_;
    const int64_t outer = g.outer;
    const int64_t block = GroupBlock();
    const int64_t blocks = CeilDivI(outer, block);
    llvm::LLVMContext& c = ctx_.context();
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::Function* wrapper = llvm::Function::Create(
        g.first->getFunctionType(), llvm::GlobalValue::InternalLinkage,
        absl::StrCat(g.first->getName().str(), ".group"), ctx_.module());
    wrapper->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilderBase::InsertPointGuard guard(b_);
    llvm::BasicBlock* entry = llvm::BasicBlock::Create(c, "entry", wrapper);
    llvm::BasicBlock* header = llvm::BasicBlock::Create(c, "blk", wrapper);
    llvm::BasicBlock* run = llvm::BasicBlock::Create(c, "blk.run", wrapper);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(c, "blk.exit", wrapper);
    b_.SetInsertPoint(entry);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* iv = b_.CreatePHI(i64, 2, "blk.iv");
    iv->addIncoming(wrapper->getArg(1), entry);
    b_.CreateCondBr(b_.CreateICmpSLT(iv, wrapper->getArg(2)), run, exit);
    b_.SetInsertPoint(run);
    // (Built as instructions, not folded, so SizeGroupBlocks can patch
    // the constant.)
    auto* lo = b_.Insert(llvm::BinaryOperator::CreateMul(iv, ctx_.I64(block)),
                         "blk.lo");
    auto* end = b_.Insert(llvm::BinaryOperator::CreateAdd(lo, ctx_.I64(block)),
                          "blk.end");
    llvm::Value* hi = b_.CreateSelect(b_.CreateICmpSLT(end, ctx_.I64(outer)),
                                      end, ctx_.I64(outer), "blk.hi");
    b_.CreateCall(g.first, {wrapper->getArg(0), lo, hi});
    llvm::Value* next = b_.CreateAdd(iv, ctx_.I64(1), "blk.next");
    b_.CreateBr(header);
    iv->addIncoming(next, run);
    b_.SetInsertPoint(exit);
    b_.CreateRetVoid();
    g.wrapper = wrapper;
    g.insert_before = llvm::cast<llvm::Instruction>(next);
    g.lo = lo;
    g.hi = hi;
    g.block_lo = lo;
    g.block_end = end;
    g.call->setArgOperand(g.count_arg, ctx_.I64(blocks));
    g.call->setArgOperand(g.body_arg, wrapper);
    return true;
  }

  static int64_t CeilDivI(int64_t a, int64_t b) { return (a + b - 1) / b; }

  // The innermost loop of an outlined element-wise nest (its blocks are
  // those of `f` from index `first`, header first) has no loop-carried
  // dependence through the computation's buffers: each iteration writes
  // one element of the instruction's own buffer, which buffer assignment
  // never overlaps with a buffer the instruction reads (live ranges are
  // inclusive at the instruction's position), and the generators only
  // read. Without this LLVM's loop vectoriser sees loads and stores at
  // unrelated offsets of the one scratch block and refuses ("unsafe
  // dependent memory operations"). So the loads and stores whose address
  // derives from a buffer base of `map` (parameters, results, scratch) or
  // from a constant global join one access group that the loop's metadata
  // declares parallel; anything else (allocas and heap caches of the
  // generators, the run context) is left to LLVM's own analysis.
  //
  // The same accesses also get alias scopes (MarkBufferScopes), so that
  // LICM may hoist a load the loop never overwrites: softmax's row sum,
  // loaded for every element's divide, leaves the loop and the divide
  // becomes one by a loop-invariant divisor (cpu/invariant_divide.h).
  void MarkParallelAccesses(
      llvm::Function& f, size_t first,
      const absl::flat_hash_map<llvm::Value*, llvm::Value*>& map) {
    if (first >= f.size()) return;
    std::vector<llvm::BasicBlock*> blocks;
    for (llvm::BasicBlock& bb : f) blocks.push_back(&bb);
    llvm::BasicBlock* header = blocks[first];
    absl::flat_hash_set<const llvm::Value*> bases;
    for (const auto& [old, now] : map) {
      bases.insert(llvm::getUnderlyingObject(now, 0));
    }
    llvm::LLVMContext& c = ctx_.context();
    llvm::MDNode* group = llvm::MDNode::getDistinct(c, {});
    llvm::BranchInst* latch = nullptr;
    bool tagged = false;
    std::vector<llvm::Instruction*> accesses;
    for (size_t i = first; i < blocks.size(); ++i) {
      for (llvm::Instruction& inst : *blocks[i]) {
        if (auto* br = llvm::dyn_cast<llvm::BranchInst>(&inst)) {
          if (br->isUnconditional() && br->getSuccessor(0) == header) {
            latch = br;
          }
          continue;
        }
        llvm::Value* ptr = nullptr;
        if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
          ptr = ld->getPointerOperand();
        } else if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
          ptr = st->getPointerOperand();
        } else {
          continue;
        }
        const llvm::Value* base = llvm::getUnderlyingObject(ptr, 0);
        const auto* global = llvm::dyn_cast<llvm::GlobalVariable>(base);
        if (bases.contains(base) ||
            (global != nullptr && global->isConstant() &&
             llvm::isa<llvm::LoadInst>(inst))) {
          inst.setMetadata(llvm::LLVMContext::MD_access_group, group);
          tagged = true;
        }
        accesses.push_back(&inst);
      }
    }
    MarkBufferScopes(accesses, map);
    if (latch == nullptr || !tagged) return;
    std::vector<llvm::Metadata*> ops = {nullptr};
    if (llvm::MDNode* old = latch->getMetadata(llvm::LLVMContext::MD_loop)) {
      for (unsigned i = 1; i < old->getNumOperands(); ++i) {
        ops.push_back(old->getOperand(i));
      }
    }
    llvm::Metadata* parallel[] = {
        llvm::MDString::get(c, "llvm.loop.parallel_accesses"), group};
    ops.push_back(llvm::MDNode::get(c, parallel));
    llvm::MDNode* loop = llvm::MDNode::getDistinct(c, ops);
    loop->replaceOperandWith(0, loop);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop);
  }

  // Alias scopes for the loads and stores `accesses` whose address is a
  // GEP chain from a buffer base of `map`. One scope holds every parameter
  // and result (they may be one buffer: input-output aliasing, an argument
  // passed twice); each set of overlapping byte ranges of the scratch
  // block is another. The scratch block is this computation's own memory
  // (EmitContext::EmitScratch), never a parameter or a result, and every
  // access through a scratch value stays within that value's bytes, so
  // accesses in different scopes never touch the same byte.
  void MarkBufferScopes(
      const std::vector<llvm::Instruction*>& accesses,
      const absl::flat_hash_map<llvm::Value*, llvm::Value*>& map) {
    // The byte range of each re-derived base (-1: a parameter or result).
    absl::flat_hash_map<const llvm::Value*, std::pair<int64_t, int64_t>> range;
    for (const auto& [old, now] : map) {
      auto o = origins_.find(old);
      if (o == origins_.end()) continue;
      std::pair<int64_t, int64_t> r = {-1, -1};
      if (o->second.kind == Origin::kScratch) {
        if (o->second.bytes <= 0) continue;  // unknown extent: no scope
        r = {o->second.index, o->second.index + o->second.bytes};
      }
      auto [it, inserted] = range.try_emplace(now, r);
      if (!inserted) {
        if ((it->second.first < 0) != (r.first < 0)) {
          range.erase(it);  // both kinds at one value: leave it alone
          continue;
        }
        if (r.first >= 0) {
          it->second = {std::min(it->second.first, r.first),
                        std::max(it->second.second, r.second)};
        }
      }
    }
    auto base_of = [&](llvm::Value* ptr) -> const llvm::Value* {
      for (int depth = 0; ptr != nullptr && depth < 16; ++depth) {
        if (range.contains(ptr)) return ptr;
        auto* gep = llvm::dyn_cast<llvm::GEPOperator>(ptr);
        ptr = gep != nullptr ? gep->getPointerOperand() : nullptr;
      }
      return nullptr;
    };
    std::vector<std::pair<llvm::Instruction*, const llvm::Value*>> tagged;
    std::vector<std::pair<int64_t, int64_t>> scratch;
    for (llvm::Instruction* inst : accesses) {
      llvm::Value* ptr =
          llvm::isa<llvm::LoadInst>(inst)
              ? llvm::cast<llvm::LoadInst>(inst)->getPointerOperand()
              : llvm::cast<llvm::StoreInst>(inst)->getPointerOperand();
      const llvm::Value* base = base_of(ptr);
      if (base == nullptr) continue;
      tagged.push_back({inst, base});
      if (range.at(base).first >= 0) scratch.push_back(range.at(base));
    }
    // Scope 0: parameters and results; then one per component of
    // overlapping scratch ranges.
    std::sort(scratch.begin(), scratch.end());
    std::vector<std::pair<int64_t, int64_t>> components;
    for (const auto& r : scratch) {
      if (!components.empty() && r.first < components.back().second) {
        components.back().second = std::max(components.back().second, r.second);
      } else {
        components.push_back(r);
      }
    }
    const size_t scopes = 1 + components.size();
    if (scopes < 2) return;
    llvm::MDBuilder mdb(ctx_.context());
    llvm::MDNode* domain = mdb.createAnonymousAliasScopeDomain("buffers");
    std::vector<llvm::MDNode*> scope(scopes);
    for (size_t i = 0; i < scopes; ++i) {
      scope[i] = mdb.createAnonymousAliasScope(domain);
    }
    for (const auto& [inst, base] : tagged) {
      const std::pair<int64_t, int64_t> r = range.at(base);
      size_t k = 0;
      if (r.first >= 0) {
        k = 1 + static_cast<size_t>(
                    std::upper_bound(
                        components.begin(), components.end(),
                        std::make_pair(r.first,
                                       std::numeric_limits<int64_t>::max())) -
                    components.begin() - 1);
      }
      std::vector<llvm::Metadata*> others;
      for (size_t i = 0; i < scopes; ++i) {
        if (i != k) others.push_back(scope[i]);
      }
      inst->setMetadata(llvm::LLVMContext::MD_alias_scope,
                        llvm::MDNode::get(ctx_.context(), {scope[k]}));
      inst->setMetadata(llvm::LLVMContext::MD_noalias,
                        llvm::MDNode::get(ctx_.context(), others));
    }
  }

  absl::Status Materialize(const ElementGenerator& gen, const IrArray& out) {
    return ctx_.EmitLoopNest(
        out.shape(), "loop", [&](const IrIndex& index) -> absl::Status {
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * v, gen(index));
          out.EmitWrite(ctx_, index, v);
          return absl::OkStatus();
        });
  }

  absl::StatusOr<IrValue> ConstantValue(const Literal& literal,
                                        const Shape& shape) {
    IrValue v;
    v.shape = shape;
    if (shape.IsTuple()) {
      for (int64_t i = 0; i < shape.tuple_size(); ++i) {
        HLOREF_ASSIGN_OR_RETURN(
            IrValue e,
            ConstantValue(literal.tuple_element(i), shape.tuple_shapes(i)));
        v.elements.push_back(std::move(e));
      }
      return v;
    }
    if (!shape.IsArray()) return v;
    if (literal.is_elided()) {
      return absl::InvalidArgumentError(
          "the constant's value is elided ({...}); it cannot be compiled");
    }
    if (!shape.is_static()) return EmitDynamicConstant(ctx_, literal, shape);
    std::vector<uint8_t> bytes(std::max<int64_t>(ArrayBytes(shape), 1));
    LiteralToPhysical(literal, shape, bytes.data());
    llvm::Constant* init = llvm::ConstantDataArray::get(
        ctx_.context(), llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()));
    auto* g = new llvm::GlobalVariable(
        ctx_.module(), init->getType(), /*isConstant=*/true,
        llvm::GlobalValue::PrivateLinkage, init, "constant");
    g->setAlignment(llvm::Align(64));
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    v.array = IrArray(g, shape);
    return v;
  }

  const IrValue& ValueOf(const HloInstruction& inst) {
    return values_.at(&inst);
  }

  // DynamicShapeHost (dynamic_shapes.h).
  const IrValue* MaterializedValue(const HloInstruction& inst) override {
    auto it = values_.find(&inst);
    return it == values_.end() ? nullptr : &it->second;
  }
  IrValue DefineOwnedValue(const HloInstruction& inst) override {
    IrValue out = OwnedValue(inst);
    values_[&inst] = out;
    return out;
  }
  absl::Status EmitStatic(const HloInstruction& inst) override {
    return EmitStaticInstruction(inst);
  }
  void SetValue(const HloInstruction& inst, IrValue value) override {
    values_[&inst] = std::move(value);
  }

  absl::Status EmitInstruction(const HloInstruction& inst) {
    if (inlined_.contains(&inst)) return absl::OkStatus();
    // Bounded dynamic shapes: the oracle's rules (dynamic_shapes.h).
    HLOREF_ASSIGN_OR_RETURN(bool handled,
                            EmitDynamicShapeRules(ctx_, inst, *this));
    if (handled) return absl::OkStatus();
    return EmitStaticInstruction(inst);
  }

  // An instruction over the bounds of its shapes (the whole of it for
  // static shapes).
  absl::Status EmitStaticInstruction(const HloInstruction& inst) {
    switch (inst.opcode()) {
      case HloOpcode::kParameter:
        return absl::OkStatus();
      case HloOpcode::kConstant: {
        HLOREF_ASSIGN_OR_RETURN(IrValue v,
                                ConstantValue(inst.literal(), inst.shape()));
        values_[&inst] = std::move(v);
        return absl::OkStatus();
      }
      case HloOpcode::kAfterAll: {
        IrValue v;
        v.shape = inst.shape();
        values_[&inst] = v;
        return absl::OkStatus();
      }
      case HloOpcode::kTuple: {
        IrValue v;
        v.shape = inst.shape();
        for (const HloInstruction* op : inst.operands()) {
          v.elements.push_back(ValueOf(*op));
          v.elements.back().shape =
              inst.shape().tuple_shapes(v.elements.size() - 1);
        }
        values_[&inst] = std::move(v);
        return absl::OkStatus();
      }
      case HloOpcode::kGetTupleElement: {
        IrValue element =
            ValueOf(*inst.operand(0)).elements.at(inst.attrs().index);
        values_[&inst] = std::move(element);
        return absl::OkStatus();
      }
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kAddDependency:
      case HloOpcode::kDomain: {
        // Copied first: inserting may rehash and move the operand's entry.
        IrValue operand = ValueOf(*inst.operand(0));
        values_[&inst] = std::move(operand);
        return absl::OkStatus();
      }
      default:
        break;
    }
    ValueStorage storage = StorageOf(inst);
    if (storage == ValueStorage::kAliases) {
      switch (inst.opcode()) {
        case HloOpcode::kBitcast:
        case HloOpcode::kReshape: {
          IrValue v;
          v.shape = inst.shape();
          v.array =
              IrArray(ValueOf(*inst.operand(0)).array.base(), inst.shape());
          values_[&inst] = v;
          return absl::OkStatus();
        }
        case HloOpcode::kAsyncUpdate: {
          IrValue operand = ValueOf(*inst.operand(0));
          values_[&inst] = std::move(operand);
          return absl::OkStatus();
        }
        case HloOpcode::kAsyncDone:
        case HloOpcode::kCopyDone: {
          // async-start / copy-start hold (operands, result, context) and
          // (destination, source, context): the result is element
          // 1 / 0.
          IrValue start = ValueOf(*inst.operand(0));
          int64_t e = inst.opcode() == HloOpcode::kAsyncDone ? 1 : 0;
          if (!start.IsTuple() ||
              start.elements.size() <= static_cast<size_t>(e)) {
            return absl::UnimplementedError("unexpected async state shape");
          }
          IrValue result = start.elements[e];
          values_[&inst] = std::move(result);
          return absl::OkStatus();
        }
        default:
          return absl::InternalError("unexpected aliasing instruction");
      }
    }
    // An owning instruction.
    IrValue out = OwnedValue(inst);
    values_[&inst] = out;
    bool has_inlined_operand = false;
    std::vector<IrValue> operands;
    for (const HloInstruction* op : inst.operands()) {
      if (inlined_.contains(op)) {
        has_inlined_operand = true;
        operands.push_back(IrValue{});
      } else {
        operands.push_back(ValueOf(*op));
      }
    }
    if (has_inlined_operand) {
      // Fusion only inlines into consumers with an elemental emitter, and
      // into a variadic reduce's inputs (fusion.h).
      if (inst.opcode() == HloOpcode::kReduce && inst.shape().IsTuple()) {
        const int64_t n = inst.operand_count() / 2;
        std::vector<ElementGenerator> inputs;
        for (int64_t j = 0; j < n; ++j) {
          HLOREF_ASSIGN_OR_RETURN(ElementGenerator g,
                                  GeneratorOf(*inst.operand(j)));
          inputs.push_back(std::move(g));
        }
        return EmitVariadicReduce(
            ctx_, inst, inputs,
            absl::MakeConstSpan(operands).subspan(static_cast<size_t>(n)), out);
      }
      return EmitElemental(inst, out.array);
    }
    switch (inst.opcode()) {
      case HloOpcode::kWhile:
        return EmitWhile(inst, operands[0], out);
      case HloOpcode::kConditional:
        return EmitConditional(inst, operands, out);
      case HloOpcode::kCall:
        return ctx_.EmitCallComputation(*inst.to_apply(), operands, out);
      case HloOpcode::kFusion:
        return EmitFusion(inst, operands, out);
      case HloOpcode::kAsyncStart:
        return EmitAsyncStart(inst, operands, out);
      case HloOpcode::kCopyStart: {
        HLOREF_RETURN_IF_ERROR(
            ctx_.EmitCopyValue(operands[0], out.elements[0]));
        return ctx_.EmitCopyValue(operands[0], out.elements[1]);
      }
      case HloOpcode::kBitcast:
        if (inst.shape().IsArray() && operands[0].IsArray() &&
            ArrayBytes(inst.shape()) == ArrayBytes(operands[0].shape)) {
          b_.CreateMemCpy(out.array.base(), llvm::MaybeAlign(1),
                          operands[0].array.base(), llvm::MaybeAlign(1),
                          ctx_.I64(ArrayBytes(inst.shape())));
          return absl::OkStatus();
        }
        break;
      default:
        break;
    }
    absl::Status elemental_status = absl::UnimplementedError(
        absl::StrCat("the CPU backend does not compile ",
                     HloOpcodeString(inst.opcode()), " yet"));
    if (inst.shape().IsArray() && ctx_.table().Elemental(inst.opcode())) {
      if (CanEmitElementally(ctx_, StaticTwin(ctx_, inst))) {
        return EmitElemental(inst, out.array);
      }
      elemental_status = ElementalGenerator(inst).status();
    }
    if (const BufferEmitter& e = ctx_.table().Buffer(inst.opcode())) {
      return e(ctx_, StaticTwin(ctx_, inst), operands, out);
    }
    return elemental_status;
  }

  absl::Status EmitWhile(const HloInstruction& inst, const IrValue& init,
                         const IrValue& state) {
    HLOREF_RETURN_IF_ERROR(ctx_.EmitCopyValue(init, state));
    IrValue next = ctx_.AllocateValue(inst.shape(), "while.next");
    llvm::Value* pred_slot = ctx_.EntryAlloca(b_.getInt8Ty(), 1, "while.pred");
    IrValue pred;
    pred.shape = Shape::Scalar(PrimitiveType::kPred);
    pred.array = IrArray(pred_slot, pred.shape);
    llvm::Function* f = state_.function;
    llvm::LLVMContext& c = ctx_.context();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(c, "while.cond", f);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(c, "while.body", f);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(c, "while.exit", f);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    HLOREF_RETURN_IF_ERROR(
        ctx_.EmitCallComputation(*inst.while_condition(), {state}, pred));
    llvm::Value* p = b_.CreateLoad(b_.getInt8Ty(), pred_slot);
    b_.CreateCondBr(b_.CreateICmpNE(p, b_.getInt8(0)), body, exit);
    b_.SetInsertPoint(body);
    HLOREF_RETURN_IF_ERROR(
        ctx_.EmitCallComputation(*inst.while_body(), {state}, next));
    HLOREF_RETURN_IF_ERROR(ctx_.EmitCopyValue(next, state));
    b_.CreateBr(header);
    b_.SetInsertPoint(exit);
    return absl::OkStatus();
  }

  absl::Status EmitConditional(const HloInstruction& inst,
                               absl::Span<const IrValue> operands,
                               const IrValue& out) {
    absl::Span<HloComputation* const> branches = inst.branch_computations();
    const int64_t n = static_cast<int64_t>(branches.size());
    const IrArray& selector = operands[0].array;
    llvm::Value* sel = selector.EmitRead(ctx_, {});
    llvm::Value* index;
    if (selector.element_type() == PrimitiveType::kPred) {
      // true -> branch 0, false -> branch 1.
      index = b_.CreateSelect(sel, b_.getInt32(0), b_.getInt32(1));
    } else {
      // Out of range -> the last branch (seed 001 "Conditional").
      llvm::Value* i32 = b_.CreateSExtOrTrunc(sel, b_.getInt32Ty());
      llvm::Value* in_range = b_.CreateAnd(
          b_.CreateICmpSGE(i32, b_.getInt32(0)),
          b_.CreateICmpSLT(i32, b_.getInt32(static_cast<int32_t>(n))));
      index = b_.CreateSelect(in_range, i32,
                              b_.getInt32(static_cast<int32_t>(n - 1)));
    }
    llvm::Function* f = state_.function;
    llvm::LLVMContext& c = ctx_.context();
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(c, "cond.exit", f);
    llvm::SwitchInst* sw = b_.CreateSwitch(index, exit, n);
    for (int64_t i = 0; i < n; ++i) {
      llvm::BasicBlock* bb =
          llvm::BasicBlock::Create(c, absl::StrCat("cond.branch", i), f);
      sw->addCase(b_.getInt32(static_cast<uint32_t>(i)), bb);
      b_.SetInsertPoint(bb);
      HLOREF_RETURN_IF_ERROR(
          ctx_.EmitCallComputation(*branches[i], {operands[i + 1]}, out));
      b_.CreateBr(exit);
    }
    b_.SetInsertPoint(exit);
    return absl::OkStatus();
  }

  absl::Status EmitAsyncStart(const HloInstruction& inst,
                              absl::Span<const IrValue> operands,
                              const IrValue& out) {
    // ((operands...), result, context...): copy the operands into element 0
    // (later async-update / done may read them) and run the wrapped
    // computation into element 1.
    if (!out.IsTuple() || out.elements.size() < 2 ||
        inst.called_computations().empty()) {
      return absl::UnimplementedError("unexpected async-start shape");
    }
    const IrValue& held = out.elements[0];
    if (held.IsTuple() && held.elements.size() == operands.size()) {
      for (size_t i = 0; i < operands.size(); ++i) {
        HLOREF_RETURN_IF_ERROR(
            ctx_.EmitCopyValue(operands[i], held.elements[i]));
      }
    }
    return ctx_.EmitCallComputation(*inst.called_computations()[0], operands,
                                    out.elements[1]);
  }

  absl::Status EmitFusion(const HloInstruction& inst,
                          absl::Span<const IrValue> operands,
                          const IrValue& out) {
    const HloComputation* fused = inst.to_apply();
    if (fused == nullptr && !inst.called_computations().empty()) {
      fused = inst.called_computations()[0];
    }
    if (fused == nullptr)
      return absl::InvalidArgumentError("fusion without calls");
    // One loop nest when every fused instruction is elemental and the root
    // is an array; otherwise the fused computation is called as a function.
    bool elemental = inst.shape().IsArray();
    for (const auto& fi : fused->instructions()) {
      if (!elemental) break;
      if (!fi->shape().is_static()) {
        elemental = false;
        break;
      }
      if (fi->opcode() == HloOpcode::kParameter) continue;
      if (fi->opcode() == HloOpcode::kConstant) {
        elemental = fi->shape().IsArray();
        continue;
      }
      elemental = CanEmitElementally(ctx_, *fi);
    }
    if (!elemental) return ctx_.EmitCallComputation(*fused, operands, out);
    absl::flat_hash_map<const HloInstruction*, ElementGenerator> gens;
    for (const auto& fi : fused->instructions()) {
      const HloInstruction* i = fi.get();
      if (i->opcode() == HloOpcode::kParameter) {
        IrArray a = operands[i->parameter_number()].array;
        EmitContext* ctx = &ctx_;
        gens[i] = [a, ctx](const IrIndex& idx) -> absl::StatusOr<llvm::Value*> {
          return a.EmitRead(*ctx, idx);
        };
        continue;
      }
      if (i->opcode() == HloOpcode::kConstant) {
        HLOREF_ASSIGN_OR_RETURN(IrValue cv,
                                ConstantValue(i->literal(), i->shape()));
        IrArray a = cv.array;
        EmitContext* ctx = &ctx_;
        gens[i] = [a, ctx](const IrIndex& idx) -> absl::StatusOr<llvm::Value*> {
          return a.EmitRead(*ctx, idx);
        };
        continue;
      }
      std::vector<ElementGenerator> ops;
      for (const HloInstruction* op : i->operands()) ops.push_back(gens.at(op));
      absl::StatusOr<ElementGenerator> g =
          ctx_.table().Elemental(i->opcode())(ctx_, *i, ops);
      if (!g.ok()) return InstructionCodegenError(*i, g.status());
      gens[i] = *std::move(g);
    }
    return Materialize(gens.at(fused->root()), out.array);
  }

  EmitContext& ctx_;
  const HloComputation& comp_;
  IRBuilder& b_;
  EmitContext::FunctionState state_;
  absl::flat_hash_map<const HloInstruction*, IrValue> values_;
  IrValue results_;
  absl::flat_hash_set<const HloInstruction*> inlined_;
  BufferPlan plan_;
  llvm::Value* scratch_ = nullptr;
  absl::flat_hash_map<llvm::Value*, Origin> origins_;
  // The open group of outlined loop nests (ScheduleParallel), and whether
  // the instruction being emitted joined or started it.
  std::optional<Group> group_;
  bool group_touched_ = false;
  // TryEmitParallel's map of buffer bases for the body it built last.
  absl::flat_hash_map<llvm::Value*, llvm::Value*> last_body_map_;
};

}  // namespace

absl::StatusOr<llvm::Function*> EmitComputationFunction(
    EmitContext& ctx, const HloComputation& computation,
    const std::string& name) {
  ComputationEmitter emitter(ctx, computation);
  return emitter.Emit(name);
}

}  // namespace hloref::codegen
