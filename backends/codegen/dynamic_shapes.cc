// Bounded dynamic shapes in the code generator (dynamic_shapes.h states
// the rules; each op's rule cites the oracle file it compiles).
#include "backends/codegen/dynamic_shapes.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "spec/ir/opcode.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {
namespace {

bool AnyDynamicLeaf(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) {
      if (AnyDynamicLeaf(e)) return true;
    }
    return false;
  }
  return shape.IsArray() && !shape.is_static();
}

class DynamicEmitter {
 public:
  DynamicEmitter(EmitContext& ctx, const HloInstruction& inst,
                 DynamicShapeHost& host)
      : ctx_(ctx), b_(ctx.b()), inst_(inst), host_(host) {}

  absl::Status Emit() {
    const HloOpcode op = inst_.opcode();
    if (IsElementwiseForSizes(op)) return EmitElementwise();
    switch (op) {
      case HloOpcode::kGetDimensionSize:
        return EmitGetDimensionSize();
      case HloOpcode::kSetDimensionSize:
        return EmitSetDimensionSize();
      case HloOpcode::kDynamicReshape:
        return EmitDynamicReshape();
      case HloOpcode::kReduce:
        return EmitReduce();
      case HloOpcode::kBroadcast:
        return EmitBroadcast();
      case HloOpcode::kTranspose:
        return EmitTranspose();
      case HloOpcode::kSlice:
        return EmitSlice();
      case HloOpcode::kReshape:
        return EmitReshape();
      case HloOpcode::kConcatenate:
        return EmitConcatenate();
      case HloOpcode::kCopy:
        return EmitCopy();
      // Values pass through whole with their sizes (the emitter's static
      // code carries them: ir_value.h, the computation ABI).
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kTuple:
      case HloOpcode::kGetTupleElement:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kDomain:
      case HloOpcode::kAddDependency:
      case HloOpcode::kCall:
      case HloOpcode::kConditional:
      case HloOpcode::kWhile:
      case HloOpcode::kFusion:
        return host_.EmitStatic(inst_);
      default:
        return EmitUnpaddedOnly();
    }
  }

 private:
  // ---- Helpers.

  llvm::Value* Size(const IrValue* v, int64_t dim, int64_t bound) {
    if (v == nullptr) return ctx_.I64(bound);
    return ctx_.EmitDimensionSize(*v, dim);
  }
  // The runtime size of operand `k`'s dimension `dim` (its bound when the
  // operand is static or inlined).
  llvm::Value* OperandSize(int64_t k, int64_t dim) {
    const HloInstruction& op = *inst_.operand(k);
    return Size(host_.MaterializedValue(op), dim, op.shape().dimensions(dim));
  }
  bool OperandDynamic(int64_t k, int64_t dim) {
    const Shape& s = inst_.operand(k)->shape();
    return s.IsArray() && dim < s.rank() && s.is_dynamic_dimension(dim) &&
           host_.MaterializedValue(*inst_.operand(k)) != nullptr;
  }
  const IrValue& Operand(int64_t k) {
    const IrValue* v = host_.MaterializedValue(*inst_.operand(k));
    return *v;  // callers check MaterializedValue first where it matters
  }

  void ReportError(absl::StatusCode code, const std::string& message) {
    const std::string text =
        absl::StrCat(inst_.ShortDescription(), ": ", message);
    if (ctx_.report_error_code) {
      ctx_.report_error_code(ctx_, code, text);
    } else if (ctx_.report_error) {
      ctx_.report_error(ctx_, text);
    }
  }
  // if (bad) report (code, message).
  absl::Status CheckAtRun(llvm::Value* bad, absl::StatusCode code,
                          const std::string& message) {
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(bad); c && c->isZero()) {
      return absl::OkStatus();
    }
    return ctx_.EmitIf(
        bad,
        [&] {
          ReportError(code, message);
          return absl::OkStatus();
        },
        "dyn.check");
  }

  // Stores `sizes` (one i64 per dimension) as `v`'s runtime sizes; static
  // dimensions keep their bound.
  void StoreSizes(const IrValue& v, const std::vector<llvm::Value*>& sizes) {
    if (v.sizes == nullptr) return;
    for (int64_t d = 0; d < v.shape.rank(); ++d) {
      llvm::Value* s = v.shape.is_dynamic_dimension(d)
                           ? sizes[d]
                           : ctx_.I64(v.shape.dimensions(d));
      b_.CreateStore(
          s, b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), v.sizes, d));
    }
  }
  std::vector<llvm::Value*> Bounds(const Shape& s) {
    std::vector<llvm::Value*> out;
    for (int64_t d = 0; d < s.rank(); ++d) {
      out.push_back(ctx_.I64(s.dimensions(d)));
    }
    return out;
  }
  llvm::Value* Min(llvm::Value* a, llvm::Value* b) {
    return b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b);
  }

  // The oracle's CommonRuntimeSize: the size of dimension `dim` shared by
  // the operands in `operands` of rank `rank` whose dimension is dynamic
  // (`bound` when none is); a run-time OutOfRange (impl.dynamic.2) when
  // two disagree.
  absl::StatusOr<llvm::Value*> CommonSize(const std::vector<int64_t>& operands,
                                          int64_t rank, int64_t dim,
                                          int64_t bound) {
    llvm::Value* size = nullptr;
    int64_t first = -1;
    for (int64_t k : operands) {
      const Shape& s = inst_.operand(k)->shape();
      if (!s.IsArray() || s.rank() != rank || !OperandDynamic(k, dim)) {
        continue;
      }
      llvm::Value* sk = OperandSize(k, dim);
      if (size == nullptr) {
        size = sk;
        first = k;
        continue;
      }
      HLOREF_RETURN_IF_ERROR(CheckAtRun(
          b_.CreateICmpNE(size, sk), absl::StatusCode::kOutOfRange,
          absl::StrCat("operands ", first, " and ", k,
                       " have different runtime sizes in dynamic dimension ",
                       dim,
                       " (impl.dynamic.2: XLA assumes equal sizes; the "
                       "result is undefined)")));
    }
    if (size == nullptr) return ctx_.I64(bound);
    return Min(size, ctx_.I64(bound));
  }

  std::vector<int64_t> AllOperands() {
    std::vector<int64_t> k(inst_.operand_count());
    for (int64_t i = 0; i < inst_.operand_count(); ++i) k[i] = i;
    return k;
  }

  // for each index of the box `sizes` (row-major, runtime trip counts).
  absl::Status EmitBoxLoop(
      absl::string_view name, const std::vector<llvm::Value*>& sizes,
      const std::function<absl::Status(const IrIndex&)>& body) {
    IrIndex index(sizes.size(), nullptr);
    std::function<absl::Status(size_t)> nest = [&](size_t d) -> absl::Status {
      if (d == sizes.size()) return body(index);
      return ctx_.EmitForLoop(absl::StrCat(name, ".d", d), ctx_.I64(0),
                              sizes[d], ctx_.I64(1),
                              [&](llvm::Value* iv) -> absl::Status {
                                index[d] = iv;
                                return nest(d + 1);
                              });
    };
    return nest(0);
  }

  // Decomposes a row-major linear position over runtime `sizes` into a
  // logical index.
  IrIndex DecomposeRowMajor(llvm::Value* linear,
                            const std::vector<llvm::Value*>& sizes) {
    IrIndex index(sizes.size(), nullptr);
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      // A zero size never reaches here (the loop does not run).
      llvm::Value* size = b_.CreateSelect(
          b_.CreateICmpEQ(sizes[d], ctx_.I64(0)), ctx_.I64(1), sizes[d]);
      index[d] = b_.CreateURem(linear, size);
      linear = b_.CreateUDiv(linear, size);
    }
    return index;
  }

  // A size operand's value as i64 (sign- or zero-extended by its type).
  llvm::Value* ReadSizeOperand(int64_t k) {
    const IrValue& v = Operand(k);
    llvm::Value* x =
        v.array.EmitRead(ctx_, IrIndex(v.shape.rank(), ctx_.I64(0)));
    if (x->getType()->isIntegerTy(1)) return b_.CreateZExt(x, b_.getInt64Ty());
    return IsSignedInt(v.shape.element_type())
               ? b_.CreateSExtOrTrunc(x, b_.getInt64Ty())
               : b_.CreateZExtOrTrunc(x, b_.getInt64Ty());
  }

  void ZeroFill(const IrArray& a) {
    b_.CreateMemSet(a.base(), b_.getInt8(0), ctx_.I64(a.SizeInBytes()),
                    llvm::MaybeAlign(1));
  }

  // Moves one element (its storage bits) from `from`[fi] to `to`[ti].
  void MoveElement(const IrArray& from, const IrIndex& fi, const IrArray& to,
                   const IrIndex& ti) {
    llvm::Type* st = StorageType(ctx_.context(), from.element_type());
    llvm::Value* x = b_.CreateLoad(st, from.EmitElementPointer(ctx_, fi));
    b_.CreateStore(x, to.EmitElementPointer(ctx_, ti));
  }

  // The value the static code recorded for inst_, after EmitStatic.
  IrValue EmitStaticAndTakeValue(absl::Status* status) {
    *status = host_.EmitStatic(inst_);
    const IrValue* v = host_.MaterializedValue(inst_);
    return v == nullptr ? IrValue{} : *v;
  }

  // ---- Rules.

  // Element-wise ops and map (interpreter/dynamic_sizes.cc
  // PropagateElementwiseSizes): every element of the bounds; result
  // dimension d takes the operands' common runtime size. Operands of
  // another rank than the result's (bitcast-convert between widths) map
  // their dimensions to the leading result dimensions.
  absl::Status EmitElementwise() {
    absl::Status s;
    IrValue out = EmitStaticAndTakeValue(&s);
    HLOREF_RETURN_IF_ERROR(s);
    if (!out.IsArray()) return absl::OkStatus();
    const int64_t rank = inst_.shape().rank();
    int64_t operand_rank = rank;
    bool same_rank = false;
    for (const HloInstruction* o : inst_.operands()) {
      if (o->shape().IsArray() && o->shape().rank() == rank) same_rank = true;
    }
    if (!same_rank && inst_.operand_count() > 0 &&
        inst_.operand(0)->shape().IsArray()) {
      operand_rank = inst_.operand(0)->shape().rank();
    }
    std::vector<llvm::Value*> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t bound = inst_.shape().dimensions(d);
      if (d >= operand_rank) {
        sizes.push_back(ctx_.I64(bound));
        continue;
      }
      HLOREF_ASSIGN_OR_RETURN(
          llvm::Value * size,
          CommonSize(AllOperands(), operand_rank, d, bound));
      sizes.push_back(size);
    }
    StoreSizes(out, sizes);
    return absl::OkStatus();
  }

  // Broadcast (interpreter/ops/shape.cc EvalBroadcastInDim): a result
  // dimension fed by an operand dimension of the same bound has its
  // runtime size; the others are full.
  absl::Status EmitBroadcast() {
    absl::Status s;
    IrValue out = EmitStaticAndTakeValue(&s);
    HLOREF_RETURN_IF_ERROR(s);
    std::vector<llvm::Value*> sizes = Bounds(inst_.shape());
    const std::vector<int64_t>& dims = inst_.attrs().dimensions;
    const Shape& os = inst_.operand(0)->shape();
    for (size_t i = 0; i < dims.size(); ++i) {
      if (os.dimensions(i) == inst_.shape().dimensions(dims[i])) {
        sizes[dims[i]] = OperandSize(0, i);
      }
    }
    StoreSizes(out, sizes);
    return absl::OkStatus();
  }

  // Transpose (shape.cc EvalTranspose): result dimension i has operand
  // dimension permutation[i]'s size.
  absl::Status EmitTranspose() {
    absl::Status s;
    IrValue out = EmitStaticAndTakeValue(&s);
    HLOREF_RETURN_IF_ERROR(s);
    std::vector<llvm::Value*> sizes;
    for (int64_t p : inst_.attrs().dimensions)
      sizes.push_back(OperandSize(0, p));
    StoreSizes(out, sizes);
    return absl::OkStatus();
  }

  // Slice (interpreter/ops/slicing.cc EvalSlice): result dimension d holds
  // the strided positions below min(limit, the operand's runtime size).
  absl::Status EmitSlice() {
    absl::Status s;
    IrValue out = EmitStaticAndTakeValue(&s);
    HLOREF_RETURN_IF_ERROR(s);
    const SliceConfig& slice = inst_.attrs().slice;
    std::vector<llvm::Value*> sizes;
    for (int64_t d = 0; d < inst_.shape().rank(); ++d) {
      llvm::Value* end =
          Min(ctx_.I64(slice.limit_indices[d]), OperandSize(0, d));
      llvm::Value* span = b_.CreateSub(end, ctx_.I64(slice.start_indices[d]));
      const int64_t stride = slice.strides[d];
      llvm::Value* n = b_.CreateSDiv(b_.CreateAdd(span, ctx_.I64(stride - 1)),
                                     ctx_.I64(stride));
      sizes.push_back(
          b_.CreateSelect(b_.CreateICmpSLE(span, ctx_.I64(0)), ctx_.I64(0), n));
    }
    StoreSizes(out, sizes);
    return absl::OkStatus();
  }

  // Copy (shape.cc EvalCopy): value identity, every leaf keeps its sizes.
  absl::Status EmitCopy() {
    absl::Status s;
    IrValue out = EmitStaticAndTakeValue(&s);
    HLOREF_RETURN_IF_ERROR(s);
    const IrValue* in = host_.MaterializedValue(*inst_.operand(0));
    std::function<void(const IrValue*, const IrValue&)> copy =
        [&](const IrValue* from, const IrValue& to) {
          if (to.IsTuple()) {
            for (size_t i = 0; i < to.elements.size(); ++i) {
              copy(from != nullptr && i < from->elements.size()
                       ? &from->elements[i]
                       : nullptr,
                   to.elements[i]);
            }
            return;
          }
          if (!to.IsArray() || to.sizes == nullptr) return;
          std::vector<llvm::Value*> sizes;
          for (int64_t d = 0; d < to.shape.rank(); ++d) {
            sizes.push_back(Size(from, d, to.shape.dimensions(d)));
          }
          StoreSizes(to, sizes);
        };
    copy(in, out);
    return absl::OkStatus();
  }

  // Reshape (shape.cc EvalReshape): without padding the row-major bytes of
  // the bounds carry over and the sizes are the bounds. With padding the
  // valid elements, row-major, fill the result's runtime sizes row-major
  // (padding zero): one dynamic result dimension takes count / (product of
  // the other bounds) (OutOfRange, impl.dynamic.3, when that does not
  // divide); several keep the operand's sizes one to one (dimensions of
  // bound 1 aside; Unimplemented when the bounds do not correspond); none
  // must hold exactly the valid elements (an Internal error in the oracle
  // otherwise).
  absl::Status EmitReshape() {
    const IrValue* in = host_.MaterializedValue(*inst_.operand(0));
    if (in == nullptr || inst_.operand(0)->shape().is_static()) {
      // No padding can reach it: the static code, sizes the bounds.
      absl::Status s;
      IrValue out = EmitStaticAndTakeValue(&s);
      HLOREF_RETURN_IF_ERROR(s);
      StoreSizes(out, Bounds(inst_.shape()));
      return absl::OkStatus();
    }
    const Shape& os = inst_.operand(0)->shape();
    const Shape& shape = inst_.shape();
    // A copy: recording the result may move the values' storage.
    const IrValue operand = *in;
    in = &operand;
    IrValue out = host_.DefineOwnedValue(inst_);
    std::vector<llvm::Value*> in_sizes;
    llvm::Value* padded = ctx_.I1(false);
    llvm::Value* count = ctx_.I64(1);
    for (int64_t d = 0; d < os.rank(); ++d) {
      in_sizes.push_back(OperandSize(0, d));
      padded = b_.CreateOr(
          padded, b_.CreateICmpSLT(in_sizes[d], ctx_.I64(os.dimensions(d))));
      count = b_.CreateMul(count, in_sizes[d]);
    }
    std::vector<int64_t> dynamic_dims;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (shape.is_dynamic_dimension(d)) dynamic_dims.push_back(d);
    }
    std::vector<llvm::Value*> sizes = Bounds(shape);
    llvm::Value* bad = ctx_.I1(false);
    if (dynamic_dims.size() == 1) {
      const int64_t d = dynamic_dims[0];
      int64_t others = 1;
      for (int64_t e = 0; e < shape.rank(); ++e) {
        if (e != d) others *= shape.dimensions(e);
      }
      if (others == 0) {
        bad = padded;
      } else {
        bad = b_.CreateAnd(
            padded, b_.CreateICmpNE(b_.CreateURem(count, ctx_.I64(others)),
                                    ctx_.I64(0)));
        sizes[d] = b_.CreateSelect(
            padded, b_.CreateUDiv(count, ctx_.I64(others)), sizes[d]);
      }
      HLOREF_RETURN_IF_ERROR(CheckAtRun(
          bad, absl::StatusCode::kOutOfRange,
          absl::StrCat("the operand's valid elements do not fill whole rows "
                       "of the other result dimensions (",
                       others, " elements each) (impl.dynamic.3)")));
    } else if (dynamic_dims.size() > 1) {
      std::vector<int64_t> from, to;
      for (int64_t d = 0; d < os.rank(); ++d) {
        if (os.dimensions(d) != 1) from.push_back(d);
      }
      for (int64_t d = 0; d < shape.rank(); ++d) {
        if (shape.dimensions(d) != 1) to.push_back(d);
      }
      bool same = from.size() == to.size();
      for (size_t j = 0; same && j < from.size(); ++j) {
        same = os.dimensions(from[j]) == shape.dimensions(to[j]);
      }
      if (!same) {
        HLOREF_RETURN_IF_ERROR(CheckAtRun(
            padded, absl::StatusCode::kUnimplemented,
            "reshape of a padded value to several dynamic dimensions that do "
            "not correspond one to one"));
        bad = padded;
      } else {
        for (size_t j = 0; j < from.size(); ++j) {
          sizes[to[j]] =
              b_.CreateSelect(padded, in_sizes[from[j]], sizes[to[j]]);
        }
      }
    }
    if (dynamic_dims.size() != 1) {
      // The sizes must hold exactly the valid elements.
      llvm::Value* product = ctx_.I64(1);
      for (llvm::Value* s : sizes) product = b_.CreateMul(product, s);
      llvm::Value* wrong = b_.CreateAnd(b_.CreateAnd(padded, b_.CreateNot(bad)),
                                        b_.CreateICmpNE(product, count));
      HLOREF_RETURN_IF_ERROR(CheckAtRun(wrong, absl::StatusCode::kInternal,
                                        "reshaped element counts differ"));
      bad = b_.CreateOr(bad, wrong);
    }
    // On an error nothing moves (the run fails).
    for (llvm::Value*& s : sizes) {
      s = b_.CreateSelect(bad, ctx_.I64(0), s);
    }
    StoreSizes(out, sizes);
    HLOREF_RETURN_IF_ERROR(ctx_.EmitIf(padded, [&] {
      ZeroFill(out.array);
      return absl::OkStatus();
    }));
    llvm::Value* total = b_.CreateSelect(bad, ctx_.I64(0), count);
    return ctx_.EmitForLoop("dyn_reshape", ctx_.I64(0), total, ctx_.I64(1),
                            [&](llvm::Value* k) -> absl::Status {
                              MoveElement(
                                  in->array, DecomposeRowMajor(k, in_sizes),
                                  out.array, DecomposeRowMajor(k, sizes));
                              return absl::OkStatus();
                            });
  }

  // Concatenate (interpreter/ops/concat_pad.cc): each operand's valid box,
  // placed one after another by runtime size along the dimension; the
  // other dimensions take the operands' common size; the rest is zero.
  absl::Status EmitConcatenate() {
    const Shape& shape = inst_.shape();
    const int64_t rank = shape.rank();
    const int64_t dimension = inst_.attrs().dimensions.at(0);
    IrValue out = host_.DefineOwnedValue(inst_);
    ZeroFill(out.array);
    llvm::Value* offset = ctx_.I64(0);
    for (int64_t k = 0; k < inst_.operand_count(); ++k) {
      const IrValue* in = host_.MaterializedValue(*inst_.operand(k));
      std::vector<llvm::Value*> box;
      for (int64_t d = 0; d < rank; ++d) box.push_back(OperandSize(k, d));
      if (in == nullptr) {
        return absl::InternalError(
            "an inlined operand of a dynamic "
            "concatenate");
      }
      llvm::Value* at = offset;
      HLOREF_RETURN_IF_ERROR(
          EmitBoxLoop("dyn_concat", box, [&](const IrIndex& index) {
            IrIndex to = index;
            to[dimension] = b_.CreateAdd(index[dimension], at);
            MoveElement(in->array, index, out.array, to);
            return absl::OkStatus();
          }));
      offset = b_.CreateAdd(offset, box[dimension]);
    }
    std::vector<llvm::Value*> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dimension) {
        sizes.push_back(offset);
        continue;
      }
      HLOREF_ASSIGN_OR_RETURN(
          llvm::Value * size,
          CommonSize(AllOperands(), rank, d, shape.dimensions(d)));
      sizes.push_back(size);
    }
    StoreSizes(out, sizes);
    return absl::OkStatus();
  }

  // reduce (interpreter/ops/reduce.cc EvalReduceOp), single or variadic:
  // every result element folds the VALID elements of the reduced
  // dimensions in row-major order from the init values; the kept
  // dimensions take the inputs' common runtime sizes, and outputs at
  // padded kept positions are zero (not folded).
  absl::Status EmitReduce() {
    const int64_t n = inst_.operand_count() / 2;
    const HloComputation* reducer = inst_.to_apply();
    if (reducer == nullptr) return absl::InvalidArgumentError("no to_apply");
    std::vector<IrValue> inputs, inits;
    for (int64_t i = 0; i < n; ++i) {
      const IrValue* in = host_.MaterializedValue(*inst_.operand(i));
      const IrValue* init = host_.MaterializedValue(*inst_.operand(n + i));
      if (in == nullptr || init == nullptr) {
        return absl::InternalError("an inlined operand of a dynamic reduce");
      }
      inputs.push_back(*in);
      inits.push_back(*init);
    }
    const Shape& in_shape = inputs[0].shape;
    std::vector<int64_t> input_ids(n);
    for (int64_t i = 0; i < n; ++i) input_ids[i] = i;
    std::vector<llvm::Value*> in_sizes;
    for (int64_t d = 0; d < in_shape.rank(); ++d) {
      HLOREF_ASSIGN_OR_RETURN(
          llvm::Value * s,
          CommonSize(input_ids, in_shape.rank(), d, in_shape.dimensions(d)));
      in_sizes.push_back(s);
    }
    IrValue out = host_.DefineOwnedValue(inst_);
    std::vector<IrValue*> outs;
    if (out.IsTuple()) {
      for (IrValue& e : out.elements) outs.push_back(&e);
    } else {
      outs.push_back(&out);
    }
    std::vector<int64_t> reduced = inst_.attrs().dimensions;
    std::sort(reduced.begin(), reduced.end());
    std::vector<bool> is_reduced(in_shape.rank(), false);
    for (int64_t d : reduced) is_reduced[d] = true;
    std::vector<int64_t> kept;
    std::vector<llvm::Value*> kept_sizes;
    for (int64_t d = 0; d < in_shape.rank(); ++d) {
      if (!is_reduced[d]) {
        kept.push_back(d);
        kept_sizes.push_back(in_sizes[d]);
      }
    }
    for (IrValue* o : outs) StoreSizes(*o, kept_sizes);
    const Shape& out_shape = outs[0]->shape;
    return ctx_.EmitLoopNest(
        out_shape, "dyn_reduce", [&](const IrIndex& oidx) -> absl::Status {
          llvm::Value* pad = ctx_.I1(false);
          for (size_t k = 0; k < kept.size(); ++k) {
            pad = b_.CreateOr(pad, b_.CreateICmpSGE(oidx[k], kept_sizes[k]));
          }
          std::vector<llvm::Value*> acc_slots;
          for (int64_t i = 0; i < n; ++i) {
            llvm::Value* init = inits[i].array.EmitRead(ctx_, {});
            llvm::Value* slot = ctx_.EntryAlloca(init->getType(), 1, "acc");
            b_.CreateStore(init, slot);
            acc_slots.push_back(slot);
          }
          IrIndex index(in_shape.rank(), nullptr);
          for (size_t k = 0; k < kept.size(); ++k) index[kept[k]] = oidx[k];
          std::function<absl::Status(size_t)> nest =
              [&](size_t level) -> absl::Status {
            if (level == reduced.size()) {
              std::vector<llvm::Value*> args;
              for (int64_t i = 0; i < n; ++i) {
                args.push_back(b_.CreateLoad(
                    ComputeType(ctx_.context(), inputs[i].shape.element_type()),
                    acc_slots[i]));
              }
              for (int64_t i = 0; i < n; ++i) {
                args.push_back(inputs[i].array.EmitRead(ctx_, index));
              }
              HLOREF_ASSIGN_OR_RETURN(
                  std::vector<llvm::Value*> r,
                  ctx_.EmitCallScalarComputation(*reducer, args));
              for (int64_t i = 0; i < n; ++i) {
                b_.CreateStore(r[i], acc_slots[i]);
              }
              return absl::OkStatus();
            }
            const int64_t d = reduced[level];
            // A padded output position folds nothing.
            llvm::Value* trip =
                level == 0 ? b_.CreateSelect(pad, ctx_.I64(0), in_sizes[d])
                           : in_sizes[d];
            return ctx_.EmitForLoop(absl::StrCat("dyn_reduce.d", d),
                                    ctx_.I64(0), trip, ctx_.I64(1),
                                    [&](llvm::Value* iv) -> absl::Status {
                                      index[d] = iv;
                                      return nest(level + 1);
                                    });
          };
          HLOREF_RETURN_IF_ERROR(nest(0));
          for (int64_t i = 0; i < n; ++i) {
            llvm::Type* t =
                ComputeType(ctx_.context(), inputs[i].shape.element_type());
            llvm::Value* v =
                b_.CreateSelect(pad, llvm::Constant::getNullValue(t),
                                b_.CreateLoad(t, acc_slots[i]));
            outs[i]->array.EmitWrite(ctx_, oidx, v);
          }
          return absl::OkStatus();
        });
  }

  // get-dimension-size (shape.cc): the runtime size (the bound when
  // static) as the result's integer type.
  absl::Status EmitGetDimensionSize() {
    const int64_t d = inst_.attrs().dimensions.at(0);
    IrValue out = host_.DefineOwnedValue(inst_);
    llvm::Value* size = OperandSize(0, d);
    llvm::Type* t = out.array.EmitRead(ctx_, {})->getType();
    out.array.EmitWrite(ctx_, {}, b_.CreateTrunc(size, t));
    return absl::OkStatus();
  }

  // set-dimension-size (shape.cc): the bounds' elements (padding too:
  // growing the size makes it valid, as in the oracle) with the runtime
  // size of the dimension replaced; OutOfRange (impl.dynamic.3) outside
  // [0, bound].
  absl::Status EmitSetDimensionSize() {
    const int64_t d = inst_.attrs().dimensions.at(0);
    const IrValue* operand = host_.MaterializedValue(*inst_.operand(0));
    if (operand == nullptr ||
        host_.MaterializedValue(*inst_.operand(1)) == nullptr) {
      return absl::InternalError("an inlined operand of set-dimension-size");
    }
    const IrArray operand_array = operand->array;
    IrValue out = host_.DefineOwnedValue(inst_);
    HLOREF_RETURN_IF_ERROR(
        ctx_.EmitCopyValue(StaticView(operand_array), StaticView(out.array)));
    llvm::Value* size = ReadSizeOperand(1);
    const int64_t bound = inst_.shape().dimensions(d);
    llvm::Value* bad = b_.CreateOr(b_.CreateICmpSLT(size, ctx_.I64(0)),
                                   b_.CreateICmpSGT(size, ctx_.I64(bound)));
    HLOREF_RETURN_IF_ERROR(CheckAtRun(
        bad, absl::StatusCode::kOutOfRange,
        absl::StrCat("runtime size outside [0, ", bound, "] of dimension ", d,
                     " (impl.dynamic.3: undefined in XLA)")));
    size = b_.CreateSelect(bad, ctx_.I64(bound), size);
    std::vector<llvm::Value*> sizes;
    for (int64_t i = 0; i < inst_.shape().rank(); ++i) {
      sizes.push_back(i == d ? size : OperandSize(0, i));
    }
    StoreSizes(out, sizes);
    return absl::OkStatus();
  }

  // dynamic-reshape (shape.cc): the operand's valid elements, row-major,
  // reshaped to the sizes given (OutOfRange, impl.dynamic.3, when a size is
  // out of range or the sizes do not hold the valid elements).
  absl::Status EmitDynamicReshape() {
    const IrValue* operand_value = host_.MaterializedValue(*inst_.operand(0));
    if (operand_value == nullptr) {
      return absl::InternalError("an inlined operand of dynamic-reshape");
    }
    const IrValue operand_copy = *operand_value;
    const IrValue* operand = &operand_copy;
    for (const HloInstruction* op : inst_.operands()) {
      if (host_.MaterializedValue(*op) == nullptr) {
        return absl::InternalError("an inlined operand of dynamic-reshape");
      }
    }
    IrValue out = host_.DefineOwnedValue(inst_);
    const Shape& shape = inst_.shape();
    std::vector<llvm::Value*> sizes, operand_sizes;
    llvm::Value* product = ctx_.I64(1);
    llvm::Value* bad = ctx_.I1(false);
    for (int64_t d = 0; d < shape.rank(); ++d) {
      llvm::Value* size = ReadSizeOperand(1 + d);
      const int64_t bound = shape.dimensions(d);
      llvm::Value* wrong =
          shape.is_dynamic_dimension(d)
              ? b_.CreateOr(b_.CreateICmpSLT(size, ctx_.I64(0)),
                            b_.CreateICmpSGT(size, ctx_.I64(bound)))
              : b_.CreateICmpNE(size, ctx_.I64(bound));
      bad = b_.CreateOr(bad, wrong);
      size = b_.CreateSelect(wrong, ctx_.I64(0), size);
      sizes.push_back(size);
      product = b_.CreateMul(product, size);
    }
    llvm::Value* valid = ctx_.I64(1);
    for (int64_t d = 0; d < operand->shape.rank(); ++d) {
      operand_sizes.push_back(OperandSize(0, d));
      valid = b_.CreateMul(valid, operand_sizes.back());
    }
    bad = b_.CreateOr(bad, b_.CreateICmpNE(product, valid));
    HLOREF_RETURN_IF_ERROR(CheckAtRun(
        bad, absl::StatusCode::kOutOfRange,
        "runtime sizes out of range or not holding the operand's valid "
        "elements (impl.dynamic.3)"));
    llvm::Value* total = b_.CreateSelect(bad, ctx_.I64(0), product);
    StoreSizes(out, sizes);
    return ctx_.EmitForLoop(
        "dynamic_reshape", ctx_.I64(0), total, ctx_.I64(1),
        [&](llvm::Value* k) -> absl::Status {
          MoveElement(operand->array, DecomposeRowMajor(k, operand_sizes),
                      out.array, DecomposeRowMajor(k, sizes));
          return absl::OkStatus();
        });
  }

  // Every op that does not honour runtime sizes
  // (interpreter/dynamic_sizes.cc CheckPaddedOperands): Unimplemented at
  // run time when an operand has padding; otherwise the static code over
  // the bounds, and the result's dynamic dimensions are full. A bitcast
  // of a dynamic value is never evaluated by the oracle (shape.cc
  // EvalBitcast: it depends on how a backend stores padding).
  absl::Status EmitUnpaddedOnly() {
    const bool bitcast_of_dynamic = inst_.opcode() == HloOpcode::kBitcast &&
                                    AnyDynamicLeaf(inst_.operand(0)->shape());
    for (int64_t k = 0; k < inst_.operand_count(); ++k) {
      const IrValue* v = host_.MaterializedValue(*inst_.operand(k));
      if (v == nullptr) continue;
      llvm::Value* padded = ctx_.I1(bitcast_of_dynamic);
      std::function<void(const IrValue&)> visit = [&](const IrValue& x) {
        for (const IrValue& e : x.elements) visit(e);
        if (!x.IsDynamicArray() || x.sizes == nullptr) return;
        for (int64_t d = 0; d < x.shape.rank(); ++d) {
          if (!x.shape.is_dynamic_dimension(d)) continue;
          padded = b_.CreateOr(
              padded, b_.CreateICmpSLT(ctx_.EmitDimensionSize(x, d),
                                       ctx_.I64(x.shape.dimensions(d))));
        }
      };
      visit(*v);
      HLOREF_RETURN_IF_ERROR(CheckAtRun(
          padded, absl::StatusCode::kUnimplemented,
          bitcast_of_dynamic
              ? std::string(
                    "the operand's shape is dynamic; a bitcast of a dynamic "
                    "shape depends on how a backend stores padding and is "
                    "not evaluated (as in the oracle)")
              : absl::StrCat(
                    "operand ", k, " ",
                    inst_.operand(k)->shape().ToString(false),
                    " has runtime sizes below its bounds; ",
                    HloOpcodeString(inst_.opcode()),
                    " is not evaluated on padded dynamic values (as in the "
                    "oracle: interpreter/dynamic_sizes.h)")));
    }
    absl::Status s;
    IrValue out = EmitStaticAndTakeValue(&s);
    HLOREF_RETURN_IF_ERROR(s);
    // Full sizes for every dynamic leaf; a value that shares its buffers
    // (and sizes) with an operand gets sizes of its own.
    bool changed = false;
    std::function<void(IrValue&)> fill = [&](IrValue& x) {
      for (IrValue& e : x.elements) fill(e);
      if (!x.IsDynamicArray()) return;
      if (x.sizes == nullptr || aliased_sizes_.count(x.sizes)) {
        x.sizes = ctx_.AllocateSizes(x.shape);
        changed = true;
      }
      StoreSizes(x, Bounds(x.shape));
    };
    CollectOperandSizes();
    fill(out);
    if (changed) host_.SetValue(inst_, out);
    return absl::OkStatus();
  }

  void CollectOperandSizes() {
    std::function<void(const IrValue&)> visit = [&](const IrValue& x) {
      for (const IrValue& e : x.elements) visit(e);
      if (x.sizes != nullptr) aliased_sizes_.insert(x.sizes);
    };
    for (const HloInstruction* op : inst_.operands()) {
      if (const IrValue* v = host_.MaterializedValue(*op)) visit(*v);
    }
  }

  // An array buffer seen as its static bound shape (no runtime sizes).
  static IrValue StaticView(const IrArray& array) {
    IrValue v;
    v.shape = array.shape();
    for (int64_t d = 0; d < v.shape.rank(); ++d) {
      v.shape.set_dynamic_dimension(d, false);
    }
    v.array = array;
    return v;
  }

  EmitContext& ctx_;
  IRBuilder& b_;
  const HloInstruction& inst_;
  DynamicShapeHost& host_;
  std::set<llvm::Value*> aliased_sizes_;
};

}  // namespace

namespace {

void MakeStatic(Shape* s) {
  if (s->IsTuple()) {
    for (Shape& e : *s->mutable_tuple_shapes()) MakeStatic(&e);
    return;
  }
  if (!s->IsArray()) return;
  for (int64_t d = 0; d < s->rank(); ++d) s->set_dynamic_dimension(d, false);
}

struct StaticTwins {
  const HloModule* source = nullptr;
  std::unique_ptr<HloModule> twin;
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> of;
};

}  // namespace

const HloInstruction& StaticTwin(EmitContext& ctx, const HloInstruction& inst) {
  if (!NeedsDynamicShapeRules(inst) || inst.parent() == nullptr ||
      inst.parent()->parent() == nullptr) {
    return inst;
  }
  const HloModule* module = inst.parent()->parent();
  auto* state = static_cast<StaticTwins*>(ctx.dynamic_shape_state.get());
  if (state == nullptr || state->source != module) {
    auto fresh = std::make_shared<StaticTwins>();
    fresh->source = module;
    fresh->twin = module->Clone();
    const auto& from = module->computations();
    const auto& to = fresh->twin->computations();
    for (size_t c = 0; c < from.size() && c < to.size(); ++c) {
      const auto& fi = from[c]->instructions();
      const auto& ti = to[c]->instructions();
      for (size_t i = 0; i < fi.size() && i < ti.size(); ++i) {
        if (fi[i]->opcode() != ti[i]->opcode() ||
            fi[i]->name() != ti[i]->name()) {
          continue;
        }
        MakeStatic(ti[i]->mutable_shape());
        fresh->of[fi[i].get()] = ti[i].get();
      }
    }
    state = fresh.get();
    ctx.dynamic_shape_state = std::move(fresh);
  }
  auto it = state->of.find(&inst);
  return it == state->of.end() ? inst : *it->second;
}

bool NeedsDynamicShapeRules(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kDynamicReshape:
      return true;
    default:
      break;
  }
  if (AnyDynamicLeaf(inst.shape())) return true;
  for (const HloInstruction* op : inst.operands()) {
    if (AnyDynamicLeaf(op->shape())) return true;
  }
  return false;
}

absl::StatusOr<bool> EmitDynamicShapeRules(EmitContext& ctx,
                                           const HloInstruction& inst,
                                           DynamicShapeHost& host) {
  if (!NeedsDynamicShapeRules(inst)) return false;
  DynamicEmitter e(ctx, inst, host);
  HLOREF_RETURN_IF_ERROR(e.Emit());
  return true;
}

absl::StatusOr<IrValue> EmitDynamicConstant(EmitContext& ctx,
                                            const Literal& literal,
                                            const Shape& shape) {
  IrValue v;
  v.shape = shape;
  if (!shape.IsArray() || shape.is_static()) {
    return absl::InternalError("EmitDynamicConstant: not a dynamic array");
  }
  if (!literal.shape().IsArray() || !literal.shape().SameDimensions(shape)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the constant's literal ", literal.shape().ToString(),
                     " does not fill its shape ", shape.ToString()));
  }
  std::vector<uint8_t> bytes(std::max<int64_t>(ArrayBytes(shape), 1));
  LiteralToPhysical(literal, shape, bytes.data());
  llvm::Constant* init = llvm::ConstantDataArray::get(
      ctx.context(), llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()));
  auto* g = new llvm::GlobalVariable(
      ctx.module(), init->getType(),
      /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage, init, "constant");
  g->setAlignment(llvm::Align(64));
  v.array = IrArray(g, shape);
  std::vector<uint64_t> sizes;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    sizes.push_back(static_cast<uint64_t>(
        shape.is_dynamic_dimension(d) && literal.shape().is_dynamic_dimension(d)
            ? literal.GetDynamicSize(d)
            : shape.dimensions(d)));
  }
  llvm::Constant* size_init =
      llvm::ConstantDataArray::get(ctx.context(), llvm::ArrayRef(sizes));
  auto* sg = new llvm::GlobalVariable(ctx.module(), size_init->getType(),
                                      /*isConstant=*/true,
                                      llvm::GlobalValue::PrivateLinkage,
                                      size_init, "constant.sizes");
  sg->setAlignment(llvm::Align(8));
  v.sizes = sg;
  return v;
}

}  // namespace hloref::codegen
