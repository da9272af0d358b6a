// Values of a computation as the code generator sees them: an IrArray is
// one array buffer (a pointer plus its shape and layout), an IrValue is the
// tree of buffers of a possibly tuple-shaped value, and an IrIndex is a
// multi-dimensional logical index into an array (one i64 per dimension).
//
// Buffers hold elements in PHYSICAL order: the shape's layout
// (minor_to_major, the descending default when absent) maps a logical index
// to a linear position (seed 000 "Shapes and layout"). Each element takes
// StorageBytes(type) bytes, exactly as in a Literal (spec/types/
// primitive_type.h): sub-byte types one byte each, f16/bf16 their 16-bit
// pattern, every f8/f6/f4 its encoding in the low bits of one byte.
#ifndef HLOREF_BACKENDS_CODEGEN_IR_VALUE_H_
#define HLOREF_BACKENDS_CODEGEN_IR_VALUE_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "spec/types/literal.h"
#include "spec/types/shape.h"

namespace llvm {
class Value;
}  // namespace llvm

namespace hloref::codegen {

class EmitContext;

// A logical index: one i64 llvm::Value per dimension (rank 0: empty).
using IrIndex = std::vector<llvm::Value*>;

// One array buffer.
class IrArray {
 public:
  IrArray() = default;
  // `shape` must be an array shape; a missing layout means descending.
  IrArray(llvm::Value* base, Shape shape);

  llvm::Value* base() const { return base_; }
  const Shape& shape() const { return shape_; }
  PrimitiveType element_type() const { return shape_.element_type(); }
  // minor_to_major of the buffer (the layout or the descending default).
  absl::Span<const int64_t> minor_to_major() const { return minor_to_major_; }

  // The linear (physical) position of `index`, as an i64.
  llvm::Value* EmitLinearIndex(EmitContext& ctx, const IrIndex& index) const;
  // Address of the element at `index` / at linear position `linear`.
  llvm::Value* EmitElementPointer(EmitContext& ctx, const IrIndex& index) const;
  llvm::Value* EmitLinearPointer(EmitContext& ctx, llvm::Value* linear) const;
  // Reads / writes one element in its COMPUTE representation (see
  // llvm_types.h: minifloats decode to f32, sub-byte integers are iN).
  llvm::Value* EmitRead(EmitContext& ctx, const IrIndex& index) const;
  void EmitWrite(EmitContext& ctx, const IrIndex& index,
                 llvm::Value* value) const;

  // Bytes the buffer occupies.
  int64_t SizeInBytes() const;

 private:
  llvm::Value* base_ = nullptr;
  Shape shape_;
  std::vector<int64_t> minor_to_major_;
};

// A value of any shape: an array (one buffer), a tuple (its elements) or a
// token (nothing).
//
// Bounded dynamic arrays (`f32[<=8,3]`): the buffer holds the bounds'
// elements (row-major over the bounds in physical order, as for a static
// array of the bound shape); `sizes` points to rank i64 runtime sizes.
// Elements beyond a runtime size are padding (don't-care).
struct IrValue {
  Shape shape;
  IrArray array;                  // arrays only
  llvm::Value* sizes = nullptr;   // dynamic arrays only: i64[rank]
  std::vector<IrValue> elements;  // tuples only

  bool IsArray() const { return shape.IsArray(); }
  bool IsTuple() const { return shape.IsTuple(); }
  bool IsDynamicArray() const { return IsArray() && !shape.is_static(); }
  // Depth-first leaves that are arrays (tokens are skipped), in order.
  void CollectArrays(std::vector<IrArray>* out) const;
  // The sizes pointers of the dynamic array leaves, depth first.
  void CollectSizes(std::vector<llvm::Value*>* out) const;
};

// Computation ABI (emit_context.h): the params / results arrays hold one
// pointer per array leaf, then one pointer to the i64 runtime sizes of each
// DYNAMIC array leaf, both depth first.
int64_t CountDynamicArrayLeaves(const Shape& shape);

// Bytes an array shape takes in a buffer (elements * StorageBytes);
// bounded dynamic dimensions take their bound.
int64_t ArrayBytes(const Shape& shape);
// The array leaves of a shape in depth-first order (tokens skipped).
void CollectArrayShapes(const Shape& shape, std::vector<Shape>* out);

// A literal's array elements (row-major in the Literal) in the physical
// order of `buffer_shape`'s layout, StorageBytes each; `out` must hold
// ArrayBytes(buffer_shape) bytes. The literal's dimensions must match.
void LiteralToPhysical(const Literal& literal, const Shape& buffer_shape,
                       uint8_t* out);
// The inverse: a literal of `buffer_shape` (its layout kept as metadata,
// storage row-major) from a physical buffer.
Literal PhysicalToLiteral(const uint8_t* data, const Shape& buffer_shape);
}  // namespace hloref::codegen

#endif  // HLOREF_BACKENDS_CODEGEN_IR_VALUE_H_
