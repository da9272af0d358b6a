// Helpers of the CPU runtime's array functions (sort, fft, linalg, rng):
// buffers reach the runtime as raw pointers in PHYSICAL layout order with
// one stride (in elements) per LOGICAL dimension, computed by the emitter
// from the shape's minor_to_major; elements are stored exactly as in a
// Literal (spec/types/primitive_type.h). Header only.
#ifndef HLOREF_BACKENDS_CPU_RUNTIME_STRIDED_H_
#define HLOREF_BACKENDS_CPU_RUNTIME_STRIDED_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

#include "spec/types/minifloat.h"
#include "spec/types/primitive_type.h"

namespace hloref::cpu::rt {

// The linear (physical) position of a logical index.
inline int64_t Offset(const std::vector<int64_t>& index, const int64_t* strides,
                      int64_t rank) {
  int64_t off = 0;
  for (int64_t d = 0; d < rank; ++d) off += index[d] * strides[d];
  return off;
}

// Steps `index` to the next row-major index of `dims` over the dimensions
// [0, end) except `skip` (-1: none); false after the last.
inline bool NextIndex(std::vector<int64_t>& index, const int64_t* dims,
                      int64_t end, int64_t skip = -1) {
  for (int64_t d = end - 1; d >= 0; --d) {
    if (d == skip) continue;
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

inline int64_t Product(const int64_t* dims, int64_t begin, int64_t end) {
  int64_t n = 1;
  for (int64_t d = begin; d < end; ++d) n *= dims[d];
  return n;
}

// The low 64 bits of an element's storage (little-endian, at most 8 bytes).
inline uint64_t LoadBits(const uint8_t* p, int bytes) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, static_cast<size_t>(bytes));
  return bits;
}

inline uint64_t LowMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// Stores the low BitWidth(type) bits of `bits` into an integer or pred
// element as a Literal does: pred as 0/1, sub-byte signed values
// sign-extended in their byte, unsigned values masked.
inline void StoreIntBits(PrimitiveType type, uint8_t* p, uint64_t bits) {
  const int bytes = StorageBytes(type);
  const int width = BitWidth(type);
  uint64_t stored;
  if (IsPred(type)) {
    stored = (bits & 0xFF) != 0 ? 1 : 0;
  } else if (IsSignedInt(type) && width < 64) {
    const uint64_t sign = uint64_t{1} << (width - 1);
    const uint64_t v = bits & LowMask(width);
    stored = (v ^ sign) - sign;
  } else {
    stored = bits & LowMask(width);
  }
  std::memcpy(p, &stored, static_cast<size_t>(bytes));
}

// An integer or pred element as int64 (signed: its value; unsigned: its
// bits; pred: 0/1).
inline int64_t LoadInt(PrimitiveType type, const uint8_t* p) {
  const int bytes = StorageBytes(type);
  const uint64_t bits = LoadBits(p, bytes);
  if (IsPred(type)) return (bits & 0xFF) != 0 ? 1 : 0;
  if (IsSignedInt(type)) {
    switch (bytes) {
      case 1:
        return static_cast<int8_t>(bits);
      case 2:
        return static_cast<int16_t>(bits);
      case 4:
        return static_cast<int32_t>(bits);
      default:
        return static_cast<int64_t>(bits);
    }
  }
  return static_cast<int64_t>(bits & LowMask(BitWidth(type)));
}

// The exact value of a real float element.
inline double LoadFloat(PrimitiveType type, const uint8_t* p) {
  if (type == PrimitiveType::kF32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (type == PrimitiveType::kF64) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  return MinifloatToDouble(type, LoadBits(p, StorageBytes(type)));
}

// Stores a double rounded to the float type (f32 by one IEEE rounding,
// minifloats by EncodeFloat's kXla rules).
inline void StoreFloatFromDouble(PrimitiveType type, uint8_t* p, double v) {
  if (type == PrimitiveType::kF64) {
    std::memcpy(p, &v, 8);
  } else if (type == PrimitiveType::kF32) {
    const float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else {
    const uint64_t bits = MinifloatFromDouble(type, v);
    std::memcpy(p, &bits, static_cast<size_t>(StorageBytes(type)));
  }
}

// `v` rounded to 53 bits by round-to-odd (truncate, then set the last bit
// when inexact): a later rounding to any narrower format is then correct.
inline double RoundToOdd53(long double v) {
  double d = static_cast<double>(v);
  if (!std::isfinite(v) || static_cast<long double>(d) == v) return d;
  if (std::fabs(static_cast<long double>(d)) > std::fabs(v)) {
    d = std::nextafter(d, 0.0);
  }
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  bits |= 1;
  std::memcpy(&d, &bits, 8);
  return d;
}

// Stores a long double rounded ONCE to a real float type.
inline void StoreFloatWide(PrimitiveType type, uint8_t* p, long double v) {
  if (type == PrimitiveType::kF64) {
    const double d = static_cast<double>(v);
    std::memcpy(p, &d, 8);
  } else if (type == PrimitiveType::kF32) {
    const float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else {
    StoreFloatFromDouble(type, p, RoundToOdd53(v));
  }
}

using CL = std::complex<long double>;

// A float or complex element as complex<long double> (exact).
inline CL LoadWide(PrimitiveType type, const uint8_t* p) {
  if (type == PrimitiveType::kC64) {
    float c[2];
    std::memcpy(c, p, 8);
    return CL(c[0], c[1]);
  }
  if (type == PrimitiveType::kC128) {
    double c[2];
    std::memcpy(c, p, 16);
    return CL(c[0], c[1]);
  }
  return CL(LoadFloat(type, p), 0);
}

// Stores a complex<long double> into a float (real part) or complex
// element, each component rounded once.
inline void StoreWide(PrimitiveType type, uint8_t* p, const CL& v) {
  if (type == PrimitiveType::kC64) {
    const float c[2] = {static_cast<float>(v.real()),
                        static_cast<float>(v.imag())};
    std::memcpy(p, c, 8);
  } else if (type == PrimitiveType::kC128) {
    const double c[2] = {static_cast<double>(v.real()),
                         static_cast<double>(v.imag())};
    std::memcpy(p, c, 16);
  } else {
    StoreFloatWide(type, p, v.real());
  }
}

}  // namespace hloref::cpu::rt

#endif  // HLOREF_BACKENDS_CPU_RUNTIME_STRIDED_H_
