#include "backends/codegen/ir_value.h"

#include <cstring>

#include "backends/codegen/emit_context.h"
#include "backends/codegen/llvm_types.h"
#include "llvm/IR/IRBuilder.h"
#include "spec/util/status_macros.h"

namespace hloref::codegen {

IrArray::IrArray(llvm::Value* base, Shape shape)
    : base_(base), shape_(std::move(shape)) {
  HLOREF_CHECK(shape_.IsArray());
  minor_to_major_ = shape_.LayoutOrDefault().minor_to_major;
  if (static_cast<int64_t>(minor_to_major_.size()) != shape_.rank()) {
    minor_to_major_ = Layout::Descending(shape_.rank()).minor_to_major;
  }
}

llvm::Value* IrArray::EmitLinearIndex(EmitContext& ctx,
                                      const IrIndex& index) const {
  HLOREF_CHECK(static_cast<int64_t>(index.size()) == shape_.rank());
  IRBuilder& b = ctx.b();
  if (minor_to_major_.empty()) return ctx.I64(0);
  // The major dimensions' terms first, the minor index added last: the
  // elements of one row then differ only in the last add's operand.
  // Summed minor first, instcombine turned the adds into `or`s (their bits
  // are disjoint) and a later pass combined the row's part with the outer
  // dimensions' hoisted part in an `or` without its `disjoint` flag, which
  // SCEV reads as opaque: the SLP vectoriser could not prove that a row
  // reduction's 16 lanes (one generator call each, reduction.cc
  // EmitGatherLanes) load consecutive elements and emitted a gather, so
  // causal_attention's row max read its scores with vgatherqps (20 % of
  // the module on the Zen 4 host). The same terms in the same integer
  // type: the index is unchanged.
  llvm::Value* linear = ctx.I64(0);
  int64_t stride = shape_.dimensions(minor_to_major_[0]);
  for (size_t i = 1; i < minor_to_major_.size(); ++i) {
    const int64_t dim = minor_to_major_[i];
    linear = b.CreateAdd(linear, b.CreateMul(index[dim], ctx.I64(stride)), "",
                         /*HasNUW=*/true, /*HasNSW=*/true);
    stride *= shape_.dimensions(dim);
  }
  return b.CreateAdd(linear, index[minor_to_major_[0]], "", /*HasNUW=*/true,
                     /*HasNSW=*/true);
}

llvm::Value* IrArray::EmitLinearPointer(EmitContext& ctx,
                                        llvm::Value* linear) const {
  llvm::Type* storage = StorageType(ctx.context(), element_type());
  return ctx.b().CreateInBoundsGEP(storage, base_, {linear});
}

llvm::Value* IrArray::EmitElementPointer(EmitContext& ctx,
                                         const IrIndex& index) const {
  return EmitLinearPointer(ctx, EmitLinearIndex(ctx, index));
}

llvm::Value* IrArray::EmitRead(EmitContext& ctx, const IrIndex& index) const {
  llvm::Type* storage = StorageType(ctx.context(), element_type());
  llvm::Value* raw =
      ctx.b().CreateLoad(storage, EmitElementPointer(ctx, index));
  return EmitStorageToCompute(ctx, element_type(), raw);
}

void IrArray::EmitWrite(EmitContext& ctx, const IrIndex& index,
                        llvm::Value* value) const {
  llvm::Value* raw = EmitComputeToStorage(ctx, element_type(), value);
  ctx.b().CreateStore(raw, EmitElementPointer(ctx, index));
}

int64_t IrArray::SizeInBytes() const { return ArrayBytes(shape_); }

void IrValue::CollectArrays(std::vector<IrArray>* out) const {
  if (IsArray()) {
    out->push_back(array);
  } else if (IsTuple()) {
    for (const IrValue& e : elements) e.CollectArrays(out);
  }
}

void IrValue::CollectSizes(std::vector<llvm::Value*>* out) const {
  if (IsArray()) {
    if (!shape.is_static()) out->push_back(sizes);
  } else if (IsTuple()) {
    for (const IrValue& e : elements) e.CollectSizes(out);
  }
}

int64_t CountDynamicArrayLeaves(const Shape& shape) {
  if (shape.IsArray()) return shape.is_static() ? 0 : 1;
  int64_t n = 0;
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) n += CountDynamicArrayLeaves(e);
  }
  return n;
}

int64_t ArrayBytes(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) n *= d;
  return n * StorageBytes(shape.element_type());
}

void CollectArrayShapes(const Shape& shape, std::vector<Shape>* out) {
  if (shape.IsArray()) {
    out->push_back(shape);
  } else if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) CollectArrayShapes(e, out);
  }
}

namespace {
// Whether the physical order of `shape`'s elements is row-major (then the
// copies below are one memcpy: per-element copies cost about as much as a
// 200-instruction element-wise loop over the same array).
bool PhysicalIsRowMajor(const Shape& shape) {
  const Layout layout = shape.LayoutOrDefault();
  return static_cast<int64_t>(layout.minor_to_major.size()) != shape.rank() ||
         layout.IsDescending();
}

int64_t ElementCount(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) n *= d;
  return n;
}

// Calls f(row_major_linear, physical_linear) for every element.
template <typename F>
void ForEachPhysical(const Shape& shape, F f) {
  const int64_t rank = shape.rank();
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) n *= d;
  if (n == 0) return;
  Layout layout = shape.LayoutOrDefault();
  if (static_cast<int64_t>(layout.minor_to_major.size()) != rank ||
      layout.IsDescending()) {
    for (int64_t i = 0; i < n; ++i) f(i, i);
    return;
  }
  // Physical strides per logical dimension.
  std::vector<int64_t> phys_stride(rank);
  int64_t s = 1;
  for (int64_t dim : layout.minor_to_major) {
    phys_stride[dim] = s;
    s *= shape.dimensions(dim);
  }
  std::vector<int64_t> index(rank, 0);
  int64_t physical = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(i, physical);
    for (int64_t d = rank - 1; d >= 0; --d) {
      ++index[d];
      physical += phys_stride[d];
      if (index[d] < shape.dimensions(d)) break;
      physical -= phys_stride[d] * index[d];
      index[d] = 0;
    }
  }
}
}  // namespace

void LiteralToPhysical(const Literal& literal, const Shape& buffer_shape,
                       uint8_t* out) {
  const int bytes = StorageBytes(buffer_shape.element_type());
  const uint8_t* in = literal.raw().data();
  if (PhysicalIsRowMajor(buffer_shape)) {
    // A zero-size literal's data() is null, which memcpy may not take even
    // for 0 bytes (UBSan; found by cpu_differential_fuzz).
    const int64_t n = ElementCount(buffer_shape) * bytes;
    if (n > 0) std::memcpy(out, in, n);
    return;
  }
  ForEachPhysical(buffer_shape, [&](int64_t logical, int64_t physical) {
    std::memcpy(out + physical * bytes, in + logical * bytes, bytes);
  });
}

Literal PhysicalToLiteral(const uint8_t* data, const Shape& buffer_shape) {
  Literal literal(buffer_shape);
  const int bytes = StorageBytes(buffer_shape.element_type());
  uint8_t* out = literal.mutable_raw().data();
  if (PhysicalIsRowMajor(buffer_shape)) {
    const int64_t n = ElementCount(buffer_shape) * bytes;
    if (n > 0) std::memcpy(out, data, n);
    return literal;
  }
  ForEachPhysical(buffer_shape, [&](int64_t logical, int64_t physical) {
    std::memcpy(out + logical * bytes, data + physical * bytes, bytes);
  });
  return literal;
}

}  // namespace hloref::codegen
