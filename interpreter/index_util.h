// Multi-dimensional index helpers shared by the data-movement evaluators:
// row-major and layout strides, a strided copy of raw element bytes (one
// routine serves every element type, since moving data never looks at
// values), and reading integer index operands.
#ifndef HLOREF_INTERPRETER_INDEX_UTIL_H_
#define HLOREF_INTERPRETER_INDEX_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "spec/ir/hlo_module.h"
#include "spec/types/literal.h"
#include "spec/types/shape.h"

namespace hloref {

// Strides (in elements) of each dimension in row-major order, the order
// Literal storage uses; the last dimension has stride 1.
inline std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= dims[d];
  }
  return strides;
}

// Strides (in elements) of each logical dimension in the physical buffer
// order of `layout` (seed 000 "Shapes and layout": minor_to_major[0] varies
// fastest). `layout` must be a permutation of 0..rank-1 (or empty for a
// scalar); tiles are not modelled here.
inline std::vector<int64_t> LayoutStrides(absl::Span<const int64_t> dims,
                                          const Layout& layout) {
  std::vector<int64_t> strides(dims.size(), 1);
  int64_t stride = 1;
  for (int64_t dim : layout.minor_to_major) {
    strides[dim] = stride;
    stride *= dims[dim];
  }
  return strides;
}

inline int64_t Product(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Floor and ceiling of a / b for b > 0 and any sign of a.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
inline int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

namespace index_util_internal {

// Fixed-size element so the copy loop compiles to plain moves.
template <int kBytes>
struct Bytes {
  uint8_t b[kBytes];
};

template <int kBytes>
void StridedCopyImpl(absl::Span<const int64_t> dims, const uint8_t* src,
                     int64_t src_base, absl::Span<const int64_t> src_strides,
                     uint8_t* dst, int64_t dst_base,
                     absl::Span<const int64_t> dst_strides) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  auto move = [&](int64_t s, int64_t t) {
    std::memcpy(dst + t * kBytes, src + s * kBytes, kBytes);
  };
  if (rank == 0) {
    move(src_base, dst_base);
    return;
  }
  // Odometer over all dimensions but the last; the last is the inner loop.
  std::vector<int64_t> index(rank, 0);
  const int64_t inner = dims[rank - 1];
  const int64_t inner_src = src_strides[rank - 1];
  const int64_t inner_dst = dst_strides[rank - 1];
  int64_t s = src_base;
  int64_t t = dst_base;
  while (true) {
    if (inner_dst == 1 && inner_src == 1) {
      // A contiguous row: one memcpy.
      std::memcpy(dst + t * kBytes, src + s * kBytes, inner * kBytes);
    } else if (inner_dst == 1 && inner_src == 0 && inner >= 16) {
      // One element repeated (a broadcast along the last dimension): the
      // element, then copies of what is written so far, doubling.
      move(s, t);
      uint8_t* row = dst + t * kBytes;
      int64_t done = 1;
      while (done < inner) {
        const int64_t n = std::min(done, inner - done);
        std::memcpy(row + done * kBytes, row, n * kBytes);
        done += n;
      }
    } else {
      for (int64_t i = 0; i < inner; ++i)
        move(s + i * inner_src, t + i * inner_dst);
    }
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      ++index[d];
      s += src_strides[d];
      t += dst_strides[d];
      if (index[d] < dims[d]) break;
      s -= src_strides[d] * dims[d];
      t -= dst_strides[d] * dims[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace index_util_internal

// For every index i of the box `dims` copies the element at linear position
// src_base + sum_d i[d] * src_strides[d] of `src` to position
// dst_base + sum_d i[d] * dst_strides[d] of `dst`; positions count elements
// of `elem_bytes` bytes. Strides may be zero (broadcast) or negative
// (reverse). The caller guarantees every position is in range.
inline void StridedCopy(int elem_bytes, absl::Span<const int64_t> dims,
                        const uint8_t* src, int64_t src_base,
                        absl::Span<const int64_t> src_strides, uint8_t* dst,
                        int64_t dst_base,
                        absl::Span<const int64_t> dst_strides) {
  using index_util_internal::StridedCopyImpl;
  switch (elem_bytes) {
    case 1:
      return StridedCopyImpl<1>(dims, src, src_base, src_strides, dst, dst_base,
                                dst_strides);
    case 2:
      return StridedCopyImpl<2>(dims, src, src_base, src_strides, dst, dst_base,
                                dst_strides);
    case 4:
      return StridedCopyImpl<4>(dims, src, src_base, src_strides, dst, dst_base,
                                dst_strides);
    case 8:
      return StridedCopyImpl<8>(dims, src, src_base, src_strides, dst, dst_base,
                                dst_strides);
    case 16:
      return StridedCopyImpl<16>(dims, src, src_base, src_strides, dst,
                                 dst_base, dst_strides);
    default:
      HLOREF_CHECK(false && "unexpected element storage size");
  }
}

// Reads element `linear` of an integer array as an index. Unsigned values
// above INT64_MAX saturate to INT64_MAX, which keeps any later clamp to a
// non-negative range exact (numerics.md 3.5: the comparison follows the
// index type's signedness). Non-integer types are an InvalidArgument.
inline absl::StatusOr<int64_t> ReadIndexElement(const Literal& indices,
                                                int64_t linear) {
  switch (indices.element_type()) {
    case PrimitiveType::kS1:
    case PrimitiveType::kS2:
    case PrimitiveType::kS4:
    case PrimitiveType::kS8:
      return indices.data<int8_t>()[linear];
    case PrimitiveType::kS16:
      return indices.data<int16_t>()[linear];
    case PrimitiveType::kS32:
      return indices.data<int32_t>()[linear];
    case PrimitiveType::kS64:
      return indices.data<int64_t>()[linear];
    case PrimitiveType::kU1:
    case PrimitiveType::kU2:
    case PrimitiveType::kU4:
    case PrimitiveType::kU8:
      return indices.data<uint8_t>()[linear];
    case PrimitiveType::kU16:
      return indices.data<uint16_t>()[linear];
    case PrimitiveType::kU32:
      return indices.data<uint32_t>()[linear];
    case PrimitiveType::kU64: {
      uint64_t v = indices.data<uint64_t>()[linear];
      constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
      return static_cast<int64_t>(v > kMax ? kMax : v);
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("index operand has element type ",
                       PrimitiveTypeName(indices.element_type()),
                       ", expected an integer type"));
  }
}

// Errors about one instruction that are not constraint violations, in the
// located form InstructionError uses: "12:5: %x = op(...): <why>".
inline std::string InstructionPrefix(const HloInstruction& inst) {
  std::string prefix;
  if (inst.location().known()) {
    absl::StrAppend(&prefix, inst.location().ToString(), ": ");
  }
  absl::StrAppend(&prefix, inst.ShortDescription(), ": ");
  return prefix;
}
inline absl::Status InstructionUnimplemented(const HloInstruction& inst,
                                             absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(InstructionPrefix(inst), why));
}
inline absl::Status InstructionInternal(const HloInstruction& inst,
                                        absl::string_view why) {
  return absl::InternalError(absl::StrCat(InstructionPrefix(inst), why));
}
// Evaluators assume a verified module; these guards keep an unverified one
// from reading out of bounds (InvalidArgument naming what is wrong).
inline absl::Status ExpectOperandCount(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    int64_t min, int64_t max) {
  const int64_t n = static_cast<int64_t>(operands.size());
  if (n < min || (max >= 0 && n > max)) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstructionPrefix(inst), "has ", n, " operand values, expected ",
        max == min ? absl::StrCat(min)
                   : absl::StrCat(min, "..", max < 0 ? "" : absl::StrCat(max)),
        " (is the module verified?)"));
  }
  return absl::OkStatus();
}
inline absl::Status ExpectArray(const HloInstruction& inst,
                                const Literal& value, int64_t operand_index) {
  if (!value.shape().IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstructionPrefix(inst), "operand ", operand_index, " is ",
                     value.shape().ToString(),
                     ", expected an array (is the module "
                     "verified?)"));
  }
  return absl::OkStatus();
}

// A zero-filled literal of `shape` (tuples recursively), refusing shapes
// beyond `max_elements` with a clear ResourceExhausted error instead of an
// allocation failure.
inline absl::StatusOr<Literal> AllocateLiteral(const Shape& shape,
                                               int64_t max_elements) {
  absl::Status status = CheckShapeSize(shape, max_elements);
  if (!status.ok()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "result shape ", shape.ToString(), " is too large: ", status.message(),
        " (EvaluatorOptions::max_elements_per_value)"));
  }
  return Literal(shape);
}

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_INDEX_UTIL_H_
