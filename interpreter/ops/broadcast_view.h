// A broadcast read in place (issue 16): the evaluator does not materialise
// a broadcast whose every reader can read its operand through strides
// (stride 0 along the broadcast dimensions); the reader gets a
// BroadcastView of the operand instead (EvalContext::OperandView).
//
// Lifetime: the evaluator keeps the source literal alive as long as the
// view's slot exists (the slot shares ownership of the source), so a view
// never outlives its source, and the source cannot be taken for an
// in-place result while a view of it is still to be read (its reference
// count is above one: EvaluatorImpl::CanTake).
//
// Exactness: a view only changes where a reader loads an element from;
// element i of the broadcast is source element SourceIndex(i), as the
// materialising broadcast (shape.cc, EvalBroadcastInDim) copies it.
#ifndef HLOREF_INTERPRETER_OPS_BROADCAST_VIEW_H_
#define HLOREF_INTERPRETER_OPS_BROADCAST_VIEW_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "spec/types/literal.h"
#include "spec/types/primitive_type.h"
#include "spec/types/shape.h"

namespace hloref {

struct BroadcastView {
  // The broadcast's operand (row-major storage, static shape).
  const Literal* source = nullptr;
  // The broadcast's result shape (static).
  Shape shape;
  // Collapsed iteration space: result dimensions of size 1 dropped and
  // neighbours merged where the source is walked by one stride across
  // both (so "[1024,768] from [768]" is two dimensions, "[8,1,256] from
  // a scalar" one). dims[k] elements with source stride strides[k] (0:
  // the source element repeats), row-major over the result.
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;

  // The view of broadcast `dimensions` (operand dimension i -> result
  // dimension dimensions[i]) of `source` to `result` (static shapes),
  // or nullopt when they do not fit together (the materialising
  // broadcast then reports the error).
  static std::optional<BroadcastView> Make(
      const Literal& source, const Shape& result,
      absl::Span<const int64_t> dimensions) {
    const Shape& in = source.shape();
    if (!in.IsArray() || !result.IsArray() || !in.is_static() ||
        !result.is_static() || source.HasPadding() ||
        in.element_type() != result.element_type() ||
        static_cast<int64_t>(dimensions.size()) != in.rank()) {
      return std::nullopt;
    }
    const int64_t rank = result.rank();
    std::vector<int64_t> src_strides(static_cast<size_t>(rank), 0);
    int64_t stride = 1;
    for (int64_t i = in.rank() - 1; i >= 0; --i) {
      const int64_t d = dimensions[static_cast<size_t>(i)];
      const int64_t size = in.dimensions(i);
      if (d < 0 || d >= rank || (size != 1 && size != result.dimensions(d))) {
        return std::nullopt;
      }
      if (size != 1) src_strides[static_cast<size_t>(d)] = stride;
      stride *= size;
    }
    BroadcastView v;
    v.source = &source;
    v.shape = result;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t size = result.dimensions(d);
      const int64_t s = src_strides[static_cast<size_t>(d)];
      if (size == 1) continue;
      // Merge into the previous (outer) dimension when walking it is
      // walking this one further: outer stride == size * inner stride.
      if (!v.dims.empty() && v.strides.back() == size * s) {
        v.dims.back() *= size;
        v.strides.back() = s;
        continue;
      }
      v.dims.push_back(size);
      v.strides.push_back(s);
    }
    return v;
  }

  int64_t element_count() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }

  // Rows (the innermost collapsed dimension) at least this long are read
  // row by row (Read): a block never crosses one, so a row with stride 1
  // is read in place and a row with stride 0 is one value.
  static constexpr int64_t kMinRow = 64;
  // Elements from result element `linear` to the end of its row when rows
  // are read row by row, else `len`; never more than `len`.
  int64_t BlockLength(int64_t linear, int64_t len) const {
    if (dims.empty() || dims.back() < kMinRow) return len;
    return std::min(len, dims.back() - linear % dims.back());
  }

  // The source element read for result element `linear` (row-major).
  int64_t SourceIndex(int64_t linear) const {
    int64_t offset = 0;
    for (size_t k = dims.size(); k-- > 0;) {
      offset += (linear % dims[k]) * strides[k];
      linear /= dims[k];
    }
    return offset;
  }

  // n copies of `value` at dst: 64-byte pieces of a pattern (fixed-size
  // copies the compiler turns into vector moves; a plain std::fill of an
  // arbitrary S is a scalar loop at -O2, 4 instructions per element).
  template <typename S>
  static void Splat(S* dst, int64_t n, S value) {
    constexpr int64_t kPer = 64 / static_cast<int64_t>(sizeof(S));
    if (kPer == 0 || n < kPer) {
      std::fill(dst, dst + n, value);
      return;
    }
    S pattern[kPer > 0 ? kPer : 1];
    std::fill(pattern, pattern + kPer, value);
    int64_t k = 0;
    for (; k + kPer <= n; k += kPer) std::memcpy(dst + k, pattern, 64);
    std::memcpy(dst + k, pattern, static_cast<size_t>(n - k) * sizeof(S));
  }

  // Result elements [begin, begin + len) into dst, as storage codes S
  // (sizeof(S) == the element's storage bytes).
  template <typename S>
  void Gather(int64_t begin, int64_t len, S* dst) const {
    const S* src = reinterpret_cast<const S*>(source->raw().data());
    if (dims.empty()) {
      Splat(dst, len, src[0]);
      return;
    }
    const size_t rank = dims.size();
    // Position of `begin` and its source offset.
    int64_t idx[16];
    std::vector<int64_t> big;
    int64_t* pos = idx;
    if (rank > 16) {
      big.resize(rank);
      pos = big.data();
    }
    int64_t offset = 0;
    {
      int64_t rest = begin;
      for (size_t k = rank; k-- > 0;) {
        pos[k] = rest % dims[k];
        rest /= dims[k];
        offset += pos[k] * strides[k];
      }
    }
    const int64_t inner = dims[rank - 1];
    const int64_t step = strides[rank - 1];
    while (len > 0) {
      const int64_t run = std::min(inner - pos[rank - 1], len);
      if (step == 0) {
        Splat(dst, run, src[offset]);
      } else if (step == 1) {
        std::memcpy(dst, src + offset, static_cast<size_t>(run) * sizeof(S));
      } else {
        for (int64_t j = 0; j < run; ++j) dst[j] = src[offset + j * step];
      }
      dst += run;
      len -= run;
      pos[rank - 1] += run;
      offset += run * step;
      if (pos[rank - 1] < inner) break;  // len is 0
      pos[rank - 1] = 0;
      offset -= inner * step;
      for (size_t k = rank - 1; k-- > 0;) {
        offset += strides[k];
        if (++pos[k] < dims[k]) break;
        pos[k] = 0;
        offset -= dims[k] * strides[k];
      }
    }
  }

  // Reads result elements [begin, begin + len) of the view, len as
  // BlockLength gives it (or less): a pointer into the source for part of
  // a row with stride 1, else `buf` (room for len codes) filled by Gather,
  // or left as it is when it already holds the repeated element of a
  // stride-0 row (or of a scalar) it was filled with last time, at least
  // len of it.
  template <typename S>
  struct Reader {
    const BroadcastView* view;
    S* buf;
    int64_t splat_offset = -1;  // source element `buf` repeats, or -1
    int64_t splat_len = 0;
    const S* Read(int64_t begin, int64_t len) {
      const S* src = reinterpret_cast<const S*>(view->source->raw().data());
      const bool rows = !view->dims.empty() && view->dims.back() >= kMinRow &&
                        view->dims.back() - begin % view->dims.back() >= len;
      if (view->dims.empty() || (rows && view->strides.back() == 0)) {
        const int64_t offset =
            view->dims.empty() ? 0 : view->SourceIndex(begin);
        if (offset != splat_offset || splat_len < len) {
          Splat(buf, len, src[offset]);
          splat_offset = offset;
          splat_len = len;
        }
        return buf;
      }
      if (rows && view->strides.back() == 1) {
        return src + view->SourceIndex(begin);
      }
      view->Gather(begin, len, buf);
      splat_offset = -1;
      return buf;
    }
  };

  // The broadcast as a literal (what EvalBroadcastInDim computes), for a
  // reader that cannot read the view.
  Literal Materialize() const {
    Literal out = Literal::Uninitialized(shape);
    const int64_t n = element_count();
    uint8_t* dst = out.mutable_raw().data();
    switch (StorageBytes(shape.element_type())) {
      case 1:
        Gather(0, n, reinterpret_cast<uint8_t*>(dst));
        break;
      case 2:
        Gather(0, n, reinterpret_cast<uint16_t*>(dst));
        break;
      case 4:
        Gather(0, n, reinterpret_cast<uint32_t*>(dst));
        break;
      case 8:
        Gather(0, n, reinterpret_cast<uint64_t*>(dst));
        break;
      default: {
        const size_t b =
            static_cast<size_t>(StorageBytes(shape.element_type()));
        const uint8_t* src = source->raw().data();
        for (int64_t i = 0; i < n; ++i) {
          std::memcpy(dst + static_cast<size_t>(i) * b,
                      src + static_cast<size_t>(SourceIndex(i)) * b, b);
        }
      }
    }
    return out;
  }
};

}  // namespace hloref

#endif  // HLOREF_INTERPRETER_OPS_BROADCAST_VIEW_H_
